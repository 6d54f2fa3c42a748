package traces

import (
	"bytes"
	"fmt"
	"sort"

	"kmc/checker"
)

// Canonical is v with everything whose order ITF leaves free put in one order: set
// elements sorted (by Compare, then by their JSON) without duplicates, map entries sorted
// by key, record fields sorted by name. Two values that mean the same are equal once
// canonical, whatever order a tool wrote them in.
func (v Value) Canonical() Value {
	out := v
	if len(v.Elems) > 0 {
		out.Elems = make([]Value, len(v.Elems))
		for i, e := range v.Elems {
			out.Elems[i] = e.Canonical()
		}
	}
	if len(v.Keys) > 0 {
		out.Keys = make([]Value, len(v.Keys))
		for i, k := range v.Keys {
			out.Keys[i] = k.Canonical()
		}
	}
	switch v.Kind {
	case SetValue:
		sortValues(out.Elems, nil)
		uniq := out.Elems[:0]
		for i, e := range out.Elems {
			if i == 0 || !bytes.Equal(e.AppendJSON(nil), uniq[len(uniq)-1].AppendJSON(nil)) {
				uniq = append(uniq, e)
			}
		}
		out.Elems = uniq
	case MapValue:
		sortValues(out.Keys, out.Elems)
	case RecordValue:
		idx := make([]int, len(v.Fields))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return v.Fields[idx[a]] < v.Fields[idx[b]] })
		fields, elems := make([]string, len(idx)), make([]Value, len(idx))
		for n, i := range idx {
			fields[n], elems[n] = v.Fields[i], out.Elems[i]
		}
		out.Fields, out.Elems = fields, elems
	}
	return out
}

// sortValues sorts keys (by Compare, then JSON) and moves vals, when not nil, with them.
func sortValues(keys, vals []Value) {
	type entry struct {
		k, v Value
		js   []byte
	}
	es := make([]entry, len(keys))
	for i := range keys {
		es[i] = entry{k: keys[i], js: keys[i].AppendJSON(nil)}
		if vals != nil {
			es[i].v = vals[i]
		}
	}
	sort.SliceStable(es, func(a, b int) bool {
		if c := Compare(es[a].k, es[b].k); c != 0 {
			return c < 0
		}
		return bytes.Compare(es[a].js, es[b].js) < 0
	})
	for i, e := range es {
		keys[i] = e.k
		if vals != nil {
			vals[i] = e.v
		}
	}
}

// AppendCanonical appends the canonical form (see Value.Canonical) of the ITF JSON value
// itf to dst; a value that is not ITF is appended as it is.
func AppendCanonical(dst, itf []byte) []byte {
	v, err := ParseValue(itf)
	if err != nil {
		return append(dst, itf...)
	}
	return v.Canonical().AppendJSON(dst)
}

// CanonicalTrace is a copy of t with every value in canonical form.
func CanonicalTrace(t *checker.Trace) (*checker.Trace, error) {
	c := *t
	c.States = make([]checker.TraceState, len(t.States))
	for i, s := range t.States {
		c.States[i] = s
		c.States[i].Values = make([]string, len(s.Values))
		for j, val := range s.Values {
			v, err := ParseValue([]byte(val))
			if err != nil {
				return nil, fmt.Errorf("state %d: %s: %w", i+1, t.Vars[j], err)
			}
			c.States[i].Values[j] = string(v.Canonical().AppendJSON(nil))
		}
	}
	return &c, nil
}

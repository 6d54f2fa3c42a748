package traces

import (
	"sort"

	"kmc/checker"
)

// Change is one difference between two values of a variable, at a path inside it:
// Path is the variable name followed by [key] for maps and .field for records.
type Change struct {
	Path string
	Op   string // "=" (new value), "+=" (added to a set), "-=" (removed from a set), "removed" (map key)
	Val  Value
}

// String prints the change: `hw["b2"] = 3`, `msgs += [type |-> "Fetch"]`.
func (c Change) String() string {
	if c.Op == "removed" {
		return c.Path + " removed"
	}
	return c.Path + " " + c.Op + " " + c.Val.String()
}

// Diff lists what changed from old to new, as deep as maps and records with the same
// fields go: changed map entries and record fields by path, sets as elements added and
// removed, anything else as its new value. Changes come in a fixed order (map keys and
// set elements sorted, record fields in order).
func Diff(path string, old, new Value) []Change {
	if equalValue(old, new) {
		return nil
	}
	switch {
	case old.Kind == MapValue && new.Kind == MapValue:
		var out []Change
		keys := append(append([]Value(nil), old.Keys...), new.Keys...)
		sort.SliceStable(keys, func(i, j int) bool { return Compare(keys[i], keys[j]) < 0 })
		for i, k := range keys {
			if i > 0 && equalValue(keys[i-1], k) {
				continue
			}
			p := path + "[" + k.String() + "]"
			ov, oin := lookup(old, k)
			nv, nin := lookup(new, k)
			switch {
			case !nin:
				out = append(out, Change{Path: p, Op: "removed"})
			case !oin:
				out = append(out, Change{Path: p, Op: "=", Val: nv})
			default:
				out = append(out, Diff(p, ov, nv)...)
			}
		}
		return out
	case old.Kind == RecordValue && new.Kind == RecordValue && sameFields(old, new):
		var out []Change
		for i, f := range new.Fields {
			out = append(out, Diff(path+"."+f, old.Elems[i], new.Elems[i])...)
		}
		return out
	case old.Kind == SetValue && new.Kind == SetValue:
		var out []Change
		for _, e := range sortedElems(new.Elems) {
			if !member(old, e) {
				out = append(out, Change{Path: path, Op: "+=", Val: e})
			}
		}
		for _, e := range sortedElems(old.Elems) {
			if !member(new, e) {
				out = append(out, Change{Path: path, Op: "-=", Val: e})
			}
		}
		if len(out) == 0 { // same elements, written twice or in another order
			return nil
		}
		return out
	}
	return []Change{{Path: path, Op: "=", Val: new}}
}

func lookup(m Value, k Value) (Value, bool) {
	for i, key := range m.Keys {
		if equalValue(key, k) {
			return m.Elems[i], true
		}
	}
	return Value{}, false
}

func member(s Value, e Value) bool {
	for _, x := range s.Elems {
		if equalValue(x, e) {
			return true
		}
	}
	return false
}

func sameFields(a, b Value) bool {
	if len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i] != b.Fields[i] {
			return false
		}
	}
	return true
}

// equalValue is value equality: sets and maps regardless of the order written.
func equalValue(a, b Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case SetValue:
		if len(a.Elems) != len(b.Elems) {
			return false
		}
		for _, e := range a.Elems {
			if !member(b, e) {
				return false
			}
		}
		for _, e := range b.Elems {
			if !member(a, e) {
				return false
			}
		}
		return true
	case MapValue:
		if len(a.Keys) != len(b.Keys) {
			return false
		}
		for i, k := range a.Keys {
			v, ok := lookup(b, k)
			if !ok || !equalValue(a.Elems[i], v) {
				return false
			}
		}
		return true
	case SeqValue, TupleValue, RecordValue:
		if len(a.Elems) != len(b.Elems) || (a.Kind == RecordValue && !sameFields(a, b)) {
			return false
		}
		for i := range a.Elems {
			if !equalValue(a.Elems[i], b.Elems[i]) {
				return false
			}
		}
		return true
	}
	return Compare(a, b) == 0
}

// stateChanges lists the changes into state i of t (nil for the initial state); a value
// that does not parse counts as replaced whole.
func stateChanges(t *checker.Trace, i int) []Change {
	if i == 0 {
		return nil
	}
	var out []Change
	for v, name := range t.Vars {
		oldRaw, newRaw := t.States[i-1].Values[v], t.States[i].Values[v]
		if canon(oldRaw) == canon(newRaw) {
			continue
		}
		ov, err1 := ParseValue([]byte(oldRaw))
		nv, err2 := ParseValue([]byte(newRaw))
		if err1 != nil || err2 != nil {
			out = append(out, Change{Path: name, Op: "=", Val: Value{Kind: UnserializableValue, Str: Format(newRaw)}})
			continue
		}
		out = append(out, Diff(name, ov, nv)...)
	}
	return out
}

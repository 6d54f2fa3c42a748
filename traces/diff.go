package traces

import (
	"slices"
	"strconv"

	"kmc/checker"
)

// Change is one difference between two values of a variable, at a path inside it:
// Path is the variable name followed by [key] for maps, [i] (from 1, as TLA+ indexes a
// sequence) for sequences and .field for records.
type Change struct {
	Path string
	Op   string // "=" (new value), "+=" (added to a set), "-=" (removed from a set), "removed" (map key, or sequence element past the new end)
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
// removed, anything else (sequences too) as its new value. Changes come in a fixed order
// (map keys and set elements sorted, record fields in order).
func Diff(path string, old, new Value) []Change {
	return diff(path, old, new, false)
}

// diff is Diff, or with forText the finer diff Text prints: it also descends into
// sequences (see seqDiff), and a set that was or becomes empty prints whole. It compares
// the values' canonical forms (see canonical), in time n log n in their size.
func diff(path string, old, new Value, forText bool) []Change {
	return diffCanon(path, canonical(old), canonical(new), forText)
}

// diffCanon is diff of canonical values.
func diffCanon(path string, old, new Value, forText bool) []Change {
	if Compare(old, new) == 0 {
		return nil
	}
	switch {
	case old.Kind == MapValue && new.Kind == MapValue:
		// Both sorted by key: a merge, keys in order, an old key before an equal new one.
		var out []Change
		merge(old.Keys, new.Keys, func(i, j, c int) {
			switch {
			case c < 0:
				out = append(out, Change{Path: path + "[" + old.Keys[i].String() + "]", Op: "removed"})
			case c > 0:
				out = append(out, Change{Path: path + "[" + new.Keys[j].String() + "]", Op: "=", Val: new.Elems[j]})
			default:
				out = append(out, diffCanon(path+"["+new.Keys[j].String()+"]", old.Elems[i], new.Elems[j], forText)...)
			}
		})
		return out
	case old.Kind == RecordValue && new.Kind == RecordValue && sameFields(old, new):
		var out []Change
		for i, f := range new.Fields {
			out = append(out, diffCanon(path+"."+f, old.Elems[i], new.Elems[i], forText)...)
		}
		return out
	case old.Kind == SetValue && new.Kind == SetValue && !(forText && (len(old.Elems) == 0 || len(new.Elems) == 0)):
		// Both sorted, without duplicates: the elements added, then those removed, each in
		// order.
		var added, removed []Change
		merge(old.Elems, new.Elems, func(i, j, c int) {
			switch {
			case c < 0:
				removed = append(removed, Change{Path: path, Op: "-=", Val: old.Elems[i]})
			case c > 0:
				added = append(added, Change{Path: path, Op: "+=", Val: new.Elems[j]})
			}
		})
		return append(added, removed...)
	case forText && old.Kind == SeqValue && new.Kind == SeqValue:
		if out, ok := seqDiff(path, old.Elems, new.Elems); ok {
			return out
		}
	}
	return []Change{{Path: path, Op: "=", Val: new}}
}

// merge walks two sorted lists of values together, calling f for each step with the
// positions and how a[i] compares with b[j]: < 0 when a[i] comes first (a's alone), > 0
// when b[j] does (b's alone), 0 for equal values (both).
func merge(a, b []Value, f func(i, j, c int)) {
	for i, j := 0, 0; i < len(a) || j < len(b); {
		c := 0
		switch {
		case i == len(a):
			c = 1
		case j == len(b):
			c = -1
		default:
			c = Compare(a[i], b[j])
		}
		f(i, j, c)
		if c <= 0 {
			i++
		}
		if c >= 0 {
			j++
		}
	}
}

// seqDiff lists the changes of a sequence index by index: elements changed in place (each
// diffed in turn), added past the old end (path[i] = the element) or removed past the new
// end (path[i] removed). It declines, and the caller prints the new value whole, when
// either side is empty or when the elements moved up towards the head (a queue that took
// its head), where comparing index by index would tell nothing. The elements are
// canonical.
func seqDiff(path string, old, new []Value) ([]Change, bool) {
	n := min(len(old), len(new))
	if n == 0 || movedUp(old, new) {
		return nil, false
	}
	var out []Change
	at := func(i int) string { return path + "[" + strconv.Itoa(i+1) + "]" }
	for i := range n {
		out = append(out, diffCanon(at(i), old[i], new[i], true)...)
	}
	for i := n; i < len(new); i++ {
		out = append(out, Change{Path: at(i), Op: "=", Val: new[i]})
	}
	for i := n; i < len(old); i++ {
		out = append(out, Change{Path: at(i), Op: "removed"})
	}
	return out, true
}

// movedUp reports whether new begins with old's elements from the second on (new[i] =
// old[i+1] for every i both sides have), as after Tail(old) or Append(Tail(old), e).
func movedUp(old, new []Value) bool {
	m := min(len(new), len(old)-1)
	if m < 1 {
		return false
	}
	for i := range m {
		if Compare(new[i], old[i+1]) != 0 {
			return false
		}
	}
	return true
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

// canonical is v with every set's elements sorted (Compare) without duplicates and every
// map's entries sorted by key, the first of equal keys kept, all the way down: two values
// equal as TLA+ values (sets and maps regardless of the order written) have equal
// canonical forms, which Compare then tells apart in one pass.
func canonical(v Value) Value {
	switch v.Kind {
	case SeqValue, TupleValue, RecordValue, SetValue:
		if len(v.Elems) == 0 {
			return v
		}
		elems := make([]Value, len(v.Elems))
		for i, e := range v.Elems {
			elems[i] = canonical(e)
		}
		if v.Kind == SetValue {
			if !inOrder(elems) {
				slices.SortStableFunc(elems, Compare)
			}
			k := 1
			for i := 1; i < len(elems); i++ {
				if Compare(elems[i], elems[k-1]) != 0 {
					elems[k] = elems[i]
					k++
				}
			}
			elems = elems[:k]
		}
		v.Elems = elems
	case MapValue:
		if len(v.Keys) == 0 {
			return v
		}
		idx := make([]int, len(v.Keys))
		keys := make([]Value, len(v.Keys))
		for i := range idx {
			idx[i], keys[i] = i, canonical(v.Keys[i])
		}
		slices.SortStableFunc(idx, func(a, b int) int { return Compare(keys[a], keys[b]) })
		m := Value{Kind: MapValue}
		for n, i := range idx {
			if n > 0 && Compare(keys[i], m.Keys[len(m.Keys)-1]) == 0 {
				continue
			}
			m.Keys = append(m.Keys, keys[i])
			m.Elems = append(m.Elems, canonical(v.Elems[i]))
		}
		return m
	}
	return v
}

// stateChanges lists the changes into state i of t (nil for the initial state), by Diff;
// a value that does not parse counts as replaced whole.
func stateChanges(t *checker.Trace, i int) []Change {
	return varChanges(t, i, false)
}

// varChanges is stateChanges, or with forText the finer changes Text prints (see diff).
func varChanges(t *checker.Trace, i int, forText bool) []Change {
	if i == 0 {
		return nil
	}
	var out []Change
	for v, name := range t.Vars {
		oldRaw, newRaw := t.States[i-1].Values[v], t.States[i].Values[v]
		if oldRaw == newRaw {
			continue
		}
		// Written differently: diff says whether they differ as values.
		ov, err1 := ParseValue([]byte(oldRaw))
		nv, err2 := ParseValue([]byte(newRaw))
		if err1 != nil || err2 != nil {
			out = append(out, Change{Path: name, Op: "=", Val: Value{Kind: UnserializableValue, Str: Format(newRaw)}})
			continue
		}
		out = append(out, diff(name, ov, nv, forText)...)
	}
	return out
}

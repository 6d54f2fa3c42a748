package traces

import (
	"sort"
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
// sequences (see seqDiff), and a set that was or becomes empty prints whole.
func diff(path string, old, new Value, forText bool) []Change {
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
				out = append(out, diff(p, ov, nv, forText)...)
			}
		}
		return out
	case old.Kind == RecordValue && new.Kind == RecordValue && sameFields(old, new):
		var out []Change
		for i, f := range new.Fields {
			out = append(out, diff(path+"."+f, old.Elems[i], new.Elems[i], forText)...)
		}
		return out
	case old.Kind == SetValue && new.Kind == SetValue && !(forText && (len(old.Elems) == 0 || len(new.Elems) == 0)):
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
	case forText && old.Kind == SeqValue && new.Kind == SeqValue:
		if out, ok := seqDiff(path, old.Elems, new.Elems); ok {
			return out
		}
	}
	return []Change{{Path: path, Op: "=", Val: new}}
}

// seqDiff lists the changes of a sequence index by index: elements changed in place (each
// diffed in turn), added past the old end (path[i] = the element) or removed past the new
// end (path[i] removed). It declines, and the caller prints the new value whole, when
// either side is empty or when the elements moved up towards the head (a queue that took
// its head), where comparing index by index would tell nothing.
func seqDiff(path string, old, new []Value) ([]Change, bool) {
	n := min(len(old), len(new))
	if n == 0 || movedUp(old, new) {
		return nil, false
	}
	var out []Change
	at := func(i int) string { return path + "[" + strconv.Itoa(i+1) + "]" }
	for i := range n {
		out = append(out, diff(at(i), old[i], new[i], true)...)
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
		if !equalValue(new[i], old[i+1]) {
			return false
		}
	}
	return true
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
		if canon(oldRaw) == canon(newRaw) {
			continue
		}
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

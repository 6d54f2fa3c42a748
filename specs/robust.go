package specs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"kmc/checker"
)

// Neighbour is one robustness neighbour of a check: its configuration with the integer
// constant or fault Param moved by Delta ("max_epoch+1" is {max_epoch, 1}).
type Neighbour struct {
	Param string
	Delta int // non-zero
	Pos   Pos // of the entry in the spec file
}

// String is the entry as a spec writes it: "max_epoch+1", "brokers-1".
func (n Neighbour) String() string {
	if n.Delta < 0 {
		return n.Param + strconv.Itoa(n.Delta)
	}
	return n.Param + "+" + strconv.Itoa(n.Delta)
}

// NeighbourConfig is the configuration of check c with neighbour n applied.
func (c *Check) NeighbourConfig(n Neighbour) Config {
	vals := make(map[string]int, len(c.Config.Values))
	for k, x := range c.Config.Values {
		vals[k] = x
	}
	vals[n.Param] += n.Delta
	return Config{Values: vals, Switches: c.Config.Switches, Without: c.Config.Without, Mutate: c.Config.Mutate, Properties: c.Config.Properties}
}

// parseNeighbour reads an entry KEY+N or KEY-N (N >= 1, no sign or leading zero).
func parseNeighbour(s string) (Neighbour, bool) {
	i := strings.LastIndexAny(s, "+-")
	if i <= 0 || i == len(s)-1 {
		return Neighbour{}, false
	}
	key, num := s[:i], s[i+1:]
	if !isIdent(key) || num[0] == '0' {
		return Neighbour{}, false
	}
	for j := 0; j < len(num); j++ {
		if num[j] < '0' || num[j] > '9' {
			return Neighbour{}, false
		}
	}
	n, err := strconv.Atoi(num)
	if err != nil || n > 1<<20 {
		return Neighbour{}, false
	}
	if s[i] == '-' {
		n = -n
	}
	return Neighbour{Param: key, Delta: n}, true
}

// robust validates the robust list of the check c (at prefix, resolved so far in ck) and
// returns its neighbours. Problems go to v.errs, each at the position of its entry.
func (v *validator) robust(c map[string]any, prefix string, fam Family, ck *Check) []Neighbour {
	x, ok := c["robust"]
	if !ok {
		return nil
	}
	path := prefix + ".robust"
	arr, ok := x.([]any)
	if !ok {
		v.errVal(path, "must be an array of strings such as [\"max_epoch+1\"], not "+typeName(x), x)
		return nil
	}
	if ck.Expect == checker.Incomplete {
		v.errVal(path, `not allowed when expect = "incomplete": the neighbours of an incomplete check are not checked`, x)
		return nil
	}
	var out []Neighbour
	first := map[string]Pos{}
	for i, e := range arr {
		at := v.elemPos(path, i)
		key := path + "[" + strconv.Itoa(i) + "]"
		s, ok := e.(string)
		if !ok {
			v.add(at, key, "must be a string such as \"max_epoch+1\", not "+typeName(e), e)
			continue
		}
		n, ok := parseNeighbour(s)
		if !ok {
			v.add(at, key, "must be KEY+N or KEY-N with N >= 1, such as max_epoch+1", s)
			continue
		}
		n.Pos = at
		p, ok := findParam(append(append([]Param(nil), fam.Constants...), fam.Faults...), n.Param)
		switch {
		case !ok:
			v.add(at, key, "unknown constant or fault "+strconv.Quote(n.Param)+"; want one of "+strings.Join(paramNames(fam), ", ")+DidYouMean(n.Param, paramNames(fam)), s)
			continue
		case p.Kind != Int:
			v.add(at, key, n.Param+" is not an integer constant or fault", s)
			continue
		}
		if p, dup := first[n.String()]; dup {
			v.add(at, key, "duplicate entry; first at "+p.String(), s)
			continue
		}
		first[n.String()] = at
		base, set := ck.Config.Values[n.Param]
		if !set {
			continue // the constant itself is in error
		}
		if got := base + n.Delta; got < p.Min || got > p.Max {
			if v.paramSet {
				continue // a --set override moved the base value: drop the neighbour
			}
			v.add(at, key, fmt.Sprintf("the neighbour's %s = %d is outside %d..%d", n.Param, got, p.Min, p.Max), s)
			continue
		}
		out = append(out, n)
	}
	return out
}

// buildNeighbours builds the model of every robustness neighbour of every check that
// builds itself, and reports a neighbour the model rejects (a cross-field rule such as
// min_isr <= brokers) at its entry; after a --set override of a constant or fault, such
// a neighbour is dropped instead.
func (v *validator) buildNeighbours(s *Spec) {
	for i := range s.Checks {
		c := &s.Checks[i]
		if len(c.Robust) == 0 {
			continue
		}
		if _, err := s.Family.Build(c.Config); err != nil {
			continue // the check fails on its own when it runs
		}
		kept := c.Robust[:0]
		for _, n := range c.Robust {
			if _, err := s.Family.Build(c.NeighbourConfig(n)); err != nil {
				if !v.paramSet {
					key := "check[" + strconv.Itoa(i) + "].robust"
					v.add(n.Pos, key, "the model rejects the neighbour "+n.String()+": "+innermost(err).Error(), nil)
				}
				continue
			}
			kept = append(kept, n)
		}
		c.Robust = kept
	}
}

// innermost is the last error in err's chain of wrapped errors: the model's own words.
func innermost(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}

// validRobust checks invariant 8 of Spec for check c.
func (f Family) validRobust(c *Check) error {
	if len(c.Robust) > 0 && c.Expect == checker.Incomplete {
		return errors.New("robustness neighbours of an incomplete check")
	}
	params := append(append([]Param(nil), f.Constants...), f.Faults...)
	for i, n := range c.Robust {
		p, ok := findParam(params, n.Param)
		if !ok || p.Kind != Int || n.Delta == 0 {
			return fmt.Errorf("bad robustness neighbour %s", n)
		}
		if x := c.Config.Values[n.Param] + n.Delta; x < p.Min || x > p.Max {
			return fmt.Errorf("robustness neighbour %s: %s = %d outside %d..%d", n, n.Param, x, p.Min, p.Max)
		}
		for _, m := range c.Robust[:i] {
			if m.Param == n.Param && m.Delta == n.Delta {
				return fmt.Errorf("duplicate robustness neighbour %s", n)
			}
		}
	}
	return nil
}

// elemPos is the position of the i-th element of the array value at path, found by
// scanning the source from the value's position; it falls back to the value's position
// when the array was not written in the file (an inline table) or the scan fails.
func (v *validator) elemPos(path string, i int) Pos {
	kp, ok := v.pos[path]
	if !ok || kp.val.File != v.path {
		return v.at(path, true)
	}
	line, col := kp.val.Line-1, -1
	depth, n := 0, 0
	for line < len(v.lines) {
		s := v.lines[line]
		if col < 0 { // the value's column, in characters, as a byte offset
			col = byteIndex(s, kp.val.Col)
		}
		for col < len(s) {
			c := s[col]
			switch {
			case c == '#':
				col = len(s)
				continue
			case c == '[' || c == '{':
				if depth == 1 { // a nested array or table is one element
					if n == i {
						return Pos{v.path, line + 1, runeCol(s, col)}
					}
					n++
				}
				depth++
			case c == ']' || c == '}':
				depth--
				if depth <= 0 {
					return v.at(path, true)
				}
			case c == '"' || c == '\'':
				if depth == 1 {
					if n == i {
						return Pos{v.path, line + 1, runeCol(s, col)}
					}
					n++
				}
				end, ok := stringEnd(s, col)
				if !ok {
					return v.at(path, true)
				}
				col = end
			case c == ',' || c == ' ' || c == '\t' || c == '\r':
			default:
				// a value that is not a string: count it once, at its first character
				if depth == 1 && (col == 0 || strings.IndexByte("[, \t", s[col-1]) >= 0) {
					if n == i {
						return Pos{v.path, line + 1, runeCol(s, col)}
					}
					n++
				}
			}
			col++
		}
		line, col = line+1, 0
	}
	return v.at(path, true)
}

// stringEnd is the index of the closing quote of the one-line string opening at s[i].
func stringEnd(s string, i int) (int, bool) {
	q := s[i]
	if strings.HasPrefix(s[i:], strings.Repeat(string(q), 3)) {
		return 0, false // multi-line strings are not expected in a robust list
	}
	for j := i + 1; j < len(s); j++ {
		switch {
		case q == '"' && s[j] == '\\':
			j++
		case s[j] == q:
			return j, true
		}
	}
	return 0, false
}

// Mutant is check c with guard turned off as well (Config.Mutate): the check kmc mutate
// runs for that guard. Its expectations are c's; the caller compares what it needs.
func (c *Check) Mutant(guard string) Check {
	m := *c
	mu := map[string]bool{guard: true}
	for g := range c.Config.Mutate {
		mu[g] = true
	}
	m.Config.Mutate = mu
	m.Mutate = append(append([]string(nil), c.Mutate...), guard)
	return m
}

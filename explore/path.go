package explore

import (
	"fmt"
	"strconv"
	"strings"

	"kmc/checker"
)

// A path names a state: the index of an initial state, then for each step the index of the
// successor taken among the state's successors in Next's order, written with dots
// ("0.3.1.5"); "" is the first initial state. A lasso adds its back step, "L.K": the last
// state goes back to state L (1-based, as traces number states) by its successor K.

// Path is a parsed path, with its lasso when it has one. Its invariants, checked by
// parsePath: 1. Steps is not empty and holds at most MaxPathSteps+1 indexes, each >= 0;
// 2. Loop is -1 (no back step) or a state's index (0-based) with Back >= 0; Stutter is
// not set together with a back step.
type Path struct {
	Steps   []int
	Loop    int
	Back    int
	Stutter bool
}

// String writes p's steps as a path parameter.
func (p Path) String() string { return joinInts(p.Steps) }

func joinInts(xs []int) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strconv.Itoa(x))
	}
	return b.String()
}

// parseIndexes reads dot-separated non-negative integers; what names the parameter in
// errors.
func parseIndexes(s, what string, max int) ([]int, error) {
	if len(s) > MaxPathBytes {
		return nil, fmt.Errorf("%s: too long (%d bytes; at most %d)", what, len(s), MaxPathBytes)
	}
	parts := strings.Split(s, ".")
	if len(parts) > max {
		return nil, fmt.Errorf("%s: too long (%d steps; at most %d)", what, len(parts)-1, max-1)
	}
	out := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || len(p) > 6 || (len(p) > 1 && p[0] == '0') {
			return nil, fmt.Errorf("%s: element %d: %q is not a successor index (a number 0..999999)", what, i+1, cut(p, 20))
		}
		out[i] = n
	}
	return out, nil
}

// parsePath reads the path parameters: path, back ("L.K") and stutter ("1").
func parsePath(path, back, stutter string) (Path, error) {
	p := Path{Steps: []int{0}, Loop: -1, Back: -1}
	if path != "" {
		steps, err := parseIndexes(path, "path", MaxPathSteps+1)
		if err != nil {
			return p, err
		}
		p.Steps = steps
	}
	switch stutter {
	case "", "0":
	case "1":
		p.Stutter = true
	default:
		return p, fmt.Errorf("stutter: want 1 or nothing (got %q)", cut(stutter, 20))
	}
	if back != "" {
		lk, err := parseIndexes(back, "back", 2)
		if err != nil {
			return p, err
		}
		if len(lk) != 2 || lk[0] < 1 {
			return p, fmt.Errorf("back: want STATE.SUCCESSOR, the state (from 1) the last state goes back to and the successor that does (got %q)", cut(back, 20))
		}
		if p.Stutter {
			return p, fmt.Errorf("back: a lasso cannot both go back and stutter")
		}
		p.Loop, p.Back = lk[0]-1, lk[1]
	}
	return p, nil
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// walked is a path taken through the model: each state with the step into it.
type walked struct {
	states []checker.Step // states[0] is initial (Action 0)
	index  []int          // the path's indexes
	// back is the lasso's back step from the last state, when the path has one.
	back    *checker.Step
	backIdx int
	loop    int
	stut    bool
}

// walk takes p through the model; an index that names no successor is an error naming
// the step.
func (s *Server) walk(p Path) (*walked, error) {
	inits := s.st.Init()
	if p.Steps[0] >= len(inits) {
		return nil, fmt.Errorf("path: element 1: no initial state %d (the model has %d)", p.Steps[0], len(inits))
	}
	w := &walked{states: []checker.Step{inits[p.Steps[0]]}, index: p.Steps, loop: -1, stut: p.Stutter}
	for i, k := range p.Steps[1:] {
		steps, _ := s.st.Next(w.states[i].State)
		if k >= len(steps) {
			return nil, fmt.Errorf("path: element %d: state %d has no successor %d (it has %d)", i+2, i+1, k, len(steps))
		}
		w.states = append(w.states, steps[k])
	}
	if p.Loop >= 0 {
		if p.Loop >= len(w.states) {
			return nil, fmt.Errorf("back: the path has no state %d (it has %d)", p.Loop+1, len(w.states))
		}
		steps, _ := s.st.Next(w.states[len(w.states)-1].State)
		if p.Back >= len(steps) {
			return nil, fmt.Errorf("back: the last state has no successor %d (it has %d)", p.Back, len(steps))
		}
		b := steps[p.Back]
		if !s.st.Same(b.State, w.states[p.Loop].State) {
			return nil, fmt.Errorf("back: successor %d (%s) of the last state is not state %d", p.Back, b.Name, p.Loop+1)
		}
		w.back, w.backIdx, w.loop = &b, p.Back, p.Loop
	}
	return w, nil
}

// trace is the walked path as a trace, up to state n (1-based); the lasso's back step
// only when n is the last state. With events, each step's messages are filled in.
func (s *Server) trace(w *walked, n int, events bool) *checker.Trace {
	t := &checker.Trace{Vars: s.st.Vars(), Loop: -1, Actors: s.st.Actors()}
	for i := 0; i < n; i++ {
		st := w.states[i]
		ts := checker.TraceState{Action: st.Name, Kind: st.Kind, Values: s.st.Values(st.State)}
		if events && i > 0 {
			ts.Events = s.st.Events(w.states[i-1].State, st.Action, st.State)
		}
		t.States = append(t.States, ts)
	}
	if n == len(w.states) {
		if w.back != nil {
			t.Loop, t.BackAction, t.BackKind = w.loop, w.back.Name, w.back.Kind
			if events {
				t.BackEvents = s.st.Events(w.states[n-1].State, w.back.Action, w.back.State)
			}
		}
		t.Stutter = w.stut
	}
	return t
}

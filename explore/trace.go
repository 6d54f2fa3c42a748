package explore

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"kmc/app"
	"kmc/checker"
	"kmc/traces"
)

// Loaded is a counterexample read into the explorer: its path, the lasso that closes it,
// and the properties the engine says it violates.
type Loaded struct {
	Path     string      `json:"path"`
	Back     string      `json:"back,omitempty"`
	Stutter  bool        `json:"stutter,omitempty"`
	States   int         `json:"states"`
	Property string      `json:"property,omitempty"` // the one the trace claims to violate
	Violates []violation `json:"violates"`
}

// LoadITF reads an ITF trace (as kmc check --out writes it) and takes it through the
// model; check, when not "", is the check the trace records, which must be the server's.
// Values compare in canonical form (another tool may order sets and maps otherwise).
func (s *Server) LoadITF(data []byte) (*Loaded, error) {
	t, meta, err := traces.LoadITFMeta(bytes.NewReader(data))
	if err != nil {
		return nil, badRequest{fmt.Errorf("trace: %w", err)}
	}
	if meta.Check != "" && meta.Check != s.check.Name {
		return nil, badRequest{fmt.Errorf("trace: it is a trace of check %s; this explorer runs check %s (kmc explore %s --check %s)",
			meta.Check, s.check.Name, s.spec.Path, meta.Check)}
	}
	return s.Load(t)
}

// Load takes trace t through the model: each state must be the successor of the one before
// by the action named (the first an initial state; a lasso's back step too).
func (s *Server) Load(t *checker.Trace) (*Loaded, error) {
	if len(t.States) == 0 {
		return nil, badRequest{errors.New("trace: it has no states")}
	}
	if len(t.States) > MaxPathSteps+1 {
		return nil, badRequest{fmt.Errorf("trace: too long (%d states; at most %d)", len(t.States), MaxPathSteps+1)}
	}
	vars := s.st.Vars()
	if len(t.Vars) != len(vars) {
		return nil, badRequest{fmt.Errorf("trace: it has %d variables, the model has %d", len(t.Vars), len(vars))}
	}
	for i := range vars {
		if t.Vars[i] != vars[i] {
			return nil, badRequest{fmt.Errorf("trace: variable %d is %q, the model's is %q", i+1, t.Vars[i], vars[i])}
		}
	}
	canon, err := traces.CanonicalTrace(t)
	if err != nil {
		return nil, badRequest{fmt.Errorf("trace: %w", err)}
	}
	match := func(cands []checker.Step, action string, want []string) int {
		for k, c := range cands {
			if action != "" && c.Name != action {
				continue
			}
			vals := s.st.Values(c.State)
			ok := true
			for v := range vals {
				if string(traces.AppendCanonical(nil, []byte(vals[v]))) != want[v] {
					ok = false
					break
				}
			}
			if ok {
				return k
			}
		}
		return -1
	}
	inits := s.st.Init()
	k := match(inits, "", canon.States[0].Values)
	if k < 0 {
		return nil, badRequest{errors.New("trace: state 1 is no initial state of the model (was it made with other constants? try --set)")}
	}
	steps := []int{k}
	cur := inits[k]
	var states []checker.Step
	states = append(states, cur)
	for i := 1; i < len(canon.States); i++ {
		next, _ := s.st.Next(cur.State)
		k := match(next, canon.States[i].Action, canon.States[i].Values)
		if k < 0 {
			return nil, badRequest{fmt.Errorf("trace: state %d: no successor of state %d by %s has its values", i+1, i, canon.States[i].Action)}
		}
		steps = append(steps, k)
		cur = next[k]
		states = append(states, cur)
	}
	l := &Loaded{Path: joinInts(steps), States: len(steps), Property: t.Property, Stutter: t.Stutter, Violates: []violation{}}
	if t.Loop >= 0 {
		if t.Loop >= len(canon.States) {
			return nil, badRequest{fmt.Errorf("trace: loop goes back to state %d, the trace has %d", t.Loop+1, len(canon.States))}
		}
		next, _ := s.st.Next(cur.State)
		k := match(next, canon.BackAction, canon.States[t.Loop].Values)
		if k < 0 {
			return nil, badRequest{fmt.Errorf("trace: back to state %d: no successor of the last state by %s has its values", t.Loop+1, canon.BackAction)}
		}
		l.Back = strconv.Itoa(t.Loop+1) + "." + strconv.Itoa(k)
	}
	rep, err := app.Replay(s.spec, t, s.check.Name)
	if err == nil && rep.NotBehaviour == nil {
		for i, p := range rep.Violates {
			l.Violates = append(l.Violates, violation{Property: p, Witness: rep.Witnesses[i]})
		}
	}
	return l, nil
}

// sequence writes the sequence chart of the walked path up to state at as SVG.
func (s *Server) sequence(w *walked, at int, buf *bytes.Buffer) error {
	if len(s.st.Actors()) == 0 {
		return badRequest{errors.New("sequence: the model describes no messages between actors")}
	}
	if at < 1 || at > len(w.states) {
		return badRequest{fmt.Errorf("at: the path has no state %d (it has %d)", at, len(w.states))}
	}
	if at > traces.MaxPictureStates {
		return badRequest{fmt.Errorf("sequence: drawn up to state %d (state %d asked)", traces.MaxPictureStates, at)}
	}
	// The chart names the actions' arguments as kmc check --out's does.
	return traces.SequenceSVGWith(buf, s.trace(w, at, true), traces.SequenceOptions{Params: s.spec.Family.Params})
}

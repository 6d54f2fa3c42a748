package explore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"kmc/checker"
)

// SearchRequest asks for the shortest path from state At (1-based) of Path to a violation
// of Property, or, with Predicate, to a state where it holds.
type SearchRequest struct {
	Path      string `json:"path"`
	At        int    `json:"at"`
	Property  string `json:"property,omitempty"`
	Predicate string `json:"predicate,omitempty"`
}

// SearchAnswer is what a search found. Found is true when Path (from the initial state,
// through the state searched from) leads to the goal; Back and Stutter close a liveness
// counterexample's lasso.
type SearchAnswer struct {
	Found     bool   `json:"found"`
	Verdict   string `json:"verdict"`
	Reason    string `json:"reason,omitempty"`
	Distinct  int64  `json:"distinct"`
	Generated int64  `json:"generated"`
	Depth     int    `json:"depth"`
	Elapsed   string `json:"elapsed"`
	Path      string `json:"path,omitempty"`
	At        int    `json:"at,omitempty"` // the state found, 1-based
	Back      string `json:"back,omitempty"`
	Stutter   bool   `json:"stutter,omitempty"`
	Witness   string `json:"witness,omitempty"`
	Message   string `json:"message"`
}

// errBusy is the error of a search asked for while another runs.
var errBusy = errors.New("a search is running; wait for it (one at a time)")

// badRequest marks an error as the client's (HTTP 400).
type badRequest struct{ error }

// Search runs the engine from the request's state, bounded by the server's limits and
// stopped when ctx is done. Errors of the request are badRequest; a search while another
// runs is errBusy.
func (s *Server) Search(ctx context.Context, req SearchRequest) (*SearchAnswer, error) {
	if (req.Property == "") == (req.Predicate == "") {
		return nil, badRequest{errors.New("search: want a property or a predicate")}
	}
	p, err := parsePath(req.Path, "", "")
	if err != nil {
		return nil, badRequest{err}
	}
	w, err := s.walk(p)
	if err != nil {
		return nil, badRequest{err}
	}
	if req.At == 0 {
		req.At = len(w.states)
	}
	if req.At < 1 || req.At > len(w.states) {
		return nil, badRequest{fmt.Errorf("at: the path has no state %d (it has %d)", req.At, len(w.states))}
	}
	goal := checker.Goal{Property: req.Property}
	what := "a violation of " + req.Property
	if req.Predicate != "" {
		f, err := s.opts.Compile(req.Predicate, s.st.Vars())
		if err != nil {
			return nil, badRequest{err}
		}
		goal = checker.Goal{Name: "Predicate", State: f}
		what = "a state where " + req.Predicate
	} else if !s.hasProperty(req.Property) {
		return nil, badRequest{fmt.Errorf("search: the check has no property %q", req.Property)}
	}
	if !s.busy.TryLock() {
		return nil, errBusy
	}
	defer s.busy.Unlock()
	opts := checker.Options{Workers: s.opts.SearchWorkers, MaxStates: s.opts.SearchStates, Time: s.opts.SearchTime,
		MemoryBytes: s.opts.SearchMemory, Stop: ctx.Done()}
	if _, o, err := s.spec.Runnable(s.check); err == nil {
		opts.FairnessOverride = o.FairnessOverride
	}
	res := s.st.Search(w.states[req.At-1].State, goal, opts)
	a := &SearchAnswer{Verdict: string(res.Verdict), Reason: res.Reason, Distinct: res.Stats.Distinct, Generated: res.Stats.Generated,
		Depth: res.Stats.Depth, Elapsed: res.Stats.Elapsed.Round(time.Millisecond).String()}
	if req.Predicate == "" {
		a.Witness = res.Witness // a predicate's is the engine's for its negation, which says nothing
	}
	from := fmt.Sprintf("from state %d", req.At)
	switch res.Verdict {
	case checker.Violated:
		steps := append(append([]int(nil), w.index[:req.At]...), res.Path...)
		a.Found, a.Path, a.At = true, joinInts(steps), len(steps)
		if res.Loop >= 0 {
			a.Back = strconv.Itoa(req.At+res.Loop) + "." + strconv.Itoa(res.Back)
		}
		a.Stutter = res.Stutter
		a.Message = fmt.Sprintf("found %s %s in %d steps (%d distinct states searched)", what, from, len(res.Path), res.Stats.Distinct)
	case checker.OK:
		a.Message = fmt.Sprintf("no %s is reachable %s (%d distinct states: the whole reachable graph)", what[2:], from, res.Stats.Distinct)
		if req.Predicate == "" {
			a.Message = fmt.Sprintf("%s cannot be violated %s (%d distinct states: the whole reachable graph)", req.Property, from, res.Stats.Distinct)
		}
	default:
		a.Message = fmt.Sprintf("none found %s before the search stopped: %s (%d distinct states)", from, res.Reason, res.Stats.Distinct)
	}
	return a, nil
}

func (s *Server) hasProperty(name string) bool {
	for _, p := range s.st.Properties() {
		if p.Name == name {
			return true
		}
	}
	return false
}

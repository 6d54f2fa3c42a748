package checker

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// tiny is an explicit graph over states 0..n-1 (initial state 0) whose steps are listed
// by hand, for the rules on steps cut by a model bound. Each step's action code is its
// kind; cut steps are real only when the bound is raised (raised), and otherwise NextCut
// reports them as cut by the bound "limit".
type tiny struct {
	steps  []tstep
	cuts   []tstep
	raised bool
	fair   []Fairness // per kind
	names  []string   // per kind
}

type tstep struct {
	from, to uint32
	kind     int
}

func (m tiny) Init(buf []uint32) []uint32 { return append(buf, 0) }

func (m tiny) Next(s *uint32, succ []uint32, acts []uint64) ([]uint32, []uint64) {
	succ, acts, _, _ = m.NextCut(s, succ, acts, nil, nil)
	return succ, acts
}

func (m tiny) NextCut(s *uint32, succ []uint32, acts []uint64, cut []uint64, by []int) ([]uint32, []uint64, []uint64, []int) {
	for _, st := range m.steps {
		if st.from == *s {
			succ, acts = append(succ, st.to), append(acts, uint64(st.kind))
		}
	}
	for _, st := range m.cuts {
		if st.from != *s {
			continue
		}
		if m.raised {
			succ, acts = append(succ, st.to), append(acts, uint64(st.kind))
		} else {
			cut, by = append(cut, uint64(st.kind)), append(by, 0)
		}
	}
	return succ, acts, cut, by
}

func (m tiny) Bounds() []string {
	if m.raised {
		return []string{"limit=2"}
	}
	return []string{"limit=1"}
}

func (m tiny) Encode(s *uint32, buf []byte) []byte { return append(buf, byte(*s)) }
func (m tiny) Decode(b []byte, s *uint32)          { *s = uint32(b[0]) }
func (m tiny) Vars() []string                      { return []string{"x"} }
func (m tiny) AppendValue(s *uint32, v int, buf []byte) []byte {
	buf = append(buf, `{"#bigint":"`...)
	buf = strconv.AppendUint(buf, uint64(*s), 10)
	return append(buf, `"}`...)
}
func (m tiny) ActionName(a uint64) string { return m.names[a] + "(1)" }
func (m tiny) ActionKind(a uint64) int    { return int(a) }
func (m tiny) ActionKinds() []string      { return m.names }
func (m tiny) Fairness(kind int) int      { return int(m.fair[kind]) }

// TestCutSteps pins the rule of contract item 5: a step that a model bound cut counts as
// enabled and never taken for fairness. A fair lasso that needs a cut step to be fair
// (weakly fair: cut or enabled in every state of the cycle; strongly fair: cut in one;
// stuttering: cut in the state) is no counterexample: the verdict is incomplete and names
// the bound; once the bound is raised the verdict is the true one. A lasso that needs no
// cut step is still a violation, and a cut of an unfair step changes nothing.
// Reference: issue 10 (bounds are cuts, not guards).
func TestCutSteps(t *testing.T) {
	defer small()()
	names := []string{"Spin", "Back", "Recover", "Other"}
	w, s, u := Weak, Strong, Unfair
	// States: 0 and 1 spin between each other; 2 is the goal; 3 and 4 are a second cycle.
	spin := []tstep{{0, 1, 0}, {1, 0, 1}}
	tests := []struct {
		name    string
		m       tiny
		verdict Verdict
		stutter bool // for a violation
	}{
		// Recover (weakly fair) is cut in both states of the cycle: continuously "enabled".
		{"weak-cut-everywhere", tiny{steps: spin, cuts: []tstep{{0, 2, 2}, {1, 2, 2}}, fair: []Fairness{w, w, w, w}}, Incomplete, false},
		{"weak-cut-everywhere-raised", tiny{steps: spin, cuts: []tstep{{0, 2, 2}, {1, 2, 2}}, raised: true, fair: []Fairness{w, w, w, w}}, OK, false},
		// Recover is cut, or enabled, in every state: still only the cut makes the cycle fair.
		{"weak-cut-and-enabled", tiny{steps: append([]tstep{{1, 2, 2}}, spin...), cuts: []tstep{{0, 2, 2}}, fair: []Fairness{w, w, w, w}}, Incomplete, false},
		// Cut in one state only: weak fairness holds on the cycle without it (the cycle
		// passes a state where Recover is not enabled): a real violation.
		{"weak-cut-once", tiny{steps: spin, cuts: []tstep{{0, 2, 2}}, fair: []Fairness{w, w, w, w}}, Violated, false},
		// Strongly fair Recover cut in one state of the cycle: infinitely often enabled.
		{"strong-cut-once", tiny{steps: spin, cuts: []tstep{{0, 2, 2}}, fair: []Fairness{w, w, s, w}}, Incomplete, false},
		{"strong-cut-once-raised", tiny{steps: spin, cuts: []tstep{{0, 2, 2}}, raised: true, fair: []Fairness{w, w, s, w}}, OK, false},
		// An unfair cut step makes no difference.
		{"unfair-cut", tiny{steps: spin, cuts: []tstep{{0, 2, 2}, {1, 2, 2}}, fair: []Fairness{w, w, u, w}}, Violated, false},
		// Stuttering in state 0, where the only step is cut.
		{"stutter-cut", tiny{cuts: []tstep{{0, 2, 2}}, fair: []Fairness{w, w, w, w}}, Incomplete, false},
		{"stutter-cut-raised", tiny{cuts: []tstep{{0, 2, 2}}, raised: true, fair: []Fairness{w, w, w, w}}, OK, false},
		{"stutter-unfair-cut", tiny{cuts: []tstep{{0, 2, 2}}, fair: []Fairness{w, w, u, w}}, Violated, true},
		// A second cycle 3 <-> 4 reachable from 0 needs no cut step: violated, whatever the
		// cut in the first.
		{"other-cycle", tiny{steps: append([]tstep{{0, 3, 3}, {3, 4, 0}, {4, 3, 1}}, spin...), cuts: []tstep{{0, 2, 2}, {1, 2, 2}}, fair: []Fairness{w, w, w, u}}, Violated, false},
	}
	goal := Property[uint32]{Name: "ReachesGoal", Kind: Eventually, State: func(s *uint32) bool { return *s == 2 }}
	for _, tc := range tests {
		tc.m.names = names
		var first *Result
		for _, workers := range []int{1, 2} {
			got := Check[uint32](tc.m, []Property[uint32]{goal}, Options{Workers: workers})
			if got.Verdict != tc.verdict {
				t.Fatalf("%s w=%d: got %s %q, want %s", tc.name, workers, got.Verdict, got.Reason, tc.verdict)
			}
			if first == nil {
				first = &got
			} else if !reflect.DeepEqual(got.Trace, first.Trace) || got.Reason != first.Reason {
				t.Errorf("%s w=%d: got a different result than with 1 worker", tc.name, workers)
			}
		}
		switch tc.verdict {
		case Incomplete:
			want := "ReachesGoal: a fair lasso exists only because limit=1 cut Recover(1); raise limit"
			if first.Reason != want || !reflect.DeepEqual(first.Raise, []string{"limit"}) || first.Trace != nil {
				t.Errorf("%s: got reason %q raise %v, want %q raise [limit]", tc.name, first.Reason, first.Raise, want)
			}
		case Violated:
			if first.Trace.Stutter != tc.stutter {
				t.Errorf("%s: got stutter %v, want %v", tc.name, first.Trace.Stutter, tc.stutter)
			}
			// The lasso is fair with cut steps counted as enabled.
			rep, err := Bind[uint32](tc.m, []Property[uint32]{goal}).Replay(first.Trace)
			if err != nil || !reflect.DeepEqual(rep.Violates, []string{"ReachesGoal"}) {
				t.Errorf("%s: replay got %+v, %v; want it to violate ReachesGoal", tc.name, rep, err)
			}
		}
	}
}

// TestCutReplay: replay judges a lasso's fairness with cut steps counted as enabled, so a
// loop that is fair only because a bound cut a step does not violate the property.
func TestCutReplay(t *testing.T) {
	m := tiny{steps: []tstep{{0, 1, 0}, {1, 0, 1}}, cuts: []tstep{{0, 2, 2}, {1, 2, 2}},
		fair: []Fairness{Weak, Weak, Weak}, names: []string{"Spin", "Back", "Recover"}}
	goal := Property[uint32]{Name: "ReachesGoal", Kind: Eventually, State: func(s *uint32) bool { return *s == 2 }}
	val := func(x uint32) []string { return []string{string(m.AppendValue(&x, 0, nil))} }
	tr := &Trace{Vars: []string{"x"}, States: []TraceState{{Values: val(0)}, {Action: "Spin(1)", Values: val(1)}},
		Loop: 0, BackAction: "Back(1)"}
	rep, err := Bind[uint32](m, []Property[uint32]{goal}).Replay(tr)
	if err != nil || len(rep.Violates) != 0 {
		t.Errorf("got %+v, %v; want a replay that violates nothing", rep, err)
	}
	m.fair[2] = Unfair
	rep, err = Bind[uint32](m, []Property[uint32]{goal}).Replay(tr)
	if err != nil || !reflect.DeepEqual(rep.Violates, []string{"ReachesGoal"}) {
		t.Errorf("Recover unfair: got %+v, %v; want ReachesGoal violated", rep, err)
	}
}

// TestCutDeadlock: a state whose only steps were cut by a bound is no deadlock, whether
// the cut step is fair or not; a state without any step is.
func TestCutDeadlock(t *testing.T) {
	names := []string{"Step", "Write"}
	for _, tc := range []struct {
		name    string
		m       tiny
		verdict Verdict
	}{
		{"cut-fair", tiny{steps: []tstep{{0, 1, 0}}, cuts: []tstep{{1, 2, 0}}, fair: []Fairness{Weak, Unfair}}, OK},
		{"cut-unfair", tiny{steps: []tstep{{0, 1, 0}}, cuts: []tstep{{1, 2, 1}}, fair: []Fairness{Weak, Unfair}}, OK},
		{"no-cut", tiny{steps: []tstep{{0, 1, 0}}, fair: []Fairness{Weak, Unfair}}, Violated},
	} {
		tc.m.names = names
		got := Check[uint32](tc.m, nil, Options{Deadlock: true, Workers: 1})
		if got.Verdict != tc.verdict || (got.Verdict == Violated && got.Property != "Deadlock") {
			t.Errorf("%s: got %s %s, want %s", tc.name, got.Verdict, got.Property, tc.verdict)
		}
	}
	// Without liveness or deadlock checking the engine does not ask for cuts.
	var n countingTiny
	n.tiny = tiny{steps: []tstep{{0, 1, 0}}, cuts: []tstep{{1, 2, 0}}, fair: []Fairness{Weak, Unfair}, names: names}
	Check[uint32](&n, []Property[uint32]{{Name: "True", Kind: Invariant, State: func(*uint32) bool { return true }}}, Options{Workers: 1})
	if n.calls != 0 {
		t.Errorf("a safety search called NextCut %d times, want 0", n.calls)
	}
	if !strings.Contains(n.Bounds()[0], "limit") {
		t.Errorf("bounds: %v", n.Bounds())
	}
}

type countingTiny struct {
	tiny
	calls int
}

func (m *countingTiny) NextCut(s *uint32, succ []uint32, acts []uint64, cut []uint64, by []int) ([]uint32, []uint64, []uint64, []int) {
	m.calls++
	return m.tiny.NextCut(s, succ, acts, cut, by)
}

package twophase

import (
	"bytes"
	"encoding/json"
	"testing"
)

// Reference: TwoPhase.tla (tlaplus/Examples). These tests need no engine.

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for _, n := range []int{1, 2, 4, 5} {
		m := New(n)
		_, states, _, _ := modelSearch(t, m)
		for i := range states {
			enc := m.Encode(&states[i], nil)
			var back State
			back.RM = back.RM.With(0, Aborted) // Decode must overwrite everything
			m.Decode(enc, &back)
			if back != states[i] {
				t.Fatalf("N=%d: Decode(Encode(%+v)) = %+v", n, states[i], back)
			}
		}
	}
	// The widest model: every field at its largest.
	m := New(MaxRM)
	s := State{TM: TMAborted, TMPrepared: 0xffff, MsgPrepared: 0xaaaa, MsgCommit: true, MsgAbort: true}
	for r := range MaxRM {
		s.RM = s.RM.With(r, RMState(r%4))
	}
	var back State
	m.Decode(m.Encode(&s, nil), &back)
	if back != s {
		t.Fatalf("N=%d: Decode(Encode(%+v)) = %+v", MaxRM, s, back)
	}
}

func TestEncodingIsCanonical(t *testing.T) {
	// Distinct states have distinct encodings (naive keys are the ground truth).
	m := New(4)
	_, states, _, _ := modelSearch(t, m)
	byKey := map[string]string{}
	for i := range states {
		k := naiveKeyOf(m, &states[i])
		enc := string(m.Encode(&states[i], nil))
		if prev, ok := byKey[enc]; ok && prev != k {
			t.Fatalf("states %s and %s share an encoding", prev, k)
		}
		byKey[enc] = k
	}
	if got, want := len(byKey), len(states); got != want {
		t.Errorf("encodings: got %d, want %d", got, want)
	}
}

func TestInvariantsHoldOnEveryReachableState(t *testing.T) {
	for n := 2; n <= 5; n++ {
		m := New(n)
		_, states, _, _ := modelSearch(t, m)
		for i := range states {
			if !TCConsistent(&states[i]) {
				t.Fatalf("N=%d: TCConsistent violated in %s", n, naiveKeyOf(m, &states[i]))
			}
			if !m.TCTypeOK(&states[i]) {
				t.Fatalf("N=%d: TCTypeOK violated in %s", n, naiveKeyOf(m, &states[i]))
			}
		}
	}
}

func TestPlantedViolations(t *testing.T) {
	tests := []struct {
		name        string
		earlyCommit bool
		inv         func(m *Model, s *State) bool
		violated    bool
	}{
		{"NotAllCommitted", false, func(m *Model, s *State) bool { return m.NotAllCommitted(s) }, true},
		{"TCConsistent", false, func(_ *Model, s *State) bool { return TCConsistent(s) }, false},
		{"TCConsistent/EarlyCommit", true, func(_ *Model, s *State) bool { return TCConsistent(s) }, true},
		{"TCTypeOK/EarlyCommit", true, func(m *Model, s *State) bool { return m.TCTypeOK(s) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(3)
			m.EarlyCommit = tt.earlyCommit
			_, states, _, _ := modelSearch(t, m)
			violated := false
			for i := range states {
				violated = violated || !tt.inv(m, &states[i])
			}
			if violated != tt.violated {
				t.Errorf("violated: got %v, want %v", violated, tt.violated)
			}
		})
	}
}

func TestTypeOKRejectsBadStates(t *testing.T) {
	m := New(2)
	bad := []State{
		{RM: RMsOf(0, 0, Prepared)}, // an RM beyond N (an RM state out of the type has no bits)
		{TM: 3},
		{TMPrepared: 4},
		{MsgPrepared: 8},
	}
	for i, s := range bad {
		if m.TCTypeOK(&s) {
			t.Errorf("bad state %d (%+v): TCTypeOK got true, want false", i, s)
		}
	}
}

func TestNextAllocatesNothing(t *testing.T) {
	m := New(8)
	s := State{TMPrepared: 0x0f, MsgPrepared: 0xff, MsgAbort: true}
	succ := make([]State, 0, 64)
	acts := make([]uint64, 0, 64)
	buf := make([]byte, 0, 64)
	allocs := testing.AllocsPerRun(100, func() {
		succ, acts = m.Next(&s, succ[:0], acts[:0])
		for i := range succ {
			buf = m.Encode(&succ[i], buf[:0])
		}
	})
	if allocs != 0 {
		t.Errorf("allocations per Next+Encode: got %v, want 0", allocs)
	}
}

func TestActionNamesAndKinds(t *testing.T) {
	m := New(3)
	tests := []struct {
		code uint64
		name string
		kind string
		fair int
	}{
		{Action(KindTMCommit, 0), "TMCommit", "TMCommit", Weak},
		{Action(KindTMAbort, 0), "TMAbort", "TMAbort", Unfair},
		{Action(KindTMRcvPrepared, 1), "TMRcvPrepared(2)", "TMRcvPrepared", Weak},
		{Action(KindRMPrepare, 2), "RMPrepare(3)", "RMPrepare", Weak},
		{Action(KindRMChooseToAbort, 0), "RMChooseToAbort(1)", "RMChooseToAbort", Unfair},
		{Action(KindRMRcvCommitMsg, 0), "RMRcvCommitMsg(1)", "RMRcvCommitMsg", Weak},
		{Action(KindRMRcvAbortMsg, 1), "RMRcvAbortMsg(2)", "RMRcvAbortMsg", Weak},
	}
	for _, tt := range tests {
		if got := m.ActionName(tt.code); got != tt.name {
			t.Errorf("ActionName(%#x): got %q, want %q", tt.code, got, tt.name)
		}
		k := m.ActionKind(tt.code)
		if got := m.ActionKinds()[k]; got != tt.kind {
			t.Errorf("kind of %s: got %q, want %q", tt.name, got, tt.kind)
		}
		if got := m.Fairness(k); got != tt.fair {
			t.Errorf("fairness of %s: got %d, want %d", tt.name, got, tt.fair)
		}
	}
}

func TestAppendValueIsValidITF(t *testing.T) {
	m := New(3)
	s := State{RM: RMsOf(Prepared, Aborted, Working), TM: TMAborted, TMPrepared: 1,
		MsgPrepared: 5, MsgAbort: true}
	want := []string{
		`{"#map":[["rm1","prepared"],["rm2","aborted"],["rm3","working"]]}`,
		`"aborted"`,
		`{"#set":["rm1"]}`,
		`{"#set":[{"type":"Abort"},{"type":"Prepared","rm":"rm1"},{"type":"Prepared","rm":"rm3"}]}`,
	}
	if got := len(m.Vars()); got != len(want) {
		t.Fatalf("vars: got %d, want %d", got, len(want))
	}
	for v := range m.Vars() {
		got := m.AppendValue(&s, v, nil)
		if string(got) != want[v] {
			t.Errorf("%s: got %s, want %s", m.Vars()[v], got, want[v])
		}
		if !json.Valid(got) {
			t.Errorf("%s: not JSON: %s", m.Vars()[v], got)
		}
	}
	empty := m.AppendValue(&State{}, 3, nil)
	if !bytes.Equal(empty, []byte(`{"#set":[]}`)) {
		t.Errorf("empty msgs: got %s", empty)
	}
}

func TestEventsPairSendsWithReceipts(t *testing.T) {
	// Every receipt on the path to all-committed pairs with an earlier send of the same message.
	m := New(2)
	if got, want := len(m.Actors()), 3; got != want {
		t.Fatalf("actors: got %d, want %d", got, want)
	}
	steps := []uint64{Action(KindRMPrepare, 0), Action(KindRMPrepare, 1), Action(KindTMRcvPrepared, 0),
		Action(KindTMRcvPrepared, 1), Action(KindTMCommit, 0), Action(KindRMRcvCommitMsg, 1), Action(KindRMRcvCommitMsg, 0)}
	sent := map[string]bool{}
	s := State{}
	var succ []State
	var acts []uint64
	for _, a := range steps {
		succ, acts = m.Next(&s, succ[:0], acts[:0])
		i := -1
		for j, b := range acts {
			if b == a {
				i = j
			}
		}
		if i < 0 {
			t.Fatalf("%s not enabled", m.ActionName(a))
		}
		var evs []struct{ Type, Actor, Peer, Msg, Label string }
		raw := m.AppendEvents(&s, a, &succ[i], nil)
		if err := json.Unmarshal(raw, &evs); err != nil || len(evs) == 0 {
			t.Fatalf("%s: events %s: %v", m.ActionName(a), raw, err)
		}
		for _, e := range evs {
			switch e.Type {
			case "send":
				sent[e.Msg] = true
			case "recv":
				if !sent[e.Msg] {
					t.Errorf("%s: receipt of %s that was never sent", m.ActionName(a), e.Msg)
				}
			}
		}
		s = succ[i]
	}
	init := State{}
	to := init
	to.RM = to.RM.With(0, Aborted)
	if got, want := string(m.AppendEvents(&init, Action(KindRMChooseToAbort, 0), &to, nil)),
		`[{"type":"local","actor":"rm1","peer":"","msg":"","label":"ChooseToAbort"}]`; got != want {
		t.Errorf("local step: got %s, want %s", got, want)
	}
}

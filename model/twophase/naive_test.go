package twophase

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// Reference: TwoPhase.tla (tlaplus/Examples, specifications/transaction_commit). The naive
// model below is written from the TLA+ text with maps and strings, on purpose nothing like
// the packed State, so that the two can be compared.

type naiveState struct {
	rmState    map[string]string
	tmState    string
	tmPrepared map[string]bool
	msgs       map[string]bool // "Prepared:rm1", "Commit", "Abort"
}

func naiveRMs(n int) []string {
	var rms []string
	for i := 1; i <= n; i++ {
		rms = append(rms, fmt.Sprintf("rm%d", i))
	}
	return rms
}

func sortedKeys(m map[string]bool) []string {
	var ks []string
	for k, v := range m {
		if v {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	return ks
}

// key is the identity of a naive state: its fields printed in a fixed order.
func (s naiveState) key() string {
	var rms []string
	for r, st := range s.rmState {
		rms = append(rms, r+"="+st)
	}
	sort.Strings(rms)
	return fmt.Sprintf("rm[%s] tm=%s prep{%s} msgs{%s}", strings.Join(rms, " "), s.tmState,
		strings.Join(sortedKeys(s.tmPrepared), " "), strings.Join(sortedKeys(s.msgs), " "))
}

func (s naiveState) clone() naiveState {
	t := naiveState{rmState: map[string]string{}, tmState: s.tmState,
		tmPrepared: map[string]bool{}, msgs: map[string]bool{}}
	for k, v := range s.rmState {
		t.rmState[k] = v
	}
	for k, v := range s.tmPrepared {
		t.tmPrepared[k] = v
	}
	for k, v := range s.msgs {
		t.msgs[k] = v
	}
	return t
}

func naiveInit(rms []string) naiveState {
	s := naiveState{rmState: map[string]string{}, tmState: "init",
		tmPrepared: map[string]bool{}, msgs: map[string]bool{}}
	for _, r := range rms {
		s.rmState[r] = "working"
	}
	return s
}

// naiveNext lists the successors of s, one per disjunct of Next, in any order.
func naiveNext(rms []string, s naiveState) []naiveState {
	var out []naiveState
	allPrepared := true
	for _, r := range rms {
		allPrepared = allPrepared && s.tmPrepared[r]
	}
	if s.tmState == "init" && allPrepared { // TMCommit
		t := s.clone()
		t.tmState = "committed"
		t.msgs["Commit"] = true
		out = append(out, t)
	}
	if s.tmState == "init" { // TMAbort
		t := s.clone()
		t.tmState = "aborted"
		t.msgs["Abort"] = true
		out = append(out, t)
	}
	for _, r := range rms {
		if s.tmState == "init" && s.msgs["Prepared:"+r] { // TMRcvPrepared(r)
			t := s.clone()
			t.tmPrepared[r] = true
			out = append(out, t)
		}
		if s.rmState[r] == "working" { // RMPrepare(r)
			t := s.clone()
			t.rmState[r] = "prepared"
			t.msgs["Prepared:"+r] = true
			out = append(out, t)
		}
		if s.rmState[r] == "working" { // RMChooseToAbort(r)
			t := s.clone()
			t.rmState[r] = "aborted"
			out = append(out, t)
		}
		if s.msgs["Commit"] { // RMRcvCommitMsg(r)
			t := s.clone()
			t.rmState[r] = "committed"
			out = append(out, t)
		}
		if s.msgs["Abort"] { // RMRcvAbortMsg(r)
			t := s.clone()
			t.rmState[r] = "aborted"
			out = append(out, t)
		}
	}
	return out
}

// naiveResult is what a naive breadth-first search finds.
type naiveResult struct {
	depthOf   map[string]int // state key -> BFS depth (initial state: 1)
	depth     int            // depth of the complete search
	generated int            // successors computed, plus the initial state
	// firstAllCommitted is the BFS depth of the first state in which every RM committed.
	firstAllCommitted int
}

func naiveSearch(n int) naiveResult {
	rms := naiveRMs(n)
	init := naiveInit(rms)
	res := naiveResult{depthOf: map[string]int{init.key(): 1}, depth: 1, generated: 1}
	level := []naiveState{init}
	for d := 1; len(level) > 0; d++ {
		var next []naiveState
		for _, s := range level {
			all := true
			for _, r := range rms {
				all = all && s.rmState[r] == "committed"
			}
			if all && res.firstAllCommitted == 0 {
				res.firstAllCommitted = d
			}
			for _, t := range naiveNext(rms, s) {
				res.generated++
				if _, seen := res.depthOf[t.key()]; !seen {
					res.depthOf[t.key()] = d + 1
					res.depth = d + 1
					next = append(next, t)
				}
			}
		}
		level = next
	}
	return res
}

// naiveKeyOf converts a model state to the naive key.
func naiveKeyOf(m *Model, s *State) string {
	n := naiveState{rmState: map[string]string{}, tmState: s.TM.String(),
		tmPrepared: map[string]bool{}, msgs: map[string]bool{}}
	for r := 0; r < m.N; r++ {
		name := fmt.Sprintf("rm%d", r+1)
		n.rmState[name] = s.RM.Of(r).String()
		n.tmPrepared[name] = s.TMPrepared&(1<<r) != 0
		n.msgs["Prepared:"+name] = s.MsgPrepared&(1<<r) != 0
	}
	n.msgs["Commit"] = s.MsgCommit
	n.msgs["Abort"] = s.MsgAbort
	return n.key()
}

// modelSearch is a plain map-based BFS over the Model's own Init and Next, keyed by Encode.
func modelSearch(t testing.TB, m *Model) (depthOf map[string]int, states []State, depth, generated int) {
	t.Helper()
	depthOf = map[string]int{}
	var succ []State
	var acts []uint64
	level := m.Init(nil)
	for _, s := range level {
		depthOf[string(m.Encode(&s, nil))] = 1
	}
	generated = len(level)
	states = append(states, level...)
	for d := 1; len(level) > 0; d++ {
		depth = d
		var next []State
		for i := range level {
			succ, acts = m.Next(&level[i], succ[:0], acts[:0])
			if len(succ) != len(acts) {
				t.Fatalf("Next returned %d states and %d actions", len(succ), len(acts))
			}
			for _, u := range succ {
				generated++
				k := string(m.Encode(&u, nil))
				if _, seen := depthOf[k]; !seen {
					depthOf[k] = d + 1
					next = append(next, u)
				}
			}
		}
		states = append(states, next...)
		level = next
	}
	return depthOf, states, depth, generated
}

func TestModelAgainstNaiveEnumeration(t *testing.T) {
	// Reference: TwoPhase.tla; the figures in want are those of the naive enumeration
	// (288 distinct states for 3 RMs is also what TLC reports for TwoPhase).
	tests := []struct {
		n, distinct, depth int
	}{
		{2, 56, 8},
		{3, 288, 11},
		{4, 1568, 14},
		{5, 8832, 17},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.n), func(t *testing.T) {
			naive := naiveSearch(tt.n)
			m := New(tt.n)
			depthOf, states, depth, generated := modelSearch(t, m)
			if got, want := len(depthOf), len(naive.depthOf); got != want {
				t.Errorf("distinct states: got %d, want %d (naive)", got, want)
			}
			if got, want := depth, naive.depth; got != want {
				t.Errorf("depth: got %d, want %d (naive)", got, want)
			}
			if got, want := generated, naive.generated; got != want {
				t.Errorf("states generated: got %d, want %d (naive)", got, want)
			}
			for i := range states {
				k := naiveKeyOf(m, &states[i])
				d, ok := naive.depthOf[k]
				if !ok {
					t.Fatalf("model state %s is not reachable in the naive model", k)
				}
				if got := depthOf[string(m.Encode(&states[i], nil))]; got != d {
					t.Fatalf("state %s: depth got %d, want %d (naive)", k, got, d)
				}
			}
			if len(naive.depthOf) != tt.distinct {
				t.Errorf("naive distinct states: got %d, want %d", len(naive.depthOf), tt.distinct)
			}
			if naive.depth != tt.depth {
				t.Errorf("naive depth: got %d, want %d", naive.depth, tt.depth)
			}
		})
	}
}

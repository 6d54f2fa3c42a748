package specs

import (
	"reflect"
	"strings"
	"testing"

	"kmc/checker"
	"kmc/invariants"
	"kmc/model/kafka"
)

// Reference: issue 11 (simulation). Random walks through the seed specs' models, with the
// verdicts, lassos and replays that the exhaustive engine gives.

func loadCheck(t *testing.T, path, check string, sets ...string) (*Spec, *Check) {
	t.Helper()
	s, err := Load(path, sets)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := s.CheckByName(check)
	if !ok {
		t.Fatalf("%s: no check %s", path, check)
	}
	return s, c
}

// TestSimulateSeeds: uniform random walks find the planted twophase bug and the KAFKA-14154
// stuck AlterPartition (a lasso ending in stuttering), with the same walk and trace for one
// and two workers; the trace replays and violates the property.
// Reference: TwoPhase.tla; KAFKA-14154.
func TestSimulateSeeds(t *testing.T) {
	tests := []struct {
		path, check, prop string
		stutter           bool
	}{
		{"twophase.toml", "buggy", "TCConsistent", false},
		{"kafka-14154.toml", "buggy", "NoStuckAlterPartition", true},
		{"kafka-5480.toml", "buggy", "NoLeaderlessPartitionWithLiveISR", true},
	}
	for _, tc := range tests {
		s, c := loadCheck(t, tc.path, tc.check)
		r, opts, err := s.Runnable(c)
		if err != nil {
			t.Fatal(err)
		}
		var first checker.SimResult
		for _, w := range []int{1, 2} {
			got := r.Simulate(checker.SimOptions{Seed: 1, Runs: 20000, Workers: w, FairnessOverride: opts.FairnessOverride})
			if got.Verdict != checker.Violated || got.Property != tc.prop {
				t.Fatalf("%s w=%d: got %s %q %q, want violated %s", tc.path, w, got.Verdict, got.Property, got.Reason, tc.prop)
			}
			if w == 1 {
				first = got
			} else if got.Run != first.Run || !reflect.DeepEqual(got.Trace, first.Trace) {
				t.Errorf("%s w=2: got walk %d, want walk %d and the same trace as with 1 worker", tc.path, got.Run, first.Run)
			}
		}
		if first.Trace.Stutter != tc.stutter {
			t.Errorf("%s: got stutter %v, want %v", tc.path, first.Trace.Stutter, tc.stutter)
		}
		rep, err := r.Replay(first.Trace)
		if err != nil || !containsName(rep.Violates, tc.prop) {
			t.Errorf("%s: replay got %+v, %v; want it to violate %s", tc.path, rep, err, tc.prop)
		}
		// The fixed protocol: no walk finds anything.
		if fixed, ok := s.CheckByName("fixed"); ok {
			fr, fopts, err := s.Runnable(fixed)
			if err != nil {
				t.Fatal(err)
			}
			if got := fr.Simulate(checker.SimOptions{Seed: 1, Runs: 2000, Workers: 2, FairnessOverride: fopts.FairnessOverride}); got.Verdict != checker.OK {
				t.Errorf("%s fixed: got %s %s, want ok", tc.path, got.Verdict, got.Property)
			}
		}
	}
}

func containsName(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// guided is a Kafka model whose Next, in a state of the planted path, offers only the
// path's next step (elsewhere every step), so that a walk follows the path. NextCut, which
// liveness uses for fairness, is the model's own: the lasso is judged on the real model.
type guided struct {
	*kafka.Model
	next map[string]int // encoding of a path state -> index of its step in acts
	acts []string
}

func newGuided(t *testing.T, m *kafka.Model, path []string) guided {
	t.Helper()
	g := guided{Model: m, next: map[string]int{}, acts: path}
	st := m.Init(nil)[0]
	for k, name := range path {
		succ, acts := m.Next(&st, nil, nil)
		j := 0
		for j < len(acts) && m.ActionName(acts[j]) != name {
			j++
		}
		if j == len(acts) {
			t.Fatalf("step %d: %s is not enabled", k+2, name)
		}
		if _, ok := g.next[string(m.Encode(&st, nil))]; !ok {
			g.next[string(m.Encode(&st, nil))] = k
		}
		st = succ[j]
	}
	return g
}

func (g guided) Next(s *kafka.State, succ []kafka.State, acts []uint64) ([]kafka.State, []uint64) {
	start := len(succ)
	succ, acts = g.Model.Next(s, succ, acts)
	k, ok := g.next[string(g.Model.Encode(s, nil))]
	if !ok {
		return succ, acts
	}
	for x := start; x < len(succ); x++ {
		if g.Model.ActionName(acts[x]) == g.acts[k] {
			succ[start], acts[start] = succ[x], acts[x]
			return succ[:start+1], acts[:start+1]
		}
	}
	panic("guided: the path's step is not enabled")
}

// guidedBounded is guided with the model's bounds, so that cut steps count for fairness.
type guidedBounded struct {
	guided
	checker.Bounded[kafka.State]
}

// TestSimulateFollowsCounterexample: a walk along the exhaustive engine's counterexample
// of KAFKA-13077 (the endless fetch-and-truncate loop) and of KAFKA-18723 is reported as
// that counterexample: the same lasso, loop and back step, the same safety trace. Random
// walks rarely take these paths (see docs/engine.md, Simulation); this pins that the walk's lasso
// detection and fairness judgement see them when they do.
// Reference: KAFKA-13077; KAFKA-18723.
func TestSimulateFollowsCounterexample(t *testing.T) {
	tests := []struct {
		path, prop string
		steps      string
		loop       int    // Trace.Loop, -1 for a safety trace
		back       string // the back step
	}{
		{"kafka-13077.toml", "FollowerEventuallyCatchesUp",
			"LeaderAppend(1) FollowerSendFetch(2) LeaderHandleFetch(1,2) NetworkReadRecord(1,2) FollowerHandleFetchResponse(2) " +
				"ControllerMoveLeader(2) BrokerHandleLeaderAndIsr(2) LeaderAppend(2) LeaderShrinkISR(2,1) ControllerHandleAlterPartition(2) " +
				"BrokerPowerLoss(2,2,2,1) BrokerRestart(2) ControllerHandleBrokerStartup(2) BrokerHandleLeaderAndIsr(1) " +
				"BrokerHandleLeaderAndIsr(2) FollowerSendFetch(1) LeaderAppend(2) LeaderHandleFetch(2,1) NetworkReadRecord(2,1) " +
				"FollowerHandleFetchResponse(1) FollowerSendFetch(1) LeaderHandleFetch(2,1) FollowerHandleFetchResponse(1) " +
				"FollowerSendFetch(1) LeaderHandleFetch(2,1) NetworkReadRecord(2,1)",
			20, "FollowerHandleFetchResponse(1)"},
		{"kafka-18723.toml", "NoPermanentDivergence",
			"LeaderAppend(1) LeaderAppend(1) FollowerSendFetch(2) LeaderHandleFetch(1,2) NetworkReadRecord(1,2) " +
				"FollowerHandleFetchResponse(2) FollowerSendFetch(2) LeaderHandleFetch(1,2) ControllerMoveLeader(3) " +
				"BrokerHandleLeaderAndIsr(1) FollowerSendFetch(1) BrokerHandleLeaderAndIsr(3) LeaderAppend(3) LeaderAppend(3) " +
				"LeaderHandleFetch(3,1) FollowerHandleFetchResponse(1) FollowerSendFetch(1) LeaderHandleFetch(3,1) " +
				"NetworkReadRecord(3,1) FollowerHandleFetchResponse(1) FollowerSendFetch(1) LeaderHandleFetch(3,1) " +
				"NetworkReadRecord(3,1) FollowerHandleFetchResponse(1) NetworkReadRecord(1,2) FollowerHandleFetchResponse(2) " +
				"BrokerHandleLeaderAndIsr(2) FollowerSendFetch(2) LeaderHandleFetch(3,2) FollowerHandleFetchResponse(2) " +
				"FollowerSendFetch(2) LeaderHandleFetch(3,2) FollowerHandleFetchResponse(2)",
			-1, ""},
	}
	for _, tc := range tests {
		s, c := loadCheck(t, tc.path, "buggy")
		m, err := kafka.New(KafkaConfig(c.Config))
		if err != nil {
			t.Fatal(err)
		}
		var props []checker.Property[kafka.State]
		for _, name := range c.Config.Properties {
			d, _ := invariants.ByName(name)
			props = append(props, d.Build(m))
		}
		steps := strings.Fields(tc.steps)
		g := guidedBounded{newGuided(t, m, steps), m}
		got := checker.Simulate[kafka.State](g, props, checker.SimOptions{Seed: 1, Runs: 3, Workers: 1})
		if got.Verdict != checker.Violated || got.Property != tc.prop || got.Run != 0 {
			t.Fatalf("%s: got %s %q walk %d, want violated %s by walk 0", tc.path, got.Verdict, got.Property, got.Run, tc.prop)
		}
		tr := got.Trace
		if len(tr.States) != len(steps)+1 || tr.Loop != tc.loop || tr.BackAction != tc.back || tr.Stutter {
			t.Errorf("%s: got %d states, loop %d back %q stutter %v; want %d, %d %q", tc.path, len(tr.States), tr.Loop,
				tr.BackAction, tr.Stutter, len(steps)+1, tc.loop, tc.back)
		}
		r, _, err := s.Runnable(c)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := r.Replay(tr)
		if err != nil || !containsName(rep.Violates, tc.prop) {
			t.Errorf("%s: replay got %+v, %v; want it to violate %s", tc.path, rep, err, tc.prop)
		}
	}
}

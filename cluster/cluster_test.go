package cluster

import (
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"kmc/app"
	"kmc/checker"
	"kmc/specs"
)

// load builds check name of the spec at path with sets, with the spec's options.
func load(t *testing.T, path, name string, sets ...string) (checker.Runnable, checker.Options) {
	t.Helper()
	spec, err := specs.Load(path, sets)
	if err != nil {
		t.Fatal(err)
	}
	c, err := app.PickCheck(spec, name)
	if err != nil {
		t.Fatal(err)
	}
	r, opts, err := spec.Runnable(c)
	if err != nil {
		t.Fatal(err)
	}
	opts.Vacuity = true
	return r, opts
}

// sameResult compares everything a partitioned search must give as the single machine:
// verdict, property, reason, counts, depth, queue, coverage, vacuity and the counterexample
// (every state's values, actions, events and views); not time, memory or workers.
func sameResult(t *testing.T, name string, got, want checker.Result) {
	t.Helper()
	g, w := got.Stats, want.Stats
	g.Elapsed, w.Elapsed, g.MemoryBytes, w.MemoryBytes, g.Workers, w.Workers = 0, 0, 0, 0, 0, 0
	got.Stats, want.Stats = g, w
	if !reflect.DeepEqual(got.Trace, want.Trace) {
		t.Errorf("%s: the counterexamples differ", name)
	}
	got.Trace, want.Trace = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: partitioned\n%+v\nsingle process\n%+v", name, got, want)
	}
}

// TestPartitionsParity: kmc check --partitions N over the embedded NATS server gives the
// single-process engine's result on real specs, for N = 1, 2, 3: violations with their
// counterexamples (KAFKA-18723 before PR 18852, two-phase commit without its fix), complete
// searches with symmetry (KAFKA-18723 fixed), the deadlock check, and the state limit.
func TestPartitionsParity(t *testing.T) {
	tests := []struct {
		path, check string
		sets        []string
		edit        func(*checker.Options)
	}{
		{"../specs/twophase.toml", "buggy", nil, nil},
		{"../specs/twophase.toml", "fixed", []string{"rms=5"}, func(o *checker.Options) { o.Coverage = true }},
		{"../specs/kafka-18723.toml", "buggy", nil, nil},
		{"../specs/kafka-13141.toml", "v2-8", nil, func(o *checker.Options) { o.Deadlock = true }},
		{"../specs/kafka-13141.toml", "v3-3", []string{"brokers=4"}, func(o *checker.Options) { o.MaxStates = 20000 }},
	}
	if !testing.Short() {
		tests = append(tests, struct {
			path, check string
			sets        []string
			edit        func(*checker.Options)
		}{"../specs/kafka-18723.toml", "fixed", nil, nil})
	}
	for _, tc := range tests {
		r, opts := load(t, tc.path, tc.check, tc.sets...)
		if tc.edit != nil {
			tc.edit(&opts)
		}
		opts.Workers = 2
		opts.POR = false // the reduction runs on one machine only (TestPartitionsRefusePOR)
		want := r.Check(opts)
		name := strings.TrimPrefix(tc.path, "../specs/") + " " + tc.check
		for _, n := range []int{1, 2, 3} {
			got, wire, err := CheckPartitions(r, opts, n)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			sameResult(t, name+" partitions="+string(rune('0'+n)), got, want)
			if n > 1 && wire.Messages == 0 {
				t.Errorf("%s partitions=%d: nothing went over NATS", name, n)
			}
		}
	}
}

// TestPartitionsRefusePOR: a search under the partial-order reduction is refused with the
// reason (two-phase commit declares its independence; the reduction is on by default).
func TestPartitionsRefusePOR(t *testing.T) {
	r, opts := load(t, "../specs/twophase.toml", "fixed")
	opts.POR = true
	_, _, err := CheckPartitions(r, opts, 2)
	if err == nil || !strings.Contains(err.Error(), "partial-order reduction") {
		t.Fatalf("got %v, want a refusal naming the partial-order reduction", err)
	}
}

// TestPartitionsLivenessLimits: a check with a liveness property (KAFKA-14154 before its
// fix, a lasso) across 2 and 3 partitions gives the single process's result under a state
// limit (stopped before the lasso's states, in the middle of a level, and past it), and its
// level checkpoints, which hold the gathered graph, resume on one process and on 3
// partitions with the uninterrupted search's result and lasso.
func TestPartitionsLivenessLimits(t *testing.T) {
	r, opts := load(t, "../specs/kafka-14154.toml", "buggy")
	opts.Workers = 2
	whole := r.Check(opts)
	if whole.Verdict != checker.Violated || whole.Trace == nil || whole.Trace.Loop < 0 && !whole.Trace.Stutter {
		t.Fatalf("KAFKA-14154 buggy: %s, want a lasso", whole.Verdict)
	}
	for _, limit := range []int64{100, whole.Stats.Distinct / 3, whole.Stats.Distinct - 1} {
		o := opts
		o.MaxStates = limit
		want := r.Check(o)
		for _, n := range []int{2, 3} {
			got, _, err := CheckPartitions(r, o, n)
			if err != nil {
				t.Fatal(err)
			}
			sameResult(t, "max states "+strconv.FormatInt(limit, 10)+" partitions="+strconv.Itoa(n), got, want)
		}
	}
	var snaps [][]byte
	ck := opts
	ck.CheckpointAt = func(int, int64) bool { return true }
	ck.Checkpoint = func(s *checker.Snapshot) {
		var b bytes.Buffer
		if _, err := s.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, b.Bytes())
	}
	got, _, err := CheckPartitions(r, ck, 2)
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, "with checkpoints, 2 partitions", got, whole)
	if len(snaps) < 3 {
		t.Fatalf("%d level checkpoints, want some", len(snaps))
	}
	for _, k := range []int{1, len(snaps) / 2, len(snaps) - 1} {
		read := func() *checker.Snapshot {
			s, err := checker.ReadSnapshot(bytes.NewReader(snaps[k]), int64(len(snaps[k])))
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		o := opts
		o.Resume = read()
		sameResult(t, "checkpoint "+strconv.Itoa(k)+" resumed by one process", r.Check(o), whole)
		o.Resume = read()
		got, _, err := CheckPartitions(r, o, 3)
		if err != nil {
			t.Fatal(err)
		}
		sameResult(t, "checkpoint "+strconv.Itoa(k)+" resumed by 3 partitions", got, whole)
	}
}

// TestPartitionsLevels: the observer hears of every level in order, with the distinct states
// after it adding up to the search's, claims sent, and the bytes over NATS growing.
func TestPartitionsLevels(t *testing.T) {
	r, opts := load(t, "../specs/twophase.toml", "fixed", "rms=4")
	opts.POR = false
	var levels []checker.LevelStats
	var wires []Wire
	res, wire, err := CheckPartitions(r, opts, 3, func(ls checker.LevelStats, w Wire) {
		levels = append(levels, ls)
		wires = append(wires, w)
	})
	if err != nil || res.Verdict != checker.OK {
		t.Fatalf("%v %s: %v", res.Verdict, res.Reason, err)
	}
	if len(levels) != res.Stats.Depth {
		t.Fatalf("%d levels reported, the search's depth is %d", len(levels), res.Stats.Depth)
	}
	var sum int64
	for i, ls := range levels {
		sum += ls.New
		if ls.Level != i || ls.Distinct != sum || ls.Claims < ls.New || ls.Slowest < 0 || ls.Slowest > 2 {
			t.Errorf("level %d: %+v (new states so far %d)", i, ls, sum)
		}
		if i > 0 && wires[i].Bytes <= wires[i-1].Bytes {
			t.Errorf("level %d: %d bytes over NATS, not more than the level before's %d", i, wires[i].Bytes, wires[i-1].Bytes)
		}
	}
	if sum != res.Stats.Distinct || wires[len(wires)-1].Bytes > wire.Bytes {
		t.Errorf("levels add up to %d states and %d bytes; the search has %d and %d", sum, wires[len(wires)-1].Bytes, res.Stats.Distinct, wire.Bytes)
	}
}

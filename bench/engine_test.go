package bench

import (
	"strconv"
	"syscall"
	"testing"
	"time"

	"kmc/checker"
	"kmc/model/twophase"
	"kmc/specs"
)

// peakRSS is the process's peak resident set size in bytes (Linux reports kilobytes).
func peakRSS() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Maxrss * 1024
}

// cpuTime is the process's user plus system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkEngineTwoPhase reports, at smaller N than BenchmarkTwoPhase and with CPU time, distinct states per second and engine bytes per distinct state
// for two-phase commit (TwoPhase.tla, tlaplus/Examples) with TCConsistent checked.
// Reference: issue 2 (target: 1 million distinct states/s with 2 workers).
func BenchmarkEngineTwoPhase(b *testing.B) {
	for _, n := range []int{7, 8} {
		for _, w := range []int{1, 2} {
			b.Run("N="+strconv.Itoa(n)+"/workers="+strconv.Itoa(w), func(b *testing.B) {
				m := twophase.New(n)
				props := []checker.Property[twophase.State]{{Name: "TCConsistent", Kind: checker.Invariant, State: twophase.TCConsistent}}
				b.ReportAllocs()
				var res checker.Result
				c0 := cpuTime()
				for b.Loop() {
					res = checker.Check[twophase.State](m, props, checker.Options{Workers: w})
				}
				if res.Verdict != checker.OK {
					b.Fatalf("got %s %s, want ok", res.Verdict, res.Reason)
				}
				b.ReportMetric(float64(cpuTime()-c0)/float64(b.N)/1e6, "cpu-ms/op")
				b.ReportMetric(float64(res.Stats.Distinct)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
				b.ReportMetric(float64(res.Stats.MemoryBytes)/float64(res.Stats.Distinct), "B/state")
				b.ReportMetric(float64(res.Stats.Distinct), "distinct")
			})
		}
	}
}

// BenchmarkEngineLivenessCost runs the fixed check of specs/kafka-13077.toml with its
// liveness property and with a safety property only (same state graph), reporting CPU time
// as well as wall time: the cost of liveness over safety (issue 4: at most 2x).
// Reference: KAFKA-13077; issue 4.
func BenchmarkEngineLivenessCost(b *testing.B) {
	for _, props := range [][]string{{"FollowerEventuallyCatchesUp"}, {"LeaderInISR"}} {
		b.Run(props[0], func(b *testing.B) {
			spec, err := specs.Load("../specs/kafka-13077.toml", nil)
			if err != nil {
				b.Fatal(err)
			}
			c, ok := spec.CheckByName("fixed")
			if !ok {
				b.Fatal("no check fixed")
			}
			_, opts, err := spec.Runnable(c)
			if err != nil {
				b.Fatal(err)
			}
			cfg := c.Config
			cfg.Properties = props
			r, err := spec.Family.Build(cfg)
			if err != nil {
				b.Fatal(err)
			}
			var res checker.Result
			c0 := cpuTime()
			for b.Loop() {
				res = r.Check(opts)
			}
			if res.Verdict != checker.OK {
				b.Fatalf("got %s %s, want ok", res.Verdict, res.Reason)
			}
			b.ReportMetric(float64(cpuTime()-c0)/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(res.Stats.Distinct)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
			b.ReportMetric(float64(res.Stats.MemoryBytes)/float64(res.Stats.Distinct), "B/state")
		})
	}
}

// BenchmarkEngineLivenessGraph runs KAFKA-5480's liveness checks (the ticket's shape, buggy:
// a fair lasso; and the fixed check at larger bounds of specs/large/) and reports the
// liveness graph's size per distinct state (compressed successor lists, their index and the
// property flags: issue 14's target is at most 64) and the engine's tables per state.
// Reference: KAFKA-5480; issue 14.
func BenchmarkEngineLivenessGraph(b *testing.B) {
	for _, tc := range []struct{ path, check string }{
		{"../specs/kafka-5480.toml", "buggy-ticket"}, {"../specs/large/kafka-5480-large.toml", "fixed-records-lag"},
	} {
		b.Run(tc.check, func(b *testing.B) {
			spec, err := specs.Load(tc.path, nil)
			if err != nil {
				b.Fatal(err)
			}
			c, ok := spec.CheckByName(tc.check)
			if !ok {
				b.Fatal("no check " + tc.check)
			}
			r, opts, err := spec.Runnable(c)
			if err != nil {
				b.Fatal(err)
			}
			opts.Workers = 2
			b.ReportAllocs()
			var res checker.Result
			for b.Loop() {
				res = r.Check(opts)
			}
			if res.Verdict != c.Expect || res.Stats.Distinct != c.States {
				b.Fatalf("got %s, %d states; want %s, %d", res.Verdict, res.Stats.Distinct, c.Expect, c.States)
			}
			d := float64(res.Stats.Distinct)
			b.ReportMetric(d*float64(b.N)/b.Elapsed().Seconds(), "states/s")
			b.ReportMetric(float64(res.Stats.GraphBytes)/d, "graph-B/state")
			b.ReportMetric(float64(res.Stats.GraphEdges)/d, "edges/state")
			b.ReportMetric(float64(res.Stats.MemoryBytes)/d, "B/state")
		})
	}
}

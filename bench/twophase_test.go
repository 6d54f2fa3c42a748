// Package bench holds the engine's end-to-end benchmarks, run by make bench.
package bench

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"kmc/checker"
	"kmc/specs"
)

// benchRMs is the largest RM count whose complete search takes within about a minute on the
// 2-core reference machine: N=9, 10,340,352 distinct states, 12s to 40s with 2 workers
// depending on load (N=10 took 89s). Override with KMC_BENCH_RMS=N.
const benchRMs = 9

// BenchmarkTwoPhase is the complete search of two-phase commit (TwoPhase.tla, the fixed
// variant) at benchRMs resource managers, with 1 and 2 workers. It reports distinct states
// per second of wall time and of CPU time (steadier on a shared machine), the engine's
// bytes per distinct state at the end (its own accounting: seen set, parent links,
// frontiers, buffers) and the process's peak resident size so far (run one sub-benchmark
// per process for its own).
// Reference: issue 2 (target: at least 1 million distinct states/s with 2 workers).
func BenchmarkTwoPhase(b *testing.B) {
	n := benchRMs
	if s := os.Getenv("KMC_BENCH_RMS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("KMC_BENCH_RMS: %v", err)
		}
		n = v
	}
	fam, ok := specs.FamilyByName("twophase")
	if !ok {
		b.Fatal("no twophase family")
	}
	r, err := fam.Build(specs.Config{
		Values:     map[string]int{"rms": n},
		Switches:   map[string]bool{specs.TwoPhaseFix: true},
		Properties: []string{"TCConsistent", "TCTypeOK"},
	})
	if err != nil {
		b.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("rms=%d/workers=%d", n, workers), func(b *testing.B) {
			b.ReportAllocs()
			var distinct, mem int64
			c0 := cpuTime()
			for b.Loop() {
				res := r.Check(checker.Options{Workers: workers})
				if res.Verdict != checker.OK {
					b.Fatalf("verdict: got %s (%s), want ok", res.Verdict, res.Property)
				}
				distinct += res.Stats.Distinct
				mem = max(mem, res.Stats.MemoryBytes*1000/max(res.Stats.Distinct, 1))
			}
			cpu := cpuTime() - c0
			b.ReportMetric(float64(distinct)/b.Elapsed().Seconds(), "states/s")
			b.ReportMetric(float64(distinct)/cpu.Seconds(), "states/cpu-s")
			b.ReportMetric(float64(mem)/1000, "bytes/state")
			b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MiB")
		})
	}
}

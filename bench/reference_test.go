package bench

import (
	"fmt"
	"testing"

	"kmc/checker"
	"kmc/model/reference"
	"kmc/specs"
)

// The largest reference check whose complete search takes about a minute with two
// workers on the 2-core reference machine: Kip320FirstTry.tla with 3 replicas at the
// issue's bounds (LogSize = 2, MaxRecords = 2, MaxLeaderEpoch = 3), checking the
// invariants that hold there, TypeOk and LeaderInIsr (StrongIsr and WeakIsr fail within
// 13 steps). KafkaTruncateToHighWatermark at the same bounds (39,919,804 states) took
// 86-93 s, Kip320 (9,985,570 states) 13-19 s. The counts are pinned so that a change to
// the port or the engine shows up.
const (
	refBenchStates = 24211312
	refBenchDepth  = 35
)

// BenchmarkReference is the complete search of the reference port's Kip320FirstTry
// variant at the bounds with 3 replicas, with 1 and 2 workers. It reports
// distinct states per second.
// Reference: issue 7; hachikuji/kafka-specification, Kip320FirstTry.tla.
func BenchmarkReference(b *testing.B) {
	fam, ok := specs.FamilyByName("reference")
	if !ok {
		b.Fatal("no reference family")
	}
	r, err := fam.Build(specs.Config{
		Values: map[string]int{"variant": int(reference.Kip320FirstTry), "replicas": 3, "log_size": 2,
			"max_records": 2, "max_leader_epoch": 3, "max_offset": 2, "max_version": 3},
		Properties: []string{"TypeOk", "LeaderInIsr"},
	})
	if err != nil {
		b.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("Kip320FirstTry/replicas=3/workers=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			var distinct, mem int64
			for b.Loop() {
				res := r.Check(checker.Options{Workers: workers})
				if res.Verdict != checker.OK {
					b.Fatalf("verdict: got %s (%s), want ok", res.Verdict, res.Property)
				}
				if res.Stats.Distinct != refBenchStates || res.Stats.Depth != refBenchDepth {
					b.Fatalf("got %d distinct states, depth %d; want %d, %d",
						res.Stats.Distinct, res.Stats.Depth, refBenchStates, refBenchDepth)
				}
				distinct += res.Stats.Distinct
				mem = max(mem, res.Stats.MemoryBytes*1000/max(res.Stats.Distinct, 1))
			}
			b.ReportMetric(float64(distinct)/b.Elapsed().Seconds(), "states/s")
			b.ReportMetric(float64(mem)/1000, "bytes/state")
		})
	}
}

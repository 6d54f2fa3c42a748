package invariants

import (
	"testing"

	"kmc/checker"
	"kmc/model/kafka"
)

// The KIP-101 scenario with the high-watermark strategy, checked by the engine with several
// worker counts: the same verdict, the same distinct-state count and a shortest trace whose
// length is the depth reached, and the trace really loses an acknowledged record.
// Reference: KIP-101; STYLE §5 (any number of workers gives the same result).
func TestHighWatermarkTruncationLosesDataAnyWorkers(t *testing.T) {
	c := kafka.DefaultConfig()
	c.Brokers, c.MaxRecords, c.MaxEpoch, c.LeaderChange = 2, 1, 4, 2
	c.Version = "0.10" // truncation to the high watermark, before KIP-101
	m, err := kafka.New(c)
	if err != nil {
		t.Fatal(err)
	}
	props := []checker.Property[kafka.State]{NoCommittedDataLoss.Build(m), LeaderInISR.Build(m)}
	var first checker.Result
	for i, w := range []int{1, 2, 4} {
		res := checker.Check[kafka.State](m, props, checker.Options{Workers: w})
		if res.Verdict != checker.Violated || res.Property != "NoCommittedDataLoss" || res.Trace == nil {
			t.Fatalf("workers %d: got %s %q, want violated NoCommittedDataLoss with a trace", w, res.Verdict, res.Property)
		}
		if n := len(res.Trace.States); n != res.Stats.Depth {
			t.Errorf("workers %d: trace of %d states, search depth %d", w, n, res.Stats.Depth)
		}
		if i == 0 {
			first = res
			continue
		}
		if res.Stats.Distinct != first.Stats.Distinct || len(res.Trace.States) != len(first.Trace.States) {
			t.Errorf("workers %d: %d states, trace %d; workers 1: %d, %d", w, res.Stats.Distinct,
				len(res.Trace.States), first.Stats.Distinct, len(first.Trace.States))
		}
	}
	// The same bounds with the leader-epoch (0.11) or diverging-epoch (2.8, 3.9) strategy hold.
	for _, v := range []string{"0.11", "2.8", "3.9"} {
		c.Version = v
		m, _ := kafka.New(c)
		props := []checker.Property[kafka.State]{NoCommittedDataLoss.Build(m), NoPermanentDivergence.Build(m), LogMatching.Build(m)}
		if res := checker.Check[kafka.State](m, props, checker.Options{Workers: 2}); res.Verdict != checker.OK {
			t.Errorf("version %s: got %s %q, want ok", v, res.Verdict, res.Property)
		}
	}
}

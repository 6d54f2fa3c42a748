package cluster

import (
	"strconv"
	"strings"
	"testing"
)

// TestPartitionsLiveness: kmc check --partitions N over the embedded NATS server gives the
// single-process result of checks with a liveness property, their lassos included, for
// N = 1, 2, 3: the state graph is gathered to the coordinator, which runs the liveness phase
// of one process on it. KAFKA-14154 and KAFKA-5480 before their fixes (violated, with a
// lasso) and after, KAFKA-13077 fixed with two records, and (without -short) KAFKA-13077
// before its fix, 753,212 states. Reference: issue 30, "Liveness".
func TestPartitionsLiveness(t *testing.T) {
	tests := []struct {
		path, check string
		sets        []string
	}{
		{"../specs/kafka-14154.toml", "buggy", nil},
		{"../specs/kafka-14154.toml", "fixed", nil},
		{"../specs/kafka-5480.toml", "buggy", nil},
		{"../specs/kafka-5480.toml", "fixed", nil},
		{"../specs/kafka-13077.toml", "fixed", []string{"max_records=2"}},
	}
	if !testing.Short() {
		tests = append(tests, struct {
			path, check string
			sets        []string
		}{"../specs/kafka-13077.toml", "buggy", nil})
	}
	violated := 0
	for _, tc := range tests {
		r, opts := load(t, tc.path, tc.check, tc.sets...)
		opts.Workers = 2
		if _, live := r.Fairness(opts); !live {
			t.Fatalf("%s %s: no liveness property", tc.path, tc.check)
		}
		want := r.Check(opts)
		if want.Trace != nil && want.Trace.Loop >= 0 {
			violated++
		}
		name := strings.TrimPrefix(tc.path, "../specs/") + " " + tc.check
		for _, n := range []int{1, 2, 3} {
			got, wire, err := CheckPartitions(r, opts, n)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			sameResult(t, name+" partitions="+strconv.Itoa(n), got, want)
			if wire.Graph == 0 || wire.Graph >= wire.Bytes {
				t.Errorf("%s partitions=%d: %d bytes gathered the graph of %d over NATS", name, n, wire.Graph, wire.Bytes)
			}
		}
	}
	if violated == 0 {
		t.Error("no check ended in a lasso")
	}
}

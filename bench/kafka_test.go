package bench

import (
	"testing"

	"kmc/checker"
	"kmc/specs"
)

// kafkaBench runs one check of a kafka spec file and reports distinct states per second
// and the distinct-state count.
// With props, the spec's properties are replaced by props (same state graph, so the pinned
// distinct-state count still applies).
func kafkaBench(b *testing.B, path, check string, want checker.Verdict, props ...string) {
	spec, err := specs.Load(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	c, ok := spec.CheckByName(check)
	if !ok {
		b.Fatalf("%s: no check %q", path, check)
	}
	r, opts, err := spec.Runnable(c)
	if err != nil {
		b.Fatal(err)
	}
	if props != nil {
		cfg := c.Config
		cfg.Properties = props
		if r, err = spec.Family.Build(cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	var distinct, last int64
	for b.Loop() {
		res := r.Check(opts)
		if res.Verdict != want {
			b.Fatalf("verdict: got %s (%s), want %s", res.Verdict, res.Property, want)
		}
		if c.States != 0 && res.Stats.Distinct != c.States {
			b.Fatalf("got %d distinct states, want %d (pinned in %s)", res.Stats.Distinct, c.States, path)
		}
		distinct += res.Stats.Distinct
		last = res.Stats.Distinct
	}
	b.ReportMetric(float64(distinct)/b.Elapsed().Seconds(), "states/s")
	b.ReportMetric(float64(last), "distinct-states")
}

// BenchmarkKafka18723 is the complete search of specs/kafka-18723.toml: the buggy check up
// to its counterexample, the fixed check to the end.
// Reference: KAFKA-18723; issue 3.
func BenchmarkKafka18723(b *testing.B) {
	b.Run("buggy", func(b *testing.B) { kafkaBench(b, "../specs/kafka-18723.toml", "buggy", checker.Violated) })
	b.Run("fixed", func(b *testing.B) { kafkaBench(b, "../specs/kafka-18723.toml", "fixed", checker.OK) })
}

// BenchmarkKafka13077 is specs/kafka-13077.toml with the liveness property, buggy and
// fixed, and the fixed check with a safety property only (LeaderInISR, which holds), for
// issue 4's cost of liveness over safety. Reference: KAFKA-13077; issue 4.
func BenchmarkKafka13077(b *testing.B) {
	const path = "../specs/kafka-13077.toml"
	b.Run("buggy", func(b *testing.B) { kafkaBench(b, path, "buggy", checker.Violated) })
	b.Run("fixed", func(b *testing.B) { kafkaBench(b, path, "fixed", checker.OK) })
	b.Run("fixed-safety-only", func(b *testing.B) { kafkaBench(b, path, "fixed", checker.OK, "LeaderInISR") })
}

// BenchmarkKafkaSymmetry is specs/kafka-guards.toml's leader-writes base (three brokers,
// the ZooKeeper plane of 1.1, a crash and a controlled shutdown) with one worker, under
// symmetry with the assignment order open (the default) and without: the cost of
// canonicalizing each successor against the states it saves. Reference: issue 14.
func BenchmarkKafkaSymmetry(b *testing.B) {
	for _, sym := range []bool{true, false} {
		name := map[bool]string{true: "symmetry", false: "plain"}[sym]
		b.Run(name, func(b *testing.B) {
			spec, err := specs.Load("../specs/kafka-guards.toml", nil)
			if err != nil {
				b.Fatal(err)
			}
			c, _ := spec.CheckByName("leader-writes")
			r, opts, err := spec.Runnable(c)
			if err != nil {
				b.Fatal(err)
			}
			opts.Workers, opts.Symmetry = 1, sym
			b.ReportAllocs()
			var distinct int64
			for b.Loop() {
				res := r.Check(opts)
				if res.Verdict != checker.OK {
					b.Fatalf("verdict: got %s (%s), want ok", res.Verdict, res.Property)
				}
				distinct = res.Stats.Distinct
			}
			b.ReportMetric(float64(distinct)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
			b.ReportMetric(float64(distinct), "distinct-states")
		})
	}
}

package bench

import (
	"testing"

	"kmc/checker"
)

// BenchmarkKafka5480 is the complete search of specs/kafka-5480.toml, buggy and fixed
// (KAFKA-6082), at the smallest point (two brokers) and in the ticket's shape (three):
// distinct states and states/s of the control plane with a zombie controller.
// Reference: KAFKA-5480; KAFKA-6082; issues 5 and 10.
func BenchmarkKafka5480(b *testing.B) {
	const path = "../specs/kafka-5480.toml"
	b.Run("buggy", func(b *testing.B) { kafkaBench(b, path, "buggy", checker.Violated) })
	b.Run("fixed", func(b *testing.B) { kafkaBench(b, path, "fixed", checker.OK) })
	b.Run("buggy-ticket", func(b *testing.B) { kafkaBench(b, path, "buggy-ticket", checker.Violated) })
	b.Run("fixed-ticket", func(b *testing.B) { kafkaBench(b, path, "fixed-ticket", checker.OK) })
}

// BenchmarkKafka14154 is the complete search of specs/kafka-14154.toml: buggy, fixed as
// merged (PR 12506) and as proposed (PR 12499).
// Reference: KAFKA-14154; issue 5.
func BenchmarkKafka14154(b *testing.B) {
	const path = "../specs/kafka-14154.toml"
	b.Run("buggy", func(b *testing.B) { kafkaBench(b, path, "buggy", checker.Violated) })
	b.Run("fixed", func(b *testing.B) { kafkaBench(b, path, "fixed", checker.OK) })
	b.Run("fixed-proposed", func(b *testing.B) { kafkaBench(b, path, "fixed-proposed", checker.OK) })
}

package kafka

// Kafka18723Strict is a proposal for KAFKA-18723's residual (FINDINGS.md), not upstream
// code: on top of KAFKA-18723's filter, the follower also appends no batch whose leader
// epoch is below the epoch of its last batch, nor any after it.
var Kafka18723Strict = &Switch{
	Name: "KAFKA-18723-strict",
	Doc: "a proposal for KAFKA-18723's residual, on top of KAFKA-18723's filter (in version 4.0 and later, or with fixes KAFKA-18723): " +
		"the follower also appends no batch whose leader epoch is below its last batch's, nor any after it",
	Kafka:    "proposal (FINDINGS.md, KAFKA-18723's residual): a second condition beside hasHigherPartitionLeaderEpoch in UnifiedLog.analyzeAndValidateRecords (3.9.1)",
	Versions: "where KAFKA-18723's filter is in force: 3.9.1, 4.0.1, 4.1.0 and later, or fixes KAFKA-18723",
	Kinds:    []string{"FollowerHandleFetchResponse"},
	Branches: []string{"skip-lower-epoch"},
	Needs: func(c *Config, p *Profile) string {
		if c.effective(p)&FixBit18723 == 0 {
			return "adds to KAFKA-18723's filter, not in force in version " + p.Name + " (add fixes KAFKA-18723)"
		}
		return ""
	},
	StopAppend: func(_ *Model, _ Replica, _ Msg, _ int, e, last uint8) bool {
		return e < last
	},
}

func init() { Register(Kafka18723Strict) }

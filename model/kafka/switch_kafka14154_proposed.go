package kafka

// Kafka14154Proposed is KAFKA-14154's fix as first proposed (PR 12499, not merged): the
// leader sends no AlterPartition to a controller whose epoch is below the highest it has
// seen. Its branch is in Model.controlPlaneSteps (controlplane.go), counted when it
// withholds a send.
var Kafka14154Proposed = &Switch{
	Name:     "KAFKA-14154-proposed",
	Doc:      "as first proposed (PR 12499): the leader sends no AlterPartition to a controller whose epoch is below the highest it has seen",
	Kafka:    "proposal, PR 12499 (not merged): BrokerToControllerChannelManager keeps the highest controller epoch seen (3.3.0 core/src/main/scala/kafka/server/BrokerToControllerChannelManager.scala)",
	Versions: "releases with AlterPartition (2.7 and later)",
	Kinds:    []string{"BrokerSendAlterPartition"},
	Branches: []string{"withhold-to-stale-controller"},
	Needs:    needsAlterPartition,
}

func init() { Register(Kafka14154Proposed) }

// withholdAlterPartition reports whether, with the switch on, broker state k withholds its
// queued AlterPartition from the controller it knows, whose epoch is below the highest it
// has seen (counted).
func (m *Model) withholdAlterPartition(k *BrokerMeta) bool {
	if !m.on(Kafka14154Proposed) || k.CtrlEpoch >= k.MaxEpoch {
		return false
	}
	m.hit(Kafka14154Proposed.Branch(0))
	return true
}

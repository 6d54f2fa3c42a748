package kafka

// Kafka13790KeepPending is a proposal for the re-applied shrink (FINDINGS.md), not upstream
// code: a KRaft leader that applies partition state at the leader epoch and partition epoch
// it already has keeps its pending AlterPartition, instead of replacing it with the
// committed state (Partition.makeLeader -> updateAssignmentAndIsr). State at its own
// partition epoch is the one whose AlterPartition response it applied, so the committed ISR
// is unchanged; only the proposal in flight, which the high watermark must count, would be
// lost. Its branch is in Model.applyPartitionState (broker.go), counted when it keeps one.
var Kafka13790KeepPending = &Switch{
	Name:     "KAFKA-13790-keep-pending",
	Doc:      "a proposal for the re-applied shrink (FINDINGS.md): a KRaft leader re-applying partition state at its own leader and partition epochs keeps its pending AlterPartition",
	Kafka:    "proposal (FINDINGS.md): Partition.makeLeader keeps a PendingPartitionChange when the partition epoch and leader epoch are unchanged (4.1.1 core/src/main/scala/kafka/cluster/Partition.scala 738-767; equal partition epochs re-applied since KAFKA-13790, 3.3.0)",
	Versions: "KRaft releases (3.3.0 and later)",
	Kinds:    []string{"BrokerReplayMetadata"},
	Branches: []string{"keep-pending"},
	Needs: func(c *Config, p *Profile) string {
		if !c.KRaft {
			return "the re-applied partition state is KRaft's (control_plane = kraft)"
		}
		return ""
	},
}

func init() { Register(Kafka13790KeepPending) }

// keepPending reports whether, with the switch on, a leader keeps its pending AlterPartition
// when partition state at its own epochs is applied again (counted).
func (m *Model) keepPending() bool {
	if !m.on(Kafka13790KeepPending) {
		return false
	}
	m.hit(Kafka13790KeepPending.Branch(0))
	return true
}

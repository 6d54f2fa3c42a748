package kafka

// KIP966 is KIP-966's Eligible Leader Replicas (eligible.leader.replicas.version = 1), with
// the KRaft plane: opt-in from 4.0.0, in the profiles of 4.1.0 and later. It is a mechanism
// spread over the KRaft controller (kraft.go: Model.elr), not one branch: it names none, and
// its vacuity is by its kinds of action.
var KIP966 = &Switch{
	Name: "KIP-966",
	Doc: "Eligible Leader Replicas (KIP-966, eligible.leader.replicas.enable; preview in 4.0): an ISR below min.insync.replicas keeps the removed members as ELR, " +
		"electable when the ISR is empty; an unclean restart leaves ISR and ELR (needs control_plane = kraft)",
	Kafka:    "PartitionChangeBuilder (ELR), ReplicationControlManager.handleBrokerUncleanShutdown (4.1.0 metadata/src/main/java/org/apache/kafka/controller/)",
	Versions: "4.0.0 and later with control_plane = kraft (on in the profiles of 4.1.0 and later)",
	Fix:      FixBitELR,
	Kinds:    []string{"ControllerFenceBroker", "ControllerRegisterBroker", "BrokerControlledShutdown", "ControllerHandleAlterPartition"},
	Needs: func(_ *Config, p *Profile) string {
		if !p.CleanShutdownDetection {
			return "(eligible leader replicas) needs version 4.0.0 or later; version " + p.Name +
				" has it only at a metadata version that is not production-ready (4.0-IV0)"
		}
		return ""
	},
}

func init() { Register(KIP966) }

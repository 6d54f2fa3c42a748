package kafka

// Kafka14154 is KAFKA-14154's fix as merged (PR 12506, PR 12514): a controller answers
// NOT_CONTROLLER to an AlterPartition ahead of its state; the leader re-targets and
// retries. Its branches are in Model.handleAlterPartitionCP (controlplane.go) and the KRaft
// controller's (kraft.go).
var Kafka14154 = &Switch{
	Name:     "KAFKA-14154",
	Doc:      "as merged (PR 12506): a controller answers NOT_CONTROLLER to an AlterPartition ahead of its state; the leader re-targets and retries",
	Kafka:    "KafkaController.processAlterPartition: NOT_CONTROLLER for a request ahead of the controller's state (3.3.0 core/src/main/scala/kafka/controller/KafkaController.scala; PR 12506, PR 12514)",
	Versions: "in 3.3.0 and later; needs AlterPartition (2.7 and later)",
	Fix:      FixBit14154,
	Kinds:    []string{"ControllerHandleAlterPartition"},
	Branches: []string{"not-controller-ahead"},
	Needs:    needsAlterPartition,
}

func init() { Register(Kafka14154) }

// needsAlterPartition refuses a release without AlterPartition (KIP-497).
func needsAlterPartition(_ *Config, p *Profile) string {
	if !p.AlterPartition {
		return "needs AlterPartition (KIP-497, 2.7); version " + p.Name + " has none"
	}
	return ""
}

package kafka

// Kafka6082 is KAFKA-6082's fix: the controller's writes to the store are conditional on the
// /controller_epoch znode's version, so a zombie controller's writes fail (it resigns). It
// fixes KAFKA-5480. Its branch is in Model.zkWrite (controlplane.go).
var Kafka6082 = &Switch{
	Name:     "KAFKA-6082",
	Doc:      "controller writes to the store are conditional on the /controller_epoch version (zombie writes fail; fixes KAFKA-5480)",
	Kafka:    "KafkaZkClient.updateLeaderAndIsr: a MultiRequest with a CheckOp on /controller_epoch's version (2.1.0 core/src/main/scala/kafka/zk/KafkaZkClient.scala), ControllerMovedException",
	Versions: "in 2.1.0 and later; a switch for 0.10.2.2 to 1.1.1",
	Fix:      FixBit6082,
	Kinds:    []string{"ControllerFailover"},
	Branches: []string{"zombie-write-fenced"},
}

func init() { Register(Kafka6082) }

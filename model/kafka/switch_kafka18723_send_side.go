package kafka

// Kafka18723SendSide is a proposal for KAFKA-18723's residual (FINDINGS.md, proposal (a)),
// not upstream code: a truncation on the serving broker aborts the sends whose unsent slice
// it cut. Its branch is Model.abortCutSends (bytes.go), counted per send aborted.
var Kafka18723SendSide = &Switch{
	Name:     "KAFKA-18723-send-side",
	Doc:      "a proposal for KAFKA-18723's residual: a truncation on the serving broker aborts the sends whose unsent slice it cut (the connection closes)",
	Kafka:    "proposal (FINDINGS.md (a)): FileRecords.truncateTo marks the slices it cut and FileRecords.writeTo throws for them (3.9.1 clients/src/main/java/org/apache/kafka/common/record/FileRecords.java)",
	Versions: "every release",
	Kinds:    []string{"FollowerHandleFetchResponse"},
	Branches: []string{"abort-cut-send"},
}

func init() { Register(Kafka18723SendSide) }

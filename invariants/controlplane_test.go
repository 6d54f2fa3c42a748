package invariants

import (
	"strings"
	"testing"

	"kmc/checker"
	"kmc/model/kafka"
)

// cp14154 is specs/kafka-14154.toml's configuration on Kafka 3.3 (KAFKA-6082 in), with
// KAFKA-14154's fix (PR 12506) taken out unless fix14154, and the proposed fix when asked.
func cp14154(fix14154, proposed bool) kafka.Config {
	c := kafka.DefaultConfig()
	c.Version = "3.3"
	c.Brokers, c.MaxRecords, c.MaxEpoch = 2, 0, 2
	c.Controllers, c.ControllerBroker, c.Failover = 2, 1, 1
	if !fix14154 {
		c.Without = kafka.FixBit14154
	}
	c.Switches = c.Switches.With(kafka.Kafka14154Proposed, proposed)
	return c
}

// traceHas reports whether some state of tr was reached by action act and some value of it
// contains text.
func traceHas(tr *checker.Trace, act, text string) (bool, bool) {
	var a, v bool
	for _, st := range tr.States {
		a = a || st.Action == act
		for _, val := range st.Values {
			v = v || strings.Contains(val, text)
		}
	}
	return a, v
}

// KAFKA-14154 at the spec's bounds: the buggy variant's lasso sends the AlterPartition to
// the zombie (controller 1), which answers FENCED_LEADER_EPOCH; both fixes hold.
// Reference: KAFKA-14154; PR 12506; PR 12499.
func TestNoStuckAlterPartitionKafka14154(t *testing.T) {
	for _, tc := range []struct {
		name                string
		fix, proposed, want bool
	}{
		{"buggy", false, false, false},
		{"fixed", true, false, true},
		{"fixed-proposed", false, true, true},
	} {
		m, err := kafka.New(cp14154(tc.fix, tc.proposed))
		if err != nil {
			t.Fatal(err)
		}
		props := []checker.Property[kafka.State]{NoStuckAlterPartition.Build(m), CaughtUpFollowerEventuallyInISR.Build(m)}
		res := checker.Check[kafka.State](m, props, checker.Options{Workers: 2})
		if tc.want {
			if res.Verdict != checker.OK {
				t.Errorf("%s: got %s %q, want ok", tc.name, res.Verdict, res.Property)
			}
			continue
		}
		if res.Verdict != checker.Violated || res.Property != "NoStuckAlterPartition" || res.Trace == nil {
			t.Fatalf("%s: got %s %q, want violated NoStuckAlterPartition", tc.name, res.Verdict, res.Property)
		}
		a, v := traceHas(res.Trace, "ControllerHandleAlterPartition(1,2)", "FENCED_LEADER_EPOCH")
		if !a || !v {
			t.Errorf("%s: trace has the zombie's AlterPartition handling: %v, FENCED_LEADER_EPOCH: %v; want both", tc.name, a, v)
		}
		for _, want := range []string{"leader b2 (epoch 2) has an AlterPartition pending: ISR {b2}, proposed {b1, b2}",
			"it sends to c1 (controller epoch 1), the highest controller epoch it has seen is 2", "c2 on b2 epoch 2 active"} {
			if !strings.Contains(res.Trace.Witness, want) {
				t.Errorf("%s: witness %q lacks %q", tc.name, res.Trace.Witness, want)
			}
		}
	}
}

// ControllerCacheMatchesStore, the diagnostic of KAFKA-5480: broken by the zombie's write in
// the buggy variant, kept with KAFKA-6082 (at the smaller KAFKA-14154 bounds for the ok case).
// Reference: KAFKA-5480; KAFKA-6082.
func TestControllerCacheMatchesStore(t *testing.T) {
	c := kafka.DefaultConfig()
	c.Version = "0.11" // before KAFKA-6082
	c.Brokers, c.MaxRecords, c.MaxEpoch = 3, 0, 4
	c.Controllers, c.ControllerBroker, c.Failover, c.Crash = 2, 3, 1, 2
	m, err := kafka.New(c)
	if err != nil {
		t.Fatal(err)
	}
	res := checker.Check[kafka.State](m, []checker.Property[kafka.State]{ControllerCacheMatchesStore.Build(m)}, checker.Options{Workers: 2})
	if res.Verdict != checker.Violated || res.Trace == nil {
		t.Fatalf("buggy: got %s, want violated", res.Verdict)
	}
	if a, _ := traceHas(res.Trace, "ControllerHandleBrokerFailure(1,2)", ""); !a {
		t.Errorf("buggy: the trace has no zombie write ControllerHandleBrokerFailure(1,2)")
	}
	if want := "ControllerCacheMatchesStore is false in state"; !strings.Contains(res.Trace.Witness, want) ||
		!strings.Contains(res.Trace.Witness, "the active controller c2 (on b") {
		t.Errorf("buggy: witness %q names no controller cache and store", res.Trace.Witness)
	}
	m, _ = kafka.New(cp14154(false, false))
	res = checker.Check[kafka.State](m, []checker.Property[kafka.State]{ControllerCacheMatchesStore.Build(m)}, checker.Options{Workers: 2})
	if res.Verdict != checker.OK {
		t.Errorf("KAFKA-6082: got %s, want ok", res.Verdict)
	}
}

// Without the control plane the new properties hold on an ordinary configuration (the single
// controller is always correct).
// Reference: issue 5.
func TestControlPlanePropertiesWithoutControlPlane(t *testing.T) {
	c := kafka.DefaultConfig()
	c.Brokers, c.MaxRecords, c.MaxEpoch, c.Crash = 2, 1, 3, 1
	m, _ := kafka.New(c)
	props := []checker.Property[kafka.State]{NoLeaderlessPartitionWithLiveISR.Build(m), NoStuckAlterPartition.Build(m),
		CaughtUpFollowerEventuallyInISR.Build(m), ControllerCacheMatchesStore.Build(m)}
	if res := checker.Check[kafka.State](m, props, checker.Options{Workers: 2}); res.Verdict != checker.OK {
		t.Errorf("got %s %q, want ok", res.Verdict, res.Property)
	}
}

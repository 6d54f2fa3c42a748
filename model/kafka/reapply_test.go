package kafka

import "testing"

// Reference: Partition.makeLeader (KAFKA-13790, 3.3.0 and later; 4.1.1 Partition.scala
// 738-767): under KRaft a leader skips partition state only at a lower partition epoch; at
// its own it applies it again, and the committed ISR replaces a pending AlterPartition
// (FINDINGS.md, the re-applied shrink). The proposal KAFKA-13790-keep-pending keeps it.
// ZooKeeper mode refuses a leader epoch that is not newer before Partition is reached.
func TestReappliedPartitionState(t *testing.T) {
	for _, tc := range []struct {
		name        string
		zk, keep    bool
		pepoch      uint8 // of the applied state; the leader is at 3
		wantPending bool
		wantMax     uint8 // the leader's maximal ISR after it
	}{
		{"kraft equal re-applied", false, false, 3, false, 0b01},
		{"kraft equal keep-pending", false, true, 3, true, 0b11},
		{"kraft lower skipped", false, false, 2, true, 0b11},
		{"kraft newer applied", false, true, 4, false, 0b01},
		{"zookeeper equal refused", true, false, 3, true, 0b11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			c.Brokers, c.MaxRecords, c.Version = 2, 2, "4.1.1"
			if tc.zk {
				c.Version = "3.9"
			} else {
				c.KRaft = true
			}
			if tc.keep {
				c.Switches = c.Switches.With(Kafka13790KeepPending, true)
			}
			m, err := New(c)
			if err != nil {
				t.Fatal(err)
			}
			var s State
			r := &s.B[0]
			r.Alive, r.Role, r.Leader, r.Epoch, r.PEpoch = true, RoleLeader, 1, 2, 3
			r.LEO, r.HW = 2, 1
			r.ISR, r.MaxISR, r.Pending = 0b01, 0b11, true // expanding to broker 2
			r.FLEO[1] = 1
			epoch := uint8(2)
			if tc.zk {
				r.PEpoch = 0
			}
			msg := Msg{Kind: MsgLeaderAndIsr, Epoch: epoch, Off: tc.pepoch, Last: 1, HW: 0b01}
			g := GuardKRaftReplayPartitionEpoch
			if tc.zk {
				msg.Off = 0
				g = GuardLeaderAndIsrEpoch
			}
			m.applyPartitionState(&s, 0, &msg, g)
			if r.Pending != tc.wantPending || r.MaxISR != tc.wantMax {
				t.Errorf("pending %v, maximal ISR %02b; want %v, %02b", r.Pending, r.MaxISR, tc.wantPending, tc.wantMax)
			}
			// The high watermark counts broker 2 (at offset 1) exactly while it is in the
			// maximal ISR.
			wantHW := uint8(1)
			if !tc.wantPending {
				wantHW = 2
			}
			if r.HW != wantHW {
				t.Errorf("high watermark %d; want %d", r.HW, wantHW)
			}
		})
	}
}

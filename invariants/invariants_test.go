package invariants

import (
	"testing"

	"kmc/checker"
	"kmc/model/kafka"
)

func newModel(t *testing.T, brokers, records int) *kafka.Model {
	t.Helper()
	c := kafka.DefaultConfig()
	c.Brokers, c.MaxRecords = brokers, records
	m, err := kafka.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// withLog sets broker b's log to es and its HW to hw.
func withLog(s *kafka.State, b int, hw uint8, es ...kafka.Entry) {
	r := &s.B[b]
	r.Log = [kafka.MaxLog]kafka.Entry{}
	copy(r.Log[:], es)
	r.LEO, r.HW = uint8(len(es)), hw
}

// Reference: each property's Ref (KIP-101, KAFKA-18723, KAFKA-13077, KIP-497).
func TestInvariants(t *testing.T) {
	m := newModel(t, 3, 3)
	base := m.Init(nil)[0]
	e := func(epoch, id uint8) kafka.Entry { return kafka.Entry{Epoch: epoch, ID: id} }
	tests := []struct {
		name string
		d    Descriptor
		edit func(s *kafka.State)
		want bool
		why  string // when want is false: the witness (Explain) of the state
	}{
		{"initial state", NoCommittedDataLoss, func(s *kafka.State) {}, true, ""},
		{"acked record on leader and ISR", NoCommittedDataLoss, func(s *kafka.State) {
			s.Acked[0] = 1
			for b := 0; b < 3; b++ {
				withLog(s, b, 1, e(1, 1))
			}
		}, true, ""},
		{"acked record missing on an ISR member", NoCommittedDataLoss, func(s *kafka.State) {
			s.Acked[0] = 1
			withLog(s, 0, 1, e(1, 1))
			withLog(s, 1, 1, e(1, 1))
		}, false, "r1 was acknowledged at offset 0; b3, in the controller's ISR {b1, b2, b3} and up, holds nothing (its log ends at 0) there (hw 0, leo 0)"},
		{"acked record missing on a member that is down", NoCommittedDataLoss, func(s *kafka.State) {
			s.Acked[0] = 1
			withLog(s, 0, 1, e(1, 1))
			withLog(s, 1, 1, e(1, 1))
			s.B[2].Alive = false
		}, true, ""},
		{"acked record missing on a restarted, unregistered member", NoCommittedDataLoss, func(s *kafka.State) {
			s.Acked[0] = 1
			withLog(s, 0, 1, e(1, 1))
			withLog(s, 1, 1, e(1, 1))
			s.B[2].Register = true
		}, true, ""},
		{"acked record replaced at its offset", NoCommittedDataLoss, func(s *kafka.State) {
			s.Acked[0] = 1
			for b := 0; b < 3; b++ {
				withLog(s, b, 1, e(1, 1))
			}
			withLog(s, 0, 1, e(2, 2))
		}, false, "r1 was acknowledged at offset 0; b1, the controller's leader and up, holds e2:r2 there (hw 1, leo 1)"},
		{"logs differ above the HWs", NoPermanentDivergence, func(s *kafka.State) {
			withLog(s, 0, 1, e(1, 1), e(1, 2))
			withLog(s, 1, 1, e(1, 1), e(2, 3))
		}, true, ""},
		{"logs differ below both HWs", NoPermanentDivergence, func(s *kafka.State) {
			withLog(s, 0, 2, e(1, 1), e(1, 2))
			withLog(s, 1, 2, e(1, 1), e(2, 3))
		}, false, "offset 1: b1 holds e1:r2, b2 holds e2:r3, both below their high watermarks (hw b1=2, b2=2)"},
		{"KAFKA-18723 mixed log", LogMatching, func(s *kafka.State) {
			withLog(s, 1, 0, e(1, 1), e(2, 4))
			withLog(s, 2, 0, e(2, 3), e(2, 4))
		}, false, "b2 and b3 both hold a batch of epoch 2 at offset 1, but at offset 0 b2 holds e1:r1 and b3 holds e2:r3"},
		{"diverging suffix", LogMatching, func(s *kafka.State) {
			withLog(s, 1, 0, e(1, 1), e(1, 2))
			withLog(s, 2, 0, e(1, 1), e(2, 3))
		}, true, ""},
		{"initial state", LeaderInISR, func(s *kafka.State) {}, true, ""},
		{"controller leader outside its ISR", LeaderInISR, func(s *kafka.State) { s.Ctrl.ISR = 0b110 }, false, "the controller's leader b1 (epoch 1) is not in its ISR {b2, b3}"},
		{"acting leader outside its own ISR", LeaderInISR, func(s *kafka.State) { s.B[0].ISR, s.B[0].MaxISR = 0b110, 0b110 }, false, "b1 acts as leader in epoch 1 with the ISR {b2, b3}, which lacks it"},
		{"two leaders in different epochs", OneLeaderPerEpoch, func(s *kafka.State) {
			s.B[1].Role, s.B[1].Epoch = kafka.RoleLeader, 2
		}, true, ""},
		{"two leaders in one epoch", OneLeaderPerEpoch, func(s *kafka.State) { s.B[1].Role = kafka.RoleLeader }, false, "b1 and b2 both act as leader in epoch 1"},
		{"cache matches log", EpochCacheMatchesLog, func(s *kafka.State) {
			withLog(s, 1, 0, e(1, 1), e(2, 2))
			s.B[1].Cache[0] = kafka.EpochEntry{Epoch: 1, Start: 0}
			s.B[1].Cache[1] = kafka.EpochEntry{Epoch: 2, Start: 1}
			s.B[1].NCache = 2
		}, true, ""},
		{"epoch missing from the cache (KAFKA-13077)", EpochCacheMatchesLog, func(s *kafka.State) {
			withLog(s, 1, 0, e(1, 1), e(2, 2), e(3, 3))
			s.B[1].Cache[0] = kafka.EpochEntry{Epoch: 1, Start: 0}
			s.B[1].Cache[1] = kafka.EpochEntry{Epoch: 3, Start: 2}
			s.B[1].NCache = 2
		}, false, "b2 holds e2:r2 at offset 1, but its leader-epoch cache {e1@0, e3@2} gives epoch 1 there"},
		{"epoch missing from the cache answers an older one", NoMissingEpoch, func(s *kafka.State) {
			withLog(s, 1, 0, e(1, 1), e(2, 2), e(3, 3))
			s.B[1].Cache[0] = kafka.EpochEntry{Epoch: 1, Start: 0}
			s.B[1].Cache[1] = kafka.EpochEntry{Epoch: 3, Start: 2}
			s.B[1].NCache = 2
		}, false, "b2's log has a batch of epoch 2 at offset 1, but its leader-epoch cache {e1@0, e3@2} answers endOffsetFor(2) with epoch 1, end offset 2"},
		// Reference: KAFKA-16541. specs/kafka-epoch-checkpoint.toml's state after the restart.
		{"a cache entry whose epoch no batch carries: a phantom", NoPhantomEpoch, func(s *kafka.State) {
			withLog(s, 1, 0, e(1, 1), e(1, 2))
			s.B[1].Cache[0] = kafka.EpochEntry{Epoch: 1, Start: 0}
			s.B[1].Cache[1] = kafka.EpochEntry{Epoch: 2, Start: 1}
			s.B[1].NCache = 2
		}, false, "b2's leader-epoch cache {e1@0, e2@1} has epoch 2 from offset 1, but no batch of its log carries epoch 2 (log [e1:r1, e1:r2]): a phantom epoch"},
		{"a new leader's entry at its log end is no phantom", NoPhantomEpoch, func(s *kafka.State) {
			withLog(s, 1, 0, e(1, 1))
			s.B[1].Cache[0] = kafka.EpochEntry{Epoch: 1, Start: 0}
			s.B[1].Cache[1] = kafka.EpochEntry{Epoch: 3, Start: 1}
			s.B[1].NCache = 2
		}, true, ""},
	}
	for _, tt := range tests {
		s := base
		tt.edit(&s)
		p := tt.d.Build(m)
		if got := p.State(&s); got != tt.want {
			t.Errorf("%s: %s = %v, want %v", tt.d.Name, tt.name, got, tt.want)
		}
		if !tt.want {
			if got := p.Explain(&s); got != tt.why {
				t.Errorf("%s: %s: witness\n  %s\nwant\n  %s", tt.d.Name, tt.name, got, tt.why)
			}
		}
	}
}

// Reference: KAFKA-15583 (the leader's HW only rises within an epoch).
func TestHighWatermarkMonotonic(t *testing.T) {
	m := newModel(t, 2, 2)
	from := m.Init(nil)[0]
	withLog(&from, 0, 2, kafka.Entry{Epoch: 1, ID: 1}, kafka.Entry{Epoch: 1, ID: 2})
	p := HighWatermarkMonotonic.Build(m)
	down := from
	down.B[0].HW = 1
	newEpoch := down
	newEpoch.B[0].Epoch = 2
	tests := []struct {
		name string
		to   kafka.State
		want bool
	}{
		{"unchanged", from, true},
		{"HW down in the same epoch", down, false},
		{"HW down in a new epoch", newEpoch, true},
	}
	for _, tt := range tests {
		if got := p.Step(&from, 0, &tt.to); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
		if !tt.want {
			want := "b1 leads epoch 1 before and after the step, and its high watermark goes down from 2 to 1"
			if got := p.ExplainStep(&from, 0, &tt.to); got != want {
				t.Errorf("%s: witness %q, want %q", tt.name, got, want)
			}
		}
	}
}

// Reference: KAFKA-13077 (the follower behind a stable leader is what the lasso keeps).
func TestFollowerEventuallyCatchesUp(t *testing.T) {
	m := newModel(t, 2, 2)
	s := m.Init(nil)[0]
	p := FollowerEventuallyCatchesUp.Build(m)
	if p.Kind != checker.LeadsTo || p.P(&s) || !p.Q(&s) {
		t.Fatalf("initial state: kind %s, P %v, Q %v; want leadsto, false, true", p.Kind, p.P(&s), p.Q(&s))
	}
	withLog(&s, 0, 0, kafka.Entry{Epoch: 1, ID: 1})
	if !p.P(&s) || p.Q(&s) {
		t.Errorf("follower behind: P %v, Q %v; want true, false", p.P(&s), p.Q(&s))
	}
	want := "follower b2 of leader b1 (epoch 1) has log end offset 0, the leader's is 1; b2's last fetched epoch is 0 and its cache is {}, the leader's {e1@0}"
	if got := p.Explain(&s); got != want {
		t.Errorf("follower behind: witness %q, want %q", got, want)
	}
	s.B[0].Alive = false
	if p.P(&s) {
		t.Errorf("leader down: P = true, want false")
	}
}

func TestDescriptors(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range All() {
		if d.Name == "" || d.Doc == "" || d.Ref == "" || d.Build == nil || seen[d.Name] {
			t.Errorf("descriptor %q: missing field or duplicate", d.Name)
		}
		seen[d.Name] = true
		p := d.Build(newModel(t, 2, 1))
		if p.Name != d.Name || p.Kind != d.Kind {
			t.Errorf("%s: built %s of kind %s, want kind %s", d.Name, p.Name, p.Kind, d.Kind)
		}
		if (p.Kind == checker.ActionProperty) != (p.ExplainStep != nil) || (p.Kind != checker.ActionProperty) != (p.Explain != nil) {
			t.Errorf("%s: a %s property needs a witness (Explain, or ExplainStep for an action property)", d.Name, p.Kind)
		}
	}
}

// Reference: min.insync.replicas (TopicConfig.MIN_IN_SYNC_REPLICAS_DOC). A step that
// acknowledges a record held by fewer than min_isr replicas breaks AckedOnMinISR; one that
// acknowledges it on enough replicas, or acknowledges nothing new, does not.
func TestAckedOnMinISR(t *testing.T) {
	c := kafka.DefaultConfig()
	c.Brokers, c.MaxRecords, c.MinISR = 3, 1, 2
	m, err := kafka.New(c)
	if err != nil {
		t.Fatal(err)
	}
	p := AckedOnMinISR.Build(m)
	from := m.Init(nil)[0]
	withLog(&from, 0, 0, kafka.Entry{Epoch: 1, ID: 1})
	one := from
	one.B[0].HW, one.Acked[0] = 1, 1
	two := one
	withLog(&two, 1, 1, kafka.Entry{Epoch: 1, ID: 1})
	tests := []struct {
		name     string
		from, to kafka.State
		want     bool
	}{
		{"no acknowledgement", from, from, true},
		{"acknowledged on b1 only", from, one, false},
		{"acknowledged on b1 and b2", from, two, true},
		{"acknowledged before the step", one, one, true},
	}
	for _, tt := range tests {
		if got := p.Step(&tt.from, 0, &tt.to); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
	want := "r1 is acknowledged at offset 0 while only {b1} hold it; min_isr is 2"
	if got := p.ExplainStep(&from, 0, &one); got != want {
		t.Errorf("witness %q, want %q", got, want)
	}
}

// Reference: Partition.checkEnoughReplicasReachOffset (NOT_ENOUGH_REPLICAS_AFTER_APPEND)
// and KAFKA-15583. Two brokers, min_isr 2, one lag shrink: with every guard on no record is
// acknowledged on one replica; with the completion check off (AckMinISR) 3.3 acknowledges
// a record the leader alone holds after the shrink, while 4.1's high watermark gate
// (KAFKA-15583) keeps the high watermark, so the mutant still passes there.
func TestAckedOnMinISRCatchesAckMinISR(t *testing.T) {
	for _, tt := range []struct {
		version string
		mutate  uint32
		want    checker.Verdict
	}{
		{"3.3", 0, checker.OK},
		{"3.3", kafka.GuardBit(kafka.GuardAckMinISR), checker.Violated},
		{"3.3", kafka.GuardBit(kafka.GuardAppendMinISR), checker.OK},
		{"4.1", kafka.GuardBit(kafka.GuardAckMinISR), checker.OK},
		{"4.1", kafka.GuardBit(kafka.GuardAckMinISR) | kafka.GuardBit(kafka.GuardAppendMinISR), checker.OK},
	} {
		c := kafka.DefaultConfig()
		c.Version, c.Brokers, c.MaxRecords, c.MinISR, c.Lag, c.Mutate = tt.version, 2, 1, 2, 1, tt.mutate
		m, err := kafka.New(c)
		if err != nil {
			t.Fatal(err)
		}
		res := checker.Check[kafka.State](m, []checker.Property[kafka.State]{AckedOnMinISR.Build(m), NoCommittedDataLoss.Build(m)}, checker.Options{Workers: 1})
		if res.Verdict != tt.want || (tt.want == checker.Violated && res.Property != "AckedOnMinISR") {
			t.Errorf("%s, mutate %#x: got %s %q, want %s", tt.version, tt.mutate, res.Verdict, res.Property, tt.want)
		}
	}
}

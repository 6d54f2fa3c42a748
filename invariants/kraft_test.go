package invariants

import (
	"strings"
	"testing"

	"kmc/model/kafka"
)

// Reference: KIP-966. Each KIP-966 property is false, with its witness text, in a state
// built to break it, and true in the initial state.
func TestKIP966Properties(t *testing.T) {
	c := kafka.DefaultConfig()
	c.KRaft, c.Switches, c.Brokers, c.MinISR, c.MaxRecords, c.Version = true, c.Switches.With(kafka.KIP966, true), 3, 2, 1, "4.0.1"
	m, err := kafka.New(c)
	if err != nil {
		t.Fatal(err)
	}
	init := m.Init(nil)[0]
	for _, tc := range []struct {
		d      Descriptor
		mutate func(s *kafka.State)
		want   string
	}{
		{ValidControllerIsrAndElr, func(s *kafka.State) { s.KR.ELR = 1 << 2 }, "ELR {b3} and ISR {b1, b2, b3} share {b3}"},
		{ValidControllerIsrAndElr, func(s *kafka.State) { s.Ctrl.ISR, s.KR.ELR = 3, 4 }, "has min.insync.replicas = 2 members but the ELR is {b3}"},
		{ValidControllerIsrAndElr, func(s *kafka.State) { s.KR.Fenced = 1 }, "fenced {b1} is in the ISR"},
		{MinIsrRecoveryQuorum, func(s *kafka.State) { s.Ctrl.ISR, s.KR.LastELR = 0, 3 }, "the last known ELR {b1, b2} has 2 members, not the last leader alone"},
		{LeaderCandidateCompleteness, func(s *kafka.State) { s.Acked[0], s.Ctrl.ISR, s.KR.ELR = 1, 1, 2 }, "r1 was acknowledged at offset 0; b1, in the controller's ISR"},
	} {
		p := tc.d.Build(m)
		if !p.State(&init) {
			t.Errorf("%s: false in the initial state", tc.d.Name)
		}
		s := init
		tc.mutate(&s)
		if p.State(&s) {
			t.Errorf("%s: got true, want false in\n%s", tc.d.Name, m.Format(&s))
			continue
		}
		if got := p.Explain(&s); !strings.Contains(got, tc.want) {
			t.Errorf("%s: explanation %q, want it to hold %q", tc.d.Name, got, tc.want)
		}
	}
}

package kafka

import (
	"bytes"
	"strings"
	"testing"
)

// Reference: issue 26, defect 11 (a checkpoint's states shortened, emptied or set to 0xFF
// panicked in the models' Decode).

// decodeConfigs are configurations whose reachable states seed the decoding tests: the
// ZooKeeper model with every fault, with the control plane, and with KRaft.
func decodeConfigs() []Config {
	return []Config{allFaults(), cpConfigs()[0], kraftConfig(true)}
}

// TestDecodeChecked: every reachable state's encoding decodes back to it, those holding a
// LeaderAndIsr marked LapsedLeadership too (the first two configurations reach some);
// shortened, emptied, lengthened and 0xFF encodings are errors.
func TestDecodeChecked(t *testing.T) {
	lapsed := 0
	defer func() {
		if lapsed == 0 {
			t.Error("no reachable state holds a lapsed LeaderAndIsr: the test no longer covers them")
		}
	}()
	for _, c := range decodeConfigs() {
		m, states := reachable(t, c, 3000)
		for i := range states {
			for _, g := range states[i].Net.Msgs[:states[i].Net.Len] {
				if g.Kind == MsgLeaderAndIsr && g.Err&LapsedLeadership != 0 {
					lapsed++
				}
			}
			var back State
			if err := m.DecodeChecked(m.Encode(&states[i], nil), &back); err != nil || back != states[i] {
				t.Fatalf("%+v: state %d: got %v", c, i, err)
			}
		}
		good := m.Encode(&states[len(states)-1], nil)
		for name, b := range map[string][]byte{
			"emptied":    nil,
			"shortened":  good[:len(good)-1],
			"lengthened": append(append([]byte(nil), good...), 0),
			"0xFF":       bytes.Repeat([]byte{0xff}, len(good)),
		} {
			var s State
			if err := m.DecodeChecked(b, &s); err == nil || !strings.HasPrefix(err.Error(), "model: ") {
				t.Errorf("%s: got %v, want an error", name, err)
			}
		}
	}
}

// FuzzDecodeChecked: DecodeChecked of any bytes returns an error or a state that encodes
// back to them, never a panic. Seeded with the encodings of the states of a walk through
// each configuration of decodeConfigs (the model decoding is the input's first byte,
// mod 3), which takes the successors in turn.
func FuzzDecodeChecked(f *testing.F) {
	var models []*Model
	for k, c := range decodeConfigs() {
		m, err := New(c)
		if err != nil {
			f.Fatal(err)
		}
		models = append(models, m)
		s := m.Init(nil)[0]
		var succ []State
		var acts []uint64
		for i := range 200 {
			if i%10 == 0 {
				f.Add(append([]byte{byte(k)}, m.Encode(&s, nil)...))
			}
			if succ, acts = m.Next(&s, succ[:0], acts[:0]); len(succ) == 0 {
				break
			}
			s = succ[i%len(succ)]
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		m := models[int(b[0])%len(models)]
		var s State
		if err := m.DecodeChecked(b[1:], &s); err != nil {
			return
		}
		if enc := m.Encode(&s, nil); !bytes.Equal(enc, b[1:]) {
			t.Fatalf("decoded state encodes as %x, not %x", enc, b[1:])
		}
	})
}

// TestDecodeAllocationFree: the bounds-checked Decode, on the engine's hot path, allocates
// nothing.
func TestDecodeAllocationFree(t *testing.T) {
	for _, c := range decodeConfigs() {
		m, states := reachable(t, c, 200)
		enc := m.Encode(&states[len(states)-1], nil)
		var s State
		if a := testing.AllocsPerRun(100, func() { m.Decode(enc, &s) }); a != 0 {
			t.Errorf("%+v: Decode allocates %v times", c, a)
		}
	}
}

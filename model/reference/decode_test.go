package reference

import (
	"bytes"
	"strings"
	"testing"
)

// Reference: issue 26, defect 11 (a checkpoint's states shortened, emptied or set to 0xFF
// panicked in the models' Decode).

// exploreAsync returns AsyncIsr's reachable states for c.
func exploreAsync(t testing.TB, c AsyncConfig) (*AsyncModel, []AsyncState) {
	m, err := NewAsyncIsr(c)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	level := m.Init(nil)
	var states, succ []AsyncState
	var acts []uint64
	for len(level) > 0 {
		var next []AsyncState
		for i := range level {
			k := string(m.Encode(&level[i], nil))
			if seen[k] {
				continue
			}
			seen[k] = true
			states = append(states, level[i])
			succ, acts = m.Next(&level[i], succ[:0], acts[:0])
			next = append(next, succ...)
		}
		level = next
	}
	return m, states
}

// damaged are encodings that DecodeChecked refuses, made from a good one.
func damaged(good []byte) map[string][]byte {
	return map[string][]byte{
		"emptied":    nil,
		"shortened":  good[:len(good)-1],
		"lengthened": append(append([]byte(nil), good...), 0),
		"0xFF":       bytes.Repeat([]byte{0xff}, len(good)),
	}
}

// TestDecodeChecked: every reachable state's encoding decodes back to it, in every variant
// and in AsyncIsr; shortened, emptied, lengthened and 0xFF encodings are errors.
func TestDecodeChecked(t *testing.T) {
	for _, c := range crossCheckConfigs {
		m := mustNew(t, c)
		res := explorePort(m, false)
		for i := range res.states {
			var back State
			if err := m.DecodeChecked(m.Encode(&res.states[i], nil), &back); err != nil || back != res.states[i] {
				t.Fatalf("%+v: got %+v, %v; want %+v", c, back, err, res.states[i])
			}
		}
		for name, b := range damaged(m.Encode(&res.states[len(res.states)-1], nil)) {
			var s State
			if err := m.DecodeChecked(b, &s); err == nil || !strings.HasPrefix(err.Error(), "reference: decode: ") {
				t.Errorf("%+v: %s: got %v, want an error", c, name, err)
			}
		}
	}
	for _, c := range []AsyncConfig{{Replicas: 2, MaxOffset: 2, MaxVersion: 3}, {Replicas: 3, MaxOffset: 2, MaxVersion: 3}} {
		m, states := exploreAsync(t, c)
		for i := range states {
			var back AsyncState
			if err := m.DecodeChecked(m.Encode(&states[i], nil), &back); err != nil || back != states[i] {
				t.Fatalf("%+v: got %+v, %v; want %+v", c, back, err, states[i])
			}
		}
		for name, b := range damaged(m.Encode(&states[len(states)-1], nil)) {
			var s AsyncState
			if err := m.DecodeChecked(b, &s); err == nil || !strings.HasPrefix(err.Error(), "reference: decode: ") {
				t.Errorf("%+v: %s: got %v, want an error", c, name, err)
			}
		}
	}
}

// decoder is what fuzzDecode needs of Model and AsyncModel.
type decoder[S any] interface {
	DecodeChecked(buf []byte, s *S) error
	Encode(s *S, buf []byte) []byte
	Next(s *S, succ []S, acts []uint64) ([]S, []uint64)
	NextCut(s *S, succ []S, acts []uint64, cut []uint64, by []int) ([]S, []uint64, []uint64, []int)
	Vars() []string
	AppendValue(s *S, v int, buf []byte) []byte
}

// fuzzDecode seeds f with the encodings of some of states and checks that DecodeChecked of
// any bytes returns an error or a state that encodes back to them and that m can step
// from (with cuts), print and check (more), never a panic.
func fuzzDecode[S any](f *testing.F, m decoder[S], states []S, more func(*S)) {
	for i := 0; i < len(states); i += len(states)/40 + 1 {
		f.Add(m.Encode(&states[i], nil))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s S
		if err := m.DecodeChecked(b, &s); err != nil {
			return
		}
		if enc := m.Encode(&s, nil); !bytes.Equal(enc, b) {
			t.Fatalf("decoded %+v encodes as %x, not %x", s, enc, b)
		}
		m.Next(&s, nil, nil)
		m.NextCut(&s, nil, nil, nil, nil)
		for v := range m.Vars() {
			m.AppendValue(&s, v, nil)
		}
		more(&s)
	})
}

// FuzzDecodeChecked: fuzzDecode for Kip320, seeded with the encodings of reachable states.
func FuzzDecodeChecked(f *testing.F) {
	m := mustNew(f, Config{Variant: Kip320, Replicas: 3, LogSize: 2, MaxRecords: 2, MaxLeaderEpoch: 2})
	fuzzDecode[State](f, m, explorePort(m, false).states, func(s *State) { m.Canonicalize(s) })
}

// FuzzAsyncDecodeChecked is FuzzDecodeChecked for AsyncIsr.
func FuzzAsyncDecodeChecked(f *testing.F) {
	m, states := exploreAsync(f, AsyncConfig{Replicas: 3, MaxOffset: 2, MaxVersion: 3})
	fuzzDecode[AsyncState](f, m, states, func(s *AsyncState) { m.ValidHighWatermark(s) })
}

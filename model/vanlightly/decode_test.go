package vanlightly

import (
	"bytes"
	"strings"
	"testing"
)

// Reference: issue 26, defect 11 (a checkpoint's states shortened, emptied or set to 0xFF
// panicked in the models' Decode).

// TestDecodeChecked: every reachable state's encoding decodes back to it; shortened,
// emptied, lengthened and 0xFF encodings are errors.
func TestDecodeChecked(t *testing.T) {
	for _, c := range smallConfigs {
		m := mustNew(t, c)
		res := explorePort(m, false)
		for i := range res.states {
			var back State
			if err := m.DecodeChecked(m.Encode(&res.states[i], nil), &back); err != nil || back != res.states[i] {
				t.Fatalf("%+v: got %+v, %v; want %+v", c, back, err, res.states[i])
			}
		}
		good := m.Encode(&res.states[len(res.states)-1], nil)
		for name, b := range map[string][]byte{
			"emptied":    nil,
			"shortened":  good[:len(good)-1],
			"lengthened": append(append([]byte(nil), good...), 0),
			"0xFF":       bytes.Repeat([]byte{0xff}, len(good)),
		} {
			var s State
			if err := m.DecodeChecked(b, &s); err == nil || !strings.HasPrefix(err.Error(), "vanlightly: decode: ") {
				t.Errorf("%s: got %v, want an error", name, err)
			}
		}
	}
}

// FuzzDecodeChecked: DecodeChecked of any bytes returns an error or a state that encodes
// back to them and that prints, never a panic. Seeded with the encodings of reachable
// states. (A state that decodes but that no behaviour reaches may still stop a step as
// TLC stops with an evaluation error: LogEntry outside a log's domain. The checker resumes
// only states of the snapshot's fingerprint set.)
func FuzzDecodeChecked(f *testing.F) {
	m := mustNew(f, smallConfigs[0])
	res := explorePort(m, false)
	for i := 0; i < len(res.states); i += len(res.states)/40 + 1 {
		f.Add(m.Encode(&res.states[i], nil))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s State
		if err := m.DecodeChecked(b, &s); err != nil {
			return
		}
		if enc := m.Encode(&s, nil); !bytes.Equal(enc, b) {
			t.Fatalf("decoded state encodes as %x, not %x", enc, b)
		}
		for v := range m.Vars() {
			m.AppendValue(&s, v, nil)
		}
		m.View(b)
	})
}

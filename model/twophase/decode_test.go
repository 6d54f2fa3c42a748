package twophase

import (
	"bytes"
	"testing"
)

// Reference: issue 26, defect 11 (a checkpoint's states shortened, emptied or set to 0xFF
// panicked in Decode).

// TestDecodeChecked: every reachable state's encoding decodes back to it; shortened,
// emptied, lengthened and 0xFF encodings, and states out of their type, are errors.
func TestDecodeChecked(t *testing.T) {
	m := New(3)
	_, states, _, _ := modelSearch(t, m)
	for i := range states {
		enc := m.Encode(&states[i], nil)
		var back State
		if err := m.DecodeChecked(enc, &back); err != nil || back != states[i] {
			t.Fatalf("state %+v: got %+v, %v", states[i], back, err)
		}
	}
	good := m.Encode(&states[len(states)-1], nil)
	tests := []struct {
		name string
		buf  []byte
		want string
	}{
		{"emptied", nil, "twophase: decode: 0 bytes, want 6 for 3 RMs"},
		{"shortened", good[:5], "twophase: decode: 5 bytes, want 6 for 3 RMs"},
		{"lengthened", append(append([]byte(nil), good...), 0), "twophase: decode: 7 bytes, want 6 for 3 RMs"},
		{"0xFF", bytes.Repeat([]byte{0xff}, 6), "twophase: decode: flag byte 255 has bits Encode never sets"},
		{"RM beyond N", []byte{0xc0, 0, 0, 0, 0, 0}, "twophase: decode: rmState[rm4] = aborted, but there are only 3 RMs"},
		{"tmState", []byte{0, 3, 0, 0, 0, 0}, "twophase: decode: tmState = 3, tmPrepared = 0 or the prepared messages 0 are out of their types"},
	}
	for _, tc := range tests {
		var s State
		if err := m.DecodeChecked(tc.buf, &s); err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v, want %s", tc.name, err, tc.want)
		}
	}
}

// FuzzDecodeChecked: DecodeChecked of any bytes returns an error or a state that encodes
// back to them and that the model can step from and print, never a panic. Seeded with the
// encodings of reachable states.
func FuzzDecodeChecked(f *testing.F) {
	m := New(3)
	_, states, _, _ := modelSearch(f, m)
	for i := 0; i < len(states); i += 7 {
		f.Add(m.Encode(&states[i], nil))
	}
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0xff}, 6))
	f.Fuzz(func(t *testing.T, b []byte) {
		var s State
		if err := m.DecodeChecked(b, &s); err != nil {
			return
		}
		if enc := m.Encode(&s, nil); !bytes.Equal(enc, b) {
			t.Fatalf("decoded %+v encodes as %x, not %x", s, enc, b)
		}
		m.Next(&s, nil, nil)
		for v := range m.Vars() {
			m.AppendValue(&s, v, nil)
		}
	})
}

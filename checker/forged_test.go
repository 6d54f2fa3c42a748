package checker

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// Reference: issue 26, defect 11 (a checkpoint edited with its checksums recomputed: its
// frontier states shortened, emptied or set to 0xFF panicked in the model's Decode).

// forgeState rewrites state k of the frontier section tag (CURR or NEXT) of snapshot snap
// with f applied to its bytes, moves the states after it and recomputes the checksums.
func forgeState(t *testing.T, snap []byte, tag string, k int, f func([]byte) []byte) []byte {
	t.Helper()
	off := sectionOffset(t, snap, tag)
	n := int(binary.LittleEndian.Uint64(snap[off+4:]))
	p := off + 12
	base, count := binary.LittleEndian.Uint64(snap[p:]), int(binary.LittleEndian.Uint64(snap[p+8:]))
	if k >= count {
		t.Fatalf("section %s has %d states, not %d", tag, count, k+1)
	}
	offs := make([]uint64, count+1)
	for i := range offs {
		offs[i] = binary.LittleEndian.Uint64(snap[p+16+8*i:])
	}
	arena := snap[p+16+8*(count+1) : off+12+n]
	var states [][]byte
	for i := range count {
		states = append(states, append([]byte(nil), arena[offs[i]:offs[i+1]]...))
	}
	states[k] = f(states[k])
	var pay []byte
	pay = binary.LittleEndian.AppendUint64(pay, base)
	pay = binary.LittleEndian.AppendUint64(pay, uint64(count))
	end := uint64(0)
	pay = binary.LittleEndian.AppendUint64(pay, 0)
	for _, s := range states {
		end += uint64(len(s))
		pay = binary.LittleEndian.AppendUint64(pay, end)
	}
	for _, s := range states {
		pay = append(pay, s...)
	}
	out := append([]byte(nil), snap[:off]...)
	out = append(out, tag...)
	out = binary.LittleEndian.AppendUint64(out, uint64(len(pay)))
	out = append(out, pay...)
	out = append(out, 0, 0, 0, 0)
	out = append(out, snap[off+12+n+4:]...)
	fixChecksums(out)
	return out
}

// strict is counters whose Decode panics on bytes of the wrong length, as a model's may.
type strict struct{ counters }

func (m strict) Decode(b []byte, s *cstate) {
	_ = b[nCounters-1]
	_ = b[:nCounters:nCounters]
	m.counters.Decode(b, s)
}

// checkedStrict is strict with a CheckedDecoder, which the engine uses instead.
type checkedStrict struct{ strict }

func (m checkedStrict) DecodeChecked(b []byte, s *cstate) error {
	if len(b) != nCounters {
		return errors.New("counters: " + itoa(len(b)) + " bytes, want " + itoa(nCounters))
	}
	m.Decode(b, s)
	return nil
}

// frontierLen is the number of states in frontier section tag of snap.
func frontierLen(t *testing.T, snap []byte, tag string) int {
	off := sectionOffset(t, snap, tag)
	return int(binary.LittleEndian.Uint64(snap[off+12+8:]))
}

// TestForgedSnapshotStates: a snapshot whose checksums are right but whose frontier
// states were shortened, emptied or overwritten with 0xFF is refused with an error that
// names the state, never a panic: the state must decode (CheckedDecoder, or Decode without
// a panic), encode back to its bytes, and be the snapshot's state of its index.
func TestForgedSnapshotStates(t *testing.T) {
	defer small()()
	for _, m := range []Model[cstate]{strict{counters{N: 3}}, checkedStrict{strict{counters{N: 3}}}} {
		for _, props := range [][]Property[cstate]{{sumIs(100)}, {sumIs(100), enters0()}} {
			testForged(t, m, props)
		}
	}
}

func testForged(t *testing.T, m Model[cstate], props []Property[cstate]) {
	var snap []byte
	Check[cstate](m, props, Options{Workers: 1, CheckpointAt: func(d int, _ int64) bool { return snap == nil && d > 3 },
		Checkpoint: func(s *Snapshot) {
			if b := writeSnap(t, s); frontierLen(t, b, "CURR") > 0 && frontierLen(t, b, "NEXT") > 0 {
				snap = b
			}
		}})
	if snap == nil {
		t.Fatal("no checkpoint with both frontiers")
	}
	forgeries := []struct {
		name string
		f    func([]byte) []byte
		want string
	}{
		{"shortened", func(b []byte) []byte { return b[:len(b)-1] }, "does not decode: "},
		{"emptied", func(b []byte) []byte { return nil }, "does not decode: "},
		{"0xFF", func(b []byte) []byte { return bytes.Repeat([]byte{0xff}, len(b)) }, "is not a state of the snapshot"},
		{"lengthened", func(b []byte) []byte { return append(b, 0) }, "resume: state "}, // does not decode, or not back
	}
	for _, tag := range []string{"CURR", "NEXT"} {
		for _, fg := range forgeries {
			b := forgeState(t, snap, tag, 0, fg.f)
			s, err := ReadSnapshot(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				continue // refused already: fine
			}
			got := Check[cstate](m, props, Options{Workers: 2, Resume: s})
			if got.Verdict != Incomplete || !strings.HasPrefix(got.Reason, "resume: ") || !strings.Contains(got.Reason, fg.want) {
				t.Errorf("%T, %s, %s: got %s %q, want incomplete, resume: ... %s", m, tag, fg.name, got.Verdict, got.Reason, fg.want)
			}
		}
	}
	// Another state of the snapshot in the place of a frontier state: refused where the set
	// keeps the states' indices (a search that checks liveness), as a state of another index.
	b := forgeState(t, snap, "NEXT", 0, func([]byte) []byte { return []byte{0, 0, 0, 1} })
	if s, err := ReadSnapshot(bytes.NewReader(b), int64(len(b))); err == nil && len(props) > 1 {
		got := Check[cstate](m, props, Options{Workers: 1, Resume: s})
		if got.Verdict != Incomplete || !strings.Contains(got.Reason, "is state 4 of the snapshot") {
			t.Errorf("another state: got %s %q, want incomplete naming state 4", got.Verdict, got.Reason)
		}
	}
	// Unforged, it resumes.
	if got := Check[cstate](m, props, Options{Workers: 2, Resume: readSnap(t, snap)}); got.Verdict == Incomplete {
		t.Errorf("unforged: got %s %q", got.Verdict, got.Reason)
	}
}

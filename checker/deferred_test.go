package checker

import (
	"strings"
	"testing"
)

// priority is a small model whose symmetry needs a choice left open (Deferring), as
// Kafka's elections do: three processes; a process becomes ready, a free token goes to the
// ready process that comes first in a fixed priority order (0, 1, 2), and its holder
// releases it and is done. Process 0 comes first in every order; 1 and 2 are
// interchangeable only with their order left open, each election revealing it.
type priority struct {
	badSettle bool // Settle renames exactly when it should not (to test the engine's check)
}

type pstate struct {
	Ready  uint8 // process i ready: bit i
	Done   uint8 // processes done: bit i
	Holder int8  // -1: the token is free
	Open   bool  // the order is open; After[i] the processes known to come after i
	After  [3]uint8
}

const (
	pReady = iota
	pElect
	pRelease
)

func (priority) Init(buf []pstate) []pstate { return append(buf, pstate{Holder: -1}) }

func (priority) InitDeferred(buf []pstate) ([]pstate, bool) {
	return append(buf, pstate{Holder: -1, Open: true, After: [3]uint8{0b110, 0, 0}}), true
}

// firsts is the set of processes of cand that can come first.
func (s *pstate) firsts(cand uint8) uint8 {
	if !s.Open {
		return cand & -cand
	}
	f := cand
	for i := range 3 {
		if cand&(1<<i) != 0 {
			f &^= s.After[i]
		}
	}
	return f
}

func (m priority) Next(s *pstate, succ []pstate, acts []uint64) ([]pstate, []uint64) {
	for i := range 3 {
		if bit := uint8(1) << i; s.Ready&bit == 0 && s.Done&bit == 0 && int(s.Holder) != i {
			t := *s
			t.Ready |= bit
			succ, acts = append(succ, t), append(acts, uint64(pReady|i<<4))
		}
	}
	if s.Holder < 0 && s.Ready != 0 {
		f := s.firsts(s.Ready)
		for i := range 3 {
			if f&(1<<i) == 0 {
				continue
			}
			t := *s
			t.Holder, t.Ready = int8(i), s.Ready&^(1<<i)
			if t.Open {
				t.After[i] |= s.Ready &^ (1 << i)
			}
			succ, acts = append(succ, t), append(acts, pElect)
		}
	}
	if s.Holder >= 0 {
		t := *s
		t.Done |= 1 << s.Holder
		t.Holder = -1
		succ, acts = append(succ, t), append(acts, pRelease)
	}
	return succ, acts
}

// swap renames processes 1 and 2.
func (s *pstate) swap() pstate {
	sw := func(x uint8) uint8 { return x&1 | x>>1&2 | x<<1&4 }
	t := pstate{Ready: sw(s.Ready), Done: sw(s.Done), Holder: s.Holder, Open: s.Open}
	if s.Holder > 0 {
		t.Holder = 3 - s.Holder
	}
	t.After = [3]uint8{sw(s.After[0]), sw(s.After[2]), sw(s.After[1])}
	return t
}

func (m priority) Canonicalize(s *pstate) {
	if t := s.swap(); string(m.Encode(&t, nil)) < string(m.Encode(s, nil)) {
		*s = t
	}
}

func (m priority) Settle(states []pstate) {
	last := states[len(states)-1]
	rename := last.Open && last.After[2]&2 != 0 // 2 comes before 1: rename so that 1 does
	for j := range states {
		if rename != m.badSettle {
			states[j] = states[j].swap()
		}
		states[j].Open, states[j].After = false, [3]uint8{}
	}
}

func (priority) Encode(s *pstate, buf []byte) []byte {
	var o uint8
	if s.Open {
		o = 1
	}
	return append(buf, s.Ready, s.Done, uint8(s.Holder), o, s.After[0], s.After[1], s.After[2])
}

func (priority) Decode(buf []byte, s *pstate) {
	*s = pstate{Ready: buf[0], Done: buf[1], Holder: int8(buf[2]), Open: buf[3] != 0,
		After: [3]uint8{buf[4], buf[5], buf[6]}}
}

func (priority) Vars() []string { return []string{"ready", "done", "holder"} }

func (priority) AppendValue(s *pstate, v int, buf []byte) []byte {
	x := []int{int(s.Ready), int(s.Done), int(s.Holder)}[v]
	return append(buf, `{"#bigint":"`+itoa(x)+`"}`...)
}

func (priority) ActionName(a uint64) string {
	return []string{"Ready", "Elect", "Release"}[a&15] + "(" + itoa(int(a>>4)) + ")"
}
func (priority) ActionKind(a uint64) int { return int(a & 15) }
func (priority) ActionKinds() []string   { return []string{"Ready", "Elect", "Release"} }
func (priority) Fairness(int) int        { return 0 }

// priorityProps: "no process other than 0 is done while the other waits": a symmetric
// property (its renaming is itself), which fails only after an election with processes 1
// and 2 both ready, one revealed before the other.
func priorityProps() []Property[pstate] {
	return []Property[pstate]{{Name: "NoneDoneWhileOtherWaits", Kind: Invariant, State: func(s *pstate) bool {
		return !(s.Done == 0b010 && s.Ready == 0b100 || s.Done == 0b100 && s.Ready == 0b010)
	}}}
}

// TestDeferred: a search under symmetry of a model that leaves a choice open starts from
// InitDeferred's states, finds the violation with a shortest trace of the plain search's
// length, settles the trace into a behaviour of the plain model (which replays), and reports
// that the order was open and no unreduced count, for 1 and 2 workers alike; the same model
// without Symmetry is the plain search. A Settle that gives no behaviour of the model is
// caught with a message naming the step.
func TestDeferred(t *testing.T) {
	m := priority{}
	plain := Check[pstate](m, priorityProps(), Options{Workers: 1})
	var first string
	for _, w := range []int{1, 2} {
		sym := Check[pstate](m, priorityProps(), Options{Workers: w, Symmetry: true})
		if sym.Verdict != Violated || plain.Verdict != Violated {
			t.Fatalf("workers %d: got %s with symmetry, %s without; want both violated", w, sym.Verdict, plain.Verdict)
		}
		if !sym.Stats.Symmetry || !sym.Stats.Deferred || sym.Stats.Unreduced != 0 || plain.Stats.Symmetry || plain.Stats.Deferred {
			t.Errorf("workers %d: stats %+v with symmetry, %+v without", w, sym.Stats, plain.Stats)
		}
		if sym.Stats.Distinct >= plain.Stats.Distinct {
			t.Errorf("workers %d: %d states with symmetry, %d without: want fewer", w, sym.Stats.Distinct, plain.Stats.Distinct)
		}
		if len(sym.Trace.States) != len(plain.Trace.States) {
			t.Errorf("workers %d: a trace of %d states with symmetry, %d without", w, len(sym.Trace.States), len(plain.Trace.States))
		}
		rep, err := replay[pstate](m, priorityProps(), sym.Trace)
		if err != nil || len(rep.Violates) != 1 {
			t.Errorf("workers %d: the settled trace does not replay in the plain model: %v %+v", w, err, rep)
		}
		var b strings.Builder
		for _, st := range sym.Trace.States {
			b.WriteString(st.Action + strings.Join(st.Values, ",") + ";")
		}
		if w == 1 {
			first = b.String()
		} else if b.String() != first {
			t.Errorf("the trace with 2 workers differs from the one with 1:\n%s\n%s", b.String(), first)
		}
	}
	defer func() {
		r := recover()
		if s, ok := r.(string); !ok || !strings.Contains(s, "trace settle: step") {
			t.Errorf("a Settle that renames the wrong way: got %v, want the engine's settle panic", r)
		}
	}()
	Check[pstate](priority{badSettle: true}, priorityProps(), Options{Workers: 1, Symmetry: true})
	t.Errorf("a Settle that renames the wrong way went unnoticed")
}

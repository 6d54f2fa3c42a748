// Package twophase is the two-phase commit protocol of the TLA+ examples (Lamport's
// TwoPhase.tla): a transaction manager (TM) and N resource managers (RMs) that exchange
// messages kept as a set, so a message once sent can be received any number of times.
// It is a textbook model used to test and benchmark the engine. It has no model bound
// (checker.Bounded): the protocol's own state space is finite, every RM takes each step at
// most once, so no step is ever cut and a liveness verdict never depends on a bound.
//
// The package satisfies checker.Model[State] using only built-in types and imports only
// the standard library.
package twophase

import (
	"encoding/binary"
	"errors"
	"strconv"
)

// MaxRM is the largest number of resource managers a Model supports.
const MaxRM = 16

// RMState is the state of one resource manager.
type RMState uint8

// Resource-manager states, as in TwoPhase.tla.
const (
	Working RMState = iota
	Prepared
	Committed
	Aborted
)

var rmStateNames = [...]string{"working", "prepared", "committed", "aborted"}

func (r RMState) String() string {
	if int(r) < len(rmStateNames) {
		return rmStateNames[r]
	}
	return "RMState(" + strconv.Itoa(int(r)) + ")"
}

// RMs holds the state of every resource manager, two bits each: RM r's in bits 2r, 2r+1.
type RMs uint32

// RMsOf returns the RM states sts, RM 0 first; the others are Working.
func RMsOf(sts ...RMState) RMs {
	var x RMs
	for r, st := range sts {
		x = x.With(r, st)
	}
	return x
}

// Of is RM r's state.
func (x RMs) Of(r int) RMState { return RMState(x>>(2*r)) & 3 }

// With is x with RM r in state st.
func (x RMs) With(r int, st RMState) RMs { return x&^(3<<(2*r)) | RMs(st&3)<<(2*r) }

// TMState is the state of the transaction manager.
type TMState uint8

// Transaction-manager states, as in TwoPhase.tla.
const (
	TMInit TMState = iota
	TMCommitted
	TMAborted
)

var tmStateNames = [...]string{"init", "committed", "aborted"}

func (t TMState) String() string {
	if int(t) < len(tmStateNames) {
		return tmStateNames[t]
	}
	return "TMState(" + strconv.Itoa(int(t)) + ")"
}

// State is one state of the protocol. RMs are numbered 0..N-1 internally and printed as
// rm1..rmN. Invariants of the type, for a Model with N RMs (checked by TCTypeOK):
//  1. RM.Of(i) is Working for i >= N (every two bits are a valid RMState).
//  2. TM is a valid TMState.
//  3. TMPrepared and MsgPrepared hold no bit at or above N.
type State struct {
	RM          RMs     // rmState
	TM          TMState // tmState
	TMPrepared  uint16  // tmPrepared, bit i for RM i
	MsgPrepared uint16  // msgs: bit i when [type |-> "Prepared", rm |-> i] was sent
	MsgCommit   bool    // msgs: [type |-> "Commit"] was sent
	MsgAbort    bool    // msgs: [type |-> "Abort"] was sent
}

// Kinds of action, in ActionKinds order.
const (
	KindTMRcvPrepared = iota
	KindTMCommit
	KindTMAbort
	KindRMPrepare
	KindRMChooseToAbort
	KindRMRcvCommitMsg
	KindRMRcvAbortMsg
	numKinds
)

var kindNames = []string{
	"TMRcvPrepared", "TMCommit", "TMAbort", "RMPrepare",
	"RMChooseToAbort", "RMRcvCommitMsg", "RMRcvAbortMsg",
}

// Action returns the code of the action of kind k on RM r (r is ignored by TM actions
// that take no argument). Codes are kind<<8 | r.
func Action(k, r int) uint64 { return uint64(k)<<8 | uint64(r) }

// Model is two-phase commit with N resource managers.
type Model struct {
	N int // number of RMs, 1..MaxRM
	// EarlyCommit plants a bug: TMCommit no longer waits until every RM is prepared.
	// TCConsistent is then violated. Off, the model is TwoPhase.tla.
	EarlyCommit bool
	// Mutate turns named guards off, bit GuardBit(g) for guard g (guards.go), for kmc
	// mutate; zero for TwoPhase.tla.
	Mutate uint32
}

// New returns a model with n RMs; it panics when n is outside 1..MaxRM.
func New(n int) *Model {
	if n < 1 || n > MaxRM {
		panic("twophase: RM count " + strconv.Itoa(n) + " outside 1.." + strconv.Itoa(MaxRM))
	}
	return &Model{N: n}
}

func (m *Model) all() uint16 { return uint16(1<<m.N - 1) }

// Init appends the initial state: every RM working, TM init, nothing prepared or sent.
func (m *Model) Init(buf []State) []State { return append(buf, State{}) }

// Next appends the successors of s in a fixed order: TMCommit, TMAbort, then for each RM
// TMRcvPrepared, RMPrepare, RMChooseToAbort, RMRcvCommitMsg, RMRcvAbortMsg.
func (m *Model) Next(s *State, succ []State, acts []uint64) ([]State, []uint64) {
	if s.TM == TMInit && (m.EarlyCommit || s.TMPrepared == m.all() || m.off(GuardCommitAllPrepared)) {
		t := *s
		t.TM = TMCommitted
		t.MsgCommit = true
		succ, acts = append(succ, t), append(acts, Action(KindTMCommit, 0))
	}
	if s.TM == TMInit || (s.TM != TMAborted && m.off(GuardAbortInit)) {
		t := *s
		t.TM = TMAborted
		t.MsgAbort = true
		succ, acts = append(succ, t), append(acts, Action(KindTMAbort, 0))
	}
	for r := 0; r < m.N; r++ {
		bit := uint16(1) << r
		if s.TM == TMInit && s.MsgPrepared&bit != 0 {
			t := *s
			t.TMPrepared |= bit
			succ, acts = append(succ, t), append(acts, Action(KindTMRcvPrepared, r))
		}
		if s.RM.Of(r) == Working {
			t := *s
			t.RM = s.RM.With(r, Prepared)
			t.MsgPrepared |= bit
			succ, acts = append(succ, t), append(acts, Action(KindRMPrepare, r))

			t = *s
			t.RM = s.RM.With(r, Aborted)
			succ, acts = append(succ, t), append(acts, Action(KindRMChooseToAbort, r))
		}
		if s.MsgCommit {
			t := *s
			t.RM = s.RM.With(r, Committed)
			succ, acts = append(succ, t), append(acts, Action(KindRMRcvCommitMsg, r))
		}
		if s.MsgAbort {
			t := *s
			t.RM = s.RM.With(r, Aborted)
			succ, acts = append(succ, t), append(acts, Action(KindRMRcvAbortMsg, r))
		}
	}
	return succ, acts
}

// Encode appends the canonical encoding of s: the RM states at two bits each, then the TM
// state and message flags in one byte, then tmPrepared and the Prepared messages.
func (m *Model) Encode(s *State, buf []byte) []byte {
	rms := uint64(s.RM) // two bits per RM; N <= 16, and the RMs from N on are Working (0)
	flags := uint64(s.TM & 3)
	if s.MsgCommit {
		flags |= 4
	}
	if s.MsgAbort {
		flags |= 8
	}
	// The bytes, little endian: nb of RM states, the flags, tmPrepared, the Prepared
	// messages; the first 8 go in one store.
	nb := uint((m.N + 3) / 4)
	tail := flags | uint64(s.TMPrepared)<<8 | uint64(s.MsgPrepared)<<24
	n := len(buf) + int(nb) + 5
	if nb <= 3 {
		buf = binary.LittleEndian.AppendUint64(buf, rms|tail<<(8*nb))
		return buf[:n]
	}
	buf = binary.LittleEndian.AppendUint64(buf, rms|tail<<32)
	return append(buf, byte(tail>>32))
}

// Decode reads a state written by Encode into s.
func (m *Model) Decode(buf []byte, s *State) {
	*s = State{}
	nb := (m.N + 3) / 4
	for i := range nb {
		s.RM |= RMs(buf[i]) << (8 * i)
	}
	flags := buf[nb]
	s.TM = TMState(flags & 3)
	s.MsgCommit = flags&4 != 0
	s.MsgAbort = flags&8 != 0
	s.TMPrepared = uint16(buf[nb+1]) | uint16(buf[nb+2])<<8
	s.MsgPrepared = uint16(buf[nb+3]) | uint16(buf[nb+4])<<8
}

// DecodeChecked reads a state into s as Decode does, or returns an error, never a panic,
// when buf is not the encoding of a state of m: bytes of another length than m's states',
// a flag byte with bits Encode never sets, or a state out of its type (the invariants of
// State, TCTypeOK). It is for bytes from outside the engine, a checkpoint's
// (checker.CheckedDecoder).
func (m *Model) DecodeChecked(buf []byte, s *State) error {
	nb := (m.N + 3) / 4
	if len(buf) != nb+5 {
		return errors.New("twophase: decode: " + strconv.Itoa(len(buf)) + " bytes, want " + strconv.Itoa(nb+5) + " for " + strconv.Itoa(m.N) + " RMs")
	}
	if f := buf[nb]; f&^15 != 0 {
		return errors.New("twophase: decode: flag byte " + strconv.Itoa(int(f)) + " has bits Encode never sets")
	}
	var t State
	m.Decode(buf, &t)
	if !m.TCTypeOK(&t) {
		return errors.New("twophase: decode: " + m.ExplainTCTypeOK(&t))
	}
	*s = t
	return nil
}

// Vars names the variables as TwoPhase.tla does.
func (m *Model) Vars() []string { return []string{"rmState", "tmState", "tmPrepared", "msgs"} }

// rmName appends the model value of RM r ("rm1" for r = 0) as a JSON string.
func rmName(buf []byte, r int) []byte {
	buf = append(buf, `"rm`...)
	buf = strconv.AppendInt(buf, int64(r+1), 10)
	return append(buf, '"')
}

// AppendValue appends variable v of s as ITF JSON: rmState a #map from RM to its state,
// tmState a string, tmPrepared a #set of RMs, msgs a #set of records (Abort, Commit, then
// Prepared messages by RM).
func (m *Model) AppendValue(s *State, v int, buf []byte) []byte {
	switch v {
	case 0:
		buf = append(buf, `{"#map":[`...)
		for r := 0; r < m.N; r++ {
			if r > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, '[')
			buf = rmName(buf, r)
			buf = append(buf, ',', '"')
			buf = append(buf, s.RM.Of(r).String()...)
			buf = append(buf, '"', ']')
		}
		return append(buf, ']', '}')
	case 1:
		buf = append(buf, '"')
		buf = append(buf, s.TM.String()...)
		return append(buf, '"')
	case 2:
		buf = append(buf, `{"#set":[`...)
		first := true
		for r := 0; r < m.N; r++ {
			if s.TMPrepared&(1<<r) != 0 {
				if !first {
					buf = append(buf, ',')
				}
				first = false
				buf = rmName(buf, r)
			}
		}
		return append(buf, ']', '}')
	case 3:
		buf = append(buf, `{"#set":[`...)
		first := true
		sep := func() {
			if !first {
				buf = append(buf, ',')
			}
			first = false
		}
		if s.MsgAbort {
			sep()
			buf = append(buf, `{"type":"Abort"}`...)
		}
		if s.MsgCommit {
			sep()
			buf = append(buf, `{"type":"Commit"}`...)
		}
		for r := 0; r < m.N; r++ {
			if s.MsgPrepared&(1<<r) != 0 {
				sep()
				buf = append(buf, `{"type":"Prepared","rm":`...)
				buf = rmName(buf, r)
				buf = append(buf, '}')
			}
		}
		return append(buf, ']', '}')
	}
	panic("twophase: no variable " + strconv.Itoa(v))
}

// ActionName is the action with its argument: "RMPrepare(2)" for RM rm2; TM actions
// without an argument print bare ("TMCommit").
func (m *Model) ActionName(a uint64) string {
	k, r := int(a>>8), int(a&0xff)
	if k >= numKinds {
		return "Action(" + strconv.FormatUint(a, 10) + ")"
	}
	if k == KindTMCommit || k == KindTMAbort {
		return kindNames[k]
	}
	return kindNames[k] + "(" + strconv.Itoa(r+1) + ")"
}

// ActionKind is the kind index of a.
func (m *Model) ActionKind(a uint64) int { return int(a >> 8) }

// ActionKinds names the kinds of action.
func (m *Model) ActionKinds() []string { return kindNames }

// Fairness levels, numbered as checker.Fairness numbers them.
const (
	Unfair = 0
	Weak   = 1
)

// Fairness is the default fairness of a kind: the choices to abort (TMAbort,
// RMChooseToAbort) are unfair; every other step is weakly fair. TwoPhase.tla itself
// states no fairness.
func (m *Model) Fairness(kind int) int {
	if kind == KindTMAbort || kind == KindRMChooseToAbort {
		return Unfair
	}
	return Weak
}

// TCConsistent is the safety property of TCommit.tla: no RM has committed while another
// has aborted.
func TCConsistent(s *State) bool {
	// Committed is 0b10 and Aborted 0b11: an RM is committed when its high bit is set and
	// its low bit is not, aborted when both are.
	hi, lo := uint32(s.RM>>1)&0x55555555, uint32(s.RM)&0x55555555
	return !(hi&^lo != 0 && hi&lo != 0)
}

// TCTypeOK is the type invariant of TwoPhase.tla (TPTypeOK) for this model's N, with the
// invariants of State.
func (m *Model) TCTypeOK(s *State) bool {
	if m.N < MaxRM && s.RM>>(2*m.N) != 0 {
		return false
	}
	return s.TM <= TMAborted && s.TMPrepared&^m.all() == 0 && s.MsgPrepared&^m.all() == 0
}

// NotAllCommitted is a planted invariant, violated as soon as every RM has committed: the
// engine's tests use it to check that a counterexample is a shortest one (3N+2 states).
func (m *Model) NotAllCommitted(s *State) bool {
	for r := 0; r < m.N; r++ {
		if s.RM.Of(r) != Committed {
			return true
		}
	}
	return false
}

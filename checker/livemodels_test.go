package checker

import "strconv"

// mutex is two processes sharing a lock (Peterson's algorithm when peterson is set).
// pc: 0 idle, 1 trying, 2 (Peterson: turn given away, waiting), 3 critical.
// Actions: Try(i) 0->1 (the environment: never fair), then
//   - plain lock:  Enter(i) 1->3 when the lock is free; Exit(i) 3->0 frees it;
//   - Peterson:    SetTurn(i) 1->2 sets flag[i], turn = other; Enter(i) 2->3 when
//     !flag[other] || turn == i; Exit(i) 3->0 clears flag[i].
//
// Reference: Lamport, Specifying Systems §8 (weak and strong fairness); Peterson (1981).
type mutex struct {
	peterson bool
	fair     [4]Fairness // by kind: Try, SetTurn, Enter, Exit
}

type mstate struct {
	PC   [2]uint8
	Flag [2]uint8
	Turn uint8
	Lock uint8
}

const (
	mTry = iota
	mSetTurn
	mEnter
	mExit
)

func (m mutex) Init(buf []mstate) []mstate { return append(buf, mstate{}) }

func (m mutex) Next(s *mstate, succ []mstate, acts []uint64) ([]mstate, []uint64) {
	for i := range 2 {
		j := 1 - i
		t := *s
		switch s.PC[i] {
		case 0:
			t.PC[i] = 1
			succ, acts = append(succ, t), append(acts, uint64(mTry<<4|i))
		case 1:
			if m.peterson {
				t.PC[i], t.Flag[i], t.Turn = 2, 1, uint8(j)
				succ, acts = append(succ, t), append(acts, uint64(mSetTurn<<4|i))
			} else if s.Lock == 0 {
				t.PC[i], t.Lock = 3, 1
				succ, acts = append(succ, t), append(acts, uint64(mEnter<<4|i))
			}
		case 2:
			if s.Flag[j] == 0 || s.Turn == uint8(i) {
				t.PC[i] = 3
				succ, acts = append(succ, t), append(acts, uint64(mEnter<<4|i))
			}
		case 3:
			t.PC[i], t.Flag[i], t.Lock = 0, 0, 0
			succ, acts = append(succ, t), append(acts, uint64(mExit<<4|i))
		}
	}
	return succ, acts
}

func (m mutex) Encode(s *mstate, buf []byte) []byte {
	return append(buf, s.PC[0], s.PC[1], s.Flag[0], s.Flag[1], s.Turn, s.Lock)
}
func (m mutex) Decode(b []byte, s *mstate) {
	*s = mstate{PC: [2]uint8{b[0], b[1]}, Flag: [2]uint8{b[2], b[3]}, Turn: b[4], Lock: b[5]}
}
func (m mutex) Vars() []string { return []string{"pc", "flag", "turn", "lock"} }
func (m mutex) AppendValue(s *mstate, v int, buf []byte) []byte {
	n := func(x uint8) {
		buf = append(buf, `{"#bigint":"`...)
		buf = strconv.AppendInt(buf, int64(x), 10)
		buf = append(buf, `"}`...)
	}
	switch v {
	case 0, 1:
		a := s.PC
		if v == 1 {
			a = s.Flag
		}
		buf = append(buf, `{"#tup":[`...)
		n(a[0])
		buf = append(buf, ',')
		n(a[1])
		buf = append(buf, "]}"...)
	case 2:
		n(s.Turn)
	default:
		n(s.Lock)
	}
	return buf
}
func (m mutex) ActionName(a uint64) string {
	return m.ActionKinds()[a>>4] + "(" + strconv.Itoa(int(a&15)) + ")"
}
func (m mutex) ActionKind(a uint64) int { return int(a >> 4) }
func (m mutex) ActionKinds() []string   { return []string{"Try", "SetTurn", "Enter", "Exit"} }
func (m mutex) Fairness(kind int) int   { return int(m.fair[kind]) }
func allFair(f Fairness) [4]Fairness    { return [4]Fairness{Unfair, f, f, f} }
func enters(i int) Property[mstate] {
	return Property[mstate]{Name: "Process" + strconv.Itoa(i) + "Enters", Kind: LeadsTo,
		P: func(s *mstate) bool { return s.PC[i] == 1 }, Q: func(s *mstate) bool { return s.PC[i] == 3 }}
}

// chain is 0 -> 1 -> ... -> n-1, then back to 0 when wrap is set; Step and Wrap are
// weakly fair.
type chain struct {
	n    uint32
	wrap bool
}

func (m chain) Init(buf []uint32) []uint32 { return append(buf, 0) }
func (m chain) Next(s *uint32, succ []uint32, acts []uint64) ([]uint32, []uint64) {
	if *s+1 < m.n {
		return append(succ, *s+1), append(acts, 0)
	}
	if m.wrap {
		return append(succ, 0), append(acts, 1)
	}
	return succ, acts
}
func (m chain) Encode(s *uint32, buf []byte) []byte {
	return append(buf, byte(*s), byte(*s>>8), byte(*s>>16), byte(*s>>24))
}
func (m chain) Decode(b []byte, s *uint32) {
	*s = uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
func (m chain) Vars() []string { return []string{"x"} }
func (m chain) AppendValue(s *uint32, v int, buf []byte) []byte {
	buf = append(buf, `{"#bigint":"`...)
	buf = strconv.AppendUint(buf, uint64(*s), 10)
	return append(buf, `"}`...)
}
func (m chain) ActionName(a uint64) string {
	if a == 0 {
		return "Step"
	}
	return "Wrap"
}
func (m chain) ActionKind(a uint64) int { return int(a) }
func (m chain) ActionKinds() []string   { return []string{"Step", "Wrap"} }
func (m chain) Fairness(kind int) int   { return int(Weak) }

// rings is k rings of l states (state r*l+i is state i of ring r) and a sink, state k*l.
// State 0 of a ring is its hub: Enter(r) goes from the hub to state 1, Step(r) from i to
// i+1 and from l-1 back to 1 (the inner cycle), Back(r) from l-1 to the hub; Hop(r) goes
// from the hub of ring r to that of ring r+1 (mod k), and Exit(r) from the hub to the sink.
// All rings and hubs are one component; Exit, strongly fair, is enabled at the hubs and
// never taken inside it, so that removing the hubs splits it into k inner cycles of l-1
// states, each fair (Step is taken on it, weakly fair Back is not enabled everywhere): a
// lasso that never reaches the sink.
type rings struct{ k, l uint32 }

const (
	rEnter = iota
	rStep
	rBack
	rHop
	rExit
)

func (m rings) Init(buf []uint32) []uint32 { return append(buf, 0) }
func (m rings) Next(s *uint32, succ []uint32, acts []uint64) ([]uint32, []uint64) {
	if *s == m.k*m.l {
		return succ, acts
	}
	r, i := *s/m.l, *s%m.l
	code := func(kind int) uint64 { return uint64(kind)<<32 | uint64(r) }
	switch {
	case i == 0:
		succ, acts = append(succ, r*m.l+1, (r+1)%m.k*m.l, m.k*m.l), append(acts, code(rEnter), code(rHop), code(rExit))
	case i < m.l-1:
		succ, acts = append(succ, *s+1), append(acts, code(rStep))
	default:
		succ, acts = append(succ, r*m.l+1, r*m.l), append(acts, code(rStep), code(rBack))
	}
	return succ, acts
}
func (m rings) Encode(s *uint32, buf []byte) []byte           { return chain{}.Encode(s, buf) }
func (m rings) Decode(b []byte, s *uint32)                    { chain{}.Decode(b, s) }
func (m rings) Vars() []string                                { return []string{"x"} }
func (m rings) AppendValue(s *uint32, v int, b []byte) []byte { return chain{}.AppendValue(s, v, b) }
func (m rings) ActionName(a uint64) string {
	return m.ActionKinds()[a>>32] + "(" + strconv.Itoa(int(a&(1<<32-1))) + ")"
}
func (m rings) ActionKind(a uint64) int { return int(a >> 32) }
func (m rings) ActionKinds() []string   { return []string{"Enter", "Step", "Back", "Hop", "Exit"} }
func (m rings) Fairness(kind int) int {
	if kind == rExit {
		return int(Strong)
	}
	return int(Weak)
}

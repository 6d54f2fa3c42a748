package reference

import (
	"errors"
	"fmt"
	"strconv"
)

// AsyncIsr.tla is a separate, smaller module of the same repository: one fixed leader
// whose ISR changes go through the controller asynchronously (requests and updates kept
// as sets), with the high watermark taken over the ISR and the pending ISR.
//
// The module has no bound of its own: LeaderWrite is always enabled and every
// controller write bumps the version, so TLC needs a state constraint to terminate. The
// port applies, as a TLC CONSTRAINT does (a successor outside it is dropped: neither
// counted nor checked nor explored), the evident one: every offset stays in the
// module's Offsets (0..MaxOffset, a definition the module makes but never uses) and the
// controller's version stays at most MaxVersion. Every other version in the state is at
// most the controller's, so that bounds them all.
//
// Leader is r1; the state space for any other choice is the same up to renaming.

// Limits on AsyncIsr's constants.
const (
	MaxAsyncReplicas = 4
	MaxAsyncOffset   = 7
	MaxAsyncVersion  = 7
)

// AsyncConfig holds AsyncIsr's constants and the state constraint's bound.
type AsyncConfig struct {
	Replicas   int // |Replicas|; Leader is r1
	MaxOffset  int
	MaxVersion int
}

// Validate reports whether c is within the limits of the port.
func (c AsyncConfig) Validate() error {
	var errs []error
	if c.Replicas < 1 || c.Replicas > MaxAsyncReplicas {
		errs = append(errs, fmt.Errorf("replicas: AsyncIsr must have 1..%d (got %d)", MaxAsyncReplicas, c.Replicas))
	}
	if c.MaxOffset < 1 || c.MaxOffset > MaxAsyncOffset {
		errs = append(errs, fmt.Errorf("max offset: must be 1..%d (got %d)", MaxAsyncOffset, c.MaxOffset))
	}
	if c.MaxVersion < 0 || c.MaxVersion > MaxAsyncVersion {
		errs = append(errs, fmt.Errorf("max version: must be 0..%d (got %d)", MaxAsyncVersion, c.MaxVersion))
	}
	return errors.Join(errs...)
}

// asyncLeader is the index of the constant Leader.
const asyncLeader = 0

// AsyncState is one state of AsyncIsr. Invariants:
//  1. Offsets at or above N are zero.
//  2. updates is exactly {[isr |-> Updates[v], version |-> v] : v \in 1..CtrlVersion}:
//     every controller write adds one update with the new version and nothing else adds
//     any. Updates[v] is zero for v = 0 and v > CtrlVersion.
//  3. requests is {[isr |-> i, version |-> v] : bit v*16+i of Requests is set}.
type AsyncState struct {
	CtrlISR        Set  // controllerState.isr
	CtrlVersion    int8 // controllerState.version
	LeaderISR      Set  // leaderState.isr
	LeaderVersion  int8 // leaderState.version
	PendingISR     Set  // leaderState.pendingIsr
	PendingVersion int8 // leaderState.pendingVersion, Nil (-1) or a version
	Offsets        [MaxAsyncReplicas]int8
	Requests       [2]uint64
	Updates        [MaxAsyncVersion + 1]Set
}

func (s *AsyncState) hasRequest(isr Set, v int) bool {
	b := v*16 + int(isr)
	return s.Requests[b/64]&(1<<uint(b%64)) != 0
}

func (s *AsyncState) addRequest(isr Set, v int) {
	b := v*16 + int(isr)
	s.Requests[b/64] |= 1 << uint(b%64)
}

// AsyncModel is AsyncIsr. It satisfies checker.Model[AsyncState].
type AsyncModel struct {
	cfg AsyncConfig
	n   int
}

// NewAsyncIsr returns the model for c.
func NewAsyncIsr(c AsyncConfig) (*AsyncModel, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &AsyncModel{cfg: c, n: c.Replicas}, nil
}

func (m *AsyncModel) all() Set { return Set(1<<uint(m.n) - 1) }

// Init appends AsyncIsr's initial state: both ISRs are Replicas at version 0, nothing
// pending, every offset 0, no requests and no updates.
func (m *AsyncModel) Init(buf []AsyncState) []AsyncState {
	return append(buf, AsyncState{CtrlISR: m.all(), LeaderISR: m.all(), PendingVersion: Nil})
}

// HighWatermark is AsyncIsr's HighWatermark: the least offset over the ISR and the
// pending ISR (never empty: Leader is in every ISR the model builds).
func (m *AsyncModel) HighWatermark(s *AsyncState) int {
	hw := -1
	pot := s.LeaderISR | s.PendingISR
	for r := 0; r < m.n; r++ {
		if pot.Has(r) && (hw < 0 || int(s.Offsets[r]) < hw) {
			hw = int(s.Offsets[r])
		}
	}
	return hw
}

// Action kinds of AsyncIsr, in the order of its Next.
const (
	akControllerShrinkIsr = iota
	akControllerHandleRequest
	akLeaderRequestShrinkIsr
	akLeaderRequestExpandIsr
	akLeaderWrite
	akLeaderHandleUpdate
	akFollowerReplicate
	numAsyncKinds
)

var asyncKindNames = []string{"ControllerShrinkIsr", "ControllerHandleRequest", "LeaderRequestShrinkIsr",
	"LeaderRequestExpandIsr", "LeaderWrite", "LeaderHandleUpdate", "FollowerReplicate"}

// inConstraint is the state constraint (see the top of this file).
func (m *AsyncModel) inConstraint(s *AsyncState) bool {
	if int(s.CtrlVersion) > m.cfg.MaxVersion {
		return false
	}
	for r := 0; r < m.n; r++ {
		if int(s.Offsets[r]) > m.cfg.MaxOffset {
			return false
		}
	}
	return true
}

func pushAsync(s *AsyncState, succ *[]AsyncState, acts *[]uint64, a uint64) *AsyncState {
	*succ = append(*succ, *s)
	*acts = append(*acts, a)
	return &(*succ)[len(*succ)-1]
}

// Next appends the successors of s that satisfy the state constraint.
func (m *AsyncModel) Next(s *AsyncState, succ []AsyncState, acts []uint64) ([]AsyncState, []uint64) {
	start := len(succ)
	succ, acts = m.successors(s, succ, acts)
	// The state constraint: drop successors outside it, keeping the order of the rest.
	j := start
	for i := start; i < len(succ); i++ {
		if m.inConstraint(&succ[i]) {
			succ[j], acts[j] = succ[i], acts[i]
			j++
		}
	}
	return succ[:j], acts[:j]
}

// successors appends every successor of s by the module's Next, inside the state
// constraint or not.
func (m *AsyncModel) successors(s *AsyncState, succ []AsyncState, acts []uint64) ([]AsyncState, []uint64) {
	n := m.n
	// AsyncIsr ControllerShrinkIsr: \E replica # Leader in the controller's ISR; the
	// controller writes the ISR without it at version+1 and sends that update.
	for r := 0; r < n; r++ {
		if r != asyncLeader && s.CtrlISR.Has(r) {
			m.controllerWrite(pushAsync(s, &succ, &acts, uint64(akControllerShrinkIsr)|uint64(r)<<8), s.CtrlISR.Without(r))
		}
	}
	// AsyncIsr ControllerHandleRequest: \E message \in requests at the controller's
	// version; the controller writes its ISR at version+1 and sends that update.
	v := int(s.CtrlVersion)
	for isr := Set(0); isr < 16; isr++ {
		if s.hasRequest(isr, v) {
			m.controllerWrite(pushAsync(s, &succ, &acts, uint64(akControllerHandleRequest)|uint64(isr)<<8|uint64(v)<<16), isr)
		}
	}
	// AsyncIsr LeaderRequestShrinkIsr: \E replica # Leader in the leader's ISR; the
	// leader sends [isr \ {replica}, its version] and adds that ISR to its pending ISR
	// (pendingIsr' = pendingIsr \union isr, as written).
	for r := 0; r < n; r++ {
		if r != asyncLeader && s.LeaderISR.Has(r) {
			m.leaderRequest(pushAsync(s, &succ, &acts, uint64(akLeaderRequestShrinkIsr)|uint64(r)<<8), s.LeaderISR.Without(r))
		}
	}
	// AsyncIsr LeaderRequestExpandIsr: \E replica outside the leader's ISR whose offset
	// has reached the high watermark; the leader sends [isr \union {replica}, version].
	hw := m.HighWatermark(s)
	for r := 0; r < n; r++ {
		if !s.LeaderISR.Has(r) && int(s.Offsets[r]) >= hw {
			m.leaderRequest(pushAsync(s, &succ, &acts, uint64(akLeaderRequestExpandIsr)|uint64(r)<<8), s.LeaderISR.With(r))
		}
	}
	// AsyncIsr LeaderWrite: the leader's offset grows by one.
	pushAsync(s, &succ, &acts, uint64(akLeaderWrite)).Offsets[asyncLeader]++
	// AsyncIsr LeaderHandleUpdate: \E update with a version above the leader's; the
	// leader takes its ISR and version and clears the pending ISR.
	for u := int(s.LeaderVersion) + 1; u <= int(s.CtrlVersion); u++ {
		t := pushAsync(s, &succ, &acts, uint64(akLeaderHandleUpdate)|uint64(u)<<8)
		t.LeaderISR = s.Updates[u]
		t.LeaderVersion = int8(u)
		t.PendingISR = 0
		t.PendingVersion = Nil
	}
	// AsyncIsr FollowerReplicate: \E replica # Leader behind the leader; its offset grows.
	for r := 0; r < n; r++ {
		if r != asyncLeader && s.Offsets[r] < s.Offsets[asyncLeader] {
			pushAsync(s, &succ, &acts, uint64(akFollowerReplicate)|uint64(r)<<8).Offsets[r]++
		}
	}
	return succ, acts
}

// Bounds names the state constraint's two bounds (checker.Bounded): a successor whose
// controller version passes max_version, or some replica's offset max_offset, is cut.
func (m *AsyncModel) Bounds() []string {
	return []string{"max_offset=" + itoa(m.cfg.MaxOffset), "max_version=" + itoa(m.cfg.MaxVersion)}
}

// NextCut is Next that also reports, as cut, each step whose successor lies outside the
// state constraint, with the bound it passes (max_version first).
func (m *AsyncModel) NextCut(s *AsyncState, succ []AsyncState, acts []uint64, cut []uint64, by []int) ([]AsyncState, []uint64, []uint64, []int) {
	start := len(succ)
	succ, acts = m.successors(s, succ, acts)
	j := start
	for i := start; i < len(succ); i++ {
		switch {
		case int(succ[i].CtrlVersion) > m.cfg.MaxVersion:
			cut, by = append(cut, acts[i]), append(by, 1)
		case !m.inConstraint(&succ[i]):
			cut, by = append(cut, acts[i]), append(by, 0)
		default:
			succ[j], acts[j] = succ[i], acts[i]
			j++
		}
	}
	return succ[:j], acts[:j], cut, by
}

// controllerWrite is ControllerWriteIsr(isr, version+1) with the update it sends.
func (m *AsyncModel) controllerWrite(t *AsyncState, isr Set) {
	t.CtrlVersion++
	t.CtrlISR = isr
	if int(t.CtrlVersion) < len(t.Updates) {
		t.Updates[t.CtrlVersion] = isr
	}
}

// leaderRequest is the effect shared by the leader's two requests.
func (m *AsyncModel) leaderRequest(t *AsyncState, isr Set) {
	t.addRequest(isr, int(t.LeaderVersion))
	t.PendingISR |= isr
	t.PendingVersion = t.LeaderVersion
}

// TypeOk is the evident intent of AsyncIsr's TypeOk: as written, but with the
// leader's pendingVersion in Nat \union {Nil}.
func (m *AsyncModel) TypeOk(s *AsyncState) bool {
	if !m.subset(s.CtrlISR) || !m.subset(s.LeaderISR) || !m.subset(s.PendingISR) {
		return false
	}
	if s.CtrlVersion < 0 || s.LeaderVersion < 0 || s.PendingVersion < Nil {
		return false
	}
	for r := 0; r < m.n; r++ {
		if s.Offsets[r] < 0 {
			return false
		}
	}
	for isr := Set(0); isr < 16; isr++ {
		for v := 0; v <= MaxAsyncVersion; v++ {
			if s.hasRequest(isr, v) && !m.subset(isr) {
				return false
			}
		}
	}
	for v := 1; v <= int(s.CtrlVersion) && v < len(s.Updates); v++ {
		if !m.subset(s.Updates[v]) {
			return false
		}
	}
	return true
}

// TypeOkLiteral is AsyncIsr's TypeOk as written: LeaderState asks for pendingVersion
// \in Nat, but Init and LeaderHandleUpdate set it to Nil (-1), so it fails in the
// initial state.
func (m *AsyncModel) TypeOkLiteral(s *AsyncState) bool {
	return s.PendingVersion >= 0 && m.TypeOk(s)
}

func (m *AsyncModel) subset(x Set) bool { return x&^m.all() == 0 }

// ValidHighWatermark is AsyncIsr's ValidHighWatermark: every member of the
// controller's ISR has an offset at least the high watermark.
func (m *AsyncModel) ValidHighWatermark(s *AsyncState) bool {
	hw := m.HighWatermark(s)
	for r := 0; r < m.n; r++ {
		if s.CtrlISR.Has(r) && int(s.Offsets[r]) < hw {
			return false
		}
	}
	return true
}

// Encode appends the canonical encoding of s.
func (m *AsyncModel) Encode(s *AsyncState, buf []byte) []byte {
	buf = append(buf, byte(s.CtrlISR), byte(s.CtrlVersion), byte(s.LeaderISR), byte(s.LeaderVersion),
		byte(s.PendingISR), byte(s.PendingVersion+1))
	for r := 0; r < m.n; r++ {
		buf = append(buf, byte(s.Offsets[r]))
	}
	for _, w := range s.Requests {
		for i := 0; i < 8; i++ {
			buf = append(buf, byte(w>>(8*i)))
		}
	}
	for v := 1; v <= m.cfg.MaxVersion; v++ {
		buf = append(buf, byte(s.Updates[v]))
	}
	return buf
}

// Decode reads a state written by Encode into s.
func (m *AsyncModel) Decode(buf []byte, s *AsyncState) {
	*s = AsyncState{CtrlISR: Set(buf[0]), CtrlVersion: int8(buf[1]), LeaderISR: Set(buf[2]),
		LeaderVersion: int8(buf[3]), PendingISR: Set(buf[4]), PendingVersion: int8(buf[5]) - 1}
	i := 6
	for r := 0; r < m.n; r++ {
		s.Offsets[r] = int8(buf[i])
		i++
	}
	for w := range s.Requests {
		for k := 0; k < 8; k++ {
			s.Requests[w] |= uint64(buf[i]) << (8 * k)
			i++
		}
	}
	for v := 1; v <= m.cfg.MaxVersion; v++ {
		s.Updates[v] = Set(buf[i])
		i++
	}
}

// asyncLen is the length of Encode's output for m's constants.
func (m *AsyncModel) asyncLen() int { return 6 + m.n + 8*len(AsyncState{}.Requests) + m.cfg.MaxVersion }

// DecodeChecked reads a state into s as Decode does, or returns an error, never a panic,
// when buf is not the encoding of a state of m: bytes of another length than m's states',
// or a field out of its range for m's constants (the invariants of AsyncState; a version,
// offset or set beyond the constants). It is for bytes from outside the engine, a
// checkpoint's (checker.CheckedDecoder).
func (m *AsyncModel) DecodeChecked(buf []byte, s *AsyncState) error {
	if want := m.asyncLen(); len(buf) != want {
		return fmt.Errorf("reference: decode: %d bytes, want %d", len(buf), want)
	}
	var t AsyncState
	m.Decode(buf, &t)
	in := func(v int8, lo, hi int) bool { return int(v) >= lo && int(v) <= hi }
	set := func(x Set) bool { return m.subset(x) }
	mv := m.cfg.MaxVersion
	switch {
	case !in(t.CtrlVersion, 0, mv) || !set(t.CtrlISR):
		return errors.New("reference: decode: controllerState is out of range")
	case !in(t.LeaderVersion, 0, mv) || !set(t.LeaderISR) || !in(t.PendingVersion, Nil, mv) || !set(t.PendingISR):
		return errors.New("reference: decode: leaderState is out of range")
	}
	for r, o := range t.Offsets {
		if r < m.n && !in(o, 0, m.cfg.MaxOffset) || r >= m.n && o != 0 {
			return fmt.Errorf("reference: decode: the offset of r%d is out of range", r+1)
		}
	}
	for v, u := range t.Updates {
		if v == 0 && u != 0 || v > int(t.CtrlVersion) && u != 0 || !set(u) {
			return fmt.Errorf("reference: decode: the update of version %d is out of range", v)
		}
	}
	for b := 0; b < 64*len(t.Requests); b++ {
		if t.Requests[b/64]&(1<<uint(b%64)) != 0 && (b/16 > mv || !set(Set(b%16))) {
			return fmt.Errorf("reference: decode: request %d is out of range", b)
		}
	}
	*s = t
	return nil
}

var asyncVarNames = []string{"controllerState", "leaderState", "requests", "updates"}

// Vars names AsyncIsr's variables, in the order of its VARIABLES.
func (m *AsyncModel) Vars() []string { return asyncVarNames }

func (m *AsyncModel) appendSet(buf []byte, x Set) []byte {
	return (&Model{n: m.n}).appendSet(buf, x)
}

func (m *AsyncModel) appendMessage(buf []byte, isr Set, v int) []byte {
	buf = append(buf, `{"isr":`...)
	buf = m.appendSet(buf, isr)
	buf = append(buf, `,"version":`...)
	buf = appendInt(buf, v)
	return append(buf, '}')
}

// AppendValue appends variable v of s as ITF JSON. Message sets are listed by version,
// then by ISR as a bitset.
func (m *AsyncModel) AppendValue(s *AsyncState, v int, buf []byte) []byte {
	switch v {
	case 0:
		return m.appendMessage(buf, s.CtrlISR, int(s.CtrlVersion))
	case 1:
		buf = append(buf, `{"isr":`...)
		buf = m.appendSet(buf, s.LeaderISR)
		buf = append(buf, `,"version":`...)
		buf = appendInt(buf, int(s.LeaderVersion))
		buf = append(buf, `,"pendingIsr":`...)
		buf = m.appendSet(buf, s.PendingISR)
		buf = append(buf, `,"pendingVersion":`...)
		buf = appendInt(buf, int(s.PendingVersion))
		buf = append(buf, `,"offsets":{"#map":[`...)
		for r := 0; r < m.n; r++ {
			if r > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, '[')
			buf = appendReplica(buf, r)
			buf = append(buf, ',')
			buf = appendInt(buf, int(s.Offsets[r]))
			buf = append(buf, ']')
		}
		return append(buf, "]}}"...)
	case 2:
		buf = append(buf, `{"#set":[`...)
		first := true
		for ver := 0; ver <= MaxAsyncVersion; ver++ {
			for isr := Set(0); isr < 16; isr++ {
				if s.hasRequest(isr, ver) {
					if !first {
						buf = append(buf, ',')
					}
					first = false
					buf = m.appendMessage(buf, isr, ver)
				}
			}
		}
		return append(buf, "]}"...)
	case 3:
		buf = append(buf, `{"#set":[`...)
		for ver := 1; ver <= int(s.CtrlVersion) && ver < len(s.Updates); ver++ {
			if ver > 1 {
				buf = append(buf, ',')
			}
			buf = m.appendMessage(buf, s.Updates[ver], ver)
		}
		return append(buf, "]}"...)
	}
	return append(buf, "null"...)
}

// ActionName prints an action with its bound variables: "ControllerShrinkIsr(r2)",
// "ControllerHandleRequest({r1,r3}, 2)" (the message's ISR and version),
// "LeaderHandleUpdate(3)" (the update's version), "LeaderWrite".
func (m *AsyncModel) ActionName(a uint64) string {
	k, x, y := int(a&0xff), int(a>>8&0xff), int(a>>16&0xff)
	if k >= numAsyncKinds {
		return "Action(" + strconv.FormatUint(a, 10) + ")"
	}
	name := asyncKindNames[k]
	switch k {
	case akLeaderWrite:
		return name
	case akLeaderHandleUpdate:
		return name + "(" + strconv.Itoa(x) + ")"
	case akControllerHandleRequest:
		set := "{"
		for r := 0; r < m.n; r++ {
			if Set(x).Has(r) {
				if len(set) > 1 {
					set += ","
				}
				set += ReplicaName(r)
			}
		}
		return name + "(" + set + "}, " + strconv.Itoa(y) + ")"
	}
	return name + "(" + ReplicaName(x) + ")"
}

// ActionKind is the index of a's kind in ActionKinds.
func (m *AsyncModel) ActionKind(a uint64) int { return int(a & 0xff) }

// ActionKinds names the disjuncts of AsyncIsr's Next, in its order.
func (m *AsyncModel) ActionKinds() []string { return asyncKindNames }

// Fairness: AsyncIsr defines no Spec and no fairness; every kind is unfair.
func (m *AsyncModel) Fairness(kind int) int { return unfair }

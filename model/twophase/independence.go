package twophase

// Independence of the steps (checker.Independent, the engine's contract item 9), for the
// partial-order reduction of safety checks.
//
// Objects: for each RM r its decision (dec: committed or aborted, or neither) and its vote
// (prep: working or prepared), the TM's tmPrepared bit of r and the Prepared message of r;
// the TM's state, and the Commit and Abort messages. An RM's state (rmState) is the pair
// (dec, prep): RMPrepare changes the vote alone, which no property that reads decisions
// sees. Groups: one per action code, TMCommit, TMAbort, then for each RM TMRcvPrepared,
// RMPrepare, RMChooseToAbort, RMRcvCommitMsg and RMRcvAbortMsg.

const (
	objDec     = 0  // + r
	objPrep    = 16 // + r
	objTMPrep  = 32 // + r
	objMsgPrep = 48 // + r
	objTM      = 64
	objCommit  = 65
	objAbort   = 66
)

// Objects is a set of the model's objects (checker.Objects).
type Objects = [4]uint64

func obj(o ...int) Objects {
	var s Objects
	for _, i := range o {
		s[i>>6] |= 1 << (i & 63)
	}
	return s
}

func union(a, b Objects) Objects {
	return Objects{a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3]}
}

// rmKinds are the kinds of action that take an RM, in the order of their groups.
var rmKinds = [...]int{KindTMRcvPrepared, KindRMPrepare, KindRMChooseToAbort, KindRMRcvCommitMsg, KindRMRcvAbortMsg}

// Groups is the number of groups: TMCommit, TMAbort and five per RM.
func (m *Model) Groups() int { return 2 + len(rmKinds)*m.N }

// Group is the group of action a.
func (m *Model) Group(a uint64) int {
	k, r := int(a>>8), int(a&0xff)
	switch k {
	case KindTMCommit:
		return 0
	case KindTMAbort:
		return 1
	}
	for i, rk := range rmKinds {
		if rk == k {
			return 2 + len(rmKinds)*r + i
		}
	}
	return -1
}

// groupOf is the kind and RM of group g (RM -1 for the TM's).
func (m *Model) groupOf(g int) (kind, r int) {
	switch g {
	case 0:
		return KindTMCommit, -1
	case 1:
		return KindTMAbort, -1
	}
	g -= 2
	return rmKinds[g%len(rmKinds)], g / len(rmKinds)
}

func (m *Model) allOf(base int) Objects {
	var s Objects
	for r := 0; r < m.N; r++ {
		s = union(s, obj(base+r))
	}
	return s
}

// Footprint is what the steps of group g read and write.
func (m *Model) Footprint(g int) (reads, writes Objects) {
	k, r := m.groupOf(g)
	switch k {
	case KindTMCommit: // tmState = "init", tmPrepared = RM; tmState, msgs (Commit)
		w := obj(objTM, objCommit)
		return union(w, m.allOf(objTMPrep)), w
	case KindTMAbort: // tmState = "init"; tmState, msgs (Abort)
		w := obj(objTM, objAbort)
		return w, w
	case KindTMRcvPrepared: // tmState = "init", Prepared(r) in msgs; tmPrepared(r)
		return obj(objTM, objMsgPrep+r, objTMPrep+r), obj(objTMPrep + r)
	case KindRMPrepare: // rmState[r] = "working"; its vote, msgs (Prepared(r))
		return obj(objDec+r, objPrep+r, objMsgPrep+r), obj(objPrep+r, objMsgPrep+r)
	case KindRMChooseToAbort: // rmState[r] = "working"; rmState[r]
		w := obj(objDec+r, objPrep+r)
		return w, w
	case KindRMRcvCommitMsg: // Commit in msgs; rmState[r]
		w := obj(objDec+r, objPrep+r)
		return union(w, obj(objCommit)), w
	default: // RMRcvAbortMsg: Abort in msgs; rmState[r]
		w := obj(objDec+r, objPrep+r)
		return union(w, obj(objAbort)), w
	}
}

// Guards is the number of guards of group g: TMCommit has tmState = "init" and
// tmPrepared = RM (the latter not with the planted bug or its guard mutated away),
// TMRcvPrepared tmState = "init" and its message; the others one each.
func (m *Model) Guards(g int) int {
	k, _ := m.groupOf(g)
	switch k {
	case KindTMCommit:
		if m.EarlyCommit || m.off(GuardCommitAllPrepared) {
			return 1
		}
		return 2
	case KindTMRcvPrepared:
		return 2
	}
	return 1
}

// GuardReads is what guard j of group g reads.
func (m *Model) GuardReads(g, j int) Objects {
	k, r := m.groupOf(g)
	switch k {
	case KindTMCommit:
		if j == 0 {
			return obj(objTM)
		}
		return m.allOf(objTMPrep)
	case KindTMAbort:
		return obj(objTM)
	case KindTMRcvPrepared:
		if j == 0 {
			return obj(objTM)
		}
		return obj(objMsgPrep + r)
	case KindRMPrepare, KindRMChooseToAbort:
		return obj(objDec+r, objPrep+r)
	case KindRMRcvCommitMsg:
		return obj(objCommit)
	default:
		return obj(objAbort)
	}
}

// Guard reports whether guard j of group g holds in s.
func (m *Model) Guard(s *State, g, j int) bool {
	k, r := m.groupOf(g)
	switch k {
	case KindTMCommit:
		if j == 0 {
			return s.TM == TMInit
		}
		return s.TMPrepared == m.all()
	case KindTMAbort:
		if m.off(GuardAbortInit) {
			return s.TM != TMAborted
		}
		return s.TM == TMInit
	case KindTMRcvPrepared:
		if j == 0 {
			return s.TM == TMInit
		}
		return s.MsgPrepared&(1<<r) != 0
	case KindRMPrepare, KindRMChooseToAbort:
		return s.RM.Of(r) == Working
	case KindRMRcvCommitMsg:
		return s.MsgCommit
	default:
		return s.MsgAbort
	}
}

// PropertyReads is what the property called name reads, in the objects of the footprints
// (checker.Property.Reads), or nil for a property it does not know. TCConsistent and
// NotAllCommitted read the RMs' decisions; TCTypeOK, a type invariant, changes with no
// step (it holds in every reachable state), so it reads nothing any step writes.
func (m *Model) PropertyReads(name string) *Objects {
	switch name {
	case "TCConsistent", "NotAllCommitted":
		r := m.allOf(objDec)
		return &r
	case "TCTypeOK":
		return &Objects{}
	}
	return nil
}

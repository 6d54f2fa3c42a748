package reference

// Independence of AsyncIsr's steps (checker.Independent, with checker.Enabling), for the
// partial-order reduction of safety checks.
//
// Objects: the controller's state (controllerState with the updates it sent: every write
// adds the update of its version, so the two change together), the leader's ISR and
// version, its pending ISR and version, the requests sent, and each replica's offset.
// Groups: one per kind of AsyncIsr's Next and per replica the action binds (ControllerShrinkIsr,
// LeaderRequestShrinkIsr, LeaderRequestExpandIsr, FollowerReplicate); the kinds that bind a
// message (ControllerHandleRequest, LeaderHandleUpdate) or nothing (LeaderWrite) are one
// group each. The state constraint (max_version, max_offset) cuts a successor by the
// version or the offset its step raises, which the step's group reads; the other bounded
// values are unchanged, within the constraint in every reachable state.

const (
	aobjCtrl    = 0 // controllerState and updates
	aobjLeader  = 1 // leaderState.isr and version
	aobjPending = 2 // leaderState.pendingIsr and pendingVersion
	aobjReqs    = 3 // requests
	aobjOffset  = 4 // + r: leaderState.offsets[r]
)

// Groups is the number of groups: per kind, one per replica (kinds that bind none use
// replica slot 0 only).
func (m *AsyncModel) Groups() int { return numAsyncKinds * m.n }

// asyncPerReplica reports whether kind k binds a replica in its code.
func asyncPerReplica(k int) bool {
	switch k {
	case akControllerShrinkIsr, akLeaderRequestShrinkIsr, akLeaderRequestExpandIsr, akFollowerReplicate:
		return true
	}
	return false
}

// Group is the group of action a.
func (m *AsyncModel) Group(a uint64) int {
	k, r := int(a&0xff), int(a>>8&0xff)
	if k >= numAsyncKinds {
		return -1
	}
	if !asyncPerReplica(k) {
		r = 0
	}
	return k*m.n + r
}

// groupOf is the kind and replica of group g, and whether it can have a step: the leader
// neither shrinks itself out nor replicates from itself, and per-replica slots of the
// other kinds have none.
func (m *AsyncModel) groupOf(g int) (k, r int, real bool) {
	k, r = g/m.n, g%m.n
	switch {
	case !asyncPerReplica(k):
		real = r == 0
	case k == akLeaderRequestExpandIsr:
		real = true
	default:
		real = r != asyncLeader
	}
	return
}

// Footprint is what the steps of group g read and write.
func (m *AsyncModel) Footprint(g int) (reads, writes Objects) {
	k, r, real := m.groupOf(g)
	if !real {
		return Objects{}, Objects{}
	}
	switch k {
	case akControllerShrinkIsr:
		// reads the controller's ISR and version; writes them and an update.
		w := objs(aobjCtrl)
		return w, w
	case akControllerHandleRequest:
		// reads the requests at the controller's version (they stay in the set).
		return objs(aobjCtrl, aobjReqs), objs(aobjCtrl)
	case akLeaderRequestShrinkIsr:
		// reads the leader's ISR and version; adds a request and to the pending ISR.
		w := objs(aobjReqs, aobjPending)
		return objUnion(w, objs(aobjLeader)), w
	case akLeaderRequestExpandIsr:
		// as a shrink, and the high watermark reads every offset over both ISRs.
		w := objs(aobjReqs, aobjPending)
		var offs Objects
		for i := 0; i < m.n; i++ {
			addObj(&offs, aobjOffset+i)
		}
		return objUnion(objUnion(w, objs(aobjLeader)), offs), w
	case akLeaderWrite:
		w := objs(aobjOffset + asyncLeader)
		return w, w
	case akLeaderHandleUpdate:
		// reads the leader's version and the controller's updates; takes one and clears
		// the pending ISR.
		w := objs(aobjLeader, aobjPending)
		return objUnion(w, objs(aobjCtrl)), w
	case akFollowerReplicate:
		w := objs(aobjOffset + r)
		return objUnion(w, objs(aobjOffset+asyncLeader)), w
	}
	return Objects{}, Objects{}
}

// Guards is the number of guards of group g.
func (m *AsyncModel) Guards(g int) int {
	if k, _, real := m.groupOf(g); real && k == akControllerHandleRequest {
		return 2
	}
	return 1
}

// GuardReads is what guard j of group g reads.
func (m *AsyncModel) GuardReads(g, j int) Objects {
	k, r, real := m.groupOf(g)
	if !real {
		return Objects{}
	}
	switch k {
	case akControllerShrinkIsr:
		return objs(aobjCtrl) // r in the controller's ISR, version below the bound
	case akControllerHandleRequest:
		if j == 0 {
			return objs(aobjCtrl) // version below the bound
		}
		return objs(aobjCtrl, aobjReqs) // a request at the controller's version
	case akLeaderRequestShrinkIsr, akLeaderRequestExpandIsr:
		return objs(aobjLeader) // r in (out of) the leader's ISR
	case akLeaderWrite:
		return objs(aobjOffset + asyncLeader) // the leader's offset below the bound
	case akLeaderHandleUpdate:
		return objs(aobjLeader, aobjCtrl) // an update above the leader's version
	case akFollowerReplicate:
		return objs(aobjOffset+r, aobjOffset+asyncLeader) // behind the leader
	}
	return Objects{}
}

// Guard reports whether guard j of group g holds in s.
func (m *AsyncModel) Guard(s *AsyncState, g, j int) bool {
	k, r, real := m.groupOf(g)
	if !real {
		return false
	}
	switch k {
	case akControllerShrinkIsr:
		return s.CtrlISR.Has(r) && int(s.CtrlVersion) < m.cfg.MaxVersion
	case akControllerHandleRequest:
		if j == 0 {
			return int(s.CtrlVersion) < m.cfg.MaxVersion
		}
		for isr := Set(0); isr < 16; isr++ {
			if s.hasRequest(isr, int(s.CtrlVersion)) {
				return true
			}
		}
		return false
	case akLeaderRequestShrinkIsr:
		return s.LeaderISR.Has(r)
	case akLeaderRequestExpandIsr:
		return !s.LeaderISR.Has(r)
	case akLeaderWrite:
		return int(s.Offsets[asyncLeader]) < m.cfg.MaxOffset
	case akLeaderHandleUpdate:
		return s.LeaderVersion < s.CtrlVersion
	case akFollowerReplicate:
		return s.Offsets[r] < s.Offsets[asyncLeader]
	}
	return false
}

// GuardEnablers declares the guards no step can turn true once false: the controller's
// version below max_version and the leader's offset below max_offset (both only grow),
// and the groups that can have no step. A follower behind the leader becomes so only by
// the leader's write (its own replication only closes the gap).
func (m *AsyncModel) GuardEnablers(s *AsyncState, g, j int, e *GroupSet) bool {
	k, _, real := m.groupOf(g)
	*e = GroupSet{}
	switch {
	case !real:
		return true
	case k == akControllerHandleRequest && j == 0, k == akLeaderWrite:
		return true
	case k == akFollowerReplicate:
		w := akLeaderWrite * m.n
		e[w>>6] |= 1 << (w & 63)
		return true
	}
	return false
}

// PropertyReads is what the invariant called name reads (checker.Property.Reads), or nil.
// TypeOk holds in every reachable state (as KafkaReplication's, PropertyReads on Model);
// TypeOkLiteral is false exactly where the pending version is Nil; ValidHighWatermark
// reads the controller's ISR, both of the leader's ISRs and every offset.
func (m *AsyncModel) PropertyReads(name string) *Objects {
	var o Objects
	switch name {
	case "TypeOk":
	case "TypeOkLiteral":
		o = objs(aobjPending)
	case "ValidHighWatermark":
		o = objs(aobjCtrl, aobjLeader, aobjPending)
		for r := 0; r < m.n; r++ {
			addObj(&o, aobjOffset+r)
		}
	default:
		return nil
	}
	return &o
}

package reference

// Independence of the steps of KafkaReplication's variants (checker.Independent, the
// engine's contract item 9, with checker.Enabling), for the partial-order reduction of
// safety checks. AsyncIsr's declarations are in asyncisr_independence.go.
//
// Objects, per replica r: its log (replicaLog[r]), its high watermark (replicaState[r].hw)
// and the rest of its replica state (leaderEpoch, leader, isr); then nextRecordId, the
// controller's requests (nextLeaderEpoch with leaderAndIsrRequests: every request is sent
// with the next epoch, so the two change together) and quorumState. The high watermark is
// an object of its own because the steps that move it (LeaderIncHighWatermark, a
// follower's fetch) change nothing else of the replica's state, and the ISR changes
// (LeaderExpandIsr, LeaderShrinkIsr) read it only on the leader.
//
// Groups: one per kind of the variant's Next and per replica bound by the action (two
// for the actions that bind two replicas: a leader and a follower). An action's other
// bound variables (the request's epoch) are within its group. Every footprint below is
// read off the action's code in actions.go and log.go; the comment on each says what it
// reads and writes. CheckIndependence checks them on every state of small configurations
// (independence_test.go).
//
// What is left to reduce is little (specs/reference.go runs the family without the reduction
// unless --por). Every ISR change (LeaderExpandIsr, LeaderShrinkIsr) writes quorumState,
// which every controller step reads and writes, and the controller's requests are what every
// role change (BecomeLeader, the BecomeFollower forms) reads; a follower's fetch writes a log
// that the ISR changes of its leader read (the lag test) and that every LeaderIncHighWatermark
// reads (its ISR may name any replica). So a stubborn set from any step reaches an ISR change,
// then the controller, then every role change, as long as the epoch sequence is not exhausted:
// measured on the suite's checks (kmc check SPEC --check NAME --por --format json, 5 December
// 2026), specs/reference/type-ok.toml kip320-r3 737,794 -> 737,788 states; no check of
// KafkaReplication loses more than 0.25% (weak-isr.toml kip101-r2, 16,113 -> 16,073); AsyncIsr's
// type-ok checks lose 1.2% (22,456 -> 22,196) and, with two replicas, 12% (168 -> 148).
// StrongIsr reads every replica's state and log and quorumState: no step is invisible to it,
// and nothing is reduced.

// GroupSet is a set of groups of steps, bit g for group g (checker.Groups: an alias of the
// same array, so that the model need not import the engine).
type GroupSet = [8]uint64

// Objects is a set of the model's objects (checker.Objects).
type Objects = [4]uint64

// The objects of KafkaReplication's state.
const (
	objLog    = 0                    // + r: replicaLog[r]
	objHW     = objLog + MaxReplicas // + r: replicaState[r].hw
	objRS     = objHW + MaxReplicas  // + r: replicaState[r] leaderEpoch, leader, isr
	objRecord = objRS + MaxReplicas  // nextRecordId
	objReqs   = objRecord + 1        // nextLeaderEpoch and leaderAndIsrRequests
	objQuorum = objReqs + 1          // quorumState
)

func addObj(o *Objects, i int) { o[i>>6] |= 1 << (i & 63) }

func objs(ids ...int) Objects {
	var o Objects
	for _, i := range ids {
		addObj(&o, i)
	}
	return o
}

func (m *Model) allObj(base int) Objects {
	var o Objects
	for r := 0; r < m.n; r++ {
		addObj(&o, base+r)
	}
	return o
}

func objUnion(a, b Objects) Objects {
	return Objects{a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3]}
}

// Groups is the number of groups: for each kind of the variant, one per pair of replicas
// (x, y) (kinds that bind one replica use y = 0 only; the other slots have no step).
func (m *Model) Groups() int { return len(m.kinds) * m.n * m.n }

// twoReplicas reports whether kind k binds two replicas in its code (code(k, x, y, ...)).
func twoReplicas(k int) bool {
	switch k {
	case kLeaderExpandIsr, kLeaderShrinkIsr, kLeaderExpandIsrBetterFencing, kLeaderShrinkIsrBetterFencing,
		kFencedLeaderExpandIsr, kFencedLeaderShrinkIsr,
		kBecomeFollowerTruncateToHighWatermark, kBecomeFollowerTruncateKip101, kBecomeFollowerTruncateKip279,
		kBecomeFollower, kFencedBecomeFollowerAndTruncate,
		kFollowerReplicate, kFollowerFetch, kFencedFollowerFetch, kFollowerTruncate:
		return true
	}
	return false
}

// Group is the group of action a: its kind and the replicas it binds (BecomeLeader's
// second argument is an epoch, not a replica).
func (m *Model) Group(a uint64) int {
	k, x, y, _ := decode(a)
	if k >= numKinds || m.local[k] < 0 {
		return -1
	}
	if !twoReplicas(k) {
		y = 0
	}
	return (m.local[k]*m.n+x)*m.n + y
}

// groupOf is the kind and the replicas of group g, and whether the group can have a step
// at all (a slot of the numbering that no action code maps to has none).
func (m *Model) groupOf(g int) (k, x, y int, real bool) {
	n := m.n
	k = m.kinds[g/(n*n)]
	x, y = g/n%n, g%n
	switch {
	case !twoReplicas(k):
		real = y == 0
	case k == kLeaderExpandIsr || k == kLeaderExpandIsrBetterFencing || k == kFencedLeaderExpandIsr:
		real = true // a leader outside its own ISR may add itself
	case k == kFollowerReplicate || k == kFollowerFetch || k == kFencedFollowerFetch:
		real = x != y
	default:
		real = x != y
	}
	return
}

// Footprint is what the steps of group g read and write.
func (m *Model) Footprint(g int) (reads, writes Objects) {
	k, x, y, real := m.groupOf(g)
	if !real {
		return Objects{}, Objects{}
	}
	switch k {
	case kControllerElectLeader, kControllerShrinkIsr:
		// ControllerUpdateIsr: reads quorumState (its leader and ISR) and the epoch
		// sequence; writes both and sends a request.
		w := objs(objReqs, objQuorum)
		return w, w
	case kBecomeLeader:
		// BecomeLeader(l): reads the requests and l's leader epoch; writes l's epoch,
		// leader and ISR, keeping its high watermark and log.
		return objs(objReqs, objRS+x), objs(objRS + x)
	case kLeaderWrite:
		// LeaderWrite(r): reads nextRecordId, whether r presumes leadership and its epoch,
		// and r's log (full or not); appends to r's log and takes the next record id.
		w := objs(objLog+x, objRecord)
		return objUnion(w, objs(objRS+x)), w
	case kLeaderShrinkIsr, kLeaderShrinkIsrBetterFencing, kFencedLeaderShrinkIsr:
		// Leader l drops follower f: IsTrueLeader(l) reads quorumState and l's state;
		// the lag test reads both replicas' states (leader, epoch) and both logs;
		// QuorumUpdateLeaderAndIsr writes the quorum's ISR and l's.
		w := objs(objQuorum, objRS+x)
		return objUnion(w, objs(objRS+y, objLog+x, objLog+y)), w
	case kLeaderExpandIsr, kLeaderExpandIsrBetterFencing, kFencedLeaderExpandIsr:
		// Leader l adds f: as a shrink, and the tests read l's high watermark
		// (IsFollowerCaughtUp(l, f, hw), HasFollowerReachedHighWatermark,
		// HasHighWatermarkReachedCurrentEpoch).
		w := objs(objQuorum, objRS+x)
		return objUnion(w, objs(objRS+y, objLog+x, objLog+y, objHW+x)), w
	case kLeaderIncHighWatermark, kImprovedLeaderIncHighWatermark, kFencedLeaderIncHighWatermark:
		// Leader l's hw + 1: reads l's state (its ISR, which may name any replica) and
		// every ISR member's state and log; writes l's high watermark.
		return objUnion(objUnion(m.allObj(objRS), m.allObj(objLog)), objs(objHW+x)), objs(objHW + x)
	case kBecomeFollowerTruncateToHighWatermark:
		// Replica r follows leader l by a request: reads the requests and r's state and
		// high watermark, truncates r's log to its high watermark (which stays as it is).
		w := objs(objRS+y, objLog+y)
		return objUnion(w, objs(objReqs, objHW+y)), w
	case kBecomeFollower:
		// Kip320FirstTry: r takes the request's epoch, leader and ISR; no truncation; its
		// high watermark is copied as it is (read, not changed).
		return objs(objReqs, objRS+y, objHW+y), objs(objRS + y)
	case kBecomeFollowerTruncateKip101, kBecomeFollowerTruncateKip279:
		// r truncates by comparing its log with leader l's (LookupOffsetForEpoch reads r's
		// hw too) and lowers its hw to the truncation offset.
		w := objs(objRS+y, objLog+y, objHW+y)
		return objUnion(w, objs(objReqs, objLog+x)), w
	case kFencedBecomeFollowerAndTruncate:
		// As Kip279's, and it reads whether l presumes leadership in the request's epoch.
		w := objs(objRS+y, objLog+y, objHW+y)
		return objUnion(w, objs(objReqs, objLog+x, objRS+x)), w
	case kFollowerReplicate, kFollowerFetch, kFencedFollowerFetch:
		// Follower f (x) copies leader l's (y) record at its end offset: reads both
		// replicas' states (leader, epoch), both logs and l's hw; appends to f's log and
		// sets f's hw to Min(l's hw, new end).
		w := objs(objLog+x, objHW+x)
		return objUnion(w, objs(objRS+x, objRS+y, objLog+y, objHW+y)), w
	case kFollowerTruncate:
		// Follower f (y) of leader l (x) truncates to the first non-matching offset:
		// reads both states and logs and f's hw; writes f's log and hw.
		w := objs(objLog+y, objHW+y)
		return objUnion(w, objs(objRS+x, objRS+y, objLog+x)), w
	}
	return Objects{}, Objects{}
}

// Guards is the number of guards of group g: conditions each of a few objects that hold
// wherever the group has a step.
func (m *Model) Guards(g int) int {
	k, _, _, real := m.groupOf(g)
	if !real {
		return 1 // false everywhere, reading nothing: the group never has a step
	}
	switch k {
	case kControllerElectLeader, kControllerShrinkIsr, kLeaderShrinkIsr, kLeaderShrinkIsrBetterFencing,
		kFencedLeaderShrinkIsr, kLeaderExpandIsr, kLeaderExpandIsrBetterFencing, kFencedLeaderExpandIsr,
		kLeaderIncHighWatermark, kImprovedLeaderIncHighWatermark, kFollowerTruncate:
		return 2
	case kLeaderWrite:
		return 3
	case kFollowerReplicate, kFollowerFetch:
		return 3
	case kFencedFollowerFetch:
		if m.off(GuardFetchLeaderEpoch) {
			return 2
		}
		return 3
	}
	return 1
}

// GuardReads is what guard j of group g reads.
func (m *Model) GuardReads(g, j int) Objects {
	k, x, y, real := m.groupOf(g)
	if !real {
		return Objects{}
	}
	switch k {
	case kControllerElectLeader, kControllerShrinkIsr:
		if j == 0 {
			return objs(objReqs) // the epoch sequence is not exhausted
		}
		return objs(objQuorum) // the replica is an eligible new leader / can fail
	case kBecomeLeader:
		return objs(objReqs, objRS+x) // a request names l with an epoch above l's
	case kLeaderWrite:
		return [...]Objects{objs(objRecord), objs(objRS + x), objs(objLog + x)}[j]
	case kLeaderShrinkIsr, kLeaderShrinkIsrBetterFencing, kFencedLeaderShrinkIsr,
		kLeaderExpandIsr, kLeaderExpandIsrBetterFencing, kFencedLeaderExpandIsr:
		if j == 0 {
			return objs(objQuorum, objRS+x) // IsTrueLeader(l)
		}
		return objs(objRS + x) // f in l's ISR (shrink), not in it (expand)
	case kLeaderIncHighWatermark:
		return [...]Objects{objs(objRS + x), objs(objHW + x)}[j] // presumes; hw < LogSize
	case kImprovedLeaderIncHighWatermark:
		return [...]Objects{objs(objRS + x), objs(objHW+x, objLog+x)}[j] // presumes; HasOffset(l, hw)
	case kFencedLeaderIncHighWatermark:
		return objs(objHW+x, objLog+x) // HasOffset(l, hw)
	case kBecomeFollowerTruncateToHighWatermark, kBecomeFollowerTruncateKip101, kBecomeFollowerTruncateKip279,
		kBecomeFollower, kFencedBecomeFollowerAndTruncate:
		return objs(objReqs, objRS+y) // a request names l with an epoch above r's
	case kFollowerReplicate, kFollowerFetch, kFencedFollowerFetch:
		// f's log is not full; l holds f's end offset; f follows l.
		return [...]Objects{objs(objLog + x), objs(objLog+x, objLog+y), objs(objRS + x)}[j]
	case kFollowerTruncate:
		return [...]Objects{objs(objRS + y), objs(objRS + x)}[j] // f follows l; l presumes
	}
	return Objects{}
}

// Guard reports whether guard j of group g holds in s.
func (m *Model) Guard(s *State, g, j int) bool {
	k, x, y, real := m.groupOf(g)
	if !real {
		return false
	}
	switch k {
	case kControllerElectLeader:
		if j == 0 {
			return m.canBumpEpoch(s)
		}
		return s.Quorum.ISR.Has(x) && int(s.Quorum.Leader) != x
	case kControllerShrinkIsr:
		if j == 0 {
			return m.canBumpEpoch(s)
		}
		return int(s.Quorum.Leader) == x || s.Quorum.ISR.Has(x)
	case kBecomeLeader:
		return s.requestAbove(x, x)
	case kLeaderWrite:
		switch j {
		case 0:
			return int(s.NextRecordID) <= m.cfg.MaxRecords-1
		case 1:
			return s.presumes(x)
		}
		return s.end(x) < m.cfg.LogSize
	case kLeaderShrinkIsr, kLeaderShrinkIsrBetterFencing, kFencedLeaderShrinkIsr:
		if j == 0 {
			return s.isTrueLeader(x)
		}
		return s.Replicas[x].ISR.Has(y)
	case kLeaderExpandIsr, kLeaderExpandIsrBetterFencing, kFencedLeaderExpandIsr:
		if j == 0 {
			return s.isTrueLeader(x)
		}
		return !s.Replicas[x].ISR.Has(y)
	case kLeaderIncHighWatermark:
		if j == 0 {
			return s.presumes(x)
		}
		return int(s.Replicas[x].HW) < m.cfg.LogSize
	case kImprovedLeaderIncHighWatermark:
		if j == 0 {
			return s.presumes(x)
		}
		return s.hasOffset(x, int(s.Replicas[x].HW))
	case kFencedLeaderIncHighWatermark:
		return s.hasOffset(x, int(s.Replicas[x].HW))
	case kBecomeFollowerTruncateToHighWatermark, kBecomeFollowerTruncateKip101, kBecomeFollowerTruncateKip279,
		kBecomeFollower, kFencedBecomeFollowerAndTruncate:
		return s.requestAbove(x, y)
	case kFollowerReplicate, kFollowerFetch, kFencedFollowerFetch:
		switch j {
		case 0:
			return s.end(x) < m.cfg.LogSize
		case 1:
			return s.hasOffset(y, s.end(x))
		}
		return s.following(x, y)
	case kFollowerTruncate:
		if j == 0 {
			return s.following(y, x)
		}
		return s.presumes(x)
	}
	return false
}

// requestAbove reports whether some request names leader l with an epoch above replica
// r's leader epoch (the guard of BecomeLeader, l = r, and of the BecomeFollower forms).
func (s *State) requestAbove(l, r int) bool {
	for e := int(s.Replicas[r].LeaderEpoch) + 1; e < int(s.NextLeaderEpoch); e++ {
		if int(s.Requests[e].Leader) == l {
			return true
		}
	}
	return false
}

// GuardEnablers declares the necessary enabling set of the one guard that many groups
// write but few can turn true: a request that names leader l with an epoch above replica
// r's (BecomeLeader, l = r, and the BecomeFollower forms). Only the controller sends
// requests, and only ControllerElectLeader(l) and ControllerShrinkIsr (which keeps the
// leader when another member fails) can send one naming l; every other step that writes
// r's state gives it a request's epoch, which only raises the bar. Every guard of a
// counter or a bound (ControllerUpdateIsr's epoch sequence, nextRecordId) can never turn
// true again: no step lowers them.
func (m *Model) GuardEnablers(s *State, g, j int, e *GroupSet) bool {
	k, x, _, real := m.groupOf(g)
	if !real {
		*e = GroupSet{}
		return true
	}
	switch k {
	case kBecomeLeader, kBecomeFollowerTruncateToHighWatermark, kBecomeFollowerTruncateKip101,
		kBecomeFollowerTruncateKip279, kBecomeFollower, kFencedBecomeFollowerAndTruncate:
		*e = GroupSet{}
		n := m.n
		el := (m.local[kControllerElectLeader]*n + x) * n
		e[el>>6] |= 1 << (el & 63)
		for r := 0; r < n; r++ {
			sh := (m.local[kControllerShrinkIsr]*n + r) * n
			e[sh>>6] |= 1 << (sh & 63)
		}
		return true
	case kControllerElectLeader, kControllerShrinkIsr:
		if j == 0 {
			*e = GroupSet{} // the epoch sequence only grows
			return true
		}
	case kLeaderWrite:
		if j == 0 {
			*e = GroupSet{} // nextRecordId only grows
			return true
		}
	}
	return false
}

// PropertyReads is what the invariant called name reads, in the objects of the footprints
// (checker.Property.Reads), or nil for a name it does not know.
//   - TypeOk holds in every reachable state (every action keeps each variable in its
//     type; the suite checks it on every check), so its value changes with no step and it
//     reads nothing a step writes, as two-phase commit's TCTypeOK.
//   - TypeOkLiteral is false wherever a log is not full, then TypeOk: every log.
//   - WeakIsr reads each replica's state (leader, ISR), high watermark and log.
//   - StrongIsr reads the same and the quorum's ISR.
//   - LeaderInIsr and LeaderInIsrLiteral read quorumState.
func (m *Model) PropertyReads(name string) *Objects {
	var o Objects
	switch name {
	case "TypeOk":
	case "TypeOkLiteral":
		o = m.allObj(objLog)
	case "WeakIsr":
		o = objUnion(objUnion(m.allObj(objRS), m.allObj(objHW)), m.allObj(objLog))
	case "StrongIsr":
		o = objUnion(objUnion(m.allObj(objRS), m.allObj(objHW)), objUnion(m.allObj(objLog), objs(objQuorum)))
	case "LeaderInIsr", "LeaderInIsrLiteral":
		o = objs(objQuorum)
	default:
		return nil
	}
	return &o
}

package kafka

// Independence of the steps (checker.Independent, the engine's contract item 9), for the
// partial-order reduction of safety checks: groups of steps, what each reads and writes,
// and their guards, fixed per configuration. The declarations are checked against the
// model on every reachable state of small configurations (independence_test.go,
// checker.CheckIndependence); where unsure they say more is read and written, not less.
//
// Objects, per broker b: its log with the leader-epoch cache and the checkpoint's stale
// entries (log), its high watermark and the acks it gave (hw: the acks, ghost state, are
// written only as a leader's high watermark passes a record, and a record's offset is the
// same in every log that holds it, so two brokers' acks commute), whether it is up (live:
// Alive, Register, Shut), its role, leader and leader epoch (role: written only by a
// LeaderAndIsr and a stop), the rest of its replica state (rep: fetch state, leader state,
// partition epoch and ISR), the fetch-plane message of follower b (fp: a fetch or
// OffsetsForLeaderEpoch request from b, or its response to b; at most one), the LeaderAndIsr
// to b (lai), and b's AlterPartition or its response (ap); then the controller's partition
// state (ctrl: leader, epochs, ISR), its membership (memb: live and shutting-down brokers,
// broker epochs), the number of records written, each fault budget, and the assignment order
// (open under symmetry). A step or guard that reads b's rep reads its live and role too.
//
// Groups: one per kind of step and broker, and per pair of brokers for the kinds that take
// two (a leader and a follower; FollowerSendFetch's code carries the leader it fetches from
// for this, model.go). A group that has no step in the configuration (a broker it lacks, a
// kind of the control plane or KRaft, a broker paired with itself) declares nothing and one
// false guard that reads nothing.
//
// Declared in detail for the single controller (controllers <= 1, no KRaft) without the
// send-side proposal of KAFKA-18723 (which rewrites every in-flight response after a
// truncation): there the fetch plane of each follower, each broker's log and the leader's
// request handling are groups of their own. Elsewhere every step is in one group, which
// conflicts with itself: the reduction then leaves the search as it is.

import "strconv"

// GroupSet is a set of groups of steps, bit g for group g (checker.Groups: an alias of the
// same array, so that the model need not import the engine).
type GroupSet = [8]uint64

// Objects is a set of the model's objects (checker.Objects).
type Objects = [4]uint64

// oset is Objects with the union.
type oset [4]uint64

const (
	objLog   = 0  // + b
	objHW    = 5  // + b
	objRep   = 10 // + b
	objFP    = 15 // + b
	objLAI   = 20 // + b
	objAP    = 25 // + b
	objCtrl  = 30
	objPlane = 31 // the control plane's and KRaft's state (not declared in detail)
	objWrit  = 32
	objAcked = 33 // unused: the acks are per broker's high watermark (objHW)
	objUsed  = 34 // + fault
	objOrd   = 34 + numFaults
	objLive  = objOrd + 1 // + b
	objMemb  = objLive + MaxBrokers
	objRole  = objMemb + 1 // + b
	numObjs  = objRole + MaxBrokers
)

func objs(o ...int) oset {
	var s oset
	for _, i := range o {
		s[i>>6] |= 1 << (i & 63)
	}
	return s
}

func (s oset) or(o oset) oset { return oset{s[0] | o[0], s[1] | o[1], s[2] | o[2], s[3] | o[3]} }

func (s oset) has(i int) bool { return s[i>>6]&(1<<(i&63)) != 0 }

// withLive adds broker b's liveness and role to s wherever s holds b's replica state: a step
// or guard that reads the replica reads whether it is up and what it is.
func (m *Model) withLive(s oset) oset {
	for b := 0; b < m.nb(); b++ {
		if s.has(objRep + b) {
			s = s.or(objs(objLive+b, objRole+b))
		}
	}
	return s
}

// each is the set of object base+b for every broker b.
func (m *Model) each(base int) oset {
	var s oset
	for b := 0; b < m.nb(); b++ {
		s = s.or(objs(base + b))
	}
	return s
}

func allObjects() oset {
	var s oset
	for i := 0; i < numObjs; i++ {
		s = s.or(objs(i))
	}
	return s
}

// fine reports whether the configuration has the detailed declarations.
func (m *Model) fine() bool { return !m.cp() && !m.kraft() && !m.on(Kafka18723SendSide) }

// Kinds of step that take two brokers: 25 groups each; the others one group per broker.
// FollowerSendFetch's are the follower and the leader it fetches from (its code carries both).
var pairKinds = [...]int{KindLeaderHandleFetch, KindLeaderHandleEpochRequest, KindNetworkReadRecord, KindNetworkReadGarbage, KindLeaderShrinkISR, KindFollowerSendFetch}

// groupBase is the first group of each kind (-1: a kind that has no group of its own),
// in the detailed declarations.
var groupBase, numGroups = func() ([numKinds]int, int) {
	var base [numKinds]int
	n := 0
	for k := range numKinds {
		base[k] = n
		n += MaxBrokers
		for _, p := range pairKinds {
			if p == k {
				n += MaxBrokers*MaxBrokers - MaxBrokers
			}
		}
	}
	return base, n
}()

func isPair(k int) bool {
	for _, p := range pairKinds {
		if p == k {
			return true
		}
	}
	return false
}

// Groups is the number of groups.
func (m *Model) Groups() int {
	if !m.fine() {
		return 1
	}
	return numGroups
}

// Group is the group of action a: its kind and its brokers.
func (m *Model) Group(a uint64) int {
	if !m.fine() {
		return 0
	}
	k := kindOf(a)
	if k >= numKinds {
		return -1
	}
	if isPair(k) {
		return groupBase[k] + argOf(a, 0)*MaxBrokers + argOf(a, 1)
	}
	return groupBase[k] + argOf(a, 0)
}

// singleKinds are the kinds of step the single controller's configurations have (fine); the
// others are the control plane's and KRaft's, and have no step there.
var singleKinds = func() (set [numKinds]bool) {
	for _, k := range []int{KindLeaderAppend, KindFollowerSendFetch, KindLeaderHandleFetch, KindNetworkReadRecord,
		KindFollowerHandleFetchResponse, KindFollowerSendEpochRequest, KindLeaderHandleEpochRequest,
		KindFollowerHandleEpochResponse, KindBrokerHandleLeaderAndIsr, KindLeaderShrinkISR,
		KindControllerHandleAlterPartition, KindLeaderHandleAlterPartitionResponse, KindControllerHandleBrokerFailure,
		KindControllerHandleBrokerStartup, KindControllerMoveLeader, KindBrokerCrash, KindBrokerUncleanCrash,
		KindBrokerRestart, KindNetworkLoseMessage, KindBrokerPowerLoss, KindBrokerControlledShutdown,
		KindControllerElectPreferred, KindNetworkReadGarbage, KindBrokerBeginShutdown, KindBrokerStop} {
		set[k] = true
	}
	return
}()

// absent reports whether group g has no step in the configuration: a broker it does not
// have, a kind of the control plane or KRaft, a broker paired with itself (no broker
// fetches from itself), or a preferred election to another broker than the first. Such a group reads and writes nothing and
// has one guard, false, that reads nothing: nothing can enable it, so a stubborn set that
// takes it in takes in nothing more.
func (m *Model) absent(g int) bool {
	k, b, c := groupOf(g)
	return b >= m.nb() || c >= m.nb() || !singleKinds[k] || b == c || (k == KindControllerElectPreferred && b != 0)
}

// groupOf is the kind and brokers of group g.
func groupOf(g int) (k, b, c int) {
	x := groupTable[g]
	return int(x[0]), int(x[1]), int(x[2])
}

// groupTable is groupOf's answer per group, computed once.
var groupTable = func() [][3]int8 {
	t := make([][3]int8, numGroups)
	for g := range t {
		k := numKinds - 1
		for ; k > 0 && groupBase[k] > g; k-- {
		}
		i := g - groupBase[k]
		if isPair(k) {
			t[g] = [3]int8{int8(k), int8(i / MaxBrokers), int8(i % MaxBrokers)}
		} else {
			t[g] = [3]int8{int8(k), int8(i), -1}
		}
	}
	return t
}()

// controllerObjs is what the controller's steps may touch: its state and the order,
// every LeaderAndIsr and AlterPartition, every replica's state (liveness, registration,
// the shutdown a controlled shutdown grants) and the fault budgets.
func (m *Model) controllerObjs() oset {
	s := objs(objCtrl, objMemb, objOrd, objPlane).or(m.each(objLAI)).or(m.each(objAP)).or(m.each(objRep)).or(m.each(objLive)).or(m.each(objRole))
	for f := 0; f < numFaults; f++ {
		s = s.or(objs(objUsed + f))
	}
	return s
}

// stopObjs is what a broker's stop (crash, clean shutdown, power loss) touches: its
// replica, log and high watermark, every fetch-plane message (its connections close: its
// own, and its responses to followers), its LeaderAndIsr and AlterPartition, and the fault
// budgets.
func (m *Model) stopObjs(b int) oset {
	s := objs(objLog+b, objHW+b, objRep+b, objLive+b, objRole+b, objLAI+b, objAP+b).or(m.each(objFP))
	for f := 0; f < numFaults; f++ {
		s = s.or(objs(objUsed + f))
	}
	return s
}

// Footprint is what the steps of group g read and write.
func (m *Model) Footprint(g int) (reads, writes Objects) {
	r, w := m.footprint(g)
	return Objects(r), Objects(w)
}

func (m *Model) footprint(g int) (reads, writes oset) {
	if !m.fine() {
		a := allObjects()
		return a, a
	}
	if m.absent(g) {
		return oset{}, oset{}
	}
	k, b, c := groupOf(g)
	r, w := m.kindFootprint(k, b, c)
	return m.withLive(r), w
}

// announce is what the single controller's publication of a new partition state reads and
// writes besides its own state (publish, sendLeaderAndIsr): every broker's liveness (a
// LeaderAndIsr goes to the live brokers not closing, and with KIP-380 not to one down or
// restarted and not yet handled) and every LeaderAndIsr in flight (replaced).
func (m *Model) announce() oset { return m.each(objLive).or(m.each(objLAI)) }

func (m *Model) kindFootprint(k, b, c int) (reads, writes oset) {
	rw := func(o oset) (oset, oset) { return o, o }
	switch k {
	case KindLeaderAppend:
		// Partition.appendRecordsToLeader; maybeIncrementHW reads the followers' offsets.
		w := objs(objLog+b, objHW+b, objWrit)
		return w.or(objs(objRep + b)), w
	case KindLeaderHandleFetch:
		// handleFetch: the leader's log, state and HW; the follower's request and the
		// response; the ISR join (AlterPartition, or the store before KIP-497) reads the
		// controller's live brokers.
		w := objs(objRep+b, objHW+b, objFP+c, objAP+b)
		if !m.p.AlterPartition {
			w = w.or(objs(objCtrl)) // the leader writes the ISR to the store (writeIsr)
		}
		return w.or(objs(objLog+b, objMemb)), w
	case KindLeaderHandleEpochRequest:
		return objs(objRep+b, objLog+b, objFP+c), objs(objFP + c)
	case KindNetworkReadRecord, KindNetworkReadGarbage:
		// The network thread reads server b's log into follower c's response.
		return objs(objRep+c, objLog+b, objFP+c), objs(objFP + c)
	case KindFollowerSendFetch:
		// Follower b's request to leader c. Whether it would be a no-op (fetchIsNoop, which
		// serves it and handles the answer on a copy of the state) reads what
		// LeaderHandleFetch(c,b) reads, b's state, and the broker epoch b registered with
		// (the controller's). The acks the copy's leader might write are not read: a copy
		// whose high watermark moved differs from the state anyway.
		r := objs(objRep+b, objLog+b, objHW+b, objFP+b, objRep+c, objLog+c, objHW+c, objAP+c, objMemb)
		if !m.p.AlterPartition {
			r = r.or(objs(objCtrl))
		}
		return r, objs(objFP + b)
	case KindFollowerSendEpochRequest:
		r := m.each(objRep).or(objs(objLog+b, objHW+b, objFP+b))
		return r, objs(objLog+b, objHW+b, objRep+b, objFP+b)
	case KindFollowerHandleFetchResponse, KindFollowerHandleEpochResponse:
		return rw(objs(objRep+b, objLog+b, objHW+b, objFP+b))
	case KindBrokerHandleLeaderAndIsr:
		// Becoming leader (maybeIncrementHW) or follower (startFetching truncates; the
		// response in flight is dropped).
		return rw(objs(objRep+b, objRole+b, objLog+b, objHW+b, objFP+b, objLAI+b))
	case KindLeaderHandleAlterPartitionResponse:
		return rw(objs(objRep+b, objLog+b, objHW+b, objAP+b, objPlane))
	case KindLeaderShrinkISR:
		w := objs(objRep+b, objAP+b, objCtrl, objHW+b, objUsed+FaultLag)
		return w.or(objs(objLog+b, objMemb)), w
	case KindBrokerRestart:
		return rw(objs(objRep+b, objLive+b, objPlane))
	case KindControllerHandleAlterPartition:
		// handleAlterPartition: the request from b, the answer to b, the controller's state.
		// The membership: live (fenced), shutting down, broker epochs (KIP-903).
		return objs(objCtrl, objMemb, objAP+b), objs(objCtrl, objAP+b)
	case KindControllerHandleBrokerFailure:
		// brokerFailed (an election picks in the assignment order) and publish.
		r := objs(objCtrl, objMemb, objOrd).or(m.announce())
		return r, objs(objCtrl, objMemb, objOrd).or(m.each(objLAI))
	case KindControllerHandleBrokerStartup:
		// As a failure first for a bounced broker; b's registration is handled.
		r := objs(objCtrl, objMemb, objOrd).or(m.announce())
		return r, objs(objCtrl, objMemb, objOrd, objLive+b).or(m.each(objLAI))
	case KindControllerMoveLeader, KindControllerElectPreferred:
		// The partition state changes; the membership is only read.
		u := objs(objUsed + budgetOf(k))
		r := objs(objCtrl, objMemb).or(u).or(m.announce())
		return r, objs(objCtrl).or(u).or(m.each(objLAI))
	case KindBrokerCrash, KindBrokerUncleanCrash, KindBrokerPowerLoss, KindBrokerBeginShutdown, KindBrokerStop:
		return rw(m.stopObjs(b))
	case KindNetworkLoseMessage:
		return rw(objs(objFP+b, objUsed+FaultLoss))
	}
	// The controller's steps and the mechanisms' (elections, controlled shutdown,
	// preferred election, lost control messages), and any other: the controller's objects,
	// and a stopping broker's.
	a := m.controllerObjs().or(m.stopObjs(max(b, 0)))
	return a, a
}

// Guards is the number of guards of group g: one on the broker's replica state, and one on
// the message the step takes, where it takes one.
func (m *Model) Guards(g int) int {
	if !m.fine() {
		return 0
	}
	if m.absent(g) {
		return 1
	}
	k, _, _ := groupOf(g)
	switch k {
	case KindControllerMoveLeader, KindControllerElectPreferred:
		return 3 // the controller's view, the fault's budget, max_epoch
	case KindFollowerSendFetch:
		return 3 // the follower's leader, the message plane, the fetch state
	case KindLeaderShrinkISR:
		return 3 // a leader, the fault's budget, the follower behind in the ISR
	case KindLeaderHandleFetch, KindLeaderHandleEpochRequest, KindNetworkReadRecord, KindNetworkReadGarbage,
		KindFollowerHandleFetchResponse, KindFollowerHandleEpochResponse, KindBrokerHandleLeaderAndIsr,
		KindLeaderHandleAlterPartitionResponse, KindFollowerSendEpochRequest,
		KindLeaderAppend, KindBrokerCrash, KindBrokerUncleanCrash, KindBrokerPowerLoss, KindNetworkLoseMessage,
		KindBrokerControlledShutdown:
		return 2 // the replica's state, and the message to take or the bound or budget
	case KindBrokerRestart, KindBrokerBeginShutdown, KindBrokerStop,
		KindControllerHandleAlterPartition, KindControllerHandleBrokerFailure, KindControllerHandleBrokerStartup:
		return 1
	}
	return 0
}

// budgetOf is the fault whose budget a kind of step uses, or -1.
func budgetOf(k int) int {
	switch k {
	case KindBrokerCrash:
		return FaultCrash
	case KindBrokerUncleanCrash:
		return FaultUnclean
	case KindBrokerPowerLoss:
		return FaultPowerLoss
	case KindNetworkLoseMessage:
		return FaultLoss
	case KindLeaderShrinkISR:
		return FaultLag
	case KindBrokerControlledShutdown:
		return FaultControlledShutdown
	case KindControllerMoveLeader:
		return FaultLeaderChange
	case KindControllerElectPreferred:
		return FaultPreferred
	}
	return -1
}

// GuardReads is what guard j of group g reads.
func (m *Model) GuardReads(g, j int) Objects { return Objects(m.guardReads(g, j)) }

func (m *Model) guardReads(g, j int) oset {
	if m.absent(g) {
		return oset{}
	}
	k, b, c := groupOf(g)
	return m.withLive(m.kindGuardReads(k, b, c, j))
}

func (m *Model) kindGuardReads(k, b, c, j int) oset {
	if f := budgetOf(k); f >= 0 && j == 1 {
		return objs(objUsed + f)
	}
	switch {
	case k == KindLeaderAppend && j == 1:
		return objs(objWrit)
	case (k == KindControllerMoveLeader || k == KindControllerElectPreferred) && j == 2:
		return objs(objCtrl)
	}
	switch k {
	case KindLeaderHandleFetch, KindLeaderHandleEpochRequest:
		if j == 0 {
			return objs(objLive + b) // up and serving
		}
		return objs(objFP + c)
	case KindNetworkReadRecord, KindNetworkReadGarbage:
		if j == 0 {
			return objs(objLive + c)
		}
		return objs(objFP + c)
	case KindFollowerHandleFetchResponse, KindFollowerHandleEpochResponse:
		if j == 0 {
			return objs(objLive + b)
		}
		return objs(objFP + b)
	case KindFollowerSendFetch:
		switch j {
		case 0:
			return objs(objLive+b, objRole+b, objLive+c) // a follower of c, and c serving
		case 2:
			return objs(objRep + b) // the fetch state
		}
		return objs(objFP + b)
	case KindFollowerSendEpochRequest:
		if j == 0 {
			return objs(objRep + b)
		}
		return objs(objFP + b)
	case KindBrokerHandleLeaderAndIsr:
		if j == 0 {
			return objs(objLive + b)
		}
		return objs(objLAI + b)
	case KindLeaderHandleAlterPartitionResponse:
		if j == 0 {
			return objs(objLive + b)
		}
		return objs(objAP + b)
	case KindNetworkLoseMessage:
		return objs(objFP + b)
	case KindLeaderShrinkISR:
		if j == 0 {
			return objs(objLive+b, objRole+b)
		}
		return objs(objRep+b, objLog+b)
	case KindControllerHandleAlterPartition:
		return objs(objAP + b)
	case KindControllerHandleBrokerFailure:
		return objs(objLive+b, objMemb)
	case KindControllerMoveLeader, KindControllerElectPreferred:
		return objs(objCtrl, objMemb)
	case KindBrokerControlledShutdown:
		return objs(objRep+b, objCtrl, objMemb)
	case KindLeaderAppend:
		return objs(objLive+b, objRole+b) // a leader, serving
	}
	return objs(objLive + b) // restarts, crashes and stops, ControllerHandleBrokerStartup
}

// Guard reports whether guard j of group g holds in s.
func (m *Model) Guard(s *State, g, j int) bool {
	if m.absent(g) {
		return false
	}
	k, b, c := groupOf(g)
	r := &s.B[b]
	if f := budgetOf(k); f >= 0 && j == 1 {
		return m.budget(s, f)
	}
	switch {
	case k == KindLeaderAppend && j == 1:
		return int(s.Written) < m.C.MaxRecords
	case (k == KindControllerMoveLeader || k == KindControllerElectPreferred) && j == 2:
		return int(s.Ctrl.Epoch) < m.C.MaxEpoch
	}
	switch k {
	case KindLeaderHandleFetch, KindLeaderHandleEpochRequest:
		if j == 0 {
			return r.Alive && s.serving(b)
		}
		i := s.Net.fetchPlane(uint8(c))
		want := MsgFetch
		if k == KindLeaderHandleEpochRequest {
			want = MsgEpochRequest
		}
		return i >= 0 && s.Net.Msgs[i].To == uint8(b) && s.Net.Msgs[i].Kind == want
	case KindNetworkReadRecord, KindNetworkReadGarbage:
		if j == 0 {
			return s.B[c].Alive
		}
		i := s.Net.fetchPlane(uint8(c))
		return i >= 0 && s.Net.Msgs[i].Kind == MsgFetchResponse && s.Net.Msgs[i].From == uint8(b) &&
			s.Net.Msgs[i].Err == ErrNone && !m.readDone(&s.Net.Msgs[i])
	case KindFollowerHandleFetchResponse, KindFollowerHandleEpochResponse:
		if j == 0 {
			return r.Alive
		}
		i := s.Net.fetchPlane(uint8(b))
		if i < 0 {
			return false
		}
		msg := &s.Net.Msgs[i]
		if k == KindFollowerHandleEpochResponse {
			return msg.Kind == MsgEpochResponse
		}
		// Handled once read to its end, or at once with an error or a diverging epoch.
		return msg.Kind == MsgFetchResponse && (msg.Err != ErrNone || msg.DivE != NoEpoch || m.readDone(msg))
	case KindFollowerSendFetch, KindFollowerSendEpochRequest:
		if j == 0 {
			if k == KindFollowerSendFetch {
				return r.Alive && r.Role == RoleFollower && r.Leader == uint8(c)+1 && s.serving(c)
			}
			return r.Alive && r.Role == RoleFollower && r.Fetch == FetchTruncating && r.Leader != 0
		}
		if k == KindFollowerSendFetch && j == 2 {
			return r.Fetch == FetchFetching
		}
		return s.Net.fetchPlane(uint8(b)) < 0
	case KindBrokerHandleLeaderAndIsr:
		if j == 0 {
			return r.Alive
		}
		return s.Net.find(MsgLeaderAndIsr, CtrlID, uint8(b)) >= 0
	case KindLeaderHandleAlterPartitionResponse:
		if j == 0 {
			return r.Alive
		}
		return s.Net.find(MsgAlterPartitionResponse, CtrlID, uint8(b)) >= 0
	case KindNetworkLoseMessage:
		return s.Net.fetchPlane(uint8(b)) >= 0
	case KindLeaderShrinkISR:
		if j == 0 {
			return r.Alive && r.Role == RoleLeader
		}
		return !r.Pending && has(r.ISR, c) && r.FLEO[c] < r.LEO
	case KindLeaderAppend:
		return r.Alive && r.Role == RoleLeader && s.serving(b)
	case KindBrokerRestart:
		return !r.Alive
	case KindBrokerBeginShutdown:
		return r.Alive && r.Shut == ShutRequested
	case KindBrokerStop:
		return r.Alive && r.Shut == ShutClosing
	case KindControllerHandleAlterPartition:
		return s.Net.find(MsgAlterPartition, uint8(b), CtrlID) >= 0
	case KindControllerHandleBrokerFailure:
		return has(s.Ctrl.Live, b) && !r.Alive
	case KindControllerHandleBrokerStartup:
		return r.Alive && r.Register
	case KindControllerMoveLeader:
		c := &s.Ctrl
		return c.Leader != 0 && c.Leader != uint8(b)+1 && has(c.ISR, b) && has(c.Live&^c.Shut, b)
	case KindControllerElectPreferred:
		c := &s.Ctrl
		return has(c.Live&^c.Shut, 0) && c.Leader != 1 && has(c.ISR, 0)
	case KindBrokerControlledShutdown:
		return r.Alive && !r.Register && r.Shut == ShutNone && has(s.Ctrl.Live, b) && !has(s.Ctrl.Shut, b)
	}
	return r.Alive // crashes and stops
}

// PropertyReads is what the property called name reads, in the objects of the footprints
// (checker.Property.Reads), or nil for a property not declared here (every step is then
// visible to it).
func (m *Model) PropertyReads(name string) *Objects {
	var o oset
	switch name {
	case "NoPermanentDivergence":
		o = m.each(objLog).or(m.each(objHW))
	case "LogMatching":
		o = m.each(objLog)
	case "NoCommittedDataLoss":
		// The acks are broker b's high watermark's (objHW): see the objects.
		o = m.each(objLog).or(m.each(objHW)).or(m.each(objRep)).or(m.each(objLive)).or(objs(objCtrl, objMemb))
	default:
		return nil
	}
	r := Objects(m.withLive(o))
	return &r
}

// groupName names group g for messages: its kind and brokers (1-based).
func (m *Model) groupName(g int) string {
	k, b, c := groupOf(g)
	s := kindNames[k] + "(" + strconv.Itoa(b+1)
	if c >= 0 {
		s += "," + strconv.Itoa(c+1)
	}
	return s + ")"
}

// GuardEnablers is the necessary enabling set of guard j of group g, false in s
// (checker.Enabling): the groups whose steps can turn the guard true, where that is fewer
// than the groups that write what it reads. checker.CheckIndependence checks each on every
// state of the configurations of independence_test.go: a step of a group outside the set
// leaves the guard false and the set no larger. Where nothing is declared (false) the engine
// takes the guard's writers.
//
//   - a request in follower c's fetch plane to leader b (LeaderHandleFetch(b,c),
//     LeaderHandleEpochRequest(b,c)) is created only by c's send (FollowerSendFetch(c,b),
//     FollowerSendEpochRequest(c)): the leader's answer, the network's reads and c's handling
//     write the slot but never put a request in it;
//   - a fetch response from b to c with bytes left to read (NetworkRead*(b,c)) is created only
//     by b's handling of c's fetch; a read never makes a response less read;
//   - a fetch response read to its end, or with an error or a diverging epoch
//     (FollowerHandleFetchResponse(b)), only by a leader's handling of b's fetch or a network
//     read of it; an OffsetsForLeaderEpoch response only by a leader's answer;
//   - a fault's budget, max_records and max_epoch never come back: nothing turns those true;
//   - a broker's role and leader are written only by its LeaderAndIsr (a stop clears them):
//     a guard that fails on them is turned true by that broker's LeaderAndIsr only;
//   - an empty fetch plane of follower b (its next send) only by what takes the message out
//     (emptiers);
//   - an AlterPartition from leader b only by b's steps that send one, while b is up and
//     leads: handling a fetch (an ISR expansion), shrinking its ISR, handling an
//     AlterPartition response (a retry); its response only by the controller's handling;
//   - a follower's OffsetsForLeaderEpoch request waits for a truncating fetch state, which
//     only its LeaderAndIsr or its handling of a response sets.
func (m *Model) GuardEnablers(s *State, g, j int, e *GroupSet) bool {
	if !m.fine() {
		return false
	}
	if m.absent(g) {
		return true // nothing enables a group that has no step in the configuration
	}
	nb := m.nb()
	k, b, c := groupOf(g)
	r := &s.B[b]
	if f := budgetOf(k); f >= 0 && j == 1 {
		return true // a budget used up stays used up
	}
	switch {
	case k == KindLeaderAppend && j == 1:
		return true // records written only grow
	case (k == KindControllerMoveLeader || k == KindControllerElectPreferred) && j == 2:
		return true // the controller's epoch only grows
	}
	switch k {
	case KindLeaderHandleFetch:
		if j == 1 {
			addGroup(e, KindFollowerSendFetch, c, b)
			return true
		}
	case KindLeaderHandleEpochRequest:
		if j == 1 {
			addGroup(e, KindFollowerSendEpochRequest, c, -1)
			return true
		}
	case KindNetworkReadRecord, KindNetworkReadGarbage:
		if j == 1 {
			addGroup(e, KindLeaderHandleFetch, b, c)
			return true
		}
	case KindFollowerHandleFetchResponse, KindFollowerHandleEpochResponse:
		// A response b can handle comes from the message in its fetch plane: a request
		// answered, a response read. Whatever is there, or after it is gone, b's own send
		// comes first.
		if j != 1 {
			break
		}
		fetch := k == KindFollowerHandleFetchResponse
		for x := 0; x < nb; x++ {
			if fetch {
				addGroup(e, KindFollowerSendFetch, b, x)
			}
		}
		if !fetch {
			addGroup(e, KindFollowerSendEpochRequest, b, -1)
		}
		if i := s.Net.fetchPlane(uint8(b)); i >= 0 {
			msg := &s.Net.Msgs[i]
			switch {
			case fetch && msg.Kind == MsgFetch:
				addGroup(e, KindLeaderHandleFetch, int(msg.To), b)
			case fetch && msg.Kind == MsgFetchResponse:
				addGroup(e, KindNetworkReadRecord, int(msg.From), b)
				addGroup(e, KindNetworkReadGarbage, int(msg.From), b)
			case !fetch && msg.Kind == MsgEpochRequest:
				addGroup(e, KindLeaderHandleEpochRequest, int(msg.To), b)
			}
		}
		return true
	case KindFollowerSendFetch:
		switch j {
		case 0:
			if r.Role != RoleFollower || r.Leader != uint8(c)+1 {
				addGroup(e, KindBrokerHandleLeaderAndIsr, b, -1)
				return true
			}
		case 1:
			m.emptiers(s, b, e)
			return true
		}
	case KindFollowerSendEpochRequest:
		switch j {
		case 0:
			// A follower truncates on its LeaderAndIsr or on a fetch response that
			// says so (a diverging epoch, an offset out of range).
			if r.Role != RoleFollower || r.Leader == 0 {
				addGroup(e, KindBrokerHandleLeaderAndIsr, b, -1)
				return true
			}
			addGroup(e, KindBrokerHandleLeaderAndIsr, b, -1)
			addGroup(e, KindFollowerHandleFetchResponse, b, -1)
			addGroup(e, KindFollowerHandleEpochResponse, b, -1)
			return true
		case 1:
			m.emptiers(s, b, e)
			return true
		}
	case KindLeaderAppend:
		if j == 0 && r.Role != RoleLeader {
			addGroup(e, KindBrokerHandleLeaderAndIsr, b, -1)
			return true
		}
	case KindLeaderShrinkISR:
		if j == 0 && r.Role != RoleLeader {
			addGroup(e, KindBrokerHandleLeaderAndIsr, b, -1)
			return true
		}
	case KindLeaderHandleAlterPartitionResponse:
		if j == 1 {
			addGroup(e, KindControllerHandleAlterPartition, b, -1) // the controller's answer only
			return true
		}
	case KindControllerHandleAlterPartition:
		// Only b's steps send its AlterPartition, and only while b is up. A leader with
		// one in flight (Pending) sends no other until the answer or a LeaderAndIsr
		// clears it, a stop takes it down; one not in flight sends it to expand the ISR
		// (LeaderHandleFetch of a follower outside it), to shrink it, or as a retry.
		addGroup(e, KindBrokerRestart, b, -1)
		if !r.Alive {
			return true
		}
		addGroup(e, KindBrokerHandleLeaderAndIsr, b, -1)
		addGroup(e, KindBrokerControlledShutdown, b, -1)
		for _, k := range stopKinds {
			addGroup(e, k, b, -1)
		}
		if r.Role != RoleLeader {
			return true
		}
		addGroup(e, KindLeaderHandleAlterPartitionResponse, b, -1)
		if r.Pending {
			return true
		}
		for x := 0; x < nb; x++ {
			if !has(r.ISR, x) {
				addGroup(e, KindLeaderHandleFetch, b, x)
			}
			addGroup(e, KindLeaderShrinkISR, b, x)
		}
		return true
	}
	return false
}

// emptiers adds the groups that can empty follower b's fetch plane: b's handling of a
// response, a leader's answer that drops the request (an error the follower retries after a
// backoff), a network read that finds the server's file truncated (the connection closes),
// a lost message, b's LeaderAndIsr, a broker's stop or controlled shutdown (the
// connections it closes, the requests it no longer serves).
func (m *Model) emptiers(s *State, b int, e *GroupSet) {
	addGroup(e, KindFollowerHandleFetchResponse, b, -1)
	addGroup(e, KindFollowerHandleEpochResponse, b, -1)
	addGroup(e, KindNetworkLoseMessage, b, -1)
	addGroup(e, KindBrokerHandleLeaderAndIsr, b, -1)
	if i := s.Net.fetchPlane(uint8(b)); i >= 0 {
		// Only the message's server answers or reads it.
		msg := &s.Net.Msgs[i]
		x := int(msg.To)
		if msg.To == uint8(b) {
			x = int(msg.From)
		}
		addGroup(e, KindLeaderHandleFetch, x, b)
		addGroup(e, KindLeaderHandleEpochRequest, x, b)
		addGroup(e, KindNetworkReadRecord, x, b)
		addGroup(e, KindNetworkReadGarbage, x, b)
	}
	for x := 0; x < m.nb(); x++ {
		addGroup(e, KindBrokerControlledShutdown, x, -1)
		for _, k := range stopKinds {
			addGroup(e, k, x, -1)
		}
	}
}

// addGroup adds to e the group of kind k and broker b (and c, for a kind of two brokers).
func addGroup(e *GroupSet, k, b, c int) {
	h := groupBase[k] + b
	if c >= 0 {
		h = groupBase[k] + b*MaxBrokers + c
	}
	e[h>>6] |= 1 << (h & 63)
}

// stopKinds are the kinds of step that stop a broker.
var stopKinds = [...]int{KindBrokerCrash, KindBrokerUncleanCrash, KindBrokerPowerLoss, KindBrokerBeginShutdown, KindBrokerStop}

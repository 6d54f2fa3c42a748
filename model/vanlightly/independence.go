package vanlightly

// Independence of the steps (checker.Independent, the engine's contract item 9, with
// checker.Enabling), for the partial-order reduction of safety checks.
//
// Objects: per broker b its broker_state, broker_metadata_log (its length), partition_status,
// partition_metadata, partition_data (log and high watermark), partition_leso,
// partition_replica_state (the leader's view of every peer), partition_pending_ap and
// con_broker_reg; per pair of brokers the fetcher broker_fetchers[b][b1]; the controller's
// metadata log, its partition metadata, con_unfenced and aux_broker_epoch; each counter of
// aux_ctrs; each value's bit of inv_sent, inv_pos_acked, inv_neg_acked, and inv_true_hwm
// with inv_consumed (they change together); and the messages, as channels: each broker's
// RegisterBroker request and response, AlterPartition request and response, and the fetch
// requests and responses of each ordered pair of brokers. The messages variable is a set
// with delivery counts, held sorted (State, invariant 3), so two steps that send or take
// messages of different channels leave it the same in either order.
//
// Groups: one per kind of action and per broker it binds (two for the fetch plane: the
// follower and the broker it fetches from; a leader and a value for WriteRecordToLeader);
// the controller's choice of a new leader and a message's other fields are within the
// group. Every footprint below is read off the action's code in actions.go and
// functions.go; the comment on each says what it reads and writes. CheckIndependence
// checks them on every state of small configurations (independence_test.go).
//
// What is left to reduce is little (specs/vanlightly.go runs the family without the
// reduction unless --por). With the six invariants only SendFetchRequest is invisible (every
// other step writes a log, a broker's state or metadata, or the controller's partition
// metadata, which they read); a fetch request reads the follower's and the leader's logs and
// metadata and the leader's view of the follower (__SendFetchMakesProgress), so its set
// takes in the brokers' metadata updates, which wait on every controller step (the only
// steps that append to the metadata log), and the leader's fetch handling, which like every
// step that moves a high watermark writes the invariant variables (acknowledgements,
// inv_true_hwm). Measured (kmc check SPEC --check NAME --por --format json, 5 December 2026):
// specs/vanlightly/v3-5-simple.toml rf3-no-shutdown-no-alter-partition 157,986 -> 157,970
// states, rf2 314,423 -> 314,423. Visibility is most of it: with NoMetadataLogDivergence alone
// (it reads nothing a step writes, so every step is invisible) rf3 gives 157,986 -> 95,530
// (1.65x; go test ./model/vanlightly -run PORReduces -v, 5 December 2026); what the six
// invariants read (every log, broker status and partition
// metadata) leaves the fetch request the only invisible step.

// GroupSet is a set of groups of steps, bit g for group g (checker.Groups: an alias of the
// same array, so that the model need not import the engine).
type GroupSet = [8]uint64

// Objects is a set of the model's objects (checker.Objects).
type Objects = [4]uint64

// The objects, each per broker (+ b) or per pair (+ b*MaxBrokers + b1) where noted.
const (
	oBroker     = 0                                // + b: broker_state[b]
	oMDLen      = oBroker + MaxBrokers             // + b: broker_metadata_log[b]
	oStatus     = oMDLen + MaxBrokers              // + b: partition_status[b]
	oRepMD      = oStatus + MaxBrokers             // + b: partition_metadata[b]
	oData       = oRepMD + MaxBrokers              // + b: partition_data[b]
	oLeso       = oData + MaxBrokers               // + b: partition_leso[b]
	oPeers      = oLeso + MaxBrokers               // + b: partition_replica_state[b]
	oPending    = oPeers + MaxBrokers              // + b: partition_pending_ap[b]
	oReg        = oPending + MaxBrokers            // + b: con_broker_reg[b]
	oRegReq     = oReg + MaxBrokers                // + b: RegisterBrokerRequests from b
	oRegResp    = oRegReq + MaxBrokers             // + b: RegisterBrokerResponses to b
	oAPReq      = oRegResp + MaxBrokers            // + b: AlterPartitionRequests from b
	oAPResp     = oAPReq + MaxBrokers              // + b: AlterPartitionResponses to b
	oFetcher    = oAPResp + MaxBrokers             // + b*MaxBrokers + b1: broker_fetchers[b][b1]
	oFetchReq   = oFetcher + MaxBrokers*MaxBrokers // + f*MaxBrokers + l: FetchRequests from f to l
	oFetchResp  = oFetchReq + MaxBrokers*MaxBrokers
	oMDLog      = oFetchResp + MaxBrokers*MaxBrokers // con_metadata_log
	oPartMD     = oMDLog + 1                         // con_partition_metadata
	oUnfenced   = oPartMD + 1                        // con_unfenced
	oAuxEpoch   = oUnfenced + 1                      // aux_broker_epoch
	oCtrIncarn  = oAuxEpoch + 1                      // aux_ctrs.incarn_ctr
	oCtrClean   = oCtrIncarn + 1                     // clean_shutdown_ctr
	oCtrUnclean = oCtrClean + 1                      // unclean_shutdown_ctr
	oCtrFence   = oCtrUnclean + 1                    // fence_broker_ctr
	oCtrAP      = oCtrFence + 1                      // alter_part_ctr
	oSent       = oCtrAP + 1                         // + v: inv_sent's bit v
	oPosAcked   = oSent + MaxValues                  // inv_pos_acked
	oNegAcked   = oPosAcked + 1                      // inv_neg_acked
	oTrueHWM    = oNegAcked + 1                      // inv_true_hwm and inv_consumed
)

// oFetchResp + f*MaxBrokers + l: FetchResponses to follower f from l.

// objSet is a set of objects under construction.
type objSet Objects

func (o *objSet) add(ids ...int) *objSet {
	for _, i := range ids {
		o[i>>6] |= 1 << (i & 63)
	}
	return o
}

func (o *objSet) or(p objSet) *objSet {
	for i := range o {
		o[i] |= p[i]
	}
	return o
}

func pair(base, a, b int) int { return base + a*MaxBrokers + b }

// Groups is the number of groups: per kind, one per ordered pair of slots (x, y) of
// MaxBrokers each; kinds that bind one broker use y = 0. Slots beyond the configuration's
// brokers (or values) have no step.
func (m *Model) Groups() int { return numKinds * MaxBrokers * MaxBrokers }

// Group is the group of action a: its kind and the brokers it binds (from the code's
// source and destination for the actions that take a message).
func (m *Model) Group(a uint64) int {
	k, x, y, _ := decode(a)
	switch k {
	case kReceiveBrokerRegResponse, kReceiveAlterPartitionResponse:
		x, y = y, 0 // the message's destination
	case kReceiveFetchResponse:
		x, y = y, x // (follower, leader): the response goes from the leader to the follower
	case kSendFetchRequest, kReceiveFetchRequest, kWriteRecordToLeader:
	default:
		y = 0
	}
	if k >= numKinds || x >= MaxBrokers || y >= MaxBrokers {
		return -1
	}
	return (k*MaxBrokers+x)*MaxBrokers + y
}

// groupOf is the kind and the two slots of group g, and whether it can have a step.
func (m *Model) groupOf(g int) (k, x, y int, real bool) {
	k, x, y = g/(MaxBrokers*MaxBrokers), g/MaxBrokers%MaxBrokers, g%MaxBrokers
	switch k {
	case kSendFetchRequest, kReceiveFetchRequest, kReceiveFetchResponse:
		real = x < m.n && y < m.n && x != y
	case kWriteRecordToLeader:
		real = x < m.n && y < m.cfg.Values
	default:
		real = x < m.n && y == 0
	}
	return
}

// footprint is the reads and writes of group g (real).
func (m *Model) footprint(k, b, y int) (r, w objSet) {
	var acks objSet // SendAcksFor and UpdateHwmInvariantVars read every value's state
	for v := 0; v < m.cfg.Values; v++ {
		acks.add(oSent + v)
	}
	acks.add(oPosAcked, oNegAcked, oTrueHWM)
	switch k {
	case kBrokerStart:
		// reads and writes b's broker state (offline), its role (Nil), its registration
		// request and the incarnation counter.
		w.add(oBroker+b, oStatus+b, oRegReq+b, oCtrIncarn)
		return w, w
	case kReceiveBrokerRegResponse:
		// takes the response to b; writes b's broker state, metadata log and partition
		// metadata.
		w.add(oRegResp+b, oBroker+b, oMDLen+b, oRepMD+b)
		return w, w
	case kReceiveMetadataUpdate:
		// reads the controller's metadata log and b's state; writes b's metadata log,
		// partition metadata, role, fetchers, leso, replica state, pending AlterPartition,
		// and through its high watermark (MaybeUpdateHwmOnPartitionChange,
		// MaybeFailPendingWrites) b's data and the acknowledgements.
		w.add(oMDLen+b, oRepMD+b, oData+b, oStatus+b, oLeso+b, oPeers+b, oPending+b, oPosAcked, oNegAcked, oTrueHWM)
		for p := 0; p < m.n; p++ {
			w.add(pair(oFetcher, b, p))
		}
		r = w
		r.add(oMDLog, oBroker+b).or(acks)
		return r, w
	case kSendAlterPartitionRequest:
		// reads the counter, b's broker state, role, pending request, metadata, replica
		// state, high watermark and leso; sends a request, applies the maximal ISR, records
		// it as pending and counts it.
		w.add(oAPReq+b, oRepMD+b, oPending+b, oCtrAP)
		r = w
		r.add(oBroker+b, oStatus+b, oPeers+b, oData+b, oLeso+b)
		return r, w
	case kReceiveAlterPartitionResponse:
		// takes the response to b; reads b's broker state, role, pending request and
		// metadata; writes the metadata, the pending request, and through the high
		// watermark b's data and the acknowledgements (reading its replica state).
		w.add(oAPResp+b, oRepMD+b, oPending+b, oData+b, oPosAcked, oNegAcked, oTrueHWM)
		r = w
		r.add(oBroker+b, oStatus+b, oPeers+b).or(acks)
		return r, w
	case kSendFetchRequest:
		// follower b fetches from l = y: reads b's fetcher of l, broker state, metadata, log,
		// and (__SendFetchMakesProgress) l's leader epoch, log, high watermark and its view
		// of b; sends the request and marks the fetcher pending.
		l := y
		w.add(pair(oFetchReq, b, l), pair(oFetcher, b, l))
		r = w
		r.add(oBroker+b, oRepMD+b, oRepMD+l, oPeers+l, oData+b, oData+l)
		return r, w
	case kReceiveFetchRequest:
		// leader l = y takes b's request: reads l's broker state, role, metadata, log and
		// replica state; writes its view of b, its high watermark and the positive
		// acknowledgements (reading the others), and replies to b.
		l := y
		w.add(pair(oFetchReq, b, l), pair(oFetchResp, b, l), oPeers+l, oData+l, oPosAcked, oTrueHWM)
		r = w
		r.add(oRepMD+l, oBroker+l, oStatus+l).or(acks)
		return r, w
	case kReceiveFetchResponse:
		// follower b takes l's (y) response: reads b's broker state, role, fetcher of l and
		// log; writes the fetcher and the log (truncation, append, high watermark).
		l := y
		w.add(pair(oFetchResp, b, l), pair(oFetcher, b, l), oData+b)
		r = w
		r.add(oBroker+b, oStatus+b)
		return r, w
	case kWriteRecordToLeader:
		// leader b appends value v = y: reads whether v was sent, b's broker state, role,
		// maximal ISR and replica state; writes its log and high watermark, v's bit of
		// inv_sent and the positive acknowledgements.
		w.add(oData+b, oPosAcked, oTrueHWM, oSent+y)
		r = w
		r.add(oBroker+b, oStatus+b, oRepMD+b, oPeers+b).or(acks)
		return r, w
	case kUncleanShutdown, kCleanShutdown:
		// b stops: its broker state, role, replica state and pending request; its fetch
		// sessions (every fetch message to or from b, b's fetchers and the others' fetchers
		// of b); the negative acknowledgements of its pending writes; the controller fences
		// it (registration, unfenced set, partition metadata and log). An unclean shutdown
		// also loses b's log and leso, and reads the fence counter and the controller's
		// leader and ISR.
		ctr := oCtrClean
		if k == kUncleanShutdown {
			ctr = oCtrUnclean
			w.add(oData+b, oLeso+b)
		}
		w.add(oBroker+b, oStatus+b, oPeers+b, oPending+b, ctr, oNegAcked, oReg+b, oUnfenced, oPartMD, oMDLog)
		for p := 0; p < m.n; p++ {
			w.add(pair(oFetcher, b, p), pair(oFetcher, p, b), pair(oFetchReq, b, p), pair(oFetchReq, p, b),
				pair(oFetchResp, b, p), pair(oFetchResp, p, b))
		}
		r = w
		r.add(oData+b, oCtrFence).or(acks)
		return r, w
	case kReceiveBrokerRegRequest:
		// the controller takes b's registration: reads and writes b's registration, the
		// unfenced set, the partition metadata and log (a leader elected), the broker-epoch
		// counter, and replies to b.
		w.add(oRegReq+b, oRegResp+b, oReg+b, oPartMD, oMDLog, oUnfenced, oAuxEpoch)
		return w, w
	case kReceiveAlterPartitionRequest:
		// the controller takes b's request: reads the partition metadata and every proposed
		// member's registration; writes the partition metadata and log, and replies.
		w.add(oAPReq+b, oAPResp+b, oPartMD, oMDLog)
		r = w
		for p := 0; p < m.n; p++ {
			r.add(oReg + p)
		}
		return r, w
	case kFenceBroker:
		// the controller fences b: its registration, the unfenced set, the partition
		// metadata and log, the fence counter.
		w.add(oCtrFence, oReg+b, oPartMD, oMDLog, oUnfenced)
		return w, w
	case kUnfenceBroker:
		// as FenceBroker without the counter, and it reads that b is RUNNING.
		w.add(oReg+b, oPartMD, oMDLog, oUnfenced)
		r = w
		r.add(oBroker + b)
		return r, w
	}
	return
}

// Footprint is what the steps of group g read and write.
func (m *Model) Footprint(g int) (reads, writes Objects) {
	k, x, y, real := m.groupOf(g)
	if !real {
		return Objects{}, Objects{}
	}
	r, w := m.footprint(k, x, y)
	return Objects(r), Objects(w)
}

// Guards is the number of guards of group g: conditions, each of a few objects, that hold
// wherever it has a step.
func (m *Model) Guards(g int) int {
	k, _, _, real := m.groupOf(g)
	if !real {
		return 1 // false everywhere, reading nothing
	}
	switch k {
	case kBrokerStart, kReceiveBrokerRegRequest, kReceiveAlterPartitionRequest:
		return 1
	case kReceiveBrokerRegResponse, kReceiveMetadataUpdate, kReceiveFetchRequest, kFenceBroker, kUnfenceBroker, kCleanShutdown:
		return 2
	case kReceiveAlterPartitionResponse, kSendFetchRequest, kReceiveFetchResponse, kUncleanShutdown:
		return 3
	case kWriteRecordToLeader:
		if m.off(GuardWriteMinIsr) {
			return 3
		}
		return 4
	case kSendAlterPartitionRequest:
		return 4
	}
	return 1
}

// guard is guard j of group (k, b, y): what it reads, and with s its value.
func (m *Model) guard(s *State, k, b, y, j int) (reads objSet, ok bool) {
	running := func(b int) (objSet, bool) {
		var o objSet
		o.add(oBroker + b)
		return o, s != nil && s.Broker[b].Status == Running
	}
	role := func(b int, r uint8) (objSet, bool) {
		var o objSet
		o.add(oStatus + b)
		return o, s != nil && s.Status[b] == r
	}
	one := func(obj int, v bool) (objSet, bool) {
		var o objSet
		o.add(obj)
		return o, v
	}
	has := func(obj int, typ uint8, src, dst int) (objSet, bool) {
		return one(obj, s != nil && s.hasMsg(typ, src, dst))
	}
	switch k {
	case kBrokerStart: // b is offline
		return one(oBroker+b, s != nil && (s.Broker[b].Status == OfflineClean || s.Broker[b].Status == OfflineDirty))
	case kReceiveBrokerRegResponse:
		if j == 0 {
			return has(oRegResp+b, RegisterBrokerResponse, Controller, b)
		}
		return one(oBroker+b, s != nil && !s.Broker[b].Registered)
	case kReceiveMetadataUpdate:
		if j == 0 { // a record b has not read
			var o objSet
			o.add(oMDLen+b, oMDLog)
			return o, s != nil && s.BrokerMDLen[b] < s.MDLen
		}
		return one(oBroker+b, s != nil && s.Broker[b].Registered && // registered and online
			s.Broker[b].Status != OfflineClean && s.Broker[b].Status != OfflineDirty)
	case kSendAlterPartitionRequest:
		switch j {
		case 0:
			return one(oCtrAP, s != nil && int(s.Ctrs.AlterPartition) < m.cfg.AlterPartitionLimit)
		case 1:
			return running(b)
		case 2:
			return role(b, RoleLeader)
		}
		var o objSet
		o.add(oPending+b, oRepMD+b)
		return o, s != nil && !s.pendingAPResponse(b)
	case kReceiveAlterPartitionResponse:
		switch j {
		case 0:
			return has(oAPResp+b, AlterPartitionResponse, Controller, b)
		case 1:
			return running(b)
		}
		return role(b, RoleLeader)
	case kSendFetchRequest:
		l := y
		switch j {
		case 0:
			f := func() bool { return s.Fetchers[b][l].HasPartition && !s.Fetchers[b][l].Pending }
			return one(pair(oFetcher, b, l), s != nil && f())
		case 1:
			return one(oRepMD+b, s != nil && int(s.RepMD[b].Leader) == l)
		}
		return running(b)
	case kReceiveFetchRequest:
		if j == 0 {
			return has(pair(oFetchReq, b, y), FetchRequest, b, y)
		}
		return running(y)
	case kReceiveFetchResponse:
		switch j {
		case 0:
			return has(pair(oFetchResp, b, y), FetchResponse, y, b)
		case 1:
			return running(b)
		}
		return one(pair(oFetcher, b, y), s != nil && s.Fetchers[b][y].Pending)
	case kWriteRecordToLeader:
		switch j {
		case 0:
			return one(oSent+y, s != nil && s.Sent&(1<<uint(y)) == 0)
		case 1:
			return running(b)
		case 2:
			return role(b, RoleLeader)
		}
		return one(oRepMD+b, s != nil && s.RepMD[b].MaximalISR.Len() >= m.cfg.MinISR)
	case kUncleanShutdown, kCleanShutdown:
		switch j {
		case 0:
			if k == kUncleanShutdown {
				return one(oCtrUnclean, s != nil && int(s.Ctrs.UncleanShutdown) < m.cfg.UncleanShutdownLimit)
			}
			return one(oCtrClean, s != nil && int(s.Ctrs.CleanShutdown) < m.cfg.CleanShutdownLimit)
		case 1:
			return one(oBroker+b, s != nil && s.Broker[b].Status != OfflineClean && s.Broker[b].Status != OfflineDirty)
		}
		return one(oCtrFence, s != nil && s.Ctrs.FenceBroker == 0)
	case kReceiveBrokerRegRequest:
		return has(oRegReq+b, RegisterBrokerRequest, b, Controller)
	case kReceiveAlterPartitionRequest:
		return has(oAPReq+b, AlterPartitionRequest, b, Controller)
	case kFenceBroker:
		if j == 0 {
			return one(oCtrFence, s != nil && int(s.Ctrs.FenceBroker) < m.cfg.FenceBrokerLimit)
		}
		return one(oReg+b, s != nil && s.Reg[b].Status == Unfenced)
	case kUnfenceBroker:
		if j == 0 {
			return one(oReg+b, s != nil && s.Reg[b].Status == Fenced)
		}
		return running(b)
	}
	return objSet{}, false
}

// hasMsg reports whether a message of type typ from src to dst can be received.
func (s *State) hasMsg(typ uint8, src, dst int) bool {
	for i := 0; i < int(s.NMsgs); i++ {
		if msg := &s.Msgs[i]; msg.Type == typ && int(msg.Src) == src && int(msg.Dst) == dst && s.Counts[i] > 0 {
			return true
		}
	}
	return false
}

// GuardReads is what guard j of group g reads.
func (m *Model) GuardReads(g, j int) Objects {
	k, x, y, real := m.groupOf(g)
	if !real {
		return Objects{}
	}
	r, _ := m.guard(nil, k, x, y, j)
	return Objects(r)
}

// Guard reports whether guard j of group g holds in s.
func (m *Model) Guard(s *State, g, j int) bool {
	k, x, y, real := m.groupOf(g)
	if !real {
		return false
	}
	_, ok := m.guard(s, k, x, y, j)
	return ok
}

func addGroup(e *GroupSet, g int) { e[g>>6] |= 1 << (g & 63) }

// GuardEnablers declares the necessary enabling sets that are smaller than the writers of
// what a guard reads: a message is created only by the step that sends it (the steps that
// take it or drop it, which also write its channel, cannot make one receivable), and a
// counter's or inv_sent's bound once reached stays reached (nothing lowers them), as does
// UncleanShutdown's "no broker fenced at will yet".
func (m *Model) GuardEnablers(s *State, g, j int, e *GroupSet) bool {
	k, x, y, real := m.groupOf(g)
	*e = GroupSet{}
	if !real {
		return true
	}
	grp := func(k, x, y int) int { return (k*MaxBrokers+x)*MaxBrokers + y }
	switch {
	case k == kReceiveBrokerRegResponse && j == 0:
		addGroup(e, grp(kReceiveBrokerRegRequest, x, 0))
	case k == kReceiveAlterPartitionResponse && j == 0:
		addGroup(e, grp(kReceiveAlterPartitionRequest, x, 0))
	case k == kReceiveFetchRequest && j == 0:
		addGroup(e, grp(kSendFetchRequest, x, y))
	case k == kReceiveFetchResponse && j == 0:
		addGroup(e, grp(kReceiveFetchRequest, x, y))
	case k == kReceiveBrokerRegRequest:
		addGroup(e, grp(kBrokerStart, x, 0))
	case k == kReceiveAlterPartitionRequest:
		addGroup(e, grp(kSendAlterPartitionRequest, x, 0))
	case k == kSendAlterPartitionRequest && j == 0, k == kWriteRecordToLeader && j == 0,
		(k == kUncleanShutdown || k == kCleanShutdown) && j == 0, k == kUncleanShutdown && j == 2,
		k == kFenceBroker && j == 0:
		// a bound reached: nothing lowers it
	default:
		return false
	}
	return true
}

// PropertyReads is what the invariant called name reads, in the objects of the footprints
// (checker.Property.Reads), or nil for a name it does not know.
//   - ValidLeaderMaximalISR: every broker's role and partition metadata (leader epoch, ISR,
//     maximal ISR, partition epoch), its pending AlterPartition, the controller's metadata.
//   - ControllerIsrHasUpToTrueHWM: the controller's ISR, every broker's status and log, the
//     true high watermark.
//   - LeaderHasCompleteCommittedLog: the controller's leader, the positive
//     acknowledgements, every log.
//   - NoPartitionLogDivergence: every log and high watermark.
//   - NoMetadataLogDivergence holds in every reachable state by the port's representation
//     (State, invariant 4: a broker's metadata log is a prefix of the controller's, kept as
//     its length, and no step makes it longer), so its value changes with no step and it
//     reads nothing a step writes, as two-phase commit's TCTypeOK.
//   - ConsumedRecordsMatchLeaderLog: every broker's role, leader epoch and log, the
//     controller's leader epoch, inv_consumed.
func (m *Model) PropertyReads(name string) *Objects {
	var o objSet
	all := func(base int) {
		for b := 0; b < m.n; b++ {
			o.add(base + b)
		}
	}
	switch name {
	case "ValidLeaderMaximalISR":
		all(oStatus)
		all(oRepMD)
		all(oPending)
		o.add(oPartMD)
	case "ControllerIsrHasUpToTrueHWM":
		all(oData)
		all(oBroker)
		o.add(oPartMD, oTrueHWM)
	case "LeaderHasCompleteCommittedLog":
		all(oData)
		o.add(oPartMD, oPosAcked)
	case "NoPartitionLogDivergence":
		all(oData)
	case "NoMetadataLogDivergence":
	case "ConsumedRecordsMatchLeaderLog":
		all(oStatus)
		all(oRepMD)
		all(oData)
		o.add(oPartMD, oTrueHWM)
	default:
		return nil
	}
	r := Objects(o)
	return &r
}

package vanlightly

// The actions of kafka_replication_v3_5_simple.tla, in the order of its Next. Each
// starts with its TLA+ name; guards and effects follow the module's text, reading the
// current state s and writing the successor t.

// Kinds of actions, in the order of the module's Next.
const (
	kBrokerStart = iota
	kReceiveBrokerRegResponse
	kReceiveMetadataUpdate
	kSendAlterPartitionRequest
	kReceiveAlterPartitionResponse
	kSendFetchRequest
	kReceiveFetchRequest
	kReceiveFetchResponse
	kWriteRecordToLeader
	kUncleanShutdown
	kCleanShutdown
	kReceiveBrokerRegRequest
	kReceiveAlterPartitionRequest
	kFenceBroker
	kUnfenceBroker
	numKinds
)

var kindNames = [numKinds]string{
	"BrokerStart", "ReceiveBrokerRegResponse", "ReceiveMetadataUpdate",
	"SendAlterPartitionRequest", "ReceiveAlterPartitionResponse", "SendFetchRequest",
	"ReceiveFetchRequest", "ReceiveFetchResponse", "WriteRecordToLeader", "UncleanShutdown",
	"CleanShutdown", "ReceiveBrokerRegRequest", "ReceiveAlterPartitionRequest", "FenceBroker",
	"UnfenceBroker",
}

// An action code: the kind in bits 0-7, then three small arguments of 4 bits each (a
// broker, a second broker or value, and the candidate chosen as leader + 1, or a set),
// and for an action that receives a message, 40 bits of a hash of the message (its
// identity: the same message gives the same code in every state).
func code(kind, x, y, z int) uint64 {
	return uint64(kind) | uint64(x&0xf)<<8 | uint64(y&0xf)<<12 | uint64(z&0xf)<<16
}

func msgCode(kind int, msg *Msg, z int) uint64 {
	var k [msgLen]byte
	appendMsgTo(k[:0], msg)
	h := uint64(14695981039346656037)
	for _, c := range k {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return code(kind, int(msg.Src)&0xf, int(msg.Dst)&0xf, z) | (h&(1<<40-1))<<20
}

func decode(a uint64) (kind, x, y, z int) {
	return int(a & 0xff), int(a >> 8 & 0xf), int(a >> 12 & 0xf), int(a >> 16 & 0xf)
}

// push appends a copy of s and its action code and returns a pointer to the copy.
func push(s *State, succ *[]State, acts *[]uint64, a uint64) *State {
	*succ = append(*succ, *s)
	*acts = append(*acts, a)
	return &(*succ)[len(*succ)-1]
}

// Next appends the successors of s, disjunct by disjunct of the module's Next, each in
// the order of its bound variables (brokers and values ascending, messages in the
// domain's order, leader candidates ascending).
func (m *Model) Next(s *State, succ []State, acts []uint64) ([]State, []uint64) {
	for k := 0; k < numKinds; k++ {
		succ, acts = m.next(k, s, succ, acts)
	}
	return succ, acts
}

func (m *Model) next(k int, s *State, succ []State, acts []uint64) ([]State, []uint64) {
	n := m.n
	switch k {
	case kBrokerStart:
		// BrokerStart: a stopped broker starts in STARTING with a new incarnation id and
		// sends a RegisterBrokerRequest (SendBrokerRegistration).
		for b := 0; b < n; b++ {
			if st := s.Broker[b].Status; st != OfflineClean && st != OfflineDirty {
				continue
			}
			t := push(s, &succ, &acts, code(k, b, 0, 0))
			t.Broker[b] = BrokerState{Status: Starting, Incarnation: s.Ctrs.Incarnation}
			t.Status[b] = RoleNil
			t.send(Msg{Type: RegisterBrokerRequest, Src: int8(b), Dst: Controller, Incarnation: s.Ctrs.Incarnation})
			t.Ctrs.Incarnation++
		}
	case kReceiveBrokerRegResponse:
		// ReceiveBrokerRegResponse: the broker jumps to RUNNING with its broker epoch and
		// catches up with the metadata log bar one record (__CatchUpBarOne), its
		// partition uninitialized. The module does not look at the broker's status here.
		for i := 0; i < int(s.NMsgs); i++ {
			if !s.receivable(i, RegisterBrokerResponse) {
				continue
			}
			msg := &s.Msgs[i]
			b := int(msg.Dst)
			if s.Broker[b].Registered {
				continue
			}
			t := push(s, &succ, &acts, msgCode(k, msg, 0))
			t.Broker[b] = BrokerState{Status: Running, BrokerEpoch: msg.BrokerEpoch, Incarnation: s.Broker[b].Incarnation, Registered: true}
			t.BrokerMDLen[b] = max(msg.MDOffset-1, 0)
			t.RepMD[b] = ReplicaMD{Leader: NoLeader}
			t.discard(i)
		}
	case kReceiveMetadataUpdate:
		for b := 0; b < n; b++ {
			succ, acts = m.receiveMetadataUpdate(s, b, succ, acts)
		}
	case kSendAlterPartitionRequest:
		if int(s.Ctrs.AlterPartition) >= m.cfg.AlterPartitionLimit {
			break
		}
		for b := 0; b < n; b++ {
			succ, acts = m.sendAlterPartitionRequest(s, b, succ, acts)
		}
	case kReceiveAlterPartitionResponse:
		for i := 0; i < int(s.NMsgs); i++ {
			succ, acts = m.receiveAlterPartitionResponse(s, i, succ, acts)
		}
	case kSendFetchRequest:
		// SendFetchRequest: a follower fetches from the broker it believes leads, when
		// its fetcher holds the partition, is not waiting, and the fetch makes progress.
		for from := 0; from < n; from++ {
			for to := 0; to < n; to++ {
				f := &s.Fetchers[from][to]
				if from == to || s.Broker[from].Status != Running || !f.HasPartition || f.Pending ||
					int(s.RepMD[from].Leader) != to || !m.sendFetchMakesProgress(s, from) {
					continue
				}
				t := push(s, &succ, &acts, code(k, from, to, 0))
				t.send(Msg{Type: FetchRequest, Src: int8(from), Dst: int8(to), BrokerEpoch: s.Broker[from].BrokerEpoch,
					LeaderEpoch: s.RepMD[from].LeaderEpoch, FetchOffset: f.FetchOffset, LastFetchedEpoch: f.LastFetchedEpoch})
				t.Fetchers[from][to].Pending = true
				t.Fetchers[from][to].Delayed = false
			}
		}
	case kReceiveFetchRequest:
		for i := 0; i < int(s.NMsgs); i++ {
			succ, acts = m.receiveFetchRequest(s, i, succ, acts)
		}
	case kReceiveFetchResponse:
		for i := 0; i < int(s.NMsgs); i++ {
			succ, acts = m.receiveFetchResponse(s, i, succ, acts)
		}
	case kWriteRecordToLeader:
		for b := 0; b < n; b++ {
			for v := 0; v < m.cfg.Values; v++ {
				succ, acts = m.writeRecordToLeader(s, b, v, succ, acts)
			}
		}
	case kUncleanShutdown, kCleanShutdown:
		for b := 0; b < n; b++ {
			succ, acts = m.shutdown(k, s, b, succ, acts)
		}
	case kReceiveBrokerRegRequest:
		// ReceiveBrokerRegRequest: the controller accepts a registration of a fenced
		// broker, or of an unfenced one with the same incarnation id; the broker is
		// unfenced (HandleBrokerUnfenced) with broker epoch aux_broker_epoch + 1, and the
		// reply carries the metadata log's length before any record this step appends.
		for i := 0; i < int(s.NMsgs); i++ {
			if !s.receivable(i, RegisterBrokerRequest) {
				continue
			}
			msg := &s.Msgs[i]
			b := int(msg.Src)
			if s.Reg[b].Status != Fenced && s.Reg[b].Incarnation != msg.Incarnation && !m.off(GuardRegistrationIncarnation) {
				continue
			}
			isr, unfenced, pc, cands := unfencedOutcome(s, b)
			for c := -1; c < n; c++ {
				if (pc == pcElect) != (c >= 0) || (c >= 0 && !cands.Has(c)) {
					continue
				}
				t := push(s, &succ, &acts, msgCode(k, msg, c+1))
				epoch := s.AuxBrokerEpoch + 1
				t.Reg[b] = ConReg{Status: Unfenced, BrokerEpoch: epoch, Incarnation: msg.Incarnation}
				applyOutcome(s, t, pc, isr, c)
				t.Unfenced = unfenced
				t.reply(i, Msg{Type: RegisterBrokerResponse, Src: Controller, Dst: int8(b), BrokerEpoch: epoch, MDOffset: s.MDLen})
				t.AuxBrokerEpoch = epoch
			}
		}
	case kReceiveAlterPartitionRequest:
		for i := 0; i < int(s.NMsgs); i++ {
			succ, acts = m.receiveAlterPartitionRequest(s, i, succ, acts)
		}
	case kFenceBroker:
		// FenceBroker: the controller fences an unfenced broker at any time (a missed
		// heartbeat), within FenceBrokerLimit (HandleBrokerFenced).
		if int(s.Ctrs.FenceBroker) >= m.cfg.FenceBrokerLimit {
			break
		}
		for b := 0; b < n; b++ {
			if s.Reg[b].Status != Unfenced {
				continue
			}
			isr, unfenced, pc, cands := fencedOutcome(s, b)
			for c := -1; c < n; c++ {
				if (pc == pcElect) != (c >= 0) || (c >= 0 && !cands.Has(c)) {
					continue
				}
				t := push(s, &succ, &acts, code(k, b, 0, c+1))
				applyOutcome(s, t, pc, isr, c)
				t.Unfenced = unfenced
				t.Reg[b].Status = Fenced
				t.Ctrs.FenceBroker++
			}
		}
	case kUnfenceBroker:
		// UnfenceBroker: the controller unfences a fenced RUNNING broker at any time (a
		// heartbeat), electing a leader if there is none (HandleBrokerUnfenced).
		for b := 0; b < n; b++ {
			if s.Reg[b].Status != Fenced || s.Broker[b].Status != Running {
				continue
			}
			isr, unfenced, pc, cands := unfencedOutcome(s, b)
			for c := -1; c < n; c++ {
				if (pc == pcElect) != (c >= 0) || (c >= 0 && !cands.Has(c)) {
					continue
				}
				t := push(s, &succ, &acts, code(k, b, 0, c+1))
				applyOutcome(s, t, pc, isr, c)
				t.Unfenced = unfenced
				t.Reg[b].Status = Unfenced
			}
		}
	}
	return succ, acts
}

// receiveMetadataUpdate is ReceiveMetadataUpdate for broker b: it reads the metadata
// log up to the next record it cares about (a follower skips records that bump no leader
// epoch: NextMetadataRecord) and, if that record has a higher partition epoch, takes it
// as its partition state with one of the sub-actions RemainLeader,
// BecomeLeaderInNewEpoch, RemainFollower, BecomeFollowerInNewEpoch, WaitForLeaderChange.
func (m *Model) receiveMetadataUpdate(s *State, b int, succ []State, acts []uint64) ([]State, []uint64) {
	cur := int(s.BrokerMDLen[b])
	if cur >= int(s.MDLen) {
		return succ, acts
	}
	curMD := s.RepMD[b]
	leader := s.Status[b] == RoleLeader
	off := -1 // 1-based offset of NextMetadataRecord
	for o := cur + 1; o <= int(s.MDLen); o++ {
		if leader || s.MDLog[o-1].LeaderEpoch > curMD.LeaderEpoch {
			off = o
			break
		}
	}
	if off < 0 { // ExistMetadataUpdates
		return succ, acts
	}
	if st := s.Broker[b].Status; st == OfflineClean || st == OfflineDirty || !s.Broker[b].Registered {
		return succ, acts
	}
	rec := s.MDLog[off-1]
	t := push(s, &succ, &acts, code(kReceiveMetadataUpdate, b, 0, 0))
	t.BrokerMDLen[b] = int8(off)
	if rec.PartitionEpoch <= curMD.PartitionEpoch && !m.off(GuardMetadataPartitionEpoch) {
		return succ, acts // MetadataNoOp
	}
	md := ReplicaMD{ISR: rec.ISR, MaximalISR: rec.ISR, Leader: rec.Leader, LeaderEpoch: rec.LeaderEpoch, PartitionEpoch: rec.PartitionEpoch}
	t.RepMD[b] = md
	isNewLeader := s.Status[b] != RoleLeader && int(rec.Leader) == b
	switch {
	case int(curMD.Leader) == b && int(rec.Leader) == b:
		if curMD.LeaderEpoch == md.LeaderEpoch {
			// RemainLeader
			m.maybeUpdateHwmOnPartitionChange(s, t, b, &md)
			if md.PartitionEpoch >= s.Pending[b].Epoch {
				resetPendingAP(t, b)
			}
		} else {
			m.becomeLeaderInNewEpoch(s, t, b, &md, isNewLeader)
		}
	case int(rec.Leader) == b:
		m.becomeLeaderInNewEpoch(s, t, b, &md, isNewLeader)
	case rec.Leader != NoLeader:
		if md.LeaderEpoch == curMD.LeaderEpoch && int(curMD.Leader) != b && int(md.Leader) != b {
			break // RemainFollower
		}
		// BecomeFollowerInNewEpoch
		t.Status[b] = RoleFollower
		m.addPartitionToFetcher(s, t, b, int(md.Leader), md.LeaderEpoch)
		t.Leso[b] = Nil
		m.ensureLeadershipRenounced(s, t, b, &md)
	default:
		// WaitForLeaderChange
		t.Status[b] = RoleNil
		m.removePartitionFromFetchers(s, t, b)
		t.Leso[b] = Nil
		m.ensureLeadershipRenounced(s, t, b, &md)
	}
	return succ, acts
}

// becomeLeaderInNewEpoch is BecomeLeaderInNewEpoch(b, new_part_md, is_new_leader).
func (m *Model) becomeLeaderInNewEpoch(s, t *State, b int, md *ReplicaMD, isNewLeader bool) {
	t.Status[b] = RoleLeader
	m.maybeUpdateHwmOnPartitionChange(s, t, b, md)
	t.Leso[b] = int8(s.leo(b))
	if isNewLeader {
		m.resetReplicaState(t, b)
	}
	resetPendingAP(t, b)
	m.removePartitionFromFetchers(s, t, b)
}

// ensureLeadershipRenounced is EnsureLeadershipRenounced(b, new_part_md).
func (m *Model) ensureLeadershipRenounced(s, t *State, b int, md *ReplicaMD) {
	m.maybeFailPendingWrites(s, t, b, md)
	m.resetReplicaState(t, b)
	resetPendingAP(t, b)
}

// addPartitionToFetcher is AddPartitionToFetcher(b, leader, leader_epoch): on a new
// leader epoch, or when the leader's fetcher lacks the partition, the partition moves to
// that fetcher at b's LEO and last epoch, and leaves every other fetcher.
func (m *Model) addPartitionToFetcher(s, t *State, b, leader int, leaderEpoch int8) {
	// FetcherNewEpoch is a disjunct: turned off, it is false where it holds.
	newEpoch := leaderEpoch > s.RepMD[b].LeaderEpoch && !m.off(GuardFetcherNewEpoch)
	if !(newEpoch || !s.Fetchers[b][leader].HasPartition) {
		return
	}
	for p := 0; p < m.n; p++ {
		f := Fetcher{Pending: s.Fetchers[b][p].Pending}
		if p == leader {
			f.HasPartition = true
			f.FetchOffset = int8(s.leo(b))
			f.LastFetchedEpoch = s.Data[b].lastEpoch()
		}
		t.Fetchers[b][p] = f
	}
}

// removePartitionFromFetchers is RemovePartitionFromFetchers(b).
func (m *Model) removePartitionFromFetchers(s, t *State, b int) {
	for p := 0; p < m.n; p++ {
		t.Fetchers[b][p] = Fetcher{Pending: s.Fetchers[b][p].Pending}
	}
}

// sendAlterPartitionRequest is SendAlterPartitionRequest for leader b: for each set of
// timed-out followers (SUBSET Brokers without b), the caught-up followers form the
// proposed ISR; when it differs from the current ISR the leader sends it with the broker
// epochs of itself and of added members, and eagerly applies the maximal ISR. Different
// sets of timed-out followers that give the same proposal give the same step: it is
// generated once.
func (m *Model) sendAlterPartitionRequest(s *State, b int, succ []State, acts []uint64) ([]State, []uint64) {
	if s.Broker[b].Status != Running || s.pendingAPResponse(b) || s.Status[b] != RoleLeader {
		return succ, acts
	}
	n := m.n
	cur := s.RepMD[b].ISR
	var seen [1 << MaxBrokers]bool
	for mask := 0; mask < 1<<uint(n); mask++ {
		timedOut := Set(mask)
		if timedOut.Has(b) {
			continue
		}
		proposed := Set(0).With(b)
		for b1 := 0; b1 < n; b1++ {
			if b1 == b {
				continue
			}
			leo := s.Peers[b][b1].Leo
			if leo == Nil || (int(leo) < s.hwm(b) && !m.off(GuardISRJoinHW)) {
				continue
			}
			if !m.off(GuardISRJoinLeaderEpochStart) {
				if s.Leso[b] == Nil {
					tlcError("partition_leso[" + BrokerName(b) + "] is Nil in FollowerIsCaughtUp")
				}
				if leo < s.Leso[b] {
					continue
				}
			}
			if !timedOut.Has(b1) {
				proposed = proposed.With(b1)
			}
		}
		if proposed == cur || seen[proposed] {
			continue
		}
		seen[proposed] = true
		req := Msg{Type: AlterPartitionRequest, Src: int8(b), Dst: Controller, ISR: proposed,
			LeaderEpoch: s.RepMD[b].LeaderEpoch, PartitionEpoch: s.RepMD[b].PartitionEpoch, BrokerEpoch: s.Broker[b].BrokerEpoch}
		for b1 := 0; b1 < n; b1++ {
			switch {
			case !proposed.Has(b1):
			case b1 == b:
				req.Epochs[b1] = s.Broker[b].BrokerEpoch
			case cur.Has(b1):
				req.Epochs[b1] = 0
			default:
				req.Epochs[b1] = s.Peers[b][b1].BrokerEpoch
			}
		}
		t := push(s, &succ, &acts, code(kSendAlterPartitionRequest, b, 0, int(proposed)))
		t.send(req)
		t.RepMD[b].MaximalISR = proposed | cur
		t.Pending[b] = PendingAP{Epoch: s.RepMD[b].PartitionEpoch + 1, Has: true, Req: req}
		t.Ctrs.AlterPartition++
	}
	return succ, acts
}

// receiveAlterPartitionRequest is ReceiveAlterPartitionRequest: the controller accepts
// the request of the current leader with matching broker, partition and leader epochs
// (ValidateRequest) whose proposed members are unfenced with matching (or 0) broker
// epochs (EligibleIsr), applying it with the next partition epoch and the same leader
// epoch; otherwise it answers FencedLeaderEpoch or IneligibleReplica.
func (m *Model) receiveAlterPartitionRequest(s *State, i int, succ []State, acts []uint64) ([]State, []uint64) {
	if !s.receivable(i, AlterPartitionRequest) {
		return succ, acts
	}
	msg := &s.Msgs[i]
	b := int(msg.Src)
	md := s.PartMD
	err := FencedLeaderEpoch
	if (b == int(md.Leader) || m.off(GuardAlterPartitionLeader)) &&
		(msg.BrokerEpoch == s.Reg[b].BrokerEpoch || m.off(GuardAlterPartitionBrokerEpoch)) &&
		(msg.PartitionEpoch == md.PartitionEpoch || m.off(GuardAlterPartitionPartitionEpoch)) &&
		(msg.LeaderEpoch == md.LeaderEpoch || m.off(GuardAlterPartitionLeaderEpoch)) {
		err = ErrNil
		for b1 := 0; b1 < m.n; b1++ {
			if !msg.ISR.Has(b1) {
				continue
			}
			if (s.Reg[b1].Status != Unfenced && !m.off(GuardIsrMemberUnfenced)) ||
				(msg.Epochs[b1] != 0 && s.Reg[b1].BrokerEpoch != msg.Epochs[b1] && !m.off(GuardIsrMemberBrokerEpoch)) {
				err = IneligibleReplica
				break
			}
		}
	}
	t := push(s, &succ, &acts, msgCode(kReceiveAlterPartitionRequest, msg, 0))
	resp := *msg
	resp.Type, resp.Src, resp.Dst, resp.Err = AlterPartitionResponse, Controller, int8(b), err
	if err == ErrNil {
		applyPartitionChange(t, b, msg.ISR, md.LeaderEpoch, md.PartitionEpoch+1)
		resp.NewLeaderEpoch, resp.NewPartitionEpoch = md.LeaderEpoch, md.PartitionEpoch+1
	}
	t.reply(i, resp)
	return succ, acts
}

// request returns the AlterPartitionRequest an AlterPartitionResponse carries.
func (msg *Msg) request() Msg {
	req := *msg
	req.Type, req.Src, req.Dst, req.Err = AlterPartitionRequest, msg.Dst, Controller, ErrNil
	req.NewLeaderEpoch, req.NewPartitionEpoch = 0, 0
	return req
}

// receiveAlterPartitionResponse is ReceiveAlterPartitionResponse: the leader waiting for
// this very request commits the new partition state (CompletePartitionChange) if it is
// a success with a higher partition epoch, or rolls back its maximal ISR
// (RollbackPartitionChange) on an error.
func (m *Model) receiveAlterPartitionResponse(s *State, i int, succ []State, acts []uint64) ([]State, []uint64) {
	if !s.receivable(i, AlterPartitionResponse) {
		return succ, acts
	}
	msg := &s.Msgs[i]
	b := int(msg.Dst)
	if s.Broker[b].Status != Running || s.Status[b] != RoleLeader || !s.pendingAPResponse(b) ||
		!s.Pending[b].Has || (s.Pending[b].Req != msg.request() && !m.off(GuardAPResponseMatchesRequest)) {
		return succ, acts
	}
	if msg.Err == ErrNil && msg.NewPartitionEpoch <= s.RepMD[b].PartitionEpoch && !m.off(GuardAPResponsePartitionEpoch) {
		return succ, acts
	}
	t := push(s, &succ, &acts, msgCode(kReceiveAlterPartitionResponse, msg, 0))
	var md ReplicaMD
	if msg.Err == ErrNil {
		md = ReplicaMD{ISR: msg.ISR, MaximalISR: msg.ISR, Leader: msg.Dst, LeaderEpoch: msg.NewLeaderEpoch, PartitionEpoch: msg.NewPartitionEpoch}
	} else {
		md = s.RepMD[b]
		md.MaximalISR = md.ISR
	}
	t.RepMD[b] = md
	m.maybeUpdateHwmOnPartitionChange(s, t, b, &md)
	resetPendingAP(t, b)
	t.discard(i)
	return succ, acts
}

// receiveFetchRequest is ReceiveFetchRequest: a broker that is not the leader of the
// request's leader epoch answers with an error; a leader whose log diverges from the
// request's fetch offset and last fetched epoch answers with the diverging epoch;
// otherwise the leader records the follower's LEO and broker epoch, may advance its high
// watermark, and answers with the record at the fetch offset, if any.
func (m *Model) receiveFetchRequest(s *State, i int, succ []State, acts []uint64) ([]State, []uint64) {
	if !s.receivable(i, FetchRequest) || !m.receiveFetchMakesProgress(s, &s.Msgs[i]) {
		return succ, acts
	}
	msg := &s.Msgs[i]
	b := int(msg.Dst)
	if s.Broker[b].Status != Running {
		return succ, acts
	}
	t := push(s, &succ, &acts, msgCode(kReceiveFetchRequest, msg, 0))
	le := s.RepMD[b].LeaderEpoch
	resp := Msg{Type: FetchResponse, Src: int8(b), Dst: msg.Src, LeaderEpoch: le, FetchOffset: msg.FetchOffset, HWM: s.Data[b].HWM}
	if (s.Status[b] != RoleLeader && !m.off(GuardFetchFromLeader)) || (le != msg.LeaderEpoch && !m.off(GuardFetchLeaderEpoch)) {
		switch {
		case le < msg.LeaderEpoch:
			resp.Err = UnknownLeaderEpoch
		case le > msg.LeaderEpoch:
			resp.Err = FencedLeaderEpoch
		default:
			resp.Err = NotLeaderOrFollower
		}
		t.reply(i, resp)
		return succ, acts
	}
	de, do := s.lastOffsetForEpoch(b, msg.LastFetchedEpoch, true)
	if de < msg.LastFetchedEpoch || nilLess(do, msg.FetchOffset) {
		if do == Nil {
			tlcError("LastOffsetForEpoch gave a Nil end offset for a diverging epoch")
		}
		resp.HasDiv, resp.DivEpoch, resp.DivOffset = true, de, do
		t.reply(i, resp)
		return succ, acts
	}
	peers := s.Peers[b]
	peers[msg.Src] = PeerState{Leo: msg.FetchOffset, BrokerEpoch: msg.BrokerEpoch}
	oldHwm := s.hwm(b)
	newHwm := m.commitOffset(s, b, s.RepMD[b].MaximalISR, s.leo(b), &peers) + 1
	m.maybeAdvanceHighWatermark(s, t, b, oldHwm, newHwm, true)
	t.Peers[b] = peers
	resp.HWM = int8(max(newHwm, oldHwm))
	if int(msg.FetchOffset) < s.leo(b) {
		resp.HasRec, resp.Rec = true, s.entry(b, int(msg.FetchOffset))
	}
	t.reply(i, resp)
	return succ, acts
}

// nilLess is a < b for an offset a that may be Nil, where TLC would fail.
func nilLess(a, b int8) bool {
	if a == Nil {
		tlcError("an offset Nil compared with a number")
	}
	return a < b
}

// receiveFetchResponse is ReceiveFetchResponse: a response for a fetcher that no longer
// holds the partition or for another fetch offset only clears the pending flag; an error
// delays the fetcher; a diverging epoch truncates the log (TruncateToSafePoint); a
// response at the follower's LEO appends its records and takes its high watermark if it
// is within the log.
func (m *Model) receiveFetchResponse(s *State, i int, succ []State, acts []uint64) ([]State, []uint64) {
	if !s.receivable(i, FetchResponse) {
		return succ, acts
	}
	msg := &s.Msgs[i]
	b, src := int(msg.Dst), int(msg.Src)
	f := s.Fetchers[b][src]
	if s.Broker[b].Status != Running || !f.Pending {
		return succ, acts
	}
	isFollower := s.Status[b] == RoleFollower && f.HasPartition
	switch {
	case !isFollower || (f.HasPartition && f.FetchOffset != msg.FetchOffset && !m.off(GuardFetchResponseOffset)):
		t := push(s, &succ, &acts, msgCode(kReceiveFetchResponse, msg, 0))
		t.Fetchers[b][src].Pending = false
		t.discard(i)
	case msg.Err != ErrNil:
		t := push(s, &succ, &acts, msgCode(kReceiveFetchResponse, msg, 0))
		t.Fetchers[b][src].Pending = false
		t.Fetchers[b][src].Delayed = true
		t.discard(i)
	case msg.HasDiv:
		t := push(s, &succ, &acts, msgCode(kReceiveFetchResponse, msg, 0))
		// FindTruncatePoint and TruncateToSafePoint
		le, lo := s.lastOffsetForEpoch(b, msg.DivEpoch, false)
		var to int8
		switch {
		case le != msg.DivEpoch:
			to = lo
		case nilLess(lo, msg.DivOffset):
			to = lo
		default:
			to = msg.DivOffset
		}
		if to == Nil {
			tlcError("FindTruncatePoint gave Nil")
		}
		d := PartitionData{HWM: s.Data[b].HWM}
		if to > 1 {
			if int(to)-1 > int(s.Data[b].Len) {
				tlcError("TruncateToSafePoint reads LogEntry(" + BrokerName(b) + ", " + itoa(int(to)-1) + ") outside the log")
			}
			d.Len = to - 1
			copy(d.Log[:d.Len], s.Data[b].Log[:d.Len])
		}
		t.Data[b] = d
		t.Fetchers[b][src] = Fetcher{HasPartition: true, FetchOffset: int8(d.Leo()), LastFetchedEpoch: d.lastEpoch()}
		t.discard(i)
	default:
		if s.leo(b) != int(msg.FetchOffset) && !m.off(GuardFetchResponseLeo) {
			return succ, acts
		}
		t := push(s, &succ, &acts, msgCode(kReceiveFetchResponse, msg, 0))
		d := s.Data[b]
		lfe := f.LastFetchedEpoch
		if msg.HasRec {
			if int(d.Len) == MaxValues {
				panic("vanlightly: a log longer than |Values|")
			}
			d.Log[d.Len] = msg.Rec
			d.Len++
			lfe = msg.Rec.Epoch
		}
		newLeo := d.Leo()
		if int(msg.HWM) <= newLeo {
			d.HWM = msg.HWM
		}
		t.Data[b] = d
		t.Fetchers[b][src] = Fetcher{HasPartition: true, FetchOffset: int8(newLeo), LastFetchedEpoch: lfe}
		t.discard(i)
	}
	return succ, acts
}

// writeRecordToLeader is WriteRecordToLeader(b, v): a leader whose maximal ISR has at
// least MinISR members appends a value not yet written; its high watermark may advance
// (the acknowledgements read the log before the append, as the module does).
func (m *Model) writeRecordToLeader(s *State, b, v int, succ []State, acts []uint64) ([]State, []uint64) {
	if s.Sent&(1<<uint(v)) != 0 || s.Broker[b].Status != Running || s.Status[b] != RoleLeader ||
		(s.RepMD[b].MaximalISR.Len() < m.cfg.MinISR && !m.off(GuardWriteMinIsr)) {
		return succ, acts
	}
	t := push(s, &succ, &acts, code(kWriteRecordToLeader, b, v, 0))
	newLeo := s.leo(b) + 1
	oldHwm := s.hwm(b)
	newHwm := m.commitOffset(s, b, s.RepMD[b].MaximalISR, newLeo, &s.Peers[b]) + 1
	d := s.Data[b]
	if int(d.Len) == MaxValues {
		panic("vanlightly: a log longer than |Values|")
	}
	d.Log[d.Len] = Record{Epoch: s.RepMD[b].LeaderEpoch, Value: int8(v)}
	d.Len++
	d.HWM = int8(max(newHwm, oldHwm))
	t.Data[b] = d
	if newHwm > oldHwm {
		m.updateHwmInvariantVars(s, t, b, oldHwm, newHwm, true)
	}
	t.Sent = s.Sent | 1<<uint(v)
	return succ, acts
}

// shutdown is UncleanShutdown (the partition log is lost; only while no broker was
// fenced, and with AvoidLastReplicaStanding not the leader of a one-member ISR) and
// CleanShutdown: the broker goes offline, its fetch sessions are dropped
// (DropFetchSessions), its pending writes fail if it leads, and the controller fences it
// (HandleBrokerFenced).
func (m *Model) shutdown(k int, s *State, b int, succ []State, acts []uint64) ([]State, []uint64) {
	unclean := k == kUncleanShutdown
	if unclean {
		if int(s.Ctrs.UncleanShutdown) >= m.cfg.UncleanShutdownLimit {
			return succ, acts
		}
	} else if int(s.Ctrs.CleanShutdown) >= m.cfg.CleanShutdownLimit {
		return succ, acts
	}
	if st := s.Broker[b].Status; st == OfflineClean || st == OfflineDirty {
		return succ, acts
	}
	if unclean {
		if m.cfg.AvoidLastReplicaStanding && int(s.PartMD.Leader) == b && s.PartMD.ISR.Len() <= 1 {
			return succ, acts
		}
		if s.Ctrs.FenceBroker != 0 {
			return succ, acts
		}
	}
	n := m.n
	isr, unfenced, pc, cands := fencedOutcome(s, b)
	for c := -1; c < n; c++ {
		if (pc == pcElect) != (c >= 0) || (c >= 0 && !cands.Has(c)) {
			continue
		}
		t := push(s, &succ, &acts, code(k, b, 0, c+1))
		t.Broker[b] = BrokerState{Status: OfflineClean}
		if unclean {
			t.Broker[b].Status = OfflineDirty
		}
		m.dropFetchSessions(s, t, b)
		t.Status[b] = RoleNil
		if unclean {
			t.Data[b] = PartitionData{HWM: 1}
			t.Leso[b] = Nil
		}
		m.resetReplicaState(t, b)
		resetPendingAP(t, b)
		if unclean {
			t.Ctrs.UncleanShutdown++
		} else {
			t.Ctrs.CleanShutdown++
		}
		if s.Status[b] == RoleLeader && s.hwm(b) < s.leo(b) { // FailPendingWritesIfLeader
			m.failPendingWrites(s, t, b)
		}
		applyOutcome(s, t, pc, isr, c)
		t.Unfenced = unfenced
		t.Reg[b].Status = Fenced
	}
	return succ, acts
}

// dropFetchSessions is DropFetchSessions(b): every fetch request and response to or from
// b gets delivery count 0; b's fetchers are blank; a fetcher of another broker waiting on
// b stops waiting (delayed, if it holds the partition).
func (m *Model) dropFetchSessions(s, t *State, b int) {
	for i := 0; i < int(s.NMsgs); i++ {
		msg := &s.Msgs[i]
		if (msg.Type == FetchRequest || msg.Type == FetchResponse) && (int(msg.Dst) == b || int(msg.Src) == b) {
			t.Counts[i] = 0
		}
	}
	for b1 := 0; b1 < m.n; b1++ {
		if b1 == b {
			for p := 0; p < m.n; p++ {
				t.Fetchers[b][p] = Fetcher{}
			}
			continue
		}
		f := s.Fetchers[b1][b]
		if f.Pending {
			t.Fetchers[b1][b].Pending = false
			if f.HasPartition {
				t.Fetchers[b1][b].Delayed = true
			}
		}
	}
}

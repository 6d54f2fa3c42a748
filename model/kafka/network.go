package kafka

// The network: a bounded multiset of messages in flight, delivered in any order, kept as a
// sorted fixed array so that equal networks encode equally.
//
// Bounds that keep it small, each following Kafka: one outstanding fetch (or
// OffsetsForLeaderEpoch) per follower, as AbstractFetcherThread sends one request per
// leader at a time (and as Vanlightly's spec does); one AlterPartition in flight per
// broker (AlterPartitionManager keeps one inflight item per partition); one LeaderAndIsr
// per broker: the controller's channel to a broker is ordered and a broker ignores a
// LeaderAndIsr older than the one it has, so a newer one replaces an undelivered older one.

// Message kinds.
const (
	MsgNone                   uint8 = iota
	MsgFetch                        // FetchRequest{fetchOffset, lastFetchedEpoch, currentLeaderEpoch}
	MsgFetchResponse                // FetchResponse{error, HW, divergingEpoch, records[start,end)}
	MsgEpochRequest                 // OffsetsForLeaderEpochRequest{leaderEpoch, currentLeaderEpoch}
	MsgEpochResponse                // OffsetsForLeaderEpochResponse{error, leaderEpoch, endOffset}
	MsgLeaderAndIsr                 // LeaderAndIsr{leader, leaderEpoch, partitionEpoch, isr}
	MsgAlterPartition               // AlterPartition{leaderEpoch, partitionEpoch, newIsr}
	MsgAlterPartitionResponse       // AlterPartitionResponse{error, leaderEpoch, partitionEpoch, isr}
	numMsgKinds
)

var msgKindNames = [numMsgKinds]string{"", "FetchRequest", "FetchResponse",
	"OffsetsForLeaderEpochRequest", "OffsetsForLeaderEpochResponse", "LeaderAndIsr",
	"AlterPartition", "AlterPartitionResponse"}

// CtrlID is the From/To of a message to or from the controller.
const CtrlID uint8 = 7

// Error codes carried by responses (Kafka's Errors).
const (
	ErrNone                 uint8 = iota
	ErrFencedLeaderEpoch          // FENCED_LEADER_EPOCH: request epoch below the replica's
	ErrUnknownLeaderEpoch         // UNKNOWN_LEADER_EPOCH: request epoch above the replica's
	ErrNotLeaderOrFollower        // NOT_LEADER_OR_FOLLOWER
	ErrOffsetOutOfRange           // OFFSET_OUT_OF_RANGE
	ErrCorruptRecord              // CorruptRecordException; no message carries it: such a response is dropped where it arises (bytes.go)
	ErrInvalidUpdateVersion       // INVALID_UPDATE_VERSION (AlterPartition)
	ErrInvalidRequest             // INVALID_REQUEST (AlterPartition)
	ErrIneligibleReplica          // INELIGIBLE_REPLICA (AlterPartition)
	ErrNotController              // NOT_CONTROLLER (AlterPartition)
	numErrs
)

var errNames = [numErrs]string{"NONE", "FENCED_LEADER_EPOCH", "UNKNOWN_LEADER_EPOCH",
	"NOT_LEADER_OR_FOLLOWER", "OFFSET_OUT_OF_RANGE", "CORRUPT_RECORD",
	"INVALID_UPDATE_VERSION", "INVALID_REQUEST", "INELIGIBLE_REPLICA", "NOT_CONTROLLER"}

// Msg is one message in flight. Field use by kind:
//
//	FetchRequest:   Epoch currentLeaderEpoch, Off fetchOffset, Last lastFetchedEpoch
//	FetchResponse:  Epoch, Off echo the request; Err; HW; DivE, DivO divergingEpoch (DivE 0:
//	                none; with OFFSET_OUT_OF_RANGE DivO is the leader's LEO); [Start, End)
//	                the records' byte slice of the server's log (bytes.go; with uniform
//	                record sizes positions are offsets, and Start = Off); N batches copied
//	                so far into Recs, Offs their base offsets
//	EpochRequest:   Epoch currentLeaderEpoch, Last the requested epoch
//	EpochResponse:  Epoch echo; Err; DivE, DivO the answer (epoch, end offset)
//	LeaderAndIsr:   Epoch leaderEpoch, Off partitionEpoch, Last leader (index+1), HW isr;
//	                with the control plane DivE controllerEpoch, End sender incarnation+1
//	AlterPartition: Epoch leaderEpoch, Off partitionEpoch, HW proposed isr; with the control
//	                plane End the target incarnation+1 (0: queued in AlterPartitionManager)
//	AlterPartitionResponse: Err, Epoch leaderEpoch, Off partitionEpoch, HW isr; End the
//	                sender incarnation+1; NOT_CONTROLLER echoes the request's fields
type Msg struct {
	Kind, From, To      uint8
	Epoch, Off, Last    uint8
	Err, HW, DivE, DivO uint8
	End, N              uint8
	Recs                [MaxFetch]Entry
	Start               uint8
	Offs                [MaxFetch]uint8
}

// cmp orders messages by all their fields.
func (a *Msg) cmp(b *Msg) int {
	x := [...]uint8{a.Kind, a.From, a.To, a.Epoch, a.Off, a.Last, a.Err, a.HW, a.DivE, a.DivO, a.End, a.N, a.Start}
	y := [...]uint8{b.Kind, b.From, b.To, b.Epoch, b.Off, b.Last, b.Err, b.HW, b.DivE, b.DivO, b.End, b.N, b.Start}
	for i := range x {
		if x[i] != y[i] {
			if x[i] < y[i] {
				return -1
			}
			return 1
		}
	}
	for i := range a.Recs {
		if a.Recs[i] != b.Recs[i] {
			if a.Recs[i].Epoch != b.Recs[i].Epoch {
				if a.Recs[i].Epoch < b.Recs[i].Epoch {
					return -1
				}
				return 1
			}
			if a.Recs[i].ID < b.Recs[i].ID {
				return -1
			}
			return 1
		}
	}
	for i := range a.Offs {
		if a.Offs[i] != b.Offs[i] {
			if a.Offs[i] < b.Offs[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// Network is the messages in flight, sorted, Msgs[i] zero for i >= Len.
type Network struct {
	Msgs [MaxMsgs]Msg
	Len  uint8
}

// add inserts m in order.
func (n *Network) add(m Msg) {
	if int(n.Len) == len(n.Msgs) {
		panic("model: network overflow")
	}
	i := int(n.Len)
	for i > 0 && n.Msgs[i-1].cmp(&m) > 0 {
		n.Msgs[i] = n.Msgs[i-1]
		i--
	}
	n.Msgs[i] = m
	n.Len++
}

// remove deletes the message at i.
func (n *Network) remove(i int) {
	copy(n.Msgs[i:n.Len], n.Msgs[i+1:n.Len])
	n.Len--
	n.Msgs[n.Len] = Msg{}
}

// resort moves the message at i, whose fields changed, back into order.
func (n *Network) resort(i int) {
	m := n.Msgs[i]
	n.remove(i)
	n.add(m)
}

// find returns the index of the first message of kind k to broker to (CtrlID for the
// controller) from broker from (any when from is 0xff), or -1.
func (n *Network) find(k, from, to uint8) int {
	for i := 0; i < int(n.Len); i++ {
		m := &n.Msgs[i]
		if m.Kind == k && m.To == to && (from == 0xff || m.From == from) {
			return i
		}
	}
	return -1
}

// fetchPlane returns the index of the fetch-plane message (request or response of a fetch
// or of OffsetsForLeaderEpoch) of follower b, or -1: there is at most one.
func (n *Network) fetchPlane(b uint8) int {
	for i := 0; i < int(n.Len); i++ {
		m := &n.Msgs[i]
		switch m.Kind {
		case MsgFetch, MsgEpochRequest:
			if m.From == b {
				return i
			}
		case MsgFetchResponse, MsgEpochResponse:
			if m.To == b {
				return i
			}
		}
	}
	return -1
}

// alterPlane reports whether broker b has an AlterPartition or its response in flight.
func (n *Network) alterPlane(b uint8) bool {
	return n.find(MsgAlterPartition, b, CtrlID) >= 0 || n.find(MsgAlterPartitionResponse, CtrlID, b) >= 0
}

// dropBroker removes every message to or from broker b: its connections close.
func (n *Network) dropBroker(b uint8) {
	for i := 0; i < int(n.Len); {
		if n.Msgs[i].From == b || n.Msgs[i].To == b {
			n.remove(i)
			continue
		}
		i++
	}
}

// sendLeaderAndIsr queues m to broker m.To, replacing an undelivered older one.
func (n *Network) sendLeaderAndIsr(m Msg) {
	if i := n.find(MsgLeaderAndIsr, CtrlID, m.To); i >= 0 {
		m.Err |= n.Msgs[i].lapsed(&m)
		n.remove(i)
	}
	n.add(m)
}

// LapsedLeadership marks a LeaderAndIsr that replaced an undelivered older one naming
// another leader than its recipient (or itself so marked): on Kafka's ordered channel the
// recipient would have applied that older state first, becoming a follower (makeFollower),
// so this one makes it leader anew (Partition.makeLeader: isNewLeader = !isLeader) even
// when it led before both. The model's replacement keeps that one fact of the skipped
// state: the followers' log end offsets are reset (applyPartitionState).
const LapsedLeadership uint8 = 1

// lapsed is LapsedLeadership when newer, a LeaderAndIsr, names its recipient leader and g,
// the undelivered one it replaces, names another leader or is itself so marked. The mark
// matters only to a leader, so a follower's message never carries it.
func (g *Msg) lapsed(newer *Msg) uint8 {
	if newer.Last != newer.To+1 {
		return 0
	}
	if g.Last != g.To+1 {
		return LapsedLeadership
	}
	return g.Err & LapsedLeadership
}

// networkSteps generates the network thread's steps for follower b's fetch response: each
// sends the bytes at the read cursor, from the serving replica's current log (bytes.go).
// Kafka: the FetchResponse holds a FileRecords slice (LogSegment.read ->
// FileRecords.slice) whose bytes the network thread copies later (RecordsSend.writeTo ->
// FileRecords.writeTo); the server's truncation and appends interleave with it
// (KAFKA-18723).
//   - NetworkReadRecord(srv, b): the file is shorter than the slice's end, which fails the
//     send on the server (KafkaException; the connection closes); or the cursor is inside
//     a batch, whose garbage header the follower rejects (CorruptRecordException); either
//     way the follower retries and nothing else changes, so the response is dropped here
//     instead of being delivered, as the retriable errors are (handleFetch). Otherwise a
//     whole batch is copied, or a batch that ends past the slice ends the response there.
//   - NetworkReadGarbage(srv, b): the cursor is inside a batch and the follower's iterator
//     stops at the garbage header (a plausible length past the response's end): the
//     response ends at the cursor (readGarbage).
func (m *Model) networkSteps(g *gen, b int) {
	s := g.s
	i := s.Net.fetchPlane(uint8(b))
	if i < 0 {
		return
	}
	msg := &s.Net.Msgs[i]
	if msg.Kind != MsgFetchResponse || msg.Err != ErrNone || m.readDone(msg) {
		return
	}
	srv := int(msg.From)
	out, off := m.readAt(&s.B[srv], msg)
	t := g.emit(act2(KindNetworkReadRecord, srv, b))
	tm := &t.Net.Msgs[i]
	switch out {
	case readShort, readGarbage:
		t.Net.remove(i)
	case readPartial:
		tm.End = m.cursor(tm)
		t.Net.resort(i)
	case readBatch:
		if tm.N == MaxFetch {
			panic("model: fetch response overflow")
		}
		tm.Recs[tm.N], tm.Offs[tm.N] = t.B[srv].Log[off], off
		tm.N++
		t.Net.resort(i)
	}
	if out == readGarbage {
		t := g.emit(act2(KindNetworkReadGarbage, srv, b))
		tm := &t.Net.Msgs[i]
		tm.End = m.cursor(tm)
		t.Net.resort(i)
	}
}

// lossSteps generates NetworkLoseMessage(b), the loss of follower b's fetch-plane message
// (fault message_loss; also a request timeout: NetworkClient disconnects and the fetcher
// retries, AbstractFetcherThread.processFetchRequest's error path).
// Control-plane messages are not lost: Kafka's controller channel and AlterPartitionManager
// retry until delivered.
func (m *Model) lossSteps(g *gen, b int) {
	s := g.s
	budget := m.budget(s, FaultLoss)
	if !budget && !g.cutOn {
		return
	}
	i := s.Net.fetchPlane(uint8(b))
	if i < 0 {
		return
	}
	if !budget {
		g.cutStep(act1(KindNetworkLoseMessage, b), BoundCrash+FaultLoss)
		return
	}
	t := g.emit(act1(KindNetworkLoseMessage, b))
	t.Net.remove(i)
	t.Used[FaultLoss]++
}

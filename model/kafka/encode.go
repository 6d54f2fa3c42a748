package kafka

import (
	"errors"
	"strconv"
)

// Canonical binary encoding, ITF JSON values and a readable text form of a State.

// Encode appends the canonical encoding of s: the ghost and budget counters (with the
// order after them when it is open, flagged in the first byte's top bit), the
// controller, each broker (its leader state only when it leads, its log and cache entries
// one byte each), then the network's messages in their sorted order.
func (m *Model) Encode(s *State, buf []byte) []byte {
	w := s.Written
	if s.Ord.Open {
		w |= 128 // the order is open: After follows the counters
	}
	buf = append(buf, w,
		s.Used[0]<<4|s.Used[1], s.Used[2]<<4|s.Used[3], s.Used[4]<<4|s.Used[5])
	if s.Ord.Open {
		buf = append(buf, s.Ord.After[:m.nb()]...)
	}
	if m.mechBudgets() {
		buf = append(buf, s.Used[6]<<4|s.Used[7], s.Used[8])
	}
	buf = append(buf, s.Acked[:m.C.MaxRecords]...)
	c := &s.Ctrl
	buf = append(buf, c.Leader<<4|c.Epoch, c.PEpoch, c.ISR, c.Live)
	buf = append(buf, c.BEpoch[:m.nb()]...)
	if m.encShut() {
		buf = append(buf, c.Shut)
		for b := 0; b < m.nb(); b++ {
			r := &s.B[b]
			v := r.Shut
			if r.Clean {
				v |= 8
			}
			buf = append(buf, v)
		}
	}
	for b := 0; b < m.nb(); b++ {
		r := &s.B[b]
		f := r.statusBits() | r.Role<<3 | r.Fetch<<5
		if r.NStale > 0 {
			f |= 128
		}
		buf = append(buf, f, r.Leader<<4|r.Epoch, r.PEpoch, r.LastEp<<4|r.NCache, r.LEO<<4|r.HW)
		if r.NStale > 0 {
			buf = append(buf, r.NStale)
			for i := uint8(0); i < r.NStale; i++ {
				buf = append(buf, r.Stale[i].Epoch<<4|r.Stale[i].Start)
			}
			if r.NStale > 1 {
				buf = append(buf, r.StaleCut)
			}
		}
		if r.Role == RoleLeader {
			buf = append(buf, r.ISR, r.MaxISR, r.LESO)
			buf = append(buf, r.FLEO[:m.nb()]...)
		}
		for i := uint8(0); i < r.LEO; i++ {
			buf = append(buf, r.Log[i].Epoch<<4|r.Log[i].ID)
		}
		for i := uint8(0); i < r.NCache; i++ {
			buf = append(buf, r.Cache[i].Epoch<<4|r.Cache[i].Start)
		}
	}
	buf = append(buf, s.Net.Len)
	for i := 0; i < int(s.Net.Len); i++ {
		g := &s.Net.Msgs[i]
		buf = append(buf, g.Kind<<4|g.Err, g.From<<4|g.To, g.Epoch<<4|g.Last, g.Off, g.HW,
			g.DivE<<4|g.N, g.DivO, g.End, g.Start)
		for k := uint8(0); k < g.N; k++ {
			buf = append(buf, g.Recs[k].Epoch<<4|g.Recs[k].ID, g.Offs[k])
		}
	}
	if m.cp() {
		buf = m.encodeCP(s, buf)
	}
	if m.kraft() {
		buf = m.encodeKR(s, buf)
	}
	return buf
}

// statusBits is the replica's Alive, Register and Pending flags in bits 0, 1 and 2.
func (r *Replica) statusBits() uint8 {
	var f uint8
	if r.Alive {
		f |= 1
	}
	if r.Register {
		f |= 2
	}
	if r.Pending {
		f |= 4
	}
	return f
}

// Decode reads a state written by Encode into s.
func (m *Model) Decode(buf []byte, s *State) {
	if err := m.decode(buf, s); err != nil {
		panic("model: Decode: " + err.Error() + " (bytes from outside the engine go to DecodeChecked)")
	}
}

// DecodeChecked reads a state into s as Decode does, or returns an error, never a panic,
// when buf is not the canonical encoding of a valid state: it ends early, holds a count
// beyond its array, encodes back to other bytes, or is not Valid. It is for bytes from
// outside the engine, a checkpoint's (checker.CheckedDecoder).
func (m *Model) DecodeChecked(buf []byte, s *State) error {
	var t State
	if err := m.decode(buf, &t); err != nil {
		return errors.New("model: decode: " + err.Error())
	}
	if err := m.Valid(&t); err != nil {
		return err
	}
	if string(m.Encode(&t, nil)) != string(buf) {
		return errors.New("model: decode: not the canonical encoding of the state it reads as")
	}
	*s = t
	return nil
}

// errCount is decode's error for a count beyond its array.
var errCount = errors.New("a count beyond its array")

// errShort is decode's error for an encoding that ends early.
var errShort = errors.New("the encoding ends early")

// decode reads buf into s, checking that no byte is missing and that every count fits
// its array.
func (m *Model) decode(buf []byte, s *State) error {
	*s = State{}
	r := &byteReader{buf: buf}
	next := r.next
	s.Written = next()
	open := s.Written&128 != 0
	s.Written &^= 128
	v := next()
	s.Used[0], s.Used[1] = v>>4, v&15
	v = next()
	s.Used[2], s.Used[3] = v>>4, v&15
	v = next()
	s.Used[4], s.Used[5] = v>>4, v&15
	if open {
		s.Ord.Open = true
		for b := 0; b < m.nb(); b++ {
			s.Ord.After[b] = next()
		}
	}
	if m.mechBudgets() {
		v = next()
		s.Used[6], s.Used[7] = v>>4, v&15
		s.Used[8] = next()
	}
	for i := 0; i < m.C.MaxRecords; i++ {
		s.Acked[i] = next()
	}
	c := &s.Ctrl
	v = next()
	c.Leader, c.Epoch = v>>4, v&15
	c.PEpoch, c.ISR, c.Live = next(), next(), next()
	for b := 0; b < m.nb(); b++ {
		c.BEpoch[b] = next()
	}
	if m.encShut() {
		c.Shut = next()
		for b := 0; b < m.nb(); b++ {
			v := next()
			s.B[b].Shut, s.B[b].Clean = v&7, v&8 != 0
		}
	}
	for b := 0; b < m.nb(); b++ {
		r := &s.B[b]
		f := next()
		r.Alive, r.Register, r.Pending = f&1 != 0, f&2 != 0, f&4 != 0
		r.Role, r.Fetch = f>>3&3, f>>5&3
		v = next()
		r.Leader, r.Epoch = v>>4, v&15
		r.PEpoch = next()
		v = next()
		r.LastEp, r.NCache = v>>4, v&15
		v = next()
		r.LEO, r.HW = v>>4, v&15
		if int(r.LEO) > len(r.Log) || int(r.NCache) > len(r.Cache) {
			return errCount
		}
		if f&128 != 0 {
			if r.NStale = next(); int(r.NStale) > len(r.Stale) {
				return errCount
			}
			for i := uint8(0); i < r.NStale; i++ {
				v = next()
				r.Stale[i] = EpochEntry{Epoch: v >> 4, Start: v & 15}
			}
			if r.NStale > 1 {
				r.StaleCut = next()
			}
		}
		if r.Role == RoleLeader {
			r.ISR, r.MaxISR, r.LESO = next(), next(), next()
			for f := 0; f < m.nb(); f++ {
				r.FLEO[f] = next()
			}
		}
		for i := uint8(0); i < r.LEO; i++ {
			v = next()
			r.Log[i] = Entry{Epoch: v >> 4, ID: v & 15}
		}
		for i := uint8(0); i < r.NCache; i++ {
			v = next()
			r.Cache[i] = EpochEntry{Epoch: v >> 4, Start: v & 15}
		}
	}
	if s.Net.Len = next(); int(s.Net.Len) > len(s.Net.Msgs) {
		return errCount
	}
	for i := 0; i < int(s.Net.Len); i++ {
		g := &s.Net.Msgs[i]
		v = next()
		g.Kind, g.Err = v>>4, v&15
		v = next()
		g.From, g.To = v>>4, v&15
		v = next()
		g.Epoch, g.Last = v>>4, v&15
		g.Off, g.HW = next(), next()
		v = next()
		g.DivE, g.N = v>>4, v&15
		g.DivO, g.End, g.Start = next(), next(), next()
		if int(g.N) > len(g.Recs) {
			return errCount
		}
		for k := uint8(0); k < g.N; k++ {
			v = next()
			g.Recs[k] = Entry{Epoch: v >> 4, ID: v & 15}
			g.Offs[k] = next()
		}
	}
	if r.short {
		return errShort
	}
	if m.cp() {
		if err := m.decodeCP(buf[r.i:], s); err != nil {
			return err
		}
	}
	if m.kraft() {
		return m.decodeKR(buf[r.i:], s)
	}
	return nil
}

// byteReader reads an encoding a byte at a time; past its end it reads 0 and records that
// the encoding ended early.
type byteReader struct {
	buf   []byte
	i     int
	short bool
}

func (r *byteReader) next() uint8 {
	if r.i >= len(r.buf) {
		r.short = true
		return 0
	}
	v := r.buf[r.i]
	r.i++
	return v
}

// Variables, in Vars order.
const (
	VarStatus = iota
	VarRole
	VarLeader
	VarLeaderEpoch
	VarPartitionEpoch
	VarFetchState
	VarLastFetchedEpoch
	VarLog
	VarHW
	VarEpochCache
	VarLeaderState
	VarController
	VarMessages
	VarAcked
	VarWritten
	VarFaults
	numVars
)

var varNames = []string{"status", "role", "leader", "leaderEpoch", "partitionEpoch",
	"fetchState", "lastFetchedEpoch", "log", "hw", "epochCache", "leaderState", "controller",
	"messages", "acked", "written", "faults"}

// Vars names the state variables. Per-broker variables are functions from broker
// ("b1".."bN") to their value.
func (m *Model) Vars() []string {
	if m.cp() {
		return varNamesCP
	}
	if m.kraft() {
		return varNamesKR
	}
	return varNames
}

var roleNames = [...]string{"none", "leader", "follower"}
var fetchNames = [...]string{"idle", "fetching", "truncating", "failed"}

func jInt(buf []byte, v int) []byte {
	buf = append(buf, `{"#bigint":"`...)
	buf = strconv.AppendInt(buf, int64(v), 10)
	return append(buf, `"}`...)
}

// jOff is an offset or epoch that may be undefined (-1 in Kafka).
func jOff(buf []byte, v uint8) []byte {
	if v == NoOffset {
		return jInt(buf, -1)
	}
	return jInt(buf, int(v))
}

func jStr(buf []byte, s string) []byte {
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}

func jBroker(buf []byte, b int) []byte {
	buf = append(buf, `"b`...)
	buf = strconv.AppendInt(buf, int64(b+1), 10)
	return append(buf, '"')
}

func jSet(buf []byte, set uint8) []byte {
	buf = append(buf, `{"#set":[`...)
	first := true
	for b := 0; b < 8; b++ {
		if has(set, b) {
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = jBroker(buf, b)
		}
	}
	return append(buf, ']', '}')
}

func jField(buf []byte, first bool, name string) []byte {
	if !first {
		buf = append(buf, ',')
	}
	buf = jStr(buf, name)
	return append(buf, ':')
}

func jEntries(buf []byte, es []Entry) []byte {
	buf = append(buf, '[')
	for i, e := range es {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"epoch":`...)
		buf = jInt(buf, int(e.Epoch))
		buf = append(buf, `,"id":`...)
		buf = jInt(buf, int(e.ID))
		buf = append(buf, '}')
	}
	return append(buf, ']')
}

// jBatches is copied batches with their offsets (a fetch response read by position).
func jBatches(buf []byte, es []Entry, offs []uint8) []byte {
	buf = append(buf, '[')
	for i, e := range es {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"offset":`...)
		buf = jInt(buf, int(offs[i]))
		buf = append(buf, `,"epoch":`...)
		buf = jInt(buf, int(e.Epoch))
		buf = append(buf, `,"id":`...)
		buf = jInt(buf, int(e.ID))
		buf = append(buf, '}')
	}
	return append(buf, ']')
}

func (m *Model) jBrokerMap(buf []byte, val func(buf []byte, b int) []byte) []byte {
	buf = append(buf, `{"#map":[`...)
	for b := 0; b < m.nb(); b++ {
		if b > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '[')
		buf = jBroker(buf, b)
		buf = append(buf, ',')
		buf = val(buf, b)
		buf = append(buf, ']')
	}
	return append(buf, ']', '}')
}

func statusName(r *Replica) string {
	switch {
	case !r.Alive:
		return "down"
	case r.Shut == ShutClosing: // also a restarted broker whose registration was not read yet
		return "closing"
	case r.Register, r.Shut == ShutStarting:
		return "starting"
	case r.Shut == ShutRequested:
		return "shutting down"
	}
	return "up"
}

func jActor(buf []byte, id uint8) []byte {
	if id == CtrlID {
		return jStr(buf, "controller")
	}
	return jBroker(buf, int(id))
}

// appendMsg appends message g as an ITF record with the fields its kind uses. With
// positions (record sizes other than uniform) a fetch response shows its byte slice and
// each copied batch's offset; with uniform sizes these are the fetch offset and its
// successors, and the record looks as before sizes existed.
func appendMsg(buf []byte, g *Msg, positions bool) []byte {
	buf = append(buf, `{"type":`...)
	buf = jStr(buf, msgKindNames[g.Kind])
	buf = append(buf, `,"from":`...)
	buf = jActor(buf, g.From)
	buf = append(buf, `,"to":`...)
	buf = jActor(buf, g.To)
	f := func(name string, v int) {
		buf = jField(buf, false, name)
		buf = jInt(buf, v)
	}
	switch g.Kind {
	case MsgFetch:
		f("currentLeaderEpoch", int(g.Epoch))
		f("fetchOffset", int(g.Off))
		f("lastFetchedEpoch", int(g.Last))
		f("replicaEpoch", int(g.HW))
	case MsgFetchResponse:
		f("currentLeaderEpoch", int(g.Epoch))
		f("fetchOffset", int(g.Off))
		buf = jField(buf, false, "error")
		buf = jStr(buf, errNames[g.Err])
		f("highWatermark", int(g.HW))
		buf = jField(buf, false, "divergingEpoch")
		if g.DivE == NoEpoch {
			buf = append(buf, `{"epoch":{"#bigint":"-1"},"endOffset":{"#bigint":"-1"}}`...)
		} else {
			buf = append(buf, `{"epoch":`...)
			buf = jInt(buf, int(g.DivE))
			buf = append(buf, `,"endOffset":`...)
			buf = jOff(buf, g.DivO)
			buf = append(buf, '}')
		}
		if g.Err == ErrOffsetOutOfRange {
			f("leaderLogEndOffset", int(g.DivO))
		}
		if positions {
			f("startPosition", int(g.Start))
			f("endPosition", int(g.End))
			buf = jField(buf, false, "records")
			buf = jBatches(buf, g.Recs[:g.N], g.Offs[:g.N])
			break
		}
		f("endOffset", int(g.End))
		buf = jField(buf, false, "records")
		buf = jEntries(buf, g.Recs[:g.N])
	case MsgEpochRequest:
		f("currentLeaderEpoch", int(g.Epoch))
		f("leaderEpoch", int(g.Last))
	case MsgEpochResponse:
		f("currentLeaderEpoch", int(g.Epoch))
		buf = jField(buf, false, "error")
		buf = jStr(buf, errNames[g.Err])
		buf = jField(buf, false, "leaderEpoch")
		if g.DivE == NoEpoch {
			buf = jInt(buf, -1)
		} else {
			buf = jInt(buf, int(g.DivE))
		}
		buf = jField(buf, false, "endOffset")
		buf = jOff(buf, g.DivO)
	case MsgLeaderAndIsr:
		f("leader", int(g.Last))
		f("leaderEpoch", int(g.Epoch))
		f("partitionEpoch", int(g.Off))
		buf = jField(buf, false, "isr")
		buf = jSet(buf, g.HW)
		if g.DivE != 0 {
			f("controller", int(g.End))
			f("controllerEpoch", int(g.DivE))
		}
		if g.Err&LapsedLeadership != 0 {
			buf = jField(buf, false, "lapsed")
			buf = append(buf, "true"...)
		}
	case MsgAlterPartition, MsgAlterPartitionResponse:
		if g.Kind == MsgAlterPartitionResponse {
			buf = jField(buf, false, "error")
			buf = jStr(buf, errNames[g.Err])
		}
		f("leaderEpoch", int(g.Epoch))
		f("partitionEpoch", int(g.Off))
		buf = jField(buf, false, "isr")
		buf = jSet(buf, g.HW)
		if g.Kind == MsgAlterPartition && g.DivE != 0 {
			buf = jField(buf, false, "joiner")
			buf = jBroker(buf, int(g.DivO))
			f("joinerBrokerEpoch", int(g.DivE))
		}
		if g.End != 0 {
			f("controller", int(g.End))
		}
	}
	return append(buf, '}')
}

// AppendValue appends variable v of s as ITF JSON.
func (m *Model) AppendValue(s *State, v int, buf []byte) []byte {
	if v == VarControlPlane {
		if m.kraft() {
			return m.appendKRaft(s, buf)
		}
		return m.appendControlPlane(s, buf)
	}
	switch v {
	case VarStatus:
		return m.jBrokerMap(buf, func(buf []byte, b int) []byte { return jStr(buf, statusName(&s.B[b])) })
	case VarRole:
		return m.jBrokerMap(buf, func(buf []byte, b int) []byte { return jStr(buf, roleNames[s.B[b].Role]) })
	case VarLeader:
		return m.jBrokerMap(buf, func(buf []byte, b int) []byte { return jInt(buf, int(s.B[b].Leader)) })
	case VarLeaderEpoch:
		return m.jBrokerMap(buf, func(buf []byte, b int) []byte { return jInt(buf, int(s.B[b].Epoch)) })
	case VarPartitionEpoch:
		return m.jBrokerMap(buf, func(buf []byte, b int) []byte { return jInt(buf, int(s.B[b].PEpoch)) })
	case VarFetchState:
		return m.jBrokerMap(buf, func(buf []byte, b int) []byte { return jStr(buf, fetchNames[s.B[b].Fetch]) })
	case VarLastFetchedEpoch:
		return m.jBrokerMap(buf, func(buf []byte, b int) []byte { return jInt(buf, int(s.B[b].LastEp)) })
	case VarLog:
		return m.jBrokerMap(buf, func(buf []byte, b int) []byte { return jEntries(buf, s.B[b].Log[:s.B[b].LEO]) })
	case VarHW:
		return m.jBrokerMap(buf, func(buf []byte, b int) []byte { return jInt(buf, int(s.B[b].HW)) })
	case VarEpochCache:
		return m.jBrokerMap(buf, func(buf []byte, b int) []byte {
			r := &s.B[b]
			buf = append(buf, '[')
			for i := uint8(0); i < r.NCache; i++ {
				if i > 0 {
					buf = append(buf, ',')
				}
				buf = append(buf, `{"epoch":`...)
				buf = jInt(buf, int(r.Cache[i].Epoch))
				buf = append(buf, `,"startOffset":`...)
				buf = jInt(buf, int(r.Cache[i].Start))
				buf = append(buf, '}')
			}
			// Entries only the checkpoint file still holds (a truncation's write pending).
			for i := uint8(0); i < r.NStale; i++ {
				if r.NCache > 0 || i > 0 {
					buf = append(buf, ',')
				}
				buf = append(buf, `{"epoch":`...)
				buf = jInt(buf, int(r.Stale[i].Epoch))
				buf = append(buf, `,"startOffset":`...)
				buf = jInt(buf, int(r.Stale[i].Start))
				if r.StaleCut&(1<<i) != 0 {
					// A crash may find the file ending before this entry (fileCanHold).
					buf = append(buf, `,"fileMayEndBefore":true`...)
				}
				buf = append(buf, `,"onlyInCheckpointFile":true}`...)
			}
			return append(buf, ']')
		})
	case VarLeaderState:
		return m.jBrokerMap(buf, func(buf []byte, b int) []byte {
			r := &s.B[b]
			buf = append(buf, `{"isr":`...)
			buf = jSet(buf, r.ISR)
			buf = append(buf, `,"maximalIsr":`...)
			buf = jSet(buf, r.MaxISR)
			buf = append(buf, `,"pendingAlterPartition":`...)
			buf = strconv.AppendBool(buf, r.Pending)
			buf = append(buf, `,"leaderEpochStartOffset":`...)
			buf = jInt(buf, int(r.LESO))
			buf = append(buf, `,"followerLogEndOffset":`...)
			buf = m.jBrokerMap(buf, func(buf []byte, f int) []byte { return jInt(buf, int(r.FLEO[f])) })
			return append(buf, '}')
		})
	case VarController:
		c := &s.Ctrl
		buf = append(buf, `{"leader":`...)
		buf = jInt(buf, int(c.Leader))
		buf = append(buf, `,"leaderEpoch":`...)
		buf = jInt(buf, int(c.Epoch))
		buf = append(buf, `,"partitionEpoch":`...)
		buf = jInt(buf, int(c.PEpoch))
		buf = append(buf, `,"isr":`...)
		buf = jSet(buf, c.ISR)
		buf = append(buf, `,"liveBrokers":`...)
		buf = jSet(buf, c.Live)
		if c.Shut != 0 {
			buf = append(buf, `,"shuttingDownBrokers":`...)
			buf = jSet(buf, c.Shut)
		}
		buf = append(buf, `,"brokerEpochs":`...)
		buf = m.jBrokerMap(buf, func(buf []byte, b int) []byte { return jInt(buf, int(c.BEpoch[b])) })
		return append(buf, '}')
	case VarMessages:
		buf = append(buf, `{"#set":[`...)
		for i := 0; i < int(s.Net.Len); i++ {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendMsg(buf, &s.Net.Msgs[i], m.C.RecordSizes != SizesUniform)
		}
		return append(buf, ']', '}')
	case VarAcked:
		buf = append(buf, `{"#set":[`...)
		first := true
		for id := 0; id < m.C.MaxRecords; id++ {
			if s.Acked[id] == 0 {
				continue
			}
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = append(buf, `{"#tup":[`...)
			buf = jInt(buf, int(s.Acked[id])-1)
			buf = append(buf, ',')
			buf = jInt(buf, id+1)
			buf = append(buf, ']', '}')
		}
		return append(buf, ']', '}')
	case VarWritten:
		return jInt(buf, int(s.Written))
	case VarFaults:
		names := [numFaults]string{"crash", "unclean_crash", "lag", "message_loss", "leader_change", "power_loss",
			"controlled_shutdown", "preferred_election", "control_loss"}
		n := FaultControlledShutdown
		if m.mechBudgets() {
			n = numFaults
		}
		buf = append(buf, '{')
		for f := 0; f < n; f++ {
			buf = jField(buf, f == 0, names[f])
			buf = jInt(buf, int(s.Used[f]))
		}
		return append(buf, '}')
	}
	panic("model: no variable " + strconv.Itoa(v))
}

// Format is a compact readable form of s, one line per broker, then the controller, the
// messages in flight and the acknowledged records: what transcripts print.
func (m *Model) Format(s *State) string {
	var buf []byte
	for b := 0; b < m.nb(); b++ {
		r := &s.B[b]
		buf = append(buf, 'b')
		buf = strconv.AppendInt(buf, int64(b+1), 10)
		buf = append(buf, ' ')
		buf = append(buf, statusName(r)...)
		buf = append(buf, ' ')
		buf = append(buf, roleNames[r.Role]...)
		if r.Role == RoleFollower {
			buf = append(buf, " of "...)
			buf = strconv.AppendInt(buf, int64(r.Leader), 10)
			buf = append(buf, ' ')
			buf = append(buf, fetchNames[r.Fetch]...)
			buf = append(buf, " last="...)
			buf = strconv.AppendInt(buf, int64(r.LastEp), 10)
		}
		buf = append(buf, " e="...)
		buf = strconv.AppendInt(buf, int64(r.Epoch), 10)
		buf = append(buf, " pe="...)
		buf = strconv.AppendInt(buf, int64(r.PEpoch), 10)
		buf = append(buf, " log=["...)
		for i := uint8(0); i < r.LEO; i++ {
			if i > 0 {
				buf = append(buf, ' ')
			}
			buf = fmtEntry(buf, r.Log[i])
		}
		buf = append(buf, "] hw="...)
		buf = strconv.AppendInt(buf, int64(r.HW), 10)
		buf = fmtEntries(append(buf, " cache="...), r.Cache[:r.NCache])
		if r.NStale > 0 {
			buf = fmtEntries(append(buf, " file+"...), r.Stale[:r.NStale])
		}
		if r.Role == RoleLeader {
			buf = append(buf, " isr="...)
			buf = fmtSet(buf, r.ISR)
			if r.Pending {
				buf = append(buf, " pending maximal="...)
				buf = fmtSet(buf, r.MaxISR)
			}
			buf = append(buf, " leso="...)
			buf = strconv.AppendInt(buf, int64(r.LESO), 10)
			buf = append(buf, " fleo=["...)
			for f := 0; f < m.nb(); f++ {
				if f > 0 {
					buf = append(buf, ' ')
				}
				if f == b {
					buf = append(buf, '-')
				} else {
					buf = strconv.AppendInt(buf, int64(r.FLEO[f]), 10)
				}
			}
			buf = append(buf, ']')
		}
		buf = append(buf, '\n')
	}
	c := &s.Ctrl
	buf = append(buf, "controller leader="...)
	buf = strconv.AppendInt(buf, int64(c.Leader), 10)
	buf = append(buf, " e="...)
	buf = strconv.AppendInt(buf, int64(c.Epoch), 10)
	buf = append(buf, " pe="...)
	buf = strconv.AppendInt(buf, int64(c.PEpoch), 10)
	buf = append(buf, " isr="...)
	buf = fmtSet(buf, c.ISR)
	buf = append(buf, " live="...)
	buf = fmtSet(buf, c.Live)
	if c.Shut != 0 {
		buf = append(buf, " shutting="...)
		buf = fmtSet(buf, c.Shut)
	}
	buf = append(buf, " bepochs=["...)
	for b := 0; b < m.nb(); b++ {
		if b > 0 {
			buf = append(buf, ' ')
		}
		buf = strconv.AppendInt(buf, int64(c.BEpoch[b]), 10)
	}
	buf = append(buf, ']', '\n')
	buf = m.formatCP(s, buf)
	buf = m.formatKR(s, buf)
	for i := 0; i < int(s.Net.Len); i++ {
		buf = append(buf, "msg "...)
		buf = append(buf, msgLabel(&s.Net.Msgs[i], m.C.RecordSizes != SizesUniform)...)
		buf = append(buf, '\n')
	}
	buf = append(buf, "acked="...)
	buf = append(buf, '{')
	first := true
	for id := 0; id < m.C.MaxRecords; id++ {
		if s.Acked[id] != 0 {
			if !first {
				buf = append(buf, ' ')
			}
			first = false
			buf = append(buf, 'r')
			buf = strconv.AppendInt(buf, int64(id+1), 10)
			buf = append(buf, '@')
			buf = strconv.AppendInt(buf, int64(s.Acked[id])-1, 10)
		}
	}
	buf = append(buf, "} written="...)
	buf = strconv.AppendInt(buf, int64(s.Written), 10)
	buf = append(buf, '\n')
	return string(buf)
}

func fmtEntry(buf []byte, e Entry) []byte {
	if e.ID == 0 {
		return append(buf, "hole"...)
	}
	buf = append(buf, 'e')
	buf = strconv.AppendInt(buf, int64(e.Epoch), 10)
	buf = append(buf, ":r"...)
	return strconv.AppendInt(buf, int64(e.ID), 10)
}

func fmtSet(buf []byte, set uint8) []byte {
	buf = append(buf, '{')
	first := true
	for b := 0; b < 8; b++ {
		if has(set, b) {
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = strconv.AppendInt(buf, int64(b+1), 10)
		}
	}
	return append(buf, '}')
}

func fmtActor(buf []byte, id uint8) []byte {
	if id == CtrlID {
		return append(buf, "ctrl"...)
	}
	return strconv.AppendInt(buf, int64(id+1), 10)
}

// MsgLabel is a one-line form of a message: "FetchRequest 2->1 epoch=1 offset=0 last=0".
func MsgLabel(g *Msg) string { return msgLabel(g, false) }

// msgLabel is MsgLabel; with positions a fetch response shows its byte slice and each
// copied batch's offset: "slice=[1,3) records=[1:e1:r2]".
func msgLabel(g *Msg, positions bool) string {
	buf := append([]byte(msgKindNames[g.Kind]), ' ')
	buf = fmtActor(buf, g.From)
	buf = append(buf, "->"...)
	buf = fmtActor(buf, g.To)
	kv := func(k string, v int) {
		buf = append(buf, ' ')
		buf = append(buf, k...)
		buf = append(buf, '=')
		buf = strconv.AppendInt(buf, int64(v), 10)
	}
	errs := func() {
		if g.Err != ErrNone {
			buf = append(buf, ' ')
			buf = append(buf, errNames[g.Err]...)
		}
	}
	switch g.Kind {
	case MsgFetch:
		kv("epoch", int(g.Epoch))
		kv("offset", int(g.Off))
		kv("last", int(g.Last))
		kv("bepoch", int(g.HW))
	case MsgFetchResponse:
		kv("epoch", int(g.Epoch))
		kv("offset", int(g.Off))
		errs()
		switch {
		case g.Err == ErrOffsetOutOfRange:
			kv("leaderLEO", int(g.DivO))
		case g.Err != ErrNone:
		case g.DivE != NoEpoch:
			kv("hw", int(g.HW))
			buf = append(buf, " diverging="...)
			buf = strconv.AppendInt(buf, int64(g.DivE), 10)
			buf = append(buf, '@')
			buf = strconv.AppendInt(buf, int64(g.DivO), 10)
		default:
			kv("hw", int(g.HW))
			if positions {
				buf = append(buf, " slice=["...)
				buf = strconv.AppendInt(buf, int64(g.Start), 10)
				buf = append(buf, ',')
				buf = strconv.AppendInt(buf, int64(g.End), 10)
				buf = append(buf, ')')
			} else {
				kv("end", int(g.End))
			}
			buf = append(buf, " records=["...)
			for k := uint8(0); k < g.N; k++ {
				if k > 0 {
					buf = append(buf, ' ')
				}
				if positions {
					buf = strconv.AppendInt(buf, int64(g.Offs[k]), 10)
					buf = append(buf, ':')
				}
				buf = fmtEntry(buf, g.Recs[k])
			}
			buf = append(buf, ']')
		}
	case MsgEpochRequest:
		kv("epoch", int(g.Epoch))
		kv("leaderEpoch", int(g.Last))
	case MsgEpochResponse:
		kv("epoch", int(g.Epoch))
		errs()
		if g.Err == ErrNone {
			buf = append(buf, " answer="...)
			if g.DivO == NoOffset {
				buf = append(buf, "undefined"...)
			} else if g.DivE == NoEpoch {
				buf = strconv.AppendInt(buf, int64(g.DivO), 10) // KIP-101: an end offset only
			} else {
				buf = strconv.AppendInt(buf, int64(g.DivE), 10)
				buf = append(buf, '@')
				buf = strconv.AppendInt(buf, int64(g.DivO), 10)
			}
		}
	case MsgLeaderAndIsr:
		kv("leader", int(g.Last))
		kv("epoch", int(g.Epoch))
		kv("pepoch", int(g.Off))
		buf = append(buf, " isr="...)
		buf = fmtSet(buf, g.HW)
		if g.DivE != 0 {
			kv("from", int(g.End))
			kv("cepoch", int(g.DivE))
		}
		if g.Err&LapsedLeadership != 0 {
			buf = append(buf, " lapsed"...) // replaced state naming another leader
		}
	case MsgAlterPartition, MsgAlterPartitionResponse:
		errs()
		kv("epoch", int(g.Epoch))
		kv("pepoch", int(g.Off))
		buf = append(buf, " isr="...)
		buf = fmtSet(buf, g.HW)
		if g.Kind == MsgAlterPartition && g.DivE != 0 {
			kv("joiner", int(g.DivO)+1)
			kv("joinerEpoch", int(g.DivE))
		}
		if g.End != 0 {
			kv("ctrl", int(g.End))
		}
	}
	return string(buf)
}

// Actors names the participants of sequence charts: the brokers, then the controller; with
// the control plane (controllers >= 2), one actor per controller incarnation (controller1,
// controller2, ... in order of election) and the metadata store, zookeeper.
func (m *Model) Actors() []string {
	a := make([]string, 0, m.nb()+MaxControllers+1)
	for b := 0; b < m.nb(); b++ {
		a = append(a, "b"+strconv.Itoa(b+1))
	}
	if !m.cp() {
		return append(a, "controller")
	}
	for i := 1; i <= m.C.Controllers && i <= MaxControllers; i++ {
		a = append(a, "controller"+strconv.Itoa(i))
	}
	return append(a, storeActor)
}

// storeActor is the metadata store's actor in sequence charts.
const storeActor = "zookeeper"

// msgKey identifies a message across the steps of a trace: its kind, ends, epoch and
// offset (a fetch response keeps its key while its records are copied in).
func msgKey(buf []byte, g *Msg) []byte {
	buf = append(buf, msgKindNames[g.Kind]...)
	buf = append(buf, ':')
	buf = fmtActor(buf, g.From)
	buf = append(buf, '>')
	buf = fmtActor(buf, g.To)
	buf = append(buf, ":e"...)
	buf = strconv.AppendInt(buf, int64(g.Epoch), 10)
	buf = append(buf, 'o')
	return strconv.AppendInt(buf, int64(g.Off), 10)
}

func sameKey(a, b *Msg) bool {
	return a.Kind == b.Kind && a.From == b.From && a.To == b.To && a.Epoch == b.Epoch && a.Off == b.Off
}

// actorName is the sequence-chart actor at message end id: a broker, or the controller;
// with the control plane, controller incarnation inc (1-based, a message's End; 0 when not
// known).
func (m *Model) actorName(id, inc uint8) string {
	if id == CtrlID {
		return m.ctrlName(int(inc))
	}
	return "b" + strconv.Itoa(int(id)+1)
}

// ctrlName is the actor of controller incarnation inc (1-based), or "controller" without
// the control plane.
func (m *Model) ctrlName(inc int) string {
	if !m.cp() || inc <= 0 {
		return "controller"
	}
	return "controller" + strconv.Itoa(inc)
}

// stepActor is the actor that takes step a from state from to state to.
func (m *Model) stepActor(from *State, a uint64, to *State) string {
	switch kindOf(a) {
	case KindControllerHandleAlterPartition, KindControllerHandleBrokerFailure,
		KindControllerHandleBrokerStartup, KindControllerResign, KindControllerHandleIsrChange:
		return m.ctrlName(argOf(a, 0) + 1)
	case KindControllerFailover, KindControllerElect:
		return m.ctrlName(int(to.CP.N))
	case KindControllerMoveLeader, KindControllerElectPreferred:
		return m.ctrlName(int(from.CP.N))
	}
	return "b" + strconv.Itoa(argOf(a, 0)+1)
}

// eventList writes a JSON array of sequence-chart events (checker.Eventer).
type eventList struct {
	buf   []byte
	first bool
}

func (e *eventList) add(typ, actor, peer, msg, label string) {
	if !e.first {
		e.buf = append(e.buf, ',')
	}
	e.first = false
	e.buf = append(e.buf, `{"type":`...)
	e.buf = jQuote(e.buf, typ)
	e.buf = append(e.buf, `,"actor":`...)
	e.buf = jQuote(e.buf, actor)
	e.buf = append(e.buf, `,"peer":`...)
	e.buf = jQuote(e.buf, peer)
	e.buf = append(e.buf, `,"msg":`...)
	e.buf = jQuote(e.buf, msg)
	e.buf = append(e.buf, `,"label":`...)
	e.buf = jQuote(e.buf, label)
	e.buf = append(e.buf, '}')
}

// jQuote appends s as a JSON string (labels are ASCII; quotes and backslashes escaped).
func jQuote(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			buf = append(buf, '\\')
		}
		buf = append(buf, s[i])
	}
	return append(buf, '"')
}

// message adds event typ for message g at its receiver (recv, drop, supersede) or its
// sender (send).
func (m *Model) message(e *eventList, typ string, g *Msg, label string) {
	from, to := m.actorName(g.From, g.End), m.actorName(g.To, g.End)
	if typ == "send" {
		from, to = to, from
	}
	e.add(typ, to, from, string(msgKey(nil, g)), label)
}

// storeLabel is the partition state in the store, as a controller reads or writes it.
func storeLabel(what string, st *Controller) string {
	buf := append([]byte(what), " leader="...)
	if st.Leader == 0 {
		buf = append(buf, "none"...)
	} else {
		buf = strconv.AppendInt(buf, int64(st.Leader), 10)
	}
	buf = append(buf, " epoch="...)
	buf = strconv.AppendInt(buf, int64(st.Epoch), 10)
	buf = append(buf, " isr="...)
	buf = fmtSet(buf, st.ISR)
	buf = append(buf, " zkVersion="...)
	buf = strconv.AppendInt(buf, int64(st.PEpoch), 10)
	return string(buf)
}

// zombie reports whether incarnation i of p is active without a session.
func (p *ControlPlane) zombie(i int) bool {
	return i < int(p.N) && p.C[i].Active && !p.C[i].Session
}

// AppendEvents describes step from -a-> to for sequence charts (checker.Eventer), in this
// order: the messages the step took out of the network (received, dropped with their
// connection or by a fault, or superseded by a newer LeaderAndIsr), controller incarnations
// that became or stopped being zombies, store reads, the local step, store writes, and the
// messages it sent (new in the network). With the control plane an AlterPartition that
// AlterPartitionManager has queued but not sent (End 0) is a local step of its broker, and
// BrokerSendAlterPartition sends it.
func (m *Model) AppendEvents(from *State, a uint64, to *State, buf []byte) []byte {
	e := &eventList{buf: append(buf, '['), first: true}
	k := kindOf(a)
	actor := m.stepActor(from, a, to)
	in := func(n *Network, g *Msg) *Msg {
		for i := 0; i < int(n.Len); i++ {
			if sameKey(&n.Msgs[i], g) {
				return &n.Msgs[i]
			}
		}
		return nil
	}
	down := func(id uint8) bool { return id != CtrlID && from.B[id].Alive && !to.B[id].Alive }
	pos := m.C.RecordSizes != SizesUniform
	for i := 0; i < int(from.Net.Len); i++ {
		g := &from.Net.Msgs[i]
		now := in(&to.Net, g)
		if now != nil {
			if k == KindNetworkLoseControlMessage && g.Kind == MsgAlterPartition && g.End != 0 && now.End == 0 {
				if argOf(a, 1) == 0 {
					m.message(e, "drop", g, "lost (control_loss): AlterPartitionManager queues it again")
				} else {
					m.message(e, "recv", g, msgLabel(g, pos))
					e.add("local", m.actorName(g.To, g.End), "", "", "its response is lost (control_loss): AlterPartitionManager queues the request again")
				}
			}
			continue
		}
		switch {
		case down(g.To) || down(g.From):
			who := g.To
			if !down(who) {
				who = g.From
			}
			m.message(e, "drop", g, "dropped: "+m.actorName(who, 0)+" went down, its connections closed")
		case k == KindNetworkLoseMessage:
			m.message(e, "drop", g, "lost (message_loss)")
		case g.Kind == MsgLeaderAndIsr && (k != KindBrokerHandleLeaderAndIsr || argOf(a, 0) != int(g.To)):
			why := "superseded: the controller replaced it by newer state that the broker already has"
			if nw := to.Net.find(MsgLeaderAndIsr, CtrlID, g.To); nw >= 0 {
				why = "superseded by " + msgLabel(&to.Net.Msgs[nw], pos)
			}
			m.message(e, "supersede", g, why)
		case k == KindNetworkReadRecord && g.Kind == MsgFetchResponse:
			// A read that drops the response (bytes.go): the send fails on the server, or
			// the follower finds corrupt bytes.
			if out, _ := m.readAt(&from.B[g.From], g); out == readShort {
				m.message(e, "drop", g, "dropped: the send failed, the file is shorter than the slice")
			} else {
				m.message(e, "recv", g, "corrupt record: "+msgLabel(g, pos))
			}
		default:
			m.message(e, "recv", g, msgLabel(g, pos))
		}
	}
	for i := 0; i < MaxControllers; i++ {
		if was, is := from.CP.zombie(i), to.CP.zombie(i); was != is {
			label := ""
			if is {
				label = "zombie"
			}
			e.add("state", m.ctrlName(i+1), "", "", label)
		}
	}
	if m.cp() {
		m.storeReads(e, from, a, to, actor)
	}
	switch k {
	case KindNetworkReadRecord, KindNetworkReadGarbage:
		what := "copy record into "
		if k == KindNetworkReadGarbage {
			what = "garbage length ends "
		}
		for i := 0; i < int(to.Net.Len); i++ {
			g := &to.Net.Msgs[i]
			if old := in(&from.Net, g); old != nil && *old != *g {
				if k == KindNetworkReadRecord && old.N == g.N {
					what = "partial batch ends "
				}
				e.add("local", m.actorName(g.From, g.End), "", string(msgKey(nil, g)), what+msgLabel(g, pos))
			}
		}
	case KindLeaderAppend, KindBrokerCrash, KindBrokerUncleanCrash, KindBrokerRestart,
		KindControllerMoveLeader, KindLeaderShrinkISR, KindControllerHandleBrokerFailure,
		KindControllerHandleBrokerStartup, KindControllerFailover, KindControllerResign,
		KindBrokerReregister, KindBrokerLearnController, KindControllerHandleIsrChange,
		KindControllerElect, KindControllerElectPreferred, KindBrokerSessionLoss,
		KindBrokerPowerLoss, KindBrokerControlledShutdown:
		e.add("local", actor, "", "", m.ActionName(a))
	}
	if m.cp() {
		m.storeWrites(e, from, to, actor)
	}
	if m.C.KRaft {
		m.kraftEvents(e, from, a, to)
	}
	for i := 0; i < int(to.Net.Len); i++ {
		g := &to.Net.Msgs[i]
		old := in(&from.Net, g)
		switch {
		case m.cp() && g.Kind == MsgAlterPartition && g.End == 0:
			if old == nil {
				e.add("local", m.actorName(g.From, 0), "", string(msgKey(nil, g)), "queue "+msgLabel(g, pos))
			}
		case old == nil || (m.cp() && old.Kind == MsgAlterPartition && old.End == 0 && g.End != 0):
			m.message(e, "send", g, msgLabel(g, pos))
		}
	}
	e.buf = append(e.buf, ']')
	return e.buf
}

// storeReads adds the store reads of a controller step: a new controller loads the
// partition state, an ISR change notification and a broker failure re-read it, and so
// does an election (a broker startup of an offline partition, a preferred election).
func (m *Model) storeReads(e *eventList, from *State, a uint64, to *State, actor string) {
	read := false
	switch kindOf(a) {
	case KindControllerFailover, KindControllerElect:
		e.add("send", actor, storeActor, "zk-controller", "create /controller, /controller_epoch="+strconv.Itoa(int(to.CP.CEpoch)))
		e.add("recv", storeActor, actor, "zk-controller", "create /controller, /controller_epoch="+strconv.Itoa(int(to.CP.CEpoch)))
		read = true
	case KindControllerHandleIsrChange, KindControllerHandleBrokerFailure, KindControllerElectPreferred:
		read = true
	case KindControllerHandleBrokerStartup:
		read = from.CP.C[argOf(a, 0)].Offline
	}
	if read {
		label := storeLabel("read partition state", &from.Ctrl)
		e.add("send", storeActor, actor, "zk-read", label)
		e.add("recv", actor, storeActor, "zk-read", label)
	}
}

// storeWrites adds the store writes of a step: the partition state (written by the
// step's actor: a controller, or before Kafka 2.7 a leader), and brokers' registrations
// (/brokers/ids) made or gone.
func (m *Model) storeWrites(e *eventList, from, to *State, actor string) {
	st, was := &to.Ctrl, &from.Ctrl
	if st.Leader != was.Leader || st.Epoch != was.Epoch || st.PEpoch != was.PEpoch || st.ISR != was.ISR {
		label := storeLabel("write partition state", st)
		e.add("send", actor, storeActor, "zk-write", label)
		e.add("recv", storeActor, actor, "zk-write", label)
	}
	for b := 0; b < m.nb(); b++ {
		switch {
		case has(st.Live, b) && !has(was.Live, b):
			label := "register /brokers/ids/" + strconv.Itoa(b+1)
			e.add("send", "b"+strconv.Itoa(b+1), storeActor, "zk-register", label)
			e.add("recv", storeActor, "b"+strconv.Itoa(b+1), "zk-register", label)
		case !has(st.Live, b) && has(was.Live, b):
			e.add("local", storeActor, "", "", "session of b"+strconv.Itoa(b+1)+" ended: /brokers/ids/"+strconv.Itoa(b+1)+" deleted")
		}
	}
}

// fmtEntries appends leader-epoch cache entries as [epoch@start ...].
func fmtEntries(buf []byte, es []EpochEntry) []byte {
	buf = append(buf, '[')
	for i, e := range es {
		if i > 0 {
			buf = append(buf, ' ')
		}
		buf = strconv.AppendInt(buf, int64(e.Epoch), 10)
		buf = append(buf, '@')
		buf = strconv.AppendInt(buf, int64(e.Start), 10)
	}
	return append(buf, ']')
}

package vanlightly

import (
	"errors"
	"strconv"
)

// msgLen is the length of a message's encoding.
const msgLen = 26

// appendMsgTo appends the encoding of msg, every field in a fixed order.
func appendMsgTo(buf []byte, m *Msg) []byte {
	buf = append(buf, m.Type, byte(m.Src), byte(m.Dst), m.Err, byte(m.Incarnation), byte(m.BrokerEpoch),
		byte(m.MDOffset), byte(m.ISR))
	for i := range m.Epochs {
		buf = append(buf, byte(m.Epochs[i]))
	}
	return append(buf, byte(m.LeaderEpoch), byte(m.PartitionEpoch), byte(m.NewLeaderEpoch),
		byte(m.NewPartitionEpoch), byte(m.FetchOffset), byte(m.LastFetchedEpoch), byte(m.HWM), b2(m.HasDiv),
		byte(m.DivEpoch), byte(m.DivOffset), b2(m.HasRec), byte(m.Rec.Epoch), byte(m.Rec.Value), 0)
}

func readMsg(buf []byte, m *Msg) {
	*m = Msg{Type: buf[0], Src: int8(buf[1]), Dst: int8(buf[2]), Err: buf[3], Incarnation: int8(buf[4]),
		BrokerEpoch: int8(buf[5]), MDOffset: int8(buf[6]), ISR: Set(buf[7])}
	for i := range m.Epochs {
		m.Epochs[i] = int8(buf[8+i])
	}
	r := buf[8+MaxBrokers:]
	m.LeaderEpoch, m.PartitionEpoch, m.NewLeaderEpoch, m.NewPartitionEpoch = int8(r[0]), int8(r[1]), int8(r[2]), int8(r[3])
	m.FetchOffset, m.LastFetchedEpoch, m.HWM, m.HasDiv = int8(r[4]), int8(r[5]), int8(r[6]), r[7] != 0
	m.DivEpoch, m.DivOffset, m.HasRec = int8(r[8]), int8(r[9]), r[10] != 0
	m.Rec = Record{Epoch: int8(r[11]), Value: int8(r[12])}
}

func b2(x bool) byte {
	if x {
		return 1
	}
	return 0
}

// auxLen is the length of the encoding's tail that holds the auxiliary variables.
const auxLen = 6

// Encode appends the canonical encoding of s: first the module's VIEW (con_vars,
// broker_vars, part_vars, messages, inv_vars, in that order; the metadata log and the
// messages with their lengths first), then aux_broker_epoch and aux_ctrs in the last
// auxLen bytes. Every per-broker field is written for N brokers only.
func (m *Model) Encode(s *State, buf []byte) []byte {
	n := m.n
	buf = append(buf, byte(s.MDLen))
	for i := 0; i < int(s.MDLen); i++ {
		r := &s.MDLog[i]
		buf = append(buf, byte(r.ISR), byte(r.Leader), byte(r.LeaderEpoch), byte(r.PartitionEpoch))
	}
	buf = append(buf, byte(s.Unfenced))
	for b := 0; b < n; b++ {
		r := &s.Reg[b]
		buf = append(buf, r.Status, byte(r.BrokerEpoch), byte(r.Incarnation))
	}
	p := &s.PartMD
	buf = append(buf, byte(p.ISR), byte(p.Leader), byte(p.LeaderEpoch), byte(p.PartitionEpoch))
	for b := 0; b < n; b++ {
		st := &s.Broker[b]
		buf = append(buf, st.Status, byte(st.BrokerEpoch), byte(st.Incarnation), b2(st.Registered), byte(s.BrokerMDLen[b]))
		for p := 0; p < n; p++ {
			f := &s.Fetchers[b][p]
			buf = append(buf, b2(f.HasPartition)|b2(f.Delayed)<<1|b2(f.Pending)<<2, byte(f.FetchOffset), byte(f.LastFetchedEpoch))
		}
	}
	for b := 0; b < n; b++ {
		r := &s.RepMD[b]
		d := &s.Data[b]
		buf = append(buf, s.Status[b], byte(r.ISR), byte(r.MaximalISR), byte(r.Leader), byte(r.LeaderEpoch),
			byte(r.PartitionEpoch), byte(d.Len), byte(d.HWM))
		for i := 0; i < MaxValues; i++ {
			buf = append(buf, byte(d.Log[i].Epoch), byte(d.Log[i].Value))
		}
		buf = append(buf, byte(s.Leso[b]))
		for p := 0; p < n; p++ {
			buf = append(buf, byte(s.Peers[b][p].Leo), byte(s.Peers[b][p].BrokerEpoch))
		}
		pa := &s.Pending[b]
		buf = append(buf, byte(pa.Epoch), b2(pa.Has))
		if pa.Has {
			buf = appendMsgTo(buf, &pa.Req)
		}
	}
	buf = append(buf, byte(s.NMsgs))
	for i := 0; i < int(s.NMsgs); i++ {
		buf = appendMsgTo(buf, &s.Msgs[i])
		buf = append(buf, byte(s.Counts[i]))
	}
	buf = append(buf, s.Sent, s.PosAcked, s.NegAcked, byte(s.TrueHWM), byte(s.ConsumedLen))
	for i := 0; i < int(s.ConsumedLen); i++ {
		buf = append(buf, byte(s.Consumed[i].Epoch), byte(s.Consumed[i].Value))
	}
	c := &s.Ctrs
	return append(buf, byte(s.AuxBrokerEpoch), byte(c.Incarnation), byte(c.CleanShutdown), byte(c.UncleanShutdown),
		byte(c.FenceBroker), byte(c.AlterPartition))
}

// View returns the part of an encoding that identifies a state, the module's VIEW: all
// of it but the auxiliary variables at its end (checker.Projected).
func (m *Model) View(enc []byte) []byte { return enc[:len(enc)-auxLen] }

// Decode reads a state written by Encode into s.
func (m *Model) Decode(buf []byte, s *State) {
	if err := m.decode(buf, s); err != nil {
		panic("vanlightly: Decode: " + err.Error() + " (bytes from outside the engine go to DecodeChecked)")
	}
}

// DecodeChecked reads a state into s as Decode does, or returns an error, never a panic,
// when buf is not the encoding of a state of m: it ends early or runs on, holds a count
// beyond its array or a broker beyond the brokers, or is not the canonical encoding of the
// state it reads as. It is for bytes from outside the engine, a checkpoint's
// (checker.CheckedDecoder).
func (m *Model) DecodeChecked(buf []byte, s *State) error {
	var t State
	if err := m.decode(buf, &t); err != nil {
		return errors.New("vanlightly: decode: " + err.Error())
	}
	if err := m.check(&t); err != nil {
		return errors.New("vanlightly: decode: " + err.Error())
	}
	if string(m.Encode(&t, nil)) != string(buf) {
		return errors.New("vanlightly: decode: not the canonical encoding of the state it reads as")
	}
	*s = t
	return nil
}

// decode reads buf into s, checking that it holds what Encode writes for m's constants:
// no byte missing or left over, and each count within its array.
func (m *Model) decode(buf []byte, s *State) error {
	*s = State{}
	n := m.n
	i, short := 0, false
	next := func() byte {
		if i >= len(buf) {
			short = true
			return 0
		}
		b := buf[i]
		i++
		return b
	}
	count := func(what string, v int8, max int) error {
		if v < 0 || int(v) > max {
			return errors.New(what + " " + strconv.Itoa(int(v)) + " is out of range 0.." + strconv.Itoa(max))
		}
		return nil
	}
	msg := func(into *Msg) {
		if len(buf)-i < msgLen {
			short, i = true, len(buf)
			return
		}
		readMsg(buf[i:], into)
		i += msgLen
	}
	s.MDLen = int8(next())
	if err := count("con_metadata_log's length", s.MDLen, MaxMetadataLog); err != nil {
		return err
	}
	for j := 0; j < int(s.MDLen); j++ {
		s.MDLog[j] = PartitionMD{ISR: Set(next()), Leader: int8(next()), LeaderEpoch: int8(next()), PartitionEpoch: int8(next())}
	}
	s.Unfenced = Set(next())
	for b := 0; b < n; b++ {
		s.Reg[b] = ConReg{Status: next(), BrokerEpoch: int8(next()), Incarnation: int8(next())}
	}
	s.PartMD = PartitionMD{ISR: Set(next()), Leader: int8(next()), LeaderEpoch: int8(next()), PartitionEpoch: int8(next())}
	for b := 0; b < n; b++ {
		s.Broker[b] = BrokerState{Status: next(), BrokerEpoch: int8(next()), Incarnation: int8(next()), Registered: next() != 0}
		s.BrokerMDLen[b] = int8(next())
		for p := 0; p < n; p++ {
			fl := next()
			s.Fetchers[b][p] = Fetcher{HasPartition: fl&1 != 0, Delayed: fl&2 != 0, Pending: fl&4 != 0,
				FetchOffset: int8(next()), LastFetchedEpoch: int8(next())}
		}
	}
	for b := 0; b < n; b++ {
		s.Status[b] = next()
		s.RepMD[b] = ReplicaMD{ISR: Set(next()), MaximalISR: Set(next()), Leader: int8(next()), LeaderEpoch: int8(next()),
			PartitionEpoch: int8(next())}
		d := &s.Data[b]
		d.Len, d.HWM = int8(next()), int8(next())
		for j := 0; j < MaxValues; j++ {
			d.Log[j] = Record{Epoch: int8(next()), Value: int8(next())}
		}
		s.Leso[b] = int8(next())
		for p := 0; p < n; p++ {
			s.Peers[b][p] = PeerState{Leo: int8(next()), BrokerEpoch: int8(next())}
		}
		pa := &s.Pending[b]
		pa.Epoch, pa.Has = int8(next()), next() != 0
		if pa.Has {
			msg(&pa.Req)
		}
	}
	s.NMsgs = int8(next())
	if err := count("the number of messages", s.NMsgs, MaxMessages); err != nil {
		return err
	}
	for j := 0; j < int(s.NMsgs); j++ {
		msg(&s.Msgs[j])
		s.Counts[j] = int8(next())
	}
	s.Sent, s.PosAcked, s.NegAcked, s.TrueHWM, s.ConsumedLen = next(), next(), next(), int8(next()), int8(next())
	if err := count("inv_consumed's length", s.ConsumedLen, MaxValues); err != nil {
		return err
	}
	for j := 0; j < int(s.ConsumedLen); j++ {
		s.Consumed[j] = Record{Epoch: int8(next()), Value: int8(next())}
	}
	s.AuxBrokerEpoch = int8(next())
	s.Ctrs = Counters{Incarnation: int8(next()), CleanShutdown: int8(next()), UncleanShutdown: int8(next()),
		FenceBroker: int8(next()), AlterPartition: int8(next())}
	switch {
	case short:
		return errors.New("the encoding ends early (" + strconv.Itoa(len(buf)) + " bytes)")
	case i != len(buf):
		return errors.New(strconv.Itoa(len(buf)-i) + " bytes after the state")
	}
	return nil
}

// check reports the first field of s out of its domain for m's constants (the invariants
// of State; a status, role, message type or error beyond its names; a broker, set, value,
// offset or length beyond the constants; a negative epoch or count).
func (m *Model) check(s *State) error {
	n := m.n
	var bad string
	fail := func(what string) {
		if bad == "" {
			bad = what
		}
	}
	set := func(what string, x Set) {
		if x>>uint(n) != 0 {
			fail(what + ": a broker beyond " + strconv.Itoa(n))
		}
	}
	broker := func(what string, b int8, extra int8) {
		if !(b >= 0 && int(b) < n || b == NoLeader || b == extra) {
			fail(what + ": broker " + strconv.Itoa(int(b)) + " is out of range")
		}
	}
	num := func(what string, v int8, lo, hi int) {
		if int(v) < lo || int(v) > hi {
			fail(what + ": " + strconv.Itoa(int(v)) + " is out of range " + strconv.Itoa(lo) + ".." + strconv.Itoa(hi))
		}
	}
	const epochs = 127 // epochs, incarnations and counters are int8, at least 0 (or Nil)
	offset := func(what string, v int8) { num(what, v, Nil, MaxValues+1) }
	record := func(what string, r Record) {
		num(what+" epoch", r.Epoch, 0, epochs)
		num(what+" value", r.Value, 0, m.cfg.Values-1)
	}
	md := func(what string, r *PartitionMD) {
		set(what+".isr", r.ISR)
		broker(what+".leader", r.Leader, NoLeader)
		num(what+".leader_epoch", r.LeaderEpoch, 0, epochs)
		num(what+".partition_epoch", r.PartitionEpoch, 0, epochs)
	}
	msg := func(what string, g *Msg) {
		num(what+".type", int8(g.Type), int(RegisterBrokerRequest), int(FetchResponse))
		num(what+".error", int8(g.Err), int(ErrNil), int(NotLeaderOrFollower))
		broker(what+".source", g.Src, Controller)
		broker(what+".dest", g.Dst, Controller)
		set(what+".isr", g.ISR)
		for b := range g.Epochs {
			num(what+".isr_and_epochs", g.Epochs[b], Nil, epochs)
		}
		for _, e := range []int8{g.Incarnation, g.BrokerEpoch, g.LeaderEpoch, g.PartitionEpoch, g.NewLeaderEpoch,
			g.NewPartitionEpoch, g.LastFetchedEpoch, g.DivEpoch} {
			num(what+": an epoch", e, Nil, epochs)
		}
		for _, o := range []int8{g.MDOffset, g.FetchOffset, g.HWM, g.DivOffset} {
			num(what+": an offset", o, Nil, MaxMetadataLog+1)
		}
		record(what+".record", g.Rec)
	}
	for j := 0; j < int(s.MDLen); j++ {
		md("con_metadata_log["+strconv.Itoa(j+1)+"]", &s.MDLog[j])
	}
	set("con_unfenced", s.Unfenced)
	md("con_partition_metadata", &s.PartMD)
	for b := 0; b < n; b++ {
		name := "broker " + strconv.Itoa(b+1)
		r, st := &s.Reg[b], &s.Broker[b]
		num(name+": con_broker_reg status", int8(r.Status), int(Fenced), int(Unfenced))
		num(name+": con_broker_reg epochs", min(r.BrokerEpoch, r.Incarnation), 0, epochs)
		num(name+": broker_state status", int8(st.Status), int(OfflineClean), int(Running))
		num(name+": broker_state epochs", min(st.BrokerEpoch, st.Incarnation), 0, epochs)
		num(name+": broker_metadata_log's length", s.BrokerMDLen[b], 0, int(s.MDLen))
		for p := 0; p < n; p++ {
			f := &s.Fetchers[b][p]
			offset(name+": broker_fetchers fetch_offset", f.FetchOffset)
			num(name+": broker_fetchers last_fetched_epoch", f.LastFetchedEpoch, Nil, epochs)
			offset(name+": partition_replica_state leo", s.Peers[b][p].Leo)
			num(name+": partition_replica_state broker_epoch", s.Peers[b][p].BrokerEpoch, Nil, epochs)
		}
		num(name+": partition_status", int8(s.Status[b]), int(RoleNil), int(RoleFollower))
		rm := &s.RepMD[b]
		set(name+": partition_metadata isr", rm.ISR)
		set(name+": partition_metadata maximal_isr", rm.MaximalISR)
		broker(name+": partition_metadata leader", rm.Leader, NoLeader)
		num(name+": partition_metadata epochs", min(rm.LeaderEpoch, rm.PartitionEpoch), Nil, epochs)
		d := &s.Data[b]
		num(name+": partition_data log length", d.Len, 0, m.cfg.Values)
		offset(name+": partition_data hwm", d.HWM)
		for j := range d.Log {
			if j >= int(d.Len) && d.Log[j] != (Record{}) {
				fail(name + ": partition_data holds a record past its log's end")
			}
			if j < int(d.Len) {
				record(name+": partition_data record", d.Log[j])
			}
		}
		offset(name+": partition_leso", s.Leso[b])
		pa := &s.Pending[b]
		num(name+": partition_pending_ap epoch", pa.Epoch, Nil, epochs)
		if pa.Has {
			msg(name+": partition_pending_ap request", &pa.Req)
		}
	}
	for j := 0; j < int(s.NMsgs); j++ {
		what := "message " + strconv.Itoa(j+1)
		msg(what, &s.Msgs[j])
		num(what+": delivery count", s.Counts[j], 0, epochs)
		if j > 0 && !msgLess(&s.Msgs[j-1], &s.Msgs[j]) {
			fail(what + ": the messages are not sorted")
		}
	}
	for _, x := range []uint8{s.Sent, s.PosAcked, s.NegAcked} {
		if x>>uint(m.cfg.Values) != 0 {
			fail("inv_sent, inv_pos_acked or inv_neg_acked: a value beyond the values")
		}
	}
	offset("inv_true_hwm", s.TrueHWM)
	for j := 0; j < int(s.ConsumedLen); j++ {
		record("inv_consumed", s.Consumed[j])
	}
	num("aux_broker_epoch", s.AuxBrokerEpoch, 0, epochs)
	c := &s.Ctrs
	num("aux_ctrs", min(c.Incarnation, c.CleanShutdown, c.UncleanShutdown, c.FenceBroker, c.AlterPartition), 0, epochs)
	if bad != "" {
		return errors.New(bad)
	}
	return nil
}

// Variable indexes, in the order of the module's vars tuple.
const (
	VarConMetadataLog = iota
	VarConUnfenced
	VarConBrokerReg
	VarConPartitionMetadata
	VarBrokerState
	VarBrokerFetchers
	VarBrokerMetadataLog
	VarPartitionStatus
	VarPartitionMetadata
	VarPartitionData
	VarPartitionLeso
	VarPartitionReplicaState
	VarPartitionPendingAP
	VarMessages
	VarInvSent
	VarInvPosAcked
	VarInvNegAcked
	VarInvTrueHwm
	VarInvConsumed
	VarAuxBrokerEpoch
	VarAuxCtrs
)

var varNames = []string{"con_metadata_log", "con_unfenced", "con_broker_reg", "con_partition_metadata",
	"broker_state", "broker_fetchers", "broker_metadata_log", "partition_status", "partition_metadata",
	"partition_data", "partition_leso", "partition_replica_state", "partition_pending_ap", "messages",
	"inv_sent", "inv_pos_acked", "inv_neg_acked", "inv_true_hwm", "inv_consumed", "aux_broker_epoch", "aux_ctrs"}

// Vars names the module's variables, in the order of its vars tuple.
func (m *Model) Vars() []string { return varNames }

// A small ITF JSON writer.

func appendInt(buf []byte, v int) []byte {
	buf = append(buf, `{"#bigint":"`...)
	buf = strconv.AppendInt(buf, int64(v), 10)
	return append(buf, `"}`...)
}

func appendStr(buf []byte, s string) []byte { return strconv.AppendQuote(buf, s) }

// appendBroker writes a broker id as an integer, NoLeader and Controller as strings.
func appendBroker(buf []byte, b int) []byte {
	if b < 0 {
		return appendStr(buf, BrokerName(b))
	}
	return appendInt(buf, b+1)
}

// appendOpt writes an int8 that may be Nil.
func appendOpt(buf []byte, v int8) []byte {
	if v == Nil {
		return appendStr(buf, "Nil")
	}
	return appendInt(buf, int(v))
}

func (m *Model) appendSet(buf []byte, x Set) []byte {
	buf = append(buf, `{"#set":[`...)
	first := true
	for b := 0; b < m.n; b++ {
		if x.Has(b) {
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = appendInt(buf, b+1)
		}
	}
	return append(buf, "]}"...)
}

func (m *Model) appendValues(buf []byte, x uint8) []byte {
	buf = append(buf, `{"#set":[`...)
	first := true
	for v := 0; v < m.cfg.Values; v++ {
		if x&(1<<uint(v)) != 0 {
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = appendStr(buf, ValueName(v))
		}
	}
	return append(buf, "]}"...)
}

// field writes `"name":` with a comma before it unless first.
func field(buf []byte, name string, first bool) []byte {
	if !first {
		buf = append(buf, ',')
	}
	buf = appendStr(buf, name)
	return append(buf, ':')
}

func appendRecord(buf []byte, r Record, offset int) []byte {
	buf = append(buf, `{"epoch":`...)
	buf = appendInt(buf, int(r.Epoch))
	buf = append(buf, `,"offset":`...)
	buf = appendInt(buf, offset)
	buf = append(buf, `,"value":`...)
	buf = appendStr(buf, ValueName(int(r.Value)))
	return append(buf, '}')
}

func (m *Model) appendPartitionMD(buf []byte, r *PartitionMD, typ bool) []byte {
	buf = append(buf, '{')
	buf = field(buf, "isr", true)
	buf = m.appendSet(buf, r.ISR)
	buf = field(buf, "leader", false)
	buf = appendBroker(buf, int(r.Leader))
	buf = field(buf, "leader_epoch", false)
	buf = appendInt(buf, int(r.LeaderEpoch))
	buf = field(buf, "partition_epoch", false)
	buf = appendInt(buf, int(r.PartitionEpoch))
	if typ {
		buf = field(buf, "type", false)
		buf = appendStr(buf, "PartitionChangeRecord")
	}
	return append(buf, '}')
}

func (m *Model) appendMDLog(buf []byte, s *State, k int) []byte {
	buf = append(buf, `{"#tup":[`...)
	for i := 0; i < k; i++ {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = m.appendPartitionMD(buf, &s.MDLog[i], true)
	}
	return append(buf, "]}"...)
}

// perBroker writes a function Brokers -> value.
func (m *Model) perBroker(buf []byte, f func(buf []byte, b int) []byte) []byte {
	buf = append(buf, `{"#map":[`...)
	for b := 0; b < m.n; b++ {
		if b > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '[')
		buf = appendInt(buf, b+1)
		buf = append(buf, ',')
		buf = f(buf, b)
		buf = append(buf, ']')
	}
	return append(buf, "]}"...)
}

var statusNames = [...]string{"OFFLINE_CLEAN", "OFFLINE_DIRTY", "STARTING", "RUNNING"}
var regNames = [...]string{"FENCED", "UNFENCED"}
var roleNames = [...]string{"Nil", "Leader", "Follower"}
var typeNames = [...]string{"", "RegisterBrokerRequest", "RegisterBrokerResponse", "AlterPartitionRequest",
	"AlterPartitionResponse", "FetchRequest", "FetchResponse"}
var errNames = [...]string{"Nil", "IneligibleReplica", "FencedLeaderEpoch", "UnknownLeaderEpoch", "NotLeaderOrFollower"}

func (m *Model) appendMsg(buf []byte, msg *Msg) []byte {
	buf = append(buf, '{')
	buf = field(buf, "type", true)
	buf = appendStr(buf, typeNames[msg.Type])
	buf = field(buf, "source", false)
	buf = appendBroker(buf, int(msg.Src))
	buf = field(buf, "dest", false)
	buf = appendBroker(buf, int(msg.Dst))
	num := func(buf []byte, name string, v int8) []byte {
		return appendInt(field(buf, name, false), int(v))
	}
	switch msg.Type {
	case RegisterBrokerRequest:
		buf = appendBroker(field(buf, "broker_id", false), int(msg.Src))
		buf = num(buf, "incarnation_id", msg.Incarnation)
	case RegisterBrokerResponse:
		buf = num(buf, "broker_epoch", msg.BrokerEpoch)
		buf = num(buf, "metadata_offset", msg.MDOffset)
	case AlterPartitionRequest:
		buf = m.appendAPRequestFields(buf, msg)
	case AlterPartitionResponse:
		buf = appendStr(field(buf, "error", false), errNames[msg.Err])
		if msg.Err == ErrNil {
			buf = m.appendSet(field(buf, "isr", false), msg.ISR)
			buf = appendBroker(field(buf, "leader", false), int(msg.Dst))
			buf = num(buf, "leader_epoch", msg.NewLeaderEpoch)
			buf = num(buf, "partition_epoch", msg.NewPartitionEpoch)
		}
		req := msg.request()
		buf = m.appendMsg(field(buf, "request", false), &req)
	case FetchRequest:
		buf = num(buf, "broker_epoch", msg.BrokerEpoch)
		buf = append(field(buf, "partition", false), '{')
		buf = appendInt(field(buf, "leader_epoch", true), int(msg.LeaderEpoch))
		buf = num(buf, "fetch_offset", msg.FetchOffset)
		buf = num(buf, "last_fetched_epoch", msg.LastFetchedEpoch)
		buf = append(buf, '}')
	case FetchResponse:
		buf = append(field(buf, "partition", false), '{')
		buf = appendStr(field(buf, "error", true), errNames[msg.Err])
		buf = num(buf, "leader_epoch", msg.LeaderEpoch)
		buf = num(buf, "fetch_offset", msg.FetchOffset)
		buf = field(buf, "diverging_epoch", false)
		if msg.HasDiv {
			buf = append(buf, '{')
			buf = appendInt(field(buf, "epoch", true), int(msg.DivEpoch))
			buf = appendOpt(field(buf, "offset", false), msg.DivOffset)
			buf = append(buf, '}')
		} else {
			buf = appendStr(buf, "Nil")
		}
		buf = num(buf, "hwm", msg.HWM)
		buf = append(field(buf, "records", false), `{"#tup":[`...)
		if msg.HasRec {
			buf = appendRecord(buf, msg.Rec, int(msg.FetchOffset))
		}
		buf = append(buf, "]}"...)
		buf = append(buf, '}')
	}
	return append(buf, '}')
}

func (m *Model) appendAPRequestFields(buf []byte, msg *Msg) []byte {
	buf = m.appendSet(field(buf, "isr", false), msg.ISR)
	buf = append(field(buf, "isr_and_epochs", false), `{"#map":[`...)
	first := true
	for b := 0; b < m.n; b++ {
		if !msg.ISR.Has(b) {
			continue
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = append(buf, '[')
		buf = appendInt(buf, b+1)
		buf = append(buf, ',')
		buf = appendInt(buf, int(msg.Epochs[b]))
		buf = append(buf, ']')
	}
	buf = append(buf, "]}"...)
	buf = appendBroker(field(buf, "leader", false), int(msg.Src))
	buf = appendInt(field(buf, "leader_epoch", false), int(msg.LeaderEpoch))
	buf = appendInt(field(buf, "partition_epoch", false), int(msg.PartitionEpoch))
	return appendInt(field(buf, "broker_epoch", false), int(msg.BrokerEpoch))
}

// AppendValue appends variable v of s as ITF JSON with the module's values: broker ids
// are integers 1..N, model values (Nil, NoLeader, Controller, statuses, message types,
// errors) strings, values "A", "B", "C"; messages is a map from message records to their
// delivery counts; broker_metadata_log[b] is the prefix of con_metadata_log it holds.
func (m *Model) AppendValue(s *State, v int, buf []byte) []byte {
	switch v {
	case VarConMetadataLog:
		return m.appendMDLog(buf, s, int(s.MDLen))
	case VarConUnfenced:
		return m.appendSet(buf, s.Unfenced)
	case VarConBrokerReg:
		return m.perBroker(buf, func(buf []byte, b int) []byte {
			r := &s.Reg[b]
			buf = appendStr(field(append(buf, '{'), "status", true), regNames[r.Status])
			buf = appendInt(field(buf, "broker_epoch", false), int(r.BrokerEpoch))
			buf = appendInt(field(buf, "incarnation_id", false), int(r.Incarnation))
			return append(buf, '}')
		})
	case VarConPartitionMetadata:
		return m.appendPartitionMD(buf, &s.PartMD, false)
	case VarBrokerState:
		return m.perBroker(buf, func(buf []byte, b int) []byte {
			st := &s.Broker[b]
			buf = appendStr(field(append(buf, '{'), "status", true), statusNames[st.Status])
			buf = appendInt(field(buf, "broker_epoch", false), int(st.BrokerEpoch))
			buf = appendInt(field(buf, "incarnation_id", false), int(st.Incarnation))
			buf = strconv.AppendBool(field(buf, "registered", false), st.Registered)
			return append(buf, '}')
		})
	case VarBrokerFetchers:
		return m.perBroker(buf, func(buf []byte, b int) []byte {
			return m.perBroker(buf, func(buf []byte, p int) []byte {
				f := &s.Fetchers[b][p]
				buf = field(append(buf, '{'), "partition", true)
				if f.HasPartition {
					buf = appendInt(field(append(buf, '{'), "fetch_offset", true), int(f.FetchOffset))
					buf = appendInt(field(buf, "last_fetched_epoch", false), int(f.LastFetchedEpoch))
					buf = strconv.AppendBool(field(buf, "delayed", false), f.Delayed)
					buf = append(buf, '}')
				} else {
					buf = appendStr(buf, "Nil")
				}
				buf = strconv.AppendBool(field(buf, "pending_response", false), f.Pending)
				return append(buf, '}')
			})
		})
	case VarBrokerMetadataLog:
		return m.perBroker(buf, func(buf []byte, b int) []byte { return m.appendMDLog(buf, s, int(s.BrokerMDLen[b])) })
	case VarPartitionStatus:
		return m.perBroker(buf, func(buf []byte, b int) []byte { return appendStr(buf, roleNames[s.Status[b]]) })
	case VarPartitionMetadata:
		return m.perBroker(buf, func(buf []byte, b int) []byte {
			r := &s.RepMD[b]
			buf = m.appendSet(field(append(buf, '{'), "isr", true), r.ISR)
			buf = m.appendSet(field(buf, "maximal_isr", false), r.MaximalISR)
			buf = appendBroker(field(buf, "leader", false), int(r.Leader))
			buf = appendInt(field(buf, "leader_epoch", false), int(r.LeaderEpoch))
			buf = appendInt(field(buf, "partition_epoch", false), int(r.PartitionEpoch))
			return append(buf, '}')
		})
	case VarPartitionData:
		return m.perBroker(buf, func(buf []byte, b int) []byte {
			d := &s.Data[b]
			buf = append(field(append(buf, '{'), "log", true), `{"#tup":[`...)
			for i := 0; i < int(d.Len); i++ {
				if i > 0 {
					buf = append(buf, ',')
				}
				buf = appendRecord(buf, d.Log[i], i+1)
			}
			buf = append(buf, "]}"...)
			buf = appendInt(field(buf, "hwm", false), int(d.HWM))
			buf = appendInt(field(buf, "leo", false), d.Leo())
			return append(buf, '}')
		})
	case VarPartitionLeso:
		return m.perBroker(buf, func(buf []byte, b int) []byte { return appendOpt(buf, s.Leso[b]) })
	case VarPartitionReplicaState:
		return m.perBroker(buf, func(buf []byte, b int) []byte {
			return m.perBroker(buf, func(buf []byte, p int) []byte {
				ps := &s.Peers[b][p]
				buf = appendOpt(field(append(buf, '{'), "leo", true), ps.Leo)
				buf = appendInt(field(buf, "broker_epoch", false), int(ps.BrokerEpoch))
				return append(buf, '}')
			})
		})
	case VarPartitionPendingAP:
		return m.perBroker(buf, func(buf []byte, b int) []byte {
			pa := &s.Pending[b]
			buf = appendInt(field(append(buf, '{'), "epoch", true), int(pa.Epoch))
			buf = field(buf, "request", false)
			if pa.Has {
				buf = m.appendMsg(buf, &pa.Req)
			} else {
				buf = appendStr(buf, "Nil")
			}
			return append(buf, '}')
		})
	case VarMessages:
		buf = append(buf, `{"#map":[`...)
		for i := 0; i < int(s.NMsgs); i++ {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = m.appendMsg(append(buf, '['), &s.Msgs[i])
			buf = append(appendInt(append(buf, ','), int(s.Counts[i])), ']')
		}
		return append(buf, "]}"...)
	case VarInvSent:
		return m.appendValues(buf, s.Sent)
	case VarInvPosAcked:
		return m.appendValues(buf, s.PosAcked)
	case VarInvNegAcked:
		return m.appendValues(buf, s.NegAcked)
	case VarInvTrueHwm:
		return appendInt(buf, int(s.TrueHWM))
	case VarInvConsumed:
		buf = append(buf, `{"#tup":[`...)
		for i := 0; i < int(s.ConsumedLen); i++ {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendRecord(buf, s.Consumed[i], i+1)
		}
		return append(buf, "]}"...)
	case VarAuxBrokerEpoch:
		return appendInt(buf, int(s.AuxBrokerEpoch))
	case VarAuxCtrs:
		c := &s.Ctrs
		buf = appendInt(field(append(buf, '{'), "incarn_ctr", true), int(c.Incarnation))
		buf = appendInt(field(buf, "clean_shutdown_ctr", false), int(c.CleanShutdown))
		buf = appendInt(field(buf, "unclean_shutdown_ctr", false), int(c.UncleanShutdown))
		buf = appendInt(field(buf, "fence_broker_ctr", false), int(c.FenceBroker))
		buf = appendInt(field(buf, "alter_part_ctr", false), int(c.AlterPartition))
		return append(buf, '}')
	}
	return buf
}

// ActionName prints an action as its TLA+ name with its arguments: the broker (and value,
// or destination broker), "src->dst" for a received message, the leader chosen where
// the controller's election had a choice ("leader=2"), and the proposed ISR of an
// AlterPartition request.
func (m *Model) ActionName(a uint64) string {
	k, x, y, z := decode(a)
	if k >= numKinds {
		return "Action(" + strconv.FormatUint(a, 10) + ")"
	}
	b := []byte(kindNames[k])
	b = append(b, '(')
	sd := func(b []byte) []byte {
		b = append(b, BrokerName(int(int8(x<<4)>>4))...)
		b = append(b, "->"...)
		return append(b, BrokerName(int(int8(y<<4)>>4))...)
	}
	switch k {
	case kReceiveBrokerRegResponse, kReceiveAlterPartitionResponse, kReceiveFetchRequest, kReceiveFetchResponse,
		kReceiveAlterPartitionRequest:
		b = sd(b)
	case kReceiveBrokerRegRequest:
		b = sd(b)
		if z > 0 {
			b = append(b, ", leader="...)
			b = append(b, BrokerName(z-1)...)
		}
	case kSendFetchRequest:
		b = sd(b)
	case kWriteRecordToLeader:
		b = append(b, BrokerName(x)...)
		b = append(b, ", "...)
		b = append(b, ValueName(y)...)
	case kSendAlterPartitionRequest:
		b = append(b, BrokerName(x)...)
		b = append(b, ", isr={"...)
		first := true
		for i := 0; i < MaxBrokers; i++ {
			if Set(z).Has(i) {
				if !first {
					b = append(b, ',')
				}
				first = false
				b = append(b, BrokerName(i)...)
			}
		}
		b = append(b, '}')
	default:
		b = append(b, BrokerName(x)...)
		if z > 0 {
			b = append(b, ", leader="...)
			b = append(b, BrokerName(z-1)...)
		}
	}
	return string(append(b, ')'))
}

// ActionKind is the index of a's kind in ActionKinds.
func (m *Model) ActionKind(a uint64) int {
	k, _, _, _ := decode(a)
	if k >= numKinds {
		return -1
	}
	return k
}

// ActionKinds names the disjuncts of the module's Next, in its order.
func (m *Model) ActionKinds() []string { return kindNames[:] }

// Fairness follows the module's Liveness (used by LivenessSpec, not by the cfg's Spec):
// weak fairness on every action but the faults (UncleanShutdown, CleanShutdown,
// FenceBroker). The module's WF is on the disjunction; kmc applies it per instance.
func (m *Model) Fairness(kind int) int {
	switch kind {
	case kUncleanShutdown, kCleanShutdown, kFenceBroker:
		return 0
	case -1:
		return 0
	}
	if kind < 0 || kind >= numKinds {
		return 0
	}
	return 1
}

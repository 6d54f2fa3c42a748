package kafka

import "strconv"

// Encoding, ITF value and text of the KRaft control plane (kraft.go). None of it is used
// unless Config.KRaft, so every other configuration encodes as before.

var varNamesKR = append(append([]string{}, varNames...), "kraft")

func (m *Model) encodeKR(s *State, buf []byte) []byte {
	k := &s.KR
	var f uint8
	if k.Zombie {
		f = 1
	}
	buf = append(buf, k.N, k.Epoch<<4|f, k.Snap.Leader<<4|k.Snap.Epoch, k.Snap.PEpoch, k.Snap.ISR,
		k.Fenced, k.Down, k.ELR, k.LastELR, k.Losses)
	for i := 0; i < int(k.N); i++ {
		r := &k.Log[i]
		buf = append(buf, r.Kind<<4|r.Broker, r.Leader<<4|r.Epoch, r.PEpoch, r.ISR)
	}
	for b := 0; b < m.nb(); b++ {
		buf = append(buf, k.Lag[b]<<4|k.Known[b], k.Cached[b])
	}
	if k.Zombie {
		o := &k.Old
		buf = append(buf, o.Leader<<4|o.Epoch, o.PEpoch, o.ISR, o.Live)
		buf = append(buf, o.BEpoch[:m.nb()]...)
	}
	return buf
}

func (m *Model) decodeKR(buf []byte, s *State) error {
	k := &s.KR
	r := &byteReader{buf: buf}
	next := r.next
	if k.N = next(); int(k.N) > len(k.Log) {
		return errCount
	}
	v := next()
	k.Epoch, k.Zombie = v>>4, v&1 != 0
	v = next()
	k.Snap = MetaRec{Kind: RecPartition, Leader: v >> 4, Epoch: v & 15}
	k.Snap.PEpoch, k.Snap.ISR = next(), next()
	k.Fenced, k.Down, k.ELR, k.LastELR, k.Losses = next(), next(), next(), next(), next()
	for j := 0; j < int(k.N); j++ {
		r := &k.Log[j]
		v = next()
		r.Kind, r.Broker = v>>4, v&15
		v = next()
		r.Leader, r.Epoch = v>>4, v&15
		r.PEpoch, r.ISR = next(), next()
	}
	for b := 0; b < m.nb(); b++ {
		v = next()
		k.Lag[b], k.Known[b] = v>>4, v&15
		k.Cached[b] = next()
	}
	if k.Zombie {
		o := &k.Old
		v = next()
		o.Leader, o.Epoch = v>>4, v&15
		o.PEpoch, o.ISR, o.Live = next(), next(), next()
		for b := 0; b < m.nb(); b++ {
			o.BEpoch[b] = next()
		}
	}
	if r.short {
		return errShort
	}
	return nil
}

// appendKRaft is the ITF value of the kraft variable: the quorum epoch and the old active
// controller, the brokers' registration states, ELR and last known ELR, the metadata log's
// kept records and snapshot, and each broker's replay position and known controller.
func (m *Model) appendKRaft(s *State, buf []byte) []byte {
	k := &s.KR
	buf = append(buf, `{"quorumEpoch":`...)
	buf = jInt(buf, int(k.Epoch))
	buf = append(buf, `,"oldControllerActive":`...)
	buf = strconv.AppendBool(buf, k.Zombie)
	buf = append(buf, `,"fenced":`...)
	buf = jSet(buf, k.Fenced)
	buf = append(buf, `,"inControlledShutdown":`...)
	buf = jSet(buf, k.Down)
	buf = append(buf, `,"elr":`...)
	buf = jSet(buf, k.ELR)
	buf = append(buf, `,"lastKnownElr":`...)
	buf = jSet(buf, k.LastELR)
	buf = append(buf, `,"sessionLosses":`...)
	buf = jInt(buf, int(k.Losses))
	buf = append(buf, `,"snapshot":`...)
	buf = jRec(buf, &k.Snap)
	buf = append(buf, `,"log":[`...)
	for i := 0; i < int(k.N); i++ {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = jRec(buf, &k.Log[i])
	}
	buf = append(buf, `],"unread":`...)
	buf = m.jBrokerMap(buf, func(buf []byte, b int) []byte { return jInt(buf, int(k.Lag[b])) })
	buf = append(buf, `,"knownQuorumEpoch":`...)
	buf = m.jBrokerMap(buf, func(buf []byte, b int) []byte { return jInt(buf, int(k.Known[b])) })
	buf = append(buf, `,"cachedControllerEpoch":`...)
	buf = m.jBrokerMap(buf, func(buf []byte, b int) []byte { return jInt(buf, int(k.Cached[b])) })
	return append(buf, '}')
}

func jRec(buf []byte, r *MetaRec) []byte {
	buf = append(buf, `{"record":`...)
	buf = jStr(buf, recNames[r.Kind])
	switch r.Kind {
	case RecPartition:
		buf = append(buf, `,"leader":`...)
		buf = jInt(buf, int(r.Leader))
		buf = append(buf, `,"leaderEpoch":`...)
		buf = jInt(buf, int(r.Epoch))
		buf = append(buf, `,"partitionEpoch":`...)
		buf = jInt(buf, int(r.PEpoch))
		buf = append(buf, `,"isr":`...)
		buf = jSet(buf, r.ISR)
	case RecLeaderChange:
		buf = append(buf, `,"quorumEpoch":`...)
		buf = jInt(buf, int(r.Broker))
	default:
		buf = append(buf, `,"broker":`...)
		buf = jBroker(buf, int(r.Broker))
	}
	return append(buf, '}')
}

// fmtRec appends r as text: "part(l=1 e=2 pe=3 isr={1,2})", "register(2)", "leader-change(2)".
func fmtRec(buf []byte, r *MetaRec) []byte {
	switch r.Kind {
	case RecPartition:
		buf = append(buf, "part(l="...)
		buf = strconv.AppendInt(buf, int64(r.Leader), 10)
		buf = append(buf, " e="...)
		buf = strconv.AppendInt(buf, int64(r.Epoch), 10)
		buf = append(buf, " pe="...)
		buf = strconv.AppendInt(buf, int64(r.PEpoch), 10)
		buf = append(buf, " isr="...)
		buf = fmtSet(buf, r.ISR)
		return append(buf, ')')
	case RecLeaderChange:
		buf = append(buf, "leader-change("...)
		buf = strconv.AppendInt(buf, int64(r.Broker), 10)
	default:
		buf = append(buf, [...]string{"", "register(", "fence(", "unfence(", "shutdown("}[r.Kind]...)
		buf = strconv.AppendInt(buf, int64(r.Broker)+1, 10)
	}
	return append(buf, ')')
}

// formatKR appends the KRaft plane's lines of Format.
func (m *Model) formatKR(s *State, buf []byte) []byte {
	if !m.kraft() {
		return buf
	}
	k := &s.KR
	buf = append(buf, "kraft epoch="...)
	buf = strconv.AppendInt(buf, int64(k.Epoch), 10)
	if k.Zombie {
		buf = append(buf, " old-active(l="...)
		buf = strconv.AppendInt(buf, int64(k.Old.Leader), 10)
		buf = append(buf, " e="...)
		buf = strconv.AppendInt(buf, int64(k.Old.Epoch), 10)
		buf = append(buf, " pe="...)
		buf = strconv.AppendInt(buf, int64(k.Old.PEpoch), 10)
		buf = append(buf, " isr="...)
		buf = fmtSet(buf, k.Old.ISR)
		buf = append(buf, ')')
	}
	buf = append(buf, " fenced="...)
	buf = fmtSet(buf, k.Fenced)
	buf = append(buf, " shutdown="...)
	buf = fmtSet(buf, k.Down)
	if m.elr() {
		buf = append(buf, " elr="...)
		buf = fmtSet(buf, k.ELR)
		buf = append(buf, " lastElr="...)
		buf = fmtSet(buf, k.LastELR)
	}
	buf = append(buf, "\nmetadata snap="...)
	buf = fmtRec(buf, &k.Snap)
	buf = append(buf, " log=["...)
	for i := 0; i < int(k.N); i++ {
		if i > 0 {
			buf = append(buf, ' ')
		}
		buf = fmtRec(buf, &k.Log[i])
	}
	buf = append(buf, "] unread=["...)
	for b := 0; b < m.nb(); b++ {
		if b > 0 {
			buf = append(buf, ' ')
		}
		buf = strconv.AppendInt(buf, int64(k.Lag[b]), 10)
	}
	buf = append(buf, "] known=["...)
	for b := 0; b < m.nb(); b++ {
		if b > 0 {
			buf = append(buf, ' ')
		}
		buf = strconv.AppendInt(buf, int64(k.Known[b]), 10)
		buf = append(buf, '/')
		buf = strconv.AppendInt(buf, int64(k.Cached[b]), 10)
	}
	return append(buf, "]\n"...)
}

package kafka

import "strconv"

// kraftEvents adds the sequence-chart events of a KRaft control-plane step (AppendEvents):
// a broker's registration and heartbeat as messages to the active controller, the records
// the controller appends to the metadata log as its local steps, and a broker's replay of a
// record as a message from the controller. Only called with Config.KRaft.
func (m *Model) kraftEvents(e *eventList, from *State, a uint64, to *State) {
	ctrl := m.ctrlName(0)
	b := argOf(a, 0)
	bn := "b" + strconv.Itoa(b+1)
	msg := func(sender, receiver, id, label string) {
		e.add("send", sender, receiver, id, label)
		e.add("recv", receiver, sender, id, label)
	}
	partition := func() {
		if st, was := &to.Ctrl, &from.Ctrl; st.Leader != was.Leader || st.Epoch != was.Epoch ||
			st.PEpoch != was.PEpoch || st.ISR != was.ISR || to.KR.ELR != from.KR.ELR {
			e.add("local", ctrl, "", "", string(m.partitionRecord(nil, MetaRec{Kind: RecPartition,
				Leader: st.Leader, Epoch: st.Epoch, PEpoch: st.PEpoch, ISR: st.ISR}, to.KR.ELR)))
		}
	}
	switch kindOf(a) {
	case KindControllerRegisterBroker:
		msg(bn, ctrl, "kraft-register-"+bn, "BrokerRegistration "+bn+", new incarnation")
		partition()
		e.add("local", ctrl, "", "", "RegisterBrokerRecord "+bn+", broker epoch "+strconv.Itoa(int(to.Ctrl.BEpoch[b]))+", fenced")
	case KindControllerUnfenceBroker:
		msg(bn, ctrl, "kraft-heartbeat-"+bn, "BrokerHeartbeat "+bn+": caught up to its registration")
		e.add("local", ctrl, "", "", "BrokerRegistrationChangeRecord "+bn+" unfenced")
		partition()
	case KindControllerFenceBroker:
		e.add("local", ctrl, "", "", "session of "+bn+" expired")
		partition()
		e.add("local", ctrl, "", "", "BrokerRegistrationChangeRecord "+bn+" fenced")
	case KindBrokerReplayMetadata:
		if lag := from.KR.Lag[b]; lag > 0 {
			rec := from.KR.Log[from.KR.N-lag]
			msg(ctrl, bn, "kraft-replay-"+bn, "replay "+string(m.partitionRecord(nil, rec, 0)))
		} else {
			e.add("local", bn, "", "", "publishes its first metadata image")
		}
	case KindControllerRenounce, KindControllerQuorumFailover:
		e.add("local", ctrl, "", "", m.ActionName(a))
	}
}

// partitionRecord appends a metadata record's label: its kind and fields (elr, for a
// PartitionChangeRecord, the ELR after it when the model has ELR).
func (m *Model) partitionRecord(buf []byte, r MetaRec, elr uint8) []byte {
	bn := "b" + strconv.Itoa(int(r.Broker)+1)
	switch r.Kind {
	case RecRegister:
		return append(buf, "RegisterBrokerRecord "+bn...)
	case RecFence:
		return append(buf, "BrokerRegistrationChangeRecord "+bn+" fenced"...)
	case RecUnfence:
		return append(buf, "BrokerRegistrationChangeRecord "+bn+" unfenced"...)
	case RecShutdown:
		return append(buf, "BrokerRegistrationChangeRecord "+bn+" in controlled shutdown"...)
	case RecLeaderChange:
		return append(buf, "LeaderChange, KRaft epoch "+strconv.Itoa(int(r.Broker))...)
	}
	buf = append(buf, "PartitionChangeRecord leader="...)
	if r.Leader == 0 {
		buf = append(buf, "none"...)
	} else {
		buf = append(buf, 'b')
		buf = strconv.AppendInt(buf, int64(r.Leader), 10)
	}
	buf = append(buf, " epoch="...)
	buf = strconv.AppendInt(buf, int64(r.Epoch), 10)
	buf = append(buf, " partition epoch="...)
	buf = strconv.AppendInt(buf, int64(r.PEpoch), 10)
	buf = append(buf, " isr="...)
	buf = fmtSet(buf, r.ISR)
	if m.elr() {
		buf = append(buf, " elr="...)
		buf = fmtSet(buf, elr)
	}
	return buf
}

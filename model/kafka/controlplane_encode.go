package kafka

import "strconv"

// Encoding, ITF values and text of the control plane (controlplane.go). None of it is used
// unless Config.Controllers >= 2, so the encoding of the single-controller model is unchanged.

// VarControlPlane is the variable the control plane adds after the others; with the control
// plane on, variable VarController is the store's content and is called "store".
const VarControlPlane = numVars

var varNamesCP = func() []string {
	v := make([]string, 0, numVars+1)
	for _, n := range varNames {
		if n == "controller" {
			n = "store"
		}
		v = append(v, n)
	}
	return append(v, "controlPlane")
}()

func (m *Model) encodeCP(s *State, buf []byte) []byte {
	p := &s.CP
	buf = append(buf, p.Writer<<4|p.CEpoch, p.CVersion<<4|p.N, p.SessionLosses)
	for b := 0; b < m.nb(); b++ {
		k := &p.BK[b]
		buf = append(buf, k.Ctrl<<4|k.CtrlEpoch, k.MaxEpoch)
	}
	for i := 0; i < int(p.N); i++ {
		c := &p.C[i]
		var f uint8
		if c.Active {
			f |= 1
		}
		if c.Session {
			f |= 2
		}
		if c.Offline {
			f |= 4
		}
		buf = append(buf, c.Broker<<4|f, c.Epoch, c.Leader<<4|c.LEpoch, c.ZkVer, c.ISR, c.Live, c.Stale, c.NQ)
		buf = append(buf, c.Q[:c.NQ]...)
	}
	return buf
}

func (m *Model) decodeCP(buf []byte, s *State) error {
	p := &s.CP
	r := &byteReader{buf: buf}
	next := r.next
	v := next()
	p.Writer, p.CEpoch = v>>4, v&15
	v = next()
	p.CVersion, p.N = v>>4, v&15
	p.SessionLosses = next()
	for b := 0; b < m.nb(); b++ {
		k := &p.BK[b]
		v = next()
		k.Ctrl, k.CtrlEpoch = v>>4, v&15
		k.MaxEpoch = next()
	}
	if int(p.N) > len(p.C) {
		return errCount
	}
	for j := 0; j < int(p.N); j++ {
		c := &p.C[j]
		v = next()
		c.Broker = v >> 4
		c.Active, c.Session, c.Offline = v&1 != 0, v&2 != 0, v&4 != 0
		c.Epoch = next()
		v = next()
		c.Leader, c.LEpoch = v>>4, v&15
		c.ZkVer, c.ISR, c.Live, c.Stale, c.NQ = next(), next(), next(), next(), next()
		if int(c.NQ) > len(c.Q) {
			return errCount
		}
		for q := 0; q < int(c.NQ); q++ {
			c.Q[q] = next()
		}
	}
	if r.short {
		return errShort
	}
	return nil
}

var evNames = [...]string{"", "BrokerFailure", "BrokerStartup", "IsrChangeNotification"}

// appendControlPlane is the ITF value of VarControlPlane: the /controller_epoch node and the
// partition state's writer epoch, the controller incarnations, and each broker's view of the
// controller.
func (m *Model) appendControlPlane(s *State, buf []byte) []byte {
	p := &s.CP
	buf = append(buf, `{"controllerEpoch":`...)
	buf = jInt(buf, int(p.CEpoch))
	buf = append(buf, `,"controllerEpochVersion":`...)
	buf = jInt(buf, int(p.CVersion))
	buf = append(buf, `,"partitionStateWriterEpoch":`...)
	buf = jInt(buf, int(p.Writer))
	buf = append(buf, `,"sessionLosses":`...)
	buf = jInt(buf, int(p.SessionLosses))
	buf = append(buf, `,"controllers":[`...)
	for i := 0; i < int(p.N); i++ {
		c := &p.C[i]
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"broker":`...)
		buf = jBroker(buf, int(c.Broker))
		buf = append(buf, `,"epoch":`...)
		buf = jInt(buf, int(c.Epoch))
		buf = append(buf, `,"active":`...)
		buf = strconv.AppendBool(buf, c.Active)
		buf = append(buf, `,"session":`...)
		buf = strconv.AppendBool(buf, c.Session)
		buf = append(buf, `,"partitionState":`...)
		if c.Offline {
			buf = jStr(buf, "OfflinePartition")
		} else {
			buf = jStr(buf, "OnlinePartition")
		}
		buf = append(buf, `,"cache":{"leader":`...)
		buf = jInt(buf, int(c.Leader))
		buf = append(buf, `,"leaderEpoch":`...)
		buf = jInt(buf, int(c.LEpoch))
		buf = append(buf, `,"zkVersion":`...)
		buf = jInt(buf, int(c.ZkVer))
		buf = append(buf, `,"isr":`...)
		buf = jSet(buf, c.ISR)
		buf = append(buf, `,"liveBrokers":`...)
		buf = jSet(buf, c.Live)
		buf = append(buf, `},"queue":[`...)
		for q := 0; q < int(c.NQ); q++ {
			if q > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, `{"event":`...)
			buf = jStr(buf, evNames[c.Q[q]>>4])
			if c.Q[q]>>4 != EvIsrChange {
				buf = append(buf, `,"broker":`...)
				buf = jBroker(buf, int(c.Q[q]&15))
			}
			buf = append(buf, '}')
		}
		buf = append(buf, `]}`...)
	}
	buf = append(buf, `],"brokers":`...)
	buf = m.jBrokerMap(buf, func(buf []byte, b int) []byte {
		k := &p.BK[b]
		buf = append(buf, `{"controller":`...)
		buf = jInt(buf, int(k.Ctrl))
		buf = append(buf, `,"controllerEpoch":`...)
		buf = jInt(buf, int(k.CtrlEpoch))
		buf = append(buf, `,"maxControllerEpochSeen":`...)
		buf = jInt(buf, int(k.MaxEpoch))
		return append(buf, '}')
	})
	return append(buf, '}')
}

// formatCP appends the control plane's lines of Format: the store's epochs, one line per
// incarnation, and the brokers' view of the controller.
func (m *Model) formatCP(s *State, buf []byte) []byte {
	if !m.cp() {
		return buf
	}
	p := &s.CP
	num := func(k string, v int) {
		buf = append(buf, k...)
		buf = strconv.AppendInt(buf, int64(v), 10)
	}
	num("zk writer=", int(p.Writer))
	num(" controller_epoch=", int(p.CEpoch))
	num(" version=", int(p.CVersion))
	buf = append(buf, '\n')
	for i := 0; i < int(p.N); i++ {
		c := &p.C[i]
		num("c", i+1)
		num(" on b", int(c.Broker)+1)
		num(" epoch=", int(c.Epoch))
		switch {
		case c.Active && c.Session:
			buf = append(buf, " active"...)
		case c.Active:
			buf = append(buf, " zombie"...)
		default:
			buf = append(buf, " resigned"...)
		}
		num(" cache leader=", int(c.Leader))
		num(" e=", int(c.LEpoch))
		num(" zkv=", int(c.ZkVer))
		buf = append(buf, " isr="...)
		buf = fmtSet(buf, c.ISR)
		buf = append(buf, " live="...)
		buf = fmtSet(buf, c.Live)
		if c.Offline {
			buf = append(buf, " offline"...)
		}
		buf = append(buf, " queue=["...)
		for q := 0; q < int(c.NQ); q++ {
			if q > 0 {
				buf = append(buf, ' ')
			}
			switch c.Q[q] >> 4 {
			case EvIsrChange:
				buf = append(buf, "isr-change"...)
				continue
			case EvBrokerFailure:
				buf = append(buf, "fail"...)
			default:
				buf = append(buf, "start"...)
			}
			num("(", int(c.Q[q]&15)+1)
			buf = append(buf, ')')
		}
		buf = append(buf, "]\n"...)
	}
	buf = append(buf, "known controller:"...)
	for b := 0; b < m.nb(); b++ {
		k := &p.BK[b]
		num(" b", b+1)
		num("=c", int(k.Ctrl))
		num("@", int(k.CtrlEpoch))
		num("/max", int(k.MaxEpoch))
	}
	return append(buf, '\n')
}

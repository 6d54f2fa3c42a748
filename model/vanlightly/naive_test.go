package vanlightly

// A second, deliberately naive implementation of the same TLA+ modules, written from their
// text with TLA+-like dynamic values: a state maps each variable's name to a value built
// of integers, strings (model values), booleans, records (R), sequences (Q), sets of
// brokers (S), sets of values (VS), functions of brokers (F) and the bag of messages
// (Bag, keyed by the printed message). Every operator is written again from the module;
// broker metadata logs are whole sequences, messages whole records. A state is identified
// by the printed VIEW. It shares no code with the port; the tests compare the two over
// every reachable state.

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

type (
	R   map[string]any
	Q   []any
	S   map[int]bool
	VS  map[string]bool
	F   map[int]any
	Bag map[string]*bagEntry
)

type bagEntry struct {
	msg   any
	count int
}

const nNil, nNoLeader, nController = "Nil", "NoLeader", "Controller"

// show prints a value canonically (records by sorted field, sets sorted).
func show(v any) string {
	var b strings.Builder
	showTo(&b, v)
	return b.String()
}

func showTo(b *strings.Builder, v any) {
	switch x := v.(type) {
	case int:
		b.WriteString(strconv.Itoa(x))
	case string:
		b.WriteString(x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case R:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('[')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(k)
			b.WriteString("|->")
			showTo(b, x[k])
		}
		b.WriteByte(']')
	case Q:
		b.WriteString("<<")
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			showTo(b, e)
		}
		b.WriteString(">>")
	case S:
		var ks []int
		for k, in := range x {
			if in {
				ks = append(ks, k)
			}
		}
		sort.Ints(ks)
		b.WriteByte('{')
		for i, k := range ks {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(k))
		}
		b.WriteByte('}')
	case VS:
		var ks []string
		for k, in := range x {
			if in {
				ks = append(ks, k)
			}
		}
		sort.Strings(ks)
		b.WriteByte('{')
		b.WriteString(strings.Join(ks, ","))
		b.WriteByte('}')
	case F:
		var ks []int
		for k := range x {
			ks = append(ks, k)
		}
		sort.Ints(ks)
		b.WriteByte('(')
		for i, k := range ks {
			if i > 0 {
				b.WriteString("@@")
			}
			b.WriteString(strconv.Itoa(k))
			b.WriteString(":>")
			showTo(b, x[k])
		}
		b.WriteByte(')')
	case Bag:
		var ks []string
		for k := range x {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		b.WriteByte('(')
		for i, k := range ks {
			if i > 0 {
				b.WriteString("@@")
			}
			b.WriteString(k)
			b.WriteString(":>")
			b.WriteString(strconv.Itoa(x[k].count))
		}
		b.WriteByte(')')
	default:
		panic(fmt.Sprintf("show: %T", v))
	}
}

// deep copies a value.
func deep(v any) any {
	switch x := v.(type) {
	case R:
		y := R{}
		for k, e := range x {
			y[k] = deep(e)
		}
		return y
	case Q:
		y := make(Q, len(x))
		for i, e := range x {
			y[i] = deep(e)
		}
		return y
	case S:
		y := S{}
		for k, e := range x {
			y[k] = e
		}
		return y
	case VS:
		y := VS{}
		for k, e := range x {
			y[k] = e
		}
		return y
	case F:
		y := F{}
		for k, e := range x {
			y[k] = deep(e)
		}
		return y
	case Bag:
		y := Bag{}
		for k, e := range x {
			y[k] = &bagEntry{msg: e.msg, count: e.count}
		}
		return y
	}
	return v
}

type nState map[string]any

func (s nState) clone() nState {
	t := nState{}
	for k, v := range s {
		t[k] = deep(v)
	}
	return t
}

var viewVars = []string{"con_metadata_log", "con_unfenced", "con_broker_reg", "con_partition_metadata",
	"broker_state", "broker_fetchers", "broker_metadata_log", "partition_status", "partition_metadata",
	"partition_data", "partition_leso", "partition_replica_state", "partition_pending_ap", "messages",
	"inv_sent", "inv_pos_acked", "inv_neg_acked", "inv_true_hwm", "inv_consumed"}

// key is the printed VIEW.
func (s nState) key() string {
	var b strings.Builder
	for _, v := range viewVars {
		b.WriteString(v)
		b.WriteByte('=')
		b.WriteString(show(s[v]))
		b.WriteByte(';')
	}
	return b.String()
}

type naive struct {
	c       Config
	brokers []int
	values  []string
}

func newNaive(c Config) *naive {
	nv := &naive{c: c}
	for b := 1; b <= c.ReplicationFactor; b++ {
		nv.brokers = append(nv.brokers, b)
	}
	for v := 0; v < c.Values; v++ {
		nv.values = append(nv.values, string(rune('A'+v)))
	}
	return nv
}

// accessors
func (s nState) f(v string) F         { return s[v].(F) }
func (s nState) r(v string) R         { return s[v].(R) }
func (s nState) at(v string, b int) R { return s.f(v)[b].(R) }
func (s nState) ctr(name string) int  { return s.r("aux_ctrs")[name].(int) }
func (s nState) data(b int) R         { return s.at("partition_data", b) }
func (s nState) log(b int) Q          { return s.data(b)["log"].(Q) }
func (s nState) leo(b int) int        { return s.data(b)["leo"].(int) }
func (s nState) hwmOf(b int) int      { return s.data(b)["hwm"].(int) }
func (s nState) pmd(b int) R          { return s.at("partition_metadata", b) }
func (s nState) pstatus(b int) string { return s.f("partition_status")[b].(string) }
func (s nState) fetcher(b, p int) R   { return s.f("broker_fetchers")[b].(F)[p].(R) }
func (s nState) rstate(b, p int) R    { return s.f("partition_replica_state")[b].(F)[p].(R) }

func card(x S) int {
	n := 0
	for _, in := range x {
		if in {
			n++
		}
	}
	return n
}

func setOf(bs ...int) S {
	x := S{}
	for _, b := range bs {
		x[b] = true
	}
	return x
}

func eq(a, b any) bool { return show(a) == show(b) }

// message passing
func (nv *naive) send(t nState, m R) {
	bag := t["messages"].(Bag)
	k := show(m)
	if e, ok := bag[k]; ok {
		e.count++
	} else {
		bag[k] = &bagEntry{msg: m, count: 1}
	}
}

func (nv *naive) discard(t nState, k string) { t["messages"].(Bag)[k].count-- }

func (nv *naive) msgs(s nState, typ string) []string {
	var ks []string
	for k, e := range s["messages"].(Bag) {
		if e.msg.(R)["type"] == typ && e.count > 0 {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	return ks
}

func (nv *naive) init() nState {
	n := len(nv.brokers)
	isr := S{}
	for b := 1; b <= nv.c.InitIsrSize; b++ {
		isr[b] = true
	}
	all := S{}
	for _, b := range nv.brokers {
		all[b] = true
	}
	pe := 2
	if eq(isr, all) {
		pe = 1
	}
	rec := R{"type": "PartitionChangeRecord", "leader": 1, "isr": isr, "leader_epoch": 1, "partition_epoch": pe}
	s := nState{}
	s["con_unfenced"] = deep(isr)
	reg, bs, fet, bml, ps, pm, pd, pl, rs, pap := F{}, F{}, F{}, F{}, F{}, F{}, F{}, F{}, F{}, F{}
	for _, b := range nv.brokers {
		st := "FENCED"
		if isr[b] {
			st = "UNFENCED"
		}
		reg[b] = R{"status": st, "broker_epoch": b, "incarnation_id": b}
		bs[b] = R{"status": "RUNNING", "broker_epoch": b, "incarnation_id": b, "registered": true}
		fb := F{}
		for _, b1 := range nv.brokers {
			if b != 1 && b1 == 1 {
				fb[b1] = R{"partition": R{"fetch_offset": 1, "last_fetched_epoch": 0, "delayed": false}, "pending_response": false}
			} else {
				fb[b1] = R{"partition": nNil, "pending_response": false}
			}
		}
		fet[b] = fb
		if isr[b] {
			bml[b] = Q{deep(rec)}
		} else {
			bml[b] = Q{}
		}
		if b == 1 {
			ps[b] = "Leader"
			pl[b] = 1
		} else {
			ps[b] = "Follower"
			pl[b] = nNil
		}
		mi := all
		if isr[b] {
			mi = isr
		}
		epoch := 1
		if !eq(isr, all) && isr[b] {
			epoch = 2
		}
		pm[b] = R{"isr": deep(mi), "maximal_isr": deep(mi), "leader": 1, "leader_epoch": 1, "partition_epoch": epoch}
		pd[b] = R{"log": Q{}, "hwm": 1, "leo": 1}
		rb := F{}
		for _, b1 := range nv.brokers {
			rb[b1] = R{"leo": nNil, "broker_epoch": 0}
		}
		rs[b] = rb
		pap[b] = R{"epoch": 0, "request": nNil}
	}
	s["con_broker_reg"] = reg
	s["con_metadata_log"] = Q{rec}
	s["con_partition_metadata"] = R{"isr": deep(isr), "leader": 1, "leader_epoch": 1, "partition_epoch": pe}
	s["broker_state"], s["broker_fetchers"], s["broker_metadata_log"] = bs, fet, bml
	s["partition_status"], s["partition_metadata"], s["partition_data"] = ps, pm, pd
	s["partition_leso"], s["partition_replica_state"], s["partition_pending_ap"] = pl, rs, pap
	s["aux_broker_epoch"] = n
	s["aux_ctrs"] = R{"incarn_ctr": n + 1, "clean_shutdown_ctr": 0, "unclean_shutdown_ctr": 0, "fence_broker_ctr": 0, "alter_part_ctr": 0}
	s["inv_sent"], s["inv_pos_acked"], s["inv_neg_acked"] = VS{}, VS{}, VS{}
	s["inv_true_hwm"] = 1
	s["inv_consumed"] = Q{}
	s["messages"] = Bag{}
	return s
}

// --- controller functions ---

func (nv *naive) applyPartitionChange(t nState, leader any, isr S, le, pe int) {
	t["con_partition_metadata"] = R{"isr": deep(isr), "leader": leader, "leader_epoch": le, "partition_epoch": pe}
	t["con_metadata_log"] = append(t["con_metadata_log"].(Q), R{"type": "PartitionChangeRecord", "leader": leader,
		"isr": deep(isr), "leader_epoch": le, "partition_epoch": pe})
}

// maybeUpdatePartitionMetadata returns the successors of MaybeUpdatePartitionMetadata
// applied to t (reading s).
func (nv *naive) maybeUpdatePartitionMetadata(s, t nState, newIsr, newUnf S) []nState {
	md := s.r("con_partition_metadata")
	hasCand := false
	for b := range newIsr {
		if newIsr[b] && newUnf[b] {
			hasCand = true
		}
	}
	leader := md["leader"]
	noLC := (leader == nNoLeader && !hasCand)
	if l, ok := leader.(int); ok && newIsr[l] && newUnf[l] {
		noLC = true
	}
	le, pe := md["leader_epoch"].(int), md["partition_epoch"].(int)
	switch {
	case noLC && eq(newIsr, md["isr"]):
		return []nState{t}
	case noLC:
		nv.applyPartitionChange(t, leader, newIsr, le, pe+1)
		return []nState{t}
	case hasCand:
		var out []nState
		for _, c := range nv.brokers {
			if newIsr[c] && newUnf[c] {
				u := t.clone()
				nv.applyPartitionChange(u, c, newIsr, le+1, pe+1)
				out = append(out, u)
			}
		}
		return out
	default:
		nv.applyPartitionChange(t, nNoLeader, newIsr, le+1, pe+1)
		return []nState{t}
	}
}

func (nv *naive) handleFenced(s, t nState, b int) []nState {
	isr := deep(s.r("con_partition_metadata")["isr"]).(S)
	if card(isr) != 1 {
		delete(isr, b)
	}
	unf := deep(s["con_unfenced"]).(S)
	delete(unf, b)
	t["con_unfenced"] = unf
	return nv.maybeUpdatePartitionMetadata(s, t, isr, unf)
}

func (nv *naive) handleUnfenced(s, t nState, b int) []nState {
	isr := s.r("con_partition_metadata")["isr"].(S)
	unf := deep(s["con_unfenced"]).(S)
	unf[b] = true
	t["con_unfenced"] = unf
	if s.r("con_partition_metadata")["leader"] == nNoLeader {
		return nv.maybeUpdatePartitionMetadata(s, t, isr, unf)
	}
	return []nState{t}
}

// --- partition functions ---

func (nv *naive) isCommitted(b int, maximal S, rs F, offset int) bool {
	for b1, in := range maximal {
		if !in || b1 == b {
			continue
		}
		leo := rs[b1].(R)["leo"]
		if leo == nNil || leo.(int) <= offset {
			return false
		}
	}
	return true
}

func (nv *naive) getCommitOffset(s nState, b int, maximal S, leo int, rs F) int {
	if s.leo(b) == 1 {
		return 0
	}
	best := 0
	for off := 1; off <= leo-1; off++ {
		if nv.isCommitted(b, maximal, rs, off) && off > best {
			best = off
		}
	}
	return best
}

func (nv *naive) sendAcksFor(s, t nState, b, lower, higher int, pos bool) {
	vals := VS{}
	for v := range s["inv_sent"].(VS) {
		if s["inv_pos_acked"].(VS)[v] || s["inv_neg_acked"].(VS)[v] {
			continue
		}
		for off := lower; off <= higher; off++ {
			if s.log(b)[off-1].(R)["value"] == v {
				vals[v] = true
				break
			}
		}
	}
	name := "inv_neg_acked"
	if pos {
		name = "inv_pos_acked"
	}
	u := deep(s[name]).(VS)
	for v := range vals {
		u[v] = true
	}
	t[name] = u
}

func (nv *naive) updateHwmInvariantVars(s, t nState, b, oldHwm, newHwm int, pos bool) {
	if pos {
		nv.sendAcksFor(s, t, b, oldHwm, newHwm-1, true)
	} else {
		nv.sendAcksFor(s, t, b, oldHwm, s.leo(b)-1, false)
	}
	th := s["inv_true_hwm"].(int)
	if newHwm > th {
		t["inv_true_hwm"] = newHwm
		c := deep(s["inv_consumed"]).(Q)
		for off := th; off <= newHwm-1; off++ {
			c = append(c, deep(s.log(b)[off-1]))
		}
		t["inv_consumed"] = c
	}
}

func (nv *naive) maybeAdvanceHwm(s, t nState, b, oldHwm, newHwm int, pos bool) {
	if newHwm > oldHwm {
		d := deep(s.data(b)).(R)
		d["hwm"] = newHwm
		t.f("partition_data")[b] = d
		nv.updateHwmInvariantVars(s, t, b, oldHwm, newHwm, pos)
	}
}

func (nv *naive) maybeUpdateHwmOnPartitionChange(s, t nState, b int, part R) {
	maximal := part["maximal_isr"].(S)
	newHwm := nv.getCommitOffset(s, b, maximal, s.leo(b), s.f("partition_replica_state")[b].(F)) + 1
	nv.maybeAdvanceHwm(s, t, b, s.hwmOf(b), newHwm, card(maximal) >= nv.c.MinISR)
}

func (nv *naive) maybeFailPendingWrites(s, t nState, b int, part R) {
	if s.hwmOf(b) < s.leo(b) && (card(part["isr"].(S)) < nv.c.MinISR || part["leader"] != any(b)) {
		nv.sendAcksFor(s, t, b, s.hwmOf(b), s.leo(b)-1, false)
	}
}

func (nv *naive) blankReplicaState() F {
	x := F{}
	for _, b := range nv.brokers {
		x[b] = R{"leo": nNil, "broker_epoch": 0}
	}
	return x
}

func (nv *naive) resetReplicaState(t nState, b int) {
	t.f("partition_replica_state")[b] = nv.blankReplicaState()
}
func (nv *naive) resetPendingAP(t nState, b int) {
	t.f("partition_pending_ap")[b] = R{"epoch": 0, "request": nNil}
}

func (nv *naive) removePartitionFromFetchers(s, t nState, b int) {
	x := F{}
	for _, p := range nv.brokers {
		x[p] = R{"partition": nNil, "pending_response": s.fetcher(b, p)["pending_response"]}
	}
	t.f("broker_fetchers")[b] = x
}

func lastEpochOf(log Q) int {
	if len(log) == 0 {
		return 0
	}
	return log[len(log)-1].(R)["epoch"].(int)
}

// lastOffsetForEpoch follows LastOffsetForEpoch literally.
func (nv *naive) lastOffsetForEpoch(s nState, b, req int, isLeader bool) (int, any) {
	log := s.log(b)
	le := s.pmd(b)["leader_epoch"].(int)
	if len(log) == 0 || lastEpochOf(log) == req || (isLeader && le == req) {
		return req, s.leo(b)
	}
	ep := func(o int) int { return log[o-1].(R)["epoch"].(int) }
	var higher any = nNil
	exists := false
	for o := 1; o <= len(log); o++ {
		if ep(o) > req {
			exists = true
		}
	}
	if exists {
		for o := 1; o <= len(log); o++ {
			ok := ep(o) > req
			for o2 := 1; o2 <= len(log); o2++ {
				if o2 < o && ep(o2) > req && ep(o2) < ep(o) {
					ok = false
				}
			}
			if ok {
				higher = o
				break
			}
		}
	} else if isLeader && le > req {
		higher = s.leo(b)
	}
	floor := -1
	for o := 1; o <= len(log); o++ {
		if ep(o) <= req {
			ok := true
			for o2 := 1; o2 <= len(log); o2++ {
				if ep(o2) <= req && ep(o2) > ep(o) {
					ok = false
				}
			}
			if ok {
				floor = ep(o)
				break
			}
		}
	}
	if floor >= 0 {
		return floor, higher
	}
	return req, higher
}

// --- actions ---

func (nv *naive) next(s nState) []nState {
	var out []nState
	out = append(out, nv.brokerStart(s)...)
	out = append(out, nv.receiveBrokerRegResponse(s)...)
	out = append(out, nv.receiveMetadataUpdate(s)...)
	out = append(out, nv.sendAlterPartitionRequest(s)...)
	out = append(out, nv.receiveAlterPartitionResponse(s)...)
	out = append(out, nv.sendFetchRequest(s)...)
	out = append(out, nv.receiveFetchRequest(s)...)
	out = append(out, nv.receiveFetchResponse(s)...)
	out = append(out, nv.writeRecordToLeader(s)...)
	out = append(out, nv.shutdown(s, false)...)
	out = append(out, nv.shutdown(s, true)...)
	out = append(out, nv.receiveBrokerRegRequest(s)...)
	out = append(out, nv.receiveAlterPartitionRequest(s)...)
	out = append(out, nv.fenceBroker(s)...)
	out = append(out, nv.unfenceBroker(s)...)
	return out
}

func (nv *naive) brokerStart(s nState) []nState {
	var out []nState
	for _, b := range nv.brokers {
		st := s.at("broker_state", b)["status"]
		if st != "OFFLINE_CLEAN" && st != "OFFLINE_DIRTY" {
			continue
		}
		t := s.clone()
		inc := s.ctr("incarn_ctr")
		t.f("broker_state")[b] = R{"status": "STARTING", "broker_epoch": 0, "incarnation_id": inc, "registered": false}
		t.f("partition_status")[b] = nNil
		nv.send(t, R{"type": "RegisterBrokerRequest", "broker_id": b, "incarnation_id": inc, "dest": nController, "source": b})
		t.r("aux_ctrs")["incarn_ctr"] = inc + 1
		out = append(out, t)
	}
	return out
}

func (nv *naive) receiveBrokerRegRequest(s nState) []nState {
	var out []nState
	for _, k := range nv.msgs(s, "RegisterBrokerRequest") {
		m := s["messages"].(Bag)[k].msg.(R)
		b := m["source"].(int)
		reg := s.at("con_broker_reg", b)
		if reg["status"] != "FENCED" && reg["incarnation_id"] != m["incarnation_id"] {
			continue
		}
		t := s.clone()
		be := s["aux_broker_epoch"].(int) + 1
		t.f("con_broker_reg")[b] = R{"status": "UNFENCED", "broker_epoch": be, "incarnation_id": m["incarnation_id"]}
		nv.discard(t, k)
		nv.send(t, R{"type": "RegisterBrokerResponse", "broker_epoch": be, "metadata_offset": len(s["con_metadata_log"].(Q)),
			"dest": b, "source": nController})
		t["aux_broker_epoch"] = be
		out = append(out, nv.handleUnfenced(s, t, b)...)
	}
	return out
}

func (nv *naive) receiveBrokerRegResponse(s nState) []nState {
	var out []nState
	for _, k := range nv.msgs(s, "RegisterBrokerResponse") {
		m := s["messages"].(Bag)[k].msg.(R)
		b := m["dest"].(int)
		if s.at("broker_state", b)["registered"] == true {
			continue
		}
		t := s.clone()
		t.f("broker_state")[b] = R{"status": "RUNNING", "broker_epoch": m["broker_epoch"],
			"incarnation_id": s.at("broker_state", b)["incarnation_id"], "registered": true}
		mo := m["metadata_offset"].(int)
		log := Q{}
		if mo > 1 {
			log = deep(s["con_metadata_log"].(Q)[:mo-1]).(Q)
		}
		t.f("broker_metadata_log")[b] = log
		t.f("partition_metadata")[b] = R{"isr": S{}, "maximal_isr": S{}, "leader": nNoLeader, "leader_epoch": 0, "partition_epoch": 0}
		nv.discard(t, k)
		out = append(out, t)
	}
	return out
}

func (nv *naive) unfenceBroker(s nState) []nState {
	var out []nState
	for _, b := range nv.brokers {
		if s.at("con_broker_reg", b)["status"] != "FENCED" || s.at("broker_state", b)["status"] != "RUNNING" {
			continue
		}
		t := s.clone()
		t.at("con_broker_reg", b)["status"] = "UNFENCED"
		out = append(out, nv.handleUnfenced(s, t, b)...)
	}
	return out
}

func (nv *naive) fenceBroker(s nState) []nState {
	var out []nState
	if s.ctr("fence_broker_ctr") >= nv.c.FenceBrokerLimit {
		return nil
	}
	for _, b := range nv.brokers {
		if s.at("con_broker_reg", b)["status"] != "UNFENCED" {
			continue
		}
		t := s.clone()
		t.at("con_broker_reg", b)["status"] = "FENCED"
		t.r("aux_ctrs")["fence_broker_ctr"] = s.ctr("fence_broker_ctr") + 1
		out = append(out, nv.handleFenced(s, t, b)...)
	}
	return out
}

func (nv *naive) receiveMetadataUpdate(s nState) []nState {
	var out []nState
	con := s["con_metadata_log"].(Q)
	for _, b := range nv.brokers {
		cur := len(s.f("broker_metadata_log")[b].(Q))
		curMD := s.pmd(b)
		bump := func(o int) bool { return con[o-1].(R)["leader_epoch"].(int) > curMD["leader_epoch"].(int) }
		exist := cur < len(con)
		if exist && s.pstatus(b) != "Leader" {
			exist = false
			for o := cur + 1; o <= len(con); o++ {
				if bump(o) {
					exist = true
				}
			}
		}
		st := s.at("broker_state", b)
		if !exist || st["status"] == "OFFLINE_CLEAN" || st["status"] == "OFFLINE_DIRTY" || st["registered"] != true {
			continue
		}
		o := cur + 1
		for !(s.pstatus(b) == "Leader" || bump(o)) {
			o++
		}
		rec := con[o-1].(R)
		t := s.clone()
		t.f("broker_metadata_log")[b] = append(deep(s.f("broker_metadata_log")[b]).(Q), deep(con[cur:o]).(Q)...)
		out = append(out, t)
		if rec["partition_epoch"].(int) <= curMD["partition_epoch"].(int) {
			continue
		}
		md := R{"isr": deep(rec["isr"]), "maximal_isr": deep(rec["isr"]), "leader": rec["leader"],
			"leader_epoch": rec["leader_epoch"], "partition_epoch": rec["partition_epoch"]}
		t.f("partition_metadata")[b] = md
		isNew := s.pstatus(b) != "Leader" && rec["leader"] == any(b)
		becomeLeader := func() {
			t.f("partition_status")[b] = "Leader"
			nv.maybeUpdateHwmOnPartitionChange(s, t, b, md)
			t.f("partition_leso")[b] = s.leo(b)
			if isNew {
				nv.resetReplicaState(t, b)
			}
			nv.resetPendingAP(t, b)
			nv.removePartitionFromFetchers(s, t, b)
		}
		renounce := func() {
			nv.maybeFailPendingWrites(s, t, b, md)
			nv.resetReplicaState(t, b)
			nv.resetPendingAP(t, b)
		}
		switch {
		case curMD["leader"] == any(b) && rec["leader"] == any(b):
			if curMD["leader_epoch"] == md["leader_epoch"] {
				nv.maybeUpdateHwmOnPartitionChange(s, t, b, md)
				if md["partition_epoch"].(int) >= s.at("partition_pending_ap", b)["epoch"].(int) {
					nv.resetPendingAP(t, b)
				}
			} else {
				becomeLeader()
			}
		case curMD["leader"] != any(b) && rec["leader"] == any(b):
			becomeLeader()
		case rec["leader"] != nNoLeader:
			if md["leader_epoch"] == curMD["leader_epoch"] && curMD["leader"] != any(b) && md["leader"] != any(b) {
				break
			}
			t.f("partition_status")[b] = "Follower"
			leader := md["leader"].(int)
			if md["leader_epoch"].(int) > curMD["leader_epoch"].(int) || s.fetcher(b, leader)["partition"] == nNil {
				x := F{}
				for _, p := range nv.brokers {
					var part any = nNil
					if p == leader {
						part = R{"fetch_offset": s.leo(b), "last_fetched_epoch": lastEpochOf(s.log(b)), "delayed": false}
					}
					x[p] = R{"partition": part, "pending_response": s.fetcher(b, p)["pending_response"]}
				}
				t.f("broker_fetchers")[b] = x
			}
			t.f("partition_leso")[b] = nNil
			renounce()
		default:
			t.f("partition_status")[b] = nNil
			nv.removePartitionFromFetchers(s, t, b)
			t.f("partition_leso")[b] = nNil
			renounce()
		}
	}
	return out
}

func (nv *naive) sendAlterPartitionRequest(s nState) []nState {
	var out []nState
	if s.ctr("alter_part_ctr") >= nv.c.AlterPartitionLimit {
		return nil
	}
	n := len(nv.brokers)
	for _, b := range nv.brokers {
		pending := s.at("partition_pending_ap", b)["epoch"].(int) > s.pmd(b)["partition_epoch"].(int)
		if s.at("broker_state", b)["status"] != "RUNNING" || pending || s.pstatus(b) != "Leader" {
			continue
		}
		seen := map[string]bool{}
		for mask := 0; mask < 1<<n; mask++ {
			timedOut := S{}
			for i, b1 := range nv.brokers {
				if mask&(1<<i) != 0 {
					timedOut[b1] = true
				}
			}
			if timedOut[b] {
				continue
			}
			cur := s.pmd(b)["isr"].(S)
			proposed := S{}
			for _, b1 := range nv.brokers {
				leo := s.rstate(b, b1)["leo"]
				if b1 == b || (leo != nNil && leo.(int) >= s.hwmOf(b) && leo.(int) >= s.f("partition_leso")[b].(int) && !timedOut[b1]) {
					proposed[b1] = true
				}
			}
			if eq(proposed, cur) || seen[show(proposed)] {
				continue
			}
			seen[show(proposed)] = true
			ie := F{}
			for b1 := range proposed {
				switch {
				case b1 == b:
					ie[b1] = s.at("broker_state", b)["broker_epoch"]
				case cur[b1]:
					ie[b1] = 0
				default:
					ie[b1] = s.rstate(b, b1)["broker_epoch"]
				}
			}
			req := R{"type": "AlterPartitionRequest", "isr": proposed, "isr_and_epochs": ie, "leader": b,
				"leader_epoch": s.pmd(b)["leader_epoch"], "partition_epoch": s.pmd(b)["partition_epoch"],
				"broker_epoch": s.at("broker_state", b)["broker_epoch"], "source": b, "dest": nController}
			t := s.clone()
			nv.send(t, deep(req).(R))
			mi := deep(cur).(S)
			for b1 := range proposed {
				mi[b1] = true
			}
			t.pmd(b)["maximal_isr"] = mi
			t.f("partition_pending_ap")[b] = R{"epoch": s.pmd(b)["partition_epoch"].(int) + 1, "request": req}
			t.r("aux_ctrs")["alter_part_ctr"] = s.ctr("alter_part_ctr") + 1
			out = append(out, t)
		}
	}
	return out
}

func (nv *naive) receiveAlterPartitionRequest(s nState) []nState {
	var out []nState
	for _, k := range nv.msgs(s, "AlterPartitionRequest") {
		m := s["messages"].(Bag)[k].msg.(R)
		b := m["source"].(int)
		md := s.r("con_partition_metadata")
		err := "FencedLeaderEpoch"
		if md["leader"] == any(b) && m["broker_epoch"] == s.at("con_broker_reg", b)["broker_epoch"] &&
			m["partition_epoch"] == md["partition_epoch"] && m["leader_epoch"] == md["leader_epoch"] {
			err = nNil
			for b1, e := range m["isr_and_epochs"].(F) {
				reg := s.at("con_broker_reg", b1)
				if reg["status"] != "UNFENCED" || (e != 0 && reg["broker_epoch"] != e) {
					err = "IneligibleReplica"
				}
			}
		}
		t := s.clone()
		nv.discard(t, k)
		if err == nNil {
			le, pe := md["leader_epoch"].(int), md["partition_epoch"].(int)+1
			nv.applyPartitionChange(t, m["leader"], m["isr"].(S), le, pe)
			nv.send(t, R{"type": "AlterPartitionResponse", "error": nNil, "isr": deep(m["isr"]), "leader": m["leader"],
				"leader_epoch": le, "partition_epoch": pe, "request": deep(m), "dest": b, "source": nController})
		} else {
			nv.send(t, R{"type": "AlterPartitionResponse", "error": err, "request": deep(m), "dest": b, "source": nController})
		}
		out = append(out, t)
	}
	return out
}

func (nv *naive) receiveAlterPartitionResponse(s nState) []nState {
	var out []nState
	for _, k := range nv.msgs(s, "AlterPartitionResponse") {
		m := s["messages"].(Bag)[k].msg.(R)
		b := m["dest"].(int)
		pap := s.at("partition_pending_ap", b)
		pending := pap["epoch"].(int) > s.pmd(b)["partition_epoch"].(int)
		if s.at("broker_state", b)["status"] != "RUNNING" || s.pstatus(b) != "Leader" || !pending || !eq(pap["request"], m["request"]) {
			continue
		}
		if m["error"] == nNil && m["partition_epoch"].(int) <= s.pmd(b)["partition_epoch"].(int) {
			continue
		}
		t := s.clone()
		var md R
		if m["error"] == nNil {
			md = R{"isr": deep(m["isr"]), "maximal_isr": deep(m["isr"]), "leader": m["leader"],
				"leader_epoch": m["leader_epoch"], "partition_epoch": m["partition_epoch"]}
		} else {
			md = deep(s.pmd(b)).(R)
			md["maximal_isr"] = deep(md["isr"])
		}
		t.f("partition_metadata")[b] = md
		nv.maybeUpdateHwmOnPartitionChange(s, t, b, md)
		nv.resetPendingAP(t, b)
		nv.discard(t, k)
		out = append(out, t)
	}
	return out
}

func (nv *naive) sendFetchRequest(s nState) []nState {
	var out []nState
	for _, from := range nv.brokers {
		for _, to := range nv.brokers {
			f := s.fetcher(from, to)
			if from == to || s.at("broker_state", from)["status"] != "RUNNING" || f["partition"] == nNil ||
				f["pending_response"] == true || s.pmd(from)["leader"] != any(to) {
				continue
			}
			// __SendFetchMakesProgress
			leader := to
			matching := s.pmd(from)["leader_epoch"] == s.pmd(leader)["leader_epoch"]
			if f["partition"].(R)["delayed"] == true && !matching {
				continue
			}
			if nv.c.LimitFetchesOnLeaderEpoch && !matching {
				continue
			}
			rl := s.rstate(leader, from)["leo"]
			if !(s.leo(from) < s.leo(leader) || s.hwmOf(from) < s.hwmOf(leader) || rl == nNil || (rl != nNil && rl.(int) < s.leo(from))) {
				continue
			}
			t := s.clone()
			p := f["partition"].(R)
			nv.send(t, R{"type": "FetchRequest", "broker_epoch": s.at("broker_state", from)["broker_epoch"],
				"partition": R{"leader_epoch": s.pmd(from)["leader_epoch"], "fetch_offset": p["fetch_offset"],
					"last_fetched_epoch": p["last_fetched_epoch"]}, "dest": to, "source": from})
			tf := t.fetcher(from, to)
			tf["pending_response"] = true
			tf["partition"].(R)["delayed"] = false
			out = append(out, t)
		}
	}
	return out
}

func (nv *naive) receiveFetchRequest(s nState) []nState {
	var out []nState
	for _, k := range nv.msgs(s, "FetchRequest") {
		m := s["messages"].(Bag)[k].msg.(R)
		b := m["dest"].(int)
		mp := m["partition"].(R)
		if nv.c.LimitFetchesOnLeaderEpoch && mp["leader_epoch"].(int) > s.pmd(b)["leader_epoch"].(int) {
			continue
		}
		if s.at("broker_state", b)["status"] != "RUNNING" {
			continue
		}
		t := s.clone()
		nv.discard(t, k)
		le := s.pmd(b)["leader_epoch"].(int)
		resp := func(p R) R { return R{"type": "FetchResponse", "partition": p, "dest": m["source"], "source": b} }
		if s.pstatus(b) != "Leader" || le != mp["leader_epoch"] {
			e := "NotLeaderOrFollower"
			if le < mp["leader_epoch"].(int) {
				e = "UnknownLeaderEpoch"
			} else if le > mp["leader_epoch"].(int) {
				e = "FencedLeaderEpoch"
			}
			nv.send(t, resp(R{"error": e, "leader_epoch": le, "fetch_offset": mp["fetch_offset"], "diverging_epoch": nNil,
				"hwm": s.hwmOf(b), "records": Q{}}))
			out = append(out, t)
			continue
		}
		de, do := nv.lastOffsetForEpoch(s, b, mp["last_fetched_epoch"].(int), true)
		if de < mp["last_fetched_epoch"].(int) || do.(int) < mp["fetch_offset"].(int) {
			nv.send(t, resp(R{"error": nNil, "leader_epoch": le, "fetch_offset": mp["fetch_offset"],
				"diverging_epoch": R{"epoch": de, "offset": do}, "hwm": s.hwmOf(b), "records": Q{}}))
			out = append(out, t)
			continue
		}
		upd := deep(s.f("partition_replica_state")[b]).(F)
		upd[m["source"].(int)] = R{"leo": mp["fetch_offset"], "broker_epoch": m["broker_epoch"]}
		oldHwm := s.hwmOf(b)
		newHwm := nv.getCommitOffset(s, b, s.pmd(b)["maximal_isr"].(S), s.leo(b), upd) + 1
		nv.maybeAdvanceHwm(s, t, b, oldHwm, newHwm, true)
		t.f("partition_replica_state")[b] = upd
		recs := Q{}
		if fo := mp["fetch_offset"].(int); fo < s.leo(b) {
			recs = Q{deep(s.log(b)[fo-1])}
		}
		nv.send(t, resp(R{"type": "FetchResponse", "error": nNil, "leader_epoch": le, "fetch_offset": mp["fetch_offset"],
			"diverging_epoch": nNil, "hwm": max(newHwm, oldHwm), "records": recs}))
		out = append(out, t)
	}
	return out
}

func (nv *naive) receiveFetchResponse(s nState) []nState {
	var out []nState
	for _, k := range nv.msgs(s, "FetchResponse") {
		m := s["messages"].(Bag)[k].msg.(R)
		b, src := m["dest"].(int), m["source"].(int)
		mp := m["partition"].(R)
		f := s.fetcher(b, src)
		if s.at("broker_state", b)["status"] != "RUNNING" || f["pending_response"] != true {
			continue
		}
		t := s.clone()
		tf := t.fetcher(b, src)
		isFollower := s.pstatus(b) == "Follower" && f["partition"] != nNil
		switch {
		case !isFollower || (f["partition"] != nNil && f["partition"].(R)["fetch_offset"] != mp["fetch_offset"]):
			tf["pending_response"] = false
		case mp["error"] != nNil:
			tf["pending_response"] = false
			tf["partition"].(R)["delayed"] = true
		case mp["diverging_epoch"] != nNil:
			div := mp["diverging_epoch"].(R)
			le, lo := nv.lastOffsetForEpoch(s, b, div["epoch"].(int), false)
			var to int
			switch {
			case le != div["epoch"]:
				to = lo.(int)
			case lo.(int) < div["offset"].(int):
				to = lo.(int)
			default:
				to = div["offset"].(int)
			}
			d := R{"log": Q{}, "hwm": s.hwmOf(b), "leo": 1}
			if to > 1 {
				d = R{"log": deep(s.log(b)[:to-1]), "leo": to, "hwm": s.hwmOf(b)}
			}
			t.f("partition_data")[b] = d
			t.f("broker_fetchers")[b].(F)[src] = R{"partition": R{"fetch_offset": d["leo"], "last_fetched_epoch": lastEpochOf(d["log"].(Q)),
				"delayed": false}, "pending_response": false}
		default:
			if s.leo(b) != mp["fetch_offset"] {
				continue
			}
			recs := mp["records"].(Q)
			newLeo := len(s.log(b)) + len(recs) + 1
			lfe := f["partition"].(R)["last_fetched_epoch"]
			if len(recs) > 0 {
				lfe = recs[len(recs)-1].(R)["epoch"]
			}
			hwm := s.hwmOf(b)
			if mp["hwm"].(int) <= newLeo {
				hwm = mp["hwm"].(int)
			}
			t.f("partition_data")[b] = R{"log": append(deep(s.log(b)).(Q), deep(recs).(Q)...), "leo": newLeo, "hwm": hwm}
			t.f("broker_fetchers")[b].(F)[src] = R{"partition": R{"fetch_offset": newLeo, "last_fetched_epoch": lfe,
				"delayed": false}, "pending_response": false}
		}
		nv.discard(t, k)
		out = append(out, t)
	}
	return out
}

func (nv *naive) writeRecordToLeader(s nState) []nState {
	var out []nState
	for _, b := range nv.brokers {
		for _, v := range nv.values {
			if s["inv_sent"].(VS)[v] || s.at("broker_state", b)["status"] != "RUNNING" || s.pstatus(b) != "Leader" ||
				card(s.pmd(b)["maximal_isr"].(S)) < nv.c.MinISR {
				continue
			}
			t := s.clone()
			newLeo := s.leo(b) + 1
			rec := R{"epoch": s.pmd(b)["leader_epoch"], "offset": s.leo(b), "value": v}
			oldHwm := s.hwmOf(b)
			newHwm := nv.getCommitOffset(s, b, s.pmd(b)["maximal_isr"].(S), newLeo, s.f("partition_replica_state")[b].(F)) + 1
			t.f("partition_data")[b] = R{"leo": newLeo, "hwm": max(newHwm, oldHwm), "log": append(deep(s.log(b)).(Q), rec)}
			if newHwm > oldHwm {
				nv.updateHwmInvariantVars(s, t, b, oldHwm, newHwm, true)
			}
			sent := deep(s["inv_sent"]).(VS)
			sent[v] = true
			t["inv_sent"] = sent
			out = append(out, t)
		}
	}
	return out
}

func (nv *naive) shutdown(s nState, clean bool) []nState {
	var out []nState
	ctr, limit, status := "unclean_shutdown_ctr", nv.c.UncleanShutdownLimit, "OFFLINE_DIRTY"
	if clean {
		ctr, limit, status = "clean_shutdown_ctr", nv.c.CleanShutdownLimit, "OFFLINE_CLEAN"
	}
	if s.ctr(ctr) >= limit {
		return nil
	}
	for _, b := range nv.brokers {
		st := s.at("broker_state", b)["status"]
		if st == "OFFLINE_CLEAN" || st == "OFFLINE_DIRTY" {
			continue
		}
		if !clean {
			md := s.r("con_partition_metadata")
			if nv.c.AvoidLastReplicaStanding && !(md["leader"] != any(b) || card(md["isr"].(S)) > 1) {
				continue
			}
			if s.ctr("fence_broker_ctr") != 0 {
				continue
			}
		}
		t := s.clone()
		t.f("broker_state")[b] = R{"status": status, "broker_epoch": 0, "incarnation_id": 0, "registered": false}
		// DropFetchSessions
		for _, e := range t["messages"].(Bag) {
			m := e.msg.(R)
			if (m["type"] == "FetchRequest" || m["type"] == "FetchResponse") && (m["dest"] == any(b) || m["source"] == any(b)) {
				e.count = 0
			}
		}
		for _, b1 := range nv.brokers {
			if b1 == b {
				x := F{}
				for _, p := range nv.brokers {
					x[p] = R{"partition": nNil, "pending_response": false}
				}
				t.f("broker_fetchers")[b] = x
				continue
			}
			f := s.fetcher(b1, b)
			if f["pending_response"] == true {
				tf := t.fetcher(b1, b)
				tf["pending_response"] = false
				if f["partition"] != nNil {
					tf["partition"].(R)["delayed"] = true
				}
			}
		}
		t.f("partition_status")[b] = nNil
		if !clean {
			t.f("partition_data")[b] = R{"log": Q{}, "hwm": 1, "leo": 1}
			t.f("partition_leso")[b] = nNil
		}
		nv.resetReplicaState(t, b)
		nv.resetPendingAP(t, b)
		t.r("aux_ctrs")[ctr] = s.ctr(ctr) + 1
		if s.pstatus(b) == "Leader" && s.hwmOf(b) < s.leo(b) {
			nv.sendAcksFor(s, t, b, s.hwmOf(b), s.leo(b)-1, false)
		}
		t.at("con_broker_reg", b)["status"] = "FENCED"
		out = append(out, nv.handleFenced(s, t, b)...)
	}
	return out
}

// --- invariants ---

func (nv *naive) invariants(s nState) [6]bool {
	var ok [6]bool
	md := s.r("con_partition_metadata")
	nonStale := func(b int) bool {
		return s.pstatus(b) == "Leader" && s.pmd(b)["leader_epoch"] == md["leader_epoch"]
	}
	ok[0] = true
	for _, b := range nv.brokers {
		if !nonStale(b) {
			continue
		}
		pending := s.at("partition_pending_ap", b)["epoch"].(int) > s.pmd(b)["partition_epoch"].(int)
		if !pending && !eq(s.pmd(b)["maximal_isr"], s.pmd(b)["isr"]) {
			ok[0] = false
		}
		for b1, in := range md["isr"].(S) {
			if in && !s.pmd(b)["maximal_isr"].(S)[b1] {
				ok[0] = false
			}
		}
	}
	ok[1] = true
	for b, in := range md["isr"].(S) {
		if in && s.leo(b) < s["inv_true_hwm"].(int) && s.at("broker_state", b)["status"] == "RUNNING" {
			ok[1] = false
		}
	}
	ok[2] = true
	if l, isB := md["leader"].(int); isB {
		for v := range s["inv_pos_acked"].(VS) {
			found := false
			for _, r := range s.log(l) {
				if r.(R)["value"] == v {
					found = true
				}
			}
			if !found {
				ok[2] = false
			}
		}
	}
	ok[3] = true
	for off := 1; off <= len(nv.values); off++ {
		for _, b1 := range nv.brokers {
			for _, b2 := range nv.brokers {
				if s.leo(b1) > off && s.leo(b2) > off && s.hwmOf(b1) > off && s.hwmOf(b2) > off &&
					s.log(b1)[off-1].(R)["value"] != s.log(b2)[off-1].(R)["value"] {
					ok[3] = false
				}
			}
		}
	}
	ok[4] = true
	con := s["con_metadata_log"].(Q)
	for _, b := range nv.brokers {
		bl := s.f("broker_metadata_log")[b].(Q)
		for off := 1; off <= len(con); off++ {
			if len(bl) >= off && !eq(bl[off-1], con[off-1]) {
				ok[4] = false
			}
		}
	}
	ok[5] = true
	for _, b := range nv.brokers {
		if !nonStale(b) {
			continue
		}
		for i, c := range s["inv_consumed"].(Q) {
			if i >= len(s.log(b)) || !eq(s.log(b)[i], c) {
				ok[5] = false
			}
		}
	}
	return ok
}

type naiveResult struct {
	keys  map[string]bool
	depth int
	viol  [6]int // states violating each invariant
}

// explore is a breadth-first search known by the VIEW, the first state of a view kept.
func (nv *naive) explore() naiveResult {
	res := naiveResult{keys: map[string]bool{}}
	level := []nState{nv.init()}
	res.keys[level[0].key()] = true
	for len(level) > 0 {
		res.depth++
		var nextLevel []nState
		for _, s := range level {
			for i, ok := range nv.invariants(s) {
				if !ok {
					res.viol[i]++
				}
			}
			for _, t := range nv.next(s) {
				if k := t.key(); !res.keys[k] {
					res.keys[k] = true
					nextLevel = append(nextLevel, t)
				}
			}
		}
		level = nextLevel
	}
	return res
}

// toNaive converts a state of the port to the naive representation (its view).
func (nv *naive) toNaive(m *Model, s *State) nState {
	t := nState{}
	broker := func(b int8) any {
		switch b {
		case NoLeader:
			return nNoLeader
		case Controller:
			return nController
		}
		return int(b) + 1
	}
	set := func(x Set) S {
		y := S{}
		for i := range nv.brokers {
			if x.Has(i) {
				y[i+1] = true
			}
		}
		return y
	}
	opt := func(v int8) any {
		if v == Nil {
			return nNil
		}
		return int(v)
	}
	rec := func(r Record, off int) R {
		return R{"epoch": int(r.Epoch), "offset": off, "value": ValueName(int(r.Value))}
	}
	pc := func(r PartitionMD) R {
		return R{"type": "PartitionChangeRecord", "leader": broker(r.Leader), "isr": set(r.ISR),
			"leader_epoch": int(r.LeaderEpoch), "partition_epoch": int(r.PartitionEpoch)}
	}
	var msg func(x *Msg) R
	msg = func(x *Msg) R {
		switch x.Type {
		case RegisterBrokerRequest:
			return R{"type": "RegisterBrokerRequest", "broker_id": broker(x.Src), "incarnation_id": int(x.Incarnation),
				"dest": nController, "source": broker(x.Src)}
		case RegisterBrokerResponse:
			return R{"type": "RegisterBrokerResponse", "broker_epoch": int(x.BrokerEpoch), "metadata_offset": int(x.MDOffset),
				"dest": broker(x.Dst), "source": nController}
		case AlterPartitionRequest:
			ie := F{}
			for b := range set(x.ISR) {
				ie[b] = int(x.Epochs[b-1])
			}
			return R{"type": "AlterPartitionRequest", "isr": set(x.ISR), "isr_and_epochs": ie, "leader": broker(x.Src),
				"leader_epoch": int(x.LeaderEpoch), "partition_epoch": int(x.PartitionEpoch),
				"broker_epoch": int(x.BrokerEpoch), "source": broker(x.Src), "dest": nController}
		case AlterPartitionResponse:
			req := x.request()
			if x.Err == ErrNil {
				return R{"type": "AlterPartitionResponse", "error": nNil, "isr": set(x.ISR), "leader": broker(x.Dst),
					"leader_epoch": int(x.NewLeaderEpoch), "partition_epoch": int(x.NewPartitionEpoch), "request": msg(&req),
					"dest": broker(x.Dst), "source": nController}
			}
			return R{"type": "AlterPartitionResponse", "error": errNames[x.Err], "request": msg(&req),
				"dest": broker(x.Dst), "source": nController}
		case FetchRequest:
			return R{"type": "FetchRequest", "broker_epoch": int(x.BrokerEpoch), "partition": R{"leader_epoch": int(x.LeaderEpoch),
				"fetch_offset": int(x.FetchOffset), "last_fetched_epoch": int(x.LastFetchedEpoch)},
				"dest": broker(x.Dst), "source": broker(x.Src)}
		default:
			p := R{"error": errNames[x.Err], "leader_epoch": int(x.LeaderEpoch), "fetch_offset": int(x.FetchOffset),
				"diverging_epoch": nNil, "hwm": int(x.HWM), "records": Q{}}
			if x.HasDiv {
				p["diverging_epoch"] = R{"epoch": int(x.DivEpoch), "offset": int(x.DivOffset)}
			}
			if x.HasRec {
				p["records"] = Q{rec(x.Rec, int(x.FetchOffset))}
			}
			if x.Err == ErrNil && !x.HasDiv {
				p["type"] = "FetchResponse"
			}
			return R{"type": "FetchResponse", "partition": p, "dest": broker(x.Dst), "source": broker(x.Src)}
		}
	}
	var mdlog Q
	for i := 0; i < int(s.MDLen); i++ {
		mdlog = append(mdlog, pc(s.MDLog[i]))
	}
	if mdlog == nil {
		mdlog = Q{}
	}
	t["con_metadata_log"] = mdlog
	t["con_unfenced"] = set(s.Unfenced)
	t["con_partition_metadata"] = R{"isr": set(s.PartMD.ISR), "leader": broker(s.PartMD.Leader),
		"leader_epoch": int(s.PartMD.LeaderEpoch), "partition_epoch": int(s.PartMD.PartitionEpoch)}
	reg, bs, fet, bml, ps, pm, pd, pl, rs, pap := F{}, F{}, F{}, F{}, F{}, F{}, F{}, F{}, F{}, F{}
	for i := range nv.brokers {
		b := i + 1
		reg[b] = R{"status": regNames[s.Reg[i].Status], "broker_epoch": int(s.Reg[i].BrokerEpoch), "incarnation_id": int(s.Reg[i].Incarnation)}
		bs[b] = R{"status": statusNames[s.Broker[i].Status], "broker_epoch": int(s.Broker[i].BrokerEpoch),
			"incarnation_id": int(s.Broker[i].Incarnation), "registered": s.Broker[i].Registered}
		fb := F{}
		for j := range nv.brokers {
			f := s.Fetchers[i][j]
			var part any = nNil
			if f.HasPartition {
				part = R{"fetch_offset": int(f.FetchOffset), "last_fetched_epoch": int(f.LastFetchedEpoch), "delayed": f.Delayed}
			}
			fb[j+1] = R{"partition": part, "pending_response": f.Pending}
		}
		fet[b] = fb
		bml[b] = append(Q{}, mdlog[:s.BrokerMDLen[i]]...)
		ps[b] = roleNames[s.Status[i]]
		r := s.RepMD[i]
		pm[b] = R{"isr": set(r.ISR), "maximal_isr": set(r.MaximalISR), "leader": broker(r.Leader),
			"leader_epoch": int(r.LeaderEpoch), "partition_epoch": int(r.PartitionEpoch)}
		log := Q{}
		for o := 0; o < int(s.Data[i].Len); o++ {
			log = append(log, rec(s.Data[i].Log[o], o+1))
		}
		pd[b] = R{"log": log, "hwm": int(s.Data[i].HWM), "leo": s.Data[i].Leo()}
		pl[b] = opt(s.Leso[i])
		rb := F{}
		for j := range nv.brokers {
			rb[j+1] = R{"leo": opt(s.Peers[i][j].Leo), "broker_epoch": int(s.Peers[i][j].BrokerEpoch)}
		}
		rs[b] = rb
		var req any = nNil
		if s.Pending[i].Has {
			req = msg(&s.Pending[i].Req)
		}
		pap[b] = R{"epoch": int(s.Pending[i].Epoch), "request": req}
	}
	t["con_broker_reg"], t["broker_state"], t["broker_fetchers"], t["broker_metadata_log"] = reg, bs, fet, bml
	t["partition_status"], t["partition_metadata"], t["partition_data"] = ps, pm, pd
	t["partition_leso"], t["partition_replica_state"], t["partition_pending_ap"] = pl, rs, pap
	bag := Bag{}
	for i := 0; i < int(s.NMsgs); i++ {
		x := msg(&s.Msgs[i])
		bag[show(x)] = &bagEntry{msg: x, count: int(s.Counts[i])}
	}
	t["messages"] = bag
	vals := func(x uint8) VS {
		y := VS{}
		for v := 0; v < nv.c.Values; v++ {
			if x&(1<<uint(v)) != 0 {
				y[ValueName(v)] = true
			}
		}
		return y
	}
	t["inv_sent"], t["inv_pos_acked"], t["inv_neg_acked"] = vals(s.Sent), vals(s.PosAcked), vals(s.NegAcked)
	t["inv_true_hwm"] = int(s.TrueHWM)
	cons := Q{}
	for i := 0; i < int(s.ConsumedLen); i++ {
		cons = append(cons, rec(s.Consumed[i], i+1))
	}
	t["inv_consumed"] = cons
	return t
}

// naiveConfigs are the configurations of the naive cross-check (about 1 ms per state):
// together they take every action of the module (the test checks it).
var naiveConfigs = []Config{
	with(cfgRF2, func(c *Config) { c.CleanShutdownLimit = 0 }),                         // 6,204 states
	with(cfgRF2, func(c *Config) { c.AlterPartitionLimit, c.FenceBrokerLimit = 0, 0 }), // 828
	smallConfigs[2], // unclean shutdown, no AvoidLastReplicaStanding: 845
	with(cfgRF2, func(c *Config) {
		c.CleanShutdownLimit, c.AlterPartitionLimit, c.LimitFetchesOnLeaderEpoch = 0, 0, false
	}), // 1,551
	smallConfigs[4], // RF 3: 642
}

// TestNaiveCrossCheck compares the port with the naive enumeration: the same set of
// reachable views (each port state converted to the naive form), the same depth, and the
// same number of states violating each of the six invariants.
// Reference: Vanlightly/kafka-tlaplus kafka_replication_v3_5_simple.tla at a30c45e.
func TestNaiveCrossCheck(t *testing.T) {
	var taken [numKinds]bool
	var succ []State
	var acts []uint64
	for ci, c := range naiveConfigs {
		m := mustNew(t, c)
		nv := newNaive(c)
		want := nv.explore()
		got := explorePort(m, false)
		if len(got.states) != len(want.keys) || got.depth != want.depth {
			t.Errorf("config %d: port found %d states, depth %d; naive %d, %d", ci, len(got.states), got.depth, len(want.keys), want.depth)
		}
		var viol [6]int
		for i := range got.states {
			s := &got.states[i]
			succ, acts = m.Next(s, succ[:0], acts[:0])
			for _, a := range acts {
				taken[m.ActionKind(a)] = true
			}
			if k := nv.toNaive(m, s).key(); !want.keys[k] {
				t.Fatalf("config %d: port state %d is not reachable in the naive search:\n%s", ci, i, k)
			}
			for j, ok := range [6]bool{m.ValidLeaderMaximalISR(s), m.ControllerIsrHasUpToTrueHWM(s), m.LeaderHasCompleteCommittedLog(s),
				m.NoPartitionLogDivergence(s), m.NoMetadataLogDivergence(s), m.ConsumedRecordsMatchLeaderLog(s)} {
				if !ok {
					viol[j]++
				}
			}
		}
		if viol != want.viol {
			t.Errorf("config %d: states violating each invariant: port %v, naive %v", ci, viol, want.viol)
		}
	}
	for k, ok := range taken {
		if !ok {
			t.Errorf("action %s is never taken in the cross-check", kindNames[k])
		}
	}
}

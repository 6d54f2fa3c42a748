package kafka

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Views: tables of a state for the renderers (checker.Viewer), computed only when a trace
// is built. Three views:
//
//   - logs: the log grid, one row per offset, one column per replica, each record as
//     e<epoch>:r<id> (as fetch responses print them); the high watermark and the log end
//     offset tag the cell at that offset (the row below the last record for the log end),
//     and a record that differs from the current leader's at the same offset is
//     highlighted;
//   - epochCaches: each replica's leader-epoch cache, entries e<epoch>@<startOffset>;
//   - controlPlane (controllers >= 2): the metadata store's partition state and each
//     controller incarnation's cached view of it, with cached values that differ from the
//     store highlighted; with KRaft, the active controller's partition state, the old
//     active controller's until it renounces, and each broker's metadata image (kraftView).

// ViewNames names the views AppendViews may give, in their order.
var ViewNames = []string{"logs", "epochCaches", "controlPlane"}

// view is one table as checker.Viewer describes it.
type view struct {
	Name    string     `json:"name"`
	Title   string     `json:"title"`
	Columns []string   `json:"columns"`
	Rows    [][]cell   `json:"rows"`
	Notes   []string   `json:"notes,omitempty"`
	Marks   []viewMark `json:"marks,omitempty"`
}

type viewMark struct {
	Name  string `json:"name"`
	Style string `json:"style"`
	Doc   string `json:"doc"`
}

// cell is a table cell: a plain string when it has no marks.
type cell struct {
	Text  string
	Marks []string
}

func (c cell) MarshalJSON() ([]byte, error) {
	if len(c.Marks) == 0 {
		return json.Marshal(c.Text)
	}
	return json.Marshal(struct {
		Text  string   `json:"text"`
		Marks []string `json:"marks"`
	}{c.Text, c.Marks})
}

func plain(texts ...string) []cell {
	out := make([]cell, len(texts))
	for i, t := range texts {
		out[i] = cell{Text: t}
	}
	return out
}

// Marks of the views.
const (
	markDiff  = "diff"
	markHW    = "hw"
	markLEO   = "leo"
	markStale = "stale"
)

// AppendViews appends the views of s as a JSON array (checker.Viewer).
func (m *Model) AppendViews(s *State, buf []byte) []byte {
	vs := []view{m.logView(s), m.cacheView(s)}
	if m.cp() {
		vs = append(vs, m.controlPlaneView(s))
	}
	if m.kraft() {
		vs = append(vs, m.kraftView(s))
	}
	out, err := json.Marshal(vs)
	if err != nil {
		panic("model: views: " + err.Error()) // strings and slices always marshal
	}
	return append(buf, out...)
}

// currentLeader is the replica the log grid compares against: the live replica in the
// leader role with the highest leader epoch (the lowest broker on a tie), or -1. Two
// replicas may both think they lead (a stale leader not yet told); the newer epoch wins.
func (m *Model) currentLeader(s *State) int {
	best := -1
	for b := 0; b < m.nb(); b++ {
		r := &s.B[b]
		if r.Alive && r.Role == RoleLeader && (best < 0 || r.Epoch > s.B[best].Epoch) {
			best = b
		}
	}
	return best
}

// brokerName is "b1".."bN".
func brokerName(b int) string { return "b" + strconv.Itoa(b+1) }

// replicaColumn names replica b's column: "b3 (leader e2)", "b2 (down)", "b1".
func (m *Model) replicaColumn(s *State, b int) string {
	r := &s.B[b]
	switch {
	case !r.Alive:
		return brokerName(b) + " (down)"
	case r.Role == RoleLeader:
		return brokerName(b) + " (leader e" + strconv.Itoa(int(r.Epoch)) + ")"
	}
	return brokerName(b)
}

// logView is the log grid: rows are offsets 0..max LEO (the last row holds only log-end
// tags), columns the replicas.
func (m *Model) logView(s *State) view {
	v := view{Name: "logs", Title: "Logs", Columns: []string{"offset"}, Marks: []viewMark{
		{markDiff, "highlight", "differs from the current leader's record at this offset"},
		{markHW, "tag", "high watermark: the first offset not known to be committed"},
		{markLEO, "tag", "log end offset: the next offset to write"},
	}}
	maxLEO := 0
	for b := 0; b < m.nb(); b++ {
		v.Columns = append(v.Columns, m.replicaColumn(s, b))
		maxLEO = max(maxLEO, int(s.B[b].LEO))
	}
	lead := m.currentLeader(s)
	for off := 0; off <= maxLEO; off++ {
		row := []cell{{Text: strconv.Itoa(off)}}
		for b := 0; b < m.nb(); b++ {
			r := &s.B[b]
			var c cell
			if off < int(r.LEO) {
				c.Text = string(fmtEntry(nil, r.Log[off]))
				if lead >= 0 && b != lead {
					l := &s.B[lead]
					if off < int(l.LEO) && l.Log[off] != r.Log[off] {
						c.Marks = append(c.Marks, markDiff)
					}
				}
			}
			if off == int(r.HW) {
				c.Marks = append(c.Marks, markHW)
			}
			if off == int(r.LEO) {
				c.Marks = append(c.Marks, markLEO)
			}
			row = append(row, c)
		}
		v.Rows = append(v.Rows, row)
	}
	var hw, leo []string
	for b := 0; b < m.nb(); b++ {
		hw = append(hw, brokerName(b)+"="+strconv.Itoa(int(s.B[b].HW)))
		leo = append(leo, brokerName(b)+"="+strconv.Itoa(int(s.B[b].LEO)))
	}
	v.Notes = []string{"hw: " + strings.Join(hw, " "), "leo: " + strings.Join(leo, " ")}
	if lead >= 0 {
		v.Notes = append(v.Notes, "compared with the leader "+brokerName(lead)+" (epoch "+strconv.Itoa(int(s.B[lead].Epoch))+")")
	} else {
		v.Notes = append(v.Notes, "no replica leads: nothing compared")
	}
	return v
}

// fmtEpochEntries is cache entries as "e1@0 e2@3", or "-" for none.
func fmtEpochEntries(es []EpochEntry) string {
	if len(es) == 0 {
		return "-"
	}
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = "e" + strconv.Itoa(int(e.Epoch)) + "@" + strconv.Itoa(int(e.Start))
	}
	return strings.Join(parts, " ")
}

// cacheView is the leader-epoch caches, one row per replica; a column for the checkpoint
// file's stale entries (a truncation not yet flushed) only when a replica has some.
func (m *Model) cacheView(s *State) view {
	v := view{Name: "epochCaches", Title: "Leader-epoch caches", Columns: []string{"replica", "entries"}}
	stale := false
	for b := 0; b < m.nb(); b++ {
		stale = stale || s.B[b].NStale > 0
	}
	if stale {
		v.Columns = append(v.Columns, "checkpoint file also holds")
	}
	for b := 0; b < m.nb(); b++ {
		r := &s.B[b]
		row := plain(m.replicaColumn(s, b), fmtEpochEntries(r.Cache[:r.NCache]))
		if stale {
			row = append(row, cell{Text: fmtEpochEntries(r.Stale[:r.NStale])})
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// controlPlaneView is the metadata store's partition state and each controller
// incarnation's cache of it. An incarnation is active (the controller), zombie (active in
// its own view, its session lost) or resigned; the cache of one still active in its own
// view is marked stale where it differs from the store (a resigned one's is not used).
func (m *Model) controlPlaneView(s *State) view {
	p := &s.CP
	v := view{Name: "controlPlane", Title: "Control plane",
		Columns: []string{"", "status", "leader", "leader epoch", "isr", "zkVersion", "controller epoch", "live brokers", "queue"},
		Marks: []viewMark{
			{markStale, "highlight", "the controller's cached value differs from the store's"},
		}}
	st := &s.Ctrl
	v.Rows = append(v.Rows, plain("store", "/controller: c"+strconv.Itoa(int(p.N)),
		strconv.Itoa(int(st.Leader)), strconv.Itoa(int(st.Epoch)), string(fmtSet(nil, st.ISR)),
		strconv.Itoa(int(st.PEpoch)), strconv.Itoa(int(p.Writer)), string(fmtSet(nil, st.Live)), ""))
	val := func(text string, differs bool) cell {
		if differs {
			return cell{Text: text, Marks: []string{markStale}}
		}
		return cell{Text: text}
	}
	for i := 0; i < int(p.N); i++ {
		c := &p.C[i]
		stale := func(text string, differs bool) cell { return val(text, differs && c.Active) }
		status := "resigned"
		switch {
		case c.Active && c.Session:
			status = "active"
		case c.Active:
			status = "zombie (session lost)"
		}
		if c.Offline {
			status += ", partition offline"
		}
		var q []string
		for k := 0; k < int(c.NQ); k++ {
			e := evNames[c.Q[k]>>4]
			if c.Q[k]>>4 != EvIsrChange {
				e += "(" + brokerName(int(c.Q[k]&15)) + ")"
			}
			q = append(q, e)
		}
		row := []cell{
			{Text: "c" + strconv.Itoa(i+1) + " on " + brokerName(int(c.Broker))},
			{Text: status},
			stale(strconv.Itoa(int(c.Leader)), c.Leader != st.Leader),
			stale(strconv.Itoa(int(c.LEpoch)), c.LEpoch != st.Epoch),
			stale(string(fmtSet(nil, c.ISR)), c.ISR != st.ISR),
			stale(strconv.Itoa(int(c.ZkVer)), c.ZkVer != st.PEpoch),
			{Text: strconv.Itoa(int(c.Epoch))},
			stale(string(fmtSet(nil, c.Live)), c.Live != st.Live),
			{Text: strings.Join(q, " ")},
		}
		v.Rows = append(v.Rows, row)
	}
	v.Notes = []string{"/controller_epoch = " + strconv.Itoa(int(p.CEpoch)) + " (version " + strconv.Itoa(int(p.CVersion)) +
		"); the store's controller epoch is that of the controller that last wrote the partition state"}
	var known []string
	for b := 0; b < m.nb(); b++ {
		k := &p.BK[b]
		ctrl := "none"
		if k.Ctrl != 0 {
			ctrl = "c" + strconv.Itoa(int(k.Ctrl)) + " (epoch " + strconv.Itoa(int(k.CtrlEpoch)) + ")"
		}
		known = append(known, brokerName(b)+": "+ctrl+", highest epoch seen "+strconv.Itoa(int(k.MaxEpoch)))
	}
	v.Notes = append(v.Notes, "brokers know the controller as "+strings.Join(known, "; "))
	return v
}

// kraftView is the KRaft plane's controlPlane view: the active controller's partition state
// (with ELR), the old active controller's until it renounces, and the partition state in each
// broker's metadata image, with the records it has not replayed; values that differ from the
// active controller's are marked stale.
func (m *Model) kraftView(s *State) view {
	k := &s.KR
	c := &s.Ctrl
	v := view{Name: "controlPlane", Title: "KRaft control plane",
		Columns: []string{"", "status", "leader", "leader epoch", "isr", "partition epoch", "elr", "unread records"},
		Marks: []viewMark{
			{markStale, "highlight", "differs from the active controller's committed state"},
		}}
	val := func(text string, differs bool) cell {
		if differs {
			return cell{Text: text, Marks: []string{markStale}}
		}
		return cell{Text: text}
	}
	elr := ""
	if m.elr() {
		elr = string(fmtSet(nil, k.ELR)) + " (last known " + string(fmtSet(nil, k.LastELR)) + ")"
	}
	v.Rows = append(v.Rows, plain("controller", "active, quorum epoch "+strconv.Itoa(int(k.Epoch)),
		strconv.Itoa(int(c.Leader)), strconv.Itoa(int(c.Epoch)), string(fmtSet(nil, c.ISR)),
		strconv.Itoa(int(c.PEpoch)), elr, ""))
	if k.Zombie {
		o := &k.Old
		v.Rows = append(v.Rows, []cell{{Text: "old controller"},
			{Text: "active in its own view, quorum epoch " + strconv.Itoa(int(k.Epoch)-1)},
			val(strconv.Itoa(int(o.Leader)), o.Leader != c.Leader), val(strconv.Itoa(int(o.Epoch)), o.Epoch != c.Epoch),
			val(string(fmtSet(nil, o.ISR)), o.ISR != c.ISR), val(strconv.Itoa(int(o.PEpoch)), o.PEpoch != c.PEpoch),
			{}, {}})
	}
	for b := 0; b < m.nb(); b++ {
		img := k.image(b)
		status := "up"
		switch r := &s.B[b]; {
		case !r.Alive:
			status = "down"
		case r.Register:
			status = "starting"
		case has(k.Fenced, b):
			status = "fenced"
		case has(k.Down, b):
			status = "in controlled shutdown"
		}
		status += ", controller cached: epoch " + strconv.Itoa(int(k.Cached[b]))
		v.Rows = append(v.Rows, []cell{{Text: brokerName(b) + " image"}, {Text: status},
			val(strconv.Itoa(int(img.Leader)), img.Leader != c.Leader), val(strconv.Itoa(int(img.Epoch)), img.Epoch != c.Epoch),
			val(string(fmtSet(nil, img.ISR)), img.ISR != c.ISR), val(strconv.Itoa(int(img.PEpoch)), img.PEpoch != c.PEpoch),
			{}, {Text: strconv.Itoa(int(k.Lag[b]))}})
	}
	return v
}

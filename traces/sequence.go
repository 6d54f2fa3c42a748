package traces

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"kmc/checker"
)

// Event is one entry of a step's events (checker.Eventer): a message sent, received,
// dropped or superseded between two actors, a local step of one actor, or an actor's
// state from then on.
type Event struct {
	Type  string `json:"type"` // "send", "recv", "drop", "supersede", "local" or "state"
	Actor string `json:"actor"`
	Peer  string `json:"peer"`
	Msg   string `json:"msg"`
	Label string `json:"label"`
}

// parseEvents parses one step's events; where names the step in errors.
func parseEvents(s, where string) ([]Event, error) {
	if s == "" {
		return nil, nil
	}
	var out []Event
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("%s: events: %w", where, err)
	}
	for k, e := range out {
		switch e.Type {
		case "send", "recv", "drop", "supersede":
			if e.Actor == "" || e.Peer == "" {
				return nil, fmt.Errorf("%s: event %d: %s needs actor and peer", where, k, e.Type)
			}
		case "local", "state":
			if e.Actor == "" {
				return nil, fmt.Errorf("%s: event %d: %s needs an actor", where, k, e.Type)
			}
		default:
			return nil, fmt.Errorf("%s: event %d: unknown type %q", where, k, e.Type)
		}
	}
	return out, nil
}

// Events parses the events of every state of t (none for the initial state). Errors name
// the state.
func Events(t *checker.Trace) ([][]Event, error) {
	out := make([][]Event, len(t.States))
	for i, s := range t.States {
		evs, err := parseEvents(s.Events, fmt.Sprintf("state %d", i+1))
		if err != nil {
			return nil, err
		}
		out[i] = evs
	}
	return out, nil
}

// ActionParamNamer is what a model may implement to name the arguments of its actions in
// the pictures: the names of the n arguments an action of kind prints, or nil. The Kafka
// model's makes BrokerPowerLoss(2,2,2,1) read BrokerPowerLoss(broker=2, recoverFrom=2,
// leo=2, checkpointEntries=1). Models without it keep their actions as printed.
type ActionParamNamer interface {
	ActionParams(kind string, n int) []string
}

// SequenceOptions add what the trace alone does not say to a sequence chart.
type SequenceOptions struct {
	Params ActionParamNamer // names the actions' arguments; nil: as printed
	// Views are the views the checked properties read (WriteOptions.Views): at the
	// decisive step, each of their two-column tables whose rows name actors (the Kafka
	// model's epoch caches) is shown beside the actors' lifelines.
	Views ViewSelection
}

// NamedAction is action (Kind(a,b,...)) with its arguments named by p, as
// Kind(name=a, name=b, ...), or action itself when p is nil or does not name them.
func NamedAction(action, kind string, p ActionParamNamer) string {
	open := strings.IndexByte(action, '(')
	if p == nil || kind == "" || open < 0 || !strings.HasSuffix(action, ")") || action[:open] != kind {
		return action
	}
	args := strings.Split(action[open+1:len(action)-1], ",")
	names := p.ActionParams(kind, len(args))
	if len(names) != len(args) {
		return action
	}
	var b strings.Builder
	b.WriteString(action[:open+1])
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(names[i] + "=" + strings.TrimSpace(a))
	}
	b.WriteByte(')')
	return b.String()
}

// The witness phrases (checker/witness.go) that name the state deciding a counterexample,
// and how the chart says it.
var decisivePhrases = []struct {
	re   *regexp.Regexp
	says string // after the property's name
}{
	{regexp.MustCompile(`: its condition holds in state (\d+) and its goal in no later state`), ": its condition holds here, its goal in no later state"},
	{regexp.MustCompile(` is false in state (\d+)`), " is false here"},
	{regexp.MustCompile(` is broken by the step into state (\d+)`), " is broken by this step"},
	{regexp.MustCompile(`^no action is enabled in state (\d+)`), ": no action is enabled here (deadlock)"},
}

// Decisive is the state (0-based) that decides t as a counterexample, and what happens
// there: the first state where a LeadsTo property's condition holds for good, the state
// where an invariant is false, the step that breaks an action property, the deadlocked
// state, as the trace's witness names it; -1 and "" when the witness names none (an
// Eventually property, whose goal holds nowhere, or a trace without a witness).
func Decisive(t *checker.Trace) (int, string) {
	for _, p := range decisivePhrases {
		m := p.re.FindStringSubmatch(t.Witness)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 || n > len(t.States) {
			return -1, ""
		}
		name := t.Property
		if name == "" {
			name = "the property"
		}
		if strings.HasPrefix(p.says, ": no action") {
			name = "Deadlock"
		}
		return n - 1, name + p.says
	}
	return -1, ""
}

// Sequence-chart geometry, in SVG pixels.
const (
	seqLeft    = 290  // width of the step column
	seqLane    = 200  // distance between lanes
	seqTop     = 50   // top of the lane headers
	seqHeader  = 28   // height of the lane headers
	seqSub     = 24   // height of an event row without text
	seqStepGap = 12   // extra space after each step
	seqChar    = 6.6  // width of a character at font-size 11, generous (Helvetica averages 6)
	seqLineH   = 14.0 // height of a line of text
	seqWrap    = 176  // width labels are wrapped to
	seqMargin  = 300  // width of the right-hand column for labels that fit nowhere else
)

// seqBox is a rectangle, y down.
type seqBox struct{ x0, y0, x1, y1 float64 }

func (b seqBox) intersects(o seqBox) bool {
	return b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1
}

// crosses reports whether segment s meets box b (Liang-Barsky clipping).
// clear reports whether b crosses none of the segments of obstacles.
func (b seqBox) clear(obstacles ...[]seqSeg) bool {
	for _, segs := range obstacles {
		for _, s := range segs {
			if b.crosses(s) {
				return false
			}
		}
	}
	return true
}

func (b seqBox) crosses(s seqSeg) bool {
	t0, t1 := 0.0, 1.0
	dx, dy := s.x2-s.x1, s.y2-s.y1
	for _, c := range [4][2]float64{{-dx, s.x1 - b.x0}, {dx, b.x1 - s.x1}, {-dy, s.y1 - b.y0}, {dy, b.y1 - s.y1}} {
		p, q := c[0], c[1]
		if p == 0 {
			if q < 0 {
				return false
			}
			continue
		}
		r := q / p
		if p < 0 {
			t0 = math.Max(t0, r)
		} else {
			t1 = math.Min(t1, r)
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}

// seqSeg is a line segment: an arrow of the chart.
type seqSeg struct{ x1, y1, x2, y2 float64 }

// seqText is a block of text lines in a box (left-aligned, or centred in a note).
type seqText struct {
	lines []string
	box   seqBox
	color string
}

func (t *seqText) width() float64 {
	w := 0.0
	for _, l := range t.lines {
		w = math.Max(w, float64(len([]rune(l)))*seqChar)
	}
	return w + 8
}

func (t *seqText) height() float64 { return float64(len(t.lines))*seqLineH + 4 }

// The ends of a message.
const (
	endRecv      = "recv"
	endDrop      = "drop"
	endSupersede = "supersede"
	endInFlight  = "" // sent and never ended
)

type seqMsg struct {
	id       string
	label    string
	from, to string
	sendY    float64 // -1: sent before the trace's first state
	endY     float64
	sendStep int // -1: before the first state
	endStep  int // -1: in flight at the end; len(steps)-1 may be the back step
	end      string
	reason   string  // why it was dropped or superseded
	text     seqText // the label, above the arrow's start
	mark     seqText // drop, supersede or in-flight marker text
	line     seqSeg
	pieces   []seqSeg // line as drawn in full: cut where a label lies across it, where it is faint
}

type seqNote struct {
	step, k int
	actor   string
	text    seqText
	fact    string // a view's title: the note shows the actor's row of that table
}

// seqStep is one step's band: a state of the trace, or a lasso's back step.
type seqStep struct {
	y, h     float64
	label    seqText
	decisive seqText // what decides the counterexample here, under the label; or none
}

// seqLaneState is an actor's state from y on ("" normal).
type seqLaneState struct {
	y     float64
	label string
	text  seqText
}

// seqLayout is the geometry of a sequence chart, in SVG pixels (y down), shared by the SVG
// and the PNG renderings. Every label is wrapped whole (never cut) and placed where it meets
// no arrow and no other label: each sits in a row of its own, at a horizontal position free
// of arrows, or failing that in the right-hand column, which no arrow crosses.
type seqLayout struct {
	title         string
	actors        []string
	lane          map[string]int
	steps         []seqStep
	back          bool // the last step is a lasso's back step
	decisive      int  // the decisive state (Decisive), or -1
	msgs          []*seqMsg
	notes         []seqNote
	lanes         map[string][]seqLaneState
	loop          *seqBox
	loopText      seqText
	why           seqText // the trace's witness, under the chart
	bottom        float64
	width, height float64
	lanesRight    float64
}

func (l *seqLayout) laneX(a string) float64 {
	return float64(seqLeft + seqLane/2 + l.lane[a]*seqLane)
}

// texts lists every text block of the chart but the step labels and the lane headers.
func (l *seqLayout) texts() []*seqText {
	var out []*seqText
	for _, m := range l.msgs {
		out = append(out, &m.text)
		if len(m.mark.lines) > 0 {
			out = append(out, &m.mark)
		}
	}
	for i := range l.notes {
		out = append(out, &l.notes[i].text)
	}
	for _, a := range l.actors {
		for i := range l.lanes[a] {
			if len(l.lanes[a][i].text.lines) > 0 {
				out = append(out, &l.lanes[a][i].text)
			}
		}
	}
	return out
}

func (m *seqMsg) tooltip() string {
	tip := fmt.Sprintf("%s: %s -> %s", m.label, m.from, m.to)
	if m.sendStep >= 0 {
		tip += fmt.Sprintf(", sent in state %d", m.sendStep+1)
	}
	switch m.end {
	case endRecv:
		tip += fmt.Sprintf(", received in state %d", m.endStep+1)
	case endDrop:
		tip += fmt.Sprintf(", dropped in state %d: %s", m.endStep+1, m.reason)
	case endSupersede:
		tip += fmt.Sprintf(", superseded in state %d: %s", m.endStep+1, m.reason)
	default:
		tip += ", still in flight"
	}
	return tip
}

// wrapWords breaks s into lines of at most width pixels, between words (after ", " by
// preference) and never inside one: a word longer than a line gets a line of its own.
func wrapWords(s string, width float64) []string {
	lines := WrapWords(s, max(int(width/seqChar), 8), "")
	if len(lines) == 0 {
		return []string{""}
	}
	return lines
}

func newText(s string, width float64, color string) seqText {
	return seqText{lines: wrapWords(s, width), color: color}
}

func layoutSequence(t *checker.Trace, opts SequenceOptions) (*seqLayout, error) {
	if err := validTrace(t); err != nil {
		return nil, err
	}
	evs, err := Events(t)
	if err != nil {
		return nil, err
	}
	stepLabels := make([]string, len(t.States))
	actions := make([]string, len(t.States)) // as the chart names them
	printed := make([]string, len(t.States)) // as the trace prints them
	for i := range t.States {
		stepLabels[i] = "1: initial state"
		if i > 0 {
			printed[i] = t.States[i].Action
			actions[i] = NamedAction(t.States[i].Action, t.States[i].Kind, opts.Params)
			stepLabels[i] = fmt.Sprintf("%d: %s", i+1, actions[i])
		}
	}
	l := &seqLayout{lane: map[string]int{}, actors: append([]string(nil), t.Actors...), lanes: map[string][]seqLaneState{}}
	if t.Loop >= 0 {
		back, err := parseEvents(t.BackEvents, "back step")
		if err != nil {
			return nil, err
		}
		evs = append(evs, back)
		actions = append(actions, NamedAction(t.BackAction, t.BackKind, opts.Params))
		printed = append(printed, t.BackAction)
		stepLabels = append(stepLabels, fmt.Sprintf("back to state %d: %s", t.Loop+1, actions[len(actions)-1]))
		l.back = true
	}
	var decisiveSays string
	l.decisive, decisiveSays = Decisive(t)
	var facts []Table // the decisive state's tables of the views the properties read
	if l.decisive >= 0 && len(opts.Views) > 0 {
		tables, err := ParseViews(t.States[l.decisive].Views)
		if err != nil {
			return nil, fmt.Errorf("state %d: %w", l.decisive+1, err)
		}
		for _, tb := range tables {
			if opts.Views.has(tb.Name) && len(tb.Columns) == 2 {
				facts = append(facts, tb)
			}
		}
	}
	for i, a := range l.actors {
		l.lane[a] = i
	}
	for _, step := range evs {
		for _, e := range step {
			for _, a := range []string{e.Actor, e.Peer} {
				if _, ok := l.lane[a]; !ok && a != "" {
					l.lane[a] = len(l.actors)
					l.actors = append(l.actors, a)
				}
			}
		}
	}
	l.title = "message sequence chart"
	if t.Property != "" {
		l.title = t.Property + " violated: message sequence chart"
	}
	if len(l.actors) == 0 {
		l.title += " (the model describes no messages)"
	}
	l.lanesRight = float64(seqLeft + len(l.actors)*seqLane)
	if len(l.actors) == 0 {
		l.lanesRight = seqLeft + seqLane
	}
	// Rows, top down: each event gets a row tall enough for its text.
	pending := map[string][]*seqMsg{}
	y := float64(seqTop + seqHeader + 16)
	for i, step := range evs {
		st := seqStep{y: y, label: newText(stepLabels[i], seqLeft-24, colorText)}
		if l.back && i == len(evs)-1 {
			st.label.color = colorLoop
		}
		if i == l.decisive {
			st.decisive = newText("decisive: "+decisiveSays, seqLeft-24, colorRed)
		}
		ry := y
		for k, e := range step {
			switch e.Type {
			case "local":
				label := e.Label
				if i > 0 && label == printed[i] { // the step's action, named
					label = actions[i]
				}
				tx := newText(label, seqLane-24, colorText)
				tx.box = seqBox{0, ry + 4, tx.width(), ry + 4 + tx.height()}
				l.notes = append(l.notes, seqNote{step: i, k: k, actor: e.Actor, text: tx})
				// Room for the note moved off its lifeline, which names its actor.
				named := newText(e.Actor+": "+strings.Join(tx.lines, " "), seqLane-24, colorText)
				ry += math.Max(tx.height(), named.height()) + 8
			case "state":
				tx := seqText{color: colorRed}
				if e.Label != "" {
					tx = newText(e.Label, seqWrap, colorRed)
				}
				tx.box = seqBox{0, ry + 4, tx.width(), ry + 4 + tx.height()}
				l.lanes[e.Actor] = append(l.lanes[e.Actor], seqLaneState{y: ry + seqSub/2, label: e.Label, text: tx})
				ry += math.Max(seqSub, tx.height()+8)
			case "send":
				m := &seqMsg{id: e.Msg, label: e.Label, from: e.Actor, to: e.Peer, sendStep: i, endStep: -1}
				m.text = newText(e.Label, seqWrap, colorNode)
				h := m.text.height()
				m.text.box = seqBox{0, ry + 3, m.text.width(), ry + 3 + h}
				m.sendY = ry + h + 8
				ry = m.sendY + 4
				l.msgs = append(l.msgs, m)
				if e.Msg != "" {
					pending[e.Msg] = append(pending[e.Msg], m)
				}
			case "recv", "drop", "supersede":
				// The oldest message with this id not yet ended: models may reuse an id for
				// equal messages sent at different times.
				var m *seqMsg
				if q := pending[e.Msg]; e.Msg != "" && len(q) > 0 {
					m, pending[e.Msg] = q[0], q[1:]
				} else { // sent before the trace's first state
					m = &seqMsg{id: e.Msg, label: e.Label, from: e.Peer, to: e.Actor, sendY: -1, sendStep: -1}
					m.text = newText(e.Label, seqWrap, colorNode)
					l.msgs = append(l.msgs, m)
				}
				m.end, m.endStep = e.Type, i
				if e.Type == "recv" {
					m.endY = ry + seqSub/2
					ry += seqSub
					break
				}
				word := "dropped"
				if e.Type == "supersede" {
					word = "superseded"
				}
				m.reason = e.Label
				mark := word
				if e.Label != "" && !strings.HasPrefix(e.Label, word) {
					mark += ": " + e.Label
				} else if e.Label != "" {
					mark = e.Label
				}
				m.mark = newText(mark, seqWrap, colorRed)
				h := m.mark.height()
				m.mark.box = seqBox{0, ry + 4, m.mark.width(), ry + 4 + h}
				m.endY = ry + 4 + seqLineH/2
				ry += math.Max(seqSub, h+8)
			}
		}
		if i == l.decisive {
			// The tables the properties read, each actor's row beside its lifeline.
			for _, tb := range facts {
				rowH := 0.0
				for _, row := range tb.Rows {
					actor, _, _ := strings.Cut(row[0].Text, " ")
					if _, ok := l.lane[actor]; !ok {
						continue
					}
					tx := newText(tb.Title+": "+row[1].Text, seqLane-24, colorText)
					tx.box = seqBox{0, ry + 4, tx.width(), ry + 4 + tx.height()}
					l.notes = append(l.notes, seqNote{step: i, k: len(step) + len(l.notes), actor: actor, text: tx, fact: tb.Title})
					rowH = math.Max(rowH, tx.height()+8)
				}
				ry += rowH
			}
		}
		lh := st.label.height() + 4
		if len(st.decisive.lines) > 0 {
			lh += st.decisive.height() + 2
		}
		st.h = math.Max(ry-y, math.Max(seqSub, lh)) + seqStepGap
		l.steps = append(l.steps, st)
		y += st.h
	}
	// The loop: the rows from its first state to the back step (or the last state, which
	// stutters), boxed, its label in the step column below them.
	// A lasso's back step says where it goes back to (its step label), once; a stuttering
	// end gets a label of its own.
	if t.Stutter && t.Loop < 0 {
		l.loopText = newText(fmt.Sprintf("loop: stutters forever in state %d", len(t.States)), seqLeft-24, colorLoop)
	}
	if t.Loop >= 0 || len(l.loopText.lines) > 0 {
		first := len(t.States) - 1
		if t.Loop >= 0 {
			first = t.Loop
		}
		if len(l.loopText.lines) > 0 {
			h := l.loopText.height()
			l.loopText.box = seqBox{8, y + 2, 8 + l.loopText.width(), y + 2 + h}
			y += h + 8
		}
		l.loop = &seqBox{3, l.steps[first].y - seqStepGap/2, 0, y}
		y += 8
	}
	// Messages in flight at the end: a row each below the steps, where their arrows stop.
	for _, m := range l.msgs {
		if m.end != endInFlight {
			continue
		}
		m.mark = newText("in flight", seqWrap, colorRed)
		m.mark.box = seqBox{0, y + 2, m.mark.width(), y + 2 + m.mark.height()}
		m.endY = y + 2 + seqLineH/2
		y += m.mark.height() + 6
	}
	l.bottom = y + 10
	// Arrows.
	var segs []seqSeg
	for _, m := range l.msgs {
		x1, x2 := l.laneX(m.from), l.laneX(m.to)
		y1 := m.sendY
		if y1 < 0 {
			y1 = l.steps[0].y + seqSub/2
			m.sendY = y1
		}
		if m.end != endRecv {
			x2 = x1 + (x2-x1)*0.8
		}
		m.line = seqSeg{x1, y1, x2, m.endY}
		segs = append(segs, m.line)
	}
	// Texts: each in its row, at the free place nearest the one it belongs at.
	// Lifelines are soft obstacles: a text crosses one only where it cannot help it.
	var lifelines []seqSeg
	for _, a := range l.actors {
		lifelines = append(lifelines, seqSeg{l.laneX(a), seqTop + seqHeader, l.laneX(a), l.bottom})
	}
	var margin bool
	place := func(tx *seqText, want float64, soft bool) {
		w := tx.box.x1 - tx.box.x0
		lo, hi := float64(seqLeft+4), l.lanesRight-w-4
		free := func(x float64, obstacles ...[]seqSeg) bool {
			return seqBox{x, tx.box.y0, x + w, tx.box.y1}.clear(obstacles...)
		}
		for _, hard := range [][][]seqSeg{{segs, lifelines}, {segs}} {
			if len(hard) == 2 && !soft {
				continue
			}
			for d := 0.0; d <= l.lanesRight; d += 6 {
				for _, x := range []float64{want + d, want - d} {
					if x >= lo && x <= hi && free(x, hard...) {
						tx.box.x0, tx.box.x1 = x, x+w
						return
					}
				}
			}
		}
		margin = true
		tx.box.x0, tx.box.x1 = l.lanesRight+10, l.lanesRight+10+w
	}
	// A message's label sits right above its own arrow's start, within the arrow's span:
	// where the arrow meets no other arrow there if it can, else next to the start, with
	// the arrows that cross it cut around it (pieces).
	onArrow := func(m *seqMsg) {
		tx := &m.text
		w := tx.box.x1 - tx.box.x0
		x1, x2 := m.line.x1, m.line.x2
		var lo, hi, want float64
		if x2 >= x1 {
			lo, hi, want = x1+6, math.Max(x1+6, x2-6-w), x1+6
		} else {
			hi, want = x1-6-w, x1-6-w
			lo = math.Min(hi, x2+6)
		}
		free := func(x float64, obstacles ...[]seqSeg) bool {
			return seqBox{x, tx.box.y0, x + w, tx.box.y1}.clear(obstacles...)
		}
		for _, hard := range [][][]seqSeg{{segs, lifelines}, {segs}} {
			for d := 0.0; d <= hi-lo; d += 6 {
				for _, x := range []float64{want + d, want - d} {
					if x >= lo && x <= hi && free(x, hard...) {
						tx.box.x0, tx.box.x1 = x, x+w
						return
					}
				}
			}
		}
		tx.box.x0, tx.box.x1 = want, want+w
	}
	for _, m := range l.msgs {
		x1, x2 := m.line.x1, l.laneX(m.to)
		if m.sendStep < 0 { // no row of its own: the label sits at the arrow's end
			m.text = seqText{}
		} else {
			onArrow(m)
		}
		if len(m.mark.lines) > 0 {
			w := m.mark.box.x1 - m.mark.box.x0
			if x2 >= x1 {
				place(&m.mark, m.line.x2+8, true)
			} else {
				place(&m.mark, m.line.x2-8-w, true)
			}
		}
	}
	for i := range l.notes {
		nt := &l.notes[i]
		x := l.laneX(nt.actor)
		place(&nt.text, x-(nt.text.box.x1-nt.text.box.x0)/2, false)
		if nt.text.box.x0 > x || nt.text.box.x1 < x {
			// Moved off its lifeline (arrows cross it there): the note names its actor.
			y0 := nt.text.box.y0
			nt.text = newText(nt.actor+": "+strings.Join(nt.text.lines, " "), seqLane-24, nt.text.color)
			nt.text.box = seqBox{0, y0, nt.text.width(), y0 + nt.text.height()}
			place(&nt.text, x-(nt.text.box.x1-nt.text.box.x0)/2, false)
		}
	}
	for _, a := range l.actors {
		for i := range l.lanes[a] {
			if ls := &l.lanes[a][i]; len(ls.text.lines) > 0 {
				place(&ls.text, l.laneX(a)+8, true)
			}
		}
	}
	boxes := l.texts()
	for _, m := range l.msgs {
		m.pieces = cutAround(m.line, boxes)
	}
	l.width = l.lanesRight + 20
	if margin {
		l.width = l.lanesRight + seqMargin
		for _, tx := range l.texts() {
			l.width = math.Max(l.width, tx.box.x1+10)
		}
	}
	if l.loop != nil {
		l.loop.x1 = l.width - 3
	}
	l.height = l.bottom + 10
	if t.Witness != "" {
		// The witness, wrapped to the chart's width, under the last row.
		l.why.lines = WrapWords("Why: "+t.Witness, max(40, int((l.width-30)/seqChar)), "  ")
		l.why.color = colorRed
		h := float64(len(l.why.lines))*seqLineH + 4
		l.why.box = seqBox{x0: 10, y0: l.bottom + 6, x1: 10 + l.why.width() + 8, y1: l.bottom + 6 + h}
		l.height = l.why.box.y1 + 10
	}
	return l, nil
}

// cutAround is s without the parts that lie under the texts' boxes (1 px around), in
// order from s's start: an arrow drawn so that no label lies on it.
func cutAround(s seqSeg, texts []*seqText) []seqSeg {
	type span struct{ t0, t1 float64 }
	var cuts []span
	dx, dy := s.x2-s.x1, s.y2-s.y1
	for _, tx := range texts {
		if len(tx.lines) == 0 {
			continue
		}
		b := seqBox{tx.box.x0 - 1, tx.box.y0 - 1, tx.box.x1 + 1, tx.box.y1 + 1}
		t0, t1 := 0.0, 1.0
		ok := true
		for _, c := range [4][2]float64{{-dx, s.x1 - b.x0}, {dx, b.x1 - s.x1}, {-dy, s.y1 - b.y0}, {dy, b.y1 - s.y1}} {
			p, q := c[0], c[1]
			if p == 0 {
				if q < 0 {
					ok = false
				}
				continue
			}
			if r := q / p; p < 0 {
				t0 = math.Max(t0, r)
			} else {
				t1 = math.Min(t1, r)
			}
		}
		if ok && t0 < t1 {
			cuts = append(cuts, span{t0, t1})
		}
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i].t0 < cuts[j].t0 })
	var out []seqSeg
	at := 0.0
	piece := func(a, b float64) {
		if (b-a)*math.Hypot(dx, dy) >= 1 {
			out = append(out, seqSeg{s.x1 + a*dx, s.y1 + a*dy, s.x1 + b*dx, s.y1 + b*dy})
		}
	}
	for _, c := range cuts {
		if c.t0 > at {
			piece(at, c.t0)
		}
		at = math.Max(at, c.t1)
	}
	if at < 1 {
		piece(at, 1)
	}
	return out
}

// laneSegment is a piece of a lifeline, in a state ("" normal).
type laneSegment struct {
	y0, y1 float64
	label  string
}

// laneSegments splits actor a's lifeline at its state changes, leaving out where a text
// lies across it.
func (l *seqLayout) laneSegments(a string) []laneSegment {
	x := l.laneX(a)
	var gaps []seqBox
	for _, tx := range l.texts() {
		if tx.box.x0 <= x && x <= tx.box.x1 {
			gaps = append(gaps, tx.box)
		}
	}
	sort.Slice(gaps, func(i, j int) bool { return gaps[i].y0 < gaps[j].y0 })
	states := append([]seqLaneState{{y: seqTop + seqHeader}}, l.lanes[a]...)
	var out []laneSegment
	for i, st := range states {
		y0, y1 := st.y, l.bottom
		if i+1 < len(states) {
			y1 = states[i+1].y
		}
		for _, g := range gaps {
			if g.y1 <= y0 || g.y0 >= y1 {
				continue
			}
			if g.y0 > y0 {
				out = append(out, laneSegment{y0, g.y0, st.label})
			}
			y0 = g.y1
		}
		if y1 > y0 {
			out = append(out, laneSegment{y0, y1, st.label})
		}
	}
	return out
}

// SequenceSVG writes a message sequence chart of t as SVG: one lifeline per actor
// (t.Actors, else the actors the events name, in order of appearance), drawn red and
// labelled while the actor is in a state the model names (a zombie), each message an arrow
// from its send to its receipt labelled with its type and fields, a message dropped or
// superseded ending in a red cross that says why, one still in flight ending in the air,
// local steps as notes on their lifeline, and a lasso's loop boxed with the back step. No
// label is cut or overlaps an arrow or another label. The output is deterministic.
func SequenceSVG(w io.Writer, t *checker.Trace) error {
	return SequenceSVGWith(w, t, SequenceOptions{})
}

// SequenceSVGWith is SequenceSVG with opts: the actions' arguments named, the decisive
// state's tables of the views the properties read beside the lifelines.
func SequenceSVGWith(w io.Writer, t *checker.Trace, opts SequenceOptions) error {
	if err := drawable(t); err != nil {
		return err
	}
	l, err := layoutSequence(t, opts)
	if err != nil {
		return fmt.Errorf("sequence: %w", err)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="Helvetica, Arial, sans-serif" font-size="11">`+"\n",
		l.width, l.height, l.width, l.height)
	bw.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="` + colorNode + `"/></marker></defs>` + "\n")
	fmt.Fprintf(bw, `<rect x="0" y="0" width="%.0f" height="%.0f" fill="#ffffff"/>`+"\n", l.width, l.height)
	fmt.Fprintf(bw, `<text x="10" y="24" font-size="15" fill="%s">%s</text>`+"\n", colorText, esc(l.title))
	text := func(tx *seqText, class string, centre bool) {
		if len(tx.lines) == 0 {
			return
		}
		x, anchor := tx.box.x0+4, ""
		if centre {
			x, anchor = (tx.box.x0+tx.box.x1)/2, ` text-anchor="middle"`
		}
		fmt.Fprintf(bw, `<text class="%s" x="%.1f" y="%.1f" fill="%s"%s>`, class, x, tx.box.y0+seqLineH-2, tx.color, anchor)
		for i, ln := range tx.lines {
			dy := 0.0
			if i > 0 {
				dy = seqLineH
			}
			fmt.Fprintf(bw, `<tspan x="%.1f" dy="%.0f">%s</tspan>`, x, dy, esc(ln))
		}
		bw.WriteString("</text>")
	}
	for i, st := range l.steps {
		fill, cls := "#ffffff", "step"
		if i%2 == 1 {
			fill = "#f6f7f9"
		}
		if i == l.decisive {
			fill, cls = colorDecisiveFill, "step decisive"
		}
		fmt.Fprintf(bw, `<g id="step-%d" class="%s"><rect x="0" y="%.1f" width="%.0f" height="%.1f" fill="%s"/>`,
			i+1, cls, st.y-seqStepGap/2, l.width, st.h, fill)
		if i == l.decisive {
			fmt.Fprintf(bw, `<rect x="0" y="%.1f" width="4" height="%.1f" fill="%s"/>`, st.y-seqStepGap/2, st.h, colorRed)
		}
		lb := st.label
		lb.box = seqBox{6, st.y, 6 + lb.width(), st.y + lb.height()}
		text(&lb, "step-label", false)
		if len(st.decisive.lines) > 0 {
			d := st.decisive
			d.box = seqBox{6, lb.box.y1 + 2, 6 + d.width(), lb.box.y1 + 2 + d.height()}
			text(&d, "decisive-label", false)
		}
		bw.WriteString("</g>\n")
	}
	if l.loop != nil {
		b := l.loop
		fmt.Fprintf(bw, `<g id="loop" class="loop"><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="%s" stroke-width="2" stroke-dasharray="8 4" rx="6"/>`,
			b.x0, b.y0, b.x1-b.x0, b.y1-b.y0, colorLoop)
		text(&l.loopText, "loop-label", false)
		bw.WriteString("</g>\n")
	}
	if len(l.why.lines) > 0 {
		text(&l.why, "witness", false)
		bw.WriteString("\n")
	}
	for _, a := range l.actors {
		x := l.laneX(a)
		fmt.Fprintf(bw, `<g id="lane-%s" class="lane">`, esc(a))
		for _, s := range l.laneSegments(a) {
			stroke, sw, dash := "#9aa0a6", "1.5", ` stroke-dasharray="4 3"`
			if s.label != "" {
				stroke, sw, dash = colorRed, "3", ` stroke-dasharray="10 3"`
			}
			fmt.Fprintf(bw, `<line class="lifeline" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%s"%s/>`,
				x, s.y0, x, s.y1, stroke, sw, dash)
		}
		fmt.Fprintf(bw, `<rect x="%.1f" y="%d" width="%d" height="%d" rx="5" fill="%s" stroke="%s" stroke-width="1.5"/><text x="%.1f" y="%d" text-anchor="middle" fill="%s">%s</text>`,
			x-seqLane/2+15, seqTop, seqLane-30, seqHeader, colorInitFill, colorNode, x, seqTop+18, colorText, esc(a))
		for i := range l.lanes[a] {
			text(&l.lanes[a][i].text, "lane-state", false)
		}
		bw.WriteString("</g>\n")
	}
	for n, m := range l.msgs {
		id := m.id
		if id == "" {
			id = fmt.Sprintf("anon%d", n)
		}
		cls, stroke, dash, marker := "msg", colorNode, "", ` marker-end="url(#arrow)"`
		switch m.end {
		case endDrop:
			cls, stroke, dash, marker = "msg dropped", colorRed, ` stroke-dasharray="6 4"`, ""
		case endSupersede:
			cls, stroke, dash, marker = "msg superseded", colorRed, ` stroke-dasharray="6 4"`, ""
		case endInFlight:
			cls, stroke, dash, marker = "msg inflight", colorNode, ` stroke-dasharray="2 3"`, ""
		}
		s := m.line
		fmt.Fprintf(bw, `<g id="msg-%s-%d" class="%s"><title>%s</title>`, esc(id), n, cls, esc(m.tooltip()))
		if len(m.pieces) != 1 || m.pieces[0] != s { // under a label: faint, so the arrow is seen to go on
			fmt.Fprintf(bw, `<line class="under" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1"%s/>`,
				s.x1, s.y1, s.x2, s.y2, colorUnder, dash)
		}
		for k, p := range m.pieces {
			mk := ""
			if k == len(m.pieces)-1 && p.x2 == s.x2 && p.y2 == s.y2 {
				mk = marker
			}
			fmt.Fprintf(bw, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.6"%s%s/>`,
				p.x1, p.y1, p.x2, p.y2, stroke, dash, mk)
		}
		if m.end == endDrop || m.end == endSupersede {
			fmt.Fprintf(bw, `<path d="M %.1f %.1f l 8 8 m 0 -8 l -8 8" stroke="%s" stroke-width="2"/>`, s.x2-4, s.y2-4, colorRed)
		}
		text(&m.text, "msg-label", false)
		text(&m.mark, "msg-end", false)
		bw.WriteString("</g>\n")
	}
	for _, nt := range l.notes {
		b := nt.text.box
		cls, fill, stroke, title := "note", "#fff6d5", "#c9a227", nt.actor
		if nt.fact != "" {
			cls, fill, stroke, title = "note fact", colorFactFill, colorFact, nt.actor+": "+nt.fact+" in state "+strconv.Itoa(nt.step+1)
		}
		fmt.Fprintf(bw, `<g id="note-%d-%d" class="%s"><title>%s</title><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="3" fill="%s" stroke="%s" stroke-width="1"/>`,
			nt.step+1, nt.k, cls, esc(title), b.x0, b.y0, b.x1-b.x0, b.y1-b.y0, fill, stroke)
		text(&nt.text, "note-label", true)
		bw.WriteString("</g>\n")
	}
	bw.WriteString("</svg>\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("sequence: %w", err)
	}
	return nil
}

// SequenceDOT writes the sequence chart as a DOT graph with every node pinned where the
// SVG puts it (for Graphviz's neato layout, which keeps pinned positions): the way to a PNG
// through the same renderer as the trace graph.
func SequenceDOT(w io.Writer, t *checker.Trace) error {
	return SequenceDOTWith(w, t, SequenceOptions{})
}

// SequenceDOTWith is SequenceDOT with opts (see SequenceSVGWith).
func SequenceDOTWith(w io.Writer, t *checker.Trace, opts SequenceOptions) error {
	l, err := layoutSequence(t, opts)
	if err != nil {
		return fmt.Errorf("sequence: %w", err)
	}
	// Points, y up: the SVG's pixels taken as points, flipped.
	pos := func(x, y float64) string { return fmt.Sprintf("%.1f,%.1f!", x, l.height-y) }
	inch := func(px float64) string { return fmt.Sprintf("%.3f", px/72) }
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "digraph sequence {\n")
	fmt.Fprintf(bw, "  graph [label=%s, labelloc=t, labeljust=l, fontname=%q, fontsize=14, fontcolor=%q, bgcolor=\"#ffffff\", inputscale=72, splines=line, outputorder=nodesfirst];\n",
		quote(l.title), fontName, colorText)
	fmt.Fprintf(bw, "  node [fontname=%q, fontsize=10, fixedsize=true, color=\"#ffffff\", fillcolor=\"#ffffff\", fontcolor=%q, penwidth=0];\n", fontName, colorText)
	fmt.Fprintf(bw, "  edge [fontname=%q, fontsize=9, arrowsize=0.7];\n", fontName)
	// Corner markers fix the drawing's extent.
	fmt.Fprintf(bw, "  corner0 [shape=point, width=0.01, style=invis, pos=%q];\n", pos(0, 0))
	fmt.Fprintf(bw, "  corner1 [shape=point, width=0.01, style=invis, pos=%q];\n", pos(l.width, l.height))
	textNode := func(name string, tx *seqText, extra string) {
		if len(tx.lines) == 0 {
			return
		}
		b := seqBox{tx.box.x0 - 1, tx.box.y0 - 1, tx.box.x1 + 1, tx.box.y1 + 1}
		fmt.Fprintf(bw, "  %s [shape=plaintext, label=%s, fontcolor=%q, width=%s, height=%s, pos=%q%s];\n",
			name, quoteKeepL(strings.Join(tx.lines, `\l`)+`\l`), tx.color, inch(b.x1-b.x0), inch(b.y1-b.y0), pos((b.x0+b.x1)/2, (b.y0+b.y1)/2), extra)
	}
	line := func(name string, s seqSeg, col, style, pw, head, tip string) {
		fmt.Fprintf(bw, "  %sa [shape=point, width=0.01, style=invis, pos=%q];\n", name, pos(s.x1, s.y1))
		fmt.Fprintf(bw, "  %sb [shape=point, width=0.01, style=invis, pos=%q];\n", name, pos(s.x2, s.y2))
		fmt.Fprintf(bw, "  %sa -> %sb [color=%q, style=%s, penwidth=%s, arrowhead=%s%s];\n", name, name, col, style, pw, head, tip)
	}
	// The loop's box first: the bands would hide its fill (its outline is drawn last).
	if l.loop != nil {
		b := l.loop
		fmt.Fprintf(bw, "  loop [shape=box, style=\"rounded,dashed\", label=\" \", color=%q, penwidth=2, width=%s, height=%s, pos=%q];\n",
			colorLoop, inch(b.x1-b.x0), inch(b.y1-b.y0), pos((b.x0+b.x1)/2, (b.y0+b.y1)/2))
		textNode("looplabel", &l.loopText, "")
	}
	if len(l.why.lines) > 0 {
		textNode("witness", &l.why, "")
	}
	for i, st := range l.steps {
		fill := "#ffffff"
		if i%2 == 1 {
			fill = "#f6f7f9"
		}
		if i == l.decisive {
			fill = colorDecisiveFill
		}
		cy := st.y - seqStepGap/2 + st.h/2
		fmt.Fprintf(bw, "  band%d [shape=box, style=filled, label=\" \", color=%q, fillcolor=%q, width=%s, height=%s, pos=%q];\n",
			i+1, fill, fill, inch(l.width), inch(st.h), pos(l.width/2, cy))
		if i == l.decisive {
			fmt.Fprintf(bw, "  band%dmark [shape=box, style=filled, label=\" \", color=%q, fillcolor=%q, width=%s, height=%s, pos=%q];\n",
				i+1, colorRed, colorRed, inch(4), inch(st.h), pos(2, cy))
		}
		lb := st.label
		lb.box = seqBox{6, st.y, 6 + lb.width(), st.y + lb.height()}
		textNode(fmt.Sprintf("step%d", i+1), &lb, "")
		if len(st.decisive.lines) > 0 {
			d := st.decisive
			d.box = seqBox{6, lb.box.y1 + 2, 6 + d.width(), lb.box.y1 + 2 + d.height()}
			textNode(fmt.Sprintf("step%ddecisive", i+1), &d, "")
		}
	}
	for i, a := range l.actors {
		x := l.laneX(a)
		fmt.Fprintf(bw, "  lane%d [shape=box, style=\"rounded,filled\", label=%s, color=%q, fillcolor=%q, penwidth=1.5, width=%s, height=%s, pos=%q];\n",
			i, quote(a), colorNode, colorInitFill, inch(seqLane-30), inch(seqHeader), pos(x, seqTop+seqHeader/2))
		for j, s := range l.laneSegments(a) {
			col, style, pw := "#9aa0a6", "dashed", "1.5"
			if s.label != "" {
				col, style, pw = colorRed, "solid", "3"
			}
			line(fmt.Sprintf("lane%d_%d", i, j), seqSeg{x, s.y0, x, s.y1}, col, style, pw, "none", "")
		}
		for j := range l.lanes[a] {
			textNode(fmt.Sprintf("lane%d_state%d", i, j), &l.lanes[a][j].text, "")
		}
	}
	for n, m := range l.msgs {
		col, style, head := colorNode, "solid", "normal"
		switch m.end {
		case endDrop, endSupersede:
			col, style, head = colorRed, "dashed", "none"
		case endInFlight:
			style, head = "dotted", "none"
		}
		if len(m.pieces) != 1 || m.pieces[0] != m.line {
			line(fmt.Sprintf("m%du", n), m.line, colorUnder, style, "1", "none", "")
		}
		for k, p := range m.pieces {
			h := "none"
			if k == len(m.pieces)-1 && p.x2 == m.line.x2 && p.y2 == m.line.y2 {
				h = head
			}
			name := fmt.Sprintf("m%d", n)
			if k > 0 {
				name = fmt.Sprintf("m%dp%d", n, k)
			}
			line(name, p, col, style, "1.6", h, ", tooltip="+quote(m.tooltip()))
		}
		if m.end == endDrop || m.end == endSupersede {
			x, y := m.line.x2, m.line.y2
			line(fmt.Sprintf("m%dx1", n), seqSeg{x - 4, y - 4, x + 4, y + 4}, colorRed, "solid", "2", "none", "")
			line(fmt.Sprintf("m%dx2", n), seqSeg{x - 4, y + 4, x + 4, y - 4}, colorRed, "solid", "2", "none", "")
		}
		textNode(fmt.Sprintf("m%dlabel", n), &m.text, "")
		textNode(fmt.Sprintf("m%dend", n), &m.mark, "")
	}
	for _, nt := range l.notes {
		b := nt.text.box
		stroke, fill := "#c9a227", "#fff6d5"
		if nt.fact != "" {
			stroke, fill = colorFact, colorFactFill
		}
		fmt.Fprintf(bw, "  note%d_%d [shape=box, style=\"rounded,filled\", label=%s, color=%q, fillcolor=%q, penwidth=1, width=%s, height=%s, pos=%q];\n",
			nt.step+1, nt.k, quote(strings.Join(nt.text.lines, "\n")), stroke, fill, inch(b.x1-b.x0), inch(b.y1-b.y0), pos((b.x0+b.x1)/2, (b.y0+b.y1)/2))
	}
	fmt.Fprintln(bw, "}")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("sequence: %w", err)
	}
	return nil
}

// SequencePNG renders the sequence chart as PNG through Graphviz (neato, every node pinned).
func SequencePNG(w io.Writer, t *checker.Trace) error {
	return SequencePNGWith(w, t, SequenceOptions{})
}

// SequencePNGWith is SequencePNG with opts (see SequenceSVGWith).
func SequencePNGWith(w io.Writer, t *checker.Trace, opts SequenceOptions) error {
	if err := drawable(t); err != nil {
		return err
	}
	var dot bytes.Buffer
	if err := SequenceDOTWith(&dot, t, opts); err != nil {
		return err
	}
	return RenderDOT(w, dot.Bytes(), "png", "neato")
}

// Colours of the decisive step's band and of the notes showing a view's row.
const (
	colorDecisiveFill = "#fdecea"
	colorUnder        = "#c4c9d0" // an arrow where a label lies across it
	colorFact         = "#1f77b4"
	colorFactFill     = "#e8f1fa"
)

// esc makes text for the SVG: hidden characters as visible escapes (see Visible), then
// XML's special characters as entities.
func esc(s string) string { return html.EscapeString(Visible(s)) }

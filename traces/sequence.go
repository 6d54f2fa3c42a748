package traces

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"strings"

	"kmc/checker"
)

// Event is one entry of a step's events (checker.Eventer): a message sent or received
// between two actors, or a local step of one actor.
type Event struct {
	Type  string `json:"type"` // "send", "recv" or "local"
	Actor string `json:"actor"`
	Peer  string `json:"peer"`
	Msg   string `json:"msg"`
	Label string `json:"label"`
}

// Events parses the events of every state of t (none for the initial state). Errors name
// the state.
func Events(t *checker.Trace) ([][]Event, error) {
	out := make([][]Event, len(t.States))
	for i, s := range t.States {
		if s.Events == "" {
			continue
		}
		if err := json.Unmarshal([]byte(s.Events), &out[i]); err != nil {
			return nil, fmt.Errorf("state %d: events: %w", i+1, err)
		}
		for k, e := range out[i] {
			switch e.Type {
			case "send", "recv":
				if e.Actor == "" || e.Peer == "" {
					return nil, fmt.Errorf("state %d: event %d: %s needs actor and peer", i+1, k, e.Type)
				}
			case "local":
				if e.Actor == "" {
					return nil, fmt.Errorf("state %d: event %d: local needs an actor", i+1, k)
				}
			default:
				return nil, fmt.Errorf("state %d: event %d: unknown type %q", i+1, k, e.Type)
			}
		}
	}
	return out, nil
}

// Sequence-chart geometry, in SVG pixels.
const (
	seqLeft    = 240 // width of the step column
	seqLane    = 190 // distance between lanes
	seqTop     = 70  // top of the first step
	seqHeader  = 28  // height of the lane headers
	seqSub     = 24  // height of one event row
	seqStepGap = 14  // extra space after each step
	seqChar    = 6.2 // average width of a character at font-size 11
)

type seqMsg struct {
	id           string
	label        string
	from, to     string
	sendY, recvY float64 // -1 when not seen
	sendStep     int
	recvStep     int
}

// seqLayout is the geometry of a sequence chart, in SVG pixels (y down), shared by the SVG
// and the PNG renderings.
type seqLayout struct {
	title         string
	actors        []string
	lane          map[string]int
	stepY, stepH  []float64
	stepLabel     []string
	msgs          []*seqMsg
	notes         []seqNote
	bottom        float64
	width, height float64
	ending        string
}

type seqNote struct {
	step, k int
	actor   string
	label   string
	y       float64
}

func (l *seqLayout) laneX(a string) float64 {
	return float64(seqLeft + seqLane/2 + l.lane[a]*seqLane)
}

// line is where message m is drawn, and whether it was lost or is still in flight.
func (l *seqLayout) line(m *seqMsg) (x1, y1, x2, y2 float64, lost bool) {
	x1, x2 = l.laneX(m.from), l.laneX(m.to)
	y1, y2 = m.sendY, m.recvY
	switch {
	case y1 < 0: // received, sent before the trace's first step
		y1 = l.stepY[0] + seqSub/2
	case y2 < 0: // sent, never received
		y2 = l.bottom - 6
		x2 = x1 + (x2-x1)*0.8
		lost = true
	}
	return
}

func (m *seqMsg) tooltip() string {
	tip := fmt.Sprintf("%s: %s -> %s", m.label, m.from, m.to)
	if m.sendStep >= 0 {
		tip += fmt.Sprintf(", sent in state %d", m.sendStep+1)
	}
	if m.recvStep >= 0 {
		tip += fmt.Sprintf(", received in state %d", m.recvStep+1)
	} else {
		tip += ", never received"
	}
	return tip
}

func layoutSequence(t *checker.Trace) (*seqLayout, error) {
	if err := validTrace(t); err != nil {
		return nil, err
	}
	evs, err := Events(t)
	if err != nil {
		return nil, err
	}
	l := &seqLayout{lane: map[string]int{}, actors: append([]string(nil), t.Actors...)}
	for i, a := range l.actors {
		l.lane[a] = i
	}
	addActor := func(a string) {
		if _, ok := l.lane[a]; !ok && a != "" {
			l.lane[a] = len(l.actors)
			l.actors = append(l.actors, a)
		}
	}
	for _, step := range evs {
		for _, e := range step {
			addActor(e.Actor)
			addActor(e.Peer)
		}
	}
	l.title = "message sequence chart"
	if t.Property != "" {
		l.title = t.Property + " violated: message sequence chart"
	}
	if len(l.actors) == 0 {
		l.title += " (the model describes no messages)"
	}
	pending := map[string][]*seqMsg{}
	y := float64(seqTop + seqHeader + 20)
	for i := range t.States {
		l.stepY = append(l.stepY, y)
		label := "1: initial state"
		if i > 0 {
			label = fmt.Sprintf("%d: %s", i+1, t.States[i].Action)
		}
		l.stepLabel = append(l.stepLabel, label)
		rows := len(evs[i])
		if rows == 0 {
			rows = 1
		}
		for k, e := range evs[i] {
			ey := y + float64(k)*seqSub + seqSub/2
			switch e.Type {
			case "local":
				l.notes = append(l.notes, seqNote{i, k, e.Actor, e.Label, ey})
			case "send":
				m := &seqMsg{id: e.Msg, label: e.Label, from: e.Actor, to: e.Peer, sendY: ey, sendStep: i, recvY: -1, recvStep: -1}
				l.msgs = append(l.msgs, m)
				if e.Msg != "" {
					pending[e.Msg] = append(pending[e.Msg], m)
				}
			case "recv":
				// The oldest message with this id not yet received: models may reuse an id
				// for equal messages sent at different times.
				var m *seqMsg
				if q := pending[e.Msg]; e.Msg != "" && len(q) > 0 {
					m, pending[e.Msg] = q[0], q[1:]
				} else { // sent before the trace's first state
					m = &seqMsg{id: e.Msg, label: e.Label, from: e.Peer, to: e.Actor, sendY: -1, sendStep: -1}
					l.msgs = append(l.msgs, m)
				}
				m.recvY, m.recvStep = ey, i
			}
		}
		h := float64(rows)*seqSub + seqStepGap
		l.stepH = append(l.stepH, h)
		y += h
	}
	l.bottom = y + 30
	l.width = float64(seqLeft + len(l.actors)*seqLane + 20)
	if len(l.actors) == 0 {
		l.width = seqLeft + seqLane
	}
	l.height = l.bottom + 30
	switch {
	case t.Loop >= 0:
		l.ending = fmt.Sprintf("back to state %d: %s", t.Loop+1, t.BackAction)
	case t.Stutter:
		l.ending = "then stutters forever"
	}
	return l, nil
}

// SequenceSVG writes a message sequence chart of t as SVG: one lane per actor (t.Actors,
// else the actors the events name, in order of appearance), each message an arrow from
// its send to its receipt labelled with its type and fields, local steps as notes on
// their lane, and messages never received drawn to a "lost / in flight" marker. The output
// is deterministic.
func SequenceSVG(w io.Writer, t *checker.Trace) error {
	if err := drawable(t); err != nil {
		return err
	}
	l, err := layoutSequence(t)
	if err != nil {
		return fmt.Errorf("sequence: %w", err)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="Helvetica, Arial, sans-serif" font-size="11">`+"\n",
		l.width, l.height, l.width, l.height)
	bw.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="` + colorNode + `"/></marker>` +
		`<marker id="arrow-lost" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto"><path d="M 0 0 L 10 5 L 0 10 z" fill="` + colorRed + `"/></marker></defs>` + "\n")
	fmt.Fprintf(bw, `<rect x="0" y="0" width="%.0f" height="%.0f" fill="#ffffff"/>`+"\n", l.width, l.height)
	fmt.Fprintf(bw, `<text x="10" y="24" font-size="15" fill="%s">%s</text>`+"\n", colorText, esc(l.title))

	for i := range l.stepY {
		fill := "#ffffff"
		if i%2 == 1 {
			fill = "#f6f7f9"
		}
		fmt.Fprintf(bw, `<g id="step-%d" class="step"><rect x="0" y="%.1f" width="%.0f" height="%.1f" fill="%s"/><text x="10" y="%.1f" fill="%s"><title>%s</title>%s</text></g>`+"\n",
			i+1, l.stepY[i]-seqStepGap/2, l.width, l.stepH[i], fill, l.stepY[i]+seqSub/2+4, colorText, esc(l.stepLabel[i]), esc(cutText(l.stepLabel[i], seqLeft-20)))
	}
	if l.ending != "" {
		fmt.Fprintf(bw, `<text x="10" y="%.1f" fill="%s">%s</text>`+"\n", l.bottom-12, colorRed, esc(l.ending))
	}
	for _, a := range l.actors {
		x := l.laneX(a)
		fmt.Fprintf(bw, `<g id="lane-%s" class="lane"><line x1="%.1f" y1="%d" x2="%.1f" y2="%.1f" stroke="#9aa0a6" stroke-width="1.5" stroke-dasharray="4 3"/>`,
			esc(a), x, seqTop+seqHeader, x, l.bottom)
		fmt.Fprintf(bw, `<rect x="%.1f" y="%d" width="%d" height="%d" rx="5" fill="%s" stroke="%s" stroke-width="1.5"/><text x="%.1f" y="%d" text-anchor="middle" fill="%s">%s</text></g>`+"\n",
			x-seqLane/2+15, seqTop, seqLane-30, seqHeader, colorInitFill, colorNode, x, seqTop+18, colorText, esc(a))
	}
	for n, m := range l.msgs {
		id := m.id
		if id == "" {
			id = fmt.Sprintf("anon%d", n)
		}
		x1, y1, x2, y2, lost := l.line(m)
		cls, stroke, dash, marker := "msg", colorNode, "", "arrow"
		if lost {
			cls, stroke, dash, marker = "msg lost", colorRed, ` stroke-dasharray="6 4"`, "arrow-lost"
		}
		fmt.Fprintf(bw, `<g id="msg-%s" class="%s"><title>%s</title><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.6"%s marker-end="url(#%s)"/>`,
			esc(id), cls, esc(m.tooltip()), x1, y1, x2, y2, stroke, dash, marker)
		lx, ly := labelAt(x1, y1, x2, y2)
		fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="%s" stroke="#ffffff" stroke-width="3" paint-order="stroke">%s</text>`,
			lx, ly, stroke, esc(msgLabel(m.label, x1, x2)))
		if lost {
			fmt.Fprintf(bw, `<text class="lost-marker" x="%.1f" y="%.1f" text-anchor="middle" fill="%s">✕ lost / in flight</text>`, x2, y2+14, colorRed)
		}
		bw.WriteString("</g>\n")
	}
	for _, nt := range l.notes {
		x := l.laneX(nt.actor)
		text := cutText(nt.label, seqLane-16)
		w := float64(len([]rune(text)))*seqChar + 12
		fmt.Fprintf(bw, `<g id="note-%d-%d" class="note"><title>%s: %s</title><rect x="%.1f" y="%.1f" width="%.1f" height="18" rx="3" fill="#fff6d5" stroke="#c9a227" stroke-width="1"/><text x="%.1f" y="%.1f" text-anchor="middle" fill="%s">%s</text></g>`+"\n",
			nt.step+1, nt.k, esc(nt.actor), esc(nt.label), x-w/2, nt.y-9, w, x, nt.y+4, colorText, esc(text))
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
	l, err := layoutSequence(t)
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
	for i := range l.stepY {
		fill := "#ffffff"
		if i%2 == 1 {
			fill = "#f6f7f9"
		}
		cy := l.stepY[i] - seqStepGap/2 + l.stepH[i]/2
		fmt.Fprintf(bw, "  band%d [shape=box, style=filled, label=\" \", color=%q, fillcolor=%q, width=%s, height=%s, pos=%q];\n",
			i+1, fill, fill, inch(l.width), inch(l.stepH[i]), pos(l.width/2, cy))
		fmt.Fprintf(bw, "  step%d [shape=plaintext, label=%s, width=%s, height=0.2, pos=%q];\n",
			i+1, quoteKeepL(cutText(l.stepLabel[i], seqLeft-20)+`\l`), inch(seqLeft-20), pos(10+float64(seqLeft-20)/2, l.stepY[i]+seqSub/2))
	}
	if l.ending != "" {
		fmt.Fprintf(bw, "  ending [shape=plaintext, label=%s, fontcolor=%q, width=%s, height=0.2, pos=%q];\n",
			quoteKeepL(l.ending+`\l`), colorRed, inch(l.width-20), pos(10+(l.width-20)/2, l.bottom-16))
	}
	for i, a := range l.actors {
		x := l.laneX(a)
		fmt.Fprintf(bw, "  lane%d [shape=box, style=\"rounded,filled\", label=%s, color=%q, fillcolor=%q, penwidth=1.5, width=%s, height=%s, pos=%q];\n",
			i, quote(a), colorNode, colorInitFill, inch(seqLane-30), inch(seqHeader), pos(x, seqTop+seqHeader/2))
		// The lane line in pieces that leave out the notes on it (lines are drawn last).
		ys := []float64{seqTop + seqHeader}
		for _, nt := range l.notes {
			if nt.actor == a {
				ys = append(ys, nt.y-9, nt.y+9)
			}
		}
		ys = append(ys, l.bottom)
		for j := 0; j+1 < len(ys); j += 2 {
			fmt.Fprintf(bw, "  lane%d_%da [shape=point, width=0.01, style=invis, pos=%q];\n", i, j, pos(x, ys[j]))
			fmt.Fprintf(bw, "  lane%d_%db [shape=point, width=0.01, style=invis, pos=%q];\n", i, j, pos(x, ys[j+1]))
			fmt.Fprintf(bw, "  lane%d_%da -> lane%d_%db [color=\"#9aa0a6\", style=dashed, penwidth=1.5, arrowhead=none];\n", i, j, i, j)
		}
	}
	for n, m := range l.msgs {
		x1, y1, x2, y2, lost := l.line(m)
		col, style := colorNode, "solid"
		if lost {
			col, style = colorRed, "dashed"
		}
		fmt.Fprintf(bw, "  m%da [shape=point, width=0.01, style=invis, pos=%q];\n", n, pos(x1, y1))
		fmt.Fprintf(bw, "  m%db [shape=point, width=0.01, style=invis, pos=%q];\n", n, pos(x2, y2))
		fmt.Fprintf(bw, "  m%da -> m%db [color=%q, style=%s, penwidth=1.6, tooltip=%s];\n",
			n, n, col, style, quote(m.tooltip()))
		// The label is a node above the arrow's middle, so that the arrow does not cross it.
		label := msgLabel(m.label, x1, x2)
		lx, ly := labelAt(x1, y1, x2, y2)
		fmt.Fprintf(bw, "  m%dlabel [shape=plaintext, label=%s, fontcolor=%q, fontsize=9, width=%s, height=0.18, pos=%q];\n",
			n, quote(label), col, inch(float64(len([]rune(label)))*seqChar), pos(lx, ly-4))
		if lost {
			fmt.Fprintf(bw, "  m%dlost [shape=plaintext, label=\"x lost / in flight\", fontcolor=%q, width=1.3, height=0.2, pos=%q];\n",
				n, colorRed, pos(x2, y2+12))
		}
	}
	for _, nt := range l.notes {
		x := l.laneX(nt.actor)
		text := cutText(nt.label, seqLane-16)
		w := float64(len([]rune(text)))*seqChar + 12
		fmt.Fprintf(bw, "  note%d_%d [shape=box, style=\"rounded,filled\", label=%s, color=\"#c9a227\", fillcolor=\"#fff6d5\", penwidth=1, width=%s, height=%s, pos=%q];\n",
			nt.step+1, nt.k, quote(text), inch(w), inch(18), pos(x, nt.y))
	}
	fmt.Fprintln(bw, "}")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("sequence: %w", err)
	}
	return nil
}

// SequencePNG renders the sequence chart as PNG through Graphviz (neato, every node pinned).
func SequencePNG(w io.Writer, t *checker.Trace) error {
	if err := drawable(t); err != nil {
		return err
	}
	var dot bytes.Buffer
	if err := SequenceDOT(&dot, t); err != nil {
		return err
	}
	return RenderDOT(w, dot.Bytes(), "png", "neato")
}

// labelAt is where a message's label goes: above its arrow, at the middle of a short
// arrow and near the sender on a long one (which crosses many steps).
func labelAt(x1, y1, x2, y2 float64) (float64, float64) {
	l := math.Hypot(x2-x1, y2-y1)
	t := 0.5
	if l > 0 && l/2 > 110 {
		t = 110 / l
	}
	x, y := x1+(x2-x1)*t, y1+(y2-y1)*t-5
	if x1 == x2 {
		x += 6
	}
	return x, y
}

// msgLabel cuts a message's label to about the width between its lanes.
func msgLabel(label string, x1, x2 float64) string {
	return cutText(label, math.Max(absf(x2-x1)-10, 220))
}

func absf(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// cutText shortens s to about maxw pixels of text.
func cutText(s string, maxw float64) string {
	n := int(maxw / seqChar)
	if n < 4 {
		n = 4
	}
	return cut(s, n)
}

func esc(s string) string { return html.EscapeString(strings.ToValidUTF8(s, "?")) }

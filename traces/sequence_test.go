package traces

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/png"
	"os"
	"strings"
	"testing"

	"kmc/checker"
)

type svgNode struct {
	XMLName xml.Name
	ID      string    `xml:"id,attr"`
	Class   string    `xml:"class,attr"`
	Nodes   []svgNode `xml:",any"`
}

func collect(n svgNode, by map[string][]string) {
	for _, c := range strings.Fields(n.Class) {
		by[c] = append(by[c], n.ID)
	}
	for _, c := range n.Nodes {
		collect(c, by)
	}
}

// Reference: issue 6 (message sequence chart: a lane per actor, messages from send to
// receipt, local steps as notes, lost messages marked), checker.Eventer.
func TestSequenceSVGStructure(t *testing.T) {
	tr := safetyTrace()
	var b bytes.Buffer
	if err := SequenceSVG(&b, tr); err != nil {
		t.Fatal(err)
	}
	var root svgNode
	if err := xml.Unmarshal(b.Bytes(), &root); err != nil {
		t.Fatalf("SVG does not parse as XML: %v", err)
	}
	by := map[string][]string{}
	collect(root, by)
	for _, tc := range []struct {
		class string
		want  []string
	}{
		{"lane", []string{"lane-p1", "lane-p2"}},
		{"msg", []string{"msg-m1-0", "msg-m2-1"}},
		{"inflight", []string{"msg-m2-1"}},
		{"note", []string{"note-2-1"}},
		{"step", []string{"step-1", "step-2", "step-3"}},
	} {
		if got := strings.Join(by[tc.class], ","); got != strings.Join(tc.want, ",") {
			t.Errorf("class %s: got ids %s, want %s", tc.class, got, strings.Join(tc.want, ","))
		}
	}
	if !strings.Contains(b.String(), ">in flight<") {
		t.Error("no in-flight marker for m2")
	}
	var again bytes.Buffer
	if err := SequenceSVG(&again, tr); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), again.Bytes()) {
		t.Error("two renderings differ")
	}
	golden(t, "safety.sequence.svg", b.Bytes())
}

// Reference: checker.Eventer: without Trace.Actors the lanes come from the events.
func TestSequenceActorsFromEvents(t *testing.T) {
	tr := safetyTrace()
	tr.Actors = nil
	tr.States[1].Events = `[{"type":"send","actor":"q","peer":"p","msg":"a","label":"Hi"}]`
	tr.States[2].Events = `[{"type":"recv","actor":"p","peer":"q","msg":"a","label":"Hi"}]`
	var b bytes.Buffer
	if err := SequenceSVG(&b, tr); err != nil {
		t.Fatal(err)
	}
	var root svgNode
	if err := xml.Unmarshal(b.Bytes(), &root); err != nil {
		t.Fatal(err)
	}
	by := map[string][]string{}
	collect(root, by)
	if got := strings.Join(by["lane"], ","); got != "lane-q,lane-p" {
		t.Errorf("lanes: got %s, want lane-q,lane-p", got)
	}
	if got := len(by["inflight"]); got != 0 {
		t.Errorf("messages in flight: got %d, want 0", got)
	}
}

// Reference: bad events are errors naming the state.
func TestSequenceBadEvents(t *testing.T) {
	for _, tc := range []struct{ events, want string }{
		{`{`, "state 2: events:"},
		{`[{"type":"shout","actor":"a"}]`, `state 2: event 0: unknown type "shout"`},
		{`[{"type":"send","actor":"a"}]`, "state 2: event 0: send needs actor and peer"},
	} {
		tr := safetyTrace()
		tr.States[1].Events = tc.events
		err := SequenceSVG(&bytes.Buffer{}, tr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("events %s: got %v, want an error containing %q", tc.events, err, tc.want)
		}
	}
	var _ = checker.Trace{}
}

// Reference: issue 6 (the sequence chart as PNG too): rendered through Graphviz with the
// nodes pinned, it decodes and shows the dropped message's red dashed arrow and cross.
func TestSequencePNG(t *testing.T) {
	var b bytes.Buffer
	tr := safetyTrace()
	tr.States = append(tr.States, tr.States[2])
	tr.States[3].Events = `[{"type":"drop","actor":"p1","peer":"p2","msg":"m2","label":"lost"}]`
	if err := SequencePNG(&b, tr); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	if got := countColor(img, colorRed); got < 40 {
		t.Errorf("red pixels (dropped message): got %d, want at least 40", got)
	}
	if got := countColor(img, "#9aa0a6"); got < 100 {
		t.Errorf("grey pixels (lanes): got %d, want at least 100", got)
	}
	if os.Getenv("KMC_KEEP_SEQUENCE") != "" {
		os.WriteFile(os.Getenv("KMC_KEEP_SEQUENCE"), data, 0o644)
	}
}

// Reference: checker.Eventer ids may repeat for equal messages sent at different times
// (the Kafka model names a message by its content): a receipt pairs with the oldest
// message of that id not yet received.
func TestSequenceReusedIDs(t *testing.T) {
	tr := safetyTrace()
	tr.States = append(tr.States, tr.States[2], tr.States[2])
	tr.States[1].Events = `[{"type":"send","actor":"p1","peer":"p2","msg":"x","label":"Ping"}]`
	tr.States[2].Events = `[{"type":"recv","actor":"p2","peer":"p1","msg":"x","label":"Ping"},{"type":"send","actor":"p1","peer":"p2","msg":"x","label":"Ping"}]`
	tr.States[3].Events = `[{"type":"recv","actor":"p2","peer":"p1","msg":"x","label":"Ping"}]`
	tr.States[4].Events = `[{"type":"recv","actor":"p2","peer":"p1","msg":"y","label":"Old"}]`
	l, err := layoutSequence(tr, SequenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range l.msgs {
		got = append(got, fmt.Sprintf("%s:%d->%d", m.label, m.sendStep+1, m.endStep+1))
	}
	if want := "Ping:2->3 Ping:3->4 Old:0->5"; strings.Join(got, " ") != want {
		t.Errorf("messages: got %s, want %s", strings.Join(got, " "), want)
	}
}

// crowdedTrace has long labels, messages crossing several steps, a superseded, a dropped
// and an in-flight message, a zombie and a lasso whose back step receives a message.
func crowdedTrace() *checker.Trace {
	tr := safetyTrace()
	tr.Actors = []string{"p1", "p2", "c1", "c2", "store"}
	long := "AlterPartitionResponse ctrl->2 FENCED_LEADER_EPOCH epoch=0 pepoch=0 isr={} ctrl=1 copy record into FetchResponse 1->2 epoch=1 offset=0 hw=0 end=1 records=[e1:r1]"
	ev := []string{
		`[{"type":"send","actor":"c1","peer":"p1","msg":"l1","label":"LeaderAndIsr ctrl->1 leader=1 epoch=1 pepoch=0 isr={1,2} from=1 cepoch=1"},` +
			`{"type":"send","actor":"c1","peer":"p2","msg":"l2","label":"LeaderAndIsr ctrl->2 leader=1 epoch=1 pepoch=0 isr={1,2} from=1 cepoch=1"},` +
			`{"type":"send","actor":"p2","peer":"c1","msg":"a1","label":"` + long + `"}]`,
		`[{"type":"state","actor":"c1","label":"zombie"},{"type":"send","actor":"c2","peer":"store","msg":"w","label":"write partition state leader=2 epoch=2 isr={2} zkVersion=1"},` +
			`{"type":"recv","actor":"store","peer":"c2","msg":"w","label":"write"},` +
			`{"type":"supersede","actor":"p2","peer":"c1","msg":"l2","label":"superseded by LeaderAndIsr ctrl->2 leader=2 epoch=2 pepoch=1 isr={2}"},` +
			`{"type":"send","actor":"c2","peer":"p2","msg":"l3","label":"LeaderAndIsr ctrl->2 leader=2 epoch=2 pepoch=1 isr={2} from=2 cepoch=2"},` +
			`{"type":"local","actor":"p1","label":"` + long + `"}]`,
		`[{"type":"recv","actor":"c1","peer":"p2","msg":"a1","label":"x"},{"type":"drop","actor":"p1","peer":"c1","msg":"l1","label":"dropped: p1 went down, its connections closed"},` +
			`{"type":"send","actor":"c1","peer":"p2","msg":"r1","label":"` + long + `"},{"type":"send","actor":"p1","peer":"store","msg":"f","label":"` + long + `"}]`,
		`[{"type":"recv","actor":"p2","peer":"c2","msg":"l3","label":"x"},{"type":"state","actor":"c1","label":""}]`,
	}
	base := tr.States[2]
	tr.States = tr.States[:1]
	for i, e := range ev {
		s := base
		s.Action = fmt.Sprintf("Step%d(with, a, rather, long, list, of, arguments)", i+1)
		s.Events = e
		tr.States = append(tr.States, s)
	}
	tr.Loop = 2
	tr.BackAction = "Back(1)"
	tr.BackKind = "Back"
	tr.BackEvents = `[{"type":"recv","actor":"p2","peer":"c1","msg":"r1","label":"x"}]`
	return tr
}

// Reference: issue 13 (labels cut and overlapping): every label is wrapped whole, no two
// text boxes intersect, and no text box meets an arrow.
func TestSequenceLabelsWrappedAndApart(t *testing.T) {
	for name, tr := range map[string]*checker.Trace{"safety": safetyTrace(), "crowded": crowdedTrace()} {
		l, err := layoutSequence(tr, SequenceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		texts := l.texts()
		var words []string
		for i, tx := range texts {
			for _, ln := range tx.lines {
				if strings.Contains(ln, "...") {
					t.Errorf("%s: label line %q is cut", name, ln)
				}
				words = append(words, strings.Fields(ln)...)
			}
			for _, o := range texts[i+1:] {
				if tx.box.intersects(o.box) {
					t.Errorf("%s: labels %q and %q overlap", name, tx.lines, o.lines)
				}
			}
			for _, m := range l.msgs {
				for _, p := range m.pieces {
					if tx.box.crosses(p) {
						t.Errorf("%s: label %q meets the arrow of %q where it is drawn in full", name, tx.lines, m.label)
					}
				}
			}
		}
		if name == "crowded" && !strings.Contains(strings.Join(words, " "), "FENCED_LEADER_EPOCH epoch=0 pepoch=0 isr={} ctrl=1 copy record") {
			t.Errorf("%s: the long label lost words: %s", name, strings.Join(words, " "))
		}
	}
}

// Reference: issue 13 (superseded messages drawn as received, the loop not marked, no
// zombie): a superseded, a dropped and an in-flight message each end as such, the back
// step's receipt is a receipt, the loop is boxed and labelled, and the zombie's lifeline
// is red from its state event to the next.
func TestSequenceEndsLoopAndZombie(t *testing.T) {
	tr := crowdedTrace()
	l, err := layoutSequence(tr, SequenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ends := map[string]string{}
	for _, m := range l.msgs {
		ends[m.id] = fmt.Sprintf("%s@%d", m.end, m.endStep+1)
	}
	want := map[string]string{"l1": "drop@4", "l2": "supersede@3", "a1": "recv@4", "l3": "recv@5", "r1": "recv@6", "f": "@0", "w": "recv@3"}
	for id, w := range want {
		if ends[id] != w {
			t.Errorf("message %s: got end %q, want %q", id, ends[id], w)
		}
	}
	// The back step is said once: its step label, inside the loop's box (issue 28).
	if l.loop == nil || len(l.loopText.lines) != 0 || l.loop.y1 < l.steps[len(l.steps)-1].y+l.steps[len(l.steps)-1].h-seqStepGap {
		t.Errorf("loop: got box %v, text %q; want the box around the back step and no text", l.loop, l.loopText.lines)
	}
	var red []string
	for _, s := range l.laneSegments("c1") {
		if s.label != "" {
			red = append(red, s.label)
		}
	}
	if len(red) == 0 {
		t.Error("c1: no zombie segment on its lifeline")
	}
	for _, s := range l.laneSegments("c2") {
		if s.label != "" {
			t.Errorf("c2: got a %q segment, want none", s.label)
		}
	}
	var b bytes.Buffer
	if err := SequenceSVG(&b, tr); err != nil {
		t.Fatal(err)
	}
	var root svgNode
	if err := xml.Unmarshal(b.Bytes(), &root); err != nil {
		t.Fatalf("SVG does not parse as XML: %v", err)
	}
	by := map[string][]string{}
	collect(root, by)
	for _, tc := range []struct{ class, want string }{
		{"superseded", "msg-l2-1"}, {"dropped", "msg-l1-0"}, {"inflight", "msg-f-6"}, {"loop", "loop"},
	} {
		if got := strings.Join(by[tc.class], ","); got != tc.want {
			t.Errorf("class %s: got %s, want %s", tc.class, got, tc.want)
		}
	}
	for _, w := range []string{">superseded by LeaderAndIsr", ">dropped: p1 went down", ">zombie<", ">back to state 3: Back(1)<"} {
		if n := strings.Count(b.String(), "back to state 3"); w == ">back to state 3: Back(1)<" && n != 1 {
			t.Errorf("the back step is printed %d times, want once", n)
		}
		if !strings.Contains(b.String(), w) {
			t.Errorf("SVG holds no %q", w)
		}
	}
	golden(t, "crowded.sequence.svg", b.Bytes())
}

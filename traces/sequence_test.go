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
		{"msg", []string{"msg-m1", "msg-m2"}},
		{"lost", []string{"msg-m2"}},
		{"note", []string{"note-2-1"}},
		{"step", []string{"step-1", "step-2", "step-3"}},
	} {
		if got := strings.Join(by[tc.class], ","); got != strings.Join(tc.want, ",") {
			t.Errorf("class %s: got ids %s, want %s", tc.class, got, strings.Join(tc.want, ","))
		}
	}
	if !strings.Contains(b.String(), "lost / in flight") {
		t.Error("no lost/in-flight marker for m2")
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
	if got := len(by["lost"]); got != 0 {
		t.Errorf("lost messages: got %d, want 0", got)
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
// nodes pinned, it decodes and shows the lost message's red dashed arrow.
func TestSequencePNG(t *testing.T) {
	var b bytes.Buffer
	if err := SequencePNG(&b, safetyTrace()); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	if got := countColor(img, colorRed); got < 40 {
		t.Errorf("red pixels (lost message): got %d, want at least 40", got)
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
	l, err := layoutSequence(tr)
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

package traces

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kmc/checker"
)

// namer names Inc's argument p and Step1's seven.
type namer struct{}

func (namer) ActionParams(kind string, n int) []string {
	switch {
	case kind == "Inc" && n == 1:
		return []string{"process"}
	case kind == "Back" && n == 1:
		return []string{"to"}
	}
	return nil
}

// Reference: issue 28 (BrokerPowerLoss(2,2,2,1) means nothing to a reader).
func TestNamedAction(t *testing.T) {
	for _, tc := range []struct{ action, kind, want string }{
		{"Inc(p2)", "Inc", "Inc(process=p2)"},
		{"Inc(p1,p2)", "Inc", "Inc(p1,p2)"}, // two arguments: the namer knows one
		{"Reset", "Reset", "Reset"},
		{"Other(1)", "Other", "Other(1)"},
		{"Inc(p2)", "", "Inc(p2)"},
		{"Inc(p2", "Inc", "Inc(p2"},
	} {
		if got := NamedAction(tc.action, tc.kind, namer{}); got != tc.want {
			t.Errorf("NamedAction(%q, %q): got %q, want %q", tc.action, tc.kind, got, tc.want)
		}
	}
	if got := NamedAction("Inc(p2)", "Inc", nil); got != "Inc(p2)" {
		t.Errorf("without a namer: got %q", got)
	}
}

// Reference: issue 28 (the decisive step marked): the state each witness phrase names.
func TestDecisive(t *testing.T) {
	for _, tc := range []struct {
		witness string
		want    int
		says    string
	}{
		{"P is false in state 3: x = 2", 2, "P is false here"},
		{"P: its condition holds in state 2 and its goal in no later state; states 2..3 repeat forever", 1, "P: its condition holds here, its goal in no later state"},
		{"P is broken by the step into state 3 (Inc(p2))", 2, "P is broken by this step"},
		{"no action is enabled in state 2 and no step of it was cut by a model bound", 1, "Deadlock: no action is enabled here (deadlock)"},
		{"P: the goal holds in no state; states 1..3 repeat forever", -1, ""},
		{"P is false in state 9", -1, ""}, // beyond the trace
		{"", -1, ""},
	} {
		tr := &checker.Trace{Property: "P", Witness: tc.witness, States: make([]checker.TraceState, 3)}
		got, says := Decisive(tr)
		if got != tc.want || says != tc.says {
			t.Errorf("%q: got %d %q, want %d %q", tc.witness, got, says, tc.want, tc.says)
		}
	}
}

// Reference: issue 28 (KAFKA-13077's step 14: LeaderAndIsr ctrl->2 sat on the arrow to
// b1): every label lies right above its own arrow's start, on the arrow's side of its
// sender's lifeline, within the arrow's span; an arrow that passes under another label
// is drawn faint there and in full elsewhere.
func TestSequenceLabelOnItsArrow(t *testing.T) {
	for name, tr := range map[string]*checker.Trace{"safety": safetyTrace(), "crowded": crowdedTrace(), "lasso": lassoTrace()} {
		l, err := layoutSequence(tr, SequenceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range l.msgs {
			if len(m.text.lines) == 0 {
				continue
			}
			b, s := m.text.box, m.line
			if gap := s.y1 - b.y1; gap < 0 || gap > 12 {
				t.Errorf("%s: label %q ends %.0f px above its arrow's start, want 0..12", name, m.text.lines, gap)
			}
			lo, hi := min(s.x1, s.x2), max(s.x1, s.x2)
			if b.x1 <= lo || b.x0 >= hi {
				t.Errorf("%s: label %q at x %.0f..%.0f is off its arrow's span %.0f..%.0f", name, m.text.lines, b.x0, b.x1, lo, hi)
			}
			if (s.x2 >= s.x1 && b.x0 < s.x1) || (s.x2 < s.x1 && b.x1 > s.x1) {
				t.Errorf("%s: label %q is on the wrong side of its sender", name, m.text.lines)
			}
		}
	}
}

// Reference: issue 28: the named actions, the decisive step and the views the property
// reads (a two-column table whose rows name actors) are in the chart.
func TestSequenceNamedDecisiveFacts(t *testing.T) {
	tr := safetyTrace()
	tr.States[2].Views = `[{"name":"counters","title":"Counters","columns":["process","x"],"rows":[["p1","1"],["p2 (last)","2"]]},` +
		`{"name":"other","title":"Other","columns":["process","y"],"rows":[["p1","9"]]}]`
	var b bytes.Buffer
	if err := SequenceSVGWith(&b, tr, SequenceOptions{Params: namer{}, Views: ViewSelection{"counters"}}); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	for _, want := range []string{">3: Inc(process=p2)<", `<g id="step-3" class="step decisive">`,
		">decisive: CounterAtMostOne is false here<", `class="note fact"`, ">Counters: 1<", ">Counters: 2<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG holds no %q", want)
		}
	}
	if strings.Contains(svg, "Other: 9") {
		t.Error("SVG shows a view the selection does not name")
	}
	if strings.Contains(svg, `class="step decisive"><rect x="0" y="88.0"`) {
		t.Error("the initial state is marked decisive")
	}
	var dot bytes.Buffer
	if err := SequenceDOTWith(&dot, tr, SequenceOptions{Params: namer{}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dot.String(), "Inc(process=p2)") || !strings.Contains(dot.String(), "band3mark") {
		t.Errorf("DOT lacks the named action or the decisive mark")
	}
}

// Reference: issue 28: --out writes no trace.svg or trace.png (the trace graph is in
// trace.dot), and its chart, report and views name the actions' arguments.
func TestWriteAllPictures(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	tr := safetyTrace()
	tr.States[2].Views = `[{"name":"counters","title":"Counters","columns":["process","x"],"rows":[["p1","1"],["p2","2"]]}]`
	w, err := WriteAll(dir, tr, ReportInfo{}, WriteOptions{Params: namer{}, Views: ViewSelection{"counters"}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range w.Paths {
		names = append(names, filepath.Base(p))
	}
	if got, want := strings.Join(names, " "), "trace.txt trace.itf.json trace.dot sequence.svg sequence.png report.html views.png"; got != want {
		t.Errorf("files: got %s, want %s", got, want)
	}
	for _, name := range []string{"sequence.svg", "report.html"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Inc(process=p2)", "Counters: 2"} {
			if name == "report.html" && want == "Counters: 2" {
				want = `class="note fact"`
			}
			if !strings.Contains(string(data), want) {
				t.Errorf("%s holds no %q", name, want)
			}
		}
	}
	if got := namedLast(tr, namer{}).States[2].Action; got != "Inc(process=p2)" || tr.States[2].Action != "Inc(p2)" {
		t.Errorf("namedLast: got %q, and the trace's own action %q, want Inc(process=p2) and Inc(p2)", got, tr.States[2].Action)
	}
}

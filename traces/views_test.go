package traces

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"kmc/checker"
)

// viewTrace is the toy counter of safetyTrace with two views per state, as a model that
// knows nothing of Kafka could offer them: a grid of each process's slots (a highlight mark
// for a slot that disagrees with p1's, tag marks "next" and "done") and a one-row summary.
// The grid does not change into state 2 and changes into state 3.
func viewTrace() *checker.Trace {
	t := safetyTrace()
	marks := `"marks":[{"name":"odd","style":"highlight","doc":"differs from p1's slot"},` +
		`{"name":"next","style":"tag","doc":"the next slot to write"},{"name":"done","style":"tag","doc":"written by the last step"}]`
	grid := func(rows string) string {
		return `{"name":"slots","title":"Slots","columns":["slot","p1","p2 (writer)"],"rows":` + rows +
			`,"notes":["p1 wrote 1, p2 wrote 2"],` + marks + `}`
	}
	summary := func(x string) string {
		return `{"name":"summary","title":"Summary","columns":["x","bound"],"rows":[["` + x + `","1"]]}`
	}
	t.States[0].Views = `[` + grid(`[["0",{"text":"","marks":["next"]},{"text":"","marks":["next"]}]]`) + `,` + summary("0") + `]`
	t.States[1].Views = `[` + grid(`[["0",{"text":"","marks":["next"]},{"text":"","marks":["next"]}]]`) + `,` + summary("1") + `]`
	t.States[2].Views = `[` + grid(`[["0","x=1",{"text":"x=2","marks":["odd","done"]}],["1",{"text":"","marks":["next"]},{"text":"","marks":["next"]}]]`) +
		`,` + summary("2") + `]`
	return t
}

// Views print as aligned tables after a state's variables: in the first state with the
// legend of their marks, later only where they changed (every state with FullStates); only
// the views selected; none by default.
// Reference: issue 13 (Kafka views: the log grid after each state).
func TestViewsTextGolden(t *testing.T) {
	tests := []struct {
		name string
		opts TextOptions
	}{
		{"views-slots.txt", TextOptions{Views: ParseViewSelection("slots")}},
		{"views-all-full.txt", TextOptions{Views: ParseViewSelection("all"), FullStates: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Text(&b, viewTrace(), tc.opts); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, b.Bytes())
		})
	}
	var plain, none bytes.Buffer
	if err := Text(&plain, safetyTrace(), TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := Text(&none, viewTrace(), TextOptions{Views: ParseViewSelection("none")}); err != nil {
		t.Fatal(err)
	}
	if none.String() != plain.String() {
		t.Errorf("--view none: got\n%s\nwant the trace without views:\n%s", none.String(), plain.String())
	}
}

// Reference: checker.Viewer's schema: every row has a cell per column, every mark is
// declared with a known style, and no unknown field slips through.
func TestParseViewsErrors(t *testing.T) {
	tests := []struct {
		name, views, want string
	}{
		{"not JSON", `[{`, "views: unexpected EOF"},
		{"no name", `[{"columns":["a"]}]`, "a table needs a name and columns"},
		{"short row", `[{"name":"v","columns":["a","b"],"rows":[["1"]]}]`, "v: row 0: 1 cells for 2 columns"},
		{"undeclared mark", `[{"name":"v","columns":["a"],"rows":[[{"text":"1","marks":["hw"]}]]}]`, `mark "hw" not declared`},
		{"bad style", `[{"name":"v","columns":["a"],"marks":[{"name":"m","style":"blink","doc":""}]}]`, `unknown style "blink"`},
		{"unknown field", `[{"name":"v","columns":["a"],"colour":"red"}]`, `unknown field "colour"`},
	}
	for _, tc := range tests {
		_, err := ParseViews(tc.views)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if ts, err := ParseViews(viewTrace().States[2].Views); err != nil || len(ts) != 2 || ts[0].Rows[0][2].Marks[1] != "done" {
		t.Errorf("good views: got %+v, %v", ts, err)
	}
}

// Reference: ITF (ADR-015) leaves "#meta" to the tool: kmc::views round-trips per state and
// kmc::view records the selection kmc render prints by default.
func TestViewsITFRoundTrip(t *testing.T) {
	tr := viewTrace()
	var b bytes.Buffer
	if err := WriteITF(&b, tr, ITFOptions{View: "slots"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"kmc::views": [{"name":"slots"`) {
		t.Errorf("ITF: got no kmc::views in the states' #meta:\n%s", b.String())
	}
	got, meta, err := LoadITFMeta(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, tr) {
		t.Errorf("round trip:\ngot  %+v\nwant %+v", got, tr)
	}
	if meta.View != "slots" {
		t.Errorf("kmc::view: got %q, want slots", meta.View)
	}
	bad := viewTrace()
	bad.States[1].Views = `[{"name":"v","columns":["a"],"rows":[["1","2"]]}]`
	if err := WriteITF(&bytes.Buffer{}, bad, ITFOptions{}); err == nil || !strings.Contains(err.Error(), "state 2: views[0]: v: row 0") {
		t.Errorf("bad views: got error %v, want one naming state 2", err)
	}
}

// Reference: issue 13: the report carries each step's tables for its script, and styles
// the marks by their declared style.
func TestViewsHTML(t *testing.T) {
	page := string(sampleReport(t, viewTrace()))
	for _, want := range []string{
		`<div id="views"></div>`, `"views":[{"name":"slots","title":"Slots"`, `"marks":["odd","done"]`,
		`#views td.highlight`, `styles[m] === "highlight"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report: got no %q", want)
		}
	}
	if page := string(sampleReport(t, safetyTrace())); strings.Contains(page, `"views":`) {
		t.Error("report of a trace without views: got a views field")
	}
}

// Reference: issue 13: views.png is the last state's selected tables, written beside the
// other files only when the trace has them.
func TestViewsPicture(t *testing.T) {
	var dot bytes.Buffer
	if err := ViewsDOT(&dot, viewTrace(), ParseViewSelection("all")); err != nil {
		t.Fatal(err)
	}
	golden(t, "views.dot", dot.Bytes())
	// Graphviz rejects an empty <B></B> (the label is then dropped from the picture).
	empty := viewTrace()
	empty.States[2].Views = `[{"name":"v","title":"","columns":["","b"],"rows":[[{"text":"","marks":["x"]},"1"]],"marks":[{"name":"x","style":"highlight","doc":"d"}]}]`
	dot.Reset()
	if err := ViewsDOT(&dot, empty, ParseViewSelection("all")); err != nil || strings.Contains(dot.String(), "<B></B>") {
		t.Errorf("empty texts: got %v and\n%s\nwant no empty <B></B>", err, dot.String())
	}
	if err := ViewsDOT(&bytes.Buffer{}, safetyTrace(), ParseViewSelection("all")); err == nil {
		t.Error("a trace without views: got no error")
	}
	dir := filepath.Join(t.TempDir(), "out")
	wr, err := WriteAll(dir, viewTrace(), ReportInfo{}, WriteOptions{Views: ParseViewSelection("slots")})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(wr.Paths), len(outputFiles)+1; got != want {
		t.Fatalf("got %d files, want %d (views.png too)", got, want)
	}
	f, err := os.Open(filepath.Join(dir, "views.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("views.png: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 50 {
		t.Errorf("views.png: got %v, want a picture of a table", b)
	}
	txt, _ := os.ReadFile(filepath.Join(dir, "trace.txt"))
	if !strings.Contains(string(txt), "Slots (view slots)") || strings.Contains(string(txt), "Summary") {
		t.Errorf("trace.txt: got\n%s\nwant the slots view only", txt)
	}
}

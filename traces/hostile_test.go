package traces

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"kmc/checker"
)

// Reference: issue 26, defect 8 (control characters from a trace reached the terminal and
// broke the pictures: terminal escapes in replay, why and render; invalid XML in trace.svg
// and sequence.svg; a NUL failed every Graphviz format; `">` in a variable name broke PNG).

// hostileTrace is a lasso of three states whose every name, value and piece of metadata
// holds s: action names, the variable name, a string value and an unserializable one,
// actors and message labels, a view's title, column, cell and note, the property and the
// witness.
func hostileTrace(s string) *checker.Trace {
	str := string(Value{Kind: StringValue, Str: s}.AppendJSON(nil))
	uns := string(Value{Kind: UnserializableValue, Str: s}.AppendJSON(nil))
	rec := string(Value{Kind: RecordValue, Fields: []string{"f" + s}, Elems: []Value{{Kind: StringValue, Str: s}}}.AppendJSON(nil))
	q := func(x string) string { b, _ := json.Marshal(x); return string(b) }
	events := `[{"type":"send","actor":` + q("p"+s) + `,"peer":` + q("q"+s) + `,"msg":"m1","label":` + q(s) + `},` +
		`{"type":"recv","actor":` + q("q"+s) + `,"peer":` + q("p"+s) + `,"msg":"m1","label":` + q(s) + `}]`
	views := `[{"name":"v","title":` + q(s) + `,"columns":[` + q("c"+s) + `],"rows":[[` + q(s) + `]],"notes":[` + q(s) + `]}]`
	state := func(action string, i int) checker.TraceState {
		st := checker.TraceState{Values: []string{str, uns, rec}, Views: views}
		if i > 0 {
			st.Action, st.Kind, st.Events = action, "Kind"+s, events
			st.Values = []string{uns, str, rec}
		}
		return st
	}
	return &checker.Trace{Property: "P" + s, Vars: []string{"v" + s, s, "r" + s + "!"}, Actors: []string{"p" + s, "q" + s},
		States: []checker.TraceState{state("", 0), state("A("+s+")", 1), state("C"+s, 2)},
		Loop:   0, BackAction: "B" + s, BackKind: "B" + s, BackEvents: events, Witness: "because " + s}
}

// checkText fails unless out is UTF-8 and holds no hidden character but newlines.
func checkText(t *testing.T, what string, out []byte) {
	t.Helper()
	if !utf8.Valid(out) {
		t.Fatalf("%s: not UTF-8", what)
	}
	for _, r := range string(out) {
		if hidden(r) && r != '\n' {
			t.Fatalf("%s: holds %U", what, r)
		}
	}
}

// scripts matches the script elements of the HTML report, whose JavaScript is no XML.
var scripts = regexp.MustCompile(`(?s)<script[^>]*>.*?</script>`)

// checkXML fails unless out parses as XML (encoding/xml: strict, or for HTML with HTML's
// void elements and entities, its scripts left out) and holds only characters XML 1.0
// allows, and no hidden one but newlines and tabs.
func checkXML(t *testing.T, what string, out []byte, html bool) {
	t.Helper()
	if html {
		out = scripts.ReplaceAll(out, []byte("<script></script>"))
	}
	for _, r := range string(out) {
		if hidden(r) && r != '\n' && r != '\t' {
			t.Fatalf("%s: holds %U", what, r)
		}
	}
	d := xml.NewDecoder(bytes.NewReader(out))
	if html {
		d.Strict, d.AutoClose, d.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	}
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("%s: not XML: %v", what, err)
		}
	}
}

// renderHostile renders t in every format and checks each: the text forms hold no control
// character, the SVGs and the HTML report parse as XML, the PNGs are drawn, the ITF loads
// back to the same trace.
func renderHostile(t *testing.T, tr *checker.Trace, pictures bool) {
	var b bytes.Buffer
	if err := Text(&b, tr, TextOptions{Views: ViewSelection{ViewsAll}}); err != nil {
		t.Fatalf("Text: %v", err)
	}
	checkText(t, "Text", b.Bytes())
	b.Reset()
	if err := Text(&b, tr, TextOptions{FullStates: true, Views: ViewSelection{ViewsAll}}); err != nil {
		t.Fatalf("Text --full-states: %v", err)
	}
	checkText(t, "Text --full-states", b.Bytes())
	b.Reset()
	if err := WriteITF(&b, tr, ITFOptions{Source: "s" + tr.Property, Check: "c", View: "v"}); err != nil {
		t.Fatalf("WriteITF: %v", err)
	}
	checkText(t, "ITF", b.Bytes())
	back, err := LoadITF(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatalf("ITF loads back: %v", err)
	}
	// JSON has no form for bytes that are not UTF-8: each reads back as U+FFFD.
	asJSON := func(s string) string { b, _ := json.Marshal(s); json.Unmarshal(b, &s); return s }
	if back.Property != asJSON(tr.Property) || back.States[1].Action != asJSON(tr.States[1].Action) || back.Vars[0] != asJSON(tr.Vars[0]) {
		t.Fatalf("ITF loads back as %q %q %q, want %q %q %q", back.Property, back.States[1].Action, back.Vars[0], tr.Property, tr.States[1].Action, tr.Vars[0])
	}
	for _, r := range []struct {
		name string
		dot  func(io.Writer, *checker.Trace) error
	}{{"DOT", DOT}, {"SequenceDOT", SequenceDOT}, {"ViewsDOT", func(w io.Writer, t *checker.Trace) error { return ViewsDOT(w, t, ViewSelection{ViewsAll}) }}} {
		b.Reset()
		if err := r.dot(&b, tr); err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		checkText(t, r.name, b.Bytes())
	}
	b.Reset()
	if err := SequenceSVG(&b, tr); err != nil {
		t.Fatalf("SequenceSVG: %v", err)
	}
	checkXML(t, "SequenceSVG", b.Bytes(), false)
	if !pictures {
		return
	}
	b.Reset()
	if err := SVG(&b, tr); err != nil {
		t.Fatalf("SVG: %v", err)
	}
	checkXML(t, "SVG", b.Bytes(), false)
	b.Reset()
	if err := HTML(&b, tr, ReportInfo{Title: "t" + tr.Property, Reason: tr.Witness, Command: "kmc " + tr.Witness}); err != nil {
		t.Fatalf("HTML: %v", err)
	}
	checkXML(t, "HTML", b.Bytes(), true)
	for _, r := range []struct {
		name string
		png  func(io.Writer, *checker.Trace) error
	}{{"PNG", PNG}, {"SequencePNG", SequencePNG}, {"ViewsPNG", func(w io.Writer, t *checker.Trace) error { return ViewsPNG(w, t, ViewSelection{ViewsAll}) }}} {
		b.Reset()
		if err := r.png(&b, tr); err != nil || b.Len() == 0 {
			t.Fatalf("%s: %v", r.name, err)
		}
	}
}

// hostileStrings are the strings of the issue and their like.
var hostileStrings = []string{
	"\x1b]0;owned\x07", "\x1b[2J\x1b[H", "\x00", `">`, `"><script>x</script>`, "\u202eevil", "\x7f\u0085\u009b",
	"\xff\xfe", "\ufffe\uffff", "line\nbreak\r\ttab", `back\slash\l`, "&amp;<>", "\u2028\u2029",
}

// TestHostileTrace: every renderer writes the hostile strings as visible escapes.
func TestHostileTrace(t *testing.T) {
	for _, s := range hostileStrings {
		t.Run(strings.ToValidUTF8(Visible(s), "?"), func(t *testing.T) { renderHostile(t, hostileTrace(s), true) })
	}
}

// FuzzRenderers: arbitrary strings as the names, values and metadata of a trace (see
// hostileTrace): the text forms (Text, ITF, DOT) hold no control character and the
// sequence chart's SVG parses as XML. FuzzPictures draws the pictures.
func FuzzRenderers(f *testing.F) {
	for _, s := range hostileStrings {
		f.Add(s)
	}
	f.Add("plain")
	f.Fuzz(func(t *testing.T, s string) { renderHostile(t, hostileTrace(s), false) })
}

// FuzzPictures is FuzzRenderers with Graphviz's pictures drawn too (the trace graph's SVG
// and the HTML report parse as XML; the PNGs are drawn): slower, some executions a second.
func FuzzPictures(f *testing.F) {
	for _, s := range hostileStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { renderHostile(t, hostileTrace(s), true) })
}

// TestVisible: hidden characters become Go-style escapes; printable text is kept as it is;
// a character cut between two writes of visibleWriter is escaped or kept whole.
func TestVisible(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain é ü 中", "plain é ü 中"},
		{"\x1b[2J", `\x1b[2J`},
		{"a\nb\tc\rd", `a\nb\tc\rd`},
		{"\x00\x7f", `\x00\x7f`},
		{"\u0085\u009b", `\u0085\u009b`},
		{"\u202eevil\u2066", `\u202eevil\u2066`},
		{"\u2028\ufffe\uffff", `\u2028\ufffe\uffff`},
		{"\xff\xfe", `\xff\xfe`},
		{`back\slash`, `back\slash`},
	}
	for _, tc := range tests {
		if got := Visible(tc.in); got != tc.want {
			t.Errorf("Visible(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var b bytes.Buffer
	v := &visibleWriter{w: &b}
	for _, part := range []string{"a\xe4", "\xb8\xad b\x1b", "\n\xe4"} { // 中 = e4 b8 ad, cut
		v.Write([]byte(part))
	}
	v.Flush()
	if got, want := b.String(), "a中 b\\x1b\n\\xe4"; got != want {
		t.Errorf("visibleWriter: got %q, want %q", got, want)
	}
}

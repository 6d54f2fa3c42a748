package traces

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"kmc/checker"
)

// Reference: Apalache ADR-015 (ITF), Quint's mbt::actionTaken.
func TestITFGolden(t *testing.T) {
	tests := []struct {
		name  string
		trace *checker.Trace
	}{
		{"safety.itf.json", safetyTrace()},
		{"lasso.itf.json", lassoTrace()},
		{"stutter.itf.json", stutterTrace()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteITF(&b, tc.trace, ITFOptions{Source: "toy.toml"}); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, b.Bytes())
		})
	}
}

// Reference: Apalache ADR-015: Trace -> ITF -> Trace is the identity.
func TestITFRoundTrip(t *testing.T) {
	for _, tr := range []*checker.Trace{safetyTrace(), lassoTrace(), stutterTrace()} {
		var b bytes.Buffer
		if err := WriteITF(&b, tr, ITFOptions{}); err != nil {
			t.Fatal(err)
		}
		got, err := LoadITF(&b)
		if err != nil {
			t.Fatalf("%s: LoadITF: %v", tr.Property, err)
		}
		// WriteITF canonicalizes values; the toy traces are canonical except for set order,
		// which is kept as written.
		if !reflect.DeepEqual(got, tr) {
			t.Errorf("%s: round trip:\ngot  %+v\nwant %+v", tr.Property, got, tr)
		}
	}
}

// Reference: Apalache ADR-015: a trace written by another tool (no #meta, integers as JSON
// numbers in pre-2023 ITF, Quint's mbt variables) loads.
func TestLoadForeignITF(t *testing.T) {
	in := `{"vars":["x","s","mbt::actionTaken","mbt::nondetPicks"],
	"states":[
	 {"x":1,"s":{"#set":[]},"mbt::actionTaken":"init","mbt::nondetPicks":{}},
	 {"x":{"#bigint":"2"},"s":{"#set":["a"]},"mbt::actionTaken":"step","mbt::nondetPicks":{}},
	 {"#meta":{"index":2},"x":{"#bigint":"3"},"s":{"#set":["a"]},"mbt::actionTaken":"Put(a)","mbt::nondetPicks":{}}
	],"loop":1}`
	tr, err := LoadITF(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := &checker.Trace{
		Vars: []string{"x", "s"},
		Loop: 1,
		States: []checker.TraceState{
			{Values: []string{bi("1"), `{"#set":[]}`}},
			{Action: "step", Kind: "step", Values: []string{bi("2"), `{"#set":["a"]}`}},
			{Action: "Put(a)", Kind: "Put", Values: []string{bi("3"), `{"#set":["a"]}`}},
		},
	}
	if !reflect.DeepEqual(tr, want) {
		t.Errorf("got  %+v\nwant %+v", tr, want)
	}
}

// Reference: STYLE.md §4: every loader error points at the input.
func TestLoadITFErrors(t *testing.T) {
	st := func(s string) string { return `{"vars":["x"],"states":[{"x":{"#bigint":"0"}},` + s + `]}` }
	tests := []struct {
		name, in, want string
	}{
		{"json", `{`, "itf: unexpected end of JSON input"},
		{"novars", `{"states":[{}]}`, "itf: vars: missing"},
		{"nostates", `{"vars":[],"states":[]}`, "itf: states: no states"},
		{"dupvar", `{"vars":["x","x"],"states":[{}]}`, `vars[1]: duplicate variable "x"`},
		{"missing", st(`{"mbt::actionTaken":"A"}`), "states[1] (state 2): x: missing"},
		{"badvalue", st(`{"x":{"#set":[1,null]},"mbt::actionTaken":"A"}`), "states[1] (state 2): x.#set[1]: null"},
		{"noaction", st(`{"x":true}`), "states[1] (state 2): no action"},
		{"index", st(`{"#meta":{"index":5},"x":true,"mbt::actionTaken":"A"}`), "#meta.index: got 5, want 1"},
		{"extra", st(`{"x":true,"y":1,"mbt::actionTaken":"A"}`), "y: not a variable named in vars"},
		{"loop", `{"vars":[],"states":[{}],"loop":3}`, "loop: 3 outside the 1 states"},
		{"stutter", `{"#meta":{"kmc::stutter":true},"vars":[],"states":[{}]}`, "set without a loop"},
		{"events", st(`{"#meta":{"kmc::events":{}},"x":true,"mbt::actionTaken":"A"}`), "#meta.kmc::events"},
	}
	for _, tc := range tests {
		_, err := LoadITF(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// Reference: STYLE.md §6: every parser has a fuzz target seeded from the real files; it
// never panics, and what it accepts renders and writes back.
func FuzzLoadITF(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.itf.json"))
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"vars":["x"],"states":[{"x":{"#map":[[1,2]]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := LoadITF(bytes.NewReader(data))
		if err != nil {
			if tr != nil {
				t.Fatal("a trace returned with an error")
			}
			return
		}
		var b bytes.Buffer
		if err := Text(&b, tr, TextOptions{}); err != nil {
			t.Fatalf("Text of a loaded trace: %v", err)
		}
		if err := WriteITF(&b, tr, ITFOptions{}); err != nil {
			t.Fatalf("WriteITF of a loaded trace: %v", err)
		}
	})
}

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

// Reference: issue 28: a trace records the configuration that made it (#meta's
// kmc::specSha256, kmc::sets, kmc::config), compact and in a fixed place, and reads it back;
// a trace without it (an earlier kmc's, another tool's) reads as recording none.
func TestITFRunConfig(t *testing.T) {
	cfg := &RunConfig{SpecSHA256: strings.Repeat("ab", 32), Sets: []string{"rms=2", "fixes+=X"},
		Resolved: []byte("{\n  \"model\": \"twophase\",\n  \"constants\": {\"rms\": 2}\n}")}
	var b bytes.Buffer
	if err := WriteITF(&b, safetyTrace(), ITFOptions{Source: "toy.toml", Check: "buggy", Config: cfg}); err != nil {
		t.Fatal(err)
	}
	golden(t, "config.itf.json", b.Bytes())
	_, meta, err := LoadITFMeta(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	want := *cfg
	want.Resolved = []byte(`{"model":"twophase","constants":{"rms":2}}`)
	if meta.Config == nil || !reflect.DeepEqual(*meta.Config, want) {
		t.Errorf("read back: got %+v, want %+v", meta.Config, want)
	}
	b.Reset()
	if err := WriteITF(&b, safetyTrace(), ITFOptions{Config: &RunConfig{}}); err != nil || !strings.Contains(b.String(), `"kmc::sets": []`) {
		t.Errorf("no sets: got %v\n%s", err, b.String())
	}
	b.Reset()
	if err := WriteITF(&b, safetyTrace(), ITFOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, meta, err := LoadITFMeta(&b); err != nil || meta.Config != nil {
		t.Errorf("a trace without configuration: got %+v, %v", meta.Config, err)
	}
	if err := WriteITF(&b, safetyTrace(), ITFOptions{Config: &RunConfig{Resolved: []byte("[1]")}}); err == nil ||
		!strings.Contains(err.Error(), "#meta.kmc::config: want an object") {
		t.Errorf("a configuration that is no object: got %v", err)
	}
	for _, tc := range []struct{ meta, want string }{
		{`"kmc::config": 3`, "#meta.kmc::config: want an object"},
		{`"kmc::config": {"a":`, "invalid character"},
		{`"kmc::sets": "rms=2"`, "#meta.kmc::sets: want an array of strings"},
		{`"kmc::specSha256": 1`, "#meta.kmc::specSha256: want a string"},
	} {
		in := `{"#meta": {` + tc.meta + `}, "vars": ["x"], "states": [{"x": 1}]}`
		if _, _, err := LoadITFMeta(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.meta, err, tc.want)
		}
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
		tr, meta, err := LoadITFMeta(bytes.NewReader(data))
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
		b.Reset()
		if err := WriteITF(&b, tr, meta); err != nil {
			t.Fatalf("WriteITF of a loaded trace: %v", err)
		}
		_, again, err := LoadITFMeta(&b)
		if err != nil || !reflect.DeepEqual(again.Config, meta.Config) {
			t.Fatalf("the configuration written back reads otherwise: %v\n%+v\n%+v", err, again.Config, meta.Config)
		}
	})
}

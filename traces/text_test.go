package traces

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"kmc/checker"
)

// Reference: TLC's error-trace output (MP.java: "State N: <Action>", "Back to state L: ...",
// "State N: Stuttering"), with -difftrace for changed variables only.
func TestTextGolden(t *testing.T) {
	tests := []struct {
		name  string
		trace *checker.Trace
		opts  TextOptions
	}{
		{"safety.txt", safetyTrace(), TextOptions{}},
		{"safety-full.txt", safetyTrace(), TextOptions{FullStates: true}},
		{"lasso.txt", lassoTrace(), TextOptions{}},
		{"stutter.txt", stutterTrace(), TextOptions{}},
		// Reference: KAFKA-18723, KAFKA-5480: real traces of the Kafka model, so that the
		// field-level diff of maps, records, sets and sequences is pinned on real data.
		{"kafka-18723.txt", loadTestITF(t, "kafka-18723.itf.json"), TextOptions{}},
		{"kafka-18723-full.txt", loadTestITF(t, "kafka-18723.itf.json"), TextOptions{FullStates: true}},
		{"kafka-5480.txt", loadTestITF(t, "kafka-5480.itf.json"), TextOptions{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Text(&b, tc.trace, tc.opts); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, b.Bytes())
		})
	}
}

// Reference: TLC -difftrace: a state lists exactly what changed, down to the map entry,
// the set element and the sequence element; a set written in another order is the same
// value.
func TestTextOnlyChanged(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, safetyTrace(), TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	state3 := out[strings.Index(out, "State 3:"):]
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"/\\ x = 2", true},
		{"/\\ done += \"p2\"\n", true},
		{"/\\ log[2] = <<\"p2\", 2>>\n", true},
		{"/\\ pc[\"p2\"] = \"done\"\n", true},
		{"/\\ pc[\"p1\"]", false},
		{"/\\ cfg", false},
	} {
		if got := strings.Contains(state3, tc.line); got != tc.want {
			t.Errorf("state 3 contains %q: got %v, want %v\n%s", tc.line, got, tc.want, state3)
		}
	}
	if got := strings.Count(out, "/\\ cfg ="); got != 1 {
		t.Errorf("cfg printed %d times, want 1 (it never changes)", got)
	}
}

// Reference: renderers check the trace invariants first.
func TestTextRejectsBadTrace(t *testing.T) {
	bad := safetyTrace()
	bad.States[1].Values = bad.States[1].Values[:2]
	loop := lassoTrace()
	loop.Loop = 9
	both := lassoTrace()
	both.Stutter = true
	for _, tc := range []struct {
		name string
		t    *checker.Trace
		want string
	}{
		{"nil", nil, "empty trace"},
		{"values", bad, "state 2: 2 values for 5 variables"},
		{"loop", loop, "loop 9 outside"},
		{"both", both, "both loop back and stutter"},
	} {
		err := Text(&bytes.Buffer{}, tc.t, TextOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// loadTestITF loads testdata/name, an ITF trace written by kmc check --out.
func loadTestITF(t *testing.T, name string) *checker.Trace {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := LoadITF(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return tr
}

// Reference: issue 13. By default every line fits in 100 columns (the Kafka traces hold
// no string or number too long to break) and every state after the first says what
// changed, if only that nothing did; --full-states keeps TLC's form, one line per
// variable of every state, however long.
func TestTextLayout(t *testing.T) {
	lasso := lassoTrace()
	kafka := loadTestITF(t, "kafka-18723.itf.json")
	for _, tc := range []struct {
		name    string
		trace   *checker.Trace
		opts    TextOptions
		longest int // the longest line, at most
		lines   int // lines of each state block after the first: 0 for "at least one"
	}{
		{"lasso", lasso, TextOptions{}, textWidth, 0},
		{"kafka-18723", kafka, TextOptions{}, textWidth, 0},
		{"kafka-5480", loadTestITF(t, "kafka-5480.itf.json"), TextOptions{}, textWidth, 0},
		{"kafka-18723 full", kafka, TextOptions{FullStates: true}, 1 << 20, len(kafka.Vars)},
	} {
		var b bytes.Buffer
		if err := Text(&b, tc.trace, tc.opts); err != nil {
			t.Fatal(err)
		}
		long := 0
		for _, l := range strings.Split(b.String(), "\n") {
			long = max(long, utf8.RuneCountInString(l))
		}
		if long > tc.longest {
			t.Errorf("%s: longest line %d columns, want at most %d", tc.name, long, tc.longest)
		}
		if tc.opts.FullStates && long <= textWidth {
			t.Errorf("%s: longest line %d columns: full states are not wrapped, want a longer one", tc.name, long)
		}
		blocks := strings.Split(strings.TrimRight(b.String(), "\n"), "\n\n")
		for _, blk := range blocks[1:len(tc.trace.States)] {
			head, body, _ := strings.Cut(blk, "\n")
			n := strings.Count(body, "\n") + 1
			if body == "" || (tc.lines > 0 && n != tc.lines) {
				t.Errorf("%s: %s: %d lines, want %d (0: at least one)", tc.name, head, n, tc.lines)
			}
		}
	}
}

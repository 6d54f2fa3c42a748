package traces

import (
	"bytes"
	"strings"
	"testing"

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

// Reference: TLC -difftrace: a state lists exactly the variables that changed; a set
// written in another order is the same value.
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
		{"/\\ done = {\"p1\", \"p2\"}", true},
		{"/\\ cfg =", false},
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

package traces

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"kmc/checker"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./traces -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./traces -update to refresh)\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

func bi(n string) string { return `{"#bigint":"` + n + `"}` }

// safetyTrace is a hand-built toy: two processes bump a shared counter; the invariant
// x <= 1 fails in state 3. Variables cover every ITF form.
func safetyTrace() *checker.Trace {
	return &checker.Trace{
		Property: "CounterAtMostOne",
		Vars:     []string{"x", "done", "log", "pc", "cfg"},
		Actors:   []string{"p1", "p2"},
		Loop:     -1,
		Witness:  "CounterAtMostOne is false in state 3: x = 2, above the bound 1, after both processes bumped it",
		States: []checker.TraceState{
			{Values: []string{bi("0"), `{"#set":[]}`, `[]`,
				`{"#map":[["p1","idle"],["p2","idle"]]}`, `{"max":` + bi("1") + `,"name":"toy","on":true}`}},
			{Action: "Inc(p1)", Kind: "Inc", Values: []string{bi("1"), `{"#set":["p1"]}`, `[{"#tup":["p1",` + bi("1") + `]}]`,
				`{"#map":[["p1","done"],["p2","idle"]]}`, `{"max":` + bi("1") + `,"name":"toy","on":true}`},
				Events: `[{"type":"send","actor":"p1","peer":"p2","msg":"m1","label":"Bump(x=1)"},{"type":"local","actor":"p1","label":"x := 1"}]`},
			{Action: "Inc(p2)", Kind: "Inc", Values: []string{bi("2"), `{"#set":["p2","p1"]}`, `[{"#tup":["p1",` + bi("1") + `]},{"#tup":["p2",` + bi("2") + `]}]`,
				`{"#map":[["p2","done"],["p1","done"]]}`, `{"max":` + bi("1") + `,"name":"toy","on":true}`},
				Events: `[{"type":"recv","actor":"p2","peer":"p1","msg":"m1","label":"Bump(x=1)"},{"type":"send","actor":"p2","peer":"p1","msg":"m2","label":"Ack(x=2)"}]`},
		},
	}
}

// lassoTrace is a toy counter modulo 3 that cycles forever without ever reaching the goal
// state: Inc, Inc, then Reset goes back to state 2.
func lassoTrace() *checker.Trace {
	return &checker.Trace{
		Property:   "EventuallyGoal",
		Vars:       []string{"x", "goal"},
		Loop:       1,
		BackAction: "Reset",
		BackKind:   "Reset",
		States: []checker.TraceState{
			{Values: []string{bi("0"), "false"}},
			{Action: "Inc", Kind: "Inc", Values: []string{bi("1"), "false"}},
			{Action: "Inc", Kind: "Inc", Values: []string{bi("2"), "false"}},
			{Action: "Skip", Kind: "Skip", Values: []string{bi("2"), "false"}},
		},
	}
}

// stutterTrace ends by stuttering forever in its last state.
func stutterTrace() *checker.Trace {
	return &checker.Trace{
		Property: "EventuallyGoal",
		Vars:     []string{"x", "goal"},
		Loop:     -1,
		Stutter:  true,
		States: []checker.TraceState{
			{Values: []string{bi("0"), "false"}},
			{Action: "Inc", Kind: "Inc", Values: []string{bi("1"), "false"}},
		},
	}
}

package traces

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"kmc/checker"
)

// Reference: issue 6 (DOT: one node per state, loop cluster, dashed red back edge,
// stuttering red self-loop, violating state red, legend); Graphviz DOT language.
func TestDOTGolden(t *testing.T) {
	tests := []struct {
		name  string
		trace *checker.Trace
	}{
		{"safety.dot", safetyTrace()},
		{"lasso.dot", lassoTrace()},
		{"stutter.dot", stutterTrace()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var a, b bytes.Buffer
			if err := DOT(&a, tc.trace); err != nil {
				t.Fatal(err)
			}
			if err := DOT(&b, tc.trace); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatal("two renderings of the same trace differ")
			}
			golden(t, tc.name, a.Bytes())
		})
	}
}

// Reference: issue 6: the structure the picture relies on, independent of the golden file.
func TestDOTStructure(t *testing.T) {
	var b bytes.Buffer
	if err := DOT(&b, lassoTrace()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, tc := range []struct {
		what, want string
	}{
		{"back edge dashed red", `s4 -> s2 [color="#d62728", constraint="false", fontcolor="#d62728", label=" Reset ", penwidth="2.5", style="dashed"`},
		{"loop cluster", "subgraph cluster_loop"},
		{"initial filled", `fillcolor="` + colorInitFill + `"`},
		{"legend", "legend [shape=plaintext"},
	} {
		if !strings.Contains(out, tc.want) {
			t.Errorf("%s: got no %q in\n%s", tc.what, tc.want, out)
		}
	}
	cl := out[strings.Index(out, "subgraph cluster_loop"):]
	cl = cl[:strings.Index(cl, "  }")]
	for _, id := range []string{"s2 [", "s3 [", "s4 ["} {
		if !strings.Contains(cl, id) {
			t.Errorf("loop cluster: got no node %s", id)
		}
	}
	if strings.Contains(cl, "s1 [") {
		t.Errorf("loop cluster: got the prefix state s1 in it")
	}
	var s bytes.Buffer
	if err := DOT(&s, stutterTrace()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.String(), `s2 -> s2 [color="#d62728"`) {
		t.Errorf("stuttering: got no red self-loop on s2 in\n%s", s.String())
	}
}

// Reference: a kind's colour depends on its name only, unless two kinds of one trace
// collide; red stays reserved.
func TestKindColors(t *testing.T) {
	a := kindColors([]string{"Inc", "Reset"})
	b := kindColors([]string{"Reset", "Inc", "Inc"})
	if a["Inc"] != b["Inc"] || a["Reset"] != b["Reset"] {
		t.Errorf("colours depend on order: got %v and %v", a, b)
	}
	many := make([]string, len(palette))
	for i := range many {
		many[i] = string(rune('A' + i))
	}
	seen := map[string]bool{}
	for _, c := range kindColors(many) {
		if seen[c] {
			t.Errorf("colour %s given twice among %d kinds", c, len(many))
		}
		if c == colorRed {
			t.Errorf("a kind got the reserved red")
		}
		seen[c] = true
	}
}

// Reference: kmc check --dump-graph (issue 6): a whole graph, parallel edges merged.
func TestGraphDOTGolden(t *testing.T) {
	g := &checker.Graph{
		Vars: []string{"x"},
		Nodes: []checker.GraphNode{
			{Values: []string{bi("0")}, Initial: true},
			{Values: []string{bi("1")}},
		},
		Edges: []checker.GraphEdge{
			{From: 0, To: 1, Action: "Inc(a)", Kind: "Inc"},
			{From: 0, To: 1, Action: "Inc(b)", Kind: "Inc"},
			{From: 1, To: 0, Action: "Reset", Kind: "Reset"},
			{From: 1, To: 1, Action: "Skip", Kind: "Skip"},
		},
	}
	var b bytes.Buffer
	if err := GraphDOT(&b, g); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `label="Inc(a)\nInc(b)"`) {
		t.Errorf("parallel edges: got no merged label in\n%s", b.String())
	}
	golden(t, "graph.dot", b.Bytes())
	g.Edges = append(g.Edges, checker.GraphEdge{From: 0, To: 7})
	if err := GraphDOT(&b, g); err == nil || !strings.Contains(err.Error(), "edge 4: 0 -> 7 outside") {
		t.Errorf("bad edge: got error %v", err)
	}
}

// Reference: issue 13 (the trace PNG cut words and hid changes behind a tooltip): node
// labels wrap after ", " or at a space, never inside a word, and nothing is cut.
func TestWrap(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"short", []string{"short"}},
		{"aaaa, bbbb, cccc", []string{"aaaa, bbbb,", "    cccc"}},
		{"aa bb cc dd ee ff", []string{"aa bb cc dd", "    ee ff"}},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa b", []string{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "    b"}},
	}
	for _, tc := range tests {
		got := wrap(tc.in, 12)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("wrap(%q): got %q, want %q", tc.in, got, tc.want)
		}
		if joined := strings.Join(strings.Fields(strings.Join(got, " ")), " "); joined != strings.Join(strings.Fields(tc.in), " ") {
			t.Errorf("wrap(%q): the words changed: %q", tc.in, joined)
		}
	}
}

// Reference: issue 13: a trace graph's labels show every change and mention no tooltip,
// and a chain of 30 states or more is laid out in columns.
func TestDOTLongChain(t *testing.T) {
	tr := safetyTrace()
	for len(tr.States) < 34 {
		s := tr.States[len(tr.States)-1]
		s.Values = append([]string(nil), s.Values...)
		s.Values[0] = bi(fmt.Sprint(len(tr.States)))
		tr.States = append(tr.States, s)
	}
	var b bytes.Buffer
	if err := DOT(&b, tr); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{"...", "tooltip)", "more (see"} {
		if strings.Contains(out, bad) {
			t.Errorf("DOT holds %q", bad)
		}
	}
	if !strings.Contains(out, "{ rank=same; s1; s13; s25; }") {
		t.Errorf("no columns (rank=same of s1, s13, s25) in\n%s", out)
	}
	if !strings.Contains(out, "x = 33") {
		t.Error("the change of x in state 34 is not in its label")
	}
}

package traces

import (
	"bufio"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"sort"
	"strings"

	"github.com/dominikbraun/graph"

	"kmc/checker"
)

// Colours. Red is reserved for the violation (violating state, back edge, stuttering); the
// palette for action kinds has none.
const (
	colorRed       = "#d62728"
	colorRedFill   = "#fde0dd"
	colorInitFill  = "#d6e6f5"
	colorNode      = "#333333"
	colorNodeFill  = "#ffffff"
	colorText      = "#111111"
	colorLoop      = "#b03a2e"
	maxLabelLine   = 64  // runes per line of a node label before it wraps
	columnStates   = 15  // states per column of a trace graph of 30 states or more
	columnLines    = 140 // lines of node labels per column of a trace graph
	maxColumns     = 4
	fontName       = "Helvetica"
	graphPenWidth  = "1.5"
	edgePenWidth   = "2"
	legendPenWidth = "1"
)

var palette = []string{
	"#1f77b4", // blue
	"#2ca02c", // green
	"#ff7f0e", // orange
	"#9467bd", // purple
	"#8c564b", // brown
	"#e377c2", // pink
	"#17becf", // cyan
	"#bcbd22", // olive
	"#7f7f7f", // grey
	"#393b79", // navy
	"#637939", // moss
	"#8c6d31", // ochre
}

// kindColors gives each kind a colour from the palette: the slot its name hashes to (so a
// kind keeps its colour from trace to trace), or the next free one when another kind of
// the same trace took it.
func kindColors(kinds []string) map[string]string {
	sorted := append([]string(nil), kinds...)
	sort.Strings(sorted)
	used := make([]bool, len(palette))
	out := map[string]string{}
	for _, k := range sorted {
		if _, ok := out[k]; ok {
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(k))
		slot := int(h.Sum32() % uint32(len(palette)))
		for i := 0; i < len(palette) && used[slot]; i++ {
			slot = (slot + 1) % len(palette)
		}
		used[slot] = true
		out[k] = palette[slot]
	}
	return out
}

// traceKinds lists the action kinds of t in order of first appearance (the back edge too).
func traceKinds(t *checker.Trace) []string {
	var kinds []string
	seen := map[string]bool{}
	add := func(k string) {
		if k != "" && !seen[k] {
			seen[k] = true
			kinds = append(kinds, k)
		}
	}
	for _, s := range t.States[1:] {
		add(s.Kind)
	}
	if t.Loop >= 0 {
		add(t.BackKind)
	}
	return kinds
}

type attrs = map[string]string

// nodeID is the DOT id of trace state i (0-based): s1, s2, ... as the text prints them.
func nodeID(i int) string { return fmt.Sprintf("s%d", i+1) }

// DOT writes the trace as a Graphviz digraph: one node per state (label: what changed,
// tooltip: the whole state), the initial state filled, edges labelled with the action and
// coloured by its kind, the loop of a lasso in a cluster with a dashed red back edge,
// stuttering as a red self-loop, the last (violating) state red, and a legend. Every node
// and edge carries explicit colours and pen widths (go-graphviz's PNG renderer needs them).
// The output is deterministic.
func DOT(w io.Writer, t *checker.Trace) error {
	if err := validTrace(t); err != nil {
		return fmt.Errorf("dot: %w", err)
	}
	g := graph.New(graph.IntHash, graph.Directed())
	n := len(t.States)
	last := n - 1
	for i := range t.States {
		a := attrs{
			"label":   stateLabel(t, i),
			"tooltip": stateTooltip(t, i),
		}
		switch {
		case i == last:
			a["color"], a["fillcolor"], a["penwidth"] = colorRed, colorRedFill, "2.5"
		case i == 0:
			a["fillcolor"] = colorInitFill
		}
		if err := g.AddVertex(i, graph.VertexAttributes(a)); err != nil {
			return fmt.Errorf("dot: %w", err)
		}
	}
	colors := kindColors(traceKinds(t))
	// A long chain is laid out in columns of about columnStates states (fewer when their
	// labels are tall), side by side: the first state of each column on the rank of the
	// first state, the edge into a column not constraining the ranks.
	// Tall labels count too: about columnLines lines of text per column.
	lines := 0
	for i := range t.States {
		lines += strings.Count(stateLabel(t, i), `\l`) + 3
	}
	cols := (lines + columnLines - 1) / columnLines
	if n >= 2*columnStates {
		cols = max(cols, (n+columnStates-1)/columnStates)
	}
	cols = min(cols, maxColumns, n/2)
	col := 0
	if cols > 1 {
		col = (n + cols - 1) / cols
	}
	for i := 1; i < n; i++ {
		s := t.States[i]
		c := colors[s.Kind]
		if c == "" {
			c = colorNode
		}
		a := attrs{"label": " " + s.Action + " ", "color": c, "fontcolor": c,
			"tooltip": fmt.Sprintf("State %d -> %d: %s", i, i+1, s.Action)}
		if col > 0 && i%col == 0 {
			a["constraint"] = "false" // into the next column
		}
		if err := g.AddEdge(i-1, i, graph.EdgeAttributes(a)); err != nil {
			return fmt.Errorf("dot: %w", err)
		}
	}
	switch {
	case t.Loop >= 0:
		a := attrs{"label": " " + t.BackAction + " ", "color": colorRed, "fontcolor": colorRed,
			"style": "dashed", "constraint": "false", "penwidth": "2.5",
			"tooltip": fmt.Sprintf("Back to state %d: %s", t.Loop+1, t.BackAction)}
		if err := g.AddEdge(last, t.Loop, graph.EdgeAttributes(a)); err != nil {
			return fmt.Errorf("dot: %w", err)
		}
	case t.Stutter:
		a := attrs{"label": " Stuttering ", "color": colorRed, "fontcolor": colorRed,
			"penwidth": "2.5", "tooltip": fmt.Sprintf("State %d: Stuttering", n+1)}
		if err := g.AddEdge(last, last, graph.EdgeAttributes(a)); err != nil {
			return fmt.Errorf("dot: %w", err)
		}
	}

	title := "counterexample"
	if t.Property != "" {
		title = t.Property + " violated"
	}
	title += fmt.Sprintf(" (%d states", n)
	switch {
	case t.Loop >= 0:
		title += fmt.Sprintf(", loop back to state %d", t.Loop+1)
	case t.Stutter:
		title += ", then stuttering"
	}
	title += ")"
	if t.Witness != "" {
		title += "\n" + strings.Join(WrapWords("Why: "+t.Witness, witnessWidth, "  "), "\n")
	}

	bw := bufio.NewWriter(w)
	writeHeader(bw, "trace", title)
	var loop []int
	if t.Loop >= 0 {
		for i := t.Loop; i < n; i++ {
			loop = append(loop, i)
		}
	}
	if col > 0 {
		fmt.Fprintln(bw, "  graph [newrank=true];")
	}
	if err := writeBody(bw, g, n, loop); err != nil {
		return fmt.Errorf("dot: %w", err)
	}
	if col > 0 {
		bw.WriteString("  { rank=same;")
		for i := 0; i < n; i += col {
			fmt.Fprintf(bw, " %s;", nodeID(i))
		}
		bw.WriteString(" }\n")
	}
	writeLegend(bw, t, colors)
	fmt.Fprintln(bw, "}")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("dot: %w", err)
	}
	return nil
}

func writeHeader(w io.Writer, name, title string) {
	fmt.Fprintf(w, "digraph %s {\n", name)
	fmt.Fprintf(w, "  graph [label=%s, labelloc=t, fontname=%q, fontsize=14, fontcolor=%q, bgcolor=%q, rankdir=TB, nodesep=0.4, ranksep=0.45];\n",
		quote(title), fontName, colorText, "#ffffff")
	fmt.Fprintf(w, "  node [shape=box, style=\"rounded,filled\", fontname=%q, fontsize=10, color=%q, fillcolor=%q, fontcolor=%q, penwidth=%s];\n",
		fontName, colorNode, colorNodeFill, colorText, graphPenWidth)
	fmt.Fprintf(w, "  edge [fontname=%q, fontsize=9, color=%q, fontcolor=%q, penwidth=%s, arrowsize=0.8];\n",
		fontName, colorNode, colorNode, edgePenWidth)
}

// writeBody writes the nodes 0..n-1 (those listed in cluster inside a "loop" cluster) and
// every edge, sorted by source and target, with their attributes sorted by key.
func writeBody(w io.Writer, g graph.Graph[int, int], n int, cluster []int) error {
	inCluster := map[int]bool{}
	for _, i := range cluster {
		inCluster[i] = true
	}
	for i := 0; i < n; i++ {
		if inCluster[i] {
			continue
		}
		if err := writeNode(w, g, i, "  "); err != nil {
			return err
		}
	}
	if len(cluster) > 0 {
		fmt.Fprintf(w, "  subgraph cluster_loop {\n    graph [label=\"loop (repeats forever)\", labelloc=b, style=\"dashed,rounded\", color=%q, fontcolor=%q, penwidth=%s];\n",
			colorLoop, colorLoop, graphPenWidth)
		for _, i := range cluster {
			if err := writeNode(w, g, i, "    "); err != nil {
				return err
			}
		}
		fmt.Fprintln(w, "  }")
	}
	edges, err := g.Edges()
	if err != nil {
		return err
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].Source != edges[j].Source {
			return edges[i].Source < edges[j].Source
		}
		return edges[i].Target < edges[j].Target
	})
	for _, e := range edges {
		fmt.Fprintf(w, "  %s -> %s [%s];\n", nodeID(e.Source), nodeID(e.Target), attrList(withDefaults(e.Properties.Attributes, edgeDefaults)))
	}
	return nil
}

func writeNode(w io.Writer, g graph.Graph[int, int], i int, indent string) error {
	_, p, err := g.VertexWithProperties(i)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s%s [%s];\n", indent, nodeID(i), attrList(withDefaults(p.Attributes, nodeDefaults)))
	return nil
}

// Every node and edge carries its colours and pen width itself, not only through the
// graph's defaults: go-graphviz v0.2.10's PNG renderer draws no outlines or edges otherwise.
var (
	nodeDefaults = attrs{"color": colorNode, "fillcolor": colorNodeFill, "fontcolor": colorText, "penwidth": graphPenWidth}
	edgeDefaults = attrs{"color": colorNode, "fontcolor": colorNode, "penwidth": edgePenWidth}
)

func withDefaults(a, defaults attrs) attrs {
	out := attrs{}
	for k, v := range defaults {
		out[k] = v
	}
	for k, v := range a {
		out[k] = v
	}
	return out
}

// writeLegend writes the legend as one plaintext node holding an HTML-like table: a
// coloured cell per entry (fills and text only, which every renderer draws).
func writeLegend(w io.Writer, t *checker.Trace, colors map[string]string) {
	var b strings.Builder
	b.WriteString(`<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="3" CELLPADDING="4">`)
	b.WriteString(`<TR><TD><B>legend</B></TD></TR>`)
	row := func(label, fill, font string) {
		fmt.Fprintf(&b, `<TR><TD BGCOLOR="%s"><FONT COLOR="%s">%s</FONT></TD></TR>`, fill, font, htmlEscape(label))
	}
	row("initial state", colorInitFill, colorText)
	if t.Loop >= 0 || t.Stutter {
		row("last state", colorRedFill, colorRed)
	} else {
		row("violating state", colorRedFill, colorRed)
	}
	for _, k := range traceKinds(t) {
		row("action "+k, colors[k], "#ffffff")
	}
	switch {
	case t.Loop >= 0:
		row("dashed red edge: back to the loop", "#ffffff", colorRed)
	case t.Stutter:
		row("red self-loop: stutters forever", "#ffffff", colorRed)
	}
	b.WriteString(`</TABLE>>`)
	// Below the last state, out of the way of the trace.
	fmt.Fprintf(w, "  %s -> legend [style=invis, color=\"#ffffff\", penwidth=0];\n", nodeID(len(t.States)-1))
	fmt.Fprintf(w, "  legend [shape=plaintext, style=\"\", label=%s, color=%q, fillcolor=%q, fontcolor=%q, penwidth=0, fontsize=9];\n",
		b.String(), "#ffffff", "#ffffff", colorText)
}

// htmlEscape makes text for a Graphviz HTML-like label: hidden characters as visible
// escapes (see Visible), then &, <, > and " as entities.
func htmlEscape(s string) string {
	return htmlReplacer.Replace(Visible(s))
}

var htmlReplacer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// attrList prints DOT attributes sorted by key.
func attrList(a map[string]string) string {
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := a[k]
		if k == "label" && strings.HasSuffix(v, `\l`) {
			parts[i] = k + "=" + quoteKeepL(v)
		} else {
			parts[i] = k + "=" + quote(v)
		}
	}
	return strings.Join(parts, ", ")
}

// quote makes a DOT string: hidden characters but newlines as visible escapes (see
// Visible), then quotes and backslashes escaped, newlines as \n.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range visible(s, true) {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// quoteKeepL quotes a label made of lines each ended by the DOT escape \l (left-justified
// line), escaping the text of each line.
func quoteKeepL(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, `\l`), `\l`)
	for i, l := range lines {
		q := quote(l)
		lines[i] = q[1 : len(q)-1]
	}
	return `"` + strings.Join(lines, `\l`) + `\l"`
}

// stateLabel is a node's label: the state number, then every variable for the initial
// state, or every field that changed (see Diff) for the others, each wrapped to lines of
// about maxLabelLine runes without breaking a word, left-justified. Nothing is left out: a
// PNG has no tooltip to show the rest.
func stateLabel(t *checker.Trace, i int) string {
	head := fmt.Sprintf("State %d", i+1)
	var items []string
	if i == 0 {
		head += " (initial)"
		for v, name := range t.Vars {
			items = append(items, name+" = "+Format(t.States[0].Values[v]))
		}
	} else {
		for _, c := range stateChanges(t, i) {
			items = append(items, c.String())
		}
		if len(items) == 0 {
			items = append(items, "(no change)")
		}
	}
	lines := []string{head}
	for _, it := range items {
		lines = append(lines, wrap(it, maxLabelLine)...)
	}
	return strings.Join(lines, `\l`) + `\l`
}

// wrap breaks s into lines of at most width runes, continuation lines indented, between
// words: after ", " where it can, else at a space; a word longer than a line is kept whole.
func wrap(s string, width int) []string {
	var out []string
	r := []rune(s)
	for len(r) > 0 {
		w, indent := width, ""
		if len(out) > 0 {
			w, indent = width-4, "    "
		}
		if len(r) <= w {
			return append(out, indent+string(r))
		}
		brk := -1
		for j := w; j > w/2 && brk < 0; j-- {
			if r[j-1] == ' ' && j >= 2 && r[j-2] == ',' {
				brk = j
			}
		}
		for j := w; j > 0 && brk < 0; j-- {
			if r[j] == ' ' {
				brk = j + 1
			}
		}
		if brk < 0 { // one long word: up to the next space
			brk = len(r)
			for j := w; j < len(r); j++ {
				if r[j] == ' ' {
					brk = j + 1
					break
				}
			}
		}
		out = append(out, indent+strings.TrimRight(string(r[:brk]), " "))
		r = r[brk:]
	}
	return out
}

// stateTooltip is the whole state, one variable per line.
func stateTooltip(t *checker.Trace, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "State %d", i+1)
	if i > 0 {
		fmt.Fprintf(&b, ": %s", t.States[i].Action)
	}
	for v, name := range t.Vars {
		fmt.Fprintf(&b, "\n%s = %s", name, Format(t.States[i].Values[v]))
	}
	return b.String()
}

// GraphDOT writes a whole reachable state graph (checker.Graph, from --dump-graph): one
// node per state in BFS order (label: the state; initial states filled), edges labelled
// with their actions (parallel edges merged into one label) and coloured by kind.
func GraphDOT(w io.Writer, gr *checker.Graph) error {
	if gr == nil {
		return fmt.Errorf("dot: no graph")
	}
	g := graph.New(graph.IntHash, graph.Directed())
	for i, nd := range gr.Nodes {
		if len(nd.Values) != len(gr.Vars) {
			return fmt.Errorf("dot: node %d: %d values for %d variables", i, len(nd.Values), len(gr.Vars))
		}
		var lines []string
		var tip strings.Builder
		fmt.Fprintf(&tip, "node %d", i)
		for v, name := range gr.Vars {
			val := name + " = " + Format(nd.Values[v])
			lines = append(lines, wrap(val, maxLabelLine)...)
			tip.WriteString("\n" + val)
		}
		a := attrs{"label": strings.Join(lines, `\l`) + `\l`, "tooltip": tip.String()}
		if nd.Initial {
			a["fillcolor"] = colorInitFill
		}
		if err := g.AddVertex(i, graph.VertexAttributes(a)); err != nil {
			return fmt.Errorf("dot: %w", err)
		}
	}
	var kinds []string
	for _, e := range gr.Edges {
		kinds = append(kinds, e.Kind)
	}
	colors := kindColors(kinds)
	for i, e := range gr.Edges {
		if e.From < 0 || e.From >= len(gr.Nodes) || e.To < 0 || e.To >= len(gr.Nodes) {
			return fmt.Errorf("dot: edge %d: %d -> %d outside the %d nodes", i, e.From, e.To, len(gr.Nodes))
		}
		c := colors[e.Kind]
		err := g.AddEdge(e.From, e.To, graph.EdgeAttributes(attrs{"label": e.Action, "color": c, "fontcolor": c}))
		if errors.Is(err, graph.ErrEdgeAlreadyExists) {
			old, _ := g.Edge(e.From, e.To)
			a := old.Properties.Attributes
			err = g.UpdateEdge(e.From, e.To, graph.EdgeAttribute("label", a["label"]+"\n"+e.Action))
		}
		if err != nil {
			return fmt.Errorf("dot: edge %d: %w", i, err)
		}
	}
	bw := bufio.NewWriter(w)
	writeHeader(bw, "states", fmt.Sprintf("reachable states: %d, steps: %d", len(gr.Nodes), len(gr.Edges)))
	if err := writeBody(bw, g, len(gr.Nodes), nil); err != nil {
		return fmt.Errorf("dot: %w", err)
	}
	fmt.Fprintln(bw, "}")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("dot: %w", err)
	}
	return nil
}

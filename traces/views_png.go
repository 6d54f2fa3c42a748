package traces

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"kmc/checker"
)

// The views of a trace's last state as a picture (views.png). Our PNG path draws Graphviz's
// fills and text but strokes no line itself except edges and node outlines (png.go), so a
// table is an HTML-like label whose grid lines are the table's background showing through
// the spacing between cells: fills only. The trace graph keeps its plain labels: a table in
// every node would make the graph several times wider and taller than the screen.

const (
	colorGrid      = "#bbbbbb"
	colorHeadFill  = "#eeeeee"
	colorHighlight = "#fde0dd"
	colorTag       = "#1f4e8c"
)

// ViewsDOT writes the views of t's last state that sel names (all of them when sel is
// ViewsAll) as a DOT graph: one table per view, stacked, under a title naming the state.
// It is an error when the last state has none of them.
func ViewsDOT(w io.Writer, t *checker.Trace, sel ViewSelection) error {
	if err := validTrace(t); err != nil {
		return fmt.Errorf("views: %w", err)
	}
	last := len(t.States) - 1
	ts, err := selectViews(&t.States[last], sel)
	if err != nil {
		return fmt.Errorf("views: state %d: %w", last+1, err)
	}
	if len(ts) == 0 {
		return fmt.Errorf("views: state %d has no view selected", last+1)
	}
	title := fmt.Sprintf("State %d", last+1)
	if last > 0 {
		title += ": <" + t.States[last].Action + ">"
	}
	if t.Property != "" {
		title += " (" + t.Property + " violated)"
	}
	if t.Witness != "" {
		title += "\n" + strings.Join(WrapWords("Why: "+t.Witness, witnessWidth, "  "), "\n")
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "digraph views {")
	fmt.Fprintf(bw, "  graph [label=%s, labelloc=t, fontname=%q, fontsize=14, fontcolor=%q, bgcolor=%q, rankdir=TB, nodesep=0.3, ranksep=0.3];\n",
		quote(title), fontName, colorText, "#ffffff")
	fmt.Fprintf(bw, "  node [shape=plaintext, fontname=%q, fontsize=11, fontcolor=%q];\n", fontName, colorText)
	for k := range ts {
		fmt.Fprintf(bw, "  v%d [label=<%s>];\n", k+1, tableLabel(&ts[k]))
	}
	for k := 1; k < len(ts); k++ {
		fmt.Fprintf(bw, "  v%d -> v%d [style=invis];\n", k, k+1)
	}
	fmt.Fprintln(bw, "}")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("views: %w", err)
	}
	return nil
}

// ViewsPNG writes ViewsDOT as PNG.
func ViewsPNG(w io.Writer, t *checker.Trace, sel ViewSelection) error {
	var dot bytes.Buffer
	if err := ViewsDOT(&dot, t, sel); err != nil {
		return err
	}
	return RenderDOT(w, dot.Bytes(), "png", "")
}

// tableLabel is a table as a Graphviz HTML-like label: title, header row, cells (a
// highlight mark fills the cell, a tag mark adds its name in small blue type), then the
// notes and the legend of the marks, left-aligned under the grid.
func tableLabel(t *Table) string {
	var b strings.Builder
	n := len(t.Columns)
	title := t.Title
	if title == "" {
		title = t.Name
	}
	fmt.Fprintf(&b, `<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="1" CELLPADDING="4" BGCOLOR="%s">`, colorGrid)
	fmt.Fprintf(&b, `<TR><TD COLSPAN="%d" BGCOLOR="#ffffff" ALIGN="LEFT">%s</TD></TR>`, n, bold(htmlEscape(title)))
	b.WriteString("<TR>")
	for _, c := range t.Columns {
		fmt.Fprintf(&b, `<TD BGCOLOR="%s">%s</TD>`, colorHeadFill, bold(htmlEscape(c)))
	}
	b.WriteString("</TR>")
	for _, row := range t.Rows {
		b.WriteString("<TR>")
		for _, c := range row {
			fill := "#ffffff"
			var tags []string
			for _, mk := range c.Marks {
				if m := t.mark(mk); m != nil && m.Style == MarkHighlight {
					fill = colorHighlight
				} else {
					tags = append(tags, mk)
				}
			}
			text := htmlEscape(c.Text)
			if fill != "#ffffff" {
				text = bold(text)
			}
			if len(tags) > 0 {
				text += fmt.Sprintf(` <FONT POINT-SIZE="9" COLOR="%s">%s</FONT>`, colorTag, htmlEscape(strings.Join(tags, ",")))
			}
			if text == "" {
				text = " "
			}
			fmt.Fprintf(&b, `<TD BGCOLOR="%s" ALIGN="LEFT">%s</TD>`, fill, text)
		}
		b.WriteString("</TR>")
	}
	var notes []string
	notes = append(notes, t.Notes...)
	for _, m := range t.Marks {
		sym := m.Name
		if m.Style == MarkHighlight {
			sym = "shaded"
		}
		notes = append(notes, sym+": "+m.Doc)
	}
	if len(notes) > 0 {
		var lines []string
		for _, l := range notes {
			lines = append(lines, htmlEscape(l))
		}
		fmt.Fprintf(&b, `<TR><TD COLSPAN="%d" BGCOLOR="#ffffff" ALIGN="LEFT" BALIGN="LEFT"><FONT POINT-SIZE="9">%s</FONT></TD></TR>`,
			n, strings.Join(lines, "<BR/>"))
	}
	b.WriteString("</TABLE>")
	return b.String()
}

// bold is HTML-like text in bold; Graphviz rejects an empty <B></B>, so "" stays "".
func bold(s string) string {
	if s == "" {
		return ""
	}
	return "<B>" + s + "</B>"
}

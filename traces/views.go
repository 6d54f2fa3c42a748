package traces

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"kmc/checker"
)

// Views are the tables a model offers for each state (checker.Viewer; TraceState.Views
// holds them as JSON). The renderers here draw any table: columns, rows of cells, notes, and
// the marks each table declares, drawn by style ("highlight" or "tag") without knowing what
// they mean.

// Table is one view of a state.
type Table struct {
	Name    string   `json:"name"`
	Title   string   `json:"title"`
	Columns []string `json:"columns"`
	Rows    [][]Cell `json:"rows"`
	Notes   []string `json:"notes,omitempty"`
	Marks   []Mark   `json:"marks,omitempty"`
}

// Mark declares a mark a table's cells may carry: how to draw it and what it means.
type Mark struct {
	Name  string `json:"name"`
	Style string `json:"style"` // MarkHighlight or MarkTag
	Doc   string `json:"doc"`
}

// Mark styles.
const (
	MarkHighlight = "highlight" // emphasise the cell: a background colour; "*" in text
	MarkTag       = "tag"       // label the cell with the mark's name: a badge; "<name" in text
)

// Cell is a table cell: its text and marks. In JSON it is a string or {"text", "marks"}.
type Cell struct {
	Text  string   `json:"text"`
	Marks []string `json:"marks,omitempty"`
}

// UnmarshalJSON reads a cell written as a string or as an object.
func (c *Cell) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		c.Marks = nil
		return json.Unmarshal(data, &c.Text)
	}
	type plainCell Cell
	return json.Unmarshal(data, (*plainCell)(c))
}

// ParseViews reads a state's views (TraceState.Views); "" is no views. Each table must be
// well formed (see valid).
func ParseViews(s string) ([]Table, error) {
	if s == "" {
		return nil, nil
	}
	var ts []Table
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ts); err != nil {
		return nil, fmt.Errorf("views: %w", err)
	}
	for i := range ts {
		if err := ts[i].valid(); err != nil {
			return nil, fmt.Errorf("views[%d]: %w", i, err)
		}
	}
	return ts, nil
}

// valid checks a table's invariants:
//  1. it has a name and at least one column;
//  2. every row has one cell per column;
//  3. every mark a cell carries is declared, with a known style.
func (t *Table) valid() error {
	if t.Name == "" || len(t.Columns) == 0 {
		return fmt.Errorf("a table needs a name and columns")
	}
	for _, m := range t.Marks {
		if m.Style != MarkHighlight && m.Style != MarkTag {
			return fmt.Errorf("%s: mark %q: unknown style %q", t.Name, m.Name, m.Style)
		}
	}
	for r, row := range t.Rows {
		if len(row) != len(t.Columns) {
			return fmt.Errorf("%s: row %d: %d cells for %d columns", t.Name, r, len(row), len(t.Columns))
		}
		for _, c := range row {
			for _, mk := range c.Marks {
				if t.mark(mk) == nil {
					return fmt.Errorf("%s: row %d: mark %q not declared", t.Name, r, mk)
				}
			}
		}
	}
	return nil
}

func (t *Table) mark(name string) *Mark {
	for i := range t.Marks {
		if t.Marks[i].Name == name {
			return &t.Marks[i]
		}
	}
	return nil
}

// ViewSelection says which views a renderer prints: none (nil), the named ones, or all.
type ViewSelection []string

// ViewsAll selects every view.
const ViewsAll = "all"

// ParseViewSelection reads a --view value: "none" or "" (no view), "all", or names
// separated by commas.
func ParseViewSelection(s string) ViewSelection {
	if s == "" || s == "none" {
		return nil
	}
	var out ViewSelection
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// String is the selection as --view takes it: "" for none.
func (v ViewSelection) String() string { return strings.Join(v, ",") }

func (v ViewSelection) has(name string) bool {
	for _, n := range v {
		if n == name || n == ViewsAll {
			return true
		}
	}
	return false
}

// selectViews returns the tables of s that sel names, in the model's order.
func selectViews(s *checker.TraceState, sel ViewSelection) ([]Table, error) {
	if len(sel) == 0 || s.Views == "" {
		return nil, nil
	}
	ts, err := ParseViews(s.Views)
	if err != nil {
		return nil, err
	}
	out := ts[:0]
	for _, t := range ts {
		if sel.has(t.Name) {
			out = append(out, t)
		}
	}
	return out, nil
}

// hasViews reports whether s has a view sel selects (a view that does not parse counts:
// its renderer reports the error).
func hasViews(s *checker.TraceState, sel ViewSelection) bool {
	ts, err := selectViews(s, sel)
	return err != nil || len(ts) > 0
}

// writeStateViews prints the views of state i that opts.Views names, as aligned ASCII
// tables: in the first state, with the legend of each table's marks, and later only the
// tables that changed (all of them with opts.FullStates).
func writeStateViews(w io.Writer, t *checker.Trace, i int, opts TextOptions) error {
	ts, err := selectViews(&t.States[i], opts.Views)
	if err != nil {
		return fmt.Errorf("state %d: %w", i+1, err)
	}
	var prev []Table
	if i > 0 {
		if prev, err = selectViews(&t.States[i-1], opts.Views); err != nil {
			return fmt.Errorf("state %d: %w", i, err)
		}
	}
	for k := range ts {
		old := findTable(prev, ts[k].Name)
		if i > 0 && !opts.FullStates && old != nil && sameTable(old, &ts[k]) {
			continue
		}
		writeTextTable(w, &ts[k], old == nil)
	}
	return nil
}

func findTable(ts []Table, name string) *Table {
	for k := range ts {
		if ts[k].Name == name {
			return &ts[k]
		}
	}
	return nil
}

func sameTable(a, b *Table) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// cellText is a cell as text: its text, "*" for a highlight mark, " <name" for each tag.
func (t *Table) cellText(c Cell) string {
	var b strings.Builder
	b.WriteString(c.Text)
	var hl bool
	var tags []string
	for _, mk := range c.Marks {
		if m := t.mark(mk); m != nil && m.Style == MarkHighlight {
			hl = true
		} else {
			tags = append(tags, mk)
		}
	}
	if hl {
		b.WriteString("*")
	}
	if len(tags) > 0 {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		b.WriteString("<" + strings.Join(tags, ","))
	}
	return b.String()
}

// writeTextTable prints a table:
//
//	Logs
//	| offset | b1          | b2 (leader e2) |
//	|--------|-------------|----------------|
//	| 0      | e1:r1       | e1:r1 <hw      |
//	  hw: b1=1 b2=1
//	  * differs from ...
//
// with the legend of the table's marks (the lines "*: ..." and "<hw: ...") when legend.
func writeTextTable(w io.Writer, t *Table, legend bool) {
	grid := make([][]string, 0, len(t.Rows)+1)
	grid = append(grid, t.Columns)
	for _, row := range t.Rows {
		line := make([]string, len(row))
		for j, c := range row {
			line[j] = t.cellText(c)
		}
		grid = append(grid, line)
	}
	width := make([]int, len(t.Columns))
	for _, line := range grid {
		for j, s := range line {
			width[j] = max(width[j], utf8.RuneCountInString(s))
		}
	}
	title := t.Title
	if title == "" {
		title = t.Name
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s (view %s)\n", title, t.Name)
	for n, line := range grid {
		b.WriteString("|")
		for j, s := range line {
			b.WriteString(" " + s + strings.Repeat(" ", width[j]-utf8.RuneCountInString(s)) + " |")
		}
		b.WriteString("\n")
		if n == 0 {
			b.WriteString("|")
			for j := range line {
				b.WriteString(strings.Repeat("-", width[j]+2) + "|")
			}
			b.WriteString("\n")
		}
	}
	for _, n := range t.Notes {
		b.WriteString("  " + n + "\n")
	}
	for _, m := range t.Marks {
		if !legend {
			break
		}
		sym := "<" + m.Name
		if m.Style == MarkHighlight {
			sym = "*"
		}
		fmt.Fprintf(&b, "  %s: %s\n", sym, m.Doc)
	}
	w.Write(b.Bytes())
}

// ViewNames lists the names of the views the states of t have, in order of first
// appearance; a view that does not parse is left out (the renderers report it).
func ViewNames(t *checker.Trace) []string {
	var out []string
	for i := range t.States {
		ts, _ := ParseViews(t.States[i].Views)
		for _, tb := range ts {
			if !contains(out, tb.Name) {
				out = append(out, tb.Name)
			}
		}
	}
	return out
}

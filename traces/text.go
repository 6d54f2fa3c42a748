package traces

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"kmc/checker"
)

// TextOptions control Text.
type TextOptions struct {
	// FullStates prints every variable of every state, each on one line however long, as
	// TLC prints a trace (tools that parse TLC's output read it).
	//
	// By default the first state is printed in full and every later state only what
	// changed into it (TLC's -difftrace, down to the field), one conjunct per change, with
	// a path into the variable written as in TLA+ (f[k] for a function or a sequence,
	// indexes from 1; r.field for a record):
	//
	//	/\ log["b2"][2] = [epoch |-> 1, id |-> 2]              \* new value: entry, field, element
	//	/\ leaderState["b1"].followerLogEndOffset["b2"] = 1
	//	/\ leaderState["b1"].isr -= "b3"                        \* a set lost an element
	//	/\ messages += [type |-> "FetchRequest", from |-> "b2"]  \* a set gained one
	//	/\ log["b1"][2] removed                                 \* past a sequence's new end; a map key
	//
	// A sequence is compared index by index, except when it was emptied or filled from
	// empty or its elements moved up (a queue that took its head): then it prints whole, as
	// does a set emptied or filled from empty and a record whose field names changed. A
	// state with no change prints "(no variable changed)". Lines are wrapped at 100
	// columns, after a "," or "@@" at the shallowest nesting level that fits, continuation
	// lines hanging under the value (see wrapLine); a string or a number is never split, so
	// only a long one makes a line exceed 100 columns.
	FullStates bool
	// Views names the views (checker.Viewer tables) printed after a state's variables, in
	// the first state and wherever they changed (in every state with FullStates): nil for
	// none, ViewsAll for every one (ParseViewSelection reads a --view value).
	Views ViewSelection
}

// Text writes t as TLC prints an error trace:
//
//	State 1: <Initial predicate>
//	/\ x = 0
//	/\ y = {}
//
//	State 2: <Inc(1)>
//	/\ x = 1
//	/\ y += 1
//
// and, for a lasso, "Back to state L: <Action>" (the loop's back edge, as TLC prints it) or
// "State N+1: Stuttering" for a behaviour that stutters forever in its last state. See
// TextOptions for what a state prints.
func Text(w io.Writer, t *checker.Trace, opts TextOptions) error {
	if err := validTrace(t); err != nil {
		return fmt.Errorf("text: %w", err)
	}
	vw := &visibleWriter{w: w} // a trace's names and values may hold control characters
	bw := bufio.NewWriter(vw)
	for i, s := range t.States {
		if i == 0 {
			fmt.Fprintf(bw, "State 1: <Initial predicate>\n")
		} else {
			fmt.Fprintf(bw, "State %d: <%s>\n", i+1, s.Action)
		}
		switch {
		case opts.FullStates:
			for v, name := range t.Vars {
				fmt.Fprintf(bw, "/\\ %s = %s\n", name, Format(s.Values[v]))
			}
		case i == 0:
			for v, name := range t.Vars {
				writeWrapped(bw, "/\\ "+name+" = ", Format(s.Values[v]))
			}
		default:
			changes := varChanges(t, i, true)
			for _, c := range changes {
				if c.Op == "removed" {
					fmt.Fprintf(bw, "/\\ %s removed\n", c.Path)
					continue
				}
				writeWrapped(bw, "/\\ "+c.Path+" "+c.Op+" ", c.Val.String())
			}
			if len(changes) == 0 {
				fmt.Fprintln(bw, "(no variable changed)")
			}
		}
		if err := writeStateViews(bw, t, i, opts); err != nil {
			return fmt.Errorf("text: %w", err)
		}
		fmt.Fprintln(bw)
	}
	switch {
	case t.Stutter:
		fmt.Fprintf(bw, "State %d: Stuttering\n", len(t.States)+1)
	case t.Loop >= 0:
		fmt.Fprintf(bw, "Back to state %d: <%s>\n", t.Loop+1, t.BackAction)
	}
	writeWitness(bw, t.Witness, t.Stutter || t.Loop >= 0)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("text: %w", err)
	}
	if err := vw.Flush(); err != nil {
		return fmt.Errorf("text: %w", err)
	}
	return nil
}

// writeWrapped writes head and value wrapped at textWidth columns (see wrapLine).
func writeWrapped(w *bufio.Writer, head, value string) {
	for _, l := range wrapLine(head, value, textWidth) {
		w.WriteString(l)
		w.WriteByte('\n')
	}
}

// changed reports whether variable v differs between state i-1 and state i.
func changed(t *checker.Trace, i, v int) bool {
	return canon(t.States[i-1].Values[v]) != canon(t.States[i].Values[v])
}

// canon is the compact ITF JSON of a value, or the value itself when it does not parse.
func canon(itf string) string {
	v, err := ParseValue([]byte(itf))
	if err != nil {
		return itf
	}
	return string(v.AppendJSON(nil))
}

// changedVars lists the indexes of the variables that changed into state i (all of them
// for the initial state).
func changedVars(t *checker.Trace, i int) []int {
	var out []int
	for v := range t.Vars {
		if i == 0 || changed(t, i, v) {
			out = append(out, v)
		}
	}
	return out
}

// validTrace checks the invariants every renderer relies on:
//  1. there is at least one state;
//  2. every state has one value per variable;
//  3. Loop is -1 or the index of a state, and it is not set together with Stutter.
func validTrace(t *checker.Trace) error {
	if t == nil || len(t.States) == 0 {
		return fmt.Errorf("empty trace")
	}
	for i, s := range t.States {
		if len(s.Values) != len(t.Vars) {
			return fmt.Errorf("state %d: %d values for %d variables", i+1, len(s.Values), len(t.Vars))
		}
	}
	if t.Loop < -1 || t.Loop >= len(t.States) {
		return fmt.Errorf("loop %d outside the trace of %d states", t.Loop, len(t.States))
	}
	if t.Stutter && t.Loop >= 0 {
		return fmt.Errorf("a trace cannot both loop back and stutter")
	}
	return nil
}

// witnessWidth is the column at which the witness is wrapped.
const witnessWidth = 100

// writeWitness prints the witness after the trace, wrapped at witnessWidth columns between
// words, followed by a blank line (and preceded by one after a lasso's last line).
func writeWitness(w io.Writer, witness string, lasso bool) {
	if witness == "" {
		return
	}
	if lasso {
		fmt.Fprintln(w)
	}
	for _, line := range WrapWords("Why: "+witness, witnessWidth, "  ") {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
}

// WrapWords breaks s into lines of at most width runes between words (a word longer than
// width gets a line of its own); lines after the first start with indent, which counts
// towards their width.
func WrapWords(s string, width int, indent string) []string {
	var lines []string
	line, n := "", 0
	for _, word := range strings.Fields(s) {
		w := utf8.RuneCountInString(word)
		switch {
		case line == "":
			line, n = word, w
		case n+1+w <= width:
			line, n = line+" "+word, n+1+w
		default:
			lines = append(lines, line)
			line, n = indent+word, utf8.RuneCountInString(indent)+w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

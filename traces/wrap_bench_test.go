package traces

import (
	"io"
	"strconv"
	"strings"
	"testing"

	"kmc/checker"
)

// setOf is the ITF of the set of the n strings "element-lo" to "element-(lo+n-1)".
func setOf(lo, n int) string {
	var b strings.Builder
	b.WriteString(`{"#set":[`)
	for i := lo; i < lo+n; i++ {
		if i > lo {
			b.WriteByte(',')
		}
		b.WriteString(`"element-` + strconv.Itoa(i) + `"`)
	}
	b.WriteString(`]}`)
	return b.String()
}

// largeSetTrace is a trace of two states whose variable s is a set of n strings, filled from
// empty in the second state (so that the set prints whole, wrapped, in both renderings).
func largeSetTrace(n int) *checker.Trace {
	return &checker.Trace{Property: "P", Vars: []string{"s"}, Loop: -1, States: []checker.TraceState{
		{Values: []string{`{"#set":[]}`}},
		{Action: "Fill", Kind: "Fill", Values: []string{setOf(0, n)}},
	}}
}

// BenchmarkTextLargeSet prints a trace whose state holds a 100,000-element set: the text
// rendering, and its wrapping at 100 columns, are linear in the size of the trace.
// Reference: issue 26, defect 7 (60 s for this trace when wrapLine was quadratic).
func BenchmarkTextLargeSet(b *testing.B) {
	t := largeSetTrace(100_000)
	b.ReportAllocs()
	for b.Loop() {
		if err := Text(io.Discard, t, TextOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWrapLine wraps one line of a 100,000-element set at 100 columns.
func BenchmarkWrapLine(b *testing.B) {
	var v strings.Builder
	v.WriteByte('{')
	for i := range 100_000 {
		if i > 0 {
			v.WriteString(", ")
		}
		v.WriteString(`"element-` + strconv.Itoa(i) + `"`)
	}
	v.WriteByte('}')
	value := v.String()
	b.ReportAllocs()
	for b.Loop() {
		wrapLine(`/\ s = `, value, textWidth)
	}
}

// setTrace is a trace of two states whose set s of n strings loses one element and gains
// another: Text prints the two changes, found by comparing the sets.
func setTrace(n int) *checker.Trace {
	return &checker.Trace{Property: "P", Vars: []string{"s"}, Loop: -1, States: []checker.TraceState{
		{Values: []string{setOf(0, n)}},
		{Action: "Shift", Kind: "Shift", Values: []string{setOf(1, n)}},
	}}
}

// BenchmarkTextLargeSetDiff prints a trace whose 100,000-element set changes by one
// element added and one removed: the sets are compared in n log n (issue 26, defect 7:
// element by element against each other before).
func BenchmarkTextLargeSetDiff(b *testing.B) {
	t := setTrace(100_000)
	b.ReportAllocs()
	for b.Loop() {
		if err := Text(io.Discard, t, TextOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

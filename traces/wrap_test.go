package traces

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// Reference: issue 13 (text traces wrapped at 100 columns, never inside a string or a
// number, breaking at the top nesting level that fits).
func TestWrapLine(t *testing.T) {
	tests := []struct {
		name        string
		head, value string
		width       int
		want        []string
	}{
		{"fits", `/\ x = `, `1`, 100, []string{`/\ x = 1`}},
		{"fits exactly", `/\ s = `, `{"a", "b"}`, 17, []string{`/\ s = {"a", "b"}`}},
		{"set", `/\ s = `, `{"a", "b", "c"}`, 20, []string{
			`/\ s = {"a", "b",`,
			`       "c"}`}},
		{"top level first", `/\ r = `, `[a |-> 1, b |-> [c |-> 2, d |-> 3]]`, 32, []string{
			`/\ r = [a |-> 1,`,
			`       b |-> [c |-> 2, d |-> 3]]`}},
		{"deeper when the top level does not fit", `/\ r = `, `[a |-> [c |-> 2, d |-> 3, e |-> 4], b |-> 1]`, 30, []string{
			`/\ r = [a |-> [c |-> 2,`,
			`       d |-> 3, e |-> 4],`,
			`       b |-> 1]`}},
		{"map entries", `/\ m = `, `("b1" :> 1 @@ "b2" :> 2 @@ "b3" :> 3)`, 30, []string{
			`/\ m = ("b1" :> 1 @@`,
			`       "b2" :> 2 @@ "b3" :> 3)`}},
		{"sequence of tuples", `/\ q = `, `<<<<"p1", 1>>, <<"p2", 2>>>>`, 24, []string{
			`/\ q = <<<<"p1", 1>>,`,
			`       <<"p2", 2>>>>`}},
		{"not inside a string", `/\ s = `, `{"a, b, c, d, e, f", "g"}`, 20, []string{
			`/\ s = {"a, b, c, d, e, f",`,
			`       "g"}`}},
		{"escaped quote", `/\ s = `, `{"a\", b", "c"}`, 15, []string{
			`/\ s = {"a\", b",`,
			`       "c"}`}},
		{"long number", `/\ n = `, strings.Repeat("9", 120), 100, []string{`/\ n = ` + strings.Repeat("9", 120)}},
		{"long token then more", `/\ n = `, `<<` + strings.Repeat("7", 30) + `, 1>>`, 20, []string{
			`/\ n = <<` + strings.Repeat("7", 30) + `,`,
			`       1>>`}},
		{"long head", `/\ ` + strings.Repeat("h", 50) + ` = `, `{1, 2, 3}`, 60, []string{
			`/\ ` + strings.Repeat("h", 50) + ` = {1,`,
			`      2, 3}`}},
		{"runes count, not bytes", `/\ s = `, `{"é", "é", "é"}`, 17, []string{
			`/\ s = {"é", "é",`,
			`       "é"}`}},
		// Pathological inputs: nothing here panics, and the lines still join back.
		{"empty", ``, ``, 100, []string{``}},
		{"width zero", `/\ s = `, `{1, 2}`, 0, []string{`/\ s = {1,`, `       2}`}},
		{"width negative", ``, `1, 2`, -5, []string{`1,`, `2`}},
		{"unbalanced closers", ``, `]]>>}), a, b`, 6, []string{`]]>>}),`, `a, b`}},
		{"unbalanced openers", ``, `<<<<[{(a, b`, 8, []string{`<<<<[{(a,`, `b`}},
		{"unterminated string", ``, `{"a, b, c`, 4, []string{`{"a, b, c`}},
		{"trailing comma", ``, `a,`, 1, []string{`a,`}},
		{"separator first", ``, `, a`, 1, []string{`,`, `a`}},
		{"double space", ``, `a,  b`, 2, []string{`a,`, ` b`}},
		{"lone at-signs", ``, `@@ a @@b @@ c`, 6, []string{`@@ a @@b @@`, `c`}},
		{"single angle brackets", ``, `[a |-> 1, b :> 2]`, 10, []string{`[a |-> 1,`, `b :> 2]`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := wrapLine(tc.head, tc.value, tc.width)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("wrapLine(%q, %q, %d):\ngot:\n%s\nwant:\n%s", tc.head, tc.value, tc.width,
					strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			checkWrapped(t, tc.head, tc.value, got)
		})
	}
}

// checkWrapped checks the contract of wrapLine: the lines join back into head+value, and
// every line but the last ends at a separator.
func checkWrapped(t *testing.T, head, value string, lines []string) {
	t.Helper()
	indent := utf8.RuneCountInString(head)
	if indent > maxHangIndent {
		indent = fallbackIndent
	}
	pad := strings.Repeat(" ", indent)
	joined := lines[0]
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, pad) {
			t.Fatalf("continuation line %q does not start with %d spaces", l, indent)
		}
		joined += " " + strings.TrimPrefix(l, pad)
	}
	if joined != head+value {
		t.Fatalf("lines join to %q, want %q", joined, head+value)
	}
	for _, l := range lines[:len(lines)-1] {
		if !strings.HasSuffix(l, ",") && !strings.HasSuffix(l, "@@") {
			t.Fatalf("line %q ends at no separator", l)
		}
	}
}

// FuzzWrapLine: wrapLine scans arbitrary text for brackets and strings; it never panics,
// its lines join back into the input, and a line longer than width has no break point
// that would have kept it within width.
func FuzzWrapLine(f *testing.F) {
	f.Add(`/\ s = `, `{"a", "b", "c"}`, 20)
	f.Add(`/\ m = `, `("b1" :> [isr |-> {"b1", "b2"}, hw |-> 0] @@ "b2" :> <<>>)`, 30)
	f.Add(`/\ messages += `, `[type |-> "FetchRequest", from |-> "b2", to |-> "b1", currentLeaderEpoch |-> 1, fetchOffset |-> 0, lastFetchedEpoch |-> 0, replicaEpoch |-> 1]`, 100)
	f.Add(``, `"a\", b, <<c>>>, @@ @@ d`, 3)
	for _, name := range []string{"kafka-18723.itf.json", "kafka-5480.itf.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		tr, err := LoadITF(bytes.NewReader(data))
		if err != nil {
			f.Fatalf("%s: %v", name, err)
		}
		for v, vn := range tr.Vars {
			f.Add(`/\ `+vn+` = `, Format(tr.States[0].Values[v]), textWidth)
		}
	}
	f.Fuzz(func(t *testing.T, head, value string, width int) {
		lines := wrapLine(head, value, width)
		checkWrapped(t, head, value, lines)
		pad := utf8.RuneCountInString(head)
		if pad > maxHangIndent {
			pad = fallbackIndent
		}
		for i, l := range lines {
			if utf8.RuneCountInString(l) <= width {
				continue
			}
			seg := l[pad:]
			if i == 0 {
				seg = l[len(head):]
			}
			// A line breaks past width only when no break point inside it fits.
			if bps := breakPoints(seg); len(bps) > 0 {
				t.Fatalf("line %d %q is past width %d, yet could break at %d", i, l, width, bps[0].pos)
			}
		}
	})
}

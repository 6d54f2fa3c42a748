package traces

import (
	"strings"
	"testing"
)

// Reference: issue 6 (a node's label says what changed, readably): Diff descends into
// maps and records and lists set elements added and removed.
func TestDiff(t *testing.T) {
	tests := []struct {
		old, new string
		want     []string
	}{
		{bi("1"), bi("1"), nil},
		{bi("1"), bi("2"), []string{"v = 2"}},
		{`{"#set":["a","b"]}`, `{"#set":["b","a"]}`, nil},
		{`{"#set":["a","b"]}`, `{"#set":["c","a"]}`, []string{`v += "c"`, `v -= "b"`}},
		{`{"#map":[["x",` + bi("1") + `],["y",` + bi("2") + `]]}`, `{"#map":[["y",` + bi("3") + `],["x",` + bi("1") + `]]}`, []string{`v["y"] = 3`}},
		{`{"#map":[["x",` + bi("1") + `]]}`, `{"#map":[["z",` + bi("1") + `]]}`, []string{`v["x"] removed`, `v["z"] = 1`}},
		{`{"a":{"b":` + bi("1") + `,"c":true}}`, `{"a":{"b":` + bi("2") + `,"c":true}}`, []string{`v.a.b = 2`}},
		{`{"a":` + bi("1") + `}`, `{"b":` + bi("1") + `}`, []string{`v = [b |-> 1]`}},
		{`[` + bi("1") + `]`, `[` + bi("1") + `,` + bi("2") + `]`, []string{`v = <<1, 2>>`}},
		{`{"#set":[{"#set":["a","b"]}]}`, `{"#set":[{"#set":["b","a"]}]}`, nil},
	}
	for _, tc := range tests {
		o, err := ParseValue([]byte(tc.old))
		if err != nil {
			t.Fatal(err)
		}
		n, err := ParseValue([]byte(tc.new))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range Diff("v", o, n) {
			got = append(got, c.String())
		}
		if strings.Join(got, "; ") != strings.Join(tc.want, "; ") {
			t.Errorf("Diff(%s, %s): got %q, want %q", tc.old, tc.new, got, tc.want)
		}
	}
}

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

// Reference: issue 13 (the text trace prints changes down to the field). The text diff
// also descends into sequences by index, from 1 as in TLA+: a Kafka log that grows by a
// record prints that record alone, a truncation names the indexes it removed. A sequence
// emptied, filled from empty or moved up (a queue that took its head), and a set emptied
// or filled from empty, print whole. Diff, which labels the PNG and the HTML report,
// keeps printing sequences whole.
func TestDiffForText(t *testing.T) {
	rec := func(epoch, id string) string { return `{"epoch":` + bi(epoch) + `,"id":` + bi(id) + `}` }
	log := func(recs ...string) string { return `{"#map":[["b2",[` + strings.Join(recs, ",") + `]]]}` }
	tests := []struct {
		name, old, new string
		want           []string // diff(..., true)
		label          []string // Diff
	}{
		{"append", log(rec("1", "1")), log(rec("1", "1"), rec("1", "2")),
			[]string{`v["b2"][2] = [epoch |-> 1, id |-> 2]`},
			[]string{`v["b2"] = <<[epoch |-> 1, id |-> 1], [epoch |-> 1, id |-> 2]>>`}},
		{"truncate", log(rec("1", "1"), rec("1", "2"), rec("1", "3")), log(rec("1", "1")),
			[]string{`v["b2"][2] removed`, `v["b2"][3] removed`},
			[]string{`v["b2"] = <<[epoch |-> 1, id |-> 1]>>`}},
		{"truncate and append", log(rec("1", "1"), rec("1", "2"), rec("1", "3")), log(rec("1", "1"), rec("2", "4")),
			[]string{`v["b2"][2].epoch = 2`, `v["b2"][2].id = 4`, `v["b2"][3] removed`},
			[]string{`v["b2"] = <<[epoch |-> 1, id |-> 1], [epoch |-> 2, id |-> 4]>>`}},
		{"in place", log(rec("1", "1"), rec("1", "2")), log(rec("1", "1"), rec("2", "2")),
			[]string{`v["b2"][2].epoch = 2`},
			[]string{`v["b2"] = <<[epoch |-> 1, id |-> 1], [epoch |-> 2, id |-> 2]>>`}},
		{"emptied", log(rec("1", "1")), log(),
			[]string{`v["b2"] = <<>>`},
			[]string{`v["b2"] = <<>>`}},
		{"filled", log(), log(rec("1", "1")),
			[]string{`v["b2"] = <<[epoch |-> 1, id |-> 1]>>`},
			[]string{`v["b2"] = <<[epoch |-> 1, id |-> 1]>>`}},
		{"queue took its head", `["a","b","c"]`, `["b","c"]`,
			[]string{`v = <<"b", "c">>`},
			[]string{`v = <<"b", "c">>`}},
		{"queue moved up", `["a","b"]`, `["b","c"]`,
			[]string{`v = <<"b", "c">>`},
			[]string{`v = <<"b", "c">>`}},
		{"set emptied", `{"isr":{"#set":["b1","b2"]}}`, `{"isr":{"#set":[]}}`,
			[]string{`v.isr = {}`},
			[]string{`v.isr -= "b1"`, `v.isr -= "b2"`}},
		{"set filled", `{"#set":[]}`, `{"#set":["b1"]}`,
			[]string{`v = {"b1"}`},
			[]string{`v += "b1"`}},
		{"set element", `{"#set":["b1"]}`, `{"#set":["b1","b2"]}`,
			[]string{`v += "b2"`},
			[]string{`v += "b2"`}},
		{"tuple whole", `{"#tup":[` + bi("1") + `,` + bi("2") + `]}`, `{"#tup":[` + bi("1") + `,` + bi("3") + `]}`,
			[]string{`v = <<1, 3>>`},
			[]string{`v = <<1, 3>>`}},
		{"unchanged", log(rec("1", "1")), log(rec("1", "1")), nil, nil},
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
		for _, mode := range []struct {
			forText bool
			want    []string
		}{{true, tc.want}, {false, tc.label}} {
			var got []string
			for _, c := range diff("v", o, n, mode.forText) {
				got = append(got, c.String())
			}
			if strings.Join(got, "; ") != strings.Join(mode.want, "; ") {
				t.Errorf("%s: diff(forText=%v): got %q, want %q", tc.name, mode.forText, got, mode.want)
			}
		}
	}
}

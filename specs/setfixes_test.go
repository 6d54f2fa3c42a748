package specs

import (
	"strings"
	"testing"
)

// Reference: issue 13: --set can turn a fix on ("same bounds, with the fix").
func TestSetFixes(t *testing.T) {
	const src = `model = "kafka"
properties = ["NoPermanentDivergence"]
[[check]]
name = "buggy"
expect = "ok"
[[check]]
name = "other"
fixes = ["KAFKA-13077"]
expect = "ok"
`
	tests := []struct {
		sets []string
		want string // each check's fixes, joined by "|", or the error
	}{
		{nil, "|KAFKA-13077"},
		{[]string{"fixes=KAFKA-18723"}, "KAFKA-18723|KAFKA-18723"},
		{[]string{"fixes+=KAFKA-18723"}, "KAFKA-18723|KAFKA-13077,KAFKA-18723"},
		{[]string{"fixes+=KAFKA-13077"}, "KAFKA-13077|KAFKA-13077"},
		{[]string{"fixes=none"}, "|"},
		{[]string{"fixes=KAFKA-18723, KAFKA-13077"}, "KAFKA-18723,KAFKA-13077|KAFKA-18723,KAFKA-13077"},
		{[]string{"fixes+=KAFKA-1872"}, `--set:1:8: check[0].fixes: unknown switch "KAFKA-1872"`},
	}
	for _, tt := range tests {
		s, err := Parse("f.toml", []byte(src), tt.sets)
		got := ""
		if err != nil {
			got = strings.Split(err.Error(), ";")[0]
		} else {
			var parts []string
			for _, c := range s.Checks {
				parts = append(parts, strings.Join(c.Fixes, ","))
			}
			got = strings.Join(parts, "|")
		}
		if got != tt.want {
			t.Errorf("sets %q: got %q, want %q", tt.sets, got, tt.want)
		}
	}
}

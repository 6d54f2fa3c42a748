package specs

import (
	"strings"
	"testing"
)

// TestColumnsCountCharacters: a column counts characters (runes), as Go's text/scanner
// does, not bytes, in TOML syntax errors, in the positions of values and array elements,
// and in the nesting check; a syntax error at the start of a line is reported there.
// Reference: issue 26, defect 13 (a fullwidth "ｍodel" key at line 4 column 1 reported
// at column 33).
func TestColumnsCountCharacters(t *testing.T) {
	deep := strings.Repeat("[", MaxNesting+1) + "1" + strings.Repeat("]", MaxNesting+1)
	tests := []struct {
		name, src, want string
	}{
		{"fullwidth key at column 1", "# a line of comment, thirty-one\n# b\n# c\nｍodel = \"twophase\"\n",
			"s.toml:4:1: toml: expected '.' or '=', but got 'ｍ' instead"},
		{"syntax error after accents", "doc = \"ééé\nmodel = \"twophase\"\n",
			"s.toml:1:11: toml: strings cannot contain newlines"},
		{"array element after accents", "model = \"twophase\"\nproperties = [\"TCTypeOK\"]\n[[check]]\nname = \"a\"\nexpect = \"ok\"\nrobust = [\"é\", \"rms+0\"]\n",
			"s.toml:6:11: check[0].robust[0]: must be KEY+N or KEY-N with N >= 1, such as max_epoch+1 (got \"é\")\n" +
				"s.toml:6:16: check[0].robust[1]: must be KEY+N or KEY-N with N >= 1, such as max_epoch+1 (got \"rms+0\")"},
		{"nesting after accents", "x = [\"ééé\", " + deep + "]\n",
			"s.toml:1:" + itoa(12+MaxNesting) + ": nested deeper than 32 levels (inline tables, arrays or the parts of a dotted key)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("s.toml", []byte(tt.src), nil)
			if err == nil {
				t.Fatalf("Parse: got no error, want %s", tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

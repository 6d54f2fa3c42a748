package traces

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Reference: Apalache ADR-015 (ITF value forms); TLC's value printing.
func TestFormatValue(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`true`, `TRUE`},
		{`false`, `FALSE`},
		{`{"#bigint":"-007"}`, `-7`},
		{`{"#bigint":"-0"}`, `0`},
		{`12`, `12`},
		{`"a\"b"`, `"a\"b"`},
		{`[]`, `<<>>`},
		{`[{"#bigint":"1"},"x"]`, `<<1, "x">>`},
		{`{"#tup":[{"#bigint":"1"},true]}`, `<<1, TRUE>>`},
		{`{"#set":[{"#bigint":"10"},{"#bigint":"9"},{"#bigint":"-1"}]}`, `{-1, 9, 10}`},
		{`{"#set":["b","a"]}`, `{"a", "b"}`},
		{`{"#set":[]}`, `{}`},
		{`{"#map":[["b",{"#bigint":"2"}],["a",{"#bigint":"1"}]]}`, `("a" :> 1 @@ "b" :> 2)`},
		{`{"#map":[]}`, `<<>>`},
		{`{"z":{"#bigint":"1"},"a":{"#set":[]}}`, `[z |-> 1, a |-> {}]`},
		{`{}`, `[]`},
		{`{"#unserializable":"Nat"}`, `Nat`},
		{`{"tag":"Some","value":{"#bigint":"3"}}`, `[tag |-> "Some", value |-> 3]`},
	}
	for _, tc := range tests {
		if got := Format(tc.in); got != tc.want {
			t.Errorf("Format(%s): got %s, want %s", tc.in, got, tc.want)
		}
	}
}

// Reference: Apalache ADR-015; errors carry the JSON path inside the value.
func TestParseValueErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`null`, `$: null`},
		{`{"#bigint":"1x"}`, `$.#bigint: bad integer`},
		{`{"#bigint":1}`, `$.#bigint: want a string`},
		{`{"#set":[1,null]}`, `$.#set[1]: null`},
		{`{"#map":[[1]]}`, `$.#map[0]: want a [key, value] pair`},
		{`{"#set":[],"x":1}`, `#set must be the only key`},
		{`{"#foo":1}`, `unknown ITF form "#foo"`},
		{`{"a":1,"#set":[]}`, `starts with '#'`},
		{`{"a":1,"a":2}`, `duplicate field "a"`},
		{`{"a":[1,`, `$.a[1]: unexpected EOF`},
		{`1 2`, `unexpected data after the value`},
		{`1.5`, `bad integer`},
	}
	for _, tc := range tests {
		_, err := ParseValue([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseValue(%s): got error %v, want one containing %q", tc.in, err, tc.want)
		}
	}
}

// Reference: Apalache ADR-015: AppendJSON writes the canonical form that ParseValue reads.
func TestValueJSONRoundTrip(t *testing.T) {
	for _, in := range []string{
		`{"#bigint":"5"}`, `[true,"s"]`, `{"#tup":[]}`, `{"#set":[{"#bigint":"1"}]}`,
		`{"#map":[[{"#bigint":"1"},{"#set":[]}]]}`, `{"b":false,"a":"x"}`, `{"#unserializable":"Int"}`,
	} {
		v, err := ParseValue([]byte(in))
		if err != nil {
			t.Fatalf("ParseValue(%s): %v", in, err)
		}
		if got := string(v.AppendJSON(nil)); got != in {
			t.Errorf("AppendJSON(ParseValue(%s)): got %s, want %s", in, got, in)
		}
	}
}

// Reference: issue 11, defect 8 (replay compares ITF values canonically).
func TestCanonical(t *testing.T) {
	tests := []struct{ a, b string }{
		{`{"#set":[` + bi("2") + `,` + bi("10") + `,` + bi("1") + `]}`, `{"#set":[` + bi("1") + `,` + bi("2") + `,` + bi("10") + `,` + bi("2") + `]}`},
		{`{"#map":[["b",1],["a",{"#set":["y","x"]}]]}`, `{"#map":[["a",{"#set":["x","y"]}],["b",1]]}`},
		{`{"type":"Prepared","rm":"rm1"}`, `{"rm":"rm1","type":"Prepared"}`},
		{`{"#set":[{"type":"Commit"},{"rm":"rm2","type":"Prepared"},{"type":"Prepared","rm":"rm10"}]}`,
			`{"#set":[{"type":"Prepared","rm":"rm10"},{"type":"Commit"},{"type":"Prepared","rm":"rm2"}]}`},
	}
	for _, tt := range tests {
		a, b := string(AppendCanonical(nil, []byte(tt.a))), string(AppendCanonical(nil, []byte(tt.b)))
		if a != b {
			t.Errorf("canonical forms differ:\n%s\n%s", a, b)
		}
	}
	if got := string(AppendCanonical(nil, []byte(`[2,1]`))); got != `[`+bi("2")+`,`+bi("1")+`]` {
		t.Errorf("a sequence's order is kept: got %s", got)
	}
}

// FuzzParseFast: whatever the one-pass parser accepts, the parser by encoding/json's tokens
// parses to the same Value. Seeded from the values of the test traces.
func FuzzParseFast(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.itf.json"))
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		var file struct {
			States []map[string]json.RawMessage `json:"states"`
		}
		if err := json.Unmarshal(data, &file); err != nil {
			f.Fatal(err)
		}
		for _, st := range file.States {
			for _, raw := range st {
				f.Add([]byte(raw))
			}
		}
	}
	for _, s := range []string{`{"#bigint":"-007"}`, `-0`, `01`, `1.5`, `"a\"b"`, `{"a":1,"a":2}`, `{"#set":[]}`, `{"#map":[[1,2],[3]]}`, `[true, false ]`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ok := parseFast(data)
		if !ok {
			return
		}
		slow, err := parseTokens(data)
		if err != nil {
			t.Fatalf("%q: the one-pass parser accepts it, the token parser says %v", data, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: one pass %+v, tokens %+v", data, fast, slow)
		}
	})
}

// FuzzAppendJSONString: strings are written as json.Marshal writes them.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b", "<&>", "\u2028", "\xff", "é", "\x01", "tab\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

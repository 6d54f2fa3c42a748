package traces

import (
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

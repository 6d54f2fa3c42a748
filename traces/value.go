// Package traces renders kmc counterexamples (checker.Trace) for people and tools: TLC-style
// text, ITF JSON (Apalache ADR-015), DOT, SVG and PNG, a message sequence chart and a
// self-contained HTML report; and it loads ITF traces back. It knows no Kafka: it renders
// variables by name and the events (messages between named actors) the model describes.
package traces

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ValueKind is the kind of an ITF value.
type ValueKind int

// ITF value kinds (ADR-015).
const (
	BoolValue           ValueKind = iota // true, false
	IntValue                             // {"#bigint": "-12"} (or a plain JSON number, pre-2023 ITF)
	StringValue                          // "abc"
	SeqValue                             // [v, ...]
	TupleValue                           // {"#tup": [v, ...]}
	SetValue                             // {"#set": [v, ...]}
	MapValue                             // {"#map": [[k, v], ...]}
	RecordValue                          // {"f": v, ...}, fields in the order written
	UnserializableValue                  // {"#unserializable": "..."}
)

// Value is a parsed ITF value. Invariants:
//  1. Int holds a decimal integer: an optional '-' then digits, no leading zeros.
//  2. For SeqValue, TupleValue and SetValue, Elems are the elements in the order written.
//  3. For MapValue, Keys[i] maps to Elems[i]; len(Keys) == len(Elems).
//  4. For RecordValue, Fields[i] names Elems[i]; field names do not start with '#'.
type Value struct {
	Kind   ValueKind
	Bool   bool
	Int    string
	Str    string
	Elems  []Value
	Keys   []Value
	Fields []string
}

// ParseValue parses one ITF JSON value. Errors name the JSON path inside the value
// ("$.#set[2]").
func ParseValue(data []byte) (Value, error) {
	if v, ok := parseFast(data); ok {
		return v, nil
	}
	return parseTokens(data)
}

// parseTokens is ParseValue by encoding/json's tokens: every input, and the path of its
// first error.
func parseTokens(data []byte) (Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec, "$")
	if err != nil {
		return Value{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return Value{}, fmt.Errorf("$: unexpected data after the value")
	}
	return v, nil
}

func parseValue(dec *json.Decoder, path string) (Value, error) {
	tok, err := dec.Token()
	if err != nil {
		return Value{}, fmt.Errorf("%s: %w", path, jsonErr(err))
	}
	return parseFrom(dec, tok, path)
}

func jsonErr(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func parseFrom(dec *json.Decoder, tok json.Token, path string) (Value, error) {
	switch t := tok.(type) {
	case bool:
		return Value{Kind: BoolValue, Bool: t}, nil
	case string:
		return Value{Kind: StringValue, Str: t}, nil
	case json.Number:
		s, err := normInt(t.String())
		if err != nil {
			return Value{}, fmt.Errorf("%s: %w", path, err)
		}
		return Value{Kind: IntValue, Int: s}, nil
	case nil:
		return Value{}, fmt.Errorf("%s: null is not an ITF value", path)
	case json.Delim:
		switch t {
		case '[':
			elems, err := parseArray(dec, path)
			if err != nil {
				return Value{}, err
			}
			return Value{Kind: SeqValue, Elems: elems}, nil
		case '{':
			return parseObject(dec, path)
		}
	}
	return Value{}, fmt.Errorf("%s: unexpected %v", path, tok)
}

func parseArray(dec *json.Decoder, path string) ([]Value, error) {
	var elems []Value
	for i := 0; ; i++ {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", path, i, jsonErr(err))
		}
		if d, ok := tok.(json.Delim); ok && d == ']' {
			return elems, nil
		}
		v, err := parseFrom(dec, tok, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		elems = append(elems, v)
	}
}

// expectArray reads an array value that must follow a "#set"/"#tup"/"#map" key.
func expectArray(dec *json.Decoder, path string) ([]Value, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, jsonErr(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("%s: want an array", path)
	}
	return parseArray(dec, path)
}

func expectString(dec *json.Decoder, path string) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, jsonErr(err))
	}
	s, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("%s: want a string", path)
	}
	return s, nil
}

func expectEnd(dec *json.Decoder, path, key string) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("%s: %w", path, jsonErr(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '}' {
		return fmt.Errorf("%s: %s must be the only key of its object", path, key)
	}
	return nil
}

func parseObject(dec *json.Decoder, path string) (Value, error) {
	rec := Value{Kind: RecordValue}
	for i := 0; ; i++ {
		tok, err := dec.Token()
		if err != nil {
			return Value{}, fmt.Errorf("%s: %w", path, jsonErr(err))
		}
		if d, ok := tok.(json.Delim); ok && d == '}' {
			return rec, nil
		}
		key, _ := tok.(string)
		if i == 0 && strings.HasPrefix(key, "#") {
			p := path + "." + key
			var v Value
			switch key {
			case "#bigint":
				s, err := expectString(dec, p)
				if err != nil {
					return Value{}, err
				}
				n, err := normInt(s)
				if err != nil {
					return Value{}, fmt.Errorf("%s: %w", p, err)
				}
				v = Value{Kind: IntValue, Int: n}
			case "#unserializable":
				s, err := expectString(dec, p)
				if err != nil {
					return Value{}, err
				}
				v = Value{Kind: UnserializableValue, Str: s}
			case "#set", "#tup":
				elems, err := expectArray(dec, p)
				if err != nil {
					return Value{}, err
				}
				v = Value{Kind: SetValue, Elems: elems}
				if key == "#tup" {
					v.Kind = TupleValue
				}
			case "#map":
				pairs, err := expectArray(dec, p)
				if err != nil {
					return Value{}, err
				}
				v = Value{Kind: MapValue}
				for j, pr := range pairs {
					if pr.Kind != SeqValue || len(pr.Elems) != 2 {
						return Value{}, fmt.Errorf("%s[%d]: want a [key, value] pair", p, j)
					}
					v.Keys = append(v.Keys, pr.Elems[0])
					v.Elems = append(v.Elems, pr.Elems[1])
				}
			default:
				return Value{}, fmt.Errorf("%s: unknown ITF form %q", path, key)
			}
			if err := expectEnd(dec, path, key); err != nil {
				return Value{}, err
			}
			return v, nil
		}
		if strings.HasPrefix(key, "#") {
			return Value{}, fmt.Errorf("%s: record field %q starts with '#'", path, key)
		}
		for _, f := range rec.Fields {
			if f == key {
				return Value{}, fmt.Errorf("%s: duplicate field %q", path, key)
			}
		}
		v, err := parseValue(dec, path+"."+key)
		if err != nil {
			return Value{}, err
		}
		rec.Fields = append(rec.Fields, key)
		rec.Elems = append(rec.Elems, v)
	}
}

// normInt checks a decimal integer and strips leading zeros and "-0".
func normInt(s string) (string, error) {
	neg := strings.HasPrefix(s, "-")
	d := strings.TrimPrefix(s, "-")
	if d == "" {
		return "", fmt.Errorf("bad integer %q", s)
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return "", fmt.Errorf("bad integer %q", s)
		}
	}
	d = strings.TrimLeft(d, "0")
	if d == "" {
		return "0", nil
	}
	if neg {
		return "-" + d, nil
	}
	return d, nil
}

// String prints v TLC-style: integers plain, strings quoted, <<a, b>> for sequences and
// tuples, {a, b} for sets (sorted), [f |-> v] for records (in field order) and
// (k :> v @@ ...) for maps (sorted by key).
func (v Value) String() string {
	var b strings.Builder
	v.write(&b)
	return b.String()
}

func (v Value) write(b *strings.Builder) {
	switch v.Kind {
	case BoolValue:
		if v.Bool {
			b.WriteString("TRUE")
		} else {
			b.WriteString("FALSE")
		}
	case IntValue:
		b.WriteString(v.Int)
	case StringValue:
		b.WriteString(strconv.Quote(v.Str))
	case UnserializableValue:
		b.WriteString(v.Str)
	case SeqValue, TupleValue:
		b.WriteString("<<")
		for i, e := range v.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b)
		}
		b.WriteString(">>")
	case SetValue:
		b.WriteString("{")
		for i, e := range sortedElems(v.Elems) {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b)
		}
		b.WriteString("}")
	case RecordValue:
		b.WriteString("[")
		for i, f := range v.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f)
			b.WriteString(" |-> ")
			v.Elems[i].write(b)
		}
		b.WriteString("]")
	case MapValue:
		if len(v.Keys) == 0 {
			b.WriteString("<<>>")
			return
		}
		idx := make([]int, len(v.Keys))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(i, j int) bool { return Compare(v.Keys[idx[i]], v.Keys[idx[j]]) < 0 })
		b.WriteString("(")
		for n, i := range idx {
			if n > 0 {
				b.WriteString(" @@ ")
			}
			v.Keys[i].write(b)
			b.WriteString(" :> ")
			v.Elems[i].write(b)
		}
		b.WriteString(")")
	}
}

// sortedElems is elems sorted (Compare), a sorted copy unless they are in order already.
func sortedElems(elems []Value) []Value {
	if inOrder(elems) {
		return elems
	}
	out := append([]Value(nil), elems...)
	slices.SortStableFunc(out, Compare)
	return out
}

// inOrder reports whether elems are sorted (Compare), as a model writes its sets.
func inOrder(elems []Value) bool {
	for i := 1; i < len(elems); i++ {
		if Compare(elems[i-1], elems[i]) > 0 {
			return false
		}
	}
	return true
}

// Compare orders values: by kind, then integers numerically, strings and booleans
// naturally, composite values element by element. It is the order of printed sets.
func Compare(a, b Value) int {
	if a.Kind != b.Kind {
		return int(a.Kind) - int(b.Kind)
	}
	switch a.Kind {
	case BoolValue:
		switch {
		case a.Bool == b.Bool:
			return 0
		case !a.Bool:
			return -1
		default:
			return 1
		}
	case IntValue:
		return compareInt(a.Int, b.Int)
	case StringValue, UnserializableValue:
		return strings.Compare(a.Str, b.Str)
	case RecordValue:
		for i := 0; i < len(a.Fields) && i < len(b.Fields); i++ {
			if c := strings.Compare(a.Fields[i], b.Fields[i]); c != 0 {
				return c
			}
		}
	case MapValue:
		if c := compareList(a.Keys, b.Keys); c != 0 {
			return c
		}
	}
	return compareList(a.Elems, b.Elems)
}

func compareList(a, b []Value) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

func compareInt(a, b string) int {
	an, bn := strings.HasPrefix(a, "-"), strings.HasPrefix(b, "-")
	switch {
	case an && !bn:
		return -1
	case !an && bn:
		return 1
	}
	da, db := strings.TrimPrefix(a, "-"), strings.TrimPrefix(b, "-")
	c := len(da) - len(db)
	if c == 0 {
		c = strings.Compare(da, db)
	}
	if an {
		return -c
	}
	return c
}

// AppendJSON appends v as compact ITF JSON (integers as #bigint, records with fields in
// order).
func (v Value) AppendJSON(buf []byte) []byte {
	switch v.Kind {
	case BoolValue:
		return strconv.AppendBool(buf, v.Bool)
	case IntValue:
		buf = append(buf, `{"#bigint":"`...)
		buf = append(buf, v.Int...)
		return append(buf, `"}`...)
	case StringValue:
		return appendJSONString(buf, v.Str)
	case UnserializableValue:
		buf = append(buf, `{"#unserializable":`...)
		buf = appendJSONString(buf, v.Str)
		return append(buf, '}')
	case SeqValue:
		return appendList(buf, v.Elems)
	case TupleValue:
		buf = append(buf, `{"#tup":`...)
		return append(appendList(buf, v.Elems), '}')
	case SetValue:
		buf = append(buf, `{"#set":`...)
		return append(appendList(buf, v.Elems), '}')
	case MapValue:
		buf = append(buf, `{"#map":[`...)
		for i := range v.Keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, '[')
			buf = v.Keys[i].AppendJSON(buf)
			buf = append(buf, ',')
			buf = v.Elems[i].AppendJSON(buf)
			buf = append(buf, ']')
		}
		return append(buf, "]}"...)
	case RecordValue:
		buf = append(buf, '{')
		for i, f := range v.Fields {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendJSONString(buf, f)
			buf = append(buf, ':')
			buf = v.Elems[i].AppendJSON(buf)
		}
		return append(buf, '}')
	}
	return buf
}

func appendList(buf []byte, elems []Value) []byte {
	buf = append(buf, '[')
	for i, e := range elems {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = e.AppendJSON(buf)
	}
	return append(buf, ']')
}

// appendJSONString appends s as json.Marshal writes it: as it is, quoted, when it holds
// nothing Marshal escapes (quotes, backslashes, control and HTML characters, U+2028,
// U+2029, invalid UTF-8), and otherwise as Marshal writes it.
func appendJSONString(buf []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return appendMarshalled(buf, s)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r == '\u2028' || r == '\u2029' {
			return appendMarshalled(buf, s)
		}
		i += n
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}

func appendMarshalled(buf []byte, s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return append(buf, b...)
}

// Format prints one ITF JSON value TLC-style, or the raw text marked as unparsable when it
// is not valid ITF (renderers never fail on a bad value; LoadITF rejects them).
func Format(itf string) string {
	v, err := ParseValue([]byte(itf))
	if err != nil {
		return "?" + itf
	}
	return v.String()
}

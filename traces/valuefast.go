package traces

import (
	"unicode/utf8"
)

// parseFast parses data as ParseValue does, in one pass over the bytes, for the common
// case: strings without escapes, integers, no null. It reports false for anything else
// and for any input that is not valid, and ParseValue's own parser (encoding/json's
// tokens) then decides and names the error. Whatever parseFast accepts, that parser
// parses to the same Value (FuzzParseFast checks it); it is some twenty times faster and
// allocates only the Value.
func parseFast(data []byte) (Value, bool) {
	p := fastParser{data: data}
	v, ok := p.value()
	if !ok {
		return Value{}, false
	}
	p.space()
	return v, p.i == len(p.data)
}

type fastParser struct {
	data []byte
	i    int
}

func (p *fastParser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte, or 0 at the end.
func (p *fastParser) peek() byte {
	p.space()
	if p.i >= len(p.data) {
		return 0
	}
	return p.data[p.i]
}

// eat consumes c, the next byte after white space, if it is there.
func (p *fastParser) eat(c byte) bool {
	if p.peek() != c {
		return false
	}
	p.i++
	return true
}

// str reads a string without escapes, of valid UTF-8 and no control characters.
func (p *fastParser) str() (string, bool) {
	if !p.eat('"') {
		return "", false
	}
	start := p.i
	for p.i < len(p.data) {
		switch c := p.data[p.i]; {
		case c == '"':
			s := p.data[start:p.i]
			p.i++
			return string(s), utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return "", false
		}
		p.i++
	}
	return "", false
}

// integer reads a JSON number that is an integer: -?(0|[1-9][0-9]*).
func (p *fastParser) integer() (string, bool) {
	start := p.i
	if p.i < len(p.data) && p.data[p.i] == '-' {
		p.i++
	}
	digits := p.i
	for p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
		p.i++
	}
	switch {
	case p.i == digits, p.data[digits] == '0' && p.i > digits+1:
		return "", false
	case p.i < len(p.data):
		if c := p.data[p.i]; c == '.' || c == 'e' || c == 'E' {
			return "", false
		}
	}
	n, err := normInt(string(p.data[start:p.i]))
	return n, err == nil
}

func (p *fastParser) literal(word string, v bool) (Value, bool) {
	if len(p.data)-p.i < len(word) || string(p.data[p.i:p.i+len(word)]) != word {
		return Value{}, false
	}
	p.i += len(word)
	return Value{Kind: BoolValue, Bool: v}, true
}

func (p *fastParser) value() (Value, bool) {
	switch c := p.peek(); {
	case c == '"':
		s, ok := p.str()
		return Value{Kind: StringValue, Str: s}, ok
	case c == 't':
		return p.literal("true", true)
	case c == 'f':
		return p.literal("false", false)
	case c == '-' || c >= '0' && c <= '9':
		n, ok := p.integer()
		return Value{Kind: IntValue, Int: n}, ok
	case c == '[':
		elems, ok := p.array()
		return Value{Kind: SeqValue, Elems: elems}, ok
	case c == '{':
		return p.object()
	}
	return Value{}, false
}

// array reads [v, ...]; an empty one is nil, as parseArray makes it.
func (p *fastParser) array() ([]Value, bool) {
	if !p.eat('[') {
		return nil, false
	}
	var elems []Value
	if p.eat(']') {
		return elems, true
	}
	elems = make([]Value, 0, p.count())
	for {
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		elems = append(elems, v)
		if p.eat(']') {
			return elems, true
		}
		if !p.eat(',') {
			return nil, false
		}
	}
}

// count is the number of elements of the array whose '[' was just read: its commas
// outside strings and nested brackets, plus one. Only a capacity: on input that is not
// valid it may be wrong.
func (p *fastParser) count() int {
	n, depth := 1, 0
	for i := p.i; i < len(p.data); i++ {
		switch p.data[i] {
		case '"':
			for i++; i < len(p.data) && p.data[i] != '"'; i++ {
				if p.data[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			depth++
		case ']', '}':
			if depth == 0 {
				return n
			}
			depth--
		case ',':
			if depth == 0 {
				n++
			}
		}
	}
	return n
}

// object reads a record or one of the ITF forms, as parseObject does.
func (p *fastParser) object() (Value, bool) {
	p.eat('{')
	rec := Value{Kind: RecordValue}
	if p.eat('}') {
		return rec, true
	}
	for i := 0; ; i++ {
		key, ok := p.str()
		if !ok || !p.eat(':') {
			return Value{}, false
		}
		if len(key) > 0 && key[0] == '#' {
			if i > 0 {
				return Value{}, false
			}
			v, ok := p.form(key)
			if !ok || !p.eat('}') {
				return Value{}, false
			}
			return v, true
		}
		for _, f := range rec.Fields {
			if f == key {
				return Value{}, false
			}
		}
		v, ok := p.value()
		if !ok {
			return Value{}, false
		}
		rec.Fields = append(rec.Fields, key)
		rec.Elems = append(rec.Elems, v)
		if p.eat('}') {
			return rec, true
		}
		if !p.eat(',') {
			return Value{}, false
		}
	}
}

// form reads the value of the ITF form key ("#bigint", "#set", ...).
func (p *fastParser) form(key string) (Value, bool) {
	switch key {
	case "#bigint":
		s, ok := p.str()
		if !ok {
			return Value{}, false
		}
		n, err := normInt(s)
		return Value{Kind: IntValue, Int: n}, err == nil
	case "#unserializable":
		s, ok := p.str()
		return Value{Kind: UnserializableValue, Str: s}, ok
	case "#set", "#tup":
		elems, ok := p.array()
		kind := SetValue
		if key == "#tup" {
			kind = TupleValue
		}
		return Value{Kind: kind, Elems: elems}, ok
	case "#map":
		pairs, ok := p.array()
		if !ok {
			return Value{}, false
		}
		v := Value{Kind: MapValue}
		for _, pr := range pairs {
			if pr.Kind != SeqValue || len(pr.Elems) != 2 {
				return Value{}, false
			}
			v.Keys = append(v.Keys, pr.Elems[0])
			v.Elems = append(v.Elems, pr.Elems[1])
		}
		return v, true
	}
	return Value{}, false
}

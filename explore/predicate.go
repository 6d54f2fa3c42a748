package explore

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode"

	"kmc/specs"
	"kmc/traces"
)

// Compiler compiles the predicate of a "find a state" search: src over the variables vars
// (in the model's order) into a function of a state's values (value(v) is the ITF JSON of
// variable v). It must be safe for concurrent use, as the search's workers call it at once;
// errors name the column. ParsePredicate is the default; an expression language (issue
// 28) plugs in as another Compiler in Options.
type Compiler func(src string, vars []string) (func(value func(v int) []byte) bool, error)

// PredicateHelp says what ParsePredicate reads, for the page.
const PredicateHelp = `clauses joined by &&, each OPERAND [OP OPERAND]: OP is == != < <= > >= or contains; ` +
	`an OPERAND is a variable with selectors (v["key"], v[2] from 1, v.field), len(...) of one, a number, ` +
	`a "string", true or false`

// ParsePredicate compiles the simple predicate language PredicateHelp describes. A
// selector that does not apply to a state's value (a missing key, an index past the end)
// makes its clause false there.
func ParsePredicate(src string, vars []string) (func(value func(v int) []byte) bool, error) {
	if len(src) > MaxPredicateBytes {
		return nil, fmt.Errorf("predicate: too long (%d bytes; at most %d)", len(src), MaxPredicateBytes)
	}
	p := &predParser{src: src, vars: vars}
	p.next()
	var clauses []clause
	for {
		c, err := p.clause()
		if err != nil {
			return nil, err
		}
		clauses = append(clauses, c)
		if p.tok.kind == tokEOF {
			break
		}
		if p.tok.text != "&&" {
			return nil, p.errorf("want && or the end (got %q)", p.tok.text)
		}
		p.next()
	}
	return func(value func(v int) []byte) bool {
		for _, c := range clauses {
			if !c.holds(value) {
				return false
			}
		}
		return true
	}, nil
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokIdent
	tokNumber
	tokString
	tokPunct
)

type token struct {
	kind tokKind
	text string
	col  int
}

type predParser struct {
	src  string
	pos  int
	tok  token
	err  error
	vars []string
}

func (p *predParser) errorf(format string, args ...any) error {
	if p.err != nil {
		return p.err
	}
	return fmt.Errorf("predicate: column %d: %s", p.tok.col, fmt.Sprintf(format, args...))
}

// next reads the next token into p.tok.
func (p *predParser) next() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n') {
		p.pos++
	}
	start := p.pos
	p.tok = token{col: start + 1}
	if p.pos >= len(p.src) {
		return
	}
	c := p.src[p.pos]
	switch {
	case c == '_' || unicode.IsLetter(rune(c)):
		for p.pos < len(p.src) && (p.src[p.pos] == '_' || unicode.IsLetter(rune(p.src[p.pos])) || unicode.IsDigit(rune(p.src[p.pos]))) {
			p.pos++
		}
		p.tok.kind = tokIdent
	case c == '-' || (c >= '0' && c <= '9'):
		p.pos++
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
		}
		p.tok.kind = tokNumber
	case c == '"':
		p.pos++
		for p.pos < len(p.src) && p.src[p.pos] != '"' {
			if p.src[p.pos] == '\\' {
				p.pos++
			}
			p.pos++
		}
		if p.pos >= len(p.src) {
			p.err = fmt.Errorf("predicate: column %d: string not closed", start+1)
			p.tok.kind, p.tok.text = tokEOF, ""
			return
		}
		p.pos++
		p.tok.kind = tokString
	default:
		p.tok.kind = tokPunct
		for _, op := range []string{"&&", "==", "!=", "<=", ">=", "<", ">", "[", "]", "(", ")", "."} {
			if strings.HasPrefix(p.src[p.pos:], op) {
				p.pos += len(op)
				p.tok.text = op
				return
			}
		}
		p.pos++
	}
	p.tok.text = p.src[start:p.pos]
}

// operand is a variable with selectors (optionally its len) or a literal.
type operand struct {
	v     int // variable index, or -1 for a literal
	sel   []traces.Value
	field []bool // sel[i] came from .name (a record field or a string key)
	len   bool
	lit   traces.Value
}

type clause struct {
	l, r operand
	op   string // "" for a lone boolean operand
}

var ops = []string{"==", "!=", "<", "<=", ">", ">=", "contains"}

func (p *predParser) clause() (clause, error) {
	l, err := p.operand()
	if err != nil {
		return clause{}, err
	}
	if p.tok.kind == tokEOF || p.tok.text == "&&" {
		return clause{l: l}, nil
	}
	op := p.tok.text
	found := false
	for _, o := range ops {
		found = found || o == op
	}
	if !found {
		return clause{}, p.errorf("want a comparison (%s) (got %q)", strings.Join(ops, " "), op)
	}
	p.next()
	r, err := p.operand()
	if err != nil {
		return clause{}, err
	}
	return clause{l: l, r: r, op: op}, nil
}

func (p *predParser) operand() (operand, error) {
	if p.err != nil {
		return operand{}, p.err
	}
	t := p.tok
	switch t.kind {
	case tokNumber:
		p.next()
		lit, err := intValue(t.text)
		if err != nil {
			return operand{}, fmt.Errorf("predicate: column %d: %q is not a number", t.col, t.text)
		}
		return operand{v: -1, lit: lit}, nil
	case tokString:
		p.next()
		s, err := strconv.Unquote(t.text)
		if err != nil {
			return operand{}, fmt.Errorf("predicate: column %d: bad string %s", t.col, t.text)
		}
		return operand{v: -1, lit: traces.Value{Kind: traces.StringValue, Str: s}}, nil
	case tokIdent:
		switch t.text {
		case "true", "false", "TRUE", "FALSE":
			p.next()
			return operand{v: -1, lit: traces.Value{Kind: traces.BoolValue, Bool: strings.EqualFold(t.text, "true")}}, nil
		case "len", "Len", "Cardinality":
			p.next()
			if p.tok.text != "(" {
				return operand{}, p.errorf("want ( after %s", t.text)
			}
			p.next()
			o, err := p.operand()
			if err != nil {
				return operand{}, err
			}
			if o.v < 0 || o.len {
				return operand{}, fmt.Errorf("predicate: column %d: %s takes a variable", t.col, t.text)
			}
			if p.tok.text != ")" {
				return operand{}, p.errorf("want ) (got %q)", p.tok.text)
			}
			p.next()
			o.len = true
			return o, nil
		}
		v := -1
		for i, name := range p.vars {
			if name == t.text {
				v = i
			}
		}
		if v < 0 {
			return operand{}, fmt.Errorf("predicate: column %d: unknown variable %q%s", t.col, t.text, specs.DidYouMean(t.text, p.vars))
		}
		p.next()
		o := operand{v: v}
		for p.err == nil && (p.tok.text == "[" || p.tok.text == ".") {
			if p.tok.text == "." {
				p.next()
				if p.tok.kind != tokIdent {
					return operand{}, p.errorf("want a field name after . (got %q)", p.tok.text)
				}
				o.sel = append(o.sel, traces.Value{Kind: traces.StringValue, Str: p.tok.text})
				o.field = append(o.field, true)
				p.next()
				continue
			}
			p.next()
			k, err := p.operand()
			if err != nil {
				return operand{}, err
			}
			if k.v >= 0 {
				return operand{}, p.errorf("a selector takes a number or a string")
			}
			if p.tok.text != "]" {
				return operand{}, p.errorf("want ] (got %q)", p.tok.text)
			}
			p.next()
			o.sel = append(o.sel, k.lit)
			o.field = append(o.field, false)
		}
		return o, p.err
	case tokEOF:
		if p.err != nil {
			return operand{}, p.err
		}
		return operand{}, p.errorf("want a variable, a number, a string, true or false (got the end)")
	}
	return operand{}, p.errorf("want a variable, a number, a string, true or false (got %q)", t.text)
}

func intValue(s string) (traces.Value, error) {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return traces.Value{}, fmt.Errorf("not a number")
	}
	return traces.Value{Kind: traces.IntValue, Int: n.String()}, nil
}

// eval is the operand's value in a state, or false when a selector does not apply.
func (o *operand) eval(value func(v int) []byte) (traces.Value, bool) {
	if o.v < 0 {
		return o.lit, true
	}
	x, err := traces.ParseValue(value(o.v))
	if err != nil {
		return traces.Value{}, false
	}
	for i, k := range o.sel {
		var ok bool
		if x, ok = selectValue(x, k, o.field[i]); !ok {
			return traces.Value{}, false
		}
	}
	if o.len {
		switch x.Kind {
		case traces.SeqValue, traces.SetValue, traces.TupleValue, traces.MapValue:
			return traces.Value{Kind: traces.IntValue, Int: strconv.Itoa(len(x.Elems))}, true
		case traces.StringValue:
			return traces.Value{Kind: traces.IntValue, Int: strconv.Itoa(len(x.Str))}, true
		}
		return traces.Value{}, false
	}
	return x, true
}

// selectValue is x[k] (a map's entry, a sequence's or tuple's element from 1) or x.k (a
// record's field, or a map's entry under the string k).
func selectValue(x, k traces.Value, field bool) (traces.Value, bool) {
	switch x.Kind {
	case traces.RecordValue:
		if k.Kind != traces.StringValue {
			return traces.Value{}, false
		}
		for i, f := range x.Fields {
			if f == k.Str {
				return x.Elems[i], true
			}
		}
	case traces.MapValue:
		for i, key := range x.Keys {
			if same(key, k) || (field && key.Kind == traces.IntValue && key.Int == k.Str) {
				return x.Elems[i], true
			}
		}
	case traces.SeqValue, traces.TupleValue:
		if k.Kind != traces.IntValue {
			return traces.Value{}, false
		}
		i, err := strconv.Atoi(k.Int)
		if err == nil && i >= 1 && i <= len(x.Elems) {
			return x.Elems[i-1], true
		}
	}
	return traces.Value{}, false
}

// same is value equality, sets and maps regardless of the order written.
func same(a, b traces.Value) bool {
	return string(a.Canonical().AppendJSON(nil)) == string(b.Canonical().AppendJSON(nil))
}

func (c *clause) holds(value func(v int) []byte) bool {
	l, ok := c.l.eval(value)
	if !ok {
		return false
	}
	if c.op == "" {
		return l.Kind == traces.BoolValue && l.Bool
	}
	r, ok := c.r.eval(value)
	if !ok {
		return false
	}
	switch c.op {
	case "==":
		return same(l, r)
	case "!=":
		return !same(l, r)
	case "contains":
		switch l.Kind {
		case traces.SetValue, traces.SeqValue, traces.TupleValue:
			for _, e := range l.Elems {
				if same(e, r) {
					return true
				}
			}
		case traces.MapValue:
			for _, k := range l.Keys {
				if same(k, r) {
					return true
				}
			}
		case traces.StringValue:
			return r.Kind == traces.StringValue && strings.Contains(l.Str, r.Str)
		}
		return false
	}
	var cmp int
	switch {
	case l.Kind == traces.IntValue && r.Kind == traces.IntValue:
		a, _ := new(big.Int).SetString(l.Int, 10)
		b, _ := new(big.Int).SetString(r.Int, 10)
		cmp = a.Cmp(b)
	case l.Kind == traces.StringValue && r.Kind == traces.StringValue:
		cmp = strings.Compare(l.Str, r.Str)
	default:
		return false
	}
	switch c.op {
	case "<":
		return cmp < 0
	case "<=":
		return cmp <= 0
	case ">":
		return cmp > 0
	default:
		return cmp >= 0
	}
}

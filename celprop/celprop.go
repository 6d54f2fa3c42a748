// Package celprop compiles and evaluates ad-hoc properties and trace expressions written in
// CEL (github.com/google/cel-go, the expression language of Kubernetes' validation rules)
// over a state's ITF view: each variable a model prints (Model.Vars: log, hw, epochCache,
// leaderState, ...) is a CEL variable holding the value kmc writes into its traces, read
// back from that ITF JSON: {"#bigint":"3"} an int, {"#set":[...]} and {"#tup":[...]} lists,
// {"#map":[[k,v],...]} a map, a record a map from field names, strings and booleans as
// themselves. An expression is compiled once, against the model's variables, and evaluated
// per state; the built-in properties never go through it.
//
// CEL was chosen over expr-lang/expr because it is typed, terminating (no loops, no
// recursion: an expression cannot hang a search), side-effect free, and has a specification
// and a conformance suite; its macros (all, exists, exists_one, map, filter) cover the
// quantifiers of TLA+ invariants over sets, sequences and functions.
package celprop

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
)

// Expr is one compiled expression.
type Expr struct {
	Src  string
	prg  cel.Program
	vars []string // the model's variables, Model.Vars order
	used []int    // the indices in vars the expression reads
}

// Compile compiles src against variables vars. A syntax error or a name that is no
// variable is an error that says where in src (line:column) and what is wrong.
func Compile(src string, vars []string) (*Expr, error) {
	opts := []cel.EnvOption{ext.Strings(), ext.Lists(), ext.Sets(), cel.OptionalTypes()}
	for _, v := range vars {
		opts = append(opts, cel.Variable(v, cel.DynType))
	}
	env, err := cel.NewEnv(opts...)
	if err != nil {
		return nil, fmt.Errorf("expression %q: %v", src, err)
	}
	ast, iss := env.Compile(src)
	if iss != nil && iss.Err() != nil {
		return nil, fmt.Errorf("expression %q: %s (variables: %s)", src, oneLine(iss.Err().Error()), strings.Join(vars, ", "))
	}
	prg, err := env.Program(ast)
	if err != nil {
		return nil, fmt.Errorf("expression %q: %v", src, err)
	}
	e := &Expr{Src: src, prg: prg, vars: vars}
	seen := map[int]bool{}
	for _, r := range ast.NativeRep().ReferenceMap() {
		for i, v := range vars {
			if r.Name == v && !seen[i] {
				seen[i] = true
				e.used = append(e.used, i)
			}
		}
	}
	sort.Ints(e.used)
	return e, nil
}

// oneLine folds CEL's multi-line error (message, source line, caret) into one line.
func oneLine(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "|") {
			out = append(out, strings.TrimPrefix(l, "ERROR: <input>:"))
		}
	}
	return strings.Join(out, "; ")
}

// Used names the variables the expression reads, in the model's order.
func (e *Expr) Used() []string {
	var out []string
	for _, i := range e.used {
		out = append(out, e.vars[i])
	}
	return out
}

// Eval evaluates the expression on one state, whose variable i value appends as ITF JSON
// to a buffer, and returns the result as a Go value (bool, int64, string, []any,
// map[any]any, ...).
func (e *Expr) Eval(value func(i int, buf []byte) []byte) (any, error) {
	act := make(map[string]any, len(e.used))
	var buf []byte
	for _, i := range e.used {
		buf = value(i, buf[:0])
		v, err := DecodeITF(buf)
		if err != nil {
			return nil, fmt.Errorf("expression %q: variable %s: %v", e.Src, e.vars[i], err)
		}
		act[e.vars[i]] = v
	}
	out, _, err := e.prg.Eval(act)
	if err != nil {
		return nil, fmt.Errorf("expression %q: %v", e.Src, err)
	}
	return native(out), nil
}

// Bool evaluates the expression as a property: an error when it is not a boolean.
func (e *Expr) Bool(value func(i int, buf []byte) []byte) (bool, error) {
	v, err := e.Eval(value)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("expression %q: got %s, want a bool", e.Src, Format(v))
	}
	return b, nil
}

func native(v ref.Val) any {
	switch v.Type() {
	case types.BoolType, types.IntType, types.UintType, types.DoubleType, types.StringType:
		return v.Value()
	}
	if l, ok := v.(interface {
		Size() ref.Val
		Get(ref.Val) ref.Val
	}); ok && v.Type() == types.ListType {
		n := l.Size().(types.Int)
		out := make([]any, 0, int(n))
		for i := types.Int(0); i < n; i++ {
			out = append(out, native(l.Get(i)))
		}
		return out
	}
	if v.Type() == types.MapType {
		if m, err := v.ConvertToNative(mapType); err == nil {
			return m
		}
	}
	return v.Value()
}

// DecodeITF reads one ITF JSON value (Apalache ADR-015) into CEL's Go values: int64 for a
// number or {"#bigint":...}, []any for a set (sorted as kmc writes it) or a tuple or a
// list, map[any]any for {"#map":...} and map[string]any for a record.
func DecodeITF(b []byte) (any, error) {
	var raw any
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	return itf(raw)
}

func itf(x any) (any, error) {
	switch v := x.(type) {
	case float64:
		return int64(v), nil
	case string, bool, nil:
		return v, nil
	case []any:
		return list(v)
	case map[string]any:
		if len(v) == 1 {
			for k, inner := range v {
				switch k {
				case "#bigint":
					s, _ := inner.(string)
					n, err := strconv.ParseInt(s, 10, 64)
					if err != nil {
						return nil, fmt.Errorf("bad #bigint %v", inner)
					}
					return n, nil
				case "#set", "#tup":
					l, _ := inner.([]any)
					return list(l)
				case "#map":
					pairs, _ := inner.([]any)
					m := make(map[any]any, len(pairs))
					for _, p := range pairs {
						kv, ok := p.([]any)
						if !ok || len(kv) != 2 {
							return nil, fmt.Errorf("bad #map pair %v", p)
						}
						key, err := itf(kv[0])
						if err != nil {
							return nil, err
						}
						val, err := itf(kv[1])
						if err != nil {
							return nil, err
						}
						m[key] = val
					}
					return m, nil
				case "#unserializable":
					return fmt.Sprint(inner), nil
				}
			}
		}
		m := make(map[string]any, len(v))
		for k, inner := range v {
			val, err := itf(inner)
			if err != nil {
				return nil, err
			}
			m[k] = val
		}
		return m, nil
	}
	return nil, fmt.Errorf("unexpected JSON value %v", x)
}

func list(l []any) ([]any, error) {
	out := make([]any, 0, len(l))
	for _, x := range l {
		v, err := itf(x)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// Format prints a value as kmc's text traces print values: lists in brackets, maps sorted
// by key.
func Format(v any) string {
	switch x := v.(type) {
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, Format(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[any]any:
		var parts []string
		for k, e := range x {
			parts = append(parts, Format(k)+": "+Format(e))
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, ", ") + "}"
	case map[string]any:
		var parts []string
		for k, e := range x {
			parts = append(parts, k+": "+Format(e))
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, ", ") + "}"
	case string:
		return strconv.Quote(x)
	}
	return fmt.Sprint(v)
}

var mapType = reflect.TypeOf(map[any]any{})

// ToITF writes a value Eval returned as ITF JSON, as kmc's traces hold values: an int as
// {"#bigint":"n"}, a list as a JSON array, a map with string keys as a record, any other
// map as {"#map":[[k,v],...]} sorted by key.
func ToITF(v any) []byte {
	switch x := v.(type) {
	case int64:
		return []byte(`{"#bigint":"` + strconv.FormatInt(x, 10) + `"}`)
	case uint64:
		return []byte(`{"#bigint":"` + strconv.FormatUint(x, 10) + `"}`)
	case bool, string, float64:
		b, _ := json.Marshal(x)
		return b
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = string(ToITF(e))
		}
		return []byte("[" + strings.Join(parts, ",") + "]")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			kb, _ := json.Marshal(k)
			parts[i] = string(kb) + ":" + string(ToITF(x[k]))
		}
		return []byte("{" + strings.Join(parts, ",") + "}")
	case map[any]any:
		pairs := make([][2]string, 0, len(x))
		for k, e := range x {
			pairs = append(pairs, [2]string{string(ToITF(k)), string(ToITF(e))})
		}
		sort.Slice(pairs, func(i, j int) bool { return pairs[i][0] < pairs[j][0] })
		parts := make([]string, len(pairs))
		for i, p := range pairs {
			parts[i] = "[" + p[0] + "," + p[1] + "]"
		}
		return []byte(`{"#map":[` + strings.Join(parts, ",") + "]}")
	}
	b, _ := json.Marshal(fmt.Sprint(v))
	return b
}

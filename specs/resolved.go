package specs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Resolved is one check of a spec as it runs, every value resolved: the spec file's own
// keys (model, properties, constants, faults, limits, options, fairness, invariants) with
// every constant and fault budget written out, defaults too, and the check's name,
// expectation, fixes, fixes taken out and guards turned off, after every --set and --fix.
// It is what a trace records in its #meta.kmc::config (traces.RunConfig) so that kmc replay
// and kmc why can rebuild the model without the spec file (FromResolved). Its JSON form
// (json.Marshal) is deterministic: maps are written in key order.
type Resolved struct {
	Model      string   `json:"model"`
	Properties []string `json:"properties"`
	Check      string   `json:"check"`
	Expect     string   `json:"expect"`
	Property   string   `json:"property,omitempty"`
	// Constants and Faults hold every parameter of the family by name, as a spec writes
	// it: an integer, true or false, or an enum's name.
	Constants  map[string]any    `json:"constants"`
	Faults     map[string]any    `json:"faults,omitempty"`
	Fixes      []string          `json:"fixes"`
	Without    []string          `json:"without,omitempty"`
	Mutate     []string          `json:"mutate,omitempty"`
	Invariants map[string]string `json:"invariants,omitempty"`
	// Options holds deadlock (when true) and symmetry (when the spec or a --set chose it);
	// Limits the spec's limits that are set (max_states, max_depth, memory in bytes, time
	// as a duration); Fairness the spec's per-kind fairness.
	Options  map[string]any    `json:"options,omitempty"`
	Limits   map[string]any    `json:"limits,omitempty"`
	Fairness map[string]string `json:"fairness,omitempty"`
}

// paramValue is value n of p as a spec file writes it.
func paramValue(p Param, n int) any {
	switch p.Kind {
	case Bool:
		return n != 0
	case Enum:
		if n >= 0 && n < len(p.Enum) {
			return p.Enum[n]
		}
	}
	return int64(n)
}

// Resolve is check c of s as it runs (see Resolved).
func (s *Spec) Resolve(c *Check) Resolved {
	r := Resolved{Model: s.Model, Properties: append([]string{}, s.Properties...), Check: c.Name,
		Expect: string(c.Expect), Property: c.Property, Constants: map[string]any{},
		Fixes: append([]string{}, c.Fixes...), Without: slices.Clone(c.Without), Mutate: slices.Clone(c.Mutate)}
	for _, p := range s.Family.Constants {
		r.Constants[p.Name] = paramValue(p, c.Config.Values[p.Name])
	}
	for _, p := range s.Family.Faults {
		if r.Faults == nil {
			r.Faults = map[string]any{}
		}
		r.Faults[p.Name] = paramValue(p, c.Config.Values[p.Name])
	}
	for _, x := range c.Config.Exprs {
		if r.Invariants == nil {
			r.Invariants = map[string]string{}
		}
		r.Invariants[x.Name] = x.Src
	}
	o := s.Options
	if o.Deadlock || s.SymmetrySet {
		r.Options = map[string]any{}
		if o.Deadlock {
			r.Options["deadlock"] = true
		}
		if s.SymmetrySet {
			r.Options["symmetry"] = o.Symmetry
		}
	}
	lim := map[string]any{}
	if o.MaxStates > 0 {
		lim["max_states"] = o.MaxStates
	}
	if o.MaxDepth > 0 {
		lim["max_depth"] = int64(o.MaxDepth)
	}
	if o.MemoryBytes > 0 {
		lim["memory"] = o.MemoryBytes
	}
	if o.Time > 0 {
		lim["time"] = o.Time.String()
	}
	if len(lim) > 0 {
		r.Limits = lim
	}
	for _, f := range s.Fairness {
		if r.Fairness == nil {
			r.Fairness = map[string]string{}
		}
		r.Fairness[f.Kind] = [...]string{"unfair", "weak", "strong"}[f.Fairness]
	}
	return r
}

// JSON is r's JSON form, compact and deterministic, with < > & as they are (an
// invariant's expression reads as written).
func (r Resolved) JSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		panic("specs: Resolved does not marshal: " + err.Error()) // strings, numbers, bools only
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// MaxResolvedBytes is the largest #meta.kmc::config FromResolved reads, the limit of a spec
// file.
const MaxResolvedBytes = MaxSpecBytes

// ParseResolved reads a Resolved from its JSON form. A key it does not know is an error:
// a configuration written by a later kmc that this one cannot rebuild in full is refused
// rather than rebuilt in part.
func ParseResolved(data []byte) (Resolved, error) {
	var r Resolved
	if len(data) > MaxResolvedBytes {
		return r, fmt.Errorf("longer than %d bytes", MaxResolvedBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(&r); err != nil {
		return r, err
	}
	if dec.More() {
		return r, errors.New("data after the configuration")
	}
	for _, m := range []struct {
		key  string
		vals map[string]any
	}{{"constants", r.Constants}, {"faults", r.Faults}, {"options", r.Options}, {"limits", r.Limits}} {
		for k, x := range m.vals {
			v, err := tomlValue(x)
			if err != nil {
				return r, fmt.Errorf("%s.%s: %w", m.key, k, err)
			}
			m.vals[k] = v
		}
	}
	return r, nil
}

// tomlValue is a JSON scalar as the spec loader reads it from TOML: an int64, a bool or a
// string.
func tomlValue(x any) (any, error) {
	switch v := x.(type) {
	case json.Number:
		n, err := strconv.ParseInt(v.String(), 10, 64)
		if err != nil || n == math.MinInt64 {
			return nil, fmt.Errorf("want an integer (got %s)", v)
		}
		return n, nil
	case bool, string:
		return v, nil
	}
	return nil, fmt.Errorf("want an integer, true or false, or a name (got %s)", typeName(x))
}

// FromResolved rebuilds a spec of the one check r describes, as if its spec file said
// exactly that, validated as a spec file is, with the --set overrides sets applied on
// top. Errors name origin (a trace's path and #meta key) and the key of r at fault.
// path, when not "", becomes the spec's Path (the spec file r was resolved from).
func FromResolved(r Resolved, origin, path string, sets []string) (*Spec, error) {
	doc := map[string]any{"model": r.Model, "properties": r.Properties}
	for key, m := range map[string]map[string]any{"constants": r.Constants, "faults": r.Faults, "options": r.Options, "limits": r.Limits} {
		if len(m) > 0 {
			doc[key] = m
		}
	}
	if len(r.Invariants) > 0 {
		doc["invariants"] = r.Invariants
	}
	if len(r.Fairness) > 0 {
		doc["fairness"] = r.Fairness
	}
	check := map[string]any{"name": r.Check, "fixes": nonNil(r.Fixes)}
	if r.Expect != "" {
		check["expect"] = r.Expect
	}
	if r.Property != "" {
		check["property"] = r.Property
	}
	if len(r.Without) > 0 {
		check["without"] = r.Without
	}
	if len(r.Mutate) > 0 {
		check["mutate"] = r.Mutate
	}
	doc["check"] = []map[string]any{check}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(doc); err != nil {
		return nil, fmt.Errorf("%s: %w", origin, err)
	}
	s, err := Parse(origin, b.Bytes(), sets)
	var list ErrorList
	if errors.As(err, &list) {
		// The positions are in the TOML text built here, which nobody sees: name the key.
		var msgs []string
		for _, e := range list {
			msg := e.Problem
			if e.Key != "" {
				msg = e.Key + ": " + msg
			}
			if e.Got != "" {
				msg += " (got " + e.Got + ")"
			}
			if e.Pos.File == SetFile {
				msg = e.Pos.String() + ": " + msg
			}
			msgs = append(msgs, msg)
		}
		return nil, &ResolvedError{Origin: origin, Problems: msgs}
	}
	if err != nil {
		return nil, err
	}
	if path != "" {
		s.Path = path
	}
	return s, nil
}

func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// ResolvedError is a recorded configuration (FromResolved) that is no valid spec.
type ResolvedError struct {
	Origin   string
	Problems []string
}

func (e *ResolvedError) Error() string {
	return e.Origin + ": " + strings.Join(e.Problems, "; ")
}

// Difference is one key whose value differs between two Resolved (Diff): A is the first's
// value as a spec writes it, B the second's; "(unset)" for a key one of them leaves out.
type Difference struct{ Key, A, B string }

// Diff lists the keys in which b's model differs from a's, in a fixed order (the model,
// the check's name and the properties first, then constants, faults, switches, invariants, options, limits and
// fairness, each in key order); nil when they configure the same check. What the check
// expects does not count (it configures no model), nor does the order of fixes, without
// and mutate.
func (a Resolved) Diff(b Resolved) []Difference {
	var out []Difference
	str := func(key string, x, y any) {
		xs, ys := fmt.Sprint(x), fmt.Sprint(y)
		if xs != ys {
			out = append(out, Difference{key, show(xs), show(ys)})
		}
	}
	str("model", a.Model, b.Model)
	str("check", a.Check, b.Check)
	str("properties", strings.Join(a.Properties, ","), strings.Join(b.Properties, ","))
	maps := func(key string, x, y map[string]any) {
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		for _, k := range sortedBoolKeys(keys) {
			xv, xok := x[k]
			yv, yok := y[k]
			switch {
			case !xok:
				str(key+"."+k, "(unset)", yv)
			case !yok:
				str(key+"."+k, xv, "(unset)")
			default:
				str(key+"."+k, xv, yv)
			}
		}
	}
	maps("constants", a.Constants, b.Constants)
	maps("faults", a.Faults, b.Faults)
	set := func(key string, x, y []string) {
		xs, ys := slices.Sorted(slices.Values(x)), slices.Sorted(slices.Values(y))
		str(key, "["+strings.Join(xs, ",")+"]", "["+strings.Join(ys, ",")+"]")
	}
	set("fixes", a.Fixes, b.Fixes)
	set("without", a.Without, b.Without)
	set("mutate", a.Mutate, b.Mutate)
	strs := func(m map[string]string, quote bool) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			if quote {
				v = strconv.Quote(v)
			}
			out[k] = v
		}
		return out
	}
	maps("invariants", strs(a.Invariants, true), strs(b.Invariants, true))
	maps("options", a.Options, b.Options)
	maps("limits", a.Limits, b.Limits)
	maps("fairness", strs(a.Fairness, false), strs(b.Fairness, false))
	return out
}

// show is a value of Diff as it reads: "" as (none).
func show(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func sortedBoolKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

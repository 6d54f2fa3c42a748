package app

// Reading a kmc ITF trace of the Kafka model for kmc conform: the states' variables by name
// (extra variables are ignored, so a model that grows new ones stays readable), each step's
// action, and the inputs the harness takes from the model's control plane.

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"kmc/fsx"
	model "kmc/model/kafka"
	"kmc/traces"
)

// itfTrace is an ITF trace as kmc writes it: its metadata and states, each variable kept as
// decoded JSON (any).
type itfTrace struct {
	Path   string
	Source string // #meta source: the spec file
	Check  string // #meta kmc::check
	Vars   []string
	States []map[string]any
	// Config is the model configuration a trace written by kmc conform --walks carries
	// (#meta kmc::modelConfig), nil for others.
	Config *model.Config
}

// loadITF reads an ITF file. Errors name the file and what is wrong.
func loadITF(path string) (*itfTrace, error) {
	data, err := fsx.ReadFile(path, traces.DefaultMaxTraceBytes) // a regular file, bounded
	if err != nil {
		return nil, err
	}
	var raw struct {
		Meta   map[string]any   `json:"#meta"`
		Vars   []string         `json:"vars"`
		States []map[string]any `json:"states"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: not an ITF trace (JSON): %v", path, err)
	}
	if len(raw.States) == 0 {
		return nil, fmt.Errorf("%s: the trace has no states", path)
	}
	t := &itfTrace{Path: path, Vars: raw.Vars, States: raw.States}
	t.Source, _ = raw.Meta["source"].(string)
	t.Check, _ = raw.Meta["kmc::check"].(string)
	// A walk's model configuration is #meta kmc::modelConfig; walks written before the traces
	// of kmc check carried their spec-level configuration in kmc::config (specs.Resolved) had
	// it there, recognised by the model's own field names.
	key := "kmc::modelConfig"
	c, ok := raw.Meta[key]
	if !ok {
		if old, isMap := raw.Meta["kmc::config"].(map[string]any); isMap && old["Brokers"] != nil {
			key, c, ok = "kmc::config", old, true
		}
	}
	if ok {
		b, _ := json.Marshal(c)
		var cfg model.Config
		if err := json.Unmarshal(b, &cfg); err != nil {
			return nil, fmt.Errorf("%s: #meta %s: %v", path, key, err)
		}
		t.Config = &cfg
	}
	return t, nil
}

// parseAction splits "LeaderHandleFetch(2,3)" into its name and arguments.
func parseAction(s string) (string, []int, error) {
	i := strings.IndexByte(s, '(')
	if i < 0 || !strings.HasSuffix(s, ")") {
		return s, nil, nil
	}
	var args []int
	for _, a := range strings.Split(s[i+1:len(s)-1], ",") {
		if a == "" {
			continue
		}
		v, err := strconv.Atoi(strings.TrimSpace(a))
		if err != nil {
			return "", nil, fmt.Errorf("action %q: argument %q is not a number", s, a)
		}
		args = append(args, v)
	}
	return s[:i], args, nil
}

// ITF value helpers. Each takes a decoded JSON value and returns the zero value when it is
// not of the kind asked for: the comparison reports a missing or odd value as a difference.

func itfInt(v any) (int64, bool) {
	switch x := v.(type) {
	case map[string]any:
		if s, ok := x["#bigint"].(string); ok {
			n, err := strconv.ParseInt(s, 10, 64)
			return n, err == nil
		}
	case float64:
		return int64(x), true
	}
	return 0, false
}

func itfStr(v any) string {
	s, _ := v.(string)
	return s
}

// itfMap is an ITF map ({"#map": [[k, v], ...]}) keyed by the keys' JSON text ("b1", "1").
func itfMap(v any) map[string]any {
	out := map[string]any{}
	m, ok := v.(map[string]any)
	if !ok {
		return out
	}
	pairs, _ := m["#map"].([]any)
	for _, p := range pairs {
		kv, ok := p.([]any)
		if !ok || len(kv) != 2 {
			continue
		}
		out[keyText(kv[0])] = kv[1]
	}
	return out
}

func keyText(k any) string {
	if s, ok := k.(string); ok {
		return s
	}
	if n, ok := itfInt(k); ok {
		return strconv.FormatInt(n, 10)
	}
	b, _ := json.Marshal(k)
	return string(b)
}

// itfSet is an ITF set's elements.
func itfSet(v any) []any {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	s, _ := m["#set"].([]any)
	return s
}

// brokerNum is the number of a broker named "b3": 3 (0 for another name).
func brokerNum(s string) int {
	if !strings.HasPrefix(s, "b") {
		return 0
	}
	n, _ := strconv.Atoi(s[1:])
	return n
}

// brokerSet is an ITF set of broker names as sorted broker numbers.
func brokerSet(v any) []int {
	var out []int
	for _, e := range itfSet(v) {
		if n := brokerNum(itfStr(e)); n > 0 {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}

// rec is an ITF record's field.
func rec(v any, field string) any {
	m, _ := v.(map[string]any)
	return m[field]
}

func recInt(v any, field string) int64 {
	n, _ := itfInt(rec(v, field))
	return n
}

// brokerVar is variable name of state s for broker b ("b1"...).
func brokerVar(s map[string]any, name string, b int) any {
	return itfMap(s[name])["b"+strconv.Itoa(b)]
}

package celprop

import (
	"reflect"
	"strings"
	"testing"

	"kmc/model/kafka"
)

// Reference: issue 28 (ad-hoc properties without Go).

func TestDecodeITF(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{`{"#bigint":"3"}`, int64(3)},
		{`7`, int64(7)},
		{`"leader"`, "leader"},
		{`true`, true},
		{`{"#set":[{"#bigint":"1"},{"#bigint":"2"}]}`, []any{int64(1), int64(2)}},
		{`{"#tup":["a",{"#bigint":"0"}]}`, []any{"a", int64(0)}},
		{`[{"#bigint":"1"}]`, []any{int64(1)}},
		{`{"#map":[[{"#bigint":"1"},{"#bigint":"4"}],[{"#bigint":"2"},{"#bigint":"0"}]]}`, map[any]any{int64(1): int64(4), int64(2): int64(0)}},
		{`{"epoch":{"#bigint":"2"},"id":{"#bigint":"5"}}`, map[string]any{"epoch": int64(2), "id": int64(5)}},
	}
	for _, tt := range tests {
		got, err := DecodeITF([]byte(tt.in))
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("DecodeITF(%s): got %#v, %v; want %#v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{`{"#bigint":"x"}`, `{"#map":[[1]]}`, `{`, ``} {
		if _, err := DecodeITF([]byte(bad)); err == nil {
			t.Errorf("DecodeITF(%q): got no error", bad)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	vars := []string{"hw", "log"}
	tests := []struct{ src, want string }{
		{"hw +", "1:5: Syntax error"},
		{"leo > 1", "1:1: undeclared reference to 'leo'"},
		{"size(hw) > ", "Syntax error"},
	}
	for _, tt := range tests {
		_, err := Compile(tt.src, vars)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "(variables: hw, log)") {
			t.Errorf("Compile(%q): got %v, want an error with %q and the variables", tt.src, err, tt.want)
		}
	}
	e, err := Compile("hw.all(b, hw[b] <= 2) && size(log) == 3", vars)
	if err != nil || !reflect.DeepEqual(e.Used(), []string{"hw", "log"}) {
		t.Errorf("Compile: got %v, used %v; want both variables used", err, e.Used())
	}
}

// kafkaState is the kafka model's first initial state and one successor with a record.
func kafkaStates(t testing.TB) (*kafka.Model, []kafka.State) {
	c := kafka.DefaultConfig()
	m, err := kafka.New(c)
	if err != nil {
		t.Fatal(err)
	}
	states := m.Init(nil)
	for i := 0; i < len(states) && len(states) < 200; i++ {
		states, _ = m.Next(&states[i], states, nil)
	}
	return m, states
}

// TestEvalKafka: expressions over the Kafka model's ITF view, on its states.
func TestEvalKafka(t *testing.T) {
	m, states := kafkaStates(t)
	vars := m.Vars()
	value := func(s *kafka.State) func(int, []byte) []byte {
		return func(i int, buf []byte) []byte { return m.AppendValue(s, i, buf) }
	}
	holds := func(src string) int {
		e, err := Compile(src, vars)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i := range states {
			ok, err := e.Bool(value(&states[i]))
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			if ok {
				n++
			}
		}
		return n
	}
	if n := holds("hw.all(b, hw[b] >= 0)"); n != len(states) {
		t.Errorf("hw >= 0 held in %d of %d states", n, len(states))
	}
	if n := holds("log.exists(b, size(log[b]) > 0)"); n == 0 || n == len(states) {
		t.Errorf("some log not empty held in %d of %d states, want some but not all", n, len(states))
	}
	e, _ := Compile("size(hw)", vars)
	if _, err := e.Bool(value(&states[0])); err == nil || !strings.Contains(err.Error(), "want a bool") {
		t.Errorf("a non-boolean as a property: got %v", err)
	}
	e, _ = Compile("hw[9] == 0", vars)
	if _, err := e.Bool(value(&states[0])); err == nil || !strings.Contains(err.Error(), "no such key") {
		t.Errorf("a missing key: got %v", err)
	}
}

func FuzzDecodeITF(f *testing.F) {
	for _, s := range []string{`{"#bigint":"3"}`, `{"#set":[1,2]}`, `{"#map":[[1,2]]}`, `{"a":[true,"x"]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := DecodeITF(b)
		if err == nil {
			_ = Format(v)
		}
	})
}

// BenchmarkInvariant is the cost of one expression property per state: the ITF values of
// the variables it reads, decoded, and the CEL program run.
func BenchmarkInvariant(b *testing.B) {
	m, states := kafkaStates(b)
	e, err := Compile("hw.all(k, hw[k] <= size(log[k]))", m.Vars())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := &states[i%len(states)]
		if ok, err := e.Bool(func(v int, buf []byte) []byte { return m.AppendValue(s, v, buf) }); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

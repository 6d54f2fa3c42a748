package specs

import (
	"strconv"
	"strings"
	"testing"
)

// Reference: issue 28, papercuts: kmc list showed controller_failover as 0..15 where the
// model accepts 0..2. Every integer constant and fault budget of the kafka family: its
// maximum passes the model's range check and one above fails it (brokers at its maximum,
// since min_isr and controller_broker range up to brokers).
func TestKafkaRangesAreTheModels(t *testing.T) {
	fam := kafkaFamily()
	base := map[string]int{}
	for _, p := range append(append([]Param(nil), fam.Constants...), fam.Faults...) {
		base[p.Name] = p.Default
	}
	base["brokers"] = 5
	for _, p := range append(append([]Param(nil), fam.Constants...), fam.Faults...) {
		if p.Kind != Int {
			continue
		}
		for _, v := range []int{p.Min, p.Max, p.Min - 1, p.Max + 1} {
			if v == 0 && (p.Name == "controllers" || p.Name == "controller_broker") {
				continue // the model takes 0 as 1 (kafka.Config); the spec's loader refuses it
			}
			vals := map[string]int{}
			for k, x := range base {
				vals[k] = x
			}
			vals[p.Name] = v
			c := KafkaConfig(Config{Values: vals})
			err := c.Validate()
			out := err != nil && strings.Contains(err.Error(), p.Name+" = "+strconv.Itoa(v)+" outside")
			if want := v < p.Min || v > p.Max; out != want {
				t.Errorf("%s = %d (kmc list: %d..%d): the model's range check says outside %v, want %v (%v)", p.Name, v, p.Min, p.Max, out, want, err)
			}
		}
	}
}

// TestOneErrorPerFlag: a mistyped --fix is one error, not one per check (issue 28,
// papercuts).
func TestOneErrorPerFlag(t *testing.T) {
	_, err := Load("../specs/kafka-18723.toml", []string{"fixes+=KAFKA-1872"})
	list, ok := err.(ErrorList)
	if !ok || list.Total() != 1 || !strings.Contains(err.Error(), `--set:1:8: check[0].fixes: unknown switch "KAFKA-1872"`) {
		t.Errorf("got %v, want one error naming the --set", err)
	}
}

// TestSetsNotHeldToPins: a --set or --fix that changes a check's model is not compared with
// the counts the file pins for its own configuration; a --set of a limit is (issue 28,
// papercuts).
func TestSetsNotHeldToPins(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want bool
	}{
		{nil, false},
		{[]string{"limits.max_states=100000"}, false},
		{[]string{"max_epoch=1"}, true},
		{[]string{"fixes+=KAFKA-13077"}, true},
	} {
		s, err := Load("../specs/kafka-14154.toml", tc.sets)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range s.Checks {
			if c.Overridden != tc.want {
				t.Errorf("%v: check %s: Overridden %v, want %v", tc.sets, c.Name, c.Overridden, tc.want)
			}
		}
	}
}

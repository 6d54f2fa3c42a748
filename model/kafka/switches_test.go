package kafka

import (
	"slices"
	"strings"
	"testing"
)

// Reference: issue 28 (each switch declared once, in a file of its own).

// TestSwitchesDeclared: every switch says what it is, cites code or a proposal, names the
// releases it applies to and kinds of action the model has; every fix bit of the profiles
// has its switch; a switch with a hook names a branch.
func TestSwitchesDeclared(t *testing.T) {
	kinds := (&Model{}).ActionKinds()
	seen := map[string]bool{}
	for _, sw := range Switches() {
		if sw.Doc == "" || sw.Kafka == "" || sw.Versions == "" || len(sw.Kinds) == 0 {
			t.Errorf("%s: want Doc, Kafka, Versions and Kinds, got %+v", sw.Name, sw)
		}
		for _, k := range sw.Kinds {
			if !slices.Contains(kinds, k) {
				t.Errorf("%s: kind %q is no kind of action of the model", sw.Name, k)
			}
		}
		if seen[sw.Name] {
			t.Errorf("%s registered twice", sw.Name)
		}
		seen[sw.Name] = true
		if got, ok := SwitchByName(sw.Name); !ok || got != sw || Switches()[sw.ID()] != sw {
			t.Errorf("%s: SwitchByName and ID do not find it", sw.Name)
		}
	}
	for _, bit := range FixOrder {
		if FixName(bit) == "" {
			t.Errorf("fix bit %#x has no switch", bit)
		}
	}
	for _, name := range []string{"KAFKA-18723", "KAFKA-13077", "KAFKA-6082", "KAFKA-14154", "KAFKA-14154-proposed",
		"KAFKA-18723-strict", "KIP-966", "KAFKA-18723-send-side", "KAFKA-16541-close-flush", "KAFKA-13141", "KAFKA-18991"} {
		if !seen[name] {
			t.Errorf("switch %s is not registered", name)
		}
	}
}

// TestRegisterRefuses: a name used twice, an empty one, another's fix bit and a hook without
// a branch are programming errors, found when the package loads.
func TestRegisterRefuses(t *testing.T) {
	drop := func(*Model, Replica, Msg) bool { return false }
	for _, tc := range []struct {
		name string
		sw   Switch
		want string
	}{
		{"twice", Switch{Name: "KAFKA-18723"}, "registered twice"},
		{"empty", Switch{}, "empty"},
		{"fix bit", Switch{Name: "X-1", Fix: FixBit18723}, "KAFKA-18723's fix bit"},
		{"hook without branch", Switch{Name: "X-2", DropFetchResponse: drop}, "names no branch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := len(Switches())
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.want) {
					t.Errorf("got panic %v, want one with %q", r, tc.want)
				}
				if len(Switches()) != n {
					t.Errorf("the refused switch was registered")
				}
			}()
			sw := tc.sw
			Register(&sw)
		})
	}
}

// TestSwitchesInForce: a profile's fix is in force without its switch and out with Without;
// a proposal only with its switch; Needs refuses with its reason.
func TestSwitchesInForce(t *testing.T) {
	c := DefaultConfig()
	c.Version = "4.0.1"
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	if !m.on(Kafka18723) || m.on(Kafka18723Strict) {
		t.Errorf("4.0.1: got KAFKA-18723 %v, strict %v; want true, false", m.on(Kafka18723), m.on(Kafka18723Strict))
	}
	c.Without = FixBit18723
	if m, _ = New(c); m.on(Kafka18723) {
		t.Errorf("4.0.1 without KAFKA-18723: the fix is in force")
	}
	c.Switches = c.Switches.With(Kafka18723Strict, true)
	if _, err := New(c); err == nil || !strings.Contains(err.Error(), "model: fixes: KAFKA-18723-strict adds to KAFKA-18723's filter") {
		t.Errorf("strict without the filter: got %v, want Needs' reason", err)
	}
	c.Without = 0
	if m, err = New(c); err != nil || !m.on(Kafka18723Strict) || len(m.hooks.stop) != 2 {
		t.Errorf("strict on 4.0.1: got %v, hooks %d; want it on with two StopAppend hooks", err, len(m.hooks.stop))
	}
}

// TestBranchCounters: with counting on, a short search counts guard refusals and the
// branches of a switch in force; with it off, nothing.
func TestBranchCounters(t *testing.T) {
	c := DefaultConfig()
	c.MaxRecords, c.LeaderChange, c.Crash = 2, 1, 1
	c.Version = "4.0.1" // KAFKA-18723's filter and KAFKA-18991's check in force
	c.MaxEpoch = 3
	for _, mode := range []int{NotCounted, Fired, Counted} {
		on := mode != NotCounted
		m, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		m.CountBranches(mode)
		states := m.Init(nil)
		var succ []State
		var acts []uint64
		for i := 0; i < len(states) && len(states) < 20000; i++ {
			succ, acts = m.Next(&states[i], succ[:0], acts[:0])
			states = append(states, succ...)
		}
		m.CountBranches(NotCounted)
		var total uint64
		guards := 0
		for _, b := range m.Branches() {
			total += b.Hits
			if b.Guard != "" && b.Hits > 0 {
				guards++
			}
			if mode == Fired && b.Hits > 1 {
				t.Errorf("Fired: %+v counted more than once", b)
			}
			if b.Switch == "" && b.Guard == "" {
				t.Errorf("a count names neither switch nor guard: %+v", b)
			}
		}
		if !on && total != 0 {
			t.Errorf("counting off: got %d hits, want 0", total)
		}
		if on && guards == 0 {
			t.Errorf("counting on: no guard refused a step in %d states: %+v", len(states), m.Branches())
		}
	}
}

// BenchmarkNextCounting is Next over a sample of states with the branch and guard counters
// off and on (kmc check counts in every search, for vacuity).
func BenchmarkNextCounting(b *testing.B) {
	c := DefaultConfig()
	c.MaxRecords, c.LeaderChange, c.Crash, c.Version = 3, 1, 1, "4.0.1"
	for mode, name := range []string{"off", "fired", "counted"} {
		b.Run(name, func(b *testing.B) {
			m, err := New(c)
			if err != nil {
				b.Fatal(err)
			}
			states := m.Init(nil)
			var succ []State
			var acts []uint64
			for i := 0; i < len(states) && len(states) < 5000; i++ {
				succ, acts = m.Next(&states[i], succ[:0], acts[:0])
				states = append(states, succ...)
			}
			m.CountBranches(mode)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				succ, acts = m.Next(&states[i%len(states)], succ[:0], acts[:0])
			}
		})
	}
}

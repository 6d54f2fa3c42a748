package reference

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// A naive AsyncIsr written from AsyncIsr.tla with maps and strings, to cross-check
// AsyncModel. Messages are [isr, version] records printed as strings; the state
// constraint is the same (offsets within Offsets, controller version at most a bound).

type naMsg struct {
	isr     map[string]bool
	version int
}

func (m naMsg) str() string { return fmt.Sprintf("[isr=%s,version=%d]", setStr(m.isr), m.version) }

type naState struct {
	ctrl           naMsg
	isr, pending   map[string]bool
	version        int
	pendingVersion int
	offsets        map[string]int
	requests       map[string]naMsg
	updates        map[string]naMsg
}

func (s *naState) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ctrl=%s leader=[isr=%s,version=%d,pendingIsr=%s,pendingVersion=%d,offsets=",
		s.ctrl.str(), setStr(s.isr), s.version, setStr(s.pending), s.pendingVersion)
	var rs []string
	for r := range s.offsets {
		rs = append(rs, r)
	}
	sort.Strings(rs)
	for _, r := range rs {
		fmt.Fprintf(&b, "%s:%d,", r, s.offsets[r])
	}
	for _, set := range []map[string]naMsg{s.requests, s.updates} {
		var ks []string
		for k := range set {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		b.WriteString("] {" + strings.Join(ks, ";") + "}")
	}
	return b.String()
}

func (s *naState) clone() *naState {
	t := &naState{ctrl: naMsg{copySet(s.ctrl.isr), s.ctrl.version}, isr: copySet(s.isr), pending: copySet(s.pending),
		version: s.version, pendingVersion: s.pendingVersion, offsets: map[string]int{},
		requests: map[string]naMsg{}, updates: map[string]naMsg{}}
	for r, o := range s.offsets {
		t.offsets[r] = o
	}
	for k, m := range s.requests {
		t.requests[k] = m
	}
	for k, m := range s.updates {
		t.updates[k] = m
	}
	return t
}

type naiveAsync struct {
	replicas              []string
	leader                string
	maxOffset, maxVersion int
}

func (na *naiveAsync) hw(s *naState) int {
	min := -1
	for r := range s.isr {
		if min < 0 || s.offsets[r] < min {
			min = s.offsets[r]
		}
	}
	for r := range s.pending {
		if min < 0 || s.offsets[r] < min {
			min = s.offsets[r]
		}
	}
	return min
}

func union(a, b map[string]bool) map[string]bool {
	t := copySet(a)
	for k := range b {
		t[k] = true
	}
	return t
}

func (na *naiveAsync) next(s *naState) []*naState {
	var out []*naState
	write := func(isr map[string]bool) {
		version := s.ctrl.version + 1
		t := s.clone()
		t.ctrl = naMsg{copySet(isr), version}
		u := naMsg{copySet(isr), version}
		t.updates[u.str()] = u
		out = append(out, t)
	}
	for _, r := range na.replicas {
		if r != na.leader && s.ctrl.isr[r] {
			write(without(s.ctrl.isr, r))
		}
	}
	for _, m := range s.requests {
		if m.version == s.ctrl.version {
			write(m.isr)
		}
	}
	request := func(isr map[string]bool) {
		t := s.clone()
		m := naMsg{copySet(isr), s.version}
		t.requests[m.str()] = m
		t.pending = union(s.pending, isr)
		t.pendingVersion = s.version
		out = append(out, t)
	}
	for r := range s.isr {
		if r != na.leader {
			request(without(s.isr, r))
		}
	}
	for _, r := range na.replicas {
		if !s.isr[r] && s.offsets[r] >= na.hw(s) {
			request(with(s.isr, r))
		}
	}
	t := s.clone()
	t.offsets[na.leader]++
	out = append(out, t)
	for _, u := range s.updates {
		if u.version > s.version {
			t := s.clone()
			t.isr, t.version, t.pending, t.pendingVersion = copySet(u.isr), u.version, map[string]bool{}, Nil
			out = append(out, t)
		}
	}
	for _, r := range na.replicas {
		if r != na.leader && s.offsets[r] < s.offsets[na.leader] {
			t := s.clone()
			t.offsets[r]++
			out = append(out, t)
		}
	}
	var kept []*naState
	for _, t := range out {
		ok := t.ctrl.version <= na.maxVersion
		for _, o := range t.offsets {
			ok = ok && o >= 0 && o <= na.maxOffset
		}
		if ok {
			kept = append(kept, t)
		}
	}
	return kept
}

func (na *naiveAsync) valid(s *naState) bool {
	for r := range s.ctrl.isr {
		if s.offsets[r] < na.hw(s) {
			return false
		}
	}
	return true
}

func (na *naiveAsync) explore() (map[string]bool, int, int) {
	all := map[string]bool{}
	for _, r := range na.replicas {
		all[r] = true
	}
	init := &naState{ctrl: naMsg{all, 0}, isr: copySet(all), pending: map[string]bool{}, pendingVersion: Nil,
		offsets: map[string]int{}, requests: map[string]naMsg{}, updates: map[string]naMsg{}}
	for _, r := range na.replicas {
		init.offsets[r] = 0
	}
	seen := map[string]bool{init.key(): true}
	level := []*naState{init}
	depth, invalid := 0, 0
	for len(level) > 0 {
		depth++
		var next []*naState
		for _, s := range level {
			if !na.valid(s) {
				invalid++
			}
			for _, t := range na.next(s) {
				if k := t.key(); !seen[k] {
					seen[k] = true
					next = append(next, t)
				}
			}
		}
		level = next
	}
	return seen, depth, invalid
}

// toNaive converts a state of the port to the naive representation.
func (na *naiveAsync) toNaive(s *AsyncState) *naState {
	set := func(x Set) map[string]bool {
		out := map[string]bool{}
		for i, r := range na.replicas {
			if x.Has(i) {
				out[r] = true
			}
		}
		return out
	}
	t := &naState{ctrl: naMsg{set(s.CtrlISR), int(s.CtrlVersion)}, isr: set(s.LeaderISR), pending: set(s.PendingISR),
		version: int(s.LeaderVersion), pendingVersion: int(s.PendingVersion), offsets: map[string]int{},
		requests: map[string]naMsg{}, updates: map[string]naMsg{}}
	for i, r := range na.replicas {
		t.offsets[r] = int(s.Offsets[i])
	}
	for v := 0; v <= MaxAsyncVersion; v++ {
		for isr := Set(0); isr < 16; isr++ {
			if s.hasRequest(isr, v) {
				m := naMsg{set(isr), v}
				t.requests[m.str()] = m
			}
		}
	}
	for v := 1; v <= int(s.CtrlVersion); v++ {
		m := naMsg{set(s.Updates[v]), v}
		t.updates[m.str()] = m
	}
	return t
}

// TestAsyncIsrNaiveCrossCheck compares AsyncModel with the naive AsyncIsr: the same
// reachable states, depth and ValidHighWatermark verdicts, and a round trip through
// the encoding for every state. Reference: hachikuji/kafka-specification, AsyncIsr.tla.
func TestAsyncIsrNaiveCrossCheck(t *testing.T) {
	for _, c := range []AsyncConfig{
		{Replicas: 2, MaxOffset: 2, MaxVersion: 3},
		{Replicas: 3, MaxOffset: 1, MaxVersion: 2},
		{Replicas: 3, MaxOffset: 2, MaxVersion: 3},
	} {
		m, err := NewAsyncIsr(c)
		if err != nil {
			t.Fatal(err)
		}
		na := &naiveAsync{leader: "r1", maxOffset: c.MaxOffset, maxVersion: c.MaxVersion}
		for i := 1; i <= c.Replicas; i++ {
			na.replicas = append(na.replicas, fmt.Sprintf("r%d", i))
		}
		want, wantDepth, wantInvalid := na.explore()

		seen := map[string]bool{}
		level := m.Init(nil)
		seen[string(m.Encode(&level[0], nil))] = true
		var states []AsyncState
		var succ []AsyncState
		var acts []uint64
		depth := 0
		for len(level) > 0 {
			depth++
			states = append(states, level...)
			var next []AsyncState
			for i := range level {
				succ, acts = m.Next(&level[i], succ[:0], acts[:0])
				for j := range succ {
					if k := string(m.Encode(&succ[j], nil)); !seen[k] {
						seen[k] = true
						next = append(next, succ[j])
					}
				}
			}
			level = next
		}
		invalid := 0
		for i := range states {
			s := &states[i]
			ns := na.toNaive(s)
			if !want[ns.key()] {
				t.Fatalf("%+v: port state %s is not reachable in the naive search", c, ns.key())
			}
			if m.ValidHighWatermark(s) != na.valid(ns) {
				t.Fatalf("%+v: ValidHighWatermark disagrees on %s", c, ns.key())
			}
			if !m.ValidHighWatermark(s) {
				invalid++
			}
			if !m.TypeOk(s) {
				t.Fatalf("%+v: TypeOk fails on %s", c, ns.key())
			}
			var back AsyncState
			m.Decode(m.Encode(s, nil), &back)
			if back != *s {
				t.Fatalf("%+v: Decode(Encode(s)) = %+v, want %+v", c, back, *s)
			}
			for v := range m.Vars() {
				if b := m.AppendValue(s, v, nil); !json.Valid(b) {
					t.Fatalf("%+v: %s: invalid JSON %s", c, m.Vars()[v], b)
				}
			}
		}
		if len(states) != len(want) || depth != wantDepth || invalid != wantInvalid {
			t.Errorf("%+v: got %d states, depth %d, %d invalid; want %d, %d, %d (naive)",
				c, len(states), depth, invalid, len(want), wantDepth, wantInvalid)
		}
		init := m.Init(nil)[0]
		if m.TypeOkLiteral(&init) || !m.TypeOk(&init) {
			t.Errorf("%+v: got TypeOkLiteral(Init) %v, TypeOk(Init) %v; want false, true", c, m.TypeOkLiteral(&init), m.TypeOk(&init))
		}
	}
}

// TestAsyncIsrNextAllocs pins that AsyncModel.Next allocates nothing per state.
func TestAsyncIsrNextAllocs(t *testing.T) {
	m, err := NewAsyncIsr(AsyncConfig{Replicas: 3, MaxOffset: 2, MaxVersion: 3})
	if err != nil {
		t.Fatal(err)
	}
	s := m.Init(nil)[0]
	succ := make([]AsyncState, 0, 64)
	acts := make([]uint64, 0, 64)
	allocs := testing.AllocsPerRun(100, func() { succ, acts = m.Next(&s, succ[:0], acts[:0]) })
	if allocs != 0 {
		t.Errorf("got %v allocations per Next, want 0", allocs)
	}
}

package kafka

import (
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"kmc/checker"
)

// Diagnostics of the partial-order reduction on the Kafka model (issue 31; docs/engine.md,
// "Partial-order reduction"), run by hand, not by make test. All three search the
// max_records = 3 neighbour of specs/kafka-18723.toml's fixed check without symmetry
// (372,191 states).

func porWhyConfig() Config {
	c := DefaultConfig()
	c.Brokers, c.MaxRecords, c.MaxEpoch, c.MaxFetchRecords, c.LeaderChange = 3, 3, 2, 1, 1
	c.Version, c.Switches = "3.9.0", c.Switches.With(Kafka18723, true)
	return c
}

// TestPORCeiling: the ceiling of the declarations: the search with one invariant that reads
// nothing (every step invisible), with and without the reduction; the same verdict, and the
// counts logged. KMC_POR_CEILING=1 go test ./model/kafka -run PORCeiling -v.
func TestPORCeiling(t *testing.T) {
	if os.Getenv("KMC_POR_CEILING") == "" {
		t.Skip("KMC_POR_CEILING not set")
	}
	m, err := New(porWhyConfig())
	if err != nil {
		t.Fatal(err)
	}
	var none checker.Objects
	props := []checker.Property[State]{{Name: "True", Kind: checker.Invariant, State: func(*State) bool { return true }, Reads: &none}}
	plain := checker.Check[State](m, props, checker.Options{Workers: 1})
	red := checker.Check[State](m, props, checker.Options{Workers: 1, POR: true})
	if plain.Verdict != checker.OK || red.Verdict != checker.OK || red.Stats.Distinct > plain.Stats.Distinct {
		t.Fatalf("plain %s %d states, reduced %s %d", plain.Verdict, plain.Stats.Distinct, red.Verdict, red.Stats.Distinct)
	}
	t.Logf("plain %d states; reduced %d states, %d reduced sets, %d refused by the proviso",
		plain.Stats.Distinct, red.Stats.Distinct, red.Stats.Reduced, red.Stats.Proviso)
}

// TestPORWhyNot prints, for each state of that configuration (breadth-first, the first
// KMC_POR_WHY_STATES of them, all by default) and each enabled group tried as the key of a
// stubborn set, why the set fails: the key is visible to the property KMC_POR_WHY names
// ("None": a property that reads nothing), the closure reaches a visible enabled group (the
// step that brought it in is named), or it covers every enabled group (the last enabled group
// it took in is named). The closure is recomputed here from the declarations as checker/por.go
// computes it, without the cuts of bounds and the proviso (none of the configuration's steps is
// cut). KMC_POR_WHY=NoPermanentDivergence go test ./model/kafka -run PORWhyNot -v -timeout 0.
func TestPORWhyNot(t *testing.T) {
	name := os.Getenv("KMC_POR_WHY")
	if name == "" {
		t.Skip("KMC_POR_WHY not set")
	}
	limit, _ := strconv.Atoi(os.Getenv("KMC_POR_WHY_STATES"))
	m, err := New(porWhyConfig())
	if err != nil {
		t.Fatal(err)
	}
	n := m.Groups()
	reads, writes := make([]oset, n), make([]oset, n)
	for g := 0; g < n; g++ {
		reads[g], writes[g] = m.footprint(g)
	}
	meet := func(a, b oset) bool { return a[0]&b[0]|a[1]&b[1]|a[2]&b[2]|a[3]&b[3] != 0 }
	var prop oset
	if r := m.PropertyReads(name); r != nil {
		prop = oset(*r)
	} else if name != "None" {
		t.Fatalf("KMC_POR_WHY=%s: no property the model declares reads for (None, NoPermanentDivergence, LogMatching, NoCommittedDataLoss)", name)
	}
	kind := func(g int) string { k, _, _ := groupOf(g); return kindNames[k] }
	seen := map[string]bool{}
	queue := m.Init(nil)
	for i := range queue {
		seen[string(m.Encode(&queue[i], nil))] = true
	}
	why := map[string]int{}
	states, withSet := 0, 0
	for len(queue) > 0 && (limit <= 0 || states < limit) {
		s := queue[0]
		queue = queue[1:]
		states++
		succ, acts := m.Next(&s, nil, nil)
		en := map[int]bool{}
		for _, a := range acts {
			en[m.Group(a)] = true
		}
		found := false
		for key := range en {
			if meet(writes[key], prop) {
				why["visible key "+kind(key)]++
				continue
			}
			in, todo, reason, last := map[int]bool{key: true}, []int{key}, "", key
			for len(todo) > 0 && reason == "" {
				g := todo[0]
				todo = todo[1:]
				var add []int
				if en[g] {
					for h := 0; h < n; h++ {
						if meet(writes[g], reads[h]) || meet(reads[g], writes[h]) {
							add = append(add, h)
						}
					}
				} else {
					add = nil
					best, bestEn := -1, 0
					for j := 0; j < m.Guards(g); j++ {
						if m.Guard(&s, g, j) {
							continue
						}
						var set []int
						enabled := 0
						for h := 0; h < n; h++ {
							if meet(writes[h], m.guardReads(g, j)) {
								set = append(set, h)
								if en[h] {
									enabled++
								}
							}
						}
						// As checker/por.go: the fewest enabled writers, then the fewest writers.
						if best < 0 || enabled < bestEn || enabled == bestEn && len(set) < len(add) {
							best, add, bestEn = j, set, enabled
						}
					}
					if best < 0 {
						for h := 0; h < n; h++ {
							if meet(writes[h], reads[g]) {
								add = append(add, h)
							}
						}
					}
				}
				for _, h := range add {
					if in[h] {
						continue
					}
					in[h] = true
					todo = append(todo, h)
					if en[h] {
						last = h
						if meet(writes[h], prop) {
							reason = kind(key) + ": reaches visible " + kind(h) + " through " + m.groupName(g)
						}
					}
				}
			}
			if reason == "" {
				all := true
				for g := range en {
					all = all && in[g]
				}
				if !all {
					found = true
					continue
				}
				reason = kind(key) + ": every enabled group, the last " + kind(last)
			}
			why[reason]++
		}
		if found {
			withSet++
		}
		for i := range succ {
			if e := string(m.Encode(&succ[i], nil)); !seen[e] {
				seen[e] = true
				queue = append(queue, succ[i])
			}
		}
	}
	t.Logf("%s: %d states, %d with a stubborn set smaller than their enabled groups", name, states, withSet)
	logTop(t, why, 30)
}

// logTop logs the n most frequent keys of counts, most frequent first (ties by key).
func logTop(t *testing.T, counts map[string]int, n int) {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return counts[keys[i]] > counts[keys[j]] || counts[keys[i]] == counts[keys[j]] && keys[i] < keys[j]
	})
	for i, k := range keys {
		if i == n {
			break
		}
		t.Logf("%8d  %s", counts[k], k)
	}
}

// TestPOREdges counts, over KMC_POR_EDGES states of porWhyConfig's search (every
// KMC_POR_EDGES_EVERY-th state of its breadth-first order; the property NoPermanentDivergence,
// state properties only, so visible groups may join a set), the edges by which stubborn sets
// grow: for each state, each invisible enabled key and each group its closure takes in, the
// relation that brought it (the parent's conflict, or the parent's necessary enabling set for
// its guard j: the model's, Enabling, or the guard's writers), by the kinds at both ends and
// whether each is enabled (+) or not (-). KMC_POR_EDGES_SHOW=1 prints, per state and key, the
// chain by which each enabled group joined. The closure is por.go's.
// KMC_POR_EDGES=2000 KMC_POR_EDGES_EVERY=100 go test ./model/kafka -run POREdges -v.
// Measured 5 December 2026 (KMC_POR_EDGES=1000, KMC_POR_EDGES_EVERY=100): 51 of the 1,000
// states have a set smaller than their steps (3,477 of 3,542 steps kept); the most frequent
// edges into an enabled group are a follower's send conflicting with a LeaderAndIsr to it in
// flight (282), with its own handling of a response (211), with the leader's handling of
// another follower's fetch (169) and with the leader's append (136): the send reads the
// leader's state, because the model skips a fetch that would do nothing (fetchIsNoop).
func TestPOREdges(t *testing.T) {
	limit, _ := strconv.Atoi(os.Getenv("KMC_POR_EDGES"))
	if limit <= 0 {
		t.Skip("KMC_POR_EDGES not set")
	}
	every, _ := strconv.Atoi(os.Getenv("KMC_POR_EDGES_EVERY"))
	show := os.Getenv("KMC_POR_EDGES_SHOW") != ""
	m, err := New(porWhyConfig())
	if err != nil {
		t.Fatal(err)
	}
	n := m.Groups()
	reads, writes := make([]oset, n), make([]oset, n)
	for g := 0; g < n; g++ {
		reads[g], writes[g] = m.footprint(g)
	}
	meet := func(a, b oset) bool { return a[0]&b[0]|a[1]&b[1]|a[2]&b[2]|a[3]&b[3] != 0 }
	prop := oset(*m.PropertyReads("NoPermanentDivergence"))
	kind := func(g int) string { k, _, _ := groupOf(g); return kindNames[k] }
	sign := map[bool]string{true: "+", false: "-"}
	seen := map[string]bool{}
	queue := m.Init(nil)
	edges := map[string]int{}
	states, visited, withSet, sum, sumBest := 0, 0, 0, 0, 0
	for len(queue) > 0 && states < limit {
		s := queue[0]
		queue = queue[1:]
		succ, acts := m.Next(&s, nil, nil)
		for i := range succ {
			if e := string(m.Encode(&succ[i], nil)); !seen[e] {
				seen[e] = true
				queue = append(queue, succ[i])
			}
		}
		visited++
		if every > 1 && visited%every != 0 {
			continue
		}
		states++
		en := map[int]int{}
		for _, a := range acts {
			en[m.Group(a)]++
		}
		nes := func(g int) ([]int, int) {
			best, bestEn := -1, 0
			var out []int
			for j := 0; j < m.Guards(g); j++ {
				if m.Guard(&s, g, j) {
					continue
				}
				var set []int
				var e checker.Groups
				if m.GuardEnablers(&s, g, j, &e) {
					for h := 0; h < n; h++ {
						if e[h>>6]&(1<<(h&63)) != 0 {
							set = append(set, h)
						}
					}
				} else {
					for h := 0; h < n; h++ {
						if meet(writes[h], m.guardReads(g, j)) {
							set = append(set, h)
						}
					}
				}
				c := 0
				for _, h := range set {
					if en[h] > 0 {
						c++
					}
				}
				if best < 0 || c < bestEn || c == bestEn && len(set) < len(out) {
					best, bestEn, out = j, c, set
				}
			}
			if best < 0 {
				for h := 0; h < n; h++ {
					if meet(writes[h], reads[g]) {
						out = append(out, h)
					}
				}
			}
			return out, best
		}
		bestSteps := len(succ)
		for key := range en {
			if meet(writes[key], prop) {
				continue
			}
			in, todo := map[int]bool{key: true}, []int{key}
			parent, via := map[int]int{}, map[int]string{}
			for len(todo) > 0 {
				g := todo[0]
				todo = todo[1:]
				var add []int
				how := "conflict"
				if en[g] > 0 {
					for h := 0; h < n; h++ {
						if meet(writes[g], reads[h]) || meet(reads[g], writes[h]) {
							add = append(add, h)
						}
					}
				} else {
					var j int
					add, j = nes(g)
					how = "nes" + strconv.Itoa(j)
				}
				for _, h := range add {
					if in[h] {
						continue
					}
					in[h] = true
					todo = append(todo, h)
					parent[h], via[h] = g, how
					if en[h] > 0 || en[g] == 0 {
						edges[kind(g)+sign[en[g] > 0]+" -"+how+"-> "+kind(h)+sign[en[h] > 0]]++
					}
				}
			}
			steps := 0
			for g, c := range en {
				if in[g] {
					steps += c
				}
			}
			bestSteps = min(bestSteps, steps)
			if show {
				var b strings.Builder
				for h := range en {
					if h == key || !in[h] {
						continue
					}
					b.WriteString("\n      " + m.groupName(h) + "+")
					for x := h; x != key; x = parent[x] {
						b.WriteString(" <-" + via[x] + "- " + m.groupName(parent[x]) + sign[en[parent[x]] > 0])
					}
				}
				t.Logf("state %d (%d steps), key %s: %d steps%s", visited, len(succ), m.groupName(key), steps, b.String())
			}
		}
		sum += len(succ)
		sumBest += bestSteps
		if bestSteps < len(succ) {
			withSet++
		}
	}
	t.Logf("%d states, %d with a smaller set; %d steps, %d in the smallest sets", states, withSet, sum, sumBest)
	logTop(t, edges, 40)
}

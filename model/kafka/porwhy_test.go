package kafka

import (
	"os"
	"sort"
	"strconv"
	"testing"

	"kmc/checker"
)

// Diagnostics of the partial-order reduction on the Kafka model (issue 31; docs/engine.md,
// "Partial-order reduction"), run by hand, not by make test. Both search the
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
	keys := make([]string, 0, len(why))
	for k := range why {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return why[keys[i]] > why[keys[j]] || why[keys[i]] == why[keys[j]] && keys[i] < keys[j]
	})
	for i, k := range keys {
		if i == 30 {
			break
		}
		t.Logf("%8d  %s", why[k], k)
	}
}

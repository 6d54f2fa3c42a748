package checker

import "errors"

// CheckIndependence checks a model's declarations of independence (contract item 9,
// Independent) against the model itself, as its bounds leave it (a step a bound cut is no
// step), on every state reachable from inits (m.Init's
// states when inits is nil; a Deferring model's InitDeferred states to check the search
// under symmetry with its choice open), up to maxStates states. For each state it checks
// what the partial-order reduction relies on (por.go):
//
//  1. every step's group is one of the model's;
//  2. accord: for two groups whose footprints do not conflict, each with a step, every step
//     of one leaves the other with a step, and the states reached by a step of each, in
//     either order, are the same set;
//  3. enabling: a step leaves unchanged whether each group that does not read what it
//     writes has a step;
//  4. guards: a group with a false guard has no step, and a step leaves each guard that
//     reads nothing it writes as it was;
//  6. enabling sets (Enabling): for each false guard of each group, its set N (the one the
//     model declares in the state, else the guard's writers) holds groups only, and every
//     step of a group outside N leaves the guard false and the set a subset of N (por.go
//     proves what this gives);
//  5. visibility: over a step of a group that writes nothing a property reads (Property.
//     Reads), an invariant's or Sometimes property's value does not change; an action
//     property holds on the step, and every other step from the same state of a group
//     that accords with it has the property's value it has from the state after it.
//
// It returns the number of states checked and the first failure, naming the state's
// number in breadth-first order, the steps and the groups. It is a test's tool: it keeps
// every state's encoding in a map, and its cost grows with the square of the steps.
func CheckIndependence[S any](m Model[S], props []Property[S], inits []S, maxStates int) (int, error) {
	ind, ok := any(m).(Independent[S])
	if !ok {
		return 0, errors.New("the model does not declare independence (Independent)")
	}
	p, why := newPOR[S](ind, nil)
	if p == nil {
		return 0, errors.New(why)
	}
	if inits == nil {
		inits = m.Init(nil)
	}
	c := &indCheck[S]{m: m, p: p, cache: map[string][]indStep{}}
	seen := map[string]bool{}
	var queue []string
	for i := range inits {
		enc := string(m.Encode(&inits[i], nil))
		if !seen[enc] {
			seen[enc] = true
			queue = append(queue, enc)
		}
	}
	n := 0
	for len(queue) > 0 && n < maxStates {
		enc := queue[0]
		queue = queue[1:]
		n++
		if err := c.state(enc, props); err != nil {
			return n, errors.New("state " + itoa(n) + ": " + err.Error())
		}
		for _, st := range c.steps(enc) {
			if !seen[st.to] {
				seen[st.to] = true
				queue = append(queue, st.to)
			}
		}
		delete(c.cache, enc)
	}
	return n, nil
}

type indStep struct {
	act uint64
	g   int
	to  string // the successor's encoding
}

type indCheck[S any] struct {
	m     Model[S]
	p     *por[S]
	cache map[string][]indStep
}

// steps are the steps of the state encoded enc (cached).
func (c *indCheck[S]) steps(enc string) []indStep {
	if st, ok := c.cache[enc]; ok {
		return st
	}
	var s S
	c.m.Decode([]byte(enc), &s)
	succ, acts := c.m.Next(&s, nil, nil)
	out := make([]indStep, 0, len(succ))
	for i := range succ {
		out = append(out, indStep{act: acts[i], g: c.p.ind.Group(acts[i]), to: string(c.m.Encode(&succ[i], nil))})
	}
	if len(c.cache) > 1<<16 {
		clear(c.cache)
	}
	c.cache[enc] = out
	return out
}

// status is 1 when group g has a step among steps, else 0.
func status(steps []indStep, g int) int {
	for _, x := range steps {
		if x.g == g {
			return 1
		}
	}
	return 0
}

func (c *indCheck[S]) name(a uint64) string { return c.m.ActionName(a) }

func (c *indCheck[S]) group(g int) string { return "group " + itoa(g) }

// after is the set of states reached from the states tos by a step of group g, or nil when
// one of tos has no step of g (then also the culprit's index).
func (c *indCheck[S]) after(tos []string, g int) (map[string]bool, int) {
	out := map[string]bool{}
	for i, to := range tos {
		st := c.steps(to)
		if status(st, g) == 0 {
			return nil, i
		}
		for _, x := range st {
			if x.g == g {
				out[x.to] = true
			}
		}
	}
	return out, -1
}

func (c *indCheck[S]) state(enc string, props []Property[S]) error {
	p := c.p
	steps := c.steps(enc)
	byGroup := map[int][]string{}
	codes := map[int][]uint64{}
	var groups []int
	for _, x := range steps {
		if x.g < 0 || x.g >= p.groups {
			return errors.New("action " + c.name(x.act) + " has group " + itoa(x.g) + " outside 0.." + itoa(p.groups-1))
		}
		if _, ok := byGroup[x.g]; !ok {
			groups = append(groups, x.g)
		}
		byGroup[x.g] = append(byGroup[x.g], x.to)
		codes[x.g] = append(codes[x.g], x.act)
	}
	// 2. Accord.
	for i, g := range groups {
		for _, h := range groups[i+1:] {
			if p.conflict[g].has(h) {
				continue
			}
			gh, bad := c.after(byGroup[g], h)
			if gh == nil {
				return errors.New(c.name(codes[g][bad]) + " (" + c.group(g) + ") disables " + c.name(codes[h][0]) + " (" + c.group(h) + "), declared independent")
			}
			hg, bad := c.after(byGroup[h], g)
			if hg == nil {
				return errors.New(c.name(codes[h][bad]) + " (" + c.group(h) + ") disables " + c.name(codes[g][0]) + " (" + c.group(g) + "), declared independent")
			}
			if len(gh) != len(hg) {
				return errors.New(c.name(codes[g][0]) + " and " + c.name(codes[h][0]) + " (" + c.group(g) + ", " + c.group(h) + ", declared independent) do not commute: " +
					itoa(len(gh)) + " states one way, " + itoa(len(hg)) + " the other")
			}
			for s := range gh {
				if !hg[s] {
					return errors.New(c.name(codes[g][0]) + " and " + c.name(codes[h][0]) + " (" + c.group(g) + ", " + c.group(h) + ", declared independent) do not commute: the orders reach different states")
				}
			}
		}
	}
	// 3. Enabling.
	for _, x := range steps {
		after := c.steps(x.to)
		for g := 0; g < p.groups; g++ {
			if p.enablers[g].has(x.g) {
				continue
			}
			if a, b := status(steps, g), status(after, g); a != b {
				return errors.New(c.name(x.act) + " (" + c.group(x.g) + ") changes whether " + c.group(g) + " is enabled (" +
					enabledWord(a) + " before, " + enabledWord(b) + " after) but writes nothing it reads")
			}
		}
	}
	var s, t, u, v S
	c.m.Decode([]byte(enc), &s)
	// 5. Guards: a group with a false guard has no step; a guard keeps its value over a
	// step that writes nothing it reads.
	for g := 0; g < p.groups; g++ {
		for k := range p.guardEn[g] {
			if !p.ind.Guard(&s, g, k) && status(steps, g) != 0 {
				return errors.New(c.group(g) + " has " + enabledWord(status(steps, g)) + " but its guard " + itoa(k) + " is false")
			}
		}
	}
	for _, x := range steps {
		c.m.Decode([]byte(x.to), &t)
		for g := 0; g < p.groups; g++ {
			for k := range p.guardEn[g] {
				if p.guardEn[g][k].has(x.g) {
					continue
				}
				if p.ind.Guard(&s, g, k) != p.ind.Guard(&t, g, k) {
					return errors.New(c.name(x.act) + " (" + c.group(x.g) + ") changes guard " + itoa(k) + " of " + c.group(g) + " but writes nothing it reads")
				}
			}
		}
	}
	// 6. Enabling sets: a step outside a false guard's set leaves it false and the set no
	// larger.
	if p.en != nil {
		after := make([]S, len(steps))
		for i, x := range steps {
			c.m.Decode([]byte(x.to), &after[i])
		}
		for g := 0; g < p.groups; g++ {
			for k := range p.guardEn[g] {
				if p.ind.Guard(&s, g, k) {
					continue
				}
				var n gset
				if p.en.GuardEnablers(&s, g, k, (*Groups)(&n)) {
					if out := n.andNot(&p.all); !out.empty() {
						return errors.New("the enabling set of guard " + itoa(k) + " of " + c.group(g) + " holds groups outside 0.." + itoa(p.groups-1))
					}
				} else {
					n = p.guardEn[g][k]
				}
				for i, x := range steps {
					if n.has(x.g) {
						continue
					}
					t := &after[i]
					if p.ind.Guard(t, g, k) {
						return errors.New(c.name(x.act) + " (" + c.group(x.g) + ") turns guard " + itoa(k) + " of " + c.group(g) +
							" true but is not in its enabling set")
					}
					var m gset
					if !p.en.GuardEnablers(t, g, k, (*Groups)(&m)) {
						m = p.guardEn[g][k]
					}
					if extra := m.andNot(&n); !extra.empty() {
						h := 0
						for extra[h>>6]&(1<<(h&63)) == 0 {
							h++
						}
						return errors.New(c.name(x.act) + " (" + c.group(x.g) + ", outside the enabling set of guard " + itoa(k) + " of " + c.group(g) +
							") leads to a state whose set for it holds " + c.group(h) + ", which the set before does not")
					}
				}
			}
		}
	}
	// 4. Visibility.
	for pi := range props {
		pr := &props[pi]
		if pr.Reads == nil {
			continue
		}
		for _, x := range steps {
			_, writes := p.ind.Footprint(x.g)
			if objectsMeet(&writes, pr.Reads) {
				continue
			}
			c.m.Decode([]byte(x.to), &t)
			switch pr.Kind {
			case Invariant, Sometimes:
				if pr.State(&s) != pr.State(&t) {
					return errors.New(c.name(x.act) + " (" + c.group(x.g) + ") changes " + pr.Name + ", which reads nothing it writes")
				}
			case ActionProperty:
				if !pr.Step(&s, x.act, &t) {
					return errors.New(c.name(x.act) + " (" + c.group(x.g) + ") violates " + pr.Name + ", which reads nothing it writes")
				}
				// The other steps from s, moved after x: the same value.
				for _, y := range steps {
					if y.g == x.g || p.conflict[x.g].has(y.g) {
						continue
					}
					c.m.Decode([]byte(y.to), &u)
					want := pr.Step(&s, y.act, &u)
					// y's step from t that closes the diamond: it reaches a state x's group
					// reaches from u.
					fromU := map[string]bool{}
					for _, z := range c.steps(y.to) {
						if z.g == x.g {
							fromU[z.to] = true
						}
					}
					for _, z := range c.steps(x.to) {
						if z.act != y.act || !fromU[z.to] {
							continue
						}
						c.m.Decode([]byte(z.to), &v)
						if pr.Step(&t, y.act, &v) != want {
							return errors.New(pr.Name + " on " + c.name(y.act) + " changes when " + c.name(x.act) + " (" + c.group(x.g) +
								", writing nothing it reads) goes first")
						}
					}
				}
			}
		}
	}
	return nil
}

func enabledWord(st int) string {
	if st == 0 {
		return "disabled"
	}
	return "a step"
}

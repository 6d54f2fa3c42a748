package app

// Differential testing (kmc conform --walks): random walks through the Kafka model, each
// replayed on Kafka's classes; every walk whose states Kafka does not follow is a difference
// to explain (a model defect or a documented abstraction, docs/conformance.md).
//
// A walk is taken here, on the model itself, rather than by kmc simulate, whose walks write a
// trace only when they violate a property: walk k draws from a generator seeded by (seed, k)
// alone, picking first a kind of action among those enabled, then one of its steps (as kmc
// simulate's --bias kinds does), so a walk is the same on every run and for every release.

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	model "kmc/model/kafka"
	"kmc/specs"
)

// releaseProfile is the model's release profile that describes Kafka release rel's data
// plane: the release's own profile when the model has one (3.9.0 to 4.1.1), otherwise the
// latest profile of its line (3.9.2: 3.9.1; 4.0.2: 4.0.1; 4.1.2: 4.1.1) or, after 4.1, 4.1.1.
// The replays found the data planes so (docs/conformance.md): 3.9.0 and 4.0.0 have neither
// PR 18852 (KAFKA-18723) nor KAFKA-18991's guard; 3.9.1, 4.0.1 and every later release have
// both. Walks run one controller, whose decisions the harness takes as inputs.
func releaseProfile(rel string) (version string, err error) {
	parts := strings.Split(rel, ".")
	if len(parts) != 3 {
		return "", setupErr("--kafka %q: a Kafka release is three numbers, such as 4.1.1", rel)
	}
	major, _ := strconv.Atoi(parts[0])
	minor, _ := strconv.Atoi(parts[1])
	if _, ok := model.ProfileByName(rel); ok && (major > 3 || major == 3 && minor == 9) {
		return rel, nil
	}
	switch {
	case major == 3 && minor == 9:
		return "3.9.1", nil
	case major == 4 && minor == 0:
		return "4.0.1", nil
	case major >= 4:
		return "4.1.1", nil
	}
	return "", setupErr("--kafka %s: the harness runs Kafka 3.9.0 and later", rel)
}

// walkConfig is the spec check's configuration with the version profile of release rel.
func walkConfig(f *conformFlags, rel string) (model.Config, string, error) {
	if f.spec == "" || f.check == "" {
		return model.Config{}, "", setupErr("--walks needs --spec and --check")
	}
	spec, err := specs.Load(f.spec, f.sets)
	if err != nil {
		return model.Config{}, "", setupErr("%s: %v", f.spec, err)
	}
	if spec.Model != "kafka" {
		return model.Config{}, "", setupErr("%s: model %q; --walks walks the kafka model", f.spec, spec.Model)
	}
	c, ok := spec.CheckByName(f.check)
	if !ok {
		return model.Config{}, "", setupErr("%s has no check %q", f.spec, f.check)
	}
	cfg := specs.KafkaConfig(c.Config)
	v, err := releaseProfile(rel)
	if err != nil {
		return cfg, "", err
	}
	cfg.Version, cfg.Without, cfg.Switches = v, 0, cfg.Switches.With(model.Kafka18723, false)
	if err := cfg.Validate(); err != nil {
		return cfg, "", setupErr("%s, check %s, on the %s profile: %v", f.spec, c.Name, v, err)
	}
	if err := conformConfig(cfg); err != nil {
		return cfg, "", setupErr("%v", err)
	}
	return cfg, f.spec + ", check " + c.Name, nil
}

// walk takes walk k of seed over m, of at most depth states, as ITF states.
func walk(m *model.Model, seed uint64, k int64, depth int) []map[string]any {
	rng := rand.New(rand.NewPCG(seed, uint64(k)))
	init := m.Init(nil)
	s := init[rng.IntN(len(init))]
	states := []map[string]any{itfState(m, &s, "init")}
	var succ []model.State
	var acts []uint64
	for len(states) < depth {
		succ, acts = m.Next(&s, succ[:0], acts[:0])
		if len(succ) == 0 {
			break
		}
		// kinds bias: a kind of action uniformly, then one of its steps.
		var kinds []int
		for _, a := range acts {
			kd := m.ActionKind(a)
			if !containsInt(kinds, kd) {
				kinds = append(kinds, kd)
			}
		}
		kd := kinds[rng.IntN(len(kinds))]
		var pick []int
		for i, a := range acts {
			if m.ActionKind(a) == kd {
				pick = append(pick, i)
			}
		}
		i := pick[rng.IntN(len(pick))]
		s = succ[i]
		states = append(states, itfState(m, &s, m.ActionName(acts[i])))
	}
	return states
}

func containsInt(l []int, v int) bool {
	for _, x := range l {
		if x == v {
			return true
		}
	}
	return false
}

// itfState is state s as the ITF trace writer writes it: each variable's value by name.
func itfState(m *model.Model, s *model.State, action string) map[string]any {
	st := map[string]any{"mbt::actionTaken": action}
	var buf []byte
	for v, name := range m.Vars() {
		buf = m.AppendValue(s, v, buf[:0])
		var x any
		if err := json.Unmarshal(buf, &x); err != nil {
			panic("conform: the model wrote invalid ITF for " + name + ": " + err.Error())
		}
		st[name] = x
	}
	return st
}

// walkDiff is a walk that Kafka did not follow.
type walkDiff struct {
	walk   int64
	state  int
	action string
	first  string
	kind   string // the action's name and the first difference's subject, for grouping
	path   string
}

func conformWalks(f *conformFlags, stdout, stderr io.Writer) int {
	if f.kafka == "" {
		return usage(stderr, "--walks needs --kafka VERSION (the release whose classes replay the walks)")
	}
	cfg, label, err := walkConfig(f, f.kafka)
	if err != nil {
		return report(stderr, err)
	}
	m, err := model.New(cfg)
	if err != nil {
		return report(stderr, setupErr("%v", err))
	}
	h, err := prepare(f, f.kafka, stderr)
	if err != nil {
		return report(stderr, err)
	}
	kafka := "Kafka " + f.kafka
	fmt.Fprintf(stdout, "Replaying %d random walks of at most %d states (%s, profile %s, seed %d) on %s's classes.\n",
		f.walks, f.depth, label, cfg.Version, f.seed, kafka)
	start := time.Now()
	var diffs []walkDiff
	var steps, realSteps, agreedSteps int64
	var harnessFails int
	known := map[string][]walkDiff{}
	// Walks are made as the harness takes them and dropped once compared: a queue of the jobs
	// sent and not yet answered, in order.
	queue := make(chan *job, 64)
	var genErr error
	next := f.firstWalk
	gen := func() (*harnessTrace, bool) {
		if next >= f.firstWalk+int64(f.walks) || genErr != nil {
			close(queue)
			return nil, false
		}
		k := next
		next++
		t := &itfTrace{Path: "walk " + strconv.FormatInt(k, 10), Source: f.spec, Check: f.check, States: walk(m, f.seed, k, f.depth)}
		hi, unmapped, err := buildInput(t, cfg, t.Path)
		if err == nil && len(unmapped) > 0 {
			err = setupErr("walk %d: the harness cannot map these actions: %s (choose a configuration without them)", k, strings.Join(unmapped, "; "))
		}
		if err != nil {
			genErr = err
			close(queue)
			return nil, false
		}
		j := &job{path: t.Path, trace: t, cfg: cfg, input: hi}
		queue <- j
		return &j.input, true
	}
	err = h.stream(gen, func(i int, lines []observed) error {
		j, ok := <-queue
		if !ok {
			return fmt.Errorf("harness output for a walk not sent (%d)", i)
		}
		k := f.firstWalk + int64(i)
		r := compareJob(j, lines, kafka)
		steps += int64(len(j.trace.States) - 1)
		realSteps += int64(r.realSteps)
		agreedSteps += int64(max(r.agreed-1, 0))
		switch {
		case r.reason != nil:
			known[r.reason.Name] = append(known[r.reason.Name], walkDiff{walk: k, state: r.diffState, action: r.diffAction, first: r.diffs[0]})
		case strings.Contains(r.harnessErr, "SEGMENT-ROLL"):
			// Kafka rolled a second segment: the model has one (bytes.go); the walk ends here.
			known["segment-roll"] = append(known["segment-roll"], walkDiff{walk: k, state: r.agreed, action: "", first: r.harnessErr})
		case r.harnessErr != "":
			harnessFails++
			fmt.Fprintf(stdout, "walk %d: the harness failed: %s\n", k, r.harnessErr)
		case r.diffState >= 0:
			name, _, _ := parseAction(r.diffAction)
			d := walkDiff{walk: k, state: r.diffState, action: r.diffAction, first: r.diffs[0], kind: name + ": " + subject(r.diffs[0])}
			if f.out != "" {
				d.path = filepath.Join(f.out, fmt.Sprintf("walk-%d.itf.json", k))
				if err := writeWalk(d.path, m, cfg, f, j.trace.States); err != nil {
					return err
				}
			}
			diffs = append(diffs, d)
		}
		return nil
	})
	if genErr != nil {
		return report(stderr, genErr)
	}
	if err != nil {
		return report(stderr, err)
	}
	printWalkSummary(stdout, f, kafka, diffs, steps, realSteps, agreedSteps, harnessFails, time.Since(start))
	for _, rs := range append(conformReasons, reason{Name: "segment-roll"}) {
		g := known[rs.Name]
		if len(g) == 0 {
			continue
		}
		kind := "documented abstraction"
		if rs.Defect {
			kind = "known model defect"
		}
		fmt.Fprintf(stdout, "  %d walks end at the %s %s; first: walk %d, state %d, %s: %s\n", len(g), kind, rs.Name, g[0].walk, g[0].state, g[0].action, g[0].first)
	}
	switch {
	case harnessFails > 0:
		return ConformInternal
	case len(diffs) > 0:
		return ConformDiffers
	}
	return ConformOK
}

// subject is what a difference line is about: "b2's log", "FetchResponse from b1 to b2: error".
func subject(d string) string {
	if i := strings.Index(d, ": the model"); i >= 0 {
		d = d[:i]
	}
	if i := strings.Index(d, " at offset"); i >= 0 {
		d = d[:i]
	}
	// broker names vary between walks; the subject does not
	for b := 1; b <= model.MaxBrokers; b++ {
		d = strings.ReplaceAll(d, "b"+strconv.Itoa(b), "bN")
	}
	return d
}

func printWalkSummary(w io.Writer, f *conformFlags, kafka string, diffs []walkDiff, steps, realSteps, agreed int64, fails int, took time.Duration) {
	fmt.Fprintf(w, "%d walks, %d steps (%d on %s's classes), %d steps agree before a walk's first difference; %d walks differ unexplained, %d harness failures; %s.\n",
		f.walks, steps, realSteps, kafka, agreed, len(diffs), fails, took.Round(time.Second))
	groups := map[string][]walkDiff{}
	var kinds []string
	for _, d := range diffs {
		if groups[d.kind] == nil {
			kinds = append(kinds, d.kind)
		}
		groups[d.kind] = append(groups[d.kind], d)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		g := groups[k]
		d := g[0]
		fmt.Fprintf(w, "  %d walks: %s\n    first: walk %d, state %d, %s: %s\n", len(g), k, d.walk, d.state, d.action, d.first)
		if d.path != "" {
			fmt.Fprintf(w, "    replay it: kmc conform %s --kafka %s\n", d.path, f.kafka)
		}
	}
}

// writeWalk writes a walk as an ITF trace whose #meta carries the model's configuration
// (kmc::modelConfig; kmc::config is the spec-level configuration of kmc check's traces), so
// that kmc conform replays it alone with the same model.
func writeWalk(path string, m *model.Model, cfg model.Config, f *conformFlags, states []map[string]any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	vars := append(append([]string{}, m.Vars()...), "mbt::actionTaken")
	for i, s := range states {
		s["#meta"] = map[string]any{"index": i}
	}
	doc := map[string]any{
		"#meta": map[string]any{"format": "ITF", "source": f.spec, "kmc::check": f.check,
			"description":      fmt.Sprintf("Created by kmc conform --walks: walk of seed %d that %s did not follow", f.seed, f.kafka),
			"kmc::modelConfig": cfg},
		"vars": vars, "states": states,
	}
	data, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

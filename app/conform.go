package app

// kmc conform: replay kmc traces of the Kafka model on Kafka's own classes (issue 27). The
// harness (conformance/, Java) executes each step on a real UnifiedLog, Partition and
// ReplicaFetcherThread per broker and reports what they hold after it; kmc compares that with
// the trace's state, state by state, and reports the first difference in the trace's terms.

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	model "kmc/model/kafka"
	"kmc/specs"
)

// Exit codes of kmc conform.
const (
	ConformOK       = 0  // every state of every trace agrees with Kafka's classes
	ConformInternal = 1  // the harness failed (I/O, a JVM error, a step it could not execute)
	ConformUsage    = 2  // bad usage, a bad trace or spec, a release not served, no java or mvn
	ConformDiffers  = 14 // Kafka's classes differ from a trace: the first difference is printed
)

// ConformSynopsis is the command line kmc help conform shows.
const ConformSynopsis = "kmc conform TRACE.itf.json... [--kafka VERSION] [--spec SPEC] [--check NAME] [--set key=value]...\n  kmc conform --walks N --spec SPEC --check NAME --kafka VERSION [--seed S] [--depth D] [--set key=value]... [--out DIR]\n  kmc conform --suite FILE"

const conformExamples = `  kmc check specs/kafka-18723.toml --check buggy --out out
  kmc conform out/buggy/trace.itf.json --kafka 3.9.0
  kmc conform out/buggy/trace.itf.json --kafka 4.1.1
  kmc conform --walks 200 --spec specs/kafka-18723.toml --check fixed --set crash=1 --kafka 4.1.1
`

// defaultRelease is the Kafka release a trace is replayed on when --kafka is not given: its
// version profile's release when Maven serves it (3.9.0 and later), and 3.9.1 for 3.9.0 with
// KAFKA-18723's fix switched on (the release that ships it).
func defaultRelease(c model.Config, p model.Profile) string {
	switch p.Name {
	case "3.9.0":
		if c.Switches.Has(model.Kafka18723) {
			return "3.9.1"
		}
		return p.Name
	case "3.9.1", "4.0.0", "4.0.1", "4.1.0", "4.1.1":
		return p.Name
	}
	return ""
}

type conformFlags struct {
	kafka, spec, check, harness, out string
	sets                             []string
	walks                            int
	firstWalk                        int64
	suite                            string
	seed                             uint64
	depth                            int
	verbose                          bool
}

// Conform runs kmc conform with args (after the command's name).
func Conform(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("conform", pflag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.SortFlags = false
	var f conformFlags
	fs.StringVar(&f.kafka, "kafka", "", "the Kafka `VERSION` whose classes run the trace, as Maven Central names it (default: the trace's release profile, 3.9.0 to 4.1.1; 3.9.0 with KAFKA-18723's fix -> 3.9.1)")
	fs.StringVar(&f.spec, "spec", "", "the spec `FILE` the trace was made with (default: the trace's #meta source)")
	fs.StringVar(&f.check, "check", "", "the spec's check `NAME` (default: the trace's kmc::check)")
	fs.StringArrayVar(&f.sets, "set", nil, "override a constant or fault budget, `key=value`, as for kmc check; repeatable")
	fs.StringVar(&f.harness, "harness", "", "the harness's Maven module `DIR` (default: conformance/ in the working folder or a parent)")
	fs.StringVar(&f.suite, "suite", "", "run the conformance table `FILE` (rows TRACE | RELEASES | agree or differs ACTION; see conformance/suite.txt); exit 1 when a row does not turn out as it says")
	fs.IntVar(&f.walks, "walks", 0, "replay `N` random walks of the spec's check instead of trace files (differential testing)")
	fs.Int64Var(&f.firstWalk, "first-walk", 0, "with --walks, number the walks from `K`: --first-walk K --walks 1 replays walk K alone")
	fs.Uint64Var(&f.seed, "seed", 1, "with --walks, the random seed `S`: walk k is drawn from (S, k) alone")
	fs.IntVar(&f.depth, "depth", 60, "with --walks, end each walk after `D` states")
	fs.StringVar(&f.out, "out", "", "with --walks, write each walk that differs as DIR/walk-K.itf.json, for kmc conform to replay alone")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "print every state's step and what ran it on Kafka's classes")
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage:\n  %s\n\nFlags:\n", ConformSynopsis)
		fmt.Fprint(w, fs.FlagUsages())
		fmt.Fprintf(w, "\nExit codes: 0 every state agrees, 14 Kafka's classes differ from a trace (the first\ndifference is printed), 2 bad usage or input, 1 the harness failed.\n\nExamples:\n%s", conformExamples)
	}
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return ConformOK
		}
		fmt.Fprintf(stderr, "kmc: conform: %v\nhint: run 'kmc help conform' for usage\n", err)
		return ConformUsage
	}
	if f.suite != "" {
		if fs.NArg() != 0 || f.walks > 0 {
			return usage(stderr, "--suite takes no trace files and no --walks")
		}
		return conformSuite(f.suite, &f, stdout, stderr)
	}
	if f.walks > 0 {
		if fs.NArg() != 0 {
			return usage(stderr, "--walks takes no trace files (got %d)", fs.NArg())
		}
		return conformWalks(&f, stdout, stderr)
	}
	if fs.NArg() == 0 {
		return usage(stderr, "want one or more trace files (ITF, as kmc check --out writes them)")
	}
	return conformTraces(fs.Args(), &f, stdout, stderr)
}

func usage(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "kmc: conform: %s\nhint: run 'kmc help conform' for usage\n", fmt.Sprintf(format, args...))
	return ConformUsage
}

// job is one trace to replay: its states, configuration and the harness's steps.
type job struct {
	path   string
	trace  *itfTrace
	cfg    model.Config
	input  harnessTrace
	label  string // "specs/kafka-18723.toml, check buggy"
	actSet map[string]bool
}

// loadJob reads a trace and resolves its spec and check into the model's configuration.
func loadJob(path string, f *conformFlags) (*job, error) {
	t, err := loadITF(path)
	if err != nil {
		return nil, setupErr("%v", err)
	}
	specPath := f.spec
	if specPath == "" {
		specPath = t.Source
	}
	if specPath == "" {
		return nil, setupErr("%s: the trace names no spec (#meta source): give --spec", path)
	}
	spec, err := specs.Load(specPath, f.sets)
	if err != nil {
		return nil, setupErr("%s: %v", specPath, err)
	}
	if spec.Model != "kafka" {
		return nil, setupErr("%s: a trace of model %q (%s); kmc conform replays the kafka model's traces on Kafka's classes", path, spec.Model, specPath)
	}
	for _, v := range []string{"status", "role", "log", "hw", "epochCache", "messages", "controller"} {
		found := false
		for _, x := range t.Vars {
			found = found || x == v
		}
		if !found {
			return nil, setupErr("%s: no variable %q: not a trace of the kafka model", path, v)
		}
	}
	name := f.check
	if name == "" {
		name = t.Check
	}
	var c *specs.Check
	if name != "" {
		var ok bool
		if c, ok = spec.CheckByName(name); !ok {
			return nil, setupErr("%s has no check %q", specPath, name)
		}
	} else if len(spec.Checks) == 1 {
		c = &spec.Checks[0]
	} else {
		return nil, setupErr("%s has %d checks and the trace names none: give --check", specPath, len(spec.Checks))
	}
	cfg := specs.KafkaConfig(c.Config)
	if t.Config != nil && f.check == "" && len(f.sets) == 0 {
		cfg = *t.Config // a walk of kmc conform --walks: its own configuration
	}
	if err := cfg.Validate(); err != nil {
		return nil, setupErr("%s, check %s: %v", specPath, c.Name, err)
	}
	if err := conformConfig(cfg); err != nil {
		return nil, setupErr("%s: %v", path, err)
	}
	in, unmapped, err := buildInput(t, cfg, path)
	if err != nil {
		return nil, setupErr("%s: %v", path, err)
	}
	if len(unmapped) > 0 {
		return nil, setupErr("%s: the harness cannot map these actions to Kafka's classes: %s", path, strings.Join(unmapped, "; "))
	}
	j := &job{path: path, trace: t, cfg: cfg, input: in, label: specPath + ", check " + c.Name}
	return j, nil
}

// pickRelease is --kafka, or the default release of the jobs' profile (which must agree).
func pickRelease(f *conformFlags, jobs []*job) (string, error) {
	if f.kafka != "" {
		return f.kafka, nil
	}
	rel := ""
	for _, j := range jobs {
		p, _ := model.ProfileByName(j.cfg.Version)
		r := defaultRelease(j.cfg, p)
		if r == "" {
			return "", setupErr("%s: version profile %s has no served Kafka release: give --kafka (3.9.0 to 4.4.0)", j.path, p.Name)
		}
		if rel != "" && r != rel {
			return "", setupErr("the traces' profiles default to different releases (%s, %s): give --kafka", rel, r)
		}
		rel = r
	}
	return rel, nil
}

func conformTraces(paths []string, f *conformFlags, stdout, stderr io.Writer) int {
	var jobs []*job
	for _, p := range paths {
		j, err := loadJob(p, f)
		if err != nil {
			return report(stderr, err)
		}
		jobs = append(jobs, j)
	}
	release, err := pickRelease(f, jobs)
	if err != nil {
		return report(stderr, err)
	}
	h, err := prepare(f, release, stderr)
	if err != nil {
		return report(stderr, err)
	}
	var in harnessInput
	for _, j := range jobs {
		in.Traces = append(in.Traces, j.input)
	}
	res, err := h.run(in, stderr)
	if err != nil && res == nil {
		return report(stderr, err)
	}
	code := ConformOK
	for i, j := range jobs {
		fmt.Fprintf(stdout, "Replaying %s (%d states; %s) on Kafka %s's classes.\n", j.path, len(j.trace.States), j.label, release)
		r := compareJob(j, res[i], "Kafka "+release)
		printResult(stdout, j, r, f.verbose, "Kafka "+release)
		switch {
		case r.harnessErr != "" && code == ConformOK:
			code = ConformInternal
		case r.diffState >= 0:
			code = ConformDiffers
		}
	}
	if err != nil && code == ConformOK {
		return report(stderr, err)
	}
	return code
}

// prepare checks the tools and builds the harness for release.
func prepare(f *conformFlags, release string, stderr io.Writer) (*harness, error) {
	if !releasePattern.MatchString(release) {
		return nil, setupErr("--kafka %q: a Kafka release is three numbers, such as 4.1.1", release)
	}
	if err := checkTools(); err != nil {
		return nil, err
	}
	dir, err := findHarness(f.harness)
	if err != nil {
		return nil, err
	}
	return buildHarness(dir, release, stderr)
}

func report(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "kmc: conform: %v\n", err)
	if _, ok := err.(*errSetup); ok {
		return ConformUsage
	}
	return ConformInternal
}

// result is the outcome of one trace: the first state that differs (-1: none) and its
// differences, the Kafka log lines of that step, and how many steps ran on Kafka's classes.
type result struct {
	agreed     int // states compared and equal
	diffState  int
	diffAction string
	diffs      []string
	events     []string
	harnessErr string
	stack      string
	reason     *reason // the known reason for the difference, if any
	realSteps  int
	modelSteps map[string]int
}

// compareJob compares the harness's lines for a job with the trace's states.
func compareJob(j *job, lines []observed, kafka string) result {
	r := result{diffState: -1, modelSteps: map[string]int{}}
	steps := map[int]*harnessStep{}
	for i := range j.input.Steps {
		st := &j.input.Steps[i]
		steps[st.State] = st
		if st.Kraft != nil || len(st.Replays) > 0 {
			r.realSteps++
		} else if conformModelOnly[st.Action] || kraftModelOnly[st.Action] || (j.cfg.KRaft && kraftControllerSteps[st.Action] && conformReal[st.Action] == "") {
			r.modelSteps[st.Action]++
		} else {
			r.realSteps++
		}
	}
	for _, o := range lines {
		if o.End {
			continue
		}
		if o.HarnessError != "" {
			r.harnessErr = fmt.Sprintf("state %d: %s", o.State, o.HarnessError)
			r.events, r.stack = o.Events, o.Stack
			return r
		}
		if o.State < 0 || o.State >= len(j.trace.States) {
			r.harnessErr = fmt.Sprintf("the harness reported state %d of a %d-state trace", o.State, len(j.trace.States))
			return r
		}
		d := compareState(j.trace.States[o.State], &o, j.cfg.Brokers, kafka)
		if st := steps[o.State]; st != nil && st.Kraft != nil {
			if o.Kraft == nil {
				r.harnessErr = fmt.Sprintf("state %d: the harness reported no partition change for the controller step %s", o.State, st.Action)
				return r
			}
			d = append(compareKraft(j.trace.States[o.State], st, o.Kraft, kafka), d...)
		}
		if len(d) > 0 {
			r.diffState, r.diffs, r.events = o.State, d, o.Events
			r.diffAction = itfStr(j.trace.States[o.State]["mbt::actionTaken"])
			name, _, _ := parseAction(r.diffAction)
			r.reason = classify(name, d, &o, j.trace.States[o.State])
			return r
		}
		r.agreed++
	}
	if r.agreed < len(j.trace.States) && r.harnessErr == "" {
		r.harnessErr = fmt.Sprintf("the harness reported %d of %d states", r.agreed, len(j.trace.States))
	}
	return r
}

func printResult(w io.Writer, j *job, r result, verbose bool, kafka string) {
	if verbose {
		for i := 1; i < len(j.trace.States) && i <= r.agreed; i++ {
			a := itfStr(j.trace.States[i]["mbt::actionTaken"])
			name, _, _ := parseAction(a)
			how := conformReal[name]
			if j.cfg.KRaft {
				if k := kraftHow(j.input.Steps, i); k != "" {
					how = k
				} else if kraftControllerSteps[name] || kraftModelOnly[name] {
					how = kraftModelText(name)
				}
			}
			if how == "" {
				how = "the model's controller (its decision reaches the brokers as input)"
			}
			fmt.Fprintf(w, "  state %d, %s: agrees; ran %s\n", i, a, how)
		}
	}
	model := modelStepsText(r.modelSteps)
	switch {
	case r.harnessErr != "":
		fmt.Fprintf(w, "The harness failed after %d agreeing states: %s\n", r.agreed, r.harnessErr)
		if verbose {
			fmt.Fprintf(w, "%s\n", r.stack)
		}
	case r.diffState >= 0:
		fmt.Fprintf(w, "State %d, %s: %s differs from the model (states 0-%d agree):\n", r.diffState, r.diffAction, kafka, r.diffState-1)
		for _, d := range r.diffs {
			fmt.Fprintf(w, "  %s\n", d)
		}
		if r.reason != nil {
			kind := "a documented abstraction"
			if r.reason.Defect {
				kind = "a known model defect"
			}
			fmt.Fprintf(w, "This is %s (%s): %s.\n", kind, r.reason.Name, r.reason.Doc)
		}
	default:
		fmt.Fprintf(w, "All %d states agree: %d steps ran on %s's classes%s.\n", r.agreed, r.realSteps, kafka, model)
	}
	if (r.diffState >= 0 || r.harnessErr != "") && len(r.events) > 0 {
		fmt.Fprintf(w, "%s logged in that step:\n", kafka)
		for _, e := range r.events {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
}

func modelStepsText(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	var parts []string
	n := 0
	for k, v := range m {
		parts = append(parts, k+" x"+strconv.Itoa(v))
		n += v
	}
	sort.Strings(parts)
	return fmt.Sprintf("; %d controller steps taken from the model (%s)", n, strings.Join(parts, ", "))
}

// absPath is p made absolute when it can be (for messages).
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

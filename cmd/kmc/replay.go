package main

import (
	"fmt"
	"io"
	"strings"

	"kmc/specs"
	"kmc/traces"
)

const replaySynopsis = "kmc replay TRACE.itf.json --spec SPEC [--check NAME] [--set key=value]..."

const replayExamples = `  kmc replay out/buggy/trace.itf.json --spec specs/twophase.toml --check buggy
`

// runReplay replays a saved trace against a spec's model: it says whether the trace is a
// real behaviour (each state the successor of the one before by the action named) and
// which of the check's properties it violates. Exit 0: a real behaviour that violates the
// property it names (or, naming none, a real behaviour); 1: a trace the model rejects, or
// one that does not violate its property; 2: bad usage, bad spec or bad trace file.
func runReplay(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("replay", replaySynopsis, replayExamples, stdout)
	specPath := fs.String("spec", "", "the spec `FILE` whose model the trace is replayed against")
	check := fs.String("check", "", "the spec's check (protocol variant) to use; default: the one the trace records, or the spec's only check")
	var sets []string
	fs.StringArrayVar(&sets, "set", nil, "override a constant or fault budget: `key=value` (repeatable)")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "replay", "want one trace file (got %d arguments)", fs.NArg())
	}
	if *specPath == "" {
		return usageError(stderr, "replay", "--spec is required")
	}
	path := fs.Arg(0)
	t, meta, code := loadTrace(path, "replay", stderr)
	if t == nil {
		return code
	}
	spec, code := loadSpec(*specPath, sets, stderr)
	if spec == nil {
		return code
	}
	name := *check
	if name == "" {
		name = meta.Check
	}
	var c *specs.Check
	switch {
	case name != "":
		var ok bool
		if c, ok = spec.CheckByName(name); !ok {
			fmt.Fprintf(stderr, "kmc: replay: %s has no check %q%s\n", *specPath, name, specs.DidYouMean(name, checkNameList(spec)))
			hint(stderr, "its checks are: "+checkNames(spec))
			return exitUsage
		}
	case len(spec.Checks) == 1:
		c = &spec.Checks[0]
	default:
		return usageError(stderr, "replay", "%s has %d checks and the trace names none: pick one with --check (%s)", *specPath, len(spec.Checks), checkNames(spec))
	}
	// Values compare in canonical form: ITF leaves the order of sets, maps and record
	// fields free, and another tool may write them in another order than the model.
	r, err := spec.ReplayRunnable(c, traces.AppendCanonical)
	if err != nil {
		fmt.Fprintf(stderr, "kmc: replay: %v\n", err)
		return exitUsage
	}
	canon, err := traces.CanonicalTrace(t)
	if err != nil { // LoadITF has parsed every value already
		fmt.Fprintf(stderr, "kmc: replay: %s: %v\n", path, err)
		return exitInternal
	}
	fmt.Fprintf(stdout, "Replaying %s (%d states) against %s, check %s.\n", path, len(t.States), *specPath, c.Name)
	rep, err := r.Replay(canon)
	if err != nil {
		fmt.Fprintf(stdout, "The trace is not a behaviour of the model: %v\n", err)
		fmt.Fprintf(stderr, "kmc: replay: %s: %v\n", path, err)
		hint(stderr, "was the trace made with another check or other constants? try --check or --set")
		return exitInternal
	}
	fmt.Fprintf(stdout, "The trace is a behaviour of the model: %d states replayed.\n", rep.Steps)
	if len(rep.Violates) == 0 {
		fmt.Fprintln(stdout, "It violates none of the check's properties.")
	} else {
		fmt.Fprintf(stdout, "It violates %s.\n", strings.Join(rep.Violates, ", "))
		for _, w := range rep.Witnesses {
			for _, line := range traces.WrapWords("Why: "+w, 100, "  ") {
				fmt.Fprintln(stdout, line)
			}
		}
	}
	if t.Property != "" && t.Property != specs.DeadlockProperty {
		for _, v := range rep.Violates {
			if v == t.Property {
				return exitOK
			}
		}
		fmt.Fprintf(stderr, "kmc: replay: %s: the trace claims to violate %s, but it does not\n", path, t.Property)
		return exitInternal
	}
	return exitOK
}

func checkNames(spec *specs.Spec) string { return strings.Join(checkNameList(spec), ", ") }

// checkNameList is the names of spec's checks, in order.
func checkNameList(spec *specs.Spec) []string {
	var names []string
	for _, c := range spec.Checks {
		names = append(names, c.Name)
	}
	return names
}

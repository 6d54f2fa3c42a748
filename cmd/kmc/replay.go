package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"kmc/app"
	"kmc/specs"
	"kmc/traces"
)

const replaySynopsis = "kmc replay TRACE.itf.json [--spec SPEC] [--check NAME] [--set key=value]..."

const replayExamples = `  kmc replay out/buggy/trace.itf.json
  kmc replay out/buggy/trace.itf.json --spec specs/twophase.toml --check fixed
`

// runReplay replays a saved trace against a spec's model: it says whether the trace is a
// real behaviour (each state the successor of the one before by the action named) and
// which of the check's properties it violates. Without --spec the model is rebuilt from
// the configuration the trace records (resolveTraceSpec). Exit 0: a real behaviour that
// violates the property it names (or, naming none, a real behaviour); 2: a trace the model
// rejects, or one that does not violate the property it names (the trace is not one of
// this check), bad usage, a bad spec or trace file; 1: a file that cannot be read.
func runReplay(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("replay", replaySynopsis, replayExamples, stdout)
	specPath := fs.String("spec", "", "the spec `FILE` whose model the trace is replayed against (default: the configuration the trace records; with --spec and no --set, the trace's --set overrides apply)")
	check := fs.String("check", "", "the spec's check (protocol variant) to use; default: the one the trace records, or the spec's only check")
	maxSize := traceSizeFlag(fs)
	var sets []string
	fs.StringArrayVar(&sets, "set", nil, "override a constant or fault budget: `key=value` (repeatable)")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "replay", "want one trace file (got %d arguments)", fs.NArg())
	}
	path := fs.Arg(0)
	t, meta, code := loadTrace(path, "replay", *maxSize, stderr)
	if t == nil {
		return code
	}
	ts, code := resolveTraceSpec("replay", path, meta, *specPath, sets, *check, stderr)
	if ts == nil {
		return code
	}
	spec := ts.spec
	res, err := app.Replay(spec, t, ts.check)
	var (
		none  *app.NoCheckError
		model *app.ModelError
	)
	switch {
	case errors.As(err, &none):
		return usageError(stderr, "replay", "%s has %d checks and the trace names none: pick one with --check (%s)",
			spec.Path, len(none.Checks), strings.Join(none.Checks, ", "))
	case errors.As(err, &model):
		fmt.Fprintf(stderr, "kmc: replay: %v\n", err)
		return exitUsage
	case err != nil:
		return appError(stderr, "replay", err, nil)
	}
	header := fmt.Sprintf("Replaying %s (%d states) against %s, check %s: %s.", path, len(t.States), ts.against, res.Check.Name, app.Config(spec, res.Check))
	for _, line := range traces.WrapWords(header, 100, "  ") {
		fmt.Fprintln(stdout, line)
	}
	if err := res.NotBehaviour; err != nil {
		// One error, on stderr: the trace is not one of this check (exit 2, as kmc why).
		fmt.Fprintf(stderr, "kmc: replay: %s: not a behaviour of the model: %v\n", path, err)
		if *specPath == "" && len(sets) == 0 {
			hint(stderr, "the trace does not replay under the configuration it records: was it edited, or made by another kmc build?")
		} else {
			hint(stderr, "was the trace made with another check or other constants? leave out --spec and --set to use the configuration it records, or try --check or --set")
		}
		return exitUsage
	}
	fmt.Fprintf(stdout, "The trace is a behaviour of the model: %d states replayed.\n", res.Steps)
	if len(res.Violates) == 0 {
		fmt.Fprintln(stdout, "It violates none of the check's properties.")
	} else {
		fmt.Fprintf(stdout, "It violates %s.\n", strings.Join(res.Violates, ", "))
		for _, w := range res.Witnesses {
			for _, line := range traces.WrapWords("Why: "+w, 100, "  ") {
				fmt.Fprintln(stdout, line)
			}
		}
	}
	if t.Property != "" && t.Property != specs.DeadlockProperty && !slices.Contains(res.Violates, t.Property) {
		fmt.Fprintf(stderr, "kmc: replay: %s: the trace claims to violate %s, but it does not\n", path, t.Property)
		return exitUsage
	}
	return exitOK
}

// Command kmc is an explicit-state model checker in the style of TLC whose main model is
// Kafka's replication protocol. See README.md and docs/, or run kmc help.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"kmc/app"
	"kmc/app/checkpoint"
	"kmc/checker"
	"kmc/specs"
)

// Exit codes, as TLC numbers them where TLC has one.
const (
	exitOK         = 0  // no violation
	exitInternal   = 1  // internal or I/O failure (for kmc suite: a check differs from its spec)
	exitUsage      = 2  // bad usage or bad spec
	exitIncomplete = 3  // a limit was hit: partial statistics
	exitDeadlock   = 11 // a reachable state has no successor
	exitSafety     = 12 // an invariant or action property is violated
	exitLiveness   = 13 // a liveness property is violated
)

// command is one subcommand. run gets the arguments after the subcommand's name.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands is the dispatch table, in the order kmc help lists them.
var commands = []command{
	{"check", "check a spec's properties and print counterexamples", runCheck},
	{"simulate", "take random walks through a spec's model for bounds too large to check exhaustively", runSimulate},
	{"suite", "run every check of every spec under a folder and compare with its expectation", runSuite},
	{"sweep", "run one check over a grid of constants and fault budgets and tabulate the verdicts", runSweep},
	{"mutate", "turn each named protocol guard off in turn and say which property catches it", runMutate},
	{"list", "list the model families: constants, faults, switches and properties", runList},
	{"render", "render a saved ITF trace as text, ITF, DOT, SVG, PNG, sequence chart or HTML", runRender},
	{"replay", "replay a saved ITF trace against a spec's model and the properties it violates", runReplay},
	{"explore", "serve a local web page to step through a spec's model, state by state, in a browser", runExplore},
	{"node", "run a node of a kmc cluster: an embedded NATS server that takes parts of kmc check --cluster searches", runNode},
	{"why", "turn each fix switch of a saved violation's check and say which one the trace is about", runWhy},
	{"bench", "run the benchmark table (bench/table.toml): states, time, states/s per worker count, bytes per state, peak RSS", runBench},
	{"version", "print kmc's version: the module version, the VCS revision it was built from, the Go version", runVersion},
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run runs the command args names. Output that cannot be written to stdout (a full disk, a
// closed pipe) is an I/O failure: exit 1, whatever the command found.
func run(args []string, stdout, stderr io.Writer) int {
	out := &errWriter{w: stdout}
	code := dispatch(args, out, stderr)
	if out.err != nil {
		fmt.Fprintf(stderr, "kmc: write stdout: %v\n", out.err)
		return exitInternal
	}
	return code
}

// errWriter remembers the first error of its writer and writes nothing after it.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	e.err = err
	return n, err
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "--version":
		return runVersion(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		if len(args) > 1 {
			if c, ok := lookup(args[1]); ok {
				return c.run([]string{"--help"}, stdout, stderr)
			}
			fmt.Fprintf(stderr, "kmc: help: unknown command %q%s\n", args[1], specs.DidYouMean(args[1], commandNames()))
			hint(stderr, "run 'kmc help' for the list of commands")
			return exitUsage
		}
		usage(stdout)
		return exitOK
	}
	c, ok := lookup(name)
	if !ok {
		fmt.Fprintf(stderr, "kmc: unknown command %q%s\n", name, specs.DidYouMean(name, commandNames()))
		hint(stderr, "run 'kmc help' for the list of commands")
		return exitUsage
	}
	return c.run(args[1:], stdout, stderr)
}

// commandNames are the names of kmc's commands.
func commandNames() []string {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	return names
}

func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "kmc is an explicit-state model checker for Kafka's replication protocol.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage:")
	fmt.Fprintln(w, "  kmc COMMAND [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Examples:")
	fmt.Fprintln(w, "  kmc check specs/twophase.toml")
	fmt.Fprintln(w, "  kmc suite specs/")
	fmt.Fprintln(w, "  kmc sweep specs/kafka-14154.toml --check buggy --vary max_epoch=1..3")
	fmt.Fprintln(w, "  kmc simulate specs/kafka-14154.toml --check buggy --set brokers=4 --time 1m")
	fmt.Fprintln(w, "  kmc list")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'kmc help COMMAND' for a command's flags.")
}

// hint prints the one-line suggestion of what to try next after a failure.
func hint(w io.Writer, text string) { fmt.Fprintf(w, "hint: %s\n", text) }

// newFlags makes a command's flag set in ContinueOnError mode. Its help (for --help) goes
// to stdout; parse errors are returned, not printed.
func newFlags(name, synopsis, examples string, stdout io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.SortFlags = false
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage:\n  %s\n\nFlags:\n", synopsis)
		fmt.Fprint(w, fs.FlagUsages())
		fmt.Fprintf(w, "\nExamples:\n%s", examples)
	}
	return fs
}

// parseFlags parses args; it reports (code, false) when the command must return at once:
// exit 0 after --help (help goes to stdout), exit 2 after a bad flag.
func parseFlags(fs *pflag.FlagSet, args []string, stderr io.Writer) (int, bool) {
	err := fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) { // pflag has printed the help
		return exitOK, false
	}
	if err != nil {
		return usageError(stderr, fs.Name(), "%v%s", err, flagSuggestion(fs, err)), false
	}
	return 0, true
}

// flagSuggestion is "; did you mean --NAME?" for pflag's "unknown flag: --X" when one of
// fs's flags is close to X, or "".
func flagSuggestion(fs *pflag.FlagSet, err error) string {
	const prefix = "unknown flag: --"
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if s := specs.Suggest(strings.TrimPrefix(msg, prefix), names); s != "" {
		return "; did you mean --" + s + "?"
	}
	return ""
}

// parseBudgets reads a command's --memory (empty: left as it is) and its time flag called
// timeFlag (empty value: no limit) into s. On a bad value it prints the usage error and
// returns its exit code with ok false.
func parseBudgets(stderr io.Writer, cmd, memory, timeFlag, timeValue string, s *app.Search) (code int, ok bool) {
	if memory != "" {
		n, err := specs.ParseSize(memory)
		if err == nil && n <= 0 {
			err = errors.New("must be positive; leave it out for the default")
		}
		if err != nil {
			return usageError(stderr, cmd, "--memory: %v (got %q)", err, memory), false
		}
		if most, from := app.MemoryCap(); most > 0 && n > most {
			fmt.Fprintf(stderr, "kmc: %s: --memory %s is more than the %s limit allows: the Go runtime reserves more address space than it uses, and beyond a third of the limit (%s) it dies out of memory before the budget stops the work; using %s\n",
				cmd, memory, from, specs.FormatSize(most), specs.FormatSize(most))
			n = most
		}
		s.Memory = n
	}
	if timeValue != "" {
		d, err := specs.ParseDuration(timeValue)
		if err != nil {
			return usageError(stderr, cmd, "--%s: %v (got %q)", timeFlag, err, timeValue), false
		}
		s.Time = d
	}
	return 0, true
}

// appError reports what the application refused of what a command asked (app's errors,
// with f the flags of kmc check when it is that command's) and returns exit 2; an error of
// another kind is a failure, exit 1.
func appError(stderr io.Writer, cmd string, err error, f *checkFlags) int {
	var (
		unknown *app.UnknownCheckError
		none    *app.NoCheckError
		model   *app.ModelError
		sym     *app.NoSymmetryError
		resume  *app.ResumeError
		dir     *app.CheckpointDirError
		taken   *app.CheckpointTakenError
		version *app.OtherVersionError
		search  *app.OtherSearchError
		another *app.OtherCheckError
	)
	switch {
	case errors.As(err, &unknown):
		fmt.Fprintf(stderr, "kmc: %s: %v\n", cmd, err)
		hint(stderr, "its checks are: "+strings.Join(unknown.Checks, ", "))
	case errors.As(err, &none):
		fmt.Fprintf(stderr, "kmc: %s: %s has %d checks: name one with --check\n", cmd, none.Spec, len(none.Checks))
		hint(stderr, "its checks are: "+strings.Join(none.Checks, ", "))
	case errors.As(err, &model):
		fmt.Fprintf(stderr, "kmc: %s: %v\n", cmd, err)
		hint(stderr, "run 'kmc list "+model.Model+"' for the model's parameters")
	case errors.As(err, &sym):
		return usageError(stderr, cmd, "--symmetry: %v", err)
	case errors.Is(err, app.ErrCoverageResumed):
		return usageError(stderr, cmd, "--coverage --resume: %v", err)
	case errors.As(err, &resume):
		fmt.Fprintf(stderr, "kmc: %s: --resume: %v\n", cmd, err)
		switch {
		case errors.As(err, &another):
		case errors.As(err, &version):
			hint(stderr, "resume it with the kmc that wrote it, or start the search over without --resume")
		case errors.As(err, &search):
			hint(stderr, "resume it with the spec, --set values and flags it was written with, or start the search over without --resume")
		case errors.Is(err, checker.ErrOneProcess):
			hint(stderr, "resume it with --partitions N or --cluster URL")
		case resume.Path == "" && (errors.Is(err, checkpoint.ErrNone) || errors.Is(err, os.ErrNotExist)):
			hint(stderr, "--resume takes the folder that --checkpoint wrote")
		default:
			hint(stderr, "the checkpoint cannot be used; start the search over without --resume")
		}
	case errors.As(err, &dir):
		flag := "--checkpoint"
		if f != nil && f.checkpoint == "" {
			flag = "--resume"
		}
		fmt.Fprintf(stderr, "kmc: %s: %s: %v\n", cmd, flag, err)
		hint(stderr, flag+" needs a folder kmc can create and write in")
	case errors.As(err, new(*app.CheckpointLockedError)):
		fmt.Fprintf(stderr, "kmc: %s: %v\n", cmd, err)
		hint(stderr, "wait for that run to end, or give this one another folder")
	case errors.As(err, &taken):
		fmt.Fprintf(stderr, "kmc: %s: --checkpoint: %v\n", cmd, err)
		hint(stderr, "go on with it with --resume "+taken.Dir+", or remove it to start over")
	default:
		fmt.Fprintf(stderr, "kmc: %s: %v\n", cmd, err)
		return exitInternal
	}
	return exitUsage
}

// usageError reports a usage problem found after flag parsing.
func usageError(stderr io.Writer, cmd, format string, args ...any) int {
	fmt.Fprintf(stderr, "kmc: %s: %s\n", cmd, fmt.Sprintf(format, args...))
	hint(stderr, "run 'kmc help "+cmd+"' for usage")
	return exitUsage
}

// jsonLine writes v as JSON on one line: an event of --format json.
func jsonLine(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic("kmc: marshal event: " + err.Error()) // only plain values are marshalled
	}
	fmt.Fprintf(w, "%s\n", b)
}

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"kmc/checker"
	"kmc/specs"
)

const suiteSynopsis = "kmc suite DIR [--workers N] [--memory SIZE]"

const suiteExamples = `  kmc suite specs/
  kmc suite specs/ --workers 1
`

func runSuite(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("suite", suiteSynopsis, suiteExamples, stdout)
	workers := fs.Int("workers", 0, "`N` search workers per check (default: the spec's, else all cores)")
	memory := fs.String("memory", "", "memory budget per check for specs that set none, a `SIZE` such as 4GiB (default: from the RAM, cgroup and ulimit limits: see README)")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "suite", "want one folder of spec files, got %d arguments", fs.NArg())
	}
	if *workers < 0 || *workers > specs.MaxWorkers {
		return usageError(stderr, "suite", "--workers must be 0..%d (got %d)", specs.MaxWorkers, *workers)
	}
	opts := checker.Options{Workers: *workers, MemoryBytes: defaultMemory()}
	if code, ok := parseBudgets(stderr, "suite", *memory, "", "", &opts); !ok {
		return code
	}
	dir := fs.Arg(0)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		if err == nil {
			err = fmt.Errorf("%s: not a folder", dir)
		}
		return usageError(stderr, "suite", "%v", err)
	}
	if paths, err := specs.FindSpecs(dir); err == nil && len(paths) == 0 {
		return usageError(stderr, "suite", "no *.toml files under %s", dir)
	}
	if opts.MemoryBytes > 0 {
		// The Go runtime's soft limit is the budget of the specs that set none, as kmc check
		// sets it (a spec's own limits.memory bounds its search, not the process).
		prev := debug.SetMemoryLimit(opts.MemoryBytes)
		defer debug.SetMemoryLimit(prev)
	}
	stop, release := newStop()
	defer release()
	opts.Stop = stop
	rep, err := specs.RunSuite(dir, opts, stdout)
	if err != nil {
		var list specs.ErrorList
		if errors.As(err, &list) { // every spec's errors, joined
			fmt.Fprintln(stderr, err)
			fmt.Fprintln(stderr, "kmc: suite: bad spec files; nothing was run")
			hint(stderr, "fix the errors above; 'kmc check FILE' shows one spec's errors")
			return exitUsage
		}
		fmt.Fprintf(stderr, "kmc: suite: %v\n", err)
		return exitInternal
	}
	if rep.Mismatches > 0 {
		if rep.NeighbourMismatches > 0 {
			hint(stderr, "'kmc check SPEC --check NAME --set KEY=VALUE' runs a robustness neighbour; "+
				"'kmc sweep SPEC --check NAME --vary KEY=LO..HI' shows where the verdict changes")
		}
		if rep.Mismatches > rep.NeighbourMismatches {
			hint(stderr, "run 'kmc check SPEC --check NAME' for a differing check's statistics and counterexample")
		}
	}
	if rep.Interrupted {
		fmt.Fprintln(stderr, "kmc: suite: interrupted")
		if rep.Mismatches == 0 {
			return exitIncomplete
		}
	}
	if rep.Mismatches > 0 {
		return exitInternal
	}
	return exitOK
}

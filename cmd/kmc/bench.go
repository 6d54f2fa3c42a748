package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"kmc/app"
)

const benchSynopsis = "kmc bench [LIST.toml] [--only SUBSTRING] [--format text|json]"

const benchExamples = `  kmc bench                      # bench/table.toml, every run
  kmc bench --only twophase      # the runs whose spec, check or settings contain "twophase"
`

// runBench runs the benchmark table: each run's check in a child kmc per worker count,
// then one table of distinct states, depth, time and states/s per worker count, the
// engine's bytes per state, the peak RSS and the symmetry factor where the engine reports
// the unreduced count.
func runBench(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench", benchSynopsis, benchExamples, stdout)
	only := fs.String("only", "", "run only the rows whose spec, check or settings contain `SUBSTRING`")
	format := fs.String("format", "text", "output format: text or json")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if *format != "text" && *format != "json" {
		return usageError(stderr, "bench", "--format: want text or json (got %q)", *format)
	}
	if fs.NArg() > 1 {
		return usageError(stderr, "bench", "want at most one list file (got %d arguments)", fs.NArg())
	}
	path := "bench/table.toml"
	if fs.NArg() == 1 {
		path = fs.Arg(0)
	}
	table, err := app.LoadBenchTable(path)
	if err != nil {
		fmt.Fprintf(stderr, "kmc: bench: %v\n", err)
		return exitUsage
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "kmc: bench: cannot find the kmc binary to run: %v\n", err)
		return exitInternal
	}
	ctx, release := signalContext()
	defer release()
	res := app.Bench(ctx, table, app.BenchOptions{Kmc: self, Only: *only, OnEvent: func(e app.Event) {
		switch e := e.(type) {
		case app.BenchStarted:
			fmt.Fprintf(stderr, "bench: %s, %d worker(s)...\n", e.Run.Label(), e.Workers)
		case app.BenchDone:
			r := e.Result
			fmt.Fprintf(stderr, "bench: %s, %d worker(s): %s, %d states, %.1fs\n", e.Run.Label(), r.Workers, r.Verdict, r.Distinct, r.Seconds)
		}
	}})
	if *format == "json" {
		type jsonRow struct {
			Spec    string            `json:"spec"`
			Check   string            `json:"check"`
			Set     []string          `json:"set"`
			Flags   []string          `json:"flags,omitempty"`
			Results []app.BenchResult `json:"results"`
		}
		out := make([]jsonRow, len(res.Rows))
		for i, r := range res.Rows {
			out[i] = jsonRow{r.Run.Spec, r.Run.Check, r.Run.Set, r.Run.Flags, r.Results}
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(stdout, string(b))
	} else {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "spec\tcheck\tset\tverdict\tdistinct\tdepth\ttime 1w\tstates/s 1w\ttime 2w\tstates/s 2w\tspeed-up\tB/state\tpeak RSS\tsymmetry\t")
		for _, r := range res.Rows {
			// A row under symmetry with the assignment order open has no unreduced count:
			// its factor is taken from a row of the same check with --symmetry=false.
			var plain int64
			for _, o := range res.Rows {
				if o.Run.Spec == r.Run.Spec && o.Run.Check == r.Run.Check && slices.Equal(o.Run.Set, r.Run.Set) &&
					slices.Contains(o.Run.Flags, "--symmetry=false") {
					plain = o.Results[len(o.Results)-1].Distinct
				}
			}
			fmt.Fprintln(tw, benchLine(r.Run, r.Results, plain))
		}
		tw.Flush()
	}
	if res.Interrupted {
		fmt.Fprintln(stderr, "kmc: bench: interrupted; the rows above are those done")
		return exitIncomplete
	}
	return exitOK
}

// benchLine is one row of the text table (the set column holds the row's settings and
// flags): the figures of the 1-worker run under "1w" and
// of the 2-worker run under "2w" ("-" for a count the row does not run; other counts are in
// --format json only); verdict, counts, bytes and RSS from the last run. The symmetry factor
// is the unreduced count over the distinct states, or for a run with the assignment order
// open plain (the distinct states of the same check without symmetry, when the table has
// it) over them, marked "open".
func benchLine(r app.BenchRun, rs []app.BenchResult, plain int64) string {
	last := rs[len(rs)-1]
	verdict := last.Verdict
	if last.Property != "" {
		verdict += "(" + last.Property + ")"
	}
	if last.Error != "" {
		verdict = "error: " + last.Error
	}
	cols := []string{r.Spec, r.Check, strings.Join(append(slices.Clone(r.Set), r.Flags...), " "), verdict, fmt.Sprint(last.Distinct), fmt.Sprint(last.Depth)}
	var one, two *app.BenchResult
	for i := range rs {
		switch rs[i].Workers {
		case 1:
			one = &rs[i]
		case 2:
			two = &rs[i]
		}
	}
	for _, x := range []*app.BenchResult{one, two} {
		if x == nil {
			cols = append(cols, "-", "-")
			continue
		}
		cols = append(cols, fmt.Sprintf("%.2fs", x.Seconds), fmt.Sprintf("%.0f", x.PerSecond))
	}
	if one != nil && two != nil && two.Seconds > 0 {
		cols = append(cols, fmt.Sprintf("%.2fx", one.Seconds/two.Seconds))
	} else {
		cols = append(cols, "-")
	}
	bps := "-"
	if last.Distinct > 0 {
		bps = fmt.Sprintf("%.1f", float64(last.EngineB)/float64(last.Distinct))
	}
	sym := "-"
	switch {
	case last.Unreduced > 0 && last.Distinct > 0:
		sym = fmt.Sprintf("%.2fx", float64(last.Unreduced)/float64(last.Distinct))
	case last.Deferred && plain > 0 && last.Distinct > 0:
		sym = fmt.Sprintf("%.2fx open", float64(plain)/float64(last.Distinct))
	case last.Deferred:
		sym = "open"
	}
	cols = append(cols, bps, fmt.Sprintf("%.0f MiB", float64(last.PeakRSS)/(1<<20)), sym)
	return strings.Join(cols, "\t") + "\t"
}

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/BurntSushi/toml"
)

const benchSynopsis = "kmc bench [LIST.toml] [--only SUBSTRING] [--format text|json]"

const benchExamples = `  kmc bench                      # bench/table.toml, every run
  kmc bench --only twophase      # the runs whose spec, check or settings contain "twophase"
`

// benchList is the file kmc bench reads: the runs of the benchmark table.
type benchList struct {
	Run []benchRun `toml:"run"`
}

// benchRun is one row of the table: a check of a spec with settings, run once per worker
// count (each in a child process, so that its peak RSS is its own).
type benchRun struct {
	Spec    string   `toml:"spec"`
	Check   string   `toml:"check"`
	Set     []string `toml:"set"`
	Workers []int    `toml:"workers"` // default [1, 2]
	Flags   []string `toml:"flags"`   // more kmc check flags, such as "--symmetry"
	Note    string   `toml:"note"`
}

// benchResult is one child run.
type benchResult struct {
	Workers   int     `json:"workers"`
	Verdict   string  `json:"verdict"`
	Property  string  `json:"property,omitempty"`
	Distinct  int64   `json:"distinct"`
	Unreduced int64   `json:"unreduced,omitempty"`
	Deferred  bool    `json:"deferred,omitempty"` // under symmetry with the assignment order open
	Depth     int     `json:"depth"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"states_per_second"`
	EngineB   int64   `json:"engine_bytes"`
	PeakRSS   int64   `json:"peak_rss_bytes"`
	Error     string  `json:"error,omitempty"`
}

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
	list, err := loadBenchList(path)
	if err != nil {
		fmt.Fprintf(stderr, "kmc: bench: %v\n", err)
		return exitUsage
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "kmc: bench: cannot find the kmc binary to run: %v\n", err)
		return exitInternal
	}
	stop, release := newStop()
	defer release()
	type row struct {
		run     benchRun
		results []benchResult
	}
	var rows []row
	interrupted := false
	for _, r := range list.Run {
		label := r.Spec + " " + r.Check + " " + strings.Join(r.Set, " ")
		if *only != "" && !strings.Contains(label, *only) {
			continue
		}
		rw := row{run: r}
		for _, w := range r.Workers {
			fmt.Fprintf(stderr, "bench: %s, %d worker(s)...\n", label, w)
			res := benchOnce(self, r, w, stop)
			if stopped(stop) {
				interrupted = true
				break
			}
			fmt.Fprintf(stderr, "bench: %s, %d worker(s): %s, %d states, %.1fs\n", label, w, res.Verdict, res.Distinct, res.Seconds)
			rw.results = append(rw.results, res)
		}
		if len(rw.results) > 0 {
			rows = append(rows, rw)
		}
		if interrupted {
			break
		}
	}
	if *format == "json" {
		type jsonRow struct {
			Spec    string        `json:"spec"`
			Check   string        `json:"check"`
			Set     []string      `json:"set"`
			Flags   []string      `json:"flags,omitempty"`
			Results []benchResult `json:"results"`
		}
		out := make([]jsonRow, len(rows))
		for i, r := range rows {
			out[i] = jsonRow{r.run.Spec, r.run.Check, r.run.Set, r.run.Flags, r.results}
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(stdout, string(b))
	} else {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "spec\tcheck\tset\tverdict\tdistinct\tdepth\ttime 1w\tstates/s 1w\ttime 2w\tstates/s 2w\tspeed-up\tB/state\tpeak RSS\tsymmetry\t")
		for _, r := range rows {
			// A row under symmetry with the assignment order open has no unreduced count:
			// its factor is taken from a row of the same check with --symmetry=false.
			var plain int64
			for _, o := range rows {
				if o.run.Spec == r.run.Spec && o.run.Check == r.run.Check && slices.Equal(o.run.Set, r.run.Set) &&
					slices.Contains(o.run.Flags, "--symmetry=false") {
					plain = o.results[len(o.results)-1].Distinct
				}
			}
			fmt.Fprintln(tw, benchLine(r.run, r.results, plain))
		}
		tw.Flush()
	}
	if interrupted {
		fmt.Fprintln(stderr, "kmc: bench: interrupted; the rows above are those done")
		return exitIncomplete
	}
	return exitOK
}

// loadBenchList reads and checks the list file: every run names a spec and a check; an
// unknown key is an error naming it.
func loadBenchList(path string) (*benchList, error) {
	var l benchList
	md, err := toml.DecodeFile(path, &l)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", path, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("%s: unknown key %s (want spec, check, set, workers, flags, note in [[run]])", path, und[0])
	}
	if len(l.Run) == 0 {
		return nil, fmt.Errorf("%s: no [[run]]", path)
	}
	for i := range l.Run {
		r := &l.Run[i]
		if r.Spec == "" || r.Check == "" {
			return nil, fmt.Errorf("%s: run %d: spec and check are required", path, i+1)
		}
		if len(r.Workers) == 0 {
			r.Workers = []int{1, 2}
		}
		for _, w := range r.Workers {
			if w < 1 || w > 256 {
				return nil, fmt.Errorf("%s: run %d (%s %s): workers: %d outside 1..256", path, i+1, r.Spec, r.Check, w)
			}
		}
	}
	return &l, nil
}

// benchOnce runs one check in a child kmc with w workers and reads its JSON result and its
// peak RSS (getrusage of the child).
func benchOnce(self string, r benchRun, w int, stop <-chan struct{}) benchResult {
	args := []string{"check", r.Spec, "--check", r.Check, "--workers", fmt.Sprint(w), "--format", "json"}
	for _, s := range r.Set {
		args = append(args, "--set", s)
	}
	args = append(args, r.Flags...)
	cmd := exec.Command(self, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	res := benchResult{Workers: w}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		res.Error = err.Error()
		return res
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-stop:
			cmd.Process.Signal(os.Interrupt)
		case <-done:
		}
	}()
	cmd.Wait()
	close(done)
	wall := time.Since(start).Seconds()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.PeakRSS = ru.Maxrss * 1024 // kilobytes on Linux
	}
	var last map[string]json.RawMessage
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	for sc.Scan() {
		var ev map[string]json.RawMessage
		if json.Unmarshal(sc.Bytes(), &ev) == nil && string(ev["event"]) == `"done"` {
			last = ev
		}
	}
	if last == nil {
		res.Error = strings.TrimSpace(errb.String())
		if res.Error == "" {
			res.Error = "no result"
		}
		res.Seconds = wall
		return res
	}
	json.Unmarshal(last["verdict"], &res.Verdict)
	json.Unmarshal(last["property"], &res.Property)
	var st struct {
		Distinct  int64   `json:"distinct"`
		Unreduced int64   `json:"unreduced"`
		Deferred  bool    `json:"deferred"`
		Depth     int     `json:"depth"`
		Elapsed   float64 `json:"elapsed_seconds"`
		Memory    int64   `json:"memory_bytes"`
	}
	json.Unmarshal(last["stats"], &st)
	res.Distinct, res.Unreduced, res.Depth, res.Seconds, res.EngineB = st.Distinct, st.Unreduced, st.Depth, st.Elapsed, st.Memory
	res.Deferred = st.Deferred
	if res.Seconds > 0 {
		res.PerSecond = float64(res.Distinct) / res.Seconds
	}
	return res
}

// benchLine is one row of the text table (the set column holds the row's settings and
// flags): the figures of the 1-worker run under "1w" and
// of the 2-worker run under "2w" ("-" for a count the row does not run; other counts are in
// --format json only); verdict, counts, bytes and RSS from the last run. The symmetry factor
// is the unreduced count over the distinct states, or for a run with the assignment order
// open plain (the distinct states of the same check without symmetry, when the table has
// it) over them, marked "open".
func benchLine(r benchRun, rs []benchResult, plain int64) string {
	last := rs[len(rs)-1]
	verdict := last.Verdict
	if last.Property != "" {
		verdict += "(" + last.Property + ")"
	}
	if last.Error != "" {
		verdict = "error: " + last.Error
	}
	cols := []string{r.Spec, r.Check, strings.Join(append(slices.Clone(r.Set), r.Flags...), " "), verdict, fmt.Sprint(last.Distinct), fmt.Sprint(last.Depth)}
	var one, two *benchResult
	for i := range rs {
		switch rs[i].Workers {
		case 1:
			one = &rs[i]
		case 2:
			two = &rs[i]
		}
	}
	for _, x := range []*benchResult{one, two} {
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

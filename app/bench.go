package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/BurntSushi/toml"
)

// BenchTable is the file Bench reads (bench/table.toml): the runs of the benchmark table.
type BenchTable struct {
	Run []BenchRun `toml:"run"`
}

// BenchRun is one row of the table: a check of a spec with settings, run once per worker
// count (each in a child process, so that its peak RSS is its own).
type BenchRun struct {
	Spec    string   `toml:"spec"`
	Check   string   `toml:"check"`
	Set     []string `toml:"set"`
	Workers []int    `toml:"workers"` // default [1, 2]
	Flags   []string `toml:"flags"`   // more kmc check flags, such as "--symmetry"
	Note    string   `toml:"note"`
}

// BenchResult is one child run.
type BenchResult struct {
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

// BenchRow is a row of the table and its runs, one per worker count done.
type BenchRow struct {
	Run     BenchRun
	Results []BenchResult
}

// BenchOptions say how Bench runs the table.
type BenchOptions struct {
	// Kmc is the kmc binary that runs each row: `kmc check ... --format json` in a child
	// process, whose result and peak RSS (getrusage) Bench reads.
	Kmc string
	// Only, when set, runs only the rows whose spec, check or settings contain it.
	Only string
	// OnEvent, when set, gets BenchStarted and BenchDone for each run.
	OnEvent func(Event)
}

// BenchResults is what Bench measured.
type BenchResults struct {
	Rows        []BenchRow
	Interrupted bool // ctx stopped the table: the rows are those done
}

// LoadBenchTable reads and checks a table file: every run names a spec and a check, its
// worker counts are 1..256 (default 1 and 2); an unknown key is an error naming it.
func LoadBenchTable(path string) (*BenchTable, error) {
	var l BenchTable
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

// Label is the run's spec, check and settings, as Only matches them.
func (r *BenchRun) Label() string { return r.Spec + " " + r.Check + " " + strings.Join(r.Set, " ") }

// Bench runs each row of the table with each of its worker counts in a child kmc process,
// one after the other, and returns what each reported with its peak RSS. Cancelling ctx
// interrupts the child under way (SIGINT) and stops the table: that run is not in the
// result.
func Bench(ctx context.Context, table *BenchTable, o BenchOptions) *BenchResults {
	emit := emitter(o.OnEvent)
	res := &BenchResults{}
	for i := range table.Run {
		r := &table.Run[i]
		if o.Only != "" && !strings.Contains(r.Label(), o.Only) {
			continue
		}
		row := BenchRow{Run: *r}
		for _, w := range r.Workers {
			emit(BenchStarted{Run: r, Workers: w})
			one := benchOnce(ctx, o.Kmc, r, w)
			if ctx.Err() != nil {
				res.Interrupted = true
				break
			}
			row.Results = append(row.Results, one)
			emit(BenchDone{Run: r, Result: &row.Results[len(row.Results)-1]})
		}
		if len(row.Results) > 0 {
			res.Rows = append(res.Rows, row)
		}
		if res.Interrupted {
			break
		}
	}
	return res
}

// benchOnce runs one check in a child kmc with w workers and reads its JSON result and its
// peak RSS (getrusage of the child).
func benchOnce(ctx context.Context, kmc string, r *BenchRun, w int) BenchResult {
	args := []string{"check", r.Spec, "--check", r.Check, "--workers", fmt.Sprint(w), "--format", "json"}
	for _, s := range r.Set {
		args = append(args, "--set", s)
	}
	args = append(args, r.Flags...)
	cmd := exec.Command(kmc, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	res := BenchResult{Workers: w}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		res.Error = err.Error()
		return res
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
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

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"kmc/app"
)

// kmc bench runs each row in a child kmc per worker count and tabulates what the child
// reported, with its peak RSS: the same distinct states for 1 and 2 workers.
func TestBenchRuns(t *testing.T) {
	bin := kmcBinary(t)
	dir := t.TempDir()
	spec, _ := filepath.Abs("../../specs/twophase.toml")
	list := filepath.Join(dir, "table.toml")
	src := "[[run]]\nspec = " + `"` + spec + `"` + "\ncheck = \"fixed\"\nset = [\"rms=4\"]\n"
	if err := os.WriteFile(list, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "bench", list, "--format", "json").Output()
	if err != nil {
		t.Fatalf("kmc bench: %v", err)
	}
	var rows []struct {
		Check   string            `json:"check"`
		Results []app.BenchResult `json:"results"`
	}
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("kmc bench --format json: %v\n%s", err, out)
	}
	if len(rows) != 1 || len(rows[0].Results) != 2 {
		t.Fatalf("got %+v, want one row with results for 1 and 2 workers", rows)
	}
	a, b := rows[0].Results[0], rows[0].Results[1]
	if a.Workers != 1 || b.Workers != 2 || a.Verdict != "ok" || a.Distinct == 0 || a.Distinct != b.Distinct || a.Depth != b.Depth {
		t.Errorf("results %+v and %+v: want ok with the same distinct states and depth for 1 and 2 workers", a, b)
	}
	if a.PeakRSS < 1<<20 || a.EngineB <= 0 {
		t.Errorf("peak RSS %d, engine bytes %d: want both measured", a.PeakRSS, a.EngineB)
	}
	text, err := exec.Command(bin, "bench", list).Output()
	if err != nil || !strings.Contains(string(text), "states/s 2w") || !strings.Contains(string(text), "rms=4") {
		t.Errorf("kmc bench text: %v\n%s", err, text)
	}
}

// A row run with 2 workers only shows its figures under "2w", not under "1w".
func TestBenchLineColumns(t *testing.T) {
	r := app.BenchRun{Spec: "s.toml", Check: "c", Workers: []int{2}}
	line := benchLine(r, []app.BenchResult{{Workers: 2, Verdict: "ok", Distinct: 1000, Depth: 7, Seconds: 2, PerSecond: 500, EngineB: 14000, PeakRSS: 64 << 20}}, 0)
	want := "s.toml\tc\t\tok\t1000\t7\t-\t-\t2.00s\t500\t-\t14.0\t64 MiB\t-\t"
	if line != want {
		t.Errorf("got  %q\nwant %q", line, want)
	}
}

// The symmetry column: the unreduced count over the distinct states; for a run with the
// assignment order open, the plain run's distinct states (another row) over them, marked
// open, or just open without such a row.
func TestBenchLineSymmetry(t *testing.T) {
	r := app.BenchRun{Spec: "s.toml", Check: "c", Workers: []int{2}}
	tests := []struct {
		res   app.BenchResult
		plain int64
		want  string
	}{
		{app.BenchResult{Workers: 2, Distinct: 1000, Unreduced: 2000}, 0, "2.00x"},
		{app.BenchResult{Workers: 2, Distinct: 1000, Deferred: true}, 1500, "1.50x open"},
		{app.BenchResult{Workers: 2, Distinct: 1000, Deferred: true}, 0, "open"},
		{app.BenchResult{Workers: 2, Distinct: 1000}, 1500, "-"},
	}
	for _, tc := range tests {
		cols := strings.Split(benchLine(r, []app.BenchResult{tc.res}, tc.plain), "\t")
		if got := cols[len(cols)-2]; got != tc.want {
			t.Errorf("%+v, plain %d: symmetry %q, want %q", tc.res, tc.plain, got, tc.want)
		}
	}
}

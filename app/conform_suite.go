package app

// kmc conform --suite FILE: the conformance table. Each row replays one trace on one or more
// Kafka releases and says what must happen: every state agrees, or the first difference is at a
// step of a given action. Rows run grouped by release, one harness run per release.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
)

// suiteRow is one row of a suite file.
type suiteRow struct {
	line     int
	trace    string
	releases []string
	// expect is "agree", or the action name of the expected first difference.
	expect string
}

// parseSuite reads a suite file: "TRACE | RELEASE... | agree" or "... | differs ACTION" per
// line, # comments. Errors name the file and line.
func parseSuite(path string) ([]suiteRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, setupErr("--suite: %v", err)
	}
	defer f.Close()
	var rows []suiteRow
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "|")
		if len(parts) != 3 {
			return nil, setupErr("%s:%d: want TRACE | RELEASES | EXPECT (three fields separated by |), got %q", path, n, line)
		}
		r := suiteRow{line: n, trace: strings.TrimSpace(parts[0]), releases: strings.Fields(parts[1])}
		exp := strings.Fields(parts[2])
		switch {
		case len(exp) == 1 && exp[0] == "agree":
			r.expect = "agree"
		case len(exp) == 2 && exp[0] == "differs":
			r.expect = exp[1]
		default:
			return nil, setupErr("%s:%d: EXPECT must be \"agree\" or \"differs ACTION\", got %q", path, n, strings.TrimSpace(parts[2]))
		}
		if len(r.releases) == 0 {
			return nil, setupErr("%s:%d: no release", path, n)
		}
		for _, rel := range r.releases {
			if !releasePattern.MatchString(rel) {
				return nil, setupErr("%s:%d: release %q is not three numbers such as 4.1.1", path, n, rel)
			}
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, setupErr("%s: no rows", path)
	}
	return rows, nil
}

// conformSuite runs a suite file. Exit 0 when every row turns out as it says, 1 otherwise.
func conformSuite(path string, f *conformFlags, stdout, stderr io.Writer) int {
	rows, err := parseSuite(path)
	if err != nil {
		return report(stderr, err)
	}
	jobs := map[string]*job{}
	byRelease := map[string][]int{}
	for i, r := range rows {
		if jobs[r.trace] == nil {
			j, err := loadJob(r.trace, &conformFlags{})
			if err != nil {
				return report(stderr, fmt.Errorf("%s:%d: %w", path, r.line, err))
			}
			jobs[r.trace] = j
		}
		for _, rel := range r.releases {
			byRelease[rel] = append(byRelease[rel], i)
		}
	}
	var releases []string
	for rel := range byRelease {
		releases = append(releases, rel)
	}
	sort.Strings(releases)
	type outcome struct {
		row     int
		release string
		r       result
	}
	var outs []outcome
	for _, rel := range releases {
		h, err := prepare(f, rel, stderr)
		if err != nil {
			return report(stderr, err)
		}
		var in harnessInput
		for _, i := range byRelease[rel] {
			in.Traces = append(in.Traces, jobs[rows[i].trace].input)
		}
		res, err := h.run(in, stderr)
		if err != nil {
			return report(stderr, fmt.Errorf("Kafka %s: %w", rel, err))
		}
		for k, i := range byRelease[rel] {
			outs = append(outs, outcome{row: i, release: rel, r: compareJob(jobs[rows[i].trace], res[k], "Kafka "+rel)})
		}
	}
	sort.SliceStable(outs, func(a, b int) bool {
		if outs[a].row != outs[b].row {
			return outs[a].row < outs[b].row
		}
		return outs[a].release < outs[b].release
	})
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TRACE\tRELEASE\tSTATES\tSTEPS ON KAFKA\tRESULT\tEXPECTED\t")
	bad := 0
	var details []string
	for _, o := range outs {
		row := rows[o.row]
		j := jobs[row.trace]
		got, ok := "agree", false
		switch {
		case o.r.harnessErr != "":
			got = "harness failed: " + o.r.harnessErr
		case o.r.diffState >= 0:
			name, _, _ := parseAction(o.r.diffAction)
			got = fmt.Sprintf("differs at state %d, %s", o.r.diffState, o.r.diffAction)
			ok = row.expect == name
		default:
			ok = row.expect == "agree"
		}
		exp := row.expect
		if exp != "agree" {
			exp = "differs " + exp
		}
		mark := "as expected"
		if !ok {
			mark = "NOT AS EXPECTED"
			bad++
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s (%s)\t\n", shortTrace(row.trace), o.release, len(j.trace.States), o.r.realSteps, got, exp, mark)
		if !ok || o.r.diffState >= 0 {
			var b strings.Builder
			printResult(&b, j, o.r, false, "Kafka "+o.release)
			details = append(details, fmt.Sprintf("%s on Kafka %s (%s:%d):\n%s", row.trace, o.release, path, row.line, indent(b.String())))
		}
	}
	tw.Flush()
	if f.verbose {
		for _, d := range details {
			fmt.Fprintf(stdout, "\n%s", d)
		}
	}
	fmt.Fprintf(stdout, "%d replays, %d as expected, %d not.\n", len(outs), len(outs)-bad, bad)
	if bad > 0 {
		return ConformInternal
	}
	return ConformOK
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// shortTrace is a trace path without the folders kmc check --out adds: "kafka-18723/buggy".
func shortTrace(p string) string {
	p = strings.TrimSuffix(p, "/trace.itf.json")
	p = strings.TrimSuffix(p, ".itf.json")
	for _, pre := range []string{"out/conformance/", "conformance/traces/"} {
		p = strings.TrimPrefix(p, pre)
	}
	return p
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"kmc/checker"
	"kmc/specs"
	"kmc/traces"
)

// buggyTrace checks the twophase spec's buggy check and writes its counterexample as ITF.
func buggyTrace(t *testing.T) (*checker.Trace, string) {
	t.Helper()
	sp, err := specs.Load(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := sp.CheckByName("buggy")
	r, opts, err := sp.Runnable(c)
	if err != nil {
		t.Fatal(err)
	}
	opts.Workers = 1
	res := r.Check(opts)
	if res.Trace == nil {
		t.Fatalf("buggy: got verdict %s and no trace", res.Verdict)
	}
	var b bytes.Buffer
	if err := traces.WriteITF(&b, res.Trace, traces.ITFOptions{Source: spec, Check: "buggy"}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "trace.itf.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return res.Trace, path
}

func runCLI(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// Reference: issue 6 (kmc replay: a real trace replays and violates its property; a trace
// edited by hand to an impossible step is rejected with the step number and the reason).
func TestReplay(t *testing.T) {
	tr, path := buggyTrace(t)
	code, out, errs := runCLI("replay", path, "--spec", spec)
	if code != exitOK || !strings.Contains(out, "It violates TCConsistent") {
		t.Errorf("replay of the real trace: got exit %d\n%s%s", code, out, errs)
	}

	// Edit the last step to an action the model cannot take there.
	edited := *tr
	edited.States = append([]checker.TraceState(nil), tr.States...)
	last := len(edited.States) - 1
	edited.States[last].Action = "RMRcvCommitMsg(9)"
	var b bytes.Buffer
	if err := traces.WriteITF(&b, &edited, traces.ITFOptions{Check: "buggy"}); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "edited.itf.json")
	if err := os.WriteFile(bad, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI("replay", bad, "--spec", spec)
	step := "step " + strconv.Itoa(last+1) + ":"
	if code != exitUsage || !strings.Contains(errs, step) || strings.Count(errs, step) != 1 || strings.Contains(out, step) {
		t.Errorf("replay of an edited trace: got exit %d, want %d and one error naming %q, on stderr\n%s%s", code, exitUsage, step, out, errs)
	}

	for _, tc := range []struct {
		name string
		args []string
		exit int
		want string
	}{
		// buggyTrace's trace records no configuration, as an earlier kmc's.
		{"no spec", []string{"replay", path}, exitUsage, "--spec is required: " + path + " records no configuration"},
		{"unknown check", []string{"replay", path, "--spec", spec, "--check", "nope"}, exitUsage, `has no check "nope"`},
		{"missing file", []string{"replay", "nothing.itf.json", "--spec", spec}, exitUsage, "nothing.itf.json"},
	} {
		code, out, errs := runCLI(tc.args...)
		if code != tc.exit || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: got exit %d, want %d with %q\n%s%s", tc.name, code, tc.exit, tc.want, out, errs)
		}
	}
}

// Reference: issue 6 (kmc render TRACE.itf.json --format ... -o FILE).
func TestRender(t *testing.T) {
	_, path := buggyTrace(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		format, want string
	}{
		{"text", "State 2: <TMCommit>"},
		{"itf", `"mbt::actionTaken": "TMCommit"`},
		{"dot", "digraph trace {"},
		{"svg", "<svg"},
		{"png", "\x89PNG"},
		{"sequence", "<svg"},
		{"sequence-png", "\x89PNG"},
		{"html", "<!DOCTYPE html>"},
	} {
		out := filepath.Join(dir, "out."+tc.format)
		code, stdout, stderr := runCLI("render", path, "--format", tc.format, "-o", out)
		if code != exitOK {
			t.Errorf("%s: got exit %d\n%s%s", tc.format, code, stdout, stderr)
			continue
		}
		data, err := os.ReadFile(out)
		if err != nil || !strings.Contains(string(data), tc.want) {
			t.Errorf("%s: got %v, want a file containing %q", tc.format, err, tc.want)
		}
	}
	code, stdout, _ := runCLI("render", path)
	if code != exitOK || !strings.HasPrefix(stdout, "State 1: <Initial predicate>") {
		t.Errorf("render to stdout: got exit %d\n%s", code, stdout)
	}
	bad := filepath.Join(dir, "bad.itf.json")
	os.WriteFile(bad, []byte(`{"vars":["x"],"states":[{"x":{"#set":[null]}}]}`), 0o644)
	code, _, stderr := runCLI("render", bad)
	if code != exitUsage || !strings.Contains(stderr, "states[0] (state 1): x.#set[0]: null") {
		t.Errorf("bad trace: got exit %d\n%s", code, stderr)
	}
	code, _, stderr = runCLI("render", path, "--format", "gif")
	if code != exitUsage || !strings.Contains(stderr, `(got "gif")`) {
		t.Errorf("bad format: got exit %d\n%s", code, stderr)
	}
}

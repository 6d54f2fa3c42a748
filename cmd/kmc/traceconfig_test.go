package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kmc/specs"
	"kmc/traces"
)

// withoutConfig writes the trace at path again without the configuration it records
// (#meta kmc::specSha256, kmc::sets, kmc::config), as an earlier kmc wrote it, and returns
// the new file's path.
func withoutConfig(t *testing.T, path string) string {
	t.Helper()
	tr, meta, err := traces.LoadITFFile(path, traces.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if meta.Config == nil {
		t.Fatalf("%s records no configuration", path)
	}
	meta.Config = nil
	var b bytes.Buffer
	if err := traces.WriteITF(&b, tr, meta); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "old.itf.json")
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// recordedMeta is a trace file's #meta.
func recordedMeta(t *testing.T, path string) map[string]json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Meta map[string]json.RawMessage `json:"#meta"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Meta
}

// Reference: issue 28, "Traces that carry their configuration": a trace written by each
// model family records the configuration that made it (the spec's path and SHA-256, every
// --set and --fix as given, the check resolved), and kmc replay rebuilds the model from it
// without the spec file; the same run writes the same bytes.
func TestTraceCarriesConfig(t *testing.T) {
	tests := []struct {
		name, spec, check string
		sets              []string // kmc check's flags that change the model
		wantSets          string   // #meta.kmc::sets
		wantConfig        []string // in #meta.kmc::config
		wantHeader        string   // in kmc replay's first lines
	}{
		{"twophase", spec, "buggy", []string{"--set", "rms=2"}, `["rms=2"]`,
			[]string{`"model":"twophase"`, `"check":"buggy"`, `"rms":2`, `"fixes":[]`}, "rms=2 fixes=none"},
		{"reference, a guard turned off", "../../specs/reference/kip320-guards.toml", "r3-FetchLeaderEpoch", nil, `[]`,
			[]string{`"model":"reference"`, `"mutate":["FetchLeaderEpoch"]`}, "mutate=FetchLeaderEpoch"},
		{"vanlightly", "../../specs/vanlightly/v3-5-guards.toml", "rf2-ISRJoinHW", nil, `[]`,
			[]string{`"model":"vanlightly"`, `"check":"rf2-ISRJoinHW"`}, "check rf2-ISRJoinHW"},
		// A fix turned on from the command line, and one taken out by the check: the
		// header names both, never fixes=none.
		{"kafka, --fix and without", kafka14154, "buggy", []string{"--fix", "KAFKA-18723"}, `["fixes+=KAFKA-18723"]`,
			[]string{`"model":"kafka"`, `"fixes":["KAFKA-18723"]`, `"without":["KAFKA-14154"]`, `"version":"3.3.2"`, `"controller_failover":1`},
			"fixes=KAFKA-18723 without=KAFKA-14154"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var files [2][]byte
			var trace string
			for i := range files {
				dir := t.TempDir()
				args := append([]string{"check", tt.spec, "--check", tt.check, "--workers", "2", "--out", dir}, tt.sets...)
				code, out, errs := runCLI(args...)
				if code != exitSafety && code != exitLiveness {
					t.Fatalf("check: got exit %d, want a violation\n%s%s", code, out, errs)
				}
				trace = filepath.Join(dir, tt.check, "trace.itf.json")
				data, err := os.ReadFile(trace)
				if err != nil {
					t.Fatal(err)
				}
				files[i] = data
			}
			if !bytes.Equal(files[0], files[1]) {
				t.Errorf("two runs wrote different trace.itf.json files")
			}
			meta := recordedMeta(t, trace)
			data, err := os.ReadFile(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			sp, err := specs.Parse(tt.spec, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := string(meta["kmc::specSha256"]), `"`+sp.SHA256+`"`; got != want {
				t.Errorf("kmc::specSha256: got %s, want %s", got, want)
			}
			if got := string(meta["kmc::sets"]); got != tt.wantSets {
				t.Errorf("kmc::sets: got %s, want %s", got, tt.wantSets)
			}
			for _, want := range tt.wantConfig {
				if !strings.Contains(string(meta["kmc::config"]), want) {
					t.Errorf("kmc::config: no %s in %s", want, meta["kmc::config"])
				}
			}
			// Without the spec file: moved away, the trace alone rebuilds the model.
			code, out, errs := runCLI("replay", trace)
			out = strings.ReplaceAll(out, "\n  ", " ")
			if code != exitOK || !strings.Contains(out, "The trace is a behaviour of the model") ||
				!strings.Contains(out, "against the configuration the trace records") || !strings.Contains(out, tt.wantHeader) {
				t.Errorf("replay without --spec: got exit %d, want 0 and %q\n%s%s", code, tt.wantHeader, out, errs)
			}
			if errs != "" {
				t.Errorf("replay without --spec: stderr not empty:\n%s", errs)
			}
			// With the spec file: the trace's --set apply, and nothing disagrees.
			code, out, errs = runCLI("replay", trace, "--spec", tt.spec)
			if code != exitOK || strings.Contains(errs, "note:") || !strings.Contains(strings.ReplaceAll(out, "\n  ", " "), tt.wantHeader) {
				t.Errorf("replay --spec: got exit %d, want 0, no note and %q\n%s%s", code, tt.wantHeader, out, errs)
			}
		})
	}
}

// Reference: issue 28: "kmc check specs/kafka-18723.toml --check buggy --set
// max_fetch_records=2 --out D then kmc replay D/buggy/trace.itf.json --spec
// specs/kafka-18723.toml fails with 'not a behaviour ... step 5'". It now replays, with and
// without --spec; a --set that disagrees with the trace is named; a trace of an earlier kmc
// still replays with --spec; kmc why needs no --spec either.
func TestReplayIssueExample(t *testing.T) {
	const spec18723 = "../../specs/kafka-18723.toml"
	dir := t.TempDir()
	if code, out, errs := runCLI("check", spec18723, "--check", "buggy", "--set", "max_fetch_records=2", "--out", dir); code != exitSafety {
		t.Fatalf("check: got exit %d\n%s%s", code, out, errs)
	}
	trace := filepath.Join(dir, "buggy", "trace.itf.json")
	flat := func(s string) string { return strings.ReplaceAll(s, "\n  ", " ") }
	tests := []struct {
		name    string
		args    []string
		exit    int
		stdout  []string
		stderr  []string
		nostd   []string // not in stderr
		nostdIn []string // not in stdout
	}{
		{"no spec", []string{trace}, exitOK,
			[]string{"max_fetch_records=2", "It violates NoPermanentDivergence."}, nil, []string{"note:", "kmc:"}, nil},
		{"spec", []string{trace, "--spec", spec18723}, exitOK,
			[]string{"with the trace's --set max_fetch_records=2, check buggy", "It violates NoPermanentDivergence."}, nil, []string{"note:", "kmc:"}, nil},
		{"spec and another --set", []string{trace, "--spec", spec18723, "--set", "max_fetch_records=1"}, exitUsage,
			[]string{"max_fetch_records=1"},
			[]string{"is not the configuration the trace was made with:\n  constants.max_fetch_records: 2 in the trace, 1 here\n",
				"not a behaviour of the model: step 5:"}, nil, []string{"not a behaviour"}},
		// Papercut: the error once, on stderr, and exit 2 (the trace is not one of this check).
		{"another check", []string{trace, "--spec", spec18723, "--check", "fixed"}, exitUsage,
			nil, []string{"  check: buggy in the trace, fixed here\n  fixes: [] in the trace, [KAFKA-18723] here\n",
				"not a behaviour of the model: step 22:"}, nil, []string{"not a behaviour"}},
		{"another check without the spec", []string{trace, "--check", "fixed"}, exitUsage,
			nil, []string{"--check: check fixed: the trace records check buggy only"}, nil, nil},
		{"--set without the spec", []string{trace, "--set", "max_fetch_records=1"}, exitUsage,
			nil, []string{"not a behaviour of the model: step 5:"}, nil, nil},
		{"bad --set without the spec", []string{trace, "--set", "max_fetch_records=99"}, exitUsage,
			nil, []string{"#meta.kmc::config: --set:1:", "max_fetch_records"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(append([]string{"replay"}, tt.args...)...)
			bad := code != tt.exit
			for _, w := range tt.stdout {
				bad = bad || !strings.Contains(flat(out), w)
			}
			for _, w := range tt.stderr {
				bad = bad || !strings.Contains(errs, w) || strings.Count(errs, w) != 1
			}
			for _, w := range tt.nostd {
				bad = bad || strings.Contains(errs, w)
			}
			for _, w := range tt.nostdIn {
				bad = bad || strings.Contains(out, w)
			}
			if bad {
				t.Errorf("got exit %d, want %d\n-- stdout --\n%s-- stderr --\n%s", code, tt.exit, out, errs)
			}
		})
	}

	// A trace of an earlier kmc replays with --spec and --set, as before, and without
	// --spec is a usage error naming it.
	old := withoutConfig(t, trace)
	if code, out, errs := runCLI("replay", old, "--spec", spec18723, "--set", "max_fetch_records=2"); code != exitOK {
		t.Errorf("replay of a trace without configuration: got exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCLI("replay", old); code != exitUsage || !strings.Contains(errs, "--spec is required") {
		t.Errorf("replay of a trace without configuration, no --spec: got exit %d\n%s%s", code, out, errs)
	}

	// kmc why: no --spec, the trace's configuration in its header.
	code, out, errs := runCLI("why", trace, "--no-check", "--switch", "KAFKA-18723")
	if code != exitOK || !strings.Contains(out, "max_fetch_records=2") || !strings.Contains(out, "the configuration the trace records") ||
		!strings.Contains(out, "impossible at step 22") {
		t.Errorf("why without --spec: got exit %d\n%s%s", code, out, errs)
	}
}

// Reference: issue 28: a recorded configuration that is no valid spec is exit 2 naming the
// trace and its key, never a panic nor a replay against something else.
func TestReplayBadRecordedConfig(t *testing.T) {
	dir := t.TempDir()
	if code, out, errs := runCLI("check", spec, "--check", "buggy", "--out", dir); code != exitSafety {
		t.Fatalf("check: got exit %d\n%s%s", code, out, errs)
	}
	trace := filepath.Join(dir, "buggy", "trace.itf.json")
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"out of range", `"rms":3`, `"rms":99`, "#meta.kmc::config: constants.rms:"},
		{"unknown key", `"model":"twophase"`, `"model":"twophase","colour":"blue"`, `#meta.kmc::config: json: unknown field "colour"`},
		{"not an object", `"kmc::config": {`, `"kmc::config": [{`, "#meta.kmc::config: want an object"},
		{"unknown switch", `"fixes":[]`, `"fixes":["Nope"]`, `unknown switch "Nope"`},
		{"escapes", `"check":"buggy"`, `"check":"b\u001b[31mred"`, `the trace records check b\x1b[31mred only`},
		{"escapes in a value", `"rms":3`, `"rms":"\u001b[2J"`, `constants.rms`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edited := strings.Replace(string(data), tc.from, tc.to, 1)
			if edited == string(data) {
				t.Fatalf("%q not in the trace", tc.from)
			}
			if tc.name == "not an object" {
				edited = strings.Replace(edited, `"fixes":[]}`, `"fixes":[]}]`, 1)
			}
			path := filepath.Join(t.TempDir(), "edited.itf.json")
			if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errs := runCLI("replay", path)
			if code != exitUsage || !strings.Contains(errs, tc.want) || !strings.Contains(errs, path) || strings.ContainsRune(out+errs, 0x1b) {
				t.Errorf("got exit %d, want 2 and %q\n%s%s", code, tc.want, out, errs)
			}
		})
	}
}

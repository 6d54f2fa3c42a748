package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"unicode/utf8"
)

// Reference: issue 28, papercuts: "--check buggy --set version=4.0 fails on the other
// check's fixes". A run of one check validates that check alone; a run of every check
// still reports the other's error.
func TestSetValidatesTheCheckRun(t *testing.T) {
	const spec18723 = "../../specs/kafka-18723.toml"
	code, out, errs := runCLI("check", spec18723, "--check", "buggy", "--set", "version=4.0", "--max-states", "50", "--workers", "1")
	if code == exitUsage || code == exitInternal || strings.Contains(errs, "check[1]") ||
		!strings.Contains(out, "version=4.0") {
		t.Errorf("--check buggy --set version=4.0: got exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCLI("check", spec18723, "--set", "version=4.0", "--max-states", "50")
	if code != exitUsage || !strings.Contains(errs, "check[1].fixes: fixes: KAFKA-18723 is already in version 4.0") {
		t.Errorf("every check with --set version=4.0: got exit %d, want 2 and check[1]'s error\n%s%s", code, out, errs)
	}
}

// Reference: issue 28, papercuts: kmc check wraps its configuration banner at 100 columns
// like every other line.
func TestCheckBannerWrapped(t *testing.T) {
	code, out, errs := runCLI("check", kafka14154, "--check", "fixed", "--workers", "1")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if !strings.HasPrefix(out, "Checking "+kafka14154+", check fixed: model kafka, brokers=2") ||
		!strings.Contains(out, "\n  controller_failover=1 fixes=none\n") {
		t.Errorf("banner:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > 100 {
			t.Errorf("a line of %d columns: %q", n, line)
		}
	}
}

// Reference: issue 28, papercuts: kmc version prints the build's version, the VCS
// revision it was built from, and the Go version, from the build's information.
func TestVersion(t *testing.T) {
	defer func(f func() (*debug.BuildInfo, bool)) { buildInfo = f }(buildInfo)
	tests := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"stamped", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.3"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"},
				{Key: "vcs.modified", Value: "true"}}},
			"kmc v1.2.3\nrevision abc123 (2026-12-01T10:00:00Z, with changes not committed)\nbuilt with go1.26.0 for "},
		{"a build without VCS information", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}},
			"kmc (devel)\nrevision unknown\nbuilt with go1.26.0 for "},
		{"no build information", nil, "kmc unknown\nrevision unknown\nbuilt with go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buildInfo = func() (*debug.BuildInfo, bool) { return tt.info, tt.info != nil }
			for _, args := range [][]string{{"version"}, {"--version"}} {
				code, out, errs := runCLI(args...)
				if code != exitOK || !strings.HasPrefix(out, tt.want) || errs != "" {
					t.Errorf("%v: got exit %d\n%s%s\nwant the start\n%s", args, code, out, errs, tt.want)
				}
			}
		})
	}
	if code, _, errs := runCLI("version", "extra"); code != exitUsage || !strings.Contains(errs, "takes no arguments") {
		t.Errorf("version extra: got exit %d\n%s", code, errs)
	}
}

// Reference: issue 28, papercuts: "kmc render -o F writes mode 0600". F gets the mode any
// file the user creates gets (0644 less the umask), as the files of kmc check --out do; a
// file that exists keeps its own.
func TestRenderFileMode(t *testing.T) {
	_, path := buggyTrace(t)
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref")
	if err := os.WriteFile(ref, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(ref)
	if err != nil {
		t.Fatal(err)
	}
	want := st.Mode().Perm()
	out := filepath.Join(dir, "trace.txt")
	if code, _, errs := runCLI("render", path, "-o", out); code != exitOK {
		t.Fatalf("render: exit %d\n%s", code, errs)
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != want {
		t.Errorf("render -o: mode %v, want %v (%v)", st.Mode().Perm(), want, err)
	}
	if err := os.Chmod(out, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI("render", path, "-o", out, "--format", "itf"); code != exitOK {
		t.Fatalf("render again: exit %d\n%s", code, errs)
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("render -o over a file of mode 0600: mode %v, want it kept (%v)", st.Mode().Perm(), err)
	}
}

// Reference: issue 28, papercuts: make demo ends by naming report.html.
func TestMakeDemoNamesReport(t *testing.T) {
	data, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	_, recipe, ok := strings.Cut(string(data), "\ndemo:")
	if !ok {
		t.Fatal("no demo target in the Makefile")
	}
	recipe, _, _ = strings.Cut(recipe, "\n\n")
	lines := strings.Split(strings.TrimSpace(recipe), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, "echo") || !strings.Contains(last, "$(DEMO_OUT)/$(DEMO_CHECK)/report.html") {
		t.Errorf("make demo's last line does not name report.html: %q", last)
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kmc/traces"
)

// Reference: issue 11, defects 1 and 2 (--out checked only after the search, throwing the
// result away; an existing DIR/CHECK removed recursively).

// specWithCheckName writes twophase's buggy check under another name.
func specWithCheckName(t *testing.T, name string) string {
	t.Helper()
	src := "model = \"twophase\"\nproperties = [\"TCConsistent\"]\n[[check]]\nname = \"" + name +
		"\"\nexpect = \"violated\"\nproperty = \"TCConsistent\"\n"
	path := filepath.Join(t.TempDir(), "named.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOutUnusableBeforeSearch(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	outs := []string{"/dev/null", file, filepath.Join(file, "below")}
	if _, err := os.Stat("/proc/self"); err == nil {
		outs = append(outs, "/proc/x")
	}
	for _, out := range outs {
		code, stdout, stderr := runCLI("check", spec, "--check", "buggy", "--workers", "1", "--out", out)
		if code != exitUsage || strings.Contains(stdout, "Checking") || !strings.Contains(stderr, "--out") {
			t.Errorf("--out %s: got exit %d\n%s%s\nwant exit 2 before the search", out, code, stdout, stderr)
		}
	}
	// A check name too long for a file name is refused before the search too.
	long := specWithCheckName(t, strings.Repeat("n", 300))
	code, stdout, stderr := runCLI("check", long, "--workers", "1", "--out", filepath.Join(dir, "o"))
	if code != exitUsage || strings.Contains(stdout, "Checking") {
		t.Errorf("300-character check name: got exit %d\n%s%s\nwant exit 2 before the search", code, stdout, stderr)
	}
}

func TestOutLongCheckName(t *testing.T) {
	// 240 characters: the name fits a file name, but did not once the temporary folder's
	// name was derived from it.
	name := strings.Repeat("n", 240)
	out := filepath.Join(t.TempDir(), "o")
	code, stdout, stderr := runCLI("check", specWithCheckName(t, name), "--workers", "1", "--out", out)
	if code != exitSafety {
		t.Fatalf("got exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, name, "trace.itf.json")); err != nil {
		t.Errorf("trace not written: %v", err)
	}
}

func TestOutWriteFailsAfterSearch(t *testing.T) {
	// The folder is fine before the search and unusable after it: the counterexample and the
	// statistics are printed anyway, the next check runs, and the exit code is the verdict's.
	out := filepath.Join(t.TempDir(), "o")
	saved := afterSearch
	defer func() { afterSearch = saved }()
	afterSearch = func() {
		os.RemoveAll(out)
		os.WriteFile(out, []byte("in the way"), 0o644)
	}
	code, stdout, stderr := runCLI("check", spec, "--workers", "1", "--out", out)
	if code != exitSafety {
		t.Errorf("exit code: got %d, want %d", code, exitSafety)
	}
	for _, want := range []string{"Error: The behavior up to this point is:", "State 4: <", "94 distinct states found",
		"Result: violated(TCConsistent), as the spec expects.", "Checking ../../specs/twophase.toml, check fixed"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "kmc: check: --out: ") || !strings.Contains(stderr, filepath.Join(out, "buggy")) {
		t.Errorf("stderr does not report the failed write:\n%s", stderr)
	}
}

func TestOutKeepsFilesKmcDidNotWrite(t *testing.T) {
	out := filepath.Join(t.TempDir(), "o")
	precious := filepath.Join(out, "buggy", "x")
	if err := os.MkdirAll(filepath.Dir(precious), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(precious, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"check", spec, "--check", "buggy", "--workers", "1", "--out", out}

	// Refused before the search, the file untouched.
	code, stdout, stderr := runCLI(args...)
	if code != exitUsage || strings.Contains(stdout, "Checking") || !strings.Contains(stderr, "--force") {
		t.Errorf("a folder with a file kmc did not write: got exit %d\n%s%s\nwant exit 2 and a hint of --force", code, stdout, stderr)
	}
	if data, err := os.ReadFile(precious); err != nil || string(data) != "precious\n" {
		t.Fatalf("the user's file: got %q, %v", data, err)
	}

	// --force moves the old folder aside, whole, and says where.
	code, stdout, stderr = runCLI(append(args, "--force")...)
	if code != exitSafety {
		t.Fatalf("--force: got exit %d\n%s%s", code, stdout, stderr)
	}
	kept, _ := filepath.Glob(filepath.Join(out, "kmc-previous-*", "buggy", "x"))
	if len(kept) != 1 {
		t.Fatalf("--force: the user's file is not kept beside (got %v)\n%s", kept, stderr)
	}
	if data, err := os.ReadFile(kept[0]); err != nil || string(data) != "precious\n" {
		t.Errorf("the user's file moved aside: got %q, %v", data, err)
	}
	if !strings.Contains(stderr, filepath.Dir(kept[0])) {
		t.Errorf("stderr does not say where the old folder went:\n%s", stderr)
	}
	manifest, err := os.ReadFile(filepath.Join(out, "buggy", traces.ManifestName))
	if err != nil || !strings.Contains(string(manifest), " trace.itf.json\n") {
		t.Errorf("manifest: got %q, %v", manifest, err)
	}

	// kmc's own folder is replaced without --force, and nothing is left beside.
	code, stdout, stderr = runCLI(args...)
	if code != exitSafety {
		t.Fatalf("rerun: got exit %d\n%s%s", code, stdout, stderr)
	}
	if aside, _ := filepath.Glob(filepath.Join(out, "kmc-previous-*")); len(aside) != 1 {
		t.Errorf("rerun: got %v beside, want only the folder --force kept", aside)
	}

	// A file added to kmc's folder makes it the user's again.
	notes := filepath.Join(out, "buggy", "notes.txt")
	os.WriteFile(notes, []byte("mine"), 0o644)
	code, _, stderr = runCLI(args...)
	if code != exitUsage || !strings.Contains(stderr, "notes.txt") {
		t.Errorf("kmc's folder with a user's file: got exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(notes); err != nil {
		t.Errorf("the user's notes: %v", err)
	}
}

// Reference: issue 11, defect 7: a trace longer than traces.MaxPictureStates is not drawn;
// kmc render says so (exit 2) and still renders it as text.
func TestRenderTooLongToDraw(t *testing.T) {
	tr, _ := buggyTrace(t)
	long := *tr
	for len(long.States) <= traces.MaxPictureStates {
		long.States = append(long.States, long.States[len(long.States)-1])
	}
	var b bytes.Buffer
	if err := traces.WriteITF(&b, &long, traces.ITFOptions{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "long.itf.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"svg", "png", "sequence", "sequence-png", "html"} {
		code, _, stderr := runCLI("render", path, "--format", format)
		if code != exitUsage || !strings.Contains(stderr, "too long to draw") {
			t.Errorf("%s: got exit %d\n%s", format, code, stderr)
		}
	}
	if code, stdout, stderr := runCLI("render", path, "--format", "text"); code != exitOK || !strings.Contains(stdout, "State 201:") {
		t.Errorf("text: got exit %d\n%s", code, stderr)
	}
}

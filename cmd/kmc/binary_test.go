package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
)

// Tests in this file run the kmc binary itself: what only a real process shows (package
// initialisation, another user, real signals, standard streams that are files).

var (
	binOnce sync.Once
	binDir  string // world-readable folder holding the binary, removed by TestMain
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// kmcBinary builds cmd/kmc once per test run into a folder every user can read.
func kmcBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary: skipped with -short")
	}
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "kmc-bin-")
		if binErr != nil {
			return
		}
		if binErr = os.Chmod(binDir, 0o755); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "kmc")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = &buildError{err, out}
		}
	})
	if binErr != nil {
		t.Fatalf("go build: %v", binErr)
	}
	return binPath
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + string(e.out) }

// runBinary runs the binary with env added to a minimal environment and returns its exit
// code, stdout and stderr. A run killed by a signal reports -1.
func runBinary(t *testing.T, cmd *exec.Cmd) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if cmd.Stdout == nil {
		cmd.Stdout = &stdout
	}
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s: %v", strings.Join(cmd.Args, " "), err)
		}
		code = ee.ExitCode()
	}
	return code, stdout.String(), stderr.String()
}

// wazeroCacheDir is the folder go-graphviz's compilation cache (wazero's) keeps its files
// in under a cache root: "wazero-VERSION-GOARCH-GOOS".
func wazeroCacheDir(t *testing.T) string {
	t.Helper()
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build info")
	}
	for _, d := range bi.Deps {
		if d.Path == "github.com/tetratelabs/wazero" {
			return "wazero-" + d.Version + "-" + runtime.GOARCH + "-" + runtime.GOOS
		}
	}
	t.Fatal("wazero is not a dependency")
	return ""
}

// worldDir makes a folder every user can enter and write (mode 1777, like /tmp).
func worldDir(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o1777); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGraphvizOtherUser runs kmc as another user (uid 65534) while /tmp/go-graphviz
// belongs to root, and as root with a corrupt compilation cache: commands that draw
// nothing must not touch Graphviz, and drawing must work or fail with a clear error,
// never panic. Reference: issue 11, defect 3.
func TestGraphvizOtherUser(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("needs root on Linux to run kmc as another user")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("needs setpriv")
	}
	bin := kmcBinary(t)
	root, err := os.MkdirTemp("", "kmc-gv-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	// A TMPDIR whose go-graphviz cache root made, as go-graphviz v0.2.10 leaves it.
	tmp := worldDir(t, filepath.Join(root, "tmp"))
	rootCache := filepath.Join(tmp, "go-graphviz", wazeroCacheDir(t))
	if err := os.MkdirAll(rootCache, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(tmp, "go-graphviz"), 0o755)
	home := worldDir(t, filepath.Join(root, "home"))
	specAbs, _ := filepath.Abs(spec)
	_, trace := buggyTrace(t)
	traceCopy := filepath.Join(root, "trace.itf.json")
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(traceCopy, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(home, "out.svg")
	env := []string{"PATH=/usr/bin:/bin", "TMPDIR=" + tmp, "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache")}
	nobody := []string{"--reuid=65534", "--regid=65534", "--clear-groups", bin}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"help", []string{"help"}, "Usage:"},
		{"list", []string{"list", "twophase"}, "twophase:"},
		{"check", []string{"check", specAbs, "--check", "fixed", "--workers", "1"}, "No error has been found"},
		{"render", []string{"render", traceCopy, "--format", "svg", "-o", out}, ""},
	} {
		cmd := exec.Command(setpriv, append(nobody, tc.args...)...)
		cmd.Env, cmd.Dir = env, root
		code, stdout, stderr := runBinary(t, cmd)
		if code != 0 || !strings.Contains(stdout, tc.want) || strings.Contains(stderr, "panic") {
			t.Errorf("as uid 65534: kmc %s: got exit %d\n%s%s", tc.name, code, stdout, stderr)
		}
	}
	if data, err := os.ReadFile(out); err != nil || !bytes.Contains(data, []byte("<svg")) {
		t.Errorf("as uid 65534: render wrote no SVG: %v", err)
	}

	// As root: let both caches fill, then corrupt every file in them.
	env = []string{"PATH=/usr/bin:/bin", "TMPDIR=" + tmp, "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(root, "rootcache")}
	svg := filepath.Join(root, "root.svg")
	render := exec.Command(bin, "render", traceCopy, "--format", "svg", "-o", svg)
	render.Env = env
	if code, stdout, stderr := runBinary(t, render); code != 0 {
		t.Fatalf("render as root: got exit %d\n%s%s", code, stdout, stderr)
	}
	corrupted := 0
	for _, dir := range []string{filepath.Join(tmp, "go-graphviz"), filepath.Join(root, "rootcache")} {
		filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err == nil && info.Mode().IsRegular() {
				os.WriteFile(p, []byte("garbage"), 0o600)
				corrupted++
			}
			return nil
		})
	}
	if corrupted == 0 {
		t.Fatal("render as root left no cache file to corrupt")
	}
	for _, args := range [][]string{{"help"}, {"render", traceCopy, "--format", "svg", "-o", svg}, {"render", traceCopy, "--format", "png", "-o", svg + ".png"}} {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		code, stdout, stderr := runBinary(t, cmd)
		if code != 0 || strings.Contains(stderr, "panic") {
			t.Errorf("with a corrupt cache: kmc %s: got exit %d\n%s%s", args[0], code, stdout, stderr)
		}
	}
}

package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// Reference: issue 26, "Done when": a held-out set of hostile traces, output targets and
// checkpoints, made apart from the examples, gets exit 2 or a clean result: never a
// panic, a hang, a raw control character, or a file of the user's touched.

// userFiles are the files of the user's folder, by path, with a digest of what each is
// (its mode and, for a regular file, its content; a symlink's target).
func userFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		what := fi.Mode().String()
		switch {
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			what += fmt.Sprintf(" %x", sha256.Sum256(b))
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			what += " -> " + l
		}
		files[p] = what
		return nil
	})
	return files
}

// rawControl returns the first control character of s but newline (C0, DEL, C1, the
// bidirectional formatting characters), or utf8.RuneError for a byte that is not UTF-8,
// or -1.
func rawControl(s string) rune {
	if !utf8.ValidString(s) {
		return utf8.RuneError
	}
	for _, r := range s {
		switch {
		case r == '\n':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return r
		case unicode.Is(unicode.Bidi_Control, r), r == 0x2028, r == 0x2029:
			return r
		}
	}
	return -1
}

// hostileITF is an ITF trace of one variable x whose state values are vals (JSON), with
// meta as the top-level #meta and the action names acts.
func hostileITF(meta string, vars []string, acts []string, vals ...string) string {
	var states []string
	for i, v := range vals {
		var fields []string
		for _, n := range vars {
			fields = append(fields, fmt.Sprintf("%q:%s", n, v))
		}
		a := ""
		if i < len(acts) {
			a = fmt.Sprintf(`"#meta":{"index":%d,"action":%s},`, i, acts[i])
		}
		states = append(states, "{"+a+strings.Join(fields, ",")+"}")
	}
	q := make([]string, len(vars))
	for i, n := range vars {
		q[i] = fmt.Sprintf("%q", n)
	}
	return `{"#meta":` + meta + `,"vars":[` + strings.Join(q, ",") + `],"states":[` + strings.Join(states, ",") + `]}`
}

func TestHeldOut(t *testing.T) {
	_, good := buggyTrace(t)
	type setup func(t *testing.T, dir, user string) []string
	write := func(t *testing.T, p, s string) string {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	trace := func(name, body string, cmd ...string) setup {
		return func(t *testing.T, dir, _ string) []string {
			p := write(t, filepath.Join(dir, name), body)
			var args []string
			for _, a := range cmd {
				args = append(args, strings.ReplaceAll(a, "TRACE", p))
			}
			return args
		}
	}
	// A valid twophase trace, state values written as the model writes them.
	tp := `{"rmState":{"#map":[["rm1","working"],["rm2","working"],["rm3","working"]]},"tmState":"init","tmPrepared":{"#set":[]},"msgs":{"#set":[]}}`
	tests := []struct {
		name  string
		setup setup
	}{
		// Hostile traces.
		{"osc-title-action", trace("t.itf.json", hostileITF(`{"source":"s\u001b]0;owned\u0007"}`, []string{"x"}, []string{`"Init"`, `"A\u001b]0;owned\u0007"`}, `1`, `2`), "render", "TRACE")},
		{"bidi-var-names", trace("t.itf.json", hostileITF(`{}`, []string{"a\u202eb", "c\u2066d"}, nil, `"v\u202e"`, `{"#set":["\u0085","\u009b2J"]}`), "render", "TRACE", "--full-states")},
		{"control-check-name-replay", trace("t.itf.json", hostileITF(`{"kmc::check":"x\u001b[2Jy"}`, []string{"x"}, nil, `1`), "replay", "TRACE", "--spec", spec)},
		{"control-check-name-why", trace("t.itf.json", hostileITF(`{"kmc::check":"\u009b31m"}`, []string{"x"}, nil, `1`), "why", "TRACE", "--spec", spec, "--no-check")},
		{"control-var-replay", trace("t.itf.json", hostileITF(`{}`, []string{"rmState\u0008\u0008"}, nil, `1`), "replay", "TRACE", "--spec", spec, "--check", "fixed")},
		{"invalid-utf8", trace("t.itf.json", "{\"vars\":[\"x\xff\"],\"states\":[{\"x\xff\":\"\xfe\xc0\"}]}", "render", "TRACE")},
		{"deep-nesting", trace("t.itf.json", `{"vars":["x"],"states":[{"x":`+strings.Repeat(`{"#tup":[`, 50000)+strings.Repeat(`]}`, 50000)+`}]}`, "render", "TRACE")},
		{"huge-bigint", trace("t.itf.json", hostileITF(`{}`, []string{"x"}, nil, `{"#bigint":"-`+strings.Repeat("9", 100000)+`"}`), "render", "TRACE", "--format", "html")},
		{"nul-in-map-key-dot", trace("t.itf.json", hostileITF(`{}`, []string{"x"}, nil, `{"#map":[["k\u0000","\">"]]}`), "render", "TRACE", "--format", "dot")},
		{"empty-file", trace("t.itf.json", "", "render", "TRACE")},
		{"only-whitespace", trace("t.itf.json", "  \n\t ", "replay", "TRACE", "--spec", spec)},
		{"trailing-garbage", trace("t.itf.json", hostileITF(`{}`, []string{"x"}, nil, `1`)+"\x1b[2J{", "render", "TRACE")},
		{"states-not-array", trace("t.itf.json", `{"vars":["x"],"states":{"x":1}}`, "render", "TRACE")},
		{"loop-out-of-range", trace("t.itf.json", `{"#meta":{"kmc::loop":99},"vars":["x"],"states":[{"x":1}]}`, "render", "TRACE", "--format", "sequence")},
		{"replay-wrong-model", trace("t.itf.json", hostileITF(`{}`, []string{"rmState", "tmState", "tmPrepared", "msgs"}, nil, tp, tp), "replay", "TRACE", "--spec", kafka14154)},
		{"replay-stutter-only", trace("t.itf.json", hostileITF(`{}`, []string{"rmState", "tmState", "tmPrepared", "msgs"}, []string{`"Init"`, `"TMCommit\u001b"`}, tp, tp), "replay", "TRACE", "--spec", spec, "--check", "buggy")},
		{"trace-symlink-to-dev-zero", func(t *testing.T, dir, _ string) []string {
			p := filepath.Join(dir, "z.itf.json")
			os.Symlink("/dev/zero", p)
			return []string{"why", p, "--spec", spec}
		}},
		{"trace-socket", func(t *testing.T, dir, _ string) []string {
			p := filepath.Join(dir, "s.itf.json")
			fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
			if err == nil {
				syscall.Bind(fd, &syscall.SockaddrUnix{Name: p})
				t.Cleanup(func() { syscall.Close(fd) })
			}
			return []string{"render", p}
		}},
		// Output targets.
		{"render-o-dev-full", func(t *testing.T, _, _ string) []string { return []string{"render", good, "-o", "/dev/full"} }},
		{"render-o-a-folder", func(t *testing.T, _, user string) []string { return []string{"render", good, "-o", user} }},
		{"render-o-missing-parent", func(t *testing.T, dir, _ string) []string {
			return []string{"render", good, "-o", filepath.Join(dir, "no", "such", "f.svg"), "--format", "svg"}
		}},
		{"render-o-dangling-symlink", func(t *testing.T, dir, _ string) []string {
			p := filepath.Join(dir, "dangling")
			os.Symlink(filepath.Join(dir, "nowhere", "x"), p)
			return []string{"render", good, "-o", p}
		}},
		{"out-is-symlink-to-user-folder", func(t *testing.T, dir, user string) []string {
			out := filepath.Join(dir, "o")
			os.Mkdir(out, 0o755)
			os.Symlink(user, filepath.Join(out, "buggy"))
			return []string{"check", spec, "--check", "buggy", "--workers", "1", "--out", out}
		}},
		{"out-listed-file-now-symlink", func(t *testing.T, dir, user string) []string {
			out := filepath.Join(dir, "o")
			if code, _, stderr := runCLI("check", spec, "--check", "buggy", "--workers", "1", "--out", out); code != exitSafety {
				t.Fatalf("first run: %d %s", code, stderr)
			}
			txt := filepath.Join(out, "buggy", "trace.txt")
			os.Remove(txt)
			os.Symlink(filepath.Join(user, "precious.txt"), txt)
			return []string{"check", spec, "--check", "buggy", "--workers", "1", "--out", out}
		}},
		{"out-manifest-hardlink-to-user-file", func(t *testing.T, dir, user string) []string {
			out := filepath.Join(dir, "o", "buggy")
			os.MkdirAll(out, 0o755)
			os.Link(filepath.Join(user, "list.txt"), filepath.Join(out, "kmc-manifest.txt"))
			os.Link(filepath.Join(user, "precious.txt"), filepath.Join(out, "precious.txt"))
			return []string{"check", spec, "--check", "buggy", "--workers", "1", "--out", filepath.Join(dir, "o")}
		}},
		{"out-manifest-copied", func(t *testing.T, dir, user string) []string {
			out := filepath.Join(dir, "o")
			if code, _, _ := runCLI("check", spec, "--check", "buggy", "--workers", "1", "--out", out); code != exitSafety {
				t.Fatal("first run")
			}
			m := filepath.Join(out, "buggy", "kmc-manifest.txt")
			b, _ := os.ReadFile(m)
			os.WriteFile(m+".new", b, 0o644) // the same bytes, another file (another inode)
			os.Rename(m+".new", m)
			return []string{"check", spec, "--check", "buggy", "--workers", "1", "--out", out}
		}},
		{"dump-graph-to-folder", func(t *testing.T, _, user string) []string {
			return []string{"check", spec, "--check", "fixed", "--set", "rms=2", "--workers", "1", "--dump-graph", user}
		}},
		// Checkpoints.
		{"resume-ckpt-symlink-to-user-folder", func(t *testing.T, dir, user string) []string {
			cp := filepath.Join(dir, "cp")
			os.Mkdir(cp, 0o755)
			os.Symlink(user, filepath.Join(cp, "ckpt-000001"))
			return []string{"check", spec, "--resume", cp}
		}},
		{"checkpoint-lock-symlink-to-user-file", func(t *testing.T, dir, user string) []string {
			cp := filepath.Join(dir, "cp")
			os.Mkdir(cp, 0o755)
			os.Symlink(filepath.Join(user, "precious.txt"), filepath.Join(cp, "kmc-checkpoint.lock"))
			return []string{"check", spec, "--check", "fixed", "--workers", "1", "--checkpoint", cp}
		}},
		{"checkpoint-is-a-file", func(t *testing.T, _, user string) []string {
			return []string{"check", spec, "--check", "fixed", "--workers", "1", "--checkpoint", filepath.Join(user, "precious.txt")}
		}},
		{"resume-snapshot-is-folder", func(t *testing.T, dir, _ string) []string {
			cp, first := interruptedCheckpoint(t)
			os.Remove(filepath.Join(first, "search.kmcs"))
			os.Mkdir(filepath.Join(first, "search.kmcs"), 0o755)
			return []string{"check", spec, "--set", "rms=4", "--resume", cp}
		}},
		{"resume-manifest-emptied", func(t *testing.T, dir, _ string) []string {
			cp, first := interruptedCheckpoint(t)
			os.WriteFile(filepath.Join(first, "manifest.txt"), nil, 0o644)
			return []string{"check", spec, "--set", "rms=4", "--resume", cp}
		}},
		{"resume-manifest-control-chars", func(t *testing.T, dir, _ string) []string {
			cp, first := interruptedCheckpoint(t)
			p := filepath.Join(first, "manifest.txt")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(b), "check: fixed", "check: fi\x1b]0;x\x07xed", 1)), 0o644)
			return []string{"check", spec, "--set", "rms=4", "--resume", cp}
		}},
		{"resume-snapshot-swapped-from-other-run", func(t *testing.T, dir, _ string) []string {
			cp, first := interruptedCheckpoint(t)
			_, other := interruptedCheckpoint(t)
			b, _ := os.ReadFile(filepath.Join(other, "..", "ckpt-000001", "search.kmcs"))
			os.WriteFile(filepath.Join(first, "search.kmcs"), append(b, 0), 0o644)
			return []string{"check", spec, "--set", "rms=4", "--resume", cp}
		}},
	}
	clean := map[int]bool{exitOK: true, exitInternal: true, exitUsage: true, exitIncomplete: true, exitDeadlock: true, exitSafety: true, exitLiveness: true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, user := t.TempDir(), t.TempDir()
			os.WriteFile(filepath.Join(user, "precious.txt"), []byte("precious\n"), 0o600)
			os.WriteFile(filepath.Join(user, "list.txt"), []byte("# Written by kmc check --out.\nprecious.txt\n"), 0o644)
			args := tt.setup(t, dir, user)
			before := userFiles(t, user)
			type outcome struct {
				code           int
				stdout, stderr string
				panic          any
			}
			done := make(chan outcome, 1)
			go func() {
				var o outcome
				defer func() {
					if r := recover(); r != nil {
						o.panic = r
					}
					done <- o
				}()
				o.code, o.stdout, o.stderr = runCLI(args...)
			}()
			var o outcome
			select {
			case o = <-done:
			case <-time.After(60 * time.Second):
				t.Fatalf("kmc %s: no answer after 60 s", strings.Join(args, " "))
			}
			if o.panic != nil {
				t.Fatalf("kmc %s: panic: %v", strings.Join(args, " "), o.panic)
			}
			if !clean[o.code] {
				t.Errorf("exit %d", o.code)
			}
			out := o.stdout + o.stderr
			if strings.Contains(strings.Join(args, " "), "--format") && !strings.Contains(strings.Join(args, " "), "dot") {
				out = o.stderr // a picture or report: checked by the renderers' own tests
			}
			if r := rawControl(out); r >= 0 {
				i := max(0, strings.IndexRune(out, r))
				t.Errorf("raw control character %U in the output: %q", r, out[max(0, i-60):min(len(out), i+20)])
			}
			if o.code == exitInternal && !strings.HasPrefix(o.stderr, "kmc: ") {
				t.Errorf("exit 1 without a message:\n%s", o.stderr)
			}
			after := userFiles(t, user)
			for p, w := range before {
				if after[p] != w {
					t.Errorf("the user's %s: %s, was %s", p, after[p], w)
				}
			}
			if len(after) != len(before) {
				t.Errorf("the user's folder: %d files, was %d", len(after), len(before))
			}
			t.Logf("exit %d: %s", o.code, firstLine(o.stderr))
		})
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

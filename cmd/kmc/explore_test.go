package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// Reference: issue 29. kmc explore prints its URL and serves until a signal, loopback only
// unless --allow-remote; --trace opens the page on a counterexample.

// serveExplore runs kmc explore with args until the test has fetched path from it, and
// returns the URL printed, the answer to path, the exit code and the output.
func serveExplore(t *testing.T, args []string, path string) (link, answer string, code int, out string) {
	t.Helper()
	stop := stopOn(t)
	saved := exploreServing
	t.Cleanup(func() { exploreServing = saved })
	exploreServing = func(u string) {
		link = u
		go func() {
			defer stop()
			base := u[:strings.Index(u[len("http://"):], "/")+len("http://")]
			resp, err := http.Get(base + path)
			if err != nil {
				answer = err.Error()
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			answer = string(b)
		}()
	}
	var stdout, stderr bytes.Buffer
	code = run(append([]string{"explore"}, args...), &stdout, &stderr)
	return link, answer, code, stdout.String() + stderr.String()
}

func TestExploreServes(t *testing.T) {
	link, answer, code, out := serveExplore(t, []string{spec, "--check", "buggy", "--listen", "127.0.0.1:0"}, "/api/state?path=0.0")
	if code != exitOK || !strings.HasPrefix(link, "http://127.0.0.1:") || !strings.Contains(out, "Exploring "+spec+", check buggy: http://127.0.0.1:") || !strings.Contains(out, "Stopped.") {
		t.Fatalf("kmc explore: exit %d, link %q\n%s", code, link, out)
	}
	var v struct {
		At   int
		Path []struct{ Action string }
	}
	if err := json.Unmarshal([]byte(answer), &v); err != nil || v.At != 2 || v.Path[1].Action != "TMCommit" {
		t.Errorf("state 0.0: got %q (%v)", answer, err)
	}
}

// Without --check the spec's first check is explored, and the others are named.
func TestExploreFirstCheck(t *testing.T) {
	_, answer, code, out := serveExplore(t, []string{spec, "--listen", "127.0.0.1:0"}, "/api/model")
	if code != exitOK || !strings.Contains(out, "check buggy (the spec's first check; --check picks another: fixed): http://") ||
		!strings.Contains(answer, `"check":"buggy"`) {
		t.Errorf("kmc explore without --check: exit %d, %q\n%s", code, answer, out)
	}
}

func TestExploreTrace(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"check", spec, "--check", "buggy", "--out", dir}, &stdout, &stderr); code != exitSafety {
		t.Fatalf("check: exit %d\n%s", code, stderr.String())
	}
	trace := filepath.Join(dir, "buggy", "trace.itf.json")
	// The check is the one the trace records.
	link, _, code, out := serveExplore(t, []string{spec, "--trace", trace, "--listen", "127.0.0.1:0"}, "/api/model")
	if code != exitOK || !strings.Contains(link, "#at=4&path=0.") {
		t.Errorf("kmc explore --trace: exit %d, link %q\n%s", code, link, out)
	}
}

func TestExploreRefuses(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{spec, "--check", "buggy", "--listen", "0.0.0.0:0"}, exitUsage, "not a loopback address"},
		{[]string{spec, "--check", "buggy", "--listen", "nonsense"}, exitUsage, "--listen: want HOST:PORT"},
		{[]string{spec, "--check", "nope"}, exitUsage, `has no check "nope"`},
		{[]string{spec, "--check", "buggy", "--search-time", "0s"}, exitUsage, "--search-time"},
		{[]string{}, exitUsage, "want one spec file"},
		// A trace file that does not exist is bad usage (issue 28, papercuts), as a spec is.
		{[]string{spec, "--check", "buggy", "--trace", "nope.json"}, exitUsage, "nope.json"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"explore"}, tt.args...), &stdout, &stderr)
		if code != tt.code || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("kmc explore %v: got exit %d, %q; want exit %d saying %q", tt.args, code, stderr.String(), tt.code, tt.want)
		}
	}
}

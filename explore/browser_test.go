package explore

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"kmc/checker"
)

// Reference: issue 29. The page in real headless Chromium (Debian's chromium, driven by
// chromedp): the KAFKA-18723 counterexample reproduced by clicking its actions by name
// (and pressing their number keys), the log grid at its last state showing the divergence,
// back and the URL restoring a state, and the KAFKA-13077 lasso loaded from its ITF file.
// It runs where chromium is installed (make browser-test; .ci/run installs it) and skips
// elsewhere; KMC_BROWSER_TESTS=1 makes a missing chromium a failure.

// chromiumPath finds headless Chromium, or skips the test.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("KMC_BROWSER_TESTS") != "" {
		t.Fatal("KMC_BROWSER_TESTS is set but chromium is not installed")
	}
	t.Skip("chromium not installed: the browser test of kmc explore is skipped (apt-get install -y chromium, then make browser-test)")
	return ""
}

// browser starts headless Chromium; the test fails on any JavaScript exception.
func browser(t *testing.T, bin string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.WindowSize(1600, 1300), chromedp.UserDataDir(t.TempDir()), chromedp.Flag("disable-quic", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	var mu sync.Mutex
	err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			mu.Lock()
			defer mu.Unlock()
			t.Errorf("JavaScript exception: %s (line %d)", e.ExceptionDetails.Text, e.ExceptionDetails.LineNumber)
		}
	})
	if err != nil {
		t.Fatalf("listen to chromium: %v", err)
	}
	return ctx
}

// do runs steps, each bounded by a minute; what names them in a failure.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// get runs an action that returns a value.
func get[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	v, err := chromedp.Run(c, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// atState waits until the page shows state n, drawn.
func atState(n int) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`body[data-at="%d"][data-loading="0"]`, n)))
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return get(t, ctx, "text of "+sel, chromedp.TextContent(chromedp.CSS(sel)))
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	return get(t, ctx, js, chromedp.Evaluate[T](js))
}

func cssString(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

func TestBrowser(t *testing.T) {
	bin := chromiumPath(t)
	start := time.Now()
	s, ts := newServer(t, "specs/kafka-18723.toml", "buggy", nil, Options{Loopback: true})
	tr := counterexample(t, s)
	if len(tr.States) != 34 {
		t.Fatalf("KAFKA-18723's counterexample: got %d states, want 34", len(tr.States))
	}
	ctx := browser(t, bin)
	do(t, ctx, "open the page", chromedp.Navigate(ts.URL+"/"), atState(1))
	t.Logf("page open after %s (the counterexample's search included)", time.Since(start).Round(time.Millisecond))

	// Click through the counterexample by action names; every third step by its number key.
	for i := 1; i < len(tr.States); i++ {
		action := tr.States[i].Action
		sel := `#enabled > li[data-action=` + cssString(action) + `]`
		if n := eval[int](t, ctx, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)); n != 1 {
			t.Fatalf("state %d: %d enabled actions named %s, want 1", i, n, action)
		}
		if i%3 == 0 {
			key := eval[string](t, ctx, fmt.Sprintf(`document.querySelector(%q).getAttribute("data-key")`, sel))
			if key == "" {
				t.Fatalf("state %d: %s has no number key", i, action)
			}
			do(t, ctx, "press "+key+" for "+action, chromedp.KeyEvent(key), atState(i+1))
		} else {
			do(t, ctx, "click "+action, chromedp.Click(chromedp.CSS(sel+" button")), atState(i+1))
		}
		if got, want := text(t, ctx, "#state-title"), fmt.Sprintf("State %d: <%s>", i+1, action); got != want {
			t.Fatalf("after clicking %s: got %q, want %q", action, got, want)
		}
	}

	// The last state: the log grid marks b2's e1:r1 at offset 0, which differs from the
	// leader's e2:r3 below both high watermarks; the property and the path's verdict say so.
	cell := text(t, ctx, `#views div.view[data-view="logs"] td.highlight`)
	verdict := text(t, ctx, "#verdict")
	status := text(t, ctx, `#properties tr[data-property="NoPermanentDivergence"] .status`)
	if cell != "e1:r1" || status != "violated" || !strings.Contains(verdict, "offset 0: b2 holds e1:r1, b3 holds e2:r3, both below their high watermarks") {
		t.Errorf("state 34: got highlighted cell %q, status %q, verdict %q; want b2's e1:r1 diverging", cell, status, verdict)
	}
	grid := text(t, ctx, `#views div.view[data-view="logs"] table`)
	for _, want := range []string{"b3 (leader e2)", "e2:r3", "hw"} {
		if !strings.Contains(grid, want) {
			t.Errorf("the log grid: got no %q in %q", want, grid)
		}
	}
	do(t, ctx, "the sequence chart", chromedp.WaitVisible(chromedp.CSS("#sequence svg g#step-34.current")))
	if n := eval[int](t, ctx, `document.querySelectorAll("#sequence svg g.step").length`); n != 34 {
		t.Errorf("the sequence chart: got %d steps, want 34", n)
	}

	// Back (the arrow key, then the button) and the URL restore a state.
	do(t, ctx, "back by the arrow key", chromedp.KeyEvent(kb.ArrowLeft), atState(33))
	vars33 := text(t, ctx, "#vars")
	do(t, ctx, "back by the button", chromedp.Click(chromedp.CSS("#back")), atState(32))
	vars32 := text(t, ctx, "#vars")
	url := get(t, ctx, "location", chromedp.Location())
	if vars33 == vars32 || !strings.Contains(url, "at=32") {
		t.Errorf("back: got the same variables at states 33 and 32, or URL %s", url)
	}
	do(t, ctx, "forward", chromedp.KeyEvent(kb.ArrowRight), atState(33))
	do(t, ctx, "open the URL of state 32", chromedp.Navigate("about:blank"), chromedp.Navigate(url), atState(32))
	if again, title := text(t, ctx, "#vars"), text(t, ctx, "#state-title"); again != vars32 || title != "State 32: <FollowerSendFetch(2)>" {
		t.Errorf("the URL of state 32: got %q and other variables, want state 32 as it was", title)
	}
	if n := eval[string](t, ctx, `document.body.getAttribute("data-path-len")`); n != "34" {
		t.Errorf("the URL of state 32: got a path of %s states, want the 34 of the counterexample", n)
	}
	// The search box filters names.
	do(t, ctx, "filter", chromedp.SendKeys(chromedp.CSS("#filter"), "ControllerMove"))
	if n := eval[int](t, ctx, `document.querySelectorAll("#path li:not(.hidden-by-filter)").length`); n != 1 {
		t.Errorf("filter ControllerMove: got %d path entries shown, want 1", n)
	}
	eval[int](t, ctx, `(function () { var f = document.getElementById("filter"); f.value = ""; f.dispatchEvent(new Event("input")); return 0; })()`)
	do(t, ctx, "the last state", chromedp.Click(chromedp.CSS("#last")), atState(34))
	shot(t, ctx, "kafka-18723")
	t.Logf("KAFKA-18723 clicked through after %s", time.Since(start).Round(time.Millisecond))

	// The KAFKA-13077 lasso, loaded from its ITF file through the page's file input.
	s2, ts2 := newServer(t, "specs/kafka-13077.toml", "buggy", nil, Options{Loopback: true})
	lasso := counterexample(t, s2)
	if lasso.Loop < 0 {
		t.Fatalf("KAFKA-13077's counterexample: got no lasso")
	}
	file := filepath.Join(t.TempDir(), "trace.itf.json")
	writeITF(t, file, lasso, "buggy")
	do(t, ctx, "load the KAFKA-13077 lasso", chromedp.Navigate(ts2.URL+"/"), atState(1),
		chromedp.SetUploadFiles(chromedp.CSS("#trace-file"), []string{file}), atState(len(lasso.States)),
		chromedp.WaitVisible(chromedp.CSS("#sequence svg")))
	lassoText, verdict2 := text(t, ctx, "#lasso"), text(t, ctx, "#verdict")
	loopStart := eval[string](t, ctx, `document.querySelector("#path li.loop-start").getAttribute("data-n")`)
	want := fmt.Sprintf("back to state %d by %s", lasso.Loop+1, lasso.BackAction)
	if !strings.Contains(lassoText, want) || loopStart != fmt.Sprint(lasso.Loop+1) || !strings.Contains(verdict2, "FollowerEventuallyCatchesUp") {
		t.Errorf("KAFKA-13077: got lasso %q (loop marked at %s), verdict %q; want %q and FollowerEventuallyCatchesUp", lassoText, loopStart, verdict2, want)
	}
	shot(t, ctx, "kafka-13077")
	if os.Getenv("KMC_EXPLORE_SHOTS") != "" {
		// The other two seeds' lassos, for the screenshots only.
		for _, seed := range []string{"kafka-5480", "kafka-14154"} {
			s, ts := newServer(t, "specs/"+seed+".toml", "buggy", nil, Options{Loopback: true})
			tr := counterexample(t, s)
			file := filepath.Join(t.TempDir(), "trace.itf.json")
			writeITF(t, file, tr, "buggy")
			do(t, ctx, "load the "+seed+" counterexample", chromedp.Navigate(ts.URL+"/"), atState(1),
				chromedp.SetUploadFiles(chromedp.CSS("#trace-file"), []string{file}), atState(len(tr.States)),
				chromedp.WaitVisible(chromedp.CSS("#sequence svg")))
			shot(t, ctx, seed)
		}
	}
	if e := eval[string](t, ctx, `document.body.getAttribute("data-js-error") || ""`); e != "" {
		t.Errorf("the page reported a JavaScript error: %s", e)
	}
	t.Logf("browser test done in %s", time.Since(start).Round(time.Millisecond))
}

func writeITF(t *testing.T, path string, tr *checker.Trace, check string) {
	t.Helper()
	if err := os.WriteFile(path, itfOf(t, tr, check), 0o644); err != nil {
		t.Fatal(err)
	}
}

// shot saves a full-page screenshot under $KMC_EXPLORE_SHOTS, when it is set (then the test
// also loads the KAFKA-5480 and KAFKA-14154 counterexamples, to take theirs).
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("KMC_EXPLORE_SHOTS")
	if dir == "" {
		return
	}
	png := get(t, ctx, "screenshot", chromedp.FullScreenshot(100))
	if err := os.WriteFile(filepath.Join(dir, "explore-"+name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

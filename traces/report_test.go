package traces

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kmc/checker"
)

func sampleReport(t *testing.T, tr *checker.Trace) []byte {
	t.Helper()
	var b bytes.Buffer
	info := ReportInfo{Spec: "toy.toml", Check: "buggy", Verdict: checker.Violated,
		Stats:   &checker.Stats{Generated: 12, Distinct: 7, Depth: 3, Workers: 2, Elapsed: 1500 * time.Millisecond},
		Command: "kmc check toy.toml --check buggy"}
	if err := HTML(&b, tr, info); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Reference: issue 6 (HTML report: one self-contained page with verdict, statistics,
// graph, sequence chart, step table).
func TestHTMLSelfContained(t *testing.T) {
	page := string(sampleReport(t, safetyTrace()))
	for _, want := range []string{
		`<span class="verdict violated">violated</span>`, "CounterAtMostOne", "distinct states found",
		`<svg`, `id="msg-m1-0"`, `<g id="step-3" class="step decisive">`, `id="slider"`, `"action":"Inc(p2)"`,
		`<div id="witness" class="witness"><b>Why:</b> CounterAtMostOne is false in state 3: x = 2, above the bound 1, after both processes bumped it</div>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report: got no %q", want)
		}
	}
	for _, bad := range []string{"<?xml", "<!DOCTYPE svg", `src="http`, `href="http`, "<link "} {
		if strings.Contains(page, bad) {
			t.Errorf("report: got %q, want a self-contained page", bad)
		}
	}
}

// chromium finds headless Chromium, or skips the test when it is absent and
// KMC_BROWSER_TESTS is unset (the Makefile and CI set it and install Chromium).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("KMC_BROWSER_TESTS") == "" {
		t.Skip("chromium not installed (apt-get install -y chromium; KMC_BROWSER_TESTS=1 makes this a failure)")
	}
	t.Fatal("KMC_BROWSER_TESTS is set but chromium is not installed")
	return ""
}

func runChromium(t *testing.T, bin string, args ...string) (stdout, stderr string) {
	t.Helper()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--enable-logging=stderr", "--v=0", "--user-data-dir=" + t.TempDir()}
	cmd := exec.Command(bin, append(base, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
	}
	return out.String(), errb.String()
}

// Reference: issue 6: the report loads in real headless Chromium without console errors,
// its JavaScript renders the steps, and a screenshot is not blank.
func TestHTMLInChromium(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, sampleReport(t, lassoTrace()), 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + page
	dom, logs := runChromium(t, bin, "--dump-dom", url)
	// It opens at the decisive state, else the last.
	start := len(lassoTrace().States)
	if k, _ := Decisive(lassoTrace()); k >= 0 {
		start = k + 1
	}
	for _, want := range []string{`data-rendered="4"`, fmt.Sprintf(`data-step="%d"`, start), fmt.Sprintf("State %d: &lt;", start), `<td class="name">goal</td>`} {
		if !strings.Contains(dom, want) {
			t.Errorf("DOM after the page's JavaScript: got no %q", want)
		}
	}
	if strings.Contains(dom, `data-js-error="`) {
		t.Errorf("the page reported a JavaScript error:\n%s", dom[strings.Index(dom, `data-js-error="`):][:200])
	}
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, "Uncaught") || (strings.Contains(line, "CONSOLE") && strings.Contains(line, "rror")) {
			t.Errorf("console error: %s", line)
		}
	}
	// Opened at a state by its link, the page shows that state and what changed into it,
	// and marks it in the sequence chart.
	if err := os.WriteFile(page, sampleReport(t, safetyTrace()), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, _ = runChromium(t, bin, "--dump-dom", url+"#step=3")
	for _, want := range []string{`data-step="3"`, "State 3: &lt;Inc(p2)&gt;", "<li>x = 2</li>", `<li>done += "p2"</li>`,
		`<tr class="changed"><td class="name">x</td>`, `<g id="step-3" class="step decisive current">`} {
		if !strings.Contains(dom, want) {
			t.Errorf("DOM at #step=3: got no %q", want)
		}
	}
	shot := filepath.Join(dir, "shot.png")
	runChromium(t, bin, "--screenshot="+shot, "--window-size=1000,900", "--hide-scrollbars", url)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	colours := map[uint32]bool{}
	dark := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[(r>>8)<<16|(g>>8)<<8|bl>>8] = true
			if r+g+bl < 3*0x8000 {
				dark++
			}
		}
	}
	if len(colours) < 20 || dark < 500 {
		t.Errorf("screenshot looks blank: %d colours, %d dark samples", len(colours), dark)
	}
	if os.Getenv("KMC_KEEP_SCREENSHOT") != "" {
		data, _ := os.ReadFile(shot)
		_ = os.WriteFile(os.Getenv("KMC_KEEP_SCREENSHOT"), data, 0o644)
	}
}

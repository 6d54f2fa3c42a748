package docs

// The documentation's examples, run. A fenced block marked ```console holds commands, each on
// a line starting with "$ kmc", and under each the output it prints; TestExamples runs every
// such block of README.md and docs/*.md, in order, with a kmc built from this tree, and fails
// where the output differs from the block. -update rewrites the blocks with what kmc printed.
//
// The rules (the README's "Examples in these docs" restates them for writers):
//   - A command is `kmc ARGS`, optionally followed by `2>/dev/null` (stderr left out) and by
//     filters `| head -n N`, `| tail -n N`, `| grep [-v] [-E] PATTERN`, `| cut -c1-N`,
//     `| sed -n 'A,Bp'` or `'/RE1/,/RE2/p'` (several with -e), which the test applies itself (no shell runs). Arguments may be
//     quoted with ' or ".
//   - Without a filter the output is stdout and stderr as a terminal shows them (one pipe, in
//     the order kmc wrote them); with a filter, as in a shell, only stdout goes through it and
//     stderr is left out. A non-zero exit adds a last line `[exit N]`.
//   - Each file's commands run in a fresh folder of their own, in which specs/ is this tree's
//     specs/; a command's files (--out out) are there for the file's later commands. A block
//     preceded by the line `<!-- doc-test: file NAME -->` is written to NAME in that folder.
//   - Compared modulo what differs between runs and machines: durations (0.87s, 1m3s, 120ms),
//     rates (N distinct states/s), the worker count of "with N workers", the Phase: and
//     Progress( lines a long search writes to stderr, and runs of spaces (columns widen with a
//     longer time). Everything else, state counts, traces and verdicts included, must match.
//   - Any other fenced block that shows a `$ kmc` command must be preceded by the line
//     `<!-- doc-test: not run: WHY -->` (a figure of a long run, a Java or cluster run), and
//     quote its date and command in the text.

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the documentation's ```console blocks with kmc's output")

// kmcBin is the kmc built for the test, in TestMain.
var kmcBin string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "kmc-docs-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "docs: temporary folder:", err)
		os.Exit(1)
	}
	kmcBin = filepath.Join(dir, "kmc")
	if out, err := exec.Command("go", "build", "-o", kmcBin, "../cmd/kmc").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "docs: go build ../cmd/kmc: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// docFiles are the documentation's Markdown files, README.md first.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../README.md"}, files...)
}

// block is a fenced block of a Markdown file: its info string, the marker comment on the line
// before it, and its lines (start and end index the lines between the fences).
type block struct {
	info       string
	marker     string
	start, end int
	fenceLine  int // 1-based line of the opening fence, for messages
}

var markerRE = regexp.MustCompile(`^<!-- doc-test: (.*?) -->\s*$`)

// parseBlocks finds the fenced blocks of a file's lines (``` or ~~~ fences, at least three).
func parseBlocks(lines []string) ([]block, error) {
	var bs []block
	for i := 0; i < len(lines); i++ {
		fence, info, ok := openFence(lines[i])
		if !ok {
			continue
		}
		b := block{info: info, start: i + 1, fenceLine: i + 1}
		if i > 0 {
			if m := markerRE.FindStringSubmatch(lines[i-1]); m != nil {
				b.marker = m[1]
			}
		}
		j := i + 1
		for ; j < len(lines); j++ {
			if l := strings.TrimSpace(lines[j]); strings.HasPrefix(l, fence) && strings.Trim(l, fence[:1]) == "" {
				break
			}
		}
		if j == len(lines) {
			return nil, fmt.Errorf("line %d: fenced block never closed", i+1)
		}
		b.end = j
		bs = append(bs, b)
		i = j
	}
	return bs, nil
}

func openFence(line string) (fence, info string, ok bool) {
	s := strings.TrimLeft(line, " ")
	if len(line)-len(s) > 3 {
		return "", "", false
	}
	for _, c := range []string{"`", "~"} {
		n := 0
		for n < len(s) && s[n:n+1] == c {
			n++
		}
		if n >= 3 {
			return s[:n], strings.TrimSpace(s[n:]), true
		}
	}
	return "", "", false
}

// example is one command of a console block and the output the block shows under it.
type example struct {
	cmd      string
	line     int // 1-based line of the "$ " line
	want     []string
	from, to int // the output's lines in the file: [from, to)
}

func parseConsole(lines []string, b block) ([]example, error) {
	var exs []example
	for i := b.start; i < b.end; i++ {
		l := lines[i]
		if strings.HasPrefix(l, "$ ") {
			exs = append(exs, example{cmd: strings.TrimPrefix(l, "$ "), line: i + 1, from: i + 1, to: i + 1})
			continue
		}
		if len(exs) == 0 {
			return nil, fmt.Errorf("line %d: a console block starts with a command (\"$ kmc ...\"), not %q", i+1, l)
		}
		e := &exs[len(exs)-1]
		e.want = append(e.want, l)
		e.to = i + 1
	}
	return exs, nil
}

// command is a parsed example command: kmc's arguments, whether stderr is shown, and filters.
type command struct {
	args       []string
	dropStderr bool
	filters    [][]string
}

// splitWords splits a command line into words and "|" separators, honouring ' and " quotes.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unclosed %c quote", c)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '|' && !inWord:
			words = append(words, "|")
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

func parseCommand(s string) (command, error) {
	words, err := splitWords(s)
	if err != nil {
		return command{}, err
	}
	var parts [][]string
	cur := []string{}
	for _, w := range words {
		if w == "|" {
			parts = append(parts, cur)
			cur = []string{}
			continue
		}
		cur = append(cur, w)
	}
	parts = append(parts, cur)
	var c command
	first := parts[0]
	if len(first) == 0 || first[0] != "kmc" {
		return c, fmt.Errorf("a command runs kmc (got %q)", s)
	}
	if n := len(first); n > 1 && first[n-1] == "2>/dev/null" {
		c.dropStderr = true
		first = first[:n-1]
	}
	c.args = first[1:]
	for _, f := range parts[1:] {
		if err := checkFilter(f); err != nil {
			return c, err
		}
		c.filters = append(c.filters, f)
	}
	return c, nil
}

func checkFilter(f []string) error {
	if len(f) == 0 {
		return errors.New("empty filter after |")
	}
	switch f[0] {
	case "head", "tail":
		if len(f) == 3 && f[1] == "-n" {
			if _, err := strconv.Atoi(f[2]); err == nil {
				return nil
			}
		}
		return fmt.Errorf("filter %q: want %s -n N", strings.Join(f, " "), f[0])
	case "grep":
		_, _, _, err := grepArgs(f)
		return err
	case "cut":
		if len(f) == 2 && strings.HasPrefix(f[1], "-c1-") {
			if n, err := strconv.Atoi(strings.TrimPrefix(f[1], "-c1-")); err == nil && n > 0 {
				return nil
			}
		}
		return fmt.Errorf("filter %q: want cut -c1-N", strings.Join(f, " "))
	case "sed":
		_, err := sedScripts(f)
		return err
	}
	return fmt.Errorf("filter %q: the examples know head -n, tail -n, grep [-v] [-E], cut -c1-N and sed -n", strings.Join(f, " "))
}

// grepArgs parses `grep [-v] [-E] PATTERN`. Without -E the pattern is a basic regular expression
// as GNU grep reads it: \| \( \) \+ \? are operators, | ( ) + ? { } literal.
func grepArgs(f []string) (*regexp.Regexp, bool, bool, error) {
	invert, ext := false, false
	var pat string
	rest := f[1:]
	for len(rest) > 1 {
		switch rest[0] {
		case "-v":
			invert = true
		case "-E":
			ext = true
		default:
			return nil, false, false, fmt.Errorf("filter %q: want grep [-v] [-E] PATTERN", strings.Join(f, " "))
		}
		rest = rest[1:]
	}
	if len(rest) != 1 {
		return nil, false, false, fmt.Errorf("filter %q: want grep [-v] [-E] PATTERN", strings.Join(f, " "))
	}
	pat = rest[0]
	if !ext {
		pat = basicToExtended(pat)
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil, false, false, fmt.Errorf("filter %q: %v", strings.Join(f, " "), err)
	}
	return re, invert, ext, nil
}

func basicToExtended(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '\\' && i+1 < len(p) && strings.IndexByte("|()+?{}", p[i+1]) >= 0 {
			b.WriteByte(p[i+1])
			i++
			continue
		}
		if strings.IndexByte("|()+?{}", c) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// sedRange parses sed's 'A,Bp' (lines A to B) or '/RE1/,/RE2/p' (from each line matching RE1
// to the next line matching RE2, both included; RE1 and RE2 are extended regular expressions).
type sedSpec struct {
	a, b     int
	re1, re2 *regexp.Regexp
}

func sedRange(s string) (sedSpec, error) {
	bad := fmt.Errorf("sed script %q: want 'A,Bp' or '/RE1/,/RE2/p'", s)
	if !strings.HasSuffix(s, "p") {
		return sedSpec{}, bad
	}
	s = strings.TrimSuffix(s, "p")
	if strings.HasPrefix(s, "/") && strings.HasSuffix(s, "/") {
		r1, r2, ok := strings.Cut(s[1:len(s)-1], "/,/")
		if !ok {
			return sedSpec{}, bad
		}
		re1, err1 := regexp.Compile(r1)
		re2, err2 := regexp.Compile(r2)
		if err1 != nil || err2 != nil {
			return sedSpec{}, bad
		}
		return sedSpec{re1: re1, re2: re2}, nil
	}
	a, b, ok := strings.Cut(s, ",")
	if !ok {
		return sedSpec{}, bad
	}
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || x < 1 || y < x {
		return sedSpec{}, bad
	}
	return sedSpec{a: x, b: y}, nil
}

// sedScripts parses `sed -n SCRIPT` or `sed -n -e SCRIPT [-e SCRIPT]...`.
func sedScripts(f []string) ([]sedSpec, error) {
	bad := fmt.Errorf("filter %q: want sed -n 'A,Bp' or sed -n '/RE1/,/RE2/p', or several such as -e SCRIPT", strings.Join(f, " "))
	if len(f) < 3 || f[1] != "-n" {
		return nil, bad
	}
	var scripts []string
	if len(f) == 3 {
		scripts = f[2:]
	} else {
		for i := 2; i < len(f); i += 2 {
			if f[i] != "-e" || i+1 == len(f) {
				return nil, bad
			}
			scripts = append(scripts, f[i+1])
		}
	}
	var sps []sedSpec
	for _, sc := range scripts {
		sp, err := sedRange(sc)
		if err != nil {
			return nil, err
		}
		sps = append(sps, sp)
	}
	return sps, nil
}

// applySed prints, as sed -n does, each line once per script whose range holds it.
func applySed(sps []sedSpec, lines []string) []string {
	var out []string
	in := make([]bool, len(sps))
	for i, l := range lines {
		for k, sp := range sps {
			switch {
			case sp.re1 == nil:
				if i+1 >= sp.a && i+1 <= sp.b {
					out = append(out, l)
				}
			case in[k]:
				out = append(out, l)
				in[k] = !sp.re2.MatchString(l)
			case sp.re1.MatchString(l):
				out = append(out, l)
				in[k] = true
			}
		}
	}
	return out
}

func applyFilter(f []string, lines []string) []string {
	switch f[0] {
	case "head", "tail":
		n, _ := strconv.Atoi(f[2])
		if n > len(lines) {
			n = len(lines)
		}
		if f[0] == "head" {
			return lines[:n]
		}
		return lines[len(lines)-n:]
	case "grep":
		re, invert, _, _ := grepArgs(f)
		var out []string
		for _, l := range lines {
			if re.MatchString(l) != invert {
				out = append(out, l)
			}
		}
		return out
	case "cut":
		n, _ := strconv.Atoi(strings.TrimPrefix(f[1], "-c1-"))
		out := make([]string, len(lines))
		for i, l := range lines {
			if r := []rune(l); len(r) > n {
				l = string(r[:n])
			}
			out[i] = l
		}
		return out
	case "sed":
		sps, _ := sedScripts(f)
		return applySed(sps, lines)
	}
	panic("unknown filter " + f[0])
}

// run runs an example command in dir and returns the lines it shows.
func run(t *testing.T, dir string, c command) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, kmcBin, c.args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	switch {
	case c.dropStderr || len(c.filters) > 0:
		cmd.Stderr = &errb
	default:
		cmd.Stderr = &out // one pipe: the order kmc wrote in
	}
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ctx.Err() != nil {
			t.Fatalf("kmc %s: %v\n%s%s", strings.Join(c.args, " "), err, out.String(), errb.String())
		}
		code = ee.ExitCode()
	}
	text := strings.ReplaceAll(out.String(), dir+string(filepath.Separator), "")
	text = strings.ReplaceAll(text, dir, ".")
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	var kept []string
	for _, l := range lines {
		if len(c.filters) == 0 && volatileLine.MatchString(l) {
			continue // a long search's timing lines on stderr
		}
		kept = append(kept, strings.TrimRight(l, " "))
	}
	for _, f := range c.filters {
		kept = applyFilter(f, kept)
	}
	if code != 0 {
		kept = append(kept, fmt.Sprintf("[exit %d]", code))
	}
	return kept
}

var (
	volatileLine = regexp.MustCompile(`^(Phase: |Progress\()`)
	durationRE   = regexp.MustCompile(`\b(\d+h)?(\d+m)?\d+(\.\d+)?(ns|µs|us|ms|s|m|h)\b`)
	rateRE       = regexp.MustCompile(`\b\d+(\.\d+)? (distinct )?states/s\b`)
	workersRE    = regexp.MustCompile(`\bwith \d+ workers?\b`)
	spacesRE     = regexp.MustCompile(`\s+`)
)

// normalize maps an output line to what the comparison sees.
func normalize(l string) string {
	l = rateRE.ReplaceAllString(l, "R states/s")
	l = durationRE.ReplaceAllString(l, "T")
	l = workersRE.ReplaceAllString(l, "with N workers")
	return strings.TrimSpace(spacesRE.ReplaceAllString(l, " "))
}

// compareLines reports the first difference between the output shown and the output got, or "".
func compareLines(want, got []string) string {
	var w, g []string
	for _, l := range want {
		if !volatileLine.MatchString(l) {
			w = append(w, l)
		}
	}
	g = got
	for i := 0; i < len(w) || i < len(g); i++ {
		switch {
		case i >= len(w):
			return fmt.Sprintf("output line %d: kmc printed %q, the doc shows nothing more", i+1, g[i])
		case i >= len(g):
			return fmt.Sprintf("output line %d: the doc shows %q, kmc printed nothing more", i+1, w[i])
		case normalize(w[i]) != normalize(g[i]):
			return fmt.Sprintf("output line %d:\n  doc: %s\n  kmc: %s", i+1, w[i], g[i])
		}
	}
	return ""
}

// TestExamples runs every ```console block of the documentation and compares its output.
func TestExamples(t *testing.T) {
	specs, err := filepath.Abs("../specs")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range docFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(data), "\n")
			blocks, err := parseBlocks(lines)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			var dir string
			workDir := func() string {
				if dir == "" {
					dir = t.TempDir()
					if err := os.Symlink(specs, filepath.Join(dir, "specs")); err != nil {
						t.Fatal(err)
					}
				}
				return dir
			}
			type edit struct {
				from, to int
				lines    []string
			}
			var edits []edit
			for _, b := range blocks {
				switch {
				case strings.HasPrefix(b.marker, "file "):
					name := strings.TrimSpace(strings.TrimPrefix(b.marker, "file "))
					if name == "" || filepath.IsAbs(name) || strings.Contains(name, "..") {
						t.Fatalf("%s:%d: doc-test file marker: want a relative NAME, got %q", file, b.fenceLine, name)
					}
					content := strings.Join(lines[b.start:b.end], "\n") + "\n"
					p := filepath.Join(workDir(), name)
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				case b.info == "console":
				default:
					if strings.HasPrefix(b.marker, "not run:") && strings.TrimSpace(strings.TrimPrefix(b.marker, "not run:")) != "" {
						continue
					}
					for i := b.start; i < b.end; i++ {
						if strings.HasPrefix(strings.TrimSpace(lines[i]), "$ kmc") {
							t.Errorf("%s:%d: a ```%s block shows %q with its output but is not run: make it ```console, or precede it with <!-- doc-test: not run: WHY --> and quote the run's date and command", file, i+1, b.info, strings.TrimSpace(lines[i]))
							break
						}
					}
					continue
				}
				exs, err := parseConsole(lines, b)
				if err != nil {
					t.Fatalf("%s: %v", file, err)
				}
				for _, ex := range exs {
					c, err := parseCommand(ex.cmd)
					if err != nil {
						t.Fatalf("%s:%d: %v", file, ex.line, err)
					}
					start := time.Now()
					got := run(t, workDir(), c)
					t.Logf("%s:%d: %s (%.1fs)", file, ex.line, ex.cmd, time.Since(start).Seconds())
					if *update {
						edits = append(edits, edit{ex.from, ex.to, got})
						continue
					}
					if d := compareLines(ex.want, got); d != "" {
						t.Errorf("%s:%d: $ %s\n%s\n(refresh the examples with: go test ./docs/ -run Examples -update)", file, ex.line, ex.cmd, d)
					}
				}
			}
			if *update && len(edits) > 0 {
				for i := len(edits) - 1; i >= 0; i-- {
					e := edits[i]
					lines = append(lines[:e.from], append(append([]string{}, e.lines...), lines[e.to:]...)...)
				}
				if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestCompareCatchesDrift: the comparison ignores times and worker counts and nothing else.
func TestCompareCatchesDrift(t *testing.T) {
	doc := []string{
		"Running breadth-first search with 2 workers and symmetry reduction.",
		"1163031 states generated, 352023 distinct states found, 36043 states left on queue.",
		"  KAFKA-18723   on   impossible at step 27   ok   779862  4.87s",
		"Finished in 0.87s.",
		"[exit 12]",
	}
	same := []string{
		"Running breadth-first search with 8 workers and symmetry reduction.",
		"1163031 states generated, 352023 distinct states found, 36043 states left on queue.",
		"  KAFKA-18723   on   impossible at step 27   ok   779862  12.05s",
		"Finished in 1m2.5s.",
		"[exit 12]",
	}
	if d := compareLines(doc, same); d != "" {
		t.Errorf("times and workers should not count as a difference: %s", d)
	}
	for i, drift := range []func([]string){
		func(l []string) { l[1] = strings.Replace(l[1], "352023", "352024", 1) },
		func(l []string) { l[2] = strings.Replace(l[2], "step 27", "step 26", 1) },
		func(l []string) { l[4] = "[exit 0]" },
		func(l []string) { l[0] = strings.Replace(l[0], "symmetry", "no symmetry", 1) },
	} {
		got := append([]string{}, same...)
		drift(got)
		if compareLines(doc, got) == "" {
			t.Errorf("drift %d went unnoticed: %q", i, got)
		}
	}
	if compareLines(doc, same[:4]) == "" || compareLines(doc[:4], same) == "" {
		t.Error("a missing or extra line went unnoticed")
	}
}

func TestParseCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		args []string
		drop bool
		nf   int
		bad  bool
	}{
		{in: "kmc check specs/x.toml --check buggy", args: []string{"check", "specs/x.toml", "--check", "buggy"}},
		{in: `kmc check s.toml --invariant 'hw["b2"] == 0' 2>/dev/null`, args: []string{"check", "s.toml", "--invariant", `hw["b2"] == 0`}, drop: true},
		{in: "kmc list kafka | grep -E 'KAFKA|ok' | head -n 3", args: []string{"list", "kafka"}, nf: 2},
		{in: "kmc check x | sed -n '3,9p'", args: []string{"check", "x"}, nf: 1},
		{in: "ls specs", bad: true},
		{in: "kmc check x | wc -l", bad: true},
		{in: "kmc check 'x", bad: true},
	} {
		c, err := parseCommand(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: want an error", tc.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if strings.Join(c.args, "\x00") != strings.Join(tc.args, "\x00") || c.dropStderr != tc.drop || len(c.filters) != tc.nf {
			t.Errorf("%q: got %q drop=%v filters=%v", tc.in, c.args, c.dropStderr, c.filters)
		}
	}
	lines := []string{"a|b", "a", "KAFKA-1 x", "ok"}
	if got := applyFilter([]string{"grep", `a\|ok`}, lines); len(got) != 3 {
		t.Errorf("grep a\\|ok: got %q", got)
	}
	if got := applyFilter([]string{"grep", "a|b"}, lines); len(got) != 1 {
		t.Errorf("grep a|b (basic: | is literal): got %q", got)
	}
	if got := applyFilter([]string{"grep", "-v", "-E", "a|ok"}, lines); len(got) != 1 || got[0] != "KAFKA-1 x" {
		t.Errorf("grep -v -E: got %q", got)
	}
	if got := applyFilter([]string{"tail", "-n", "2"}, lines); len(got) != 2 || got[1] != "ok" {
		t.Errorf("tail: got %q", got)
	}
	if got := applyFilter([]string{"cut", "-c1-3"}, lines); got[2] != "KAF" || got[1] != "a" {
		t.Errorf("cut: got %q", got)
	}
	if got := applyFilter([]string{"sed", "-n", "2,3p"}, lines); len(got) != 2 || got[0] != "a" {
		t.Errorf("sed: got %q", got)
	}
	if got := applyFilter([]string{"sed", "-n", "/^a$/,/x$/p"}, lines); len(got) != 2 || got[1] != "KAFKA-1 x" {
		t.Errorf("sed /RE/,/RE/p: got %q", got)
	}
	if got := applyFilter([]string{"sed", "-n", "-e", "1,1p", "-e", "/^ok/,/x/p"}, lines); len(got) != 2 || got[0] != "a|b" || got[1] != "ok" {
		t.Errorf("sed -e -e: got %q", got)
	}
	if _, err := parseCommand("kmc x | sed -n -e '1,2p' '3,4p'"); err == nil {
		t.Error("sed -n -e A B: want an error")
	}
}

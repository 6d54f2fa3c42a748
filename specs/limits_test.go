package specs

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Reference: issue 11, defect 4 (quadratic error output; no cap on a spec's size, nesting
// or the files Load reads).

func errorList(t *testing.T, err error) ErrorList {
	t.Helper()
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("got %T (%v), want an ErrorList", err, err)
	}
	return list
}

func TestLoadRejectsNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.toml")
	if err := os.WriteFile(big, []byte("# "+strings.Repeat("x", MaxSpecBytes)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, want string
	}{
		{"/dev/zero", "/dev/zero:1:1: not a regular file (a device)"},
		{dir, dir + ":1:1: not a regular file (a directory)"},
		{big, big + ":1:1: larger than 1 MiB: spec files are small"},
	}
	for _, tt := range tests {
		_, err := Load(tt.path, nil)
		if err == nil {
			t.Errorf("Load(%s): got no error", tt.path)
			continue
		}
		if got := errorList(t, err).Error(); got != tt.want {
			t.Errorf("Load(%s): got %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestParseRejectsDeepNesting(t *testing.T) {
	const n = 100 // BurntSushi/toml is quadratic in this; 10,000 took 38.7 s and 4 GB
	tests := []struct {
		name, src, want string
	}{
		{"inline tables", "x = " + strings.Repeat("{a = ", n) + "1" + strings.Repeat("}", n) + "\n",
			"s.toml:1:" + itoa(5+5*MaxNesting) + ": nested deeper than 32 levels"},
		{"arrays", "x = [\n" + strings.Repeat("[", n) + "1" + strings.Repeat("]", n) + "]\n",
			"s.toml:2:" + itoa(MaxNesting) + ": nested deeper than 32 levels"},
		{"dotted key", "model = \"twophase\"\n" + strings.Repeat("a.", n) + "a = 1\n",
			"s.toml:2:" + itoa(2*MaxNesting) + ": nested deeper than 32 levels"},
		{"table header", "[" + strings.Repeat("a.", n) + "a]\n",
			"s.toml:1:" + itoa(1+2*MaxNesting) + ": nested deeper than 32 levels"},
		{"dotted key in an inline table", "x = {" + strings.Repeat("a.", n) + "a = 1}\n",
			"s.toml:1:" + itoa(5+2*MaxNesting) + ": nested deeper than 32 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("s.toml", []byte(tt.src), nil)
			list := errorList(t, err)
			if len(list) != 1 || !strings.HasPrefix(list[0].Error(), tt.want) {
				t.Errorf("got\n%v\nwant one error starting %q", list, tt.want)
			}
		})
	}
	// Strings, comments and floats hold brackets and dots that are not nesting.
	ok := goodSpec + "# [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g\n" +
		`[limits.memory]` + "\n"
	if _, err := Parse("s.toml", []byte(strings.Replace(goodSpec, `doc = "test"`,
		`doc = "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ {{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{ a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g"`, 1)), nil); err != nil {
		t.Errorf("brackets in a string: %v", err)
	}
	list := errorList(t, func() error { _, err := Parse("s.toml", []byte(ok), nil); return err }())
	for _, e := range list {
		if strings.Contains(e.Problem, "nested") {
			t.Errorf("a comment counted as nesting: %v", e)
		}
	}
}

func TestErrorsCappedPerFile(t *testing.T) {
	// 1,000 repeated names; the 10,000 took 37 s and wrote 1.6 GB before the cap,
	// each error re-printing the whole list.
	const n = 1000
	names := strings.Repeat(`"TCConsistent", `, n)
	src := strings.Replace(goodSpec, `properties = ["TCConsistent", "TCTypeOK"]`, `properties = [`+names+`"TCTypeOK"]`, 1)
	_, err := Parse("s.toml", []byte(src), nil)
	list := errorList(t, err)
	if len(list) != MaxErrors+1 {
		t.Fatalf("got %d errors, want %d and a count of the rest", len(list), MaxErrors+1)
	}
	if got, want := list.Total(), n-1; got != want {
		t.Errorf("Total: got %d, want %d", got, want)
	}
	if got, want := list[MaxErrors].Error(), `s.toml:3:14: and 949 more errors`; got != want {
		t.Errorf("last line: got %q, want %q", got, want)
	}
	if got, want := list[0].Error(), `s.toml:3:14: properties: duplicate name "TCConsistent"`; got != want {
		t.Errorf("first error: got %q, want %q", got, want)
	}
	if size := len(list.Error()); size > 100*(MaxErrors+1) {
		t.Errorf("error text is %d bytes, want it short", size)
	}
}

func TestLongValuesShortenedInErrors(t *testing.T) {
	src := strings.Replace(goodSpec, `doc = "test"`, `doc = ["`+strings.Repeat("x", 10000)+`"]`, 1)
	_, err := Parse("s.toml", []byte(src), nil)
	list := errorList(t, err)
	if len(list) != 1 || len(list[0].Error()) > 200 || !strings.HasSuffix(list[0].Error(), "…)") {
		t.Errorf("got %v, want one error with the value cut short", list)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

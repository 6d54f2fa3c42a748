package specs

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// Reference: STYLE.md §6: every parser has a fuzz target seeded from the real files (and
// robust lists, issue 10); it never panics and every error carries a position.
func FuzzLoad(f *testing.F) {
	paths, err := FindSpecs(".")
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src, "")
		f.Add(src, "rms=4")
	}
	f.Add([]byte(goodSpec), "limits.memory=1GiB")
	f.Add([]byte(robustSpec), "")
	f.Add([]byte(robustSpec), "rms=16")
	f.Add([]byte("model = \"kafka\"\nproperties = [\"NoPermanentDivergence\"]\n[options]\nview = \"logs, epochCaches\"\n[[check]]\nname = \"a\"\nexpect = \"ok\"\n"), "options.view=all")
	f.Add([]byte(strings.Replace(goodSpec, "depth = 4\n", "depth = 4\nrobust = [\"rms+1\", \"rms-1\", \"rms+99\", \"x\"]\n", 1)), "")
	f.Fuzz(func(t *testing.T, src []byte, set string) {
		var sets []string
		if set != "" {
			sets = strings.Split(set, "\n")
		}
		s, err := Parse("fuzz.toml", src, sets)
		if err == nil {
			if verr := s.valid(); verr != nil {
				t.Fatalf("Parse accepted an invalid spec: %v", verr)
			}
			return
		}
		var list ErrorList
		if !errors.As(err, &list) {
			t.Fatalf("Parse: got %T (%v), want an ErrorList", err, err)
		}
		if len(list) == 0 {
			t.Fatal("Parse: empty ErrorList")
		}
		for _, e := range list {
			if e.Pos.Line < 1 || e.Pos.Col < 1 || (e.Pos.File != "fuzz.toml" && e.Pos.File != SetFile) {
				t.Errorf("error without a position: %q", e.Error())
			}
		}
	})
}

// FuzzSet fuzzes --set overrides on a twophase and a kafka spec. It never panics; a bad
// override is an ErrorList whose every error has a position, in the --set argument or the
// file; an accepted one gives a valid spec; an argument of more than one line is refused.
// Reference: issue 11, defect 8 (a newline in a --set value was read as more TOML).
func FuzzSet(f *testing.F) {
	kafka, err := os.ReadFile("kafka-14154.toml")
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		"rms=4", "rms=16", "constants.rms=3", "faults.crash=1", "brokers=3", "min_isr=2",
		"truncation=diverging-epoch", `truncation="leader-epoch"`, "controllers=2", "session_loss=1",
		"limits.max_states=1000", "limits.max_depth=20", "limits.memory=4GiB", `limits.memory="512MiB"`,
		"limits.memory=0", "limits.time=10m", "limits.time=1h30m", "options.workers=2", "options.deadlock=true",
		"options.symmetry=true", "options.view=controlPlane", `options.view="logs,bogus"`, "fairness.TMCommit=weak", "fairness.FollowerFetch=strong", "rms = 5 ",
		"rms=4\nrms=5", "rms", "=3", "rms=[1,2]", "rms={a=1}", "limits.memory=1.5GiB", "KAFKA-6082=true",
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, set string, useKafka bool) {
		src := []byte(goodSpec)
		if useKafka {
			src = kafka
		}
		s, err := Parse("fuzz.toml", src, []string{set})
		if err == nil {
			if strings.ContainsAny(set, "\r\n") {
				t.Fatalf("accepted a --set of more than one line: %q", set)
			}
			if verr := s.valid(); verr != nil {
				t.Fatalf("Parse accepted an invalid spec: %v", verr)
			}
			return
		}
		var list ErrorList
		if !errors.As(err, &list) {
			t.Fatalf("Parse: got %T (%v), want an ErrorList", err, err)
		}
		for _, e := range list {
			ok := e.Pos.Line >= 1 && e.Pos.Col >= 1
			switch e.Pos.File {
			case SetFile:
				ok = ok && e.Pos.Line == 1 && e.Pos.Col <= len(set)+1
			case "fuzz.toml":
			default:
				ok = false
			}
			if !ok {
				t.Errorf("error without a good position: %q", e.Error())
			}
		}
	})
}

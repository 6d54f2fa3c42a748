package specs

import (
	"path/filepath"
	"regexp"
	"testing"

	"kmc/checker"
)

// Every violated check of the small regression specs (two-phase commit, the reference ports,
// the Kafka seeds that finish in seconds) prints a witness: the property, where it fails and
// the model's explanation of it.
func TestWitnessOfEveryViolation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the violated checks of the regression specs")
	}
	files, err := filepath.Glob("reference/*.toml")
	if err != nil {
		t.Fatal(err)
	}
	vl, err := filepath.Glob("vanlightly/*.toml")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, vl...)
	files = append(files, "twophase.toml", "kafka-18723.toml", "kafka-14154.toml", "kafka-5480.toml", "kafka-truncation.toml")
	// "P is false in state N: why", "P is broken by the step into state N (A): why", or a
	// lasso's "P: its condition holds in state N ... in state L: why. Fair steps ...".
	explained := regexp.MustCompile(`^(\w+ is false in state \d+: .+|\w+ is broken by the step into state \d+ \(.+\): .+|\w+: .+; in state \d+: .+\. (Fair steps taken in the loop|No fair step).+)$`)
	ran := 0
	for _, f := range files {
		spec, err := Load(f, nil)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i := range spec.Checks {
			c := &spec.Checks[i]
			if c.Expect != checker.Violated || c.Property == DeadlockProperty {
				continue
			}
			r, opts, err := spec.Runnable(c)
			if err != nil {
				t.Fatalf("%s %s: %v", f, c.Name, err)
			}
			opts.Workers = 2
			if opts.MaxStates == 0 || opts.MaxStates > 3_000_000 {
				opts.MaxStates = 3_000_000
			}
			res := r.Check(opts)
			if res.Verdict != checker.Violated {
				continue // beyond this test's budget; the suite checks the verdict
			}
			ran++
			if res.Trace == nil || !explained.MatchString(res.Trace.Witness) {
				w := ""
				if res.Trace != nil {
					w = res.Trace.Witness
				}
				t.Errorf("%s %s (%s): witness %q is not an explanation", f, c.Name, res.Property, w)
			}
		}
	}
	if ran < 10 {
		t.Errorf("only %d violated checks ran; want at least 10", ran)
	}
}

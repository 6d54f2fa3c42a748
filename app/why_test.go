package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kmc/checker"
	"kmc/specs"
	"kmc/traces"
)

// Reference: issue 13 (kmc why: which fix switch a saved violation is about).

// violation checks check of specPath, writes its counterexample with Out as Check does for
// kmc check --out, and reads the trace back as kmc why does.
func violation(t *testing.T, specPath, check string) *checker.Trace {
	t.Helper()
	out := filepath.Join(t.TempDir(), check)
	res, err := Check(context.Background(), load(t, specPath), check, CheckOptions{Search: Search{Workers: 2}, Out: out})
	if err != nil || res.Verdict != checker.Violated || res.WriteErr != nil {
		t.Fatalf("check %s %s: got %+v, %v; want a violation written", specPath, check, res, err)
	}
	f, err := os.Open(filepath.Join(out, "trace.itf.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, meta, err := traces.LoadITFMeta(f)
	if err != nil || meta.Check != check || meta.Source != specPath {
		t.Fatalf("the trace: %v, meta %+v", err, meta)
	}
	return tr
}

func switchNames(l []*Variant) string {
	var names []string
	for _, v := range l {
		names = append(names, v.Switch+" "+v.Set())
	}
	return strings.Join(names, ", ")
}

// builtinSwitches are the switches the tests of kmc why name: the model's as issue 28 found
// them. A switch added later (a proposal of model/kafka/switch_*.go, or a test's own) is
// not among them, so that adding one does not move these tests (docs/proposals.md).
var builtinSwitches = []string{specs.Kafka18723, specs.Kafka13077, specs.Kafka6082, specs.Kafka14154,
	specs.Kafka14154Proposed, specs.Kafka18723Strict, specs.KIP966, specs.Kafka18723SendSide,
	specs.Kafka16541CloseFlush, specs.Kafka13141, specs.Kafka18991}

// TestWhySeeds: for each seed's buggy trace, Why names the seed's fix. Every switch of
// builtinSwitches is replayed (ReplayOnly); the whole check runs for the seed's own switch
// (and, where the checks are small, for every one of them).
func TestWhySeeds(t *testing.T) {
	tests := []struct {
		name, spec string
		// about is what Why names with ReplayOnly over every switch (the switches under
		// which the trace loses its violation), and check the switches whose whole check
		// runs: nil for every switch.
		about  string
		check  []string
		aboutC string // what it names with the whole checks of check
	}{
		// Reference: KAFKA-18723. The proposal for its residual (send side) also stops
		// this trace, and passes the whole check at these bounds.
		{"kafka-18723", "../specs/kafka-18723.toml", "KAFKA-18723 on, KAFKA-18723-send-side on",
			[]string{"KAFKA-18723"}, "KAFKA-18723 on"},
		// Reference: KAFKA-5480, fixed by KAFKA-6082 (fencing store writes by controller epoch).
		{"kafka-5480", "../specs/kafka-5480.toml", "KAFKA-6082 on", nil, "KAFKA-6082 on"},
		// Reference: KAFKA-14154: the merged fix (version 3.3 has it; the buggy check takes it
		// out) and the one first proposed.
		{"kafka-14154", kafka14154, "KAFKA-14154 on, KAFKA-14154-proposed on", nil,
			"KAFKA-14154 on, KAFKA-14154-proposed on"},
		// Reference: KAFKA-13077.
		// On 2.8.0 KAFKA-13141's fix (2.8.1) takes the violation off this trace too: its loop
		// has the leader take a diverging fetch's offset as the follower's log end offset.
		{"kafka-13077", "../specs/kafka-13077.toml", "KAFKA-13077 on, KAFKA-13141 on", []string{"KAFKA-13077"}, "KAFKA-13077 on"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := load(t, tt.spec)
			tr := violation(t, tt.spec, "buggy")
			r, err := Why(context.Background(), spec, tr, "buggy", WhyOptions{ReplayOnly: true, Switches: builtinSwitches, Search: Search{Workers: 2}})
			if err != nil {
				t.Fatal(err)
			}
			about, _ := r.About()
			if got := switchNames(about); got != tt.about {
				t.Errorf("ReplayOnly: about: got %q, want %q", got, tt.about)
			}
			if r.Check.Name != "buggy" || r.WholeCheck || len(r.Variants) != r.Total || r.Interrupted {
				t.Errorf("ReplayOnly: got check %q, whole check %v, %d of %d done, interrupted %v; want buggy, false, all, false",
					r.Check.Name, r.WholeCheck, len(r.Variants), r.Total, r.Interrupted)
			}
			for _, v := range r.Variants {
				if v.Checked {
					t.Errorf("ReplayOnly: %s has a whole check", v.Switch)
				}
			}
			check := tt.check
			if check == nil {
				check = builtinSwitches
			}
			r, err = Why(context.Background(), spec, tr, "buggy", WhyOptions{Switches: check, Search: Search{Workers: 2}})
			if err != nil {
				t.Fatal(err)
			}
			about, _ = r.About()
			if got := switchNames(about); got != tt.aboutC {
				t.Errorf("about: got %q, want %q", got, tt.aboutC)
			}
			for _, v := range r.Variants {
				if v.Status == VariantRun && !v.Checked {
					t.Errorf("%s: no whole check", v.Switch)
				}
			}
		})
	}
}

// TestWhyRefused: a trace of another spec or check is a TraceError that says which.
func TestWhyRefused(t *testing.T) {
	tr := violation(t, kafka14154, "buggy")
	tests := []struct {
		name  string
		spec  string
		sets  []string
		check string
		want  TraceProblem
		msg   string
	}{
		{"other model", twophase, nil, "buggy", WrongSpec, "the trace's variables do not match model twophase of ../specs/twophase.toml: the model has rmState, tmState, tmPrepared, msgs, which the trace lacks"},
		{"other property", "../specs/kafka-5480.toml", nil, "buggy", WrongSpec, "the trace violates NoStuckAlterPartition, which ../specs/kafka-5480.toml does not check"},
		{"other constants", kafka14154, []string{"brokers=3"}, "buggy", WrongCheck, "not a behaviour of ../specs/kafka-14154.toml, check buggy: step 1: no initial state matches"},
		{"not violated", kafka14154, nil, "fixed", WrongCheck, "not a behaviour of ../specs/kafka-14154.toml, check fixed: step 10:"},
	}
	for _, tt := range tests {
		r, err := Why(context.Background(), load(t, tt.spec, tt.sets...), tr, tt.check, WhyOptions{ReplayOnly: true})
		te, ok := err.(*TraceError)
		if r != nil || !ok || te.Problem != tt.want || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: got %v, want a TraceError %d with %q", tt.name, err, tt.want, tt.msg)
		}
	}
}

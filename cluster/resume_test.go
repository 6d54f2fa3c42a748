package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kmc/checker"
)

// TestResumeRunPlan: a coordinator that resumes a run (--resume-run) reads its plan and what
// it searches, refuses another build, spec text, check, --set values or options and an
// unknown run (RefusedError, exit 2) and leaves the run as it was; it takes the epoch after
// the plan's with a compare-and-set over the revision it read, takes over the lease
// buckets to delete, and the old coordinator is then fenced off: its epoch's failure is a
// SupersededError and its plan writes are refused.
func TestResumeRunPlan(t *testing.T) {
	_, js := jetStream(t)
	ctx := context.Background()
	cr := ClusterRun{URL: "nats://test", SpecPath: "s.toml", Spec: []byte("spec text"), Check: "c", Sets: []string{"n=3"}}
	opts := checker.Options{MaxDepth: 7, Vacuity: true}
	old := &coordinator{cr: cr, run: "r1", id: "A", js: js}
	var err error
	if old.plan, err = openPlan(ctx, js, "r1", 1); err != nil {
		t.Fatal(err)
	}
	if err := old.plan.writeMeta(ctx, metaOf(cr, opts)); err != nil {
		t.Fatal(err)
	}
	if err := old.plan.write(ctx, plan{Run: "r1", Epoch: 1, Coordinator: "A", Members: []string{"n1", "n2"}, Leases: leaseBucket("r1", 1)}); err != nil {
		t.Fatal(err)
	}

	other := func(f func(*runMeta)) runMeta {
		m := metaOf(cr, opts)
		f(&m)
		return m
	}
	for _, tc := range []struct {
		name string
		run  string
		want runMeta
		says string
	}{
		{"another build", "r1", other(func(m *runMeta) { m.Version = "kmc-other" }), "the kmc build: the run's is "},
		{"another spec text", "r1", other(func(m *runMeta) { m.SpecSHA = sha([]byte("other")) }), "the spec's SHA-256: the run's s.toml has " + sha(cr.Spec)},
		{"another check", "r1", other(func(m *runMeta) { m.Check = "d" }), "the check: the run's is c, this one is d"},
		{"other --set values", "r1", other(func(m *runMeta) { m.Sets = []string{"n=4"} }), "the --set values: the run's are [n=3], these are [n=4]"},
		{"other options", "r1", other(func(m *runMeta) { m.Opts.MaxDepth = 8 }), `the options: the run's are {"max_states":0,"max_depth":7,`},
		{"an unknown run", "r2", metaOf(cr, opts), "hold no plan of that run (JetStream key value bucket kmc-plan-r2"},
	} {
		co := &coordinator{cr: cr, run: tc.run, id: "B", js: js}
		o := opts
		_, err := co.resumeRun(ctx, &o, tc.want)
		var refused *RefusedError
		if !errors.As(err, &refused) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want a refusal saying %q", tc.name, err, tc.says)
		}
	}
	if got, _, err := readPlan(ctx, js, "r1"); err != nil || got.Epoch != 1 || got.Coordinator != "A" {
		t.Fatalf("the plan after the refusals: %+v, %v; want epoch 1 of A", got, err)
	}

	co := &coordinator{cr: cr, run: "r1", id: "B", js: js}
	o := opts
	epoch, err := co.resumeRun(ctx, &o, metaOf(cr, opts))
	switch {
	case err != nil:
		t.Fatal(err)
	case epoch != 2 || o.Resume != nil:
		t.Fatalf("resumed at epoch %d, checkpoint %v; want epoch 2 from the initial states (no checkpoint stored)", epoch, o.Resume)
	case co.gen != 1 || len(co.buckets) != 1 || co.buckets[0] != leaseBucket("r1", 1):
		t.Errorf("lease buckets: generation %d, to delete %v; want 1 and [%s]", co.gen, co.buckets, leaseBucket("r1", 1))
	}
	if err := co.plan.write(ctx, plan{Run: "r1", Epoch: 2, Coordinator: "B", Members: []string{"n2"}, Leases: leaseBucket("r1", 2)}); err != nil {
		t.Fatalf("the new coordinator's epoch 2: %v", err)
	}
	// The old coordinator: its epoch fails (its parts are gone), it is fenced off.
	failed := checker.Result{Verdict: checker.Incomplete, Reason: "partitioned search: part 0: nats: no responders available for request"}
	var se *SupersededError
	if err := old.superseded(ctx, 1, failed, nil); !errors.As(err, &se) || se.Now != 2 || se.Coordinator != "B" {
		t.Errorf("the old coordinator's failed epoch: %v, want a SupersededError naming epoch 2 of B", err)
	}
	if err := old.superseded(ctx, 1, checker.Result{Verdict: checker.OK}, nil); err != nil {
		t.Errorf("an epoch that did not fail: %v", err)
	}
	if err := co.superseded(ctx, 2, failed, nil); err != nil {
		t.Errorf("the new coordinator's own failed epoch: %v, want none (a lost node)", err)
	}
	var stale *StalePlanError
	if err := old.plan.write(ctx, plan{Run: "r1", Epoch: 2, Coordinator: "A"}); !errors.As(err, &stale) || stale.Coordinator != "B" {
		t.Errorf("the old coordinator's next epoch: %v, want a StalePlanError naming B", err)
	}
	// The run ended: its plan is gone.
	if err := js.DeleteKeyValue(ctx, planBucket("r1")); err != nil {
		t.Fatal(err)
	}
	if err := old.superseded(ctx, 1, failed, nil); !errors.As(err, &se) || se.Now != 0 || !strings.Contains(err.Error(), "its plan is gone") {
		t.Errorf("after the run ended: %v, want a SupersededError saying the plan is gone", err)
	}
}

// TestRemoveLeftRollbacks: a coordinator that takes run over removes the rollback files its
// earlier coordinators left in this machine's temporary folder, and nothing else: not
// another run's, not a file kmc did not name so, not a path that a run id with other
// characters than hexadecimal digits would reach.
func TestRemoveLeftRollbacks(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	names := []string{
		rollbackPrefix("0a1b") + "123.kmcs", rollbackPrefix("0a1b") + "456.kmcs", // the run's: removed
		rollbackPrefix("0a1bc") + "1.kmcs", // another run's
		rollbackPrefix("ffff") + "1.kmcs",
		"kmc-rollback-0a1b.kmcs", // not a name kmc gives
		rollbackPrefix("0a1b") + "1.txt",
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got := removeLeftRollbacks("0a1b")
	if len(got) != 2 || filepath.Base(got[0]) != names[0] || filepath.Base(got[1]) != names[1] {
		t.Errorf("removed %q, want the first two of %q", got, names)
	}
	for i, n := range names {
		_, err := os.Stat(filepath.Join(dir, n))
		if gone := os.IsNotExist(err); gone != (i < 2) {
			t.Errorf("%s: removed %v", n, gone)
		}
	}
	for _, run := range []string{"", "*", "../0a1b", "0A1B"} {
		if got := removeLeftRollbacks(run); got != nil {
			t.Errorf("run %q removed %q", run, got)
		}
	}
}

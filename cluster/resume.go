package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"kmc/app/checkpoint"
	"kmc/checker"
)

// A coordinator that stops (SIGKILL, its machine lost) leaves its run behind in JetStream:
// the plan (key "plan" of kmc-plan-<run>), what the run searches (key "run" of the same
// bucket: runMeta, written once, when the run begins) and the copy of its last level
// checkpoint (object store kmc-ckpt-<run>). kmc check --cluster URL --resume-run RUN makes
// a new coordinator of that run: it checks that it is of the same kmc build, spec text
// (SHA-256), check, --set values and options, reads the newest checkpoint copy, and takes the
// next epoch by compare-and-set over the plan's revision it read. The nodes still in the old
// epoch drop their parts as soon as they see the plan move on (they read it every second)
// or are started in the new epoch, and the old coordinator, were it still alive, can write no
// plan again (its compare-and-set is over a revision that is gone: StalePlanError), so its
// messages reach no part: that is its fencing.

// runMeta is what a run searches, as its first coordinator resolved it: a coordinator that
// resumes the run must search the same.
type runMeta struct {
	Version  string   `json:"version"` // the kmc build (checkpoint.Version)
	SpecPath string   `json:"spec_path"`
	SpecSHA  string   `json:"spec_sha256"`
	Check    string   `json:"check"`
	Sets     []string `json:"sets"`
	Opts     runOpts  `json:"opts"`
}

func metaOf(cr ClusterRun, opts checker.Options) runMeta {
	return runMeta{Version: checkpoint.Version(), SpecPath: cr.SpecPath, SpecSHA: sha(cr.Spec), Check: cr.Check,
		Sets: append([]string{}, cr.Sets...), Opts: optsOf(opts)}
}

// writeMeta records what the run searches, once, next to its plan.
func (ps *planStore) writeMeta(ctx context.Context, m runMeta) error {
	val, err := json.Marshal(m)
	if err != nil {
		return err
	}
	err = attempt(ctx, func(err error) bool { return errors.Is(err, jetstream.ErrKeyExists) }, func(c context.Context) error {
		_, err := ps.kv.Create(c, "run", val)
		return err
	})
	if err != nil {
		return fmt.Errorf("write what run searches into %s: %w", ps.kv.Bucket(), err)
	}
	return nil
}

// differs names how m (the run's) differs from o (this coordinator's), or "".
func (m runMeta) differs(o runMeta) string {
	var d []string
	if m.Version != o.Version {
		d = append(d, "the kmc build: the run's is "+m.Version+", this kmc is "+o.Version)
	}
	if m.SpecSHA != o.SpecSHA {
		d = append(d, "the spec's SHA-256: the run's "+m.SpecPath+" has "+m.SpecSHA+", "+o.SpecPath+" has "+o.SpecSHA)
	}
	if m.Check != o.Check {
		d = append(d, "the check: the run's is "+m.Check+", this one is "+o.Check)
	}
	if !slices.Equal(m.Sets, o.Sets) {
		d = append(d, "the --set values: the run's are ["+strings.Join(m.Sets, " ")+"], these are ["+strings.Join(o.Sets, " ")+"]")
	}
	if m.Opts != o.Opts {
		a, _ := json.Marshal(m.Opts)
		b, _ := json.Marshal(o.Opts)
		d = append(d, "the options: the run's are "+string(a)+", these are "+string(b))
	}
	return strings.Join(d, "; ")
}

// resumeRun makes co the coordinator of run co.run, left by another: it reads the plan and
// what the run searches, refuses (RefusedError) a run that is not this search, takes the
// plan's revision for its own compare-and-set, and sets opts.Resume to the newest level
// checkpoint in the run's object store (none: the search starts over, to the same result).
// It returns the epoch to begin, one past the plan's.
func (co *coordinator) resumeRun(ctx context.Context, opts *checker.Options, want runMeta) (int, error) {
	run := co.run
	if opts.Resume != nil {
		return 0, &RefusedError{"--resume-run goes on from the run's own level checkpoint: it cannot go with --resume"}
	}
	var kv jetstream.KeyValue
	var p plan
	var rev uint64
	var meta runMeta
	err := attempt(ctx, func(err error) bool {
		return errors.Is(err, jetstream.ErrBucketNotFound) || errors.Is(err, jetstream.ErrKeyNotFound)
	}, func(c context.Context) error {
		var err error
		if kv == nil {
			if kv, err = co.js.KeyValue(c, planBucket(run)); err != nil {
				return err
			}
		}
		v, r, err := leaderGet(c, co.js, planBucket(run), "plan") // its revision is the compare-and-set's
		if err != nil {
			return err
		}
		if err := json.Unmarshal(v, &p); err != nil {
			return fmt.Errorf("the plan of run %s: %w", run, err)
		}
		rev = r
		m, _, err := leaderGet(c, co.js, planBucket(run), "run")
		if err != nil {
			return err
		}
		if err := json.Unmarshal(m, &meta); err != nil {
			return fmt.Errorf("what run %s searches: %w", run, err)
		}
		return nil
	})
	switch {
	case errors.Is(err, jetstream.ErrBucketNotFound) || errors.Is(err, jetstream.ErrKeyNotFound):
		return 0, &RefusedError{fmt.Sprintf("--resume-run %s: the nodes at %s hold no plan of that run (JetStream key value bucket %s, keys plan and run): it ended, or its id is mistyped", run, co.cr.URL, planBucket(run))}
	case err != nil:
		return 0, fmt.Errorf("--resume-run %s: %w", run, err)
	}
	if d := meta.differs(want); d != "" {
		return 0, &RefusedError{fmt.Sprintf("--resume-run %s: the run is another search: %s", run, d)}
	}
	if p.Run != run || p.Epoch < 1 {
		return 0, fmt.Errorf("--resume-run %s: the plan is of run %q at epoch %d", run, p.Run, p.Epoch)
	}
	co.plan = &planStore{kv: kv, js: co.js, bucket: planBucket(run), rev: rev}
	// The lease buckets of the run's epochs so far: this coordinator's come after them, and
	// all are deleted when the run ends.
	if n, err := strconv.Atoi(strings.TrimPrefix(p.Leases, "kmc-lease-"+run+"-")); err == nil && n > 0 {
		co.gen = n
		for g := 1; g <= n; g++ {
			co.buckets = append(co.buckets, leaseBucket(run, g))
		}
	}
	s, name, err := co.newestCheckpoint(ctx)
	if err != nil {
		return 0, fmt.Errorf("--resume-run %s: %w", run, err)
	}
	if s != nil {
		opts.Resume = s
	}
	if co.cr.Log != nil {
		from := "from the initial states (the run left no level checkpoint)"
		if s != nil {
			from = fmt.Sprintf("from its level checkpoint at level %d (%d distinct states, %s in object store %s)", s.Depth, s.Distinct, name, ckptBucket(run))
		}
		fmt.Fprintf(co.cr.Log, "kmc: run %s: coordinator %s of epoch %d is replaced: epoch %d goes on %s\n", run, p.Coordinator, p.Epoch, p.Epoch+1, from)
	}
	return p.Epoch + 1, nil
}

func ckptBucket(run string) string { return "kmc-ckpt-" + run }

// newestCheckpoint reads the newest level checkpoint in the run's object store (the deepest
// level; the names are L<level>-<n>.kmcs), or nil when there is none.
func (co *coordinator) newestCheckpoint(ctx context.Context) (*checker.Snapshot, string, error) {
	var obs jetstream.ObjectStore
	var infos []*jetstream.ObjectInfo
	err := attempt(ctx, func(err error) bool {
		return errors.Is(err, jetstream.ErrBucketNotFound) || errors.Is(err, jetstream.ErrNoObjectsFound)
	}, func(c context.Context) error {
		var err error
		if obs == nil {
			if obs, err = co.js.ObjectStore(c, ckptBucket(co.run)); err != nil {
				return err
			}
		}
		infos, err = obs.List(c)
		return err
	})
	if errors.Is(err, jetstream.ErrBucketNotFound) || errors.Is(err, jetstream.ErrNoObjectsFound) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("list the level checkpoints in %s: %w", ckptBucket(co.run), err)
	}
	best, bestLevel := "", -1
	for _, in := range infos {
		var level, n int
		if _, err := fmt.Sscanf(in.Name, "L%d-%d.kmcs", &level, &n); err != nil || in.Deleted {
			continue
		}
		if level > bestLevel || level == bestLevel && in.Name > best {
			best, bestLevel = in.Name, level
		}
	}
	if best == "" {
		return nil, "", nil
	}
	f, err := os.CreateTemp("", "kmc-resume-run-*.kmcs")
	if err != nil {
		return nil, "", err
	}
	path := f.Name()
	_ = f.Close()
	defer os.Remove(path)
	err = attempt(ctx, nil, func(c context.Context) error {
		c, cancel := context.WithTimeout(ctx, putAttempt)
		defer cancel()
		return obs.GetFile(c, best, path)
	})
	if err != nil {
		return nil, "", fmt.Errorf("read the level checkpoint %s from %s: %w", best, ckptBucket(co.run), err)
	}
	f, err = os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, "", err
	}
	s, err := checker.ReadSnapshot(f, st.Size())
	if err != nil {
		return nil, "", fmt.Errorf("the level checkpoint %s of %s: %w", best, ckptBucket(co.run), err)
	}
	return s, best, nil
}

// superseded says, when epoch ended in a lost node or a part's call failed, whether another
// coordinator has taken the run over (--resume-run): the plan is at a later epoch or of
// another coordinator, or gone. It returns a *SupersededError then, else nil. The parts of this epoch
// are gone (each node drops its part as soon as it sees the plan move on), so what the epoch
// found is not a result.
func (co *coordinator) superseded(ctx context.Context, epoch int, res checker.Result, lost error) error {
	failed := lost != nil || res.Verdict == checker.Incomplete && strings.HasPrefix(res.Reason, "partitioned search:")
	if co.single || co.plan == nil || !failed {
		return nil
	}
	c, cancel := context.WithTimeout(ctx, jsAttempt)
	defer cancel()
	v, _, err := leaderGet(c, co.js, planBucket(co.run), "plan") // a lagging replica's answer could look like the run moved on or ended
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		err = jetstream.ErrKeyNotFound
	}
	if err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		// A bucket deleted answers no request: is it gone?
		if _, kerr := co.js.KeyValue(c, planBucket(co.run)); errors.Is(kerr, jetstream.ErrBucketNotFound) {
			err = jetstream.ErrKeyNotFound
		}
	}
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return &SupersededError{Run: co.run, Epoch: epoch}
	}
	if err != nil {
		return nil // not known: the epoch's failure is handled as a lost node
	}
	var now plan
	if json.Unmarshal(v, &now) == nil && (now.Epoch > epoch || now.Coordinator != co.id) {
		return &SupersededError{Run: co.run, Epoch: epoch, Now: now.Epoch, Coordinator: now.Coordinator}
	}
	return nil
}

// SupersededError is a coordinator whose run another coordinator took over (--resume-run)
// while its epoch ran: the nodes dropped their parts of it, and it stops.
type SupersededError struct {
	Run         string
	Epoch       int    // this coordinator's
	Now         int    // the plan's epoch (0: the plan is gone, the run ended)
	Coordinator string // the plan's coordinator
}

func (e *SupersededError) Error() string {
	if e.Now == 0 {
		return fmt.Sprintf("run %s: its plan is gone (another coordinator took the run over and ended it): this coordinator's epoch %d is fenced off, it stops", e.Run, e.Epoch)
	}
	return fmt.Sprintf("run %s: coordinator %s took the run over at epoch %d: this coordinator's epoch %d is fenced off, it stops", e.Run, e.Coordinator, e.Now, e.Epoch)
}

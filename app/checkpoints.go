package app

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"kmc/app/checkpoint"
	"kmc/checker"
	"kmc/specs"
)

// How Check takes checkpoints and resumes from one (package checkpoint holds their form).

// ResumeError refuses the checkpoint Resume names: a folder without one, a checkpoint that
// cannot be read or is torn or corrupt, or one of another search (OtherCheckError,
// OtherSearchError, OtherVersionError, wrapped).
type ResumeError struct {
	Path string // the checkpoint refused; "" when none could be read
	Err  error
}

func (e *ResumeError) Error() string { return e.Err.Error() }
func (e *ResumeError) Unwrap() error { return e.Err }

// OtherCheckError is a checkpoint of another check than the one asked for.
type OtherCheckError struct{ Path, Have, Want string }

func (e *OtherCheckError) Error() string {
	return fmt.Sprintf("%s is of check %s, not %s", e.Path, e.Have, e.Want)
}

// OtherSearchError is a checkpoint whose configuration is not this search's: Diffs names
// each difference (checkpoint.ConfigDiff).
type OtherSearchError struct {
	Path, Spec, Check string // the checkpoint, and the spec and check it records
	Diffs             []string
}

func (e *OtherSearchError) Error() string {
	s := fmt.Sprintf("%s is of another search (%s, check %s):", e.Path, e.Spec, e.Check)
	for _, d := range e.Diffs {
		s += "\n  " + d
	}
	return s
}

// OtherVersionError is a checkpoint written by another kmc (checkpoint.Version).
type OtherVersionError struct{ Path, Have, Want string }

func (e *OtherVersionError) Error() string {
	return fmt.Sprintf("%s was written by another kmc:\n  checkpoint: %s\n  this kmc:   %s", e.Path, e.Have, e.Want)
}

// CheckpointDirError is a checkpoint folder that cannot be created or written in.
type CheckpointDirError struct {
	Dir string
	Err error
}

func (e *CheckpointDirError) Error() string { return e.Err.Error() }
func (e *CheckpointDirError) Unwrap() error { return e.Err }

// CheckpointTakenError is a Checkpoint folder that holds a checkpoint already, of another
// search than the one resumed.
type CheckpointTakenError struct{ Dir, Name string }

func (e *CheckpointTakenError) Error() string {
	return fmt.Sprintf("%s already holds a checkpoint (%s)", e.Dir, e.Name)
}

// ResumedCheck is the name of the check whose search the newest checkpoint in dir holds; a
// name that is not "" must be it.
func ResumedCheck(dir, name string) (string, error) {
	cp, err := latest(dir, name)
	if err != nil {
		return "", err
	}
	return cp.Manifest.Check, nil
}

// latest is the newest checkpoint in dir, which must be of the check called name unless
// name is "".
func latest(dir, name string) (*checkpoint.Checkpoint, error) {
	cp, err := checkpoint.Latest(dir)
	if err != nil {
		return nil, &ResumeError{Err: err}
	}
	if name != "" && name != cp.Manifest.Check {
		return nil, &ResumeError{Path: cp.Path, Err: &OtherCheckError{Path: cp.Path, Have: cp.Manifest.Check, Want: name}}
	}
	return cp, nil
}

// checkpoints prepares the checkpoints of check c's search: with a checkpoint resumed, it
// checks that it is of this kmc and this search and reads its snapshot into opts.Resume; it
// prepares the folder checkpoints go to (o.Checkpoint, else o.Resume's) and sets
// opts.Checkpoint to write them there, reporting each. It returns the folder.
func (o *CheckOptions) checkpoints(spec *specs.Spec, c *specs.Check, opts *checker.Options, resumed *checkpoint.Checkpoint, emit func(Event)) (string, error) {
	config := searchConfig(spec, c, *opts)
	base := checkpoint.Manifest{Version: checkpoint.Version(), Spec: spec.Path, Check: c.Name, Config: config, ConfigSum: checkpoint.ConfigSum(config)}
	dir := o.Checkpoint
	if dir == "" {
		dir = o.Resume
	}
	lock, err := checkpoint.Lock(dir)
	if errors.Is(err, checkpoint.ErrLocked) {
		return "", &CheckpointLockedError{Dir: dir}
	}
	if err != nil {
		return "", &CheckpointDirError{Dir: dir, Err: err}
	}
	o.lock = lock
	seq, err := checkpoint.PrepareDir(dir)
	if err != nil {
		return "", &CheckpointDirError{Dir: dir, Err: err}
	}
	if seq >= 0 && (resumed == nil || !sameFile(dir, o.Resume)) {
		return "", &CheckpointTakenError{Dir: dir, Name: checkpoint.Name(seq)}
	}
	if resumed != nil {
		m := resumed.Manifest
		if m.Version != base.Version {
			return "", &ResumeError{Path: resumed.Path, Err: &OtherVersionError{Path: resumed.Path, Have: m.Version, Want: base.Version}}
		}
		if diffs := checkpoint.ConfigDiff(m.Config, config); len(diffs) > 0 || m.ConfigSum != base.ConfigSum {
			return "", &ResumeError{Path: resumed.Path, Err: &OtherSearchError{Path: resumed.Path, Spec: m.Spec, Check: m.Check, Diffs: diffs}}
		}
		snap, err := resumed.ReadSnapshot()
		if err != nil {
			return "", &ResumeError{Err: err}
		}
		if o.Coverage && !snap.CountsCoverage() {
			return "", ErrCoverageResumed
		}
		if err := snap.OneProcess(); err != nil && o.Run == nil {
			// A partitioned search's checkpoint beyond the single-process engine's indices.
			return "", &ResumeError{Path: resumed.Path, Err: fmt.Errorf("%s: %w", resumed.Path, err)}
		}
		opts.Resume = snap
	}
	w := checkpoint.NewWriter(dir, base, seq)
	last := ""
	opts.Checkpoint = func(s *checker.Snapshot) {
		start := time.Now()
		path, size, err := w.Write(s)
		if err != nil {
			emit(CheckpointFailed{Err: err, Last: last})
			return
		}
		last = path
		emit(CheckpointWritten{Path: path, Level: s.Depth, Generated: s.Generated, Distinct: s.Distinct, Queue: s.Queue,
			Bytes: size, Took: time.Since(start)})
	}
	opts.CheckpointEvery, opts.CheckpointAt = o.CheckpointEvery, o.CheckpointAt
	return dir, nil
}

// finishCheckpoints ends the checkpoints of a search in dir. One that a limit or ctx
// stopped before it was complete keeps them (resumable); a complete one (a verdict, or
// nothing left on the queue) needs them no more: they are removed, or err says why not.
func finishCheckpoints(dir string, res checker.Result) (resumable, removed bool, err error) {
	seqs, err := checkpoint.List(dir)
	if err != nil || len(seqs) == 0 {
		return false, false, nil
	}
	if res.Verdict == checker.Incomplete && res.Stats.Queue > 0 {
		return true, false, nil
	}
	had, err := checkpoint.RemoveAll(dir)
	return false, had && err == nil, err
}

// CheckpointLockedError is a checkpoint folder that another kmc writes checkpoints to.
type CheckpointLockedError struct{ Dir string }

func (e *CheckpointLockedError) Error() string {
	return fmt.Sprintf("%s is in use: another kmc writes its checkpoints there (it holds %s locked)", e.Dir, checkpoint.LockName)
}

// searchConfig is what makes a check's search what it is, one key=value per line: the
// model, every constant and fault budget, the fixes, the properties, and the options that
// change the search (deadlock, symmetry, fairness overrides, max depth). Workers, the state
// limit and the time and memory budgets are not in it: they may change on resume.
func searchConfig(spec *specs.Spec, c *specs.Check, opts checker.Options) []string {
	lines := []string{"model=" + spec.Model}
	for _, s := range settings(spec, c) {
		lines = append(lines, s.section+"."+s.name+"="+s.value)
	}
	fixes := slices.Clone(c.Fixes)
	slices.Sort(fixes)
	if len(fixes) == 0 {
		fixes = []string{"none"}
	}
	if len(c.Mutate) > 0 { // only when set, so that checkpoints of other checks keep their form
		mu := slices.Clone(c.Mutate)
		slices.Sort(mu)
		lines = append(lines, "mutate="+strings.Join(mu, ","))
	}
	lines = append(lines, "fixes="+strings.Join(fixes, ","), "properties="+strings.Join(c.Config.Properties, ","),
		"options.deadlock="+strconv.FormatBool(opts.Deadlock), "options.symmetry="+strconv.FormatBool(opts.Symmetry))
	for _, f := range spec.Fairness {
		lines = append(lines, "fairness."+f.Kind+"="+f.Fairness.String())
	}
	return append(lines, "limits.max_depth="+strconv.Itoa(opts.MaxDepth))
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

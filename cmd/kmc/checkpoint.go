package main

import (
	"fmt"
	"strconv"
	"strings"

	"kmc/app"
	"kmc/specs"
)

// kmc check --checkpoint DIR, --resume DIR: app.Check writes and resumes the checkpoints
// (their form: package kmc/app/checkpoint); here are their lines and the command that goes
// on with a search.

// checkpointAt, when set, is passed on as CheckOptions.CheckpointAt (tests).
var checkpointAt func(depth int, expanded int64) bool

// resumeCommand is the command that goes on with the search of check c from the
// checkpoints in dir: the spec, the check, and what of the configuration came from flags.
func resumeCommand(f *checkFlags, spec *specs.Spec, c *specs.Check, dir string) string {
	args := []string{"kmc", "check", spec.Path, "--check", c.Name}
	for _, s := range f.sets {
		args = append(args, "--set", s)
	}
	if f.maxDepth > 0 {
		args = append(args, "--max-depth", strconv.Itoa(f.maxDepth))
	}
	if f.deadlock {
		args = append(args, "--deadlock")
	}
	if f.symmetry {
		args = append(args, "--symmetry")
	}
	args = append(args, "--resume", dir)
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
			args[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(args, " ")
}

// checkpointWritten reports a checkpoint written (stderr, or a JSON event).
func (o *checkOutput) checkpointWritten(e app.CheckpointWritten) {
	if o.json {
		o.emit(map[string]any{"event": "checkpoint", "path": e.Path, "level": e.Level, "generated": e.Generated,
			"distinct": e.Distinct, "queue": e.Queue, "bytes": e.Bytes, "seconds": e.Took.Seconds()})
		return
	}
	fmt.Fprintf(o.stderr, "Checkpoint %s: level %d, %d distinct states found, %d states left on queue; %s written in %s.\n",
		e.Path, e.Level, e.Distinct, e.Queue, specs.FormatSize(e.Bytes), specs.FormatElapsed(e.Took))
}

// checkpointFailed reports a checkpoint that could not be written; the search goes on.
func (o *checkOutput) checkpointFailed(err error, last string) {
	was := "no checkpoint was written"
	if last != "" {
		was = "the last one is " + last
	}
	if o.json {
		o.emit(map[string]any{"event": "checkpoint_error", "error": err.Error(), "last": last})
	}
	fmt.Fprintf(o.stderr, "kmc: check: --checkpoint: %v; the search goes on (%s)\n", err, was)
}

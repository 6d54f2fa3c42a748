package app_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"kmc/app"
	"kmc/specs"
)

// A Go program runs a check with checkpoints, stops it half way as Ctrl-C would, goes on
// with it from its checkpoint, and reads the result: what kmc check --checkpoint and
// --resume do, without the command line.
func ExampleCheck() {
	spec, err := specs.Load("../specs/twophase.toml", nil)
	if err != nil {
		log.Fatal(err) // a specs.ErrorList: file, line, column, field and value of each error
	}
	dir, err := os.MkdirTemp("", "kmc-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	checkpoints := filepath.Join(dir, "cp")

	// The first search writes its checkpoints into a folder. Cancelling its context stops
	// it like a limit, with a last checkpoint taken where the search's tables are whole:
	// here it is cancelled as the search expands level 6 (a program would cancel it on a
	// signal, or at a deadline).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first, err := app.Check(ctx, spec, "fixed", app.CheckOptions{
		Search:     app.Search{Workers: 1},
		Checkpoint: checkpoints,
		CheckpointAt: func(level int, expanded int64) bool {
			if level >= 6 {
				cancel()
			}
			return false
		},
		OnEvent: func(e app.Event) {
			if w, ok := e.(app.CheckpointWritten); ok {
				fmt.Printf("checkpoint %s at level %d\n", filepath.Base(w.Path), w.Level)
			}
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("first: %s (%s), resumable %v\n", first.Verdict, first.Reason, first.Resumable)

	// The second goes on from the checkpoint, with another number of workers, to the result
	// of a search never stopped; complete, it removes the checkpoint.
	second, err := app.Check(context.Background(), spec, "fixed", app.CheckOptions{
		Search: app.Search{Workers: 2},
		Resume: checkpoints,
		OnEvent: func(e app.Event) {
			if s, ok := e.(app.CheckStarted); ok {
				fmt.Printf("resumed at level %d with %d distinct states\n", s.Resumed.Manifest.Level, s.Resumed.Manifest.Distinct)
			}
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("second: %s, %d distinct states, depth %d, as expected: %v, checkpoint removed: %v\n",
		second.Verdict, second.Stats.Distinct, second.Stats.Depth, len(second.Mismatches()) == 0, second.CheckpointRemoved)
	// Output:
	// checkpoint ckpt-000001 at level 7
	// first: incomplete (interrupted), resumable true
	// resumed at level 7 with 169 distinct states
	// second: ok, 234 distinct states, depth 11, as expected: true, checkpoint removed: true
}

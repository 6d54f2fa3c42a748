package app

import (
	"context"
	"errors"
	"runtime/metrics"
	"time"

	"kmc/checker"
	"kmc/specs"
)

// ErrInterrupted is the error of an operation that ctx stopped with nothing to return.
var ErrInterrupted = errors.New("interrupted")

// MemoryError is an operation stopped by its memory budget with nothing to return.
type MemoryError struct{ Budget int64 }

func (e *MemoryError) Error() string {
	return "memory budget " + specs.FormatSize(e.Budget) + " reached"
}

// Graph builds the whole reachable state graph of the check called name of spec, for small
// models: more than max states is the engine's error. It honours ctx (ErrInterrupted) and
// the search's memory budget, sampled from the heap (MemoryError); the engine does not
// poll them while it builds a graph, so that work is left to run on, bounded by max, when
// either stops it.
func Graph(ctx context.Context, spec *specs.Spec, name string, max int, s Search) (*checker.Graph, error) {
	_, r, opts, err := build(spec, name)
	if err != nil {
		return nil, err
	}
	opts = s.options(opts)
	opts.Stop = ctx.Done()
	defer withMemoryLimit(opts.MemoryBytes)()
	over := func() bool { return opts.MemoryBytes > 0 && heapBytes() > opts.MemoryBytes }
	stopped := func() error {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		return &MemoryError{Budget: opts.MemoryBytes}
	}
	if ctx.Err() != nil || over() {
		return nil, stopped()
	}
	type graph struct {
		g   *checker.Graph
		err error
	}
	done := make(chan graph, 1)
	go func() {
		g, err := r.Graph(max, opts)
		done <- graph{g, err}
	}()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case res := <-done:
			return res.g, res.err
		case <-ctx.Done():
			return nil, stopped()
		case <-tick.C:
			if over() {
				return nil, stopped()
			}
		}
	}
}

// heapBytes is the memory of the live and not yet collected objects of the heap.
func heapBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

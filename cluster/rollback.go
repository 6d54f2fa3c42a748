package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"kmc/checker"
)

// DefaultRollbackEvery is how often a search across nodes takes a level checkpoint to roll
// back to when a node is lost (ClusterRun.RollbackEvery 0).
const DefaultRollbackEvery = 5 * time.Minute

// rollback keeps the last level checkpoint of a search across nodes in the JetStream object
// store of the nodes (bucket kmc-ckpt-<run>, replicated on up to three nodes, so that it
// outlives a node), and passes the user's checkpoints (--checkpoint) on at their own pace.
// When a node is lost, the search goes on from it with the nodes left.
type rollback struct {
	every     time.Duration // 0: every level
	last      time.Time
	user      func(*checker.Snapshot)
	userAt    func(int, int64) bool
	userEvery time.Duration
	userLast  time.Time
	asked     bool // CheckpointAt said yes: the checkpoint is not a search's last one
	wantUser  bool

	obs    jetstream.ObjectStore
	bucket string
	js     jetstream.JetStream
	mu     sync.Mutex
	depth  int   // of the checkpoint kept (0: none)
	states int64 // its distinct states
	err    error // of the last store
}

// newRollback makes the object store of run's checkpoints (nil, error: JetStream is not
// there, and a lost node makes the search start over).
func newRollback(nc *nats.Conn, run string, nodes int, every time.Duration) (*rollback, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	switch {
	case every == 0:
		every = DefaultRollbackEvery
	case every < 0:
		every = 0
	}
	rb := &rollback{every: every, js: js, bucket: "kmc-ckpt-" + run, last: time.Now()}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	replicas := min(nodes, 3)
	err = retry(ctx, func() error {
		obs, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: rb.bucket, Replicas: replicas,
			Storage: jetstream.FileStorage, Description: "kmc: the last level checkpoint of a search, to roll back to"})
		if err != nil && replicas > 1 && strings.Contains(err.Error(), "replicas") {
			replicas = 1
		}
		rb.obs = obs
		return err
	})
	if err != nil {
		return nil, err
	}
	return rb, nil
}

// close deletes the bucket.
func (rb *rollback) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = rb.js.DeleteObjectStore(ctx, rb.bucket)
}

// wrap returns opts with checkpoints taken for rb and for the user's.
func (rb *rollback) wrap(opts checker.Options) checker.Options {
	rb.user, rb.userAt, rb.userEvery = opts.Checkpoint, opts.CheckpointAt, opts.CheckpointEvery
	rb.userLast = time.Now()
	opts.CheckpointEvery = 0
	opts.CheckpointAt = func(depth int, expanded int64) bool {
		rb.wantUser = rb.user != nil && (rb.userAt != nil && rb.userAt(depth, expanded) ||
			rb.userEvery > 0 && time.Since(rb.userLast) >= rb.userEvery)
		rb.asked = rb.wantUser || time.Since(rb.last) >= rb.every
		return rb.asked
	}
	opts.Checkpoint = func(s *checker.Snapshot) {
		if rb.user != nil && (rb.wantUser || !rb.asked) {
			rb.user(s)
			rb.userLast = time.Now()
		}
		rb.wantUser, rb.asked = false, false
		rb.store(s)
	}
	return opts
}

// store puts s into the object store, in place of the one kept.
func (rb *rollback) store(s *checker.Snapshot) {
	rb.last = time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	pr, pw := io.Pipe()
	go func() {
		_, err := s.WriteTo(pw)
		pw.CloseWithError(err)
	}()
	_, err := rb.obs.Put(ctx, jetstream.ObjectMeta{Name: "search.kmcs"}, pr)
	_ = pr.CloseWithError(errors.New("stored"))
	rb.mu.Lock()
	defer rb.mu.Unlock()
	rb.err = err
	if err == nil {
		rb.depth, rb.states = s.Depth, s.Distinct
	}
}

// load reads the checkpoint kept back (nil: none).
func (rb *rollback) load() (*checker.Snapshot, error) {
	rb.mu.Lock()
	depth := rb.depth
	rb.mu.Unlock()
	if depth == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var s *checker.Snapshot
	err := retry(ctx, func() error {
		res, err := rb.obs.Get(ctx, "search.kmcs")
		if err != nil {
			return err
		}
		defer res.Close()
		info, err := res.Info()
		if err != nil {
			return err
		}
		s, err = checker.ReadSnapshot(res, int64(info.Size))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read the level checkpoint back from the object store %s: %w", rb.bucket, err)
	}
	return s, nil
}

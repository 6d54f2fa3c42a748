package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
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
	log    io.Writer
	seq    int
	file   string // the file that keeps the checkpoints when the object store did not
	mu     sync.Mutex
	name   string // the object of the checkpoint kept ("": it is in file)
	depth  int    // of the checkpoint kept (0: none)
	states int64  // its distinct states
	err    error  // of the last store
}

// newRollback makes the object store of run's checkpoints (nil, error: JetStream is not
// there, and a lost node makes the search start over).
func newRollback(nc *nats.Conn, run string, nodes int, every time.Duration, log io.Writer) (*rollback, error) {
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
	rb := &rollback{every: every, js: js, log: log, bucket: "kmc-ckpt-" + run, last: time.Now()}
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

// close deletes the bucket and the file it wrote.
func (rb *rollback) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = rb.js.DeleteObjectStore(ctx, rb.bucket)
	if rb.file != "" {
		_ = os.Remove(rb.file)
	}
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

// store keeps s in place of the checkpoint kept: in the object store under a name of its
// own (the one before is deleted afterwards), or, when the object store does not take it
// within storeTimeout (its stream between leaders, say), in a file of this machine's
// temporary folder from then on.
func (rb *rollback) store(s *checker.Snapshot) {
	rb.last = time.Now()
	rb.seq++
	if rb.file == "" {
		name := fmt.Sprintf("L%d-%d.kmcs", s.Depth, rb.seq)
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		defer cancel()
		pr, pw := io.Pipe()
		go func() {
			_, err := s.WriteTo(pw)
			pw.CloseWithError(err)
		}()
		_, err := rb.obs.Put(ctx, jetstream.ObjectMeta{Name: name}, pr)
		_ = pr.CloseWithError(errors.New("stored"))
		if err == nil {
			rb.mu.Lock()
			old := rb.name
			rb.name, rb.depth, rb.states = name, s.Depth, s.Distinct
			rb.mu.Unlock()
			if old != "" {
				go func() {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					_ = rb.obs.Delete(ctx, old)
				}()
			}
			return
		}
		f, ferr := os.CreateTemp("", "kmc-rollback-*.kmcs")
		if ferr != nil {
			rb.mu.Lock()
			rb.err = err
			rb.mu.Unlock()
			return
		}
		_ = f.Close()
		rb.file = f.Name()
		if rb.log != nil {
			fmt.Fprintf(rb.log, "kmc: check: the object store %s did not take a level checkpoint (%v); keeping them in %s\n", rb.bucket, err, rb.file)
		}
	}
	err := writeFile(rb.file, s)
	rb.mu.Lock()
	defer rb.mu.Unlock()
	rb.err = err
	if err == nil {
		rb.name, rb.depth, rb.states = "", s.Depth, s.Distinct
	}
}

// storeTimeout bounds one store of a checkpoint into the object store.
var storeTimeout = 2 * time.Minute

// writeFile writes s to path, through a temporary file renamed over it.
func writeFile(path string, s *checker.Snapshot) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := s.WriteTo(f); err != nil {
		_ = f.Close()
		_ = os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// load reads the checkpoint kept back (nil: none).
func (rb *rollback) load() (*checker.Snapshot, error) {
	rb.mu.Lock()
	depth, name, file := rb.depth, rb.name, rb.file
	rb.mu.Unlock()
	if depth == 0 {
		return nil, nil
	}
	if name == "" {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		s, err := checker.ReadSnapshot(f, st.Size())
		if err != nil {
			return nil, fmt.Errorf("read the level checkpoint back from %s: %w", file, err)
		}
		return s, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var s *checker.Snapshot
	err := retry(ctx, func() error {
		res, err := rb.obs.Get(ctx, name)
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

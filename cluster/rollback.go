package cluster

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"kmc/checker"
)

// DefaultRollbackEvery is how often a search across nodes takes a level checkpoint to roll
// back to when a node is lost (ClusterRun.RollbackEvery 0).
const DefaultRollbackEvery = 5 * time.Minute

// rollback keeps the last level checkpoint of a search across nodes, in a file of the
// coordinator's temporary folder with a copy in the JetStream object store of the nodes
// (bucket kmc-ckpt-<run>, replicated on up to three nodes), and passes the user's
// checkpoints (--checkpoint) on at their own pace. When a node is lost, the search goes on
// from it with the nodes left.
type rollback struct {
	every     time.Duration // 0: every level
	last      time.Time
	user      func(*checker.Snapshot)
	userAt    func(int, int64) bool
	userEvery time.Duration
	userLast  time.Time
	asked     bool // CheckpointAt said yes: the checkpoint is not a search's last one
	wantUser  bool

	obs     jetstream.ObjectStore
	bucket  string
	js      jetstream.JetStream
	log     io.Writer
	seq     int
	run     string
	file    string // the file that keeps the checkpoint: rollbackPrefix(run)*.kmcs
	putting atomic.Bool
	ctx     context.Context // of the copies, ended by close
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	mu      sync.Mutex
	name    string // the object that keeps a copy of a checkpoint
	objDep  int    // the level of that checkpoint
	depth   int    // of the checkpoint kept (0: none)
	states  int64  // its distinct states
	err     error  // of the last store
}

// newRollback makes the keeper of run's level checkpoints, and the object store of their
// copies in the background (none when the nodes' NATS has no JetStream).
func newRollback(nc *nats.Conn, run string, nodes int, every time.Duration, log io.Writer) *rollback {
	switch {
	case every == 0:
		every = DefaultRollbackEvery
	case every < 0:
		every = 0
	}
	rb := &rollback{every: every, log: log, bucket: "kmc-ckpt-" + run, run: run, last: time.Now()}
	rb.ctx, rb.cancel = context.WithCancel(context.Background())
	js, err := jetstream.New(nc)
	if err != nil {
		return rb
	}
	rb.js = js
	rb.wg.Go(func() {
		ctx, cancel := context.WithTimeout(rb.ctx, 30*time.Second)
		defer cancel()
		replicas := min(nodes, 3)
		_ = retry(ctx, func() error {
			obs, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: rb.bucket, Replicas: replicas,
				Storage: jetstream.FileStorage, Description: "kmc: copies of the level checkpoints of a search"})
			replicas = fewerReplicas(err, replicas)
			if err == nil {
				rb.mu.Lock()
				rb.obs = obs
				rb.mu.Unlock()
			}
			return err
		})
	})
	return rb
}

// close deletes the bucket and the file it wrote.
func (rb *rollback) close() {
	rb.cancel()
	rb.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if rb.js != nil {
		_ = rb.js.DeleteObjectStore(ctx, rb.bucket)
	}
	if rb.file != "" {
		_ = os.Remove(rb.file)
	}
}

// wrap returns opts with checkpoints taken for rb and for the user's.
func (rb *rollback) wrap(opts checker.Options) checker.Options {
	rb.user, rb.userAt, rb.userEvery = opts.Checkpoint, opts.CheckpointAt, opts.CheckpointEvery
	rb.userLast = time.Now()
	opts.CheckpointEvery = 0
	// Without the user's checkpoints, a liveness graph may spill; the rollback then goes
	// back to the last checkpoint before it did.
	opts.CheckpointSkippable = rb.user == nil
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

// store keeps s in place of the checkpoint kept: in a file of this machine's temporary
// folder, which load reads, and, in the background, in the object store under a name of its
// own (the one before is deleted then), a copy on the nodes that outlives this process (a
// coordinator that takes the run over with --resume-run reads it: resume.go). The
// object store is not in the search's way: right after a node's loss its streams may be
// between leaders for a while.
func (rb *rollback) store(s *checker.Snapshot) {
	rb.last = time.Now()
	rb.seq++
	if rb.file == "" {
		f, err := os.CreateTemp("", rollbackPrefix(rb.run)+"*.kmcs")
		if err != nil {
			rb.mu.Lock()
			rb.err = err
			rb.mu.Unlock()
			return
		}
		_ = f.Close()
		rb.file = f.Name()
	}
	err := writeFile(rb.file, s)
	rb.mu.Lock()
	rb.err = err
	if err == nil {
		rb.depth, rb.states = s.Depth, s.Distinct
	}
	obs := rb.obs
	rb.mu.Unlock()
	if err != nil || obs == nil || !rb.putting.CompareAndSwap(false, true) {
		return
	}
	f, err := os.Open(rb.file) // the file as it is now: a later store renames another over it
	if err != nil {
		rb.putting.Store(false)
		return
	}
	name := fmt.Sprintf("L%d-%d.kmcs", s.Depth, rb.seq)
	rb.wg.Go(func() {
		defer rb.putting.Store(false)
		defer f.Close()
		// A put whose chunks went to a stream leader that died waits for acknowledgements that
		// never come, however soon another leader is elected (measured: a 10 s attempt begun
		// 3 s after a SIGKILL of the object store's leader failed at its timeout, the next one
		// succeeded at once): so each attempt is bounded by putAttempt, and tried again from
		// the start until storeTimeout. An attempt has putAttempt plus a second per 8 MiB.
		each := putAttempt
		if st, err := f.Stat(); err == nil {
			each += time.Duration(st.Size()>>23) * time.Second
		}
		deadline := time.Now().Add(max(storeTimeout, 4*each))
		for {
			ctx, cancel := context.WithTimeout(rb.ctx, each)
			_, err := obs.Put(ctx, jetstream.ObjectMeta{Name: name}, f)
			cancel()
			if err == nil {
				break
			}
			if rb.ctx.Err() != nil || time.Now().After(deadline) {
				return
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return
			}
		}
		ctx, cancel := context.WithTimeout(rb.ctx, putAttempt)
		defer cancel()
		rb.mu.Lock()
		old := rb.name
		rb.name, rb.objDep = name, s.Depth
		rb.mu.Unlock()
		if old != "" {
			_ = obs.Delete(ctx, old)
		}
	})
}

// object is the name of the copy in the object store of the level checkpoint at depth, or
// "" when there is none (yet).
func (rb *rollback) object(depth int) string {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	if rb.objDep != depth {
		return ""
	}
	return rb.name
}

// storeTimeout bounds one copy of a checkpoint into the object store, putAttempt each try of
// it.
var (
	storeTimeout = 2 * time.Minute
	putAttempt   = 15 * time.Second
)

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
	depth, file := rb.depth, rb.file
	rb.mu.Unlock()
	if depth == 0 {
		return nil, nil
	}
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

// rollbackPrefix begins the name of the file in which a coordinator of run keeps its level
// checkpoint, in this machine's temporary folder.
func rollbackPrefix(run string) string { return "kmc-rollback-" + run + "-" }

// removeLeftRollbacks removes the files that earlier coordinators of run left in this
// machine's temporary folder (a coordinator killed cannot remove its own), and returns their
// names. Only names kmc gives, of a run id of hexadecimal digits, are matched.
func removeLeftRollbacks(run string) []string {
	if run == "" || strings.Trim(run, "0123456789abcdef") != "" {
		return nil
	}
	left, _ := filepath.Glob(filepath.Join(os.TempDir(), rollbackPrefix(run)+"*.kmcs"))
	var out []string
	for _, f := range left {
		if os.Remove(f) == nil {
			out = append(out, f)
		}
	}
	return out
}

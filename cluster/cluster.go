// Package cluster runs kmc's exhaustive search beyond one process, over NATS: the parts of
// checker's partitioned search (checker/partition.go) answer their messages on NATS subjects,
// and a coordinator drives the levels by request and reply. Three ways to run it:
//
//   - Partitions: N parts in this process over an embedded NATS server that opens no socket
//     (DontListen, in-process connections): kmc check --partitions N.
//   - Node: a kmc process that embeds a NATS server (JetStream on, its store in the node's data
//     folder, clustered with other nodes by routes) and waits for runs: kmc node.
//   - Cluster: a coordinator that finds the nodes on a NATS URL, gives each a part of a run and
//     drives it: kmc check --cluster URL.
//
// A search across nodes takes a level checkpoint about every ClusterRun.RollbackEvery (the
// checker's snapshot, gathered by the coordinator; kept in its temporary folder with a copy
// in the nodes' JetStream object store); a node lost makes the coordinator go on from it with
// the nodes left, each attempt an epoch with subjects of its own. Membership is by leases in
// JetStream KV with per-key TTLs, the plan of each epoch is written by compare-and-set, and a
// node drops its part of an epoch the plan has left (leases.go). The user's --checkpoint and
// --resume work with --partitions and --cluster as with one process, and their checkpoints
// are the single-process engine's: any of the three ways resumes any of them.
//
// The checker package stays standard-library-only: NATS lives here.
package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"kmc/checker"
)

// maxPayload is the largest message the embedded servers take: the search's messages are at
// most about 512 KiB (claim batches, transfers of states), its level reports a little more.
const maxPayload = 8 << 20

// callTimeout bounds one request of the coordinator to a part (a level's expansion by a part
// is one), peerTimeout one request of a part to another (claims, wins, states: small work).
var (
	callTimeout = 30 * time.Minute
	peerTimeout = 5 * time.Minute
)

// maxParts is the most parts a search has: the seen set's 256 shards are spread over them.
const maxParts = 256

// RefusedError says why a search cannot run partitioned (a usage error: exit 2).
type RefusedError struct{ Why string }

func (e *RefusedError) Error() string { return e.Why }

// Wire counts the messages and bytes a search sent over NATS (requests and replies).
type Wire struct {
	Messages, Bytes int64
	// Graph is the part of Bytes that gathered a liveness property's state graph to the
	// coordinator (checker.GraphMessage).
	Graph int64 `json:",omitempty"`
}

// transport is checker.Transport over NATS request and reply: part i answers on
// <prefix>.p<i>.
type transport struct {
	nc      *nats.Conn
	prefix  string
	msgs    *atomic.Int64
	bytes   *atomic.Int64
	graph   *atomic.Int64   // the bytes of the liveness graph's gathering (nil: not counted)
	ctx     context.Context // ends the calls under way when the run is given up (nil: never)
	timeout time.Duration   // of one call (0: callTimeout)
	observe Observer        // hears of each level (the coordinator's transport; nil: none)
}

// Observer hears of each level of a search as it ends, with what this process sent and
// received over NATS so far (with --partitions, every part's messages; with --cluster, the
// coordinator's: the nodes count theirs until the run ends).
type Observer func(checker.LevelStats, Wire)

// Level is checker.LevelObserver.
func (t *transport) Level(ls checker.LevelStats) {
	if t.observe != nil {
		w := Wire{Messages: t.msgs.Load(), Bytes: t.bytes.Load()}
		if t.graph != nil {
			w.Graph = t.graph.Load()
		}
		t.observe(ls, w)
	}
}

func partSubject(prefix string, i int) string { return prefix + ".p" + strconv.Itoa(i) }

func (t *transport) Call(to int, req []byte) ([]byte, error) {
	ctx := t.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	timeout := t.timeout
	if timeout <= 0 {
		timeout = callTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	m, err := t.nc.RequestWithContext(ctx, partSubject(t.prefix, to), req)
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) && !errors.Is(cause, context.DeadlineExceeded) {
			err = cause
		}
		return nil, fmt.Errorf("part %d: %w", to, err)
	}
	t.msgs.Add(2)
	t.bytes.Add(int64(len(req) + len(m.Data)))
	if t.graph != nil && checker.GraphMessage(req[0]) {
		t.graph.Add(int64(len(req) + len(m.Data)))
	}
	if len(m.Data) == 0 {
		return nil, fmt.Errorf("part %d: an empty reply", to)
	}
	if m.Data[0] != 0 {
		return nil, fmt.Errorf("part %d: %s", to, m.Data[1:])
	}
	return m.Data[1:], nil
}

// serve answers part p's messages on its subject, each in a goroutine of its own: a part
// expanding its range must take the claims the other parts send it meanwhile. Once fenced
// is set (nil: never), the part's epoch is over: it refuses every message.
func serve(nc *nats.Conn, subject string, p checker.Part, fenced *atomic.Bool) (*nats.Subscription, error) {
	sub, err := nc.Subscribe(subject, func(m *nats.Msg) {
		if fenced != nil && fenced.Load() {
			_ = m.Respond(append([]byte{1}, errFenced...))
			return
		}
		go func() {
			b, err := p.Handle(m.Data)
			var out []byte
			if err != nil {
				out = append([]byte{1}, err.Error()...)
			} else {
				out = append([]byte{0}, b...)
			}
			_ = m.Respond(out)
		}()
	})
	if err != nil {
		return nil, err
	}
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		return nil, err
	}
	return sub, nil
}

// errFenced is a fenced part's answer to a message.
const errFenced = "the part's epoch is over: message dropped"

// runID names a run's subjects.
func runID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// startServer starts an embedded NATS server and waits until it takes connections.
func startServer(o *server.Options) (*server.Server, error) {
	o.MaxPayload = maxPayload
	o.NoSigs = true
	ns, err := server.NewServer(o)
	if err != nil {
		return nil, fmt.Errorf("start NATS server: %w", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(30 * time.Second) {
		ns.Shutdown()
		return nil, errors.New("start NATS server: not ready after 30s")
	}
	return ns, nil
}

// partOptions are the options of one part of parts when the search has opts: the search's
// workers shared among the parts of one process.
func partOptions(opts checker.Options, workers int) checker.Options {
	opts.Workers = max(workers, 1)
	return opts
}

// CheckPartitions runs r's search as n parts in this process over an embedded NATS server
// that opens no socket, and returns the result the single-process engine gives, and what
// went over NATS; obs, when given, hears of each level.
func CheckPartitions(r checker.Runnable, opts checker.Options, n int, obs ...Observer) (checker.Result, Wire, error) {
	if n < 1 || n > maxParts {
		return checker.Result{}, Wire{}, &RefusedError{fmt.Sprintf("--partitions must be 1 to %d (got %d)", maxParts, n)}
	}
	if why := checker.PartitionRefusal(r, opts); why != "" {
		return checker.Result{}, Wire{}, &RefusedError{why}
	}
	pr := r.(checker.Partitioner)
	ns, err := startServer(&server.Options{ServerName: "kmc-partitions", DontListen: true, NoLog: true})
	if err != nil {
		return checker.Result{}, Wire{}, err
	}
	defer ns.Shutdown()
	var msgs, bytes, graph atomic.Int64
	prefix := "kmc." + runID()
	connect := func() (*nats.Conn, error) {
		return nats.Connect("", nats.InProcessServer(ns), nats.Name("kmc partitions"))
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = max(1, numCPU()/n)
	} else {
		workers = max(1, workers/n)
	}
	for i := range n {
		nc, err := connect()
		if err != nil {
			return checker.Result{}, Wire{}, fmt.Errorf("connect part %d: %w", i, err)
		}
		defer nc.Close()
		p, err := pr.NewPart(partOptions(opts, workers), n, i, &transport{nc: nc, prefix: prefix, msgs: &msgs, bytes: &bytes, graph: &graph})
		if err != nil {
			return checker.Result{}, Wire{}, err
		}
		if _, err := serve(nc, partSubject(prefix, i), p, nil); err != nil {
			return checker.Result{}, Wire{}, fmt.Errorf("part %d: %w", i, err)
		}
		if err := nc.Flush(); err != nil {
			return checker.Result{}, Wire{}, err
		}
	}
	nc, err := connect()
	if err != nil {
		return checker.Result{}, Wire{}, fmt.Errorf("connect coordinator: %w", err)
	}
	defer nc.Close()
	ct := &transport{nc: nc, prefix: prefix, msgs: &msgs, bytes: &bytes, graph: &graph}
	if len(obs) > 0 {
		ct.observe = obs[0]
	}
	res := pr.CheckPartitioned(opts, n, ct)
	return res, Wire{Messages: msgs.Load(), Bytes: bytes.Load(), Graph: graph.Load()}, nil
}

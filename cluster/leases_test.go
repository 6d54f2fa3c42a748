package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"kmc/app/checkpoint"
)

// jetStream starts a NATS server with JetStream that opens no socket, and a connection to it.
func jetStream(t *testing.T) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	ns, err := startServer(&server.Options{ServerName: "test", DontListen: true, NoLog: true, JetStream: true, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// TestPlanCompareAndSet: the plan is written only over the revision its writer last wrote. A
// coordinator that has not seen the latest write (stale) is refused with the plan's epoch and
// coordinator, and a second coordinator cannot create a run's plan over the first's; a write
// retried after its reply was lost finds its own value and succeeds.
func TestPlanCompareAndSet(t *testing.T) {
	_, js := jetStream(t)
	ctx := context.Background()
	a, err := openPlan(ctx, js, "r1", 1)
	if err != nil {
		t.Fatal(err)
	}
	p := plan{Run: "r1", Epoch: 1, Coordinator: "A", Members: []string{"n1", "n2"}, Leases: "kmc-lease-r1-1"}
	if err := a.write(ctx, p); err != nil {
		t.Fatalf("epoch 1: %v", err)
	}
	stale := &planStore{kv: a.kv, js: a.js, bucket: a.bucket, rev: a.rev} // a coordinator that wrote epoch 1 and then was cut off
	p.Epoch, p.Members = 2, []string{"n1"}
	if err := a.write(ctx, p); err != nil {
		t.Fatalf("epoch 2: %v", err)
	}
	var se *StalePlanError
	err = stale.write(ctx, plan{Run: "r1", Epoch: 2, Coordinator: "B", Members: []string{"n2"}})
	if !errors.As(err, &se) || se.Now != 2 || se.Coordinator != "A" || se.Epoch != 2 {
		t.Fatalf("a stale coordinator's write: %v, want a StalePlanError naming epoch 2 of A", err)
	}
	other, err := openPlan(ctx, js, "r1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.write(ctx, plan{Run: "r1", Epoch: 1, Coordinator: "C"}); !errors.As(err, &se) || se.Coordinator != "A" {
		t.Fatalf("a second coordinator's first write: %v, want a StalePlanError", err)
	}
	// A's reply was lost: A writes the same plan again over the revision before.
	retried := &planStore{kv: a.kv, js: a.js, bucket: a.bucket, rev: stale.rev}
	if err := retried.write(ctx, p); err != nil || retried.rev != a.rev {
		t.Fatalf("a retried write: %v (revision %d, want %d)", err, retried.rev, a.rev)
	}
	got, _, err := readPlan(ctx, js, "r1")
	if err != nil || got.Epoch != 2 || got.Coordinator != "A" || len(got.Members) != 1 {
		t.Fatalf("the plan read back: %+v, %v", got, err)
	}
}

// watchedLeases opens lease bucket on a JetStream of its own and watches the leases of
// members on epoch: it returns the test's context, the JetStream, and the context that a
// member's loss ends (its cause names the member).
func watchedLeases(t *testing.T, bucket string, epoch int, members ...string) (context.Context, jetstream.JetStream, context.Context) {
	t.Helper()
	_, js := jetStream(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	kv, err := openLeases(ctx, js, bucket, "")
	if err != nil {
		t.Fatal(err)
	}
	lw, err := newLeaseWatch(ctx, kv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lw.stop)
	ectx, lost := context.WithCancelCause(ctx)
	lw.watch(epoch, members, lost)
	return ctx, js, ectx
}

// TestLeaseExpires: a lease renewed keeps its node a member; one whose renewals stop expires
// within its TTL and a bit (the server's TTL is in seconds), the watch names the node, and
// the node's next renewal is refused, which tells the node it has been dropped. Leases of
// another epoch, or of nodes not members, are not watched.
func TestLeaseExpires(t *testing.T) {
	ctx, js, ectx := watchedLeases(t, "kmc-lease-t-1", 2, "n1", "n2")
	var paused atomic.Bool
	type drop struct {
		id, why string
	}
	drops := make(chan drop, 4)
	take := func(id string, epoch int, hooks leaseHooks) *lease {
		l, err := takeLease(ctx, js, "kmc-lease-t-1", id, epoch, time.Second, hooks, func(context.Context) error { return nil },
			func(why string) { drops <- drop{id, why} })
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	defer take("n1", 2, leaseHooks{}).end()
	defer take("n2", 2, leaseHooks{pause: func(int) bool { return paused.Load() }}).end()
	old := take("n2", 1, leaseHooks{}) // epoch 1's lease, ended at once: its expiry is no loss
	old.end()
	defer take("n3", 2, leaseHooks{pause: func(int) bool { return true }}).end() // not a member
	select {
	case <-ectx.Done():
		t.Fatalf("a member was lost while renewing: %v", context.Cause(ectx))
	case d := <-drops:
		t.Fatalf("node %s dropped while renewing: %s", d.id, d.why)
	case <-time.After(4 * time.Second):
	}
	paused.Store(true)
	start := time.Now()
	select {
	case <-ectx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the lease of a node that stopped renewing did not expire in 10 s")
	}
	var le *lostError
	if !errors.As(context.Cause(ectx), &le) || le.id != "n2" || le.part != 1 || !strings.Contains(le.Error(), "lease expired") {
		t.Fatalf("lost: %v, want node n2 (part 1) with its lease expired", context.Cause(ectx))
	}
	t.Logf("%v (%s after the renewals stopped)", le, time.Since(start).Round(time.Millisecond))
	paused.Store(false)
	select {
	case d := <-drops:
		if d.id != "n2" || !strings.Contains(d.why, "lease is gone") {
			t.Fatalf("node %s dropped: %s; want n2, its lease gone", d.id, d.why)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the node whose lease expired did not learn it")
	}
}

// TestNodeFencesOldEpoch: a node takes a part of an epoch only if the plan names it there,
// answers the part's messages while the plan is at that epoch, and once the plan moves on,
// drops the part: a message of the old epoch is not handled, and a start of the old epoch
// is refused.
func TestNodeFencesOldEpoch(t *testing.T) {
	urls := make(chan string, 1)
	var log syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- RunNode(ctx, NodeOptions{Data: t.TempDir(), Listen: "127.0.0.1:0", Name: "n1", Workers: 1, Log: &log,
			Ready: func(u string) { urls <- u }})
	}()
	defer func() { cancel(); <-done }()
	var u string
	select {
	case u = <-urls:
	case err := <-done:
		t.Fatal(err)
	}
	nc, err := nats.Connect(u)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	bg := context.Background()
	ps, err := openPlan(bg, js, "fence", 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openLeases(bg, js, leaseBucket("fence", 1), nodeTag("n1")); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../specs/twophase.toml")
	if err != nil {
		t.Fatal(err)
	}
	start := func(epoch int) error {
		s := startMsg{Run: fmt.Sprintf("fence.e%d", epoch), Parts: 1, Version: checkpoint.Version(), SpecPath: "../specs/twophase.toml",
			Spec: src, SpecSHA: sha(src), Sets: []string{"rms=3"}, Check: "fixed", Opts: runOpts{POR: false},
			Plan: "fence", Epoch: epoch, Leases: leaseBucket("fence", 1), LeaseTTL: time.Second}
		b, _ := json.Marshal(s)
		m, err := nc.Request(nodePrefix+"n1.start", b, 30*time.Second)
		if err != nil {
			return err
		}
		if len(m.Data) == 0 || m.Data[0] != 0 {
			return errors.New(string(m.Data[1:]))
		}
		return nil
	}
	p := plan{Run: "fence", Epoch: 1, Coordinator: "A", Members: []string{"n1"}, Leases: leaseBucket("fence", 1)}
	if err := start(1); err == nil || !strings.Contains(err.Error(), "refuses epoch 1") {
		t.Fatalf("a start before the plan: %v, want a refusal", err)
	}
	if err := ps.write(bg, p); err != nil {
		t.Fatal(err)
	}
	if err := start(1); err != nil {
		t.Fatalf("a start of the plan's epoch: %v", err)
	}
	// kind 0: a message the part refuses itself ("any answer will do"), not the fence's.
	ask := func() (string, error) {
		m, err := nc.Request(partSubject("kmc.fence.e1", 0), []byte{0}, 2*time.Second)
		if err != nil {
			return "", err
		}
		return string(m.Data[1:]), nil
	}
	if got, err := ask(); err != nil || strings.Contains(got, errFenced) {
		t.Fatalf("epoch 1 under way: a message of epoch 1 answered %q, %v; want the part's own answer", got, err)
	}
	p.Epoch = 2
	if err := ps.write(bg, p); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := ask()
		if errors.Is(err, nats.ErrNoResponders) || strings.Contains(got, errFenced) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the plan at epoch 2: a message of epoch 1 still answered %q, %v\n%s", got, err, log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(log.String(), "left: the plan moved to epoch 2") {
		t.Errorf("the node's log does not say it left epoch 1:\n%s", log.String())
	}
	if err := start(1); err == nil || !strings.Contains(err.Error(), "the plan is at epoch 2") {
		t.Fatalf("a start of epoch 1 with the plan at 2: %v, want a refusal", err)
	}
}

// syncBuffer is a strings.Builder safe for a node's log.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestClusterLeaseLost (make cluster-test): two nodes in this process, clustered by routes on
// loopback; node n2 stops renewing its lease in epoch 1 of a search (it is alive and serving:
// only its lease says otherwise). The coordinator sees the lease expire, n2 leaves its part,
// and the search rolls back to its last level checkpoint, goes on with the nodes that
// answer (n2 again, in epoch 2) and gives the single process's result.
func TestClusterLeaseLost(t *testing.T) {
	if os.Getenv("KMC_CLUSTER_TESTS") == "" {
		t.Skip("clusters two nodes on loopback: set KMC_CLUSTER_TESTS=1 (make cluster-test)")
	}
	defer func(d time.Duration) { leaseTTL = d }(leaseTTL)
	leaseTTL = time.Second
	ports := []int{freePort(t), freePort(t)}
	routes := []string{fmt.Sprintf("nats://127.0.0.1:%d", ports[0]), fmt.Sprintf("nats://127.0.0.1:%d", ports[1])}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	var urls []string
	var logs [2]syncBuffer
	for i := range 2 {
		ready := make(chan string, 1)
		o := NodeOptions{Data: t.TempDir(), Listen: "127.0.0.1:0", ClusterListen: fmt.Sprintf("127.0.0.1:%d", ports[i]), Routes: routes,
			Name: fmt.Sprintf("n%d", i+1), Workers: 1, Log: &logs[i], Ready: func(u string) { ready <- u }}
		if i == 1 {
			o.hooks.pause = func(epoch int) bool { return epoch == 1 }
		}
		wg.Go(func() {
			if err := RunNode(ctx, o); err != nil {
				t.Error(err)
			}
		})
		select {
		case u := <-ready:
			urls = append(urls, u)
		case <-time.After(30 * time.Second):
			t.Fatal("a node did not start in 30 s")
		}
	}
	r, opts := load(t, "../specs/twophase.toml", "fixed", "rms=7")
	// Vacuity off: both engines leave Taken and Vacuous out of a search resumed from a
	// checkpoint (checker: engine.go, partition.go), as a rolled-back search is.
	opts.POR, opts.Workers, opts.Vacuity = false, 1, false
	want := r.Check(opts)
	src, err := os.ReadFile("../specs/twophase.toml")
	if err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	got, _, err := CheckCluster(r, opts, ClusterRun{URL: urls[0], Nodes: 2, Wait: 30 * time.Second, SpecPath: "../specs/twophase.toml",
		Spec: src, Sets: []string{"rms=7"}, Check: "fixed", Log: &log, RollbackEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, "twophase rms=7, n2's lease lost", got, want)
	if !strings.Contains(log.String(), "node n2 (part 1) is lost: its lease expired") || !strings.Contains(log.String(), "epoch 2: ") {
		t.Errorf("the coordinator's log does not say n2's lease expired and epoch 2 began:\n%s", log.String())
	}
	if l := logs[1].String(); !strings.Contains(l, "lease is gone") && !strings.Contains(l, "left: ") {
		t.Errorf("n2's log does not say it left its part of epoch 1:\n%s", logs[1].String())
	}
	t.Logf("coordinator:\n%sn2:\n%s", log.String(), logs[1].String())
}

// freePort is a loopback port nothing listens on (at the time of asking).
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestFewerReplicas: a placement that finds too few servers online (a node that stopped, still
// listed as offline) steps the replicas down one at a time, a server without clustering that
// refuses replicas goes to one, anything else keeps them. Before, the placement error kept
// three replicas until the attempts ran out, and a coordinator whose node was killed in the
// run's first milliseconds could not create its plan (make cluster-faults, kill 19 of a run on
// 5 December 2026).
func TestFewerReplicas(t *testing.T) {
	noPeers := &jetstream.APIError{Code: 500, ErrorCode: jsNoPeers, Description: "no suitable peers for placement, peer offline"}
	for _, tc := range []struct {
		name     string
		err      error
		replicas int
		want     int
	}{
		{"no error", nil, 3, 3},
		{"no peers from three", noPeers, 3, 2},
		{"no peers from two", fmt.Errorf("create: %w", noPeers), 2, 1},
		{"no peers at one", noPeers, 1, 1},
		{"replicas refused", errors.New("nats: replicas > 1 not supported in non-clustered mode"), 3, 1},
		{"another error", errors.New("nats: timeout"), 3, 3},
	} {
		if got := fewerReplicas(tc.err, tc.replicas); got != tc.want {
			t.Errorf("%s: got %d replicas, want %d", tc.name, got, tc.want)
		}
	}
}

// TestLeaderGet: the leader's read of a plan bucket's key gives its value and revision, not
// found for a key never written or deleted, and bucket not found once the bucket is gone.
func TestLeaderGet(t *testing.T) {
	_, js := jetStream(t)
	ctx := context.Background()
	ps, err := openPlan(ctx, js, "r2", 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := ps.write(ctx, plan{Run: "r2", Epoch: 3, Coordinator: "A"}); err != nil {
		t.Fatal(err)
	}
	v, rev, err := leaderGet(ctx, js, planBucket("r2"), "plan")
	var p plan
	if err != nil || json.Unmarshal(v, &p) != nil || p.Epoch != 3 || rev != ps.rev {
		t.Fatalf("got %q revision %d, %v; want epoch 3 at revision %d", v, rev, err, ps.rev)
	}
	if _, _, err := leaderGet(ctx, js, planBucket("r2"), "run"); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Errorf("a key never written: got %v, want key not found", err)
	}
	if err := ps.kv.Delete(ctx, "plan"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := leaderGet(ctx, js, planBucket("r2"), "plan"); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Errorf("a key deleted: got %v, want key not found", err)
	}
	if err := js.DeleteKeyValue(ctx, planBucket("r2")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := leaderGet(ctx, js, planBucket("r2"), "plan"); !errors.Is(err, jetstream.ErrBucketNotFound) {
		t.Errorf("a bucket gone: got %v, want bucket not found", err)
	}
}

// TestLeaseSlowCheck: a node's lease is renewed while its check of the plan is slow (here:
// it takes all the time it is given, as a read of the replicated plan bucket may right after
// a node's loss). Before the renewal had its own time, the check took it, every renewal
// failed, and the lease of a live node expired: the false losses of a cut search.
func TestLeaseSlowCheck(t *testing.T) {
	ctx, js, ectx := watchedLeases(t, "kmc-lease-t-3", 1, "n1")
	var renewals, checks atomic.Int64
	drops := make(chan string, 1)
	slow := func(c context.Context) error {
		<-c.Done()
		checks.Add(1)
		return nil // not known: the lease decides
	}
	hooks := leaseHooks{renewed: func(err error) {
		if err == nil {
			renewals.Add(1)
		}
	}}
	l, err := takeLease(ctx, js, "kmc-lease-t-3", "n1", 1, time.Second, hooks, slow, func(why string) { drops <- why })
	if err != nil {
		t.Fatal(err)
	}
	defer l.end()
	select {
	case <-ectx.Done():
		t.Fatalf("the node was named lost while its check was slow: %v", context.Cause(ectx))
	case why := <-drops:
		t.Fatalf("the node dropped its lease while its check was slow: %s", why)
	case <-time.After(4 * time.Second):
	}
	if renewals.Load() < 3 || checks.Load() < 3 {
		t.Errorf("%d renewals and %d checks in 4 s, want some of each", renewals.Load(), checks.Load())
	}
}

package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Membership, leases and the plan of a search across nodes, in JetStream KV (issue 30,
// "Failures").
//
// The plan. A run's plan (plan: its epoch, the coordinator, the members in part order, the
// level checkpoint the epoch resumes from) is key "plan" of bucket kmc-plan-<run>, replicated
// on up to three nodes (file storage: it outlives any one node). Only the run's coordinator
// writes it, once per epoch, with Create for the first epoch and Update(key, value, last
// revision) after: a coordinator whose write is refused (another wrote the plan since) stops.
// A node takes a part only if the plan names it at that part of that epoch, and gives up its
// part as soon as the plan moves to another epoch: a part of an epoch the plan left answers
// no message (its subjects, kmc.<run>.e<N>.p<i>, are the epoch's own, so no message of one
// epoch reaches a part of another either).
//
// The leases. Each member holds key node.<id> of the epoch's lease bucket
// kmc-lease-<run>-e<N>, created with a per-message TTL (KeyTTL: LeaseTTL) and renewed by its
// worker every third of it, each renewal conditional on the node's last revision; the
// bucket's limit markers (LimitMarkerTTL) turn an expired key into a purge the coordinator's
// watch of the bucket sees. An expired or deleted key is a lost node: the coordinator rolls
// back with the nodes left. A node whose renewal is refused (its key expired: the
// coordinator has taken it for lost) gives up its part too.
//
// Placement, and why. The lease bucket has one replica, in memory, on the server of the node
// the coordinator is connected to (server tag kmc-node:<id>). A replicated bucket whose Raft
// leader is the node killed takes no write and expires no key until the nodes left elect a
// new leader (Raft's election timeout in nats-server v2.15.3 is 4 to 9 s, raft.go, and not
// an option). Measured on three kmc node processes on loopback (cluster/testdata/kvexp,
// 2026-12-05, TTL 3 s renewed every second): after a SIGKILL of the leader of an R3 bucket in
// memory, puts failed for 7.7 s and the victim's expiry was seen after 8.9 s; after a SIGKILL
// of a follower, the expiry was seen after 2.8 s in one run of three and not within 60 s in
// the two others (the watch's consumer, we think, lived on the node killed). With one
// replica on the coordinator's server, a SIGKILL of another node was seen after 2.8, 2.8,
// 3.0 and 2.8 s in four runs and puts never failed; through kmc check --cluster, 10
// kills: 2.3 s to 3.3 s, median 3.2 s (TestClusterLeaseDetection). The one server the lease
// bucket depends on is the coordinator's own, whose loss the coordinator sees at once as its
// connection's (the node it was connected to is lost; the next epoch's bucket is placed on
// the server it reconnects to). The plan is written only at
// an epoch's start, so a wait for its leader costs a rollback seconds, not a search.
//
// Ping is gone: a lease does what it did (a node whose process or route is gone stops
// renewing, as it stopped answering), through JetStream rather than a request per node per
// second, and also tells the node itself that it has been dropped.

// LeaseTTL is how long a node's lease lives without a renewal (renewed every third of it; a
// whole number of seconds, the server's unit of message TTLs): the time from a node's
// SIGKILL to its loss being seen is at most about this long. Shorter would drop a node
// whose renewals a loaded machine delays by a second or two (that costs a rollback, not
// the result); longer delays every rollback.
const LeaseTTL = 3 * time.Second

// leaseTTL is LeaseTTL, shortened by tests.
var leaseTTL = LeaseTTL

// leaseMarkerTTL is how long a limit marker (an expired lease) stays in the lease bucket:
// the server's least.
const leaseMarkerTTL = time.Second

// plan is a run's plan for one epoch.
type plan struct {
	Run         string   `json:"run"`
	Epoch       int      `json:"epoch"`
	Coordinator string   `json:"coordinator"` // an id of the coordinating process, random
	Members     []string `json:"members"`     // node ids, part i on Members[i]
	Leases      string   `json:"leases"`      // the epoch's lease bucket
	// The level checkpoint the epoch resumes from (Depth 0: the search starts from its
	// initial states), and the name of its copy in the object store kmc-ckpt-<run> when
	// there is one.
	Depth    int    `json:"depth"`
	Distinct int64  `json:"distinct"`
	Object   string `json:"object,omitempty"`
}

func planBucket(run string) string { return "kmc-plan-" + run }

// leaseBucket is the name of run's lease bucket; gen counts the buckets the run needed (a
// new one when the coordinator's server, which held the one before, was lost).
func leaseBucket(run string, gen int) string {
	return "kmc-lease-" + run + "-" + strconv.Itoa(gen)
}

// leaseKey is node id's lease on epoch.
func leaseKey(id string, epoch int) string { return "node." + id + ".e" + strconv.Itoa(epoch) }

// StalePlanError says that a coordinator lost the plan's compare-and-set: another wrote the
// plan since it last did.
type StalePlanError struct {
	Run         string
	Epoch       int    // the epoch the coordinator meant to start
	Now         int    // the plan's epoch
	Coordinator string // the plan's coordinator
}

func (e *StalePlanError) Error() string {
	return fmt.Sprintf("run %s: the plan is at epoch %d of coordinator %s; this coordinator's epoch %d is refused: it stops", e.Run, e.Now, e.Coordinator, e.Epoch)
}

// planStore is a coordinator's handle on its run's plan: the revision it last wrote.
type planStore struct {
	kv     jetstream.KeyValue
	js     jetstream.JetStream
	bucket string
	rev    uint64
}

// jsAttempt bounds one JetStream call of the control plane; jsPatience all of its retries: a
// replicated asset whose leader was lost takes a write again once the nodes left have elected
// another (measured 5 to 8 s after a SIGKILL, above).
var (
	jsAttempt  = 2 * time.Second
	jsPatience = 30 * time.Second
)

// attempt calls f with a context of jsAttempt until it succeeds, fails with an error stop
// says is final, or jsPatience has passed.
func attempt(ctx context.Context, stop func(error) bool, f func(context.Context) error) error {
	deadline := time.Now().Add(jsPatience)
	for {
		c, cancel := context.WithTimeout(ctx, jsAttempt)
		err := f(c)
		cancel()
		if err == nil || (stop != nil && stop(err)) || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// openPlan creates run's plan bucket, on up to replicas nodes.
func openPlan(ctx context.Context, js jetstream.JetStream, run string, replicas int) (*planStore, error) {
	var kv jetstream.KeyValue
	err := attempt(ctx, nil, func(c context.Context) error {
		var err error
		kv, err = js.CreateOrUpdateKeyValue(c, jetstream.KeyValueConfig{Bucket: planBucket(run), Replicas: replicas,
			Storage: jetstream.FileStorage, History: 1, Description: "kmc: the plan of a search across nodes"})
		replicas = fewerReplicas(err, replicas)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create the plan's bucket %s: %w", planBucket(run), err)
	}
	return &planStore{kv: kv, js: js, bucket: planBucket(run)}, nil
}

// write makes p the plan, if the plan is still the one this coordinator last wrote (or
// there is none yet); else it returns a *StalePlanError. A write whose reply was lost and is
// retried finds its own value there, which is a success.
func (ps *planStore) write(ctx context.Context, p plan) error {
	val, err := json.Marshal(p)
	if err != nil {
		return err
	}
	var stale error
	err = attempt(ctx, func(err error) bool { return stale != nil }, func(c context.Context) error {
		var rev uint64
		var err error
		if ps.rev == 0 {
			rev, err = ps.kv.Create(c, "plan", val)
		} else {
			rev, err = ps.kv.Update(c, "plan", val, ps.rev)
		}
		if err == nil {
			ps.rev = rev
			return nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) && !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return err
		}
		cur, crev, gerr := leaderGet(c, ps.js, ps.bucket, "plan")
		if gerr != nil {
			return gerr
		}
		if bytes.Equal(cur, val) {
			ps.rev = crev
			return nil
		}
		var now plan
		_ = json.Unmarshal(cur, &now)
		stale = &StalePlanError{Run: p.Run, Epoch: p.Epoch, Now: now.Epoch, Coordinator: now.Coordinator}
		return stale
	})
	if stale != nil {
		return stale
	}
	if err != nil {
		return fmt.Errorf("write the plan of epoch %d: %w", p.Epoch, err)
	}
	return nil
}

// readPlan reads run's plan from its bucket's leader (leaderGet: not a lagging replica's).
func readPlan(ctx context.Context, js jetstream.JetStream, run string) (plan, jetstream.KeyValue, error) {
	var p plan
	var kv jetstream.KeyValue
	err := attempt(ctx, func(err error) bool { return errors.Is(err, jetstream.ErrKeyNotFound) }, func(c context.Context) error {
		var err error
		if kv == nil {
			if kv, err = js.KeyValue(c, planBucket(run)); err != nil {
				return err
			}
		}
		v, _, err := leaderGet(c, js, planBucket(run), "plan")
		if err != nil {
			return err
		}
		return json.Unmarshal(v, &p)
	})
	return p, kv, err
}

// openLeases creates a run's lease bucket on the server of node tag ("": the coordinator is
// connected to a NATS server that is not a kmc node's: any server).
func openLeases(ctx context.Context, js jetstream.JetStream, bucket, tag string) (jetstream.KeyValue, error) {
	cfg := jetstream.KeyValueConfig{Bucket: bucket, Replicas: 1, Storage: jetstream.MemoryStorage, History: 1,
		LimitMarkerTTL: leaseMarkerTTL, Description: "kmc: the leases of the members of an epoch of a search"}
	if tag != "" {
		cfg.Placement = &jetstream.Placement{Tags: []string{tag}}
	}
	var kv jetstream.KeyValue
	err := attempt(ctx, nil, func(c context.Context) error {
		var err error
		// No fallback to anywhere when the placement fails: right after a node's loss or
		// restart JetStream may refuse for a moment, and a lease bucket on another node than
		// the coordinator's would be lost with that node, and its leases unseen.
		kv, err = js.CreateOrUpdateKeyValue(c, cfg)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create the lease bucket %s: %w", bucket, err)
	}
	return kv, nil
}

// leaseWatch is a coordinator's watch of its run's lease bucket, one for the run (a watch is
// a consumer, whose creation waits for JetStream's meta leader: not at every epoch). It ends
// the current epoch (lost) with the first member whose lease of the epoch expires or is
// deleted as cause.
type leaseWatch struct {
	mu      sync.Mutex
	epoch   int
	members map[string]int // lease key of the epoch: part
	ids     []string
	lost    context.CancelCauseFunc
	w       jetstream.KeyWatcher
}

func newLeaseWatch(ctx context.Context, kv jetstream.KeyValue) (*leaseWatch, error) {
	lw := &leaseWatch{}
	err := attempt(ctx, nil, func(c context.Context) error {
		var err error
		lw.w, err = kv.WatchAll(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("watch the lease bucket: %w", err)
	}
	go func() {
		renewed := map[string]time.Time{} // lease key: when its last renewal was seen
		for e := range lw.w.Updates() {
			if e == nil {
				continue
			}
			if e.Operation() == jetstream.KeyValuePut {
				renewed[e.Key()] = time.Now()
				continue
			}
			lw.mu.Lock()
			i, ok := lw.members[e.Key()]
			if ok && lw.lost != nil {
				why := "its lease expired"
				if e.Operation() == jetstream.KeyValueDelete {
					why = "its lease was deleted"
				}
				if t, ok := renewed[e.Key()]; ok {
					why += fmt.Sprintf(" %s after its last renewal", time.Since(t).Round(10*time.Millisecond))
				}
				lw.lost(&lostError{id: lw.ids[i], part: i, why: why})
			}
			lw.mu.Unlock()
		}
	}()
	return lw, nil
}

// watch makes members' leases of epoch the ones watched, ending the epoch with lost.
func (lw *leaseWatch) watch(epoch int, members []string, lost context.CancelCauseFunc) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.epoch, lw.ids, lw.lost = epoch, members, lost
	lw.members = map[string]int{}
	for i, id := range members {
		lw.members[leaseKey(id, epoch)] = i
	}
}

func (lw *leaseWatch) stop() { _ = lw.w.Stop() }

// lostError says that a node was lost, and how it was seen.
type lostError struct {
	id   string
	part int
	why  string
}

func (e *lostError) Error() string {
	return fmt.Sprintf("node %s (part %d) is lost: %s", e.id, e.part, e.why)
}

// lease is a node's lease on one epoch of a run: created, then renewed every third of its
// TTL until ended; lost is called once when a renewal is refused (the key expired or was
// deleted), none succeeded for a TTL, or the plan left the epoch.
type lease struct {
	stop chan struct{}
	once sync.Once
}

// leaseHooks are a node's hooks into its leases, for tests.
type leaseHooks struct {
	// pause holds the renewals of the lease on epoch back while it returns true.
	pause func(epoch int) bool
	// renewed hears of each renewal's outcome (nil: renewed).
	renewed func(err error)
}

// takeLease creates node id's lease on epoch in bucket and renews it until ended, every
// third of ttl; at each renewal it asks check whether the epoch is still the plan's (an
// error: it is not; the lease is given up).
func takeLease(ctx context.Context, js jetstream.JetStream, bucket, id string, epoch int, ttl time.Duration, hooks leaseHooks,
	check func(context.Context) error, lost func(why string)) (*lease, error) {
	key := leaseKey(id, epoch)
	var kv jetstream.KeyValue
	var rev uint64
	err := attempt(ctx, func(err error) bool { return errors.Is(err, jetstream.ErrKeyExists) }, func(c context.Context) error {
		var err error
		if kv == nil {
			if kv, err = js.KeyValue(c, bucket); err != nil {
				return err
			}
		}
		rev, err = kv.Create(c, key, []byte(id), jetstream.KeyTTL(ttl))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("take the lease %s in %s: %w", key, bucket, err)
	}
	l := &lease{stop: make(chan struct{})}
	subject := "$KV." + bucket + "." + key
	go func() {
		t := time.NewTicker(ttl / 3)
		defer t.Stop()
		last := time.Now()
		for {
			select {
			case <-l.stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if hooks.pause != nil && hooks.pause(epoch) {
				continue
			}
			// The renewal first, with a third of the TTL of its own: the check of the plan
			// reads a replicated bucket, which may be slow to answer right after a node's
			// loss, and must not take the renewal's time (a live node's lease expired so).
			c, cancel := context.WithTimeout(ctx, ttl/3)
			pa, err := js.PublishMsg(c, &nats.Msg{Subject: subject, Data: []byte(id)},
				jetstream.WithMsgTTL(ttl), jetstream.WithExpectLastSequencePerSubject(rev))
			cancel()
			switch {
			case err == nil:
				rev, last = pa.Sequence, time.Now()
			case isWrongLastSeq(err) || errors.Is(err, jetstream.ErrStreamNotFound):
				lost("its lease is gone (expired, or its bucket deleted)")
				return
			case time.Since(last) > ttl:
				lost(fmt.Sprintf("no renewal of its lease in %s (%v)", ttl, err))
				return
			}
			if hooks.renewed != nil {
				hooks.renewed(err)
			}
			c, cancel = context.WithTimeout(ctx, ttl/3)
			err = check(c)
			cancel()
			if err != nil {
				lost(err.Error())
				return
			}
		}
	}()
	return l, nil
}

func (l *lease) end() {
	if l != nil {
		l.once.Do(func() { close(l.stop) })
	}
}

func isWrongLastSeq(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

func isReplicasErr(err error) bool {
	return err != nil && bytes.Contains([]byte(err.Error()), []byte("replicas"))
}

// jsNoPeers is JetStream's error code for a stream it cannot place on as many servers as
// asked: "no suitable peers for placement" (a server that stopped, still in the cluster's
// list as offline until it returns).
const jsNoPeers = 10005

// fewerReplicas is the replica count to try after err: 1 after a server that refuses
// replicas (one without clustering), one fewer after a placement that found too few
// servers online (a node that stopped), replicas unchanged otherwise.
func fewerReplicas(err error, replicas int) int {
	if err == nil || replicas <= 1 {
		return replicas
	}
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode == jsNoPeers {
		return replicas - 1
	}
	if isReplicasErr(err) {
		return 1
	}
	return replicas
}

// leaderGet reads key of KV bucket from its stream's leader: the value, its revision, and
// jetstream.ErrKeyNotFound for a key absent or deleted, jetstream.ErrBucketNotFound for a
// bucket gone. A KV bucket allows direct gets, which any replica answers, and a replica that
// lags (one on a node that was just restarted) answers with an older value or none: a
// compare-and-set, or a decision that the run moved on or ended, must not rest on that.
func leaderGet(ctx context.Context, js jetstream.JetStream, bucket, key string) ([]byte, uint64, error) {
	req, err := json.Marshal(map[string]string{"last_by_subj": "$KV." + bucket + "." + key})
	if err != nil {
		return nil, 0, err
	}
	msg, err := js.Conn().RequestWithContext(ctx, "$JS.API.STREAM.MSG.GET.KV_"+bucket, req)
	if err != nil {
		return nil, 0, err
	}
	var resp struct {
		Message *struct {
			Seq  uint64 `json:"seq"`
			Hdrs []byte `json:"hdrs"`
			Data []byte `json:"data"`
		} `json:"message"`
		Error *jetstream.APIError `json:"error"`
	}
	if err := json.Unmarshal(msg.Data, &resp); err != nil {
		return nil, 0, fmt.Errorf("read %s of bucket %s: %w", key, bucket, err)
	}
	switch {
	case resp.Error != nil && resp.Error.ErrorCode == jetstream.JSErrCodeMessageNotFound:
		return nil, 0, jetstream.ErrKeyNotFound
	case resp.Error != nil && resp.Error.ErrorCode == jetstream.JSErrCodeStreamNotFound:
		return nil, 0, jetstream.ErrBucketNotFound
	case resp.Error != nil:
		return nil, 0, resp.Error
	case resp.Message == nil:
		return nil, 0, fmt.Errorf("read %s of bucket %s: no message in the answer", key, bucket)
	}
	if len(resp.Message.Hdrs) > 0 {
		if h, err := nats.DecodeHeadersMsg(resp.Message.Hdrs); err == nil {
			if op := h.Get("KV-Operation"); op == "DEL" || op == "PURGE" {
				return nil, 0, jetstream.ErrKeyNotFound
			}
		}
	}
	return resp.Message.Data, resp.Message.Seq, nil
}

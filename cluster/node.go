package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"kmc/app"
	"kmc/app/checkpoint"
	"kmc/checker"
	"kmc/specs"
)

// Subjects of the nodes: every node answers helloSubject with its id; node id takes runs on
// nodePrefix.<id>.start and lets them go on nodePrefix.<id>.end.
const (
	helloSubject = "kmc.node.hello"
	nodePrefix   = "kmc.node."
)

// NodeOptions configure kmc node.
type NodeOptions struct {
	Data          string   // the node's folder: JetStream's store
	Listen        string   // host:port for clients ("": 127.0.0.1:4222)
	ClusterListen string   // host:port for the other nodes' routes ("": no cluster)
	Routes        []string // nats://host:port of other nodes' cluster ports
	Token         string   // required by clients and routes; needed beyond loopback
	Name          string   // the node's id ("": node-<host port>)
	Workers       int      // search workers of this node's part (0: all cores)
	Log           io.Writer
	// Ready, when set, is called with the client URL once the node takes runs.
	Ready func(url string)
}

// hostPort splits a listen address, with port 0 for "any free port".
func hostPort(addr string) (string, int, error) {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("%q: %w", addr, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("%q: port must be 0 to 65535", addr)
	}
	if h == "" {
		return "", 0, fmt.Errorf("%q: name the host to listen on (127.0.0.1 for this machine only)", addr)
	}
	return h, port, nil
}

// Loopback reports whether host is this machine only.
func Loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// nodeServerOptions are the embedded server's options for o; listening beyond loopback
// without a token is refused.
func nodeServerOptions(o *NodeOptions) (*server.Options, error) {
	listen := o.Listen
	if listen == "" {
		listen = "127.0.0.1:4222"
	}
	host, port, err := hostPort(listen)
	if err != nil {
		return nil, &RefusedError{"--listen " + err.Error()}
	}
	if !Loopback(host) && o.Token == "" {
		return nil, &RefusedError{"--listen " + listen + " is beyond loopback: set --token (or KMC_NATS_TOKEN) so that only holders of the token can connect"}
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	if o.Data == "" {
		return nil, &RefusedError{"--data: name the node's folder"}
	}
	store, err := filepath.Abs(filepath.Join(o.Data, "jetstream"))
	if err != nil {
		return nil, err
	}
	so := &server.Options{ServerName: o.Name, Host: host, Port: port, JetStream: true, StoreDir: store,
		NoLog: true, Authorization: o.Token}
	if o.ClusterListen != "" {
		ch, cp, err := hostPort(o.ClusterListen)
		if err != nil {
			return nil, &RefusedError{"--cluster-listen " + err.Error()}
		}
		if !Loopback(ch) && o.Token == "" {
			return nil, &RefusedError{"--cluster-listen " + o.ClusterListen + " is beyond loopback: set --token"}
		}
		if cp == 0 {
			cp = server.RANDOM_PORT
		}
		so.Cluster = server.ClusterOpts{Name: "kmc", Host: ch, Port: cp}
		if o.Token != "" {
			so.Cluster.Username, so.Cluster.Password = "kmc", o.Token
		}
	}
	for _, r := range o.Routes {
		u, err := url.Parse(r)
		if err != nil || u.Host == "" {
			return nil, &RefusedError{fmt.Sprintf("--routes %q: want nats://host:port", r)}
		}
		if o.Token != "" && u.User == nil {
			u.User = url.UserPassword("kmc", o.Token)
		}
		so.Routes = append(so.Routes, u)
	}
	if len(so.Routes) > 0 && o.ClusterListen == "" {
		return nil, &RefusedError{"--routes needs --cluster-listen, the port the other nodes route to"}
	}
	return so, nil
}

// startMsg gives a node its part of a run.
type startMsg struct {
	Run      string   `json:"run"`
	Part     int      `json:"part"`
	Parts    int      `json:"parts"`
	Version  string   `json:"version"`
	SpecPath string   `json:"spec_path"`
	Spec     []byte   `json:"spec"`
	SpecSHA  string   `json:"spec_sha256"`
	Sets     []string `json:"sets"`
	Check    string   `json:"check"`
	Opts     runOpts  `json:"opts"`
	// Neighbour, when set, is the check's robustness neighbour to search (kmc suite).
	Neighbour *specs.Neighbour `json:"neighbour,omitempty"`
}

// runOpts are the options of a search that shape its result, as the coordinator resolved
// them.
type runOpts struct {
	MaxStates int64 `json:"max_states"`
	MaxDepth  int   `json:"max_depth"`
	Deadlock  bool  `json:"deadlock"`
	Symmetry  bool  `json:"symmetry"`
	Coverage  bool  `json:"coverage"`
	Vacuity   bool  `json:"vacuity"`
	POR       bool  `json:"por"` // false: the coordinator refuses a search under the reduction
}

func optsOf(o checker.Options) runOpts {
	return runOpts{MaxStates: o.MaxStates, MaxDepth: o.MaxDepth, Deadlock: o.Deadlock, Symmetry: o.Symmetry, Coverage: o.Coverage, Vacuity: o.Vacuity, POR: o.POR}
}

func (r runOpts) apply(o *checker.Options) {
	o.MaxStates, o.MaxDepth, o.Deadlock, o.Symmetry, o.Coverage, o.Vacuity, o.POR = r.MaxStates, r.MaxDepth, r.Deadlock, r.Symmetry, r.Coverage, r.Vacuity, r.POR
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// reply answers a request: status byte 0 and data, or 1 and the error.
func reply(m *nats.Msg, data []byte, err error) {
	if err != nil {
		_ = m.Respond(append([]byte{1}, err.Error()...))
		return
	}
	_ = m.Respond(append([]byte{0}, data...))
}

// RunNode runs a node until ctx ends: an embedded NATS server (JetStream on, clustered with
// the other nodes by routes) and a worker that takes one part of a run at a time.
func RunNode(ctx context.Context, o NodeOptions) error {
	if o.Log == nil {
		o.Log = io.Discard
	}
	so, err := nodeServerOptions(&o)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.Data, 0o755); err != nil {
		return fmt.Errorf("--data: %w", err)
	}
	ns, err := startServer(so)
	if err != nil {
		return err
	}
	defer ns.Shutdown()
	id := o.Name
	if id == "" {
		id = "node-" + strings.NewReplacer(".", "-", ":", "-", "[", "", "]", "").Replace(ns.Addr().String())
	}
	opts := []nats.Option{nats.InProcessServer(ns), nats.Name("kmc " + id)}
	if o.Token != "" {
		opts = append(opts, nats.Token(o.Token))
	}
	nc, err := nats.Connect("", opts...)
	if err != nil {
		return fmt.Errorf("connect to the node's server: %w", err)
	}
	defer nc.Close()
	var (
		mu     sync.Mutex
		run    string
		cancel context.CancelFunc // ends the run's calls under way
		sub    *nats.Subscription
		msgs   atomic.Int64
		byts   atomic.Int64
	)
	// heard is when the coordinator of the run under way last spoke to this node (its start,
	// then the coordinator's pings every watchEvery), in Unix nanoseconds.
	var heard atomic.Int64
	// stop lets the run under way go (mu held).
	stop := func() {
		if sub != nil {
			_ = sub.Unsubscribe()
		}
		cancel()
		run, sub = "", nil
	}
	hello, _ := json.Marshal(map[string]string{"id": id, "version": checkpoint.Version()})
	if _, err := nc.Subscribe(helloSubject, func(m *nats.Msg) { _ = m.Respond(hello) }); err != nil {
		return err
	}
	start := func(m *nats.Msg) error {
		var s startMsg
		if err := json.Unmarshal(m.Data, &s); err != nil {
			return fmt.Errorf("node %s: a malformed run: %w", id, err)
		}
		r, copts, c, err := s.build(id)
		if err != nil {
			return err
		}
		s.Opts.apply(&copts)
		copts.Workers = o.Workers
		if why := checker.PartitionRefusal(r, copts); why != "" {
			return fmt.Errorf("node %s: %s", id, why)
		}
		mu.Lock()
		defer mu.Unlock()
		if run != "" {
			return fmt.Errorf("node %s is busy with run %s", id, run)
		}
		prefix := "kmc." + s.Run
		rctx, rcancel := context.WithCancel(ctx)
		p, err := r.(checker.Partitioner).NewPart(copts, s.Parts, s.Part, &transport{nc: nc, prefix: prefix, msgs: &msgs, bytes: &byts, ctx: rctx, timeout: peerTimeout})
		if err != nil {
			rcancel()
			return fmt.Errorf("node %s: %w", id, err)
		}
		cancel = rcancel
		if sub, err = serve(nc, partSubject(prefix, s.Part), p); err != nil {
			return err
		}
		if err := nc.Flush(); err != nil {
			return err
		}
		run = s.Run
		heard.Store(time.Now().UnixNano())
		msgs.Store(0)
		byts.Store(0)
		fmt.Fprintf(o.Log, "kmc node %s: run %s: part %d of %d, %s check %s\n", id, s.Run, s.Part, s.Parts, s.SpecPath, c.Name)
		return nil
	}
	if _, err := nc.Subscribe(nodePrefix+id+".await", func(m *nats.Msg) {
		go func() {
			run, n, _ := strings.Cut(string(m.Data), " ")
			parts, err := strconv.Atoi(n)
			if err == nil {
				err = awaitParts(nc, "kmc."+run, parts)
			}
			reply(m, nil, err)
		}()
	}); err != nil {
		return err
	}
	simulate := func(m *nats.Msg) error {
		var s simStart
		if err := json.Unmarshal(m.Data, &s); err != nil {
			return fmt.Errorf("node %s: a malformed swarm: %w", id, err)
		}
		r, copts, c, err := s.build(id)
		if err != nil {
			return err
		}
		if _, ok := r.(checker.SimBlocker); !ok {
			return fmt.Errorf("node %s: this model cannot take walks in blocks", id)
		}
		so := checker.SimOptions{Seed: s.Seed, Depth: s.Depth, Deadlock: s.Deadlock, Bias: s.Bias, Workers: o.Workers,
			FairnessOverride: copts.FairnessOverride}
		mu.Lock()
		defer mu.Unlock()
		if run != "" {
			return fmt.Errorf("node %s is busy with run %s", id, run)
		}
		rctx, rcancel := context.WithCancel(ctx)
		run, cancel, sub = s.Run, rcancel, nil
		fmt.Fprintf(o.Log, "kmc node %s: swarm %s: walks of %s check %s\n", id, s.Run, s.SpecPath, c.Name)
		go walkBlocks(rctx, nc, r.(checker.SimBlocker), s, so, o.Log, id)
		return nil
	}
	if _, err := nc.Subscribe(nodePrefix+id+".simulate", func(m *nats.Msg) { reply(m, nil, simulate(m)) }); err != nil {
		return err
	}
	if _, err := nc.Subscribe(nodePrefix+id+".ping", func(m *nats.Msg) { heard.Store(time.Now().UnixNano()); _ = m.Respond(nil) }); err != nil {
		return err
	}
	if _, err := nc.Subscribe(nodePrefix+id+".start", func(m *nats.Msg) { reply(m, nil, start(m)) }); err != nil {
		return err
	}
	if _, err := nc.Subscribe(nodePrefix+id+".end", func(m *nats.Msg) {
		mu.Lock()
		defer mu.Unlock()
		var w []byte
		if run == string(m.Data) {
			fmt.Fprintf(o.Log, "kmc node %s: run %s ended\n", id, run)
			stop()
			w, _ = json.Marshal(Wire{Messages: msgs.Swap(0), Bytes: byts.Swap(0)})
		}
		reply(m, w, nil)
	}); err != nil {
		return err
	}
	if err := nc.Flush(); err != nil {
		return err
	}
	// A node cut off from its coordinator (its link down, the others going on without it
	// from a checkpoint, in a later epoch) hears no ping: it lets its part go, so that it
	// takes the next run once it is reachable again, and nothing it still holds answers
	// on the subjects of the attempt given up.
	go func() {
		t := time.NewTicker(watchEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			mu.Lock()
			if run != "" && sub != nil && time.Since(time.Unix(0, heard.Load())) > droppedAfter {
				fmt.Fprintf(o.Log, "kmc node %s: run %s: no word from its coordinator in %s: dropped from the run, its part ends\n", id, run, droppedAfter)
				stop()
			}
			mu.Unlock()
		}
	}()
	u := ns.ClientURL()
	fmt.Fprintf(o.Log, "kmc node %s: listening on %s (JetStream store %s)\n", id, u, so.StoreDir)
	if o.Ready != nil {
		o.Ready(u)
	}
	<-ctx.Done()
	return nil
}

// ClusterRun is a search run across nodes: where they are and what to check.
type ClusterRun struct {
	URL   string // a node's (or any NATS server of the nodes') client URL
	Token string
	Nodes int // parts: this many nodes (0: every node that answers within Wait)
	// Wait is how long to look for the nodes (0: 10s for Nodes, 2s to take all that answer).
	Wait time.Duration
	// The spec as the coordinator loaded it: path, text, --set values, and the check.
	SpecPath string
	Spec     []byte
	Sets     []string
	Check    string
	// Neighbour, when set, is the check's robustness neighbour to search.
	Neighbour *specs.Neighbour
	// Log, when set, hears of a node lost and the search rolled back.
	Log io.Writer
	// RollbackEvery is how often to take a level checkpoint to roll back to when a node is
	// lost (0: DefaultRollbackEvery; negative: at every level).
	RollbackEvery time.Duration
	// Observe, when set, hears of each level.
	Observe Observer
}

// CheckCluster runs r's search with opts across the nodes cr names, as their coordinator:
// each node builds the check from the spec's text and takes one part.
func CheckCluster(r checker.Runnable, opts checker.Options, cr ClusterRun) (checker.Result, Wire, error) {
	if why := checker.PartitionRefusal(r, opts); why != "" {
		return checker.Result{}, Wire{}, &RefusedError{why}
	}
	if cr.Nodes < 0 || cr.Nodes > maxParts {
		return checker.Result{}, Wire{}, &RefusedError{fmt.Sprintf("--nodes must be 0 to %d (got %d)", maxParts, cr.Nodes)}
	}
	copts := []nats.Option{nats.Name("kmc check coordinator")}
	if cr.Token != "" {
		copts = append(copts, nats.Token(cr.Token))
	}
	nc, err := nats.Connect(cr.URL, copts...)
	if err != nil {
		return checker.Result{}, Wire{}, fmt.Errorf("--cluster %s: %w", cr.URL, err)
	}
	defer nc.Close()
	ids, err := findNodes(nc, cr.Nodes, cr.Wait)
	if err != nil {
		return checker.Result{}, Wire{}, fmt.Errorf("--cluster %s: %w", cr.URL, err)
	}
	// The run's attempts are its epochs: each has subjects of its own (kmc.<run>.e<epoch>),
	// so that no message of an attempt given up reaches the next.
	run := runID()
	rb := newRollback(nc, run, len(ids), cr.RollbackEvery, cr.Log)
	defer rb.close()
	if opts.Resume != nil {
		rb.store(opts.Resume) // a node lost before the first level checkpoint rolls back to it
	}
	opts = rb.wrap(opts)
	var total Wire
	for epoch := 1; ; epoch++ {
		res, wire, lost, err := runCluster(nc, run+".e"+strconv.Itoa(epoch), ids, r, opts, cr)
		total.Messages += wire.Messages
		total.Bytes += wire.Bytes
		if err != nil || lost == nil || len(ids) == 1 {
			return res, total, err
		}
		// A node was lost: the search goes on with the nodes left from the last level
		// checkpoint (or starts over), which gives the same result: it is a deterministic
		// function of the checkpoint, whatever the number of parts.
		left, ferr := findNodes(nc, 0, 0)
		if ferr != nil {
			return res, total, nil
		}
		opts.Resume = nil
		from := "starting the search over"
		if s, err := rb.load(); err != nil {
			from += " (" + err.Error() + ")"
		} else if s != nil {
			opts.Resume = s
			from = fmt.Sprintf("rolling back to the level checkpoint at level %d (%d distinct states)", s.Depth, s.Distinct)
		}
		if cr.Log != nil {
			fmt.Fprintf(cr.Log, "kmc: %v: %s with %d nodes\n", lost, from, len(left))
		}
		ids = left
	}
}

// runCluster runs one attempt of a search across nodes ids. lost, when not nil, says which
// node was lost and made the attempt fail.
func runCluster(nc *nats.Conn, run string, ids []string, r checker.Runnable, opts checker.Options, cr ClusterRun) (checker.Result, Wire, error, error) {
	s := startMsg{Run: run, Parts: len(ids), Version: checkpoint.Version(), SpecPath: cr.SpecPath, Spec: cr.Spec,
		SpecSHA: sha(cr.Spec), Sets: cr.Sets, Check: cr.Check, Opts: optsOf(opts), Neighbour: cr.Neighbour}
	var started []string
	var msgs, byts atomic.Int64
	// end lets the nodes go and adds what they sent each other to the coordinator's count.
	end := func() {
		for _, id := range started {
			m, err := nc.Request(nodePrefix+id+".end", []byte(run), 5*time.Second)
			var w Wire
			if err == nil && len(m.Data) > 1 && m.Data[0] == 0 && json.Unmarshal(m.Data[1:], &w) == nil {
				msgs.Add(w.Messages)
				byts.Add(w.Bytes)
			}
		}
		started = nil
	}
	defer end()
	// gone says that node id, which did not answer, is lost (it does not answer a ping
	// either), or nil.
	gone := func(i int, id string, err error) error {
		if _, perr := nc.Request(nodePrefix+id+".ping", nil, 2*watchEvery); perr != nil {
			return fmt.Errorf("node %s (part %d) is lost: %w", id, i, err)
		}
		return nil
	}
	for i, id := range ids {
		s.Part = i
		b, _ := json.Marshal(s)
		m, err := nc.Request(nodePrefix+id+".start", b, time.Minute)
		if err != nil {
			if lost := gone(i, id, err); lost != nil {
				return checker.Result{}, Wire{}, lost, nil
			}
			return checker.Result{}, Wire{}, nil, fmt.Errorf("start part %d on node %s: %w", i, id, err)
		}
		if len(m.Data) == 0 || m.Data[0] != 0 {
			return checker.Result{}, Wire{}, nil, errors.New(string(m.Data[min(1, len(m.Data)):]))
		}
		started = append(started, id)
	}
	// Every node, and this coordinator, must see every part's subscription before the
	// search starts: interest crosses the nodes' routes asynchronously.
	for _, id := range ids {
		m, err := nc.Request(nodePrefix+id+".await", []byte(run+" "+strconv.Itoa(len(ids))), time.Minute)
		if err == nil && (len(m.Data) == 0 || m.Data[0] != 0) {
			err = errors.New(string(m.Data[min(1, len(m.Data)):]))
		}
		if err != nil {
			for i, id := range ids {
				if lost := gone(i, id, err); lost != nil {
					return checker.Result{}, Wire{}, lost, nil
				}
			}
			return checker.Result{}, Wire{}, nil, fmt.Errorf("node %s: %w", id, err)
		}
	}
	if err := awaitParts(nc, "kmc."+run, len(ids)); err != nil {
		for i, id := range ids {
			if lost := gone(i, id, err); lost != nil {
				return checker.Result{}, Wire{}, lost, nil
			}
		}
		return checker.Result{}, Wire{}, nil, err
	}
	ctx, lost := context.WithCancelCause(context.Background())
	defer lost(nil)
	go watch(ctx, nc, ids, lost)
	res := r.(checker.Partitioner).CheckPartitioned(opts, len(ids), &transport{nc: nc, prefix: "kmc." + run, msgs: &msgs, bytes: &byts, ctx: ctx, observe: cr.Observe})
	end()
	var lostErr error
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		lostErr = cause
	} else if res.Verdict == checker.Incomplete && strings.HasPrefix(res.Reason, "partitioned search:") {
		// A part's call failed before the watch noticed: is a node gone?
		for i, id := range ids {
			if _, err := nc.Request(nodePrefix+id+".ping", nil, 2*watchEvery); err != nil {
				if _, err = nc.Request(nodePrefix+id+".ping", nil, 2*watchEvery); err != nil {
					lostErr = fmt.Errorf("node %s (part %d) is lost: %w", id, i, err)
					break
				}
			}
		}
	}
	return res, Wire{Messages: msgs.Load(), Bytes: byts.Load()}, lostErr, nil
}

// findNodes asks the nodes for their ids until n answer (n = 0: those that answer within
// wait), and returns them sorted.
func findNodes(nc *nats.Conn, n int, wait time.Duration) ([]string, error) {
	if wait <= 0 {
		wait = 10 * time.Second
		if n == 0 {
			wait = 2 * time.Second // every node answers within a round or two
		}
	}
	inbox := nats.NewInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		return nil, err
	}
	defer func() { _ = sub.Unsubscribe() }()
	seen := map[string]bool{}
	var other []string
	deadline := time.Now().Add(wait)
	for {
		if err := nc.PublishRequest(helloSubject, inbox, nil); err != nil {
			return nil, err
		}
		round := time.Now().Add(500 * time.Millisecond)
		for time.Now().Before(round) {
			m, err := sub.NextMsg(time.Until(round))
			if err != nil {
				break
			}
			var h struct{ ID, Version string }
			if json.Unmarshal(m.Data, &h) != nil || h.ID == "" {
				continue
			}
			if h.Version != checkpoint.Version() {
				if !slices.Contains(other, h.ID) {
					other = append(other, h.ID)
				}
				continue
			}
			seen[h.ID] = true
		}
		if (n > 0 && len(seen) >= n) || time.Now().After(deadline) {
			break
		}
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	switch {
	case n > 0 && len(ids) < n:
		msg := fmt.Sprintf("found %d nodes of this kmc build in %s, --nodes %d", len(ids), wait, n)
		if len(other) > 0 {
			msg += " (nodes of another kmc build, left out: " + strings.Join(other, ", ") + ")"
		}
		return nil, errors.New(msg)
	case len(ids) == 0:
		return nil, fmt.Errorf("found no kmc node in %s", wait)
	case n > 0:
		ids = ids[:n]
	}
	return ids, nil
}

// droppedAfter is how long a node with a part of a search waits without a ping from the
// run's coordinator (which pings every watchEvery) before it takes itself to be dropped and
// lets the part go.
var droppedAfter = 30 * time.Second

// watchEvery is how often the coordinator asks each node whether it is there; a node that
// does not answer twice in a row is lost, and the run is given up.
var watchEvery = time.Second

// watch pings the nodes until ctx ends, and ends it with the lost node's name as cause.
func watch(ctx context.Context, nc *nats.Conn, ids []string, lost context.CancelCauseFunc) {
	missed := make([]int, len(ids))
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for i, id := range ids {
			if _, err := nc.Request(nodePrefix+id+".ping", nil, 2*watchEvery); err != nil {
				missed[i]++
				if missed[i] >= 2 {
					lost(fmt.Errorf("node %s (part %d) is lost: %w", id, i, err))
					return
				}
				continue
			}
			missed[i] = 0
		}
	}
}

// awaitParts waits until each of a run's parts answers on its subject through nc's server
// (a message of kind 0, which a part refuses: any answer will do).
func awaitParts(nc *nats.Conn, prefix string, parts int) error {
	deadline := time.Now().Add(30 * time.Second)
	for i := range parts {
		for {
			_, err := nc.Request(partSubject(prefix, i), []byte{0}, 2*time.Second)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("part %d does not answer: %w", i, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return nil
}

// build checks that a run comes from this kmc build with its spec intact, and builds its
// check from the spec's text.
func (s *startMsg) build(id string) (checker.Runnable, checker.Options, *specs.Check, error) {
	if s.Version != checkpoint.Version() {
		return nil, checker.Options{}, nil, fmt.Errorf("node %s refuses run %s: it comes from another kmc build (%s; this node is %s)", id, s.Run, s.Version, checkpoint.Version())
	}
	if sha(s.Spec) != s.SpecSHA {
		return nil, checker.Options{}, nil, fmt.Errorf("node %s refuses run %s: the spec's SHA-256 is not %s", id, s.Run, s.SpecSHA)
	}
	spec, err := specs.ParseCheck(s.SpecPath, s.Spec, s.Sets, s.Check)
	if err != nil {
		return nil, checker.Options{}, nil, fmt.Errorf("node %s: %w", id, err)
	}
	c, err := app.PickCheck(spec, s.Check)
	if err != nil {
		return nil, checker.Options{}, nil, fmt.Errorf("node %s: %w", id, err)
	}
	var r checker.Runnable
	var opts checker.Options
	if s.Neighbour != nil {
		r, opts, err = spec.NeighbourRunnable(c, *s.Neighbour)
	} else {
		r, opts, err = spec.Runnable(c)
	}
	if err != nil {
		return nil, checker.Options{}, nil, fmt.Errorf("node %s: %w", id, err)
	}
	return r, opts, c, nil
}

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
	"github.com/nats-io/nats.go/jetstream"

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

	hooks leaseHooks // tests' hooks into the node's leases
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
		// The node's id names its server, and its server's tag places the assets of the runs
		// it coordinates (leases.go): both must be known before the server starts.
		l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, fmt.Errorf("--listen %s: %w", listen, err)
		}
		port = l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
	}
	if o.Name == "" {
		o.Name = "node-" + strings.NewReplacer(".", "-", ":", "-", "[", "", "]", "").Replace(net.JoinHostPort(host, strconv.Itoa(port)))
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
	so.Tags = append(so.Tags, nodeTag(o.Name))
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
	// A search's epoch (0 for a swarm): the plan of run Plan must be at Epoch and name this
	// node at Part; the node holds a lease on the epoch in bucket Leases, of LeaseTTL.
	Plan     string        `json:"plan,omitempty"`
	Epoch    int           `json:"epoch,omitempty"`
	Leases   string        `json:"leases,omitempty"`
	LeaseTTL time.Duration `json:"lease_ttl,omitempty"`
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
	opts := []nats.Option{nats.InProcessServer(ns), nats.Name("kmc " + id)}
	if o.Token != "" {
		opts = append(opts, nats.Token(o.Token))
	}
	nc, err := nats.Connect("", opts...)
	if err != nil {
		return fmt.Errorf("connect to the node's server: %w", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	var (
		mu       sync.Mutex
		run      string
		runPlan  string // the plan of the run's part (a search's), and its epoch
		runEpoch int
		cancel   context.CancelFunc // ends the run's calls under way
		sub      *nats.Subscription
		held     *lease       // the lease on the part's epoch
		fenced   *atomic.Bool // set when the part's epoch is over: its messages are refused
		msgs     atomic.Int64
		byts     atomic.Int64
		graph    atomic.Int64
	)
	// leave lets the part of run r go (under mu): no more messages, calls or renewals.
	leave := func(r, why string) bool {
		if run != r {
			return false
		}
		if sub != nil {
			_ = sub.Unsubscribe()
		}
		if fenced != nil {
			fenced.Store(true)
		}
		held.end()
		cancel()
		fmt.Fprintf(o.Log, "kmc node %s: run %s %s\n", id, run, why)
		run, sub, held, fenced = "", nil, nil, nil
		return true
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
		// A search's part: the plan must be at this epoch and give this node this part (a
		// start from a coordinator whose epoch is over is refused), and the node takes its
		// lease first, before the work of building the check, so that a node lost while it
		// starts is seen as one whose lease expired.
		var l *lease
		var early atomic.Pointer[string] // why the lease was lost before the part began
		if s.Epoch > 0 {
			if s.LeaseTTL < time.Second || s.LeaseTTL%time.Second != 0 {
				return fmt.Errorf("node %s refuses epoch %d of run %s: a lease of %s (want whole seconds)", id, s.Epoch, s.Plan, s.LeaseTTL)
			}
			// A replica may answer the read before it has the coordinator's last write: the
			// plan's epochs only grow, so an earlier one is read again, for a while.
			var p plan
			var pkv jetstream.KeyValue
			var err error
			for deadline := time.Now().Add(jsPatience); ; time.Sleep(100 * time.Millisecond) {
				p, pkv, err = readPlan(ctx, js, s.Plan)
				if err != nil || p.Epoch >= s.Epoch || time.Now().After(deadline) {
					break
				}
			}
			if err == nil && (p.Epoch != s.Epoch || s.Part >= len(p.Members) || p.Members[s.Part] != id || p.Leases != s.Leases) {
				err = fmt.Errorf("the plan is at epoch %d (coordinator %s), members %v", p.Epoch, p.Coordinator, p.Members)
			}
			if err != nil {
				return fmt.Errorf("node %s refuses epoch %d of run %s: %w", id, s.Epoch, s.Plan, err)
			}
			check := func(c context.Context) error {
				e, err := pkv.Get(c, "plan")
				if err != nil {
					return nil // not known: the lease decides
				}
				var now plan
				if json.Unmarshal(e.Value(), &now) == nil && now.Epoch > s.Epoch { // a lagging replica may show an earlier one
					return fmt.Errorf("left: the plan moved to epoch %d", now.Epoch)
				}
				return nil
			}
			r := s.Run
			l, err = takeLease(ctx, js, s.Leases, id, s.Epoch, s.LeaseTTL, o.hooks, check, func(why string) {
				mu.Lock()
				defer mu.Unlock()
				if !leave(r, why) {
					early.Store(&why)
				}
			})
			if err != nil {
				return fmt.Errorf("node %s: %w", id, err)
			}
		}
		began := false
		defer func() {
			if !began {
				l.end()
			}
		}()
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
			// A part of an earlier epoch of the same run is over: the plan has moved on
			// (a node whose lease expired while it was alive, and that has not seen it yet).
			if s.Epoch == 0 || runPlan != s.Plan || runEpoch >= s.Epoch {
				return fmt.Errorf("node %s is busy with run %s", id, run)
			}
			leave(run, fmt.Sprintf("left: epoch %d of its run began", s.Epoch))
		}
		prefix := "kmc." + s.Run
		rctx, rcancel := context.WithCancel(ctx)
		fence := new(atomic.Bool)
		p, err := r.(checker.Partitioner).NewPart(copts, s.Parts, s.Part, &transport{nc: nc, prefix: prefix, msgs: &msgs, bytes: &byts, graph: &graph, ctx: rctx, timeout: peerTimeout})
		if err != nil {
			rcancel()
			return fmt.Errorf("node %s: %w", id, err)
		}
		cancel, held, fenced = rcancel, l, fence
		if sub, err = serve(nc, partSubject(prefix, s.Part), p, fence); err != nil {
			return err
		}
		if err := nc.Flush(); err != nil {
			return err
		}
		run, runPlan, runEpoch = s.Run, s.Plan, s.Epoch
		began = true
		msgs.Store(0)
		byts.Store(0)
		graph.Store(0)
		fmt.Fprintf(o.Log, "kmc node %s: run %s: part %d of %d, %s check %s\n", id, s.Run, s.Part, s.Parts, s.SpecPath, c.Name)
		if why := early.Load(); why != nil {
			leave(run, *why)
		}
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
		run, runPlan, runEpoch, cancel, sub = s.Run, "", 0, rcancel, nil
		fmt.Fprintf(o.Log, "kmc node %s: swarm %s: walks of %s check %s\n", id, s.Run, s.SpecPath, c.Name)
		go walkBlocks(rctx, nc, r.(checker.SimBlocker), s, so, o.Log, id)
		return nil
	}
	if _, err := nc.Subscribe(nodePrefix+id+".simulate", func(m *nats.Msg) { reply(m, nil, simulate(m)) }); err != nil {
		return err
	}
	if _, err := nc.Subscribe(nodePrefix+id+".start", func(m *nats.Msg) { reply(m, nil, start(m)) }); err != nil {
		return err
	}
	if _, err := nc.Subscribe(nodePrefix+id+".end", func(m *nats.Msg) {
		mu.Lock()
		defer mu.Unlock()
		var w []byte
		if leave(string(m.Data), "ended") {
			w, _ = json.Marshal(Wire{Messages: msgs.Swap(0), Bytes: byts.Swap(0), Graph: graph.Swap(0)})
		}
		reply(m, w, nil)
	}); err != nil {
		return err
	}
	if err := nc.Flush(); err != nil {
		return err
	}
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
	// ResumeRun, when set, is the id of a run whose coordinator stopped: this one takes it
	// over from its plan and its last level checkpoint in JetStream (resume.go). NameRun
	// says the run's id on Log when it begins, for that.
	ResumeRun string
	NameRun   bool
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
	co := &coordinator{cr: cr, run: runID(), id: runID()}
	if cr.ResumeRun != "" {
		co.run = cr.ResumeRun
	}
	copts := []nats.Option{nats.Name("kmc check coordinator"), nats.DisconnectErrHandler(co.disconnected)}
	if cr.Token != "" {
		copts = append(copts, nats.Token(cr.Token))
	}
	nc, err := nats.Connect(cr.URL, copts...)
	if err != nil {
		return checker.Result{}, Wire{}, fmt.Errorf("--cluster %s: %w", cr.URL, err)
	}
	defer nc.Close()
	co.nc = nc
	ids, short, err := findNodes(nc, cr.Nodes, cr.Wait)
	if err != nil {
		return checker.Result{}, Wire{}, fmt.Errorf("--cluster %s: %w", cr.URL, err)
	}
	if short != "" && cr.Log != nil {
		fmt.Fprintf(cr.Log, "kmc: %s\n", short)
	}
	if co.js, err = jetstream.New(nc); err != nil {
		return checker.Result{}, Wire{}, err
	}
	ctx := context.Background()
	// The plan's bucket is made while the first epoch's lease bucket is (begin waits for it):
	// each is a JetStream asset of its own, a few hundred milliseconds on a loaded machine.
	// A search on one node has neither: there is no one to go on with if it is lost, and a
	// node clustered with no other has no JetStream (its meta group never elects a leader).
	co.single = len(ids) == 1 && cr.ResumeRun == ""
	first := 1 // the first epoch
	if cr.ResumeRun != "" {
		if first, err = co.resumeRun(ctx, &opts, metaOf(cr, opts)); err != nil {
			return checker.Result{}, Wire{}, err
		}
		for _, f := range removeLeftRollbacks(co.run) {
			if cr.Log != nil {
				fmt.Fprintf(cr.Log, "kmc: removed %s, the rollback file of an earlier coordinator of run %s\n", f, co.run)
			}
		}
	} else if !co.single {
		planMade := make(chan error, 1)
		go func() {
			var err error
			co.plan, err = openPlan(ctx, co.js, co.run, min(len(ids), 3))
			if err == nil {
				err = co.plan.writeMeta(ctx, metaOf(cr, opts))
			}
			planMade <- err
		}()
		co.planMade = planMade
		if cr.Log != nil && cr.NameRun {
			fmt.Fprintf(cr.Log, "kmc: run %s across %d nodes (were this process to stop, another goes on with it: --resume-run %s)\n", co.run, len(ids), co.run)
		}
	}
	defer co.close()
	// The run's attempts are its epochs: each has subjects of its own (kmc.<run>.e<epoch>),
	// so that no message of an attempt given up reaches the next.
	rb := newRollback(nc, co.run, len(ids), cr.RollbackEvery, cr.Log)
	defer rb.close()
	if opts.Resume != nil {
		rb.store(opts.Resume) // a node lost before the first level checkpoint rolls back to it
	}
	opts = rb.wrap(opts)
	var total Wire
	for epoch := first; ; epoch++ {
		if err := co.begin(ctx, epoch, ids, opts.Resume, rb); err != nil {
			return checker.Result{}, total, err
		}
		res, wire, lost, err := co.runEpoch(epoch, ids, r, opts)
		total.Messages += wire.Messages
		total.Bytes += wire.Bytes
		total.Graph += wire.Graph
		if serr := co.superseded(ctx, epoch, res, lost); serr != nil {
			return checker.Result{}, total, serr // fenced: another coordinator took the run over
		}
		if err != nil || lost == nil || len(ids) == 1 {
			return res, total, err
		}
		// A node was lost: the search goes on with the nodes left from the last level
		// checkpoint (or starts over), which gives the same result: it is a deterministic
		// function of the checkpoint, whatever the number of parts.
		if cr.Log != nil {
			fmt.Fprintf(cr.Log, "kmc: %v\n", lost)
		}
		left, _, ferr := findNodes(nc, 0, 0)
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
			fmt.Fprintf(cr.Log, "kmc: epoch %d: %s with %d nodes\n", epoch+1, from, len(left))
		}
		ids = left
	}
}

// coordinator is the state of kmc check --cluster across its epochs: the run's plan, its
// lease bucket and the watch of it.
type coordinator struct {
	cr       ClusterRun
	run      string // the run's id
	id       string // this coordinator's id, in the plan
	nc       *nats.Conn
	js       jetstream.JetStream
	plan     *planStore
	planMade chan error // the plan's bucket is made (nil: known)
	single   bool       // a search on one node: no plan, no leases
	gen      int        // lease buckets made
	bucket   string
	server   string // the node whose server holds the lease bucket ("": not a node)
	leases   jetstream.KeyValue
	watch    *leaseWatch
	buckets  []string

	mu      sync.Mutex
	lost    context.CancelCauseFunc // ends the epoch under way
	dropped bool                    // the connection to the lease bucket's server broke
	members []string
}

// disconnected is the coordinator's connection's disconnect handler: the server it was
// connected to is gone or cut off, and with it the lease bucket placed there, so the node of
// that server counts as lost.
func (co *coordinator) disconnected(nc *nats.Conn, err error) {
	co.mu.Lock()
	defer co.mu.Unlock()
	co.dropped = true
	if co.lost == nil {
		return
	}
	part := slices.Index(co.members, co.server)
	why := fmt.Sprintf("this coordinator's connection to it broke (%v)", err)
	if part < 0 {
		co.lost(fmt.Errorf("the NATS server this coordinator was connected to is gone (%v)", err))
		return
	}
	co.lost(&lostError{id: co.server, part: part, why: why})
}

// begin makes epoch's plan: its members ids, the checkpoint it resumes from, and a lease
// bucket (a new one on the server the coordinator is connected to now if the one before was
// on a server since lost). A plan refused (another coordinator wrote it) is a
// *StalePlanError: the coordinator stops.
func (co *coordinator) begin(ctx context.Context, epoch int, ids []string, resume *checker.Snapshot, rb *rollback) error {
	if co.single {
		return nil
	}
	co.mu.Lock()
	renew := co.leases == nil || co.dropped
	co.dropped = false
	co.mu.Unlock()
	if renew {
		if co.watch != nil {
			co.watch.stop()
		}
		co.gen++
		co.bucket = leaseBucket(co.run, co.gen)
		co.server = co.nc.ConnectedServerName()
		tag := ""
		if slices.Contains(ids, co.server) {
			tag = nodeTag(co.server)
		}
		var err error
		if co.leases, err = openLeases(ctx, co.js, co.bucket, tag); err != nil {
			return err
		}
		co.buckets = append(co.buckets, co.bucket)
		if co.watch, err = newLeaseWatch(ctx, co.leases); err != nil {
			return err
		}
	}
	if co.planMade != nil {
		err := <-co.planMade
		co.planMade = nil
		if err != nil {
			return fmt.Errorf("--cluster %s: %w (the nodes' NATS needs JetStream)", co.cr.URL, err)
		}
	}
	p := plan{Run: co.run, Epoch: epoch, Coordinator: co.id, Members: ids, Leases: co.bucket}
	if resume != nil {
		p.Depth, p.Distinct = resume.Depth, resume.Distinct
		p.Object = rb.object(resume.Depth)
	}
	return co.plan.write(ctx, p)
}

// close deletes the run's plan and lease buckets.
func (co *coordinator) close() {
	if co.watch != nil {
		co.watch.stop()
	}
	if co.planMade != nil {
		<-co.planMade
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	buckets := co.buckets
	if !co.single {
		buckets = append(buckets, planBucket(co.run))
	}
	var wg sync.WaitGroup
	for _, b := range buckets {
		wg.Go(func() { _ = co.js.DeleteKeyValue(ctx, b) })
	}
	wg.Wait()
}

// runEpoch runs one epoch of a search across nodes ids. lost, when not nil, says which node
// was lost and made the epoch fail.
func (co *coordinator) runEpoch(epoch int, ids []string, r checker.Runnable, opts checker.Options) (checker.Result, Wire, error, error) {
	nc, cr := co.nc, co.cr
	run := co.run + ".e" + strconv.Itoa(epoch)
	s := startMsg{Run: run, Parts: len(ids), Version: checkpoint.Version(), SpecPath: cr.SpecPath, Spec: cr.Spec,
		SpecSHA: sha(cr.Spec), Sets: cr.Sets, Check: cr.Check, Opts: optsOf(opts), Neighbour: cr.Neighbour,
		Plan: co.run, Epoch: epoch, Leases: co.bucket, LeaseTTL: leaseTTL}
	if co.single {
		s.Plan, s.Epoch, s.Leases, s.LeaseTTL = "", 0, "", 0
	}
	ctx, lost := context.WithCancelCause(context.Background())
	defer lost(nil)
	if !co.single {
		co.watch.watch(epoch, ids, lost)
	}
	co.mu.Lock()
	co.lost, co.members = lost, ids
	co.mu.Unlock()
	defer func() {
		co.mu.Lock()
		co.lost = nil
		co.mu.Unlock()
	}()
	var started []string
	var msgs, byts, graph atomic.Int64
	// end lets the nodes go and adds what they sent each other to the coordinator's count.
	end := func() {
		var le *lostError
		errors.As(context.Cause(ctx), &le)
		for _, id := range started {
			if le != nil && le.id == id {
				continue
			}
			m, err := nc.Request(nodePrefix+id+".end", []byte(run), 5*time.Second)
			var w Wire
			if err == nil && len(m.Data) > 1 && m.Data[0] == 0 && json.Unmarshal(m.Data[1:], &w) == nil {
				msgs.Add(w.Messages)
				byts.Add(w.Bytes)
				graph.Add(w.Graph)
			}
		}
		started = nil
	}
	defer end()
	// gone says which node was lost when the epoch failed with err: one whose lease expires
	// (or that never took one) within a lease's TTL; nil if none.
	gone := func(err error) error {
		if co.single {
			if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
				return cause
			}
			return nil
		}
		for i, id := range ids {
			c, cancel := context.WithTimeout(ctx, jsAttempt)
			_, gerr := co.leases.Get(c, leaseKey(id, epoch))
			cancel()
			if errors.Is(gerr, jetstream.ErrKeyNotFound) || errors.Is(gerr, jetstream.ErrKeyDeleted) {
				if !slices.Contains(started, id) {
					return &lostError{id: id, part: i, why: fmt.Sprintf("it took no part (%v)", err)}
				}
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(leaseTTL + 2*time.Second):
		}
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			return cause
		}
		return nil
	}
	for i, id := range ids {
		s.Part = i
		b, _ := json.Marshal(s)
		// A node takes its lease as soon as it has read the plan, before it builds the
		// check: one without a lease a TTL and a second after it was asked is lost.
		sctx, nolease := context.WithCancelCause(ctx)
		go func() {
			if co.single {
				return
			}
			t := time.NewTimer(leaseTTL + time.Second)
			defer t.Stop()
			for {
				select {
				case <-sctx.Done():
					return
				case <-t.C:
				}
				c, cancel := context.WithTimeout(sctx, jsAttempt)
				_, err := co.leases.Get(c, leaseKey(id, epoch))
				cancel()
				if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
					nolease(&lostError{id: id, part: i, why: fmt.Sprintf("it took no lease within %s of its start", leaseTTL+time.Second)})
					return
				}
				t.Reset(time.Second)
			}
		}()
		m, err := nc.RequestWithContext(withTimeout(sctx, time.Minute), nodePrefix+id+".start", b)
		var le *lostError
		if errors.As(context.Cause(sctx), &le) {
			return checker.Result{}, Wire{}, le, nil
		}
		nolease(nil)
		if err != nil {
			if lost := gone(err); lost != nil {
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
		m, err := nc.RequestWithContext(withTimeout(ctx, time.Minute), nodePrefix+id+".await", []byte(run+" "+strconv.Itoa(len(ids))))
		if err == nil && (len(m.Data) == 0 || m.Data[0] != 0) {
			err = errors.New(string(m.Data[min(1, len(m.Data)):]))
		}
		if err != nil {
			if lost := gone(err); lost != nil {
				return checker.Result{}, Wire{}, lost, nil
			}
			return checker.Result{}, Wire{}, nil, fmt.Errorf("node %s: %w", id, err)
		}
	}
	if err := awaitParts(nc, "kmc."+run, len(ids)); err != nil {
		if lost := gone(err); lost != nil {
			return checker.Result{}, Wire{}, lost, nil
		}
		return checker.Result{}, Wire{}, nil, err
	}
	res := r.(checker.Partitioner).CheckPartitioned(opts, len(ids), &transport{nc: nc, prefix: "kmc." + run, msgs: &msgs, bytes: &byts, graph: &graph, ctx: ctx, observe: cr.Observe})
	var lostErr error
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		lostErr = cause
	} else if res.Verdict == checker.Incomplete && strings.HasPrefix(res.Reason, "partitioned search:") {
		// A part's call failed before a lease expired: is a node gone?
		lostErr = gone(errors.New(res.Reason))
	}
	end()
	return res, Wire{Messages: msgs.Load(), Bytes: byts.Load(), Graph: graph.Load()}, lostErr, nil
}

// withTimeout is ctx bounded by d (its cancel runs when ctx or d ends).
func withTimeout(ctx context.Context, d time.Duration) context.Context {
	c, cancel := context.WithTimeout(ctx, d)
	context.AfterFunc(c, cancel)
	return c
}

// findNodes asks the nodes for their ids until n answer (n = 0: those that answer within
// wait), and returns them sorted. When fewer than n answer within wait it returns those that
// did, and short says so: a search gives the same result on any number of nodes, and one
// that stopped just before the run began is one lost just after.
func findNodes(nc *nats.Conn, n int, wait time.Duration) (ids []string, short string, err error) {
	if wait <= 0 {
		wait = 10 * time.Second
		if n == 0 {
			wait = 2 * time.Second // every node answers within a round or two
		}
	}
	inbox := nats.NewInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		return nil, "", err
	}
	defer func() { _ = sub.Unsubscribe() }()
	seen := map[string]bool{}
	var other []string
	deadline := time.Now().Add(wait)
	for {
		if err := nc.PublishRequest(helloSubject, inbox, nil); err != nil {
			return nil, "", err
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
	ids = make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	left := ""
	if len(other) > 0 {
		left = " (nodes of another kmc build, left out: " + strings.Join(other, ", ") + ")"
	}
	switch {
	case len(ids) == 0:
		return nil, "", fmt.Errorf("found no kmc node of this build in %s%s", wait, left)
	case n > 0 && len(ids) < n:
		short = fmt.Sprintf("found %d nodes of this kmc build in %s, --nodes %d%s: going on with %s", len(ids), wait, n, left, strings.Join(ids, ", "))
	case n > 0:
		ids = ids[:n]
	}
	return ids, short, nil
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

// nodeTag is the server tag of node id: a run's leases are placed on the server of the node
// its coordinator is connected to (leases.go).
func nodeTag(id string) string { return "kmc-node:" + strings.ToLower(id) }

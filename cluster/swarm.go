package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"kmc/app/checkpoint"
	"kmc/checker"
)

// A simulation swarm hands out blocks of walk numbers through a JetStream work-queue stream
// (KMCSIM_<run>, subject kmc.<run>.sim.block) with one durable pull consumer that every node
// fetches from: a block a node took and did not acknowledge (it died) is delivered again after
// the ack wait, and taken again with the same walks, since walk k depends on (seed, k) alone.
// Each node sends a block's result to the coordinator (kmc.<run>.sim.result) before it
// acknowledges it; the coordinator keeps one result per block, the lowest violating walk
// (blocks above it are skipped: kmc.<run>.sim.cutoff), sums the counts, takes the longest
// walk and merges the HyperLogLog registers by maximum. So a swarm prints what one process
// prints for the same seed: the verdict, walk and trace always, the statistics when no walk
// violates (at a violation one process counts the walks above it that were under way, too).

// DefaultBlock is the number of walks in a block of a swarm.
const DefaultBlock = 200

// simAckWait is how long a block may stay unacknowledged without a sign of progress before it
// is delivered again; a node running one says it is in progress every third of it.
var simAckWait = 30 * time.Second

type simBlock struct {
	Index int   `json:"index"`
	First int64 `json:"first"`
	Runs  int64 `json:"runs"`
}

type simResultMsg struct {
	Index  int               `json:"index"`
	Result checker.SimResult `json:"result"`
	Regs   []byte            `json:"regs"`
}

// simStart gives a node its part of a swarm.
type simStart struct {
	startMsg
	Seed     uint64        `json:"seed"`
	Depth    int           `json:"depth"`
	Deadlock bool          `json:"deadlock"`
	Bias     checker.Bias  `json:"bias"`
	Stream   string        `json:"stream"`
	AckWait  time.Duration `json:"ack_wait"`
}

func simStream(run string) string { return "KMCSIM_" + run }

// SimulateCluster takes opts.Runs walks of r (from opts.FirstRun) across the nodes cr names,
// in blocks of block walks (0: DefaultBlock), as their coordinator.
func SimulateCluster(r checker.Runnable, opts checker.SimOptions, cr ClusterRun, block int64) (checker.SimResult, error) {
	if _, ok := r.(checker.SimBlocker); !ok {
		return checker.SimResult{}, &RefusedError{"this model cannot take walks in blocks"}
	}
	if opts.Runs <= 0 || opts.Time > 0 {
		return checker.SimResult{}, &RefusedError{"--cluster needs a number of walks (--runs N) and no --time: the swarm's result is then the same as one process's"}
	}
	if block <= 0 {
		block = DefaultBlock
	}
	copts := []nats.Option{nats.Name("kmc simulate coordinator")}
	if cr.Token != "" {
		copts = append(copts, nats.Token(cr.Token))
	}
	nc, err := nats.Connect(cr.URL, copts...)
	if err != nil {
		return checker.SimResult{}, fmt.Errorf("--cluster %s: %w", cr.URL, err)
	}
	defer nc.Close()
	ids, short, err := findNodes(nc, cr.Nodes, cr.Wait)
	if err != nil {
		return checker.SimResult{}, fmt.Errorf("--cluster %s: %w", cr.URL, err)
	}
	if short != "" && cr.Log != nil {
		fmt.Fprintf(cr.Log, "kmc: %s\n", short)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return checker.SimResult{}, err
	}
	run := runID()
	stream := simStream(run)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Replicated on up to three nodes, so that the blocks outlive a node (with one node, or a
	// NATS without a JetStream cluster, one copy).
	replicas := min(len(ids), 3)
	if err := retry(ctx, func() error {
		_, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: stream, Subjects: []string{"kmc." + run + ".sim.block"},
			Retention: jetstream.WorkQueuePolicy, Storage: jetstream.MemoryStorage, Replicas: replicas})
		replicas = fewerReplicas(err, replicas)
		return err
	}); err != nil {
		return checker.SimResult{}, fmt.Errorf("create the swarm's stream: %w", err)
	}
	defer func() { _ = js.DeleteStream(context.Background(), stream) }()
	if err := retry(ctx, func() error {
		_, err := js.CreateOrUpdateConsumer(ctx, stream, jetstream.ConsumerConfig{Durable: "walkers", AckPolicy: jetstream.AckExplicitPolicy,
			AckWait: simAckWait, MaxDeliver: -1, MaxAckPending: 10 * len(ids)})
		return err
	}); err != nil {
		return checker.SimResult{}, fmt.Errorf("create the swarm's consumer: %w", err)
	}

	// Results, one per block; the cutoff is the lowest violating walk so far.
	var blocks []simBlock
	for first, i := opts.FirstRun, 0; first < opts.FirstRun+opts.Runs; first, i = first+block, i+1 {
		blocks = append(blocks, simBlock{Index: i, First: first, Runs: min(block, opts.FirstRun+opts.Runs-first)})
	}
	var mu sync.Mutex
	results := make([]*simResultMsg, len(blocks))
	cutoff := int64(-1)
	done := make(chan struct{})
	finished := func() bool { // every block below the cutoff (or every block) has its result
		for i, b := range blocks {
			if cutoff >= 0 && b.First > cutoff {
				return true
			}
			if results[i] == nil {
				return false
			}
		}
		return true
	}
	resSub, err := nc.Subscribe("kmc."+run+".sim.result", func(m *nats.Msg) {
		var rm simResultMsg
		if err := json.Unmarshal(m.Data, &rm); err != nil || rm.Index < 0 || rm.Index >= len(blocks) {
			reply(m, nil, errors.New("a malformed block result"))
			return
		}
		mu.Lock()
		if results[rm.Index] == nil {
			results[rm.Index] = &rm
			if rm.Result.Verdict == checker.Violated && (cutoff < 0 || rm.Result.Run < cutoff) {
				cutoff = rm.Result.Run
			}
			if finished() {
				select {
				case <-done:
				default:
					close(done)
				}
			}
		}
		mu.Unlock()
		reply(m, nil, nil)
	})
	if err != nil {
		return checker.SimResult{}, err
	}
	defer func() { _ = resSub.Unsubscribe() }()
	cutSub, err := nc.Subscribe("kmc."+run+".sim.cutoff", func(m *nats.Msg) {
		mu.Lock()
		c := cutoff
		mu.Unlock()
		_ = m.Respond([]byte(strconv.FormatInt(c, 10)))
	})
	if err != nil {
		return checker.SimResult{}, err
	}
	defer func() { _ = cutSub.Unsubscribe() }()
	if err := nc.Flush(); err != nil {
		return checker.SimResult{}, err
	}
	for _, b := range blocks {
		data, _ := json.Marshal(b)
		if _, err := js.Publish(ctx, "kmc."+run+".sim.block", data); err != nil {
			return checker.SimResult{}, fmt.Errorf("publish block %d: %w", b.Index, err)
		}
	}
	s := simStart{startMsg: startMsg{Run: run, Parts: len(ids), Version: checkpoint.Version(), SpecPath: cr.SpecPath, Spec: cr.Spec,
		SpecSHA: sha(cr.Spec), Sets: cr.Sets, Check: cr.Check},
		Seed: opts.Seed, Depth: opts.Depth, Deadlock: opts.Deadlock, Bias: opts.Bias, Stream: stream, AckWait: simAckWait}
	var started []string
	defer func() {
		for _, id := range started {
			_, _ = nc.Request(nodePrefix+id+".end", []byte(run), 5*time.Second)
		}
	}()
	for i, id := range ids {
		s.Part = i
		b, _ := json.Marshal(s)
		m, err := nc.Request(nodePrefix+id+".simulate", b, time.Minute)
		if err != nil {
			return checker.SimResult{}, fmt.Errorf("start walks on node %s: %w", id, err)
		}
		if len(m.Data) == 0 || m.Data[0] != 0 {
			return checker.SimResult{}, errors.New(string(m.Data[min(1, len(m.Data)):]))
		}
		started = append(started, id)
	}
	start := time.Now()
	select {
	case <-done:
	case <-opts.Stop:
		mu.Lock()
		defer mu.Unlock()
		return checker.SimResult{Verdict: checker.Incomplete, Reason: "interrupted", Seed: opts.Seed, Stats: checker.SimStats{Workers: len(ids)}}, nil
	}
	mu.Lock()
	defer mu.Unlock()
	return mergeSim(opts.Seed, blocks, results, cutoff, len(ids), time.Since(start)), nil
}

// mergeSim merges the blocks' results: the lowest violating walk with its trace, sums of the
// counts, the longest walk, and the registers merged by maximum.
func mergeSim(seed uint64, blocks []simBlock, results []*simResultMsg, cutoff int64, nodes int, elapsed time.Duration) checker.SimResult {
	out := checker.SimResult{Verdict: checker.OK, Seed: seed, Stats: checker.SimStats{Workers: nodes, Elapsed: elapsed}}
	var regs []byte
	for i := range blocks {
		rm := results[i]
		if rm == nil {
			continue
		}
		st := rm.Result.Stats
		out.Stats.Walks += st.Walks
		out.Stats.States += st.States
		out.Stats.Generated += st.Generated
		out.Stats.MaxDepth = max(out.Stats.MaxDepth, st.MaxDepth)
		regs = checker.MergeRegisters(regs, rm.Regs)
		if rm.Result.Verdict == checker.Violated && rm.Result.Run == cutoff {
			out.Verdict, out.Property, out.Run, out.Trace = checker.Violated, rm.Result.Property, rm.Result.Run, rm.Result.Trace
		}
	}
	out.Stats.Distinct = checker.SimDistinct(regs)
	return out
}

// retry calls f until it succeeds or 30 seconds have passed: a cluster's JetStream takes a
// moment to elect its leader after the nodes start.
func retry(ctx context.Context, f func() error) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := f()
		if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// walkBlocks is a node's part of a swarm: it fetches blocks from the stream until ctx ends,
// takes each block's walks (unless they are all above the cutoff), sends the result to the
// coordinator, then acknowledges the block.
func walkBlocks(ctx context.Context, nc *nats.Conn, r checker.SimBlocker, s simStart, opts checker.SimOptions, log io.Writer, id string) {
	js, err := jetstream.New(nc)
	if err != nil {
		fmt.Fprintf(log, "kmc node %s: swarm %s: %v\n", id, s.Run, err)
		return
	}
	var cons jetstream.Consumer
	if err := retry(ctx, func() error {
		var err error
		cons, err = js.Consumer(ctx, s.Stream, "walkers")
		return err
	}); err != nil {
		fmt.Fprintf(log, "kmc node %s: swarm %s: %v\n", id, s.Run, err)
		return
	}
	for ctx.Err() == nil {
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			if ctx.Err() == nil {
				time.Sleep(100 * time.Millisecond)
			}
			continue
		}
		for msg := range batch.Messages() {
			var b simBlock
			if err := json.Unmarshal(msg.Data(), &b); err != nil {
				_ = msg.Term()
				continue
			}
			res := simResultMsg{Index: b.Index}
			skip := false
			if m, err := nc.Request("kmc."+s.Run+".sim.cutoff", nil, 10*time.Second); err == nil {
				if c, err := strconv.ParseInt(string(m.Data), 10, 64); err == nil && c >= 0 && b.First > c {
					skip = true
				}
			}
			if !skip {
				o := opts
				o.FirstRun, o.Runs = b.First, b.Runs
				stop := make(chan struct{})
				go func() { // the block is in progress: no redelivery while this node works on it
					t := time.NewTicker(s.AckWait / 3)
					defer t.Stop()
					for {
						select {
						case <-stop:
							return
						case <-t.C:
							_ = msg.InProgress()
						}
					}
				}()
				res.Result, res.Regs = r.SimulateBlock(o)
				close(stop)
			} else {
				res.Result = checker.SimResult{Verdict: checker.OK, Seed: s.Seed}
			}
			data, _ := json.Marshal(res)
			if m, err := nc.Request("kmc."+s.Run+".sim.result", data, time.Minute); err != nil || len(m.Data) == 0 || m.Data[0] != 0 {
				continue // not acknowledged: the block is delivered again
			}
			_ = msg.Ack()
		}
	}
}

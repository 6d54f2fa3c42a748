package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"kmc/checker"
	"kmc/cluster"
	"kmc/specs"
)

// distFlags are kmc check's flags that run the search beyond the single-process engine.
type distFlags struct {
	partitions int
	url        string
	nodes      int
	token      string
	rollback   time.Duration
	resumeRun  string
}

func (d *distFlags) add(fs *pflag.FlagSet) {
	fs.IntVar(&d.partitions, "partitions", 0, "run the search as `N` parts in this process over an embedded NATS server that opens no socket (the same result as without; a liveness property's state graph is gathered to this process)")
	fs.StringVar(&d.url, "cluster", "", "run the search across the kmc nodes reached at NATS `URL` (kmc node), this process coordinating (the same result as one process; a liveness property's state graph is gathered to this process)")
	fs.DurationVar(&d.rollback, "rollback-every", cluster.DefaultRollbackEvery, "with --cluster, take a level checkpoint about every `DURATION` (0: every level), kept by this process with a copy in the nodes' JetStream object store, to roll back to when a node is lost (with a liveness property, while its gathered graph is in memory)")
	fs.StringVar(&d.resumeRun, "resume-run", "", "with --cluster, coordinate run `RUN` (its id, printed by the coordinator that began it) in place of its coordinator that stopped: go on from its plan and last level checkpoint in the nodes' JetStream (the same spec, check, --set values and options)")
	d.addNodes(fs)
}

func (d *distFlags) addNodes(fs *pflag.FlagSet) {
	fs.IntVar(&d.nodes, "nodes", 0, "with --cluster, use `N` nodes, waiting up to 10s for them (fewer: go on with those, saying so; default: every node that answers within 2s)")
	fs.StringVar(&d.token, "token", "", "with --cluster, the nodes' `TOKEN` (default: $KMC_NATS_TOKEN)")
}

// addCluster adds kmc simulate's flags: the walks across nodes.
func (d *distFlags) addCluster(fs *pflag.FlagSet) {
	fs.StringVar(&d.url, "cluster", "", "take the walks across the kmc nodes reached at NATS `URL` (kmc node), in blocks handed out by a JetStream work queue: the same result as one process for the seed (needs --runs, no --time)")
	d.addNodes(fs)
}

// checkCluster is check for kmc simulate.
func (d *distFlags) checkCluster(cmd string, stderr io.Writer) (int, bool) {
	if d.url == "" && (d.nodes != 0 || d.token != "") {
		return usageError(stderr, cmd, "--nodes and --token need --cluster"), false
	}
	if d.nodes < 0 {
		return usageError(stderr, cmd, "--nodes must not be negative (got %d)", d.nodes), false
	}
	if d.token == "" {
		d.token = os.Getenv("KMC_NATS_TOKEN")
	}
	return exitOK, true
}

// simRunner is app.SimulateOptions.Run for --cluster, or nil.
func (d *distFlags) simRunner(path string, sets []string, block int64) func(*specs.Check, checker.Runnable, checker.SimOptions) (checker.SimResult, error) {
	if d.url == "" {
		return nil
	}
	return func(c *specs.Check, r checker.Runnable, so checker.SimOptions) (checker.SimResult, error) {
		src, err := os.ReadFile(path)
		if err != nil {
			return checker.SimResult{}, fmt.Errorf("read spec: %w", err)
		}
		return cluster.SimulateCluster(r, so, cluster.ClusterRun{URL: d.url, Token: d.token, Nodes: d.nodes,
			SpecPath: path, Spec: src, Sets: sets, Check: c.Name}, block)
	}
}

// check refuses combinations that make no sense.
func (d *distFlags) check(stderr io.Writer) (int, bool) {
	switch {
	case d.partitions < 0:
		return usageError(stderr, "check", "--partitions must not be negative (got %d)", d.partitions), false
	case d.partitions > 0 && d.url != "":
		return usageError(stderr, "check", "--partitions and --cluster exclude each other"), false
	case d.url == "" && (d.nodes != 0 || d.token != ""):
		return usageError(stderr, "check", "--nodes and --token need --cluster"), false
	case d.nodes < 0:
		return usageError(stderr, "check", "--nodes must not be negative (got %d)", d.nodes), false
	case d.rollback < 0:
		return usageError(stderr, "check", "--rollback-every must not be negative (got %s)", d.rollback), false
	case d.url == "" && d.rollback != cluster.DefaultRollbackEvery:
		return usageError(stderr, "check", "--rollback-every needs --cluster"), false
	case d.url == "" && d.resumeRun != "":
		return usageError(stderr, "check", "--resume-run needs --cluster"), false
	}
	if d.token == "" {
		d.token = os.Getenv("KMC_NATS_TOKEN")
	}
	return exitOK, true
}

// runner is app.CheckOptions.Run for these flags, or nil for the single-process engine.
// After the search it says on stderr what went over NATS.
//
// Each level's report goes to emit as a JSON event when quiet (--json), else to stderr as a
// Level line, at most one a second (the last level's always).
func (d *distFlags) runner(path string, sets []string, quiet bool, stderr io.Writer, emit func(map[string]any)) func(*specs.Check, checker.Runnable, checker.Options) (checker.Result, error) {
	if d.partitions == 0 && d.url == "" {
		return nil
	}
	return func(c *specs.Check, r checker.Runnable, opts checker.Options) (checker.Result, error) {
		var res checker.Result
		var wire cluster.Wire
		var err error
		what := ""
		var last time.Time
		var held string
		observe := func(ls checker.LevelStats, w cluster.Wire) {
			if quiet {
				if emit != nil {
					emit(map[string]any{"event": "level", "level": ls.Level, "distinct": ls.Distinct, "new": ls.New,
						"generated": ls.Generated, "claims": ls.Claims, "wire_messages": w.Messages, "wire_bytes": w.Bytes, "wire_graph_bytes": w.Graph,
						"slowest_part": ls.Slowest, "slowest_expand_seconds": ls.SlowestExpand.Seconds(),
						"level_seconds": ls.Elapsed.Seconds(), "seconds": ls.Total.Seconds()})
				}
				return
			}
			held = fmt.Sprintf("Level(%d): %d distinct states (+%d), %d claims, %s over NATS so far, slowest part %d (expanded in %s of the level's %s).\n",
				ls.Level, ls.Distinct, ls.New, ls.Claims, specs.FormatSize(w.Bytes), ls.Slowest, specs.FormatElapsed(ls.SlowestExpand), specs.FormatElapsed(ls.Elapsed))
			if time.Since(last) >= time.Second {
				fmt.Fprint(stderr, held)
				held, last = "", time.Now()
			}
		}
		defer func() {
			if held != "" {
				fmt.Fprint(stderr, held)
			}
		}()
		if d.partitions > 0 {
			res, wire, err = cluster.CheckPartitions(r, opts, d.partitions, observe)
			what = fmt.Sprintf("%d partitions in this process", d.partitions)
		} else {
			var src []byte
			if src, err = os.ReadFile(path); err != nil {
				return res, fmt.Errorf("read spec: %w", err)
			}
			every := d.rollback
			if every == 0 {
				every = -1 // every level
			}
			res, wire, err = cluster.CheckCluster(r, opts, cluster.ClusterRun{URL: d.url, Token: d.token, Nodes: d.nodes,
				SpecPath: path, Spec: src, Sets: sets, Check: c.Name, Log: stderr, RollbackEvery: every, Observe: observe,
				ResumeRun: d.resumeRun, NameRun: true})
			what = fmt.Sprintf("%d nodes at %s", res.Stats.Workers, d.url)
		}
		if err != nil {
			return res, err
		}
		if !quiet {
			per := ""
			if res.Stats.Distinct > 0 {
				per = fmt.Sprintf(", %.1f bytes per distinct state", float64(wire.Bytes)/float64(res.Stats.Distinct))
			}
			if wire.Graph > 0 && res.Stats.GraphEdges > 0 {
				per += fmt.Sprintf("; gathering the liveness graph (%d edges): %d bytes, %.1f per edge", res.Stats.GraphEdges, wire.Graph, float64(wire.Graph)/float64(res.Stats.GraphEdges))
			}
			fmt.Fprintf(stderr, "kmc: check: %s over NATS: %d messages, %d bytes%s\n", what, wire.Messages, wire.Bytes, per)
		}
		return res, nil
	}
}

const nodeSynopsis = "kmc node --data DIR [--listen ADDR] [--cluster-listen ADDR --routes URL,...] [--token TOKEN] [flags]"

const nodeExamples = `  kmc node --data n1/ --listen 127.0.0.1:4222
  kmc node --data n1/ --listen 127.0.0.1:4222 --cluster-listen 127.0.0.1:6222 --routes nats://127.0.0.1:6223,nats://127.0.0.1:6224
  KMC_NATS_TOKEN=secret kmc node --data n1/ --listen 10.0.0.5:4222 --cluster-listen 10.0.0.5:6222 --routes nats://10.0.0.6:6222
  kmc check specs/twophase.toml --check fixed --set rms=7 --cluster nats://127.0.0.1:4222 --nodes 3
`

// runNode runs kmc node until a signal.
func runNode(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("node", nodeSynopsis, nodeExamples, stdout)
	var o cluster.NodeOptions
	var routes string
	fs.StringVar(&o.Data, "data", "", "the node's `DIR`: JetStream's store (created if missing)")
	fs.StringVar(&o.Listen, "listen", "127.0.0.1:4222", "`ADDR` (host:port, port 0: any free port) where clients and kmc check --cluster connect; beyond loopback it needs --token")
	fs.StringVar(&o.ClusterListen, "cluster-listen", "", "`ADDR` (host:port) where the other nodes' routes connect (default: no cluster)")
	fs.StringVar(&routes, "routes", "", "`URLS`, comma-separated nats://host:port of the other nodes' --cluster-listen")
	fs.StringVar(&o.Token, "token", "", "`TOKEN` that clients and routes must present (default: $KMC_NATS_TOKEN); required beyond loopback")
	fs.StringVar(&o.Name, "name", "", "the node's `ID` (default: node-<host>-<port>)")
	fs.IntVar(&o.Workers, "workers", 0, "`N` search workers of this node's part (default: all cores)")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() != 0 {
		return usageError(stderr, "node", "want no arguments, got %d", fs.NArg())
	}
	if o.Workers < 0 || o.Workers > specs.MaxWorkers {
		return usageError(stderr, "node", "--workers must be 0 to %d (got %d)", specs.MaxWorkers, o.Workers)
	}
	if routes != "" {
		o.Routes = strings.Split(routes, ",")
	}
	if o.Token == "" {
		o.Token = os.Getenv("KMC_NATS_TOKEN")
	}
	o.Log = stdout
	ctx, release := signalContext()
	defer release()
	err := cluster.RunNode(context.Context(ctx), o)
	if refused, ok := err.(*cluster.RefusedError); ok {
		return usageError(stderr, "node", "%v", refused)
	}
	if err != nil {
		fmt.Fprintf(stderr, "kmc: node: %v\n", err)
		return exitInternal
	}
	return exitOK
}

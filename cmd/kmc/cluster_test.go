package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// clusterTests skips a multi-process test unless KMC_CLUSTER_TESTS is set (make cluster-test).
func clusterTests(t *testing.T) string {
	t.Helper()
	if os.Getenv("KMC_CLUSTER_TESTS") == "" {
		t.Skip("starts kmc node processes: set KMC_CLUSTER_TESTS=1 (make cluster-test)")
	}
	return kmcBinary(t)
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

// node is a kmc node process of a test.
type node struct {
	cmd  *exec.Cmd
	url  string
	run  chan struct{} // closed when the node takes its first part of a run or swarm
	args []string      // its command line, to start it again
}

// startNodes starts n kmc node processes on loopback, clustered by routes, and waits until
// each takes runs. They are killed when the test ends.
func startNodes(t *testing.T, bin string, n int, extra ...string) []*node {
	t.Helper()
	cports := make([]int, n)
	var routes []string
	for i := range cports {
		cports[i] = freePort(t)
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", cports[i]))
	}
	var nodes []*node
	for i := range n {
		port := freePort(t)
		args := append([]string{"node", "--data", filepath.Join(t.TempDir(), "n"), "--name", fmt.Sprintf("n%d", i+1),
			"--listen", fmt.Sprintf("127.0.0.1:%d", port), "--cluster-listen", fmt.Sprintf("127.0.0.1:%d", cports[i]),
			"--routes", strings.Join(routes, ","), "--workers", "1"}, extra...)
		nodes = append(nodes, startNode(t, bin, args))
	}
	return nodes
}

// startNode starts a kmc node process with args and waits until it takes runs.
func startNode(t *testing.T, bin string, args []string) *node {
	t.Helper()
	cmd := exec.Command(bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	ready := make(chan string, 1)
	taken := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		once := false
		for sc.Scan() {
			if _, u, ok := strings.Cut(sc.Text(), "listening on "); ok {
				ready <- strings.Fields(u)[0]
			}
			if !once && (strings.Contains(sc.Text(), ": part ") || strings.Contains(sc.Text(), ": walks of ")) {
				once = true
				close(taken)
			}
		}
	}()
	select {
	case u := <-ready:
		return &node{cmd: cmd, url: u, run: taken, args: args}
	case <-time.After(30 * time.Second):
		t.Fatalf("node %v did not start in 30s", args)
	}
	return nil
}

// withoutTime drops the lines that say how long a search took.
func withoutTime(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "Finished in ") && !strings.HasPrefix(l, "Progress(") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestClusterParity: three kmc node processes on loopback run kmc check --cluster with the
// single process's output (verdicts, counts, depth, traces) and counterexample files, byte
// for byte; --partitions 2 does too.
func TestClusterParity(t *testing.T) {
	bin := clusterTests(t)
	nodes := startNodes(t, bin, 3)
	runs := [][]string{
		{"../../specs/twophase.toml", "--por=false"},
		{"../../specs/twophase.toml", "--check", "fixed", "--set", "rms=5", "--coverage", "--por=false"},
		{"../../specs/kafka-18723.toml", "--check", "buggy"},
		{"../../specs/kafka-13141.toml", "--deadlock"},
		{"../../specs/kafka-13141.toml", "--check", "v3-3", "--set", "brokers=4", "--max-states", "20000"},
		// Liveness: the state graph gathered to the coordinator; lassos byte for byte.
		{"../../specs/kafka-5480.toml", "--check", "buggy"},
		{"../../specs/kafka-5480.toml", "--check", "fixed"},
		{"../../specs/kafka-14154.toml", "--check", "buggy"},
		{"../../specs/kafka-13077.toml", "--check", "buggy"},
	}
	for _, args := range runs {
		name := strings.Join(args, " ")
		dir := t.TempDir()
		single := append([]string{"check", "--workers", "2", "--out", filepath.Join(dir, "single")}, args...)
		code, want, _ := runBinary(t, exec.Command(bin, single...))
		for _, mode := range [][]string{{"--cluster", nodes[1].url, "--nodes", "3"}, {"--partitions", "2"}} {
			out := filepath.Join(dir, mode[0][2:])
			dist := append(append([]string{"check", "--workers", "2", "--out", out}, args...), mode...)
			gotCode, got, stderr := runBinary(t, exec.Command(bin, dist...))
			got = strings.ReplaceAll(got, out, filepath.Join(dir, "single"))
			if gotCode != code || withoutTime(got) != withoutTime(want) {
				t.Errorf("%s %s: exit %d, want %d; output differs:\n%s\nwant:\n%s\nstderr:\n%s", name, mode[0], gotCode, code, got, want, stderr)
			}
			if !strings.Contains(stderr, "over NATS") {
				t.Errorf("%s %s: stderr does not say what went over NATS:\n%s", name, mode[0], stderr)
			}
			for _, f := range []string{"trace.txt", "trace.itf.json"} {
				matches, _ := filepath.Glob(filepath.Join(dir, "single", "*", f))
				for _, m := range matches {
					rel, _ := filepath.Rel(filepath.Join(dir, "single"), m)
					a, _ := os.ReadFile(m)
					b, err := os.ReadFile(filepath.Join(out, rel))
					if err != nil || string(a) != string(b) {
						t.Errorf("%s %s: %s differs from the single process's (%v)", name, mode[0], rel, err)
					}
				}
			}
		}
	}
}

// TestClusterNodeLost: a node killed (SIGKILL) while a search runs is noticed, and the search
// rolls back to its last level checkpoint (taken at every level here) with the nodes left and
// gives the single process's result; the two nodes left then take a new run with the right
// answer.
func TestClusterNodeLost(t *testing.T) {
	bin := clusterTests(t)
	nodes := startNodes(t, bin, 3)
	cmd := exec.Command(bin, "check", "../../specs/twophase.toml", "--por=false", "--check", "fixed", "--set", "rms=8", "--cluster", nodes[0].url, "--nodes", "3", "--rollback-every", "0")
	done := make(chan struct{})
	var code int
	var stdout, stderr string
	go func() { code, stdout, stderr = runBinary(t, cmd); close(done) }()
	<-nodes[2].run // the search takes about 2.5 s on three nodes: kill one in its middle
	time.Sleep(time.Second)
	_ = nodes[2].cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("the search did not end within 2 minutes of a node's loss")
	}
	_, want8, _ := runBinary(t, exec.Command(bin, "check", "../../specs/twophase.toml", "--por=false", "--check", "fixed", "--set", "rms=8"))
	if code != exitOK || withoutTime(stdout) != withoutTime(want8) || !strings.Contains(stderr, "node n3 (part 2) is lost") || !strings.Contains(stderr, "rolling back to the level checkpoint at level ") || !strings.Contains(stderr, "with 2 nodes") {
		t.Errorf("got exit %d, want %d with the lost node named and the single process's output:\n%s\n%s\nwant\n%s", code, exitOK, stdout, stderr, want8)
	}
	code, got, _ := runBinary(t, exec.Command(bin, "check", "../../specs/twophase.toml", "--por=false", "--cluster", nodes[0].url, "--nodes", "2"))
	_, want, _ := runBinary(t, exec.Command(bin, "check", "../../specs/twophase.toml", "--por=false"))
	if code != exitSafety || withoutTime(got) != withoutTime(want) {
		t.Errorf("after the loss, two nodes: exit %d, output\n%s\nwant\n%s", code, got, want)
	}
}

// TestClusterLivenessNodeLost: a node killed (SIGKILL) during a search with a liveness
// property (KAFKA-13077 before its fix, a lasso) is noticed; the search rolls back to the
// last level checkpoint, which holds the gathered graph, goes on with the nodes left and
// prints the single process's output and lasso.
func TestClusterLivenessNodeLost(t *testing.T) {
	bin := clusterTests(t)
	nodes := startNodes(t, bin, 3)
	args := []string{"check", "../../specs/kafka-13077.toml", "--check", "buggy", "--workers", "2"}
	cmd := exec.Command(bin, append(args, "--cluster", nodes[0].url, "--nodes", "3", "--rollback-every", "0")...)
	done := make(chan struct{})
	var code int
	var stdout, stderr string
	go func() { code, stdout, stderr = runBinary(t, cmd); close(done) }()
	<-nodes[2].run
	time.Sleep(time.Second)
	_ = nodes[2].cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-done:
	case <-time.After(3 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("the search did not end within 3 minutes of a node's loss")
	}
	wantCode, want, _ := runBinary(t, exec.Command(bin, args...))
	if code != wantCode || code != exitLiveness || withoutTime(stdout) != withoutTime(want) || !strings.Contains(stderr, "node n3 (part 2) is lost") || !strings.Contains(stderr, "rolling back to the level checkpoint at level ") || !strings.Contains(stderr, "with 2 nodes") {
		t.Errorf("got exit %d, want %d with the lost node named, the search rolled back to a level checkpoint and the single process's output:\n%s\n%s\nwant\n%s", code, wantCode, stdout, stderr, want)
	}
}

// TestNodeRefusals: beyond loopback a node needs a token; a check with a liveness property
// and a state limit across a node prints the single process's output (it was refused before
// the gathered graph had a state limit); a cluster with too few nodes is refused.
func TestNodeRefusals(t *testing.T) {
	bin := clusterTests(t)
	code, _, stderr := runBinary(t, exec.Command(bin, "node", "--data", t.TempDir(), "--listen", "0.0.0.0:0"))
	if code != exitUsage || !strings.Contains(stderr, "--token") {
		t.Errorf("node on 0.0.0.0 without a token: exit %d, stderr %s", code, stderr)
	}
	nodes := startNodes(t, bin, 1)
	limited := []string{"check", "../../specs/kafka-14154.toml", "--check", "buggy", "--max-states", "100"}
	code, got, stderr := runBinary(t, exec.Command(bin, append(limited, "--cluster", nodes[0].url)...))
	wantCode, want, _ := runBinary(t, exec.Command(bin, limited...))
	if code != wantCode || withoutTime(got) != withoutTime(want) {
		t.Errorf("liveness with --max-states across a node: exit %d, output\n%s%s\nwant exit %d,\n%s", code, got, stderr, wantCode, want)
	}
	code, _, stderr = runBinary(t, exec.Command(bin, "check", "../../specs/twophase.toml", "--por=false", "--cluster", nodes[0].url, "--nodes", "2"))
	if code == exitOK || !strings.Contains(stderr, "found 1 nodes") {
		t.Errorf("too few nodes: exit %d, stderr %s", code, stderr)
	}
}

// TestNodeToken: a node with a token refuses a coordinator without it and serves one with it.
func TestNodeToken(t *testing.T) {
	bin := clusterTests(t)
	nodes := startNodes(t, bin, 1, "--token", "s3cret")
	code, _, stderr := runBinary(t, exec.Command(bin, "check", "../../specs/twophase.toml", "--por=false", "--check", "fixed", "--cluster", nodes[0].url))
	if code == exitOK || !strings.Contains(strings.ToLower(stderr), "authorization") {
		t.Errorf("without the token: exit %d, stderr %s", code, stderr)
	}
	code, _, stderr = runBinary(t, exec.Command(bin, "check", "../../specs/twophase.toml", "--por=false", "--check", "fixed", "--cluster", nodes[0].url, "--token", "s3cret"))
	if code != exitOK {
		t.Errorf("with the token: exit %d, stderr %s", code, stderr)
	}
}

// withoutWalkStats drops, besides the time, the line of a simulation's counts: at a violation
// one process also counts the walks above it that were under way, which depends on timing.
func withoutWalkStats(s string) string {
	var out []string
	for _, l := range strings.Split(withoutTime(s), "\n") {
		if !strings.Contains(l, " walks, ") || !strings.Contains(l, "states visited") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestClusterSimulate: a swarm across three kmc node processes prints what one process
// prints for the same seed: the violating walk and its trace, and without a violation every
// count, the HyperLogLog estimate included.
func TestClusterSimulate(t *testing.T) {
	bin := clusterTests(t)
	nodes := startNodes(t, bin, 3)
	runs := [][]string{
		{"../../specs/twophase.toml", "--seed", "7", "--runs", "2000"},
		{"../../specs/kafka-18723.toml", "--check", "buggy", "--seed", "3", "--runs", "3000", "--depth", "60"},
		{"../../specs/kafka-13141.toml", "--check", "v2-8", "--seed", "11", "--runs", "1500", "--bias", "delay"},
	}
	for _, args := range runs {
		name := strings.Join(args, " ")
		sim := append([]string{"simulate", "--workers", "2"}, args...)
		code, want, _ := runBinary(t, exec.Command(bin, sim...))
		gotCode, got, stderr := runBinary(t, exec.Command(bin, append(sim, "--cluster", nodes[0].url, "--nodes", "3", "--block", "128")...))
		cmp := withoutTime
		if code != exitOK {
			cmp = withoutWalkStats
		}
		if gotCode != code || cmp(got) != cmp(want) {
			t.Errorf("%s: exit %d, want %d; output differs:\n%s\nwant:\n%s\nstderr:\n%s", name, gotCode, code, got, want, stderr)
		}
	}
}

// TestSuitePartitions: kmc suite --partitions 3 prints the single process's table (verdicts,
// states, depths, mismatches; times masked) and says how many searches ran partitioned.
func TestSuitePartitions(t *testing.T) {
	for _, dir := range []string{"testdata/suite-ok", "testdata/suite-robust"} {
		var want, got, stderr strings.Builder
		wantCode := run([]string{"suite", dir, "--workers", "1"}, &want, &stderr)
		gotCode := run([]string{"suite", dir, "--workers", "1", "--partitions", "3"}, &got, &stderr)
		g, w := mask(got.String()), mask(want.String())
		i := strings.LastIndex(g, "searches ran as 3 partitions over NATS")
		if gotCode != wantCode || i < 0 {
			t.Fatalf("%s: exit %d (want %d), output:\n%s", dir, gotCode, wantCode, g)
		}
		g = g[:strings.LastIndex(g[:i], "\n")+1]
		if g != w {
			t.Errorf("%s: --partitions 3:\n%s\nwant:\n%s", dir, g, w)
		}
	}
}

// TestClusterSimulateNodeLost: a node killed (SIGKILL) during a swarm leaves its block
// unacknowledged; it is delivered again to a node left, and the swarm prints what one
// process prints for the seed.
func TestClusterSimulateNodeLost(t *testing.T) {
	bin := clusterTests(t)
	nodes := startNodes(t, bin, 3)
	args := []string{"simulate", "../../specs/kafka-18723.toml", "--check", "fixed", "--seed", "5", "--runs", "200000", "--depth", "100", "--workers", "2"}
	cmd := exec.Command(bin, append(args, "--cluster", nodes[0].url, "--nodes", "3", "--block", "500")...)
	done := make(chan struct{})
	var code int
	var got, stderr string
	go func() { code, got, stderr = runBinary(t, cmd); close(done) }()
	<-nodes[2].run // the swarm takes about 10 s on three nodes
	time.Sleep(2 * time.Second)
	_ = nodes[2].cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-done:
	case <-time.After(3 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("the swarm did not end within 3 minutes of a node's loss")
	}
	wantCode, want, _ := runBinary(t, exec.Command(bin, args...))
	if code != wantCode || withoutTime(got) != withoutTime(want) {
		t.Errorf("exit %d, want %d; output\n%s\nwant\n%s\nstderr\n%s", code, wantCode, got, want, stderr)
	}
}

// TestCheckpointPartitions: level checkpoints cross engines from the command line: a search
// on 3 partitions interrupted with --checkpoint is resumed by one process and by 2 partitions,
// and one interrupted in one process is resumed by 3 partitions; each prints what a run never
// stopped prints (the counterexample included, for a violated check). Reference: issue 30,
// "Failures".
func TestCheckpointPartitions(t *testing.T) {
	for _, args := range [][]string{
		{spec, "--check", "fixed", "--set", "rms=5", "--por=false"},
		{"../../specs/kafka-18723.toml", "--check", "buggy"},
	} {
		name := strings.Join(args, " ")
		code, want, _ := runCLI(append([]string{"check", "--workers", "1"}, args...)...)
		for _, tc := range []struct{ write, resume []string }{
			{[]string{"--partitions", "3"}, nil},
			{[]string{"--partitions", "3"}, []string{"--partitions", "2"}},
			{nil, []string{"--partitions", "3"}},
		} {
			dir := filepath.Join(t.TempDir(), "cp")
			undo := interruptAt(4)
			c, out, errs := runCLI(append(append([]string{"check", "--workers", "2", "--checkpoint", dir}, args...), tc.write...)...)
			undo()
			if c != exitIncomplete || !strings.Contains(errs, "Checkpoint "+dir+"/ckpt-") {
				t.Fatalf("%s %v: interrupted: exit %d, want %d and a checkpoint\n%s%s", name, tc.write, c, exitIncomplete, out, errs)
			}
			c, got, errs := runCLI(append(append([]string{"check", "--workers", "2", "--resume", dir}, args...), tc.resume...)...)
			if c != code || !strings.Contains(got, "Resuming from checkpoint") || finalLines(got) != finalLines(want) {
				t.Errorf("%s: written %v, resumed %v: exit %d, want %d\n%s\nwant\n%s\n%s", name, tc.write, tc.resume, c, code, got, want, errs)
			}
		}
	}
}

// TestClusterFaults (make cluster-faults): three kmc node processes; 20 times (or
// $KMC_FAULT_KILLS), a search across them with a level checkpoint at every level, and one
// node killed (SIGKILL: its NATS server and its part at once) at a random moment of it, then
// started again on its data folder. Every search must print the single process's output;
// the seed ($KMC_FAULT_SEED to repeat one) and what each kill hit are logged.
func TestClusterFaults(t *testing.T) {
	bin := clusterTests(t)
	if os.Getenv("KMC_CLUSTER_FAULTS") == "" {
		t.Skip("kills nodes 20 times: set KMC_CLUSTER_FAULTS=1 (make cluster-faults)")
	}
	kills := 20
	if v := os.Getenv("KMC_FAULT_KILLS"); v != "" {
		if _, err := fmt.Sscan(v, &kills); err != nil {
			t.Fatalf("KMC_FAULT_KILLS=%q: %v", v, err)
		}
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("KMC_FAULT_SEED"); v != "" {
		if _, err := fmt.Sscan(v, &seed); err != nil {
			t.Fatalf("KMC_FAULT_SEED=%q: %v", v, err)
		}
	}
	t.Logf("seed %d (KMC_FAULT_SEED=%d repeats it)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 30))
	nodes := startNodes(t, bin, 3)
	args := []string{"check", "../../specs/twophase.toml", "--por=false", "--check", "fixed", "--set", "rms=7", "--workers", "1"}
	wantCode, want, _ := runBinary(t, exec.Command(bin, args...))
	cluster := func(via int) *exec.Cmd {
		return exec.Command(bin, append(append([]string{}, args...), "--cluster", nodes[via].url, "--nodes", "3", "--rollback-every", "0")...)
	}
	var clean time.Duration
	var code int
	var got, stderr string
	for range 2 { // the first run waits for JetStream's cluster to form
		start := time.Now()
		code, got, stderr = runBinary(t, cluster(0))
		clean = time.Since(start)
		if code != wantCode || withoutTime(got) != withoutTime(want) {
			t.Fatalf("without a fault: exit %d, want %d\n%s\nwant\n%s\n%s", code, wantCode, got, want, stderr)
		}
	}
	t.Logf("a run without a fault takes %s", clean.Round(time.Millisecond))
	during := 0
	for i := range kills {
		k := rng.IntN(3)
		via := (k + 1 + rng.IntN(2)) % 3                         // the coordinator connects through a node left
		delay := time.Duration(rng.Int64N(int64(clean) * 3 / 4)) // a run with a fault takes longer
		cmd := cluster(via)
		done := make(chan struct{})
		go func() { code, got, stderr = runBinary(t, cmd); close(done) }()
		time.Sleep(delay)
		_ = nodes[k].cmd.Process.Signal(syscall.SIGKILL)
		select {
		case <-done:
		case <-time.After(3 * time.Minute):
			_ = cmd.Process.Signal(syscall.SIGQUIT) // its goroutines, on stderr
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				<-done
			}
			t.Fatalf("kill %d (node n%d after %s): the search did not end within 3 minutes:\n%s", i+1, k+1, delay, stderr)
		}
		what := "the search had ended"
		switch {
		case strings.Contains(stderr, "rolling back to the level checkpoint"):
			what = "rolled back: " + strings.TrimSpace(stderr[strings.Index(stderr, "rolling back"):])
			during++
		case strings.Contains(stderr, "starting the search over"):
			what = "started over"
			during++
		case strings.Contains(stderr, "is lost"):
			what = "lost"
			during++
		}
		if i := strings.IndexByte(what, '\n'); i >= 0 {
			what = what[:i]
		}
		t.Logf("kill %d: node n%d after %s: %s", i+1, k+1, delay.Round(time.Millisecond), what)
		if code != wantCode || withoutTime(got) != withoutTime(want) {
			t.Errorf("kill %d (node n%d after %s): exit %d, want %d; output\n%s\nwant\n%s\nstderr:\n%s", i+1, k+1, delay, code, wantCode, got, want, stderr)
		}
		_ = nodes[k].cmd.Wait()
		nodes[k] = startNode(t, bin, nodes[k].args)
	}
	if during < kills/2 {
		t.Errorf("only %d of %d kills hit a search under way", during, kills)
	}
}

// TestClusterSuite: kmc suite --cluster across three kmc node processes prints the table one
// process prints: a Kafka check and its robustness neighbours searched across the nodes (which
// build each neighbour from the spec's text), and two-phase commit's checks, under the
// partial-order reduction, in the coordinator's process.
func TestClusterSuite(t *testing.T) {
	bin := clusterTests(t)
	nodes := startNodes(t, bin, 3)
	for _, dir := range []string{"testdata/suite-cluster", "testdata/suite-robust"} {
		wantCode, want, _ := runBinary(t, exec.Command(bin, "suite", dir, "--workers", "1"))
		gotCode, got, stderr := runBinary(t, exec.Command(bin, "suite", dir, "--workers", "1", "--cluster", nodes[0].url, "--nodes", "3"))
		g, w := mask(got), mask(want)
		i := strings.LastIndex(g, "searches ran across 3 nodes at ")
		if gotCode != wantCode || i < 0 || dir == "testdata/suite-cluster" && !strings.Contains(g, "\n3 searches ran across") {
			t.Fatalf("%s: exit %d (want %d), output:\n%s\n%s", dir, gotCode, wantCode, g, stderr)
		}
		g = g[:strings.LastIndex(g[:i], "\n")+1]
		if g != w {
			t.Errorf("%s: --cluster:\n%s\nwant:\n%s", dir, g, w)
		}
	}
}

// stampedWriter keeps what is written, and when a line holding mark was first written.
type stampedWriter struct {
	mu   sync.Mutex
	buf  strings.Builder
	mark string
	at   time.Time
}

func (w *stampedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.at.IsZero() && strings.Contains(w.buf.String(), w.mark) {
		w.at = time.Now()
	}
	return len(p), nil
}

// TestClusterLeaseDetection (KMC_CLUSTER_MEASURE=N, a measurement, not a check of time):
// N times, a search of two-phase commit rms=8 across three kmc node processes, one node other
// than the coordinator's killed (SIGKILL) a second after the search's first level; logs the time from
// the kill to the coordinator's word that the node is lost (its lease expired), and the
// minimum, median and maximum. Each search must still print the single process's output.
func TestClusterLeaseDetection(t *testing.T) {
	bin := clusterTests(t)
	runs := 0
	if v := os.Getenv("KMC_CLUSTER_MEASURE"); v == "" {
		t.Skip("a measurement: set KMC_CLUSTER_MEASURE=N (kills)")
	} else if _, err := fmt.Sscan(v, &runs); err != nil {
		t.Fatalf("KMC_CLUSTER_MEASURE=%q: %v", v, err)
	}
	nodes := startNodes(t, bin, 3)
	args := []string{"check", "../../specs/twophase.toml", "--por=false", "--check", "fixed", "--set", "rms=8", "--workers", "1"}
	wantCode, want, _ := runBinary(t, exec.Command(bin, args...))
	var took []time.Duration
	for i := range runs {
		k := 1 + i%2 // n2 or n3; the coordinator connects through n1
		cmd := exec.Command(bin, append(append([]string{}, args...), "--cluster", nodes[0].url, "--nodes", "3", "--rollback-every", "0")...)
		var out strings.Builder
		errw := &stampedWriter{mark: " is lost"}
		cmd.Stdout, cmd.Stderr = &out, errw
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			errw.mu.Lock()
			under := strings.Contains(errw.buf.String(), "Level(")
			errw.mu.Unlock()
			if under {
				break
			}
		}
		time.Sleep(time.Second)
		kill := time.Now()
		_ = nodes[k].cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		errw.mu.Lock()
		stderr, at := errw.buf.String(), errw.at
		errw.mu.Unlock()
		if code != wantCode || withoutTime(out.String()) != withoutTime(want) {
			t.Errorf("kill %d: exit %d, want %d\n%s\nwant\n%s\n%s", i+1, code, wantCode, out.String(), want, stderr)
		}
		if at.IsZero() {
			t.Logf("kill %d: node n%d: the search ended before the loss was seen:\n%s", i+1, k+1, stderr)
		} else {
			took = append(took, at.Sub(kill))
			line := stderr[strings.Index(stderr, "kmc: node "):]
			t.Logf("kill %d: node n%d: seen lost %s after the kill: %s", i+1, k+1, at.Sub(kill).Round(time.Millisecond), line[:strings.IndexByte(line, '\n')])
		}
		_ = nodes[k].cmd.Wait()
		nodes[k] = startNode(t, bin, nodes[k].args)
	}
	if len(took) > 0 {
		slices.Sort(took)
		t.Logf("SIGKILL to loss seen, %d kills: min %s, median %s, max %s", len(took), took[0].Round(time.Millisecond),
			took[len(took)/2].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond))
	}
}

// TestClusterEntryNodeLost: the node the coordinator is connected through (whose server holds
// the run's lease bucket) killed (SIGKILL) mid-search: the coordinator's connection breaks,
// that node is the one lost, the connection moves to a node left, a new lease bucket is made
// there, and the search gives the single process's result.
func TestClusterEntryNodeLost(t *testing.T) {
	bin := clusterTests(t)
	nodes := startNodes(t, bin, 3)
	args := []string{"check", "../../specs/twophase.toml", "--por=false", "--check", "fixed", "--set", "rms=8", "--workers", "1"}
	cmd := exec.Command(bin, append(append([]string{}, args...), "--cluster", nodes[0].url, "--nodes", "3", "--rollback-every", "0")...)
	done := make(chan struct{})
	var code int
	var stdout, stderr string
	go func() { code, stdout, stderr = runBinary(t, cmd); close(done) }()
	<-nodes[0].run
	time.Sleep(time.Second)
	_ = nodes[0].cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("the search did not end within 2 minutes of its entry node's loss")
	}
	wantCode, want, _ := runBinary(t, exec.Command(bin, args...))
	if code != wantCode || withoutTime(stdout) != withoutTime(want) || !strings.Contains(stderr, "node n1 (part 0) is lost: this coordinator's connection to it broke") || !strings.Contains(stderr, "with 2 nodes") {
		t.Errorf("got exit %d, want %d with n1 named and the single process's output:\n%s\n%s\nwant\n%s", code, wantCode, stdout, stderr, want)
	}
	t.Logf("%s", stderr)
}

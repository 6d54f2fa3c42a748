// kvexp measures JetStream after a SIGKILL of one of three kmc node processes: how long a
// KV bucket (R3 file, R3 memory, or R1 memory on the first node's server) refuses puts and
// when a lease of the node killed is seen expired, and an R3 object store's put. Not built
// by go build ./... (testdata):
//
//	go build -o /tmp/kmc ./cmd/kmc && go build -o /tmp/kvexp ./cluster/testdata/kvexp
//	/tmp/kvexp -bin /tmp/kmc -mode r3file|r3mem|r1mem -victim leader|other|objleader [-obj]
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func freePort() int {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

type node struct {
	cmd *exec.Cmd
	url string
}

func start(bin string, n int) []*node {
	dir, _ := os.MkdirTemp("", "kvexp")
	cp := make([]int, n)
	var routes []string
	for i := range cp {
		cp[i] = freePort()
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", cp[i]))
	}
	var out []*node
	for i := range n {
		cmd := exec.Command(bin, "node", "--data", filepath.Join(dir, fmt.Sprint(i)), "--name", fmt.Sprintf("n%d", i+1),
			"--listen", fmt.Sprintf("127.0.0.1:%d", freePort()), "--cluster-listen", fmt.Sprintf("127.0.0.1:%d", cp[i]),
			"--routes", strings.Join(routes, ","), "--workers", "1")
		so, _ := cmd.StdoutPipe()
		cmd.Stderr = os.Stderr
		cmd.Start()
		sc := bufio.NewScanner(so)
		for sc.Scan() {
			if _, u, ok := strings.Cut(sc.Text(), "listening on "); ok {
				out = append(out, &node{cmd, strings.Fields(u)[0]})
				break
			}
		}
		go func() {
			for sc.Scan() {
			}
		}()
	}
	return out
}

func main() {
	bin := flag.String("bin", "/tmp/kmc-kv", "")
	mode := flag.String("mode", "r3file", "r3file|r3mem|r1mem")
	victim := flag.String("victim", "leader", "leader|other")
	ttl := flag.Duration("ttl", 3*time.Second, "")
	obj := flag.Bool("obj", false, "also an object store put")
	flag.Parse()
	nodes := start(*bin, 3)
	defer func() {
		for _, n := range nodes {
			n.cmd.Process.Kill()
			n.cmd.Wait()
		}
	}()
	nc, err := nats.Connect(nodes[0].url)
	if err != nil {
		panic(err)
	}
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	cfg := jetstream.KeyValueConfig{Bucket: "leases", LimitMarkerTTL: time.Second, Storage: jetstream.FileStorage, Replicas: 3}
	switch *mode {
	case "r3mem":
		cfg.Storage = jetstream.MemoryStorage
	case "r1mem":
		cfg.Storage, cfg.Replicas = jetstream.MemoryStorage, 1
		cfg.Placement = &jetstream.Placement{Tags: []string{"kmc-node:n1"}}
	}
	t0 := time.Now()
	var kv jetstream.KeyValue
	for {
		c, cancel := context.WithTimeout(ctx, 5*time.Second)
		kv, err = js.CreateKeyValue(c, cfg)
		cancel()
		if err == nil {
			break
		}
		if time.Since(t0) > 60*time.Second {
			panic(err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	fmt.Printf("bucket %s created after %s\n", *mode, time.Since(t0).Round(time.Millisecond))
	var os_ jetstream.ObjectStore
	if *obj {
		for {
			c, cancel := context.WithTimeout(ctx, 5*time.Second)
			os_, err = js.CreateObjectStore(c, jetstream.ObjectStoreConfig{Bucket: "ckpt", Replicas: 3, Storage: jetstream.FileStorage})
			cancel()
			if err == nil {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	// renewers through each node
	for i, n := range nodes {
		rc, err := nats.Connect(n.url, nats.NoReconnect())
		if err != nil {
			panic(err)
		}
		rjs, _ := jetstream.New(rc)
		key := fmt.Sprintf("node.n%d", i+1)
		rkv, _ := rjs.KeyValue(ctx, "leases")
		c, cancel := context.WithTimeout(ctx, 5*time.Second)
		rev, err := rkv.Create(c, key, []byte("x"), jetstream.KeyTTL(*ttl))
		cancel()
		if err != nil {
			panic(err)
		}
		go func() {
			for {
				time.Sleep(*ttl / 3)
				c, cancel := context.WithTimeout(ctx, *ttl/3)
				m := &nats.Msg{Subject: "$KV.leases." + key, Data: []byte("x")}
				pa, err := rjs.PublishMsg(c, m, jetstream.WithMsgTTL(*ttl), jetstream.WithExpectLastSequencePerSubject(rev))
				cancel()
				if err == nil {
					rev = pa.Sequence
				} else if rc.IsClosed() {
					return
				}
			}
		}()
	}
	w, err := kv.WatchAll(ctx)
	if err != nil {
		panic(err)
	}
	si, _ := js.Stream(ctx, "KV_leases")
	info, _ := si.Info(ctx)
	leader := info.Cluster.Leader
	if *victim == "objleader" {
		osi, _ := js.Stream(ctx, "OBJ_ckpt")
		oi, _ := osi.Info(ctx)
		leader = oi.Cluster.Leader
		fmt.Printf("object store leader %s\n", leader)
		*victim = "leader"
	}
	vi := 1
	for i := range nodes {
		name := fmt.Sprintf("n%d", i+1)
		if (*victim == "leader") == (name == leader) && i != 0 {
			vi = i
			break
		}
		if *victim == "leader" && name == leader && i == 0 {
			fmt.Println("leader is n1 (the client's): killing it")
			vi = 0
		}
	}
	// meta leader
	var meta string
	if m, err := nc.Request("$JS.API.INFO", nil, 2*time.Second); err == nil {
		_ = m
	}
	_ = meta
	time.Sleep(2 * time.Second)
	fmt.Printf("stream leader %s, replicas %v; killing n%d\n", leader, info.Cluster.Replicas, vi+1)
	victimKey := fmt.Sprintf("node.n%d", vi+1)
	// drain the watcher's initial values
	go func() {
		for range time.Tick(time.Hour) {
		}
	}()
	drain := time.After(200 * time.Millisecond)
L:
	for {
		select {
		case <-w.Updates():
		case <-drain:
			break L
		}
	}
	kill := time.Now()
	nodes[vi].cmd.Process.Signal(syscall.SIGKILL)
	detected := make(chan time.Duration, 1)
	go func() {
		for e := range w.Updates() {
			if e != nil && e.Key() == victimKey && e.Operation() != jetstream.KeyValuePut {
				detected <- time.Since(kill)
				return
			}
		}
	}()
	// probe writes
	var firstFail, firstOK time.Duration
	fails := 0
	for time.Since(kill) < 60*time.Second {
		c, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		_, err := kv.Put(c, "probe", []byte("p"))
		cancel()
		if err != nil {
			if fails == 0 {
				firstFail = time.Since(kill)
			}
			fails++
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if fails > 0 || time.Since(kill) > 200*time.Millisecond {
			firstOK = time.Since(kill)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	fmt.Printf("kv put: %d failures (first at %s), first success %s after the kill\n", fails, firstFail.Round(time.Millisecond), firstOK.Round(time.Millisecond))
	select {
	case d := <-detected:
		fmt.Printf("lease expiry of %s seen %s after the kill\n", victimKey, d.Round(time.Millisecond))
	case <-time.After(60 * time.Second):
		fmt.Printf("lease expiry of %s not seen in 60s\n", victimKey)
	}
	if *obj {
		st := time.Now()
		data := bytes.Repeat([]byte("k"), 4<<20)
		for {
			c, cancel := context.WithTimeout(ctx, 10*time.Second)
			_, err := os_.PutBytes(c, fmt.Sprintf("o%d", time.Now().UnixNano()), data)
			cancel()
			fmt.Printf("object put: %v after %s\n", err, time.Since(st).Round(time.Millisecond))
			if err == nil || time.Since(st) > 90*time.Second {
				break
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				time.Sleep(200 * time.Millisecond)
			}
		}
	}
}

package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"kmc/app/checkpoint"
)

// syncBuffer is a bytes.Buffer that a node's log and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
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

// TestNodeDropped: a node given a part of a search whose coordinator then falls silent (no
// ping: the node was cut off and the others went on in a later epoch) lets the part go after
// droppedAfter and takes the next run; while its coordinator pings it, it keeps the part and
// refuses another run.
func TestNodeDropped(t *testing.T) {
	defer func(d time.Duration) { droppedAfter = d }(droppedAfter)
	droppedAfter = 2 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := &syncBuffer{}
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- RunNode(ctx, NodeOptions{Data: t.TempDir(), Listen: "127.0.0.1:0", Name: "n1", Workers: 1, Log: log,
			Ready: func(u string) { ready <- u }})
	}()
	var u string
	select {
	case u = <-ready:
	case err := <-done:
		t.Fatalf("the node did not start: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the node did not start in 30 s")
	}
	defer func() { cancel(); <-done }()
	nc, err := nats.Connect(u)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	spec, err := os.ReadFile("../specs/twophase.toml")
	if err != nil {
		t.Fatal(err)
	}
	start := func(run string) string {
		b, _ := json.Marshal(startMsg{Run: run, Parts: 2, Version: checkpoint.Version(), SpecPath: "specs/twophase.toml",
			Spec: spec, SpecSHA: sha(spec), Check: "fixed"})
		m, err := nc.Request(nodePrefix+"n1.start", b, 10*time.Second)
		if err != nil {
			t.Fatalf("start %s: %v", run, err)
		}
		if len(m.Data) == 0 || m.Data[0] != 0 {
			return string(m.Data[min(1, len(m.Data)):])
		}
		return ""
	}
	if refusal := start("r1.e1"); refusal != "" {
		t.Fatalf("start r1.e1: refused: %s", refusal)
	}
	// Pinged for twice droppedAfter, it keeps the part.
	for end := time.Now().Add(2 * droppedAfter); time.Now().Before(end); time.Sleep(watchEvery / 2) {
		if _, err := nc.Request(nodePrefix+"n1.ping", nil, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if refusal := start("r2.e1"); !strings.Contains(refusal, "busy with run r1.e1") {
		t.Fatalf("a node pinged by its run's coordinator took another run (refusal %q); log:\n%s", refusal, log)
	}
	// Silent, it lets the part go and takes the next run.
	deadline := time.Now().Add(droppedAfter + 5*time.Second)
	for !strings.Contains(log.String(), "run r1.e1: no word from its coordinator") {
		if time.Now().After(deadline) {
			t.Fatalf("the node did not let the part of a silent coordinator go; log:\n%s", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if refusal := start("r2.e1"); refusal != "" {
		t.Fatalf("start r2.e1 after the node was dropped from r1.e1: refused: %s; log:\n%s", refusal, log)
	}
}

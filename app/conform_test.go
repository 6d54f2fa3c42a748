package app

// Tests of kmc conform's Go side: trace reading, the harness's input, the comparison and its
// messages, on harness output recorded from Kafka's real classes (testdata/conform/*.jsonl,
// refreshed with: KMC_CONFORM_RECORD=app/testdata/conform/kafka-18723-buggy.VERSION.jsonl
// kmc conform app/testdata/conform/kafka-18723-buggy.itf.json --kafka VERSION). They need no
// Java: make test stays Go-only.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	model "kmc/model/kafka"
	"kmc/specs"
)

const buggyTrace = "testdata/conform/kafka-18723-buggy.itf.json"

// recorded reads a recorded harness output (one trace).
func recorded(t *testing.T, path string) []observed {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []observed
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var o observed
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatal(err)
		}
		if !o.End {
			out = append(out, o)
		}
	}
	return out
}

func buggyJob(t *testing.T) *job {
	t.Helper()
	j, err := loadJob(buggyTrace, &conformFlags{spec: "../specs/kafka-18723.toml"})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func TestConformRecorded(t *testing.T) {
	tests := []struct {
		release   string
		diffState int
		action    string
		want      []string
	}{
		{"3.9.0", -1, "", nil},
		// PR 18852 (3.9.1, 4.0.1, 4.1.0): the epoch-2 batch of the epoch-1 response is refused.
		{"4.1.1", 26, "FollowerHandleFetchResponse(2)", []string{
			"b2's log at offset 1: the model has e2:r4; Kafka 4.1.1 has nothing there (log end 1)",
			"b2's leader-epoch cache: the model has [e1@0 e2@1]; Kafka 4.1.1 has [e1@0]",
			"b2's lastFetchedEpoch: the model has 2; Kafka 4.1.1 has 1",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.release, func(t *testing.T) {
			j := buggyJob(t)
			r := compareJob(j, recorded(t, "testdata/conform/kafka-18723-buggy."+tc.release+".jsonl"), "Kafka "+tc.release)
			if r.harnessErr != "" {
				t.Fatalf("harness error: %s", r.harnessErr)
			}
			if r.diffState != tc.diffState || r.diffAction != tc.action {
				t.Fatalf("first difference at %d %q, want %d %q (%v)", r.diffState, r.diffAction, tc.diffState, tc.action, r.diffs)
			}
			if strings.Join(r.diffs, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("differences:\n%s\nwant:\n%s", strings.Join(r.diffs, "\n"), strings.Join(tc.want, "\n"))
			}
			if tc.diffState < 0 && r.agreed != len(j.trace.States) {
				t.Errorf("agreed %d states, want %d", r.agreed, len(j.trace.States))
			}
			if r.realSteps != 32 || r.modelSteps["ControllerMoveLeader"] != 1 {
				t.Errorf("steps on Kafka %d, model steps %v; want 32 and ControllerMoveLeader x1", r.realSteps, r.modelSteps)
			}
		})
	}
}

// A trace edited by hand is caught at the edited state: the harness executes the trace's
// actions, and the comparison holds each state to what Kafka's classes then hold.
func TestConformEditedTrace(t *testing.T) {
	edits := []struct {
		name  string
		state int
		edit  func(s map[string]any)
		want  string
	}{
		{"hw", 8, func(s map[string]any) {
			setBrokerVar(s, "hw", 1, map[string]any{"#bigint": "1"})
		}, "b1's high watermark: the model has 1; Kafka 3.9.0 has 0"},
		{"log", 6, func(s map[string]any) {
			setBrokerVar(s, "log", 2, []any{map[string]any{"epoch": map[string]any{"#bigint": "1"}, "id": map[string]any{"#bigint": "2"}}})
		}, "b2's log at offset 0: the model has e1:r2; Kafka 3.9.0 has e1:r1"},
		{"lastFetchedEpoch", 20, func(s map[string]any) {
			setBrokerVar(s, "lastFetchedEpoch", 1, map[string]any{"#bigint": "3"})
		}, "b1's lastFetchedEpoch: the model has 3; Kafka 3.9.0 has"},
	}
	for _, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			j := buggyJob(t)
			e.edit(j.trace.States[e.state])
			r := compareJob(j, recorded(t, "testdata/conform/kafka-18723-buggy.3.9.0.jsonl"), "Kafka 3.9.0")
			if r.diffState != e.state {
				t.Fatalf("first difference at state %d, want the edited state %d (%v)", r.diffState, e.state, r.diffs)
			}
			if len(r.diffs) == 0 || !strings.HasPrefix(r.diffs[0], e.want) {
				t.Errorf("difference %q, want it to start with %q", r.diffs, e.want)
			}
		})
	}
}

func setBrokerVar(s map[string]any, name string, b int, v any) {
	m := s[name].(map[string]any)
	for _, p := range m["#map"].([]any) {
		kv := p.([]any)
		if kv[0] == "b"+string(rune('0'+b)) {
			kv[1] = v
		}
	}
}

func TestBuildInputUnmapped(t *testing.T) {
	j := buggyJob(t)
	j.trace.States[5]["mbt::actionTaken"] = "FollowerSendEpochRequest(2)"
	j.trace.States[9]["mbt::actionTaken"] = "ControllerFailover(1)"
	_, unmapped, err := buildInput(j.trace, j.cfg, j.path)
	if err != nil {
		t.Fatal(err)
	}
	want := "ControllerFailover (state 9); FollowerSendEpochRequest (state 5)"
	if got := strings.Join(unmapped, "; "); got != want {
		t.Errorf("unmapped %q, want %q", got, want)
	}
}

func TestBuildInputInputs(t *testing.T) {
	j := buggyJob(t)
	in := j.input
	if len(in.Init) != 3 || in.Init[0].Leader != 1 || in.Init[0].LeaderEpoch != 1 || len(in.Init[0].ISR) != 3 {
		t.Fatalf("init %+v", in.Init)
	}
	var sawLAI, sawAppend bool
	for _, st := range in.Steps {
		switch st.Action {
		case "BrokerHandleLeaderAndIsr":
			sawLAI = true
			if st.Msg["leaderEpoch"] == nil || st.Msg["isr"] == nil {
				t.Errorf("state %d: LeaderAndIsr input %v", st.State, st.Msg)
			}
		case "LeaderAppend":
			sawAppend = true
			if st.Record < 1 {
				t.Errorf("state %d: record id %d", st.State, st.Record)
			}
		}
		if len(st.Live) == 0 {
			t.Errorf("state %d: no live brokers", st.State)
		}
	}
	if !sawLAI || !sawAppend {
		t.Error("no LeaderAndIsr or LeaderAppend step")
	}
}

func TestLoadJobBadInput(t *testing.T) {
	dir := t.TempDir()
	twophase := filepath.Join(dir, "twophase.itf.json")
	os.WriteFile(twophase, []byte(`{"#meta":{"source":"../specs/twophase.toml","kmc::check":"buggy"},"vars":["rmState"],"states":[{"rmState":{"#map":[]}}]}`), 0o644)
	garbage := filepath.Join(dir, "garbage.itf.json")
	os.WriteFile(garbage, []byte(`{"states": [`), 0o644)
	nospec := filepath.Join(dir, "nospec.itf.json")
	os.WriteFile(nospec, []byte(`{"#meta":{},"vars":[],"states":[{}]}`), 0o644)
	tests := []struct{ path, want string }{
		{twophase, `a trace of model "twophase"`},
		{garbage, "not an ITF trace"},
		{nospec, "names no spec"},
		{filepath.Join(dir, "missing.itf.json"), "no such file"},
	}
	for _, tc := range tests {
		_, err := loadJob(tc.path, &conformFlags{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to say %q", tc.path, err, tc.want)
		}
		if _, ok := err.(*errSetup); !ok {
			t.Errorf("%s: %T, want a setup error (exit 2)", tc.path, err)
		}
	}
}

func TestConformConfig(t *testing.T) {
	ok := model.DefaultConfig()
	if err := conformConfig(ok); err != nil {
		t.Errorf("default config: %v", err)
	}
	kraft := ok
	kraft.KRaft, kraft.Version = true, "4.1.1"
	if err := conformConfig(kraft); err != nil {
		t.Errorf("KRaft config: %v", err)
	}
	bad := []struct {
		cfg  model.Config
		want string
	}{
		{func() model.Config { c := ok; c.Controllers = 2; c.Version = "3.9"; return c }(), "ZooKeeper control plane"},
		{func() model.Config { c := ok; c.Version = "1.1"; return c }(), "truncates by leader-epoch"},
	}
	for _, tc := range bad {
		if err := conformConfig(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.cfg.Version, err, tc.want)
		}
	}
}

func TestParseSuite(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ text, want string }{
		{"a.json | 4.1.1 | agree\n", ""},
		{"# c\n\na.json | 4.1.1 3.9.0 | differs FollowerHandleFetchResponse\n", ""},
		{"a.json | 4.1.1\n", "three fields"},
		{"a.json | 4.1 | agree\n", `release "4.1"`},
		{"a.json | 4.1.1 | maybe\n", "EXPECT must be"},
		{"a.json |  | agree\n", "no release"},
		{"# only comments\n", "no rows"},
	}
	for i, tc := range tests {
		p := filepath.Join(dir, "suite.txt")
		os.WriteFile(p, []byte(tc.text), 0o644)
		rows, err := parseSuite(p)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%d: %v", i, err)
		case tc.want == "" && len(rows) != 1:
			t.Errorf("%d: %d rows", i, len(rows))
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%d: error %v, want %q", i, err, tc.want)
		}
	}
	// The project's own suite parses.
	if _, err := parseSuite("../conformance/suite.txt"); err != nil {
		t.Error(err)
	}
}

func TestParseAction(t *testing.T) {
	tests := []struct {
		in   string
		name string
		args []int
		bad  bool
	}{
		{"LeaderHandleFetch(2,3)", "LeaderHandleFetch", []int{2, 3}, false},
		{"init", "init", nil, false},
		{"BrokerPowerLoss(2, 2, 2, 1)", "BrokerPowerLoss", []int{2, 2, 2, 1}, false},
		{"X(a)", "", nil, true},
	}
	for _, tc := range tests {
		name, args, err := parseAction(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && (name != tc.name || !sameInts(args, tc.args))) {
			t.Errorf("%q: %q %v %v", tc.in, name, args, err)
		}
	}
}

func FuzzParseAction(f *testing.F) {
	for _, s := range []string{"LeaderHandleFetch(2,3)", "init", "X(", "X()", "X(1,,2)", "(((", "A(-1)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, args, err := parseAction(s)
		if err == nil && strings.Contains(s, "(") && strings.HasSuffix(s, ")") && !strings.HasPrefix(s, name+"(") {
			t.Errorf("%q: name %q", s, name)
		}
		_ = args
	})
}

func FuzzParseSuite(f *testing.F) {
	for _, s := range []string{"a | 4.1.1 | agree", "a | 4.1.1 | differs X", "|||", "# x\n", "a|b|c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := filepath.Join(t.TempDir(), "s.txt")
		os.WriteFile(p, []byte(s), 0o644)
		rows, err := parseSuite(p)
		for _, r := range rows {
			if err == nil && (len(r.releases) == 0 || r.expect == "") {
				t.Errorf("%q: row %+v", s, r)
			}
		}
	})
}

// Walk k of a seed is the same walk every time, and walks differ.
func TestWalkDeterministic(t *testing.T) {
	spec, err := specs.Load("../specs/kafka-18723.toml", []string{"crash=1", "lag=1"})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := spec.CheckByName("buggy")
	m, err := model.New(specs.KafkaConfig(c.Config))
	if err != nil {
		t.Fatal(err)
	}
	enc := func(states []map[string]any) []byte {
		b, _ := json.Marshal(states)
		return b
	}
	a, b := walk(m, 1, 5, 40), walk(m, 1, 5, 40)
	if !bytes.Equal(enc(a), enc(b)) {
		t.Error("walk 5 of seed 1 differs between two runs")
	}
	if bytes.Equal(enc(a), enc(walk(m, 1, 6, 40))) {
		t.Error("walks 5 and 6 are the same")
	}
	if len(a) < 2 || len(a) > 40 || a[0]["mbt::actionTaken"] != "init" {
		t.Errorf("walk of %d states, first action %v", len(a), a[0]["mbt::actionTaken"])
	}
}

func TestClassifyShrink(t *testing.T) {
	j := buggyJob(t)
	s := j.trace.States[3]
	// The model's leader b1 proposes {b1,b2}; Kafka's proposes {b1}: b2 and b3 both lag.
	s["messages"] = map[string]any{"#set": []any{map[string]any{"type": "AlterPartition", "from": "b1", "to": "controller",
		"isr": map[string]any{"#set": []any{"b1", "b2"}}}}}
	o := observed{Brokers: []obsBroker{{ID: 1, LEO: 2, FLEO: map[string]int{"2": 0, "3": 0}}, {ID: 2}, {ID: 3}},
		Messages: []obsMessage{{Type: "AlterPartition", From: 1, ISR: []int{1}}}}
	diffs := []string{"AlterPartition from b1 to the controller: proposed ISR: the model has {b1,b2}; Kafka has {b1}"}
	if r := classify("LeaderShrinkISR", diffs, &o, s); r == nil || r.Name != "isr-shrink" {
		t.Errorf("classified as %v, want isr-shrink", r)
	}
	// A caught-up follower dropped by Kafka is no known abstraction.
	o.Brokers[0].FLEO["2"] = 2
	if r := classify("LeaderShrinkISR", diffs, &o, s); r != nil {
		t.Errorf("classified as %s, want none", r.Name)
	}
}

// Without java or mvn kmc conform says what to install and exits 2.
func TestConformNoJava(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var out, errb bytes.Buffer
	code := Conform([]string{buggyTrace, "--spec", "../specs/kafka-18723.toml", "--kafka", "3.9.0"}, &out, &errb)
	if code != ConformUsage || !strings.Contains(errb.String(), "openjdk-17") || !strings.Contains(errb.String(), "maven") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

func TestConformUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "want one or more trace files"},
		{[]string{"--walks", "3", "x.json"}, "takes no trace files"},
		{[]string{"--walks", "3", "--spec", "../specs/kafka-18723.toml", "--check", "buggy"}, "needs --kafka"},
		{[]string{"--bogus"}, "unknown flag"},
		{[]string{buggyTrace, "--spec", "../specs/kafka-18723.toml", "--kafka", "4.1"}, "three numbers"},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		if code := Conform(tc.args, &out, &errb); code != ConformUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
}

func TestReleaseProfile(t *testing.T) {
	tests := []struct {
		rel, version string
		bad          bool
	}{
		{"3.9.0", "3.9.0", false},
		{"3.9.1", "3.9.1", false},
		{"3.9.2", "3.9.1", false},
		{"4.0.0", "4.0.0", false},
		{"4.0.1", "4.0.1", false},
		{"4.0.2", "4.0.1", false},
		{"4.1.2", "4.1.1", false},
		{"4.4.0", "4.1.1", false},
		{"3.8.1", "", true},
		{"2.8.2", "", true},
		{"4.1", "", true},
	}
	for _, tc := range tests {
		v, err := releaseProfile(tc.rel)
		if (err != nil) != tc.bad || v != tc.version {
			t.Errorf("%s: %q %v, want %q (error %v)", tc.rel, v, err, tc.version, tc.bad)
		}
	}
}

// TestBuildInputShutdownSteps: the shutdown's steps of walks with crashes and controlled
// shutdowns reach the harness with the broker's status after them, so that it runs the step
// Kafka takes (BrokerCrash from 3.8 begins the shutdown and BrokerStop ends it; a controlled
// shutdown leaves the broker serving, with ZooKeeper without the fetcher of a partition it
// follows), and none is left unmapped.
func TestBuildInputShutdownSteps(t *testing.T) {
	for _, rel := range []string{"3.9.2", "4.1.1"} {
		spec, err := specs.Load("../specs/kafka-18723.toml", []string{"crash=2", "controlled_shutdown=1", "lag=1", "leader_change=1"})
		if err != nil {
			t.Fatal(err)
		}
		c, _ := spec.CheckByName("buggy")
		cfg := specs.KafkaConfig(c.Config)
		v, err := releaseProfile(rel)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Version, cfg.Without, cfg.Switches = v, 0, cfg.Switches.With(model.Kafka18723, false)
		m, err := model.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for k := int64(0); k < 300; k++ {
			tr := &itfTrace{States: walk(m, 1, k, 60)}
			in, unmapped, err := buildInput(tr, cfg, "walk")
			if err != nil || len(unmapped) > 0 {
				t.Fatalf("%s walk %d: %v, unmapped %v", rel, k, err, unmapped)
			}
			for _, st := range in.Steps {
				// The controller's brokers in controlled shutdown reach a KRaft-era broker's
				// metadata cache (Partition.isReplicaIsrEligible); ZooKeeper's reports none.
				if zk := rel == "3.9.2"; zk != (st.ShuttingDown == nil) {
					t.Fatalf("%s walk %d state %d: shuttingDown %v", rel, k, st.State, st.ShuttingDown)
				}
				if len(st.ShuttingDown) > 0 {
					seen["shutting down in the controller's view"]++
				}
				switch st.Action {
				case "BrokerCrash", "BrokerControlledShutdown", "BrokerBeginShutdown", "BrokerStop":
					key := st.Action + " -> " + st.Status
					if st.StopFetcher {
						key += ", fetcher stopped"
					}
					seen[key]++
				}
			}
		}
		t.Logf("%s: %v", rel, seen)
		want := []string{"BrokerCrash -> closing", "BrokerStop -> down", "BrokerControlledShutdown -> shutting down", "BrokerBeginShutdown -> closing"}
		if rel == "3.9.2" {
			want = append(want, "BrokerControlledShutdown -> shutting down, fetcher stopped")
		} else {
			want = append(want, "shutting down in the controller's view")
		}
		for _, w := range want {
			if seen[w] == 0 {
				t.Errorf("%s: no step %q in 300 walks; saw %v", rel, w, seen)
			}
		}
		for k := range seen {
			if strings.HasSuffix(k, "-> ") || strings.Contains(k, "starting") {
				t.Errorf("%s: step %q: no status the harness runs", rel, k)
			}
		}
	}
}

const kraftTrace = "../conformance/traces/kraft-last-replica-standing-elr.itf.json"

func kraftJob(t *testing.T) *job {
	t.Helper()
	j, err := loadJob(kraftTrace, &conformFlags{spec: "../specs/kafka-last-replica-standing.toml", check: "kraft-elr"})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// A KRaft trace's controller steps carry the handler Kafka's controller runs and the model's
// prior state; a broker's replay carries the registration it applies.
func TestBuildInputKRaft(t *testing.T) {
	j := kraftJob(t)
	steps := map[int]harnessStep{}
	for _, st := range j.input.Steps {
		steps[st.State] = st
	}
	tests := []struct {
		state   int
		handler string
		clean   bool
		prior   string
		replays string
	}{
		// ControllerFenceBroker(2): handleBrokerFenced over ISR {b1,b2}, b2 not yet fenced.
		{3, "fenced", false, "leader b1, leader epoch 1, partition epoch 0, ISR {b1,b2}, ELR {}, last known ELR {}", ""},
		// BrokerReplayMetadata(1): b1 applies the fencing's PartitionChangeRecord.
		{4, "", false, "", "[{1 1 1 1 [1] false false}]"},
		// BrokerReplayMetadata(1): the FenceBroker record changes no partition.
		{5, "", false, "", "[]"},
		// ControllerRegisterBroker(1) after a power loss: unclean (no clean-shutdown file).
		{8, "shutdown", false, "leader b1, leader epoch 1, partition epoch 1, ISR {b1}, ELR {}, last known ELR {}", ""},
		// ControllerUnfenceBroker(1): the leaderless partition, b1 the last known leader.
		{11, "unfenced", false, "leader none, leader epoch 2, partition epoch 2, ISR {}, ELR {}, last known ELR {b1}", ""},
	}
	for _, tc := range tests {
		st, ok := steps[tc.state]
		if !ok {
			t.Fatalf("no step for state %d", tc.state)
		}
		if tc.handler == "" {
			if st.Kraft != nil {
				t.Errorf("state %d %s: controller input %+v, want none", tc.state, st.Action, st.Kraft)
			}
		} else {
			if st.Kraft == nil {
				t.Fatalf("state %d %s: no controller input", tc.state, st.Action)
			}
			k := st.Kraft
			if k.Handler != tc.handler || k.Clean != tc.clean || partitionText(k.Prior) != tc.prior || !k.ELR || k.MinISR != 1 {
				t.Errorf("state %d %s: %s clean=%v elr=%v minIsr=%d prior %s; want %s clean=%v prior %s",
					tc.state, st.Action, k.Handler, k.Clean, k.ELR, k.MinISR, partitionText(k.Prior), tc.handler, tc.clean, tc.prior)
			}
			if len(k.Brokers) != 2 || k.Brokers[1].Epoch != 1 || !sameInts(k.Replicas, []int{1, 2}) {
				t.Errorf("state %d: brokers %+v replicas %v", tc.state, k.Brokers, k.Replicas)
			}
		}
		if tc.replays != "" {
			if got := fmt.Sprint(orReplays(st.Replays)); got != tc.replays {
				t.Errorf("state %d %s: replays %s, want %s", tc.state, st.Action, got, tc.replays)
			}
		}
	}
	// The fenced broker 2 at b1's unfencing.
	if k := steps[11].Kraft; k == nil || !k.Brokers[1].Fenced || !k.Brokers[0].Fenced {
		t.Errorf("state 11: broker registrations %+v, want both fenced", steps[11].Kraft)
	}
}

func orReplays(r []harnessReplay) []harnessReplay {
	if r == nil {
		return []harnessReplay{}
	}
	return r
}

// The controller's partition change is compared with the model's next state: the recorded
// output of Kafka 4.1.1's ReplicationControlManager agrees with the trace, and a trace whose
// controller state was edited is caught at the edited state.
func TestConformKRaftRecorded(t *testing.T) {
	const rec = "testdata/conform/kraft-last-replica-standing-elr.4.1.1.jsonl"
	j := kraftJob(t)
	r := compareJob(j, recorded(t, rec), "Kafka 4.1.1")
	if r.harnessErr != "" || r.diffState != -1 || r.agreed != len(j.trace.States) {
		t.Fatalf("harness error %q, first difference %d (%v), agreed %d of %d", r.harnessErr, r.diffState, r.diffs, r.agreed, len(j.trace.States))
	}
	if r.realSteps != 9 || r.modelSteps["BrokerReplayMetadata"] != 2 {
		t.Errorf("steps on Kafka %d, model steps %v; want 9 and BrokerReplayMetadata x2", r.realSteps, r.modelSteps)
	}
	edits := []struct {
		name  string
		state int
		edit  func(s map[string]any)
		want  string
	}{
		{"leader epoch", 3, func(s map[string]any) {
			s["controller"].(map[string]any)["leaderEpoch"] = map[string]any{"#bigint": "2"}
		}, "the controller's partition: the model has leader b1, leader epoch 2, partition epoch 1, ISR {b1}, ELR {}, last known ELR {}; Kafka 4.1.1's ReplicationControlManager.handleBrokerFenced writes leader b1, leader epoch 1, partition epoch 1, ISR {b1}"},
		{"elr", 8, func(s map[string]any) {
			s["kraft"].(map[string]any)["elr"] = map[string]any{"#set": []any{"b1"}}
		}, "the controller's partition: the model has leader none, leader epoch 2, partition epoch 2, ISR {}, ELR {b1}"},
	}
	for _, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			j := kraftJob(t)
			e.edit(j.trace.States[e.state])
			r := compareJob(j, recorded(t, rec), "Kafka 4.1.1")
			if r.diffState != e.state {
				t.Fatalf("first difference at state %d, want the edited state %d (%v)", r.diffState, e.state, r.diffs)
			}
			if len(r.diffs) == 0 || !strings.HasPrefix(r.diffs[0], e.want) {
				t.Errorf("difference %q, want it to start with %q", r.diffs, e.want)
			}
		})
	}
}

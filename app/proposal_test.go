package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kmc/checker"
	"kmc/model/kafka"
	"kmc/specs"
	"kmc/traces"
)

// Reference: issue 28 (a Kafka engineer checks their own change). docs/proposals.md adds a
// proposal end to end; this test carries it out with the same declaration, registered by
// the test binary only: spec parsing, kmc check (its branch fired, vacuity), kmc list's
// table and kmc why. TestProposalDocMatches keeps the doc's copy equal to this one.

// BEGIN proposal (docs/proposals.md quotes this declaration)
var dropMixedResponse = kafka.Register(&kafka.Switch{
	Name: "KAFKA-18723-drop-response",
	Doc:  "a proposal for KAFKA-18723: the follower drops a whole fetch response that carries a batch above its fetch's leader epoch",
	Kafka: "proposal: in AbstractFetcherThread.processFetchRequest (3.9.1 core/src/main/scala/kafka/server/" +
		"AbstractFetcherThread.scala), before processPartitionData, skip the partition's data when a batch's " +
		"partitionLeaderEpoch is above the request's currentLeaderEpoch",
	Versions: "every release",
	Kinds:    []string{"FollowerHandleFetchResponse"},
	Branches: []string{"drop-response"},
	DropFetchResponse: func(_ *kafka.Model, _ kafka.Replica, resp kafka.Msg) bool {
		for k := uint8(0); k < resp.N; k++ {
			if resp.Recs[k].Epoch > resp.Epoch {
				return true
			}
		}
		return false
	},
})

// END proposal

// proposalSpec is specs/kafka-18723.toml's configuration with the proposal on in check
// "mine" (docs/proposals.md shows the same file).
const proposalSpec = `model = "kafka"
doc = "KAFKA-18723 with my proposal: drop the whole response"
properties = ["NoPermanentDivergence"]

[constants]
brokers = 3
min_isr = 1
max_records = 4
max_epoch = 2
max_fetch_records = 1
version = "3.9.0"

[faults]
leader_change = 1

[[check]]
name = "buggy"
fixes = []
expect = "violated"
property = "NoPermanentDivergence"

[[check]]
name = "mine"
fixes = ["KAFKA-18723-drop-response"]
expect = "ok"
vacuous = false
`

func TestProposalEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("two searches of about a million states")
	}
	spec, err := specs.Parse("mine.toml", []byte(proposalSpec), nil)
	if err != nil {
		t.Fatalf("the spec naming the proposal: %v", err)
	}
	// kmc list: the family lists it, with its citation and branch.
	i := slices.IndexFunc(spec.Family.Switches, func(s specs.Switch) bool { return s.Name == dropMixedResponse.Name })
	if i < 0 || !spec.Family.Switches[i].Proposal || spec.Family.Switches[i].Ref != dropMixedResponse.Kafka ||
		!slices.Equal(spec.Family.Switches[i].Branches, []string{"drop-response"}) {
		t.Fatalf("family switches: got %+v, want the proposal with its citation and branch", spec.Family.Switches)
	}
	// kmc check mine: ok, not vacuous, and the proposal's branch fired.
	res, err := Check(context.Background(), spec, "mine", CheckOptions{Search: Search{Workers: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checker.OK || len(res.Vacuity) != 0 || len(res.Mismatches()) != 0 {
		t.Fatalf("check mine: got %v %s, vacuity %q, mismatches %q; want ok, not vacuous", res.Verdict, res.Property, res.Vacuity, res.Mismatches())
	}
	if n := hits(res.Branches, dropMixedResponse.Name); n == 0 {
		t.Errorf("check mine: the proposal's branch drop-response never fired (branches %+v)", res.Branches)
	}
	// kmc why on buggy's counterexample: the proposal takes the violation off the trace.
	out := filepath.Join(t.TempDir(), "buggy")
	bug, err := Check(context.Background(), spec, "buggy", CheckOptions{Search: Search{Workers: 2}, Out: out})
	if err != nil || bug.Verdict != checker.Violated {
		t.Fatalf("check buggy: got %v, %v; want violated", bug, err)
	}
	f, err := os.Open(filepath.Join(out, "trace.itf.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, _, err := traces.LoadITFMeta(f)
	if err != nil {
		t.Fatal(err)
	}
	why, err := Why(context.Background(), spec, tr, "buggy", WhyOptions{ReplayOnly: true,
		Switches: []string{dropMixedResponse.Name, specs.Kafka13077}})
	if err != nil {
		t.Fatal(err)
	}
	about, _ := why.About()
	if got := switchNames(about); got != dropMixedResponse.Name+" on" {
		t.Errorf("why: about: got %q, want %q", got, dropMixedResponse.Name+" on")
	}
}

// TestProposalVacuity: with no leader change no response carries a batch above its fetch's
// epoch, so the proposal's branch never fires though its kind of action is taken: the
// check is vacuous in the proposal, and says so.
func TestProposalVacuity(t *testing.T) {
	spec, err := specs.Parse("mine.toml", []byte(proposalSpec), []string{"leader_change=0", "max_records=2"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Check(context.Background(), spec, "mine", CheckOptions{Search: Search{Workers: 2}, Coverage: true})
	if err != nil {
		t.Fatal(err)
	}
	want := "fix KAFKA-18723-drop-response: branch drop-response never fired"
	if res.Verdict != checker.OK || !slices.Contains(res.Vacuity, want) {
		t.Errorf("got %v, vacuity %q; want ok with %q", res.Verdict, res.Vacuity, want)
	}
	if hits(res.Branches, dropMixedResponse.Name) != 0 || !slices.ContainsFunc(res.Branches, func(b specs.BranchCount) bool {
		return b.Guard == "FetchLeaderEpoch" && b.On
	}) {
		t.Errorf("branches: got %+v, want the proposal's at 0 and the guards listed", res.Branches)
	}
}

// TestBranchCountsDeterministic: the counts are the same with 1 and 2 workers (each
// distinct state is expanded once).
func TestBranchCountsDeterministic(t *testing.T) {
	spec := load(t, kafka14154)
	var got [][]specs.BranchCount
	for _, w := range []int{1, 2} {
		res, err := Check(context.Background(), spec, "fixed", CheckOptions{Search: Search{Workers: w}, Coverage: true})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, res.Branches)
	}
	if !slices.Equal(got[0], got[1]) {
		t.Errorf("1 worker: %+v\n2 workers: %+v", got[0], got[1])
	}
	if hits(got[0], specs.Kafka14154) == 0 {
		t.Errorf("KAFKA-14154's not-controller-ahead never fired in check fixed: %+v", got[0])
	}
}

// TestProposalDocMatches: docs/proposals.md quotes the declaration above verbatim.
func TestProposalDocMatches(t *testing.T) {
	src, err := os.ReadFile("proposal_test.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../docs/proposals.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	decl := s[strings.Index(s, "var dropMixedResponse"):strings.Index(s, "// END proposal")]
	decl = strings.TrimSpace(strings.Replace(decl, "var dropMixedResponse = kafka.Register(&kafka.Switch{", "var DropMixedResponse = Register(&Switch{", 1))
	decl = strings.ReplaceAll(strings.ReplaceAll(decl, "*kafka.Model", "*Model"), "kafka.", "")
	if !strings.Contains(string(doc), decl) {
		t.Errorf("docs/proposals.md does not quote the declaration of proposal_test.go; want it to hold\n%s", decl)
	}
	if !strings.Contains(string(doc), proposalSpec) {
		t.Errorf("docs/proposals.md does not show proposalSpec; want it to hold\n%s", proposalSpec)
	}
}

// hits sums the counts of switch sw's branches.
func hits(br []specs.BranchCount, sw string) uint64 {
	var n uint64
	for _, b := range br {
		if b.Switch == sw {
			n += b.Hits
		}
	}
	return n
}

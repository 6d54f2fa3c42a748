package app

// Comparing what Kafka's classes hold after a step with the trace's state, variable by variable,
// in the vocabulary of kmc's traces: "b3's log at offset 1: the model has e1:r2; Kafka 4.1.1
// has nothing (log end 1)".

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// observed is one line of the harness's output.
type observed struct {
	Trace        int          `json:"trace"`
	State        int          `json:"state"`
	End          bool         `json:"end"`
	HarnessError string       `json:"harnessError"`
	Stack        string       `json:"stack"`
	Events       []string     `json:"events"`
	Brokers      []obsBroker  `json:"brokers"`
	Messages     []obsMessage `json:"messages"`
	Kraft        *obsKraft    `json:"kraft"`
}

type obsBroker struct {
	ID               int            `json:"id"`
	Status           string         `json:"status"`
	Role             string         `json:"role"`
	Leader           int64          `json:"leader"`
	LeaderEpoch      int64          `json:"leaderEpoch"`
	PartitionEpoch   int64          `json:"partitionEpoch"`
	FetchState       string         `json:"fetchState"`
	LastFetchedEpoch int64          `json:"lastFetchedEpoch"`
	Log              [][2]int64     `json:"log"`
	LEO              int64          `json:"leo"`
	HW               int64          `json:"hw"`
	Cache            [][2]int64     `json:"cache"`
	Checkpoint       [][2]int64     `json:"checkpoint"`
	ISR              []int          `json:"isr"`
	MaximalISR       []int          `json:"maximalIsr"`
	Pending          *bool          `json:"pending"`
	LESO             int64          `json:"leso"`
	FLEO             map[string]int `json:"fleo"`
}

type obsMessage struct {
	Type               string     `json:"type"`
	From               int        `json:"from"`
	To                 int        `json:"to"`
	CurrentLeaderEpoch int64      `json:"currentLeaderEpoch"`
	FetchOffset        int64      `json:"fetchOffset"`
	LastFetchedEpoch   int64      `json:"lastFetchedEpoch"`
	Error              string     `json:"error"`
	HighWatermark      int64      `json:"highWatermark"`
	DivergingEpoch     [2]int64   `json:"divergingEpoch"`
	LeaderLogEndOffset *int64     `json:"leaderLogEndOffset"`
	StartPosition      int64      `json:"startPosition"`
	EndPosition        int64      `json:"endPosition"`
	Records            [][3]int64 `json:"records"`
	ReadDone           bool       `json:"readDone"`
	LeaderEpoch        int64      `json:"leaderEpoch"`
	PartitionEpoch     int64      `json:"partitionEpoch"`
	ISR                []int      `json:"isr"`
}

// entry prints a log entry as kmc's views do: e1:r2, or "a hole".
func entry(epoch, id int64) string {
	if id == 0 {
		return "a hole"
	}
	return "e" + strconv.FormatInt(epoch, 10) + ":r" + strconv.FormatInt(id, 10)
}

func setText(s []int) string {
	parts := make([]string, len(s))
	for i, b := range s {
		parts[i] = "b" + strconv.Itoa(b)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// compareState lists the differences between the trace's state s and what Kafka holds (o), by
// broker, then the messages in flight. kafka names the release ("Kafka 4.1.1").
func compareState(s map[string]any, o *observed, brokers int, kafka string) []string {
	var diffs []string
	add := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }
	if len(o.Brokers) != brokers {
		add("the harness reports %d brokers, the trace has %d", len(o.Brokers), brokers)
		return diffs
	}
	for b := 1; b <= brokers; b++ {
		k := &o.Brokers[b-1]
		name := "b" + strconv.Itoa(b)
		status := itfStr(brokerVar(s, "status", b))
		if status == "starting" {
			status = "up" // restarted, not yet registered: the process is up
		}
		if status != k.Status {
			add("%s is %s in the model; %s has it %s", name, status, kafka, k.Status)
			continue
		}
		str := func(v, what string, got string) {
			if want := itfStr(brokerVar(s, v, b)); want != got {
				add("%s's %s: the model has %s; %s has %s", name, what, want, kafka, got)
			}
		}
		num := func(v, what string, got int64) {
			if want := intOf(brokerVar(s, v, b)); want != got {
				add("%s's %s: the model has %d; %s has %d", name, what, want, kafka, got)
			}
		}
		// The log first: it is what the properties are about.
		var log [][2]int64
		for _, e := range asList(brokerVar(s, "log", b)) {
			log = append(log, [2]int64{recInt(e, "epoch"), recInt(e, "id")})
		}
		if d := compareLog(name, log, k.Log, kafka); d != "" {
			add("%s", d)
		}
		num("hw", "high watermark", k.HW)
		// The cache, then the checkpoint file: the cache followed by the entries a truncation
		// removed whose asynchronous checkpoint write has not run (onlyInCheckpointFile).
		var cache, file [][2]int64
		for _, e := range asList(brokerVar(s, "epochCache", b)) {
			en := [2]int64{recInt(e, "epoch"), recInt(e, "startOffset")}
			if only, _ := rec(e, "onlyInCheckpointFile").(bool); !only {
				cache = append(cache, en)
			}
			file = append(file, en)
		}
		if !sameEntries(cache, k.Cache) {
			add("%s's leader-epoch cache: the model has %s; %s has %s", name, cacheText(cache), kafka, cacheText(k.Cache))
		} else if k.Checkpoint != nil && !sameEntries(file, k.Checkpoint) {
			add("%s's leader-epoch-checkpoint file: the model has %s; %s has %s", name, cacheText(file), kafka, cacheText(k.Checkpoint))
		}
		role := k.Role
		if _, kraft := s["kraft"]; kraft && role == "follower" && k.Leader == 0 && itfStr(brokerVar(s, "role", b)) == "none" && intOf(brokerVar(s, "leader", b)) == 0 {
			// A KRaft broker that published a leaderless partition: Kafka makes it a follower of
			// no leader (ReplicaManager.applyLocalFollowersDelta, leader -1, no fetcher); the
			// model keeps the replica without a role until a leader exists (kraft.go,
			// publishImage), with the same epochs. Both fetch nothing and lead nothing.
			role = "none"
		}
		str("role", "role", role)
		num("leader", "leader", k.Leader)
		num("leaderEpoch", "leader epoch", k.LeaderEpoch)
		num("partitionEpoch", "partition epoch", k.PartitionEpoch)
		str("fetchState", "fetch state", k.FetchState)
		if fs := itfStr(brokerVar(s, "fetchState", b)); fs == "fetching" || fs == "truncating" {
			// A failed or idle partition has no fetch state in Kafka (it left its fetcher);
			// the model keeps its last value, unused until the next LeaderAndIsr resets it.
			num("lastFetchedEpoch", "lastFetchedEpoch", k.LastFetchedEpoch)
		}
		if k.Role == "leader" && itfStr(brokerVar(s, "role", b)) == "leader" {
			ls := brokerVar(s, "leaderState", b)
			if want := brokerSet(rec(ls, "isr")); !sameInts(want, k.ISR) {
				add("%s's ISR: the model has %s; %s has %s", name, setText(want), kafka, setText(k.ISR))
			}
			if want := brokerSet(rec(ls, "maximalIsr")); !sameInts(want, k.MaximalISR) {
				add("%s's maximal ISR: the model has %s; %s has %s", name, setText(want), kafka, setText(k.MaximalISR))
			}
			if want, _ := rec(ls, "pendingAlterPartition").(bool); k.Pending != nil && want != *k.Pending {
				add("%s's AlterPartition in flight: the model says %v; %s says %v", name, want, kafka, *k.Pending)
			}
			if want := recInt(ls, "leaderEpochStartOffset"); want != k.LESO {
				add("%s's leader epoch start offset: the model has %d; %s has %d", name, want, kafka, k.LESO)
			}
			fleo := itfMap(rec(ls, "followerLogEndOffset"))
			for f := 1; f <= brokers; f++ {
				if f == b {
					continue
				}
				want := intOf(fleo["b"+strconv.Itoa(f)])
				if got := int64(k.FLEO[strconv.Itoa(f)]); want != got {
					add("%s's log end offset of follower b%d: the model has %d; %s has %d", name, f, want, kafka, got)
				}
			}
		}
	}
	diffs = append(diffs, compareMessages(s, o, kafka)...)
	return diffs
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func sameEntries(a, b [][2]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func cacheText(c [][2]int64) string {
	if len(c) == 0 {
		return "no entries"
	}
	parts := make([]string, len(c))
	for i, e := range c {
		parts[i] = "e" + strconv.FormatInt(e[0], 10) + "@" + strconv.FormatInt(e[1], 10)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// compareLog describes the first offset where the two logs differ, or "".
func compareLog(name string, want, got [][2]int64, kafka string) string {
	for o := 0; o < max(len(want), len(got)); o++ {
		switch {
		case o >= len(want):
			return fmt.Sprintf("%s's log at offset %d: the model's log ends there (log end %d); %s has %s", name, o, len(want), kafka, entry(got[o][0], got[o][1]))
		case o >= len(got):
			return fmt.Sprintf("%s's log at offset %d: the model has %s; %s has nothing there (log end %d)", name, o, entry(want[o][0], want[o][1]), kafka, len(got))
		case want[o] != got[o]:
			return fmt.Sprintf("%s's log at offset %d: the model has %s; %s has %s", name, o, entry(want[o][0], want[o][1]), kafka, entry(got[o][0], got[o][1]))
		}
	}
	return ""
}

// msgKey identifies a message for the comparison: its type, sender and receiver.
func msgKey(typ string, from, to int) string {
	return fmt.Sprintf("%s from b%d to b%d", typ, from, to)
}

// compareMessages compares the fetch-plane messages (FetchRequest, FetchResponse) and the
// brokers' AlterPartition requests; the control plane's own messages (LeaderAndIsr,
// AlterPartitionResponse) are the model's, the harness's inputs.
func compareMessages(s map[string]any, o *observed, kafka string) []string {
	var diffs []string
	want := map[string]any{}
	for _, m := range itfSet(s["messages"]) {
		typ := itfStr(rec(m, "type"))
		if typ != "FetchRequest" && typ != "FetchResponse" && typ != "AlterPartition" {
			continue
		}
		to := brokerNum(itfStr(rec(m, "to")))
		want[msgKey(typ, brokerNum(itfStr(rec(m, "from"))), to)] = m
	}
	got := map[string]*obsMessage{}
	for i := range o.Messages {
		m := &o.Messages[i]
		to := m.To
		if m.Type == "AlterPartition" {
			to = 0
		}
		got[msgKey(m.Type, m.From, to)] = m
	}
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		w, g := want[k], got[k]
		label := strings.Replace(k, " to b0", " to the controller", 1)
		switch {
		case w == nil:
			diffs = append(diffs, fmt.Sprintf("%s: %s has it in flight (%s); the model has none", label, kafka, g.text()))
			continue
		case g == nil:
			diffs = append(diffs, fmt.Sprintf("%s: the model has it in flight; %s has none", label, kafka))
			continue
		}
		field := func(what string, want, got int64) {
			if want != got {
				diffs = append(diffs, fmt.Sprintf("%s: %s: the model has %d; %s has %d", label, what, want, kafka, got))
			}
		}
		switch g.Type {
		case "FetchRequest":
			field("currentLeaderEpoch", recInt(w, "currentLeaderEpoch"), g.CurrentLeaderEpoch)
			field("fetchOffset", recInt(w, "fetchOffset"), g.FetchOffset)
			field("lastFetchedEpoch", recInt(w, "lastFetchedEpoch"), g.LastFetchedEpoch)
		case "FetchResponse":
			field("currentLeaderEpoch", recInt(w, "currentLeaderEpoch"), g.CurrentLeaderEpoch)
			field("fetchOffset", recInt(w, "fetchOffset"), g.FetchOffset)
			if e := itfStr(rec(w, "error")); e != g.Error {
				diffs = append(diffs, fmt.Sprintf("%s: error: the model has %s; %s has %s", label, e, kafka, g.Error))
				continue
			}
			if g.Error == "NONE" {
				field("highWatermark", recInt(w, "highWatermark"), g.HighWatermark)
				d := rec(w, "divergingEpoch")
				field("divergingEpoch's epoch", recInt(d, "epoch"), g.DivergingEpoch[0])
				field("divergingEpoch's end offset", recInt(d, "endOffset"), g.DivergingEpoch[1])
			}
			var recs [][3]int64
			for _, r := range asList(rec(w, "records")) {
				recs = append(recs, [3]int64{recInt(r, "offset"), recInt(r, "epoch"), recInt(r, "id")})
			}
			_, positions := rec(w, "startPosition").(map[string]any)
			if d := compareRecords(recs, g.Records, positions); d != "" {
				diffs = append(diffs, fmt.Sprintf("%s: records copied so far: %s; %s has %s", label, d, kafka, recordsText(g.Records, true)))
			}
		case "AlterPartition":
			field("leaderEpoch", recInt(w, "leaderEpoch"), g.LeaderEpoch)
			field("partitionEpoch", recInt(w, "partitionEpoch"), g.PartitionEpoch)
			if ws := brokerSet(rec(w, "isr")); !sameInts(ws, g.ISR) {
				diffs = append(diffs, fmt.Sprintf("%s: proposed ISR: the model has %s; %s has %s", label, setText(ws), kafka, setText(g.ISR)))
			}
		}
	}
	return diffs
}

// compareRecords compares copied batches by epoch and id (and base offset when the trace
// records positions), returning the model's side as text when they differ.
func compareRecords(want, got [][3]int64, offsets bool) string {
	same := len(want) == len(got)
	for i := 0; same && i < len(want); i++ {
		same = want[i][1] == got[i][1] && want[i][2] == got[i][2] && (!offsets || want[i][0] == got[i][0])
	}
	if same {
		return ""
	}
	return "the model has " + recordsText(want, offsets)
}

func recordsText(r [][3]int64, offsets bool) string {
	if len(r) == 0 {
		return "none"
	}
	parts := make([]string, len(r))
	for i, e := range r {
		parts[i] = entry(e[1], e[2])
		if offsets {
			parts[i] += " at offset " + strconv.FormatInt(e[0], 10)
		}
	}
	return strings.Join(parts, ", ")
}

func (m *obsMessage) text() string {
	switch m.Type {
	case "FetchRequest":
		return fmt.Sprintf("fetchOffset %d, currentLeaderEpoch %d, lastFetchedEpoch %d", m.FetchOffset, m.CurrentLeaderEpoch, m.LastFetchedEpoch)
	case "FetchResponse":
		return fmt.Sprintf("error %s, highWatermark %d, records %s", m.Error, m.HighWatermark, recordsText(m.Records, true))
	}
	return fmt.Sprintf("ISR %s, leader epoch %d, partition epoch %d", setText(m.ISR), m.LeaderEpoch, m.PartitionEpoch)
}

package app

// The harness's input: a trace turned into steps for Kafka's classes. Each step carries the
// model's action with its arguments and what the model's control plane gives the brokers in that
// step (a LeaderAndIsr's partition state, an AlterPartition response, the controller's live
// brokers and broker epochs, a write's record id), taken from the trace.

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	model "kmc/model/kafka"
)

// Actions the harness executes on Kafka's classes, and the control plane's own steps, which
// change no broker: what they decide reaches a broker as its next BrokerHandleLeaderAndIsr or
// LeaderHandleAlterPartitionResponse, whose content the harness takes from the trace.
var (
	conformReal = map[string]string{
		"LeaderAppend":                       "Partition.appendRecordsToLeader (acks=all)",
		"FollowerSendFetch":                  "ReplicaFetcherThread.doWork -> buildFetch",
		"LeaderHandleFetch":                  "Partition.fetchRecords (UnifiedLog.read: a FileRecords slice)",
		"NetworkReadRecord":                  "FileRecords.writeTo of the next chunk",
		"NetworkReadGarbage":                 "FileRecords.writeTo of the rest of the slice",
		"FollowerHandleFetchResponse":        "AbstractFetcherThread.processFetchRequest -> ReplicaFetcherThread.processPartitionData / truncate",
		"BrokerHandleLeaderAndIsr":           "Partition.makeLeader / makeFollower, fetcher removed and added",
		"LeaderShrinkISR":                    "Partition.maybeShrinkIsr after replica.lag.time.max.ms",
		"LeaderHandleAlterPartitionResponse": "Partition's AlterPartition callback",
		"BrokerCrash":                        "from 3.8 the shutdown's first steps (as BrokerBeginShutdown), else UnifiedLog.close, then LogLoader",
		"BrokerControlledShutdown":           "the broker serves on; a partition it follows leaves its fetcher (StopReplica with ZooKeeper)",
		"BrokerBeginShutdown":                "connections to the broker close; KafkaScheduler.shutdown runs the queued tasks and ignores later ones",
		"BrokerStop":                         "the fetchers stop, UnifiedLog.close, then LogLoader",
		"BrokerUncleanCrash":                 "an abandoned UnifiedLog, then LogLoader recovery",
		"BrokerPowerLoss":                    "files cut to their flushed length, then LogLoader recovery",
		"BrokerRestart":                      "a new Partition over the loaded log",
		"NetworkLoseMessage":                 "the fetch fails with a disconnect (AbstractFetcherThread's error path)",
	}
	conformModelOnly = map[string]bool{
		"ControllerHandleAlterPartition": true,
		"ControllerHandleBrokerFailure":  true,
		"ControllerHandleBrokerStartup":  true,
		"ControllerMoveLeader":           true,
		"ControllerElectPreferred":       true,
	}
)

// harnessInput is the JSON the harness reads.
type harnessInput struct {
	Traces []harnessTrace `json:"traces"`
}

type harnessTrace struct {
	Name            string         `json:"name"`
	Brokers         int            `json:"brokers"`
	MinISR          int            `json:"minIsr"`
	MaxFetchRecords int            `json:"maxFetchRecords"`
	RecordSizes     string         `json:"recordSizes"`
	Live            []int          `json:"live"`
	BrokerEpochs    map[string]int `json:"brokerEpochs"`
	Init            []harnessInit  `json:"init"`
	Steps           []harnessStep  `json:"steps"`
}

type harnessInit struct {
	Broker         int   `json:"broker"`
	Leader         int   `json:"leader"`
	LeaderEpoch    int   `json:"leaderEpoch"`
	PartitionEpoch int   `json:"partitionEpoch"`
	ISR            []int `json:"isr"`
}

type harnessStep struct {
	State        int            `json:"state"`
	Action       string         `json:"action"`
	Args         []int          `json:"args"`
	Record       int            `json:"record,omitempty"`
	ReplicaEpoch int            `json:"replicaEpoch,omitempty"`
	Msg          map[string]any `json:"msg,omitempty"`
	// DropResponse: the model drops the fetch response in flight to the broker in this step
	// (a LeaderAndIsr that changes its leader or epoch: the partition leaves its fetcher).
	DropResponse bool `json:"dropResponse,omitempty"`
	// Status: the broker's status after a shutdown step (BrokerCrash, BrokerControlledShutdown,
	// BrokerBeginShutdown, BrokerStop): "down" when it stopped, "closing" when it stopped
	// serving and its scheduler but its fetchers run on, "shutting down" when its controlled
	// shutdown was granted and it serves on.
	Status string `json:"status,omitempty"`
	// StopFetcher: a controlled shutdown took the partition out of the broker's fetcher
	// (ZooKeeper's StopReplica to a follower).
	StopFetcher  bool           `json:"stopFetcher,omitempty"`
	Live         []int          `json:"live"`
	BrokerEpochs map[string]int `json:"brokerEpochs"`
	// ShuttingDown: the brokers in controlled shutdown in the controller's view, which a KRaft
	// broker's metadata cache reports (MetadataCache.isBrokerShuttingDown, read by
	// Partition.isReplicaIsrEligible); ZooKeeper mode's cache reports none (nil: all false).
	ShuttingDown []int `json:"shuttingDown"`
}

// conformConfig checks that the harness can run a trace of configuration c and says why not.
func conformConfig(c model.Config) error {
	switch {
	case c.Controllers >= 2:
		return fmt.Errorf("the trace runs the ZooKeeper control plane (controllers = %d), which Kafka 4 no longer ships; the harness runs the data plane with one controller's decisions as inputs", c.Controllers)
	case c.KRaft:
		return fmt.Errorf("the trace runs the KRaft control plane (control_plane = kraft); the harness does not map its steps yet (use a spec with one controller)")
	}
	p, ok := model.ProfileByName(c.Version)
	if !ok {
		return fmt.Errorf("unknown version profile %q", c.Version)
	}
	if p.Truncation != model.TruncDivergingEpoch {
		return fmt.Errorf("version profile %s truncates by %s; every Kafka release Maven serves (3.9 and later) truncates by diverging epoch", p.Name, model.TruncationNames[p.Truncation])
	}
	return nil
}

// buildInput turns trace t, of configuration c, into the harness's steps. It returns the
// actions it cannot map, by name, with the states where they occur.
func buildInput(t *itfTrace, c model.Config, name string) (harnessTrace, []string, error) {
	h := harnessTrace{Name: name, Brokers: c.Brokers, MinISR: c.MinISR, MaxFetchRecords: c.MaxFetchRecords,
		RecordSizes: model.RecordSizeNames[c.RecordSizes]}
	s0 := t.States[0]
	h.Live, h.BrokerEpochs = controllerView(s0)
	for b := 1; b <= c.Brokers; b++ {
		in := harnessInit{Broker: b}
		in.Leader = int(intOf(brokerVar(s0, "leader", b)))
		in.LeaderEpoch = int(intOf(brokerVar(s0, "leaderEpoch", b)))
		in.PartitionEpoch = int(intOf(brokerVar(s0, "partitionEpoch", b)))
		if in.Leader == b {
			in.ISR = brokerSet(rec(brokerVar(s0, "leaderState", b), "isr"))
		} else {
			in.ISR = brokerSet(rec(s0["controller"], "isr"))
		}
		h.Init = append(h.Init, in)
	}
	unmapped := map[string][]int{}
	zk := profileZooKeeper(c)
	for i := 1; i < len(t.States); i++ {
		prev, cur := t.States[i-1], t.States[i]
		actName := itfStr(cur["mbt::actionTaken"])
		name, args, err := parseAction(actName)
		if err != nil {
			return h, nil, fmt.Errorf("state %d: %v", i, err)
		}
		if conformReal[name] == "" && !conformModelOnly[name] {
			unmapped[name] = append(unmapped[name], i)
			continue
		}
		st := harnessStep{State: i, Action: name, Args: args}
		st.Live, st.BrokerEpochs = controllerView(prev)
		if !zk {
			st.ShuttingDown = brokerSet(rec(prev["controller"], "shuttingDownBrokers"))
			if st.ShuttingDown == nil {
				st.ShuttingDown = []int{}
			}
		}
		switch name {
		case "LeaderAppend":
			st.Record = int(intOf(cur["written"]))
		case "LeaderHandleFetch":
			if len(args) == 2 {
				if m := findMsg(prev, "FetchRequest", args[1], args[0]); m != nil {
					st.ReplicaEpoch = int(recInt(m, "replicaEpoch"))
				}
			}
		case "BrokerHandleLeaderAndIsr":
			m := findMsg(prev, "LeaderAndIsr", 0, args[0])
			if m == nil {
				return h, nil, fmt.Errorf("state %d: %s: state %d has no LeaderAndIsr to b%d", i, actName, i-1, args[0])
			}
			st.Msg = map[string]any{"leader": recInt(m, "leader"), "leaderEpoch": recInt(m, "leaderEpoch"),
				"partitionEpoch": recInt(m, "partitionEpoch"), "isr": brokerSet(rec(m, "isr"))}
			if lapsed, _ := rec(m, "lapsed").(bool); lapsed {
				// The model's LeaderAndIsr replaced an undelivered one naming another leader
				// (model/kafka Network.sendLeaderAndIsr, LapsedLeadership); Kafka's ordered
				// controller channel delivers that one first, so the harness applies a
				// follower state in between (Cluster.applyLapsedState).
				st.Msg["lapsed"] = true
			}
			st.DropResponse = findMsg(prev, "FetchResponse", 0, args[0]) != nil && findMsg(cur, "FetchResponse", 0, args[0]) == nil
		case "BrokerCrash", "BrokerControlledShutdown", "BrokerBeginShutdown", "BrokerStop":
			b := args[0]
			st.Status = itfStr(brokerVar(cur, "status", b))
			if name == "BrokerControlledShutdown" && st.Status == "shutting down" {
				was, now := itfStr(brokerVar(prev, "fetchState", b)), itfStr(brokerVar(cur, "fetchState", b))
				st.StopFetcher = was != now
				st.DropResponse = findMsg(prev, "FetchResponse", 0, b) != nil && findMsg(cur, "FetchResponse", 0, b) == nil
			}
		case "LeaderHandleAlterPartitionResponse":
			m := findMsg(prev, "AlterPartitionResponse", 0, args[0])
			if m == nil {
				return h, nil, fmt.Errorf("state %d: %s: state %d has no AlterPartitionResponse to b%d", i, actName, i-1, args[0])
			}
			st.Msg = map[string]any{"error": itfStr(rec(m, "error")), "leaderEpoch": recInt(m, "leaderEpoch"),
				"partitionEpoch": recInt(m, "partitionEpoch"), "isr": brokerSet(rec(m, "isr"))}
		}
		h.Steps = append(h.Steps, st)
	}
	var names []string
	for n, states := range unmapped {
		var ss []string
		for _, s := range states {
			ss = append(ss, strconv.Itoa(s))
		}
		names = append(names, n+" (state "+strings.Join(ss, ", ")+")")
	}
	sort.Strings(names)
	return h, names, nil
}

func intOf(v any) int64 {
	n, _ := itfInt(v)
	return n
}

// controllerView is the controller's live brokers and broker epochs in state s.
func controllerView(s map[string]any) ([]int, map[string]int) {
	c := s["controller"]
	live := brokerSet(rec(c, "liveBrokers"))
	epochs := map[string]int{}
	for k, v := range itfMap(rec(c, "brokerEpochs")) {
		if b := brokerNum(k); b > 0 {
			epochs[strconv.Itoa(b)] = int(intOf(v))
		}
	}
	return live, epochs
}

// findMsg is the first message of type typ in state s from broker from (0: any, or the
// controller) to broker to.
func findMsg(s map[string]any, typ string, from, to int) any {
	for _, m := range itfSet(s["messages"]) {
		if itfStr(rec(m, "type")) != typ || brokerNum(itfStr(rec(m, "to"))) != to {
			continue
		}
		if from != 0 && brokerNum(itfStr(rec(m, "from"))) != from {
			continue
		}
		return m
	}
	return nil
}

// profileZooKeeper reports whether configuration c's release runs the ZooKeeper-era broker
// (its metadata cache knows no controlled shutdown).
func profileZooKeeper(c model.Config) bool {
	p, ok := model.ProfileByName(c.Version)
	return ok && p.ZooKeeper
}

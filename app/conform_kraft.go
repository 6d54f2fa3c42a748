package app

// The KRaft control plane in the harness's input and its comparison. Each controller step of a
// trace with control_plane = kraft becomes a "kraft" input: the model's state before the step
// (the partition registration, every broker's registration) and the handler Kafka's
// QuorumController runs for it; the harness runs that handler on a real
// ReplicationControlManager (conformance/.../KRaftController.java) and reports the partition
// registration its PartitionChangeRecords give, and an AlterPartition's error, which kmc
// compares with the model's state after the step. A broker's replay of a PartitionChangeRecord
// (and its first image after a restart) becomes a "replays" entry: the registration applied to
// the broker's real Partition as ReplicaManager.applyDelta does (makeLeader / makeFollower).

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	model "kmc/model/kafka"
)

// harnessKraft is one controller step for the harness's ReplicationControlManager.
type harnessKraft struct {
	// Handler: fenced (handleBrokerFenced), unfenced (handleBrokerUnfenced),
	// controlledShutdown (handleBrokerInControlledShutdown), shutdown (handleBrokerShutdown,
	// a registration's records), alterPartition (alterPartition), electPreferred (electLeaders,
	// PREFERRED).
	Handler         string             `json:"handler"`
	Broker          int                `json:"broker"`
	Clean           bool               `json:"clean,omitempty"`
	MinISR          int                `json:"minIsr"`
	ELR             bool               `json:"elr"`
	Unclean         bool               `json:"unclean"`
	MetadataVersion string             `json:"metadataVersion,omitempty"`
	Replicas        []int              `json:"replicas"`
	Prior           harnessPartition   `json:"prior"`
	Brokers         []harnessBrokerReg `json:"brokers"`
	Request         *harnessAlter      `json:"request,omitempty"`
}

type harnessPartition struct {
	Leader         int   `json:"leader"`
	LeaderEpoch    int   `json:"leaderEpoch"`
	PartitionEpoch int   `json:"partitionEpoch"`
	ISR            []int `json:"isr"`
	ELR            []int `json:"elr"`
	LastKnownELR   []int `json:"lastKnownElr"`
}

type harnessBrokerReg struct {
	ID           int  `json:"id"`
	Epoch        int  `json:"epoch"`
	Fenced       bool `json:"fenced"`
	ShuttingDown bool `json:"shuttingDown"`
}

// harnessAlter is an AlterPartition as the model's leader sent it: its own broker epoch, the
// leader and partition epochs it has, the proposed ISR, and the joining replica's broker epoch
// from its fetch (KIP-903); the model sends no epoch for the other members (-1: unchecked).
type harnessAlter struct {
	BrokerEpoch    int            `json:"brokerEpoch"`
	LeaderEpoch    int            `json:"leaderEpoch"`
	PartitionEpoch int            `json:"partitionEpoch"`
	ISR            []int          `json:"isr"`
	Epochs         map[string]int `json:"epochs"`
}

// harnessReplay is a partition registration a broker applies (ReplicaManager.applyDelta).
type harnessReplay struct {
	Broker         int   `json:"broker"`
	Leader         int   `json:"leader"`
	LeaderEpoch    int   `json:"leaderEpoch"`
	PartitionEpoch int   `json:"partitionEpoch"`
	ISR            []int `json:"isr"`
	DropResponse   bool  `json:"dropResponse,omitempty"`
	// ShuttingDown: the broker is in controlled shutdown (ReplicaManager.isInControlledShutdown).
	ShuttingDown bool `json:"shuttingDown,omitempty"`
}

// obsKraft is the harness's report of a controller step.
type obsKraft struct {
	Handler        string `json:"handler"`
	Leader         int    `json:"leader"`
	LeaderEpoch    int    `json:"leaderEpoch"`
	PartitionEpoch int    `json:"partitionEpoch"`
	ISR            []int  `json:"isr"`
	ELR            []int  `json:"elr"`
	LastKnownELR   []int  `json:"lastKnownElr"`
	Changes        int    `json:"changes"`
	Error          string `json:"error"`
}

// kraftModelOnly are the KRaft plane's steps that give a broker no input and run no
// controller handler: the AlterPartition channel's send and the quorum's leader change and
// renouncement (Raft is abstracted as a linearizable log).
var kraftModelOnly = map[string]bool{
	"BrokerSendAlterPartition": true,
	"ControllerRenounce":       true,
	"ControllerQuorumFailover": true,
	"BrokerReplayMetadata":     true, // real when it publishes (a replay)
}

// kraftControllerSteps are the KRaft controller's steps that may write a PartitionChangeRecord.
var kraftControllerSteps = map[string]bool{
	"ControllerRegisterBroker":       true,
	"ControllerUnfenceBroker":        true,
	"ControllerFenceBroker":          true,
	"ControllerGrantShutdown":        true,
	"BrokerSessionLoss":              true,
	"BrokerControlledShutdown":       true,
	"ControllerHandleAlterPartition": true,
	"ControllerMoveLeader":           true,
	"ControllerElectPreferred":       true,
	"ControllerQuorumFailover":       true,
}

// kraftPartition is the active controller's partition state in s.
func kraftPartition(s map[string]any) harnessPartition {
	c, k := s["controller"], s["kraft"]
	p := harnessPartition{Leader: int(recInt(c, "leader")), LeaderEpoch: int(recInt(c, "leaderEpoch")),
		PartitionEpoch: int(recInt(c, "partitionEpoch")), ISR: brokerSet(rec(c, "isr")),
		ELR: brokerSet(rec(k, "elr")), LastKnownELR: brokerSet(rec(k, "lastKnownElr"))}
	for _, l := range []*[]int{&p.ISR, &p.ELR, &p.LastKnownELR} {
		if *l == nil {
			*l = []int{}
		}
	}
	return p
}

// kraftStep fills step st (state i of t, action name with args) with its KRaft inputs.
func kraftStep(t *itfTrace, i int, c model.Config, st *harnessStep) error {
	p, _ := model.ProfileByName(c.Version)
	prev, cur := t.States[i-1], t.States[i]
	name, args := st.Action, st.Args
	b := 0
	if len(args) > 0 {
		b = args[0]
	}
	handler := ""
	replicas := make([]int, c.Brokers)
	for r := range replicas {
		replicas[r] = r + 1
	}
	var req *harnessAlter
	switch name {
	case "ControllerFenceBroker", "BrokerSessionLoss", "ControllerGrantShutdown":
		handler = "fenced"
	case "BrokerControlledShutdown":
		// BrokerHeartbeatManager.calculateNextBrokerState: a broker that leads a partition
		// enters CONTROLLED_SHUTDOWN (handleBrokerInControlledShutdown); one that leads none
		// gets SHUTDOWN_NOW at once (handleBrokerFenced).
		handler = "fenced"
		if int(recInt(prev["controller"], "leader")) == b {
			handler = "controlledShutdown"
		}
	case "ControllerUnfenceBroker":
		handler = "unfenced"
	case "ControllerRegisterBroker":
		handler = "shutdown"
	case "ControllerMoveLeader":
		// The fault leader_change: a reassignment that puts b first, then its preferred
		// election; the harness seeds the assignment [b, the others in order].
		handler = "electPreferred"
		replicas = append([]int{b}, without(replicas, b)...)
	case "ControllerElectPreferred":
		handler = "electPreferred"
	case "ControllerHandleAlterPartition":
		m, epoch := handledAlter(prev, cur, b)
		if m == nil {
			return fmt.Errorf("state %d: %s(%d): no AlterPartition from b%d left the network in this step", i, name, b, b)
		}
		if epoch != recInt(prev["kraft"], "quorumEpoch") {
			return nil // to a controller that is no longer active: the model's NOT_CONTROLLER (or the old controller's answer)
		}
		handler = "alterPartition"
		req = &harnessAlter{BrokerEpoch: int(intOf(itfMap(rec(prev["controller"], "brokerEpochs"))["b"+strconv.Itoa(b)])),
			LeaderEpoch: int(recInt(m, "leaderEpoch")), PartitionEpoch: int(recInt(m, "partitionEpoch")),
			ISR: brokerSet(rec(m, "isr")), Epochs: map[string]int{}}
		if j := brokerNum(itfStr(rec(m, "joiner"))); j > 0 {
			req.Epochs[strconv.Itoa(j)] = int(recInt(m, "joinerBrokerEpoch"))
		}
	default:
		return nil
	}
	k := &harnessKraft{Handler: handler, Broker: b, MinISR: c.MinISR, ELR: kraftHasELR(c),
		Unclean: c.UncleanElection, Replicas: replicas, Prior: kraftPartition(prev), Request: req}
	if p.KRaftShrinkBump {
		k.MetadataVersion = "3.3-IV3" // the profile's release runs KRaft below metadata version 3.6 (KAFKA-15021)
	}
	if handler == "shutdown" {
		k.Clean = cleanStop(t, i, b)
	}
	epochs := itfMap(rec(prev["controller"], "brokerEpochs"))
	fenced := brokerSet(rec(prev["kraft"], "fenced"))
	down := brokerSet(rec(prev["kraft"], "inControlledShutdown"))
	for r := 1; r <= c.Brokers; r++ {
		k.Brokers = append(k.Brokers, harnessBrokerReg{ID: r, Epoch: int(intOf(epochs["b"+strconv.Itoa(r)])),
			Fenced: containsInt(fenced, r), ShuttingDown: containsInt(down, r)})
	}
	st.Kraft = k
	return nil
}

// kraftHasELR reports whether the configuration runs KIP-966's eligible leader replicas (the
// controller's eligible.leader.replicas.version 1).
func kraftHasELR(c model.Config) bool {
	m, err := model.New(c)
	return err == nil && m.ELR()
}

func without(l []int, x int) []int {
	var out []int
	for _, v := range l {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}

// handledAlter is the AlterPartition from broker b that state prev has and cur has not, with
// the KRaft epoch of the controller it was sent to.
func handledAlter(prev, cur map[string]any, b int) (any, int64) {
	key := func(m any) string { d, _ := json.Marshal(m); return string(d) }
	left := map[string]int{}
	for _, m := range itfSet(cur["messages"]) {
		if itfStr(rec(m, "type")) == "AlterPartition" {
			left[key(m)]++
		}
	}
	for _, m := range itfSet(prev["messages"]) {
		if itfStr(rec(m, "type")) != "AlterPartition" || brokerNum(itfStr(rec(m, "from"))) != b {
			continue
		}
		if left[key(m)] > 0 {
			left[key(m)]--
			continue
		}
		return m, recInt(m, "controller")
	}
	return nil, 0
}

// cleanStop reports whether broker b's last stop before state i was clean while it was
// registered: the clean-shutdown file then holds the epoch the registration compares
// (BrokerServer.shutdown -> LogManager.shutdown(brokerEpoch); the model's Replica.Clean).
func cleanStop(t *itfTrace, i, b int) bool {
	for j := i - 1; j >= 1; j-- {
		name, args, err := parseAction(itfStr(t.States[j]["mbt::actionTaken"]))
		if err != nil || len(args) == 0 || args[0] != b {
			continue
		}
		switch name {
		case "BrokerUncleanCrash", "BrokerPowerLoss":
			return false
		case "BrokerStop", "BrokerCrash", "BrokerBeginShutdown":
			if itfStr(brokerVar(t.States[j], "status", b)) == "down" {
				return itfStr(brokerVar(t.States[j-1], "status", b)) != "starting" && registeredBefore(t, j, b)
			}
		}
	}
	return false
}

// registeredBefore reports whether broker b had registered since its last restart before state j.
func registeredBefore(t *itfTrace, j, b int) bool {
	for x := j - 1; x >= 1; x-- {
		name, args, err := parseAction(itfStr(t.States[x]["mbt::actionTaken"]))
		if err != nil || len(args) == 0 || args[0] != b {
			continue
		}
		switch name {
		case "ControllerRegisterBroker":
			return true
		case "BrokerRestart":
			return false
		}
	}
	return true // registered in the initial state
}

// kraftReplays lists what brokers apply in step i: the PartitionChangeRecord a broker replays
// (BrokerReplayMetadata, once it has published), its first image after a restart, and an image
// a controller step made a broker read (the metadata log's overflow: a broker that has read none
// of it loads the snapshot).
func kraftReplays(t *itfTrace, i int, st *harnessStep) {
	prev, cur := t.States[i-1], t.States[i]
	add := func(b int, p any) {
		r := harnessReplay{Broker: b, Leader: int(recInt(p, "leader")), LeaderEpoch: int(recInt(p, "leaderEpoch")),
			PartitionEpoch: int(recInt(p, "partitionEpoch")), ISR: brokerSet(rec(p, "isr"))}
		if r.ISR == nil {
			r.ISR = []int{}
		}
		r.DropResponse = findMsg(prev, "FetchResponse", 0, b) != nil && findMsg(cur, "FetchResponse", 0, b) == nil
		r.ShuttingDown = itfStr(brokerVar(prev, "status", b)) == "shutting down"
		st.Replays = append(st.Replays, r)
	}
	brokers := len(itfMap(prev["status"]))
	if st.Action == "BrokerReplayMetadata" {
		b := st.Args[0]
		status := itfStr(brokerVar(prev, "status", b))
		if status == "down" || status == "closing" {
			return
		}
		published := itfStr(brokerVar(prev, "role", b)) != "none" || intOf(brokerVar(prev, "leaderEpoch", b)) != 0
		log := asList(rec(prev["kraft"], "log"))
		lag := int(intOf(itfMap(rec(prev["kraft"], "unread"))["b"+strconv.Itoa(b)]))
		switch {
		case lag > 0:
			r := log[len(log)-lag]
			if published && itfStr(rec(r, "record")) == "PartitionChange" {
				add(b, r)
			} else if !published && lag == 1 {
				add(b, kraftImage(cur, b))
			}
		case !published:
			add(b, kraftImage(cur, b))
		}
		return
	}
	if !kraftControllerSteps[st.Action] {
		return
	}
	for b := 1; b <= brokers; b++ {
		changed := false
		for _, v := range []string{"role", "leader", "leaderEpoch", "partitionEpoch"} {
			if keyText(brokerVar(prev, v, b)) != keyText(brokerVar(cur, v, b)) {
				changed = true
			}
		}
		if changed {
			add(b, kraftImage(cur, b))
		}
	}
}

// kraftImage is the partition state in broker b's metadata image in s: the last
// PartitionChangeRecord it has read, else the snapshot's.
func kraftImage(s map[string]any, b int) any {
	k := s["kraft"]
	log := asList(rec(k, "log"))
	lag := int(intOf(itfMap(rec(k, "unread"))["b"+strconv.Itoa(b)]))
	for i := len(log) - lag - 1; i >= 0; i-- {
		if itfStr(rec(log[i], "record")) == "PartitionChange" {
			return log[i]
		}
	}
	return rec(k, "snapshot")
}

// compareKraft compares the harness's report of controller step st with the model's state
// after it (s): the active controller's partition registration, and an AlterPartition's answer.
func compareKraft(s map[string]any, st *harnessStep, o *obsKraft, kafka string) []string {
	var diffs []string
	want := kraftPartition(s)
	what := kafka + "'s " + o.Handler
	if st.Kraft.Handler == "alterPartition" {
		wantErr := "NONE"
		if m := findMsg(s, "AlterPartitionResponse", 0, st.Kraft.Broker); m != nil {
			wantErr = itfStr(rec(m, "error"))
		}
		if wantErr != o.Error {
			diffs = append(diffs, fmt.Sprintf("the controller answers b%d's AlterPartition %s in the model; %s answers %s",
				st.Kraft.Broker, wantErr, what, o.Error))
			return diffs
		}
	}
	got := harnessPartition{Leader: o.Leader, LeaderEpoch: o.LeaderEpoch, PartitionEpoch: o.PartitionEpoch,
		ISR: orEmpty(o.ISR), ELR: orEmpty(o.ELR), LastKnownELR: orEmpty(o.LastKnownELR)}
	if d := partitionText(want); d != partitionText(got) {
		diffs = append(diffs, fmt.Sprintf("the controller's partition: the model has %s; %s writes %s (%d PartitionChangeRecord)",
			d, what, partitionText(got), o.Changes))
	}
	return diffs
}

func orEmpty(l []int) []int {
	if l == nil {
		return []int{}
	}
	return l
}

func partitionText(p harnessPartition) string {
	l := "none"
	if p.Leader > 0 {
		l = "b" + strconv.Itoa(p.Leader)
	}
	return fmt.Sprintf("leader %s, leader epoch %d, partition epoch %d, ISR %s, ELR %s, last known ELR %s",
		l, p.LeaderEpoch, p.PartitionEpoch, setText(p.ISR), setText(p.ELR), setText(p.LastKnownELR))
}

// kraftHandlers names the Kafka code each controller step's handler runs.
var kraftHandlers = map[string]string{
	"fenced":             "ReplicationControlManager.handleBrokerFenced",
	"unfenced":           "ReplicationControlManager.handleBrokerUnfenced",
	"controlledShutdown": "ReplicationControlManager.handleBrokerInControlledShutdown",
	"shutdown":           "ReplicationControlManager.handleBrokerShutdown (the registration's records)",
	"alterPartition":     "ReplicationControlManager.alterPartition",
	"electPreferred":     "ReplicationControlManager.electLeaders (PREFERRED)",
}

// kraftHow says what state i's step ran on Kafka's classes with KRaft ("" when it ran nothing
// beyond the data plane's mapping).
func kraftHow(steps []harnessStep, i int) string {
	for _, st := range steps {
		if st.State != i {
			continue
		}
		var parts []string
		if st.Kraft != nil {
			parts = append(parts, kraftHandlers[st.Kraft.Handler]+" (PartitionChangeBuilder)")
		} else if c := conformReal[st.Action]; c != "" {
			parts = append(parts, c)
		}
		for _, r := range st.Replays {
			parts = append(parts, fmt.Sprintf("b%d applies leader %d epoch %d partition epoch %d (ReplicaManager.applyDelta -> Partition.makeLeader/makeFollower)",
				r.Broker, r.Leader, r.LeaderEpoch, r.PartitionEpoch))
		}
		return strings.Join(parts, "; ")
	}
	return ""
}

// kraftModelText says what a KRaft step that ran nothing on Kafka's classes was taken from.
func kraftModelText(name string) string {
	switch name {
	case "BrokerReplayMetadata":
		return "nothing on Kafka's classes: the broker read a record it does not act on (the model's metadata log)"
	case "ControllerHandleAlterPartition":
		return "the model's answer of a controller that is no longer active (NOT_CONTROLLER, or the old controller's)"
	default:
		return "the model's quorum and AlterPartition channel (Raft abstracted as a linearizable log)"
	}
}

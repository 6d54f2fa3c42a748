package kafka

import (
	"sort"
	"sync/atomic"
)

// Fix switches and proposals. Each switch of the model is declared once, in a file of its
// own (switch_*.go): its name as specs write it, what it changes, the Kafka code it follows
// at a release tag, the releases it applies to, the kinds of action whose steps run its
// code and the named branches it adds. Register enters it in the table that Config,
// `kmc list`, `kmc why`, `kmc mutate`, the spec parser and vacuity read; nothing else
// lists the switches. docs/proposals.md adds a proposal end to end.
//
// A switch's code runs in one of two ways. At an extension point, the switch's file holds
// the whole change: a hook the model calls only while the switch is on (DropFetchResponse,
// StopAppend); a new proposal there needs no other file. Elsewhere the actor's code reads
// Model.on(sw) where the switch changes it, and the switch's file says where.
//
// Each branch a switch adds is counted while a search runs with counting on (CountBranches:
// kmc check's --coverage), as each guard's refusals are (guards.go): whether a switch's code
// ever changed a step, not only whether its kind of action was taken. The counters are
// atomic adds into a table the model allocates once: no allocation per step. For vacuity
// alone a search only marks what fired (Fired): an atomic load per hit, and a store the
// first time, so that the workers do not fight over the table's cache lines.

// Switch is one fix switch or proposal of the Kafka model.
type Switch struct {
	// Name is the switch as a spec's fixes and kmc's --fix write it: "KAFKA-18723".
	Name string
	// Doc says what the switch changes, one sentence (kmc list).
	Doc string
	// Kafka cites the code the switch follows: file, function and release tag, or the
	// proposal it is (FINDINGS.md, a pull request) when no release has it.
	Kafka string
	// Versions says which releases the switch applies to, in words (kmc list); Needs says
	// it to the model.
	Versions string
	// Fix is the switch's fix bit (FixBit6082, ...) when a release profile contains it (a
	// spec's without takes it out); 0 for a proposal no release has.
	Fix uint8
	// Kinds are the kinds of action whose steps run the switch's code (vacuity: a check with
	// the switch on whose search took none of them never exercised it).
	Kinds []string
	// Branches name the branches the switch adds, each counted when it changes a step;
	// Branch(i) counts the i-th.
	Branches []string
	// Needs, when set, says why the switch cannot be on with configuration c of release p
	// ("" when it can): the model refuses the configuration with that reason.
	Needs func(c *Config, p *Profile) string

	// Extension points: hooks the model calls while the switch is on. Each returns true to
	// change the step; the model then counts the switch's first branch. A hook is a
	// predicate: it gets copies of the replica and the message (a pointer passed to a
	// function value would move the caller's state to the heap on every step).
	//
	// DropFetchResponse: follower r ignores the whole fetch response resp (no append, no
	// truncation, no high watermark), before it looks at the response's error
	// (Model.handleFetchResponse: AbstractFetcherThread.processFetchRequest).
	DropFetchResponse func(m *Model, r Replica, resp Msg) bool
	// StopAppend: follower r appends none of the batches of resp from the k-th on, whose
	// leader epoch is e; last is the epoch of the batch before it (the follower's last
	// batch for k = 0) (Model.appendFetched: UnifiedLog.appendAsFollower's
	// analyzeAndValidateRecords).
	StopAppend func(m *Model, r Replica, resp Msg, k int, e, last uint8) bool

	id     SwitchID
	branch int // index of the switch's first branch in the model's counters
}

// SwitchID is the index of a registered switch (Switches order); bit id of SwitchSet.
type SwitchID uint8

// MaxSwitches bounds the switches a model can register (SwitchSet has a bit for each).
const MaxSwitches = 32

// SwitchSet is a set of switches, bit id for the switch of that SwitchID.
type SwitchSet uint32

// Has reports whether sw is in the set.
func (s SwitchSet) Has(sw *Switch) bool { return s&(1<<sw.id) != 0 }

// With is the set with sw added (on true) or removed.
func (s SwitchSet) With(sw *Switch, on bool) SwitchSet {
	if on {
		return s | 1<<sw.id
	}
	return s &^ (1 << sw.id)
}

// registry is the table of switches in registration order (init order: the switch_*.go
// files by name, then switches a test or another package registers).
var registry struct {
	all      []*Switch
	branches []branchName // every switch's branches, in Switch.branch order
}

type branchName struct {
	sw   *Switch
	name string
}

// Register enters sw in the table of switches, and returns it. It panics on a duplicate or
// empty name, on a fix bit another switch has, and beyond MaxSwitches: a programming error
// found when the package loads. Register before building a model: a model sees the
// switches registered when New made it.
func Register(sw *Switch) *Switch {
	if sw.Name == "" || SwitchByNameOK(sw.Name) {
		panic("kafka: Register: switch name " + sw.Name + " empty or registered twice")
	}
	if len(registry.all) >= MaxSwitches {
		panic("kafka: Register: more than MaxSwitches switches")
	}
	for _, o := range registry.all {
		if sw.Fix != 0 && o.Fix == sw.Fix {
			panic("kafka: Register: switch " + sw.Name + " has " + o.Name + "'s fix bit")
		}
	}
	if (sw.DropFetchResponse != nil || sw.StopAppend != nil) && len(sw.Branches) == 0 {
		panic("kafka: Register: switch " + sw.Name + " has a hook but names no branch")
	}
	sw.id, sw.branch = SwitchID(len(registry.all)), len(registry.branches)
	registry.all = append(registry.all, sw)
	for _, b := range sw.Branches {
		registry.branches = append(registry.branches, branchName{sw, b})
	}
	return sw
}

// Switches are the registered switches, in registration order.
func Switches() []*Switch { return append([]*Switch(nil), registry.all...) }

// SwitchByName returns the switch called name.
func SwitchByName(name string) (*Switch, bool) {
	for _, sw := range registry.all {
		if sw.Name == name {
			return sw, true
		}
	}
	return nil, false
}

// SwitchByNameOK reports whether a switch is called name.
func SwitchByNameOK(name string) bool {
	_, ok := SwitchByName(name)
	return ok
}

// SwitchNames are the registered switches' names, sorted.
func SwitchNames() []string {
	var out []string
	for _, sw := range registry.all {
		out = append(out, sw.Name)
	}
	sort.Strings(out)
	return out
}

// FixName is the name of the switch with fix bit bit ("" when none has it).
func FixName(bit uint8) string {
	for _, sw := range registry.all {
		if sw.Fix == bit {
			return sw.Name
		}
	}
	return ""
}

// ID is the switch's index in Switches.
func (sw *Switch) ID() SwitchID { return sw.id }

// Branch is the index, among Model.Branches' counts, of the switch's i-th branch.
func (sw *Switch) Branch(i int) int { return sw.branch + i }

// fixesOf is the fix bits that Config's switches turn on.
func (c *Config) fixesOf() uint8 {
	var b uint8
	for _, sw := range registry.all {
		if sw.Fix != 0 && c.Switches.Has(sw) {
			b |= sw.Fix
		}
	}
	return b
}

// inForce is the set of switches in force for c on release p: a fix the profile contains
// (without Config.Without) or Config turns on, a proposal Config turns on.
func (c *Config) inForce(p *Profile) SwitchSet {
	fix := c.effective(p)
	var s SwitchSet
	for _, sw := range registry.all {
		if sw.Fix != 0 && fix&sw.Fix != 0 || sw.Fix == 0 && c.Switches.Has(sw) {
			s = s.With(sw, true)
		}
	}
	return s
}

// validateSwitches checks each switch Config turns on against its Needs.
func (c *Config) validateSwitches(p *Profile) error {
	for _, sw := range registry.all {
		if sw.Needs == nil || !c.Switches.Has(sw) {
			continue
		}
		if why := sw.Needs(c, p); why != "" {
			return errString("model: fixes: " + sw.Name + " " + why)
		}
	}
	return nil
}

// on reports whether switch sw is in force.
func (m *Model) on(sw *Switch) bool { return m.sw&(1<<sw.id) != 0 }

// hooks are the extension points' switches in force, built once by newModel.
type hooks struct {
	drop, stop []*Switch
}

func (m *Model) buildHooks() {
	for _, sw := range registry.all {
		if !m.on(sw) {
			continue
		}
		if sw.DropFetchResponse != nil {
			m.hooks.drop = append(m.hooks.drop, sw)
		}
		if sw.StopAppend != nil {
			m.hooks.stop = append(m.hooks.stop, sw)
		}
	}
	m.hits = make([]uint64, len(registry.branches)+int(NumGuards))
}

// dropFetchResponse reports whether a switch in force drops fetch response resp on r.
func (m *Model) dropFetchResponse(r *Replica, resp *Msg) bool {
	for _, sw := range m.hooks.drop {
		if sw.DropFetchResponse(m, *r, *resp) {
			m.hit(sw.branch)
			return true
		}
	}
	return false
}

// stopAppend reports whether a switch in force stops the append of resp at its k-th batch.
func (m *Model) stopAppend(r *Replica, resp *Msg, k int, e, last uint8) bool {
	for _, sw := range m.hooks.stop {
		if sw.StopAppend(m, *r, *resp, k, e, last) {
			m.hit(sw.branch)
			return true
		}
	}
	return false
}

// hit counts branch i (a switch's: Switch.Branch) when counting is on.
func (m *Model) hit(i int) {
	switch m.count {
	case Counted:
		atomic.AddUint64(&m.hits[i], 1)
	case Fired:
		if atomic.LoadUint64(&m.hits[i]) == 0 {
			atomic.StoreUint64(&m.hits[i], 1)
		}
	}
}

// Counting modes of CountBranches.
const (
	NotCounted = iota // no counting
	Fired             // each branch and guard marked once it fires (a count of 1)
	Counted           // every firing counted
)

// CountBranches sets how the branches and guards are counted (NotCounted, Fired, Counted),
// zeroing the counts unless NotCounted (which keeps them for Branches). Call it before or
// after a search, not during one.
func (m *Model) CountBranches(mode int) {
	m.count = mode
	if mode == NotCounted {
		return
	}
	for i := range m.hits {
		atomic.StoreUint64(&m.hits[i], 0)
	}
}

// BranchCount is how often one branch of a switch, or one guard's refusal, changed a step
// while counting was on (with Fired: 1 when it ever did).
type BranchCount struct {
	Switch string // the switch's name; "" for a guard
	Guard  string // the guard's name; "" for a switch's branch
	Branch string // the branch's name (a guard's: "refused")
	// On says whether the switch was in force (a guard: whether it had a code path, or was
	// turned off by a mutation, which still counts where its condition failed).
	On   bool
	Hits uint64
}

// Branches are the counts of every switch's branches (registration order), then of every
// guard's refusals (Guards order), since CountBranches turned counting on.
func (m *Model) Branches() []BranchCount {
	return m.BranchesOf(m.loadHits(make([]uint64, 0, len(m.hits))))
}

// loadHits appends the branch and guard counters to dst.
func (m *Model) loadHits(dst []uint64) []uint64 {
	for i := range m.hits {
		dst = append(dst, atomic.LoadUint64(&m.hits[i]))
	}
	return dst
}

// Tallies appends the counts of Branches, in its order, to dst; dst unchanged when counting
// is off (checker.Tallier: the engine carries them across the parts of a partitioned search
// and through checkpoints).
func (m *Model) Tallies(dst []uint64) []uint64 {
	if m.count == NotCounted {
		return dst
	}
	return m.loadHits(dst)
}

// BranchesOf names counts t, in the order of Tallies (a search's, summed over its parts and
// its resumes): nil when t is not one count per branch and guard.
func (m *Model) BranchesOf(t []uint64) []BranchCount {
	if len(t) != len(m.hits) {
		return nil
	}
	var out []BranchCount
	for i, b := range registry.branches {
		if i >= len(m.hits)-int(NumGuards) {
			break // registered after the model was built
		}
		out = append(out, BranchCount{Switch: b.sw.Name, Branch: b.name, On: m.on(b.sw), Hits: t[i]})
	}
	base := len(m.hits) - int(NumGuards)
	for g := Guard(0); g < NumGuards; g++ {
		out = append(out, BranchCount{Guard: Guards[g].Name, Branch: "refused", On: m.C.guardIn(g, &m.p) == "", Hits: t[base+int(g)]})
	}
	return out
}

// guardHit counts a refusal by guard g when counting is on.
func (m *Model) guardHit(g Guard) {
	if m.count != NotCounted {
		m.hit(len(m.hits) - int(NumGuards) + int(g))
	}
}

// Package checker is kmc's model-checking engine: breadth-first exploration of a model's
// reachable states with N workers, a 64-bit fingerprint set, parent links for shortest
// counterexamples, safety and liveness properties under fairness, and limits that stop a
// search cleanly. It knows nothing about Kafka and imports only the standard library.
//
// The public surface is Check (or Bind, for callers that do not know the state type),
// Options, Result, Stats and Trace; Simulate, with SimOptions and SimResult, takes random
// walks instead (simulate.go); Runnable.Stepper takes a bound model one state at a time
// (stepper.go). A model satisfies Model using only built-in types, so
// model packages never import checker.
package checker

import "time"

// Model is the contract between the engine and a model. S is the state type: a value type
// whose copy is an independent state (fixed arrays, no pointers into shared memory).
//
// Contract:
//  1. Pure: no method mutates its input state, reads a clock, uses randomness or ranges
//     over a map. The same state always yields the same successors in the same order.
//  2. Next appends to succ and acts and returns them; it allocates nothing per state once
//     the caller's buffers have grown. acts[i] is the action that leads to succ[i].
//  3. Encode is canonical: two states are the same state iff their encodings are equal.
//     Decode(Encode(s)) == s. Decode may assume that Encode wrote its input; a model
//     implements CheckedDecoder to read bytes from outside (a checkpoint's states), which
//     returns an error, never a panic, for bytes that encode none of its states.
//  4. An action code is opaque to the engine; ActionName and ActionKind describe it.
//     The same code means the same action (kind and arguments) in every state.
//  5. A model bound is a cut, not a guard. A step that the protocol allows but a bound of
//     the model forbids (a largest epoch, a record or fault budget, a TLC-style state
//     constraint: anything that is a modelling limit rather than protocol logic) is not
//     among Next's successors; a model with such bounds implements Bounded and names each
//     such step as cut in that state, with the bound that cut it. Next never returns a
//     step that NextCut reports as cut, and both give the same successors.
//  6. What a trace shows beyond the variables is optional and computed only when a trace
//     is built: a model may describe each step's messages (Eventer) and offer tables of
//     each state (Viewer), so that renderers need no knowledge of the model.
//  7. A model whose states carry auxiliary variables that are no part of a state's
//     identity (TLC's VIEW) implements Projected: two states are then the same state iff
//     the views of their encodings are equal. Encode still writes the whole state and
//     Decode restores it; the state kept for a view is the first one reached in the
//     search's order (breadth-first, successors in Next's order), the same for any number
//     of workers, as TLC keeps the first state it meets with a given view.
//  8. A model may offer a symmetry reduction (Symmetric: a representative per class of
//     states under renaming). Where its steps commute with renaming only once a choice that
//     it otherwise makes up front is left open, it implements Deferring: the search under
//     symmetry starts from states with the choice open, and a trace found there is settled
//     into a behaviour of the model, which the engine checks against Next.
//  9. A model may declare which of its steps are independent (Independent), for the
//     partial-order reduction of a safety search (por.go): every action code belongs to one
//     of a fixed set of groups, and each group declares, for the model's configuration, the
//     objects of the state its steps may read and write (footprints, not guesses: a group
//     that may touch an object declares it, in every state). Two groups whose footprints do
//     not conflict must accord in every reachable state where both have a step: both
//     orders reach the same states and neither disables the other; whether a group has a
//     step (a step a bound cut is none: the reduction is of the model as its bounds leave
//     it) changes only by steps of groups that write what it reads; a guard's value changes only by steps of groups that write what it reads, and
//     a group has no step where one of its guards is false; a property that declares what
//     it reads (Property.Reads) keeps its value over a step of a group that writes none of
//     it. A model may also declare, per guard, the groups whose steps can turn it true
//     (Enabling), which may be fewer than the groups that write what it reads; a step of
//     another group must leave the guard false and the declared set no larger.
//     CheckIndependence checks each on every reachable state of a configuration.
//  10. A model may count events of its own while it searches (Tallier: the Kafka model's
//     fix branches and guard refusals), the one side effect item 1 allows: counting
//     changes no successor. The engine carries the counts through checkpoints and across
//     the parts of a partitioned search, which must each have a model of their own.
type Model[S any] interface {
	// Init appends the initial states to buf.
	Init(buf []S) []S
	// Next appends the successors of s and the action leading to each.
	Next(s *S, succ []S, acts []uint64) ([]S, []uint64)
	// Encode appends the canonical binary encoding of s to buf.
	Encode(s *S, buf []byte) []byte
	// Decode reads a state written by Encode into s.
	Decode(buf []byte, s *S)

	// Vars names the state variables, in a fixed order.
	Vars() []string
	// AppendValue appends the value of variable v of s as ITF JSON (Apalache ADR-015:
	// {"#bigint":"3"}, {"#set":[...]}, {"#tup":[...]}, {"#map":[[k,v],...]}, records as
	// objects, strings and booleans as themselves). Sets are sorted; field order is fixed.
	AppendValue(s *S, v int, buf []byte) []byte

	// ActionName is the readable form of an action with its arguments: "FollowerFetch(2)".
	ActionName(a uint64) string
	// ActionKind is the index of the action's kind in ActionKinds.
	ActionKind(a uint64) int
	// ActionKinds names every kind of action (actor + verb): "FollowerFetch".
	ActionKinds() []string
	// Fairness is the default fairness of a kind of action, used by liveness checking:
	// protocol steps are fair, faults and choices of the environment are not. Fairness
	// applies to each action instance (each code) of the kind separately. The result is a
	// Fairness value as a plain int (0 unfair, 1 weak, 2 strong), so that a model need not
	// import checker.
	Fairness(kind int) int
}

// Phases of a search, as Options.Phase names them.
const (
	PhaseSearch        = "state-space search"
	PhaseLivenessGraph = "liveness: state graph"
	PhaseLiveness      = "liveness: " // + the property's name
)

// Fairness is the fairness assumption on a kind of action.
type Fairness int

// Fairness levels.
const (
	Unfair Fairness = iota // may be enabled forever and never taken
	Weak                   // WF: if continuously enabled from some point on, eventually taken
	Strong                 // SF: if enabled infinitely often, eventually taken
)

func (f Fairness) String() string {
	switch f {
	case Weak:
		return "weak"
	case Strong:
		return "strong"
	default:
		return "unfair"
	}
}

// Bounded is implemented by models whose bounds can cut steps (contract item 5). The
// engine asks for cuts only where they matter: in a search that checks liveness or
// deadlock. For liveness a cut step counts as enabled and never taken: a fair cycle in
// which a weakly fair action is cut or enabled in every state, or a strongly fair one is
// cut in some state, is not a counterexample, and when such a cycle is all there is the
// verdict is incomplete, naming the bound to raise. Cut steps of unfair actions (faults,
// producer writes) change no liveness verdict. A state with no successor but a cut step is
// no deadlock. Safety verdicts do not depend on cuts.
type Bounded[S any] interface {
	// Bounds names each bound that can cut a step, with its value: "max_epoch=4". The name
	// before "=" is the one a user raises (a constant or fault budget of the spec).
	Bounds() []string
	// NextCut is Next that also appends, for each step a bound cut in s, its action code
	// to cut and the index in Bounds of the bound to by. Allocation-free like Next.
	NextCut(s *S, succ []S, acts []uint64, cut []uint64, by []int) ([]S, []uint64, []uint64, []int)
}

// Objects is a set of a model's objects (bit i: object i), the vocabulary of footprints
// (Independent) and of what properties read (Property.Reads): a broker's log, a channel of
// the network, a counter. A plain array, so that models need not import checker.
type Objects = [4]uint64

// Tallier is a model that counts events of its own while a search expands its states (the
// Kafka model: the firings of each fix switch's branches and each guard's refusals), in the
// model rather than in the engine. The engine carries the counts where a search leaves one
// process or one run, so that they are those of one process never stopped: a partitioned
// search's parts send what their models counted after each piece of a level they expand and
// the coordinator adds it up through where one process stops, a checkpoint holds the sum
// so far, and a resumed search starts from it (Result.Tallies). The model counts by atomic
// adds from every worker at once.
type Tallier interface {
	// Tallies appends the model's counts so far to dst, the same number of them through a
	// search, and returns dst unchanged when the model counts nothing in this search.
	Tallies(dst []uint64) []uint64
}

// Independent is implemented by models that declare the independence of their steps
// (contract item 9), for the partial-order reduction of safety searches (Options.POR).
// Everything it returns is fixed for the model's configuration: a footprint holds in every
// state, which is what makes the reduction sound along paths the search does not take
// (a dependency that held only in the state at hand would not). Steps whose footprints are
// disjoint commute; a group that is disabled can be enabled only by a group that writes
// what it reads. Groups and objects are few (at most MaxGroups groups, 256 objects).
type Independent[S any] interface {
	// Groups is the number of groups of steps, at most MaxGroups.
	Groups() int
	// Group is the group of action code a, in [0, Groups()): the same in every state.
	Group(a uint64) int
	// Footprint is what the steps of group g may read (their guards included) and write.
	// Writes must be a subset of reads.
	Footprint(g int) (reads, writes Objects)
	// Guards is the number of guards group g declares (0..MaxGuards): conditions, each
	// a function of the objects GuardReads names, that hold wherever g has a step (a
	// fault's budget left, a bound not reached, a message to take). A group without a step whose guard is false can be enabled only by a step that
	// writes what that guard reads, which is usually much less than what the group reads.
	Guards(g int) int
	// GuardReads is what guard k of group g reads.
	GuardReads(g, k int) Objects
	// Guard reports whether guard k of group g holds in s.
	Guard(s *S, g, k int) bool
}

// Groups is a set of groups of steps (bit g: group g), as Enabling declares them. A plain
// array, so that models need not import checker.
type Groups = [MaxGroups / 64]uint64

// Enabling is implemented by Independent models that declare, for a guard that is false,
// which groups can turn it true: a necessary enabling set given by the model (Valmari's
// stubborn sets; Godefroid's necessary enabling sets), which the reduction takes in place of
// the groups that write what the guard reads (por.go). A guard read by many groups' writes is
// often turned true by few of them: a follower's request to a leader is written by the
// leader's answer, but only the follower's own send creates it.
//
// Contract, on every reachable state s where guard k of group g is false and GuardEnablers
// declares the set E(s): every step from s of a group outside E(s) reaches a state t where
// the guard is still false and its set (E(t) if declared, else the writers of GuardReads) is
// a subset of E(s). By induction, along any path from s of steps outside E(s) the guard
// stays false, so g has no step: E(s) is a necessary enabling set of g in s.
// CheckIndependence checks this on every state it visits.
type Enabling[S any] interface {
	// GuardEnablers stores in *e the groups that can turn guard k of group g true from s,
	// where it is false, and reports true; or reports false and declares nothing for this
	// guard in s (the writers of GuardReads are taken). Allocation-free.
	GuardEnablers(s *S, g, k int, e *Groups) bool
}

// MaxGuards is the largest number of guards a group may declare.
const MaxGuards = 8

// MaxGroups is the largest number of groups an Independent model may declare.
const MaxGroups = 512

// Projected is implemented by models that identify a state by a view of it (contract
// item 7), as TLC's VIEW: the engine fingerprints View(enc) instead of enc. View returns a
// part of enc (a subslice, so that nothing is allocated) and must be a function of the
// state's view alone.
type Projected interface {
	View(enc []byte) []byte
}

// Symmetric is implemented by models that can map a state to a canonical representative of
// its symmetry class (for example with broker ids permuted). Canonicalize rewrites s in place.
// The engine uses it only when Options.Symmetry is set.
type Symmetric[S any] interface {
	Canonicalize(s *S)
}

// Deferring is implemented by symmetric models whose symmetry needs a choice that the
// model otherwise makes up front to be left open (Kafka's assignment order, which its
// elections follow: brokers are interchangeable only once no step depends on which comes
// first). In a search under symmetry the engine starts from InitDeferred's states, whose
// successors branch over the open choice where a step needs it and record the outcome in
// the state (so that renaming maps steps to steps), and it hands every trace to Settle
// before rendering it.
//
// Contract: a behaviour from InitDeferred's states, settled, is a behaviour of the model
// from Init's states; every behaviour of the model from Init's states is, up to the
// symmetry, one from InitDeferred's states with the same length. Hence the same verdicts
// and shortest-trace lengths. The classes' sizes do not add up to the plain search's
// count (a state of the plain model can be reached with different choices revealed), so
// Stats.Unreduced stays 0.
type Deferring[S any] interface {
	// InitDeferred appends the initial states of a search under symmetry and reports true,
	// or reports false, appending nothing, when the model needs no open choice in its
	// configuration (its plain states are then symmetric as they are).
	InitDeferred(buf []S) ([]S, bool)
	// Settle rewrites in place a behaviour that started in an InitDeferred state into a
	// behaviour of the model (the choice made as the last state allows, the states renamed
	// to match). The engine checks the result step by step against Next.
	Settle(states []S)
}

// CheckedDecoder is implemented by models that can read a state from bytes the engine did
// not write in this process (contract item 3): DecodeChecked reads into s what Decode
// reads, or returns an error, never a panic, when buf is not the encoding of a state of
// the model with its constants (it ends early, runs on, or holds a count, an index or a
// value out of its type). The engine reads the states of a snapshot it resumes with it;
// without it, with Decode, whose panic it then reports as an error.
type CheckedDecoder[S any] interface {
	DecodeChecked(buf []byte, s *S) error
}

// Orbiter is implemented by symmetric models that can say how many states a canonical state
// stands for (the size of its symmetry class). With it, a complete search under symmetry
// reports the number of states the unreduced search would have found (Stats.Unreduced).
type Orbiter[S any] interface {
	OrbitSize(s *S) int
}

// CanonicalEncoder is implemented by symmetric models that can encode a state's class
// representative directly: EncodeCanonical appends to buf what Encode appends for s after
// Canonicalize, without changing s, and returns the size of s's class (as OrbitSize). The
// engine uses it instead of Canonicalize, Encode and OrbitSize when it is there: it saves
// an encoding per successor and a second canonicalization per state.
type CanonicalEncoder[S any] interface {
	EncodeCanonical(s *S, buf []byte) ([]byte, int)
}

// Eventer is implemented by models that describe, for a step, the messages sent and received
// and the local steps between named actors, for message sequence charts. Actors names every
// actor, one lifeline each, in the order to draw them (each incarnation of a restartable
// process and each shared store an actor of its own). AppendEvents appends a JSON array of
// objects, in the order they happen within the step:
//
//	{"type":"send", "actor":"broker1", "peer":"broker2", "msg":"m7", "label":"FetchRequest(offset=1)"}
//
// with "type" one of:
//   - "send": actor sends message msg to peer; label is the message.
//   - "recv": actor receives message msg from peer (the oldest msg in flight with that id).
//   - "drop": message msg from peer to actor is gone without being received: lost, or its
//     connection closed; label says why ("lost (message_loss)").
//   - "supersede": message msg from peer to actor is replaced by a newer one and will never be
//     received; label says by what.
//   - "local": a step of actor alone (peer and msg empty); label describes it.
//   - "state": actor's state from this step on, until its next "state" event: label is a short
//     word drawn along its lifeline ("zombie": it still acts though a newer incarnation
//     replaced it), "" for its normal state.
//
// "msg" identifies one message so that its send and its end (recv, drop, supersede) can be
// paired; a message sent and never ended is still in flight. "peer" is empty for "local"
// and "state". Trace.BackEvents holds the events of a lasso's back step.
type Eventer[S any] interface {
	Actors() []string
	AppendEvents(from *S, a uint64, to *S, buf []byte) []byte
}

// Viewer is implemented by models that offer tables of a state (views: a log grid, a cache,
// a control plane) for renderers that know nothing of the model. AppendViews appends a JSON
// array of tables, the same names in every state of a model (a view with nothing to show
// may be left out):
//
//	{"name":"logs", "title":"Logs",
//	 "columns":["offset","b1","b2 (leader e2)"],
//	 "rows":[["0","e1:r1",{"text":"e2:r3","marks":["diff"]}], ...],
//	 "notes":["hw: b1=1 b2=1"],
//	 "marks":[{"name":"diff","style":"highlight","doc":"differs from the leader's record"},
//	          {"name":"hw","style":"tag","doc":"high watermark: first offset not committed"}]}
//
// "name" is an identifier (a user selects views by it), "title" its heading. A cell is a
// string or an object {"text":..., "marks":[...]}; each row has one cell per column. The
// marks a table uses are declared in "marks", which tells renderers how to draw each one
// without knowing what it means: style "highlight" emphasises the cell (a background
// colour, a "*" suffix in text), style "tag" labels it with the mark's name (a badge, a
// "<hw" suffix in text); "doc" is the legend. "notes" are lines printed under the table.
// AppendViews runs only when a trace is built, never in the search.
type Viewer[S any] interface {
	AppendViews(s *S, buf []byte) []byte
}

// Kind is the kind of a property.
type Kind string

// Property kinds.
const (
	Invariant        Kind = "invariant"        // State holds in every reachable state
	ActionProperty   Kind = "action"           // Step holds on every reachable step
	Sometimes        Kind = "sometimes"        // State holds in some reachable state (not vacuous)
	LeadsTo          Kind = "leadsto"          // P ~> Q on every fair behaviour
	Eventually       Kind = "eventually"       // <>State on every fair behaviour
	AlwaysEventually Kind = "alwayseventually" // []<>State on every fair behaviour
)

// Liveness reports whether properties of kind k are checked over fair behaviours.
func (k Kind) Liveness() bool { return k == LeadsTo || k == Eventually || k == AlwaysEventually }

// Property is one property to check. Which predicate fields are used depends on Kind:
// State for Invariant, Sometimes, Eventually and AlwaysEventually; Step for ActionProperty;
// P and Q for LeadsTo. Predicates must be pure and safe for concurrent use.
type Property[S any] struct {
	Name  string
	Kind  Kind
	State func(s *S) bool
	Step  func(from *S, a uint64, to *S) bool
	P, Q  func(s *S) bool
	// Explain, when not nil, says in a short text why the property fails at s, for the
	// witness printed after a counterexample: for an invariant, why State is false in the
	// violating state; for Eventually and AlwaysEventually, why State is false in the loop's
	// first state; for LeadsTo, why Q is false there (the engine says where P held). It runs
	// only when a trace is built.
	Explain func(s *S) string
	// ExplainStep, for an action property, says why Step is false on the step.
	ExplainStep func(from *S, a uint64, to *S) string
	// Reads, when not nil, is what the property's predicates read, in the objects of the
	// model's footprints (Independent): a step of a group that writes none of them leaves
	// the property's value unchanged (for an action property: the step satisfies it, and
	// any other step from the same state satisfies it as it does from the state after).
	// nil: the property may read anything, and every step is visible to it, so that a
	// partial-order reduction keeps every step where it would leave one out.
	Reads *Objects
}

// malformed says what a property lacks for its kind, or "" when it is well formed.
func (p *Property[S]) malformed() string {
	switch p.Kind {
	case Invariant, Sometimes, Eventually, AlwaysEventually:
		if p.State == nil {
			return "property " + p.Name + ": " + string(p.Kind) + " needs State"
		}
	case ActionProperty:
		if p.Step == nil {
			return "property " + p.Name + ": action property needs Step"
		}
	case LeadsTo:
		if p.P == nil || p.Q == nil {
			return "property " + p.Name + ": leadsto needs P and Q"
		}
	default:
		return "property " + p.Name + ": unknown kind " + string(p.Kind)
	}
	return ""
}

// Options control a search. The zero value works: all cores, no limits, no symmetry.
type Options struct {
	Workers     int           // 0: runtime.NumCPU()
	MaxStates   int64         // distinct states; 0: no limit
	MaxDepth    int           // BFS depth (initial states are depth 1); 0: no limit (*)
	MemoryBytes int64         // budget for the live memory of the search; 0: no limit (**)
	Time        time.Duration // wall-clock budget; 0: no limit
	Deadlock    bool          // report a reachable state with no successors
	Symmetry    bool          // use the model's Symmetric.Canonicalize (safety only unless sound)
	POR         bool          // partial-order reduction with the model's Independent (safety only; por.go)
	SpillBytes  int64         // frontier and liveness graph spill to disk beyond this (***)
	// (*) States at depth MaxDepth are checked and their successors computed (invariants,
	// action properties, deadlock), but new successors are not added: the states that had
	// some are truncated, and the search is incomplete only if some state lay beyond it.
	//
	// (**) The engine's tables and queues, the old copy of each one while it grows, the
	// arrays the liveness check allocates after the search, and the Go runtime's overhead
	// as runtime/metrics reports it: the search stops (incomplete) before a segment that
	// would take them beyond the budget. Garbage is the runtime's: set its memory limit
	// (debug.SetMemoryLimit) to the budget to bound the process's resident memory too.
	//
	// (***) Spilling, when SpillBytes > 0, or when it is 0 and MemoryBytes is set (then a
	// quarter of MemoryBytes); SpillBytes < 0 turns it off. The frontier (the states of the
	// level being expanded and of the next one) spills when it holds more than SpillBytes in
	// memory, in blocks, each compressed and checksummed; the liveness graph's compressed
	// successor lists spill when they would grow beyond SpillBytes (not in a search that takes
	// checkpoints: a checkpoint holds the whole graph), and the liveness check after the
	// search reads them from the file, mapped read-only (Unix; elsewhere read back into
	// memory), once every frame's checksum is checked in one sequential pass. Both go to
	// temporary files in SpillDir ("": os.TempDir()), written sequentially and removed when
	// the search ends. The seen set and the parent links stay in memory.
	SpillDir string
	//
	// LivenessSymmetrySound says that the model's symmetry reduction is sound for its liveness
	// properties (fairness and properties invariant under the permutations). Without it,
	// Check refuses Symmetry together with a liveness property (verdict incomplete).
	LivenessSymmetrySound bool
	// FairnessOverride, when non-nil, replaces the model's fairness for the kinds it names
	// (indexed like ActionKinds; entries < 0 keep the model's default).
	FairnessOverride []Fairness
	// Progress, when non-nil, is called from the search goroutine about every
	// ProgressEvery (default 5s) with the statistics so far.
	Progress      func(Stats)
	ProgressEvery time.Duration
	// Coverage counts, per kind of action, the states in which it was enabled and the steps
	// it generated (Result.Coverage), as TLC's coverage does. It costs a counter per step.
	Coverage bool
	// Vacuity records, per worker, which kinds of action took a step (Result.Taken), and
	// after a search that found no violation says why it is vacuous (Result.Vacuous). It
	// costs a bit-set update per step; nothing with Resume (a resumed search saw part of
	// the steps).
	Vacuity bool
	// Phase, when non-nil, is called from the search goroutine when the search enters a
	// phase of its work: PhaseSearch (the breadth-first search, with safety checked on the
	// way), PhaseLivenessGraph (the recorded state graph made ready for liveness), and
	// PhaseLiveness + a property's name (its strongly connected components and lasso).
	Phase func(phase string, st Stats)
	// Stop, when non-nil, is polled; closing it stops the search like a limit (for signals).
	Stop <-chan struct{}

	// Checkpoint, when non-nil, is called from the search goroutine with a snapshot of the
	// search at a point between two segments where it is consistent: about every
	// CheckpointEvery (0: never), wherever CheckpointAt says, and once more when Stop, the
	// time or the memory budget ends the search before it is complete (not when it ends
	// with a violation, nor at MaxStates or MaxDepth). The snapshot is a view of the
	// engine's tables, valid only during the call, which the search waits for: write it
	// with Snapshot.WriteTo. Nothing is done per state when Checkpoint is nil.
	Checkpoint      func(*Snapshot)
	CheckpointEvery time.Duration
	// CheckpointAt, when non-nil, is asked at each such point, with the BFS level being
	// expanded and the number of states expanded so far, whether to take a checkpoint there
	// (for tests).
	CheckpointAt func(depth int, expanded int64) bool
	// CheckpointSkippable says that the checkpoints are recovery points the caller can do
	// without (a cluster's rollback): a search that records a liveness graph may then spill
	// it to disk as it would without checkpoints, and takes none once it has (a checkpoint
	// holds the whole graph in memory). Without it, such a search keeps its graph in memory.
	CheckpointSkippable bool
	// Resume, when non-nil, goes on with the search a snapshot records (ReadSnapshot reads
	// one back) instead of starting one; the result is the one the search would have had
	// without the stop, whatever the number of workers. The model, its configuration, the
	// properties and the options that shape the search (MaxDepth, Deadlock, Symmetry, POR,
	// FairnessOverride) must be those of the search it was taken from: Check refuses it
	// otherwise (verdict incomplete, the reason naming what differs). Check takes the
	// snapshot over; it resumes one search. Stats.Elapsed counts the time before the
	// snapshot too; the Time budget counts this call only.
	Resume *Snapshot
}

// Verdict is the outcome of a check. It prints itself.
type Verdict string

// Verdicts.
const (
	OK         Verdict = "ok"
	Violated   Verdict = "violated"
	Incomplete Verdict = "incomplete"
)

// Stats are the search statistics, in TLC's terms.
type Stats struct {
	Generated    int64         // states generated (every successor computed)
	Distinct     int64         // distinct states found
	Queue        int64         // states left on queue
	Depth        int           // depth of the (complete or partial) state graph search
	Collision    float64       // optimistic fingerprint-collision probability
	Elapsed      time.Duration // wall-clock time of the search
	MemoryBytes  int64         // engine tables and queues at the end (estimate)
	Spilled      int64         // bytes of frontier blocks written to disk (compressed)
	Workers      int
	GraphBytes   int64 // liveness graph: compressed successor lists, their index, state flags
	GraphEdges   int64 // liveness graph: edges recorded (self-loops left out)
	GraphSpilled int64 // liveness graph: bytes of successor lists written to disk
	// Unreduced, after a complete search under symmetry of a model that is an Orbiter, is
	// the number of distinct states the search without symmetry finds: the sum of the
	// classes' sizes. 0 otherwise, with a Deferring model's open choice, and when the
	// partial-order reduction reduced a state.
	Unreduced int64
	// Symmetry is true when the search explored one state per symmetry class (Options.
	// Symmetry and a Symmetric model), and Deferred when it did so with the model's choice
	// left open (Deferring).
	Symmetry, Deferred bool
	// POR is true when the search used the partial-order reduction (Options.POR and an
	// Independent model); Reduced is the number of states it expanded with fewer steps
	// than they have (a stubborn set smaller than the enabled steps), and Proviso the
	// number whose reduced set the cycle proviso refused (expanded in full).
	POR              bool
	Reduced, Proviso int64
	// Shortened, for a violation found under the reduction, is the length (states) of the
	// trace the reduced search found; the trace returned is the shortest one, found by a
	// plain search bounded by that length (ShortenStates distinct states). 0 otherwise.
	Shortened     int
	ShortenStates int64
}

// KindCoverage is how often one kind of action was enabled and taken in a search.
type KindCoverage struct {
	Kind    string
	Enabled int64 // expanded states in which it had a step
	Taken   int64 // steps it generated (successors computed, new or not)
}

// Result is the outcome of Check.
type Result struct {
	// Coverage, with Options.Coverage, has one entry per kind of action, in ActionKinds
	// order, over the states this search expanded.
	Coverage []KindCoverage
	// Tallies, when the model is a Tallier that counted in this search, are its counts over
	// the whole search: a resumed snapshot's, and every part's of a partitioned search,
	// included. Nil when it counted nothing, or resumed a snapshot without its counts.
	Tallies []uint64
	// Taken, with Options.Vacuity or Coverage, says per kind of action (ActionKinds order)
	// whether the search took a step of it.
	Taken []bool
	// Vacuous, with Options.Vacuity and verdict OK, says why the search tested little:
	// fewer than Handful distinct states, a LeadsTo property whose condition never held.
	// The verdict stays OK; callers add reasons of their own (a fault budget never used).
	Vacuous  []string
	Verdict  Verdict
	Property string // the violated property, or "" (Deadlock for a deadlock)
	// Reason says why the verdict is what it is when that is not obvious: which limit was
	// hit for incomplete, "vacuous" for a Sometimes property without a witness, which
	// liveness property depends on truncated states.
	Reason string
	// Raise names, for an incomplete liveness verdict that a model bound caused, the bounds
	// to raise (Bounded.Bounds names before "="): "max_epoch".
	Raise []string
	// Interrupted names what cut the work short, whatever the verdict: the limit that ended
	// the search before its state graph was complete ("time 1m0s reached", "max states
	// 1000 reached", "max depth 9 reached", "memory ... reached", "stopped"), or "stopped"
	// when a stop request (Options.Stop) ended the liveness check of a complete graph
	// (Stats.Queue is then 0). "" when the search and its checks ran to their end. With it
	// set, a Violated verdict is a counterexample found in the part explored: a real one (a
	// lasso lies among fully expanded states, with steps that were recorded), but neither
	// it nor the statistics are necessarily those of a complete search.
	Interrupted string
	Stats       Stats
	Trace       *Trace // the counterexample, when Verdict is Violated and one exists
}

// Trace is a counterexample, independent of the model's state type: what renderers need.
type Trace struct {
	Property string
	Vars     []string     // variable names, in the model's order
	States   []TraceState // States[0] is initial
	// Loop, for a lasso, is the index in States that the last state goes back to, with
	// BackAction the action taken; -1 when the trace is not a lasso or ends in stuttering.
	Loop       int
	BackAction string
	BackKind   string
	BackEvents string // JSON array from Eventer for the back step, or ""
	// Stutter is true when the lasso ends by stuttering forever in the last state.
	Stutter bool
	Actors  []string // from Eventer, when the model has it
	// Reduced says that the trace was found by a search under the partial-order reduction
	// and could not be shortened (Stats.Shortened): it need not be a shortest one.
	Reduced bool
	// Witness says why the trace is a counterexample (see Property.Explain): the property,
	// the state or step that breaks it and the model's explanation; for a lasso, what holds
	// on the loop and which fair steps it takes. "" when there is none (a Sometimes property).
	Witness string
}

// TraceState is one state of a trace and the action that led to it.
type TraceState struct {
	Action string   // "" for the initial state
	Kind   string   // the action's kind, "" for the initial state
	Values []string // ITF JSON of each variable, in Trace.Vars order
	Events string   // JSON array from Eventer for the step into this state, or ""
	Views  string   // JSON array of tables from Viewer for this state, or ""
}

// Runnable is a model bound to its properties with the state type hidden, so that the CLI
// and the spec loader can handle every model family alike. Bind makes one.
type Runnable interface {
	// Check runs the search.
	Check(opts Options) Result
	// Simulate takes random walks (see Simulate).
	Simulate(opts SimOptions) SimResult
	// Replay checks that t is a real behaviour of the model: its first state is initial and
	// each later state is the successor of the one before by the action named (a lasso's back
	// edge too). A mismatch is an error naming the step (1-based, as printed) and the reason.
	// On success it reports which of the bound properties the trace violates.
	Replay(t *Trace) (ReplayReport, error)
	// Graph returns the whole reachable graph, or an error when it has more than max states.
	Graph(max int, opts Options) (*Graph, error)
	// Vars and ActionKinds describe the model, as in Model.
	Vars() []string
	ActionKinds() []string
	// Fairness is the fairness of each kind of action (indexed like ActionKinds) that a
	// search with opts assumes (the model's, with opts.FairnessOverride applied), and
	// whether a bound property is checked over fair behaviours (Kind.Liveness).
	Fairness(opts Options) ([]Fairness, bool)
	// Stepper is the model one state at a time (stepper.go), for a caller that walks the
	// state graph by hand.
	Stepper() Stepper
}

// ReplayReport is what a successful Replay found.
type ReplayReport struct {
	Steps    int      // number of states replayed
	Violates []string // names of bound properties the trace violates
	// Witnesses says, for each of Violates (same order), why the trace violates it.
	Witnesses []string
}

// Graph is a whole reachable state graph, for small models.
type Graph struct {
	Vars  []string
	Nodes []GraphNode // in BFS order; node i has index i
	Edges []GraphEdge // in BFS order of their source, then successor order
}

// GraphNode is one reachable state.
type GraphNode struct {
	Values  []string // ITF JSON per variable
	Initial bool
}

// GraphEdge is one step between reachable states.
type GraphEdge struct {
	From, To     int
	Action, Kind string
}

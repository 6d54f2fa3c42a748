package checker

import (
	"runtime"
	"strconv"
	"sync/atomic"
	"time"
)

// Check explores the reachable states of m breadth-first and checks props.
func Check[S any](m Model[S], props []Property[S], opts Options) Result {
	e, res, ok := newEngine(m, props, opts)
	if !ok {
		return res
	}
	res = e.run()
	e.es.close()
	e.set.closeSpill()
	if opts.Coverage && e.counting()&countCoverage != 0 {
		res.Coverage = e.coverage()
	}
	if opts.Vacuity && e.counting()&countTaken != 0 {
		res.Taken = e.taken()
		if res.Verdict == OK {
			res.Vacuous = e.vacuous(res.Stats.Distinct)
		}
	}
	if e.counting()&countTally != 0 {
		res.Tallies = e.tallies()
	}
	res.Stats.Symmetry, res.Stats.Deferred = e.sym != nil, e.dfr != nil
	if e.por != nil {
		res.Stats.POR = true
		res.Stats.Reduced, res.Stats.Proviso = e.reduced0, e.proviso0
		for _, w := range e.ws {
			res.Stats.Reduced += w.reduced + w.segReduced // a segment that found a violation is not committed
			res.Stats.Proviso += w.proviso + w.segProviso
		}
		if res.Verdict == Violated && res.Trace != nil && res.Stats.Reduced > 0 {
			// (A search that reduced no state was the plain one: its trace is a shortest.)
			shorten(m, props, opts, &res)
		}
	}
	// A search under the reduction that expanded every state in full is the plain search,
	// state for state.
	if (e.orb != nil || e.cenc != nil) && e.dfr == nil && res.Stats.Reduced == 0 && res.Verdict == OK && res.Stats.Queue == 0 {
		// Every state was expanded once in a segment that was committed (OrbitSize), or
		// committed once with the class size of its candidate (EncodeCanonical); a resumed
		// search starts from the snapshot's sum.
		res.Stats.Unreduced = e.orbits
	}
	return res
}

// shorten replaces the counterexample of a search under the partial-order reduction, which
// need not be a shortest one, by the one a plain search (the same options without the
// reduction) bounded by its length finds: the plain search's own counterexample, since a
// violation lies within the bound and breadth-first search reports the first level with
// one. The result keeps the reduced search's statistics, with Stats.Shortened set to the
// length of the trace it found. When the bounded search does not end in a violation (a
// limit of time or memory stopped it), the trace found stays, marked Trace.Reduced.
func shorten[S any](m Model[S], props []Property[S], opts Options, res *Result) {
	n := len(res.Trace.States)
	o := opts
	o.POR, o.Resume, o.Checkpoint, o.CheckpointAt, o.Coverage, o.Vacuity = false, nil, nil, nil, false, false
	o.Phase = nil
	if o.MaxDepth == 0 || o.MaxDepth > n {
		o.MaxDepth = n
	}
	if o.Time > 0 {
		o.Time = max(o.Time-res.Stats.Elapsed, time.Second)
	}
	plain := Check(m, props, o)
	if plain.Verdict != Violated || plain.Trace == nil {
		res.Trace.Reduced = true
		return
	}
	res.Property, res.Reason, res.Trace = plain.Property, plain.Reason, plain.Trace
	res.Stats.Shortened, res.Stats.ShortenStates = n, plain.Stats.Distinct
}

// Handful is the number of distinct states below which a search that passes is vacuous:
// it explored too little of the model to test anything.
const Handful = 5

// taken merges the workers' bits of the kinds of action taken (Options.Vacuity), or takes
// them from the coverage counts.
func (e *engine[S]) taken() []bool {
	out := make([]bool, len(e.m.ActionKinds()))
	for k := range out {
		if k < 256 && e.taken0[k>>6]&(1<<(k&63)) != 0 || 2*k+1 < len(e.cov0) && e.cov0[2*k+1] > 0 {
			out[k] = true
		}
		for _, w := range e.ws {
			if k < 256 && w.taken[k>>6]&(1<<(k&63)) != 0 || k < len(w.covTaken) && w.covTaken[k] > 0 {
				out[k] = true
			}
		}
	}
	return out
}

// vacuous lists why a search that found no violation tested little (Options.Vacuity):
// fewer than Handful distinct states, and each LeadsTo property whose condition P held in
// no state reached.
func (e *engine[S]) vacuous(distinct int64) []string {
	var out []string
	if distinct < Handful {
		what := " distinct states"
		if distinct == 1 {
			what = " distinct state"
		}
		out = append(out, "only "+strconv.FormatInt(distinct, 10)+what)
	}
	for j, pi := range e.live {
		p := &e.props[pi]
		if p.Kind != LeadsTo || j >= len(e.flags) {
			continue
		}
		held := false
		for _, f := range e.flags[j][:min(int64(len(e.flags[j])), distinct)] {
			if f&1 != 0 {
				held = true
				break
			}
		}
		if !held {
			out = append(out, p.Name+": its condition never held")
		}
	}
	return out
}

// coverage sums the workers' counts per kind of action (Options.Coverage).
func (e *engine[S]) coverage() []KindCoverage {
	kinds := e.m.ActionKinds()
	out := make([]KindCoverage, len(kinds))
	for k, name := range kinds {
		out[k].Kind = name
		if 2*k+1 < len(e.cov0) {
			out[k].Enabled, out[k].Taken = e.cov0[2*k], e.cov0[2*k+1]
		}
		for _, w := range e.ws {
			if k < len(w.covTaken) {
				out[k].Enabled += w.covEnabled[k]
				out[k].Taken += w.covTaken[k]
			}
		}
	}
	return out
}

const (
	noIndex  uint32 = 1<<32 - 1
	pendBit  uint32 = 1 << 31
	maxState        = 1<<31 - 2 // state indices and per-segment candidates stay below pendBit
)

// Work sizes; variables so that tests can make them small enough to exercise every path.
var (
	chunkStates   = 1024    // frontier states per unit of work in the expansion phase
	segmentStates = 1 << 14 // frontier states expanded, inserted and committed together
)

// engine holds one search. Only the coordinating goroutine writes its fields, except in the
// phases where workers write their own chunk outputs and their own fingerprint shards.
type engine[S any] struct {
	m       Model[S]
	sym     Symmetric[S]            // nil unless Options.Symmetry and the model has it
	dfr     Deferring[S]            // set when sym is and the model leaves a choice open
	orb     Orbiter[S]              // nil unless sym is set and the model has it
	cenc    CanonicalEncoder[S]     // nil unless sym is set and the model has it
	view    func(enc []byte) []byte // the model's Projected.View, or nil
	ev      Eventer[S]
	bnd     Bounded[S] // nil unless the model has bounds and liveness or deadlock is checked
	por     *por[S]    // the partial-order reduction (Options.POR and an Independent model), or nil
	kfair   []Fairness // fairness per action kind
	props   []Property[S]
	opts    Options
	workers int

	inv, act, some, live []int // indices into props by kind

	inits []S
	set   fpSet
	links parentLinks // per state: its BFS parent (noIndex for an initial state) and position

	// Liveness recording (rec): the successor lists of the states expanded so far,
	// compressed (edges.go); self-loops are left out (a step to the same state is a
	// stuttering step for fairness).
	rec     bool
	es      edgeStore
	codes   codeTable
	flags   [][]byte // per liveness property, per state: bit 0 P holds, bit 1 Q holds
	partial []uint32 // expanded states with successors that were not added (truncated)
	// Steps cut by a model bound (Bounded), fair ones only, sorted by state: state
	// cutState[k] has the step with code id cutCode[k] cut by bound cutBy[k].
	cutState []uint32
	cutCode  []uint32
	cutBy    []uint16
	// lookupFP, when set, answers the trace replay's lookups instead of set: the
	// coordinator of a partitioned search, which holds the graph but not the seen set.
	lookupFP func(fp uint64) (uint32, bool)

	someHit    []atomic.Bool
	abort      atomic.Int32 // limit that stopped the expansion phase (limit*), 0 if none
	deadline   time.Time
	ownBytes   atomic.Int64
	frontBytes int64 // the two frontiers, as of the last segment
	edgeDouble bool  // the edge stream and index grow by doubling (see memory.go)
	meter      memMeter

	outs      []*chunkOut
	dedup     []*segSet // per insertion worker
	bases     []uint32
	candIdx   []uint32
	candBases []uint32
	ws        []*worker[S]

	generated int64
	distinct  int64
	// The reduction's counts before a resumed search (Stats.Reduced, Stats.Proviso).
	reduced0, proviso0 int64
	// What a resumed snapshot counted of the steps taken (Snapshot.counted, taken, cov), and
	// whether a snapshot with 64-bit parent links is taken over as it is (the coordinator of
	// a partitioned search keeps them; the single-process engine narrows them).
	counted byte
	taken0  [4]uint64
	cov0    []int64
	tally0  []uint64 // the model's own counts (Tallier) of a resumed snapshot
	// tallyIn reads the model's own counts (Tallier) from the engine's start, nil when it
	// counts nothing; tallySum is what its takes returned so far.
	tallyIn  *tallyReader
	tallySum []uint64
	wideOK   bool
	orbits   int64 // the class sizes of the states committed (CanonicalEncoder) or expanded in segments committed (Orbiter)
	spilled  int64 // bytes written by the frontiers' spill files
	start    time.Time
	lastProg time.Time
	lastCkpt time.Time
}

// Limits that can stop a search.
const (
	limitNone int32 = iota
	limitTime
	limitMemory
	limitStop
)

func newEngine[S any](m Model[S], props []Property[S], opts Options) (*engine[S], Result, bool) {
	e := &engine[S]{m: m, props: props, opts: opts, edgeDouble: true, tallyIn: newTallyReader(m)}
	e.workers = opts.Workers
	if e.workers <= 0 {
		e.workers = runtime.NumCPU()
	}
	if e.workers > fpShards {
		e.workers = fpShards
	}
	fail := func(reason string) (*engine[S], Result, bool) {
		return nil, Result{Verdict: Incomplete, Reason: reason, Stats: Stats{Workers: e.workers}}, false
	}
	for i := range props {
		p := &props[i]
		if why := p.malformed(); why != "" {
			return fail(why)
		}
		switch p.Kind {
		case Invariant:
			e.inv = append(e.inv, i)
		case ActionProperty:
			e.act = append(e.act, i)
		case Sometimes:
			e.some = append(e.some, i)
		default:
			e.live = append(e.live, i)
		}
	}
	e.view = viewOf(m)
	if opts.Symmetry {
		if s, ok := any(m).(Symmetric[S]); ok {
			e.sym = s
			e.orb, _ = any(m).(Orbiter[S])
			e.cenc, _ = any(m).(CanonicalEncoder[S])
			e.dfr = deferringOf(m)
		}
	}
	// Symmetry reduction explores one state per symmetry class. For safety that is sound when
	// the properties are symmetric, because every behaviour maps to one of the quotient graph.
	// For liveness it is not in general: fairness is per action instance (FollowerFetch(2) and
	// FollowerFetch(3) separately), and the quotient graph merges permuted instances, so a
	// cycle of the quotient graph can stand for a concrete path that permutes brokers on every
	// lap, with a different fairness status. The model's family must vouch for it.
	if e.dfr != nil && len(e.live) > 0 {
		return fail("symmetry reduction with the model's choice left open is not sound for liveness property " + props[e.live[0]].Name + "; run without --symmetry")
	}
	if e.sym != nil && len(e.live) > 0 && !opts.LivenessSymmetrySound {
		return fail("symmetry reduction is not sound for liveness property " + props[e.live[0]].Name + "; run without --symmetry")
	}
	if ev, ok := any(m).(Eventer[S]); ok {
		e.ev = ev
	}
	if opts.POR {
		if ind, ok := any(m).(Independent[S]); ok {
			if len(e.live) > 0 {
				return fail("partial-order reduction is not sound for liveness property " + props[e.live[0]].Name +
					" (it keeps no fair cycle's steps); run without --por (--por=false)")
			}
			p, why := newPOR(ind, props)
			if p == nil {
				return fail("partial-order reduction: " + why)
			}
			e.por = p
		}
	}
	e.rec = len(e.live) > 0
	// The reduction's cycle proviso needs each state's index (por.go), as the liveness
	// graph does.
	e.set.vals = e.rec || e.por != nil
	e.kfair = make([]Fairness, len(m.ActionKinds()))
	for k := range e.kfair {
		e.kfair[k] = e.fairness(k)
	}
	if b, ok := any(m).(Bounded[S]); ok && (e.rec || opts.Deadlock) {
		e.bnd = b
		if len(b.Bounds()) > 1<<16 {
			panic("checker: the model has more than 65536 bounds")
		}
	}
	e.flags = make([][]byte, len(e.live))
	e.someHit = make([]atomic.Bool, len(e.some))
	return e, Result{}, true
}

// cand is one generated successor waiting to be inserted and committed.
type cand struct {
	fp     uint64
	off, n uint32 // encoding in the chunk arena
	parent uint32
	ref    uint32 // state index, or pendBit|candidate sequence number of its first occurrence
	pos    uint16
	orbit  uint32 // with CanonicalEncoder: the size of the state's class
}

// cutRec is a fair step that a model bound cut: the state, the code id, the bound.
type cutRec struct {
	state uint32
	code  uint32
	by    uint16
}

type missingCode struct {
	pos  uint32
	code uint64
}

// chunkOut is what expanding frontier states [lo, hi) produced.
type chunkOut struct {
	lo, hi int
	cands  []cand
	byW    [][]uint32 // with several workers: per insertion worker, its candidates' indices
	arena  []byte
	// Liveness graph edges of the chunk, in successor order (self-loops left out): a state
	// index, or pendBit|candidate number in this chunk; ecnt[k] is where the edges of the
	// chunk's state k end; missing lists code ids the table did not have yet.
	edges   []uint32
	ecodes  []uint32
	ecnt    []uint32
	missing []missingCode
	// The chunk's records for the edge stream (edges.go): recBlk are the offsets in rec of
	// the records of states whose index is a multiple of edgeBlock, recPart the states that
	// lost an edge to a dropped state, recEdges the edges stored.
	rec      []byte
	recBlk   []uint32
	recPart  []uint32
	recEdges int
	// Fair steps cut by a model bound, in state order; missingCut as missing, for cuts.
	cuts       []cutRec
	missingCut []missingCode
	cut        bool // some edge goes to a state dropped by a bound (target noIndex)
	gen        int64
	viol       violation
}

// violation identifies a safety violation. The smallest one of a level is reported: state
// violations (invariant, deadlock: trace of the level's depth) before step violations (one
// step longer), then by state index and successor position.
type violation struct {
	found bool
	step  bool
	idx   uint32 // the violating state, or the source of the violating step
	pos   uint16
	prop  int    // index in props, -1 for deadlock
	fp    uint64 // fingerprint of state idx, for the trace replay to check (0: unknown)
}

func (v violation) less(o violation) bool {
	switch {
	case !o.found:
		return v.found
	case !v.found:
		return false
	case v.step != o.step:
		return !v.step
	case v.idx != o.idx:
		return v.idx < o.idx
	default:
		return v.pos < o.pos
	}
}

func (v *violation) offer(o violation) {
	if o.less(*v) {
		*v = o
	}
}

// codeTable assigns dense ids to action codes, for the liveness graph.
type codeTable struct {
	keys  []uint64
	ids   []uint32 // id+1, 0 for an empty slot
	codes []uint64 // codes[id]
}

// lookup returns the id of c if it has one; safe for concurrent use while nobody calls id.
func (t *codeTable) lookup(c uint64) (uint32, bool) {
	if len(t.keys) == 0 {
		return noIndex, false
	}
	mask := uint64(len(t.keys) - 1)
	i := mum(c^fpK1, fpK2) & mask
	for {
		switch {
		case t.ids[i] == 0:
			return noIndex, false
		case t.keys[i] == c:
			return t.ids[i] - 1, true
		}
		i = (i + 1) & mask
	}
}

func (t *codeTable) id(c uint64) uint32 {
	if (len(t.codes)+1)*2 > len(t.keys) {
		t.grow()
	}
	mask := uint64(len(t.keys) - 1)
	i := mum(c^fpK1, fpK2) & mask
	for {
		if t.ids[i] == 0 {
			t.keys[i] = c
			t.codes = append(t.codes, c)
			t.ids[i] = uint32(len(t.codes))
			return t.ids[i] - 1
		}
		if t.keys[i] == c {
			return t.ids[i] - 1
		}
		i = (i + 1) & mask
	}
}

func (t *codeTable) grow() {
	size := 2 * len(t.keys)
	if size == 0 {
		size = 64
	}
	t.keys = make([]uint64, size)
	t.ids = make([]uint32, size)
	mask := uint64(size - 1)
	for id, c := range t.codes {
		i := mum(c^fpK1, fpK2) & mask
		for t.ids[i] != 0 {
			i = (i + 1) & mask
		}
		t.keys[i] = c
		t.ids[i] = uint32(id + 1)
	}
}

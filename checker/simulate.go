package checker

import (
	"math"
	"math/bits"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Simulation takes random walks through a model whose bounds are too large to exhaust, in
// the manner of TLC's -simulate: each walk starts at a random initial state and takes a
// uniformly random successor at every step, up to a depth. It checks every invariant on
// each state of the walk and every action property on each step; a state without a
// successor (nor, for a Bounded model, a cut step) is a deadlock when SimOptions.Deadlock.
//
// Liveness is checked on the lassos a walk contains. When a walk steps to a state it has
// visited before, the segment from that state is a cycle; when it reaches a state where no
// fair step is enabled or cut, that state may stutter forever. Either is a lasso, judged by
// the replayer's rules (lassoViolates, and fairLoop with cut steps counted as enabled) before
// it is reported, so a reported lasso is a fair behaviour that violates the property, exactly
// as one of Check's. A walk that finds no such lasso proves nothing: simulation is not
// exhaustive, and its ok means "no violation found in so many walks".
//
// Walk k draws from a generator seeded from (Seed, k) alone, so walk k is the same walk
// whichever worker takes it and whatever ran before; the violation reported is the one of
// the lowest walk index that has one (its first, by step), and the statistics count the
// walks in index order up to it, so the verdict, the walk, the trace and the statistics do
// not depend on the number of workers.
//
// A walk keeps only what it needs (simWorker): for safety, its distinct states'
// fingerprints and how each was first reached, so that its memory grows with the distinct
// states it visits, not with its depth; the trace of a violation is rebuilt by replaying
// the model from the walk's initial state.

// SimOptions control a simulation. The zero value works: 1000 walks of at most 100 states
// from seed 0 on all cores.
type SimOptions struct {
	Seed     uint64        // walk k draws from a generator seeded from (Seed, k) alone
	Runs     int64         // walks to take; 0: 1000; < 0: no limit (until Time or Stop)
	FirstRun int64         // index of the first walk: FirstRun k with Runs 1 takes walk k alone
	Depth    int           // states per walk, the initial one included; 0: 100
	Workers  int           // 0: runtime.NumCPU()
	Time     time.Duration // wall-clock budget; 0: none. Reaching it ends the simulation (ok)
	// MemoryBytes is a budget, as Options.MemoryBytes, for the walks' buffers, the results
	// of walks waiting to be counted and the Go runtime's memory when the simulation
	// starts; 0: none. A walk that would grow them beyond it ends the simulation
	// (incomplete), with the statistics of the walks done.
	MemoryBytes int64
	Deadlock    bool // report a state without successors (nor cut steps)
	Bias        Bias // how a walk chooses among successors; "": BiasUniform
	// FairnessOverride is as in Options.
	FairnessOverride []Fairness
	// Progress, when non-nil, is called from the caller's goroutine about every
	// ProgressEvery (default 5s) with the statistics so far.
	Progress      func(SimStats)
	ProgressEvery time.Duration
	// Stop, when non-nil, is polled; closing it stops the simulation (verdict incomplete
	// unless a violation was found).
	Stop <-chan struct{}
}

// Bias is how a walk chooses its next step among a state's successors. Every bias leaves
// what is checked and reported alone: it changes which walks are taken, not what a walk's
// lasso or violation means.
type Bias string

// Biases.
const (
	// BiasUniform takes every successor with the same probability.
	BiasUniform Bias = "uniform"
	// BiasKinds takes every enabled kind of action (ActionKinds) with the same probability,
	// then one of its successors uniformly: a kind with many instances (a fault with many
	// arguments) is no likelier than one with a single instance.
	BiasKinds Bias = "kinds"
	// BiasDelay draws, each time an action becomes enabled, a random delay from a
	// heavy-tailed distribution (log-uniform over [0, Depth) steps), and takes uniformly one
	// of the enabled actions whose delay has passed (the earliest due when none has): a
	// pending step can wait long while others go on, as a delayed message does.
	BiasDelay Bias = "delay"
)

// Biases lists the biases.
var Biases = []Bias{BiasUniform, BiasKinds, BiasDelay}

// Simulation defaults.
const (
	DefaultSimRuns  = 1000
	DefaultSimDepth = 100
	maxSimDepth     = 1 << 30 // positions in a walk are int32
)

// SimStats are a simulation's statistics. At a violation they count the walks up to the
// violating one (included) and no others, so that every figure is the same for any number
// of workers; otherwise every walk done. Walks cut short (by a stop, a budget or a
// violation in a lower walk) are not counted.
type SimStats struct {
	Walks     int64 // walks taken to their end
	States    int64 // states visited over those walks, each walk's initial state included
	Generated int64 // successors computed
	// Distinct estimates the number of distinct states among those visited: a HyperLogLog
	// count of their fingerprints (standard error about 0.8%), the same for any number of
	// workers when the same walks were taken.
	Distinct int64
	MaxDepth int // states in the longest walk
	Elapsed  time.Duration
	Workers  int
}

// SimResult is the outcome of Simulate.
type SimResult struct {
	// Verdict is Violated with the property and a trace; OK when the walks (Runs of them,
	// or as many as the time budget allowed) found no violation, which is no proof; or
	// Incomplete when the simulation was stopped, or could not start (Reason says why).
	Verdict  Verdict
	Property string // the violated property ("Deadlock" for a deadlock)
	Reason   string
	Seed     uint64
	Run      int64 // the index of the walk that found the violation
	Stats    SimStats
	Trace    *Trace
}

// Simulate takes random walks through m and checks props on them.
func Simulate[S any](m Model[S], props []Property[S], opts SimOptions) SimResult {
	s, res, ok := newSim(m, props, opts)
	if !ok {
		return res
	}
	return s.run()
}

// Why the walks stopped before their number was reached.
const (
	haltNone int32 = iota
	haltTime
	haltStop
	haltMemory
)

// sim holds one simulation. Workers share only the atomics and, under mu, the violation of
// the lowest walk and the results of the walks not yet counted.
type sim[S any] struct {
	m       Model[S]
	view    func(enc []byte) []byte // the model's Projected.View, or nil
	bnd     Bounded[S]              // nil unless the model has bounds and liveness or deadlock is checked
	ev      Eventer[S]
	props   []Property[S]
	inv     []int // indices into props by kind; Sometimes properties are not checked
	act     []int
	live    []int
	kfair   []Fairness
	opts    SimOptions
	runs    int64 // < 0: no limit
	depth   int
	workers int
	inits   []S
	width   int64 // bytes of a state

	next atomic.Int64 // next walk index, relative to FirstRun
	best atomic.Int64 // lowest walk index (relative) with a violation, or MaxInt64
	halt atomic.Int32
	used atomic.Int64 // bytes held against the memory budget (SimOptions.MemoryBytes)
	hll  []atomic.Uint32

	mu   sync.Mutex
	cond *sync.Cond    // on mu: signalled when walks are counted or the simulation halts
	viol *simViolation // of walk best
	// The walks done are counted in index order: counted is the first walk not counted
	// yet, and pending holds the results of the later walks done so far. At a violation
	// the walks up to it are counted, whichever worker took them and when.
	// A worker takes no walk more than simWindow walks per worker past the first not
	// counted, so that pending stays small while one walk is much longer than the others.
	counted int64
	pending map[int64]*walkResult
	free    []*walkResult
	total   SimStats // the walks counted: Walks, States, Generated, MaxDepth
}

// walkResult is what a walk done adds to the statistics: its states (positions), the
// successors it computed, and the fingerprints of its distinct states (for the sketch).
type walkResult struct {
	states, generated int64
	fps               []uint64
}

type simViolation struct {
	prop  string
	trace *Trace
}

func newSim[S any](m Model[S], props []Property[S], opts SimOptions) (*sim[S], SimResult, bool) {
	s := &sim[S]{m: m, view: viewOf(m), props: props, opts: opts, runs: opts.Runs, depth: opts.Depth, workers: opts.Workers}
	if s.runs == 0 {
		s.runs = DefaultSimRuns
	}
	if s.depth <= 0 {
		s.depth = DefaultSimDepth
	}
	s.depth = min(s.depth, maxSimDepth)
	if s.workers <= 0 {
		s.workers = runtime.NumCPU()
	}
	s.workers = min(s.workers, fpShards)
	switch opts.Bias {
	case "":
		s.opts.Bias = BiasUniform
	case BiasUniform, BiasKinds, BiasDelay:
	default:
		return nil, SimResult{Verdict: Incomplete, Reason: "unknown bias " + string(opts.Bias), Seed: opts.Seed}, false
	}
	fail := func(reason string) (*sim[S], SimResult, bool) {
		return nil, SimResult{Verdict: Incomplete, Reason: reason, Seed: opts.Seed, Stats: SimStats{Workers: s.workers}}, false
	}
	for i := range props {
		p := &props[i]
		if why := p.malformed(); why != "" {
			return fail(why)
		}
		switch p.Kind {
		case Invariant:
			s.inv = append(s.inv, i)
		case ActionProperty:
			s.act = append(s.act, i)
		case Sometimes: // a witness not met by some walks is no evidence of anything
		default:
			s.live = append(s.live, i)
		}
	}
	if ev, ok := any(m).(Eventer[S]); ok {
		s.ev = ev
	}
	if b, ok := any(m).(Bounded[S]); ok && (len(s.live) > 0 || opts.Deadlock) {
		s.bnd = b
	}
	kinds := m.ActionKinds()
	s.kfair = make([]Fairness, len(kinds))
	for k := range kinds {
		s.kfair[k] = Fairness(m.Fairness(k))
		if k < len(opts.FairnessOverride) && opts.FairnessOverride[k] >= 0 {
			s.kfair[k] = opts.FairnessOverride[k]
		}
	}
	s.inits = m.Init(nil)
	if len(s.inits) == 0 {
		return fail("the model has no initial state")
	}
	var z S
	s.width = int64(unsafe.Sizeof(z))
	s.best.Store(math.MaxInt64)
	s.hll = make([]atomic.Uint32, 1<<hllBits)
	s.pending = map[int64]*walkResult{}
	s.cond = sync.NewCond(&s.mu)
	var meter memMeter
	s.used.Store(meter.overhead(0) + 4<<hllBits)
	return s, SimResult{}, true
}

// fairness is the fairness of action a.
func (s *sim[S]) fairness(a uint64) Fairness {
	return s.kindFairness(s.m.ActionKind(a))
}

func (s *sim[S]) kindFairness(k int) Fairness {
	if k < 0 || k >= len(s.kfair) {
		return Unfair
	}
	return s.kfair[k]
}

func (s *sim[S]) run() SimResult {
	start := time.Now()
	var wg sync.WaitGroup
	for range s.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.work(newSimWorker(s))
		}()
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	var deadline <-chan time.Time
	if s.opts.Time > 0 {
		t := time.NewTimer(s.opts.Time)
		defer t.Stop()
		deadline = t.C
	}
	var tick <-chan time.Time
	if s.opts.Progress != nil {
		every := s.opts.ProgressEvery
		if every <= 0 {
			every = 5 * time.Second
		}
		t := time.NewTicker(every)
		defer t.Stop()
		tick = t.C
	}
	stop := s.opts.Stop
wait:
	for {
		select {
		case <-done:
			break wait
		case <-deadline:
			s.setHalt(haltTime)
			deadline = nil
		case <-stop:
			s.setHalt(haltStop)
			stop = nil
		case <-tick:
			s.opts.Progress(s.stats(time.Since(start)))
		}
	}
	// The walks up to the violating one are counted already, unless a stop or a budget cut
	// one of them short (the violation is then one of those found, not necessarily the
	// lowest walk's): count the walks done up to it, or without a violation every walk
	// done, past the ones cut short.
	s.mu.Lock()
	last := int64(math.MaxInt64)
	if s.viol != nil {
		last = s.best.Load()
	}
	for run := s.counted; run <= last && len(s.pending) > 0; run++ {
		if r, ok := s.pending[run]; ok {
			s.count(r)
			delete(s.pending, run)
		}
	}
	s.mu.Unlock()
	res := SimResult{Seed: s.opts.Seed, Stats: s.stats(time.Since(start))}
	switch {
	case s.viol != nil:
		res.Verdict, res.Property, res.Trace = Violated, s.viol.prop, s.viol.trace
		res.Run = s.opts.FirstRun + s.best.Load()
	case s.halt.Load() == haltStop:
		res.Verdict, res.Reason = Incomplete, "interrupted"
	case s.halt.Load() == haltMemory:
		res.Verdict, res.Reason = Incomplete, "memory "+strconv.FormatInt(s.opts.MemoryBytes, 10)+" bytes reached"
	case s.halt.Load() == haltTime:
		res.Verdict, res.Reason = OK, "time budget reached"
	default:
		res.Verdict = OK
	}
	return res
}

func (s *sim[S]) stats(elapsed time.Duration) SimStats {
	s.mu.Lock()
	st := s.total
	s.mu.Unlock()
	st.Distinct, st.Elapsed, st.Workers = hllEstimate(s.hll), elapsed, s.workers
	return st
}

// setHalt halts the simulation for reason h, unless it is halted already, and wakes the
// workers waiting to take a walk.
func (s *sim[S]) setHalt(h int32) {
	s.halt.CompareAndSwap(haltNone, h)
	s.mu.Lock()
	s.cond.Broadcast()
	s.mu.Unlock()
}

// simWindow is how many walks per worker a worker may take past the first walk not
// counted yet (see sim.pending).
const simWindow = 16

// wait waits until walk run is within the window of walks a worker may take, or the
// simulation halts; it reports whether to take it.
func (s *sim[S]) wait(run int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for run >= s.counted+simWindow*int64(s.workers) && s.halt.Load() == haltNone && run <= s.best.Load() {
		s.cond.Wait()
	}
	return s.halt.Load() == haltNone && run <= s.best.Load()
}

// count adds a walk's result to the statistics (under mu) and frees it.
func (s *sim[S]) count(r *walkResult) {
	s.total.Walks++
	s.total.States += r.states
	s.total.Generated += r.generated
	s.total.MaxDepth = max(s.total.MaxDepth, int(r.states))
	for _, fp := range r.fps {
		hllAdd(s.hll, fp)
	}
	r.fps = r.fps[:0]
	s.free = append(s.free, r) // its fingerprints' array stays counted in used

}

// done records walk run's result, and counts the walks done in index order from the first
// not counted yet, up to the violating walk.
func (s *sim[S]) done(run int64, w *simWorker[S]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var r *walkResult
	if n := len(s.free); n > 0 {
		r, s.free = s.free[n-1], s.free[:n-1]
	} else {
		r = &walkResult{}
	}
	r.states, r.generated = int64(w.n), w.generated
	old := cap(r.fps)
	for i := range w.nodes {
		r.fps = append(r.fps, w.nodes[i].vfp)
	}
	s.used.Add(8 * int64(cap(r.fps)-old))
	s.pending[run] = r
	for run := s.counted; run <= s.best.Load(); run++ {
		r, ok := s.pending[run]
		if !ok {
			break
		}
		s.count(r)
		delete(s.pending, run)
		s.counted = run + 1
	}
	s.cond.Broadcast()
}

// work takes walks in index order until there are none left, a lower walk has found a
// violation, or the simulation is halted.
func (s *sim[S]) work(w *simWorker[S]) {
	for {
		run := s.next.Add(1) - 1
		if (s.runs > 0 && run >= s.runs) || !s.wait(run) {
			return
		}
		v, done := w.walk(run)
		if !done {
			continue
		}
		if v != nil {
			s.mu.Lock()
			if run < s.best.Load() {
				s.best.Store(run)
				s.viol = v
			}
			s.cond.Broadcast()
			s.mu.Unlock()
		}
		s.done(run, w)
	}
}

// simWorker holds one worker's buffers, reused from walk to walk: once they have grown, a
// walk allocates nothing unless it finds a violation.
//
// A walk keeps its last two states, and of the others only what a trace needs to be rebuilt
// by replay: each distinct state it visited once (a node: its fingerprint, the action and
// the state before its first visit), and, when liveness is checked, each position's node,
// action and successor index. A walk that checks safety only thus holds memory in
// proportion to the distinct states it visits, not to its depth.
type simWorker[S any] struct {
	s   *sim[S]
	rng splitmix

	succ []S // successors of the walk's last state
	acts []uint64
	// Scratch for a state's steps with the cut ones, when fairness or deadlock needs them;
	// cutAt is the position they were computed for (-1: none).
	xsucc      []S
	xacts, cut []uint64
	by         []int
	cutAt      int32

	// The walk: n positions so far, the state at the last in st[ci] and the one before it
	// in st[1-ci]; init is the index of its initial state in the model's.
	st   [2]S
	ci   int
	n    int32
	init int
	// Its distinct states, in the order first visited, and seen: fingerprint -> node;
	// curID is the node at the last position.
	nodes  []simNode
	seen   walkSet
	curID  int32 // the node at the last position
	prevID int32 // the node at the one before
	// Per position, when liveness is checked: its node, the action into it and that
	// successor's index among the previous state's (for replay); and the state at every
	// simMark-th position, from which fillFair replays (into rs).
	ids   []int32
	codes []uint64
	picks []int32
	marks []S
	rs    [2]S

	tried walkSet      // BiasDelay: action (keyed by mix64 of its code) -> index in dent
	kinds []int        // BiasKinds: the kinds enabled
	dent  []delayEntry // BiasDelay: per action
	ready []int32      // BiasDelay: per successor, when it is due
	top   []byte       // encoding of the walk's last state
	enc   []byte       // scratch
	enc2  []byte

	lv []liveTrack // per liveness property

	// The fair actions enabled or cut in a node's state (fillFair) are fairBuf[lo:hi] of
	// its fairLo, fairHi.
	fairBuf []uint64
	union   []enabledCode

	generated int64
	held      int64 // bytes of the buffers counted in sim.used
}

// simNode is a distinct state of a walk: the fingerprints of its whole encoding and of its
// view (the same without a Projected model), the action into its first visit and the node
// visited just before (-1 for the initial state), its first and latest positions, and the
// range of its fair actions in fairBuf (fairLo < 0 until computed). A walk tells states
// apart by their whole encoding, so that a trace rebuilt from its nodes is a behaviour of
// the model even where auxiliary variables (a view) change what a step does; its
// statistics count views, as Check does.
type simNode struct {
	fp, vfp        uint64
	code           uint64
	parent         int32
	first, last    int32
	fairLo, fairHi int32
}

// liveTrack follows one liveness property along the walk: counts of the positions 0..p
// where P (for LeadsTo) and Q (State for the other kinds) hold, and for LeadsTo whether after
// position p a P-state still waits for a Q-state.
type liveTrack struct {
	p, q []int32
	pend []bool
}

type enabledCode struct {
	code  uint64
	count int32
}

func newSimWorker[S any](s *sim[S]) *simWorker[S] {
	return &simWorker[S]{s: s, lv: make([]liveTrack, len(s.live))}
}

func (w *simWorker[S]) reset() {
	w.n, w.nodes, w.ids, w.codes, w.picks, w.marks = 0, w.nodes[:0], w.ids[:0], w.codes[:0], w.picks[:0], w.marks[:0]
	w.fairBuf = w.fairBuf[:0]
	for i := range w.lv {
		lt := &w.lv[i]
		lt.p, lt.q, lt.pend = lt.p[:0], lt.q[:0], lt.pend[:0]
	}
	w.seen.reset()
	w.tried.reset()
	w.dent = w.dent[:0]
	w.generated = 0
	w.cutAt = -1
}

// cur is the walk's last state.
func (w *simWorker[S]) cur() *S { return &w.st[w.ci] }

// walk takes walk run (relative to FirstRun). It returns the violation found, if any, and
// whether the walk reached its end (false: a stop, the time or memory budget or a violation
// in a lower walk cut it short).
func (w *simWorker[S]) walk(run int64) (*simViolation, bool) {
	s := w.s
	w.rng = walkRNG(s.opts.Seed, s.opts.FirstRun+run)
	w.reset()
	w.init = w.rng.intn(len(s.inits))
	if _, ok := w.push(&s.inits[w.init], 0, -1); !ok {
		return nil, false
	}
	if v := w.checkState(); v != nil {
		return v, true
	}
	for {
		i := int(w.n) - 1
		if s.halt.Load() != haltNone || s.best.Load() < run {
			return nil, false
		}
		before := cap(w.succ)
		w.succ, w.acts = s.m.Next(w.cur(), w.succ[:0], w.acts[:0])
		if c := cap(w.succ); c != before {
			w.account((s.width + 8) * int64(c-before))
		}
		w.generated += int64(len(w.succ))
		if len(w.succ) == 0 && s.opts.Deadlock && !w.anyCut() {
			return w.safetyViolation(-1, false, 0), true
		}
		if v := w.stutter(i); v != nil {
			return v, true
		}
		if len(w.succ) == 0 || i+1 >= s.depth {
			return nil, true
		}
		k := w.choose()
		a := w.acts[k]
		prev, ok := w.push(&w.succ[k], a, k)
		if !ok {
			return nil, false
		}
		if v := w.checkState(); v != nil {
			return v, true
		}
		for _, pi := range s.act {
			if !s.props[pi].Step(&w.st[1-w.ci], a, w.cur()) {
				return w.safetyViolation(pi, true, a), true
			}
		}
		if prev >= 0 && len(s.live) > 0 {
			if v := w.cycle(int(prev), i, a); v != nil {
				return v, true
			}
		}
	}
}

// choose picks the next step among the successors by the simulation's bias.
func (w *simWorker[S]) choose() int {
	s := w.s
	switch s.opts.Bias {
	case BiasKinds:
		w.kinds = w.kinds[:0]
		for _, a := range w.acts {
			k := s.m.ActionKind(a)
			x := 0
			for x < len(w.kinds) && w.kinds[x] != k {
				x++
			}
			if x == len(w.kinds) {
				w.kinds = append(w.kinds, k)
			}
		}
		k := w.kinds[w.rng.intn(len(w.kinds))]
		n := 0
		for _, a := range w.acts {
			if s.m.ActionKind(a) == k {
				n++
			}
		}
		r := w.rng.intn(n)
		for x, a := range w.acts {
			if s.m.ActionKind(a) == k {
				if r == 0 {
					return x
				}
				r--
			}
		}
	case BiasDelay:
		i := w.n - 1
		w.ready = w.ready[:0]
		due, earliest := 0, int32(math.MaxInt32)
		for _, a := range w.acts {
			key := mix64(a)
			x, ok := w.tried.get(key)
			if !ok {
				x = int32(len(w.dent))
				w.tried.put(key, x)
				w.dent = append(w.dent, delayEntry{seen: -2})
			}
			e := &w.dent[x]
			if e.seen < i-1 { // newly enabled
				e.ready = i + w.delay()
			}
			e.seen = i
			w.ready = append(w.ready, e.ready)
			if e.ready <= i {
				due++
			}
			earliest = min(earliest, e.ready)
		}
		lim := i
		if due == 0 {
			lim = earliest
			for _, r := range w.ready {
				if r == earliest {
					due++
				}
			}
		}
		r := w.rng.intn(due)
		for x, rd := range w.ready {
			if rd <= lim {
				if r == 0 {
					return x
				}
				r--
			}
		}
	}
	return w.rng.intn(len(w.succ))
}

type delayEntry struct {
	ready, seen int32 // when the action is due; the last position where it was enabled
}

// delay draws a log-uniform delay in [0, depth).
func (w *simWorker[S]) delay() int32 {
	u := float64(w.rng.next()>>11) / (1 << 53)
	return int32(math.Exp(u*math.Log(float64(w.s.depth)))) - 1
}

// account adds n bytes the worker's buffers grew by to what the simulation holds.
func (w *simWorker[S]) account(n int64) {
	w.held += n
	w.s.used.Add(n)
}

// room reports whether the memory budget has room for need more bytes; when it has not, it
// halts the simulation (a budget of 0 has room for anything).
func (w *simWorker[S]) room(need int64) bool {
	s := w.s
	if s.opts.MemoryBytes <= 0 || s.used.Load()+need <= s.opts.MemoryBytes {
		return true
	}
	s.setHalt(haltMemory)
	return false
}

// grow returns x with room for n more elements of width bytes (growCap's rule), or ok false
// when the memory budget has no room for the new array and the old one, live while it is
// copied.
func grow[T any, S any](w *simWorker[S], x []T, n int, width int64) ([]T, bool) {
	if len(x)+n <= cap(x) {
		return x, true
	}
	c := growCap(cap(x), len(x)+n, false)
	if !w.room(width * int64(c)) {
		return x, false
	}
	w.account(width * int64(c-cap(x)))
	y := make([]T, len(x), c)
	copy(y, x)
	return y, true
}

// push makes st, reached by action a (successor pick of the last state; -1 for the initial
// state), the walk's next position and returns the latest earlier position that held the
// same state, or -1; ok is false when the memory budget has no room for it.
func (w *simWorker[S]) push(st *S, a uint64, pick int) (prev int32, ok bool) {
	s := w.s
	p := w.n
	w.top = s.m.Encode(st, w.top[:0])
	fp := fingerprint(w.top)
	id, known := w.seen.get(fp)
	if !known {
		if b := w.seen.growBytes(); b > 0 {
			if !w.room(b) {
				return -1, false
			}
			w.account(b - w.seen.bytes())
		}
		if w.nodes, ok = grow(w, w.nodes, 1, 48); !ok {
			return -1, false
		}
	}
	if len(s.live) > 0 {
		if w.ids, ok = grow(w, w.ids, 1, 4); ok {
			w.codes, ok = grow(w, w.codes, 1, 8)
		}
		if ok {
			w.picks, ok = grow(w, w.picks, 1, 4)
		}
		if ok && p%simMark == 0 {
			w.marks, ok = grow(w, w.marks, 1, s.width)
		}
		for j := 0; ok && j < len(w.lv); j++ {
			lt := &w.lv[j]
			if lt.p, ok = grow(w, lt.p, 1, 4); ok {
				if lt.q, ok = grow(w, lt.q, 1, 4); ok {
					lt.pend, ok = grow(w, lt.pend, 1, 1)
				}
			}
		}
		if !ok {
			return -1, false
		}
	}
	prev = -1
	if known {
		prev = w.nodes[id].last
		w.nodes[id].last = p
	} else {
		id = int32(len(w.nodes))
		w.nodes = append(w.nodes, simNode{fp: fp, vfp: fpView(s.view, w.top), code: a, parent: -1, first: p, last: p, fairLo: -1})
		if p > 0 {
			w.nodes[id].parent = w.curID
		}
		w.seen.put(fp, id)
	}
	w.prevID, w.curID = w.curID, id
	w.ci ^= 1
	w.st[w.ci] = *st
	w.n++
	if len(s.live) == 0 {
		return prev, true
	}
	w.ids, w.codes, w.picks = append(w.ids, id), append(w.codes, a), append(w.picks, int32(pick))
	cur := w.cur()
	if p%simMark == 0 {
		w.marks = append(w.marks, *cur)
	}
	for j, pi := range s.live {
		prop := &s.props[pi]
		lt := &w.lv[j]
		var pc, qc int32
		pend := false
		if p > 0 {
			pc, qc, pend = lt.p[p-1], lt.q[p-1], lt.pend[p-1]
		}
		if prop.Kind == LeadsTo {
			isQ := prop.Q(cur)
			isP := !isQ && prop.P(cur) // a loop through a Q-state violates nothing
			if isQ {
				qc++
			}
			if isP {
				pc++
			}
			pend = !isQ && (isP || pend)
		} else if prop.State(cur) {
			qc++
		}
		lt.p, lt.q, lt.pend = append(lt.p, pc), append(lt.q, qc), append(lt.pend, pend)
	}
	return prev, true
}

// checkState checks the invariants on the walk's last state.
func (w *simWorker[S]) checkState() *simViolation {
	s := w.s
	for _, pi := range s.inv {
		if !s.props[pi].State(w.cur()) {
			return w.safetyViolation(pi, false, 0)
		}
	}
	return nil
}

// nextCut computes the steps of the walk's last state with the cut ones into the scratch
// buffers (without cuts when the model has no bounds that matter), once per position.
func (w *simWorker[S]) nextCut() {
	s := w.s
	if w.cutAt == w.n {
		return
	}
	w.cutAt = w.n
	w.cut, w.by = w.cut[:0], w.by[:0]
	before := cap(w.xsucc)
	if s.bnd != nil {
		w.xsucc, w.xacts, w.cut, w.by = s.bnd.NextCut(w.cur(), w.xsucc[:0], w.xacts[:0], w.cut, w.by)
	} else {
		w.xsucc, w.xacts = s.m.Next(w.cur(), w.xsucc[:0], w.xacts[:0])
	}
	if c := cap(w.xsucc); c != before {
		w.account((s.width + 8) * int64(c-before))
	}
}

// anyCut reports whether a model bound cut a step of the walk's last state.
func (w *simWorker[S]) anyCut() bool {
	if w.s.bnd == nil {
		return false
	}
	w.nextCut()
	return len(w.cut) > 0
}

// simMark is how often a liveness walk keeps a state: every simMark positions, so that the
// fair actions of the states of a lasso can be computed by replaying at most simMark steps
// more than the lasso's.
const simMark = 64

// fillFair computes the fair actions of the nodes at positions j..i that have none yet
// (fairLo < 0): those with a successor other than the state itself (a step to the same
// state is stuttering), each once, and the cut ones (enabled without the bound). It
// replays the walk from the last state kept at or before j. It reports false when the
// memory budget has no room for them.
func (w *simWorker[S]) fillFair(j, i int) bool {
	s := w.s
	missing := false
	for k := j; k <= i && !missing; k++ {
		missing = w.nodes[w.ids[k]].fairLo < 0
	}
	if !missing {
		return true
	}
	k := j / simMark * simMark
	st := &w.rs[0]
	*st = w.marks[k/simMark]
	w.cutAt = -1 // the scratch buffers hold the replay's steps
	for ; ; k++ {
		id := w.ids[k]
		nd := &w.nodes[id]
		compute := k >= j && nd.fairLo < 0
		if !compute && k == i {
			return true
		}
		if compute {
			w.cut, w.by = w.cut[:0], w.by[:0]
			if s.bnd != nil {
				w.xsucc, w.xacts, w.cut, w.by = s.bnd.NextCut(st, w.xsucc[:0], w.xacts[:0], w.cut, w.by)
			} else {
				w.xsucc, w.xacts = s.m.Next(st, w.xsucc[:0], w.xacts[:0])
			}
			w.enc2 = s.m.Encode(st, w.enc2[:0])
			if fingerprint(w.enc2) != nd.fp {
				panic("checker: simulate: replaying a walk, position " + itoa(k) + " holds another state than the walk's (are the model's successors deterministic?)")
			}
			var ok bool
			if w.fairBuf, ok = grow(w, w.fairBuf, len(w.xacts)+len(w.cut), 8); !ok {
				return false
			}
			lo := len(w.fairBuf)
			for x := range w.xsucc {
				a := w.xacts[x]
				if s.fairness(a) == Unfair || containsCode(w.fairBuf[lo:], a) {
					continue
				}
				w.enc = s.m.Encode(&w.xsucc[x], w.enc[:0])
				if string(w.enc) != string(w.enc2) {
					w.fairBuf = append(w.fairBuf, a)
				}
			}
			for _, a := range w.cut {
				if s.fairness(a) != Unfair && !containsCode(w.fairBuf[lo:], a) {
					w.fairBuf = append(w.fairBuf, a)
				}
			}
			nd.fairLo, nd.fairHi = int32(lo), int32(len(w.fairBuf))
		}
		if k == i {
			return true
		}
		if !compute || s.bnd != nil {
			// The walk's picks index Next's successors (NextCut's may come in another order).
			w.xsucc, w.xacts = s.m.Next(st, w.xsucc[:0], w.xacts[:0])
		}
		x := int(w.picks[k+1])
		if x >= len(w.xsucc) || w.xacts[x] != w.codes[k+1] {
			panic("checker: simulate: replaying a walk, position " + itoa(k+1) + " has no successor " + itoa(x) +
				" by " + s.m.ActionName(w.codes[k+1]) + " (are the model's successors deterministic?)")
		}
		w.rs[1] = w.xsucc[x]
		w.rs[0], w.rs[1] = w.rs[1], w.rs[0]
	}
}

// fairAt is the fair actions enabled at position k (fairInfo of its node).
func (w *simWorker[S]) fairAt(k int) []uint64 {
	nd := &w.nodes[w.ids[k]]
	return w.fairBuf[nd.fairLo:nd.fairHi]
}

// fair reports whether the loop through positions j..i (closed by action back to the state
// at j, or stuttering at j == i when !closed) satisfies fairness, by fairLoop's rules: a
// weakly fair action enabled (or cut) at every position is taken on the loop, a strongly
// fair one enabled (or cut) at some position is taken on it.
func (w *simWorker[S]) fair(j, i int, back uint64, closed bool) bool {
	s := w.s
	if !w.fillFair(j, i) {
		return false // the memory budget halted the simulation
	}
	w.union = w.union[:0]
	for k := j; k <= i; k++ {
		for _, a := range w.fairAt(k) {
			x := 0
			for x < len(w.union) && w.union[x].code != a {
				x++
			}
			if x == len(w.union) {
				w.union = append(w.union, enabledCode{code: a})
			}
			w.union[x].count++
		}
	}
	n := int32(i - j + 1)
	for _, e := range w.union {
		if s.fairness(e.code) != Strong && e.count != n {
			continue
		}
		if !closed || !w.taken(e.code, j, i, back) {
			return false
		}
	}
	return true
}

// taken reports whether action a is taken, other than as a stuttering step, on the loop
// j..i closed by back.
func (w *simWorker[S]) taken(a uint64, j, i int, back uint64) bool {
	for k := j + 1; k <= i; k++ {
		if w.codes[k] == a && w.ids[k-1] != w.ids[k] {
			return true
		}
	}
	return a == back && w.ids[i] != w.ids[j]
}

// stutter checks, at the walk's last position i, whether stuttering there forever violates
// a liveness property and is fair (no fair step enabled nor cut), and reports the lasso.
func (w *simWorker[S]) stutter(i int) *simViolation {
	s := w.s
	for li, pi := range s.live {
		lt := &w.lv[li]
		var bad bool
		switch s.props[pi].Kind {
		case Eventually:
			bad = lt.q[i] == 0
		case AlwaysEventually:
			bad = i == 0 && lt.q[0] == 0 || i > 0 && lt.q[i] == lt.q[i-1]
		default:
			bad = lt.pend[i]
		}
		if !bad {
			continue
		}
		// Quick test on the successors already computed: a fair step to another state.
		for x := range w.succ {
			if s.fairness(w.acts[x]) == Unfair {
				continue
			}
			w.enc2 = s.m.Encode(&w.succ[x], w.enc2[:0])
			if string(w.enc2) != string(w.top) {
				return nil
			}
		}
		if !w.fair(i, i, 0, false) {
			return nil
		}
		return w.lassoViolation(li, i, i, 0, false)
	}
	return nil
}

// cycle checks the loops the walk closed by stepping with action back from position i to
// the state last seen at position prev: the shortest, from prev, and the longest, from the
// state's first position.
func (w *simWorker[S]) cycle(prev, i int, back uint64) *simViolation {
	s := w.s
	cands := [2]int{prev, int(w.nodes[w.ids[prev]].first)}
	for li, pi := range s.live {
		kind := s.props[pi].Kind
		lt := &w.lv[li]
		for c, j := range cands {
			if c == 1 && j == cands[0] {
				break
			}
			q, pc, pend := lt.q[i], lt.p[i], false
			if j > 0 {
				q, pc, pend = q-lt.q[j-1], pc-lt.p[j-1], lt.pend[j-1]
			}
			var bad bool
			switch kind {
			case Eventually:
				bad = lt.q[i] == 0
			case AlwaysEventually:
				bad = q == 0
			default:
				bad = q == 0 && (pc > 0 || pend)
			}
			if !bad || !w.fair(j, i, back, true) {
				continue
			}
			if v := w.lassoViolation(li, j, i, back, true); v != nil {
				return v
			}
		}
	}
	return nil
}

// prefix returns the positions of a loop-free walk to the state at position p: each state
// once, ending at p's first position. Each position's state is reached from the one before
// by the action into that position. (Liveness walks: it reads the positions' nodes.)
func (w *simWorker[S]) prefix(p int) []int {
	var rev []int
	pos := int(w.nodes[w.ids[p]].first)
	rev = append(rev, pos)
	for pos > 0 {
		pos = int(w.nodes[w.ids[pos-1]].first)
		rev = append(rev, pos)
	}
	out := make([]int, len(rev))
	for k := range rev {
		out[k] = rev[len(rev)-1-k]
	}
	return out
}

// replay rebuilds the states at positions 0..upto of the walk from its initial state and
// the successor taken at each position (liveness walks).
func (w *simWorker[S]) replay(upto int) []S {
	s := w.s
	states := make([]S, upto+1)
	states[0] = s.inits[w.init]
	var succ []S
	var acts []uint64
	for k := 1; k <= upto; k++ {
		succ, acts = s.m.Next(&states[k-1], succ[:0], acts[:0])
		x := int(w.picks[k])
		if x >= len(succ) || acts[x] != w.codes[k] {
			panic("checker: simulate: replaying a walk, position " + itoa(k) + " has no successor " + itoa(x) +
				" by " + s.m.ActionName(w.codes[k]) + " (are the model's successors deterministic?)")
		}
		states[k] = succ[x]
	}
	return states
}

// chain rebuilds the loop-free walk to node id: from the initial state, each node on the
// way is the successor of the one before by the action into its first visit, with its
// fingerprint; tail, when set, is one more step, by action a to a state with fingerprint fp.
func (w *simWorker[S]) chain(id int32, tail bool, a, fp uint64) ([]S, []uint64) {
	s := w.s
	var path []int32
	for n := id; n >= 0; n = w.nodes[n].parent {
		path = append(path, n)
	}
	states := make([]S, 0, len(path)+1)
	acts := make([]uint64, 0, len(path))
	states = append(states, s.inits[w.init])
	var succ []S
	var codes []uint64
	var enc []byte
	step := func(a, fp uint64) {
		last := &states[len(states)-1]
		succ, codes = s.m.Next(last, succ[:0], codes[:0])
		for x := range succ {
			if codes[x] == a {
				enc = s.m.Encode(&succ[x], enc[:0])
				if fingerprint(enc) == fp {
					states, acts = append(states, succ[x]), append(acts, a)
					return
				}
			}
		}
		panic("checker: simulate: rebuilding a walk, state " + itoa(len(states)) + " has no successor by " +
			s.m.ActionName(a) + " to the state visited (are the model's successors deterministic?)")
	}
	for k := len(path) - 2; k >= 0; k-- {
		nd := &w.nodes[path[k]]
		step(nd.code, nd.fp)
	}
	if tail {
		step(a, fp)
	}
	return states, acts
}

// pick returns copies of the states at the given positions and the actions into them.
func (w *simWorker[S]) pick(all []S, pos []int) ([]S, []uint64) {
	states := make([]S, len(pos))
	acts := make([]uint64, 0, len(pos))
	for k, p := range pos {
		states[k] = all[p]
		if k > 0 {
			acts = append(acts, w.codes[p])
		}
	}
	return states, acts
}

func span(lo, hi int) []int {
	out := make([]int, 0, hi-lo+1)
	for p := lo; p <= hi; p++ {
		out = append(out, p)
	}
	return out
}

// safetyViolation reports property pi (-1: deadlock) violated at the walk's last position
// (by the step into it, action a, when step is set), with the walk to it made loop-free.
func (w *simWorker[S]) safetyViolation(pi int, step bool, a uint64) *simViolation {
	var states []S
	var acts []uint64
	if step {
		states, acts = w.chain(w.prevID, true, a, w.nodes[w.curID].fp)
	} else {
		states, acts = w.chain(w.curID, false, 0, 0)
	}
	prop := "Deadlock"
	if pi >= 0 {
		prop = w.s.props[pi].Name
	}
	t := makeTrace(w.s.m, w.s.ev, prop, states, acts)
	n := len(states) - 1
	switch {
	case pi < 0:
		t.Witness = deadlockWitness(n)
	case step:
		t.Witness = stepWitness(w.s.m, &w.s.props[pi], &states[n-1], acts[n-1], &states[n], n)
	default:
		t.Witness = stateWitness(&w.s.props[pi], &states[n], n)
	}
	return &simViolation{prop: prop, trace: t}
}

// lassoViolation reports liveness property li violated on the lasso whose loop is the walk's
// positions j..i, closed by action back to j's state (or stuttering at j == i when !closed).
// The prefix is made loop-free unless that loses the violation (a LeadsTo whose P-state lay on
// a loop cut out). It confirms the lasso with the replayer's rules, and returns nil when the
// back step does not reach j's state (a fingerprint collision in the walk's set).
func (w *simWorker[S]) lassoViolation(li, j, i int, back uint64, closed bool) *simViolation {
	s := w.s
	p := &s.props[s.live[li]]
	upto := i
	if closed {
		upto = i + 1 // the step into i+1 is the back step; i+1 holds the state reached
	}
	all := w.replay(upto)
	if closed {
		w.enc = s.m.Encode(&all[i+1], w.enc[:0])
		w.enc2 = s.m.Encode(&all[j], w.enc2[:0])
		if string(w.enc) != string(w.enc2) {
			return nil
		}
	}
	loopPos := w.prefix(j)
	pos := append(loopPos, span(j+1, i)...)
	states, acts := w.pick(all, pos)
	from := len(loopPos) - 1
	if !lassoViolates(p, states, from) {
		pos = span(0, i)
		states, acts = w.pick(all, pos)
		from = j
	}
	r := replayer[S]{m: s.m, nvars: len(s.m.Vars()), bnd: s.bnd}
	if !lassoViolates(p, states, from) || !r.fairLoop(states, acts, from, back, closed, s.kindFairness) {
		panic("checker: simulate: a lasso that the walk judged a fair counterexample to " + p.Name +
			" is not one by the replayer's rules")
	}
	t := makeTrace(s.m, s.ev, p.Name, states, acts)
	wf := witnessFair[S]{m: s.m, bnd: s.bnd, fairness: s.kindFairness}
	t.Witness = lassoWitness(wf, p, states, acts, from, back, closed)
	if closed {
		t.Loop = from
		t.BackAction = s.m.ActionName(back)
		t.BackKind = kindName(s.m.ActionKinds(), s.m.ActionKind(back))
		if s.ev != nil {
			last := &states[len(states)-1]
			t.BackEvents = string(s.ev.AppendEvents(last, back, &states[from], nil))
		}
	} else {
		t.Stutter = true
	}
	return &simViolation{prop: p.Name, trace: t}
}

// walkSet maps fingerprints to the walk's nodes (or actions to their entries): open
// addressing with linear probing, emptied for the next walk by a generation stamp rather
// than by clearing.
type walkSet struct {
	keys []uint64
	vals []int32
	gen  []uint32
	cur  uint32
	n    int
}

// bytes is what the table's arrays hold.
func (t *walkSet) bytes() int64 { return 16 * int64(len(t.keys)) }

// growBytes is what the arrays the next put of a new key grows the table to would hold, or
// 0 when it does not grow.
func (t *walkSet) growBytes() int64 {
	if 2*(t.n+1) > len(t.keys) {
		return 16 * int64(max(2*len(t.keys), 256))
	}
	return 0
}

func (t *walkSet) reset() {
	t.cur++
	if t.cur == 0 { // wrapped: stale stamps could match
		clear(t.gen)
		t.cur = 1
	}
	t.n = 0
}

// put maps fp to pos and returns the position fp was mapped to before, or -1.
func (t *walkSet) put(fp uint64, pos int32) int32 {
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	mask := uint64(len(t.keys) - 1)
	for i := fp & mask; ; i = (i + 1) & mask {
		if t.gen[i] != t.cur {
			t.keys[i], t.vals[i], t.gen[i] = fp, pos, t.cur
			t.n++
			return -1
		}
		if t.keys[i] == fp {
			prev := t.vals[i]
			t.vals[i] = pos
			return prev
		}
	}
}

// get returns the value of key.
func (t *walkSet) get(key uint64) (int32, bool) {
	if len(t.keys) == 0 {
		return 0, false
	}
	mask := uint64(len(t.keys) - 1)
	for i := key & mask; ; i = (i + 1) & mask {
		if t.gen[i] != t.cur {
			return 0, false
		}
		if t.keys[i] == key {
			return t.vals[i], true
		}
	}
}

func (t *walkSet) grow() {
	n := max(2*len(t.keys), 256)
	old := *t
	t.keys, t.vals, t.gen = make([]uint64, n), make([]int32, n), make([]uint32, n)
	if t.cur == 0 {
		t.cur = 1
	}
	t.n = 0
	mask := uint64(n - 1)
	for k := range old.keys {
		if old.gen[k] != old.cur || old.cur == 0 {
			continue
		}
		for i := old.keys[k] & mask; ; i = (i + 1) & mask {
			if t.gen[i] != t.cur {
				t.keys[i], t.vals[i], t.gen[i] = old.keys[k], old.vals[k], t.cur
				t.n++
				break
			}
		}
	}
}

// splitmix is SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit generator whose state
// advances by a constant and whose output is the state mixed.
type splitmix uint64

func (r *splitmix) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	return mix64(uint64(*r))
}

// intn returns a uniform integer in [0, n), n > 0 (Lemire's multiply-and-reject).
func (r *splitmix) intn(n int) int {
	hi, lo := bits.Mul64(r.next(), uint64(n))
	if lo < uint64(n) {
		thresh := -uint64(n) % uint64(n)
		for lo < thresh {
			hi, lo = bits.Mul64(r.next(), uint64(n))
		}
	}
	return int(hi)
}

// mix64 is SplitMix64's output function, a bijection of 64-bit words.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// walkRNG is the generator of walk run of a simulation with seed: for one seed, distinct
// walks start from distinct, scattered states.
func walkRNG(seed uint64, run int64) splitmix {
	return splitmix(mix64(mix64(seed) + uint64(run)*0x9e3779b97f4a7c15))
}

// HyperLogLog (Flajolet, Fusy, Gandouet and Meunier, 2007) over fingerprints: 2^hllBits
// registers, each the largest rank (leading zeros + 1 of the bits below the index) seen.
const hllBits = 14

func hllAdd(reg []atomic.Uint32, fp uint64) {
	r := &reg[fp>>(64-hllBits)]
	rank := uint32(bits.LeadingZeros64(fp<<hllBits|1<<(hllBits-1))) + 1
	for {
		old := r.Load()
		if rank <= old || r.CompareAndSwap(old, rank) {
			return
		}
	}
}

// hllEstimate is the HyperLogLog estimate, with linear counting for small counts.
func hllEstimate(reg []atomic.Uint32) int64 {
	m := float64(len(reg))
	sum, zeros := 0.0, 0
	for i := range reg {
		r := reg[i].Load()
		sum += math.Ldexp(1, -int(r))
		if r == 0 {
			zeros++
		}
	}
	e := 0.7213 / (1 + 1.079/m) * m * m / sum
	if e <= 2.5*m && zeros > 0 {
		e = m * math.Log(m/float64(zeros))
	}
	return int64(e + 0.5)
}

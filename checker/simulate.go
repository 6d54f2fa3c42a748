package checker

import (
	"math"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
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
// the lowest walk index that has one (its first, by step), so the verdict, the walk and
// the trace do not depend on the number of workers.

// SimOptions control a simulation. The zero value works: 1000 walks of at most 100 states
// from seed 0 on all cores.
type SimOptions struct {
	Seed     uint64        // walk k draws from a generator seeded from (Seed, k) alone
	Runs     int64         // walks to take; 0: 1000; < 0: no limit (until Time or Stop)
	FirstRun int64         // index of the first walk: FirstRun k with Runs 1 takes walk k alone
	Depth    int           // states per walk, the initial one included; 0: 100
	Workers  int           // 0: runtime.NumCPU()
	Time     time.Duration // wall-clock budget; 0: none. Reaching it ends the simulation (ok)
	Deadlock bool          // report a state without successors (nor cut steps)
	Bias     Bias          // how a walk chooses among successors; "": BiasUniform
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

// SimStats are a simulation's statistics. Walks cut short by a stop, a time budget or a
// violation in a lower walk are not counted.
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
)

// sim holds one simulation. Workers share only the atomics, the sketch and, under mu, the
// violation of the lowest walk.
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

	next      atomic.Int64 // next walk index, relative to FirstRun
	best      atomic.Int64 // lowest walk index (relative) with a violation, or MaxInt64
	halt      atomic.Int32
	walks     atomic.Int64
	states    atomic.Int64
	generated atomic.Int64
	maxDepth  atomic.Int64
	hll       []atomic.Uint32 // HyperLogLog registers of the visited fingerprints

	mu   sync.Mutex
	viol *simViolation // of walk best
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
	s.best.Store(math.MaxInt64)
	s.hll = make([]atomic.Uint32, 1<<hllBits)
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
			s.halt.CompareAndSwap(haltNone, haltTime)
			deadline = nil
		case <-stop:
			s.halt.CompareAndSwap(haltNone, haltStop)
			stop = nil
		case <-tick:
			s.opts.Progress(s.stats(time.Since(start)))
		}
	}
	res := SimResult{Seed: s.opts.Seed, Stats: s.stats(time.Since(start))}
	switch {
	case s.viol != nil:
		res.Verdict, res.Property, res.Trace = Violated, s.viol.prop, s.viol.trace
		res.Run = s.opts.FirstRun + s.best.Load()
	case s.halt.Load() == haltStop:
		res.Verdict, res.Reason = Incomplete, "interrupted"
	case s.halt.Load() == haltTime:
		res.Verdict, res.Reason = OK, "time budget reached"
	default:
		res.Verdict = OK
	}
	return res
}

func (s *sim[S]) stats(elapsed time.Duration) SimStats {
	return SimStats{Walks: s.walks.Load(), States: s.states.Load(), Generated: s.generated.Load(),
		Distinct: hllEstimate(s.hll), MaxDepth: int(s.maxDepth.Load()), Elapsed: elapsed, Workers: s.workers}
}

// work takes walks in index order until there are none left, a lower walk has found a
// violation, or the simulation is halted.
func (s *sim[S]) work(w *simWorker[S]) {
	for {
		run := s.next.Add(1) - 1
		if (s.runs > 0 && run >= s.runs) || run > s.best.Load() || s.halt.Load() != haltNone {
			return
		}
		v, done := w.walk(run)
		if !done {
			continue
		}
		w.account()
		if v != nil {
			s.mu.Lock()
			if run < s.best.Load() {
				s.best.Store(run)
				s.viol = v
			}
			s.mu.Unlock()
		}
	}
}

// simWorker holds one worker's buffers, reused from walk to walk: once they have grown, a
// walk allocates nothing unless it finds a violation.
type simWorker[S any] struct {
	s   *sim[S]
	rng splitmix

	succ []S // successors of the walk's last state
	acts []uint64
	// Scratch for a state's steps with the cut ones, when fairness or deadlock needs them.
	xsucc      []S
	xacts, cut []uint64
	by         []int

	// The walk: path[p] is its p-th state, reached by codes[p] (codes[0] is unused); fps[p]
	// is its fingerprint and first[p] the first position holding the same state.
	path  []S
	codes []uint64
	fps   []uint64
	first []int32
	seen  walkSet      // fingerprint -> latest position
	tried walkSet      // BiasDelay: action (keyed by mix64 of its code) -> index in dent
	kinds []int        // BiasKinds: the kinds enabled
	dent  []delayEntry // BiasDelay: per action
	ready []int32      // BiasDelay: per successor, when it is due
	top   []byte       // encoding of path's last state
	enc   []byte       // scratch
	enc2  []byte

	lv []liveTrack // per liveness property

	// Per position, the fair actions enabled or cut there (fairInfo), in fairBuf[lo:hi];
	// lo < 0 until computed.
	fairLo, fairHi []int32
	fairBuf        []uint64
	union          []enabledCode

	generated int64
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
	w.path, w.codes, w.fps, w.first = w.path[:0], w.codes[:0], w.fps[:0], w.first[:0]
	w.fairLo, w.fairHi, w.fairBuf = w.fairLo[:0], w.fairHi[:0], w.fairBuf[:0]
	for i := range w.lv {
		lt := &w.lv[i]
		lt.p, lt.q, lt.pend = lt.p[:0], lt.q[:0], lt.pend[:0]
	}
	w.seen.reset()
	w.tried.reset()
	w.dent = w.dent[:0]
	w.generated = 0
}

// account adds a completed walk to the statistics.
func (w *simWorker[S]) account() {
	s := w.s
	s.walks.Add(1)
	s.states.Add(int64(len(w.path)))
	s.generated.Add(w.generated)
	for {
		d := s.maxDepth.Load()
		if int64(len(w.path)) <= d || s.maxDepth.CompareAndSwap(d, int64(len(w.path))) {
			break
		}
	}
	for _, fp := range w.fps {
		hllAdd(s.hll, fp)
	}
}

// walk takes walk run (relative to FirstRun). It returns the violation found, if any, and
// whether the walk reached its end (false: a stop, the time budget or a violation in a
// lower walk cut it short).
func (w *simWorker[S]) walk(run int64) (*simViolation, bool) {
	s := w.s
	w.rng = walkRNG(s.opts.Seed, s.opts.FirstRun+run)
	w.reset()
	w.push(s.inits[w.rng.intn(len(s.inits))], 0)
	if v := w.checkState(0); v != nil {
		return v, true
	}
	for {
		i := len(w.path) - 1
		if s.halt.Load() != haltNone || s.best.Load() < run {
			return nil, false
		}
		w.succ, w.acts = s.m.Next(&w.path[i], w.succ[:0], w.acts[:0])
		w.generated += int64(len(w.succ))
		if len(w.succ) == 0 && s.opts.Deadlock && !w.anyCut(i) {
			return w.safetyViolation(-1, i, false), true
		}
		if v := w.stutter(i); v != nil {
			return v, true
		}
		if len(w.succ) == 0 || i+1 >= s.depth {
			return nil, true
		}
		k := w.choose()
		a := w.acts[k]
		prev := w.push(w.succ[k], a)
		p := i + 1
		if v := w.checkState(p); v != nil {
			return v, true
		}
		for _, pi := range s.act {
			if !s.props[pi].Step(&w.path[i], a, &w.path[p]) {
				return w.safetyViolation(pi, p, true), true
			}
		}
		if prev >= 0 {
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
		i := int32(len(w.path) - 1)
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

// push appends state st, reached by action a, to the walk and returns the latest earlier
// position holding the same state, or -1.
func (w *simWorker[S]) push(st S, a uint64) int32 {
	s := w.s
	p := int32(len(w.path))
	w.path = append(w.path, st)
	w.codes = append(w.codes, a)
	w.top = s.m.Encode(&w.path[p], w.top[:0])
	fp := fpView(s.view, w.top)
	w.fps = append(w.fps, fp)
	prev := w.seen.put(fp, p)
	f := p
	if prev >= 0 {
		f = w.first[prev]
	}
	w.first = append(w.first, f)
	w.fairLo, w.fairHi = append(w.fairLo, -1), append(w.fairHi, -1)
	cur := &w.path[p]
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
	return prev
}

// checkState checks the invariants on the walk's state at p.
func (w *simWorker[S]) checkState(p int) *simViolation {
	s := w.s
	for _, pi := range s.inv {
		if !s.props[pi].State(&w.path[p]) {
			return w.safetyViolation(pi, p, false)
		}
	}
	return nil
}

// nextCut computes the steps of the state at position k with the cut ones into the scratch
// buffers (without cuts when the model has no bounds that matter).
func (w *simWorker[S]) nextCut(k int) {
	s := w.s
	w.cut, w.by = w.cut[:0], w.by[:0]
	if s.bnd != nil {
		w.xsucc, w.xacts, w.cut, w.by = s.bnd.NextCut(&w.path[k], w.xsucc[:0], w.xacts[:0], w.cut, w.by)
	} else {
		w.xsucc, w.xacts = s.m.Next(&w.path[k], w.xsucc[:0], w.xacts[:0])
	}
}

// anyCut reports whether a model bound cut a step of the state at position k.
func (w *simWorker[S]) anyCut(k int) bool {
	if w.s.bnd == nil {
		return false
	}
	w.nextCut(k)
	return len(w.cut) > 0
}

// fairInfo returns the fair actions enabled at position k, each once: those with a
// successor other than the state itself (a step to the same state is stuttering), and the
// cut ones (enabled without the bound).
func (w *simWorker[S]) fairInfo(k int) []uint64 {
	if w.fairLo[k] >= 0 {
		return w.fairBuf[w.fairLo[k]:w.fairHi[k]]
	}
	s := w.s
	lo := len(w.fairBuf)
	w.nextCut(k)
	w.enc2 = s.m.Encode(&w.path[k], w.enc2[:0])
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
	w.fairLo[k], w.fairHi[k] = int32(lo), int32(len(w.fairBuf))
	return w.fairBuf[lo:]
}

// fair reports whether the loop through positions j..i (closed by action back to the state
// at j, or stuttering at j == i when !closed) satisfies fairness, by fairLoop's rules: a
// weakly fair action enabled (or cut) at every position is taken on the loop, a strongly
// fair one enabled (or cut) at some position is taken on it.
func (w *simWorker[S]) fair(j, i int, back uint64, closed bool) bool {
	s := w.s
	w.union = w.union[:0]
	for k := j; k <= i; k++ {
		for _, a := range w.fairInfo(k) {
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
		if w.codes[k] == a && w.first[k-1] != w.first[k] {
			return true
		}
	}
	return a == back && w.first[i] != w.first[j]
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
	cands := [2]int{prev, int(w.first[prev])}
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
// by the action into that position.
func (w *simWorker[S]) prefix(p int) []int {
	var rev []int
	pos := int(w.first[p])
	rev = append(rev, pos)
	for pos > 0 {
		pos = int(w.first[pos-1])
		rev = append(rev, pos)
	}
	out := make([]int, len(rev))
	for k := range rev {
		out[k] = rev[len(rev)-1-k]
	}
	return out
}

// states returns copies of the states at the given positions and the actions into them.
func (w *simWorker[S]) states(pos []int) ([]S, []uint64) {
	states := make([]S, len(pos))
	acts := make([]uint64, 0, len(pos))
	for k, p := range pos {
		states[k] = w.path[p]
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

// safetyViolation reports property pi (-1: deadlock) violated at position p (by the step
// into p when step is set), with the walk to it made loop-free.
func (w *simWorker[S]) safetyViolation(pi int, p int, step bool) *simViolation {
	var pos []int
	if step {
		pos = append(w.prefix(p-1), p)
	} else {
		pos = w.prefix(p)
	}
	states, acts := w.states(pos)
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
	if closed {
		// The step into i+1 is the back step; i+1 holds the state reached.
		w.enc = s.m.Encode(&w.path[i+1], w.enc[:0])
		w.enc2 = s.m.Encode(&w.path[j], w.enc2[:0])
		if string(w.enc) != string(w.enc2) {
			return nil
		}
	}
	loopPos := w.prefix(j)
	pos := append(loopPos, span(j+1, i)...)
	states, acts := w.states(pos)
	from := len(loopPos) - 1
	if !lassoViolates(p, states, from) {
		pos = span(0, i)
		states, acts = w.states(pos)
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

// walkSet maps fingerprints to positions of the current walk: open addressing with linear
// probing, emptied for the next walk by a generation stamp rather than by clearing.
type walkSet struct {
	keys []uint64
	vals []int32
	gen  []uint32
	cur  uint32
	n    int
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

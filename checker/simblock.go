package checker

import "sync/atomic"

// SimBlocker is implemented by Bind's runnables: a block of walks whose results a swarm
// merges exactly (simulation across processes, package cluster).
type SimBlocker interface {
	// SimulateBlock takes walks opts.FirstRun .. opts.FirstRun+opts.Runs-1 as Simulate does,
	// and also returns the HyperLogLog registers of the states they visited (one byte each),
	// which SimDistinct merges.
	SimulateBlock(opts SimOptions) (SimResult, []byte)
}

func (b *bound[S]) SimulateBlock(opts SimOptions) (SimResult, []byte) {
	s, res, ok := newSim(b.m, b.props, opts)
	if !ok {
		return res, nil
	}
	res = s.run()
	regs := make([]byte, len(s.hll))
	for i := range s.hll {
		regs[i] = byte(s.hll[i].Load())
	}
	return res, regs
}

// MergeRegisters merges HyperLogLog registers from SimulateBlock into acc by maximum.
func MergeRegisters(acc, regs []byte) []byte {
	if acc == nil {
		acc = make([]byte, 1<<hllBits)
	}
	for i, r := range regs {
		if i < len(acc) && r > acc[i] {
			acc[i] = r
		}
	}
	return acc
}

// SimDistinct is the estimate of distinct states from merged registers: the one Simulate
// reports for the same walks in one process.
func SimDistinct(regs []byte) int64 {
	reg := make([]atomic.Uint32, 1<<hllBits)
	for i, r := range regs {
		if i < len(reg) {
			reg[i].Store(uint32(r))
		}
	}
	return hllEstimate(reg)
}

package checker

import "sync"

// Bind binds a model to its properties with the state type hidden.
func Bind[S any](m Model[S], props []Property[S]) Runnable {
	return &bound[S]{m: m, props: props}
}

type bound[S any] struct {
	m     Model[S]
	props []Property[S]
	mu    sync.Mutex
	parts int // made by NewPart (countPart)
}

func (b *bound[S]) Check(opts Options) Result { return Check(b.m, b.props, opts) }
func (b *bound[S]) Vars() []string            { return b.m.Vars() }
func (b *bound[S]) ActionKinds() []string     { return b.m.ActionKinds() }
func (b *bound[S]) Replay(t *Trace) (ReplayReport, error) {
	return replay(b.m, b.props, t)
}
func (b *bound[S]) Graph(max int, opts Options) (*Graph, error) {
	return graph(b.m, max, opts)
}
func (b *bound[S]) Simulate(opts SimOptions) SimResult { return Simulate(b.m, b.props, opts) }

func (b *bound[S]) Fairness(opts Options) ([]Fairness, bool) {
	kinds := b.m.ActionKinds()
	out := make([]Fairness, len(kinds))
	for k := range kinds {
		out[k] = Fairness(b.m.Fairness(k))
		if k < len(opts.FairnessOverride) && opts.FairnessOverride[k] >= 0 {
			out[k] = opts.FairnessOverride[k]
		}
	}
	live := false
	for _, p := range b.props {
		live = live || p.Kind.Liveness()
	}
	return out, live
}

package specs

import (
	"fmt"

	"kmc/checker"
)

// bind binds a family's model to its properties, its values rewritten by cfg.Canon when set.
func bind[S any](m checker.Model[S], props []checker.Property[S], cfg Config) (checker.Runnable, error) {
	for _, x := range cfg.Exprs {
		p, err := exprProperty(m, x)
		if err != nil {
			return nil, err
		}
		props = append(props, p)
	}
	if cfg.Canon != nil {
		m = canonModel[S]{Model: m, canon: cfg.Canon}
	}
	return checker.Bind(m, props), nil
}

// canonModel is a model whose values come out in canonical form. It is for Replay only:
// it hides the model's optional interfaces (symmetry, events).
type canonModel[S any] struct {
	checker.Model[S]
	canon func(dst, itf []byte) []byte
}

func (m canonModel[S]) AppendValue(s *S, v int, buf []byte) []byte {
	return m.canon(buf, m.Model.AppendValue(s, v, nil))
}

// ReplayRunnable builds the model of check c, as Runnable does, for replaying a trace
// whose values are in the canonical form canon writes (Config.Canon): its Replay compares
// the model's values in that form too.
func (s *Spec) ReplayRunnable(c *Check, canon func(dst, itf []byte) []byte) (checker.Runnable, error) {
	cfg := c.Config
	cfg.Canon = canon
	r, err := s.Family.Build(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: check %s: build model: %w", s.Path, c.Name, err)
	}
	return r, nil
}

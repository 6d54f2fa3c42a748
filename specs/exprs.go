package specs

import (
	"fmt"
	"strconv"
	"strings"

	"kmc/celprop"
	"kmc/checker"
)

// ExprProperty is an invariant written as an expression over the variables a model prints
// (its ITF view: the kafka model's log, hw, epochCache, leaderState, ...), in CEL (package
// celprop): a spec's [invariants] table (NAME = "EXPR") or kmc check --invariant 'EXPR'. It
// is compiled once per check against the model's variables and evaluated on every state
// the search reaches; the built-in properties do not go through it.
type ExprProperty struct {
	Name string // the spec's key, or "inv1", "inv2", ... for --invariant
	Src  string
	Pos  Pos // where it is written: the spec's line, or --invariant's position
	// Field names it in errors: "invariants.NAME" or "--invariant".
	Field string
}

// exprProperty compiles x against m's variables into an invariant. A state where the
// expression does not evaluate to a boolean (a missing key, a type error) violates it, the
// witness saying why.
func exprProperty[S any](m checker.Model[S], x ExprProperty) (checker.Property[S], error) {
	e, err := celprop.Compile(x.Src, m.Vars())
	if err != nil {
		return checker.Property[S]{}, x.errorf("%v", err)
	}
	value := func(s *S) func(int, []byte) []byte {
		return func(i int, buf []byte) []byte { return m.AppendValue(s, i, buf) }
	}
	return checker.Property[S]{
		Name: x.Name,
		Kind: checker.Invariant,
		State: func(s *S) bool {
			ok, err := e.Bool(value(s))
			return err == nil && ok
		},
		Explain: func(s *S) string {
			if _, err := e.Bool(value(s)); err != nil {
				return err.Error()
			}
			var vals []string
			for _, name := range e.Used() {
				for i, v := range m.Vars() {
					if v == name {
						vals = append(vals, name+" = "+string(m.AppendValue(s, i, nil)))
					}
				}
			}
			return strconv.Quote(x.Src) + " is false where " + strings.Join(vals, ", ")
		},
	}, nil
}

func (x ExprProperty) errorf(format string, args ...any) error {
	return ErrorList{{Pos: x.Pos, Key: x.Field, Problem: fmt.Sprintf(format, args...)}}
}

// AddInvariant adds an invariant written as an expression (kmc check --invariant) to every
// check of s, named inv1, inv2, ... in the order added, after compiling it against the
// model's variables: an error names --invariant, its position among the flags and the
// problem.
func (s *Spec) AddInvariant(src string) error {
	n := 1
	if len(s.Checks) > 0 {
		for _, x := range s.Checks[0].Config.Exprs {
			if strings.HasPrefix(x.Name, "inv") {
				n++
			}
		}
	}
	x := ExprProperty{Name: "inv" + strconv.Itoa(n), Src: src, Pos: Pos{File: "--invariant", Line: n, Col: 1}, Field: "--invariant"}
	if err := s.checkExpr(x); err != nil {
		return err
	}
	for i := range s.Checks {
		c := &s.Checks[i]
		c.Config.Exprs = append(append([]ExprProperty(nil), c.Config.Exprs...), x)
	}
	return nil
}

// checkExpr compiles x against the variables of s's first check's model.
func (s *Spec) checkExpr(x ExprProperty) error {
	if len(s.Checks) == 0 {
		return nil
	}
	cfg := s.Checks[0].Config
	cfg.Exprs = nil
	r, err := s.Family.Build(cfg)
	if err != nil {
		return nil // the check's own error is reported where it runs
	}
	if _, err := celprop.Compile(x.Src, r.Vars()); err != nil {
		return x.errorf("%v", err)
	}
	return nil
}

// CompileShows compiles trace expressions (kmc check --show) with compile against the
// variables of s's first check's model.
func CompileShows[T any](s *Spec, srcs []string, compile func(srcs, vars []string) (T, error)) (T, error) {
	var zero T
	if len(srcs) == 0 || len(s.Checks) == 0 {
		return zero, nil
	}
	r, err := s.Family.Build(s.Checks[0].Config)
	if err != nil {
		return compile(srcs, nil)
	}
	return compile(srcs, r.Vars())
}

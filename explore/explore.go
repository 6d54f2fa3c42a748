// Package explore is kmc explore: a local web server whose page steps through any of kmc's
// models one state at a time. It shows the current state as kmc's views do (the model's
// tables, its variables, what changed), the path so far, the enabled actions with the
// change each would make, why each other kind of action is not enabled (a named guard of
// the model, found by turning the guard off; a model bound that cut it; or its
// precondition), the check's properties in every state, the engine's search from the
// current state for a property's violation or a state where a predicate holds, and loaded
// counterexamples (ITF) with their sequence chart and lasso.
//
// It knows no model: everything comes through the model contract (checker.Stepper) and
// the spec's family (names, docs, guards), so every family kmc checks works alike. The
// page's files are embedded (web/), so it works offline and fetches nothing else.
//
// The server is stateless: a state is named by its path from an initial state, a list of
// successor indexes (Next's order, which the contract fixes), carried in the page's URL;
// so a link reproduces a state, and a server restarted with the same spec serves it again.
// See api.go for the HTTP API.
package explore

import (
	"fmt"
	"runtime"
	"sync"
	"time"

	"kmc/app"
	"kmc/checker"
	"kmc/specs"
)

// Limits on what a request may ask.
const (
	// MaxPathSteps is the longest path a request may name, in steps.
	MaxPathSteps = 10000
	// MaxPathBytes is the longest path parameter, in bytes.
	MaxPathBytes = 80000
	// MaxTraceBytes is the largest trace file a request may upload.
	MaxTraceBytes = 16 << 20
	// MaxPredicateBytes is the longest predicate a search may take.
	MaxPredicateBytes = 4096
)

// Options configure a Server. The zero value works.
type Options struct {
	// Token, when not "", must come with every request: the header X-Kmc-Token or the
	// query parameter token (kmc explore sets one for an address beyond loopback).
	Token string
	// Loopback, when true, refuses requests whose Host header is not a loopback name
	// (127.0.0.1, [::1], localhost), which a web page elsewhere could otherwise reach
	// through a DNS name rebound to this machine.
	Loopback bool
	// SearchStates and SearchTime bound each search (0: 200,000 distinct states, 30s);
	// SearchMemory is its memory budget (0: 2 GiB); SearchWorkers its workers (0: every
	// core).
	SearchStates  int64
	SearchTime    time.Duration
	SearchMemory  int64
	SearchWorkers int
	// Compile compiles the predicate of a "find a state" search; nil: ParsePredicate.
	Compile Compiler
}

// Server serves one check of one spec.
type Server struct {
	spec   *specs.Spec
	check  *specs.Check
	run    checker.Runnable
	st     checker.Stepper
	opts   Options
	guards []guardModel
	info   modelInfo
	// busy is held while a search runs: one at a time.
	busy sync.Mutex
}

// guardModel is the check's model with one named guard turned off.
type guardModel struct {
	name, doc, ref string
	st             checker.Stepper
}

// New builds the model of spec's check called check (its only check when check is "")
// and a model per named guard of the family with that guard turned off, for the reasons
// a step is refused. Refusals are app's errors (UnknownCheckError, NoCheckError,
// ModelError).
func New(spec *specs.Spec, check string, opts Options) (*Server, error) {
	c, err := app.PickCheck(spec, check)
	if err != nil {
		return nil, err
	}
	r, _, err := spec.Runnable(c)
	if err != nil {
		return nil, &app.ModelError{Model: spec.Model, Err: err}
	}
	if opts.SearchStates <= 0 {
		opts.SearchStates = 200000
	}
	if opts.SearchTime <= 0 {
		opts.SearchTime = 30 * time.Second
	}
	if opts.SearchMemory <= 0 {
		opts.SearchMemory = 2 << 30
	}
	if opts.SearchWorkers <= 0 {
		opts.SearchWorkers = min(runtime.NumCPU(), specs.MaxWorkers)
	}
	if opts.Compile == nil {
		opts.Compile = ParsePredicate
	}
	s := &Server{spec: spec, check: c, run: r, st: r.Stepper(), opts: opts}
	for _, g := range spec.Family.Guards {
		if c.Config.Mutate[g.Name] {
			continue // already off in this check
		}
		cfg := c.Config
		cfg.Mutate = map[string]bool{g.Name: true}
		for name := range c.Config.Mutate {
			cfg.Mutate[name] = true
		}
		gr, err := spec.Family.Build(cfg)
		if err != nil {
			continue // the guard has no code path in this configuration
		}
		s.guards = append(s.guards, guardModel{name: g.Name, doc: g.Doc, ref: g.Ref, st: gr.Stepper()})
	}
	s.info = s.modelInfo()
	return s, nil
}

// Spec and Check are what the server serves.
func (s *Server) Spec() *specs.Spec   { return s.spec }
func (s *Server) Check() *specs.Check { return s.check }

// modelInfo is what the page shows of the model and the check, once.
type modelInfo struct {
	Spec       string     `json:"spec"`
	Check      string     `json:"check"`
	Model      string     `json:"model"`
	Doc        string     `json:"doc"`
	Config     string     `json:"config"`
	Vars       []term     `json:"vars"`
	Kinds      []kindInfo `json:"kinds"`
	Properties []propInfo `json:"properties"`
	Guards     []term     `json:"guards"`
	Bounds     []string   `json:"bounds"`
	Views      []string   `json:"views"`
	Actors     []string   `json:"actors"`
	Initial    int        `json:"initial"` // the number of initial states
	Predicate  string     `json:"predicate"`
	Limits     string     `json:"limits"`
}

type term struct {
	Name string `json:"name"`
	Doc  string `json:"doc,omitempty"`
	Ref  string `json:"ref,omitempty"`
}

type kindInfo struct {
	Name     string `json:"name"`
	Doc      string `json:"doc,omitempty"`
	Fairness string `json:"fairness"`
}

type propInfo struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Doc      string `json:"doc,omitempty"`
	Ref      string `json:"ref,omitempty"`
	Liveness bool   `json:"liveness"`
}

func (s *Server) modelInfo() modelInfo {
	f := s.spec.Family
	in := modelInfo{Spec: s.spec.Path, Check: s.check.Name, Model: f.Name, Doc: f.Doc, Config: app.Config(s.spec, s.check),
		Bounds: s.st.Bounds(), Views: f.Views, Actors: s.st.Actors(), Initial: len(s.st.Init()), Predicate: PredicateHelp,
		Limits: fmt.Sprintf("each search stops after %d distinct states or %s", s.opts.SearchStates, s.opts.SearchTime)}
	for _, v := range s.st.Vars() {
		in.Vars = append(in.Vars, term{Name: v, Doc: termDoc(f.Variables, v)})
	}
	_, opts, _ := s.spec.Runnable(s.check)
	fair, _ := s.run.Fairness(opts)
	for k, name := range s.st.ActionKinds() {
		in.Kinds = append(in.Kinds, kindInfo{Name: name, Doc: termDoc(f.Actions, name), Fairness: fair[k].String()})
	}
	for _, p := range s.st.Properties() {
		pi := propInfo{Name: p.Name, Kind: string(p.Kind), Liveness: p.Kind.Liveness()}
		for _, fp := range f.Properties {
			if fp.Name == p.Name {
				pi.Doc, pi.Ref = fp.Doc, fp.Ref
			}
		}
		in.Properties = append(in.Properties, pi)
	}
	for _, g := range s.guards {
		in.Guards = append(in.Guards, term{Name: g.name, Doc: g.doc, Ref: g.ref})
	}
	return in
}

func termDoc(terms []specs.Term, name string) string {
	for _, t := range terms {
		if t.Name == name {
			return t.Doc
		}
	}
	return ""
}

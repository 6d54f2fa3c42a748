package specs

import (
	"fmt"

	"kmc/checker"
	"kmc/model/twophase"
)

// TwoPhaseFix is the twophase family's one switch: with it on, TMCommit waits until every
// RM has prepared, as TwoPhase.tla does; with it off, a planted bug lets the TM commit early.
const TwoPhaseFix = "CommitAfterAllPrepared"

func twoPhaseFamily() Family {
	return Family{
		Name: "twophase",
		Doc: "two-phase commit from the TLA+ examples (TwoPhase.tla): a transaction manager and " +
			"N resource managers exchanging messages kept as a set; a textbook model for the engine",
		Constants: []Param{
			{Name: "rms", Doc: "number of resource managers", Kind: Int, Min: 2, Max: twophase.MaxRM, Default: 3},
		},
		Switches: []Switch{
			{Name: TwoPhaseFix, Kinds: []string{"TMCommit"}, Doc: "TMCommit waits until every RM has prepared (off: a planted bug, the TM may commit early)"},
		},
		Properties: []PropertyInfo{
			{Name: "TCConsistent", Kind: checker.Invariant, Ref: "TCommit.tla",
				Doc: "no resource manager has committed while another has aborted"},
			{Name: "TCTypeOK", Kind: checker.Invariant, Ref: "TwoPhase.tla",
				Doc: "every variable holds a value of its type (TPTypeOK)"},
			{Name: "NotAllCommitted", Kind: checker.Invariant,
				Doc: "planted, for tests: not every resource manager has committed (violated in 3N+2 states)"},
		},
		Guards:   twoPhaseGuards(),
		Symmetry: true, // resource managers are interchangeable (twophase.Model.Canonicalize)
		Build:    buildTwoPhase,
	}
}

func buildTwoPhase(cfg Config) (checker.Runnable, error) {
	n := cfg.Values["rms"]
	if n < 1 || n > twophase.MaxRM {
		return nil, fmt.Errorf("twophase: rms = %d outside 1..%d", n, twophase.MaxRM)
	}
	m := twophase.New(n)
	m.EarlyCommit = !cfg.Switches[TwoPhaseFix]
	bits, err := guardBits(cfg.Mutate, len(twophase.Guards), func(g int) string { return twophase.Guards[g].Name })
	if err != nil {
		return nil, fmt.Errorf("twophase: %w", err)
	}
	m.Mutate = bits
	var props []checker.Property[twophase.State]
	for _, name := range cfg.Properties {
		var f func(s *twophase.State) bool
		var x func(s *twophase.State) string
		switch name {
		case "TCConsistent":
			f, x = twophase.TCConsistent, m.ExplainTCConsistent
		case "TCTypeOK":
			f, x = m.TCTypeOK, m.ExplainTCTypeOK
		case "NotAllCommitted":
			f, x = m.NotAllCommitted, m.ExplainNotAllCommitted
		default:
			return nil, fmt.Errorf("twophase: unknown property %q", name)
		}
		props = append(props, checker.Property[twophase.State]{Name: name, Kind: checker.Invariant, State: f, Explain: x,
			Reads: m.PropertyReads(name)})
	}
	return bind[twophase.State](m, props, cfg)
}

func twoPhaseGuards() []GuardInfo {
	var out []GuardInfo
	for _, g := range twophase.Guards {
		out = append(out, GuardInfo{Name: g.Name, Doc: g.Doc, Ref: g.TLA})
	}
	return out
}

package specs

import (
	"fmt"

	"kmc/checker"
)

// ParamKind is the type of a constant or fault budget.
type ParamKind int

// Parameter kinds. Every value is held as an int: a Bool as 0 or 1, an Enum as the index
// of its name in Param.Enum.
const (
	Int ParamKind = iota
	Bool
	Enum
)

// Param is one constant or fault budget of a model family, with its range and default.
type Param struct {
	Name     string
	Doc      string
	Kind     ParamKind
	Min, Max int      // inclusive range, for Int
	Enum     []string // allowed names, for Enum
	Default  int
	// Quiet parameters are left out of a check's printed configuration (and of a
	// checkpoint's search configuration) while they hold their default, so that adding one
	// changes no output of a configuration that does not set it.
	Quiet bool
	// Kinds, for a fault budget, are the kinds of action that spend it: a check whose search
	// took none of them with a budget above 0 is vacuous in that fault.
	Kinds []string
}

// Switch is a fix switch of a model family, named after its issue ("KAFKA-18723").
type Switch struct {
	Name string
	Doc  string
	// Kinds are the kinds of action whose steps run the fix's code: a check with the switch
	// on whose search took none of them never exercised it (vacuous).
	Kinds []string
	// Ref cites the code the switch follows (file, function, release tag) or the proposal it
	// is; Versions says which releases it applies to. Both may be "".
	Ref, Versions string
	// Branches name the branches the switch adds to the model, counted during a search
	// (BranchCounter): a check with the switch on whose branches never fired never changed
	// a step by it (vacuous).
	Branches []string
	// Proposal says that no release has the switch's code (a spec's without cannot name it).
	Proposal bool
}

// GuardInfo is a named protocol guard of a model family (kmc mutate): a condition of the
// protocol that prevents a known hazard. A check can turn guards off (Config.Mutate).
type GuardInfo struct {
	Name string
	Doc  string
	Ref  string // where the guard is in the protocol's code or TLA+ text: function and condition
}

// PropertyInfo describes a property a family can check.
type PropertyInfo struct {
	Name string
	Doc  string
	Kind checker.Kind
	Ref  string // JIRA issue or KIP it comes from, when any
	// Views names the family's views (Family.Views) that show what the property reads;
	// a spec's traces print those of its properties unless [options] view or --view says
	// otherwise (Spec.DefaultView).
	Views []string
}

// Config is a fully resolved configuration handed to Family.Build: every constant and
// fault budget by name (defaults filled in), the switches that are on, and the properties
// selected, in the order the spec lists them.
type Config struct {
	Values   map[string]int
	Switches map[string]bool
	// Without names fixes that the model's release line contains and the check takes out.
	Without map[string]bool
	// Mutate names guards (Family.Guards) turned off: a mutation, for kmc mutate.
	Mutate     map[string]bool
	Properties []string
	// Exprs are invariants written as expressions over the model's variables (a spec's
	// [invariants], kmc check --invariant), checked beside Properties.
	Exprs []ExprProperty
	// Canon, when not nil, rewrites each value the model writes (ITF JSON) before it is
	// compared or shown: Spec.ReplayRunnable sets it so that a trace's values, put in the
	// same canonical form, match the model's whatever order another tool wrote sets in.
	Canon func(dst, itf []byte) []byte
}

// Family is a model family kmc can check: its parameters, switches and properties, and a
// constructor. Families lists them.
type Family struct {
	Name       string
	Doc        string
	Constants  []Param
	Faults     []Param
	Switches   []Switch
	Properties []PropertyInfo
	// Guards are the model's named protocol guards, in the model's table order.
	Guards []GuardInfo
	// Versions, when not empty, are the release lines the family's version constant names,
	// oldest first, each with the mechanisms and fixes it has.
	Versions []VersionInfo
	// Variables and Actions, when not empty, say what each printed state variable and each
	// kind of action means (kmc list).
	Variables, Actions []Term
	// Views names the tables the model offers per state (checker.Viewer), for --view;
	// DefaultView is what a trace prints when --view is not given ("" for none).
	Views       []string
	DefaultView string
	// Params, when not nil, names the arguments of the model's actions in the pictures
	// (traces.ActionParamNamer; the model's optional ActionParams method).
	Params interface {
		ActionParams(kind string, n int) []string
	}
	Symmetry bool // the model implements checker.Symmetric
	// LivenessSymmetry is true when the model's symmetry reduction is sound for liveness.
	LivenessSymmetry bool
	// SymmetryNote says where the model's symmetry reduction applies, or why it has none
	// (kmc list, and the error for --symmetry).
	SymmetryNote string
	// DefaultSymmetry, when not nil, says whether a check of cfg runs with the symmetry
	// reduction unless its spec or the command line says otherwise: where the reduction
	// does reduce and every property is a safety property (for liveness it is not sound).
	// The families that port a TLA+ spec have none, so that they count states as TLC does.
	DefaultSymmetry func(cfg Config) bool
	// PORByRequest is true when the model declares independence (checker.Independent) but
	// a safety check runs without the partial-order reduction unless asked (--por): where
	// the declarations leave nothing to reduce in the checks measured, the reduction only
	// costs time. PORNote says why.
	PORByRequest bool
	PORNote      string
	Build        func(cfg Config) (checker.Runnable, error)
	// Validate, when not nil, checks the rules of a configuration that tie fields together
	// (min_isr <= brokers), as Build would, without building; its messages name the fields
	// by their spec names. When nil, the loader calls Build instead.
	Validate func(cfg Config) error
}

// validate checks cfg as Build would: by Validate when the family has one.
func (f Family) validate(cfg Config) error {
	if f.Validate != nil {
		return f.Validate(cfg)
	}
	_, err := f.Build(cfg)
	return err
}

// Families returns every model family, in a fixed order.
func Families() []Family {
	return []Family{
		twoPhaseFamily(),
		referenceFamily(),
		vanlightlyFamily(),
		kafkaFamily(),
	}
}

// FamilyByName returns the family called name.
func FamilyByName(name string) (Family, bool) {
	for _, f := range Families() {
		if f.Name == name {
			return f, true
		}
	}
	return Family{}, false
}

// hasSwitch reports whether f has the fix switch called name.
func (f Family) hasSwitch(name string) bool {
	for _, sw := range f.Switches {
		if sw.Name == name {
			return true
		}
	}
	return false
}

// hasGuard reports whether f has the guard called name.
func (f Family) hasGuard(name string) bool {
	for _, g := range f.Guards {
		if g.Name == name {
			return true
		}
	}
	return false
}

// GuardNames are the names of f's guards, in table order.
func (f Family) GuardNames() []string {
	var out []string
	for _, g := range f.Guards {
		out = append(out, g.Name)
	}
	return out
}

// guardBits maps the guards named in mutate to a model's bits: guard g (bit g) of the n in
// the model's table is called name(g); an unknown name is an error.
func guardBits(mutate map[string]bool, n int, name func(g int) string) (uint32, error) {
	var bits uint32
next:
	for want := range mutate {
		for g := range n {
			if name(g) == want {
				bits |= 1 << g
				continue next
			}
		}
		return 0, fmt.Errorf("mutate: unknown guard %q", want)
	}
	return bits, nil
}

// VersionInfo describes one release of a family, or a release line's name (Alias: the
// release it stands for; Has is then that release's).
type VersionInfo struct {
	Name, Release, Alias string
	Has                  []string
}

// Term is a name the model prints and what it means.
type Term struct{ Name, Doc string }

// Because is ": " + why, or "" when why is empty: the reason appended to an error.
func Because(why string) string {
	if why == "" {
		return ""
	}
	return ": " + why
}

// BranchCount is how often one branch a fix switch adds, or one guard's refusal, changed a
// step during a search (BranchCounter).
type BranchCount struct {
	Switch string // the switch's name; "" for a guard
	Guard  string // the guard's name; "" for a switch's branch
	Branch string // the branch's name ("refused" for a guard)
	On     bool   // the switch was in force; the guard had a code path
	Hits   uint64
}

// BranchCounter is a Runnable whose model counts, during a search with Options.Vacuity or
// Options.Coverage, each branch its fix switches add and each refusal of its guards, kept
// by the engine as the search's Result.Tallies (checker.Tallier: summed over the parts of
// a partitioned search, carried through checkpoints): kmc check's vacuity says a switch
// whose branches never fired, --coverage prints the counts.
type BranchCounter interface {
	checker.Runnable
	// Branches names a search's counts (its Result.Tallies), switches' branches first; nil
	// when it counted nothing (neither Vacuity nor Coverage, or it resumed a checkpoint
	// without them). With Vacuity alone a count says only whether the branch fired (> 0).
	Branches(tallies []uint64) []BranchCount
}

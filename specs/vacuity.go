package specs

import (
	"strconv"
	"strings"

	"kmc/checker"
)

// Vacuity says why a check whose search found no violation tested little, or nothing when
// it did test: the engine's reasons (checker.Result.Vacuous: fewer than a handful of
// distinct states, a LeadsTo property whose condition never held), then each fault budget
// above 0 that no step spent (Param.Kinds), then each fix switch on whose code's kinds of
// action took no step (Switch.Kinds). It needs a result of a search with
// checker.Options.Vacuity; for a violated or incomplete verdict it is empty.
func (s *Spec) Vacuity(cfg Config, r checker.Result) []string {
	if r.Verdict != checker.OK {
		return nil
	}
	out := append([]string(nil), r.Vacuous...)
	if r.Taken == nil {
		return out
	}
	kinds := map[string]int{}
	for i, k := range s.kinds() {
		kinds[k] = i
	}
	took := func(names []string) bool {
		for _, n := range names {
			if i, ok := kinds[n]; ok && i < len(r.Taken) && r.Taken[i] {
				return true
			}
		}
		return false
	}
	for _, p := range s.Family.Faults {
		if v := cfg.Values[p.Name]; v > 0 && len(p.Kinds) > 0 && !took(p.Kinds) {
			out = append(out, "fault budget "+p.Name+"="+strconv.Itoa(v)+" never used")
		}
	}
	for _, sw := range s.Family.Switches {
		if cfg.Switches[sw.Name] && len(sw.Kinds) > 0 && !took(sw.Kinds) {
			out = append(out, "fix "+sw.Name+": "+strings.Join(sw.Kinds, ", ")+" never taken")
		}
	}
	return out
}

// BranchVacuity says, for each fix switch cfg turns on whose kinds of action took steps
// (else Vacuity says so) but none of whose branches ever fired (BranchCounter), that the
// switch never changed a step: "fix KAFKA-18723: branch skip-higher-epoch never fired".
// Empty for a violated or incomplete verdict, or without counts.
func (s *Spec) BranchVacuity(cfg Config, r checker.Result, counts []BranchCount) []string {
	if r.Verdict != checker.OK || len(counts) == 0 {
		return nil
	}
	kindless := map[string]bool{}
	for _, w := range s.Vacuity(cfg, r) {
		kindless[w] = true
	}
	var out []string
	for _, sw := range s.Family.Switches {
		if !cfg.Switches[sw.Name] || len(sw.Branches) == 0 ||
			kindless["fix "+sw.Name+": "+strings.Join(sw.Kinds, ", ")+" never taken"] {
			continue
		}
		fired := false
		for _, c := range counts {
			fired = fired || c.Switch == sw.Name && c.Hits > 0
		}
		if !fired {
			out = append(out, "fix "+sw.Name+": branch "+strings.Join(sw.Branches, ", ")+" never fired")
		}
	}
	return out
}

// kinds are the kinds of action of the spec's model, in ActionKinds order (the same for
// every configuration of a family; built from the first check).
func (s *Spec) kinds() []string {
	if s.kindNames == nil && len(s.Checks) > 0 {
		if r, err := s.Family.Build(s.Checks[0].Config); err == nil {
			s.kindNames = r.ActionKinds()
		}
	}
	return s.kindNames
}

// VacuousText is the verdict as kmc prints it: "ok", or "ok (vacuous: why; why)".
func VacuousText(v checker.Verdict, property string, why []string) string {
	if len(why) == 0 {
		return Outcome(v, property)
	}
	return Outcome(v, property) + " (vacuous: " + strings.Join(why, "; ") + ")"
}

// CompareVacuous says how vacuity reasons why differ from check c's pin (vacuous = false or
// true), or "" when they agree or c pins nothing.
func (c *Check) CompareVacuous(r checker.Result, why []string) string {
	if !c.PinVacuous || r.Verdict != checker.OK {
		return ""
	}
	switch {
	case !c.WantVacuous && len(why) > 0:
		return "vacuous: got vacuous (" + strings.Join(why, "; ") + "), want vacuous = false"
	case c.WantVacuous && len(why) == 0:
		return "vacuous: got not vacuous, want vacuous = true"
	}
	return ""
}

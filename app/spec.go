package app

import (
	"strconv"
	"strings"

	"kmc/specs"
	"kmc/traces"
)

// What the operations share over a loaded spec: picking a check, a parameter's value as a
// spec writes it, a check's configuration on one line.

// CheckNames are the names of spec's checks, in order.
func CheckNames(spec *specs.Spec) []string {
	var names []string
	for _, c := range spec.Checks {
		names = append(names, c.Name)
	}
	return names
}

// PickCheck is spec's check called name, or its only check when name is "".
func PickCheck(spec *specs.Spec, name string) (*specs.Check, error) {
	if name == "" {
		if len(spec.Checks) == 1 {
			return &spec.Checks[0], nil
		}
		return nil, &NoCheckError{Spec: spec.Path, Checks: CheckNames(spec)}
	}
	c, ok := spec.CheckByName(name)
	if !ok {
		return nil, &UnknownCheckError{Spec: spec.Path, Name: name, Checks: CheckNames(spec)}
	}
	return c, nil
}

// ParamValue is value v of p as a spec writes it: an integer, true or false, an enum's name.
func ParamValue(p specs.Param, v int) string {
	switch p.Kind {
	case specs.Bool:
		return strconv.FormatBool(v != 0)
	case specs.Enum:
		if v >= 0 && v < len(p.Enum) {
			return p.Enum[v]
		}
	}
	return strconv.Itoa(v)
}

// Config is check c's configuration on one line: its constants and fault budgets, the
// fixes, the fixes taken out, and the guards turned off ("rms=3 fixes=CommitAfterAllPrepared").
func Config(spec *specs.Spec, c *specs.Check) string {
	var parts []string
	for _, s := range settings(spec, c) {
		parts = append(parts, s.name+"="+s.value)
	}
	fixes := "none"
	if len(c.Fixes) > 0 {
		fixes = strings.Join(c.Fixes, ",")
	}
	parts = append(parts, "fixes="+fixes)
	if len(c.Without) > 0 {
		parts = append(parts, "without="+strings.Join(c.Without, ","))
	}
	if len(c.Mutate) > 0 {
		parts = append(parts, "mutate="+strings.Join(c.Mutate, ","))
	}
	return strings.Join(parts, " ")
}

// setting is a constant or fault budget of a check, with its section ("constants",
// "faults") and its value as a spec writes it.
type setting struct{ section, name, value string }

// settings are check c's constants, then its fault budgets, in the family's order; a
// quiet one only when it is not its default.
func settings(spec *specs.Spec, c *specs.Check) []setting {
	var out []setting
	for _, group := range []struct {
		section string
		params  []specs.Param
	}{{"constants", spec.Family.Constants}, {"faults", spec.Family.Faults}} {
		for _, p := range group.params {
			if p.Quiet && c.Config.Values[p.Name] == p.Default {
				continue
			}
			out = append(out, setting{group.section, p.Name, ParamValue(p, c.Config.Values[p.Name])})
		}
	}
	return out
}

// RunConfig is the configuration check c of spec runs with, as a trace records it
// (traces.RunConfig): the spec file's SHA-256, the --set overrides as given, and the check
// resolved (specs.Resolved).
func RunConfig(spec *specs.Spec, c *specs.Check) *traces.RunConfig {
	return &traces.RunConfig{SpecSHA256: spec.SHA256, Sets: spec.Sets, Resolved: spec.Resolve(c).JSON()}
}

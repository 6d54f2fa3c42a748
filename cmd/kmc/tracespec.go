package main

import (
	"fmt"
	"io"
	"strings"

	"kmc/specs"
	"kmc/traces"
)

// traceSpec is the spec a command that reads a trace (replay, why) runs it against, with
// the check to use and how the output names where they come from.
type traceSpec struct {
	spec  *specs.Spec
	check string // the check to pick: --check, else the trace's, else "" (the only one)
	from  string // what named check: "--check", "the trace's #meta kmc::check"
	// against names the configuration in the output: "specs/x.toml" or "the configuration
	// the trace records (specs/x.toml, --set a=1)".
	against string
}

// resolveTraceSpec finds what a trace at path (its #meta read into meta) is run against:
//   - without --spec (specPath ""), the configuration the trace records (#meta.kmc::config),
//     rebuilt without the spec file, with the --set overrides sets on top; a trace that
//     records none (one of an earlier kmc, or of another tool) needs --spec (exit 2);
//   - with --spec, that file, with the --set overrides sets, or with the ones the trace
//     records when none is given, so that a trace made with --set replays as it was made.
//     When the check so resolved differs from the one the trace records, a note on stderr
//     lists each difference.
//
// A recorded configuration that is no valid spec is exit 2, naming the trace's key.
func resolveTraceSpec(cmd, path string, meta traces.ITFOptions, specPath string, sets []string, check string, stderr io.Writer) (*traceSpec, int) {
	ts := &traceSpec{check: check, from: "--check"}
	if ts.check == "" {
		ts.check, ts.from = meta.Check, "the trace's #meta kmc::check"
	}
	var recorded *specs.Resolved
	if c := meta.Config; c != nil && len(c.Resolved) > 0 {
		r, err := specs.ParseResolved(c.Resolved)
		if err != nil {
			fmt.Fprintf(stderr, "kmc: %s: %s: #meta.kmc::config: %s\n", cmd, traces.Visible(path), traces.Visible(err.Error()))
			hint(stderr, "pass --spec to replay the trace against a spec file instead")
			return nil, exitUsage
		}
		recorded = &r
		if ts.check == "" {
			ts.check, ts.from = r.Check, "the trace's #meta kmc::config"
		}
	}
	if specPath == "" {
		if recorded == nil {
			return nil, usageError(stderr, cmd, "--spec is required: %s records no configuration (a trace of an earlier kmc or of another tool)", traces.Visible(path))
		}
		if ts.check != recorded.Check {
			fmt.Fprintf(stderr, "kmc: %s: %s: %s: check %s: the trace records check %s only\n", cmd, traces.Visible(path), ts.from, traces.Visible(ts.check), traces.Visible(recorded.Check))
			hint(stderr, "pass --spec FILE to replay it under another check of a spec file")
			return nil, exitUsage
		}
		spec, err := specs.FromResolved(*recorded, traces.Visible(path)+": #meta.kmc::config", meta.Source, sets)
		if err != nil {
			fmt.Fprintf(stderr, "kmc: %s: %s\n", cmd, traces.Visible(err.Error()))
			if len(sets) > 0 {
				hint(stderr, "run 'kmc list' for the models' constants, switches and properties")
			} else {
				hint(stderr, "pass --spec to replay the trace against a spec file instead")
			}
			return nil, exitUsage
		}
		ts.spec = spec
		ts.against = "the configuration the trace records (" + recordedOrigin(meta, sets) + ")"
		return ts, exitOK
	}
	use, fromTrace := sets, false
	if len(sets) == 0 && meta.Config != nil && len(meta.Config.Sets) > 0 {
		use, fromTrace = meta.Config.Sets, true
	}
	spec, code := loadSpec(specPath, use, ts.check, stderr)
	if spec == nil {
		if fromTrace {
			hint(stderr, "those overrides are the trace's own (#meta.kmc::sets); give --set to replace them")
		}
		return nil, code
	}
	ts.spec, ts.against = spec, specPath
	if fromTrace {
		ts.against += " with the trace's --set " + traces.Visible(strings.Join(use, " --set "))
	}
	if recorded == nil {
		return ts, exitOK
	}
	name := ts.check
	if name == "" && len(spec.Checks) == 1 {
		name = spec.Checks[0].Name
	}
	c, ok := spec.CheckByName(name)
	if !ok {
		return ts, exitOK // the command reports the unknown check
	}
	diff := recorded.Diff(spec.Resolve(c))
	if len(diff) == 0 {
		return ts, exitOK
	}
	fmt.Fprintf(stderr, "kmc: %s: note: %s, check %s, is not the configuration the trace was made with:\n", cmd, ts.against, c.Name)
	for _, d := range diff {
		fmt.Fprintf(stderr, "  %s\n", traces.Visible(d.Key+": "+d.A+" in the trace, "+d.B+" here"))
	}
	if meta.Config.SpecSHA256 != "" && spec.SHA256 != meta.Config.SpecSHA256 {
		fmt.Fprintf(stderr, "  (%s has changed since the trace was made: its SHA-256 is not the one the trace records)\n", specPath)
	}
	hint(stderr, "leave out --spec to use the trace's own configuration")
	return ts, exitOK
}

// recordedOrigin names where a recorded configuration came from: the spec file, the --set
// overrides it was made with, and those given now.
func recordedOrigin(meta traces.ITFOptions, sets []string) string {
	parts := []string{}
	if meta.Source != "" {
		parts = append(parts, meta.Source)
	}
	for _, s := range meta.Config.Sets {
		parts = append(parts, "--set "+s)
	}
	if len(parts) == 0 {
		parts = append(parts, "no spec file named")
	}
	out := traces.Visible(strings.Join(parts, ", "))
	if len(sets) > 0 {
		out += "; now with --set " + strings.Join(sets, " --set ")
	}
	return out
}

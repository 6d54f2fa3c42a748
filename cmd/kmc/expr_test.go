package main

import (
	"strings"
	"testing"
)

// Reference: issue 28 (kmc check --invariant and --show: ad-hoc properties and trace
// expressions over the variables kmc prints, on every model).
func TestInvariantAndShowFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		out  []string // in stdout
		errs []string // in stderr
	}{
		{"holds", []string{"--check", "fixed", "--invariant", "size(rmState) == 3"}, exitOK,
			[]string{"288 distinct states found", "Result: ok, as the spec expects."}, nil},
		{"violated", []string{"--check", "fixed", "--invariant", "size(rmState) == 3",
			"--invariant", "!rmState.exists(r, rmState[r] == 'committed')", "--show", "size(tmPrepared)"}, exitSafety,
			[]string{"Error: Invariant inv2 is violated.", "/\\ show1 == size(tmPrepared) = 0", "/\\ show1 == size(tmPrepared) = 3",
				`Why: inv2 is false in state 9: "!rmState.exists(r, rmState[r] == 'committed')" is false where`,
				`rmState = {"#map":[["rm1","committed"],`}, nil},
		{"bad invariant", []string{"--invariant", "rmState +"}, exitUsage, nil,
			[]string{`--invariant:1:1: --invariant: expression "rmState +": 1:10: Syntax error`, `kmc: check: --invariant "rmState +" does not compile`}},
		{"unknown variable", []string{"--invariant", "log == 1"}, exitUsage, nil,
			[]string{"undeclared reference to 'log'", "(variables: rmState, tmState, tmPrepared, msgs)"}},
		{"bad show", []string{"--show", "tmState ++"}, exitUsage, nil, []string{"kmc: check: --show: expression \"tmState ++\""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(append([]string{"check", spec, "--workers", "2"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit: got %d, want %d\n%s%s", code, tt.code, out, errs)
			}
			for _, w := range tt.out {
				if !strings.Contains(out, w) {
					t.Errorf("stdout: want %q in\n%s", w, out)
				}
			}
			for _, w := range tt.errs {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr: want %q in\n%s", w, errs)
				}
			}
		})
	}
}

package specs

import (
	"strings"
	"testing"
)

// Reference: issue 11, defect 8 (smaller ones): a memory budget of 0, a newline in a --set
// value, and workers above the engine's cap are errors.
func TestSmallSpecErrors(t *testing.T) {
	tests := []struct {
		name, old, new string
		sets           []string
		want           string
	}{
		{"memory string 0", `memory = "1.5GiB"`, `memory = "0"`, nil,
			`good.toml:10:10: limits.memory: must be positive; leave it out for the default (got "0")`},
		{"memory 0", `memory = "1.5GiB"`, `memory = 0`, nil,
			`good.toml:10:10: limits.memory: must be positive; leave it out for the default (got 0)`},
		{"memory under a byte", `memory = "1.5GiB"`, `memory = "0.2B"`, nil,
			`good.toml:10:10: limits.memory: must be positive; leave it out for the default (got "0.2B")`},
		{"memory 0 by --set", "", "", []string{"limits.memory=0"},
			`--set:1:15: limits.memory: must be positive; leave it out for the default (got 0)`},
		{"workers above the cap", `workers = 2`, `workers = 257`, nil,
			`good.toml:14:11: options.workers: must be 0..256 (got 257)`},
		{"newline in --set", "", "", []string{"rms=4", "rms=3\nrms=5"},
			`--set:2:6: rms: a value must be one line`},
		{"newline in a --set key", "", "", []string{"limits.\nmax_states=3"},
			`--set:1:8: a value must be one line`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := goodSpec
			if tt.old != "" {
				src = strings.Replace(src, tt.old, tt.new, 1)
			}
			_, err := Parse("good.toml", []byte(src), tt.sets)
			if err == nil {
				t.Fatalf("Parse: got no error, want %s", tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

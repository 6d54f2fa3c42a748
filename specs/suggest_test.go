package specs

import "testing"

// Reference: issue 13 ("a CLI that forgives typos"): did you mean.
func TestSuggest(t *testing.T) {
	props := []string{"NoCommittedDataLoss", "NoPermanentDivergence", "LogMatching", "OneLeaderPerEpoch"}
	tests := []struct {
		name  string
		cands []string
		want  string
	}{
		{"NoCommitedDataLoss", props, "NoCommittedDataLoss"},
		{"nocommitteddataloss", props, "NoCommittedDataLoss"},
		{"LogMatchnig", props, "LogMatching"},
		{"Nope", props, ""},
		{"chek", []string{"check", "suite", "sweep", "list"}, "check"},
		{"workrs", []string{"workers", "memory", "time"}, "workers"},
		{"max_epcoh", []string{"max_epoch", "max_records"}, "max_epoch"},
		{"abcd", []string{"abce", "abcf"}, ""}, // two equally close
		{"x", []string{"y", "z"}, ""},          // one letter of one is not a typo of it
		{"check", []string{"check"}, ""},       // nothing to suggest for a known name
	}
	for _, tt := range tests {
		if got := Suggest(tt.name, tt.cands); got != tt.want {
			t.Errorf("Suggest(%q): got %q, want %q", tt.name, got, tt.want)
		}
	}
}

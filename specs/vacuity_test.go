package specs

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kmc/checker"
)

// Reference: issue 16. The suite compares a check's vacuous pin with what the search found:
// KAFKA-14154's fixed check at max_epoch = 1 reaches one state, in which no AlterPartition is
// pending and no failover happened; pinned vacuous = false it is a mismatch, pinned true it
// matches, and without max_epoch = 1 it is not vacuous.
func TestSuiteVacuousPin(t *testing.T) {
	spec := func(maxEpoch int, pin string) string {
		return `model = "kafka"
properties = ["NoStuckAlterPartition"]
[constants]
version = "3.3"
brokers = 2
max_records = 0
max_epoch = ` + string(rune('0'+maxEpoch)) + `
controllers = 2
[faults]
controller_failover = 1
[[check]]
name = "fixed"
expect = "ok"
vacuous = ` + pin + "\n"
	}
	tests := []struct {
		name, src string
		mismatch  bool
		want      string
	}{
		{"vacuous pinned false", spec(1, "false"), true,
			"mismatch: vacuous: got vacuous (only 1 distinct state; NoStuckAlterPartition: its condition never held; fault budget controller_failover=1 never used), want vacuous = false"},
		{"vacuous pinned true", spec(1, "true"), false, "ok: 1 check in 1 spec file"},
		{"not vacuous pinned true", spec(2, "true"), true, "mismatch: vacuous: got not vacuous, want vacuous = true"},
		{"not vacuous pinned false", spec(2, "false"), false, "ok: 1 check in 1 spec file"},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "s.toml"), []byte(tt.src), 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		rep, err := RunSuite(dir, checker.Options{Workers: 1}, &out)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := rep.Mismatches > 0; got != tt.mismatch || !strings.Contains(out.String(), tt.want) {
			t.Errorf("%s: got mismatch %v and\n%s\nwant mismatch %v and a line containing %q", tt.name, got, out.String(), tt.mismatch, tt.want)
		}
	}
}

package app

import (
	"os"
	"path/filepath"
	"testing"
)

// Reference: the clean-clone CI of stop 33. kmc check's traces carry their spec-level
// configuration in #meta kmc::config (specs.Resolved); kmc conform read that key as a walk's
// model configuration and replayed a model of 0 brokers. A walk's is kmc::modelConfig; a walk
// written before keeps working.
func TestLoadITFModelConfig(t *testing.T) {
	dir := t.TempDir()
	states := `"vars":["x"],"states":[{"x":1}]`
	for _, tc := range []struct {
		name, meta string
		brokers    int // 0: no model configuration read
	}{
		{"check trace", `{"source":"s.toml","kmc::check":"buggy","kmc::config":{"model":"kafka","check":"buggy","constants":{"brokers":3}}}`, 0},
		{"walk", `{"source":"s.toml","kmc::modelConfig":{"Brokers":2,"MinISR":1}}`, 2},
		{"walk before kmc::modelConfig", `{"source":"s.toml","kmc::config":{"Brokers":3,"MinISR":1}}`, 3},
		{"none", `{"source":"s.toml"}`, 0},
	} {
		p := filepath.Join(dir, tc.name+".itf.json")
		if err := os.WriteFile(p, []byte(`{"#meta":`+tc.meta+`,`+states+`}`), 0o644); err != nil {
			t.Fatal(err)
		}
		tr, err := loadITF(p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		switch {
		case tc.brokers == 0 && tr.Config != nil:
			t.Errorf("%s: read a model configuration %+v; want none", tc.name, *tr.Config)
		case tc.brokers != 0 && (tr.Config == nil || tr.Config.Brokers != tc.brokers):
			t.Errorf("%s: model configuration %+v; want %d brokers", tc.name, tr.Config, tc.brokers)
		}
	}
}

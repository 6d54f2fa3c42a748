package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scramble rewrites an ITF value with every #set and #map reversed and record fields in
// another order (encoding/json sorts a map's keys), as another ITF tool may write it.
func scramble(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = scramble(e)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			e = scramble(e)
			if arr, ok := e.([]any); ok && (k == "#set" || k == "#map") {
				for i, j := 0, len(arr)-1; i < j; i, j = i+1, j-1 {
					arr[i], arr[j] = arr[j], arr[i]
				}
			}
			out[k] = e
		}
		return out
	}
	return v
}

// Reference: issue 11, defect 8: kmc replay accepts ITF sets and maps in any order (and
// record fields in any order): values are compared canonically.
func TestReplayCanonicalOrder(t *testing.T) {
	dir := t.TempDir()
	specPath := filepath.Join(dir, "all.toml")
	// With the fix on, every RM commits in 3N+2 = 11 states: a trace with multi-element
	// sets (tmPrepared, msgs) and a map (rmState).
	src := `model = "twophase"
properties = ["NotAllCommitted"]
[[check]]
name = "all"
fixes = ["CommitAfterAllPrepared"]
expect = "violated"
property = "NotAllCommitted"
`
	if err := os.WriteFile(specPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, stdout, stderr := runCLI("check", specPath, "--workers", "1", "--out", out); code != exitSafety {
		t.Fatalf("check: got exit %d\n%s%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "all", "trace.itf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["states"] = scramble(doc["states"])
	scrambled, _ := json.MarshalIndent(doc, "", " ")
	if strings.Contains(string(scrambled), `{"#set":["rm1","rm2","rm3"]}`) || !strings.Contains(string(scrambled), `"rm3"`) {
		t.Fatalf("the scrambled trace still has sorted sets")
	}
	path := filepath.Join(dir, "scrambled.itf.json")
	if err := os.WriteFile(path, scrambled, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("replay", path, "--spec", specPath)
	if code != exitOK || !strings.Contains(stdout, "It violates NotAllCommitted") {
		t.Errorf("replay of a reordered trace: got exit %d\n%s%s", code, stdout, stderr)
	}
}

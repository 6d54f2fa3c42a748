package main

import (
	"os"
	"testing"

	"kmc/specs"
	"kmc/traces"
)

func TestZZDemo(t *testing.T) {
	path := os.Getenv("DEMO_SPEC")
	if path == "" {
		t.Skip()
	}
	sp, err := specs.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := sp.CheckByName(os.Getenv("DEMO_CHECK"))
	r, opts, err := sp.Runnable(c)
	if err != nil {
		t.Fatal(err)
	}
	res := r.Check(opts)
	if res.Trace == nil {
		t.Fatalf("no trace: %s", res.Verdict)
	}
	st := res.Stats
	paths, err := traces.WriteAll(os.Getenv("DEMO_OUT"), res.Trace, traces.ReportInfo{Spec: path, Check: c.Name, Verdict: res.Verdict, Property: res.Property, Stats: &st}, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(paths, len(res.Trace.Actors), res.Trace.States[1].Events)
}

package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"kmc/specs"
)

// Reference: issue 10 ("Verdicts that survive a moved bound"): Sweep.

func TestSweepNeighbourMarks(t *testing.T) {
	tests := []struct {
		name      string
		spec      string
		check     string
		vary      []string
		maxStates int64
		points    []string // mark ("*" differs from a neighbour, "-" not), values, verdict
		smallest  string   // the smallest point with the expected outcome and its states, or ""
	}{
		// KAFKA-14154 needs leader epoch 2 (the new controller's election): max_epoch = 1
		// cuts it and leaves one state; 2 and 3 give the same 181 states.
		{"kafka-14154 max_epoch", kafka14154, "buggy", []string{"max_epoch=1..3"}, 0,
			[]string{"* max_epoch=1 ok", "* max_epoch=2 violated", "- max_epoch=3 violated"}, "max_epoch=2 (181)"},
		// A grid: the controller failover is needed too. (1,0) has only ok neighbours.
		{"kafka-14154 grid", kafka14154, "buggy", []string{"max_epoch=1..3", "controller_failover=0..1"}, 0,
			[]string{"- max_epoch=1 controller_failover=0 ok", "* max_epoch=1 controller_failover=1 ok",
				"* max_epoch=2 controller_failover=0 ok", "* max_epoch=2 controller_failover=1 violated",
				"* max_epoch=3 controller_failover=0 ok", "* max_epoch=3 controller_failover=1 violated"},
			"max_epoch=2 controller_failover=1 (181)"},
		// The fixed variant is ok everywhere: no marks.
		{"kafka-14154 fixed", kafka14154, "fixed", []string{"max_epoch=2,3"}, 0,
			[]string{"- max_epoch=2 ok", "- max_epoch=3 ok"}, "max_epoch=2 (145)"},
		// twophase's planted bug at every size, listed out of order: the smallest is rms=2;
		// neighbours are adjacent in the list as given.
		{"twophase buggy", twophase, "buggy", []string{"rms=4,2,3"}, 0,
			[]string{"- rms=4 violated", "- rms=2 violated", "- rms=3 violated"}, "rms=2 (43)"},
		// The state limit stops every point of a check that expects ok.
		{"twophase capped", twophase, "fixed", []string{"rms=3..4"}, 50,
			[]string{"- rms=3 incomplete", "- rms=4 incomplete"}, ""},
		// The limit stops only the largest point: marks on both sides of the change.
		{"twophase partly capped", twophase, "fixed", []string{"rms=2..4"}, 300,
			[]string{"- rms=2 ok", "* rms=3 ok", "* rms=4 incomplete"}, "rms=2 (52)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Sweep(context.Background(), load(t, tt.spec), tt.check, SweepOptions{Vary: tt.vary,
				Search: Search{Workers: 1, MaxStates: tt.maxStates}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i := range res.Points {
				p := &res.Points[i]
				mark := "-"
				if p.Differs {
					mark = "*"
				}
				got = append(got, mark+" "+res.Label(p)+" "+string(p.Verdict))
			}
			if strings.Join(got, "\n") != strings.Join(tt.points, "\n") || res.Total != len(tt.points) || res.Interrupted {
				t.Errorf("points:\ngot:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.points, "\n"))
			}
			smallest := ""
			if res.Smallest >= 0 {
				p := &res.Points[res.Smallest]
				smallest = fmt.Sprintf("%s (%d)", res.Label(p), p.Distinct)
			}
			if smallest != tt.smallest {
				t.Errorf("smallest: got %q, want %q", smallest, tt.smallest)
			}
		})
	}
}

// A point whose configuration the model refuses is invalid, with the model's reason.
func TestSweepInvalid(t *testing.T) {
	res, err := Sweep(context.Background(), load(t, "../specs/kafka-13077-precondition.toml"), "power-loss-2-8",
		SweepOptions{Vary: []string{"min_isr=2..3"}, Search: Search{Workers: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if p := res.Points[len(res.Points)-1]; p.Verdict != Invalid || !strings.Contains(p.Reason, "min_isr") {
		t.Errorf("min_isr=3: got %+v, want invalid naming min_isr", p)
	}
}

func TestSweepRefused(t *testing.T) {
	spec := load(t, twophase)
	var vary *VaryError
	var none *NoCheckError
	for _, tc := range []struct {
		name, check string
		o           SweepOptions
		as          any
		want        string
	}{
		{"range", "buggy", SweepOptions{Vary: []string{"rms=1..3"}}, &vary, "rms=1..3: rms must be 2..16 (got 1..3)"},
		{"twice", "buggy", SweepOptions{Vary: []string{"rms=2", "rms=3"}}, &vary, "rms=3: rms is varied twice"},
		{"set", "buggy", SweepOptions{Vary: []string{"rms=2"}, Sets: []string{"constants.rms=3"}}, &vary, "rms is also given with --set constants.rms=3"},
		{"no check", "", SweepOptions{Vary: []string{"rms=2"}}, &none, "has 2 checks"},
	} {
		res, err := Sweep(context.Background(), spec, tc.check, tc.o)
		if res != nil || !errors.As(err, tc.as) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want a %T with %q", tc.name, err, tc.as, tc.want)
		}
	}
}

func TestParseVary(t *testing.T) {
	fam, ok := specs.FamilyByName("kafka")
	if !ok {
		t.Fatal("no kafka family")
	}
	tests := []struct {
		arg  string
		want string // the values, or the error
	}{
		{"max_epoch=1..3", "[1 2 3]"},
		{"max_epoch = 2", "[2]"},
		{"crash=3,0,1", "[3 0 1]"},
		{"version=3.9,0.11", "[20 15]"},
		{"max_epoch=0..3", "max_epoch must be 1..7 (got 0..3)"},
		{"brokers=6", "brokers must be 2..5 (got 6)"},
		{"max_epoch=3..1", "empty range 3..1: LO is above HI"},
		{"max_epoch=1..x", "want a range of integers LO..HI, such as 1..3"},
		{"max_epoch=1,1", "duplicate value 1"},
		{"max_epoch=one", `max_epoch takes integers (got "one")`},
		{"max_epoch", "want KEY=LO..HI, KEY=N or KEY=A,B,C"},
		{"=3", "want KEY=LO..HI, KEY=N or KEY=A,B,C"},
		{"rms=3", `unknown key "rms": not a constant or fault of kafka`},
		{"version=0..1", "version is not an integer: list its values, such as version=0.10.2.2,0.11.0.2,1.1.1,2.7.2,2.8.0,2.8.1,2.8.2,3.3.2,3.9.0,3.9.1,4.0.0,4.0.1,4.1.0,4.1.1,0.10,0.11,1.1,2.7,2.8,3.3,3.9,4.0,4.1"},
		{"version=sideways", `version must be one of 0.10.2.2, 0.11.0.2, 1.1.1, 2.7.2, 2.8.0, 2.8.1, 2.8.2, 3.3.2, 3.9.0, 3.9.1, 4.0.0, 4.0.1, 4.1.0, 4.1.1, 0.10, 0.11, 1.1, 2.7, 2.8, 3.3, 3.9, 4.0, 4.1 (got "sideways")`},
	}
	for _, tt := range tests {
		a, err := ParseVary(fam, tt.arg)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = fmt.Sprint(a.Values)
		}
		if got != tt.want {
			t.Errorf("ParseVary(%q): got %s, want %s", tt.arg, got, tt.want)
		}
	}
}

func TestReason(t *testing.T) {
	list := specs.ErrorList{
		{Pos: specs.Pos{File: specs.SetFile, Line: 2, Col: 9}, Key: "check[0]", Problem: "cannot build the model: kafka: model: min_isr = 3 outside 1..2"},
		{Pos: specs.Pos{File: specs.SetFile, Line: 3, Col: 5}, Key: "constants.rms", Problem: "must be 2..16", Got: "1"},
	}
	if got, want := Reason(list), "check[0]: cannot build the model: kafka: model: min_isr = 3 outside 1..2; constants.rms: must be 2..16 (got 1)"; got != want {
		t.Errorf("ErrorList: got %q, want %q", got, want)
	}
	err := fmt.Errorf("specs/x.toml: check buggy: build model: %w", fmt.Errorf("kafka: %w", errors.New("model: leader_change is not modelled with controllers >= 2")))
	if got, want := Reason(err), "model: leader_change is not modelled with controllers >= 2"; got != want {
		t.Errorf("wrapped: got %q, want %q", got, want)
	}
}

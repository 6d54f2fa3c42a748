package checker
import ("testing";"fmt")
func TestZZ2(t *testing.T){
	defer small()()
	m := counters{N: 3, fair: Weak}
	p := Property[cstate]{Name: "OneOneEmpties", Kind: LeadsTo,
		P: func(s *cstate) bool { return s.C[0] == 1 && s.C[1] == 1 }, Q: func(s *cstate) bool { return s.C[0] == 0 }}
	for i := 0; i < 6; i++ {
		for _, w := range []int{1,2} {
		got := Check(m, []Property[cstate]{p}, Options{Workers: w, MaxDepth: 5})
		fmt.Println(w, got.Verdict, got.Reason, got.Stats.Distinct, got.Stats.Generated)
		if got.Trace != nil { for i, s := range got.Trace.States { fmt.Println(i+1, s.Action, s.Values) }; fmt.Println("loop", got.Trace.Loop, got.Trace.BackAction, got.Trace.Stutter) }
		}
	}
}

package main

import (
	"strconv"

	"kmc/celprop"
	"kmc/checker"
)

// shown is one --show expression (TLC's ALIAS): a computed column added to each state of the
// trace kmc check prints, named show1, show2, ... (the files written keep the model's
// variables only, so that kmc replay and kmc why read them as before).
type shown struct {
	name, src string
	expr      *celprop.Expr
}

// compileShows compiles each --show expression against the trace variables vars.
func compileShows(srcs, vars []string) ([]shown, error) {
	var out []shown
	for i, src := range srcs {
		e, err := celprop.Compile(src, vars)
		if err != nil {
			return nil, err
		}
		out = append(out, shown{name: "show" + strconv.Itoa(i+1), src: src, expr: e})
	}
	return out, nil
}

// withShows is t with a variable per expression, its value in each state (a string that
// says why where it does not evaluate).
func withShows(t *checker.Trace, shows []shown) *checker.Trace {
	if len(shows) == 0 || t == nil {
		return t
	}
	c := *t
	c.Vars = append([]string(nil), t.Vars...)
	for _, s := range shows {
		c.Vars = append(c.Vars, s.name+" == "+s.src)
	}
	c.States = make([]checker.TraceState, len(t.States))
	for i, st := range t.States {
		st.Values = append([]string(nil), st.Values...)
		for _, s := range shows {
			v, err := s.expr.Eval(func(j int, buf []byte) []byte { return append(buf, t.States[i].Values[j]...) })
			if err != nil {
				st.Values = append(st.Values, string(celprop.ToITF("error: "+err.Error())))
				continue
			}
			st.Values = append(st.Values, string(celprop.ToITF(v)))
		}
		c.States[i] = st
	}
	return &c
}

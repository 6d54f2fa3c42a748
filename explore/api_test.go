package explore

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"kmc/checker"
	"kmc/specs"
	"kmc/traces"
)

// Reference: issue 29 (kmc explore). The HTTP API: the model, a state of a path with its
// enabled steps and why other kinds are not enabled, stepping and going back, searches from
// a state, counterexamples loaded from ITF; every model family alike; hostile input gets a
// 400 that says what is wrong.

func newServer(t *testing.T, path, check string, sets []string, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	spec, err := specs.Load("../"+path, sets)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	s, err := New(spec, check, opts)
	if err != nil {
		t.Fatalf("explore %s --check %s: %v", path, check, err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, ts
}

// call sends a request and decodes the JSON answer into v (when not nil); it fails the
// test unless the status is want.
func call(t *testing.T, ts *httptest.Server, method, path string, body []byte, want int, v any) []byte {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("X-Kmc-Request", "1")
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: got status %d, want %d: %s", method, cut(path, 120), resp.StatusCode, want, cut(string(data), 400))
	}
	if v != nil {
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("%s %s: %v: %s", method, cut(path, 120), err, cut(string(data), 400))
		}
	}
	return data
}

func state(t *testing.T, ts *httptest.Server, q string) stateView {
	t.Helper()
	var v stateView
	call(t, ts, "GET", "/api/state?"+q, nil, http.StatusOK, &v)
	return v
}

// Every model family kmc checks is served through the model contract alone: its initial
// state, six steps taken by clicking, the sequence chart where the model has one, and back
// to an earlier state of the path, which is the state it was.
// namedStep is step 2's label with its action's first argument named.
var namedStep = regexp.MustCompile(`<tspan[^>]*>2: [A-Za-z]+\([A-Za-z]+=`)

func TestEveryModel(t *testing.T) {
	tests := []struct {
		spec, check string
		views       bool // the model has tables (Viewer)
		actors      bool // and sequence charts (Eventer)
	}{
		{"specs/kafka-18723.toml", "buggy", true, true}, // one controller
		{"specs/kafka-5480.toml", "buggy", true, true},  // ZooKeeper, controllers >= 2
		{"specs/kafka-kraft.toml", "", true, true},      // KRaft
		{"specs/reference/leader-in-isr.toml", "", false, false},
		{"specs/vanlightly/v3-5-simple.toml", "", false, false},
		{"specs/twophase.toml", "buggy", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			spec, err := specs.Load("../"+tt.spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			check := tt.check
			if check == "" {
				check = spec.Checks[0].Name
			}
			_, ts := newServer(t, tt.spec, check, nil, Options{})
			var info modelInfo
			call(t, ts, "GET", "/api/model", nil, http.StatusOK, &info)
			if info.Model != spec.Model || len(info.Vars) == 0 || len(info.Kinds) == 0 || len(info.Properties) == 0 {
				t.Fatalf("model: got %s with %d variables, %d kinds, %d properties", info.Model, len(info.Vars), len(info.Kinds), len(info.Properties))
			}
			path := "0"
			var seen []stateView
			for step := 0; step < 7; step++ {
				v := state(t, ts, "path="+path)
				if v.At != step+1 || len(v.Path) != step+1 {
					t.Fatalf("path %s: got state %d of %d, want %d", path, v.At, len(v.Path), step+1)
				}
				if len(v.Properties) != len(info.Properties) {
					t.Errorf("path %s: got %d properties evaluated, want %d", path, len(v.Properties), len(info.Properties))
				}
				if (len(v.Views) > 0) != tt.views {
					t.Errorf("path %s: got %d views, want views %v", path, len(v.Views), tt.views)
				}
				if step > 0 && v.Path[step].Action != seen[step-1].Enabled[pick(seen[step-1], step)].Action {
					t.Errorf("path %s: state %d came by %s, want the action clicked", path, step+1, v.Path[step].Action)
				}
				seen = append(seen, v)
				if len(v.Enabled) == 0 {
					break
				}
				path += "." + strconv.Itoa(v.Enabled[pick(v, step+1)].Index)
			}
			back := state(t, ts, "path="+path+"&at=3")
			if !reflect.DeepEqual(back.Vars, seen[2].Vars) || !reflect.DeepEqual(back.Enabled, withOnPath(seen[2].Enabled, back)) {
				t.Errorf("back at state 3: got another state than the one stepped to")
			}
			if tt.actors {
				svg := call(t, ts, "GET", "/api/sequence?path="+path, nil, http.StatusOK, nil)
				if !bytes.HasPrefix(svg, []byte("<svg")) || !bytes.Contains(svg, []byte(`id="step-2"`)) {
					t.Errorf("sequence chart: got %q", cut(string(svg), 80))
				}
				// Reference: issue 28: the Kafka model names its actions' arguments.
				if spec.Family.Params != nil && !namedStep.Match(svg) {
					t.Errorf("sequence chart: step 2's action has no named arguments: %q", cut(string(svg), 400))
				}
			} else {
				call(t, ts, "GET", "/api/sequence?path="+path, nil, http.StatusBadRequest, nil)
			}
		})
	}
}

// pick is the enabled step a test takes at step n: they vary, so that paths differ.
func pick(v stateView, n int) int { return (n * 7) % len(v.Enabled) }

// withOnPath is enabled as a state reached by the end of a path shows it: the step the
// path takes next is marked.
func withOnPath(enabled []actionView, v stateView) []actionView {
	out := append([]actionView(nil), enabled...)
	for i := range out {
		out[i].OnPath = v.At < len(v.Path) && out[i].Index == v.Path[v.At].Index
	}
	return out
}

// A step shows what it changes as the text trace prints it, and the state it reaches shows
// the same changes; its properties are evaluated there.
func TestStepChanges(t *testing.T) {
	_, ts := newServer(t, "specs/twophase.toml", "buggy", nil, Options{})
	v := state(t, ts, "path=0")
	if v.Path[0].Action != "Initial predicate" || len(v.Changes) != 0 {
		t.Fatalf("initial state: got %q with changes %v", v.Path[0].Action, v.Changes)
	}
	a := v.Enabled[0]
	next := state(t, ts, "path=0."+strconv.Itoa(a.Index))
	if !reflect.DeepEqual(next.Changes, a.Changes) || len(a.Changes) == 0 {
		t.Errorf("changes of %s: got %v in the state reached, %v on the step", a.Action, next.Changes, a.Changes)
	}
	if next.Path[1].Action != a.Action {
		t.Errorf("step: got %s, want %s", next.Path[1].Action, a.Action)
	}
	changed := 0
	for _, x := range next.Vars {
		if x.Changed {
			changed++
		}
	}
	if changed == 0 {
		t.Errorf("no variable marked changed after %s", a.Action)
	}
}

// Why a kind has no step: the guard that refuses it (found by the model with the guard
// off), or the bound that cut it, or its precondition.
func TestWhyNotEnabled(t *testing.T) {
	// TwoPhase.tla's TMCommit waits for every RM to prepare: guard CommitAllPrepared.
	_, ts := newServer(t, "specs/twophase.toml", "fixed", nil, Options{})
	v := state(t, ts, "path=0")
	commit := findKind(t, v, "TMCommit")
	if commit.Enabled != 0 || len(commit.Reasons) != 1 || commit.Reasons[0].Type != "guard" ||
		commit.Reasons[0].Guard != "CommitAllPrepared" || !reflect.DeepEqual(commit.Reasons[0].Actions, []string{"TMCommit"}) {
		t.Errorf("TMCommit in the initial state: got %+v, want refused by guard CommitAllPrepared", commit)
	}
	if r := findKind(t, v, "RMRcvCommitMsg").Reasons; len(r) != 1 || r[0].Type != "precondition" {
		t.Errorf("RMRcvCommitMsg: got %+v, want its precondition", r)
	}
	// The buggy check has the guard off: TMCommit is enabled at once.
	_, ts = newServer(t, "specs/twophase.toml", "buggy", nil, Options{})
	v = state(t, ts, "path=0")
	if !slicesAny(v.Enabled, func(a actionView) bool { return a.Action == "TMCommit" }) {
		t.Errorf("buggy: TMCommit not enabled in the initial state")
	}
	// Kafka: a broker crash is a fault with budget crash = 0 in the KAFKA-18723 check.
	_, ts = newServer(t, "specs/kafka-18723.toml", "buggy", nil, Options{})
	v = state(t, ts, "path=0")
	crash := findKind(t, v, "BrokerCrash")
	if len(crash.Reasons) != 1 || crash.Reasons[0].Type != "cut" || crash.Reasons[0].Bound != "crash=0" ||
		!reflect.DeepEqual(crash.Reasons[0].Actions, []string{"BrokerCrash(1)", "BrokerCrash(2)", "BrokerCrash(3)"}) {
		t.Errorf("BrokerCrash in the initial state: got %+v, want cut by crash=0", crash)
	}
}

func findKind(t *testing.T, v stateView, kind string) kindView {
	t.Helper()
	for _, k := range v.Disabled {
		if k.Kind == kind {
			return k
		}
	}
	t.Fatalf("kind %s is not among those not enabled", kind)
	return kindView{}
}

func slicesAny[T any](xs []T, f func(T) bool) bool {
	for _, x := range xs {
		if f(x) {
			return true
		}
	}
	return false
}

// A counterexample written by kmc check loads as the path it takes, with the engine's
// verdict on it and the witness; one of another check is refused.
func TestLoadTrace(t *testing.T) {
	s, ts := newServer(t, "specs/twophase.toml", "buggy", nil, Options{})
	tr := counterexample(t, s)
	data := itfOf(t, tr, "buggy")
	var l Loaded
	call(t, ts, "POST", "/api/trace", data, http.StatusOK, &l)
	if l.States != len(tr.States) || l.Property != "TCConsistent" || len(l.Violates) != 1 || !strings.Contains(l.Violates[0].Witness, "TCConsistent is false in state 4") {
		t.Fatalf("loaded: got %+v", l)
	}
	v := state(t, ts, "path="+l.Path)
	for i, p := range v.Path[1:] {
		if p.Action != tr.States[i+1].Action {
			t.Errorf("state %d: got %s, want %s", i+2, p.Action, tr.States[i+1].Action)
		}
	}
	if len(v.Verdict) != 1 || v.Verdict[0].Property != "TCConsistent" {
		t.Errorf("verdict of the path: got %+v", v.Verdict)
	}
	if last := v.Path[len(v.Path)-1]; !reflect.DeepEqual(last.Broken, []string{"TCConsistent"}) {
		t.Errorf("last state: got broken %v, want TCConsistent", last.Broken)
	}
	if p := v.Properties[0]; p.Status != "violated" || p.Why == "" {
		t.Errorf("TCConsistent in the last state: got %+v, want violated with the model's explanation", p)
	}

	// The trace of another check is refused with the command that explores it.
	other := bytes.Replace(data, []byte(`"kmc::check": "buggy"`), []byte(`"kmc::check": "fixed"`), 1)
	var e struct{ Error string }
	call(t, ts, "POST", "/api/trace", other, http.StatusBadRequest, &e)
	if !strings.Contains(e.Error, "--check fixed") {
		t.Errorf("trace of another check: got %q", e.Error)
	}
}

// itfOf is tr as an ITF file of check.
func itfOf(t *testing.T, tr *checker.Trace, check string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := traces.WriteITF(&buf, tr, traces.ITFOptions{Check: check}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// counterexample is the check's counterexample, from the engine.
func counterexample(t *testing.T, s *Server) *checker.Trace {
	t.Helper()
	r, opts, err := s.spec.Runnable(s.check)
	if err != nil {
		t.Fatal(err)
	}
	opts.Workers = 1
	res := r.Check(opts)
	if res.Trace == nil {
		t.Fatalf("check %s: got %s, want a counterexample", s.check.Name, res.Verdict)
	}
	return res.Trace
}

// The search from a state finds the shortest path to a violation (the engine's: the seed's
// 4 states of two-phase commit from the initial state) and to a state where a predicate
// holds; an unknown property, a bad predicate and a search while another runs are refused.
func TestSearch(t *testing.T) {
	s, ts := newServer(t, "specs/twophase.toml", "buggy", nil, Options{})
	var a SearchAnswer
	body, _ := json.Marshal(SearchRequest{Path: "0", Property: "TCConsistent"})
	call(t, ts, "POST", "/api/search", body, http.StatusOK, &a)
	if !a.Found || a.At != 4 || !strings.Contains(a.Witness, "TCConsistent is false in state 4") {
		t.Fatalf("search for TCConsistent: got %+v", a)
	}
	v := state(t, ts, "path="+a.Path)
	if v.Properties[0].Status != "violated" {
		t.Errorf("the state found: TCConsistent is %s, want violated", v.Properties[0].Status)
	}
	// From the middle of a path: the path kept up to there, the rest the search's.
	mid := strings.Join(strings.Split(a.Path, ".")[:2], ".")
	body, _ = json.Marshal(SearchRequest{Path: a.Path, At: 2, Predicate: `rmState["rm3"] == "committed" && rmState["rm1"] == "prepared"`})
	a = SearchAnswer{}
	call(t, ts, "POST", "/api/search", body, http.StatusOK, &a)
	if !a.Found || !strings.HasPrefix(a.Path, mid+".") || a.At != 4 {
		t.Fatalf("search for a predicate from state 2: got %+v, want found at state 4", a)
	}
	v = state(t, ts, "path="+a.Path)
	for _, x := range v.Vars {
		if x.Name == "rmState" && !strings.Contains(x.Value, `"rm3" :> "committed"`) {
			t.Errorf("the state found: rmState = %s, want rm3 committed", x.Value)
		}
	}
	// A predicate that never holds: the whole graph, none found (the fixed check's 288
	// states, as TLC counts them).
	_, fixed := newServer(t, "specs/twophase.toml", "fixed", nil, Options{})
	body, _ = json.Marshal(SearchRequest{Path: "0", Predicate: `tmState == "nonsense"`})
	a = SearchAnswer{}
	call(t, fixed, "POST", "/api/search", body, http.StatusOK, &a)
	if a.Found || a.Verdict != "ok" || a.Distinct != 288 {
		t.Errorf("search for nothing: got %+v, want none in the 288 states", a)
	}

	for _, bad := range []struct{ body, want string }{
		{`{"path":"0","property":"Nope"}`, `no property "Nope"`},
		{`{"path":"0","predicate":"tmStat == 1"}`, `column 1: unknown variable "tmStat"; did you mean "tmState"?`},
		{`{"path":"0","predicate":"tmState =="}`, "column 11"},
		{`{"path":"0"}`, "want a property or a predicate"},
		{`{"path":"0","property":"TCConsistent","at":9}`, "at: the path has no state 9"},
		{`{"path":"0","nonsense":1}`, "unknown field"},
		{`{"path":"0.99","property":"TCConsistent"}`, "state 1 has no successor 99"},
	} {
		var e struct{ Error string }
		call(t, ts, "POST", "/api/search", []byte(bad.body), http.StatusBadRequest, &e)
		if !strings.Contains(e.Error, bad.want) {
			t.Errorf("search %s: got %q, want it to say %q", bad.body, e.Error, bad.want)
		}
	}
	s.busy.Lock()
	body, _ = json.Marshal(SearchRequest{Path: "0", Property: "TCConsistent"})
	call(t, ts, "POST", "/api/search", body, http.StatusConflict, nil)
	s.busy.Unlock()
}

// Hostile input: malformed, unknown and huge paths, bad lassos, malformed traces, wrong
// methods; each gets a clear 400 (or 405, 413) and the server goes on serving.
func TestHostileInput(t *testing.T) {
	_, ts := newServer(t, "specs/twophase.toml", "buggy", nil, Options{})
	huge := strings.Repeat("0.", MaxPathSteps+5) + "0"
	long := "0" + strings.Repeat(".0", MaxPathSteps)
	for _, tt := range []struct{ q, want string }{
		{"path=abc", `path: element 1: "abc" is not a successor index`},
		{"path=0.-1", `element 2: "-1" is not`},
		{"path=0..1", `element 2: "" is not`},
		{"path=0.1e9", `element 2: "1e9" is not`},
		{"path=0.0001", `element 2: "0001" is not`},
		{"path=0.99999999999999999999", "is not a successor index"},
		{"path=7", "no initial state 7 (the model has 1)"},
		{"path=0.999", "element 2: state 1 has no successor 999"},
		{"path=" + huge, "path: too long"},
		{"path=" + strings.Repeat("1", MaxPathBytes+1), "path: too long"},
		{"path=0&at=5", "at: want a state of the path, 1..1"},
		{"path=0&at=x", "at: want a state of the path"},
		{"path=0&back=1", "back: want STATE.SUCCESSOR"},
		{"path=0&back=3.0", "back: the path has no state 3"},
		{"path=0&back=1.99", "back: the last state has no successor 99"},
		{"path=0&back=1.0", "back: successor 0 (TMCommit) of the last state is not state 1"},
		{"path=0&back=1.0&stutter=1", "cannot both go back and stutter"},
		{"path=0&stutter=yes", "stutter: want 1"},
	} {
		var e struct{ Error string }
		call(t, ts, "GET", "/api/state?"+tt.q, nil, http.StatusBadRequest, &e)
		if !strings.Contains(e.Error, tt.want) {
			t.Errorf("state?%s: got %q, want it to say %q", cut(tt.q, 40), e.Error, tt.want)
		}
	}
	for _, tt := range []struct{ body, want string }{
		{``, "trace:"},
		{`{`, "trace:"},
		{`[]`, "trace:"},
		{`{"vars":["x"],"states":[{"x":1}]}`, "variables"},
		{`{"vars":["rmState","tmState","tmPrepared","msgs"],"states":[]}`, "trace:"},
		{`{"vars":["rmState","tmState","tmPrepared","msgs"],"states":[{"rmState":1,"tmState":2,"tmPrepared":3,"msgs":4}]}`, "state 1 is no initial state"},
	} {
		var e struct{ Error string }
		call(t, ts, "POST", "/api/trace", []byte(tt.body), http.StatusBadRequest, &e)
		if !strings.Contains(e.Error, tt.want) {
			t.Errorf("trace %q: got %q, want it to say %q", tt.body, e.Error, tt.want)
		}
	}
	// The longest path allowed is served: RMRcvCommitMsg(1) loops in two-phase commit.
	if v := state(t, ts, "path="+long+"&at=2"); len(v.Path) != MaxPathSteps+1 {
		t.Errorf("the longest path: got %d states, want %d", len(v.Path), MaxPathSteps+1)
	}
	call(t, ts, "POST", "/api/trace", bytes.Repeat([]byte(" "), MaxTraceBytes+1), http.StatusRequestEntityTooLarge, nil)
	call(t, ts, "POST", "/api/state?path=0", nil, http.StatusMethodNotAllowed, nil)
	call(t, ts, "GET", "/api/trace", nil, http.StatusMethodNotAllowed, nil)
	call(t, ts, "GET", "/nonsense", nil, http.StatusNotFound, nil)
	// A POST without the page's header (a form on another site) does nothing.
	resp, err := http.Post(ts.URL+"/api/search", "text/plain", strings.NewReader(`{"path":"0","property":"TCConsistent"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("POST without X-Kmc-Request: got %d, want 403", resp.StatusCode)
	}
	state(t, ts, "path=0") // still serving
}

// With a token every request needs it; on loopback a Host that is not loopback (a DNS
// name rebound to this machine) is refused; the page loads nothing from elsewhere.
func TestTokenAndHost(t *testing.T) {
	_, ts := newServer(t, "specs/twophase.toml", "buggy", nil, Options{Token: "s3cret", Loopback: true})
	for _, tt := range []struct {
		path   string
		header map[string]string
		host   string
		want   int
	}{
		{"/", nil, "", http.StatusForbidden},
		{"/api/state?path=0", nil, "", http.StatusForbidden},
		{"/api/state?path=0&token=wrong", nil, "", http.StatusForbidden},
		{"/api/state?path=0&token=s3cret", nil, "", http.StatusOK},
		{"/api/model", map[string]string{"X-Kmc-Token": "s3cret"}, "", http.StatusOK},
		{"/?token=s3cret", nil, "", http.StatusOK},
		{"/?token=s3cret", nil, "evil.example:80", http.StatusForbidden},
		{"/?token=s3cret", nil, "localhost:80", http.StatusOK},
		{"/?token=s3cret", nil, "[::1]:80", http.StatusOK},
	} {
		req, _ := http.NewRequest("GET", ts.URL+tt.path, nil)
		for k, v := range tt.header {
			req.Header.Set(k, v)
		}
		if tt.host != "" {
			req.Host = tt.host
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("GET %s (host %q): got %d, want %d", tt.path, tt.host, resp.StatusCode, tt.want)
		}
		if tt.path == "/?token=s3cret" && resp.StatusCode == http.StatusOK {
			csp := resp.Header.Get("Content-Security-Policy")
			if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "connect-src 'self'") {
				t.Errorf("page: got Content-Security-Policy %q", csp)
			}
			for _, bad := range []string{"http://", "https://", "<link ", " src="} {
				if bytes.Contains(page, []byte(bad)) {
					t.Errorf("page: got %q, want everything inline", bad)
				}
			}
			if !bytes.Contains(page, []byte("function viewTable(t)")) {
				t.Errorf("page: traces' view tables are not inlined")
			}
		}
	}
}

// A path may close a lasso: the back step must lead to the state it names.
func TestLasso(t *testing.T) {
	s, ts := newServer(t, "specs/twophase.toml", "fixed", nil, Options{})
	// TwoPhase has no cycle; the state a step leads back to must be that state, so a back
	// step to the state itself is refused unless the model has a self-loop.
	v := state(t, ts, "path=0")
	k := v.Enabled[0].Index
	var e struct{ Error string }
	call(t, ts, "GET", "/api/state?path=0&back=1."+strconv.Itoa(k), nil, http.StatusBadRequest, &e)
	if !strings.Contains(e.Error, "is not state 1") {
		t.Errorf("a back step to another state: got %q", e.Error)
	}
	v = state(t, ts, "path=0&stutter=1")
	if v.Lasso == nil || !v.Lasso.Stutter {
		t.Errorf("stutter: got lasso %+v", v.Lasso)
	}
	_ = s
}

func TestPredicates(t *testing.T) {
	vars := []string{"x", "m", "r", "s"}
	values := []string{`{"#bigint":"3"}`, `{"#map":[["b1",{"#bigint":"1"}],["b2",{"#bigint":"5"}]]}`,
		`{"isr":{"#set":["b1","b2"]},"log":[{"epoch":{"#bigint":"1"}},{"epoch":{"#bigint":"2"}}],"ok":true}`, `"hello"`}
	value := func(v int) []byte { return []byte(values[v]) }
	for _, tt := range []struct {
		src  string
		want bool
	}{
		{"x == 3", true},
		{"x != 3", false},
		{"x >= 3 && x < 4", true},
		{`m["b2"] > m["b1"]`, true},
		{`m["b3"] == 0`, false}, // no such key: the clause is false
		{`r.isr contains "b2"`, true},
		{`r.log[2].epoch == 2`, true},
		{`r.log[3].epoch == 2`, false},
		{`len(r.log) == 2`, true},
		{`len(m) == 2 && r.ok`, true},
		{`r.ok == true`, true},
		{`s contains "ell"`, true},
		{`s == "hello"`, true},
		{`m contains "b1"`, true},
		{`x == -3`, false},
	} {
		f, err := ParsePredicate(tt.src, vars)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if got := f(value); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.src, got, tt.want)
		}
	}
	for _, tt := range []struct{ src, want string }{
		{"", "column 1: want a variable"},
		{"y == 1", `column 1: unknown variable "y"`},
		{"x = 1", `column 3: want a comparison`},
		{"x == ", "column 6: want a variable"},
		{`x == "abc`, "column 6: string not closed"},
		{"x == 1 ||  x == 2", `column 8: want && or the end (got "|")`},
		{"len(3) == 1", "len takes a variable"},
		{"m[x] == 1", "a selector takes a number or a string"},
		{strings.Repeat("x", MaxPredicateBytes+1), "too long"},
	} {
		_, err := ParsePredicate(tt.src, vars)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want an error saying %q", tt.src, err, tt.want)
		}
	}
}

func FuzzParsePredicate(f *testing.F) {
	for _, s := range []string{`hw["b2"] >= 1 && len(messages) == 0`, `log["b1"][2].epoch == 2`, `x contains "a"`, `len(`, `"`} {
		f.Add(s)
	}
	vars := []string{"hw", "messages", "log", "x"}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := ParsePredicate(src, vars)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "predicate: ") {
				t.Errorf("%q: error %q names no position", src, err)
			}
			return
		}
		p(func(v int) []byte { return []byte(`{"#map":[["b1",[{"epoch":{"#bigint":"1"}}]]]}`) })
	})
}

func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"0", "0.3.1.5", "", "0..1", "-1", "0.0001"} {
		f.Add(s, "1.2", "")
	}
	f.Fuzz(func(t *testing.T, path, back, stutter string) {
		p, err := parsePath(path, back, stutter)
		if err != nil {
			return
		}
		if len(p.Steps) == 0 || len(p.Steps) > MaxPathSteps+1 || (p.Loop >= 0) != (p.Back >= 0) || (p.Stutter && p.Loop >= 0) {
			t.Errorf("parsePath(%q, %q, %q) = %+v: invariants broken", path, back, stutter, p)
		}
		for _, k := range p.Steps {
			if k < 0 {
				t.Errorf("parsePath(%q): negative index", path)
			}
		}
		if q := url.QueryEscape(p.String()); path != "" && p.String() != path {
			t.Errorf("parsePath(%q).String() = %q", path, q)
		}
	})
}

// The search for a liveness violation from the initial state finds the check's own
// counterexample: a lasso of the spec's pinned length (KAFKA-14154: 12 states, stuttering
// in the last), which the page then shows as a lasso the engine judges violated.
// Reference: KAFKA-14154.
func TestSearchLiveness(t *testing.T) {
	s, ts := newServer(t, "specs/kafka-14154.toml", "buggy", nil, Options{})
	var a SearchAnswer
	body, _ := json.Marshal(SearchRequest{Path: "0", Property: "NoStuckAlterPartition"})
	call(t, ts, "POST", "/api/search", body, http.StatusOK, &a)
	if !a.Found || a.At != s.check.Depth || !a.Stutter || !strings.Contains(a.Witness, "No fair step that changes the state is enabled") {
		t.Fatalf("search for NoStuckAlterPartition: got %+v, want a lasso of %d states that stutters", a, s.check.Depth)
	}
	v := state(t, ts, "path="+a.Path+"&stutter=1")
	if v.Lasso == nil || !v.Lasso.Stutter || len(v.Verdict) == 0 || v.Verdict[0].Property != "NoStuckAlterPartition" {
		t.Errorf("the lasso found: got lasso %+v, verdict %+v", v.Lasso, v.Verdict)
	}
	// Without the lasso the path is only a prefix: no liveness verdict.
	if v := state(t, ts, "path="+a.Path); len(v.Verdict) != 0 {
		t.Errorf("the path without its lasso: got verdict %+v, want none", v.Verdict)
	}
}

// KAFKA-18723's counterexample loads as a path; along it the guard FetchDivergence shapes
// the leader's answer to a fetch whose last fetched epoch ends elsewhere in its log (turned
// off, the leader would send records instead of the diverging epoch), and the page tags
// that step with it. Reference: KAFKA-18723, KIP-320.
func TestKafkaTraceAndGuards(t *testing.T) {
	s, ts := newServer(t, "specs/kafka-18723.toml", "buggy", nil, Options{})
	tr := counterexample(t, s)
	data := itfOf(t, tr, "buggy")
	var l Loaded
	call(t, ts, "POST", "/api/trace", data, http.StatusOK, &l)
	if l.States != 34 || len(l.Violates) != 1 || l.Violates[0].Property != "NoPermanentDivergence" {
		t.Fatalf("loaded: got %d states violating %+v, want 34 violating NoPermanentDivergence", l.States, l.Violates)
	}
	shaped := ""
	for at := 1; at <= l.States && shaped == ""; at++ {
		v := state(t, ts, "path="+l.Path+"&at="+strconv.Itoa(at))
		for _, a := range v.Enabled {
			if a.Kind == "LeaderHandleFetch" && slicesAny(a.Guards, func(g string) bool { return g == "FetchDivergence" }) {
				shaped = a.Action
			}
		}
	}
	if shaped == "" {
		t.Errorf("no LeaderHandleFetch along the counterexample is tagged with the guard FetchDivergence")
	}
}

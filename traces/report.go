package traces

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strings"
	"time"

	"kmc/checker"
)

// ReportInfo is what the HTML report says around the trace: where it comes from and the
// search's verdict and statistics.
type ReportInfo struct {
	Title    string          // e.g. "specs/kafka-18723.toml, check buggy"; "" for a default
	Spec     string          // spec file
	Check    string          // check name
	Verdict  checker.Verdict // ok, violated, incomplete
	Property string          // violated property; defaults to Trace.Property
	Reason   string
	Stats    *checker.Stats // nil when unknown (a trace rendered from a file)
	Command  string         // command line to reproduce, shown verbatim
	// Chart names the actions' arguments and the views the properties read, for the
	// sequence chart and the steps (WriteAll sets it from its WriteOptions).
	Chart SequenceOptions
}

type reportStep struct {
	N       int         `json:"n"`
	Action  string      `json:"action"`
	Changes []string    `json:"changes"`
	Vars    []reportVar `json:"vars"`
	Views   []Table     `json:"views,omitempty"`
}

type reportVar struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Changed bool   `json:"changed"`
}

type reportStat struct{ Name, Value string }

type reportData struct {
	Title, Verdict, Property, Reason, Spec, Check, Command, Witness string
	Stats                                                           []reportStat
	Sequence                                                        template.HTML
	Text                                                            string
	Data                                                            template.JS
	ViewCSS                                                         template.CSS
	ViewJS                                                          template.JS
	ErrorJS                                                         template.JS
	Steps, Start                                                    int
	HasEvents                                                       bool
	Ending                                                          string
}

// HTML writes a self-contained report page (inline CSS, JavaScript and SVG; nothing
// fetched): the verdict and why, a step-by-step view of the states (slider, buttons, arrow
// keys) that shows each state's views, what changed and, folded, every variable; the
// message sequence chart, whose steps select the state shown and whose decisive step is
// the one shown first; the statistics and the trace as text. The page is as wide as the
// window: tables wider than it scroll, none is cut.
func HTML(w io.Writer, t *checker.Trace, info ReportInfo) error {
	if err := validTrace(t); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	var seq, text bytes.Buffer
	if err := SequenceSVGWith(&seq, t, info.Chart); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	if err := Text(&text, t, TextOptions{}); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	steps := make([]reportStep, len(t.States))
	var err error
	for i, s := range t.States {
		st := reportStep{N: i + 1, Action: NamedAction(s.Action, s.Kind, info.Chart.Params), Changes: []string{}}
		for _, c := range stateChanges(t, i) {
			st.Changes = append(st.Changes, c.String())
		}
		if i == 0 {
			st.Action = "Initial predicate"
		}
		for v, name := range t.Vars {
			st.Vars = append(st.Vars, reportVar{Name: name, Value: Format(s.Values[v]), Changed: i > 0 && changed(t, i, v)})
		}
		if st.Views, err = ParseViews(s.Views); err != nil {
			return fmt.Errorf("html: state %d: %w", i+1, err)
		}
		steps[i] = st
	}
	data, err := json.Marshal(steps) // escapes <, > and & for the script element; views too
	if err != nil {
		return fmt.Errorf("html: %w", err)
	}
	data = escapeJSON(data)
	d := reportData{
		Title: info.Title, Verdict: string(info.Verdict), Property: info.Property, Reason: info.Reason, Witness: t.Witness,
		Spec: info.Spec, Check: info.Check, Command: info.Command,
		Sequence: template.HTML(stripProlog(seq.String())),
		Text:     text.String(),
		Data:     template.JS(data),
		Steps:    len(t.States),
		Start:    len(t.States),
		ViewCSS:  template.CSS(ViewTableCSS),
		ViewJS:   template.JS(ViewTableJS),
		ErrorJS:  template.JS(PageErrorJS),
	}
	if k, _ := Decisive(t); k >= 0 {
		d.Start = k + 1
	}
	for _, s := range t.States {
		d.HasEvents = d.HasEvents || (s.Events != "" && s.Events != "[]")
	}
	if d.Property == "" {
		d.Property = t.Property
	}
	if d.Verdict == "" {
		d.Verdict = string(checker.Violated)
	}
	if d.Title == "" {
		d.Title = "kmc counterexample"
		if d.Property != "" {
			d.Title += ": " + d.Property
		}
	}
	switch {
	case t.Loop >= 0:
		d.Ending = fmt.Sprintf("After state %d the behaviour goes back to state %d by %s and repeats forever.", len(t.States), t.Loop+1, t.BackAction)
	case t.Stutter:
		d.Ending = fmt.Sprintf("After state %d the behaviour stutters forever.", len(t.States))
	}
	if s := info.Stats; s != nil {
		d.Stats = []reportStat{
			{"states generated", fmt.Sprint(s.Generated)},
			{"distinct states found", fmt.Sprint(s.Distinct)},
			{"states left on queue", fmt.Sprint(s.Queue)},
			{"depth of the state graph search", fmt.Sprint(s.Depth)},
			{"fingerprint collision probability (optimistic)", fmt.Sprintf("%.2g", s.Collision)},
			{"time", s.Elapsed.Round(time.Millisecond).String()},
			{"workers", fmt.Sprint(s.Workers)},
		}
	}
	// The page's text from the trace and the caller, with hidden characters as visible
	// escapes: html/template escapes markup, not control characters, which XML forbids.
	for _, s := range []*string{&d.Title, &d.Verdict, &d.Property, &d.Reason, &d.Spec, &d.Check, &d.Command, &d.Witness, &d.Text, &d.Ending} {
		*s = visible(*s, true)
	}
	for i := range d.Stats {
		d.Stats[i].Value = Visible(d.Stats[i].Value)
	}
	if err := reportTemplate.Execute(w, d); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	return nil
}

var prolog = regexp.MustCompile(`(?s)^\s*(<\?xml.*?\?>\s*)?(<!DOCTYPE.*?>\s*)?`)

// stripProlog removes the XML declaration and doctype so that an SVG can be inlined.
func stripProlog(svg string) string {
	return strings.TrimSpace(prolog.ReplaceAllString(svg, ""))
}

var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font-family: Helvetica, Arial, sans-serif; margin: 0; color: #111; background: #fafafa; }
header { background: #fff; border-bottom: 1px solid #ddd; padding: 14px 24px; }
h1 { font-size: 20px; margin: 0 0 6px 0; }
h2 { font-size: 16px; margin: 0 0 10px 0; }
.verdict { display: inline-block; padding: 2px 10px; border-radius: 10px; color: #fff; font-weight: bold; }
.verdict.violated { background: #d62728; } .verdict.ok { background: #2ca02c; } .verdict.incomplete { background: #ff7f0e; }
main { padding: 16px 24px; display: grid; gap: 16px; grid-template-columns: minmax(0, 1fr); }
section { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 14px; overflow: auto; }
table { border-collapse: collapse; font-size: 13px; }
td, th { border-bottom: 1px solid #eee; padding: 4px 10px; text-align: left; vertical-align: top; }
td.value { font-family: Menlo, Consolas, monospace; white-space: pre-wrap; word-break: break-all; }
tr.changed td { background: #fff3cd; }
tr.changed td.name::after { content: " \2022"; color: #d62728; }
.controls { display: flex; align-items: center; gap: 10px; margin-bottom: 10px; }
.controls input[type=range] { flex: 1; }
#steps { position: sticky; top: 0; z-index: 1; max-height: 55vh; box-shadow: 0 2px 6px rgba(0,0,0,0.08); }
#views { display: flex; flex-wrap: wrap; gap: 4px 28px; align-items: flex-start; }
#sequence g.step { cursor: pointer; }
#changes { font-family: Menlo, Consolas, monospace; font-size: 12px; background: #fff3cd; margin: 6px 0 10px 0; padding: 6px 6px 6px 24px; }
#changes:empty { display: none; }
#step-title { font-weight: bold; font-size: 15px; margin: 6px 0; }
#sequence g.step.current rect:first-child { fill: #fff3cd; }
pre { font-size: 12px; background: #f6f7f9; padding: 10px; overflow: auto; }
{{.ViewCSS}}
.witness { margin-top: 8px; padding: 8px 12px; background: #fdecea; border-left: 4px solid #d62728; font-size: 14px; line-height: 1.4; max-width: 1100px; }
#js-error { display: none; background: #d62728; color: #fff; padding: 8px; }
.muted { color: #666; font-size: 13px; }
</style>
</head>
<body>
<div id="js-error"></div>
<header>
<h1>{{.Title}}</h1>
<div><span class="verdict {{.Verdict}}">{{.Verdict}}</span>
{{if .Property}} property <b>{{.Property}}</b>{{end}}
{{if .Reason}} <span class="muted">({{.Reason}})</span>{{end}}</div>
<div class="muted">{{if .Spec}}spec {{.Spec}}{{end}}{{if .Check}}, check {{.Check}}{{end}} &middot; {{.Steps}} states{{if .Ending}} &middot; {{.Ending}}{{end}}</div>
{{if .Command}}<div class="muted">reproduce: <code>{{.Command}}</code></div>{{end}}
{{if .Witness}}<div id="witness" class="witness"><b>Why:</b> {{.Witness}}</div>{{end}}
</header>
<main>
<section id="steps">
<div class="controls">
<button id="prev" type="button" title="previous state (left arrow)">&larr;</button>
<input id="slider" type="range" min="1" max="{{.Steps}}" value="{{.Start}}" aria-label="state">
<button id="next" type="button" title="next state (right arrow)">&rarr;</button>
<span id="position" class="muted"></span>
</div>
<div id="step-title"></div>
<ul id="changes"></ul>
<div id="views"></div>
<details id="variables"><summary>every variable (changed ones highlighted)</summary>
<table id="state-table"><thead><tr><th>variable</th><th>value</th></tr></thead><tbody></tbody></table>
</details>
<p class="muted">Click a step of the chart below to show its state. Keys: &larr; &rarr; step, Home/End first/last; link to a state with #step=N.</p>
</section>
<section id="sequence"><h2>Message sequence chart</h2>
{{if .HasEvents}}{{.Sequence}}{{else}}<p class="muted">The model describes no messages between actors for this trace.</p>{{end}}
</section>
{{if .Stats}}<section id="stats"><h2>Statistics</h2><table>
{{range .Stats}}<tr><td>{{.Name}}</td><td>{{.Value}}</td></tr>
{{end}}</table></section>{{end}}
<section id="text"><h2>Trace (TLC style)</h2>
<details><summary>show</summary><pre>{{.Text}}</pre></details>
</section>
</main>
<script id="trace-data" type="application/json">{{.Data}}</script>
<script>
{{.ErrorJS}}
(function () {
  var steps = JSON.parse(document.getElementById("trace-data").textContent);
  var slider = document.getElementById("slider");
  var tbody = document.querySelector("#state-table tbody");
  var title = document.getElementById("step-title");
  var position = document.getElementById("position");
  var bands = {};
  document.querySelectorAll("#sequence g.step").forEach(function (g) {
    var k = parseInt(g.id.slice(5), 10);
    if (k >= 1 && k <= steps.length) {
      bands[k] = g;
      g.addEventListener("click", function () { show(k); });
    }
  });
{{.ViewJS}}
  function show(k, scroll) {
    k = Math.max(1, Math.min(steps.length, k));
    slider.value = String(k);
    var s = steps[k - 1];
    title.textContent = "State " + s.n + ": <" + s.action + ">";
    position.textContent = k + " / " + steps.length;
    var ul = document.getElementById("changes");
    ul.textContent = "";
    s.changes.forEach(function (c) {
      var li = document.createElement("li"); li.textContent = c; ul.appendChild(li);
    });
    var views = document.getElementById("views");
    views.textContent = "";
    (s.views || []).forEach(function (t) { views.appendChild(viewTable(t)); });
    tbody.textContent = "";
    s.vars.forEach(function (v) {
      var tr = document.createElement("tr");
      if (v.changed) { tr.className = "changed"; }
      var a = document.createElement("td"); a.className = "name"; a.textContent = v.name;
      var b = document.createElement("td"); b.className = "value"; b.textContent = v.value;
      tr.appendChild(a); tr.appendChild(b); tbody.appendChild(tr);
    });
    document.querySelectorAll("#sequence g.step").forEach(function (g) {
      g.classList.toggle("current", g.id === "step-" + k);
    });
    if (scroll && bands[k]) { bands[k].scrollIntoView({block: "nearest"}); }
    document.body.setAttribute("data-step", String(k));
  }
  slider.addEventListener("input", function () { show(parseInt(slider.value, 10), true); });
  document.getElementById("prev").addEventListener("click", function () { show(parseInt(slider.value, 10) - 1, true); });
  document.getElementById("next").addEventListener("click", function () { show(parseInt(slider.value, 10) + 1, true); });
  document.addEventListener("keydown", function (e) {
    var k = parseInt(slider.value, 10);
    if (e.key === "ArrowRight" || e.key === "ArrowDown") { show(k + 1, true); e.preventDefault(); }
    else if (e.key === "ArrowLeft" || e.key === "ArrowUp") { show(k - 1, true); e.preventDefault(); }
    else if (e.key === "Home") { show(1, true); } else if (e.key === "End") { show(steps.length, true); }
  });
  function fromHash() {
    var m = /step=(\d+)/.exec(window.location.hash);
    return m ? parseInt(m[1], 10) : {{.Start}};
  }
  window.addEventListener("hashchange", function () { show(fromHash(), true); });
  show(fromHash());
  document.body.setAttribute("data-rendered", String(steps.length));
})();
</script>
</body>
</html>
`))

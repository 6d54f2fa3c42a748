// kmc explore's page. The state shown is named by the URL's fragment:
// #path=0.3.1&at=2&back=L.K&stutter=1 (see explore/path.go); every change of state is a
// change of the fragment, so the browser's back button, a reload and a copied link all
// restore it. The server is asked for everything (/api/...); the page keeps nothing else.
(function () {
  "use strict";
  var token = new URLSearchParams(window.location.search).get("token") || "";
  var model = null;   // /api/model
  var view = null;    // /api/state of the current fragment
  var loc = {};       // the fragment's parameters
  var seq = 0;        // the answer to the latest request wins
  var $ = function (id) { return document.getElementById(id); };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }

  function api(path, opts) {
    opts = opts || {};
    opts.headers = opts.headers || {};
    if (token) { opts.headers["X-Kmc-Token"] = token; }
    if (opts.method === "POST") { opts.headers["X-Kmc-Request"] = "1"; }
    return fetch(path, opts).then(function (r) {
      var type = r.headers.get("Content-Type") || "";
      var body = type.indexOf("application/json") === 0 ? r.json() : r.text();
      return body.then(function (b) {
        if (!r.ok) { throw new Error((b && b.error) || ("HTTP " + r.status)); }
        return b;
      });
    });
  }

  function showError(err) {
    var e = $("error");
    if (!err) { e.style.display = "none"; e.textContent = ""; return; }
    e.style.display = "block";
    e.textContent = String(err.message || err);
  }

  function parseHash() {
    var q = new URLSearchParams(window.location.hash.replace(/^#/, ""));
    return { path: q.get("path") || "0", at: q.get("at") || "", back: q.get("back") || "", stutter: q.get("stutter") || "" };
  }

  function query(l) {
    var q = new URLSearchParams();
    q.set("path", l.path);
    if (l.at) { q.set("at", l.at); }
    if (l.back) { q.set("back", l.back); }
    if (l.stutter) { q.set("stutter", l.stutter); }
    return q.toString();
  }

  function go(l) {
    var h = "#" + query(l);
    if (h === window.location.hash) { load(); return; }
    window.location.hash = h;
  }

  function pathSteps() { return loc.path.split("."); }

  // moveTo shows state n (1-based) of the current path.
  function moveTo(n) {
    if (!view) { return; }
    n = Math.max(1, Math.min(view.path.length, n));
    go({ path: loc.path, at: String(n), back: loc.back, stutter: loc.stutter });
  }

  // take takes the enabled step with successor index k from the current state: the path
  // goes on along its next step when that is the one, and is cut there otherwise.
  function take(k) {
    var steps = pathSteps();
    var at = view.at;
    if (at < steps.length && steps[at] === String(k)) {
      go({ path: loc.path, at: String(at + 1), back: loc.back, stutter: loc.stutter });
      return;
    }
    steps = steps.slice(0, at);
    steps.push(String(k));
    go({ path: steps.join("."), at: String(steps.length) });
  }

  function load() {
    loc = parseHash();
    var mine = ++seq;
    document.body.setAttribute("data-loading", "1");
    api("/api/state?" + query(loc)).then(function (v) {
      if (mine !== seq) { return; }
      view = v;
      showError(null);
      render();
      document.body.setAttribute("data-loading", "0");
      loadSequence(mine);
    }).catch(function (err) {
      if (mine !== seq) { return; }
      showError(err);
      document.body.setAttribute("data-loading", "0");
      document.body.setAttribute("data-error", String(err.message || err));
    });
  }

  function loadSequence(mine) {
    var box = $("sequence");
    if (!model.actors || model.actors.length === 0) {
      $("sequence-panel").style.display = "none";
      return;
    }
    api("/api/sequence?" + query({ path: loc.path, at: String(view.at), back: loc.back, stutter: loc.stutter })).then(function (svg) {
      if (mine !== seq) { return; }
      box.innerHTML = svg;
      var cur = box.querySelector("g#step-" + view.at);
      if (cur) { cur.classList.add("current"); }
      box.scrollTop = box.scrollHeight; // the chart ends at the current state (and a lasso's back step)
    }).catch(function (err) {
      if (mine !== seq) { return; }
      box.textContent = String(err.message || err);
    });
  }

  function render() {
    var v = view;
    document.body.setAttribute("data-at", String(v.at));
    document.body.setAttribute("data-path-len", String(v.path.length));
    var cur = v.path[v.at - 1];
    $("state-title").textContent = "State " + v.at + ": <" + cur.action + ">";
    $("position").textContent = "state " + v.at + " / " + v.path.length;
    $("first").disabled = $("back").disabled = v.at <= 1;
    $("last").disabled = $("forward").disabled = v.at >= v.path.length;
    document.title = "kmc explore: state " + v.at + " " + cur.action;

    var ol = $("path");
    ol.textContent = "";
    v.path.forEach(function (p) {
      var li = el("li");
      li.setAttribute("data-n", String(p.n));
      li.setAttribute("data-action", p.action);
      li.title = p.action + (p.broken ? " (breaks " + p.broken.join(", ") + ")" : "");
      li.appendChild(el("span", "n", String(p.n)));
      li.appendChild(el("span", "a", p.action));
      if (p.n === v.at) { li.classList.add("current"); }
      if (p.n > v.at) { li.classList.add("after"); }
      if (p.broken) { li.classList.add("broken"); }
      if (v.lasso && v.lasso.loop === p.n) { li.classList.add("loop-start"); }
      li.addEventListener("click", function () { moveTo(p.n); });
      ol.appendChild(li);
    });
    // Keep the current entry in view inside the path's panel, without scrolling the page.
    var curLi = ol.querySelector("li.current"), panel = $("path-panel");
    if (curLi) {
      var r = curLi.getBoundingClientRect(), pr = panel.getBoundingClientRect();
      if (r.top < pr.top || r.bottom > pr.bottom) { panel.scrollTop += r.top - pr.top - pr.height / 2; }
    }
    var lasso = $("lasso");
    lasso.textContent = "";
    if (v.lasso && v.lasso.stutter) {
      lasso.textContent = "\u21BA after state " + v.path.length + " the behaviour stutters forever";
    } else if (v.lasso) {
      lasso.textContent = "\u21BA back to state " + v.lasso.loop + " by " + v.lasso.action + ", and the loop repeats forever";
    }

    var verdict = $("verdict");
    verdict.textContent = "";
    v.verdict.forEach(function (x) {
      var d = el("div", "violation");
      d.appendChild(el("b", "", "The path violates " + x.property + ". "));
      d.appendChild(document.createTextNode(x.witness));
      verdict.appendChild(d);
    });

    var ch = $("changes");
    ch.textContent = "";
    v.changes.forEach(function (c) { ch.appendChild(el("li", "", c)); });
    if (v.at > 1 && v.changes.length === 0) { ch.appendChild(el("li", "", "(no variable changed)")); }

    var views = $("views");
    views.textContent = "";
    v.views.forEach(function (t) { views.appendChild(viewTable(t)); });

    var pt = document.querySelector("#properties tbody");
    pt.textContent = "";
    v.properties.forEach(function (p) {
      var info = model.properties.filter(function (x) { return x.name === p.name; })[0] || {};
      var tr = el("tr");
      tr.setAttribute("data-property", p.name);
      var name = el("td", "", p.name);
      name.title = info.doc || "";
      tr.appendChild(name);
      tr.appendChild(el("td", "muted", p.kind));
      var here = el("td");
      var label = p.status;
      if (p.kind === "leadsto") { label = "P " + (p.p ? "true" : "false") + ", Q " + (p.holds ? "true" : "false"); }
      var st = el("span", "status " + (p.kind === "leadsto" ? "" : p.status), label);
      st.title = statusDoc(p);
      here.appendChild(st);
      tr.appendChild(here);
      tr.appendChild(el("td", "why", p.why || ""));
      pt.appendChild(tr);
    });

    var vt = document.querySelector("#vars tbody");
    vt.textContent = "";
    v.vars.forEach(function (x) {
      var tr = el("tr", x.changed ? "changed" : "");
      tr.setAttribute("data-var", x.name);
      var info = model.vars.filter(function (y) { return y.name === x.name; })[0] || {};
      var n = el("td", "name", x.name);
      n.title = info.doc || "";
      tr.appendChild(n);
      tr.appendChild(el("td", "value", x.value));
      vt.appendChild(tr);
    });

    renderActions();
    applyFilter();
  }

  function statusDoc(p) {
    switch (p.kind) {
      case "invariant": return p.holds ? "the invariant holds in this state" : "the invariant is false in this state";
      case "action": return p.evaluated ? (p.holds ? "the step into this state keeps it" : "the step into this state breaks it") : "no step into the initial state";
      case "leadsto": return "P and Q in this state; P ~> Q is judged on whole behaviours (a lasso)";
      case "sometimes": return "whether the predicate holds here; it must hold in some reachable state";
      default: return "whether the predicate holds here; the property is judged on whole behaviours (a lasso)";
    }
  }

  function renderActions() {
    var v = view;
    var ol = $("enabled");
    ol.textContent = "";
    $("enabled-count").textContent = "(" + v.enabled.length + ")";
    v.enabled.forEach(function (a) {
      var li = el("li");
      li.setAttribute("data-action", a.action);
      li.setAttribute("data-kind", a.kind);
      var b = el("button", "take" + (a.onPath ? " on-path" : ""));
      b.type = "button";
      b.setAttribute("data-index", String(a.index));
      b.appendChild(el("span", "key", ""));
      b.appendChild(el("span", "act", a.action));
      var tags = el("span", "tagline");
      if (a.onPath) { tags.appendChild(el("span", "tag next", "next on the path")); }
      (a.guards || []).forEach(function (g) {
        var t = el("span", "tag guard", g);
        t.title = "guard " + g + " shapes this step: without it the step does something else";
        tags.appendChild(t);
      });
      (a.broken || []).forEach(function (p) {
        var t = el("span", "tag bad", "breaks " + p);
        t.title = p + " holds here and is violated after this step";
        tags.appendChild(t);
      });
      b.appendChild(tags);
      b.title = kindDoc(a.kind);
      b.addEventListener("click", function () { take(a.index); });
      li.appendChild(b);
      var ul = el("ul", "diff");
      var shown = 4;
      a.changes.forEach(function (c, i) {
        var d = el("li", "", c);
        if (i >= shown) { d.style.display = "none"; d.className = "extra"; }
        ul.appendChild(d);
      });
      if (a.changes.length === 0) { ul.appendChild(el("li", "muted", "(no variable changes)")); }
      if (a.changes.length > shown) {
        var more = el("li", "more", "\u25B8 " + (a.changes.length - shown) + " more changes");
        more.addEventListener("click", function () {
          ul.querySelectorAll("li.extra").forEach(function (x) { x.style.display = ""; });
          more.remove();
        });
        ul.appendChild(more);
      }
      li.appendChild(ul);
      ol.appendChild(li);
    });
    if (v.enabled.length === 0) {
      var cut = v.disabled.some(function (k) { return k.reasons.some(function (r) { return r.type === "cut"; }); });
      ol.appendChild(el("li", "muted", cut ? "no action is enabled here; the steps that model bounds cut are below" : "no action is enabled: the behaviour ends here"));
    }

    // Kinds that a bound cut or a guard refused come first, each with its reasons; the
    // kinds whose precondition is false follow as names (their docs as tooltips).
    var dl = $("disabled");
    dl.textContent = "";
    var none = v.disabled.filter(function (k) { return k.enabled === 0; }).length;
    $("disabled-count").textContent = "(" + none + " kinds)";
    var plain = [];
    v.disabled.forEach(function (k) {
      if (k.reasons.length === 1 && k.reasons[0].type === "precondition") { plain.push(k); return; }
      var li = el("li");
      li.setAttribute("data-kind", k.kind);
      var types = k.reasons.map(function (r) { return r.type; });
      if (types.indexOf("cut") >= 0) { li.classList.add("cut"); } else if (types.indexOf("guard") >= 0) { li.classList.add("guard"); }
      var head = el("div");
      head.appendChild(el("span", "kind", k.kind));
      if (k.enabled > 0) { head.appendChild(el("span", "muted small", " (" + k.enabled + " enabled; some steps refused)")); }
      head.title = k.doc || "";
      li.appendChild(head);
      k.reasons.forEach(function (r) {
        var d = el("div", "reason");
        if (r.type === "cut") {
          d.appendChild(el("span", "", "cut by the model bound "));
          d.appendChild(el("b", "", r.bound));
          d.appendChild(el("span", "muted", " (raise it to allow): "));
          d.appendChild(el("span", "acts", r.actions.join(", ")));
        } else if (r.type === "guard") {
          d.appendChild(el("span", "", "refused by the guard "));
          var g = el("b", "", r.guard);
          g.title = r.ref || "";
          d.appendChild(g);
          d.appendChild(el("span", "", ": "));
          d.appendChild(el("span", "acts", r.actions.join(", ")));
          d.appendChild(el("div", "ref", r.doc));
        } else {
          d.appendChild(el("span", "muted", "other steps: their precondition is false here"));
        }
        li.appendChild(d);
      });
      dl.appendChild(li);
    });
    if (plain.length) {
      var li = el("li", "plain");
      li.setAttribute("data-kind", plain.map(function (k) { return k.kind; }).join(" "));
      li.appendChild(el("div", "reason muted", "precondition false here (hover for what each needs):"));
      var names = el("div", "names");
      plain.forEach(function (k) {
        var n = el("span", "kind-name", k.kind);
        n.setAttribute("data-kind", k.kind);
        n.title = k.doc || "";
        names.appendChild(n);
      });
      li.appendChild(names);
      dl.appendChild(li);
    }
  }

  function kindDoc(kind) {
    var k = model.kinds.filter(function (x) { return x.name === kind; })[0];
    return k ? kind + " (" + k.fairness + "): " + (k.doc || "") : kind;
  }

  // applyFilter hides the path entries, actions, kinds, properties and variables whose
  // names do not contain the filter, and numbers the enabled actions still shown (1..9,
  // 0 for the tenth: the digit keys take them).
  function applyFilter() {
    var f = $("filter").value.trim().toLowerCase();
    var match = function (s) { return f === "" || s.toLowerCase().indexOf(f) >= 0; };
    document.querySelectorAll("#path li").forEach(function (li) { li.classList.toggle("hidden-by-filter", !match(li.getAttribute("data-action") || "")); });
    document.querySelectorAll("#disabled > li:not(.plain)").forEach(function (li) { li.classList.toggle("hidden-by-filter", !match(li.getAttribute("data-kind"))); });
    document.querySelectorAll("#disabled span.kind-name").forEach(function (n) { n.classList.toggle("hidden-by-filter", !match(n.getAttribute("data-kind"))); });
    document.querySelectorAll("#properties tbody tr").forEach(function (tr) { tr.classList.toggle("hidden-by-filter", !match(tr.getAttribute("data-property"))); });
    document.querySelectorAll("#vars tbody tr").forEach(function (tr) { tr.classList.toggle("hidden-by-filter", !match(tr.getAttribute("data-var"))); });
    var n = 0;
    document.querySelectorAll("#enabled > li[data-action]").forEach(function (li) {
      var show = match(li.getAttribute("data-action"));
      li.classList.toggle("hidden-by-filter", !show);
      var key = li.querySelector(".key");
      if (show) { n++; }
      key.textContent = show && n <= 10 ? String(n % 10) : "";
      li.setAttribute("data-key", show && n <= 10 ? String(n % 10) : "");
    });
  }

  function takeKey(d) {
    var li = document.querySelector('#enabled > li[data-key="' + d + '"]');
    if (li) { li.querySelector("button").click(); }
  }

  function search(body) {
    var out = $("search-result");
    out.textContent = "searching\u2026";
    body.path = loc.path;
    body.at = view.at;
    api("/api/search", { method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json" } }).then(function (a) {
      out.textContent = "";
      out.appendChild(el("div", a.found ? "bad" : "ok", a.message));
      if (a.found) {
        if (a.witness) { out.appendChild(el("div", "muted small", a.witness)); }
        go({ path: a.path, at: String(a.at), back: a.back || "", stutter: a.stutter ? "1" : "" });
      }
    }).catch(function (err) { out.textContent = ""; out.appendChild(el("div", "bad", String(err.message || err))); });
  }

  function loadTrace(file) {
    var out = $("search-result");
    file.text().then(function (text) {
      return api("/api/trace", { method: "POST", body: text, headers: { "Content-Type": "application/json" } });
    }).then(function (l) {
      showError(null);
      go({ path: l.path, at: String(l.states), back: l.back || "", stutter: l.stutter ? "1" : "" });
    }).catch(function (err) { showError(new Error(file.name + ": " + (err.message || err))); });
    out.textContent = "";
  }

  function init() {
    $("first").addEventListener("click", function () { moveTo(1); });
    $("back").addEventListener("click", function () { moveTo(view.at - 1); });
    $("forward").addEventListener("click", function () { moveTo(view.at + 1); });
    $("last").addEventListener("click", function () { moveTo(view.path.length); });
    $("filter").addEventListener("input", applyFilter);
    $("copy-link").addEventListener("click", function () {
      var url = window.location.href;
      if (navigator.clipboard) { navigator.clipboard.writeText(url).catch(function () {}); }
      $("copy-link").textContent = "copied";
      setTimeout(function () { $("copy-link").textContent = "copy link"; }, 1500);
    });
    $("search-violation").addEventListener("click", function () {
      if ($("search-property").value) { search({ property: $("search-property").value }); }
    });
    $("search-predicate").addEventListener("click", function () {
      if ($("predicate").value.trim()) { search({ predicate: $("predicate").value.trim() }); }
    });
    $("predicate").addEventListener("keydown", function (e) {
      if (e.key === "Enter") { $("search-predicate").click(); }
    });
    $("trace-file").addEventListener("change", function () {
      if (this.files.length) { loadTrace(this.files[0]); }
      this.value = "";
    });
    document.addEventListener("dragover", function (e) { e.preventDefault(); document.body.classList.add("dragging"); });
    document.addEventListener("dragleave", function (e) { if (!e.relatedTarget) { document.body.classList.remove("dragging"); } });
    document.addEventListener("drop", function (e) {
      e.preventDefault();
      document.body.classList.remove("dragging");
      if (e.dataTransfer.files.length) { loadTrace(e.dataTransfer.files[0]); }
    });
    document.addEventListener("keydown", function (e) {
      var t = e.target.tagName;
      if (e.key === "Escape") { e.target.blur && e.target.blur(); return; }
      if (t === "INPUT" || t === "SELECT" || t === "TEXTAREA" || e.ctrlKey || e.metaKey || e.altKey || !view) { return; }
      if (e.key === "ArrowLeft" || e.key === "ArrowUp") { moveTo(view.at - 1); e.preventDefault(); }
      else if (e.key === "ArrowRight" || e.key === "ArrowDown") { moveTo(view.at + 1); e.preventDefault(); }
      else if (e.key === "Home") { moveTo(1); e.preventDefault(); }
      else if (e.key === "End") { moveTo(view.path.length); e.preventDefault(); }
      else if (/^[0-9]$/.test(e.key)) { takeKey(e.key); e.preventDefault(); }
      else if (e.key === "/") { $("filter").focus(); e.preventDefault(); }
    });
    window.addEventListener("hashchange", load);
    api("/api/model").then(function (m) {
      model = m;
      $("title").textContent = m.spec + ", check " + m.check + " (model " + m.model + ")";
      $("config").textContent = m.config;
      $("config").title = m.config;
      var sel = $("search-property");
      m.properties.forEach(function (p) {
        if (p.kind === "sometimes") { return; }
        var o = el("option", "", p.name + " (" + p.kind + ")");
        o.value = p.name;
        sel.appendChild(o);
      });
      $("predicate-help").textContent = m.predicate + ". " + m.limits + ".";
      if (m.vars.length) { $("predicate").placeholder = "a predicate over the variables: " + m.vars[0].name + " == ..."; }
      document.body.setAttribute("data-model", m.model);
      load();
    }).catch(showError);
  }
  init();
})();

package traces

import "kmc/checker"

// What a web page that shows a model's states shares with the HTML report (kmc explore
// draws its states with the same code): the style and the script that draw a state's
// tables (checker.Viewer), and the changes into a state as the text trace prints them.

// ViewTableCSS styles the tables ViewTableJS draws, inside an element with id "views".
const ViewTableCSS = `#views table.view { margin: 4px 0 2px 0; font-family: Menlo, Consolas, monospace; }
#views table.view th, #views table.view td { border: 1px solid #ddd; padding: 2px 8px; }
#views td.highlight { background: #fde0dd; font-weight: bold; }
#views .tag { display: inline-block; margin-left: 4px; padding: 0 4px; border-radius: 3px; font-size: 10px; background: #e8eef7; color: #1f4e8c; }
#views .tag.mark-hw { background: #d9f0d3; color: #1b5e20; }
#views .tag.mark-leo { background: #e8eef7; color: #1f4e8c; }
#views div.view { overflow-x: auto; }
#views h3 { font-size: 14px; margin: 10px 0 2px 0; }
#views ul { margin: 2px 0 6px 0; padding-left: 18px; font-size: 12px; color: #444; }`

// ViewTableJS defines the JavaScript function viewTable(t), which draws one table (a
// Table as JSON) as a div: cells with a "highlight" mark get that class, each "tag" mark a
// badge with its name, and the legend lists the marks the table declares. It uses only
// the DOM.
const ViewTableJS = `  function viewTable(t) {
    var div = document.createElement("div");
    div.className = "view"; div.setAttribute("data-view", t.name);
    var h = document.createElement("h3"); h.textContent = t.title || t.name; div.appendChild(h);
    var styles = {};
    (t.marks || []).forEach(function (m) { styles[m.name] = m.style; });
    var table = document.createElement("table"); table.className = "view";
    var tr = document.createElement("tr");
    t.columns.forEach(function (c) { var th = document.createElement("th"); th.textContent = c; tr.appendChild(th); });
    table.appendChild(tr);
    (t.rows || []).forEach(function (row) {
      var tr = document.createElement("tr");
      row.forEach(function (c) {
        var td = document.createElement("td");
        td.textContent = c.text;
        (c.marks || []).forEach(function (m) {
          td.classList.add("mark-" + m);
          if (styles[m] === "highlight") { td.classList.add("highlight"); td.title = m; return; }
          var b = document.createElement("span"); b.className = "tag mark-" + m; b.textContent = m; td.appendChild(b);
        });
        tr.appendChild(td);
      });
      table.appendChild(tr);
    });
    div.appendChild(table);
    var notes = (t.notes || []).slice();
    (t.marks || []).forEach(function (m) {
      notes.push((m.style === "highlight" ? "highlighted" : m.name) + ": " + m.doc);
    });
    if (notes.length) {
      var ul = document.createElement("ul");
      notes.forEach(function (n) { var li = document.createElement("li"); li.textContent = n; ul.appendChild(li); });
      div.appendChild(ul);
    }
    return div;
  }`

// PageErrorJS shows a JavaScript error in the element with id "js-error" and records it in
// the body's data-js-error attribute, where a test in a browser reads it.
const PageErrorJS = `window.onerror = function (msg, src, line) {
  var e = document.getElementById("js-error");
  e.style.display = "block";
  e.textContent = "JavaScript error: " + msg + " (line " + line + ")";
  document.body.setAttribute("data-js-error", String(msg));
};`

// TextChanges lists the changes into state i of t as Text prints them (TLC's -difftrace,
// down to the field; see TextOptions), nil for the initial state.
func TextChanges(t *checker.Trace, i int) []Change { return varChanges(t, i, true) }

package html

// pageScript is the report's only script, allowed by the Content
// Security Policy through its hash. It makes the tables sortable (a click
// on a header sorts by the cells' data-v numbers where they have them,
// else by text; a second click reverses), filterable (the filter box
// above a large table) and switchable between statistics (the p50 / p90 /
// p99 / mean radio buttons above a table of percentiles). It loads
// nothing and sends nothing.
//
// It also makes the checkboxes under a figure hide and show its series
// (render/plot's <g class="series" data-series="K"> groups, in every
// panel of the figure); they are hidden until the script shows them, as
// they do nothing without it. The figures' hover values need no script
// (SVG titles).
const pageScript = `(function () {
  "use strict";
  function each(list, f) { for (var k = 0; k < list.length; k++) { f(list[k], k); } }

  // Filter and statistic: a row shows when it holds the filter text and
  // is of the chosen statistic (rows that are not one statistic of a
  // distribution always show).
  function update(box) {
    var table = box.querySelector("table.data");
    var input = box.querySelector("input.filter");
    var q = input ? input.value.trim().toLowerCase() : "";
    var chosen = box.querySelector("input.stat:checked");
    var stat = chosen ? chosen.value : "all";
    var rows = table.tBodies[0].rows, shown = 0;
    each(rows, function (row) {
      var s = row.getAttribute("data-stat") || "";
      var show = (q === "" || row.textContent.toLowerCase().indexOf(q) >= 0) &&
        (stat === "all" || s === "" || s === stat);
      row.hidden = !show;
      if (show) { shown++; }
    });
    var count = box.querySelector(".count");
    if (count) { count.textContent = shown + " of " + rows.length + " rows"; }
  }

  function sortBy(box, th, col) {
    var table = box.querySelector("table.data");
    var body = table.tBodies[0];
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    each(table.tHead.rows[0].cells, function (h) { h.setAttribute("aria-sort", "none"); });
    th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
    var rows = [], numeric = false;
    each(body.rows, function (row, k) {
      var cell = row.cells[col];
      var v = cell ? cell.getAttribute("data-v") : null;
      if (v !== null) { numeric = true; }
      rows.push({ row: row, k: k, v: v === null ? null : parseFloat(v), t: cell ? cell.textContent : "" });
    });
    rows.sort(function (a, b) {
      var c = 0;
      if (numeric) {
        if (a.v === null && b.v === null) { c = a.t.localeCompare(b.t, undefined, { numeric: true }); }
        else if (a.v === null) { return 1; }
        else if (b.v === null) { return -1; }
        else { c = a.v - b.v; }
      } else {
        c = a.t.localeCompare(b.t, undefined, { numeric: true });
      }
      return c !== 0 ? dir * c : a.k - b.k;
    });
    each(rows, function (r) { body.appendChild(r.row); });
  }

  // Series toggles: a checkbox per series under its figure.
  each(document.querySelectorAll("figure"), function (fig) {
    var box = fig.querySelector("fieldset.series-toggle");
    if (!box) { return; }
    each(box.querySelectorAll("input.series"), function (cb) {
      cb.addEventListener("change", function () {
        each(fig.querySelectorAll("g.series[data-series='" + cb.value + "']"), function (g) {
          g.classList.toggle("off", !cb.checked);
        });
      });
    });
    box.hidden = false;
  });

  each(document.querySelectorAll(".tbl"), function (box) {
    var table = box.querySelector("table.data");
    each(table.tHead.rows[0].cells, function (th, col) {
      var button = th.querySelector("button");
      if (button) { button.addEventListener("click", function () { sortBy(box, th, col); }); }
    });
    var input = box.querySelector("input.filter");
    if (input) { input.addEventListener("input", function () { update(box); }); }
    each(box.querySelectorAll("input.stat"), function (r) {
      r.addEventListener("change", function () { update(box); });
    });
    update(box);
  });
})();`

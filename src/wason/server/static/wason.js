// wason's pages: a little JavaScript, no libraries. Pages add their own behaviour in their scripts block.
"use strict";

// results tables: a click on a header sorts the rows by that column (numbers by value, text alphabetically;
// empty cells last); a second click reverses the order
document.addEventListener("click", function (event) {
  var th = event.target.closest ? event.target.closest("table.sortable th[data-kind]") : null;
  if (!th) { return; }
  var table = th.closest("table");
  var body = table.tBodies[0];
  var index = Array.prototype.indexOf.call(th.parentNode.children, th);
  var numeric = th.getAttribute("data-kind") !== "text";
  var descending = th.getAttribute("aria-sort") !== "descending" && (numeric || th.getAttribute("aria-sort") === "ascending");
  Array.prototype.forEach.call(th.parentNode.children, function (h) { h.removeAttribute("aria-sort"); });
  th.setAttribute("aria-sort", descending ? "descending" : "ascending");
  var rows = Array.prototype.slice.call(body.rows);
  rows.sort(function (a, b) {
    var x = a.cells[index].getAttribute("data-sort") || "", y = b.cells[index].getAttribute("data-sort") || "";
    if (x === "" || y === "") { return (x === "") - (y === ""); }
    var order = numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
    return descending ? -order : order;
  });
  rows.forEach(function (row) { body.appendChild(row); });
});

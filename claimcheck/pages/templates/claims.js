// claimcheck claims page: filters by outcome and by need, sortable columns. Works from the file
// alone (no network). The filter state can also be given in the address: #show=failed,skipped&need=weights
// (&drift=only: the drifted claims alone)
(function () {
  "use strict";
  var table = document.querySelector("table.claims");
  if (!table) return;
  var claims = Array.prototype.slice.call(table.querySelectorAll("tbody.claim"));
  var original = Array.prototype.slice.call(table.tBodies);
  var boxes = Array.prototype.slice.call(document.querySelectorAll("input[name=outcome]"));
  var needs = Array.prototype.slice.call(document.querySelectorAll("input[name=need]"));
  var shown = document.getElementById("shown");
  var drift = document.querySelector("input[name=drift]");  // only the drifted claims (when any drifted)

  function apply() {
    var want = {};
    boxes.forEach(function (b) { want[b.value] = b.checked; });
    var need = (needs.filter(function (r) { return r.checked; })[0] || {value: "all"}).value;
    var n = 0, visibleSections = {}, visibleChapters = {};
    function where(tb) { return tb.getAttribute("data-chapter") + "/" + tb.getAttribute("data-section"); }
    claims.forEach(function (tb) {
      var tags = (tb.getAttribute("data-needs") || "").split(" ").filter(Boolean);
      var ok = want[tb.getAttribute("data-outcome")] !== false &&
        (need === "all" || (need === "none" ? tags.length === 0 : tags.indexOf(need) >= 0)) &&
        !(drift && drift.checked && tb.getAttribute("data-drifted") !== "1");
      tb.hidden = !ok;
      if (ok) { n += 1; visibleSections[where(tb)] = true; visibleChapters[tb.getAttribute("data-chapter")] = true; }
    });
    Array.prototype.forEach.call(table.querySelectorAll("tbody.section"), function (tb) {
      tb.hidden = !visibleSections[where(tb)];
    });
    Array.prototype.forEach.call(table.querySelectorAll("tbody.chapter"), function (tb) {
      tb.hidden = !visibleChapters[tb.getAttribute("data-chapter")];
    });
    if (shown) shown.textContent = n === claims.length ? "all " + n + " claims shown" : n + " of " + claims.length + " claims shown";
  }

  function decode(text) {  // a malformed escape (#need=%E0%A4%A) stays as written: the rest still reads
    try { return decodeURIComponent(text); } catch (e) {
      return text.split(/([&=,])/).map(function (part) {
        try { return decodeURIComponent(part); } catch (e2) { return part; }
      }).join("");
    }
  }

  function fromHash() {
    var h = decode(location.hash.replace(/^#/, ""));
    if (!/^(show|need|drift)=/.test(h)) return;
    h.split("&").forEach(function (kv) {
      var p = kv.split("="), key = p[0], vals = (p[1] || "").split(",");
      if (key === "show") boxes.forEach(function (b) { b.checked = vals.indexOf(b.value) >= 0; });
      if (key === "need") needs.forEach(function (r) { r.checked = r.value === vals[0]; });
      if (key === "drift" && drift) drift.checked = vals[0] === "only";
    });
  }

  function sortBy(th) {
    var key = th.getAttribute("data-sort");
    var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    Array.prototype.forEach.call(table.querySelectorAll("thead th"), function (h) { h.removeAttribute("aria-sort"); });
    if (key === "order" && dir === "ascending") {  // back to the chapter's order, with its sections
      table.classList.remove("sorted");
      original.forEach(function (tb) { table.appendChild(tb); });
      th.setAttribute("aria-sort", "ascending");
      return;
    }
    th.setAttribute("aria-sort", dir);
    table.classList.add("sorted");
    var sign = dir === "ascending" ? 1 : -1;
    claims.slice().sort(function (a, b) {
      var x = a.getAttribute("data-" + key), y = b.getAttribute("data-" + key);
      var fx = parseFloat(x), fy = parseFloat(y);
      var c = (!isNaN(fx) && !isNaN(fy)) ? fx - fy : (isNaN(fx) ? 1 : 0) - (isNaN(fy) ? 1 : 0) || String(x).localeCompare(String(y));
      return sign * c || (parseFloat(a.getAttribute("data-order")) - parseFloat(b.getAttribute("data-order")));
    }).forEach(function (tb) { table.appendChild(tb); });
  }

  boxes.concat(needs, drift ? [drift] : []).forEach(function (el) { el.addEventListener("change", apply); });
  Array.prototype.forEach.call(table.querySelectorAll("thead th[data-sort]"), function (th) {
    th.addEventListener("click", function () { sortBy(th); });
    th.addEventListener("keydown", function (ev) { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); sortBy(th); } });
  });
  var all = document.getElementById("show-all");
  if (all) all.addEventListener("click", function () {
    boxes.forEach(function (b) { b.checked = true; });
    needs.forEach(function (r) { r.checked = r.value === "all"; });
    if (drift) drift.checked = false;
    apply();
  });
  window.addEventListener("hashchange", function () { fromHash(); apply(); });
  window.addEventListener("beforeprint", function () {
    Array.prototype.forEach.call(document.querySelectorAll("details"), function (d) { d.open = true; });
  });
  function stickyOffset() {  // the column headers stick just below the filter bar, whatever its height
    var bar = document.querySelector("form.filters");
    if (bar) document.documentElement.style.setProperty("--filters-h", bar.offsetHeight + "px");
  }
  window.addEventListener("resize", stickyOffset);
  fromHash();
  apply();
  stickyOffset();
  document.documentElement.setAttribute("data-ready", "1");
})();

// cctree: progressive enhancement only. The pages work without this file.
// Adds: local times, archive search (index loaded on demand from
// search-index.js, so it works from file://), expand/collapse all, and
// keyboard navigation (j/k: next/previous message, /: search).
(function () {
  "use strict";
  var root = document.documentElement.getAttribute("data-root") || "";

  // Local time for every <time datetime>.
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  var times = document.querySelectorAll("time[datetime]");
  for (var i = 0; i < times.length; i++) {
    var t = times[i];
    var d = new Date(t.getAttribute("datetime"));
    if (isNaN(d.getTime())) continue;
    t.title = t.textContent;
    t.textContent = d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) +
      " " + pad(d.getHours()) + ":" + pad(d.getMinutes());
  }

  // Expand / collapse all <details> in the page body (not the fork controls).
  var expand = document.getElementById("expand-all");
  var main = document.querySelector("main");
  var folds = "details:not(.fork-cmd)";
  if (expand && main && main.querySelector(folds)) {
    expand.hidden = false;
    expand.addEventListener("click", function () {
      var all = main.querySelectorAll(folds);
      var open = expand.getAttribute("data-open") !== "1";
      for (var j = 0; j < all.length; j++) all[j].open = open;
      expand.setAttribute("data-open", open ? "1" : "0");
      expand.textContent = open ? "collapse all" : "expand all";
    });
  }

  // Copy buttons of the fork controls: the command is in data-copy. Uses the
  // clipboard API when the page may (https, file:// in most browsers), else
  // selects the command so that Ctrl+C copies it.
  function selectText(node) {
    var sel = window.getSelection && window.getSelection();
    if (!sel || !document.createRange) return;
    var range = document.createRange();
    range.selectNodeContents(node);
    sel.removeAllRanges();
    sel.addRange(range);
  }
  function copied(button, label) {
    button.textContent = label;
    button.classList.add("done");
    setTimeout(function () { button.textContent = "copy"; button.classList.remove("done"); }, 1600);
  }
  var copies = document.querySelectorAll("button.copy[data-copy]");
  for (var c = 0; c < copies.length; c++) {
    copies[c].hidden = false;
    copies[c].addEventListener("click", function (ev) {
      var button = ev.currentTarget;
      var text = button.getAttribute("data-copy") || "";
      var code = button.parentNode && button.parentNode.querySelector("code");
      var fallback = function () {
        if (code) selectText(code);
        copied(button, "selected");
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(function () { copied(button, "copied"); }, fallback);
      } else {
        fallback();
      }
    });
  }

  // Search.
  var box = document.getElementById("search");
  var input = document.getElementById("search-input");
  var list = document.getElementById("search-results");
  var loading = false;
  var selected = -1;
  function ensureIndex(then) {
    if (window.CCTREE_SEARCH) { then(); return; }
    if (loading) return;
    loading = true;
    var s = document.createElement("script");
    s.src = root + "search-index.js";
    s.onload = function () { loading = false; then(); };
    s.onerror = function () { loading = false; };
    document.head.appendChild(s);
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }
  function search() {
    var q = input.value.toLowerCase().trim();
    while (list.firstChild) list.removeChild(list.firstChild);
    selected = -1;
    if (!q || !window.CCTREE_SEARCH) { list.hidden = true; return; }
    var terms = q.split(/\s+/);
    var hits = [];
    var data = window.CCTREE_SEARCH;
    for (var k = 0; k < data.length && hits.length < 400; k++) {
      var e = data[k];
      var hay = (e.title + " " + e.text + " " + e.project).toLowerCase();
      var ok = true;
      for (var m = 0; m < terms.length; m++) if (hay.indexOf(terms[m]) < 0) { ok = false; break; }
      if (ok) hits.push({ e: e, score: e.title.toLowerCase().indexOf(terms[0]) >= 0 ? 0 : 1 });
    }
    hits.sort(function (a, b) { return a.score - b.score; });
    hits = hits.slice(0, 40);
    if (!hits.length) {
      list.appendChild(el("li", "none", "No matches"));
    }
    for (var h = 0; h < hits.length; h++) {
      var it = hits[h].e;
      var li = el("li");
      var a = el("a");
      a.href = root + it.url;
      a.appendChild(el("span", "kind", it.kind));
      a.appendChild(document.createTextNode(it.title));
      if (it.text && it.text !== it.title) a.appendChild(el("span", "text", it.text));
      a.appendChild(el("span", "project", it.project));
      li.appendChild(a);
      list.appendChild(li);
    }
    list.hidden = false;
  }
  function move(delta) {
    var links = list.querySelectorAll("a");
    if (!links.length) return;
    if (selected >= 0 && links[selected]) links[selected].classList.remove("sel");
    selected = (selected + delta + links.length) % links.length;
    links[selected].classList.add("sel");
    links[selected].scrollIntoView({ block: "nearest" });
  }
  if (box && input && list) {
    box.hidden = false;
    input.addEventListener("focus", function () { ensureIndex(search); });
    input.addEventListener("input", function () { ensureIndex(search); });
    input.addEventListener("keydown", function (ev) {
      if (ev.key === "ArrowDown") { move(1); ev.preventDefault(); }
      else if (ev.key === "ArrowUp") { move(-1); ev.preventDefault(); }
      else if (ev.key === "Enter") {
        var links = list.querySelectorAll("a");
        var target = links[selected >= 0 ? selected : 0];
        if (target) window.location.href = target.href;
      } else if (ev.key === "Escape") { list.hidden = true; input.blur(); }
    });
    document.addEventListener("click", function (ev) {
      if (!box.contains(ev.target)) list.hidden = true;
    });
    // index.html?q=words opens with that search (shareable, testable).
    var q = /[?&]q=([^&]*)/.exec(window.location.search);
    if (q) {
      try { input.value = decodeURIComponent(q[1].replace(/\+/g, " ")); } catch (e) { input.value = ""; }
      ensureIndex(search);
    }
  }

  // Keyboard navigation between messages.
  function visibleMessages() {
    var all = document.querySelectorAll("main .messages > .msg");
    var out = [];
    for (var n = 0; n < all.length; n++) if (all[n].offsetParent !== null) out.push(all[n]);
    return out;
  }
  document.addEventListener("keydown", function (ev) {
    var tag = (ev.target && ev.target.tagName) || "";
    if (tag === "INPUT" || tag === "TEXTAREA" || ev.metaKey || ev.ctrlKey || ev.altKey) return;
    if (ev.key === "/" && input) { input.focus(); ev.preventDefault(); return; }
    if (ev.key !== "j" && ev.key !== "k") return;
    var msgs = visibleMessages();
    var y = 70;
    var idx = -1;
    for (var p = 0; p < msgs.length; p++) {
      if (msgs[p].getBoundingClientRect().top <= y + 1) idx = p;
    }
    var next = ev.key === "j" ? idx + 1 : idx - 1;
    if (ev.key === "k" && idx >= 0 && msgs[idx].getBoundingClientRect().top < y - 2) next = idx;
    if (next >= 0 && next < msgs.length) {
      msgs[next].scrollIntoView({ block: "start" });
      ev.preventDefault();
    }
  });
})();

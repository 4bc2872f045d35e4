// cctree serve: live reload. `cctree serve` adds this script to each page it
// sends (never to the files of the site, which stay as the render wrote
// them); the page's version is the script's data-token.
//
// While the page is visible it asks the server, one held request at a time,
// whether its file changed (/.cctree/wait.js answers when it did, or after
// a while that nothing did: then it asks again). Held requests load as
// scripts, so the page's own Content-Security-Policy (script-src 'self')
// allows them and nothing else. A hidden tab asks again once it is shown.
//
// When the page changed, it reloads where the reader is: the message at the
// top of the window stays there (or, if the reader was at the end of the
// page, the end is shown, with what was added). Where a reload would lose
// the reader's place (text selected, a fold opened or closed, a search
// typed, a field in use) it says "updated" instead, with a button to reload.
(function () {
  "use strict";
  var me = document.currentScript;
  var token = me && me.getAttribute("data-token");
  if (!token) return;
  var PLACE = "cctree.live.place";
  var page = location.pathname;

  // The folds open when the page was drawn (app.js ran before this script).
  var folds = document.querySelectorAll("details");
  var openAtFirst = [];
  for (var i = 0; i < folds.length; i++) openAtFirst.push(folds[i].open);

  function storage() {
    try { return window.sessionStorage; } catch (e) { return null; }
  }

  // --- Where the reader is ---------------------------------------------
  function headerHeight() {
    var top = document.querySelector("header.top");
    return top ? top.getBoundingClientRect().height : 0;
  }
  function place() {
    var doc = document.documentElement;
    var bottom = window.innerHeight + window.pageYOffset >= doc.scrollHeight - 4 && window.pageYOffset > 0;
    var anchor = null, offset = 0, head = headerHeight();
    var marks = document.querySelectorAll("main [id]");
    for (var j = 0; j < marks.length; j++) {
      var r = marks[j].getBoundingClientRect();
      if (r.bottom > head && r.height > 0) { anchor = marks[j].id; offset = r.top; break; }
    }
    return { page: page, y: window.pageYOffset, bottom: bottom, anchor: anchor, offset: offset };
  }
  function restore() {
    var s = storage(), saved = null;
    if (!s) return;
    try { saved = JSON.parse(s.getItem(PLACE) || "null"); s.removeItem(PLACE); } catch (e) { saved = null; }
    if (!saved || saved.page !== page) return;
    var apply = function () {
      if (saved.bottom) { window.scrollTo(0, document.documentElement.scrollHeight); return; }
      var el = saved.anchor && document.getElementById(saved.anchor);
      if (el) window.scrollTo(0, el.getBoundingClientRect().top + window.pageYOffset - saved.offset);
      else window.scrollTo(0, saved.y);
    };
    apply();
    // Images and fonts may move things once loaded.
    window.addEventListener("load", apply);
    document.documentElement.setAttribute("data-live-restored", saved.bottom ? "end" : (saved.anchor || "y"));
  }

  // A reload would lose what the reader is doing.
  function busy() {
    var sel = window.getSelection ? String(window.getSelection()) : "";
    if (sel) return true;
    var a = document.activeElement;
    if (a && (a.tagName === "INPUT" || a.tagName === "TEXTAREA" || a.tagName === "SELECT" || a.isContentEditable)) return true;
    var search = document.getElementById("search-input");
    if (search && search.value) return true;
    for (var k = 0; k < folds.length; k++) if (folds[k].open !== openAtFirst[k]) return true;
    return false;
  }

  function reload() {
    var s = storage();
    if (s) { try { s.setItem(PLACE, JSON.stringify(place())); } catch (e) { /* reloads at the top */ } }
    if ("scrollRestoration" in history) history.scrollRestoration = "manual";
    location.reload();
  }

  // --- "updated" ---------------------------------------------------------
  function bar(text, action, label) {
    if (document.querySelector(".cctree-live")) return;
    var box = document.createElement("div");
    box.className = "cctree-live";
    box.setAttribute("role", "status");
    var p = document.createElement("span");
    p.textContent = text;
    box.appendChild(p);
    var b = document.createElement(action ? "button" : "a");
    b.className = "btn";
    b.textContent = label;
    if (action) { b.type = "button"; b.addEventListener("click", action); } else { b.href = "/"; }
    box.appendChild(b);
    document.body.appendChild(box);
    document.documentElement.setAttribute("data-live", action ? "updated" : "gone");
  }

  // --- Asking the server ---------------------------------------------------
  var asking = false, stale = false, failures = 0, n = 0;
  function ask() {
    if (asking || stale) return;
    if (document.visibilityState === "hidden") return; // asked again when shown
    asking = true;
    var answer = null;
    window.CCTREE_LIVE = function (r) { answer = r; };
    var s = document.createElement("script");
    s.src = "/.cctree/wait.js?page=" + encodeURIComponent(page) + "&token=" + encodeURIComponent(token) + "&n=" + (++n);
    s.onload = function () { s.remove(); asking = false; answered(answer); };
    s.onerror = function () { s.remove(); asking = false; answered(null); };
    document.head.appendChild(s);
  }
  function later(ms) { setTimeout(ask, ms); }
  function answered(r) {
    var state = r && r.state;
    if (state === "changed") {
      stale = true;
      if (busy()) bar("This page was updated.", reload, "Reload");
      else reload();
    } else if (state === "gone") {
      stale = true;
      bar("This page is no longer in the site.", null, "Archive index");
    } else if (state === "same") {
      failures = 0;
      ask();
    } else if (state === "busy") {
      later(5000);
    } else {
      // The server stopped or cannot be reached: ask again, less and less often.
      failures++;
      later(Math.min(30000, 1000 * Math.pow(2, Math.min(failures, 5))));
    }
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") ask();
  });

  restore();
  // After the page's load event: a script still loading holds it (and the
  // browser's spinner) back.
  if (document.readyState === "complete") ask();
  else window.addEventListener("load", function () { setTimeout(ask, 0); });
})();

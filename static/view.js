// cctree: what the messages show (the "view" menu of every page), kept
// across pages. The menu's checkboxes work without this file (style.css
// hides and shows with :has()); this script, loaded right after the header
// and before the page's messages, restores the reader's last choice before
// the messages are drawn, and saves each change. localStorage may be missing
// or refuse (file:// in some browsers, private windows): then the choice
// lasts for the page only.
(function () {
  "use strict";
  var KEY = "cctree.view";
  var ids = ["only-talk", "show-tools", "show-thinking", "show-aux"];
  var boxes = {};
  for (var i = 0; i < ids.length; i++) {
    var b = document.getElementById(ids[i]);
    if (b) boxes[ids[i]] = b;
  }
  function read() {
    try {
      var v = JSON.parse(window.localStorage.getItem(KEY) || "null");
      return v && typeof v === "object" ? v : null;
    } catch (e) { return null; }
  }
  function save() {
    var v = {};
    for (var id in boxes) v[id] = boxes[id].checked;
    try { window.localStorage.setItem(KEY, JSON.stringify(v)); } catch (e) { /* the choice lasts for this page */ }
  }
  var saved = read();
  for (var id in boxes) {
    if (saved && typeof saved[id] === "boolean") boxes[id].checked = saved[id];
    boxes[id].addEventListener("change", save);
  }
  // Another tab changed the choice: follow it.
  window.addEventListener("storage", function (ev) {
    if (ev.key !== KEY) return;
    var v = read();
    if (v) for (var k in boxes) if (typeof v[k] === "boolean") boxes[k].checked = v[k];
  });
  // The menu closes on Escape and on a click elsewhere.
  var menu = document.querySelector("details.view-menu");
  if (menu) {
    document.addEventListener("click", function (ev) {
      if (menu.open && !menu.contains(ev.target)) menu.open = false;
    });
    document.addEventListener("keydown", function (ev) {
      if (ev.key === "Escape" && menu.open) {
        menu.open = false;
        var s = menu.querySelector("summary");
        if (s) s.focus();
      }
    });
  }
})();

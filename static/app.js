// cctree: progressive enhancement only. The pages work without this file.
// Adds: local times, expand/collapse all, and keyboard navigation (j/k:
// next/previous message). The search is static/search.js.
(function () {
  "use strict";

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

// cctree: progressive enhancement only. The pages work without this file.
// Adds: local times, expand/collapse all, copy buttons (fork commands, code
// blocks) and keyboard navigation (j/k: next/previous message). The search
// is static/search.js; the view menu's choice, static/view.js.
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

  // Copy buttons: the fork commands (the text is in data-copy) and, added
  // here, every code block. Uses the clipboard API where the page may; else
  // (or if it refuses) selects the text and asks the browser to copy the
  // selection; if that fails too, the text stays selected for Ctrl+C.
  function selectText(node) {
    var sel = window.getSelection && window.getSelection();
    if (!sel || !document.createRange) return false;
    var range = document.createRange();
    range.selectNodeContents(node);
    sel.removeAllRanges();
    sel.addRange(range);
    return true;
  }
  function copied(button, label) {
    button.textContent = label;
    button.classList.add("done");
    setTimeout(function () { button.textContent = "copy"; button.classList.remove("done"); }, 1600);
  }
  function copy(button, text, node) {
    var fallback = function () {
      // The browser's copy command, with the exact text put on the clipboard
      // by its copy event; if it refuses, the text is selected for Ctrl+C.
      var ok = false;
      var put = function (ev) {
        if (!ev.clipboardData) return;
        ev.clipboardData.setData("text/plain", text);
        ev.preventDefault();
      };
      document.addEventListener("copy", put);
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      document.removeEventListener("copy", put);
      if (!ok && node) selectText(node);
      copied(button, ok ? "copied" : "selected: Ctrl+C");
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(function () { copied(button, "copied"); }, fallback);
    } else {
      fallback();
    }
  }
  var copies = document.querySelectorAll("button.copy[data-copy]");
  for (var c = 0; c < copies.length; c++) {
    copies[c].hidden = false;
    copies[c].addEventListener("click", function (ev) {
      var button = ev.currentTarget;
      copy(button, button.getAttribute("data-copy") || "", button.parentNode && button.parentNode.querySelector("code"));
    });
  }
  var blocks = main ? main.querySelectorAll(".md pre, pre.code") : [];
  for (var k = 0; k < blocks.length; k++) {
    var pre = blocks[k];
    if (pre.parentNode && pre.parentNode.classList && pre.parentNode.classList.contains("code-box")) continue;
    var box = document.createElement("div");
    box.className = "code-box";
    pre.parentNode.insertBefore(box, pre);
    box.appendChild(pre);
    var button = document.createElement("button");
    button.type = "button";
    button.className = "btn copy code-copy";
    button.textContent = "copy";
    button.setAttribute("aria-label", "Copy this code");
    box.appendChild(button);
    button.addEventListener("click", function (ev) {
      var b = ev.currentTarget, p = b.parentNode.querySelector("pre");
      copy(b, p ? p.textContent : "", p);
    });
  }

  // Keyboard navigation between messages: j the next, k the previous (or
  // the top of the one being read). A message scrolled to sits at its
  // scroll-margin-top, under the sticky header.
  function visibleMessages() {
    var all = document.querySelectorAll("main .messages > .msg");
    var out = [];
    for (var n = 0; n < all.length; n++) if (all[n].getClientRects().length) out.push(all[n]);
    return out;
  }
  document.addEventListener("keydown", function (ev) {
    var tag = (ev.target && ev.target.tagName) || "";
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || ev.metaKey || ev.ctrlKey || ev.altKey) return;
    if (ev.key !== "j" && ev.key !== "k") return;
    var msgs = visibleMessages();
    if (!msgs.length) return;
    var y = parseFloat(getComputedStyle(msgs[0]).scrollMarginTop) || 0;
    var idx = -1;
    for (var p = 0; p < msgs.length; p++) {
      if (msgs[p].getBoundingClientRect().top <= y + 2) idx = p;
    }
    var next = ev.key === "j" ? idx + 1 : idx - 1;
    if (ev.key === "k" && idx >= 0 && msgs[idx].getBoundingClientRect().top < y - 2) next = idx;
    if (next >= 0 && next < msgs.length) {
      msgs[next].scrollIntoView({ block: "start" });
      ev.preventDefault();
    }
  });
})();

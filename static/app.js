// cctree: progressive enhancement only. The pages work without this file.
// Adds: local times, expand/collapse all, copy buttons (fork commands, code
// blocks), keyboard navigation (j/k: next/previous message, and the focus
// on code blocks that scroll sideways) and the "new"
// marks (what was written since the reader's last visit); file reads
// coloured when they are shown (highlight.js, loaded then). The search is
// static/search.js; the view menu's choice, static/view.js.
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

  // A link to a folded block (the fork-point index, #forks) or into one
  // opens it: the browser opens a <details> around a target, not the
  // <details> the target is.
  function openTarget() {
    var id = window.location.hash.slice(1), t = null;
    try { t = id ? document.getElementById(decodeURIComponent(id)) : null; } catch (e) { t = null; }
    for (var d = t; d; d = d.parentElement) if (d.tagName === "DETAILS" && !d.open) d.open = true;
  }
  openTarget();
  window.addEventListener("hashchange", openTarget);

  // An image of a one-file export (no file to open): a click shows it at
  // full size in place, and again at the column's width.
  document.addEventListener("click", function (ev) {
    var img = ev.target && ev.target.closest ? ev.target.closest("span.shot img") : null;
    if (img) img.parentNode.classList.toggle("full");
  });

  // How many of each kind the view menu's filters hide or show, on this page.
  if (main) {
    var kinds = { tools: "details.tool", thinking: "details.thinking", aux: ".msg.aux, details.reminder" };
    var counts = document.querySelectorAll(".view-pop [data-count]");
    for (var c = 0; c < counts.length; c++) {
      var sel = kinds[counts[c].getAttribute("data-count")];
      if (sel) counts[c].textContent = String(main.querySelectorAll(sel).length);
    }
  }

  // Copy buttons, added here: the fork commands and every code block. Uses
  // the clipboard API where the page may; else (or if it refuses) selects
  // the text and asks the browser to copy the selection; if that fails too,
  // the text stays selected for Ctrl+C.
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
  // A fork command's button is added when its control first opens (a page
  // may hold thousands); it copies the command's own text.
  document.addEventListener("toggle", function (ev) {
    var d = ev.target;
    if (!d.open || !d.classList || !d.classList.contains("fork-cmd")) return;
    var pop = d.querySelector(".fork-pop"), code = pop && pop.querySelector("code.cmd");
    if (!code || pop.querySelector(".copy")) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "btn copy";
    button.textContent = "copy";
    button.setAttribute("aria-label", "Copy the fork command");
    code.parentNode.insertBefore(button, code.nextSibling);
    button.addEventListener("click", function () { copy(button, code.textContent, code); });
  }, true);
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

  // A code block or output wider than the screen scrolls sideways: it takes
  // the keyboard focus (tabindex 0) so that the arrow keys can scroll it too,
  // checked again when the window or an opened <details> changes the widths.
  function scrollers() {
    var pres = document.querySelectorAll("main pre");
    for (var n = 0; n < pres.length; n++) {
      var wide = pres[n].scrollWidth > pres[n].clientWidth + 1;
      if (wide && pres[n].tabIndex < 0) pres[n].tabIndex = 0;
      else if (!wide && pres[n].getAttribute("tabindex") === "0") pres[n].removeAttribute("tabindex");
    }
  }
  scrollers();
  window.addEventListener("resize", scrollers);
  document.addEventListener("toggle", scrollers, true);
})();

// File reads coloured when shown. A file read (pre.lines[data-lang], the
// language syntect would pick, named as highlight.js names it) is plain
// numbered text in the page; the first time one is shown — its fold opened
// by the reader, by "expand all", by find or a search result, a link into
// it — the site's own copy of highlight.js (vendored, beside this script in
// the site's assets) is loaded once, as a script element (so it works from file:// and under
// the page's CSP), and each token's text is wrapped, text node by text node,
// in the <h-X> element syntax.css colours for syntect's code. The page's
// text nodes stay where they are, so words marked by find or a search
// (mark.cc-find, mark.cc-hit) stay marked. What highlight.js returns is
// parsed in an inert <template> and only its text lengths and classes are
// read: nothing of it is put into the page. An export (one file, no
// data-root) loads nothing: its file reads stay plain.
(function () {
  "use strict";
  var root = document.documentElement.getAttribute("data-root");
  var main = document.querySelector("main");
  // The highlighter lies beside this file (an export inlines this script: no src).
  var me = document.currentScript;
  var src = me && me.src ? me.src.replace(/app\.js([?#].*)?$/, "highlight.js") : "";
  if (root === null || !main || !/highlight\.js$/.test(src)) return;
  var waiting = Array.prototype.slice.call(main.querySelectorAll("pre.lines[data-lang]"));
  if (!waiting.length) return;
  // highlight.js scopes → the kinds of render::html::highlight's KINDS
  // ("": plain, as inside a string's interpolation; absent: the outer kind).
  var KIND = { comment: "c", doctag: "c", quote: "c", string: "s", regexp: "s", "char": "s", subst: "",
    number: "n", literal: "n", symbol: "n", keyword: "k", operator: "k", meta: "k", built_in: "f",
    "function": "f", type: "t", "class": "t", params: "t", name: "g", "selector-tag": "g", attr: "a",
    attribute: "a", "selector-id": "a", "selector-class": "a", section: "h", addition: "i", deletion: "d" };
  function kindOf(el, outer) {
    var cls = (el.getAttribute("class") || "").split(" ");
    var scope = cls[0].replace(/^hljs-/, "");
    if (scope === "title") return cls.indexOf("class_") >= 0 ? "t" : "f";
    return Object.prototype.hasOwnProperty.call(KIND, scope) ? KIND[scope] : outer;
  }
  // [start, end, kind] of each coloured run of `text` (null if highlight.js
  // gave back other text).
  function runsOf(text, lang) {
    var t = document.createElement("template");
    t.innerHTML = window.hljs.highlight(text, { language: lang, ignoreIllegals: true }).value;
    var runs = [], pos = 0;
    (function walk(node, kind) {
      for (var c = node.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 1) { walk(c, kindOf(c, kind)); continue; }
        if (c.nodeType !== 3) continue;
        var n = c.data.length, last = runs[runs.length - 1];
        if (kind && n && last && last[1] === pos && last[2] === kind) last[1] += n;
        else if (kind && n) runs.push([pos, pos + n, kind]);
        pos += n;
      }
    })(t.content, "");
    return pos === text.length ? runs : null;
  }
  // Wraps characters a..b of a text node in a new element `tag`.
  function wrap(node, a, b, tag) {
    var mid = a > 0 ? node.splitText(a) : node;
    if (b - a < mid.data.length) mid.splitText(b - a);
    var e = document.createElement(tag);
    mid.parentNode.replaceChild(e, mid);
    e.appendChild(mid);
  }
  function colour(pre) {
    var code = pre.querySelector("code"), lang = pre.getAttribute("data-lang");
    if (!code || !window.hljs || !window.hljs.getLanguage(lang)) return;
    var runs = null;
    try { runs = runsOf(code.textContent, lang); } catch (e) { runs = null; }
    if (!runs) return;
    var walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT), nodes = [], starts = [], at = 0, n;
    while ((n = walker.nextNode())) { nodes.push(n); starts.push(at); at += n.data.length; }
    // From the end, so that splitting a node keeps the offsets before it.
    var r = runs.length - 1;
    for (var k = nodes.length - 1; k >= 0 && r >= 0; k--) {
      var s = starts[k], e = s + nodes[k].data.length;
      while (r >= 0 && runs[r][0] >= e) r--;
      for (var q = r; q >= 0 && runs[q][1] > s; q--) {
        var a = Math.max(runs[q][0], s) - s, b = Math.min(runs[q][1], e) - s;
        if (b > a) wrap(nodes[k], a, b, "h-" + runs[q][2]);
      }
    }
    pre.classList.add("hl");
  }
  var loading = null;
  function highlighter() {
    if (!loading) loading = new Promise(function (resolve, reject) {
      if (window.hljs) { resolve(); return; }
      var s = document.createElement("script");
      s.src = src;
      s.onload = function () { if (window.hljs) resolve(); else reject(new Error("highlight.js")); };
      s.onerror = function () { reject(new Error("highlight.js")); };
      document.head.appendChild(s);
    });
    return loading;
  }
  var queued = false;
  function shown() {
    queued = false;
    var now = [];
    waiting = waiting.filter(function (pre) {
      // (The content of a closed <details> may still have boxes.)
      if (pre.closest("details:not([open])") || !pre.getClientRects().length) return true;
      now.push(pre);
      return false;
    });
    if (now.length) highlighter().then(function () { now.forEach(colour); }, function () { /* they stay plain */ });
  }
  function soon() {
    if (!queued && waiting.length) { queued = true; setTimeout(shown, 0); }
  }
  document.addEventListener("toggle", soon, true);
  document.addEventListener("change", soon);
  window.addEventListener("hashchange", soon);
  shown();
})();

// "new": the conversations, projects and messages written since the reader's
// last visit, marked. The browser keeps, per site (its root URL), when the
// reader last opened each conversation, agent transcript and project index,
// and the site itself (localStorage "cctree.visits", a few hundred entries a
// site at most); what is newer than that visit — or, for what the reader
// never opened, than their last visit of the site — is marked. The first
// visit of a tab pins the baselines (sessionStorage), so reloads keep the
// marks. localStorage may be missing or refuse (file:// in some browsers,
// private windows): then nothing is marked.
(function () {
  "use strict";
  var KEY = "cctree.visits", PIN = "cctree.visits.pinned", SITES = 10, PER_SITE = 400;
  var local, session;
  try { local = window.localStorage; session = window.sessionStorage; } catch (e) { return; }
  if (!local || !session) return;
  var root;
  try { root = new URL(document.documentElement.getAttribute("data-root") || "./", location.href); } catch (e) { return; }
  var site = root.href;
  function rel(href) {
    try {
      var u = new URL(href, location.href);
      return u.href.indexOf(site) === 0 ? u.href.slice(site.length).split("#")[0].split("?")[0] : null;
    } catch (e) { return null; }
  }
  // What a page of the site is part of: a conversation, an agent transcript, a project.
  function keyOf(path) {
    if (path === null) return null;
    var m = /^([^/]+)\/(c|agents)\/([^/]+)\//.exec(path);
    if (m) return m[1] + "/" + m[2] + "/" + m[3];
    m = /^([^/]+)\/(index\.html|page-\d+\.html)?$/.exec(path);
    return m ? m[1] + "/" : null;
  }
  function read(store, name) {
    try { var v = JSON.parse(store.getItem(name) || "null"); return v && typeof v === "object" ? v : {}; } catch (e) { return {}; }
  }
  var all = read(local, KEY), pinned = read(session, PIN);
  var mine = all[site] && typeof all[site] === "object" ? all[site] : {};
  var pins = pinned[site] && typeof pinned[site] === "object" ? pinned[site] : {};
  // The baseline of `key`: pinned at its first view in this tab.
  function baseline(key) {
    if (!(key in pins)) pins[key] = typeof mine[key] === "number" ? mine[key] : null;
    return pins[key];
  }
  var siteBase = baseline("~");
  var here = keyOf(rel(location.href));
  function since(key) {
    var own = key ? baseline(key) : null;
    return own !== null ? own : siteBase;
  }
  function newer(el, base) {
    if (base === null || !el) return false;
    var times = el.querySelectorAll("time[datetime]");
    var t = times.length ? Date.parse(times[times.length - 1].getAttribute("datetime")) : NaN;
    return !isNaN(t) && t > base;
  }
  function badge(into, before) {
    var b = document.createElement("span");
    b.className = "badge new";
    b.title = "new since your last visit";
    b.textContent = "new";
    into.insertBefore(b, before || null);
  }
  var marked = 0;
  // Rows of the archive and project indexes: a conversation, an agent, a project.
  var cards = document.querySelectorAll("main .card");
  for (var i = 0; i < cards.length; i++) {
    var link = cards[i].querySelector("a[href]");
    var key = link && keyOf(rel(link.getAttribute("href")));
    if (!key || !newer(cards[i].querySelector(".card-meta") || cards[i], since(key))) continue;
    cards[i].classList.add("new");
    badge(cards[i], link.nextSibling);
    marked++;
  }
  // Messages of a conversation or agent page.
  if (here && here.charAt(here.length - 1) !== "/") {
    var base = since(here);
    var msgs = document.querySelectorAll("main article.msg");
    for (var j = 0; j < msgs.length; j++) {
      var head = msgs[j].querySelector(".msg-head");
      if (!head || !newer(head, base)) continue;
      msgs[j].classList.add("new");
      var role = head.querySelector(".role");
      badge(head, role ? role.nextSibling : head.firstChild);
      marked++;
    }
  }
  if (marked) document.documentElement.setAttribute("data-new", String(marked));
  // This visit, for the next one.
  var now = Date.now();
  mine["~"] = now;
  if (here) mine[here] = now;
  var keys = Object.keys(mine);
  if (keys.length > PER_SITE) {
    keys.sort(function (a, b) { return mine[b] - mine[a]; });
    for (var k = PER_SITE; k < keys.length; k++) delete mine[keys[k]];
  }
  all[site] = mine;
  var sites = Object.keys(all);
  if (sites.length > SITES) {
    var last = function (s) { return (all[s] && all[s]["~"]) || 0; };
    sites.sort(function (a, b) { return last(b) - last(a); });
    for (var x = SITES; x < sites.length; x++) delete all[sites[x]];
  }
  pinned[site] = pins;
  try { local.setItem(KEY, JSON.stringify(all)); session.setItem(PIN, JSON.stringify(pinned)); } catch (e) { /* not kept */ }
})();

// cctree search: the archive-wide full-text search (the box at the top of
// every page), find within a page, and the words of a search highlighted on
// the page a result leads to. Progressive enhancement: pages work without it.
//
// The index (written by src/render/search/, whose module doc describes it)
// is a set of scripts that assign data to CCTREE_SEARCH[id]; they are loaded
// as script elements when a search needs them, so search works from
// file:// (where fetch() of local files is refused) and on any static host
// under any sub-path. Text from the index is only ever put into the page as
// text (textContent, text nodes), never as markup.
(function () {
  "use strict";
  var root = document.documentElement.getAttribute("data-root") || "";
  var store = (self.CCTREE_SEARCH = self.CCTREE_SEARCH || {});
  var main = document.querySelector("main");

  // --- Loading the index ----------------------------------------------------
  var loads = {};
  function load(id, path) {
    if (loads[id]) return loads[id];
    loads[id] = new Promise(function (resolve, reject) {
      if (store[id] !== undefined) { resolve(store[id]); return; }
      var s = document.createElement("script");
      s.src = root + path;
      s.onload = function () {
        s.remove();
        if (store[id] === undefined) { delete loads[id]; reject(new Error(path)); } else resolve(store[id]);
      };
      s.onerror = function () { s.remove(); delete loads[id]; reject(new Error(path)); };
      document.head.appendChild(s);
    });
    return loads[id];
  }
  function manifest() { return load("index", "search/index.js"); }

  // --- Terms: the rules of src/render/search/terms.rs -----------------------
  var TERM_CHARS = 24;
  var WORDCHAR = /[\p{Alphabetic}\p{N}]/u;
  function ideograph(cp) {
    return (cp >= 0x3040 && cp <= 0x30ff) || (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x4e00 && cp <= 0x9fff) ||
      (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x20000 && cp <= 0x2ffff);
  }
  // Calls f(term, start, end) for every term of text (start, end: offsets in text).
  function eachTerm(text, f) {
    var term = "", n = 0, start = -1, i = 0;
    function flush(end) {
      if (term) f(term, start, end);
      term = ""; n = 0; start = -1;
    }
    while (i < text.length) {
      var cp = text.codePointAt(i);
      var len = cp > 0xffff ? 2 : 1;
      if (cp < 0x80) {
        if ((cp >= 48 && cp <= 57) || (cp >= 97 && cp <= 122) || (cp >= 65 && cp <= 90)) {
          if (start < 0) start = i;
          if (n < TERM_CHARS) { term += String.fromCharCode(cp >= 65 && cp <= 90 ? cp + 32 : cp); n++; }
        } else flush(i);
      } else {
        var ch = text.substr(i, len);
        if (ideograph(cp)) {
          flush(i);
          f(ch, i, i + len);
        } else if (WORDCHAR.test(ch)) {
          if (start < 0) start = i;
          var low = Array.from(ch.toLowerCase());
          for (var k = 0; k < low.length; k++) if (n < TERM_CHARS) { term += low[k]; n++; }
        } else flush(i);
      }
      i += len;
    }
    flush(i);
  }
  // The terms of a query; each but a one-character one also matches as the
  // start of a longer term (words are found while they are typed). Words
  // joined by one "-" or "_" are asked for as their pairs (terms.rs: the
  // index holds `file-history` for "file-history"), so that a hyphenated
  // word is found as one; `words` are the words alone, which are marked.
  function queryTerms(q) {
    var found = [];
    eachTerm(q, function (t, s, e) { found.push({ t: t, s: s, e: e, ideo: ideograph(t.codePointAt(0)) && Array.from(t).length === 1 }); });
    var out = [], words = [], seen = {}, seenWord = {}, paired = {};
    function add(list, mark, t) {
      if (mark[t]) return;
      mark[t] = 1;
      list.push({ t: t, prefix: Array.from(t).length > 1 });
    }
    for (var k = 1; k < found.length; k++) {
      var a = found[k - 1], b = found[k], j = q.charAt(a.e);
      if (!a.ideo && !b.ideo && a.e + 1 === b.s && (j === "-" || j === "_")) {
        add(out, seen, a.t + "-" + b.t);
        paired[k - 1] = paired[k] = 1;
      }
    }
    found.forEach(function (f, k) {
      if (!paired[k]) add(out, seen, f.t);
      add(words, seenWord, f.t);
    });
    out.words = words;
    return out;
  }
  function matcher(terms) {
    return function (term) {
      for (var k = 0; k < terms.length; k++) {
        var q = terms[k];
        if (term === q.t || (q.prefix && term.lastIndexOf(q.t, 0) === 0)) return true;
      }
      return false;
    };
  }

  // --- Posting lists ---------------------------------------------------------
  // A shard: its terms, and each term's posting list in `bytes`.
  function shardData(data) {
    if (data.bytes) return data;
    var bin = atob(data.p);
    var bytes = new Uint8Array(bin.length);
    for (var k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
    var at = { i: 0 }, starts = [], ends = [];
    for (var t = 0; t < data.terms.length; t++) {
      var len = varint(bytes, at);
      starts.push(at.i); ends.push(at.i + len); at.i += len;
    }
    data.bytes = bytes; data.starts = starts; data.ends = ends;
    return data;
  }
  function varint(bytes, at) {
    var v = 0, mul = 1, b;
    do { b = bytes[at.i++]; v += (b & 0x7f) * mul; mul *= 128; } while (b >= 0x80 && at.i < bytes.length);
    return v;
  }
  // The docs of a posting list: [unit, page, doc, unit, page, doc, …], in order.
  function docsOf(shard, t) {
    var bytes = shard.bytes, at = { i: shard.starts[t] }, end = shard.ends[t], out = [], c = -1;
    while (at.i < end) {
      c += varint(bytes, at) + 1;
      var stop = varint(bytes, at);
      stop += at.i;
      var q = -1;
      while (at.i < stop) {
        q += varint(bytes, at) + 1;
        var n = varint(bytes, at) + 1, d = -1;
        for (var j = 0; j < n; j++) { d += varint(bytes, at) + 1; out.push(c, q, d); }
      }
    }
    return out;
  }
  function cmp(a, i, b, j) { return (a[i] - b[j]) || (a[i + 1] - b[j + 1]) || (a[i + 2] - b[j + 2]); }
  function union(a, b) {
    var out = [], i = 0, j = 0;
    while (i < a.length && j < b.length) {
      var c = cmp(a, i, b, j);
      if (c <= 0) { out.push(a[i], a[i + 1], a[i + 2]); i += 3; if (c === 0) j += 3; }
      else { out.push(b[j], b[j + 1], b[j + 2]); j += 3; }
    }
    for (; i < a.length; i++) out.push(a[i]);
    for (; j < b.length; j++) out.push(b[j]);
    return out;
  }
  function intersect(a, b) {
    var out = [], i = 0, j = 0;
    while (i < a.length && j < b.length) {
      var c = cmp(a, i, b, j);
      if (c === 0) { out.push(a[i], a[i + 1], a[i + 2]); i += 3; j += 3; } else if (c < 0) i += 3; else j += 3;
    }
    return out;
  }
  function unionAll(lists) {
    if (!lists.length) return [];
    while (lists.length > 1) {
      var next = [];
      for (var k = 0; k < lists.length; k += 2) next.push(k + 1 < lists.length ? union(lists[k], lists[k + 1]) : lists[k]);
      lists = next;
    }
    return lists[0];
  }

  var PREFIX_TERMS = 200, PREFIX_SHARDS = 3;
  // The shard holding term t: the last whose first term is not after it.
  function shardIndex(m, t) {
    var lo = 0, hi = m.shards.length - 1, at = -1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (m.shards[mid][0] <= t) { at = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return at;
  }
  function loadShard(m, k) {
    var name = m.shards[k][1];
    return load("t/" + name, "search/t/" + name + ".js").then(shardData);
  }
  // Whether a search finds what pages hide until the reader shows system
  // entries (indexed under `~term`, docs.rs: a side entry, a reminder in a
  // tool's output): when the view menu shows them, or the reader asked.
  var hiddenAsked = false;
  function withHidden() {
    var aux = document.getElementById("show-aux");
    return hiddenAsked || !!(aux && aux.checked);
  }
  // The docs holding a query term, and with `hidden` the hidden text holding it.
  function termDocs(m, q, hidden) {
    if (!hidden) return visibleDocs(m, q);
    return Promise.all([visibleDocs(m, q), visibleDocs(m, { t: "~" + q.t, prefix: q.prefix })]).then(function (l) { return union(l[0], l[1]); });
  }
  // The docs holding a term (or, for a prefix, any term it starts).
  function visibleDocs(m, q) {
    var first = shardIndex(m, q.t);
    if (first < 0) first = 0;
    if (!m.shards.length) return Promise.resolve([]);
    var ks = [first];
    if (q.prefix) {
      for (var k = first + 1; k < m.shards.length && ks.length < PREFIX_SHARDS && m.shards[k][0].lastIndexOf(q.t, 0) === 0; k++) ks.push(k);
    }
    return Promise.all(ks.map(function (k) { return loadShard(m, k); })).then(function (shards) {
      var lists = [], found = 0;
      shards.forEach(function (s) {
        var lo = 0, hi = s.terms.length;
        while (lo < hi) { var mid = (lo + hi) >> 1; if (s.terms[mid] < q.t) lo = mid + 1; else hi = mid; }
        for (var t = lo; t < s.terms.length && found < PREFIX_TERMS; t++) {
          var term = s.terms[t];
          if (term === q.t || (q.prefix && term.lastIndexOf(q.t, 0) === 0)) { lists.push(docsOf(s, t)); found++; }
          else break;
        }
      });
      return unionAll(lists);
    });
  }

  // --- Searching -------------------------------------------------------------
  // Every doc holding all terms, grouped by unit: [{c, title, docs: [q, d, …]}],
  // units whose title holds them first, then the newest first.
  function run(m, terms, hidden) {
    return Promise.all(terms.map(function (q) { return termDocs(m, q, hidden); })).then(function (lists) {
      lists.sort(function (a, b) { return a.length - b.length; });
      var docs = lists[0];
      for (var k = 1; k < lists.length && docs.length; k++) docs = intersect(docs, lists[k]);
      var units = [];
      for (var i = 0; i < docs.length; i += 3) {
        var u = units[units.length - 1];
        if (!u || u.c !== docs[i]) { u = { c: docs[i], title: false, docs: [] }; units.push(u); }
        if (docs[i + 1] === 0) u.title = true; else u.docs.push(docs[i + 1], docs[i + 2]);
      }
      units.sort(function (a, b) { return (b.title - a.title) || (b.c - a.c); });
      return units;
    });
  }
  function unitOf(m, c) {
    var k = Math.floor(c / m.unitChunk);
    return load("u/" + k, "search/u/" + k + ".js").then(function (list) {
      var u = list[c - k * m.unitChunk];
      return { title: u[0], project: u[1], key: u[2], pages: u[3] };
    });
  }
  function docFile(page) {
    var mm = /(?:index|page-(\d+))\.html$/.exec(page);
    return page.slice(0, page.length - mm[0].length) + "search-" + (mm[1] || "1") + ".js";
  }
  function docOf(unit, q, d) {
    var path = docFile(unit.pages[q - 1]);
    return load("d/" + path, path).then(function (data) {
      var x = data.docs[d];
      // [anchor, role, number, excerpt, whole text's index (-1: none)?, place?]
      var cut = typeof x[4] === "number" && x[4] >= 0 ? x[4] : undefined;
      return { page: unit.pages[q - 1], anchor: x[0], role: x[1], number: x[2], text: x[3], cut: cut, file: data, on: x.length > 5 ? x[5] : data.on };
    });
  }
  // The whole text of a doc whose excerpt was cut: the doc file keeps the
  // whole texts deflated (raw deflate, in base64) in `z`; they are inflated
  // once per file, the first time a hit lies past an excerpt.
  function wholeText(doc) {
    var file = doc.file;
    if (typeof doc.cut !== "number" || typeof file.z !== "string") return Promise.resolve(null);
    if (!file.wholes) file.wholes = inflate(file.z).then(JSON.parse);
    return file.wholes.then(function (texts) { return typeof texts[doc.cut] === "string" ? texts[doc.cut] : null; });
  }
  function inflate(b64) {
    if (typeof DecompressionStream !== "function") return Promise.reject(new Error("no DecompressionStream"));
    var bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (var k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
    return new Response(stream).text();
  }

  // --- Showing text with its hits marked -----------------------------------------
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }
  // Appends `text` to `parent`, the terms `match` accepts in <mark>s.
  function marked(parent, text, match) {
    var last = 0;
    eachTerm(text, function (t, s, e) {
      if (!match(t)) return;
      if (s > last) parent.appendChild(document.createTextNode(text.slice(last, s)));
      parent.appendChild(el("mark", "", text.slice(s, e)));
      last = e;
    });
    if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
  }
  var BEFORE = 60, WINDOW = 220;
  // The part of a text around its first hit ("…" where cut), or its start
  // when the hit lies past what the text keeps.
  function around(text, match) {
    var hit = -1;
    eachTerm(text, function (t, s) { if (hit < 0 && match(t)) hit = s; });
    if (hit < 0) return { text: clip(text.replace(/\n/g, " · "), 0, WINDOW), hit: false };
    var from = text.lastIndexOf("\n", hit) + 1, to = text.indexOf("\n", hit);
    if (to < 0) to = text.length;
    var start = Math.max(from, hit - BEFORE);
    if (start > from) { var sp = text.indexOf(" ", start); if (sp >= 0 && sp < hit) start = sp + 1; }
    var piece = text.slice(start, Math.min(to, start + WINDOW));
    return { text: (start > from ? "…" : "") + piece + (start + WINDOW < to ? "…" : ""), hit: true };
  }
  function clip(s, a, n) { return s.length > a + n ? s.slice(a, a + n) + "…" : s.slice(a); }

  // --- The search box --------------------------------------------------------
  var box = document.getElementById("search");
  var input = document.getElementById("search-input");
  var list = document.getElementById("search-results");
  var selected = -1, generation = 0, timer = 0, shown = 0, current = null;
  var PAGE = 20, HITS = 3;

  function clearList() {
    while (list.firstChild) list.removeChild(list.firstChild);
    selected = -1;
  }
  function status(text) {
    var li = el("li", "none", text);
    list.appendChild(li);
    return li;
  }
  function hlParam(terms) {
    return "?hl=" + encodeURIComponent((terms.words || terms).map(function (q) { return q.t; }).join(" "));
  }
  function search() {
    var q = input.value.trim();
    var gen = ++generation;
    var terms = queryTerms(q);
    if (!terms.length) { clearList(); list.hidden = true; return; }
    var hidden = withHidden();
    manifest().then(function (m) {
      if (gen !== generation) return null;
      if (m.v !== 1) throw new Error("index format " + m.v);
      return run(m, terms, hidden).then(function (units) {
        if (gen !== generation) return;
        clearList();
        current = { m: m, terms: terms, match: matcher(terms.words), units: units, gen: gen };
        shown = 0;
        findRow(q);
        projectRows(m, terms.words);
        if (!units.length) status(list.childNodes.length ? "No messages match" : "No matches");
        else status(units.length + (units.length === 1 ? " conversation" : " conversations"));
        hiddenRow(hidden);
        more();
        list.hidden = false;
      });
    }).catch(function () {
      if (gen !== generation) return;
      clearList();
      status("The search index could not be loaded");
      list.hidden = false;
    });
  }
  // What pages hide until the reader shows system entries (injected
  // instructions, reminders, hooks) is found only when asked for.
  function hiddenRow(hidden) {
    var aux = document.getElementById("show-aux");
    if (hidden && !hiddenAsked) {
      status("System entries included (the view menu shows them)");
      return;
    }
    var li = el("li", "sr-hidden");
    var b = el("button", "sr-action", hidden ? "Leave system entries out" : "Also search system entries (hidden on pages)");
    b.type = "button";
    b.setAttribute("aria-pressed", hidden ? "true" : "false");
    b.addEventListener("click", function () { hiddenAsked = !hidden; search(); input.focus(); });
    li.appendChild(b);
    list.appendChild(li);
    if (aux && aux.checked) li.hidden = true;
  }
  // "Find on this page", on pages of messages.
  function findRow(q) {
    if (!findable()) return;
    var li = el("li", "sr-find");
    var b = el("button", "sr-action", "");
    b.type = "button";
    b.appendChild(document.createTextNode("Find “"));
    b.appendChild(el("span", "", q));
    b.appendChild(document.createTextNode("” on this page"));
    b.addEventListener("click", function () { list.hidden = true; openFind(q); });
    li.appendChild(b);
    list.appendChild(li);
  }
  function projectRows(m, terms) {
    var match = matcher(terms);
    (m.projects || []).forEach(function (p) {
      var names = {};
      eachTerm(p[0], function (t) { names[t] = 1; });
      var all = terms.every(function (q) { return Object.keys(names).some(function (t) { return t === q.t || (q.prefix && t.lastIndexOf(q.t, 0) === 0); }); });
      if (!all) return;
      var li = el("li", "sr-project");
      var a = el("a");
      a.href = root + p[1] + "index.html";
      a.appendChild(el("span", "kind", "project"));
      marked(a, p[0], match);
      li.appendChild(a);
      list.appendChild(li);
    });
  }
  // Shows the next PAGE units of the current results.
  function more() {
    var r = current;
    var old = list.querySelector(".sr-more");
    if (old) old.parentNode.removeChild(old);
    var batch = r.units.slice(shown, shown + PAGE);
    shown += batch.length;
    batch.forEach(function (u) { list.appendChild(unitRow(r, u)); });
    if (shown < r.units.length) {
      var li = el("li", "sr-more");
      var b = el("button", "sr-action", "More results (" + (r.units.length - shown) + " more)");
      b.type = "button";
      b.addEventListener("click", function () { more(); input.focus(); });
      li.appendChild(b);
      list.appendChild(li);
    }
  }
  function unitRow(r, u) {
    var li = el("li", "sr-unit");
    var head = el("a", "sr-title");
    head.appendChild(el("span", "sr-wait", "…"));
    li.appendChild(head);
    var meta = el("span", "sr-meta");
    li.appendChild(meta);
    var hits = el("ol", "sr-hits");
    li.appendChild(hits);
    var n = u.docs.length / 2;
    var rows = [];
    for (var k = 0; k < Math.min(n, HITS); k++) {
      var a = el("a");
      a.appendChild(el("span", "sr-wait", "…"));
      var h = el("li");
      h.appendChild(a);
      hits.appendChild(h);
      rows.push(a);
    }
    unitOf(r.m, u.c).then(function (unit) {
      if (r.gen !== generation) return;
      head.textContent = "";
      head.href = root + unit.key + "index.html" + hlParam(r.terms);
      marked(head, unit.title || "(untitled)", r.match);
      meta.textContent = unit.project + (n ? " · " + n + (n === 1 ? " message" : " messages") : "");
      rows.forEach(function (a, k) {
        docOf(unit, u.docs[2 * k], u.docs[2 * k + 1]).then(function (doc) {
          if (r.gen !== generation) return;
          var ex = around(doc.text, r.match);
          function show(ex) {
            if (r.gen !== generation) return;
            a.textContent = "";
            a.href = root + doc.page + hlParam(r.terms) + "#" + doc.anchor;
            a.appendChild(el("span", "sr-role", doc.role + (doc.number ? " #" + doc.number : "")));
            if (typeof doc.on === "string" && doc.on) a.appendChild(el("span", "sr-on", doc.on));
            var span = el("span", "sr-text");
            marked(span, ex.text, r.match);
            a.appendChild(span);
            if (!ex.hit) a.appendChild(el("span", "sr-note", "the match is further down this message"));
          }
          if (ex.hit) { show(ex); return; }
          // Past the excerpt: the words around it in the message's whole text.
          wholeText(doc).then(function (whole) {
            var w = whole === null ? ex : around(whole, r.match);
            show(w.hit ? w : ex);
          }, function () { show(ex); });
        }, function () { a.textContent = "(not found in the index)"; });
      });
    }, function () { head.textContent = "(not found in the index)"; });
    return li;
  }
  function items() { return list.querySelectorAll("a, button"); }
  function move(delta) {
    var all = items();
    if (!all.length) return;
    if (selected >= 0 && all[selected]) all[selected].classList.remove("sel");
    selected = (selected + delta + all.length) % all.length;
    all[selected].classList.add("sel");
    all[selected].scrollIntoView({ block: "nearest" });
  }
  if (box && input && list) {
    box.hidden = false;
    // A phone's header leaves the box about 120 px: a short hint fits it.
    var narrow = window.matchMedia && window.matchMedia("(max-width: 640px)").matches;
    input.placeholder = narrow ? "Search…" : "Search all conversations…";
    input.addEventListener("focus", function () {
      // The manifest loads while the first words are typed.
      manifest().catch(function () {});
      if (input.value.trim() && !list.childNodes.length) search(); else if (list.childNodes.length) list.hidden = false;
    });
    input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(search, 60); });
    input.addEventListener("keydown", function (ev) {
      if (ev.key === "ArrowDown") { move(1); ev.preventDefault(); }
      else if (ev.key === "ArrowUp") { move(-1); ev.preventDefault(); }
      else if (ev.key === "Enter") {
        var all = items();
        var target = all[selected >= 0 ? selected : 0];
        if (selected < 0) { for (var k = 0; k < all.length; k++) if (all[k].tagName === "A" && all[k].href) { target = all[k]; break; } }
        if (target && target.tagName === "A" && target.href) window.location.href = target.href;
        else if (target) target.click();
        ev.preventDefault();
      } else if (ev.key === "Escape") { list.hidden = true; input.blur(); }
    });
    list.addEventListener("keydown", function (ev) {
      if (ev.key === "ArrowDown") { move(1); ev.preventDefault(); }
      else if (ev.key === "ArrowUp") { move(-1); ev.preventDefault(); }
      else if (ev.key === "Escape") { list.hidden = true; input.focus(); }
    });
    document.addEventListener("click", function (ev) {
      if (!box.contains(ev.target)) list.hidden = true;
    });
    // ?q=words opens with that search (shareable, testable).
    var qs = /[?&]q=([^&#]*)/.exec(window.location.search);
    if (qs) {
      try { input.value = decodeURIComponent(qs[1].replace(/\+/g, " ")); } catch (e) { input.value = ""; }
      search();
    }
  }

  // --- Find within the page --------------------------------------------------
  function findable() { return !!(main && main.querySelector(".messages .msg")); }
  var bar = null, findInput = null, count = null, marks = [], at = -1;
  function buildBar() {
    bar = el("div", "findbar");
    bar.hidden = true;
    bar.setAttribute("role", "search");
    findInput = el("input");
    findInput.type = "search";
    findInput.placeholder = "Find on this page";
    findInput.setAttribute("aria-label", "Find on this page");
    findInput.autocomplete = "off";
    count = el("span", "find-count");
    count.setAttribute("aria-live", "polite");
    var prev = el("button", "btn", "↑"), next = el("button", "btn", "↓"), close = el("button", "btn", "×");
    prev.type = next.type = close.type = "button";
    prev.title = "Previous (Shift+Enter)"; next.title = "Next (Enter)"; close.title = "Close (Esc)";
    prev.setAttribute("aria-label", "Previous match");
    next.setAttribute("aria-label", "Next match");
    close.setAttribute("aria-label", "Close");
    prev.addEventListener("click", function () { step(-1); });
    next.addEventListener("click", function () { step(1); });
    close.addEventListener("click", closeFind);
    [findInput, count, prev, next, close].forEach(function (x) { bar.appendChild(x); });
    document.body.appendChild(bar);
    var t = 0;
    findInput.addEventListener("input", function () { clearTimeout(t); t = setTimeout(function () { find(findInput.value); }, 120); });
    findInput.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter") { if (marks.length === 0 || findInput.value !== bar.query) find(findInput.value); else step(ev.shiftKey ? -1 : 1); ev.preventDefault(); }
      else if (ev.key === "Escape") { closeFind(); ev.preventDefault(); }
    });
  }
  function openFind(q) {
    if (!bar) buildBar();
    bar.hidden = false;
    // The page keeps room below its last lines for the bar (style.css).
    document.documentElement.classList.add("finding");
    if (q !== undefined) { findInput.value = q; find(q); }
    findInput.focus();
    findInput.select();
  }
  function closeFind() {
    unmark("find");
    marks = []; at = -1;
    if (bar) { bar.hidden = true; bar.query = ""; }
    document.documentElement.classList.remove("finding");
  }
  function unmark(cls) {
    var ms = main.querySelectorAll("mark.cc-" + cls);
    for (var k = 0; k < ms.length; k++) {
      var m = ms[k], p = m.parentNode;
      while (m.firstChild) p.insertBefore(m.firstChild, m);
      p.removeChild(m);
      p.normalize();
    }
  }
  var FIND_MAX = 5000;
  // Marks every occurrence of q (any case) in the page's text, across the
  // elements it spans, and goes to the first.
  function find(q) {
    unmark("find");
    marks = []; at = -1;
    bar.query = q;
    var needle = q.toLowerCase();
    if (!needle.trim()) { count.textContent = ""; return; }
    var walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
    var nodes = [], starts = [], text = "", n;
    while ((n = walker.nextNode())) { nodes.push(n); starts.push(text.length); text += n.data; }
    var hay = lowerSameLength(text);
    var found = [], i = 0;
    while (found.length < FIND_MAX && (i = hay.indexOf(needle, i)) >= 0) { found.push(i); i += needle.length; }
    var groups = [];
    for (var f = found.length - 1; f >= 0; f--) {
      var s = found[f], e = s + needle.length, parts = [];
      var k = upper(starts, e - 1);
      for (; k >= 0 && starts[k] + nodes[k].data.length > s; k--) {
        var node = nodes[k], a = Math.max(0, s - starts[k]), b = Math.min(node.data.length, e - starts[k]);
        if (b <= a) continue;
        parts.unshift(wrap(node, a, b, "cc-find"));
      }
      groups.unshift(parts);
    }
    marks = groups.filter(function (g) { return g.length && shownOrOpenable(g[0]); });
    groups.forEach(function (g) { if (g.length && marks.indexOf(g) < 0) g.forEach(unwrapOne); });
    if (!marks.length) { count.textContent = "no matches"; return; }
    step(1);
  }
  // The text lowercased character by character, so that offsets stay.
  function lowerSameLength(s) {
    var low = s.toLowerCase();
    if (low.length === s.length) return low;
    var out = "";
    for (var k = 0; k < s.length; k++) { var c = s[k], l = c.toLowerCase(); out += l.length === 1 ? l : c; }
    return out;
  }
  function upper(starts, pos) {
    var lo = 0, hi = starts.length - 1, r = 0;
    while (lo <= hi) { var mid = (lo + hi) >> 1; if (starts[mid] <= pos) { r = mid; lo = mid + 1; } else hi = mid - 1; }
    return r;
  }
  // Wraps characters a..b of a text node in a <mark>; returns the mark.
  function wrap(node, a, b, cls) {
    var mid = node;
    if (a > 0) mid = node.splitText(a);
    if (b - a < mid.data.length) mid.splitText(b - a);
    var m = el("mark", cls);
    mid.parentNode.replaceChild(m, mid);
    m.appendChild(mid);
    return m;
  }
  function unwrapOne(m) {
    var p = m.parentNode;
    if (!p) return;
    while (m.firstChild) p.insertBefore(m.firstChild, m);
    p.removeChild(m);
  }
  // Whether a mark is on screen, or would be once the <details> around it open
  // (a match inside a hidden side entry is not counted).
  function shownOrOpenable(m) {
    if (m.getClientRects().length) return true;
    var d = m.closest("details:not([open])");
    return !!d && d.getClientRects().length > 0;
  }
  function openAround(node) {
    for (var d = node.parentElement; d; d = d.parentElement) {
      if (d.tagName === "DETAILS" && !d.open) d.open = true;
    }
  }
  function step(delta) {
    if (!marks.length) return;
    if (at >= 0) marks[at].forEach(function (m) { m.classList.remove("cur"); });
    at = (at + delta + marks.length) % marks.length;
    marks[at].forEach(function (m) { m.classList.add("cur"); });
    openAround(marks[at][0]);
    marks[at][0].scrollIntoView({ block: "center" });
    count.textContent = (at + 1) + "/" + marks.length + (marks.length >= FIND_MAX ? "+" : "");
  }

  // --- Arriving from a search result ----------------------------------------------
  // page.html?hl=words#m-<uuid>: the words marked in that message (or the
  // page), the collapsed blocks that hold them opened, the first in view.
  function arrive() {
    var hl = /[?&]hl=([^&#]*)/.exec(window.location.search);
    if (!hl || !main) return;
    var words;
    try { words = decodeURIComponent(hl[1].replace(/\+/g, " ")); } catch (e) { return; }
    var terms = queryTerms(words);
    if (!terms.length) return;
    var match = matcher(terms.words);
    var id = window.location.hash.slice(1), target = null;
    try { target = id ? document.getElementById(decodeURIComponent(id)) : null; } catch (e) { target = null; }
    // The words of the messages, not of their headers (the number, the
    // time) nor of the map's drawing (no <mark> in an SVG).
    var walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT, {
      acceptNode: function (t) { return t.parentElement && t.parentElement.closest(".msg-head, svg") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT; }
    }), nodes = [], n;
    while ((n = walker.nextNode())) nodes.push(n);
    nodes.forEach(function (node) {
      var spans = [];
      eachTerm(node.data, function (t, s, e) { if (match(t)) spans.push([s, e]); });
      for (var k = spans.length - 1; k >= 0; k--) wrap(node, spans[k][0], spans[k][1], "cc-hit");
    });
    // Open what holds the words in the message the result named (else the first).
    var inTarget = target ? target.querySelectorAll("mark.cc-hit") : [];
    var all = inTarget.length ? inTarget : main.querySelectorAll("mark.cc-hit");
    if (!all.length) return;
    for (var k = 0; k < all.length && k < (inTarget.length ? 50 : 1); k++) {
      openAround(all[k]);
      // A hit in a reminder the page hides (a search that asked for system entries).
      var r = all[k].closest("details.reminder");
      if (r) r.classList.add("cc-shown");
    }
    all[0].scrollIntoView({ block: "center" });
  }

  // --- Keys ------------------------------------------------------------------
  document.addEventListener("keydown", function (ev) {
    var tag = (ev.target && ev.target.tagName) || "";
    if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && (ev.key === "f" || ev.key === "F") && findable()) {
      // Ctrl+F opens the page's find, which also looks inside collapsed
      // blocks; pressed again there, the browser's own.
      if (bar && document.activeElement === findInput) return;
      ev.preventDefault();
      openFind();
      return;
    }
    if (tag === "INPUT" || tag === "TEXTAREA" || ev.metaKey || ev.ctrlKey || ev.altKey) return;
    if (ev.key === "/" && input) { input.focus(); input.select(); ev.preventDefault(); }
  });

  arrive();
})();

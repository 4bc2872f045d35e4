// cctree export: find text in this file (the site's search index is not
// here). Progressive enhancement: without it the file reads the same.
(function () {
  "use strict";
  var box = document.getElementById("find");
  var input = document.getElementById("find-input");
  var list = document.getElementById("find-results");
  var aux = document.getElementById("show-aux");
  if (!box || !input || !list) return;
  var messages = [];
  var all = document.querySelectorAll("main section.export-section article.msg[id]");
  for (var i = 0; i < all.length; i++) {
    var section = all[i].closest("section.export-section");
    var label = section && section.querySelector(".line-head h1");
    var role = all[i].querySelector(".role");
    var num = all[i].querySelector(".num");
    messages.push({
      el: all[i],
      // The message's body (not the fork command of its head).
      text: ((all[i].querySelector(".msg-body") || all[i]).textContent || "").replace(/\s+/g, " "),
      where: ((num ? num.textContent + " " : "") + (role ? role.textContent : "")).trim(),
      track: label ? label.textContent : ""
    });
  }
  var selected = -1;
  var hits = [];
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }
  function snippet(text, lower, term) {
    var at = lower.indexOf(term);
    var from = Math.max(0, at - 60);
    var span = el("span", "text");
    span.appendChild(document.createTextNode((from > 0 ? "…" : "") + text.slice(from, at)));
    span.appendChild(el("mark", "", text.slice(at, at + term.length)));
    span.appendChild(document.createTextNode(text.slice(at + term.length, at + term.length + 100) + "…"));
    return span;
  }
  function find() {
    var q = input.value.toLowerCase().trim();
    while (list.firstChild) list.removeChild(list.firstChild);
    selected = -1;
    hits = [];
    if (!q) { list.hidden = true; return; }
    var terms = q.split(/\s+/);
    var found = 0;
    for (var k = 0; k < messages.length; k++) {
      var m = messages[k];
      var lower = m.text.toLowerCase();
      var ok = true;
      for (var t = 0; t < terms.length; t++) if (lower.indexOf(terms[t]) < 0) { ok = false; break; }
      if (!ok) continue;
      found++;
      if (hits.length >= 60) continue;
      hits.push(m);
      var a = el("a");
      a.href = "#" + m.el.id;
      a.appendChild(el("span", "kind", m.where));
      a.appendChild(document.createTextNode(m.track));
      a.appendChild(snippet(m.text, lower, terms[0]));
      var li = el("li");
      li.appendChild(a);
      list.appendChild(li);
    }
    if (!found) list.appendChild(el("li", "none", "No matches"));
    else if (found > hits.length) list.appendChild(el("li", "none", found + " messages match; the first " + hits.length + " are listed"));
    list.hidden = false;
  }
  function reveal(m) {
    if (aux && m.el.classList.contains("aux") && !aux.checked) aux.checked = true;
    for (var p = m.el.parentElement; p; p = p.parentElement) if (p.tagName === "DETAILS") p.open = true;
    var prev = document.querySelector("article.msg.found");
    if (prev) prev.classList.remove("found");
    m.el.classList.add("found");
  }
  list.addEventListener("click", function (ev) {
    var a = ev.target.closest && ev.target.closest("a");
    if (!a) return;
    for (var h = 0; h < hits.length; h++) if ("#" + hits[h].el.id === a.getAttribute("href")) reveal(hits[h]);
    list.hidden = true;
  });
  function move(delta) {
    var links = list.querySelectorAll("a");
    if (!links.length) return;
    if (selected >= 0 && links[selected]) links[selected].classList.remove("sel");
    selected = (selected + delta + links.length) % links.length;
    links[selected].classList.add("sel");
    links[selected].scrollIntoView({ block: "nearest" });
  }
  box.hidden = false;
  // A phone's header leaves the box about 120 px: a short hint fits it.
  var narrow = window.matchMedia && window.matchMedia("(max-width: 640px)").matches;
  input.placeholder = narrow ? "Find…" : "Find in this conversation…";
  input.addEventListener("input", find);
  input.addEventListener("focus", find);
  input.addEventListener("keydown", function (ev) {
    if (ev.key === "ArrowDown") { move(1); ev.preventDefault(); }
    else if (ev.key === "ArrowUp") { move(-1); ev.preventDefault(); }
    else if (ev.key === "Enter") {
      var links = list.querySelectorAll("a");
      var target = links[selected >= 0 ? selected : 0];
      if (target) target.click();
    } else if (ev.key === "Escape") { list.hidden = true; input.blur(); }
  });
  document.addEventListener("click", function (ev) {
    if (!box.contains(ev.target)) list.hidden = true;
  });
  document.addEventListener("keydown", function (ev) {
    var tag = (ev.target && ev.target.tagName) || "";
    if (tag === "INPUT" || tag === "TEXTAREA" || ev.metaKey || ev.ctrlKey || ev.altKey) return;
    if (ev.key === "/") { input.focus(); ev.preventDefault(); }
  });
})();

// What a reader of a rendered cctree site follows, in Debian's
// chromium (playwright-core):
//
//   node reader.mjs --spec SPEC.json [--shots DIR]
//
// SPEC.json (written by tests/integration/browser.rs from the graph):
//   { "sites": [ { "name": "example", "dir": "/abs/site",
//       "conversations": [ { "page": "proj/c/<root>/index.html", "forks": true,
//           "first": "m-<uuid>", "last": "m-<uuid>", "off": ["m-<uuid>", …] } ] } ] }
//
// For every conversation: its page and the pages after it (rel=next) read the
// active line: the first prompt on the first page, the last prompt of the
// active line on the last page, visible, and no message of another branch
// (`off`) anywhere on them. A conversation with forks has its map.
// For every page of every conversation (c/…): each fork landmark is visible
// (with the reader's default settings, and outside any message), and every
// link of a fork landmark, of the fork-point index and of the map lands on an
// element that is there and visible when the page opens — never on an entry
// the page hides; with the view "prompts and answers only", each of those
// links shows its target. The view menu (see `controls`), on the first
// conversation of each site. Screenshots of the first conversation page with
// a map, at 1280 px and 390 px, light and dark. Mobile and access (see
// `access`): header height, sideways scroll, contrast, j/k, copy buttons.
//
// SPEC.json also names, per site, `fork_projects`: the `--projects` argument
// its fork commands must carry (a site rendered with --show-paths), or null:
// they name no directory.
//
// Prints a JSON report on stdout; exits 0 if all is well, 1 on any failure,
// 2 if the browser could not run.

import { args, launch, reporter, htmlFiles } from "./common.mjs";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";

const opt = args();
const spec = JSON.parse(fs.readFileSync(opt.spec, "utf8"));
const report = { sites: [], controls: [], access: [], screenshots: [] };
const { fail, run } = reporter(report);


const TALK = JSON.stringify({ "only-talk": true, "show-tools": true, "show-thinking": true, "show-aux": false });

// Runs in the page: what the page shows of its messages.
function shown() {
  const vis = (e) => e.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
  const all = (sel) => [...document.querySelectorAll(sel)];
  const count = (sel) => { const a = all(sel); return { all: a.length, shown: a.filter(vis).length }; };
  const msgs = all("main .msg").filter(vis);
  const text = (m) => [...m.querySelectorAll(":scope > .msg-body > :not(details.tool, details.thinking, .anchor)")].some(vis);
  return {
    msgs: count("main .msg"),
    tools: count("main details.tool"),
    thinking: count("main details.thinking"),
    aux: count("main .msg.aux"),
    results: count("main .msg.result"),
    notes: count("nav.forknote"),
    // Messages shown that are not a prompt or a reply (landmarks and notices are).
    others: msgs.filter((m) => !m.matches(".user:not(.shell), .assistant, .landmark, .notice")).map((m) => m.id || m.className),
    // Replies shown without any text.
    bare: msgs.filter((m) => m.matches(".assistant") && !text(m)).map((m) => m.id || m.className),
    // Visible buttons, and what they are.
    buttons: all("button").filter(vis).map((b) => b.id || b.className || b.textContent),
    boxes: Object.fromEntries(["only-talk", "show-tools", "show-thinking", "show-aux"].map((id) => [id, document.getElementById(id)?.checked ?? null])),
  };
}

// Runs in the page: ids of messages with an id the page hides.
function hiddenMessages() {
  return [...document.querySelectorAll("main .msg[id]")].filter((m) => !m.checkVisibility({ checkVisibilityCSS: true })).map((m) => m.id);
}

// Runs in the page: every text on screen whose contrast with what is behind
// it is under WCAG AA (4.5:1, 3:1 for large text), grouped by colours.
// The text's colour (SVG: its fill) and the backgrounds of its ancestors are
// composited, with their alpha and the ancestors' opacity, over the canvas.
function lowContrast() {
  const parse = (c) => {
    let m = /^rgba?\(([^)]+)\)$/.exec(c);
    if (m) {
      const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
      return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
    }
    m = /^color\(srgb ([^)]+)\)$/.exec(c);
    if (m) {
      const p = m[1].split(/[\s\/]+/).filter(Boolean).map(Number);
      return [p[0] * 255, p[1] * 255, p[2] * 255, p.length > 3 ? p[3] : 1];
    }
    return null;
  };
  const over = (top, under) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat([1]);
  };
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const canvas = (() => {
    for (const e of [document.body, document.documentElement]) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) return over(c, [255, 255, 255, 1]);
    }
    return [255, 255, 255, 1];
  })();
  const bgCache = new Map();
  const background = (el) => {
    if (!el || el === document.documentElement) return canvas;
    if (bgCache.has(el)) return bgCache.get(el);
    const c = parse(getComputedStyle(el).backgroundColor);
    const under = background(el.parentElement);
    const out = c && c[3] > 0 ? over(c, under) : under;
    bgCache.set(el, out);
    return out;
  };
  const opacity = (el) => { let o = 1; for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity); return o; };
  const bad = new Map();
  let texts = 0;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = walker.nextNode());) {
    if (!n.data.trim()) continue;
    const el = n.parentElement;
    if (!el || el.closest("script, style, title")) continue;
    if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    const r = document.createRange();
    r.selectNodeContents(n);
    if (![...r.getClientRects()].some((b) => b.width > 0 && b.height > 0)) continue;
    texts++;
    const cs = getComputedStyle(el);
    const inSvg = el instanceof SVGElement;
    const fg = parse(inSvg ? cs.fill : cs.color);
    if (!fg) continue;
    const bg = background(inSvg ? el.closest("svg").parentElement : el);
    const fgOn = over([fg[0], fg[1], fg[2], fg[3] * opacity(el)], bg);
    const size = parseFloat(cs.fontSize), bold = Number(cs.fontWeight) >= 700;
    const need = size >= 24 || (size >= 18.66 && bold) ? 3 : 4.5;
    const got = ratio(fgOn, bg);
    if (got + 1e-6 < need) {
      const hex = (c) => "#" + c.slice(0, 3).map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");
      const path = [];
      for (let e = el; e && e !== document.body && path.length < 4; e = e.parentElement) path.unshift(e.tagName.toLowerCase() + (e.classList.length ? "." + [...e.classList].join(".") : ""));
      const key = `${hex(fgOn)} on ${hex(bg)} ${got.toFixed(2)}:1 (needs ${need}) ${path.join(" > ")}`;
      const b = bad.get(key) || { n: 0, text: n.data.trim().slice(0, 40) };
      b.n++;
      bad.set(key, b);
    }
  }
  return { texts, bad: [...bad].map(([k, v]) => `${k} ×${v.n}: ${JSON.stringify(v.text)}`) };
}

// Runs in the page: which of `ids` are missing or hidden.
function unseen(ids) {
  const out = [];
  for (const id of ids) {
    const el = document.getElementById(id);
    if (!el) { out.push(`${id}: missing`); continue; }
    if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) { out.push(`${id}: hidden`); continue; }
    const box = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
    const holder = el.closest("article, nav, section") || el;
    if (!box(el) && !box(holder)) out.push(`${id}: no box`);
  }
  return out;
}

// Runs in the page: what a reader follows from it.
function landmarks() {
  const hrefs = (sel) => [...document.querySelectorAll(sel)].map((a) => new URL(a.getAttribute("href"), document.baseURI).href);
  const notes = [...document.querySelectorAll("nav.forknote")];
  return {
    notes: notes.length,
    hiddenNotes: notes.filter((n) => !n.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }) || n.getBoundingClientRect().height === 0).map((n) => n.id),
    insideMessage: notes.filter((n) => n.closest("article")).map((n) => n.id),
    links: { note: hrefs("nav.forknote a"), index: hrefs("nav.outline a"), map: hrefs("svg.map-svg a") },
    map: document.querySelectorAll("svg.map-svg a").length,
    ids: [...document.querySelectorAll("[id]")].map((e) => e.id),
    next: (document.querySelector("a[rel=next]") || {}).href || null,
  };
}

async function site(browser, s) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on("pageerror", (e) => fail(`${s.name}: page error: ${e.message}`));
  const r = { name: s.name, pages: 0, notes: 0, links: 0, targets: 0, revealed: 0, maps: 0, mapNodes: 0, conversations: 0 };
  // Every link of a landmark, the index and the map, by target document.
  const targets = new Map();
  const want = (href, from, kind) => {
    const u = new URL(href);
    const id = decodeURIComponent(u.hash.slice(1));
    u.hash = "";
    const doc = u.href;
    if (!targets.has(doc)) targets.set(doc, []);
    targets.get(doc).push({ id, from, kind });
    r.links++;
  };
  const seen = new Map();
  for (const file of htmlFiles(s.dir).filter((f) => f.includes(`${path.sep}c${path.sep}`))) {
    const rel = path.relative(s.dir, file);
    await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
    const l = await page.evaluate(landmarks);
    seen.set(pathToFileURL(file).href, l);
    r.pages++;
    r.notes += l.notes;
    for (const id of l.hiddenNotes) fail(`${s.name} ${rel}: the fork landmark ${id} is not visible`);
    for (const id of l.insideMessage) fail(`${s.name} ${rel}: the fork landmark ${id} is inside a message`);
    for (const [kind, hs] of Object.entries(l.links)) for (const h of hs) want(h, rel, kind);
    if (l.map) { r.maps++; r.mapNodes += l.map; }
  }
  for (const [doc, ts] of targets) {
    if (!doc.startsWith("file:") || !fs.existsSync(fileURLToPath(doc))) {
      for (const t of ts) fail(`${s.name} ${t.from}: a ${t.kind} link to a missing page ${doc}`);
      continue;
    }
    await page.goto(doc, { waitUntil: "load" });
    const ids = [...new Set(ts.map((t) => t.id).filter((id) => id))];
    const bad = new Set(await page.evaluate(unseen, ids));
    for (const t of ts) {
      r.targets++;
      const why = [...bad].find((b) => b.startsWith(`${t.id}: `));
      if (why) fail(`${s.name} ${t.from}: a ${t.kind} link lands on ${path.relative(s.dir, fileURLToPath(doc))}#${why}`);
    }
  }
  // The same links with "prompts and answers only" (the view that hides the
  // most): a target the view hides is shown once the address names it.
  await page.evaluate((v) => localStorage.setItem("cctree.view", v), TALK);
  for (const [doc, ts] of targets) {
    if (!doc.startsWith("file:") || !fs.existsSync(fileURLToPath(doc))) continue;
    await page.goto(doc, { waitUntil: "load" });
    if (!(await page.evaluate(() => document.getElementById("only-talk")?.checked))) { fail(`${s.name} ${doc}: the view "prompts and answers only" was not restored`); break; }
    const ids = [...new Set(ts.map((t) => t.id).filter((id) => id))];
    const hidden = (await page.evaluate(unseen, ids)).filter((b) => b.endsWith(": hidden") || b.endsWith(": no box")).map((b) => b.split(": ")[0]);
    for (const id of hidden) {
      await page.goto(`${doc}#${encodeURIComponent(id)}`, { waitUntil: "load" });
      for (const b of await page.evaluate(unseen, [id])) fail(`${s.name}: with prompts and answers only, a link to ${path.relative(s.dir, fileURLToPath(doc))}#${id} lands on nothing visible: ${b}`);
      r.revealed++;
    }
  }
  await page.evaluate(() => localStorage.clear());
  // The active line: first prompt on the first page, last on the last, no other branch.
  for (const c of s.conversations) {
    r.conversations++;
    let url = pathToFileURL(path.join(s.dir, c.page)).href;
    const first = seen.get(url);
    if (!first) { fail(`${s.name}: no page ${c.page}`); continue; }
    if (c.forks && !first.map) fail(`${s.name} ${c.page}: no map`);
    const chain = [];
    for (let l = first; l; l = l.next ? seen.get(l.next) : null) {
      chain.push(url);
      if (chain.length > 10000) break;
      url = l.next;
    }
    const ids = new Set(chain.flatMap((u) => seen.get(u).ids));
    if (!first.ids.includes(c.first)) fail(`${s.name} ${c.page}: the first prompt ${c.first} is not on the first page`);
    const lastPage = chain[chain.length - 1];
    if (!seen.get(lastPage).ids.includes(c.last)) fail(`${s.name} ${c.page}: the active line's last prompt ${c.last} is not on its last page`);
    for (const o of c.off) if (ids.has(o)) fail(`${s.name} ${c.page}: ${o}, of a branch off the active line, is on the conversation's pages`);
    await page.goto(lastPage, { waitUntil: "load" });
    for (const b of await page.evaluate(unseen, [c.last])) fail(`${s.name} ${c.page}: the active line's last prompt: ${b}`);
  }
  await context.close();
  report.sites.push(r);
}

// The view menu (reader controls), on the site's first
// conversation with forks (else its first): tool calls, thinking, system
// entries and "prompts and answers only" hide what they say, keep every fork
// landmark, and the choice is kept on the next page; a link into a hidden
// message shows it; a browser whose storage throws still toggles; without
// JavaScript the controls still work, every message can be shown and no
// button is shown that would do nothing.
async function controls(browser, s) {
  const c = s.conversations.find((c) => c.forks) || s.conversations[0];
  if (!c) return;
  const r = { name: s.name, checks: 0 };
  const first = pathToFileURL(path.join(s.dir, c.page)).href;
  const other = htmlFiles(s.dir).filter((f) => f.includes(`${path.sep}c${path.sep}`)).map((f) => pathToFileURL(f).href).find((u) => u !== first);
  const ok = (cond, m) => { r.checks++; if (!cond) fail(`${s.name} controls: ${m}`); };
  const menu = async (page, id) => {
    if (!(await page.isVisible(`#${id}`))) await page.click("details.view-menu > summary");
    await page.click(`#${id}`);
  };
  {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on("pageerror", (e) => fail(`${s.name} controls: page error: ${e.message}`));
    await page.goto(first, { waitUntil: "load" });
    if (!(await page.$("details.view-menu #only-talk"))) { fail(`${s.name} controls: ${c.page} has no view menu`); await context.close(); return; }
    let v = await page.evaluate(shown);
    ok(JSON.stringify(v.boxes) === JSON.stringify({ "only-talk": false, "show-tools": true, "show-thinking": true, "show-aux": false }), `the default view is not everything but system entries: ${JSON.stringify(v.boxes)}`);
    ok(v.tools.shown === v.tools.all && v.thinking.shown === v.thinking.all && v.aux.shown === 0, `by default, tool calls and thinking are shown and system entries hidden: ${JSON.stringify(v)}`);
    const notes = v.notes.all;
    // Tool calls off.
    await menu(page, "show-tools");
    v = await page.evaluate(shown);
    ok(v.tools.shown === 0 && v.results.shown === 0, `tool calls still shown once hidden: ${JSON.stringify(v.tools)}`);
    ok(v.notes.shown === notes, `fork landmarks hidden with the tool calls: ${JSON.stringify(v.notes)}`);
    // Kept on another page.
    if (other) {
      await page.goto(other, { waitUntil: "load" });
      v = await page.evaluate(shown);
      ok(v.boxes["show-tools"] === false && v.tools.shown === 0, `the choice "no tool calls" was not kept on the next page: ${JSON.stringify(v)}`);
    }
    // Thinking off, system entries on.
    await page.goto(first, { waitUntil: "load" });
    await menu(page, "show-tools");
    await menu(page, "show-thinking");
    await menu(page, "show-aux");
    v = await page.evaluate(shown);
    ok(v.tools.shown === v.tools.all && v.thinking.shown === 0 && v.aux.shown === v.aux.all, `tool calls on, thinking off, system entries on: ${JSON.stringify(v)}`);
    if (other) {
      await page.goto(other, { waitUntil: "load" });
      v = await page.evaluate(shown);
      ok(v.thinking.shown === 0 && v.aux.shown === v.aux.all && v.boxes["show-aux"] === true, `the system-entries toggle was reset on the next page: ${JSON.stringify(v)}`);
      await page.goto(first, { waitUntil: "load" });
    }
    await menu(page, "show-thinking");
    await menu(page, "show-aux");
    // Prompts and answers only.
    await menu(page, "only-talk");
    v = await page.evaluate(shown);
    ok(v.tools.shown === 0 && v.thinking.shown === 0 && v.aux.shown === 0 && v.others.length === 0 && v.bare.length === 0,
      `prompts and answers only shows more: ${JSON.stringify(v)}`);
    ok(v.msgs.shown > 0 && v.notes.shown === notes, `prompts and answers only hides the prompts or the fork landmarks: ${JSON.stringify(v)}`);
    await page.goto(other || first, { waitUntil: "load" });
    v = await page.evaluate(shown);
    ok(v.boxes["only-talk"] === true && v.tools.shown === 0 && v.others.length === 0, `prompts and answers only was not kept on the next page: ${JSON.stringify(v)}`);
    // A link to a message the view hides shows it: on arriving, and within the page.
    await page.goto(first, { waitUntil: "load" });
    const hidden = await page.evaluate(hiddenMessages);
    ok(hidden.length >= 2 || s.name !== "example", `the example has no message that prompts and answers only hides: ${hidden}`);
    if (hidden.length) {
      await page.goto(`${first}#${hidden[0]}`, { waitUntil: "load" });
      ok((await page.evaluate(unseen, [hidden[0]])).length === 0, `a link to ${hidden[0]}, hidden by the view, lands on nothing visible`);
      r.revealed = 1;
      const last = hidden[hidden.length - 1];
      await page.evaluate((id) => { window.location.hash = id; }, last);
      ok((await page.evaluate(unseen, [last])).length === 0, `following #${last} within the page does not show it`);
      ok(await page.evaluate((id) => { const e = document.getElementById(id).getBoundingClientRect(); return e.top >= 0 && e.top < window.innerHeight; }, last), `#${last} is not scrolled into view`);
    }
    await context.close();
  }
  // Storage that throws (file:// in some browsers, private windows): the
  // menu still works on the page.
  {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(() => {
      Object.defineProperty(window, "localStorage", { get() { throw new DOMException("denied", "SecurityError"); } });
    });
    const page = await context.newPage();
    page.on("pageerror", (e) => fail(`${s.name} controls, storage refused: page error: ${e.message}`));
    await page.goto(first, { waitUntil: "load" });
    await menu(page, "show-tools");
    const v = await page.evaluate(shown);
    ok(v.tools.shown === 0, `with storage refused, hiding tool calls does nothing: ${JSON.stringify(v.tools)}`);
    await context.close();
  }
  // Without JavaScript.
  {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(first, { waitUntil: "load" });
    let v = await page.evaluate(shown);
    ok(v.buttons.length === 0, `without JavaScript, buttons that need it are shown: ${v.buttons}`);
    ok(!(await page.isVisible("#search")), "without JavaScript, the search box (which needs it) is shown");
    ok(v.msgs.shown === v.msgs.all - v.aux.all && v.tools.shown === v.tools.all, `without JavaScript, messages are hidden: ${JSON.stringify(v)}`);
    await menu(page, "show-aux");
    v = await page.evaluate(shown);
    ok(v.msgs.shown === v.msgs.all, `without JavaScript, some messages cannot be shown: ${JSON.stringify(v.msgs)}`);
    await menu(page, "only-talk");
    v = await page.evaluate(shown);
    ok(v.tools.shown === 0 && v.others.length === 0, `without JavaScript, prompts and answers only does not work: ${JSON.stringify(v)}`);
    await context.close();
  }
  report.controls.push(r);
}

// Mobile and access, on sample pages of each kind of the site
// (the archive index, a project index, the two largest conversation, branch
// and sub-agent pages), light and dark: the sticky header at most 64 px tall
// at 390 and 1280 px, no horizontal scroll at 390 px (as the page opens, and
// with every fold open and system entries shown), and every text on screen
// (with every fold open, system entries shown, the view menu open, and a
// search's results on the archive index) at WCAG AA contrast against what
// is behind it. Then, on the site's conversation: `j` then `k` moves forward
// then back, and the copy buttons put the exact text in the clipboard (the
// fork command as shown, and a code block, also when the
// clipboard API is missing).
async function access(browser, s) {
  const r = { name: s.name, pages: 0, texts: 0, header: 0, keys: 0, copies: 0 };
  const rel = (f) => path.relative(s.dir, f).split(path.sep).join("/");
  const files = htmlFiles(s.dir);
  const largest = (fs_) => fs_.map((f) => [fs.statSync(f).size, f]).sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? -1 : 1)).slice(0, 2).map((x) => x[1]);
  const kinds = {
    archive: files.filter((f) => rel(f) === "index.html"),
    project: files.filter((f) => /^[^/]+\/index\.html$/.test(rel(f))).slice(0, 1),
    conversation: largest(files.filter((f) => /\/c\/[^/]+\/[^/]+\.html$/.test(rel(f)))),
    branch: largest(files.filter((f) => /\/c\/[^/]+\/b\//.test(rel(f)))),
    agent: largest(files.filter((f) => /\/agents\//.test(rel(f)))),
  };
  const everything = async (page) => {
    await page.evaluate(() => {
      document.querySelectorAll("main details").forEach((d) => { d.open = true; });
      const aux = document.getElementById("show-aux");
      if (aux) aux.checked = true;
    });
  };
  for (const scheme of ["light", "dark"]) {
    const context = await browser.newContext({ colorScheme: scheme, viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    page.on("pageerror", (e) => fail(`${s.name} access: page error: ${e.message}`));
    for (const [kind, list] of Object.entries(kinds)) {
      for (const file of list) {
        const where = `${s.name} ${kind} ${rel(file)} (${scheme})`;
        r.pages++;
        for (const width of [390, 1280]) {
          await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
          await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
          const h = await page.evaluate(() => document.querySelector("header.top").getBoundingClientRect().height);
          r.header = Math.max(r.header, h);
          if (h > 64) fail(`${where}: the header is ${h} px tall at ${width} px (at most 64)`);
          if (width === 390) {
            const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
            if (wide > 0) fail(`${where}: scrolls sideways by ${wide} px at 390 px`);
          }
          await everything(page);
          if (width === 390) {
            const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
            if (wide > 0) fail(`${where}: with every fold open, scrolls sideways by ${wide} px at 390 px`);
          }
          if (width === 1280) {
            if (await page.$("details.view-menu")) await page.evaluate(() => { document.querySelector("details.view-menu").open = true; });
            const c = await page.evaluate(lowContrast);
            r.texts += c.texts;
            for (const b of c.bad) fail(`${where}: contrast under AA: ${b}`);
          }
        }
      }
    }
    // A search's results, on the archive index.
    const index = pathToFileURL(path.join(s.dir, "index.html")).href;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(index, { waitUntil: "load" });
    const word = await page.evaluate(() => ((document.querySelector("main .card-text, main .card-title") || {}).textContent || "").match(/[A-Za-z]{4,}/)?.[0]);
    if (word) {
      await page.fill("#search-input", word);
      await page.waitForSelector("#search-results mark", { timeout: 10000 }).catch(() => fail(`${s.name}: a search for ${word} marks nothing`));
      const c = await page.evaluate(lowContrast);
      r.texts += c.texts;
      for (const b of c.bad) fail(`${s.name} search results (${scheme}): contrast under AA: ${b}`);
    }
    await context.close();
  }
  const conv = s.conversations.find((c) => c.forks) || s.conversations[0];
  if (conv) {
    const url = pathToFileURL(path.join(s.dir, conv.page)).href;
    // j then k, over the messages that can be scrolled to the top.
    {
      const context = await browser.newContext({ viewport: { width: 1280, height: 600 } });
      const page = await context.newPage();
      await page.goto(url, { waitUntil: "load" });
      const at = () => page.evaluate(() => {
        const msgs = [...document.querySelectorAll("main .messages > .msg")].filter((m) => m.getClientRects().length);
        const margin = parseFloat(getComputedStyle(msgs[0]).scrollMarginTop);
        return msgs.findIndex((m) => Math.abs(m.getBoundingClientRect().top - margin) < 3);
      });
      const reachable = await page.evaluate(() => {
        const msgs = [...document.querySelectorAll("main .messages > .msg")].filter((m) => m.getClientRects().length);
        const margin = parseFloat(getComputedStyle(msgs[0]).scrollMarginTop);
        const max = document.documentElement.scrollHeight - window.innerHeight;
        return msgs.filter((m) => m.getBoundingClientRect().top + window.scrollY - margin <= max).length;
      });
      const n = Math.min(3, reachable);
      const keys = [...Array(n).fill("j"), ...Array(n - 1).fill("k")];
      const want = [...Array(n).keys(), ...[...Array(n - 1).keys()].reverse()];
      const seen = [];
      for (const key of keys) { await page.keyboard.press(key); seen.push(await at()); }
      r.keys = seen.length;
      if (n < 2) fail(`${s.name} ${conv.page}: too short to try j and k`);
      if (JSON.stringify(seen) !== JSON.stringify(want)) fail(`${s.name} ${conv.page}: ${keys.join(", ")} go to messages ${JSON.stringify(seen)}, not ${JSON.stringify(want)}`);
      await context.close();
    }
    // Copy buttons.
    {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, permissions: ["clipboard-read", "clipboard-write"] });
      const page = await context.newPage();
      page.on("pageerror", (e) => fail(`${s.name} copy: page error: ${e.message}`));
      const clip = () => page.evaluate(() => navigator.clipboard.readText());
      const put = (t) => page.evaluate((t) => navigator.clipboard.writeText(t), t);
      await page.goto(url, { waitUntil: "load" });
      // The first fork command the page shows.
      const fork = await page.evaluate(() => {
        const f = [...document.querySelectorAll("main .fork-cmd")].find((d) => d.checkVisibility());
        if (f) f.id = "fork-probe";
        return !!f;
      });
      if (fork) {
        await put("");
        await page.click("#fork-probe > summary");
        const want = await page.evaluate(() => document.querySelector("#fork-probe code.cmd").textContent);
        await page.click("#fork-probe .copy");
        await page.waitForFunction(() => document.querySelector("#fork-probe .copy").textContent !== "copy");
        const got = await clip();
        r.copies++;
        if (got !== want) fail(`${s.name}: the fork command's copy button copied ${JSON.stringify(got)}, not ${JSON.stringify(want)}`);
        if (s.fork_projects && !got.includes(` --projects ${s.fork_projects} `)) fail(`${s.name}: the copied fork command ${JSON.stringify(got)} lacks --projects ${s.fork_projects}`);
        if (!s.fork_projects && got.includes(" --projects ")) fail(`${s.name}: the copied fork command ${JSON.stringify(got)} names a directory`);
      }
      // A code block: with the clipboard API, and without it (the fallback).
      for (const api of [true, false]) {
        await put("");
        if (!api) await page.evaluate(() => { window.apiClipboard = Object.getOwnPropertyDescriptor(Navigator.prototype, "clipboard"); Object.defineProperty(Navigator.prototype, "clipboard", { get: () => undefined, configurable: true }); });
        const found = await page.evaluate(() => {
          const b = [...document.querySelectorAll("main .code-box .code-copy")].find((x) => !x.closest(".msg.aux"));
          if (!b) return null;
          document.querySelectorAll("#code-probe").forEach((x) => x.removeAttribute("id"));
          b.id = "code-probe";
          for (let d = b.parentElement; d; d = d.parentElement) if (d.tagName === "DETAILS") d.open = true;
          b.scrollIntoView({ block: "center" });
          return b.parentElement.querySelector("pre").textContent;
        });
        if (found === null) break;
        await page.click("#code-probe");
        await page.waitForFunction(() => document.querySelector("#code-probe").textContent !== "copy");
        if (!api) await page.evaluate(() => { Object.defineProperty(Navigator.prototype, "clipboard", window.apiClipboard); });
        const label = await page.evaluate(() => document.querySelector("#code-probe").textContent);
        const got = await page.evaluate(() => (window.navigator.clipboard ? navigator.clipboard.readText() : null));
        r.copies++;
        if (got !== found) fail(`${s.name}: a code block's copy button (${api ? "clipboard API" : "fallback"}, says ${label}) copied ${JSON.stringify(got && got.slice(0, 80))}, not ${JSON.stringify(found.slice(0, 80))}`);
        await page.goto(url, { waitUntil: "load" });
      }
      await context.close();
    }
  }
  report.access.push(r);
}

async function shots(browser, s, dir) {
  const c = s.conversations.find((c) => c.forks);
  if (!c) return;
  for (const scheme of ["light", "dark"]) {
    for (const [w, h] of [[1280, 1100], [390, 844]]) {
      const context = await browser.newContext({ colorScheme: scheme, viewport: { width: w, height: h } });
      const page = await context.newPage();
      await page.goto(pathToFileURL(path.join(s.dir, c.page)).href, { waitUntil: "load" });
      const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      if (wide > 0) fail(`${s.name} ${c.page}: scrolls sideways by ${wide} px at ${w} px`);
      const map = await page.$("details.map");
      if (map) await map.scrollIntoViewIfNeeded();
      await page.evaluate(() => { const m = document.querySelector("details.map"); if (m) window.scrollTo(0, m.getBoundingClientRect().top + window.scrollY - 60); });
      const file = `reader-${s.name}-${w}-${scheme}.png`;
      await page.screenshot({ path: path.join(dir, file) });
      report.screenshots.push(file);
      await context.close();
    }
  }
}

async function main() {
  const browser = await launch(["--allow-file-access-from-files"]);
  try {
    const dir = opt.shots ? path.resolve(opt.shots) : null;
    if (dir) fs.mkdirSync(dir, { recursive: true });
    for (const s of spec.sites) {
      await site(browser, s);
      await controls(browser, s);
      await access(browser, s);
      if (dir) await shots(browser, s, dir);
    }
  } finally {
    await browser.close();
  }
}

run(main);

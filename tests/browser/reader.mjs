// What a reader of a rendered cctree site follows (issue 12), in Debian's
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
// the page hides. Screenshots of the first conversation page with a map, at
// 1280 px and 390 px, light and dark.
//
// Prints a JSON report on stdout; exits 0 if all is well, 1 on any failure,
// 2 if the browser could not run.

import { chromium } from "playwright-core";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";

const opt = {};
for (let i = 2; i < process.argv.length; i += 2) opt[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
const spec = JSON.parse(fs.readFileSync(opt.spec, "utf8"));
const failures = [];
const report = { sites: [], screenshots: [] };
const fail = (m) => failures.push(m.length > 600 ? m.slice(0, 600) + "…" : m);

function htmlFiles(dir) {
  const files = [];
  const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).forEach((e) => {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p); else if (p.endsWith(".html")) files.push(p);
  });
  walk(dir);
  return files.sort();
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
  const r = { name: s.name, pages: 0, notes: 0, links: 0, targets: 0, maps: 0, mapNodes: 0, conversations: 0 };
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
  const executablePath = process.env.CCTREE_CHROMIUM || "/usr/bin/chromium";
  const browser = await chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-dev-shm-usage",
      "--disable-component-update", "--disable-sync", "--allow-file-access-from-files"],
  });
  try {
    const dir = opt.shots ? path.resolve(opt.shots) : null;
    if (dir) fs.mkdirSync(dir, { recursive: true });
    for (const s of spec.sites) {
      await site(browser, s);
      if (dir) await shots(browser, s, dir);
    }
  } finally {
    await browser.close();
  }
  report.failures = failures;
  console.log(JSON.stringify(report, null, 2));
  process.exit(failures.length ? 1 : 0);
}

main().catch((e) => {
  report.failures = [...failures, `the browser run failed: ${e && e.stack ? e.stack : e}`];
  console.log(JSON.stringify(report, null, 2));
  process.exit(2);
});

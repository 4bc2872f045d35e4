// Reading, in Debian's chromium: what a reader
// meets on the first day, at 1280×900 and 390×844, light and dark, over
// file:// and over http (the site served under a sub-path).
//
//   node reading.mjs --spec SPEC.json [--shots DIR]
//
// SPEC is `{ "checks": [ … ] }`, each check one of:
//   { "kind": "first-screen", "name", "root", "page" }: the page's first
//     message starts within the first viewport (its top above the window's
//     bottom), the fork-point index is at the top (above the first message);
//     a screenshot of the first screen `reading-NAME-ORIGIN-WIDTH-SCHEME.png`;
//   { "kind": "search", "name", "root", "query", "page", "anchor", "on" }:
//     searched from the archive index, the first hit opens PAGE at ANCHOR
//     (the message on screen, a word of the query marked in it, none marked
//     in its header); `on` is what the hit says of where it is read (null:
//     nothing, the active line);
//   { "kind": "hidden", "name", "root", "query" }: a query matching only
//     text the pages hide (injected instructions, reminders) finds nothing,
//     and finds it when the reader asks for system entries;
//   { "kind": "export", "name", "file", "title" }: the file's first heading
//     is TITLE, its first section reads the active line (the map and the
//     fork-point index, then message #1);
//   { "kind": "image", "name", "root", "page" }: the first image of the page
//     is shown at its size up to the column's width, and a click on it
//     opens it at full size.
//
// The report: `{ runs: [{ check, origin, width, scheme, … }] }`.

import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { args, launch, reporter } from "./common.mjs";

const opt = args();
const spec = JSON.parse(fs.readFileSync(opt.spec, "utf8"));
const report = { runs: [] };
const { fail, run } = reporter(report);
const SUBPATH = "/published/under/a/sub-path/";

function serve(root) {
  const types = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
    ".png": "image/png", ".jpg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp", ".svg": "image/svg+xml" };
  const rootAbs = path.resolve(root) + path.sep;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    if (!url.pathname.startsWith(SUBPATH)) { res.writeHead(404); res.end(); return; }
    let rel = decodeURIComponent(url.pathname.slice(SUBPATH.length)) || "index.html";
    if (rel.endsWith("/")) rel += "index.html";
    const file = path.resolve(rootAbs, rel);
    if (!file.startsWith(rootAbs)) { res.writeHead(403); res.end(); return; }
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { "content-type": types[path.extname(file)] || "application/octet-stream" });
      res.end(data);
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

// The URL of `rel` in `root`, by origin.
function urlOf(origins, root, rel) {
  if (origins.kind === "file") return pathToFileURL(path.join(root, rel)).href;
  return `http://127.0.0.1:${origins.ports.get(root)}${SUBPATH}${rel}`;
}

async function firstScreen(page, c, label, shot) {
  const got = await page.evaluate(() => {
    const first = document.querySelector(".messages .msg[id]");
    const forks = document.querySelector("#forks");
    return {
      first: first ? Math.round(first.getBoundingClientRect().top) : null,
      forks: forks ? Math.round(forks.getBoundingClientRect().top) : null,
      height: window.innerHeight,
      scrollX: document.documentElement.scrollWidth > document.documentElement.clientWidth + 1,
    };
  });
  if (got.first === null) fail(`${label}: no message on the page`);
  else if (got.first >= got.height) fail(`${label}: the first message starts at ${got.first} px, below the first screen (${got.height} px)`);
  if (got.forks === null || got.first === null || got.forks > got.first) fail(`${label}: the fork-point index is not above the first message (${got.forks}, ${got.first})`);
  if (got.scrollX) fail(`${label}: the page scrolls sideways`);
  await page.screenshot({ path: shot });
  return got;
}

async function search(page, c, label) {
  await page.fill("#search-input", c.query);
  await page.waitForSelector("#search-results .sr-hits a[href]", { state: "visible", timeout: 10000 });
  const hit = await page.$eval("#search-results .sr-hits a[href]", (a) => ({
    href: a.getAttribute("href"), on: a.querySelector(".sr-on") ? a.querySelector(".sr-on").textContent : null,
  }));
  const want = `${c.page}?`;
  if (!hit.href.includes(want) || !hit.href.endsWith(`#${c.anchor}`)) fail(`${label}: the first hit leads to ${hit.href}, not ${c.page}#${c.anchor}`);
  if (hit.on !== c.on) fail(`${label}: the hit says ${JSON.stringify(hit.on)}, not ${JSON.stringify(c.on)}`);
  await Promise.all([page.waitForNavigation(), page.click("#search-results .sr-hits a[href]")]);
  await page.waitForTimeout(200);
  const there = await page.evaluate((anchor) => {
    const m = document.getElementById(anchor);
    if (!m) return null;
    const r = m.getBoundingClientRect();
    return {
      url: location.href,
      onScreen: r.bottom > 0 && r.top < window.innerHeight,
      marks: m.querySelectorAll("mark.cc-hit").length,
      inHead: document.querySelectorAll(".msg-head mark, svg mark").length,
    };
  }, c.anchor);
  if (!there) { fail(`${label}: no #${c.anchor} on the page it opened`); return hit; }
  if (!there.url.includes(c.page)) fail(`${label}: opened ${there.url}`);
  if (!there.onScreen) fail(`${label}: the message is not on screen`);
  if (!there.marks) fail(`${label}: no word of "${c.query}" marked in the message`);
  if (there.inHead) fail(`${label}: ${there.inHead} words marked in message headers or the map`);
  return { ...hit, ...there };
}

async function hidden(page, c, label) {
  await page.fill("#search-input", c.query);
  await page.waitForSelector("#search-results .sr-hidden button", { state: "visible", timeout: 10000 });
  const before = await page.$$eval("#search-results .sr-unit", (u) => u.length);
  if (before) fail(`${label}: "${c.query}" (only in hidden text) found ${before} conversations by default`);
  await page.click("#search-results .sr-hidden button");
  await page.waitForSelector("#search-results .sr-unit", { state: "visible", timeout: 10000 }).catch(() => {});
  const after = await page.$$eval("#search-results .sr-unit", (u) => u.length);
  if (!after) fail(`${label}: asked for system entries, "${c.query}" found nothing`);
  return { before, after };
}

async function exported(page, c, label) {
  const got = await page.evaluate(() => {
    const h = document.querySelector("h1, h2, h3");
    const s = document.querySelector("section.export-section");
    const first = s && s.querySelector(".messages .msg[id]");
    return {
      heading: h ? h.textContent.trim() : null,
      map: !!(s && s.querySelector("details.map")),
      index: !!(s && s.querySelector("#forks")),
      number: first && first.querySelector(".num") ? first.querySelector(".num").textContent.trim() : null,
      active: !!(s && s.querySelector(".activeline")),
    };
  });
  if (got.heading !== c.title) fail(`${label}: the first heading reads ${JSON.stringify(got.heading)}, not the title`);
  if (!got.map || !got.index || !got.active) fail(`${label}: the first section lacks the map, the fork-point index or the active line: ${JSON.stringify(got)}`);
  if (got.number !== "#1") fail(`${label}: the first section starts at ${got.number}`);
  return got;
}

async function image(page, c, label) {
  const sel = ".messages .shot img";
  await page.waitForSelector(sel, { timeout: 5000 });
  // A lazy image loads once near the screen.
  await page.$eval(sel, (img) => img.scrollIntoView({ block: "center" }));
  await page.waitForFunction((s) => { const i = document.querySelector(s); return i && i.complete && i.naturalWidth > 0; }, sel, { timeout: 10000 });
  const got = await page.$eval(sel, (img) => {
    const col = img.closest(".msg-body, .msg").getBoundingClientRect().width;
    return { shown: img.getBoundingClientRect().width, natural: img.naturalWidth, col, href: img.closest("a") ? img.closest("a").getAttribute("href") : null };
  });
  // At its size, or at the column's width when wider (a border's px aside).
  const want = Math.min(got.natural, got.col);
  if (got.shown + 4 < want) fail(`${label}: the image is shown ${got.shown} px wide, its size ${got.natural} px, the column ${got.col} px`);
  if (!got.href || got.href.startsWith("javascript")) fail(`${label}: a click does not open the image at full size`);
  return got;
}

run(async () => {
  const browser = await launch([]);
  const roots = [...new Set(spec.checks.filter((c) => c.root).map((c) => c.root))];
  const servers = [];
  const ports = new Map();
  for (const r of roots) { const s = await serve(r); servers.push(s); ports.set(r, s.address().port); }
  try {
    for (const kind of ["file", "http"]) {
      const origins = { kind, ports };
      for (const width of [1280, 390]) {
        for (const scheme of ["light", "dark"]) {
          const context = await browser.newContext({ colorScheme: scheme, viewport: { width, height: width === 390 ? 844 : 900 } });
          try {
            for (const c of spec.checks) {
              if (c.kind === "export" && kind === "http") continue;
              const label = `${c.name} (${kind}, ${width} px, ${scheme})`;
              const page = await context.newPage();
              const errors = [];
              page.on("pageerror", (e) => errors.push(String(e)));
              page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
              try {
                const start = c.kind === "export" ? pathToFileURL(c.file).href
                  : urlOf(origins, c.root, c.kind === "search" || c.kind === "hidden" ? "index.html" : c.page);
                await page.goto(start);
                let got;
                if (c.kind === "first-screen") {
                  const shot = path.join(opt.shots || ".", `reading-${c.name}-${kind}-${width}-${scheme}.png`);
                  if (opt.shots) fs.mkdirSync(opt.shots, { recursive: true });
                  got = await firstScreen(page, c, label, shot);
                } else if (c.kind === "search") got = await search(page, c, label);
                else if (c.kind === "hidden") got = await hidden(page, c, label);
                else if (c.kind === "export") got = await exported(page, c, label);
                else if (c.kind === "image") got = await image(page, c, label);
                else fail(`unknown check ${c.kind}`);
                for (const e of errors) fail(`${label}: page error ${e}`);
                report.runs.push({ check: c.name, kind: c.kind, origin: kind, width, scheme, ...got });
              } catch (e) {
                fail(`${label}: ${e && e.message ? e.message : e}`);
              } finally {
                await page.close();
              }
            }
          } finally {
            await context.close();
          }
        }
      }
    }
  } finally {
    for (const s of servers) s.close();
    await browser.close();
  }
}, { limited: true, limitMs: 900000 });

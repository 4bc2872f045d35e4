// File reads, in Debian's chromium (playwright-core):
// numbered plain text without JavaScript, coloured by the site's own
// highlight.js once shown.
//
//   node files.mjs --spec SPEC.json [--shots DIR]
//
// SPEC.json (written by tests/integration/browser.rs):
//   { "site": "/abs/site", "page": "proj/c/<root>/index.html" }
// `page` holds file reads with a language (`pre.lines[data-lang]`). Over
// file:// and over http (served under a sub-path, no CSP header: the page's
// own meta CSP applies):
// - without JavaScript, at 1280 px: the first file read, opened, is plain
//   (no token element, one colour), every line numbered (its `data-n` has a
//   number per line, drawn left of the code) and a selection of it copies
//   the code without the numbers;
// - with JavaScript, at 1280 and 390 px, light and dark: nothing loads the
//   highlighter while the file reads are closed; opening one (a click on its
//   fold) colours it — the same text, tokens in the <h-X> elements of
//   syntax.css with its colours for the theme, numbers still drawn —, axe
//   finds nothing on it (colour contrast included), and no request fails,
//   nothing is logged;
// - find on the page (Ctrl+F) with a word of the file opens its fold, and
//   the marks stay on the coloured text (Enter still steps through them); a
//   page opened from a search result (`?hl=word#anchor`) keeps its marks too.
// Screenshots `files-{nojs,WIDTH-THEME}-{file,http}.png` of the file read.
//
// Prints a JSON report on stdout; exits 0 if all is well, 1 on any failure,
// 2 if the browser could not run, 3 on timeout.

import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { args, launch, reporter } from "./common.mjs";

const opt = args();
const spec = JSON.parse(fs.readFileSync(opt.spec, "utf8"));
const report = { runs: [], nojs: 0, coloured: 0, finds: 0, hits: 0, axe_rules: 0 };
const { fail, run } = reporter(report);
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const SUBPATH = "/files/under/a/sub-path/";

// syntax.css's colours of a keyword, a string and a comment, light and dark.
const PALETTE = {
  light: { k: "rgb(179, 29, 40)", s: "rgb(10, 48, 105)", c: "rgb(95, 103, 112)" },
  dark: { k: "rgb(255, 123, 114)", s: "rgb(165, 214, 255)", c: "rgb(139, 148, 158)" },
};

function serve(root) {
  const types = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8" };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    if (!url.pathname.startsWith(SUBPATH)) { res.writeHead(404); res.end(); return; }
    const file = path.join(root, decodeURIComponent(url.pathname.slice(SUBPATH.length)));
    if (!file.startsWith(root)) { res.writeHead(403); res.end(); return; }
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { "content-type": types[path.extname(file)] || "application/octet-stream" });
      res.end(data);
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

// Runs in the page: what the first file read with a language shows.
function look() {
  const pre = document.querySelector("pre.lines[data-lang]");
  if (!pre) return null;
  const code = pre.querySelector("code");
  const lines = code.textContent.replace(/\n$/, "").split("\n").length;
  const numbers = pre.getAttribute("data-n").split("\n");
  const kinds = {};
  for (const e of code.querySelectorAll("*")) {
    if (/^H-[A-Z]$/.test(e.tagName)) {
      const k = e.tagName.slice(2).toLowerCase();
      kinds[k] = kinds[k] || getComputedStyle(e).color;
    }
  }
  const colours = new Set();
  const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
  for (let n; (n = walker.nextNode());) if (n.data.trim()) colours.add(getComputedStyle(n.parentElement).color);
  const p = pre.getBoundingClientRect(), c = code.getBoundingClientRect();
  const before = getComputedStyle(pre, "::before");
  return {
    lang: pre.getAttribute("data-lang"),
    text: code.textContent,
    lines,
    numbered: numbers.length === lines && numbers.every((n, i) => Number(n) === Number(numbers[0]) + i),
    gutter: before.content !== "none" && before.content !== "normal" && c.left - p.left > 20,
    open: pre.getClientRects().length > 0,
    hl: pre.classList.contains("hl"),
    elements: code.querySelectorAll("*").length,
    kinds,
    colours: colours.size,
  };
}

// Runs in the page: opens the folds around the first file read as a reader
// does (a click on each summary, outermost first); returns how many.
function openFile() {
  const pre = document.querySelector("pre.lines[data-lang]");
  let n = 0;
  const outer = [];
  for (let d = pre.parentElement; d; d = d.parentElement) if (d.tagName === "DETAILS" && !d.open) outer.unshift(d);
  for (const d of outer) { d.querySelector(":scope > summary").click(); n++; }
  pre.scrollIntoView({ block: "center" });
  return n;
}

// Runs in the page: the selection of the whole first file read, as copied.
function copied() {
  const pre = document.querySelector("pre.lines[data-lang]");
  const range = document.createRange();
  range.selectNodeContents(pre);
  const sel = window.getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
  return sel.toString();
}

function problemsOf(page, label, sink) {
  page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") sink.push(`${label}: console ${m.type()}: ${m.text()}`); });
  page.on("pageerror", (e) => sink.push(`${label}: page error: ${e.message}`));
  page.on("requestfailed", (r) => sink.push(`${label}: request failed: ${r.url()}`));
  page.on("response", (r) => { if (r.status() >= 400) sink.push(`${label}: HTTP ${r.status()} for ${r.url()}`); });
}

async function shot(page, name) {
  if (!opt.shots) return;
  fs.mkdirSync(opt.shots, { recursive: true });
  const pre = await page.$("pre.lines[data-lang]");
  await pre.scrollIntoViewIfNeeded();
  const file = path.join(opt.shots, `files-${name}.png`);
  await page.screenshot({ path: file });
  report.runs.push({ shot: file });
}

// A word of the file read: letters only, five or more, for find and ?hl=.
function wordOf(text) {
  const m = /\b[A-Za-z]{5,}\b/.exec(text);
  return m ? m[0] : null;
}

async function main() {
  const server = await serve(path.resolve(spec.site) + path.sep);
  const browser = await launch(["--allow-file-access-from-files"]);
  try {
    const origins = [
      ["file", pathToFileURL(path.join(spec.site, spec.page)).href],
      ["http", `http://127.0.0.1:${server.address().port}${SUBPATH}${spec.page}`],
    ];
    for (const [origin, url] of origins) {
      // Without JavaScript: plain numbered text.
      {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
        const page = await context.newPage();
        await page.goto(url, { waitUntil: "load" });
        await page.evaluate(openFile);
        const l = await page.evaluate(look);
        const label = `${origin}, no JavaScript`;
        if (!l) { fail(`${label}: no file read with a language on ${spec.page}`); await context.close(); continue; }
        if (!l.open) fail(`${label}: the file read is not shown once its fold is opened`);
        if (l.hl || l.elements) fail(`${label}: the file read is not plain text (${l.elements} elements)`);
        if (l.colours !== 1) fail(`${label}: the file read shows ${l.colours} colours`);
        if (!l.numbered || !l.gutter) fail(`${label}: the lines are not numbered beside the code (${JSON.stringify(l).slice(0, 200)})`);
        const sel = await page.evaluate(copied);
        if (sel.replace(/\n$/, "") !== l.text.replace(/\n$/, "")) fail(`${label}: a selection copies ${JSON.stringify(sel.slice(0, 80))}, not the code ${JSON.stringify(l.text.slice(0, 80))}`);
        await shot(page, `nojs-${origin}`);
        report.nojs++;
        await context.close();
      }
      // With JavaScript, opened by a click: coloured, at both widths and themes.
      for (const width of [1280, 390]) {
        for (const scheme of ["light", "dark"]) {
          const label = `${origin}, ${width} px, ${scheme}`;
          const context = await browser.newContext({ colorScheme: scheme, viewport: { width, height: 900 } });
          const page = await context.newPage();
          const problems = [];
          problemsOf(page, label, problems);
          let loads = 0;
          page.on("request", (r) => { if (/\/assets\/highlight\.js$/.test(new URL(r.url()).pathname)) loads++; });
          await page.goto(url, { waitUntil: "load" });
          const plain = await page.evaluate(look);
          await page.waitForTimeout(200);
          if (loads) fail(`${label}: highlight.js was loaded while every file read was closed`);
          await page.evaluate(openFile);
          await page.waitForSelector("pre.lines[data-lang].hl", { timeout: 15000 }).catch(() => fail(`${label}: the opened file read was not coloured`));
          const l = await page.evaluate(look);
          if (loads !== 1) fail(`${label}: highlight.js loaded ${loads} times`);
          if (l.text !== plain.text) fail(`${label}: colouring changed the text`);
          if (!l.numbered || !l.gutter) fail(`${label}: the coloured lines lost their numbers`);
          const want = PALETTE[scheme];
          for (const k of Object.keys(want)) {
            if (l.kinds[k] && l.kinds[k] !== want[k]) fail(`${label}: h-${k} is ${l.kinds[k]}, syntax.css says ${want[k]}`);
          }
          if (Object.keys(l.kinds).length < 3 || l.colours < 3) fail(`${label}: too few kinds of token coloured: ${JSON.stringify(l.kinds)}`);
          await page.evaluate(axeSource);
          const axe = await page.evaluate(() => window.axe.run(document.querySelector("pre.lines[data-lang]"), { resultTypes: ["violations"] }));
          report.axe_rules += axe.passes.length;
          if (!axe.passes.some((r) => r.id === "color-contrast") && !axe.violations.some((r) => r.id === "color-contrast")) fail(`${label}: axe did not check the colour contrast`);
          for (const v of axe.violations) fail(`${label}: axe ${v.id} on ${v.nodes.length} element(s): ${v.nodes.slice(0, 3).map((n) => n.failureSummary).join(" | ")}`);
          await shot(page, `${width}-${scheme}-${origin}`);
          for (const p of problems) fail(p);
          report.coloured++;
          await context.close();
        }
      }
      // Find on the page, and a page opened from a search result: marks stay.
      {
        const label = `${origin}, find`;
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        const page = await context.newPage();
        const problems = [];
        problemsOf(page, label, problems);
        await page.goto(url, { waitUntil: "load" });
        const word = wordOf((await page.evaluate(look)).text);
        if (!word) { fail(`${label}: no word of five letters in the file read`); await context.close(); continue; }
        await page.keyboard.press("Control+f");
        await page.waitForSelector(".findbar input", { state: "visible", timeout: 5000 });
        await page.fill(".findbar input", word);
        // Step to the first match inside the file read: find opens its fold.
        let inFile = false;
        await page.waitForTimeout(400);
        for (let i = 0; i < 200 && !inFile; i++) {
          inFile = await page.evaluate(() => !!document.querySelector("pre.lines[data-lang] mark.cc-find.cur"));
          if (!inFile) await page.press(".findbar input", "Enter");
        }
        if (!inFile) fail(`${label}: find never reached "${word}" in the file read`);
        await page.waitForSelector("pre.lines[data-lang].hl", { timeout: 15000 }).catch(() => fail(`${label}: the file read opened by find was not coloured`));
        const after = await page.evaluate((w) => {
          const marks = [...document.querySelectorAll("pre.lines[data-lang] mark.cc-find")];
          return { n: marks.length, same: marks.every((m) => m.textContent.toLowerCase() === w.toLowerCase()), count: document.querySelector(".find-count").textContent };
        }, word);
        if (!after.n || !after.same) fail(`${label}: the marks of "${word}" were lost when the file read was coloured: ${JSON.stringify(after)}`);
        await page.press(".findbar input", "Enter");
        const stepped = await page.evaluate(() => document.querySelectorAll("mark.cc-find.cur").length);
        if (!stepped) fail(`${label}: Enter no longer steps through the marks`);
        report.finds++;
        // From a search result: ?hl=word, the message's anchor.
        const anchor = await page.evaluate(() => { const m = document.querySelector("pre.lines[data-lang]").closest("[id^=m-]"); return m ? m.id : ""; });
        await page.goto(`${url}?hl=${encodeURIComponent(word)}#${anchor}`, { waitUntil: "load" });
        await page.waitForSelector("pre.lines[data-lang].hl", { timeout: 15000 }).catch(() => fail(`${label}: the file read a search result opened was not coloured`));
        const hits = await page.evaluate((w) => [...document.querySelectorAll("pre.lines[data-lang] mark.cc-hit")].filter((m) => m.textContent.toLowerCase() === w.toLowerCase()).length, word);
        if (!hits) fail(`${label}: the search hit "${word}" is not marked in the coloured file read`);
        report.hits++;
        for (const p of problems) fail(p);
        await context.close();
      }
    }
  } finally {
    await browser.close();
    server.close();
  }
}

run(main, { limited: true, limitMs: 600000 });

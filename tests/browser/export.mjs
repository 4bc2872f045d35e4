// Browser checks of files written by `cctree export`, in Debian's chromium (playwright-core).
//
//   node export.mjs --file F.html --ids IDS.json [--find QUERY --expect ID] [--shots DIR]
//                   [--xss H1.html,H2.html]
//
// The file is opened from file:// and from a temporary http server on
// 127.0.0.1, in light and dark. It must make no request but for itself (and
// data: images): every other request is aborted and reported; no console
// error or warning (a CSP violation is one), no page error; its script ran
// (the find box is shown), every id of IDS.json (the anchor of every message
// of every branch) is in the DOM, nothing in the DOM is active or foreign.
// With JavaScript off, every id is there too and the find box stays hidden.
// Find: QUERY lists a link to #ID, which leads there. Screenshots at 1280 and
// 390 px, light and dark, in DIR.
//
// With --xss, each hostile export is loaded with its CSP and with the CSP
// bypassed (so escaping is tested, not only the CSP), with traps on
// alert/confirm/prompt/print/open, dialogs, console and network; every
// <details> is opened; the find box is run with hostile queries. Nothing may
// run, nothing may be fetched, nothing logged.
//
// Prints a JSON report on stdout; exits 0 if all is well, 1 on any failure,
// 2 if the browser could not run, 3 on timeout.

import { args, launch, reporter } from "./common.mjs";
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const opt = args();
const report = { opened: [], find: null, nojs: null, xss: null, screenshots: [] };
const { fail, run } = reporter(report);

// Serves the directory of the files, as a static host would (no CSP header).
function serve(dir) {
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url, "http://x").pathname.slice(1));
    const file = path.join(dir, path.basename(name));
    fs.readFile(file, (err, data) => {
      if (err || name.includes("/")) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "x-content-type-options": "nosniff" });
      res.end(data);
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

// A page that reports everything it does besides showing the file at `url`.
async function newPage(context, label, url, sink) {
  const page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") sink.push(`${label}: console ${m.type()}: ${m.text()}`);
    else if (m.text().includes("XSS-EXECUTED")) sink.push(`${label}: payload ran: ${m.text()}`);
  });
  page.on("pageerror", (e) => sink.push(`${label}: page error: ${e.message}`));
  page.on("dialog", async (d) => { sink.push(`${label}: dialog opened: ${d.type()} ${d.message()}`); await d.dismiss().catch(() => {}); });
  page.on("popup", (p) => sink.push(`${label}: popup opened: ${p.url()}`));
  await page.route("**/*", (route) => {
    const u = route.request().url();
    if (u.split("#")[0] === url || /^data:image\/(png|gif|jpeg|webp)[;,]/.test(u)) return route.continue();
    sink.push(`${label}: request outside the file: ${u.slice(0, 200)}`);
    return route.abort();
  });
  return page;
}

// Runs in the page: everything active, foreign or leading out of the file.
function domProblems() {
  const bad = [];
  const describe = (el) => el.outerHTML.slice(0, 160);
  const urlAttrs = ["href", "src", "xlink:href", "action", "formaction", "poster", "data", "srcset", "background", "ping", "cite"];
  for (const el of document.querySelectorAll("*")) {
    for (const a of el.attributes) {
      const n = a.name.toLowerCase();
      if (n.startsWith("on")) bad.push(`event handler ${n} on ${describe(el)}`);
      if (n === "style" || n === "srcdoc") bad.push(`${n} on ${describe(el)}`);
      if (!urlAttrs.includes(n)) continue;
      const v = a.value.replace(/[\s\x00-\x1f]/g, "").toLowerCase();
      const image = n === "src" && el.tagName === "IMG" && /^data:image\/(png|gif|jpeg|webp)[;,]/.test(v);
      const link = n === "href" && el.tagName === "A" && (/^#/.test(v) || /^(https?|mailto):/.test(v));
      // The map's rows: SVG links, to a place in the file only.
      const svgLink = n === "href" && el.namespaceURI === "http://www.w3.org/2000/svg" && el.localName === "a" && /^#/.test(v);
      if (!image && !link && !svgLink) bad.push(`${n}=${a.value.slice(0, 80)} on ${describe(el)}`);
    }
  }
  for (const sel of ["iframe", "frame", "object", "embed", "base", "form", "link", "video", "audio", "source", "template", "noscript"]) {
    for (const el of document.querySelectorAll(sel)) bad.push(`<${el.tagName.toLowerCase()}>: ${describe(el)}`);
  }
  const scripts = document.querySelectorAll("script");
  if (scripts.length !== 1 || scripts[0].src) bad.push(`${scripts.length} scripts, not the file's own one`);
  for (const a of document.querySelectorAll("a[href^='#']")) {
    const id = decodeURIComponent(a.getAttribute("href").slice(1));
    if (id && id !== "top" && !document.getElementById(id)) bad.push(`dangling link ${describe(a)}`);
  }
  if (document.querySelectorAll("title").length !== 1) bad.push(`${document.querySelectorAll("title").length} <title> elements`);
  return bad;
}

function missingIds(ids) {
  return ids.filter((id) => !document.getElementById(id));
}

async function open(browser, file, base, ids, shots) {
  const name = path.basename(file);
  for (const scheme of ["light", "dark"]) {
    for (const width of [1280, 390]) {
      const context = await browser.newContext({ colorScheme: scheme, viewport: { width, height: 1000 } });
      for (const [how, url] of [["file", pathToFileURL(file).href], ["http", base + encodeURIComponent(name)]]) {
        if (how === "http" && (scheme === "dark" || width !== 1280)) continue;
        const problems = [];
        const label = `${how} ${name} ${width} ${scheme}`;
        const page = await newPage(context, label, url, problems);
        const resp = await page.goto(url, { waitUntil: "load" }).catch((e) => { problems.push(`${label}: ${e.message}`); return null; });
        if (how === "http" && (!resp || resp.status() !== 200)) problems.push(`${label}: HTTP ${resp && resp.status()}`);
        await page.waitForTimeout(100);
        if (!(await page.isVisible("#find"))) problems.push(`${label}: the script did not run (find box hidden)`);
        for (const b of await page.evaluate(domProblems)) problems.push(`${label}: ${b}`);
        const missing = await page.evaluate(missingIds, ids);
        if (missing.length) problems.push(`${label}: ${missing.length} messages missing, e.g. ${missing.slice(0, 3)}`);
        if (shots && how === "file") {
          const shot = `export-${width}-${scheme}.png`;
          await page.screenshot({ path: path.join(shots, shot) });
          report.screenshots.push(shot);
        }
        report.opened.push({ how, width, scheme, title: await page.title(), problems: problems.length });
        problems.forEach(fail);
        await page.close();
      }
      await context.close();
    }
  }
}

async function noScript(browser, file, ids) {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const url = pathToFileURL(file).href;
  const problems = [];
  const page = await newPage(context, "no-js", url, problems);
  await page.goto(url, { waitUntil: "load" });
  const missing = await page.$$eval("article", (as, ids) => {
    const have = new Set(as.map((a) => a.id));
    return ids.filter((id) => !have.has(id) && !document.getElementById(id));
  }, ids);
  if (missing.length) problems.push(`no-js: ${missing.length} messages missing`);
  if (await page.isVisible("#find")) problems.push("no-js: the find box shows without JavaScript");
  const shown = await page.$$eval("article.msg.user", (as) => as.filter((a) => a.offsetParent !== null).length);
  if (!shown) problems.push("no-js: no prompt is visible");
  report.nojs = { ids: ids.length, missing: missing.length, prompts_visible: shown };
  problems.forEach(fail);
  await context.close();
}

async function find(browser, file, shots) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const url = pathToFileURL(file).href;
  const problems = [];
  const page = await newPage(context, "find", url, problems);
  await page.goto(url, { waitUntil: "load" });
  await page.fill("#find-input", opt.find);
  const sel = `#find-results a[href="#${opt.expect}"]`;
  const hit = await page.waitForSelector(sel, { timeout: 5000 }).catch(() => null);
  const hrefs = await page.$$eval("#find-results a", (as) => as.map((a) => a.getAttribute("href")));
  report.find = { query: opt.find, hrefs: hrefs.slice(0, 10) };
  if (!hit) problems.push(`find: ${JSON.stringify(opt.find)} lists no link to #${opt.expect}: ${hrefs.slice(0, 10)}`);
  else {
    if (shots) { await page.screenshot({ path: path.join(shots, "export-find.png") }); report.screenshots.push("export-find.png"); }
    await page.click(sel);
    await page.waitForTimeout(100);
    const at = await page.evaluate(() => ({ hash: location.hash, found: (document.querySelector("article.msg.found") || {}).id }));
    if (at.hash !== `#${opt.expect}` || at.found !== opt.expect) problems.push(`find: the hit led to ${JSON.stringify(at)}`);
  }
  problems.forEach(fail);
  await context.close();
}

async function xss(browser, files) {
  const problems = [];
  const trap = () => {
    for (const f of ["alert", "confirm", "prompt", "print", "open"]) {
      window[f] = (...a) => { console.error("XSS-EXECUTED " + f + " " + a.join(" ")); };
    }
  };
  let loads = 0;
  for (const bypassCSP of [false, true]) {
    const context = await browser.newContext({ bypassCSP, viewport: { width: 1000, height: 800 } });
    await context.addInitScript(trap);
    for (const file of files) {
      const url = pathToFileURL(file).href;
      const label = `xss ${bypassCSP ? "no-csp" : "csp"} ${path.basename(file)}`;
      const page = await newPage(context, label, url, problems);
      await page.goto(url, { waitUntil: "load" }).catch((e) => problems.push(`${label}: ${e.message}`));
      const title0 = await page.title();
      await page.$$eval("details", (ds) => ds.forEach((d) => { d.open = true; }));
      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      for (const q of ["script", "onerror", "ZQ", "<img src=x onerror=alert(1)>"]) {
        await page.fill("#find-input", q).catch((e) => problems.push(`${label}: ${e.message}`));
        await page.waitForTimeout(40);
      }
      await page.waitForTimeout(60);
      if (page.url().split("#")[0] !== url) problems.push(`${label}: navigated to ${page.url()}`);
      for (const b of await page.evaluate(domProblems)) problems.push(`${label}: ${b}`);
      if ((await page.title()) !== title0) problems.push(`${label}: the title changed after load`);
      await page.close();
      loads++;
    }
    await context.close();
  }
  report.xss = { files: files.length, loads, problems: problems.length };
  problems.forEach(fail);
}

async function main() {
  const browser = await launch(["--disable-quic"]);
  const servers = [];
  try {
    const shots = opt.shots ? path.resolve(opt.shots) : null;
    if (shots) fs.mkdirSync(shots, { recursive: true });
    if (opt.file) {
      const file = path.resolve(opt.file);
      const ids = JSON.parse(fs.readFileSync(opt.ids, "utf8"));
      const server = await serve(path.dirname(file));
      servers.push(server);
      await open(browser, file, `http://127.0.0.1:${server.address().port}/`, ids, shots);
      await noScript(browser, file, ids);
      if (opt.find) await find(browser, file, shots);
    }
    if (opt.xss) await xss(browser, opt.xss.split(",").map((f) => path.resolve(f)));
  } finally {
    await browser.close();
    servers.forEach((s) => s.close());
  }
}

run(main, { limited: true });

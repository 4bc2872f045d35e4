// Browser checks of a rendered cctree site, in Debian's chromium (playwright-core).
//
//   node run.mjs --site DIR --pages [name=]a.html,[name=]b/index.html
//                [--search QUERY --expect HREF_PART] [--shots DIR] [--xss-site DIR]
//                [--viewport 1200x1400]
//   node run.mjs --site DIR --fulltext WORD,WORD [--shots DIR --name NAME]
//
// For each page, over file:// and over http (served under a sub-path): HTTP 200
// for the page and everything it loads, no console errors or warnings (a CSP
// violation is one), no page errors, no request leaving the site, app.js ran
// (so `script-src 'self'` works there), and the DOM holds nothing active
// (no handlers, no foreign scripts, no javascript: links…). Screenshots in
// light and dark (named after the page's name). Search on the archive index,
// over file:// and http, must find QUERY with a link whose href contains
// HREF_PART, and the link must lead there.
//
// With --fulltext (and no --pages), each WORD (one that occurs in exactly one
// message of the archive) is searched from the archive index over file:// and
// http, at 1280 and 390 px: exactly one message is found, the word is marked
// in its excerpt, the results are on screen with no horizontal scroll, the
// result leads to the message with the word marked in it, and find within the
// page (Ctrl+F) finds it there. Screenshots NAME-search-{1280,390}-{light,dark}.png.
//
// With --xss-site, every page of that site is loaded twice, with the page's CSP
// and with the CSP bypassed (so escaping is tested, not only the CSP), with
// traps on alert/confirm/prompt/print, dialogs, console and network; every
// <details> is opened; the archive search is run with hostile queries. Nothing
// may run, nothing may be fetched from outside, nothing may be logged, and the
// page must not navigate away.
//
// Prints a JSON report on stdout; exits 0 if all is well, 1 on any failure,
// 2 if the browser could not run, 3 on timeout.

import { args, launch, reporter, htmlFiles } from "./common.mjs";
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const opt = args();
const report = { pages: [], search: [], fulltext: [], xss: null, screenshots: [] };
const { fail, run } = reporter(report);
const [vw, vh] = (opt.viewport || "1200x1400").split("x").map(Number);

const SUBPATH = "/published/under/a/sub-path/";

function serve(root) {
  const types = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
    ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp" };
  const rootAbs = path.resolve(root) + path.sep;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    if (!url.pathname.startsWith(SUBPATH)) { res.writeHead(404); res.end(); return; }
    let rel;
    try { rel = decodeURIComponent(url.pathname.slice(SUBPATH.length)) || "index.html"; } catch { res.writeHead(400); res.end(); return; }
    if (rel.endsWith("/")) rel += "index.html";
    const file = path.resolve(rootAbs, rel);
    if (!file.startsWith(rootAbs)) { res.writeHead(403); res.end(); return; }
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404); res.end(); return; }
      // Served like a static host would, with no CSP header: the page's own meta CSP must do.
      res.writeHead(200, { "content-type": types[path.extname(file)] || "application/octet-stream", "x-content-type-options": "nosniff" });
      res.end(data);
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

// Origins of our own servers.
const locals = [];

async function newPage(context, label, sink) {
  const page = await context.newPage();
  // Requests in flight, so a click that leaves the page waits for them
  // (a script still loading when the page is left is aborted: no fault of the site).
  page.inflight = new Set();
  page.on("request", (r) => page.inflight.add(r));
  page.on("requestfinished", (r) => page.inflight.delete(r));
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") sink.push(`${label}: console ${m.type()}: ${m.text()}`);
    else if (m.text().includes("XSS-EXECUTED")) sink.push(`${label}: payload ran: ${m.text()}`);
  });
  page.on("pageerror", (e) => sink.push(`${label}: page error: ${e.message}`));
  page.on("dialog", async (d) => { sink.push(`${label}: dialog opened: ${d.type()} ${d.message()}`); await d.dismiss().catch(() => {}); });
  page.on("popup", (p) => sink.push(`${label}: popup opened: ${p.url()}`));
  page.on("requestfailed", (r) => {
    page.inflight.delete(r);
    const u = r.url();
    if (!isLocal(u)) return; // already reported by the route below
    sink.push(`${label}: request failed: ${u} (${r.failure() && r.failure().errorText})`);
  });
  page.on("response", (r) => {
    if (r.status() >= 400) sink.push(`${label}: HTTP ${r.status()} for ${r.url()}`);
  });
  await page.route("**/*", (route) => {
    const u = route.request().url();
    if (isLocal(u)) return route.continue();
    sink.push(`${label}: request leaving the site: ${u}`);
    return route.abort();
  });
  return page;
}

// Waits until the page has no request in flight (twice in a row, 50 ms apart).
async function settle(page, label, sink) {
  let quiet = 0;
  for (const end = Date.now() + 10000; Date.now() < end;) {
    quiet = page.inflight.size ? 0 : quiet + 1;
    if (quiet >= 2) return;
    await page.waitForTimeout(50);
  }
  sink.push(`${label}: requests still loading after 10 s: ${[...page.inflight].map((r) => r.url()).join(", ")}`);
}

function isLocal(u) {
  return u.startsWith("file:") || u.startsWith("data:image/") || locals.some((o) => u.startsWith(o));
}

// Runs in the page: everything active or foreign in the DOM.
function domProblems() {
  const bad = [];
  // (highlight.js: loaded by app.js once a file read is shown.)
  const own = /(^|\/)assets\/(app|view|search|highlight)\.js$/;
  const urlAttrs = ["href", "src", "xlink:href", "action", "formaction", "poster", "data", "srcset", "background", "ping", "cite"];
  const describe = (el) => el.outerHTML.slice(0, 160);
  for (const el of document.querySelectorAll("*")) {
    for (const a of el.attributes) {
      const n = a.name.toLowerCase();
      if (n.startsWith("on")) bad.push(`event handler ${n} on ${describe(el)}`);
      if (n === "style" || n === "srcdoc" || n === "formaction") bad.push(`${n} on ${describe(el)}`);
      if (urlAttrs.includes(n)) {
        const v = a.value.replace(/[\s\x00-\x1f]/g, "").toLowerCase();
        const rasterImg = n === "src" && el.tagName === "IMG" && /^data:image\/(png|gif|jpeg|webp)[;,]/.test(v);
        if (/^[a-z][a-z0-9+.-]*:/.test(v) && !/^(https?|mailto|file):/.test(v) && !rasterImg) bad.push(`${n}=${a.value} on ${describe(el)}`);
        if (n !== "href" && n !== "cite" && /^(https?:|\/\/)/.test(v)) bad.push(`${n} loads from elsewhere: ${describe(el)}`);
      }
    }
  }
  const forbidden = ["iframe", "frame", "object", "embed", "base", "form", "style", "math", "template", "noscript", "textarea",
    "video", "audio", "source", "foreignObject", "animate", "set", "meta[http-equiv=refresh i]"];
  for (const sel of forbidden) for (const el of document.querySelectorAll(sel)) bad.push(`<${el.tagName.toLowerCase()}>: ${describe(el)}`);
  for (const s of document.querySelectorAll("script")) {
    const src = s.getAttribute("src");
    if (!src || !own.test(new URL(src, document.baseURI).pathname)) bad.push(`foreign script: ${describe(s)}`);
  }
  for (const l of document.querySelectorAll("link")) {
    // The site's style sheets and its icon, nothing else.
    const path = new URL(l.getAttribute("href"), document.baseURI).pathname;
    const ok = l.rel === "stylesheet" ? /\/assets\/[a-z]+\.css$/.test(path) : l.rel === "icon" && /\/assets\/icon\.svg$/.test(path);
    if (!ok) bad.push(`foreign link: ${describe(l)}`);
  }
  for (const a of document.querySelectorAll("a[href], area[href]")) {
    const p = new URL(a.getAttribute("href"), document.baseURI).protocol;
    if (!["file:", "http:", "https:", "mailto:"].includes(p)) bad.push(`link with ${p}: ${describe(a)}`);
  }
  if (document.querySelectorAll("title").length !== 1) bad.push(`${document.querySelectorAll("title").length} <title> elements`);
  return bad;
}

async function check(page, label, sink) {
  for (const b of await page.evaluate(domProblems)) sink.push(`${label}: ${b}`);
}

function pageList() {
  return (opt.pages || "index.html").split(",").map((spec) => {
    const i = spec.indexOf("=");
    return i > 0 ? { name: spec.slice(0, i), rel: spec.slice(i + 1) } : { name: spec.replace(/[^A-Za-z0-9]+/g, "_"), rel: spec };
  });
}


async function pages(browser, site, base, shots) {
  for (const scheme of ["light", "dark"]) {
    const context = await browser.newContext({ colorScheme: scheme, viewport: { width: vw, height: vh } });
    for (const { name, rel } of pageList()) {
      for (const [how, url] of [["file", pathToFileURL(path.join(site, rel)).href], ["http", base + rel]]) {
        if (how === "http" && scheme === "dark") continue;
        const problems = [];
        const label = `${how} ${rel}`;
        const page = await newPage(context, label, problems);
        const resp = await page.goto(url, { waitUntil: "load" }).catch((e) => { problems.push(`${label}: ${e.message}`); return null; });
        if (how === "http" && (!resp || resp.status() !== 200)) problems.push(`${label}: HTTP ${resp && resp.status()}`);
        await page.waitForTimeout(100);
        // app.js unhides the search box: it ran, so the CSP lets our own script in.
        if (!(await page.isVisible("#search"))) problems.push(`${label}: app.js did not run (search box hidden)`);
        await check(page, label, problems);
        const title = await page.title();
        if (shots && how === "file") {
          const file = `${name}-${scheme}.png`;
          await page.screenshot({ path: path.join(shots, file), fullPage: false });
          report.screenshots.push(file);
        }
        report.pages.push({ rel, how, scheme, title, problems: problems.length });
        problems.forEach(fail);
        await page.close();
      }
    }
    await context.close();
  }
}

async function search(browser, site, base, shots) {
  for (const [how, url] of [["file", pathToFileURL(path.join(site, "index.html")).href], ["http", base + "index.html"]]) {
    const context = await browser.newContext({ viewport: { width: vw, height: 900 } });
    const problems = [];
    const label = `search ${how}`;
    const page = await newPage(context, label, problems);
    await page.goto(url);
    await page.waitForSelector("#search-input", { state: "visible", timeout: 5000 });
    await page.fill("#search-input", opt.search);
    // The rows come first, their links once the conversation's index is in.
    await page.waitForFunction((want) => [...document.querySelectorAll("#search-results a[href]")].some((a) => a.getAttribute("href").includes(want)),
      opt.expect || "", { timeout: 5000 }).catch(() => {});
    const hrefs = await page.$$eval("#search-results a", (as) => as.map((a) => a.getAttribute("href")));
    report.search.push({ how, query: opt.search, hrefs });
    const hit = hrefs.find((h) => h && h.includes(opt.expect || ""));
    if (!hit) problems.push(`${label}: ${JSON.stringify(opt.search)} found no link containing ${opt.expect}: ${hrefs}`);
    else {
      if (shots && how === "file") {
        // With the excerpts in, their words marked.
        await page.waitForSelector("#search-results .sr-hits mark", { timeout: 5000 }).catch(() => problems.push(`${label}: no word marked in the results`));
        await page.screenshot({ path: path.join(shots, "search.png") });
        report.screenshots.push("search.png");
      }
      await settle(page, label, problems);
      await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(`#search-results a[href="${hit}"]`)]);
      const want = (opt.expect || "").split("#")[0];
      if (!page.url().includes(want)) problems.push(`${label}: clicking the result went to ${page.url()}`);
    }
    problems.forEach(fail);
    await context.close();
  }
}

// Runs in the page: where the search results are, for the 390 px check.
function resultsBox() {
  const list = document.getElementById("search-results");
  const hit = list && list.querySelector(".sr-hits a");
  const r = (e) => { const b = e.getBoundingClientRect(); return { left: b.left, right: b.right, top: b.top, bottom: b.bottom }; };
  return {
    list: list && r(list), hit: hit && r(hit), width: window.innerWidth, height: window.innerHeight,
    scrollWidth: document.documentElement.scrollWidth,
  };
}

async function fulltext(browser, site, base, shots) {
  const words = opt.fulltext.split(",");
  const name = opt.name || "site";
  for (const [width, height] of [[1280, 900], [390, 844]]) {
    for (const scheme of ["light", "dark"]) {
      const context = await browser.newContext({ colorScheme: scheme, viewport: { width, height } });
      for (const word of words) {
        for (const [how, url] of [["file", pathToFileURL(path.join(site, "index.html")).href], ["http", base + "index.html"]]) {
          if (scheme === "dark" && how === "http") continue;
          const problems = [];
          const label = `fulltext ${name} ${how} ${width}px ${scheme} ${JSON.stringify(word)}`;
          const page = await newPage(context, label, problems);
          await page.goto(url, { waitUntil: "load" });
          await page.waitForSelector("#search-input", { state: "visible", timeout: 5000 });
          const t0 = Date.now();
          await page.fill("#search-input", word);
          await page.waitForSelector("#search-results .sr-hits a .sr-role", { timeout: 10000 }).catch(() => problems.push(`${label}: no message found`));
          const ms = Date.now() - t0;
          const hits = await page.$$eval("#search-results .sr-hits a", (as) => as.map((a) => ({
            href: a.getAttribute("href"), marks: [...a.querySelectorAll("mark")].map((m) => m.textContent.toLowerCase()), text: a.textContent,
          })));
          if (hits.length !== 1) problems.push(`${label}: ${hits.length} messages found, not 1: ${JSON.stringify(hits)}`);
          const hit = hits[0];
          if (hit && !hit.marks.includes(word)) problems.push(`${label}: the word is not marked in the excerpt: ${JSON.stringify(hit)}`);
          if (hit && !/#m-/.test(hit.href)) problems.push(`${label}: the result does not link to a message: ${hit.href}`);
          const box = await page.evaluate(resultsBox);
          if (box.scrollWidth > box.width) problems.push(`${label}: horizontal scroll (${box.scrollWidth} > ${box.width})`);
          for (const [what, b] of [["results", box.list], ["hit", box.hit]]) {
            if (!b) continue;
            if (b.left < 0 || b.right > box.width || b.top < 0 || b.top >= box.height) problems.push(`${label}: the ${what} are off screen: ${JSON.stringify(b)}`);
          }
          if (shots && how === "file" && word === words[0]) {
            const file = `${name}-search-${width}-${scheme}.png`;
            await page.screenshot({ path: path.join(shots, file) });
            report.screenshots.push(file);
          }
          let found = null;
          if (hit) {
            await settle(page, label, problems);
            await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("#search-results .sr-hits a")]);
            await page.waitForTimeout(100);
            found = await page.evaluate((w) => {
              const id = decodeURIComponent(location.hash.slice(1));
              const target = document.getElementById(id);
              const marks = target ? [...target.querySelectorAll("mark.cc-hit")] : [];
              const m = marks.find((x) => x.textContent.toLowerCase() === w);
              const r = m && m.getBoundingClientRect();
              return { id, target: !!target, marked: !!m, onScreen: !!r && r.width > 0 && r.top >= 0 && r.bottom <= innerHeight };
            }, word);
            if (!found.target) problems.push(`${label}: the result's anchor #${found.id} is not on ${page.url()}`);
            else if (!found.marked || !found.onScreen) problems.push(`${label}: the word is not marked on screen in the message: ${JSON.stringify(found)}`);
            // Find within the page.
            await page.keyboard.press("Control+f");
            await page.waitForSelector(".findbar input", { state: "visible", timeout: 3000 }).catch(() => problems.push(`${label}: Ctrl+F opened no find bar`));
            await page.fill(".findbar input", word.toUpperCase());
            // Typing finds (after a short pause): the first match is current,
            // Enter steps to the next one and Shift+Enter back, as a browser's
            // own find does. Waiting for the count makes the steps certain on
            // a loaded machine (pressing Enter before or after the pause gave
            // 1/N or 2/N).
            await page.waitForFunction(() => /^(\d+\/\d+\+?|no matches)$/.test(document.querySelector(".find-count").textContent), null, { timeout: 5000 })
              .catch(() => problems.push(`${label}: typing in the find bar found nothing`));
            await page.keyboard.press("Enter");
            await page.keyboard.press("Shift+Enter");
            await page.waitForTimeout(200);
            const f = await page.evaluate(() => {
              const cur = document.querySelector("mark.cc-find.cur");
              const r = cur && cur.getBoundingClientRect();
              return { count: document.querySelector(".find-count").textContent, cur: cur && cur.textContent, onScreen: !!r && r.top >= 0 && r.bottom <= innerHeight,
                scrollWidth: document.documentElement.scrollWidth, width: innerWidth };
            });
            if (!/^1\/\d+$/.test(f.count) || !f.cur || f.cur.toLowerCase() !== word || !f.onScreen) problems.push(`${label}: find in page: ${JSON.stringify(f)}`);
            if (f.scrollWidth > f.width) problems.push(`${label}: horizontal scroll on the page found (${f.scrollWidth} > ${f.width})`);
            found.find = f.count;
          }
          report.fulltext.push({ name, how, width, scheme, word, ms, hit: hit && hit.href, found, problems: problems.length });
          problems.forEach(fail);
          await page.close();
        }
      }
      await context.close();
    }
  }
}

async function xss(browser, dir, base) {
  const files = htmlFiles(dir);
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
    const mode = bypassCSP ? "no-csp" : "csp";
    for (const f of files) {
      const rel = path.relative(dir, f);
      const label = `xss ${mode} ${rel}`;
      const page = await newPage(context, label, problems);
      const url = pathToFileURL(f).href;
      await page.goto(url, { waitUntil: "load" }).catch((e) => problems.push(`${label}: ${e.message}`));
      loads++;
      const title0 = await page.title();
      // Open every collapsed block and scroll through, so lazy content is live too.
      await page.$$eval("details", (ds) => ds.forEach((d) => { d.open = true; }));
      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      await page.waitForTimeout(60);
      if (page.url() !== url) problems.push(`${label}: navigated to ${page.url()}`);
      await check(page, label, problems);
      if ((await page.title()) !== title0) problems.push(`${label}: the title changed after load`);
      await page.close();
    }
    // The search renders index entries (hostile titles and prompts) into the page.
    for (const q of ["script", "onerror", "ZQ", "<img src=x onerror=alert(1)>"]) {
      const label = `xss ${mode} search ${JSON.stringify(q)}`;
      const page = await newPage(context, label, problems);
      await page.goto(pathToFileURL(path.join(dir, "index.html")).href + "?q=" + encodeURIComponent(q), { waitUntil: "load" });
      await page.waitForSelector("#search-results:not([hidden])", { timeout: 5000 }).catch(() => problems.push(`${label}: no results shown`));
      await page.waitForTimeout(60);
      await check(page, label, problems);
      await page.close();
      loads++;
    }
    await context.close();
  }
  // And over http, under the sub-path, with the CSP.
  const context = await browser.newContext();
  await context.addInitScript(trap);
  for (const f of files) {
    const rel = path.relative(dir, f).split(path.sep).map(encodeURIComponent).join("/");
    const label = `xss http ${rel}`;
    const page = await newPage(context, label, problems);
    const resp = await page.goto(base + rel, { waitUntil: "load" }).catch((e) => { problems.push(`${label}: ${e.message}`); return null; });
    if (!resp || resp.status() !== 200) problems.push(`${label}: HTTP ${resp && resp.status()}`);
    await page.$$eval("details", (ds) => ds.forEach((d) => { d.open = true; }));
    await page.waitForTimeout(40);
    await page.close();
    loads++;
  }
  await context.close();
  report.xss = { pages: files.length, loads, problems: problems.length };
  problems.forEach(fail);
}

async function main() {
  const browser = await launch(["--disable-quic", "--allow-file-access-from-files"]);
  const servers = [];
  try {
    const shots = opt.shots ? path.resolve(opt.shots) : null;
    if (shots) fs.mkdirSync(shots, { recursive: true });
    if (opt.site) {
      const site = path.resolve(opt.site);
      const server = await serve(site);
      servers.push(server);
      locals.push(`http://127.0.0.1:${server.address().port}/`);
      const base = `http://127.0.0.1:${server.address().port}${SUBPATH}`;
      if (!opt.fulltext || opt.pages) await pages(browser, site, base, shots);
      if (opt.search) await search(browser, site, base, shots);
      if (opt.fulltext) await fulltext(browser, site, base, shots);
    }
    if (opt["xss-site"]) {
      const dir = path.resolve(opt["xss-site"]);
      const server = await serve(dir);
      servers.push(server);
      const port = server.address().port;
      locals.push(`http://127.0.0.1:${port}/`);
      await xss(browser, dir, `http://127.0.0.1:${port}${SUBPATH}`);
    }
  } finally {
    await browser.close();
    servers.forEach((s) => s.close());
  }
}

run(main, { limited: true });

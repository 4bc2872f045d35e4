// Browser checks of a rendered cctree site, in Debian's chromium (playwright-core).
//
//   node run.mjs --site DIR --pages a.html,b/index.html --search QUERY --expect HREF_PART
//                [--shots DIR] [--xss-site DIR]
//
// For each page, over file:// and over http (served under a sub-path): no console
// errors or warnings, no page errors, no request leaves the site. Screenshots in
// light and dark. Search on the archive index must find QUERY with a link whose
// href contains HREF_PART. With --xss-site, every page of that site is loaded with
// traps on dialogs, console and network: nothing may run, nothing may be fetched.
// Prints a JSON report; exits 1 on any failure.

import { chromium } from "playwright-core";
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

function args() {
  const out = {};
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i += 2) out[a[i].replace(/^--/, "")] = a[i + 1];
  return out;
}

const opt = args();
const failures = [];
const report = { pages: [], search: null, xss: null, screenshots: [] };
const fail = (m) => failures.push(m);

const SUBPATH = "/published/under/a/sub-path/";

function serve(root) {
  const types = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css", ".png": "image/png",
    ".jpg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp", ".svg": "image/svg+xml" };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    if (!url.pathname.startsWith(SUBPATH)) { res.writeHead(404); res.end(); return; }
    const rel = decodeURIComponent(url.pathname.slice(SUBPATH.length)) || "index.html";
    const file = path.join(root, rel);
    if (!file.startsWith(path.resolve(root))) { res.writeHead(403); res.end(); return; }
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { "content-type": types[path.extname(file)] || "application/octet-stream" });
      res.end(data);
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

async function newPage(context, label, sink) {
  const page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") sink.push(`${label}: console ${m.type()}: ${m.text()}`);
    if (m.text().includes("XSS-EXECUTED")) sink.push(`${label}: payload ran: ${m.text()}`);
  });
  page.on("pageerror", (e) => sink.push(`${label}: page error: ${e.message}`));
  page.on("dialog", async (d) => { sink.push(`${label}: dialog opened: ${d.message()}`); await d.dismiss(); });
  await page.route("**/*", (route) => {
    const u = route.request().url();
    if (u.startsWith("file:") || u.startsWith("http://127.0.0.1:") || u.startsWith("data:")) return route.continue();
    sink.push(`${label}: request leaving the site: ${u}`);
    return route.abort();
  });
  return page;
}

async function main() {
  const executablePath = process.env.CCTREE_CHROMIUM || "/usr/bin/chromium";
  const browser = await chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--disable-quic", "--allow-file-access-from-files"],
  });
  const site = path.resolve(opt.site);
  const server = await serve(site);
  const base = `http://127.0.0.1:${server.address().port}${SUBPATH}`;
  const shots = opt.shots ? path.resolve(opt.shots) : null;
  if (shots) fs.mkdirSync(shots, { recursive: true });
  try {
    for (const scheme of ["light", "dark"]) {
      const context = await browser.newContext({ colorScheme: scheme, viewport: { width: 1200, height: 1400 } });
      for (const rel of (opt.pages || "index.html").split(",")) {
        for (const [how, url] of [["file", pathToFileURL(path.join(site, rel)).href], ["http", base + rel]]) {
          if (how === "http" && scheme === "dark") continue;
          const problems = [];
          const page = await newPage(context, `${how} ${rel}`, problems);
          const resp = await page.goto(url, { waitUntil: "load" });
          if (how === "http" && (!resp || resp.status() !== 200)) problems.push(`${how} ${rel}: HTTP ${resp && resp.status()}`);
          await page.waitForTimeout(150);
          const title = await page.title();
          if (shots && how === "file") {
            const name = `${rel.replace(/[^A-Za-z0-9]+/g, "_").slice(-80)}-${scheme}.png`;
            await page.screenshot({ path: path.join(shots, name), fullPage: false });
            report.screenshots.push(name);
          }
          report.pages.push({ rel, how, scheme, title, problems: problems.length });
          problems.forEach(fail);
          await page.close();
        }
      }
      await context.close();
    }

    if (opt.search) {
      const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
      const problems = [];
      const page = await newPage(context, "search", problems);
      await page.goto(pathToFileURL(path.join(site, "index.html")).href);
      await page.waitForSelector("#search-input", { state: "visible", timeout: 5000 });
      await page.fill("#search-input", opt.search);
      await page.waitForSelector("#search-results a", { timeout: 5000 }).catch(() => {});
      const hrefs = await page.$$eval("#search-results a", (as) => as.map((a) => a.getAttribute("href")));
      report.search = { query: opt.search, hrefs };
      const hit = hrefs.find((h) => h && h.includes(opt.expect || ""));
      if (!hit) problems.push(`search for ${JSON.stringify(opt.search)} found no link containing ${opt.expect}: ${hrefs}`);
      else {
        if (shots) await page.screenshot({ path: path.join(shots, "search.png") });
        await page.click(`#search-results a[href="${hit}"]`);
        await page.waitForLoadState("load");
        if (!page.url().includes(opt.expect.split("#")[0])) problems.push(`clicking the result went to ${page.url()}`);
      }
      problems.forEach(fail);
      await context.close();
    }

    if (opt["xss-site"]) {
      const xss = path.resolve(opt["xss-site"]);
      const files = [];
      const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).forEach((e) => {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p); else if (p.endsWith(".html")) files.push(p);
      });
      walk(xss);
      const context = await browser.newContext();
      await context.addInitScript(() => {
        for (const f of ["alert", "confirm", "prompt", "print"]) {
          window[f] = (...a) => console.error("XSS-EXECUTED " + f + " " + a.join(" "));
        }
      });
      const problems = [];
      for (const f of files) {
        const page = await newPage(context, `xss ${path.relative(xss, f)}`, problems);
        await page.goto(pathToFileURL(f).href, { waitUntil: "load" });
        // Open every collapsed block so lazy content is in the page too.
        await page.$$eval("details", (ds) => ds.forEach((d) => (d.open = true)));
        await page.waitForTimeout(50);
        const title = await page.title();
        if (/pwned|XSS-EXECUTED/.test(title)) problems.push(`xss ${f}: title changed to ${title}`);
        await page.close();
      }
      report.xss = { pages: files.length, problems: problems.length };
      problems.forEach(fail);
      await context.close();
    }
  } finally {
    await browser.close();
    server.close();
  }
  report.failures = failures;
  console.log(JSON.stringify(report, null, 2));
  process.exit(failures.length ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(2); });

// The first-query time of the archive search in Chromium (scripts/bench.sh):
// for each query, a fresh browser context opens the site's index over
// file://, the query is typed into the search box, and the time until the
// first result (a message with its excerpt) or "No matches" is shown is
// measured in the page (performance.now(), from the input event: it includes
// search.js's 60 ms pause for typing). Also counts the index files loaded.
//
//   node search-bench.mjs --site DIR --queries "word,two words,…"
//
// Prints one JSON object: {queries: [{query, ms, files, units}], median, max}.

import { chromium } from "playwright-core";
import path from "node:path";
import { pathToFileURL } from "node:url";

const opt = {};
const a = process.argv.slice(2);
for (let i = 0; i < a.length; i += 2) opt[a[i].slice(2)] = a[i + 1];

const browser = await chromium.launch({
  executablePath: process.env.CCTREE_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-dev-shm-usage",
    "--disable-component-update", "--disable-sync", "--allow-file-access-from-files"],
});
const out = [];
try {
  for (const query of opt.queries.split(",").filter((q) => q.trim())) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    let files = 0;
    page.on("request", (r) => { if (/search(\/|-\d+\.js)/.test(r.url())) files++; });
    await page.goto(pathToFileURL(path.join(path.resolve(opt.site), "index.html")).href, { waitUntil: "load" });
    const r = await page.evaluate((q) => new Promise((resolve) => {
      const list = document.getElementById("search-results");
      const input = document.getElementById("search-input");
      let t0 = 0;
      const done = () => {
        if (list.querySelector(".sr-hits a .sr-role") || list.querySelector(".none")) {
          obs.disconnect();
          const units = list.querySelectorAll(".sr-unit").length;
          resolve({ ms: performance.now() - t0, units, text: (list.querySelector(".none") || {}).textContent || "" });
        }
      };
      const obs = new MutationObserver(done);
      setTimeout(() => { obs.disconnect(); resolve({ ms: NaN, units: 0, text: "no answer in 10 s" }); }, 10000);
      obs.observe(list, { childList: true, subtree: true, characterData: true });
      t0 = performance.now();
      input.value = q;
      input.dispatchEvent(new Event("input"));
    }), query);
    out.push({ query, ms: Math.round(r.ms), files, units: r.units, status: r.text });
    await context.close();
  }
} finally {
  await browser.close();
}
const ms = out.map((q) => q.ms).sort((x, y) => x - y);
console.log(JSON.stringify({ queries: out, median: ms[ms.length >> 1], max: ms[ms.length - 1] }));

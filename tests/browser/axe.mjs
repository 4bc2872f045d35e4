// Accessibility (issue 26, point 6): axe-core, as pinned in
// package-lock.json, on every kind of page at 1280 and 390 px, light and dark.
//
//   node axe.mjs --spec SPEC.json [--shots DIR]
//
// SPEC is `{ "pages": [{ "name", "file", "search"?, "find"? }] }`: each file
// is opened over file://; with `search` the archive search box gets that word
// and its results are checked open; with `find` the page's find bar
// (Ctrl+F) is opened with that word. axe runs with its default rules (WCAG A
// and AA and best practices) and every violation is a failure naming the
// rule, the page, the width, the theme and the elements. Screenshots
// `axe-NAME-WIDTH-THEME.png` go to DIR.
//
// Beside axe, on every page: each fork-point index's legend reads the number
// of its first fork (`fork at #N`, `N.1`, `N.2`, `N.3`); every visible text
// box's placeholder fits it (measured in its font); with `findbar`, the
// site's find bar is open and, scrolled to the end of the page, no text is
// under it.
//
// The report: `{ runs: [{ page, width, scheme, rules, passes, findbar,
// legends, first_fork }], violations: [...] }` (`rules`: how many rules
// applied, `passes`: how many found nothing wrong, `legends`: the legends
// read, `first_fork`: the label of the page's first fork row).

import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { args, launch, reporter } from "./common.mjs";

const opt = args();
const spec = JSON.parse(fs.readFileSync(opt.spec, "utf8"));
const report = { runs: [], violations: [] };
const { fail, run } = reporter(report);
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

// Runs in the page: the reader-facing checks of issue 26 beside axe's.
function pageChecks(findOpen) {
  const out = [];
  // Each fork-point index's legend reads the number of its first fork.
  for (const nav of document.querySelectorAll("nav.outline")) {
    const key = nav.querySelector(".legend .key.fork");
    const first = nav.querySelector(".tree .row.fork .lbl");
    if (key && first && key.textContent.trim() !== first.textContent.trim()) out.push(`the legend reads "${key.textContent}" where the first fork is "${first.textContent}"`);
    if (key && first) {
      const n = first.textContent.trim().replace(/^fork at #/, "");
      const keys = [...nav.querySelectorAll(".legend .key:not(.fork)")].map((k) => k.textContent.trim());
      if (keys.join(" ") !== `${n}.1 ${n}.2 ${n}.3`) out.push(`the legend's branches read ${keys.join(", ")} for the fork at #${n}`);
    }
  }
  // A visible text box's placeholder fits it.
  const ctx = document.createElement("canvas").getContext("2d");
  for (const input of document.querySelectorAll("input[placeholder]")) {
    if (!input.getClientRects().length || !input.placeholder) continue;
    const cs = getComputedStyle(input);
    ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const room = input.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const need = ctx.measureText(input.placeholder).width;
    if (need > room + 0.5) out.push(`the placeholder "${input.placeholder}" needs ${need.toFixed(0)} px in a box of ${room.toFixed(0)} px`);
  }
  // With the find bar open, at the end of the page, no text is under it.
  const bar = document.querySelector(".findbar:not([hidden])");
  if (findOpen && !bar) out.push("the find bar did not open");
  if (bar) {
    window.scrollTo(0, document.scrollingElement.scrollHeight);
    const b = bar.getBoundingClientRect();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    let n, under = 0, example = "";
    while ((n = walker.nextNode())) {
      if (bar.contains(n) || !n.data.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      for (const r of range.getClientRects()) {
        if (r.width && r.height && r.left < b.right && r.right > b.left && r.top < b.bottom && r.bottom > b.top) { under++; example = example || n.data.trim().slice(0, 60); }
      }
    }
    if (under) out.push(`at the end of the page the find bar covers ${under} line(s) of text, e.g. "${example}"`);
    return { out, findbar: true };
  }
  return { out, findbar: false };
}

async function check(context, p, width, scheme) {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const label = `${p.name} at ${width} px, ${scheme}`;
  try {
    await page.goto(pathToFileURL(p.file).href, { waitUntil: "load" });
    if (p.search) {
      await page.waitForSelector("#search-input", { state: "visible", timeout: 5000 });
      await page.fill("#search-input", p.search);
      await page.waitForSelector("#search-results a", { state: "visible", timeout: 10000 });
    }
    if (p.find) {
      await page.keyboard.press("Control+f");
      const input = (await page.$(".findbar input")) ? ".findbar input" : "#find-input";
      await page.waitForSelector(input, { state: "visible", timeout: 5000 });
      await page.fill(input, p.find);
      await page.waitForTimeout(300);
    }
    const own = await page.evaluate(pageChecks, !!(p.find && p.findbar));
    for (const m of own.out) fail(`${label}: ${m}`);
    // Runtime.evaluate, as the test does it, is not subject to the page's CSP.
    await page.evaluate(axeSource);
    const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
    report.runs.push({ page: p.name, width, scheme, rules: result.passes.length + result.violations.length + result.incomplete.length, passes: result.passes.length, findbar: own.findbar, legends: await page.$$eval("nav.outline .legend .key.fork", (k) => k.length), first_fork: await page.$eval(".tree .row.fork .lbl", (a) => a.textContent.trim()).catch(() => null) });
    for (const v of result.violations) {
      const nodes = v.nodes.slice(0, 5).map((n) => `${n.target.join(" ")}: ${n.failureSummary.replace(/\s+/g, " ")}`);
      report.violations.push({ rule: v.id, page: p.name, width, scheme, count: v.nodes.length, nodes });
      fail(`${label}: ${v.id} (${v.impact}) on ${v.nodes.length} element(s): ${nodes.join(" | ")}`);
    }
    if (opt.shots) {
      fs.mkdirSync(opt.shots, { recursive: true });
      await page.screenshot({ path: path.join(opt.shots, `axe-${p.name}-${width}-${scheme}.png`) });
    }
    for (const e of errors) fail(`${label}: page error ${e}`);
  } finally {
    await page.close();
  }
}

// About 30 pages four times each, on a busy machine: 20 minutes at most.
run(async () => {
  const browser = await launch([]);
  try {
    for (const width of [1280, 390]) {
      for (const scheme of ["light", "dark"]) {
        const context = await browser.newContext({ colorScheme: scheme, viewport: { width, height: 900 } });
        try {
          for (const p of spec.pages) await check(context, p, width, scheme);
        } finally {
          await context.close();
        }
      }
    }
  } finally {
    await browser.close();
  }
}, { limited: true, limitMs: 1200000 });

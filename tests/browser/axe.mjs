// Accessibility: axe-core, as pinned in
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
// Beside axe, on every page: no sideways scroll of
// the page; the fork-point index lists forks in the map's order; no row of
// the map cut (its drawing is as wide as its text, its box scrolls); a
// heading at most four lines, a listed title two with no Markdown fence; at
// 390 px each message header one line and each session id short; changed
// words marked only inside changed lines; every line of a file read
// numbered; tool errors as red cards; the view filters' counts right (the
// report's `seen` counts what was checked). And each fork-point index's legend reads the number
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

// Runs in the page: the reader-facing checks beside axe's (fork order, maps, heads, ids, words, numbers).
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
  // The reader-facing checks, counted in `seen` so that a run shows what it checked.
  const seen = { forkOrder: 0, maps: 0, heads: 0, sids: 0, words: 0, numbered: 0, errors: 0, counts: 0 };
  const narrow = innerWidth <= 640;
  if (document.documentElement.scrollWidth > innerWidth + 1) out.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ${innerWidth} px)`);
  // Point 2: the fork-point index lists the forks in the map's order.
  const svg = document.querySelector(".map-svg"), tree = document.querySelector("nav.outline .tree");
  if (svg && tree) {
    const mapForks = [...svg.querySelectorAll("a.fork")].map((a) => a.getAttribute("href"));
    const treeForks = [...tree.querySelectorAll(".row.fork .lbl")].map((a) => a.getAttribute("href"));
    const shown = treeForks.filter((h) => mapForks.includes(h));
    if (mapForks.length && shown.join(" ") !== mapForks.filter((h) => treeForks.includes(h)).join(" ")) out.push(`the index lists the forks as ${shown.join(", ")}, the map as ${mapForks.join(", ")}`);
    if (mapForks.length > 1) seen.forkOrder++;
  }
  // Point 3: every row of the map within its drawing (scrolled sideways, never cut).
  for (const m of document.querySelectorAll(".map-svg")) {
    if (!m.getClientRects().length) continue;
    const w = m.getBoundingClientRect().width;
    for (const t of m.querySelectorAll("text")) {
      const b = t.getBBox();
      if (b.x + b.width > w + 1) { out.push(`a row of the map is cut at ${w.toFixed(0)} px: "${t.textContent.slice(0, 40)}" needs ${(b.x + b.width).toFixed(0)}`); break; }
    }
    seen.maps++;
  }
  // A heading is at most four lines, a listed title two, with no Markdown fence.
  for (const h of document.querySelectorAll("main h1")) {
    const lh = parseFloat(getComputedStyle(h).lineHeight);
    if (h.getBoundingClientRect().height > 4.5 * lh) out.push(`the heading takes ${(h.getBoundingClientRect().height / lh).toFixed(1)} lines: "${h.textContent.slice(0, 60)}"`);
  }
  for (const t of document.querySelectorAll(".card-title")) {
    const lh = parseFloat(getComputedStyle(t).lineHeight);
    if (t.getBoundingClientRect().height > 2.5 * lh) out.push(`a listed title takes more than two lines: "${t.textContent.slice(0, 60)}"`);
    if (t.textContent.includes("```")) out.push(`a listed title shows a Markdown fence: "${t.textContent.slice(0, 60)}"`);
  }
  if (narrow) {
    // A message's header is one line; a session id shows its start.
    for (const head of document.querySelectorAll("main .msg-head")) {
      const kids = [...head.children].filter((k) => k.getClientRects().length);
      if (!kids.length) continue;
      const tops = kids.map((k) => k.getBoundingClientRect().top);
      if (Math.max(...tops) - Math.min(...tops) > 8) { out.push(`a message header takes more than one line: "${head.textContent.slice(0, 60)}"`); break; }
      seen.heads++;
    }
    for (const c of document.querySelectorAll("code.sid")) {
      if (!c.getClientRects().length) continue;
      const em = parseFloat(getComputedStyle(c).fontSize);
      if (c.getBoundingClientRect().width > 8 * em) out.push(`a session id is ${c.getBoundingClientRect().width.toFixed(0)} px wide`);
      seen.sids++;
    }
  }
  // Point 4: changed words marked inside changed lines; file reads numbered;
  // errors as red cards; the filters' counts.
  for (const w of document.querySelectorAll("pre.diff .dw")) {
    if (!w.closest(".d-add, .d-del")) out.push("a changed word marked outside a changed line");
    seen.words++;
  }
  for (const pre of document.querySelectorAll("pre.lines")) {
    const code = pre.querySelector("code");
    const lines = code.textContent.replace(/\n$/, "").split("\n").length;
    // The numbers: the pre's data-n, one a line, drawn by its ::before.
    const numbers = (pre.getAttribute("data-n") || "").split("\n");
    if (numbers.length !== lines || !numbers.every((n, i) => Number(n) === Number(numbers[0]) + i)) out.push(`a file read of ${lines} lines has ${numbers.length} numbers`);
    const drawn = getComputedStyle(pre, "::before").content;
    if (!/^\d+$/.test(numbers[0]) || !drawn || drawn === "none" || drawn === "normal") out.push(`a file read's lines show no number (${drawn})`);
    seen.numbered++;
  }
  const plain = document.querySelector("details.tool:not(.err)");
  for (const e of document.querySelectorAll("details.tool.err")) {
    const bg = getComputedStyle(e).backgroundColor, border = getComputedStyle(e).borderLeftColor;
    const [r, g, b] = (border.match(/\d+/g) || []).map(Number);
    if ((plain && bg === getComputedStyle(plain).backgroundColor) || !(r > g + 60 && r > b + 60)) out.push(`a tool error is not a red card (background ${bg}, border ${border})`);
    seen.errors++;
  }
  const kinds = { tools: "details.tool", thinking: "details.thinking", aux: ".msg.aux, details.reminder" };
  const main = document.querySelector("main");
  for (const c of document.querySelectorAll(".view-pop [data-count]")) {
    if (!main || !main.querySelector(".msg")) continue;
    const want = String(main.querySelectorAll(kinds[c.dataset.count]).length);
    if (c.textContent !== want) out.push(`the filter ${c.dataset.count} counts "${c.textContent}", the page holds ${want}`);
    seen.counts++;
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
    return { out, findbar: true, seen };
  }
  return { out, findbar: false, seen };
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
    report.runs.push({ page: p.name, width, scheme, rules: result.passes.length + result.violations.length + result.incomplete.length, passes: result.passes.length, findbar: own.findbar, seen: own.seen, legends: await page.$$eval("nav.outline .legend .key.fork", (k) => k.length), first_fork: await page.$eval(".tree .row.fork .lbl", (a) => a.textContent.trim()).catch(() => null) });
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

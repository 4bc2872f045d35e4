// Live reload and the "new" marks of a page served by `cctree serve`, in Debian's chromium.
//
//   node live.mjs --base http://127.0.0.1:PORT/ --page REL --index REL
//                 --session FILE --parent UUID --session-id ID [--shots DIR]
//
// REL is a conversation page whose session is FILE (its last message UUID,
// its session ID); INDEX its project index. The script appends prompts to
// FILE itself, each a child of the previous (timestamped now):
// 1. a reader in the middle of the page: after an append, the page reloads
//    by itself (no click), shows the new prompt, and the message that was at
//    the top of the window is there again (within a few pixels);
// 2. a reader at the end of the page: after an append, the end is shown,
//    with the new prompt in the window;
// 3. a reader who has selected text: after an append, the page does not
//    reload (its text and selection stay) and says "updated"; its button
//    reloads, and the new prompt is there;
// 4. the reader comes back (a new tab): the prompts written since their
//    last visit are marked "new", and so is the conversation in the project
//    index; those seen before are not.
// Screenshots (1280 and 390 px, light and dark) of the page saying
// "updated" and of the marks: live-{updated,new}-{1280,390}-{light,dark}.png.
// No console error or warning anywhere (a CSP violation is one).
//
// Prints a JSON report; exits 0 if all is well, 1 on a failure, 2 if the
// browser could not run, 3 on timeout (see common.mjs).

import { args, launch, reporter } from "./common.mjs";
import fs from "node:fs";
import path from "node:path";

const opt = args();
const report = { steps: [], screenshots: [] };
const { fail, run } = reporter(report);
const WAIT = 60000;

let parent = opt.parent;
let count = 0;
// Appends a prompt to the session; returns its words.
function append(words) {
  count++;
  const uuid = `dddddddd-0000-4000-8000-${String(count).padStart(12, "0")}`;
  const line = {
    parentUuid: parent, isSidechain: false, userType: "external", cwd: "/home/alice/notes", sessionId: opt["session-id"],
    version: "2.1.42", type: "user", message: { role: "user", content: words }, uuid, timestamp: new Date().toISOString(),
  };
  fs.appendFileSync(opt.session, JSON.stringify(line) + "\n");
  parent = uuid;
  return { words, uuid };
}

function watch(page, label) {
  page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") fail(`${label}: console ${m.type()}: ${m.text()}`); });
  page.on("pageerror", (e) => fail(`${label}: page error: ${e.message}`));
  page.on("response", (r) => { if (r.status() >= 400) fail(`${label}: HTTP ${r.status()} for ${r.url()}`); });
  return page;
}

// Where the first message below the header is, in the window.
function topMessage() {
  const head = document.querySelector("header.top").getBoundingClientRect().height;
  for (const el of document.querySelectorAll("main [id]")) {
    const r = el.getBoundingClientRect();
    if (r.bottom > head && r.height > 0) return { id: el.id, top: r.top };
  }
  return null;
}

async function shot(page, name) {
  if (!opt.shots) return;
  await page.screenshot({ path: path.join(opt.shots, name) });
  report.screenshots.push(name);
}

async function reloaded(page, words) {
  // live.js marks the page it restored; the new words are in it.
  await page.waitForFunction((w) => document.documentElement.hasAttribute("data-live-restored") && document.body.textContent.includes(w),
    words, { timeout: WAIT });
}

async function main() {
  const browser = await launch([]);
  const url = opt.base + opt.page;
  const context = await browser.newContext({ viewport: { width: 1280, height: 420 } });
  const page = watch(await context.newPage(), "reader");
  await page.goto(url, { waitUntil: "load" });

  // 1. In the middle: reloads by itself, the same message at the top.
  const max = await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);
  if (max < 200) fail(`the page is too short to scroll (${max} px): the test needs a longer page`);
  await page.evaluate((y) => window.scrollTo(0, y), Math.floor(max / 2));
  await page.waitForTimeout(50);
  const before = await page.evaluate(topMessage);
  const a = append("the first appended prompt, about kiwis");
  await reloaded(page, a.words);
  const after = await page.evaluate(topMessage);
  if (!before || !after || before.id !== after.id || Math.abs(before.top - after.top) > 3) {
    fail(`reload in the middle: the top message moved: ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
  }
  report.steps.push({ step: "middle", before, after });

  // 2. At the end: the end is shown, with the new prompt.
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await page.evaluate(() => document.documentElement.removeAttribute("data-live-restored"));
  const b = append("the second appended prompt, about emus");
  await reloaded(page, b.words);
  const atEnd = await page.evaluate(() => window.innerHeight + window.pageYOffset >= document.documentElement.scrollHeight - 4);
  const shown = await page.evaluate((id) => {
    const el = document.getElementById("m-" + id);
    if (!el) return false;
    const r = el.getBoundingClientRect();
    return r.top < window.innerHeight && r.bottom > 0;
  }, b.uuid);
  if (!atEnd || !shown) fail(`reload at the end: at the end ${atEnd}, the new prompt in the window ${shown}`);
  report.steps.push({ step: "end", atEnd, shown });

  // 3. Text selected: "updated", no reload until asked.
  await page.evaluate(() => {
    window.cctreeNotReloaded = true;
    const p = document.querySelector("main article.msg .msg-body");
    const r = document.createRange();
    r.selectNodeContents(p);
    getSelection().removeAllRanges();
    getSelection().addRange(r);
  });
  const c = append("the third appended prompt, about wombats");
  await page.waitForSelector(".cctree-live", { timeout: WAIT });
  const state = await page.evaluate((w) => ({
    kept: window.cctreeNotReloaded === true, selected: String(getSelection()).length > 0, has: document.body.textContent.includes(w),
    text: document.querySelector(".cctree-live").textContent,
  }), c.words);
  if (!state.kept || !state.selected || state.has || !/updated/.test(state.text)) fail(`updated: ${JSON.stringify(state)}`);
  report.steps.push({ step: "updated", state });
  // The notice hides nothing for good: at the end of the page, the page ends above it.
  for (const [w, h] of [[1280, 720], [390, 844]]) {
    for (const scheme of ["light", "dark"]) {
      await page.setViewportSize({ width: w, height: h });
      await page.emulateMedia({ colorScheme: scheme });
      const covered = await page.evaluate(() => {
        window.scrollTo(0, document.documentElement.scrollHeight);
        const notice = document.querySelector(".cctree-live").getBoundingClientRect();
        const end = Math.max(...Array.from(document.body.children)
          .filter((e) => !e.classList.contains("cctree-live"))
          .map((e) => e.getBoundingClientRect().bottom));
        return end > notice.top ? { end, notice: notice.top } : null;
      });
      if (covered) fail(`at ${w} px the end of the page is under the "updated" notice: ${JSON.stringify(covered)}`);
      await shot(page, `live-updated-${w}-${scheme}.png`);
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 420 });
  await page.click(".cctree-live button");
  await reloaded(page, c.words);
  report.steps.push({ step: "reload clicked" });
  await page.close();

  // 4. Back later (a new tab): what was written since is marked "new".
  const d = append("the fourth appended prompt, about quolls");
  const index = watch(await context.newPage(), "index");
  await index.goto(opt.base + opt.index, { waitUntil: "load" });
  // The index may still be the one before the append: it reloads after the render.
  await index.waitForSelector(".card.new", { timeout: WAIT }).catch(() => fail("the conversation is not marked new in the project index"));
  const back = watch(await context.newPage(), "back");
  await back.goto(url, { waitUntil: "load" });
  await back.waitForFunction((w) => document.body.textContent.includes(w), d.words, { timeout: WAIT });
  const marks = await back.evaluate(() => [...document.querySelectorAll("article.msg.new")].map((m) => m.id));
  if (!marks.includes("m-" + d.uuid)) fail(`the prompt written since the last visit is not marked new: ${marks}`);
  if (marks.includes("m-" + a.uuid)) fail(`a prompt seen before is marked new: ${marks}`);
  report.steps.push({ step: "new", marks });
  await back.evaluate((id) => document.getElementById(id).scrollIntoView({ block: "center" }), "m-" + d.uuid);
  for (const [w, h] of [[1280, 720], [390, 844]]) {
    for (const scheme of ["light", "dark"]) {
      await back.setViewportSize({ width: w, height: h });
      await back.emulateMedia({ colorScheme: scheme });
      await back.evaluate((id) => document.getElementById(id).scrollIntoView({ block: "center" }), "m-" + d.uuid);
      await shot(back, `live-new-${w}-${scheme}.png`);
    }
  }
  await browser.close();
}

run(main, { limited: true });

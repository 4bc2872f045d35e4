// What a reader sees of a message's content, in Debian's
// chromium (playwright-core):
//
//   node content.mjs --spec SPEC.json
//
// SPEC.json (written by tests/integration/content.rs):
//   { "checks": [ { "page": "/abs/site/proj/c/<root>/index.html",
//       "selector": "#m-<uuid> .ide-context", "text": ["opened", "a.rs"],
//       "not": ["<ide_opened_file>"] } ] }
//
// Each check opens its page over file:// with the reader's default settings
// (a fresh profile: nothing stored) and asserts that the first element
// matching `selector` is there and visible (it has a box, CSS does not hide
// it, nor does any closed <details> around it), that its rendered text
// (innerText) holds every string of `text` and none of `not`.
//
// Prints a JSON report on stdout; exits 0 if all is well, 1 on any failure,
// 2 if the browser could not run.

import { args, launch, reporter } from "./common.mjs";
import fs from "node:fs";
import { pathToFileURL } from "node:url";

const opt = args();
const spec = JSON.parse(fs.readFileSync(opt.spec, "utf8"));
const report = { checks: 0, pages: 0 };
const { fail, run } = reporter(report);

// Runs in the page: what the reader sees of the element `sel`.
function look(sel) {
  const el = document.querySelector(sel);
  if (!el) return { found: false };
  const r = el.getBoundingClientRect();
  const visible = el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }) && r.width > 0 && r.height > 0;
  return { found: true, visible, text: el.innerText };
}

async function main() {
  const browser = await launch(["--allow-file-access-from-files"]);
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on("pageerror", (e) => fail(`page error: ${e.message}`));
    let at = null;
    for (const c of spec.checks) {
      const url = pathToFileURL(c.page).href;
      if (url !== at) {
        await page.goto(url, { waitUntil: "load" });
        at = url;
        report.pages++;
      }
      report.checks++;
      const l = await page.evaluate(look, c.selector);
      const where = `${c.page} ${c.selector}`;
      if (!l.found) { fail(`${where}: not on the page`); continue; }
      if (!l.visible) fail(`${where}: not visible with the default settings`);
      for (const t of c.text || []) if (!l.text.includes(t)) fail(`${where}: does not show ${JSON.stringify(t)} (shows ${JSON.stringify(l.text.slice(0, 300))})`);
      for (const t of c.not || []) if (l.text.includes(t)) fail(`${where}: shows ${JSON.stringify(t)}`);
    }
    await context.close();
  } finally {
    await browser.close();
  }
}

run(main);

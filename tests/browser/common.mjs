// What the browser scripts (run.mjs, reader.mjs, export.mjs, content.mjs)
// share: their arguments, their report and how it ends, and the site's pages.
//
// Every script prints one JSON report on stdout and exits 0 if all is well,
// 1 on any failure, 2 if the browser could not run and, for a script run with
// a time limit, 3 when it is reached (CCTREE_BROWSER_TIMEOUT_MS, default 300 s
// or the script's own).

import { chromium } from "playwright-core";
import fs from "node:fs";
import path from "node:path";

// `--name value` pairs; anything else is an error.
export function args() {
  const out = {};
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i += 2) {
    if (!a[i].startsWith("--") || a[i + 1] === undefined) throw new Error(`bad arguments near ${a[i]}`);
    out[a[i].slice(2)] = a[i + 1];
  }
  return out;
}

// The script's report: `fail` records a failure (cut to 600 characters),
// `run(main, { limited })` runs the script and prints the report with its
// failures.
export function reporter(report) {
  const failures = [];
  let ended = false;
  const end = (list, code) => {
    if (ended) return;
    ended = true;
    report.failures = list;
    // Exit once the whole report is written: a pipe takes 64 KB at a time,
    // and process.exit() right after console.log() cut longer reports.
    process.stdout.write(JSON.stringify(report, null, 2) + "\n", () => process.exit(code));
  };
  const fail = (m) => failures.push(m.length > 600 ? m.slice(0, 600) + "…" : m);
  const run = (main, { limited = false, limitMs = 300000 } = {}) => {
    if (limited) {
      const limit = Number(process.env.CCTREE_BROWSER_TIMEOUT_MS || limitMs);
      setTimeout(() => end([...failures, `timed out after ${limit} ms`], 3), limit).unref();
    }
    main().then(
      () => end(failures, failures.length ? 1 : 0),
      (e) => end([...failures, `the browser run failed: ${e && e.stack ? e.stack : e}`], 2),
    );
  };
  return { failures, fail, run };
}

// Every page of a site, sorted.
export function htmlFiles(dir) {
  const files = [];
  const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).forEach((e) => {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p); else if (p.endsWith(".html")) files.push(p);
  });
  walk(dir);
  return files.sort();
}

// Debian's chromium (CCTREE_CHROMIUM), headless, with the flags every script
// uses and `extra` ones.
export function launch(extra) {
  const executablePath = process.env.CCTREE_CHROMIUM || "/usr/bin/chromium";
  if (!fs.existsSync(executablePath)) throw new Error(`no chromium at ${executablePath}: run scripts/test.sh (it installs chromium and the browser driver)`);
  return chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-dev-shm-usage",
      "--disable-component-update", "--disable-sync", ...extra],
  });
}

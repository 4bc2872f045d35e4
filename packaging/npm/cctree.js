#!/usr/bin/env node
// The `cctree` command of the npm package: runs the native binary that the
// platform's optional dependency (@cctree/<os>-<arch>, installed by npm only
// where its "os" and "cpu" match) carries in its bin/. Written by
// scripts/package.sh into the package as bin/cctree.js; no install script,
// no download.
"use strict";

const { spawn } = require("node:child_process");
const { existsSync } = require("node:fs");
const { constants } = require("node:os");
const path = require("node:path");

const platforms = require("./platforms.json");
const key = `${process.platform}-${process.arch}`;
const pkg = platforms[key];
if (!pkg) {
  console.error(
    `cctree: no prebuilt binary for ${key} (there are: ${Object.keys(platforms).join(", ")}); ` +
      "build it from source: cargo install --locked cctree",
  );
  process.exit(2);
}

let binary;
try {
  binary = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", "cctree");
} catch {
  binary = null;
}
if (!binary || !existsSync(binary)) {
  console.error(
    `cctree: the package ${pkg}, which holds the binary for ${key}, is not installed. ` +
      "npm leaves it out when optional dependencies are omitted (--omit=optional, --no-optional) " +
      "or when the lock file was written on another platform: reinstall cctree without them omitted.",
  );
  process.exit(2);
}

const args = process.argv.slice(2);
// Become the binary (Node >= 22.15 / 23.11): its signals, exit status and
// terminal are its own.
if (typeof process.execve === "function") {
  process.on("SIGXFSZ", () => {}); // an ignored signal would stay ignored across execve
  process.execve(binary, [binary, ...args], process.env);
}

// Older Node: run it as a child and end as it ended. Ctrl-C reaches the
// child from the terminal itself (it is in the terminal's process group), so
// the wrapper only stays alive on SIGINT: passing it on too would be a second
// Ctrl-C (`cctree serve` stops at once on the second). SIGTERM and SIGHUP,
// which a supervisor sends to this process alone, are passed on.
const child = spawn(binary, args, { stdio: "inherit" });
process.on("SIGINT", () => {});
for (const signal of ["SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    try {
      child.kill(signal);
    } catch {
      // the child is already gone
    }
  });
}
child.on("error", (err) => {
  console.error(`cctree: could not run ${binary}: ${err.message}`);
  process.exit(2);
});
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.exitCode = 128 + (constants.signals[signal] || 0);
    process.kill(process.pid, signal);
  } else {
    process.exit(code ?? 1);
  }
});

//! Synthetic Claude Code archive generator for benchmarks (issue 5).
//!
//! ```text
//! cargo run --release --example gen_archive -- --size-mb 100 --seed 1 --out DIR [--projects N] [--distinct-output]
//! cargo run --release --example gen_archive -- --append-turn DIR/<project>/<session>.jsonl --seed 7
//! ```
//!
//! `--out DIR` becomes a projects directory (`~/.claude/projects` layout) of about
//! `--size-mb` MB (1 MB = 10^6 bytes), the same bytes for the same seed and size.
//! `--append-turn FILE` appends one realistic turn (prompt, tool round, answer,
//! turn end) to the main chain of an existing session file.
//!
//! The mix follows real 2.1.x archives (docs/transcript-format.md §1–§5):
//!
//! * Projects: one holds ~40% of the bytes, the rest get geometrically smaller
//!   shares. Sessions are log-uniform in size (64 KB up to a third of the
//!   project), so big projects hold sessions of tens of MB.
//! * Tool results dominate the bytes (~70%): `Read` (numbered content plus the
//!   raw file again in `toolUseResult.file`), `Bash` (build/test logs with ANSI
//!   escapes, stdout repeated in `toolUseResult`), `Grep`, `Glob`, `Edit` (with
//!   the whole `originalFile`), `Write`, `TodoWrite`, `WebFetch`, and `Task`
//!   results that carry `toolUseResult.agentId`. About 1 result in 200 is a large
//!   output of 100 KB–2 MB.
//! * Assistant responses are streaming-split: one entry per block (thinking,
//!   text, tool_use…) sharing `message.id` and `requestId`, chained by
//!   `parentUuid`. 30% of tool rounds are parallel calls (2–4 `tool_use`
//!   entries); each result's `parentUuid` is the entry holding its own
//!   `tool_use` (2.1.1+). Final answers are markdown with code blocks in rust,
//!   python, js, ts, go, bash, json, yaml, toml, sql, html and css.
//! * Side entries: `file-history-snapshot` per prompt, `hook_success`
//!   attachments after edits, `stop_hook_summary` and `turn_duration` at turn
//!   ends, `queue-operation`, `ai-title`, `last-prompt`, `custom-title`.
//! * Rewinds: 5% of prompts are re-parented to an earlier turn end, minutes later.
//! * Compactions every 1.5–5 MB of a session: `compact_boundary` (parentUuid null,
//!   `logicalParentUuid`) then an `isCompactSummary` user entry.
//! * Resume copies (2.0.x–2.1.19 style): 20% of new sessions start with a copy of
//!   a prior session's chain (same uuids, parents, timestamps; `sessionId`
//!   rewritten) and continue from its leaf.
//! * `summary` entries for other sessions' leaves at the top of new sessions.
//! * Sub-agents: `Task` calls write `<session>/subagents/agent-a<16 hex>.jsonl`
//!   (+ `.meta.json`) with their own tool rounds.
//! * Images: small valid PNGs (base64) in 4% of prompts and some `Read`
//!   results; about one image in seven is a ~200 KB PNG (256×256, stored).
//! * Most lines are 1–20 KB; some are several MB.

#![allow(
    unreachable_pub,
    clippy::too_many_lines,
    clippy::cast_possible_truncation,
    clippy::format_push_string,
    reason = "the crate's curated lints (Cargo.toml) hold src/; a generator of benchmark archives, not cctree's code"
)]

use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use clap::Parser;

/// Generate a synthetic Claude Code projects directory.
#[derive(Parser, Debug)]
struct Args {
    /// Approximate total size in MB (10^6 bytes).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=2000))]
    size_mb: u64,
    /// PRNG seed: the same seed and size give the same bytes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Projects directory to create (must not exist or be empty).
    #[arg(long, required_unless_present = "append_turn")]
    out: Option<PathBuf>,
    /// Number of projects (default: grows with the size, 3–14).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=200))]
    projects: Option<u64>,
    /// Instead of generating, append one turn to this session file.
    #[arg(long, value_name = "SESSION_JSONL")]
    append_turn: Option<PathBuf>,
    /// Print the byte mix to stderr.
    #[arg(long)]
    verbose: bool,
    /// Nearly every tool output distinct (issue 28): each `Read` shows a file
    /// and each `Bash` run prints a log generated for that call, instead of
    /// slices of a pool of 180 files and 120 logs shared by the archive.
    #[arg(long)]
    distinct_output: bool,
}

// ---------------------------------------------------------------------------
// PRNG (splitmix64)

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }
    fn below_usize(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    /// Log-uniform in `lo..=hi` (lo ≥ 1).
    fn log_range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        let (a, b) = ((lo as f64).ln(), (hi as f64).ln());
        ((a + (b - a) * self.unit()).exp() as u64).clamp(lo, hi)
    }
    fn pick<'a, T>(&mut self, s: &'a [T]) -> &'a T {
        &s[self.below_usize(s.len())]
    }
}

// ---------------------------------------------------------------------------
// JSON helpers

/// Appends `s` as a JSON string literal. Non-ASCII stays raw, as Claude Code writes it.
fn esc(buf: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    buf.push(b'"');
    let b = s.as_bytes();
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        if c >= 0x20 && c != b'"' && c != b'\\' {
            continue;
        }
        buf.extend_from_slice(&b[start..i]);
        match c {
            b'"' => buf.extend_from_slice(b"\\\""),
            b'\\' => buf.extend_from_slice(b"\\\\"),
            b'\n' => buf.extend_from_slice(b"\\n"),
            b'\t' => buf.extend_from_slice(b"\\t"),
            b'\r' => buf.extend_from_slice(b"\\r"),
            _ => buf.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[(c >> 4) as usize], HEX[(c & 15) as usize]]),
        }
        start = i + 1;
    }
    buf.extend_from_slice(&b[start..]);
    buf.push(b'"');
}

fn raw(buf: &mut Vec<u8>, s: &str) {
    buf.extend_from_slice(s.as_bytes());
}

fn num(buf: &mut Vec<u8>, n: u64) {
    let _ = write!(buf, "{n}");
}

/// `"key":"value"` plus a trailing comma.
fn kv(buf: &mut Vec<u8>, k: &str, v: &str) {
    buf.push(b'"');
    raw(buf, k);
    raw(buf, "\":");
    esc(buf, v);
    buf.push(b',');
}

fn kn(buf: &mut Vec<u8>, k: &str, v: u64) {
    buf.push(b'"');
    raw(buf, k);
    raw(buf, "\":");
    num(buf, v);
    buf.push(b',');
}

fn ts_string(ms: i64) -> String {
    // Civil-from-days (H. Hinnant).
    let secs = ms.div_euclid(1000);
    let milli = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{milli:03}Z", sod / 3600, sod / 60 % 60, sod % 60)
}

fn parse_ts(s: &str) -> Option<i64> {
    let n = |a: usize, b: usize| s.get(a..b)?.parse::<i64>().ok();
    let (y, m, d) = (n(0, 4)?, n(5, 7)?, n(8, 10)?);
    let (hh, mm, ss) = (n(11, 13)?, n(14, 16)?, n(17, 19)?);
    let ms = n(20, 23).unwrap_or(0);
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 86_400 + hh * 3600 + mm * 60 + ss) * 1000) + ms)
}

// ---------------------------------------------------------------------------
// PNG (stored deflate blocks: valid, uncompressed)

fn crc32(data: &[u8]) -> u32 {
    let mut c = 0xFFFF_FFFFu32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
        }
    }
    !c
}

fn png(w: u32, h: u32, rng: &mut Rng) -> Vec<u8> {
    let mut rawpix = Vec::with_capacity(((w * 3 + 1) * h) as usize);
    let (r0, g0, b0) = (rng.below(256) as u32, rng.below(256) as u32, rng.below(256) as u32);
    for y in 0..h {
        rawpix.push(0);
        for x in 0..w {
            let noise = (rng.next() & 15) as u32;
            rawpix.push(((r0 + x * 255 / w + noise) & 255) as u8);
            rawpix.push(((g0 + y * 255 / h + noise) & 255) as u8);
            rawpix.push(((b0 + (x ^ y)) & 255) as u8);
        }
    }
    let mut z = vec![0x78, 0x01];
    let chunks: Vec<&[u8]> = rawpix.chunks(65_535).collect();
    for (i, c) in chunks.iter().enumerate() {
        z.push(u8::from(i + 1 == chunks.len()));
        let len = c.len() as u16;
        z.extend_from_slice(&len.to_le_bytes());
        z.extend_from_slice(&(!len).to_le_bytes());
        z.extend_from_slice(c);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for &x in &rawpix {
        a = (a + u32::from(x)) % 65_521;
        b = (b + a) % 65_521;
    }
    z.extend_from_slice(&((b << 16) | a).to_be_bytes());
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = |ty: &[u8], data: &[u8]| {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut body = ty.to_vec();
        body.extend_from_slice(data);
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32(&body).to_be_bytes());
    };
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    chunk(b"IHDR", &ihdr);
    chunk(b"IDAT", &z);
    chunk(b"IEND", &[]);
    out
}

fn base64(data: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(data.len().div_ceil(3) * 4);
    for c in data.chunks(3) {
        let n =
            (u32::from(c[0]) << 16) | (u32::from(*c.get(1).unwrap_or(&0)) << 8) | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                s.push(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

// ---------------------------------------------------------------------------
// Text pools

const WORDS: &[&str] = &[
    "config",
    "parser",
    "token",
    "buffer",
    "index",
    "cache",
    "request",
    "response",
    "session",
    "client",
    "server",
    "handler",
    "render",
    "node",
    "graph",
    "entry",
    "value",
    "result",
    "error",
    "state",
    "event",
    "queue",
    "worker",
    "thread",
    "stream",
    "reader",
    "writer",
    "path",
    "file",
    "line",
    "offset",
    "length",
    "count",
    "total",
    "width",
    "height",
    "user",
    "project",
    "branch",
    "commit",
    "message",
    "payload",
    "header",
    "body",
    "schema",
    "field",
    "record",
    "table",
    "column",
    "row",
    "query",
    "filter",
    "merge",
    "split",
    "chunk",
    "block",
    "page",
    "layout",
    "theme",
    "style",
    "color",
    "image",
    "button",
    "input",
    "output",
    "format",
    "encode",
    "decode",
    "digest",
    "key",
    "timeout",
    "retry",
    "backoff",
    "limit",
    "window",
    "frame",
    "tick",
    "clock",
    "timer",
    "date",
    "zone",
    "locale",
    "text",
    "title",
    "label",
    "summary",
    "detail",
    "report",
    "metric",
    "sample",
    "batch",
    "job",
    "task",
    "step",
    "stage",
    "pipeline",
    "build",
    "deploy",
    "release",
    "version",
    "feature",
    "flag",
    "option",
    "param",
    "env",
    "scope",
    "module",
    "package",
    "weather",
    "forecast",
    "station",
    "hourly",
    "daily",
    "unit",
    "alert",
    "invoice",
    "order",
    "cart",
    "price",
    "account",
    "tenant",
    "policy",
    "role",
    "grant",
    "audit",
    "socket",
    "packet",
    "route",
    "proxy",
    "upstream",
    "shard",
    "replica",
    "snapshot",
    "checkpoint",
    "ledger",
];

const PROSE: &[&str] = &[
    "the",
    "a",
    "this",
    "that",
    "function",
    "test",
    "file",
    "change",
    "call",
    "error",
    "value",
    "because",
    "when",
    "then",
    "so",
    "we",
    "it",
    "returns",
    "fails",
    "passes",
    "handles",
    "is",
    "should",
    "now",
    "also",
    "only",
    "still",
    "after",
    "before",
    "the fix",
    "every",
    "empty",
    "input",
    "output",
    "module",
    "path",
    "check",
    "edge case",
    "regression",
    "branch",
    "loop",
    "config",
    "cache",
    "request",
    "timeout",
    "retry",
    "parser",
    "buffer",
    "field",
    "struct",
    "looks",
    "correct",
    "wrong",
    "missing",
    "extra",
    "unused",
    "slow",
    "fast",
    "safe",
    "unsafe",
    "I",
    "you",
    "will",
    "can",
    "need",
    "to",
    "update",
    "read",
    "write",
    "run",
    "compare",
    "keep",
    "remove",
    "add",
    "rename",
    "move",
    "split",
    "merge",
    "in",
    "on",
    "for",
    "with",
    "from",
    "of",
];

struct Lang {
    fence: &'static str,
    ext: &'static str,
    dir: &'static str,
    head: &'static [&'static str],
    open: &'static [&'static str],
    body: &'static [&'static str],
    close: &'static str,
}

const LANGS: &[Lang] = &[
    Lang {
        fence: "rust",
        ext: "rs",
        dir: "src",
        head: &[
            "use std::collections::HashMap;",
            "use std::path::{Path, PathBuf};",
            "use crate::{a}::{B};",
            "use anyhow::{Context, Result};",
            "//! {s}",
            "#[derive(Debug, Clone, Default)]\npub struct {B} {\n    {a}: Vec<String>,\n    {b}: usize,\n}",
        ],
        open: &[
            "pub fn {a}_{b}({c}: &{B}, {d}: usize) -> Result<{B}> {",
            "impl {B} {\n    pub fn {a}(&mut self) -> Option<&str> {",
            "fn {a}<'a>({b}: &'a [u8]) -> &'a str {",
        ],
        body: &[
            "    let {a} = {b}.{c}()?;",
            "    let mut {a}: HashMap<String, {B}> = HashMap::new();",
            "    if {a}.len() > {n} {\n        return Err(anyhow::anyhow!(\"{s}\"));\n    }",
            "    for {a} in {b}.iter().filter(|x| x.{c} > {n}) {\n        {d}.push({a}.clone());\n    }",
            "    // {s}",
            "    let {a} = match {b} {\n        Some(v) => v,\n        None => return Ok({B}::default()),\n    };",
            "    println!(\"{a}: {}\", {b});",
            "    {a}.{b}({c}).with_context(|| format!(\"{s} {}\", {d}))?;",
        ],
        close: "}\n",
    },
    Lang {
        fence: "python",
        ext: "py",
        dir: "app",
        head: &[
            "import os",
            "import json",
            "from pathlib import Path",
            "from {a}.{b} import {B}",
            "from typing import Optional, Iterator",
            "\"\"\"{s}\"\"\"",
        ],
        open: &[
            "def {a}_{b}({c}, {d}=None):",
            "class {B}:\n    def __init__(self, {a}):",
            "async def {a}({b}: str) -> dict:",
        ],
        body: &[
            "    {a} = {b}.get(\"{c}\", {n})",
            "    if not {a}:\n        return None",
            "    for {a} in {b}:\n        {c}.append({a}.{d})",
            "    # {s}",
            "    with open({a}, \"r\") as f:\n        {b} = json.load(f)",
            "    raise ValueError(f\"{s}: {a}\")",
            "    return [{a} for {a} in {b} if {a}.{c} > {n}]",
        ],
        close: "",
    },
    Lang {
        fence: "js",
        ext: "js",
        dir: "web",
        head: &["import { {B} } from './{a}.js';", "const {a} = require('{b}');", "'use strict';"],
        open: &["export function {a}{B}({b}, {c} = {}) {", "async function {a}({b}) {", "const {a} = ({b}) => {"],
        body: &[
            "  const {a} = {b}.{c}.map((x) => x.{d});",
            "  if (!{a}) {\n    throw new Error('{s}');\n  }",
            "  // {s}",
            "  for (const {a} of {b}) {\n    {c}.push({a});\n  }",
            "  const res = await fetch(`/api/{a}/${{b}}`);",
            "  return { {a}, {b}: {n} };",
        ],
        close: "}\n",
    },
    Lang {
        fence: "ts",
        ext: "ts",
        dir: "web/src",
        head: &[
            "import type { {B} } from './{a}';",
            "export interface {B} {\n  {a}: string;\n  {b}: number;\n  {c}?: {B}[];\n}",
            "// {s}",
        ],
        open: &[
            "export async function {a}({b}: {B}): Promise<{B}[]> {",
            "export class {B} implements {B} {\n  constructor(private readonly {a}: string) {}",
            "function {a}<T extends {B}>({b}: T[]): Map<string, T> {",
        ],
        body: &[
            "  const {a}: {B}[] = [];",
            "  if ({a}.{b} === undefined) {\n    return [];\n  }",
            "  // {s}",
            "  for (const [{a}, {b}] of Object.entries({c})) {\n    {d}.set({a}, {b});\n  }",
            "  const {a} = await this.{b}.{c}({ limit: {n} });",
        ],
        close: "}\n",
    },
    Lang {
        fence: "go",
        ext: "go",
        dir: "internal",
        head: &["package {a}", "import (\n\t\"fmt\"\n\t\"os\"\n\t\"strings\"\n)", "// {s}"],
        open: &["func {B}({a} string, {b} int) (*{B}, error) {", "func (s *{B}) {B}() error {"],
        body: &[
            "\t{a}, err := {b}.{B}({c})\n\tif err != nil {\n\t\treturn nil, fmt.Errorf(\"{s}: %w\", err)\n\t}",
            "\tfor _, {a} := range {b} {\n\t\t{c} = append({c}, {a})\n\t}",
            "\t// {s}",
            "\tfmt.Println(\"{a}\", {b})",
            "\tif strings.HasPrefix({a}, \"{b}\") {\n\t\treturn nil, os.ErrNotExist\n\t}",
        ],
        close: "}\n",
    },
    Lang {
        fence: "bash",
        ext: "sh",
        dir: "scripts",
        head: &["#!/usr/bin/env bash", "set -euo pipefail", "# {s}"],
        open: &["{a}_{b}() {"],
        body: &[
            "  local {a}=\"$1\"",
            "  if [[ -z \"${a}\" ]]; then\n    echo \"{s}\" >&2\n    return 1\n  fi",
            "  for f in {a}/*.{b}; do\n    cp \"$f\" \"${c}/\"\n  done",
            "  {a} --{b} \"{c}\" | grep -v {d}",
        ],
        close: "}\n",
    },
    Lang {
        fence: "json",
        ext: "json",
        dir: "config",
        head: &["{"],
        open: &["  \"{a}\": {"],
        body: &[
            "    \"{b}\": \"{c}\",",
            "    \"{b}\": {n},",
            "    \"{b}\": [\"{c}\", \"{d}\"],",
            "    \"{b}\": false,",
        ],
        close: "    \"{d}\": null\n  },",
    },
    Lang {
        fence: "yaml",
        ext: "yaml",
        dir: ".github/workflows",
        head: &["# {s}", "version: {n}"],
        open: &["{a}:"],
        body: &["  {b}: {c}", "  {b}: {n}", "  {b}:\n    - {c}\n    - {d}", "  # {s}"],
        close: "",
    },
    Lang {
        fence: "toml",
        ext: "toml",
        dir: "config",
        head: &["[package]\nname = \"{a}\"\nversion = \"0.{n}.0\""],
        open: &["\n[{a}]", "\n[[{a}.{b}]]"],
        body: &["{b} = \"{c}\"", "{b} = {n}", "{b} = [\"{c}\", \"{d}\"]", "{b} = true"],
        close: "",
    },
    Lang {
        fence: "sql",
        ext: "sql",
        dir: "migrations",
        head: &["-- {s}"],
        open: &["CREATE TABLE {a} (", "SELECT {a}.{b}, count(*) AS {c}"],
        body: &[
            "  {b} TEXT NOT NULL,",
            "  {b} INTEGER DEFAULT {n},",
            "FROM {a} JOIN {b} ON {a}.id = {b}.{c}_id",
            "WHERE {b} > {n} AND {c} IS NOT NULL",
        ],
        close: ");\n",
    },
    Lang {
        fence: "html",
        ext: "html",
        dir: "templates",
        head: &["<!DOCTYPE html>", "<html lang=\"en\">", "<head><meta charset=\"utf-8\"><title>{B}</title></head>"],
        open: &["<section class=\"{a}\">"],
        body: &[
            "  <h2>{B} {B}</h2>",
            "  <p>{s}</p>",
            "  <a href=\"/{a}/{b}.html\">{B} &amp; {B}</a>",
            "  <div class=\"{a}-{b}\" data-{c}=\"{n}\"></div>",
        ],
        close: "</section>",
    },
    Lang {
        fence: "css",
        ext: "css",
        dir: "static",
        head: &["/* {s} */", ":root {\n  --{a}: #{n};\n}"],
        open: &[".{a}-{b} {", ".{a} > .{b}:hover {"],
        body: &[
            "  color: var(--{a});",
            "  margin: {n}px 0;",
            "  display: flex;",
            "  font-family: system-ui, sans-serif;",
            "  border: 1px solid #ddd;",
        ],
        close: "}\n",
    },
];

/// Expands `{a}`–`{d}` (word), `{B}` (Word), `{n}` (number), `{s}` (short sentence).
fn expand(tpl: &str, rng: &mut Rng, out: &mut String) {
    let b = tpl.as_bytes();
    let mut i = 0;
    let mut start = 0;
    while i < b.len() {
        if b[i] == b'{' && i + 2 < b.len() && b[i + 2] == b'}' {
            let ph = b[i + 1];
            if matches!(ph, b'a' | b'b' | b'c' | b'd' | b'B' | b'n' | b's') {
                out.push_str(&tpl[start..i]);
                match ph {
                    b'B' => {
                        let w = rng.pick(WORDS);
                        out.push_str(&w[..1].to_ascii_uppercase());
                        out.push_str(&w[1..]);
                    }
                    b'n' => {
                        let _ = write!(out, "{}", rng.log_range(1, 5000));
                    }
                    b's' => {
                        let k = rng.range(4, 9);
                        for j in 0..k {
                            if j > 0 {
                                out.push(' ');
                            }
                            let w: &str = PROSE[rng.below_usize(PROSE.len())];
                            out.push_str(w);
                        }
                    }
                    _ => {
                        let w: &str = WORDS[rng.below_usize(WORDS.len())];
                        out.push_str(w)
                    }
                }
                i += 3;
                start = i;
                continue;
            }
        }
        i += 1;
    }
    out.push_str(&tpl[start..]);
}

struct SrcFile {
    /// Path relative to the project's cwd.
    rel: String,
    lang: usize,
    text: String,
    /// Byte offset of each line start.
    lines: Vec<usize>,
}

impl SrcFile {
    fn line(&self, i: usize) -> &str {
        let s = self.lines[i];
        let e = self.lines.get(i + 1).map_or(self.text.len(), |e| e - 1);
        &self.text[s..e.max(s)]
    }
    fn slice(&self, from: usize, n: usize) -> &str {
        let s = self.lines[from.min(self.lines.len() - 1)];
        let e = self.lines.get(from + n).map_or(self.text.len(), |e| e.saturating_sub(1));
        &self.text[s..e.max(s)]
    }
}

struct Pool {
    files: Vec<SrcFile>,
    by_lang: Vec<Vec<usize>>,
    sentences: Vec<String>,
    bash: Vec<(String, String)>,
    sig: String,
    small_png: Vec<String>,
    large_png: Vec<String>,
}

fn gen_source(rng: &mut Rng, lang: &Lang, lines: usize, out: &mut String) {
    for _ in 0..rng.range(1, lang.head.len() as u64) {
        let t = *rng.pick(lang.head);
        expand(t, rng, out);
        out.push('\n');
    }
    out.push('\n');
    while out.bytes().filter(|&c| c == b'\n').count() < lines {
        let t = *rng.pick(lang.open);
        expand(t, rng, out);
        out.push('\n');
        for _ in 0..rng.range(2, 14) {
            let t = *rng.pick(lang.body);
            expand(t, rng, out);
            out.push('\n');
        }
        if !lang.close.is_empty() {
            expand(lang.close, rng, out);
            out.push('\n');
        }
    }
}

fn sentence(rng: &mut Rng, out: &mut String) {
    let k = rng.range(6, 22);
    for j in 0..k {
        let w = if rng.chance(0.08) {
            format!("`{}_{}`", rng.pick(WORDS), rng.pick(WORDS))
        } else {
            rng.pick(PROSE).to_string()
        };
        if j == 0 {
            let mut c = w.chars();
            if let Some(f) = c.next() {
                out.extend(f.to_uppercase());
                out.push_str(c.as_str());
            }
        } else {
            out.push(' ');
            out.push_str(&w);
        }
    }
    out.push_str(if rng.chance(0.1) { ":" } else { "." });
}

const G: &str = "\u{1b}[1m\u{1b}[32m";
const R: &str = "\u{1b}[0m";

fn gen_bash(rng: &mut Rng, files: &[SrcFile], out: &mut String) -> String {
    let n = rng.log_range(3, 400) as usize;
    let w = |rng: &mut Rng| *rng.pick(WORDS);
    match rng.below(6) {
        0 => {
            for _ in 0..n.min(80) {
                let _ = writeln!(out, "{G}   Compiling{R} {} v0.{}.{}", w(rng), rng.below(30), rng.below(10));
            }
            let _ = writeln!(
                out,
                "{G}    Finished{R} `test` profile [unoptimized + debuginfo] target(s) in {}.{:02}s",
                rng.below(90),
                rng.below(100)
            );
            let _ = writeln!(
                out,
                "{G}     Running{R} unittests src/lib.rs (target/debug/deps/app-{:016x})\n\nrunning {n} tests",
                rng.next()
            );
            let mut failed = 0;
            for _ in 0..n {
                let ok = rng.chance(0.97);
                failed += usize::from(!ok);
                let _ = writeln!(
                    out,
                    "test {}::{}::{} ... {}",
                    w(rng),
                    w(rng),
                    w(rng),
                    if ok { "\u{1b}[32mok\u{1b}[0m" } else { "\u{1b}[31mFAILED\u{1b}[0m" }
                );
            }
            let _ = writeln!(
                out,
                "\ntest result: {}. {} passed; {failed} failed; 0 ignored; finished in {}.{:02}s",
                if failed == 0 { "\u{1b}[32mok\u{1b}[0m" } else { "\u{1b}[31mFAILED\u{1b}[0m" },
                n - failed,
                rng.below(20),
                rng.below(100)
            );
            "cargo test --all".into()
        }
        1 => {
            let _ = writeln!(
                out,
                "\u{1b}[1m============================= test session starts ==============================\u{1b}[0m\nplatform linux -- Python 3.12.3, pytest-8.2.0, pluggy-1.5.0\ncollected {n} items\n"
            );
            for i in 0..n {
                let _ = writeln!(
                    out,
                    "tests/test_{}.py::test_{}_{} \u{1b}[32mPASSED\u{1b}[0m{:>20}",
                    w(rng),
                    w(rng),
                    w(rng),
                    format!("[{:3}%]", (i + 1) * 100 / n)
                );
            }
            let _ = writeln!(
                out,
                "\u{1b}[32m============================== {n} passed in {}.{:02}s ==============================\u{1b}[0m",
                rng.below(60),
                rng.below(100)
            );
            "python -m pytest -q tests/".into()
        }
        2 => {
            for _ in 0..n {
                let _ = writeln!(
                    out,
                    "{:07x} {} {} {} in {}",
                    rng.next() & 0xFFF_FFFF,
                    ["fix", "feat", "refactor", "test", "docs"][rng.below_usize(5)],
                    w(rng),
                    w(rng),
                    w(rng)
                );
            }
            "git log --oneline -n 200".into()
        }
        3 => {
            let f = rng.pick(files);
            let from = rng.below_usize(f.lines.len());
            let _ = writeln!(
                out,
                "diff --git a/{0} b/{0}\nindex {1:07x}..{2:07x} 100644\n--- a/{0}\n+++ b/{0}\n@@ -{3},{4} +{3},{4} @@",
                f.rel,
                rng.next() & 0xFFF_FFFF,
                rng.next() & 0xFFF_FFFF,
                from + 1,
                n.min(60)
            );
            for i in from..(from + n.min(60)).min(f.lines.len()) {
                let c = ["\u{1b}[31m-", "\u{1b}[32m+", " "][rng.below_usize(3)];
                let _ = writeln!(out, "{c}{}{R}", f.line(i));
            }
            "git diff".into()
        }
        4 => {
            out.push_str("total 128\n");
            for _ in 0..n.min(120) {
                let _ = writeln!(
                    out,
                    "-rw-r--r--  1 user user {:>8} Mar {:>2} {:02}:{:02} {}_{}.{}",
                    rng.log_range(10, 500_000),
                    rng.range(1, 28),
                    rng.below(24),
                    rng.below(60),
                    w(rng),
                    w(rng),
                    rng.pick(LANGS).ext
                );
            }
            "ls -la".into()
        }
        _ => {
            let _ = writeln!(out, "\n> app@1.0.0 build\n> vite build\n");
            for _ in 0..n {
                let _ = writeln!(
                    out,
                    "\u{1b}[2mdist/\u{1b}[22m\u{1b}[36massets/{}-{:08x}.js\u{1b}[39m  \u{1b}[1m\u{1b}[2m{:>8.2} kB\u{1b}[22m\u{1b}[1m\u{1b}[22m\u{1b}[2m │ gzip: {:>7.2} kB\u{1b}[22m",
                    w(rng),
                    rng.next() as u32,
                    rng.unit() * 300.0,
                    rng.unit() * 90.0
                );
            }
            let _ = writeln!(out, "\u{1b}[32m✓ built in {}ms\u{1b}[39m", rng.range(300, 9000));
            "npm run build".into()
        }
    }
}

impl Pool {
    fn new(rng: &mut Rng) -> Pool {
        let mut files = Vec::new();
        let mut by_lang = vec![Vec::new(); LANGS.len()];
        for i in 0..180 {
            let lang = i % LANGS.len();
            let l = &LANGS[lang];
            let mut text = String::new();
            let n = rng.log_range(15, 1400) as usize;
            gen_source(rng, l, n, &mut text);
            let rel = format!("{}/{}_{}.{}", l.dir, rng.pick(WORDS), rng.pick(WORDS), l.ext);
            let mut lines = vec![0];
            lines.extend(
                text.bytes().enumerate().filter(|&(j, c)| c == b'\n' && j + 1 < text.len()).map(|(j, _)| j + 1),
            );
            by_lang[lang].push(files.len());
            files.push(SrcFile { rel, lang, text, lines });
        }
        let sentences = (0..4000)
            .map(|_| {
                let mut s = String::new();
                sentence(rng, &mut s);
                s
            })
            .collect();
        let bash = (0..120)
            .map(|_| {
                let mut s = String::new();
                let cmd = gen_bash(rng, &files, &mut s);
                (cmd, s)
            })
            .collect();
        const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let sig = (0..8192).map(|_| B64[rng.below_usize(64)] as char).collect();
        let small_png = (0..6)
            .map(|_| {
                let (w, h) = (rng.range(16, 64) as u32, rng.range(16, 48) as u32);
                base64(&png(w, h, rng))
            })
            .collect();
        let large_png = (0..2).map(|_| base64(&png(256, 256, rng))).collect();
        Pool { files, by_lang, sentences, bash, sig, small_png, large_png }
    }
}

// ---------------------------------------------------------------------------
// Output

/// Byte tallies by kind of line (for `--verbose`).
#[derive(Default)]
struct Mix {
    tool_result: u64,
    assistant: u64,
    prompt: u64,
    image: u64,
    side: u64,
    meta: u64,
    copy: u64,
    lines: u64,
    large_lines: u64,
}

#[derive(Clone, Copy)]
enum Cat {
    ToolResult,
    Assistant,
    Prompt,
    Image,
    Side,
    Meta,
    Copy,
}

struct Out {
    w: BufWriter<File>,
    bytes: u64,
}

impl Out {
    fn create(path: &Path) -> io::Result<Out> {
        if let Some(d) = path.parent() {
            fs::create_dir_all(d)?;
        }
        Ok(Out { w: BufWriter::with_capacity(1 << 20, File::create(path)?), bytes: 0 })
    }
    fn append(path: &Path) -> io::Result<Out> {
        let f = fs::OpenOptions::new().append(true).open(path)?;
        Ok(Out { w: BufWriter::new(f), bytes: 0 })
    }
}

struct Ctx {
    sid: String,
    cwd: String,
    version: String,
    branch: String,
    agent: Option<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum ToolKind {
    Read,
    ReadImage,
    Bash,
    Grep,
    Glob,
    Edit,
    Write,
    Todo,
    Task,
    WebFetch,
}

struct Call {
    uuid: String,
    id: String,
    kind: ToolKind,
    file: usize,
    from: usize,
    n: usize,
    large: u64,
    aux: usize,
    prompt: String,
}

struct Gen {
    rng: Rng,
    pool: Rc<Pool>,
    buf: Vec<u8>,
    t1: String,
    t2: String,
    clock: i64,
    /// Largest "large output" allowed (keeps tiny archives near their size).
    large_cap: u64,
    /// Bytes written to sub-agent files since last asked.
    sub_bytes: u64,
    mix: Mix,
    /// `--distinct-output`.
    distinct: bool,
}

const MODELS: &[&str] = &["claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805", "claude-sonnet-4-20250514"];

impl Gen {
    fn new(seed: u64, large_cap: u64) -> Gen {
        let mut pool_rng = Rng(0xC0FF_EE00 ^ seed.wrapping_mul(0x9E37_79B9));
        let pool = Rc::new(Pool::new(&mut pool_rng));
        Gen {
            rng: Rng(seed),
            pool,
            buf: Vec::with_capacity(1 << 16),
            t1: String::with_capacity(1 << 16),
            t2: String::with_capacity(1 << 16),
            clock: 1_748_764_800_000 + (seed % 97) as i64 * 86_400_000,
            large_cap,
            sub_bytes: 0,
            mix: Mix::default(),
            distinct: false,
        }
    }

    fn uuid(&mut self) -> String {
        let a = self.rng.next();
        let b = self.rng.next();
        format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xFFFF,
            a & 0xFFF,
            0x8000 | (b >> 48) & 0x3FFF,
            b & 0xFFFF_FFFF_FFFF
        )
    }

    fn base62(&mut self, prefix: &str, n: usize) -> String {
        const A: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        let mut s = String::from(prefix);
        for _ in 0..n {
            s.push(A[self.rng.below_usize(62)] as char);
        }
        s
    }

    fn tick(&mut self, lo: u64, hi: u64) {
        self.clock += self.rng.range(lo, hi) as i64;
    }

    fn emit(&mut self, out: &mut Out, cat: Cat) -> io::Result<()> {
        out.w.write_all(&self.buf)?;
        out.w.write_all(b"\n")?;
        let n = self.buf.len() as u64 + 1;
        out.bytes += n;
        let m = &mut self.mix;
        m.lines += 1;
        if n > 100_000 {
            m.large_lines += 1;
        }
        *match cat {
            Cat::ToolResult => &mut m.tool_result,
            Cat::Assistant => &mut m.assistant,
            Cat::Prompt => &mut m.prompt,
            Cat::Image => &mut m.image,
            Cat::Side => &mut m.side,
            Cat::Meta => &mut m.meta,
            Cat::Copy => &mut m.copy,
        } += n;
        Ok(())
    }

    /// Starts a node line: the envelope up to (and with a comma after) `gitBranch`/`agentId`.
    fn env(&mut self, ctx: &Ctx, parent: Option<&str>) {
        let b = &mut self.buf;
        b.clear();
        raw(b, "{\"parentUuid\":");
        match parent {
            Some(p) => esc(b, p),
            None => raw(b, "null"),
        }
        raw(b, ",\"isSidechain\":");
        raw(b, if ctx.agent.is_some() { "true" } else { "false" });
        raw(b, ",\"userType\":\"external\",");
        kv(b, "cwd", &ctx.cwd);
        kv(b, "sessionId", &ctx.sid);
        kv(b, "version", &ctx.version);
        kv(b, "gitBranch", &ctx.branch);
        if let Some(a) = &ctx.agent {
            kv(b, "agentId", a);
        }
    }

    /// `"uuid":…,"timestamp":…` (no comma after).
    fn tail(&mut self, uuid: &str) {
        let ts = ts_string(self.clock);
        let b = &mut self.buf;
        raw(b, "\"uuid\":");
        esc(b, uuid);
        raw(b, ",\"timestamp\":\"");
        raw(b, &ts);
        b.push(b'"');
    }

    fn usage(&mut self, out_tokens: u64) {
        let cc = self.rng.log_range(10, 20_000);
        let cr = self.rng.log_range(5_000, 150_000);
        let b = &mut self.buf;
        raw(b, "\"usage\":{\"input_tokens\":");
        num(b, self.rng.range(1, 12));
        raw(b, ",\"cache_creation_input_tokens\":");
        num(b, cc);
        raw(b, ",\"cache_read_input_tokens\":");
        num(b, cr);
        raw(b, ",\"cache_creation\":{\"ephemeral_5m_input_tokens\":");
        num(b, cc);
        raw(b, ",\"ephemeral_1h_input_tokens\":0},\"output_tokens\":");
        num(b, out_tokens);
        raw(b, ",\"service_tier\":\"standard\"}");
    }

    fn prose(&mut self, out: &mut String, sentences: u64) {
        for i in 0..sentences {
            if i > 0 {
                out.push(' ');
            }
            let s = self.rng.below_usize(self.pool.sentences.len());
            out.push_str(&self.pool.sentences[s]);
        }
    }

    /// Markdown answer with headings, lists, tables and code blocks.
    fn markdown(&mut self, out: &mut String, blocks: u64) {
        for i in 0..blocks {
            match self.rng.below(6) {
                0 if i > 0 => {
                    let _ = write!(out, "## {}\n\n", self.title());
                }
                1 => {
                    for _ in 0..self.rng.range(2, 6) {
                        out.push_str("- ");
                        let n = self.rng.range(1, 2);
                        self.prose(out, n);
                        out.push('\n');
                    }
                    out.push('\n');
                }
                2 | 3 => {
                    let lang = self.rng.below_usize(LANGS.len());
                    let fi = *self.rng.pick(&self.pool.by_lang[lang]);
                    let f = &self.pool.files[fi];
                    let from = self.rng.below_usize(f.lines.len());
                    let n = self.rng.range(3, 40) as usize;
                    let _ = write!(out, "```{}\n{}\n```\n\n", LANGS[lang].fence, f.slice(from, n));
                }
                4 if self.rng.chance(0.3) => {
                    out.push_str("| File | Change | Lines |\n|---|---|---|\n");
                    for _ in 0..self.rng.range(2, 6) {
                        let f = &self.pool.files[self.rng.below_usize(self.pool.files.len())];
                        let _ = writeln!(
                            out,
                            "| `{}` | {} | {} |",
                            f.rel,
                            self.pool.sentences[self.rng.below_usize(100)],
                            self.rng.range(1, 300)
                        );
                    }
                    out.push('\n');
                }
                _ => {
                    let n = self.rng.range(2, 6);
                    self.prose(out, n);
                    out.push_str("\n\n");
                }
            }
        }
    }

    fn title(&mut self) -> String {
        let mut s = String::new();
        for i in 0..self.rng.range(2, 6) {
            let w = *self.rng.pick(WORDS);
            if i == 0 {
                s.push_str(&w[..1].to_ascii_uppercase());
                s.push_str(&w[1..]);
            } else {
                s.push(' ');
                s.push_str(w);
            }
        }
        s
    }

    fn file_snapshot(&mut self, out: &mut Out, msg: &str) -> io::Result<()> {
        let ts = ts_string(self.clock);
        let b = &mut self.buf;
        b.clear();
        raw(b, "{\"type\":\"file-history-snapshot\",");
        kv(b, "messageId", msg);
        raw(b, "\"snapshot\":{");
        kv(b, "messageId", msg);
        raw(b, "\"trackedFileBackups\":{},\"timestamp\":\"");
        raw(b, &ts);
        raw(b, "\"},\"isSnapshotUpdate\":false}");
        self.emit(out, Cat::Meta)
    }

    /// A typed prompt (sometimes with an image). Returns its uuid.
    fn prompt(&mut self, out: &mut Out, ctx: &Ctx, parent: Option<&str>) -> io::Result<String> {
        let uuid = self.uuid();
        if ctx.agent.is_none() {
            self.file_snapshot(out, &uuid)?;
        }
        let mut t = std::mem::take(&mut self.t1);
        t.clear();
        let n = self.rng.log_range(1, 12);
        self.prose(&mut t, n);
        if self.rng.chance(0.25) {
            // A pasted error or snippet.
            let lang = self.rng.below_usize(LANGS.len());
            let fi = *self.rng.pick(&self.pool.by_lang[lang]);
            let f = &self.pool.files[fi];
            let from = self.rng.below_usize(f.lines.len());
            let k = self.rng.range(3, 60) as usize;
            let _ = write!(t, "\n\n```{}\n{}\n```", LANGS[lang].fence, f.slice(from, k));
        }
        let image = ctx.agent.is_none() && self.rng.chance(0.04);
        self.env(ctx, parent);
        raw(&mut self.buf, "\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":");
        if image {
            raw(&mut self.buf, "[{\"type\":\"text\",\"text\":");
            esc(&mut self.buf, &t);
            raw(
                &mut self.buf,
                "},{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"",
            );
            let data = if self.rng.chance(0.15) {
                &self.pool.large_png[self.rng.below_usize(self.pool.large_png.len())]
            } else {
                &self.pool.small_png[self.rng.below_usize(self.pool.small_png.len())]
            };
            raw(&mut self.buf, data);
            raw(&mut self.buf, "\"}}]},");
        } else {
            esc(&mut self.buf, &t);
            raw(&mut self.buf, "},");
        }
        self.t1 = t;
        self.tail(&uuid);
        if image {
            raw(&mut self.buf, ",\"imagePasteIds\":[1]");
        }
        raw(&mut self.buf, ",\"permissionMode\":\"default\"}");
        self.emit(out, if image { Cat::Image } else { Cat::Prompt })?;
        Ok(uuid)
    }

    /// Starts an assistant line up to the content array's first element.
    fn asst_start(&mut self, ctx: &Ctx, parent: &str, model: &str, msg_id: &str) {
        self.env(ctx, Some(parent));
        let b = &mut self.buf;
        raw(b, "\"message\":{");
        kv(b, "model", model);
        kv(b, "id", msg_id);
        raw(b, "\"type\":\"message\",\"role\":\"assistant\",\"content\":[");
    }

    fn asst_end(&mut self, stop: Option<&str>, out_tokens: u64, req: &str, uuid: &str) {
        raw(&mut self.buf, "],\"stop_reason\":");
        match stop {
            Some(s) => esc(&mut self.buf, s),
            None => raw(&mut self.buf, "null"),
        }
        raw(&mut self.buf, ",\"stop_sequence\":null,");
        self.usage(out_tokens);
        raw(&mut self.buf, "},");
        kv(&mut self.buf, "requestId", req);
        raw(&mut self.buf, "\"type\":\"assistant\",");
        self.tail(uuid);
        self.buf.push(b'}');
    }

    /// Thinking and/or text blocks opening a response. Returns the last uuid.
    #[allow(clippy::too_many_arguments)]
    fn asst_preamble(
        &mut self,
        out: &mut Out,
        ctx: &Ctx,
        mut last: String,
        model: &str,
        msg: &str,
        req: &str,
        text_p: f64,
    ) -> io::Result<String> {
        if self.rng.chance(0.45) {
            let mut t = std::mem::take(&mut self.t1);
            t.clear();
            for p in 0..self.rng.range(1, 5) {
                if p > 0 {
                    t.push_str("\n\n");
                }
                let n = self.rng.range(2, 8);
                self.prose(&mut t, n);
            }
            let uuid = self.uuid();
            self.asst_start(ctx, &last, model, msg);
            raw(&mut self.buf, "{\"type\":\"thinking\",\"thinking\":");
            esc(&mut self.buf, &t);
            raw(&mut self.buf, ",\"signature\":\"");
            let n = self.rng.range(200, 1500) as usize;
            let s = self.rng.below_usize(self.pool.sig.len() - n);
            raw(&mut self.buf, &self.pool.sig[s..s + n]);
            raw(&mut self.buf, "\"}");
            self.t1 = t;
            let ot = self.rng.range(1, 8);
            self.asst_end(None, ot, req, &uuid);
            self.emit(out, Cat::Assistant)?;
            self.tick(300, 4000);
            last = uuid;
        }
        if self.rng.chance(text_p) {
            let mut t = std::mem::take(&mut self.t1);
            t.clear();
            let n = self.rng.range(1, 3);
            self.prose(&mut t, n);
            let uuid = self.uuid();
            self.asst_start(ctx, &last, model, msg);
            raw(&mut self.buf, "{\"type\":\"text\",\"text\":");
            esc(&mut self.buf, &t);
            raw(&mut self.buf, "}");
            self.t1 = t;
            let ot = self.rng.range(1, 8);
            self.asst_end(None, ot, req, &uuid);
            self.emit(out, Cat::Assistant)?;
            self.tick(100, 1500);
            last = uuid;
        }
        Ok(last)
    }

    fn pick_tool(&mut self, allow_task: bool) -> ToolKind {
        let r = self.rng.below(1000);
        match r {
            0..=299 => ToolKind::Read,
            300..=309 => ToolKind::ReadImage,
            310..=559 => ToolKind::Bash,
            560..=679 => ToolKind::Grep,
            680..=729 => ToolKind::Glob,
            730..=849 => ToolKind::Edit,
            850..=889 => ToolKind::Write,
            890..=929 => ToolKind::Todo,
            930..=954 if allow_task => ToolKind::Task,
            _ => ToolKind::WebFetch,
        }
    }

    fn large_size(&mut self) -> u64 {
        if self.large_cap >= 100_000 && self.rng.chance(0.005) {
            self.rng.log_range(100_000, self.large_cap.min(2_000_000))
        } else {
            0
        }
    }

    /// Writes the `input` object of a tool_use block.
    fn tool_input(&mut self, ctx: &Ctx, c: &mut Call) {
        let f = &self.pool.files[c.file];
        let b = &mut self.buf;
        b.push(b'{');
        match c.kind {
            ToolKind::Read => {
                kv(b, "file_path", &format!("{}/{}", ctx.cwd, f.rel));
                if c.from > 0 {
                    kn(b, "offset", c.from as u64 + 1);
                    kn(b, "limit", c.n as u64);
                }
            }
            ToolKind::ReadImage => {
                kv(b, "file_path", &format!("{}/docs/screenshot-{}.png", ctx.cwd, c.aux));
            }
            ToolKind::Bash => {
                let cmd = if c.large > 0 { "npm install --verbose 2>&1" } else { &self.pool.bash[c.aux].0 };
                kv(b, "command", cmd);
                kv(b, "description", "Run the command");
            }
            ToolKind::Grep => {
                kv(b, "pattern", WORDS[c.aux % WORDS.len()]);
                kv(b, "path", LANGS[f.lang].dir);
                kv(b, "output_mode", "content");
                raw(b, "\"-n\":true,");
            }
            ToolKind::Glob => kv(b, "pattern", &format!("**/*.{}", LANGS[f.lang].ext)),
            ToolKind::Edit => {
                kv(b, "file_path", &format!("{}/{}", ctx.cwd, f.rel));
                kv(b, "old_string", f.slice(c.from, c.n));
                let mut new = f.slice(c.from, c.n).to_string();
                new.push_str("\n    // ");
                new.push_str(&self.pool.sentences[c.aux % self.pool.sentences.len()]);
                kv(b, "new_string", &new);
            }
            ToolKind::Write => {
                kv(b, "file_path", &format!("{}/{}", ctx.cwd, f.rel));
                kv(b, "content", &f.text);
            }
            ToolKind::Todo => {
                raw(b, "\"todos\":[");
                for i in 0..c.n {
                    if i > 0 {
                        b.push(b',');
                    }
                    raw(b, "{");
                    kv(b, "content", &self.pool.sentences[(c.aux + i) % 4000]);
                    kv(b, "status", ["completed", "in_progress", "pending"][i % 3]);
                    raw(b, "\"activeForm\":");
                    esc(b, &self.pool.sentences[(c.aux + i) % 4000]);
                    b.push(b'}');
                }
                raw(b, "],");
            }
            ToolKind::Task => {
                kv(b, "description", "Investigate the code");
                kv(b, "prompt", &c.prompt);
                kv(b, "subagent_type", "Explore");
            }
            ToolKind::WebFetch => {
                kv(b, "url", &format!("https://docs.example.com/{}/{}", WORDS[c.aux % WORDS.len()], c.n));
                kv(b, "prompt", "Summarize the relevant API");
            }
        }
        if b.last() == Some(&b',') {
            b.pop();
        }
        b.push(b'}');
    }

    /// One response with tool calls, then the results. Returns the last uuid on the chain.
    fn tool_round(&mut self, out: &mut Out, ctx: &Ctx, last: String, sub_dir: Option<&Path>) -> io::Result<String> {
        let model = *self.rng.pick(MODELS);
        let msg = self.base62("msg_01", 22);
        let req = self.base62("req_011C", 21);
        let mut last = self.asst_preamble(out, ctx, last, model, &msg, &req, 0.5)?;
        let ntools = if self.rng.chance(0.3) { self.rng.range(2, 4) } else { 1 };
        let mut calls = Vec::new();
        for i in 0..ntools {
            let kind = self.pick_tool(sub_dir.is_some());
            let file = self.rng.below_usize(self.pool.files.len());
            let flen = self.pool.files[file].lines.len();
            let (from, n) = match kind {
                ToolKind::Read if flen > 400 && self.rng.chance(0.3) => {
                    let from = self.rng.below_usize(flen - 100);
                    (from, self.rng.range(50, 300) as usize)
                }
                ToolKind::Edit => (self.rng.below_usize(flen), self.rng.range(2, 30) as usize),
                ToolKind::Todo => (0, self.rng.range(2, 9) as usize),
                _ => (0, flen),
            };
            let large = match kind {
                ToolKind::Read | ToolKind::Bash => self.large_size(),
                _ => 0,
            };
            let aux = match kind {
                ToolKind::Bash => self.rng.below_usize(self.pool.bash.len()),
                _ => self.rng.below_usize(1 << 20),
            };
            let prompt = if kind == ToolKind::Task {
                let mut p = String::new();
                let n = self.rng.range(3, 12);
                self.prose(&mut p, n);
                p
            } else {
                String::new()
            };
            let mut c =
                Call { uuid: self.uuid(), id: self.base62("toolu_01", 22), kind, file, from, n, large, aux, prompt };
            self.asst_start(ctx, &last, model, &msg);
            raw(&mut self.buf, "{\"type\":\"tool_use\",");
            kv(&mut self.buf, "id", &c.id);
            let name = match kind {
                ToolKind::Read | ToolKind::ReadImage => "Read",
                ToolKind::Bash => "Bash",
                ToolKind::Grep => "Grep",
                ToolKind::Glob => "Glob",
                ToolKind::Edit => "Edit",
                ToolKind::Write => "Write",
                ToolKind::Todo => "TodoWrite",
                ToolKind::Task => "Task",
                ToolKind::WebFetch => "WebFetch",
            };
            kv(&mut self.buf, "name", name);
            raw(&mut self.buf, "\"input\":");
            self.tool_input(ctx, &mut c);
            raw(&mut self.buf, "}");
            let last_block = i + 1 == ntools;
            let uuid = c.uuid.clone();
            let ot = self.rng.range(40, 900);
            self.asst_end(last_block.then_some("tool_use"), ot, &req, &uuid);
            self.emit(out, Cat::Assistant)?;
            self.tick(200, 3000);
            last = uuid;
            calls.push(c);
        }
        for c in &calls {
            self.tick(50, 20_000);
            last = self.tool_result(out, ctx, c, sub_dir)?;
            if matches!(c.kind, ToolKind::Edit | ToolKind::Write) && ctx.agent.is_none() && self.rng.chance(0.6) {
                self.hook_attachment(out, ctx, &last, &c.id)?;
            }
        }
        Ok(last)
    }

    fn hook_attachment(&mut self, out: &mut Out, ctx: &Ctx, parent: &str, tool_id: &str) -> io::Result<()> {
        let uuid = self.uuid();
        self.tick(100, 900);
        self.env(ctx, Some(parent));
        let b = &mut self.buf;
        raw(b, "\"type\":\"attachment\",\"attachment\":{\"type\":\"hook_success\",\"hookName\":\"PostToolUse:Edit\",");
        kv(b, "toolUseID", tool_id);
        raw(
            b,
            "\"hookEvent\":\"PostToolUse\",\"content\":\"\",\"stdout\":\"formatted 1 file\\n\",\"stderr\":\"\",\"exitCode\":0,\"command\":\"cargo fmt\",",
        );
        kn(b, "durationMs", self.rng.range(40, 2000));
        b.pop();
        raw(b, "},");
        self.tail(&uuid);
        self.buf.push(b'}');
        self.emit(out, Cat::Side)
    }

    /// Numbered `cat -n` style text (`     1→line`).
    fn numbered(text: &str, first: usize, out: &mut String) {
        for (i, l) in text.split('\n').enumerate() {
            let _ = writeln!(out, "{:>6}→{}", first + i, l);
        }
        out.pop();
    }

    fn big_text(&mut self, size: u64, out: &mut String) {
        let mut i = 0u64;
        while (out.len() as u64) < size {
            i += 1;
            let _ = writeln!(
                out,
                "npm http fetch GET 200 https://registry.npmjs.org/{}-{} {}ms (cache {})",
                self.rng.pick(WORDS),
                i,
                self.rng.range(3, 900),
                if self.rng.chance(0.7) { "hit" } else { "miss" }
            );
            if i % 17 == 0 {
                let _ = writeln!(
                    out,
                    "\u{1b}[33mnpm\u{1b}[0m \u{1b}[35mWARN\u{1b}[0m deprecated {}@{}.{}.0: {}",
                    self.rng.pick(WORDS),
                    self.rng.below(9),
                    self.rng.below(20),
                    self.pool.sentences[self.rng.below_usize(4000)]
                );
            }
        }
    }

    fn result_start(&mut self, ctx: &Ctx, c: &Call, is_error: bool) {
        self.env(ctx, Some(&c.uuid));
        let b = &mut self.buf;
        raw(b, "\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{");
        kv(b, "tool_use_id", &c.id);
        raw(b, "\"type\":\"tool_result\",\"content\":");
        let _ = is_error;
    }

    fn result_mid(&mut self, is_error: bool, uuid: &str) {
        raw(&mut self.buf, ",\"is_error\":");
        raw(&mut self.buf, if is_error { "true" } else { "false" });
        raw(&mut self.buf, "}]},");
        self.tail(uuid);
        raw(&mut self.buf, ",\"toolUseResult\":");
    }

    fn tool_result(&mut self, out: &mut Out, ctx: &Ctx, c: &Call, sub_dir: Option<&Path>) -> io::Result<String> {
        let uuid = self.uuid();
        let mut t1 = std::mem::take(&mut self.t1);
        let mut t2 = std::mem::take(&mut self.t2);
        t1.clear();
        t2.clear();
        let mut cat = Cat::ToolResult;
        let pool = Rc::clone(&self.pool);
        let f = &pool.files[c.file];
        let path = format!("{}/{}", ctx.cwd, f.rel);
        match c.kind {
            ToolKind::Read => {
                let (text, first, total): (&str, usize, usize) = if c.large > 0 {
                    let mut big = String::new();
                    while (big.len() as u64) < c.large {
                        let g = &self.pool.files[self.rng.below_usize(self.pool.files.len())];
                        big.push_str(&g.text);
                    }
                    t2 = big;
                    (&t2, 1, 0)
                } else if self.distinct {
                    // A file of the same language and length, written for this call.
                    gen_source(&mut self.rng, &LANGS[f.lang], c.n.max(1), &mut t2);
                    (&t2, c.from + 1, f.lines.len().max(c.from + c.n))
                } else {
                    (f.slice(c.from, c.n), c.from + 1, f.lines.len())
                };
                Self::numbered(text, first, &mut t1);
                let nlines = text.split('\n').count();
                let total = if total == 0 { nlines } else { total };
                self.result_start(ctx, c, false);
                esc(&mut self.buf, &t1);
                self.result_mid(false, &uuid);
                raw(&mut self.buf, "{\"type\":\"text\",\"file\":{");
                kv(&mut self.buf, "filePath", &path);
                kv(&mut self.buf, "content", text);
                kn(&mut self.buf, "numLines", nlines as u64);
                kn(&mut self.buf, "startLine", first as u64);
                kn(&mut self.buf, "totalLines", total as u64);
                self.buf.pop();
                raw(&mut self.buf, "}}");
                if c.large > 0 {
                    t2 = String::with_capacity(1 << 16);
                }
            }
            ToolKind::ReadImage => {
                cat = Cat::Image;
                let data = if self.rng.chance(0.15) {
                    &pool.large_png[c.aux % pool.large_png.len()]
                } else {
                    &pool.small_png[c.aux % pool.small_png.len()]
                };
                self.result_start(ctx, c, false);
                raw(&mut self.buf, "[{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"data\":\"");
                raw(&mut self.buf, data);
                raw(&mut self.buf, "\",\"media_type\":\"image/png\"}}]");
                self.result_mid(false, &uuid);
                raw(&mut self.buf, "{\"type\":\"image\",\"file\":{\"base64\":\"");
                raw(&mut self.buf, data);
                raw(&mut self.buf, "\",\"type\":\"image/png\",");
                kn(&mut self.buf, "originalSize", data.len() as u64 * 3 / 4);
                self.buf.pop();
                raw(&mut self.buf, "}}");
            }
            ToolKind::Bash => {
                let error = self.rng.chance(0.08);
                if c.large > 0 {
                    self.big_text(c.large, &mut t1);
                } else if self.distinct {
                    gen_bash(&mut self.rng, &pool.files, &mut t1);
                } else {
                    t1.push_str(&self.pool.bash[c.aux].1);
                }
                if error {
                    t2.push_str("Exit code 1\n");
                    t2.push_str(&t1);
                    self.result_start(ctx, c, true);
                    esc(&mut self.buf, &t2);
                    self.result_mid(true, &uuid);
                    t2.insert_str(0, "Error: ");
                    esc(&mut self.buf, &t2);
                } else {
                    self.result_start(ctx, c, false);
                    esc(&mut self.buf, &t1);
                    self.result_mid(false, &uuid);
                    raw(&mut self.buf, "{\"stdout\":");
                    esc(&mut self.buf, &t1);
                    raw(&mut self.buf, ",\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}");
                }
                if c.large > 0 {
                    t1 = String::with_capacity(1 << 16);
                }
            }
            ToolKind::Grep => {
                let k = self.rng.log_range(1, 150);
                let mut nfiles = 0;
                for _ in 0..k {
                    let g = &self.pool.files[self.rng.below_usize(self.pool.files.len())];
                    let l = self.rng.below_usize(g.lines.len());
                    let _ = writeln!(t1, "{}:{}:{}", g.rel, l + 1, g.line(l));
                    nfiles += 1;
                }
                t1.pop();
                self.result_start(ctx, c, false);
                esc(&mut self.buf, &t1);
                self.result_mid(false, &uuid);
                raw(&mut self.buf, "{\"mode\":\"content\",");
                kn(&mut self.buf, "numFiles", nfiles);
                raw(&mut self.buf, "\"filenames\":[],\"content\":");
                esc(&mut self.buf, &t1);
                raw(&mut self.buf, ",");
                kn(&mut self.buf, "numLines", k);
                self.buf.pop();
                self.buf.push(b'}');
            }
            ToolKind::Glob => {
                let lang = f.lang;
                for &i in &self.pool.by_lang[lang] {
                    let _ = writeln!(t1, "{}/{}", ctx.cwd, self.pool.files[i].rel);
                }
                t1.pop();
                self.result_start(ctx, c, false);
                esc(&mut self.buf, &t1);
                self.result_mid(false, &uuid);
                raw(&mut self.buf, "{\"filenames\":[");
                for (j, l) in t1.split('\n').enumerate() {
                    if j > 0 {
                        self.buf.push(b',');
                    }
                    esc(&mut self.buf, l);
                }
                raw(&mut self.buf, "],");
                kn(&mut self.buf, "durationMs", self.rng.range(2, 200));
                kn(&mut self.buf, "numFiles", self.pool.by_lang[lang].len() as u64);
                raw(&mut self.buf, "\"truncated\":false}");
            }
            ToolKind::Edit => {
                let _ = writeln!(
                    t1,
                    "The file {path} has been updated. Here's the result of running `cat -n` on a snippet of the edited file:"
                );
                let from = c.from.saturating_sub(3);
                Self::numbered(f.slice(from, c.n + 6), from + 1, &mut t1);
                self.result_start(ctx, c, false);
                esc(&mut self.buf, &t1);
                self.result_mid(false, &uuid);
                raw(&mut self.buf, "{");
                kv(&mut self.buf, "filePath", &path);
                kv(&mut self.buf, "oldString", f.slice(c.from, c.n));
                t2.push_str(f.slice(c.from, c.n));
                t2.push_str("\n    // ");
                t2.push_str(&self.pool.sentences[c.aux % self.pool.sentences.len()]);
                kv(&mut self.buf, "newString", &t2);
                kv(&mut self.buf, "originalFile", &f.text);
                raw(&mut self.buf, "\"structuredPatch\":[{");
                kn(&mut self.buf, "oldStart", c.from as u64 + 1);
                kn(&mut self.buf, "oldLines", c.n as u64);
                kn(&mut self.buf, "newStart", c.from as u64 + 1);
                kn(&mut self.buf, "newLines", c.n as u64 + 1);
                raw(&mut self.buf, "\"lines\":[");
                for (j, l) in f.slice(c.from, c.n).split('\n').enumerate() {
                    if j > 0 {
                        self.buf.push(b',');
                    }
                    esc(&mut self.buf, &format!(" {l}"));
                }
                raw(&mut self.buf, "]}],\"userModified\":false,\"replaceAll\":false}");
            }
            ToolKind::Write => {
                let _ = write!(t1, "File created successfully at: {path}");
                self.result_start(ctx, c, false);
                esc(&mut self.buf, &t1);
                self.result_mid(false, &uuid);
                raw(&mut self.buf, "{\"type\":\"create\",");
                kv(&mut self.buf, "filePath", &path);
                kv(&mut self.buf, "content", &f.text);
                raw(&mut self.buf, "\"structuredPatch\":[],\"originalFile\":null}");
            }
            ToolKind::Todo => {
                t1.push_str("Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable");
                self.result_start(ctx, c, false);
                esc(&mut self.buf, &t1);
                self.result_mid(false, &uuid);
                raw(&mut self.buf, "{\"oldTodos\":[],\"newTodos\":[");
                for i in 0..c.n {
                    if i > 0 {
                        self.buf.push(b',');
                    }
                    raw(&mut self.buf, "{");
                    kv(&mut self.buf, "content", &self.pool.sentences[(c.aux + i) % 4000]);
                    kv(&mut self.buf, "status", ["completed", "in_progress", "pending"][i % 3]);
                    raw(&mut self.buf, "\"activeForm\":");
                    esc(&mut self.buf, &self.pool.sentences[(c.aux + i) % 4000]);
                    self.buf.push(b'}');
                }
                raw(&mut self.buf, "]}");
            }
            ToolKind::Task => {
                let dir = sub_dir.expect("Task only with a sub-agent dir");
                let (agent, report, tools, ms) = self.subagent(ctx, dir, &c.prompt)?;
                self.result_start(ctx, c, false);
                raw(&mut self.buf, "[{\"type\":\"text\",\"text\":");
                esc(&mut self.buf, &report);
                raw(&mut self.buf, "},{\"type\":\"text\",\"text\":");
                esc(&mut self.buf, &format!("agentId: {agent} (for resuming to continue this agent's work if needed)"));
                raw(&mut self.buf, "}]");
                self.result_mid(false, &uuid);
                raw(&mut self.buf, "{\"status\":\"completed\",");
                kv(&mut self.buf, "prompt", &c.prompt);
                kv(&mut self.buf, "agentId", &agent);
                raw(&mut self.buf, "\"content\":[{\"type\":\"text\",\"text\":");
                esc(&mut self.buf, &report);
                raw(&mut self.buf, "}],");
                kn(&mut self.buf, "totalDurationMs", ms);
                kn(&mut self.buf, "totalTokens", self.rng.range(5000, 90_000));
                kn(&mut self.buf, "totalToolUseCount", tools);
                raw(&mut self.buf, "\"agentType\":\"Explore\"}");
            }
            ToolKind::WebFetch => {
                let n = self.rng.range(3, 14);
                self.markdown(&mut t1, n);
                self.result_start(ctx, c, false);
                esc(&mut self.buf, &t1);
                self.result_mid(false, &uuid);
                raw(&mut self.buf, "{");
                kn(&mut self.buf, "bytes", t1.len() as u64 * 3);
                raw(&mut self.buf, "\"code\":200,\"codeText\":\"OK\",\"result\":");
                esc(&mut self.buf, &t1);
                raw(&mut self.buf, ",");
                kn(&mut self.buf, "durationMs", self.rng.range(200, 9000));
                kv(&mut self.buf, "url", "https://docs.example.com/api");
                self.buf.pop();
                self.buf.push(b'}');
            }
        }
        raw(&mut self.buf, ",\"sourceToolAssistantUUID\":");
        esc(&mut self.buf, &c.uuid);
        self.buf.push(b'}');
        self.t1 = t1;
        self.t2 = t2;
        self.emit(out, cat)?;
        Ok(uuid)
    }

    /// The final answer of a turn. Returns its uuid and the text written.
    fn final_answer(
        &mut self,
        out: &mut Out,
        ctx: &Ctx,
        last: String,
        keep: Option<&mut String>,
    ) -> io::Result<String> {
        let model = *self.rng.pick(MODELS);
        let msg = self.base62("msg_01", 22);
        let req = self.base62("req_011C", 21);
        let last = self.asst_preamble(out, ctx, last, model, &msg, &req, 0.0)?;
        let mut t = std::mem::take(&mut self.t1);
        t.clear();
        let n = self.rng.log_range(2, 14);
        self.markdown(&mut t, n);
        let uuid = self.uuid();
        self.asst_start(ctx, &last, model, &msg);
        raw(&mut self.buf, "{\"type\":\"text\",\"text\":");
        esc(&mut self.buf, &t);
        raw(&mut self.buf, "}");
        if let Some(k) = keep {
            k.clear();
            k.push_str(&t);
        }
        self.t1 = t;
        let ot = self.rng.range(100, 3000);
        self.asst_end(Some("end_turn"), ot, &req, &uuid);
        self.emit(out, Cat::Assistant)?;
        Ok(uuid)
    }

    fn system(&mut self, out: &mut Out, ctx: &Ctx, parent: &str, subtype: &str) -> io::Result<String> {
        let uuid = self.uuid();
        self.tick(10, 400);
        self.env(ctx, Some(parent));
        let b = &mut self.buf;
        raw(b, "\"type\":\"system\",");
        kv(b, "subtype", subtype);
        if subtype == "turn_duration" {
            kn(b, "durationMs", self.rng.range(2000, 600_000));
        } else {
            let id = format!("{:016x}", self.rng.next());
            raw(
                b,
                "\"hookCount\":1,\"hookInfos\":[{\"command\":\"notify-send 'Claude Code' 'Done'\"}],\"hookErrors\":[],\"preventedContinuation\":false,\"stopReason\":\"\",\"hasOutput\":false,\"level\":\"suggestion\",",
            );
            kv(b, "toolUseID", &id);
        }
        self.tail(&uuid);
        raw(&mut self.buf, ",\"isMeta\":false}");
        self.emit(out, Cat::Side)?;
        Ok(uuid)
    }

    /// One turn: prompt, tool rounds, answer, turn-end side entries. Returns the turn end.
    fn turn(
        &mut self,
        out: &mut Out,
        ctx: &Ctx,
        parent: Option<&str>,
        sub_dir: Option<&Path>,
        max_rounds: u64,
    ) -> io::Result<String> {
        let mut last = self.prompt(out, ctx, parent)?;
        self.tick(1000, 6000);
        let mut rounds = 1;
        while rounds < max_rounds && self.rng.chance(0.72) {
            rounds += 1;
        }
        for _ in 0..rounds {
            last = self.tool_round(out, ctx, last, sub_dir)?;
            self.tick(500, 8000);
        }
        last = self.final_answer(out, ctx, last, None)?;
        if self.rng.chance(0.35) {
            last = self.system(out, ctx, &last, "stop_hook_summary")?;
        }
        self.system(out, ctx, &last, "turn_duration")
    }

    fn subagent(&mut self, ctx: &Ctx, dir: &Path, prompt: &str) -> io::Result<(String, String, u64, u64)> {
        let agent = format!("a{:016x}", self.rng.next());
        let start = self.clock;
        fs::create_dir_all(dir)?;
        fs::write(
            dir.join(format!("agent-{agent}.meta.json")),
            format!("{{\"agentType\":\"Explore\",\"description\":\"{}\"}}", self.title()),
        )?;
        let mut out = Out::create(&dir.join(format!("agent-{agent}.jsonl")))?;
        let actx = Ctx {
            sid: ctx.sid.clone(),
            cwd: ctx.cwd.clone(),
            version: ctx.version.clone(),
            branch: ctx.branch.clone(),
            agent: Some(agent.clone()),
        };
        let uuid = self.uuid();
        self.env(&actx, None);
        raw(&mut self.buf, "\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":");
        esc(&mut self.buf, prompt);
        raw(&mut self.buf, "},");
        self.tail(&uuid);
        self.buf.push(b'}');
        self.emit(&mut out, Cat::Prompt)?;
        let mut last = uuid;
        let rounds = self.rng.range(2, 8);
        for _ in 0..rounds {
            self.tick(500, 4000);
            last = self.tool_round(&mut out, &actx, last, None)?;
        }
        let mut report = String::new();
        self.final_answer(&mut out, &actx, last, Some(&mut report))?;
        out.w.flush()?;
        self.sub_bytes += out.bytes;
        Ok((agent, report, rounds, (self.clock - start) as u64))
    }

    fn meta_line(&mut self, out: &mut Out, ty: &str, key: &str, val: &str, sid: &str) -> io::Result<()> {
        let b = &mut self.buf;
        b.clear();
        raw(b, "{");
        kv(b, "type", ty);
        kv(b, key, val);
        raw(b, "\"sessionId\":");
        esc(b, sid);
        b.push(b'}');
        self.emit(out, Cat::Meta)
    }

    fn summary(&mut self, out: &mut Out, leaf: &str) -> io::Result<()> {
        let t = self.title();
        let b = &mut self.buf;
        b.clear();
        raw(b, "{\"type\":\"summary\",");
        kv(b, "summary", &t);
        raw(b, "\"leafUuid\":");
        esc(b, leaf);
        b.push(b'}');
        self.emit(out, Cat::Meta)
    }

    fn compaction(&mut self, out: &mut Out, ctx: &Ctx, logical: &str) -> io::Result<String> {
        let boundary = self.uuid();
        self.tick(20_000, 90_000);
        self.env(ctx, None);
        let b = &mut self.buf;
        // parentUuid null was written by env; add the logical parent.
        raw(b, "\"logicalParentUuid\":");
        esc(b, logical);
        raw(
            b,
            ",\"type\":\"system\",\"subtype\":\"compact_boundary\",\"content\":\"Conversation compacted\",\"isMeta\":false,",
        );
        self.tail(&boundary);
        let pre = self.rng.range(120_000, 180_000);
        raw(&mut self.buf, ",\"level\":\"info\",\"compactMetadata\":{\"trigger\":\"auto\",\"preTokens\":");
        num(&mut self.buf, pre);
        raw(&mut self.buf, "}}");
        self.emit(out, Cat::Side)?;
        let mut t = std::mem::take(&mut self.t1);
        t.clear();
        t.push_str("This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis:\n");
        let n = self.rng.range(4, 12);
        self.markdown(&mut t, n);
        let uuid = self.uuid();
        self.env(ctx, Some(&boundary));
        raw(&mut self.buf, "\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":");
        esc(&mut self.buf, &t);
        self.t1 = t;
        raw(&mut self.buf, "},\"isCompactSummary\":true,\"isVisibleInTranscriptOnly\":true,");
        self.tail(&uuid);
        self.buf.push(b'}');
        self.emit(out, Cat::Side)?;
        Ok(uuid)
    }
}

// ---------------------------------------------------------------------------
// Archive

struct SessionInfo {
    sid: String,
    path: PathBuf,
    leaf: String,
    bytes: u64,
}

const VERSIONS_OLD: &[&str] = &["2.1.14", "2.1.17", "2.1.19"];
const VERSIONS_NEW: &[&str] = &["2.1.42", "2.1.63", "2.1.81", "2.1.97", "2.1.111"];

/// Copies the node lines of `prev` into `out` with the session id rewritten.
fn resume_copy(g: &mut Gen, out: &mut Out, prev: &SessionInfo, sid: &str) -> io::Result<()> {
    let text = fs::read_to_string(&prev.path)?;
    let from = format!("\"sessionId\":\"{}\"", prev.sid);
    let to = format!("\"sessionId\":\"{sid}\"");
    for line in text.lines() {
        if !line.starts_with("{\"parentUuid\"") {
            continue;
        }
        g.buf.clear();
        g.buf.extend_from_slice(line.replacen(&from, &to, 1).as_bytes());
        g.emit(out, Cat::Copy)?;
    }
    Ok(())
}

fn gen_session(g: &mut Gen, dir: &Path, cwd: &str, prior: &[SessionInfo], target: u64) -> io::Result<SessionInfo> {
    let sid = g.uuid();
    let path = dir.join(format!("{sid}.jsonl"));
    let mut out = Out::create(&path)?;
    g.sub_bytes = 0;
    g.tick(3_600_000, 40 * 3_600_000);
    // Summaries of other sessions' leaves, written into this new file.
    for _ in 0..g.rng.below(4).min(prior.len() as u64) {
        let i = g.rng.below_usize(prior.len());
        let leaf = prior[i].leaf.clone();
        g.summary(&mut out, &leaf)?;
    }
    let copy_from = prior.last().filter(|p| p.bytes <= 8_000_000 && p.bytes * 2 <= target && g.rng.chance(0.2));
    let version = if copy_from.is_some() { *g.rng.pick(VERSIONS_OLD) } else { *g.rng.pick(VERSIONS_NEW) };
    let ctx = Ctx {
        sid: sid.clone(),
        cwd: cwd.to_string(),
        version: version.to_string(),
        branch: if g.rng.chance(0.7) { "main".into() } else { format!("feat/{}", g.rng.pick(WORDS)) },
        agent: None,
    };
    let mut last: Option<String> = None;
    if let Some(p) = copy_from {
        resume_copy(g, &mut out, p, &sid)?;
        last = Some(p.leaf.clone());
    }
    g.meta_line(&mut out, "permission-mode", "permissionMode", "default", &sid)?;
    let sub_dir = dir.join(&sid).join("subagents");
    let mut turn_ends: Vec<String> = Vec::new();
    let mut since_compact = 0u64;
    let compact_every = g.rng.range(1_500_000, 5_000_000);
    let mut sub_total = 0u64;
    while out.bytes + sub_total < target {
        let before = out.bytes;
        let parent = if turn_ends.len() >= 2 && g.rng.chance(0.05) {
            // Rewind: re-prompt from an earlier turn end, minutes later.
            g.tick(60_000, 600_000);
            let back = g.rng.range(2, turn_ends.len().min(6) as u64) as usize;
            Some(turn_ends[turn_ends.len() - back].clone())
        } else {
            g.tick(5_000, 600_000);
            last.clone()
        };
        let end = g.turn(&mut out, &ctx, parent.as_deref(), Some(&sub_dir), 12)?;
        turn_ends.push(end.clone());
        last = Some(end);
        sub_total += std::mem::take(&mut g.sub_bytes);
        since_compact += out.bytes - before;
        if g.rng.chance(0.03) {
            let t = g.title();
            g.meta_line(&mut out, "queue-operation", "operation", "enqueue", &sid)?;
            g.meta_line(&mut out, "ai-title", "aiTitle", &t, &sid)?;
        }
        if since_compact > compact_every && out.bytes + sub_total < target {
            let l = last.take().unwrap_or_default();
            last = Some(g.compaction(&mut out, &ctx, &l)?);
            turn_ends.clear();
            since_compact = 0;
        }
    }
    let t = g.title();
    g.meta_line(&mut out, "ai-title", "aiTitle", &t, &sid)?;
    if g.rng.chance(0.2) {
        let t = g.title();
        g.meta_line(&mut out, "custom-title", "customTitle", &t, &sid)?;
    }
    let lp = g.pool.sentences[g.rng.below_usize(4000)].clone();
    g.meta_line(&mut out, "last-prompt", "lastPrompt", &lp, &sid)?;
    out.w.flush()?;
    Ok(SessionInfo { sid, path, leaf: last.unwrap_or_default(), bytes: out.bytes + sub_total })
}

fn generate(args: &Args, out_dir: &Path) -> io::Result<()> {
    if out_dir.exists() && fs::read_dir(out_dir)?.next().is_some() {
        return Err(io::Error::other(format!("{} exists and is not empty", out_dir.display())));
    }
    fs::create_dir_all(out_dir)?;
    let total = args.size_mb * 1_000_000;
    let nproj =
        args.projects.unwrap_or_else(|| (2 + (args.size_mb as f64).log2().round() as u64).clamp(3, 14)) as usize;
    // Shares: project 0 holds 40% (all of it with one project); the rest decay geometrically.
    let mut shares = vec![0f64; nproj];
    if nproj == 1 {
        shares[0] = 1.0;
    } else {
        shares[0] = 0.4;
        let w: Vec<f64> = (1..nproj).map(|i| 0.7f64.powi(i as i32 - 1)).collect();
        let sum: f64 = w.iter().sum();
        for i in 1..nproj {
            shares[i] = 0.6 * w[i - 1] / sum;
        }
    }
    let mut g = Gen::new(args.seed, (total / 8).max(1));
    g.distinct = args.distinct_output;
    let mut written = 0u64;
    for (pi, share) in shares.iter().enumerate() {
        let budget = (total as f64 * share) as u64;
        let name = format!("{}-{}", g.rng.pick(WORDS), g.rng.pick(WORDS));
        let cwd = format!("/home/dev/src/{name}");
        let dir = out_dir.join(format!("-home-dev-src-{name}-{pi}"));
        fs::create_dir_all(&dir)?;
        let mut sessions: Vec<SessionInfo> = Vec::new();
        let mut pbytes = 0u64;
        while pbytes < budget {
            let left = budget - pbytes;
            let cap = (budget / 3).max(1_000_000);
            let target = g.rng.log_range(64_000, cap).min(left).max(1);
            let s = gen_session(&mut g, &dir, &cwd, &sessions, target)?;
            pbytes += s.bytes;
            sessions.push(s);
        }
        if args.verbose {
            eprintln!("project {pi}: {} sessions, {:.1} MB", sessions.len(), pbytes as f64 / 1e6);
        }
        written += pbytes;
    }
    if args.verbose {
        let m = &g.mix;
        let t = (m.tool_result + m.assistant + m.prompt + m.image + m.side + m.meta + m.copy).max(1) as f64;
        let pct = |x: u64| 100.0 * x as f64 / t;
        eprintln!(
            "{:.1} MB, {} lines ({} over 100 KB); bytes: tool results {:.1}%, assistant {:.1}%, prompts {:.1}%, images {:.1}%, side {:.1}%, metadata {:.1}%, resume copies {:.1}%",
            written as f64 / 1e6,
            m.lines,
            m.large_lines,
            pct(m.tool_result),
            pct(m.assistant),
            pct(m.prompt),
            pct(m.image),
            pct(m.side),
            pct(m.meta),
            pct(m.copy)
        );
    }
    Ok(())
}

/// Appends one turn to the main chain of `path`.
fn append_turn(args: &Args, path: &Path) -> io::Result<()> {
    let text = fs::read_to_string(path)?;
    let mut found = None;
    for line in text.lines().rev() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
        if v.get("isSidechain").and_then(|x| x.as_bool()) == Some(true) {
            continue;
        }
        if let (Some(uuid), Some(sid)) = (s("uuid"), s("sessionId")) {
            found = Some((uuid, sid, s("cwd"), s("version"), s("gitBranch"), s("timestamp")));
            break;
        }
    }
    let Some((uuid, sid, cwd, version, branch, ts)) = found else {
        return Err(io::Error::other("no node entry to append to"));
    };
    let mut g = Gen::new(args.seed, 0);
    if let Some(t) = ts.as_deref().and_then(parse_ts) {
        g.clock = t;
    }
    g.tick(60_000, 600_000);
    let ctx = Ctx {
        sid,
        cwd: cwd.unwrap_or_else(|| "/home/dev/src/app".into()),
        version: version.unwrap_or_else(|| "2.1.97".into()),
        branch: branch.unwrap_or_default(),
        agent: None,
    };
    let mut out = Out::append(path)?;
    g.turn(&mut out, &ctx, Some(&uuid), None, 3)?;
    out.w.flush()?;
    if args.verbose {
        eprintln!("appended {} bytes to {}", out.bytes, path.display());
    }
    Ok(())
}

fn main() {
    let args = Args::parse();
    let r = match (&args.append_turn, &args.out) {
        (Some(p), _) => append_turn(&args, p),
        (None, Some(out)) => generate(&args, out),
        (None, None) => unreachable!("clap requires --out"),
    };
    if let Err(e) = r {
        eprintln!("gen_archive: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_round_trip() {
        for ms in [0i64, 1_748_764_800_123, 1_709_251_199_999] {
            assert_eq!(parse_ts(&ts_string(ms)), Some(ms));
        }
        assert_eq!(ts_string(1_748_764_800_000), "2025-06-01T08:00:00.000Z");
    }
}

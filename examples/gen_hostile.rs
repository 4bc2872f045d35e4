//! Hostile archives for the scaling figures of issue 15 (`scripts/bench.sh`),
//! and a timer for discovery alone.
//!
//! ```text
//! cargo run --release --example gen_hostile -- sessions --out DIR --count 200000
//! cargo run --release --example gen_hostile -- links --out DIR --levels 24
//! cargo run --release --example gen_hostile -- siblings --out DIR --count 1000000
//! cargo run --release --example gen_hostile -- big-session --out DIR --size-mb 2000
//! cargo run --release --example gen_hostile -- huge-line --out DIR --size-mb 300
//! cargo run --release --example gen_hostile -- parallel-calls --out DIR --count 4000
//! cargo run --release --example gen_hostile -- rewinds --out DIR --count 10000
//! cargo run --release --example gen_hostile -- compactions --out DIR --count 40000
//! cargo run --release --example gen_hostile -- nested-forks --out DIR --count 100000
//! cargo run --release --example gen_hostile -- gemini-parallel-calls --out DIR --count 32000
//! cargo run --release --example gen_hostile -- gemini-rewinds --out DIR --count 8000
//! cargo run --release --example gen_hostile -- gemini-json --out DIR --size-mb 400
//! cargo run --release --example gen_hostile -- discover DIR
//! ```
//!
//! - `sessions`: a projects directory with one project of COUNT small
//!   sessions (a prompt and its answer each), as automation that runs
//!   `claude -p` once per job writes them.
//! - `links`: a projects directory with one project whose `chain/d0 …
//!   chain/d<LEVELS>` each hold two directory links, `a` and `b`, to the next:
//!   2 × LEVELS links, 2^LEVELS paths to the one transcript in the last.
//! - `siblings`: a projects directory with one project of one session: a
//!   prompt and its answer, then COUNT prompts typed under that answer (a
//!   rewind each), COUNT sibling branches of one fork point.
//! - `big-session`: a projects directory with one project of one session of
//!   about SIZE MB: turns of a prompt, a tool call, its result (1–64 KB of
//!   output, 1 in 100 of 1 MB) and an answer.
//! - `huge-line`: one session whose tool result is one line of about SIZE MB.
//! - `parallel-calls` (issue 31): one assistant message of COUNT parallel
//!   tool calls (one streamed entry each, chained), then their COUNT results,
//!   then the answer.
//! - `rewinds` (issue 31): one line of COUNT turns, and under each answer a
//!   prompt typed later (a rewind): COUNT fork points along one line.
//! - `gemini-parallel-calls` (issue 41): a Gemini CLI session whose one reply
//!   makes COUNT tool calls (written twice, as the client does: first
//!   without `toolCalls`, then with them and their results), the `user`
//!   record of their COUNT `functionResponse` parts, then the answer.
//! - `gemini-rewinds` (issue 41): `rewinds` as Gemini CLI writes it: a
//!   session of COUNT turns, then each rewound once (`$rewindTo` its
//!   prompt, which drops the turns after it too) and typed again, from the
//!   last turn back to the first: COUNT fork points along one line.
//! - `gemini-json` (issue 41): one older-style Gemini `.json` session of
//!   about SIZE MB (pretty-printed, turns of a prompt, a reply with a shell
//!   call and its 1–64 KB result, and an answer).
//! - `compactions` (issue 31): one session compacted COUNT times (a
//!   `compact_boundary` with its `logicalParentUuid`, the summary, a turn).
//!   With `--kept`, each compaction keeps the turn before it verbatim, as
//!   2.1.332's `/compact` writes it (`preservedMessages` and
//!   `preservedSegment`; the client splices the kept turn after the summary).
//! - `nested-forks` (issue 31): forks nested COUNT deep: under each answer a
//!   short prompt first, then the prompt that goes on (a branch of its own,
//!   holding the next fork).
//! - `discover`: runs cctree's discover stage (listing and classifying every
//!   file, no parsing) on DIR and prints projects, files and seconds.

#![allow(
    unreachable_pub,
    clippy::too_many_lines,
    clippy::cast_possible_truncation,
    clippy::format_push_string,
    reason = "the crate's curated lints (Cargo.toml) hold src/; a generator of benchmark archives, not cctree's code"
)]

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(Subcommand, Debug)]
enum What {
    /// One project of COUNT small sessions.
    Sessions {
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 200_000)]
        count: u64,
    },
    /// One project with 2 × LEVELS directory links, 2^LEVELS paths to one file.
    Links {
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 24)]
        levels: usize,
    },
    /// One session whose answer has COUNT prompts under it (rewinds).
    Siblings {
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 1_000_000)]
        count: u64,
    },
    /// One session of about SIZE MB.
    BigSession {
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 2000)]
        size_mb: u64,
    },
    /// One session whose tool result is one line of SIZE MB.
    HugeLine {
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 300)]
        size_mb: u64,
    },
    /// One assistant message of COUNT parallel tool calls.
    ParallelCalls {
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 4000)]
        count: u64,
    },
    /// COUNT rewinds along one line.
    Rewinds {
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 10_000)]
        count: u64,
    },
    /// One Gemini CLI reply of COUNT tool calls.
    GeminiParallelCalls {
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 32_000)]
        count: u64,
    },
    /// A Gemini CLI session of COUNT turns, each rewound once.
    GeminiRewinds {
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 8000)]
        count: u64,
    },
    /// One Gemini CLI `.json` session of about SIZE MB.
    GeminiJson {
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 400)]
        size_mb: u64,
    },
    /// One session compacted COUNT times.
    Compactions {
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 40_000)]
        count: u64,
        /// Each compaction keeps the turn before it (2.1.332).
        #[arg(long)]
        kept: bool,
    },
    /// Forks nested COUNT deep.
    NestedForks {
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 100_000)]
        count: u64,
    },
    /// Time cctree's discovery of DIR.
    Discover { dir: PathBuf },
}

fn uuid(kind: u32, n: u64) -> String {
    format!("{kind:08x}-0000-4000-8000-{n:012x}")
}

fn line(out: &mut Vec<u8>, ty: &str, uuid: &str, parent: Option<&str>, session: &str, n: u64, text: &str) {
    let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    let ts = format!("2026-01-{:02}T{:02}:{:02}:{:02}.000Z", 1 + n / 86_400 % 28, n / 3600 % 24, n / 60 % 60, n % 60);
    let message = if ty == "user" {
        format!(r#"{{"role":"user","content":"{text}"}}"#)
    } else {
        format!(
            r#"{{"id":"msg_{uuid}","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"{text}"}}]}}"#
        )
    };
    let _ = writeln!(
        out,
        r#"{{"parentUuid":{parent},"isSidechain":false,"userType":"external","cwd":"/srv/jobs","sessionId":"{session}","version":"2.1.330","type":"{ty}","uuid":"{uuid}","timestamp":"{ts}","message":{message}}}"#
    );
}

fn sessions(out: &Path, count: u64) -> std::io::Result<()> {
    let project = out.join("-srv-jobs");
    std::fs::create_dir_all(&project)?;
    let mut buf = Vec::with_capacity(1024);
    for n in 0..count {
        let session = uuid(0x5e55, n);
        let (u, a) = (uuid(0x1, n), uuid(0x2, n));
        buf.clear();
        line(&mut buf, "user", &u, None, &session, n, &format!("Run job {n}"));
        line(&mut buf, "assistant", &a, Some(&u), &session, n, &format!("Job {n} done."));
        std::fs::write(project.join(format!("{session}.jsonl")), &buf)?;
    }
    Ok(())
}

fn siblings(out: &Path, count: u64) -> std::io::Result<()> {
    let project = out.join("-srv-rewinds");
    std::fs::create_dir_all(&project)?;
    let session = uuid(0x5e55, 0);
    let file = std::fs::File::create(project.join(format!("{session}.jsonl")))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let mut buf = Vec::with_capacity(1024);
    let (root, answer) = (uuid(0x1, 0), uuid(0x2, 0));
    line(&mut buf, "user", &root, None, &session, 0, "Start of the rewinds");
    line(&mut buf, "assistant", &answer, Some(&root), &session, 1, "Ready.");
    w.write_all(&buf)?;
    for n in 0..count {
        buf.clear();
        line(&mut buf, "user", &uuid(0x3, n), Some(&answer), &session, 2 + n, &format!("Attempt {n}"));
        w.write_all(&buf)?;
    }
    w.flush()
}

/// A tool call (`Bash`) and its result holding `output`, after `parent`;
/// returns the result's uuid.
fn tool_round(w: &mut impl Write, session: &str, n: u64, parent: &str, output: &str) -> std::io::Result<String> {
    let (call, result) = (uuid(0x4, n), uuid(0x5, n));
    let ts = format!("2026-01-{:02}T{:02}:{:02}:{:02}.000Z", 1 + n / 86_400 % 28, n / 3600 % 24, n / 60 % 60, n % 60);
    writeln!(
        w,
        r#"{{"parentUuid":"{parent}","isSidechain":false,"cwd":"/srv/big","sessionId":"{session}","version":"2.1.330","type":"assistant","uuid":"{call}","timestamp":"{ts}","message":{{"id":"msg_{call}","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"tool_use","id":"toolu_{n}","name":"Bash","input":{{"command":"make test {n}","description":"Run the tests"}}}}],"usage":{{"input_tokens":10,"output_tokens":20}}}}}}"#
    )?;
    let out = serde_json::to_string(output).unwrap_or_default();
    writeln!(
        w,
        r#"{{"parentUuid":"{call}","isSidechain":false,"cwd":"/srv/big","sessionId":"{session}","version":"2.1.330","type":"user","uuid":"{result}","timestamp":"{ts}","toolUseResult":{{"stdout":{out},"stderr":"","interrupted":false}},"message":{{"role":"user","content":[{{"tool_use_id":"toolu_{n}","type":"tool_result","content":{out},"is_error":false}}]}}}}"#
    )?;
    Ok(result)
}

fn big_session(out: &Path, size_mb: u64) -> std::io::Result<()> {
    let project = out.join("-srv-big");
    std::fs::create_dir_all(&project)?;
    let session = uuid(0x5e55, 0);
    let file = std::fs::File::create(project.join(format!("{session}.jsonl")))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let target = size_mb * 1_000_000;
    let (mut written, mut n, mut parent) = (0u64, 0u64, None::<String>);
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut buf = Vec::new();
    while written < target {
        // xorshift: 1–64 KB of output, 1 in 100 of 1 MB.
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let size = if seed % 100 == 0 { 1 << 20 } else { 1024 + (seed >> 8) as usize % (63 * 1024) };
        let output: String = (0..size / 64).map(|i| format!("test {n}.{i:<5} ... ok {:>40}\n", seed % 1000)).collect();
        buf.clear();
        line(&mut buf, "user", &uuid(0x1, n), parent.as_deref(), &session, 4 * n, &format!("Run the tests, round {n}"));
        w.write_all(&buf)?;
        let result = tool_round(&mut w, &session, n, &uuid(0x1, n), &output)?;
        buf.clear();
        line(
            &mut buf,
            "assistant",
            &uuid(0x2, n),
            Some(&result),
            &session,
            4 * n + 2,
            &format!("Round {n}: all tests pass."),
        );
        w.write_all(&buf)?;
        parent = Some(uuid(0x2, n));
        written += 2 * output.len() as u64 + 1500;
        n += 1;
    }
    w.flush()
}

fn huge_line(out: &Path, size_mb: u64) -> std::io::Result<()> {
    let project = out.join("-srv-huge");
    std::fs::create_dir_all(&project)?;
    let session = uuid(0x5e55, 0);
    let file = std::fs::File::create(project.join(format!("{session}.jsonl")))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let mut buf = Vec::new();
    line(&mut buf, "user", &uuid(0x1, 0), None, &session, 0, "Print the whole log");
    w.write_all(&buf)?;
    let chunk = "0123456789abcdef ".repeat(64);
    // The output is in the result twice (the message and `toolUseResult`).
    let output: String = chunk.repeat((size_mb * 1_000_000 / 2) as usize / chunk.len());
    let result = tool_round(&mut w, &session, 0, &uuid(0x1, 0), &output)?;
    buf.clear();
    line(&mut buf, "assistant", &uuid(0x2, 0), Some(&result), &session, 2, "That was a long log.");
    w.write_all(&buf)?;
    w.flush()
}

#[cfg(unix)]
fn links(out: &Path, levels: usize) -> std::io::Result<()> {
    let project = out.join("-srv-links");
    let chain = project.join("chain");
    for i in 0..=levels {
        std::fs::create_dir_all(chain.join(format!("d{i}")))?;
    }
    for i in 0..levels {
        for l in ["a", "b"] {
            std::os::unix::fs::symlink(format!("../d{}", i + 1), chain.join(format!("d{i}/{l}")))?;
        }
    }
    let session = uuid(0x5e55, 0);
    let mut buf = Vec::new();
    line(&mut buf, "user", &uuid(1, 0), None, &session, 0, "Read through many links");
    std::fs::write(chain.join(format!("d{levels}/{session}.jsonl")), &buf)?;
    let mut buf = Vec::new();
    let other = uuid(0x5e55, 1);
    line(&mut buf, "user", &uuid(1, 1), None, &other, 1, "A session beside the links");
    std::fs::write(project.join(format!("{other}.jsonl")), &buf)
}

#[cfg(not(unix))]
fn links(_out: &Path, _levels: usize) -> std::io::Result<()> {
    Err(std::io::Error::other("directory links need a Unix system"))
}

/// A session file `<out>/<project>/<session>.jsonl`, buffered.
fn session_file(out: &Path, project: &str) -> std::io::Result<(String, std::io::BufWriter<std::fs::File>)> {
    let dir = out.join(project);
    std::fs::create_dir_all(&dir)?;
    let session = uuid(0x5e55, 0);
    let file = std::fs::File::create(dir.join(format!("{session}.jsonl")))?;
    Ok((session, std::io::BufWriter::with_capacity(1 << 20, file)))
}

fn ts(n: u64) -> String {
    format!("2026-01-{:02}T{:02}:{:02}:{:02}.000Z", 1 + n / 86_400 % 28, n / 3600 % 24, n / 60 % 60, n % 60)
}

fn parallel_calls(out: &Path, count: u64) -> std::io::Result<()> {
    let (session, mut w) = session_file(out, "-srv-parallel")?;
    let mut buf = Vec::new();
    line(&mut buf, "user", &uuid(0x1, 0), None, &session, 0, "Read every file at once");
    w.write_all(&buf)?;
    let mut parent = uuid(0x1, 0);
    for n in 0..count {
        let call = uuid(0x4, n);
        writeln!(
            w,
            r#"{{"parentUuid":"{parent}","isSidechain":false,"cwd":"/srv/parallel","sessionId":"{session}","version":"2.1.330","type":"assistant","uuid":"{call}","timestamp":"{}","message":{{"id":"msg_parallel","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"tool_use","id":"toolu_{n}","name":"Read","input":{{"file_path":"/srv/parallel/f{n}.txt"}}}}]}}}}"#,
            ts(1)
        )?;
        parent = call;
    }
    for n in 0..count {
        let result = uuid(0x5, n);
        writeln!(
            w,
            r#"{{"parentUuid":"{parent}","isSidechain":false,"cwd":"/srv/parallel","sessionId":"{session}","version":"2.1.330","type":"user","uuid":"{result}","timestamp":"{}","toolUseResult":{{"type":"text","file":{{"filePath":"/srv/parallel/f{n}.txt","content":"file {n}"}}}},"message":{{"role":"user","content":[{{"tool_use_id":"toolu_{n}","type":"tool_result","content":"file {n}"}}]}}}}"#,
            ts(2)
        )?;
        parent = result;
    }
    buf.clear();
    line(&mut buf, "assistant", &uuid(0x2, 0), Some(&parent), &session, 3, "Read them all.");
    w.write_all(&buf)?;
    w.flush()
}

fn rewinds(out: &Path, count: u64) -> std::io::Result<()> {
    let (session, mut w) = session_file(out, "-srv-line")?;
    let mut buf = Vec::new();
    let mut parent: Option<String> = None;
    for n in 0..count {
        let (p, a) = (uuid(0x1, n), uuid(0x2, n));
        line(&mut buf, "user", &p, parent.as_deref(), &session, 2 * n, &format!("Step {n}"));
        line(&mut buf, "assistant", &a, Some(&p), &session, 2 * n + 1, &format!("Step {n} done."));
        parent = Some(a);
    }
    // Later, a rewind to each answer: a prompt typed under it.
    for n in 0..count {
        let (p, a) = (uuid(0x3, n), uuid(0x6, n));
        line(
            &mut buf,
            "user",
            &p,
            Some(&uuid(0x2, n)),
            &session,
            2 * count + 2 * n,
            &format!("Instead of step {}", n + 1),
        );
        line(&mut buf, "assistant", &a, Some(&p), &session, 2 * count + 2 * n + 1, "Done differently.");
    }
    w.write_all(&buf)?;
    w.flush()
}

/// A Gemini CLI project folder `tmp/<name>/` (with its `.project_root`) and
/// its session file `chats/session-….jsonl` begun with the metadata line.
fn gemini_session(out: &Path, name: &str, ext: &str) -> std::io::Result<(String, std::io::BufWriter<std::fs::File>)> {
    let dir = out.join("tmp").join(name);
    std::fs::create_dir_all(dir.join("chats"))?;
    std::fs::write(dir.join(".project_root"), format!("/srv/{name}"))?;
    let session = uuid(0x5e55, 0);
    let file = std::fs::File::create(dir.join(format!("chats/session-2026-01-01T00-00-{}.{ext}", &session[..8])))?;
    Ok((session, std::io::BufWriter::with_capacity(1 << 20, file)))
}

fn gemini_meta(session: &str) -> String {
    format!(
        r#"{{"sessionId":"{session}","projectHash":"0000000000000000000000000000000000000000000000000000000000000000","startTime":"{}","lastUpdated":"{}","kind":"main"}}"#,
        ts(0),
        ts(0)
    )
}

fn gemini_text(w: &mut impl Write, id: &str, ty: &str, n: u64, text: &str) -> std::io::Result<()> {
    if ty == "user" {
        writeln!(w, r#"{{"id":"{id}","timestamp":"{}","type":"user","content":[{{"text":"{text}"}}]}}"#, ts(n))
    } else {
        writeln!(
            w,
            r#"{{"id":"{id}","timestamp":"{}","type":"gemini","content":"{text}","model":"gemini-2.5-pro","tokens":{{"input":100,"output":10,"cached":0,"thoughts":0,"tool":0,"total":110}}}}"#,
            ts(n)
        )
    }
}

fn gemini_parallel_calls(out: &Path, count: u64) -> std::io::Result<()> {
    let (session, mut w) = gemini_session(out, "parallel", "jsonl")?;
    writeln!(w, "{}", gemini_meta(&session))?;
    gemini_text(&mut w, "u0", "user", 1, "Read every file at once")?;
    // The reply, first without its calls, then with them and their results.
    gemini_text(&mut w, "g0", "gemini", 2, "")?;
    let mut calls = String::new();
    let mut responses = String::new();
    for n in 0..count {
        let sep = if n == 0 { "" } else { "," };
        let response = format!(
            r#"{{"functionResponse":{{"id":"read_file-{n}","name":"read_file","response":{{"output":"file {n}"}}}}}}"#
        );
        calls.push_str(&format!(
            r#"{sep}{{"id":"read_file-{n}","name":"read_file","args":{{"file_path":"/srv/parallel/f{n}.txt"}},"result":[{response}],"status":"success","timestamp":"{}","displayName":"ReadFile"}}"#,
            ts(3)
        ));
        responses.push_str(sep);
        responses.push_str(&response);
    }
    writeln!(
        w,
        r#"{{"id":"g0","timestamp":"{}","type":"gemini","content":"","model":"gemini-2.5-pro","tokens":{{"input":100,"output":10,"cached":0,"thoughts":0,"tool":0,"total":110}},"toolCalls":[{calls}]}}"#,
        ts(2)
    )?;
    writeln!(w, r#"{{"id":"u1","timestamp":"{}","type":"user","content":[{responses}]}}"#, ts(4))?;
    gemini_text(&mut w, "g1", "gemini", 5, "Read them all.")?;
    w.flush()
}

fn gemini_rewinds(out: &Path, count: u64) -> std::io::Result<()> {
    let (session, mut w) = gemini_session(out, "line", "jsonl")?;
    writeln!(w, "{}", gemini_meta(&session))?;
    // An opening turn: every rewind is a fork point of one conversation.
    gemini_text(&mut w, "begin", "user", 0, "Begin")?;
    gemini_text(&mut w, "ready", "gemini", 0, "Ready.")?;
    for n in 0..count {
        gemini_text(&mut w, &format!("u{n}"), "user", 1 + 2 * n, &format!("Step {n}"))?;
        gemini_text(&mut w, &format!("g{n}"), "gemini", 2 + 2 * n, &format!("Step {n} done."))?;
    }
    // Later, from the last turn back: each rewound (`$rewindTo` its prompt)
    // and typed again.
    for n in (0..count).rev() {
        let t = 2 * count + 2 * (count - n);
        writeln!(w, r#"{{"$rewindTo":"u{n}"}}"#)?;
        gemini_text(&mut w, &format!("v{n}"), "user", t, &format!("Instead of step {n}"))?;
        gemini_text(&mut w, &format!("h{n}"), "gemini", t + 1, "Done differently.")?;
    }
    w.flush()
}

fn gemini_json(out: &Path, size_mb: u64) -> std::io::Result<()> {
    let (session, mut w) = gemini_session(out, "json", "json")?;
    let target = size_mb * 1_000_000;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    write!(
        w,
        "{{\n  \"sessionId\": \"{session}\",\n  \"projectHash\": \"0000000000000000000000000000000000000000000000000000000000000000\",\n  \"startTime\": \"{}\",\n  \"lastUpdated\": \"{}\",\n  \"messages\": [",
        ts(0),
        ts(0)
    )?;
    let mut written = 0u64;
    let mut n = 0u64;
    while written < target {
        // xorshift: 1–64 KB of output.
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let output = "x".repeat(1024 * (1 + (seed % 64) as usize));
        let sep = if n == 0 { "\n" } else { ",\n" };
        let turn = format!(
            r#"{sep}    {{
      "id": "u{n}",
      "timestamp": "{t0}",
      "type": "user",
      "content": "Run step {n}"
    }},
    {{
      "id": "g{n}",
      "timestamp": "{t1}",
      "type": "gemini",
      "content": "Running step {n}.",
      "model": "gemini-2.5-pro",
      "tokens": {{
        "input": 1000,
        "output": 20,
        "cached": 0,
        "thoughts": 0,
        "tool": 0,
        "total": 1020
      }},
      "toolCalls": [
        {{
          "id": "run_shell_command-{n}",
          "name": "run_shell_command",
          "args": {{
            "command": "./step.sh {n}"
          }},
          "result": [
            {{
              "functionResponse": {{
                "id": "run_shell_command-{n}",
                "name": "run_shell_command",
                "response": {{
                  "output": "{output}"
                }}
              }}
            }}
          ],
          "status": "success",
          "timestamp": "{t1}",
          "displayName": "Shell"
        }}
      ]
    }},
    {{
      "id": "a{n}",
      "timestamp": "{t2}",
      "type": "gemini",
      "content": "Step {n} done.",
      "model": "gemini-2.5-pro"
    }}"#,
            t0 = ts(3 * n),
            t1 = ts(3 * n + 1),
            t2 = ts(3 * n + 2),
        );
        w.write_all(turn.as_bytes())?;
        written += turn.len() as u64;
        n += 1;
    }
    write!(w, "\n  ]\n}}\n")?;
    w.flush()
}

fn compactions(out: &Path, count: u64, kept: bool) -> std::io::Result<()> {
    let (session, mut w) = session_file(out, "-srv-compacted")?;
    let mut buf = Vec::new();
    line(&mut buf, "user", &uuid(0x1, 0), None, &session, 0, "A long session");
    line(&mut buf, "assistant", &uuid(0x2, 0), Some(&uuid(0x1, 0)), &session, 1, "Ready.");
    let mut tip = uuid(0x2, 0);
    for n in 1..=count {
        let b = uuid(0x7, n);
        let t = 4 * n;
        let (s, p, a) = (uuid(0x8, n), uuid(0x1, n), uuid(0x2, n));
        // The turn before the boundary, kept after the summary.
        let (head, version) = (uuid(0x1, n - 1), if kept { "2.1.332" } else { "2.1.330" });
        let preserved = if kept {
            format!(
                r#","preservedSegment":{{"headUuid":"{head}","anchorUuid":"{s}","tailUuid":"{tip}"}},"preservedMessages":{{"anchorUuid":"{s}","uuids":["{head}","{tip}"],"allUuids":["{head}","{tip}"]}}"#
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            buf,
            r#"{{"parentUuid":null,"logicalParentUuid":"{tip}","isSidechain":false,"cwd":"/srv/jobs","sessionId":"{session}","version":"{version}","type":"system","subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{{"trigger":"auto","preTokens":1000{preserved}}},"uuid":"{b}","timestamp":"{}"}}"#,
            ts(t)
        );
        let _ = writeln!(
            buf,
            r#"{{"parentUuid":"{b}","isSidechain":false,"cwd":"/srv/jobs","sessionId":"{session}","version":"2.1.330","type":"user","isCompactSummary":true,"isVisibleInTranscriptOnly":true,"uuid":"{s}","timestamp":"{}","message":{{"role":"user","content":"This session is being continued. Summary {n}."}}}}"#,
            ts(t + 1)
        );
        line(&mut buf, "user", &p, Some(&s), &session, t + 2, &format!("Go on {n}"));
        line(&mut buf, "assistant", &a, Some(&p), &session, t + 3, &format!("Went on {n}."));
        tip = a;
        if buf.len() > 1 << 20 {
            w.write_all(&buf)?;
            buf.clear();
        }
    }
    w.write_all(&buf)?;
    w.flush()
}

fn nested_forks(out: &Path, count: u64) -> std::io::Result<()> {
    let (session, mut w) = session_file(out, "-srv-nested")?;
    let mut buf = Vec::new();
    let mut parent: Option<String> = None;
    for n in 0..count {
        let (p, a) = (uuid(0x1, n), uuid(0x2, n));
        line(&mut buf, "user", &p, parent.as_deref(), &session, 3 * n, &format!("Level {n}"));
        line(&mut buf, "assistant", &a, Some(&p), &session, 3 * n + 1, &format!("Level {n} done."));
        // The earlier prompt under the answer keeps its branch; the later one
        // starts a branch of its own, which holds the next fork.
        line(&mut buf, "user", &uuid(0x3, n), Some(&a), &session, 3 * n + 2, &format!("Side {n}"));
        parent = Some(a);
        if buf.len() > 1 << 20 {
            w.write_all(&buf)?;
            buf.clear();
        }
    }
    w.write_all(&buf)?;
    w.flush()
}

fn discover(dir: &Path) -> anyhow::Result<()> {
    let t = std::time::Instant::now();
    let archive = cctree::discover::discover(&[dir.to_path_buf()])?;
    let secs = t.elapsed().as_secs_f64();
    let files: usize = archive.projects.iter().map(|p| p.files.len()).sum();
    println!("{} projects, {files} files discovered in {secs:.3} s", archive.projects.len());
    Ok(())
}

fn main() {
    let args = Args::parse();
    let result = match &args.what {
        What::Sessions { out, count } => sessions(out, *count).map_err(anyhow::Error::from),
        What::Links { out, levels } => links(out, *levels).map_err(anyhow::Error::from),
        What::Siblings { out, count } => siblings(out, *count).map_err(anyhow::Error::from),
        What::BigSession { out, size_mb } => big_session(out, *size_mb).map_err(anyhow::Error::from),
        What::HugeLine { out, size_mb } => huge_line(out, *size_mb).map_err(anyhow::Error::from),
        What::ParallelCalls { out, count } => parallel_calls(out, *count).map_err(anyhow::Error::from),
        What::Rewinds { out, count } => rewinds(out, *count).map_err(anyhow::Error::from),
        What::GeminiParallelCalls { out, count } => gemini_parallel_calls(out, *count).map_err(anyhow::Error::from),
        What::GeminiRewinds { out, count } => gemini_rewinds(out, *count).map_err(anyhow::Error::from),
        What::GeminiJson { out, size_mb } => gemini_json(out, *size_mb).map_err(anyhow::Error::from),
        What::Compactions { out, count, kept } => compactions(out, *count, *kept).map_err(anyhow::Error::from),
        What::NestedForks { out, count } => nested_forks(out, *count).map_err(anyhow::Error::from),
        What::Discover { dir } => discover(dir),
    };
    if let Err(e) = result {
        eprintln!("gen_hostile: {e:#}");
        std::process::exit(1);
    }
}

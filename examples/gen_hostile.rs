//! Hostile archives for the scaling figures of issue 15 (`scripts/bench.sh`),
//! and a timer for discovery alone.
//!
//! ```text
//! cargo run --release --example gen_hostile -- sessions --out DIR --count 200000
//! cargo run --release --example gen_hostile -- links --out DIR --levels 24
//! cargo run --release --example gen_hostile -- siblings --out DIR --count 1000000
//! cargo run --release --example gen_hostile -- big-session --out DIR --size-mb 2000
//! cargo run --release --example gen_hostile -- huge-line --out DIR --size-mb 300
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
        What::Discover { dir } => discover(dir),
    };
    if let Err(e) = result {
        eprintln!("gen_hostile: {e:#}");
        std::process::exit(1);
    }
}

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
        What::Compactions { out, count, kept } => compactions(out, *count, *kept).map_err(anyhow::Error::from),
        What::NestedForks { out, count } => nested_forks(out, *count).map_err(anyhow::Error::from),
        What::Discover { dir } => discover(dir),
    };
    if let Err(e) = result {
        eprintln!("gen_hostile: {e:#}");
        std::process::exit(1);
    }
}

//! One session of any registered agent from a stream of bytes, for the
//! fuzz target `agent_reader` (fuzz/) and the suite's property test
//! (`hostile`): the first byte picks the agent (`cctree::agent::ALL`, so a
//! new agent is fuzzed as soon as it is registered, or the harness panics
//! asking for its layout), the rest is what its reader reads: a session
//! file's bytes where the agent keeps one, or, for an agent that keeps
//! its sessions in SQLite, the JSON of one row of its database (a copy of
//! the fixture's, the row picked by the second byte). Seeds: the fixtures,
//! as `fuzz/seed.sh` writes them.

use std::path::{Path, PathBuf};

/// The fixtures (the harness is compiled from `tests/` and from `fuzz/`).
fn fixtures() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let up = here.join("../tests/fixtures");
    if up.is_dir() { up } else { here.join("tests/fixtures") }
}

fn put(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// Copies the fixture database `from` to `to` (its WAL folded in) and
/// puts `json` in the column `col` of the row of `table` that `pick`
/// chooses.
fn database(from: &Path, to: &Path, table: &str, col: &str, pick: u8, json: &[u8]) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    // Read from a copy: SQLite writes beside a database it opens (`-shm`),
    // and nothing may be written into the fixtures.
    let copy = to.with_extension("fixture");
    std::fs::copy(from, &copy).unwrap();
    let wal = |p: &Path| PathBuf::from(format!("{}-wal", p.display()));
    if wal(from).is_file() {
        std::fs::copy(wal(from), wal(&copy)).unwrap();
    }
    let src = rusqlite::Connection::open(&copy).unwrap();
    src.execute("VACUUM INTO ?1", [to.display().to_string()]).unwrap();
    drop(src);
    for p in [copy.clone(), wal(&copy), PathBuf::from(format!("{}-shm", copy.display()))] {
        let _ = std::fs::remove_file(p);
    }
    let c = rusqlite::Connection::open(to).unwrap();
    let n: i64 = c.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0)).unwrap();
    let text = String::from_utf8_lossy(json);
    c.execute(
        &format!(
            "UPDATE {table} SET {col} = ?1 WHERE rowid = (SELECT rowid FROM {table} ORDER BY rowid LIMIT 1 OFFSET ?2)"
        ),
        rusqlite::params![text, i64::from(pick) % n.max(1)],
    )
    .unwrap();
}

/// The name of the agent the first byte picks.
pub fn agent_of(data: &[u8]) -> &'static str {
    let all = cctree::agent::ALL;
    all[usize::from(data.first().copied().unwrap_or(0)) % all.len()].name()
}

/// Writes the session the bytes describe under `root`; the folder to give
/// `cctree`.
pub fn write(root: &Path, data: &[u8]) -> PathBuf {
    let pick = data.get(1).copied().unwrap_or(0);
    let body = data.get(3..).unwrap_or(&[]);
    let fx = fixtures();
    match agent_of(data) {
        "claude" => {
            put(&root.join("claude/projects/-tmp-x/5e55a000-0000-4000-8000-000000000001.jsonl"), body);
            root.join("claude/projects")
        }
        "codex" => {
            put(
                &root.join(
                    "codex/sessions/2026/11/27/rollout-2026-11-27T01-56-18-01a21ab7-bd11-74a1-a3fe-d6c193d582cd.jsonl",
                ),
                body,
            );
            put(&root.join("codex/session_index.jsonl"), b"");
            root.join("codex/sessions")
        }
        "qwen" => {
            put(&root.join("qwen/projects/-tmp-w/chats/425f5b93-69ab-429b-902f-5c8d91fd4ff2.jsonl"), body);
            root.join("qwen")
        }
        "gemini" => {
            put(&root.join("gemini/tmp/work/.project_root"), b"/tmp/w");
            let ext = if pick & 1 == 0 { "jsonl" } else { "json" };
            put(&root.join(format!("gemini/tmp/work/chats/session-2026-11-27T01-56-d530d928.{ext}")), body);
            root.join("gemini/tmp")
        }
        "copilot" => {
            let dir = root.join("copilot/.copilot/session-state/2e2293f5-09b5-4fc4-a194-fc4828a19034");
            put(&dir.join("events.jsonl"), body);
            put(&dir.join("workspace.yaml"), b"id: 2e2293f5-09b5-4fc4-a194-fc4828a19034\ncwd: /tmp/w\nname: a name\n");
            root.join("copilot/.copilot")
        }
        "opencode" => {
            let (table, col) =
                if data.get(2).is_some_and(|b| b & 1 == 1) { ("message", "data") } else { ("part", "data") };
            database(
                &fx.join("opencode-1.18.33/tui/opencode.db"),
                &root.join("opencode/opencode.db"),
                table,
                col,
                pick,
                body,
            );
            root.join("opencode")
        }
        "crush" => {
            let project = root.join("src/demo");
            let (table, col) =
                if data.get(2).is_some_and(|b| b & 1 == 1) { ("sessions", "title") } else { ("messages", "parts") };
            database(
                &fx.join("crush-sqlite/project/.crush/crush.db"),
                &project.join(".crush/crush.db"),
                table,
                col,
                pick,
                body,
            );
            let list = format!(
                "{{\"projects\":[{{\"path\":{:?},\"data_dir\":{:?},\"last_accessed\":\"2026-08-21T10:00:00Z\"}}]}}",
                project.display().to_string(),
                project.join(".crush").display().to_string()
            );
            put(&root.join("crush/projects.json"), list.as_bytes());
            root.join("crush")
        }
        "pi" => {
            put(
                &root.join("pi/sessions/--tmp-w--/2026-12-02T01-01-52-697Z_01a23445-b2b5-74d9-b47f-e239abf007a4.jsonl"),
                body,
            );
            root.join("pi/sessions")
        }
        "aider" => {
            put(&root.join("aider/work/.aider.chat.history.md"), body);
            root.join("aider/work")
        }
        other => panic!("no fuzzing layout for the agent {other}: add one to tests/common/agent_files.rs"),
    }
}

/// Reads the session the bytes describe as every command does: discover,
/// load, `stats`, `check`, and `render` (in-process); nothing may panic.
/// The number of entries read.
pub fn run(data: &[u8]) -> usize {
    use clap::Parser;
    let root = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let input = write(root.path(), data);
    let discovered = cctree::discover::discover(std::slice::from_ref(&input)).expect("discover");
    let projects: Vec<cctree::project::Project> =
        discovered.projects.into_iter().map(cctree::project::Project::load).collect();
    let mut report =
        cctree::stats::ReportBuilder::new(cctree::stats::StatsOptions { detail: true, exclude_own_forks: false });
    for p in &projects {
        report.add(p);
        let _ = cctree::check::check_project(p);
    }
    let _ = report.finish();
    let entries = projects.iter().map(|p| p.entries.len()).sum();
    let out = root.path().join("site");
    let args: Vec<std::ffi::OsString> =
        vec!["cctree".into(), "-q".into(), "render".into(), input.into_os_string(), "-o".into(), out.into_os_string()];
    cctree::run::run(cctree::cli::Cli::parse_from(args)).expect("render");
    entries
}

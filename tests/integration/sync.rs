//! `cctree sync`: the append-only archive. Every case runs the binary on a
//! source it builds in a temporary `~/.claude` (projects + file-history) and
//! checks the archive byte for byte; the property test drives the library
//! through random appends, deletions and rewrites.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, SystemTime};

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::support::{cctree, example_archive};

const P: &str = "-home-me-app";
const S1: &str = "5e551000-0000-4000-8000-000000000001";
const S2: &str = "5e551000-0000-4000-8000-000000000002";
const S3: &str = "5e551000-0000-4000-8000-000000000003";

/// A session of `n` prompt/reply pairs; uuids and texts carry `tag`.
fn session(sid: &str, tag: &str, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut parent: Option<String> = None;
    for i in 0..n {
        let (u, a) = (format!("{tag}-u{i:03}"), format!("{tag}-a{i:03}"));
        let ts = |s: usize| format!("2026-01-01T10:{:02}:{:02}.000Z", (i * 2 + s) / 60 % 60, (i * 2 + s) % 60);
        out.push(
            json!({"type":"user","sessionId":sid,"uuid":u,"parentUuid":parent,"timestamp":ts(0),"cwd":"/home/me/app",
                "message":{"role":"user","content":format!("prompt {tag} number {i} about the weather")}})
            .to_string(),
        );
        out.push(
            json!({"type":"assistant","sessionId":sid,"uuid":a,"parentUuid":u,"timestamp":ts(1),"cwd":"/home/me/app",
                "message":{"id":format!("msg-{tag}-{i}"),"model":"claude","role":"assistant",
                "content":[{"type":"text","text":format!("reply {tag} number {i}")}]}})
            .to_string(),
        );
        parent = Some(a);
    }
    out
}

fn title(sid: &str, t: &str) -> String {
    json!({"type":"custom-title","customTitle":t,"sessionId":sid}).to_string()
}

fn text(lines: &[String]) -> Vec<u8> {
    lines.iter().flat_map(|l| format!("{l}\n").into_bytes()).collect()
}

/// A `~/.claude` with projects and file-history, and an archive beside it.
struct Env {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    src: PathBuf,
    fh: PathBuf,
    arch: PathBuf,
}

impl Env {
    fn new() -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        let src = root.join("claude/projects");
        let fh = root.join("claude/file-history");
        std::fs::create_dir_all(&src).unwrap();
        Env { arch: root.join("data/cctree/projects"), _tmp: tmp, root, src, fh }
    }

    fn put(&self, rel: &str, bytes: &[u8]) {
        let p = self.src.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }

    fn put_fh(&self, rel: &str, bytes: &[u8]) {
        let p = self.fh.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }

    fn append(&self, rel: &str, bytes: &[u8]) {
        use std::io::Write;
        std::fs::OpenOptions::new().append(true).open(self.src.join(rel)).unwrap().write_all(bytes).unwrap();
    }

    fn run(&self, args: &[&str]) -> Output {
        cctree().arg("sync").arg(&self.src).arg("--to").arg(&self.arch).args(args).output().unwrap()
    }

    /// A sync that must succeed; its JSON report.
    fn sync(&self) -> Value {
        let out = self.run(&["--json"]);
        assert!(out.status.success(), "sync failed: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn archived(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.arch.join(rel)).unwrap_or_else(|e| panic!("{rel} not in the archive: {e}"))
    }

    fn stats(&self, dir: &Path) -> Value {
        let out = cctree().args(["stats", "--json", "--detail"]).arg(dir).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

/// Every file under `dir`: path → bytes.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    if !dir.exists() {
        return out;
    }
    for e in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let e = e.unwrap();
        if e.file_type().is_file() {
            let rel = e.path().strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            out.insert(rel, std::fs::read(e.path()).unwrap());
        }
    }
    out
}

/// Every file and directory under `dir` with its length, mtime and inode.
fn stamps(dir: &Path) -> BTreeMap<String, (u64, SystemTime, u64)> {
    use std::os::unix::fs::MetadataExt;
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .map(|e| {
            let m = e.metadata().unwrap();
            (e.path().display().to_string(), (m.len(), m.modified().unwrap(), m.ino()))
        })
        .collect()
}

/// The kept versions of `rel` in the archive.
fn kept_versions(arch: &Path, rel: &str) -> Vec<Vec<u8>> {
    let p = arch.join(rel);
    let live = p.file_name().unwrap().to_string_lossy().into_owned();
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir(p.parent().unwrap()) else { return out };
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if cctree::layout::split_kept(&name).as_deref() == Some(live.as_str()) {
            out.push(std::fs::read(e.path()).unwrap());
        }
    }
    out
}

fn set_mtime(path: &Path, t: SystemTime) {
    std::fs::File::options().write(true).open(path).unwrap().set_modified(t).unwrap();
}

/// The example archive plus a sub-agent's side files and file-history backups.
fn rich_env() -> Env {
    let env = Env::new();
    for (rel, bytes) in tree(&example_archive()) {
        env.put(&rel, &bytes);
    }
    env.put(&format!("{P}/{S1}.jsonl"), &text(&session(S1, "s1", 4)));
    env.put(&format!("{P}/{S1}/subagents/agent-a1.jsonl"), b"{\"type\":\"user\",\"isSidechain\":true}\n");
    env.put(&format!("{P}/{S1}/subagents/agent-a1.meta.json"), br#"{"agentType":"Explore","description":"d"}"#);
    env.put(&format!("{P}/{S1}/tool-results/toolu_01.txt"), b"a long tool output");
    env.put_fh(&format!("{S1}/0123abcd@v1"), b"fn main() {}\n");
    env
}

#[test]
fn new_files_are_copied_and_a_second_run_writes_nothing() {
    let env = rich_env();
    let report = env.sync();
    let source = tree(&env.src);
    let archive = tree(&env.arch);
    for (rel, bytes) in &source {
        assert_eq!(archive.get(rel), Some(bytes), "{rel} copied byte for byte");
    }
    assert_eq!(report["new"]["files"], source.len() + 1, "every file, and the file-history backup");
    assert_eq!(tree(&env.root.join("data/cctree/file-history")), tree(&env.fh), "file-history mirrored beside");
    // Idempotent: nothing at all is written, and it says so.
    let before = stamps(&env.root.join("data"));
    let out = env.run(&[]);
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.starts_with("nothing to do: the archive"), "{said}");
    assert_eq!(stamps(&env.root.join("data")), before, "a no-op sync writes nothing");
    // The archive reads like the source.
    let (a, s) = (env.stats(&env.arch), env.stats(&env.src));
    assert_eq!(a["projects_detail"][1]["conversations"], {
        let mut c = s["projects_detail"][1]["conversations"].clone();
        for conv in c.as_array_mut().unwrap() {
            conv["only_in_archive"] = json!(false);
        }
        c
    });
    assert_eq!(a["archive"]["only_in_archive"]["files"], 0);
}

#[test]
fn a_dry_run_writes_nothing_and_says_what_it_would_do() {
    let env = rich_env();
    let out = env.run(&["--dry-run"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("would add"), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(!env.root.join("data").exists(), "nothing created");
}

#[test]
fn grown_files_get_their_new_complete_lines_and_a_torn_line_waits() {
    let env = Env::new();
    let rel = format!("{P}/{S1}.jsonl");
    let lines = session(S1, "g", 6);
    env.put(&rel, &text(&lines[..4]));
    env.sync();
    // Two new lines and half of a third, as the client is writing it.
    let torn = &lines[6].as_bytes()[..40];
    env.append(&rel, &text(&lines[4..6]));
    env.append(&rel, torn);
    let r = env.sync();
    assert_eq!((r["grown"]["files"].as_u64(), r["grown"]["lines"].as_u64()), (Some(1), Some(2)));
    assert_eq!(env.archived(&rel), text(&lines[..6]), "whole lines only");
    let r = env.sync();
    assert_eq!(r["waiting"], json!([rel]), "the torn line waits");
    assert_eq!(r["grown"]["files"], 0);
    // The client finishes the line.
    env.append(&rel, &lines[6].as_bytes()[40..]);
    env.append(&rel, b"\n");
    env.sync();
    assert_eq!(env.archived(&rel), text(&lines[..7]));
    assert!(kept_versions(&env.arch, &rel).is_empty(), "growing never keeps a version");
}

#[test]
fn a_torn_last_line_left_for_long_is_copied_as_it_is() {
    let env = Env::new();
    let rel = format!("{P}/{S1}.jsonl");
    let mut bytes = text(&session(S1, "t", 2));
    bytes.extend_from_slice(b"{\"type\":\"user\",\"uuid\":\"cut-short");
    env.put(&rel, &bytes);
    set_mtime(&env.src.join(&rel), SystemTime::now() - Duration::from_secs(2 * 3600));
    env.sync();
    assert_eq!(env.archived(&rel), bytes, "a writer that died two hours ago will not finish the line");
    // If the client comes back and appends after it, the archive follows.
    env.append(&rel, b"\n");
    env.sync();
    assert_eq!(env.archived(&rel), [bytes, b"\n".to_vec()].concat());
}

#[test]
fn deleted_files_stay_and_stats_says_what_exists_only_in_the_archive() {
    let env = Env::new();
    let (a, b) = (format!("{P}/{S1}.jsonl"), format!("{P}/{S2}.jsonl"));
    env.put(&a, &text(&session(S1, "d1", 3)));
    env.put(&b, &text(&session(S2, "d2", 2)));
    env.put_fh(&format!("{S2}/beef@v1"), b"old code\n");
    env.sync();
    std::fs::remove_file(env.src.join(&b)).unwrap();
    std::fs::remove_dir_all(env.fh.join(S2)).unwrap();
    let out = env.run(&[]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("the archive keeps 2 files the source no longer has"), "{said}");
    assert!(said.contains(&b), "{said}");
    assert_eq!(env.archived(&b), text(&session(S2, "d2", 2)));
    assert!(env.root.join(format!("data/cctree/file-history/{S2}/beef@v1")).is_file());
    let st = env.stats(&env.arch);
    let only = &st["archive"]["only_in_archive"];
    assert_eq!((only["files"].as_u64(), only["lines"].as_u64(), only["nodes"].as_u64()), (Some(1), Some(4), Some(4)));
    assert_eq!(only["conversations"], 1);
    let convs = st["projects_detail"][0]["conversations"].as_array().unwrap();
    let flags: BTreeMap<&str, bool> =
        convs.iter().map(|c| (c["root"].as_str().unwrap(), c["only_in_archive"].as_bool().unwrap())).collect();
    assert_eq!(flags, BTreeMap::from([("d1-u000", false), ("d2-u000", true)]));
    let table = cctree().arg("stats").arg(&env.arch).output().unwrap();
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(table.contains("kept after the source deleted it: 1 file (4 lines"), "{table}");
    // A deleted file that comes back is no longer only in the archive.
    env.put(&b, &text(&session(S2, "d2", 2)));
    env.sync();
    assert_eq!(env.stats(&env.arch)["archive"]["only_in_archive"]["files"], 0);
}

#[test]
fn a_file_rewritten_shorter_keeps_its_archived_version_and_the_new_title_wins() {
    let env = Env::new();
    let rel = format!("{P}/{S1}.jsonl");
    let mut old = session(S1, "r", 5);
    old.push(title(S1, "Zeta old name"));
    env.put(&rel, &text(&old));
    env.sync();
    // The client prunes the file: the first two turns and a new title.
    let mut new = session(S1, "r", 2);
    new.push(title(S1, "Alpha new name"));
    env.put(&rel, &text(&new));
    let r = env.sync();
    assert_eq!(r["rewritten"]["files"], 1);
    assert_eq!(r["changes"][0]["why"], "shrank");
    assert_eq!(env.archived(&rel), text(&new));
    assert_eq!(kept_versions(&env.arch, &rel), [text(&old)]);
    let st = env.stats(&env.arch);
    let conv = &st["projects_detail"][0]["conversations"][0];
    assert_eq!(conv["messages"], 10, "both versions together lose nothing");
    assert_eq!(st["nodes"], 10, "and add nothing");
    assert_eq!(conv["title"], "Alpha new name", "the live file's title wins");
    assert_eq!(st["archive"]["only_in_archive"]["kept_versions"], 1);
    assert_eq!(st["archive"]["only_in_archive"]["nodes"], 6, "the pruned turns exist only here");
    // Same rewrite again: the kept version is not duplicated.
    env.sync();
    assert_eq!(kept_versions(&env.arch, &rel).len(), 1);
}

#[test]
fn a_file_rewritten_with_the_same_size_and_mtime_is_found_by_its_hash() {
    let env = Env::new();
    let rel = format!("{P}/{S1}.jsonl");
    let old = text(&session(S1, "h", 3));
    env.put(&rel, &old);
    env.sync();
    let path = env.src.join(&rel);
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    let new = String::from_utf8(old.clone()).unwrap().replace("weather", "WEATHER").into_bytes();
    assert_eq!(new.len(), old.len());
    std::fs::write(&path, &new).unwrap();
    set_mtime(&path, mtime);
    let r = env.sync();
    assert_eq!(r["rewritten"]["files"], 1);
    assert_eq!(r["changes"][0]["why"], "rewritten");
    assert_eq!(env.archived(&rel), new);
    assert_eq!(kept_versions(&env.arch, &rel), [old]);
}

#[test]
fn a_relocated_session_loses_nothing() {
    // The client moves a session (file and folder) to a worktree's project
    // directory and stamps it `relocated`.
    let env = Env::new();
    let wt = "-home-me-app--claude-worktrees-feature";
    let lines = session(S3, "m", 3);
    env.put(&format!("{P}/{S3}.jsonl"), &text(&lines));
    env.put(&format!("{P}/{S3}/subagents/agent-a9.jsonl"), b"{\"type\":\"user\",\"isSidechain\":true}\n");
    env.put(&format!("{P}/{S1}.jsonl"), &text(&session(S1, "stay", 1)));
    env.sync();
    std::fs::create_dir_all(env.src.join(wt)).unwrap();
    std::fs::rename(env.src.join(format!("{P}/{S3}.jsonl")), env.src.join(format!("{wt}/{S3}.jsonl"))).unwrap();
    std::fs::rename(env.src.join(format!("{P}/{S3}")), env.src.join(format!("{wt}/{S3}"))).unwrap();
    let stamp = json!({"type":"relocated","sessionId":S3,"relocatedCwd":"/home/me/app/.claude/worktrees/feature"});
    env.append(&format!("{wt}/{S3}.jsonl"), format!("{stamp}\n").as_bytes());
    let r = env.sync();
    assert_eq!(r["moved"].as_array().unwrap().len(), 2, "{r}");
    assert_eq!(env.archived(&format!("{P}/{S3}.jsonl")), text(&lines), "the old place keeps what it had");
    assert_eq!(
        env.archived(&format!("{wt}/{S3}.jsonl")),
        std::fs::read(env.src.join(format!("{wt}/{S3}.jsonl"))).unwrap()
    );
    assert!(env.arch.join(format!("{wt}/{S3}/subagents/agent-a9.jsonl")).is_file());
    let st = env.stats(&env.arch);
    assert_eq!(st["archive"]["moved_at_source"], 2);
    assert_eq!(st["archive"]["only_in_archive"]["files"], 0, "the source still has it, elsewhere");
}

#[test]
fn sub_agents_sidecars_tool_results_and_file_history_are_kept_too() {
    let env = rich_env();
    env.sync();
    let meta = format!("{P}/{S1}/subagents/agent-a1.meta.json");
    let agent = format!("{P}/{S1}/subagents/agent-a1.jsonl");
    let tool = format!("{P}/{S1}/tool-results/toolu_01.txt");
    // The sidecar is rewritten, the agent grows, the tool output and a backup are pruned.
    env.put(&meta, br#"{"agentType":"Explore","description":"new","toolUseId":"toolu_9"}"#);
    env.append(&agent, b"{\"type\":\"assistant\",\"isSidechain\":true}\n");
    std::fs::remove_file(env.src.join(&tool)).unwrap();
    std::fs::remove_file(env.fh.join(format!("{S1}/0123abcd@v1"))).unwrap();
    env.put_fh(&format!("{S1}/0123abcd@v2"), b"fn main() { run() }\n");
    let r = env.sync();
    assert_eq!((r["rewritten"]["files"].as_u64(), r["grown"]["files"].as_u64()), (Some(1), Some(1)), "{r}");
    assert_eq!(r["new"]["files"], 1, "the new backup");
    assert_eq!(kept_versions(&env.arch, &meta), [br#"{"agentType":"Explore","description":"d"}"#.to_vec()]);
    assert_eq!(env.archived(&tool), b"a long tool output");
    let fh = env.root.join("data/cctree/file-history").join(S1);
    assert!(fh.join("0123abcd@v1").is_file() && fh.join("0123abcd@v2").is_file());
    // The live sidecar is the one read; the kept one is not taken for a sidecar.
    let project = cctree::agent::claude::discover::scan_project(&env.arch.join(P)).unwrap();
    assert_eq!(project.agent_meta["a1"].tool_use_id.as_deref(), Some("toolu_9"));
    assert!(project.tool_results.keys().any(|k| k.ends_with("toolu_01.txt")));
}

/// A line of the client's prompt history.
fn prompt_line(i: usize) -> String {
    json!({"display":format!("prompt {i}"),"pastedContents":{},"timestamp":1_760_000_000_000_i64 + i as i64,
        "project":"/home/me/app","sessionId":S1})
    .to_string()
}

#[test]
fn the_prompt_history_keeps_every_line_ever_seen_once_also_when_the_client_prunes_it() {
    let env = Env::new();
    env.put(&format!("{P}/{S1}.jsonl"), &text(&session(S1, "h", 1)));
    let hist = env.root.join("claude/history.jsonl");
    let kept = env.root.join("data/cctree/history.jsonl");
    let lines = |r: std::ops::Range<usize>| text(&r.map(prompt_line).collect::<Vec<_>>());
    std::fs::write(&hist, lines(0..3)).unwrap();
    let r = env.sync();
    assert_eq!(r["history"], kept.display().to_string(), "{r}");
    assert_eq!(std::fs::read(&kept).unwrap(), lines(0..3), "copied beside the archive");
    // Appended, with a torn last line: the complete lines only.
    let mut grown = lines(0..5);
    grown.extend(b"{\"display\":\"half");
    std::fs::write(&hist, &grown).unwrap();
    let r = env.sync();
    assert_eq!(r["grown"]["lines"], 2, "{r}");
    assert_eq!(std::fs::read(&kept).unwrap(), lines(0..5));
    // The client prunes its oldest lines and goes on: the new lines are added, nothing is kept in versions.
    std::fs::write(&hist, lines(3..7)).unwrap();
    let r = env.sync();
    assert_eq!((r["grown"]["lines"].as_u64(), r["rewritten"]["files"].as_u64()), (Some(2), Some(0)), "{r}");
    assert_eq!(std::fs::read(&kept).unwrap(), lines(0..7), "every line ever seen, each once");
    let text_report = env.run(&[]);
    let shown = String::from_utf8_lossy(&text_report.stdout);
    assert!(shown.contains("nothing to do"), "a merged history with nothing new writes nothing: {shown}");
    let names: Vec<String> = std::fs::read_dir(kept.parent().unwrap())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.contains("cctree-kept") || n.contains("cctree-tmp")), "{names:?}");
    // Read back as plain data.
    let h = cctree::agent::claude::history::read(&kept).unwrap();
    assert_eq!(h.entries.len(), 7);
    assert!(h.warnings.is_empty());
    assert_eq!(h.of_session(S1).map(|e| e.prompt.as_str()).last(), Some("prompt 6"));
    // The client deletes it: the archive keeps it.
    std::fs::remove_file(&hist).unwrap();
    env.sync();
    assert_eq!(std::fs::read(&kept).unwrap(), lines(0..7));
    assert_eq!(std::fs::read(&hist).ok(), None, "nothing written into the source");
}

#[test]
fn one_project_directory_is_synced_without_the_history_of_every_project() {
    let env = Env::new();
    env.put(&format!("{P}/{S1}.jsonl"), &text(&session(S1, "h", 1)));
    std::fs::write(env.root.join("claude/history.jsonl"), text(&[prompt_line(0)])).unwrap();
    let out = cctree().arg("sync").arg(env.src.join(P)).arg("--to").arg(&env.arch).arg("--json").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!env.root.join("data/cctree/history.jsonl").exists());
}

#[test]
fn an_archive_whose_history_would_be_the_clients_own_is_refused() {
    let env = Env::new();
    env.put(&format!("{P}/{S1}.jsonl"), &text(&session(S1, "x", 1)));
    let hist = env.root.join("claude/history.jsonl");
    std::fs::write(&hist, text(&[prompt_line(0)])).unwrap();
    let out = cctree().arg("sync").arg(&env.src).arg("--to").arg(env.root.join("claude/archive")).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("history.jsonl would be the client's own") && err.contains("--to"), "{err}");
    assert_eq!(std::fs::read(&hist).unwrap(), text(&[prompt_line(0)]));
    assert!(!env.root.join("claude/archive").exists(), "nothing written");
}

#[test]
fn an_archive_inside_the_source_is_refused() {
    let env = Env::new();
    env.put(&format!("{P}/{S1}.jsonl"), &text(&session(S1, "x", 1)));
    for to in [env.src.join("archive"), env.root.join("claude")] {
        let out = cctree().arg("sync").arg(&env.src).arg("--to").arg(&to).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("overlap"), "{}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(tree(&env.root.join("claude")).len(), 1, "nothing written into the source");
}

/// One source history: base state, then changes of every kind.
fn scenario_base(env: &Env) {
    env.put(&format!("{P}/{S1}.jsonl"), &text(&session(S1, "k1", 6)));
    env.put(&format!("{P}/{S2}.jsonl"), &text(&session(S2, "k2", 6)));
    env.put(&format!("{P}/{S3}.jsonl"), &text(&session(S3, "k3", 3)));
    env.put_fh(&format!("{S1}/aa@v1"), b"v1\n");
}

fn scenario_changes(env: &Env) {
    env.append(&format!("{P}/{S1}.jsonl"), &text(&session(S1, "k1", 9)[12..]));
    env.put(&format!("{P}/{S2}.jsonl"), &text(&session(S2, "k2", 2)));
    std::fs::remove_file(env.src.join(format!("{P}/{S3}.jsonl"))).unwrap();
    env.put(&format!("{P}/{S3}/subagents/agent-n.jsonl"), &text(&session(S3, "k4", 2)));
    env.put(&format!("-other/{S3}.jsonl"), &text(&session(S3, "k5", 40)));
    env.put_fh(&format!("{S1}/aa@v2"), b"v2\n");
}

/// The lines of every `.jsonl` in a tree (what must never go missing).
fn all_lines(t: &BTreeMap<String, Vec<u8>>) -> BTreeSet<Vec<u8>> {
    t.iter()
        .filter(|(k, _)| k.ends_with(".jsonl"))
        .flat_map(|(_, v)| v.split_inclusive(|b| *b == b'\n').filter(|l| l.ends_with(b"\n")).map(<[u8]>::to_vec))
        .collect()
}

#[test]
fn a_sync_killed_at_any_step_leaves_a_readable_archive_that_the_next_run_completes() {
    // The reference: the same history synced without interruption.
    let reference = Env::new();
    scenario_base(&reference);
    reference.sync();
    scenario_changes(&reference);
    reference.sync();
    let want = tree(&reference.root.join("data"));
    let mut killed = 0;
    for step in 1.. {
        let env = Env::new();
        scenario_base(&env);
        env.sync();
        let before = all_lines(&tree(&env.arch));
        scenario_changes(&env);
        let mut sources = before.clone();
        sources.extend(all_lines(&tree(&env.src)));
        let out = cctree()
            .args(["-j", "1", "sync"])
            .arg(&env.src)
            .arg("--to")
            .arg(&env.arch)
            .env(cctree::sync::fsops::FAULT_ENV, format!("abort:{step}"))
            .output()
            .unwrap();
        if out.status.success() {
            break;
        }
        killed += 1;
        // Readable, nothing lost, nothing invented.
        let stats = cctree().args(["stats", "--json"]).arg(&env.arch).output().unwrap();
        assert!(stats.status.success(), "step {step}: {}", String::from_utf8_lossy(&stats.stderr));
        let now = all_lines(&tree(&env.arch));
        assert!(before.is_subset(&now), "step {step}: a line was lost");
        assert!(now.iter().all(|l| sources.contains(l)), "step {step}: a line that no source had");
        // The next run completes it.
        env.sync();
        let mut got = tree(&env.root.join("data"));
        let mut reference = want.clone();
        for t in [&mut got, &mut reference] {
            t.remove("cctree/projects/.cctree-sync/record.json");
        }
        assert_eq!(got.keys().collect::<Vec<_>>(), reference.keys().collect::<Vec<_>>(), "step {step}");
        assert!(got == reference, "step {step}: the archive differs from an uninterrupted sync");
    }
    assert!(killed > 10, "the fault hook hit only {killed} steps");
}

#[test]
fn a_sync_killed_by_a_signal_is_completed_by_the_next_run() {
    let env = Env::new();
    for i in 0..40 {
        let sid = format!("5e551000-0000-4000-8000-{i:012}");
        env.put(&format!("{P}/{sid}.jsonl"), &text(&session(&sid, &format!("big{i}"), 200)));
    }
    let mut seed = 0x2545_f491_u64;
    for round in 0..6 {
        let mut child = cctree().args(["-q", "sync"]).arg(&env.src).arg("--to").arg(&env.arch).spawn().unwrap();
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        std::thread::sleep(Duration::from_millis(5 + (seed >> 33) % 80));
        let _ = child.kill();
        let _ = child.wait();
        // Whatever it wrote, the archive reads.
        let stats = cctree().args(["stats", "--json"]).arg(&env.arch).output().unwrap();
        assert!(stats.status.success() || !env.arch.exists(), "round {round}");
        env.append(
            &format!("{P}/5e551000-0000-4000-8000-000000000000.jsonl"),
            &text(&session(S1, &format!("r{round}"), 1)),
        );
    }
    env.sync();
    let (src, arch) = (tree(&env.src), tree(&env.arch));
    for (rel, bytes) in &src {
        assert_eq!(arch.get(rel), Some(bytes), "{rel}");
    }
    assert!(arch.keys().all(|k| src.contains_key(k) || k.starts_with(".cctree-sync")), "no kept version, no leftover");
}

#[test]
fn a_second_sync_waits_for_the_first() {
    let env = Env::new();
    env.put(&format!("{P}/{S1}.jsonl"), &text(&session(S1, "w", 2)));
    std::fs::create_dir_all(&env.arch).unwrap();
    let held = cctree::sync::lock_archive(&env.arch).unwrap();
    let mut child = cctree()
        .arg("sync")
        .arg(&env.src)
        .arg("--to")
        .arg(&env.arch)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert!(child.try_wait().unwrap().is_none(), "the second sync waits while the lock is held");
    assert!(!env.arch.join(P).exists(), "and writes nothing meanwhile");
    drop(held);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("waiting for it to finish"));
    assert_eq!(env.archived(&format!("{P}/{S1}.jsonl")), text(&session(S1, "w", 2)));
}

#[test]
fn two_syncs_at_once_both_succeed_and_agree() {
    let env = Env::new();
    for i in 0..40 {
        let sid = format!("5e551000-0000-4000-8000-{i:012}");
        env.put(&format!("{P}/{sid}.jsonl"), &text(&session(&sid, &format!("c{i}"), 100)));
    }
    let spawn = || cctree().args(["sync", "--json"]).arg(&env.src).arg("--to").arg(&env.arch).output();
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(spawn);
        let b = s.spawn(spawn);
        (a.join().unwrap().unwrap(), b.join().unwrap().unwrap())
    });
    assert!(a.status.success() && b.status.success());
    let (ra, rb): (Value, Value) =
        (serde_json::from_slice(&a.stdout).unwrap(), serde_json::from_slice(&b.stdout).unwrap());
    assert_eq!(
        ra["new"]["files"].as_u64().unwrap() + rb["new"]["files"].as_u64().unwrap(),
        40,
        "each file copied once"
    );
    assert_eq!(ra["rewritten"]["files"].as_u64().unwrap() + rb["rewritten"]["files"].as_u64().unwrap(), 0);
    let (src, arch) = (tree(&env.src), tree(&env.arch));
    assert_eq!(arch.len(), src.len() + 2, "the files, the lock and the record");
    assert!(src.iter().all(|(k, v)| arch.get(k) == Some(v)));
}

/// A source that lives through every kind of change; the union keeps each state synced.
fn history(env: &Env, union: &Path) {
    let snapshot = |i: usize| {
        for (rel, bytes) in tree(&env.src) {
            let (project, rest) = rel.split_once('/').unwrap();
            let end = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |p| p + 1);
            let dst = union.join(project).join(format!("v{i}")).join(rest);
            std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
            std::fs::write(dst, &bytes[..end]).unwrap();
        }
    };
    scenario_base(env);
    env.put(&format!("{P}/{S1}/subagents/agent-x1.jsonl"), &text(&session(S1, "ag", 2)));
    // The bundled example brings rewinds, a resume, summaries, a compaction and an agent.
    for (rel, bytes) in tree(&example_archive()) {
        env.put(&rel, &bytes);
    }
    env.sync();
    snapshot(0);
    scenario_changes(env);
    env.sync();
    snapshot(1);
    // Cleanup deletes everything; one session comes back rewritten.
    for rel in tree(&env.src).keys() {
        std::fs::remove_file(env.src.join(rel)).unwrap();
    }
    env.put(
        &format!("{P}/{S2}.jsonl"),
        &String::from_utf8(text(&session(S2, "k2", 2))).unwrap().replace("reply", "REPLY").into_bytes(),
    );
    env.sync();
    snapshot(2);
}

/// `stats --detail` without what only the archive view adds.
fn structure(v: &Value) -> Vec<Value> {
    let mut projects = Vec::new();
    for p in v["projects_detail"].as_array().unwrap() {
        let mut convs: Vec<Value> = p["conversations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let branches: Vec<Value> = c["branches"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|b| json!([b["id"], b["leaf"], b["fork_point"], b["messages"]]))
                    .collect();
                json!({"root": c["root"], "messages": c["messages"], "fork_points": c["fork_points"], "branches": branches})
            })
            .collect();
        convs.sort_by_key(|c| c["root"].to_string());
        projects.push(json!({"name": p["name"], "nodes": p["nodes"], "agents": p["agents"].as_array().unwrap().len(), "conversations": convs}));
    }
    projects
}

#[test]
fn the_archive_holds_the_union_of_everything_the_source_ever_held_and_renders_it() {
    let env = Env::new();
    let union = env.root.join("union");
    history(&env, &union);
    assert!(tree(&env.src).len() == 1, "the source forgot almost everything");
    let (arch, all) = (env.stats(&env.arch), env.stats(&union));
    assert_eq!(structure(&arch), structure(&all));
    assert!(arch["conversations"].as_u64().unwrap() >= 6);
    assert!(arch["fork_points"].as_u64().unwrap() >= 2 && arch["agents"].as_u64().unwrap() >= 2);
    // A render of the archive shows every conversation and every prompt ever synced.
    let site = env.root.join("site");
    let out = cctree().args(["render", "-o"]).arg(&site).arg(&env.arch).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let pages: String = tree(&site)
        .into_iter()
        .filter(|(k, _)| k.ends_with(".html"))
        .map(|(_, v)| String::from_utf8(v).unwrap())
        .collect();
    for c in all["projects_detail"].as_array().unwrap().iter().flat_map(|p| p["conversations"].as_array().unwrap()) {
        let root = c["root"].as_str().unwrap();
        assert!(pages.contains(&format!("id=\"m-{root}\"")), "conversation {root} on no page");
    }
    let mut checked = 0;
    for line in all_lines(&tree(&union)) {
        let v: Value = serde_json::from_slice(&line).unwrap();
        // The generated sessions' prompts (plain text, shown as they are).
        if let Some(prompt) = v["message"]["content"].as_str().filter(|p| p.starts_with("prompt ")) {
            assert!(pages.contains(prompt), "prompt {prompt:?} on no page");
            checked += 1;
        }
    }
    assert!(checked >= 50, "{checked} prompts checked");
}

#[test]
fn render_sync_and_plain_cctree_render_the_archive() {
    let env = Env::new();
    let (a, b) = (format!("{P}/{S1}.jsonl"), format!("{P}/{S2}.jsonl"));
    env.put(&a, &text(&session(S1, "first", 1)));
    env.put(&b, &text(&session(S2, "second", 1)));
    let with_env = |cmd: &mut std::process::Command| {
        cmd.env("CLAUDE_CONFIG_DIR", env.root.join("claude")).env("CCTREE_ARCHIVE", &env.arch).current_dir(&env.root);
    };
    let mut render = cctree();
    render.args(["render", "--sync", "-o", "site"]);
    with_env(&mut render);
    let out = render.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("added 2 new files"));
    // The client deletes a session; plain `cctree` syncs, then renders the archive.
    std::fs::remove_file(env.src.join(&b)).unwrap();
    env.put(&a, &text(&session(S1, "first", 2)));
    let mut plain = cctree();
    with_env(&mut plain);
    let out = plain.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let pages: String = tree(&env.root.join("cctree-site"))
        .into_iter()
        .filter(|(k, _)| k.ends_with(".html"))
        .map(|(_, v)| String::from_utf8_lossy(&v).into_owned())
        .collect();
    assert!(pages.contains("prompt second number 0"), "the deleted session is still on the site");
    assert!(pages.contains("prompt first number 1"), "the new turn too");
}

/// One change at the source in the property test.
#[derive(Debug, Clone)]
enum Change {
    /// Append `n` lines, the last one torn when `torn`.
    Append {
        file: usize,
        n: usize,
        torn: bool,
    },
    /// Finish a torn line.
    Finish {
        file: usize,
    },
    Delete {
        file: usize,
    },
    /// Keep the first `keep` lines (a shorter rewrite).
    Truncate {
        file: usize,
        keep: usize,
    },
    /// Same size, other bytes, same mtime.
    Flip {
        file: usize,
    },
    /// Other lines entirely.
    Replace {
        file: usize,
        n: usize,
    },
    Sync,
}

/// The files the property test changes, relative to the projects directory:
/// transcripts, the prompt history and a file-history backup beside it.
const FILES: [&str; 5] =
    ["p/a.jsonl", "p/s/subagents/agent-x.jsonl", "q/b.jsonl", "../history.jsonl", "../file-history/s/0123abcd@v1"];
const HISTORY: usize = 3;
const BACKUP: usize = 4;

fn change() -> impl Strategy<Value = Change> {
    let f = 0..FILES.len();
    prop_oneof![
        4 => (f.clone(), 1usize..4, any::<bool>()).prop_map(|(file, n, torn)| Change::Append { file, n, torn }),
        1 => f.clone().prop_map(|file| Change::Finish { file }),
        1 => f.clone().prop_map(|file| Change::Delete { file }),
        1 => (f.clone(), 0usize..4).prop_map(|(file, keep)| Change::Truncate { file, keep }),
        1 => f.clone().prop_map(|file| Change::Flip { file }),
        1 => (f, 1usize..3).prop_map(|(file, n)| Change::Replace { file, n }),
        3 => Just(Change::Sync),
    ]
}

/// The source as the property test keeps it: bytes per file.
struct Model {
    dir: PathBuf,
    next: usize,
}

impl Model {
    fn line(&mut self) -> Vec<u8> {
        self.next += 1;
        format!("{{\"type\":\"user\",\"uuid\":\"n{:05}\",\"pad\":\"{}\"}}\n", self.next, "x".repeat(self.next % 7))
            .into_bytes()
    }
    fn read(&self, f: usize) -> Option<Vec<u8>> {
        std::fs::read(self.dir.join(FILES[f])).ok()
    }
    fn write(&self, f: usize, bytes: &[u8]) {
        let p = self.dir.join(FILES[f]);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    fn apply(&mut self, c: &Change) {
        match *c {
            Change::Append { file, n, torn } => {
                let mut b = self.read(file).unwrap_or_default();
                for _ in 0..n {
                    b.extend(self.line());
                }
                if torn {
                    b.pop();
                }
                self.write(file, &b);
            }
            Change::Finish { file } => {
                if let Some(mut b) = self.read(file).filter(|b| !b.is_empty() && !b.ends_with(b"\n")) {
                    b.push(b'\n');
                    self.write(file, &b);
                }
            }
            Change::Delete { file } => {
                let _ = std::fs::remove_file(self.dir.join(FILES[file]));
            }
            Change::Truncate { file, keep } => {
                if let Some(b) = self.read(file) {
                    let cut: usize = b.split_inclusive(|x| *x == b'\n').take(keep).map(<[u8]>::len).sum();
                    self.write(file, &b[..cut]);
                }
            }
            Change::Flip { file } => {
                let path = self.dir.join(FILES[file]);
                if let Some(mut b) = self.read(file).filter(|b| b.contains(&b'x')) {
                    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
                    let i = b.iter().position(|x| *x == b'x').unwrap();
                    b[i] = b'y';
                    self.write(file, &b);
                    set_mtime(&path, mtime);
                }
            }
            Change::Replace { file, n } => {
                let b: Vec<u8> = (0..n).flat_map(|_| self.line()).collect();
                self.write(file, &b);
            }
            Change::Sync => {}
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// For any sequence of appends, deletions and rewrites with syncs in
    /// between, no line ever synced is missing from the archive (in the live
    /// file or a kept version of it), and the archive holds no line the
    /// source never had. The prompt history holds every line ever synced in
    /// its one file, each once (no kept versions); every content a backup
    /// ever had when synced is kept (live or as a kept version, or as the
    /// start of its grown content).
    #[test]
    fn no_line_ever_synced_goes_missing(changes in proptest::collection::vec(change(), 1..30)) {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("projects");
        let arch = tmp.path().join("archive/projects");
        std::fs::create_dir_all(&src).unwrap();
        let mut model = Model { dir: src.clone(), next: 0 };
        let mut synced: Vec<BTreeSet<Vec<u8>>> = vec![BTreeSet::new(); FILES.len()];
        let mut written: BTreeSet<Vec<u8>> = BTreeSet::new();
        let mut backups: BTreeSet<Vec<u8>> = BTreeSet::new();
        for c in changes.iter().chain([&Change::Sync]) {
            model.apply(c);
            for (f, name) in FILES.iter().enumerate() {
                let name = if f == BACKUP { "backup.jsonl" } else { name };
                written.extend(all_lines(&BTreeMap::from([(name.to_string(), model.read(f).unwrap_or_default())])));
            }
            if !matches!(c, Change::Sync) {
                continue;
            }
            let opts = cctree::sync::SyncOptions { input: Some(src.clone()), archive: arch.clone(), dry_run: false, progress: false };
            let report = cctree::sync::sync(&opts).unwrap();
            prop_assert!(report.errors.is_empty(), "{:?}", report.errors);
            if let Some(b) = model.read(BACKUP) {
                backups.insert(b);
            }
            let mut held_backups: BTreeSet<Vec<u8>> = kept_versions(&arch, FILES[BACKUP]).into_iter().collect();
            held_backups.extend(std::fs::read(arch.join(FILES[BACKUP])).ok());
            // A backup that grew is kept as its longer content (an append).
            for b in &backups {
                prop_assert!(held_backups.iter().any(|h| h.starts_with(b)), "a backup's content lost: {:?}", String::from_utf8_lossy(b));
            }
            prop_assert!(held_backups.is_subset(&backups), "the archive holds a backup content the source never had");
            for (f, seen) in synced.iter_mut().enumerate().filter(|(f, _)| *f != BACKUP) {
                if let Some(b) = model.read(f) {
                    seen.extend(all_lines(&BTreeMap::from([(FILES[f].to_string(), b)])));
                }
                let mut versions = kept_versions(&arch, FILES[f]);
                versions.extend(std::fs::read(arch.join(FILES[f])).ok());
                let held = all_lines(&versions.into_iter().enumerate().map(|(i, v)| (format!("{i}.jsonl"), v)).collect());
                for line in seen.iter() {
                    prop_assert!(held.contains(line), "{}: lost {:?}", FILES[f], String::from_utf8_lossy(line));
                }
                prop_assert!(held.iter().all(|l| written.contains(l)), "{}: a line the source never had", FILES[f]);
                if f == HISTORY {
                    prop_assert!(kept_versions(&arch, FILES[f]).is_empty(), "the history is merged, not versioned");
                    let live = std::fs::read(arch.join(FILES[f])).unwrap_or_default();
                    let lines: Vec<&[u8]> = live.split_inclusive(|b| *b == b'\n').filter(|l| l.ends_with(b"\n")).collect();
                    let distinct: BTreeSet<&[u8]> = lines.iter().copied().collect();
                    prop_assert_eq!(lines.len(), distinct.len(), "each history line once");
                }
            }
        }
    }
}

/// Sync skipped files silently. Names that are one name
/// once decoded lossily (`a\xfe`, `a\xff`, `a\u{fffd}`) were archived as one;
/// anything in a source directory named `.cctree-sync` was never archived;
/// a source file named like a sync temporary file was removed from the
/// archive as a leftover on each run. Now every source file is archived, or
/// a warning names it.
#[test]
fn sync_never_skips_a_file_silently() {
    use std::os::unix::ffi::OsStrExt;
    let env = Env::new();
    let project = env.src.join(P);
    std::fs::create_dir_all(&project).unwrap();
    let odd: Vec<(std::ffi::OsString, Vec<u8>)> = [&b"a\xfe.jsonl"[..], b"a\xff.jsonl", "a\u{fffd}.jsonl".as_bytes()]
        .iter()
        .enumerate()
        .map(|(i, name)| {
            (
                std::ffi::OsStr::from_bytes(name).to_os_string(),
                text(&session(&format!("5e55000{i}-0000-4000-8000-000000000000"), &format!("odd{i}"), 1)),
            )
        })
        .collect();
    for (name, bytes) in &odd {
        std::fs::write(project.join(name), bytes).unwrap();
    }
    env.put(&format!("{P}/{S1}.jsonl"), &text(&session(S1, "s1", 2)));
    env.put(".cctree-sync/x.jsonl", &text(&session(S2, "hidden", 1)));
    env.put(&format!("{P}/.{S2}.jsonl.cctree-tmp-4242"), b"{\"type\":\"user\"}\n");
    let report = env.sync();
    let warnings = report["warnings"].to_string();
    // The three odd names: three files in the archive, each with its bytes.
    let archived: BTreeSet<Vec<u8>> = tree(&env.arch.join(P)).into_values().collect();
    for (name, bytes) in &odd {
        assert!(archived.contains(bytes), "{name:?} not archived: {warnings}");
    }
    // The directory named like the archive's own: archived, escaped.
    assert_eq!(env.archived("%2Ecctree-sync/x.jsonl"), text(&session(S2, "hidden", 1)));
    // The other: named by a warning.
    assert!(warnings.contains(&format!(".{S2}.jsonl.cctree-tmp-4242")), "{warnings}");
    // A second run loses nothing and warns again.
    let before = tree(&env.arch);
    let report = env.sync();
    assert_eq!(tree(&env.arch), before, "a second run removed or changed archived files");
    assert!(report["warnings"].to_string().contains("cctree-tmp-4242"));
}

/// A source directory named like the archive's own state directory
/// (`.cctree-sync`) was not archived, only named on stdout: it is archived
/// as `%2Ecctree-sync` (beside the archive's own, which it cannot touch),
/// grows there like any project, and the archive renders it.
#[test]
fn a_source_directory_named_like_the_archives_state_is_archived_escaped() {
    let env = Env::new();
    env.put(".cctree-sync/record.json", b"{\"not\": \"the archive's\"}\n");
    env.put(".cctree-sync/x.jsonl", &text(&session(S2, "hidden", 1)));
    env.put(&format!("{P}/{S1}.jsonl"), &text(&session(S1, "s1", 1)));
    let report = env.sync();
    assert_eq!(report["warnings"], json!([]), "nothing left out");
    assert_eq!(env.archived("%2Ecctree-sync/x.jsonl"), text(&session(S2, "hidden", 1)));
    assert_eq!(env.archived("%2Ecctree-sync/record.json"), b"{\"not\": \"the archive's\"}\n");
    let record: Value = serde_json::from_slice(&env.archived(".cctree-sync/record.json")).unwrap();
    assert!(record.get("not").is_none(), "the archive's own record is its own: {record}");
    // It grows like any file, and a second run changes nothing else.
    env.append(".cctree-sync/x.jsonl", &text(&session(S2, "later", 1)));
    let report = env.sync();
    assert_eq!(report["warnings"], json!([]));
    let grown = [text(&session(S2, "hidden", 1)), text(&session(S2, "later", 1))].concat();
    assert_eq!(env.archived("%2Ecctree-sync/x.jsonl"), grown);
    // Every command reads it back.
    let site = env.root.join("site");
    let out = cctree().arg("render").arg(&env.arch).arg("-o").arg(&site).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let pages: String = tree(&site).into_values().map(|b| String::from_utf8_lossy(&b).into_owned()).collect();
    assert!(pages.contains("prompt hidden number 0") && pages.contains("prompt later number 0"));
}

/// `sync --to` a directory that is not empty and not an
/// archive was accepted (render refuses the like): it is refused, naming it.
#[test]
fn sync_into_a_non_empty_directory_that_is_not_an_archive_is_refused() {
    let env = Env::new();
    env.put(&format!("{P}/{S1}.jsonl"), &text(&session(S1, "x", 1)));
    let mine = env.root.join("mine");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "mine").unwrap();
    let out = cctree().arg("sync").arg(&env.src).arg("--to").arg(&mine).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("not empty") && err.contains("mine"), "{err}");
    assert_eq!(std::fs::read_dir(&mine).unwrap().count(), 1, "nothing written");
    // An empty directory, and an archive, are fine.
    let empty = env.root.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    for _ in 0..2 {
        let out = cctree().arg("sync").arg(&env.src).arg("--to").arg(&empty).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
}

/// A FIFO or `/dev/zero` named `x.jsonl` was skipped
/// without a word; a session directory linked to `/` or `/proc/self` made
/// cctree walk the whole file system (`stats` 27 s, `render` killed at
/// 90 s). Such a file is a warning and is never read; a directory link out
/// of the projects directory is not followed, with a warning.
#[test]
fn fifos_devices_and_links_to_the_world_are_warnings_never_walks() {
    let env = Env::new();
    env.put(&format!("{P}/{S1}.jsonl"), &text(&session(S1, "real", 2)));
    let project = env.src.join(P);
    assert!(std::process::Command::new("mkfifo").arg(project.join("fifo.jsonl")).status().unwrap().success());
    std::os::unix::fs::symlink("/dev/zero", project.join("zero.jsonl")).unwrap();
    std::os::unix::fs::symlink("/", project.join("5e55f00d-0000-4000-8000-00000000000a")).unwrap();
    std::os::unix::fs::symlink("/proc/self", project.join("5e55f00d-0000-4000-8000-00000000000b")).unwrap();
    // Within the projects directory a link is still followed.
    env.put("-elsewhere/kept/sub/agent-k1.jsonl", b"{\"type\":\"user\",\"isSidechain\":true,\"uuid\":\"k1\"}\n");
    std::os::unix::fs::symlink(env.src.join("-elsewhere/kept"), project.join(S1)).unwrap();
    let timed = |args: &[&str]| {
        let t = std::time::Instant::now();
        let out = cctree().args(args).output().unwrap();
        (out, t.elapsed())
    };
    let src = env.src.to_str().unwrap();
    for args in [vec!["stats", src], vec!["check", src]] {
        let (out, took) = timed(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.code().is_some_and(|c| c <= 1), "{args:?}: {err}");
        assert!(took.as_secs() < 20, "{args:?} took {took:?}: walked the world?");
        for name in
            ["fifo.jsonl", "zero.jsonl", "5e55f00d-0000-4000-8000-00000000000a", "5e55f00d-0000-4000-8000-00000000000b"]
        {
            assert!(err.contains(name), "{args:?}: no warning names {name}: {err}");
        }
        assert!(err.contains("FIFO") && err.contains("not followed"), "{err}");
    }
    let v = env.stats(&env.src.join(P));
    assert_eq!(v["agents"], 1, "the link within the projects directory is followed: {v}");
    let report = env.sync();
    let warnings = report["warnings"].to_string();
    for name in ["fifo.jsonl", "zero.jsonl", "5e55f00d-0000-4000-8000-00000000000a"] {
        assert!(warnings.contains(name), "sync: no warning names {name}: {warnings}");
    }
    assert!(env.arch.join("-elsewhere/kept/sub/agent-k1.jsonl").is_file(), "the linked directory is archived");
    assert!(!env.arch.join(P).join("5e55f00d-0000-4000-8000-00000000000b").exists(), "/proc/self archived");
}

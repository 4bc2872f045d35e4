//! `cctree sync` of Codex CLI's and Gemini CLI's folders: kept beside the
//! archive (`codex/sessions/`, `gemini/tmp/`), read back with it, their
//! sessions "kept by cctree" once the client deleted them; a Gemini session
//! file rewritten at the source loses none of its records.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::cctree;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn copy_tree(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from) {
        let e = e.unwrap();
        let dst = to.join(e.path().strip_prefix(from).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dst).unwrap();
        } else {
            std::fs::copy(e.path(), &dst).unwrap();
        }
    }
}

/// A home with Codex CLI's and Gemini CLI's folders (no Claude Code), and
/// an archive in its data directory.
struct Home {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    codex: PathBuf,
    gemini: PathBuf,
    arch: PathBuf,
}

impl Home {
    fn new() -> Home {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        let codex = root.join("codex");
        let gemini = root.join("home/.gemini");
        std::fs::create_dir_all(root.join("home")).unwrap();
        Home { arch: root.join("data/cctree/projects"), codex, gemini, _tmp: tmp, root }
    }

    fn cmd(&self) -> std::process::Command {
        let mut c = cctree();
        c.env("HOME", self.root.join("home"))
            .env("CLAUDE_CONFIG_DIR", self.root.join("no-claude"))
            .env("CODEX_HOME", &self.codex)
            .env("GEMINI_CLI_HOME", self.root.join("home"))
            .env("XDG_DATA_HOME", self.root.join("data"))
            .env_remove("CCTREE_ARCHIVE");
        c
    }

    /// `cctree sync` of the default folders, which must succeed: its JSON report.
    fn sync(&self) -> Value {
        let out = self.cmd().args(["sync", "--json"]).output().unwrap();
        assert!(out.status.success(), "sync failed: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// Renders the archive; the site's pages: path → text.
    fn render(&self, name: &str) -> BTreeMap<String, String> {
        let site = self.root.join(name);
        let out = self.cmd().arg("render").arg(&self.arch).arg("-o").arg(&site).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "render failed: {err}");
        assert!(err.contains(", 0 warnings"), "{err}");
        pages(&site)
    }

    fn stats(&self) -> Value {
        let out = self.cmd().args(["stats", "--json"]).arg(&self.arch).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

fn pages(site: &Path) -> BTreeMap<String, String> {
    walkdir::WalkDir::new(site)
        .into_iter()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "html"))
        .map(|e| {
            let rel = e.path().strip_prefix(site).unwrap().to_string_lossy().into_owned();
            (rel, std::fs::read_to_string(e.path()).unwrap())
        })
        .collect()
}

fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().strip_prefix(dir).unwrap().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect()
}

/// Project index pages (`<project>/index.html`) that mark a conversation "kept by cctree".
fn kept_marks(site: &BTreeMap<String, String>) -> Vec<&str> {
    site.iter()
        .filter(|(p, t)| p.matches('/').count() == 1 && p.ends_with("/index.html") && t.contains("kept by cctree"))
        .map(|(p, _)| p.as_str())
        .collect()
}

#[test]
fn codex_and_gemini_sessions_are_kept_and_still_rendered_after_the_client_deletes_them() {
    let h = Home::new();
    copy_tree(&fixtures().join("codex-0.171.0/exec"), &h.codex);
    copy_tree(&fixtures().join("gemini-0.61.0/headless"), &h.gemini);
    // Codex's thread names, beside its sessions (the last line of an id wins).
    let index = concat!(
        "{\"id\":\"01a21ab7-77ea-7351-95a6-8167086a1919\",\"thread_name\":\"first: run\",\"updated_at\":\"2026-11-27T01:56:04Z\"}\n",
        "{\"id\":\"01a21ab7-77ea-7351-95a6-8167086a1919\",\"thread_name\":\"Weather rename\",\"updated_at\":\"2026-11-27T01:57:04Z\"}\n",
    );
    std::fs::write(h.codex.join("session_index.jsonl"), index).unwrap();
    // Gemini's prompt log is kept (it outlives the chats); its other files
    // in tmp/ (checkpoints, shell history) are not transcripts, not kept.
    std::fs::write(h.gemini.join("tmp/work/logs.json"), b"[]").unwrap();
    std::fs::write(h.gemini.join("tmp/work/shell_history"), b"ls\n").unwrap();
    let report = h.sync();
    assert_eq!(report["new"]["files"], 8, "{report}");
    assert_eq!(std::fs::read_to_string(h.root.join("data/cctree/codex/session_index.jsonl")).unwrap(), index);
    let kept_codex = h.root.join("data/cctree/codex/sessions");
    let kept_gemini = h.root.join("data/cctree/gemini/tmp");
    assert_eq!(files(&kept_codex), files(&h.codex.join("sessions")), "every rollout, byte for byte");
    let mut gemini_source = files(&h.gemini.join("tmp"));
    assert!(gemini_source.remove("work/shell_history").is_some());
    assert_eq!(files(&kept_gemini), gemini_source, "chats/, .project_root and logs.json, byte for byte");
    assert_eq!(h.sync()["new"]["files"], 0, "a second run writes nothing");

    let before = h.render("before");
    assert!(kept_marks(&before).is_empty(), "nothing is only in the archive yet");
    let texts = ["fourth: in the fork", "fifth: delegate", "second: write [[write: notes.txt hello]]"];
    for t in texts {
        assert!(before.values().any(|p| p.contains(t)), "{t} on no page");
    }

    // The clients' clean-up deletes every session.
    std::fs::remove_dir_all(h.codex.join("sessions/2026")).unwrap();
    std::fs::write(h.codex.join("session_index.jsonl"), "").unwrap();
    std::fs::remove_dir_all(h.gemini.join("tmp/work/chats")).unwrap();
    let report = h.sync();
    assert_eq!(report["only_in_archive"]["files"], 5, "{report}");
    let deleted: Vec<&str> = report["newly_deleted"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(deleted.iter().filter(|d| d.starts_with("codex/sessions/2026/11/27/rollout-")).count(), 3);
    assert_eq!(deleted.iter().filter(|d| d.starts_with("gemini/tmp/work/chats/")).count(), 2, "{deleted:?}");

    let after = h.render("after");
    let mut marked = kept_marks(&after);
    marked.sort_unstable();
    assert_eq!(marked.len(), 2, "both projects mark their conversation: {marked:?}");
    assert!(marked[0].starts_with("codex-") && marked[1].starts_with("gemini-"), "{marked:?}");
    for t in texts {
        assert!(after.values().any(|p| p.contains(t)), "{t} lost after the client deleted its file");
    }
    let codex_index = after.iter().find(|(p, _)| p.starts_with("codex-") && p.matches('/').count() == 1).unwrap().1;
    assert!(codex_index.contains("Weather rename"), "the thread's name, kept in the archive's index");
    let only = &h.stats()["archive"]["only_in_archive"];
    assert_eq!((only["files"].as_u64(), only["conversations"].as_u64()), (Some(5), Some(2)), "{only}");
}

/// The archive's record names the folders a sync kept (each agent's), and
/// `stats` says whose archive it is: a sync of the default folders names
/// Codex's and Gemini's, a sync of one folder `--to DIR` names it.
#[test]
fn the_archive_records_the_folders_it_was_synced_from() {
    let h = Home::new();
    copy_tree(&fixtures().join("codex-0.171.0/exec"), &h.codex);
    copy_tree(&fixtures().join("gemini-0.61.0/headless"), &h.gemini);
    h.sync();
    let record = |arch: &Path| -> Value {
        serde_json::from_slice(&std::fs::read(arch.join(".cctree-sync/record.json")).unwrap()).unwrap()
    };
    let source = record(&h.arch)["source"].as_str().unwrap().to_string();
    let (codex, gemini) = (h.codex.join("sessions"), h.gemini.join("tmp"));
    assert_eq!(source, format!("{}, {}", codex.display(), gemini.display()));
    assert_eq!(h.stats()["archive"]["source"], source.as_str());
    let table = h.cmd().arg("stats").arg(&h.arch).output().unwrap();
    let table = String::from_utf8_lossy(&table.stdout).replace('\n', " ");
    assert!(table.contains(&format!("archive of {}", codex.display())), "{table}");

    let elsewhere = h.root.join("other/projects");
    let out = h.cmd().args(["-q", "sync"]).arg(&codex).arg("--to").arg(&elsewhere).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let one = record(&elsewhere)["source"].as_str().unwrap().to_string();
    assert_eq!(one, codex.display().to_string());
}

/// The folders a sync's summary says files went to (`… → DIR`).
fn destinations(summary: &str) -> Vec<String> {
    let mut out: Vec<String> = summary
        .lines()
        .filter_map(|l| l.split_once(" → "))
        .map(|(_, to)| to.split(" (checked").next().unwrap_or(to).split(": ").next().unwrap_or(to).to_string())
        .collect();
    out.sort();
    out
}

/// The summary of a sync named the archive (`DIR/projects`) for the
/// Codex rollouts and Gemini chats it writes beside it (`DIR/../codex`,
/// `DIR/../gemini`): each line names where that agent's files went, the
/// first agent's too, with or without `--to`, and when nothing changed.
#[test]
fn the_sync_summary_names_where_each_agents_files_went() {
    let h = Home::new();
    copy_tree(&fixtures().join("codex-0.171.0/exec"), &h.codex);
    copy_tree(&fixtures().join("gemini-0.61.0/headless"), &h.gemini);
    let data = h.root.join("data/cctree");
    let (codex, gemini) = (data.join("codex/sessions"), data.join("gemini/tmp"));
    let run = |c: &mut std::process::Command| {
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let summary = run(h.cmd().arg("sync"));
    let want = vec![codex.display().to_string(), gemini.display().to_string()];
    assert_eq!(destinations(&summary), want, "{summary}");
    assert!(!files(&codex).is_empty() && !files(&gemini).is_empty(), "the files are where it says");
    assert!(!summary.contains(&h.arch.display().to_string()), "{summary}");
    let again = run(h.cmd().arg("sync"));
    assert!(again.contains(&format!("the archive {} is up to date", codex.display())), "{again}");

    let elsewhere = h.root.join("other/projects");
    let summary = run(h.cmd().arg("sync").arg(h.codex.join("sessions")).arg("--to").arg(&elsewhere));
    let went = h.root.join("other/codex/sessions");
    assert_eq!(destinations(&summary), vec![went.display().to_string()], "{summary}");
    assert!(!files(&went).is_empty());
}

fn line(v: Value) -> String {
    format!("{v}\n")
}

fn prompt(id: &str, text: &str) -> String {
    line(json!({"id": id, "timestamp": "2026-11-27T01:00:00.000Z", "type": "user", "content": [{"text": text}]}))
}

fn reply(id: &str, text: &str) -> String {
    line(json!({"id": id, "timestamp": "2026-11-27T01:00:01.000Z", "type": "gemini", "content": text, "model": "m"}))
}

fn meta() -> String {
    line(
        json!({"sessionId": "d530d928-9820-4b7a-9967-6c5d7bfe95e6", "projectHash": "ab", "startTime": "2026-11-27T01:00:00.000Z", "lastUpdated": "2026-11-27T01:00:00.000Z", "kind": "main"}),
    )
}

/// The message list a Gemini session file loads as (the client's rules:
/// last record of an id wins in place, `$set {messages}` replaces, `$rewindTo` cuts).
fn load(bytes: &[u8]) -> Vec<Value> {
    let mut list: Vec<Value> = Vec::new();
    for l in String::from_utf8_lossy(bytes).lines().filter(|l| !l.trim().is_empty()) {
        let Ok(v) = serde_json::from_str::<Value>(l) else { continue };
        if let Some(to) = v.get("$rewindTo") {
            let at = list.iter().position(|m| &m["id"] == to).unwrap_or(0);
            list.truncate(at);
        } else if v["id"].is_string() {
            match list.iter_mut().find(|m| m["id"] == v["id"]) {
                Some(m) => *m = v,
                None => list.push(v),
            }
        } else if let Some(msgs) = v["$set"]["messages"].as_array() {
            list = msgs.clone();
        }
    }
    list
}

#[test]
fn a_gemini_rewind_after_a_sync_keeps_the_abandoned_messages() {
    let h = Home::new();
    let chats = h.gemini.join("tmp/work/chats");
    std::fs::create_dir_all(&chats).unwrap();
    std::fs::write(h.gemini.join("tmp/work/.project_root"), "/home/me/work\n").unwrap();
    let file = chats.join("session-2026-11-27T01-00-d530d928.jsonl");
    let first = [
        meta(),
        prompt("u1", "alpha prompt"),
        reply("g1", "alpha reply"),
        prompt("u2", "beta abandoned prompt"),
        reply("g2", "beta abandoned reply"),
    ]
    .concat();
    std::fs::write(&file, &first).unwrap();
    h.sync();
    let archived = h.root.join("data/cctree/gemini/tmp/work/chats/session-2026-11-27T01-00-d530d928.jsonl");

    // The client rewinds the way 0.61.0 does: markers appended, nothing lost at the source either.
    let rewound = [
        first.clone(),
        line(json!({"$rewindTo": "u2"})),
        prompt("u3", "gamma new prompt"),
        reply("g3", "gamma new reply"),
    ]
    .concat();
    std::fs::write(&file, &rewound).unwrap();
    assert_eq!(h.sync()["grown"]["files"], 1);
    assert_eq!(std::fs::read(&archived).unwrap(), rewound.as_bytes());

    // Now the file is rewritten whole to its current state (the client's
    // rewriteConversationFile), a record changed in place: the abandoned
    // messages are gone from the source, not from the archive.
    let rewritten = [
        meta(),
        prompt("u1", "alpha prompt"),
        reply("g1", "alpha reply, edited"),
        prompt("u3", "gamma new prompt"),
        reply("g3", "gamma new reply"),
        prompt("u4", "delta prompt"),
    ]
    .concat();
    std::fs::write(&file, &rewritten).unwrap();
    let report = h.sync();
    assert_eq!(report["grown"]["files"], 1, "merged, not kept in versions: {report}");
    assert_eq!(report["kept_versions"], 0);
    let kept = std::fs::read(&archived).unwrap();
    assert!(kept.starts_with(rewound.as_bytes()), "every byte the archive held stays first");
    assert_eq!(load(&kept), load(rewritten.as_bytes()), "the archived file loads as the source does");
    let texts = String::from_utf8_lossy(&kept);
    assert!(texts.contains("beta abandoned reply") && texts.contains("alpha reply, edited"));
    assert_eq!(h.sync()["grown"]["files"], 0, "a second run adds nothing");

    // The client goes on appending to the rewritten file: the new lines follow.
    let grown = [rewritten.clone(), reply("g4", "delta reply")].concat();
    std::fs::write(&file, &grown).unwrap();
    h.sync();
    let kept = std::fs::read(&archived).unwrap();
    assert_eq!(load(&kept), load(grown.as_bytes()));
    assert!(kept.ends_with(reply("g4", "delta reply").as_bytes()));

    // The client deletes the session: the site still shows both futures of the rewind.
    std::fs::remove_file(&file).unwrap();
    h.sync();
    let site = h.render("site");
    for t in ["beta abandoned prompt", "beta abandoned reply", "gamma new prompt", "delta reply"] {
        assert!(site.values().any(|p| p.contains(t)), "{t} on no page");
    }
    assert_eq!(kept_marks(&site).len(), 1, "kept by cctree");
    let st = h.stats();
    assert_eq!(st["fork_points"], 1, "the rewind is a fork point: {st}");
    assert_eq!(st["branches"], 2, "{st}");
}

/// `cctree sync SOURCE --to ARCHIVE` of one agent's folder; renders of the
/// source before the client deletes its sessions and of the archive after
/// are the same pages, byte for byte (published: an unpublished site's fork
/// commands name the folder it was rendered from). Index pages may differ
/// (the archive's and each project's) may differ only by the "kept by
/// cctree" mark.
fn kept_byte_for_byte(fixture: &Path, input: &str, delete: &str, said: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("src");
    copy_tree(fixture, &source);
    let input = source.join(input);
    let archive = tmp.path().join("arch/projects");
    let render = |from: &Path, out: &str| {
        let site = tmp.path().join(out);
        let o = cctree()
            .args(["-q", "render", "--base-url", "https://example.org/chats/"])
            .arg(from)
            .arg("-o")
            .arg(&site)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        pages(&site)
    };
    let sync = || {
        let o = cctree().arg("sync").arg(&input).arg("--to").arg(&archive).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    let before = render(&input, "before");
    sync();
    std::fs::remove_dir_all(source.join(delete)).unwrap();
    assert!(!source.join(delete).exists());
    sync();
    let kept = render(&archive, "kept");
    for t in said {
        assert!(kept.values().any(|p| p.contains(t)), "{t:?} lost from the archive");
    }
    let conversations = |s: &BTreeMap<String, String>| {
        s.iter().filter(|(p, _)| p.matches('/').count() > 1).map(|(p, t)| (p.clone(), t.clone())).collect::<Vec<_>>()
    };
    let (a, b) = (conversations(&before), conversations(&kept));
    assert!(!a.is_empty());
    assert_eq!(
        a.iter().map(|x| &x.0).collect::<Vec<_>>(),
        b.iter().map(|x| &x.0).collect::<Vec<_>>(),
        "the same pages"
    );
    for ((p, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{p} the same, byte for byte");
    }
}

#[test]
fn a_qwen_session_deleted_at_the_source_stays_rendered_byte_for_byte_from_the_archive() {
    let f = fixtures().join("qwen-0.24.4/fork-session");
    let chats = walkdir::WalkDir::new(&f).into_iter().flatten().find(|e| e.file_name() == "chats").unwrap();
    let rel = chats.path().strip_prefix(&f).unwrap().to_string_lossy().into_owned();
    kept_byte_for_byte(&f, "projects", &rel, &["Third prompt, in the fork"]);
}

#[test]
fn a_copilot_session_deleted_at_the_source_stays_rendered_byte_for_byte_from_the_archive() {
    let f = fixtures().join("copilot-1.0.102/prompt/home/.copilot");
    let id = std::fs::read_dir(f.join("session-state")).unwrap().flatten().next().unwrap().file_name();
    let rel = format!("session-state/{}", id.to_string_lossy());
    kept_byte_for_byte(&f, ".", &rel, &["echo turn-one"]);
}

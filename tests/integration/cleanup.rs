//! The cleanup clock: `sync`, `render` and plain `cctree` name
//! exactly the sessions Claude Code's next cleanup deletes (modified before
//! now − cleanupPeriodDays, as the client judges them) that the archive of
//! `cctree sync` does not hold whole, and the command that keeps them. Fixed
//! dates: the files' modification times are set, "now" is `CCTREE_TEST_NOW`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use serde_json::json;

use crate::support::cctree;

const P: &str = "-home-me-app";
const NOW: &str = "2026-03-01T12:00:00Z";

fn at(t: &str) -> SystemTime {
    let ms = cctree::timestamp::parse_timestamp(t).unwrap();
    SystemTime::UNIX_EPOCH + Duration::from_millis(u64::try_from(ms).unwrap())
}

fn session(id: &str) -> String {
    let u = json!({"type":"user","sessionId":id,"uuid":format!("{id}-u"),"parentUuid":null,
        "timestamp":"2026-01-01T10:00:00.000Z","cwd":"/home/me/app","message":{"role":"user","content":format!("prompt of {id}")}});
    let a = json!({"type":"assistant","sessionId":id,"uuid":format!("{id}-a"),"parentUuid":format!("{id}-u"),
        "timestamp":"2026-01-01T10:00:01.000Z","cwd":"/home/me/app",
        "message":{"id":format!("m-{id}"),"role":"assistant","model":"claude","content":[{"type":"text","text":"ok"}]}});
    format!("{u}\n{a}\n")
}

struct Home {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

impl Home {
    /// `~/.claude/projects/-home-me-app/` with sessions last written at
    /// fixed dates; "now" is 2026-03-01 12:00 UTC, so 30 days back is
    /// 2026-01-30 12:00 UTC.
    fn new() -> Home {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        let home = root.join("home");
        let h = Home { _tmp: tmp, root, home };
        for (id, when) in [
            ("old", "2026-01-01T09:00:00Z"),
            ("fresh", "2026-02-25T09:00:00Z"),
            ("eleven-days", "2026-02-18T12:00:00Z"),
            ("just-kept", "2026-01-30T12:00:00Z"),
            ("just-past", "2026-01-30T11:59:59Z"),
            ("archived", "2026-01-10T09:00:00Z"),
            ("partly", "2026-01-10T09:00:00Z"),
        ] {
            h.put(&h.projects(), id, when);
        }
        h
    }

    fn projects(&self) -> PathBuf {
        self.home.join(".claude/projects")
    }

    fn put(&self, projects: &Path, id: &str, when: &str) {
        let p = projects.join(P).join(format!("{id}.jsonl"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, session(id)).unwrap();
        std::fs::File::options().write(true).open(&p).unwrap().set_modified(at(when)).unwrap();
    }

    /// The default archive of `cctree sync`, holding `archived` whole and an older part of `partly`.
    fn archive(&self) -> PathBuf {
        let a = self.root.join("data/cctree/projects");
        std::fs::create_dir_all(a.join(".cctree-sync")).unwrap();
        std::fs::create_dir_all(a.join(P)).unwrap();
        std::fs::write(a.join(P).join("archived.jsonl"), session("archived")).unwrap();
        std::fs::write(a.join(P).join("partly.jsonl"), session("partly").lines().next().unwrap().to_string() + "\n")
            .unwrap();
        a
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = cctree();
        c.args(args)
            .current_dir(&self.root)
            .env("HOME", &self.home)
            .env("XDG_DATA_HOME", self.root.join("data"))
            .env("CCTREE_TEST_NOW", NOW)
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CCTREE_ARCHIVE")
            .env_remove("NO_COLOR");
        c
    }

    /// What the warning names: its sessions, and its last line.
    fn warned(&self, args: &[&str]) -> (BTreeSet<String>, String) {
        let out = self.cmd(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "cctree {args:?}: {err}");
        let named = err
            .lines()
            .filter_map(|l| l.strip_prefix(&format!("  {P}/")))
            .map(|l| l.split(".jsonl").next().unwrap().to_string())
            .collect();
        let keep = err.lines().find(|l| l.starts_with("keep them")).unwrap_or("").to_string();
        (named, keep)
    }
}

fn set(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

#[test]
fn render_names_exactly_the_sessions_the_next_cleanup_deletes_that_the_archive_lacks() {
    let h = Home::new();
    h.archive();
    let (named, keep) = h.warned(&["render", "-o", "site"]);
    assert_eq!(named, set(&["just-past", "old", "partly"]), "older than 30 days, not archived whole");
    assert_eq!(keep, "keep them before the client starts again: cctree sync");
    let out = h.cmd(&["render", "-o", "site"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("deletes 3 sessions not in the cctree archive yet"), "{err}");
    assert!(err.contains("cleanupPeriodDays 30, the default"), "{err}");
    assert!(
        err.contains("partly.jsonl (last written 2026-01-10, 50 days ago, the archive holds an older part)"),
        "{err}"
    );
    // The user's settings shorten the clock.
    std::fs::write(h.home.join(".claude/settings.json"), r#"{"cleanupPeriodDays": 10}"#).unwrap();
    let (named, _) = h.warned(&["render", "-o", "site"]);
    assert_eq!(named, set(&["eleven-days", "just-kept", "just-past", "old", "partly"]));
    // -q prints no warning.
    let out = h.cmd(&["-q", "render", "-o", "site"]).output().unwrap();
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    // Another input than the client's directory is not the client's to clean.
    let (named, _) = h.warned(&["render", "-o", "site2", "data/cctree/projects"]);
    assert!(named.is_empty());
}

#[test]
fn sync_warns_until_the_sessions_are_kept_and_plain_cctree_warns_without_an_archive() {
    let h = Home::new();
    // No archive yet: plain `cctree` renders the client's directory and names every old session.
    let (named, keep) = h.warned(&[]);
    assert_eq!(named, set(&["archived", "just-past", "old", "partly"]));
    assert_eq!(keep, "keep them before the client starts again: cctree sync");
    // A dry run keeps nothing: the same sessions.
    let (named, _) = h.warned(&["sync", "--dry-run"]);
    assert_eq!(named.len(), 4);
    // The sync keeps them: no warning, then or after.
    let (named, _) = h.warned(&["sync"]);
    assert!(named.is_empty());
    let (named, _) = h.warned(&[]);
    assert!(named.is_empty(), "plain cctree syncs first");
    // Another archive names itself in the command.
    let (named, keep) = h.warned(&["sync", "--dry-run", "--to", "elsewhere"]);
    assert_eq!(named.len(), 4);
    assert_eq!(keep, "keep them before the client starts again: cctree sync --to elsewhere");
}

#[test]
fn the_clock_of_claude_config_dir_is_its_own_settings() {
    let h = Home::new();
    let cfg = h.root.join("cfg");
    h.put(&cfg.join("projects"), "cfg-old", "2026-02-10T00:00:00Z");
    h.put(&cfg.join("projects"), "cfg-new", "2026-02-28T00:00:00Z");
    std::fs::write(cfg.join("settings.json"), r#"{"cleanupPeriodDays": 7}"#).unwrap();
    std::fs::write(h.home.join(".claude/settings.json"), r#"{"cleanupPeriodDays": 1000}"#).unwrap();
    let out = h.cmd(&["render", "-o", "site"]).env("CLAUDE_CONFIG_DIR", &cfg).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("  -home-me-app/cfg-old.jsonl (last written 2026-02-10, 19 days ago)"), "{err}");
    assert!(!err.contains("cfg-new") && !err.contains("/old.jsonl"), "{err}");
    assert!(err.contains(&format!("cleanupPeriodDays 7 in {}", cfg.join("settings.json").display())), "{err}");
    // A value the client refuses: it skips its cleanup, nothing to warn about.
    std::fs::write(cfg.join("settings.json"), r#"{"cleanupPeriodDays": 0}"#).unwrap();
    let out = h.cmd(&["render", "-o", "site"]).env("CLAUDE_CONFIG_DIR", &cfg).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("cleanup"));
}

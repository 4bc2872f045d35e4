//! Real-world shapes of Codex CLI folders, on a hand-made
//! `$CODEX_HOME` of 2025 (`tests/fixtures/codex-2025/`): the default inputs
//! when Claude Code's folder is empty, archived threads, and rollouts from
//! before the envelope.

use std::path::{Path, PathBuf};

use crate::agents::copy_tree;
use crate::common::{site_text, visible};
use crate::support::{cctree, report};

fn codex_home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codex-2025/codex-home")
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A home whose `~/.claude/projects` exists and is empty, and whose
/// `~/.codex` is the fixture's.
fn home_with_empty_claude() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".claude/projects")).unwrap();
    copy_tree(&codex_home(), &home.path().join(".codex"));
    home
}

fn in_home(home: &Path) -> std::process::Command {
    let mut c = cctree();
    c.env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env("GEMINI_CLI_HOME", home.join("no-gemini"))
        .env("CCTREE_ARCHIVE", home.join("no-archive"))
        .env("XDG_CACHE_HOME", home.join("cache"));
    c
}

/// Without INPUT, an empty `~/.claude/projects` beside Codex's sessions is a
/// note: render, stats and check read Codex's sessions (exit 0); only when
/// no default folder holds a transcript is it an error (exit 2).
#[test]
fn an_empty_default_folder_is_a_note_when_another_holds_sessions() {
    let home = home_with_empty_claude();
    let site = home.path().join("site");
    let o = in_home(home.path()).args(["render", "-o"]).arg(&site).output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let empty = home.path().join(".claude/projects");
    let note = format!("note: {} (Claude Code's default folder) holds no transcript yet: skipped", empty.display());
    assert!(err.contains(&note), "{err}");
    assert!(err.contains("rendered 2 projects, 3 conversations"), "{err}");
    assert!(site.join("codex-home-ada-tidy/index.html").is_file());

    let o = in_home(home.path()).args(["stats", "--json"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains(&note));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["projects"].as_u64(), v["conversations"].as_u64()), (Some(2), Some(3)), "{v}");

    let o = in_home(home.path()).arg("check").output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));

    // Every default folder empty: the error names each.
    let bare = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(bare.path().join(".claude/projects")).unwrap();
    std::fs::create_dir_all(bare.path().join(".codex/sessions")).unwrap();
    for command in ["render", "stats", "check"] {
        let o = in_home(bare.path()).arg(command).output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{command}: {err}");
        assert!(err.contains("no default folder of an agent holds a transcript"), "{command}: {err}");
        assert!(err.contains(&bare.path().join(".claude/projects").display().to_string()), "{err}");
        assert!(err.contains(&bare.path().join(".codex/sessions").display().to_string()), "{err}");
    }
}

/// `~/.codex/archived_sessions/` (threads the client archived) is read with
/// `sessions/`, by default and when `$CODEX_HOME` or its `sessions` is the
/// input: the archived thread joins the project of its working directory.
#[test]
fn codex_archived_sessions_are_read_beside_sessions() {
    for input in [codex_home(), codex_home().join("sessions")] {
        let r = report(std::slice::from_ref(&input));
        let tidy = r.projects_detail.as_ref().unwrap().iter().find(|p| p.name == "codex-home-ada-tidy").unwrap();
        let titles: Vec<&str> = tidy.conversations.iter().map(|c| c.title.as_str()).collect();
        assert!(titles.contains(&"Add a test for the vendor skip."), "{}: {titles:?}", input.display());
        assert_eq!(tidy.conversations.len(), 2, "{titles:?}");
    }
    // The archived folder alone is Codex's too.
    let r = report(&[codex_home().join("archived_sessions")]);
    assert_eq!(r.total.conversations, 1);
    // By default (`~/.codex/sessions`, with no INPUT).
    let home = home_with_empty_claude();
    let o = in_home(home.path()).args(["stats", "--json", "--detail"]).output().unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains("Add a test for the vendor skip."), "{}", stderr(&o));
}

/// Rollouts from before the envelope (August 2025: a bare session line,
/// bare response items, state lines, the working directory only in the
/// environment context) are conversations in the project of that
/// directory, with their prompts, replies, reasoning and tool calls, found
/// by search; nothing of them is left as raw JSON under "Other entries".
#[test]
fn codex_rollouts_from_before_the_envelope_are_conversations() {
    let r = report(&[codex_home()]);
    let projects = r.projects_detail.as_ref().unwrap();
    let names: Vec<&str> = projects.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["codex-home-ada-notes", "codex-home-ada-tidy"]);
    let tidy = &projects[1];
    assert_eq!(tidy.cwd.as_deref(), Some("/home/ada/tidy"));
    let old = tidy.conversations.iter().find(|c| c.title == "Which files sort the imports in this repo?").unwrap();
    assert_eq!(old.messages, 8, "two prompts, two reasonings, two calls, two replies");
    assert_eq!(old.sessions, ["5b0e7c1a-2f4d-4e8a-9c31-8d2f6a7b9e10"]);
    assert!(old.last_active.starts_with("2025-08-20"), "the session's time: {}", old.last_active);

    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let o = cctree().args(["-q", "render"]).arg(codex_home()).arg("-o").arg(&site).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let page = std::fs::read_dir(site.join("codex-home-ada-tidy/c"))
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("5b0e7c1a"))
        .map(|e| std::fs::read_to_string(e.path().join("index.html")).unwrap())
        .unwrap();
    let text = visible(&page);
    for shown in [
        "Which files sort the imports in this repo?",
        "Make the script skip the vendor folder.",
        "Looking for the import sorter",
        "$ rg -l isort",
        "setup.cfg tools/sort_imports.py",
        "Two: setup.cfg configures isort",
        "+SKIP = [ \"vendor\" ]",
        "Success. Updated the following files",
        "Thinking (redacted)",
    ] {
        assert!(text.contains(shown), "{shown:?} in {text}");
    }
    assert!(!text.contains("\"metadata\""), "the shell output's text, not its JSON: {text}");
    let all = site_text(&site);
    assert!(!all.contains("Other entries") && !all.contains("codex-unknown"), "{all}");
    // The failed command is an error.
    let notes = std::fs::read_dir(site.join("codex-home-ada-notes/c")).unwrap().flatten().next().unwrap();
    let notes = std::fs::read_to_string(notes.path().join("index.html")).unwrap();
    assert!(notes.contains("pandoc: command not found"));
    assert!(notes.contains("class=\"tool err\""), "the exit code 2 marks an error");
    // Search finds the prompts: the conversation's documents hold them.
    let docs: String = walkdir::WalkDir::new(site.join("codex-home-ada-tidy/c"))
        .into_iter()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("search-"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    for prompt in ["Which files sort the imports in this repo?", "Make the script skip the vendor folder."] {
        assert!(docs.contains(prompt), "{prompt:?} searchable");
    }
    // No finding: the lines without time are the shape, not a fault.
    let o = cctree().arg("check").arg(codex_home()).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
}

/// `cctree sync` without INPUT, Claude Code's folder empty: Codex's
/// sessions and its archived threads are kept (`codex/archived_sessions/`
/// beside `codex/sessions/`), and the archive reads them back.
#[test]
fn sync_keeps_codex_archived_sessions() {
    let home = home_with_empty_claude();
    let archive = home.path().join("archive/projects");
    let o = in_home(home.path()).args(["sync", "--to"]).arg(&archive).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let name = "rollout-2025-10-07T18-42-03-0199c4e2-6b7a-7d31-9e8f-4a2b1c0d9e8f.jsonl";
    let kept = home.path().join("archive/codex/archived_sessions").join(name);
    assert_eq!(
        std::fs::read(&kept).unwrap(),
        std::fs::read(codex_home().join("archived_sessions").join(name)).unwrap()
    );
    let r = report(&[archive]);
    assert_eq!((r.total.projects, r.total.conversations), (2, 3));
}

/// An archived thread the client deleted stays in the archive and is
/// counted and marked as kept only there, like a deleted rollout of
/// `sessions/`.
#[test]
fn a_codex_archived_thread_deleted_at_the_source_is_marked_kept_by_cctree() {
    let home = home_with_empty_claude();
    let archive = home.path().join("archive/projects");
    let sync = || {
        let o = in_home(home.path()).args(["-q", "sync", "--to"]).arg(&archive).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    };
    sync();
    let archived = home.path().join(".codex/archived_sessions");
    std::fs::remove_dir_all(&archived).unwrap();
    std::fs::create_dir(&archived).unwrap();
    sync();
    let o = cctree().args(["stats", "--json"]).arg(&archive).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let stats: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let only = &stats["archive"]["only_in_archive"];
    assert_eq!((only["files"].as_u64(), only["conversations"].as_u64()), (Some(1), Some(1)), "{only}");
    let site = home.path().join("site");
    let o = cctree().args(["-q", "render"]).arg(&archive).arg("-o").arg(&site).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let marked: Vec<String> = crate::common::html_pages(&site)
        .into_iter()
        .filter(|(p, page)| p.ends_with("index.html") && page.contains("kept by cctree"))
        .map(|(p, _)| p.strip_prefix(&site).unwrap().display().to_string())
        .collect();
    assert!(!marked.is_empty() && marked.iter().any(|p| p.starts_with("codex-")), "{marked:?}");
    // Named by the client that deleted it, on its row and on its page.
    let pages = crate::common::html_pages(&site);
    let kept: Vec<&String> = pages.iter().filter(|(_, p)| p.contains("kept by cctree")).map(|(_, p)| p).collect();
    assert!(kept.iter().any(|p| p.contains("Codex CLI has deleted this conversation")), "the conversation's page");
    for page in kept {
        assert!(page.contains("title=\"Codex CLI deleted its transcripts") && !page.contains("Claude Code deleted"));
    }
}

/// Neither shape is offered as a fork the client could not resume: an
/// archived thread (the same file in `sessions/` is offered one) and a
/// rollout from before the envelope; `cctree fork` of either says why.
#[test]
fn archived_and_pre_envelope_codex_threads_are_not_forked() {
    let tmp = tempfile::tempdir().unwrap();
    let archived = std::fs::read_dir(codex_home().join("archived_sessions")).unwrap().flatten().next().unwrap().path();
    let live = tmp.path().join("home/sessions/2025/10/07");
    std::fs::create_dir_all(&live).unwrap();
    std::fs::copy(&archived, live.join(archived.file_name().unwrap())).unwrap();
    let fork_commands = |input: &Path, site: &str| {
        let site = tmp.path().join(site);
        let o = cctree().args(["-q", "render"]).arg(input).arg("-o").arg(&site).output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        crate::common::html_pages(&site).iter().map(|(_, page)| page.matches("cctree fork").count()).sum::<usize>()
    };
    assert!(fork_commands(&tmp.path().join("home"), "live") > 0, "a thread in sessions/ is offered a fork");
    assert_eq!(fork_commands(&codex_home(), "archived"), 0);
    let old =
        codex_home().join("sessions/2025/08/20/rollout-2025-08-20T15-20-47-5b0e7c1a-2f4d-4e8a-9c31-8d2f6a7b9e10.jsonl");
    for (file, why) in [(&archived, "an archived thread"), (&old, "a rollout from before the envelope")] {
        let o = cctree().args(["fork", "--dry-run"]).arg(file).output().unwrap();
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains(why), "{}", stderr(&o));
    }
}

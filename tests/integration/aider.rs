//! Aider: the chat history and input history the real client 0.86.2 wrote
//! (`tests/fixtures/aider-0.86.2/`, transcript-format Appendix J) read into
//! the same graph and pages as every agent's: runs as sessions, a restored
//! run as the resume of the one before, `/clear` and `/reset` as cuts,
//! costs from the client's token lines, a fork written as a new history the
//! client restores, check, sync and the input history as a prompt log.

use std::path::{Path, PathBuf};

use cctree::stats::ProjectDetail;

use crate::agents::{copy_tree, files_under};
use crate::common::site_text;
use crate::support::{cctree, report};

const HISTORY: &str = ".aider.chat.history.md";
const INPUT: &str = ".aider.input.history";
/// The reply to "What changed?" in run 1 (its heading's digits, its offset from the heading).
const WHAT_CHANGED: &str = "20261202014620+1392";

fn aider(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/aider-0.86.2").join(name)
}

/// The `runs` fixture copied into a scratch folder (its path is the project's name).
fn runs_copy(tmp: &Path) -> PathBuf {
    let dir = tmp.join("repo");
    copy_tree(&aider("runs"), &dir);
    dir
}

fn detail(input: &Path) -> ProjectDetail {
    let mut r = report(&[input.to_path_buf()]);
    let mut d = r.projects_detail.take().unwrap();
    assert_eq!(d.len(), 1, "one project in {}", input.display());
    d.remove(0)
}

fn render(input: &Path, site: &Path) {
    let o = cctree().arg("render").arg(input).arg("-o").arg(site).arg("-q").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn stats_json(input: &Path) -> serde_json::Value {
    let o = cctree().arg("stats").arg("--json").arg(input).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn aider_runs_are_sessions_and_a_restored_run_continues_the_run_before() {
    let tmp = tempfile::tempdir().unwrap();
    let d = detail(&runs_copy(tmp.path()));
    let mut convs: Vec<(&str, Vec<&str>)> =
        d.conversations.iter().map(|c| (c.title.as_str(), c.sessions.iter().map(String::as_str).collect())).collect();
    convs.sort();
    // Run 1 alone; run 2 (`--message`) and run 3 (`--restore-chat-history`) one line.
    assert_eq!(
        convs,
        [
            ("EDIT: hello.py: print(\"hello\")", vec!["20261202014620"]),
            ("One-shot prompt", vec!["20261202014738", "20261202014803"]),
        ]
    );
    let resumed = d.conversations.iter().find(|c| c.sessions.len() == 2).unwrap();
    assert!(resumed.fork_points.is_empty(), "a resume is no fork: {:#?}", resumed.fork_points);
    assert_eq!(resumed.branches.len(), 1);
}

#[test]
fn aider_clear_and_reset_are_cuts_that_lose_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let input = runs_copy(tmp.path());
    let r = report(std::slice::from_ref(&input));
    assert_eq!(r.total.compactions, 2, "/clear in run 1, /reset in run 3");
    let d = detail(&input);
    let first = d.conversations.iter().find(|c| c.title.starts_with("EDIT")).unwrap();
    assert_eq!(first.branches.len(), 1, "one line through the /clear");
    let site = tmp.path().join("site");
    render(&input, &site);
    let text = site_text(&site);
    for shown in [
        "Reply to: After the run",
        "After the clear",
        "Reply to: After the reset",
        "A prompt of two lines,",
        "the second one here.",
        "Thinking about the prompt.",
        "Removed: dc63daf feat: scripted change",
    ] {
        assert!(text.contains(shown), "{shown:?} is shown");
    }
}

#[test]
fn aider_costs_come_from_its_token_lines_priced_only_for_a_known_model() {
    let tmp = tempfile::tempdir().unwrap();
    let input = runs_copy(tmp.path());
    let site = tmp.path().join("site");
    render(&input, &site);
    let text = site_text(&site);
    assert!(text.contains("openai/mock-model · 2.4k in · 24 out · price unknown (model not in the price table)"));
    // The same history of a model the price table knows is priced.
    let known = tmp.path().join("known");
    std::fs::create_dir_all(&known).unwrap();
    let md = std::fs::read_to_string(input.join(HISTORY)).unwrap().replace("openai/mock-model", "openai/gpt-5");
    std::fs::write(known.join(HISTORY), md).unwrap();
    let site = tmp.path().join("site-known");
    render(&known, &site);
    let text = site_text(&site);
    assert!(text.contains("openai/gpt-5 · 2.4k in · 24 out · $"), "a priced reply");
    assert!(!text.contains("price unknown"), "every reply priced");
}

#[test]
fn aider_fork_writes_a_new_history_elsewhere_and_names_the_command_that_restores_it() {
    let tmp = tempfile::tempdir().unwrap();
    let input = runs_copy(tmp.path());
    let (history, typed) = (std::fs::read(input.join(HISTORY)).unwrap(), std::fs::read(input.join(INPUT)).unwrap());
    let fork = |at: &str| {
        cctree().arg("fork").arg(format!("--at={at}")).arg("--projects").arg(&input).arg("--").arg(at).output().unwrap()
    };
    let o = fork(WHAT_CHANGED);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let name = ".aider.chat.fork-20261202014620-1392.md";
    assert!(out.contains(&format!("aider --chat-history-file {name} --restore-chat-history")), "{out}");
    // Byte for byte the prefix the real client was seen to restore.
    let written = std::fs::read(input.join(name)).unwrap();
    assert_eq!(written, std::fs::read(aider("fork/prefix-as-written.md")).unwrap());
    assert_eq!(std::fs::read(input.join(HISTORY)).unwrap(), history, "the history is untouched");
    assert_eq!(std::fs::read(input.join(INPUT)).unwrap(), typed, "the input history is untouched");
    // A prompt is no checkpoint.
    let o = fork("20261202014620+45");
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a legal checkpoint"));
    // The run the client then appended to the fork (recorded) makes it a branch at the checkpoint.
    let resumed = std::fs::read(aider("fork/.aider.chat.fork.md")).unwrap();
    assert!(resumed.starts_with(&written));
    std::fs::write(input.join(name), resumed).unwrap();
    let d = detail(&input);
    let c = d.conversations.iter().find(|c| c.title.starts_with("EDIT")).unwrap();
    assert_eq!(c.fork_points.len(), 1, "{:#?}", c.fork_points);
    assert_eq!(c.branches.len(), 2);
    assert!(c.sessions.iter().any(|s| s.ends_with(&format!("@{name}"))), "{:?}", c.sessions);
    let site = tmp.path().join("site");
    render(&input, &site);
    assert!(site_text(&site).contains("Reply to: After the fork"));
    assert_eq!(files_under(&site, "html").iter().filter(|p| p.to_string_lossy().contains("/compare/")).count(), 1);
}

#[test]
fn aider_fixtures_pass_check_and_a_heading_that_goes_back_is_found() {
    for f in ["runs", "fork"] {
        let o = cctree().arg("check").arg(aider(f)).output().unwrap();
        assert!(
            o.status.success(),
            "{f}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let tmp = tempfile::tempdir().unwrap();
    let md = "\n# aider chat started at 2026-12-02 02:00:00\n\n#### later  \n\nReply\n\n# aider chat started at 2026-12-02 01:00:00\n\n#### earlier  \n\nReply\n";
    std::fs::write(tmp.path().join(HISTORY), md).unwrap();
    let o = cctree().arg("check").arg(tmp.path()).output().unwrap();
    assert!(!o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("aider-time-goes-back") && out.contains(":8"), "{out}");
}

#[test]
fn aider_sync_keeps_only_its_files_and_a_deleted_history_stays_rendered() {
    let tmp = tempfile::tempdir().unwrap();
    let input = runs_copy(tmp.path());
    std::fs::write(input.join("notes.txt"), "notes").unwrap();
    let archive = tmp.path().join("arch/projects");
    let sync = || {
        let o = cctree().arg("sync").arg(&input).arg("--to").arg(&archive).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    sync();
    let kept: Vec<String> = files_under(&tmp.path().join("arch/aider"), "md")
        .into_iter()
        .chain(files_under(&tmp.path().join("arch/aider"), "history"))
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(kept, [HISTORY, INPUT]);
    assert!(files_under(&tmp.path().join("arch"), "txt").is_empty(), "nothing else of the folder");
    std::fs::remove_file(input.join(HISTORY)).unwrap();
    sync();
    let site = tmp.path().join("site");
    render(&archive, &site);
    let text = site_text(&site);
    assert!(text.contains("Reply to: After the clear") && text.contains("Reply to: After the reset"));
}

#[test]
fn aider_input_history_recovers_the_prompts_of_runs_whose_chat_history_is_gone() {
    let tmp = tempfile::tempdir().unwrap();
    let input = runs_copy(tmp.path());
    // Only run 3 is left in the chat history.
    let md = std::fs::read_to_string(input.join(HISTORY)).unwrap();
    let at = md.find("\n# aider chat started at 2026-12-02 01:48:03").unwrap();
    std::fs::write(input.join(HISTORY), &md[at..]).unwrap();
    let v = stats_json(&input);
    // Run 1's 14 prompts (the `{`, `}` of the two-line prompt are none) and run 2's `--message` twice.
    assert_eq!(v["recovered"]["prompts"], 16, "{v:#}");
    // A whole history: every typed line is in it.
    let whole = runs_copy(&tmp.path().join("whole"));
    assert_eq!(stats_json(&whole)["recovered"]["prompts"], 0);
}

#[test]
fn aider_histories_are_found_in_the_repositories_other_agents_worked_in() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = runs_copy(tmp.path());
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("src")).unwrap();
    // A Pi session whose working directory is inside the repository.
    let pi = tmp.path().join("pi");
    let cwd = repo.join("src").display().to_string();
    let folder = pi.join("sessions/--work--");
    std::fs::create_dir_all(&folder).unwrap();
    let header =
        serde_json::json!({"type":"session","version":3,"id":"s1","timestamp":"2026-12-02T01:00:00.000Z","cwd":cwd});
    let prompt = serde_json::json!({"type":"message","id":"aaaa0001","parentId":null,"timestamp":"2026-12-02T01:00:01.000Z","message":{"role":"user","content":"Pi prompt"}});
    std::fs::write(folder.join("2026-12-02T01-00-00-000Z_s1.jsonl"), format!("{header}\n{prompt}\n")).unwrap();
    let o =
        cctree().env("PI_CODING_AGENT_DIR", &pi).env("HOME", tmp.path()).arg("stats").arg("--json").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // Pi's project and the repository's history: its two conversations read with Pi's one.
    assert_eq!((v["projects"].as_u64(), v["conversations"].as_u64()), (Some(2), Some(3)), "{v:#}");
}

#[test]
fn aider_history_given_alone_is_read_whatever_its_name() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("chat.md");
    std::fs::copy(aider("runs").join(HISTORY), &file).unwrap();
    let r = report(&[file]);
    assert_eq!(r.total.conversations, 2);
}

#[test]
fn aider_histories_are_found_in_the_repositories_claude_code_worked_in() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = runs_copy(tmp.path());
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    // A Claude Code session whose lines name the repository as their working directory.
    let config = tmp.path().join("claude");
    let project = config.join("projects/-work-repo");
    std::fs::create_dir_all(&project).unwrap();
    let line = serde_json::json!({"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1",
        "timestamp":"2026-12-02T01:00:00.000Z","cwd":repo.display().to_string(),
        "message":{"role":"user","content":"Claude prompt"}});
    std::fs::write(project.join("s1.jsonl"), format!("{line}\n")).unwrap();
    let o =
        cctree().env("CLAUDE_CONFIG_DIR", &config).env("HOME", tmp.path()).args(["stats", "--json"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["projects"].as_u64(), v["conversations"].as_u64()), (Some(2), Some(3)), "{v:#}");
}

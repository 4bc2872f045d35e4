//! Pi: archives the real client 1.6.0 wrote (`tests/fixtures/pi-1.6.0/`,
//! transcript-format Appendix E) read into the same graph and pages as
//! every agent's.

use std::path::{Path, PathBuf};

use cctree::stats::{ConversationDetail, ProjectDetail};

use crate::agents::{copy_tree, files_under};
use crate::common::site_text;
use crate::support::{cctree, report};

fn pi(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pi-1.6.0").join(name)
}

fn detail(input: &Path) -> ProjectDetail {
    let mut r = report(&[input.to_path_buf()]);
    let mut d = r.projects_detail.take().unwrap();
    assert_eq!(d.len(), 1, "one project in {}", input.display());
    d.remove(0)
}

fn only(d: &ProjectDetail) -> &ConversationDetail {
    assert_eq!(d.conversations.len(), 1, "{:#?}", d.conversations);
    &d.conversations[0]
}

fn render(input: &Path, site: &Path) {
    let o = cctree().arg("render").arg(input).arg("-o").arg(site).arg("-q").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn pages_with(site: &Path, part: &str) -> Vec<PathBuf> {
    files_under(site, "html").into_iter().filter(|p| p.to_string_lossy().contains(part)).collect()
}

#[test]
fn pi_tree_branches_are_fork_points_with_a_page_per_branch_and_a_compare_page() {
    let d = detail(&pi("tree"));
    let c = only(&d);
    assert_eq!(c.fork_points.len(), 1, "{:#?}", c.fork_points);
    // The fork point is the reply both second prompts hang on (ids scoped to their file).
    assert!(c.fork_points[0].uuid.ends_with("-47eadd40"), "{:#?}", c.fork_points);
    assert_eq!(c.branches.len(), 2, "{:#?}", c.branches);
    // The active line is the file's last entry's: the prompt after the resume.
    let active = c.branches.iter().find(|b| b.id == c.active_branch).unwrap();
    assert_eq!(active.title, "Second prompt (edited branch)");
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    render(&pi("tree"), &site);
    assert_eq!(pages_with(&site, "/b/").len(), 2, "a page per branch");
    assert_eq!(pages_with(&site, "/compare/").len(), 1, "a compare page per fork point");
    let text = site_text(&site);
    assert!(text.contains("Third prompt"), "the abandoned branch is shown");
    assert!(text.contains("Fifth prompt after resume"));
}

#[test]
fn pi_branch_summary_starts_the_new_branch_of_a_fork_point() {
    let d = detail(&pi("summary"));
    let c = only(&d);
    assert_eq!(c.fork_points.len(), 1, "{:#?}", c.fork_points);
    assert_eq!(c.branches.len(), 2);
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    render(&pi("summary"), &site);
    let text = site_text(&site);
    assert!(text.contains("The user explored a different conversation branch"), "the summary is shown");
    assert!(text.contains("Summary scenario"), "the session's /name titles it");
}

/// The `message` entries of user and assistant on the path from `from`
/// (an entry id of `file`) up to the file's last entry's root-ward walk.
fn messages_between(file: &Path, leaf: &str, from: &str) -> u32 {
    let text = std::fs::read_to_string(file).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let by_id = |id: &str| lines.iter().find(|v| v["id"] == id).unwrap();
    let (mut n, mut cur) = (0, by_id(leaf));
    loop {
        if cur["type"] == "message" && matches!(cur["message"]["role"].as_str(), Some("user" | "assistant")) {
            n += 1;
        }
        if cur["id"] == from {
            return n;
        }
        cur = by_id(cur["parentId"].as_str().unwrap());
    }
}

#[test]
fn pi_branch_summary_is_the_clients_text_not_a_prompt_of_its_branch() {
    let input = pi("summary");
    let file = files_under(&input, "jsonl").remove(0);
    let d = detail(&input);
    let c = only(&d);
    let text = std::fs::read_to_string(&file).unwrap();
    let summary: serde_json::Value = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .find(|v: &serde_json::Value| v["type"] == "branch_summary")
        .unwrap();
    let sid = summary["id"].as_str().unwrap();
    let b = c.branches.iter().find(|b| b.id.ends_with(&format!("-{sid}"))).expect("the branch the summary starts");
    let leaf = b.leaf.rsplit_once('-').unwrap().1;
    // Its messages: the prompts typed and the replies, not the summary.
    assert_eq!(b.messages, messages_between(&file, leaf, sid), "{b:#?}");
    assert_ne!(b.title, "", "titled by the prompt typed after the summary");
    // The map counts the prompts typed on each branch: one per user message.
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    render(&input, &site);
    let prompts = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "message" && v["message"]["role"] == "user")
        .count();
    let map = site_text(&site);
    assert!(map.contains("The user explored a different conversation branch"), "the summary is shown");
    assert!(map.contains(&format!("{prompts} prompts")), "{prompts} prompts in all on the map");
}

/// The text of the `cost` fact of each conversation page of a site.
fn conversation_costs(site: &Path) -> Vec<String> {
    files_under(site, "html")
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "index.html"))
        .filter_map(|p| {
            let html = std::fs::read_to_string(&p).unwrap();
            let at = html.find("<dt>cost</dt><dd>")? + "<dt>cost</dt><dd>".len();
            Some(html[at..at + html[at..].find("</dd>")?].to_string())
        })
        .collect()
}

#[test]
fn pi_cost_says_sub_agents_included_only_when_the_conversation_spawned_some() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, spawning) = (dir.path().join("plain"), dir.path().join("spawning"));
    render(&pi("tree"), &plain);
    let costs = conversation_costs(&plain);
    assert!(!costs.is_empty(), "the conversation page has a cost");
    assert!(costs.iter().all(|c| !c.contains("sub-agents")), "no sub-agent to include: {costs:?}");
    render(&pi("subagent"), &spawning);
    let costs = conversation_costs(&spawning);
    assert!(costs.iter().any(|c| c.ends_with("(sub-agents included)")), "{costs:?}");
    // The archive index and the project page total the same way.
    for (site, spawned) in [(&plain, false), (&spawning, true)] {
        let index = std::fs::read_to_string(site.join("index.html")).unwrap();
        let project = project_page(site);
        for (name, page) in [("index", &index), ("project", &project)] {
            assert!(page.contains("cost:"), "{name}: a cost is shown");
            assert_eq!(page.contains("sub-agents included"), spawned, "{name} of {}", site.display());
        }
    }
}

/// The one project page of a rendered site.
fn project_page(site: &std::path::Path) -> String {
    let dirs: Vec<_> = std::fs::read_dir(site)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("index.html").is_file() && !p.ends_with("search") && !p.ends_with("assets"))
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    std::fs::read_to_string(dirs[0].join("index.html")).unwrap()
}

#[test]
fn pi_fork_copies_share_their_ids_as_one_cross_session_fork() {
    let d = detail(&pi("fork"));
    let c = only(&d);
    assert_eq!(c.sessions.len(), 4, "{:?}", c.sessions);
    assert!(!c.fork_points.is_empty(), "{:#?}", c.fork_points);
    assert!(c.fork_points.iter().any(|f| f.kind == "cross-session"), "{:#?}", c.fork_points);
    let r = report(&[pi("fork")]);
    assert!(r.total.duplicate_uuids > 0, "the copies are the same nodes");
    assert_eq!(r.total.roots, 1);
}

#[test]
fn pi_compaction_and_sub_agents_are_read() {
    let r = report(&[pi("compact")]);
    assert_eq!(r.total.compactions, 1);
    let r = report(&[pi("subagent")]);
    assert_eq!(r.total.agents, 2, "the run and the fork-context child");
}

#[test]
fn pi_fixtures_pass_check() {
    for f in ["tree", "summary", "fork", "resume", "compact", "custom", "content", "subagent"] {
        let o = cctree().arg("check").arg(pi(f)).output().unwrap();
        assert!(
            o.status.success(),
            "{f}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn pi_sync_keeps_a_session_deleted_at_the_source_rendered_from_the_archive() {
    let tmp = tempfile::tempdir().unwrap();
    let sessions = tmp.path().join("agent/sessions");
    copy_tree(&pi("fork").join("sessions"), &sessions);
    let archive = tmp.path().join("arch/projects");
    let sync = || {
        let o = cctree().arg("sync").arg(&sessions).arg("--to").arg(&archive).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    sync();
    // The clone (the only file holding this prompt) is deleted at the source.
    let clone = files_under(&sessions, "jsonl")
        .into_iter()
        .find(|f| std::fs::read_to_string(f).unwrap().contains("Prompt in the clone"))
        .unwrap();
    std::fs::remove_file(&clone).unwrap();
    sync();
    let dir = tempfile::tempdir().unwrap();
    let (live, kept) = (dir.path().join("live"), dir.path().join("kept"));
    render(&sessions, &live);
    assert!(!site_text(&live).contains("Prompt in the clone"), "the source no longer has it");
    render(&archive, &kept);
    assert!(site_text(&kept).contains("Prompt in the clone"), "the archive keeps the deleted session");
}

#[test]
fn pi_fork_at_an_abandoned_reply_writes_root_to_checkpoint_beside_its_source() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    copy_tree(&pi("tree"), &input);
    let source = files_under(&input, "jsonl").remove(0);
    let before = std::fs::read(&source).unwrap();
    // Pi's folder of this machine is not where a session read elsewhere goes.
    let agent = tmp.path().join("agent");
    let o = cctree()
        .env("PI_CODING_AGENT_DIR", &agent)
        .arg("fork")
        .arg("--at=01a23445-b2b5-74d9-b47f-e239abf007a4-d2bc8b4e")
        .arg(&source)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("pi --session "), "{out}");
    assert_eq!(std::fs::read(&source).unwrap(), before, "the source is untouched");
    assert!(!agent.exists(), "nothing written into {}", agent.display());
    let written: Vec<PathBuf> =
        files_under(source.parent().unwrap(), "jsonl").into_iter().filter(|f| *f != source).collect();
    assert_eq!(written.len(), 1, "the fork lies in its source's project folder");
    let text = std::fs::read_to_string(&written[0]).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with(r#"{"type":"session","version":3,"#), "{}", lines[0]);
    assert!(lines[0].contains("parentSession"));
    let src = String::from_utf8(before).unwrap();
    let src_lines: Vec<&str> = src.lines().collect();
    // The path root → the abandoned "Third prompt" reply: lines 2..=12 of the source.
    assert_eq!(&lines[1..], &src_lines[1..12]);
    assert!(lines.last().unwrap().contains(r#""id":"d2bc8b4e""#));
    // Read with its source, the copies are the source's nodes (same ids
    // scoped by the source): one conversation, no duplicate root.
    let r = report(std::slice::from_ref(&input));
    assert_eq!(r.total.roots, 1);
    assert!(r.total.duplicate_uuids > 0);
    let d = detail(&input);
    assert_eq!(only(&d).fork_points.len(), 1);
}

//! Qwen Code: archives the real client 0.24.4 wrote
//! (`tests/fixtures/qwen-0.24.4/`, transcript-format Appendix G) read into
//! the same graph and pages as every agent's, one test per acceptance point.

use std::path::{Path, PathBuf};

use cctree::stats::{ConversationDetail, ProjectDetail};
use serde_json::Value;

use crate::agents::{copy_tree, files_under, jsonl};
use crate::common::{collapse, site_text};
use crate::support::{cctree, report};

pub fn qwen(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/qwen-0.24.4").join(name)
}

/// The fixtures the client wrote itself (not the hand-made ones).
const RECORDED: &[&str] = &["headless", "rewind", "fork-session", "sub-agent", "compress", "rename"];

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

/// The records of every session file of a fixture (`chats/`, `subagents/`).
fn records(dir: &Path) -> Vec<Value> {
    files_under(dir, "jsonl").iter().flat_map(|f| jsonl(f)).collect()
}

fn text_of(parts: &Value) -> String {
    let texts: Vec<&str> = parts
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["thought"] != true)
        .filter_map(|p| p["text"].as_str())
        .filter(|t| !t.starts_with('<'))
        .collect();
    texts.join("\n")
}

/// Every prompt typed and every reply's text of a fixture.
fn messages(dir: &Path) -> Vec<String> {
    records(dir)
        .iter()
        .filter(|v| matches!(v["type"].as_str(), Some("user" | "assistant")) && v["subtype"].is_null())
        .map(|v| text_of(&v["message"]["parts"]))
        .filter(|t| !t.trim().is_empty())
        .collect()
}

fn render(input: &Path, site: &Path) {
    let o = cctree().arg("render").arg(input).arg("-o").arg(site).arg("-q").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The pages under a site's conversation folder whose path holds `part`.
fn pages_with(site: &Path, part: &str) -> Vec<PathBuf> {
    files_under(site, "html").into_iter().filter(|p| p.to_string_lossy().contains(part)).collect()
}

#[test]
fn qwen_rewinds_are_fork_points_with_a_page_per_branch_and_a_compare_page() {
    let d = detail(&qwen("rewind"));
    let c = only(&d);
    assert_eq!(c.fork_points.len(), 2, "{:#?}", c.fork_points);
    assert!(c.fork_points.iter().all(|f| f.kind == "rewind"), "{:#?}", c.fork_points);
    // Each rewind record hangs on the record before the prompt rewound to
    // (a reply, then a telemetry record): the fork point is the reply they
    // lead to, its futures the abandoned prompt and the one typed after.
    let rs = records(&qwen("rewind"));
    let uuid_of = |text: &str| {
        rs.iter()
            .find(|v| text_of(&v["message"]["parts"]) == text)
            .and_then(|v| v["uuid"].as_str())
            .unwrap()
            .to_string()
    };
    let first = c.fork_points.iter().find(|f| f.uuid == uuid_of("Done with: First prompt [[sh: echo first]]")).unwrap();
    let mut kids = first.children.clone();
    kids.sort();
    let mut want = vec![uuid_of("Second prompt to rewind to"), uuid_of("Second prompt, rewritten")];
    want.sort();
    assert_eq!(kids, want);
    assert_eq!(c.branches.len(), 3, "{:#?}", c.branches);
    // The active line is the one the client loads: the last prompt's.
    let active = c.branches.iter().find(|b| b.id == c.active_branch).unwrap();
    assert_eq!(active.title, "Third prompt after the second rewind");
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    render(&qwen("rewind"), &site);
    assert_eq!(pages_with(&site, "/b/").len(), 3, "a page per branch");
    assert_eq!(pages_with(&site, "/compare/").len(), 2, "a compare page per fork point");
    let text = site_text(&site);
    assert!(text.contains("Third prompt to abandon"), "the abandoned branch is shown");
}

#[test]
fn qwen_fork_session_is_a_cross_session_fork_of_the_copied_records() {
    let d = detail(&qwen("fork-session"));
    let c = only(&d);
    assert_eq!(c.sessions.len(), 2, "{:?}", c.sessions);
    assert_eq!(c.fork_points.len(), 1, "{:#?}", c.fork_points);
    assert_eq!(c.fork_points[0].kind, "cross-session");
    let titles: Vec<&str> = c.branches.iter().map(|b| b.title.as_str()).collect();
    assert!(titles.contains(&"Third prompt, in the fork"), "{titles:?}");
    // The copies keep their uuids: shown once.
    let r = report(&[qwen("fork-session")]);
    assert!(r.total.duplicate_uuids > 0);
    assert_eq!(r.total.roots, 1);
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    render(&qwen("fork-session"), &site);
    assert_eq!(pages_with(&site, "/b/").len(), 2);
    assert_eq!(pages_with(&site, "/compare/").len(), 1);
}

#[test]
fn qwen_sub_agents_are_kept_apart_from_the_parent_and_linked_to_their_call() {
    let d = detail(&qwen("sub-agent"));
    let c = only(&d);
    assert!(c.fork_points.is_empty(), "{:#?}", c.fork_points);
    assert_eq!(c.branches.len(), 1);
    // They carry the parent's session id, yet are three agents of their own.
    assert_eq!(d.agents.len(), 3, "{:#?}", d.agents);
    let mut calls: Vec<&str> = d.agents.iter().filter_map(|a| a.spawn_tool_use.as_deref()).collect();
    calls.sort_unstable();
    assert_eq!(calls, ["call_10_0", "call_1_0", "call_6_0"]);
    assert!(d.agents.iter().all(|a| a.kind == "subagent" && a.nodes >= 3), "{:#?}", d.agents);
    // The parent's line holds only its own messages.
    assert!(c.messages < 14, "{}", c.messages);
}

#[test]
fn qwen_compress_is_a_compaction_the_line_goes_on_through() {
    let d = detail(&qwen("compress"));
    let c = only(&d);
    assert!(c.fork_points.is_empty(), "{:#?}", c.fork_points);
    let r = report(&[qwen("compress")]);
    assert_eq!(r.total.compactions, 1);
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    render(&qwen("compress"), &site);
    let text = site_text(&site);
    assert!(text.contains("Summary of the work so far."), "the replacement history is shown");
    assert!(text.contains("/compress"), "the command typed is shown");
    // As the client shows it: the command, then the compaction (the file
    // holds the compression record first).
    let before = &text[..text.find("Summary of the work so far.").unwrap()];
    assert!(before.rfind("/compress") > before.rfind("Reply to: Third prompt"), "the command comes before the summary");
    assert!(text.contains(&collapse("Fourth prompt after compression")));
}

#[test]
fn qwen_archives_render_every_prompt_and_reply_searched_and_counted() {
    for name in RECORDED {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("site");
        render(&qwen(name), &site);
        let text = site_text(&site);
        let wanted = messages(&qwen(name));
        assert!(wanted.len() >= 4, "{name}: {wanted:?}");
        for m in &wanted {
            assert!(text.contains(&collapse(m)), "{name}: {m:?} is on no page");
        }
        assert!(text.contains("Qwen"), "{name}");
        assert!(text.contains("qwen-mock"), "{name}: the model is named");
        // Tokens are counted; the mock's model has no price (never guessed).
        assert!(text.contains("price unknown"), "{name}");
        assert!(!text.contains("claude -r"), "{name}: no Claude fork command on a Qwen page");
        // Telemetry and snapshots are no messages.
        assert!(!text.contains("ui_telemetry") && !text.contains("attribution_snapshot"), "{name}");
        // The search index holds the prompts.
        let index: String = files_under(&site.join("search"), "js")
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap().to_lowercase())
            .collect();
        assert!(index.contains("prompt") || index.contains("delegate") || index.contains("run"), "{name}");
    }
}

#[test]
fn qwen_archives_are_checked_clean_and_a_broken_one_is_not() {
    for name in RECORDED {
        let o = cctree().arg("check").arg(qwen(name)).output().unwrap();
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stdout));
    }
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&qwen("rewind"), tmp.path());
    let chats = files_under(tmp.path(), "jsonl");
    let file = &chats[0];
    let text = std::fs::read_to_string(file).unwrap();
    let id = file.file_stem().unwrap().to_string_lossy().to_string();
    // A record of another session (the client refuses to resume), and a
    // copy under a name that is not its session.
    let other = text.lines().last().unwrap().replace(&id, "99999999-9999-4999-8999-999999999999");
    std::fs::write(file, format!("{text}{other}\n")).unwrap();
    std::fs::write(file.with_file_name("12345678-1234-4234-8234-123456789abc.jsonl"), text.lines().next().unwrap())
        .unwrap();
    let o = cctree().arg("check").arg(tmp.path()).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("qwen-mixed-session-ids"), "{out}");
    assert!(out.contains("qwen-file-not-its-session"), "{out}");
}

#[test]
fn qwen_custom_titles_name_the_conversation() {
    let d = detail(&qwen("rename"));
    let c = only(&d);
    assert_eq!(c.title, "Named by hand");
    // The re-anchored title beside the chain is no branch.
    assert!(c.fork_points.is_empty(), "{:#?}", c.fork_points);
}

#[test]
fn without_input_qwen_s_runtime_directory_is_read() {
    let home = tempfile::tempdir().unwrap();
    copy_tree(&qwen("rewind"), &home.path().join("rt"));
    let o = cctree()
        .args(["stats", "--json"])
        .env("HOME", home.path())
        .env("CLAUDE_CONFIG_DIR", home.path().join("no-claude"))
        .env("QWEN_RUNTIME_DIR", home.path().join("rt"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["projects"].as_u64(), v["fork_points"].as_u64()), (Some(1), Some(2)), "{v}");
}

#[test]
fn a_qwen_fork_is_a_new_session_file_of_the_chain_and_leaves_the_source_alone() {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&qwen("rewind"), tmp.path());
    let before: Vec<(PathBuf, Vec<u8>)> =
        files_under(tmp.path(), "jsonl").into_iter().map(|f| (f.clone(), std::fs::read(&f).unwrap())).collect();
    let source = &before[0].0;
    let id = source.file_stem().unwrap().to_string_lossy().to_string();
    let rs = jsonl(source);
    let at = rs
        .iter()
        .find(|v| text_of(&v["message"]["parts"]) == "Reply to: Third prompt to abandon")
        .and_then(|v| v["uuid"].as_str())
        .unwrap()
        .to_string();
    // A reply with a call pending is refused.
    let call = rs.iter().find(|v| v["message"]["parts"][0]["functionCall"].is_object()).unwrap();
    let o = cctree()
        .args(["fork", &format!("--at={}", call["uuid"].as_str().unwrap()), "--projects"])
        .arg(tmp.path().join("projects"))
        .args(["--", &id])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let o = cctree()
        .args(["fork", &format!("--at={at}"), "--projects"])
        .arg(tmp.path().join("projects"))
        .args(["--", &id])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("qwen --resume"), "{out}");
    for (f, bytes) in &before {
        assert_eq!(&std::fs::read(f).unwrap(), bytes, "{} untouched", f.display());
    }
    let new: Vec<PathBuf> =
        files_under(tmp.path(), "jsonl").into_iter().filter(|f| !before.iter().any(|b| &b.0 == f)).collect();
    assert_eq!(new.len(), 1, "{new:?}");
    assert_eq!(new[0].parent(), source.parent(), "beside the source in chats/");
    let copy = jsonl(&new[0]);
    let new_id = new[0].file_stem().unwrap().to_string_lossy().to_string();
    assert!(copy.iter().all(|v| v["sessionId"] == new_id.as_str()), "one session id");
    // Root → checkpoint by parentUuid, then the title under the checkpoint.
    assert_eq!(copy[0]["parentUuid"], Value::Null);
    for w in copy.windows(2) {
        assert_eq!(w[1]["parentUuid"], w[0]["uuid"]);
    }
    let last_msg = copy.iter().rev().find(|v| v["type"] == "assistant").unwrap();
    assert_eq!(last_msg["uuid"], at.as_str());
    assert_eq!(copy.last().unwrap()["subtype"], "custom_title");
    assert!(copy.iter().all(|v| v["subtype"] == "custom_title" || v["forkedFrom"]["sessionId"] == id.as_str()));
    assert!(!copy.iter().any(|v| text_of(&v["message"]["parts"]) == "Second prompt, rewritten"), "only the chain");
    // Read back: the copies are the abandoned branch's records, shown once
    // (until the client resumes the fork, it adds no message).
    let d = detail(&tmp.path().join("projects"));
    let c = only(&d);
    assert_eq!(c.branches.len(), 3);
    let r = report(&[tmp.path().join("projects")]);
    let copied =
        copy.iter().filter(|v| matches!(v["type"].as_str(), Some("user" | "assistant" | "tool_result"))).count();
    assert_eq!(r.total.duplicate_uuids as usize, copied, "each copied message a copy of its source");
    let check = cctree().arg("check").arg(tmp.path().join("projects")).output().unwrap();
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stdout));
}

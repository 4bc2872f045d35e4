//! GitHub Copilot CLI: archives the real client 1.0.102 wrote
//! (`tests/fixtures/copilot-1.0.102/`, transcript-format Appendix I) read
//! into the same graph and pages as every agent's.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agents::{copy_tree, files_under, jsonl};
use crate::common::{collapse, site_text};
use crate::support::{cctree, report};

fn copilot(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/copilot-1.0.102").join(name).join("home/.copilot")
}

fn detail(input: &Path) -> cctree::stats::ProjectDetail {
    let mut r = report(&[input.to_path_buf()]);
    let mut d = r.projects_detail.take().unwrap();
    assert_eq!(d.len(), 1, "one project in {}", input.display());
    d.remove(0)
}

fn render(input: &Path, site: &Path) {
    let o = cctree().arg("render").arg(input).arg("-o").arg(site).arg("-q").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Every prompt and reply text of a folder's events.
fn messages(dir: &Path) -> Vec<String> {
    files_under(dir, "jsonl")
        .iter()
        .flat_map(|f| jsonl(f))
        .filter(|v| matches!(v["type"].as_str(), Some("user.message" | "assistant.message")))
        .filter_map(|v| v["data"]["content"].as_str().map(str::to_string))
        .filter(|t| !t.trim().is_empty())
        .collect()
}

#[test]
fn copilot_resumes_append_to_one_conversation_and_the_sub_agent_is_linked_to_its_task_call() {
    let d = detail(&copilot("prompt"));
    assert_eq!(d.conversations.len(), 1, "{:#?}", d.conversations);
    let c = &d.conversations[0];
    assert!(c.fork_points.is_empty(), "{:#?}", c.fork_points);
    assert_eq!(c.branches.len(), 1);
    assert_eq!(d.agents.len(), 1, "{:#?}", d.agents);
    let events = jsonl(&files_under(&copilot("prompt"), "jsonl")[0]);
    let task = events.iter().find(|v| v["type"] == "subagent.started").unwrap();
    assert_eq!(d.agents[0].id, task["agentId"].as_str().unwrap());
    assert_eq!(d.agents[0].spawn_tool_use.as_deref(), task["data"]["toolCallId"].as_str());
    let o = cctree().arg("check").arg(copilot("prompt")).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
}

#[test]
fn copilot_archives_render_every_prompt_and_reply_with_usage() {
    for name in ["prompt", "tui", "fork"] {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("site");
        render(&copilot(name), &site);
        let text = site_text(&site);
        let wanted = messages(&copilot(name));
        assert!(wanted.len() >= 2, "{name}: {wanted:?}");
        for m in &wanted {
            assert!(text.contains(&collapse(m)), "{name}: {m:?} is on no page");
        }
        assert!(text.contains("Copilot"), "{name}");
        // Each reply has the usage of the record before it: 100 in, 10 out.
        assert!(text.contains("100 in · 10 out"), "{name}");
        assert!(!text.contains("session.usage_record") && !text.contains("assistant.turn_start"), "{name}");
    }
}

#[test]
fn copilot_compaction_fork_clear_and_titles_and_a_rewind_kept_by_sync_is_a_fork_point() {
    let d = detail(&copilot("tui"));
    assert_eq!(d.conversations.len(), 2, "/clear starts a conversation of its own: {:#?}", d.conversations);
    let c = d.conversations.iter().find(|c| c.sessions.len() == 2).expect("the /fork session joins its source");
    assert_eq!(c.title, "Alpha title", "the name /rename wrote in workspace.yaml");
    let r = report(&[copilot("tui")]);
    assert_eq!(r.total.compactions, 1);
    // The rewound events are gone from the live file; the version before
    // the rewind, as `cctree sync` keeps it, brings them back as a branch.
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&copilot("tui"), tmp.path());
    let before = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/copilot-1.0.102/tui/before-rewind");
    let session = std::fs::read_dir(&before).unwrap().flatten().next().unwrap().file_name();
    std::fs::copy(
        before.join(&session).join("events.jsonl"),
        tmp.path().join("session-state").join(&session).join("events.cctree-kept-0123456789abcdef.jsonl"),
    )
    .unwrap();
    let d = detail(tmp.path());
    let c = d.conversations.iter().find(|c| c.sessions.len() == 2).unwrap();
    assert_eq!(c.fork_points.len(), 1, "{:#?}", c.fork_points);
    assert_eq!(c.fork_points[0].kind, "rewind");
    let live = jsonl(&tmp.path().join("session-state").join(&session).join("events.jsonl"));
    let info = live.iter().position(|v| v["data"]["infoType"] == "rewind").unwrap();
    let after = live[info..].iter().find(|v| v["type"] == "user.message").unwrap();
    assert!(c.fork_points[0].children.iter().any(|k| k == after["id"].as_str().unwrap()));
    for input in [copilot("tui"), tmp.path().to_path_buf()] {
        let o = cctree().arg("check").arg(&input).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    }
}

#[test]
fn a_copilot_fork_is_a_new_session_folder_of_the_events_up_to_the_turn_s_end() {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&copilot("prompt"), tmp.path());
    let source = files_under(tmp.path(), "jsonl").remove(0);
    let before = std::fs::read(&source).unwrap();
    let events = jsonl(&source);
    let id = events[0]["data"]["sessionId"].as_str().unwrap().to_string();
    let at = events
        .iter()
        .find(|v| v["type"] == "assistant.message" && v["data"]["toolRequests"].as_array().is_none_or(Vec::is_empty))
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let o = cctree()
        .args(["fork", &format!("--at={at}"), "--projects"])
        .arg(tmp.path())
        .args(["--", &id])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("copilot --resume="), "{out}");
    assert_eq!(std::fs::read(&source).unwrap(), before, "the source is untouched");
    let new = files_under(tmp.path(), "jsonl").into_iter().find(|f| f != &source).unwrap();
    let copy = jsonl(&new);
    let new_id = new.parent().unwrap().file_name().unwrap().to_string_lossy().to_string();
    assert_eq!(copy[0]["data"]["sessionId"], new_id.as_str());
    let src_text = String::from_utf8(before).unwrap();
    let new_text = std::fs::read_to_string(&new).unwrap();
    // Byte for byte but the first line; it ends with the turn's end.
    let rest: Vec<&str> = new_text.lines().skip(1).collect();
    assert_eq!(rest, src_text.lines().skip(1).take(rest.len()).collect::<Vec<_>>());
    assert_eq!(copy.last().unwrap()["type"], "assistant.turn_end");
    assert!(copy.iter().any(|v| v["id"] == at.as_str()));
    let check = cctree().arg("check").arg(tmp.path()).output().unwrap();
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stdout));
    // A reply with a tool request is no checkpoint.
    let call = events.iter().find(|v| v["data"]["toolRequests"].as_array().is_some_and(|r| !r.is_empty())).unwrap();
    let o = cctree()
        .args(["fork", &format!("--at={}", call["id"].as_str().unwrap()), "--projects"])
        .arg(tmp.path())
        .args(["--", &id])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn without_input_copilot_s_home_is_read() {
    let home = tempfile::tempdir().unwrap();
    copy_tree(&copilot("prompt"), &home.path().join("cp"));
    let o = cctree()
        .args(["stats", "--json"])
        .env("HOME", home.path())
        .env("CLAUDE_CONFIG_DIR", home.path().join("no-claude"))
        .env("COPILOT_HOME", home.path().join("cp"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["projects"].as_u64(), v["agents"].as_u64()), (Some(1), Some(1)), "{v}");
}

//! Conformance with GitHub Copilot CLI 1.0.102 (`@github/copilot`,
//! `tests/conformance/copilot/package-lock.json`, installed by
//! `scripts/install-copilot.sh`): the real client driven offline in its BYOK
//! mode (`COPILOT_OFFLINE=true`, a custom OpenAI-compatible provider on
//! loopback: [`crate::chat`]) with `-p`, `--resume` and `--continue`. Each
//! scenario pins what the client writes (`docs/transcript-format.md`,
//! appendix I) and asserts what cctree makes of it; a cctree fork is resumed
//! by the client.

pub mod client;

use serde_json::Value;

use client::{Sandbox, events};

fn only_conversation(d: &Value) -> &Value {
    let convs = d["conversations"].as_array().unwrap();
    assert_eq!(convs.len(), 1, "one conversation: {d:#}");
    &convs[0]
}

/// Every prompt and reply text the client recorded.
fn texts(s: &Sandbox) -> Vec<String> {
    let mut out: Vec<String> = s
        .sessions()
        .iter()
        .flat_map(|d| events(&d.join("events.jsonl")))
        .filter(|v| matches!(v["type"].as_str(), Some("user.message" | "assistant.message")))
        .filter_map(|v| v["data"]["content"].as_str().map(str::to_string))
        .filter(|t| !t.trim().is_empty())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// `check` clean, every prompt and reply on some page, the key in no file.
fn assert_read_faithfully(s: &Sandbox) {
    crate::model::assert_check_clean(&s.copilot);
    let pages = crate::model::render(&s.copilot, &s.root.join("site"));
    crate::model::assert_site(&pages, &texts(s));
    for e in walkdir::WalkDir::new(&s.copilot).into_iter().flatten().filter(|e| e.file_type().is_file()) {
        let t = std::fs::read(e.path()).unwrap_or_default();
        assert!(!String::from_utf8_lossy(&t).contains(client::API_KEY), "the key reaches {}", e.path().display());
    }
}

/// Each event's `parentId` is the event written before it (the first's
/// `null`): one linear chain.
fn assert_linear(ls: &[Value]) {
    assert!(ls[0]["parentId"].is_null(), "{:#}", ls[0]);
    for w in ls.windows(2) {
        assert_eq!(w[1]["parentId"], w[0]["id"], "{} after {}", w[1]["type"], w[0]["type"]);
    }
}

fn id_of_text(ls: &[Value], t: &str) -> String {
    ls.iter()
        .find(|v| v["data"]["content"] == t)
        .and_then(|v| v["id"].as_str())
        .unwrap_or_else(|| panic!("no event {t:?}"))
        .to_string()
}

#[test]
fn copilot_print_mode_resume_and_continue_append_to_one_session_read_as_one_line() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "print");
    s.print(&[], "First: [[sh: echo one]]");
    let dirs = s.sessions();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    let id = dirs[0].file_name().unwrap().to_string_lossy().into_owned();
    s.print(&[&format!("--resume={id}")], "Second prompt");
    s.print(&["--continue"], "Third prompt");
    assert_eq!(s.sessions(), dirs, "resumes append to the same session folder");
    let ls = events(&dirs[0].join("events.jsonl"));
    assert_linear(&ls);
    let kinds: Vec<&str> = ls.iter().filter_map(|v| v["type"].as_str()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "session.start").count(), 1, "{kinds:?}");
    let resumes: Vec<&Value> = ls.iter().filter(|v| v["type"] == "session.resume").collect();
    assert_eq!(resumes.len(), 2, "{kinds:?}");
    for r in &resumes {
        let at = ls.iter().position(|v| v["id"] == r["id"]).unwrap();
        assert_eq!(ls[at - 1]["type"], "session.shutdown", "a resume follows the previous exit");
        assert_eq!(r["data"]["eventCount"].as_u64(), Some(at as u64), "eventCount: the lines before it");
    }
    // The tool call, its start and completion paired by toolCallId.
    let call = ls
        .iter()
        .find_map(|v| {
            v["data"]["toolRequests"].as_array().and_then(|t| t.iter().find(|t| t["name"] == "bash")).cloned()
        })
        .expect("a bash call");
    let done = ls
        .iter()
        .find(|v| v["type"] == "tool.execution_complete" && v["data"]["toolCallId"] == call["toolCallId"])
        .expect("its completion");
    assert!(done["data"]["result"]["content"].as_str().unwrap_or("").contains("one"), "{done:#}");
    let d = crate::model::detail(&s.copilot);
    let conv = only_conversation(&d);
    assert!(conv["fork_points"].as_array().unwrap().is_empty(), "{conv:#}");
    assert_eq!(conv["branches"].as_array().unwrap().len(), 1, "{conv:#}");
    assert_eq!(conv["sessions"].as_array().unwrap().len(), 1, "{conv:#}");
    assert_read_faithfully(&s);
}

#[test]
fn a_cctree_fork_is_resumed_by_copilot_with_exactly_root_to_checkpoint() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "cctree-fork");
    s.print(&[], "First prompt");
    let dir = s.sessions().remove(0);
    let id = dir.file_name().unwrap().to_string_lossy().into_owned();
    s.print(&[&format!("--resume={id}")], "Second prompt");
    s.print(&[&format!("--resume={id}")], "Third prompt");
    let source = dir.join("events.jsonl");
    let before = std::fs::read(&source).unwrap();
    let ls = events(&source);
    let at = id_of_text(&ls, "Reply to: Second prompt");
    let o = crate::model::cctree()
        .args(["fork", &format!("--at={at}"), "--projects"])
        .arg(&s.copilot)
        .args(["--", &id])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    let new_id = out.lines().find_map(|l| l.strip_prefix("new session: ")).unwrap().trim().to_string();
    assert!(out.contains(&format!("copilot --resume={new_id}")), "{out}");
    s.mock.clear();
    s.print(&[&format!("--resume={new_id}")], "After the fork");
    assert_eq!(std::fs::read(&source).unwrap(), before, "the source is untouched");
    // The client sent root → checkpoint, then the new prompt.
    let chat = s.chats().into_iter().next().expect("a request");
    let prompts: Vec<String> = chat.prompts().iter().map(|p| client::typed(p)).collect();
    assert_eq!(prompts, ["First prompt", "Second prompt", "After the fork"], "{prompts:?}");
    let replies: Vec<String> =
        chat.messages.iter().filter(|m| m["role"] == "assistant").map(|m| crate::chat::text(&m["content"])).collect();
    assert!(replies.contains(&"Reply to: Second prompt".to_string()), "{replies:?}");
    assert!(!replies.iter().any(|r| r.contains("Third")), "{replies:?}");
    let fl = events(&s.copilot.join("session-state").join(&new_id).join("events.jsonl"));
    assert!(fl.iter().any(|v| v["type"] == "session.resume"));
    assert!(fl.iter().any(|v| v["data"]["content"] == "After the fork"));
    let d = crate::model::detail(&s.copilot);
    let conv = only_conversation(&d);
    let forks = conv["fork_points"].as_array().unwrap();
    assert_eq!(forks.len(), 1, "{conv:#}");
    assert_eq!(forks[0]["uuid"], at.as_str(), "{conv:#}");
    assert_read_faithfully(&s);
}

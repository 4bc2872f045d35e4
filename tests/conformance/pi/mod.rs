//! Conformance with Pi 1.6.0 (`@earendil-works/pi-coding-agent`,
//! `tests/conformance/pi/package-lock.json`, installed by
//! `scripts/install-pi.sh` on the pinned Node): the real client driven
//! offline (`-p`, `-c`, `--session`, and its TUI in tmux for `/tree`, the
//! branch summary and `/fork`) against the chat-completions mock on loopback
//! ([`crate::chat`], a custom provider of `api: openai-completions` in
//! `~/.pi/agent/models.json`). Each scenario pins what the client writes
//! (`docs/transcript-format.md`, appendix E) and asserts what cctree makes of
//! it; a cctree fork is resumed by the client.

pub mod client;

use std::path::Path;

use serde_json::Value;

use client::{Sandbox, id_of, lines, session_id, text};

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
        .flat_map(|f| lines(f))
        .filter(|v| v["type"] == "message" && matches!(v["message"]["role"].as_str(), Some("user" | "assistant")))
        .map(|v| text(&v))
        .filter(|t| !t.trim().is_empty())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// `check` clean, every prompt and reply on some page, Pi's name on them,
/// the key in no file.
fn assert_read_faithfully(s: &Sandbox) -> Vec<(std::path::PathBuf, String)> {
    crate::model::assert_check_clean(&s.sessions_dir());
    let pages = crate::model::render(&s.sessions_dir(), &s.root.join("site"));
    crate::model::assert_site(&pages, &texts(s));
    let all: String = pages.iter().map(|(_, h)| h.as_str()).collect();
    assert!(all.contains("<span class=\"role\">Pi</span>"), "replies are Pi's");
    for e in walkdir::WalkDir::new(&s.agent).into_iter().flatten().filter(|e| e.file_type().is_file()) {
        let t = std::fs::read(e.path()).unwrap_or_default();
        assert!(!String::from_utf8_lossy(&t).contains(client::API_KEY), "the key reaches {}", e.path().display());
    }
    pages
}

/// The header first, then entries whose `parentId` is an earlier entry's
/// id of the same file (or `null`), ids unique within the file: the tree
/// the client walks.
fn assert_tree(path: &Path) -> Vec<Value> {
    let ls = lines(path);
    assert_eq!(ls[0]["type"], "session", "{}: the header first", path.display());
    assert_eq!(ls[0]["version"], 3);
    let mut seen = std::collections::HashSet::new();
    for v in &ls[1..] {
        let id = v["id"].as_str().unwrap().to_string();
        assert!(id.len() == 8 && id.chars().all(|c| c.is_ascii_hexdigit()), "{}: id {id}", path.display());
        if let Some(p) = v["parentId"].as_str() {
            assert!(seen.contains(p), "{}: parent {p} is not earlier", path.display());
        }
        assert!(seen.insert(id), "{}: ids unique within the file", path.display());
    }
    ls
}

/// The prompts a request sent, as typed (user messages' last lines).
fn prompts_sent(chat: &crate::chat::Chat) -> Vec<String> {
    chat.prompts().iter().map(|p| client::typed(p)).collect()
}

#[test]
fn pi_print_mode_continue_and_session_append_to_one_file_read_as_one_line() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "print");
    s.print(&[], "First: [[sh: echo one]]");
    let files = s.sessions();
    assert_eq!(files.len(), 1, "{files:?}");
    let id = session_id(&files[0]);
    s.print(&["-c"], "Second prompt");
    s.print(&["--session", &id], "Third prompt");
    assert_eq!(s.sessions(), files, "resumes append to the same file");
    let ls = assert_tree(&files[0]);
    // One root (the model change), then a single chain.
    assert_eq!(ls[1]["type"], "model_change");
    assert!(ls[1]["parentId"].is_null());
    for w in ls[1..].windows(2) {
        assert_eq!(w[1]["parentId"], w[0]["id"], "one chain: {} after {}", w[1]["type"], w[0]["type"]);
    }
    let call = ls
        .iter()
        .find_map(|v| {
            v["message"]["content"].as_array()?.iter().find(|b| b["type"] == "toolCall" && b["name"] == "bash").cloned()
        })
        .expect("a bash call");
    let result = ls.iter().find(|v| v["message"]["role"] == "toolResult").unwrap();
    assert_eq!(result["message"]["toolCallId"], call["id"]);
    assert!(text(result).contains("one"), "the command ran: {result:#}");
    let last = s.chats().pop().unwrap();
    assert_eq!(last.model, client::MODEL);
    assert_eq!(prompts_sent(&last), ["First: [[sh: echo one]]", "Second prompt", "Third prompt"]);
    let d = crate::model::detail(&s.sessions_dir());
    let conv = only_conversation(&d);
    assert!(conv["fork_points"].as_array().unwrap().is_empty(), "{conv:#}");
    assert_eq!(conv["branches"].as_array().unwrap().len(), 1);
    assert_eq!(conv["title"], "First: [[sh: echo one]]");
    assert_read_faithfully(&s);
}

#[test]
fn a_cctree_fork_is_resumed_by_pi_with_exactly_root_to_checkpoint() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "cctree-fork");
    s.print(&[], "First: [[sh: echo one]]");
    s.print(&["-c"], "Second prompt");
    s.print(&["-c"], "Third prompt");
    let source = s.sessions()[0].clone();
    let id = session_id(&source);
    let before = std::fs::read(&source).unwrap();
    let ls = lines(&source);
    let at = id_of(&ls, "assistant", "Reply to: Second prompt");
    let o = crate::model::cctree()
        .args(["fork", &format!("--at={at}"), "--projects"])
        .arg(s.sessions_dir())
        .args(["--", &id])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    let new_id = out.lines().find_map(|l| l.strip_prefix("new session: ")).unwrap().trim().to_string();
    assert!(out.contains(&format!("pi --session {new_id}")), "{out}");
    s.mock.clear();
    s.print(&["--session", &new_id], "After the fork");
    assert_eq!(std::fs::read(&source).unwrap(), before, "the source is untouched");
    // The client sent root → checkpoint, then the new prompt.
    let chat = s.chats().into_iter().next().unwrap();
    assert_eq!(prompts_sent(&chat), ["First: [[sh: echo one]]", "Second prompt", "After the fork"]);
    let replies: Vec<String> =
        chat.messages.iter().filter(|m| m["role"] == "assistant").map(|m| crate::chat::text(&m["content"])).collect();
    assert!(replies.contains(&"Reply to: Second prompt".to_string()), "{replies:?}");
    assert!(!replies.iter().any(|r| r.contains("Third")), "{replies:?}");
    // The client appended to the fork's file, under the checkpoint.
    let files = s.sessions();
    assert_eq!(files.len(), 2, "{files:?}");
    let fork = files.iter().find(|f| **f != source).unwrap();
    let fl = assert_tree(fork);
    assert_eq!(session_id(fork), new_id);
    let after = fl.iter().find(|v| text(v) == "After the fork").expect("the new prompt in the fork's file");
    assert_eq!(after["parentId"], at.as_str(), "the new turn hangs under the checkpoint");
    let d = crate::model::detail(&s.sessions_dir());
    let conv = only_conversation(&d);
    assert_eq!(conv["sessions"].as_array().unwrap().len(), 2, "{conv:#}");
    let forks = conv["fork_points"].as_array().unwrap();
    assert_eq!(forks.len(), 1, "{conv:#}");
    assert_eq!(forks[0]["kind"], "cross-session", "{conv:#}");
    assert_eq!(conv["branches"].as_array().unwrap().len(), 2, "{conv:#}");
    // Nothing in the copy marks it as cctree's (its lines are the source's,
    // as Pi's own `/fork` writes them): the new session branches there.
    assert_eq!(crate::model::junctions(conv), [(new_id.clone(), "branches".to_string())]);
    assert_read_faithfully(&s);
}

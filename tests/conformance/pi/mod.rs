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

/// Types a prompt in the TUI and waits for the mock's reply to it.
fn send(t: &crate::tmux::Tmux, prompt: &str) {
    t.type_line(prompt);
    t.wait_idle(&format!("Reply to: {prompt}"), 60);
}

/// Opens `/tree`, moves `up` rows up from the leaf and chooses that entry.
fn tree_choose(t: &crate::tmux::Tmux, up: usize) {
    t.type_line("/tree");
    t.wait_for("Session Tree", 20);
    for _ in 0..up {
        t.keys(&["Up"]);
    }
    t.keys(&["Enter"]);
}

/// The pages of a rendered site whose path holds `part` (`/b/`: a page per branch, `/compare/`).
fn pages_under<'a>(pages: &'a [(std::path::PathBuf, String)], part: &str) -> Vec<&'a std::path::PathBuf> {
    pages.iter().map(|(p, _)| p).filter(|p| p.to_string_lossy().contains(part)).collect()
}

#[test]
fn pi_tree_branch_is_a_fork_point_with_a_page_per_branch_and_a_move_alone_writes_nothing() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "tree");
    let t = s.tui(&[]);
    for p in ["First prompt", "Second prompt", "Third prompt"] {
        send(&t, p);
    }
    // /tree to the second prompt (leaf, its prompt, the reply before, the
    // prompt): its text comes back in the editor, the leaf its parent.
    tree_choose(&t, 3);
    t.wait_for("Summarize branch?", 20);
    t.keys(&["Enter"]); // "No summary"
    t.keys(&["End"]);
    t.type_line(" (edited branch)");
    t.wait_idle("Reply to: Second prompt (edited branch)", 60);
    let file = s.sessions().pop().unwrap();
    let before = std::fs::read(&file).unwrap();
    // A move that sends nothing writes nothing.
    tree_choose(&t, 1);
    t.wait_for("Summarize branch?", 20);
    t.keys(&["Enter", "C-u"]);
    t.exit("/quit");
    assert_eq!(std::fs::read(&file).unwrap(), before, "a /tree move alone writes nothing");
    // The leaf is the file's last entry, whatever /tree moved to.
    s.print(&["-c"], "Fourth prompt after resume");
    assert_eq!(s.sessions(), std::slice::from_ref(&file));
    let ls = assert_tree(&file);
    let first_reply = id_of(&ls, "assistant", "Reply to: First prompt");
    let second = id_of(&ls, "user", "Second prompt");
    let edited = id_of(&ls, "user", "Second prompt (edited branch)");
    let kid = |id: &str| ls.iter().find(|v| v["id"] == id).unwrap()["parentId"].clone();
    assert_eq!((kid(&second), kid(&edited)), (first_reply.clone().into(), first_reply.clone().into()));
    let fourth = id_of(&ls, "user", "Fourth prompt after resume");
    assert_eq!(kid(&fourth), id_of(&ls, "assistant", "Reply to: Second prompt (edited branch)").as_str());
    assert!(ls.iter().all(|v| v["type"] != "branch_summary"));
    let d = crate::model::detail(&s.sessions_dir());
    let conv = only_conversation(&d);
    let forks = conv["fork_points"].as_array().unwrap();
    assert_eq!(forks.len(), 1, "{conv:#}");
    assert_eq!(forks[0]["kind"], "rewind");
    let sid = session_id(&file);
    assert_eq!(forks[0]["uuid"], format!("{sid}-{first_reply}").as_str(), "ids scoped to their file");
    assert_eq!(conv["branches"].as_array().unwrap().len(), 2, "{conv:#}");
    let active = conv["branches"].as_array().unwrap().iter().find(|b| b["id"] == conv["active_branch"]).unwrap();
    assert_eq!(active["title"], "Second prompt (edited branch)", "{conv:#}");
    let pages = assert_read_faithfully(&s);
    assert_eq!(pages_under(&pages, "/b/").len(), 2, "a page per branch");
    assert_eq!(pages_under(&pages, "/compare/").len(), 1, "a compare page");
}

#[test]
fn pi_branch_summary_starts_the_new_branch_and_fork_copies_it_into_a_cross_session_fork() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "summary-fork");
    let t = s.tui(&[]);
    for p in ["First prompt", "Second prompt", "Third prompt"] {
        send(&t, p);
    }
    tree_choose(&t, 3);
    t.wait_for("Summarize branch?", 20);
    t.keys(&["Down", "Enter"]); // "Summarize"
    t.wait_idle("Branch summary", 60);
    t.keys(&["End"]);
    t.type_line(" (edited branch)");
    t.wait_idle("Reply to: Second prompt (edited branch)", 60);
    // /fork lists the user messages, the last selected: fork before it.
    t.type_line("/fork");
    t.wait_for("Fork from Message", 20);
    t.keys(&["Enter"]);
    t.wait_for("Forked to new session", 20);
    t.keys(&["C-u"]);
    send(&t, "Prompt in the fork");
    t.exit("/quit");
    let files = s.sessions();
    assert_eq!(files.len(), 2, "{files:?}");
    let (source, fork) = (&files[0], &files[1]);
    let sl = assert_tree(source);
    let fl = assert_tree(fork);
    // The summary: under the reply moved to, from the abandoned leaf.
    let summary = sl.iter().find(|v| v["type"] == "branch_summary").expect("a branch_summary entry");
    let first_reply = id_of(&sl, "assistant", "Reply to: First prompt");
    assert_eq!(summary["parentId"], first_reply.as_str());
    assert_eq!(summary["fromId"], id_of(&sl, "assistant", "Reply to: Third prompt").as_str());
    let said = summary["summary"].as_str().unwrap();
    assert!(said.contains("Branch summary of the exploration."), "{said}");
    let edited = sl.iter().find(|v| text(v) == "Second prompt (edited branch)").unwrap();
    assert_eq!(edited["parentId"], summary["id"], "the summary starts the new branch");
    // The model was given the summary as a user message.
    let sent = s.chats().into_iter().find(|c| c.prompt().contains("Second prompt (edited branch)")).unwrap();
    assert!(sent.prompts().iter().any(|p| p.contains("Branch summary of the exploration.")), "{:?}", sent.prompts());
    // /fork: a header naming the source's absolute path, then the source's
    // lines root → the summary (the chosen prompt's parent), byte for byte.
    assert_eq!(fl[0]["parentSession"], std::fs::canonicalize(source).unwrap().display().to_string().as_str());
    let (src_text, fork_text) = (std::fs::read_to_string(source).unwrap(), std::fs::read_to_string(fork).unwrap());
    let copied: Vec<&str> = fork_text.lines().skip(1).take_while(|l| !l.contains("Prompt in the fork")).collect();
    assert_eq!(copied.last().map(|l| l.contains("\"branch_summary\"")), Some(true), "{copied:?}");
    for l in &copied {
        assert!(src_text.lines().any(|x| x == *l), "a copied line is the source's: {l}");
    }
    let in_fork = fl.iter().find(|v| text(v) == "Prompt in the fork").unwrap();
    assert_eq!(in_fork["parentId"], summary["id"], "same ids in the copy");
    // cctree: the rewind at the reply moved to, the summary starting its
    // branch, and the fork branching off at the summary (a cross-session fork).
    let (sid, fid) = (session_id(source), session_id(fork));
    let d = crate::model::detail(&s.sessions_dir());
    let conv = only_conversation(&d);
    assert_eq!(conv["sessions"].as_array().unwrap().len(), 2, "{conv:#}");
    let mut kinds: Vec<(String, String)> = conv["fork_points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["kind"].as_str().unwrap().to_string(), f["uuid"].as_str().unwrap().to_string()))
        .collect();
    kinds.sort();
    let at_summary = format!("{sid}-{}", summary["id"].as_str().unwrap());
    assert_eq!(
        kinds,
        [("cross-session".to_string(), at_summary.clone()), ("rewind".to_string(), format!("{sid}-{first_reply}"))],
        "{conv:#}"
    );
    let branches = conv["branches"].as_array().unwrap();
    assert_eq!(branches.len(), 3, "{conv:#}");
    let edited_branch = branches.iter().find(|b| b["title"] == "Second prompt (edited branch)").unwrap();
    assert_eq!(edited_branch["id"], at_summary.as_str(), "the branch starts with the summary");
    assert_eq!(edited_branch["messages"], 2, "the summary is not a message typed: {edited_branch:#}");
    let fork_branch = branches.iter().find(|b| b["title"] == "Prompt in the fork").unwrap();
    assert_eq!(fork_branch["fork_point"], at_summary.as_str());
    assert_eq!(crate::model::junctions(conv), [(fid, "branches".to_string())]);
    let pages = assert_read_faithfully(&s);
    assert_eq!(pages_under(&pages, "/b/").len(), 3, "a page per branch");
    assert!(
        pages.iter().any(|(_, h)| crate::model::visible_text(h).contains("Branch summary of the exploration.")),
        "the summary is shown"
    );
}

//! Conformance with Qwen Code 0.24.4 (`@qwen-code/qwen-code`,
//! `tests/conformance/qwen/package-lock.json`, installed by
//! `scripts/install-qwen.sh` on the pinned Node): the real client driven
//! offline (`-p`, `-r`, `--fork-session`; the TUI's `/rewind` and
//! `/compress` in tmux) against a mock OpenAI
//! chat-completions API on loopback ([`crate::chat`], auth type `openai`).
//! Each scenario pins what the client writes (`docs/transcript-format.md`,
//! appendix G) and asserts what cctree makes of it; a cctree fork is resumed
//! by the client. `CCTREE_RECORD_FIXTURES=1` records the archives into
//! `tests/fixtures/qwen-0.24.4/<scenario>-suite/`.

pub mod client;
pub mod mock;

use serde_json::Value;

use client::{Sandbox, lines, text, uuid_of};

fn save(s: &Sandbox, name: &str) {
    crate::record::save_tree(&format!("qwen-{}", client::VERSION), &format!("{name}-suite"), &s.qwen, &["projects"]);
}

fn only_conversation(d: &Value) -> &Value {
    let convs = d["conversations"].as_array().unwrap();
    assert_eq!(convs.len(), 1, "one conversation: {d:#}");
    &convs[0]
}

/// Every prompt and reply the client recorded.
fn texts(s: &Sandbox) -> Vec<String> {
    let mut out: Vec<String> = s
        .sessions()
        .iter()
        .flat_map(|f| lines(f))
        .filter(|v| matches!(v["type"].as_str(), Some("user" | "assistant")) && v["subtype"].is_null())
        .map(|v| text(&v))
        .filter(|t| !t.trim().is_empty())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// `check` clean, every prompt and reply on some page, Qwen's name on them,
/// the key in no file.
fn assert_read_faithfully(s: &Sandbox) {
    crate::model::assert_check_clean(&s.projects());
    let site = s.root.join("site");
    let pages = crate::model::render(&s.projects(), &site);
    crate::model::assert_site(&pages, &texts(s));
    let all: String = pages.iter().map(|(_, h)| h.as_str()).collect();
    assert!(all.contains("<span class=\"role\">Qwen</span>"), "replies are Qwen's");
    for e in walkdir::WalkDir::new(&s.qwen).into_iter().flatten().filter(|e| e.file_type().is_file()) {
        let t = std::fs::read_to_string(e.path()).unwrap_or_default();
        assert!(!t.contains(client::API_KEY), "the key reaches {}", e.path().display());
    }
}

/// Each record's parent is an earlier record of its file (or `null`), one
/// `sessionId` per file: the chain the client walks.
fn assert_chain(path: &std::path::Path) -> Vec<Value> {
    let ls = lines(path);
    let mut seen = std::collections::HashSet::new();
    let sid = ls[0]["sessionId"].as_str().unwrap().to_string();
    for v in &ls {
        assert_eq!(v["sessionId"], sid.as_str(), "{}: one session id", path.display());
        if let Some(p) = v["parentUuid"].as_str() {
            assert!(seen.contains(p), "{}: parent {p} is not earlier", path.display());
        }
        seen.insert(v["uuid"].as_str().unwrap().to_string());
    }
    ls
}

fn id_of(path: &std::path::Path) -> String {
    path.file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
fn qwen_print_mode_and_resumes_append_to_one_session_read_as_one_line() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "print");
    s.print(&[], "First: [[sh: echo one]]");
    let files = s.sessions();
    assert_eq!(files.len(), 1, "{files:?}");
    let id = id_of(&files[0]);
    s.print(&["-r", &id], "Second prompt");
    s.print(&["-c"], "Third prompt");
    save(&s, "print");
    assert_eq!(s.sessions(), files, "resumes append to the same file");
    let ls = assert_chain(&files[0]);
    // Telemetry sits in the chain; the reply with the call, its result, the answer.
    assert!(ls.iter().any(|v| v["subtype"] == "ui_telemetry"));
    let call = ls.iter().find(|v| v["message"]["parts"][0]["functionCall"]["name"] == "run_shell_command").unwrap();
    let result = ls.iter().find(|v| v["type"] == "tool_result").unwrap();
    assert_eq!(
        result["message"]["parts"][0]["functionResponse"]["id"],
        call["message"]["parts"][0]["functionCall"]["id"]
    );
    let last = s.chats().pop().unwrap();
    assert_eq!(last.model, client::MODEL);
    assert!(last.prompts().iter().any(|p| p.ends_with("First: [[sh: echo one]]")), "{:?}", last.prompts());
    let d = crate::model::detail(&s.projects());
    let conv = only_conversation(&d);
    assert!(conv["fork_points"].as_array().unwrap().is_empty(), "{conv:#}");
    assert_eq!(conv["branches"].as_array().unwrap().len(), 1);
    assert_eq!(conv["title"], "First: [[sh: echo one]]");
    assert_read_faithfully(&s);
}

#[test]
fn qwen_fork_session_copies_the_chain_with_its_uuids_a_cross_session_fork() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "fork-session");
    s.print(&[], "First: [[sh: echo one]]");
    let id = id_of(&s.sessions()[0]);
    s.print(&["-r", &id], "Second prompt");
    s.print(&["-r", &id, "--fork-session"], "Third prompt, in the fork");
    s.print(&["-r", &id], "Fourth prompt, on the original");
    save(&s, "fork-session");
    let files = s.sessions();
    assert_eq!(files.len(), 2, "{files:?}");
    let fork = files.iter().find(|f| id_of(f) != id).unwrap();
    let original = files.iter().find(|f| id_of(f) == id).unwrap();
    let fl = assert_chain(fork);
    let ol = assert_chain(original);
    // The copy: the same uuids, marked with their source.
    let copied: Vec<&Value> = fl.iter().filter(|v| v["forkedFrom"].is_object()).collect();
    assert!(copied.len() >= 4, "{}", copied.len());
    for v in &copied {
        assert_eq!(v["forkedFrom"]["sessionId"], id.as_str());
        assert_eq!(v["forkedFrom"]["messageUuid"], v["uuid"]);
        assert!(ol.iter().any(|o| o["uuid"] == v["uuid"]), "a copy of a record of the source");
    }
    let d = crate::model::detail(&s.projects());
    let conv = only_conversation(&d);
    assert_eq!(conv["sessions"].as_array().unwrap().len(), 2, "{conv:#}");
    let forks = conv["fork_points"].as_array().unwrap();
    assert_eq!(forks.len(), 1, "{conv:#}");
    assert_eq!(forks[0]["kind"], "cross-session");
    assert_eq!(forks[0]["uuid"], uuid_of(&ol, "Reply to: Second prompt").as_str(), "at the last copied reply");
    let mut kids: Vec<String> =
        forks[0]["children"].as_array().unwrap().iter().map(|k| k.as_str().unwrap().to_string()).collect();
    kids.sort();
    let mut want = vec![uuid_of(&fl, "Third prompt, in the fork"), uuid_of(&ol, "Fourth prompt, on the original")];
    want.sort();
    assert_eq!(kids, want);
    assert_read_faithfully(&s);
}

#[test]
fn qwen_sub_agent_shares_the_parent_session_id_yet_is_an_agent_of_its_own() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "sub-agent");
    s.print(&[], "Delegate: [[agent: Inner task ((sh: echo from-agent))]]");
    save(&s, "sub-agent");
    let files = s.sessions();
    assert_eq!(files.len(), 1);
    let id = id_of(&files[0]);
    let agents: Vec<std::path::PathBuf> = std::fs::read_dir(s.project().join("subagents").join(&id))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    assert_eq!(agents.len(), 1, "{agents:?}");
    let al = lines(&agents[0]);
    assert!(al.iter().all(|v| v["sessionId"] == id.as_str() && v["isSidechain"] == true), "the parent's session id");
    let call = lines(&files[0])
        .into_iter()
        .find_map(|v| {
            let f = &v["message"]["parts"][0]["functionCall"];
            (f["name"] == "agent").then(|| f["id"].as_str().unwrap().to_string())
        })
        .unwrap();
    let d = crate::model::detail(&s.projects());
    let conv = only_conversation(&d);
    assert!(conv["fork_points"].as_array().unwrap().is_empty(), "{conv:#}");
    let a = d["agents"].as_array().unwrap();
    assert_eq!(a.len(), 1, "{d:#}");
    assert_eq!(a[0]["spawn_tool_use"], call.as_str());
    assert_eq!(a[0]["kind"], "subagent");
    assert_read_faithfully(&s);
}

#[test]
fn a_cctree_fork_is_resumed_by_qwen_with_exactly_root_to_checkpoint() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "cctree-fork");
    s.print(&[], "First: [[sh: echo one]]");
    let id = id_of(&s.sessions()[0]);
    s.print(&["-r", &id], "Second prompt");
    s.print(&["-r", &id], "Third prompt");
    let source = s.sessions()[0].clone();
    let before = std::fs::read(&source).unwrap();
    let ls = lines(&source);
    let at = uuid_of(&ls, "Reply to: Second prompt");
    let o = crate::model::cctree()
        .args(["fork", &format!("--at={at}"), "--projects"])
        .arg(s.projects())
        .args(["--", &id])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    let new_id = out.lines().find_map(|l| l.strip_prefix("new session: ")).unwrap().trim().to_string();
    assert!(out.contains(&format!("qwen --resume {new_id}")), "{out}");
    s.mock.clear();
    s.print(&["--resume", &new_id], "After the fork");
    save(&s, "cctree-fork");
    assert_eq!(std::fs::read(&source).unwrap(), before, "the source is untouched");
    // The client sent the branch root → checkpoint, then the new prompt.
    let chat = s.chats().into_iter().next().unwrap();
    let prompts: Vec<String> =
        chat.prompts().iter().map(|p| p.trim().lines().last().unwrap_or("").to_string()).collect();
    assert_eq!(prompts, ["First: [[sh: echo one]]", "Second prompt", "After the fork"], "{prompts:?}");
    let replies: Vec<String> =
        chat.messages.iter().filter(|m| m["role"] == "assistant").map(|m| crate::chat::text(&m["content"])).collect();
    assert!(replies.contains(&"Reply to: Second prompt".to_string()), "{replies:?}");
    assert!(!replies.iter().any(|r| r.contains("Third")), "{replies:?}");
    // The client appended to the fork's file; cctree reads it as a fork of the source.
    let fork = s.project().join("chats").join(format!("{new_id}.jsonl"));
    let fl = assert_chain(&fork);
    assert!(fl.iter().any(|v| text(v) == "After the fork"));
    let d = crate::model::detail(&s.projects());
    let conv = only_conversation(&d);
    let forks = conv["fork_points"].as_array().unwrap();
    assert_eq!(forks.len(), 1, "{conv:#}");
    assert_eq!((forks[0]["uuid"].as_str(), forks[0]["kind"].as_str()), (Some(at.as_str()), Some("cross-session")));
    assert_read_faithfully(&s);
}

/// Types a prompt in the TUI and waits for the mock's reply.
fn send(t: &crate::tmux::Tmux, prompt: &str) {
    t.type_line(prompt);
    t.wait_idle(&format!("Reply to: {prompt}"), 90);
}

/// The pages of a rendered site whose path holds `part` (`/b/`: a page per branch, `/compare/`).
fn pages_under<'a>(pages: &'a [(std::path::PathBuf, String)], part: &str) -> Vec<&'a std::path::PathBuf> {
    pages.iter().map(|(p, _)| p).filter(|p| p.to_string_lossy().contains(part)).collect()
}

/// The record of `uuid` and its ancestors, nearest first.
fn ancestry<'a>(ls: &'a [Value], uuid: &str) -> Vec<&'a Value> {
    let mut out = Vec::new();
    let mut at = ls.iter().find(|v| v["uuid"] == uuid);
    while let Some(v) = at {
        out.push(v);
        at = v["parentUuid"].as_str().and_then(|p| ls.iter().find(|w| w["uuid"] == p));
    }
    out
}

#[test]
fn qwen_tui_rewind_writes_a_rewind_record_starting_the_new_branch_a_fork_point_with_a_page_per_branch() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "tui-rewind");
    let t = s.tui(&[]);
    send(&t, "First prompt");
    send(&t, "Second prompt to rewind to");
    // Esc Esc opens the selector on the last prompt; "Restore conversation
    // only" puts its text back in the prompt box, the cursor at its end.
    t.keys(&["Escape", "Escape"]);
    t.wait_for("Rewind Conversation (2 turns)", 20);
    t.keys(&["Enter"]);
    t.wait_for("Restore conversation only", 20);
    t.keys(&["Enter"]);
    t.wait_for("Conversation rewound", 20);
    t.type_line(", rewritten");
    t.wait_idle("Reply to: Second prompt to rewind to, rewritten", 90);
    t.exit("/quit");
    // The client loads the new branch on resume.
    s.mock.clear();
    s.print(&["-c"], "After the rewind");
    save(&s, "tui-rewind");
    let files = s.sessions();
    assert_eq!(files.len(), 1, "{files:?}");
    let ls = assert_chain(&files[0]);
    let rewinds: Vec<&Value> = ls.iter().filter(|v| v["type"] == "system" && v["subtype"] == "rewind").collect();
    assert_eq!(rewinds.len(), 1, "one rewind record");
    assert!(rewinds[0]["systemPayload"]["truncatedCount"].is_u64(), "{:#}", rewinds[0]);
    let abandoned = ls.iter().find(|v| text(v) == "Second prompt to rewind to").unwrap();
    assert_eq!(rewinds[0]["parentUuid"], abandoned["parentUuid"], "hung where the rewound prompt was");
    let rewritten = uuid_of(&ls, "Second prompt to rewind to, rewritten");
    let up = ancestry(&ls, &rewritten);
    assert!(up.iter().any(|v| v["uuid"] == rewinds[0]["uuid"]), "the new prompt descends from the rewind record");
    assert!(!up.iter().any(|v| v["uuid"] == abandoned["uuid"]), "not from the abandoned prompt");
    assert!(ls.iter().any(|v| text(v) == "Reply to: Second prompt to rewind to"), "the abandoned reply stays");
    let chat = s.chats().into_iter().next().unwrap();
    let prompts: Vec<String> =
        chat.prompts().iter().map(|p| p.trim().lines().last().unwrap_or("").to_string()).collect();
    assert_eq!(prompts, ["First prompt", "Second prompt to rewind to, rewritten", "After the rewind"], "{prompts:?}");
    let d = crate::model::detail(&s.projects());
    let conv = only_conversation(&d);
    let forks = conv["fork_points"].as_array().unwrap();
    assert_eq!(forks.len(), 1, "{conv:#}");
    assert_eq!(forks[0]["kind"], "rewind");
    // Telemetry is no node: the fork point is the reply both prompts follow.
    assert_eq!(forks[0]["uuid"], uuid_of(&ls, "Reply to: First prompt").as_str(), "{conv:#}");
    let mut kids: Vec<String> =
        forks[0]["children"].as_array().unwrap().iter().map(|k| k.as_str().unwrap().to_string()).collect();
    kids.sort();
    let mut want = vec![abandoned["uuid"].as_str().unwrap().to_string(), rewritten];
    want.sort();
    assert_eq!(kids, want);
    let branches = conv["branches"].as_array().unwrap();
    assert_eq!(branches.len(), 2, "{conv:#}");
    let active = branches.iter().find(|b| b["id"] == conv["active_branch"]).unwrap();
    assert_eq!(active["title"], "Second prompt to rewind to, rewritten", "{conv:#}");
    assert_read_faithfully(&s);
    let pages = crate::model::render(&s.projects(), &s.root.join("site2"));
    assert_eq!(pages_under(&pages, "/b/").len(), 2, "a page per branch");
    assert_eq!(pages_under(&pages, "/compare/").len(), 1, "a compare page");
}

/// `cctree stats --json`'s count of compactions.
fn compactions(input: &std::path::Path) -> u64 {
    let out = crate::model::cctree().args(["stats", "--json"]).arg(input).output().expect("cctree stats");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("stats JSON");
    v["compactions"].as_u64().expect("compactions")
}

#[test]
fn qwen_tui_compress_writes_a_chat_compression_record_read_as_a_compaction_on_the_same_line() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "tui-compress");
    let t = s.tui(&[]);
    send(&t, "First prompt before the compression");
    send(&t, "Second prompt before the compression");
    t.type_line("/compress");
    let start = std::time::Instant::now();
    let file = loop {
        let done = s.sessions().into_iter().find(|f| lines(f).iter().any(|v| v["subtype"] == "chat_compression"));
        if let Some(f) = done {
            break f;
        }
        assert!(start.elapsed().as_secs() < 90, "no compression written; the screen:\n{}", t.screen());
        std::thread::sleep(std::time::Duration::from_millis(300));
    };
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let screen = t.screen();
    send(&t, "After the compression");
    t.exit("/quit");
    save(&s, "tui-compress");
    assert_eq!(s.sessions(), std::slice::from_ref(&file), "no new session file");
    let ls = assert_chain(&file);
    let at = ls.iter().position(|v| v["subtype"] == "chat_compression").unwrap();
    let c = &ls[at];
    assert_eq!(c["type"], "system");
    assert_eq!(c["systemPayload"]["info"]["triggerReason"], "manual", "{c:#}");
    let history = c["systemPayload"]["compressedHistory"].as_array().expect("compressedHistory");
    let summary: String = history[0]["parts"].as_array().unwrap().iter().filter_map(|p| p["text"].as_str()).collect();
    assert!(summary.contains("Summary of the work so far."), "{summary}");
    // The summarising request is not recorded; the turns before stay, the chain goes on through it.
    assert!(!ls.iter().filter(|v| v["subtype"].is_null()).any(|v| text(v).contains("state_snapshot")));
    assert!(ls[..at].iter().any(|v| text(v) == "Reply to: Second prompt before the compression"));
    let after = uuid_of(&ls, "After the compression");
    assert!(ancestry(&ls, &after).iter().any(|v| v["uuid"] == c["uuid"]), "the next prompt descends from it");
    assert!(ancestry(&ls, &after).iter().any(|v| text(v) == "First prompt before the compression"), "no new root");
    // The model was sent the summary, not the earlier turns.
    let last = s.chats().pop().unwrap();
    let sent: Vec<String> = last.messages.iter().map(|m| crate::chat::text(&m["content"])).collect();
    assert!(sent.iter().any(|m| m.contains("Summary of the work so far.")), "{sent:?}");
    assert!(!sent.iter().any(|m| m == "Reply to: First prompt before the compression"), "{sent:?}");
    assert_eq!(compactions(&s.projects()), 1);
    let d = crate::model::detail(&s.projects());
    let conv = only_conversation(&d);
    assert!(conv["fork_points"].as_array().unwrap().is_empty(), "{conv:#}");
    assert_eq!(conv["branches"].as_array().unwrap().len(), 1, "{conv:#}");
    assert_read_faithfully(&s);
    // Nothing lost: the turns before, the summary, the turn after on the one page, in that order.
    let pages = crate::model::render(&s.projects(), &s.root.join("site2"));
    let page = pages
        .iter()
        .map(|(_, h)| crate::model::visible_text(h))
        .find(|v| v.contains("After the compression") && v.contains("Summary of the work so far."))
        .unwrap_or_else(|| panic!("no page holds the summary and the next turn; the TUI showed:\n{screen}"));
    // The client shows "Chat history compressed from … tokens." where /compress was typed.
    assert!(screen.contains("Chat history compressed from"), "{screen}");
    let pos = |t: &str| page.rfind(t).unwrap_or_else(|| panic!("{t:?} not on the page"));
    let (before, summary, next) = (
        pos("Reply to: Second prompt before the compression"),
        pos("Summary of the work so far."),
        pos("Reply to: After the compression"),
    );
    assert!(before < summary && summary < next, "{before} {summary} {next}: {page}");
    let between = &page[before..summary];
    assert!(between.contains("/compress") && between.contains("Compaction summary"), "{between}");
}

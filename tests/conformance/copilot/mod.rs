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
/// `null`): one linear chain — except a compaction's `model.*` events, whose
/// parent is `null`, an earlier `model.*` event or an id no line holds (the
/// main chain goes from `session.compaction_start` to `_complete` over them).
fn assert_linear(ls: &[Value]) {
    let is_model = |v: &Value| v["type"].as_str().is_some_and(|t| t.starts_with("model."));
    let main: Vec<&Value> = ls.iter().filter(|v| !is_model(v)).collect();
    assert!(main[0]["parentId"].is_null(), "{:#}", main[0]);
    for w in main.windows(2) {
        assert_eq!(w[1]["parentId"], w[0]["id"], "{} after {}", w[1]["type"], w[0]["type"]);
    }
    for (i, v) in ls.iter().enumerate().filter(|(_, v)| is_model(v)) {
        let parent = ls.iter().position(|e| e["id"] == v["parentId"]);
        assert!(parent.is_none_or(|j| j < i && is_model(&ls[j])), "{i} {} under {parent:?}", v["type"]);
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

/// `cctree stats --json`'s count of compactions.
fn compactions(input: &std::path::Path) -> u64 {
    let out = crate::model::cctree().args(["stats", "--json"]).arg(input).output().expect("cctree stats");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("stats JSON");
    v["compactions"].as_u64().expect("compactions")
}

#[test]
fn copilot_tui_compact_appends_a_compaction_read_as_one_on_the_same_line() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "compact");
    let argv = vec![bin.display().to_string(), "--allow-all".to_string()];
    let t = crate::tmux::Tmux::start(&s.root, &s.work, &s.env(), &argv);
    t.wait_for("❯", 60);
    t.type_line("Before the compaction");
    t.wait_idle("Reply to: Before the compaction", 90);
    t.type_line("/compact");
    let start = std::time::Instant::now();
    let dir = loop {
        let done = s
            .sessions()
            .into_iter()
            .find(|d| events(&d.join("events.jsonl")).iter().any(|v| v["type"] == "session.compaction_complete"));
        if let Some(d) = done {
            break d;
        }
        assert!(start.elapsed().as_secs() < 90, "no compaction written; the screen:\n{}", t.screen());
        std::thread::sleep(std::time::Duration::from_millis(300));
    };
    std::thread::sleep(std::time::Duration::from_millis(1500));
    t.type_line("After the compaction");
    t.wait_idle("Reply to: After the compaction", 90);
    t.exit("/exit");
    assert_eq!(s.sessions(), std::slice::from_ref(&dir), "no new session folder");
    let ls = events(&dir.join("events.jsonl"));
    assert_linear(&ls);
    let done = ls.iter().find(|v| v["type"] == "session.compaction_complete").unwrap();
    assert_eq!(done["data"]["success"], true, "{done:#}");
    assert!(done["data"]["summaryContent"].as_str().is_some_and(|t| !t.is_empty()), "{done:#}");
    let at = ls.iter().position(|v| v["id"] == done["id"]).unwrap();
    assert!(ls[at..].iter().any(|v| v["data"]["content"] == "After the compaction"), "the next prompt after it");
    assert!(ls[..at].iter().any(|v| v["data"]["content"] == "Before the compaction"), "the turns before kept");
    // The model was sent the summary, not the earlier turn.
    let last = s.chats().pop().unwrap();
    assert!(!last.messages.iter().any(|m| crate::chat::text(&m["content"]) == "Reply to: Before the compaction"));
    assert_eq!(compactions(&s.copilot), 1);
    let d = crate::model::detail(&s.copilot);
    let conv = only_conversation(&d);
    assert!(conv["fork_points"].as_array().unwrap().is_empty(), "{conv:#}");
    assert_read_faithfully(&s);
}

#[test]
fn copilot_tui_fork_copies_the_events_with_their_ids_and_joins_its_source_in_one_conversation() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "fork");
    let argv = vec![bin.display().to_string(), "--allow-all".to_string()];
    let t = crate::tmux::Tmux::start(&s.root, &s.work, &s.env(), &argv);
    t.wait_for("❯", 60);
    t.type_line("Before the fork");
    t.wait_idle("Reply to: Before the fork", 90);
    t.type_line("/fork");
    let start = std::time::Instant::now();
    while s.sessions().len() < 2 {
        assert!(start.elapsed().as_secs() < 60, "no fork folder; the screen:\n{}", t.screen());
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    std::thread::sleep(std::time::Duration::from_millis(1500));
    t.type_line("In the fork");
    t.wait_idle("Reply to: In the fork", 90);
    // Observed: the first `/exit` after the fork's turn goes back to the source's view
    // (its "Forked this session into …" line); the second ends the client.
    t.type_line("/exit");
    t.wait_for("Forked this session into", 30);
    std::thread::sleep(std::time::Duration::from_millis(1000));
    t.exit("/exit");
    let dirs = s.sessions();
    assert_eq!(dirs.len(), 2, "{dirs:?}");
    let with = |t: &str| {
        dirs.iter().find(|d| events(&d.join("events.jsonl")).iter().any(|v| v["data"]["content"] == t)).cloned()
    };
    let fork = with("In the fork").expect("the fork's prompt");
    let source = dirs.iter().find(|d| **d != fork).unwrap();
    let (sl, fl) = (events(&source.join("events.jsonl")), events(&fork.join("events.jsonl")));
    assert!(!sl.iter().any(|v| v["data"]["content"] == "In the fork"), "the source does not get the fork's turn");
    // The copy keeps the source's event ids; both name the fork in a session.info.
    let before = id_of_text(&sl, "Before the fork");
    assert_eq!(id_of_text(&fl, "Before the fork"), before, "the same event id in the copy");
    for ls in [&sl, &fl] {
        assert!(ls.iter().any(|v| v["type"] == "session.info" && v["data"]["infoType"] == "fork"));
    }
    let d = crate::model::detail(&s.copilot);
    let conv = only_conversation(&d);
    assert_eq!(conv["sessions"].as_array().unwrap().len(), 2, "{conv:#}");
    assert_read_faithfully(&s);
}

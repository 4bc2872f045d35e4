//! Conformance with OpenCode 1.18.33 (`opencode-ai`,
//! `tests/conformance/opencode/package-lock.json`, installed by
//! `scripts/install-opencode.sh`): the real client driven offline against the
//! chat-completions mock on loopback ([`crate::chat`], a provider of
//! `@ai-sdk/openai-compatible` in `~/.config/opencode/opencode.json`, the
//! `OPENCODE_DISABLE_*` variables set; transcript-format Appendix F,
//! "Running it offline"). Each scenario asserts what cctree makes of the
//! database the client wrote.

pub mod client;

use client::Sandbox;

#[test]
fn opencode_run_then_run_fork_is_a_fork_found_from_the_copied_prefix() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "run-fork");
    s.run(&["run", "First", "prompt"]);
    let sessions = s.sessions();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    let (id, _) = sessions[0].clone();
    s.run(&["run", "--session", &id, "Second", "prompt"]);
    s.run(&["run", "--session", &id, "--fork", "Third", "in", "the", "fork"]);
    s.run(&["run", "--session", &id, "Fourth", "on", "the", "original"]);
    assert!(s.mock.requests().iter().all(|r| r.route().ends_with("/chat/completions")), "only the mock's API asked");
    let sessions = s.sessions();
    assert_eq!(sessions.len(), 2, "run --fork makes a session: {sessions:?}");
    let fork = sessions.iter().find(|(i, _)| *i != id).unwrap();
    assert!(fork.1.ends_with("(fork #1)"), "{fork:?}");
    assert_eq!(s.parent_of(&fork.0), None, "no stored link to the source");
    let d = crate::model::detail(&s.data());
    let convs = d["conversations"].as_array().unwrap();
    assert_eq!(convs.len(), 1, "the fork joins its source: {d:#}");
    let forks = convs[0]["fork_points"].as_array().unwrap();
    assert_eq!(forks.len(), 1, "{:#}", convs[0]);
    assert_eq!(convs[0]["branches"].as_array().unwrap().len(), 2, "{:#}", convs[0]);
    crate::model::assert_check_clean(&s.data());
    let pages = crate::model::render(&s.data(), &s.root.join("site"));
    let texts = ["First prompt", "Second prompt", "Third in the fork", "Fourth on the original"];
    crate::model::assert_site(&pages, &texts.iter().map(|t| t.to_string()).collect::<Vec<_>>());
    assert!(pages.iter().any(|(p, _)| p.to_string_lossy().contains("compare")), "a compare page");
}

/// The chat-completions requests of the conversation (those offering tools:
/// not the title's), oldest first.
fn turns(s: &Sandbox) -> Vec<crate::chat::Chat> {
    s.mock
        .requests()
        .into_iter()
        .filter(|r| r.route().ends_with("/chat/completions"))
        .map(|r| crate::chat::Chat::of(&r.body))
        .filter(|c| !c.tools.is_empty())
        .collect()
}

#[test]
fn opencode_task_sub_agent_is_a_child_session_read_as_an_agent_of_its_call() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "task");
    s.run(&["run", "Delegate: [[task: Inner task for the helper]]"]);
    let sessions = s.sessions();
    assert_eq!(sessions.len(), 2, "the caller and its sub-agent: {sessions:?}");
    let parent = sessions.iter().find(|(i, _)| s.parent_of(i).is_none()).unwrap().0.clone();
    let child = sessions.iter().find(|(i, _)| *i != parent).unwrap();
    assert_eq!(s.parent_of(&child.0).as_deref(), Some(parent.as_str()), "parent_id links the sub-agent");
    assert!(child.1.ends_with("(@general subagent)"), "{child:?}");
    let task = s.tool_parts(&parent).into_iter().find(|(t, _, _)| t == "task").expect("a task part");
    assert_eq!(task.2["sessionId"], child.0.as_str(), "the call names its child session");
    let inner = s.messages(&child.0);
    assert_eq!(inner.first().map(|m| (m.1.as_str(), m.2.as_str())), Some(("user", "Inner task for the helper")));
    assert!(inner.iter().any(|m| m.2 == "Reply to: Inner task for the helper"), "{inner:?}");
    let d = crate::model::detail(&s.data());
    let convs = d["conversations"].as_array().unwrap();
    assert_eq!(convs.len(), 1, "the sub-agent is no conversation of its own: {d:#}");
    assert!(convs[0]["fork_points"].as_array().unwrap().is_empty(), "{:#}", convs[0]);
    let agents = d["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 1, "{d:#}");
    assert_eq!(agents[0]["spawn_tool_use"], task.1.as_str(), "linked to its task call: {d:#}");
    crate::model::assert_check_clean(&s.data());
    let pages = crate::model::render(&s.data(), &s.root.join("site"));
    let texts = [
        "Delegate: [[task: Inner task for the helper]]",
        "Inner task for the helper",
        "Reply to: Inner task for the helper",
    ];
    crate::model::assert_site(&pages, &texts.iter().map(|t| t.to_string()).collect::<Vec<_>>());
}

#[test]
fn a_cctree_fork_is_imported_by_opencode_and_resumed_with_exactly_root_to_checkpoint() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "cctree-fork");
    s.run(&["run", "First", "prompt"]);
    let (id, _) = s.sessions()[0].clone();
    s.run(&["run", "--session", &id, "Second", "prompt"]);
    s.run(&["run", "--session", &id, "Third", "prompt"]);
    let before = s.messages(&id);
    let at = before.iter().find(|m| m.1 == "assistant" && m.2 == "Reply to: Second prompt").unwrap().0.clone();
    let archive = s.root.join("cctree-archive");
    let o = crate::model::cctree()
        .env("CCTREE_ARCHIVE", &archive)
        .args(["fork", &format!("--at={at}"), "--projects"])
        .arg(s.data())
        .args(["--", &id])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    let new_id = out.lines().find_map(|l| l.strip_prefix("new session: ")).unwrap().trim().to_string();
    assert!(out.contains("opencode import ") && out.contains(&format!("opencode -s {new_id}")), "{out}");
    let file = archive.parent().unwrap().join("forks/opencode").join(format!("{new_id}.json"));
    assert!(file.is_file(), "the import file {}: {out}", file.display());
    assert!(s.sessions().iter().all(|(i, _)| *i != new_id), "cctree wrote nothing into the database");
    s.run(&["import", &file.display().to_string()]);
    s.mock.clear();
    s.run(&["run", "--session", &new_id, "After", "the", "fork"]);
    assert_eq!(s.messages(&id), before, "the source session is unchanged");
    // The client sent root → checkpoint, then the new prompt.
    let chat = turns(&s).into_iter().next().expect("a turn");
    let prompts: Vec<String> = chat.prompts().iter().map(|p| p.trim().to_string()).collect();
    assert_eq!(prompts, ["First prompt", "Second prompt", "After the fork"], "{:?}", chat.shape());
    let replies: Vec<String> =
        chat.messages.iter().filter(|m| m["role"] == "assistant").map(|m| crate::chat::text(&m["content"])).collect();
    assert!(replies.contains(&"Reply to: Second prompt".to_string()), "{replies:?}");
    assert!(!replies.iter().any(|r| r.contains("Third")), "{replies:?}");
    let forked = s.messages(&new_id);
    assert_eq!(forked.last().map(|m| m.2.as_str()), Some("Reply to: After the fork"));
    // cctree: the imported copy is found from its prefix, a cross-session
    // fork at the checkpoint.
    let d = crate::model::detail(&s.data());
    let convs = d["conversations"].as_array().unwrap();
    assert_eq!(convs.len(), 1, "the fork joins its source: {d:#}");
    let forks = convs[0]["fork_points"].as_array().unwrap();
    assert_eq!(forks.len(), 1, "{:#}", convs[0]);
    assert_eq!(forks[0]["kind"], "cross-session", "{:#}", convs[0]);
    assert!(forks[0]["uuid"].as_str().unwrap().ends_with(&at), "at the checkpoint: {:#}", convs[0]);
    crate::model::assert_check_clean(&s.data());
}

#[test]
fn opencode_undo_then_a_prompt_is_a_rewind_with_the_removed_turn_on_a_branch_of_its_own() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "undo");
    let t = crate::tmux::Tmux::start(&s.root, &s.work, &s.env(), &[s.bin.display().to_string()]);
    t.wait_for("Mock Model", 90);
    std::thread::sleep(std::time::Duration::from_secs(2));
    for p in ["first prompt", "second prompt", "third prompt"] {
        t.type_line(p);
        t.wait_idle(&format!("Reply to: {p}"), 90);
    }
    let (id, _) = s.sessions()[0].clone();
    t.type_line("/undo");
    let start = std::time::Instant::now();
    while s.revert_of(&id).is_none() {
        assert!(start.elapsed().as_secs() < 30, "/undo set no revert:\n{}", t.screen());
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    // A pending /undo deletes nothing (read while the client runs, through
    // SQLite read-only): the checks accept the revert marker.
    let revert: serde_json::Value = serde_json::from_str(&s.revert_of(&id).unwrap()).unwrap();
    let third = s.messages(&id).into_iter().find(|m| m.2 == "third prompt").unwrap().0;
    assert_eq!(revert["messageID"], third.as_str(), "reverts to the last prompt");
    assert!(s.messages(&id).iter().any(|m| m.2 == "Reply to: third prompt"), "nothing deleted yet");
    crate::model::assert_check_clean(&s.data());
    t.keys(&["C-u"]);
    t.type_line("after undo");
    t.wait_idle("Reply to: after undo", 90);
    drop(t);
    // The next prompt removed the reverted messages from the tables.
    let msgs = s.messages(&id);
    assert!(msgs.iter().all(|m| m.2 != "third prompt"), "{msgs:?}");
    assert!(s.revert_of(&id).is_none());
    let d = crate::model::detail(&s.data());
    let convs = d["conversations"].as_array().unwrap();
    assert_eq!(convs.len(), 1, "{d:#}");
    let forks = convs[0]["fork_points"].as_array().unwrap();
    assert_eq!(forks.len(), 1, "{:#}", convs[0]);
    assert_eq!(forks[0]["kind"], "rewind", "{:#}", convs[0]);
    let second_reply = msgs.iter().find(|m| m.2 == "Reply to: second prompt").unwrap().0.clone();
    assert!(forks[0]["uuid"].as_str().unwrap().ends_with(&second_reply), "at the reply before: {:#}", convs[0]);
    let children: Vec<&str> = forks[0]["children"].as_array().unwrap().iter().filter_map(|c| c.as_str()).collect();
    assert!(children.iter().any(|c| c.ends_with(&third)), "the removed prompt starts a branch: {children:?}");
    assert_eq!(convs[0]["branches"].as_array().unwrap().len(), 2, "{:#}", convs[0]);
    crate::model::assert_check_clean(&s.data());
    let pages = crate::model::render(&s.data(), &s.root.join("site"));
    let texts = ["third prompt", "Reply to: third prompt", "after undo", "Reply to: after undo"];
    crate::model::assert_site(&pages, &texts.iter().map(|t| t.to_string()).collect::<Vec<_>>());
    assert!(pages.iter().any(|(p, _)| p.to_string_lossy().contains("/compare/")), "a compare page");
}

#[test]
fn opencode_tui_fork_at_a_prompt_is_a_fork_found_from_the_copied_prefix() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "tui-fork");
    let t = crate::tmux::Tmux::start(&s.root, &s.work, &s.env(), &[s.bin.display().to_string()]);
    t.wait_for("Mock Model", 90);
    std::thread::sleep(std::time::Duration::from_secs(2));
    for p in ["first prompt", "second prompt", "third prompt"] {
        t.type_line(p);
        t.wait_idle(&format!("Reply to: {p}"), 90);
    }
    let (id, _) = s.sessions()[0].clone();
    // The dialog lists "Full session", then the prompts newest first.
    t.type_line("/fork");
    t.wait_for("Fork session", 30);
    t.keys(&["Down", "Down"]);
    t.keys(&["Enter"]);
    let start = std::time::Instant::now();
    while s.sessions().len() < 2 {
        assert!(start.elapsed().as_secs() < 30, "/fork made no session:\n{}", t.screen());
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    // The chosen prompt is put back in the composer: replace it.
    std::thread::sleep(std::time::Duration::from_secs(2));
    t.keys(&["C-u"]);
    t.type_line("in the fork");
    t.wait_idle("Reply to: in the fork", 90);
    drop(t);
    let sessions = s.sessions();
    let fork = sessions.iter().find(|(i, _)| *i != id).unwrap().clone();
    assert!(fork.1.ends_with("(fork #1)"), "{sessions:?}");
    assert_eq!(s.parent_of(&fork.0), None, "no stored link to the source");
    let copied: Vec<String> = s.messages(&fork.0).into_iter().map(|m| m.2).collect();
    assert_eq!(
        copied,
        ["first prompt", "Reply to: first prompt", "in the fork", "Reply to: in the fork"],
        "the messages before the chosen prompt copied, then the new turn"
    );
    let source: Vec<String> = s.messages(&id).into_iter().map(|m| m.2).collect();
    assert_eq!(source.len(), 6, "the source unchanged: {source:?}");
    let d = crate::model::detail(&s.data());
    let convs = d["conversations"].as_array().unwrap();
    assert_eq!(convs.len(), 1, "the fork joins its source: {d:#}");
    let forks = convs[0]["fork_points"].as_array().unwrap();
    assert_eq!(forks.len(), 1, "{:#}", convs[0]);
    let first_reply = s.messages(&id).into_iter().find(|m| m.2 == "Reply to: first prompt").unwrap().0;
    assert!(forks[0]["uuid"].as_str().unwrap().ends_with(&first_reply), "at the reply before: {:#}", convs[0]);
    assert_eq!(convs[0]["branches"].as_array().unwrap().len(), 2, "{:#}", convs[0]);
    crate::model::assert_check_clean(&s.data());
    let pages = crate::model::render(&s.data(), &s.root.join("site"));
    let texts = ["second prompt", "third prompt", "in the fork", "Reply to: in the fork"];
    crate::model::assert_site(&pages, &texts.iter().map(|t| t.to_string()).collect::<Vec<_>>());
    assert!(pages.iter().any(|(p, _)| p.to_string_lossy().contains("/compare/")), "a compare page");
}

#[test]
fn opencode_tui_compact_is_a_compaction_that_loses_nothing() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "tui-compact");
    let t = crate::tmux::Tmux::start(&s.root, &s.work, &s.env(), &[s.bin.display().to_string()]);
    t.wait_for("Mock Model", 90);
    std::thread::sleep(std::time::Duration::from_secs(2));
    for p in ["first prompt", "second prompt"] {
        t.type_line(p);
        t.wait_idle(&format!("Reply to: {p}"), 90);
    }
    let (id, _) = s.sessions()[0].clone();
    t.type_line("/compact");
    let start = std::time::Instant::now();
    while s.messages(&id).len() < 6 {
        assert!(start.elapsed().as_secs() < 60, "/compact wrote no summary:\n{}", t.screen());
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    std::thread::sleep(std::time::Duration::from_secs(2));
    t.type_line("after compact");
    t.wait_idle("Reply to: after compact", 90);
    drop(t);
    // A user message whose one part is `compaction`, then the summary.
    let msgs = s.messages(&id);
    assert_eq!(msgs.len(), 8, "{msgs:?}");
    assert_eq!((msgs[4].1.as_str(), msgs[4].2.as_str()), ("user", ""), "{msgs:?}");
    let d = crate::model::detail(&s.data());
    assert_eq!((d["compactions"].as_u64(), d["compactions_full"].as_u64()), (Some(1), Some(1)), "{d:#}");
    let convs = d["conversations"].as_array().unwrap();
    assert_eq!(convs.len(), 1, "the line goes on past the compaction: {d:#}");
    assert_eq!(convs[0]["branches"].as_array().unwrap().len(), 1, "a compaction is no fork: {:#}", convs[0]);
    assert_eq!(convs[0]["branches"][0]["leaf"].as_str(), Some(msgs[7].0.as_str()), "{:#}", convs[0]);
    crate::model::assert_check_clean(&s.data());
    let pages = crate::model::render(&s.data(), &s.root.join("site"));
    // Nothing lost: the turns before it, its summary and the turn after.
    let texts = ["first prompt", "Reply to: second prompt", &msgs[5].2, "after compact", "Reply to: after compact"];
    crate::model::assert_site(&pages, &texts.iter().map(|t| t.to_string()).collect::<Vec<_>>());
}

//! Conformance with Qwen Code 0.24.4 (`@qwen-code/qwen-code`,
//! `tests/conformance/qwen/package-lock.json`, installed by
//! `scripts/install-qwen.sh` on the pinned Node): the real client driven
//! offline (`-p`, `-r`, `--fork-session`) against a mock OpenAI
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

//! Time travel proven by the client: `cctree fork` at a checkpoint, then
//! `claude -r <new id> -p …`; the history the client sends the API must be
//! exactly root → the fork's tip, and the client must append to the fork
//! file under it.

use std::path::Path;

use serde_json::{Value, json};

use crate::client::{Sandbox, read_lines};
use crate::mock::{Request, texts};
use crate::model::cctree;

/// What `cctree fork --json` printed.
pub struct Fork {
    pub id: String,
    pub tip: String,
    pub awaits_reply: bool,
    pub command: String,
    pub json: Value,
}

/// Runs `cctree fork SESSION --at UUID` in the sandbox's archive.
pub fn fork(s: &Sandbox, session: &str, at: &str) -> Fork {
    let out = cctree()
        .args(["fork", session, "--at", at, "--json", "--projects"])
        .arg(s.projects())
        .output()
        .expect("cctree fork");
    assert!(out.status.success(), "cctree fork --at {at}: {}", String::from_utf8_lossy(&out.stderr));
    let json: Value = serde_json::from_slice(&out.stdout).expect("fork JSON");
    Fork {
        id: json["new_session_id"].as_str().unwrap().to_string(),
        tip: json["tip"].as_str().unwrap().to_string(),
        awaits_reply: json["awaits_reply"] == true,
        command: json["command"].as_str().unwrap().to_string(),
        json,
    }
}

/// A message as the history comparison sees it: its role and its blocks
/// (`text:…` trimmed, `tool_use:<id>`, `tool_result:<id>`), sorted.
type Msg = (String, Vec<String>);

/// Text the client adds on its own: context, queued-message notices.
fn injected(t: &str) -> bool {
    t.starts_with("<system-reminder>") || t.starts_with("The user sent a new message")
}

fn blocks_of(content: &Value) -> Vec<String> {
    let blocks = match content {
        Value::String(s) => vec![json!({"type": "text", "text": s})],
        Value::Array(a) => a.clone(),
        _ => Vec::new(),
    };
    let mut out: Vec<String> = blocks
        .iter()
        .filter_map(|b| match b["type"].as_str()? {
            "text" => {
                let t = b["text"].as_str()?.trim();
                (!t.is_empty() && !injected(t)).then(|| format!("text:{t}"))
            }
            "tool_use" => Some(format!("tool_use:{}", b["id"].as_str()?)),
            "tool_result" => Some(format!("tool_result:{}", b["tool_use_id"].as_str()?)),
            "image" => Some("image".into()),
            _ => None,
        })
        .collect();
    out.sort();
    out
}

/// Consecutive messages of one role are one API message.
fn merge(msgs: Vec<Msg>) -> Vec<Msg> {
    let mut out: Vec<Msg> = Vec::new();
    for (role, mut blocks) in msgs {
        match out.last_mut() {
            Some((r, b)) if *r == role => {
                b.append(&mut blocks);
                b.sort();
            }
            _ => out.push((role, blocks)),
        }
    }
    out.retain(|(_, b)| !b.is_empty());
    out
}

/// The history a fork file holds, as the API would receive it.
pub fn history_of_file(path: &Path) -> Vec<Msg> {
    let msgs = read_lines(path)
        .into_iter()
        .filter(|v| matches!(v["type"].as_str(), Some("user" | "assistant")))
        .map(|v| (v["type"].as_str().unwrap().to_string(), blocks_of(&v["message"]["content"])))
        .collect();
    merge(msgs)
}

/// The user/assistant history a request sent (its system messages apart).
pub fn history_of_request(r: &Request) -> Vec<Msg> {
    let msgs = r.body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] != "system")
        .map(|m| (m["role"].as_str().unwrap().to_string(), blocks_of(&m["content"])))
        .collect();
    merge(msgs)
}

/// The request's system-role messages and system prompt are not empty.
pub fn assert_system_context(r: &Request) {
    for m in r.body["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "system") {
        let t: String = texts(&m["content"]).concat();
        assert!(!t.trim().is_empty(), "the client sent an empty system message: {m}");
    }
}

/// Resumes a fork with its printed command plus `-p PROMPT`; returns the
/// requests the client sent.
pub fn resume(s: &Sandbox, f: &Fork, prompt: &str) -> Vec<Request> {
    s.mock.clear();
    let env: Vec<(&str, &str)> =
        f.command.split_whitespace().take_while(|w| *w != "claude").filter_map(|w| w.split_once('=')).collect();
    s.run_env(&env, &["--allowedTools", "Bash,Write", "-r", &f.id, "-p", prompt]);
    s.mock.message_requests()
}

/// The first entry the client appended to a fork file (after the copied
/// lines and the metadata line cctree wrote).
pub fn first_appended(s: &Sandbox, f: &Fork) -> Value {
    let lines = read_lines(&s.project().join(format!("{}.jsonl", f.id)));
    let meta = lines.iter().position(|v| v.get("cctreeFork").is_some()).expect("the cctreeFork line");
    lines[meta + 1..].iter().find(|v| v.get("uuid").is_some()).cloned().expect("the client appended an entry")
}

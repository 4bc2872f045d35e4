//! A mock OpenAI Responses API for Codex CLI, on 127.0.0.1.
//!
//! `POST …/responses` answers a streamed (SSE) response: `response.created`,
//! `response.output_item.added`/`.done` per item (with an
//! `output_text.delta` for messages), `response.completed` with usage.
//! Anything else answers `200 {}`. The reply is chosen from the request's
//! `input`:
//!
//! | input ends with | reply |
//! |---|---|
//! | the output of a `spawn_agent` call | a `wait_agent` call |
//! | another tool output | `Done with: <the turn's prompt>` |
//! | the compaction prompt | `Summary of the work so far.` |
//! | a prompt with `[[sh: CMD]]` | an `exec_command` call per directive |
//! | a prompt with `[[patch: add PATH TEXT]]` / `[[patch: update PATH OLD=>NEW]]` | an `apply_patch` call (freeform) per directive |
//! | a prompt with `[[agent: TASK]]` | a `spawn_agent` call (in the namespace the request offers it in) |
//! | any other prompt | `Reply to: <the prompt's last line>` |
//!
//! A sub-agent's task arrives as an `agent_message` whose text follows
//! `Payload:`; it is read as a prompt, with `((sh: …))` read as `[[sh: …]]`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::{Value, json};

use crate::http::{Reply, Request, Server, directives};

pub fn start() -> Server {
    let counter = Arc::new(AtomicU32::new(0));
    Server::start(Arc::new(move |req: &Request| {
        if req.method == "POST" && req.route().ends_with("/responses") {
            let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
            Reply::Sse(stream(n, &items(&req.body, n)))
        } else {
            Reply::Json(json!({}))
        }
    }))
}

/// Whether a request is a model turn (`POST …/responses`).
pub fn is_turn(r: &Request) -> bool {
    r.method == "POST" && r.route().ends_with("/responses")
}

/// The text of a message or agent message item.
pub fn text_of(item: &Value) -> String {
    match &item["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str().or_else(|| p["encrypted_content"].as_str()))
            .collect::<Vec<_>>()
            .concat(),
        _ => String::new(),
    }
}

/// A prompt the user (or a parent agent) typed, as opposed to context the
/// client injects (`<environment_context>`, a compaction summary).
fn typed(item: &Value) -> Option<String> {
    let t = item["type"].as_str().unwrap_or("message");
    let text = match t {
        "message" if item["role"] == "user" => text_of(item),
        "agent_message" => text_of(item),
        _ => return None,
    };
    // A parent's task for a sub-agent follows `Payload:`; its directives are
    // written `((sh: …))` so that they survive the parent's own reading.
    let text = match text.rsplit_once("Payload:\n") {
        Some((_, task)) => task.replace("((", "[[").replace("))", "]]"),
        None => text,
    };
    (!text.starts_with('<') && !text.starts_with("Another language model")).then_some(text)
}

fn items(req: &Value, n: u32) -> Vec<Value> {
    let input = req["input"].as_array().cloned().unwrap_or_default();
    let namespaces: Vec<(String, String)> = req["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["type"] == "namespace")
        .flat_map(|t| {
            let ns = t["name"].as_str().unwrap_or("").to_string();
            t["tools"]
                .as_array()
                .into_iter()
                .flatten()
                .map(move |f| (f["name"].as_str().unwrap_or("").to_string(), ns.clone()))
        })
        .collect();
    let call = |name: &str, id: String, args: Value| {
        let mut c = json!({"type": "function_call", "id": format!("fc_{id}"), "call_id": format!("call_{id}"), "name": name, "arguments": args.to_string()});
        if let Some((_, ns)) = namespaces.iter().find(|(f, _)| f == name) {
            c["namespace"] = json!(ns);
        }
        c
    };
    let message = |text: String| json!({"type": "message", "role": "assistant", "id": format!("msg_mock{n:04}"), "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]});
    let Some(last) = input.last() else { return vec![message("Reply to: ".into())] };
    let last_type = last["type"].as_str().unwrap_or("");
    if last_type == "function_call_output" || last_type == "custom_tool_call_output" {
        let spawned = input.iter().any(|i| i["call_id"] == last["call_id"] && i["name"] == "spawn_agent");
        if spawned {
            return vec![call("wait_agent", format!("mock{n:04}_w"), json!({"timeout_ms": 10000}))];
        }
        let prompt = input.iter().rev().find_map(typed).unwrap_or_default();
        return vec![message(format!("Done with: {}", prompt.chars().take(40).collect::<String>()))];
    }
    let text = text_of(last);
    if text.contains("CONTEXT CHECKPOINT COMPACTION") {
        return vec![message("Summary of the work so far.".into())];
    }
    let prompt = typed(last).unwrap_or_default();
    let mut out = Vec::new();
    for (i, cmd) in directives(&prompt, "sh").into_iter().enumerate() {
        out.push(call("exec_command", format!("mock{n:04}_{i}"), json!({"cmd": cmd})));
    }
    for (i, p) in directives(&prompt, "patch").into_iter().enumerate() {
        let mut words = p.splitn(3, ' ');
        let (op, path, rest) = (words.next().unwrap_or(""), words.next().unwrap_or(""), words.next().unwrap_or(""));
        let body = if op == "add" {
            format!("*** Add File: {path}\n+{rest}\n")
        } else {
            let (old, new) = rest.split_once("=>").unwrap_or((rest, ""));
            format!("*** Update File: {path}\n@@\n-{}\n+{}\n", old.trim(), new.trim())
        };
        out.push(json!({"type": "custom_tool_call", "id": format!("ctc_mock{n:04}_{i}"), "call_id": format!("call_mock{n:04}_p{i}"), "name": "apply_patch", "input": format!("*** Begin Patch\n{body}*** End Patch")}));
    }
    for (i, task) in directives(&prompt, "agent").into_iter().enumerate() {
        out.push(call(
            "spawn_agent",
            format!("mock{n:04}_a{i}"),
            json!({"task_name": format!("helper_{n}_{i}"), "message": task}),
        ));
    }
    if out.is_empty() {
        let line = prompt.trim().lines().last().unwrap_or("").chars().take(80).collect::<String>();
        out.push(message(format!("Reply to: {line}")));
    }
    out
}

fn stream(n: u32, items: &[Value]) -> String {
    let mut s = String::new();
    let mut ev = |name: &str, data: Value| s.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    let id = format!("resp_mock{n:04}");
    ev("response.created", json!({"type": "response.created", "response": {"id": id}}));
    for (i, item) in items.iter().enumerate() {
        ev(
            "response.output_item.added",
            json!({"type": "response.output_item.added", "output_index": i, "item": item}),
        );
        if item["type"] == "message" {
            ev(
                "response.output_text.delta",
                json!({"type": "response.output_text.delta", "output_index": i, "content_index": 0, "item_id": item["id"], "delta": item["content"][0]["text"]}),
            );
        }
        ev("response.output_item.done", json!({"type": "response.output_item.done", "output_index": i, "item": item}));
    }
    let usage = json!({"input_tokens": 100, "input_tokens_details": {"cached_tokens": 20}, "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 105});
    ev("response.completed", json!({"type": "response.completed", "response": {"id": id, "usage": usage}}));
    s
}

/// The user prompts a request carries, in order (what the model was shown).
pub fn prompts_of(req: &Request) -> Vec<String> {
    req.body["input"].as_array().into_iter().flatten().filter_map(typed).collect()
}

#[test]
fn the_codex_mock_streams_scripted_replies() {
    let req = |input: Value| Request {
        method: "POST".into(),
        path: "/v1/responses".into(),
        headers: vec![],
        body: json!({"input": input, "tools": [{"type": "namespace", "name": "collaboration", "tools": [{"name": "spawn_agent"}]}]}),
    };
    let user = |t: &str| json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": t}]});
    let got = items(
        &req(json!([user("<environment_context/>"), user("go [[sh: ls]] [[patch: add a.txt hi]] [[agent: look]]")]))
            .body,
        1,
    );
    let kinds: Vec<&str> = got.iter().map(|i| i["name"].as_str().unwrap_or("")).collect();
    assert_eq!(kinds, ["exec_command", "apply_patch", "spawn_agent"]);
    assert_eq!(got[2]["namespace"], "collaboration");
    assert!(got[1]["input"].as_str().unwrap().contains("*** Add File: a.txt\n+hi\n"));
    let after = items(&req(json!([user("go [[agent: look]]"), got[2].clone(), {"type": "function_call_output", "call_id": got[2]["call_id"], "output": "{}"}])).body, 2);
    assert_eq!(after[0]["name"], "wait_agent");
    let done = items(&req(json!([user("first [[sh: ls]]"), got[0].clone(), {"type": "function_call_output", "call_id": got[0]["call_id"], "output": "x"}])).body, 3);
    assert_eq!(done[0]["content"][0]["text"], "Done with: first [[sh: ls]]");
    let sse = stream(4, &done);
    assert!(sse.starts_with("event: response.created") && sse.contains("event: response.completed"));
}

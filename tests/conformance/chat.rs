//! A mock of the OpenAI chat-completions API on 127.0.0.1, for the clients
//! that speak it to a base URL they are given (Pi, OpenCode, Qwen Code,
//! Aider): `POST <base>/chat/completions` answered as a `text/event-stream`
//! of `chat.completion.chunk`s (or, without `stream: true`, one
//! `chat.completion`), `GET <base>/models` with the mock's models, anything
//! else `200 {}`. Each client's module says what the model answers
//! ([`Script`]) from the request ([`Chat`]); the streaming, ids and usage
//! are the same for all:
//!
//! - a reply's text and reasoning come in two pieces each
//!   (`delta.content`, `delta.reasoning_content`), each tool call as
//!   `delta.tool_calls` (`{index, id, type: "function", function: {name,
//!   arguments}}`) whose `arguments` come in two pieces, then a chunk with
//!   its `finish_reason` (`tool_calls` when it calls, else `stop`; clients
//!   fail a stream without one), then a last chunk with `choices: []` and
//!   the `usage`, then `data: [DONE]`;
//! - chunk ids are `chatcmpl-mock-<n>` and call ids `call_mock_<n>`, `n`
//!   counting the server's answers and calls;
//! - usage: `prompt_tokens` a quarter of the request's bytes (of which
//!   `cached` said by the script, default none), `completion_tokens` 10.
//!
//! [`directives`] reads the `[[name: …]]` directives a prompt holds, as the
//! other mocks do ([`crate::http::directives`]).
#![allow(
    dead_code,
    unused_imports,
    reason = "shared by the clients' modules (Pi, OpenCode, Qwen Code, Aider): each uses part of it"
)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::{Value, json};

pub use crate::http::directives;
use crate::http::{Reply, Request, Server};

/// A chat-completions request, read.
#[derive(Debug, Clone)]
pub struct Chat {
    pub model: String,
    /// The system messages' text, joined.
    pub system: String,
    /// The messages as sent (`{role, content, tool_calls?, tool_call_id?}`).
    pub messages: Vec<Value>,
    /// The names of the tools offered.
    pub tools: Vec<String>,
    pub stream: bool,
    pub body: Value,
}

impl Chat {
    pub fn of(body: &Value) -> Chat {
        let messages = body["messages"].as_array().cloned().unwrap_or_default();
        let system = messages.iter().filter(|m| m["role"] == "system").map(|m| text(&m["content"])).collect::<Vec<_>>();
        let tools = body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
            .collect();
        Chat {
            model: body["model"].as_str().unwrap_or("").to_string(),
            system: system.join("\n"),
            messages,
            tools,
            stream: body["stream"] == true,
            body: body.clone(),
        }
    }

    /// The text of the last `user` message (the turn's prompt).
    pub fn prompt(&self) -> String {
        self.messages.iter().rev().find(|m| m["role"] == "user").map(|m| text(&m["content"])).unwrap_or_default()
    }

    /// Every `user` message's text, in order (what the model was shown).
    pub fn prompts(&self) -> Vec<String> {
        self.messages.iter().filter(|m| m["role"] == "user").map(|m| text(&m["content"])).collect()
    }

    /// Whether the last message is a tool's result (the model answers a call).
    pub fn answers_a_call(&self) -> bool {
        self.messages.last().is_some_and(|m| m["role"] == "tool")
    }

    /// `role` of each message, with `+calls` for an assistant's tool calls
    /// (`system, user, assistant+calls, tool, …`).
    pub fn shape(&self) -> Vec<String> {
        self.messages
            .iter()
            .map(|m| {
                let role = m["role"].as_str().unwrap_or("?");
                if m["tool_calls"].as_array().is_some_and(|c| !c.is_empty()) {
                    format!("{role}+calls")
                } else {
                    role.to_string()
                }
            })
            .collect()
    }
}

/// The text of a message's `content`: a string, or the `text` of its parts.
pub fn text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}

/// What the model answers.
#[derive(Debug, Clone, Default)]
pub struct Answer {
    pub reasoning: Option<String>,
    pub text: Option<String>,
    /// Tool calls: name and arguments.
    pub calls: Vec<(String, Value)>,
    /// Of the prompt's tokens, those the cache gave.
    pub cached: u64,
}

impl Answer {
    pub fn text(t: impl Into<String>) -> Answer {
        Answer { text: Some(t.into()), ..Answer::default() }
    }

    pub fn calls(calls: Vec<(String, Value)>) -> Answer {
        Answer { calls, ..Answer::default() }
    }
}

/// What a client's mock answers to a request.
pub type Script = Arc<dyn Fn(&Chat) -> Answer + Send + Sync>;

/// The models `GET <base>/models` lists.
pub const MODELS: &[&str] = &["mock-model", "mock-model-2"];

/// Starts the mock.
pub fn start(script: Script) -> Server {
    let answers = Arc::new(AtomicU32::new(0));
    let calls = Arc::new(AtomicU32::new(0));
    Server::start(Arc::new(move |req: &Request| {
        let route = req.route();
        if req.method == "GET" && route.ends_with("/models") {
            let data: Vec<Value> =
                MODELS.iter().map(|m| json!({"id": m, "object": "model", "created": 0, "owned_by": "mock"})).collect();
            return Reply::Json(json!({"object": "list", "data": data}));
        }
        if req.method != "POST" || !route.ends_with("/chat/completions") {
            return Reply::Json(json!({}));
        }
        let chat = Chat::of(&req.body);
        let answer = script(&chat);
        let n = answers.fetch_add(1, Ordering::SeqCst) + 1;
        let ids: Vec<String> =
            answer.calls.iter().map(|_| format!("call_mock_{}", calls.fetch_add(1, Ordering::SeqCst) + 1)).collect();
        let prompt_tokens = (req.body.to_string().len() / 4) as u64;
        let usage = json!({
            "prompt_tokens": prompt_tokens,
            "completion_tokens": 10,
            "total_tokens": prompt_tokens + 10,
            "prompt_tokens_details": {"cached_tokens": answer.cached.min(prompt_tokens)},
        });
        let id = format!("chatcmpl-mock-{n}");
        if chat.stream {
            Reply::Sse(sse(&id, &chat.model, &answer, &ids, &usage))
        } else {
            Reply::Json(whole(&id, &chat.model, &answer, &ids, &usage))
        }
    }))
}

/// The two halves of a text (at a character boundary).
fn halves(s: &str) -> (&str, &str) {
    let mut at = s.len() / 2;
    while !s.is_char_boundary(at) {
        at += 1;
    }
    s.split_at(at)
}

fn finish(answer: &Answer) -> &'static str {
    if answer.calls.is_empty() { "stop" } else { "tool_calls" }
}

/// The event stream of an answer.
fn sse(id: &str, model: &str, answer: &Answer, ids: &[String], usage: &Value) -> String {
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({"id": id, "object": "chat.completion.chunk", "created": 1_796_000_000, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut events = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    if let Some(r) = &answer.reasoning {
        let (a, b) = halves(r);
        events.extend([chunk(json!({"reasoning_content": a}), None), chunk(json!({"reasoning_content": b}), None)]);
    }
    if let Some(t) = &answer.text {
        let (a, b) = halves(t);
        events.extend([chunk(json!({"content": a}), None), chunk(json!({"content": b}), None)]);
    }
    for (i, ((name, args), call)) in answer.calls.iter().zip(ids).enumerate() {
        let args = args.to_string();
        let (a, b) = halves(&args);
        events.push(chunk(
            json!({"tool_calls": [{"index": i, "id": call, "type": "function", "function": {"name": name, "arguments": a}}]}),
            None,
        ));
        events.push(chunk(json!({"tool_calls": [{"index": i, "function": {"arguments": b}}]}), None));
    }
    events.push(chunk(json!({}), Some(finish(answer))));
    events.push(json!({"id": id, "object": "chat.completion.chunk", "created": 1_796_000_000, "model": model,
        "choices": [], "usage": usage}));
    let mut out: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    out.push_str("data: [DONE]\n\n");
    out
}

/// The answer as one `chat.completion`.
fn whole(id: &str, model: &str, answer: &Answer, ids: &[String], usage: &Value) -> Value {
    let calls: Vec<Value> = answer
        .calls
        .iter()
        .zip(ids)
        .map(|((name, args), call)| json!({"id": call, "type": "function", "function": {"name": name, "arguments": args.to_string()}}))
        .collect();
    let mut message = json!({"role": "assistant", "content": answer.text});
    if let Some(r) = &answer.reasoning {
        message["reasoning_content"] = r.clone().into();
    }
    if !calls.is_empty() {
        message["tool_calls"] = calls.into();
    }
    json!({"id": id, "object": "chat.completion", "created": 1_796_000_000, "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish(answer)}], "usage": usage})
}

#[test]
fn the_chat_mock_streams_text_reasoning_and_calls_in_pieces() {
    let answer = Answer {
        reasoning: Some("think é".into()),
        text: Some("héllo".into()),
        calls: vec![("bash".into(), json!({"command": "ls"}))],
        cached: 3,
    };
    let usage = json!({"prompt_tokens": 9});
    let s = sse("chatcmpl-mock-1", "m", &answer, &["call_mock_1".to_string()], &usage);
    assert!(s.ends_with("data: [DONE]\n\n"));
    let chunks: Vec<Value> = s
        .split("\n\n")
        .filter_map(|e| e.strip_prefix("data: "))
        .filter(|e| *e != "[DONE]")
        .map(|e| serde_json::from_str(e).unwrap())
        .collect();
    let joined = |k: &str| -> String { chunks.iter().filter_map(|c| c["choices"][0]["delta"][k].as_str()).collect() };
    assert_eq!(joined("content"), "héllo");
    assert_eq!(joined("reasoning_content"), "think é");
    let args: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"].as_str())
        .collect();
    assert_eq!(args, r#"{"command":"ls"}"#);
    assert!(chunks.iter().any(|c| c["choices"][0]["finish_reason"] == "tool_calls"));
    assert_eq!(chunks.last().unwrap()["usage"], usage);
    let w = whole("x", "m", &answer, &["call_mock_1".to_string()], &usage);
    assert_eq!(w["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"], r#"{"command":"ls"}"#);
    let chat = Chat::of(&json!({"model": "m", "stream": true, "messages": [
        {"role": "system", "content": "sys"}, {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c"}]}, {"role": "tool", "content": "ok", "tool_call_id": "c"}],
        "tools": [{"type": "function", "function": {"name": "bash"}}]}));
    assert_eq!((chat.system.as_str(), chat.prompt().as_str(), chat.answers_a_call()), ("sys", "go", true));
    assert_eq!(chat.shape(), ["system", "user", "assistant+calls", "tool"]);
    assert_eq!(chat.tools, ["bash"]);
}

//! A mock Anthropic Messages API on 127.0.0.1, for driving the real client
//! offline.
//!
//! - `POST /v1/messages` answers with a scripted reply, streamed as SSE when
//!   the request asks for `stream`, else as one JSON message;
//! - `POST /v1/messages/count_tokens` answers `{"input_tokens":…}`;
//! - anything else answers `200 {}`.
//!
//! The reply is chosen from the last user message the client sends, by
//! directives written in the prompt:
//!
//! | directive | reply |
//! |---|---|
//! | `[[bash: CMD]]` (one or more) | one `tool_use` of `Bash` per directive, in one response (several: parallel calls) |
//! | `[[write: PATH TEXT]]` | a `tool_use` of `Write` |
//! | a message of `tool_result` blocks | `Done with: <the turn's prompt> (N results).` |
//! | the client's request for a compaction summary | `<analysis>…</analysis>` then `<summary>Summary N of M messages.</summary>` |
//! | anything else | `Reply to: <the prompt's last line>` |
//!
//! Every request is logged (method, path, JSON body) for assertions.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// One request the mock received.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub body: Value,
}

impl Request {
    /// A `POST /v1/messages` (not `count_tokens`).
    pub fn is_messages(&self) -> bool {
        self.method == "POST" && self.path.split('?').next() == Some("/v1/messages")
    }
}

/// A running mock; stops accepting when dropped.
pub struct Mock {
    pub port: u16,
    log: Arc<Mutex<Vec<Request>>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

impl Mock {
    pub fn start() -> Mock {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the mock API on 127.0.0.1");
        let port = listener.local_addr().expect("mock address").port();
        let log = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let counter = Arc::new(AtomicU32::new(0));
        let (l, s) = (log.clone(), stop.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (l, c) = (l.clone(), counter.clone());
                std::thread::spawn(move || serve(conn, &l, &c));
            }
        });
        Mock { port, log, stop }
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }

    /// The `POST /v1/messages` requests so far.
    pub fn message_requests(&self) -> Vec<Request> {
        self.requests().into_iter().filter(Request::is_messages).collect()
    }

    /// Forgets the requests so far.
    pub fn clear(&self) {
        self.log.lock().unwrap().clear();
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Serves one connection (HTTP/1.1, keep-alive until an SSE reply or EOF).
fn serve(conn: TcpStream, log: &Mutex<Vec<Request>>, counter: &AtomicU32) {
    let _ = conn.set_read_timeout(Some(std::time::Duration::from_secs(120)));
    let mut reader = BufReader::new(match conn.try_clone() {
        Ok(c) => c,
        Err(_) => return,
    });
    let mut out = conn;
    loop {
        let Some((method, path, headers)) = read_head(&mut reader) else { return };
        let body = read_body(&mut reader, &headers);
        let close = headers.iter().any(|(k, v)| k == "connection" && v.eq_ignore_ascii_case("close"));
        let json: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        log.lock().unwrap().push(Request { method: method.clone(), path: path.clone(), body: json.clone() });
        let route = path.split('?').next().unwrap_or("");
        let keep = match (method.as_str(), route) {
            ("POST", "/v1/messages/count_tokens") => send_json(&mut out, &json!({"input_tokens": 100})),
            ("POST", "/v1/messages") => {
                let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
                let (blocks, stop) = reply_blocks(&json, n);
                let message = message(&json, n, blocks.clone(), stop);
                if json["stream"] == Value::Bool(true) {
                    send_sse(&mut out, &message, &blocks);
                    false
                } else {
                    send_json(&mut out, &message)
                }
            }
            _ => send_json(&mut out, &json!({})),
        };
        if !keep || close {
            return;
        }
    }
}

type Head = (String, String, Vec<(String, String)>);

fn read_head(r: &mut BufReader<TcpStream>) -> Option<Head> {
    let mut line = String::new();
    if r.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).ok()? == 0 {
            return None;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    Some((method, path, headers))
}

fn read_body(r: &mut BufReader<TcpStream>, headers: &[(String, String)]) -> Vec<u8> {
    let get = |k: &str| headers.iter().find(|(h, _)| h == k).map(|(_, v)| v.as_str());
    if get("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        let mut body = Vec::new();
        loop {
            let mut size = String::new();
            if r.read_line(&mut size).unwrap_or(0) == 0 {
                return body;
            }
            let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16).unwrap_or(0);
            let mut chunk = vec![0; n + 2];
            if r.read_exact(&mut chunk).is_err() {
                return body;
            }
            if n == 0 {
                return body;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    }
    let n: usize = get("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
    let mut body = vec![0; n];
    let _ = r.read_exact(&mut body);
    body
}

fn send_json(out: &mut TcpStream, v: &Value) -> bool {
    let body = v.to_string();
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nrequest-id: req_mock\r\n\r\n",
        body.len()
    );
    out.write_all(head.as_bytes()).and_then(|_| out.write_all(body.as_bytes())).and_then(|_| out.flush()).is_ok()
}

fn send_sse(out: &mut TcpStream, message: &Value, blocks: &[Value]) {
    let mut s = String::new();
    let mut ev = |name: &str, data: Value| s.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    let mut start = message.clone();
    start["content"] = json!([]);
    start["stop_reason"] = Value::Null;
    ev("message_start", json!({"type": "message_start", "message": start}));
    for (i, b) in blocks.iter().enumerate() {
        if b["type"] == "text" {
            ev(
                "content_block_start",
                json!({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}),
            );
            ev(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": b["text"]}}),
            );
        } else {
            let mut empty = b.clone();
            empty["input"] = json!({});
            ev("content_block_start", json!({"type": "content_block_start", "index": i, "content_block": empty}));
            ev(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": b["input"].to_string()}}),
            );
        }
        ev("content_block_stop", json!({"type": "content_block_stop", "index": i}));
    }
    ev(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": message["stop_reason"], "stop_sequence": null}, "usage": {"output_tokens": 5}}),
    );
    ev("message_stop", json!({"type": "message_stop"}));
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\nrequest-id: req_mock\r\n\r\n";
    let _ = out.write_all(head.as_bytes()).and_then(|_| out.write_all(s.as_bytes())).and_then(|_| out.flush());
}

fn message(req: &Value, n: u32, blocks: Vec<Value>, stop: &str) -> Value {
    json!({
        "id": format!("msg_mock{n:06}"),
        "type": "message",
        "role": "assistant",
        "model": req["model"].as_str().unwrap_or("claude-mock"),
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
    })
}

/// The text blocks of a message's content, whatever its shape.
pub fn texts(content: &Value) -> Vec<String> {
    match content {
        Value::String(s) => vec![s.clone()],
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// The prompt a request answers: the last user message's last text block
/// that is not injected context.
pub fn prompt_of(req: &Value) -> Option<String> {
    let last = req["messages"].as_array()?.iter().rev().find(|m| m["role"] == "user")?;
    texts(&last["content"]).into_iter().rev().find(|t| !injected(t))
}

/// Text the client adds to a user message: context, queued-message notices,
/// the continuation of an interrupted turn.
fn injected(t: &str) -> bool {
    t.starts_with("<system-reminder>")
        || t.starts_with("The user sent a new message")
        || t.starts_with("Continue from where")
}

/// The prompt of the turn in progress: the last text a user message carries
/// that is not injected context.
fn turn_prompt(req: &Value) -> Option<String> {
    let msgs = req["messages"].as_array()?;
    msgs.iter()
        .rev()
        .filter(|m| m["role"] == "user")
        .flat_map(|m| texts(&m["content"]).into_iter().rev())
        .find(|t| !injected(t))
}

/// How the client's request for a compaction summary begins (2.1.332:
/// `/compact` and the rewind menu's "Summarize from here / up to here").
pub const SUMMARY_REQUEST: &str = "CRITICAL: Respond with TEXT ONLY.";

fn directives<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    let open = format!("[[{name}: ");
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(&open) {
        let after = &rest[i + open.len()..];
        let Some(end) = after.find("]]") else { break };
        out.push(&after[..end]);
        rest = &after[end + 2..];
    }
    out
}

fn reply_blocks(req: &Value, n: u32) -> (Vec<Value>, &'static str) {
    let last_user = req["messages"].as_array().and_then(|m| m.iter().rev().find(|m| m["role"] == "user"));
    let results = last_user
        .and_then(|m| m["content"].as_array())
        .map_or(0, |b| b.iter().filter(|b| b["type"] == "tool_result").count());
    if results > 0 {
        let turn = turn_prompt(req).unwrap_or_default();
        let text = format!("Done with: {} ({results} results).", turn.chars().take(40).collect::<String>());
        return (vec![json!({"type": "text", "text": text})], "end_turn");
    }
    let prompt = prompt_of(req).unwrap_or_default();
    if prompt.starts_with(SUMMARY_REQUEST) {
        let msgs = req["messages"].as_array().map_or(0, Vec::len);
        let text = format!(
            "<analysis>The conversation so far.</analysis>\n\n<summary>Summary {n} of {msgs} messages.</summary>"
        );
        return (vec![json!({"type": "text", "text": text})], "end_turn");
    }
    let bash = directives(&prompt, "bash");
    if !bash.is_empty() {
        let calls = bash
            .iter()
            .enumerate()
            .map(|(i, c)| json!({"type": "tool_use", "id": format!("toolu_mock{n:04}_{i}"), "name": "Bash", "input": {"command": c, "description": "run it"}}))
            .collect();
        return (calls, "tool_use");
    }
    let writes = directives(&prompt, "write");
    if !writes.is_empty() {
        let calls = writes
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let (path, text) = w.split_once(' ').unwrap_or((w, ""));
                json!({"type": "tool_use", "id": format!("toolu_mock{n:04}_{i}"), "name": "Write", "input": {"file_path": path, "content": text}})
            })
            .collect();
        return (calls, "tool_use");
    }
    let line = prompt.trim().lines().last().unwrap_or("").chars().take(80).collect::<String>();
    (vec![json!({"type": "text", "text": format!("Reply to: {line}")})], "end_turn")
}

#[test]
fn the_mock_answers_streaming_and_plain_requests() {
    let mock = Mock::start();
    let post = |path: &str, body: &Value| -> String {
        let mut s = TcpStream::connect(("127.0.0.1", mock.port)).unwrap();
        let b = body.to_string();
        write!(s, "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{b}", b.len()).unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    };
    let plain = post(
        "/v1/messages",
        &json!({"model": "m", "messages": [{"role": "user", "content": "hi [[bash: ls]] [[bash: pwd]]"}]}),
    );
    let body: Value = serde_json::from_str(plain.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(body["stop_reason"], "tool_use");
    assert_eq!(body["content"].as_array().unwrap().len(), 2, "two directives: parallel calls");
    let sse = post(
        "/v1/messages?beta=true",
        &json!({"stream": true, "messages": [{"role": "user", "content": [{"type": "text", "text": "hello"}]}]}),
    );
    assert!(
        sse.contains("event: message_start") && sse.contains("Reply to: hello") && sse.contains("event: message_stop")
    );
    let tokens = post("/v1/messages/count_tokens", &json!({}));
    assert!(tokens.contains("input_tokens"));
    assert!(post("/v1/other", &json!({})).ends_with("{}"));
    let log = mock.requests();
    assert_eq!(log.len(), 4);
    assert_eq!(mock.message_requests().len(), 2);
    assert_eq!(log[1].body["stream"], true);
}

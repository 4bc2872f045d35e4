//! A mock Gemini API for Gemini CLI, on 127.0.0.1.
//!
//! `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` answers one
//! SSE event holding a whole `GenerateContentResponse`;
//! `:generateContent` answers it as JSON; `:countTokens` answers
//! `{"totalTokens": …}`; anything else `200 {}`. Token counts are a quarter
//! of the request's bytes. The reply is chosen from
//! the request:
//!
//! | request | reply |
//! |---|---|
//! | the model router's (system instruction asks for a `complexity_score`) | `{"complexity_reasoning": …, "complexity_score": 10}` |
//! | the compression's (system instruction asks for a `<state_snapshot>`) | `<state_snapshot>Summary of the work so far.</state_snapshot>` |
//! | any other JSON-mode request (`responseMimeType: application/json`) | the smallest object its schema accepts |
//! | a sub-agent's (it is offered `complete_task`), unless its task has a directive still to run | a `complete_task` call |
//! | contents ending with function responses | `Done with: <the turn's prompt>` |
//! | a prompt with `[[sh: CMD]]` | a `run_shell_command` call per directive |
//! | `[[write: PATH TEXT]]`, `[[read: PATH]]`, `[[edit: PATH OLD=>NEW]]` | `write_file`, `read_file`, `replace` |
//! | `[[long: N]]` | `Long reply:`, N numbered words, `END OF LONG REPLY` |
//! | `[[agent: TASK]]` | an `invoke_agent` call of the `generalist` agent (`((sh: …))` in TASK becomes `[[sh: …]]`) |
//! | any other prompt | `Reply to: <the prompt's last line>` |

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::{Value, json};

use crate::http::{Reply, Request, Server, directives};

pub fn start() -> Server {
    let counter = Arc::new(AtomicU32::new(0));
    Server::start(Arc::new(move |req: &Request| {
        let route = req.route().to_string();
        // Tokens: a quarter of the request's bytes (the client compares
        // counts before and after a compression).
        let tokens = req.body.to_string().len() / 4;
        if route.ends_with(":countTokens") {
            return Reply::Json(json!({"totalTokens": tokens}));
        }
        if !is_turn(req) {
            return Reply::Json(json!({}));
        }
        let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
        let resp = json!({
            "candidates": [{"content": {"role": "model", "parts": parts(&req.body)}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": tokens, "candidatesTokenCount": 5, "cachedContentTokenCount": 20, "totalTokenCount": tokens + 5},
            "modelVersion": "gemini-mock",
            "responseId": format!("mock{n:04}"),
        });
        if route.ends_with(":streamGenerateContent") {
            Reply::Sse(format!("data: {resp}\r\n\r\n"))
        } else {
            Reply::Json(resp)
        }
    }))
}

/// Whether a request asks the model for content.
pub fn is_turn(r: &Request) -> bool {
    r.method == "POST" && (r.route().ends_with(":generateContent") || r.route().ends_with(":streamGenerateContent"))
}

/// The texts a content's parts hold that the user typed (not context the
/// client adds, not thoughts).
fn typed(content: &Value) -> Vec<String> {
    content["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["thought"] != true)
        .filter_map(|p| p["text"].as_str())
        .filter(|t| !t.starts_with('<'))
        .map(str::to_string)
        .collect()
}

fn has(content: &Value, key: &str) -> bool {
    content["parts"].as_array().into_iter().flatten().any(|p| p.get(key).is_some())
}

/// The smallest value a (Gemini or JSON) schema accepts.
fn minimal(schema: &Value) -> Value {
    let kind = schema["type"].as_str().unwrap_or("").to_ascii_uppercase();
    match kind.as_str() {
        "OBJECT" | "" if schema.get("properties").is_some() => {
            let required: Vec<&str> =
                schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            let props = schema["properties"].as_object().cloned().unwrap_or_default();
            Value::Object(
                props
                    .iter()
                    .filter(|(k, _)| required.contains(&k.as_str()))
                    .map(|(k, v)| (k.clone(), minimal(v)))
                    .collect(),
            )
        }
        "OBJECT" => json!({}),
        "ARRAY" => json!([]),
        "INTEGER" | "NUMBER" => json!(1),
        "BOOLEAN" => json!(false),
        _ => json!("mock"),
    }
}

fn parts(req: &Value) -> Vec<Value> {
    let contents = req["contents"].as_array().cloned().unwrap_or_default();
    let system: String =
        req["systemInstruction"]["parts"].as_array().into_iter().flatten().filter_map(|p| p["text"].as_str()).collect();
    let config = &req["generationConfig"];
    let text = |t: String| vec![json!({"text": t})];
    if system.contains("complexity_score") {
        return text(json!({"complexity_reasoning": "mock", "complexity_score": 10}).to_string());
    }
    if system.contains("state_snapshot") {
        return text("<state_snapshot>Summary of the work so far.</state_snapshot>".into());
    }
    if config["responseMimeType"] == "application/json" {
        let schema =
            config.get("responseJsonSchema").or_else(|| config.get("responseSchema")).cloned().unwrap_or(json!({}));
        return text(minimal(&schema).to_string());
    }
    let last = contents.last().cloned().unwrap_or(Value::Null);
    let turn = contents.iter().rev().filter(|c| c["role"] == "user").find_map(|c| typed(c).pop()).unwrap_or_default();
    let tools: Vec<&str> = req["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|t| t["functionDeclarations"].as_array().into_iter().flatten())
        .filter_map(|f| f["name"].as_str())
        .collect();
    if tools.contains(&"complete_task") && (has(&last, "functionResponse") || directives(&turn, "sh").is_empty()) {
        let task = contents.iter().find_map(|c| typed(c).pop()).unwrap_or_default();
        let task: String = task.chars().take(40).collect();
        return vec![
            json!({"text": format!("Sub-agent report on: {task}")}),
            json!({"functionCall": {"name": "complete_task", "args": {"result": {"response": format!("Sub-agent finished: {task}")}}}}),
        ];
    }
    if has(&last, "functionResponse") {
        return text(format!("Done with: {}", turn.chars().take(40).collect::<String>()));
    }
    let prompt = typed(&last).pop().unwrap_or_default();
    let call = |name: &str, args: Value| json!({"functionCall": {"name": name, "args": args}});
    let mut out = Vec::new();
    for c in directives(&prompt, "sh") {
        out.push(call("run_shell_command", json!({"command": c, "description": "run it"})));
    }
    for w in directives(&prompt, "write") {
        let (path, content) = w.split_once(' ').unwrap_or((w, ""));
        out.push(call("write_file", json!({"file_path": path, "content": content})));
    }
    for path in directives(&prompt, "read") {
        out.push(call("read_file", json!({"file_path": path})));
    }
    for e in directives(&prompt, "edit") {
        let (path, rest) = e.split_once(' ').unwrap_or((e, ""));
        let (old, new) = rest.split_once("=>").unwrap_or((rest, ""));
        out.push(call(
            "replace",
            json!({"file_path": path, "old_string": old.trim(), "new_string": new.trim(), "instruction": "edit it"}),
        ));
    }
    if let Some(n) = directives(&prompt, "long").first().and_then(|n| n.parse::<usize>().ok()) {
        // Numbered words: a repeated one trips the client's loop detection.
        let words: Vec<String> = (1..=n).map(|i| format!("word{i}")).collect();
        return text(format!("Long reply: {} END OF LONG REPLY", words.join(" ")));
    }
    for task in directives(&prompt, "agent") {
        out.push(call(
            "invoke_agent",
            json!({"agent_name": "generalist", "prompt": task.replace("((", "[[").replace("))", "]]")}),
        ));
    }
    if out.is_empty() {
        let line = prompt.trim().lines().last().unwrap_or("").chars().take(80).collect::<String>();
        out = text(format!("Reply to: {line}"));
    }
    out
}

/// The user prompts a request carries, in order (what the model was shown).
pub fn prompts_of(req: &Request) -> Vec<String> {
    req.body["contents"].as_array().into_iter().flatten().filter(|c| c["role"] == "user").flat_map(typed).collect()
}

/// `role:part kinds` of each content of a request, e.g. `user:fR,fR`.
pub fn shape_of(req: &Request) -> Vec<String> {
    req.body["contents"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let kinds: Vec<&str> = c["parts"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| {
                    if p.get("functionCall").is_some() {
                        "fC"
                    } else if p.get("functionResponse").is_some() {
                        "fR"
                    } else {
                        "text"
                    }
                })
                .collect();
            format!("{}:{}", c["role"].as_str().unwrap_or(""), kinds.join(","))
        })
        .collect()
}

#[test]
fn the_gemini_mock_scripts_calls_and_json_answers() {
    let user =
        |t: &str| json!({"role": "user", "parts": [{"text": "<session_context>x</session_context>"}, {"text": t}]});
    let got = parts(&json!({"contents": [user("go [[sh: ls]] [[write: a.txt hi]] [[agent: look ((sh: pwd))]]")]}));
    let names: Vec<&str> = got.iter().map(|p| p["functionCall"]["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["run_shell_command", "write_file", "invoke_agent"]);
    assert_eq!(got[2]["functionCall"]["args"]["prompt"], "look [[sh: pwd]]");
    let done = parts(
        &json!({"contents": [user("first [[sh: ls]]"), {"role": "model", "parts": [got[0].clone()]}, {"role": "user", "parts": [{"functionResponse": {"name": "run_shell_command", "response": {}}}]}]}),
    );
    assert_eq!(done[0]["text"], "Done with: first [[sh: ls]]");
    let router =
        parts(&json!({"systemInstruction": {"parts": [{"text": "give a complexity_score"}]}, "contents": [user("x")]}));
    assert!(router[0]["text"].as_str().unwrap().contains("\"complexity_score\":10"));
    let schema = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "boolean"}, "c": {"type": "integer"}}, "required": ["a", "b"]});
    let json_mode = parts(
        &json!({"generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": schema}, "contents": [user("x")]}),
    );
    assert_eq!(json_mode[0]["text"], r#"{"a":"mock","b":false}"#);
    let agent = parts(
        &json!({"tools": [{"functionDeclarations": [{"name": "complete_task"}]}], "contents": [user("look around")]}),
    );
    assert_eq!(agent[1]["functionCall"]["name"], "complete_task");
}

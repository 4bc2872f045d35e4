//! What a Qwen Code record says ([`node`]): its Gemini API `parts` (text,
//! thoughts, `functionCall`, `functionResponse`) as the model's blocks, its
//! tools' inputs typed (transcript-format, Appendix G).

use std::borrow::Cow;

use serde_json::Value;

use crate::model::{Block, Body, Content, Injected, Node, Raw, Read, Shell, Str, ToolCall, ToolInput, ToolOutput};
use crate::model::{Entry, Kind, UserKind};
use crate::texts::LineError;

fn owned<'a>(s: &str) -> Str<'a> {
    Cow::Owned(s.to_string())
}

/// Whether a prompt's text part is the reminder the client put before what
/// was typed (a resume of a session with background agents).
pub(crate) fn is_reminder(text: &str) -> bool {
    text.trim_start().starts_with("<system-reminder>")
}

/// What the entry says (see [`crate::model::Reader::node`]).
pub(super) fn node<'a>(r: Read<'a>) -> (Node<'a>, Option<LineError>) {
    let e = r.entry;
    let (json, err) = match r.lines.json(e) {
        Ok(v) => (v, None),
        Err(err) => (Value::Null, Some(err)),
    };
    (Node { content: content(e, &json), results: Vec::new() }, err)
}

fn content<'a>(e: &Entry, v: &Value) -> Content<'a> {
    let parts = &v["message"]["parts"];
    match (&e.kind, e.user_kind) {
        (Kind::Assistant, _) => Content::Reply(reply(parts)),
        (Kind::User, UserKind::ToolResult) => {
            let failed = v["toolCallResult"]["status"].as_str() == Some("error");
            Content::ToolResults(responses(parts, failed).into_iter().map(|r| Block::ToolResult(Box::new(r))).collect())
        }
        (Kind::User, UserKind::Prompt) => Content::Prompt(prompt(parts)),
        (Kind::User, UserKind::Notification) => {
            Content::Injected { kind: Injected::Notification, text: Cow::Owned(super::text_of(parts)) }
        }
        (Kind::User, UserKind::Command) => {
            let cmd = v["systemPayload"]["rawCommand"].as_str().unwrap_or("").trim();
            let (name, args) = cmd.split_once(char::is_whitespace).unwrap_or((cmd, ""));
            Content::Command { name: owned(name), args: owned(args.trim()) }
        }
        (Kind::User, _) => Content::Injected { kind: Injected::Meta, text: Cow::Owned(super::text_of(parts)) },
        (Kind::System, _) if e.compact_summary => Content::CompactSummary(Cow::Owned(compressed(v))),
        _ => Content::Other { data_kind: e.subtype.as_deref().map(owned), raw: Raw::of(v.clone()) },
    }
}

/// A `chat_compression`'s replacement history, as the model is shown it.
fn compressed(v: &Value) -> String {
    let history = &v["systemPayload"]["compressedHistory"];
    let texts: Vec<String> = history
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .map(|m| super::text_of(&m["parts"]))
        .filter(|t| !t.trim().is_empty())
        .collect();
    texts.join("\n\n")
}

/// A prompt's parts: the reminder as context, the rest as typed.
fn prompt<'a>(parts: &Value) -> Body<'a> {
    let Some(list) = parts.as_array() else { return Body::Missing };
    let blocks = list
        .iter()
        .filter_map(|p| {
            let t = p["text"].as_str()?;
            Some(match is_reminder(t) {
                true => Block::Context { label: "system reminder", name: None, text: owned(t.trim()) },
                false => Block::Text(owned(t)),
            })
        })
        .chain(crate::agent::gemini::attachments(parts))
        .collect();
    Body::Blocks(blocks)
}

/// A reply's blocks: its thoughts, its text, its calls, in order.
fn reply<'a>(parts: &Value) -> Vec<Block<'a>> {
    let mut blocks = Vec::new();
    for p in parts.as_array().into_iter().flatten() {
        if let Some(t) = p["text"].as_str() {
            match p["thought"] == true {
                true => blocks.push(Block::Thinking(owned(t))),
                false if t.is_empty() => {}
                false => blocks.push(Block::Text(owned(t))),
            }
        } else if p["functionCall"].is_object() {
            let f = &p["functionCall"];
            blocks.push(Block::ToolUse(Box::new(call(
                f["id"].as_str().unwrap_or(""),
                f["name"].as_str().unwrap_or(""),
                &f["args"],
            ))));
        }
    }
    blocks
}

/// A call: its typed input for the tools Qwen Code ships.
fn call<'a>(id: &str, name: &str, args: &Value) -> ToolCall<'a> {
    let s = |k: &str| owned(args[k].as_str().unwrap_or(""));
    let num = |k: &str| args.get(k).filter(|v| !v.is_null()).map(Value::to_string);
    let input = match name {
        "run_shell_command" => {
            ToolInput::Shell { command: s("command"), description: s("description"), shell: Shell::Bash }
        }
        "write_file" => ToolInput::Write { file_path: s("file_path"), content: s("content") },
        "edit" | "replace" => ToolInput::Edit { file_path: s("file_path"), old: s("old_string"), new: s("new_string") },
        "read_file" => {
            let path = args["file_path"].as_str().or_else(|| args["absolute_path"].as_str()).unwrap_or("");
            ToolInput::Read { file_path: owned(path), offset: num("offset"), limit: num("limit") }
        }
        "glob" => ToolInput::Glob { pattern: s("pattern"), path: s("path") },
        "grep_search" | "search_file_content" => ToolInput::Grep {
            pattern: s("pattern"),
            path: s("path"),
            glob: owned(args["glob"].as_str().or_else(|| args["include"].as_str()).unwrap_or("")),
            file_type: Cow::Borrowed(""),
        },
        "web_fetch" => ToolInput::WebFetch { url: s("url"), prompt: s("prompt") },
        "web_search" => ToolInput::WebSearch {
            query: s("query"),
            allowed_domains: Default::default(),
            blocked_domains: Default::default(),
        },
        "agent" | "task" => ToolInput::Agent {
            description: s("description"),
            subagent_type: owned(args["subagent_type"].as_str().unwrap_or("general-purpose")),
            prompt: s("prompt"),
        },
        "todo_write" => ToolInput::TodoWrite {
            todos: args["todos"].as_array().map(|t| {
                t.iter()
                    .map(|x| crate::model::Todo {
                        status: owned(x["status"].as_str().unwrap_or("pending")),
                        content: owned(x["content"].as_str().or_else(|| x["description"].as_str()).unwrap_or("")),
                    })
                    .collect()
            }),
        },
        _ => match name.strip_prefix("mcp__").and_then(|n| n.split_once("__")) {
            Some((server, tool)) if !server.is_empty() && !tool.is_empty() => {
                ToolInput::Mcp { server: owned(server), tool: owned(tool) }
            }
            _ => ToolInput::Other,
        },
    };
    let raw = Raw::of(args.clone());
    let key_fields = raw.key_fields();
    ToolCall { id: owned(id), name: owned(name), input, raw, key_fields }
}

/// The `functionResponse` parts of a `tool_result` record, as results.
fn responses<'a>(parts: &Value, failed: bool) -> Vec<ToolOutput<'a>> {
    parts
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| {
            let f = p.get("functionResponse")?;
            let r = &f["response"];
            let (text, is_error) = match (r.get("output"), r.get("error")) {
                (_, Some(err)) if !err.is_null() => {
                    (err.as_str().map_or_else(|| err.to_string(), str::to_string), true)
                }
                (Some(o), _) => (o.as_str().map_or_else(|| o.to_string(), str::to_string), failed),
                _ => (r.to_string(), failed),
            };
            Some(ToolOutput {
                use_id: owned(f["id"].as_str().unwrap_or("")),
                is_error,
                text: Cow::Owned(text),
                ..ToolOutput::default()
            })
        })
        .collect()
}

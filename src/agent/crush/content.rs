//! What a Crush line says, in the model ([`node_of`]): a prompt with its
//! attachments, a step's reasoning, text and tool calls, a `tool` message's
//! results, a compaction and its summary, a `!` shell command.

use std::borrow::Cow;

use serde_json::Value;

use super::header::{of_type, parts, text_of};
use crate::model::{Block, Body, Compaction, Content, Image, Node, Note, Raw, Shell, Str, Todo};
use crate::model::{ToolCall, ToolInput, ToolOutput};

fn owned<'a>(s: &str) -> Str<'a> {
    Cow::Owned(s.to_string())
}

fn just<'a>(content: Content<'a>) -> Node<'a> {
    Node { content, results: Vec::new() }
}

/// What the line `v` says.
pub(super) fn node_of<'a>(v: &Value) -> Node<'a> {
    match v["type"].as_str() {
        Some("message") => message(v),
        Some("compaction") => {
            just(Content::Compaction(Compaction { trigger: owned("summary"), ..Compaction::default() }))
        }
        other => just(Content::Other { data_kind: other.map(owned), raw: Raw::of(v.clone()) }),
    }
}

fn message<'a>(v: &Value) -> Node<'a> {
    match v["role"].as_str() {
        Some("user") => just(user(v)),
        Some("assistant") if v["summary"].as_bool() == Some(true) => {
            just(Content::CompactSummary(Cow::Owned(text_of(v))))
        }
        Some("assistant") => assistant(v),
        Some("tool") => {
            let results: Vec<Block<'a>> =
                of_type(v, "tool_result").map(|d| Block::ToolResult(Box::new(result(d)))).collect();
            just(Content::ToolResults(results))
        }
        _ => just(Content::Other { data_kind: v["role"].as_str().map(owned), raw: Raw::of(v.clone()) }),
    }
}

fn user<'a>(v: &Value) -> Content<'a> {
    if let Some(d) = of_type(v, "shell_command").next() {
        return Content::Shell(owned(d["command"].as_str().unwrap_or("")));
    }
    let mut blocks = Vec::new();
    for p in parts(v) {
        let d = &p["data"];
        match p["type"].as_str().unwrap_or("") {
            "text" => blocks.push(Block::Text(owned(d["text"].as_str().unwrap_or("")))),
            "image_url" => blocks.push(Block::Image(Image::Url(owned(d["url"].as_str().unwrap_or(""))))),
            "binary" => {
                let mime = d["MIMEType"].as_str().unwrap_or("");
                let data = d["Data"].as_str().unwrap_or("");
                if mime.starts_with("image/") && !data.is_empty() {
                    blocks.push(Block::Image(Image::Data { media_type: owned(mime), data: owned(data) }));
                } else {
                    blocks.push(Block::Document { title: d["Path"].as_str().filter(|t| !t.is_empty()).map(owned) });
                }
            }
            _ => {}
        }
    }
    if blocks.is_empty() { Content::Prompt(Body::Missing) } else { Content::Prompt(Body::Blocks(blocks)) }
}

fn assistant<'a>(v: &Value) -> Node<'a> {
    let mut blocks = Vec::new();
    for p in parts(v) {
        let d = &p["data"];
        match p["type"].as_str().unwrap_or("") {
            "reasoning" => blocks.push(Block::Thinking(owned(d["thinking"].as_str().unwrap_or("")))),
            "text" => blocks.push(Block::Text(owned(d["text"].as_str().unwrap_or("")))),
            "image_url" => blocks.push(Block::Image(Image::Url(owned(d["url"].as_str().unwrap_or(""))))),
            "tool_call" => blocks.push(Block::ToolUse(Box::new(call(d)))),
            _ => {}
        }
    }
    if blocks.is_empty() {
        if let Some(f) = of_type(v, "finish").last().filter(|f| f["reason"] == "error" || f["message"].is_string()) {
            let text = f["message"].as_str().or_else(|| f["details"].as_str()).unwrap_or("error");
            let note = Note { kind: owned("error"), text: owned(text), is_error: true, raw: Raw::of(f.clone()) };
            return just(Content::Note(note));
        }
    }
    just(Content::Reply(blocks))
}

/// A `tool_call` part: its typed input (a JSON text) for Crush's own tools.
fn call<'a>(d: &Value) -> ToolCall<'a> {
    let id = d["id"].as_str().unwrap_or("");
    let name = d["name"].as_str().unwrap_or("");
    let args = d["input"].as_str().and_then(|t| crate::json::parse(t).ok()).unwrap_or_else(|| d["input"].clone());
    let s = |k: &str| owned(args[k].as_str().unwrap_or(""));
    let num = |k: &str| args.get(k).filter(|v| !v.is_null()).map(Value::to_string);
    let input = match name {
        "bash" => ToolInput::Shell { command: s("command"), description: s("description"), shell: Shell::Bash },
        "edit" => ToolInput::Edit { file_path: s("file_path"), old: s("old_string"), new: s("new_string") },
        "multiedit" => ToolInput::MultiEdit {
            file_path: s("file_path"),
            edits: args["edits"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|e| (owned(e["old_string"].as_str().unwrap_or("")), owned(e["new_string"].as_str().unwrap_or(""))))
                .collect(),
        },
        "write" => ToolInput::Write { file_path: s("file_path"), content: s("content") },
        "view" => ToolInput::Read { file_path: s("file_path"), offset: num("offset"), limit: num("limit") },
        "glob" => ToolInput::Glob { pattern: s("pattern"), path: s("path") },
        "grep" => {
            ToolInput::Grep { pattern: s("pattern"), path: s("path"), glob: s("include"), file_type: Cow::Borrowed("") }
        }
        "ls" => ToolInput::Glob { pattern: Cow::Borrowed("*"), path: s("path") },
        "fetch" | "download" => ToolInput::WebFetch { url: s("url"), prompt: s("format") },
        "agentic_fetch" => ToolInput::WebFetch { url: s("url"), prompt: s("prompt") },
        "agent" => {
            ToolInput::Agent { description: Cow::Borrowed(""), subagent_type: owned("agent"), prompt: s("prompt") }
        }
        "todos" => ToolInput::TodoWrite { todos: todos(&args["todos"]) },
        // Any other (an MCP server's, a diagnostics or sourcegraph call): shown by its input.
        _ => ToolInput::Other,
    };
    let raw = Raw::of(args);
    let key_fields = raw.key_fields();
    ToolCall { id: owned(id), name: owned(name), input, raw, key_fields }
}

fn todos<'a>(v: &Value) -> Option<Vec<Todo<'a>>> {
    let list = v.as_array()?;
    Some(
        list.iter()
            .map(|t| Todo {
                status: owned(t["status"].as_str().unwrap_or("pending")),
                content: owned(t["content"].as_str().unwrap_or("")),
            })
            .collect(),
    )
}

/// A `tool_result` part: its text, or the image it carries.
fn result<'a>(d: &Value) -> ToolOutput<'a> {
    let mime = d["mime_type"].as_str().unwrap_or("");
    let data = d["data"].as_str().unwrap_or("");
    let images = match mime.starts_with("image/") && !data.is_empty() {
        true => vec![Image::Data { media_type: owned(mime), data: owned(data) }],
        false => Vec::new(),
    };
    ToolOutput {
        use_id: owned(d["tool_call_id"].as_str().unwrap_or("")),
        is_error: d["is_error"].as_bool() == Some(true),
        text: owned(d["content"].as_str().unwrap_or("")),
        images,
        ..ToolOutput::default()
    }
}

//! What an OpenCode line says, in the model ([`node_of`]): a prompt and
//! what it attached, a step's reasoning, text and tool calls with their
//! results (a `tool` part holds both), a compaction and its summary, an
//! error the step ended with.

use std::borrow::Cow;

use serde_json::Value;

use super::header::{parts, text_of};
use crate::model::{Block, Body, Compaction, Content, Image, Injected, Node, Note, Raw, Shell, Str, Todo};
use crate::model::{ToolCall, ToolInput, ToolOutput};

fn owned<'a>(s: &str) -> Str<'a> {
    Cow::Owned(s.to_string())
}

/// What the line `v` says.
pub(super) fn node_of<'a>(v: &Value) -> Node<'a> {
    match v["type"].as_str() {
        Some("message") => message(v),
        other => Node {
            content: Content::Other { data_kind: other.map(owned), raw: Raw::of(v.clone()) },
            results: Vec::new(),
        },
    }
}

fn message<'a>(v: &Value) -> Node<'a> {
    let info = &v["info"];
    match info["role"].as_str() {
        Some("user") => Node { content: user(v), results: Vec::new() },
        Some("assistant") if info["summary"].as_bool() == Some(true) => {
            Node { content: Content::CompactSummary(Cow::Owned(text_of(v).0)), results: Vec::new() }
        }
        Some("assistant") => assistant(v),
        _ => Node { content: Content::Other { data_kind: None, raw: Raw::of(v.clone()) }, results: Vec::new() },
    }
}

fn user<'a>(v: &Value) -> Content<'a> {
    if let Some(c) = parts(v).find(|p| p["type"] == "compaction") {
        let trigger = if c["auto"].as_bool() == Some(true) { "auto" } else { "manual" };
        return Content::Compaction(Compaction { trigger: owned(trigger), ..Compaction::default() });
    }
    let (text, synthetic) = text_of(v);
    if synthetic && !text.is_empty() {
        return Content::Injected { kind: Injected::Meta, text: Cow::Owned(text) };
    }
    let mut blocks = Vec::new();
    if !text.is_empty() {
        blocks.push(Block::Text(Cow::Owned(text)));
    }
    for p in parts(v) {
        match p["type"].as_str().unwrap_or("") {
            "file" => blocks.push(file(p)),
            "subtask" => blocks.push(Block::Context {
                label: "sub-task",
                name: p["agent"].as_str().map(owned),
                text: owned(p["prompt"].as_str().unwrap_or("")),
            }),
            "agent" => blocks.push(Block::Context {
                label: "agent",
                name: p["name"].as_str().map(owned),
                text: Cow::Borrowed(""),
            }),
            _ => {}
        }
    }
    if blocks.is_empty() { Content::Prompt(Body::Missing) } else { Content::Prompt(Body::Blocks(blocks)) }
}

/// An attached file: an image from its `data:` URL, else a document by name.
fn file<'a>(p: &Value) -> Block<'a> {
    let mime = p["mime"].as_str().unwrap_or("");
    let url = p["url"].as_str().unwrap_or("");
    if mime.starts_with("image/") {
        if let Some((media, data)) = url.strip_prefix("data:").and_then(|r| r.split_once(";base64,")) {
            return Block::Image(Image::Data { media_type: owned(media), data: owned(data) });
        }
        return Block::Image(Image::Url(owned(url)));
    }
    Block::Document { title: p["filename"].as_str().or(Some(url)).filter(|t| !t.is_empty()).map(owned) }
}

fn assistant<'a>(v: &Value) -> Node<'a> {
    let mut blocks = Vec::new();
    let mut results = Vec::new();
    for p in parts(v) {
        match p["type"].as_str().unwrap_or("") {
            "reasoning" => blocks.push(Block::Thinking(owned(p["text"].as_str().unwrap_or("")))),
            "text" if !p["synthetic"].as_bool().unwrap_or(false) => {
                blocks.push(Block::Text(owned(p["text"].as_str().unwrap_or(""))));
            }
            "file" => blocks.push(file(p)),
            "tool" => {
                blocks.push(Block::ToolUse(Box::new(call(p))));
                if let Some(r) = result(p) {
                    results.push(r);
                }
            }
            _ => {}
        }
    }
    let info = &v["info"];
    if blocks.is_empty() && info["error"].is_object() {
        let e = &info["error"];
        let text = e["data"]["message"].as_str().or_else(|| e["name"].as_str()).unwrap_or("error");
        let note = Note { kind: owned("error"), text: owned(text), is_error: true, raw: Raw::of(e.clone()) };
        return Node { content: Content::Note(note), results };
    }
    Node { content: Content::Reply(blocks), results }
}

/// A `tool` part's call: its typed input for the tools OpenCode ships.
fn call<'a>(p: &Value) -> ToolCall<'a> {
    let id = p["callID"].as_str().unwrap_or("");
    let name = p["tool"].as_str().unwrap_or("");
    let args = &p["state"]["input"];
    let s = |k: &str| owned(args[k].as_str().unwrap_or(""));
    let num = |k: &str| args.get(k).filter(|v| !v.is_null()).map(Value::to_string);
    let input = match name {
        "bash" => ToolInput::Shell { command: s("command"), description: s("description"), shell: Shell::Bash },
        "edit" => ToolInput::Edit { file_path: s("filePath"), old: s("oldString"), new: s("newString") },
        "multiedit" => ToolInput::MultiEdit {
            file_path: s("filePath"),
            edits: args["edits"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|e| (owned(e["oldString"].as_str().unwrap_or("")), owned(e["newString"].as_str().unwrap_or(""))))
                .collect(),
        },
        "write" => ToolInput::Write { file_path: s("filePath"), content: s("content") },
        "read" => ToolInput::Read { file_path: s("filePath"), offset: num("offset"), limit: num("limit") },
        "glob" => ToolInput::Glob { pattern: s("pattern"), path: s("path") },
        "grep" => {
            ToolInput::Grep { pattern: s("pattern"), path: s("path"), glob: s("include"), file_type: Cow::Borrowed("") }
        }
        "list" => ToolInput::Glob { pattern: Cow::Borrowed("*"), path: s("path") },
        "webfetch" => ToolInput::WebFetch { url: s("url"), prompt: s("format") },
        "websearch" => ToolInput::WebSearch {
            query: s("query"),
            allowed_domains: Default::default(),
            blocked_domains: Default::default(),
        },
        "task" => {
            ToolInput::Agent { description: s("description"), subagent_type: s("subagent_type"), prompt: s("prompt") }
        }
        "todowrite" => ToolInput::TodoWrite { todos: todos(&args["todos"]) },
        "skill" => ToolInput::Skill { skill: s("name"), args: Cow::Borrowed("") },
        "apply_patch" => crate::agent::codex::patch_input(args["patchText"].as_str().unwrap_or("")),
        // Any other (an MCP server's tool is `<server>_<tool>`, not told
        // apart from a tool of the client's): shown by its input.
        _ => ToolInput::Other,
    };
    let raw = Raw::of(args.clone());
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

/// A `tool` part's result, once it completed or failed.
fn result<'a>(p: &Value) -> Option<ToolOutput<'a>> {
    let st = &p["state"];
    let (text, is_error) = match st["status"].as_str()? {
        "completed" => (st["output"].as_str().map_or_else(|| st["output"].to_string(), str::to_string), false),
        "error" => (st["error"].as_str().map_or_else(|| st["error"].to_string(), str::to_string), true),
        _ => return None,
    };
    let images = st["attachments"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| match file(a) {
            Block::Image(i) => Some(i),
            _ => None,
        })
        .collect();
    Some(ToolOutput {
        use_id: owned(p["callID"].as_str().unwrap_or("")),
        is_error,
        text: Cow::Owned(text),
        images,
        ..ToolOutput::default()
    })
}

//! What a Pi entry says ([`node`], transcript-format Appendix E): a
//! message's content blocks (text, thinking, images, `toolCall`s), a tool
//! result, a `!` command, a custom message as the client shows it, a
//! compaction's or a branch summary's text, a model or thinking change.
//! Tool ids are the header's (scoped by the link), so calls and results
//! pair as the graph paired them.

use std::borrow::Cow;

use serde_json::Value;

use super::header::{BRANCH_SUMMARY, CUSTOM_MESSAGE, MODEL_CHANGE, THINKING_CHANGE};
use crate::model::{Block, Body, Content, Entry, Image, Injected, Kind, Node, Note, Raw, Read, Shell, Str, UserKind};
use crate::model::{ToolCall, ToolInput, ToolOutput};
use crate::texts::LineError;

fn owned<'a>(s: &str) -> Str<'a> {
    Cow::Owned(s.to_string())
}

pub(super) fn node<'a>(r: Read<'a>) -> (Node<'a>, Option<LineError>) {
    let (json, err) = match r.lines.json(r.entry) {
        Ok(v) => (v, None),
        Err(err) => (Value::Null, Some(err)),
    };
    (Node { content: content(r.entry, &json), results: Vec::new() }, err)
}

fn content<'a>(e: &Entry, v: &Value) -> Content<'a> {
    let m = &v["message"];
    let sub = e.subtype.as_deref().unwrap_or("");
    match (&e.kind, e.user_kind) {
        (Kind::Assistant, _) => Content::Reply(reply(e, &m["content"])),
        (Kind::User, UserKind::ToolResult) => {
            let out = ToolOutput {
                use_id: owned(e.tool_results.first().map_or("", |t| &t.tool_use_id)),
                is_error: m["isError"] == true,
                text: Cow::Owned(super::text_of(&m["content"])),
                images: images(&m["content"]),
                ..ToolOutput::default()
            };
            Content::ToolResults(vec![Block::ToolResult(Box::new(out))])
        }
        (Kind::User, UserKind::Bash) => {
            let out = m["output"].as_str().unwrap_or("");
            let code = m["exitCode"].as_i64().map(|c| format!("\n(exit {c})")).unwrap_or_default();
            let hidden = if m["excludeFromContext"] == true { "\n(not sent to the model)" } else { "" };
            Content::ShellOutput(Cow::Owned(format!("$ {}\n{out}{code}{hidden}", m["command"].as_str().unwrap_or(""))))
        }
        (Kind::User, _) if sub == BRANCH_SUMMARY || m["role"] == "branchSummary" => {
            let s = v["summary"].as_str().or_else(|| m["summary"].as_str()).unwrap_or("");
            Content::Injected { kind: Injected::Context, text: owned(s) }
        }
        (Kind::User, UserKind::Prompt) => Content::Prompt(prompt(&m["content"])),
        (Kind::User, _) if sub == CUSTOM_MESSAGE => {
            let t = super::text_of(&v["content"]);
            let shown = if v["display"] == false { format!("(hidden from the conversation) {t}") } else { t };
            let kind = v["customType"].as_str().unwrap_or("custom");
            Content::Injected { kind: Injected::Meta, text: Cow::Owned(format!("[{kind}] {shown}")) }
        }
        (Kind::User, _) => Content::Injected { kind: Injected::Meta, text: Cow::Owned(super::text_of(&m["content"])) },
        (Kind::System, _) if e.compact_summary => {
            let s = v["summary"].as_str().or_else(|| m["summary"].as_str()).unwrap_or("");
            Content::CompactSummary(owned(s))
        }
        (Kind::System, _) if sub == MODEL_CHANGE || sub == THINKING_CHANGE => {
            let text = match sub {
                MODEL_CHANGE => format!("Model: {}", e.excerpt),
                _ => format!("Thinking level: {}", e.excerpt),
            };
            Content::Note(Note { kind: owned(sub), text: Cow::Owned(text), is_error: false, raw: Raw::of(v.clone()) })
        }
        _ => Content::Other { data_kind: e.subtype.as_deref().map(owned), raw: Raw::of(v.clone()) },
    }
}

fn images<'a>(content: &Value) -> Vec<Image<'a>> {
    content
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == "image")
        .map(|b| Image::Data {
            media_type: owned(b["mimeType"].as_str().unwrap_or("")),
            data: owned(b["data"].as_str().unwrap_or("")),
        })
        .collect()
}

fn prompt<'a>(content: &Value) -> Body<'a> {
    if let Some(s) = content.as_str() {
        return Body::Blocks(vec![Block::Text(owned(s))]);
    }
    let Some(list) = content.as_array() else { return Body::Missing };
    let blocks = list
        .iter()
        .map(|b| match b["type"].as_str() {
            Some("text") => Block::Text(owned(b["text"].as_str().unwrap_or(""))),
            Some("image") => Block::Image(Image::Data {
                media_type: owned(b["mimeType"].as_str().unwrap_or("")),
                data: owned(b["data"].as_str().unwrap_or("")),
            }),
            k => Block::Unknown { kind: owned(k.unwrap_or("")), raw: Raw::of(b.clone()) },
        })
        .collect();
    Body::Blocks(blocks)
}

fn reply<'a>(e: &Entry, content: &Value) -> Vec<Block<'a>> {
    let mut blocks = Vec::new();
    let mut calls = e.tool_uses.iter();
    for b in content.as_array().into_iter().flatten() {
        match b["type"].as_str() {
            Some("text") => {
                let t = b["text"].as_str().unwrap_or("");
                if !t.is_empty() {
                    blocks.push(Block::Text(owned(t)));
                }
            }
            Some("thinking") => blocks.push(Block::Thinking(owned(b["thinking"].as_str().unwrap_or("")))),
            Some("toolCall") => {
                let id = calls.next().map_or_else(|| b["id"].as_str().unwrap_or("").to_string(), |u| u.id.to_string());
                blocks.push(Block::ToolUse(Box::new(call(&id, b["name"].as_str().unwrap_or(""), &b["arguments"]))));
            }
            k => blocks.push(Block::Unknown { kind: owned(k.unwrap_or("")), raw: Raw::of(b.clone()) }),
        }
    }
    blocks
}

/// A call, its input typed for the tools Pi ships (`read`, `bash`, `edit`, `write`).
fn call<'a>(id: &str, name: &str, args: &Value) -> ToolCall<'a> {
    let s = |k: &str| owned(args[k].as_str().unwrap_or(""));
    let num = |k: &str| args.get(k).filter(|v| !v.is_null()).map(Value::to_string);
    let input = match name {
        "bash" => ToolInput::Shell { command: s("command"), description: Cow::Borrowed(""), shell: Shell::Bash },
        "write" => ToolInput::Write { file_path: s("path"), content: s("content") },
        "edit" => ToolInput::Edit {
            file_path: s("path"),
            old: owned(args["oldText"].as_str().or_else(|| args["edits"][0]["oldText"].as_str()).unwrap_or("")),
            new: owned(args["newText"].as_str().or_else(|| args["edits"][0]["newText"].as_str()).unwrap_or("")),
        },
        "read" => ToolInput::Read { file_path: s("path"), offset: num("offset"), limit: num("limit") },
        _ => ToolInput::Other,
    };
    let raw = Raw::of(args.clone());
    let key_fields = raw.key_fields();
    ToolCall { id: owned(id), name: owned(name), input, raw, key_fields }
}

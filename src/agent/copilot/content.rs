//! What a Copilot CLI event says ([`node`]): a prompt's `content`, a reply's
//! `reasoningText`, `content` and `toolRequests` (typed for the tools the
//! client ships), a result's `result.content`, a compaction's summary.

use std::borrow::Cow;

use serde_json::Value;

use crate::model::{Block, Body, Content, Node, Raw, Read, Shell, Str, ToolCall, ToolInput, ToolOutput};
use crate::model::{Kind, UserKind};
use crate::texts::LineError;

fn owned<'a>(s: &str) -> Str<'a> {
    Cow::Owned(s.to_string())
}

pub(super) fn node<'a>(r: Read<'a>) -> (Node<'a>, Option<LineError>) {
    let e = r.entry;
    let (json, err) = match r.lines.json(e) {
        Ok(v) => (v, None),
        Err(err) => (Value::Null, Some(err)),
    };
    let d = &json["data"];
    let content = match (&e.kind, e.user_kind) {
        (Kind::Assistant, _) => Content::Reply(reply(d)),
        (Kind::User, UserKind::ToolResult) => {
            let text = d["result"]["content"].as_str().or_else(|| d["error"]["message"].as_str()).unwrap_or("");
            Content::ToolResults(vec![Block::ToolResult(Box::new(ToolOutput {
                use_id: owned(d["toolCallId"].as_str().unwrap_or("")),
                is_error: d["success"] == false,
                text: owned(text),
                ..ToolOutput::default()
            }))])
        }
        (Kind::User, _) => Content::Prompt(Body::Blocks(vec![Block::Text(owned(d["content"].as_str().unwrap_or("")))])),
        (Kind::System, _) if e.compact_summary => {
            Content::CompactSummary(owned(d["summaryContent"].as_str().unwrap_or("")))
        }
        _ => Content::Other { data_kind: e.subtype.as_deref().map(owned), raw: Raw::of(json.clone()) },
    };
    (Node { content, results: Vec::new() }, err)
}

fn reply<'a>(d: &Value) -> Vec<Block<'a>> {
    let mut blocks = Vec::new();
    if let Some(t) = d["reasoningText"].as_str().filter(|t| !t.trim().is_empty()) {
        blocks.push(Block::Thinking(owned(t)));
    }
    if let Some(t) = d["content"].as_str().filter(|t| !t.is_empty()) {
        blocks.push(Block::Text(owned(t)));
    }
    for r in d["toolRequests"].as_array().into_iter().flatten() {
        blocks.push(Block::ToolUse(Box::new(call(
            r["toolCallId"].as_str().unwrap_or(""),
            r["name"].as_str().unwrap_or(""),
            &r["arguments"],
        ))));
    }
    blocks
}

fn call<'a>(id: &str, name: &str, args: &Value) -> ToolCall<'a> {
    let s = |k: &str| owned(args[k].as_str().unwrap_or(""));
    let input = match name {
        "bash" => ToolInput::Shell { command: s("command"), description: s("description"), shell: Shell::Bash },
        "create" => ToolInput::Write { file_path: s("path"), content: s("file_text") },
        "edit" => ToolInput::Edit { file_path: s("path"), old: s("old_str"), new: s("new_str") },
        "view" => ToolInput::Read { file_path: s("path"), offset: None, limit: None },
        "glob" => ToolInput::Glob { pattern: s("pattern"), path: s("path") },
        "grep" => {
            ToolInput::Grep { pattern: s("pattern"), path: s("path"), glob: s("glob"), file_type: Cow::Borrowed("") }
        }
        "task" => ToolInput::Agent {
            description: s("description"),
            subagent_type: owned(args["agent_type"].as_str().unwrap_or("task")),
            prompt: s("prompt"),
        },
        _ => ToolInput::Other,
    };
    let raw = Raw::of(args.clone());
    let key_fields = raw.key_fields();
    ToolCall { id: owned(id), name: owned(name), input, raw, key_fields }
}

//! Claude Code's lines → [`Content`]: which parts of a line each kind of
//! entry shows, read in one pass ([`crate::json::pick`]), and how its JSON
//! and the tags inside its text (transcript-format §4) become the model.

use std::borrow::Cow;

use serde_json::Value;

use super::prompt;
use crate::json::pick::Want;
use crate::model::{Attachment, Block, Body, Compaction, Content, Hook, Injected, Node, Note, Raw, Str, ToolOutput};
use crate::model::{Entry, Kind, UserKind};

use super::calls::call_of;
use super::prompt::tag_text;
use super::results::{Tool, detail_of, result_of};
use super::values::{SideFiles, at, image_of, str_at, strip_tags, take, take_str};

/// What a line of `e` is read for: the blocks of a message (with, for the
/// one result of a call of `tool`, what its view shows of the entry's
/// `toolUseResult` — never the rest, such as the original file of an `Edit`
/// or the file a `Write` repeats), or all of it.
pub(super) fn want(e: &Entry, tool: Option<Tool>) -> Option<&'static Want> {
    macro_rules! want {
        ($($tur:tt)*) => {
            Want::Keys(&[
                ("message", Want::Keys(&[("content", Want::All)])),
                ("toolUseResult", Want::Keys(&[$($tur)*])),
            ])
        };
    }
    const CONTENT: Want = Want::Keys(&[("message", Want::Keys(&[("content", Want::All)]))]);
    const READ: Want = want!(("file", Want::Keys(&[("content", Want::All)])));
    const BASH: Want = want!(("stdout", Want::All), ("stderr", Want::All), ("interrupted", Want::All));
    const EDIT: Want = want!(("structuredPatch", Want::All));
    const TASK: Want = want!(("task", Want::All));
    const PLAN: Want = want!(("plan", Want::All));
    const ANSWERS: Want = want!(("answers", Want::All));
    match e.kind {
        Kind::Assistant => Some(&CONTENT),
        Kind::User => Some(match tool {
            Some(Tool::Read) => &READ,
            Some(Tool::Bash) => &BASH,
            Some(Tool::Edit) => &EDIT,
            Some(Tool::Task) => &TASK,
            Some(Tool::Plan) => &PLAN,
            Some(Tool::Questions) => &ANSWERS,
            None => &CONTENT,
        }),
        _ => None,
    }
}

/// The node of entry `e` from what [`want`] read of its line (`Null`
/// when it could not be read); `tool` is the tool its one result answers.
pub(super) fn node_of<'a>(e: &Entry, json: Value, tool: Option<Tool>, side: SideFiles<'_>) -> Node<'a> {
    match e.kind {
        Kind::User => user(e, json, tool, side),
        _ => Node { content: content_of(e, json, side), results: Vec::new() },
    }
}

fn content_of<'a>(e: &Entry, mut json: Value, side: SideFiles<'_>) -> Content<'a> {
    match e.kind {
        Kind::Assistant => {
            Content::Reply(match take(&mut json, &["message", "content"]) {
                Value::Array(blocks) => blocks.into_iter().map(|b| reply_block(b, side)).collect(),
                // A reply given as a string is one text block.
                Value::String(s) => vec![Block::Text(Cow::Owned(s))],
                _ => Vec::new(),
            })
        }
        // Read by `node_of`.
        Kind::User => Content::Other { data_kind: None, raw: Raw::of(json) },
        Kind::System => system(e, json),
        Kind::Attachment => attachment(json),
        Kind::KnownMeta(ref t) if &**t == "queue-operation" => {
            Content::Queued(own(str_at(&json, &["content"]).unwrap_or("")))
        }
        _ => Content::Other { data_kind: str_at(&json, &["data", "type"]).map(own), raw: Raw::of(json) },
    }
}

fn own<'a>(s: &str) -> Str<'a> {
    Cow::Owned(s.to_string())
}

fn reply_block<'a>(mut b: Value, side: SideFiles<'_>) -> Block<'a> {
    if let Value::String(s) = b {
        return Block::Text(Cow::Owned(s));
    }
    match str_at(&b, &["type"]).unwrap_or("") {
        "text" => Block::Text(take_str(b.get_mut("text"))),
        "thinking" => Block::Thinking(take_str(b.get_mut("thinking"))),
        "redacted_thinking" => Block::RedactedThinking,
        "tool_use" => Block::ToolUse(Box::new(call_of(b))),
        "tool_result" => Block::ToolResult(Box::new(result_of(b, side))),
        "image" => Block::Image(image_of(b.get_mut("source").map(Value::take))),
        other => Block::Unknown { kind: own(other), raw: Raw::of(b) },
    }
}

/// The text of a `content`: a string, or the `text` of its blocks joined by newlines.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => {
            blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
        }
        _ => String::new(),
    }
}

/// A slash command from its `<command-name>` and `<command-args>` tags.
fn command<'a>(text: &str) -> Content<'a> {
    let name = tag_text(text, "command-name").unwrap_or("").trim();
    let args = tag_text(text, "command-args").unwrap_or("").trim();
    Content::Command { name: own(name), args: own(args) }
}

/// What a slash command printed, without its tags.
fn command_output<'a>(text: &str) -> Content<'a> {
    Content::CommandOutput(Cow::Owned(strip_tags(text, &["local-command-stdout", "local-command-stderr"])))
}

fn user<'a>(e: &Entry, mut json: Value, tool: Option<Tool>, side: SideFiles<'_>) -> Node<'a> {
    let content = take(&mut json, &["message", "content"]);
    let tur = json.get_mut("toolUseResult").map(Value::take);
    // The detail of a call's result: only when the entry holds that one result.
    let mut detail = match (&*e.tool_results, tool) {
        ([one], Some(tool)) => Some((&*one.tool_use_id, tool, tur)),
        _ => None,
    };
    // Results beside what an entry shows as something else (an interruption…).
    let mut results = Vec::new();
    if !matches!(e.user_kind, UserKind::Prompt | UserKind::None | UserKind::ToolResult) {
        if let Value::Array(blocks) = &content {
            let held = blocks.iter().filter(|b| b.get("tool_use_id").and_then(Value::as_str).is_some());
            results = held.map(|b| result_of(b.clone(), side)).collect::<Vec<ToolOutput<'a>>>();
        }
        if let Some((id, tool, tur)) = detail.take() {
            if let Some(r) = results.iter_mut().find(|r| r.use_id == id) {
                r.detail = detail_of(tool, tur, side);
            }
        }
    }
    let content = user_content(e, &mut json, content, detail, side);
    Node { content, results }
}

/// A tool's one result and what `toolUseResult` holds of it.
type Detail<'d> = Option<(&'d str, Tool, Option<Value>)>;

fn user_content<'a>(
    e: &Entry,
    json: &mut Value,
    mut content: Value,
    detail: Detail<'_>,
    side: SideFiles<'_>,
) -> Content<'a> {
    let text = || text_of(&content);
    match e.user_kind {
        UserKind::Prompt | UserKind::None => {
            let mut blocks = match content.take() {
                Value::String(s) => Body::Blocks(prompt_text(&s)),
                Value::Array(blocks) => Body::Blocks(blocks.into_iter().flat_map(|b| prompt_block(b, side)).collect()),
                Value::Null if !has_content(json) => Body::Missing,
                other => Body::Odd(Raw::of(other)),
            };
            if let (Body::Blocks(b), Some((id, tool, tur))) = (&mut blocks, detail) {
                let found = b.iter_mut().find_map(|b| match b {
                    Block::ToolResult(r) if r.use_id == id => Some(r),
                    _ => None,
                });
                if let Some(r) = found {
                    r.detail = detail_of(tool, tur, side);
                }
            }
            Content::Prompt(blocks)
        }
        UserKind::Command => command(&text()),
        UserKind::CommandOutput => command_output(&text()),
        UserKind::Bash => {
            let text = text();
            Content::Shell(own(tag_text(&text, "bash-input").unwrap_or(&text)))
        }
        UserKind::BashOutput => {
            let text = text();
            let out = tag_text(&text, "bash-stdout").unwrap_or("");
            let err = tag_text(&text, "bash-stderr").unwrap_or("");
            Content::ShellOutput(Cow::Owned(format!("{out}{err}")))
        }
        UserKind::Interrupt => Content::Interrupt(own(text().trim())),
        UserKind::CompactSummary => Content::CompactSummary(Cow::Owned(text())),
        UserKind::ToolResult => {
            let mut blocks: Vec<Block<'a>> = match content {
                Value::Array(blocks) => blocks.into_iter().map(|b| reply_block(b, side)).collect(),
                _ => Vec::new(),
            };
            if let Some((id, tool, tur)) = detail {
                let found = blocks.iter_mut().find_map(|b| match b {
                    Block::ToolResult(r) if r.use_id == id => Some(r),
                    _ => None,
                });
                if let Some(r) = found {
                    r.detail = detail_of(tool, tur, side);
                }
            }
            Content::ToolResults(blocks)
        }
        UserKind::Meta => Content::Injected { kind: Injected::Meta, text: Cow::Owned(text()) },
        UserKind::Notification => Content::Injected { kind: Injected::Notification, text: Cow::Owned(text()) },
        UserKind::OtherMarker => Content::Injected { kind: Injected::Context, text: Cow::Owned(text()) },
    }
}

/// Whether what was read of a user line had a `message.content` (a `null`
/// one is odd content; no content at all is missing).
fn has_content(json: &Value) -> bool {
    json.get("message").is_some_and(|m| m.get("content").is_some())
}

/// A prompt's text: what was typed, and the context the IDE attached in tags.
fn prompt_text<'a>(text: &str) -> Vec<Block<'a>> {
    prompt::prompt_parts(text)
        .into_iter()
        .map(|part| match part {
            prompt::PromptPart::Typed(t) => Block::Text(own(t)),
            prompt::PromptPart::Ide { label, name, text } => {
                Block::Context { label, name: name.map(own), text: own(text) }
            }
        })
        .collect()
}

/// A block of a prompt (text split into what was typed and IDE context).
fn prompt_block<'a>(mut b: Value, side: SideFiles<'_>) -> Vec<Block<'a>> {
    match str_at(&b, &["type"]).unwrap_or("") {
        "text" => prompt_text(str_at(&b, &["text"]).unwrap_or("")),
        "image" => vec![Block::Image(image_of(b.get_mut("source").map(Value::take)))],
        "tool_result" => vec![Block::ToolResult(Box::new(result_of(b, side)))],
        "document" => vec![Block::Document { title: str_at(&b, &["title"]).map(own) }],
        other => {
            let kind = own(other);
            vec![Block::Unknown { kind, raw: Raw::of(b) }]
        }
    }
}

fn system<'a>(e: &Entry, mut json: Value) -> Content<'a> {
    let content = str_at(&json, &["content"]).unwrap_or("");
    match e.subtype.as_deref().unwrap_or("") {
        sub @ ("compact_boundary" | "microcompact_boundary") => {
            let micro = sub == "microcompact_boundary";
            let meta = if micro { "microcompactMetadata" } else { "compactMetadata" };
            let tokens = |k: &str| at(&json, &[meta, k]).and_then(Value::as_u64);
            Content::Compaction(Compaction {
                micro,
                trigger: own(str_at(&json, &[meta, "trigger"]).unwrap_or("")),
                pre_tokens: tokens("preTokens"),
                saved: if micro { tokens("tokensSaved") } else { None },
            })
        }
        "local_command" => match tag_text(content, "command-name") {
            Some(_) => command(content),
            None => command_output(content),
        },
        "turn_duration" => Content::TurnDuration { ms: json.get("durationMs").and_then(Value::as_f64).unwrap_or(0.0) },
        sub => {
            let kind = own(sub);
            let text = own(content);
            let is_error = str_at(&json, &["level"]) == Some("error");
            Content::Note(Note { kind, text, is_error, raw: Raw::of(std::mem::take(&mut json)) })
        }
    }
}

fn attachment<'a>(mut json: Value) -> Content<'a> {
    let a = json.get("attachment");
    let ty = a.and_then(|a| str_at(a, &["type"])).unwrap_or("attachment");
    if ty == "queued_command" {
        return Content::Queued(own(a.and_then(|a| str_at(a, &["prompt"])).unwrap_or("")));
    }
    let hook = a.filter(|_| ty.starts_with("hook")).map(|a| {
        let s = |k| str_at(a, &[k]).unwrap_or("");
        Hook {
            name: own(s("hookName")),
            command: own(s("command")),
            exit: a.get("exitCode").map(Value::to_string),
            output: format!("{}{}", s("stdout"), s("stderr")),
        }
    });
    let kind = own(ty);
    let raw = match json.get_mut("attachment") {
        Some(a) => a.take(),
        None => json,
    };
    Content::Attachment(Attachment { kind, hook, raw: Raw::of(raw) })
}

#[cfg(test)]
mod tests {
    use super::super::header::parse_entry;
    use super::*;
    use crate::model::FileId;
    use crate::model::Loc;

    fn compaction_of(line: &str) -> Compaction<'static> {
        let e = parse_entry(line, Loc { file: FileId::FIRST, line: 1 }, 0).unwrap();
        let json: Value = serde_json::from_str(line).unwrap();
        match content_of(&e, json, &|_| None) {
            Content::Compaction(c) => c,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn reads_each_kind_of_compaction_boundary() {
        let full = compaction_of(
            r#"{"type":"system","subtype":"compact_boundary","uuid":"b","compactMetadata":{"trigger":"manual","preTokens":25100,"tokensSaved":9}}"#,
        );
        assert!(!full.micro);
        assert_eq!((&*full.trigger, full.pre_tokens, full.saved), ("manual", Some(25100), None));
        let micro = compaction_of(
            r#"{"type":"system","subtype":"microcompact_boundary","uuid":"m","compactMetadata":{"trigger":"manual"},"microcompactMetadata":{"trigger":"auto","preTokens":120000,"tokensSaved":40000}}"#,
        );
        assert!(micro.micro);
        assert_eq!((&*micro.trigger, micro.pre_tokens, micro.saved), ("auto", Some(120000), Some(40000)));
        // Without its metadata: no trigger, no counts.
        let bare = compaction_of(r#"{"type":"system","subtype":"microcompact_boundary","uuid":"m"}"#);
        assert_eq!((bare.micro, &*bare.trigger, bare.pre_tokens, bare.saved), (true, "", None, None));
    }
}

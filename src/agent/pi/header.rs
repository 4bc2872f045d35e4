//! The header of one line of a Pi session file ([`header`],
//! transcript-format Appendix E): the `session` header line, then entries
//! with their own 8-hex `id` and `parentId`. The ids are kept as written
//! here; [`super::link`] scopes them to their file (ids are unique only
//! within one file) and takes the records a reader does not read out of
//! the chain.

use serde_json::Value;

use crate::model::{Entry, Kind, Loc, Meta, ToolResult, ToolUse, Usage, UserKind, excerpt_of, hash_bytes};
use crate::timestamp::parse_timestamp;

/// The kind of the `session` header line.
pub(crate) const SESSION: &str = "pi:session";
/// The kind of entries kept out of the chain (system prompts, labels,
/// names, extensions' state): still lines of the file.
pub(crate) const RECORD: &str = "pi:record";
/// Subtypes of the metadata nodes and of a branch summary.
pub(crate) const MODEL_CHANGE: &str = "model_change";
pub(crate) const THINKING_CHANGE: &str = "thinking_level_change";
pub(crate) const BRANCH_SUMMARY: &str = "branch_summary";
pub(crate) const CUSTOM_MESSAGE: &str = "custom_message";

/// The header of a session-file line.
pub(super) fn header(raw: &str, loc: Loc, offset: u64) -> Result<Entry, serde_json::Error> {
    let v = crate::json::parse(raw)?;
    let ty = v["type"].as_str().unwrap_or("");
    let mut e = Entry::blank(raw, loc, offset, Kind::Unknown(ty.into()));
    e.timestamp = v["timestamp"].as_str().and_then(parse_timestamp);
    e.payload_hash = hash_bytes(raw.as_bytes());
    e.content_hash = e.payload_hash;
    if ty == "session" {
        e.kind = Kind::KnownMeta(SESSION.into());
        e.session_id = str_of(&v["id"]);
        e.cwd = str_of(&v["cwd"]);
        e.version = v["version"].as_u64().map(|n| n.to_string().into());
        e.copied_from = str_of(&v["parentSession"]);
        return Ok(e);
    }
    e.uuid = str_of(&v["id"]);
    e.parent = str_of(&v["parentId"]);
    e.subtype = Some(ty.into());
    match ty {
        "message" => message(&mut e, &v["message"]),
        MODEL_CHANGE => {
            e.kind = Kind::System;
            let m = format!("{}/{}", v["provider"].as_str().unwrap_or(""), v["modelId"].as_str().unwrap_or(""));
            e.excerpt = excerpt_of(&m);
        }
        THINKING_CHANGE => {
            e.kind = Kind::System;
            e.excerpt = excerpt_of(v["thinkingLevel"].as_str().unwrap_or(""));
        }
        "compaction" => {
            e.kind = Kind::System;
            e.compact_summary = true;
            let s = v["summary"].as_str().unwrap_or("");
            e.excerpt = excerpt_of(s);
            e.text_hash = hash_bytes(s.as_bytes());
        }
        BRANCH_SUMMARY => branch_summary(&mut e, v["summary"].as_str().unwrap_or("")),
        CUSTOM_MESSAGE => {
            e.kind = Kind::User;
            e.user_kind = UserKind::Meta;
            e.injected = true;
            let t = super::text_of(&v["content"]);
            e.excerpt = excerpt_of(&t);
            e.text_hash = hash_bytes(t.as_bytes());
        }
        "session_info" => {
            e.kind = Kind::KnownMeta(RECORD.into());
            if let Some(name) = v["name"].as_str().map(str::trim).filter(|n| !n.is_empty()) {
                e.meta = Some(Meta::CustomTitle(name.into()));
            }
        }
        "label" | "custom" | "usage" | "context_edit" => e.kind = Kind::KnownMeta(RECORD.into()),
        _ => {}
    }
    Ok(e)
}

/// A branch summary starts the branch it begins: a future there, as a
/// prompt is, but the client's text, not a prompt (its excerpt left
/// empty, so titles and labels name the prompt typed after it).
fn branch_summary(e: &mut Entry, summary: &str) {
    e.kind = Kind::User;
    e.user_kind = UserKind::Meta;
    e.meta = Some(Meta::BranchSummary);
    e.injected = true;
    e.subtype = Some(BRANCH_SUMMARY.into());
    e.text_hash = hash_bytes(summary.as_bytes());
}

/// A `message` entry, by its role.
fn message(e: &mut Entry, m: &Value) {
    let text = super::text_of(&m["content"]);
    e.excerpt = excerpt_of(&text);
    e.text_hash = hash_bytes(text.as_bytes());
    match m["role"].as_str().unwrap_or("") {
        "user" => {
            e.kind = Kind::User;
            e.user_kind = UserKind::Prompt;
        }
        "assistant" => assistant(e, m),
        "toolResult" => {
            e.kind = Kind::User;
            e.user_kind = UserKind::ToolResult;
            e.tool_results = vec![ToolResult {
                tool_use_id: m["toolCallId"].as_str().unwrap_or("").into(),
                is_error: m["isError"] == true,
            }];
            e.spawned_agent = m["details"]["results"]
                .as_array()
                .into_iter()
                .flatten()
                .find_map(|r| r["sessionFile"].as_str())
                .map(Into::into);
        }
        "bashExecution" => {
            e.kind = Kind::User;
            e.user_kind = UserKind::Bash;
            let c = m["command"].as_str().unwrap_or("");
            e.excerpt = excerpt_of(c);
            e.text_hash = hash_bytes(c.as_bytes());
        }
        "custom" => {
            e.kind = Kind::User;
            e.user_kind = UserKind::Meta;
            e.injected = true;
        }
        "branchSummary" => branch_summary(e, m["summary"].as_str().unwrap_or("")),
        "compactionSummary" => {
            e.kind = Kind::System;
            e.compact_summary = true;
            e.excerpt = excerpt_of(m["summary"].as_str().unwrap_or(""));
        }
        // The system prompt and tool list (and roles not known).
        _ => e.kind = Kind::KnownMeta(RECORD.into()),
    }
}

/// A reply: its model, usage, stop reason and calls.
fn assistant(e: &mut Entry, m: &Value) {
    e.kind = Kind::Assistant;
    e.model = str_of(&m["model"]);
    e.stop_reason = str_of(&m["stopReason"]);
    e.api_error = matches!(m["stopReason"].as_str(), Some("error"));
    let u = &m["usage"];
    if u.is_object() {
        let n = |k: &str| u[k].as_u64().unwrap_or(0);
        e.usage = Some(Usage {
            input: n("input"),
            output: n("output"),
            cache_read: n("cacheRead"),
            cache_creation: n("cacheWrite"),
            ..Usage::default()
        });
    }
    for b in m["content"].as_array().into_iter().flatten() {
        if b["type"] == "toolCall" {
            e.tool_uses.push(ToolUse {
                id: b["id"].as_str().unwrap_or("").into(),
                name: b["name"].as_str().unwrap_or("").into(),
                prompt_hash: None,
            });
        }
    }
    if e.excerpt.is_empty() {
        if let Some(u) = e.tool_uses.first() {
            e.excerpt = u.name.clone();
        }
    }
}

fn str_of(v: &Value) -> Option<Box<str>> {
    v.as_str().filter(|s| !s.is_empty()).map(Into::into)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FileId;

    fn h(line: &str) -> Entry {
        header(line, Loc { file: FileId::FIRST, line: 1 }, 0).unwrap()
    }

    #[test]
    fn a_reply_counts_its_usage_and_calls() {
        let e = h(
            r#"{"type":"message","id":"2719e8a7","parentId":"2c20b7a9","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{}}],"model":"m","usage":{"input":10,"output":5,"cacheRead":3,"cacheWrite":2},"stopReason":"toolUse"}}"#,
        );
        let u = e.usage.unwrap();
        assert_eq!((u.input, u.output, u.cache_read, u.cache_creation), (10, 5, 3, 2));
        assert_eq!(&*e.tool_uses[0].id, "c1");
        assert_eq!(e.uuid.as_deref(), Some("2719e8a7"));
    }

    #[test]
    fn the_session_header_names_its_parent_file() {
        let e = h(r#"{"type":"session","version":3,"id":"s1","cwd":"/w","parentSession":"/a/b.jsonl"}"#);
        assert!(!e.is_node());
        assert_eq!(e.session_id.as_deref(), Some("s1"));
        assert_eq!(e.copied_from.as_deref(), Some("/a/b.jsonl"));
    }
}

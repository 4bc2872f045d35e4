//! The header of one line of Crush's records ([`super::lines`]), before
//! the project's lines are linked ([`super::link`]). Times are the
//! client's seconds, as milliseconds. A session's line keeps, for the link
//! and the checks, its parent session (`agent_id`) and the summary it names
//! (`logical_parent`).

use serde_json::Value;

use crate::model::{Entry, Kind, Loc, Meta, ToolResult, ToolUse, UserKind, excerpt_of, hash_bytes};

/// The kind of a session's line.
pub(crate) const SESSION: &str = "crush:session";

/// The header of a line.
pub(super) fn header(raw: &str, loc: Loc, offset: u64) -> Result<Entry, serde_json::Error> {
    let v = crate::json::parse(raw)?;
    let mut e = Entry::blank(raw, loc, offset, Kind::Unknown(v["type"].as_str().unwrap_or("").into()));
    match v["type"].as_str() {
        Some("session") => session(&mut e, &v["info"]),
        Some("compaction") => {
            e.kind = Kind::System;
            e.subtype = Some("compact_boundary".into());
            e.message_id = str_of(&v["id"]);
            e.session_id = str_of(&v["session_id"]);
            e.timestamp = millis(&v["created_at"]);
            e.excerpt = excerpt_of("compaction");
        }
        Some("message") => message(&mut e, &v),
        _ => {}
    }
    Ok(e)
}

fn str_of(v: &Value) -> Option<Box<str>> {
    v.as_str().filter(|s| !s.is_empty()).map(Into::into)
}

/// The client's seconds as milliseconds.
pub(crate) fn millis(v: &Value) -> Option<i64> {
    v.as_i64().map(|s| s.saturating_mul(1000))
}

fn session(e: &mut Entry, info: &Value) {
    e.kind = Kind::KnownMeta(SESSION.into());
    e.session_id = str_of(&info["id"]);
    e.timestamp = millis(&info["created_at"]);
    e.agent_id = str_of(&info["parent_session_id"]);
    e.logical_parent = str_of(&info["summary_message_id"]);
    if let Some(t) = str_of(&info["title"]) {
        e.excerpt = excerpt_of(&t);
        e.meta = Some(Meta::AiTitle(t));
    }
}

/// The parts of a message line (`{"type","data"}` each).
pub(crate) fn parts(v: &Value) -> impl Iterator<Item = &Value> {
    v["parts"].as_array().into_iter().flatten()
}

/// The parts of type `ty`, their data.
pub(crate) fn of_type<'v>(v: &'v Value, ty: &'static str) -> impl Iterator<Item = &'v Value> {
    parts(v).filter(move |p| p["type"] == ty).map(|p| &p["data"])
}

/// A message's text (its `text` parts).
pub(crate) fn text_of(v: &Value) -> String {
    of_type(v, "text").filter_map(|d| d["text"].as_str()).collect::<Vec<_>>().join("\n")
}

/// How the message's last step ended (its `finish` part).
pub(crate) fn finish(v: &Value) -> Option<&str> {
    of_type(v, "finish").last().and_then(|d| d["reason"].as_str())
}

fn message(e: &mut Entry, v: &Value) {
    e.message_id = str_of(&v["id"]);
    e.session_id = str_of(&v["session_id"]);
    e.timestamp = millis(&v["created_at"]);
    let key = hash_bytes(v["parts"].to_string().as_bytes());
    (e.payload_hash, e.content_hash) = (key, key);
    let text = text_of(v);
    e.excerpt = excerpt_of(&text);
    e.text_hash = hash_bytes(text.as_bytes());
    match v["role"].as_str() {
        Some("user") => {
            e.kind = Kind::User;
            e.user_kind = UserKind::Prompt;
            if text.is_empty() {
                if let Some(cmd) = of_type(v, "shell_command").find_map(|d| d["command"].as_str()) {
                    e.excerpt = excerpt_of(cmd);
                }
            }
        }
        Some("assistant") => {
            e.kind = Kind::Assistant;
            e.model = str_of(&v["model"]);
            e.stop_reason = finish(v).map(Into::into);
            e.compact_summary = v["summary"].as_bool() == Some(true);
            e.api_error = matches!(finish(v), Some("error"));
            for d in of_type(v, "tool_call") {
                let name: Box<str> = d["name"].as_str().unwrap_or("").into();
                let input = d["input"].as_str().and_then(|t| crate::json::parse(t).ok()).unwrap_or(Value::Null);
                let prompt_hash =
                    (&*name == "agent").then(|| input["prompt"].as_str().map(|t| hash_bytes(t.as_bytes()))).flatten();
                e.tool_uses.push(ToolUse { id: d["id"].as_str().unwrap_or("").into(), name, prompt_hash });
            }
            if e.excerpt.is_empty() {
                if let Some(u) = e.tool_uses.first() {
                    e.excerpt = u.name.clone();
                }
            }
        }
        Some("tool") => {
            e.kind = Kind::User;
            e.user_kind = UserKind::ToolResult;
            for d in of_type(v, "tool_result") {
                let id: Box<str> = d["tool_call_id"].as_str().unwrap_or("").into();
                e.tool_results.push(ToolResult { tool_use_id: id, is_error: d["is_error"].as_bool() == Some(true) });
            }
            if let Some(t) = of_type(v, "tool_result").find_map(|d| d["content"].as_str()) {
                e.excerpt = excerpt_of(t);
            }
        }
        other => {
            e.kind = Kind::System;
            e.subtype = other.map(Into::into);
        }
    }
}

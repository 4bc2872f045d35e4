//! The header of one event of a Copilot CLI `events.jsonl` ([`header`]):
//! its `id` and `type`, what a reader reads of it; the session, parents and
//! usage are derived over the file by [`super::link`] (transcript-format,
//! Appendix I).

use serde_json::Value;

use crate::model::{Entry, Kind, Loc, Meta, ToolResult, ToolUse, Usage, UserKind, excerpt_of, hash_bytes};
use crate::timestamp::parse_timestamp;

/// The kind of the events that are no messages (each keeps its `type` as subtype).
pub(crate) const EVENT: &str = "copilot:event";
/// `session.start`: names the session.
pub(crate) const START: &str = "copilot:session.start";
/// `session.usage_record`: the usage of the next reply.
pub(crate) const USAGE: &str = "copilot:usage";
pub(crate) const COMPACTION: &str = "session.compaction_complete";

pub(super) fn header(raw: &str, loc: Loc, offset: u64) -> Result<Entry, serde_json::Error> {
    let v = crate::json::parse(raw)?;
    let ty = v["type"].as_str().unwrap_or("");
    let d = &v["data"];
    let mut e = Entry::blank(raw, loc, offset, Kind::KnownMeta(EVENT.into()));
    e.subtype = Some(ty.into());
    e.timestamp = v["timestamp"].as_str().and_then(parse_timestamp);
    e.agent_id = str_of(&v["agentId"]);
    e.sidechain = e.agent_id.is_some();
    let id = str_of(&v["id"]);
    let payload = serde_json::to_string(d).unwrap_or_default();
    e.payload_hash = hash_bytes(payload.as_bytes()) ^ hash_bytes(ty.as_bytes()).rotate_left(1);
    e.content_hash = e.payload_hash;
    match ty {
        "session.start" => {
            e.kind = Kind::KnownMeta(START.into());
            e.session_id = str_of(&d["sessionId"]);
            e.cwd = str_of(&d["context"]["cwd"]);
            e.version = str_of(&d["copilotVersion"]);
        }
        "user.message" => {
            e.kind = Kind::User;
            e.user_kind = UserKind::Prompt;
            e.uuid = id;
            text_of(&mut e, d["content"].as_str().unwrap_or(""));
            e.content_hash = seen(&e, ty);
        }
        "assistant.message" => assistant(&mut e, d, id),
        "tool.execution_complete" => {
            e.kind = Kind::User;
            e.user_kind = UserKind::ToolResult;
            e.uuid = id;
            e.tool_results = str_of(&d["toolCallId"])
                .map(|c| ToolResult { tool_use_id: c, is_error: d["success"] == false })
                .into_iter()
                .collect();
            text_of(&mut e, d["result"]["content"].as_str().unwrap_or(""));
            e.content_hash = seen(&e, ty) ^ u64::from(d["success"] == false);
        }
        COMPACTION if d["success"] != false => {
            e.kind = Kind::System;
            e.uuid = id;
            e.compact_summary = true;
            text_of(&mut e, d["summaryContent"].as_str().unwrap_or(""));
            // A `/fork` copy names its own checkpoint file: what a reader sees is the summary.
            e.content_hash = e.text_hash;
        }
        "session.usage_record" => {
            e.kind = Kind::KnownMeta(USAGE.into());
            let u = &d["usage"];
            let n = |k: &str| u[k].as_u64().unwrap_or(0);
            let cached = n("cacheReadTokens").min(n("inputTokens"));
            e.usage = Some(Usage {
                input: n("inputTokens") - cached,
                output: n("outputTokens"),
                cache_read: cached,
                cache_creation: n("cacheWriteTokens"),
                ..Usage::default()
            });
            e.model = str_of(&u["model"]);
        }
        "subagent.started" => {
            if let Some(call) = str_of(&d["toolCallId"]) {
                e.meta = Some(Meta::AgentStarted { call });
            }
        }
        _ => {}
    }
    Ok(e)
}

/// A reply: its calls, its text; what a reader sees of it hashed.
fn assistant(e: &mut Entry, d: &Value, id: Option<Box<str>>) {
    e.kind = Kind::Assistant;
    e.uuid = id.clone();
    e.message_id = str_of(&d["messageId"]).or(id);
    e.model = str_of(&d["model"]);
    for r in d["toolRequests"].as_array().into_iter().flatten() {
        let name = r["name"].as_str().unwrap_or("");
        let prompt = (name == "task").then(|| r["arguments"]["prompt"].as_str()).flatten();
        e.tool_uses.push(ToolUse {
            id: r["toolCallId"].as_str().unwrap_or("").into(),
            name: name.into(),
            prompt_hash: prompt.map(|p| hash_bytes(p.as_bytes())),
        });
    }
    text_of(e, d["content"].as_str().unwrap_or(""));
    let reasoning = d["reasoningText"].as_str().unwrap_or("");
    e.content_hash = seen(e, "assistant.message") ^ hash_bytes(reasoning.as_bytes()).rotate_left(5);
    if e.excerpt.is_empty() {
        if let Some(u) = e.tool_uses.first() {
            e.excerpt = u.name.clone();
        }
    }
}

fn text_of(e: &mut Entry, t: &str) {
    e.excerpt = excerpt_of(t);
    e.text_hash = hash_bytes(t.as_bytes());
}

/// What a reader sees of an event of type `ty` (a re-serialized copy may
/// write `0` for `0.0`: its bytes are not compared).
fn seen(e: &Entry, ty: &str) -> u64 {
    let calls: String = e.tool_uses.iter().map(|u| format!("{}:{};", u.id, u.name)).collect();
    e.text_hash ^ hash_bytes(calls.as_bytes()).rotate_left(3) ^ hash_bytes(ty.as_bytes()).rotate_left(1)
}

fn str_of(v: &Value) -> Option<Box<str>> {
    v.as_str().filter(|s| !s.is_empty()).map(Into::into)
}

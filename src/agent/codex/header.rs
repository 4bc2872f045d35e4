//! The header of one rollout line ([`header`]): what the graph needs, before
//! the file's lines are linked ([`super::link`]).
//!
//! A line that may be a node gets its key in the history (`message_id`:
//! its `ordinal`, else `L<line>`): [`super::link`] makes it a node id. The
//! facts [`super::link`] reads of lines that are not nodes are kept in
//! fields of their own headers (see each arm).

use serde_json::Value;

use crate::model::{Entry, Kind, Loc, Meta, ToolResult, ToolUse, TurnMark, Usage, UserKind, excerpt_of, hash_bytes};
use crate::timestamp::parse_timestamp;

/// The top-level `type`s Codex CLI writes that are not nodes.
const KNOWN: &[&str] = &[
    "session_meta",
    "turn_context",
    "event_msg",
    "world_state",
    "token_usage_record",
    "inter_agent_communication_metadata",
    "state",
];

/// The subtype of a session's line from before the envelope (its lines
/// after it have no time of their own: [`super::link`], the checks).
pub(crate) const BEFORE_ENVELOPE: &str = "before_envelope";

/// The kind of a `thread_rolled_back` event's header.
pub(crate) const ROLLED_BACK: &str = "codex:thread_rolled_back";

/// The header of a rollout line.
pub(super) fn header(raw: &str, loc: Loc, offset: u64) -> Result<Entry, serde_json::Error> {
    let v = crate::json::parse(raw)?;
    let (ty, p) = super::envelope(&v);
    let pty = p["type"].as_str().unwrap_or("");
    let kind = match ty {
        "response_item" | "compacted" => Kind::KnownMeta(format!("codex:{ty}").into()),
        t if KNOWN.contains(&t) => Kind::KnownMeta(format!("codex:{ty}").into()),
        t => Kind::Unknown(t.into()),
    };
    let mut e = Entry::blank(raw, loc, offset, kind);
    e.timestamp = v["timestamp"].as_str().and_then(parse_timestamp);
    let payload_text = serde_json::to_string(p).unwrap_or_default();
    e.payload_hash = hash_bytes(payload_text.as_bytes());
    e.content_hash = e.payload_hash;
    let key = match v["ordinal"].as_u64() {
        Some(o) => o.to_string(),
        None => format!("L{}", loc.line),
    };
    match (ty, pty) {
        ("session_meta", _) => {
            session_meta(&mut e, p);
            if v.get("payload").is_none() {
                e.subtype = Some(BEFORE_ENVELOPE.into());
            }
        }
        ("turn_context", _) => {
            e.cwd = str_of(&p["cwd"]);
            e.model = str_of(&p["model"]);
        }
        ("response_item", "message") => {
            message(&mut e, p);
            if v.get("payload").is_none() {
                // Before the envelope, the working directory is only in the environment context.
                e.cwd = super::context_cwd(&super::texts(&p["content"])).map(Into::into);
            }
        }
        ("response_item", "reasoning") => {
            e.kind = Kind::Assistant;
            e.excerpt = excerpt_of(&super::texts(&p["summary"]));
        }
        ("response_item", "function_call" | "custom_tool_call" | "local_shell_call") => {
            e.kind = Kind::Assistant;
            let id = str_of(&p["call_id"]).or_else(|| str_of(&p["id"])).unwrap_or_default();
            let name = str_of(&p["name"]).unwrap_or_else(|| pty.into());
            e.excerpt = excerpt_of(&name);
            e.tool_uses.push(ToolUse { id, name, prompt_hash: None });
        }
        ("response_item", "web_search_call" | "image_generation_call" | "tool_search_call") => {
            e.kind = Kind::Assistant;
            e.excerpt = excerpt_of(pty);
        }
        ("response_item", "function_call_output" | "custom_tool_call_output" | "tool_search_output") => {
            e.kind = Kind::User;
            e.user_kind = UserKind::ToolResult;
            let id = str_of(&p["call_id"]).unwrap_or_default();
            e.tool_results.push(ToolResult { tool_use_id: id, is_error: false });
        }
        ("response_item", "agent_message") => {
            let text = super::texts(&p["content"]);
            e.kind = Kind::User;
            e.text_hash = hash_bytes(text.as_bytes());
            e.excerpt = excerpt_of(&text);
            // A sub-agent's task is its prompt; what it answers, a notice in the parent.
            e.user_kind =
                if text.starts_with("Message Type: NEW_TASK") { UserKind::Prompt } else { UserKind::Notification };
            e.injected = e.user_kind != UserKind::Prompt;
        }
        ("response_item", _) => {}
        ("compacted", _) => {
            e.kind = Kind::System;
            e.subtype = Some("compact_boundary".into());
            e.excerpt = excerpt_of(p["message"].as_str().unwrap_or(""));
        }
        ("event_msg", _) => event(&mut e, p, pty),
        _ => {}
    }
    if matches!(e.kind, Kind::User | Kind::Assistant | Kind::System) {
        e.message_id = Some(key.into());
    }
    Ok(e)
}

/// The `session_meta` a file starts with: the thread, its session, what it
/// continues and its parent (kept in the header's fields for the link).
fn session_meta(e: &mut Entry, p: &Value) {
    e.session_id = str_of(&p["id"]);
    e.cwd = str_of(&p["cwd"]);
    e.version = str_of(&p["cli_version"]);
    e.copied_from = str_of(&p["forked_from_id"]);
    e.agent_id = str_of(&p["parent_thread_id"]);
    let base = &p["history_base"];
    if let (Some(t), Some(k)) = (base["thread_id"].as_str(), base["end_ordinal_exclusive"].as_u64()) {
        e.logical_parent = Some(format!("{t}:{k}").into());
    }
    e.meta = Some(Meta::SessionStart { group: str_of(&p["session_id"]) });
}

/// An `event_msg`: usage, an aborted turn, a rollback, a sub-agent started.
fn event(e: &mut Entry, p: &Value, pty: &str) {
    match pty {
        "token_count" => e.usage = usage(&p["info"]["last_token_usage"]),
        "turn_aborted" => {
            e.kind = Kind::User;
            e.user_kind = UserKind::Interrupt;
            e.excerpt = excerpt_of(&format!("Turn aborted: {}", p["reason"].as_str().unwrap_or("interrupted")));
        }
        "thread_rolled_back" => {
            // How many turns it abandons, for the link (empty when not a
            // whole number: the link reads 1, `check` reports it).
            e.kind = Kind::KnownMeta(ROLLED_BACK.into());
            e.meta = Some(Meta::Rollback { turns: p["num_turns"].as_u64() });
        }
        // A turn's bounds, for the checkpoints a fork may cut at (`fork::codex::legal_nodes`).
        "task_started" => e.meta = Some(Meta::Turn(TurnMark::Started)),
        "task_complete" => e.meta = Some(Meta::Turn(TurnMark::Completed)),
        "item_completed" => {
            // A sub-agent started: the call and the agent's thread, for the link.
            let item = &p["item"];
            if item["type"].as_str() == Some("SubAgentActivity") && item["kind"].as_str() == Some("started") {
                e.meta = str_of(&item["id"]).map(|call| Meta::AgentStarted { call });
                e.spawned_agent = str_of(&item["agent_thread_id"]);
            }
        }
        _ => {}
    }
}

/// A `message`: a prompt, context the client injected, or a reply.
fn message(e: &mut Entry, p: &Value) {
    let text = super::texts(&p["content"]);
    e.excerpt = excerpt_of(&text);
    e.text_hash = hash_bytes(text.as_bytes());
    match p["role"].as_str() {
        Some("assistant") => e.kind = Kind::Assistant,
        Some("user") => {
            e.kind = Kind::User;
            if super::is_injected(&text) {
                e.injected = true;
                e.user_kind = UserKind::Meta;
            } else {
                e.user_kind = UserKind::Prompt;
            }
        }
        _ => {
            // `developer`, `system`: the client's instructions.
            e.kind = Kind::User;
            e.injected = true;
            e.user_kind = UserKind::Meta;
        }
    }
}

/// `last_token_usage` as the API bills it: fresh input, cached input, output.
fn usage(u: &Value) -> Option<Usage> {
    let n = |k: &str| u[k].as_u64().unwrap_or(0);
    let input = n("input_tokens");
    if !u.is_object() {
        return None;
    }
    let cached = n("cached_input_tokens").min(input);
    Some(Usage {
        input: input - cached,
        output: n("output_tokens"),
        cache_creation: n("cache_write_input_tokens"),
        cache_read: cached,
        ..Usage::default()
    })
}

fn str_of(v: &Value) -> Option<Box<str>> {
    v.as_str().filter(|s| !s.is_empty()).map(Into::into)
}

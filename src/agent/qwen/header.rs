//! The header of one line of a Qwen Code session file ([`header`]): each
//! record carries its own `uuid` and `parentUuid` (transcript-format,
//! Appendix G), as Claude Code's lines do, so the header keeps them as
//! written; [`super::link`] then takes out of the chain the records a
//! reader does not read (telemetry, snapshots, slash-command results) and
//! places rewinds and compressions.

use serde_json::Value;

use crate::model::{Entry, Kind, Loc, Meta, ToolResult, ToolUse, Usage, UserKind, excerpt_of, hash_bytes};
use crate::timestamp::parse_timestamp;

/// The kind of the records kept out of the chain by the link (still lines
/// of the file, read by the raw view and `cctree check`).
pub(crate) const RECORD: &str = "qwen:record";

/// The `system` subtypes that are messages a reader reads: a compression
/// (its replacement history), a rewind (where the branch starts again).
pub(crate) const COMPRESSION: &str = "chat_compression";
pub(crate) const REWIND: &str = "rewind";
pub(crate) const SLASH: &str = "slash_command";

/// The header of a session-file line.
pub(super) fn header(raw: &str, loc: Loc, offset: u64) -> Result<Entry, serde_json::Error> {
    let v = crate::json::parse(raw)?;
    let ty = v["type"].as_str().unwrap_or("");
    let kind = match ty {
        "user" | "tool_result" => Kind::User,
        "assistant" => Kind::Assistant,
        "system" => Kind::System,
        "" => Kind::Unknown("".into()),
        other => Kind::Unknown(other.into()),
    };
    let mut e = Entry::blank(raw, loc, offset, kind);
    // What the client validates: a string `uuid` and `sessionId` (else it
    // skips the record).
    e.uuid = str_of(&v["uuid"]);
    e.parent = str_of(&v["parentUuid"]);
    e.session_id = str_of(&v["sessionId"]);
    e.timestamp = v["timestamp"].as_str().and_then(parse_timestamp);
    e.cwd = str_of(&v["cwd"]);
    e.version = str_of(&v["version"]);
    e.subtype = str_of(&v["subtype"]);
    e.sidechain = v["isSidechain"] == true;
    e.agent_id = str_of(&v["agentId"]);
    e.copied_from = str_of(&v["forkedFrom"]["sessionId"]);
    let message = &v["message"];
    let payload = serde_json::to_string(message).unwrap_or_default();
    e.payload_hash = hash_bytes(payload.as_bytes()) ^ hash_bytes(ty.as_bytes()).rotate_left(1);
    e.content_hash = e.payload_hash ^ hash_bytes(e.subtype.as_deref().unwrap_or("").as_bytes()).rotate_left(2);
    if e.uuid.is_none() || e.session_id.is_none() || e.kind.is_unknown() {
        // Not a record the client reads.
        e.uuid = None;
        e.parent = None;
        return Ok(e);
    }
    match ty {
        "user" => user(&mut e, &v),
        "tool_result" => tool_result(&mut e, &v),
        "assistant" => assistant(&mut e, &v),
        _ => system(&mut e, &v),
    }
    Ok(e)
}

/// A prompt, or a notification the client put in the conversation.
fn user(e: &mut Entry, v: &Value) {
    let text = super::typed_text(&v["message"]["parts"]);
    e.excerpt = excerpt_of(&text);
    e.text_hash = hash_bytes(text.as_bytes());
    e.user_kind = match e.subtype.as_deref() {
        None | Some("mid_turn_user_message" | "realtime_message") => UserKind::Prompt,
        Some("notification") => UserKind::Notification,
        Some(_) => UserKind::Meta,
    };
    e.injected = e.user_kind != UserKind::Prompt;
}

/// The results of the calls of a reply (one record per call).
fn tool_result(e: &mut Entry, v: &Value) {
    let failed = v["toolCallResult"]["status"].as_str().is_some_and(|s| s == "error");
    let mut ids = rustc_hash::FxHashSet::default();
    e.tool_results = v["message"]["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["functionResponse"]["id"].as_str())
        .filter(|id| ids.insert(*id))
        .map(|id| ToolResult { tool_use_id: id.into(), is_error: failed })
        .collect();
    e.user_kind = UserKind::ToolResult;
    let text = super::text_of(&v["message"]["parts"]);
    e.excerpt = excerpt_of(&text);
    e.text_hash = hash_bytes(text.as_bytes());
}

/// A reply: one API response, its usage, its calls.
fn assistant(e: &mut Entry, v: &Value) {
    e.model = str_of(&v["model"]);
    // One record per response: its own message.
    e.message_id.clone_from(&e.uuid);
    let u = &v["usageMetadata"];
    if u.is_object() {
        let n = |k: &str| u[k].as_u64().unwrap_or(0);
        let cached = n("cachedContentTokenCount").min(n("promptTokenCount"));
        e.usage = Some(Usage {
            input: n("promptTokenCount") - cached,
            output: n("candidatesTokenCount").saturating_add(n("thoughtsTokenCount")),
            cache_read: cached,
            ..Usage::default()
        });
    }
    let parts = &v["message"]["parts"];
    for p in parts.as_array().into_iter().flatten() {
        let f = &p["functionCall"];
        if f.is_object() {
            let name = f["name"].as_str().unwrap_or("");
            let prompt_hash = (name == "agent").then(|| f["args"]["prompt"].as_str().map(|p| hash_bytes(p.as_bytes())));
            e.tool_uses.push(ToolUse {
                id: f["id"].as_str().unwrap_or("").into(),
                name: name.into(),
                prompt_hash: prompt_hash.flatten(),
            });
        }
    }
    let text = super::text_of(parts);
    e.excerpt = excerpt_of(&text);
    e.text_hash = hash_bytes(text.as_bytes());
    if e.excerpt.is_empty() {
        if let Some(u) = e.tool_uses.first() {
            e.excerpt = u.name.clone();
        }
    }
}

/// A `system` record: titles are metadata, the rest stays for the link.
fn system(e: &mut Entry, v: &Value) {
    let payload = &v["systemPayload"];
    match e.subtype.as_deref() {
        Some("custom_title") => {
            let title = payload["customTitle"].as_str().unwrap_or("").trim();
            if !title.is_empty() {
                e.kind = match payload["titleSource"].as_str() {
                    Some("auto") => Kind::AiTitle,
                    _ => Kind::CustomTitle,
                };
                e.meta = Some(match e.kind {
                    Kind::AiTitle => Meta::AiTitle(title.into()),
                    _ => Meta::CustomTitle(title.into()),
                });
            }
        }
        Some(SLASH) if payload["phase"].as_str() == Some("invocation") => {
            // What was typed: a command, shown as one.
            let cmd = payload["rawCommand"].as_str().unwrap_or("");
            e.kind = Kind::User;
            e.user_kind = UserKind::Command;
            e.excerpt = excerpt_of(cmd);
            e.text_hash = hash_bytes(cmd.as_bytes());
        }
        Some(COMPRESSION) => {
            let text = payload["compressedHistory"]
                .as_array()
                .and_then(|h| h.first())
                .map(|m| super::text_of(&m["parts"]))
                .unwrap_or_default();
            e.excerpt = excerpt_of(&text);
            e.text_hash = hash_bytes(text.as_bytes());
        }
        Some(REWIND) => {}
        // Telemetry, snapshots, a command's result, an agent's bootstrap…
        _ => e.kind = Kind::KnownMeta(RECORD.into()),
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

    /// `promptTokenCount` holds the cached tokens; thoughts are output.
    #[test]
    fn a_reply_counts_fresh_input_apart_from_cached() {
        let e = h(
            r#"{"uuid":"a","parentUuid":"p","sessionId":"s","type":"assistant","model":"qwen3-coder-plus","message":{"role":"model","parts":[{"text":"ok"}]},"usageMetadata":{"promptTokenCount":1000,"candidatesTokenCount":50,"thoughtsTokenCount":20,"cachedContentTokenCount":300}}"#,
        );
        let u = e.usage.unwrap();
        assert_eq!((u.input, u.cache_read, u.output), (700, 300, 70));
        assert_eq!(e.message_id.as_deref(), Some("a"));
    }

    /// The client skips a record without a string `uuid` or `sessionId`.
    #[test]
    fn a_record_the_client_skips_is_no_node() {
        assert!(!h(r#"{"uuid":7,"sessionId":"s","type":"user"}"#).is_node());
        assert!(!h(r#"{"uuid":"u","type":"user"}"#).is_node());
        assert!(!h(r#"{"uuid":"u","sessionId":"s","type":"other"}"#).is_node());
        assert!(h(r#"{"uuid":"u","sessionId":"s","parentUuid":null,"type":"user","message":{"parts":[]}}"#).is_node());
    }

    /// A resume's reminder is not what was typed.
    #[test]
    fn a_prompt_excerpt_leaves_the_reminder_out() {
        let e = h(
            r#"{"uuid":"u","sessionId":"s","type":"user","message":{"role":"user","parts":[{"text":"<system-reminder>\n1 background agent was restored\n</system-reminder>\n\n"},{"text":"Go on"}]}}"#,
        );
        assert_eq!(&*e.excerpt, "Go on");
        assert_eq!(e.user_kind, UserKind::Prompt);
    }
}

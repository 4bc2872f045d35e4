//! The header of one line of a Gemini CLI session file ([`header`]), before
//! the file is replayed ([`super::link`]). A record gets its id as its key
//! (`message_id`); the facts the link reads of other lines are kept in
//! their headers (see each arm).

use serde_json::Value;

use crate::model::{Entry, Kind, Loc, Meta, ToolResult, ToolUse, Usage, UserKind, excerpt_of, hash_bytes};
use crate::timestamp::parse_timestamp;

/// Kinds of the lines that are not records.
pub(crate) const META: &str = "gemini:metadata";
pub(crate) const SET: &str = "gemini:$set";
pub(crate) const REWIND: &str = "gemini:$rewindTo";

/// The header of a session-file line.
pub(super) fn header(raw: &str, loc: Loc, offset: u64) -> Result<Entry, serde_json::Error> {
    let v = crate::json::parse(raw)?;
    let mut e = Entry::blank(raw, loc, offset, Kind::KnownMeta(META.into()));
    if let Some(set) = v.get("$set") {
        e.kind = Kind::KnownMeta(SET.into());
        e.session_id = str_of(&set["sessionId"]);
        if let Some(list) = set["messages"].as_array() {
            let ids = list
                .iter()
                .filter_map(|m| {
                    let id = m["id"].as_str()?;
                    Some((id.into(), hash_bytes(serde_json::to_string(m).unwrap_or_default().as_bytes())))
                })
                .collect();
            e.meta = Some(Meta::Sequence { ids, new: Vec::new() });
        }
        return Ok(e);
    }
    if let Some(to) = v.get("$rewindTo") {
        e.kind = Kind::KnownMeta(REWIND.into());
        // An id that is not a string rewinds everything (no record has it).
        e.meta = Some(Meta::Rewind { to: to.as_str().unwrap_or("").into() });
        return Ok(e);
    }
    let (Some(id), Some(ty)) = (v["id"].as_str(), v["type"].as_str()) else {
        // The metadata line: the session, and whether it is a sub-agent's.
        e.session_id = str_of(&v["sessionId"]);
        e.subtype = str_of(&v["kind"]);
        e.timestamp = v["startTime"].as_str().and_then(parse_timestamp);
        return Ok(e);
    };
    e.message_id = Some(id.into());
    e.timestamp = v["timestamp"].as_str().and_then(parse_timestamp);
    let payload = serde_json::to_string(&v["content"]).unwrap_or_default();
    e.payload_hash = hash_bytes(payload.as_bytes()) ^ hash_bytes(ty.as_bytes()).rotate_left(1);
    e.content_hash = hash_bytes(serde_json::to_string(&v).unwrap_or_default().as_bytes());
    let text = super::text_of(&v["content"]);
    e.excerpt = excerpt_of(&text);
    e.text_hash = hash_bytes(text.as_bytes());
    match ty {
        "user" => user(&mut e, &v, &text),
        "gemini" => gemini(&mut e, &v),
        other => {
            e.kind = Kind::System;
            e.subtype = Some(other.into());
        }
    }
    Ok(e)
}

fn user(e: &mut Entry, v: &Value, text: &str) {
    e.kind = Kind::User;
    let responses: Vec<ToolResult> = v["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["functionResponse"]["id"].as_str())
        .map(|id| ToolResult { tool_use_id: id.into(), is_error: false })
        .collect();
    // A response repeated in one record (after a checkpoint is loaded) answers once.
    let mut responses = responses;
    let mut ids = rustc_hash::FxHashSet::default();
    responses.retain(|r| ids.insert(r.tool_use_id.clone()));
    if !responses.is_empty() {
        e.user_kind = UserKind::ToolResult;
        e.tool_results = responses;
    } else if super::is_injected(text) {
        e.user_kind = UserKind::Meta;
        e.injected = true;
    } else {
        e.user_kind = UserKind::Prompt;
    }
}

fn gemini(e: &mut Entry, v: &Value) {
    e.kind = Kind::Assistant;
    e.model = str_of(&v["model"]);
    let t = &v["tokens"];
    if t.is_object() {
        let n = |k: &str| t[k].as_u64().unwrap_or(0);
        let cached = n("cached").min(n("input"));
        e.usage = Some(Usage {
            input: n("input") - cached,
            output: n("output").saturating_add(n("thoughts")),
            cache_creation: 0,
            cache_read: cached,
            ..Usage::default()
        });
    }
    let mut use_of = |id: Option<&str>, name: Option<&str>, args: &Value| {
        let prompt_hash =
            (name == Some("invoke_agent")).then(|| args["prompt"].as_str().map(|p| hash_bytes(p.as_bytes()))).flatten();
        e.tool_uses.push(ToolUse { id: id.unwrap_or("").into(), name: name.unwrap_or("").into(), prompt_hash });
    };
    match v["toolCalls"].as_array().filter(|c| !c.is_empty()) {
        Some(calls) => {
            calls.iter().for_each(|c| use_of(c["id"].as_str(), c["name"].as_str(), &c["args"]));
            // Results recorded with their calls (the link drops those a
            // record of their own answers).
            e.tool_results = calls
                .iter()
                .filter(|c| c["result"].as_array().is_some_and(|r| !r.is_empty()))
                .filter_map(|c| c["id"].as_str())
                .map(|id| ToolResult { tool_use_id: id.into(), is_error: false })
                .collect();
        }
        None => {
            for p in v["content"].as_array().into_iter().flatten() {
                let f = &p["functionCall"];
                if f.is_object() {
                    use_of(f["id"].as_str(), f["name"].as_str(), &f["args"]);
                }
            }
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

    /// Gemini's `tokens.input` is the request's `promptTokenCount`, which
    /// holds the cached tokens: the fresh input is what remains (priced as
    /// input), the cached part is a cache read; thoughts are output.
    #[test]
    fn a_reply_counts_fresh_input_apart_from_cached() {
        let line = r#"{"id":"r1","type":"gemini","timestamp":"2026-11-27T01:56:00.000Z","content":"ok","model":"gemini-3.8-flash","tokens":{"input":1000,"output":50,"cached":300,"thoughts":20,"tool":0,"total":1070}}"#;
        let e = header(line, Loc { file: FileId::FIRST, line: 1 }, 0).unwrap();
        let u = e.usage.unwrap();
        assert_eq!((u.input, u.cache_read, u.cache_creation, u.output), (700, 300, 0, 70));
        // More cached than input (never written so): nothing fresh, not a wrap.
        let odd = line.replace(r#""cached":300"#, r#""cached":5000"#);
        let u = header(&odd, Loc { file: FileId::FIRST, line: 1 }, 0).unwrap().usage.unwrap();
        assert_eq!((u.input, u.cache_read), (0, 1000));
    }
}

//! The header of one line Aider's chat history is read as ([`header`];
//! the lines are [`super::lines`]', transcript-format Appendix J): a run,
//! a prompt or slash command, a reply, the client's output (its `Tokens:`
//! line read as the usage of the reply before it, its `Model:` line as the
//! model of the replies after it, `Restored previous conversation
//! history.` as the mark of a run that continues the one before), a
//! `/clear`. Parents are derived over the file by [`super::link`].

use serde_json::Value;

use crate::model::{Entry, Kind, Loc, Usage, UserKind, excerpt_of, hash_bytes};

/// The kind of a run's heading line.
pub(crate) const RUN: &str = "aider:run";
/// The subtype of the client's output, and of the output that says the
/// run restored the history.
pub(crate) const OUTPUT: &str = "output";
pub(crate) const RESTORED: &str = "restored";
/// What the client writes when it restores the history.
pub(crate) const RESTORED_LINE: &str = "Restored previous conversation history.";

pub(super) fn header(raw: &str, loc: Loc, offset: u64) -> Result<Entry, serde_json::Error> {
    let v = crate::json::parse(raw)?;
    let ty = v["type"].as_str().unwrap_or("");
    let mut e = Entry::blank(raw, loc, offset, Kind::Unknown(ty.into()));
    // Warnings and checks name the Markdown file's line.
    if let Some(l) = v["line"].as_u64().and_then(|l| u32::try_from(l).ok()) {
        e.loc.line = l;
    }
    e.session_id = str_of(&v["session"]);
    e.timestamp = v["started"].as_str().and_then(super::lines::time_of);
    let text = v["text"].as_str().unwrap_or("");
    e.payload_hash = hash_bytes(ty.as_bytes()) ^ hash_bytes(text.as_bytes()).rotate_left(1);
    e.content_hash = e.payload_hash;
    e.text_hash = hash_bytes(text.as_bytes());
    e.excerpt = excerpt_of(text);
    if ty == "run" {
        e.kind = Kind::KnownMeta(RUN.into());
        e.excerpt = "".into();
        return Ok(e);
    }
    e.uuid = str_of(&v["id"]);
    match ty {
        "prompt" => {
            e.kind = Kind::User;
            e.user_kind = if text.starts_with('/') { UserKind::Command } else { UserKind::Prompt };
        }
        "reply" => {
            e.kind = Kind::Assistant;
            e.message_id = e.uuid.clone();
        }
        "output" => output(&mut e, &v, text),
        "clear" => {
            e.kind = Kind::System;
            e.subtype = Some("compact_boundary".into());
        }
        _ => e.uuid = None,
    }
    Ok(e)
}

/// The client's output: a command's, or what it noted (the model, the
/// usage of the reply before, a restore).
fn output(e: &mut Entry, v: &Value, text: &str) {
    if v["after"] == "command" {
        e.kind = Kind::User;
        e.user_kind = UserKind::CommandOutput;
    } else {
        e.kind = Kind::System;
        e.subtype = Some(OUTPUT.into());
    }
    for l in text.lines() {
        let l = l.trim();
        if let Some(m) = l.strip_prefix("Model: ").or_else(|| l.strip_prefix("Main model: ")) {
            let name = m.split(" with ").next().unwrap_or(m).trim();
            if !name.is_empty() {
                e.model = Some(name.into());
            }
        }
        if let Some(t) = l.strip_prefix("Tokens: ") {
            e.usage = tokens(t);
        }
        if l == RESTORED_LINE && e.kind == Kind::System {
            e.subtype = Some(RESTORED.into());
        }
    }
}

/// `2.4k sent, 1.0k cache write, 500 cache hit, 24 received. Cost: …`:
/// the counts as Aider printed them (rounded to the hundred above 1,000).
pub(crate) fn tokens(t: &str) -> Option<Usage> {
    let counts = t.split(". ").next().unwrap_or(t).trim_end_matches('.');
    let mut u = Usage::default();
    let mut any = false;
    for part in counts.split(", ") {
        let (n, what) = part.trim().split_once(' ')?;
        let n = count(n)?;
        match what.trim() {
            "sent" => u.input = n,
            "received" => u.output = n,
            "cache write" => u.cache_creation = n,
            "cache hit" => u.cache_read = n,
            _ => continue,
        }
        any = true;
    }
    any.then_some(u)
}

/// `24`, `2.4k`, `12k`, `1.2M`.
fn count(s: &str) -> Option<u64> {
    let (num, scale) = match s.as_bytes().last()? {
        b'k' | b'K' => (&s[..s.len() - 1], 1_000.0),
        b'M' | b'm' => (&s[..s.len() - 1], 1_000_000.0),
        _ => (s, 1.0),
    };
    let x: f64 = num.replace(',', "").parse().ok()?;
    if !x.is_finite() || x < 0.0 {
        return None;
    }
    let n = (x * scale).round();
    // Below 2^53 the float is exact; beyond, the count is saturated.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Some(if n >= 9.0e15 { 9_000_000_000_000_000 } else { n as u64 })
}

fn str_of(v: &Value) -> Option<Box<str>> {
    v.as_str().filter(|s| !s.is_empty()).map(Into::into)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_lines_read_as_usage_as_aider_rounds_them() {
        let u = tokens("2.4k sent, 24 received. Cost: $0.0024 message, $0.0024 session.").unwrap();
        assert_eq!((u.input, u.output), (2400, 24));
        let u = tokens("12k sent, 1.0k cache write, 500 cache hit, 1.2k received. Cost: $0.01 message").unwrap();
        assert_eq!((u.input, u.cache_creation, u.cache_read, u.output), (12_000, 1000, 500, 1200));
        assert!(tokens("nothing here").is_none());
    }

    proptest::proptest! {
        /// Any token line reads without a panic (huge, negative, odd numbers).
        #[test]
        fn any_token_line_reads(t in "([0-9.eE+-]{0,30}[kKmM]? (sent|received|cache hit|cache write)(, |\\. )?){0,5}") {
            let _ = tokens(&t);
        }
    }
}

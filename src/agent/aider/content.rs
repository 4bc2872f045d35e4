//! What a line of Aider's chat history says when a page shows it
//! ([`node`], transcript-format Appendix J): a prompt, a slash command and
//! what it printed, a reply (its reasoning, kept by the client between
//! `<thinking-content-…>` tags, as a thinking block; its edit blocks as
//! the Markdown they are), the client's other output as a note, a
//! `/clear` as where the context starts again.

use std::borrow::Cow;

use serde_json::Value;

use crate::model::{Block, Body, Compaction, Content, Entry, Kind, Node, Note, Raw, Read, Str, UserKind};
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
    let text = v["text"].as_str().unwrap_or("");
    match (&e.kind, e.user_kind) {
        (Kind::Assistant, _) => Content::Reply(reply(text)),
        (Kind::User, UserKind::Command) => {
            let (name, args) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
            Content::Command { name: owned(name), args: owned(args.trim()) }
        }
        (Kind::User, UserKind::CommandOutput) => Content::CommandOutput(owned(text)),
        (Kind::User, _) => Content::Prompt(Body::Blocks(vec![Block::Text(owned(text))])),
        (Kind::System, _) if e.is_compact_boundary() => Content::Compaction(Compaction {
            micro: false,
            trigger: owned(text.split_whitespace().next().unwrap_or("/clear")),
            pre_tokens: None,
            saved: None,
        }),
        (Kind::System, _) => Content::Note(Note {
            kind: owned(e.subtype.as_deref().unwrap_or("output")),
            text: owned(text),
            is_error: false,
            raw: Raw::of(v.clone()),
        }),
        _ => Content::Other { data_kind: e.subtype.as_deref().map(owned), raw: Raw::of(v.clone()) },
    }
}

/// The tag Aider 0.86.2 keeps a streamed reasoning block in (its name
/// ends in a fixed hash).
const THINKING: &str = "thinking-content-";

/// A reply's blocks: its text, its reasoning blocks apart.
pub(crate) fn reply<'a>(text: &str) -> Vec<Block<'a>> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find(&format!("<{THINKING}")) {
        let Some(close_tag) = rest[open..].find('>').map(|i| open + i + 1) else { break };
        let tag = &rest[open + 1..close_tag - 1];
        let close = format!("</{tag}>");
        let Some(end) = rest[close_tag..].find(&close).map(|i| close_tag + i) else { break };
        push_text(&mut blocks, &rest[..open]);
        blocks.push(Block::Thinking(owned(rest[close_tag..end].trim())));
        rest = &rest[end + close.len()..];
    }
    push_text(&mut blocks, rest);
    blocks
}

fn push_text<'a>(blocks: &mut Vec<Block<'a>>, t: &str) {
    let t = t.trim();
    if !t.is_empty() {
        blocks.push(Block::Text(owned(t)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_streamed_reasoning_block_is_a_thinking_block_before_the_answer() {
        let t = "<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\nThinking.\n\n</thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\nThe answer.";
        let b = reply(t);
        assert!(matches!(&b[..], [Block::Thinking(a), Block::Text(c)] if a == "Thinking." && c == "The answer."));
        assert!(matches!(&reply("<thinking-content-x> no end")[..], [Block::Text(_)]));
    }

    proptest::proptest! {
        /// Any reply text, tags left open or nested included, splits without a panic.
        #[test]
        fn any_reply_splits(t in "(<thinking-content-[a-z]{0,3}>|</thinking-content-[a-z]{0,3}>|[a-z\\n>< ]{0,8}){0,12}") {
            let _ = reply(&t);
        }
    }
}

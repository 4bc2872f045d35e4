//! Claude Code's prompt, reply and tool-result lines read straight into the
//! model: typed serde structs over the line, strings borrowed from it where
//! they hold no escapes, no [`serde_json::Value`] tree in between (but for
//! a tool call's input, kept as written in [`crate::model::Raw`], and the
//! few `toolUseResult` fields a result's view reads).
//!
//! It reads what [`crate::json::pick::parse_only`] and [`super::content`]
//! read, with the same rules ([`crate::json`]): the last of duplicate keys
//! wins ([`crate::json::object!`] structs), numbers of any size and fields
//! of another type than expected read as absent where the tree reader reads
//! them as absent. What it has no type for — a `message.content` that is
//! neither text, blocks nor `null`, a block of a kind a view shows whole, an
//! item that is not a block, anything nested deeper than serde_json reads
//! (the tree reader then cuts it, [`crate::json::shallow`]) — makes it give
//! up ([`Odd`]), and the tree reader reads that line: the two never differ
//! on what a line says (`typed_and_tree_readers_agree` checks every line of
//! the vendored transcripts and the hostile shapes).

use std::borrow::Cow;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::json::pick::{Pick, Want};
use crate::json::{Key, object, read_object};
use crate::model::{Block, Body, Content, Image, Injected, Node, Raw, Str, ToolOutput};
use crate::parse::lenient::{MaybeBool, MaybeStr};
use crate::parse::{Entry, Kind, UserKind};

use super::calls::call_from;
use super::content::{SideFiles, command, command_output, own, prompt_text, strip_tags, tag_text};
use super::results::{Tool, detail_of, spill_of};

/// The typed reader gave up on a line: the tree reader reads it.
#[derive(Debug)]
pub(super) struct Odd;

/// The node of entry `e` (a prompt, reply or tool result) read from `line`;
/// `tur` is what its view reads of the entry's `toolUseResult`, if anything.
pub(super) fn node<'a>(
    e: &Entry,
    line: &'a str,
    tool: Option<Tool>,
    tur: Option<&'static Want>,
    side: SideFiles<'_>,
) -> Result<Node<'a>, Odd> {
    let mut d = serde_json::Deserializer::from_str(line);
    let read = LineSeed { tur }.deserialize(&mut d).and_then(|l| d.end().map(|()| l)).map_err(|_| Odd)?;
    match e.kind {
        Kind::Assistant => Ok(Node { content: Content::Reply(reply(read.content, side)?), results: Vec::new() }),
        Kind::User => user(e, read, tool, side),
        _ => Err(Odd),
    }
}

/// What is read of a line: its `message.content` and its `toolUseResult`'s wanted parts.
struct LineIn<'a> {
    content: ContentIn<'a>,
    tur: Option<Value>,
}

struct LineSeed {
    tur: Option<&'static Want>,
}

impl<'de> DeserializeSeed<'de> for LineSeed {
    type Value = LineIn<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<LineIn<'de>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for LineSeed {
    type Value = LineIn<'de>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an entry")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LineIn<'de>, A::Error> {
        let mut out = LineIn { content: ContentIn::Missing, tur: None };
        while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
            match (&*k, self.tur) {
                ("message", _) => out.content = map.next_value::<MessageIn<'de>>()?.content,
                ("toolUseResult", Some(want)) => out.tur = Some(map.next_value_seed(Pick(want))?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(out)
    }
}

object! {
    struct MessageIn<'a> { content: ContentIn<'a> = "content" }
}

/// A `message.content`.
#[derive(Default)]
enum ContentIn<'a> {
    /// No `content` key.
    #[default]
    Missing,
    Null,
    Text(Str<'a>),
    Items(Vec<Item<'a>>),
}

impl<'de> serde::Deserialize<'de> for ContentIn<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ContentIn<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("text, blocks or null")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(ContentIn::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(ContentIn::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(ContentIn::Text(Cow::Owned(v)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(ContentIn::Null)
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(ContentIn::Null)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(item) = seq.next_element::<Item<'de>>()? {
                    items.push(item);
                }
                Ok(ContentIn::Items(items))
            }
            // Anything else (an object, a number, a boolean) is odd content:
            // the visitor's default refuses it, and the tree reader reads the line.
        }
        d.deserialize_any(V)
    }
}

/// An item of a `message.content` list: text, or a block.
enum Item<'a> {
    Text(Str<'a>),
    Block(Box<BlockIn<'a>>),
}

impl<'de> serde::Deserialize<'de> for Item<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Item<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("text or a block")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Item::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Item::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Item::Text(Cow::Owned(v)))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                // `None`: a number serde_json hands as a map; odd.
                read_object::<BlockIn<'de>, _>(MapAccessDeserializer::new(map))?
                    .map(|b| Item::Block(Box::new(b)))
                    .ok_or_else(|| de::Error::custom("a number where a block was expected"))
            }
        }
        d.deserialize_any(V)
    }
}

object! {
    /// The fields of a content block any of its kinds has.
    struct BlockIn<'a> {
        kind: MaybeStr<'a> = "type",
        text: MaybeStr<'a> = "text",
        thinking: MaybeStr<'a> = "thinking",
        id: MaybeStr<'a> = "id",
        name: MaybeStr<'a> = "name",
        input: Option<Value> = "input",
        source: SourceIn<'a> = "source",
        tool_use_id: MaybeStr<'a> = "tool_use_id",
        is_error: MaybeBool = "is_error",
        content: ResultContentIn<'a> = "content",
        title: MaybeStr<'a> = "title",
    }
}

object! {
    /// An image's `source`.
    struct SourceIn<'a> {
        kind: MaybeStr<'a> = "type",
        data: MaybeStr<'a> = "data",
        media_type: MaybeStr<'a> = "media_type",
        url: MaybeStr<'a> = "url",
    }
}

object! {
    /// A part of a tool result's `content` list.
    struct PartIn<'a> {
        kind: MaybeStr<'a> = "type",
        text: MaybeStr<'a> = "text",
        source: SourceIn<'a> = "source",
    }
}

/// A tool result's `content`: text, parts, or anything else (no text).
#[derive(Default)]
enum ResultContentIn<'a> {
    #[default]
    None,
    Text(Str<'a>),
    Parts(Vec<PartIn<'a>>),
}

impl<'de> serde::Deserialize<'de> for ResultContentIn<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ResultContentIn<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(ResultContentIn::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(ResultContentIn::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(ResultContentIn::Text(Cow::Owned(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(p) = seq.next_element::<PartIn<'de>>()? {
                    parts.push(p);
                }
                Ok(ResultContentIn::Parts(parts))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(ResultContentIn::None)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(ResultContentIn::None)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(ResultContentIn::None)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(ResultContentIn::None)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(ResultContentIn::None)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(ResultContentIn::None)
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(ResultContentIn::None)
            }
        }
        d.deserialize_any(V)
    }
}

fn text<'a>(s: &MaybeStr<'a>) -> Str<'a> {
    s.0.clone().unwrap_or(Cow::Borrowed(""))
}

/// The blocks of a reply (and of a tool-result entry).
fn reply<'a>(content: ContentIn<'a>, side: SideFiles<'_>) -> Result<Vec<Block<'a>>, Odd> {
    match content {
        ContentIn::Items(items) => items.into_iter().map(|i| reply_block(i, side)).collect(),
        // A reply given as a string is one text block.
        ContentIn::Text(s) => Ok(vec![Block::Text(s)]),
        ContentIn::Null | ContentIn::Missing => Ok(Vec::new()),
    }
}

fn reply_block<'a>(item: Item<'a>, side: SideFiles<'_>) -> Result<Block<'a>, Odd> {
    let b = match item {
        Item::Text(s) => return Ok(Block::Text(s)),
        Item::Block(b) => b,
    };
    Ok(match b.kind.as_deref().unwrap_or("") {
        "text" => Block::Text(text(&b.text)),
        "thinking" => Block::Thinking(text(&b.thinking)),
        "redacted_thinking" => Block::RedactedThinking,
        "tool_use" => {
            let b = *b;
            let name = b.name.0.unwrap_or(Cow::Borrowed("tool"));
            Block::ToolUse(Box::new(call_from(b.id.0.unwrap_or_default(), name, b.input.unwrap_or(Value::Null))))
        }
        "tool_result" => Block::ToolResult(Box::new(result(&b, side))),
        "image" => Block::Image(image(&b.source)),
        // Shown whole: the tree reader keeps it.
        _ => return Err(Odd),
    })
}

/// A block of a prompt (text split into what was typed and IDE context).
fn prompt_block<'a>(item: Item<'a>, side: SideFiles<'_>) -> Result<Vec<Block<'a>>, Odd> {
    let Item::Block(b) = item else { return Err(Odd) };
    Ok(match b.kind.as_deref().unwrap_or("") {
        "text" => prompt_text(b.text.as_deref().unwrap_or("")),
        "image" => vec![Block::Image(image(&b.source))],
        "tool_result" => vec![Block::ToolResult(Box::new(result(&b, side)))],
        "document" => vec![Block::Document { title: b.title.as_deref().map(own) }],
        _ => return Err(Odd),
    })
}

fn image<'a>(s: &SourceIn<'a>) -> Image<'a> {
    match (&s.data.0, s.kind.as_deref() == Some("base64")) {
        (Some(data), true) => Image::Data { media_type: text(&s.media_type), data: data.clone() },
        _ => Image::Url(text(&s.url)),
    }
}

/// What a `tool_result` block holds (as `results::result_of` reads it).
fn result<'a>(b: &BlockIn<'a>, side: SideFiles<'_>) -> ToolOutput<'a> {
    let mut r = ToolOutput { use_id: text(&b.tool_use_id), is_error: b.is_error.0, ..ToolOutput::default() };
    let mut out: Str<'a> = match &b.content {
        ResultContentIn::Text(s) => s.clone(),
        ResultContentIn::Parts(parts) => {
            let mut texts = Vec::with_capacity(parts.len());
            for p in parts {
                match p.kind.as_deref() {
                    Some("image") => r.images.push(image(&p.source)),
                    _ => texts.push(p.text.as_deref().unwrap_or("")),
                }
            }
            Cow::Owned(texts.join("\n"))
        }
        ResultContentIn::None => Cow::Borrowed(""),
    };
    if out.contains("<tool_use_error>") {
        out = Cow::Owned(strip_tags(&out, &["tool_use_error"]));
    }
    r.spill = spill_of(&out, side);
    r.text = out;
    r
}

/// The text of a `content`: a string, or the `text` of its blocks joined by newlines.
fn text_of(content: &ContentIn<'_>) -> String {
    match content {
        ContentIn::Text(s) => s.to_string(),
        ContentIn::Items(items) => items
            .iter()
            .filter_map(|i| match i {
                Item::Block(b) => b.text.as_deref(),
                Item::Text(_) => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        ContentIn::Null | ContentIn::Missing => String::new(),
    }
}

fn user<'a>(e: &Entry, line: LineIn<'a>, tool: Option<Tool>, side: SideFiles<'_>) -> Result<Node<'a>, Odd> {
    let LineIn { content, tur } = line;
    // The detail of a call's result: only when the entry holds that one result.
    let mut detail = match (&*e.tool_results, tool) {
        ([one], Some(tool)) => Some((&*one.tool_use_id, tool, tur)),
        _ => None,
    };
    let attach = |blocks: &mut [Block<'a>], detail: Option<(&str, Tool, Option<Value>)>| {
        if let Some((id, tool, tur)) = detail {
            let found = blocks.iter_mut().find_map(|b| match b {
                Block::ToolResult(r) if r.use_id == id => Some(r),
                _ => None,
            });
            if let Some(r) = found {
                r.detail = detail_of(tool, tur, side);
            }
        }
    };
    // Results beside what an entry shows as something else (an interruption…).
    let mut results = Vec::new();
    if !matches!(e.user_kind, UserKind::Prompt | UserKind::None | UserKind::ToolResult) {
        if let ContentIn::Items(items) = &content {
            results = items
                .iter()
                .filter_map(|i| match i {
                    Item::Block(b) if b.tool_use_id.0.is_some() => Some(result(b, side)),
                    _ => None,
                })
                .collect::<Vec<ToolOutput<'a>>>();
        }
        if let Some((id, tool, tur)) = detail.take() {
            if let Some(r) = results.iter_mut().find(|r| r.use_id == id) {
                r.detail = detail_of(tool, tur, side);
            }
        }
    }
    let text = || text_of(&content);
    let content = match e.user_kind {
        UserKind::Prompt | UserKind::None => {
            let mut body = match content {
                ContentIn::Text(s) => Body::Blocks(prompt_text(&s)),
                ContentIn::Items(items) => {
                    let mut blocks = Vec::with_capacity(items.len());
                    for i in items {
                        blocks.extend(prompt_block(i, side)?);
                    }
                    Body::Blocks(blocks)
                }
                ContentIn::Missing => Body::Missing,
                ContentIn::Null => Body::Odd(Raw::null()),
            };
            if let Body::Blocks(b) = &mut body {
                attach(b, detail);
            }
            Content::Prompt(body)
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
            let mut blocks = match content {
                ContentIn::Items(items) => items.into_iter().map(|i| reply_block(i, side)).collect::<Result<_, _>>()?,
                _ => Vec::new(),
            };
            attach(&mut blocks, detail);
            Content::ToolResults(blocks)
        }
        UserKind::Meta => Content::Injected { kind: Injected::Meta, text: Cow::Owned(text()) },
        UserKind::Notification => Content::Injected { kind: Injected::Notification, text: Cow::Owned(text()) },
        UserKind::OtherMarker => Content::Injected { kind: Injected::Context, text: Cow::Owned(text()) },
    };
    Ok(Node { content, results })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::claude::content::{node_of, want};
    use crate::discover::FileId;
    use crate::json::pick::parse_only;
    use crate::parse::{Loc, parse_entry};

    const TOOLS: [Option<Tool>; 7] = [
        None,
        Some(Tool::Read),
        Some(Tool::Bash),
        Some(Tool::Edit),
        Some(Tool::Task),
        Some(Tool::Plan),
        Some(Tool::Questions),
    ];

    /// Reads `line` both ways for each tool its one result may answer:
    /// when the typed reader reads it, the node is the tree reader's.
    /// Returns how many of the reads the typed reader did.
    fn agree(line: &str) -> (usize, usize) {
        let Ok(e) = parse_entry(line, Loc { file: FileId::FIRST, line: 1 }, 0) else { return (0, 0) };
        let side = |f: &str| Some((format!("/side/{f}"), format!("the side file {f}")));
        let (mut typed, mut all) = (0, 0);
        for tool in TOOLS {
            let Some(w) = want(&e, tool) else { return (typed, all) };
            all += 1;
            let tree = node_of(&e, parse_only(line, w).unwrap(), tool, &side);
            if let Ok(n) = node(&e, line, tool, crate::adapter::claude::content::tur_want(w), &side) {
                typed += 1;
                assert_eq!(format!("{n:?}"), format!("{tree:?}"), "{line}");
            }
        }
        (typed, all)
    }

    #[test]
    fn vendored_fixtures_typed_and_tree_readers_agree() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let (mut typed, mut all) = (0, 0);
        for dir in ["tests/fixtures", "examples"] {
            for f in walkdir::WalkDir::new(root.join(dir)).sort_by_file_name().into_iter().filter_map(Result::ok) {
                if f.path().extension().is_none_or(|e| e != "jsonl") {
                    continue;
                }
                let text = String::from_utf8_lossy(&std::fs::read(f.path()).unwrap()).into_owned();
                for line in text.lines() {
                    let (t, a) = agree(line);
                    typed += t;
                    all += a;
                }
            }
        }
        // Nearly every prompt, reply and result is read typed.
        assert!(all > 10_000 && typed * 100 >= all * 95, "{typed} of {all} read typed");
    }

    fn nested(depth: usize, inner: &str) -> String {
        format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn typed_and_tree_readers_agree_on_hostile_lines() {
        let deep = nested(200, r#""x""#);
        let typed_lines = [
            // Duplicate keys, escaped keys, the last value winning.
            r#"{"type":"assistant","uuid":"a","message":{"content":"one","content":[{"type":"text","text":"a","text":"b"}]},"message":{"role":"x","content":[{"type":"text","text":"c"},{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls","command":"pwd"}}]}}"#.to_string(),
            r#"{"type":"assistant","uuid":"a","\u006dessage":{"\u0063ontent":[{"\u0074ype":"thinking","thinking":"esc\n\u00e9"}]}}"#.to_string(),
            // Numbers of any size where a string or a boolean is read, and in a tool's input.
            r#"{"type":"user","uuid":"u","message":{"content":[{"type":"tool_result","tool_use_id":1e400,"is_error":1e400,"content":[{"type":"text","text":123456789012345678901234567890},{"type":"text","text":"t"}]}]},"toolUseResult":{"stdout":1e400,"stderr":"e","interrupted":-1e400}}"#.to_string(),
            r#"{"type":"assistant","uuid":"a","message":{"content":[{"type":"tool_use","id":"t","name":"X","input":{"n":1e400,"m":-12345678901234567890123}}]}}"#.to_string(),
            // Fields of other types: read as absent.
            r#"{"type":"user","uuid":"u","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":{"a":1}},{"type":"image","source":"s"},{"type":"image","source":{"type":"base64","data":7,"url":"u"}}]},"toolUseResult":[1]}"#.to_string(),
            r#"{"type":"user","uuid":"u","message":"a string"}"#.to_string(),
            r#"{"type":"user","uuid":"u","message":{"content":null}}"#.to_string(),
            r#"{"type":"user","uuid":"u","message":{"role":"user"}}"#.to_string(),
            // Deep where nothing is read: skipped without recursion.
            format!(r#"{{"type":"assistant","uuid":"a","other":{},"message":{{"content":[{{"type":"text","text":"t","extra":{}}}]}}}}"#, nested(100_000, "1"), deep),
        ];
        for line in &typed_lines {
            let (t, a) = agree(line);
            assert!(a > 0 && t == a, "{t} of {a} typed: {line}");
        }
        // Shapes the typed reader has no type for: the tree reader reads them.
        let tree_lines = [
            r#"{"type":"user","uuid":"u","message":{"content":{"an":"object"}}}"#.to_string(),
            r#"{"type":"user","uuid":"u","message":{"content":1e400}}"#.to_string(),
            r#"{"type":"assistant","uuid":"a","message":{"content":[{"type":"server_tool_use","id":"s","input":{}}]}}"#
                .to_string(),
            r#"{"type":"assistant","uuid":"a","message":{"content":[3,null,[1]]}}"#.to_string(),
            format!(
                r#"{{"type":"assistant","uuid":"a","message":{{"content":[{{"type":"tool_use","id":"t","name":"X","input":{deep}}}]}}}}"#
            ),
        ];
        for line in &tree_lines {
            let (t, a) = agree(line);
            assert!(a > 0 && t == 0, "{t} of {a} typed: {line}");
        }
    }
}

//! Claude Code's header reader: one JSON line into the neutral
//! [`Entry`](crate::model::Entry) header the graph is built from
//! (transcript-format §2–§4). The line's text is not copied: only its
//! offset, length and hashes are kept, and a page reads it again.

use std::borrow::Cow;
use std::hash::{Hash, Hasher};

use rustc_hash::FxHasher;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::model::entry::{
    Direction, Entry, Kept, Kind, Loc, Meta, ToolResult, ToolUse, Usage, UserKind, excerpt_of, hash_bytes,
};
use crate::parse::lenient::{MaybeBool, MaybeStr, MaybeU64};
use crate::timestamp::parse_timestamp;

/// Metadata types Claude Code writes that carry no uuid (transcript-format
/// §2.4 and appendix B: seen from 2.1.330 with the conformance suite, or
/// named by the client's changelog and others' notes).
const KNOWN_META: &[&str] = &[
    "file-history-snapshot",
    "file-history-delta",
    "queue-operation",
    "agent-name",
    "agent-color",
    "agent-setting",
    "permission-mode",
    "mode",
    "pr-link",
    "tag",
    "teleported-from",
    "frame-link",
    "atis-latch",
    "tools-used",
    "api-request",
    "api-request-blob",
    "api-request-shape",
    "cost-state",
    "content-replacement",
    "relocated",
    "worktree-state",
    "task-summary",
    "attribution-snapshot",
    "bridge-session",
    "continued-in",
];

/// The `leafUuid` a rewind writes into `last-prompt`: not a node.
const ZERO_UUID: &str = "00000000-0000-0000-0000-000000000000";

/// The kind of an entry of `type` `t`.
fn kind_of(t: Option<&str>) -> Kind {
    match t {
        Some("user") => Kind::User,
        Some("assistant") => Kind::Assistant,
        Some("system") => Kind::System,
        Some("attachment") => Kind::Attachment,
        Some("progress") => Kind::Progress,
        Some("summary") => Kind::Summary,
        Some("custom-title") => Kind::CustomTitle,
        Some("ai-title") => Kind::AiTitle,
        Some("last-prompt") => Kind::LastPrompt,
        Some(t) if KNOWN_META.contains(&t) => Kind::KnownMeta(t.into()),
        Some(t) => Kind::Unknown(t.into()),
        None => Kind::Unknown("".into()),
    }
}

// ---------------------------------------------------------------------------
// Deserialization of the header (borrowed, lenient).

crate::json::object! {
    struct RawEntry<'a> {
        ty: MaybeStr<'a> = "type",
        uuid: MaybeStr<'a> = "uuid",
        parent: MaybeStr<'a> = "parentUuid",
        logical_parent: MaybeStr<'a> = "logicalParentUuid",
        session_id: MaybeStr<'a> = "sessionId",
        agent_id: MaybeStr<'a> = "agentId",
        timestamp: MaybeStr<'a> = "timestamp",
        sidechain: MaybeBool = "isSidechain",
        injected: MaybeBool = "isMeta",
        compact_summary: MaybeBool = "isCompactSummary",
        api_error: MaybeBool = "isApiErrorMessage",
        subtype: MaybeStr<'a> = "subtype",
        cwd: MaybeStr<'a> = "cwd",
        version: MaybeStr<'a> = "version",
        message: Option<&'a RawValue> = "message",
        tool_use_result: Option<&'a RawValue> = "toolUseResult",
        content: Option<&'a RawValue> = "content",
        data: Option<&'a RawValue> = "data",
        attachment: Option<&'a RawValue> = "attachment",
        summary: MaybeStr<'a> = "summary",
        leaf_uuid: MaybeStr<'a> = "leafUuid",
        custom_title: MaybeStr<'a> = "customTitle",
        ai_title: MaybeStr<'a> = "aiTitle",
        last_prompt: MaybeStr<'a> = "lastPrompt",
        cctree_fork: Option<&'a RawValue> = "cctreeFork",
        request_session_id: MaybeStr<'a> = "requestSessionId",
        forked_from: Option<&'a RawValue> = "forkedFrom",
        operation: MaybeStr<'a> = "operation",
        message_id: MaybeStr<'a> = "messageId",
        snapshot_message_id: MaybeStr<'a> = "snapshotMessageId",
        compact_metadata: Option<&'a RawValue> = "compactMetadata",
        summarize_metadata: Option<&'a RawValue> = "summarizeMetadata",
    }
}

crate::json::object! {
    struct RawCompactMetadata<'a> {
        preserved_segment: Option<&'a RawValue> = "preservedSegment",
        preserved_messages: Option<&'a RawValue> = "preservedMessages",
    }
}

crate::json::object! {
    struct RawSegment<'a> {
        head: MaybeStr<'a> = "headUuid",
        anchor: MaybeStr<'a> = "anchorUuid",
        tail: MaybeStr<'a> = "tailUuid",
        uuids: Option<&'a RawValue> = "uuids",
    }
}

crate::json::object! {
    struct RawSummarize<'a> {
        direction: MaybeStr<'a> = "direction",
    }
}

crate::json::object! {
    struct RawForkedFrom<'a> {
        session_id: MaybeStr<'a> = "sessionId",
    }
}

crate::json::object! {
    struct RawAttachment<'a> {
        ty: MaybeStr<'a> = "type",
        /// The text of a `queued_command`.
        prompt: MaybeStr<'a> = "prompt",
    }
}

crate::json::object! {
    struct RawMessage<'a> {
        id: MaybeStr<'a> = "id",
        model: MaybeStr<'a> = "model",
        stop_reason: MaybeStr<'a> = "stop_reason",
        content: RawContent<'a> = "content",
        usage: Option<RawUsage<'a>> = "usage",
    }
}

/// `message.content`: a string or an array of blocks, read in the same pass
/// as the message (anything else is ignored).
#[derive(Default)]
enum RawContent<'a> {
    #[default]
    None,
    Text(Cow<'a, str>),
    Blocks(Vec<RawBlock<'a>>),
}

impl<'de: 'a, 'a> Deserialize<'de> for RawContent<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawContent<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("message content")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(RawContent::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(RawContent::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::with_capacity(a.size_hint().unwrap_or(1));
                while let Some(b) = a.next_element::<LenientBlock<'de>>()? {
                    if let Some(b) = b.0 {
                        blocks.push(b);
                    }
                }
                Ok(RawContent::Blocks(blocks))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(RawContent::None)
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(RawContent::None)
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(RawContent::None)
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(RawContent::None)
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(RawContent::None)
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(RawContent::None)
            }
        }
        d.deserialize_any(V)
    }
}

/// A block, or nothing when the array element is not an object.
struct LenientBlock<'a>(Option<RawBlock<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for LenientBlock<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor, value::MapAccessDeserializer};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LenientBlock<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a content block")
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
                // `None` for a number serde_json hands as a map (see crate::json).
                crate::json::read_object::<RawBlock<'de>, _>(MapAccessDeserializer::new(a)).map(LenientBlock)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LenientBlock(None))
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(LenientBlock(None))
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(LenientBlock(None))
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(LenientBlock(None))
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(LenientBlock(None))
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(LenientBlock(None))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(LenientBlock(None))
            }
        }
        d.deserialize_any(V)
    }
}

crate::json::object! {
    struct RawUsage<'a> {
        input_tokens: MaybeU64 = "input_tokens",
        output_tokens: MaybeU64 = "output_tokens",
        cache_creation_input_tokens: MaybeU64 = "cache_creation_input_tokens",
        cache_read_input_tokens: MaybeU64 = "cache_read_input_tokens",
        cache_creation: Option<RawCacheCreation> = "cache_creation",
        server_tool_use: Option<RawServerToolUse> = "server_tool_use",
        /// `"fast"` in fast mode, `"standard"` otherwise (since 2.1.x).
        speed: MaybeStr<'a> = "speed",
    }
}

crate::json::object! {
    struct RawServerToolUse {
        web_search_requests: MaybeU64 = "web_search_requests",
    }
}

crate::json::object! {
    struct RawCacheCreation {
        ephemeral_5m_input_tokens: MaybeU64 = "ephemeral_5m_input_tokens",
        ephemeral_1h_input_tokens: MaybeU64 = "ephemeral_1h_input_tokens",
    }
}

crate::json::object! {
    struct RawBlock<'a> {
        ty: MaybeStr<'a> = "type",
        id: MaybeStr<'a> = "id",
        name: MaybeStr<'a> = "name",
        tool_use_id: MaybeStr<'a> = "tool_use_id",
        text: MaybeStr<'a> = "text",
        is_error: MaybeBool = "is_error",
        content: Option<&'a RawValue> = "content",
        input: Option<&'a RawValue> = "input",
    }
}

crate::json::object! {
    struct RawAgentResult<'a> {
        agent_id: MaybeStr<'a> = "agentId",
    }
}

crate::json::object! {
    struct RawProvenance<'a> {
        checkpoint: MaybeStr<'a> = "checkpoint",
    }
}

crate::json::object! {
    struct RawTaskInput<'a> {
        prompt: MaybeStr<'a> = "prompt",
    }
}

/// Parses one JSON line into an [`Entry`]. `raw` is the full, valid UTF-8 line.
pub fn parse_entry(raw: &str, loc: Loc, offset: u64) -> Result<Entry, serde_json::Error> {
    let mut r: RawEntry<'_> = serde_json::from_str(raw)?;
    let mut e = header(&mut r, raw, loc, offset);

    // Payload fingerprint: the message if any, else the other payload fields.
    let payload = r.message.or(r.content).or(r.data).or(r.attachment);
    e.payload_hash = hash_bytes(payload.map_or(&[][..], |p| p.get().as_bytes()))
        ^ hash_bytes(e.subtype.as_deref().unwrap_or("").as_bytes()).rotate_left(1);
    e.content_hash = e.payload_hash;
    read_meta(&mut e, &mut r);

    if let Some(msg) = r.message {
        read_message(&mut e, msg);
    } else if e.kind == Kind::System {
        if let Some(c) = r.content {
            if let Ok(MaybeStr(Some(s))) = serde_json::from_str::<MaybeStr<'_>>(c.get()) {
                e.excerpt = excerpt_of(&s);
            }
        }
    }
    if let (Kind::Attachment, Some(a)) = (&e.kind, r.attachment) {
        let a: RawAttachment<'_> = serde_json::from_str(a.get()).unwrap_or_default();
        e.attachment_type = a.ty.into_box();
        if let Some(p) = a.prompt.0 {
            e.text_hash = hash_bytes(p.as_bytes());
            e.excerpt = excerpt_of(&p);
        }
    }

    if e.kind == Kind::User {
        e.user_kind = classify_user(&e);
        // Only Task/Agent results name an agent: skip parsing the others.
        static AGENT_ID: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"agentId"));
        if let Some(tur) = r.tool_use_result.filter(|t| AGENT_ID.find(t.get().as_bytes()).is_some()) {
            if let Ok(a) = serde_json::from_str::<RawAgentResult<'_>>(tur.get()) {
                e.spawned_agent = a.agent_id.into_box().filter(|s| !s.is_empty());
            }
        }
    }
    Ok(e)
}

/// The envelope fields of an entry (everything but its payload).
fn header(r: &mut RawEntry<'_>, raw: &str, loc: Loc, offset: u64) -> Entry {
    let session_id = std::mem::take(&mut r.session_id).into_box();
    let forked_from = r
        .forked_from
        .and_then(|f| serde_json::from_str::<RawForkedFrom<'_>>(f.get()).ok())
        .and_then(|f| f.session_id.into_box());
    let copied_from = forked_from
        .or_else(|| std::mem::take(&mut r.request_session_id).into_box())
        .filter(|s| !s.is_empty() && Some(s) != session_id.as_ref());
    Entry {
        uuid: std::mem::take(&mut r.uuid).into_box().filter(|u| !u.is_empty()),
        parent: std::mem::take(&mut r.parent).into_box().filter(|u| !u.is_empty()),
        logical_parent: std::mem::take(&mut r.logical_parent).into_box().filter(|u| !u.is_empty()),
        session_id,
        agent_id: std::mem::take(&mut r.agent_id).into_box(),
        timestamp: r.timestamp.as_deref().and_then(parse_timestamp),
        sidechain: r.sidechain.0,
        injected: r.injected.0,
        compact_summary: r.compact_summary.0,
        api_error: r.api_error.0,
        subtype: std::mem::take(&mut r.subtype).into_box(),
        cwd: std::mem::take(&mut r.cwd).into_box(),
        version: std::mem::take(&mut r.version).into_box(),
        copied_from,
        cctree_fork: r.cctree_fork.map(|raw| {
            serde_json::from_str::<RawProvenance<'_>>(raw.get())
                .unwrap_or_default()
                .checkpoint
                .into_box()
                .unwrap_or_default()
        }),
        ..Entry::blank(raw, loc, offset, kind_of(r.ty.as_deref()))
    }
}

/// The payload of a metadata entry (titles, summaries, queue operations,
/// file-history records).
fn read_meta(e: &mut Entry, r: &mut RawEntry<'_>) {
    let take = |m: &mut MaybeStr<'_>| std::mem::take(m).into_box();
    e.meta = match &e.kind {
        Kind::Summary => {
            Some(Meta::Summary { summary: take(&mut r.summary).unwrap_or_default(), leaf_uuid: take(&mut r.leaf_uuid) })
        }
        Kind::CustomTitle => take(&mut r.custom_title).map(Meta::CustomTitle),
        Kind::AiTitle => take(&mut r.ai_title).map(Meta::AiTitle),
        Kind::LastPrompt => {
            let leaf = take(&mut r.leaf_uuid).filter(|l| !l.is_empty() && &**l != ZERO_UUID);
            let text = take(&mut r.last_prompt);
            (leaf.is_some() || text.is_some()).then_some(Meta::LastPrompt { text, leaf })
        }
        Kind::KnownMeta(t) if &**t == "queue-operation" => {
            if let Some(c) = r.content {
                if let Ok(MaybeStr(Some(s))) = serde_json::from_str::<MaybeStr<'_>>(c.get()) {
                    e.text_hash = hash_bytes(s.as_bytes());
                    e.excerpt = excerpt_of(&s);
                }
            }
            Some(Meta::Queue { operation: take(&mut r.operation).unwrap_or_default() })
        }
        Kind::KnownMeta(t) if &**t == "file-history-snapshot" => {
            take(&mut r.message_id).map(|message| Meta::FileHistory { message })
        }
        Kind::KnownMeta(t) if &**t == "file-history-delta" => {
            take(&mut r.snapshot_message_id).map(|message| Meta::FileHistory { message })
        }
        Kind::System if e.subtype.as_deref() == Some("compact_boundary") => r.compact_metadata.and_then(kept),
        Kind::User => r.summarize_metadata.and_then(|m| {
            let m: RawSummarize<'_> = serde_json::from_str(m.get()).ok()?;
            match m.direction.as_deref()? {
                "from" => Some(Meta::Summarized(Direction::From)),
                "up_to" => Some(Meta::Summarized(Direction::UpTo)),
                _ => None,
            }
        }),
        _ => None,
    };
}

/// What a boundary's `compactMetadata` says was kept, read as the client
/// reads it: `preservedMessages` when it is a well-formed list (an anchor and
/// uuids, every one a string), else `preservedSegment`.
fn kept(meta: &RawValue) -> Option<Meta> {
    fn read(v: Option<&RawValue>) -> Option<RawSegment<'_>> {
        serde_json::from_str(v?.get()).ok()
    }
    let m: RawCompactMetadata<'_> = serde_json::from_str(meta.get()).ok()?;
    let (segment, list) = (read(m.preserved_segment), read(m.preserved_messages));
    let uuids: Option<Vec<Box<str>>> = list.as_ref().and_then(|l| {
        let v: Vec<MaybeStr<'_>> = serde_json::from_str(l.uuids?.get()).ok()?;
        let v: Option<Vec<Box<str>>> = v.into_iter().map(MaybeStr::into_box).collect();
        v.filter(|v| !v.is_empty() && v.iter().all(|u| !u.is_empty()))
    });
    let (anchor, uuids) = match (uuids, list.as_ref().and_then(|l| l.anchor.as_deref())) {
        (Some(uuids), Some(anchor)) => (anchor.into(), uuids),
        _ => (segment.as_ref()?.anchor.as_deref()?.into(), Vec::new()),
    };
    let head = segment.as_ref().and_then(|s| s.head.as_deref()).map(Into::into).or_else(|| uuids.first().cloned());
    let tail = segment.as_ref().and_then(|s| s.tail.as_deref()).map(Into::into).or_else(|| uuids.last().cloned());
    Some(Meta::Kept(Box::new(Kept { anchor, head, tail, uuids })))
}

/// The `message` of a user or assistant entry.
fn read_message(e: &mut Entry, msg: &RawValue) {
    // A message that is not an object (hostile input) is ignored, not fatal.
    let m: RawMessage<'_> = serde_json::from_str(msg.get()).unwrap_or_default();
    e.message_id = m.id.into_box();
    e.model = m.model.into_box();
    e.stop_reason = m.stop_reason.into_box();
    e.usage = m.usage.map(|u| {
        let (five_min, one_hour) = u.cache_creation.map_or((0, 0), |c| {
            (c.ephemeral_5m_input_tokens.0.unwrap_or(0), c.ephemeral_1h_input_tokens.0.unwrap_or(0))
        });
        let cc = u.cache_creation_input_tokens.0.unwrap_or(0);
        Usage {
            input: u.input_tokens.0.unwrap_or(0),
            output: u.output_tokens.0.unwrap_or(0),
            cache_creation: if cc == 0 { five_min.saturating_add(one_hour) } else { cc },
            cache_read: u.cache_read_input_tokens.0.unwrap_or(0),
            cache_creation_1h: one_hour,
            web_searches: u.server_tool_use.and_then(|s| s.web_search_requests.0).unwrap_or(0),
            fast: u.speed.0.as_deref() == Some("fast"),
        }
    });
    let blocks = read_content(e, m.content);
    let mut h = FxHasher::default();
    (blocks, e.message_id.as_deref(), e.model.as_deref()).hash(&mut h);
    e.content_hash = h.finish();
}

/// Reads the content of a message: string, or array of blocks. Returns the
/// hash of its blocks in a canonical form, a plain string hashing like one
/// text block holding it.
fn read_content(e: &mut Entry, content: RawContent<'_>) -> u64 {
    let mut canon = FxHasher::default();
    let blocks = match content {
        RawContent::None => return 0,
        RawContent::Text(s) => {
            e.text_hash = hash_bytes(s.as_bytes());
            e.excerpt = excerpt_of(&super::prompt::typed_text(&s));
            ("text", e.text_hash).hash(&mut canon);
            return canon.finish();
        }
        RawContent::Blocks(blocks) => blocks,
    };
    let mut first_text: Option<Cow<'_, str>> = None;
    // The hash of the text blocks joined by newlines (equal to the hash of the
    // same text given as a plain string).
    let mut all_text: Option<String> = None;
    let mut texts = 0usize;
    for b in blocks {
        let raw = |v: Option<&RawValue>| hash_bytes(v.map_or(&[][..], |v| v.get().as_bytes()));
        if b.ty.as_deref() != Some("text") {
            (b.ty.as_deref().unwrap_or(""), raw(b.input), raw(b.content), b.id.as_deref(), b.tool_use_id.as_deref())
                .hash(&mut canon);
        }
        match b.ty.as_deref() {
            Some("text") => {
                if let Some(t) = b.text.0 {
                    ("text", hash_bytes(t.as_bytes())).hash(&mut canon);
                    let acc = all_text.get_or_insert_with(String::new);
                    if texts > 0 {
                        acc.push('\n');
                    }
                    acc.push_str(&t);
                    texts += 1;
                    // Skip IDE context (blocks, and tags before the typed
                    // words) when choosing the text that describes the entry.
                    let injected = super::prompt::only_context(&t) || t.starts_with("<system-reminder>");
                    if first_text.is_none() && !injected {
                        first_text = Some(Cow::Owned(super::prompt::typed_text(&t).into_owned()));
                    }
                }
            }
            Some("tool_use") | Some("server_tool_use") => read_tool_use(e, b),
            Some("tool_result") => {
                if let Some(id) = b.tool_use_id.into_box() {
                    if e.spawned_agent.is_none() {
                        e.spawned_agent = b.content.and_then(agent_id_in_result_text);
                    }
                    e.tool_results.push(ToolResult { tool_use_id: id, is_error: b.is_error.0 });
                }
            }
            _ => {}
        }
    }
    e.text_hash = all_text.map_or(0, |t| hash_bytes(t.as_bytes()));
    if let Some(t) = first_text {
        e.excerpt = excerpt_of(&t);
    }
    canon.finish()
}

fn read_tool_use(e: &mut Entry, b: RawBlock<'_>) {
    let name: Box<str> = b.name.into_box().unwrap_or_default();
    let prompt_hash = if matches!(&*name, "Task" | "Agent") {
        b.input
            .and_then(|i| serde_json::from_str::<RawTaskInput<'_>>(i.get()).ok())
            .and_then(|i| i.prompt.0)
            .map(|p| hash_bytes(p.as_bytes()))
    } else {
        None
    };
    if let Some(id) = b.id.into_box() {
        e.tool_uses.push(ToolUse { id, name, prompt_hash });
    }
}

/// Finds the `agentId: <id>` tail Claude Code appends to Task results (2.0.74–2.1.87).
fn agent_id_in_result_text(content: &RawValue) -> Option<Box<str>> {
    let s = content.get();
    let at = memchr::memmem::find(s.as_bytes(), b"agentId: ")?;
    let rest = &s[at + "agentId: ".len()..];
    let id: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
    (!id.is_empty()).then(|| id.into_boxed_str())
}

fn classify_user(e: &Entry) -> UserKind {
    if e.compact_summary {
        return UserKind::CompactSummary;
    }
    if e.injected {
        return UserKind::Meta;
    }
    if !e.tool_results.is_empty() && e.excerpt.is_empty() {
        return UserKind::ToolResult;
    }
    let t = e.excerpt.trim_start();
    if t.starts_with("<command-name>") || t.starts_with("<command-message>") {
        UserKind::Command
    } else if t.starts_with("<local-command-") {
        UserKind::CommandOutput
    } else if t.starts_with("<bash-input>") {
        UserKind::Bash
    } else if t.starts_with("<bash-") {
        UserKind::BashOutput
    } else if t.starts_with("[Request interrupted") {
        UserKind::Interrupt
    } else if t.starts_with("<task-notification>") || t.starts_with("<bash-notification>") {
        UserKind::Notification
    } else if t.starts_with("Caveat:") || t.starts_with("<command-") || (t.starts_with('<') && looks_like_tag(t)) {
        UserKind::OtherMarker
    } else if t.is_empty() && !e.tool_results.is_empty() {
        UserKind::ToolResult
    } else {
        UserKind::Prompt
    }
}

/// `<name>` or `<name attr…>` with an identifier-like name: an injected block,
/// not a person typing a `<` (like `<3` or `< 5`).
fn looks_like_tag(t: &str) -> bool {
    let inner = &t[1..];
    let name: &str = inner.split(|c: char| c == '>' || c.is_whitespace()).next().unwrap_or("");
    !name.is_empty()
        && name.len() < 64
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && inner.contains('>')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FileId;

    fn parse(s: &str) -> Entry {
        parse_entry(s, Loc { file: FileId::FIRST, line: 1 }, 0).unwrap()
    }

    #[test]
    fn reads_a_user_prompt() {
        let e = parse(
            r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2025-07-01T10:00:00.000Z","message":{"role":"user","content":"Hello there"}}"#,
        );
        assert_eq!(e.kind, Kind::User);
        assert_eq!(e.uuid.as_deref(), Some("u1"));
        assert_eq!(e.parent, None);
        assert_eq!(e.user_kind, UserKind::Prompt);
        assert_eq!(&*e.excerpt, "Hello there");
        assert!(e.timestamp.is_some());
    }

    /// What a call billed: the 1-hour cache writes apart from the 5-minute
    /// ones, web searches, fast mode; odd values read as absent.
    #[test]
    fn reads_what_a_call_billed() {
        let e = parse(
            r#"{"type":"assistant","uuid":"a1","message":{"id":"msg_1","model":"m","content":[],"usage":{"input_tokens":10,"output_tokens":20,"cache_creation_input_tokens":700,"cache_read_input_tokens":30,"cache_creation":{"ephemeral_1h_input_tokens":500,"ephemeral_5m_input_tokens":200},"server_tool_use":{"web_search_requests":2,"web_fetch_requests":1},"speed":"fast"}}}"#,
        );
        let u = e.usage.unwrap();
        let b = u.billed();
        assert_eq!((b.input, b.output, b.cache_read, b.cache_write_5m, b.cache_write_1h), (10, 20, 30, 200, 500));
        assert_eq!((b.web_searches, b.fast), (2, true));
        let e = parse(
            r#"{"type":"assistant","uuid":"a2","message":{"usage":{"input_tokens":1,"cache_creation_input_tokens":9,"cache_creation":{"ephemeral_1h_input_tokens":"x"},"server_tool_use":null,"speed":"standard"}}}"#,
        );
        let b = e.usage.unwrap().billed();
        assert_eq!((b.cache_write_5m, b.cache_write_1h, b.web_searches, b.fast), (9, 0, 0, false));
    }

    #[test]
    fn reads_tool_blocks_and_usage() {
        let e = parse(
            r#"{"type":"assistant","uuid":"a1","message":{"id":"msg_1","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"Task","input":{"prompt":"go"}}],"usage":{"input_tokens":3,"output_tokens":7,"cache_creation_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":4}}}}"#,
        );
        assert_eq!(e.tool_uses.len(), 1);
        assert_eq!(&*e.tool_uses[0].name, "Task");
        assert_eq!(e.tool_uses[0].prompt_hash, Some(hash_bytes(b"go")));
        assert_eq!(e.usage, Some(Usage { input: 3, output: 7, cache_creation: 4, ..Usage::default() }));
        let r = parse(
            r#"{"type":"user","uuid":"u2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"done\nagentId: a1b2c3 (for resuming)"}]}]}}"#,
        );
        assert_eq!(r.user_kind, UserKind::ToolResult);
        assert_eq!(r.spawned_agent.as_deref(), Some("a1b2c3"));
    }

    #[test]
    fn classifies_markers() {
        let k = |c: &str| {
            parse(&format!(
                r#"{{"type":"user","uuid":"x","message":{{"content":{}}}}}"#,
                serde_json::to_string(c).unwrap()
            ))
            .user_kind
        };
        assert_eq!(k("<command-name>/cost</command-name>"), UserKind::Command);
        assert_eq!(k("<local-command-stdout>x</local-command-stdout>"), UserKind::CommandOutput);
        assert_eq!(k("<bash-input>ls</bash-input>"), UserKind::Bash);
        assert_eq!(k("[Request interrupted by user]"), UserKind::Interrupt);
        assert_eq!(k("<system-reminder>x</system-reminder>"), UserKind::OtherMarker);
        assert_eq!(k("<3 this works"), UserKind::Prompt);
        assert_eq!(k("Caveat: The messages below"), UserKind::OtherMarker);
    }

    #[test]
    fn wrong_field_types_are_tolerated() {
        let e = parse(r#"{"type":"user","uuid":42,"isSidechain":"yes","sessionId":{"a":1},"message":[1,2]}"#);
        assert_eq!(e.uuid, None);
        assert!(!e.sidechain);
        assert_eq!(e.session_id, None);
    }

    #[test]
    fn reads_what_a_compaction_kept() {
        let b = parse(
            r#"{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null,"compactMetadata":{"trigger":"manual","preservedSegment":{"headUuid":"h","anchorUuid":"s","tailUuid":"t"},"preservedMessages":{"anchorUuid":"s","uuids":["h","x","t"]}}}"#,
        );
        let Some(Meta::Kept(k)) = &b.meta else { panic!("{:?}", b.meta) };
        assert_eq!((&*k.anchor, k.head.as_deref(), k.tail.as_deref()), ("s", Some("h"), Some("t")));
        assert_eq!(k.uuids.iter().map(|u| &**u).collect::<Vec<_>>(), ["h", "x", "t"]);
        // A malformed list is ignored: the segment is walked instead.
        let b = parse(
            r#"{"type":"system","subtype":"compact_boundary","uuid":"b","compactMetadata":{"preservedSegment":{"headUuid":"h","anchorUuid":"b","tailUuid":"t"},"preservedMessages":{"anchorUuid":"s","uuids":["h",3]}}}"#,
        );
        let Some(Meta::Kept(k)) = &b.meta else { panic!() };
        assert_eq!((&*k.anchor, k.uuids.len()), ("b", 0));
        let plain =
            parse(r#"{"type":"system","subtype":"compact_boundary","uuid":"b","compactMetadata":{"trigger":"auto"}}"#);
        assert!(plain.meta.is_none());
        let s = parse(
            r#"{"type":"user","uuid":"s","isCompactSummary":true,"summarizeMetadata":{"direction":"up_to"},"message":{"content":"This session"}}"#,
        );
        assert!(matches!(s.meta, Some(Meta::Summarized(Direction::UpTo))));
    }

    #[test]
    fn metadata_entries() {
        let e = parse(r#"{"type":"summary","summary":"Fixing the build","leafUuid":"l1"}"#);
        assert!(matches!(e.meta, Some(Meta::Summary { ref leaf_uuid, .. }) if leaf_uuid.as_deref() == Some("l1")));
        assert!(parse(r#"{"type":"brand-new","x":1}"#).kind.is_unknown());
        assert!(!parse(r#"{"type":"queue-operation"}"#).kind.is_unknown());
    }
}

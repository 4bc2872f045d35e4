//! The header of one transcript line or record, whichever agent wrote it
//! ([`Entry`]): a compact, client-neutral record of everything the graph
//! needs, and where the line is (offset, length, hash), so the renderer and
//! `fork` read its text again (`Project::line`). Each agent's reader fills it
//! (`crate::agent`); no generic JSON tree is kept per line.

use std::hash::{Hash, Hasher};

use rustc_hash::FxHasher;
use serde::{Deserialize, Serialize};

use crate::id::{IdVec, typed_id};
use crate::limits::EXCERPT_CHARS;
use crate::model::FileId;

typed_id!(
    /// An entry's place among its project's entries ([`Entries`]).
    pub EntryId
);

/// Every entry of a project, files in order and each file's lines in order
/// (`crate::project::Project::entries`).
pub type Entries = IdVec<EntryId, Entry>;

/// Where a line came from: its file in the project, its 1-based line number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Loc {
    pub file: FileId,
    pub line: u32,
}

/// The entry's `type`, with the kinds the graph and renderer know by name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Kind {
    User,
    Assistant,
    System,
    Attachment,
    Progress,
    Summary,
    CustomTitle,
    AiTitle,
    LastPrompt,
    /// Metadata Claude Code is known to write that the graph does not use
    /// (`file-history-snapshot`, `queue-operation`, `agent-name`, …).
    KnownMeta(Box<str>),
    /// A type not known to this version of cctree (or no `type` at all).
    Unknown(Box<str>),
}
impl Kind {
    pub fn name(&self) -> &str {
        match self {
            Kind::User => "user",
            Kind::Assistant => "assistant",
            Kind::System => "system",
            Kind::Attachment => "attachment",
            Kind::Progress => "progress",
            Kind::Summary => "summary",
            Kind::CustomTitle => "custom-title",
            Kind::AiTitle => "ai-title",
            Kind::LastPrompt => "last-prompt",
            Kind::KnownMeta(t) | Kind::Unknown(t) => t,
        }
    }

    pub fn is_unknown(&self) -> bool {
        matches!(self, Kind::Unknown(_))
    }
}

/// What a `user` entry is, from its content (transcript-format §4.2, §6.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum UserKind {
    /// Not a user entry.
    #[default]
    None,
    /// A prompt the person typed.
    Prompt,
    /// Only `tool_result` blocks.
    ToolResult,
    /// `isMeta`: injected text (caveats, skill bodies).
    Meta,
    /// `isCompactSummary`: the compaction summary.
    CompactSummary,
    /// `<command-name>` / `<command-message>`: a slash command.
    Command,
    /// `<local-command-stdout>` / `<local-command-stderr>`.
    CommandOutput,
    /// `<bash-input>`: `!` shell mode.
    Bash,
    /// `<bash-stdout>` / `<bash-stderr>`.
    BashOutput,
    /// `[Request interrupted by user…]`.
    Interrupt,
    /// `<task-notification>` / `<bash-notification>`.
    Notification,
    /// Another marker: `Caveat:` or an injected `<tag>` such as `<system-reminder>`.
    OtherMarker,
}

impl UserKind {
    /// A typed prompt per §6.2 (markers such as `<system-reminder>` excluded too).
    pub fn is_prompt(self) -> bool {
        self == UserKind::Prompt
    }
    /// A command child per §6.2 (the `system`/`local_command` case is checked on the entry).
    pub fn is_command(self) -> bool {
        matches!(self, UserKind::Command | UserKind::Bash)
    }
}

/// One `tool_use` block of an assistant entry.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ToolUse {
    pub id: Box<str>,
    pub name: Box<str>,
    /// Hash of `input.prompt` for `Task`/`Agent` calls (last-resort agent linking).
    pub prompt_hash: Option<u64>,
}

/// One `tool_result` block of a user entry.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ToolResult {
    pub tool_use_id: Box<str>,
    pub is_error: bool,
}

/// Token usage of an assistant entry: fresh input (neither read from the
/// prompt cache nor written to it), output, cache writes (all of them, and
/// of those the ones kept an hour), cache reads, server-side web searches,
/// and whether the call ran in fast mode (billed at a premium).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_creation: u64,
    pub cache_read: u64,
    /// Of `cache_creation`, the tokens written with the one-hour lifetime
    /// (`cache_creation.ephemeral_1h_input_tokens`); the rest are 5-minute.
    pub cache_creation_1h: u64,
    pub web_searches: u64,
    pub fast: bool,
}

impl Usage {
    /// What the call billed, as the price table counts it.
    pub fn billed(&self) -> crate::cost::Billed {
        let one_hour = self.cache_creation_1h.min(self.cache_creation);
        crate::cost::Billed {
            input: self.input,
            output: self.output,
            cache_read: self.cache_read,
            cache_write_5m: self.cache_creation - one_hour,
            cache_write_1h: one_hour,
            web_searches: self.web_searches,
            fast: self.fast,
        }
    }
}

/// Metadata payloads keyed by leaf, session or message.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Meta {
    Summary {
        summary: Box<str>,
        leaf_uuid: Option<Box<str>>,
    },
    CustomTitle(Box<str>),
    AiTitle(Box<str>),
    /// `last-prompt`: the prompt's text (stale in client fork copies) and,
    /// since 2.1.330, the session's leaf (`leafUuid`; the all-zero uuid a
    /// rewind writes is dropped here: it names no leaf).
    LastPrompt {
        text: Option<Box<str>>,
        leaf: Option<Box<str>>,
    },
    /// `queue-operation`: `enqueue`, `dequeue`, `remove`, `popAll`; the
    /// queued text is the entry's excerpt (`text_hash` is its hash).
    Queue {
        operation: Box<str>,
    },
    /// `file-history-snapshot` (`messageId`) or `file-history-delta`
    /// (`snapshotMessageId`): the prompt whose code checkpoint it records.
    FileHistory {
        message: Box<str>,
    },
    /// A `compact_boundary` that kept messages verbatim
    /// (`compactMetadata.preservedMessages` / `preservedSegment`).
    Kept(Box<Kept>),
    /// A compaction summary written by the rewind menu's "Summarize from
    /// here" / "Summarize up to here" (`summarizeMetadata.direction`).
    Summarized(Direction),
    /// A list of the session's records set whole (Gemini CLI's `$set
    /// {messages}`): each id with the hash of its record, and (filled in by
    /// the agent's link) the ids the list brings that no earlier line of its
    /// file had: what a node made of the line shows.
    Sequence {
        ids: Vec<(Box<str>, u64)>,
        new: Vec<Box<str>>,
    },
    /// A session's first record, naming the group of sessions it belongs to
    /// when it has one (Codex CLI's `session_meta`: its `session_id`).
    SessionStart {
        group: Option<Box<str>>,
    },
    /// The history goes back by `turns` turns (Codex CLI's
    /// `thread_rolled_back`; `None` when the count is not a whole number).
    Rollback {
        turns: Option<u64>,
    },
    /// The history goes back to just before the record `to` (Gemini CLI's
    /// `$rewindTo`; empty when it names none).
    Rewind {
        to: Box<str>,
    },
    /// A turn of the agent started or completed (Codex CLI's
    /// `task_started` / `task_complete`): where a fork may cut.
    Turn(TurnMark),
    /// A sub-agent started by the call `call` (its thread in
    /// [`Entry::spawned_agent`]).
    AgentStarted {
        call: Box<str>,
    },
    /// A summary the client wrote of a branch the conversation came back
    /// from, where the branch it goes on with starts (Pi's `/tree`
    /// "Summarize"): a future of its parent, as a prompt is, though nobody
    /// typed it (not a prompt, not a message).
    BranchSummary,
}

/// Which end of an agent's turn a line marks ([`Meta::Turn`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TurnMark {
    Started,
    Completed,
}

/// What a boundary kept and which way a partial summary went: types of
/// the model, read here with the line's header (the graph places them).
pub use super::compaction::{Direction, Kept};

/// A parsed transcript line.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    pub loc: Loc,
    /// Byte offset of the line in its file, and its length without the newline
    /// (for byte-identical copies).
    pub offset: u64,
    pub len: u32,
    pub kind: Kind,
    pub uuid: Option<Box<str>>,
    pub parent: Option<Box<str>>,
    pub logical_parent: Option<Box<str>>,
    pub session_id: Option<Box<str>>,
    pub agent_id: Option<Box<str>>,
    pub timestamp: Option<i64>,
    pub sidechain: bool,
    pub injected: bool,
    pub compact_summary: bool,
    pub api_error: bool,
    pub subtype: Option<Box<str>>,
    pub cwd: Option<Box<str>>,
    pub version: Option<Box<str>>,
    pub message_id: Option<Box<str>>,
    pub model: Option<Box<str>>,
    pub stop_reason: Option<Box<str>>,
    pub usage: Option<Usage>,
    pub user_kind: UserKind,
    pub tool_uses: Vec<ToolUse>,
    pub tool_results: Vec<ToolResult>,
    /// The agent a `Task`/`Agent` result says it spawned (`toolUseResult.agentId`,
    /// or an `agentId: …` line in the result text).
    pub spawned_agent: Option<Box<str>>,
    /// Hash of the prompt text of a user entry (agent linking, replay detection).
    pub text_hash: u64,
    /// The first characters of the entry's text (titles, excerpts).
    pub excerpt: Box<str>,
    /// Hash of the entry's payload (`message`, or `content`/`data`/`attachment`):
    /// equal payloads are equivalent copies (§6.2).
    pub payload_hash: u64,
    /// Hash of what a reader sees of the payload: the message's content with
    /// a plain string and one text block hashing alike, its id and model
    /// (else `payload_hash`). Copies that differ here conflict (P1).
    pub content_hash: u64,
    /// The session this entry was copied from, when the entry says so:
    /// `forkedFrom.sessionId` (`/branch`) or an assistant's
    /// `requestSessionId` naming another session (`--fork-session`, `/branch`).
    pub copied_from: Option<Box<str>>,
    /// `attachment.type` of an `attachment` entry.
    pub attachment_type: Option<Box<str>>,
    pub meta: Option<Meta>,
    /// The provenance record of a fork written by `cctree fork`: its
    /// checkpoint uuid (empty when the record names none).
    pub cctree_fork: Option<Box<str>>,
    /// The line's JSON text when it differs from the bytes on disk (invalid
    /// UTF-8, lone surrogates or secrets replaced); otherwise the text is read
    /// from the file at `offset..offset + len` (see `Project::raw`).
    pub repaired: Option<Box<str>>,
    /// Hash of the line's text: a position-free tie-breaker between copies.
    pub line_hash: u64,
}

impl Entry {
    /// An entry of line `raw` that says nothing yet: what each client's
    /// reader (Claude Code's `header` below, [`crate::adapter`]) fills in.
    pub(crate) fn blank(raw: &str, loc: Loc, offset: u64, kind: Kind) -> Entry {
        Entry {
            loc,
            offset,
            // A line of 4 GiB or more (one window) keeps `u32::MAX`: reading it
            // again then fails its hash check, a warning naming it.
            len: u32::try_from(raw.len()).unwrap_or(u32::MAX),
            kind,
            uuid: None,
            parent: None,
            logical_parent: None,
            session_id: None,
            agent_id: None,
            timestamp: None,
            sidechain: false,
            injected: false,
            compact_summary: false,
            api_error: false,
            subtype: None,
            cwd: None,
            version: None,
            message_id: None,
            model: None,
            stop_reason: None,
            usage: None,
            user_kind: UserKind::None,
            tool_uses: Vec::new(),
            tool_results: Vec::new(),
            spawned_agent: None,
            text_hash: 0,
            excerpt: "".into(),
            payload_hash: 0,
            content_hash: 0,
            copied_from: None,
            attachment_type: None,
            meta: None,
            cctree_fork: None,
            repaired: None,
            line_hash: hash_bytes(raw.as_bytes()),
        }
    }

    pub fn is_node(&self) -> bool {
        self.uuid.is_some()
    }

    /// `system` with the given subtype.
    pub fn is_system(&self, subtype: &str) -> bool {
        self.kind == Kind::System && self.subtype.as_deref() == Some(subtype)
    }

    pub fn is_compact_boundary(&self) -> bool {
        self.is_system("compact_boundary")
    }

    /// A non-synthetic assistant entry (§6.2 "reply").
    pub fn is_reply(&self) -> bool {
        self.kind == Kind::Assistant && self.model.as_deref() != Some("<synthetic>")
    }

    /// A typed prompt, `tool_result` or reply (§6.2 "conversational").
    pub fn is_conversational(&self) -> bool {
        self.is_reply() || matches!(self.user_kind, UserKind::Prompt | UserKind::ToolResult)
    }

    /// A command child (§6.2): `system`/`local_command`, or a slash/bash user entry.
    pub fn is_command(&self) -> bool {
        self.is_system("local_command") || self.user_kind.is_command()
    }

    /// A message a person reads: a prompt, slash command or `!` command, or an
    /// assistant entry (count assistant turns, not entries: see `message_id`).
    pub fn is_message(&self) -> bool {
        match self.kind {
            Kind::Assistant => true,
            Kind::User => matches!(self.user_kind, UserKind::Prompt | UserKind::Command | UserKind::Bash),
            Kind::Attachment => self.is_queued_command(),
            _ => false,
        }
    }

    /// A `queued_command` attachment: a message typed while Claude worked,
    /// delivered inside the running turn (2.1.330).
    pub fn is_queued_command(&self) -> bool {
        self.kind == Kind::Attachment && self.attachment_type.as_deref() == Some("queued_command")
    }
}

pub fn hash_bytes(b: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    b.hash(&mut h);
    h.finish()
}

/// The first [`EXCERPT_CHARS`] characters of `s`, trimmed.
pub fn excerpt_of(s: &str) -> Box<str> {
    let s = s.trim();
    match s.char_indices().nth(EXCERPT_CHARS) {
        Some((i, _)) => s[..i].into(),
        None => s.into(),
    }
}

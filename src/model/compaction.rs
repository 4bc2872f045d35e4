//! Compactions (transcript-format §5.7): what a boundary line says
//! ([`Compaction`], read when a page shows it), what it kept verbatim
//! ([`Kept`]) and which way a partial summary went ([`Direction`]) — both
//! read with the line's header, as the graph needs them to place the kept
//! messages — and the kind the graph gives each compaction from those
//! ([`CompactionKind`]).

use serde::{Deserialize, Serialize};

use super::Str;

/// A compaction boundary, as its line says it.
#[derive(Debug, Clone, Default)]
pub struct Compaction<'a> {
    /// A microcompaction (old tool results cleared, the chain goes on),
    /// not a summary.
    pub micro: bool,
    /// What triggered it (`auto`, `manual`), as the client wrote it.
    pub trigger: Str<'a>,
    /// Tokens of the context it compacted.
    pub pre_tokens: Option<u64>,
    /// Tokens a microcompaction saved.
    pub saved: Option<u64>,
}

/// What a compaction summarized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CompactionKind {
    /// `/compact` or an automatic compaction: everything before it (it may
    /// keep the last messages verbatim, after the summary).
    Full,
    /// The rewind menu's "Summarize from here": the chosen message and what
    /// followed; the messages before it are kept, and the turns summarized
    /// stay on a branch beside the line.
    From,
    /// The rewind menu's "Summarize up to here": what came before the chosen
    /// message; it and what followed are kept, after the summary.
    UpTo,
    /// A `microcompact_boundary` (2.1.9–2.1.22): old tool results cleared,
    /// the chain goes on.
    Micro,
}

impl CompactionKind {
    /// Its name in `stats` and in page markup.
    pub fn name(self) -> &'static str {
        match self {
            CompactionKind::Full => "full",
            CompactionKind::From => "from",
            CompactionKind::UpTo => "up_to",
            CompactionKind::Micro => "micro",
        }
    }
}

/// Which part of the conversation a partial compaction summarized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Direction {
    /// "Summarize from here": the chosen message and what follows; what came
    /// before it is kept, before the summary.
    From,
    /// "Summarize up to here": what came before the chosen message; it and
    /// what follows are kept, after the summary.
    UpTo,
}

/// The messages a compaction kept verbatim, as its boundary names them
/// (observed on 2.1.332, transcript-format §5.7). The client puts them right
/// after `anchor` (the summary, or the boundary itself for "Summarize from
/// here") when it loads the session, and what hung from `anchor` after them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kept {
    pub anchor: Box<str>,
    /// The first and last kept message (the client walks the parents from
    /// the tail to the head when no list is given).
    pub head: Option<Box<str>>,
    pub tail: Option<Box<str>>,
    /// Every kept message in order (the client chains them in this order
    /// when given; empty when absent or malformed).
    pub uuids: Vec<Box<str>>,
}

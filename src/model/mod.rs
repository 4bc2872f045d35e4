//! The transcript model: what an entry of any client's transcript says, as
//! types. Between the readers and everything that shows a transcript.
//!
//! ```text
//!  client files ──▶ adapter (one per client) ──▶ Entry headers ──▶ graph (ids, parents, copies, forks)
//!                       │                                               │
//!                       └── on demand, from an entry's bytes ──▶ Content ┴──▶ render, export, search
//! ```
//!
//! A reader ([`crate::adapter`]) turns each line of a client's files into an
//! [`Entry`](crate::model::Entry) header (what the graph needs: ids,
//! parents, session, kind, tool ids, an excerpt, hashes of its bytes) and,
//! when a page shows the entry, its [`Content`]: a prompt, a reply, tool
//! results, a command, a compaction… each with typed parts — text, thinking,
//! images, tool calls with typed inputs ([`ToolInput`]) and their results
//! ([`ToolOutput`]). What has no type is kept as written ([`Raw`]), never
//! lost, shown as JSON. Memory follows what is shown: the graph keeps
//! headers, and a page's content is read from its entries' bytes while the
//! page is rendered ([`crate::project::Project::content`]).
//!
//! Nothing here knows a client's JSON, and nothing after the readers knows
//! anything else: a view matches on these types, once each.
//!
//! Strings are `Cow<'a, str>` of the line they come from (`'a`): a reader may
//! borrow them from the line where they hold no escapes.

pub mod client;
pub mod compaction;
pub mod entry;
pub mod raw;
pub mod recovered;
pub mod source;
pub mod tool;
pub mod usage;

use std::borrow::Cow;

pub use client::{AgentMeta, AsLines, Client, ForkBy, Lines, ProjectSource, Read, Reader, SourceFile, fork_command};
pub use compaction::{Compaction, CompactionKind, Direction, Kept};
pub use entry::{
    Entries, Entry, EntryId, Kind, Loc, Meta, ToolResult, ToolUse, TurnMark, Usage, UserKind, excerpt_of, hash_bytes,
};
pub use raw::{Loose, Raw};
pub use recovered::{PromptLog, RecoveredPrompt, RecoveredSession};
pub use source::{FileClass, FileId};
pub use tool::{
    Hunk, Message, PatchFile, PatchOp, Question, QuestionOption, ResultDetail, Shell, Spill, Spilled, TaskFields,
    TaskInput, Todo, ToolCall, ToolInput, ToolOutput,
};
pub use usage::Tokens;

/// A string of the model (see the module documentation).
pub type Str<'a> = Cow<'a, str>;

/// One entry as a reader sees it: what it says, and the results of tool
/// calls it holds beside that (a result recorded with an interruption).
#[derive(Debug, Clone)]
pub struct Node<'a> {
    pub content: Content<'a>,
    /// Tool results the content does not show.
    pub results: Vec<ToolOutput<'a>>,
}

impl<'a> Node<'a> {
    /// The result of call `id` the entry holds.
    pub fn tool_result(&self, id: &str) -> Option<&ToolOutput<'a>> {
        self.content.tool_result(id).or_else(|| self.results.iter().find(|r| r.use_id == id))
    }

    /// Every result the entry holds with its place ([`Node::result_at`]),
    /// in the order [`Node::tool_result`] looks: the content's, then the
    /// others. An index of a reply of thousands of calls is built from it
    /// once, not searched once per call.
    pub fn result_places(&self) -> impl Iterator<Item = (usize, &ToolOutput<'a>)> {
        let blocks = self.content.result_blocks();
        let shown = blocks.iter().enumerate().filter_map(|(i, b)| match b {
            Block::ToolResult(r) => Some((i, &**r)),
            _ => None,
        });
        shown.chain(self.results.iter().enumerate().map(move |(i, r)| (blocks.len() + i, r)))
    }

    /// The result at `at`, a place [`Node::result_places`] gave.
    pub fn result_at(&self, at: usize) -> Option<&ToolOutput<'a>> {
        let blocks = self.content.result_blocks();
        match blocks.get(at) {
            Some(Block::ToolResult(r)) => Some(&**r),
            Some(_) => None,
            None => self.results.get(at - blocks.len()),
        }
    }
}

/// What one entry says.
#[derive(Debug, Clone)]
pub enum Content<'a> {
    /// A reply of the model: its blocks in order (a reply streamed as
    /// several entries is one turn of several `Reply`s).
    Reply(Vec<Block<'a>>),
    /// What the person typed (or an agent was asked), with what the client
    /// attached.
    Prompt(Body<'a>),
    /// Results of tool calls sent back to the model ([`Block::ToolResult`]s,
    /// with whatever else the client sent along).
    ToolResults(Vec<Block<'a>>),
    /// A slash command as typed: `/name args`.
    Command { name: Str<'a>, args: Str<'a> },
    /// What a slash command printed.
    CommandOutput(Str<'a>),
    /// A shell command the person ran themselves (`! cmd`).
    Shell(Str<'a>),
    /// What it printed.
    ShellOutput(Str<'a>),
    /// The person stopped the model.
    Interrupt(Str<'a>),
    /// The summary a compaction wrote, which the conversation continues from.
    CompactSummary(Str<'a>),
    /// Text the client put in the conversation on the person's behalf.
    Injected { kind: Injected, text: Str<'a> },
    /// Where the conversation was compacted (or microcompacted).
    Compaction(Compaction<'a>),
    /// How long a turn took.
    TurnDuration { ms: f64 },
    /// A message typed while the model worked (delivered within the turn,
    /// or queued and never sent).
    Queued(Str<'a>),
    /// Something the client noted (a system message): its kind, its text, all of it.
    Note(Note<'a>),
    /// Something the client attached (a hook's run…): its kind, all of it.
    Attachment(Attachment<'a>),
    /// An entry of a kind the model does not know: the kind of its data, all of it.
    Other { data_kind: Option<Str<'a>>, raw: Raw<'a> },
}

/// The body of a prompt.
#[derive(Debug, Clone)]
pub enum Body<'a> {
    Blocks(Vec<Block<'a>>),
    /// Something that is neither text nor blocks.
    Odd(Raw<'a>),
    /// No content at all.
    Missing,
}

/// What injected text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Injected {
    /// The client's own text (a skill's body, a caveat).
    Meta,
    /// A background task or shell finished.
    Notification,
    /// Context such as a reminder.
    Context,
}

/// A block of a message.
#[derive(Debug, Clone)]
pub enum Block<'a> {
    /// Text (Markdown).
    Text(Str<'a>),
    /// Context the IDE attached to a prompt: `opened file`, `selection`…, the
    /// name it gives (a terminal's), and its text.
    Context {
        label: &'static str,
        name: Option<Str<'a>>,
        text: Str<'a>,
    },
    /// The model's thinking (empty: not recorded).
    Thinking(Str<'a>),
    /// Thinking the client keeps encrypted.
    RedactedThinking,
    Image(Image<'a>),
    /// An attached document, by title.
    Document {
        title: Option<Str<'a>>,
    },
    ToolUse(Box<ToolCall<'a>>),
    /// A tool's result shown where it is (its call is elsewhere or missing).
    ToolResult(Box<ToolOutput<'a>>),
    /// A block of a kind the model does not know (`kind`: its type, maybe
    /// empty), as written.
    Unknown {
        kind: Str<'a>,
        raw: Raw<'a>,
    },
}

/// An image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Image<'a> {
    /// Its bytes, in base64.
    Data { media_type: Str<'a>, data: Str<'a> },
    /// Where it is (empty when the client wrote neither).
    Url(Str<'a>),
}

/// A system message of the client.
#[derive(Debug, Clone)]
pub struct Note<'a> {
    /// Its subtype (`api_error`, `informational`…).
    pub kind: Str<'a>,
    pub text: Str<'a>,
    pub is_error: bool,
    pub raw: Raw<'a>,
}

/// An attachment the client wrote.
#[derive(Debug, Clone)]
pub struct Attachment<'a> {
    /// Its type (`hook_success`, …; `attachment` when it names none).
    pub kind: Str<'a>,
    /// The hook it records, if it is a hook's run.
    pub hook: Option<Hook<'a>>,
    /// The attachment as written (the whole entry when it holds none).
    pub raw: Raw<'a>,
}

/// A hook that ran.
#[derive(Debug, Clone, Default)]
pub struct Hook<'a> {
    pub name: Str<'a>,
    pub command: Str<'a>,
    /// Its exit code, as written (JSON).
    pub exit: Option<String>,
    /// What it printed (stdout, then stderr).
    pub output: String,
}

impl<'a> Content<'a> {
    /// The tool calls among a reply's blocks.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall<'a>> {
        let blocks = match self {
            Content::Reply(b) => b.as_slice(),
            _ => &[],
        };
        blocks.iter().filter_map(|b| match b {
            Block::ToolUse(c) => Some(&**c),
            _ => None,
        })
    }

    /// The result of call `id` among an entry's tool results.
    pub fn tool_result(&self, id: &str) -> Option<&ToolOutput<'a>> {
        self.result_blocks().iter().find_map(|b| match b {
            Block::ToolResult(r) if r.use_id == id => Some(&**r),
            _ => None,
        })
    }

    /// The blocks that may hold tool results.
    fn result_blocks(&self) -> &[Block<'a>] {
        match self {
            Content::ToolResults(b) | Content::Prompt(Body::Blocks(b)) | Content::Reply(b) => b,
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(id: &str, text: &str) -> ToolOutput<'static> {
        ToolOutput { use_id: Cow::Owned(id.into()), text: Cow::Owned(text.into()), ..ToolOutput::default() }
    }

    #[test]
    fn a_result_found_by_its_place_is_the_one_found_by_its_call() {
        // Results among other blocks, one id twice (the first wins), and
        // results beside the content (found after the content's).
        let mut blocks = vec![Block::Text(Cow::Borrowed("before"))];
        blocks.extend((0..40).map(|i| Block::ToolResult(Box::new(output(&format!("c{i}"), &format!("r{i}"))))));
        blocks.push(Block::ToolResult(Box::new(output("c7", "again"))));
        let node = Node {
            content: Content::ToolResults(blocks),
            results: vec![output("c7", "beside"), output("late", "beside")],
        };
        let places: Vec<(usize, &ToolOutput<'_>)> = node.result_places().collect();
        assert_eq!(places.len(), 43);
        for id in (0..40).map(|i| format!("c{i}")).chain(["late".to_string()]) {
            let first = places.iter().find(|(_, r)| r.use_id == id.as_str()).map(|&(at, _)| at).unwrap();
            let by_place = node.result_at(first).unwrap();
            let by_call = node.tool_result(&id).unwrap();
            assert!(std::ptr::eq(by_place, by_call), "{id}");
        }
        assert_eq!(node.result_at(places[6].0).unwrap().text, "r6");
        assert_eq!(node.tool_result("c7").unwrap().text, "r7");
        assert_eq!(node.result_at(0).map(|r| &*r.text), None, "a text block is no result");
        assert!(node.result_at(100).is_none());
    }
}

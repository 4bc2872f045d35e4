//! Graph stage: the entries of one project → its conversation DAG.
//!
//! Pure and index-based: no I/O, no HTML. Relations are stored as typed ids
//! ([`NodeId`], [`SessionId`], [`ConversationId`], [`BranchId`], [`AgentId`],
//! and [`EntryId`] for the project's entries; see [`crate::id`]), never as
//! references, and each list is an [`IdVec`] indexed by its own kind of id.
//! Node ids are assigned in uuid order, so nothing here depends on the order
//! of lines or files (transcript-format §6.4).
//!
//! ```text
//!  entries (every parsed line, any order)
//!     │ dedupe by uuid: one canonical instance + aliases (§5.4)
//!     ▼
//!  nodes ──parent──▶ node      physical `parentUuid`, or a join:
//!     │                         compaction boundary → `logicalParentUuid` (§5.7)
//!     │                         cycles cut, dangling parents become roots (§8)
//!     ▼
//!  main forest (non-sidechain)             agents (sidechain nodes by agentId)
//!     │ each root → one Conversation          each → one Agent, linked to the
//!     │ multi-child nodes classified (§6):    Task/Agent call that spawned it
//!     │   fork point | junction | artifact
//!     ▼
//!  branches: the run from the root or a fork child to a leaf,
//!            linearized by (timestamp, uuid) topological order
//! ```

mod forks;
mod link;
mod queries;
mod queue;
mod titles;
mod tracks;

use rustc_hash::FxHashMap;

use crate::id::{IdVec, typed_id};
use crate::model::{AgentMeta, FileClass, FileId};
use crate::model::{Entries, Entry, EntryId};

pub use crate::model::CompactionKind;
pub use forks::ChildRole;
pub use queries::Walk;

typed_id!(
    /// A node: a canonical instance of a uuid ([`Graph::nodes`]).
    pub NodeId
);
typed_id!(
    /// A session's place in [`Graph::sessions`] (its `sessionId` string is
    /// [`Session::session_id`]).
    pub SessionId
);
typed_id!(
    /// A conversation ([`Graph::conversations`]).
    pub ConversationId
);
typed_id!(
    /// A branch of a conversation ([`Graph::branches`]).
    pub BranchId
);
typed_id!(
    /// A sidechain transcript's place in [`Graph::agents`] (its `agentId`
    /// string is [`Agent::agent_id`]).
    pub AgentId
);

/// How a node hangs from its tree parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// `parentUuid` is null (or absent).
    Root,
    /// `parentUuid` resolved.
    Physical,
    /// `parentUuid` names a uuid found nowhere in the project: a root.
    Dangling,
    /// Its parent pointer was cut to break a cycle: a root.
    CycleCut,
    /// A compaction root joined to its `logicalParentUuid`.
    Compaction,
    /// A compaction root whose logical parent is missing (or a 1.0.x summary
    /// root), joined after the preceding node of its session in time.
    CompactionByTime,
    /// A message a compaction kept verbatim, or what followed its summary,
    /// put where the client puts them when it loads the session (after the
    /// summary, in the kept order; [`Splice`]).
    Spliced,
}

impl Link {
    pub fn is_join(self) -> bool {
        matches!(self, Link::Compaction | Link::CompactionByTime)
    }
}

/// One node of the graph.
#[derive(Debug, Clone)]
pub struct Node {
    /// The canonical entry.
    pub entry: EntryId,
    /// Tree parent (after joins and cycle breaking).
    pub parent: Option<NodeId>,
    pub link: Link,
    /// The session of the canonical instance's `sessionId`.
    pub session: SessionId,
    /// A sidechain node (sub-agent, side agent, Warmup): not part of conversations.
    pub sidechain: bool,
    /// Timestamp, or the parent's when missing (0 for a root without one).
    pub ts: i64,
    /// Conversation and branch of a main node; agent of a sidechain node
    /// (`None` for the others, and before they are assigned).
    pub conversation: Option<ConversationId>,
    pub branch: Option<BranchId>,
    pub agent: Option<AgentId>,
    /// For a compaction (a boundary, a 1.0.x summary root, a
    /// `microcompact_boundary`): its kind.
    pub compaction: Option<CompactionKind>,
}

/// A compaction that kept messages, as the graph placed them: where the
/// client puts them when it loads the session (observed on 2.1.332,
/// transcript-format §5.7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Splice {
    /// The `compact_boundary`.
    pub boundary: NodeId,
    /// The node the kept messages follow: the summary, or the boundary itself
    /// ("Summarize from here", [`Splice::before`]).
    pub anchor: NodeId,
    /// The kept messages in the client's order (its list, or the chain from
    /// the tail up to the head). The first one's tree parent is `anchor`
    /// (unless [`Splice::before`]); the others hang where they were written
    /// (the client chains them in their order, the order they were written
    /// in).
    pub kept: Vec<NodeId>,
    /// The kept messages come before the boundary, which is joined after the
    /// last of them (the same order of messages as the client's boundary →
    /// kept → summary).
    pub before: bool,
}

/// Why a node hangs where it does after a [`Splice`] ([`Graph::splice_links`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpliceLink {
    /// The first kept message, moved after the anchor.
    Kept,
    /// What hung from the anchor, moved after the last kept message.
    AfterKept,
    /// A "Summarize from here" boundary, joined after the last kept message.
    Boundary,
}

/// A `sessionId` and what is known about it.
#[derive(Debug, Clone, Default)]
pub struct Session {
    /// Its `sessionId`.
    pub session_id: Box<str>,
    pub first_ts: Option<i64>,
    pub last_ts: Option<i64>,
    pub custom_title: Option<Box<str>>,
    pub ai_title: Option<Box<str>>,
    pub last_prompt: Option<Box<str>>,
    /// For a session written by `cctree fork`: the checkpoint it copies up to.
    pub fork_of: Option<NodeId>,
    /// The sessions it copied entries from (`--fork-session`, `/branch`).
    pub copied_from: Vec<SessionId>,
    /// The leaf its `last-prompt` names (`leafUuid`, the last one in its file).
    pub leaf: Option<NodeId>,
}

impl Session {
    /// A copy of another session's conversation (by the client or by `cctree fork`).
    pub fn is_copy(&self) -> bool {
        !self.copied_from.is_empty() || self.fork_of.is_some()
    }
}

/// Why a fork point is one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForkKind {
    /// Typed prompts under one parent at different times (§6.3 rule 9).
    Rewind,
    /// A later child belongs to another session (§6.3 rule 2).
    CrossSession,
    /// A compaction goes on beside the turns it summarized ("Summarize from
    /// here"): not a rewind.
    Compaction,
}

impl ForkKind {
    /// Its name in `stats`.
    pub fn name(self) -> &'static str {
        match self {
            ForkKind::Rewind => "rewind",
            ForkKind::CrossSession => "cross-session",
            ForkKind::Compaction => "compaction",
        }
    }
}

/// A real fork: a node whose children start different user-initiated futures.
#[derive(Debug, Clone)]
pub struct ForkPoint {
    pub node: NodeId,
    pub kind: ForkKind,
    /// The children that start a future, by time: the first continues the
    /// parent's branch, each later one starts a branch.
    pub children: Vec<NodeId>,
    /// For each child, the first words a person reads on its way: the first
    /// prompt, command or queued message from it on (else the first reply),
    /// never context attachments or the client's synthetic notices.
    pub labels: Vec<Box<str>>,
    /// The branch holding `node`.
    pub branch: BranchId,
}

/// A run of nodes from a fork child (or the root) to a leaf.
#[derive(Debug, Clone)]
pub struct Branch {
    pub conversation: ConversationId,
    /// The first node: the conversation root, or a fork child.
    pub first: NodeId,
    /// The fork point it leaves from (`None` for the main branch).
    pub fork_point: Option<NodeId>,
    /// The branch the fork point is on.
    pub parent_branch: Option<BranchId>,
    /// Nesting depth: 0 for the main branch.
    pub depth: u32,
    /// Its nodes in display order (topological, by time).
    pub nodes: Vec<NodeId>,
    /// The leaf that ends it: the latest leaf of its nodes.
    pub leaf: NodeId,
    /// Messages a person reads (prompts and assistant turns).
    pub messages: u32,
    /// The summary attached to one of its nodes, if any.
    pub summary: Option<Box<str>>,
    /// Title: its summary, else its first typed prompt.
    pub title: Box<str>,
    /// Timestamp of its latest node.
    pub last_ts: i64,
    /// Session of its first node.
    pub session: SessionId,
}

/// One connected tree of main nodes after joins.
#[derive(Debug, Clone)]
pub struct Conversation {
    pub root: NodeId,
    /// Its branches; the first is the main branch.
    pub branches: Vec<BranchId>,
    /// Fork points in the order they appear (main branch first, then by branch).
    pub fork_points: Vec<ForkPoint>,
    /// Sessions whose nodes it holds, by first timestamp.
    pub sessions: Vec<SessionId>,
    pub title: Box<str>,
    /// Where the title came from.
    pub title_source: TitleSource,
    /// The first meaningful prompt, if any.
    pub first_prompt: Option<Box<str>>,
    /// The branch holding the active leaf.
    pub active_branch: BranchId,
    pub first_ts: i64,
    pub last_ts: i64,
    /// Total messages over all branches.
    pub messages: u32,
    /// No prompt or reply at all (only hooks, commands, metadata).
    pub is_fragment: bool,
    /// Where other sessions join this conversation, by time.
    pub junctions: Vec<Junction>,
}

/// How another session joins a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JunctionKind {
    /// It continues from the end of the branch it joins (a resume).
    Continues,
    /// It branches off from the middle (a cross-session fork).
    Branches,
    /// A `cctree fork` copy up to `at`, not resumed yet (it owns no node).
    CctreeFork,
}

/// A session joining a conversation at a node of another session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Junction {
    pub session: SessionId,
    /// The node it continues from.
    pub at: NodeId,
    /// Its first own node (none for a `cctree fork` copy not resumed yet).
    pub first: Option<NodeId>,
    pub kind: JunctionKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TitleSource {
    CustomTitle,
    AiTitle,
    Summary,
    FirstPrompt,
    None,
}

/// What kind of sidechain an agent transcript is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentKind {
    /// A sub-agent spawned by a Task/Agent tool call.
    Subagent,
    /// The compaction summariser or a `/btw` side question (copies main entries).
    SideAgent,
    /// A Warmup pair or other in-file sidechain without an agent id.
    Inline,
}

/// The call that spawned an agent.
#[derive(Debug, Clone)]
pub struct Spawn {
    pub tool_use_id: Option<Box<str>>,
    /// The node holding the `tool_use`.
    pub use_node: Option<NodeId>,
    /// The node holding the `tool_result`.
    pub result_node: Option<NodeId>,
}

/// A sidechain transcript.
#[derive(Debug, Clone)]
pub struct Agent {
    /// Its `agentId` (from the entries or the file name), or
    /// `inline-<root uuid>` for a sidechain without one.
    pub agent_id: Box<str>,
    pub kind: AgentKind,
    /// Its nodes in display order.
    pub nodes: Vec<NodeId>,
    pub spawn: Option<Spawn>,
    /// For side agents: the main node its unique nodes hang from.
    pub attached_to: Option<NodeId>,
    pub meta: Option<AgentMeta>,
    pub first_ts: i64,
    pub messages: u32,
}

/// A `summary` entry and the node its `leafUuid` resolved to.
#[derive(Debug, Clone)]
pub struct SummaryRef {
    pub entry: EntryId,
    pub node: Option<NodeId>,
}

/// A finding about the archive's structure, reported by `cctree check`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The same uuid with different content in several places (P1).
    ConflictingDuplicate { uuid: Box<str>, others: Vec<EntryId> },
    /// `parentUuid` resolves nowhere (P2).
    DanglingParent { parent: Box<str> },
    /// `logicalParentUuid` resolves nowhere; joined by time instead.
    DanglingLogicalParent { parent: Box<str> },
    /// Parent pointer cut to break a cycle.
    Cycle,
}

/// A problem at an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphFinding {
    pub entry: EntryId,
    pub problem: Problem,
}

/// What a multi-child node turned out to be.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MultiChildCounts {
    pub total: u32,
    pub fork_points: u32,
    pub continuations: u32,
    pub artifacts: u32,
}

/// Per-file facts the graph needs.
#[derive(Debug, Clone, Default)]
pub struct FileFacts {
    pub class: FileClass,
    pub agent_id_from_name: Option<String>,
    /// A previous version kept by `cctree sync` (the live file is newer).
    pub kept_version: bool,
    /// `<id>` of a main `<id>.jsonl` file: the session whose own file it is.
    pub session_from_name: Option<String>,
}

/// Everything the graph is built from.
pub struct GraphInput<'a> {
    pub entries: &'a Entries,
    pub files: &'a IdVec<FileId, FileFacts>,
    pub agent_meta: &'a std::collections::BTreeMap<String, AgentMeta>,
    /// The client's names of sessions kept outside the transcripts
    /// ([`crate::model::ProjectSource::session_titles`]): custom titles.
    pub session_titles: &'a std::collections::BTreeMap<String, String>,
}

/// The project's graph.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    pub nodes: IdVec<NodeId, Node>,
    /// uuid → node.
    pub index: FxHashMap<Box<str>, NodeId>,
    /// Children of each node, by (timestamp, uuid). Includes sidechain children.
    pub children: IdVec<NodeId, Vec<NodeId>>,
    /// Non-canonical instances: (node, entry).
    pub aliases: Vec<(NodeId, EntryId)>,
    /// Sessions in `sessionId` order.
    pub sessions: IdVec<SessionId, Session>,
    pub conversations: IdVec<ConversationId, Conversation>,
    pub branches: IdVec<BranchId, Branch>,
    pub agents: IdVec<AgentId, Agent>,
    pub summaries: Vec<SummaryRef>,
    pub findings: Vec<GraphFinding>,
    /// Role of each child at multi-child main nodes (for diagnostics and rendering).
    pub child_roles: FxHashMap<NodeId, ChildRole>,
    /// The main children of each node that may belong to its turn (see
    /// [`Graph::turn_children`]).
    pub turn_children: IdVec<NodeId, Vec<NodeId>>,
    pub multi_child: MultiChildCounts,
    /// tool_use id → (node holding the use, nodes holding results).
    pub tools: FxHashMap<Box<str>, ToolLink>,
    /// Compaction roots (boundaries and 1.0.x summary roots).
    pub compactions: u32,
    /// The compactions that kept messages, where the graph put them, by
    /// boundary time.
    pub splices: Vec<Splice>,
    /// Nodes a splice moved: the splice (its place in [`Graph::splices`]) and why.
    pub splice_links: FxHashMap<NodeId, (u32, SpliceLink)>,
    /// The splice of each boundary that has one (its place in [`Graph::splices`]).
    pub splice_at: FxHashMap<NodeId, u32>,
    /// Messages typed while Claude worked that never became a prompt or a
    /// `queued_command` (their `queue-operation` entries), by the node they
    /// follow: the last node of their session written before them.
    pub queued: FxHashMap<NodeId, Vec<EntryId>>,
    /// Such messages of a session without any node.
    pub unplaced_queued: Vec<EntryId>,
    /// The place of each fork point in its conversation's
    /// [`Conversation::fork_points`] ([`Graph::fork_at`]; built by
    /// [`Graph::index_forks`]).
    pub fork_index: FxHashMap<NodeId, u32>,
    /// The fork points on each branch that has any, as places in its
    /// conversation's [`Conversation::fork_points`] ([`Graph::forks_on`]).
    pub branch_forks: FxHashMap<BranchId, Vec<u32>>,
}

/// Where a tool call and its results are.
#[derive(Debug, Clone, Default)]
pub struct ToolLink {
    pub use_node: Option<NodeId>,
    pub results: Vec<NodeId>,
}

impl Graph {
    /// Builds the graph of one project.
    pub fn build(input: &GraphInput<'_>) -> Graph {
        let t = std::time::Instant::now();
        let mut g = link::link(input);
        let t_link = t.elapsed().as_secs_f64();
        let facts = forks::classify(&mut g, input.entries);
        forks::index_turn_children(&mut g, input.entries);
        let t_forks = t.elapsed().as_secs_f64();
        tracks::assign(&mut g, input, &facts);
        let t_lines = t.elapsed().as_secs_f64();
        titles::attach(&mut g, input);
        let t_titles = t.elapsed().as_secs_f64();
        queue::place(&mut g, input.entries);
        g.index_forks();
        tracing::debug!(
            "graph of {} nodes: link {t_link:.3} s, forks {:.3} s, tracks {:.3} s, titles {:.3} s, queue {:.3} s",
            g.nodes.len(),
            t_forks - t_link,
            t_lines - t_forks,
            t_titles - t_lines,
            t.elapsed().as_secs_f64() - t_titles
        );
        g
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    /// The canonical entry of a node.
    pub fn entry<'e>(&self, entries: &'e Entries, id: NodeId) -> &'e Entry {
        &entries[self.nodes[id].entry]
    }

    pub fn uuid<'e>(&self, entries: &'e Entries, id: NodeId) -> &'e str {
        self.entry(entries, id).uuid.as_deref().unwrap_or("")
    }

    /// The main-branch children of a node (non-sidechain).
    pub fn main_children(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.children[id].iter().copied().filter(|c| !self.nodes[*c].sidechain)
    }

    /// The session whose `sessionId` is `session_id` (sessions are kept in
    /// `sessionId` order).
    pub fn session_named(&self, session_id: &str) -> Option<SessionId> {
        let pos = self.sessions.as_slice().binary_search_by(|s| (*s.session_id).cmp(session_id)).ok()?;
        SessionId::new(pos)
    }

    /// The last `n` main children of a node, in [`Graph::main_children`]
    /// order (a walk that stops after `n` steps sees no others).
    pub fn last_main_children(&self, id: NodeId, n: usize) -> Vec<NodeId> {
        let mut last: Vec<NodeId> =
            self.children[id].iter().rev().copied().filter(|c| !self.nodes[*c].sidechain).take(n).collect();
        last.reverse();
        last
    }

    /// The main children of a node that may belong to its turn, in
    /// [`Graph::main_children`] order: streamed blocks of a response
    /// (assistant entries with a `message.id`, not aborted) and tool results,
    /// not replays. What `fork` folds beside a chain is among them, so a
    /// node with a million prompts under it costs nothing there.
    pub fn turn_children(&self, id: NodeId) -> &[NodeId] {
        self.turn_children.get(id).map_or(&[], Vec::as_slice)
    }

    /// What compaction boundary `b` kept, when it kept messages.
    pub fn splice_of(&self, b: NodeId) -> Option<&Splice> {
        self.splices.get(*self.splice_at.get(&b)? as usize)
    }

    /// The fork point at a node, if it is one (constant time: a page asks
    /// it of every message it shows).
    pub fn fork_at(&self, id: NodeId) -> Option<&ForkPoint> {
        let c = self.nodes[id].conversation?;
        let &k = self.fork_index.get(&id)?;
        self.conversations[c].fork_points.get(k as usize).filter(|f| f.node == id)
    }

    /// Indexes the fork points of every conversation by node
    /// ([`Graph::fork_at`]); after any change of the conversations.
    pub fn index_forks(&mut self) {
        self.fork_index.clear();
        self.branch_forks.clear();
        for c in &self.conversations {
            for (k, f) in c.fork_points.iter().enumerate() {
                let k = u32::try_from(k).unwrap_or(u32::MAX);
                self.fork_index.insert(f.node, k);
                self.branch_forks.entry(f.branch).or_default().push(k);
            }
        }
    }

    /// The fork points on branch `b`, in [`Conversation::fork_points`]
    /// order (constant time per fork point: the fork-point index asks it
    /// of every branch).
    pub fn forks_on(&self, b: BranchId) -> impl Iterator<Item = &ForkPoint> + '_ {
        let c = &self.conversations[self.branches[b].conversation];
        self.branch_forks.get(&b).into_iter().flatten().filter_map(|&k| c.fork_points.get(k as usize))
    }

    /// Root → node path of tree parents (iterative; guarded against cycles).
    pub fn ancestry(&self, id: NodeId) -> Vec<NodeId> {
        let mut path = vec![id];
        let mut cur = id;
        while let Some(p) = self.nodes[cur].parent {
            if path.len() > self.nodes.len() {
                break;
            }
            path.push(p);
            cur = p;
        }
        path.reverse();
        path
    }

    /// Roots: nodes without a tree parent.
    pub fn roots(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes.iter_enumerated().filter(|(_, n)| n.parent.is_none()).map(|(id, _)| id)
    }
}

#[cfg(test)]
mod tests;

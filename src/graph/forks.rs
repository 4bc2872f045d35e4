//! Real forks vs recording artifacts (transcript-format §6.3).
//!
//! For every main node with two or more main children, each child gets a
//! [`ChildRole`]. A node is a fork point when two or more children start a
//! *future*: a typed prompt, a command that got a reply, a compaction that
//! continues with a prompt, or a live cross-session continuation. Everything
//! else (parallel tool calls, lagging results, hooks, progress, local commands,
//! replays, aborted output) is an artifact and stays on its parent's track.

use rustc_hash::FxHashMap;

use super::{CompactionKind, ForkKind, Graph, NodeId, SessionId};
use crate::id::IdVec;
use crate::model::{Entries, Kind, Meta, UserKind};

/// What a child of a multi-child node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildRole {
    /// Starts a future (rule 9, or rule 2 for another session's child).
    Future,
    /// Another session continues from its parent's leaf (rule 2): not a fork.
    Continuation,
    /// A same-timestamp equivalent copy (rule 3): hidden.
    Replay,
    /// Progress, hook, attachment, system or command side branch without
    /// conversation (rules 4–5).
    SideBranch,
    /// The next block or a tool result of the same turn (rules 6–7).
    ToolTurn,
    /// Output that dead-ends next to a live sibling (rule 8).
    Aborted,
    /// None of the above (rule 10): linearized.
    Unclassified,
    /// Another session starting afresh under a shared prefix that holds no
    /// conversation (e.g. 1.0.x copied a local-command caveat into each new
    /// session after `/clear`): the root of a conversation of its own.
    NewConversation,
}

/// Subtree facts over the main forest, and the fork decisions.
pub(super) struct Facts {
    pub has_reply: IdVec<NodeId, bool>,
    pub has_prompt: IdVec<NodeId, bool>,
    pub has_conv: IdVec<NodeId, bool>,
    pub size: IdVec<NodeId, u32>,
    pub max_ts: IdVec<NodeId, i64>,
    /// Fork point → (kind, futures by time).
    pub forks: FxHashMap<NodeId, (ForkKind, Vec<NodeId>)>,
    /// Children that start a conversation of their own ([`ChildRole::NewConversation`]).
    pub detached: Vec<NodeId>,
    /// The same, by node (constant-time lookup).
    pub is_detached: IdVec<NodeId, bool>,
}

/// Main roots: non-sidechain nodes without a non-sidechain parent.
pub(super) fn main_roots(g: &Graph) -> Vec<NodeId> {
    g.nodes
        .ids()
        .filter(|&id| {
            let n = g.node(id);
            !n.sidechain && n.parent.is_none_or(|p| g.node(p).sidechain)
        })
        .collect()
}

/// Parents-before-children order of the main forest.
pub(super) fn main_order(g: &Graph, roots: &[NodeId]) -> Vec<NodeId> {
    let mut order = Vec::with_capacity(g.nodes.len());
    let mut stack: Vec<NodeId> = roots.iter().rev().copied().collect();
    while let Some(id) = stack.pop() {
        order.push(id);
        stack.extend(g.main_children(id));
    }
    order
}

/// Subtree facts of every main node, then the roles of the children of every
/// multi-child node and the fork points they make.
pub(super) fn classify(g: &mut Graph, entries: &Entries) -> Facts {
    let roots = main_roots(g);
    let order = main_order(g, &roots);
    let mut f = subtree_facts(g, entries, &order);
    let prefix_conv = prefix_conversation(g, entries, &order);
    for &id in &order {
        let kids: Vec<NodeId> = g.main_children(id).collect();
        if kids.len() < 2 {
            continue;
        }
        g.multi_child.total += 1;
        let mut roles = classify_children(g, entries, &f, id, &kids);
        if !prefix_conv[id] {
            detach_other_sessions(g, &mut f, id, &kids, &mut roles);
        }
        judge_fork_point(g, entries, &mut f, id, &kids, &roles);
        for (k, r) in kids.into_iter().zip(roles) {
            g.child_roles.insert(k, r);
        }
    }
    f
}

/// Has reply / prompt / conversation, size and latest time of every main
/// node's subtree (children before parents).
fn subtree_facts(g: &Graph, entries: &Entries, order: &[NodeId]) -> Facts {
    let n = g.nodes.len();
    let mut f = Facts {
        has_reply: IdVec::filled(false, n),
        has_prompt: IdVec::filled(false, n),
        has_conv: IdVec::filled(false, n),
        size: IdVec::filled(0, n),
        max_ts: IdVec::filled(i64::MIN, n),
        forks: FxHashMap::default(),
        detached: Vec::new(),
        is_detached: IdVec::filled(false, n),
    };
    for &i in order.iter().rev() {
        let e = g.entry(entries, i);
        f.has_reply[i] |= e.is_reply();
        f.has_prompt[i] |= e.user_kind == UserKind::Prompt;
        f.has_conv[i] |= e.is_conversational();
        f.size[i] += 1;
        f.max_ts[i] = f.max_ts[i].max(g.nodes[i].ts);
        if let Some(p) = g.nodes[i].parent.filter(|p| !g.node(*p).sidechain) {
            f.has_reply[p] |= f.has_reply[i];
            f.has_prompt[p] |= f.has_prompt[i];
            f.has_conv[p] |= f.has_conv[i];
            f.size[p] += f.size[i];
            f.max_ts[p] = f.max_ts[p].max(f.max_ts[i]);
        }
    }
    f
}

/// Under a prefix without any conversation, another session's future or
/// continuation starts a conversation of its own.
fn detach_other_sessions(g: &Graph, f: &mut Facts, id: NodeId, kids: &[NodeId], roles: &mut [ChildRole]) {
    let own = g.node(id).session;
    for (k, r) in kids.iter().zip(roles.iter_mut()) {
        if matches!(*r, ChildRole::Future | ChildRole::Continuation) && g.node(*k).session != own {
            *r = ChildRole::NewConversation;
            f.detached.push(*k);
            f.is_detached[*k] = true;
        }
    }
}

/// A multi-child node with two or more futures is a fork point; one with a
/// continuation is counted as such; anything else is an artifact.
fn judge_fork_point(g: &mut Graph, entries: &Entries, f: &mut Facts, id: NodeId, kids: &[NodeId], roles: &[ChildRole]) {
    let own = g.node(id).session;
    let mut futures: Vec<NodeId> =
        kids.iter().zip(roles).filter(|(_, r)| **r == ChildRole::Future).map(|(k, _)| *k).collect();
    // The node's own session goes on on its track; other sessions branch
    // off (each group by time).
    futures.sort_by_key(|k| g.node(*k).session != own);
    if futures.len() >= 2 {
        // "Summarize from here": the compaction goes on beside the turns it
        // summarized (written before it), a compaction, not a rewind.
        let from_here = |c: &NodeId| summarized_from_here(g, *c);
        let kind = if futures.iter().any(|c| g.node(*c).session != own) {
            ForkKind::CrossSession
        } else if let Some(&c) = futures
            .iter()
            .find(|c| from_here(c))
            .filter(|c| futures.len() == 2 && futures.iter().all(|f| f == *c || g.node(*f).ts <= g.node(**c).ts))
        {
            // The line goes on through the compaction; the turns it
            // summarized are the branch beside it.
            futures.sort_by_key(|f| *f != c);
            ForkKind::Compaction
        } else {
            ForkKind::Rewind
        };
        f.forks.insert(id, (kind, futures));
        g.multi_child.fork_points += 1;
        return;
    }
    if roles.iter().any(|r| matches!(r, ChildRole::Continuation | ChildRole::NewConversation)) {
        g.multi_child.continuations += 1;
        return;
    }
    if roles.contains(&ChildRole::Unclassified) {
        let e = g.entry(entries, id);
        tracing::debug!(
            "unclassified multi-child node {} (file #{} line {}): children {:?}",
            e.uuid.as_deref().unwrap_or(""),
            e.loc.file.index(),
            e.loc.line,
            kids.iter().map(|k| g.entry(entries, *k).kind.name().to_string()).collect::<Vec<_>>()
        );
    }
    g.multi_child.artifacts += 1;
}

/// Whether the path root → node holds a prompt, tool result or reply, or a
/// `!` command a person typed (its output may get no reply), per node.
fn prefix_conversation(g: &Graph, entries: &Entries, order: &[NodeId]) -> IdVec<NodeId, bool> {
    let mut prefix_conv = IdVec::filled(false, g.nodes.len());
    for &id in order {
        let parent_conv = g.node(id).parent.is_some_and(|p| prefix_conv[p]);
        let e = g.entry(entries, id);
        prefix_conv[id] = parent_conv || e.is_conversational() || e.user_kind == UserKind::Bash;
    }
    prefix_conv
}

fn classify_children(g: &Graph, entries: &Entries, f: &Facts, p: NodeId, kids: &[NodeId]) -> Vec<ChildRole> {
    let mut roles = vec![ChildRole::Unclassified; kids.len()];
    mark_replays(g, entries, f, kids, &mut roles);
    let own = g.node(p).session;
    let live = |i: usize| roles[i] != ChildRole::Replay;
    // Rule 2 needs to know whether the parent's own session goes on from here.
    let own_goes_on = kids.iter().enumerate().any(|(i, k)| live(i) && g.node(*k).session == own && f.has_conv[*k]);
    let own_user_initiated =
        kids.iter().enumerate().any(|(i, k)| live(i) && g.node(*k).session == own && user_initiated(g, entries, f, *k));
    let cross_live = kids.iter().enumerate().any(|(i, k)| live(i) && g.node(*k).session != own && f.has_conv[*k]);
    // When another session branches mid-track, the own session's continuation
    // (the earliest live child) is a future too.
    let own_continuation: Option<usize> = if cross_live && own_goes_on && !own_user_initiated {
        kids.iter().enumerate().find(|(i, k)| live(*i) && g.node(**k).session == own && f.has_conv[**k]).map(|(i, _)| i)
    } else {
        None
    };
    let parent = Parent {
        session: own,
        own_goes_on,
        has_tool_use: {
            let pe = g.entry(entries, p);
            pe.kind == Kind::Assistant && !pe.tool_uses.is_empty()
        },
        turn_ids: turn_tool_ids(g, entries, p),
    };
    for (i, &k) in kids.iter().enumerate() {
        if roles[i] != ChildRole::Replay {
            roles[i] = role_of(g, entries, f, &parent, k, Some(i) == own_continuation);
        }
    }
    // Several cross-session continuations of one leaf: each is a future.
    let continuations = roles.iter().filter(|r| **r == ChildRole::Continuation).count();
    if continuations > 1 || (continuations == 1 && roles.contains(&ChildRole::Future)) {
        for r in &mut roles {
            if *r == ChildRole::Continuation {
                *r = ChildRole::Future;
            }
        }
    }
    roles
}

/// Rule 3: same-timestamp equivalent children are replays; keep the live one.
fn mark_replays(g: &Graph, entries: &Entries, f: &Facts, kids: &[NodeId], roles: &mut [ChildRole]) {
    let mut groups: FxHashMap<(i64, &str, u64), Vec<usize>> = FxHashMap::default();
    for (i, k) in kids.iter().enumerate() {
        let e = g.entry(entries, *k);
        if let Some(ts) = e.timestamp {
            groups.entry((ts, e.kind.name(), e.payload_hash)).or_default().push(i);
        }
    }
    for members in groups.values().filter(|m| m.len() > 1) {
        let keep = *members
            .iter()
            .max_by_key(|&&i| (f.size[kids[i]], f.max_ts[kids[i]], std::cmp::Reverse(kids[i])))
            .unwrap_or(&members[0]);
        for &i in members {
            if i != keep {
                roles[i] = ChildRole::Replay;
            }
        }
    }
}

/// What [`role_of`] needs to know of the parent of a multi-child node.
struct Parent<'e> {
    session: SessionId,
    /// The parent's own session goes on from it (a live child of its session).
    own_goes_on: bool,
    /// The parent is an assistant entry calling tools.
    has_tool_use: bool,
    /// The tool ids of the parent's turn.
    turn_ids: Vec<&'e str>,
}

/// The role of a child that is not a replay (rules 2, 4–10); `continues_own`:
/// it is the own session's continuation next to a live cross-session child.
fn role_of(g: &Graph, entries: &Entries, f: &Facts, parent: &Parent<'_>, k: NodeId, continues_own: bool) -> ChildRole {
    let e = g.entry(entries, k);
    if g.node(k).session != parent.session {
        if !f.has_conv[k] && !summarized_from_here(g, k) {
            ChildRole::SideBranch
        } else if parent.own_goes_on {
            ChildRole::Future
        } else {
            ChildRole::Continuation
        }
    } else if continues_own || user_initiated(g, entries, f, k) {
        ChildRole::Future
    } else if !f.has_conv[k] {
        ChildRole::SideBranch
    } else if parent.has_tool_use
        && (e.kind == Kind::Assistant
            || (e.user_kind == UserKind::ToolResult
                && e.tool_results.iter().all(|r| parent.turn_ids.contains(&&*r.tool_use_id))))
    {
        ChildRole::ToolTurn
    } else if e.kind == Kind::Assistant && !f.has_prompt[k] {
        ChildRole::Aborted
    } else if e.user_kind == UserKind::ToolResult {
        ChildRole::ToolTurn
    } else {
        ChildRole::Unclassified
    }
}

/// A typed prompt, a command child whose subtree has a reply, a compaction
/// root whose subtree has a typed prompt, a "Summarize from here" (asked
/// for in the rewind menu) or a branch summary (asked for when moving in
/// the tree) (§6.2 "user-initiated").
fn user_initiated(g: &Graph, entries: &Entries, f: &Facts, k: NodeId) -> bool {
    let e = g.entry(entries, k);
    let n = g.node(k);
    e.user_kind == UserKind::Prompt
        || matches!(e.meta, Some(Meta::BranchSummary))
        || (e.is_command() && f.has_reply[k])
        || (n.link.is_join() && f.has_prompt[k])
        || summarized_from_here(g, k)
}

/// A "Summarize from here" compaction joined after what it kept: asked for
/// in the rewind menu, a future even before anything follows it.
fn summarized_from_here(g: &Graph, k: NodeId) -> bool {
    let n = g.node(k);
    n.link.is_join() && n.compaction == Some(CompactionKind::From)
}

/// The tool_use ids of the response `p` belongs to (all entries of the same
/// `message.id` on its ancestry), so parallel results count as one turn.
fn turn_tool_ids<'e>(g: &Graph, entries: &'e Entries, p: NodeId) -> Vec<&'e str> {
    let pe = g.entry(entries, p);
    let mut ids: Vec<&str> = pe.tool_uses.iter().map(|u| &*u.id).collect();
    let Some(mid) = pe.message_id.as_deref() else {
        return ids;
    };
    let mut cur = g.node(p).parent;
    let mut steps = 0;
    while let Some(c) = cur {
        let e = g.entry(entries, c);
        steps += 1;
        if steps > 256 {
            break;
        }
        match e.kind {
            Kind::Assistant if e.message_id.as_deref() == Some(mid) => {
                ids.extend(e.tool_uses.iter().map(|u| &*u.id));
            }
            Kind::Assistant => break,
            Kind::User if e.user_kind != UserKind::ToolResult => break,
            _ => {}
        }
        cur = g.node(c).parent;
    }
    ids
}

/// [`Graph::turn_children`] of every node, once the child roles are known.
pub(super) fn index_turn_children(g: &mut Graph, entries: &Entries) {
    let turn =
        g.children.iter().map(|c| c.iter().copied().filter(|k| is_turn_candidate(g, entries, *k)).collect()).collect();
    g.turn_children = turn;
}

/// Whether a child may belong to its parent's turn: a main (not sidechain)
/// streamed block of a response (an assistant entry with a `message.id`, not
/// aborted) or a tool result, and not a replay.
fn is_turn_candidate(g: &Graph, entries: &Entries, k: NodeId) -> bool {
    if g.node(k).sidechain {
        return false;
    }
    let role = g.child_roles.get(&k).copied();
    let e = g.entry(entries, k);
    role != Some(ChildRole::Replay)
        && match e.kind {
            Kind::Assistant => e.message_id.is_some() && role != Some(ChildRole::Aborted),
            Kind::User => e.user_kind != UserKind::Prompt && !e.tool_results.is_empty(),
            _ => false,
        }
}

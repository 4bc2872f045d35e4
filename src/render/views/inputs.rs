//! What a message of a page is made from besides what its entries say:
//! which of its entries carry their anchor here, the result each of its
//! tool calls shows and the sub-agent it spawned, where the call of a
//! result shown on its own is, who gave a sidechain its prompt, the other
//! copies of its entries, the fork points after it, its `cctree fork`
//! command, the session change before it and the messages queued after it.
//!
//! It is resolved from the site model ([`ProjectCtx`]) before anything is
//! written, and the views read it, not the site model: so a page is a
//! function of its [`ItemInputs`] and of what their entries say (a function
//! of each entry's line, named here by the hash of its line), and the hash
//! of its inputs is a key that changes whenever the page would
//! (`crate::reuse`, the incremental render).

use std::hash::{Hash, Hasher};

use crate::model::AgentMeta;
use rustc_hash::FxHashSet;

use crate::graph::{AgentKind, CompactionKind, ForkKind, NodeId};
use crate::limits::FORK_LISTED;
use crate::model::{EntryId, Kind};
use crate::render::plain::prompt_words;
use crate::render::site::context::{ProjectCtx, TrackId, fork_list_href, listed_apart};
use crate::render::site::layout::Item;
use crate::render::site::urls::{Href, Links, fork_anchor, page_file};

use super::blocks::{AgentLink, ForkBranch, ForkNote};

/// An entry a message reads: its id (which shifts as the project grows:
/// not part of its hash) and the hash of its line (what it says, its uuid
/// included).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Read {
    pub(crate) entry: EntryId,
    line: u64,
}

impl Hash for Read {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.line.hash(h);
    }
}

impl Read {
    pub(crate) fn of(ctx: &ProjectCtx<'_>, entry: EntryId) -> Read {
        Read { entry, line: ctx.entries()[entry].line_hash }
    }
}

/// A node a message shows (its id: not part of its hash), and whether its
/// anchor belongs on this page.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shown {
    pub(crate) node: NodeId,
    pub(crate) read: Read,
    pub(crate) anchored: bool,
}

impl Hash for Shown {
    fn hash<H: Hasher>(&self, h: &mut H) {
        (self.read, self.anchored).hash(h);
    }
}

/// A tool call of a message: the result it shows (the entry holding it),
/// and the sub-agent it spawned.
#[derive(Debug, Clone, Hash)]
pub(crate) struct Call {
    pub(crate) id: Box<str>,
    pub(crate) result: Option<Shown>,
    pub(crate) agent: Option<AgentLink>,
}

/// Who gave a sidechain its prompt.
#[derive(Debug, Clone, Hash)]
pub(crate) enum Caller {
    /// Claude, starting a sub-agent: its sidecar's type and description,
    /// and the call that spawned it (its id, and the entry holding it).
    Subagent { meta: Option<(Option<String>, Option<String>)>, spawn: Option<(Box<str>, Shown)> },
    /// The client, running a side agent.
    SideAgent,
    /// The client, in a sidechain of its own.
    Client,
}

/// Another copy of an entry whose content differs, and where it is.
#[derive(Debug, Clone, Hash)]
pub(crate) struct Copy {
    pub(crate) entry: Read,
    pub(crate) label: String,
}

/// What a message is made from besides what its entries say.
#[derive(Debug, Clone, Hash)]
pub(crate) struct ItemInputs {
    /// Its number, when it is a counted message.
    pub(crate) number: Option<u32>,
    /// Its time (the first entry's, else its node's, which may be its parent's).
    pub(crate) time: i64,
    /// Its entries in display order (several for a streamed turn).
    pub(crate) nodes: Vec<Shown>,
    /// The tool results it shows inside its calls.
    pub absorbed: Vec<Shown>,
    /// Its calls, sorted by id (stably: of calls sharing an id, the first
    /// comes first), so that each block finds its own in log time — a
    /// message of N parallel calls was N² to render.
    pub calls: Vec<Call>,
    /// For each result it holds (by call id, sorted likewise), the link to
    /// its call.
    pub results: Vec<(Box<str>, Option<Href>)>,
    /// For a prompt of a sidechain.
    pub(crate) caller: Option<Caller>,
    /// Other copies of its entries whose content differs.
    pub(crate) copies: Vec<Copy>,
    /// The `cctree fork` command that forks right after it (a legal checkpoint).
    pub(crate) fork_command: Option<String>,
    /// The session it continues in, when the one before was another:
    /// its id, and whether `cctree fork` wrote it.
    pub(crate) session_change: Option<(String, bool)>,
    /// Messages typed while Claude worked, shown after it.
    pub(crate) queued: Vec<Read>,
    pub(crate) fork_notes: Vec<ForkNote>,
    /// For a compaction, what the graph made of it.
    pub(crate) compaction: Option<CompactionAt>,
    /// On a branch's page, a message the conversation page shows too (it is
    /// on the active line): the search index takes it from there, so that a
    /// hit opens the page that reads the active line.
    pub(crate) indexed_elsewhere: bool,
    /// Where a search result says it is read, when not on the active line
    /// ([`place`]).
    pub(crate) place: Option<String>,
}

/// What the graph made of a compaction: its kind, and how many messages it
/// kept verbatim and whether they come before it (§5.7).
#[derive(Debug, Clone, Copy, Default, Hash)]
pub(crate) struct CompactionAt {
    pub(crate) kind: Option<CompactionKind>,
    pub(crate) kept: Option<(usize, bool)>,
}

impl ItemInputs {
    /// The call `id` of this message (the first, if several share it).
    pub(crate) fn call(&self, id: &str) -> Option<&Call> {
        let at = self.calls.partition_point(|c| &*c.id < id);
        self.calls.get(at).filter(|c| &*c.id == id)
    }

    /// The link to the call of result `id` it holds.
    pub(crate) fn call_of_result(&self, id: &str) -> Option<Href> {
        let at = self.results.partition_point(|(r, _)| &**r < id);
        self.results.get(at).filter(|(r, _)| &**r == id).and_then(|(_, h)| h.clone())
    }
}

/// Where a message is shown: on a page of `track` in `dir` (anchors,
/// landmarks and fork commands there), or as a copy out of place (the
/// context before a fork: none of those).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place<'p> {
    pub(crate) dir: &'p str,
    pub(crate) track: Option<TrackId>,
}

impl Place<'_> {
    fn on_page(&self) -> bool {
        self.track.is_some()
    }
}

/// The inputs of item `ix` of `items` (a track's layout), shown at `at`.
pub(crate) fn item_inputs(ctx: &ProjectCtx<'_>, at: Place<'_>, items: &[Item], ix: usize) -> ItemInputs {
    let g = ctx.graph();
    let item = &items[ix];
    let shown = |n: NodeId| {
        let anchored = at.track.is_some_and(|t| ctx.item_on(t, n).is_some());
        Shown { node: n, read: Read::of(ctx, g.node(n).entry), anchored }
    };
    let first = g.entry(ctx.entries(), item.nodes[0]);
    let all = || item.nodes.iter().chain(&item.absorbed).copied();
    let session = g.node(item.nodes[0]).session;
    let session_change =
        (at.on_page() && ix > 0 && g.node(items[ix - 1].nodes[0]).session != session && first.kind != Kind::Assistant)
            .then(|| (g.sessions[session].session_id.to_string(), ctx.own_forks.contains(&session)));
    let absorbed: FxHashSet<NodeId> = item.absorbed.iter().copied().collect();
    let mut calls: Vec<Call> = all().flat_map(|n| calls(ctx, at, &absorbed, n, &shown)).collect();
    calls.sort_by(|a, b| a.id.cmp(&b.id));
    let mut results: Vec<(Box<str>, Option<Href>)> = all()
        .flat_map(|n| &g.entry(ctx.entries(), n).tool_results)
        .map(|r| {
            let call = g.tools.get(&*r.tool_use_id).and_then(|l| l.use_node);
            (r.tool_use_id.clone(), call.and_then(|c| ctx.node_link(at.dir, at.track, c)))
        })
        .collect();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    ItemInputs {
        number: item.counted.then_some(item.number),
        time: first.timestamp.unwrap_or(g.node(item.nodes[0]).ts),
        nodes: item.nodes.iter().map(|n| shown(*n)).collect(),
        absorbed: item.absorbed.iter().map(|n| shown(*n)).collect(),
        calls,
        results,
        caller: caller(ctx, item.nodes[0], &shown),
        copies: all()
            .flat_map(|n| ctx.conflicts.get(&n).into_iter().flatten())
            .map(|&o| Copy {
                entry: Read::of(ctx, o),
                label: format!("A different copy of this entry ({})", ctx.place(ctx.entries()[o].loc)),
            })
            .collect(),
        fork_command: at
            .track
            .filter(|_| at.on_page())
            .and_then(|t| ctx.checkpoint(t, item))
            .map(|k| ctx.fork_command(k)),
        session_change,
        queued: all()
            .filter(|_| at.on_page())
            .filter_map(|n| g.queued.get(&n))
            .flatten()
            .map(|&q| Read::of(ctx, q))
            .collect(),
        fork_notes: if at.on_page() { all().filter_map(|n| fork_note(ctx, at, n)).collect() } else { Vec::new() },
        compaction: (first.is_compact_boundary() || first.is_system("microcompact_boundary")).then(|| CompactionAt {
            kind: g.node(item.nodes[0]).compaction,
            kept: g.splice_of(item.nodes[0]).map(|sp| (kept_messages(ctx, &sp.kept), sp.before)),
        }),
        indexed_elsewhere: matches!(at.track, Some(TrackId::Branch(_)))
            && item.nodes.iter().all(|&n| ctx.on_active_track(n)),
        place: at.track.and_then(|t| place(ctx, t, item.nodes[0])),
    }
}

/// Where a search result says a message of a page of `track` is read:
/// nothing on the active line (the conversation page, or the one page of a
/// conversation without forks), else `on branch 15.1`, `on the main
/// branch`, `in a sub-agent`.
fn place(ctx: &ProjectCtx<'_>, track: TrackId, node: NodeId) -> Option<String> {
    let g = ctx.graph();
    match track {
        TrackId::Active(_) => None,
        TrackId::Branch(b) if g.conversations[g.branches[b].conversation].branches.len() < 2 => None,
        TrackId::Branch(_) => match ctx.line_name(node)?.as_str() {
            "main" => Some("on the main branch".to_string()),
            name => Some(format!("on branch {name}")),
        },
        TrackId::Agent(_) => Some("in a sub-agent".to_string()),
    }
}

/// Messages a person reads among `nodes`: prompts and commands, and
/// assistant turns (one per `message.id`).
fn kept_messages(ctx: &ProjectCtx<'_>, nodes: &[NodeId]) -> usize {
    let g = ctx.graph();
    let mut turns: FxHashSet<&str> = FxHashSet::default();
    nodes
        .iter()
        .map(|n| g.entry(ctx.entries(), *n))
        .filter(|e| {
            e.is_message() && (e.kind != Kind::Assistant || e.message_id.as_deref().is_none_or(|m| turns.insert(m)))
        })
        .count()
}

/// The calls of node `n` of `item`: the result each shows (the one `item`
/// absorbs, else one on this page's track, else the first) and the
/// sub-agent it spawned.
fn calls(
    ctx: &ProjectCtx<'_>,
    at: Place<'_>,
    absorbed: &FxHashSet<NodeId>,
    n: NodeId,
    shown: &impl Fn(NodeId) -> Shown,
) -> Vec<Call> {
    let g = ctx.graph();
    let same_track = |r: &NodeId| at.track.is_some_and(|t| ctx.item_on(t, *r).is_some());
    g.entry(ctx.entries(), n)
        .tool_uses
        .iter()
        .map(|u| {
            let result = g.tools.get(&*u.id).and_then(|link| {
                let r = link.results.iter();
                r.clone()
                    .find(|r| absorbed.contains(r))
                    .or_else(|| r.clone().find(|r| same_track(r)))
                    .or_else(|| link.results.first())
                    .map(|r| shown(*r))
            });
            let agent = ctx.agent_by_tool.get(&*u.id).map(|&a| AgentLink {
                href: ctx.href(at.dir, &ctx.agent_dirs[a], &page_file(0), None),
                messages: g.agents[a].messages,
            });
            Call { id: u.id.clone(), result, agent }
        })
        .collect()
}

fn caller(ctx: &ProjectCtx<'_>, node: NodeId, shown: &impl Fn(NodeId) -> Shown) -> Option<Caller> {
    let g = ctx.graph();
    let n = g.node(node);
    if !n.sidechain {
        return None;
    }
    let agent = n.agent.map(|a| &g.agents[a]);
    Some(match agent.map(|a| (a.kind, a.meta.as_ref())) {
        Some((AgentKind::Subagent, meta)) => {
            let spawn = agent.and_then(|a| a.spawn.as_ref());
            let spawn = spawn.and_then(|s| Some((s.tool_use_id.clone()?, shown(s.use_node?))));
            let meta = meta.map(|m: &AgentMeta| (m.agent_type.clone(), m.description.clone()));
            Caller::Subagent { meta, spawn }
        }
        Some((AgentKind::SideAgent, _)) => Caller::SideAgent,
        _ => Caller::Client,
    })
}

/// The landmark of fork point `node`, shown after the message holding it:
/// every branch from there (a fork of many branches names the first ones,
/// the one that goes on here and the active one; its own list names every
/// one; `cctree export` names all: its one file has no other list).
fn fork_note(ctx: &ProjectCtx<'_>, at: Place<'_>, node: NodeId) -> Option<ForkNote> {
    let g = ctx.graph();
    let fp = g.fork_at(node)?;
    let n = ctx.fork_numbers.get(&node).copied().unwrap_or(0);
    let site = ctx.links == Links::Site;
    let here = |child: NodeId| at.track.is_some_and(|l| ctx.item_on(l, child).is_some());
    let mut listed = 0usize;
    let branches = fp
        .children
        .iter()
        .enumerate()
        .filter(|(k, child)| {
            let keep = !site || *k == 0 || listed < FORK_LISTED || ctx.on_active_track(**child) || here(**child);
            listed += usize::from(keep);
            keep
        })
        .filter_map(|(k, &child)| {
            let words = prompt_words(ctx.project.source.client, fp.labels.get(k).map_or("", |l| &**l), 80);
            let (here, active) = (here(child), ctx.on_active_track(child));
            if k == 0 || here {
                let href = ctx.message_link(at.dir, at.track, child, true).unwrap_or_default();
                let label = if k == 0 {
                    ctx.fork_branch_label(node, 0)
                } else {
                    g.node(child).branch.map(|cb| ctx.labels[cb].clone())?
                };
                return Some(ForkBranch { label, href, words, here, active, detail: ctx.sibling_detail(fp, k) });
            }
            // Every later child of a fork point starts a branch.
            let cb = g.node(child).branch?;
            let label = ctx.labels[cb].clone();
            let href = ctx.branch_href(at.dir, cb);
            Some(ForkBranch { label, href, words, here, active, detail: ctx.sibling_detail(fp, k) })
        })
        .collect();
    let more = (site && listed_apart(fp)).then(|| fork_list_href(ctx, at.dir, node));
    Some(ForkNote {
        id: fork_anchor(g.uuid(ctx.entries(), node)),
        number: n,
        name: ctx.fork_name(node),
        branches,
        total: fp.children.len(),
        more,
        compare: ctx.compare_href(at.dir, node),
        compaction: fp.kind == ForkKind::Compaction,
    })
}

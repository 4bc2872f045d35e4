//! A project cut down to some of its conversations: [`restrict`].
//!
//! The graph is not built again from the kept lines: facts that depend on
//! the whole project (which copy of a uuid is canonical, fork points found
//! across sessions, junctions, titles written into other files, the active
//! leaf, where queued messages go, conversation roots and so page URLs) were
//! decided on the whole project, and a kept conversation must read exactly as
//! it does there. So the built graph is *copied*, keeping only what belongs
//! to the kept conversations, every index renumbered in the same order (node
//! ids stay in uuid order, lines in file order).
//!
//! What belongs to a conversation:
//! - its nodes (every branch), with their other copies (aliases) and the
//!   lines that say where they conflict;
//! - the agents it spawned ([`Graph::agent_owners`]: the conversation of the call
//!   that spawned it, of its result, of the node it hangs from, or of the
//!   agent that spawned it), and their nodes;
//! - its sessions, and what the graph knows of them (titles, last prompt,
//!   leaf, `cctree fork` provenance, where a session joins it);
//! - the summaries attached to its nodes and the queued messages shown
//!   after them;
//! - the metadata lines of its sessions (titles, `last-prompt`, modes, entries
//!   of unknown types…), but not the queue operations, summaries and code
//!   checkpoints that name a node it does not hold;
//! - the files holding any of those lines (their warnings, their side files
//!   under `<session>/tool-results/`, the sidecars of its agents).
//!
//! Everything else is gone from the project handed on: no stage after this
//! one can show it, count it or name it. A reference from a kept node to one
//! that is not kept (a tool result recorded in another conversation, an
//! agent spawned in one conversation and hanging from another) is dropped.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::graph::{
    Agent, AgentId, Branch, BranchId, CompactionKind, Conversation, ConversationId, ForkPoint, Graph, GraphFinding,
    Junction, MultiChildCounts, Node, NodeId, Problem, Session, SessionId, Spawn, Splice, SpliceLink, SummaryRef,
    ToolLink,
};
use crate::id::{Id, IdVec};
use crate::model::{Entries, EntryId, Kind, Meta};
use crate::model::{FileId, ProjectSource};
use crate::parse::LineWarning;
use crate::project::{FileStats, Project};

/// Old id → new id of the kept items of a list (`None`: dropped).
struct Renumber<I: Id>(IdVec<I, Option<I>>);

impl<I: Id> Renumber<I> {
    fn new(keep: impl Iterator<Item = bool>) -> Renumber<I> {
        let mut kept = 0;
        Renumber(
            keep.map(|k| {
                // The new ids are at most as many as the old ones.
                let new = if k { I::new(kept) } else { None };
                kept += usize::from(k);
                new
            })
            .collect(),
        )
    }

    fn get(&self, old: I) -> Option<I> {
        self.0.get(old).copied().flatten()
    }

    fn keeps(&self, old: I) -> bool {
        self.get(old).is_some()
    }

    /// The kept items of `list`, in order.
    fn kept<'v, T>(&'v self, list: &'v IdVec<I, T>) -> impl Iterator<Item = &'v T> {
        list.iter_enumerated().filter(|(i, _)| self.keeps(*i)).map(|(_, t)| t)
    }
}

/// `project` holding only the conversations `keep` and what belongs to
/// them (see the module doc).
pub fn restrict(project: Project, keep: &[ConversationId]) -> Project {
    // What the build adds after the selection (`Project::kept`) is not there yet.
    let Project { source, file_stats, entries, warnings, texts, redactions, graph: g, kept: _ } = project;
    let owners = g.agent_owners();
    let mut conv_keep: IdVec<ConversationId, bool> = IdVec::filled(false, g.conversations.len());
    for &c in keep {
        if let Some(k) = conv_keep.get_mut(c) {
            *k = true;
        }
    }
    let agent_keep: IdVec<AgentId, bool> = owners.iter().map(|o| o.is_some_and(|c| conv_keep[c])).collect();
    let nodes: Renumber<NodeId> = Renumber::new(g.nodes.iter().map(|n| {
        if n.sidechain { n.agent.is_some_and(|a| agent_keep[a]) } else { n.conversation.is_some_and(|c| conv_keep[c]) }
    }));
    let convs = Renumber::new(conv_keep.iter().copied());
    let agents = Renumber::new(agent_keep.iter().copied());
    let branches = Renumber::new(g.branches.iter().map(|b| conv_keep[b.conversation]));

    let sessions = kept_sessions(&g, &nodes, &convs);
    let session_ids: FxHashSet<&str> = sessions.kept(&g.sessions).map(|s| &*s.session_id).collect();

    let entry_keep = kept_entries(&g, &entries, &source, &nodes, &session_ids);
    let entry_map: Renumber<EntryId> = Renumber::new(entry_keep.iter().copied());
    let mut file_keep: IdVec<FileId, bool> = IdVec::filled(false, source.files.len());
    for (e, _) in entries.iter().zip(&entry_keep).filter(|(_, k)| **k) {
        if let Some(k) = file_keep.get_mut(e.loc.file) {
            *k = true;
        }
    }
    let files: Renumber<FileId> = Renumber::new(file_keep.iter().copied());

    let new_entries: Entries = entries
        .into_iter()
        .zip(&entry_keep)
        .filter(|(_, k)| **k)
        .filter_map(|(mut e, _)| {
            // A kept entry's file is kept.
            e.loc.file = files.get(e.loc.file)?;
            Some(e)
        })
        .collect();
    let kept_locs: FxHashSet<crate::model::Loc> = new_entries.iter().map(|e| e.loc).collect();
    let relocate = |mut loc: crate::model::Loc| {
        files.get(loc.file).map(|f| {
            loc.file = f;
            loc
        })
    };
    let new_warnings: Vec<_> = warnings
        .into_iter()
        .filter_map(|mut w| {
            w.loc = relocate(w.loc)?;
            Some(w)
        })
        .collect();
    let new_redactions = redactions
        .into_iter()
        .filter_map(|(loc, r)| relocate(loc).filter(|l| kept_locs.contains(l)).map(|l| (l, r)))
        .collect();
    let new_stats = counted_stats(&files, &file_stats, &new_entries, &new_warnings);
    let new_texts = texts.into_iter().zip(&file_keep).filter(|(_, k)| **k).map(|(t, _)| t).collect();

    let kept_agent_ids: FxHashSet<&str> = agents.kept(&g.agents).map(|a| &*a.agent_id).collect();
    let new_source = cut_source(&source, &files, &kept_agent_ids, &session_ids);

    let maps = Maps { nodes, convs, agents, branches, sessions, entries: entry_map };
    let mut graph = maps.graph(&g);
    graph.compactions = graph.nodes.iter().map(|n| u32::from(is_compaction(n))).sum();
    Project {
        source: new_source,
        file_stats: new_stats,
        entries: new_entries,
        warnings: new_warnings,
        texts: new_texts,
        redactions: new_redactions,
        graph,
        kept: crate::project::Kept::default(),
    }
}

/// The sessions a cut-down project keeps: those of kept nodes, branches,
/// conversations and junctions.
fn kept_sessions(g: &Graph, nodes: &Renumber<NodeId>, convs: &Renumber<ConversationId>) -> Renumber<SessionId> {
    let mut session_keep: IdVec<SessionId, bool> = IdVec::filled(false, g.sessions.len());
    let mut mark = |s: SessionId| {
        if let Some(k) = session_keep.get_mut(s) {
            *k = true;
        }
    };
    for n in nodes.kept(&g.nodes) {
        mark(n.session);
    }
    for c in convs.kept(&g.conversations) {
        c.sessions.iter().copied().for_each(&mut mark);
        c.junctions.iter().for_each(|j| mark(j.session));
        for &b in &c.branches {
            mark(g.branches[b].session);
        }
    }
    Renumber::new(session_keep.iter().copied())
}

/// The counts of each kept file, recomputed from the lines it keeps.
fn counted_stats(
    files: &Renumber<FileId>,
    file_stats: &IdVec<FileId, FileStats>,
    entries: &Entries,
    warnings: &[LineWarning],
) -> IdVec<FileId, FileStats> {
    let mut stats: IdVec<FileId, FileStats> = files
        .kept(file_stats)
        .map(|s| FileStats { lines: 0, bad_lines: 0, bytes: 0, read_error: s.read_error.clone() })
        .collect();
    for e in entries {
        let s = &mut stats[e.loc.file];
        s.lines += 1;
        s.bytes += u64::from(e.len) + 1;
    }
    for w in warnings {
        if w.problem.is_bad_line() {
            stats[w.loc.file].lines += 1;
            stats[w.loc.file].bad_lines += 1;
        }
    }
    stats
}

/// What `discover` found of the project, cut to the kept files, the sidecars
/// of kept agents and the side files of kept sessions.
fn cut_source(
    source: &ProjectSource,
    files: &Renumber<FileId>,
    agent_ids: &FxHashSet<&str>,
    session_ids: &FxHashSet<&str>,
) -> ProjectSource {
    ProjectSource {
        name: source.name.clone(),
        dir: source.dir.clone(),
        files: files.kept(&source.files).cloned().collect(),
        agent_meta: source
            .agent_meta
            .iter()
            .filter(|(id, _)| agent_ids.contains(id.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        tool_results: source
            .tool_results
            .iter()
            .filter(|(k, _)| k.split('/').next().is_some_and(|s| session_ids.contains(s)))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        warnings: source.warnings.clone(),
        client: source.client,
        cwd: source.cwd.clone(),
        session_titles: source.session_titles.clone(),
    }
}

/// The lines a cut-down project keeps: of kept nodes, their summaries and
/// queued messages, and the metadata of kept sessions.
fn kept_entries(
    g: &Graph,
    entries: &Entries,
    source: &ProjectSource,
    nodes: &Renumber<NodeId>,
    session_ids: &FxHashSet<&str>,
) -> IdVec<EntryId, bool> {
    let mut entry_keep: IdVec<EntryId, bool> = IdVec::filled(false, entries.len());
    for n in nodes.kept(&g.nodes) {
        entry_keep[n.entry] = true;
    }
    for &(n, e) in &g.aliases {
        if nodes.keeps(n) {
            entry_keep[e] = true;
        }
    }
    for s in &g.summaries {
        if s.node.is_some_and(|n| nodes.keeps(n)) {
            entry_keep[s.entry] = true;
        }
    }
    for (n, qs) in &g.queued {
        if nodes.keeps(*n) {
            qs.iter().for_each(|q| entry_keep[*q] = true);
        }
    }
    let own_file_session: IdVec<FileId, Option<&str>> = source
        .files
        .iter()
        .map(|f| {
            let live = crate::layout::split_kept(&f.rel).unwrap_or_else(|| f.rel.clone());
            live.strip_suffix(".jsonl").filter(|s| !s.contains('/')).and_then(|s| session_ids.get(s).copied())
        })
        .collect();
    for (i, e) in entries.iter_enumerated() {
        if e.is_node() || entry_keep[i] {
            continue;
        }
        let by_node = match (&e.kind, &e.meta) {
            (Kind::Summary, _) | (_, Some(Meta::Summary { .. } | Meta::Queue { .. })) => continue,
            (_, Some(Meta::FileHistory { message })) => Some(g.index.get(&**message).is_some_and(|n| nodes.keeps(*n))),
            _ => None,
        };
        let session_kept = match e.session_id.as_deref() {
            Some(s) => session_ids.contains(s),
            None => own_file_session.get(e.loc.file).is_some_and(Option::is_some),
        };
        entry_keep[i] = session_kept && by_node.unwrap_or(true);
    }
    entry_keep
}

/// The renumbering of everything a graph indexes.
struct Maps {
    nodes: Renumber<NodeId>,
    convs: Renumber<ConversationId>,
    agents: Renumber<AgentId>,
    branches: Renumber<BranchId>,
    sessions: Renumber<SessionId>,
    entries: Renumber<EntryId>,
}

impl Maps {
    fn node(&self, n: NodeId) -> Option<NodeId> {
        self.nodes.get(n)
    }

    fn nodes_of(&self, v: &[NodeId]) -> Vec<NodeId> {
        v.iter().filter_map(|n| self.node(*n)).collect()
    }

    fn graph(&self, g: &Graph) -> Graph {
        let nodes = self.nodes.kept(&g.nodes).filter_map(|n| self.node_of(n)).collect();
        let children = self.nodes.kept(&g.children).map(|c| self.nodes_of(c)).collect();
        // A kept node's turn candidates are its kept candidates (being one
        // depends on the child alone).
        let turn_children = self.nodes.kept(&g.turn_children).map(|c| self.nodes_of(c)).collect();
        let conversations = self.convs.kept(&g.conversations).filter_map(|c| self.conversation(c)).collect();
        let branches = self.branches.kept(&g.branches).filter_map(|b| self.branch(b)).collect();
        let agents = self.agents.kept(&g.agents).map(|a| self.agent(a)).collect();
        let sessions = self.sessions.kept(&g.sessions).map(|s| self.session(s)).collect();
        let index = g.index.iter().filter_map(|(k, n)| Some((k.clone(), self.node(*n)?))).collect();
        let aliases = g.aliases.iter().filter_map(|(n, e)| Some((self.node(*n)?, self.entries.get(*e)?))).collect();
        let summaries = g
            .summaries
            .iter()
            .filter_map(|s| {
                let node = self.node(s.node?)?;
                Some(SummaryRef { entry: self.entries.get(s.entry)?, node: Some(node) })
            })
            .collect();
        let findings = g.findings.iter().filter_map(|f| self.finding(f)).collect();
        let child_roles: FxHashMap<NodeId, crate::graph::ChildRole> =
            g.child_roles.iter().filter_map(|(n, r)| Some((self.node(*n)?, *r))).collect();
        let tools = g.tools.iter().filter_map(|(id, l)| Some((id.clone(), self.tool_link(l)?))).collect();
        let queued = g
            .queued
            .iter()
            .filter_map(|(n, qs)| Some((self.node(*n)?, qs.iter().filter_map(|q| self.entries.get(*q)).collect())))
            .collect();
        let (splices, splice_links) = self.splices(g);
        let splice_at = splices.iter().zip(0u32..).map(|(sp, k)| (sp.boundary, k)).collect();
        let mut out = Graph {
            nodes,
            index,
            children,
            aliases,
            sessions,
            conversations,
            branches,
            agents,
            summaries,
            findings,
            child_roles,
            turn_children,
            multi_child: MultiChildCounts::default(),
            tools,
            compactions: 0,
            splices,
            splice_links,
            splice_at,
            queued,
            unplaced_queued: Vec::new(),
            fork_index: FxHashMap::default(),
            branch_forks: FxHashMap::default(),
        };
        out.multi_child = multi_child(&out);
        out.index_forks();
        out
    }

    /// A kept node (its entry and session are kept).
    fn node_of(&self, n: &Node) -> Option<Node> {
        Some(Node {
            entry: self.entries.get(n.entry)?,
            parent: n.parent.and_then(|p| self.node(p)),
            link: n.link,
            session: self.sessions.get(n.session)?,
            sidechain: n.sidechain,
            ts: n.ts,
            conversation: n.conversation.and_then(|c| self.convs.get(c)),
            branch: n.branch.and_then(|b| self.branches.get(b)),
            agent: n.agent.and_then(|a| self.agents.get(a)),
            compaction: n.compaction,
        })
    }

    /// The splices whose boundary, anchor and kept messages are all kept
    /// (a conversation keeps all of its own), renumbered, with the links of
    /// the nodes they moved.
    fn splices(&self, g: &Graph) -> (Vec<Splice>, FxHashMap<NodeId, (u32, SpliceLink)>) {
        let mut place: FxHashMap<u32, u32> = FxHashMap::default();
        let mut out = Vec::new();
        for (k, sp) in g.splices.iter().enumerate() {
            let (Some(boundary), Some(anchor)) = (self.node(sp.boundary), self.node(sp.anchor)) else { continue };
            let Some(kept) = sp.kept.iter().map(|n| self.node(*n)).collect::<Option<Vec<NodeId>>>() else { continue };
            let (Ok(k), Ok(new)) = (u32::try_from(k), u32::try_from(out.len())) else { continue };
            place.insert(k, new);
            out.push(Splice { boundary, anchor, kept, before: sp.before });
        }
        let links =
            g.splice_links.iter().filter_map(|(n, (s, why))| Some((self.node(*n)?, (*place.get(s)?, *why)))).collect();
        (out, links)
    }

    fn session(&self, s: &Session) -> Session {
        Session {
            session_id: s.session_id.clone(),
            first_ts: s.first_ts,
            last_ts: s.last_ts,
            custom_title: s.custom_title.clone(),
            ai_title: s.ai_title.clone(),
            last_prompt: s.last_prompt.clone(),
            fork_of: s.fork_of.and_then(|n| self.node(n)),
            copied_from: s.copied_from.iter().filter_map(|c| self.sessions.get(*c)).collect(),
            leaf: s.leaf.and_then(|n| self.node(n)),
        }
    }

    /// A tool call and its results, as far as they are kept (`None`: nothing is).
    fn tool_link(&self, l: &ToolLink) -> Option<ToolLink> {
        let link = ToolLink { use_node: l.use_node.and_then(|n| self.node(n)), results: self.nodes_of(&l.results) };
        (link.use_node.is_some() || !link.results.is_empty()).then_some(link)
    }

    /// A kept branch (its nodes, its conversation and its session are kept).
    fn branch(&self, b: &Branch) -> Option<Branch> {
        Some(Branch {
            conversation: self.convs.get(b.conversation)?,
            first: self.node(b.first)?,
            fork_point: b.fork_point.and_then(|n| self.node(n)),
            parent_branch: b.parent_branch.and_then(|p| self.branches.get(p)),
            depth: b.depth,
            nodes: self.nodes_of(&b.nodes),
            leaf: self.node(b.leaf)?,
            messages: b.messages,
            summary: b.summary.clone(),
            title: b.title.clone(),
            last_ts: b.last_ts,
            session: self.sessions.get(b.session)?,
        })
    }

    fn agent(&self, a: &Agent) -> Agent {
        Agent {
            agent_id: a.agent_id.clone(),
            kind: a.kind,
            nodes: self.nodes_of(&a.nodes),
            spawn: a.spawn.as_ref().map(|s| Spawn {
                tool_use_id: s.tool_use_id.clone(),
                use_node: s.use_node.and_then(|n| self.node(n)),
                result_node: s.result_node.and_then(|n| self.node(n)),
            }),
            attached_to: a.attached_to.and_then(|n| self.node(n)),
            meta: a.meta.clone(),
            first_ts: a.first_ts,
            messages: a.messages,
        }
    }

    fn finding(&self, f: &GraphFinding) -> Option<GraphFinding> {
        let problem = match &f.problem {
            Problem::ConflictingDuplicate { uuid, others } => Problem::ConflictingDuplicate {
                uuid: uuid.clone(),
                others: others.iter().filter_map(|o| self.entries.get(*o)).collect(),
            },
            other => other.clone(),
        };
        Some(GraphFinding { entry: self.entries.get(f.entry)?, problem })
    }

    /// A kept conversation (its root and its branches are kept).
    fn conversation(&self, c: &Conversation) -> Option<Conversation> {
        Some(Conversation {
            root: self.node(c.root)?,
            branches: c.branches.iter().filter_map(|b| self.branches.get(*b)).collect(),
            fork_points: c
                .fork_points
                .iter()
                .filter_map(|f| {
                    Some(ForkPoint {
                        node: self.node(f.node)?,
                        kind: f.kind,
                        children: self.nodes_of(&f.children),
                        labels: f.labels.clone(),
                        branch: self.branches.get(f.branch)?,
                    })
                })
                .collect(),
            sessions: c.sessions.iter().filter_map(|s| self.sessions.get(*s)).collect(),
            title: c.title.clone(),
            title_source: c.title_source,
            first_prompt: c.first_prompt.clone(),
            active_branch: self.branches.get(c.active_branch)?,
            first_ts: c.first_ts,
            last_ts: c.last_ts,
            messages: c.messages,
            is_fragment: c.is_fragment,
            junctions: c
                .junctions
                .iter()
                .filter_map(|j| {
                    Some(Junction {
                        session: self.sessions.get(j.session)?,
                        at: self.node(j.at)?,
                        first: j.first.and_then(|n| self.node(n)),
                        kind: j.kind,
                    })
                })
                .collect(),
        })
    }
}

/// A compaction root (a boundary or a 1.0.x summary root, joined or not), as
/// the graph counts them.
fn is_compaction(n: &Node) -> bool {
    n.compaction.is_some_and(|k| k != CompactionKind::Micro)
}

/// What the multi-child nodes of a (cut down) graph turned out to be.
fn multi_child(g: &Graph) -> MultiChildCounts {
    use crate::graph::ChildRole;
    let mut m = MultiChildCounts::default();
    for id in g.nodes.ids() {
        if g.node(id).sidechain {
            continue;
        }
        let kids: Vec<NodeId> = g.main_children(id).collect();
        if kids.len() < 2 {
            continue;
        }
        m.total += 1;
        if g.fork_at(id).is_some() {
            m.fork_points += 1;
        } else if kids
            .iter()
            .any(|k| matches!(g.child_roles.get(k), Some(ChildRole::Continuation | ChildRole::NewConversation)))
        {
            m.continuations += 1;
        } else {
            m.artifacts += 1;
        }
    }
    m
}

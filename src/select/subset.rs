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
//! - the agents it spawned ([`agent_owners`]: the conversation of the call
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

use crate::discover::ProjectSource;
use crate::graph::{
    Agent, Branch, Conversation, ForkPoint, Graph, GraphFinding, Junction, MultiChildCounts, NONE, Node, NodeId,
    Problem, Session, Spawn, SummaryRef, ToolLink,
};
use crate::parse::{Entry, Kind, Meta};
use crate::project::{FileStats, Project};

/// The conversation each agent belongs to: the conversation of the node that
/// spawned it (its call, else its result), else of the main node it hangs
/// from; an agent spawned inside another agent belongs where that one does.
/// `None`: spawned by no conversation (an orphan sub-agent file, a Warmup).
pub fn agent_owners(g: &Graph) -> Vec<Option<u32>> {
    let direct: Vec<Vec<NodeId>> = g
        .agents
        .iter()
        .map(|a| {
            let spawn = a.spawn.as_ref();
            let by_tool = spawn.and_then(|s| s.tool_use_id.as_deref()).and_then(|t| g.tools.get(t)?.use_node);
            let parents = a.nodes.iter().filter_map(|n| g.node(*n).parent);
            [spawn.and_then(|s| s.use_node), by_tool, spawn.and_then(|s| s.result_node), a.attached_to]
                .into_iter()
                .flatten()
                .chain(parents)
                .collect()
        })
        .collect();
    let mut owners: Vec<Option<u32>> = vec![None; g.agents.len()];
    for (a, owner) in owners.iter_mut().enumerate() {
        // Follow spawning agents up (iteratively; a loop of agents spawning
        // one another ends as an orphan).
        let mut seen = FxHashSet::default();
        let mut cur = a;
        *owner = loop {
            if !seen.insert(cur) {
                break None;
            }
            let mut next = None;
            let mut found = None;
            for n in &direct[cur] {
                let node = g.node(*n);
                if !node.sidechain && (node.conversation as usize) < g.conversations.len() {
                    found = Some(node.conversation);
                    break;
                }
                if node.sidechain && node.agent != NONE && node.agent as usize != cur && next.is_none() {
                    next = Some(node.agent as usize);
                }
            }
            match (found, next) {
                (Some(c), _) => break Some(c),
                (None, Some(up)) if (up) < g.agents.len() => cur = up,
                _ => break None,
            }
        };
    }
    owners
}

/// Old index → new index of the kept items of a list (`NONE`: dropped).
struct Renumber(Vec<u32>);

impl Renumber {
    fn new(keep: impl Iterator<Item = bool>) -> Renumber {
        let mut next = 0;
        Renumber(
            keep.map(|k| {
                if k {
                    next += 1;
                    next - 1
                } else {
                    NONE
                }
            })
            .collect(),
        )
    }

    fn get(&self, old: u32) -> Option<u32> {
        self.0.get(old as usize).copied().filter(|n| *n != NONE)
    }

    fn keeps(&self, old: u32) -> bool {
        self.get(old).is_some()
    }

    fn node(&self, old: NodeId) -> Option<NodeId> {
        self.get(old.0).map(NodeId)
    }
}

/// `project` holding only the conversations `keep` (indices into its
/// conversations) and what belongs to them (see the module doc).
pub fn restrict(project: Project, keep: &[u32]) -> Project {
    let Project { source, file_stats, entries, warnings, texts, redactions, graph: g } = project;
    let owners = agent_owners(&g);
    let mut conv_keep = vec![false; g.conversations.len()];
    for &c in keep {
        if let Some(k) = conv_keep.get_mut(c as usize) {
            *k = true;
        }
    }
    let agent_keep: Vec<bool> = owners.iter().map(|o| o.is_some_and(|c| conv_keep[c as usize])).collect();
    let nodes = Renumber::new(g.nodes.iter().map(|n| {
        if n.sidechain {
            agent_keep.get(n.agent as usize).copied().unwrap_or(false)
        } else {
            conv_keep.get(n.conversation as usize).copied().unwrap_or(false)
        }
    }));
    let convs = Renumber::new(conv_keep.iter().copied());
    let agents = Renumber::new(agent_keep.iter().copied());
    let branches = Renumber::new(g.branches.iter().map(|b| conv_keep[b.conversation as usize]));

    // Sessions: those of kept nodes, branches, conversations and junctions.
    let mut session_keep = vec![false; g.sessions.len()];
    let mut mark = |s: u32| {
        if let Some(k) = session_keep.get_mut(s as usize) {
            *k = true;
        }
    };
    for (i, n) in g.nodes.iter().enumerate() {
        if nodes.keeps(i as u32) {
            mark(n.session);
        }
    }
    for (_, c) in g.conversations.iter().enumerate().filter(|(i, _)| conv_keep[*i]) {
        c.sessions.iter().copied().for_each(&mut mark);
        c.junctions.iter().for_each(|j| mark(j.session));
        for &b in &c.branches {
            mark(g.branches[b as usize].session);
        }
    }
    let sessions = Renumber::new(session_keep.iter().copied());
    let session_ids: FxHashSet<&str> =
        g.sessions.iter().enumerate().filter(|(i, _)| session_keep[*i]).map(|(_, s)| &*s.id).collect();

    // Lines: of kept nodes, their summaries and queued messages, and the
    // metadata of kept sessions.
    let mut entry_keep = vec![false; entries.len()];
    for (i, n) in g.nodes.iter().enumerate() {
        if nodes.keeps(i as u32) {
            entry_keep[n.entry as usize] = true;
        }
    }
    for (n, e) in &g.aliases {
        if nodes.keeps(n.0) {
            entry_keep[*e as usize] = true;
        }
    }
    for s in &g.summaries {
        if s.node.is_some_and(|n| nodes.keeps(n.0)) {
            entry_keep[s.entry as usize] = true;
        }
    }
    for (n, qs) in &g.queued {
        if nodes.keeps(n.0) {
            qs.iter().for_each(|q| entry_keep[*q as usize] = true);
        }
    }
    let own_file_session: Vec<Option<&str>> = source
        .files
        .iter()
        .map(|f| {
            let live = crate::discover::split_kept(&f.rel).unwrap_or_else(|| f.rel.clone());
            live.strip_suffix(".jsonl").filter(|s| !s.contains('/')).and_then(|s| session_ids.get(s).copied())
        })
        .collect();
    for (i, e) in entries.iter().enumerate() {
        if e.is_node() || entry_keep[i] {
            continue;
        }
        let by_node = match (&e.kind, &e.meta) {
            (Kind::Summary, _) | (_, Some(Meta::Summary { .. } | Meta::Queue { .. })) => continue,
            (_, Some(Meta::FileHistory { message })) => Some(g.index.get(&**message).is_some_and(|n| nodes.keeps(n.0))),
            _ => None,
        };
        let session_kept = match e.session_id.as_deref() {
            Some(s) => session_ids.contains(s),
            None => own_file_session.get(e.loc.file as usize).is_some_and(Option::is_some),
        };
        entry_keep[i] = session_kept && by_node.unwrap_or(true);
    }
    let entry_map = Renumber::new(entry_keep.iter().copied());
    let mut file_keep = vec![false; source.files.len()];
    for (e, _) in entries.iter().zip(&entry_keep).filter(|(_, k)| **k) {
        if let Some(k) = file_keep.get_mut(e.loc.file as usize) {
            *k = true;
        }
    }
    let files = Renumber::new(file_keep.iter().copied());

    let new_entries: Vec<Entry> = entries
        .into_iter()
        .zip(&entry_keep)
        .filter(|(_, k)| **k)
        .map(|(mut e, _)| {
            e.loc.file = files.get(e.loc.file).unwrap_or(0);
            e
        })
        .collect();
    let kept_locs: FxHashSet<crate::parse::Loc> = new_entries.iter().map(|e| e.loc).collect();
    let relocate = |mut loc: crate::parse::Loc| {
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
    let mut new_stats: Vec<FileStats> = file_stats
        .into_iter()
        .zip(&file_keep)
        .filter(|(_, k)| **k)
        .map(|(s, _)| FileStats { lines: 0, bad_lines: 0, bytes: 0, read_error: s.read_error })
        .collect();
    for e in &new_entries {
        let s = &mut new_stats[e.loc.file as usize];
        s.lines += 1;
        s.bytes += u64::from(e.len) + 1;
    }
    for w in &new_warnings {
        if w.problem.is_bad_line() {
            new_stats[w.loc.file as usize].lines += 1;
            new_stats[w.loc.file as usize].bad_lines += 1;
        }
    }
    let new_texts = texts.into_iter().zip(&file_keep).filter(|(_, k)| **k).map(|(t, _)| t).collect();

    let kept_agent_ids: FxHashSet<&str> =
        g.agents.iter().enumerate().filter(|(i, _)| agent_keep[*i]).map(|(_, a)| &*a.id).collect();
    let new_source = ProjectSource {
        name: source.name.clone(),
        dir: source.dir.clone(),
        files: source.files.iter().zip(&file_keep).filter(|(_, k)| **k).map(|(f, _)| f.clone()).collect(),
        agent_meta: source
            .agent_meta
            .iter()
            .filter(|(id, _)| kept_agent_ids.contains(id.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        tool_results: source
            .tool_results
            .iter()
            .filter(|(k, _)| k.split('/').next().is_some_and(|s| session_ids.contains(s)))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        warnings: source.warnings.clone(),
    };

    let maps = Maps { nodes, convs, agents, branches, sessions, entries: entry_map };
    let mut graph = maps.graph(&g);
    graph.compactions = graph.nodes.iter().filter(|n| is_compaction(&new_entries, n)).count() as u32;
    Project {
        source: new_source,
        file_stats: new_stats,
        entries: new_entries,
        warnings: new_warnings,
        texts: new_texts,
        redactions: new_redactions,
        graph,
    }
}

/// The renumbering of everything a graph indexes.
struct Maps {
    nodes: Renumber,
    convs: Renumber,
    agents: Renumber,
    branches: Renumber,
    sessions: Renumber,
    entries: Renumber,
}

impl Maps {
    fn node(&self, n: NodeId) -> Option<NodeId> {
        self.nodes.node(n)
    }

    /// A `u32` index field of a node (`NONE` stays `NONE`).
    fn index(map: &Renumber, old: u32) -> u32 {
        map.get(old).unwrap_or(NONE)
    }

    fn graph(&self, g: &Graph) -> Graph {
        let kept = |i: usize| self.nodes.keeps(i as u32);
        let nodes: Vec<Node> = g
            .nodes
            .iter()
            .enumerate()
            .filter(|(i, _)| kept(*i))
            .map(|(_, n)| Node {
                entry: Self::index(&self.entries, n.entry),
                parent: n.parent.and_then(|p| self.node(p)),
                link: n.link,
                session: Self::index(&self.sessions, n.session),
                sidechain: n.sidechain,
                ts: n.ts,
                conversation: Self::index(&self.convs, n.conversation),
                branch: Self::index(&self.branches, n.branch),
                agent: Self::index(&self.agents, n.agent),
            })
            .collect();
        let children = g
            .children
            .iter()
            .enumerate()
            .filter(|(i, _)| kept(*i))
            .map(|(_, c)| c.iter().filter_map(|n| self.node(*n)).collect())
            .collect();
        let nodes_of = |v: &[NodeId]| v.iter().filter_map(|n| self.node(*n)).collect::<Vec<_>>();
        let conversations: Vec<Conversation> = g
            .conversations
            .iter()
            .enumerate()
            .filter(|(i, _)| self.convs.keeps(*i as u32))
            .map(|(_, c)| self.conversation(c))
            .collect();
        let branches = g
            .branches
            .iter()
            .enumerate()
            .filter(|(i, _)| self.branches.keeps(*i as u32))
            .map(|(_, b)| Branch {
                conversation: Self::index(&self.convs, b.conversation),
                first: self.node(b.first).unwrap_or(NodeId(NONE)),
                fork_point: b.fork_point.and_then(|n| self.node(n)),
                parent_branch: b.parent_branch.and_then(|p| self.branches.get(p)),
                depth: b.depth,
                nodes: nodes_of(&b.nodes),
                leaf: self.node(b.leaf).unwrap_or(NodeId(NONE)),
                messages: b.messages,
                summary: b.summary.clone(),
                title: b.title.clone(),
                last_ts: b.last_ts,
                session: Self::index(&self.sessions, b.session),
            })
            .collect();
        let agents = g
            .agents
            .iter()
            .enumerate()
            .filter(|(i, _)| self.agents.keeps(*i as u32))
            .map(|(_, a)| Agent {
                id: a.id.clone(),
                kind: a.kind,
                nodes: nodes_of(&a.nodes),
                spawn: a.spawn.as_ref().map(|s| Spawn {
                    tool_use_id: s.tool_use_id.clone(),
                    use_node: s.use_node.and_then(|n| self.node(n)),
                    result_node: s.result_node.and_then(|n| self.node(n)),
                }),
                attached_to: a.attached_to.and_then(|n| self.node(n)),
                meta: a.meta.clone(),
                first_ts: a.first_ts,
                messages: a.messages,
            })
            .collect();
        let sessions = g
            .sessions
            .iter()
            .enumerate()
            .filter(|(i, _)| self.sessions.keeps(*i as u32))
            .map(|(_, s)| Session {
                id: s.id.clone(),
                first_ts: s.first_ts,
                last_ts: s.last_ts,
                custom_title: s.custom_title.clone(),
                ai_title: s.ai_title.clone(),
                last_prompt: s.last_prompt.clone(),
                fork_of: s.fork_of.and_then(|n| self.node(n)),
                copied_from: s.copied_from.iter().filter_map(|c| self.sessions.get(*c)).collect(),
                leaf: s.leaf.and_then(|n| self.node(n)),
            })
            .collect();
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
        let findings = g
            .findings
            .iter()
            .filter_map(|f| {
                let problem = match &f.problem {
                    Problem::ConflictingDuplicate { uuid, others } => Problem::ConflictingDuplicate {
                        uuid: uuid.clone(),
                        others: others.iter().filter_map(|o| self.entries.get(*o)).collect(),
                    },
                    other => other.clone(),
                };
                Some(GraphFinding { entry: self.entries.get(f.entry)?, problem })
            })
            .collect();
        let child_roles: FxHashMap<NodeId, crate::graph::ChildRole> =
            g.child_roles.iter().filter_map(|(n, r)| Some((self.node(*n)?, *r))).collect();
        let tools = g
            .tools
            .iter()
            .filter_map(|(id, l)| {
                let link = ToolLink {
                    use_node: l.use_node.and_then(|n| self.node(n)),
                    results: l.results.iter().filter_map(|n| self.node(*n)).collect(),
                };
                (link.use_node.is_some() || !link.results.is_empty()).then(|| (id.clone(), link))
            })
            .collect();
        let queued = g
            .queued
            .iter()
            .filter_map(|(n, qs)| Some((self.node(*n)?, qs.iter().filter_map(|q| self.entries.get(*q)).collect())))
            .collect();
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
            multi_child: MultiChildCounts::default(),
            tools,
            compactions: 0,
            queued,
            unplaced_queued: Vec::new(),
        };
        out.multi_child = multi_child(&out);
        out
    }

    fn conversation(&self, c: &Conversation) -> Conversation {
        let node = |n: NodeId| self.node(n).unwrap_or(NodeId(NONE));
        Conversation {
            root: node(c.root),
            branches: c.branches.iter().filter_map(|b| self.branches.get(*b)).collect(),
            fork_points: c
                .fork_points
                .iter()
                .filter_map(|f| {
                    Some(ForkPoint {
                        node: self.node(f.node)?,
                        kind: f.kind,
                        children: f.children.iter().filter_map(|n| self.node(*n)).collect(),
                        labels: f.labels.clone(),
                        branch: self.branches.get(f.branch)?,
                    })
                })
                .collect(),
            sessions: c.sessions.iter().filter_map(|s| self.sessions.get(*s)).collect(),
            title: c.title.clone(),
            title_source: c.title_source,
            first_prompt: c.first_prompt.clone(),
            active_branch: Self::index(&self.branches, c.active_branch),
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
        }
    }
}

/// A compaction root (a boundary or a 1.0.x summary root, joined or not), as
/// the graph counts them.
fn is_compaction(entries: &[Entry], n: &Node) -> bool {
    use crate::graph::Link;
    use crate::parse::UserKind;
    let Some(e) = entries.get(n.entry as usize) else { return false };
    !n.sidechain
        && matches!(n.link, Link::Root | Link::CycleCut | Link::Compaction | Link::CompactionByTime)
        && (e.is_compact_boundary() || (e.kind == Kind::User && e.user_kind == UserKind::CompactSummary))
}

/// What the multi-child nodes of a (cut down) graph turned out to be.
fn multi_child(g: &Graph) -> MultiChildCounts {
    use crate::graph::ChildRole;
    let mut m = MultiChildCounts::default();
    for i in 0..g.nodes.len() {
        let id = NodeId(i as u32);
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

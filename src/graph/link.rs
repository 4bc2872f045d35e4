//! Dedupe, parent resolution, compaction joins and cycle breaking (§5.2 steps 1–6).

use rustc_hash::{FxHashMap, FxHashSet};

use super::{Graph, GraphFinding, GraphInput, Link, Node, NodeId, Problem, Session, SessionId};
use crate::discover::FileId;
use crate::id::IdVec;
use crate::limits::COMPACTION_LOOKBACK;
use crate::parse::{Entries, Entry, EntryId, Kind, UserKind};

/// Builds nodes, parents and children. Conversations and branches come later.
pub(super) fn link(input: &GraphInput<'_>) -> Graph {
    let entries = input.entries;
    let mut g = Graph::default();

    // Sessions, interned in `sessionId` order.
    let mut session_ids: Vec<&str> = entries.iter().map(|e| e.session_id.as_deref().unwrap_or("")).collect();
    session_ids.sort_unstable();
    session_ids.dedup();
    g.sessions = session_ids.iter().map(|s| Session { session_id: (*s).into(), ..Session::default() }).collect();
    let session_ix: FxHashMap<&str, SessionId> = g.sessions.ids().zip(session_ids).map(|(id, s)| (s, id)).collect();
    for e in entries {
        if let Some(ts) = e.timestamp {
            let s = &mut g.sessions[session_ix[e.session_id.as_deref().unwrap_or("")]];
            s.first_ts = Some(s.first_ts.map_or(ts, |f| f.min(ts)));
            s.last_ts = Some(s.last_ts.map_or(ts, |f| f.max(ts)));
        }
    }

    dedupe(&mut g, input, &session_ix);
    // Checkpoints of `cctree fork` sessions.
    for e in entries {
        if let (Some(cp), Some(sid)) = (e.cctree_fork.as_deref(), e.session_id.as_deref()) {
            if let (Some(&node), Some(&s)) = (g.index.get(cp), session_ix.get(sid)) {
                g.sessions[s].fork_of = Some(node);
            }
        }
    }

    // Physical parents.
    for n in g.nodes.ids() {
        let e = &entries[g.nodes[n].entry];
        if let Some(p) = e.parent_uuid.as_deref() {
            match g.index.get(p) {
                Some(&pid) => {
                    g.nodes[n].parent = Some(pid);
                    g.nodes[n].link = Link::Physical;
                }
                None => {
                    g.nodes[n].link = Link::Dangling;
                    g.findings.push(GraphFinding {
                        entry: g.nodes[n].entry,
                        problem: Problem::DanglingParent { parent: p.into() },
                    });
                }
            }
        }
    }
    break_cycles(&mut g);
    join_compactions(&mut g, entries);
    break_cycles(&mut g);
    // Effective timestamps and children.
    g.children = IdVec::filled(Vec::new(), g.nodes.len());
    for (n, node) in g.nodes.iter_enumerated() {
        if let Some(p) = node.parent {
            g.children[p].push(n);
        }
    }
    inherit_timestamps(&mut g);
    let nodes = &g.nodes;
    for c in &mut g.children {
        c.sort_unstable_by_key(|id| (nodes[*id].ts, *id));
    }

    index_tools(&mut g, entries);
    g
}

/// One node per uuid, its canonical instance chosen among the copies (§5.4);
/// other instances are aliases, differing ones P1 findings.
fn dedupe(g: &mut Graph, input: &GraphInput<'_>, session_ix: &FxHashMap<&str, SessionId>) {
    let entries = input.entries;
    let session_of = |e: &Entry| session_ix[e.session_id.as_deref().unwrap_or("")];
    // Group instances by uuid; uuids in sorted order give order-free node ids.
    // One sort of (uuid, entry) pairs: no map, no list per uuid.
    let mut pairs: Vec<(&str, EntryId)> =
        entries.iter_enumerated().filter_map(|(i, e)| Some((e.uuid.as_deref()?, i))).collect();
    {
        use rayon::slice::ParallelSliceMut;
        pairs.par_sort_unstable();
    }
    let mut groups: Vec<(&str, std::ops::Range<usize>)> = Vec::new();
    for (k, (u, _)) in pairs.iter().enumerate() {
        match groups.last_mut() {
            Some((last, range)) if last == u => range.end = k + 1,
            _ => groups.push((u, k..k + 1)),
        }
    }
    let instances_of: Vec<EntryId> = pairs.iter().map(|(_, i)| *i).collect();
    drop(pairs);

    let is_side = |e: &Entry| e.is_sidechain || input.files[e.loc.file].class.is_agent();
    let copies = Copies::new(entries, input.files.len(), session_ix);
    for (sess, src) in g.sessions.iter_mut().zip(&copies.direct) {
        sess.copied_from = src.clone();
    }
    // A previous version kept by `cctree sync`: the live file is newer.
    let in_kept_version = |e: &Entry| input.files.get(e.loc.file).is_some_and(|f| f.kept_version);
    // Canonical instance (§5.4): main thread first; then not a copy (an
    // instance whose session copied from the session of another instance,
    // or a line `cctree fork` copied); then the live file over a previous
    // version kept by `cctree sync`; then the session that started first,
    // the session id, the line's own bytes.
    // `sessions`: the sessions of all instances of the uuid, sorted. Linear
    // in the instances: a prefix copied into 200,000 sessions costs each
    // instance what its own session copied from, not the other instances.
    let canon_key = |i: EntryId, sessions: &[SessionId]| {
        let e = &entries[i];
        let s = session_of(e);
        let copied = copies.reach[s].iter().any(|t| sessions.binary_search(t).is_ok() && copies.copies(s, *t));
        let sess = &g.sessions[s];
        (
            is_side(e),
            copied,
            copies.cctree_copy(e, s),
            in_kept_version(e),
            sess.first_ts.unwrap_or(i64::MAX),
            &sess.session_id,
            e.line_hash,
            e.payload_hash,
        )
    };

    let canonical: Vec<EntryId> = groups
        .iter()
        .map(|(_, range)| {
            let instances = &instances_of[range.clone()];
            if let [only] = instances {
                return *only;
            }
            let mut sessions: Vec<SessionId> = instances.iter().map(|&j| session_of(&entries[j])).collect();
            sessions.sort_unstable();
            sessions.dedup();
            *instances.iter().min_by_key(|&&i| canon_key(i, &sessions)).unwrap_or(&instances[0])
        })
        .collect();
    g.nodes.reserve(groups.len());
    g.index.reserve(groups.len());
    for ((u, range), &canonical) in groups.iter().zip(&canonical) {
        let id = g.nodes.next_id();
        let instances = &instances_of[range.clone()];
        let ce = &entries[canonical];
        add_aliases(g, entries, (id, u, canonical), instances);
        g.nodes.push(Node {
            entry: canonical,
            parent: None,
            link: Link::Root,
            session: session_of(ce),
            sidechain: is_side(ce),
            ts: ce.timestamp.unwrap_or(i64::MIN),
            conversation: None,
            branch: None,
            agent: None,
        });
        g.index.insert((*u).into(), id);
    }
}

/// The other instances of a uuid become aliases; those a reader would see
/// differently are a P1 finding.
fn add_aliases(g: &mut Graph, entries: &Entries, (id, u, canonical): (NodeId, &str, EntryId), instances: &[EntryId]) {
    let ce = &entries[canonical];
    let mut conflicting: Vec<EntryId> = Vec::new();
    for &i in instances {
        if i == canonical {
            continue;
        }
        g.aliases.push((id, i));
        let e = &entries[i];
        // Copies may differ in envelope keys and in how a text is stored
        // (a string or one text block): only what a reader sees counts.
        if e.kind != ce.kind || e.content_hash != ce.content_hash {
            conflicting.push(i);
        }
    }
    if !conflicting.is_empty() {
        conflicting.sort_by_key(|i| entries[*i].loc);
        g.findings.push(GraphFinding {
            entry: canonical,
            problem: Problem::ConflictingDuplicate { uuid: u.into(), others: conflicting },
        });
    }
}

/// Compaction joins (§5.7): boundaries to their logical parent, else after
/// the preceding node of the session in time; 1.0.x summary roots likewise.
fn join_compactions(g: &mut Graph, entries: &Entries) {
    let mut by_session: FxHashMap<SessionId, Vec<(i64, NodeId)>> = FxHashMap::default();
    for (n, node) in g.nodes.iter_enumerated() {
        if !node.sidechain && node.ts != i64::MIN {
            by_session.entry(node.session).or_default().push((node.ts, n));
        }
    }
    for v in by_session.values_mut() {
        v.sort_unstable();
    }
    for id in g.nodes.ids() {
        let node = &g.nodes[id];
        if node.parent.is_some() || node.sidechain || node.link == Link::Dangling {
            continue;
        }
        let e = &entries[node.entry];
        let is_boundary = e.is_compact_boundary();
        let is_old_summary = e.kind == Kind::User && e.user_kind == UserKind::CompactSummary;
        if !is_boundary && !is_old_summary {
            continue;
        }
        g.compactions += 1;
        let (entry, ts, session) = (node.entry, node.ts, node.session);
        let logical = e.logical_parent_uuid.as_deref();
        match logical.and_then(|l| g.index.get(l)).copied() {
            // A preserved segment can be re-parented under the summary, so the
            // logical parent may sit below the boundary: then join by time.
            Some(pid) if !descends_from(g, pid, id) => {
                g.nodes[id].parent = Some(pid);
                g.nodes[id].link = Link::Compaction;
                continue;
            }
            Some(_) => {}
            None => {
                if let Some(l) = logical {
                    g.findings
                        .push(GraphFinding { entry, problem: Problem::DanglingLogicalParent { parent: l.into() } });
                }
            }
        }
        if ts == i64::MIN {
            continue;
        }
        let list = &by_session[&session];
        // The latest node before this one in (ts, id) order that is not below it.
        let pos = list.partition_point(|&(t, i)| (t, i) < (ts, id));
        let prev =
            list[..pos].iter().rev().take(COMPACTION_LOOKBACK).map(|&(_, p)| p).find(|&p| !descends_from(g, p, id));
        if let Some(prev) = prev {
            g.nodes[id].parent = Some(prev);
            g.nodes[id].link = Link::CompactionByTime;
        }
    }
}

/// Tool calls and results, project-wide by id (§4.6).
fn index_tools(g: &mut Graph, entries: &Entries) {
    for (n, node) in g.nodes.iter_enumerated() {
        let e = &entries[node.entry];
        for u in &e.tool_uses {
            let link = g.tools.entry(u.id.clone()).or_default();
            // Two nodes claiming one id: keep the first by node id (deterministic).
            if link.use_node.is_none() {
                link.use_node = Some(n);
            }
        }
        for r in &e.tool_results {
            g.tools.entry(r.tool_use_id.clone()).or_default().results.push(n);
        }
    }
}

/// Which sessions copied entries from which (transcript-format §5.4,
/// appendix B): a session with an entry whose `forkedFrom.sessionId` or
/// `requestSessionId` names another session copied from it (`--fork-session`,
/// `/branch`); and which lines `cctree fork` copied (in a file holding a
/// `cctreeFork` record, under another session id than the fork's own).
struct Copies {
    /// Sources of each session, sorted.
    direct: IdVec<SessionId, Vec<SessionId>>,
    /// Everything each session copied from, directly or through other copies.
    reach: IdVec<SessionId, FxHashSet<SessionId>>,
    /// The fork session of each file `cctree fork` wrote.
    fork_file: IdVec<FileId, Option<SessionId>>,
}

impl Copies {
    fn new(entries: &Entries, files: usize, session_ix: &FxHashMap<&str, SessionId>) -> Copies {
        let mut direct: IdVec<SessionId, Vec<SessionId>> = IdVec::filled(Vec::new(), session_ix.len());
        let mut fork_file = IdVec::filled(None, files);
        for e in entries {
            let Some(&s) = session_ix.get(e.session_id.as_deref().unwrap_or("")) else { continue };
            if let Some(&src) = e.copied_from.as_deref().and_then(|c| session_ix.get(c)) {
                direct[s].push(src);
            }
            if e.cctree_fork.is_some() {
                if let Some(f) = fork_file.get_mut(e.loc.file) {
                    *f = Some(s);
                }
            }
        }
        for d in &mut direct {
            d.sort_unstable();
            d.dedup();
        }
        let reach = direct
            .iter()
            .map(|sources| {
                let mut r = FxHashSet::default();
                let mut stack = sources.clone();
                while let Some(t) = stack.pop() {
                    if r.insert(t) {
                        stack.extend_from_slice(&direct[t]);
                    }
                }
                r
            })
            .collect();
        Copies { direct, reach, fork_file }
    }

    /// Session `s` copied from session `t` (and not the other way round).
    fn copies(&self, s: SessionId, t: SessionId) -> bool {
        s != t && self.reach[s].contains(&t) && !self.reach[t].contains(&s)
    }

    /// A line `cctree fork` copied byte for byte (it keeps its source's session).
    fn cctree_copy(&self, e: &Entry, session: SessionId) -> bool {
        self.fork_file.get(e.loc.file).copied().flatten().is_some_and(|f| f != session)
    }
}

/// Whether `node` is `ancestor` or lies below it (walks parents; bounded).
fn descends_from(g: &Graph, node: NodeId, ancestor: NodeId) -> bool {
    let mut cur = Some(node);
    let mut steps = 0usize;
    while let Some(c) = cur {
        if c == ancestor {
            return true;
        }
        steps += 1;
        if steps > g.nodes.len() {
            return false;
        }
        cur = g.nodes[c].parent;
    }
    false
}

/// Cuts one edge of every parent cycle. In a cycle the edge cut is a join if
/// there is one, else the parent pointer of the earliest node (by time, then
/// uuid): that node becomes a root. Iterative; independent of input order.
fn break_cycles(g: &mut Graph) {
    /// Where the walk up the parents stands with a node.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Visit {
        Unseen,
        /// On the path of the walk that started at this node.
        OnPath(NodeId),
        /// Its whole parent chain is known to end at a root.
        Done,
    }
    let mut state: IdVec<NodeId, Visit> = IdVec::filled(Visit::Unseen, g.nodes.len());
    let mut path = Vec::new();
    for start in g.nodes.ids() {
        if state[start] != Visit::Unseen {
            continue;
        }
        path.clear();
        let mut cur = start;
        loop {
            if state[cur] == Visit::Done {
                break;
            }
            if state[cur] == Visit::OnPath(start) {
                // Found a cycle: the part of `path` from `cur` on.
                let at = path.iter().position(|&x| x == cur).unwrap_or(0);
                let cycle: &[NodeId] = &path[at..];
                let cut = cycle
                    .iter()
                    .copied()
                    .filter(|&x| g.nodes[x].link.is_join())
                    .min()
                    .or_else(|| cycle.iter().copied().min_by_key(|&x| (g.nodes[x].ts, x)))
                    .unwrap_or(cur);
                g.nodes[cut].parent = None;
                g.nodes[cut].link = super::Link::CycleCut;
                g.findings.push(GraphFinding { entry: g.nodes[cut].entry, problem: Problem::Cycle });
                break;
            }
            state[cur] = Visit::OnPath(start);
            path.push(cur);
            match g.nodes[cur].parent {
                Some(p) => cur = p,
                None => break,
            }
        }
        for &x in &path {
            state[x] = Visit::Done;
        }
    }
}

/// Nodes without a timestamp take their parent's (roots without one: 0).
fn inherit_timestamps(g: &mut Graph) {
    let mut stack: Vec<NodeId> = g.roots().collect();
    for &r in &stack {
        if g.nodes[r].ts == i64::MIN {
            g.nodes[r].ts = 0;
        }
    }
    while let Some(id) = stack.pop() {
        let ts = g.nodes[id].ts;
        for i in 0..g.children[id].len() {
            let c = g.children[id][i];
            if g.nodes[c].ts == i64::MIN {
                g.nodes[c].ts = ts;
            }
            stack.push(c);
        }
    }
}

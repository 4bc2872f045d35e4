//! Dedupe, parent resolution, compaction joins and cycle breaking (§5.2 steps 1–6).

use rustc_hash::{FxHashMap, FxHashSet};

use super::{
    CompactionKind, Graph, GraphFinding, GraphInput, Link, Node, NodeId, Problem, Session, SessionId, Splice,
    SpliceLink,
};
use crate::id::IdVec;
use crate::limits::{COMPACTION_LOOKBACK, KEPT_WALK_BUDGET};
use crate::model::FileId;
use crate::model::{Direction, Entries, Entry, EntryId, Kept, Kind, Meta, UserKind};

/// Builds nodes, parents and children. Conversations and branches come later.
pub(super) fn link(input: &GraphInput<'_>) -> Graph {
    let entries = input.entries;
    let mut g = Graph::default();

    // Sessions, interned in `sessionId` order; each entry's session found
    // with one lookup of its id (the passes below index it by entry).
    let mut seen: FxHashMap<&str, usize> = FxHashMap::default();
    let first_seen: Vec<usize> = entries
        .iter()
        .map(|e| {
            let next = seen.len();
            *seen.entry(e.session_id.as_deref().unwrap_or("")).or_insert(next)
        })
        .collect();
    let mut session_ids: Vec<&str> = seen.keys().copied().collect();
    session_ids.sort_unstable();
    g.sessions = session_ids.iter().map(|s| Session { session_id: (*s).into(), ..Session::default() }).collect();
    let session_ix: FxHashMap<&str, SessionId> = g.sessions.ids().zip(session_ids).map(|(id, s)| (s, id)).collect();
    // Ids in first-seen order (0, 1, …) to sessions.
    let mut by_seen: Vec<(usize, SessionId)> = seen.iter().map(|(s, &i)| (i, session_ix[s])).collect();
    by_seen.sort_unstable();
    let session_of: IdVec<EntryId, SessionId> = first_seen.iter().map(|&i| by_seen[i].1).collect();
    for (i, e) in entries.iter_enumerated() {
        if let Some(ts) = e.timestamp {
            let s = &mut g.sessions[session_of[i]];
            s.first_ts = Some(s.first_ts.map_or(ts, |f| f.min(ts)));
            s.last_ts = Some(s.last_ts.map_or(ts, |f| f.max(ts)));
        }
    }

    dedupe(&mut g, input, &session_ix, &session_of);
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
        if let Some(p) = e.parent.as_deref() {
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
fn dedupe(
    g: &mut Graph,
    input: &GraphInput<'_>,
    session_ix: &FxHashMap<&str, SessionId>,
    entry_session: &IdVec<EntryId, SessionId>,
) {
    let entries = input.entries;
    let session_of = |i: EntryId| entry_session[i];
    // Group instances by uuid; uuids in sorted order give order-free node ids.
    // One sort of (uuid, entry) pairs: no map, no list per uuid. Each pair
    // carries its uuid's first eight bytes as a number that orders as they
    // do, so that most comparisons read no string (each uuid lives in an
    // allocation of its own: a comparison of two strings is two cache
    // misses, and a sort makes n log n of them).
    let mut pairs: Vec<(u64, &str, EntryId)> =
        entries.iter_enumerated().filter_map(|(i, e)| e.uuid.as_deref().map(|u| (order_prefix(u), u, i))).collect();
    {
        use rayon::slice::ParallelSliceMut;
        pairs.par_sort_unstable();
    }
    let mut groups: Vec<(&str, std::ops::Range<usize>)> = Vec::new();
    let mut last_prefix = None;
    for (k, &(prefix, u, _)) in pairs.iter().enumerate() {
        match groups.last_mut() {
            Some((last, range)) if last_prefix == Some(prefix) && *last == u => range.end = k + 1,
            _ => groups.push((u, k..k + 1)),
        }
        last_prefix = Some(prefix);
    }
    let instances_of: Vec<EntryId> = pairs.iter().map(|&(_, _, i)| i).collect();
    drop(pairs);

    let is_side = |e: &Entry| e.sidechain || input.files[e.loc.file].class.is_agent();
    let copies = Copies::new(entries, input.files.len(), session_ix, entry_session);
    for (sess, src) in g.sessions.iter_mut().zip(&copies.direct) {
        sess.copied_from = src.clone();
    }
    // A previous version kept by `cctree sync`: the live file is newer.
    let in_kept_version = |e: &Entry| input.files.get(e.loc.file).is_some_and(|f| f.kept_version);
    // Canonical instance (§5.4): main thread first; then not a copy (an
    // instance whose session copied from the session of another instance,
    // or a line `cctree fork` copied); then the live file over a previous
    // version kept by `cctree sync`; then the session that started first,
    // one that wrote what it shares ([`wrote_what_they_share`]: a resume
    // copy keeps the first timestamp of what it copied), the session id,
    // the line's own bytes.
    // `sessions`: the sessions of all instances of the uuid, sorted. Linear
    // in the instances: a prefix copied into 200,000 sessions costs each
    // instance what its own session copied from, not the other instances.
    let wrote = wrote_what_they_share(entries, &groups, &instances_of, g.sessions.len(), &session_of, &is_side);
    let canon_key = |i: EntryId, sessions: &[SessionId]| {
        let e = &entries[i];
        let s = session_of(i);
        let copied = copies.reach[s].iter().any(|t| sessions.binary_search(t).is_ok() && copies.copies(s, *t));
        let sess = &g.sessions[s];
        (
            is_side(e),
            copied,
            copies.cctree_copy(e, s),
            in_kept_version(e),
            sess.first_ts.unwrap_or(i64::MAX),
            !wrote[s],
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
            let mut sessions: Vec<SessionId> = instances.iter().map(|&j| session_of(j)).collect();
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
            session: session_of(canonical),
            sidechain: is_side(ce),
            ts: ce.timestamp.unwrap_or(i64::MIN),
            conversation: None,
            branch: None,
            agent: None,
            compaction: None,
        });
        g.index.insert((*u).into(), id);
    }
}

/// The first eight bytes of `s` as a big-endian number (zeros after a
/// shorter string): `order_prefix(a) < order_prefix(b)` implies `a < b`, and
/// equal prefixes leave the order to the strings themselves.
fn order_prefix(s: &str) -> u64 {
    let mut b = [0u8; 8];
    let n = s.len().min(8);
    b[..n].copy_from_slice(&s.as_bytes()[..n]);
    u64::from_be_bytes(b)
}

/// Sessions that hold a node of their own (no other session has it) written
/// before a node they share: they wrote what they share themselves, where a
/// copy made by a resume (2.0.x–2.1.19: no marker, the same uuids and
/// timestamps, so the first timestamps tie) only adds nodes after all it
/// copied. An original that rewound before it was copied holds the
/// abandoned attempt alone, older than the line the copy took (§5.4).
/// Linear in the instances.
fn wrote_what_they_share(
    entries: &Entries,
    groups: &[(&str, std::ops::Range<usize>)],
    instances_of: &[EntryId],
    sessions: usize,
    session_of: &dyn Fn(EntryId) -> SessionId,
    is_side: &dyn Fn(&Entry) -> bool,
) -> IdVec<SessionId, bool> {
    let mut own_first: IdVec<SessionId, i64> = IdVec::filled(i64::MAX, sessions);
    let mut shared_last: IdVec<SessionId, i64> = IdVec::filled(i64::MIN, sessions);
    for (_, range) in groups {
        let main = || instances_of[range.clone()].iter().copied().filter(|&i| !is_side(&entries[i]));
        let Some(first) = main().next().map(session_of) else { continue };
        let alone = main().all(|i| session_of(i) == first);
        for i in main() {
            let (s, Some(ts)) = (session_of(i), entries[i].timestamp) else { continue };
            if alone {
                own_first[s] = own_first[s].min(ts);
            } else {
                shared_last[s] = shared_last[s].max(ts);
            }
        }
    }
    own_first.iter().zip(shared_last.iter()).map(|(o, s)| o < s).collect()
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

/// Compaction joins (§5.7), compactions in time order: a compaction that
/// kept messages puts them where the client does ([`splice`]); the others
/// join their logical parent, else the preceding node of the session in
/// time; 1.0.x summary roots likewise. Every compaction gets its kind.
fn join_compactions(g: &mut Graph, entries: &Entries) {
    let mut by_session: FxHashMap<SessionId, Vec<(i64, NodeId)>> = FxHashMap::default();
    // What a partial compaction's summary says it summarized, by its parent
    // (the boundary).
    let mut direction: FxHashMap<NodeId, Direction> = FxHashMap::default();
    let mut roots: Vec<(i64, NodeId)> = Vec::new();
    let mut micro: Vec<NodeId> = Vec::new();
    for (n, node) in g.nodes.iter_enumerated() {
        if node.sidechain {
            continue;
        }
        let e = &entries[node.entry];
        if node.ts != i64::MIN {
            by_session.entry(node.session).or_default().push((node.ts, n));
        }
        if let (Some(Meta::Summarized(d)), Some(p)) = (&e.meta, node.parent) {
            direction.insert(p, *d);
        }
        if e.is_system("microcompact_boundary") {
            micro.push(n);
        }
        let is_root = node.parent.is_none() && node.link != Link::Dangling;
        if is_root && (e.is_compact_boundary() || (e.kind == Kind::User && e.user_kind == UserKind::CompactSummary)) {
            roots.push((node.ts, n));
        }
    }
    for v in by_session.values_mut() {
        v.sort_unstable();
    }
    for n in micro {
        g.nodes[n].compaction = Some(CompactionKind::Micro);
    }
    roots.sort_unstable();
    let mut forest = Forest::new(g);
    let mut splicer = Splicer::new(g, entries, &roots);
    for (ts, id) in roots {
        g.compactions += 1;
        let e = &entries[g.nodes[id].entry];
        let kept = match &e.meta {
            Some(Meta::Kept(k)) => Some(&**k),
            _ => None,
        };
        let from_here = kept.is_some_and(|k| e.uuid.as_deref() == Some(&*k.anchor));
        g.nodes[id].compaction = Some(match direction.get(&id) {
            _ if from_here => CompactionKind::From,
            Some(Direction::From) => CompactionKind::From,
            Some(Direction::UpTo) => CompactionKind::UpTo,
            None => CompactionKind::Full,
        });
        // Spliced and joined where its kept messages were: done.
        if kept.and_then(|k| splicer.splice(g, &mut forest, id, k)) == Some(true) {
            continue;
        }
        // A session none of whose nodes has a time has no list: joined by
        // its logical parent only.
        let list = by_session.get(&g.nodes[id].session).map_or(&[][..], Vec::as_slice);
        join(g, &mut forest, id, ts, e.logical_parent.as_deref(), list);
    }
}

/// Joins compaction root `id` to its logical parent, or after the latest
/// node of its session before it in time (`list`: the session's nodes by
/// time) that is not below it.
fn join(g: &mut Graph, forest: &mut Forest, id: NodeId, ts: i64, logical: Option<&str>, list: &[(i64, NodeId)]) {
    match logical.and_then(|l| g.index.get(l)).copied() {
        // A preserved segment can be re-parented under the summary, so the
        // logical parent may sit below the boundary: then join by time.
        Some(pid) if !forest.below(pid, id) => {
            forest.set_parent(id, pid);
            g.nodes[id].parent = Some(pid);
            g.nodes[id].link = Link::Compaction;
            return;
        }
        Some(_) => {}
        None => {
            if let Some(l) = logical {
                let entry = g.nodes[id].entry;
                g.findings.push(GraphFinding { entry, problem: Problem::DanglingLogicalParent { parent: l.into() } });
            }
        }
    }
    if ts == i64::MIN {
        return;
    }
    // The latest node before this one in (ts, id) order that is not below it.
    let pos = list.partition_point(|&(t, i)| (t, i) < (ts, id));
    let prev = list[..pos].iter().rev().take(COMPACTION_LOOKBACK).map(|&(_, p)| p).find(|&p| !forest.below(p, id));
    if let Some(prev) = prev {
        forest.set_parent(id, prev);
        g.nodes[id].parent = Some(prev);
        g.nodes[id].link = Link::CompactionByTime;
    }
}

/// Places the messages compactions kept (§5.7, observed on 2.1.332), as the
/// client does when it loads a session: the kept messages after the anchor
/// (the summary), and what hung from the anchor after the last of them; the
/// boundary joins where the first kept message was.
/// For "Summarize from here" (the anchor is the boundary) the kept messages
/// stay where they are and the boundary joins after the last of them: the
/// same order of messages. Walks without a list share a budget linear in the
/// nodes.
struct Splicer {
    /// The main children of every anchor, kept up to date as nodes move.
    children: FxHashMap<NodeId, Vec<NodeId>>,
    /// Steps left for walking kept segments that come without a list.
    budget: usize,
}

impl Splicer {
    fn new(g: &Graph, entries: &Entries, roots: &[(i64, NodeId)]) -> Splicer {
        let mut children: FxHashMap<NodeId, Vec<NodeId>> = roots
            .iter()
            .filter_map(|&(_, b)| match &entries[g.nodes[b].entry].meta {
                Some(Meta::Kept(k)) => g.index.get(&*k.anchor).map(|&a| (a, Vec::new())),
                _ => None,
            })
            .collect();
        if !children.is_empty() {
            for (n, node) in g.nodes.iter_enumerated() {
                if let Some(v) = node.parent.and_then(|p| children.get_mut(&p)).filter(|_| !node.sidechain) {
                    v.push(n);
                }
            }
        }
        Splicer { children, budget: g.nodes.len().saturating_mul(KEPT_WALK_BUDGET) }
    }

    fn main(g: &Graph, uuid: Option<&str>) -> Option<NodeId> {
        g.index.get(uuid?).copied().filter(|n| !g.nodes[*n].sidechain)
    }

    /// The kept messages in the client's order: the list, or the chain from
    /// the tail up to the head. `None` when one is missing or the walk fails.
    fn kept(&mut self, g: &Graph, kept: &Kept) -> Option<Vec<NodeId>> {
        if !kept.uuids.is_empty() {
            return kept.uuids.iter().map(|u| Self::main(g, Some(u))).collect();
        }
        let head = Self::main(g, kept.head.as_deref())?;
        let mut cur = Self::main(g, kept.tail.as_deref())?;
        let mut out = vec![cur];
        while cur != head {
            self.budget = self.budget.checked_sub(1)?;
            cur = g.nodes[cur].parent.filter(|p| !g.nodes[*p].sidechain)?;
            out.push(cur);
        }
        out.reverse();
        Some(out)
    }

    /// Moves `n` under `p` (a splice link of splice `s`); the anchors'
    /// children are updated by the caller.
    fn move_to(g: &mut Graph, forest: &mut Forest, n: NodeId, p: NodeId, (s, why): (u32, SpliceLink)) {
        forest.set_parent(n, p);
        g.nodes[n].parent = Some(p);
        g.nodes[n].link = Link::Spliced;
        g.splice_links.insert(n, (s, why));
    }

    /// The main children of anchor `a` now (its list holds every node that
    /// hung there once, in the order they came; those moved away since are
    /// dropped here, so a move costs nothing and a read what it reads).
    fn children_of(&mut self, g: &Graph, a: NodeId) -> Vec<NodeId> {
        let Some(v) = self.children.get_mut(&a) else { return Vec::new() };
        let mut seen: FxHashSet<NodeId> = FxHashSet::default();
        v.retain(|&c| g.nodes[c].parent == Some(a) && seen.insert(c));
        v.clone()
    }

    /// Splices what boundary `b` kept, and says whether `b` is joined too.
    /// `None` when it cannot (a kept message or the anchor missing, the
    /// anchor not the boundary's summary, a kept message twice, kept
    /// messages already below the boundary, the first kept message above
    /// the anchor): `b` is then joined as any compaction, as it is when the
    /// first kept message had no parent. What hung from the anchor is moved
    /// after the last kept message unless that lies below it (hostile
    /// lists: the move would close a cycle).
    fn splice(&mut self, g: &mut Graph, forest: &mut Forest, b: NodeId, kept: &Kept) -> Option<bool> {
        let anchor = Self::main(g, Some(&kept.anchor))?;
        let before = anchor == b;
        if !before && g.nodes[anchor].parent != Some(b) {
            return None;
        }
        let list = self.kept(g, kept)?;
        let mut seen: FxHashSet<NodeId> = FxHashSet::default();
        if list.is_empty() || list.iter().any(|&n| n == b || n == anchor || !seen.insert(n)) {
            return None;
        }
        let (first, last) = (list[0], list[list.len() - 1]);
        if before && forest.below(last, b) {
            return None;
        }
        let moves_first = !before && g.nodes[first].parent != Some(anchor);
        if moves_first && forest.below(anchor, first) {
            return None;
        }
        let s = u32::try_from(g.splices.len()).unwrap_or(u32::MAX);
        // Where the first kept message was: the boundary joins there.
        let was = g.nodes[first].parent.filter(|p| *p != anchor && !seen.contains(p));
        // The kept messages go on as they were written, from the anchor: the
        // client chains them in their order, which is the order they were
        // written in; a kept message off that chain (a parallel call's
        // block or result) stays beside it, where it was.
        if moves_first {
            Self::move_to(g, forest, first, anchor, (s, SpliceLink::Kept));
            if let Some(v) = self.children.get_mut(&anchor) {
                v.push(first);
            }
        }
        let join = if before {
            Some(last)
        } else {
            let after: Vec<NodeId> = self.children_of(g, anchor).into_iter().filter(|c| !seen.contains(c)).collect();
            for c in after {
                if forest.below(last, c) {
                    continue;
                }
                Self::move_to(g, forest, c, last, (s, SpliceLink::AfterKept));
                if let Some(v) = self.children.get_mut(&last) {
                    v.push(c);
                }
            }
            was.filter(|p| !forest.below(*p, b))
        };
        if let Some(p) = join {
            forest.set_parent(b, p);
            g.nodes[b].parent = Some(p);
            g.nodes[b].link = Link::Compaction;
            if before {
                g.splice_links.insert(b, (s, SpliceLink::Boundary));
            }
        }
        g.splice_at.insert(b, s);
        g.splices.push(Splice { boundary: b, anchor, kept: list, before });
        Some(join.is_some())
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
    fn new(
        entries: &Entries,
        files: usize,
        session_ix: &FxHashMap<&str, SessionId>,
        entry_session: &IdVec<EntryId, SessionId>,
    ) -> Copies {
        let mut direct: IdVec<SessionId, Vec<SessionId>> = IdVec::filled(Vec::new(), session_ix.len());
        let mut fork_file = IdVec::filled(None, files);
        for (i, e) in entries.iter_enumerated() {
            let s = entry_session[i];
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

/// The forest while compaction boundaries are joined and kept messages
/// spliced, as a link-cut tree (Sleator and Tarjan; each preferred path a
/// splay tree), so that "does this node lie below that one" and "hang this
/// node there" cost amortized O(log n) however deep the trees grow. Walking
/// the parents instead made N compactions, each joined under the one before,
/// cost N², with or without kept messages. Iterative; the parents
/// it starts from hold no cycle (`break_cycles` ran).
struct Forest {
    /// A node's parent in its splay tree, or for the root of a splay tree
    /// the parent of its path's top in the forest.
    up: IdVec<NodeId, Option<NodeId>>,
    /// Children in the splay tree: left above on the path, right below.
    kid: IdVec<NodeId, [Option<NodeId>; 2]>,
}

impl Forest {
    /// Every node a path of its own, hanging from its parent.
    fn new(g: &Graph) -> Forest {
        Forest { up: g.nodes.iter().map(|n| n.parent).collect(), kid: IdVec::filled([None, None], g.nodes.len()) }
    }

    /// Whether `x` is the root of its splay tree.
    fn top(&self, x: NodeId) -> bool {
        self.up[x].is_none_or(|p| self.kid[p][0] != Some(x) && self.kid[p][1] != Some(x))
    }

    fn rotate(&mut self, x: NodeId) {
        let Some(p) = self.up[x] else { return };
        let above = self.up[p];
        let p_top = self.top(p);
        let d = usize::from(self.kid[p][1] == Some(x));
        let inner = self.kid[x][1 - d];
        self.kid[p][d] = inner;
        if let Some(i) = inner {
            self.up[i] = Some(p);
        }
        self.kid[x][1 - d] = Some(p);
        self.up[p] = Some(x);
        self.up[x] = above;
        if let (false, Some(a)) = (p_top, above) {
            let e = usize::from(self.kid[a][1] == Some(p));
            self.kid[a][e] = Some(x);
        }
    }

    fn splay(&mut self, x: NodeId) {
        while !self.top(x) {
            let Some(p) = self.up[x] else { return };
            if !self.top(p) {
                let Some(a) = self.up[p] else { return };
                let zigzig = (self.kid[a][1] == Some(p)) == (self.kid[p][1] == Some(x));
                self.rotate(if zigzig { p } else { x });
            }
            self.rotate(x);
        }
    }

    /// Makes the path from `x`'s root to `x` one splay tree, `x` its root.
    fn access(&mut self, x: NodeId) {
        let mut below = None;
        let mut cur = Some(x);
        while let Some(v) = cur {
            self.splay(v);
            self.kid[v][1] = below;
            below = Some(v);
            cur = self.up[v];
        }
        self.splay(x);
    }

    /// Whether `node` is `ancestor` or lies below it.
    fn below(&mut self, node: NodeId, ancestor: NodeId) -> bool {
        if node == ancestor {
            return true;
        }
        // After the access the splay tree of `node` holds exactly its
        // ancestors; splaying `ancestor` there takes the root from `node`.
        self.access(node);
        self.splay(ancestor);
        !self.top(node)
    }

    /// `n` now hangs under `p` (which must not lie below `n`).
    fn set_parent(&mut self, n: NodeId, p: NodeId) {
        self.access(n);
        if let Some(l) = self.kid[n][0].take() {
            self.up[l] = None;
        }
        self.up[n] = Some(p);
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Whether `node` is `ancestor` or lies below it, walking the parents.
    fn walks_to(parent: &[Option<usize>], mut node: usize, ancestor: usize) -> bool {
        loop {
            if node == ancestor {
                return true;
            }
            match parent[node] {
                Some(p) => node = p,
                None => return false,
            }
        }
    }

    fn id(i: usize) -> NodeId {
        NodeId::new(i).unwrap_or_else(|| unreachable!())
    }

    proptest! {
        /// Sorting by (prefix, string) orders strings as sorting the
        /// strings does: short ones, NULs, shared prefixes and all.
        #[test]
        fn the_order_prefix_orders_as_the_strings_do(
            a in "[a\\x00\\x01b\\u{e9}]{0,10}",
            b in "[a\\x00\\x01b\\u{e9}]{0,10}",
        ) {
            prop_assert_eq!((order_prefix(&a), a.as_str()).cmp(&(order_prefix(&b), b.as_str())), a.cmp(&b));
        }

        /// The link-cut forest answers "below" as a walk up the parents
        /// does, through any sequence of moves that close no cycle (a
        /// random forest, then nodes hung elsewhere: joins of roots and
        /// splices of inner nodes).
        #[test]
        fn the_forest_answers_as_a_walk_up_the_parents(
            parents in prop::collection::vec(prop::option::of(0usize..1000), 1..60),
            moves in prop::collection::vec((0usize..1000, 0usize..1000, 0usize..1000, 0usize..1000), 0..80),
        ) {
            let n = parents.len();
            // A parent only among earlier nodes: no cycle to start with.
            let mut parent: Vec<Option<usize>> =
                parents.iter().enumerate().map(|(i, p)| p.filter(|_| i > 0).map(|p| p % i)).collect();
            let mut forest = Forest {
                up: parent.iter().map(|p| p.map(id)).collect(),
                kid: IdVec::filled([None, None], n),
            };
            for (a, b, x, y) in moves {
                let (a, b, x, y) = (a % n, b % n, x % n, y % n);
                prop_assert_eq!(forest.below(id(x), id(y)), walks_to(&parent, x, y));
                if !walks_to(&parent, b, a) {
                    forest.set_parent(id(a), id(b));
                    parent[a] = Some(b);
                }
            }
            for x in 0..n {
                for y in 0..n {
                    prop_assert_eq!(forest.below(id(x), id(y)), walks_to(&parent, x, y), "{} {}", x, y);
                }
            }
        }
    }
}

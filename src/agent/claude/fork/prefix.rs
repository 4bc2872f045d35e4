//! The prefix of a checkpoint (what a fork copies) and whether the checkpoint
//! is legal. One fold, `Folder`, serves both the exact prefix of one
//! checkpoint and [`legal_checkpoints`] over a whole display path (memoized,
//! so linear in the path).

use rustc_hash::{FxHashMap, FxHashSet};

use crate::graph::{ChildRole, Graph, Link, NodeId, Walk};
use crate::limits::TURN_LOOKAHEAD;
use crate::model::{Entries, Entry, Kind, UserKind};
use crate::project::Project;

/// What the prefix of a checkpoint holds, as far as legality is concerned.
#[derive(Debug, Clone, Default)]
pub(crate) struct State<'e> {
    /// tool_use ids on the prefix without a result yet, whose result exists
    /// somewhere in the project (with how many times each is open).
    open: Ids<'e>,
    /// tool_use ids without a result anywhere in the project (interrupted or
    /// aborted calls), not yet followed by a user entry.
    dead: Ids<'e>,
    /// The prefix holds a user or assistant entry.
    has_message: bool,
    /// `message.id` of the latest assistant entry on the prefix.
    turn: Option<&'e str>,
    /// tool_results on the prefix whose call was not open (inherited orphans
    /// or duplicates of the source).
    orphans: u32,
}

/// A multiset of tool_use ids: constant time to add, take and look up (a
/// message of N parallel calls holds N open ids at once; a list made each
/// result cost N).
#[derive(Debug, Clone, Default)]
struct Ids<'e> {
    counts: FxHashMap<&'e str, u32>,
}

impl<'e> Ids<'e> {
    fn push(&mut self, id: &'e str) {
        *self.counts.entry(id).or_default() += 1;
    }
    /// Takes one `id`; whether there was one.
    fn take(&mut self, id: &str) -> bool {
        match self.counts.get_mut(id) {
            Some(n) if *n > 1 => {
                *n -= 1;
                true
            }
            Some(_) => {
                self.counts.remove(id);
                true
            }
            None => false,
        }
    }
    fn contains(&self, id: &str) -> bool {
        self.counts.contains_key(id)
    }
    fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }
    fn clear(&mut self) {
        self.counts.clear();
    }
    /// Every id (once per time it is held), sorted.
    fn sorted(&self) -> Vec<String> {
        let mut ids: Vec<String> =
            self.counts.iter().flat_map(|(id, n)| std::iter::repeat_n(id.to_string(), *n as usize)).collect();
        ids.sort();
        ids
    }
}

/// Why a checkpoint is not legal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Illegal {
    /// A sidechain (sub-agent, side agent) node: not part of the conversation.
    Sidechain,
    /// A `progress` or `attachment` node, or an unknown type: structural, not a turn.
    Structural(String),
    /// The prefix holds no user or assistant entry.
    NoMessage,
    /// More streamed blocks of this assistant response come after the checkpoint.
    TurnIncomplete(String),
    /// These tool calls get their results after the checkpoint.
    OpenToolUse(Vec<String>),
    /// The prefix ends on tool calls that never got a result.
    UnansweredToolUse(Vec<String>),
}

impl std::fmt::Display for Illegal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Illegal::Sidechain => f.write_str("it is inside an agent transcript (sidechain)"),
            Illegal::Structural(t) => {
                write!(f, "it is a `{t}` entry, not the end of a user or assistant turn")
            }
            Illegal::NoMessage => f.write_str("the prefix would hold no user or assistant message"),
            Illegal::TurnIncomplete(m) => {
                write!(f, "it is in the middle of a streamed assistant response ({m}): more blocks follow")
            }
            Illegal::OpenToolUse(ids) => {
                write!(f, "it lies between a tool_use and its tool_result ({})", ids.join(", "))
            }
            Illegal::UnansweredToolUse(ids) => {
                write!(f, "it ends on tool calls that never got a result ({})", ids.join(", "))
            }
        }
    }
}

/// The fold over a chain, shared by the exact prefix and the memoized scan.
pub(crate) struct Folder<'p> {
    g: &'p Graph,
    entries: &'p Entries,
}

impl<'p> Folder<'p> {
    pub(crate) fn new(p: &'p Project) -> Self {
        Folder { g: &p.graph, entries: &p.entries }
    }

    fn entry(&self, n: NodeId) -> &'p Entry {
        self.g.entry(self.entries, n)
    }

    fn has_main_result(&self, id: &str) -> bool {
        self.g.tools.get(id).is_some_and(|l| l.results.iter().any(|r| !self.g.node(*r).sidechain))
    }

    /// Appends one node to the prefix state.
    fn apply(&self, s: &mut State<'p>, n: NodeId) {
        let e = self.entry(n);
        for r in &e.tool_results {
            let id = &*r.tool_use_id;
            if !s.open.take(id) && !s.dead.take(id) {
                s.orphans += 1;
            }
        }
        if e.kind == Kind::User && e.tool_results.is_empty() {
            // A prompt, marker or interrupt after an unanswered call: Claude
            // Code moved on, so the call no longer blocks a checkpoint.
            s.dead.clear();
        }
        for u in &e.tool_uses {
            if self.has_main_result(&u.id) {
                s.open.push(&u.id);
            } else {
                s.dead.push(&u.id);
            }
        }
        if matches!(e.kind, Kind::User | Kind::Assistant) {
            s.has_message = true;
        }
        if e.kind == Kind::Assistant {
            s.turn = e.message_id.as_deref();
        }
    }

    /// Whether an off-chain node belongs to the turn of the chain: a streamed
    /// block of the same response, or a tool_result answering only open calls.
    fn accepts(&self, s: &State<'p>, n: NodeId) -> bool {
        let g = self.g;
        if g.node(n).sidechain {
            return false;
        }
        let role = g.child_roles.get(&n).copied();
        if role == Some(ChildRole::Replay) {
            return false;
        }
        let e = self.entry(n);
        match e.kind {
            Kind::Assistant => {
                role != Some(ChildRole::Aborted) && e.message_id.is_some() && e.message_id.as_deref() == s.turn
            }
            Kind::User => {
                e.user_kind != UserKind::Prompt
                    && !e.tool_results.is_empty()
                    && e.tool_results.iter().all(|r| s.open.contains(&r.tool_use_id) || s.dead.contains(&r.tool_use_id))
            }
            _ => false,
        }
    }

    /// Adds the off-chain children of chain node `x` that belong to its turn
    /// (all children except `next`, the chain's continuation), depth first.
    fn extras(&self, s: &mut State<'p>, x: NodeId, next: NodeId, out: Option<&mut Vec<NodeId>>) {
        let g = self.g;
        let mut out = out;
        // Only the turn's candidates: a node's other children (a million
        // prompts of rewinds) are never part of its turn.
        let mut stack: Vec<NodeId> = g.turn_children(x).iter().rev().copied().filter(|c| *c != next).collect();
        let mut guard = 0usize;
        while let Some(n) = stack.pop() {
            guard += 1;
            if guard > g.nodes.len() {
                break;
            }
            if !self.accepts(s, n) {
                continue;
            }
            self.apply(s, n);
            if let Some(o) = out.as_deref_mut() {
                o.push(n);
            }
            stack.extend(g.turn_children(n).iter().rev());
        }
    }

    /// Folds a chain (root first) into its prefix state, collecting the
    /// prefix's nodes in path order when `out` is given.
    pub(crate) fn fold(&self, mut s: State<'p>, chain: &[NodeId], mut out: Option<&mut Vec<NodeId>>) -> State<'p> {
        for (i, &x) in chain.iter().enumerate() {
            self.apply(&mut s, x);
            if let Some(o) = out.as_deref_mut() {
                o.push(x);
            }
            if let Some(&next) = chain.get(i + 1) {
                self.extras(&mut s, x, next, out.as_deref_mut());
            }
        }
        s
    }

    /// Extends the prefix state `s` of `x` to its chain child `k`.
    fn step(&self, s: &mut State<'p>, x: NodeId, k: NodeId) {
        self.extras(s, x, k, None);
        self.apply(s, k);
    }

    /// Whether a checkpoint with prefix state `s` is legal.
    pub(crate) fn judge(&self, s: &State<'p>, k: NodeId) -> Result<(), Illegal> {
        self.verdict(s, k, true)
    }

    /// [`Folder::judge`]; the ids of the calls that make it illegal only
    /// when `ids` (listing them costs their number, on every node).
    fn verdict(&self, s: &State<'p>, k: NodeId, ids: bool) -> Result<(), Illegal> {
        let g = self.g;
        let e = self.entry(k);
        if g.node(k).sidechain {
            return Err(Illegal::Sidechain);
        }
        if !matches!(e.kind, Kind::User | Kind::Assistant | Kind::System) {
            return Err(Illegal::Structural(e.kind.name().to_string()));
        }
        if !s.has_message {
            return Err(Illegal::NoMessage);
        }
        if let Some(m) = s.turn {
            if self.turn_continues_after(k, m) {
                return Err(Illegal::TurnIncomplete(m.to_string()));
            }
        }
        if !s.open.is_empty() {
            return Err(Illegal::OpenToolUse(if ids { s.open.sorted() } else { Vec::new() }));
        }
        if !s.dead.is_empty() {
            return Err(Illegal::UnansweredToolUse(if ids { s.dead.sorted() } else { Vec::new() }));
        }
        Ok(())
    }

    /// Whether a streamed block of response `m` hangs below `k` (within the turn).
    fn turn_continues_after(&self, k: NodeId, m: &str) -> bool {
        let g = self.g;
        // At most TURN_LOOKAHEAD + 1 nodes are popped, last first: no earlier
        // child is ever reached (a node may have a million children).
        let mut stack: Vec<NodeId> = g.last_main_children(k, TURN_LOOKAHEAD + 1);
        let mut seen = 0usize;
        while let Some(n) = stack.pop() {
            seen += 1;
            if seen > TURN_LOOKAHEAD {
                break;
            }
            if g.child_roles.get(&n) == Some(&ChildRole::Replay) {
                continue;
            }
            let e = self.entry(n);
            match e.kind {
                Kind::Assistant => {
                    if e.message_id.as_deref() == Some(m) && g.child_roles.get(&n) != Some(&ChildRole::Aborted) {
                        return true;
                    }
                }
                Kind::User if e.user_kind == UserKind::Prompt => {}
                _ => stack.extend(g.last_main_children(n, TURN_LOOKAHEAD + 1)),
            }
        }
        false
    }
}

/// The prefix a fork at `k` copies, in path order.
#[derive(Debug, Clone)]
pub struct Prefix {
    pub checkpoint: NodeId,
    /// The chain root→checkpoint as the client loads it
    /// ([`Graph::loaded_chain`]: from the last compaction boundary, with the
    /// messages compactions kept).
    pub chain: Vec<NodeId>,
    /// The chain plus the off-chain results and blocks of its turns, in path
    /// order: each extra right after the chain node it hangs from.
    pub nodes: Vec<NodeId>,
    /// tool_results copied whose call is not on the prefix (inherited from the source).
    pub orphan_results: u32,
    pub legal: Result<(), Illegal>,
}

/// Computes the prefix of checkpoint `k` and judges it.
pub fn prefix(p: &Project, k: NodeId) -> Prefix {
    let f = Folder::new(p);
    let chain = p.graph.loaded_chain(&p.entries, k);
    let mut nodes = Vec::with_capacity(chain.len());
    let s = f.fold(State::default(), &chain, Some(&mut nodes));
    add_kept(&p.graph, &chain, &mut nodes);
    Prefix { checkpoint: k, legal: f.judge(&s, k), orphan_results: s.orphans, chain, nodes }
}

/// The messages kept by the compactions the chain goes through that the
/// chain and its turns do not hold: the client reads a boundary's kept list
/// (`preservedMessages`) only when every message it names is in the file.
/// Each goes after the kept message before it in the list (the first:
/// after the anchor).
fn add_kept(g: &Graph, chain: &[NodeId], nodes: &mut Vec<NodeId>) {
    let on: FxHashSet<NodeId> = chain.iter().copied().collect();
    let mut have: FxHashSet<NodeId> = nodes.iter().copied().collect();
    let mut after: FxHashMap<NodeId, Vec<NodeId>> = FxHashMap::default();
    let passed =
        g.splices.iter().filter(|sp| on.contains(&sp.boundary) && sp.kept.last().is_some_and(|t| on.contains(t)));
    for sp in passed {
        let mut prev = sp.anchor;
        for &k in &sp.kept {
            if have.insert(k) {
                after.entry(prev).or_default().push(k);
            }
            prev = k;
        }
    }
    if after.is_empty() {
        return;
    }
    let mut out = Vec::with_capacity(have.len());
    for &n in nodes.iter() {
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            out.push(x);
            if let Some(v) = after.remove(&x) {
                stack.extend(v.into_iter().rev());
            }
        }
    }
    *nodes = out;
}

/// Where a scan stands: a node and how the walk up the loaded chain reached
/// it ([`Walk`]: among a compaction's kept messages, from after them or
/// not). A node's prefix state depends on the chain above it, which depends
/// on both; a checkpoint is judged at `(k, Walk::default())`.
type Key = (NodeId, Walk);

/// Prefix states for judging many checkpoints: of one path, or of every
/// branch of a conversation (a checkpoint's legality depends on its loaded
/// chain only, [`Graph::loaded_chain`]). The state of the key judged last is
/// carried to the next in place when that one's loaded parent is it; a node
/// where paths turn off (more than one child, or a spliced child: an anchor
/// or the last kept message) keeps a copy, by key. A copy per node (a
/// message of N parallel calls holds N open ids) made N parallel calls cost
/// N². Any other key is found by walking up to a known one, or
/// to the chain's top (the last compaction boundary).
pub(crate) struct Scan<'p> {
    f: Folder<'p>,
    /// States of keys where paths turn off.
    memo: FxHashMap<Key, State<'p>>,
    /// The key judged last and its state.
    cur: Option<(Key, State<'p>)>,
}

impl<'p> Scan<'p> {
    pub(crate) fn new(p: &'p Project) -> Self {
        Scan { f: Folder::new(p), memo: FxHashMap::default(), cur: None }
    }

    /// Keeps a copy of the state `s` of `key` if paths turn off there.
    fn keep_if_branching(&mut self, key: &Key, s: &State<'p>) {
        let g = self.f.g;
        let kids = &g.children[key.0];
        let turns = kids.len() > 1 || kids.iter().any(|c| g.node(*c).link == Link::Spliced);
        if turns && !self.memo.contains_key(key) {
            self.memo.insert(key.clone(), s.clone());
        }
    }

    fn is_cur(&self, key: &Key) -> bool {
        self.cur.as_ref().is_some_and(|(c, _)| c == key)
    }

    /// Makes `cur` the prefix state of checkpoint `k`.
    fn reach(&mut self, k: NodeId) {
        let (g, entries) = (self.f.g, self.f.entries);
        let start: Key = (k, Walk::default());
        if self.is_cur(&start) {
            return;
        }
        let mut walk = Walk::default();
        if let Some(p) = g.loaded_parent(entries, k, &mut walk) {
            let parent: Key = (p, walk);
            if self.is_cur(&parent) {
                // The common case: the child of the node judged last.
                let Some((_, mut s)) = self.cur.take() else { return };
                self.keep_if_branching(&parent, &s);
                self.f.step(&mut s, p, k);
                self.cur = Some((start, s));
                return;
            }
        }
        // Walk up to a key with a known state (kept, or the last judged) or
        // the chain's top, then fold down.
        let mut up = vec![start];
        while let Some(key) = up.last() {
            if self.memo.contains_key(key) || self.is_cur(key) || up.len() > g.nodes.len() {
                break;
            }
            let mut walk = key.1.clone();
            match g.loaded_parent(entries, key.0, &mut walk) {
                Some(p) => up.push((p, walk)),
                None => break,
            }
        }
        up.reverse();
        let top = &up[0];
        let mut s = match (&self.cur, self.memo.get(top)) {
            (Some((c, s)), _) if c == top => s.clone(),
            (_, Some(s)) => s.clone(),
            _ => {
                let mut s = State::default();
                self.f.apply(&mut s, top.0);
                s
            }
        };
        for w in up.windows(2) {
            self.keep_if_branching(&w[0], &s);
            self.f.step(&mut s, w[0].0, w[1].0);
        }
        self.cur = up.pop().map(|key| (key, s));
    }

    /// Whether forking at `k` is legal (without the reasons' details).
    pub(crate) fn legal(&mut self, k: NodeId) -> bool {
        self.reach(k);
        match &self.cur {
            Some((_, s)) => self.f.verdict(s, k, false).is_ok(),
            None => false,
        }
    }
}

/// For each node of a display path (e.g. a branch's `nodes`, or
/// [`Graph::projection`]), whether forking there is legal. Linear in
/// the path (prefix states are carried along parent links, [`Scan`]).
pub fn legal_checkpoints(project: &Project, nodes: &[NodeId]) -> Vec<bool> {
    legal_checkpoints_with(&mut Scan::new(project), nodes)
}

/// For the nodes of each branch's own run (`Branch::nodes`, in `branches`
/// order), whether forking there is legal: what [`legal_checkpoints`] says
/// of them on the branch's projection, in time linear in the nodes (one scan
/// for all, each branch going on from its fork point's state; judging each
/// projection from the root made N rewinds along one line cost N²).
pub fn legal_on_branches(project: &Project, branches: &[crate::graph::BranchId]) -> Vec<Vec<bool>> {
    let mut scan = Scan::new(project);
    branches.iter().map(|&b| legal_checkpoints_with(&mut scan, &project.graph.branches[b].nodes)).collect()
}

fn legal_checkpoints_with(scan: &mut Scan<'_>, nodes: &[NodeId]) -> Vec<bool> {
    nodes.iter().map(|&n| scan.legal(n)).collect()
}

/// The context attachments Claude Code puts on the chain right after a user
/// entry (2.1.330: prompt → environment → model → … → prompt_snapshot →
/// assistant; a `queued_command` after tool results): part of the request
/// that entry starts, so a fork at a prompt or tool result copies them, or
/// the client resumes with an empty system message. Follows the one
/// attachment child that goes on (or the only child), bounded.
pub fn turn_context(g: &Graph, entries: &Entries, k: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    if g.entry(entries, k).kind != Kind::User || g.node(k).sidechain {
        return out;
    }
    let mut cur = k;
    while out.len() < TURN_LOOKAHEAD {
        let kids: Vec<NodeId> = g.main_children(cur).filter(|c| g.node(*c).link == Link::Physical).collect();
        let atts: Vec<NodeId> =
            kids.iter().copied().filter(|c| g.entry(entries, *c).kind == Kind::Attachment).collect();
        let next = match atts.as_slice() {
            [one] => Some(*one),
            many => {
                let live: Vec<NodeId> = many.iter().copied().filter(|c| !g.children[*c].is_empty()).collect();
                (live.len() == 1).then(|| live[0])
            }
        };
        let Some(n) = next else { break };
        out.push(n);
        cur = n;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One scan over a conversation's branches says of each branch's own
    /// nodes what a scan of its projection from the root says, on every
    /// project of the fixtures.
    #[test]
    fn vendored_fixtures_one_scan_of_all_branches_judges_as_each_projection() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut branches = 0;
        let mut inputs: Vec<std::path::PathBuf> =
            ["claude-code-log/real_projects", "claude-code-log/dag", "odd", "client-2.1.330/tui/projects"]
                .iter()
                .map(|i| root.join(i))
                .collect();
        // What 2.1.332 wrote for each kind of compaction (kept messages spliced).
        for d in std::fs::read_dir(root.join("client-2.1.332")).into_iter().flatten().flatten() {
            if d.path().join("projects").is_dir() {
                inputs.push(d.path().join("projects"));
            }
        }
        inputs.sort();
        for input in inputs {
            let Ok(archive) = crate::discover::discover(&[input]) else { continue };
            for source in archive.projects {
                let p = Project::load_headers(source);
                for c in p.graph.conversations.iter() {
                    let all = legal_on_branches(&p, &c.branches);
                    for (b, got) in c.branches.iter().zip(all) {
                        let path = p.graph.projection(*b);
                        let mut want = legal_checkpoints(&p, &path);
                        let want = want.split_off(want.len() - p.graph.branches[*b].nodes.len());
                        assert_eq!(got, want, "{} branch {b:?}", p.source.name);
                        // And a fresh fold of each node's exact prefix agrees.
                        for (n, ok) in p.graph.branches[*b].nodes.iter().zip(&got) {
                            assert_eq!(prefix(&p, *n).legal.is_ok(), *ok, "{}", p.source.name);
                        }
                        branches += 1;
                    }
                }
            }
        }
        assert!(branches >= 30, "{branches} branches");
    }
}

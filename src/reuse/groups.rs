//! Page groups of a project, for the incremental render: the pages of a
//! conversation and of the agents it spawned are made from that conversation
//! and those agents only, so a group whose content is unchanged has the same
//! pages, and they are linked from the previous site without being rendered.
//!
//! A *unit* is a conversation or an agent (plus one unit for nodes in
//! neither). Units that refer to one another — a tree parent, a tool call and
//! its result, an agent's spawn and attachment, a junction — are merged into
//! one group (union-find), so a page never shows a node of another group.
//! The key of a group hashes, with node ids replaced by uuids (ids shift when
//! nodes are added elsewhere): every node's line hash, payload hash, parent,
//! link, session, time, child role and aliases; every branch, fork point,
//! junction, title and count of its conversations and agents; and every
//! session they name (id, titles, times, fork provenance). Together with the
//! base (renderer, settings, slug, project name, side files), that is
//! everything a branch or agent page is made from; the project index page
//! (which shows every group) is always rendered.

use std::fmt::Write as _;

use crate::graph::{AgentId, BranchId, ConversationId, Graph, NodeId, SessionId};
use crate::id::{IdVec, typed_id};

use std::hash::Hash as _;

use crate::render::pages::compare::CompareInputs;
use crate::render::pages::track::PageInputs;
use crate::render::site::context::{ProjectCtx, TrackId};

typed_id!(
    /// A unit of a project: a conversation, an agent, or the nodes in neither.
    pub UnitId
);
typed_id!(
    /// A page group ([`Groups`]).
    pub GroupId
);

/// The group of every track, and each group's key.
pub struct Groups {
    conversation: IdVec<ConversationId, GroupId>,
    branch: IdVec<BranchId, GroupId>,
    agent: IdVec<AgentId, GroupId>,
    keys: IdVec<GroupId, String>,
    /// Each group's key over what does not change when its tracks grow
    /// (see [`Groups::page_key`]).
    structure: IdVec<GroupId, String>,
}

impl Groups {
    /// The key of the group a track belongs to.
    pub(crate) fn key(&self, track: TrackId) -> &str {
        &self.keys[self.of(track)]
    }

    /// The group a track belongs to.
    pub(crate) fn of(&self, track: TrackId) -> GroupId {
        match track {
            TrackId::Branch(b) => self.branch[b],
            TrackId::Agent(a) => self.agent[a],
            TrackId::Active(c) => self.conversation[c],
        }
    }

    /// How many groups there are.
    pub(crate) fn count(&self) -> usize {
        self.keys.len()
    }

    /// The key of page `page` of `track`, whose inputs are `inputs`
    /// ([`PageInputs`]: its head, and for each message it shows every
    /// input besides what its entries say, with the hash of each entry's
    /// line): derived from them, with its group's structure (what does not
    /// change when a track grows: titles, branches, fork points, labels,
    /// sessions' names). So a page of a track that grew is re-used when only
    /// later pages changed.
    pub(crate) fn page_key(&self, ctx: &ProjectCtx<'_>, track: TrackId, page: u32, inputs: &PageInputs) -> String {
        let mut h = blake3::Hasher::new();
        h.update(self.structure[self.of(track)].as_bytes());
        h.update(format!("page {} {page}\n", ctx.track_dir(track)).as_bytes());
        inputs.hash(&mut HashInto(&mut h));
        h.finalize().to_hex()[..32].to_string()
    }
}

/// The key of a compare page whose inputs are `inputs`, with `base` (what
/// every page of the project depends on): derived from them alone, not from
/// its conversation's group, so a turn appended to one branch leaves the
/// compare pages of the forks that do not show it as they are.
pub(crate) fn compare_key(base: &str, inputs: &CompareInputs<'_>) -> String {
    let mut h = blake3::Hasher::new();
    h.update(base.as_bytes());
    h.update(b"\ncompare\n");
    inputs.hash(&mut HashInto(&mut h));
    h.finalize().to_hex()[..32].to_string()
}

/// A `std::hash::Hasher` that feeds a BLAKE3 hasher (what `#[derive(Hash)]`
/// writes of a value: every field, in order).
struct HashInto<'h>(&'h mut blake3::Hasher);

impl std::hash::Hasher for HashInto<'_> {
    fn finish(&self) -> u64 {
        0
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

/// Union-find over units; the root of a set is its smallest unit.
struct Dsu(IdVec<UnitId, UnitId>);

impl Dsu {
    fn find(&mut self, mut x: UnitId) -> UnitId {
        while self.0[x] != x {
            let up = self.0[self.0[x]];
            self.0[x] = up;
            x = up;
        }
        x
    }
    fn union(&mut self, a: UnitId, b: UnitId) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            self.0[hi] = lo;
        }
    }
}

/// What a unit is.
#[derive(Clone, Copy)]
enum Unit {
    Conversation(ConversationId),
    Agent(AgentId),
    /// The nodes in no conversation and no agent.
    Rest,
}

/// The units of a project: its conversations, then its agents, then the rest.
struct Units<'g> {
    g: &'g Graph,
    list: IdVec<UnitId, Unit>,
    conversation: IdVec<ConversationId, UnitId>,
    agent: IdVec<AgentId, UnitId>,
    rest: UnitId,
}

impl<'g> Units<'g> {
    fn new(g: &'g Graph) -> Units<'g> {
        let mut list = IdVec::with_capacity(g.conversations.len() + g.agents.len() + 1);
        let conversation = g.conversations.ids().map(|c| list.push(Unit::Conversation(c))).collect();
        let agent = g.agents.ids().map(|a| list.push(Unit::Agent(a))).collect();
        let rest = list.push(Unit::Rest);
        Units { g, list, conversation, agent, rest }
    }

    /// The unit a node belongs to.
    fn of(&self, n: NodeId) -> UnitId {
        let node = self.g.node(n);
        let unit = if node.sidechain {
            node.agent.and_then(|a| self.agent.get(a))
        } else {
            node.conversation.and_then(|c| self.conversation.get(c))
        };
        unit.copied().unwrap_or(self.rest)
    }
}

/// Groups the tracks of a project and computes their keys; `base` covers what
/// every page of the project depends on.
pub(crate) fn groups(ctx: &ProjectCtx<'_>, base: &str) -> Groups {
    let g = ctx.graph();
    let units = Units::new(g);
    let mut dsu = merge_related(&units);
    let sigs = signatures(ctx, &units);
    // Group keys: the base, then each member unit's signature in unit order
    // (a group is met first at its root, its smallest unit).
    let mut group_of_root: IdVec<UnitId, Option<GroupId>> = IdVec::filled(None, units.list.len());
    let mut hashers: IdVec<GroupId, [blake3::Hasher; 2]> = IdVec::new();
    let mut group: IdVec<UnitId, GroupId> = IdVec::with_capacity(units.list.len());
    for (u, sig) in sigs.iter_enumerated() {
        let id = *group_of_root[dsu.find(u)].get_or_insert_with(|| {
            let mut h = blake3::Hasher::new();
            h.update(base.as_bytes());
            hashers.push([h.clone(), h])
        });
        hashers[id][0].update(sig[0].as_bytes());
        hashers[id][1].update(sig[1].as_bytes());
        group.push(id);
    }
    let hex = |h: &blake3::Hasher| h.finalize().to_hex()[..32].to_string();
    let keys = hashers.iter().map(|[h, _]| hex(h)).collect();
    let structure = hashers.iter().map(|[_, h]| hex(h)).collect();
    let branch = g.branches.iter().map(|b| group[units.conversation[b.conversation]]).collect();
    let agent = units.agent.iter().map(|u| group[*u]).collect();
    let conversation = units.conversation.iter().map(|u| group[*u]).collect();
    Groups { conversation, branch, agent, keys, structure }
}

/// Merges units that refer to one another: a tree parent, a tool call and
/// its result, an agent's spawn and attachment, a junction.
fn merge_related(units: &Units<'_>) -> Dsu {
    let g = units.g;
    let mut dsu = Dsu(units.list.ids().collect());
    for (i, node) in g.nodes.iter_enumerated() {
        if let Some(p) = node.parent {
            dsu.union(units.of(i), units.of(p));
        }
    }
    for link in g.tools.values() {
        if let Some(u) = link.use_node {
            for r in &link.results {
                dsu.union(units.of(u), units.of(*r));
            }
        }
    }
    for (a, &me) in g.agents.iter().zip(&units.agent) {
        let spawn = a.spawn.as_ref();
        for n in
            [spawn.and_then(|s| s.use_node), spawn.and_then(|s| s.result_node), a.attached_to].into_iter().flatten()
        {
            dsu.union(me, units.of(n));
        }
        // The page of the call links to the agent by tool_use id.
        if let Some(id) = spawn.and_then(|s| s.tool_use_id.as_deref()) {
            if let Some(u) = g.tools.get(id).and_then(|l| l.use_node) {
                dsu.union(me, units.of(u));
            }
        }
    }
    for (c, &me) in g.conversations.iter().zip(&units.conversation) {
        for j in &c.junctions {
            for n in std::iter::once(j.at).chain(j.first) {
                dsu.union(me, units.of(n));
            }
        }
    }
    dsu
}

/// The signatures of every unit: a hash of what its pages show of it, and
/// a hash of its structure (the same without its nodes and what changes
/// when it grows: times, counts, leaves, page counts).
fn signatures(ctx: &ProjectCtx<'_>, units: &Units<'_>) -> IdVec<UnitId, [blake3::Hash; 2]> {
    let g = units.g;
    let sig = |unit: &Unit| {
        let (mut s, mut structure) = (Sig::default(), Sig::default());
        match *unit {
            Unit::Conversation(c) => {
                conversation_sig(&mut s, ctx, c, true);
                conversation_sig(&mut structure, ctx, c, false);
                for &b in &g.conversations[c].branches {
                    for n in &g.branches[b].nodes {
                        node_sig(&mut s, ctx, *n);
                    }
                }
            }
            Unit::Agent(a) => {
                agent_sig(&mut s, ctx, a, true);
                agent_sig(&mut structure, ctx, a, false);
            }
            Unit::Rest => {
                for n in g.nodes.ids().filter(|n| units.of(*n) == units.rest) {
                    node_sig(&mut s, ctx, n);
                }
                structure.bytes(b"rest");
            }
        }
        [s.digest(), structure.digest()]
    };
    units.list.iter().map(sig).collect()
}

/// A unit's signature being hashed: the lines of its conversation, agents
/// and sessions as text, and each node's fields as bytes (`Hash`: a string
/// ends with 0xff, an integer has its width, each list item a tag of its
/// own), gathered in a buffer and hashed in blocks.
#[derive(Default)]
struct Sig {
    buf: Vec<u8>,
    h: blake3::Hasher,
}

impl Sig {
    /// Bytes gathered before they are hashed.
    const BLOCK: usize = 1 << 16;

    fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
        if self.buf.len() >= Self::BLOCK {
            self.h.update(&self.buf);
            self.buf.clear();
        }
    }

    fn digest(mut self) -> blake3::Hash {
        self.h.update(&self.buf);
        self.h.finalize()
    }
}

impl std::fmt::Write for Sig {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.bytes(s.as_bytes());
        Ok(())
    }
}

impl std::hash::Hasher for Sig {
    fn finish(&self) -> u64 {
        0
    }
    fn write(&mut self, bytes: &[u8]) {
        self.bytes(bytes);
    }
}

/// `full`: with its nodes and what changes as it grows (else its structure).
fn agent_sig(s: &mut Sig, ctx: &ProjectCtx<'_>, i: AgentId, full: bool) {
    let (g, e) = (ctx.graph(), ctx.entries());
    let a = &g.agents[i];
    let uuid = |n: Option<NodeId>| n.map_or("", |n| g.uuid(e, n));
    let spawn = a.spawn.as_ref();
    let _ = writeln!(
        s,
        "agent {:?} {:?} {:?} spawn {:?} {} {} attached {} meta {:?} {} {} {}",
        a.agent_id,
        a.kind,
        ctx.agent_dirs[i],
        spawn.and_then(|s| s.tool_use_id.as_deref()),
        uuid(spawn.and_then(|s| s.use_node)),
        uuid(spawn.and_then(|s| s.result_node)),
        uuid(a.attached_to),
        a.meta,
        a.first_ts,
        if full { a.messages } else { 0 },
        if full { ctx.agent_layouts[i].pages } else { 0 },
    );
    for n in a.nodes.iter().filter(|_| full) {
        node_sig(s, ctx, *n);
    }
}

/// `full`: with what changes as it grows (else its structure).
fn conversation_sig(s: &mut Sig, ctx: &ProjectCtx<'_>, i: ConversationId, full: bool) {
    let g = ctx.graph();
    let e = ctx.entries();
    let c = &g.conversations[i];
    let uuid = |n: NodeId| g.uuid(e, n);
    let first_of = |b: BranchId| uuid(g.branches[b].first);
    let _ = writeln!(
        s,
        "conv {} {:?} {:?} {:?} {:?} active {} {} {} {} {} {}",
        uuid(c.root),
        ctx.conv_dirs[i],
        c.title,
        c.title_source,
        c.first_prompt,
        first_of(c.active_branch),
        c.first_ts,
        if full { c.last_ts } else { 0 },
        if full { c.messages } else { 0 },
        c.is_fragment,
        c.sessions.len()
    );
    for &sid in &c.sessions {
        session_sig(s, ctx, sid, full);
    }
    for j in &c.junctions {
        let _ = writeln!(s, "junction {:?} {} {:?}", j.kind, uuid(j.at), j.first.map(uuid));
        session_sig(s, ctx, j.session, full);
    }
    for fp in &c.fork_points {
        let children: Vec<&str> = fp.children.iter().map(|n| uuid(*n)).collect();
        let _ = writeln!(
            s,
            "fork {} {:?} {:?} {:?} on {} #{:?}",
            uuid(fp.node),
            fp.kind,
            children,
            fp.labels,
            first_of(fp.branch),
            ctx.fork_numbers.get(&fp.node)
        );
    }
    for &b in &c.branches {
        let br = &g.branches[b];
        let _ = writeln!(
            s,
            "branch {} {:?} fork {:?} parent {:?} {} leaf {} {} {:?} {:?} {} {} pages {}",
            uuid(br.first),
            ctx.branch_dirs[b],
            br.fork_point.map(uuid),
            br.parent_branch.map(first_of),
            br.depth,
            if full { uuid(br.leaf) } else { "" },
            if full { br.messages } else { 0 },
            br.summary,
            br.title,
            if full { br.last_ts } else { 0 },
            ctx.labels[b],
            if full { ctx.branch_layouts[b].pages } else { 0 }
        );
        session_sig(s, ctx, br.session, full);
    }
}

fn session_sig(s: &mut Sig, ctx: &ProjectCtx<'_>, sid: SessionId, full: bool) {
    let g = ctx.graph();
    let Some(ss) = g.sessions.get(sid) else { return };
    let _ = writeln!(
        s,
        "session {:?} {:?} {:?} {:?} {:?} {:?} leaf {:?} fork_of {:?} own {}",
        ss.session_id,
        ss.first_ts,
        ss.last_ts.filter(|_| full),
        ss.custom_title,
        ss.ai_title,
        ss.last_prompt.as_ref().filter(|_| full),
        ss.leaf.filter(|_| full).map(|n| g.uuid(ctx.entries(), n)),
        ss.fork_of.map(|n| g.uuid(ctx.entries(), n)),
        ctx.own_forks.contains(&sid)
    );
}

/// A node as its pages show it: its uuid, line and payload hashes, length,
/// parent, link, session, time and child role; the calls and results it is
/// linked to, the queued messages shown after it, the differing copies of
/// its uuid with their place. Fields are hashed, not formatted (71,000
/// nodes in a large project, every run).
fn node_sig(s: &mut Sig, ctx: &ProjectCtx<'_>, n: NodeId) {
    let (g, e) = (ctx.graph(), ctx.entries());
    let node = g.node(n);
    let en = g.entry(e, n);
    let sess = g.sessions.get(node.session).map(|x| &*x.session_id);
    (b'n', g.uuid(e, n), en.line_hash, en.payload_hash, en.len).hash(s);
    (node.parent.map(|p| g.uuid(e, p)), node.link as u8, sess, node.sidechain, node.ts).hash(s);
    g.child_roles.get(&n).map(|r| *r as u8).hash(s);
    let ids = en.tool_uses.iter().map(|t| &*t.id).chain(en.tool_results.iter().map(|t| &*t.tool_use_id));
    for id in ids {
        if let Some(l) = g.tools.get(id) {
            (b't', l.use_node.map(|u| g.uuid(e, u))).hash(s);
            for r in &l.results {
                (b'r', g.uuid(e, *r)).hash(s);
            }
        }
    }
    // Queued messages shown after it.
    for &q in g.queued.get(&n).into_iter().flatten() {
        (b'q', e[q].line_hash).hash(s);
    }
    // Differing copies of the uuid are shown with the message, with their place.
    for &o in ctx.conflicts.get(&n).into_iter().flatten() {
        let other = &e[o];
        (b'c', other.line_hash).hash(s);
        let _ = write!(s, "{}", ctx.project.locate(other.loc));
        0xffu8.hash(s);
    }
    b'\n'.hash(s);
}

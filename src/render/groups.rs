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

use crate::graph::{NONE, NodeId};

use super::context::{LineId, ProjectCtx};

/// The group of every line, and each group's key.
pub struct Groups {
    branch: Vec<u32>,
    agent: Vec<u32>,
    keys: Vec<String>,
}

impl Groups {
    /// The key of the group a line belongs to.
    pub fn key(&self, line: LineId) -> &str {
        let g = match line {
            LineId::Branch(b) => self.branch[b as usize],
            LineId::Agent(a) => self.agent[a as usize],
        };
        &self.keys[g as usize]
    }
}

struct Dsu(Vec<u32>);

impl Dsu {
    fn find(&mut self, mut x: u32) -> u32 {
        while self.0[x as usize] != x {
            let up = self.0[self.0[x as usize] as usize];
            self.0[x as usize] = up;
            x = up;
        }
        x
    }
    fn union(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            self.0[hi as usize] = lo;
        }
    }
}

/// Units of a project: conversations `0..nc`, agents `nc..nc + na`, and
/// `rest` (= `nc + na`) for nodes in neither.
#[derive(Clone, Copy)]
struct Units<'g> {
    g: &'g crate::graph::Graph,
    nc: u32,
    na: u32,
}

impl Units<'_> {
    fn rest(&self) -> u32 {
        self.nc + self.na
    }

    /// The unit a node belongs to.
    fn of(&self, n: NodeId) -> u32 {
        let node = self.g.node(n);
        if node.sidechain && node.agent != NONE && node.agent < self.na {
            self.nc + node.agent
        } else if !node.sidechain && node.conversation != NONE && node.conversation < self.nc {
            node.conversation
        } else {
            self.rest()
        }
    }
}

/// Groups the lines of a project and computes their keys; `base` covers what
/// every page of the project depends on.
pub fn groups(ctx: &ProjectCtx<'_>, base: &str) -> Groups {
    let g = ctx.graph();
    let units = Units { g, nc: g.conversations.len() as u32, na: g.agents.len() as u32 };
    let mut dsu = merge_related(units);
    let roots: Vec<u32> = (0..=units.rest()).map(|u| dsu.find(u)).collect();
    let sigs = signatures(ctx, units);

    // Group keys: the base, then each member unit's signature in unit order.
    let mut keys_of_root: Vec<Option<blake3::Hasher>> = (0..=units.rest()).map(|_| None).collect();
    for (u, &r) in roots.iter().enumerate() {
        let h = keys_of_root[r as usize].get_or_insert_with(|| {
            let mut h = blake3::Hasher::new();
            h.update(base.as_bytes());
            h
        });
        h.update(sigs[u].finalize().as_bytes());
    }
    let mut index = vec![u32::MAX; roots.len()];
    let mut keys = Vec::new();
    for (r, h) in keys_of_root.iter().enumerate() {
        if let Some(h) = h {
            index[r] = keys.len() as u32;
            keys.push(h.finalize().to_hex()[..32].to_string());
        }
    }
    let group_of = |u: u32| index[roots[u as usize] as usize];
    let branch = g.branches.iter().map(|b| group_of(b.conversation.min(units.rest()))).collect();
    let agent = (0..units.na).map(|a| group_of(units.nc + a)).collect();
    Groups { branch, agent, keys }
}

/// Merges units that refer to one another: a tree parent, a tool call and
/// its result, an agent's spawn and attachment, a junction.
fn merge_related(units: Units<'_>) -> Dsu {
    let (g, nc) = (units.g, units.nc);
    let mut dsu = Dsu((0..=units.rest()).collect());
    for (i, node) in g.nodes.iter().enumerate() {
        if let Some(p) = node.parent {
            dsu.union(units.of(NodeId(i as u32)), units.of(p));
        }
    }
    for link in g.tools.values() {
        if let Some(u) = link.use_node {
            for r in &link.results {
                dsu.union(units.of(u), units.of(*r));
            }
        }
    }
    for (i, a) in g.agents.iter().enumerate() {
        let me = nc + i as u32;
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
    for (i, c) in g.conversations.iter().enumerate() {
        for j in &c.junctions {
            for n in std::iter::once(j.at).chain(j.first) {
                dsu.union(i as u32, units.of(n));
            }
        }
    }
    dsu
}

/// The signature of every unit: what its pages show of it.
fn signatures(ctx: &ProjectCtx<'_>, units: Units<'_>) -> Vec<blake3::Hasher> {
    let g = units.g;
    let mut sigs: Vec<blake3::Hasher> = (0..=units.rest()).map(|_| blake3::Hasher::new()).collect();
    for (i, c) in g.conversations.iter().enumerate() {
        let mut s = String::new();
        conversation_sig(&mut s, ctx, i);
        for &b in &c.branches {
            for n in &g.branches[b as usize].nodes {
                node_sig(&mut s, ctx, *n);
            }
        }
        sigs[i].update(s.as_bytes());
    }
    for i in 0..g.agents.len() {
        let mut s = String::new();
        agent_sig(&mut s, ctx, i);
        sigs[units.nc as usize + i].update(s.as_bytes());
    }
    let mut s = String::new();
    for n in (0..g.nodes.len() as u32).map(NodeId).filter(|n| units.of(*n) == units.rest()) {
        node_sig(&mut s, ctx, n);
    }
    sigs[units.rest() as usize].update(s.as_bytes());
    sigs
}

fn agent_sig(s: &mut String, ctx: &ProjectCtx<'_>, i: usize) {
    let (g, e) = (ctx.graph(), ctx.entries());
    let a = &g.agents[i];
    let uuid = |n: Option<NodeId>| n.map_or("", |n| g.uuid(e, n));
    let spawn = a.spawn.as_ref();
    let _ = writeln!(
        s,
        "agent {:?} {:?} {:?} spawn {:?} {} {} attached {} meta {:?} {} {} {}",
        a.id,
        a.kind,
        ctx.agent_dirs[i],
        spawn.and_then(|s| s.tool_use_id.as_deref()),
        uuid(spawn.and_then(|s| s.use_node)),
        uuid(spawn.and_then(|s| s.result_node)),
        uuid(a.attached_to),
        a.meta,
        a.first_ts,
        a.messages,
        ctx.agent_layouts[i].pages,
    );
    for n in &a.nodes {
        node_sig(s, ctx, *n);
    }
}

fn conversation_sig(s: &mut String, ctx: &ProjectCtx<'_>, i: usize) {
    let g = ctx.graph();
    let e = ctx.entries();
    let c = &g.conversations[i];
    let uuid = |n: NodeId| g.uuid(e, n);
    let first_of = |b: u32| uuid(g.branches[b as usize].first);
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
        c.last_ts,
        c.messages,
        c.is_fragment,
        c.sessions.len()
    );
    for &sid in &c.sessions {
        session_sig(s, ctx, sid);
    }
    for j in &c.junctions {
        let _ = writeln!(s, "junction {:?} {} {:?}", j.kind, uuid(j.at), j.first.map(uuid));
        session_sig(s, ctx, j.session);
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
        let br = &g.branches[b as usize];
        let _ = writeln!(
            s,
            "branch {} {:?} fork {:?} parent {:?} {} leaf {} {} {:?} {:?} {} {} pages {}",
            uuid(br.first),
            ctx.branch_dirs[b as usize],
            br.fork_point.map(uuid),
            br.parent_branch.map(first_of),
            br.depth,
            uuid(br.leaf),
            br.messages,
            br.summary,
            br.title,
            br.last_ts,
            ctx.labels[b as usize],
            ctx.branch_layouts[b as usize].pages
        );
        session_sig(s, ctx, br.session);
    }
}

fn session_sig(s: &mut String, ctx: &ProjectCtx<'_>, sid: u32) {
    let g = ctx.graph();
    let Some(ss) = g.sessions.get(sid as usize) else { return };
    let _ = writeln!(
        s,
        "session {:?} {:?} {:?} {:?} {:?} {:?} leaf {:?} fork_of {:?} own {}",
        ss.id,
        ss.first_ts,
        ss.last_ts,
        ss.custom_title,
        ss.ai_title,
        ss.last_prompt,
        ss.leaf.map(|n| g.uuid(ctx.entries(), n)),
        ss.fork_of.map(|n| g.uuid(ctx.entries(), n)),
        ctx.own_forks.contains(&sid)
    );
}

fn node_sig(s: &mut String, ctx: &ProjectCtx<'_>, n: NodeId) {
    let (g, e) = (ctx.graph(), ctx.entries());
    let node = g.node(n);
    let en = g.entry(e, n);
    let sess = g.sessions.get(node.session as usize).map_or("", |x| &x.id);
    let _ = write!(
        s,
        "n {} {:x} {:x} {} p {} {:?} {sess} {} {} {:?}",
        g.uuid(e, n),
        en.line_hash,
        en.payload_hash,
        en.len,
        node.parent.map_or("", |p| g.uuid(e, p)),
        node.link,
        node.sidechain,
        node.ts,
        g.child_roles.get(&n)
    );
    let ids = en.tool_uses.iter().map(|t| &*t.id).chain(en.tool_results.iter().map(|t| &*t.tool_use_id));
    for id in ids {
        if let Some(l) = g.tools.get(id) {
            let _ = write!(s, " tool {}", l.use_node.map_or("", |u| g.uuid(e, u)));
            for r in &l.results {
                let _ = write!(s, " {}", g.uuid(e, *r));
            }
        }
    }
    // Queued messages shown after it.
    for q in g.queued.get(&n).into_iter().flatten() {
        let _ = write!(s, " queued {:x}", e[*q as usize].line_hash);
    }
    // Differing copies of the uuid are shown with the message, with their place.
    for o in ctx.conflicts.get(&n).into_iter().flatten() {
        let other = &e[*o as usize];
        let _ = write!(s, " conflict {:x} {}", other.line_hash, ctx.project.locate(other.loc));
    }
    s.push('\n');
}

//! Conversations, branches and agents: assigning every node to one track and
//! ordering each track (§5.5, §6.4).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use rustc_hash::{FxHashMap, FxHashSet};

use super::forks::{Facts, main_roots};
use super::{
    Agent, AgentKind, Branch, BranchId, Conversation, ConversationId, ForkPoint, Graph, GraphInput, Junction,
    JunctionKind, NodeId, SessionId, Spawn, TitleSource,
};
use crate::id::IdVec;
use crate::model::FileClass;
use crate::model::{Entries, Kind, UserKind};

pub(super) fn assign(g: &mut Graph, input: &GraphInput<'_>, facts: &Facts) {
    let entries = input.entries;
    let mut roots = main_roots(g);
    roots.extend_from_slice(&facts.detached);
    roots.sort_by_key(|r| (g.node(*r).ts, *r));
    for root in roots {
        build_conversation(g, entries, facts, root);
    }
    // `cctree fork` copies by the conversation their checkpoint lies in (one
    // pass over the sessions, not one per conversation).
    let mut forks_into: IdVec<ConversationId, Vec<(SessionId, NodeId)>> =
        IdVec::filled(Vec::new(), g.conversations.len());
    for (s, sess) in g.sessions.iter_enumerated() {
        if let Some(at) = sess.fork_of {
            if let Some(list) = g.node(at).conversation.and_then(|c| forks_into.get_mut(c)) {
                list.push((s, at));
            }
        }
    }
    for (c, forks) in g.conversations.ids().zip(forks_into) {
        let junctions = junctions_of(g, c, forks);
        g.conversations[c].junctions = junctions;
    }
    build_agents(g, input);
}

fn build_conversation(g: &mut Graph, entries: &Entries, facts: &Facts, root: NodeId) {
    let c = g.conversations.next_id();
    let main = new_branch(g, c, root, None, None, 0);
    let reach = assign_branches(g, facts, c, root, main);
    let branch_ids: Vec<BranchId> = g.branches.ids().skip(main.index()).collect();
    for &b in &branch_ids {
        order_branch(g, entries, facts, b);
    }
    let (ordered, fork_points) = outline_order(g, facts, main, branch_ids.len());
    let mut sessions: Vec<SessionId> = reach.sessions.into_iter().collect();
    sessions.sort_by_key(|s| (g.sessions[*s].first_ts, *s));
    let messages = ordered.iter().map(|b| g.branches[*b].messages).sum();
    g.conversations.push(Conversation {
        root,
        branches: ordered,
        fork_points,
        sessions,
        title: "".into(),
        title_source: TitleSource::None,
        first_prompt: None,
        active_branch: main,
        first_ts: reach.first_ts,
        last_ts: reach.last_ts,
        messages,
        is_fragment: !facts.has_conv[root],
        junctions: Vec::new(),
    });
}

/// What the walk of a conversation met: its sessions and its time span.
struct Reach {
    sessions: FxHashSet<SessionId>,
    first_ts: i64,
    last_ts: i64,
}

/// Walks the conversation from `root`, putting each node on its branch: the
/// earliest future of a fork point continues the parent's branch, each later
/// one starts a branch.
fn assign_branches(g: &mut Graph, facts: &Facts, c: ConversationId, root: NodeId, main: BranchId) -> Reach {
    let mut stack = vec![(root, main)];
    let mut reach = Reach { sessions: FxHashSet::default(), first_ts: i64::MAX, last_ts: i64::MIN };
    while let Some((id, b)) = stack.pop() {
        let node = &mut g.nodes[id];
        node.conversation = Some(c);
        node.branch = Some(b);
        reach.sessions.insert(node.session);
        reach.first_ts = reach.first_ts.min(node.ts);
        reach.last_ts = reach.last_ts.max(node.ts);
        let kids: Vec<NodeId> = g.main_children(id).filter(|k| !facts.is_detached[*k]).collect();
        match facts.forks.get(&id) {
            Some((_, futures)) => {
                // Every future but the first starts a branch (a set: a fork
                // point may have a million futures).
                let later: FxHashSet<NodeId> = futures.iter().skip(1).copied().collect();
                for k in kids {
                    let target = if !later.contains(&k) {
                        b
                    } else {
                        let depth = g.branches[b].depth + 1;
                        new_branch(g, c, k, Some(id), Some(b), depth)
                    };
                    stack.push((k, target));
                }
            }
            None => stack.extend(kids.into_iter().map(|k| (k, b))),
        }
    }
    reach
}

/// Orders a branch's nodes, finds its leaf, counts its messages.
fn order_branch(g: &mut Graph, entries: &Entries, facts: &Facts, b: BranchId) {
    let nodes = linearize(g, g.branches[b].first, |n| g.node(n).branch == Some(b));
    let leaf = nodes
        .iter()
        .copied()
        .filter(|n| g.main_children(*n).all(|k| facts.is_detached[k]))
        .max_by_key(|n| (g.node(*n).ts, *n))
        .unwrap_or(g.branches[b].first);
    let messages = count_messages(entries, g, &nodes);
    let last = nodes.iter().map(|n| g.node(*n).ts).max().unwrap_or(0);
    let br = &mut g.branches[b];
    br.leaf = leaf;
    br.messages = messages;
    br.last_ts = last;
    br.nodes = nodes;
}

/// Outline order: depth first over the branch tree, each branch's fork
/// points in display order, each fork's new branches by time.
fn outline_order(g: &Graph, facts: &Facts, main: BranchId, branches: usize) -> (Vec<BranchId>, Vec<ForkPoint>) {
    let mut fork_points = Vec::new();
    let mut ordered = Vec::with_capacity(branches);
    let mut todo = vec![main];
    while let Some(b) = todo.pop() {
        ordered.push(b);
        let mut nested = Vec::new();
        for &n in &g.branches[b].nodes {
            if let Some((kind, futures)) = facts.forks.get(&n) {
                let (kind, children) = (*kind, futures.clone());
                fork_points.push(ForkPoint { node: n, kind, children, labels: Vec::new(), branch: b });
                nested.extend(futures.iter().skip(1).filter_map(|fut| g.node(*fut).branch));
            }
        }
        todo.extend(nested.into_iter().rev());
    }
    (ordered, fork_points)
}

/// Sessions joining conversation `c` at another session's node, and
/// `cctree fork` copies whose checkpoint lies in it (`forks`: session and
/// checkpoint, in session order).
fn junctions_of(g: &Graph, c: ConversationId, forks: Vec<(SessionId, NodeId)>) -> Vec<Junction> {
    let conv = &g.conversations[c];
    let mut out = Vec::new();
    for &b in &conv.branches {
        for &n in &g.branches[b].nodes {
            let Some(p) = g.node(n).parent else { continue };
            let session = g.node(n).session;
            if session == g.node(p).session || g.node(p).sidechain {
                continue;
            }
            let kind = if g.sessions[session].fork_of.is_some() {
                JunctionKind::CctreeFork
            } else if g.child_roles.get(&n) == Some(&super::ChildRole::Future) {
                JunctionKind::Branches
            } else {
                JunctionKind::Continues
            };
            out.push(Junction { session, at: p, first: Some(n), kind });
        }
    }
    let joined: FxHashSet<SessionId> = out.iter().map(|j| j.session).collect();
    for (session, at) in forks {
        if !joined.contains(&session) {
            out.push(Junction { session, at, first: None, kind: JunctionKind::CctreeFork });
        }
    }
    out.sort_by_key(|j| (g.node(j.first.unwrap_or(j.at)).ts, j.first.unwrap_or(j.at), j.session));
    out
}

fn new_branch(
    g: &mut Graph,
    c: ConversationId,
    first: NodeId,
    fork: Option<NodeId>,
    parent: Option<BranchId>,
    depth: u32,
) -> BranchId {
    let session = g.node(first).session;
    g.branches.push(Branch {
        conversation: c,
        first,
        fork_point: fork,
        parent_branch: parent,
        depth,
        nodes: Vec::new(),
        leaf: first,
        messages: 0,
        summary: None,
        title: "".into(),
        last_ts: 0,
        session,
    })
}

/// Topological order from `start` over the nodes `keep` accepts, earliest
/// (timestamp, uuid) first among the available ones (§6.4).
fn linearize(g: &Graph, start: NodeId, keep: impl Fn(NodeId) -> bool) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut heap = BinaryHeap::new();
    heap.push(Reverse((g.node(start).ts, start)));
    while let Some(Reverse((_, id))) = heap.pop() {
        out.push(id);
        for &k in &g.children[id] {
            if keep(k) {
                heap.push(Reverse((g.node(k).ts, k)));
            }
        }
    }
    out
}

/// Prompts plus assistant turns (entries sharing a `message.id` are one turn).
fn count_messages(entries: &Entries, g: &Graph, nodes: &[NodeId]) -> u32 {
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    let mut n = 0;
    for &id in nodes {
        let e = g.entry(entries, id);
        if !e.is_message() {
            continue;
        }
        if e.kind == Kind::Assistant {
            if let Some(m) = e.message_id.as_deref() {
                if !seen.insert(m) {
                    continue;
                }
            }
        }
        n += 1;
    }
    n
}

/// Groups sidechain nodes into agent transcripts and links each to its spawn.
fn build_agents(g: &mut Graph, input: &GraphInput<'_>) {
    let entries = input.entries;
    let groups = agent_groups(g, input);
    let spawns = spawn_index(g, entries);
    for (key, members) in groups {
        let set: FxHashSet<NodeId> = members.iter().copied().collect();
        let mut starts: Vec<NodeId> =
            members.iter().copied().filter(|m| g.node(*m).parent.is_none_or(|p| !set.contains(&p))).collect();
        starts.sort_by_key(|s| (g.node(*s).ts, *s));
        let mut nodes = Vec::with_capacity(members.len());
        for s in &starts {
            nodes.extend(linearize(g, *s, |k| set.contains(&k)));
        }
        let kind = if key.starts_with("inline-") {
            AgentKind::Inline
        } else if input.files[g.entry(entries, members[0]).loc.file].class == FileClass::SideAgent
            || key.starts_with("acompact")
            || key.starts_with("aside_question")
        {
            AgentKind::SideAgent
        } else {
            AgentKind::Subagent
        };
        let attached_to = starts.iter().filter_map(|s| g.node(*s).parent).find(|p| !g.node(*p).sidechain);
        let meta = input.agent_meta.get(&key).cloned();
        let spawn = find_spawn(g, entries, &key, &meta, &spawns, &nodes);
        let first_ts = nodes.first().map_or(0, |n| g.node(*n).ts);
        let messages = count_messages(entries, g, &nodes);
        let a = g.agents.next_id();
        for m in &nodes {
            g.nodes[*m].agent = Some(a);
        }
        g.agents.push(Agent { agent_id: key.into(), kind, nodes, spawn, attached_to, meta, first_ts, messages });
    }
}

/// The sidechain nodes by agent: its `agentId` (from the entry, else its
/// file's name), else `inline-<uuid of its sidechain root>`.
fn agent_groups(g: &Graph, input: &GraphInput<'_>) -> BTreeMap<String, Vec<NodeId>> {
    let entries = input.entries;
    let top = sidechain_roots(g);
    let mut groups: BTreeMap<String, Vec<NodeId>> = BTreeMap::new();
    for (i, node) in g.nodes.iter_enumerated() {
        let Some(root) = top[i] else { continue };
        let e = &entries[node.entry];
        let file = &input.files[e.loc.file];
        let key = match e.agent_id.as_deref().or(file.agent_id_from_name.as_deref()) {
            Some(a) => a.to_string(),
            None => format!("inline-{}", g.uuid(entries, root)),
        };
        groups.entry(key).or_default().push(i);
    }
    groups
}

/// The sidechain root of every sidechain node (`None` for main nodes):
/// iterative, memoized.
fn sidechain_roots(g: &Graph) -> IdVec<NodeId, Option<NodeId>> {
    let n = g.nodes.len();
    let mut top: IdVec<NodeId, Option<NodeId>> = IdVec::filled(None, n);
    for start in g.nodes.ids() {
        if !g.nodes[start].sidechain || top[start].is_some() {
            continue;
        }
        let mut path = vec![start];
        let mut cur = start;
        let root = loop {
            match g.nodes[cur].parent {
                Some(p) if g.node(p).sidechain && top[p].is_none() && path.len() <= n => {
                    cur = p;
                    path.push(cur);
                }
                Some(p) if g.node(p).sidechain => break top[p].unwrap_or(cur),
                _ => break cur,
            }
        };
        for x in path {
            top[x] = Some(root);
        }
    }
    top
}

/// Where agents are spawned from.
struct Spawns<'e> {
    /// The result naming each agent id (the earliest).
    by_result: FxHashMap<&'e str, NodeId>,
    /// The call of each prompt text (the first by node): its tool_use id and node.
    by_prompt: FxHashMap<u64, (Box<str>, NodeId)>,
}

fn spawn_index<'e>(g: &Graph, entries: &'e Entries) -> Spawns<'e> {
    let mut by_result: FxHashMap<&str, NodeId> = FxHashMap::default();
    let mut by_prompt: FxHashMap<u64, (Box<str>, NodeId)> = FxHashMap::default();
    for (id, node) in g.nodes.iter_enumerated() {
        let e = &entries[node.entry];
        if let Some(a) = e.spawned_agent.as_deref() {
            by_result
                .entry(a)
                .and_modify(|cur| {
                    if (node.ts, id) < (g.node(*cur).ts, *cur) {
                        *cur = id;
                    }
                })
                .or_insert(id);
        }
        for u in &e.tool_uses {
            if let Some(h) = u.prompt_hash {
                by_prompt.entry(h).or_insert_with(|| (u.id.clone(), id));
            }
        }
    }
    Spawns { by_result, by_prompt }
}

fn find_spawn(
    g: &Graph,
    entries: &Entries,
    key: &str,
    meta: &Option<crate::model::AgentMeta>,
    spawns: &Spawns<'_>,
    nodes: &[NodeId],
) -> Option<Spawn> {
    if let Some(&r) = spawns.by_result.get(key) {
        let re = g.entry(entries, r);
        let tool_use_id = re.tool_results.first().map(|t| t.tool_use_id.clone());
        let use_node = tool_use_id.as_deref().and_then(|t| g.tools.get(t)).and_then(|l| l.use_node);
        return Some(Spawn { tool_use_id, use_node, result_node: Some(r) });
    }
    if let Some(t) = meta.as_ref().and_then(|m| m.tool_use_id.as_deref()) {
        if let Some(link) = g.tools.get(t) {
            let result_node = link.results.iter().copied().min_by_key(|r| (g.node(*r).ts, *r));
            return Some(Spawn { tool_use_id: Some(t.into()), use_node: link.use_node, result_node });
        }
    }
    let first_prompt = nodes.iter().map(|n| g.entry(entries, *n)).find(|e| e.user_kind == UserKind::Prompt)?;
    let (tool_use_id, use_node) = spawns.by_prompt.get(&first_prompt.text_hash)?;
    let result_node =
        g.tools.get(&**tool_use_id).and_then(|l| l.results.iter().copied().min_by_key(|r| (g.node(*r).ts, *r)));
    Some(Spawn { tool_use_id: Some(tool_use_id.clone()), use_node: Some(*use_node), result_node })
}

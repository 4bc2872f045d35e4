//! Questions asked of a built graph by several commands: what is read on a
//! branch from the root ([`Graph::projection`]), the chain Claude Code loads
//! a session by ([`Graph::loaded_chain`]), and which
//! sessions `cctree fork` wrote ([`Graph::own_fork_sessions`]). Pure, like
//! the rest of the graph; walks are iterative and guarded against cycles.

use rustc_hash::{FxHashMap, FxHashSet};

use super::{AgentId, BranchId, ConversationId, Graph, Link, NodeId, SessionId, SpliceLink};
use crate::id::IdVec;
use crate::model::Entries;

impl Graph {
    /// The conversation each agent belongs to: the conversation of the node that
    /// spawned it (its call, else its result), else of the main node it hangs
    /// from; an agent spawned inside another agent belongs where that one does.
    /// `None`: spawned by no conversation (an orphan sub-agent file, a Warmup).
    pub fn agent_owners(&self) -> IdVec<AgentId, Option<ConversationId>> {
        let g = self;
        let direct: IdVec<AgentId, Vec<NodeId>> = g
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
        g.agents
            .ids()
            .map(|a| {
                // Follow spawning agents up (iteratively; a loop of agents spawning
                // one another ends as an orphan).
                let mut seen = FxHashSet::default();
                let mut cur = a;
                loop {
                    if !seen.insert(cur) {
                        break None;
                    }
                    let mut next = None;
                    let mut found = None;
                    for n in &direct[cur] {
                        let node = g.node(*n);
                        if !node.sidechain && node.conversation.is_some() {
                            found = node.conversation;
                            break;
                        }
                        if node.sidechain && next.is_none() {
                            next = node.agent.filter(|up| *up != cur);
                        }
                    }
                    match (found, next) {
                        (Some(c), _) => break Some(c),
                        (None, Some(up)) => cur = up,
                        _ => break None,
                    }
                }
            })
            .collect()
    }

    /// The nodes read on a branch from the root: its ancestors' runs up to
    /// each fork point, then its own run (what `check` balances tool calls
    /// on, and where `fork` judges checkpoints).
    pub fn projection(&self, branch: BranchId) -> Vec<NodeId> {
        let mut chain = vec![branch];
        let mut cur = branch;
        while let Some(parent) = self.branches[cur].parent_branch {
            if chain.len() > self.branches.len() {
                break;
            }
            chain.push(parent);
            cur = parent;
        }
        chain.reverse();
        let mut path = Vec::new();
        for w in chain.windows(2) {
            let fork = self.branches[w[1]].fork_point;
            for &n in &self.branches[w[0]].nodes {
                path.push(n);
                if Some(n) == fork {
                    break;
                }
            }
        }
        path.extend_from_slice(&self.branches[branch].nodes);
        path
    }

    /// The chain the client loads a session by, from `k` up: `parentUuid`
    /// links up to the root, or up to the compaction boundary it loads from
    /// (a compaction join is not followed), with the messages compactions
    /// kept where the client splices them (§5.7). Root first. See
    /// [`Graph::loaded_parent`].
    pub fn loaded_chain(&self, entries: &Entries, k: NodeId) -> Vec<NodeId> {
        let mut out = vec![k];
        let mut cur = k;
        let mut walk = Walk::default();
        while let Some(p) = self.loaded_parent(entries, cur, &mut walk) {
            if out.len() > self.nodes.len() {
                break;
            }
            out.push(p);
            cur = p;
        }
        out.reverse();
        out
    }

    /// One step up [`Graph::loaded_chain`]: the parent of `n` on the chain
    /// the client loads, `walk` saying where the walk stands (start with
    /// `Walk::default()`). Messages a compaction kept are followed through
    /// their splice when the walk came from after them (what followed the
    /// summary); a walk starting among them follows `parentUuid` as written
    /// instead ([`Walk::Written`]): a checkpoint there forks the
    /// conversation as it was before the compaction, which the client loads
    /// (the boundary's kept list would not be whole).
    pub fn loaded_parent(&self, entries: &Entries, n: NodeId, walk: &mut Walk) -> Option<NodeId> {
        let main = |p: NodeId| (!self.node(p).sidechain).then_some(p);
        let entered = match walk {
            Walk::Written => {
                let p = entries[self.node(n).entry].parent.as_deref()?;
                return self.index.get(p).copied().and_then(main);
            }
            Walk::Tree(entered) => entered,
        };
        // The client's chain starts with a "Summarize from here" boundary,
        // passed already, then its first kept message.
        if entered
            .iter()
            .any(|s| self.splices.get(*s as usize).is_some_and(|sp| sp.before && sp.kept.first() == Some(&n)))
        {
            return None;
        }
        let node = self.node(n);
        let p = node.parent?;
        match (node.link, self.splice_links.get(&n)) {
            (Link::Physical, _) => main(p),
            (Link::Spliced, Some(&(s, SpliceLink::AfterKept))) => {
                entered.push(s);
                main(p)
            }
            (Link::Spliced, Some(&(s, SpliceLink::Kept))) if entered.contains(&s) => {
                if self.splices.get(s as usize).is_some_and(|sp| sp.kept.first() == Some(&n)) {
                    entered.retain(|x| *x != s);
                }
                main(p)
            }
            (Link::Compaction, Some(&(s, SpliceLink::Boundary))) => {
                entered.push(s);
                main(p)
            }
            (Link::Spliced, _) => {
                *walk = Walk::Written;
                self.loaded_parent(entries, n, walk)
            }
            _ => None,
        }
    }
    /// Sessions that carry a `cctree fork` provenance record
    /// (`Entry::cctree_fork`): the copies `cctree fork` wrote.
    pub fn own_fork_sessions(&self, entries: &Entries) -> FxHashSet<SessionId> {
        let ix: FxHashMap<&str, SessionId> =
            self.sessions.iter_enumerated().map(|(i, s)| (&*s.session_id, i)).collect();
        entries
            .iter()
            .filter(|e| e.cctree_fork.is_some())
            .filter_map(|e| e.session_id.as_deref().and_then(|s| ix.get(s)).copied())
            .collect()
    }
}

/// Where a walk up [`Graph::loaded_chain`] stands.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Walk {
    /// Following the graph: the splices (places in [`Graph::splices`])
    /// whose kept messages it came into from after them.
    Tree(Vec<u32>),
    /// Following `parentUuid` as written.
    Written,
}

impl Default for Walk {
    fn default() -> Walk {
        Walk::Tree(Vec::new())
    }
}

//! Questions asked of a built graph by several commands: what is read on a
//! branch from the root ([`Graph::projection`]), the physical parent chain
//! Claude Code loads a session by ([`Graph::physical_chain`]), and which
//! sessions `cctree fork` wrote ([`Graph::own_fork_sessions`]). Pure, like
//! the rest of the graph; walks are iterative and guarded against cycles.

use rustc_hash::{FxHashMap, FxHashSet};

use super::{BranchId, Graph, Link, NodeId, SessionId};
use crate::parse::Entries;

impl Graph {
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

    /// The physical chain of a node: `parentUuid` links up to the root, or
    /// up to the compaction boundary Claude Code loads from (a compaction
    /// join is not followed). Root first.
    pub fn physical_chain(&self, k: NodeId) -> Vec<NodeId> {
        let mut out = vec![k];
        let mut cur = k;
        while let Some(p) = self.physical_parent(cur) {
            if out.len() > self.nodes.len() {
                break;
            }
            out.push(p);
            cur = p;
        }
        out.reverse();
        out
    }

    /// The main-thread node a node's own `parentUuid` names, if it resolved
    /// (not a join, not a sidechain).
    pub fn physical_parent(&self, n: NodeId) -> Option<NodeId> {
        let node = self.node(n);
        match (node.link, node.parent) {
            (Link::Physical, Some(p)) if !self.node(p).sidechain => Some(p),
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

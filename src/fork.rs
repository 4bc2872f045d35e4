//! `cctree fork`: a resumable copy of a conversation up to a checkpoint.

use rustc_hash::FxHashSet;

use crate::project::Project;

/// Sessions that carry a `cctree fork` provenance record.
pub fn own_fork_sessions(p: &Project) -> FxHashSet<u32> {
    let g = &p.graph;
    let ix: rustc_hash::FxHashMap<&str, u32> = g
        .sessions
        .iter()
        .enumerate()
        .map(|(i, s)| (&*s.id, i as u32))
        .collect();
    p.entries
        .iter()
        .filter(|e| e.cctree_fork)
        .filter_map(|e| e.session_id.as_deref().and_then(|s| ix.get(s)).copied())
        .collect()
}

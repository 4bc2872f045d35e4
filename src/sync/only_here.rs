//! What exists only in the archive: the view `cctree stats` gives of a sync
//! archive, from its [`Record`] and a loaded project.
//!
//! A file the source still has is *held*; a file the source deleted (moved
//! ones excluded: the source has them elsewhere) or a kept previous version
//! is not. A node exists only in the archive when none of its copies is in a
//! held file; a conversation when none of its nodes is held.

use rustc_hash::FxHashSet;
use serde::Serialize;

use super::record::{Record, deleted_of};
use crate::graph::NodeId;
use crate::id::IdVec;
use crate::model::EntryId;
use crate::model::FileId;
use crate::project::Project;

/// Counts of what exists only in the archive.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct OnlyHere {
    /// Transcripts the source deleted, their lines and bytes.
    pub files: u64,
    pub lines: u64,
    pub bytes: u64,
    /// Nodes (messages and other entries with a uuid) found in no held file.
    pub nodes: u64,
    /// Conversations (as `stats` counts them) with no node in a held file.
    pub conversations: u64,
    /// Previous versions of rewritten files.
    pub kept_versions: u64,
}

impl OnlyHere {
    pub fn add(&mut self, o: &OnlyHere) {
        self.files += o.files;
        self.lines += o.lines;
        self.bytes += o.bytes;
        self.nodes += o.nodes;
        self.conversations += o.conversations;
        self.kept_versions += o.kept_versions;
    }
}

/// [`OnlyHere`] of one project, with the roots of its conversations that exist only here.
#[derive(Debug, Clone, Default)]
pub struct ProjectOnlyHere {
    pub counts: OnlyHere,
    pub conversation_roots: FxHashSet<NodeId>,
}

/// What of project `p` exists only in the archive whose record is `record`.
pub fn of_project(p: &Project, record: &Record) -> ProjectOnlyHere {
    let deleted = deleted_of(record, &p.source);
    let mut out = ProjectOnlyHere::default();
    let mut held: IdVec<FileId, bool> = IdVec::with_capacity(p.source.files.len());
    for (f, s) in p.source.files.iter().zip(&p.file_stats) {
        let gone = deleted.contains(&f.rel);
        if gone {
            out.counts.files += 1;
            out.counts.lines += s.lines;
            out.counts.bytes += s.bytes;
        }
        out.counts.kept_versions += u64::from(f.kept_version);
        held.push(!gone && !f.kept_version);
    }
    let g = &p.graph;
    let file_held = |entry: EntryId| held.get(p.entries[entry].loc.file).copied().unwrap_or(true);
    let mut node_held: IdVec<NodeId, bool> = g.nodes.iter().map(|n| file_held(n.entry)).collect();
    for &(n, e) in &g.aliases {
        node_held[n] |= file_held(e);
    }
    out.counts.nodes = node_held.iter().filter(|h| !**h).count() as u64;
    for c in g.conversations.iter().filter(|c| !c.is_fragment) {
        let mut nodes = c.branches.iter().flat_map(|b| &g.branches[*b].nodes);
        if nodes.all(|n| !node_held[*n]) {
            out.counts.conversations += 1;
            out.conversation_roots.insert(c.root);
        }
    }
    out
}

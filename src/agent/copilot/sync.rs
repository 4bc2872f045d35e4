//! What `cctree sync` keeps of GitHub Copilot CLI (transcript-format,
//! Appendix I): its `session-state/` folder (each session's folder: its
//! `events.jsonl` and `workspace.yaml`), in `copilot/session-state/` beside
//! the archive, every file. A `/rewind` rewrites a session's events: the
//! version before it is kept beside the new one, where its abandoned turns
//! are read as a branch.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use crate::agent::keep::{At, Kept, KeptTree, Rewritten, Tree};
use crate::model::ProjectSource;

/// The session-state folder, kept in `copilot/session-state/` beside the archive.
pub(super) const STATE: Tree = Tree::new("copilot", "copilot/session-state/");

/// Copilot CLI's trees, in the order the record lists them.
pub(super) const TREES: &[Tree] = &[STATE];

/// Where the archive `archive` (a projects directory) keeps the
/// session-state folder: `copilot/session-state/` beside it.
pub(super) fn synced_dir(archive: &Path) -> Option<PathBuf> {
    Some(archive.parent()?.join("copilot").join("session-state"))
}

fn every(_: &str) -> bool {
    true
}

fn versions(_: &str) -> Rewritten {
    Rewritten::Versions
}

/// What a sync of the session-state folder `dir` into the archive
/// `archive` keeps.
pub(super) fn keep(dir: &Path, archive: &Path) -> Result<Kept> {
    let Some(to) = synced_dir(archive) else {
        bail!("the archive {} has no parent directory to keep Copilot CLI sessions in", archive.display());
    };
    let tree = KeptTree {
        tree: STATE,
        source: dir.to_path_buf(),
        archive: to,
        prefix: String::new(),
        only: None,
        files: every,
        rewritten: versions,
        moves: false,
    };
    Ok(Kept { source: dir.to_path_buf(), trees: vec![tree], files: Vec::new(), report: Vec::new() })
}

/// A project of the archive (the sessions of one working directory) names
/// its files by their path in the session-state folder.
pub(super) fn kept_at(_p: &ProjectSource) -> Vec<At> {
    vec![At { tree: STATE, prefix: String::new(), under: String::new() }]
}

//! What `cctree sync` keeps of Codex CLI (transcript-format, Appendix C):
//! its sessions tree (`$CODEX_HOME/sessions`, rollouts filed by date) in
//! `codex/sessions/` beside the archive, every file, a rewritten one kept
//! in versions; and its thread names (`$CODEX_HOME/session_index.jsonl`,
//! append-only, the last line of an id winning) in `codex/`, merged line by
//! line as the prompt history is; its archived threads
//! (`$CODEX_HOME/archived_sessions`) in `codex/archived_sessions/`.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use crate::agent::keep::{At, Kept, KeptFile, KeptTree, Rewritten, Tree};
use crate::model::ProjectSource;

/// The sessions tree, kept in `codex/sessions/` beside the archive.
pub(super) const SESSIONS: Tree = Tree::new("codex", "codex/sessions/");
/// The thread names, `codex/session_index.jsonl` (one file, merged).
pub(super) const INDEX: Tree = Tree::new("codex-index", "codex/");
/// The archived threads (`$CODEX_HOME/archived_sessions`), kept in
/// `codex/archived_sessions/` beside the kept sessions tree.
pub(super) const ARCHIVED: Tree = Tree::new("codex-archived", "codex/archived_sessions/");

/// Codex CLI's trees, in the order the record lists them.
pub(super) const TREES: &[Tree] = &[SESSIONS, INDEX, ARCHIVED];

/// The thread names' file, beside the sessions tree.
const INDEX_FILE: &str = "session_index.jsonl";

fn every(_: &str) -> bool {
    true
}

fn versions(_: &str) -> Rewritten {
    Rewritten::Versions
}

/// Where the archive `archive` (a projects directory) keeps the sessions
/// tree: `codex/sessions/` beside it.
pub(super) fn synced_dir(archive: &Path) -> Option<PathBuf> {
    Some(archive.parent()?.join("codex").join("sessions"))
}

/// What a sync of the sessions tree `dir` into the archive `archive` keeps.
pub(super) fn keep(dir: &Path, archive: &Path) -> Result<Kept> {
    let Some(to) = synced_dir(archive) else {
        bail!("the archive {} has no parent directory to keep Codex CLI sessions in", archive.display());
    };
    let index = (dir.parent().map(|d| d.join(INDEX_FILE)).filter(|f| f.is_file()))
        .zip(to.parent().map(|d| d.join(INDEX_FILE)))
        .map(|(source, archive)| KeptFile {
            tree: INDEX,
            source,
            archive,
            rewritten: Rewritten::Merged(crate::agent::keep::lines),
        });
    // The archived threads beside the sessions tree, kept beside the kept one.
    let archived = super::discover::archived_beside(dir)
        .zip(to.parent().map(|d| d.join(super::discover::ARCHIVED)))
        .map(|(source, archive)| KeptTree {
            tree: ARCHIVED,
            source,
            archive,
            prefix: String::new(),
            only: None,
            files: every,
            rewritten: versions,
            moves: false,
        });
    let tree = KeptTree {
        tree: SESSIONS,
        source: dir.to_path_buf(),
        archive: to,
        prefix: String::new(),
        only: None,
        files: every,
        rewritten: versions,
        moves: false,
    };
    let trees = std::iter::once(tree).chain(archived).collect();
    Ok(Kept { source: dir.to_path_buf(), trees, files: index.into_iter().collect(), report: Vec::new() })
}

/// A project of the archive (the rollouts of one working directory) names
/// its files by their path in the sessions tree, and its archived threads
/// by theirs in the archived threads' tree under `archived_sessions/`
/// (as discovery names them).
pub(super) fn kept_at(_p: &ProjectSource) -> Vec<At> {
    let archived = format!("{}/", super::discover::ARCHIVED);
    vec![
        At { tree: SESSIONS, prefix: String::new(), under: String::new() },
        At { tree: ARCHIVED, prefix: String::new(), under: archived },
    ]
}

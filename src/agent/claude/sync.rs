//! What `cctree sync` keeps of Claude Code (README, "Keep every
//! conversation"): its projects directory is the archive itself (the
//! archive has its layout, so every command reads it as the client's), its
//! `file-history/` (the backups of edited files that a code restore reads)
//! beside the archive, and its prompt history (`history.jsonl`, one file of
//! every prompt typed, which the client may prune or rewrite) merged beside
//! the archive, never kept in versions. One project directory synced alone
//! keeps its own sessions' backups and no history (the history holds every
//! project's prompts).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::agent::keep::{At, Kept, KeptFile, KeptTree, Rewritten, Tree, folder_name};
use crate::files::resolve;
use crate::model::ProjectSource;

/// The projects directory: the archive directory itself.
pub(super) const PROJECTS: Tree = Tree::new("projects", "");
/// The client's `file-history/`, beside the projects directory.
pub(super) const FILE_HISTORY: Tree = Tree::new("file-history", "file-history/");
/// The client's prompt history, `history.jsonl`, beside the projects
/// directory (one file, merged).
pub(super) const HISTORY: Tree = Tree::new("history", "");

/// Claude Code's trees, in the order the record lists them.
pub(super) const TREES: &[Tree] = &[PROJECTS, FILE_HISTORY, HISTORY];

/// Every file of a tree is kept.
fn every(_: &str) -> bool {
    true
}

/// A transcript or side file rewritten at the source is kept in versions.
fn versions(_: &str) -> Rewritten {
    Rewritten::Versions
}

/// What a sync of `dir` (a projects directory, one project directory, or
/// the configuration directory standing for its `projects/`) into the
/// archive `archive` keeps. Refuses a source that is not a directory, an
/// archive inside the source or the reverse being refused by the engine.
pub(super) fn keep(dir: &Path, archive: &Path) -> Result<Kept> {
    let source = crate::agent::claude::discover::config_projects(dir).unwrap_or_else(|| dir.to_path_buf());
    let meta = std::fs::metadata(&source).with_context(|| {
        format!(
            "cannot read the source {}: check the path (a projects directory or one project directory)",
            source.display()
        )
    })?;
    if !meta.is_dir() {
        bail!(
            "{} is a file; `cctree sync` mirrors a projects directory (~/.claude/projects) or one project directory",
            source.display()
        );
    }
    let trees = trees(&source, archive);
    let history = history(&source, archive)?;
    let file_history = trees.iter().find(|t| t.tree == FILE_HISTORY).map(|t| t.archive.clone());
    let report = vec![("file_history", file_history), ("history", history.as_ref().map(|h| h.archive.clone()))];
    Ok(Kept { source, trees, files: history.into_iter().collect(), report })
}

/// The trees a sync of `source` (a projects directory or one project
/// directory) mirrors: the projects (or the one project, under its name)
/// and, when the client has one beside them, `file-history/` (of one
/// project, only its sessions').
fn trees(source: &Path, archive: &Path) -> Vec<KeptTree> {
    let archive_fh = archive.parent().map(|p| p.join("file-history"));
    let tree = |tree, source: PathBuf, archive: PathBuf, prefix: String, only| KeptTree {
        tree,
        source,
        archive,
        prefix,
        only,
        files: every,
        rewritten: versions,
        moves: tree == PROJECTS,
    };
    let mut out = Vec::new();
    if crate::agent::claude::discover::is_project_dir(source) {
        let name = folder_name(source);
        out.push(tree(PROJECTS, source.to_path_buf(), archive.join(&name), format!("{name}/"), None));
        let fh = source.parent().and_then(Path::parent).map(|p| p.join("file-history"));
        if let (Some(fh), Some(to)) = (fh.filter(|d| d.is_dir()), archive_fh) {
            out.push(tree(FILE_HISTORY, fh, to, String::new(), Some(sessions_of(source))));
        }
    } else {
        out.push(tree(PROJECTS, source.to_path_buf(), archive.to_path_buf(), String::new(), None));
        let fh = source.parent().map(|p| p.join("file-history"));
        if let (Some(fh), Some(to)) = (fh.filter(|d| d.is_dir()), archive_fh) {
            out.push(tree(FILE_HISTORY, fh, to, String::new(), None));
        }
    }
    out
}

/// Session ids of a project directory: `<id>.jsonl` files and `<id>/` directories.
fn sessions_of(project: &Path) -> BTreeSet<String> {
    let Ok(rd) = std::fs::read_dir(project) else { return BTreeSet::new() };
    rd.flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            match name.strip_suffix(".jsonl") {
                Some(stem) => Some(stem.to_string()),
                None => e.path().is_dir().then_some(name),
            }
        })
        .collect()
}

/// The prompt history to keep: the source's `history.jsonl` (beside its
/// projects directory), kept beside the archive, when the source is a
/// projects directory that has one. Refuses an archive whose history would
/// be the source's own.
fn history(source: &Path, archive: &Path) -> Result<Option<KeptFile>> {
    if crate::agent::claude::discover::is_project_dir(source) {
        return Ok(None);
    }
    let (Some(src), Some(dst)) =
        (source.parent().map(|p| p.join(super::history::FILE_NAME)), super::history::beside_archive(archive))
    else {
        return Ok(None);
    };
    if !src.is_file() {
        return Ok(None);
    }
    if resolve(&src) == resolve(&dst) {
        bail!(
            "the archive {} sits beside the source {}: its history.jsonl would be the client's own; \
             choose another --to (its parent also receives file-history/ and history.jsonl)",
            archive.display(),
            source.display()
        );
    }
    Ok(Some(KeptFile {
        tree: HISTORY,
        source: src,
        archive: dst,
        rewritten: Rewritten::Merged(crate::agent::keep::lines),
    }))
}

/// A project of the archive has its files under its name in the projects tree.
pub(super) fn kept_at(p: &ProjectSource) -> Vec<At> {
    vec![At { tree: PROJECTS, prefix: format!("{}/", p.name), under: String::new() }]
}

//! The archive's record of what the source no longer has.
//!
//! `<archive>/.cctree-sync/record.json` (a directory discover skips: it holds
//! no `.jsonl`) lists the files the source deleted or moved since they were
//! synced, and the previous versions kept of rewritten files. `cctree sync`
//! rewrites it (temporary file + rename) only when it changes; `cctree stats`
//! reads it to tell what exists only in the archive. Everything in it can be
//! rebuilt from the archive and the source but the dates.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::layout::RECORD_FILE;
/// The directory of the record and the lock, inside the archive.
pub use crate::layout::STATE_DIR;
const FORMAT: u32 = 1;

/// Which tree of the archive a path is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tree {
    /// The projects directory (the archive directory itself).
    Projects,
    /// The client's `file-history/`, beside the projects directory.
    FileHistory,
    /// The client's prompt history, `history.jsonl`, beside the projects
    /// directory (one file, merged: [`super::decision::decide_history`]).
    History,
    /// Codex CLI's sessions tree (`$CODEX_HOME/sessions`), kept in
    /// `codex/sessions/` beside the projects directory.
    Codex,
    /// Gemini CLI's `~/.gemini/tmp` (each project's `chats/` and
    /// `.project_root`), kept in `gemini/tmp/` beside the projects directory;
    /// a session file rewritten at the source is merged
    /// ([`super::decision::decide_gemini`]).
    Gemini,
    /// Codex CLI's `session_index.jsonl` (thread names), kept in
    /// `codex/session_index.jsonl` (one file, merged as the prompt history).
    CodexIndex,
    /// Codex CLI's archived threads (`$CODEX_HOME/archived_sessions`), kept
    /// in `codex/archived_sessions/` beside the kept sessions tree.
    CodexArchived,
}

impl Tree {
    pub fn label(self) -> &'static str {
        match self {
            Tree::Projects => "",
            Tree::FileHistory => "file-history/",
            Tree::History => "",
            Tree::Codex => "codex/sessions/",
            Tree::Gemini => "gemini/tmp/",
            Tree::CodexIndex => "codex/",
            Tree::CodexArchived => "codex/archived_sessions/",
        }
    }
}

/// A file the archive keeps that the source no longer has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gone {
    pub tree: Tree,
    /// Path relative to the tree.
    pub path: String,
    /// The sync that first found it missing at the source.
    pub since: String,
    /// Lines (newlines) and bytes of the archived file.
    pub lines: u64,
    pub bytes: u64,
    /// The source now has it in another project (`relocated` to a worktree's
    /// project directory): it is not only in the archive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved_to: Option<String>,
}

/// A previous version of a file rewritten at the source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kept {
    pub tree: Tree,
    /// The kept version, relative to the tree.
    pub path: String,
    /// The live file it is a previous version of.
    pub of: String,
    /// `shrank`, `rewritten`, or `found` (kept by a run that was killed before it recorded why).
    pub reason: String,
    pub since: String,
}

/// The record (see the module documentation).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub format: u32,
    /// The source of the last sync that changed the record.
    pub source: String,
    pub gone: Vec<Gone>,
    pub kept: Vec<Kept>,
}

impl Record {
    pub fn path(archive: &Path) -> PathBuf {
        archive.join(STATE_DIR).join(RECORD_FILE)
    }

    /// The record of the archive at `archive`, if it is one.
    pub fn load(archive: &Path) -> Result<Option<Record>> {
        let path = Self::path(archive);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let mut r: Record = serde_json::from_slice(&bytes).with_context(|| {
            format!("{} is not a cctree sync record; move it away and sync again to rebuild it", path.display())
        })?;
        r.format = FORMAT;
        Ok(Some(r))
    }

    /// Writes the record through a temporary file and a rename.
    pub fn save(&self, archive: &Path) -> Result<()> {
        let path = Self::path(archive);
        let mut r = self.clone();
        r.format = FORMAT;
        r.gone.sort_by(|a, b| (a.tree, &a.path).cmp(&(b.tree, &b.path)));
        r.kept.sort_by(|a, b| (a.tree, &a.path).cmp(&(b.tree, &b.path)));
        let mut bytes = serde_json::to_vec_pretty(&r)?;
        bytes.push(b'\n');
        super::fsops::write_new(&path, &bytes)
    }

    /// Files of `tree` the source deleted (moved ones excluded).
    pub fn deleted(&self, tree: Tree) -> impl Iterator<Item = &Gone> {
        self.gone.iter().filter(move |g| g.tree == tree && g.moved_to.is_none())
    }
}

/// The record of the sync archive a discovered input belongs to: the input
/// itself (a projects directory) or its parent (one project directory).
pub fn find(root: &Path) -> Option<(PathBuf, Record)> {
    let dir = if root.is_file() { root.parent()?.parent()? } else { root };
    for cand in [Some(dir), dir.parent()].into_iter().flatten() {
        match Record::load(cand) {
            Ok(Some(r)) => return Some((cand.to_path_buf(), r)),
            Ok(None) => {}
            Err(e) => tracing::warn!("{e:#}"),
        }
    }
    None
}

/// The project-relative paths of one project's transcripts the source deleted.
pub fn deleted_in_project(record: &Record, project: &str) -> BTreeSet<String> {
    record
        .deleted(Tree::Projects)
        .filter_map(|g| g.path.split_once('/').filter(|(p, _)| *p == project).map(|(_, rest)| rest.to_string()))
        .collect()
}

/// The paths (as [`crate::model::SourceFile::rel`]) of project `p`'s
/// transcripts the source deleted, whichever client wrote them: a Claude
/// Code project's by its name, a Codex project's (rollouts of one working
/// directory, named by their path in the sessions tree) by path, a Gemini
/// project's by its folder's name (`<folder>/chats/…`).
pub fn deleted_of(record: &Record, p: &crate::model::ProjectSource) -> BTreeSet<String> {
    match p.client {
        c if c == crate::agent::CLAUDE => deleted_in_project(record, &p.name),
        c if c == crate::agent::CODEX => {
            let files: BTreeSet<&str> = p.files.iter().map(|f| f.rel.as_str()).collect();
            let archived = crate::agent::codex::discover::ARCHIVED;
            let gone = (record.deleted(Tree::Codex).map(|g| g.path.clone()))
                .chain(record.deleted(Tree::CodexArchived).map(|g| format!("{archived}/{}", g.path)));
            gone.filter(|path| files.contains(path.as_str())).collect()
        }
        _ => {
            let folder = p.dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            record
                .deleted(Tree::Gemini)
                .filter_map(|g| g.path.split_once('/').filter(|(f, _)| *f == folder).map(|(_, rest)| rest.to_string()))
                .collect()
        }
    }
}

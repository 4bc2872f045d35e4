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

/// Which tree of the archive a path is in (each agent's, by the name the
/// record gives it: [`crate::agent::Agent::kept_trees`]).
pub use crate::agent::keep::Tree;

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
    /// The source of the last sync that changed the record: the folder of
    /// each agent it kept, in the order kept, joined by `, `.
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

/// The files of project `p` (as [`crate::model::SourceFile::rel`]) the
/// record names, with what it says of each: where its agent keeps them
/// ([`crate::agent::Agent::kept_at`]).
fn recorded<'a>(record: &'a Record, p: &crate::model::ProjectSource) -> Vec<(&'a Gone, String)> {
    let files: BTreeSet<&str> = p.files.iter().map(|f| f.rel.as_str()).collect();
    let at = crate::agent::of(p.client).kept_at(p);
    (record.gone.iter())
        .filter_map(|g| {
            let at = at.iter().find(|at| at.tree == g.tree)?;
            Some((g, format!("{}{}", at.under, g.path.strip_prefix(at.prefix.as_str())?)))
        })
        .filter(|(_, rel)| files.contains(rel.as_str()))
        .collect()
}

/// The files of project `p` (as [`crate::model::SourceFile::rel`]) the
/// source deleted (moved ones excluded), whichever agent wrote them.
pub fn deleted_of(record: &Record, p: &crate::model::ProjectSource) -> BTreeSet<String> {
    recorded(record, p).into_iter().filter(|(g, _)| g.moved_to.is_none()).map(|(_, rel)| rel).collect()
}

/// How many files of project `p` the source moved to another project.
pub fn moved_of(record: &Record, p: &crate::model::ProjectSource) -> u64 {
    recorded(record, p).iter().filter(|(g, _)| g.moved_to.is_some()).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record as the code before the agent seam wrote it (one entry of
    /// each tree it named): read, and written again byte for byte.
    const OLD: &str = r#"{
  "format": 1,
  "source": "/home/me/.claude/projects",
  "gone": [
    {
      "tree": "projects",
      "path": "-home-me-app/0b9e.jsonl",
      "since": "2026-01-02T03:04:05.000Z",
      "lines": 12,
      "bytes": 3400
    },
    {
      "tree": "projects",
      "path": "-home-me-app/11aa.jsonl",
      "since": "2026-01-02T03:04:05.000Z",
      "lines": 3,
      "bytes": 900,
      "moved_to": "-home-me-app-wt/11aa.jsonl"
    },
    {
      "tree": "file-history",
      "path": "0b9e/abc@v1",
      "since": "2026-01-02T03:04:05.000Z",
      "lines": 1,
      "bytes": 10
    },
    {
      "tree": "codex",
      "path": "2026/11/27/rollout-2026-11-27T01-56-04-01a2.jsonl",
      "since": "2026-01-03T00:00:00.000Z",
      "lines": 30,
      "bytes": 9000
    },
    {
      "tree": "gemini",
      "path": "work/chats/session-2026-11-27T01-56-2466c4cc.jsonl",
      "since": "2026-01-03T00:00:00.000Z",
      "lines": 8,
      "bytes": 2000
    }
  ],
  "kept": [
    {
      "tree": "projects",
      "path": "-home-me-app/22bb.cctree-kept-0011223344556677.jsonl",
      "of": "-home-me-app/22bb.jsonl",
      "reason": "shrank",
      "since": "2026-01-02T03:04:05.000Z"
    },
    {
      "tree": "gemini",
      "path": "work/chats/session-old.cctree-kept-8899aabbccddeeff.json",
      "of": "work/chats/session-old.json",
      "reason": "rewritten",
      "since": "2026-01-02T03:04:05.000Z"
    }
  ]
}
"#;

    #[test]
    fn records_written_before_the_agent_seam_are_read_and_written_again_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(STATE_DIR)).unwrap();
        std::fs::write(Record::path(dir.path()), OLD).unwrap();
        let r = Record::load(dir.path()).unwrap().expect("a record");
        assert_eq!(r.gone.len(), 5);
        let names: Vec<&str> = r.gone.iter().map(|g| g.tree.name()).collect();
        assert_eq!(names, ["projects", "projects", "file-history", "codex", "gemini"]);
        // Written back in order and in the same bytes (the trees' names and order unchanged).
        let out = tempfile::tempdir().unwrap();
        let mut shuffled = r.clone();
        shuffled.gone.reverse();
        shuffled.kept.reverse();
        shuffled.save(out.path()).unwrap();
        assert_eq!(std::fs::read_to_string(Record::path(out.path())).unwrap(), OLD);
        for (tree, other) in [("codex-index", "codex"), ("history", "projects")] {
            let text = OLD.replacen(&format!("\"tree\": \"{other}\""), &format!("\"tree\": \"{tree}\""), 1);
            assert!(serde_json::from_str::<Record>(&text).is_ok(), "{tree} is still a tree");
        }
        let unknown = OLD.replacen("\"tree\": \"codex\"", "\"tree\": \"nope\"", 1);
        assert!(serde_json::from_str::<Record>(&unknown).is_err());
    }

    #[test]
    fn deleted_and_moved_files_of_a_project_are_found_where_its_agent_keeps_them() {
        let r: Record = serde_json::from_str(OLD).unwrap();
        let project = |client, name: &str, dir: &str, rels: &[&str]| {
            let mut p = crate::model::ProjectSource::empty(name.into(), PathBuf::from(dir), client);
            for rel in rels {
                p.files.push(crate::model::SourceFile {
                    path: PathBuf::from(dir).join(rel),
                    rel: rel.to_string(),
                    class: crate::model::FileClass::Main,
                    agent_id_from_name: None,
                    kept_version: false,
                    client,
                });
            }
            p
        };
        let claude = project(
            crate::agent::CLAUDE,
            "-home-me-app",
            "/a/-home-me-app",
            &["0b9e.jsonl", "11aa.jsonl", "33cc.jsonl"],
        );
        assert_eq!(deleted_of(&r, &claude).into_iter().collect::<Vec<_>>(), ["0b9e.jsonl"]);
        assert_eq!(moved_of(&r, &claude), 1);
        let codex_rel = "2026/11/27/rollout-2026-11-27T01-56-04-01a2.jsonl";
        let codex = project(crate::agent::CODEX, "codex-x", "/a/codex", &[codex_rel]);
        assert_eq!(deleted_of(&r, &codex).into_iter().collect::<Vec<_>>(), [codex_rel]);
        let other = project(crate::agent::CODEX, "codex-y", "/a/codex", &["2026/11/28/rollout-b.jsonl"]);
        assert!(deleted_of(&r, &other).is_empty(), "another project's rollouts are not its own");
        let gemini_rel = "chats/session-2026-11-27T01-56-2466c4cc.jsonl";
        let gemini = project(crate::agent::GEMINI, "gemini-work", "/a/gemini/tmp/work", &[gemini_rel]);
        assert_eq!(deleted_of(&r, &gemini).into_iter().collect::<Vec<_>>(), [gemini_rel]);
    }
}

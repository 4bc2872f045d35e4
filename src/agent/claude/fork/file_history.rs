//! Code checkpoints of a fork: what keeps the client's rewind menu able to
//! restore files ("code restore") in the new session.
//!
//! Claude Code records, per prompt, a `file-history-snapshot` (`messageId` =
//! the prompt's uuid) and `file-history-delta` lines (`snapshotMessageId`),
//! whose `backupFileName`s name files in `file-history/<sessionId>/` beside
//! the projects directory (`$CLAUDE_CONFIG_DIR/file-history`). Its own fork
//! (`--fork-session`, `/branch`) copies the snapshot lines into the new file
//! and hard-links the backups into `file-history/<new-id>/` [OBS 2.1.330].
//! `cctree fork` does the same for the prompts on the prefix (deltas too:
//! they record the files a prompt's turn touched first).

use std::path::{Path, PathBuf};

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

use crate::model::{EntryId, Meta};
use crate::project::Project;

/// A backup file to link into the new session's history directory.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Backup {
    pub from: PathBuf,
    pub name: String,
}

/// The client's `file-history` directory for a project directory:
/// `<project>/../../file-history` (the projects directory's sibling).
pub fn history_root(project_dir: &Path) -> Option<PathBuf> {
    Some(project_dir.parent()?.parent()?.join("file-history"))
}

/// The file-history lines (entries, in file order) of the prompts in
/// `prefix` (their uuids), from one file per prompt: the file of the
/// prompt's canonical entry when it holds some (client copies repeat them),
/// else the first file that does.
pub fn lines(p: &Project, prefix: &FxHashSet<&str>) -> Vec<EntryId> {
    let mut by_message: FxHashMap<&str, Vec<EntryId>> = FxHashMap::default();
    for (i, e) in p.entries.iter_enumerated() {
        if let Some(Meta::FileHistory { message }) = &e.meta {
            if prefix.contains(&**message) {
                by_message.entry(message).or_default().push(i);
            }
        }
    }
    let mut out = Vec::new();
    for (message, ix) in by_message {
        let home = p.graph.index.get(message).map(|n| p.graph.entry(&p.entries, *n).loc.file);
        let file = ix
            .iter()
            .map(|i| p.entries[*i].loc.file)
            .find(|f| Some(*f) == home)
            .or_else(|| ix.iter().map(|i| p.entries[*i].loc.file).min());
        out.extend(ix.into_iter().filter(|i| Some(p.entries[*i].loc.file) == file));
    }
    out.sort_by_key(|i| p.entries[*i].loc);
    out
}

/// The backups the lines name, found (`exists`) under the history directory
/// of the file each line comes from, else of one of `sessions`. Names found
/// nowhere are returned apart (the fork then lacks their code restore).
pub fn backups(
    p: &Project,
    lines: &[EntryId],
    sessions: &[String],
    exists: &dyn Fn(&Path) -> bool,
) -> (Vec<Backup>, Vec<String>) {
    let Some(root) = history_root(&p.source.dir) else { return (Vec::new(), Vec::new()) };
    let mut names: Vec<(String, String)> = Vec::new();
    for &i in lines {
        let e = &p.entries[i];
        let stem = p.source.files[e.loc.file].rel.trim_end_matches(".jsonl").to_string();
        let v: Value = p.json(e).unwrap_or(Value::Null);
        let mut found = Vec::new();
        backup_names(&v, &mut found);
        names.extend(found.into_iter().map(|n| (stem.clone(), n)));
    }
    names.sort();
    names.dedup_by(|a, b| a.1 == b.1);
    let (mut out, mut missing) = (Vec::new(), Vec::new());
    for (stem, name) in names {
        // A session id is text from a transcript: one that is not a plain
        // name (`../../outside`) is never a directory to look in.
        let dirs = std::iter::once(stem.as_str()).chain(sessions.iter().map(String::as_str)).filter(|d| safe_name(d));
        match dirs.map(|d| root.join(d).join(&name)).find(|f| exists(f)) {
            Some(from) => out.push(Backup { from, name }),
            None => missing.push(name),
        }
    }
    (out, missing)
}

/// Every non-null `backupFileName` in a line, at any depth.
fn backup_names(v: &Value, out: &mut Vec<String>) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    match (k.as_str(), x) {
                        ("backupFileName", Value::String(s)) if safe_name(s) => out.push(s.clone()),
                        _ => stack.push(x),
                    }
                }
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
}

/// A plain file name (never a path that could leave the directory): what a
/// session id or a backup name must be before it is used as a path.
pub fn safe_name(s: &str) -> bool {
    !s.is_empty() && s != "." && s != ".." && !s.contains(['/', '\\', '\0'])
}

/// Hard-links (else copies) the backups into `<root>/<new id>/`, a new
/// directory. Returns notes about what could not be linked.
pub fn link(root: &Path, new_id: &str, backups: &[Backup]) -> Vec<String> {
    if backups.is_empty() {
        return Vec::new();
    }
    if !safe_name(new_id) {
        return vec![format!("the session id {new_id:?} is not a plain name; the fork has no code restore")];
    }
    let dir = root.join(new_id);
    if let Err(e) = std::fs::create_dir_all(root).and_then(|()| std::fs::create_dir(&dir)) {
        return vec![format!("could not create {}: {e}; the fork has no code restore", dir.display())];
    }
    let mut notes = Vec::new();
    for b in backups {
        let to = dir.join(&b.name);
        if let Err(e) = std::fs::hard_link(&b.from, &to).or_else(|_| std::fs::copy(&b.from, &to).map(|_| ())) {
            notes.push(format!("could not link {} into {}: {e}", b.from.display(), dir.display()));
        }
    }
    notes
}

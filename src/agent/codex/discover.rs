//! Codex CLI's sessions tree (transcript-format, Appendix C):
//! `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>[_<segment id>].jsonl`.
//!
//! Codex files its sessions by date, not by project: each file's first line
//! (`session_meta`) names the working directory, and the files are grouped
//! into one project per directory. A sub-agent's file (`parent_thread_id`)
//! is classified as an agent of its parent's project. Only each file's first
//! line is read here.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use crate::agent::{CODEX, project_name};
use crate::id::IdVec;
use crate::limits::FIRST_LINE_CAP;
use crate::model::{FileClass, ProjectSource, SourceFile};
use crate::term::safe;
use crate::walk::{LinkRule, Walk, walk};

/// The default sessions tree: `$CODEX_HOME/sessions`, else `~/.codex/sessions`.
pub fn default_codex_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CODEX_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir).join("sessions"));
    }
    etcetera::home_dir().ok().map(|h| h.join(".codex").join("sessions"))
}

/// The sessions tree `dir` is or holds: `dir` itself when it is a
/// `sessions` directory of date folders (or any directory whose year
/// folders, or itself, hold rollouts), `dir/sessions` for a `$CODEX_HOME`.
pub fn is_codex_dir(dir: &Path) -> Option<PathBuf> {
    let sessions = dir.join("sessions");
    if sessions.is_dir() && holds_dated(&sessions) {
        return Some(sessions);
    }
    holds_dated(dir).then(|| dir.to_path_buf())
}

/// A directory holding rollout files, or `YYYY` folders with rollout files
/// below them.
fn holds_dated(dir: &Path) -> bool {
    let Ok(read) = std::fs::read_dir(dir) else { return false };
    read.flatten().any(|e| {
        if is_rollout(&e.file_name().to_string_lossy()) && e.path().is_file() {
            return true;
        }
        let name = e.file_name().to_string_lossy().into_owned();
        name.len() == 4
            && name.bytes().all(|b| b.is_ascii_digit())
            && e.path().is_dir()
            && walkdir::WalkDir::new(e.path())
                .max_depth(3)
                .into_iter()
                .flatten()
                .any(|f| is_rollout(&f.file_name().to_string_lossy()))
    })
}

/// `rollout-*.jsonl`.
pub fn is_rollout(name: &str) -> bool {
    name.starts_with("rollout-") && name.ends_with(".jsonl")
}

/// The thread id a rollout's first line (`session_meta.id`) names.
pub fn codex_meta_thread(path: &Path) -> Option<String> {
    first_meta(path).ok()?.thread
}

/// What the first line of a rollout says.
#[derive(Debug, Default)]
pub(crate) struct Meta {
    pub thread: Option<String>,
    pub cwd: Option<String>,
    pub parent_thread: Option<String>,
}

/// Reads the `session_meta` line a rollout starts with (at most
/// [`FIRST_LINE_CAP`] bytes of it).
pub(crate) fn first_meta(path: &Path) -> std::io::Result<Meta> {
    let file = std::fs::File::open(path)?;
    let mut line = Vec::new();
    BufReader::new(file).take(FIRST_LINE_CAP as u64).read_until(b'\n', &mut line)?;
    let text = String::from_utf8_lossy(&line);
    let Ok(v) = crate::json::parse(text.trim()) else { return Ok(Meta::default()) };
    let p = &v["payload"];
    let s = |k: &str| p[k].as_str().filter(|s| !s.is_empty()).map(str::to_string);
    Ok(Meta { thread: s("id"), cwd: s("cwd"), parent_thread: s("parent_thread_id") })
}

/// The names of Codex's threads: `session_index.jsonl` beside the sessions
/// tree (`$CODEX_HOME`), one `{id, thread_name, updated_at}` per naming,
/// append-only, the last line of an id winning (its first line is the
/// automatic name, the first prompt; `/rename` appends). Unreadable lines
/// are skipped, as the client skips them.
pub(crate) fn session_index(sessions: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Some(path) = sessions.parent().map(|p| p.join("session_index.jsonl")) else { return out };
    let Ok(text) = std::fs::read(&path) else { return out };
    for line in String::from_utf8_lossy(&text).lines() {
        let Ok(v) = crate::json::parse(line.trim()) else { continue };
        if let (Some(id), Some(name)) = (v["id"].as_str(), v["thread_name"].as_str()) {
            if !name.trim().is_empty() {
                out.insert(id.to_string(), name.to_string());
            }
        }
    }
    out
}

/// The projects of a sessions tree: its rollouts grouped by working
/// directory (files whose first line names none: `codex-unknown`), each
/// project's files sorted by path.
pub(crate) fn scan(sessions: &Path) -> (Vec<ProjectSource>, Vec<String>) {
    let Walk { files: found, mut warnings } = walk(sessions, LinkRule { top_level: true });
    let titles = session_index(sessions);
    let mut by_cwd: BTreeMap<String, (Vec<SourceFile>, BTreeMap<String, String>)> = BTreeMap::new();
    for (path, rel) in found {
        let name = rel.rsplit('/').next().unwrap_or("");
        if !is_rollout(name) {
            continue;
        }
        let meta = match first_meta(&path) {
            Ok(m) => m,
            Err(e) => {
                warnings.push(format!("{}: cannot read: {e}; skipped", safe(path.display())));
                continue;
            }
        };
        let (class, agent) = match &meta.parent_thread {
            Some(_) => (FileClass::Subagent, meta.thread.clone()),
            None => (FileClass::Main, None),
        };
        let file = SourceFile {
            path,
            rel: rel.clone(),
            class,
            agent_id_from_name: agent,
            kept_version: crate::layout::split_kept(name).is_some(),
            client: CODEX,
        };
        let slot = by_cwd.entry(meta.cwd.unwrap_or_default()).or_default();
        slot.0.push(file);
        if let Some((thread, title)) = meta.thread.as_ref().and_then(|t| Some((t, titles.get(t)?))) {
            slot.1.insert(thread.clone(), title.clone());
        }
    }
    let projects = by_cwd
        .into_iter()
        .map(|(cwd, (mut files, session_titles))| {
            files.sort_by(|a, b| a.rel.cmp(&b.rel));
            let name = if cwd.is_empty() { "codex-unknown".into() } else { project_name(CODEX, &cwd) };
            ProjectSource {
                files: IdVec::from_vec(files),
                session_titles,
                cwd: (!cwd.is_empty()).then_some(cwd),
                ..ProjectSource::empty(name, sessions.to_path_buf(), CODEX)
            }
        })
        .collect();
    (projects, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendored_fixtures_codex_tree_is_grouped_by_working_directory() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codex-0.171.0/exec");
        let sessions = is_codex_dir(&root).expect("a CODEX_HOME");
        let (projects, warnings) = scan(&sessions);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(projects.len(), 1);
        let p = &projects[0];
        assert_eq!(p.cwd.as_deref(), Some("/tmp/cctree-codex-0.171.0/exec/work"));
        assert_eq!(p.files.len(), 3);
        assert_eq!(p.files.iter().filter(|f| f.class == FileClass::Subagent).count(), 1);
        assert!(p.files.iter().all(|f| f.client == CODEX));
    }
}

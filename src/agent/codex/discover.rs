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
use crate::limits::{FIRST_LINE_CAP, START_DIR_LINES};
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
/// folders, or itself, hold rollouts), `dir/sessions` for a `$CODEX_HOME`
/// (whose archived threads, [`archived_beside`], count too).
pub fn is_codex_dir(dir: &Path) -> Option<PathBuf> {
    let sessions = dir.join("sessions");
    if holds_dated(&sessions) || archived_beside(&sessions).is_some_and(|a| holds_dated(&a)) {
        return Some(sessions);
    }
    (holds_dated(dir) || archived_beside(dir).is_some_and(|a| holds_dated(&a))).then(|| dir.to_path_buf())
}

/// The folder of archived threads beside a sessions tree:
/// `$CODEX_HOME/archived_sessions` (the client moves an archived thread's
/// rollouts there, and back into `sessions/` when it is restored), the
/// same beside the tree `cctree sync` keeps; `None` when there is none.
pub fn archived_beside(sessions: &Path) -> Option<PathBuf> {
    if sessions.file_name()? != SESSIONS {
        return None;
    }
    Some(sessions.parent()?.join(ARCHIVED)).filter(|d| d.is_dir())
}

/// The sessions tree's name, and that of the archived threads beside it.
const SESSIONS: &str = "sessions";
pub const ARCHIVED: &str = "archived_sessions";

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
/// [`FIRST_LINE_CAP`] bytes of it). A rollout from before the envelope
/// whose first line names no working directory names it in its first
/// environment context: the lines after it are read up to that one (at
/// most [`START_DIR_LINES`] lines, [`FIRST_LINE_CAP`] bytes in all).
pub(crate) fn first_meta(path: &Path) -> std::io::Result<Meta> {
    let file = std::fs::File::open(path)?;
    let mut head = BufReader::new(file).take(FIRST_LINE_CAP as u64);
    let mut line = Vec::new();
    head.read_until(b'\n', &mut line)?;
    let text = String::from_utf8_lossy(&line);
    let Ok(v) = crate::json::parse(text.trim()) else { return Ok(Meta::default()) };
    let p = match super::envelope(&v) {
        ("session_meta", p) => p,
        _ => &v["payload"],
    };
    let s = |k: &str| p[k].as_str().filter(|s| !s.is_empty()).map(str::to_string);
    let mut meta = Meta { thread: s("id"), cwd: s("cwd"), parent_thread: s("parent_thread_id") };
    if meta.cwd.is_none() && v.get("payload").is_none() && meta.thread.is_some() {
        meta.cwd = context_cwd_in(&mut head)?;
    }
    Ok(meta)
}

/// The working directory the first environment context among the next
/// [`START_DIR_LINES`] lines of `head` names (it comes with the first
/// prompt, after the instructions and state lines).
fn context_cwd_in(head: &mut impl BufRead) -> std::io::Result<Option<String>> {
    let mut line = Vec::new();
    for _ in 0..START_DIR_LINES {
        line.clear();
        if head.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let Ok(v) = crate::json::parse(String::from_utf8_lossy(&line).trim()) else { continue };
        if let ("response_item", p) = super::envelope(&v)
            && p["type"].as_str() == Some("message")
            && let Some(cwd) = super::context_cwd(&super::texts(&p["content"]))
        {
            return Ok(Some(cwd.to_string()));
        }
    }
    Ok(None)
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

/// The projects of a sessions tree (and of the archived threads beside
/// it): its rollouts grouped by working directory (files whose first line names none: `codex-unknown`), each
/// project's files sorted by path.
pub(crate) fn scan(sessions: &Path) -> (Vec<ProjectSource>, Vec<String>) {
    let Walk { files: mut found, mut warnings } = match sessions.is_dir() {
        true => walk(sessions, LinkRule { top_level: true }),
        false => Walk { files: Vec::new(), warnings: Vec::new() },
    };
    // The archived threads beside it, named `archived_sessions/…` (a name no dated file has).
    if let Some(archived) = archived_beside(sessions) {
        let more = walk(&archived, LinkRule { top_level: true });
        found.extend(more.files.into_iter().map(|(path, rel)| (path, format!("{ARCHIVED}/{rel}"))));
        warnings.extend(more.warnings);
    }
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

    #[test]
    fn a_rollout_from_before_the_envelope_names_its_directory_in_its_first_lines() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("rollout-2025-09-13T01-00-00-x.jsonl");
        let env = r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"}]}"#;
        std::fs::write(
            &f,
            format!("{{\"id\":\"t1\",\"timestamp\":\"2025-08-20T13:20:47Z\"}}\n{{\"record_type\":\"state\"}}\n{env}\n"),
        )
        .unwrap();
        let m = first_meta(&f).unwrap();
        assert_eq!((m.thread.as_deref(), m.cwd.as_deref()), (Some("t1"), Some("/w")));
        // A later first line names it itself.
        std::fs::write(
            &f,
            "{\"id\":\"t2\",\"timestamp\":\"2025-09-13T01:00:00Z\",\"cwd\":\"/v\",\"cli_version\":\"0.34.0\"}\n",
        )
        .unwrap();
        assert_eq!(first_meta(&f).unwrap().cwd.as_deref(), Some("/v"));
        // Beyond the lines read for it: unknown.
        let late = format!(
            "{{\"id\":\"t3\",\"timestamp\":\"x\"}}\n{}{env}\n",
            "{\"record_type\":\"state\"}\n".repeat(START_DIR_LINES)
        );
        std::fs::write(&f, late).unwrap();
        assert_eq!(first_meta(&f).unwrap().cwd, None);
    }
}

//! Pi's folders (transcript-format, Appendix E): the agent directory
//! (`$PI_CODING_AGENT_DIR`, else `~/.pi/agent`) holds `sessions/`, one
//! folder per working directory (`--<cwd>--`), each with the sessions
//! `<time>_<session id>.jsonl` (a `session` header first) and, under a
//! session's stem, the sub-agent runs of pi-subagents
//! (`<stem>/<run id>/run-N/session.jsonl`, `<stem>/forks/*.jsonl`).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use crate::agent::PI;
use crate::id::IdVec;
use crate::model::{FileClass, ProjectSource, SourceFile};
use crate::walk::{LinkRule, Walk, walk};

/// The default agent directory, as the client finds it.
pub(crate) fn default_agent_dir() -> Option<PathBuf> {
    match std::env::var_os("PI_CODING_AGENT_DIR").filter(|d| !d.is_empty()) {
        Some(d) => Some(PathBuf::from(d)),
        None => Some(etcetera::home_dir().ok()?.join(".pi").join("agent")),
    }
}

/// The first line of a file parsed: the session header's `id` and `cwd`
/// when it is one (the client lists only such files).
pub(crate) fn header_of(path: &Path) -> Option<(String, Option<String>)> {
    let f = std::fs::File::open(path).ok()?;
    let mut line = Vec::new();
    BufReader::new(f).take_line(&mut line)?;
    let v = crate::json::parse(&String::from_utf8_lossy(&line)).ok()?;
    if v["type"] != "session" {
        return None;
    }
    let id = v["id"].as_str()?.to_string();
    Some((id, v["cwd"].as_str().map(str::to_string)))
}

trait TakeLine {
    fn take_line(self, buf: &mut Vec<u8>) -> Option<()>;
}

impl<R: std::io::Read> TakeLine for BufReader<R> {
    /// The first line, at most 1 MB of it.
    fn take_line(self, buf: &mut Vec<u8>) -> Option<()> {
        use std::io::Read;
        self.take(1 << 20).read_until(b'\n', buf).ok()?;
        Some(())
    }
}

fn is_jsonl(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "jsonl")
}

/// Whether `dir` is one project folder: a session file directly in it.
pub(crate) fn is_project(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .is_ok_and(|r| r.flatten().map(|e| e.path()).any(|p| is_jsonl(&p) && p.is_file() && header_of(&p).is_some()))
}

fn holds_projects(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|r| r.flatten().any(|e| e.path().is_dir() && is_project(&e.path())))
}

/// The sessions folder `dir` is or holds (the agent directory, its
/// `sessions/`, or one project folder, returned as itself).
pub fn is_pi_dir(dir: &Path) -> Option<PathBuf> {
    let sessions = dir.join("sessions");
    if sessions.is_dir() && holds_projects(&sessions) {
        return Some(sessions);
    }
    if is_project(dir) || holds_projects(dir) {
        return Some(dir.to_path_buf());
    }
    None
}

/// The projects of a sessions folder (or of one project folder).
pub(crate) fn scan(dir: &Path) -> (Vec<ProjectSource>, Vec<String>) {
    let mut dirs = Vec::new();
    if is_project(dir) {
        dirs.push(dir.to_path_buf());
    } else if let Ok(read) = std::fs::read_dir(dir) {
        dirs.extend(read.flatten().map(|e| e.path()).filter(|p| p.is_dir() && is_project(p)));
    }
    dirs.sort();
    let mut warnings = Vec::new();
    let mut projects = Vec::new();
    for d in dirs {
        let (p, w) = scan_project(&d);
        warnings.extend(w);
        if !p.files.is_empty() {
            projects.push(p);
        }
    }
    (projects, warnings)
}

/// The class of a session file at `rel` in a project folder, and the id
/// of the sub-agent run it holds (its path under its caller's stem).
pub(crate) fn classify(rel: &str) -> (FileClass, Option<String>) {
    match rel.split_once('/') {
        None => (FileClass::Main, None),
        Some((_stem, rest)) => (FileClass::Subagent, Some(agent_key(rest))),
    }
}

/// The id of a sub-agent run by its path under its caller's stem.
pub(crate) fn agent_key(rest: &str) -> String {
    let live = crate::layout::split_kept(rest).unwrap_or_else(|| rest.to_string());
    live.trim_end_matches(".jsonl").replace('/', "-")
}

fn scan_project(dir: &Path) -> (ProjectSource, Vec<String>) {
    let Walk { files: found, warnings } = walk(dir, LinkRule::default());
    let mut files: Vec<SourceFile> = Vec::new();
    let mut cwd = None;
    for (path, rel) in found {
        if !rel.ends_with(".jsonl") && crate::layout::split_kept(&rel).is_none_or(|l| !l.ends_with(".jsonl")) {
            continue;
        }
        if rel.starts_with("subagent-artifacts/") {
            continue;
        }
        let Some((_, c)) = header_of(&path) else { continue };
        let (class, agent) = classify(&rel);
        if class == FileClass::Main && cwd.is_none() {
            cwd = c;
        }
        let name = rel.rsplit('/').next().unwrap_or("");
        files.push(SourceFile {
            path,
            kept_version: crate::layout::split_kept(name).is_some(),
            rel,
            class,
            agent_id_from_name: agent,
            client: PI,
        });
    }
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    let name = match &cwd {
        Some(c) => PI.project_name(c),
        None => format!("{}{}", PI.name(), crate::walk::dir_name(dir)),
    };
    let source =
        ProjectSource { files: IdVec::from_vec(files), cwd, ..ProjectSource::empty(name, dir.to_path_buf(), PI) };
    (source, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sub_agent_runs_are_classified_apart_from_sessions() {
        assert_eq!(classify("2026_x.jsonl"), (FileClass::Main, None));
        assert_eq!(classify("2026_x/r1/run-0/session.jsonl"), (FileClass::Subagent, Some("r1-run-0-session".into())));
    }

    #[test]
    fn vendored_fixtures_pi_folders_are_projects_named_by_their_cwd() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pi-1.6.0/subagent");
        let sessions = is_pi_dir(&root).expect("a sessions folder");
        let (found, warnings) = scan(&sessions);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(found.len(), 1);
        let p = &found[0];
        assert_eq!(p.cwd.as_deref(), Some("/tmp/cctree-pi-1.6.0/subagent/work"));
        assert_eq!(p.files.iter().filter(|f| f.class == FileClass::Subagent).count(), 2);
        assert_eq!(p.files.iter().filter(|f| f.class == FileClass::Main).count(), 1);
    }
}

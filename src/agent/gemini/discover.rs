//! Gemini CLI's folders (transcript-format, Appendix D):
//! `~/.gemini/tmp/<project>/chats/session-<time>-<short id>.jsonl` (older
//! versions: `.json`), sub-agents in `chats/<parent session id>/<agent id>.jsonl`,
//! the project's working directory in `tmp/<project>/.project_root`.

use std::path::{Path, PathBuf};

use crate::agent::{GEMINI, project_name};
use crate::id::IdVec;
use crate::model::{FileClass, ProjectSource, SourceFile};
use crate::walk::{LinkRule, Walk, walk};

/// The default `tmp` folder: `$GEMINI_CLI_HOME/.gemini/tmp` (the client
/// takes `GEMINI_CLI_HOME` as its home), else `~/.gemini/tmp`.
pub fn default_gemini_dir() -> Option<PathBuf> {
    let home = std::env::var_os("GEMINI_CLI_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| etcetera::home_dir().ok())?;
    Some(home.join(".gemini").join("tmp"))
}

/// The `tmp` folder `dir` is or holds (`~/.gemini`, `~/.gemini/tmp`, or one
/// project folder `tmp/<project>`, returned as itself).
pub fn is_gemini_dir(dir: &Path) -> Option<PathBuf> {
    let tmp = dir.join("tmp");
    if tmp.is_dir() && holds_projects(&tmp) {
        return Some(tmp);
    }
    if dir.join("chats").is_dir() {
        return Some(dir.to_path_buf());
    }
    holds_projects(dir).then(|| dir.to_path_buf())
}

fn holds_projects(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|r| r.flatten().any(|e| e.path().join("chats").is_dir()))
}

/// A session file of a `chats/` folder: `session-*.jsonl` / `.json`.
fn is_session(name: &str) -> bool {
    name.starts_with("session-") && (name.ends_with(".jsonl") || name.ends_with(".json"))
}

/// The projects of a `tmp` folder (or of one project folder).
pub(crate) fn scan(tmp: &Path) -> (Vec<ProjectSource>, Vec<String>) {
    let mut dirs = Vec::new();
    if tmp.join("chats").is_dir() {
        dirs.push(tmp.to_path_buf());
    } else if let Ok(read) = std::fs::read_dir(tmp) {
        dirs.extend(read.flatten().map(|e| e.path()).filter(|p| p.join("chats").is_dir()));
    }
    dirs.sort();
    let mut warnings = Vec::new();
    let mut projects = Vec::new();
    for dir in dirs {
        let (p, w) = scan_project(&dir);
        warnings.extend(w);
        if !p.files.is_empty() {
            projects.push(p);
        }
    }
    (projects, warnings)
}

fn scan_project(dir: &Path) -> (ProjectSource, Vec<String>) {
    let Walk { files: found, warnings } = walk(&dir.join("chats"), LinkRule::default());
    let mut files: Vec<SourceFile> = Vec::new();
    for (path, rel) in found {
        let parts: Vec<&str> = rel.split('/').collect();
        let (class, agent) = match parts.as_slice() {
            [name] if is_session(name) => (FileClass::Main, None),
            [_, name] if name.ends_with(".jsonl") || name.ends_with(".json") => {
                let stem = name.trim_end_matches(".jsonl").trim_end_matches(".json");
                (FileClass::Subagent, Some(crate::layout::split_kept(stem).unwrap_or_else(|| stem.to_string())))
            }
            _ => continue,
        };
        let name = parts.last().copied().unwrap_or("");
        files.push(SourceFile {
            path,
            rel: format!("chats/{rel}"),
            class,
            agent_id_from_name: agent,
            kept_version: crate::layout::split_kept(name).is_some(),
            client: GEMINI,
        });
    }
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    let cwd =
        std::fs::read_to_string(dir.join(".project_root")).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    let short = crate::walk::dir_name(dir);
    let name = match &cwd {
        Some(c) => project_name(GEMINI, c),
        None => format!("gemini-{short}"),
    };
    let source =
        ProjectSource { files: IdVec::from_vec(files), cwd, ..ProjectSource::empty(name, dir.to_path_buf(), GEMINI) };
    (source, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendored_fixtures_gemini_folders_are_projects_with_their_agents() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gemini-0.61.0/headless");
        let tmp = is_gemini_dir(&root).expect("a .gemini folder");
        let (projects, warnings) = scan(&tmp);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(projects.len(), 1);
        let p = &projects[0];
        assert!(p.cwd.as_deref().is_some_and(|c| c.ends_with("/work")), "{:?}", p.cwd);
        assert_eq!(p.files.iter().filter(|f| f.class == FileClass::Subagent).count(), 1);
        assert_eq!(p.files.iter().filter(|f| f.class == FileClass::Main).count(), 1);
    }
}

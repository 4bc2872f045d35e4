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
    let (name, cwd) = name_of(dir);
    let source =
        ProjectSource { files: IdVec::from_vec(files), cwd, ..ProjectSource::empty(name, dir.to_path_buf(), GEMINI) };
    (source, warnings)
}

/// The name of the project of folder `dir` (`tmp/<name>`), and its working
/// directory: the first any file of the project records — `.project_root`,
/// else the client's registry `~/.gemini/projects.json` (directory → folder
/// name), else [`recorded`] (a chat's or a checkpoint's) — else none (the
/// project is then named `gemini-<folder>`).
pub(crate) fn name_of(dir: &Path) -> (String, Option<String>) {
    let cwd = std::fs::read_to_string(dir.join(".project_root"))
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| registered(dir))
        .or_else(|| recorded(dir));
    let name = match &cwd {
        Some(c) => project_name(GEMINI, c),
        None => format!("gemini-{}", crate::walk::dir_name(dir)),
    };
    (name, cwd)
}

/// The directory `~/.gemini/projects.json` (`{"projects": {dir: folder}}`)
/// registers for the folder `dir` (`tmp/<folder>`).
fn registered(dir: &Path) -> Option<String> {
    let folder = crate::walk::dir_name(dir);
    let text = std::fs::read_to_string(dir.parent()?.parent()?.join("projects.json")).ok()?;
    let v = crate::json::parse(&text).ok()?;
    let projects = v.get("projects")?.as_object()?;
    let mut dirs: Vec<&String> =
        projects.iter().filter(|(_, f)| f.as_str() == Some(&*folder)).map(|(d, _)| d).collect();
    dirs.sort();
    dirs.first().map(|d| d.to_string())
}

/// How much of a `.jsonl` chat is searched for the directory: its metadata
/// and its session context come first.
const HEAD_BYTES: usize = 64 * 1024;

/// The working directory a chat or checkpoint of an older client's folder
/// (`tmp/<sha256 of the directory>`, no `.project_root`) records: a chat's
/// `directories`, the session context's "Workspace Directories" or "I'm
/// currently working in the directory:" line (a `.jsonl` chat's first
/// records, a `.json` chat, a `checkpoint-*.json`'s history) — the first,
/// in file order, whose sha256 is the folder's name or a chat's
/// `projectHash` (the client's hash of its working directory), so that no
/// other directory a chat mentions names the project.
fn recorded(dir: &Path) -> Option<String> {
    let mut files: Vec<PathBuf> = Vec::new();
    let listed = |d: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> =
            std::fs::read_dir(d).map(|r| r.flatten().map(|e| e.path()).collect()).unwrap_or_default();
        v.sort();
        v
    };
    files.extend(
        listed(&dir.join("chats"))
            .into_iter()
            .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(is_session)),
    );
    files.extend(listed(dir).into_iter().filter(|p| {
        p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("checkpoint") && n.ends_with(".json"))
    }));
    let mut hashes: Vec<String> = Vec::new();
    let folder = crate::walk::dir_name(dir);
    if folder.len() == 64 && folder.bytes().all(|b| b.is_ascii_hexdigit()) {
        hashes.push(folder.to_ascii_lowercase());
    }
    let mut candidates: Vec<String> = Vec::new();
    for f in files {
        let Ok(bytes) = std::fs::read(&f) else { continue };
        let values: Vec<serde_json::Value> = match f.extension().is_some_and(|e| e == "jsonl") {
            true => (bytes[..bytes.len().min(HEAD_BYTES)].split(|b| *b == b'\n'))
                .filter_map(|l| crate::json::parse(&String::from_utf8_lossy(l)).ok())
                .collect(),
            false => crate::json::parse(&String::from_utf8_lossy(&bytes)).ok().into_iter().collect(),
        };
        for v in &values {
            directories_in(v, &mut hashes, &mut candidates);
        }
    }
    candidates.into_iter().find(|c| hashes.contains(&hash_of(c)))
}

/// The sha256 of `dir`, in lowercase hex: the client's `projectHash`.
fn hash_of(dir: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(dir.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// Of the value `v` (walked without recursion), the `projectHash`es into
/// `hashes` and the directories it records into `candidates`, in order.
fn directories_in(v: &serde_json::Value, hashes: &mut Vec<String>, candidates: &mut Vec<String>) {
    use serde_json::Value;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                if let Some(h) = o.get("projectHash").and_then(Value::as_str) {
                    hashes.push(h.to_ascii_lowercase());
                }
                if let Some(ds) = o.get("directories").and_then(Value::as_array) {
                    candidates.extend(ds.iter().filter_map(Value::as_str).map(str::to_string));
                }
                stack.extend(o.values().rev());
            }
            Value::Array(a) => stack.extend(a.iter().rev()),
            Value::String(s) => {
                for marker in ["I'm currently working in the directory: ", "- **Workspace Directories:**\n  - "] {
                    if let Some(at) = s.find(marker) {
                        let rest = &s[at + marker.len()..];
                        let line = rest.split('\n').next().unwrap_or("").trim();
                        if !line.is_empty() {
                            candidates.push(line.to_string());
                        }
                    }
                }
            }
            _ => {}
        }
    }
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

//! Qwen Code's folders (transcript-format, Appendix G): the runtime
//! directory (`$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen`) holds
//! `projects/<cwd, every character outside [A-Za-z0-9] a "-">/`, each with
//! `chats/<session id>.jsonl` (archived ones in `chats/archive/`) and the
//! sub-agents' `subagents/<parent session id>/agent-<agent id>.jsonl` beside
//! their `.meta.json`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::agent::QWEN;
use crate::id::IdVec;
use crate::model::{AgentMeta, FileClass, ProjectSource, SourceFile};
use crate::walk::{LinkRule, Walk, walk};

/// The default runtime directory, as the client finds it.
pub fn default_qwen_dir() -> Option<PathBuf> {
    let env = |k: &str| std::env::var_os(k).filter(|d| !d.is_empty()).map(PathBuf::from);
    env("QWEN_RUNTIME_DIR").or_else(|| env("QWEN_HOME")).or_else(|| Some(etcetera::home_dir().ok()?.join(".qwen")))
}

/// A session file's name as the client lists them: a UUID, `.jsonl`.
pub(crate) fn is_session_name(name: &str) -> bool {
    let stem = crate::layout::split_kept(name).unwrap_or_else(|| name.to_string());
    stem.strip_suffix(".jsonl")
        .is_some_and(|s| (32..=36).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-'))
}

/// Whether `dir` is one project folder: a `chats/` holding a session.
pub(crate) fn is_project(dir: &Path) -> bool {
    let holds = |d: &Path| {
        std::fs::read_dir(d).is_ok_and(|r| r.flatten().any(|e| is_session_name(&e.file_name().to_string_lossy())))
    };
    let chats = dir.join("chats");
    chats.is_dir() && (holds(&chats) || holds(&chats.join("archive")))
}

fn holds_projects(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|r| r.flatten().any(|e| is_project(&e.path())))
}

/// The `projects` folder `dir` is or holds (the runtime directory, its
/// `projects/`, or one project folder, returned as itself).
pub fn is_qwen_dir(dir: &Path) -> Option<PathBuf> {
    let projects = dir.join("projects");
    if projects.is_dir() && holds_projects(&projects) {
        return Some(projects);
    }
    if is_project(dir) || holds_projects(dir) {
        return Some(dir.to_path_buf());
    }
    None
}

/// The projects of a `projects` folder (or of one project folder).
pub(crate) fn scan(dir: &Path) -> (Vec<ProjectSource>, Vec<String>) {
    let mut dirs = Vec::new();
    if is_project(dir) {
        dirs.push(dir.to_path_buf());
    } else if let Ok(read) = std::fs::read_dir(dir) {
        dirs.extend(read.flatten().map(|e| e.path()).filter(|p| is_project(p)));
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

/// The class of a file at `rel` in a project folder, and its agent id.
pub(crate) fn classify(rel: &str) -> Option<(FileClass, Option<String>)> {
    let parts: Vec<&str> = rel.split('/').collect();
    match parts.as_slice() {
        ["chats", name] | ["chats", "archive", name] if is_session_name(name) => Some((FileClass::Main, None)),
        ["subagents", _, name] => {
            let live = crate::layout::split_kept(name).unwrap_or_else(|| (*name).to_string());
            let id = live.strip_prefix("agent-")?.strip_suffix(".jsonl")?;
            Some((FileClass::Subagent, Some(id.to_string())))
        }
        _ => None,
    }
}

fn scan_project(dir: &Path) -> (ProjectSource, Vec<String>) {
    let mut files: Vec<SourceFile> = Vec::new();
    let mut agent_meta = BTreeMap::new();
    let mut warnings = Vec::new();
    for sub in ["chats", "subagents"].into_iter().filter(|s| dir.join(s).is_dir()) {
        let Walk { files: found, warnings: w } = walk(&dir.join(sub), LinkRule::default());
        warnings.extend(w);
        for (path, rel) in found {
            let rel = format!("{sub}/{rel}");
            if let Some(id) = rel.strip_suffix(".meta.json").and_then(|r| r.rsplit('/').next()?.strip_prefix("agent-"))
            {
                if let Some(m) = read_meta(&path) {
                    agent_meta.insert(id.to_string(), m);
                }
                continue;
            }
            let Some((class, agent)) = classify(&rel) else { continue };
            let name = rel.rsplit('/').next().unwrap_or("");
            files.push(SourceFile {
                path,
                kept_version: crate::layout::split_kept(name).is_some(),
                rel,
                class,
                agent_id_from_name: agent,
                client: QWEN,
            });
        }
    }
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    let short = crate::walk::dir_name(dir);
    // The folder's name is the working directory as `project_name` encodes it.
    let name = format!("{}{short}", QWEN.name());
    let cwd = files.iter().filter(|f| f.class == FileClass::Main).find_map(|f| first_cwd(&f.path));
    let source = ProjectSource {
        files: IdVec::from_vec(files),
        agent_meta,
        cwd,
        ..ProjectSource::empty(name, dir.to_path_buf(), QWEN)
    };
    (source, warnings)
}

/// The `cwd` of a session file's first record (its first 64 KB).
fn first_cwd(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut buf = Vec::new();
    std::fs::File::open(path).ok()?.take(64 * 1024).read_to_end(&mut buf).ok()?;
    let line = buf.split(|b| *b == b'\n').next()?;
    let v = crate::json::parse(&String::from_utf8_lossy(line)).ok()?;
    v["cwd"].as_str().filter(|s| !s.is_empty()).map(str::to_string)
}

/// A sub-agent's `.meta.json`: its type, description and the call that
/// started it.
fn read_meta(path: &Path) -> Option<AgentMeta> {
    let v = crate::json::parse(&std::fs::read_to_string(path).ok()?).ok()?;
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
    Some(AgentMeta { agent_type: s("agentType"), description: s("description"), tool_use_id: s("toolUseId") })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_classified_as_the_client_lists_them() {
        let id = "8aff9400-64aa-4027-8bc3-5c68ae15a270";
        assert_eq!(classify(&format!("chats/{id}.jsonl")), Some((FileClass::Main, None)));
        assert_eq!(classify(&format!("chats/archive/{id}.jsonl")), Some((FileClass::Main, None)));
        // A prompt ledger ends in .jsonl but is no session.
        assert_eq!(classify(&format!("chats/{id}.ledger.jsonl")), None);
        assert_eq!(
            classify(&format!("subagents/{id}/agent-fork-call_10_0.jsonl")),
            Some((FileClass::Subagent, Some("fork-call_10_0".into())))
        );
        assert_eq!(classify(&format!("subagents/{id}/agent-x.jsonl.stream")), None);
    }

    #[test]
    fn vendored_fixtures_qwen_folders_are_projects_with_their_agents() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/qwen-0.24.4/sub-agent");
        let projects = is_qwen_dir(&root).expect("a .qwen folder");
        let (found, warnings) = scan(&projects);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(found.len(), 1);
        let p = &found[0];
        assert_eq!(p.name, "qwen-tmp-cctree-qwen-0-24-4-sub-agent-work");
        assert_eq!(p.cwd.as_deref(), Some("/tmp/cctree-qwen-0.24.4/sub-agent/work"));
        assert_eq!(p.files.iter().filter(|f| f.class == FileClass::Subagent).count(), 3);
        assert_eq!(p.agent_meta["general-purpose-call_6_0"].tool_use_id.as_deref(), Some("call_6_0"));
    }
}

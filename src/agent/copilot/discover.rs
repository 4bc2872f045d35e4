//! Copilot CLI's folders (transcript-format, Appendix I): `$COPILOT_HOME`
//! (else `~/.copilot`) holds `session-state/<session id>/events.jsonl` and
//! its `workspace.yaml` (`cwd`, `name`, `user_named`); sessions are grouped
//! into one project per working directory, a name given by hand is the
//! session's title.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::agent::{COPILOT, project_name};
use crate::id::IdVec;
use crate::model::{FileClass, ProjectSource, SourceFile};

pub fn default_copilot_dir() -> Option<PathBuf> {
    let home = std::env::var_os("COPILOT_HOME").filter(|d| !d.is_empty()).map(PathBuf::from);
    home.or_else(|| Some(etcetera::home_dir().ok()?.join(".copilot")))
}

/// An events file's name, live or kept by `cctree sync`.
fn is_events(name: &str) -> bool {
    crate::layout::split_kept(name).unwrap_or_else(|| name.to_string()) == "events.jsonl"
}

fn holds_sessions(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|r| r.flatten().any(|e| e.path().join("events.jsonl").is_file()))
}

/// The `session-state` folder `dir` is or holds.
pub fn is_copilot_dir(dir: &Path) -> Option<PathBuf> {
    let state = dir.join("session-state");
    if state.is_dir() && holds_sessions(&state) {
        return Some(state);
    }
    (dir.file_name().is_some_and(|n| n == "session-state") && holds_sessions(dir)).then(|| dir.to_path_buf())
}

/// `key: value` of a `workspace.yaml` (the client writes flat keys, a
/// value quoted with `'` when it must be).
fn yaml(text: &str, key: &str) -> Option<String> {
    let line = text.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))?.trim();
    let v = match line.strip_prefix('\'').and_then(|l| l.strip_suffix('\'')) {
        Some(q) => q.replace("''", "'"),
        None => line.trim_matches('"').to_string(),
    };
    (!v.is_empty()).then_some(v)
}

pub(crate) fn scan(state: &Path) -> (Vec<ProjectSource>, Vec<String>) {
    let mut warnings = Vec::new();
    let mut dirs: Vec<PathBuf> = match std::fs::read_dir(state) {
        Ok(r) => r.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect(),
        Err(e) => {
            warnings.push(format!("cannot read {}: {e}", state.display()));
            Vec::new()
        }
    };
    dirs.sort();
    let mut by_cwd: BTreeMap<String, (Vec<SourceFile>, BTreeMap<String, String>)> = BTreeMap::new();
    for d in dirs {
        let id = crate::walk::dir_name(&d);
        let ws = std::fs::read_to_string(d.join("workspace.yaml")).unwrap_or_default();
        let mut names: Vec<String> = std::fs::read_dir(&d)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| is_events(n))
            .collect();
        if names.is_empty() {
            continue;
        }
        names.sort();
        let slot = by_cwd.entry(yaml(&ws, "cwd").unwrap_or_default()).or_default();
        for n in names {
            slot.0.push(SourceFile {
                path: d.join(&n),
                rel: format!("{id}/{n}"),
                class: FileClass::Main,
                agent_id_from_name: None,
                kept_version: crate::layout::split_kept(&n).is_some(),
                client: COPILOT,
            });
        }
        if yaml(&ws, "user_named").as_deref() == Some("true") {
            if let Some(name) = yaml(&ws, "name") {
                slot.1.insert(id, name);
            }
        }
    }
    let projects = by_cwd
        .into_iter()
        .map(|(cwd, (mut files, session_titles))| {
            files.sort_by(|a, b| a.rel.cmp(&b.rel));
            let name = if cwd.is_empty() { "copilot-unknown".into() } else { project_name(COPILOT, &cwd) };
            ProjectSource {
                files: IdVec::from_vec(files),
                session_titles,
                cwd: (!cwd.is_empty()).then_some(cwd),
                ..ProjectSource::empty(name, state.to_path_buf(), COPILOT)
            }
        })
        .collect();
    (projects, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_values_are_read_quoted_or_not() {
        let ws = "id: x\ncwd: /home/user/project\nname: 'RUN: it''s'\nuser_named: true\n";
        assert_eq!(yaml(ws, "cwd").as_deref(), Some("/home/user/project"));
        assert_eq!(yaml(ws, "name").as_deref(), Some("RUN: it's"));
        assert_eq!(yaml(ws, "user_named").as_deref(), Some("true"));
        assert_eq!(yaml(ws, "branch"), None);
    }
}

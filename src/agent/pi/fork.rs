//! `cctree fork` of a Pi session (transcript-format, Appendix E, "How a
//! new session file must look"): a new file in the project folder the
//! source lies in (for a session of the `cctree sync` archive, the folder of
//! its `cwd` in Pi's own sessions folder), a version-3 header naming the
//! source file as `parentSession`, then the source's lines of the path
//! from the root to the checkpoint, byte for byte, in path order — what
//! Pi's own `/fork` writes. `pi --session <new id>` resumes exactly
//! root → checkpoint. The source is never touched.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::agent::PI;
use crate::model::Kind;

/// Replies that end a turn (no pending call), compactions and branch
/// summaries of the main sessions: where a fork may cut.
pub(super) fn legal_nodes(project: &crate::project::Project) -> Vec<crate::graph::NodeId> {
    let g = &project.graph;
    project
        .entries
        .iter()
        .filter(|e| !e.sidechain)
        .filter(|e| {
            (e.kind == Kind::Assistant && e.tool_uses.is_empty() && e.stop_reason.as_deref() != Some("toolUse"))
                || e.compact_summary
                || e.subtype.as_deref() == Some(super::header::BRANCH_SUMMARY)
        })
        .filter_map(|e| e.uuid.as_deref().and_then(|u| g.index.get(u)).copied())
        .collect()
}

/// The session file TARGET names: a file, or a session id (the end of
/// its `<time>_<id>.jsonl` name) among Pi's folders.
pub(super) fn find(target: &str, projects: Option<&Path>) -> Result<Option<PathBuf>> {
    let p = Path::new(target);
    if p.is_file() {
        return Ok(super::discover::header_of(p).is_some().then(|| p.to_path_buf()));
    }
    let suffix = format!("_{target}.jsonl");
    for tree in crate::agent::trees_of(PI, projects) {
        let mut dirs: Vec<PathBuf> = vec![tree.clone()];
        if let Ok(rd) = std::fs::read_dir(&tree) {
            dirs.extend(rd.flatten().map(|e| e.path()).filter(|d| d.is_dir()));
        }
        dirs.sort();
        for d in dirs {
            let Ok(rd) = std::fs::read_dir(&d) else { continue };
            let mut hits: Vec<PathBuf> = rd
                .flatten()
                .map(|e| e.path())
                .filter(|f| f.file_name().is_some_and(|n| n.to_string_lossy().ends_with(&suffix)))
                .collect();
            hits.sort();
            if let Some(f) = hits.into_iter().next() {
                return Ok(Some(f));
            }
        }
    }
    Ok(None)
}

/// The project folder Pi files working directory `cwd` under.
pub(crate) fn folder_of(cwd: &str) -> String {
    let inner: String = cwd
        .trim_start_matches(['/', '\\'])
        .chars()
        .map(|c| if matches!(c, '/' | '\\' | ':') { '-' } else { c })
        .collect();
    format!("--{inner}--")
}

/// The folder the new file goes in (for a source outside the `cctree sync`
/// archive): the project folder the source lies in (its nearest folder
/// named as Pi names `cwd`'s: sub-agent runs lie deeper), as Pi's own
/// `/fork` does, so that `pi --session <id>` finds it in the sessions folder
/// the source was read from (`--session-dir`, another `HOME`); else the
/// source's own folder.
fn project_folder(source: &Path, cwd: &str) -> PathBuf {
    let name = folder_of(cwd);
    let mut up = source.ancestors().skip(1);
    up.find(|d| d.file_name().is_some_and(|n| n == name.as_str()))
        .or_else(|| source.parent())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// What a fork wrote.
#[derive(Debug, serde::Serialize)]
pub(super) struct PiFork {
    pub(super) source_file: PathBuf,
    pub(super) checkpoint: String,
    pub(super) entries: usize,
    pub(super) new: crate::agent::fork::NewSession,
}

impl PiFork {
    pub(super) fn text(&self) -> String {
        format!(
            "forked {} at {} ({} entries)\n{}",
            self.source_file.display(),
            self.checkpoint,
            self.entries,
            self.new.text()
        )
    }
}

/// Forks the Pi session file `file` at `at` (an entry id as the file
/// writes it, or as cctree scopes it, `<session>-<id>`; default: the
/// file's last entry, the leaf Pi loads).
pub(super) fn fork(file: &Path, at: Option<&str>, dry_run: bool) -> Result<PiFork> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()).collect();
    let parsed: Vec<Option<Value>> =
        lines.iter().map(|l| crate::json::parse(&String::from_utf8_lossy(l)).ok()).collect();
    let head = parsed
        .iter()
        .flatten()
        .next()
        .filter(|v| v["type"] == "session")
        .with_context(|| format!("{}: the first line is no session header: not a Pi session", file.display()))?;
    let cwd = head["cwd"].as_str().map(str::to_string);
    let mut by_id: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    for (i, v) in parsed.iter().enumerate() {
        if let Some(id) = v.as_ref().and_then(|v| v["id"].as_str()).filter(|_| i > 0) {
            by_id.entry(id).or_insert(i);
        }
    }
    let checkpoint = match at {
        None => parsed.iter().skip(1).rev().flatten().find_map(|v| v["id"].as_str()),
        Some(a) => by_id.get_key_value(a).map(|(k, _)| *k).or_else(|| {
            let raw = a.rsplit_once('-').map(|(_, r)| r)?;
            by_id.get_key_value(raw).map(|(k, _)| *k)
        }),
    }
    .map(str::to_string)
    .with_context(|| format!("{}: no entry {} in this session", file.display(), at.unwrap_or("")))?;
    let mut chain = Vec::new();
    let mut cur = by_id.get(checkpoint.as_str()).copied();
    while let Some(i) = cur {
        if chain.len() > lines.len() {
            bail!("{}: the parents of {checkpoint} run in a circle", file.display());
        }
        chain.push(i);
        cur = parsed[i].as_ref().and_then(|v| v["parentId"].as_str()).and_then(|p| by_id.get(p).copied());
    }
    chain.reverse();
    let Some(cwd_s) = cwd.clone() else { bail!("{}: the session header names no cwd", file.display()) };
    let source = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let dir = if crate::agent::in_synced_archive(PI, &source) {
        // Never into the archive: into Pi's own sessions folder.
        let Some(root) = super::discover::default_agent_dir() else {
            bail!(
                "{} is in the archive of `cctree sync`, and its fork goes into Pi's ~/.pi/agent/sessions, but no home directory is known: set PI_CODING_AGENT_DIR",
                file.display()
            );
        };
        root.join("sessions").join(folder_of(&cwd_s))
    } else {
        project_folder(&source, &cwd_s)
    };
    let new_id = uuid::Uuid::new_v4().to_string();
    let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string();
    // The header's keys in the order Pi writes them.
    let q = |v: &str| Value::String(v.to_string()).to_string();
    let header = format!(
        r#"{{"type":"session","version":3,"id":{},"timestamp":{},"cwd":{},"parentSession":{}}}"#,
        q(&new_id),
        q(&now),
        q(&cwd_s),
        q(&source.display().to_string())
    );
    let mut out = header.into_bytes();
    out.push(b'\n');
    for &i in &chain {
        out.extend_from_slice(lines[i]);
        out.push(b'\n');
    }
    let path = dir.join(format!("{}_{new_id}.jsonl", now.replace([':', '.'], "-")));
    if !dry_run {
        crate::agent::fork::write_new(&path, &out)?;
    }
    let resume = format!("pi --session {}", crate::term::shell_quote(&new_id));
    let new = crate::agent::fork::NewSession::new(new_id, path, cwd, dry_run, &resume);
    Ok(PiFork { source_file: file.to_path_buf(), checkpoint, entries: chain.len(), new })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_fork_goes_in_the_project_folder_its_source_lies_in() {
        use std::path::Path;
        let sessions = Path::new("/x/agent/sessions/--w--");
        assert_eq!(super::project_folder(&sessions.join("t_a.jsonl"), "/w"), sessions);
        assert_eq!(super::project_folder(&sessions.join("t_a/r/run-0/session.jsonl"), "/w"), sessions);
        assert_eq!(super::project_folder(Path::new("/y/flat/t_a.jsonl"), "/w"), Path::new("/y/flat"));
    }

    #[test]
    fn a_working_directory_names_its_project_folder_as_pi_does() {
        assert_eq!(super::folder_of("/tmp/cctree-pi-1.6.0/tree/work"), "--tmp-cctree-pi-1.6.0-tree-work--");
    }
}

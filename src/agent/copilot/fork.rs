//! `cctree fork` of a Copilot CLI session (transcript-format, Appendix I,
//! "What a fork written by cctree can be"): a new folder
//! `session-state/<new id>/` holding only `events.jsonl`, the source's
//! events up to the end of the checkpoint's turn byte for byte, but the
//! first line, whose `data.sessionId` is the new id. `copilot
//! --resume=<new id>` loads exactly those events and writes the rest
//! (`workspace.yaml`, its row in `session-store.db`) itself. For a session
//! of the `cctree sync` archive the folder goes into the client's
//! `session-state/`. No existing file is written.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::Value;

use crate::agent::COPILOT;

#[derive(Debug, Clone, Serialize)]
pub struct CopilotFork {
    pub source_session: String,
    pub source_file: PathBuf,
    pub checkpoint: String,
    pub lines: usize,
    #[serde(flatten)]
    pub new: crate::agent::fork::NewSession,
}

impl CopilotFork {
    pub fn text(&self) -> String {
        format!(
            "fork of Copilot CLI session {} at {}\n  prefix: {} events of {}\n{}",
            self.source_session,
            self.checkpoint,
            self.lines,
            self.source_file.display(),
            self.new.text()
        )
    }
}

/// The legal checkpoints: every main reply with no tool request (the end
/// of an interaction's model call).
pub fn legal_nodes(project: &crate::project::Project) -> Vec<crate::graph::NodeId> {
    let g = &project.graph;
    project
        .entries
        .iter()
        .filter(|e| e.kind == crate::model::Kind::Assistant && e.tool_uses.is_empty() && !e.sidechain)
        .filter_map(|e| e.uuid.as_deref().and_then(|u| g.index.get(u)).copied())
        .collect()
}

fn legal(v: &Value) -> bool {
    v["type"] == "assistant.message"
        && v["agentId"].is_null()
        && v["data"]["toolRequests"].as_array().is_none_or(Vec::is_empty)
}

/// The `events.jsonl` TARGET names: its path, or a session id (its folder's
/// name) in Copilot's folders.
pub fn find(target: &str, projects: Option<&Path>) -> Result<Option<PathBuf>> {
    let p = Path::new(target);
    if p.is_file() {
        return Ok((p.file_name().is_some_and(|n| n == "events.jsonl")).then(|| p.to_path_buf()));
    }
    if uuid::Uuid::parse_str(target).is_err() {
        return Ok(None);
    }
    for state in crate::agent::trees_of(COPILOT, projects) {
        let f = state.join(target).join("events.jsonl");
        if f.is_file() {
            return Ok(Some(f));
        }
    }
    Ok(None)
}

pub fn fork(file: &Path, at: Option<&str>, dry_run: bool) -> Result<CopilotFork> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let raw: Vec<&[u8]> = bytes.split(|b| *b == b'\n').filter(|l| !l.iter().all(u8::is_ascii_whitespace)).collect();
    let vs: Vec<Value> =
        raw.iter().map(|l| crate::json::parse(String::from_utf8_lossy(l).trim()).unwrap_or(Value::Null)).collect();
    let Some(first) = vs.first().filter(|v| v["type"] == "session.start") else {
        bail!("{}: its first line is no session.start: not a Copilot CLI session", file.display());
    };
    let source_session = first["data"]["sessionId"].as_str().context("session.start names no sessionId")?.to_string();
    let ids: Vec<&str> = vs.iter().map(|v| v["id"].as_str().unwrap_or("")).collect();
    let at_index = match at {
        Some(a) => {
            let hits: Vec<usize> = (0..ids.len())
                .filter(|&i| ids[i] == a || (a.len() >= crate::limits::ID_PREFIX_MIN && ids[i].starts_with(a)))
                .collect();
            match hits.as_slice() {
                [one] => *one,
                [] => bail!("--at {a}: no event with this id in {}", file.display()),
                _ => bail!("--at {a} is ambiguous: {} events start with it", hits.len()),
            }
        }
        None => (0..vs.len())
            .rev()
            .find(|&i| legal(&vs[i]))
            .with_context(|| format!("{}: no reply that ends a turn to fork at", file.display()))?,
    };
    if !legal(&vs[at_index]) {
        bail!(
            "{} is not a legal checkpoint: fork at a reply of the main conversation with no tool request, so that \
             the resumed session has no call left open",
            ids[at_index]
        );
    }
    // Through the end of the checkpoint's turn.
    let mut end = at_index;
    for (i, v) in vs.iter().enumerate().skip(at_index + 1) {
        if v["type"] == "assistant.turn_end" && v["agentId"].is_null() {
            end = i;
            break;
        }
        if v["type"] == "user.message" {
            break;
        }
    }
    let new_id = uuid::Uuid::new_v4().to_string();
    let mut head = first.clone();
    head["data"]["sessionId"] = Value::String(new_id.clone());
    let mut out = crate::json::write(head.as_object().context("session.start is no object")?).into_bytes();
    out.push(b'\n');
    for l in &raw[1..=end] {
        out.extend_from_slice(l.strip_suffix(b"\r").unwrap_or(l));
        out.push(b'\n');
    }
    let state = dest_dir(file)?;
    let path = state.join(&new_id).join("events.jsonl");
    let cwd = first["data"]["context"]["cwd"].as_str().map(str::to_string);
    let resume = format!("copilot --resume={}", crate::term::shell_quote(&new_id));
    if !dry_run {
        crate::agent::fork::write_new(&path, &out)?;
    }
    let new = crate::agent::fork::NewSession::new(new_id, path, cwd, dry_run, &resume);
    Ok(CopilotFork {
        source_session,
        source_file: file.to_path_buf(),
        checkpoint: ids[at_index].to_string(),
        lines: end + 1,
        new,
    })
}

/// The `session-state/` the fork goes into: the source's, or for a session
/// of the `cctree sync` archive, the client's.
fn dest_dir(file: &Path) -> Result<PathBuf> {
    let state = file.parent().and_then(Path::parent).context("the events file is in no session-state folder")?;
    let archived = crate::layout::archive_of(state).is_some()
        || crate::agent::synced_dir_of(COPILOT)
            .and_then(|d| std::fs::canonicalize(d).ok())
            .is_some_and(|d| std::fs::canonicalize(state).is_ok_and(|c| c.starts_with(&d)));
    if !archived {
        return Ok(state.to_path_buf());
    }
    let home = super::discover::default_copilot_dir().context("no home directory is known: set COPILOT_HOME")?;
    Ok(home.join("session-state"))
}

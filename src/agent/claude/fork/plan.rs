//! Planning a fork: the checkpoint, its prefix, every line of the new file
//! byte for byte, its code checkpoints, the provenance record, the version
//! drift and the command that resumes it. Pure: what comes from outside the
//! project (the new session's id, the time, the archive's newest keys, which
//! backups exist) is handed in as [`Inputs`], so tests plan without a clock,
//! random ids or a file system.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use serde::Serialize;

use rustc_hash::FxHashSet;

use super::ForkRequest;
use super::drift::{EntryDrift, Reference, backfill_line, entry_drift};
use super::file_history::{self, Backup};
use super::prefix::{Illegal, prefix, turn_context};
use super::target::{Resolved, default_checkpoint, resolve_at};
use crate::graph::NodeId;
use crate::limits::{FORK_TITLE_CHARS, FORK_TITLE_ID_CHARS};
use crate::model::{Kind, UserKind};
use crate::project::Project;

/// An illegal `--at`: the reason and the nearest legal checkpoints on its path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{uuid} is not a legal checkpoint: {reason}.\n  nearest legal checkpoint before it: {}\n  nearest legal checkpoint after it:  {}",
    before.as_deref().unwrap_or("none"),
    after.as_deref().unwrap_or("none")
)]
pub struct IllegalCheckpoint {
    pub uuid: String,
    pub reason: Illegal,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// What a plan takes from outside the project, gathered by
/// [`super::run`] (tests give their own).
pub struct Inputs<'a> {
    /// The new session's id (a random uuid v4 in `cctree fork`).
    pub new_id: String,
    /// When the fork is made, in ms since the epoch (its provenance record).
    pub now_ms: i64,
    /// The keys the newest Claude Code version's entries carry, for the
    /// version drift ([`Reference::scan`] of the archive's project directories).
    pub reference: Reference,
    /// Whether a backup file exists (the code checkpoints' `file-history/`).
    pub backup_exists: &'a dyn Fn(&Path) -> bool,
    /// Whether a directory exists (the session's working directory, where
    /// the resume command runs: [`super::resume_shell`]).
    pub dir_exists: &'a dyn Fn(&Path) -> bool,
}

/// One line of the new file.
#[derive(Debug, Clone, Serialize)]
pub struct PlannedLine {
    /// Source file (relative to the project directory) and 1-based line.
    pub file: String,
    pub line: u32,
    pub uuid: String,
    #[serde(skip)]
    pub bytes: Vec<u8>,
    /// Keys appended by `--backfill` (empty: byte-identical copy).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub backfilled: Vec<String>,
}

/// The drift of the prefix against the newest version in the archive.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DriftReport {
    pub newest_version: Option<String>,
    /// Versions that wrote the copied entries.
    pub prefix_versions: Vec<String>,
    pub entries: Vec<EntryDrift>,
}

/// Everything a fork writes, before it is written.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    pub new_session_id: String,
    pub path: PathBuf,
    pub checkpoint: String,
    /// The last copied chain entry: the checkpoint, or after a prompt or tool
    /// result the context attachments the client put after it.
    pub tip: String,
    /// The fork ends on something Claude has not answered (see `command`).
    pub awaits_reply: bool,
    pub chain_root: String,
    pub source_session: String,
    pub source_file: Option<String>,
    pub title: String,
    pub cwd: Option<String>,
    /// `claude -r <new id>`.
    pub command: String,
    /// `cd <cwd> && claude -r <new id>`.
    pub shell: String,
    pub dry_run: bool,
    pub backfill: bool,
    /// Number of copied lines (the metadata line not counted).
    pub lines: usize,
    /// Copied lines that are not on the chain (results of parallel calls).
    pub parallel_results: usize,
    pub sources: Vec<PlannedLine>,
    /// The prefix prompts' `file-history-snapshot` / `-delta` lines, copied
    /// after the chain.
    pub history: Vec<PlannedLine>,
    /// The backups they name, linked into `file-history/<new id>/`.
    pub backups: Vec<Backup>,
    /// The appended `custom-title` line with the `cctreeFork` provenance record.
    pub metadata: String,
    pub drift: DriftReport,
    pub notes: Vec<String>,
}

/// Nearest legal checkpoints before and after `k` on the display path of its branch.
pub fn nearest_legal(p: &Project, k: NodeId) -> (Option<NodeId>, Option<NodeId>) {
    let g = &p.graph;
    let Some(b) = g.node(k).branch.filter(|_| !g.node(k).sidechain) else {
        return (None, None);
    };
    let path = g.projection(b);
    let Some(pos) = path.iter().position(|n| *n == k) else {
        return (None, None);
    };
    // Judged forward, in one pass (the scan carries each state to the next node).
    let legal = super::prefix::legal_checkpoints(p, &path);
    let before = (0..pos).rev().find(|&i| legal[i]).map(|i| path[i]);
    let after = (pos + 1..path.len()).find(|&i| legal[i]).map(|i| path[i]);
    (before, after)
}

/// Builds the plan: checkpoint, prefix, lines, code checkpoints, metadata, drift.
pub fn plan(r: &Resolved, req: &ForkRequest, inputs: &Inputs<'_>) -> Result<Plan> {
    let p = &r.project;
    let g = &p.graph;
    let uuid_of = |n: NodeId| g.uuid(&p.entries, n).to_string();
    let mut notes = Vec::new();
    let pre = choose_prefix(r, req, &mut notes)?;
    let k = pre.checkpoint;
    let root = pre.chain[0];
    // A prompt or tool result leaves the turn open: the context the client put
    // on the chain after it belongs to the request it starts.
    let context = turn_context(g, &p.entries, k);
    let mut nodes = pre.nodes.clone();
    nodes.extend_from_slice(&context);
    let tip = *nodes.last().unwrap_or(&k);
    let awaits_reply = awaits_reply(g.entry(&p.entries, tip));

    let (sources, drift) = copy_lines(p, &nodes, &inputs.reference, req.backfill)?;

    let (history, backups) = code_checkpoints(p, &nodes, inputs.backup_exists, &mut notes)?;

    let new_id = inputs.new_id.clone();
    let path = r.dest.join(format!("{new_id}.jsonl"));
    let src_session = if r.message.is_some() || req.at.is_some() {
        g.sessions[g.node(k).session].session_id.to_string()
    } else {
        r.session.clone()
    };
    let short: String = uuid_of(k).chars().take(FORK_TITLE_ID_CHARS).collect();
    let title = match &req.title {
        Some(t) => t.clone(),
        None => format!("Fork of {} at {short}", source_title(p, k)),
    };
    let source_file = Some(match r.session_file {
        Some(f) => p.source.files[f].rel.clone(),
        None => p.source.files[g.entry(&p.entries, k).loc.file].rel.clone(),
    });
    let record = Provenance {
        title: &title,
        new_id: &new_id,
        src_session: &src_session,
        source_file: &source_file,
        checkpoint: &uuid_of(k),
        root: &uuid_of(root),
        tip: &uuid_of(tip),
        created_ms: inputs.now_ms,
    };
    let metadata = record.line(&sources)?;
    let cwd = g.entry(&p.entries, k).cwd.as_deref().or_else(|| p.cwd()).map(str::to_string);
    let tool_results = g.entry(&p.entries, k).user_kind == UserKind::ToolResult;
    let command = resume_command(&new_id, awaits_reply.then_some(tool_results), &mut notes);
    let (shell, gone) = crate::agent::fork::resume_shell(cwd.as_deref(), &command, inputs.dir_exists);
    notes.extend(gone);
    root_note(p, root, &mut notes);
    kept_note(p, &pre.chain, &mut notes);
    Ok(Plan {
        new_session_id: new_id,
        path,
        checkpoint: uuid_of(k),
        tip: uuid_of(tip),
        awaits_reply,
        chain_root: uuid_of(root),
        source_session: src_session,
        source_file,
        title,
        cwd,
        command,
        shell,
        dry_run: req.dry_run,
        backfill: req.backfill,
        lines: sources.len(),
        parallel_results: pre.nodes.len() - pre.chain.len(),
        sources,
        history,
        backups,
        metadata,
        drift,
        notes,
    })
}

/// Where the prefix starts, when that is not the conversation's first prompt.
fn root_note(p: &Project, root: NodeId, notes: &mut Vec<String>) {
    let e = p.graph.entry(&p.entries, root);
    let u = p.graph.uuid(&p.entries, root);
    if e.is_compact_boundary() {
        notes.push(format!("the prefix starts at the compaction boundary {u} (Claude Code loads from there)"));
    } else if e.parent.is_some() {
        notes.push(format!("the prefix starts at {u}, whose parentUuid is not in the project"));
    }
}

/// The compactions on the chain that kept messages: their kept messages
/// are copied too, in the order the client puts them after the summary.
fn kept_note(p: &Project, chain: &[NodeId], notes: &mut Vec<String>) {
    let g = &p.graph;
    let on: FxHashSet<NodeId> = chain.iter().copied().collect();
    let passed =
        |sp: &&crate::graph::Splice| on.contains(&sp.boundary) && sp.kept.last().is_some_and(|t| on.contains(t));
    for sp in g.splices.iter().filter(passed) {
        notes.push(format!(
            "the compaction {} kept {} message(s) verbatim: copied too, as Claude Code loads them ({})",
            g.uuid(&p.entries, sp.boundary),
            sp.kept.len(),
            if sp.before { "before its summary" } else { "after its summary" }
        ));
    }
}

/// The prefix prompts' file-history lines and the backups they name.
fn code_checkpoints(
    p: &Project,
    nodes: &[NodeId],
    exists: &dyn Fn(&Path) -> bool,
    notes: &mut Vec<String>,
) -> Result<(Vec<PlannedLine>, Vec<Backup>)> {
    let g = &p.graph;
    let uuids: FxHashSet<&str> = nodes.iter().map(|n| g.uuid(&p.entries, *n)).collect();
    let ix = file_history::lines(p, &uuids);
    let lines = ix.iter().map(|&i| planned(p, &p.entries[i], String::new())).collect::<Result<_>>()?;
    let sessions: Vec<String> = nodes.iter().map(|n| g.sessions[g.node(*n).session].session_id.to_string()).collect();
    let (backups, missing) = file_history::backups(p, &ix, &sessions, exists);
    if !missing.is_empty() {
        notes.push(format!(
            "{} file backup(s) named by the prefix's code checkpoints are missing; their code restore is lost: {}",
            missing.len(),
            missing.join(", ")
        ));
    }
    Ok((lines, backups))
}

/// `claude -r <id>`; for a fork that ends on a prompt (`Some(false)`) or
/// tool results (`Some(true)`) Claude has not answered, with [`RESUME_TURN`]
/// so that Claude answers it first.
fn resume_command(id: &str, open: Option<bool>, notes: &mut Vec<String>) -> String {
    match open {
        Some(tool_results) => {
            notes.push(format!(
                "the fork ends on {} Claude has not answered: `{RESUME_TURN}=1 claude -r {id}` has Claude answer it \
                 first; plain `claude -r {id}` makes Claude Code insert \"No response requested.\" before your next prompt",
                if tool_results { "tool results" } else { "a prompt" }
            ));
            format!("{RESUME_TURN}=1 claude -r {id}")
        }
        None => format!("claude -r {id}"),
    }
}

/// The environment variable that has Claude Code answer an unanswered
/// prompt or tool result when it resumes a session [OBS 2.1.330].
pub const RESUME_TURN: &str = "CLAUDE_CODE_RESUME_INTERRUPTED_TURN";

/// Whether the fork ends on something Claude has not answered (a prompt,
/// tool results, or the context after them).
fn awaits_reply(e: &crate::model::Entry) -> bool {
    e.kind == Kind::Attachment
        || (e.kind == Kind::User && matches!(e.user_kind, UserKind::Prompt | UserKind::ToolResult))
}

/// The checkpoint and its prefix: `--at`, the message TARGET names, or the
/// session's latest point (moved back to the nearest legal checkpoint).
fn choose_prefix(r: &Resolved, req: &ForkRequest, notes: &mut Vec<String>) -> Result<super::Prefix> {
    let p = &r.project;
    let uuid_of = |n: NodeId| p.graph.uuid(&p.entries, n).to_string();
    let k = match (&req.at, r.message) {
        (Some(at), _) => resolve_at(p, at)?,
        (None, Some(m)) => m,
        (None, None) => {
            let Some(leaf) = default_checkpoint(p, &r.session, r.session_file) else {
                bail!("session {} has no conversation to fork", r.session);
            };
            leaf
        }
    };
    let explicit = req.at.is_some() || r.message.is_some();
    let mut pre = prefix(p, k);
    if let Err(reason) = pre.legal.clone() {
        let (before, after) = nearest_legal(p, k);
        if explicit {
            let (before, after) = (before.map(uuid_of), after.map(uuid_of));
            return Err(IllegalCheckpoint { uuid: uuid_of(k), reason, before, after }.into());
        }
        let Some(b) = before else {
            bail!(
                "the session's latest point {} is not a legal checkpoint ({reason}) and none precedes it",
                uuid_of(k)
            );
        };
        notes.push(format!(
            "the session's latest point {} is not a legal checkpoint ({reason}); using the nearest legal checkpoint before it",
            uuid_of(k)
        ));
        pre = prefix(p, b);
        if let Err(e) = &pre.legal {
            bail!("internal error: nearest legal checkpoint is illegal: {e}");
        }
    }
    if pre.orphan_results > 0 {
        notes.push(format!(
            "the prefix copies {} tool_result(s) whose tool_use is not on it (as in the source)",
            pre.orphan_results
        ));
    }
    Ok(pre)
}

/// One source line, byte for byte, checked against the entry it should hold.
fn planned(p: &Project, e: &crate::model::Entry, uuid: String) -> Result<PlannedLine> {
    let f = e.loc.file;
    let Ok(line) = p.line_bytes(e) else {
        bail!("{} changed while forking (line {} is gone)", p.source.files[f].path.display(), e.loc.line);
    };
    if !uuid.is_empty() && memchr::memmem::find(&line, uuid.as_bytes()).is_none() {
        bail!(
            "{} changed while forking (line {} no longer holds {uuid})",
            p.source.files[f].path.display(),
            e.loc.line
        );
    }
    Ok(PlannedLine {
        file: p.source.files[f].rel.clone(),
        line: e.loc.line,
        uuid,
        bytes: line.to_vec(),
        backfilled: Vec::new(),
    })
}

/// The prefix's lines, byte for byte (with `--backfill`, lacking keys
/// appended), and their version drift.
fn copy_lines(
    p: &Project,
    nodes: &[NodeId],
    reference: &Reference,
    backfill: bool,
) -> Result<(Vec<PlannedLine>, DriftReport)> {
    let g = &p.graph;
    let mut sources = Vec::with_capacity(nodes.len());
    let mut drift = DriftReport {
        newest_version: reference.newest.as_ref().map(|v| v.as_str().to_string()),
        ..DriftReport::default()
    };
    let mut versions = std::collections::BTreeSet::new();
    for &n in nodes {
        let e = g.entry(&p.entries, n);
        let mut out = planned(p, e, g.uuid(&p.entries, n).to_string())?;
        if let Some(v) = &e.version {
            versions.insert(v.to_string());
        }
        if let Some(d) = entry_drift(reference, &out.uuid, &out.bytes) {
            if backfill && !d.added.is_empty() {
                if let Some(b) = backfill_line(&out.bytes, &d.ty, &d.added) {
                    out.bytes = b;
                    out.backfilled = d.added.clone();
                }
            }
            drift.entries.push(d);
        }
        sources.push(out);
    }
    drift.prefix_versions = versions.into_iter().collect();
    Ok((sources, drift))
}

/// The `cctreeFork` provenance record of a fork.
struct Provenance<'a> {
    title: &'a str,
    new_id: &'a str,
    src_session: &'a str,
    source_file: &'a Option<String>,
    checkpoint: &'a str,
    root: &'a str,
    tip: &'a str,
    created_ms: i64,
}

impl Provenance<'_> {
    /// The appended `custom-title` line that carries the record.
    fn line(&self, sources: &[PlannedLine]) -> Result<String> {
        let provenance = serde_json::json!({
            "sourceSessionId": self.src_session,
            "sourceFile": self.source_file,
            "checkpoint": self.checkpoint,
            "tip": self.tip,
            "chainRoot": self.root,
            "lines": sources.len(),
            "backfilled": sources.iter().filter(|s| !s.backfilled.is_empty()).count(),
            "cctreeVersion": env!("CARGO_PKG_VERSION"),
            "created": crate::timestamp::format_timestamp(self.created_ms),
        });
        Ok(format!(
            r#"{{"type":"custom-title","customTitle":{},"sessionId":{},"cctreeFork":{}}}"#,
            serde_json::to_string(self.title)?,
            serde_json::to_string(self.new_id)?,
            provenance
        ))
    }
}

/// The title of the source: its conversation's (the original session's name,
/// never a fork's, so default titles do not compound), else the session id.
fn source_title(p: &Project, k: NodeId) -> String {
    let g = &p.graph;
    let t = g
        .node(k)
        .conversation
        .map(|c| g.conversations[c].title.to_string())
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| {
            format!("session {}", g.sessions[g.node(k).session].session_id.chars().take(8).collect::<String>())
        });
    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    match t.char_indices().nth(FORK_TITLE_CHARS) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None => t,
    }
}

//! `cctree fork` of an OpenCode session (transcript-format, Appendix F,
//! "Writing a fork the client resumes"): never a byte into the client's
//! database. The messages root → checkpoint are written as the file
//! `opencode export` prints (`{info, messages: [{info, parts}]}`) under new
//! ids (a descending `ses_` id, ascending `msg_`/`prt_` ids, each
//! assistant's `parentID` mapped, the originals' times kept), into
//! `forks/opencode/<new id>.json` beside cctree's archive; the client's own
//! `opencode import <file>`, run in the session's directory, writes it
//! through its own connection, and `opencode -s <new id>` resumes it.
//! Checkpoints: a reply that ends a turn (its step finished otherwise than
//! to call tools, every call answered), the summary of a compaction; none
//! of a sub-agent's session.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::header::SESSION;
use crate::graph::NodeId;
use crate::model::{Entry, Kind};
use crate::project::Project;

/// Whether the entry is a checkpoint (see the module documentation).
fn legal(e: &Entry) -> bool {
    let answered = e.tool_uses.iter().all(|u| e.tool_results.iter().any(|r| r.tool_use_id == u.id));
    e.kind == Kind::Assistant
        && !e.sidechain
        && !e.api_error
        && answered
        && (e.compact_summary || e.stop_reason.as_deref().is_some_and(|f| f != "tool-calls"))
}

/// The messages of a project a fork may cut after (`--at`).
pub(super) fn legal_nodes(project: &Project) -> Vec<NodeId> {
    let g = &project.graph;
    let mut out: Vec<NodeId> =
        g.nodes.iter_enumerated().filter(|(_, n)| legal(&project.entries[n.entry])).map(|(id, _)| id).collect();
    out.sort_unstable();
    out
}

/// What an OpenCode fork wrote (or would write).
#[derive(Debug, Clone, Serialize)]
pub struct OpenCodeFork {
    pub source_session: String,
    /// The message id of the checkpoint.
    pub checkpoint: String,
    /// Messages written (root → checkpoint).
    pub messages: usize,
    #[serde(flatten)]
    pub new: crate::agent::fork::NewSession,
}

impl OpenCodeFork {
    pub fn text(&self) -> String {
        format!(
            "fork of OpenCode session {} at {}\n  prefix: {} messages, written for `opencode import` (OpenCode's \
             database is not touched)\n{}",
            self.source_session,
            self.checkpoint,
            self.messages,
            self.new.text()
        )
    }
}

/// A session `cctree fork` found: the data folder holding it.
pub(super) struct Found {
    pub folder: PathBuf,
    pub session: String,
}

impl crate::agent::fork::Target for Found {
    fn describe(&self) -> String {
        format!("an OpenCode session ({} in {})", self.session, self.folder.display())
    }
    fn fork(self: Box<Self>, req: &crate::agent::fork::ForkRequest) -> Result<crate::agent::fork::Fork> {
        let f = fork(&self.folder, &self.session, req)?;
        Ok(crate::agent::fork::Fork::of(f.text(), &f))
    }
}

/// Whether `id` has the form of the client's ids with `prefix` (`ses`, `msg`).
fn is_id(id: &str, prefix: &str) -> bool {
    id.strip_prefix(prefix)
        .and_then(|r| r.strip_prefix('_'))
        .is_some_and(|r| r.len() >= 12 && r.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// The session TARGET names (a session id, or a message id as `by` says)
/// in OpenCode's data folders: `projects` when it is one, else the default
/// folder (and the `cctree sync` archive's copy).
pub(super) fn find(target: &str, projects: Option<&Path>, by: crate::agent::fork::Lookup) -> Result<Option<Found>> {
    use crate::agent::fork::Lookup;
    let (sql, ok) = match by {
        Lookup::Name => ("SELECT id FROM session WHERE id = ?1", is_id(target, "ses")),
        Lookup::Message => ("SELECT session_id FROM message WHERE id = ?1", is_id(target, "msg")),
    };
    if !ok {
        return Ok(None);
    }
    for folder in crate::agent::trees_of(crate::agent::OPENCODE, projects) {
        for db in super::discover::databases(&folder) {
            let hit = crate::sqlite::read(&db, |c| {
                use rusqlite::OptionalExtension;
                let mut got: Option<String> = c.query_row(sql, [target], |r| r.get(0)).optional()?;
                if got.is_none() && by == Lookup::Message && crate::sqlite::has_table(c, "event")? {
                    // A message the client removed: its events name it.
                    let q = "SELECT aggregate_id FROM event WHERE type = 'message.updated.1' \
                             AND json_extract(data, '$.info.id') = ?1 LIMIT 1";
                    got = c.query_row(q, [target], |r| r.get(0)).optional()?;
                }
                Ok(got)
            })
            .with_context(|| format!("cannot read {}", db.display()))?;
            if let Some(session) = hit {
                return Ok(Some(Found { folder, session }));
            }
        }
        if let Some(session) = in_storage(&folder.join("storage"), target, by) {
            return Ok(Some(Found { folder, session }));
        }
    }
    Ok(None)
}

/// The session of TARGET in a JSON storage folder.
fn in_storage(root: &Path, target: &str, by: crate::agent::fork::Lookup) -> Option<String> {
    let dirs = |d: PathBuf| -> Vec<PathBuf> {
        std::fs::read_dir(d).into_iter().flatten().flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect()
    };
    match by {
        crate::agent::fork::Lookup::Name => dirs(root.join("session"))
            .into_iter()
            .any(|p| p.join(format!("{target}.json")).is_file())
            .then(|| target.to_string()),
        crate::agent::fork::Lookup::Message => dirs(root.join("message"))
            .into_iter()
            .find(|d| d.join(format!("{target}.json")).is_file())
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned())),
    }
}

/// Forks the session `session` of the data folder `folder`.
fn fork(folder: &Path, session: &str, req: &crate::agent::fork::ForkRequest) -> Result<OpenCodeFork> {
    let (sources, _) = super::discover::scan(folder);
    let project = sources
        .into_iter()
        .map(Project::load)
        .find(|p| p.graph.session_named(session).is_some())
        .with_context(|| format!("{session}: no OpenCode session of {} holds it", folder.display()))?;
    let g = &project.graph;
    let legal = legal_nodes(&project);
    let at = checkpoint(&project, session, req.at.as_deref(), &legal)?;
    let chain = g.ancestry(at);
    let lines: Vec<Value> = chain
        .iter()
        .map(|&n| project.json(g.entry(&project.entries, n)).map_err(anyhow::Error::from))
        .collect::<Result<_>>()?;
    let info = project
        .entries
        .iter()
        .filter(|e| e.kind == Kind::KnownMeta(SESSION.into()) && e.session_id.as_deref() == Some(session))
        .find_map(|e| project.json(e).ok())
        .map(|v| v["info"].clone())
        .unwrap_or(Value::Null);
    let now = jiff::Timestamp::now().as_millisecond();
    let mut ids = Ids::new(now);
    let new_session = ids.next("ses", true);
    let title = req.title.clone().unwrap_or_else(|| {
        let t = info["title"].as_str().filter(|t| !t.is_empty()).unwrap_or("OpenCode session");
        format!("{t} (cctree fork)")
    });
    let doc = export(&info, &lines, &new_session, &title, now, &mut ids);
    let cwd = info["directory"].as_str().map(str::to_string);
    let dir = forks_dir().context("no folder for cctree's files is known (set CCTREE_ARCHIVE or HOME)")?;
    let file = dir.join(format!("{new_session}.json"));
    let q = crate::term::shell_quote;
    let resume = format!("opencode import {} && opencode -s {}", q(&file.to_string_lossy()), q(&new_session));
    let new = crate::agent::fork::NewSession::new(new_session, file.clone(), cwd, req.dry_run, &resume);
    if !req.dry_run {
        let bytes = serde_json::to_vec_pretty(&doc)?;
        crate::agent::fork::write_new(&file, &bytes)?;
    }
    let checkpoint = g.uuid(&project.entries, at).to_string();
    Ok(OpenCodeFork { source_session: session.to_string(), checkpoint, messages: lines.len(), new })
}

/// Where forks are written for `opencode import`: `forks/opencode/` beside
/// cctree's archive (`$CCTREE_ARCHIVE`, else `~/.local/share/cctree/`).
pub fn forks_dir() -> Option<PathBuf> {
    Some(crate::layout::default_archive_dir()?.parent()?.join("forks").join("opencode"))
}

/// The checkpoint: `--at` (a message id or a unique prefix of one), which
/// must be legal; else the session's latest legal message.
fn checkpoint(p: &Project, session: &str, at: Option<&str>, legal: &[NodeId]) -> Result<NodeId> {
    let g = &p.graph;
    let is_legal = |n: NodeId| legal.binary_search(&n).is_ok();
    if let Some(at) = at {
        let n = match g.index.get(at) {
            Some(&n) => n,
            None => {
                let hits: Vec<NodeId> = match at.len() >= crate::limits::ID_PREFIX_MIN {
                    true => g.index.iter().filter(|(k, _)| k.starts_with(at)).map(|(_, &n)| n).collect(),
                    false => Vec::new(),
                };
                match hits.as_slice() {
                    [n] => *n,
                    [] => bail!("--at {at}: no message of the project has this id"),
                    _ => bail!("--at {at}: the start of {} message ids; give more of it", hits.len()),
                }
            }
        };
        if !is_legal(n) {
            bail!(
                "--at {at}: not a legal checkpoint: an OpenCode fork cuts after a reply that ends a turn (every tool \
                 call answered) or a compaction's summary, never in a sub-agent's session"
            );
        }
        return Ok(n);
    }
    let s = g.session_named(session).context("the session has no message")?;
    let leaf = g.sessions[s]
        .leaf
        .or_else(|| {
            g.nodes
                .iter_enumerated()
                .filter(|(_, n)| n.session == s)
                .max_by_key(|(id, n)| (n.ts, *id))
                .map(|(id, _)| id)
        })
        .context("the session has no message")?;
    g.ancestry(leaf)
        .into_iter()
        .rev()
        .find(|n| is_legal(*n))
        .with_context(|| format!("{session}: no reply of the session ends a turn yet: nothing a fork may cut after"))
}

/// New ids in the client's form: `<prefix>_` + 12 hex digits of
/// `ms × 4096 + counter` (inverted for a session: newer sorts first) + 14
/// base-62 characters.
struct Ids {
    now: i64,
    counter: u64,
}

impl Ids {
    fn new(now: i64) -> Ids {
        Ids { now, counter: 0 }
    }

    fn next(&mut self, prefix: &str, descending: bool) -> String {
        self.counter += 1;
        let ms = u64::try_from(self.now).unwrap_or(0);
        let n = ms.wrapping_mul(0x1000).wrapping_add(self.counter) & 0xFFFF_FFFF_FFFF;
        let n = if descending { !n & 0xFFFF_FFFF_FFFF } else { n };
        const B62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        let random: String =
            uuid::Uuid::new_v4().as_bytes()[..14].iter().map(|b| B62[usize::from(*b) % 62] as char).collect();
        format!("{prefix}_{n:012x}{random}")
    }
}

/// The file `opencode import` reads: the session `info` under its new id
/// and title, and the messages of `lines` (root → checkpoint) under new ids.
fn export(info: &Value, lines: &[Value], session: &str, title: &str, now: i64, ids: &mut Ids) -> Value {
    let mut s: Map<String, Value> = info.as_object().cloned().unwrap_or_default();
    for k in ["parentID", "revert", "share", "workspaceID"] {
        s.remove(k);
    }
    s.insert("id".into(), session.into());
    s.insert("title".into(), title.into());
    s.insert("time".into(), json!({ "created": now, "updated": now }));
    s.entry("summary").or_insert_with(|| json!({ "additions": 0, "deletions": 0, "files": 0 }));
    s.entry("cost").or_insert_with(|| json!(0));
    s.entry("tokens")
        .or_insert_with(|| json!({ "input": 0, "output": 0, "reasoning": 0, "cache": { "read": 0, "write": 0 } }));
    let mut mapped: rustc_hash::FxHashMap<String, String> = Default::default();
    let mut last_user: Option<String> = None;
    let mut messages = Vec::new();
    for v in lines {
        let old = v["id"].as_str().or_else(|| v["info"]["id"].as_str()).unwrap_or("").to_string();
        let id = ids.next("msg", false);
        mapped.insert(old, id.clone());
        let mut info = v["info"].as_object().cloned().unwrap_or_default();
        info.insert("id".into(), id.clone().into());
        info.insert("sessionID".into(), session.into());
        if info.get("role").and_then(Value::as_str) == Some("user") {
            last_user = Some(id.clone());
        } else if info.contains_key("parentID") || info.get("role").and_then(Value::as_str) == Some("assistant") {
            let parent = info.get("parentID").and_then(Value::as_str).and_then(|p| mapped.get(p)).cloned();
            if let Some(p) = parent.or_else(|| last_user.clone()) {
                info.insert("parentID".into(), p.into());
            }
        }
        let parts: Vec<Value> = v["parts"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| {
                let mut d = p["data"].as_object().cloned().unwrap_or_default();
                d.insert("id".into(), ids.next("prt", false).into());
                d.insert("sessionID".into(), session.into());
                d.insert("messageID".into(), id.clone().into());
                if let Some(tail) = d.get("tail_start_id").and_then(Value::as_str).map(str::to_string) {
                    match mapped.get(&tail) {
                        Some(t) => d.insert("tail_start_id".into(), t.clone().into()),
                        None => d.remove("tail_start_id"),
                    };
                }
                Value::Object(d)
            })
            .collect();
        messages.push(json!({ "info": Value::Object(info), "parts": parts }));
    }
    json!({ "info": Value::Object(s), "messages": messages })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_ids_have_the_clients_form_and_order() {
        let mut ids = Ids::new(1_796_175_659_195);
        let (a, b) = (ids.next("msg", false), ids.next("msg", false));
        assert!(a < b, "ascending: {a} {b}");
        assert!(is_id(&a, "msg") && a.len() == "msg_".len() + 26, "{a}");
        let (s1, s2) = (ids.next("ses", true), ids.next("ses", true));
        assert!(s2 < s1, "sessions descend: {s1} {s2}");
        assert!(is_id(&s1, "ses"));
    }
}

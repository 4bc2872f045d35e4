//! `cctree fork` of a Qwen Code session (transcript-format, Appendix G,
//! "How a session file must look for `qwen --resume <id>`"): a new
//! `chats/<new id>.jsonl` in the session's project folder holding the chain
//! root → checkpoint as the client's own `--fork-session` writes it (the
//! same uuids, every record's `sessionId` the new id, `forkedFrom
//! {sessionId, messageUuid}` added), then a `custom_title` naming the fork
//! under the checkpoint. The checkpoint is then the file's last
//! conversation record but the title, whose parent it is: `qwen --resume
//! <new id>`, run in the session's working directory, loads exactly root →
//! checkpoint. For a session of the `cctree sync` archive the file goes into
//! the same project folder of the client's runtime directory. No existing
//! file is written.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rustc_hash::FxHashMap;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::agent::QWEN;

/// What a Qwen Code fork wrote (or would write).
#[derive(Debug, Clone, Serialize)]
pub struct QwenFork {
    pub source_session: String,
    pub source_file: PathBuf,
    /// The checkpoint's uuid (a reply that ends a turn).
    pub checkpoint: String,
    /// Records copied (the chain root → checkpoint).
    pub records: usize,
    pub title: String,
    #[serde(flatten)]
    pub new: crate::agent::fork::NewSession,
}

impl QwenFork {
    /// The human-readable report.
    pub fn text(&self) -> String {
        format!(
            "fork of Qwen Code session {} at {}\n  prefix: {} records of {} (the chain root → checkpoint)\n  title: {}\n{}",
            self.source_session,
            self.checkpoint,
            self.records,
            self.source_file.display(),
            self.title,
            self.new.text()
        )
    }
}

/// The legal checkpoints of a project: every main reply with text and no
/// call (a turn the client completed: every call before it answered).
pub fn legal_nodes(project: &crate::project::Project) -> Vec<crate::graph::NodeId> {
    let g = &project.graph;
    project
        .entries
        .iter()
        .filter(|e| e.kind == crate::model::Kind::Assistant && e.tool_uses.is_empty() && !e.sidechain)
        .filter(|e| !e.excerpt.is_empty())
        .filter_map(|e| e.uuid.as_deref().and_then(|u| g.index.get(u)).copied())
        .collect()
}

/// Whether a record (as written) is a legal checkpoint: an `assistant`
/// record with visible text and no `functionCall`.
fn legal(o: &Map<String, Value>) -> bool {
    let parts = o.get("message").and_then(|m| m.get("parts")).and_then(Value::as_array);
    o.get("type").and_then(Value::as_str) == Some("assistant")
        && o.get("isSidechain") != Some(&Value::Bool(true))
        && parts.is_some_and(|ps| {
            !ps.iter().any(|p| p.get("functionCall").is_some())
                && ps.iter().any(|p| {
                    p.get("thought") != Some(&Value::Bool(true))
                        && p.get("text").and_then(Value::as_str).is_some_and(|t| !t.trim().is_empty())
                })
        })
}

/// The session file TARGET names: the path of a session file, or a session
/// id (the client names its file `chats/<id>.jsonl`) in Qwen Code's folders
/// (`--projects DIR` when it is one, else the client's and the `cctree sync`
/// archive's).
pub fn find(target: &str, projects: Option<&Path>) -> Result<Option<PathBuf>> {
    let p = Path::new(target);
    if p.is_file() {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let in_chats = p.parent().and_then(Path::file_name).is_some_and(|n| n == "chats");
        return Ok((in_chats && super::discover::is_session_name(&name)).then(|| p.to_path_buf()));
    }
    if uuid::Uuid::parse_str(target).is_err() {
        return Ok(None);
    }
    let name = format!("{target}.jsonl");
    for tree in crate::agent::trees_of(QWEN, projects) {
        let mut dirs: Vec<PathBuf> = vec![tree.clone()];
        if let Ok(rd) = std::fs::read_dir(&tree) {
            dirs.extend(rd.flatten().map(|e| e.path()));
        }
        dirs.sort();
        for d in dirs {
            for f in [d.join("chats").join(&name), d.join("chats").join("archive").join(&name)] {
                if f.is_file() {
                    return Ok(Some(f));
                }
            }
        }
    }
    Ok(None)
}

/// The records of a file, each with its uuid, in file order.
fn records(bytes: &[u8]) -> Vec<Map<String, Value>> {
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .filter_map(|l| match crate::json::parse(String::from_utf8_lossy(l).trim()) {
            Ok(Value::Object(o)) if o.get("uuid").and_then(Value::as_str).is_some_and(|u| !u.is_empty()) => Some(o),
            _ => None,
        })
        .collect()
}

fn str_of<'a>(o: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    o.get(key).and_then(Value::as_str)
}

/// The checkpoint's uuid: `at` (a uuid or a unique prefix of one), else the
/// last legal record of the branch the file loads (from its last record).
fn checkpoint_of(rs: &[Map<String, Value>], at: Option<&str>, file: &Path) -> Result<String> {
    let uuids: Vec<&str> = rs.iter().filter_map(|o| str_of(o, "uuid")).collect();
    if let Some(a) = at {
        let mut hits: Vec<&str> = uuids.iter().copied().filter(|u| *u == a).collect();
        if hits.is_empty() && a.len() >= crate::limits::ID_PREFIX_MIN {
            hits = uuids.iter().copied().filter(|u| u.starts_with(a)).collect();
            hits.sort_unstable();
            hits.dedup();
        }
        return match hits.as_slice() {
            [one, ..] if hits.iter().all(|h| h == one) => Ok(one.to_string()),
            [] => bail!("--at {a}: no record with this uuid in {}", file.display()),
            _ => bail!("--at {a} is ambiguous: {} records start with it", hits.len()),
        };
    }
    let by_uuid = index(rs);
    let leaf = rs.iter().rev().find(|o| o.get("isSidechain") != Some(&Value::Bool(true)));
    let chain = leaf.map(|l| chain_of(&by_uuid, rs, str_of(l, "uuid").unwrap_or(""))).unwrap_or_default();
    let found = chain.iter().rev().map(|&i| &rs[i]).find(|o| legal(o)).and_then(|o| str_of(o, "uuid"));
    found.map(str::to_string).with_context(|| format!("{}: no reply that ends a turn to fork at", file.display()))
}

/// The first record of each uuid.
fn index(rs: &[Map<String, Value>]) -> FxHashMap<&str, usize> {
    let mut by: FxHashMap<&str, usize> = FxHashMap::default();
    for (i, o) in rs.iter().enumerate() {
        if let Some(u) = str_of(o, "uuid") {
            by.entry(u).or_insert(i);
        }
    }
    by
}

/// The records root → `uuid` (by `parentUuid`), as indexes; stops at a
/// missing parent or a cycle.
fn chain_of(by: &FxHashMap<&str, usize>, rs: &[Map<String, Value>], uuid: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut seen = rustc_hash::FxHashSet::default();
    let mut cur = by.get(uuid).copied();
    while let Some(i) = cur {
        if !seen.insert(i) {
            break;
        }
        out.push(i);
        cur = str_of(&rs[i], "parentUuid").and_then(|p| by.get(p).copied());
    }
    out.reverse();
    out
}

/// Where the fork of `file` is written: its own `chats/`, or for a file of
/// the `cctree sync` archive, the same project folder's `chats/` in the
/// client's runtime directory (where `qwen --resume` finds it).
fn dest_dir(file: &Path) -> Result<PathBuf> {
    let mut chats = file.parent().context("the session file has no folder")?;
    if chats.file_name().is_some_and(|n| n == "archive") {
        chats = chats.parent().context("the session file has no folder")?;
    }
    let project = chats.parent().context("the session file is in no project folder")?;
    let archived = crate::layout::archive_of(project.parent().unwrap_or(project)).is_some()
        || (crate::agent::synced_dir_of(QWEN)
            .and_then(|d| std::fs::canonicalize(d).ok())
            .is_some_and(|d| std::fs::canonicalize(chats).is_ok_and(|c| c.starts_with(&d))));
    if !archived {
        return Ok(chats.to_path_buf());
    }
    let folder = project.file_name().context("the session file is in no project folder")?;
    let Some(root) = super::discover::default_qwen_dir() else {
        bail!(
            "{} is in the archive of `cctree sync`, and its fork goes into Qwen Code's ~/.qwen/projects, but no home directory is known: set QWEN_HOME",
            file.display()
        );
    };
    Ok(root.join("projects").join(folder).join("chats"))
}

/// Forks the Qwen Code session file `file` at `at` (a uuid or a unique
/// prefix of one; default: the last reply that ends a turn on the branch
/// the file loads), its new `custom_title` `title` (default: `Fork of
/// <source title or id> at <checkpoint>`).
pub fn fork(file: &Path, at: Option<&str>, title: Option<&str>, dry_run: bool) -> Result<QwenFork> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let rs = records(&bytes);
    let main: Vec<&Map<String, Value>> =
        rs.iter().filter(|o| o.get("isSidechain") != Some(&Value::Bool(true))).collect();
    let source_session = main
        .iter()
        .find_map(|o| str_of(o, "sessionId"))
        .with_context(|| format!("{}: no record with a sessionId: not a Qwen Code session", file.display()))?
        .to_string();
    let checkpoint = checkpoint_of(&rs, at, file)?;
    let by = index(&rs);
    let chain = chain_of(&by, &rs, &checkpoint);
    let Some(&end) = chain.last() else { bail!("{checkpoint}: the copy would hold no record") };
    if !legal(&rs[end]) {
        bail!(
            "{checkpoint} is not a legal checkpoint: fork at a reply that ends a turn (an `assistant` record with \
             text and no tool call), so that the resumed session has no call left open"
        );
    }
    let new_id = uuid::Uuid::new_v4().to_string();
    let mut out = Vec::new();
    for &i in &chain {
        let mut o = rs[i].clone();
        let uuid = str_of(&o, "uuid").unwrap_or("").to_string();
        o.insert("sessionId".into(), Value::String(new_id.clone()));
        if !o.contains_key("forkedFrom") {
            o.insert("forkedFrom".into(), json!({"sessionId": source_session, "messageUuid": uuid}));
        }
        out.extend_from_slice(crate::json::write(&o).as_bytes());
        out.push(b'\n');
    }
    let source_title = rs
        .iter()
        .rev()
        .filter(|o| str_of(o, "subtype") == Some("custom_title"))
        .find_map(|o| o.get("systemPayload")?.get("customTitle")?.as_str().map(str::to_string));
    let short: String = checkpoint.chars().take(8).collect();
    let title = title.map_or_else(
        || {
            format!(
                "Fork of {} at {short}",
                source_title.as_deref().unwrap_or(&source_session[..8.min(source_session.len())])
            )
        },
        str::to_string,
    );
    let last = &rs[end];
    let named = json!({
        "uuid": uuid::Uuid::new_v4().to_string(),
        "parentUuid": checkpoint,
        "sessionId": new_id,
        "timestamp": jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
        "type": "system",
        "subtype": "custom_title",
        "provenance": "system",
        "cwd": last.get("cwd").cloned().unwrap_or(Value::Null),
        "version": last.get("version").cloned().unwrap_or(Value::Null),
        "systemPayload": {"customTitle": title, "titleSource": "manual"},
    });
    out.extend_from_slice(crate::json::write(named.as_object().unwrap_or(&Map::new())).as_bytes());
    out.push(b'\n');
    let dir = dest_dir(file)?;
    let path = dir.join(format!("{new_id}.jsonl"));
    let cwd = str_of(&rs[chain[0]], "cwd").map(str::to_string);
    let resume = format!("qwen --resume {}", crate::term::shell_quote(&new_id));
    if !dry_run {
        crate::agent::fork::write_new(&path, &out)?;
    }
    let new = crate::agent::fork::NewSession::new(new_id, path, cwd, dry_run, &resume);
    Ok(QwenFork { source_session, source_file: file.to_path_buf(), checkpoint, records: chain.len(), title, new })
}

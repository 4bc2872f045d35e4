//! The lines OpenCode's records are read as ([`Lines`], the agent's
//! [`AsLines`]): a project's sessions of one database (or of the JSON
//! storage of older releases, [`super::storage`]) written as JSON lines into
//! an unnamed temporary file, from one snapshot of the database
//! ([`crate::sqlite::read`]). The same lines are what an archive of them
//! holds, so both are read by the same header reader ([`super::header`]).
//!
//! - `{"type":"session","info":{…},"project":{"id","worktree"}}`: a session,
//!   its columns in the client's own shape (`opencode export`'s `info`:
//!   `id, slug, projectID, directory, path, parentID, title, version, revert,
//!   permission, agent, model, time {created, compacting, archived}, …`)
//!   less what changes at every step (tokens, cost, `time.updated`), so a
//!   session that grows changes only its new lines.
//! - `{"type":"message","id","sessionID","time_created","info":<data>,"parts":[{"id","data":<data>}…]}`:
//!   a message, its `data` and its parts' (by part id) as the client stored
//!   them; `"removed":true` for a message the client deleted (`/undo` then
//!   a prompt) that its event log still holds whole (its last
//!   `message.updated.1` and each part's last `message.part.updated.1`).
//!
//! Sessions by `(time_created, id)`, each one's messages by `(time_created,
//! id)` (the client's order), the removed after them.

use std::io::{BufWriter, Seek, Write};
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde_json::{Map, Value};

use super::group::Group;
use crate::model::AsLines;
use crate::sqlite::{has_table, text};

/// How OpenCode's database and storage are read as lines.
pub(crate) struct Lines;

/// The one [`Lines`].
pub(crate) static LINES: Lines = Lines;

impl AsLines for Lines {
    fn sources(&self, path: &Path, rel: &str) -> Vec<PathBuf> {
        match Group::of(rel) {
            ("storage", g) => super::storage::sources(path, &g),
            _ => crate::sqlite::sources(path),
        }
    }

    fn lines(&self, path: &Path, rel: &str) -> std::io::Result<std::fs::File> {
        let mut file = tempfile::tempfile()?;
        match Group::of(rel) {
            ("storage", g) => {
                let mut w = BufWriter::new(&mut file);
                super::storage::write(path, &g, &mut w)?;
                w.flush()?;
            }
            (_, g) => {
                let out = crate::sqlite::read(path, |c| {
                    // Again from the start when the snapshot is taken again.
                    Ok(start(&mut file).and_then(|()| write_db(c, &g, &mut BufWriter::new(&file))))
                })?;
                out.map_err(|e| std::io::Error::other(format!("{}: {e}", path.display())))?;
            }
        }
        Ok(file)
    }
}

fn start(file: &mut std::fs::File) -> std::io::Result<()> {
    file.set_len(0)?;
    file.rewind()
}

/// An error of the database while its lines are written.
#[derive(Debug, thiserror::Error)]
enum WriteError {
    #[error("{0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl From<WriteError> for std::io::Error {
    fn from(e: WriteError) -> std::io::Error {
        match e {
            WriteError::Io(e) => e,
            WriteError::Sqlite(e) => std::io::Error::other(e.to_string()),
        }
    }
}

/// Every line of the group `g`'s sessions.
fn write_db(c: &Connection, g: &Group, w: &mut dyn Write) -> Result<(), std::io::Error> {
    write_sessions(c, g, w).map_err(Into::into).and_then(|()| w.flush())
}

fn write_sessions(c: &Connection, g: &Group, w: &mut dyn Write) -> Result<(), WriteError> {
    let projects = if has_table(c, "project")? { projects(c)? } else { Default::default() };
    let events = has_table(c, "event")?;
    let (filter, arg) = match g {
        Group::Project(id) => ("project_id = ?1", id.as_str()),
        Group::Directory(d) => {
            ("(project_id = 'global' OR project_id IS NULL OR project_id = '') AND directory = ?1", d.as_str())
        }
        Group::All => ("?1 = ?1", ""),
    };
    let mut stmt = c.prepare(&format!("SELECT * FROM session WHERE {filter} ORDER BY time_created, id"))?;
    let names: Vec<String> = stmt.column_names().into_iter().map(str::to_string).collect();
    let mut rows = stmt.query([arg])?;
    let mut messages =
        c.prepare("SELECT id, time_created, data FROM message WHERE session_id = ?1 ORDER BY time_created, id")?;
    let mut parts = c.prepare("SELECT id, data FROM part WHERE message_id = ?1 ORDER BY id")?;
    while let Some(r) = rows.next()? {
        let row = crate::sqlite::row_object(r, &names, JSON_COLUMNS)?;
        let id = row.get("id").and_then(Value::as_str).unwrap_or("").to_string();
        let project = row.get("project_id").and_then(Value::as_str).and_then(|p| projects.get(p));
        serde_json::to_writer(&mut *w, &session_line(&row, project)).map_err(std::io::Error::from)?;
        w.write_all(b"\n")?;
        let gone = if events { removed_ids(c, &id)? } else { Vec::new() };
        let mut ms = messages.query([&id])?;
        while let Some(m) = ms.next()? {
            let mid: String = m.get(0)?;
            // Removed, though still in the tables of a sync's copy (which
            // deletes nothing): written from the log as the client's own
            // database reads.
            if gone.contains(&mid) {
                continue;
            }
            let time: Option<i64> = m.get(1).ok();
            let data = text(m.get_ref(2)?);
            message_line(w, &mid, &id, time, &data, &mut parts)?;
        }
        removed(c, &id, gone, w)?;
    }
    Ok(())
}

/// Each project's id → `{id, worktree, name}`.
fn projects(c: &Connection) -> rusqlite::Result<rustc_hash::FxHashMap<String, Value>> {
    let mut stmt = c.prepare("SELECT * FROM project")?;
    let names: Vec<String> = stmt.column_names().into_iter().map(str::to_string).collect();
    let mut rows = stmt.query([])?;
    let mut out = rustc_hash::FxHashMap::default();
    while let Some(r) = rows.next()? {
        let mut p = Map::new();
        for (i, n) in names.iter().enumerate() {
            if matches!(n.as_str(), "id" | "worktree" | "name" | "vcs") {
                let v = crate::sqlite::value(r.get_ref(i)?, false);
                if !v.is_null() {
                    p.insert(n.clone(), v);
                }
            }
        }
        if let Some(id) = p.get("id").and_then(Value::as_str).map(str::to_string) {
            out.insert(id, Value::Object(p));
        }
    }
    Ok(out)
}

/// The columns that hold JSON text.
const JSON_COLUMNS: &[&str] = &["revert", "permission", "model", "metadata", "summary_diffs", "sandboxes", "commands"];

/// A session's line: its columns in the client's shape (see the module
/// documentation), and its project's worktree.
fn session_line(row: &Map<String, Value>, project: Option<&Value>) -> Value {
    let col = |k: &str| row.get(k).filter(|v| !v.is_null()).cloned();
    let mut info = Map::new();
    for (key, column) in [
        ("id", "id"),
        ("slug", "slug"),
        ("projectID", "project_id"),
        ("workspaceID", "workspace_id"),
        ("directory", "directory"),
        ("path", "path"),
        ("parentID", "parent_id"),
        ("title", "title"),
        ("version", "version"),
        ("metadata", "metadata"),
        ("revert", "revert"),
        ("permission", "permission"),
        ("agent", "agent"),
        ("model", "model"),
    ] {
        if let Some(v) = col(column) {
            info.insert(key.into(), v);
        }
    }
    if let Some(url) = col("share_url") {
        info.insert("share".into(), serde_json::json!({ "url": url }));
    }
    let mut time = Map::new();
    for (key, column) in [("created", "time_created"), ("compacting", "time_compacting"), ("archived", "time_archived")]
    {
        if let Some(v) = col(column) {
            time.insert(key.into(), v);
        }
    }
    info.insert("time".into(), Value::Object(time));
    let mut line = Map::new();
    line.insert("type".into(), "session".into());
    line.insert("info".into(), Value::Object(info));
    if let Some(p) = project {
        line.insert("project".into(), p.clone());
    }
    Value::Object(line)
}

/// `text` as a JSON value's text: as it is when it is JSON, else read as
/// the client reads it (a container nested too deep kept as text), else
/// the text as a string.
fn json_text(text: &str) -> std::borrow::Cow<'_, str> {
    if serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() {
        return std::borrow::Cow::Borrowed(text);
    }
    let v = crate::json::parse(text).unwrap_or_else(|_| Value::String(text.to_string()));
    std::borrow::Cow::Owned(v.to_string())
}

fn json_str(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// A message's line, its parts read by id.
fn message_line(
    w: &mut dyn Write,
    id: &str,
    session: &str,
    time: Option<i64>,
    data: &str,
    parts: &mut rusqlite::Statement<'_>,
) -> Result<(), WriteError> {
    write!(w, r#"{{"type":"message","id":{},"sessionID":{}"#, json_str(id), json_str(session))?;
    if let Some(t) = time {
        write!(w, r#","time_created":{t}"#)?;
    }
    write!(w, r#","info":{},"parts":["#, json_text(data))?;
    let mut rows = parts.query([id])?;
    let mut first = true;
    while let Some(p) = rows.next()? {
        let pid: String = p.get(0)?;
        let pdata = text(p.get_ref(1)?);
        let sep = if first { "" } else { "," };
        write!(w, r#"{sep}{{"id":{},"data":{}}}"#, json_str(&pid), json_text(&pdata))?;
        first = false;
    }
    w.write_all(b"]}\n")?;
    Ok(())
}

/// The messages of `session` its event log says the client removed (in
/// their order there).
fn removed_ids(c: &Connection, session: &str) -> Result<Vec<String>, WriteError> {
    let q = "SELECT data FROM event WHERE aggregate_id = ?1 AND type = 'message.removed.1' ORDER BY seq";
    let mut stmt = c.prepare(q)?;
    let mut rows = stmt.query([session])?;
    let mut seen = rustc_hash::FxHashSet::default();
    let mut gone = Vec::new();
    while let Some(r) = rows.next()? {
        let v = crate::json::parse(&text(r.get_ref(0)?)).unwrap_or(Value::Null);
        if let Some(id) = v["messageID"].as_str() {
            if seen.insert(id.to_string()) {
                gone.push(id.to_string());
            }
        }
    }
    Ok(gone)
}

/// The removed messages `gone` of `session` ([`removed_ids`]) replayed
/// from the event log: each one's last `message.updated.1`, and each of its
/// parts' last `message.part.updated.1`.
fn removed(c: &Connection, session: &str, gone: Vec<String>, w: &mut dyn Write) -> Result<(), WriteError> {
    if gone.is_empty() {
        return Ok(());
    }
    let wanted: rustc_hash::FxHashSet<&str> = gone.iter().map(String::as_str).collect();
    let mut infos: rustc_hash::FxHashMap<String, Value> = Default::default();
    let mut parts: std::collections::BTreeMap<(String, String), Value> = Default::default();
    // Only the removed messages' events, picked by SQLite's JSON functions.
    let q = "SELECT type, data FROM event WHERE aggregate_id = ?1 AND ( \
             (type = 'message.updated.1' AND json_extract(data, '$.info.id') IN (SELECT value FROM json_each(?2))) OR \
             (type = 'message.part.updated.1' AND json_extract(data, '$.part.messageID') IN (SELECT value FROM json_each(?2)))) \
             ORDER BY seq";
    let ids = Value::from(gone.clone()).to_string();
    let mut stmt = c.prepare(q)?;
    let mut rows = stmt.query(rusqlite::params![session, ids])?;
    while let Some(r) = rows.next()? {
        let ty = text(r.get_ref(0)?);
        let mut v = crate::json::parse(&text(r.get_ref(1)?)).unwrap_or(Value::Null);
        if ty == "message.updated.1" {
            if let Some(id) = v["info"]["id"].as_str().filter(|id| wanted.contains(id)).map(str::to_string) {
                infos.insert(id, v["info"].take());
            }
        } else if let Some(m) = v["part"]["messageID"].as_str().filter(|id| wanted.contains(id)).map(str::to_string) {
            let pid = v["part"]["id"].as_str().unwrap_or("").to_string();
            parts.insert((m, pid), v["part"].take());
        }
    }
    let mut order: Vec<(i64, &str)> = gone
        .iter()
        .filter(|id| infos.contains_key(id.as_str()))
        .map(|id| (infos[id.as_str()]["time"]["created"].as_i64().unwrap_or(i64::MIN), id.as_str()))
        .collect();
    order.sort_unstable();
    for (time, id) in order {
        write!(w, r#"{{"type":"message","id":{},"sessionID":{},"removed":true"#, json_str(id), json_str(session))?;
        if time != i64::MIN {
            write!(w, r#","time_created":{time}"#)?;
        }
        write!(w, r#","info":{},"parts":["#, infos[id])?;
        let mine = parts.range((id.to_string(), String::new())..).take_while(|((m, _), _)| m == id);
        for (i, ((_, pid), p)) in mine.enumerate() {
            let sep = if i == 0 { "" } else { "," };
            write!(w, r#"{sep}{{"id":{},"data":{p}}}"#, json_str(pid))?;
        }
        w.write_all(b"]}\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendored_fixtures_the_tui_database_reads_as_lines_with_the_turn_it_removed() {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/opencode-1.18.33/tui");
        let tmp = tempfile::tempdir().unwrap();
        for f in ["opencode.db", "opencode.db-wal"] {
            std::fs::copy(from.join(f), tmp.path().join(f)).unwrap();
        }
        let db = tmp.path().join("opencode.db");
        let mut file = LINES.lines(&db, "opencode.db").unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(
            &mut {
                file.rewind().unwrap();
                file
            },
            &mut text,
        )
        .unwrap();
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let kinds = |t: &str| lines.iter().filter(|v| v["type"] == t).count();
        assert_eq!(kinds("session"), 3);
        // 26 messages in the tables (the database file alone holds 14: the
        // rest only its log), and the 2 the next prompt removed.
        assert_eq!(kinds("message"), 28);
        let removed: Vec<&Value> = lines.iter().filter(|v| v["removed"] == true).collect();
        assert_eq!(removed.len(), 2);
        assert_eq!(removed[0]["parts"][0]["data"]["text"], "third prompt");
        assert!(removed[1]["parts"].as_array().is_some_and(|p| p.len() >= 2), "the reply's parts replayed");
        // A session line in the client's shape, its revert kept.
        let fork = lines.iter().find(|v| v["type"] == "session" && v["info"]["revert"].is_object()).unwrap();
        assert!(fork["info"]["title"].as_str().unwrap().ends_with("(fork #1)"));
        assert!(fork["project"]["worktree"].as_str().unwrap().ends_with("/tui/work"));
        // Nothing made beside the database.
        let mut names: Vec<String> =
            std::fs::read_dir(tmp.path()).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into()).collect();
        names.sort();
        assert_eq!(names, ["opencode.db", "opencode.db-wal"]);
    }
}

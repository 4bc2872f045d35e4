//! The lines Crush's database is read as ([`Lines`], the agent's
//! [`AsLines`]): from one snapshot ([`crate::sqlite::read`]), into an
//! unnamed temporary file.
//!
//! - `{"type":"session","info":{<every column of the row>}}` (`todos` read as JSON);
//! - `{"type":"compaction","id":"<summary id>:compaction","session_id","created_at"}`
//!   before each summary (`is_summary_message`): where the model's context
//!   starts again, the summary hung under it;
//! - `{"type":"message","id","session_id","role","model","provider","created_at","finished_at","summary","parts":[…]}`,
//!   `parts` as the client stored them (`[{"type","data"}]`).
//!
//! Sessions by `(created_at, rowid)`, each one's messages by `(created_at,
//! rowid)`: the client's order (its times are seconds, so many tie).

use std::io::{BufWriter, Seek, Write};
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde_json::{Map, Value};

use crate::model::AsLines;
use crate::sqlite::has_table;

/// How Crush's database is read as lines.
pub(crate) struct Lines;

/// The one [`Lines`].
pub(crate) static LINES: Lines = Lines;

impl AsLines for Lines {
    fn sources(&self, path: &Path, _rel: &str) -> Vec<PathBuf> {
        crate::sqlite::sources(path)
    }

    fn lines(&self, path: &Path, _rel: &str) -> std::io::Result<std::fs::File> {
        let mut file = tempfile::tempfile()?;
        let out = crate::sqlite::read(path, |c| {
            // Again from the start when the snapshot is taken again.
            let start = file.set_len(0).and_then(|()| file.rewind());
            Ok(start.and_then(|()| {
                let mut w = BufWriter::new(&file);
                write_db(c, &mut w).map_err(std::io::Error::other).and_then(|()| w.flush())
            }))
        })?;
        out.map_err(|e| std::io::Error::other(format!("{}: {e}", path.display())))?;
        Ok(file)
    }
}

fn io(e: std::io::Error) -> rusqlite::Error {
    rusqlite::Error::ToSqlConversionFailure(Box::new(e))
}

fn write_db(c: &Connection, w: &mut dyn Write) -> rusqlite::Result<()> {
    if !has_table(c, "sessions")? {
        return Ok(());
    }
    let messages = has_table(c, "messages")?;
    let mut stmt = c.prepare("SELECT * FROM sessions ORDER BY created_at, rowid")?;
    let names: Vec<String> = stmt.column_names().into_iter().map(str::to_string).collect();
    let mut rows = stmt.query([])?;
    let mut list = match messages {
        true => Some(c.prepare(
            "SELECT id, session_id, role, parts, model, provider, created_at, finished_at, is_summary_message \
             FROM messages WHERE session_id = ?1 ORDER BY created_at, rowid",
        )?),
        false => None,
    };
    while let Some(r) = rows.next()? {
        let info = crate::sqlite::row_object(r, &names, &["todos"])?;
        let id = info.get("id").and_then(Value::as_str).unwrap_or("").to_string();
        let line = serde_json::json!({"type": "session", "info": Value::Object(info)});
        writeln!(w, "{line}").map_err(io)?;
        let Some(list) = list.as_mut() else { continue };
        let mut ms = list.query([&id])?;
        while let Some(m) = ms.next()? {
            let mut line = Map::new();
            line.insert("type".into(), "message".into());
            for (i, k) in ["id", "session_id", "role"].into_iter().enumerate() {
                line.insert(k.into(), crate::sqlite::value(m.get_ref(i)?, false));
            }
            line.insert("parts".into(), crate::sqlite::value(m.get_ref(3)?, true));
            for (i, k) in [(4, "model"), (5, "provider"), (6, "created_at"), (7, "finished_at")] {
                let v = crate::sqlite::value(m.get_ref(i)?, false);
                if !v.is_null() && v != "" {
                    line.insert(k.into(), v);
                }
            }
            let summary = m.get::<_, Option<i64>>(8).ok().flatten().unwrap_or(0) != 0;
            if summary {
                let mid = line["id"].as_str().unwrap_or("");
                let boundary = serde_json::json!({
                    "type": "compaction",
                    "id": format!("{mid}:compaction"),
                    "session_id": line["session_id"],
                    "created_at": line.get("created_at"),
                });
                writeln!(w, "{boundary}").map_err(io)?;
                line.insert("summary".into(), true.into());
            }
            writeln!(w, "{}", Value::Object(line)).map_err(io)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendored_fixtures_the_database_reads_as_lines_in_the_clients_order() {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/crush-sqlite/project/.crush");
        let tmp = tempfile::tempdir().unwrap();
        std::fs::copy(from.join("crush.db"), tmp.path().join("crush.db")).unwrap();
        let mut file = LINES.lines(&tmp.path().join("crush.db"), "crush.db").unwrap();
        file.rewind().unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(&mut file, &mut text).unwrap();
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let kinds = |t: &str| lines.iter().filter(|v| v["type"] == t).count();
        assert_eq!((kinds("session"), kinds("message"), kinds("compaction")), (3, 17, 1));
        let summary = lines.iter().position(|v| v["summary"] == true).unwrap();
        assert_eq!(lines[summary - 1]["type"], "compaction", "the boundary just before the summary");
        assert_eq!(lines[1]["parts"][0]["data"]["text"], "List the files");
        // Nothing made beside the database.
        let names: Vec<String> =
            std::fs::read_dir(tmp.path()).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into()).collect();
        assert_eq!(names, ["crush.db"]);
    }
}

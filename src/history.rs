//! The client's prompt history, `history.jsonl`, as plain data.
//!
//! Claude Code appends one line per prompt typed in the TUI to
//! `$CLAUDE_CONFIG_DIR/history.jsonl` (else `~/.claude/history.jsonl`):
//! `{"display", "pastedContents", "timestamp", "project", "sessionId"}` —
//! the prompt as typed, the pastes it refers to (`[Pasted text #1 +12
//! lines]`, their text inline or by a hash into `paste-cache/`), the time in
//! milliseconds, the working directory, and (recent versions) the session.
//! Its cleanup (`cleanupPeriodDays`) deletes old transcripts but leaves this
//! file, so it is what remains of a session the cleanup deleted
//! (transcript-format, "The prompt history"). `cctree sync` keeps every line
//! it has seen beside the archive ([`crate::sync`]).
//!
//! [`parse`] reads it as the client does (`JSON.parse` per line, through
//! [`crate::json`]), line by line: a line that is not JSON or lacks what the
//! client requires (`display` and `project` strings, a finite number
//! `timestamp`) is a warning naming `file:line`, never an abort; the other
//! lines are entries, in file order.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The file's name, in the client's configuration directory and beside the
/// sync archive.
pub const FILE_NAME: &str = "history.jsonl";

/// One prompt of the history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryEntry {
    /// Its line in the file, from 1.
    pub line: u32,
    /// The prompt as typed (`display`), pastes shown as `[Pasted text #N …]`.
    pub prompt: String,
    /// The working directory it was typed in (`project`).
    pub project: String,
    /// When, in milliseconds since the epoch (`timestamp`).
    pub timestamp_ms: i64,
    /// The session it was typed in (`sessionId`; written since 2.1.x).
    pub session_id: Option<String>,
    /// The pasted texts held inline (`pastedContents.*.content`), by paste id.
    pub pasted: Vec<(String, String)>,
}

/// A line that could not be read as a history entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryWarning {
    pub line: u32,
    pub why: String,
}

/// A history file read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct History {
    pub entries: Vec<HistoryEntry>,
    pub warnings: Vec<HistoryWarning>,
}

impl History {
    /// The warnings as `file:line: why`, `file` as the user names it.
    pub fn shown_warnings(&self, file: &Path) -> Vec<String> {
        self.warnings.iter().map(|w| format!("{}:{}: {}", file.display(), w.line, w.why)).collect()
    }

    /// The entries of one session, in file order.
    pub fn of_session<'a>(&'a self, session: &'a str) -> impl Iterator<Item = &'a HistoryEntry> + 'a {
        self.entries.iter().filter(move |e| e.session_id.as_deref() == Some(session))
    }
}

/// The history kept beside the sync archive `archive` (a projects directory):
/// `<archive>/../history.jsonl`.
pub fn beside_archive(archive: &Path) -> Option<PathBuf> {
    Some(archive.parent()?.join(FILE_NAME))
}

/// Reads a history file (see the module documentation). Fails only when the
/// file cannot be read at all.
pub fn read(path: &Path) -> anyhow::Result<History> {
    use anyhow::Context;
    let bytes = std::fs::read(path).with_context(|| format!("cannot read the prompt history {}", path.display()))?;
    Ok(parse(&bytes))
}

/// Parses the bytes of a history file, line by line.
pub fn parse(bytes: &[u8]) -> History {
    let mut h = History::default();
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match entry(raw, line) {
            Ok(e) => h.entries.push(e),
            Err(why) => h.warnings.push(HistoryWarning { line, why }),
        }
    }
    h
}

fn entry(raw: &[u8], line: u32) -> Result<HistoryEntry, String> {
    let text = String::from_utf8_lossy(raw);
    let text = crate::parse::scrub_lone_surrogates(&text).map_or(text, std::borrow::Cow::Owned);
    let v = crate::json::parse(&text).map_err(|e| format!("not JSON ({e}); line skipped"))?;
    let Value::Object(o) = v else { return Err("not a JSON object; line skipped".into()) };
    let string = |k: &str| o.get(k).and_then(Value::as_str).map(str::to_string);
    let lacks = |k: &str, what: &str| format!("not a history entry: `{k}` is not {what}; line skipped");
    let prompt = string("display").ok_or_else(|| lacks("display", "a string"))?;
    let project = string("project").ok_or_else(|| lacks("project", "a string"))?;
    let timestamp_ms = o
        .get("timestamp")
        .and_then(Value::as_f64)
        .filter(|t| t.is_finite())
        .ok_or_else(|| lacks("timestamp", "a finite number"))?;
    // Within i64 for any finite f64 of a real date; saturating otherwise.
    #[allow(clippy::cast_possible_truncation, reason = "saturating float-to-int cast")]
    let timestamp_ms = timestamp_ms as i64;
    let mut pasted: Vec<(String, String)> = match o.get("pastedContents") {
        Some(Value::Object(p)) => {
            p.iter().filter_map(|(id, v)| Some((id.clone(), v.get("content")?.as_str()?.to_string()))).collect()
        }
        _ => Vec::new(),
    };
    pasted.sort();
    Ok(HistoryEntry { line, prompt, project, timestamp_ms, session_id: string("sessionId"), pasted })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_the_client_writes_are_entries() {
        let text = concat!(
            r#"{"display":"fix the bug","pastedContents":{},"timestamp":1760000000000,"project":"/home/me/app","sessionId":"s-1"}"#,
            "\n",
            r#"{"display":"[Pasted text #1 +2 lines] explain","pastedContents":{"1":{"id":1,"type":"text","content":"a\nb\nc"}},"timestamp":1760000001000,"project":"/home/me/app"}"#,
            "\r\n",
        );
        let h = parse(text.as_bytes());
        assert!(h.warnings.is_empty(), "{:?}", h.warnings);
        assert_eq!(h.entries.len(), 2);
        let e = &h.entries[0];
        assert_eq!((e.line, e.prompt.as_str(), e.project.as_str()), (1, "fix the bug", "/home/me/app"));
        assert_eq!((e.timestamp_ms, e.session_id.as_deref()), (1_760_000_000_000, Some("s-1")));
        let e = &h.entries[1];
        assert_eq!(e.session_id, None, "older clients wrote no session");
        assert_eq!(e.pasted, [("1".to_string(), "a\nb\nc".to_string())]);
        assert_eq!(h.of_session("s-1").count(), 1);
    }

    #[test]
    fn unreadable_lines_are_warnings_with_their_line_never_a_panic() {
        let text = concat!(
            "\u{feff}{\"display\":\"one\",\"timestamp\":1,\"project\":\"/p\"}\n",
            "{\"display\":\"torn\n",
            "[1,2]\n",
            "{\"display\":3,\"timestamp\":1,\"project\":\"/p\"}\n",
            "{\"display\":\"x\",\"timestamp\":\"yesterday\",\"project\":\"/p\"}\n",
            "{\"display\":\"x\",\"timestamp\":1e400,\"project\":\"/p\"}\n",
            "{\"display\":\"x\",\"timestamp\":2}\n",
            "\n",
            "{\"display\":\"dup\",\"display\":\"last wins\",\"timestamp\":2,\"project\":\"/p\",\"sessionId\":7}\n",
            "{\"display\":\"\\ud800 lone\",\"timestamp\":3,\"project\":\"/p\"}\n",
        );
        let mut bytes = text.as_bytes().to_vec();
        bytes.extend(b"{\"display\":\"bad \xff utf8\",\"timestamp\":4,\"project\":\"/p\"}");
        let h = parse(&bytes);
        let lines: Vec<u32> = h.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [2, 3, 4, 5, 6, 7], "{:?}", h.warnings);
        assert!(h.warnings[0].why.starts_with("not JSON"));
        assert!(h.warnings[2].why.contains("`display`"));
        assert!(h.warnings[4].why.contains("`timestamp`"), "1e400 is Infinity, as JSON.parse reads it");
        let prompts: Vec<&str> = h.entries.iter().map(|e| e.prompt.as_str()).collect();
        assert_eq!(prompts, ["one", "last wins", "\u{fffd} lone", "bad \u{fffd} utf8"]);
        assert_eq!(h.entries[1].session_id, None, "a session id that is not a string is absent");
        let shown = h.shown_warnings(Path::new("/h/history.jsonl"));
        assert!(shown[0].starts_with("/h/history.jsonl:2: "), "{shown:?}");
    }

    #[test]
    fn deep_and_huge_lines_are_read() {
        let deep = format!(
            "{{\"display\":\"d\",\"timestamp\":5,\"project\":\"/p\",\"x\":{}{}}}\n",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let h = parse(deep.as_bytes());
        assert_eq!((h.entries.len(), h.warnings.len()), (1, 0));
    }
}

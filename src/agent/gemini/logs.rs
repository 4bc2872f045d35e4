//! Gemini CLI's prompt log (transcript-format, Appendix D, "The prompt
//! log"): `tmp/<project>/logs.json`, one JSON array the client rewrites
//! whole (`JSON.stringify(logs, null, 2)`) each time a prompt is typed in
//! the TUI, one `{sessionId, messageId, type: "user", message, timestamp}`
//! per prompt (slash commands included). The client's session clean-up
//! (`general.sessionRetention`) deletes chats, never this file, so it is
//! what remains of a session whose chat is gone: Gemini CLI's prompt log
//! ([`crate::agent::prompts`]).
//!
//! Read as the client's `Logger` reads it: the array's elements, each kept
//! only when its `sessionId`, `timestamp`, `type` and `message` are strings
//! and its `messageId` a number (the client drops the others); of those,
//! the prompts (`type: "user"`, the only type it writes). A file that is
//! not an array, an element that is not JSON or fails that test, or a
//! timestamp that is no date is a warning naming `file:line`; a file cut
//! short keeps the elements before the cut. One pass, no recursion.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agent::prompts::{Log, ProjectPrompts, PromptLine, Prompts};
use crate::model::PromptLog;

/// The file's name, in each project folder.
pub(super) const FILE_NAME: &str = "logs.json";

/// How pages name the log and what became of the sessions it outlives.
pub(super) const LOG: PromptLog = PromptLog { file: FILE_NAME, what: "prompt log", gone: "chat deleted" };

/// The logs a render reads: of each project folder read (`roots` that are
/// one, the folders of `roots` that are a `tmp` folder, those with no chat
/// left included, and each project's folder), the `logs.json` it holds.
pub(super) fn prompt_logs(roots: &[&Path], projects: &[&Path]) -> Vec<Log> {
    let mut folders: Vec<PathBuf> = projects.iter().map(|p| p.to_path_buf()).collect();
    for root in roots {
        match root.join("chats").is_dir() {
            true => folders.push(root.to_path_buf()),
            false => {
                let Ok(read) = std::fs::read_dir(root) else { continue };
                folders.extend(read.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
            }
        }
    }
    let mut out: Vec<Log> = (folders.into_iter())
        .filter(|d| d.join(FILE_NAME).is_file())
        .map(|d| Log { path: d.join(FILE_NAME), projects: d })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Reads the log of the project folder `log.projects` (see the module
/// documentation). Fails only when the file cannot be read.
pub(super) fn read(log: &Log) -> anyhow::Result<Prompts> {
    use anyhow::Context;
    let bytes =
        std::fs::read(&log.path).with_context(|| format!("cannot read the prompt log {}", log.path.display()))?;
    let (lines, problems) = parse(&bytes);
    let warnings = problems.into_iter().map(|(line, why)| format!("{}:{line}: {why}", log.path.display())).collect();
    let (name, cwd) = super::discover::name_of(&log.projects);
    let projects = vec![ProjectPrompts { name, dir: log.projects.clone(), cwd, lines }];
    Ok(Prompts {
        path: log.path.clone(),
        log: LOG,
        projects: projects.into_iter().filter(|p| !p.lines.is_empty()).collect(),
        warnings,
    })
}

/// The prompts of a log's bytes, in file order, and what could not be read
/// (line, why).
pub(super) fn parse(bytes: &[u8]) -> (Vec<PromptLine>, Vec<(u32, String)>) {
    let mut prompts = Vec::new();
    let mut warnings = Vec::new();
    let (elements, cut) = crate::agent::keep::array_elements(bytes);
    let mut at = (0usize, 1u32);
    let mut line_of = |offset: usize| {
        let (from, line) = at;
        let n = memchr::memchr_iter(b'\n', &bytes[from..offset.max(from)]).count();
        at = (offset.max(from), line.saturating_add(u32::try_from(n).unwrap_or(u32::MAX)));
        at.1
    };
    for (start, end) in elements {
        let line = line_of(start);
        match entry(&bytes[start..end]) {
            Ok(Some((prompt, timestamp_ms, session_id))) => {
                prompts.push(PromptLine {
                    line,
                    prompt,
                    timestamp_ms,
                    session_id: Some(session_id),
                    pasted: Vec::new(),
                });
            }
            Ok(None) => {}
            Err(why) => warnings.push((line, why)),
        }
    }
    if let Some(offset) = cut {
        let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        // An empty file is a log not written yet.
        if !body.trim_ascii().is_empty() {
            let line = line_of(offset.min(bytes.len()));
            let why = match body.trim_ascii_start().starts_with(b"[") {
                true => "the log is cut short here; it is read up to here",
                false => "not a JSON array; nothing of it is read",
            };
            warnings.push((line, why.to_string()));
        }
    }
    (prompts, warnings)
}

/// One element: `Some((message, time, session))` for a prompt, `None` for
/// an entry of another type, else why it is no entry.
fn entry(raw: &[u8]) -> Result<Option<(String, i64, String)>, String> {
    let text = String::from_utf8_lossy(raw);
    let v = crate::json::parse(&text).map_err(|e| format!("not JSON ({e}); entry skipped"))?;
    let Value::Object(o) = v else { return Err("not a JSON object; entry skipped".into()) };
    let string = |k: &str| o.get(k).and_then(Value::as_str);
    let lacks = |k: &str, what: &str| format!("not a log entry: `{k}` is not {what}; entry skipped");
    let session = string("sessionId").ok_or_else(|| lacks("sessionId", "a string"))?;
    o.get("messageId").filter(|m| m.is_number()).ok_or_else(|| lacks("messageId", "a number"))?;
    let timestamp = string("timestamp").ok_or_else(|| lacks("timestamp", "a string"))?;
    let kind = string("type").ok_or_else(|| lacks("type", "a string"))?;
    let message = string("message").ok_or_else(|| lacks("message", "a string"))?;
    if kind != "user" {
        return Ok(None);
    }
    let ts = crate::timestamp::parse_timestamp(timestamp)
        .ok_or_else(|| format!("the timestamp {timestamp:?} is no date; entry skipped"))?;
    Ok(Some((message.to_string(), ts, session.to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendored_fixtures_the_clients_own_log_is_read_whole() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gemini-0.61.0/checkpoint-copy/tmp/work");
        let bytes = std::fs::read(root.join(FILE_NAME)).unwrap();
        let (prompts, warnings) = parse(&bytes);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(prompts.len(), 14);
        let first = &prompts[0];
        assert_eq!((first.line, first.prompt.as_str()), (2, "one [[sh: echo one]]"));
        assert_eq!(first.session_id.as_deref(), Some("d530d928-9820-4b7a-9967-6c5d7bfe95e6"));
        assert_eq!(first.timestamp_ms, crate::timestamp::parse_timestamp("2026-11-27T01:56:57.362Z").unwrap());
        assert_eq!(prompts[1].line, 9, "each entry at the line its object starts on");
        assert_eq!(prompts.last().unwrap().session_id.as_deref(), Some("ef94e530-cdc0-4226-96fc-e18aaddda0d5"));
        let log = Log { path: root.join(FILE_NAME), projects: root.clone() };
        let read = read(&log).unwrap();
        assert_eq!(read.log, LOG);
        let p = &read.projects[0];
        assert!(p.name.starts_with("gemini-") && p.cwd.as_deref().is_some_and(|c| c.ends_with("/work")), "{p:?}");
        assert_eq!(p.dir, root);
    }

    #[test]
    fn what_the_client_would_drop_is_a_warning_at_its_line_and_a_cut_keeps_what_came_before() {
        let text = concat!(
            "[\n",
            "  {\"sessionId\": \"s\", \"messageId\": 0, \"type\": \"user\", \"message\": \"kept\", \"timestamp\": \"2026-01-01T00:00:00.000Z\"},\n",
            "  {\"sessionId\": \"s\", \"messageId\": \"1\", \"type\": \"user\", \"message\": \"x\", \"timestamp\": \"2026-01-01T00:00:01.000Z\"},\n",
            "  {\"sessionId\": \"s\", \"messageId\": 2, \"type\": \"note\", \"message\": \"not a prompt\", \"timestamp\": \"2026-01-01T00:00:02.000Z\"},\n",
            "  {\"sessionId\": \"s\", \"messageId\": 3, \"type\": \"user\", \"message\": \"when?\", \"timestamp\": \"yesterday\"},\n",
            "  [1],\n",
            "  {\"sessionId\": \"s\", \"messageId\": 4, \"type\": \"user\", \"message\": \"dup\", \"message\": \"last wins\", \"timestamp\": \"2026-01-01T00:00:04.000Z\"},\n",
            "  {\"sessionId\": \"s\", \"messageId\": 5, \"type\": \"us",
        );
        let (prompts, warnings) = parse(text.as_bytes());
        let got: Vec<(u32, &str)> = prompts.iter().map(|p| (p.line, p.prompt.as_str())).collect();
        assert_eq!(got, [(2, "kept"), (7, "last wins")]);
        let lines: Vec<u32> = warnings.iter().map(|w| w.0).collect();
        assert_eq!(lines, [3, 5, 6, 8], "{warnings:?}");
        assert!(warnings[0].1.contains("`messageId`"), "{warnings:?}");
        assert!(warnings[1].1.contains("no date"), "{warnings:?}");
        assert!(warnings[3].1.contains("cut short"), "{warnings:?}");
        for (bad, warned) in [("{}", true), ("", false), ("[]", false), ("  \n", false), ("nope", true)] {
            let (p, w) = parse(bad.as_bytes());
            assert!(p.is_empty(), "{bad}");
            assert_eq!(w.len(), usize::from(warned), "{bad}: {w:?}");
        }
        let deep = format!("[{}{}]", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(parse(deep.as_bytes()).1.len(), 1, "a deep element is one warning, no overflow");
    }
}

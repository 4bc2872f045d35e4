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
//! (transcript-format, "The prompt history"): Claude Code's prompt log
//! ([`crate::agent::prompts`]), read beside each projects directory of the
//! input ([`prompt_logs`]), its lines given to the project the client would
//! write their working directory's transcripts to ([`project_dir_name`]).
//! `cctree sync` keeps every line it has seen beside the archive
//! (`super::sync`).
//!
//! [`parse`] reads it as the client does (`JSON.parse` per line, through
//! [`crate::json`]), line by line: a line that is not JSON or lacks what the
//! client requires (`display` and `project` strings, a finite number
//! `timestamp`) is a warning naming `file:line`, never an abort; the other
//! lines are entries, in file order.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agent::prompts::{Log, ProjectPrompts, PromptLine, Prompts};
use crate::model::PromptLog;

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

/// How pages name the history and what became of the sessions it outlives.
pub const LOG: PromptLog =
    PromptLog { file: FILE_NAME, what: "prompt history", gone: "transcript deleted by Claude Code's cleanup" };

/// The project directory name the client gives working directory `path`
/// (its bundle, 2.1.332: `path.replace(/[^a-zA-Z0-9]/g, "-")`, and past 200
/// characters the first 200 then `-` and the absolute value of the path's
/// Java-style string hash in base 36).
pub fn project_dir_name(path: &str) -> String {
    const MAX: usize = 200;
    let mut name = String::with_capacity(path.len());
    for unit in path.encode_utf16() {
        let c = char::from_u32(u32::from(unit)).filter(char::is_ascii_alphanumeric);
        name.push(c.unwrap_or('-'));
    }
    if name.len() <= MAX {
        return name;
    }
    let mut h: i32 = 0;
    for unit in path.encode_utf16() {
        h = h.wrapping_shl(5).wrapping_sub(h).wrapping_add(i32::from(unit));
    }
    name.truncate(MAX);
    name.push('-');
    name.push_str(&base36(u64::from(h.unsigned_abs())));
    name
}

fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[usize::try_from(n % 36).expect("below 36")]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).expect("ASCII digits")
}

/// The history beside a projects directory `root` (`<root>/../history.jsonl`),
/// when there is one.
pub fn beside(root: &Path) -> Option<PathBuf> {
    Some(root.parent()?.join(FILE_NAME)).filter(|p| p.is_file())
}

/// The histories a render of the folders `roots` (Claude Code's, as read)
/// reads: [`beside`] each that is a projects directory; none for one
/// project directory (the history is every project's).
pub fn prompt_logs(roots: &[&Path]) -> Vec<Log> {
    let mut out: Vec<Log> = (roots.iter())
        .filter(|r| r.is_dir() && !crate::agent::claude::discover::is_project_dir(r))
        .filter_map(|r| Some(Log { path: beside(r)?, projects: r.to_path_buf() }))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The history at `path` as a prompt log: its lines by the project
/// directory (in `projects`, the projects directory beside it) their
/// working directory names, each project's working directory the one its
/// lines name most often (then the least).
pub fn read_prompts(path: &Path, projects: &Path) -> anyhow::Result<Prompts> {
    let h = read(path)?;
    let warnings = h.shown_warnings(path);
    let mut by: BTreeMap<String, (BTreeMap<String, usize>, Vec<PromptLine>)> = BTreeMap::new();
    for e in h.entries {
        let (cwds, lines) = by.entry(project_dir_name(&e.project)).or_default();
        *cwds.entry(e.project).or_default() += 1;
        lines.push(PromptLine {
            line: e.line,
            prompt: e.prompt,
            timestamp_ms: e.timestamp_ms,
            session_id: e.session_id,
            pasted: e.pasted,
        });
    }
    let projects = by
        .into_iter()
        .map(|(name, (cwds, lines))| {
            let cwd = cwds.into_iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0))).map(|(p, _)| p);
            ProjectPrompts { dir: projects.join(&name), name, cwd, lines }
        })
        .collect();
    Ok(Prompts { path: path.to_path_buf(), log: LOG, projects, warnings })
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
    fn project_names_follow_the_client() {
        assert_eq!(
            project_dir_name("/home/jenkins/Personal_AI_Infrastructure"),
            "-home-jenkins-Personal-AI-Infrastructure"
        );
        assert_eq!(project_dir_name("C:\\Users\\mmazur\\.local\\bin"), "C--Users-mmazur--local-bin");
        assert_eq!(project_dir_name("/tmp/é😀"), "-tmp----", "one dash per UTF-16 unit");
        let long = format!("/{}", "a".repeat(250));
        let name = project_dir_name(&long);
        assert!(name.starts_with(&format!("-{}", "a".repeat(199))), "{name}");
        assert_eq!(name.as_bytes()[200], b'-');
        // Math.abs(hash).toString(36), computed in node for this path.
        assert_eq!(&name[201..], "feo44x");
    }

    #[test]
    fn a_history_is_a_prompt_log_by_project_directory() {
        let text = concat!(
            r#"{"display":"a","timestamp":3,"project":"/home/me/app","sessionId":"s-1"}"#,
            "\n",
            r#"{"display":"b","timestamp":1,"project":"/home/me/app"}"#,
            "\n",
            r#"{"display":"c","timestamp":2,"project":"/home/me.app"}"#,
            "\n",
            "torn\n",
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        std::fs::write(&path, text).unwrap();
        let p = read_prompts(&path, &dir.path().join("projects")).unwrap();
        assert_eq!(p.log, LOG);
        assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
        assert!(p.warnings[0].contains("history.jsonl:4: not JSON"), "{:?}", p.warnings);
        assert_eq!(p.projects.len(), 1, "both paths name one project directory");
        let g = &p.projects[0];
        assert_eq!((g.name.as_str(), g.cwd.as_deref()), ("-home-me-app", Some("/home/me/app")));
        assert_eq!(g.dir, dir.path().join("projects/-home-me-app"));
        assert_eq!(g.lines.iter().map(|l| l.line).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(g.lines[0].session_id.as_deref(), Some("s-1"));
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

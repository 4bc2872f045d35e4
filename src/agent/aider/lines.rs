//! The lines an Aider chat history is read as ([`Lines`], the agent's
//! [`AsLines`]): the Markdown file is no JSON lines, so its blocks
//! ([`super::markdown`]) are written as JSON lines into an unnamed
//! temporary file, which the project reads like any file (nothing is
//! written beside the history). One line per block:
//!
//! - `{"type":"run","session","key","started","line","offset"}` for a
//!   `# aider chat started at` heading;
//! - `{"type":"prompt"|"reply"|"output","id","session","started","line","offset","end","text"}`
//!   for a prompt, a reply, the client's output (`"after":"command"` when
//!   it answers a slash command);
//! - `{"type":"clear",…}` after a `/clear` or `/reset` prompt: where the
//!   model's context starts again.
//!
//! Ids are `<run key>+<offset from the run's heading>`: the same in a copy
//! of the run that begins at its heading (a fork `cctree fork` wrote), so
//! the copy is the same nodes. The run key is its heading's digits
//! (`20261202014620`; `-2`, `-3`… for a second run of the same second in
//! the file); a session is a run: its key, then `@<file name>` for a file
//! that is not `.aider.chat.history.md`. `line` is the block's line in the
//! Markdown file (warnings and checks name it).

use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::markdown::{Block, Blocks, What};
use crate::model::AsLines;

/// How a chat history is read as lines.
pub(crate) struct Lines;

/// The one [`Lines`].
pub(crate) static LINES: Lines = Lines;

/// The file the client writes by default.
pub(crate) const HISTORY: &str = ".aider.chat.history.md";

impl AsLines for Lines {
    fn sources(&self, path: &Path, _rel: &str) -> Vec<PathBuf> {
        vec![path.to_path_buf()]
    }

    fn lines(&self, path: &Path, rel: &str) -> std::io::Result<std::fs::File> {
        let file = tempfile::tempfile()?;
        let src = std::fs::File::open(path)?;
        let mut w = BufWriter::new(&file);
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let mut blocks = Blocks::new(BufReader::new(src));
        write_blocks(&mut blocks, name, &mut w)?;
        if let Some(e) = blocks.error.take() {
            return Err(std::io::Error::new(e.kind(), format!("{}: {e}", path.display())));
        }
        w.flush()?;
        drop(w);
        Ok(file)
    }
}

/// The key of a run by its heading's text: its digits.
pub(crate) fn key_of(heading: &str) -> String {
    let digits: String = heading.chars().filter(char::is_ascii_digit).collect();
    if digits.is_empty() { "run".to_string() } else { digits }
}

/// The session id of run `key` in the file named `name`.
pub(crate) fn session_of(key: &str, name: &str) -> String {
    let live = crate::layout::split_kept(name).unwrap_or_else(|| name.to_string());
    if live == HISTORY { key.to_string() } else { format!("{key}@{live}") }
}

/// The heading time as milliseconds since the epoch (local time, no zone:
/// read as UTC, so the same file gives the same times everywhere).
pub(crate) fn time_of(heading: &str) -> Option<i64> {
    let t: jiff::civil::DateTime = heading.trim().parse().ok()?;
    Some(jiff::tz::TimeZone::UTC.to_timestamp(t).ok()?.as_millisecond())
}

/// Where the runs of a file are: each block with its run's key, session and heading.
pub(crate) struct Runs {
    name: String,
    keys: rustc_hash::FxHashMap<String, u32>,
    /// The current run: key, session, heading text, heading offset.
    pub key: String,
    pub session: String,
    pub started: String,
    pub base: u64,
}

impl Runs {
    pub(crate) fn new(name: &str) -> Runs {
        Runs {
            name: name.to_string(),
            keys: Default::default(),
            key: "0".into(),
            session: session_of("0", name),
            started: String::new(),
            base: 0,
        }
    }

    /// Takes block `b` into account (a heading starts a run).
    pub(crate) fn see(&mut self, b: &Block) {
        if b.what != What::Run {
            return;
        }
        let k = key_of(&b.text);
        let n = self.keys.entry(k.clone()).or_insert(0);
        *n += 1;
        self.key = if *n == 1 { k } else { format!("{k}-{n}") };
        self.session = session_of(&self.key, &self.name);
        self.started = b.text.clone();
        self.base = b.offset;
    }

    /// The id of block `b` of the current run.
    pub(crate) fn id(&self, b: &Block) -> String {
        format!("{}+{}", self.key, b.offset.saturating_sub(self.base))
    }
}

/// Whether a prompt is a command that empties the model's history.
pub(crate) fn clears(prompt: &str) -> bool {
    let cmd = prompt.split_whitespace().next().unwrap_or("");
    matches!(cmd, "/clear" | "/reset")
}

fn write_blocks(blocks: &mut Blocks<BufReader<std::fs::File>>, name: &str, w: &mut dyn Write) -> std::io::Result<()> {
    let mut runs = Runs::new(name);
    let mut after_command = false;
    for b in blocks.by_ref() {
        runs.see(&b);
        let line = match b.what {
            What::Run => json!({
                "type": "run", "session": runs.session, "key": runs.key, "started": runs.started,
                "line": b.line, "offset": b.offset,
            }),
            _ => {
                let ty = match b.what {
                    What::Prompt => "prompt",
                    What::Reply => "reply",
                    _ => "output",
                };
                let mut v = json!({
                    "type": ty, "id": runs.id(&b), "session": runs.session, "started": runs.started,
                    "line": b.line, "offset": b.offset, "end": b.end, "text": b.text,
                });
                if b.what == What::Output && after_command {
                    v["after"] = Value::from("command");
                }
                v
            }
        };
        writeln!(w, "{line}")?;
        if b.what == What::Prompt && clears(&b.text) {
            let clear = json!({
                "type": "clear", "id": format!("{}:clear", runs.id(&b)), "session": runs.session,
                "started": runs.started, "line": b.line, "offset": b.offset, "end": b.end, "text": b.text,
            });
            writeln!(w, "{clear}")?;
        }
        after_command = b.what == What::Prompt && b.text.starts_with('/');
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendored_fixtures_the_history_reads_as_one_line_per_block_with_ids_by_run() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/aider-0.86.2/runs").join(HISTORY);
        let mut file = LINES.lines(&path, HISTORY).unwrap();
        use std::io::{Read, Seek};
        file.rewind().unwrap();
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let count = |t: &str| lines.iter().filter(|v| v["type"] == t).count();
        assert_eq!((count("run"), count("clear")), (3, 2));
        assert_eq!(lines[0]["session"], "20261202014620");
        let two = lines.iter().find(|v| v["text"] == "A prompt of two lines,\nthe second one here.").unwrap();
        assert_eq!(two["type"], "prompt");
        let out = lines.iter().find(|v| v["text"] == "Added notes.txt to the chat").unwrap();
        assert_eq!(out["after"], "command");
        assert_eq!(time_of("2026-12-02 01:46:20"), Some(1_796_175_980_000));
    }
}

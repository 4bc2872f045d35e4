//! What every agent's fork shares: the request (`cctree fork`'s arguments),
//! the report, how a found session is handed back to the command
//! ([`Target`]), the new session a fork writes and the shell command that
//! resumes it ([`NewSession`], [`resume_shell`]), and writing a new file
//! that must not exist yet ([`write_new`]). Each agent's folder has its
//! own writer (`fork.rs`); `crate::fork` is the command over all of them.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::files::{Access, Pending};
use crate::term::shell_quote;

/// What `cctree fork` is asked to do.
#[derive(Debug, Clone, Default)]
pub struct ForkRequest {
    /// A session file, a session id, or a message id.
    pub target: String,
    /// The checkpoint (`--at`): a message id or a unique prefix of one.
    pub at: Option<String>,
    /// Title of the new session (default: `Fork of <title> at <uuid>`).
    pub title: Option<String>,
    /// Write nothing.
    pub dry_run: bool,
    /// Folder to look ids up in (default: the agent's).
    pub projects: Option<PathBuf>,
    /// Add keys older copied entries lack, with neutral defaults.
    pub backfill: bool,
}

/// What `cctree fork` wrote (or would write): the agent's report, as text
/// and as JSON (its `--json`).
#[derive(Debug, Clone)]
pub struct Fork {
    pub text: String,
    pub json: serde_json::Value,
}

impl Fork {
    /// The report of `report`: its text, and its JSON.
    pub fn of<T: serde::Serialize>(text: String, report: &T) -> Fork {
        Fork { text, json: serde_json::to_value(report).unwrap_or(serde_json::Value::Null) }
    }

    /// The human-readable report.
    pub fn text(&self) -> String {
        self.text.clone()
    }
}

impl serde::Serialize for Fork {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.json.serialize(s)
    }
}

/// How TARGET is looked up in an agent's folders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// By the names of its files (a session file given, or a session id
    /// the file names hold): no other file is read.
    Name,
    /// As a message id, in the text of its sessions.
    Message,
}

/// A session an agent found for TARGET, ready to fork.
pub trait Target {
    /// What it is, for an error naming several (`a Codex CLI thread (<file>)`).
    fn describe(&self) -> String;
    /// Forks it as `req` asks.
    fn fork(self: Box<Self>, req: &ForkRequest) -> Result<Fork>;
}

/// The shell command that resumes a fork in the session's working directory
/// `cwd`: `cd <cwd> && <resume>`, and a note when `cwd` is not a directory
/// (`dir_exists` says). Each client finds the session by the directory it
/// runs in (Claude Code's project directory, Gemini CLI's project folder are
/// named after it) and runs its tools there, so for a directory that no
/// longer exists the command makes it again, empty (`mkdir -p`), before
/// resuming in it, and the note says its files are gone.
pub fn resume_shell(cwd: Option<&str>, resume: &str, dir_exists: &dyn Fn(&Path) -> bool) -> (String, Option<String>) {
    let Some(c) = cwd else { return (resume.to_string(), None) };
    let q = shell_quote(c);
    if dir_exists(Path::new(c)) {
        return (format!("cd {q} && {resume}"), None);
    }
    let note = format!(
        "the session's working directory {c} no longer exists: the resume command makes it again, empty \
         (`mkdir -p`), so that the client finds the session there; the files the session worked on are gone"
    );
    (format!("mkdir -p {q} && cd {q} && {resume}"), Some(note))
}

/// The new session a Codex CLI or Gemini CLI fork writes (or would write),
/// and how to resume it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct NewSession {
    pub new_session_id: String,
    pub path: std::path::PathBuf,
    /// The session's working directory, when known.
    pub cwd: Option<String>,
    pub dry_run: bool,
    /// The command that resumes the fork ([`resume_shell`]).
    pub shell: String,
    /// What the reader should know (a working directory that is gone).
    pub notes: Vec<String>,
}

impl NewSession {
    /// Session `id` at `path`, resumed by the client's command `resume` run
    /// in `cwd`.
    pub fn new(id: String, path: std::path::PathBuf, cwd: Option<String>, dry_run: bool, resume: &str) -> NewSession {
        let (shell, gone) = resume_shell(cwd.as_deref(), resume, &|d: &Path| d.is_dir());
        NewSession { new_session_id: id, path, cwd, dry_run, shell, notes: gone.into_iter().collect() }
    }

    /// The end of a fork's report: its notes, the file, how to resume it.
    pub fn text(&self) -> String {
        let verb = if self.dry_run { "would write" } else { "wrote" };
        let notes: String = self.notes.iter().map(|n| format!("  note: {n}\n")).collect();
        format!(
            "{notes}  {verb} {}\nnew session: {}\nresume it with:\n  {}\n",
            self.path.display(),
            self.new_session_id,
            self.shell
        )
    }
}

/// Writes `bytes` into `path`, which must not exist yet (a temporary file
/// beside it, fsynced, then linked into place: [`Pending::commit_new`]);
/// makes its directory first.
pub fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let dir = path.parent().context("the new file has no directory")?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut pending = Pending::new(path, Access::Default)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    pending.file().write_all(bytes).with_context(|| format!("cannot write {}", pending.path().display()))?;
    pending.commit_new().with_context(|| format!("cannot create {} (refusing to overwrite)", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resume_command_makes_a_working_directory_that_is_gone_again() {
        let (shell, note) = resume_shell(Some("/home/a/my app"), "claude -r x", &|_| true);
        assert_eq!((shell.as_str(), note), ("cd '/home/a/my app' && claude -r x", None));
        let (shell, note) = resume_shell(Some("/home/a/my app"), "claude -r x", &|_| false);
        assert_eq!(shell, "mkdir -p '/home/a/my app' && cd '/home/a/my app' && claude -r x");
        assert!(note.is_some_and(|n| n.contains("/home/a/my app no longer exists")));
        assert_eq!(resume_shell(None, "codex resume x", &|_| false), ("codex resume x".to_string(), None));
    }
}

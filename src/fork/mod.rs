//! `cctree fork`: time travel. Copy a conversation up to a *legal checkpoint*
//! into a new session file that `claude -r <new-id>` resumes, leaving every
//! existing file untouched.
//!
//! # What is copied: the prefix
//!
//! Claude Code loads a session by walking `parentUuid` from a leaf up to a
//! root, and stops at the last compaction boundary (a `system`/`compact_boundary`
//! with a null parent; 1.0.x: the `isCompactSummary` root) — transcript-format
//! §5.7. The fork copies exactly that **chain** (root→checkpoint), following
//! physical `parentUuid` links only, never the graph's compaction joins.
//!
//! Since 2.1.1 every tool_result hangs off the entry holding its own
//! `tool_use` (§4.6), so the results of earlier parallel calls are sibling
//! leaves *beside* the chain, not on it; Claude Code restores them on resume
//! (changelog 2.1.80). Likewise a lagging result can carry the conversation
//! while the other streamed blocks of the same response hang beside it (§6.3
//! rule 7). So the **prefix** is the chain plus, for each chain node other than
//! the checkpoint, the off-chain children that belong to its turn:
//!
//! - a streamed block of the same response (`message.id` of the latest
//!   assistant entry on the prefix), unless the graph marked it a replay or
//!   aborted output;
//! - a `tool_result` entry whose results all answer calls still open on the
//!   prefix (so a result is never copied twice),
//!
//! and recursively the same kinds below them. Each extra is placed right after
//! the chain node it hangs from (path order). Inert side entries (hooks,
//! progress, `turn_duration`…) beside the chain are not copied: Claude Code
//! does not load them either.
//!
//! # Legal checkpoints
//!
//! A node is a legal checkpoint when (see [`Illegal`]):
//! - it is a main-thread `user`, `assistant` or `system` entry (not a
//!   sidechain, `progress` or `attachment`), and the prefix holds a message;
//! - the assistant turn is complete: no streamed block of the prefix's latest
//!   response hangs below the checkpoint;
//! - no call is open: every `tool_use` on the prefix whose result exists
//!   anywhere in the project has its result inside the prefix. A call that
//!   never got a result anywhere (an aborted call, changelog 2.1.218) only
//!   blocks checkpoints until the next user entry.
//!
//! Inherited defects (orphan tool_results of the source) do not make a
//! checkpoint illegal; they are reported as notes.
//!
//! # The new file
//!
//! `<new-uuid-v4>.jsonl` in the source's project directory: every prefix line
//! **byte-identical** to its source line (read at `offset..offset+len`), one
//! per line, `\n`-terminated, then one `custom-title` entry (a type Claude Code
//! writes itself) whose extra `cctreeFork` key is the provenance record
//! (source session and file, checkpoint, chain root, line count, cctree
//! version, creation time). Claude Code ignores unknown keys;
//! [`crate::graph::Graph::own_fork_sessions`] finds the record through
//! `Entry::cctree_fork`.
//!
//! Trade-off: the copies keep their original `sessionId` (the lines must stay
//! byte-identical, and so they dedupe onto the originals in cctree's graph);
//! Claude Code's own resume/fork copies rewrite `sessionId`. Claude Code
//! resumes a file by its name and the parent chain of its entries, and writes
//! new entries under the new id, so the copies resume as the new session.
//!
//! Writing is append-only: a temp file in the project directory, `create_new`,
//! fsync, then a hard link to the final name (fails if it exists), falling back
//! to rename after an existence check. No existing file is opened for writing.
//!
//! # Version drift
//!
//! With entries older than the newest `version` of the archive, each copied
//! entry is compared with the key set every newest-version entry of its `type`
//! carries ([`drift`]); `--backfill` appends the lacking keys that have a
//! neutral default ([`drift::BACKFILL_KEYS`]) before the closing brace, keeping
//! every existing byte in order.

pub mod cmd;
pub mod codex;
pub mod drift;
pub mod file_history;
pub mod gemini;
pub mod lookup;
pub mod plan;
pub mod prefix;
pub mod target;

use std::path::Path;

pub use crate::term::shell_quote;
pub use cmd::{Fork, ForkRequest, fork, run, text, write};
pub use plan::{IllegalCheckpoint, Inputs, Plan, nearest_legal, plan};
pub use prefix::{Illegal, Prefix, legal_checkpoints, legal_on_branches, prefix, turn_context};

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

/// The `cctree fork` command that forks session `session_id` at message `at`
/// (for the site's copy buttons): it names no directory (`cctree fork` finds
/// the session by id, [`target`]), except `--projects` (already quoted, see
/// [`lookup::projects_arg`]) on a site rendered with `--show-paths` from
/// another directory than the default one.
/// Ids come from transcripts: the checkpoint is glued to its option
/// (`--at=…`) and the session follows `--`, so an id starting with `-` is
/// never read as an option.
pub fn fork_command(session_id: &str, at: &str, projects: Option<&str>) -> String {
    let mut cmd = format!("cctree fork --at={}", shell_quote(at));
    if let Some(dir) = projects {
        cmd.push_str(" --projects ");
        cmd.push_str(dir);
    }
    cmd.push_str(" -- ");
    cmd.push_str(&shell_quote(session_id));
    cmd
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

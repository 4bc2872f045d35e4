//! What every agent's prompt log shares: a file a client keeps of the
//! prompts typed, apart from its transcripts, which outlives them (Claude
//! Code's `history.jsonl`, Gemini CLI's `logs.json`). An agent that keeps
//! one says where it is ([`crate::agent::Agent::prompt_logs`]) and reads
//! it into neutral lines, by project ([`crate::agent::Agent::read_prompts`]);
//! `crate::recover` makes of the lines no surviving transcript holds the
//! sessions a page shows as recovered, for every agent alike. No agent is
//! named here.

use std::path::PathBuf;

use crate::model::PromptLog;

/// A prompt log to read: the file, and the folder its projects are in (a
/// log of one project: that project's folder).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Log {
    pub path: PathBuf,
    pub projects: PathBuf,
}

/// One prompt of a log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptLine {
    /// Where it is in the file: its line, from 1 (of a document, the line
    /// its record starts on).
    pub line: u32,
    /// The prompt as typed (Claude Code: pastes as `[Pasted text #N …]`).
    pub prompt: String,
    /// When, in milliseconds since the epoch.
    pub timestamp_ms: i64,
    /// The session it was typed in, when the log says.
    pub session_id: Option<String>,
    /// The pasted texts the log holds inline, by paste id.
    pub pasted: Vec<(String, String)>,
}

/// The lines of a log that belong to one project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectPrompts {
    /// The project's name, as the agent names the project its transcripts
    /// make ([`crate::model::ProjectSource::name`]).
    pub name: String,
    /// The project's folder (a project with no transcript left is read as
    /// one of no file there).
    pub dir: PathBuf,
    /// Its working directory as the log says (what the project is named by
    /// when no transcript of it is left).
    pub cwd: Option<String>,
    /// Its lines, in file order.
    pub lines: Vec<PromptLine>,
}

/// A prompt log read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompts {
    /// The file.
    pub path: PathBuf,
    /// How pages name it and what became of the transcripts it outlives.
    pub log: PromptLog,
    pub projects: Vec<ProjectPrompts>,
    /// What could not be read, as `file:line: why`.
    pub warnings: Vec<String>,
}

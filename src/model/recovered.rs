//! What remains of a session whose transcript is gone: its prompts, as the
//! client's prompt log kept them (Claude Code's `history.jsonl`,
//! transcript-format "The prompt history"; Gemini CLI's `logs.json`,
//! Appendix D). The loading side ([`crate::recover`]) gives each project the
//! sessions only the log still holds, every prompt a surviving transcript
//! holds left out; render shows them beside the project's conversations.

/// The prompt log a recovered session comes from, as its pages name it
/// (its agent's words).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PromptLog {
    /// The file's name (`history.jsonl`): `--redact` names a prompt
    /// `<file>:<line>`.
    pub file: &'static str,
    /// What the file is, after its product's name (`prompt history`:
    /// "Claude Code's prompt history").
    pub what: &'static str,
    /// What became of the session's transcript (`transcript deleted by
    /// Claude Code's cleanup`).
    pub gone: &'static str,
}

/// A session whose transcript the client deleted, rebuilt from its prompts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RecoveredSession {
    /// Its stable name: the session id, or (history lines of clients that
    /// wrote none) `h-<the first prompt's time in ms>`.
    pub key: String,
    /// The session id the history names (`None`: lines of older clients,
    /// grouped by time, transcript-format "The prompt history").
    pub session_id: Option<String>,
    /// Its prompts, in time order (at least one).
    pub prompts: Vec<RecoveredPrompt>,
    /// The prompt log they come from (`--redact` names each prompt by
    /// its file and line).
    pub log: PromptLog,
}

impl RecoveredSession {
    /// When its first prompt was typed (ms since the epoch).
    pub fn first_ts(&self) -> i64 {
        self.prompts.first().map_or(0, |p| p.ts)
    }

    /// When its last prompt was typed (ms since the epoch).
    pub fn last_ts(&self) -> i64 {
        self.prompts.last().map_or(0, |p| p.ts)
    }
}

/// One prompt of a [`RecoveredSession`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RecoveredPrompt {
    /// When it was typed (ms since the epoch).
    pub ts: i64,
    /// The prompt as typed (`[Pasted text #N +M lines]` for a paste).
    pub text: String,
    /// The pasted texts the history holds inline, by paste id.
    pub pasted: Vec<(String, String)>,
    /// Its line in the log, from 1 (where `--redact` names it).
    pub line: u32,
}

//! A transcript file's id in its project ([`FileId`]) and how it takes part
//! in the graph ([`FileClass`]); the file itself, with the rest of what
//! discovery found of a project, is [`super::ProjectSource`].

use crate::id::typed_id;

/// How a transcript file takes part in the graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum FileClass {
    /// `<session>.jsonl` at the top of a project.
    #[default]
    Main,
    /// `agent-*.jsonl` at the top of a project (2.0.57–2.1.1).
    LegacyAgent,
    /// `<session>/subagents/**/agent-*.jsonl`.
    Subagent,
    /// `agent-acompact-*` / `agent-aside_question-*`: side agents that copy main entries.
    SideAgent,
    /// Any other `*.jsonl` found in the project (read like a main file).
    Other,
}

impl FileClass {
    pub fn is_agent(self) -> bool {
        matches!(self, FileClass::LegacyAgent | FileClass::Subagent | FileClass::SideAgent)
    }
    pub fn name(self) -> &'static str {
        match self {
            FileClass::Main => "main",
            FileClass::LegacyAgent => "legacy-agent",
            FileClass::Subagent => "subagent",
            FileClass::SideAgent => "side-agent",
            FileClass::Other => "other",
        }
    }
}

typed_id!(
    /// A transcript file's place in its project ([`super::ProjectSource::files`]).
    pub FileId
);

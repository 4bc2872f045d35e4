//! What discovery found of a project, whichever agent's it is: its files
//! ([`SourceFile`], classified by how they take part in the graph,
//! [`FileClass`]), sidecars, spilled outputs and the facts the agent's
//! layout gives ([`ProjectSource`]). Each agent's discovery fills it
//! (`crate::agent`); nothing here reads a file.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::client::Client;
use crate::id::{IdVec, typed_id};

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
    /// A transcript file's place in its project ([`ProjectSource::files`]).
    pub FileId
);

/// A transcript file of a project.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: PathBuf,
    /// Path relative to the project directory, with `/` separators.
    pub rel: String,
    pub class: FileClass,
    /// `<id>` of an `agent-<id>.jsonl` file name.
    pub agent_id_from_name: Option<String>,
    /// A previous version of a file rewritten at the source, kept by
    /// `cctree sync` under [`crate::layout::kept_name`].
    pub kept_version: bool,
    /// The client that wrote it.
    pub client: Client,
}

impl SourceFile {
    /// One JSON document, not JSON lines (as its agent says: a Gemini CLI
    /// session of older versions, `chats/session-*.json`).
    pub fn is_document(&self) -> bool {
        self.client.is_document(&self.rel)
    }
}

/// A `agent-<id>.meta.json` sidecar.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentMeta {
    pub agent_type: Option<String>,
    pub description: Option<String>,
    pub tool_use_id: Option<String>,
}

/// One project directory and what it holds.
#[derive(Debug, Clone)]
pub struct ProjectSource {
    /// The directory name (Claude Code's lossy encoding of the working directory).
    pub name: String,
    pub dir: PathBuf,
    /// Transcript files, sorted by relative path.
    pub files: IdVec<FileId, SourceFile>,
    /// Sidecars by agent id.
    pub agent_meta: BTreeMap<String, AgentMeta>,
    /// Spilled tool outputs: `<session-dir>/tool-results/<file>` → path.
    pub tool_results: BTreeMap<String, PathBuf>,
    /// Problems met while walking (unreadable directories, symlink loops).
    pub warnings: Vec<String>,
    /// The client whose transcripts these are (one per project).
    pub client: Client,
    /// The working directory the client files the project under, when its
    /// layout says it (Codex: each session's `cwd`; Gemini: `.project_root`).
    pub cwd: Option<String>,
    /// Names the client gives its sessions outside their transcripts, by
    /// session id (Codex: `$CODEX_HOME/session_index.jsonl`, the last line of
    /// an id winning): read as each session's custom title.
    pub session_titles: BTreeMap<String, String>,
}

impl ProjectSource {
    /// A project of `client` named `name`, in `dir`, that holds nothing yet.
    pub fn empty(name: String, dir: PathBuf, client: Client) -> ProjectSource {
        ProjectSource {
            name,
            dir,
            files: IdVec::new(),
            agent_meta: BTreeMap::new(),
            tool_results: BTreeMap::new(),
            warnings: Vec::new(),
            client,
            cwd: None,
            session_titles: BTreeMap::new(),
        }
    }

    pub fn total_bytes(&self) -> u64 {
        self.files.iter().filter_map(|f| f.path.metadata().ok()).map(|m| m.len()).sum()
    }
}

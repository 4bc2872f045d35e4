//! What a rendered project gives the archive-wide files: its row on the
//! archive index ([`ProjectSummary`]) and its units of the search index
//! ([`UnitEntry`]). Render makes them; the cache keeps them between
//! renders, so that a project whose input is unchanged is not read again;
//! the build hands them to the archive index and the search index.

use serde::{Deserialize, Serialize};

use crate::model::Tokens;

/// What a project shows on the archive index (and what the cache keeps of it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectSummary {
    pub name: String,
    /// Its directory in the site (`<slug>/`).
    pub dir: String,
    pub conversations: usize,
    pub branches: usize,
    pub forks: usize,
    pub messages: u64,
    pub last_ts: i64,
    /// Tokens of every assistant turn of the project (sub-agents too).
    #[serde(default)]
    pub tokens: Tokens,
    /// What those turns cost, at the prices of the render.
    #[serde(default)]
    pub cost: crate::cost::Total,
    /// Pages of the project.
    pub pages: usize,
    /// Sessions recovered from the prompt history (their transcripts are gone).
    #[serde(default)]
    pub recovered: usize,
    /// The agent whose transcripts it holds (`Claude Code`, `Codex CLI`, `Gemini CLI`).
    #[serde(default)]
    pub agent: String,
    /// Its agent's place in the registration (`crate::agent::ALL`): the
    /// order the archive index lists agents in.
    #[serde(default)]
    pub agent_order: usize,
    /// Its sub-agent and side-agent transcripts, and its fragments
    /// (sessions without a prompt of their own): what a project of no
    /// conversation holds, which its row says.
    #[serde(default)]
    pub agents: usize,
    #[serde(default)]
    pub fragments: usize,
}

/// A unit of the archive-wide index, as its table of units lists it (and
/// the cache keeps it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitEntry {
    /// Its directory in the site (`<project>/c/<root uuid>/`,
    /// `<project>/agents/<id>/`): unique in the archive, and its page.
    pub key: String,
    /// When it started (ms), which orders the units.
    pub first_ts: i64,
    pub title: String,
    /// The project's name.
    pub project: String,
    /// Its pages 1, 2, … (paths in the site; each page's docs are in the
    /// file `render::search::doc_file` names beside it).
    pub pages: Vec<String>,
}

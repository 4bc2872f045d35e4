//! Claude Code (transcript-format §1–§8, Appendix B): the first agent.
//!
//! Its files ([`discover`]: the projects directory, one project directory
//! per working directory) hold JSON lines that each carry their own uuid
//! and parent, so [`header`] reads each line's header in parallel and no
//! link is derived afterwards. When a page shows an entry, [`node`] reads
//! only the parts of its line its view needs (`json::pick::Want`, one pass)
//! and turns them, and the tags Claude Code puts in text (§4), into the
//! model. It is the only code that knows Claude Code's JSON: its entry
//! types, its content blocks, its tools and their `toolUseResult`s, the tags
//! it puts in text, the files it spills large outputs to.

mod calls;
mod cleanup;
mod content;
pub mod discover;
pub mod fork;
pub mod header;
pub mod history;
pub mod prompt;
mod results;
mod sync;
mod values;

use std::path::{Path, PathBuf};

use crate::agent::{Agent, Claim, Claude, Scanned};
use crate::limits::OUTPUT_CAP;
use crate::model::{Entries, Entry, FileClass, Loc, Node, ProjectSource, Raw, Read, Reader};
use crate::texts::LineError;

use results::Tool;

/// What the entry says, read from its line; when the line cannot be read
/// again (its file changed since), what an empty line says, and why.
fn node<'a>(r: Read<'a>) -> (Node<'a>, Option<LineError>) {
    let e = r.entry;
    // The tool whose call the one result of a user entry answers, when its
    // view shows part of the entry's `toolUseResult`.
    let tool = r.call.filter(|_| e.tool_results.len() == 1).and_then(Tool::of);
    let read = match content::want(e, tool) {
        Some(want) => r.lines.json_only(e, want),
        None => r.lines.json(e),
    };
    let (json, err) = match read {
        Ok(v) => (v, None),
        Err(err) => (serde_json::Value::Null, Some(err)),
    };
    let session = e.session_id.as_deref().unwrap_or("");
    // A spilled output is read from `<session>/tool-results/`, capped: a
    // page shows at most `OUTPUT_CAP` of it (and says it was cut).
    let side = |file: &str| {
        let (path, text) = r.lines.side_file(&format!("{session}/tool-results/{file}"), OUTPUT_CAP + 1)?;
        Some((path.display().to_string(), text))
    };
    (content::node_of(e, json, tool, &side), err)
}

impl Reader for Claude {
    fn name(&self) -> &'static str {
        "claude"
    }
    fn label(&self) -> &'static str {
        "Claude"
    }
    fn product(&self) -> &'static str {
        "Claude Code"
    }
    fn resume_command(&self) -> &'static str {
        "claude -r"
    }
    fn is_document(&self, _rel: &str) -> bool {
        false
    }
    /// Every file is lines (or one document).
    fn as_lines(&self, _rel: &str) -> Option<&'static dyn crate::model::AsLines> {
        None
    }
    fn header(&self, line: &str, loc: Loc, offset: u64) -> Result<Entry, serde_json::Error> {
        header::parse_entry(line, loc, offset)
    }
    /// Every line names its own parent: nothing to derive.
    fn link(&self, _source: &ProjectSource, _entries: &mut Entries) {}
    fn node<'a>(&self, read: Read<'a>) -> (Node<'a>, Option<LineError>) {
        node(read)
    }
    fn as_typed<'t>(&self, excerpt: &'t str) -> std::borrow::Cow<'t, str> {
        prompt::as_typed(excerpt)
    }
    fn fork_by(&self) -> crate::model::ForkBy {
        crate::model::ForkBy::Session
    }
    fn record<'a>(&self, read: Read<'a>) -> Result<Raw<'a>, LineError> {
        read.lines.json(read.entry).map(Raw::of)
    }
}

impl Agent for Claude {
    fn default_dir(&self) -> Option<PathBuf> {
        crate::agent::claude::discover::default_projects_dir()
    }
    fn default_hint(&self) -> &'static str {
        "Claude Code writes its transcripts there once it has run; CLAUDE_CONFIG_DIR moves it"
    }
    fn home_env(&self) -> &'static [&'static str] {
        &["CLAUDE_CONFIG_DIR"]
    }
    /// Any folder no other agent claims: a projects directory, one project
    /// directory, or Claude Code's configuration directory.
    fn claims(&self, _dir: &Path) -> Claim {
        Claim::Otherwise
    }
    fn claims_file(&self, _path: &Path) -> Claim {
        Claim::Otherwise
    }
    fn classify_loose(&self, rel: &str) -> (FileClass, Option<String>) {
        crate::agent::claude::discover::classify(rel)
    }
    fn scan(&self, dir: &Path) -> anyhow::Result<Scanned> {
        discover::scan(dir)
    }
    fn nothing_in(&self, dir: &Path) -> String {
        format!(
            "no transcript (*.jsonl) in {}: give Claude Code's projects directory (~/.claude/projects), one project \
             directory in it, or JSONL files",
            dir.display()
        )
    }
    /// Its default folder holds everything.
    fn found_in(&self, _cwds: &[&str]) -> Vec<PathBuf> {
        Vec::new()
    }
    fn synced_dir(&self, archive: &Path) -> Option<PathBuf> {
        Some(archive.to_path_buf())
    }
    fn kept_trees(&self) -> &'static [crate::agent::keep::Tree] {
        sync::TREES
    }
    fn keep(&self, dir: &Path, archive: &Path) -> anyhow::Result<crate::agent::keep::Kept> {
        sync::keep(dir, archive)
    }
    fn kept_at(&self, p: &ProjectSource) -> Vec<crate::agent::keep::At> {
        sync::kept_at(p)
    }
    /// The prompt history beside each projects directory read
    /// (`history.jsonl`, [`history`]).
    fn prompt_logs(&self, roots: &[&Path], _projects: &[&ProjectSource]) -> Vec<crate::agent::prompts::Log> {
        history::prompt_logs(roots)
    }
    fn read_prompts(&self, log: &crate::agent::prompts::Log) -> anyhow::Result<crate::agent::prompts::Prompts> {
        history::read_prompts(&log.path, &log.projects)
    }
    /// `cleanupPeriodDays` ([`cleanup`]).
    fn cleanup_warning(&self, folder: &Path, archive: Option<&Path>, command: &str, now_ms: i64) -> Option<String> {
        cleanup::warning_for(folder, archive, command, now_ms)
    }
    /// Files, mirrored as trees.
    fn kept_databases(&self, _dir: &Path, _to: &Path) -> Option<Vec<(PathBuf, PathBuf)>> {
        None
    }
    /// Judged on each branch's loaded chain: complete turns, no open tool
    /// call ([`fork::prefix`]).
    fn checkpoints(&self) -> crate::project::Checkpoints {
        crate::project::Checkpoints::Branches(fork::legal_on_branches)
    }
    fn find(
        &self,
        target: &str,
        projects: Option<&Path>,
        by: crate::agent::fork::Lookup,
    ) -> anyhow::Result<Option<Box<dyn crate::agent::fork::Target>>> {
        fork::find(target, projects, by)
    }
    fn checks(&self) -> &'static [&'static str] {
        &[]
    }
    fn check(&self, _p: &crate::project::Project, _out: &mut Vec<crate::agent::check::Finding>) {
        // Every invariant of Claude Code's files is one of every project's (P1-P3, cycles, lines).
    }
    fn supersedes(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
}

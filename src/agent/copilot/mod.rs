//! GitHub Copilot CLI (transcript-format, Appendix I):
//! `~/.copilot/session-state/<session id>/events.jsonl`, one event a line,
//! each event's `parentId` the one written before it; sub-agents' events in
//! their parent's file (`agentId`); `/fork` a copy with the same ids; a
//! resume appends; `/compact` writes a compaction event; `/rewind` rewrites
//! the file (the earlier version is what `cctree sync` keeps).
//!
//! [`header`] reads each event; [`link`] chains the messages of each lane
//! (the conversation, each sub-agent) and moves usage to its reply;
//! [`content`] reads a shown event; [`fork`] writes a session folder
//! `copilot --resume` loads; [`check`] its invariants.

mod check;
mod content;
pub mod discover;
pub mod fork;
mod header;
mod link;
mod sync;

use std::path::{Path, PathBuf};

use crate::agent::{Agent, Claim, Copilot, Scanned};
use crate::model::{Entries, Entry, FileClass, Loc, Node, ProjectSource, Raw, Read, Reader};
use crate::texts::LineError;

impl Reader for Copilot {
    fn name(&self) -> &'static str {
        "copilot"
    }
    fn label(&self) -> &'static str {
        "Copilot"
    }
    fn product(&self) -> &'static str {
        "Copilot CLI"
    }
    fn resume_command(&self) -> &'static str {
        "copilot --resume"
    }
    fn is_document(&self, _rel: &str) -> bool {
        false
    }
    /// Every file is lines.
    fn as_lines(&self, _rel: &str) -> Option<&'static dyn crate::model::AsLines> {
        None
    }
    fn header(&self, line: &str, loc: Loc, offset: u64) -> Result<Entry, serde_json::Error> {
        header::header(line, loc, offset)
    }
    fn link(&self, source: &ProjectSource, entries: &mut Entries) {
        link::link(source, entries);
    }
    fn node<'a>(&self, read: Read<'a>) -> (Node<'a>, Option<LineError>) {
        content::node(read)
    }
    fn record<'a>(&self, read: Read<'a>) -> Result<Raw<'a>, LineError> {
        read.lines.json(read.entry).map(Raw::of)
    }
    /// A `/fork` copy keeps the event ids: the session names the file.
    fn fork_by(&self) -> crate::model::ForkBy {
        crate::model::ForkBy::Session
    }
    fn as_typed<'t>(&self, excerpt: &'t str) -> std::borrow::Cow<'t, str> {
        std::borrow::Cow::Borrowed(excerpt)
    }
}

impl Agent for Copilot {
    fn default_dir(&self) -> Option<PathBuf> {
        discover::default_copilot_dir().map(|d| d.join("session-state"))
    }
    fn default_hint(&self) -> &'static str {
        "Copilot CLI writes its sessions there; COPILOT_HOME moves it"
    }
    fn home_env(&self) -> &'static [&'static str] {
        &["COPILOT_HOME"]
    }
    fn claims(&self, dir: &Path) -> Claim {
        discover::is_copilot_dir(dir).map_or(Claim::No, Claim::Yes)
    }
    fn claims_file(&self, path: &Path) -> Claim {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let live = crate::layout::split_kept(&name).unwrap_or(name);
        if live == "events.jsonl" { Claim::Yes(path.to_path_buf()) } else { Claim::No }
    }
    fn classify_loose(&self, _rel: &str) -> (FileClass, Option<String>) {
        (FileClass::Main, None)
    }
    fn scan(&self, dir: &Path) -> anyhow::Result<Scanned> {
        let (projects, warnings) = discover::scan(dir);
        let nothing = projects.is_empty() && warnings.is_empty();
        Ok(Scanned {
            root: dir.to_path_buf(),
            projects,
            warnings,
            inputs: vec![dir.to_path_buf()],
            nothing,
            ..Scanned::default()
        })
    }
    fn nothing_in(&self, dir: &Path) -> String {
        format!("no session in {}: Copilot CLI wrote no events.jsonl there yet", dir.display())
    }
    /// Its default folder holds everything.
    fn found_in(&self, _cwds: &[&str]) -> Vec<PathBuf> {
        Vec::new()
    }
    fn synced_dir(&self, archive: &Path) -> Option<PathBuf> {
        sync::synced_dir(archive)
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
    /// Not read yet: Copilot CLI keeps no prompt log cctree reads.
    fn prompt_logs(&self, _roots: &[&Path], _projects: &[&ProjectSource]) -> Vec<crate::agent::prompts::Log> {
        Vec::new()
    }
    fn read_prompts(&self, log: &crate::agent::prompts::Log) -> anyhow::Result<crate::agent::prompts::Prompts> {
        anyhow::bail!("{}: cctree reads no prompt log of Copilot CLI", log.path.display())
    }
    /// Copilot CLI deletes no session by itself that cctree knows the clock of.
    fn cleanup_warning(&self, _folder: &Path, _archive: Option<&Path>, _command: &str, _now_ms: i64) -> Option<String> {
        None
    }
    /// Files, mirrored as trees.
    fn kept_databases(&self, _dir: &Path, _to: &Path) -> Option<Vec<(PathBuf, PathBuf)>> {
        None
    }
    fn checkpoints(&self) -> crate::project::Checkpoints {
        crate::project::Checkpoints::Nodes(fork::legal_nodes)
    }
    fn find(
        &self,
        target: &str,
        projects: Option<&Path>,
        _by: crate::agent::fork::Lookup,
    ) -> anyhow::Result<Option<Box<dyn crate::agent::fork::Target>>> {
        let file = fork::find(target, projects)?;
        Ok(file.map(|f| Box::new(Found(f)) as Box<dyn crate::agent::fork::Target>))
    }
    fn checks(&self) -> &'static [&'static str] {
        check::KINDS
    }
    fn check(&self, p: &crate::project::Project, out: &mut Vec<crate::agent::check::Finding>) {
        check::check(p, out);
    }
    fn supersedes(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
}

struct Found(PathBuf);

impl crate::agent::fork::Target for Found {
    fn describe(&self) -> String {
        format!("a Copilot CLI session ({})", self.0.display())
    }
    fn fork(self: Box<Self>, req: &crate::agent::fork::ForkRequest) -> anyhow::Result<crate::agent::fork::Fork> {
        let f = fork::fork(&self.0, req.at.as_deref(), req.dry_run)?;
        Ok(crate::agent::fork::Fork::of(f.text(), &f))
    }
}

//! Pi (transcript-format, Appendix E): `~/.pi/agent/sessions/--<cwd>--/`,
//! one `<time>_<session id>.jsonl` per session: a `session` header line,
//! then entries with 8-hex `id`/`parentId` — a real tree, a branch being a
//! later entry that points back to an earlier one; `/fork` copies (same
//! ids in a new file, `parentSession` its parent's path) become
//! cross-session forks; pi-subagents' runs under a session's stem are its
//! agents.
//!
//! [`header`] reads each line; [`link`] scopes ids to their file, links
//! copies, takes metadata out of the chain; [`content`] reads what a shown
//! entry says; [`fork`] writes a session `pi --session` resumes; [`check`] its invariants; [`sync`] what sync keeps.

mod check;
mod content;
pub mod discover;
mod fork;
mod header;
mod link;
mod sync;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agent::{Agent, Claim, Pi, Scanned};
use crate::model::{Entries, Entry, FileClass, Loc, Node, ProjectSource, Raw, Read, Reader};
use crate::texts::LineError;

/// The text of a message's `content` (a string, or its `text` blocks joined).
pub(crate) fn text_of(content: &Value) -> String {
    if let Some(s) = content.as_str() {
        return s.to_string();
    }
    let texts: Vec<&str> = content
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == "text")
        .filter_map(|b| b["text"].as_str())
        .collect();
    texts.join("\n")
}

impl Reader for Pi {
    fn name(&self) -> &'static str {
        "pi"
    }
    fn label(&self) -> &'static str {
        "Pi"
    }
    fn product(&self) -> &'static str {
        "Pi"
    }
    fn resume_command(&self) -> &'static str {
        "pi --session"
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
    /// An entry's id is in every `/fork` copy: the session id names the file.
    fn fork_by(&self) -> crate::model::ForkBy {
        crate::model::ForkBy::Session
    }
    fn as_typed<'t>(&self, excerpt: &'t str) -> std::borrow::Cow<'t, str> {
        std::borrow::Cow::Borrowed(excerpt)
    }
}

impl Agent for Pi {
    fn default_dir(&self) -> Option<PathBuf> {
        discover::default_agent_dir().map(|d| d.join("sessions"))
    }
    fn default_hint(&self) -> &'static str {
        "Pi writes its sessions there; PI_CODING_AGENT_DIR moves it"
    }
    fn home_env(&self) -> &'static [&'static str] {
        &["PI_CODING_AGENT_DIR"]
    }
    fn claims(&self, dir: &Path) -> Claim {
        discover::is_pi_dir(dir).map_or(Claim::No, Claim::Yes)
    }
    /// A `.jsonl` file whose first line is a Pi `session` header.
    fn claims_file(&self, path: &Path) -> Claim {
        let jsonl = path.extension().is_some_and(|e| e == "jsonl");
        if jsonl && discover::header_of(path).is_some() { Claim::Yes(path.to_path_buf()) } else { Claim::No }
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
        format!("no session in {}: Pi wrote no session there yet", dir.display())
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
    /// Pi keeps no prompt log.
    fn prompt_logs(&self, _roots: &[&Path], _projects: &[&ProjectSource]) -> Vec<crate::agent::prompts::Log> {
        Vec::new()
    }
    fn read_prompts(&self, log: &crate::agent::prompts::Log) -> anyhow::Result<crate::agent::prompts::Prompts> {
        anyhow::bail!("{}: Pi keeps no prompt log", log.path.display())
    }
    /// Pi deletes sessions only when asked (Ctrl+D in its picker).
    fn cleanup_warning(&self, _folder: &Path, _archive: Option<&Path>, _command: &str, _now_ms: i64) -> Option<String> {
        None
    }
    /// Files, mirrored as trees.
    fn kept_databases(&self, _dir: &Path, _to: &Path) -> Option<Vec<(PathBuf, PathBuf)>> {
        None
    }
    /// A reply that ends a turn, a compaction, a branch summary.
    fn checkpoints(&self) -> crate::project::Checkpoints {
        crate::project::Checkpoints::Nodes(fork::legal_nodes)
    }
    /// A session file, or a session id (the end of its file's name).
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

/// A session file `cctree fork` found.
struct Found(PathBuf);

impl crate::agent::fork::Target for Found {
    fn describe(&self) -> String {
        format!("a Pi session ({})", self.0.display())
    }
    fn fork(self: Box<Self>, req: &crate::agent::fork::ForkRequest) -> anyhow::Result<crate::agent::fork::Fork> {
        let f = fork::fork(&self.0, req.at.as_deref(), req.dry_run)?;
        Ok(crate::agent::fork::Fork::of(f.text(), &f))
    }
}

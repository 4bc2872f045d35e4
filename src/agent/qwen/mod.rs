//! Qwen Code (transcript-format, Appendix G): `~/.qwen/projects/<cwd>/`,
//! one `chats/<session id>.jsonl` per session, records with `uuid` and
//! `parentUuid` as Claude Code writes them but Gemini API messages inside
//! (role `model`, `parts`), the sub-agents' transcripts under
//! `subagents/<parent session id>/`.
//!
//! [`header`] reads each line; [`link`] keeps the messages as nodes and
//! hangs them past the telemetry the chain runs through (rewinds become
//! fork points, `--fork-session` copies cross-session forks, compressions
//! compactions); [`content`] reads what a shown record says; [`fork`]
//! writes a session file `qwen --resume` loads; [`check`] its invariants.

mod check;
mod content;
pub mod discover;
pub mod fork;
mod header;
mod link;
mod sync;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agent::{Agent, Claim, Qwen, Scanned};
use crate::model::{Entries, Entry, FileClass, Loc, Node, ProjectSource, Raw, Read, Reader};
use crate::texts::LineError;

/// The text parts of a message's `parts`, joined.
pub(crate) fn text_of(parts: &Value) -> String {
    let texts: Vec<&str> = parts
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["thought"] != true)
        .filter_map(|p| p["text"].as_str().or_else(|| p["functionResponse"]["response"]["output"].as_str()))
        .collect();
    texts.join("\n")
}

/// What a person typed of a prompt's `parts`: its text without the
/// reminder the client put before it.
pub(crate) fn typed_text(parts: &Value) -> String {
    let texts: Vec<&str> = parts
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["text"].as_str())
        .filter(|t| !content::is_reminder(t))
        .collect();
    texts.join("\n")
}

impl Reader for Qwen {
    fn name(&self) -> &'static str {
        "qwen"
    }
    fn label(&self) -> &'static str {
        "Qwen"
    }
    fn product(&self) -> &'static str {
        "Qwen Code"
    }
    fn resume_command(&self) -> &'static str {
        "qwen --resume"
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
    /// A message's uuid is in every `--fork-session` copy: the session id
    /// names the file.
    fn fork_by(&self) -> crate::model::ForkBy {
        crate::model::ForkBy::Session
    }
    fn as_typed<'t>(&self, excerpt: &'t str) -> std::borrow::Cow<'t, str> {
        std::borrow::Cow::Borrowed(excerpt)
    }
}

impl Agent for Qwen {
    fn default_dir(&self) -> Option<PathBuf> {
        discover::default_qwen_dir().map(|d| d.join("projects"))
    }
    fn default_hint(&self) -> &'static str {
        "Qwen Code writes its chats there; QWEN_RUNTIME_DIR or QWEN_HOME moves it"
    }
    fn home_env(&self) -> &'static [&'static str] {
        &["QWEN_RUNTIME_DIR", "QWEN_HOME"]
    }
    fn claims(&self, dir: &Path) -> Claim {
        discover::is_qwen_dir(dir).map_or(Claim::No, Claim::Yes)
    }
    /// A session file of a `chats/` folder, or a sub-agent's of `subagents/`.
    fn claims_file(&self, path: &Path) -> Claim {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let dir =
            |n: usize| path.ancestors().nth(n).and_then(Path::file_name).map(|d| d.to_string_lossy().into_owned());
        let session = discover::is_session_name(&name)
            && (dir(1).as_deref() == Some("chats") || dir(2).as_deref() == Some("chats"));
        let agent = name.starts_with("agent-") && dir(2).as_deref() == Some("subagents");
        if session || agent { Claim::Yes(path.to_path_buf()) } else { Claim::No }
    }
    fn classify_loose(&self, rel: &str) -> (FileClass, Option<String>) {
        match rel.strip_prefix("agent-").and_then(|r| r.strip_suffix(".jsonl")) {
            Some(id) => (FileClass::Subagent, Some(id.to_string())),
            None => (FileClass::Main, None),
        }
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
        format!("no session in {}: Qwen Code wrote no chat there yet", dir.display())
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
    /// Not read yet: Qwen Code keeps no prompt log cctree reads.
    fn prompt_logs(&self, _roots: &[&Path], _projects: &[&ProjectSource]) -> Vec<crate::agent::prompts::Log> {
        Vec::new()
    }
    fn read_prompts(&self, log: &crate::agent::prompts::Log) -> anyhow::Result<crate::agent::prompts::Prompts> {
        anyhow::bail!("{}: cctree reads no prompt log of Qwen Code", log.path.display())
    }
    /// Qwen Code deletes no session by itself that cctree knows the clock of.
    fn cleanup_warning(&self, _folder: &Path, _archive: Option<&Path>, _command: &str, _now_ms: i64) -> Option<String> {
        None
    }
    /// Files, mirrored as trees.
    fn kept_databases(&self, _dir: &Path, _to: &Path) -> Option<Vec<(PathBuf, PathBuf)>> {
        None
    }
    /// A reply with text and no call: a turn the client completed.
    fn checkpoints(&self) -> crate::project::Checkpoints {
        crate::project::Checkpoints::Nodes(fork::legal_nodes)
    }
    /// A session file, or a session id (the name of its file).
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
        format!("a Qwen Code session ({})", self.0.display())
    }
    fn fork(self: Box<Self>, req: &crate::agent::fork::ForkRequest) -> anyhow::Result<crate::agent::fork::Fork> {
        let f = fork::fork(&self.0, req.at.as_deref(), req.title.as_deref(), req.dry_run)?;
        Ok(crate::agent::fork::Fork::of(f.text(), &f))
    }
}

//! OpenCode (transcript-format, Appendix F): a SQLite database of
//! sessions, messages and parts (JSON in their `data` columns) and an event
//! log, `$XDG_DATA_HOME/opencode/opencode.db`; older releases' JSON files
//! under `storage/`.
//!
//! The database is not lines: [`lines`] writes a project's sessions of it as
//! JSON lines (from one snapshot, read as [`crate::sqlite`] reads a client's
//! database), which the project reads like any file ([`AsLines`]). Then, as
//! for the other agents: [`header`] reads each line's header, [`link`]
//! derives the tree OpenCode does not store (a session's list, the branches
//! `/undo` left, forks found from their copied messages, sub-agents'
//! sessions), [`content`] reads what a shown message says.

mod check;
mod content;
pub mod discover;
pub mod fork;
mod group;
mod header;
mod lines;
mod link;
mod storage;

use std::path::{Path, PathBuf};

use crate::agent::{Agent, Claim, OpenCode, Scanned};
use crate::model::{AsLines, Entries, Entry, FileClass, Loc, Node, ProjectSource, Raw, Read, Reader};
use crate::texts::LineError;

impl Reader for OpenCode {
    fn name(&self) -> &'static str {
        "opencode"
    }
    fn label(&self) -> &'static str {
        "OpenCode"
    }
    fn product(&self) -> &'static str {
        "OpenCode"
    }
    fn resume_command(&self) -> &'static str {
        "opencode -s"
    }
    fn is_document(&self, _rel: &str) -> bool {
        false
    }
    /// The database and the storage folder are read as lines; an archive's
    /// files are lines already.
    fn as_lines(&self, rel: &str) -> Option<&'static dyn AsLines> {
        let (source, _) = group::Group::of(rel);
        (discover::is_db_name(source) || source == "storage").then_some(&lines::LINES as &dyn AsLines)
    }
    fn header(&self, line: &str, loc: Loc, offset: u64) -> Result<Entry, serde_json::Error> {
        header::header(line, loc, offset)
    }
    fn link(&self, source: &ProjectSource, entries: &mut Entries) {
        link::link(source, entries);
    }
    fn node<'a>(&self, read: Read<'a>) -> (Node<'a>, Option<LineError>) {
        match read.lines.json(read.entry) {
            Ok(v) => (content::node_of(&v), None),
            Err(err) => (content::node_of(&serde_json::Value::Null), Some(err)),
        }
    }
    fn record<'a>(&self, read: Read<'a>) -> Result<Raw<'a>, LineError> {
        read.lines.json(read.entry).map(Raw::of)
    }
    /// A message id names no file: the session's id does.
    fn fork_by(&self) -> crate::model::ForkBy {
        crate::model::ForkBy::Session
    }
    fn as_typed<'t>(&self, excerpt: &'t str) -> std::borrow::Cow<'t, str> {
        std::borrow::Cow::Borrowed(excerpt)
    }
}

impl Agent for OpenCode {
    fn default_dir(&self) -> Option<PathBuf> {
        discover::default_dir()
    }
    fn default_hint(&self) -> &'static str {
        "OpenCode keeps its database there; XDG_DATA_HOME moves it"
    }
    /// Only `XDG_DATA_HOME`, which every XDG program reads.
    fn home_env(&self) -> &'static [&'static str] {
        &[]
    }
    fn claims(&self, dir: &Path) -> Claim {
        discover::data_dir_of(dir).map_or(Claim::No, Claim::Yes)
    }
    fn claims_file(&self, path: &Path) -> Claim {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if discover::is_db_name(&name) { Claim::Yes(path.to_path_buf()) } else { Claim::No }
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
        format!("no session in {}: OpenCode has written no database (opencode.db) or storage there yet", dir.display())
    }
    /// Its default folder holds everything.
    fn found_in(&self, _cwds: &[&str]) -> Vec<PathBuf> {
        Vec::new()
    }
    fn synced_dir(&self, archive: &Path) -> Option<PathBuf> {
        Some(archive.parent()?.join("opencode"))
    }
    /// Each database of the data folder, by its name in the archive's
    /// folder (the JSON storage of releases before 1.2 is not kept).
    fn kept_databases(&self, dir: &Path, to: &Path) -> Option<Vec<(PathBuf, PathBuf)>> {
        let dbs = discover::databases(dir);
        Some(dbs.into_iter().filter_map(|db| Some((to.join(db.file_name()?), db))).map(|(to, db)| (db, to)).collect())
    }
    /// No file tree: its databases are kept ([`Agent::kept_databases`]).
    fn kept_trees(&self) -> &'static [crate::agent::keep::Tree] {
        &[]
    }
    fn keep(&self, dir: &Path, _archive: &Path) -> anyhow::Result<crate::agent::keep::Kept> {
        Ok(crate::agent::keep::Kept {
            source: dir.to_path_buf(),
            trees: Vec::new(),
            files: Vec::new(),
            report: Vec::new(),
        })
    }
    /// A database's deleted rows stay in its copy: no file is recorded gone.
    fn kept_at(&self, _p: &ProjectSource) -> Vec<crate::agent::keep::At> {
        Vec::new()
    }
    /// OpenCode keeps no prompt log apart from its database.
    fn prompt_logs(&self, _roots: &[&Path], _projects: &[&ProjectSource]) -> Vec<crate::agent::prompts::Log> {
        Vec::new()
    }
    fn read_prompts(&self, log: &crate::agent::prompts::Log) -> anyhow::Result<crate::agent::prompts::Prompts> {
        anyhow::bail!("{}: cctree reads no prompt log of OpenCode", log.path.display())
    }
    /// OpenCode deletes no session by itself that cctree knows the clock of.
    fn cleanup_warning(&self, _folder: &Path, _archive: Option<&Path>, _command: &str, _now_ms: i64) -> Option<String> {
        None
    }
    /// A reply that ends a turn, a compaction's summary ([`fork`]).
    fn checkpoints(&self) -> crate::project::Checkpoints {
        crate::project::Checkpoints::Nodes(fork::legal_nodes)
    }
    /// A session id (`ses_…`) or a message id (`msg_…`) of a database (or
    /// the old storage) of OpenCode's data folders.
    fn find(
        &self,
        target: &str,
        projects: Option<&Path>,
        by: crate::agent::fork::Lookup,
    ) -> anyhow::Result<Option<Box<dyn crate::agent::fork::Target>>> {
        Ok(fork::find(target, projects, by)?.map(|f| Box::new(f) as Box<dyn crate::agent::fork::Target>))
    }
    fn checks(&self) -> &'static [&'static str] {
        check::KINDS
    }
    fn check(&self, p: &crate::project::Project, out: &mut Vec<crate::agent::check::Finding>) {
        check::check(p, out);
    }
    /// An unanswered call is the general P3 finding said for OpenCode.
    fn supersedes(&self) -> &'static [(&'static str, &'static str)] {
        &[("opencode-call-unanswered", "P3-tool-use-without-result")]
    }
}

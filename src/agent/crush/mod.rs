//! Crush (transcript-format, Appendix H): a SQLite database per project,
//! `<project>/.crush/crush.db` (tables `sessions`, `messages` with their
//! parts as JSON, `files`), the projects listed in the global data folder's
//! `projects.json` ([`discover`]).
//!
//! The database is not lines: [`lines`] writes it as JSON lines (from one
//! snapshot, as [`crate::sqlite`] reads a client's database), which the
//! project reads like any file ([`AsLines`]). Then [`header`] reads each
//! line's header, [`link`] the tree (one line per session: Crush has no
//! fork or rewind; summaries as compactions; sub-agents' sessions named by
//! their call), [`content`] what a shown message says. `cctree sync` keeps
//! each project's database merged into its copy ([`Agent::kept_databases`]);
//! `cctree fork` says what Crush offers instead of a fork ([`fork`]).

mod check;
mod content;
pub mod discover;
mod fork;
mod header;
mod lines;
mod link;

use std::path::{Path, PathBuf};

use crate::agent::{Agent, Claim, Crush, Scanned};
use crate::model::{AsLines, Entries, Entry, FileClass, Loc, Node, ProjectSource, Raw, Read, Reader};
use crate::texts::LineError;

impl Reader for Crush {
    fn name(&self) -> &'static str {
        "crush"
    }
    fn label(&self) -> &'static str {
        "Crush"
    }
    fn product(&self) -> &'static str {
        "Crush"
    }
    fn resume_command(&self) -> &'static str {
        "crush run -s"
    }
    fn is_document(&self, _rel: &str) -> bool {
        false
    }
    /// The database is read as lines; nothing else is Crush's.
    fn as_lines(&self, rel: &str) -> Option<&'static dyn AsLines> {
        rel.ends_with(discover::DB).then_some(&lines::LINES as &dyn AsLines)
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

impl Agent for Crush {
    fn default_dir(&self) -> Option<PathBuf> {
        discover::default_dir()
    }
    fn default_hint(&self) -> &'static str {
        "Crush lists its projects there (projects.json); CRUSH_GLOBAL_DATA or XDG_DATA_HOME moves it"
    }
    fn home_env(&self) -> &'static [&'static str] {
        &["CRUSH_GLOBAL_DATA"]
    }
    fn claims(&self, dir: &Path) -> Claim {
        discover::claim(dir).map_or(Claim::No, Claim::Yes)
    }
    fn claims_file(&self, path: &Path) -> Claim {
        match path.file_name().is_some_and(|n| n == discover::DB) {
            true => path.parent().map_or(Claim::No, |p| Claim::Yes(p.to_path_buf())),
            false => Claim::No,
        }
    }
    fn classify_loose(&self, _rel: &str) -> (FileClass, Option<String>) {
        (FileClass::Main, None)
    }
    fn scan(&self, dir: &Path) -> anyhow::Result<Scanned> {
        let (projects, warnings) = discover::scan(dir);
        let nothing = projects.is_empty() && warnings.is_empty();
        let mut inputs = vec![dir.to_path_buf()];
        inputs.extend(projects.iter().map(|p| p.dir.clone()).filter(|d| !d.starts_with(dir)));
        Ok(Scanned { root: dir.to_path_buf(), projects, warnings, inputs, nothing, ..Scanned::default() })
    }
    fn nothing_in(&self, dir: &Path) -> String {
        format!("no session in {}: Crush lists no project there whose database (.crush/crush.db) exists", dir.display())
    }
    /// Its default folder holds everything.
    fn found_in(&self, _cwds: &[&str]) -> Vec<PathBuf> {
        Vec::new()
    }
    fn synced_dir(&self, archive: &Path) -> Option<PathBuf> {
        Some(archive.parent()?.join("crush"))
    }
    /// Each project's database, in the archive's folder by its path.
    fn kept_databases(&self, dir: &Path, to: &Path) -> Option<Vec<(PathBuf, PathBuf)>> {
        let places = discover::places(dir);
        Some(places.into_iter().map(|p| (p.db, to.join(discover::escape(&p.cwd)).join(discover::DB))).collect())
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
    /// Crush keeps no prompt log apart from its database.
    fn prompt_logs(&self, _roots: &[&Path], _projects: &[&ProjectSource]) -> Vec<crate::agent::prompts::Log> {
        Vec::new()
    }
    fn read_prompts(&self, log: &crate::agent::prompts::Log) -> anyhow::Result<crate::agent::prompts::Prompts> {
        anyhow::bail!("{}: cctree reads no prompt log of Crush", log.path.display())
    }
    /// Crush deletes no session by itself that cctree knows the clock of.
    fn cleanup_warning(&self, _folder: &Path, _archive: Option<&Path>, _command: &str, _now_ms: i64) -> Option<String> {
        None
    }
    /// None: Crush cannot resume a fork ([`fork`]).
    fn checkpoints(&self) -> crate::project::Checkpoints {
        crate::project::Checkpoints::None
    }
    /// A Crush session's or message's id, only to say what Crush offers
    /// instead of a fork.
    fn find(
        &self,
        target: &str,
        projects: Option<&Path>,
        _by: crate::agent::fork::Lookup,
    ) -> anyhow::Result<Option<Box<dyn crate::agent::fork::Target>>> {
        fork::find(target, projects)
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

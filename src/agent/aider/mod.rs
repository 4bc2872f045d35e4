//! Aider (transcript-format, Appendix J): a Markdown chat history,
//! `.aider.chat.history.md` at the root of the repository it ran in, many
//! runs in one file (a `# aider chat started at <time>` heading each), no
//! per-message time, no session id; `.aider.input.history` beside it with
//! every line typed and its time.
//!
//! The file is not lines: [`lines`] writes its blocks ([`markdown`], read
//! as the client reads it back) as JSON lines, which the project reads like
//! any file ([`AsLines`]). Then [`header`] reads each line's header,
//! [`link`] the chains (a run a session; a restored run the resume of the
//! one before; `/clear` a cut), [`content`] what a shown message says.
//! [`discover`] finds the histories (a folder given, a file given, or the
//! other agents' working directories), [`fork`] writes a new history the
//! client restores, [`check`] its invariants, [`sync`] what sync keeps,
//! [`logs`] the input history as a prompt log.

mod check;
mod content;
pub mod discover;
mod fork;
mod header;
mod lines;
mod link;
mod logs;
mod markdown;
mod sync;

use std::path::{Path, PathBuf};

use crate::agent::{Agent, Aider, Claim, Scanned};
use crate::model::{AsLines, Entries, Entry, FileClass, Loc, Node, ProjectSource, Raw, Read, Reader};
use crate::texts::LineError;

impl Reader for Aider {
    fn name(&self) -> &'static str {
        "aider"
    }
    fn label(&self) -> &'static str {
        "Aider"
    }
    fn product(&self) -> &'static str {
        "Aider"
    }
    fn resume_command(&self) -> &'static str {
        "aider --restore-chat-history --chat-history-file"
    }
    fn is_document(&self, _rel: &str) -> bool {
        false
    }
    /// Every file of Aider's is Markdown, read as the lines [`lines`] makes.
    fn as_lines(&self, _rel: &str) -> Option<&'static dyn AsLines> {
        Some(&lines::LINES as &dyn AsLines)
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
    /// A message id names the run and place; `cctree fork` finds the file
    /// holding it.
    fn fork_by(&self) -> crate::model::ForkBy {
        crate::model::ForkBy::Message
    }
    fn as_typed<'t>(&self, excerpt: &'t str) -> std::borrow::Cow<'t, str> {
        std::borrow::Cow::Borrowed(excerpt)
    }
}

impl Agent for Aider {
    /// None: Aider writes into the repository it runs in
    /// ([`Agent::found_in`] finds those).
    fn default_dir(&self) -> Option<PathBuf> {
        None
    }
    fn default_hint(&self) -> &'static str {
        "it writes .aider.chat.history.md at the root of the repository it runs in: pass that folder, or it is looked for in the working directories of the other agents' projects"
    }
    fn home_env(&self) -> &'static [&'static str] {
        &[]
    }
    fn claims(&self, dir: &Path) -> Claim {
        discover::claim(dir).map_or(Claim::No, Claim::Yes)
    }
    /// A chat history by its name, or any Markdown file that starts with a run heading.
    fn claims_file(&self, path: &Path) -> Claim {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let md = path.extension().is_some_and(|e| e == "md");
        match discover::is_history(path, name) || (md && markdown::starts_with_heading(path)) {
            true => Claim::Yes(path.to_path_buf()),
            false => Claim::No,
        }
    }
    fn classify_loose(&self, _rel: &str) -> (FileClass, Option<String>) {
        (FileClass::Main, None)
    }
    fn scan(&self, dir: &Path) -> anyhow::Result<Scanned> {
        let projects = discover::scan(dir);
        let nothing = projects.is_empty();
        let mut inputs = vec![dir.to_path_buf()];
        inputs.extend(projects.iter().map(|p| p.dir.clone()).filter(|d| !d.starts_with(dir)));
        Ok(Scanned { root: dir.to_path_buf(), projects, inputs, nothing, ..Scanned::default() })
    }
    fn nothing_in(&self, dir: &Path) -> String {
        format!("no chat history in {}: Aider wrote no .aider.chat.history.md there", dir.display())
    }
    fn found_in(&self, cwds: &[&str]) -> Vec<PathBuf> {
        discover::found_in(cwds)
    }
    fn synced_dir(&self, archive: &Path) -> Option<PathBuf> {
        sync::synced_dir(archive)
    }
    /// Files, mirrored as trees.
    fn kept_databases(&self, _dir: &Path, _to: &Path) -> Option<Vec<(PathBuf, PathBuf)>> {
        None
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
    /// `.aider.input.history` beside each project's chat history.
    fn prompt_logs(&self, _roots: &[&Path], projects: &[&ProjectSource]) -> Vec<crate::agent::prompts::Log> {
        logs::prompt_logs(projects)
    }
    fn read_prompts(&self, log: &crate::agent::prompts::Log) -> anyhow::Result<crate::agent::prompts::Prompts> {
        logs::read(log)
    }
    /// Aider deletes nothing by itself.
    fn cleanup_warning(&self, _folder: &Path, _archive: Option<&Path>, _command: &str, _now_ms: i64) -> Option<String> {
        None
    }
    /// Every reply.
    fn checkpoints(&self) -> crate::project::Checkpoints {
        crate::project::Checkpoints::Nodes(fork::legal_nodes)
    }
    /// A chat history file, or a message or run id in the histories of
    /// `--projects`, else of the current directory's repository.
    fn find(
        &self,
        target: &str,
        projects: Option<&Path>,
        _by: crate::agent::fork::Lookup,
    ) -> anyhow::Result<Option<Box<dyn crate::agent::fork::Target>>> {
        let file = fork::find(target, projects)?;
        let at = (!Path::new(target).is_file()).then(|| target.to_string());
        Ok(file.map(|f| Box::new(Found(f, at)) as Box<dyn crate::agent::fork::Target>))
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

/// A chat history `cctree fork` found, and the id TARGET named in it.
struct Found(PathBuf, Option<String>);

impl crate::agent::fork::Target for Found {
    fn describe(&self) -> String {
        format!("an Aider chat history ({})", self.0.display())
    }
    fn fork(self: Box<Self>, req: &crate::agent::fork::ForkRequest) -> anyhow::Result<crate::agent::fork::Fork> {
        // `--at`, else the message id TARGET named (a run id: the file's last reply).
        let at = req.at.clone().or_else(|| self.1.clone().filter(|t| t.contains('+')));
        let f = fork::fork(&self.0, at.as_deref(), req.dry_run)?;
        Ok(crate::agent::fork::Fork::of(f.text(), &f))
    }
}

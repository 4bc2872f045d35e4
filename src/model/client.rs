//! Which agent wrote a file ([`Client`]), and the half of an agent every
//! stage below the agents reads through ([`Reader`]): its names, how one of
//! its lines becomes a neutral header, how its files' headers are linked
//! into parents, and what an entry says when a page shows it.
//!
//! A `Client` is a handle to an agent's reader, made only by the agents'
//! registration (`crate::agent`, one line per agent). Stages below the
//! agents (parse, the loaded project, render) hold it and call its reader;
//! nothing matches on which agent it is. The other half of an agent
//! (`crate::agent::Agent`: its folders, forks, checks, what sync keeps)
//! stands above them.
//!
//! What an agent's discovery found of a project, whichever agent's it is,
//! is here too, for the handle and the reader meet in it: its files
//! ([`SourceFile`], classified by how they take part in the graph,
//! [`FileClass`]), sidecars, spilled outputs and the facts the agent's
//! layout gives ([`ProjectSource`]). Each agent's discovery fills it
//! (`crate::agent`); nothing here reads a file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::entry::{Entries, Entry, Loc};
use super::source::{FileClass, FileId};
use super::{Node, Raw};
use crate::id::IdVec;
use crate::json::pick::Want;
use crate::texts::LineError;

/// What a reader may read of a loaded project beside an entry's header:
/// the entry's own line, and the project's side files. Never the project
/// itself: bytes go down to the reader, nothing climbs back.
pub trait Lines {
    /// The entry's line read as a tree, as the client reads it ([`crate::json::parse`]).
    fn json(&self, e: &Entry) -> Result<Value, LineError>;
    /// The parts of the entry's line that `want` names, the rest skipped
    /// ([`crate::json::pick`]).
    fn json_only(&self, e: &Entry, want: &Want) -> Result<Value, LineError>;
    /// A side file of the project by its key (Claude Code's
    /// `<session>/tool-results/<name>`): its path and the text of its first
    /// `cap` bytes, `None` when there is none or it cannot be read.
    fn side_file(&self, key: &str, cap: usize) -> Option<(&Path, String)>;
}

/// One entry to read into the model: its header, what may be read of its
/// project, and the name of the tool call its one tool result answers (the
/// graph knows it; a reader may read a result by its tool).
#[derive(Clone, Copy)]
pub struct Read<'a> {
    pub entry: &'a Entry,
    pub lines: &'a dyn Lines,
    pub call: Option<&'a str>,
}

/// How an agent reads a file of its own that is not lines (a database):
/// as JSON lines it writes of it into a temporary file, which the project
/// then reads like any file of lines (parsed in windows, its lines read
/// again by offset: memory follows what is rendered, not the file's size).
/// Lines that name what they are, so an archive of them reads the same.
pub trait AsLines: Sync + Send {
    /// The files whose state the lines are made of (a database and its
    /// write-ahead log): what a cache stamps to know they are unchanged.
    fn sources(&self, path: &Path, rel: &str) -> Vec<PathBuf>;
    /// The lines of the file `rel` (relative to its project) at `path`, one
    /// consistent snapshot, in an unnamed temporary file (removed when
    /// closed); never a byte written beside `path`.
    fn lines(&self, path: &Path, rel: &str) -> std::io::Result<std::fs::File>;
}

/// The reading half of an agent (see the module documentation). Every
/// method is required: an agent that has nothing to do for one says so in
/// its implementation.
pub trait Reader: Sync + Send + 'static {
    /// Its name on the command line and in the site (`claude`, `codex`, …).
    fn name(&self) -> &'static str;
    /// How a page names its replies (`Claude`, `Codex`, …).
    fn label(&self) -> &'static str;
    /// The product's name (`Claude Code`, `Codex CLI`, …).
    fn product(&self) -> &'static str;
    /// The command that resumes a session (its id follows).
    fn resume_command(&self) -> &'static str;
    /// Whether the file at `rel` (relative to its project) is one JSON
    /// document rather than JSON lines.
    fn is_document(&self, rel: &str) -> bool;
    /// How the file at `rel` is read when it is not lines (a database,
    /// [`AsLines`]); `None` for lines or one document.
    fn as_lines(&self, rel: &str) -> Option<&'static dyn AsLines>;
    /// The header of one line (valid UTF-8, no newline) at `loc`, `offset`.
    fn header(&self, line: &str, loc: Loc, offset: u64) -> Result<Entry, serde_json::Error>;
    /// Derives what the lines do not write themselves (parents, sessions,
    /// continuations) over the headers of the whole project, once they are
    /// all read.
    fn link(&self, source: &ProjectSource, entries: &mut Entries);
    /// What the entry says, read from its line; when the line cannot be
    /// read again, what an empty line says, and why.
    fn node<'a>(&self, read: Read<'a>) -> (Node<'a>, Option<LineError>);
    /// The whole entry as the client wrote it (for a view of all of it).
    fn record<'a>(&self, read: Read<'a>) -> Result<Raw<'a>, LineError>;
    /// Which id the `cctree fork` command of a message names as its
    /// session ([`fork_command`]).
    fn fork_by(&self) -> ForkBy;
    /// An entry's excerpt ([`Entry::excerpt`]) as a person typed it: the
    /// marks the client writes around a command taken off (Claude Code's
    /// `<command-name>` tags read `/name args`).
    fn as_typed<'t>(&self, excerpt: &'t str) -> std::borrow::Cow<'t, str>;
}

/// Which id names the session of a `cctree fork` command a page shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForkBy {
    /// The session's id (a message id names no file).
    Session,
    /// The message's own id (it names the file holding it).
    Message,
}

/// The `cctree fork` command that forks session `session_id` at message `at`
/// (for the site's copy buttons): it names no directory (`cctree fork` finds
/// the session by id), except `--projects` (already quoted, see
/// `crate::fork::lookup::projects_arg`) on a site rendered with
/// `--show-paths` from another directory than the default one.
/// Ids come from transcripts: the checkpoint is glued to its option
/// (`--at=…`) and the session follows `--`, so an id starting with `-` is
/// never read as an option.
pub fn fork_command(session_id: &str, at: &str, projects: Option<&str>) -> String {
    let q = crate::term::shell_quote;
    let mut cmd = format!("cctree fork --at={}", q(at));
    if let Some(dir) = projects {
        cmd.push_str(" --projects ");
        cmd.push_str(dir);
    }
    cmd.push_str(" -- ");
    cmd.push_str(&q(session_id));
    cmd
}

/// An agent, as the stages below the agents know it (see the module
/// documentation). Compared, ordered and hashed by its place in the
/// registration.
#[derive(Clone, Copy)]
pub struct Client {
    index: u8,
    reader: &'static dyn Reader,
}

impl Client {
    /// The agent registered `index`-th with `reader`. Only the registration
    /// (`crate::agent`) makes one.
    #[doc(hidden)]
    pub const fn registered(index: u8, reader: &'static dyn Reader) -> Client {
        Client { index, reader }
    }

    /// Its place in the registration.
    pub fn index(self) -> usize {
        usize::from(self.index)
    }

    /// Its reader.
    pub fn reader(self) -> &'static dyn Reader {
        self.reader
    }

    pub fn name(self) -> &'static str {
        self.reader.name()
    }

    /// The name of its project of working directory `cwd`: its name, then
    /// the directory as Claude Code encodes it (every character but ASCII
    /// letters and digits a `-`).
    pub fn project_name(self, cwd: &str) -> String {
        let enc: String = cwd.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
        format!("{}{enc}", self.name())
    }

    pub fn label(self) -> &'static str {
        self.reader.label()
    }

    pub fn product(self) -> &'static str {
        self.reader.product()
    }

    pub fn resume_command(self) -> &'static str {
        self.reader.resume_command()
    }

    pub fn is_document(self, rel: &str) -> bool {
        self.reader.is_document(rel)
    }

    pub fn as_lines(self, rel: &str) -> Option<&'static dyn AsLines> {
        self.reader.as_lines(rel)
    }
}

impl PartialEq for Client {
    fn eq(&self, other: &Client) -> bool {
        self.index == other.index
    }
}

impl Eq for Client {}

impl PartialOrd for Client {
    fn partial_cmp(&self, other: &Client) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Client {
    fn cmp(&self, other: &Client) -> std::cmp::Ordering {
        self.index.cmp(&other.index)
    }
}

impl std::hash::Hash for Client {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.index.hash(h);
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for Client {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

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

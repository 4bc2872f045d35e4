//! The agents cctree reads, each one folder (`src/agent/<name>/`) and one
//! line of the registration below.
//!
//! An agent is everything cctree knows of one client: where its files are
//! (default folders, environment variables, its place in the sync
//! archive), how a line or record of them becomes a neutral header
//! ([`crate::model::Entry`]) and, when a page shows it, a model node
//! ([`crate::model::Node`]), how its sessions link, which checkpoints a fork
//! may cut at and how a fork is written, its invariants (`cctree check`),
//! and what `sync` keeps of it. Two traits name these, and every method is
//! required, so the compiler holds each agent to all of them: the reading
//! half, [`Reader`] (in the model, for the stages below the agents: parse,
//! the loaded project, render), and [`Agent`] (everything else, for the
//! stages above). An agent that cannot do one says so in its implementation.
//!
//! Nothing outside an agent's folder asks which agent a file is: it calls
//! the agent's handle ([`Client`]) or [`of`]. The registration gives each
//! agent its unit type (`Claude`, …), its handle (`CLAUDE`, …) and its place
//! in [`ALL`] (the order agents are tried in and listed by). The folders
//! import this module; this module imports none of them (the impls are
//! found wherever they are), so no import climbs back.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::model::{Client, ProjectSource, Reader};
use crate::project::Checkpoints;

pub mod check;
pub mod fork;
pub mod keep;
pub mod prompts;

pub mod aider;
pub mod claude;
pub mod codex;
pub mod copilot;
pub mod crush;
pub mod gemini;
pub mod opencode;
pub mod pi;
pub mod qwen;

/// The registration: one line per agent, `HANDLE: Type`, in the order they
/// are listed (the archive index) and tried.
macro_rules! agents {
    ($($handle:ident: $ty:ident),* $(,)?) => {
        $(
            #[doc = concat!("The agent `", stringify!($ty), "` (its folder implements it).")]
            #[derive(Debug, Clone, Copy)]
            pub struct $ty;
        )*
        agents!(@handles 0u8; $($handle: $ty),*);
        /// Every agent, in the order of the registration.
        pub const ALL: &[Client] = &[$($handle),*];
        /// The whole of each agent, by its place in the registration.
        static AGENTS: &[&dyn Agent] = &[$(&$ty),*];
    };
    (@handles $n:expr; $handle:ident: $ty:ident $(, $rh:ident: $rt:ident)*) => {
        #[doc = concat!("The handle of [`", stringify!($ty), "`].")]
        pub const $handle: Client = Client::registered($n, &$ty);
        agents!(@handles $n + 1; $($rh: $rt),*);
    };
    (@handles $n:expr;) => {};
}

agents! {
    CLAUDE: Claude,
    CODEX: Codex,
    // Before Gemini CLI: a Qwen Code project folder has a `chats/` too.
    QWEN: Qwen,
    GEMINI: Gemini,
    COPILOT: Copilot,
    OPENCODE: OpenCode,
    CRUSH: Crush,
    PI: Pi,
    AIDER: Aider,
}

/// The whole of the agent `client`.
pub fn of(client: Client) -> &'static dyn Agent {
    AGENTS[client.index()]
}

/// The agent named `name` on the command line (`claude`, `codex`, …).
pub fn by_name(name: &str) -> Option<Client> {
    ALL.iter().copied().find(|c| c.name().eq_ignore_ascii_case(name.trim()))
}

/// The names of every agent, for messages (`claude, codex or gemini`).
pub fn names() -> String {
    let names: Vec<&str> = ALL.iter().map(|c| c.name()).collect();
    match names.split_last() {
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The name of the project of working directory `cwd` for the agent
/// `client`: the agent's name, then the directory as Claude Code encodes it
/// (every character but ASCII letters and digits a `-`).
pub fn project_name(client: Client, cwd: &str) -> String {
    client.project_name(cwd)
}

/// How much of a path an agent claims as its folder or file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// Not the agent's.
    No,
    /// The agent's: its folder is this one (a folder it is or holds).
    Yes(PathBuf),
    /// Read by this agent when no other claims it (one agent does: the
    /// registration's test says so).
    Otherwise,
}

/// What an agent read of a folder given as input.
#[derive(Debug, Default)]
pub struct Scanned {
    /// The folder its projects are read from (the archive's root).
    pub root: PathBuf,
    pub projects: Vec<ProjectSource>,
    /// Problems met outside any project.
    pub warnings: Vec<String>,
    /// The directories read whole (nothing may be written inside them).
    pub inputs: Vec<PathBuf>,
    /// What the user should know of how the input was read.
    pub notes: Vec<String>,
    /// Transcripts lying loose in the folder, each with the warning that
    /// says so: read as a project of their own, named after `root`.
    pub loose: Vec<(PathBuf, String)>,
    /// The folder held nothing to read, and nothing that kept it empty was
    /// met (a folder that is not the agent's, or a mistyped path).
    pub nothing: bool,
}

/// The whole of an agent, beyond reading (see the module documentation).
pub trait Agent: Reader {
    /// Its default folder (which may not exist), as the client finds it
    /// (its environment variables, else the home directory).
    fn default_dir(&self) -> Option<PathBuf>;
    /// Why its default folder is where it is, for a message naming it.
    fn default_hint(&self) -> &'static str;
    /// The environment variables of its own (read by no other agent) that
    /// move its default folder ([`Agent::default_dir`]), the first set
    /// winning; empty when it has only the home directory or variables
    /// others share (`XDG_DATA_HOME`). The test suite points each at
    /// nothing, so that no machine's folders take part in a test.
    fn home_env(&self) -> &'static [&'static str];
    /// Whether the folder `dir` is (or holds) the agent's folder.
    fn claims(&self, dir: &Path) -> Claim;
    /// Whether the file `path`, given alone, is one of the agent's.
    fn claims_file(&self, path: &Path) -> Claim;
    /// The class of a file given alone, named `rel` (its file name).
    fn classify_loose(&self, rel: &str) -> (crate::model::FileClass, Option<String>);
    /// Reads the folder `dir` it claimed: its projects, each file classified.
    fn scan(&self, dir: &Path) -> Result<Scanned>;
    /// Why a folder of the agent's holds nothing to read.
    fn nothing_in(&self, dir: &Path) -> String;
    /// The agent's folders found in the working directories `cwds` of the
    /// projects of the other agents' default folders, read with them when
    /// no input is given (and kept by a sync of the default folders): for a
    /// client that writes into the repository it runs in rather than a
    /// folder of its own (Aider). Empty for an agent whose default folder
    /// holds everything.
    fn found_in(&self, cwds: &[&str]) -> Vec<PathBuf>;
    /// Where the `cctree sync` archive `archive` keeps the agent's folder
    /// (for Claude Code, the archive itself).
    fn synced_dir(&self, archive: &Path) -> Option<PathBuf>;
    /// When the agent keeps its sessions in databases: each database of
    /// its folder `dir` and where its copy lies in the agent's folder `to`
    /// of the sync archive ([`Agent::synced_dir`]); `cctree sync` merges
    /// each into its copy row by row, keeping every row the client deleted
    /// ([`crate::sqlite::merge`]). `None`: the agent keeps files, mirrored
    /// as trees. Also what a default sync reads: the agent's default folder.
    fn kept_databases(&self, dir: &Path, to: &Path) -> Option<Vec<(PathBuf, PathBuf)>>;

    // What `cctree sync` keeps.
    /// The trees (and single files) of the sync archive that keep the
    /// agent's files, by the names the archive's record gives them, in the
    /// order it lists them: names no other agent uses (the registration's
    /// test checks it), never renamed (existing archives' records name
    /// their files by them).
    fn kept_trees(&self) -> &'static [keep::Tree];
    /// What a sync of the agent's folder `dir` (as [`Agent::claims`] gave
    /// it, or its default folder) into the archive `archive` keeps: the
    /// trees mirrored from it and where, which of their files, how a file
    /// rewritten at the source is kept, the single files merged beside
    /// them. An error says why `dir` cannot be kept.
    fn keep(&self, dir: &Path, archive: &Path) -> Result<keep::Kept>;
    /// Where the sync archive's record names the files of project `p` (read
    /// from the archive): which of them the source deleted, or moved. One
    /// place per tree that keeps files of the project; none when the agent
    /// keeps no file tree.
    fn kept_at(&self, p: &ProjectSource) -> Vec<keep::At>;

    // The prompt log: the prompts of sessions whose transcript is gone.
    /// The prompt logs a render reads with the agent's folders `roots` (as
    /// its scan read them: [`Scanned::root`]) and its projects `projects`:
    /// files the client keeps the prompts typed in, which outlive its
    /// transcripts. Empty when the client keeps none (or cctree reads none
    /// of it yet: say so in the implementation).
    fn prompt_logs(&self, roots: &[&Path], projects: &[&ProjectSource]) -> Vec<prompts::Log>;
    /// Reads the prompt log `log` (one of [`Agent::prompt_logs`]'): its
    /// prompts by project, how pages name it; a line that cannot be read is
    /// a warning naming `file:line`. Fails only when the file cannot be
    /// read at all.
    fn read_prompts(&self, log: &prompts::Log) -> Result<prompts::Prompts>;

    // The client's own clean-up.
    /// What the client's own clean-up deletes next that the sync archive
    /// `archive` does not hold yet, when `folder` (an input, or a sync's
    /// source) is the client's default folder: a warning naming `command`,
    /// the one that keeps it, at the time `now_ms`. `None` when nothing is
    /// at risk, or the client has no clean-up cctree knows the clock of.
    fn cleanup_warning(&self, folder: &Path, archive: Option<&Path>, command: &str, now_ms: i64) -> Option<String>;

    // Forks.
    /// Which checkpoints of a loaded project a fork may cut at (the pages
    /// offer the `cctree fork` command at those).
    fn checkpoints(&self) -> Checkpoints;
    /// The session TARGET names among the agent's folders (`projects`, else
    /// its default folder and its copy in the sync archive: [`trees_of`]),
    /// looked up as `by` says; `None` when it names none. An error is a
    /// folder that cannot be read, or (for a message id) where it looked.
    fn find(&self, target: &str, projects: Option<&Path>, by: fork::Lookup) -> Result<Option<Box<dyn fork::Target>>>;

    // Checks (`cctree check`).
    /// The kinds of finding of the agent's own invariants, in the order they
    /// are explained.
    fn checks(&self) -> &'static [&'static str];
    /// Checks the agent's own invariants of a loaded project (beyond those of
    /// every project: P1–P3, cycles, unreadable lines).
    fn check(&self, p: &crate::project::Project, out: &mut Vec<check::Finding>);
    /// Pairs `(the agent's kind, a general kind)`: where both are found at
    /// one line, the agent's says it better and stands alone.
    fn supersedes(&self) -> &'static [(&'static str, &'static str)];
}

/// The folder where the `cctree sync` archive keeps the agent's sessions,
/// when a sync made the archive ([`Agent::synced_dir`]).
pub fn synced_dir_of(client: Client) -> Option<PathBuf> {
    of(client).synced_dir(&crate::layout::existing_archive()?)
}

/// Whether `file` lies in the copy a `cctree sync` archive keeps of
/// `client`'s folder: the default archive's, or that of an archive kept
/// elsewhere (`sync --to DIR` keeps the folders of Codex and Gemini beside
/// DIR, so DIR is a folder beside one of the file's). A fork of such a file
/// goes into the client's own folder, never into the archive.
pub fn in_synced_archive(client: Client, file: &Path) -> bool {
    use crate::layout::{RECORD_FILE, STATE_DIR};
    let Ok(file) = std::fs::canonicalize(file) else { return false };
    let beside = file
        .ancestors()
        .skip(1)
        .take(8)
        .flat_map(|up| std::fs::read_dir(up).into_iter().flatten().flatten().map(|e| e.path()))
        .filter(|d| d.join(STATE_DIR).join(RECORD_FILE).is_file());
    crate::layout::existing_archive()
        .into_iter()
        .chain(beside)
        .filter_map(|archive| of(client).synced_dir(&archive))
        .filter_map(|d| std::fs::canonicalize(d).ok())
        .any(|d| file.starts_with(d))
}

/// Where `cctree fork` looks an id of the agent up: its folder that
/// `projects` is or holds (`--projects DIR`), else its default folder and
/// its copy in the `cctree sync` archive, those that exist.
pub fn trees_of(client: Client, projects: Option<&Path>) -> Vec<PathBuf> {
    let a = of(client);
    match projects {
        Some(d) => match a.claims(d) {
            Claim::Yes(folder) => vec![folder],
            Claim::Otherwise => vec![d.to_path_buf()],
            Claim::No => Vec::new(),
        },
        None => [a.default_dir(), synced_dir_of(client)].into_iter().flatten().filter(|d| d.is_dir()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registration_hands_out_each_agent_once_in_order() {
        for (i, c) in ALL.iter().enumerate() {
            assert_eq!(c.index(), i);
            assert_eq!(of(*c).name(), c.name(), "the handle and the agent of place {i} agree");
            assert_eq!(by_name(&c.name().to_uppercase()), Some(*c));
        }
        let mut names: Vec<&str> = ALL.iter().map(|c| c.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ALL.len(), "names are unique");
        let tmp = tempfile::tempdir().unwrap();
        let fallback = ALL.iter().filter(|c| of(**c).claims(tmp.path()) == Claim::Otherwise).count();
        assert_eq!(fallback, 1, "exactly one agent reads a folder no other claims");
    }
}

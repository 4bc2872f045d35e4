//! Discover stage: an input path → the projects and files to read.
//!
//! The input is a projects directory (`~/.claude/projects`), a single project
//! directory, or a list of JSONL files ([`is_project_dir`] tells the first two
//! apart, also when a stray transcript lies in the projects directory). Files
//! are classified by their path (transcript-format §1.5) and sorted, so what
//! follows never depends on the order the file system lists them in.
//! Symbolic links are followed once per real directory or file (by device and
//! inode, [`scan_project`]): neither loops nor many links to one directory
//! multiply the work. Nothing is read here beyond directory listings and
//! `.meta.json` sidecars. What cannot be listed is a warning naming it
//! ([`Archive::warnings`], [`ProjectSource::warnings`]), never silently left out.
//!
//! An archive kept by `cctree sync` has the same layout, plus the previous
//! versions of files that were rewritten at the source, named
//! `<stem>.cctree-kept-<hash>.<ext>` beside the live file ([`kept_name`]).
//! A kept version is classified by its live name (so `agent-x.cctree-kept-….jsonl`
//! is still agent `x`) and flagged [`SourceFile::kept_version`], so that the
//! live file wins where the newest version should (titles, canonical copies).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rustc_hash::FxHashSet;

use crate::id::{IdVec, typed_id};
use crate::layout::split_kept;
use crate::term::safe;
use crate::walk::{LinkRule, Walk, key, refused_target, special_kind, special_warning, walk};

mod codex;
mod gemini;

pub use codex::{codex_meta_thread, default_codex_dir, is_codex_dir, is_rollout};
pub use gemini::{default_gemini_dir, is_gemini_dir};

/// Which coding agent wrote a transcript file: each has its own reader
/// ([`crate::adapter`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize, serde::Deserialize)]
pub enum Client {
    /// Claude Code: `~/.claude/projects/<project>/*.jsonl`.
    #[default]
    Claude,
    /// Codex CLI: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`.
    Codex,
    /// Gemini CLI: `~/.gemini/tmp/<project>/chats/session-*.jsonl`.
    Gemini,
}

impl Client {
    pub const ALL: [Client; 3] = [Client::Claude, Client::Codex, Client::Gemini];

    /// Its name on the command line and in the site (`claude`, `codex`, `gemini`).
    pub fn name(self) -> &'static str {
        match self {
            Client::Claude => "claude",
            Client::Codex => "codex",
            Client::Gemini => "gemini",
        }
    }

    /// How a page names its replies.
    pub fn label(self) -> &'static str {
        match self {
            Client::Claude => "Claude",
            Client::Codex => "Codex",
            Client::Gemini => "Gemini",
        }
    }

    /// The command that resumes a session (its id follows).
    pub fn resume_command(self) -> &'static str {
        match self {
            Client::Claude => "claude -r",
            Client::Codex => "codex resume",
            Client::Gemini => "gemini -r",
        }
    }

    /// The product's name (`Claude Code`, `Codex CLI`, `Gemini CLI`).
    pub fn product(self) -> &'static str {
        match self {
            Client::Claude => "Claude Code",
            Client::Codex => "Codex CLI",
            Client::Gemini => "Gemini CLI",
        }
    }

    pub fn from_name(name: &str) -> Option<Client> {
        Client::ALL.into_iter().find(|c| c.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// How a transcript file takes part in the graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum FileClass {
    /// `<session>.jsonl` at the top of a project.
    #[default]
    Main,
    /// `agent-*.jsonl` at the top of a project (2.0.57–2.1.1).
    LegacyAgent,
    /// `<session>/subagents/**/agent-*.jsonl`.
    Subagent,
    /// `agent-acompact-*` / `agent-aside_question-*`: side agents that copy main entries.
    SideAgent,
    /// Any other `*.jsonl` found in the project (read like a main file).
    Other,
}

impl FileClass {
    pub fn is_agent(self) -> bool {
        matches!(self, FileClass::LegacyAgent | FileClass::Subagent | FileClass::SideAgent)
    }
    pub fn name(self) -> &'static str {
        match self {
            FileClass::Main => "main",
            FileClass::LegacyAgent => "legacy-agent",
            FileClass::Subagent => "subagent",
            FileClass::SideAgent => "side-agent",
            FileClass::Other => "other",
        }
    }
}

typed_id!(
    /// A transcript file's place in its project ([`ProjectSource::files`]).
    pub FileId
);

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
    /// `cctree sync` under [`kept_name`].
    pub kept_version: bool,
    /// The client that wrote it.
    pub client: Client,
}

impl SourceFile {
    /// One JSON document, not JSON lines: a Gemini CLI session of older
    /// versions (`chats/session-*.json`, [`crate::parse::parse_document`]).
    pub fn is_document(&self) -> bool {
        self.client == Client::Gemini && self.rel.ends_with(".json")
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

/// What the input turned out to be.
#[derive(Debug, Clone)]
pub struct Archive {
    pub root: PathBuf,
    pub projects: Vec<ProjectSource>,
    /// Problems met outside any project: a project directory that cannot be
    /// read, a transcript lying directly in the projects directory, a broken link.
    pub warnings: Vec<String>,
    /// Everything read: each directory read whole (a projects directory, a
    /// project directory, also one reached through a link) and each file
    /// given on its own. Nothing may be written inside them.
    pub inputs: Vec<PathBuf>,
    /// What the user should know about how the input was read (not a
    /// problem): Claude Code's configuration directory read for its `projects/`.
    pub notes: Vec<String>,
}

/// The default projects directory: `$CLAUDE_CONFIG_DIR/projects`, else
/// `~/.claude/projects` (the home directory as `etcetera` finds it: `HOME`,
/// else the system's record of the user). `None` only without either.
pub fn default_projects_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir).join("projects"));
    }
    etcetera::home_dir().ok().map(|h| h.join(".claude").join("projects"))
}

/// Resolves the inputs given on the command line (none: the default
/// directory). An input that holds no transcript is an error (an empty or
/// mistyped path renders nothing, and says so), unless it is an archive of
/// `cctree sync`, which may be empty yet.
pub fn discover(inputs: &[PathBuf]) -> Result<Archive> {
    if inputs.is_empty() {
        return discover(&default_inputs(&Client::ALL)?);
    }
    let mut loose: BTreeMap<(PathBuf, Client), Vec<PathBuf>> = BTreeMap::new();
    let mut projects = Vec::new();
    let mut warnings = Vec::new();
    let mut read = Vec::new();
    let mut notes = Vec::new();
    let mut root = inputs[0].clone();
    for input in inputs {
        let meta = std::fs::metadata(input)
            .with_context(|| format!("cannot read input {}: check the path exists and is readable", input.display()))?;
        if meta.is_file() {
            let parent = input.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."));
            loose.entry((parent, loose_client(input))).or_default().push(input.clone());
            read.push(input.clone());
            continue;
        }
        if let Some((dir, found, warned)) = other_client(input)? {
            warnings.extend(warned);
            root = dir.clone();
            read.push(dir);
            projects.extend(found);
            continue;
        }
        let input = match config_projects(input) {
            Some(dir) => {
                notes.push(format!(
                    "{} is Claude Code's configuration directory: reading its projects directory, {}",
                    safe(input.display()),
                    safe(dir.display())
                ));
                dir
            }
            None => input.clone(),
        };
        root = input.clone();
        read.push(input.clone());
        if is_project_dir(&input) {
            projects.push(scan_project(&input)?);
            continue;
        }
        let listing = list_projects_dir(&input)?;
        let (found, warned) = (projects.len(), warnings.len() + listing.warnings.len());
        warnings.extend(listing.warnings);
        for dir in listing.projects {
            let project = scan_project(&dir)?;
            if project.files.is_empty() {
                // Nothing to read: what kept it empty (an unreadable directory) is still said.
                warnings.extend(project.warnings);
            } else {
                read.push(dir);
                projects.push(project);
            }
        }
        // A sync archive may be empty (begun, or its source still is): no typo.
        let archive = input.join(crate::layout::STATE_DIR).is_dir();
        if archive {
            kept_clients(&input, &mut projects, &mut warnings, &mut read);
        }
        if projects.len() == found && listing.stray.is_empty() && warnings.len() == warned && !archive {
            bail!(
                "no transcript (*.jsonl) in {}: give Claude Code's projects directory (~/.claude/projects), \
                 one project directory in it, or JSONL files",
                input.display()
            );
        }
        for file in listing.stray {
            warnings.push(format!(
                "{}: a transcript directly in the projects directory, outside any project directory: \
                 read as a project of its own, named `{}`",
                safe(file.display()),
                safe(dir_name(&input))
            ));
            loose.entry((input.clone(), Client::Claude)).or_default().push(file);
        }
    }
    projects.extend(loose.into_iter().map(|((dir, client), files)| loose_project(dir, client, files)));
    projects.sort_by(|a, b| (&a.dir, &a.name).cmp(&(&b.dir, &b.name)));
    Ok(Archive { root, projects, warnings, inputs: read, notes })
}

/// The other clients' folders `cctree sync` keeps beside the archive
/// `archive` (`codex/sessions`, `gemini/tmp`), read with it.
fn kept_clients(
    archive: &Path,
    projects: &mut Vec<ProjectSource>,
    warnings: &mut Vec<String>,
    read: &mut Vec<PathBuf>,
) {
    for client in [Client::Codex, Client::Gemini] {
        let Some(dir) = crate::sync::scan::client_archive(archive, client).filter(|d| d.is_dir()) else { continue };
        if let Ok(Some((dir, found, warned))) = other_client(&dir) {
            warnings.extend(warned);
            read.push(dir);
            projects.extend(found);
        }
    }
}

/// A folder of another client read whole: where, its projects, its warnings.
pub type ClientFolder = (PathBuf, Vec<ProjectSource>, Vec<String>);

/// Codex CLI's or Gemini CLI's folder, when `input` is one: the folder its
/// sessions are read from, its projects and the warnings met; an error when
/// it holds no session.
pub fn other_client(input: &Path) -> Result<Option<ClientFolder>> {
    let (client, dir) = match (is_codex_dir(input), is_gemini_dir(input)) {
        (Some(d), _) => (Client::Codex, d),
        (None, Some(d)) => (Client::Gemini, d),
        (None, None) => return Ok(None),
    };
    let (found, warned) = match client {
        Client::Codex => codex::scan(&dir),
        _ => gemini::scan(&dir),
    };
    if found.is_empty() && warned.is_empty() {
        bail!("no transcript in {}: {} wrote no session there yet", dir.display(), client.label());
    }
    Ok(Some((dir, found, warned)))
}

/// The client's default folder: Claude Code's projects directory, Codex
/// CLI's sessions tree, Gemini CLI's `tmp` folder (which may not exist).
pub fn default_dir(client: Client) -> Option<PathBuf> {
    match client {
        Client::Claude => default_projects_dir(),
        Client::Codex => default_codex_dir(),
        Client::Gemini => default_gemini_dir(),
    }
}

/// The folder where the `cctree sync` archive keeps the client's sessions,
/// when a sync made the archive: for Claude Code the archive itself, for
/// the others their folder beside it.
pub fn synced_client_dir(client: Client) -> Option<PathBuf> {
    let archive = crate::layout::existing_archive()?;
    match client {
        Client::Claude => Some(archive),
        _ => crate::sync::scan::client_archive(&archive, client),
    }
}

/// Where `cctree fork` looks an id of the client up: the client's folder
/// `projects` is or holds (`--projects DIR`), else the client's default
/// folder and its copy in the `cctree sync` archive, those that exist.
pub fn client_trees(client: Client, projects: Option<&Path>) -> Vec<PathBuf> {
    match (projects, client) {
        (Some(d), Client::Claude) => vec![d.to_path_buf()],
        (Some(d), Client::Codex) => is_codex_dir(d).into_iter().collect(),
        (Some(d), Client::Gemini) => is_gemini_dir(d).into_iter().collect(),
        (None, _) => {
            [default_dir(client), synced_client_dir(client)].into_iter().flatten().filter(|d| d.is_dir()).collect()
        }
    }
}

/// Every default input that exists: Claude Code's projects directory,
/// Codex CLI's sessions and Gemini CLI's `tmp` folder, of the `agents`
/// asked for; an error when none does.
pub fn default_inputs(agents: &[Client]) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for a in agents {
        if let Some(d) = default_dir(*a).filter(|d| d.is_dir()) {
            found.push(d);
        }
    }
    if found.is_empty() {
        if agents.contains(&Client::Claude) {
            return Ok(vec![default_input()?]);
        }
        let names: Vec<&str> = agents.iter().map(|a| a.name()).collect();
        bail!(
            "no input given, and no default folder of {} exists (~/.codex/sessions, ~/.gemini/tmp; CODEX_HOME and \
             GEMINI_CLI_HOME move them).\nPass a folder or JSONL files (`cctree render DIR`)",
            names.join(", ")
        );
    }
    Ok(found)
}

/// The transcripts given alone (or lying loose in a projects directory)
/// that sit in `dir`, as one project named after it.
fn loose_project(dir: PathBuf, client: Client, mut files: Vec<PathBuf>) -> ProjectSource {
    files.sort();
    files.dedup();
    let name = dir_name(&dir);
    let files = files
        .into_iter()
        .map(|path| {
            let rel = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let (class, agent_id_from_name) = classify(&rel);
            let kept_version = split_kept(&rel).is_some();
            SourceFile { path, rel, class, agent_id_from_name, kept_version, client }
        })
        .collect();
    ProjectSource { files, ..ProjectSource::empty(name, dir, client) }
}

/// The client of a transcript given alone, by its name and folder: Codex's
/// `rollout-*.jsonl`, a file of Gemini's `chats/`, else Claude Code's.
fn loose_client(path: &Path) -> Client {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if codex::is_rollout(&name) {
        return Client::Codex;
    }
    let in_chats = path.ancestors().skip(1).take(2).any(|d| d.file_name().is_some_and(|n| n == "chats"));
    if in_chats { Client::Gemini } else { Client::Claude }
}

/// The default input, `$CLAUDE_CONFIG_DIR/projects` or `~/.claude/projects`,
/// when it exists; else an error saying what to give instead (and the
/// bundled example, when run where it is: in a clone of the repository).
pub fn default_input() -> Result<PathBuf> {
    const EXAMPLE: &str = "examples/archive/projects";
    let example = match Path::new(EXAMPLE).is_dir() {
        true => format!(", or try the bundled example: `cctree render {EXAMPLE}`"),
        false => String::new(),
    };
    let Some(dir) = default_projects_dir() else {
        bail!(
            "no input given, and no default projects directory: CLAUDE_CONFIG_DIR is not set and no home \
             directory is known.\nPass a projects directory, a project directory or JSONL files (`cctree render DIR`){example}"
        );
    };
    if !dir.is_dir() {
        bail!(
            "no input given and the default projects directory {} does not exist (Claude Code writes its \
             transcripts there once it has run; CLAUDE_CONFIG_DIR moves it).\nPass a projects directory, a \
             project directory or JSONL files (`cctree render DIR`){example}",
            dir.display()
        );
    }
    Ok(dir)
}

/// `dir/projects`, when `dir` is Claude Code's configuration directory
/// (`~/.claude`, `$CLAUDE_CONFIG_DIR`) or a sync archive's parent: it holds
/// a `projects/` directory and no transcript of its own. Read as a projects
/// directory itself, every project would merge into one called `projects`.
pub fn config_projects(dir: &Path) -> Option<PathBuf> {
    let projects = dir.join("projects");
    if !projects.is_dir() {
        return None;
    }
    let own = std::fs::read_dir(dir).ok()?.flatten().any(|e| is_jsonl(&e.path()) && e.path().is_file());
    (!own).then_some(projects)
}

/// What a projects directory holds.
#[derive(Debug, Default)]
struct ProjectsListing {
    /// Project directories, sorted, each real directory once.
    projects: Vec<PathBuf>,
    /// `*.jsonl` files lying directly in it.
    stray: Vec<PathBuf>,
    warnings: Vec<String>,
}

/// Lists a projects directory: its subdirectories (a symbolic link to a
/// directory already listed is left out) and the transcripts lying loose in it.
fn list_projects_dir(dir: &Path) -> Result<ProjectsListing> {
    let mut out = ProjectsListing::default();
    let read = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list the projects directory {}: check that it is readable", dir.display()))?;
    let mut links = Vec::new();
    let mut seen = FxHashSet::default();
    for item in read {
        let entry = match item {
            Ok(e) => e,
            Err(e) => {
                out.warnings
                    .push(format!("cannot list all of {}: {e}; some projects may be missing", safe(dir.display())));
                continue;
            }
        };
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_symlink() => links.push(path),
            Ok(t) if t.is_dir() => {
                if let Ok(k) = std::fs::metadata(&path).map(|m| key(&m, &path)) {
                    seen.insert(k);
                }
                out.projects.push(path);
            }
            Ok(t) if t.is_file() && is_jsonl(&path) => out.stray.push(path),
            Ok(t) if !t.is_file() && !t.is_dir() && is_jsonl(&path) => {
                out.warnings.push(special_warning(&path, special_kind(&t)));
            }
            Ok(_) => {}
            Err(e) => out.warnings.push(format!("cannot read {}: {e}; skipped", safe(path.display()))),
        }
    }
    links.sort();
    for path in links {
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => {
                let target = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
                if let Some(why) = refused_target(&target, dir) {
                    out.warnings.push(format!(
                        "{} → {}: a symbolic link not followed: {why}",
                        safe(path.display()),
                        safe(target.display())
                    ));
                } else if seen.insert(key(&m, &path)) {
                    out.projects.push(path);
                } else {
                    tracing::debug!("{}: a link to a project directory already read", path.display());
                }
            }
            Ok(m) if m.is_file() && is_jsonl(&path) => out.stray.push(path),
            Ok(m) if !m.is_file() && is_jsonl(&path) => {
                out.warnings.push(special_warning(&path, special_kind(&m.file_type())))
            }
            Ok(_) => {}
            Err(e) => out.warnings.push(format!("{}: a broken symbolic link ({e}); skipped", safe(path.display()))),
        }
    }
    out.projects.sort();
    out.stray.sort();
    Ok(out)
}

/// The project directories of a projects directory, sorted, each real
/// directory once (see [`discover`]).
pub fn project_dirs(dir: &Path) -> Result<Vec<PathBuf>> {
    Ok(list_projects_dir(dir)?.projects)
}

fn is_jsonl(path: &Path) -> bool {
    path.extension().is_some_and(|x| x == "jsonl")
}

/// Whether `dir` is one project directory rather than a projects directory.
///
/// A project holds `*.jsonl` transcripts directly; a projects directory holds
/// project directories. A directory with both — a stray transcript dropped
/// into `~/.claude/projects` — is a projects directory when one of its
/// subdirectories holds `*.jsonl` files directly and is not a session
/// directory (`<session>/` beside `<session>.jsonl`, or named like a UUID,
/// whose transcripts sit deeper, under `subagents/`) nor `memory/`: read as
/// one project, it would merge every project into one.
pub fn is_project_dir(dir: &Path) -> bool {
    let Ok(read) = std::fs::read_dir(dir) else {
        return false;
    };
    let mut stems = FxHashSet::default();
    let mut subdirs = Vec::new();
    for entry in read.flatten() {
        let path = entry.path();
        let Ok(t) = entry.file_type() else { continue };
        let (is_file, is_dir) = if t.is_symlink() {
            std::fs::metadata(&path).map_or((false, false), |m| (m.is_file(), m.is_dir()))
        } else {
            (t.is_file(), t.is_dir())
        };
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_file {
            if let Some(stem) = name.strip_suffix(".jsonl") {
                stems.insert(stem.to_string());
            }
        } else if is_dir {
            subdirs.push((name, path));
        }
    }
    if stems.is_empty() {
        return false;
    }
    let holds_jsonl =
        |d: &Path| std::fs::read_dir(d).is_ok_and(|rd| rd.flatten().any(|e| is_jsonl(&e.path()) && e.path().is_file()));
    !subdirs
        .iter()
        .any(|(name, path)| !stems.contains(name) && !looks_like_uuid(name) && name != "memory" && holds_jsonl(path))
}

/// `8-4-4-4-12` hexadecimal digits: a session id.
fn looks_like_uuid(name: &str) -> bool {
    let groups: Vec<&str> = name.split('-').collect();
    groups.len() == 5
        && groups.iter().zip([8, 4, 4, 4, 12]).all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn dir_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .or_else(|| std::fs::canonicalize(dir).ok()?.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "project".into())
}

/// Walks one project directory ([`walk`]) and classifies what it holds.
pub fn scan_project(dir: &Path) -> Result<ProjectSource> {
    let mut files = IdVec::new();
    let mut agent_meta = BTreeMap::new();
    let mut tool_results = BTreeMap::new();
    let Walk { files: mut found, mut warnings } = walk(dir, LinkRule::default());
    // By path, so that which of two sidecars of one agent wins never depends on the listing order.
    found.sort_by(|a, b| a.1.cmp(&b.1));
    for (path, rel) in found {
        let file_name = rel.rsplit('/').next().unwrap_or("").to_string();
        let comps: Vec<&str> = rel.split('/').collect();
        if comps.len() >= 2 && comps[comps.len() - 2] == "tool-results" {
            let key = format!("{}/tool-results/{}", comps[0], file_name);
            tool_results.insert(key, path);
            continue;
        }
        if let Some(id) = file_name.strip_prefix("agent-").and_then(|n| n.strip_suffix(".meta.json")) {
            match read_agent_meta(&path) {
                Ok(meta) => {
                    agent_meta.insert(id.to_string(), meta);
                }
                Err(err) => warnings.push(format!("{}: unreadable agent sidecar: {err}", path.display())),
            }
            continue;
        }
        if !file_name.ends_with(".jsonl") || file_name == "journal.jsonl" {
            continue;
        }
        if comps.first() == Some(&"memory") {
            continue;
        }
        let (class, agent_id_from_name) = classify(&rel);
        let kept_version = split_kept(&file_name).is_some();
        files.push(SourceFile { path, rel, class, agent_id_from_name, kept_version, client: Client::Claude });
    }
    Ok(ProjectSource {
        name: dir_name(dir),
        dir: dir.to_path_buf(),
        files,
        agent_meta,
        tool_results,
        warnings,
        client: Client::Claude,
        cwd: None,
        session_titles: BTreeMap::new(),
    })
}

/// Classifies a transcript by its path relative to the project directory
/// (a kept version as its live file).
pub fn classify(rel: &str) -> (FileClass, Option<String>) {
    let mut comps: Vec<&str> = rel.split('/').collect();
    let live = comps.last().and_then(|n| split_kept(n));
    if let (Some(last), Some(live)) = (comps.last_mut(), live.as_deref()) {
        *last = live;
    }
    let file_name = comps.last().copied().unwrap_or("");
    let agent_id = file_name.strip_prefix("agent-").and_then(|n| n.strip_suffix(".jsonl")).map(str::to_string);
    let class = if comps.contains(&"subagents") {
        match &agent_id {
            Some(id) if id.starts_with("acompact") || id.starts_with("aside_question") => FileClass::SideAgent,
            _ => FileClass::Subagent,
        }
    } else if comps.len() == 1 {
        if agent_id.is_some() { FileClass::LegacyAgent } else { FileClass::Main }
    } else if agent_id.is_some() {
        FileClass::Subagent
    } else {
        FileClass::Other
    };
    (class, agent_id)
}

fn read_agent_meta(path: &Path) -> Result<AgentMeta> {
    let bytes = std::fs::read(path)?;
    let v = crate::json::parse(&String::from_utf8_lossy(&bytes))?;
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
    Ok(AgentMeta {
        agent_type: s("agentType"),
        description: s("description"),
        tool_use_id: s("toolUseId").or_else(|| s("toolUseID")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::kept_name;

    #[test]
    fn classifies_paths() {
        assert_eq!(classify("0a1b.jsonl").0, FileClass::Main);
        assert_eq!(classify("agent-1234abcd.jsonl"), (FileClass::LegacyAgent, Some("1234abcd".into())));
        assert_eq!(classify("s/subagents/agent-a12.jsonl"), (FileClass::Subagent, Some("a12".into())));
        assert_eq!(classify("s/subagents/agent-acompact-9f.jsonl").0, FileClass::SideAgent);
        assert_eq!(classify("s/subagents/agent-aside_question-9f.jsonl").0, FileClass::SideAgent);
        assert_eq!(classify("s/subagents/workflows/r1/agent-x.jsonl").0, FileClass::Subagent);
        assert_eq!(classify("s/other.jsonl").0, FileClass::Other);
    }

    #[test]
    fn kept_versions_are_read_as_their_live_file() {
        let h = "0123456789abcdef0123456789abcdef";
        let main = kept_name("5e55.jsonl", h);
        assert_eq!(main, "5e55.cctree-kept-0123456789abcdef.jsonl");
        assert_eq!(split_kept(&main).as_deref(), Some("5e55.jsonl"));
        assert_eq!(classify(&main), (FileClass::Main, None));
        let legacy = kept_name("agent-1234abcd.jsonl", h);
        assert_eq!(classify(&legacy), (FileClass::LegacyAgent, Some("1234abcd".into())));
        let sub = format!("s/subagents/{}", kept_name("agent-a12.jsonl", h));
        assert_eq!(classify(&sub), (FileClass::Subagent, Some("a12".into())));
        let side = format!("s/subagents/{}", kept_name("agent-acompact-9f.jsonl", h));
        assert_eq!(classify(&side).0, FileClass::SideAgent);
        // A kept sidecar is not read as a sidecar; a name without extension keeps working.
        assert_eq!(kept_name("agent-a1.meta.json", h), "agent-a1.meta.cctree-kept-0123456789abcdef.json");
        assert_eq!(kept_name("abc@v2", h), "abc@v2.cctree-kept-0123456789abcdef");
        assert_eq!(split_kept("abc@v2.cctree-kept-0123456789abcdef").as_deref(), Some("abc@v2"));
        // Not a kept version: a short tag, no tag, another word.
        assert_eq!(split_kept("x.cctree-kept-0123.jsonl"), None);
        assert_eq!(split_kept("x.jsonl"), None);
        assert_eq!(split_kept("x.cctree-kept-0123456789abcdefg.jsonl"), None);
    }
}

#[cfg(test)]
mod walk_tests {
    use super::*;

    #[test]
    fn walks_layouts_and_survives_symlink_loops() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("-home-me-app");
        std::fs::create_dir_all(p.join("s1/subagents/workflows/r1")).unwrap();
        std::fs::create_dir_all(p.join("s1/tool-results")).unwrap();
        for f in [
            "s1.jsonl",
            "s1.cctree-kept-0123456789abcdef.jsonl",
            "agent-1234abcd.jsonl",
            "s1/subagents/agent-a1.jsonl",
            "s1/subagents/workflows/r1/journal.jsonl",
        ] {
            std::fs::write(p.join(f), "{}\n").unwrap();
        }
        std::fs::write(p.join("s1/subagents/agent-a1.meta.json"), r#"{"agentType":"Explore","description":"d"}"#)
            .unwrap();
        std::fs::write(p.join("s1/tool-results/toolu_1.txt"), "big").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&p, p.join("s1/loop")).unwrap();
        let a = discover(&[tmp.path().to_path_buf()]).unwrap();
        assert_eq!(a.projects.len(), 1);
        let proj = &a.projects[0];
        let rels: Vec<(&str, FileClass, bool)> =
            proj.files.iter().map(|f| (f.rel.as_str(), f.class, f.kept_version)).collect();
        assert_eq!(
            rels,
            [
                ("agent-1234abcd.jsonl", FileClass::LegacyAgent, false),
                ("s1.cctree-kept-0123456789abcdef.jsonl", FileClass::Main, true),
                ("s1.jsonl", FileClass::Main, false),
                ("s1/subagents/agent-a1.jsonl", FileClass::Subagent, false),
            ]
        );
        assert_eq!(proj.agent_meta["a1"].agent_type.as_deref(), Some("Explore"));
        assert!(proj.tool_results.contains_key("s1/tool-results/toolu_1.txt"));
        #[cfg(unix)]
        assert!(proj.warnings.iter().any(|w| w.contains("loop")), "{:?}", proj.warnings);
    }
}

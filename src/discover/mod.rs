//! Discover stage: the inputs given on the command line (or, with none,
//! every agent's default folder that exists) → the projects and files to
//! read ([`Archive`]).
//!
//! Each input is offered to the agents ([`crate::agent`]): a folder goes to
//! the agent that claims it (Codex CLI's sessions tree, Gemini CLI's `tmp`
//! folder, …), else to the one that reads any folder (Claude Code's
//! projects directory, or one project directory); a file given alone goes
//! to the agent whose file it is, the files of one folder and agent making
//! one project. Each agent classifies and sorts its files, so what follows
//! never depends on the order the file system lists them in. Nothing is
//! read here beyond directory listings (and what an agent's layout keeps
//! beside its transcripts: sidecars, a first line). What cannot be listed
//! is a warning naming it ([`Archive::warnings`],
//! [`crate::model::ProjectSource::warnings`]), never silently left out.
//!
//! An archive kept by `cctree sync` has the layout of each agent's folder,
//! plus the previous versions of files that were rewritten at the source,
//! named `<stem>.cctree-kept-<hash>.<ext>` beside the live file
//! ([`crate::layout::kept_name`]); the other agents' folders it keeps beside
//! it are read with it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::agent::{self, Claim, Scanned};
use crate::layout::split_kept;
use crate::model::{Client, ProjectSource, SourceFile};
use crate::walk::dir_name;

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
    /// Each folder read and the agent that read it (its scan's root: what
    /// the agent finds its prompt logs beside, `Agent::prompt_logs`).
    pub roots: Vec<(Client, PathBuf)>,
}

/// The agent that claims the folder `dir`, and its folder: the first in
/// the registration's order that says yes, else the one that reads any folder.
pub fn agent_of_dir(dir: &Path) -> (Client, PathBuf) {
    let mut otherwise = None;
    for c in agent::ALL {
        match agent::of(*c).claims(dir) {
            Claim::Yes(d) => return (*c, d),
            Claim::Otherwise => otherwise = otherwise.or(Some(*c)),
            Claim::No => {}
        }
    }
    (otherwise.unwrap_or(agent::ALL[0]), dir.to_path_buf())
}

/// The folder `dir` read whole by the agent that claims it, when one does
/// (not the one that reads any folder); an error when it holds nothing.
pub fn claimed(dir: &Path) -> Result<Option<Scanned>> {
    let (client, folder) = agent_of_dir(dir);
    let a = agent::of(client);
    if a.claims(dir) == Claim::Otherwise {
        return Ok(None);
    }
    let s = a.scan(&folder)?;
    if s.nothing {
        bail!("{}", a.nothing_in(&folder));
    }
    Ok(Some(s))
}

/// The agent of a file given alone, likewise; an error when no agent
/// claims it and it is not JSON at all (a README given by mistake is one
/// error naming it, not a warning for each of its lines).
fn agent_of_file(path: &Path) -> Result<Client> {
    let mut otherwise = None;
    for c in agent::ALL {
        match agent::of(*c).claims_file(path) {
            Claim::Yes(_) => return Ok(*c),
            Claim::Otherwise => otherwise = otherwise.or(Some(*c)),
            Claim::No => {}
        }
    }
    if let Some(first) = first_byte(path)
        && !matches!(first, b'{' | b'[')
    {
        bail!(
            "{} is not a transcript: it does not begin with JSON. cctree reads the transcripts of {} \
             (their folders, or their session files): pass one of those",
            path.display(),
            agent::ALL.iter().map(|c| c.product()).collect::<Vec<_>>().join(", ")
        );
    }
    Ok(otherwise.unwrap_or(agent::ALL[0]))
}

/// The first byte of a file that is not white space nor a byte-order mark,
/// from its first 4 KB (`None`: nothing there, or it cannot be read: the
/// reader says so later).
fn first_byte(path: &Path) -> Option<u8> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path).ok()?.take(crate::limits::MARK_PROBE).read_to_end(&mut head).ok()?;
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head);
    head.iter().copied().find(|b| !b.is_ascii_whitespace())
}

/// Resolves the inputs given on the command line (none: every default
/// folder). An input that holds no transcript is an error (an empty or
/// mistyped path renders nothing, and says so), unless it is an archive of
/// `cctree sync`, which may be empty yet. Of the default folders, one that
/// holds nothing is a note (a Codex-only user who once installed Claude Code
/// has an empty `~/.claude/projects`); the error is for none holding any.
pub fn discover(inputs: &[PathBuf]) -> Result<Archive> {
    match inputs.is_empty() {
        true => {
            let mut archive = read_inputs(&default_inputs(agent::ALL)?, true)?;
            add_found(&mut archive);
            Ok(archive)
        }
        false => read_inputs(inputs, false),
    }
}

/// The folders the agents find in the working directories of the projects
/// read ([`agent::Agent::found_in`]: Aider's histories in the repositories
/// the other agents worked in), each with the agent that claims it; those
/// already read are left out.
pub fn found_folders(projects: &[ProjectSource], read: &[PathBuf]) -> Vec<(Client, PathBuf)> {
    let mut cwds: Vec<&str> = projects.iter().filter_map(|p| p.cwd.as_deref()).collect();
    cwds.sort_unstable();
    cwds.dedup();
    let mut out = Vec::new();
    for c in agent::ALL {
        let a = agent::of(*c);
        for dir in a.found_in(&cwds) {
            if read.iter().any(|r| crate::files::resolve(r) == crate::files::resolve(&dir)) {
                continue;
            }
            if let Claim::Yes(d) = a.claims(&dir) {
                out.push((*c, d));
            }
        }
    }
    out
}

/// Adds to `archive` (the default folders read) the folders the agents find
/// in its projects' working directories ([`found_folders`]).
fn add_found(archive: &mut Archive) {
    for (c, dir) in found_folders(&archive.projects, &archive.inputs) {
        match agent::of(c).scan(&dir) {
            Ok(s) => {
                archive.roots.push((c, s.root.clone()));
                archive.inputs.extend(s.inputs);
                archive.warnings.extend(s.warnings);
                archive.projects.extend(s.projects);
            }
            Err(e) => archive.warnings.push(format!("{e:#}")),
        }
    }
    archive.projects.sort_by(|a, b| (&a.dir, &a.name).cmp(&(&b.dir, &b.name)));
}

/// Reads `inputs` (see [`discover`]); `defaults`: they are the default folders.
fn read_inputs(inputs: &[PathBuf], defaults: bool) -> Result<Archive> {
    let mut empty = Vec::new();
    let mut loose: BTreeMap<(PathBuf, Client), Vec<PathBuf>> = BTreeMap::new();
    let mut projects = Vec::new();
    let mut warnings = Vec::new();
    let mut read = Vec::new();
    let mut notes = Vec::new();
    let mut roots = Vec::new();
    let mut root = inputs[0].clone();
    for input in inputs {
        let meta = std::fs::metadata(input)
            .with_context(|| format!("cannot read input {}: check the path exists and is readable", input.display()))?;
        if meta.is_file() {
            let parent = input.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."));
            loose.entry((parent, agent_of_file(input)?)).or_default().push(input.clone());
            read.push(input.clone());
            continue;
        }
        let (client, dir) = agent_of_dir(input);
        let s = agent::of(client).scan(&dir)?;
        if defaults && s.nothing && !s.root.join(crate::layout::STATE_DIR).is_dir() {
            empty.push((client, s.root));
            continue;
        }
        root = s.root.clone();
        roots.push((client, s.root.clone()));
        read.extend(s.inputs);
        projects.extend(s.projects);
        warnings.extend(s.warnings);
        notes.extend(s.notes);
        // A sync archive may be empty (begun, or its source still is): no typo.
        let archive = s.root.join(crate::layout::STATE_DIR).is_dir();
        if archive {
            synced_agents(&s.root, &mut projects, &mut warnings, &mut read, &mut roots);
        }
        if s.nothing && !archive {
            bail!("{}", agent::of(client).nothing_in(&s.root));
        }
        for (file, warning) in s.loose {
            warnings.push(warning);
            loose.entry((s.root.clone(), client)).or_default().push(file);
        }
    }
    if !empty.is_empty() && empty.len() == inputs.len() {
        let each: Vec<String> = empty.iter().map(|(c, d)| format!("\n  {}", agent::of(*c).nothing_in(d))).collect();
        bail!("no input given, and no default folder of an agent holds a transcript:{}", each.concat());
    }
    for (client, dir) in &empty {
        let a = agent::of(*client);
        notes.push(format!(
            "{} ({}'s default folder) holds no transcript yet: skipped",
            crate::term::safe(dir.display()),
            a.product()
        ));
    }
    projects.extend(loose.into_iter().map(|((dir, client), files)| loose_project(dir, client, files)));
    projects.sort_by(|a, b| (&a.dir, &a.name).cmp(&(&b.dir, &b.name)));
    Ok(Archive { root, projects, warnings, inputs: read, notes, roots })
}

/// The other agents' folders `cctree sync` keeps beside the archive
/// `archive` (`codex/sessions`, `gemini/tmp`, …), read with it; one that
/// holds nothing yet is no error.
fn synced_agents(
    archive: &Path,
    projects: &mut Vec<ProjectSource>,
    warnings: &mut Vec<String>,
    read: &mut Vec<PathBuf>,
    roots: &mut Vec<(Client, PathBuf)>,
) {
    for c in agent::ALL {
        let a = agent::of(*c);
        let Some(dir) = a.synced_dir(archive).filter(|d| d != archive && d.is_dir()) else { continue };
        let Claim::Yes(dir) = a.claims(&dir) else { continue };
        let Ok(s) = a.scan(&dir) else { continue };
        roots.push((*c, s.root.clone()));
        if s.projects.is_empty() && s.warnings.is_empty() {
            continue;
        }
        warnings.extend(s.warnings);
        read.extend(s.inputs);
        projects.extend(s.projects);
    }
}

/// Every default folder that exists of the `agents` asked for; an error
/// naming each when none does (and the bundled example, when run where it
/// is: in a clone of the repository).
pub fn default_inputs(agents: &[Client]) -> Result<Vec<PathBuf>> {
    let found: Vec<PathBuf> =
        agents.iter().filter_map(|c| agent::of(*c).default_dir().filter(|d| d.is_dir())).collect();
    if !found.is_empty() {
        return Ok(found);
    }
    const EXAMPLE: &str = "examples/archive/projects";
    let example = match Path::new(EXAMPLE).is_dir() {
        true => format!(", or try the bundled example: `cctree render {EXAMPLE}`"),
        false => String::new(),
    };
    let missing: Vec<String> = agents
        .iter()
        .map(|c| {
            let a = agent::of(*c);
            match a.default_dir() {
                Some(d) => format!("\n  {} does not exist ({}: {})", d.display(), a.product(), a.default_hint()),
                None => format!("\n  no folder of its own is known ({}: {})", a.product(), a.default_hint()),
            }
        })
        .collect();
    bail!(
        "no input given, and no default folder of an agent exists:{}\nPass a folder or JSONL files (`cctree render DIR`){example}",
        missing.concat()
    )
}

/// The transcripts given alone (or lying loose in a folder) that sit in
/// `dir`, as one project named after it.
fn loose_project(dir: PathBuf, client: Client, mut files: Vec<PathBuf>) -> ProjectSource {
    files.sort();
    files.dedup();
    let name = dir_name(&dir);
    let files = files
        .into_iter()
        .map(|path| {
            let rel = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let (class, agent_id_from_name) = agent::of(client).classify_loose(&rel);
            let kept_version = split_kept(&rel).is_some();
            SourceFile { path, rel, class, agent_id_from_name, kept_version, client }
        })
        .collect();
    ProjectSource { files, ..ProjectSource::empty(name, dir, client) }
}

#[cfg(test)]
mod walk_tests {
    use super::*;
    use crate::model::FileClass;

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

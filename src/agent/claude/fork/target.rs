//! Resolving `cctree fork TARGET`: a session file, a session id or a message uuid.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rustc_hash::FxHashSet;

use crate::graph::NodeId;
use crate::limits::ID_PREFIX_MIN;
use crate::model::FileId;
use crate::project::Project;

/// What TARGET named, with its project loaded.
#[derive(Debug)]
pub struct Resolved {
    pub project: Project,
    /// The session TARGET named (or the session of the message it named).
    pub session: String,
    /// Index (in the project) of the session's own file, when it has one.
    pub session_file: Option<FileId>,
    /// The message TARGET named, if it was a message uuid.
    pub message: Option<NodeId>,
    /// Project directories of the archive (for the version-drift reference).
    pub archive: Vec<PathBuf>,
    /// The project directory the fork is written into, where `claude -r`
    /// finds it: the project's own, or, for a session found only in the
    /// archive of `cctree sync`, the same project's directory in the
    /// client's projects directory.
    pub dest: PathBuf,
}

/// The project directories of a projects directory (or the directory itself
/// if it is one project).
pub fn list_projects(dir: &Path) -> Result<Vec<PathBuf>> {
    if crate::agent::claude::discover::is_project_dir(dir) {
        return Ok(vec![dir.to_path_buf()]);
    }
    crate::agent::claude::discover::project_dirs(dir)
}

/// A projects directory an id is looked up in.
struct Place {
    dir: PathBuf,
    /// The archive of `cctree sync`: a fork of a session found there is
    /// written into the client's projects directory.
    archive: bool,
}

/// Whether `dir` (a projects directory or one project directory) is, or is
/// in, an archive of `cctree sync` (it holds the sync's record).
pub fn in_sync_archive(dir: &Path) -> bool {
    crate::layout::archive_of(dir).is_some()
}

/// Where ids are looked up: `--projects DIR` (an archive of `cctree sync`
/// too); else the client's projects directory, then the archive of `cctree
/// sync` (where a session the client deleted is still kept), those that exist.
fn places(given: Option<&Path>) -> Result<Vec<Place>> {
    if let Some(d) = given {
        return Ok(vec![Place { dir: d.to_path_buf(), archive: in_sync_archive(d) }]);
    }
    let client = crate::agent::claude::discover::default_projects_dir();
    let mut out: Vec<Place> =
        client.iter().filter(|d| d.is_dir()).map(|d| Place { dir: d.clone(), archive: false }).collect();
    out.extend(crate::layout::existing_archive().map(|dir| Place { dir, archive: true }));
    if out.is_empty() {
        match client {
            Some(d) => bail!(
                "the default projects directory {} does not exist and there is no `cctree sync` archive: \
                 pass --projects DIR, the projects directory that holds the session",
                d.display()
            ),
            None => bail!(
                "no default projects directory (CLAUDE_CONFIG_DIR is not set and no home directory is known): pass --projects DIR"
            ),
        }
    }
    Ok(out)
}

fn load(dir: &Path) -> Result<Project> {
    Ok(Project::load(crate::agent::claude::discover::scan_project(dir)?))
}

/// Resolves TARGET (see [`Resolved`]).
pub fn resolve(target: &str, projects: Option<&Path>) -> Result<Resolved> {
    let as_path = Path::new(target);
    if as_path.is_file() {
        return resolve_file(as_path, projects);
    }
    if target.ends_with(".jsonl") || target.contains('/') || target.contains('\\') {
        bail!("no such session file: {target}");
    }
    if target.is_empty() {
        bail!("empty TARGET: give a session file, a session id or a message uuid");
    }
    let places = places(projects)?;
    for place in &places {
        if let Some(mut r) = find(target, &place.dir)? {
            if place.archive {
                r.dest = into_client(&r.dest)?;
            }
            return Ok(r);
        }
    }
    let looked: Vec<String> = places.iter().map(|p| p.dir.display().to_string()).collect();
    match projects {
        // The folder was given: the id is what to check.
        Some(_) => bail!(
            "{target} is neither a session id (or the start of one) nor a message uuid in {}: check the id \
             (a page's fork command names it)",
            looked.join(" or ")
        ),
        None => bail!(
            "{target} is neither a session id (or the start of one) nor a message uuid in {}: pass --projects DIR, \
             the projects directory that holds it (the one the site was rendered from)",
            looked.join(" or ")
        ),
    }
}

/// TARGET as a session id found by the name of its file alone (`<id>.jsonl`
/// in a project directory of the places [`resolve`] looks in), reading no
/// other file: `None` when no file has that name.
pub fn resolve_named(target: &str, projects: Option<&Path>) -> Result<Option<Resolved>> {
    if target.is_empty() || target.contains(['/', '\\']) || target.ends_with(".jsonl") {
        return Ok(None);
    }
    for place in &places(projects)? {
        if let Some(mut r) = find_named(target, &place.dir)? {
            if place.archive {
                r.dest = into_client(&r.dest)?;
            }
            return Ok(Some(r));
        }
    }
    Ok(None)
}

/// The session `target` names by its file `<target>.jsonl` in the projects
/// directory `dir`, else by the start of its name ([`ID_PREFIX_MIN`]+
/// characters, as `export` and `--at` take ids), when one file alone
/// starts so; an error naming them when several do.
fn find_named(target: &str, dir: &Path) -> Result<Option<Resolved>> {
    let dirs = list_projects(dir)?;
    let mut file_name = format!("{target}.jsonl");
    let mut found = dirs.iter().find(|d| d.join(&file_name).is_file()).cloned();
    if found.is_none() && target.len() >= ID_PREFIX_MIN {
        let mut hits: Vec<(PathBuf, String)> = Vec::new();
        for d in &dirs {
            let Ok(list) = std::fs::read_dir(d) else { continue };
            for e in list.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.starts_with(target) && name.ends_with(".jsonl") && e.path().is_file() {
                    hits.push((d.clone(), name));
                }
            }
        }
        hits.sort();
        match hits.as_slice() {
            [] => {}
            [(d, name)] => (found, file_name) = (Some(d.clone()), name.clone()),
            many => bail!(
                "{target} is ambiguous: {} sessions start with it:\n{}",
                many.len(),
                many.iter().map(|(_, n)| format!("  {}", n.trim_end_matches(".jsonl"))).collect::<Vec<_>>().join("\n")
            ),
        }
    }
    let Some(d) = found else { return Ok(None) };
    let project = load(&d)?;
    let session_file = file_index(&project, &d.join(&file_name));
    Ok(Some(Resolved {
        dest: project.source.dir.clone(),
        project,
        session: file_name.trim_end_matches(".jsonl").to_string(),
        session_file,
        message: None,
        archive: dirs.clone(),
    }))
}

/// TARGET (a session id or a message uuid) in the projects directory `dir`.
fn find(target: &str, dir: &Path) -> Result<Option<Resolved>> {
    // A session id names its file.
    if let Some(r) = find_named(target, dir)? {
        return Ok(Some(r));
    }
    let dirs = list_projects(dir)?;
    // Otherwise look for the id in the files' text, then ask the graph.
    let finder = memchr::memmem::Finder::new(target.as_bytes());
    for d in &dirs {
        let src = crate::agent::claude::discover::scan_project(d)?;
        let hit = src.files.iter().any(|f| std::fs::read(&f.path).is_ok_and(|b| finder.find(&b).is_some()));
        if !hit {
            continue;
        }
        let project = Project::load(src);
        let dest = project.source.dir.clone();
        if let Some(&n) = project.graph.index.get(target) {
            let session = project.graph.sessions[project.graph.node(n).session].session_id.to_string();
            let archive = dirs.clone();
            return Ok(Some(Resolved { project, session, session_file: None, message: Some(n), archive, dest }));
        }
        if project.graph.session_named(target).is_some() {
            let (session, archive) = (target.to_string(), dirs.clone());
            return Ok(Some(Resolved { project, session, session_file: None, message: None, archive, dest }));
        }
    }
    Ok(None)
}

/// Where a fork of a session of the archive of `cctree sync` is written: the
/// same project's directory in the client's projects directory
/// (`$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`; made if the
/// client deleted it), where `claude -r` finds it. The archive mirrors the
/// client's layout, so the directory is the client's own for the session's
/// working directory. Its code checkpoints' backups go into the client's
/// `file-history/` beside it ([`super::cmd::write`]).
fn into_client(archived_project: &Path) -> Result<PathBuf> {
    let Some(client) = crate::agent::claude::discover::default_projects_dir() else {
        bail!(
            "{} is in the archive of `cctree sync`, and a fork of it is written into the client's projects directory, \
             but there is none (CLAUDE_CONFIG_DIR is not set and no home directory is known): set CLAUDE_CONFIG_DIR",
            archived_project.display()
        );
    };
    let name =
        archived_project.file_name().with_context(|| format!("{} names no directory", archived_project.display()))?;
    Ok(client.join(name))
}

fn file_index(p: &Project, path: &Path) -> Option<FileId> {
    let want = std::fs::canonicalize(path).ok()?;
    p.source
        .files
        .iter_enumerated()
        .find(|(_, f)| std::fs::canonicalize(&f.path).ok() == Some(want.clone()))
        .map(|(i, _)| i)
}

fn resolve_file(path: &Path, projects: Option<&Path>) -> Result<Resolved> {
    // The project directory is the one the user named, also when the session
    // file is a symbolic link: the fork is written there, where `claude -r`
    // looks for `<id>.jsonl` (the project directory of its cwd, then every
    // project directory), not beside the link's target.
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let dir = std::fs::canonicalize(parent).with_context(|| format!("cannot resolve {}", path.display()))?;
    let path = dir.join(path.file_name().with_context(|| format!("{} names no file", path.display()))?);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let in_subagents = path.components().any(|c| c.as_os_str() == "subagents");
    if name.starts_with("agent-") || in_subagents {
        bail!("{} is an agent transcript: give its session file, session id or a message uuid", path.display());
    }
    let Some(dir) = path.parent() else {
        bail!("{} has no project directory", path.display());
    };
    let project = load(dir)?;
    let session_file = file_index(&project, &path);
    let stem = name.strip_suffix(".jsonl").unwrap_or(&name).to_string();
    let session = if project.entries.iter().any(|e| e.session_id.as_deref() == Some(&stem) && e.is_node()) {
        stem
    } else {
        // sessionId ≠ file name (§3.1): the session most of its nodes carry.
        let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
        for e in project.entries.iter().filter(|e| Some(e.loc.file) == session_file && e.is_node()) {
            *counts.entry(e.session_id.as_deref().unwrap_or("")).or_default() += 1;
        }
        match counts.into_iter().max_by_key(|(s, n)| (*n, std::cmp::Reverse(*s))) {
            Some((s, _)) => s.to_string(),
            None => bail!("{} holds no messages to fork", path.display()),
        }
    };
    let archive = match projects {
        Some(d) => list_projects(d)?,
        None => match crate::agent::claude::discover::default_projects_dir()
            .and_then(|d| std::fs::canonicalize(d).ok())
            .filter(|d| dir.starts_with(d))
        {
            Some(d) => list_projects(&d)?,
            None => vec![dir.to_path_buf()],
        },
    };
    // A session file of the archive of `cctree sync` is forked into the client's directory.
    let dest = if in_sync_archive(dir) { into_client(dir)? } else { dir.to_path_buf() };
    Ok(Resolved { dest, project, session, session_file, message: None, archive })
}

/// The default checkpoint of a session: the leaf of the branch holding the
/// session's latest node (its active branch), if that leaf is the session's;
/// else the session's latest node. `None` if it has no main node.
pub fn default_checkpoint(p: &Project, session: &str, file: Option<FileId>) -> Option<NodeId> {
    let g = &p.graph;
    let s = g.session_named(session);
    let mut mine: FxHashSet<NodeId> = FxHashSet::default();
    for (id, n) in g.nodes.iter_enumerated() {
        let in_file = file.is_some_and(|f| p.entries[n.entry].loc.file == f);
        if (Some(n.session) == s || in_file) && !n.sidechain && n.conversation.is_some() {
            mine.insert(id);
        }
    }
    if let Some(f) = file {
        for &(id, e) in &g.aliases {
            let n = g.node(id);
            if p.entries[e].loc.file == f && !n.sidechain && n.conversation.is_some() {
                mine.insert(id);
            }
        }
    }
    let latest = mine.iter().copied().max_by_key(|n| (g.node(*n).ts, *n))?;
    let leaf = g.node(latest).branch.and_then(|b| g.branches.get(b)).map(|b| b.leaf);
    Some(leaf.filter(|l| mine.contains(l)).unwrap_or(latest))
}

/// Resolves `--at`: an exact uuid, else a unique prefix ([`ID_PREFIX_MIN`]+ characters).
pub fn resolve_at(p: &Project, at: &str) -> Result<NodeId> {
    let g = &p.graph;
    if let Some(&n) = g.index.get(at) {
        return Ok(n);
    }
    if at.len() >= ID_PREFIX_MIN {
        let hits: Vec<NodeId> = g.index.iter().filter(|(u, _)| u.starts_with(at)).map(|(_, n)| *n).collect();
        match hits.len() {
            1 => return Ok(hits[0]),
            0 => {}
            n => bail!("--at {at} is ambiguous: {n} messages start with it"),
        }
    }
    bail!("--at {at}: no message with this uuid in project {}", p.source.dir.display())
}

//! Claude Code's folders (transcript-format §1): the projects directory
//! (`$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`), one project
//! directory per working directory, each session a `<session>.jsonl`, its
//! sub-agents under `<session>/subagents/`, spilled tool outputs under
//! `<session>/tool-results/`. Files are classified by their path (§1.5) and
//! sorted; nothing is read beyond directory listings and `.meta.json`
//! sidecars. A `cctree sync` archive has the same layout.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rustc_hash::FxHashSet;

use crate::agent::{CLAUDE, Scanned};
use crate::id::IdVec;
use crate::layout::split_kept;
use crate::model::{AgentMeta, FileClass, ProjectSource, SourceFile};
use crate::term::safe;
use crate::walk::{LinkRule, Walk, dir_name, key, refused_target, special_kind, special_warning, walk};

/// The default projects directory: `$CLAUDE_CONFIG_DIR/projects`, else
/// `~/.claude/projects` (the home directory as `etcetera` finds it: `HOME`,
/// else the system's record of the user). `None` only without either.
pub fn default_projects_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir).join("projects"));
    }
    etcetera::home_dir().ok().map(|h| h.join(".claude").join("projects"))
}

/// Reads a folder as Claude Code's: its configuration directory (read for
/// its `projects/`, with a note), one project directory, or a projects
/// directory (each project directory in it; transcripts lying loose in it
/// read as a project of their own, with a warning).
pub(super) fn scan(input: &Path) -> Result<Scanned> {
    let mut s = Scanned::default();
    let input = match config_projects(input) {
        Some(dir) => {
            s.notes.push(format!(
                "{} is Claude Code's configuration directory: reading its projects directory, {}",
                safe(input.display()),
                safe(dir.display())
            ));
            dir
        }
        None => input.to_path_buf(),
    };
    s.root = input.clone();
    s.inputs.push(input.clone());
    if is_project_dir(&input) {
        s.projects.push(scan_project(&input)?);
        return Ok(s);
    }
    let listing = list_projects_dir(&input)?;
    s.warnings.extend(listing.warnings);
    // Only what kept a project empty counts against "nothing" (the listing's
    // warnings alone do not make a mistyped folder an input).
    let mut kept_empty = false;
    for dir in listing.projects {
        let project = scan_project(&dir)?;
        if project.files.is_empty() {
            // Nothing to read: what kept it empty (an unreadable directory) is still said.
            kept_empty |= !project.warnings.is_empty();
            s.warnings.extend(project.warnings);
        } else {
            s.inputs.push(dir);
            s.projects.push(project);
        }
    }
    s.nothing = s.projects.is_empty() && listing.stray.is_empty() && !kept_empty;
    for file in listing.stray {
        let warning = format!(
            "{}: a transcript directly in the projects directory, outside any project directory: \
             read as a project of its own, named `{}`",
            safe(file.display()),
            safe(dir_name(&input))
        );
        s.loose.push((file, warning));
    }
    Ok(s)
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
        files.push(SourceFile { path, rel, class, agent_id_from_name, kept_version, client: CLAUDE });
    }
    Ok(ProjectSource {
        name: dir_name(dir),
        dir: dir.to_path_buf(),
        files,
        agent_meta,
        tool_results,
        warnings,
        client: CLAUDE,
        cwd: None,
        session_titles: BTreeMap::new(),
    }
    .with_cwd())
}

impl ProjectSource {
    /// The working directory the first lines of its first session name
    /// (the directory's name encodes it lossily): what the agents that
    /// write into the repositories worked in look for there
    /// (`Agent::found_in`). The loaded project names its own from every
    /// entry ([`crate::project::Project::cwd`]).
    fn with_cwd(mut self) -> ProjectSource {
        use std::io::{BufRead, Read};
        let first = self.files.iter().find(|f| f.class == FileClass::Main && !f.kept_version);
        let Some(file) = first.and_then(|f| std::fs::File::open(&f.path).ok()) else { return self };
        let mut read = std::io::BufReader::new(file.take(crate::limits::START_DIR_BYTES));
        let mut line = Vec::new();
        for _ in 0..crate::limits::START_DIR_LINES {
            line.clear();
            if !matches!(read.read_until(b'\n', &mut line), Ok(n) if n > 0) {
                break;
            }
            let cwd = crate::json::parse(&String::from_utf8_lossy(&line))
                .ok()
                .and_then(|v| v["cwd"].as_str().filter(|c| !c.is_empty()).map(str::to_string));
            if cwd.is_some() {
                self.cwd = cwd;
                break;
            }
        }
        self
    }
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

//! OpenCode's data folder (transcript-format, Appendix F):
//! `$XDG_DATA_HOME/opencode/` (`~/.local/share/opencode/`) holding the
//! database `opencode.db` (`opencode-<channel>.db` for other channels,
//! `OPENCODE_DB` names another), and the JSON files of releases before 1.2
//! under `storage/`.
//!
//! One database holds every project the client ran in: its sessions are
//! grouped into one cctree project per worktree (the `project` table: a git
//! repository's root), those of the `global` project (no repository) per
//! working directory. Each group is one source file: the database (or the
//! `storage/` folder) named with the group ([`Group`]), which the project
//! reads as the lines the agent writes of it ([`super::lines`]). Discovery
//! reads the session table only (a snapshot, as every read of the database).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rusqlite::OptionalExtension;

use super::group::{Group, GroupInfo, agent_meta, group_of};
use crate::agent::{OPENCODE, project_name};
use crate::id::IdVec;
use crate::model::{AgentMeta, FileClass, ProjectSource, SourceFile};

/// The data folder: `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`.
pub fn default_dir() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .filter(|d| d.is_absolute())
        .or_else(|| etcetera::home_dir().ok().map(|h| h.join(".local").join("share")))?;
    Some(data.join("opencode"))
}

/// A database file of the client's (`opencode.db`, `opencode-<channel>.db`).
pub fn is_db_name(name: &str) -> bool {
    name == "opencode.db" || (name.starts_with("opencode-") && name.ends_with(".db"))
}

/// A folder of the JSON storage of releases before 1.2 (`storage/` with
/// `session/`, `message/`, `part/`).
pub fn is_storage(dir: &Path) -> bool {
    dir.join("session").is_dir() && dir.join("message").is_dir()
}

/// The data folder `dir` is or holds (`~/.local/share` holds `opencode/`).
pub fn data_dir_of(dir: &Path) -> Option<PathBuf> {
    let holds = |d: &Path| !databases(d).is_empty() || is_storage(&d.join("storage"));
    if holds(dir) {
        return Some(dir.to_path_buf());
    }
    if is_storage(dir) {
        return dir.parent().map(Path::to_path_buf).filter(|p| p.join("storage") == dir);
    }
    let nested = dir.join("opencode");
    holds(&nested).then_some(nested)
}

/// The databases of a data folder, by name, and the one `OPENCODE_DB`
/// names (absolute, or relative to the default folder) when it is there.
pub fn databases(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| is_db_name(&e.file_name().to_string_lossy()) && e.path().is_file())
        .map(|e| e.path())
        .collect();
    if let Some(named) = std::env::var_os("OPENCODE_DB").filter(|d| !d.is_empty()).map(PathBuf::from) {
        let named = if named.is_absolute() { named } else { dir.join(named) };
        if named.parent() == Some(dir) && named.is_file() && !v.contains(&named) {
            v.push(named);
        }
    }
    v.sort();
    v
}

/// One project of the folder: where its sessions are, and what discovery
/// knows of them.
#[derive(Debug, Default)]
struct Found {
    cwd: String,
    rels: Vec<(PathBuf, String)>,
    agents: BTreeMap<String, AgentMeta>,
}

/// The projects of the data folder `dir`, each of its databases and its
/// storage read for the groups of sessions they hold.
pub(crate) fn scan(dir: &Path) -> (Vec<ProjectSource>, Vec<String>) {
    let mut found: BTreeMap<String, Found> = BTreeMap::new();
    let mut warnings = Vec::new();
    for db in databases(dir) {
        match groups(&db) {
            Ok(gs) => add(&mut found, &db, crate::walk::dir_name(&db).as_str(), gs),
            Err(e) => warnings.push(format!("cannot read the OpenCode database {e}")),
        }
    }
    let storage = dir.join("storage");
    if is_storage(&storage) {
        add(&mut found, &storage, "storage", super::storage::groups(&storage));
    }
    let projects = found
        .into_iter()
        .map(|(name, f)| {
            let files = f.rels.into_iter().map(|(path, rel)| source_file(path, rel)).collect();
            let cwd = Some(f.cwd).filter(|c| !c.is_empty());
            ProjectSource {
                files: IdVec::from_vec(files),
                cwd,
                agent_meta: f.agents,
                ..ProjectSource::empty(name, dir.to_path_buf(), OPENCODE)
            }
        })
        .collect();
    (projects, warnings)
}

/// A source file of the agent's: `rel` names its group.
pub(crate) fn source_file(path: PathBuf, rel: String) -> SourceFile {
    SourceFile { path, rel, class: FileClass::Main, agent_id_from_name: None, kept_version: false, client: OPENCODE }
}

fn add(found: &mut BTreeMap<String, Found>, path: &Path, source: &str, groups: Vec<GroupInfo>) {
    for g in groups {
        let f = found.entry(project_name(OPENCODE, &g.cwd)).or_default();
        f.cwd.clone_from(&g.cwd);
        f.rels.push((path.to_path_buf(), g.group.rel(source)));
        f.agents.extend(g.agents);
    }
}

/// The groups of sessions of the database `db`.
fn groups(db: &Path) -> Result<Vec<GroupInfo>, crate::sqlite::Error> {
    crate::sqlite::read(db, |c| {
        let has_project = c
            .query_row("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'project'", [], |_| Ok(()))
            .optional()?
            .is_some();
        let worktree = if has_project { "(SELECT worktree FROM project p WHERE p.id = s.project_id)" } else { "NULL" };
        let sql = format!(
            "SELECT s.project_id, s.directory, {worktree}, s.id, s.parent_id, s.title FROM session s \
             ORDER BY s.time_created, s.id"
        );
        let mut stmt = c.prepare(&sql)?;
        let mut rows = stmt.query([])?;
        let mut out: BTreeMap<Group, GroupInfo> = BTreeMap::new();
        while let Some(r) = rows.next()? {
            let project: Option<String> = r.get(0)?;
            let directory: Option<String> = r.get(1)?;
            let worktree: Option<String> = r.get(2)?;
            let (group, cwd) = group_of(project, directory, worktree);
            let info = out.entry(group.clone()).or_insert_with(|| GroupInfo { group, cwd, agents: Vec::new() });
            if r.get::<_, Option<String>>(4)?.is_some() {
                let id: String = r.get(3)?;
                let title: Option<String> = r.get(5)?;
                info.agents.push((id, agent_meta(title.as_deref().unwrap_or(""))));
            }
        }
        Ok(out.into_values().collect())
    })
}

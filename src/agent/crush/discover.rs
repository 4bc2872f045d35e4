//! Crush's folders (transcript-format, Appendix H): each project keeps its
//! own database, `<project>/.crush/crush.db`, and the projects are listed in
//! `projects.json` of the global data folder (`$CRUSH_GLOBAL_DATA`, else
//! `$XDG_DATA_HOME/crush`, else `~/.local/share/crush`):
//! `{"projects": [{"path", "data_dir", "last_accessed"}]}`.
//!
//! A folder is Crush's when it is that data folder (it holds
//! `projects.json`), a project's data folder (`.crush/` holding `crush.db`)
//! or a project holding one, or the folder a `cctree sync` archive keeps
//! Crush's databases in: `<escaped project path>/crush.db` for each project
//! ([`archived`]). Each project is one cctree project whose one source file
//! is its database, read as lines ([`super::lines`]).

use std::path::{Path, PathBuf};

use crate::agent::{CRUSH, project_name};
use crate::id::IdVec;
use crate::model::{AgentMeta, FileClass, ProjectSource, SourceFile};

/// The database's name in a project's data folder.
pub const DB: &str = "crush.db";

/// The global data folder.
pub fn default_dir() -> Option<PathBuf> {
    let abs = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|d| d.is_absolute());
    if let Some(d) = std::env::var_os("CRUSH_GLOBAL_DATA").filter(|d| !d.is_empty()).and_then(abs) {
        return Some(d);
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .and_then(abs)
        .or_else(|| etcetera::home_dir().ok().map(|h| h.join(".local").join("share")))?;
    Some(data.join("crush"))
}

/// A project: its working directory and its database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub cwd: String,
    pub db: PathBuf,
}

/// The archive's name of a project's folder: its path, `/` and `%` escaped.
pub fn escape(path: &str) -> String {
    path.replace('%', "%25").replace('/', "%2F")
}

fn unescape(name: &str) -> String {
    name.replace("%2F", "/").replace("%25", "%")
}

/// The projects `projects.json` in `dir` lists whose database exists.
fn listed(dir: &Path) -> Option<Vec<Place>> {
    let text = std::fs::read_to_string(dir.join("projects.json")).ok()?;
    let v = crate::json::parse(&text).ok()?;
    let list = v["projects"].as_array()?;
    let mut out: Vec<Place> = list
        .iter()
        .filter_map(|p| {
            let path = p["path"].as_str().filter(|s| !s.is_empty())?;
            let data = p["data_dir"].as_str().filter(|s| !s.is_empty()).map_or_else(
                || Path::new(path).join(".crush"),
                |d| if Path::new(d).is_absolute() { PathBuf::from(d) } else { Path::new(path).join(d) },
            );
            Some(Place { cwd: path.to_string(), db: data.join(DB) })
        })
        .filter(|p| p.db.is_file())
        .collect();
    out.sort_by(|a, b| a.cwd.cmp(&b.cwd));
    out.dedup();
    Some(out)
}

/// The projects of a sync archive's folder: `<escaped path>/crush.db`.
fn archived(dir: &Path) -> Vec<Place> {
    let mut out: Vec<Place> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let db = e.path().join(DB);
            (name.starts_with("%2F") && db.is_file()).then(|| Place { cwd: unescape(&name), db })
        })
        .collect();
    out.sort_by(|a, b| a.cwd.cmp(&b.cwd));
    out
}

/// The folder of Crush's that `dir` is or holds, when it is one.
pub fn claim(dir: &Path) -> Option<PathBuf> {
    if dir.join("projects.json").is_file() && listed(dir).is_some() {
        return Some(dir.to_path_buf());
    }
    if dir.join(DB).is_file() && dir.file_name().is_some_and(|n| n == ".crush") {
        return Some(dir.to_path_buf());
    }
    if dir.join(".crush").join(DB).is_file() {
        return Some(dir.join(".crush"));
    }
    (!archived(dir).is_empty()).then(|| dir.to_path_buf())
}

/// The projects of a folder [`claim`] gave.
pub fn places(dir: &Path) -> Vec<Place> {
    if let Some(list) = listed(dir) {
        return list;
    }
    if dir.join(DB).is_file() && dir.file_name().is_some_and(|n| n == ".crush") {
        let cwd = dir.parent().map(|p| crate::files::resolve(p).display().to_string()).unwrap_or_default();
        return vec![Place { cwd, db: dir.join(DB) }];
    }
    archived(dir)
}

/// Each project of the folder `dir`, with its sub-agents' sessions.
pub fn scan(dir: &Path) -> (Vec<ProjectSource>, Vec<String>) {
    let mut projects = Vec::new();
    let mut warnings = Vec::new();
    for p in places(dir) {
        let agents = match agents(&p.db) {
            Ok(a) => a,
            Err(e) => {
                warnings.push(format!("cannot read the Crush database {e}"));
                continue;
            }
        };
        let file = SourceFile {
            path: p.db.clone(),
            rel: DB.to_string(),
            class: FileClass::Main,
            agent_id_from_name: None,
            kept_version: false,
            client: CRUSH,
        };
        let data = p.db.parent().map_or_else(|| dir.to_path_buf(), Path::to_path_buf);
        projects.push(ProjectSource {
            files: IdVec::from_vec(vec![file]),
            cwd: Some(p.cwd.clone()).filter(|c| !c.is_empty()),
            agent_meta: agents,
            ..ProjectSource::empty(project_name(CRUSH, &p.cwd), data, CRUSH)
        });
    }
    (projects, warnings)
}

/// The sub-agents' sessions of a database: an `agent` call's session is
/// named `<assistant message id>$$<tool call id>`.
fn agents(db: &Path) -> Result<std::collections::BTreeMap<String, AgentMeta>, crate::sqlite::Error> {
    crate::sqlite::read(db, |c| {
        let mut out = std::collections::BTreeMap::new();
        if !crate::sqlite::has_table(c, "sessions")? {
            return Ok(out);
        }
        let mut stmt = c.prepare("SELECT id, title FROM sessions WHERE parent_session_id IS NOT NULL")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let id: String = r.get(0)?;
            let title: Option<String> = r.get(1)?;
            let call = id.split_once("$$").map(|(_, call)| call.to_string());
            let description = title.filter(|t| !t.is_empty() && t != "New Agent Session");
            out.insert(id, AgentMeta { agent_type: Some("agent".into()), description, tool_use_id: call });
        }
        Ok(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_escaped_path_reads_back() {
        for p in ["/home/me/src/demo", "/a b/%2F/c", "/"] {
            assert_eq!(unescape(&escape(p)), p);
            assert!(escape(p).starts_with("%2F"));
        }
    }
}

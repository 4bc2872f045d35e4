//! The JSON storage of OpenCode releases before 1.2 (transcript-format,
//! Appendix F, "Older releases"): `storage/project/<project>.json`,
//! `storage/session/<project>/<session>.json`,
//! `storage/message/<session>/<message>.json`,
//! `storage/part/<message>/<part>.json`, one record a file. Read as the same
//! lines as the database's ([`super::lines`]): the client's 1.2 copied these
//! files into its database once and left them, so a folder may hold both
//! (the database's line of an id wins, [`super::link`]).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::group::{Group, GroupInfo, agent_meta, group_of};

/// The `*.json` files of `dir`, by name.
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
        .collect();
    v.sort();
    v
}

fn read_json(path: &Path) -> Option<Value> {
    crate::json::parse(&std::fs::read_to_string(path).ok()?).ok()
}

fn stem(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// A session file and what it holds.
struct Session {
    path: PathBuf,
    info: Value,
}

/// The sessions of the storage `root`, with their group and its directory.
fn sessions(root: &Path) -> Vec<(Group, String, Session)> {
    let mut projects: Vec<PathBuf> = std::fs::read_dir(root.join("session"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    projects.sort();
    let mut out = Vec::new();
    for dir in projects {
        let project = stem(&dir);
        let worktree = read_json(&root.join("project").join(format!("{project}.json")))
            .and_then(|p| p["worktree"].as_str().map(str::to_string));
        for path in json_files(&dir) {
            let Some(info) = read_json(&path) else { continue };
            let directory = info["directory"].as_str().map(str::to_string);
            let (group, cwd) = group_of(Some(project.clone()), directory, worktree.clone());
            out.push((group, cwd, Session { path, info }));
        }
    }
    out
}

/// The groups of sessions the storage `root` holds.
pub(crate) fn groups(root: &Path) -> Vec<GroupInfo> {
    let mut out: std::collections::BTreeMap<Group, GroupInfo> = Default::default();
    for (group, cwd, s) in sessions(root) {
        let info = out.entry(group.clone()).or_insert_with(|| GroupInfo { group, cwd, agents: Vec::new() });
        if s.info["parentID"].as_str().is_some_and(|p| !p.is_empty()) {
            let id = s.info["id"].as_str().map_or_else(|| stem(&s.path), str::to_string);
            info.agents.push((id, agent_meta(s.info["title"].as_str().unwrap_or(""))));
        }
    }
    out.into_values().collect()
}

fn in_group(g: &Group, group: &Group) -> bool {
    *g == Group::All || g == group
}

/// Every file the group's lines are made of (for a cache's stamps).
pub(crate) fn sources(root: &Path, g: &Group) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for (group, _, s) in sessions(root) {
        if !in_group(g, &group) {
            continue;
        }
        let id = s.info["id"].as_str().map_or_else(|| stem(&s.path), str::to_string);
        out.push(s.path);
        for m in json_files(&root.join("message").join(&id)) {
            out.extend(json_files(&root.join("part").join(stem(&m))));
            out.push(m);
        }
    }
    out
}

/// Writes the lines of the group `g`'s sessions (see [`super::lines`]).
pub(crate) fn write(root: &Path, g: &Group, w: &mut dyn Write) -> std::io::Result<()> {
    let mut list: Vec<(i64, String, Session)> = sessions(root)
        .into_iter()
        .filter(|(group, _, _)| in_group(g, group))
        .map(|(_, _, s)| {
            let id = s.info["id"].as_str().map_or_else(|| stem(&s.path), str::to_string);
            (s.info["time"]["created"].as_i64().unwrap_or(i64::MIN), id, s)
        })
        .collect();
    list.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    for (_, id, s) in list {
        let project_id = s.info["projectID"].as_str().unwrap_or("").to_string();
        let project = read_json(&root.join("project").join(format!("{project_id}.json")));
        let mut line = serde_json::json!({ "type": "session", "info": s.info });
        if let Some(p) = project {
            line["project"] = p;
        }
        serde_json::to_writer(&mut *w, &line)?;
        w.write_all(b"\n")?;
        messages(root, &id, w)?;
    }
    Ok(())
}

/// The message lines of the session `id`, in the client's order.
fn messages(root: &Path, id: &str, w: &mut dyn Write) -> std::io::Result<()> {
    let mut list: Vec<(i64, String, String)> = json_files(&root.join("message").join(id))
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            let v = crate::json::parse(&text).ok()?;
            let mid = v["id"].as_str().map_or_else(|| stem(&path), str::to_string);
            Some((v["time"]["created"].as_i64().unwrap_or(i64::MIN), mid, v.to_string()))
        })
        .collect();
    list.sort();
    for (time, mid, info) in list {
        let s = |x: &str| Value::String(x.to_string()).to_string();
        write!(w, r#"{{"type":"message","id":{},"sessionID":{}"#, s(&mid), s(id))?;
        if time != i64::MIN {
            write!(w, r#","time_created":{time}"#)?;
        }
        write!(w, r#","info":{info},"parts":["#)?;
        let parts: Vec<(String, String)> = json_files(&root.join("part").join(&mid))
            .into_iter()
            .filter_map(|path| {
                let v = read_json(&path)?;
                Some((v["id"].as_str().map_or_else(|| stem(&path), str::to_string), v.to_string()))
            })
            .collect();
        for (i, (pid, data)) in parts.iter().enumerate() {
            let sep = if i == 0 { "" } else { "," };
            write!(w, r#"{sep}{{"id":{},"data":{data}}}"#, s(pid))?;
        }
        w.write_all(b"]}\n")?;
    }
    Ok(())
}

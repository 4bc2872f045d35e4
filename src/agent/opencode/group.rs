//! Which sessions of a database (or of the old storage) one cctree project
//! reads ([`Group`]), named in its source file's `rel`, and what a group's
//! sessions say of their project and sub-agents: shared by discovery, the
//! storage reader and the lines' writer.

use crate::model::AgentMeta;

/// Which sessions of a database (or storage folder) one project reads: a
/// repository's (by the client's project id), or those run outside any
/// repository in one working directory. Written into the source file's
/// `rel` (`<db>/project/<id>`, `<db>/directory/<dir>`, `/` and `%` escaped)
/// and read back by the lines' writer.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Group {
    Project(String),
    Directory(String),
    /// Every session (a database given alone).
    All,
}

impl Group {
    /// The source file's `rel` for the group of `source` (a database's file
    /// name, or `storage`).
    pub(crate) fn rel(&self, source: &str) -> String {
        match self {
            Group::Project(id) => format!("{source}/project/{}", escape(id)),
            Group::Directory(d) => format!("{source}/directory/{}", escape(d)),
            Group::All => source.to_string(),
        }
    }

    /// The group `rel` names, and what it is of (the database's name, or `storage`).
    pub(crate) fn of(rel: &str) -> (&str, Group) {
        let mut it = rel.splitn(3, '/');
        match (it.next(), it.next(), it.next()) {
            (Some(src), Some("project"), Some(id)) => (src, Group::Project(unescape(id))),
            (Some(src), Some("directory"), Some(d)) => (src, Group::Directory(unescape(d))),
            _ => (rel, Group::All),
        }
    }
}

fn escape(s: &str) -> String {
    s.replace('%', "%25").replace('/', "%2F")
}

fn unescape(s: &str) -> String {
    s.replace("%2F", "/").replace("%25", "%")
}

/// What one group of sessions holds: its working directory and its
/// sub-agents (their sessions' titles).
#[derive(Debug)]
pub(crate) struct GroupInfo {
    pub group: Group,
    pub cwd: String,
    pub agents: Vec<(String, AgentMeta)>,
}

/// The group of a session, and the directory its project is named by: its
/// project's worktree, or (outside a repository: the `global` project, a
/// worktree of `/`) its own directory.
pub(crate) fn group_of(
    project: Option<String>,
    directory: Option<String>,
    worktree: Option<String>,
) -> (Group, String) {
    let directory = directory.unwrap_or_default();
    match project {
        Some(p) if p != "global" && !p.is_empty() => {
            let cwd = worktree.filter(|w| !w.is_empty() && w != "/").unwrap_or_else(|| directory.clone());
            (Group::Project(p), cwd)
        }
        _ => (Group::Directory(directory.clone()), directory),
    }
}

/// What a sub-agent session's title says: `<description> (@<agent> subagent)`.
pub(crate) fn agent_meta(title: &str) -> AgentMeta {
    let parsed = title
        .strip_suffix(" subagent)")
        .and_then(|t| t.rsplit_once(" (@"))
        .map(|(desc, agent)| (desc.to_string(), agent.to_string()));
    match parsed {
        Some((description, agent_type)) => {
            AgentMeta { agent_type: Some(agent_type), description: Some(description), tool_use_id: None }
        }
        None => AgentMeta { description: Some(title.to_string()).filter(|t| !t.is_empty()), ..AgentMeta::default() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_survives_its_rel() {
        for g in [
            Group::Project("0439e573".into()),
            Group::Directory("/home/me/a b/%2F/x".into()),
            Group::Directory(String::new()),
            Group::All,
        ] {
            let rel = g.rel("opencode.db");
            assert_eq!(Group::of(&rel), ("opencode.db", g.clone()), "{rel}");
        }
    }

    #[test]
    fn a_sub_agent_title_names_its_agent() {
        let m = agent_meta("Sub task (@general subagent)");
        assert_eq!((m.description.as_deref(), m.agent_type.as_deref()), (Some("Sub task"), Some("general")));
        assert_eq!(agent_meta("plain").description.as_deref(), Some("plain"));
    }
}

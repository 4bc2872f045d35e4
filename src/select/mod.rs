//! Selection: which projects and conversations `render`, `stats` and `check`
//! show (`--project`, `--conversation`, `--since`, `--until`), between the
//! graph and the stages that read it.
//!
//! A [`Selection`] is decided per loaded project ([`Selection::pick`]): the
//! project is left out, kept whole, or cut down to the selected conversations
//! and what belongs to them ([`subset::restrict`]). The stages after it get a
//! [`Project`] like any other and never know about the selection, so what is
//! left out cannot show up in their output: it is not there. A project whose
//! every conversation is selected is kept whole (with what belongs to no
//! conversation: sub-agent transcripts no conversation spawned, entries of
//! unknown types, messages queued in sessions without a conversation).
//!
//! A [`Tally`] follows what the projects matched, so that a selection
//! matching nothing, or a `--conversation` naming nothing, is an error
//! ([`Selection::finish`]) rather than an empty site.

pub mod dates;
pub mod subset;

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Result, bail};
use jiff::tz::TimeZone;
use rustc_hash::FxHashMap;

use crate::graph::{ConversationId, Graph, NodeId, SessionId};
use crate::id::IdVec;
use crate::limits::{ID_PREFIX_MIN, START_DIR_BYTES, START_DIR_LINES};
use crate::model::{FileClass, ProjectSource};
use crate::project::Project;

pub use dates::{Bound, End};

/// What to keep of an archive. The default keeps everything.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// `--project` globs: (as given, compiled).
    projects: Vec<(String, glob::Pattern)>,
    /// `--conversation` ids, as given (deduplicated, in order).
    conversations: Vec<String>,
    since: Option<Bound>,
    until: Option<Bound>,
    /// How the inputs are named in messages (`examples/archive/projects`).
    input: String,
    /// The local time zone dates were read in (times in messages).
    tz: Option<TimeZone>,
    /// `--agent`: the clients whose projects are read (empty: all).
    agents: Vec<crate::model::Client>,
}

/// A project after [`Selection::pick`].
#[derive(Debug)]
pub enum Picked {
    /// Everything of it is selected.
    Whole(Project),
    /// Only some conversations (and what belongs to them).
    Part(Project),
}

impl Picked {
    pub fn project(&self) -> &Project {
        match self {
            Picked::Whole(p) | Picked::Part(p) => p,
        }
    }

    pub fn into_project(self) -> Project {
        match self {
            Picked::Whole(p) | Picked::Part(p) => p,
        }
    }

    pub fn is_whole(&self) -> bool {
        matches!(self, Picked::Whole(_))
    }
}

/// What the projects seen so far matched.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    /// Projects kept (whole or in part).
    pub projects: usize,
    /// Conversations kept.
    pub conversations: usize,
    /// `--conversation` ids that selected a conversation.
    pub matched: BTreeSet<String>,
    /// `--conversation` ids that named a conversation the dates left out,
    /// with its last activity.
    outside: BTreeMap<String, i64>,
    /// `--conversation` ids of messages in agents no conversation spawned.
    unowned: BTreeSet<String>,
    /// `--conversation` ids taken as a prefix (no id is exactly one), with
    /// the conversations whose ids they start: more than one is an error.
    prefixed: BTreeMap<String, BTreeSet<String>>,
}

impl Tally {
    /// Adds what a project re-used from a previous render matched (the same
    /// files and selection select the same: at least one conversation, with
    /// these `--conversation` ids).
    pub fn reused(&mut self, matched: &[String]) {
        self.projects += 1;
        self.conversations += 1;
        self.matched.extend(matched.iter().cloned());
        // Ids are uuids: one that is none matched as a prefix.
        for id in matched.iter().filter(|id| !looks_like_uuid(id)) {
            let n = self.prefixed.get(id).map_or(0, BTreeSet::len);
            self.prefixed
                .entry(id.clone())
                .or_default()
                .insert(format!("{n}: a conversation of a project unchanged since the last render"));
        }
    }
}

impl Selection {
    /// The selection of the command line: `--project` globs, `--conversation`
    /// ids, `--since` and `--until` (read in the local time zone `tz`);
    /// `input` names the inputs in messages.
    pub fn new(
        projects: &[String],
        conversations: &[String],
        since: Option<&str>,
        until: Option<&str>,
        tz: &TimeZone,
        input: &str,
    ) -> Result<Selection> {
        let mut globs = Vec::new();
        for p in projects {
            match glob::Pattern::new(p) {
                Ok(pat) => globs.push((p.clone(), pat)),
                Err(e) => bail!("--project {p:?} is not a valid pattern: {e} (use * and ?, [abc] for one of a set)"),
            }
        }
        let mut ids: Vec<String> = Vec::new();
        for c in conversations {
            let c = c.trim();
            if c.is_empty() {
                bail!("--conversation needs an id: a conversation's root uuid, a session id or a message uuid");
            }
            if !ids.iter().any(|i| i == c) {
                ids.push(c.to_string());
            }
        }
        let bound = |flag: &str, text: Option<&str>, end: End| -> Result<Option<Bound>> {
            text.map(|t| dates::parse(t, end, tz).map_err(|e| anyhow::anyhow!("{flag} {e}"))).transpose()
        };
        let since = bound("--since", since, End::Since)?;
        let until = bound("--until", until, End::Until)?;
        if let (Some(s), Some(u)) = (&since, &until) {
            if s.ms >= u.ms {
                bail!("--since {} is not before --until {}: no conversation can match", s.given, u.given);
            }
        }
        Ok(Selection {
            projects: globs,
            conversations: ids,
            since,
            until,
            input: input.to_string(),
            tz: Some(tz.clone()),
            agents: Vec::new(),
        })
    }

    /// Only the projects of these clients (`--agent`; none: every client's).
    #[must_use]
    pub fn with_agents(mut self, agents: &[crate::model::Client]) -> Selection {
        self.agents = agents.to_vec();
        self.agents.sort_unstable();
        self.agents.dedup();
        if crate::agent::ALL.iter().all(|c| self.agents.contains(c)) {
            self.agents.clear();
        }
        self
    }

    /// Nothing is left out.
    pub fn is_everything(&self) -> bool {
        self.projects.is_empty() && self.agents.is_empty() && !self.by_conversation()
    }

    /// Conversations are chosen (`--conversation`, `--since`, `--until`), not
    /// only projects.
    pub fn by_conversation(&self) -> bool {
        !self.conversations.is_empty() || self.since.is_some() || self.until.is_some()
    }

    /// The criteria as a canonical text, for cache keys (empty when
    /// everything is selected): the same text selects the same things from
    /// the same files.
    pub fn key(&self) -> String {
        if self.is_everything() {
            return String::new();
        }
        let mut projects: Vec<&str> = self.projects.iter().map(|(p, _)| p.as_str()).collect();
        projects.sort_unstable();
        projects.dedup();
        let mut ids: Vec<&str> = self.conversations.iter().map(String::as_str).collect();
        ids.sort_unstable();
        let agents: Vec<&str> = self.agents.iter().map(|a| a.name()).collect();
        format!(
            "select\0projects {:?}\0conversations {:?}\0since {:?}\0until {:?}\0agents {:?}",
            projects,
            ids,
            self.since.as_ref().map(|b| b.ms),
            self.until.as_ref().map(|b| b.ms),
            agents
        )
    }

    /// The criteria as given, for messages.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if !self.agents.is_empty() {
            let names: Vec<&str> = self.agents.iter().map(|a| a.name()).collect();
            parts.push(format!("--agent {}", names.join(",")));
        }
        parts.extend(self.projects.iter().map(|(p, _)| format!("--project {}", quote(p))));
        parts.extend(self.conversations.iter().map(|c| format!("--conversation {}", quote(c))));
        for (flag, b) in [("--since", &self.since), ("--until", &self.until)] {
            if let Some(b) = b {
                parts.push(format!("{flag} {} ({})", quote(&b.given), b.read_as));
            }
        }
        parts.join(" ")
    }

    /// Whether `--project` selects a project, decided before it is loaded:
    /// a glob matching its directory name, a directory one of its sessions
    /// started in ([`start_dirs`]), or the last part of one.
    pub fn wants(&self, source: &ProjectSource) -> bool {
        if !self.agents.is_empty() && !self.agents.contains(&source.client) {
            return false;
        }
        if self.projects.is_empty() || self.projects.iter().any(|(_, pat)| pat.matches(&source.name)) {
            return true;
        }
        let dirs = start_dirs(source);
        let last = |d: &str| d.trim_end_matches('/').rsplit('/').next().filter(|b| !b.is_empty()).map(str::to_string);
        let names: Vec<String> = dirs.iter().flat_map(|d| [Some(d.clone()), last(d)]).flatten().collect();
        self.projects.iter().any(|(_, pat)| names.iter().any(|n| pat.matches(n)))
    }

    /// Decides what of a loaded project (one [`Selection::wants`]) is
    /// selected (`None`: nothing), and counts it in `tally`.
    pub fn pick(&self, project: Project, tally: &mut Tally) -> Option<Picked> {
        let g = &project.graph;
        if !self.by_conversation() {
            tally.projects += 1;
            tally.conversations += g.conversations.len();
            return Some(Picked::Whole(project));
        }
        let named = self.named(g);
        for id in &self.conversations {
            if g.index.contains_key(id.as_str()) && !named.iter().flatten().any(|n| n == id) {
                tally.unowned.insert(id.clone());
            }
        }
        let prefixes = self.prefixes(g);
        for (i, ids) in named.iter_enumerated() {
            for id in ids.iter().filter(|id| prefixes.contains(**id)) {
                let c = &g.conversations[i];
                let title: String = c.title.chars().take(60).collect();
                let shown = format!("{} ({}): {title}", g.uuid(&project.entries, c.root), project.source.name);
                tally.prefixed.entry((*id).to_string()).or_default().insert(shown);
            }
        }
        let mut chosen = Vec::new();
        for (i, c) in g.conversations.iter_enumerated() {
            let ids = &named[i];
            if !self.conversations.is_empty() && ids.is_empty() {
                continue;
            }
            if self.in_range(c.last_ts) {
                chosen.push(i);
                tally.matched.extend(ids.iter().map(|id| id.to_string()));
            } else {
                for id in ids {
                    tally.outside.entry(id.to_string()).or_insert(c.last_ts);
                }
            }
        }
        if chosen.is_empty() {
            return None;
        }
        tally.projects += 1;
        tally.conversations += chosen.len();
        if chosen.len() == g.conversations.len() {
            Some(Picked::Whole(project))
        } else {
            Some(Picked::Part(subset::restrict(project, &chosen)))
        }
    }

    /// The `--conversation` ids that name a conversation of `picked` (what a
    /// project re-used by the next render matched: see [`Tally::reused`]).
    pub fn matched_in(&self, picked: &Project) -> Vec<String> {
        if self.conversations.is_empty() {
            return Vec::new();
        }
        let named = self.named(&picked.graph);
        let found: BTreeSet<&str> = named.iter().flatten().copied().collect();
        found.into_iter().map(str::to_string).collect()
    }

    /// The error for what did not match, once every project was seen.
    pub fn finish(&self, tally: &Tally) -> Result<()> {
        let hint = format!(
            "hint: `cctree stats {input}` lists the projects; `cctree stats --json --detail {input}` lists each \
             project's working directory (cwd) and its conversations: root, sessions, title, last activity",
            input = self.input
        );
        let where_ = if self.projects.is_empty() {
            self.input.clone()
        } else {
            let globs: Vec<String> = self.projects.iter().map(|(p, _)| format!("--project {}", quote(p))).collect();
            format!("the projects {} selects in {}", globs.join(" "), self.input)
        };
        let tz = self.tz.clone().unwrap_or(TimeZone::UTC);
        let mut problems = Vec::new();
        for (id, names) in tally.prefixed.iter().filter(|(_, n)| n.len() > 1) {
            problems.push(format!(
                "--conversation {} is ambiguous: the ids of {} conversations start with it; give more of one \
                 (or its root uuid):\n  {}",
                quote(id),
                names.len(),
                names.iter().map(|n| crate::term::escape(n).into_owned()).collect::<Vec<_>>().join("\n  ")
            ));
        }
        for id in self.conversations.iter().filter(|id| !tally.matched.contains(*id)) {
            match tally.outside.get(id) {
                _ if tally.unowned.contains(id) => problems.push(format!(
                    "--conversation {}: a message of a sub-agent transcript that no conversation spawned \
                     (select its project with --project to show it)",
                    quote(id)
                )),
                Some(ts) => problems.push(format!(
                    "--conversation {}: its conversation was last active {}, outside {}",
                    quote(id),
                    dates::show_ms(*ts, &tz),
                    self.range_text()
                )),
                None => problems.push(format!(
                    "--conversation {}: no conversation, session or message has this id in {where_}",
                    quote(id)
                )),
            }
        }
        // Nothing selected out of nothing (an empty archive) is no error.
        let empty = !self.is_everything() && tally.projects == 0;
        if problems.is_empty() && (empty || (self.by_conversation() && tally.conversations == 0)) {
            let what = if self.by_conversation() { "no conversation" } else { "no project" };
            problems.push(format!("{what} matches {} in {}", self.describe(), self.input));
        }
        if problems.is_empty() {
            return Ok(());
        }
        bail!("{}\n{hint}", problems.join("\n"))
    }

    fn range_text(&self) -> String {
        let mut parts = Vec::new();
        if let Some(s) = &self.since {
            parts.push(format!("--since {} ({})", quote(&s.given), s.read_as));
        }
        if let Some(u) = &self.until {
            parts.push(format!("--until {} ({})", quote(&u.given), u.read_as));
        }
        parts.join(" ")
    }

    /// A session recovered from the prompt history is shown: no
    /// `--conversation` is given (it names conversations of transcripts),
    /// and its last prompt is within `--since`/`--until`.
    pub fn keeps_recovered(&self, s: &crate::model::RecoveredSession) -> bool {
        self.conversations.is_empty() && self.in_range(s.last_ts())
    }

    fn in_range(&self, last_ts: i64) -> bool {
        self.since.as_ref().is_none_or(|s| last_ts >= s.ms) && self.until.as_ref().is_none_or(|u| last_ts < u.ms)
    }

    /// The `--conversation` ids taken as prefixes in `g`: long enough, and
    /// no message uuid or session id of `g` is exactly one of them.
    fn prefixes(&self, g: &Graph) -> BTreeSet<&str> {
        let mut out: BTreeSet<&str> = self
            .conversations
            .iter()
            .filter(|id| id.len() >= ID_PREFIX_MIN && !g.index.contains_key(id.as_str()))
            .map(String::as_str)
            .collect();
        if !out.is_empty() {
            for s in &g.sessions {
                out.remove(&*s.session_id);
            }
        }
        out
    }

    /// For each conversation of `g`, the `--conversation` ids that name it:
    /// its root, a session holding its nodes (or a `cctree fork` copy of
    /// it), a message of it or of an agent it spawned.
    fn named(&self, g: &Graph) -> IdVec<ConversationId, Vec<&str>> {
        let mut out: IdVec<ConversationId, Vec<&str>> = IdVec::filled(Vec::new(), g.conversations.len());
        if self.conversations.is_empty() {
            return out;
        }
        let mut hits: Vec<(ConversationId, &str)> = Vec::new();
        let mut owners = None;
        // An id names what has exactly this id; one that nothing has names
        // what starts with it (a prefix of `ID_PREFIX_MIN` characters or more).
        let prefixes = self.prefixes(g);
        let prefix = |id: &str| prefixes.contains(id);
        for id in &self.conversations {
            let nodes: Vec<NodeId> = match g.index.get(id.as_str()) {
                Some(&n) => vec![n],
                None if prefix(id) => {
                    g.index.iter().filter(|(u, _)| u.starts_with(id.as_str())).map(|(_, n)| *n).collect()
                }
                None => Vec::new(),
            };
            for n in nodes {
                let node = g.node(n);
                let c = if node.sidechain {
                    let owners = owners.get_or_insert_with(|| g.agent_owners());
                    node.agent.and_then(|a| owners.get(a)).copied().flatten()
                } else {
                    node.conversation
                };
                hits.extend(c.map(|c| (c, id.as_str())));
            }
        }
        let by_session: FxHashMap<SessionId, Vec<&str>> = g
            .sessions
            .iter_enumerated()
            .filter_map(|(i, s)| {
                let ids: Vec<&str> = self
                    .conversations
                    .iter()
                    .filter(|c| **c == *s.session_id || (prefix(c) && s.session_id.starts_with(c.as_str())))
                    .map(String::as_str)
                    .collect();
                (!ids.is_empty()).then_some((i, ids))
            })
            .collect();
        if !by_session.is_empty() {
            for (i, c) in g.conversations.iter_enumerated() {
                for s in c.sessions.iter().chain(c.junctions.iter().map(|j| &j.session)) {
                    hits.extend(by_session.get(s).into_iter().flatten().map(|id| (i, *id)));
                }
            }
        }
        for (c, id) in hits {
            if let Some(v) = out.get_mut(c) {
                if !v.contains(&id) {
                    v.push(id);
                }
            }
        }
        out
    }
}

/// The working directories a project's sessions started in: the first `cwd`
/// of each session file's main thread (Claude Code files a session under the
/// directory it starts in), read without loading the project: at most
/// [`START_DIR_LINES`] lines or [`START_DIR_BYTES`] of each file. Sorted,
/// without repeats.
pub fn start_dirs(source: &ProjectSource) -> Vec<String> {
    use std::io::BufRead;
    let mut dirs = BTreeSet::new();
    for f in source.files.iter().filter(|f| f.class == FileClass::Main) {
        let Ok(file) = std::fs::File::open(&f.path) else { continue };
        let mut reader = std::io::BufReader::new(std::io::Read::take(file, START_DIR_BYTES));
        let mut line = Vec::new();
        for _ in 0..START_DIR_LINES {
            line.clear();
            if reader.read_until(b'\n', &mut line).map_or(true, |n| n == 0) {
                break;
            }
            let Ok(v) = crate::json::parse(&String::from_utf8_lossy(&line)) else { continue };
            if v.get("isSidechain").and_then(serde_json::Value::as_bool) == Some(true) {
                continue;
            }
            if let Some(cwd) = v.get("cwd").and_then(serde_json::Value::as_str) {
                dirs.insert(cwd.to_string());
                break;
            }
        }
    }
    dirs.into_iter().collect()
}

/// `8-4-4-4-12` hexadecimal digits.
fn looks_like_uuid(id: &str) -> bool {
    let groups: Vec<&str> = id.split('-').collect();
    groups.len() == 5
        && groups.iter().zip([8, 4, 4, 4, 12]).all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// A value from the command line as the user could type it again.
fn quote(s: &str) -> String {
    crate::term::shell_quote(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_archive_is_no_error_unless_something_is_selected() {
        let tz = TimeZone::UTC;
        let everything = Selection::new(&[], &[], None, None, &tz, "in").unwrap();
        assert!(everything.finish(&Tally::default()).is_ok());
        let some = Selection::new(&["app".into()], &[], None, None, &tz, "in").unwrap();
        let err = some.finish(&Tally::default()).unwrap_err().to_string();
        assert!(err.contains("no project matches --project app in in"), "{err}");
    }
}

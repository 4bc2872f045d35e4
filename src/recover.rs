//! Sessions whose transcript the client deleted, recovered from its prompt
//! log: the loading side of what the site shows as "transcript deleted by
//! Claude Code's cleanup — N prompts recovered" (or, of Gemini CLI's
//! `logs.json`, "chat deleted — …"), for every agent alike
//! (transcript-format, "The prompt history", for the rules and why).
//!
//! - **Which log, which project.** Each agent says which logs a render of
//!   its folders reads and reads them into neutral lines by project
//!   ([`crate::agent::prompts`]); [`ByProject`] gathers them. A project with
//!   lines but no transcript left is rendered too.
//! - **What is gone.** A line is a surviving prompt, never recovered, when
//!   its session's transcript is in the project (or, by its file name, in
//!   any project of the input), or a prompt, command or
//!   shell command of the project's transcripts has the same text
//!   ([`PromptKey`]) within [`RECOVERED_MATCH`] of it (a copy made by a fork,
//!   or a line of a client that wrote no session id).
//! - **Which session.** The other lines are grouped by their session id;
//!   lines without one (older clients) by time: a run of them, in time
//!   order, ends where a surviving prompt of the project was typed or the
//!   next comes more than [`RECOVERED_GAP`] later.

use std::collections::BTreeMap;
use std::path::PathBuf;

use rustc_hash::FxHashSet;

use crate::agent::prompts::{ProjectPrompts, PromptLine, Prompts};
use crate::limits::{EXCERPT_CHARS, RECOVERED_GAP, RECOVERED_MATCH};
use crate::model::{Client, Kind, PromptLog, UserKind};
use crate::model::{RecoveredPrompt, RecoveredSession};
use crate::project::Project;

/// The lines of the prompt logs read, by project (its agent and name),
/// each project's in time order (then line), with the log they come from.
#[derive(Debug, Default)]
pub struct ByProject {
    map: BTreeMap<(Client, String), (ProjectPrompts, PathBuf, PromptLog)>,
}

impl ByProject {
    /// Gathers the logs `logs`, each read by the agent `Client` named it.
    pub fn of(logs: Vec<(Client, Prompts)>) -> ByProject {
        let mut map: BTreeMap<(Client, String), (ProjectPrompts, PathBuf, PromptLog)> = BTreeMap::new();
        for (client, prompts) in logs {
            for p in prompts.projects {
                match map.entry((client, p.name.clone())) {
                    std::collections::btree_map::Entry::Occupied(mut o) => o.get_mut().0.lines.extend(p.lines),
                    std::collections::btree_map::Entry::Vacant(v) => {
                        v.insert((p, prompts.path.clone(), prompts.log));
                    }
                }
            }
        }
        for (p, _, _) in map.values_mut() {
            p.lines.sort_by_key(|e| (e.timestamp_ms, e.line));
        }
        ByProject { map }
    }

    fn get(&self, client: Client, name: &str) -> Option<&(ProjectPrompts, PathBuf, PromptLog)> {
        self.map.get(&(client, name.to_string()))
    }

    /// The lines of the project `name` of `client`.
    pub fn lines(&self, client: Client, name: &str) -> &[PromptLine] {
        self.get(client, name).map_or(&[], |(p, _, _)| p.lines.as_slice())
    }

    /// The log the lines of project `name` of `client` come from.
    pub fn log_of(&self, client: Client, name: &str) -> Option<(&std::path::Path, PromptLog)> {
        self.get(client, name).map(|(_, path, log)| (path.as_path(), *log))
    }

    /// The working directory the log names for project `name` of `client`:
    /// what the project is named by when no transcript of it is left.
    pub fn path(&self, client: Client, name: &str) -> Option<&str> {
        self.get(client, name)?.0.cwd.as_deref()
    }

    /// The projects that have lines: agent, name and folder.
    pub fn projects(&self) -> impl Iterator<Item = (Client, &str, &std::path::Path)> {
        self.map.iter().map(|((c, name), (p, _, _))| (*c, name.as_str(), p.dir.as_path()))
    }

    /// A fingerprint of the lines of project `name` of `client` (part of
    /// its cache key: its pages depend on them).
    pub fn fingerprint(&self, client: Client, name: &str) -> String {
        let mut h = blake3::Hasher::new();
        if let Some((p, path, log)) = self.get(client, name) {
            for part in [p.cwd.as_deref().unwrap_or("\u{1}"), &path.to_string_lossy(), log.file, log.gone] {
                h.update(part.as_bytes());
                h.update(b"\0");
            }
        }
        for e in self.lines(client, name) {
            for part in [&e.prompt, e.session_id.as_deref().unwrap_or("\u{1}")] {
                h.update(part.as_bytes());
                h.update(b"\0");
            }
            h.update(&e.timestamp_ms.to_le_bytes());
            h.update(&e.line.to_le_bytes());
            for (id, text) in &e.pasted {
                h.update(id.as_bytes());
                h.update(b"\0");
                h.update(text.as_bytes());
                h.update(b"\0");
            }
        }
        h.finalize().to_hex()[..32].to_string()
    }
}

/// What a prompt is compared by: a slash command by its name, a shell
/// command (`!`) by what was run, other prompts by their first
/// [`EXCERPT_CHARS`] characters, trimmed (the transcript's excerpt of them).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PromptKey(String);

impl PromptKey {
    /// The keys a history line may match: its text (its pastes held inline
    /// put back in place of their `[Pasted text #N …]`, as the transcript
    /// has them), and, when it starts with `/` or `!`, the command or shell
    /// command it may have been (a `/path` typed is a prompt).
    pub fn of_line(e: &PromptLine) -> Vec<PromptKey> {
        let mut text = e.prompt.clone();
        for (id, content) in &e.pasted {
            let marker = format!("[Pasted text #{id}");
            if let Some(at) = text.find(&marker) {
                let end = text[at..].find(']').map_or(text.len(), |i| at + i + 1);
                text.replace_range(at..end, content);
            }
        }
        let t = text.trim();
        let mut keys = vec![PromptKey(cut(t).to_string())];
        if let Some(cmd) = t.strip_prefix('/') {
            let name = cmd.split_whitespace().next().unwrap_or("");
            keys.push(PromptKey(format!("/{name}")));
        }
        if let Some(shell) = t.strip_prefix('!') {
            keys.push(PromptKey(format!("!{}", cut(shell.trim()))));
        }
        keys
    }

    /// The key of a transcript's prompt, command or shell command, from its
    /// excerpt.
    fn of_excerpt(kind: UserKind, excerpt: &str) -> Option<PromptKey> {
        let inner = |tag: &str| {
            let open = format!("<{tag}>");
            let at = excerpt.find(&open)? + open.len();
            let rest = &excerpt[at..];
            Some(rest[..rest.find(&format!("</{tag}>")).unwrap_or(rest.len())].trim().to_string())
        };
        match kind {
            UserKind::Prompt => Some(PromptKey(cut(excerpt.trim()).to_string())),
            UserKind::Command => {
                let name = inner("command-name")?;
                Some(PromptKey(if name.starts_with('/') { name } else { format!("/{name}") }))
            }
            UserKind::Bash => Some(PromptKey(format!("!{}", cut(&inner("bash-input")?)))),
            _ => None,
        }
    }
}

fn cut(s: &str) -> &str {
    match s.char_indices().nth(EXCERPT_CHARS) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// What the project's surviving transcripts hold: their sessions, and
/// each prompt's key with the times it was typed at.
struct Surviving<'p> {
    sessions: FxHashSet<&'p str>,
    prompts: rustc_hash::FxHashMap<PromptKey, Vec<i64>>,
}

impl<'p> Surviving<'p> {
    fn of(p: &'p Project) -> Surviving<'p> {
        let mut s = Surviving { sessions: FxHashSet::default(), prompts: Default::default() };
        for e in &p.entries {
            if let Some(id) = e.session_id.as_deref() {
                s.sessions.insert(id);
            }
            if e.kind != Kind::User || e.sidechain {
                continue;
            }
            let (Some(ts), Some(key)) = (e.timestamp, PromptKey::of_excerpt(e.user_kind, &e.excerpt)) else {
                continue;
            };
            s.prompts.entry(key).or_default().push(ts);
        }
        s
    }

    /// The line is a prompt a surviving transcript holds.
    fn holds(&self, e: &PromptLine) -> bool {
        if e.session_id.as_deref().is_some_and(|id| self.sessions.contains(id)) {
            return true;
        }
        let window = i64::try_from(RECOVERED_MATCH.as_millis()).unwrap_or(i64::MAX);
        PromptKey::of_line(e)
            .iter()
            .filter_map(|k| self.prompts.get(k))
            .any(|times| times.iter().any(|t| t.abs_diff(e.timestamp_ms) <= window.unsigned_abs()))
    }
}

/// The sessions of project `p` that only its prompt log `log` holds, from
/// `lines` (the project's, in time order: [`ByProject::lines`]), oldest
/// first. `elsewhere`: a session id has a transcript in another project of
/// the input (a session that moved with its working directory).
pub fn sessions(
    p: &Project,
    lines: &[PromptLine],
    log: PromptLog,
    elsewhere: &dyn Fn(&str) -> bool,
) -> Vec<RecoveredSession> {
    if lines.is_empty() {
        return Vec::new();
    }
    let surviving = Surviving::of(p);
    group(lines, log, |e| surviving.holds(e) || e.session_id.as_deref().is_some_and(elsewhere))
}

/// The sessions of `lines` (in time order) that `held` does not hold:
/// grouped by session id, or without one by time (see the module
/// documentation); oldest first.
fn group(lines: &[PromptLine], log: PromptLog, held: impl Fn(&PromptLine) -> bool) -> Vec<RecoveredSession> {
    let gap = i64::try_from(RECOVERED_GAP.as_millis()).unwrap_or(i64::MAX);
    let mut by_id: BTreeMap<&str, Vec<RecoveredPrompt>> = BTreeMap::new();
    let mut runs: Vec<Vec<RecoveredPrompt>> = Vec::new();
    let mut open = false;
    for e in lines {
        if held(e) {
            open = false;
            continue;
        }
        let prompt =
            RecoveredPrompt { ts: e.timestamp_ms, text: e.prompt.clone(), pasted: e.pasted.clone(), line: e.line };
        if let Some(id) = e.session_id.as_deref() {
            by_id.entry(id).or_default().push(prompt);
            continue;
        }
        let last = runs.last().and_then(|r| r.last()).map(|q| q.ts);
        match runs.last_mut() {
            Some(run) if open && last.is_some_and(|t| e.timestamp_ms.saturating_sub(t) <= gap) => run.push(prompt),
            _ => runs.push(vec![prompt]),
        }
        open = true;
    }
    let mut out: Vec<RecoveredSession> = by_id
        .into_iter()
        .map(|(id, prompts)| RecoveredSession { key: id.to_string(), session_id: Some(id.to_string()), prompts, log })
        .chain(runs.into_iter().map(|prompts| RecoveredSession {
            key: format!("h-{}", prompts[0].ts),
            session_id: None,
            prompts,
            log,
        }))
        .collect();
    out.sort_by(|a, b| (a.first_ts(), &a.key).cmp(&(b.first_ts(), &b.key)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: PromptLog = PromptLog { file: "log", what: "a log", gone: "gone" };

    fn line(n: u32, minute: i64, text: &str, session: Option<&str>) -> PromptLine {
        PromptLine {
            line: n,
            prompt: text.into(),
            timestamp_ms: 1_770_000_000_000 + minute * 60_000,
            session_id: session.map(str::to_string),
            pasted: Vec::new(),
        }
    }

    fn shape(sessions: &[RecoveredSession]) -> Vec<(String, Vec<u32>)> {
        sessions.iter().map(|s| (s.key.clone(), s.prompts.iter().map(|p| p.line).collect())).collect()
    }

    #[test]
    fn lines_group_by_session_or_else_by_time_and_held_ones_split_a_run() {
        let lines = [
            line(1, 0, "a", None),
            line(2, 30, "b", None),
            line(3, 90, "c", None), // 60 minutes after b: the same session (not more than an hour)
            line(4, 151, "d", None), // 61 minutes later: another
            line(5, 152, "held", None),
            line(6, 153, "e", None), // after a surviving prompt: another
            line(7, 154, "f", Some("s1")),
            line(8, 400, "g", Some("s1")), // hours later, same id: same session
            line(9, 155, "h", Some("s0")),
        ];
        let mut sorted = lines.to_vec();
        sorted.sort_by_key(|e| (e.timestamp_ms, e.line));
        let got = group(&sorted, LOG, |e| e.prompt == "held");
        let t = |m: i64| format!("h-{}", 1_770_000_000_000 + m * 60_000);
        assert_eq!(
            shape(&got),
            [
                (t(0), vec![1, 2, 3]),
                (t(151), vec![4]),
                (t(153), vec![6]),
                ("s1".into(), vec![7, 8]),
                ("s0".into(), vec![9]),
            ]
        );
        assert_eq!(got[3].session_id.as_deref(), Some("s1"));
        assert_eq!(got[0].session_id, None);
        assert!(group(&sorted, LOG, |_| true).is_empty());
    }

    #[test]
    fn a_line_and_a_transcripts_prompt_compare_as_the_client_wrote_them() {
        let mut paste = line(1, 0, "[Pasted text #1 +2 lines] why?", None);
        paste.pasted = vec![("1".into(), "x\ny".into())];
        let hits = |l: &PromptLine, k: Option<PromptKey>| PromptKey::of_line(l).contains(&k.unwrap());
        assert!(hits(&paste, PromptKey::of_excerpt(UserKind::Prompt, "x\ny why?")));
        let cmd = line(2, 0, "/compact keep the tests", None);
        let from_transcript = PromptKey::of_excerpt(
            UserKind::Command,
            "<command-name>/compact</command-name>\n<command-args>keep</command-args>",
        );
        assert!(hits(&cmd, from_transcript));
        let shell = line(3, 0, "!cargo test", None);
        assert!(hits(&shell, PromptKey::of_excerpt(UserKind::Bash, "<bash-input>cargo test</bash-input>")));
        let long = "w".repeat(300);
        assert_eq!(PromptKey::of_line(&line(4, 0, &format!("  {long}  "), None))[0].0.chars().count(), EXCERPT_CHARS);
        assert_eq!(PromptKey::of_excerpt(UserKind::ToolResult, "x"), None);
        // A path typed at the start of a prompt is a prompt, not a command.
        let path = line(5, 0, "/path/to/file is odd", None);
        assert!(hits(&path, PromptKey::of_excerpt(UserKind::Prompt, "/path/to/file is odd")));
        assert!(!hits(
            &line(6, 0, "/compact", None),
            PromptKey::of_excerpt(UserKind::Command, "<command-name>/clear</command-name>")
        ));
    }
}

//! Links a project's rollout lines into the graph's input (transcript-format,
//! Appendix C): Codex writes no parent per line, so the parents are derived
//! from the order of the lines.
//!
//! - A node's id is `<history id>:<ordinal>`, the history being the last
//!   uuid of its file's name (the thread, or a rollback's segment), and its
//!   parent the node before it in its file.
//! - A file that continues a history (`history_base {thread_id,
//!   end_ordinal_exclusive}`: a rollback's segment, a fork) hangs its first
//!   node under the last node of that history before the cut (following the
//!   base's own base). A segment keeps its thread's session, so the turns it
//!   abandoned and the segment are two futures of one session (a rewind); a
//!   fork is another session (a cross-session fork).
//! - `thread_rolled_back {num_turns}` (older clients) moves the tip back
//!   before the last `num_turns` prompts: what follows is a sibling branch
//!   (`num_turns: 0` moves nothing, as the client's replay).
//! - A sub-agent's file (`parent_thread_id`) is an agent (sidechain) of its
//!   own thread; the copy of its parent's history it starts with (from the
//!   parent's `session_meta` through the `turn_aborted` the copy ends with)
//!   is not a node: those lines are the parent's, shown there. The parent's
//!   `spawn_agent` result names the agent (`item_completed
//!   SubAgentActivity`).
//! - A file from before the envelope (September 2025) has a time on its
//!   session's line only: its first node takes it, the others have none.
//! - `compacted` is joined after the node before it (a compaction);
//!   `token_count` gives its usage to the reply before it; `turn_context`
//!   its model to the replies after it.
//!
//! Every field set here is computed again from the lines' own facts, so
//! linking entries resumed from a parse cache gives the same result.

use rustc_hash::FxHashMap;

use crate::model::ProjectSource;
use crate::model::{Entries, Entry, Kind, Meta, UserKind};

/// What a file says of itself (its first `session_meta`).
#[derive(Default, Clone)]
struct FileMeta {
    history: String,
    /// The session's time, when the file is from before the envelope (its
    /// other lines have none).
    bare_start: Option<i64>,
    thread: Option<Box<str>>,
    session: Option<Box<str>>,
    parent_thread: Option<Box<str>>,
    base: Option<(String, u64)>,
}

/// Links every Codex entry of the project (see the module documentation).
pub(super) fn link(source: &ProjectSource, entries: &mut Entries) {
    let all = entries.as_mut_slice();
    let mut histories: FxHashMap<String, Vec<(u64, Box<str>)>> = FxHashMap::default();
    let mut bases: FxHashMap<String, (String, u64)> = FxHashMap::default();
    let mut pending: Vec<(usize, String, u64)> = Vec::new();
    let mut start = 0;
    while start < all.len() {
        let file = all[start].loc.file;
        let end = start + all[start..].iter().take_while(|e| e.loc.file == file).count();
        let Some(f) = source.files.get(file) else {
            start = end;
            continue;
        };
        let meta = file_meta(&f.rel, &all[start..end]);
        if let Some(b) = &meta.base {
            bases.insert(meta.history.clone(), b.clone());
        }
        let first = link_file(&meta, &mut all[start..end]);
        let nodes = histories.entry(meta.history.clone()).or_default();
        for e in &all[start..end] {
            if let Some(u) = &e.uuid {
                nodes.push((ordinal(u), u.clone()));
            }
        }
        if let (Some(i), Some((h, k))) = (first, meta.base) {
            pending.push((start + i, h, k));
        }
        start = end;
    }
    for nodes in histories.values_mut() {
        nodes.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    }
    for (i, mut history, mut cut) in pending {
        // A history the project lacks (its file deleted, or not given): the
        // parent it names dangles (`check` reports it, the graph makes a root).
        all[i].parent = Some(format!("{history}:{cut}").into());
        // At most one step per history: a cycle of bases ends.
        for _ in 0..=bases.len() {
            let before = histories.get(&history).and_then(|n| {
                let at = n.partition_point(|(o, _)| *o < cut);
                at.checked_sub(1).map(|j| n[j].1.clone())
            });
            if let Some(p) = before {
                all[i].parent = Some(p);
                break;
            }
            match bases.get(&history) {
                Some((h, k)) => {
                    cut = cut.min(*k);
                    history = h.clone();
                }
                None => break,
            }
        }
    }
}

/// The ordinal of a node id (`u64::MAX` for a line key `L<n>`).
fn ordinal(uuid: &str) -> u64 {
    uuid.rsplit(':').next().and_then(|o| o.parse().ok()).unwrap_or(u64::MAX)
}

/// The history a file holds: the last uuid of its name (`rollout-<time>-<thread>[_<segment>].jsonl`).
pub(crate) fn history_of(rel: &str) -> String {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let live = crate::layout::split_kept(name).unwrap_or_else(|| name.to_string());
    let stem = live.trim_end_matches(".jsonl");
    let last = stem.rsplit('_').next().unwrap_or(stem);
    // `…-<8>-<4>-<4>-<4>-<12>`: the last 36 characters.
    match last.len().checked_sub(36) {
        Some(at) if last.is_char_boundary(at) => last[at..].to_string(),
        _ => last.to_string(),
    }
}

fn file_meta(rel: &str, es: &[Entry]) -> FileMeta {
    let mut m = FileMeta { history: history_of(rel), ..FileMeta::default() };
    if let Some((e, group)) = es.iter().find_map(|e| match &e.meta {
        Some(Meta::SessionStart { group }) => Some((e, group)),
        _ => None,
    }) {
        m.thread = e.session_id.clone();
        if e.subtype.as_deref() == Some(super::header::BEFORE_ENVELOPE) {
            m.bare_start = e.timestamp;
        }
        m.session = group.clone().or_else(|| e.session_id.clone());
        m.parent_thread = e.agent_id.clone();
        m.base = e.logical_parent.as_deref().and_then(|b| {
            let (t, k) = b.rsplit_once(':')?;
            Some((t.to_string(), k.parse().ok()?))
        });
    }
    m
}

/// Links the lines of one file; returns the index of its first node.
fn link_file(m: &FileMeta, es: &mut [Entry]) -> Option<usize> {
    let agent = m.parent_thread.is_some();
    let copied = if agent { copied_prefix(es) } else { 0..0 };
    let spawns: FxHashMap<Box<str>, Box<str>> = es
        .iter()
        .filter_map(|e| match &e.meta {
            Some(Meta::AgentStarted { call }) => Some((call.clone(), e.spawned_agent.clone()?)),
            _ => None,
        })
        .collect();
    let session = if agent { m.session.clone() } else { m.thread.clone() };
    let mut tip: Option<Box<str>> = None;
    let mut first = None;
    let mut turns: Vec<Option<Box<str>>> = Vec::new();
    let mut last_reply: Option<usize> = None;
    let mut model: Option<Box<str>> = None;
    for i in 0..es.len() {
        let e = &mut es[i];
        if matches!(e.meta, Some(Meta::SessionStart { .. })) {
            // Its fields are what the link reads (they stay as read).
            continue;
        }
        e.session_id.clone_from(&session);
        e.sidechain = agent;
        e.agent_id = if agent { m.thread.clone() } else { None };
        match e.kind.name() {
            "codex:turn_context" => model.clone_from(&e.model),
            "codex:event_msg" if e.usage.is_some() => {
                if let Some(r) = last_reply.take() {
                    es[r].usage = es[i].usage;
                }
                continue;
            }
            super::header::ROLLED_BACK => {
                // `thread_rolled_back`: back before the last `num_turns` prompts
                // (none for 0, as the client replays it).
                let turns_back = match e.meta {
                    Some(Meta::Rollback { turns }) => turns,
                    _ => None,
                };
                let n: usize = turns_back.and_then(|t| usize::try_from(t).ok()).unwrap_or(1);
                let keep = turns.len().saturating_sub(n);
                if keep < turns.len() {
                    tip = turns[keep].clone();
                    turns.truncate(keep);
                }
                continue;
            }
            _ => {}
        }
        let Some(key) = e.message_id.as_deref() else { continue };
        if copied.contains(&i) {
            e.uuid = None;
            e.parent = None;
            continue;
        }
        let uuid: Box<str> = format!("{}:{key}", m.history).into();
        if e.kind == Kind::User && e.user_kind == UserKind::Prompt {
            turns.push(tip.clone());
        }
        if e.kind == Kind::System {
            // `compacted`: joined after what it compacted.
            e.parent = None;
            e.logical_parent = tip.clone();
        } else {
            e.parent = tip.clone();
        }
        if e.kind == Kind::Assistant {
            e.model.clone_from(&model);
            e.usage = None;
            last_reply = Some(i);
        }
        if let Some(r) = e.tool_results.first() {
            e.spawned_agent = spawns.get(&r.tool_use_id).cloned();
        }
        if first.is_none() && e.timestamp.is_none() {
            // Before the envelope only the session's line has a time: its first message takes it.
            e.timestamp = m.bare_start;
        }
        first.get_or_insert(i);
        e.uuid = Some(uuid.clone());
        tip = Some(uuid);
    }
    first
}

/// The lines of a sub-agent's file that copy its parent's history: from the
/// parent's `session_meta` (the file's second) through the first
/// `turn_aborted` after it (none: no copy).
fn copied_prefix(es: &[Entry]) -> std::ops::Range<usize> {
    let metas: Vec<usize> = es
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e.meta, Some(Meta::SessionStart { .. })))
        .map(|(i, _)| i)
        .take(2)
        .collect();
    let [_, second] = metas[..] else { return 0..0 };
    match es[second..].iter().position(|e| e.user_kind == UserKind::Interrupt) {
        Some(j) => second..second + j + 1,
        None => 0..0,
    }
}

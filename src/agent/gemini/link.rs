//! Replays each Gemini CLI session file as the client loads it
//! (transcript-format, Appendix D) to give its records ids and parents:
//!
//! - A record's node id is its `id`; its node is the **last** line with that
//!   id in the file (the client replaces a record in place: last write
//!   wins), and its parent the record before it in the list when it was
//!   first put there.
//! - `$rewindTo <id>` removes that record and every one after it: the next
//!   record hangs under the one before it, so the abandoned records, still
//!   earlier in the file, are a sibling branch (a rewind).
//! - `$set {messages}` replaces the list. Records the file had already (a
//!   resume's whole history, the list a rewind leaves) only move the tip
//!   to the last of them; a list that brings messages of its own (the
//!   session's context when the list was empty; after a conversation, the
//!   summary `/compress` replaced the history with) is a node of its own:
//!   the context a root, the summary a compaction joined after the tip.
//! - A sub-agent's file (`chats/<parent session id>/<agent id>.jsonl`) is an
//!   agent of its parent's session; its `invoke_agent` call names its task
//!   (and, in `agentId`, the file). A background agent's file
//!   (`chats/skill-extraction-<8 hex>/<agent id>.jsonl`: the client's memory
//!   service, started with the TUI, names the folder by its own run, not by
//!   a session) hangs from the session it ran in: the one started last at
//!   or before the agent's first record, at that session's last record
//!   before it (else its first). A sub-agent whose parent session's chat
//!   is gone stays an agent of no conversation.
//!
//! Every field set here is computed again from the lines' own facts (a
//! parse resumed from the cache links the same way).

use rustc_hash::{FxHashMap, FxHashSet};

use super::header::SET;
use crate::model::{Entries, Entry, Kind, Meta, UserKind};
use crate::model::{FileClass, ProjectSource};

/// Links every Gemini entry of the project, file by file.
pub(super) fn link(source: &ProjectSource, entries: &mut Entries) {
    let all = entries.as_mut_slice();
    let mut start = 0;
    while start < all.len() {
        let file = all[start].loc.file;
        let end = start + all[start..].iter().take_while(|e| e.loc.file == file).count();
        if let Some(f) = source.files.get(file) {
            // `chats/<parent session id>/<agent id>.jsonl`.
            let parent =
                (f.class == FileClass::Subagent).then(|| f.rel.split('/').rev().nth(1).map(Into::into)).flatten();
            link_file(&mut all[start..end], parent, f.agent_id_from_name.as_deref());
        }
        start = end;
    }
    attach_background_agents(source, all);
}

/// Whether `s` is shaped like a session id (a UUID): the client names a
/// sub-agent's folder by its parent session's id, a background agent's by
/// its run (`skill-extraction-…`).
fn is_session_id(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// A session's records with their times, in time order.
type Records = Vec<(i64, Box<str>)>;

/// Hangs each background agent's first record from the session it ran in
/// (see the module documentation). Linear: one pass over the entries, one
/// search per agent file.
fn attach_background_agents(source: &ProjectSource, all: &mut [Entry]) {
    // Each main file's start, and its records in time order.
    let mut sessions: Vec<(i64, usize, Records)> = Vec::new();
    // Each background agent file's first node: (its start, its entry).
    let mut agents: Vec<(i64, usize)> = Vec::new();
    let mut i = 0;
    while i < all.len() {
        let file = all[i].loc.file;
        let end = i + all[i..].iter().take_while(|e| e.loc.file == file).count();
        let es = &all[i..end];
        match source.files.get(file) {
            Some(f) if f.class == FileClass::Main => {
                let started = es.iter().find_map(|e| e.timestamp);
                let mut nodes: Vec<(i64, Box<str>)> =
                    es.iter().filter_map(|e| Some((e.timestamp?, e.uuid.clone()?))).collect();
                nodes.sort();
                if let Some(t) = started {
                    sessions.push((t, i, nodes));
                }
            }
            Some(f)
                if f.class == FileClass::Subagent
                    && f.rel.split('/').rev().nth(1).is_some_and(|d| !is_session_id(d)) =>
            {
                let first = es.iter().position(|e| e.uuid.is_some() && e.parent.is_none());
                if let (Some(at), Some(t)) = (first, es.iter().find_map(|e| e.timestamp)) {
                    agents.push((t, i + at));
                }
            }
            _ => {}
        }
        i = end;
    }
    sessions.sort_by_key(|s| (s.0, s.1));
    for (t, at) in agents {
        let ran_in = sessions.partition_point(|s| s.0 <= t);
        let Some((_, _, nodes)) = ran_in.checked_sub(1).map(|k| &sessions[k]) else { continue };
        let before = nodes.partition_point(|n| n.0 <= t);
        let node = before.checked_sub(1).map_or_else(|| nodes.first(), |k| nodes.get(k));
        all[at].parent = node.map(|n| n.1.clone());
    }
}

/// The list the client holds while it reads the file.
#[derive(Default)]
struct List {
    ids: Vec<Box<str>>,
    at: FxHashMap<Box<str>, usize>,
}

impl List {
    fn push(&mut self, id: Box<str>) {
        self.at.insert(id.clone(), self.ids.len());
        self.ids.push(id);
    }
    fn cut(&mut self, id: &str) {
        let keep = self.at.get(id).copied().unwrap_or(0);
        for gone in self.ids.drain(keep..) {
            self.at.remove(&gone);
        }
    }
    fn reset(&mut self, ids: impl IntoIterator<Item = Box<str>>) {
        self.ids.clear();
        self.at.clear();
        ids.into_iter().for_each(|id| self.push(id));
    }
}

fn link_file(es: &mut [Entry], agent_parent: Option<Box<str>>, agent: Option<&str>) {
    // The last line of each record id: its node.
    let mut last: FxHashMap<Box<str>, usize> = FxHashMap::default();
    for (i, e) in es.iter().enumerate() {
        if let Some(id) = &e.message_id {
            last.insert(id.clone(), i);
        }
    }
    // Calls a record of its own answers: their results are not the reply's.
    let answered: FxHashSet<Box<str>> = es
        .iter()
        .filter(|e| e.kind == Kind::User)
        .flat_map(|e| e.tool_results.iter().map(|r| r.tool_use_id.clone()))
        .collect();
    for e in es.iter_mut().filter(|e| e.kind == Kind::Assistant) {
        e.tool_results.retain(|r| !answered.contains(&r.tool_use_id));
    }
    let sidechain = agent_parent.is_some();
    let mut session: Option<Box<str>> = agent_parent.clone();
    let mut list = List::default();
    let mut seen: FxHashSet<Box<str>> = FxHashSet::default();
    let mut parent_of: FxHashMap<Box<str>, Option<Box<str>>> = FxHashMap::default();
    let mut ts = None;
    for (i, e) in es.iter_mut().enumerate() {
        // The metadata line and `$set {sessionId}` name the session (a line
        // linked before names the session it was in: the same).
        if !sidechain && e.session_id.is_some() && e.message_id.is_none() {
            session.clone_from(&e.session_id);
        }
        e.session_id.clone_from(&session);
        e.sidechain = sidechain;
        e.agent_id = agent.filter(|_| sidechain).map(Into::into);
        match e.timestamp {
            Some(t) => ts = Some(t),
            None => e.timestamp = ts,
        }
        if let Some(id) = e.message_id.clone() {
            if !list.at.contains_key(&id) {
                parent_of.insert(id.clone(), list.ids.last().cloned());
                list.push(id.clone());
            }
            seen.insert(id.clone());
            let is_node = last.get(&id) == Some(&i);
            e.uuid = is_node.then(|| id.clone());
            e.parent = if is_node { parent_of.get(&id).cloned().flatten() } else { None };
            continue;
        }
        if matches!(e.meta, Some(Meta::Sequence { .. })) {
            set(e, &mut list, &mut seen);
        } else if let Some(Meta::Rewind { to }) = &e.meta {
            let to = to.clone();
            if list.at.contains_key(&to) { list.cut(&to) } else { list.reset([]) }
        }
    }
}

/// A `$set {messages}`: the list replaced; a node when it brings messages
/// of its own (see the module documentation).
fn set(e: &mut Entry, list: &mut List, seen: &mut FxHashSet<Box<str>>) {
    // As the header left it (a line linked before is linked again).
    e.kind = Kind::KnownMeta(SET.into());
    (e.uuid, e.parent, e.logical_parent, e.subtype) = (None, None, None, None);
    (e.user_kind, e.injected, e.compact_summary) = (UserKind::None, false, false);
    let Some(Meta::Sequence { ids, new }) = &mut e.meta else { return };
    let known = |id: &str, seen: &FxHashSet<Box<str>>| {
        seen.contains(id) || id.strip_suffix("_response").is_some_and(|r| seen.contains(r))
    };
    *new = ids.iter().filter(|(id, _)| !known(id, seen)).map(|(id, _)| id.clone()).collect();
    let tip = list.ids.last().cloned();
    if let Some(first) = new.first().cloned() {
        let hash = ids.iter().find(|(id, _)| *id == first).map_or(0, |(_, h)| *h);
        seen.extend(new.iter().cloned());
        e.uuid = Some(first.clone());
        e.payload_hash = hash;
        e.content_hash = hash;
        e.kind = Kind::User;
        match tip {
            None => {
                // The session's context, set before any prompt (again by
                // each resume, rewritten: not a node, see transcript-format D).
                e.kind = Kind::KnownMeta(SET.into());
                e.uuid = None;
            }
            Some(t) => {
                // A compression's summary: a compaction joined after the tip.
                e.kind = Kind::System;
                e.subtype = Some("compact_boundary".into());
                e.compact_summary = true;
                e.logical_parent = Some(t);
            }
        }
        list.reset(e.uuid.clone());
    } else {
        let kept: Vec<Box<str>> = ids.iter().map(|(id, _)| id.clone()).filter(|id| seen.contains(id)).collect();
        list.reset(kept);
    }
}

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
    let background = |f: &crate::model::SourceFile| {
        f.class == FileClass::Subagent && f.rel.split('/').rev().nth(1).is_some_and(|d| !is_session_id(d))
    };
    if !source.files.iter().any(background) {
        return;
    }
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
            Some(f) if background(f) => {
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

/// No record id (a slot of [`Ids`] numbers).
const NONE: u32 = u32::MAX;

/// The record ids a file names (its records', its `$set {messages}` lists',
/// its `$rewindTo` targets), numbered in the order they first appear: the
/// replay below keeps numbers in vectors, not strings in maps (a hash of a
/// string reads the string, an allocation of its own: at hundreds of
/// thousands of records each lookup was a cache miss or two).
struct Ids {
    names: Vec<Box<str>>,
    /// Each entry's record id.
    record: Vec<u32>,
    /// The ids of each `$set {messages}` list, lists in file order, with the
    /// number of the id without its `_response` suffix (a response record is
    /// known when its call is).
    lists: Vec<(u32, u32)>,
    /// The target of each `$rewindTo`, in file order.
    rewinds: Vec<u32>,
}

impl Ids {
    fn of(es: &[Entry]) -> Self {
        fn number<'a>(id: &'a str, at: &mut FxHashMap<&'a str, u32>, names: &mut Vec<&'a str>) -> u32 {
            *at.entry(id).or_insert_with(|| {
                names.push(id);
                u32::try_from(names.len() - 1).unwrap_or(NONE)
            })
        }
        let mut at: FxHashMap<&str, u32> = FxHashMap::default();
        let mut names: Vec<&str> = Vec::new();
        let mut record = Vec::with_capacity(es.len());
        let mut list_ids: Vec<&str> = Vec::new();
        let mut rewinds = Vec::new();
        for e in es {
            record.push(e.message_id.as_deref().map_or(NONE, |id| number(id, &mut at, &mut names)));
            if e.message_id.is_some() {
                continue;
            }
            match &e.meta {
                Some(Meta::Sequence { ids, .. }) => list_ids.extend(ids.iter().map(|(id, _)| &**id)),
                Some(Meta::Rewind { to }) => rewinds.push(number(to, &mut at, &mut names)),
                _ => {}
            }
        }
        for id in &list_ids {
            number(id, &mut at, &mut names);
        }
        let lists = list_ids
            .iter()
            .map(|id| {
                let call = id.strip_suffix("_response").and_then(|r| at.get(r).copied()).unwrap_or(NONE);
                (at[id], call)
            })
            .collect();
        Self { names: names.into_iter().map(Into::into).collect(), record, lists, rewinds }
    }

    fn name(&self, id: u32) -> Box<str> {
        self.names.get(id as usize).cloned().unwrap_or_default()
    }
}

/// The list the client holds while it reads the file.
struct List {
    ids: Vec<u32>,
    /// Each id's place in `ids` (`NONE`: not in the list).
    at: Vec<u32>,
}

impl List {
    fn new(ids: usize) -> Self {
        Self { ids: Vec::new(), at: vec![NONE; ids] }
    }
    fn has(&self, id: u32) -> bool {
        self.at.get(id as usize).is_some_and(|&p| p != NONE)
    }
    fn push(&mut self, id: u32) {
        if let Some(p) = self.at.get_mut(id as usize) {
            *p = u32::try_from(self.ids.len()).unwrap_or(NONE);
            self.ids.push(id);
        }
    }
    fn cut(&mut self, id: u32) {
        let keep = self.at.get(id as usize).map_or(0, |&p| if p == NONE { 0 } else { p as usize });
        for gone in self.ids.drain(keep.min(self.ids.len())..) {
            self.at[gone as usize] = NONE;
        }
    }
    fn reset(&mut self, ids: impl IntoIterator<Item = u32>) {
        for gone in self.ids.drain(..) {
            self.at[gone as usize] = NONE;
        }
        ids.into_iter().for_each(|id| self.push(id));
    }
}

/// What the replay knows while it reads the file.
struct Replay {
    list: List,
    /// Ids of records or list items read so far.
    seen: Vec<bool>,
    /// The record before each record when it was first put in the list.
    parent_of: Vec<u32>,
    /// The next list (in [`Ids::lists`]) and rewind (in [`Ids::rewinds`]).
    next_list: usize,
    next_rewind: usize,
}

fn link_file(es: &mut [Entry], agent_parent: Option<Box<str>>, agent: Option<&str>) {
    let ids = Ids::of(es);
    // The last line of each record id: its node.
    let mut last = vec![NONE; ids.names.len()];
    for (i, &id) in ids.record.iter().enumerate() {
        if id != NONE {
            last[id as usize] = u32::try_from(i).unwrap_or(NONE);
        }
    }
    // Calls a record of its own answers: their results are not the reply's.
    let answered: FxHashSet<Box<str>> = es
        .iter()
        .filter(|e| e.kind == Kind::User)
        .flat_map(|e| e.tool_results.iter().map(|r| r.tool_use_id.clone()))
        .collect();
    if !answered.is_empty() {
        for e in es.iter_mut().filter(|e| e.kind == Kind::Assistant) {
            e.tool_results.retain(|r| !answered.contains(&r.tool_use_id));
        }
    }
    let sidechain = agent_parent.is_some();
    let mut session: Option<Box<str>> = agent_parent.clone();
    let mut r = Replay {
        list: List::new(ids.names.len()),
        seen: vec![false; ids.names.len()],
        parent_of: vec![NONE; ids.names.len()],
        next_list: 0,
        next_rewind: 0,
    };
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
        let id = ids.record[i];
        if id != NONE {
            if !r.list.has(id) {
                r.parent_of[id as usize] = r.list.ids.last().copied().unwrap_or(NONE);
                r.list.push(id);
            }
            r.seen[id as usize] = true;
            let is_node = last[id as usize] as usize == i;
            e.uuid = if is_node { e.message_id.clone() } else { None };
            let parent = r.parent_of[id as usize];
            e.parent = (is_node && parent != NONE).then(|| ids.name(parent));
            continue;
        }
        if matches!(e.meta, Some(Meta::Sequence { .. })) {
            set(e, &ids, &mut r);
        } else if let Some(Meta::Rewind { .. }) = &e.meta {
            let to = ids.rewinds.get(r.next_rewind).copied().unwrap_or(NONE);
            r.next_rewind += 1;
            if r.list.has(to) { r.list.cut(to) } else { r.list.reset([]) }
        }
    }
}

/// A `$set {messages}`: the list replaced; a node when it brings messages
/// of its own (see the module documentation).
fn set(e: &mut Entry, ids: &Ids, r: &mut Replay) {
    // As the header left it (a line linked before is linked again).
    e.kind = Kind::KnownMeta(SET.into());
    (e.uuid, e.parent, e.logical_parent, e.subtype) = (None, None, None, None);
    (e.user_kind, e.injected, e.compact_summary) = (UserKind::None, false, false);
    let Some(Meta::Sequence { ids: items, new }) = &mut e.meta else { return };
    let from = r.next_list.min(ids.lists.len());
    r.next_list = (r.next_list + items.len()).min(ids.lists.len());
    let list = &ids.lists[from..r.next_list];
    let seen = &r.seen;
    let known = |(id, call): (u32, u32)| seen.get(id as usize) == Some(&true) || seen.get(call as usize) == Some(&true);
    let brought: Vec<u32> = list.iter().copied().filter(|&item| !known(item)).map(|(id, _)| id).collect();
    *new = brought.iter().map(|&id| ids.name(id)).collect();
    let tip = r.list.ids.last().copied();
    if let Some(&first) = brought.first() {
        let hash = list.iter().zip(items.iter()).find(|((id, _), _)| *id == first).map_or(0, |(_, (_, h))| *h);
        for &id in &brought {
            if let Some(s) = r.seen.get_mut(id as usize) {
                *s = true;
            }
        }
        e.uuid = Some(ids.name(first));
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
                e.logical_parent = Some(ids.name(t));
            }
        }
        r.list.reset(e.uuid.is_some().then_some(first));
    } else {
        let kept: Vec<u32> =
            list.iter().map(|&(id, _)| id).filter(|&id| r.seen.get(id as usize) == Some(&true)).collect();
        r.list.reset(kept);
    }
}

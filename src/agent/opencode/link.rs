//! Gives OpenCode's messages their ids and parents (transcript-format,
//! Appendix F, "The tree"), over the headers of a whole project:
//!
//! - A session is a flat list of messages by `(time_created, id)`: each
//!   message hangs under the one before it that the client still holds. A
//!   message it deleted (`/undo`, then a prompt: kept by its event log or an
//!   archive, [`REMOVED`]) hangs under the one just before it, so the run it
//!   deleted is a branch beside the prompt that replaced it: a rewind.
//! - A message is its last line of its id (an archive appends a message
//!   again when it changed), a line of the old JSON storage only when no
//!   other line has the id (the client's 1.2 copied it into its database).
//! - A fork (`/fork`, `run --fork`) is a new session whose first messages
//!   are copies of another's, under new ids with the originals' times and
//!   nothing stored to say so: sessions are taken in the order they were
//!   made, and a message older than its session whose content (ids aside,
//!   [`super::header::content_key`]) equals that of a message already seen
//!   under the same parent is that message: the copy takes its id (an alias
//!   of it, `copied_from` its session), and the first message of the fork's
//!   own hangs under the last one copied: a fork point across sessions.
//! - A compaction (a user message whose part is `compaction`) is a boundary
//!   joined to the message before it; the summary that follows hangs under it.
//! - A session with a parent (`parentID`: the `task` tool's sub-agent) is an
//!   agent: its messages are a sidechain named by its session id.
//!
//! Every field set here is computed again from the headers' own facts.

use rustc_hash::{FxHashMap, FxHashSet};

use super::header::{REMOVED, SESSION};
use crate::model::{Entries, Entry, Kind, ProjectSource};

/// A session's facts, from its line.
#[derive(Default)]
struct Session {
    created: Option<i64>,
    parent: Option<Box<str>>,
}

pub(super) fn link(source: &ProjectSource, entries: &mut Entries) {
    let all = entries.as_mut_slice();
    let storage = |e: &Entry| source.files.get(e.loc.file).is_some_and(|f| f.rel.starts_with("storage"));
    let mut sessions: FxHashMap<Box<str>, Session> = FxHashMap::default();
    // Each message id's line: not from the storage, then the last.
    let mut node_of: FxHashMap<Box<str>, usize> = FxHashMap::default();
    for (i, e) in all.iter().enumerate() {
        if e.kind == Kind::KnownMeta(SESSION.into()) {
            if let Some(s) = e.session_id.clone() {
                let cur = sessions.entry(s).or_default();
                cur.created = e.timestamp.or(cur.created);
                cur.parent.clone_from(&e.agent_id);
            }
            continue;
        }
        let Some(id) = e.message_id.clone() else { continue };
        let better = |j: usize| (!storage(e), e.loc, e.offset) >= (!storage(&all[j]), all[j].loc, all[j].offset);
        match node_of.get(&id) {
            Some(&j) if !better(j) => {}
            _ => {
                node_of.insert(id, i);
            }
        }
    }
    // The messages of each session, in the client's order.
    let mut by_session: FxHashMap<Box<str>, Vec<usize>> = FxHashMap::default();
    for (i, e) in all.iter_mut().enumerate() {
        let Some(id) = e.message_id.as_deref() else { continue };
        (e.uuid, e.parent, e.logical_parent, e.copied_from) = (None, None, None, None);
        if node_of.get(id) == Some(&i) {
            by_session.entry(e.session_id.clone().unwrap_or_default()).or_default().push(i);
        }
    }
    for list in by_session.values_mut() {
        list.sort_by(|&a, &b| (all[a].timestamp, &all[a].message_id).cmp(&(all[b].timestamp, &all[b].message_id)));
    }
    // Sessions in the order they were made (forks after what they copy).
    let mut order: Vec<&Box<str>> = by_session.keys().collect();
    let first = |s: &str| by_session[s].first().and_then(|&i| all[i].timestamp);
    order.sort_by_key(|s| (sessions.get(*s).and_then(|x| x.created).or_else(|| first(s)), *s));
    let order: Vec<Box<str>> = order.into_iter().cloned().collect();
    let mut trie = Trie::default();
    for s in &order {
        let facts = sessions.get(s);
        let created = facts.and_then(|f| f.created);
        let agent = facts.and_then(|f| f.parent.as_ref()).map(|_| s.clone());
        link_session(all, &by_session[s], created, agent, &mut trie);
    }
}

/// The canonical messages seen so far: by (canonical parent, content key),
/// the canonical id and its session.
#[derive(Default)]
struct Trie {
    at: FxHashMap<Place, (Box<str>, Box<str>)>,
}

/// Where a message sits: its canonical parent and its content key.
type Place = (Option<Box<str>>, u64);

/// Links one session's messages (`list`, in order), made at `created`.
fn link_session(all: &mut [Entry], list: &[usize], created: Option<i64>, agent: Option<Box<str>>, trie: &mut Trie) {
    // Each message's canonical id (its own, or the one it copies).
    let mut canon: FxHashMap<Box<str>, Box<str>> = FxHashMap::default();
    let mut live: Option<Box<str>> = None;
    let mut prev: Option<Box<str>> = None;
    let mut own = FxHashSet::default();
    for &i in list {
        let e = &all[i];
        let Some(id) = e.message_id.clone() else { continue };
        let removed = e.subtype.as_deref() == Some(REMOVED);
        let parent = if removed { prev.clone() } else { live.clone() };
        let parent_canon = parent.as_ref().map(|p| canon.get(p).cloned().unwrap_or_else(|| p.clone()));
        // A copy: older than its session, under a copied parent (or first),
        // with content already seen there.
        let older = matches!((e.timestamp, created), (Some(t), Some(c)) if t < c);
        let copied_parent = parent.as_ref().is_none_or(|p| !own.contains(p));
        let key = (parent_canon.clone(), e.content_hash);
        let found = (older && copied_parent).then(|| trie.at.get(&key).cloned()).flatten();
        let e = &mut all[i];
        match found {
            Some((orig, session)) => {
                e.copied_from = Some(session);
                canon.insert(id.clone(), orig.clone());
                e.uuid = Some(orig);
            }
            None => {
                own.insert(id.clone());
                trie.at.insert(key, (id.clone(), e.session_id.clone().unwrap_or_default()));
                e.uuid = Some(id.clone());
            }
        }
        if e.is_compact_boundary() {
            e.logical_parent = parent_canon;
        } else {
            e.parent = parent_canon;
        }
        e.sidechain = agent.is_some();
        e.agent_id.clone_from(&agent);
        prev = Some(id.clone());
        if !removed {
            live = Some(id);
        }
    }
}

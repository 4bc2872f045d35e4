//! Gives Crush's messages their ids and parents (transcript-format,
//! Appendix H, "The tree"), over the headers of a whole project:
//!
//! - A session is one line of messages in the client's order (the lines'
//!   order, [`super::lines`]): each hangs under the one before it. Crush has
//!   no fork, rewind or undo, so no session branches.
//! - A summary (`is_summary_message`) follows a compaction boundary joined
//!   to the message before it: the model's context starts again there.
//! - A session with a parent is a sub-agent's, run by the `agent` call
//!   its id names (`<assistant message id>$$<tool call id>`): its messages
//!   are a sidechain named by its session id, and the caller's result of
//!   that call says it spawned the agent.
//! - A message is the last line of its id.
//!
//! Every field set here is computed again from the headers' own facts.

use rustc_hash::{FxHashMap, FxHashSet};

use super::header::SESSION;
use crate::model::{Entries, Kind, ProjectSource};

pub(super) fn link(_source: &ProjectSource, entries: &mut Entries) {
    let all = entries.as_mut_slice();
    let mut parents: FxHashMap<Box<str>, Option<Box<str>>> = FxHashMap::default();
    let mut last_of: FxHashMap<Box<str>, usize> = FxHashMap::default();
    for (i, e) in all.iter().enumerate() {
        if e.kind == Kind::KnownMeta(SESSION.into()) {
            if let Some(s) = e.session_id.clone() {
                parents.insert(s, e.agent_id.clone());
            }
        } else if let Some(id) = e.message_id.clone() {
            last_of.insert(id, i);
        }
    }
    // Which assistant message made each call, by session and call id.
    let mut caller: FxHashMap<(Box<str>, Box<str>), Box<str>> = FxHashMap::default();
    for (id, &i) in &last_of {
        let e = &all[i];
        for u in &e.tool_uses {
            // The least id where two made the same call: the same whatever the order.
            let key = (e.session_id.clone().unwrap_or_default(), u.id.clone());
            caller.entry(key).and_modify(|v| *v = v.clone().min(id.clone())).or_insert_with(|| id.clone());
        }
    }
    let mut prev: FxHashMap<Box<str>, Box<str>> = FxHashMap::default();
    let mut seen: FxHashSet<Box<str>> = FxHashSet::default();
    for (i, e) in all.iter_mut().enumerate() {
        let Some(id) = e.message_id.clone() else { continue };
        (e.uuid, e.parent, e.logical_parent, e.spawned_agent) = (None, None, None, None);
        if last_of.get(&id) != Some(&i) || !seen.insert(id.clone()) {
            continue;
        }
        let session = e.session_id.clone().unwrap_or_default();
        let before = prev.insert(session.clone(), id.clone());
        if e.is_compact_boundary() {
            e.logical_parent = before;
        } else {
            e.parent = before;
        }
        e.uuid = Some(id);
        let agent = parents.get(&session).is_some_and(Option::is_some);
        e.sidechain = agent;
        e.agent_id = agent.then(|| session.clone());
        let spawned = e.tool_results.iter().find_map(|r| {
            let by = caller.get(&(session.clone(), r.tool_use_id.clone()))?;
            let child: Box<str> = format!("{by}$${}", r.tool_use_id).into();
            parents.contains_key(&child).then_some(child)
        });
        e.spawned_agent = spawned;
    }
}

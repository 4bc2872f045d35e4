//! Links the events of each Copilot CLI `events.jsonl` (transcript-format,
//! Appendix I). The file is one chain (each event's `parentId` the event
//! written before it), sub-agents' events inside it; so, file by file, in
//! order:
//!
//! - every event is of the session its file's `session.start` names (a
//!   `/fork` copy keeps the parent's event ids under a session of its own);
//! - a message (prompt, reply, tool result) hangs on the message before it
//!   of its lane — the main conversation, or the sub-agent of its `agentId`,
//!   whose first message is the root of an agent — so the events between
//!   (turn marks, usage, telemetry) leave the chain, and a `/fork` copy, a
//!   resume and the earlier version of a file `/rewind` rewrote (kept by
//!   `cctree sync`) link alike: where they part, a fork point;
//! - a compaction is joined after the message before it;
//! - a reply gets the usage of the `session.usage_record` before it;
//! - the `task` call's result names the agent `subagent.started` ran for it.

use rustc_hash::FxHashMap;

use super::header::START;
use crate::model::{Entries, Entry, Kind, Meta, ProjectSource, Usage};

pub(super) fn link(_source: &ProjectSource, entries: &mut Entries) {
    let all = entries.as_mut_slice();
    let mut start = 0;
    while start < all.len() {
        let file = all[start].loc.file;
        let end = start + all[start..].iter().take_while(|e| e.loc.file == file).count();
        link_file(&mut all[start..end]);
        start = end;
    }
}

/// A lane's pending usage and its model, by lane.
type Pending = FxHashMap<Option<Box<str>>, (Usage, Option<Box<str>>)>;

fn link_file(es: &mut [Entry]) {
    let session = es.iter().find(|e| e.kind.name() == START).and_then(|e| e.session_id.clone());
    let cwd = es.iter().find(|e| e.kind.name() == START).and_then(|e| e.cwd.clone());
    // The last message of each lane (`None`: the main one).
    let mut last: FxHashMap<Option<Box<str>>, Box<str>> = FxHashMap::default();
    let mut usage: Pending = FxHashMap::default();
    // The agent each `task` call started.
    let mut agent_of: FxHashMap<Box<str>, Box<str>> = FxHashMap::default();
    for e in es.iter_mut() {
        e.session_id.clone_from(&session);
        if e.cwd.is_none() {
            e.cwd.clone_from(&cwd);
        }
        let lane = e.agent_id.clone();
        if let (Some(Meta::AgentStarted { call }), Some(a)) = (&e.meta, &e.agent_id) {
            agent_of.insert(call.clone(), a.clone());
        }
        if e.usage.is_some() && e.kind != Kind::Assistant {
            let u = e.usage.take().unwrap_or_default();
            usage.insert(lane.clone(), (u, e.model.clone()));
            continue;
        }
        let Some(id) = e.uuid.clone() else { continue };
        let prev = last.get(&lane).cloned();
        if e.kind == Kind::System && e.compact_summary {
            e.subtype = Some("compact_boundary".into());
            e.parent = None;
            e.logical_parent = prev;
        } else {
            e.parent = prev;
        }
        if e.kind == Kind::Assistant {
            if let Some((u, model)) = usage.remove(&lane) {
                e.usage = Some(u);
                if e.model.is_none() {
                    e.model = model;
                }
            }
        }
        if e.agent_id.is_none() {
            if let Some(a) = e.tool_results.first().and_then(|r| agent_of.get(&r.tool_use_id)) {
                e.spawned_agent = Some(a.clone());
            }
        }
        last.insert(lane, id);
    }
}

//! Messages typed while Claude was working (transcript-format §8 item 22,
//! appendix B).
//!
//! Claude Code records each as a `queue-operation` `enqueue` (no uuid) and
//! later a `dequeue` (sent as the next prompt), a `remove` (often absorbed
//! into the running turn as a `queued_command` attachment; without its text
//! in clients 2.0.x–2.1.9x, where it takes out the oldest message) or a
//! `popAll`.
//! Those that never became a prompt or a `queued_command` of their session
//! would appear nowhere: each is placed after the last node of its session
//! written at or before it, on that node's track. The queue is replayed per
//! file in file order (the client appends its operations in order).

use rustc_hash::{FxHashMap, FxHashSet};

use super::{Graph, NodeId, SessionId};
use crate::model::FileId;
use crate::model::{Entries, Entry, EntryId, Kind, Meta, UserKind};

pub(super) fn place(g: &mut Graph, entries: &Entries) {
    let session_ix: FxHashMap<&str, SessionId> =
        g.sessions.iter_enumerated().map(|(i, s)| (&*s.session_id, i)).collect();
    // Texts that reached the transcript as a prompt or a queued_command.
    let mut delivered: FxHashSet<(&str, u64)> = FxHashSet::default();
    for e in entries {
        let typed = (e.kind == Kind::User && e.user_kind == UserKind::Prompt)
            || e.attachment_type.as_deref() == Some("queued_command");
        if typed && e.text_hash != 0 {
            delivered.insert((e.session_id.as_deref().unwrap_or(""), e.text_hash));
        }
    }
    let mut lost = Vec::new();
    for (i, e) in replay(entries) {
        let s = e.session_id.as_deref().unwrap_or("");
        if !delivered.contains(&(s, e.text_hash)) {
            if let Some(&si) = session_ix.get(s) {
                lost.push((si, e.timestamp.unwrap_or(i64::MIN), i));
            }
        }
    }
    if lost.is_empty() {
        return;
    }
    // Each session's main nodes by time, to find the anchor.
    let mut by_session: FxHashMap<SessionId, Vec<(i64, NodeId)>> = FxHashMap::default();
    for (n, node) in g.nodes.iter_enumerated().filter(|(_, n)| !n.sidechain) {
        by_session.entry(node.session).or_default().push((node.ts, n));
    }
    for v in by_session.values_mut() {
        v.sort_unstable();
    }
    lost.sort_unstable_by_key(|&(s, ts, i)| (s, ts, entries[i].loc));
    for (s, ts, i) in lost {
        let Some(list) = by_session.get(&s) else {
            g.unplaced_queued.push(i);
            continue;
        };
        let pos = list.partition_point(|&(t, _)| t <= ts);
        let anchor = list[..pos].last().or(list.first()).map(|&(_, n)| n);
        match anchor {
            Some(n) => g.queued.entry(n).or_default().push(i),
            None => g.unplaced_queued.push(i),
        }
    }
}

/// The `enqueue` entries (index, entry) that were not `dequeue`d as the next
/// prompt, per (file, session) in file order.
fn replay(entries: &Entries) -> Vec<(EntryId, &Entry)> {
    let mut ops: Vec<(EntryId, &Entry, &str)> = entries
        .iter_enumerated()
        .filter_map(|(i, e)| match &e.meta {
            Some(Meta::Queue { operation }) => Some((i, e, &**operation)),
            _ => None,
        })
        .collect();
    ops.sort_by_key(|(_, e, _)| e.loc);
    let mut pending: FxHashMap<(FileId, &str), Vec<(EntryId, &Entry)>> = FxHashMap::default();
    let mut out = Vec::new();
    for (i, e, op) in ops {
        let q = pending.entry((e.loc.file, e.session_id.as_deref().unwrap_or(""))).or_default();
        match op {
            "enqueue" if e.text_hash != 0 => q.push((i, e)),
            "dequeue" if !q.is_empty() => {
                q.remove(0);
            }
            // With its text (2.1.x): that message. Without (2.0.x–2.1.9x):
            // the oldest one, as a `dequeue` would, but not sent as a prompt.
            "remove" if e.text_hash == 0 && !q.is_empty() => out.push(q.remove(0)),
            "remove" => {
                if let Some(p) = q.iter().position(|(_, x)| x.text_hash == e.text_hash) {
                    out.push(q.remove(p));
                }
            }
            "popAll" => out.append(q),
            _ => {}
        }
    }
    let mut rest: Vec<(EntryId, &Entry)> = pending.into_values().flatten().collect();
    rest.sort_by_key(|(i, _)| *i);
    out.extend(rest);
    out
}

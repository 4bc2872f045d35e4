//! OpenCode's own invariants (transcript-format, Appendix F), over the
//! headers of a project's records:
//!
//! - `opencode-message-without-session`: a message names a session the
//!   project holds (the client deletes a session's messages with it);
//! - `opencode-agent-without-parent`: a sub-agent's session names a parent
//!   session the project holds (`opencode session delete` takes the
//!   children with the parent);
//! - `opencode-revert-to-unknown`: a pending `/undo` (`revert.messageID`)
//!   names a message of its session;
//! - `opencode-call-unanswered`: a step that finished holds no tool call
//!   still pending or running (a run that stopped in the middle);
//! - `opencode-fork-source-missing`: a session whose first messages are
//!   older than the session (copied by `/fork`, `run --fork` or an import)
//!   copies messages the project holds (else its source was deleted: the
//!   fork is shown as a conversation of its own).

use rustc_hash::{FxHashMap, FxHashSet};

use super::header::SESSION;
use crate::agent::check::Finding;
use crate::model::{Entry, Kind};
use crate::project::Project;

/// The kinds, in the order they are explained.
pub(super) const KINDS: &[&str] = &[
    "opencode-message-without-session",
    "opencode-agent-without-parent",
    "opencode-revert-to-unknown",
    "opencode-call-unanswered",
    "opencode-fork-source-missing",
];

pub(super) fn check(p: &Project, out: &mut Vec<Finding>) {
    let is_session = |e: &Entry| e.kind == Kind::KnownMeta(SESSION.into());
    let sessions: FxHashMap<&str, &Entry> =
        p.entries.iter().filter(|e| is_session(e)).filter_map(|e| Some((e.session_id.as_deref()?, e))).collect();
    let mut messages: FxHashMap<&str, FxHashSet<&str>> = FxHashMap::default();
    for e in p.entries.iter().filter(|e| e.message_id.is_some()) {
        let s = e.session_id.as_deref().unwrap_or("");
        messages.entry(s).or_default().extend(e.message_id.as_deref());
    }
    let mut push = |kind: &'static str, e: &Entry, message: String| {
        let file = p.source.files.get(e.loc.file).map_or_else(String::new, |f| f.path.display().to_string());
        out.push(Finding { kind, file, line: e.loc.line, uuid: e.message_id.as_deref().map(Into::into), message });
    };
    let mut ordered: Vec<(&&str, &&Entry)> = sessions.iter().collect();
    ordered.sort_by_key(|(s, _)| **s);
    for (s, e) in ordered {
        if let Some(parent) = e.agent_id.as_deref().filter(|ps| !sessions.contains_key(ps)) {
            push(
                "opencode-agent-without-parent",
                e,
                format!("the sub-agent session {s} names the parent session {parent}, which the project lacks"),
            );
        }
        let reverted = e.logical_parent.as_deref();
        if let Some(m) = reverted.filter(|m| !messages.get(s).is_some_and(|ms| ms.contains(m))) {
            push(
                "opencode-revert-to-unknown",
                e,
                format!("session {s}'s pending /undo reverts to {m}, not one of its messages"),
            );
        }
    }
    let mut unmatched: FxHashSet<&str> = FxHashSet::default();
    for e in p.entries.iter().filter(|e| e.message_id.is_some() && e.uuid.is_some()) {
        let s = e.session_id.as_deref().unwrap_or("");
        let Some(session) = sessions.get(s) else {
            push("opencode-message-without-session", e, format!("message of session {s}, which the project lacks"));
            continue;
        };
        let open = e.tool_uses.iter().filter(|u| !e.tool_results.iter().any(|r| r.tool_use_id == u.id)).count();
        if e.kind == Kind::Assistant && e.stop_reason.is_some() && open > 0 {
            push(
                "opencode-call-unanswered",
                e,
                format!(
                    "a step that finished ({}) left {open} tool call(s) without a result",
                    e.stop_reason.as_deref().unwrap_or("")
                ),
            );
        }
        let older = matches!((e.timestamp, session.timestamp), (Some(t), Some(c)) if t < c);
        if older && e.copied_from.is_none() && session.agent_id.is_none() && unmatched.insert(s) {
            push(
                "opencode-fork-source-missing",
                e,
                format!(
                    "session {s} starts with messages older than itself (a fork's copies) that match no message of \
                     the project: the session it was forked from is gone"
                ),
            );
        }
    }
}

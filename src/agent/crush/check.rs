//! Crush's own invariants (transcript-format, Appendix H), over the headers
//! of a project's records:
//!
//! - `crush-message-without-session`: a message names a session the
//!   database holds (the client deletes a session's messages with it);
//! - `crush-agent-without-parent`: a sub-agent's session names a parent
//!   session the database holds (`crush session delete` leaves the
//!   sub-agents' sessions behind: shown as conversations of their own);
//! - `crush-summary-unknown`: the summary a session names
//!   (`summary_message_id`, the one its model continues from) is a summary
//!   message of that session.

use rustc_hash::{FxHashMap, FxHashSet};

use super::header::SESSION;
use crate::agent::check::Finding;
use crate::model::{Entry, Kind};
use crate::project::Project;

/// The kinds, in the order they are explained.
pub(super) const KINDS: &[&str] =
    &["crush-message-without-session", "crush-agent-without-parent", "crush-summary-unknown"];

pub(super) fn check(p: &Project, out: &mut Vec<Finding>) {
    let is_session = |e: &Entry| e.kind == Kind::KnownMeta(SESSION.into());
    let sessions: FxHashMap<&str, &Entry> =
        p.entries.iter().filter(|e| is_session(e)).filter_map(|e| Some((e.session_id.as_deref()?, e))).collect();
    let mut summaries: FxHashMap<&str, FxHashSet<&str>> = FxHashMap::default();
    for e in p.entries.iter().filter(|e| e.compact_summary) {
        summaries.entry(e.session_id.as_deref().unwrap_or("")).or_default().extend(e.message_id.as_deref());
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
                "crush-agent-without-parent",
                e,
                format!("the sub-agent session {s} names the parent session {parent}, which the database lacks"),
            );
        }
        if let Some(m) = e.logical_parent.as_deref().filter(|m| !summaries.get(s).is_some_and(|ms| ms.contains(m))) {
            push(
                "crush-summary-unknown",
                e,
                format!("session {s} continues from the summary {m}, not a summary of its own"),
            );
        }
    }
    let mut missing: FxHashSet<&str> = FxHashSet::default();
    for e in p.entries.iter().filter(|e| e.message_id.is_some() && e.uuid.is_some()) {
        let s = e.session_id.as_deref().unwrap_or("");
        if !sessions.contains_key(s) && missing.insert(s) {
            push("crush-message-without-session", e, format!("message of session {s}, which the database lacks"));
        }
    }
}

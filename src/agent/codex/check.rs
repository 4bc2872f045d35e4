//! Codex CLI's own invariants (transcript-format, Appendix C), file by file
//! from the lines' headers, reading again only the `session_meta` lines
//! that name a history to continue:
//!
//! - `codex-session-meta-not-first`: a rollout's first line is its
//!   `session_meta` (its thread, working directory and continuation);
//! - `codex-bad-timestamp`: every line has a `timestamp` that is a date
//!   (before the envelope, only the first line had one);
//! - `codex-output-without-call`: every `function_call_output` (custom tool
//!   and tool search outputs too) follows a call with its `call_id`, in its
//!   file or in the history the file continues (before the cut);
//! - `codex-rollback-too-far`: a `thread_rolled_back` rolls back a whole
//!   number of turns, at most the typed prompts before it in its file;
//! - `codex-unresolved-thread`: when the rollout a `session_meta` names is in
//!   the project, it is what it names: `history_base` cuts its history at the
//!   start of a line of that ordinal (or at its end), the base's thread is
//!   `forked_from_id`, and a `parent_thread_id`'s thread records starting
//!   this sub-agent. A rollout the project lacks (deleted, or not given) is
//!   not a finding here (a base it lacks is a dangling parent, P2).

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

use crate::agent::check::{Finding, reread};
use crate::agent::codex::history_of;
use crate::model::FileId;
use crate::model::{Entry, Kind, UserKind};
use crate::project::Project;

const META: &str = "codex:session_meta";

/// One Codex rollout of the project: its entries and what its `session_meta` says.
struct File<'p> {
    index: FileId,
    path: String,
    history: String,
    entries: &'p [Entry],
    /// The file's own `session_meta` (its first line's).
    meta: Option<&'p Entry>,
}

impl File<'_> {
    fn base(&self) -> Option<(String, u64)> {
        let b = self.meta?.logical_parent.as_deref()?;
        let (t, k) = b.rsplit_once(':')?;
        Some((t.to_string(), k.parse().ok()?))
    }
    fn thread(&self) -> Option<&str> {
        self.meta?.session_id.as_deref()
    }
    fn finding(&self, kind: &'static str, line: u32, message: String) -> Finding {
        Finding { kind, file: self.path.clone(), line, uuid: None, message }
    }
}

/// The ordinal of a node's key (its `message_id`), when it has one.
fn ordinal(e: &Entry) -> Option<u64> {
    e.message_id.as_deref()?.parse().ok()
}

/// Codex's invariants on every Codex rollout of `p`.
pub(super) fn check(p: &Project, out: &mut Vec<Finding>) {
    let files = files(p);
    if files.is_empty() {
        return;
    }
    let by_history: FxHashMap<&str, &File<'_>> = files.iter().map(|f| (f.history.as_str(), f)).collect();
    let mut threads: FxHashMap<&str, Vec<&File<'_>>> = FxHashMap::default();
    for f in &files {
        if let Some(t) = f.thread() {
            threads.entry(t).or_default().push(f);
        }
    }
    // The calls of each history, by ordinal: an output may answer a call of the history its file continues.
    let calls: FxHashMap<&str, FxHashMap<&str, u64>> = files
        .iter()
        .map(|f| {
            let ids = f
                .entries
                .iter()
                .flat_map(|e| e.tool_uses.iter().map(move |u| (&*u.id, ordinal(e).unwrap_or(u64::MAX))))
                .collect();
            (f.history.as_str(), ids)
        })
        .collect();
    let bases: FxHashMap<&str, (String, u64)> =
        files.iter().filter_map(|f| Some((f.history.as_str(), f.base()?))).collect();
    for f in &files {
        first_line(f, out);
        // Before the envelope, only the session's line had a time.
        let bare = f.meta.is_some_and(|m| m.subtype.as_deref() == Some(super::header::BEFORE_ENVELOPE));
        for e in f.entries.iter().filter(|e| e.timestamp.is_none() && !bare) {
            let message = "`timestamp` is missing or not a date (Codex writes one on every line): \
                           the line is shown without a time"
                .to_string();
            out.push(f.finding("codex-bad-timestamp", e.loc.line, message));
        }
        outputs(f, &calls, &bases, out);
        rollbacks(f, out);
        continuation(p, f, &by_history, &threads, out);
    }
}

/// The project's Codex rollouts, each with its entries (consecutive in `p.entries`).
fn files(p: &Project) -> Vec<File<'_>> {
    let all = p.entries.as_slice();
    let mut out = Vec::new();
    let mut start = 0;
    while start < all.len() {
        let index = all[start].loc.file;
        let end = start + all[start..].iter().take_while(|e| e.loc.file == index).count();
        if let Some(sf) = p.source.files.get(index) {
            let entries = &all[start..end];
            let meta = entries.first().filter(|e| e.kind.name() == META);
            out.push(File { index, path: sf.path.display().to_string(), history: history_of(&sf.rel), entries, meta });
        }
        start = end;
    }
    out
}

/// The first line is the file's `session_meta`.
fn first_line(f: &File<'_>, out: &mut Vec<Finding>) {
    let Some(first) = f.entries.first() else { return };
    if first.loc.line == 1 && f.meta.is_some() {
        return;
    }
    let found = if first.loc.line != 1 {
        "line 1 cannot be read".to_string()
    } else {
        format!("it is a `{}` line", first.kind.name().trim_start_matches("codex:"))
    };
    let message = format!(
        "the first line of a rollout is its `session_meta`, and {found}: a rollout's thread, working \
         directory and the history it continues are read from its first line"
    );
    out.push(f.finding("codex-session-meta-not-first", first.loc.line, message));
}

/// Every output follows a call with its `call_id`.
fn outputs(
    f: &File<'_>,
    calls: &FxHashMap<&str, FxHashMap<&str, u64>>,
    bases: &FxHashMap<&str, (String, u64)>,
    out: &mut Vec<Finding>,
) {
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    for e in f.entries {
        for u in &e.tool_uses {
            seen.insert(&u.id);
        }
        for r in &e.tool_results {
            let id = &*r.tool_use_id;
            if seen.contains(id) || in_base(id, f.base(), calls, bases) {
                continue;
            }
            let message = if id.is_empty() {
                "a tool output has no `call_id`: it is shown alone, answering no call".to_string()
            } else {
                format!(
                    "the output for call_id {id} follows no call with that call_id (in this rollout or the \
                     history it continues): it is shown alone, answering no call"
                )
            };
            out.push(f.finding("codex-output-without-call", e.loc.line, message));
        }
    }
}

/// Whether the history `base` cuts (and the ones it continues) holds call `id` before the cut.
fn in_base(
    id: &str,
    base: Option<(String, u64)>,
    calls: &FxHashMap<&str, FxHashMap<&str, u64>>,
    bases: &FxHashMap<&str, (String, u64)>,
) -> bool {
    let Some((mut history, mut cut)) = base else { return false };
    // At most one step per history: a cycle of bases ends.
    for _ in 0..=bases.len() {
        if calls.get(history.as_str()).and_then(|c| c.get(id)).is_some_and(|&o| o < cut) {
            return true;
        }
        match bases.get(history.as_str()) {
            Some((h, k)) => {
                cut = cut.min(*k);
                history.clone_from(h);
            }
            None => return false,
        }
    }
    false
}

/// A `thread_rolled_back` rolls back a whole number of turns, at most those before it.
fn rollbacks(f: &File<'_>, out: &mut Vec<Finding>) {
    let mut turns = 0usize;
    for e in f.entries {
        // As the link counts them: typed prompts read as nodes (not a sub-agent's copy of its parent's).
        if e.kind == Kind::User && e.user_kind == UserKind::Prompt && e.uuid.is_some() {
            turns += 1;
        }
        let Some(crate::model::Meta::Rollback { turns: count }) = e.meta else {
            continue;
        };
        let Some(n) = count.and_then(|t| usize::try_from(t).ok()) else {
            let message = "`thread_rolled_back` has no whole `num_turns`: read as rolling back 1 turn".into();
            out.push(f.finding("codex-rollback-too-far", e.loc.line, message));
            turns = turns.saturating_sub(1);
            continue;
        };
        if n > turns {
            let message = format!(
                "`thread_rolled_back` rolls back {n} turn{}, but only {turns} typed prompt{} before it in this \
                 rollout (after the rollbacks before it): every turn of the file is abandoned",
                if n == 1 { "" } else { "s" },
                if turns == 1 { " is" } else { "s are" },
            );
            out.push(f.finding("codex-rollback-too-far", e.loc.line, message));
        }
        turns = turns.saturating_sub(n);
    }
}

/// What the `session_meta` names resolves, when the rollout it names is in the project.
fn continuation(
    p: &Project,
    f: &File<'_>,
    by_history: &FxHashMap<&str, &File<'_>>,
    threads: &FxHashMap<&str, Vec<&File<'_>>>,
    out: &mut Vec<Finding>,
) {
    let Some(meta) = f.meta else { return };
    let line = meta.loc.line;
    let forked_from = meta.copied_from.as_deref();
    if let Some((history, cut)) = f.base()
        && let Some(base) = by_history.get(history.as_str())
    {
        if let Some(why) = cut_mismatch(p, meta, base, cut) {
            let message = format!(
                "`history_base` cuts history {history} before ordinal {cut}, but {why}: `codex resume` \
                 would rebuild another history than the one shown"
            );
            out.push(f.finding("codex-unresolved-thread", line, message));
        }
        if let (Some(from), Some(thread)) = (forked_from, base.thread())
            && from != thread
        {
            let message =
                format!("`forked_from_id` is {from}, but the history it continues ({history}) is thread {thread}'s");
            out.push(f.finding("codex-unresolved-thread", line, message));
        }
    }
    // A sub-agent (`parent_thread_id`): its parent, when here, started it.
    if let (Some(parent), Some(me)) = (meta.agent_id.as_deref(), f.thread())
        && let Some(parents) = threads.get(parent)
        && !parents.iter().any(|pf| pf.entries.iter().any(|e| e.spawned_agent.as_deref() == Some(me)))
    {
        let message = format!(
            "`parent_thread_id` is {parent}, whose rollout is here but records starting no sub-agent {me} \
             (`item_completed SubAgentActivity`): the agent is not linked from its parent's call"
        );
        out.push(f.finding("codex-unresolved-thread", line, message));
    }
}

/// Why `history_base` (ordinal `cut`, its `end_byte_offset` read again from
/// `meta`'s line) is not the start of a line of `base` of that ordinal, nor its end.
fn cut_mismatch(p: &Project, meta: &Entry, base: &File<'_>, cut: u64) -> Option<String> {
    let v = reread(p, meta)?;
    let offset = v["payload"]["history_base"]["end_byte_offset"].as_u64()?;
    // A cut before the base file's first node lies in the history that one continues.
    let first = base.entries.iter().find_map(ordinal)?;
    if cut <= first {
        return None;
    }
    let len = p.file_stats[base.index].bytes;
    if offset == len {
        let last = base.entries.last().and_then(|e| line_ordinal(p, e));
        return match last {
            Some(o) if o + 1 == cut => None,
            Some(o) => Some(format!("byte {offset} is the end of its rollout, whose last line has ordinal {o}")),
            None => None,
        };
    }
    match base.entries.iter().find(|e| e.offset == offset) {
        None => Some(format!("no line of its rollout starts at byte {offset} (`end_byte_offset`)")),
        Some(e) => match line_ordinal(p, e) {
            Some(o) if o == cut => None,
            Some(o) => Some(format!("the line at byte {offset} (line {}) has ordinal {o}", e.loc.line)),
            None => None,
        },
    }
}

/// A line's `ordinal`, read again.
fn line_ordinal(p: &Project, e: &Entry) -> Option<u64> {
    ordinal(e).or_else(|| reread(p, e).and_then(|v: Value| v["ordinal"].as_u64()))
}

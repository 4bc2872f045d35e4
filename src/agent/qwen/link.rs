//! Links Qwen Code's records over the whole project (transcript-format,
//! Appendix G). Every record names its parent (the session's tail when it
//! was written, whatever its type), so the chain runs through telemetry,
//! snapshots and command results a reader never reads. The link keeps as
//! nodes the messages (prompts, commands, notifications, replies, tool
//! results) and compressions, and hangs each on its nearest kept ancestor:
//!
//! - a `rewind` record starts the new branch under the record the rewound
//!   prompt hung on, so the first prompt after it hangs there too, beside
//!   the abandoned prompt: a fork point (a rewind);
//! - `--fork-session` copies keep their uuids: each session's records hang
//!   on the same nodes, and where the copy ends the source and the fork go
//!   on beside each other (a cross-session fork);
//! - a `chat_compression` is a compaction joined after the tail it replaced
//!   (its history goes on from it, no new root); the client writes it just
//!   before the `/compress` command's own record but shows it after the
//!   command, so the command is placed first and the compaction under it;
//! - sub-agents' records (`isSidechain`, the parent's `sessionId`, their
//!   `agentId`) are agents, linked to their call by their `.meta.json`.
//!
//! The link only reads and rewrites what the header read (a project linked
//! again from the parse cache links the same way).

use rustc_hash::FxHashMap;

use super::header::COMPRESSION;
use crate::model::{Entries, Entry, Kind, ProjectSource, UserKind};

/// Whether a record is kept as a node.
fn kept(e: &Entry) -> bool {
    match e.kind {
        Kind::User | Kind::Assistant => true,
        Kind::System => e.subtype.as_deref() == Some(COMPRESSION) || e.compact_summary,
        _ => false,
    }
}

/// Links every Qwen Code entry of the project.
pub(super) fn link(source: &ProjectSource, entries: &mut Entries) {
    // The parent of each record left out of the chain, by uuid (copies in
    // forks share it).
    let mut skipped: FxHashMap<Box<str>, Option<Box<str>>> = FxHashMap::default();
    for e in entries.iter() {
        if let Some(u) = e.uuid.as_deref().filter(|_| !kept(e)) {
            skipped.entry(u.into()).or_insert_with(|| e.parent.clone());
        }
    }
    let mut resolved: FxHashMap<Box<str>, Option<Box<str>>> = FxHashMap::default();
    for e in entries.iter_mut() {
        let agent_file = source.files.get(e.loc.file).is_some_and(|f| f.class.is_agent());
        e.sidechain |= agent_file;
        if agent_file && e.agent_id.is_none() {
            e.agent_id = source.files.get(e.loc.file).and_then(|f| f.agent_id_from_name.as_deref()).map(Into::into);
        }
        if !kept(e) {
            e.uuid = None;
            e.parent = None;
            continue;
        }
        let parent = e.parent.take().or_else(|| e.logical_parent.take());
        let parent = parent.and_then(|p| resolve(p, &skipped, &mut resolved));
        if e.kind == Kind::System && (e.compact_summary || e.subtype.as_deref() == Some(COMPRESSION)) {
            // A compaction: joined after the tail it replaced (as a
            // boundary, the graph's name for one).
            e.subtype = Some("compact_boundary".into());
            e.compact_summary = true;
            e.logical_parent = parent;
        } else {
            e.parent = parent;
        }
    }
    command_before_its_compression(entries);
}

fn is_compression(e: &Entry) -> bool {
    e.kind == Kind::System && e.compact_summary
}

/// The `/compress` command that hangs on the compression it caused (the
/// client records the compression first, then the command) goes before it:
/// the command on the compression's parent, the compression on the command,
/// what followed the command on the compression. Two passes, keyed by uuid
/// (copies in forks move alike).
fn command_before_its_compression(entries: &mut Entries) {
    let mut compressions: FxHashMap<Box<str>, Option<Box<str>>> = FxHashMap::default();
    for e in entries.iter().filter(|e| is_compression(e)) {
        if let Some(u) = e.uuid.as_deref() {
            compressions.entry(u.into()).or_insert_with(|| e.logical_parent.clone());
        }
    }
    if compressions.is_empty() {
        return;
    }
    // compression → its command, command → its compression.
    let mut command_of: FxHashMap<Box<str>, Box<str>> = FxHashMap::default();
    let mut compression_of: FxHashMap<Box<str>, Box<str>> = FxHashMap::default();
    for e in entries.iter() {
        let is_compress = e.kind == Kind::User
            && e.user_kind == UserKind::Command
            && e.excerpt.split_whitespace().next().is_some_and(|c| c.starts_with("/compress"));
        if let (true, Some(u), Some(p)) = (is_compress, e.uuid.as_deref(), e.parent.as_deref())
            && compressions.contains_key(p)
            && !command_of.contains_key(p)
            && !compression_of.contains_key(u)
        {
            command_of.insert(p.into(), u.into());
            compression_of.insert(u.into(), p.into());
        }
    }
    for e in entries.iter_mut() {
        let Some(u) = e.uuid.clone() else { continue };
        if is_compression(e) {
            if let Some(c) = command_of.get(&u) {
                e.logical_parent = Some(c.clone());
            }
        } else if let Some(comp) = compression_of.get(&u) {
            e.parent = compressions.get(comp).cloned().flatten();
        } else if let Some(comp) = e.parent.as_deref().and_then(|p| compression_of.get(p)) {
            e.parent = Some(comp.clone());
        }
    }
}

/// The nearest kept ancestor of the record `p`: itself when it is kept
/// (or not known), else its parent's, memoized (each skipped record is
/// walked once, and a cycle among them ends the walk).
fn resolve(
    p: Box<str>,
    skipped: &FxHashMap<Box<str>, Option<Box<str>>>,
    resolved: &mut FxHashMap<Box<str>, Option<Box<str>>>,
) -> Option<Box<str>> {
    let mut path: Vec<Box<str>> = Vec::new();
    let mut cur = Some(p);
    let answer = loop {
        let Some(c) = cur else { break None };
        if let Some(r) = resolved.get(&c) {
            break r.clone();
        }
        let Some(next) = skipped.get(&c) else { break Some(c) };
        if path.len() > skipped.len() {
            break None;
        }
        path.push(c);
        cur = next.clone();
    };
    for s in path {
        resolved.insert(s, answer.clone());
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, Option<&str>)]) -> FxHashMap<Box<str>, Option<Box<str>>> {
        pairs.iter().map(|(k, v)| ((*k).into(), v.map(Into::into))).collect()
    }

    #[test]
    fn a_skipped_chain_resolves_to_its_nearest_kept_record() {
        let skipped =
            map(&[("t1", Some("t2")), ("t2", Some("reply")), ("loop1", Some("loop2")), ("loop2", Some("loop1"))]);
        let mut memo = FxHashMap::default();
        assert_eq!(resolve("t1".into(), &skipped, &mut memo).as_deref(), Some("reply"));
        assert_eq!(resolve("t2".into(), &skipped, &mut memo).as_deref(), Some("reply"));
        assert_eq!(resolve("reply".into(), &skipped, &mut memo).as_deref(), Some("reply"));
        assert_eq!(resolve("loop1".into(), &skipped, &mut memo), None);
    }
}

//! Links Pi's entries over the whole project (transcript-format, Appendix
//! E). Ids are unique only within one file, so every id is scoped: an
//! entry becomes `<session id>-<id>`, the session being the file that
//! first wrote it. A file whose header names a `parentSession` (`/fork`,
//! `/clone`, `--fork`, a fork-context sub-agent) copied its parent's lines
//! byte for byte with their ids: such a copy takes its source's scoped id,
//! so it is the same node, and where the copy goes on by itself the two
//! sessions branch (a cross-session fork); an entry of the same id that is
//! not a byte copy stays the file's own. Entries a reader does not read
//! (system prompts, labels, names, extension state) are taken out of the
//! chain, their children hung on their nearest kept ancestor; a
//! compaction is joined after the entry it hangs on. Every session's leaf
//! is its file's last entry. Sub-agent runs are agents, linked to the
//! tool result whose `details` names their file.

use rustc_hash::FxHashMap;

use super::header::{RECORD, SESSION};
use crate::model::{Entries, Entry, FileId, Kind, Meta, ProjectSource};

/// Per file: each raw id, the hash of its line and its scoped id.
type Scoped = FxHashMap<Box<str>, (u64, Box<str>)>;

fn kept(e: &Entry) -> bool {
    e.uuid.is_some() && !matches!(&e.kind, Kind::KnownMeta(_) | Kind::Unknown(_))
}

/// Links every Pi entry of the project.
pub(super) fn link(source: &ProjectSource, entries: &mut Entries) {
    // Each file's entries (contiguous, in order).
    let mut ranges: FxHashMap<FileId, (usize, usize)> = FxHashMap::default();
    for (i, e) in entries.iter().enumerate() {
        let r = ranges.entry(e.loc.file).or_insert((i, i));
        r.1 = i + 1;
    }
    let all = entries.as_mut_slice();
    // Each file's session (its header's id, else its file name) and parent file.
    let by_name: FxHashMap<&str, FileId> = source
        .files
        .iter_enumerated()
        .map(|(id, f)| (f.path.file_name().and_then(|n| n.to_str()).unwrap_or(""), id))
        .collect();
    let mut session: FxHashMap<FileId, Box<str>> = FxHashMap::default();
    let mut parent_file: FxHashMap<FileId, FileId> = FxHashMap::default();
    for (&f, &(a, b)) in &ranges {
        let head = all[a..b].iter().find(|e| e.kind == Kind::KnownMeta(SESSION.into()));
        let name = source.files.get(f).map(|s| s.rel.clone()).unwrap_or_default();
        let sid = head.and_then(|h| h.session_id.clone()).unwrap_or_else(|| name.into());
        session.insert(f, sid);
        let parent = head.and_then(|h| h.copied_from.as_deref()).and_then(|p| p.rsplit('/').next());
        if let Some(&pf) = parent.and_then(|p| by_name.get(p)).filter(|pf| **pf != f) {
            parent_file.insert(f, pf);
        }
    }
    // Files in an order where each parent comes first (a cycle is cut).
    let depth = |f: FileId| {
        let mut d = 0usize;
        let mut cur = f;
        while let Some(&p) = parent_file.get(&cur) {
            d += 1;
            cur = p;
            if d > ranges.len() {
                break;
            }
        }
        d
    };
    let mut order: Vec<FileId> = ranges.keys().copied().collect();
    order.sort_by_key(|f| (depth(*f), *f));
    // Per file: raw id → (line hash, scoped id).
    let mut scoped: FxHashMap<FileId, Scoped> = FxHashMap::default();
    for &f in &order {
        let (a, b) = ranges[&f];
        let sid = session[&f].clone();
        let from = parent_file.get(&f).and_then(|p| scoped.get(p));
        let mut mine: Scoped = FxHashMap::default();
        for e in &all[a..b] {
            let Some(raw) = e.uuid.as_deref() else { continue };
            let id = match from.and_then(|m| m.get(raw)).filter(|(h, _)| *h == e.line_hash) {
                Some((_, s)) => s.clone(),
                None => format!("{sid}-{raw}").into(),
            };
            mine.entry(raw.into()).or_insert((e.line_hash, id));
        }
        scoped.insert(f, mine);
    }
    for &f in &order {
        let (a, b) = ranges[&f];
        let parent = parent_file.get(&f).map(|p| session[p].clone());
        link_file(source, f, &mut all[a..b], &session[&f], &scoped[&f], parent);
    }
}

/// Links the entries `es` of file `f` (session `sid`, scoped ids `map`,
/// copied from session `copied` when it names a parent file).
fn link_file(source: &ProjectSource, f: FileId, es: &mut [Entry], sid: &str, map: &Scoped, copied: Option<Box<str>>) {
    let sid: Box<str> = sid.into();
    let class_agent = source.files.get(f).is_some_and(|s| s.class.is_agent());
    let agent: Option<Box<str>> = source.files.get(f).and_then(|s| s.agent_id_from_name.as_deref()).map(Into::into);
    let stem = source.files.get(f).map(|s| s.rel.trim_end_matches(".jsonl").to_string()).unwrap_or_default();
    // The nearest kept ancestor of each skipped entry, by raw id.
    let mut skipped: FxHashMap<Box<str>, Option<Box<str>>> = FxHashMap::default();
    for e in es.iter() {
        if let Some(u) = e.uuid.as_deref().filter(|_| !kept(e)) {
            let up = e.parent.as_deref().and_then(|p| match skipped.get(p) {
                Some(s) => s.clone(),
                None => Some(p.into()),
            });
            skipped.insert(u.into(), up);
        }
    }
    let scope_of = |raw: &str| map.get(raw).map(|(_, s)| s.clone());
    let last = es.iter().rev().find_map(|e| e.uuid.as_deref()).map(|u| match skipped.get(u) {
        Some(up) => up.clone(),
        None => Some(u.into()),
    });
    let leaf = last.flatten().and_then(|u| scope_of(&u));
    for e in es.iter_mut() {
        e.session_id = Some(sid.clone());
        if class_agent {
            e.sidechain = true;
            e.agent_id.clone_from(&agent);
        }
        if e.kind == Kind::KnownMeta(SESSION.into()) {
            e.copied_from.clone_from(&copied);
            e.meta = Some(Meta::LastPrompt { text: None, leaf: leaf.clone() });
            continue;
        }
        if !kept(e) {
            if e.kind != Kind::KnownMeta(RECORD.into()) {
                e.kind = Kind::KnownMeta(RECORD.into());
            }
            e.uuid = None;
            e.parent = None;
            continue;
        }
        let raw = e.uuid.take().unwrap_or_default();
        let id = scope_of(&raw).unwrap_or_else(|| format!("{sid}-{raw}").into());
        let parent = e.parent.take().and_then(|p| match skipped.get(&*p) {
            Some(up) => up.clone(),
            None => Some(p),
        });
        let parent = parent.map(|p| scope_of(&p).unwrap_or_else(|| format!("{sid}-{p}").into()));
        // Tool ids scoped like the reply that made the call (a result
        // hangs under its reply, or under a result of the same reply).
        let scope = id.rsplit_once('-').map_or("", |(s, _)| s).to_string();
        for u in &mut e.tool_uses {
            u.id = format!("{scope}-{}", u.id).into();
        }
        if !e.tool_results.is_empty() {
            let pscope = parent.as_deref().and_then(|p| p.rsplit_once('-')).map_or(scope.as_str(), |(s, _)| s);
            for r in &mut e.tool_results {
                r.tool_use_id = format!("{pscope}-{}", r.tool_use_id).into();
            }
        }
        if let Some(file) = e.spawned_agent.take() {
            // `<project>/<stem>/<run>/run-N/session.jsonl`: the run under our stem.
            let marker = format!("/{}/", stem.rsplit('/').next().unwrap_or(&stem));
            e.spawned_agent = file.split_once(&marker).map(|(_, rest)| super::discover::agent_key(rest).into());
        }
        if e.kind == Kind::Assistant {
            e.message_id = Some(id.clone());
        }
        if e.kind == Kind::System && e.compact_summary {
            e.subtype = Some("compact_boundary".into());
            e.logical_parent = parent;
        } else {
            e.parent = parent;
        }
        e.uuid = Some(id);
    }
}

//! Titles, summaries and the active branch (§5.6).
//!
//! Choices that the format leaves open are made without looking at line or
//! file positions, so shuffled input gives the same result:
//! - several `custom-title` / `ai-title` / `last-prompt` entries for one
//!   session: the one with the latest timestamp wins, ties (and entries without
//!   a timestamp, which lose to any timestamp) go to the greatest text;
//! - several summaries for one leaf (summaries carry no timestamp): the
//!   greatest text wins;
//! - several summarised nodes on one branch: the one latest on the branch wins.
//!
//! Before all of these, an entry of a live file wins over one of a previous
//! version kept by `cctree sync` (the newest version of a rewritten file).

use rustc_hash::FxHashMap;

use super::{Graph, GraphInput, NodeId, SummaryRef, TitleSource};
use crate::parse::{Entry, Kind, Meta, UserKind};

pub(super) fn attach(g: &mut Graph, input: &GraphInput<'_>) {
    let entries = input.entries;
    let live = |e: &Entry| !input.files.get(e.loc.file as usize).is_some_and(|f| f.kept_version);
    // Per-session metadata.
    let session_ix: FxHashMap<&str, usize> = g.sessions.iter().enumerate().map(|(i, s)| (&*s.id, i)).collect();
    let mut best: FxHashMap<(usize, u8), (bool, Option<i64>, &str)> = FxHashMap::default();
    let mut by_leaf: FxHashMap<NodeId, (bool, &str)> = FxHashMap::default();
    for (i, e) in entries.iter().enumerate() {
        let Some(meta) = &e.meta else { continue };
        let (slot, text) = match meta {
            Meta::CustomTitle(t) => (0u8, &**t),
            Meta::AiTitle(t) => (1, &**t),
            Meta::LastPrompt(t) => (2, &**t),
            Meta::Summary { summary, leaf_uuid } => {
                let node = leaf_uuid.as_deref().and_then(|l| g.index.get(l)).copied();
                g.summaries.push(SummaryRef { entry: i as u32, node });
                if let Some(n) = node {
                    let cand = (live(e), &**summary);
                    let cur = by_leaf.entry(n).or_insert(cand);
                    if cand > *cur {
                        *cur = cand;
                    }
                }
                continue;
            }
        };
        let Some(&s) = e.session_id.as_deref().and_then(|s| session_ix.get(s)) else {
            continue;
        };
        let cand = (live(e), e.timestamp, text);
        let cur = best.entry((s, slot)).or_insert(cand);
        if cand > *cur {
            *cur = cand;
        }
    }
    g.summaries.sort_by_key(|s| (entries[s.entry as usize].loc, s.entry));
    for ((s, slot), (_, _, text)) in best {
        let sess = &mut g.sessions[s];
        let v = Some(text.into());
        match slot {
            0 => sess.custom_title = v,
            1 => sess.ai_title = v,
            _ => sess.last_prompt = v,
        }
    }

    // Branch summaries and titles.
    for b in 0..g.branches.len() {
        let br = &g.branches[b];
        let summary = br.nodes.iter().rev().find_map(|n| by_leaf.get(n)).map(|(_, s)| Box::<str>::from(*s));
        let title =
            summary.clone().or_else(|| first_prompt(g, entries, &br.nodes)).unwrap_or_else(|| "(no prompt)".into());
        let br = &mut g.branches[b];
        br.summary = summary;
        br.title = title;
    }

    for c in 0..g.conversations.len() {
        let active = active_branch(g, entries, c);
        let conv = &g.conversations[c];
        let all_nodes: Vec<NodeId> = g.branches[conv.branches[0] as usize].nodes.clone();
        let first = first_prompt(g, entries, &all_nodes);
        // Sessions to take a title from: the active leaf's, the root's, then the rest.
        let mut order = vec![g.node(g.branches[active as usize].leaf).session, g.node(conv.root).session];
        order.extend(conv.sessions.iter().copied());
        let pick = |f: fn(&super::Session) -> Option<&Box<str>>| {
            order.iter().find_map(|s| f(&g.sessions[*s as usize])).cloned()
        };
        let (title, source) = if let Some(t) = pick(|s| s.custom_title.as_ref()) {
            (t, TitleSource::CustomTitle)
        } else if let Some(t) = pick(|s| s.ai_title.as_ref()) {
            (t, TitleSource::AiTitle)
        } else if let Some(t) = g.branches[active as usize]
            .summary
            .clone()
            .or_else(|| g.branches[conv.branches[0] as usize].summary.clone())
        {
            (t, TitleSource::Summary)
        } else if let Some(t) = first.clone() {
            (t, TitleSource::FirstPrompt)
        } else {
            ("(untitled)".into(), TitleSource::None)
        };
        let conv = &mut g.conversations[c];
        conv.title = title;
        conv.title_source = source;
        conv.first_prompt = first;
        conv.active_branch = active;
    }
}

/// The first meaningful prompt (§4.2): typed, not meta, not a marker.
fn first_prompt(g: &Graph, entries: &[Entry], nodes: &[NodeId]) -> Option<Box<str>> {
    nodes
        .iter()
        .map(|n| g.entry(entries, *n))
        .find(|e| e.kind == Kind::User && e.user_kind == UserKind::Prompt && !e.excerpt.is_empty())
        .map(|e| e.excerpt.clone())
}

/// The branch holding the active leaf: the latest prompt matching the
/// `last-prompt` of the most recent session, else the latest leaf.
fn active_branch(g: &Graph, entries: &[Entry], c: usize) -> u32 {
    let conv = &g.conversations[c];
    let latest_leaf_branch = conv
        .branches
        .iter()
        .copied()
        .max_by_key(|b| {
            let br = &g.branches[*b as usize];
            (g.node(br.leaf).ts, br.leaf)
        })
        .unwrap_or(conv.branches[0]);
    let latest_session = conv.sessions.iter().copied().max_by_key(|s| (g.sessions[*s as usize].last_ts, *s));
    let Some(s) = latest_session else {
        return latest_leaf_branch;
    };
    let Some(lp) = g.sessions[s as usize].last_prompt.as_deref() else {
        return latest_leaf_branch;
    };
    let lp = lp.trim();
    if lp.is_empty() {
        return latest_leaf_branch;
    }
    let mut hit: Option<(i64, NodeId, u32)> = None;
    for &b in &conv.branches {
        for &n in &g.branches[b as usize].nodes {
            let e = g.entry(entries, n);
            if e.user_kind != UserKind::Prompt || g.node(n).session != s {
                continue;
            }
            let ex = e.excerpt.trim();
            let matches = ex == lp || ex.starts_with(lp) || lp.starts_with(ex) && !ex.is_empty();
            if matches && hit.is_none_or(|h| (g.node(n).ts, n) > (h.0, h.1)) {
                hit = Some((g.node(n).ts, n, b));
            }
        }
    }
    hit.map_or(latest_leaf_branch, |h| h.2)
}

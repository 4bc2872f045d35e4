//! Titles, summaries, session leaves and the active branch (transcript-format
//! §5.6, appendix B).
//!
//! `custom-title`, `ai-title` and `last-prompt` carry no timestamp: Claude
//! Code reads them from the tail of the session's own file, so the **last
//! line of that file wins** [OBS 2.1.330]. cctree follows file order within a
//! file and prefers the session's own file (`<sessionId>.jsonl`); lines of
//! one session spread over other files are ranked by file path, then line, so
//! the order in which files are listed never matters.
//! - several summaries for one leaf (summaries carry no timestamp): the last
//!   line wins, as the client reads them (across files: by file, then line);
//! - several summarised nodes on one branch: the one latest on the branch wins.
//!
//! Before all of these, an entry of a live file wins over one of a previous
//! version kept by `cctree sync` (the newest version of a rewritten file).

use rustc_hash::FxHashMap;

use super::{BranchId, ConversationId, Graph, GraphInput, NodeId, SessionId, SummaryRef, TitleSource};
use crate::id::IdVec;
use crate::limits::LABEL_LOOKAHEAD;
use crate::model::{Entries, Entry, Kind, Loc, Meta, UserKind};

pub(super) fn attach(g: &mut Graph, input: &GraphInput<'_>) {
    let entries = input.entries;
    session_meta(g, input);
    let by_leaf = summaries(g, input);
    branch_titles(g, entries, &by_leaf);
    fork_labels(g, entries);
    for c in g.conversations.ids() {
        let active = active_branch(g, entries, c);
        let (title, source) = conversation_title(g, c, active);
        let first = first_prompt(g, entries, &g.branches[g.conversations[c].branches[0]].nodes);
        let conv = &mut g.conversations[c];
        conv.title = title.unwrap_or_else(|| first.clone().unwrap_or_else(|| "(untitled)".into()));
        conv.title_source = match (source, &first) {
            (Some(s), _) => s,
            (None, Some(_)) => TitleSource::FirstPrompt,
            (None, None) => TitleSource::None,
        };
        conv.first_prompt = first;
        conv.active_branch = active;
    }
}

/// Where a metadata line sits, for "the last line wins": a live file over a
/// version kept by `cctree sync`, then lines in the session's own file, then
/// by file and line.
type Rank = (bool, bool, Loc);

fn rank(input: &GraphInput<'_>, e: &Entry) -> Rank {
    let own = input.files.get(e.loc.file).and_then(|f| f.session_from_name.as_deref());
    (live(input, e), own.is_some() && own == e.session_id.as_deref(), e.loc)
}

/// Not in a previous version kept by `cctree sync`.
fn live(input: &GraphInput<'_>, e: &Entry) -> bool {
    !input.files.get(e.loc.file).is_some_and(|f| f.kept_version)
}

/// Per session: its custom and AI titles, last prompt and leaf.
fn session_meta(g: &mut Graph, input: &GraphInput<'_>) {
    let entries = input.entries;
    let session_ix: FxHashMap<&str, SessionId> =
        g.sessions.iter_enumerated().map(|(i, s)| (&*s.session_id, i)).collect();
    // (session, slot) → (rank, text): 0 custom title, 1 AI title, 2 prompt text.
    let mut best: FxHashMap<(SessionId, u8), (Rank, &str)> = FxHashMap::default();
    // session → (rank, leaf) of every `leafUuid` that names a node.
    let mut leaves: FxHashMap<SessionId, (Rank, NodeId)> = FxHashMap::default();
    for e in entries {
        let Some(meta) = &e.meta else { continue };
        let Some(&s) = e.session_id.as_deref().and_then(|s| session_ix.get(s)) else { continue };
        let r = rank(input, e);
        let (slot, text) = match meta {
            Meta::CustomTitle(t) => (0u8, &**t),
            Meta::AiTitle(t) => (1, &**t),
            Meta::LastPrompt { text, leaf } => {
                if let Some(&n) = leaf.as_deref().and_then(|l| g.index.get(l)) {
                    let cur = leaves.entry(s).or_insert((r, n));
                    if r > cur.0 {
                        *cur = (r, n);
                    }
                }
                match text {
                    Some(t) => (2, &**t),
                    None => continue,
                }
            }
            _ => continue,
        };
        let cur = best.entry((s, slot)).or_insert((r, text));
        if r > cur.0 {
            *cur = (r, text);
        }
    }
    let named: Vec<(SessionId, &str)> = (input.session_titles.iter())
        .filter_map(|(id, name)| Some((*session_ix.get(id.as_str())?, name.as_str())))
        .collect();
    for ((s, slot), (_, text)) in best {
        let sess = &mut g.sessions[s];
        let v = Some(text.into());
        match slot {
            0 => sess.custom_title = v,
            1 => sess.ai_title = v,
            _ => sess.last_prompt = v,
        }
    }
    for (s, (_, n)) in leaves {
        g.sessions[s].leaf = Some(n);
    }
    // Names kept outside the transcripts (Codex's session index): a title
    // written in a transcript wins.
    for (s, name) in named {
        let sess = &mut g.sessions[s];
        if sess.custom_title.is_none() {
            sess.custom_title = Some(name.into());
        }
    }
}

/// Summaries by the node their `leafUuid` names: the last line wins, as the
/// client reads them (one per leaf; [`Rank`]: a live file's, then by file
/// and line).
fn summaries<'e>(g: &mut Graph, input: &GraphInput<'e>) -> FxHashMap<NodeId, &'e str> {
    let entries = input.entries;
    let mut by_leaf: FxHashMap<NodeId, (Rank, &str)> = FxHashMap::default();
    for (i, e) in entries.iter_enumerated() {
        let Some(Meta::Summary { summary, leaf_uuid }) = &e.meta else { continue };
        let node = leaf_uuid.as_deref().and_then(|l| g.index.get(l)).copied();
        g.summaries.push(SummaryRef { entry: i, node });
        if let Some(n) = node {
            let cand = (rank(input, e), &**summary);
            let cur = by_leaf.entry(n).or_insert(cand);
            if cand > *cur {
                *cur = cand;
            }
        }
    }
    g.summaries.sort_by_key(|s| (entries[s.entry].loc, s.entry));
    by_leaf.into_iter().map(|(n, (_, s))| (n, s)).collect()
}

/// Each session's leaf: the one its `last-prompt` names, else its latest main node.
fn session_leaves(g: &Graph) -> IdVec<SessionId, Option<NodeId>> {
    let mut latest: IdVec<SessionId, Option<NodeId>> = IdVec::filled(None, g.sessions.len());
    for (i, n) in g.nodes.iter_enumerated().filter(|(_, n)| !n.sidechain) {
        let slot = &mut latest[n.session];
        if slot.is_none_or(|l| (g.node(l).ts, l) < (n.ts, i)) {
            *slot = Some(i);
        }
    }
    g.sessions.iter().zip(latest).map(|(s, l)| s.leaf.or(l)).collect()
}

/// Branch titles: the summary of one of its nodes, else the name of the
/// renamed session whose leaf it holds (as the client's resume list shows
/// it), else its first typed prompt.
fn branch_titles(g: &mut Graph, entries: &Entries, by_leaf: &FxHashMap<NodeId, &str>) {
    // Branch → (last activity, session) of the latest renamed session ending on it.
    let mut renamed: FxHashMap<BranchId, (Option<i64>, SessionId)> = FxHashMap::default();
    let leaves = session_leaves(g);
    for (s, sess) in g.sessions.iter_enumerated() {
        if sess.custom_title.is_none() {
            continue;
        }
        let Some(leaf) = leaves[s] else { continue };
        let Some(b) = g.node(leaf).branch else { continue };
        if g.node(leaf).sidechain {
            continue;
        }
        let key = (sess.last_ts, s);
        let cur = renamed.entry(b).or_insert(key);
        if key > *cur {
            *cur = key;
        }
    }
    for b in g.branches.ids() {
        let br = &g.branches[b];
        let summary = br.nodes.iter().rev().find_map(|n| by_leaf.get(n)).map(|s| Box::<str>::from(*s));
        let name = renamed.get(&b).and_then(|(_, s)| g.sessions[*s].custom_title.clone());
        let title = summary
            .clone()
            .or(name)
            .or_else(|| first_prompt(g, entries, &br.nodes))
            .unwrap_or_else(|| "(no prompt)".into());
        let br = &mut g.branches[b];
        br.summary = summary;
        br.title = title;
    }
}

/// The conversation's title: a custom title, else an AI title, of the root's
/// session, then of the other sessions that are not copies (a fork's title
/// never renames its source); else the summary of the active or main branch.
fn conversation_title(g: &Graph, c: ConversationId, active: BranchId) -> (Option<Box<str>>, Option<TitleSource>) {
    let conv = &g.conversations[c];
    let root_session = g.node(conv.root).session;
    let mut order = vec![root_session];
    let mut others: Vec<SessionId> =
        conv.sessions.iter().copied().filter(|s| *s != root_session && !g.sessions[*s].is_copy()).collect();
    others.sort_by_key(|s| (g.sessions[*s].first_ts, *s));
    order.extend(others);
    let pick = |f: fn(&super::Session) -> Option<&Box<str>>| order.iter().find_map(|s| f(&g.sessions[*s])).cloned();
    if let Some(t) = pick(|s| s.custom_title.as_ref()) {
        return (Some(t), Some(TitleSource::CustomTitle));
    }
    if let Some(t) = pick(|s| s.ai_title.as_ref()) {
        return (Some(t), Some(TitleSource::AiTitle));
    }
    let summary = g.branches[active].summary.clone().or_else(|| g.branches[conv.branches[0]].summary.clone());
    match summary {
        Some(t) => (Some(t), Some(TitleSource::Summary)),
        None => (None, None),
    }
}

/// The labels of every fork point's children (see [`super::ForkPoint::labels`]).
fn fork_labels(g: &mut Graph, entries: &Entries) {
    // Each node's place on its branch, found once (looking it up along the
    // branch for every fork made N rewinds along one line cost N²).
    let mut place = IdVec::filled(0usize, g.nodes.len());
    for br in g.branches.iter() {
        for (i, n) in br.nodes.iter().enumerate() {
            place[*n] = i;
        }
    }
    for c in g.conversations.ids() {
        for f in 0..g.conversations[c].fork_points.len() {
            let fp = &g.conversations[c].fork_points[f];
            let labels: Vec<Box<str>> = fp.children.iter().map(|k| label_of(g, entries, &place, *k)).collect();
            g.conversations[c].fork_points[f].labels = labels;
        }
    }
}

/// The first words a person reads from `child` on, along its branch.
fn label_of(g: &Graph, entries: &Entries, place: &IdVec<NodeId, usize>, child: NodeId) -> Box<str> {
    let Some(nodes) = g.node(child).branch.and_then(|b| g.branches.get(b)).map(|br| &br.nodes) else {
        return "".into();
    };
    let start = Some(place[child]).filter(|&i| nodes.get(i) == Some(&child)).unwrap_or(0);
    let run = || nodes[start..].iter().take(LABEL_LOOKAHEAD).map(|n| g.entry(entries, *n));
    let typed = run().find(|e| {
        !e.excerpt.is_empty()
            && (matches!(e.user_kind, UserKind::Prompt | UserKind::Command | UserKind::Bash)
                || e.attachment_type.as_deref() == Some("queued_command"))
    });
    typed
        .or_else(|| run().find(|e| e.is_reply() && !e.excerpt.is_empty()))
        .map_or_else(|| "".into(), |e| e.excerpt.clone())
}

/// The first meaningful prompt (§4.2): typed, not meta, not a marker.
fn first_prompt(g: &Graph, entries: &Entries, nodes: &[NodeId]) -> Option<Box<str>> {
    nodes
        .iter()
        .map(|n| g.entry(entries, *n))
        .find(|e| e.kind == Kind::User && e.user_kind == UserKind::Prompt && !e.excerpt.is_empty())
        .map(|e| e.excerpt.clone())
}

/// The branch holding the active leaf: the leaf the most recent session's
/// `last-prompt` names (`leafUuid`, 2.1.330); for older archives the latest
/// prompt matching its `lastPrompt` text; else the latest leaf.
fn active_branch(g: &Graph, entries: &Entries, c: ConversationId) -> BranchId {
    let conv = &g.conversations[c];
    let latest_leaf_branch = conv
        .branches
        .iter()
        .copied()
        .max_by_key(|b| {
            let br = &g.branches[*b];
            (g.node(br.leaf).ts, br.leaf)
        })
        .unwrap_or(conv.branches[0]);
    let latest_session = conv.sessions.iter().copied().max_by_key(|s| (g.sessions[*s].last_ts, *s));
    let Some(s) = latest_session else {
        return latest_leaf_branch;
    };
    let sess = &g.sessions[s];
    if let Some(leaf) = sess.leaf {
        let n = g.node(leaf);
        if let (Some(nc), Some(b), false) = (n.conversation, n.branch, n.sidechain) {
            if nc == c {
                return b;
            }
        }
    }
    let Some(lp) = sess.last_prompt.as_deref().map(str::trim).filter(|l| !l.is_empty()) else {
        return latest_leaf_branch;
    };
    let mut hit: Option<(i64, NodeId, BranchId)> = None;
    for &b in &conv.branches {
        for &n in &g.branches[b].nodes {
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

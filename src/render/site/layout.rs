//! How a track of nodes (a branch or an agent transcript) is laid out on pages:
//! nodes grouped into display items (an assistant turn is every streamed entry
//! sharing a `message.id`; tool results are absorbed into the call they answer),
//! items numbered and paginated by counted turns from the track's start.
//!
//! Works on entry headers only (no JSON), so every track of a project can be
//! laid out up front and any message's page is known before pages are written.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::graph::{Graph, NodeId};
use crate::id::{IdVec, typed_id};
use crate::model::{Client, Entries, Entry, Kind, UserKind};

use crate::render::site::urls::page_of;

typed_id!(
    /// An item's place in its [`TrackLayout`].
    pub(crate) ItemId
);

/// A display unit: one prompt, one assistant turn, one system entry…
#[derive(Debug, Clone)]
pub(crate) struct Item {
    /// Its nodes in display order (several for a streamed turn).
    pub(crate) nodes: Vec<NodeId>,
    /// Tool-result nodes shown inside this item's tool calls.
    pub(crate) absorbed: Vec<NodeId>,
    /// A message a person reads (prompt, command, assistant turn): counted
    /// for numbering and pagination.
    pub(crate) counted: bool,
    /// Message number in the conversation (counted items; others carry the
    /// number of the message before them).
    pub(crate) number: u32,
    pub(crate) page: u32,
    /// A counted message the page shows whatever the reader's settings
    /// (slash commands included): where links to a place on the track land
    /// ([`crate::render::site::context::ProjectCtx::message_link`]).
    pub(crate) shown: bool,
}

/// The layout of one track.
#[derive(Debug, Clone, Default)]
pub(crate) struct TrackLayout {
    pub(crate) items: IdVec<ItemId, Item>,
    pub(crate) pages: u32,
    /// For each item, the nearest [`Item::shown`] item at or before it, and
    /// at or after it.
    pub(crate) shown_before: IdVec<ItemId, Option<ItemId>>,
    pub(crate) shown_after: IdVec<ItemId, Option<ItemId>>,
}

impl TrackLayout {
    /// Items on page `p`, as a range of positions in `items`.
    pub(crate) fn page_range(&self, p: u32) -> std::ops::Range<usize> {
        let items = self.items.as_slice();
        let start = items.partition_point(|i| i.page < p);
        let end = items.partition_point(|i| i.page <= p);
        start..end
    }
}

/// How many nodes after a compaction are looked at for the `/compact` that
/// caused it.
const COMPACT_COMMAND_REACH: usize = 64;

/// `nodes` in reading order, when it differs: the `/compact` command a
/// person typed (with the caveat the client writes before it) before the
/// compaction it caused. Claude Code writes the command and its output after
/// the boundary, the summary and the messages it kept (transcript-format
/// §5.7); it shows the command, then "Conversation compacted", then the
/// output.
pub(crate) fn reading_order(client: Client, g: &Graph, entries: &Entries, nodes: &[NodeId]) -> Option<Vec<NodeId>> {
    let entry = |n: NodeId| g.entry(entries, n);
    let mut moves: Vec<(usize, std::ops::RangeInclusive<usize>)> = Vec::new();
    for (i, &n) in nodes.iter().enumerate() {
        if !entry(n).is_compact_boundary() {
            continue;
        }
        let after = nodes.iter().enumerate().skip(i + 1).take(COMPACT_COMMAND_REACH);
        let after =
            after.take_while(|(_, m)| !entry(**m).is_compact_boundary() && entry(**m).user_kind != UserKind::Prompt);
        let command = after.map(|(j, _)| j).find(|&j| {
            let e = entry(nodes[j]);
            e.user_kind == UserKind::Command && {
                let typed = crate::render::plain::prompt_words(client, &e.excerpt, 80);
                typed == "/compact" || typed.starts_with("/compact ")
            }
        });
        if let Some(j) = command {
            let from = if j > i + 1 && entry(nodes[j - 1]).user_kind == UserKind::Meta { j - 1 } else { j };
            moves.push((i, from..=j));
        }
    }
    if moves.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(nodes.len());
    let mut moved = vec![false; nodes.len()];
    for (_, r) in &moves {
        for k in r.clone() {
            moved[k] = true;
        }
    }
    let mut next = moves.iter().peekable();
    for (i, &n) in nodes.iter().enumerate() {
        if let Some((_, r)) = next.next_if(|(at, _)| *at == i) {
            out.extend(r.clone().map(|k| nodes[k]));
        }
        if !moved[i] {
            out.push(n);
        }
    }
    Some(out)
}

/// Lays out `nodes` (in display order; a `/compact` before the compaction it
/// caused, [`reading_order`]); numbering starts after `first_number`.
pub(crate) fn layout(
    client: Client,
    g: &Graph,
    entries: &Entries,
    nodes: &[NodeId],
    first_number: u32,
    page_size: u32,
) -> TrackLayout {
    let reordered = reading_order(client, g, entries, nodes);
    let nodes = reordered.as_deref().unwrap_or(nodes);
    let on_line: FxHashSet<NodeId> = nodes.iter().copied().collect();
    let mut items: IdVec<ItemId, Item> = IdVec::new();
    // message.id → item, for the streamed entries of the current exchange.
    let mut turns: FxHashMap<&str, ItemId> = FxHashMap::default();
    // tool_use id → item holding the call.
    let mut calls: FxHashMap<&str, ItemId> = FxHashMap::default();
    let mut counted = 0u32;
    // An assistant item whose response has not ended: its last entry
    // carries no usage (a Codex CLI reasoning item before its call, a call
    // before the reply the API returned with it: the client records the
    // response's usage after its last item). The entries up to the one that
    // ends it are one message, as the streamed entries of one `message.id`.
    let mut open: Option<ItemId> = None;
    for &id in nodes {
        let e = g.entry(entries, id);
        if e.kind == Kind::Assistant {
            let joined = e.message_id.as_deref().and_then(|m| turns.get(m)).copied().or(open);
            if let Some(ix) = joined {
                if open == Some(ix) && e.usage.is_some() {
                    open = None;
                }
                items[ix].nodes.push(id);
                for u in &e.tool_uses {
                    calls.insert(&u.id, ix);
                }
                continue;
            }
        }
        if e.kind == Kind::User && absorbable(g, e, &on_line) {
            let target = e.tool_results.iter().find_map(|r| calls.get(&*r.tool_use_id).copied());
            if let Some(ix) = target {
                items[ix].absorbed.push(id);
                continue;
            }
        }
        let is_counted = e.is_message();
        if is_counted {
            counted += 1;
        }
        open = None;
        if e.kind == Kind::User && e.user_kind == UserKind::Prompt {
            turns.clear();
        }
        let ix = items.next_id();
        if e.kind == Kind::Assistant {
            if let Some(m) = e.message_id.as_deref() {
                turns.insert(m, ix);
            }
            if e.usage.is_none() {
                open = Some(ix);
            }
            for u in &e.tool_uses {
                calls.insert(&u.id, ix);
            }
        }
        let page = page_of(counted.saturating_sub(1), page_size);
        items.push(Item {
            nodes: vec![id],
            absorbed: Vec::new(),
            counted: is_counted,
            number: first_number + counted,
            page,
            shown: is_counted,
        });
    }
    let mut shown_before = IdVec::filled(None, items.len());
    let mut last = None;
    for (i, item) in items.iter_enumerated() {
        if item.shown {
            last = Some(i);
        }
        shown_before[i] = last;
    }
    let mut shown_after = IdVec::filled(None, items.len());
    let mut next = None;
    for (i, item) in items.iter_enumerated().rev() {
        if item.shown {
            next = Some(i);
        }
        shown_after[i] = next;
    }
    TrackLayout { pages: items.last().map_or(1, |i| i.page + 1), items, shown_before, shown_after }
}

/// A tool-result-only user entry whose calls are all on this track.
fn absorbable(g: &Graph, e: &Entry, on_line: &FxHashSet<NodeId>) -> bool {
    e.user_kind == UserKind::ToolResult
        && !e.tool_results.is_empty()
        && e.tool_results
            .iter()
            .all(|r| g.tools.get(&*r.tool_use_id).and_then(|l| l.use_node).is_some_and(|u| on_line.contains(&u)))
}

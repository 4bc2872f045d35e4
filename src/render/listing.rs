//! The project index page: its conversations (title, first prompt, times,
//! messages, branches, forks, token totals), sub-agent transcripts, and the
//! collapsed "other entries" (fragments, side agents, unknown metadata).

use crate::graph::{AgentKind, Conversation, ConversationId};
use crate::parse::Kind;

use super::blocks::Block;
use super::context::ProjectCtx;
use super::page::PageCtx;
use super::pages::{AgentRow, ConvRow, ProjectPage, Time};
use super::text::{compact_num, excerpt, plain_excerpt};
use super::transcript::crumbs;
use super::urls::{Root, href};
use crate::limits::{LISTED_TITLE_CHARS, UNKNOWN_ENTRIES};

/// Metadata entries of types cctree does not know (no uuid, so on no line):
/// shown as they are, collapsed, on the project page (the first
/// [`UNKNOWN_ENTRIES`]), and how many more there are.
fn unknown_entries(ctx: &ProjectCtx<'_>) -> (Vec<Block>, usize) {
    let unknown: Vec<&crate::parse::Entry> =
        ctx.entries().iter().filter(|e| e.kind.is_unknown() && !e.is_node()).collect();
    let mut pcx = PageCtx::new(ctx, &ctx.dir, None);
    let shown = unknown
        .iter()
        .take(UNKNOWN_ENTRIES)
        .map(|e| {
            let json: serde_json::Value = ctx.project.json(e).unwrap_or(serde_json::Value::Null);
            let place = ctx.place(e.loc);
            let label = format!("{} ({})", e.kind.name(), ctx.redactor.text(|| place.clone(), &place));
            pcx.json_details(&label, &json)
        })
        .collect();
    (shown, unknown.len().saturating_sub(UNKNOWN_ENTRIES))
}

/// Messages queued in sessions that hold no node (so no line to show them on).
fn unplaced_queued(ctx: &ProjectCtx<'_>) -> Vec<Vec<Block>> {
    let mut pcx = PageCtx::new(ctx, &ctx.dir, None);
    let queued = &ctx.graph().unplaced_queued;
    queued.iter().map(|&q| super::message::queued_view(&mut pcx, &ctx.entries()[q]).body).collect()
}

/// Token totals of a conversation: per assistant turn (`message.id`), the
/// block with the largest `output_tokens`; summed over turns.
pub fn tokens(ctx: &ProjectCtx<'_>, c: &Conversation) -> String {
    let g = ctx.graph();
    let e = ctx.entries();
    let mut best: rustc_hash::FxHashMap<&str, crate::parse::Usage> = Default::default();
    let mut loose = (0u64, 0u64);
    for &b in &c.branches {
        for &n in &g.branches[b].nodes {
            let en = g.entry(e, n);
            let (Kind::Assistant, Some(u)) = (&en.kind, en.usage) else { continue };
            match en.message_id.as_deref() {
                Some(m) => {
                    let slot = best.entry(m).or_default();
                    if u.output >= slot.output {
                        *slot = u;
                    }
                }
                None => {
                    loose.0 += u.input + u.cache_creation + u.cache_read;
                    loose.1 += u.output;
                }
            }
        }
    }
    let (mut input, mut output) = loose;
    for u in best.values() {
        input += u.input + u.cache_creation + u.cache_read;
        output += u.output;
    }
    if input + output == 0 {
        return String::new();
    }
    format!("{} tokens in · {} out", compact_num(input), compact_num(output))
}

/// The project index page.
pub fn project_page(ctx: &ProjectCtx<'_>) -> ProjectPage {
    let dir = ctx.dir.as_str();
    let mut convs = Vec::new();
    let mut fragments = Vec::new();
    for (i, c) in ctx.graph().conversations.iter_enumerated() {
        let row = conv_row(ctx, i, c);
        if c.is_fragment {
            fragments.push(row);
        } else {
            convs.push(row);
        }
    }
    convs.sort_by(|a, b| b.last.ms.cmp(&a.last.ms).then_with(|| a.href.cmp(&b.href)));
    let (agents, others) = agent_rows(ctx);
    let (unknown, unknown_more) = unknown_entries(ctx);
    ProjectPage {
        root: Root::of(dir),
        title: ctx.name.clone(),
        crumbs: crumbs(ctx, dir, None),
        convs,
        fragments,
        agents,
        others,
        unknown,
        unknown_more,
        queued: unplaced_queued(ctx),
    }
}

fn conv_row(ctx: &ProjectCtx<'_>, i: ConversationId, c: &Conversation) -> ConvRow {
    ConvRow {
        title: excerpt(&c.title, LISTED_TITLE_CHARS),
        href: href(&ctx.dir, &ctx.conv_dirs[i], "index.html", None),
        first_prompt: plain_excerpt(c.first_prompt.as_deref().unwrap_or(""), 240),
        started: Time::at(c.first_ts),
        last: Time::at(c.last_ts),
        messages: c.messages,
        branches: c.branches.len(),
        forks: c.fork_points.len(),
        tokens: tokens(ctx, c),
        cctree_forks: c.junctions.iter().filter(|j| j.kind == crate::graph::JunctionKind::CctreeFork).count(),
    }
}

/// The sub-agent transcripts of a project, and its other agents (side
/// agents, side exchanges).
fn agent_rows(ctx: &ProjectCtx<'_>) -> (Vec<AgentRow>, Vec<AgentRow>) {
    let mut agents = Vec::new();
    let mut others = Vec::new();
    for (i, a) in ctx.graph().agents.iter_enumerated() {
        let desc = a.meta.as_ref().and_then(|m| m.description.as_deref()).unwrap_or("");
        let row = AgentRow {
            title: if desc.is_empty() { a.agent_id.to_string() } else { desc.to_string() },
            href: href(&ctx.dir, &ctx.agent_dirs[i], "index.html", None),
            kind: match a.kind {
                AgentKind::Subagent => {
                    a.meta.as_ref().and_then(|m| m.agent_type.clone()).unwrap_or_else(|| "sub-agent".into())
                }
                AgentKind::SideAgent => "side agent".into(),
                AgentKind::Inline => "side exchange".into(),
            },
            messages: a.messages,
            started: Time::at(a.first_ts),
            spawn: a.spawn.as_ref().and_then(|s| s.use_node).and_then(|n| ctx.node_href(&ctx.dir, n)),
        };
        if a.kind == AgentKind::Subagent { agents.push(row) } else { others.push(row) }
    }
    (agents, others)
}

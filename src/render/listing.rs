//! The project index page: its conversations (title, first prompt, times,
//! messages, branches, forks, token totals), sub-agent transcripts, and the
//! collapsed "other entries" (fragments, side agents, unknown metadata); plus
//! the project's entries for the search index.

use crate::graph::{AgentKind, Conversation};
use crate::parse::Kind;

use super::blocks::PageCtx;
use super::context::ProjectCtx;
use super::html::{compact_num, excerpt, plain_excerpt, time_html};
use super::outline::turn_text;
use super::pages::{AgentRow, ConvRow, ProjectPage};
use super::search::SearchEntry;
use super::transcript::crumbs;
use super::urls::href;
use crate::limits::{LISTED_TITLE_CHARS, UNKNOWN_ENTRIES};

/// Metadata entries of types cctree does not know (no uuid, so on no line):
/// shown as they are, collapsed, on the project page.
fn unknown_entries(ctx: &ProjectCtx<'_>) -> String {
    let unknown: Vec<&crate::parse::Entry> =
        ctx.entries().iter().filter(|e| e.kind.is_unknown() && !e.is_node()).collect();
    if unknown.is_empty() {
        return String::new();
    }
    let mut pcx = PageCtx::new(ctx, &ctx.dir, None);
    let mut s = String::from("<li>Entries of unknown types:<ul class=\"rows\">");
    for e in unknown.iter().take(UNKNOWN_ENTRIES) {
        let json: serde_json::Value = ctx.project.json(e).unwrap_or(serde_json::Value::Null);
        let place = ctx.place(e.loc);
        let label = format!("{} ({})", e.kind.name(), ctx.redactor.text(|| place.clone(), &place));
        s.push_str(&format!("<li>{}</li>", pcx.json_details(&label, &json)));
    }
    if unknown.len() > UNKNOWN_ENTRIES {
        s.push_str(&format!("<li class=\"note\">… and {} more</li>", unknown.len() - UNKNOWN_ENTRIES));
    }
    s.push_str("</ul></li>");
    s
}

/// Messages queued in sessions that hold no node (so no line to show them on).
fn unplaced_queued(ctx: &ProjectCtx<'_>) -> String {
    let g = ctx.graph();
    if g.unplaced_queued.is_empty() {
        return String::new();
    }
    let mut pcx = PageCtx::new(ctx, &ctx.dir, None);
    let mut s =
        String::from("<li>Messages queued while Claude worked, in sessions without a conversation:<ul class=\"rows\">");
    for &q in &g.unplaced_queued {
        let view = super::message::queued_view(&mut pcx, &ctx.entries()[q as usize]);
        s.push_str(&format!("<li>{}</li>", view.body));
    }
    s.push_str("</ul></li>");
    s
}

/// Token totals of a conversation: per assistant turn (`message.id`), the
/// block with the largest `output_tokens`; summed over turns.
pub fn tokens(ctx: &ProjectCtx<'_>, c: &Conversation) -> String {
    let g = ctx.graph();
    let e = ctx.entries();
    let mut best: rustc_hash::FxHashMap<&str, crate::parse::Usage> = Default::default();
    let mut loose = (0u64, 0u64);
    for &b in &c.branches {
        for &n in &g.branches[b as usize].nodes {
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

pub fn project_page(ctx: &ProjectCtx<'_>) -> (ProjectPage, Vec<SearchEntry>) {
    let g = ctx.graph();
    let e = ctx.entries();
    let dir = ctx.dir.as_str();
    let mut convs = Vec::new();
    let mut fragments = Vec::new();
    let mut search = vec![SearchEntry::new("project", &ctx.name, &ctx.name, "", format!("{dir}index.html"))];
    for (i, c) in g.conversations.iter().enumerate() {
        let cdir = &ctx.conv_dirs[i];
        let row = ConvRow {
            title: excerpt(&c.title, LISTED_TITLE_CHARS),
            href: href(dir, cdir, "index.html", None),
            first_prompt: plain_excerpt(c.first_prompt.as_deref().unwrap_or(""), 240),
            started_html: time_html(c.first_ts),
            last_html: time_html(c.last_ts),
            messages: c.messages,
            branches: c.branches.len(),
            forks: c.fork_points.len(),
            tokens: tokens(ctx, c),
            last_ts: c.last_ts,
            cctree_forks: c.junctions.iter().filter(|j| j.kind == crate::graph::JunctionKind::CctreeFork).count(),
        };
        if c.is_fragment {
            fragments.push(row);
            continue;
        }
        search.push(SearchEntry::new(
            "conversation",
            &ctx.name,
            &c.title,
            c.first_prompt.as_deref().unwrap_or(""),
            format!("{cdir}index.html"),
        ));
        for fp in &c.fork_points {
            let n = ctx.fork_numbers.get(&fp.node).copied().unwrap_or(0);
            let lay = &ctx.branch_layouts[fp.branch as usize];
            let ix = ctx.loc[fp.node.ix()].map_or(0, |l| l.item as usize);
            let url = ctx.node_href("", fp.node).unwrap_or_default();
            search.push(SearchEntry::new(
                "fork",
                &ctx.name,
                &format!("Fork at #{n} · {}", c.title),
                &turn_text(ctx, lay, ix),
                url,
            ));
        }
        for &b in c.branches.iter().skip(1) {
            let br = &g.branches[b as usize];
            let url = format!("{}index.html", ctx.branch_dirs[b as usize]);
            search.push(SearchEntry::new(
                "branch",
                &ctx.name,
                &format!("Branch {} · {}", ctx.labels[b as usize], br.title),
                &g.entry(e, br.first).excerpt,
                url,
            ));
        }
        convs.push(row);
    }
    convs.sort_by(|a, b| b.last_ts.cmp(&a.last_ts).then_with(|| a.href.cmp(&b.href)));
    let mut agents = Vec::new();
    let mut others = Vec::new();
    for (i, a) in g.agents.iter().enumerate() {
        let desc = a.meta.as_ref().and_then(|m| m.description.as_deref()).unwrap_or("");
        let row = AgentRow {
            title: if desc.is_empty() { a.id.to_string() } else { desc.to_string() },
            href: href(dir, &ctx.agent_dirs[i], "index.html", None),
            kind: match a.kind {
                AgentKind::Subagent => {
                    a.meta.as_ref().and_then(|m| m.agent_type.clone()).unwrap_or_else(|| "sub-agent".into())
                }
                AgentKind::SideAgent => "side agent".into(),
                AgentKind::Inline => "side exchange".into(),
            },
            messages: a.messages,
            started_html: time_html(a.first_ts),
            spawn_href: a
                .spawn
                .as_ref()
                .and_then(|s| s.use_node)
                .and_then(|n| ctx.node_href(dir, n))
                .unwrap_or_default(),
        };
        if a.kind == AgentKind::Subagent { agents.push(row) } else { others.push(row) }
    }
    let page = ProjectPage {
        unknown_html: unknown_entries(ctx) + &unplaced_queued(ctx),
        root: "../".into(),
        title: ctx.name.clone(),
        crumbs: crumbs(ctx, dir, None),
        convs,
        fragments,
        agents,
        others,
    };
    (page, search)
}

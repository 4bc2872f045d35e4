//! The pages of the project index: its conversations (title, first prompt,
//! times, messages, branches, forks, token totals), sub-agent transcripts,
//! and the collapsed "other entries" (fragments, side agents, unknown
//! metadata), [`LISTED_PER_PAGE`] rows of each a page.

use crate::graph::{AgentId, AgentKind, Conversation, ConversationId, TitleSource};

use crate::limits::{LISTED_PER_PAGE, LISTED_TITLE_CHARS, UNKNOWN_ENTRIES, UNTITLED_CHARS};
use crate::render::pages::recovered;
use crate::render::pages::templates::{AgentRow, ConvRow, Listed, Pager, ProjectPage, RecoveredRow, Shown, Time};
use crate::render::pages::track::crumbs;
use crate::render::plain::{plain_excerpt, prompt_words};
use crate::render::site::context::ProjectCtx;
use crate::render::site::urls::{Root, href, page_file, sibling_page};
use crate::render::views::blocks::Block;
use crate::render::views::page_state::PageCtx;

/// Metadata entries of types cctree does not know (no uuid, so on no line):
/// shown as they are, collapsed, on the project page (the first
/// [`UNKNOWN_ENTRIES`]), and how many more there are.
fn unknown_entries(ctx: &ProjectCtx<'_>) -> (Vec<Block>, usize) {
    let unknown: Vec<&crate::model::Entry> =
        ctx.entries().iter().filter(|e| e.kind.is_unknown() && !e.is_node()).collect();
    let mut pcx = PageCtx::new(ctx, &ctx.dir);
    let shown = unknown
        .iter()
        .take(UNKNOWN_ENTRIES)
        .map(|e| {
            let raw = ctx.project.record(e).unwrap_or_else(|_| crate::model::Raw::null());
            let place = ctx.place(e.loc);
            let label = format!("{} ({})", e.kind.name(), ctx.redactor.text(|| place.clone(), &place));
            pcx.json_details(&label, &raw)
        })
        .collect();
    (shown, unknown.len().saturating_sub(UNKNOWN_ENTRIES))
}

/// Messages queued in sessions that hold no node (so no line to show them
/// on): those of the page starting at row `at`.
fn unplaced_queued(ctx: &ProjectCtx<'_>, at: usize) -> Vec<Vec<Block>> {
    let mut pcx = PageCtx::new(ctx, &ctx.dir);
    let queued = ctx.graph().unplaced_queued.iter().skip(at).take(LISTED_PER_PAGE);
    queued.map(|&q| crate::render::views::message::queued_view(&mut pcx, q).body).collect()
}

/// The project index, in pages of at most [`LISTED_PER_PAGE`] rows of each
/// list (conversations, newest first; sub-agent transcripts; other entries;
/// queued messages without a conversation): page 1 is the project's
/// `index.html`, page `n` its `page-<n>.html`, so that no page grows with the
/// number of sessions. Which row lands on which page depends only on the
/// project.
pub(crate) struct ProjectIndex {
    /// Conversations and recovered sessions, newest activity first.
    convs: Vec<Row>,
    /// How many of them are conversations, and recovered sessions.
    conversations: usize,
    recovered: usize,
    /// Fragments, in graph order.
    fragments: Vec<ConversationId>,
    /// Sub-agent transcripts and other agents, in graph order.
    agents: Vec<AgentId>,
    others: Vec<AgentId>,
    pages: u32,
    /// The project's token totals, and what they cost.
    tokens: String,
    cost: String,
}

/// A row of the list of conversations: a conversation, or a session
/// recovered from the prompt history (its index in `Project::kept`).
#[derive(Debug, Clone, Copy)]
enum Row {
    Conv(ConversationId),
    Recovered(usize),
}

impl ProjectIndex {
    pub(crate) fn new(ctx: &ProjectCtx<'_>) -> ProjectIndex {
        let g = ctx.graph();
        let (fragments, convs): (Vec<ConversationId>, Vec<ConversationId>) =
            g.conversations.ids().partition(|i| g.conversations[*i].is_fragment);
        let recovered = &ctx.project.kept.recovered;
        let (conversations, recovered_count) = (convs.len(), recovered.len());
        // Newest activity first, conversations and recovered sessions alike
        // (then by directory: each row's is unique).
        let mut keyed: Vec<(i64, String, Row)> = convs
            .into_iter()
            .map(|i| (g.conversations[i].last_ts, ctx.conv_dirs[i].clone(), Row::Conv(i)))
            .chain(recovered.iter().enumerate().map(|(i, s)| (s.last_ts(), recovered::dir(ctx, s), Row::Recovered(i))))
            .collect();
        keyed.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let convs: Vec<Row> = keyed.into_iter().map(|(_, _, r)| r).collect();
        let (agents, others): (Vec<AgentId>, Vec<AgentId>) =
            g.agents.ids().partition(|i| g.agents[*i].kind == AgentKind::Subagent);
        let lists = [convs.len(), agents.len(), fragments.len() + others.len(), g.unplaced_queued.len()];
        let pages = lists.iter().map(|n| n.div_ceil(LISTED_PER_PAGE)).max().unwrap_or(0).max(1);
        let spend = ctx.project_spend();
        let (tokens, cost) = (spend.tokens_text(), spend.cost_text());
        ProjectIndex {
            convs,
            conversations,
            recovered: recovered_count,
            fragments,
            agents,
            others,
            pages: u32::try_from(pages).unwrap_or(u32::MAX),
            tokens,
            cost,
        }
    }

    /// How many pages the index takes (at least one).
    pub(crate) fn pages(&self) -> u32 {
        self.pages
    }

    /// Page `page`'s path (0-based), relative to the site root.
    pub(crate) fn path(ctx: &ProjectCtx<'_>, page: u32) -> String {
        format!("{}{}", ctx.dir, page_file(page))
    }

    /// Page `page` (0-based) of the project index.
    pub(crate) fn page(&self, ctx: &ProjectCtx<'_>, page: u32) -> ProjectPage {
        let dir = ctx.dir.as_str();
        let g = ctx.graph();
        let at = page as usize * LISTED_PER_PAGE;
        let slice = |v: &[ConversationId]| -> Vec<ConversationId> {
            v.iter().skip(at).take(LISTED_PER_PAGE).copied().collect()
        };
        let convs = (self.convs.iter().skip(at).take(LISTED_PER_PAGE))
            .map(|row| match *row {
                Row::Conv(i) => Listed::Conv(conv_row(ctx, i, &g.conversations[i])),
                Row::Recovered(i) => Listed::Recovered(recovered_row(ctx, &ctx.project.kept.recovered[i])),
            })
            .collect();
        let agents = self.agents.iter().skip(at).take(LISTED_PER_PAGE).map(|&i| agent_row(ctx, i)).collect();
        // "Other entries": fragments, then other agents, as one list.
        let fragments: Vec<ConvRow> =
            slice(&self.fragments).into_iter().map(|i| conv_row(ctx, i, &g.conversations[i])).collect();
        let others = (self.others.iter().skip(at.saturating_sub(self.fragments.len())))
            .take(LISTED_PER_PAGE - fragments.len())
            .map(|&i| agent_row(ctx, i))
            .collect();
        let (unknown, unknown_more) = if page == 0 { unknown_entries(ctx) } else { (Vec::new(), 0) };
        let queued = unplaced_queued(ctx, at);
        let shown = |total: usize| Shown { first: at.min(total) + 1, last: (at + LISTED_PER_PAGE).min(total), total };
        ProjectPage {
            root: Root::of(dir),
            title: ctx.name.clone(),
            crumbs: crumbs(ctx, dir, None),
            convs,
            conv_count: shown(self.convs.len()),
            conversations: self.conversations,
            recovered: self.recovered,
            tokens: self.tokens.clone(),
            cost: self.cost.clone(),
            fragments,
            agents,
            agent_count: shown(self.agents.len()),
            others,
            unknown,
            unknown_more,
            queued,
            pager: Pager::window(self.pages, page, sibling_page),
        }
    }
}

fn conv_row(ctx: &ProjectCtx<'_>, i: ConversationId, c: &Conversation) -> ConvRow {
    // Titled by its first prompt: the prompt's words, once.
    let untitled = c.title_source == TitleSource::FirstPrompt;
    let spend = ctx.conversation_spend(c);
    // Neither title nor prompt: its first words, and what it is.
    let none = (c.title_source == TitleSource::None).then(|| crate::render::pages::track::untitled(ctx, c));
    ConvRow {
        title: match &none {
            Some((words, _)) => words.clone(),
            None if untitled => prompt_words(ctx.project.source.client, &c.title, UNTITLED_CHARS),
            None => plain_excerpt(&c.title, LISTED_TITLE_CHARS),
        },
        href: href(&ctx.dir, &ctx.conv_dirs[i], "index.html", None),
        first_prompt: match none {
            Some((_, what)) => what,
            None if untitled => String::new(),
            None => plain_excerpt(c.first_prompt.as_deref().unwrap_or(""), 240),
        },
        started: Time::at(c.first_ts),
        last: Time::at(c.last_ts),
        messages: c.messages,
        branches: c.branches.len(),
        forks: c.fork_points.len(),
        tokens: spend.tokens_text(),
        cost: spend.cost_text(),
        sub_agents: ctx.spawned_agents(c.branches.iter().copied()),
        cctree_forks: c.junctions.iter().filter(|j| j.kind == crate::graph::JunctionKind::CctreeFork).count(),
        kept: ctx.project.kept.archive_only.contains(&c.root).then(|| ctx.project.source.client.product()),
    }
}

/// A recovered session's row on the project index.
fn recovered_row(ctx: &ProjectCtx<'_>, s: &crate::model::RecoveredSession) -> RecoveredRow {
    RecoveredRow {
        title: recovered::title(ctx, s),
        href: href(&ctx.dir, &recovered::dir(ctx, s), "index.html", None),
        first_prompt: plain_excerpt(&recovered::first_prompt(ctx, s), 240),
        label: recovered::label(s),
        product: ctx.project.source.client.product(),
        log_what: s.log.what,
        started: Time::at(s.first_ts()),
        last: Time::at(s.last_ts()),
    }
}

/// An agent transcript's row on the project index.
fn agent_row(ctx: &ProjectCtx<'_>, i: AgentId) -> AgentRow {
    let a = &ctx.graph().agents[i];
    let desc = a.meta.as_ref().and_then(|m| m.description.as_deref()).unwrap_or("");
    AgentRow {
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
        ran: (a.attached_to.filter(|n| a.spawn.is_none() && !ctx.graph().node(*n).sidechain))
            .and_then(|n| ctx.node_href(&ctx.dir, n)),
    }
}

//! One page of a branch or an agent transcript: its header (title, crumbs,
//! facts, where it forked from or who spawned it, the context before the
//! fork), its messages with the session changes between them and the fork
//! command of each legal checkpoint, and its pager.

use rustc_hash::FxHashSet;

use crate::graph::{AgentId, AgentKind, BranchId, ConversationId, NodeId, SessionId, TitleSource};

use crate::limits::{CRUMB_CHARS, FORK_CONTEXT, MAP_MIN_ROWS, TITLE_CHARS, UNTITLED_CHARS};
use crate::render::pages::map::map;
use crate::render::pages::outline::outline;
use crate::render::pages::templates::{
    ActiveTrack, BranchHead, CctreeFork, Crumb, Fact, FactValue, ForkedFrom, MainBranch, Pager, Time, TrackEntry,
    TrackHead, TrackPage,
};
use crate::render::plain::{excerpt, plain_excerpt, plain_text, prompt_words};
use crate::render::site::context::{ProjectCtx, TrackId};
use crate::render::site::layout::ItemId;
use crate::render::site::urls::{Root, href, page_file, sibling_page};
use crate::render::views::blocks::{Block, SessionRef};
use crate::render::views::inputs::{ItemInputs, Place, item_inputs};
use crate::render::views::message::{MessageView, render_item};
use crate::render::views::page_state::PageCtx;

pub(crate) fn crumbs(ctx: &ProjectCtx<'_>, from: &str, conv: Option<ConversationId>) -> Vec<Crumb> {
    let mut v = vec![Crumb { label: excerpt(&ctx.name, CRUMB_CHARS), href: href(from, &ctx.dir, "index.html", None) }];
    if let Some(c) = conv {
        v.push(Crumb {
            label: plain_excerpt(&ctx.graph().conversations[c].title, CRUMB_CHARS),
            href: href(from, &ctx.conv_dirs[c], "index.html", None),
        });
    }
    v
}

/// Everything a page of a track is made from, before any of it is
/// written: its head, the inputs of the messages before the fork shown on
/// the first page of a branch, and those of its own messages (on a page
/// several short branches share, each branch under its head). The page is
/// a function of these and of what their entries say ([`ItemInputs`]), so
/// their hash keys it (`crate::reuse`).
#[derive(Debug, Hash)]
pub(crate) struct PageInputs {
    pub(crate) head: TrackHead,
    pub(crate) context: Vec<ItemInputs>,
    pub(crate) sections: Vec<(Option<BranchHead>, Vec<ItemInputs>)>,
}

/// The inputs of page `page` of a track.
pub(crate) fn page_inputs(ctx: &ProjectCtx<'_>, track: TrackId, page: u32) -> PageInputs {
    let dir = ctx.track_dir(track);
    let shared = shared_branches(ctx, track);
    let items_of = |t: TrackId, page: u32| {
        let items = ctx.track_layout(t).items.as_slice();
        let at = Place { dir, track: Some(t) };
        ctx.track_layout(t).page_range(page).map(|ix| item_inputs(ctx, at, items, ix)).collect::<Vec<_>>()
    };
    let sections = if shared.is_empty() {
        vec![(None, items_of(track, page))]
    } else {
        // A shared page: each branch under its head, in fork order.
        shared.iter().map(|&m| (Some(branch_head(ctx, dir, m)), items_of(TrackId::Branch(m), 0))).collect()
    };
    let context = context_items(ctx, track, page)
        .into_iter()
        .map(|(t, ix)| item_inputs(ctx, Place { dir, track: None }, ctx.track_layout(t).items.as_slice(), ix.index()))
        .collect();
    PageInputs { head: track_head(ctx, track, page), context, sections }
}

/// Page `page` of a track: its head ([`track_head`]) and its messages.
pub(crate) fn track_page(ctx: &ProjectCtx<'_>, track: TrackId, page: u32) -> TrackPage {
    render_page(ctx, track, page, page_inputs(ctx, track, page))
}

/// Page `page` of a track, from its inputs.
pub(crate) fn render_page(ctx: &ProjectCtx<'_>, track: TrackId, page: u32, inputs: PageInputs) -> TrackPage {
    let dir = ctx.track_dir(track);
    let mut pcx = PageCtx::new(ctx, dir);
    pcx.page = page;
    let mut messages = Vec::new();
    for (head, items) in &inputs.sections {
        if let Some(h) = head {
            messages.push(h.clone().into());
        }
        for it in items {
            push_item(&mut pcx, it, &mut messages);
        }
    }
    // The messages before the fork: shown out of place, with allowances of their own.
    let mut pcx = PageCtx::new(ctx, dir);
    let context = inputs.context.iter().map(|it| render_item(&mut pcx, it)).collect();
    TrackPage { head: inputs.head, context, messages }
}

/// The branches read on a shared page led by `track` (none: not one).
fn shared_branches(ctx: &ProjectCtx<'_>, track: TrackId) -> Vec<BranchId> {
    match track {
        TrackId::Branch(b) if ctx.group_members.contains_key(&b) => ctx.page_branches(b),
        _ => Vec::new(),
    }
}

/// Page `page` of a track without its messages: everything above and below
/// them (title, crumbs, facts, map and fork-point index on a first page,
/// where it forked from, the pager).
pub(crate) fn track_head(ctx: &ProjectCtx<'_>, track: TrackId, page: u32) -> TrackHead {
    let g = ctx.graph();
    let dir = ctx.track_dir(track);
    let lay = ctx.track_layout(track);
    let shared = shared_branches(ctx, track);
    let pager = pager(lay.pages, page);
    let root = Root::of(dir);
    let mut p = TrackHead {
        root,
        title: String::new(),
        crumbs: Vec::new(),
        kind: "conversation",
        heading: String::new(),
        subheading: String::new(),
        facts: Vec::new(),
        more_facts: Vec::new(),
        more_summary: String::new(),
        forked_from: None,
        spawned_by: None,
        ran_in: None,
        outline: Vec::new(),
        outline_summary: String::new(),
        map: None,
        active: None,
        main_branch: None,
        kept: None,
        pager,
    };
    match track {
        TrackId::Active(c) => conversation_header(ctx, c, track, page, &mut p),
        TrackId::Branch(b) => {
            let c = g.branches[b].conversation;
            if ctx.conversation_track(&g.conversations[c]) == track {
                conversation_header(ctx, c, track, page, &mut p);
            } else if !shared.is_empty() {
                p.crumbs = crumbs(ctx, dir, Some(c));
                shared_header(ctx, b, &mut p);
            } else {
                p.crumbs = crumbs(ctx, dir, Some(c));
                branch_header(ctx, b, page, &mut p);
            }
        }
        TrackId::Agent(a) => agent_header(ctx, a, page, &mut p),
    }
    if page > 0 {
        p.subheading = format!("Page {} of {}", page + 1, lay.pages);
    }
    p
}

/// A message of a page, with the session change before it, and the
/// messages queued and the fork landmarks after it.
fn push_item(pcx: &mut PageCtx<'_>, it: &ItemInputs, messages: &mut Vec<TrackEntry>) {
    if let Some((id, own)) = &it.session_change {
        messages.push(session_marker(id, *own).into());
    }
    messages.push(render_item(pcx, it).into());
    for q in &it.queued {
        messages.push(crate::render::views::message::queued_view(pcx, q.entry).into());
    }
    messages.extend(it.fork_notes.iter().cloned().map(TrackEntry::from));
}

/// Where branch `b` starts on a shared page in `dir`.
fn branch_head(ctx: &ProjectCtx<'_>, dir: &str, b: BranchId) -> BranchHead {
    let g = ctx.graph();
    let br = &g.branches[b];
    let fork = br.fork_point;
    BranchHead {
        id: ctx.branch_anchor(b),
        label: ctx.labels[b].clone(),
        messages: ctx.branch_messages(b),
        last: Time::at(br.last_ts),
        active: g.conversations[br.conversation].active_branch == b,
        own_fork: ctx.own_forks.contains(&br.session),
        number: fork.and_then(|f| ctx.fork_numbers.get(&f).copied()).unwrap_or(0),
        fork: fork.and_then(|f| ctx.fork_link(dir, None, f)).unwrap_or_default(),
    }
}

/// The head of a page several short branches of one fork share: which fork,
/// how many branches, the context before the fork (once for all).
fn shared_header(ctx: &ProjectCtx<'_>, b: BranchId, p: &mut TrackHead) {
    let g = ctx.graph();
    let br = &g.branches[b];
    let Some(fork) = br.fork_point else { return };
    let dir = &ctx.branch_dirs[b];
    let n = ctx.fork_numbers.get(&fork).copied().unwrap_or(0);
    let count = ctx.group_members.get(&b).map_or(1, Vec::len);
    let total = g.fork_at(fork).map_or(0, |f| f.children.len());
    let group = dir.trim_end_matches('/').rsplit('/').next().unwrap_or_default();
    let first = g.conversations[br.conversation].first_prompt.as_deref().unwrap_or(&br.title);
    p.kind = "branch";
    let name = ctx.fork_name(fork);
    p.title = format!("fork {name} · {group} · {}", excerpt(first, TITLE_CHARS));
    p.heading = format!("{count} branch{} of the fork at {name}", if count == 1 { "" } else { "es" });
    p.subheading = format!(
        "This fork has {total} branches: the short ones share pages, by their id ({group}). Each is under its own heading."
    );
    p.forked_from = Some(ForkedFrom {
        href: ctx.fork_link(dir, None, fork).unwrap_or_default(),
        number: n,
        parent: ctx.fork_line_name(fork),
        active: false,
        own_fork: false,
    });
}

/// The head of the conversation page: its title and facts, and on the first
/// page the track it shows, the map and the fork-point index.
fn conversation_header(ctx: &ProjectCtx<'_>, c: ConversationId, track: TrackId, page: u32, p: &mut TrackHead) {
    let g = ctx.graph();
    let conv = &g.conversations[c];
    let dir = ctx.track_dir(track);
    p.crumbs = crumbs(ctx, dir, Some(c));
    p.title = plain_excerpt(&conv.title, TITLE_CHARS);
    // Titled by its first prompt: its words, not a screenful of it; a
    // title as plain text (no Markdown marks).
    p.heading = match conv.title_source {
        TitleSource::FirstPrompt => prompt_words(ctx.project.source.client, &conv.title, UNTITLED_CHARS),
        TitleSource::None => untitled(ctx, conv).0,
        _ => plain_text(&conv.title),
    };
    p.kept = ctx.project.kept.archive_only.contains(&conv.root).then(|| ctx.project.source.client.product());
    // The facts of a conversation, a branch or an agent are on its first
    // page: later pages, which stay as they are while it grows, link there.
    if page > 0 {
        return;
    }
    (p.facts, p.more_facts) = conv_facts(ctx, c);
    p.more_summary = more_summary(&p.more_facts);
    // A map of a few prompts in a row says nothing the page does not.
    let m = map(ctx, conv, dir, track);
    if !conv.fork_points.is_empty() || m.rows.len() > MAP_MIN_ROWS {
        p.map = Some(m);
    }
    if conv.fork_points.is_empty() {
        return;
    }
    p.outline = outline(ctx, conv, dir, track);
    let (forks, branches) = (conv.fork_points.len(), conv.branches.len());
    p.outline_summary = format!("{} · {}", count(forks, "fork", "forks"), count(branches, "branch", "branches"));
    let b = conv.active_branch;
    let lay = ctx.track_layout(track);
    p.active = Some(ActiveTrack {
        label: ctx.labels[b].clone(),
        page: ctx.branch_href(dir, b),
        last: lay.items.iter().rev().find(|i| i.counted).map_or(0, |i| i.number),
    });
}

/// A conversation with neither a title nor a prompt (a session of replies,
/// commands or side entries only): called by the first words it holds,
/// and said what it is (`no prompt · session 5e5510a1`).
pub(crate) fn untitled(ctx: &ProjectCtx<'_>, c: &crate::graph::Conversation) -> (String, String) {
    let g = ctx.graph();
    let nodes = &g.branches[c.branches[0]].nodes;
    let words = nodes
        .iter()
        .take(crate::limits::LABEL_LOOKAHEAD)
        .map(|n| prompt_words(ctx.project.source.client, &g.entry(ctx.entries(), *n).excerpt, UNTITLED_CHARS))
        .find(|w| !w.trim().is_empty());
    let session: String = g.sessions[g.node(c.root).session].session_id.chars().take(8).collect();
    let what =
        format!("no prompt · {} message{} · session {session}", c.messages, if c.messages == 1 { "" } else { "s" });
    match words {
        Some(w) => (w, what),
        None => (format!("(no prompt, session {session})"), what),
    }
}

fn session_marker(id: &str, own_fork: bool) -> MessageView {
    MessageView {
        class: "landmark session".into(),
        role: if own_fork { "Continued in a cctree fork" } else { "Continued in session" }.into(),
        body: vec![Block::Session(SessionRef { id: id.to_string(), own_fork })],
        ..MessageView::default()
    }
}

/// A session, with the cctree-fork badge when it is one.
fn session_ref(ctx: &ProjectCtx<'_>, s: SessionId) -> SessionRef {
    SessionRef { id: ctx.graph().sessions[s].session_id.to_string(), own_fork: ctx.own_forks.contains(&s) }
}

fn pager(pages: u32, cur: u32) -> Pager {
    Pager::window(pages, cur, sibling_page)
}

fn fact(label: &str, value: FactValue) -> Fact {
    Fact { label: label.into(), value }
}

/// `1 fork`, `3 forks`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What the folded facts of a conversation hold, as their summary says it
/// (`2 sessions · cctree forks · tokens`).
fn more_summary(facts: &[Fact]) -> String {
    let words: Vec<String> = facts
        .iter()
        .map(|f| match &f.value {
            FactValue::Sessions(list) => count(list.len(), "session", "sessions"),
            FactValue::CctreeForks(list) => count(list.len(), "cctree fork", "cctree forks"),
            _ => f.label.clone(),
        })
        .collect();
    words.join(" · ")
}

/// The facts of a conversation's page: those read at a glance (when, how
/// long, how many branches, what it cost), and those folded (its sessions,
/// with their ids in full, the sessions `cctree fork` wrote, its tokens).
fn conv_facts(ctx: &ProjectCtx<'_>, ci: ConversationId) -> (Vec<Fact>, Vec<Fact>) {
    let g = ctx.graph();
    let c = &g.conversations[ci];
    let mut v = vec![
        fact("started", FactValue::Time(Time::at(c.first_ts))),
        fact("last active", FactValue::Time(Time::at(c.last_ts))),
        fact("messages", FactValue::Text(c.messages.to_string())),
        fact("branches", FactValue::Text(c.branches.len().to_string())),
    ];
    let mut more = Vec::new();
    let sessions: Vec<SessionRef> = c.sessions.iter().map(|s| session_ref(ctx, *s)).collect();
    more.push(fact(if sessions.len() == 1 { "session" } else { "sessions" }, FactValue::Sessions(sessions)));
    let forks: Vec<CctreeFork> = c
        .junctions
        .iter()
        .filter(|j| j.kind == crate::graph::JunctionKind::CctreeFork)
        .map(|j| CctreeFork {
            session: g.sessions[j.session].session_id.to_string(),
            at: ctx.loc[j.at]
                .map(|l| ctx.track_layout(l.track).items[l.item].number)
                .map_or_else(|| "a message".to_string(), |n| format!("#{n}")),
            href: ctx.message_link(&ctx.conv_dirs[ci], Some(ctx.conversation_track(c)), j.at, false),
        })
        .collect();
    if !forks.is_empty() {
        more.push(fact(if forks.len() == 1 { "cctree fork" } else { "cctree forks" }, FactValue::CctreeForks(forks)));
    }
    let spend = ctx.conversation_spend(c);
    if !spend.is_zero() {
        let cost = cost_text(spend, ctx.spawned_agents(c.branches.iter().copied()));
        v.push(fact("cost", FactValue::Text(cost)));
        more.push(fact("tokens", FactValue::Text(spend.tokens_text())));
    }
    (v, more)
}

/// A total's cost, saying "sub-agents included" when some were spawned
/// (`agents`): a conversation without any has nothing to include.
fn cost_text(s: crate::render::site::spend::Spend, agents: bool) -> String {
    if agents { format!("{} (sub-agents included)", s.cost_text()) } else { s.cost_text() }
}

/// The `tokens` and `cost` facts of a total (none when nothing was spent),
/// worded as every total is: sub-agents included (when there are some).
fn spend_facts(v: &mut Vec<Fact>, s: crate::render::site::spend::Spend, agents: bool) {
    if s.is_zero() {
        return;
    }
    v.push(fact("tokens", FactValue::Text(s.tokens_text())));
    v.push(fact("cost", FactValue::Text(cost_text(s, agents))));
}

fn branch_header(ctx: &ProjectCtx<'_>, b: BranchId, page: u32, p: &mut TrackHead) {
    let g = ctx.graph();
    let br = &g.branches[b];
    let label = &ctx.labels[b];
    p.kind = "branch";
    if br.fork_point.is_none() {
        return main_branch_header(ctx, b, page, p);
    }
    // A branch with nested forks ends in one of their continuations: its
    // summary names that leaf, not the branch (as in the fork-point index).
    let has_nested = g.forks_on(b).next().is_some();
    let first_words = br
        .nodes
        .iter()
        .map(|n| g.entry(ctx.entries(), *n))
        .find(|e| e.user_kind == crate::model::UserKind::Prompt && !e.excerpt.is_empty())
        .map(|e| e.excerpt.to_string());
    let title = match (has_nested, first_words) {
        (true, Some(words)) => words,
        _ => br.title.to_string(),
    };
    p.title = format!("{label} · {}", plain_excerpt(&title, TITLE_CHARS));
    p.heading = format!("Branch {label}: {}", plain_excerpt(&title, UNTITLED_CHARS));
    let Some(fork) = br.fork_point else { return };
    let n = ctx.fork_numbers.get(&fork).copied().unwrap_or(0);
    let link = ctx.fork_link(&ctx.branch_dirs[b], None, fork).unwrap_or_default();
    // The branch the map and the fork-point index nest it under.
    let parent_label = ctx.fork_line_name(fork);
    p.forked_from = Some(ForkedFrom {
        href: link,
        number: n,
        parent: parent_label,
        active: g.conversations[br.conversation].active_branch == b,
        own_fork: ctx.own_forks.contains(&br.session),
    });
    if page == 0 {
        p.facts = branch_facts(ctx, b);
    }
}

/// The messages a page shows before its own, out of place (`(track,
/// item)`): the context before the fork on the first page of a branch, or
/// on a page several short branches of a fork share.
fn context_items(ctx: &ProjectCtx<'_>, track: TrackId, page: u32) -> Vec<(TrackId, ItemId)> {
    let g = ctx.graph();
    let TrackId::Branch(b) = track else { return Vec::new() };
    let br = &g.branches[b];
    let c = &g.conversations[br.conversation];
    match br.fork_point {
        Some(fork) if ctx.group_members.contains_key(&b) => fork_context_items(ctx, fork, FORK_CONTEXT),
        Some(fork) if page == 0 && !ctx.group_lead.contains_key(&b) && ctx.conversation_track(c) != track => {
            fork_context_items(ctx, fork, FORK_CONTEXT)
        }
        _ => Vec::new(),
    }
}

fn branch_facts(ctx: &ProjectCtx<'_>, b: BranchId) -> Vec<Fact> {
    let br = &ctx.graph().branches[b];
    let mut v = vec![
        fact("messages", FactValue::Text(ctx.branch_messages(b).to_string())),
        fact("last active", FactValue::Time(Time::at(br.last_ts))),
        fact("session", FactValue::Sessions(vec![session_ref(ctx, br.session)])),
    ];
    // A forked branch's own messages are those after its fork point.
    spend_facts(&mut v, ctx.branch_spend(b), ctx.spawned_agents([b]));
    v
}

/// The head of the page of a main branch (in a conversation with forks):
/// the track the conversation took first, at every fork its `.1` branch.
fn main_branch_header(ctx: &ProjectCtx<'_>, b: BranchId, page: u32, p: &mut TrackHead) {
    let g = ctx.graph();
    let br = &g.branches[b];
    let c = &g.conversations[br.conversation];
    let first = c.first_prompt.as_deref().unwrap_or(&br.title);
    p.title = format!("main · {}", excerpt(first, TITLE_CHARS));
    p.heading = format!("Main branch: {}", prompt_words(ctx.project.source.client, first, CRUMB_CHARS));
    p.subheading = "The line the conversation took first: at every fork, its first branch (.1).".into();
    p.main_branch = Some(MainBranch {
        conversation: ctx.href(&ctx.branch_dirs[b], &ctx.conv_dirs[br.conversation], &page_file(0), None),
        active: c.active_branch == b,
    });
    if page == 0 {
        p.facts = branch_facts(ctx, b);
    }
}

/// The messages just before the fork point (back to the last prompt, at
/// most `n`, plus that prompt), in page order: they live on the parent
/// branch's pages, and are shown without anchors.
fn fork_context_items(ctx: &ProjectCtx<'_>, fork: NodeId, n: usize) -> Vec<(TrackId, ItemId)> {
    let g = ctx.graph();
    let e = ctx.entries();
    let mut seen: FxHashSet<(TrackId, ItemId)> = FxHashSet::default();
    let mut picked = Vec::new();
    let mut prompt = None;
    let mut scanned = 0;
    // Up the tree parents from the fork, as far as the context reaches (a
    // walk of the whole ancestry per branch page was quadratic in nested
    // forks); a cycle cannot hold it longer than the graph has nodes.
    let ups = std::iter::successors(Some(fork), |&n| g.nodes[n].parent).take(g.nodes.len());
    for node in ups {
        let Some(l) = ctx.loc[node] else { continue };
        let item = &ctx.track_layout(l.track).items[l.item];
        if !item.counted || !seen.insert((l.track, l.item)) {
            continue;
        }
        if g.entry(e, item.nodes[0]).user_kind == crate::model::UserKind::Prompt {
            prompt = Some((l.track, l.item));
            break;
        }
        scanned += 1;
        if picked.len() < n {
            picked.push((l.track, l.item));
        } else if scanned > 4 * n {
            break;
        }
    }
    picked.extend(prompt);
    picked.reverse();
    picked
}

fn agent_header(ctx: &ProjectCtx<'_>, a: AgentId, page: u32, p: &mut TrackHead) {
    let g = ctx.graph();
    let agent = &g.agents[a];
    let dir = &ctx.agent_dirs[a];
    let desc = agent.meta.as_ref().and_then(|m| m.description.as_deref()).unwrap_or("");
    let ty = agent.meta.as_ref().and_then(|m| m.agent_type.as_deref()).unwrap_or("");
    p.kind = "agent";
    p.heading = if desc.is_empty() { format!("Agent {}", agent.agent_id) } else { desc.to_string() };
    p.title = p.heading.clone();
    p.subheading = match (ty, agent.kind) {
        (t, AgentKind::Subagent) if !t.is_empty() => format!("{t} sub-agent {}", agent.agent_id),
        (_, AgentKind::Subagent) => format!("Sub-agent {}", agent.agent_id),
        (_, AgentKind::SideAgent) => format!("Side agent {}", agent.agent_id),
        (_, AgentKind::Inline) => "Side exchange".to_string(),
    };
    let spawn = agent.spawn.as_ref().and_then(|s| s.use_node);
    let conv = spawn.and_then(|n| g.node(n).conversation);
    p.crumbs = crumbs(ctx, dir, conv);
    p.spawned_by = spawn.and_then(|n| ctx.node_href(dir, n));
    // No call spawned it: the message it hangs from, on the main thread.
    let attached = agent.attached_to.filter(|_| spawn.is_none() && agent.spawn.is_none());
    p.ran_in = attached.filter(|n| !g.node(*n).sidechain).and_then(|n| ctx.node_href(dir, n));
    if page == 0 {
        p.facts = vec![
            fact("messages", FactValue::Text(agent.messages.to_string())),
            fact("started", FactValue::Time(Time::at(agent.first_ts))),
        ];
        // This transcript alone: its cost is in the total of the branch that spawned it.
        let s = ctx.spend_of(agent.nodes.iter().copied());
        if !s.is_zero() {
            p.facts.push(fact("tokens", FactValue::Text(s.tokens_text())));
            p.facts.push(fact("cost", FactValue::Text(format!("{} (this transcript)", s.cost_text()))));
        }
    }
}

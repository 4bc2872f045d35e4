//! One askama template struct per page kind, plus the plain row structs they
//! list. Every field is text (escaped when written), a link ([`Href`]), or a
//! view written by its own template ([`Time`], [`MessageView`], blocks).

use askama::Template;

pub(crate) use crate::render::views::time::Time;

use crate::render::html::{filters, view_enum};
use crate::render::pages::map::MapView;
use crate::render::pages::outline::OutlineRow;
use crate::render::site::urls::{Href, Root};
use crate::render::views::blocks::ForkNote;
use crate::render::views::blocks::{Block, SessionRef};
use crate::render::views::message::MessageView;

/// A breadcrumb link.
#[derive(Debug, Clone, Hash)]
pub(crate) struct Crumb {
    pub(crate) label: String,
    pub(crate) href: Href,
}

/// The projects of one agent on the archive index.
#[derive(Debug, Clone)]
pub(crate) struct AgentGroup {
    pub agent: String,
    pub projects: Vec<ProjectRow>,
}

/// A project on the archive index.
#[derive(Debug, Clone)]
pub(crate) struct ProjectRow {
    pub name: String,
    pub href: Href,
    pub conversations: usize,
    /// Sessions recovered from the prompt history.
    pub recovered: usize,
    pub forks: usize,
    pub messages: u64,
    pub last: Time,
    /// Token totals (empty when none were recorded).
    pub(crate) tokens: String,
    /// What they cost (empty when nothing was recorded).
    pub(crate) cost: String,
    /// Its agent transcripts and fragments, said when it holds no
    /// conversation (`2 sub-agent transcripts, no prompt of their own`).
    pub(crate) holds: String,
    /// Whether any of its conversations spawned a sub-agent (its totals
    /// then say they include them).
    pub(crate) sub_agents: bool,
}

/// A conversation on a project page.
#[derive(Debug, Clone)]
pub(crate) struct ConvRow {
    pub(crate) title: String,
    pub(crate) href: Href,
    pub(crate) first_prompt: String,
    pub(crate) started: Time,
    pub(crate) last: Time,
    pub(crate) messages: u32,
    pub(crate) branches: usize,
    pub(crate) forks: usize,
    pub(crate) tokens: String,
    /// What its calls cost, sub-agents included (empty when none).
    pub(crate) cost: String,
    /// Some sub-agent was spawned in it (the cost says it includes them).
    pub(crate) sub_agents: bool,
    /// Sessions written by `cctree fork` from this conversation.
    pub cctree_forks: usize,
    /// Only cctree's archive still holds it: the client (this product)
    /// deleted its transcripts.
    pub kept: Option<&'static str>,
}

/// A session recovered from the prompt history, on a project page.
#[derive(Debug, Clone)]
pub(crate) struct RecoveredRow {
    pub title: String,
    pub href: Href,
    pub first_prompt: String,
    /// "transcript deleted by Claude Code's cleanup — N prompts recovered".
    pub label: String,
    /// Whose log kept the prompts (`Claude Code`), and what it is (`prompt
    /// history`).
    pub product: &'static str,
    pub log_what: &'static str,
    pub started: Time,
    pub last: Time,
}

/// A row of a project page's list of conversations, in time order.
#[derive(Debug, Clone)]
pub(crate) enum Listed {
    Conv(ConvRow),
    Recovered(RecoveredRow),
}

/// An agent transcript on a project page.
#[derive(Debug, Clone)]
pub(crate) struct AgentRow {
    pub(crate) title: String,
    pub(crate) href: Href,
    pub(crate) kind: String,
    pub(crate) messages: u32,
    pub(crate) started: Time,
    /// Link to the spawning call, if known.
    pub(crate) spawn: Option<Href>,
    /// No call spawned it (a background agent): the message of the session
    /// it ran in that it hangs from.
    pub(crate) ran: Option<Href>,
}

/// A numbered page link.
#[derive(Debug, Clone, Hash)]
pub(crate) struct PageLink {
    pub(crate) n: u32,
    pub(crate) href: Href,
    pub(crate) current: bool,
    /// Pages are skipped before this one (shown as `…`).
    pub(crate) gap: bool,
}

/// Prev/next and page list of a paginated track or index.
#[derive(Debug, Clone, Default, Hash)]
pub(crate) struct Pager {
    pub(crate) pages: Vec<PageLink>,
    pub(crate) prev: Option<Href>,
    pub(crate) next: Option<Href>,
}

impl Pager {
    /// How many pages on each side of the current one are linked.
    const AROUND: u32 = 2;

    /// The pager of page `cur` (0-based) of `pages`: the first and last
    /// pages, and those within [`Pager::AROUND`] of the current one, with a
    /// gap where pages are skipped, so that a pager's size does not grow with
    /// the number of pages. `href` links page `n`.
    pub(crate) fn window(pages: u32, cur: u32, href: impl Fn(u32) -> Href) -> Pager {
        let mut links = Vec::new();
        let mut prev_shown: Option<u32> = None;
        let around = cur.saturating_sub(Self::AROUND)..=cur.saturating_add(Self::AROUND).min(pages.saturating_sub(1));
        for p in [0].into_iter().chain(around).chain([pages.saturating_sub(1)]).filter(|p| *p < pages) {
            if prev_shown.is_some_and(|q| q >= p) {
                continue;
            }
            links.push(PageLink {
                n: p + 1,
                href: href(p),
                current: p == cur,
                gap: prev_shown.is_some_and(|q| q + 1 < p),
            });
            prev_shown = Some(p);
        }
        Pager { pages: links, prev: (cur > 0).then(|| href(cur - 1)), next: (cur + 1 < pages).then(|| href(cur + 1)) }
    }
}

/// Which rows of a list a page shows (1-based, inclusive) of how many.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shown {
    pub(crate) first: usize,
    pub(crate) last: usize,
    pub(crate) total: usize,
}

/// A label and value in a page's fact list.
#[derive(Debug, Hash)]
pub(crate) struct Fact {
    pub(crate) label: String,
    pub(crate) value: FactValue,
}

/// What a fact says.
#[derive(Debug, Hash)]
pub(crate) enum FactValue {
    Text(String),
    Time(Time),
    /// Sessions, in order (` → `).
    Sessions(Vec<SessionRef>),
    /// Sessions written by `cctree fork`, each with the message it forked at.
    CctreeForks(Vec<CctreeFork>),
}

/// A session written by `cctree fork` from a conversation, and where.
#[derive(Debug, Hash)]
pub(crate) struct CctreeFork {
    pub(crate) session: String,
    /// `#12` (or `a message`, when it is not shown).
    pub(crate) at: String,
    pub(crate) href: Option<Href>,
}

/// Where a branch forked from (the head of a branch page).
#[derive(Debug, Hash)]
pub(crate) struct ForkedFrom {
    pub(crate) href: Href,
    /// The message number of the fork point.
    pub(crate) number: u32,
    /// `the main branch`, `branch 12.2`.
    pub(crate) parent: String,
    pub(crate) active: bool,
    pub(crate) own_fork: bool,
}

/// What the conversation page shows (a conversation with forks): the
/// active track (the active line readers see), from the first message to the active leaf.
#[derive(Debug, Hash)]
pub(crate) struct ActiveTrack {
    /// The label of the branch it ends on (`15.2`, `main`).
    pub(crate) label: String,
    /// That branch's own page.
    pub(crate) page: Href,
    /// The number of its last message.
    pub(crate) last: u32,
}

/// The page of a main branch (in a conversation with forks).
#[derive(Debug, Hash)]
pub(crate) struct MainBranch {
    /// The conversation page (the active track).
    pub(crate) conversation: Href,
    /// It is the active branch.
    pub(crate) active: bool,
}

#[derive(Template)]
#[template(path = "index.html")]
pub(crate) struct IndexPage {
    pub root: Root,
    pub title: String,
    pub crumbs: Vec<Crumb>,
    /// The page's heading: the agent's archive, or one of several agents.
    pub heading: String,
    /// The projects, by agent (a group's name is shown when there are several).
    pub groups: Vec<AgentGroup>,
    pub totals: String,
    /// The archive's token totals (empty when none were recorded).
    pub(crate) tokens: String,
    /// What they cost.
    pub(crate) cost: String,
    /// Whether any project holds a sub-agent transcript.
    pub(crate) sub_agents: bool,
}

#[derive(Template)]
#[template(path = "project.html")]
pub(crate) struct ProjectPage {
    pub root: Root,
    pub title: String,
    pub crumbs: Vec<Crumb>,
    /// This page's conversations and recovered sessions (newest first), and
    /// which of all the rows they are.
    pub convs: Vec<Listed>,
    pub conv_count: Shown,
    /// How many of the rows are conversations, and how many recovered sessions.
    pub conversations: usize,
    pub recovered: usize,
    /// The project's token totals, sub-agents included (empty when none).
    pub(crate) tokens: String,
    /// What they cost.
    pub(crate) cost: String,
    pub(crate) fragments: Vec<ConvRow>,
    /// This page's sub-agent transcripts, and which of all they are.
    pub(crate) agents: Vec<AgentRow>,
    pub(crate) agent_count: Shown,
    pub(crate) others: Vec<AgentRow>,
    /// Metadata entries of unknown types, as collapsed JSON.
    pub(crate) unknown: Vec<Block>,
    /// Unknown entries not shown past the first ones.
    pub(crate) unknown_more: usize,
    /// Messages queued in sessions that hold no conversation, each its blocks.
    pub(crate) queued: Vec<Vec<Block>>,
    /// The index's pages.
    pub(crate) pager: Pager,
}

/// A page of a session recovered from the prompt history.
#[derive(Template)]
#[template(path = "recovered.html")]
pub(crate) struct RecoveredPage {
    pub root: Root,
    pub title: String,
    pub crumbs: Vec<Crumb>,
    pub heading: String,
    pub subheading: String,
    /// "transcript deleted by Claude Code's cleanup — N prompts recovered".
    pub label: String,
    /// The log it comes from: whose (`Claude Code`), what it is (`prompt
    /// history`) and its file's name.
    pub product: &'static str,
    pub log_what: &'static str,
    pub log_file: &'static str,
    /// Who replied in the lost transcript (`Claude`).
    pub replies: &'static str,
    /// Its session id (empty: lines of a client that wrote none).
    pub session: String,
    pub started: Time,
    pub last: Time,
    pub prompts: usize,
    pub messages: Vec<MessageView>,
    pub pager: Pager,
}

/// A page of a track: the main branch (with the fork index on page 1), another
/// branch, or an agent transcript.
#[derive(Template)]
#[template(path = "track.html")]
pub(crate) struct TrackPage {
    /// Everything above and below its messages (its fields are read
    /// through it by the template).
    pub(crate) head: TrackHead,
    /// The messages before the fork (the first page of a branch), shown
    /// out of place: without anchors.
    pub(crate) context: Vec<MessageView>,
    pub(crate) messages: Vec<TrackEntry>,
}

impl std::ops::Deref for TrackPage {
    type Target = TrackHead;
    fn deref(&self) -> &TrackHead {
        &self.head
    }
}

impl std::ops::DerefMut for TrackPage {
    fn deref_mut(&mut self) -> &mut TrackHead {
        &mut self.head
    }
}

/// A page of a track without its messages: title, crumbs, facts, where it
/// forked from or who spawned it, the map and fork-point index, the pager.
#[derive(Debug, Hash)]
pub(crate) struct TrackHead {
    pub(crate) root: Root,
    pub(crate) title: String,
    pub(crate) crumbs: Vec<Crumb>,
    /// `conversation`, `branch` or `agent`.
    pub(crate) kind: &'static str,
    pub(crate) heading: String,
    pub(crate) subheading: String,
    pub(crate) facts: Vec<Fact>,
    /// Facts folded under `more_summary` (a conversation's sessions, its
    /// `cctree fork`s, its tokens): read on demand, so that the first
    /// message is on the first screen.
    pub(crate) more_facts: Vec<Fact>,
    pub(crate) more_summary: String,
    /// A branch page: where it forked from.
    pub(crate) forked_from: Option<ForkedFrom>,
    /// An agent page: the tool call that spawned it.
    pub(crate) spawned_by: Option<Href>,
    /// An agent page of an agent no call spawned (a background agent): the
    /// message of the session it ran in that it hangs from.
    pub(crate) ran_in: Option<Href>,
    pub(crate) outline: Vec<OutlineRow>,
    /// What the folded fork-point index holds (`2 forks · 3 branches`).
    pub(crate) outline_summary: String,
    /// The conversation's map (its first page).
    pub(crate) map: Option<MapView>,
    /// The conversation page of a conversation with forks (first page).
    pub(crate) active: Option<ActiveTrack>,
    /// A main branch's page (in a conversation with forks).
    pub main_branch: Option<MainBranch>,
    /// Only cctree's archive still holds the conversation: the client (this
    /// product) deleted its transcripts.
    pub kept: Option<&'static str>,
    pub pager: Pager,
}

impl TrackEntry {
    /// The message, if it is one.
    pub(crate) fn message(&self) -> Option<&MessageView> {
        match self {
            TrackEntry::Message(m) => Some(m),
            TrackEntry::Fork(_) | TrackEntry::Branch(_) => None,
        }
    }
}

/// Where a branch starts on a page several short branches share
/// (`ProjectCtx::group_short_branches`): its label, anchor and facts.
#[derive(Debug, Clone, Hash, Template)]
#[template(path = "blocks/branch_head.html")]
pub(crate) struct BranchHead {
    /// `b-<first uuid>`: where links to the branch land.
    pub(crate) id: String,
    pub(crate) label: String,
    pub(crate) messages: u32,
    pub(crate) last: Time,
    pub(crate) active: bool,
    pub(crate) own_fork: bool,
    /// The fork's number and landmark.
    pub(crate) number: u32,
    pub(crate) fork: Href,
}

view_enum! {
    /// What a track page lists: its messages, and the landmarks between them.
    #[derive(Debug)]
    pub(crate) enum TrackEntry {
        Message(MessageView),
        /// Where the track forks, after the message of the fork point.
        Fork(ForkNote),
        /// Where a branch starts on a shared page.
        Branch(BranchHead),
    }
}

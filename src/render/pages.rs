//! One askama template struct per page kind, plus the plain row structs they
//! list. Fields holding generated HTML are named `*_html` or documented as
//! such; templates mark only those `|safe`. Everything else is escaped.

use askama::Template;

use super::message::MessageView;
use super::outline::OutlineRow;

/// A breadcrumb link.
#[derive(Debug, Clone)]
pub struct Crumb {
    pub label: String,
    pub href: String,
}

/// A project on the archive index.
#[derive(Debug, Clone)]
pub struct ProjectRow {
    pub name: String,
    pub href: String,
    pub conversations: usize,
    pub forks: usize,
    pub messages: u64,
    pub last_ts: i64,
    /// `<time>` (generated HTML).
    pub last_html: String,
}

/// A conversation on a project page.
#[derive(Debug, Clone)]
pub struct ConvRow {
    pub title: String,
    pub href: String,
    pub first_prompt: String,
    pub started_html: String,
    pub last_html: String,
    pub messages: u32,
    pub branches: usize,
    pub forks: usize,
    pub tokens: String,
    pub last_ts: i64,
    /// Sessions written by `cctree fork` from this conversation.
    pub cctree_forks: usize,
}

/// An agent transcript on a project page.
#[derive(Debug, Clone)]
pub struct AgentRow {
    pub title: String,
    pub href: String,
    pub kind: String,
    pub messages: u32,
    pub started_html: String,
    /// Link to the spawning call, if known.
    pub spawn_href: String,
}

/// A numbered page link.
#[derive(Debug, Clone)]
pub struct PageLink {
    pub n: u32,
    pub href: String,
    pub current: bool,
}

/// Prev/next and page list of a paginated line.
#[derive(Debug, Clone, Default)]
pub struct Pager {
    pub pages: Vec<PageLink>,
    pub prev: String,
    pub next: String,
}

/// A label and value in a page's fact list.
#[derive(Debug, Clone)]
pub struct Fact {
    pub label: String,
    /// Generated HTML.
    pub value_html: String,
}

#[derive(Template)]
#[template(path = "index.html")]
pub struct IndexPage {
    pub root: String,
    pub title: String,
    pub crumbs: Vec<Crumb>,
    pub projects: Vec<ProjectRow>,
    pub totals: String,
}

#[derive(Template)]
#[template(path = "project.html")]
pub struct ProjectPage {
    pub root: String,
    pub title: String,
    pub crumbs: Vec<Crumb>,
    pub convs: Vec<ConvRow>,
    pub fragments: Vec<ConvRow>,
    pub agents: Vec<AgentRow>,
    pub others: Vec<AgentRow>,
    /// Generated HTML: metadata entries of unknown types, as JSON.
    pub unknown_html: String,
}

/// A page of a line: the main branch (with the fork index on page 1), another
/// branch, or an agent transcript.
#[derive(Template)]
#[template(path = "line.html")]
pub struct LinePage {
    pub root: String,
    pub title: String,
    pub crumbs: Vec<Crumb>,
    /// `conversation`, `branch` or `agent`.
    pub kind: &'static str,
    pub heading: String,
    pub subheading: String,
    pub facts: Vec<Fact>,
    /// Generated HTML: where a branch forked from, what spawned an agent.
    pub intro_html: String,
    pub outline: Vec<OutlineRow>,
    pub context: Vec<MessageView>,
    pub messages: Vec<MessageView>,
    pub pager: Pager,
}

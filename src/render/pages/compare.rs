//! The compare page of a fork point: its branches side by side from the
//! fork on (stacked on a phone, a switch choosing which one shows), each
//! with what it did — the files it changed (the typed edit, write and patch
//! calls, each file of a patch), the commands it ran —, how long it ran, its tokens and its cost,
//! then its prompts and answers. At `<conversation>/compare/<fork uuid>/`.

use askama::Template;

use crate::graph::{BranchId, NodeId};
use crate::limits::{COMPARE_BRANCHES, COMPARE_MESSAGES, COMPARE_TEXT_CHARS, TITLE_CHARS};
use crate::model::{Block, Body, Content, PatchOp, ToolInput};
use std::collections::BTreeMap;

use crate::graph::AgentId;
use crate::render::html::diff::diff_html;
use crate::render::html::highlight::Budget;
use crate::render::html::{Html, filters, markdown};
use crate::render::pages::templates::Crumb;
use crate::render::pages::track::crumbs;
use crate::render::plain::{excerpt, prompt_words};
use crate::render::site::context::{BranchRest, CompareFacts as Facts, ProjectCtx, TrackId};
use crate::render::site::layout::ItemId;
use crate::render::site::spend::Spend;
use crate::render::site::urls::{Href, Root, anchor, page_file, sanitize_segment};
use crate::render::views::inputs::Read;
use rustc_hash::FxHashMap;

/// A fork's compare page.
#[derive(Template)]
#[template(path = "compare.html")]
pub(crate) struct ComparePage {
    pub(crate) root: Root,
    /// What its element ids start with (`cmp-<fork uuid>`): unique in a
    /// one-file export, where several compare pages are sections of one file.
    pub(crate) key: String,
    pub(crate) title: String,
    pub(crate) crumbs: Vec<Crumb>,
    pub(crate) heading: String,
    /// The fork's message number, its landmark, and what it says (its first
    /// words as inline Markdown: code as code, no block).
    pub(crate) number: u32,
    pub(crate) fork: Href,
    pub(crate) fork_text: Html,
    pub(crate) columns: Vec<Column>,
    /// The files more than one branch changed, with the diff of their final versions.
    pub(crate) both: Vec<BothChanged>,
    /// Branches of the fork not shown (past [`COMPARE_BRANCHES`]).
    pub(crate) more: usize,
}

/// One branch of the fork, from the fork on.
pub(crate) struct Column {
    /// `n` of `col-n`: its switch and its column.
    pub(crate) n: usize,
    pub(crate) label: String,
    pub(crate) words: String,
    /// Where the branch is read.
    pub(crate) href: Href,
    pub(crate) active: bool,
    pub(crate) messages: usize,
    /// `3 min 20 s`, empty when unknown.
    pub(crate) duration: String,
    pub(crate) tokens: String,
    pub(crate) cost: String,
    pub(crate) files: Vec<FilePath>,
    pub(crate) commands: Vec<String>,
    pub(crate) turns: Vec<Turn>,
    /// Each file it changed, and its content at the end of the branch when
    /// known: the branch wrote it whole, then edited it (an edit that failed
    /// changed nothing).
    pub(crate) finals: BTreeMap<String, Option<String>>,
    /// Messages not shown (past [`COMPARE_MESSAGES`]).
    pub(crate) more: usize,
}

/// A file a branch changed, as the page names it: inside the session's
/// working directory relative to it (`src/cli.rs`), the path the transcript
/// recorded ([`Self::full`]) in its title; outside it, that path.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct FilePath {
    pub(crate) full: String,
    pub(crate) shown: String,
}

impl FilePath {
    /// `path` as named from the working directory `cwd` (the transcript's, not this machine's).
    fn new(path: &str, cwd: Option<&str>) -> FilePath {
        let shown = cwd.and_then(|cwd| relative(path, cwd)).unwrap_or(path);
        FilePath { full: path.to_string(), shown: shown.to_string() }
    }
}

/// `path` below the directory `cwd` (either separator): its part after it.
fn relative<'p>(path: &'p str, cwd: &str) -> Option<&'p str> {
    let cwd = cwd.trim_end_matches(['/', '\\']);
    let rest = path.strip_prefix(cwd)?;
    let rest = rest.strip_prefix(['/', '\\'])?.trim_start_matches(['/', '\\']);
    (!cwd.is_empty() && !rest.is_empty()).then_some(rest)
}

/// A file several branches changed.
pub(crate) struct BothChanged {
    pub(crate) path: FilePath,
    /// The branches that changed it (labels).
    pub(crate) by: Vec<String>,
    /// The two branches compared (the first two whose final version is
    /// known), and the diff from the first's final version to the second's.
    pub(crate) diff: Option<(String, String, Html)>,
}

/// The `main` block of `templates/compare.html`: a compare page without the
/// site around it, a section of a one-file export.
#[derive(Template)]
#[template(path = "compare.html", block = "main")]
pub(crate) struct CompareSection {
    pub(crate) page: ComparePage,
}

impl std::ops::Deref for CompareSection {
    type Target = ComparePage;
    fn deref(&self) -> &ComparePage {
        &self.page
    }
}

/// A prompt or an answer.
pub(crate) struct Turn {
    /// `user` or `assistant`.
    pub(crate) class: &'static str,
    pub(crate) role: String,
    /// Its words as Markdown (a command or shell input as a code block),
    /// then as HTML ([`Self::html`]), as its branch's page shows them.
    pub(crate) text: String,
    pub(crate) html: Html,
    /// Whether [`Self::html`] shows only its first [`COMPARE_TEXT_CHARS`] characters.
    pub(crate) cut: bool,
    /// Tool calls, one line each.
    pub(crate) calls: Vec<String>,
    /// Its place on the branch's page.
    pub(crate) href: Href,
}

/// The path of the compare page of `fork`.
pub(crate) fn path(ctx: &ProjectCtx<'_>, fork: NodeId) -> String {
    format!("{}{}", ctx.compare_dir(fork), page_file(0))
}

/// Every fork point of the project.
pub(crate) fn forks(ctx: &ProjectCtx<'_>) -> Vec<NodeId> {
    ctx.graph().conversations.iter().flat_map(|c| c.fork_points.iter().map(|f| f.node)).collect()
}

/// Everything the compare page of a fork is made from besides what its
/// entries say (a function of each entry's line, named by its hash): its
/// place, title and links, and for each branch shown its label, links,
/// duration and spend, each entry it reads with where that entry is shown,
/// and the calls whose result failed. Resolved from the site model before
/// anything is written; the page reads these, not the site model, so their
/// hash is a key that changes whenever the page would (`crate::reuse`: a
/// turn appended to one branch renders again only the compare pages that
/// show it).
#[derive(Hash)]
pub(crate) struct CompareInputs<'c> {
    /// The fork point (its id shifts as the project grows: not hashed;
    /// [`Self::fork_read`] names it).
    fork: Unhashed<NodeId>,
    fork_read: Read,
    dir: String,
    /// The project's working directory, what paths are named from when an
    /// entry names none.
    cwd: Option<&'c str>,
    agent_label: &'static str,
    title: String,
    heading: String,
    number: u32,
    crumbs: Vec<Crumb>,
    fork_href: Href,
    more: usize,
    columns: Vec<ColumnInputs<'c>>,
}

/// A value an input keeps for the page but its hash leaves out.
struct Unhashed<T>(T);

impl<T> std::hash::Hash for Unhashed<T> {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

/// One branch of a compare page, before it is written.
#[derive(Hash)]
struct ColumnInputs<'c> {
    label: String,
    words: String,
    href: Href,
    active: bool,
    duration: String,
    tokens: String,
    cost: String,
    /// Its messages from the fork on, as its page numbers them.
    messages: usize,
    /// The entries it reads, each with where it is shown.
    nodes: Reads<'c>,
    /// The calls among them whose result says they failed (sorted).
    failed: Vec<&'c str>,
}

/// The entries a column reads ([`NodeInputs`], made when asked, not kept):
/// from the fork on until it shows [`COMPARE_MESSAGES`] turns, then only
/// the calls (what it lists of files and commands) and the rest of its last
/// turn — not every node after them, as a fork's branch from the fork on is
/// a column of every fork before it (a line of N forks would read N² of
/// them). Positions in the branch's nodes, in order.
struct Reads<'c> {
    ctx: &'c ProjectCtx<'c>,
    branch: &'c [NodeId],
    rest: &'c BranchRest,
    /// Where the column starts.
    from: usize,
    read: Vec<usize>,
}

impl<'c> Reads<'c> {
    fn iter(&self) -> impl Iterator<Item = (usize, NodeInputs<'c>)> + '_ {
        self.read.iter().map(|&i| (i, NodeInputs::of(self.ctx, self.branch[i])))
    }

    /// The working directory the branch's entries last recorded at
    /// position `i`, from the column's start on.
    fn cwd_at(&self, i: usize) -> Option<&'c str> {
        let k = self.rest.cwd_at.partition_point(|&c| c <= i);
        let at = *self.rest.cwd_at[..k].last()?;
        let g = self.ctx.graph();
        (at >= self.from).then(|| g.entry(self.ctx.entries(), self.branch[at]).cwd.as_deref()).flatten()
    }
}

impl std::hash::Hash for Reads<'_> {
    /// The length of the rest of the branch, then the entries read: their
    /// count, then each (what the column shows of the others is in its
    /// counts and totals, hashed beside).
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write_usize(self.branch.len() - self.from);
        h.write_usize(self.read.len());
        self.iter().for_each(|(_, n)| n.hash(h));
    }
}

/// What a node gives a compare column ([`Facts`]), read once for all the
/// compare pages ([`ProjectCtx::compare_facts`]).
fn facts_of(c: &Content<'_>) -> Facts {
    let (text, calls) = text_of(c, None);
    let class = match c {
        Content::Prompt(_) | Content::Command { .. } | Content::Shell(_) => Some("user"),
        Content::Reply(_) => Some("assistant"),
        _ => None,
    };
    Facts { calls: c.tool_calls().next().is_some(), turn: class.filter(|_| !(text.is_empty() && calls.is_empty())) }
}

/// An entry a column reads, and where the site shows it: its track's
/// directory, page and item (what a link to it and the joining of a
/// streamed turn are made from).
struct NodeInputs<'c> {
    node: NodeId,
    read: Read,
    at: Option<(TrackId, &'c str, u32, ItemId)>,
}

impl<'c> NodeInputs<'c> {
    fn of(ctx: &'c ProjectCtx<'_>, node: NodeId) -> NodeInputs<'c> {
        let at = ctx.loc[node].map(|l| {
            let track = l.track;
            (track, ctx.track_dir(track), ctx.track_layout(track).items[l.item].page, l.item)
        });
        NodeInputs { node, read: Read::of(ctx, ctx.graph().nodes[node].entry), at }
    }
}

impl std::hash::Hash for NodeInputs<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.read.hash(h);
        match self.at {
            Some((_, dir, page, item)) => (dir, page, item.index()).hash(h),
            None => 0u8.hash(h),
        }
    }
}

/// The compare page of `fork`.
pub(crate) fn page(ctx: &ProjectCtx<'_>, fork: NodeId) -> Option<ComparePage> {
    Some(render(ctx, inputs(ctx, fork)?))
}

/// The inputs of the compare page of `fork` (`None`: not a fork point of a conversation).
pub(crate) fn inputs<'c>(ctx: &'c ProjectCtx<'c>, fork: NodeId) -> Option<CompareInputs<'c>> {
    let g = ctx.graph();
    let fp = g.fork_at(fork)?;
    let conv = g.node(fork).conversation?;
    let dir = ctx.compare_dir(fork);
    let number = ctx.fork_numbers.get(&fork).copied().unwrap_or(0);
    let name = ctx.fork_name(fork);
    let columns: Vec<ColumnInputs<'c>> = fp
        .children
        .iter()
        .enumerate()
        .take(COMPARE_BRANCHES)
        .filter_map(|(k, &child)| {
            let words = prompt_words(ctx.project.source.client, fp.labels.get(k).map_or("", |l| &**l), 120);
            // The first child goes on along the fork's branch; each later one starts its own.
            let (label, from, href, branch) = if k == 0 {
                let b = fp.branch;
                let href = ctx.message_link(&dir, None, child, true).unwrap_or_default();
                let from = rest_of(ctx, b).at.get(&child).copied().unwrap_or(g.branches[b].nodes.len());
                (ctx.fork_branch_label(fork, 0), from, href, b)
            } else {
                let b = g.node(child).branch?;
                (ctx.labels[b].clone(), 0, ctx.branch_href(&dir, b), b)
            };
            Some(column_inputs(ctx, (label, words, href), branch, from))
        })
        .collect();
    let title = crate::render::plain::plain_excerpt(&g.conversations[conv].title, TITLE_CHARS);
    Some(CompareInputs {
        fork: Unhashed(fork),
        fork_read: Read::of(ctx, g.nodes[fork].entry),
        cwd: ctx.paths.cwd.as_deref(),
        agent_label: ctx.agent_label(),
        title: format!("compare the fork at {name} · {title}"),
        crumbs: crumbs(ctx, &dir, Some(conv)),
        heading: format!("The branches of the fork at {name}, side by side"),
        number,
        fork_href: ctx.fork_link(&dir, None, fork).unwrap_or_default(),
        more: fp.children.len().saturating_sub(columns.len()),
        columns,
        dir,
    })
}

fn column_inputs<'c>(
    ctx: &'c ProjectCtx<'c>,
    (label, words, href): (String, String, Href),
    branch: BranchId,
    from: usize,
) -> ColumnInputs<'c> {
    let g = ctx.graph();
    let e = ctx.entries();
    let nodes = g.branches[branch].nodes.as_slice();
    let rest = rest_of(ctx, branch);
    let calls = &rest.calls[rest.calls.partition_point(|&i| i < from)..];
    let mut failed: Vec<&'c str> = Vec::new();
    for &i in calls {
        let entry = g.entry(e, nodes[i]);
        failed.extend(entry.tool_uses.iter().map(|t| &*t.id).filter(|id| self::failed(ctx, id)));
    }
    failed.sort_unstable();
    failed.dedup();
    let sums = rest.from.get(&from).copied();
    let spend = match sums.and_then(|s| s.spend) {
        Some(spend) => spend,
        None => ctx.spend_of(crate::render::site::spend::with_agents_of(g, &ctx.agent_homes, branch, &nodes[from..])),
    };
    let spawned = rest.spawn_last.is_some_and(|i| i >= from);
    let duration = match sums.map(|s| (s.first, s.last)) {
        Some((Some(a), Some(b))) if b > a => duration_text(b - a),
        _ => String::new(),
    };
    let messages = rest.counted_last.len() - rest.counted_last.partition_point(|&i| i < from);
    ColumnInputs {
        label,
        words,
        href,
        active: nodes.get(from).is_some_and(|&n| ctx.on_active_track(n)),
        duration,
        tokens: spend.tokens_text(),
        cost: included(spend.cost_text(), spawned),
        messages,
        nodes: Reads { ctx, branch: nodes, rest, from, read: reads(ctx, nodes, rest, from, calls) },
        failed,
    }
}

/// The item that shows a node, on its track's page.
fn item_of(ctx: &ProjectCtx<'_>, node: NodeId) -> Option<(TrackId, ItemId)> {
    ctx.loc[node].map(|l| (l.track, l.item))
}

/// What a node gives a compare column, read once.
fn facts<'c>(ctx: &'c ProjectCtx<'_>, node: NodeId) -> &'c Facts {
    let g = ctx.graph();
    ctx.compare_facts[node].get_or_init(|| facts_of(&ctx.project.node(g.entry(ctx.entries(), node)).0.content))
}

/// The positions a column from `from` reads ([`Reads`]): each node until
/// its turns fill the column (joined as [`column`] joins them: a streamed
/// message's lines are one turn), then the rest of its last turn and the
/// calls after it.
fn reads(ctx: &ProjectCtx<'_>, nodes: &[NodeId], rest: &BranchRest, from: usize, calls: &[usize]) -> Vec<usize> {
    let mut read = Vec::new();
    let (mut seen, mut turns, mut last) = (rustc_hash::FxHashSet::default(), 0usize, None);
    let mut i = from;
    let mut last_turn = None;
    while i < nodes.len() && turns < COMPARE_MESSAGES {
        read.push(i);
        if let Some(class) = facts(ctx, nodes[i]).turn {
            let item = item_of(ctx, nodes[i]);
            let same = item.is_some() && !seen.insert(item);
            if !(same && last == Some(class)) {
                turns += 1;
                last = Some(class);
                last_turn = Some(i);
            }
        }
        i += 1;
    }
    if i >= nodes.len() {
        return read;
    }
    // The column is full: the rest of the last turn's message, and the calls.
    let mut same = Vec::new();
    if let Some(t) = last_turn.filter(|&t| item_of(ctx, nodes[t]).is_some()) {
        let mut j = rest.next_same[t];
        while j != usize::MAX {
            if j >= i {
                same.push(j);
            }
            j = rest.next_same[j];
        }
    }
    let calls = &calls[calls.partition_point(|&c| c < i)..];
    let (mut a, mut b) = (same.iter().peekable(), calls.iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(&&x), Some(&&y)) => {
                if x <= y {
                    a.next();
                }
                if y <= x {
                    b.next();
                }
                x.min(y)
            }
            (Some(&&x), None) => {
                a.next();
                x
            }
            (None, Some(&&y)) => {
                b.next();
                y
            }
            (None, None) => break,
        };
        read.push(next);
    }
    read
}

/// What the compare columns of `branch` read of it ([`BranchRest`]), made
/// once: one pass from its end.
fn rest_of<'c>(ctx: &'c ProjectCtx<'_>, branch: BranchId) -> &'c BranchRest {
    ctx.compare_rests[branch].get_or_init(|| branch_rest(ctx, branch))
}

fn branch_rest(ctx: &ProjectCtx<'_>, branch: BranchId) -> BranchRest {
    use crate::render::site::context::RestSums;
    let g = ctx.graph();
    let e = ctx.entries();
    let nodes = g.branches[branch].nodes.as_slice();
    let n = nodes.len();
    // Where a column may start: the branch's start and end, and where each
    // fork along it goes on.
    let mut starts: rustc_hash::FxHashSet<NodeId> = rustc_hash::FxHashSet::default();
    // The forks on this branch only (a scan of the conversation's fork
    // points per branch made 16,000 nested forks cost 16,000²).
    for fp in g.forks_on(branch) {
        if let Some(&child) = fp.children.first() {
            starts.insert(child);
        }
    }
    let homes = ctx.agent_homes.get(&branch).map(Vec::as_slice).unwrap_or_default();
    let mut homed: FxHashMap<NodeId, Vec<(usize, AgentId)>> = FxHashMap::default();
    for (h, &(a, node)) in homes.iter().enumerate() {
        homed.entry(node).or_default().push((h, a));
    }
    let (mut calls, mut cwd_at) = (Vec::new(), Vec::new());
    for (i, &node) in nodes.iter().enumerate() {
        let entry = g.entry(e, node);
        if !entry.tool_uses.is_empty() || facts(ctx, node).calls {
            calls.push(i);
        }
        if entry.cwd.is_some() {
            cwd_at.push(i);
        }
    }
    let mut next_same = vec![usize::MAX; n];
    let mut counted_last = Vec::new();
    let mut last_of: FxHashMap<(TrackId, ItemId), usize> = FxHashMap::default();
    let mut at = FxHashMap::default();
    let mut from = FxHashMap::default();
    let mut spawn_last = None;
    let mut sums = Sums::new(ctx);
    let (mut first, mut last) = (None::<i64>, None::<i64>);
    let record = |sums: &Sums<'_>, first, last| RestSums { spend: sums.spend(), first, last };
    from.insert(n, record(&sums, None, None));
    for i in (0..n).rev() {
        let node = nodes[i];
        if let Some(key) = item_of(ctx, node) {
            match last_of.insert(key, i) {
                Some(next) => next_same[i] = next,
                None => {
                    if ctx.track_layout(key.0).items.get(key.1).is_some_and(|it| it.counted) {
                        counted_last.push(i);
                    }
                }
            }
        }
        // In the order a tally from here reads them: the node, then the
        // agents spawned from the rest, in their order.
        if let Some(agents) = homed.get(&node) {
            spawn_last.get_or_insert(i);
            for &(h, a) in agents {
                for (k, &an) in g.agents[a].nodes.iter().enumerate() {
                    sums.add(g.entry(e, an), (1, h, k));
                }
            }
        }
        sums.add(g.entry(e, node), (0, i, 0));
        let ts = g.node(node).ts;
        if ts > 0 {
            first = Some(first.map_or(ts, |f| f.min(ts)));
            last = Some(last.map_or(ts, |l| l.max(ts)));
        }
        if i == 0 || starts.contains(&node) {
            from.insert(i, record(&sums, first, last));
            at.insert(node, i);
        }
    }
    counted_last.reverse();
    BranchRest { calls, next_same, counted_last, cwd_at, spawn_last, from, at }
}

/// What the calls of some entries spent, added up as they come and taken
/// back when a line of the same message with more output replaces its
/// line (the tally counts each message once, at its line with the most
/// output, the first such line in its order): exact, as long as no sum
/// outgrows its type.
struct Sums<'a> {
    prices: &'a crate::cost::Prices,
    /// Each message's line counted: its output, its place in the tally's
    /// order, and what it adds.
    best: FxHashMap<&'a str, (u64, Rank, LineSpend)>,
    tokens: [u128; 4],
    known: Option<crate::cost::Money>,
    unknown: u64,
}

/// A line's place in a tally's order: a node of the branch by position
/// `(0, i, 0)`, then each spawned agent's `k`-th node `(1, agent, k)`.
type Rank = (u8, usize, usize);

#[derive(Clone, Copy)]
struct LineSpend {
    tokens: crate::model::Tokens,
    cost: crate::cost::Cost,
}

impl<'a> Sums<'a> {
    fn new(ctx: &'a ProjectCtx<'_>) -> Sums<'a> {
        Sums {
            prices: &ctx.prices,
            best: FxHashMap::default(),
            tokens: [0; 4],
            known: Some(crate::cost::Money::default()),
            unknown: 0,
        }
    }

    fn add(&mut self, e: &'a crate::model::Entry, rank: Rank) {
        let (crate::model::Kind::Assistant, Some(u)) = (&e.kind, e.usage) else { return };
        let line = || LineSpend {
            tokens: crate::model::Tokens::of(u),
            cost: crate::render::site::spend::call_cost(self.prices, u, e),
        };
        match e.message_id.as_deref() {
            Some(m) => match self.best.get(m) {
                None => {
                    let l = line();
                    self.plus(l);
                    self.best.insert(m, (u.output, rank, l));
                }
                Some(&(output, r, old)) if u.output > output || (u.output == output && rank < r) => {
                    let l = line();
                    self.minus(old);
                    self.plus(l);
                    self.best.insert(m, (u.output, rank, l));
                }
                Some(_) => {}
            },
            None => {
                let l = line();
                self.plus(l);
            }
        }
    }

    fn fields(t: crate::model::Tokens) -> [u64; 4] {
        [t.input, t.output, t.cache_read, t.cache_write]
    }

    fn plus(&mut self, l: LineSpend) {
        for (s, v) in self.tokens.iter_mut().zip(Self::fields(l.tokens)) {
            *s += u128::from(v);
        }
        match l.cost {
            crate::cost::Cost::Known(m) => self.known = self.known.and_then(|k| k.checked_add(m)),
            crate::cost::Cost::Unknown(_) => self.unknown += 1,
        }
    }

    fn minus(&mut self, l: LineSpend) {
        for (s, v) in self.tokens.iter_mut().zip(Self::fields(l.tokens)) {
            *s -= u128::from(v);
        }
        match l.cost {
            crate::cost::Cost::Known(m) => self.known = self.known.and_then(|k| k.checked_sub(m)),
            crate::cost::Cost::Unknown(_) => self.unknown -= 1,
        }
    }

    /// The sums as a tally gives them (its additions saturate).
    fn spend(&self) -> Option<Spend> {
        let t = |i: usize| u64::try_from(self.tokens[i]).unwrap_or(u64::MAX);
        Some(Spend {
            tokens: crate::model::Tokens { input: t(0), output: t(1), cache_read: t(2), cache_write: t(3) },
            cost: crate::cost::Total { known: self.known?, unknown: u32::try_from(self.unknown).unwrap_or(u32::MAX) },
        })
    }
}

/// The compare page made from its inputs and what their entries say.
pub(crate) fn render(ctx: &ProjectCtx<'_>, inputs: CompareInputs<'_>) -> ComparePage {
    let g = ctx.graph();
    let CompareInputs {
        fork: Unhashed(fork),
        dir,
        title,
        crumbs,
        heading,
        number,
        fork_href,
        more,
        columns,
        cwd,
        agent_label,
        ..
    } = inputs;
    let columns: Vec<Column> =
        columns.into_iter().enumerate().map(|(k, c)| column(ctx, &dir, k + 1, c, (cwd, agent_label))).collect();
    let fork_text = fork_words(ctx, fork);
    let both = both_changed(&columns);
    ComparePage {
        root: Root::of(&dir),
        key: format!("cmp-{}", sanitize_segment(g.uuid(ctx.entries(), fork))),
        title,
        crumbs,
        heading,
        number,
        fork: fork_href,
        fork_text,
        more,
        columns,
        both,
    }
}

/// What the message the branches answer says: its first words, as one line
/// of inline Markdown (its code spans as code, its blocks as words).
fn fork_words(ctx: &ProjectCtx<'_>, fork: NodeId) -> Html {
    let (node, _) = ctx.project.node(ctx.graph().entry(ctx.entries(), fork));
    markdown::inline_excerpt(&text_of(&node.content, None).0, 300)
}

fn column(
    ctx: &ProjectCtx<'_>,
    dir: &str,
    n: usize,
    inputs: ColumnInputs<'_>,
    (project_cwd, agent_label): (Option<&str>, &'static str),
) -> Column {
    let g = ctx.graph();
    let e = ctx.entries();
    let ColumnInputs { label, words, href, active, duration, tokens, cost, messages, nodes, failed } = inputs;
    let mut files: Vec<FilePath> = Vec::new();
    let mut finals: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut commands = Vec::new();
    let mut turns: Vec<Turn> = Vec::new();
    let mut seen_items = rustc_hash::FxHashSet::default();
    for (i, NodeInputs { node, at, .. }) in nodes.iter() {
        let entry = g.entry(e, node);
        // The session's working directory where each call ran: the last one an
        // entry of the branch recorded, else the project's.
        let cwd = nodes.cwd_at(i);
        let item = at.map(|(track, _, _, item)| (track, item));
        let (model, _) = ctx.project.node(entry);
        ctx.compare_facts[node].get_or_init(|| facts_of(&model.content));
        let (text, calls) = text_of(&model.content, cwd.or(project_cwd));
        for c in model.content.tool_calls() {
            if failed.binary_search(&&*c.id).is_ok() {
                continue;
            }
            track_content(&mut finals, &c.input);
            let mut paths = Vec::new();
            changed(&c.input, &mut paths);
            let at = cwd.or(project_cwd);
            files.extend(paths.iter().map(|p| FilePath::new(p, at)));
            if let ToolInput::Shell { command, .. } = &c.input {
                commands.push(excerpt(command, 200));
            }
        }
        let (class, role) = match &model.content {
            Content::Prompt(_) | Content::Command { .. } | Content::Shell(_) => ("user", "You"),
            Content::Reply(_) => ("assistant", agent_label),
            _ => continue,
        };
        if text.is_empty() && calls.is_empty() {
            continue;
        }
        // A streamed turn is one message: its lines join the first one's.
        let same = item.is_some() && !seen_items.insert(item);
        let turn = Turn {
            class,
            role: role.to_string(),
            text,
            html: Html::default(),
            cut: false,
            calls,
            href: Href::default(),
        };
        let href = || {
            at.map(|(_, to, page, _)| {
                let a = anchor(g.uuid(e, node));
                ctx.href(dir, to, &page_file(page), Some(&a))
            })
            .unwrap_or_default()
        };
        join(&mut turns, same, turn, href);
    }
    as_markdown(&mut turns);
    files.sort_by(|a, b| a.full.cmp(&b.full));
    files.dedup_by(|a, b| a.full == b.full);
    Column {
        n,
        label,
        words,
        href,
        active,
        messages,
        duration,
        tokens,
        cost,
        files,
        commands,
        finals,
        more: messages.saturating_sub(turns.len()),
        turns,
    }
}

/// The files a call changes (each of a patch; a move, both paths).
fn changed(input: &ToolInput<'_>, files: &mut Vec<String>) {
    match input {
        ToolInput::Edit { file_path, .. }
        | ToolInput::MultiEdit { file_path, .. }
        | ToolInput::Write { file_path, .. } => {
            files.push(file_path.to_string());
        }
        ToolInput::NotebookEdit { notebook_path, .. } => files.push(notebook_path.to_string()),
        ToolInput::Patch { files: patched } => files.extend(patched.iter().flat_map(|f| f.paths()).map(str::to_string)),
        _ => {}
    }
}

/// Each turn's words as HTML, as its branch's page shows them (the first
/// [`COMPARE_TEXT_CHARS`] characters of a longer one), highlighting as much
/// code as a page of the site would.
fn as_markdown(turns: &mut [Turn]) {
    let mut budget = Budget::default();
    for t in turns {
        t.cut = t.text.chars().count() > COMPARE_TEXT_CHARS;
        let shown = if t.cut { excerpt_keep_lines(&t.text) } else { std::mem::take(&mut t.text) };
        t.html = markdown::to_html(&shown, &mut budget);
        t.text = String::new();
    }
}

/// Adds `t` to `turns`: joined to the last one when it is the same message
/// (`same`, of the same role; returns true), else as a new one while there
/// is room, its link made by `href`.
fn join(turns: &mut Vec<Turn>, same: bool, t: Turn, href: impl FnOnce() -> Href) -> bool {
    match turns.last_mut() {
        Some(last) if same && last.class == t.class => {
            if !t.text.is_empty() {
                if !last.text.is_empty() {
                    last.text.push_str("\n\n");
                }
                last.text.push_str(&t.text);
            }
            last.calls.extend(t.calls);
            true
        }
        _ => {
            if turns.len() < COMPARE_MESSAGES {
                turns.push(Turn { href: href(), ..t });
            }
            false
        }
    }
}

/// Whether the call `id` failed (its result says so).
fn failed(ctx: &ProjectCtx<'_>, id: &str) -> bool {
    let g = ctx.graph();
    g.tools.get(id).is_some_and(|l| {
        l.results
            .iter()
            .any(|&r| g.entry(ctx.entries(), r).tool_results.iter().any(|t| &*t.tool_use_id == id && t.is_error))
    })
}

/// A file's content after `input`, as far as it is known: a file written
/// whole is known, an edit of a known content applies (its old text found
/// once is replaced once, found more often every time: the client refuses
/// an ambiguous edit unless asked to replace all), anything else makes it
/// unknown.
fn track_content(finals: &mut BTreeMap<String, Option<String>>, input: &ToolInput<'_>) {
    let apply = |c: &mut Option<String>, old: &str, new: &str| {
        *c = match c.take() {
            Some(text) if !old.is_empty() => match text.matches(old).count() {
                0 => None,
                1 => Some(text.replacen(old, new, 1)),
                _ => Some(text.replace(old, new)),
            },
            _ => None,
        };
    };
    match input {
        ToolInput::Write { file_path, content } => {
            finals.insert(file_path.to_string(), Some(content.to_string()));
        }
        ToolInput::Edit { file_path, old, new } => {
            apply(finals.entry(file_path.to_string()).or_insert(None), old, new);
        }
        ToolInput::MultiEdit { file_path, edits } => {
            let c = finals.entry(file_path.to_string()).or_insert(None);
            for (old, new) in edits {
                apply(c, old, new);
            }
        }
        ToolInput::NotebookEdit { notebook_path, .. } => {
            finals.insert(notebook_path.to_string(), None);
        }
        ToolInput::Patch { files } => {
            for f in files {
                match (f.op, &f.moved_to) {
                    (PatchOp::Add, None) => {
                        finals.insert(f.path.to_string(), Some(f.new.to_string()));
                    }
                    (PatchOp::Update, None) => apply(finals.entry(f.path.to_string()).or_insert(None), &f.old, &f.new),
                    // Moved or deleted: what the paths hold is not followed.
                    _ => {
                        for p in f.paths() {
                            finals.insert(p.to_string(), None);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// The files several columns changed, each with the diff between the first
/// two final versions known.
fn both_changed(columns: &[Column]) -> Vec<BothChanged> {
    let mut by: BTreeMap<&str, Vec<&Column>> = BTreeMap::new();
    for c in columns {
        for f in c.finals.keys() {
            by.entry(f).or_default().push(c);
        }
    }
    by.into_iter()
        .filter(|(_, cs)| cs.len() > 1)
        .map(|(path, cs)| {
            let known: Vec<(&Column, &String)> = cs
                .iter()
                .filter_map(|c| c.finals.get(path).and_then(Option::as_ref).map(|t| (*c, t)))
                .take(2)
                .collect();
            let diff = match known.as_slice() {
                [(a, ta), (b, tb)] => Some((a.label.clone(), b.label.clone(), diff_html(ta, tb))),
                _ => None,
            };
            let path = cs
                .iter()
                .find_map(|c| c.files.iter().find(|f| f.full == path))
                .cloned()
                .unwrap_or_else(|| FilePath::new(path, None));
            BothChanged { path, by: cs.iter().map(|c| c.label.clone()).collect(), diff }
        })
        .collect()
}

/// The first [`COMPARE_TEXT_CHARS`] characters of a text, lines kept.
fn excerpt_keep_lines(s: &str) -> String {
    s.chars().take(COMPARE_TEXT_CHARS).collect()
}

/// The text a person reads in a prompt or an answer, and its tool calls as
/// one line each (`Bash: cargo test`, `Edit: src/cli.rs`: a path inside the
/// working directory `cwd` named from it, as the file lists name it).
fn text_of(c: &Content<'_>, cwd: Option<&str>) -> (String, Vec<String>) {
    let shown = |p: &str| cwd.and_then(|d| relative(p, d)).unwrap_or(p).to_string();
    let mut text = String::new();
    let mut calls = Vec::new();
    let mut push = |t: &str| {
        if !t.trim().is_empty() {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(t.trim());
        }
    };
    match c {
        Content::Prompt(Body::Blocks(blocks)) | Content::Reply(blocks) => {
            for b in blocks {
                match b {
                    Block::Text(t) => push(t),
                    Block::ToolUse(call) => {
                        let about = match &call.input {
                            ToolInput::Shell { command, .. } => command.to_string(),
                            ToolInput::Edit { file_path, .. }
                            | ToolInput::MultiEdit { file_path, .. }
                            | ToolInput::Write { file_path, .. }
                            | ToolInput::Read { file_path, .. } => shown(file_path),
                            ToolInput::Patch { files } => {
                                files.iter().flat_map(|f| f.paths()).map(shown).collect::<Vec<_>>().join(", ")
                            }
                            _ => call.key_fields.clone(),
                        };
                        calls.push(excerpt(&format!("{}: {about}", call.name), 200));
                    }
                    _ => {}
                }
            }
        }
        Content::Command { name, args } => push(&code_span(format!("{name} {args}").trim_end())),
        Content::Shell(cmd) => push(&code_block(&format!("! {cmd}"))),
        _ => {}
    }
    (text, calls)
}

/// `text` as a Markdown code block nothing in it can close.
fn code_block(text: &str) -> String {
    let fence = "`".repeat(backticks(text).max(2) + 1);
    format!("{fence}\n{text}\n{fence}")
}

/// `text` as a Markdown code span nothing in it can close (a slash command).
fn code_span(text: &str) -> String {
    let ticks = "`".repeat(backticks(text) + 1);
    format!("{ticks} {text} {ticks}")
}

/// The longest run of backticks in `text`.
fn backticks(text: &str) -> usize {
    let (mut longest, mut run) = (0, 0);
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// `45 s`, `3 min 20 s`, `2 h 5 min`, `3 days 4 h`.
fn duration_text(ms: i64) -> String {
    let s = ms / 1000;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        3600..86_400 => format!("{} h {} min", s / 3600, s % 3600 / 60),
        _ => format!("{} days {} h", s / 86_400, s % 86_400 / 3600),
    }
}

/// A column's cost, saying "sub-agents included" when some were spawned
/// from its messages (`spawned`).
fn included(cost: String, spawned: bool) -> String {
    if spawned && !cost.is_empty() { format!("{cost} (sub-agents included)") } else { cost }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_inside_the_working_directory_are_relative() {
        let shown = |p: &str, cwd: Option<&str>| FilePath::new(p, cwd).shown;
        assert_eq!(shown("/home/a/w/src/cli.rs", Some("/home/a/w")), "src/cli.rs");
        assert_eq!(shown("/home/a/w/src/cli.rs", Some("/home/a/w/")), "src/cli.rs");
        assert_eq!(shown("/home/a/wx/cli.rs", Some("/home/a/w")), "/home/a/wx/cli.rs");
        assert_eq!(shown("/home/a/w", Some("/home/a/w")), "/home/a/w");
        assert_eq!(shown("/etc/hosts", Some("/home/a/w")), "/etc/hosts");
        assert_eq!(shown("C:\\w\\src\\a.rs", Some("C:\\w")), "src\\a.rs");
        assert_eq!(shown("two.txt", Some("/home/a/w")), "two.txt");
        assert_eq!(shown("/x/y", Some("/")), "/x/y");
        assert_eq!(shown("/x/y", None), "/x/y");
    }

    #[test]
    fn commands_and_shell_inputs_stay_code() {
        assert_eq!(code_span("/rename a `b`"), "`` /rename a `b` ``");
        assert_eq!(code_block("! echo ```"), "````\n! echo ```\n````");
        assert_eq!(code_block("! ls"), "```\n! ls\n```");
    }
}

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

use crate::render::html::diff::diff_html;
use crate::render::html::highlight::Budget;
use crate::render::html::{Html, filters, markdown};
use crate::render::pages::templates::Crumb;
use crate::render::pages::track::crumbs;
use crate::render::plain::{excerpt, prompt_words};
use crate::render::site::context::{CompareFacts as Facts, ProjectCtx, TrackId};
use crate::render::site::layout::ItemId;
use crate::render::site::urls::{Href, Root, anchor, page_file, sanitize_segment};
use crate::render::views::inputs::Read;

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
    /// Its entries from the fork on, each with where it is shown.
    nodes: Reads<'c>,
    /// The calls among them whose result says they failed (sorted).
    failed: Vec<&'c str>,
}

/// A column's entries, each with where it is shown ([`NodeInputs`]): made
/// when asked, not kept, as the fork's branch from the fork on is a column
/// of every fork before it (a line of N forks would hold N² of them).
struct Reads<'c> {
    ctx: &'c ProjectCtx<'c>,
    nodes: &'c [NodeId],
}

impl<'c> Reads<'c> {
    fn iter(&self) -> impl Iterator<Item = NodeInputs<'c>> + '_ {
        self.nodes.iter().map(|&node| NodeInputs::of(self.ctx, node))
    }
}

impl std::hash::Hash for Reads<'_> {
    /// As the list of [`NodeInputs`] it stands for: its length, then each.
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write_usize(self.nodes.len());
        self.iter().for_each(|n| n.hash(h));
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
            let (label, nodes, href, branch) = if k == 0 {
                let b = fp.branch;
                let own = &g.branches[b].nodes;
                let from = own.iter().position(|&n| n == child).unwrap_or(own.len());
                let href = ctx.message_link(&dir, None, child, true).unwrap_or_default();
                (ctx.fork_branch_label(fork, 0), &own[from..], href, b)
            } else {
                let b = g.node(child).branch?;
                (ctx.labels[b].clone(), g.branches[b].nodes.as_slice(), ctx.branch_href(&dir, b), b)
            };
            Some(column_inputs(ctx, (label, words, href), branch, nodes))
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
    nodes: &'c [NodeId],
) -> ColumnInputs<'c> {
    let g = ctx.graph();
    let e = ctx.entries();
    let mut failed: Vec<&'c str> = Vec::new();
    for &node in nodes {
        let entry = g.entry(e, node);
        failed.extend(entry.tool_uses.iter().map(|t| &*t.id).filter(|id| self::failed(ctx, id)));
    }
    let reads = Reads { ctx, nodes };
    failed.sort_unstable();
    failed.dedup();
    let spend = ctx.spend_of(crate::render::site::spend::with_agents_of(g, &ctx.agent_homes, branch, nodes));
    let spawned = ctx.agent_homes.get(&branch).is_some_and(|a| {
        let mine: rustc_hash::FxHashSet<NodeId> = nodes.iter().copied().collect();
        a.iter().any(|(_, n)| mine.contains(n))
    });
    let ts = nodes.iter().map(|&n| g.node(n).ts).filter(|&t| t > 0);
    let (first, last) = (ts.clone().min(), ts.max());
    let duration = match (first, last) {
        (Some(a), Some(b)) if b > a => duration_text(b - a),
        _ => String::new(),
    };
    ColumnInputs {
        label,
        words,
        href,
        active: nodes.first().is_some_and(|&n| ctx.on_active_track(n)),
        duration,
        tokens: spend.tokens_text(),
        cost: included(spend.cost_text(), spawned),
        nodes: reads,
        failed,
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

/// Adds the item that shows an entry (where it is `at`) to `counted` when
/// its page numbers it.
fn count(
    ctx: &ProjectCtx<'_>,
    at: Option<(TrackId, &str, u32, ItemId)>,
    counted: &mut rustc_hash::FxHashSet<(TrackId, ItemId)>,
) {
    if let Some((track, _, _, item)) = at
        && ctx.track_layout(track).items.get(item).is_some_and(|i| i.counted)
    {
        counted.insert((track, item));
    }
}

/// An entry's item on its page (what a streamed turn's lines share).
type ItemAt = Option<(TrackId, ItemId)>;

/// Whether a column that shows no more turns can pass entry `node` by: it
/// calls no tool and joins no turn shown (what it gives a column is read
/// once, [`Facts`], not again for every fork before it). Marks its item
/// seen as the column's loop does when it makes a turn.
fn passed_by(
    ctx: &ProjectCtx<'_>,
    (node, entry, item): (NodeId, &crate::model::Entry, ItemAt),
    turns: &[Turn],
    seen_items: &mut rustc_hash::FxHashSet<ItemAt>,
) -> bool {
    let facts = ctx.compare_facts[node].get_or_init(|| facts_of(&ctx.project.node(entry).0.content));
    if facts.calls {
        return false;
    }
    let Some(class) = facts.turn else { return true };
    let same = item.is_some() && !seen_items.insert(item);
    !(same && turns.last().is_some_and(|t| t.class == class))
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
    let ColumnInputs { label, words, href, active, duration, tokens, cost, nodes, failed } = inputs;
    let mut files: Vec<FilePath> = Vec::new();
    // The session's working directory where each call ran: the last one an
    // entry of the branch recorded, else the project's.
    let mut cwd: Option<&str> = None;
    let mut finals: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut commands = Vec::new();
    let mut turns: Vec<Turn> = Vec::new();
    // The items seen; the branch's messages as its page numbers them
    // (counted items), as the fork-point index counts them.
    let (mut seen_items, mut counted) = (rustc_hash::FxHashSet::default(), rustc_hash::FxHashSet::default());
    for NodeInputs { node, at, .. } in nodes.iter() {
        count(ctx, at, &mut counted);
        let entry = g.entry(e, node);
        cwd = entry.cwd.as_deref().or(cwd);
        let item = at.map(|(track, _, _, item)| (track, item));
        if turns.len() >= COMPARE_MESSAGES && passed_by(ctx, (node, entry, item), &turns, &mut seen_items) {
            continue;
        }
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
    let messages = counted.len();
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

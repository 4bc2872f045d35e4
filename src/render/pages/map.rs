//! The map of a conversation: its tree drawn as an SVG at render time (no
//! script), on the first page of the conversation. Rust lays it out as a
//! typed view ([`MapView`]); `templates/_map.html` draws it.
//!
//! One row per thing a reader looks for, top to bottom in reading order:
//! the first prompt of each branch, each fork, each compaction and
//! sub-agent, the last message of each branch, and between them the
//! prompts — a run of [`MAP_RUN`] or more collapsed into one row
//! (`#14–#37 · 24 prompts`). The active track (the active line readers see) is the left-most lane, drawn
//! bold, from the first message to the active leaf; at each fork the other
//! branches leave it to the right (one lane per level of nesting, up to
//! [`MAP_LANES`]) and are drawn before the track goes on, so a lane is busy
//! only while its branch is. Every row links to the message it stands for
//! (a fork to its landmark), on the conversation page when it shows it.
//!
//! Cost is linear: each node of the conversation is looked at once; a fork
//! lists at most [`MAP_FANOUT`] branches, the map at most [`MAP_ROWS`] rows,
//! the rest summed up in one row pointing at the fork-point index.

use rustc_hash::FxHashMap;

use crate::graph::{BranchId, CompactionKind, Conversation, ForkKind, NodeId};
use crate::limits::{MAP_CHARS, MAP_FANOUT, MAP_LANES, MAP_ROWS, MAP_RUN};
use crate::model::Kind;

use crate::render::plain::{plain_excerpt as excerpt, prompt_words};
use crate::render::site::context::{ProjectCtx, TrackId};
use crate::render::site::urls::{Href, fragment};

/// Height of a row, in px.
const ROW: u32 = 22;
/// Width of a lane, in px.
const LANE: u32 = 16;
/// Left and top margins, in px.
const PAD: u32 = 12;

/// A conversation's map, as `templates/_map.html` draws it.
#[derive(Debug, Hash)]
pub(crate) struct MapView {
    /// Height of the drawing, and of a row, in px.
    pub(crate) height: u32,
    pub(crate) row_h: u32,
    /// Where the rows' text starts (right of the widest lane).
    pub(crate) text_x: u32,
    /// Width of the drawing in px, its longest row's text estimated
    /// ([`text_width`]): narrower screens scroll the map sideways.
    pub(crate) width: u32,
    pub(crate) rows: Vec<MapRow>,
    pub(crate) edges: Vec<MapEdge>,
    /// Prompts and branches of the conversation (for the caption).
    pub(crate) prompts: u32,
    pub(crate) branches: usize,
    /// Branches and forks left out (past [`MAP_ROWS`] or [`MAP_FANOUT`]).
    pub(crate) omitted: usize,
}

/// One row: a node and its label.
#[derive(Debug, Hash)]
pub(crate) struct MapRow {
    /// `head` (first prompt of a branch), `prompt`, `run`, `fork`,
    /// `compaction` (`compaction from`, `compaction up_to`, `compaction
    /// micro` for the other kinds), `agent`, `leaf` or `more`.
    pub(crate) kind: &'static str,
    /// Centre of the node, in px.
    pub(crate) x: u32,
    pub(crate) y: u32,
    /// On the active track.
    pub(crate) on: bool,
    /// The active leaf.
    pub(crate) active_leaf: bool,
    pub(crate) href: Href,
    /// `#12`, `12.2`, `#14–#37`: what the row is called.
    pub(crate) label: String,
    pub(crate) text: String,
    /// A fork's compare page, linked right of its row's text (at `compare_x`).
    pub(crate) compare: Option<Href>,
    pub(crate) compare_x: u32,
}

/// A stroke between two rows: down the lane of `x1`, then (for a branch
/// leaving a fork) a bend into the lane of `x2`.
#[derive(Debug, Hash)]
pub(crate) struct MapEdge {
    pub(crate) x1: u32,
    pub(crate) y1: u32,
    /// Where the bend starts (`y2` when the edge is straight).
    pub(crate) ym: u32,
    pub(crate) x2: u32,
    pub(crate) y2: u32,
    pub(crate) on: bool,
}

/// What to draw next: the nodes of branch `branch` from position `from`, in
/// `lane`, coming from row `from_row` (none for the first message).
struct Segment {
    branch: BranchId,
    from: usize,
    lane: u32,
    from_row: Option<usize>,
    /// The label of its first row (`#1`, `12.1`, `12.2`).
    label: String,
    /// The first words of the branch (a fork's label for its child).
    words: String,
    /// How its first row is drawn.
    head: Head,
}

/// The first row of a segment.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Head {
    /// Its label and first words, then its rows.
    Shown,
    /// None: the line goes on from the fork in the same lane, on the same
    /// branch.
    Quiet,
    /// A branch leaving a fork: one row (label, first words, prompts) when
    /// it does not fork again, else as [`Head::Shown`].
    Side,
}

/// A run of prompts not drawn yet.
#[derive(Default)]
struct Run {
    first: Option<NodeId>,
    first_n: u32,
    last_n: u32,
    count: u32,
    /// Its prompts while it is too short to collapse.
    few: Vec<NodeId>,
}

impl Run {
    fn push(&mut self, n: NodeId, number: u32) {
        if self.first.is_none() {
            self.first = Some(n);
            self.first_n = number;
        }
        self.last_n = number;
        self.count += 1;
        if self.count < MAP_RUN {
            self.few.push(n);
        } else {
            self.few.clear();
        }
    }
}

struct Builder<'a, 'c> {
    ctx: &'a ProjectCtx<'c>,
    c: &'a Conversation,
    dir: &'a str,
    track: TrackId,
    forks: FxHashMap<NodeId, usize>,
    view: MapView,
    /// The last row drawn in each lane of the current segment chain.
    prev: Option<usize>,
    /// Branches whose nodes read in another order than they run (a
    /// `/compact` before its compaction: `layout::reading_order`), by branch.
    reordered: FxHashMap<BranchId, Option<std::rc::Rc<[NodeId]>>>,
}

/// The map of conversation `c`, for its page `track` in `dir`.
pub(crate) fn map(ctx: &ProjectCtx<'_>, c: &Conversation, dir: &str, track: TrackId) -> MapView {
    let forks = c.fork_points.iter().enumerate().map(|(i, f)| (f.node, i)).collect();
    let view = MapView {
        height: 0,
        row_h: ROW,
        text_x: 0,
        width: 0,
        rows: Vec::new(),
        edges: Vec::new(),
        prompts: 0,
        branches: c.branches.len(),
        omitted: 0,
    };
    let mut b = Builder { ctx, c, dir, track, forks, view, prev: None, reordered: FxHashMap::default() };
    let first = c.first_prompt.as_deref().unwrap_or(&c.title);
    let mut stack = vec![Segment {
        branch: c.branches[0],
        from: 0,
        lane: 0,
        from_row: None,
        label: "#1".into(),
        words: words(ctx, first),
        head: Head::Shown,
    }];
    while let Some(seg) = stack.pop() {
        if b.view.rows.len() >= MAP_ROWS {
            b.view.omitted += 1 + stack.len();
            break;
        }
        b.segment(seg, &mut stack);
    }
    if b.view.omitted > 0 {
        let y = b.y();
        // The fork-point index lists every branch; a track without forks
        // goes on to its last message.
        let leaf = ctx.graph().branches[c.active_branch].leaf;
        let more = if c.fork_points.is_empty() { b.link(leaf, false) } else { fragment("forks") };
        b.view.rows.push(MapRow {
            kind: "more",
            x: PAD,
            y,
            on: false,
            active_leaf: false,
            href: more,
            label: "…".into(),
            text: format!("{} more in the fork-point index", b.view.omitted),
            compare: None,
            compare_x: 0,
        });
    }
    b.view.prompts = c.branches.iter().map(|&br| prompts_of(ctx, br)).sum();
    let lanes = b.view.rows.iter().map(|r| r.x).max().unwrap_or(PAD);
    b.view.text_x = lanes + LANE;
    b.view.height = b.y() + PAD - ROW / 2;
    let text_x = b.view.text_x;
    for r in b.view.rows.iter_mut().filter(|r| r.compare.is_some()) {
        r.compare_x = text_x + text_width(&r.label, &r.text) + COMPARE_GAP;
    }
    let text = b.view.rows.iter().map(|r| text_width(&r.label, &r.text) + row_extra(r)).max().unwrap_or(0);
    b.view.width = b.view.text_x + text + PAD;
    b.view
}

/// Space before a fork row's `compare` link, in px.
const COMPARE_GAP: u32 = 6;

/// What a row takes right of its text: a fork's `compare` link (7 letters, 13 px).
fn row_extra(r: &MapRow) -> u32 {
    if r.compare.is_some() { COMPARE_GAP + 60 } else { 0 }
}

/// The width in px a row's label (monospace, bold) and text (13 px sans)
/// take, estimated generously: CJK and other wide characters count 13 px,
/// the others 7.5 px.
fn text_width(label: &str, text: &str) -> u32 {
    let wide = |c: char| {
        matches!(u32::from(c), 0x1100..=0x115F | 0x2E80..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF
            | 0xFE30..=0xFE4F | 0xFF00..=0xFF60 | 0xFFE0..=0xFFE6 | 0x1F300..=0x1FAFF | 0x20000..=0x3FFFD)
    };
    let half: usize = text.chars().map(|c| if wide(c) { 26 } else { 15 }).sum();
    let label = label.chars().count() * 16;
    u32::try_from((half + label) / 2 + 8).unwrap_or(u32::MAX)
}
fn words(ctx: &ProjectCtx<'_>, text: &str) -> String {
    prompt_words(ctx.project.source.client, text, MAP_CHARS)
}

/// Prompts on a branch's own nodes.
fn prompts_of(ctx: &ProjectCtx<'_>, b: BranchId) -> u32 {
    let lay = &ctx.branch_layouts[b];
    let g = ctx.graph();
    let n = lay.items.iter().filter(|i| i.shown && g.entry(ctx.entries(), i.nodes[0]).kind == Kind::User).count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Builder<'_, '_> {
    /// The y of the next row.
    fn y(&self) -> u32 {
        let n = u32::try_from(self.view.rows.len()).unwrap_or(u32::MAX);
        PAD + ROW / 2 + n.saturating_mul(ROW)
    }

    fn x(lane: u32) -> u32 {
        PAD + lane.min(MAP_LANES) * LANE
    }

    /// Draws a row, joined to the previous row of its segment.
    fn row(&mut self, kind: &'static str, lane: u32, node: NodeId, label: String, text: String, href: Href) {
        let (x, y) = (Self::x(lane), self.y());
        let on = self.ctx.on_active_track(node) || self.single_line();
        if let Some(p) = self.prev {
            let from = &self.view.rows[p];
            let ym = if from.x == x { y } else { y - ROW * 2 / 3 };
            self.view.edges.push(MapEdge { x1: from.x, y1: from.y, ym, x2: x, y2: y, on: on && from.on });
        }
        let active_leaf = kind == "leaf" && on;
        self.prev = Some(self.view.rows.len());
        self.view.rows.push(MapRow { kind, x, y, on, active_leaf, href, label, text, compare: None, compare_x: 0 });
    }

    /// A conversation without forks: its one track is the active track.
    fn single_line(&self) -> bool {
        self.c.branches.len() < 2
    }

    fn number(&self, node: NodeId) -> u32 {
        self.ctx.loc[node].map_or(0, |l| self.ctx.track_layout(l.track).items[l.item].number)
    }

    fn link(&self, node: NodeId, forward: bool) -> Href {
        self.ctx.message_link(self.dir, Some(self.track), node, forward).unwrap_or_default()
    }

    /// Draws the prompts collected in `run`.
    fn flush(&mut self, run: &mut Run, lane: u32) {
        let r = std::mem::take(run);
        let Some(first) = r.first else { return };
        if r.count >= MAP_RUN {
            let label = format!("#{}–#{}", r.first_n, r.last_n);
            let text = format!("{} prompts", r.count);
            self.row("run", lane, first, label, text, self.link(first, true));
            return;
        }
        // Too short to collapse: each prompt on its own row.
        let g = self.ctx.graph();
        for n in r.few {
            let text = words(self.ctx, &g.entry(self.ctx.entries(), n).excerpt);
            self.row("prompt", lane, n, format!("#{}", self.number(n)), text, self.link(n, true));
        }
    }

    /// Whether `n` is a fork point on `branch`.
    fn forks_here(&self, n: NodeId, branch: BranchId) -> bool {
        self.forks.contains_key(&n) && self.ctx.graph().node(n).branch == Some(branch)
    }

    /// The first node of a user item shown by default at its home: a prompt
    /// or a slash command the person typed.
    fn is_prompt(&self, n: NodeId) -> bool {
        let Some(l) = self.ctx.loc[n] else { return false };
        let item = &self.ctx.track_layout(l.track).items[l.item];
        item.shown && item.nodes[0] == n && self.ctx.graph().entry(self.ctx.entries(), n).kind == Kind::User
    }

    /// Draws `seg` up to the end of its branch or its next fork, where it
    /// pushes what comes next: the track going on, then above it (drawn
    /// first) the branches leaving there.
    fn segment(&mut self, seg: Segment, stack: &mut Vec<Segment>) {
        let g = self.ctx.graph();
        let br = &g.branches[seg.branch];
        let entries = self.ctx.entries();
        let order = self
            .reordered
            .entry(seg.branch)
            .or_insert_with(|| {
                crate::render::site::layout::reading_order(self.ctx.project.source.client, g, entries, &br.nodes)
                    .map(Into::into)
            })
            .clone();
        let all = order.as_deref().unwrap_or(&br.nodes);
        let nodes = &all[seg.from.min(all.len())..];
        self.prev = seg.from_row;
        let Some(&head) = nodes.first() else { return };
        let (branch, lane) = (seg.branch, seg.lane);
        if seg.head == Head::Side && !nodes.iter().any(|n| self.forks_here(*n, branch)) {
            let prompts = nodes.iter().filter(|n| self.is_prompt(**n)).count();
            let text = format!("{} · {prompts} prompt{}", seg.words, if prompts == 1 { "" } else { "s" });
            self.row("head", lane, head, seg.label, text, self.link(head, true));
            return;
        }
        let said = seg.words.clone();
        // The head row stands for the first prompt on the way when it shows
        // its words.
        let mut told = seg.head == Head::Quiet;
        if seg.head != Head::Quiet {
            self.row("head", lane, head, seg.label, seg.words, self.link(head, true));
        }
        let mut run = Run::default();
        for (k, &n) in nodes.iter().enumerate() {
            if self.view.rows.len() >= MAP_ROWS {
                return;
            }
            if self.is_prompt(n) {
                if told || k > 0 && words(self.ctx, &g.entry(self.ctx.entries(), n).excerpt) != said {
                    run.push(n, self.number(n));
                }
                told = true;
            }
            if let Some(kind) = g.node(n).compaction.filter(|k| *k == CompactionKind::Micro || g.node(n).link.is_join())
            {
                self.flush(&mut run, lane);
                let label = format!("#{}", self.number(n));
                let (row, text) = match kind {
                    CompactionKind::Full => ("compaction", "compacted"),
                    CompactionKind::From => ("compaction from", "summarized from here"),
                    CompactionKind::UpTo => ("compaction up_to", "summarized up to here"),
                    CompactionKind::Micro => ("compaction micro", "microcompacted"),
                };
                self.row(row, lane, n, label, text.into(), self.link(n, true));
            }
            let e = g.entry(self.ctx.entries(), n);
            if let Some(a) = e.tool_uses.iter().find_map(|t| self.ctx.agent_by_tool.get(&*t.id)) {
                self.flush(&mut run, lane);
                let agent = &g.agents[*a];
                let what = agent.meta.as_ref().and_then(|m| m.description.as_deref()).unwrap_or("sub-agent");
                let text = format!("sub-agent: {}", excerpt(what, MAP_CHARS));
                self.row("agent", lane, n, format!("#{}", self.number(n)), text, self.link(n, false));
            }
            if let Some(&f) = self.forks.get(&n).filter(|_| self.forks_here(n, branch)) {
                self.flush(&mut run, lane);
                self.fork(f, (branch, lane), seg.from + k, stack);
                return;
            }
        }
        self.flush(&mut run, lane);
        let leaf = *nodes.last().unwrap_or(&head);
        if leaf != head && !self.is_prompt(leaf) {
            let label = format!("#{}", self.number(leaf));
            let text = if self.ctx.on_active_track(leaf) || self.single_line() { "active leaf" } else { "end" };
            self.row("leaf", lane, leaf, label, text.into(), self.link(leaf, false));
        }
    }

    /// Draws fork `f` (at position `at` of `branch`, drawn in `lane`) and
    /// pushes the segments after it.
    fn fork(&mut self, f: usize, (branch, lane): (BranchId, u32), at: usize, stack: &mut Vec<Segment>) {
        let g = self.ctx.graph();
        let fp = &self.c.fork_points[f];
        let what = if fp.kind == ForkKind::Compaction { "summarized from here" } else { "fork" };
        let text = format!("{what} · {} branches", fp.children.len());
        let href = self.ctx.fork_link(self.dir, Some(self.track), fp.node).unwrap_or_default();
        self.row("fork", lane, fp.node, self.ctx.fork_name(fp.node), text, href);
        if let Some(row) = self.view.rows.last_mut() {
            row.compare = self.ctx.compare_href(self.dir, fp.node);
        }
        let fork_row = self.prev;
        let label_words = |k: usize| words(self.ctx, fp.labels.get(k).map_or("", |l| &**l));
        // The track goes on in this lane: where the active track goes if it
        // leaves here, else the branch's own continuation (`.1`).
        let this = lane;
        let segment = |k: usize, child: NodeId, lane: u32| {
            let (branch, from, label) = if k == 0 {
                (branch, at + 1, self.ctx.fork_branch_label(fp.node, 0))
            } else {
                let cb = g.node(child).branch?;
                (cb, 0, self.ctx.labels[cb].clone())
            };
            let head = if lane > this {
                Head::Side
            } else if k == 0 {
                Head::Quiet
            } else {
                Head::Shown
            };
            Some(Segment { branch, from, lane, from_row: fork_row, label, words: label_words(k), head })
        };
        // Only what is drawn is looked at: a fork of a million branches
        // costs MAP_FANOUT segments.
        let straight = fp.children.iter().position(|c| self.ctx.on_active_track(*c)).unwrap_or(0);
        let Some(main) = segment(straight, fp.children[straight], lane) else { return };
        let others = fp.children.iter().enumerate().filter(|(k, _)| *k != straight);
        let next: Vec<Segment> =
            others.take(MAP_FANOUT).filter_map(|(k, &child)| segment(k, child, lane + 1)).collect();
        self.view.omitted += (fp.children.len() - 1).saturating_sub(MAP_FANOUT);
        stack.push(main);
        stack.extend(next.into_iter().rev());
    }
}

//! The fork-point index at the top of a conversation page: the conversation
//! as an outline tree, in the order of the map. First the first message;
//! then every fork point on the main branch with its message number and an
//! excerpt; under each, its branches (`23.1` the track the fork is on,
//! `23.2`… new branches), each with first words, length, title, last
//! activity and a link: first those that leave the line, the forks of each
//! nested under it, then the line going on (the active line where it passes,
//! else `23.1`, marked `continues`), whose forks follow at the fork's depth.
//! The active path is marked.
//!
//! A branch's summary names its leaf, so it titles only the row that ends
//! there: the row of a branch without nested forks, or the `.1` row of the
//! last fork on a branch. A branch with nested forks shows its first words;
//! its summary appears on its last nested `.1` row.

use rustc_hash::FxHashSet;

use crate::graph::{BranchId, Conversation, ForkKind, ForkPoint, NodeId};

use crate::limits::{FORK_LISTED, OUTLINE_CHARS, OUTLINE_DEPTH, OUTLINE_FIRST_CHARS, OUTLINE_LABEL_CHARS};
use crate::render::plain::{plain_excerpt as excerpt, prompt_words};
use crate::render::site::context::listed_apart;
use crate::render::site::context::{ProjectCtx, TrackId};
use crate::render::site::urls::Href;
use crate::render::views::time::Time;

/// One row of the outline (flattened; `depth` gives the nesting).
#[derive(Debug, Clone, Hash)]
pub(crate) struct OutlineRow {
    /// `first`, `fork` or `branch`.
    pub(crate) kind: &'static str,
    pub(crate) depth: u32,
    pub(crate) label: String,
    pub(crate) text: String,
    /// Where the row is read: on this page when the conversation page shows
    /// it (the active track), else on the branch's own page.
    pub(crate) href: Href,
    /// The link of the label: a branch's own page (for a `.1` row, its
    /// place on the page of the track it continues), whatever is active.
    pub(crate) page: Href,
    /// The branch's summary, if it has one.
    pub(crate) title: String,
    pub(crate) messages: u32,
    /// The last activity.
    pub(crate) last: Time,
    pub(crate) active: bool,
    /// The line going on after the fork (the active line where it passes,
    /// else `.1`), listed after the branches that leave it, as on the map.
    pub(crate) continues: bool,
    /// A branch in a session written by `cctree fork`.
    pub(crate) own_fork: bool,
    /// A fork's compare page.
    pub(crate) compare: Option<Href>,
    /// What tells it from a row that reads the same (a sibling branch with
    /// the same first words: its session and start; a fork at the same
    /// number with the same words: the entry it is at), else empty.
    pub(crate) detail: String,
}

/// The message number the index's legend reads its example with: the first
/// fork of the outline called by its number alone (`fork at #N`, `N.1`,
/// `N.2`), else 12.
pub(crate) fn legend_number(rows: &[OutlineRow]) -> &str {
    let plain = |r: &&OutlineRow| r.label.len() > 1 && r.label[1..].bytes().all(|b| b.is_ascii_digit());
    rows.iter().filter(|r| r.kind == "fork").find(plain).map_or("12", |r| &r.label[1..])
}

/// The outline of a conversation, for its page `track` (in `from_dir`).
pub(crate) fn outline(p: &ProjectCtx<'_>, c: &Conversation, from_dir: &str, track: TrackId) -> Vec<OutlineRow> {
    let g = p.graph();
    let e = p.entries();
    let active: FxHashSet<NodeId> = g.ancestry(g.branches[c.active_branch].leaf).into_iter().collect();
    let first = p.message_link(from_dir, Some(track), c.root, true).unwrap_or_default();
    let mut rows = vec![OutlineRow {
        kind: "first",
        depth: 0,
        label: "1".into(),
        text: excerpt(c.first_prompt.as_deref().unwrap_or(&g.entry(e, c.root).excerpt), OUTLINE_FIRST_CHARS),
        page: first.clone(),
        href: first,
        title: String::new(),
        messages: c.messages,
        last: Time::at(c.first_ts),
        active: false,
        continues: false,
        own_fork: false,
        compare: None,
        detail: String::new(),
    }];
    walk(p, c.branches[0], 0, (from_dir, track), &active, &mut rows);
    tell_forks_apart(p, c, &mut rows);
    rows
}

/// Forks at one message number whose rows read the same words (one at the
/// message, one at a side entry after it the page hides, where a rewind
/// of the client went back to): each says where it is.
fn tell_forks_apart(p: &ProjectCtx<'_>, c: &Conversation, rows: &mut [OutlineRow]) {
    let g = p.graph();
    let number = |r: &OutlineRow| {
        r.label.trim_start_matches('#').split(|ch: char| !ch.is_ascii_digit()).next().unwrap_or("").to_string()
    };
    let mut seen: rustc_hash::FxHashMap<(String, String), usize> = rustc_hash::FxHashMap::default();
    for r in rows.iter().filter(|r| r.kind == "fork") {
        *seen.entry((number(r), r.text.clone())).or_default() += 1;
    }
    let forks: Vec<NodeId> = c.fork_points.iter().map(|f| f.node).collect();
    for r in rows.iter_mut().filter(|r| r.kind == "fork") {
        if seen.get(&(number(r), r.text.clone())).copied().unwrap_or(0) < 2 {
            continue;
        }
        let Some(&node) = forks.iter().find(|n| p.fork_name(**n) == r.label) else { continue };
        let Some(l) = p.loc[node] else { continue };
        let item = &p.track_layout(l.track).items[l.item];
        let e = g.entry(p.entries(), node);
        r.detail = if item.counted && item.nodes[0] == node {
            format!("at message #{} itself", item.number)
        } else {
            format!("after #{}, at a {} entry the page hides", item.number, e.kind.name())
        };
    }
}

/// What [`walk`] has left to write, last first.
enum Step<'g> {
    /// The forks of a branch from its `next`-th on, at the depth of their rows.
    Line(Line<'g>),
    /// A fork point on a branch: its row, its branches, its "more" row.
    Fork(Forked<'g>, Line<'g>),
    /// The row of a fork's `k`-th branch (`straight`: the line going on),
    /// then its own forks; for `.1`, `rest`: the forks after it on its branch.
    Child(Forked<'g>, usize, bool, Line<'g>),
    /// The "more" row of a fork that names only some of its branches.
    More(&'g ForkPoint, u32, usize),
}

/// The forks of branch `b` (in order along it) from the `next`-th, listed at `depth`.
#[derive(Clone)]
struct Line<'g> {
    b: BranchId,
    forks: std::rc::Rc<[&'g ForkPoint]>,
    next: usize,
    depth: u32,
    /// The item of the last fork on the branch (whose `.1` row its summary titles).
    last_fork: Option<usize>,
}

/// A fork point, the branch it is on and what its rows need of it.
#[derive(Clone, Copy)]
struct Forked<'g> {
    b: BranchId,
    fp: &'g ForkPoint,
    depth: u32,
    last_fork: Option<usize>,
}

/// The rows of branch `b`'s forks and, under each, its branches and their
/// forks, depth first, in the map's order (`render::pages::map`): at a
/// fork, the branches that leave the line first (each with its forks
/// nested under it; `.1` among them when the line goes on elsewhere, with
/// the forks after it on its branch), then the line going on (the active
/// line where it passes, else `.1`), marked `continues`, whose forks follow
/// at the fork's depth. Iterative: forks nested 100,000 deep overflowed the
/// stack when this recursed; each branch's forks are listed once.
fn walk(
    p: &ProjectCtx<'_>,
    b: BranchId,
    depth: u32,
    (from_dir, track): (&str, TrackId),
    active: &FxHashSet<NodeId>,
    rows: &mut Vec<OutlineRow>,
) {
    let g = p.graph();
    let item_of = |n: NodeId| p.loc[n].map_or(0, |l| l.item.index());
    let line = |b: BranchId, depth: u32| {
        let forks: std::rc::Rc<[&ForkPoint]> = g.forks_on(b).collect();
        let last_fork = forks.iter().map(|f| item_of(f.node)).max();
        Line { b, forks, next: 0, depth, last_fork }
    };
    // (`cctree export` names all: its one file has no other list.)
    let site = p.links == crate::render::site::urls::Links::Site;
    let mut todo = vec![Step::Line(line(b, depth))];
    while let Some(step) = todo.pop() {
        match step {
            Step::Line(l) => {
                if let Some(&fp) = l.forks.get(l.next) {
                    let f = Forked { b: l.b, fp, depth: l.depth, last_fork: l.last_fork };
                    todo.push(Step::Fork(f, Line { next: l.next + 1, ..l }));
                }
            }
            Step::Fork(f, rest) => {
                rows.push(fork_row(p, &f, (from_dir, track), active));
                // A fork of many branches names the first ones (and the active
                // one); its own list names every one.
                let mut listed = Vec::new();
                for (k, child) in f.fp.children.iter().enumerate() {
                    if !site || k == 0 || listed.len() < FORK_LISTED || active.contains(child) {
                        listed.push(k);
                    }
                }
                let straight = f.fp.children.iter().position(|c| active.contains(c)).unwrap_or(0);
                // Written last first: the line going on, the "more" row, the
                // branches leaving.
                todo.push(Step::Child(f, straight, true, rest.clone()));
                if site && listed_apart(f.fp) {
                    todo.push(Step::More(f.fp, f.depth, f.fp.children.len() - listed.len()));
                }
                let sides = listed.into_iter().filter(|&k| k != straight).rev();
                todo.extend(sides.map(|k| Step::Child(f, k, false, rest.clone())));
            }
            Step::Child(f, k, straight, rest) => {
                let below = if straight { f.depth } else { f.depth + 2 };
                if let Some((mut row, cb)) = branch_row(p, &f, k, (from_dir, track), active) {
                    row.continues = straight;
                    rows.push(row);
                    match cb {
                        Some(cb) => todo.push(Step::Line(line(cb, below))),
                        None => todo.push(Step::Line(Line { depth: below, ..rest })),
                    }
                }
            }
            Step::More(fp, depth, more) => {
                rows.push(more_row(p, from_dir, fp, depth, more));
            }
        }
    }
}

/// The row of a fork point.
fn fork_row(
    p: &ProjectCtx<'_>,
    f: &Forked<'_>,
    (from_dir, track): (&str, TrackId),
    active: &FxHashSet<NodeId>,
) -> OutlineRow {
    let g = p.graph();
    let lay = &p.branch_layouts[f.b];
    let fork = p.fork_link(from_dir, Some(track), f.fp.node).unwrap_or_default();
    let item_ix = p.loc[f.fp.node].map_or(0, |l| l.item.index());
    OutlineRow {
        kind: "fork",
        depth: f.depth.min(OUTLINE_DEPTH),
        label: p.fork_name(f.fp.node),
        text: fork_text(f.fp, &prompt_words(p.project.source.client, &turn_text(p, lay, item_ix), OUTLINE_CHARS)),
        page: fork.clone(),
        href: fork,
        title: String::new(),
        messages: 0,
        last: Time::at(g.node(f.fp.node).ts),
        active: active.contains(&f.fp.node),
        continues: false,
        own_fork: false,
        compare: p.compare_href(from_dir, f.fp.node),
        detail: String::new(),
    }
}

/// The row of the `k`-th branch of a fork, and the branch whose forks go
/// under it (none for the `.1` row: the forks after it on the fork's branch).
fn branch_row(
    p: &ProjectCtx<'_>,
    f: &Forked<'_>,
    k: usize,
    (from_dir, track): (&str, TrackId),
    active: &FxHashSet<NodeId>,
) -> Option<(OutlineRow, Option<BranchId>)> {
    let g = p.graph();
    let summary = |br: &crate::graph::Branch| crate::render::plain::plain_text(br.summary.as_deref().unwrap_or(""));
    let (fp, depth) = (f.fp, f.depth);
    let child = fp.children[k];
    let text = prompt_words(p.project.source.client, fp.labels.get(k).map_or("", |l| &**l), OUTLINE_LABEL_CHARS);
    if k == 0 {
        let (lay, br) = (&p.branch_layouts[f.b], &g.branches[f.b]);
        let item_ix = p.loc[fp.node].map_or(0, |l| l.item.index());
        let after = lay.items.as_slice()[item_ix + 1..].iter().filter(|i| i.counted).count();
        let row = OutlineRow {
            kind: "branch",
            depth: (depth + 1).min(OUTLINE_DEPTH),
            label: p.fork_branch_label(fp.node, 0),
            text,
            href: p.message_link(from_dir, Some(track), child, true).unwrap_or_default(),
            page: p.message_link(from_dir, None, child, true).unwrap_or_default(),
            title: if Some(item_ix) == f.last_fork { summary(br) } else { String::new() },
            messages: u32::try_from(after).unwrap_or(u32::MAX),
            last: Time::at(br.last_ts),
            active: active.contains(&child),
            continues: true,
            own_fork: false,
            compare: None,
            detail: p.sibling_detail(fp, 0).unwrap_or_default(),
        };
        return Some((row, None));
    }
    let (cb, cbr) = g.node(child).branch.and_then(|cb| Some((cb, g.branches.get(cb)?)))?;
    let page = p.branch_href(from_dir, cb);
    let here = p.item_on(track, child).is_some();
    let row = OutlineRow {
        kind: "branch",
        depth: (depth + 1).min(OUTLINE_DEPTH),
        label: p.labels[cb].clone(),
        text,
        href: if here { p.message_link(from_dir, Some(track), child, true).unwrap_or_default() } else { page.clone() },
        page,
        title: if g.forks_on(cb).next().is_some() { String::new() } else { summary(cbr) },
        messages: p.branch_messages(cb),
        last: Time::at(cbr.last_ts),
        active: active.contains(&child),
        continues: false,
        own_fork: p.own_forks.contains(&cbr.session),
        compare: None,
        detail: p.sibling_detail(fp, k).unwrap_or_default(),
    };
    Some((row, Some(cb)))
}

/// The row after the branches a fork names: how many more, and its own list.
fn more_row(p: &ProjectCtx<'_>, from_dir: &str, fp: &ForkPoint, depth: u32, more: usize) -> OutlineRow {
    let list = crate::render::site::context::fork_list_href(p, from_dir, fp.node);
    OutlineRow {
        kind: "more",
        depth: (depth + 1).min(OUTLINE_DEPTH),
        label: "…".into(),
        text: format!("{more} more: every branch of the fork at {}", p.fork_name(fp.node)),
        page: list.clone(),
        href: list,
        title: String::new(),
        messages: 0,
        last: Time::at(p.graph().node(fp.node).ts),
        active: false,
        continues: false,
        own_fork: false,
        compare: None,
        detail: String::new(),
    }
}

/// What the index says of a fork: the words of its message, after what
/// kind of fork it is when it is no rewind of a person's ("summarized from
/// here").
fn fork_text(fp: &ForkPoint, words: &str) -> String {
    match fp.kind {
        ForkKind::Compaction => format!("summarized from here · {words}"),
        _ => words.to_string(),
    }
}

/// The text of the message a fork point belongs to: the last counted item
/// at or before item `ix` that has any text.
pub(crate) fn turn_text(p: &ProjectCtx<'_>, lay: &crate::render::site::layout::TrackLayout, ix: usize) -> String {
    let g = p.graph();
    let e = p.entries();
    let end = (ix + 1).min(lay.items.len());
    lay.items.as_slice()[..end]
        .iter()
        .rev()
        .filter(|i| i.counted)
        .flat_map(|i| i.nodes.iter())
        .map(|n| &g.entry(e, *n).excerpt)
        .find(|x| !x.trim().is_empty())
        .map(|x| x.to_string())
        .unwrap_or_default()
}

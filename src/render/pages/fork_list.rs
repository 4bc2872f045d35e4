//! The own list of a fork point with more branches than the fork-point
//! index names ([`FORK_LISTED`]): every branch, by time, in pages of
//! [`FORK_PER_PAGE`] at `<conversation>/f/<fork uuid>/index.html`,
//! `page-2.html`… (beside the fork's shared pages, see
//! [`ProjectCtx::group_short_branches`]). Each row links to where the
//! branch is read.

use askama::Template;

use crate::graph::NodeId;
use crate::limits::FORK_PER_PAGE;

use crate::limits::TITLE_CHARS;
use crate::render::html::filters;
use crate::render::pages::templates::{Crumb, Pager, Time};
use crate::render::pages::track::crumbs;
use crate::render::plain::prompt_words;
use crate::render::site::context::ProjectCtx;
use crate::render::site::urls::{Href, Root, page_count, sibling_page};

/// One page of a fork's list.
#[derive(Template)]
#[template(path = "forks.html")]
pub(crate) struct ForkListPage {
    pub(crate) root: Root,
    pub(crate) title: String,
    pub(crate) crumbs: Vec<Crumb>,
    pub(crate) heading: String,
    /// The fork's name (`#14`, `#14 on 8.1`) and its landmark.
    pub(crate) name: String,
    pub(crate) fork: Href,
    pub(crate) total: usize,
    /// Which of all this page lists (1-based).
    pub(crate) first: usize,
    pub(crate) last: usize,
    pub(crate) rows: Vec<ForkListRow>,
    pub(crate) pager: Pager,
}

/// A branch in a fork's list.
pub(crate) struct ForkListRow {
    pub(crate) label: String,
    pub(crate) words: String,
    pub(crate) href: Href,
    pub(crate) messages: u32,
    pub(crate) last: Time,
    pub(crate) active: bool,
}

/// Page `page` of the list of fork `fork`.
pub(crate) fn page(ctx: &ProjectCtx<'_>, fork: NodeId, page: u32) -> Option<ForkListPage> {
    let g = ctx.graph();
    let fp = g.fork_at(fork)?;
    let conv = g.node(fork).conversation?;
    let dir = ctx.fork_dir(fork);
    let total = fp.children.len();
    let pages = page_count(u32::try_from(total).unwrap_or(u32::MAX), u32::try_from(FORK_PER_PAGE).unwrap_or(u32::MAX));
    let from = (page as usize).saturating_mul(FORK_PER_PAGE).min(total);
    let to = from.saturating_add(FORK_PER_PAGE).min(total);
    let rows = (from..to)
        .filter_map(|k| {
            let child = fp.children[k];
            let words = prompt_words(ctx.project.source.client, fp.labels.get(k).map_or("", |l| &**l), 120);
            let active = ctx.on_active_track(child);
            if k == 0 {
                let b = fp.branch;
                let br = &g.branches[b];
                return Some(ForkListRow {
                    label: ctx.fork_branch_label(fork, 0),
                    words,
                    href: ctx.message_link(&dir, None, child, true).unwrap_or_default(),
                    messages: {
                        let ix = ctx.loc[fork].map_or(0, |l| l.item.index() + 1);
                        let after = ctx.branch_layouts[b].items.as_slice().get(ix..).unwrap_or(&[]);
                        u32::try_from(after.iter().filter(|i| i.counted).count()).unwrap_or(u32::MAX)
                    },
                    last: Time::at(br.last_ts),
                    active,
                });
            }
            let cb = g.node(child).branch?;
            let br = &g.branches[cb];
            Some(ForkListRow {
                label: ctx.labels[cb].clone(),
                words,
                href: ctx.branch_href(&dir, cb),
                messages: ctx.branch_messages(cb),
                last: Time::at(br.last_ts),
                active,
            })
        })
        .collect();
    let title = crate::render::plain::plain_excerpt(&g.conversations[conv].title, TITLE_CHARS);
    Some(ForkListPage {
        root: Root::of(&dir),
        title: format!("fork {} · {title}", ctx.fork_name(fork)),
        crumbs: crumbs(ctx, &dir, Some(conv)),
        heading: format!("Every branch of the fork at {}", ctx.fork_name(fork)),
        name: ctx.fork_name(fork),
        fork: ctx.fork_link(&dir, None, fork).unwrap_or_default(),
        total,
        first: from + 1,
        last: to,
        rows,
        pager: Pager::window(pages, page, sibling_page),
    })
}

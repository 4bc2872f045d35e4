//! The pages of a session recovered from the prompt history
//! (`Project::kept`, [`crate::model::RecoveredSession`]): its transcript is
//! gone, its prompts remain. Each page lists the prompts as typed, as the
//! user's messages of a conversation are shown, [`RenderOptions::page_size`]
//! prompts a page; its row on the project index says what it is.
//!
//! [`RenderOptions::page_size`]: crate::render::site::RenderOptions::page_size

use crate::limits::TITLE_CHARS;
use crate::model::RecoveredSession;
use crate::render::pages::templates::{Pager, RecoveredPage, Time};
use crate::render::pages::track::crumbs;
use crate::render::plain::plain_excerpt;
use crate::render::site::context::ProjectCtx;
use crate::render::site::urls::{Root, page_file, recovered_anchor, recovered_dir, sibling_page};
use crate::render::views::blocks::{Block, Note};
use crate::render::views::message::MessageView;
use crate::render::views::page_state::PageCtx;

/// What its row and its page say it is (its log's words for what became
/// of the transcript).
pub(crate) fn label(s: &RecoveredSession) -> String {
    let n = s.prompts.len();
    format!("{} — {n} prompt{} recovered", s.log.gone, if n == 1 { "" } else { "s" })
}

/// Its directory in the site.
pub(crate) fn dir(ctx: &ProjectCtx<'_>, s: &RecoveredSession) -> String {
    recovered_dir(&ctx.dir, &s.key)
}

/// How many pages it takes (at least one).
pub(crate) fn pages(ctx: &ProjectCtx<'_>, s: &RecoveredSession) -> u32 {
    let n = u32::try_from(s.prompts.len()).unwrap_or(u32::MAX);
    n.div_ceil(ctx.page_size.max(1)).max(1)
}

/// Page `page`'s path (0-based), relative to the site root.
pub(crate) fn path(ctx: &ProjectCtx<'_>, s: &RecoveredSession, page: u32) -> String {
    format!("{}{}", dir(ctx, s), page_file(page))
}

/// Its first prompt, as the log kept it (redacted with `--redact`).
pub(crate) fn first_prompt(ctx: &ProjectCtx<'_>, s: &RecoveredSession) -> String {
    let Some(p) = s.prompts.first() else { return String::new() };
    ctx.redactor.text(|| place(s, p.line), &p.text).into_owned()
}

/// Its title: the first words of its first prompt.
pub(crate) fn title(ctx: &ProjectCtx<'_>, s: &RecoveredSession) -> String {
    match plain_excerpt(&first_prompt(ctx, s), TITLE_CHARS) {
        t if t.is_empty() => format!("Session {}", s.key),
        t => t,
    }
}

/// Where `--redact` names a prompt of session `s`'s log: its line.
fn place(s: &RecoveredSession, line: u32) -> String {
    format!("{}:{line}", s.log.file)
}

/// Page `page` (0-based) of recovered session `s`.
pub(crate) fn page(ctx: &ProjectCtx<'_>, s: &RecoveredSession, page: u32) -> RecoveredPage {
    let dir = dir(ctx, s);
    let size = ctx.page_size.max(1) as usize;
    let mut pcx = PageCtx::new(ctx, &dir);
    let first = page as usize * size;
    let messages = s
        .prompts
        .iter()
        .enumerate()
        .skip(first)
        .take(size)
        .map(|(i, p)| {
            // Prompts are in time order: one of the same time is a neighbour.
            let near = [i.checked_sub(1), Some(i + 1)].into_iter().flatten().filter_map(|j| s.prompts.get(j));
            let shared = near.into_iter().any(|q| q.ts == p.ts);
            let text = ctx.redactor.text(|| place(s, p.line), &p.text);
            let mut body = vec![Block::Markdown(pcx.markdown(&text))];
            for (id, pasted) in &p.pasted {
                let pasted = ctx.redactor.text(|| place(s, p.line), pasted);
                body.push(Block::Note(Note { text: format!("Pasted text #{id}:") }));
                body.push(pcx.output(&pasted, &format!("Pasted text #{id}"), "wrap"));
            }
            MessageView {
                id: recovered_anchor(p.ts, shared.then_some(p.line)),
                class: "user recovered".into(),
                role: "You".into(),
                number: Some(u32::try_from(i + 1).unwrap_or(u32::MAX)),
                time: Some(Time::at(p.ts)),
                body,
                ..MessageView::default()
            }
        })
        .collect();
    let title = title(ctx, s);
    let total = pages(ctx, s);
    RecoveredPage {
        root: Root::of(&dir),
        title: title.clone(),
        crumbs: crumbs(ctx, &dir, None),
        heading: title,
        subheading: if page > 0 { format!("Page {} of {total}", page + 1) } else { String::new() },
        label: label(s),
        product: ctx.project.source.client.product(),
        log_what: s.log.what,
        log_file: s.log.file,
        replies: ctx.project.source.client.label(),
        session: s.session_id.clone().unwrap_or_default(),
        started: Time::at(s.first_ts()),
        last: Time::at(s.last_ts()),
        prompts: s.prompts.len(),
        messages,
        pager: Pager::window(total, page, sibling_page),
    }
}

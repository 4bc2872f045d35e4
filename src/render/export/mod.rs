//! One conversation as one file (`cctree export`): the pages the site shows
//! of it — the conversation page with its fork-point index, every branch,
//! the sub-agent transcripts it spawned — as sections of one HTML page that
//! stands alone ([`conversation_html`]), or as Markdown ([`md`]).
//!
//! No second renderer: each section is a page of the site
//! ([`crate::render::pages::track::track_page`], the same typed views), written by the
//! `main` block of `templates/track.html` ([`TrackSection`]) into the layout
//! `templates/export/conversation.html`. What differs is how pages reach
//! each other and their images:
//! - links are fragments of the file ([`Links::OneFile`]): a message is
//!   `#m-<uuid>` as on the site, a branch or agent is the section of its
//!   first page ([`section_id`]);
//! - images are `data:` URLs ([`ImageStore::inline`]);
//! - the style sheets and the script are inline, each allowed by its
//!   SHA-256 in the page's Content-Security-Policy, which otherwise allows
//!   nothing (`default-src 'none'`): the file makes no request at all;
//! - the pages of a long track follow each other in its section (each
//!   rendered with its own allowances, as on the site), without a pager.
//!
//! Sections come in reading order, as the conversation page reads: the
//! conversation (its title, facts, map and fork-point index, then the active
//! line: root → where it was last continued), then what of each branch is
//! not on the active line (each message once in the file: a branch that
//! leaves it after its own start, the rest of a branch after a fork the
//! active line leaves it at, named as the index names it — `15.1`), the
//! branches of each fork compared, then the agents.

pub(crate) mod md;

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use askama::Template;
use base64::Engine;
use sha2::{Digest, Sha256};

use crate::graph::{BranchId, Conversation, ConversationId, NodeId};
use crate::project::Project;

use crate::render::html::{Html, filters};
use crate::render::pages::compare;
use crate::render::pages::templates::{FactValue, Pager, TrackPage};
use crate::render::pages::track as transcript;
use crate::render::site::context::{InputPaths, PageWarnings, ProjectCtx, TrackId};
use crate::render::site::images::ImageStore;
use crate::render::site::redactor::{RedactionSite, Redactor};
use crate::render::site::urls::{Href, Links, fragment, page_file, section_id};
use crate::render::site::{Placement, RenderOptions};

/// What every HTML export carries in its first bytes (how `cctree export`
/// knows a file it may write over).
pub(crate) const MARK: &str = "<meta name=\"generator\" content=\"cctree\">";

/// A conversation exported: the file's bytes, and what rendering it met.
#[derive(Debug, Default)]
pub(crate) struct Exported {
    pub(crate) text: String,
    /// Problems met rendering pages, by page (as the site names them).
    pub(crate) warnings: BTreeMap<String, Vec<String>>,
    /// Where `--redact` replaced secrets in strings that are not entry lines.
    pub(crate) redactions: Vec<RedactionSite>,
}

/// The `main` block of `templates/track.html`: a page of a track without the
/// site around it (the template reads [`TrackPage`]'s fields through it).
#[derive(Template)]
#[template(path = "track.html", block = "main")]
pub(crate) struct TrackSection {
    pub(crate) page: TrackPage,
}

impl std::ops::Deref for TrackSection {
    type Target = TrackPage;
    fn deref(&self) -> &TrackPage {
        &self.page
    }
}

impl std::ops::DerefMut for TrackSection {
    fn deref_mut(&mut self) -> &mut TrackPage {
        &mut self.page
    }
}

impl From<TrackPage> for TrackSection {
    fn from(mut page: TrackPage) -> TrackSection {
        // One file: no separate conversation page to point to, and the
        // pages of a track follow each other.
        page.main_branch = None;
        page.pager = Pager::default();
        TrackSection { page }
    }
}

/// A page of the conversation as a section of the file: a track (a branch or
/// an agent), or the compare page of a fork point.
pub(crate) struct Section {
    pub(crate) id: String,
    /// What the table of contents calls it (`main`, `3.2`, `agent`, `compare #12`).
    pub(crate) label: String,
    pub(crate) title: String,
    pub(crate) href: Href,
    pub(crate) body: Html,
}

/// The file (`templates/export/conversation.html`).
#[derive(Template)]
#[template(path = "export/conversation.html")]
pub(crate) struct ExportPage {
    pub(crate) title: String,
    pub(crate) project: String,
    pub(crate) csp: String,
    pub(crate) style: Html,
    pub(crate) script: Html,
    pub(crate) sections: Vec<Section>,
    /// The branches on the way to the active leaf (labels).
    pub(crate) active: Vec<String>,
    /// What the conversation spent, sub-agents included (empty: nothing).
    pub(crate) tokens: String,
    pub(crate) cost: String,
    /// Some sub-agent was spawned in it (the totals say they include them).
    pub(crate) sub_agents: bool,
}

/// The style sheets the file carries: the site's, and the export's own.
const STYLE: &str = concat!(
    include_str!("../../../static/style.css"),
    include_str!("../../../static/syntax.css"),
    include_str!("../../../static/export.css")
);

/// The script the file carries: the site's (local times, expand all, copy
/// buttons, keys, the view menu's choice), and finding text in the file.
const SCRIPT: &str = concat!(
    include_str!("../../../static/app.js"),
    include_str!("../../../static/view.js"),
    include_str!("../../../static/export.js")
);

/// `'sha256-…'`: a CSP source allowing an inline element with this text.
fn csp_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!("'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(digest))
}

/// The file's Content-Security-Policy: its own style and script (by hash),
/// `data:` images, nothing else.
pub(crate) fn csp() -> String {
    format!(
        "default-src 'none'; script-src {}; style-src {}; img-src data:; base-uri 'none'; form-action 'none'",
        csp_hash(SCRIPT),
        csp_hash(STYLE)
    )
}

/// Conversation `conv` of `project` as one self-contained HTML file.
pub(crate) fn conversation_html(
    project: &Project,
    conv: ConversationId,
    at: &Placement<'_>,
    opts: &RenderOptions,
) -> Result<Exported> {
    export(project, conv, at, opts, |ctx, c| {
        let tracks = tracks(ctx, conv);
        let mut sections = Vec::with_capacity(tracks.len() + c.fork_points.len() + 1);
        // The conversation page: the active line, with the map and the index.
        let lead = ctx.conversation_track(c);
        sections.push(section(ctx, lead)?);
        let agents = tracks.iter().position(|t| matches!(t, TrackId::Agent(_))).unwrap_or(tracks.len());
        for &track in tracks[..agents].iter().filter(|t| **t != lead) {
            sections.extend(rest_section(ctx, track)?);
        }
        // The branches of each fork side by side, after the branches.
        sections.extend(c.fork_points.iter().filter_map(|fp| compare_section(ctx, fp.node)));
        for &track in &tracks[agents..] {
            sections.push(section(ctx, track)?);
        }
        let active = active_path(ctx, conv).iter().map(|b| ctx.labels[*b].clone()).collect();
        let spend = ctx.conversation_spend(c);
        let page = ExportPage {
            tokens: spend.tokens_text(),
            cost: spend.cost_text(),
            sub_agents: ctx.spawned_agents(c.branches.iter().copied()),
            title: crate::render::plain::plain_text(&c.title),
            project: ctx.name.clone(),
            csp: csp(),
            style: Html::asset(STYLE),
            script: Html::asset(SCRIPT),
            sections,
            active,
        };
        Ok(page.render()?)
    })
}

/// Conversation `conv` of `project` exported as one file: `body` writes it
/// from the pages' shared facts (linked as one file) and the conversation;
/// what rendering met is gathered beside it.
pub(super) fn export(
    project: &Project,
    conv: ConversationId,
    at: &Placement<'_>,
    opts: &RenderOptions,
    body: impl FnOnce(&ProjectCtx<'_>, &Conversation) -> Result<String>,
) -> Result<Exported> {
    let images = ImageStore::inline();
    let warnings = PageWarnings::default();
    let redactor = Redactor::new(opts.redact);
    let paths = InputPaths {
        show: opts.show_paths,
        fork_projects: at.fork_projects.clone(),
        cwd: at.cwd.clone(),
        checkpoints: at.checkpoints,
    };
    let mut ctx = ProjectCtx::new(project, at.slug, opts, &images, &warnings, &redactor, paths);
    ctx.links = Links::OneFile;
    let Some(c) = ctx.graph().conversations.get(conv) else { bail!("no conversation {conv:?} in the project") };
    let text = body(&ctx, c)?;
    Ok(Exported { text, warnings: warnings.take_all(), redactions: redactor.take() })
}

/// The branches from the main branch to the active one.
fn active_path(ctx: &ProjectCtx<'_>, conv: ConversationId) -> Vec<BranchId> {
    let g = ctx.graph();
    let mut path = vec![g.conversations[conv].active_branch];
    // A branch's parent comes before it: the walk ends (a guard all the same).
    while let Some(parent) = path.last().and_then(|b| g.branches[*b].parent_branch) {
        if path.len() > g.branches.len() {
            break;
        }
        path.push(parent);
    }
    path.reverse();
    path
}

/// The tracks of the file in reading order: the main branch, the branches on
/// the way to the active leaf, the other branches, the agents the
/// conversation spawned.
pub(crate) fn tracks(ctx: &ProjectCtx<'_>, conv: ConversationId) -> Vec<TrackId> {
    let g = ctx.graph();
    let c = &g.conversations[conv];
    let mut seen = crate::id::IdVec::<BranchId, bool>::filled(false, g.branches.len());
    let main = c.branches.iter().copied().filter(|b| g.branches[*b].fork_point.is_none());
    let mut order: Vec<TrackId> = Vec::with_capacity(c.branches.len());
    for b in main.chain(active_path(ctx, conv)).chain(c.branches.iter().copied()) {
        if !std::mem::replace(&mut seen[b], true) {
            order.push(TrackId::Branch(b));
        }
    }
    let owners = g.agent_owners();
    order.extend(owners.iter_enumerated().filter(|(_, o)| **o == Some(conv)).map(|(a, _)| TrackId::Agent(a)));
    order
}

/// A track as one section: its first page's head, then the messages of each
/// of its pages.
fn section(ctx: &ProjectCtx<'_>, track: TrackId) -> Result<Section> {
    let dir = ctx.track_dir(track).to_string();
    let pages = ctx.track_layout(track).pages;
    let mut body = TrackSection::from(transcript::track_page(ctx, track, 0));
    for page in 1..pages {
        body.messages.extend(transcript::track_page(ctx, track, page).messages);
    }
    let id = section_id(&dir, &page_file(0));
    let label = match track {
        TrackId::Branch(b)
            if ctx.conversation_track(&ctx.graph().conversations[ctx.graph().branches[b].conversation]) == track =>
        {
            "conversation".to_string()
        }
        TrackId::Branch(b) => ctx.labels[b].clone(),
        TrackId::Agent(_) => "agent".to_string(),
        TrackId::Active(_) => "active line".to_string(),
    };
    Ok(Section { href: fragment(&id), id, label, title: body.heading.clone(), body: Html::of(&body) })
}

/// What of a branch of a conversation with forks is not on the active line
/// (the file shows that once, in its first section), as a section: none
/// when all of it is. When the branch is on the active line at first (the
/// main branch, a branch the active line goes on along), the section is the
/// rest of it after the fork the active line leaves it at, headed and named
/// as the fork-point index names that line (`15.1`).
fn rest_section(ctx: &ProjectCtx<'_>, track: TrackId) -> Result<Option<Section>> {
    let TrackId::Branch(b) = track else { return Ok(None) };
    let g = ctx.graph();
    let dir = ctx.track_dir(track).to_string();
    let pages = ctx.track_layout(track).pages;
    let page_of = |p: u32| {
        let mut inputs = transcript::page_inputs(ctx, track, p);
        for (_, items) in &mut inputs.sections {
            items.retain(|it| !it.indexed_elsewhere);
        }
        let first = inputs.sections.iter().flat_map(|(_, items)| items).next().map(|it| it.nodes[0].node);
        (transcript::render_page(ctx, track, p, inputs), first)
    };
    let (page, mut first) = page_of(0);
    let mut body = TrackSection::from(page);
    for p in 1..pages {
        let (page, f) = page_of(p);
        first = first.or(f);
        body.messages.extend(page.messages);
    }
    let Some(first) = first else { return Ok(None) };
    let mut label = ctx.labels[b].clone();
    if first != g.branches[b].first {
        // The rest of a branch after a fork on it: the line the index names `<fork>.1`.
        let fork = ctx.fork_before(first);
        label = ctx.line_name(first).unwrap_or(label);
        let words = g.entry(ctx.entries(), first).excerpt.to_string();
        body.heading = format!(
            "Branch {label}: {}",
            crate::render::plain::prompt_words(ctx.project.source.client, &words, crate::limits::UNTITLED_CHARS)
        );
        body.subheading = String::new();
        body.context = Vec::new();
        body.forked_from = fork.map(|f| crate::render::pages::templates::ForkedFrom {
            href: ctx.fork_link(&dir, None, f).unwrap_or_default(),
            number: ctx.fork_numbers.get(&f).copied().unwrap_or(0),
            parent: ctx.fork_line_name(f),
            active: false,
            own_fork: false,
        });
        body.facts.retain(|f| f.label != "messages");
    }
    let id = section_id(&dir, &page_file(0));
    Ok(Some(Section { href: fragment(&id), id, label, title: body.heading.clone(), body: Html::of(&body) }))
}

/// The compare page of fork point `fork` as a section (none when it has none).
fn compare_section(ctx: &ProjectCtx<'_>, fork: NodeId) -> Option<Section> {
    let page = compare::page(ctx, fork)?;
    let id = section_id(&ctx.compare_dir(fork), &page_file(0));
    let label = format!("compare {}", ctx.fork_name(fork));
    let title = page.heading.clone();
    Some(Section { href: fragment(&id), id, label, title, body: Html::of(&compare::CompareSection { page }) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_assets_cannot_close_their_element() {
        assert!(!STYLE.to_ascii_lowercase().contains("</style"));
        assert!(!SCRIPT.to_ascii_lowercase().contains("</script"));
        assert!(!SCRIPT.contains("<!--"), "a comment opener in a script changes how it is parsed");
    }

    #[test]
    fn the_csp_allows_exactly_the_inline_style_and_script() {
        let csp = csp();
        assert!(csp.starts_with("default-src 'none';"), "{csp}");
        assert_eq!(csp.matches("'sha256-").count(), 2, "{csp}");
        assert!(!csp.contains("'self'") && !csp.contains("unsafe") && !csp.contains("http"), "{csp}");
    }
}

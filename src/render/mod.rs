//! Render stage: a loaded project → the bytes of its pages and images.
//!
//! Only this stage knows HTML. It reads a project's graph and, for the
//! entries a page shows, the transcript model ([`crate::model`], through
//! `Project::node`): never a transcript's JSON, a line or a file (a test,
//! `tests/integration/layering.rs`, says so). Grouped by role, each folder
//! using only those before it (no circle of imports, checked by the same test):
//!
//! - [`plain`]: plain-text helpers (cuts, excerpts, sizes, numbers);
//! - [`site`]: the site model and URLs — the options, where a project is
//!   published, the [`Sink`] pages go to, what every page knows of the others
//!   ([`site::context::ProjectCtx`]: tracks, layouts, labels, links), the URL
//!   contract, images, assets, `--redact` of strings that are not lines;
//! - [`html`]: HTML as a type and the streaming transforms (Markdown,
//!   highlighting, diffs, ANSI);
//! - [`views`]: one message as typed views (messages, blocks, tool calls),
//!   each written by its template, with the page's state and allowances;
//! - [`pages`]: one template struct per page and their builders (track
//!   pages, the project and archive indexes, fork lists, the map, the
//!   fork-point index, the sitemap);
//! - [`search`]: the archive-wide full-text index, made from the views;
//! - [`export`]: one conversation as one file.
//!
//! [`render_project`] is a pure function of the project, its [`Placement`]
//! and the [`RenderOptions`]: it never sees the command line or the file
//! system, and hands every page and image to the [`Sink`] the build passes
//! in (`crate::build`, which writes them, re-uses unchanged ones and keeps
//! the counts). The pages of a project are rendered in parallel. Output
//! depends only on the input: no timestamps of the run, no hash-map order.

pub mod export;
pub mod html;
pub mod pages;
pub mod plain;
pub mod search;
pub mod site;
pub mod views;

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use askama::Template;
use rayon::prelude::*;

use crate::digest::ProjectSummary;
use crate::graph::Conversation;
use crate::project::Project;

use pages::templates::TrackEntry;
use pages::{fork_list, groups, project_index, track};
use search::{PageIndex, ProjectSearch, Units};
use site::context::{self, InputPaths, PageWarnings, ProjectCtx, TrackId};
use site::images::ImageStore;
use site::redaction::{RedactionSite, Redactor};
pub use site::{Placement, RenderOptions, Sink};

/// What rendering a project produced besides its pages and images.
#[derive(Debug, Default)]
pub struct ProjectPages {
    pub summary: ProjectSummary,
    /// What it gives the archive-wide search index.
    pub search: ProjectSearch,
    /// Every file of the project in order (each page, then its doc file of
    /// the search index; the pages of the project index last), rendered or re-used.
    pub pages: Vec<String>,
    /// Pages rendered (the others were re-used through [`Sink::reuse_page`]).
    pub rendered: usize,
    /// Problems met rendering pages, by page.
    pub warnings: BTreeMap<String, Vec<String>>,
    /// Where `--redact` replaced secrets in strings that are not entry lines.
    pub redactions: Vec<RedactionSite>,
}

/// Renders every page of a project: the pages of every branch and agent
/// transcript (in parallel, each page independent; a page whose group key is
/// unchanged is re-used), then the pages of the project index.
pub fn render_project(
    project: &Project,
    at: &Placement<'_>,
    opts: &RenderOptions,
    out: &dyn Sink,
) -> Result<ProjectPages> {
    let t0 = std::time::Instant::now();
    let images = ImageStore::new(out);
    let warnings = PageWarnings::default();
    let redactor = Redactor::new(opts.redact);
    let paths = InputPaths { show: opts.show_paths, fork_projects: at.fork_projects.clone(), cwd: at.cwd.clone() };
    let mut ctx = ProjectCtx::new(project, at.slug, opts.page_size.max(1), &images, &warnings, &redactor, paths);
    ctx.group_short_branches();
    let ctx = ctx;
    let name = &project.source.name;
    tracing::debug!("{name}: page context in {:.3} s", t0.elapsed().as_secs_f64());
    let t0 = std::time::Instant::now();
    let fork_key = at.fork_projects.as_deref().unwrap_or_default();
    let groups = groups::groups(&ctx, &format!("{}{}{fork_key}", at.key_base, ctx.name));
    tracing::debug!("{name}: page groups in {:.3} s", t0.elapsed().as_secs_f64());
    let t0 = std::time::Instant::now();
    let jobs = transcript_pages(&ctx);
    let (rendered, search) = track_pages(&ctx, &groups, &jobs, opts, out)?;
    tracing::debug!("{name}: pages in {:.3} s", t0.elapsed().as_secs_f64());
    let t0 = std::time::Instant::now();
    let index = project_index::ProjectIndex::new(&ctx);
    let index_pages = (0..index.pages())
        .into_par_iter()
        .map(|p| {
            let path = project_index::ProjectIndex::path(&ctx, p);
            let mut page = index.page(&ctx, p);
            page.root = page.root.with_canonical(opts.canonical(&path));
            out.page(&path, page.render()?.as_bytes(), "")?;
            Ok(path)
        })
        .collect::<Result<Vec<String>>>()?;
    tracing::debug!("{name}: project index ({} pages) in {:.3} s", index_pages.len(), t0.elapsed().as_secs_f64());
    let t0 = std::time::Instant::now();
    let fork_jobs: Vec<(crate::graph::NodeId, u32)> =
        context::fork_lists(&ctx).into_iter().flat_map(|(f, pages)| (0..pages).map(move |p| (f, p))).collect();
    let fork_pages = fork_jobs
        .into_par_iter()
        .filter_map(|(fork, p)| Some((context::fork_list_path(&ctx, fork, p), fork_list::page(&ctx, fork, p)?)))
        .map(|(path, mut page)| {
            page.root = page.root.with_canonical(opts.canonical(&path));
            out.page(&path, page.render()?.as_bytes(), "")?;
            Ok(path)
        })
        .collect::<Result<Vec<String>>>()?;
    tracing::debug!("{name}: lists of big forks ({} pages) in {:.3} s", fork_pages.len(), t0.elapsed().as_secs_f64());
    if let Some(err) = images.take_failure() {
        return Err(err);
    }
    let page_count = jobs.len() + fork_pages.len() + index_pages.len();
    let files: Vec<String> = jobs
        .into_iter()
        .flat_map(|(track, page, path)| [path, doc_path(&ctx, track, page)])
        .chain(fork_pages)
        .chain(index_pages)
        .collect();
    Ok(ProjectPages {
        summary: summary(&ctx, page_count),
        search,
        pages: files,
        rendered,
        warnings: warnings.take_all(),
        redactions: redactor.take(),
    })
}

/// Every page of every track of a project, with its path: each
/// conversation's active track (when it has forks), its branches, and the
/// agent transcripts.
fn transcript_pages(ctx: &ProjectCtx<'_>) -> Vec<(TrackId, u32, String)> {
    let g = ctx.graph();
    let tracks = g.conversations.iter_enumerated().flat_map(|(i, c)| {
        let active = (c.branches.len() > 1).then_some(TrackId::Active(i));
        active.into_iter().chain(c.branches.iter().map(|&b| TrackId::Branch(b)))
    });
    // A branch on a shared page other than its first is read on that page.
    let tracks = tracks.chain(g.agents.ids().map(TrackId::Agent)).filter(|t| ctx.has_pages(*t));
    let mut jobs = Vec::new();
    for track in tracks {
        let pages = ctx.track_layout(track).pages;
        jobs.extend((0..pages).map(|p| (track, p, format!("{}{}", ctx.track_dir(track), site::urls::page_file(p)))));
    }
    jobs
}

/// The transcript pages of a project, each with its file of the search
/// index beside it ([`search::doc_file`]), re-used or rendered together.
/// A page is re-used when the previous render wrote it with the same key
/// ([`groups::Groups::page_key`]): every page of a group whose key is
/// unchanged (its first pages tell), else each page by its own key, so a
/// track that grew renders its last page (and its first, with the facts)
/// only. A unit of the search index some of whose pages were rendered takes
/// the others' postings from the previous index. Returns how many pages were
/// rendered and what they give the search index.
fn track_pages(
    ctx: &ProjectCtx<'_>,
    groups: &groups::Groups,
    jobs: &[(TrackId, u32, String)],
    opts: &RenderOptions,
    out: &dyn Sink,
) -> Result<(usize, ProjectSearch)> {
    let units = Units::of(ctx);
    let reuse = |track: TrackId, page: u32, path: &str, key: Option<&str>| -> Result<bool> {
        let (indexed, group) = (!matches!(track, TrackId::Active(_)), groups.key(track));
        Ok(out.reuse_page(path, group, key)?
            && (!indexed || out.reuse_page(&doc_path(ctx, track, page), group, key)?))
    };
    // The group of each page is unchanged when the previous manifest says
    // so (the page records its group's key); its pages are then re-used
    // whatever their own keys. Else each page by its own key.
    let unchanged =
        jobs.par_iter().map(|(track, _, path)| out.had_group(path, groups.key(*track))).collect::<Vec<bool>>();
    let mut group_unchanged = vec![true; groups.count()];
    for ((track, _, _), ok) in jobs.iter().zip(&unchanged) {
        group_unchanged[groups.of(*track).index()] &= *ok;
    }
    let keyed = jobs
        .par_iter()
        .map(|(track, page, path)| {
            if group_unchanged[groups.of(*track).index()] && reuse(*track, *page, path, None)? {
                return Ok((true, String::new()));
            }
            let key = groups.page_key(ctx, *track, *page);
            Ok((reuse(*track, *page, path, Some(&key))?, format!("{}:{key}", groups.key(*track))))
        })
        .collect::<Result<Vec<(bool, String)>>>()?;
    let pages = jobs
        .par_iter()
        .zip(&keyed)
        .filter(|(_, (reused, _))| !reused)
        .map(|((track, page, path), (_, key))| {
            let mut view = track::track_page(ctx, *track, *page);
            view.root = view.root.with_canonical(opts.canonical(path));
            let html = view.render().context("rendering a page")?;
            out.page(path, html.as_bytes(), key)?;
            // The active track's messages are indexed on their branches' pages.
            if matches!(track, TrackId::Active(_)) {
                return Ok(None);
            }
            let index = PageIndex::of(view.messages.iter().filter_map(TrackEntry::message));
            let docs = doc_path(ctx, *track, *page);
            out.page(&docs, index.doc_script(&docs).as_bytes(), key)?;
            Ok(Some((*track, *page, index)))
        })
        .collect::<Result<Vec<Option<(TrackId, u32, PageIndex)>>>>()?;
    let rendered = pages.len();
    let pages = pages.into_iter().flatten().collect();
    let kept: Vec<(TrackId, u32)> =
        jobs.iter().zip(&keyed).filter(|(_, (reused, _))| *reused).map(|((t, p, _), _)| (*t, *p)).collect();
    Ok((rendered, units.index(pages, &kept)))
}

/// The search index's doc file of a page ([`search::doc_file`]).
fn doc_path(ctx: &ProjectCtx<'_>, track: TrackId, page: u32) -> String {
    format!("{}{}", ctx.track_dir(track), search::doc_file(page))
}

/// What the archive index shows of a project (fragments do not count).
fn summary(ctx: &ProjectCtx<'_>, pages: usize) -> ProjectSummary {
    let real: Vec<&Conversation> = ctx.graph().conversations.iter().filter(|c| !c.is_fragment).collect();
    ProjectSummary {
        name: ctx.name.clone(),
        dir: ctx.dir.clone(),
        conversations: real.len(),
        branches: real.iter().map(|c| c.branches.len()).sum(),
        forks: real.iter().map(|c| c.fork_points.len()).sum(),
        messages: real.iter().map(|c| u64::from(c.messages)).sum(),
        last_ts: real.iter().map(|c| c.last_ts).max().unwrap_or(0),
        tokens: project_index::project_tokens(ctx),
        pages,
    }
}

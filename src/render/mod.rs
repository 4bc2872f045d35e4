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

pub(crate) mod export;
pub mod html;
pub(crate) mod pages;
pub(crate) mod plain;
pub(crate) mod search;
pub mod site;
pub(crate) mod views;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result};
use askama::Template;
use rayon::prelude::*;

use crate::digest::ProjectSummary;
use crate::graph::{Conversation, ConversationId, NodeId};
use crate::project::Project;

use pages::compare::CompareInputs;
use pages::templates::TrackEntry;
use pages::track::{self, PageInputs};
use pages::{fork_list, project_index, recovered};
use search::{PageIndex, ProjectSearch, Units};
pub(crate) use site::PageJob;
use site::context::{self, InputPaths, PageWarnings, ProjectCtx, TrackId};
use site::images::ImageStore;
use site::redactor::{RedactionSite, Redactor};
pub use site::{Placement, RenderOptions, Sink};

/// What rendering a project produced besides its pages and images.
#[derive(Debug, Default)]
pub(crate) struct ProjectPages {
    pub(crate) summary: ProjectSummary,
    /// What it gives the archive-wide search index.
    pub(crate) search: ProjectSearch,
    /// Every file of the project in order (each page, then its doc file of
    /// the search index; the pages of the project index last), rendered or re-used.
    pub(crate) pages: Vec<String>,
    /// Pages rendered (the others were re-used through [`Sink::reuse_page`]).
    pub(crate) rendered: usize,
    /// Compare pages rendered (likewise).
    pub(crate) compare_rendered: usize,
    /// Problems met rendering pages, by page.
    pub(crate) warnings: BTreeMap<String, Vec<String>>,
    /// Where `--redact` replaced secrets in strings that are not entry lines.
    pub(crate) redactions: Vec<RedactionSite>,
}

/// Which pages of a project a render makes anew: the build's answer, from
/// what the previous render left (`crate::reuse`).
pub(crate) trait Reuse: Sync {
    /// For each of `pages` (of the project laid out as `ctx`): `None` when
    /// the previous render's page was put back unrendered (with its file of
    /// the search index), else the key to record it with, and what it is
    /// made from ([`PageInputs`]).
    fn pages(&self, ctx: &ProjectCtx<'_>, pages: &[PageJob]) -> Result<Vec<Option<(String, PageInputs)>>>;
    /// For each compare page (its path, its fork and the fork's
    /// conversation): `None` when the previous render's page was put back
    /// unrendered, else the key to record it with and what it is made from
    /// ([`CompareInputs`]).
    fn compare_pages<'c>(
        &self,
        ctx: &'c ProjectCtx<'_>,
        pages: &[CompareJob],
    ) -> Result<Vec<Option<(String, CompareInputs<'c>)>>>;
}

/// A compare page to make: its path, its fork point and the fork's conversation.
pub(crate) struct CompareJob {
    pub(crate) path: String,
    pub(crate) fork: NodeId,
    pub(crate) conversation: ConversationId,
}

/// Renders every page of a project: the pages of every branch and agent
/// transcript (in parallel, each page independent; those `reuse` puts back
/// from the previous render are not rendered), then the pages of the
/// project index.
pub(crate) fn render_project(
    project: &Project,
    at: &Placement<'_>,
    opts: &RenderOptions,
    out: &dyn Sink,
    reuse: &dyn Reuse,
) -> Result<ProjectPages> {
    let t0 = std::time::Instant::now();
    let images = ImageStore::new(out);
    let warnings = PageWarnings::default();
    let redactor = Redactor::new(opts.redact);
    let paths = InputPaths {
        show: opts.show_paths,
        fork_projects: at.fork_projects.clone(),
        cwd: at.cwd.clone(),
        checkpoints: at.checkpoints,
    };
    let mut ctx = ProjectCtx::new(project, at.slug, opts, &images, &warnings, &redactor, paths);
    ctx.group_short_branches();
    let ctx = ctx;
    let name = &project.source.name;
    tracing::debug!("{name}: page context in {:.3} s", t0.elapsed().as_secs_f64());
    let t0 = std::time::Instant::now();
    let jobs = transcript_pages(&ctx);
    let decided = reuse.pages(&ctx, &jobs)?;
    tracing::debug!("{name}: pages to render decided in {:.3} s", t0.elapsed().as_secs_f64());
    let t0 = std::time::Instant::now();
    let (rendered, search) = track_pages(&ctx, &jobs, decided, opts, out)?;
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
    let (compare_pages, compare_rendered) = compare_pages(&ctx, opts, out, reuse)?;
    let t0 = std::time::Instant::now();
    let mut search = search;
    let recovered_pages = recovered_pages(&ctx, opts, out, &mut search)?;
    tracing::debug!(
        "{name}: recovered sessions ({} files) in {:.3} s",
        recovered_pages.len(),
        t0.elapsed().as_secs_f64()
    );
    if let Some(err) = images.take_failure() {
        return Err(err);
    }
    let page_count =
        jobs.len() + fork_pages.len() + compare_pages.len() + index_pages.len() + recovered_pages.len() / 2;
    let files: Vec<String> = jobs
        .into_iter()
        .flat_map(|j| std::iter::once(j.path).chain(j.docs))
        .chain(fork_pages)
        .chain(compare_pages)
        .chain(recovered_pages)
        .chain(index_pages)
        .collect();
    Ok(ProjectPages {
        summary: summary(&ctx, page_count),
        search,
        pages: files,
        rendered,
        compare_rendered,
        warnings: warnings.take_all(),
        redactions: redactor.take(),
    })
}

/// Every page of every track of a project, with its path: each
/// conversation's active track (when it has forks), its branches, and the
/// agent transcripts.
fn transcript_pages(ctx: &ProjectCtx<'_>) -> Vec<PageJob> {
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
        let dir = ctx.track_dir(track);
        // The active track's messages are indexed on its pages, the others
        // on their branches' (`MessageView::indexed_elsewhere`).
        jobs.extend((0..pages).map(|page| PageJob {
            track,
            page,
            path: format!("{dir}{}", site::urls::page_file(page)),
            docs: Some(format!("{dir}{}", search::doc_file(page))),
        }));
    }
    jobs
}

/// The transcript pages of a project that are rendered (`decided`: the
/// key and inputs of each, or `None` for one put back), each with its file
/// of the search index beside it ([`search::doc_file`]). A unit of the
/// search index some of whose pages were put back takes the others'
/// postings from the previous index. Returns how many pages were rendered
/// and what they give the search index.
fn track_pages(
    ctx: &ProjectCtx<'_>,
    jobs: &[PageJob],
    decided: Vec<Option<(String, PageInputs)>>,
    opts: &RenderOptions,
    out: &dyn Sink,
) -> Result<(usize, ProjectSearch)> {
    let units = Units::of(ctx);
    let kept: Vec<(TrackId, u32)> =
        jobs.iter().zip(&decided).filter(|(_, d)| d.is_none()).map(|(j, _)| (j.track, j.page)).collect();
    let pages = jobs
        .par_iter()
        .zip(decided)
        .filter_map(|(j, d)| d.map(|d| (j, d)))
        .map(|(j, (key, inputs))| {
            let mut view = track::render_page(ctx, j.track, j.page, inputs);
            view.root = view.root.clone().with_canonical(opts.canonical(&j.path));
            let html = view.render().context("rendering a page")?;
            out.page(&j.path, html.as_bytes(), &key)?;
            let Some(docs) = &j.docs else { return Ok(None) };
            let mut index = PageIndex::of(view.messages.iter().filter_map(TrackEntry::message));
            out.page(docs, index.doc_script(docs).as_bytes(), &key)?;
            Ok(Some((j.track, j.page, index)))
        })
        .collect::<Result<Vec<Option<(TrackId, u32, PageIndex)>>>>()?;
    let rendered = pages.len();
    let pages = pages.into_iter().flatten().collect();
    Ok((rendered, units.index(pages, &kept)))
}

/// The pages of the sessions recovered from the prompt history (each with
/// its file of the search index beside it), always rendered; their units
/// go to `search`. Returns the files written.
fn recovered_pages(
    ctx: &ProjectCtx<'_>,
    opts: &RenderOptions,
    out: &dyn Sink,
    search: &mut ProjectSearch,
) -> Result<Vec<String>> {
    let sessions = &ctx.project.kept.recovered;
    let made = sessions
        .par_iter()
        .map(|s| {
            let mut files = Vec::new();
            let mut indexed = Vec::new();
            for p in 0..recovered::pages(ctx, s) {
                let path = recovered::path(ctx, s, p);
                let mut page = recovered::page(ctx, s, p);
                page.root = page.root.with_canonical(opts.canonical(&path));
                out.page(&path, page.render()?.as_bytes(), "")?;
                let docs = format!("{}{}", recovered::dir(ctx, s), search::doc_file(p));
                let mut index = PageIndex::of(&page.messages);
                out.page(&docs, index.doc_script(&docs).as_bytes(), "")?;
                files.extend([path.clone(), docs]);
                indexed.push((path, index));
            }
            let unit = search::docs::recovered_unit(
                ctx,
                recovered::dir(ctx, s),
                s.first_ts(),
                &recovered::title(ctx, s),
                indexed,
            );
            Ok((files, unit))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut files = Vec::new();
    for (f, (unit, text_bytes)) in made {
        files.extend(f);
        search.text_bytes += text_bytes;
        search.fresh.push(unit);
    }
    Ok(files)
}

/// The compare page of every fork point: rendered when `reuse` does not
/// put the previous render's back (it is a function of its
/// [`CompareInputs`]: the branches of its fork and where they are shown).
/// Returns the paths of all and how many were rendered.
fn compare_pages(
    ctx: &ProjectCtx<'_>,
    opts: &RenderOptions,
    out: &dyn Sink,
    reuse: &dyn Reuse,
) -> Result<(Vec<String>, usize)> {
    let t0 = std::time::Instant::now();
    let g = ctx.graph();
    let jobs: Vec<CompareJob> = pages::compare::forks(ctx)
        .into_iter()
        .filter(|&fork| g.fork_at(fork).is_some())
        .filter_map(|fork| {
            Some(CompareJob { path: pages::compare::path(ctx, fork), fork, conversation: g.node(fork).conversation? })
        })
        .collect();
    let decided = reuse.compare_pages(ctx, &jobs)?;
    let rendered = AtomicUsize::new(0);
    jobs.par_iter()
        .zip(decided)
        .filter_map(|(job, d)| d.map(|d| (job, d)))
        .map(|(job, (key, inputs))| {
            let mut page = pages::compare::render(ctx, inputs);
            rendered.fetch_add(1, Ordering::Relaxed);
            page.root = page.root.with_canonical(opts.canonical(&job.path));
            out.page(&job.path, page.render()?.as_bytes(), &key)
        })
        .collect::<Result<()>>()?;
    let name = &ctx.project.source.name;
    let rendered = rendered.into_inner();
    tracing::debug!(
        "{name}: compare pages ({}, {rendered} rendered) in {:.3} s",
        jobs.len(),
        t0.elapsed().as_secs_f64()
    );
    Ok((jobs.into_iter().map(|j| j.path).collect(), rendered))
}

/// What the archive index shows of a project (fragments do not count).
fn summary(ctx: &ProjectCtx<'_>, pages: usize) -> ProjectSummary {
    let real: Vec<&Conversation> = ctx.graph().conversations.iter().filter(|c| !c.is_fragment).collect();
    let recovered = &ctx.project.kept.recovered;
    let spend = ctx.project_spend();
    ProjectSummary {
        name: ctx.name.clone(),
        dir: ctx.dir.clone(),
        conversations: real.len(),
        branches: real.iter().map(|c| c.branches.len()).sum(),
        forks: real.iter().map(|c| c.fork_points.len()).sum(),
        messages: real.iter().map(|c| u64::from(c.messages)).sum(),
        last_ts: real.iter().map(|c| c.last_ts).chain(recovered.iter().map(|s| s.last_ts())).max().unwrap_or(0),
        recovered: recovered.len(),
        tokens: spend.tokens,
        cost: spend.cost,
        pages,
        agent: ctx.project.source.client.product().into(),
        agent_order: ctx.project.source.client.index(),
        agents: ctx.graph().agents.len(),
        fragments: ctx.graph().conversations.len() - real.len(),
    }
}

//! Render stage: a loaded project → the bytes of its pages and images.
//!
//! Owns everything HTML: pages ([`pages`], `templates/`), messages and
//! tools as typed views ([`message`], [`tools`], [`blocks`], each written by
//! its template), HTML as a type and the streaming transforms ([`html`]:
//! Markdown, highlighting, diffs, ANSI), images ([`images`]), the search
//! index ([`search`]) and the URL contract ([`urls`]).
//!
//! [`render_project`] is a pure function of the project, its [`Placement`]
//! and the [`RenderOptions`]: it never sees the command line or the file
//! system, and hands every page and image to the [`Sink`] the build passes
//! in (`crate::build`, which writes them, re-uses unchanged ones and keeps
//! the counts). The pages of a project are rendered in parallel. Output
//! depends only on the input: no timestamps of the run, no hash-map order.

pub mod archive;
pub mod assets;
pub mod blocks;
pub mod context;
pub mod export;
pub mod forks;
pub mod groups;
pub mod html;
pub mod images;
pub mod layout;
pub mod listing;
pub mod map;
pub mod message;
pub mod outline;
pub mod page;
pub mod pages;
pub mod redaction;
pub mod search;
pub mod sitemap;
pub mod text;
pub mod tools;
pub mod transcript;
pub mod urls;

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use askama::Template;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::graph::Conversation;
use crate::project::Project;

use context::{InputPaths, PageWarnings, ProjectCtx, TrackId};
use images::ImageStore;
use pages::TrackEntry;
use redaction::{RedactionSite, Redactor};
use search::{PageIndex, ProjectSearch, Units};

/// What shapes every page besides the input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// Counted turns per page.
    pub page_size: u32,
    /// `--redact`: replace secrets in every string that is not an entry line
    /// (entry lines are redacted when parsed; [`redaction`]).
    pub redact: bool,
    /// `--show-paths`: absolute input paths on pages ([`context::InputPaths`]).
    pub show_paths: bool,
    /// `--base-url`: where the site is published; every page names its
    /// absolute URL there (`<link rel="canonical">`).
    pub base_url: Option<urls::BaseUrl>,
}

impl RenderOptions {
    /// The absolute URL of the page `rel` under `--base-url`, if given.
    pub fn canonical(&self, rel: &str) -> Option<urls::Href> {
        self.base_url.as_ref().map(|b| b.page(rel))
    }
}

/// Where a project is published and what its pages depend on besides the
/// project, as the build knows it.
#[derive(Debug, Clone, Default)]
pub struct Placement<'a> {
    /// The project's directory in the site (see [`urls::project_slugs`]).
    pub slug: &'a str,
    /// The `--projects` argument of the fork commands on its pages
    /// ([`crate::fork::lookup`]).
    pub fork_projects: Option<String>,
    /// The base of its page-group keys ([`groups`]): renderer, settings and
    /// side files, which every page depends on.
    pub key_base: String,
    /// The working directory pages name the project by: the whole project's
    /// ([`Project::cwd`]), also when only part of it is rendered
    /// ([`crate::select`]), so its pages read the same whatever is selected.
    /// `None`: the project's directory name.
    pub cwd: Option<String>,
}

/// Where render puts what it makes. The build implements it; render never
/// touches the file system.
pub trait Sink: Sync {
    /// Puts back the previous render's page at `rel`, unrendered, when it
    /// had the same `page` key ([`groups::Groups::page_key`]; `None`: when
    /// its page group had the key `group`), and records it with `group`
    /// (its key: `<group>:<page>`). `false`: render it.
    fn reuse_page(&self, rel: &str, group: &str, page: Option<&str>) -> Result<bool>;
    /// Whether the previous render wrote the page at `rel` in a page group
    /// whose key was `group` (its key starts with it: `<group>:<page>`).
    fn had_group(&self, rel: &str, group: &str) -> bool;
    /// A page of the site at `rel`; `key` is its page group's (empty for a
    /// page rendered every time).
    fn page(&self, rel: &str, html: &[u8], key: &str) -> Result<()>;
    /// An image shown at `assets/img/<name>` (named by its content: the same
    /// name always comes with the same bytes).
    fn image(&self, name: &str, bytes: &[u8]) -> Result<()>;
}

/// What a project shows on the archive index (and what the cache keeps of it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectSummary {
    pub name: String,
    /// Its directory in the site (`<slug>/`).
    pub dir: String,
    pub conversations: usize,
    pub branches: usize,
    pub forks: usize,
    pub messages: u64,
    pub last_ts: i64,
    /// Tokens of every assistant turn of the project (sub-agents too).
    #[serde(default)]
    pub tokens: text::Tokens,
    /// Pages of the project.
    pub pages: usize,
}

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
    let index = listing::ProjectIndex::new(&ctx);
    let index_pages = (0..index.pages())
        .into_par_iter()
        .map(|p| {
            let path = listing::ProjectIndex::path(&ctx, p);
            let mut page = index.page(&ctx, p);
            page.root = page.root.with_canonical(opts.canonical(&path));
            out.page(&path, page.render()?.as_bytes(), "")?;
            Ok(path)
        })
        .collect::<Result<Vec<String>>>()?;
    tracing::debug!("{name}: project index ({} pages) in {:.3} s", index_pages.len(), t0.elapsed().as_secs_f64());
    let t0 = std::time::Instant::now();
    let fork_jobs: Vec<(crate::graph::NodeId, u32)> =
        forks::lists(&ctx).into_iter().flat_map(|(f, pages)| (0..pages).map(move |p| (f, p))).collect();
    let fork_pages = fork_jobs
        .into_par_iter()
        .filter_map(|(fork, p)| Some((forks::path(&ctx, fork, p), forks::page(&ctx, fork, p)?)))
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
        jobs.extend((0..pages).map(|p| (track, p, format!("{}{}", ctx.track_dir(track), urls::page_file(p)))));
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
            let mut view = transcript::track_page(ctx, *track, *page);
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
        tokens: listing::project_tokens(ctx),
        pages,
    }
}

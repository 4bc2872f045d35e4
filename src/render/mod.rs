//! Render stage: the model of each project → a static website.
//!
//! Owns everything HTML: pages ([`pages`], `templates/`), message and tool
//! rendering ([`message`], [`tools`], [`blocks`]), Markdown ([`markdown`]),
//! highlighting ([`highlight`]), ANSI ([`ansi`]), images ([`images`]), the
//! search index ([`search`]) and the URL contract ([`site`]). Projects are
//! rendered one at a time; the pages of a project in parallel. Output depends
//! only on the input: no timestamps of the run, no hash-map order.

pub mod ansi;
pub mod assets;
pub mod blocks;
pub mod context;
pub mod diff;
pub mod highlight;
pub mod html;
pub mod images;
pub mod layout;
pub mod listing;
pub mod markdown;
pub mod message;
pub mod outline;
pub mod pages;
pub mod project;
pub mod search;
pub mod site;
pub mod tools;

use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use askama::Template;

use crate::cli::RenderArgs;
use crate::discover::{self, Archive};
use crate::run::{Outcome, for_each_project};

use images::ImageStore;
use pages::{IndexPage, ProjectRow};

/// Marks a directory as written by cctree (so it may be written again).
const MARKER: &str = ".cctree-site";

/// Settings of one render.
#[derive(Debug, Clone)]
pub struct RenderOptions {
    pub output: PathBuf,
    /// Counted turns per page.
    pub page_size: u32,
}

/// What a render produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderSummary {
    pub projects: usize,
    pub conversations: usize,
    pub branches: usize,
    pub pages: usize,
    pub images: usize,
    /// Line warnings while reading plus problems met while rendering.
    pub warnings: usize,
    pub elapsed: Duration,
}

impl std::fmt::Display for RenderSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "rendered {} projects, {} conversations, {} branches: {} pages, {} images, {} warnings in {:.2} s",
            self.projects,
            self.conversations,
            self.branches,
            self.pages,
            self.images,
            self.warnings,
            self.elapsed.as_secs_f64()
        )
    }
}

/// Shared state of one render.
pub struct Site {
    pub out: PathBuf,
    pub page_size: u32,
    pub images: ImageStore,
    pub warnings: AtomicUsize,
}

/// `cctree render` (and plain `cctree`): renders, prints the summary line.
pub fn run(args: &RenderArgs, quiet: bool) -> Result<Outcome> {
    let archive = discover::discover(&args.input)?;
    let summary = render_archive(archive, &RenderOptions { output: args.output.clone(), page_size: args.page_size })?;
    if !quiet {
        eprintln!("{summary} → {}", args.output.join("index.html").display());
    }
    Ok(Outcome::Clean)
}

/// Renders a discovered archive into `opts.output`.
pub fn render_archive(archive: Archive, opts: &RenderOptions) -> Result<RenderSummary> {
    let start = Instant::now();
    check_paths(&archive, &opts.output)?;
    prepare_output(&opts.output)?;
    let site = Site {
        out: opts.output.clone(),
        page_size: opts.page_size.max(1),
        images: ImageStore::new(&opts.output),
        warnings: AtomicUsize::new(0),
    };
    for (path, body) in assets::ASSETS {
        write_file(&site.out, path, body.as_bytes())?;
    }
    let names: Vec<&str> = archive.projects.iter().map(|p| p.name.as_str()).collect();
    let slugs = site::project_slugs(&names);
    let mut outputs = Vec::new();
    let mut line_warnings = 0;
    let mut i = 0;
    for_each_project(archive, |p| {
        line_warnings += p.warnings.len();
        outputs.push(project::render_project(&p, &slugs[i], &site)?);
        i += 1;
        Ok(())
    })?;
    let mut summary = RenderSummary {
        projects: outputs.len(),
        conversations: outputs.iter().map(|o| o.conversations).sum(),
        branches: outputs.iter().map(|o| o.branches).sum(),
        pages: outputs.iter().map(|o| o.pages).sum::<usize>() + 1,
        images: site.images.count(),
        warnings: line_warnings + site.warnings.load(Ordering::Relaxed),
        elapsed: Duration::ZERO,
    };
    let search: Vec<&search::SearchEntry> = outputs.iter().flat_map(|o| &o.search).collect();
    let search_owned: Vec<search::SearchEntry> = search.into_iter().cloned().collect();
    write_file(&site.out, "search-index.js", search::script(&search_owned).as_bytes())?;
    write_file(&site.out, "index.html", index_page(&outputs, &summary).render()?.as_bytes())?;
    summary.elapsed = start.elapsed();
    Ok(summary)
}

fn index_page(outputs: &[project::ProjectOutput], s: &RenderSummary) -> IndexPage {
    let mut projects: Vec<ProjectRow> = outputs
        .iter()
        .map(|o| ProjectRow {
            name: o.name.clone(),
            href: format!("{}index.html", o.dir),
            conversations: o.conversations,
            forks: o.forks,
            messages: o.messages,
            last_ts: o.last_ts,
            last_html: html::time_html(o.last_ts),
        })
        .collect();
    projects.sort_by(|a, b| b.last_ts.cmp(&a.last_ts).then_with(|| a.href.cmp(&b.href)));
    let forks: usize = outputs.iter().map(|o| o.forks).sum();
    IndexPage {
        root: String::new(),
        title: "Archive".into(),
        crumbs: Vec::new(),
        totals: format!(
            "{} projects · {} conversations · {} branches · {} forks",
            s.projects, s.conversations, s.branches, forks
        ),
        projects,
    }
}

/// Writes `rel` (a `/`-separated path of sanitized segments) under `out`.
pub fn write_file(out: &Path, rel: &str, bytes: &[u8]) -> Result<()> {
    let rel_path = Path::new(rel);
    if rel_path.components().any(|c| !matches!(c, Component::Normal(_))) {
        bail!("refusing to write outside the output directory: {rel}");
    }
    let path = out.join(rel_path);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))
}

/// An absolute, symlink-resolved form of `p`, even if it does not exist yet.
fn resolve(p: &Path) -> PathBuf {
    let abs = if p.is_absolute() { p.to_path_buf() } else { std::env::current_dir().unwrap_or_default().join(p) };
    let mut existing = abs.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(c) = existing.canonicalize() {
            let mut out = c;
            for r in rest.iter().rev() {
                out.push(r);
            }
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return abs,
        }
    }
}

/// Refuses an output directory inside the input, or the input inside it.
fn check_paths(archive: &Archive, output: &Path) -> Result<()> {
    let out = resolve(output);
    let mut inputs: Vec<PathBuf> = vec![resolve(&archive.root)];
    inputs.extend(archive.projects.iter().map(|p| resolve(&p.dir)));
    for input in &inputs {
        if out.starts_with(input) {
            bail!(
                "the output directory {} is inside the input {}; choose another -o",
                output.display(),
                input.display()
            );
        }
        if input.starts_with(&out) {
            bail!(
                "the input {} is inside the output directory {}; choose another -o",
                input.display(),
                output.display()
            );
        }
    }
    Ok(())
}

/// Creates the output directory; refuses a non-empty one that cctree did not write.
fn prepare_output(out: &Path) -> Result<()> {
    if out.exists() {
        if !out.is_dir() {
            bail!("the output {} exists and is not a directory", out.display());
        }
        let mut items = std::fs::read_dir(out).with_context(|| format!("reading {}", out.display()))?;
        if items.next().is_some() && !out.join(MARKER).exists() {
            bail!(
                "the output directory {} is not empty and was not written by cctree; choose another -o or empty it",
                out.display()
            );
        }
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    std::fs::write(out.join(MARKER), "This directory was generated by cctree and may be overwritten by it.\n")
        .with_context(|| format!("writing {}", out.join(MARKER).display()))
}

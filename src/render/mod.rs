//! Render stage: the model of each project → a static website.
//!
//! Owns everything HTML: pages ([`pages`], `templates/`), message and tool
//! rendering ([`message`], [`tools`], [`blocks`]), Markdown ([`markdown`]),
//! highlighting ([`highlight`]), ANSI ([`ansi`]), images ([`images`]), the
//! search index ([`search`]) and the URL contract ([`urls`]). Projects are
//! rendered one at a time; the pages of a project in parallel. Output depends
//! only on the input: no timestamps of the run, no hash-map order.

pub mod ansi;
pub mod assets;
pub mod blocks;
pub mod cache;
pub mod context;
pub mod diff;
pub mod groups;
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
pub mod redaction;
pub mod search;
pub mod tools;
pub mod urls;
pub mod write;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use context::PageWarnings;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use askama::Template;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::cli::RenderArgs;
use crate::discover::{self, Archive};
use crate::project::{LoadCounts, Project};
use crate::run::Outcome;

use cache::{FileRecord, Manifest, OutputRecord, ProjectRecord, SearchRecord};
use images::ImageStore;
use pages::{IndexPage, ProjectRow};
use redaction::{RedactionSite, Redactor};

pub use write::MARKER;

/// Settings of one render.
#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    pub output: PathBuf,
    /// Counted turns per page.
    pub page_size: u32,
    /// Ignore the cache of the previous render: parse and write everything.
    pub force: bool,
    /// `--redact`: replace secrets in everything written ([`crate::redact`], [`redaction`]).
    pub redact: bool,
    /// `--show-paths`: absolute input paths on pages ([`context::InputPaths`]).
    pub show_paths: bool,
}

impl RenderOptions {
    /// What shapes the pages besides the input (the cache is valid only for
    /// the same settings): every option but the output and `force`.
    fn settings(&self) -> String {
        format!("{:?}", RenderOptions { output: PathBuf::new(), force: false, ..self.clone() })
    }

    fn parse_options(&self) -> crate::parse::ParseOptions {
        crate::parse::ParseOptions { redact: self.redact }
    }
}

/// What a render produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderSummary {
    pub projects: usize,
    pub conversations: usize,
    pub branches: usize,
    pub pages: usize,
    pub images: usize,
    /// Warnings printed: about the input (unreadable files and lines,
    /// unknown entry types, problems walking directories), problems met
    /// rendering pages, and images missing from a previous site.
    pub warnings: usize,
    /// Files of the site written, and files linked unchanged from the previous
    /// render (all files: pages, images, assets, indexes, cache).
    pub files_written: usize,
    pub files_reused: usize,
    /// Projects re-used whole (not even read).
    pub projects_reused: usize,
    /// Branch and agent pages rendered (the others were linked unrendered).
    pub pages_rendered: usize,
    /// Transcript files: parsed in full, parsed past their old end, unchanged.
    pub load: LoadCounts,
    pub elapsed: Duration,
    /// `--redact` was on.
    pub redact: bool,
    /// Where secrets were replaced in what this render read, in report order.
    pub redactions: Vec<RedactionSite>,
}

impl RenderSummary {
    /// Secrets replaced in all.
    pub fn redacted(&self) -> usize {
        self.redactions.iter().map(RedactionSite::count).sum()
    }
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
        )?;
        if self.files_reused > 0 || self.projects_reused > 0 {
            write!(
                f,
                " ({} files written, {} unchanged; {} of {} projects unchanged)",
                self.files_written, self.files_reused, self.projects_reused, self.projects
            )?;
        }
        if self.redact {
            write!(f, ", {} secrets redacted", self.redacted())?;
        }
        Ok(())
    }
}

/// Shared state of one render.
pub struct Site {
    /// The directory the site is built in (a temporary sibling of the output).
    pub out: PathBuf,
    pub page_size: u32,
    pub images: ImageStore,
    pub warnings: PageWarnings,
    stage: write::Stage,
    /// Files of the previous site by path.
    prev: FxHashMap<String, FileRecord>,
    /// Renderer fingerprint and settings (for page-group keys).
    code: &'static str,
    settings: String,
    rendered: AtomicUsize,
    /// `--redact` for strings that are not entry lines.
    pub redactor: Redactor,
}

impl Site {
    /// Puts a file into the site: linked from the previous site when its
    /// bytes are the same, written otherwise.
    pub fn emit(&self, rel: &str, bytes: &[u8]) -> Result<FileRecord> {
        self.emit_keyed(rel, bytes, "")
    }

    /// [`Site::emit`] for a page of a page group with `key` ([`groups`]).
    pub fn emit_keyed(&self, rel: &str, bytes: &[u8], key: &str) -> Result<FileRecord> {
        if !key.is_empty() {
            self.rendered.fetch_add(1, Ordering::Relaxed);
        }
        let hash = cache::content_hash(bytes);
        let same = self.prev.get(rel).is_some_and(|r| r.hash == hash);
        if !(same && self.stage.reuse(rel)?) {
            self.stage.write(rel, bytes)?;
        }
        Ok(FileRecord {
            path: rel.to_string(),
            hash,
            images: cache::images_in(bytes),
            key: key.to_string(),
            warnings: Vec::new(),
        })
    }

    /// The previous render's page at `rel`, linked without rendering, when
    /// its page group had the same key.
    pub fn reuse_page(&self, rel: &str, key: &str) -> Result<Option<FileRecord>> {
        match self.prev.get(rel) {
            Some(r) if !key.is_empty() && r.key == key && self.stage.reuse(rel)? => Ok(Some(r.clone())),
            _ => Ok(None),
        }
    }

    /// The base of the page-group keys of a project.
    pub fn pages_base(&self, source: &crate::discover::ProjectSource, slug: &str) -> String {
        cache::pages_base(source, slug, self.code, &self.settings)
    }
}

/// `cctree render` (and plain `cctree`): renders, prints the summary line.
pub fn run(args: &RenderArgs, quiet: bool) -> Result<Outcome> {
    let archive = discover::discover(&args.input)?;
    crate::run::report_archive_warnings(&archive);
    let outside_projects = archive.warnings.len();
    let opts = RenderOptions {
        output: args.output.clone(),
        page_size: args.page_size,
        force: args.force,
        redact: args.redact,
        show_paths: args.show_paths,
    };
    let mut summary = render_archive(archive, &opts)?;
    summary.warnings += outside_projects;
    if !quiet {
        redaction::report(&summary.redactions);
        let index = args.output.join("index.html");
        crate::term::print_err(&format!("{summary} → {}\n", crate::term::safe(index.display())));
        if !args.redact {
            crate::term::print_err(
                "hint: before publishing the site, render it with --redact to replace API keys, tokens and passwords\n",
            );
        }
    }
    Ok(Outcome::Clean)
}

/// Renders a discovered archive into `opts.output`: built beside it and
/// swapped in ([`write`]), re-using what the previous render left there when
/// it is still valid ([`cache`]). The result is the same as a fresh render.
pub fn render_archive(archive: Archive, opts: &RenderOptions) -> Result<RenderSummary> {
    let start = Instant::now();
    check_paths(&archive, &opts.output)?;
    let output = write::Output::prepare(&opts.output)?;
    let code = cache::code_fingerprint();
    let settings = opts.settings();
    let old = if opts.force || !output.has_site { None } else { Manifest::load(&opts.output, code, &settings) };
    // Directory names are not entry lines: redacted before they become slugs.
    let redactor = Redactor::new(opts.redact);
    let names: Vec<String> =
        archive.projects.iter().map(|p| redactor.text(|| p.dir.display().to_string(), &p.name).into_owned()).collect();
    let slugs = urls::project_slugs(&names);
    let mut redactions = redactor.take();
    let sources: Vec<String> = archive.projects.iter().map(cache::source_id).collect();
    // How fork commands on its pages name where a project is (a page depends on it).
    let fork_args: Vec<Option<String>> = archive
        .projects
        .iter()
        .map(|p| crate::fork::lookup::projects_arg(&p.dir, &archive.root, opts.show_paths))
        .collect();
    let keys: Vec<String> = archive
        .projects
        .iter()
        .zip(&slugs)
        .zip(&fork_args)
        .map(|((p, s), f)| cache::project_key(p, s, code, &format!("{settings}\0{}", f.as_deref().unwrap_or(""))))
        .collect();
    let prev_projects: FxHashMap<&str, &ProjectRecord> =
        old.iter().flat_map(|m| &m.projects).map(|r| (r.source.as_str(), r)).collect();
    let unchanged =
        |i: usize| prev_projects.get(sources[i].as_str()).filter(|r| r.key == keys[i] && r.slug == slugs[i]);

    // Nothing changed: the previous site stands as it is.
    if let Some(m) = &old {
        let all =
            m.projects.len() == archive.projects.len() && (0..archive.projects.len()).all(|i| unchanged(i).is_some());
        if all && opts.output.join("index.html").is_file() {
            let hidden = indicatif::ProgressBar::hidden();
            let mut walk_warnings = output.warned();
            for (source, r) in archive.projects.iter().zip(&m.projects) {
                walk_warnings += print_warnings(source, None, &opts.output, &hidden);
                print_warnings(source, Some(r), &opts.output, &hidden);
            }
            let mut summary = summarize(m);
            summary.warnings += walk_warnings;
            summary.files_reused = m.files.len() + m.projects.iter().map(|p| p.pages.len()).sum::<usize>();
            summary.projects_reused = m.projects.len();
            summary.load.files_reused = m.projects.iter().map(|p| p.files).sum();
            summary.elapsed = start.elapsed();
            return Ok(summary);
        }
    }

    let stage = output.begin()?;
    let prev: FxHashMap<String, FileRecord> = old
        .iter()
        .flat_map(|m| m.files.iter().chain(m.projects.iter().flat_map(|p| &p.pages)))
        .map(|f| (f.path.clone(), f.clone()))
        .collect();
    let site = Site {
        out: stage.dir.clone(),
        page_size: opts.page_size.max(1),
        images: ImageStore::new(&stage.dir),
        warnings: PageWarnings::default(),
        stage,
        prev,
        code,
        settings: settings.clone(),
        rendered: AtomicUsize::new(0),
        redactor,
    };
    let mut manifest = Manifest::new(code, &settings);
    for (path, body) in assets::ASSETS {
        manifest.files.push(site.emit(path, body.as_bytes())?);
    }
    let mut load = LoadCounts::default();
    let mut projects_reused = 0;
    let mut site_warnings = 0;
    let progress = crate::run::crate_progress(archive.projects.len() as u64);
    for (i, source) in archive.projects.into_iter().enumerate() {
        site_warnings += print_warnings(&source, None, &opts.output, &progress);
        progress.set_message(crate::term::escape(&source.name).into_owned());
        if let Some(r) = unchanged(i) {
            if reuse_project(&site, r)? {
                print_warnings(&source, Some(r), &opts.output, &progress);
                manifest.projects.push((*r).clone());
                load.files_reused += r.files;
                projects_reused += 1;
                progress.inc(1);
                continue;
            }
        }
        let parse_rel = cache::parse_cache_path(&sources[i]);
        let resume = match prev_projects.get(sources[i].as_str()) {
            Some(r) if !r.parse.is_empty() => cache::load_parse_cache(&opts.output, &r.parse, code, &settings, &source),
            _ => Vec::new(),
        };
        if opts.redact {
            redactions.extend(redaction::agent_meta(&source));
        }
        let t0 = Instant::now();
        let (p, heads, counts) = Project::load_resuming(source, opts.parse_options(), resume);
        tracing::debug!("{}: loaded in {:.3} s ({counts:?})", p.source.name, t0.elapsed().as_secs_f64());
        redactions.extend(redaction::entry_lines(&p));
        load.add(counts);
        let warnings = crate::run::report_line_warnings(&p, &progress);
        let paths = context::InputPaths { show: opts.show_paths, fork_projects: fork_args[i].clone() };
        let out = project::render_project(&p, &slugs[i], &site, paths)?;
        print_page_warnings(&out.files, &opts.output, &progress);
        let t0 = Instant::now();
        cache::save_parse_cache(&site.stage, &parse_rel, code, &settings, &p, &heads)?;
        tracing::debug!("{}: parse cache saved in {:.3} s", p.source.name, t0.elapsed().as_secs_f64());
        manifest.projects.push(ProjectRecord {
            source: sources[i].clone(),
            slug: slugs[i].clone(),
            key: keys[i].clone(),
            parse: parse_rel,
            warnings,
            files: p.source.files.len(),
            output: out.record,
            pages: out.files,
        });
        progress.inc(1);
    }
    progress.finish_and_clear();
    // Images shown by pages linked from the previous site (written ones are there).
    let images: FxHashSet<&str> =
        manifest.projects.iter().flat_map(|p| &p.pages).flat_map(|f| &f.images).map(String::as_str).collect();
    let mut images: Vec<&str> = images.into_iter().collect();
    images.sort_unstable();
    for name in &images {
        let rel = format!("assets/img/{name}");
        if !site.stage.has(&rel) && !site.stage.reuse(&rel)? {
            site_warnings += 1;
            tracing::warn!("image {rel} is missing from the previous site; render with --force to rebuild it");
        }
    }
    let mut summary = summarize(&manifest);
    summary.warnings += site_warnings;
    let search: Vec<search::SearchEntry> =
        manifest.projects.iter().flat_map(|p| &p.output.search).map(SearchRecord::to_entry).collect();
    manifest.files.push(site.emit("search-index.js", search::script(&search).as_bytes())?);
    let outputs: Vec<&OutputRecord> = manifest.projects.iter().map(|p| &p.output).collect();
    manifest.files.push(site.emit("index.html", index_page(&outputs, &summary).render()?.as_bytes())?);
    let ownership = write::Ownership { written: cache::written_files(&opts.output) };
    site.stage.carry_over(&ownership)?;
    manifest.save(&site.stage)?;
    let (written, reused) = site.stage.counts();
    tracing::debug!("site built in {:.3} s", start.elapsed().as_secs_f64());
    output.commit(site.stage)?;
    tracing::debug!("swapped in (previous site removed) after {:.3} s", start.elapsed().as_secs_f64());
    summary.warnings += output.warned();
    summary.files_written = written;
    summary.files_reused = reused;
    summary.projects_reused = projects_reused;
    summary.pages_rendered = site.rendered.load(Ordering::Relaxed);
    summary.load = load;
    summary.redact = opts.redact;
    redactions.extend(site.redactor.take());
    summary.redactions = redactions;
    summary.elapsed = start.elapsed();
    Ok(summary)
}

/// Links every file of an unchanged project from the previous site. `false`
/// (and the project is rendered) when one is missing there.
fn reuse_project(site: &Site, r: &ProjectRecord) -> Result<bool> {
    use rayon::prelude::*;
    let parse = (!r.parse.is_empty()).then_some(&r.parse);
    let all = r
        .pages
        .par_iter()
        .map(|f| &f.path)
        .chain(parse.into_par_iter())
        .map(|p| site.stage.reuse(p))
        .collect::<Result<Vec<bool>>>()?;
    Ok(all.into_iter().all(|ok| ok))
}

/// Prints the warnings of a project: with no record, those met walking its
/// directory (found afresh every run); with the record of a project re-used
/// from the previous site, those its render met. Returns how many.
fn print_warnings(
    source: &crate::discover::ProjectSource,
    record: Option<&ProjectRecord>,
    output: &Path,
    progress: &indicatif::ProgressBar,
) -> usize {
    let Some(r) = record else {
        for w in &source.warnings {
            progress.suspend(|| tracing::warn!("{w}"));
        }
        return source.warnings.len();
    };
    crate::run::print_warnings(&source.dir, &r.warnings, progress);
    r.warnings.len() + print_page_warnings(&r.pages, output, progress)
}

/// Prints the problems met rendering pages, each with the page's path.
fn print_page_warnings(pages: &[FileRecord], output: &Path, progress: &indicatif::ProgressBar) -> usize {
    let mut n = 0;
    for f in pages {
        for w in &f.warnings {
            progress.suspend(|| tracing::warn!("{}: {w}", output.join(&f.path).display()));
            n += 1;
        }
    }
    n
}

/// The totals of a site from its manifest.
fn summarize(m: &Manifest) -> RenderSummary {
    let images: FxHashSet<&str> =
        m.projects.iter().flat_map(|p| &p.pages).flat_map(|f| &f.images).map(String::as_str).collect();
    RenderSummary {
        projects: m.projects.len(),
        conversations: m.projects.iter().map(|p| p.output.conversations).sum(),
        branches: m.projects.iter().map(|p| p.output.branches).sum(),
        pages: m.projects.iter().map(|p| p.output.pages).sum::<usize>() + 1,
        images: images.len(),
        warnings: m
            .projects
            .iter()
            .map(|p| p.warnings.len() + p.pages.iter().map(|f| f.warnings.len()).sum::<usize>())
            .sum(),
        ..RenderSummary::default()
    }
}

fn index_page(outputs: &[&OutputRecord], s: &RenderSummary) -> IndexPage {
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

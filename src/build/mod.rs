//! Build stage: the `render` command's pipeline, and the only stage that
//! touches the output directory. It reads like a table of contents
//! ([`build`]):
//!
//! 1. plan what the cache lets us re-use (`reusable.rs`, [`crate::cache`]);
//! 2. for each project: load it (resuming from its parse cache), keep what
//!    the selection selects of it (`select::Selection::pick`), render that
//!    (`render::render_project`, handed an `emit::ProjectSink`), emit its
//!    pages and images, record it for the next manifest — or, when its key is
//!    unchanged, link its files from the previous site unread;
//! 3. the archive-wide files: images of re-used pages, the search index, the
//!    archive index, the user's own files carried over, the manifest;
//! 4. commit: the new site swapped in for the previous one ([`output`]).
//!
//! The result is the same as a fresh render, byte for byte
//! (`tests/integration/incremental.rs`).

mod emit;
pub mod file;
mod kept;
pub mod output;
mod reusable;
mod summary;

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};

use crate::cache::parse::LoadCounts;
use crate::cache::{self, Manifest, OutputRecord, ProjectRecord};
use crate::digest::UnitEntry;
use crate::discover::Archive;
use crate::driver::{self, Progress};
use crate::model::ProjectSource;
use crate::render::search::{IndexBuilder, Previous};
use crate::render::site::redactor::{self, RedactionSite, Redactor};
use crate::render::{self, Placement, RenderOptions};
use crate::select::{Selection, Tally};

use emit::{ProjectSink, SiteWriter};
use kept::KeptInputs;

/// The sessions only the prompt history holds (transcript deleted by the
/// client's cleanup), as the build finds them: for `cctree stats`.
#[derive(Debug, Default)]
pub struct Recovery(KeptInputs);

impl Recovery {
    /// Reads the prompt logs of `archive`'s agents (and the sync record);
    /// returns the warnings met.
    pub fn read(archive: &Archive) -> (Recovery, Vec<String>) {
        let (k, w) = KeptInputs::read(archive);
        (Recovery(k), w)
    }

    /// Adds the projects the prompt logs name that hold no transcript.
    pub fn add_projects(&self, archive: &mut Archive) {
        self.0.add_history_projects(archive);
    }

    /// The recovered sessions of `project`.
    pub fn sessions(&self, project: &crate::project::Project) -> Vec<crate::model::RecoveredSession> {
        self.0.recovered(project)
    }

    /// The prompt logs read (none: no agent's log is beside the input).
    pub fn logs(&self) -> &[std::path::PathBuf] {
        self.0.logs()
    }
}

/// The prompt logs a build of `archive` reads (what `serve` watches besides
/// the inputs).
pub fn prompt_logs(archive: &Archive) -> Vec<std::path::PathBuf> {
    kept::prompt_logs(archive).into_iter().map(|(_, l)| l.path).collect()
}
use output::OutputDir;
use reusable::Plan;

pub use output::{MARKER, OutputError};
pub use summary::BuildSummary;

/// Settings of one build (`cctree render`).
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    pub output: PathBuf,
    /// Counted turns per page.
    pub page_size: u32,
    /// Ignore the cache of the previous render: parse and write everything.
    pub force: bool,
    /// `--redact`: replace secrets in everything written ([`crate::redact`]).
    pub redact: bool,
    /// `--show-paths`: absolute input paths on pages.
    pub show_paths: bool,
    /// What of the archive is rendered (`--project`, `--conversation`, …).
    pub selection: Selection,
    /// `--base-url`: where the site is published (canonical links).
    pub base_url: Option<crate::render::site::urls::BaseUrl>,
    /// `--sitemap`: write `sitemap.xml` and `robots.txt` (needs `base_url`).
    pub sitemap: bool,
    /// Draw the progress bar (on a terminal; not with `-q`).
    pub progress: bool,
    /// `--prices`: the price table (default: the bundled one).
    pub prices: crate::cost::PriceTable,
}

impl BuildOptions {
    /// What shapes the pages besides the input.
    pub fn render_options(&self) -> RenderOptions {
        RenderOptions {
            page_size: self.page_size.max(1),
            redact: self.redact,
            show_paths: self.show_paths,
            base_url: self.base_url.clone(),
            prices: self.prices.clone(),
        }
    }

    /// The settings a cache is valid for: every option but the output and `force`.
    fn settings(&self) -> String {
        // The user's redaction rules (`--redact-file`, home, name) shape every page too.
        let rules = if self.redact { crate::redact::fingerprint() } else { String::new() };
        format!("{:?}{rules}", self.render_options())
    }

    fn parse_options(&self) -> crate::parse::ParseOptions {
        crate::parse::ParseOptions { redact: self.redact }
    }
}

/// Renders a discovered archive into `opts.output`: built beside it and
/// swapped in, re-using what the previous render left there when it is still
/// valid. Prints every warning; the summary counts them.
pub fn build(mut archive: Archive, opts: &BuildOptions) -> Result<BuildSummary> {
    let start = Instant::now();
    let mut outside = driver::archive_warnings(&archive);
    // The prompt history and the sync record: what is known beyond the transcripts.
    let (kept, history_warnings) = KeptInputs::read(&archive);
    for w in &history_warnings {
        tracing::warn!("{w}");
    }
    outside += history_warnings.len();
    kept.add_history_projects(&mut archive);
    // `--redact` before the plan: its slugs and the index are made of the names.
    if opts.redact {
        archive.projects.iter_mut().for_each(crate::project::redact_names);
    }
    // What was read: directories read whole, files given alone (not their directories).
    output::check_apart(&opts.output, archive.inputs.iter().map(PathBuf::as_path))?;
    let out = OutputDir::prepare(&opts.output)?;
    let plan = Plan::new(&archive, opts, out.has_site, &|p| kept.fingerprint(p));
    tracing::debug!("planned after {:.3} s", start.elapsed().as_secs_f64());
    if let Some(previous) = plan.nothing_changed().filter(|_| opts.output.join("index.html").is_file()) {
        return Ok(unchanged_site(&archive, &plan, previous, &out, opts, outside, start));
    }

    let mut b = Builder::begin(&plan, opts, &out, &kept)?;
    b.emit_assets()?;
    let progress = Progress::projects(archive.projects.len(), opts.progress);
    driver::each_project(archive.projects, &progress, |i, source| b.add_project(i, source, &progress))?;
    tracing::debug!("projects done after {:.3} s", start.elapsed().as_secs_f64());
    opts.selection.finish(&b.tally)?;
    b.warnings += outside + plan.warnings;
    b.link_images()?;
    b.emit_search_index()?;
    b.emit_archive_index()?;
    b.emit_sitemap()?;
    tracing::debug!("archive files done after {:.3} s", start.elapsed().as_secs_f64());
    b.carry_over_user_files()?;
    tracing::debug!("user files carried after {:.3} s", start.elapsed().as_secs_f64());
    b.save_manifest()?;
    tracing::debug!("site built in {:.3} s", start.elapsed().as_secs_f64());
    let summary = b.commit(&out, start)?;
    tracing::debug!("swapped in (previous site removed) after {:.3} s", start.elapsed().as_secs_f64());
    Ok(summary)
}

/// Why `--sitemap` writes no `robots.txt`: the site is published under a
/// sub-path of its host, where crawlers never read one.
fn robots_note(opts: &BuildOptions) -> Option<String> {
    let base = opts.base_url.as_ref().filter(|b| opts.sitemap && !b.at_host_root())?;
    Some(format!(
        "robots.txt not written: crawlers read it only at the host's root, {}; to point them at the sitemap, \
         add `Sitemap: {}` to the robots.txt there",
        base.host_root("robots.txt"),
        base.page("sitemap.xml")
    ))
}

/// The previous site stands as it is: its warnings are printed again.
fn unchanged_site(
    archive: &Archive,
    plan: &Plan,
    previous: &Manifest,
    out: &OutputDir,
    opts: &BuildOptions,
    outside: usize,
    start: Instant,
) -> BuildSummary {
    let hidden = Progress::hidden();
    let mut walked = out.warned() + outside;
    for r in &previous.projects {
        let Some(source) = plan.project_of(r).map(|i| &archive.projects[i]) else { continue };
        walked += hidden.source_warnings(source);
        summary::record_warnings(&hidden, &source.dir, r, &opts.output);
    }
    let mut s = BuildSummary::of(previous);
    s.warnings += walked;
    s.files_reused = previous.files.len() + previous.projects.iter().map(|p| p.pages.len()).sum::<usize>();
    s.projects_reused = previous.projects.len();
    s.load.files_reused = previous.projects.iter().map(|p| p.files).sum();
    s.notes.extend(robots_note(opts));
    s.elapsed = start.elapsed();
    s
}

/// A build under way: the site being written and what it counted.
struct Builder<'p> {
    plan: &'p Plan,
    opts: &'p BuildOptions,
    site: SiteWriter,
    manifest: Manifest,
    load: LoadCounts,
    projects_reused: usize,
    pages_rendered: usize,
    compare_rendered: usize,
    /// Warnings printed that no record keeps (walking, missing images, outside any project).
    warnings: usize,
    /// Where `--redact` replaced secrets: names, sidecars and entry lines in
    /// the order met; then, by place, the strings render met.
    redactions: Vec<RedactionSite>,
    rendered_redactions: Redactor,
    /// What the selection matched so far.
    tally: Tally,
    /// Notes for the summary (not warnings: nothing is wrong with the input).
    notes: Vec<String>,
    /// The search index of the projects rendered so far.
    search: IndexBuilder,
    /// The previous site's search units, by key.
    previous_units: rustc_hash::FxHashMap<&'p str, &'p UnitEntry>,
    /// The prompt history and the sync record.
    kept: &'p KeptInputs,
}

impl<'p> Builder<'p> {
    fn begin(plan: &'p Plan, opts: &'p BuildOptions, out: &OutputDir, kept: &'p KeptInputs) -> Result<Builder<'p>> {
        // A previous site whose cache is valid is updated in place: only what changes is written.
        let stage = out.begin(plan.old.is_some())?;
        Ok(Builder {
            plan,
            opts,
            site: SiteWriter::new(stage, plan.previous_files()),
            manifest: Manifest { input: plan.input.clone(), ..Manifest::new(plan.code, &plan.settings) },
            load: LoadCounts::default(),
            projects_reused: 0,
            pages_rendered: 0,
            compare_rendered: 0,
            warnings: 0,
            redactions: plan.redactions.clone(),
            rendered_redactions: Redactor::new(opts.redact),
            tally: Tally::default(),
            notes: Vec::new(),
            search: IndexBuilder::default(),
            previous_units: plan
                .old
                .iter()
                .flat_map(|m| &m.projects)
                .flat_map(|p| &p.output.search)
                .map(|u| (u.key.as_str(), u))
                .collect(),
            kept,
        })
    }

    fn emit_assets(&mut self) -> Result<()> {
        for (path, body) in render::site::assets::ASSETS {
            self.manifest.files.push(self.site.emit(path, body.as_bytes(), "")?);
        }
        Ok(())
    }

    /// Project `i`: linked from the previous site when unchanged (same
    /// files, same selection), else loaded, and what the selection selects of
    /// it rendered and recorded.
    fn add_project(&mut self, i: usize, source: ProjectSource, progress: &Progress) -> Result<()> {
        if !self.opts.selection.wants(&source) {
            return Ok(());
        }
        if let Some(r) = self.plan.unchanged(i) {
            let t0 = Instant::now();
            let linked = self.site.reuse_project(r)?;
            tracing::debug!("{}: {} files linked in {:.3} s", source.name, r.pages.len(), t0.elapsed().as_secs_f64());
            if linked {
                self.warnings += progress.source_warnings(&source);
                summary::record_warnings(progress, &source.dir, r, &self.opts.output);
                self.tally.reused(&r.matched);
                self.manifest.projects.push(r.clone());
                self.load.files_reused += r.files;
                self.projects_reused += 1;
                return Ok(());
            }
        }
        if let Some(record) = self.render_project(i, source, progress)? {
            self.manifest.projects.push(record);
        }
        Ok(())
    }

    /// Loads project `i` (resuming from its parse cache), keeps what the
    /// selection selects of it, renders that and, when it is the whole
    /// project, saves its parse cache; returns its record (`None`: nothing of
    /// it is selected).
    fn render_project(
        &mut self,
        i: usize,
        source: ProjectSource,
        progress: &Progress,
    ) -> Result<Option<ProjectRecord>> {
        let (plan, code, settings) = (&self.plan.projects[i], self.plan.code, &self.plan.settings);
        let previous = self.plan.previous(i).map_or(&[][..], |r| r.parse.as_slice());
        // Sidecars are redacted as they are loaded: where, from the originals.
        let agent_meta = self.opts.redact.then(|| source.agent_meta.clone());
        progress.reading(&source);
        let t0 = Instant::now();
        let (project, heads, books, counts) =
            cache::parse::resume(&self.opts.output, previous, code, settings, source, self.opts.parse_options());
        tracing::debug!("{}: loaded in {:.3} s ({counts:?})", project.source.name, t0.elapsed().as_secs_f64());
        self.load.add(counts);
        // Pages depend on the side files and the name of the whole project,
        // whatever is selected.
        let key_base = cache::pages_base(&project.source, &plan.slug, code, settings);
        let cwd = project.cwd().map(str::to_string).or_else(|| self.kept.path_of(&project.source));
        let recovered = self.kept.recovered(&project);
        let Some(picked) = self.opts.selection.pick(project, &mut self.tally) else { return Ok(None) };
        let whole = picked.is_whole();
        let mut project = picked.into_project();
        self.kept.apply(&mut project, recovered, &self.opts.selection);
        self.warnings += progress.source_warnings(&project.source);
        if let Some(mut originals) = agent_meta {
            originals.retain(|id, _| project.source.agent_meta.contains_key(id));
            let source = crate::model::ProjectSource { agent_meta: originals, ..project.source.clone() };
            self.redactions.extend(redactor::agent_meta(&source));
        }
        self.redactions.extend(redactor::entry_lines(&project));
        let warnings = progress.project_warnings(&project);

        let checkpoints = crate::agent::of(project.source.client).checkpoints();
        let at = Placement { slug: &plan.slug, fork_projects: plan.fork_projects.clone(), cwd, checkpoints };
        let sink = ProjectSink::new(&self.site, progress);
        let reuse = crate::reuse::Incremental::new(&sink, key_base);
        let out = render::render_project(&project, &at, &self.opts.render_options(), &sink, &reuse)?;
        self.pages_rendered += out.rendered;
        self.compare_rendered += out.compare_rendered;
        self.rendered_redactions.absorb(out.redactions);
        let pages = sink.into_records(&out.pages, out.warnings);
        self.search.text_read(out.search.text_bytes);
        let mut units: Vec<UnitEntry> =
            out.search.fresh.into_iter().map(|u| self.search.add(u)).collect::<Result<_>>()?;
        for key in &out.search.reused {
            let Some(u) = self.previous_units.get(key.as_str()) else {
                anyhow::bail!(
                    "the previous site's cache lacks the search entry of {key}, whose pages were re-used: render with --force"
                );
            };
            units.push((*u).clone());
        }
        summary::page_warnings(progress, &pages, &self.opts.output);

        // A part of a project keeps no parse cache: it would hold the rest.
        let mut parse = Vec::new();
        if whole {
            let t0 = Instant::now();
            let written;
            (parse, written) = books.save(&self.site.stage, &plan.source, code, settings, &project, &heads)?;
            tracing::debug!(
                "{}: parse caches saved in {:.3} s ({written} of {} written)",
                project.source.name,
                t0.elapsed().as_secs_f64(),
                parse.len()
            );
        }
        Ok(Some(ProjectRecord {
            source: plan.source.clone(),
            slug: plan.slug.clone(),
            key: plan.key.clone(),
            parse,
            warnings,
            files: project.source.files.len(),
            output: OutputRecord { summary: out.summary, search: units },
            pages,
            matched: self.opts.selection.matched_in(&project),
        }))
    }

    /// Links the images shown by pages linked from the previous site; one
    /// missing there is a warning.
    fn link_images(&mut self) -> Result<()> {
        let shown = self.manifest.projects.iter().flat_map(|p| &p.pages).flat_map(|f| &f.images);
        for rel in self.site.link_images(shown.map(String::as_str))? {
            self.warnings += 1;
            tracing::warn!("image {rel} is missing from the previous site; render with --force to rebuild it");
        }
        Ok(())
    }

    /// The search index (`search/`): the units rendered, and the others'
    /// postings as the previous render kept them; only the files that change
    /// are written.
    fn emit_search_index(&mut self) -> Result<()> {
        let t0 = Instant::now();
        let units: Vec<&UnitEntry> = self.manifest.projects.iter().flat_map(|p| &p.output.search).collect();
        let projects: Vec<(&str, &str)> = self
            .manifest
            .projects
            .iter()
            .map(|p| (p.output.summary.name.as_str(), p.output.summary.dir.as_str()))
            .collect();
        let site = &self.opts.output;
        let read = |rel: &str| {
            std::fs::read(site.join(rel)).with_context(|| {
                format!("reading {rel} of the previous site's search index (render with --force to rebuild it)")
            })
        };
        let previous = self.plan.old.as_ref().map(|m| Previous {
            units: m.projects.iter().flat_map(|p| &p.output.search).collect(),
            files: m.files.iter().map(|f| f.path.as_str()).collect(),
            read: &read,
        });
        let files = std::mem::take(&mut self.search).finish(&units, &projects, previous)?;
        let (count, kept, mut size) = (files.write.len() + files.write_bytes.len(), files.keep.len(), 0);
        for path in &files.keep {
            let Some(record) = self.site.keep(path)? else {
                anyhow::bail!("{path} is missing from the previous site: render with --force to rebuild it");
            };
            self.manifest.files.push(record);
        }
        let written = files.write.into_iter().map(|(p, s)| (p, s.into_bytes())).chain(files.write_bytes);
        for (path, bytes) in written {
            size += bytes.len();
            let record = self.site.emit(&path, &bytes, "")?;
            self.manifest.files.push(record);
        }
        tracing::debug!(
            "search index ({}): {count} files of {size} bytes made, {kept} kept, in {:.3} s",
            files.how,
            t0.elapsed().as_secs_f64()
        );
        Ok(())
    }

    fn emit_archive_index(&mut self) -> Result<()> {
        let projects: Vec<&crate::digest::ProjectSummary> =
            self.manifest.projects.iter().map(|p| &p.output.summary).collect();
        let html = render::pages::archive_index::index_html(&projects, &self.opts.render_options())?;
        self.manifest.files.push(self.site.emit("index.html", html.as_bytes(), "")?);
        Ok(())
    }

    /// `sitemap.xml` (every page of the site) with `--sitemap`, and
    /// `robots.txt` when the site is its host's root: crawlers read it
    /// nowhere else, so under a sub-path a note says where it belongs.
    fn emit_sitemap(&mut self) -> Result<()> {
        let Some(base) = self.opts.base_url.as_ref().filter(|_| self.opts.sitemap) else { return Ok(()) };
        // The pages: a project's files besides them (its search excerpts) are no page.
        let files = self.manifest.projects.iter().flat_map(|p| &p.pages).map(|f| f.path.as_str());
        let pages = files.filter(|p| p.ends_with(".html"));
        let xml = render::pages::sitemap::sitemap_xml(base, pages.chain(["index.html"]))?;
        self.manifest.files.push(self.site.emit("sitemap.xml", xml.as_bytes(), "")?);
        match robots_note(self.opts) {
            Some(note) => self.notes.push(note),
            None => {
                let robots = render::pages::sitemap::robots_txt(base);
                self.manifest.files.push(self.site.emit("robots.txt", robots.as_bytes(), "")?);
            }
        }
        Ok(())
    }

    /// Carries the files of the previous site that cctree did not write.
    fn carry_over_user_files(&mut self) -> Result<()> {
        let ownership = output::Ownership { written: cache::written_files(&self.opts.output) };
        let c = self.site.stage.carry_over(&ownership)?;
        if c.unrecorded_count > 0 {
            self.warnings += 1;
            tracing::warn!(
                "{}: no record of what the previous render wrote ({} is missing or unreadable), so the {} file{} \
                 of the previous site that this render does not write {} kept as yours ({}{}); \
                 if they are pages of an older render, delete them, or render into an empty directory",
                self.opts.output.display(),
                cache::MANIFEST,
                c.unrecorded_count,
                if c.unrecorded_count == 1 { "" } else { "s" },
                if c.unrecorded_count == 1 { "is" } else { "are" },
                c.unrecorded.join(", "),
                if c.unrecorded_count > c.unrecorded.len() { ", …" } else { "" }
            );
        }
        Ok(())
    }

    fn save_manifest(&mut self) -> Result<()> {
        self.site.stage.write(cache::MANIFEST, &self.manifest.to_json()?)
    }

    /// Swaps the site in; the summary of the build.
    fn commit(self, out: &OutputDir, start: Instant) -> Result<BuildSummary> {
        let (written, reused) = self.site.stage.counts();
        out.commit(self.site.stage)?;
        let mut s = BuildSummary::of(&self.manifest);
        s.warnings += self.warnings + out.warned();
        s.files_written = written;
        s.files_reused = reused;
        s.projects_reused = self.projects_reused;
        s.pages_rendered = self.pages_rendered;
        s.compare_rendered = self.compare_rendered;
        s.load = self.load;
        s.redact = self.opts.redact;
        s.redactions = self.redactions;
        s.redactions.extend(self.rendered_redactions.take());
        s.notes = self.notes;
        s.elapsed = start.elapsed();
        Ok(s)
    }
}

/// What `--redact` would replace in the projects of `archive` that
/// `wanted` keeps, by place, and nothing written (`render --redact-dry-run`):
/// each project directory's name, its sidecars, its spilled tool outputs,
/// every entry line, and the prompts of its sessions recovered from its
/// prompt log (`history.jsonl:<line>`). Here, not in render: it reads
/// the files (render reads only the model).
pub fn redact_dry_run(
    archive: &Archive,
    wanted: &dyn Fn(&crate::model::ProjectSource) -> bool,
) -> Vec<redactor::RedactionSite> {
    let (kept, _) = KeptInputs::read(archive);
    let mut with_history = archive.clone();
    kept.add_history_projects(&mut with_history);
    let mut out = Vec::new();
    for source in with_history.projects.iter().filter(|p| wanted(p)) {
        let name = crate::redact::redact_text(&source.name).1;
        if !name.is_empty() {
            out.push(redactor::RedactionSite { place: source.dir.display().to_string(), kinds: name });
        }
        out.extend(redactor::agent_meta(source));
        for path in source.tool_results.values() {
            let Ok(bytes) = std::fs::read(path) else { continue };
            let kinds = crate::redact::redact_text(&String::from_utf8_lossy(&bytes)).1;
            if !kinds.is_empty() {
                out.push(redactor::RedactionSite { place: path.display().to_string(), kinds });
            }
        }
        let p = crate::project::Project::load_with(source.clone(), crate::parse::ParseOptions { redact: true });
        out.extend(redactor::entry_lines(&p));
        if let Some((log, _)) = kept.log_of(source) {
            for session in kept.recovered(&p) {
                for prompt in &session.prompts {
                    let mut kinds = crate::redact::redact_text(&prompt.text).1;
                    for (_, paste) in &prompt.pasted {
                        kinds.extend(crate::redact::redact_text(paste).1);
                    }
                    if !kinds.is_empty() {
                        out.push(redactor::RedactionSite {
                            place: format!("{}:{}", log.display(), prompt.line),
                            kinds,
                        });
                    }
                }
            }
        }
        crate::driver::discard(p);
    }
    out
}

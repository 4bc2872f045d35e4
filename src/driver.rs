//! The one loop over an archive's projects, shared by every command that
//! reads them (`stats`, `check`, the build of `render`): one project at a
//! time (a project is the unit: parents, summaries and copies cross its
//! files but never its boundary), with a progress bar on stderr (on a
//! terminal, not with `-q`), and every warning about what is shown printed
//! under it.

use anyhow::Result;

use crate::discover::Archive;

use crate::model::ProjectSource;
use crate::project::Project;
use crate::select::{Selection, Tally};
use crate::warnings::Warning;

/// The progress bar over the projects of an archive (drawn only on a
/// terminal, and not with `-q`), and the warnings printed without tearing
/// it. It counts projects when there are several, and says what it does
/// with each ([`Progress::reading`], [`Progress::page_done`]); its spinner
/// turns on its own, so a long project never looks frozen.
pub struct Progress {
    bar: indicatif::ProgressBar,
    /// The project at work, and its pages done so far.
    project: std::sync::Mutex<String>,
    pages: std::sync::atomic::AtomicUsize,
}

impl Progress {
    /// A bar over `len` projects; hidden unless `show`.
    pub fn projects(len: usize, show: bool) -> Progress {
        if !show {
            return Progress::hidden();
        }
        let bar = indicatif::ProgressBar::with_draw_target(Some(len as u64), indicatif::ProgressDrawTarget::stderr());
        let template =
            if len > 1 { "{spinner} [{bar:30}] {pos}/{len} projects  {wide_msg}" } else { "{spinner} {wide_msg}" };
        bar.set_style(
            indicatif::ProgressStyle::with_template(template)
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.enable_steady_tick(crate::limits::PROGRESS_TICK);
        Progress::of(bar)
    }

    /// No bar at all (for work too short to show one, or `-q`); warnings are printed.
    pub fn hidden() -> Progress {
        Progress::of(indicatif::ProgressBar::hidden())
    }

    fn of(bar: indicatif::ProgressBar) -> Progress {
        Progress { bar, project: std::sync::Mutex::default(), pages: std::sync::atomic::AtomicUsize::new(0) }
    }

    /// Says that `source`'s files are being read: how many, how large.
    pub fn reading(&self, source: &ProjectSource) {
        if self.bar.is_hidden() {
            return;
        }
        let name = crate::term::escape(&source.name).into_owned();
        let files = crate::term::plural(source.files.len(), "file", "files");
        let size = indicatif::DecimalBytes(source.total_bytes());
        self.bar.set_message(format!("{name}: reading {files} ({size})"));
        self.pages.store(0, std::sync::atomic::Ordering::Relaxed);
        *self.project.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = name;
    }

    /// Counts a page of the project written (or kept from the previous site).
    pub fn page_done(&self) {
        if self.bar.is_hidden() {
            return;
        }
        let n = self.pages.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let name = self.project.lock().map(|p| p.clone()).unwrap_or_default();
        self.bar.set_message(format!("{name}: {}", crate::term::plural(n, "page", "pages")));
    }

    /// Prints one warning (the log's `warn` level).
    pub fn warn(&self, what: impl std::fmt::Display) {
        self.bar.suspend(|| tracing::warn!("{what}"));
    }

    /// Prints warnings about the files of the project in `dir`, each with
    /// `path:line` (escaped whole: one warning, one line). Returns how many.
    pub fn file_warnings(&self, dir: &std::path::Path, warnings: &[Warning]) -> usize {
        for w in warnings {
            self.warn(crate::term::safe(w.show(dir)));
        }
        warnings.len()
    }

    /// Prints the warnings met finding a project's files. Returns how many.
    pub fn source_warnings(&self, source: &ProjectSource) -> usize {
        for w in &source.warnings {
            self.warn(w);
        }
        source.warnings.len()
    }

    /// Prints every warning about a loaded project's files
    /// ([`crate::warnings::of_project`]) and returns them.
    pub fn project_warnings(&self, p: &Project) -> Vec<Warning> {
        let warnings = crate::warnings::of_project(p);
        self.file_warnings(&p.source.dir, &warnings);
        warnings
    }
}

/// Prints the warnings of discovery met outside any project (an unreadable
/// project directory, a stray transcript in the projects directory).
/// Returns how many.
pub fn archive_warnings(archive: &Archive) -> usize {
    for w in &archive.warnings {
        tracing::warn!("{w}");
    }
    archive.warnings.len()
}

/// Hands each project source to `visit` in turn, under a progress bar (the
/// visitor prints the warnings met finding its files, when it shows the
/// project: [`Progress::source_warnings`]).
pub fn each_project(
    projects: Vec<ProjectSource>,
    progress: &Progress,
    mut visit: impl FnMut(usize, ProjectSource) -> Result<()>,
) -> Result<()> {
    for (i, source) in projects.into_iter().enumerate() {
        progress.bar.set_message(crate::term::escape(&source.name).into_owned());
        visit(i, source)?;
        progress.bar.inc(1);
    }
    progress.bar.finish_and_clear();
    Ok(())
}

/// Loads each project of an archive in turn (one in memory at a time), keeps
/// what `selection` selects of it ([`Selection::pick`]), prints the warnings
/// about that (those about its lines only when `line_warnings`: `check`
/// reports them as findings), and hands it to `f`, under a progress bar
/// unless `quiet`.
/// Then a selection that matched nothing is an error ([`Selection::finish`]). No line can be read again
/// ([`Project::load_headers`]: `stats` and `check` need none). A project
/// is freed on a thread of its own while the next one loads (freeing a
/// million entries and their strings takes a second of its own).
pub fn for_each_project(
    archive: Archive,
    selection: &Selection,
    quiet: bool,
    line_warnings: bool,
    mut f: impl FnMut(&Project) -> Result<()>,
) -> Result<()> {
    archive_warnings(&archive);
    let progress = Progress::projects(archive.projects.len(), !quiet);
    let mut tally = Tally::default();
    each_project(archive.projects, &progress, |_, source| {
        if !selection.wants(&source) {
            return Ok(());
        }
        progress.reading(&source);
        let Some(picked) = selection.pick(Project::load_headers(source), &mut tally) else { return Ok(()) };
        let project = picked.into_project();
        progress.source_warnings(&project.source);
        if line_warnings {
            progress.project_warnings(&project);
        }
        let done = f(&project);
        discard(project);
        done
    })?;
    selection.finish(&tally)
}

/// Frees `value` on a thread of its own: the caller goes on at once. When
/// the process ends first, the memory is returned with it.
pub fn discard<T: Send + 'static>(value: T) {
    // No thread to be had: the value is freed here, as the closure is.
    std::thread::Builder::new().name("cctree-free".into()).spawn(move || drop(value)).ok();
}

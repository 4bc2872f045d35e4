//! What a build produced: the counts of the summary line `cctree render`
//! prints, and the warnings printed again for what it re-used.

use std::path::Path;
use std::time::Duration;

use rustc_hash::FxHashSet;

use crate::cache::parse::LoadCounts;
use crate::cache::{FileRecord, Manifest, ProjectRecord};
use crate::driver::Progress;
use crate::render::site::redactor::RedactionSite;

/// What a build produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildSummary {
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
    /// Compare pages rendered (the others were linked unrendered).
    pub compare_rendered: usize,
    /// Transcript files: parsed in full, parsed past their old end, unchanged.
    pub load: LoadCounts,
    pub elapsed: Duration,
    /// `--redact` was on.
    pub redact: bool,
    /// Where secrets were replaced in what this build read, in report order.
    pub redactions: Vec<RedactionSite>,
    /// What the user should know about the site (`robots.txt` not written
    /// under a sub-path), printed after the summary.
    pub notes: Vec<String>,
}

impl BuildSummary {
    /// The totals of a site from its manifest.
    pub fn of(m: &Manifest) -> BuildSummary {
        let images: FxHashSet<&str> =
            m.projects.iter().flat_map(|p| &p.pages).flat_map(|f| &f.images).map(String::as_str).collect();
        let outputs = || m.projects.iter().map(|p| &p.output.summary);
        BuildSummary {
            projects: m.projects.len(),
            conversations: outputs().map(|o| o.conversations).sum(),
            branches: outputs().map(|o| o.branches).sum(),
            pages: outputs().map(|o| o.pages).sum::<usize>() + 1,
            images: images.len(),
            warnings: m
                .projects
                .iter()
                .map(|p| p.warnings.len() + p.pages.iter().map(|f| f.warnings.len()).sum::<usize>())
                .sum(),
            ..BuildSummary::default()
        }
    }

    /// Secrets replaced in all.
    pub fn redacted(&self) -> usize {
        self.redactions.iter().map(RedactionSite::count).sum()
    }
}

impl std::fmt::Display for BuildSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::term::plural;
        write!(
            f,
            "rendered {}, {}, {}: {}, {}, {} in {:.2} s",
            plural(self.projects, "project", "projects"),
            plural(self.conversations, "conversation", "conversations"),
            plural(self.branches, "branch", "branches"),
            plural(self.pages, "page", "pages"),
            plural(self.images, "image", "images"),
            plural(self.warnings, "warning", "warnings"),
            self.elapsed.as_secs_f64()
        )?;
        if self.files_reused > 0 || self.projects_reused > 0 {
            write!(
                f,
                " ({} written, {} unchanged; {} of {} unchanged)",
                plural(self.files_written, "file", "files"),
                self.files_reused,
                self.projects_reused,
                plural(self.projects, "project", "projects")
            )?;
        }
        if self.redact {
            write!(f, ", {} redacted", plural(self.redacted(), "secret", "secrets"))?;
        }
        Ok(())
    }
}

/// Prints again the warnings of a project re-used from the previous site
/// (those about its files, those its render met on pages); `dir` is its
/// directory, `output` the site. Returns how many.
pub(super) fn record_warnings(progress: &Progress, dir: &Path, r: &ProjectRecord, output: &Path) -> usize {
    progress.file_warnings(dir, &r.warnings) + page_warnings(progress, &r.pages, output)
}

/// Prints the problems met rendering pages, each with the page's path.
pub(super) fn page_warnings(progress: &Progress, pages: &[FileRecord], output: &Path) -> usize {
    let mut n = 0;
    for f in pages {
        for w in &f.warnings {
            progress.warn(format_args!("{}: {w}", output.join(&f.path).display()));
            n += 1;
        }
    }
    n
}

//! What the cache lets a build re-use: for each project its slug, the key
//! over everything its pages are made from, and the previous render's record
//! of it; decided before any transcript is read.

use rustc_hash::FxHashMap;

use crate::cache::{self, FileRecord, Manifest, ProjectRecord};
use crate::discover::Archive;
use crate::render::site::redactor::{RedactionSite, Redactor};

use super::BuildOptions;

/// The plan of a build.
pub(super) struct Plan {
    /// The renderer's fingerprint and the settings (see [`cache`]).
    pub code: &'static str,
    pub settings: String,
    /// The previous render's manifest, when it can be re-used.
    pub old: Option<Manifest>,
    /// One per project of the archive, in order.
    pub projects: Vec<Planned>,
    /// Where `--redact` replaced secrets in project names.
    pub redactions: Vec<RedactionSite>,
    /// Warnings printed about the previous site's cache.
    pub warnings: usize,
    /// A key over the whole input ([`Manifest::input`]).
    pub input: String,
}

/// One project of the plan.
pub(super) struct Planned {
    /// Its directory in the site.
    pub slug: String,
    /// A stable id of its source directory ([`cache::source_id`]).
    pub source: String,
    /// The `--projects` of the fork commands on its pages (a page depends on it).
    pub fork_projects: Option<String>,
    /// Its key ([`cache::project_key`]).
    pub key: String,
    /// Its record in the previous manifest (same source), if any.
    previous: Option<usize>,
}

impl Plan {
    /// Plans the build of `archive`; `has_site`: the output holds a previous site.
    pub(super) fn new(
        archive: &Archive,
        opts: &BuildOptions,
        has_site: bool,
        beyond: &dyn Fn(&crate::model::ProjectSource) -> String,
    ) -> Plan {
        let code = cache::code_fingerprint();
        let settings = opts.settings();
        let mut warnings = 0;
        let old = if opts.force || !has_site { Ok(None) } else { Manifest::load(&opts.output, code, &settings) };
        let old = match old {
            Ok(m) => m,
            Err(unsafe_manifest) => {
                tracing::warn!("{unsafe_manifest}");
                warnings += 1;
                None
            }
        };
        // Directory names are not entry lines: redacted before they become slugs.
        let redactor = Redactor::new(opts.redact);
        let names: Vec<String> = archive
            .projects
            .iter()
            .map(|p| redactor.text(|| p.dir.display().to_string(), &p.name).into_owned())
            .collect();
        let slugs = crate::render::site::urls::project_slugs(&names);
        // A selection changes what a project's pages hold: in every key.
        let select = match opts.selection.key() {
            k if k.is_empty() => k,
            k => format!("\0{k}"),
        };
        let previous: FxHashMap<&str, usize> =
            old.iter().flat_map(|m| m.projects.iter().enumerate()).map(|(i, r)| (r.source.as_str(), i)).collect();
        let projects = archive
            .projects
            .iter()
            .zip(slugs)
            .map(|(p, slug)| {
                let source = cache::source_id(p);
                let local =
                    crate::fork::lookup::names_directories(opts.show_paths, opts.base_url.is_some(), opts.redact);
                let fork_projects = crate::fork::lookup::projects_arg(&p.dir, &archive.root, local);
                let fork_key = fork_projects.as_deref().unwrap_or("");
                // The history's lines and the sync record's deletions of the project (`kept`).
                let beyond = beyond(p);
                let key = cache::project_key(p, &slug, code, &format!("{settings}\0{fork_key}{select}{beyond}"));
                let previous = previous.get(source.as_str()).copied();
                Planned { slug, source, fork_projects, key, previous }
            })
            .collect::<Vec<Planned>>();
        let mut input = blake3::Hasher::new();
        for p in &projects {
            for part in [&p.source, &p.slug, &p.key] {
                input.update(part.as_bytes());
                input.update(b"\0");
            }
        }
        input.update(select.as_bytes());
        // `--sitemap` writes two files more, from the same pages.
        input.update(if opts.sitemap { b"\0sitemap" } else { b"" });
        let input = input.finalize().to_hex()[..32].to_string();
        Plan { code, settings, old, projects, redactions: redactor.take(), warnings, input }
    }

    /// The previous render's record of project `i`.
    pub(super) fn previous(&self, i: usize) -> Option<&ProjectRecord> {
        let ix = self.projects[i].previous?;
        self.old.as_ref().map(|m| &m.projects[ix])
    }

    /// The previous record of project `i` when its key and slug are unchanged.
    pub(super) fn unchanged(&self, i: usize) -> Option<&ProjectRecord> {
        let p = &self.projects[i];
        self.previous(i).filter(|r| r.key == p.key && r.slug == p.slug)
    }

    /// Every project is unchanged, none was added or removed, and the
    /// selection is the same: the previous site stands as it is.
    pub(super) fn nothing_changed(&self) -> Option<&Manifest> {
        self.old.as_ref().filter(|m| m.input == self.input)
    }

    /// The project of the plan that the previous record `r` is of.
    pub(super) fn project_of(&self, r: &ProjectRecord) -> Option<usize> {
        self.projects.iter().position(|p| p.source == r.source)
    }

    /// The files of the previous site, by path (pages linked when unchanged).
    pub(super) fn previous_files(&self) -> FxHashMap<String, FileRecord> {
        self.old
            .iter()
            .flat_map(|m| m.files.iter().chain(m.projects.iter().flat_map(|p| &p.pages)))
            .map(|f| (f.path.clone(), f.clone()))
            .collect()
    }
}

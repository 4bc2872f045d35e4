//! The one way into the site being built: every page, image, index, asset
//! and cache file goes through [`SiteWriter`] to the [`Stage`]. A file whose
//! bytes equal the previous site's, or a page whose group key is unchanged,
//! is linked from the previous site instead of written; each is recorded for
//! the next manifest.

use std::collections::BTreeMap;
use std::sync::Mutex;

use anyhow::Result;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::cache::{FileRecord, ProjectRecord};
use crate::driver::Progress;
use crate::render::Sink;
use crate::reuse::Previous;

use super::output::Stage;

/// The site being built.
pub(super) struct SiteWriter {
    pub stage: Stage,
    /// Files of the previous site by path.
    prev: FxHashMap<String, FileRecord>,
    /// Images handed in so far (each is written once).
    images: Mutex<FxHashSet<String>>,
    /// Images the previous site's pages showed (by name).
    prev_images: FxHashSet<String>,
}

impl SiteWriter {
    pub(super) fn new(stage: Stage, prev: FxHashMap<String, FileRecord>) -> SiteWriter {
        let prev_images = prev.values().flat_map(|r| r.images.iter().cloned()).collect();
        SiteWriter { stage, prev, images: Mutex::default(), prev_images }
    }

    /// Puts a file into the site: linked from the previous site when its
    /// bytes are the same, written otherwise. `key`: its page group's.
    pub(super) fn emit(&self, rel: &str, bytes: &[u8], key: &str) -> Result<FileRecord> {
        let record = FileRecord::new(rel, bytes, key);
        let same = self.prev.get(rel).is_some_and(|r| r.hash == record.hash);
        if !(same && self.stage.reuse(rel)?) {
            self.stage.write(rel, bytes)?;
        }
        Ok(record)
    }

    /// Keeps the previous site's file at `rel` as it is (unread): its
    /// record; `None` when the previous site lacks it.
    pub(super) fn keep(&self, rel: &str) -> Result<Option<FileRecord>> {
        let Some(r) = self.prev.get(rel) else { return Ok(None) };
        Ok(self.stage.reuse(rel)?.then(|| r.clone()))
    }

    /// The previous render's page at `rel`, linked without rendering, when
    /// it had the same page key (`None`: when its group's key was `group`);
    /// its record, with `group`. A page's key is `<group>:<page>`.
    pub(super) fn reuse_page(&self, rel: &str, group: &str, page: Option<&str>) -> Result<Option<FileRecord>> {
        let Some(r) = self.prev.get(rel) else { return Ok(None) };
        let Some((was_group, was_page)) = r.key.split_once(':') else { return Ok(None) };
        let same = match page {
            None => was_group == group,
            Some(p) => was_page == p,
        };
        if !(same && self.stage.reuse(rel)?) {
            return Ok(None);
        }
        Ok(Some(FileRecord { key: format!("{group}:{was_page}"), ..r.clone() }))
    }

    /// Whether the previous render's page at `rel` was of a page group whose
    /// key was `group`.
    pub(super) fn had_group(&self, rel: &str, group: &str) -> bool {
        self.prev.get(rel).and_then(|r| r.key.split_once(':')).is_some_and(|(g, _)| g == group)
    }

    /// Writes `assets/img/<name>` unless it was written already, or kept
    /// from the previous site when a page of it showed the image: an image
    /// is named by the hash of its bytes, so that file holds them.
    pub(super) fn image(&self, name: &str, bytes: &[u8]) -> Result<()> {
        let fresh = self.images.lock().map(|mut w| w.insert(name.to_string())).unwrap_or(true);
        if fresh {
            let rel = format!("assets/img/{name}");
            if !(self.prev_images.contains(name) && self.stage.reuse(&rel)?) {
                self.stage.write(&rel, bytes)?;
            }
        }
        Ok(())
    }

    /// Links every file of an unchanged project from the previous site.
    /// `false` (and the project is rendered) when one is missing there.
    pub(super) fn reuse_project(&self, r: &ProjectRecord) -> Result<bool> {
        use rayon::prelude::*;
        let all = r
            .pages
            .par_iter()
            .map(|f| &f.path)
            .chain(r.parse.par_iter())
            .map(|p| self.stage.reuse(p))
            .collect::<Result<Vec<bool>>>()?;
        Ok(all.into_iter().all(|ok| ok))
    }

    /// Links the images that pages linked from the previous site show (the
    /// pages rendered wrote theirs). Returns the paths missing there.
    pub(super) fn link_images<'a>(&self, shown: impl IntoIterator<Item = &'a str>) -> Result<Vec<String>> {
        let mut images: Vec<&str> = shown.into_iter().collect::<FxHashSet<&str>>().into_iter().collect();
        images.sort_unstable();
        let mut missing = Vec::new();
        for name in images {
            let rel = format!("assets/img/{name}");
            if !self.stage.has(&rel) && !self.stage.reuse(&rel)? {
                missing.push(rel);
            }
        }
        Ok(missing)
    }
}

/// One project's pages and images on their way into the site: the
/// [`Sink`] the build hands to `render::render_project`.
pub(super) struct ProjectSink<'s> {
    site: &'s SiteWriter,
    /// The record of each page put into the site, by path.
    records: Mutex<FxHashMap<String, FileRecord>>,
    /// Counts the pages done.
    progress: &'s Progress,
}

impl<'s> ProjectSink<'s> {
    pub(super) fn new(site: &'s SiteWriter, progress: &'s Progress) -> ProjectSink<'s> {
        ProjectSink { site, records: Mutex::default(), progress }
    }

    fn keep(&self, record: FileRecord) {
        let mut records = self.records.lock().unwrap_or_else(|e| e.into_inner());
        records.insert(record.path.clone(), record);
        drop(records);
        self.progress.page_done();
    }

    /// The records of the project's pages in the render's order, each with
    /// the warnings met rendering it (a re-used page keeps those of the
    /// render that wrote it). None is dropped: a warning about a page the
    /// records do not name goes with the project index (the last page).
    pub(super) fn into_records(self, pages: &[String], mut by_page: BTreeMap<String, Vec<String>>) -> Vec<FileRecord> {
        let mut records = self.records.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut files: Vec<FileRecord> = pages.iter().filter_map(|p| records.remove(p)).collect();
        for f in files.iter_mut() {
            if let Some(w) = by_page.remove(&f.path) {
                f.warnings = w;
            }
        }
        if let Some(last) = files.last_mut() {
            last.warnings
                .extend(by_page.into_iter().flat_map(|(page, ws)| ws.into_iter().map(move |w| format!("{page}: {w}"))));
        }
        files
    }
}

impl Previous for ProjectSink<'_> {
    fn reuse_page(&self, rel: &str, group: &str, page: Option<&str>) -> Result<bool> {
        let Some(record) = self.site.reuse_page(rel, group, page)? else { return Ok(false) };
        self.keep(record);
        Ok(true)
    }

    fn had_group(&self, rel: &str, group: &str) -> bool {
        self.site.had_group(rel, group)
    }
}

impl Sink for ProjectSink<'_> {
    fn page(&self, rel: &str, html: &[u8], key: &str) -> Result<()> {
        let record = self.site.emit(rel, html, key)?;
        self.keep(record);
        Ok(())
    }

    fn image(&self, name: &str, bytes: &[u8]) -> Result<()> {
        self.site.image(name, bytes)
    }
}

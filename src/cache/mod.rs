//! The incremental-render cache, kept inside the site (`.cctree-cache/`, never
//! linked from a page) so it travels with it:
//!
//! ```text
//! .cctree-cache/manifest.json        what the site was built from and holds
//! .cctree-cache/parse/<id>-<file>.bin   per transcript file of a project: what was parsed of it, its stamp, hash
//!                                       and a sample of its bytes that tells an append from a rewrite ([`parse`], binary)
//! .cctree-cache/search/<bucket>.bin     the search index's postings of the units whose key hashes there
//!                                       (written and read by `render::search::index`, recorded in `files`)
//! ```
//!
//! The manifest records the renderer's fingerprint (a hash of its sources
//! made by `build.rs`, so any change of code, templates, assets, dependencies
//! or compiler invalidates it), the settings
//! that shape pages, and per project: a key over everything its pages are made
//! from (slug, name, the [`Stamp`] of each transcript, side file and sidecar),
//! what it contributes to the archive index and search index, and every file
//! it wrote with the blake3 of its bytes and the images it shows. The build
//! (`crate::build`) decides with it what to re-use; this module only reads,
//! checks and serializes it, and never writes a file itself.
//!
//! A manifest or parse cache of another format, renderer or settings is
//! ignored (and rebuilt), and so is a manifest naming a path that is not a
//! plain relative path inside the site (parse caches: inside
//! `.cctree-cache/parse/`): cctree never reads a file a manifest points to
//! outside its cache.

pub mod parse;

use std::path::Path;
use std::sync::OnceLock;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::digest::{ProjectSummary, UnitEntry};
use crate::model::ProjectSource;

/// The cache directory, relative to the site root.
pub const CACHE_DIR: &str = ".cctree-cache";
/// The manifest, relative to the site root.
pub const MANIFEST: &str = ".cctree-cache/manifest.json";
/// Where parse caches live, relative to the site root.
const PARSE_DIR: &str = ".cctree-cache/parse/";
/// Bump when the layout of the cache changes.
const FORMAT: u32 = 6;

/// A fingerprint of the renderer: cctree's version and the hash `build.rs`
/// made of its sources (code, templates, assets, dependencies, compiler),
/// all compiled into the executable.
pub fn code_fingerprint() -> &'static str {
    static FP: OnceLock<String> = OnceLock::new();
    FP.get_or_init(|| {
        let mut h = blake3::Hasher::new();
        h.update(env!("CARGO_PKG_VERSION").as_bytes());
        h.update(env!("CCTREE_CODE_HASH").as_bytes());
        short(h.finalize())
    })
}

fn short(h: blake3::Hash) -> String {
    h.to_hex()[..32].to_string()
}

/// blake3 of a file's bytes, as recorded in the manifest.
pub fn content_hash(bytes: &[u8]) -> String {
    short(blake3::hash(bytes))
}

/// A stable id of a project's source directory (names its parse cache).
pub fn source_id(p: &ProjectSource) -> String {
    let dir = p.dir.canonicalize().unwrap_or_else(|_| p.dir.clone());
    let mut h = blake3::Hasher::new();
    h.update(dir.to_string_lossy().as_bytes());
    h.update(b"\0");
    h.update(p.name.as_bytes());
    for f in &p.files {
        // Inputs given as single files share a directory: tell them apart.
        if p.dir.as_os_str().is_empty() {
            h.update(f.path.to_string_lossy().as_bytes());
        }
    }
    h.finalize().to_hex()[..24].to_string()
}

/// What a file's metadata says of its content without reading a byte: its
/// size and modification time, and (on Unix) its inode and status-change
/// time. A rewrite that keeps size and mtime still changes the ctime (setting
/// the mtime back does too), and a file replaced by another changes the inode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    pub size: u64,
    /// Nanoseconds since the epoch (0 if unknown).
    pub mtime_ns: u64,
    /// Inode number (0 where there is none).
    pub ino: u64,
    /// Status-change time, nanoseconds since the epoch (0 where there is none).
    pub ctime_ns: u64,
}

impl Stamp {
    pub fn of(meta: &std::fs::Metadata) -> Stamp {
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
        let (ino, ctime_ns) = inode_and_ctime(meta);
        Stamp { size: meta.len(), mtime_ns, ino, ctime_ns }
    }

    /// Whether the stamp says anything (a file system without times says nothing).
    pub fn is_known(&self) -> bool {
        self.mtime_ns != 0
    }
}

#[cfg(unix)]
fn inode_and_ctime(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    let ctime = u64::try_from(meta.ctime()).unwrap_or(0);
    let nsec = u64::try_from(meta.ctime_nsec()).unwrap_or(0);
    (meta.ino(), ctime.saturating_mul(1_000_000_000).saturating_add(nsec))
}

#[cfg(not(unix))]
fn inode_and_ctime(_meta: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}

/// The key of a project's pages: everything they are made from, by
/// [`Stamp`], without reading a byte. `--force` rebuilds everything.
pub fn project_key(p: &ProjectSource, slug: &str, code: &str, settings: &str) -> String {
    key_of(p, slug, code, settings, true)
}

/// What every page of a project depends on besides its transcripts: the
/// renderer, settings, slug, directory, side files and sidecars (the base of
/// the page-group keys, see `crate::reuse`).
pub fn pages_base(p: &ProjectSource, slug: &str, code: &str, settings: &str) -> String {
    key_of(p, slug, code, settings, false)
}

fn key_of(p: &ProjectSource, slug: &str, code: &str, settings: &str, transcripts: bool) -> String {
    let mut h = blake3::Hasher::new();
    let mut add = |s: &str| {
        h.update(s.as_bytes());
        h.update(b"\0");
    };
    add(code);
    add(settings);
    add(slug);
    add(&p.name);
    add(&p.dir.to_string_lossy());
    let stat = |path: &Path| match std::fs::metadata(path) {
        Ok(m) => {
            let s = Stamp::of(&m);
            format!("{}:{}:{}:{}", s.size, s.mtime_ns, s.ino, s.ctime_ns)
        }
        Err(e) => format!("error:{}", e.kind()),
    };
    add(if transcripts { "with transcripts" } else { "without transcripts" });
    for f in p.files.iter().filter(|_| transcripts) {
        add(&f.rel);
        add(&f.path.to_string_lossy());
        match f.client.as_lines(&f.rel) {
            // Lines an agent makes of its files (a database and its log).
            Some(a) => a.sources(&f.path, &f.rel).iter().for_each(|s| add(&stat(s))),
            None => add(&stat(&f.path)),
        }
    }
    for (k, path) in &p.tool_results {
        add(k);
        add(&stat(path));
    }
    for (id, meta) in &p.agent_meta {
        add(id);
        add(&format!("{meta:?}"));
    }
    short(h.finalize())
}

/// One file of the site, with the blake3 of its bytes and the images it shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    pub path: String,
    pub hash: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<String>,
    /// For a branch or agent page: the key of its page group.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key: String,
    /// Problems met while rendering the page (printed again when it is reused).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl FileRecord {
    /// The record of a file about to be written with `bytes`.
    pub fn new(path: &str, bytes: &[u8], key: &str) -> FileRecord {
        FileRecord {
            path: path.to_string(),
            hash: content_hash(bytes),
            images: images_in(bytes),
            key: key.to_string(),
            warnings: Vec::new(),
        }
    }
}

/// A `&'static str` for a kind read back from the cache (a handful of
/// distinct values; unknown ones are leaked once).
fn intern(s: &str) -> &'static str {
    use std::sync::Mutex;
    static SEEN: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let Ok(mut seen) = SEEN.lock() else { return "" };
    if let Some(k) = seen.iter().find(|k| **k == s) {
        return k;
    }
    let k: &'static str = Box::leak(s.to_string().into_boxed_str());
    seen.push(k);
    k
}

/// What a project contributed to the archive index and the search index, as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OutputRecord {
    #[serde(flatten)]
    pub summary: ProjectSummary,
    /// Its units of the search index.
    pub search: Vec<UnitEntry>,
}

/// The files a previous render wrote, from its manifest whatever its format,
/// renderer or settings; `None` when there is no readable manifest.
pub fn written_files(site: &Path) -> Option<rustc_hash::FxHashSet<String>> {
    #[derive(Deserialize)]
    struct File {
        path: String,
    }
    #[derive(Deserialize)]
    struct Project {
        #[serde(default)]
        pages: Vec<File>,
    }
    #[derive(Deserialize)]
    struct Written {
        #[serde(default)]
        files: Vec<File>,
        #[serde(default)]
        projects: Vec<Project>,
    }
    let m: Written = serde_json::from_slice(&std::fs::read(site.join(MANIFEST)).ok()?).ok()?;
    let pages = m.projects.into_iter().flat_map(|p| p.pages);
    Some(m.files.into_iter().chain(pages).map(|f| f.path).collect())
}

/// One project of the site.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProjectRecord {
    pub source: String,
    pub slug: String,
    pub key: String,
    /// Its parse caches, one per transcript file, relative to the site root
    /// (none: a project rendered in part keeps none).
    #[serde(default)]
    pub parse: Vec<String>,
    /// Warnings about its files (those met rendering a page are in `pages`).
    pub warnings: Vec<crate::warnings::Warning>,
    /// Transcript files.
    pub files: usize,
    pub output: OutputRecord,
    pub pages: Vec<FileRecord>,
    /// The `--conversation` ids that selected its conversations (a project
    /// re-used unread matched them again).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matched: Vec<String>,
}

/// A manifest naming a path outside the site or its cache: ignored.
#[derive(Debug, thiserror::Error)]
#[error(
    "ignoring the render cache {}: it names {path:?}, which is not a file of the site (rebuilding the cache)",
    manifest.display()
)]
pub struct UnsafeManifest {
    pub manifest: std::path::PathBuf,
    pub path: String,
}

/// What the site was built from and holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    pub code: String,
    pub settings: String,
    /// A key over the whole input: every project's key and slug, and the
    /// selection. Unchanged: the previous site stands as it is.
    #[serde(default)]
    pub input: String,
    /// Site-wide files (assets, archive index, search index).
    pub files: Vec<FileRecord>,
    pub projects: Vec<ProjectRecord>,
}

impl Manifest {
    pub fn new(code: &str, settings: &str) -> Manifest {
        Manifest {
            format: FORMAT,
            code: code.into(),
            settings: settings.into(),
            input: String::new(),
            files: Vec::new(),
            projects: Vec::new(),
        }
    }

    /// The manifest of the site at `site`, if it matches this renderer and
    /// settings (`Ok(None)` otherwise, or when there is none or it cannot be
    /// read). `Err`: it names a path cctree must not read ([`Manifest::unsafe_path`]).
    pub fn load(site: &Path, code: &str, settings: &str) -> Result<Option<Manifest>, UnsafeManifest> {
        let Ok(bytes) = std::fs::read(site.join(MANIFEST)) else { return Ok(None) };
        let m: Manifest = match serde_json::from_slice(&bytes) {
            Ok(m) => m,
            Err(e) => {
                tracing::info!("ignoring the render cache in {} (rebuilding it): {e}", site.display());
                return Ok(None);
            }
        };
        if !(m.format == FORMAT && m.code == code && m.settings == settings) {
            return Ok(None);
        }
        if let Some(path) = m.unsafe_path() {
            return Err(UnsafeManifest { manifest: site.join(MANIFEST), path: path.to_string() });
        }
        Ok(Some(m))
    }

    /// The first path the manifest names that cctree must not read or link:
    /// a file, page or image that is not a plain relative path in the site
    /// (no `..`, no root, no empty segment), a parse cache outside
    /// `.cctree-cache/parse/`, a project directory other than its slug's.
    pub fn unsafe_path(&self) -> Option<&str> {
        let pages = self.projects.iter().flat_map(|p| &p.pages);
        for f in self.files.iter().chain(pages) {
            if !is_site_path(&f.path) {
                return Some(&f.path);
            }
            if let Some(i) = f.images.iter().find(|i| i.contains('/') || !is_site_path(i)) {
                return Some(i);
            }
        }
        for p in &self.projects {
            if let Some(bad) = p.parse.iter().find(|c| !is_parse_cache_path(c)) {
                return Some(bad);
            }
            if p.slug.contains('/') || !is_site_path(&p.slug) || p.output.summary.dir != format!("{}/", p.slug) {
                return Some(&p.output.summary.dir);
            }
        }
        None
    }

    /// The manifest as stored.
    pub fn to_json(&self) -> Result<Vec<u8>> {
        serde_json::to_vec(self).context("serializing the render cache")
    }
}

/// A plain relative path in the site: `/`-separated segments, none empty,
/// `.` or `..`, no backslash or NUL (the writer refuses anything else too).
pub fn is_site_path(rel: &str) -> bool {
    !rel.is_empty()
        && rel.split('/').all(|s| !s.is_empty() && s != "." && s != ".." && !s.contains(['\\', '\0']))
        && Path::new(rel).components().all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// A parse cache path: `.cctree-cache/parse/<name>`.
fn is_parse_cache_path(rel: &str) -> bool {
    rel.strip_prefix(PARSE_DIR).is_some_and(|name| !name.contains('/')) && is_site_path(rel)
}

/// The images a page shows: `assets/img/<name>` references in its HTML.
pub fn images_in(html: &[u8]) -> Vec<String> {
    const NEEDLE: &[u8] = b"assets/img/";
    let mut out: Vec<String> = memchr::memmem::find_iter(html, NEEDLE)
        .filter_map(|i| {
            let rest = &html[i + NEEDLE.len()..];
            let n = rest.iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'.').count();
            (n > 0).then(|| String::from_utf8_lossy(&rest[..n]).into_owned())
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_image_references() {
        let html =
            b"<img src=\"../../assets/img/ab12.png\"><a href=\"x\">assets/img/</a><img src=\"assets/img/ab12.png\">";
        assert_eq!(images_in(html), ["ab12.png"]);
    }

    #[test]
    fn interns_kinds() {
        assert_eq!(intern("conversation"), "conversation");
        assert!(std::ptr::eq(intern("fork"), intern("fork")));
    }

    #[test]
    fn site_paths_are_plain_and_relative() {
        for ok in ["index.html", "-p/c/x/index.html", ".cctree-cache/parse/ab.json", "assets/img/a.png"] {
            assert!(is_site_path(ok), "{ok}");
        }
        for bad in ["", "/etc/passwd", "../x", "a/../../x", "a//b", "./a", "a/", "a\\..\\b", "a\0b"] {
            assert!(!is_site_path(bad), "{bad:?}");
        }
        assert!(is_parse_cache_path(".cctree-cache/parse/ab.json"));
        for bad in ["index.html", ".cctree-cache/manifest.json", ".cctree-cache/parse/a/b.json", "/tmp/x.json"] {
            assert!(!is_parse_cache_path(bad), "{bad}");
        }
    }

    #[test]
    fn a_manifest_naming_paths_outside_the_site_is_unsafe() {
        let file = |path: &str, images: &[&str]| FileRecord {
            images: images.iter().map(|i| i.to_string()).collect(),
            ..FileRecord::new(path, b"", "")
        };
        let project = |slug: &str, dir: &str, parse: &str, page: FileRecord| ProjectRecord {
            source: "s".into(),
            slug: slug.into(),
            key: "k".into(),
            parse: Some(parse).filter(|p| !p.is_empty()).map(String::from).into_iter().collect(),
            warnings: Vec::new(),
            files: 1,
            output: OutputRecord {
                summary: ProjectSummary { dir: dir.into(), ..ProjectSummary::default() },
                search: Vec::new(),
            },
            pages: vec![page],
            matched: Vec::new(),
        };
        let manifest = |files: Vec<FileRecord>, projects: Vec<ProjectRecord>| Manifest {
            files,
            projects,
            ..Manifest::new("c", "s")
        };
        let good = || project("-p", "-p/", ".cctree-cache/parse/a.json", file("-p/index.html", &["a.png"]));
        assert_eq!(manifest(vec![file("index.html", &[])], vec![good()]).unsafe_path(), None);
        let bad = [
            manifest(vec![file("../x", &[])], vec![good()]),
            manifest(vec![file("/etc/passwd", &[])], vec![]),
            manifest(vec![], vec![project("-p", "-p/", "/tmp/x.json", file("-p/index.html", &[]))]),
            manifest(vec![], vec![project("-p", "-p/", "index.html", file("-p/index.html", &[]))]),
            manifest(vec![], vec![project("-p", "-p/", "", file("-p/index.html", &["../../x.png"]))]),
            manifest(vec![], vec![project("-p", "../", "", file("-p/index.html", &[]))]),
            manifest(vec![], vec![project("..", "../", "", file("-p/index.html", &[]))]),
        ];
        for m in &bad {
            assert!(m.unsafe_path().is_some(), "{m:?}");
        }
    }
}

//! The incremental-render cache, kept inside the site (`.cctree-cache/`, never
//! linked from a page) so it travels with it:
//!
//! ```text
//! .cctree-cache/manifest.json        what the site was built from and holds
//! .cctree-cache/parse/<id>.json      per project: what was parsed of each file
//! ```
//!
//! The manifest records the renderer's fingerprint (a hash of the executable,
//! so any change of code, templates or assets invalidates it), the settings
//! that shape pages, and per project: a key over everything its pages are made
//! from (slug, name, the size and mtime of each transcript, side file and
//! sidecar), what it contributes to the archive index and search index, and
//! every file it wrote with the blake3 of its bytes and the images it shows.
//! A project whose key is unchanged is not read at all: its files are linked
//! from the previous site. A changed project is loaded resuming each file
//! from its parse cache ([`Project::load_resuming`]), re-rendered, and only
//! pages whose bytes differ are written. A manifest or parse cache of another
//! format, renderer or settings is ignored (and rebuilt).

use std::path::Path;
use std::sync::OnceLock;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::discover::ProjectSource;
use crate::parse::{Entry, LineWarning, Loc};
use crate::project::{FileHead, Project, Resume};

use super::search::SearchEntry;
use super::write::Stage;

/// The cache directory, relative to the site root.
pub const CACHE_DIR: &str = ".cctree-cache";
const MANIFEST: &str = ".cctree-cache/manifest.json";
/// Bump when the layout of the cache changes.
const FORMAT: u32 = 1;

/// A fingerprint of the renderer: cctree's version and a hash of the running
/// executable (templates, assets and code are compiled into it).
pub fn code_fingerprint() -> &'static str {
    static FP: OnceLock<String> = OnceLock::new();
    FP.get_or_init(|| {
        let mut h = blake3::Hasher::new();
        h.update(env!("CARGO_PKG_VERSION").as_bytes());
        if let Some(bytes) = std::env::current_exe().ok().and_then(|p| std::fs::read(p).ok()) {
            h.update(&bytes);
        }
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

/// The key of a project's pages: everything they are made from, by stat
/// (size and mtime), without reading a byte. Changes of content that keep
/// both size and mtime are not seen; `--force` rebuilds everything.
pub fn project_key(p: &ProjectSource, slug: &str, code: &str, settings: &str) -> String {
    key_of(p, slug, code, settings, true)
}

/// What every page of a project depends on besides its transcripts: the
/// renderer, settings, slug, directory, side files and sidecars (the base of
/// the page-group keys, see [`super::groups`]).
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
            let t = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{}:{t}", m.len())
        }
        Err(e) => format!("error:{}", e.kind()),
    };
    add(if transcripts { "with transcripts" } else { "without transcripts" });
    for f in p.files.iter().filter(|_| transcripts) {
        add(&f.rel);
        add(&f.path.to_string_lossy());
        add(&stat(&f.path));
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

/// A search entry as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SearchRecord {
    k: String,
    p: String,
    t: String,
    x: String,
    u: String,
}

impl SearchRecord {
    pub fn from_entry(e: &SearchEntry) -> SearchRecord {
        SearchRecord { k: e.k.into(), p: e.p.clone(), t: e.t.clone(), x: e.x.clone(), u: e.u.clone() }
    }

    pub fn to_entry(&self) -> SearchEntry {
        SearchEntry { k: intern(&self.k), p: self.p.clone(), t: self.t.clone(), x: self.x.clone(), u: self.u.clone() }
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

/// What a project contributed to the archive index, as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OutputRecord {
    pub name: String,
    pub dir: String,
    pub conversations: usize,
    pub branches: usize,
    pub forks: usize,
    pub messages: u64,
    pub last_ts: i64,
    pub pages: usize,
    pub search: Vec<SearchRecord>,
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
    /// Its parse cache, relative to the site root (empty: none).
    pub parse: String,
    /// Warnings about its files (those met rendering a page are in `pages`).
    pub warnings: Vec<crate::warnings::Warning>,
    /// Transcript files.
    pub files: usize,
    pub output: OutputRecord,
    pub pages: Vec<FileRecord>,
}

/// What the site was built from and holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    pub code: String,
    pub settings: String,
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
            files: Vec::new(),
            projects: Vec::new(),
        }
    }

    /// The manifest of the site at `site`, if it matches this renderer and settings.
    pub fn load(site: &Path, code: &str, settings: &str) -> Option<Manifest> {
        let bytes = std::fs::read(site.join(MANIFEST)).ok()?;
        let m: Manifest = match serde_json::from_slice(&bytes) {
            Ok(m) => m,
            Err(e) => {
                tracing::info!("ignoring the render cache in {} (rebuilding it): {e}", site.display());
                return None;
            }
        };
        (m.format == FORMAT && m.code == code && m.settings == settings).then_some(m)
    }

    pub fn save(&self, stage: &Stage) -> Result<()> {
        let json = serde_json::to_vec(self).context("serializing the render cache")?;
        stage.write(MANIFEST, &json)
    }
}

// ---------------------------------------------------------------------------
// Parse caches.

/// The parse cache path of a project, relative to the site root.
pub fn parse_cache_path(source_id: &str) -> String {
    format!("{CACHE_DIR}/parse/{source_id}.json")
}

#[derive(Serialize)]
struct ParseCacheOut<'a> {
    format: u32,
    code: &'a str,
    settings: &'a str,
    files: Vec<CachedFileOut<'a>>,
}

#[derive(Serialize)]
struct CachedFileOut<'a> {
    rel: &'a str,
    head: &'a FileHead,
    entries: &'a [Entry],
    warnings: &'a [LineWarning],
    redactions: Vec<(Loc, Vec<(&'a str, usize)>)>,
}

#[derive(Deserialize)]
struct ParseCacheIn {
    format: u32,
    code: String,
    settings: String,
    files: Vec<CachedFileIn>,
}

#[derive(Deserialize)]
struct CachedFileIn {
    rel: String,
    head: FileHead,
    entries: Vec<Entry>,
    warnings: Vec<LineWarning>,
    redactions: Vec<(Loc, Vec<(String, usize)>)>,
}

/// Writes what was parsed of each file of `p` (`heads[i]` for file `i`).
pub fn save_parse_cache(
    stage: &Stage,
    rel: &str,
    code: &str,
    settings: &str,
    p: &Project,
    heads: &[Option<FileHead>],
) -> Result<()> {
    let files = p
        .source
        .files
        .iter()
        .zip(heads)
        .enumerate()
        .filter_map(|(i, (f, head))| {
            let head = head.as_ref()?;
            let parts = p.resume_parts(i, head);
            Some(CachedFileOut {
                rel: &f.rel,
                head,
                entries: parts.entries,
                warnings: parts.warnings,
                redactions: parts
                    .redactions
                    .iter()
                    .map(|(loc, rs)| (*loc, rs.iter().map(|r| (r.kind, r.count)).collect()))
                    .collect(),
            })
        })
        .collect();
    let cache = ParseCacheOut { format: FORMAT, code, settings, files };
    stage.write_with(rel, |w| serde_json::to_writer(w, &cache).context("writing the parse cache"))
}

/// Reads a project's parse cache from the previous site: what to resume each
/// of `source.files` from (`None` where nothing matches).
pub fn load_parse_cache(
    site: &Path,
    rel: &str,
    code: &str,
    settings: &str,
    source: &ProjectSource,
) -> Vec<Option<Resume>> {
    let mut out: Vec<Option<Resume>> = vec![None; source.files.len()];
    let t0 = std::time::Instant::now();
    let Ok(bytes) = std::fs::read(site.join(rel)) else { return out };
    let cache: ParseCacheIn = match serde_json::from_slice(&bytes) {
        Ok(c) => c,
        Err(e) => {
            tracing::info!("ignoring the parse cache {} (parsing again): {e}", site.join(rel).display());
            return out;
        }
    };
    if cache.format != FORMAT || cache.code != code || cache.settings != settings {
        return out;
    }
    tracing::debug!("{}: parse cache read in {:.3} s", source.name, t0.elapsed().as_secs_f64());
    let index: rustc_hash::FxHashMap<&str, usize> =
        source.files.iter().enumerate().map(|(i, f)| (f.rel.as_str(), i)).collect();
    for f in cache.files {
        if let Some(&i) = index.get(f.rel.as_str()) {
            out[i] = Some(Resume {
                head: f.head,
                entries: f.entries,
                warnings: f.warnings,
                redactions: f
                    .redactions
                    .into_iter()
                    .map(|(loc, rs)| {
                        (
                            loc,
                            rs.into_iter()
                                .map(|(k, count)| crate::redact::Redaction { kind: intern(&k), count })
                                .collect(),
                        )
                    })
                    .collect(),
            });
        }
    }
    out
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
}

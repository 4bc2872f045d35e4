//! The archive-wide index, assembled from what each project's render gave
//! ([`super::docs::ProjectSearch`]) and, for the units whose pages were
//! re-used, from what the previous render kept; written as the files of
//! `search/` (see the module doc of [`super`] for their layout).
//!
//! Everything here is ordered by content, never by the order projects or
//! threads finished, so the same input gives the same bytes, and a unit
//! added later (a new conversation, the newest) comes last and leaves the
//! others' numbers, and the files that hold them, alone.
//!
//! **Kept between renders**: each unit's postings, in the render
//! cache (`.cctree-cache/search/<bucket>.bin`, the units spread over
//! [`BUCKETS`] files by a hash of their key, so a turn rewrites the one
//! holding its unit). A render then costs what changed:
//! - a unit some of whose pages were re-used takes those pages' postings
//!   from its kept ones (their numbers mapped by path) and merges them with
//!   the rendered pages';
//! - when every unit of the previous index keeps its number, only the terms
//!   whose postings changed are written: the shards holding them are read
//!   back, patched, and cut again from the last boundary before them until
//!   the cut meets a boundary of the previous layout ([`patch_layout`]); the
//!   other shards are left as they are. The cut is a function of the terms
//!   and their postings alone, so the layout is the one a fresh render
//!   writes, byte for byte;
//! - otherwise (a unit gone, one inserted before others) every shard is
//!   made again from the kept postings ([`IndexBuilder::finish`], "whole").

use std::cmp::Ordering;

use anyhow::{Context, Result, bail};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

use crate::limits::{SEARCH_SHARD, SEARCH_SHARD_MAX, SEARCH_UNIT_CHUNK};

use super::codec::{self, Gaps, n32};
use super::docs::UnitIndex;
use crate::digest::UnitEntry;

/// The directory of the index in the site.
pub(crate) const DIR: &str = "search/";
/// The index's own file, which every search loads first.
pub(crate) const MANIFEST: &str = "search/index.js";
/// Where the term shards are.
const SHARDS: &str = "search/t/";
/// Version of the format (the `v` of the manifest), checked by `search.js`.
const VERSION: u32 = 1;
/// Where the units' postings are kept between renders (in the render cache).
pub(crate) const STATE: &str = ".cctree-cache/search/";
/// Files the kept postings are spread over (by a hash of the unit's key).
const BUCKETS: u32 = 256;
/// The first bytes of a bucket file (then the blake3 of its body).
const STATE_MAGIC: &[u8; 16] = b"cctree-search-1\n";

/// A file of the index: its path in the site and its bytes.
pub(crate) type File = (String, String);

/// The changes of one term: each unit's new part (or none: the term leaves
/// it), by unit number.
type TermChanges<'a> = Vec<(u32, Option<&'a [u8]>)>;

/// One unit's postings: each of its terms (in `str` order) with the part of
/// its posting list after the unit's number.
pub(crate) type Postings = Vec<(Box<str>, Vec<u8>)>;

/// What the previous render left of the index.
pub(crate) struct Previous<'a> {
    /// Every unit of the previous site.
    pub(crate) units: Vec<&'a UnitEntry>,
    /// The paths of the files it recorded (under `search/` and the kept postings).
    pub(crate) files: Vec<&'a str>,
    /// Reads a file of the previous site.
    pub(crate) read: &'a (dyn Fn(&str) -> Result<Vec<u8>> + Sync),
}

/// The files of the index: those to write, and those of the previous site
/// that stay as they are.
#[derive(Debug, Default)]
pub(crate) struct IndexFiles {
    pub(crate) write: Vec<File>,
    /// Written as bytes (the kept postings).
    pub(crate) write_bytes: Vec<(String, Vec<u8>)>,
    pub(crate) keep: Vec<String>,
    /// How the shards were made (for the log).
    pub(crate) how: &'static str,
}

/// How the term dictionary is cut into shards: [`SEARCH_SHARD`] on average,
/// a shard of several terms at most [`SEARCH_SHARD_MAX`] (tests cut smaller).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cut {
    pub(crate) shard: usize,
    pub(crate) max: usize,
}

impl Default for Cut {
    fn default() -> Cut {
        Cut { shard: SEARCH_SHARD, max: SEARCH_SHARD_MAX }
    }
}

/// The index being assembled.
#[derive(Debug, Default)]
pub(crate) struct IndexBuilder {
    /// The units rendered, as given.
    fresh: Vec<UnitIndex>,
    /// Bytes of text the fresh units' pages gave (reported, not written).
    text_bytes: u64,
    cut: Cut,
}

/// The order of terms in the dictionary: by UTF-16 code units, as
/// `search.js` compares them.
fn term_order(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() { a.cmp(b) } else { a.encode_utf16().cmp(b.encode_utf16()) }
}

impl IndexBuilder {
    #[cfg(test)]
    fn with_cut(cut: Cut) -> IndexBuilder {
        IndexBuilder { cut, ..IndexBuilder::default() }
    }

    /// Counts the bytes of text a project's fresh units gave (for the log).
    pub(crate) fn text_read(&mut self, bytes: u64) {
        self.text_bytes += bytes;
    }

    /// Adds a rendered unit; returns its entry. Those of a unit with pages
    /// re-used are completed from the kept ones ([`IndexBuilder::finish`]).
    pub(crate) fn add(&mut self, unit: UnitIndex) -> Result<UnitEntry> {
        let entry = unit.entry.clone();
        self.fresh.push(unit);
        Ok(entry)
    }

    /// The files of the index for a site whose units are `units` (the units
    /// added, and the others, whose postings were kept by the previous
    /// render), and whose projects are `projects` (`(name, directory)`).
    pub(crate) fn finish(
        self,
        units: &[&UnitEntry],
        projects: &[(&str, &str)],
        previous: Option<Previous<'_>>,
    ) -> Result<IndexFiles> {
        let mut order: Vec<&UnitEntry> = units.to_vec();
        order.sort_by(|a, b| (a.first_ts, &a.key).cmp(&(b.first_ts, &b.key)));
        order.dedup_by(|a, b| a.key == b.key);
        let number: FxHashMap<&str, u32> = order.iter().enumerate().map(|(c, e)| (e.key.as_str(), n32(c))).collect();
        let mut old = previous.map(Old::new);
        let cut = self.cut;

        // Each fresh unit's postings, whole (the re-used pages' from the kept ones).
        let mut fresh: FxHashMap<String, Postings> = FxHashMap::default();
        for unit in self.fresh {
            if fresh.contains_key(&unit.entry.key) || !number.contains_key(unit.entry.key.as_str()) {
                continue;
            }
            let key = unit.entry.key.clone();
            let postings = if unit.kept.is_empty() {
                unit.postings
            } else {
                let old = old.as_mut().context("pages are re-used but the previous site has no search index")?;
                let now = order[number[key.as_str()] as usize];
                old.complete(unit, now)?
            };
            fresh.insert(key, postings);
        }

        let mut files = IndexFiles::default();
        let patched = match old.as_mut() {
            Some(old) if old.same_numbers(&number) => old.patch(&fresh, &number, cut)?,
            _ => None,
        };
        let listed = match patched {
            Some((listed, new, keep)) => {
                files.how = "patched";
                files.keep = keep;
                files.write.extend(new.into_iter().map(|s| (format!("{SHARDS}{}.js", s.name), s.script)));
                listed
            }
            None => {
                files.how = "whole";
                let shards = whole(&order, &fresh, old.as_mut(), cut)?;
                let listed = shards.iter().map(|s| (s.first.clone(), s.name.clone())).collect();
                files.write.extend(shards.into_iter().map(|s| (format!("{SHARDS}{}.js", s.name), s.script)));
                listed
            }
        };
        tracing::debug!(
            "search index: {} units, {} shards ({}: {} written), from {} bytes of text (fresh units)",
            order.len(),
            listed.len(),
            files.how,
            files.write.len(),
            self.text_bytes
        );
        for (k, chunk) in order.chunks(SEARCH_UNIT_CHUNK).enumerate() {
            let list: Vec<(&str, &str, &str, &[String])> = chunk
                .iter()
                .map(|e| (e.title.as_str(), e.project.as_str(), e.key.as_str(), e.pages.as_slice()))
                .collect();
            let id = format!("u/{k}");
            files.write.push((format!("{DIR}{id}.js"), codec::script(&id, &crate::json::write(&list))));
        }
        let shards: Vec<(&str, &str)> = listed.iter().map(|(f, n)| (f.as_str(), n.as_str())).collect();
        let manifest = Manifest { projects, shards, unit_chunk: SEARCH_UNIT_CHUNK, units: order.len(), v: VERSION };
        files.write.push((MANIFEST.to_string(), codec::script("index", &crate::json::write(&manifest))));
        state_files(&mut files, &order, fresh, old.as_mut())?;
        Ok(files)
    }
}

/// The kept postings' files: those holding a fresh unit or a unit gone are
/// written again, the others kept.
fn state_files(
    files: &mut IndexFiles,
    order: &[&UnitEntry],
    fresh: FxHashMap<String, Postings>,
    old: Option<&mut Old<'_>>,
) -> Result<()> {
    let now: FxHashSet<&str> = order.iter().map(|e| e.key.as_str()).collect();
    let mut touched: FxHashMap<u32, Vec<(String, Postings)>> = FxHashMap::default();
    for (key, postings) in fresh {
        touched.entry(bucket_of(&key)).or_default().push((key, postings));
    }
    let mut existing: Vec<u32> = Vec::new();
    if let Some(old) = old {
        for e in &old.order {
            if !now.contains(e.key.as_str()) {
                touched.entry(bucket_of(&e.key)).or_default();
            }
        }
        existing = old.buckets_on_disk.clone();
        for (&b, units) in &mut touched {
            let Some(kept) = old.bucket(b)? else { continue };
            let mine: FxHashSet<String> = units.iter().map(|(k, _)| k.clone()).collect();
            for (k, p) in kept {
                if now.contains(k.as_str()) && !mine.contains(k) {
                    units.push((k.clone(), p.clone()));
                }
            }
        }
    }
    for b in existing.iter().filter(|b| !touched.contains_key(b)) {
        files.keep.push(bucket_path(*b));
    }
    let mut touched: Vec<(u32, Vec<(String, Postings)>)> = touched.into_iter().collect();
    touched.sort_unstable_by_key(|(b, _)| *b);
    for (b, mut units) in touched {
        if units.is_empty() {
            continue;
        }
        units.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        files.write_bytes.push((bucket_path(b), encode_bucket(&units)));
    }
    Ok(())
}

/// The bucket of kept postings a unit is in.
fn bucket_of(key: &str) -> u32 {
    let h = blake3::hash(key.as_bytes());
    u32::from_le_bytes([h.as_bytes()[0], h.as_bytes()[1], h.as_bytes()[2], h.as_bytes()[3]]) % BUCKETS
}

fn bucket_path(b: u32) -> String {
    format!("{STATE}{b:03}.bin")
}

/// A bucket's bytes: [`STATE_MAGIC`], the blake3 of the body, then the body:
/// the count of units, each its key, the count of its terms, each term and
/// its part (every length and count a varint).
fn encode_bucket(units: &[(String, Postings)]) -> Vec<u8> {
    let mut body = Vec::new();
    codec::put(&mut body, units.len() as u64);
    for (key, postings) in units {
        codec::put(&mut body, key.len() as u64);
        body.extend_from_slice(key.as_bytes());
        codec::put(&mut body, postings.len() as u64);
        for (t, part) in postings {
            codec::put(&mut body, t.len() as u64);
            body.extend_from_slice(t.as_bytes());
            codec::put(&mut body, part.len() as u64);
            body.extend_from_slice(part);
        }
    }
    let mut out = Vec::with_capacity(body.len() + 48);
    out.extend_from_slice(STATE_MAGIC);
    out.extend_from_slice(blake3::hash(&body).as_bytes());
    out.extend_from_slice(&body);
    out
}

/// Reads what [`encode_bucket`] wrote; `None` when it is not that (torn,
/// altered, of another format).
fn decode_bucket(bytes: &[u8]) -> Option<Vec<(String, Postings)>> {
    let rest = bytes.strip_prefix(STATE_MAGIC.as_slice())?;
    let (hash, body) = rest.split_at_checked(32)?;
    if blake3::hash(body).as_bytes() != hash {
        return None;
    }
    let text = |b: &[u8]| std::str::from_utf8(b).ok().map(str::to_string);
    let mut at = 0;
    let n = codec::get_len(body, &mut at)?;
    let mut units = Vec::with_capacity(n.min(body.len()));
    for _ in 0..n {
        let len = codec::get_len(body, &mut at)?;
        let key = text(codec::take(body, &mut at, len)?)?;
        let terms = codec::get_len(body, &mut at)?;
        let mut postings = Vec::with_capacity(terms.min(body.len()));
        for _ in 0..terms {
            let len = codec::get_len(body, &mut at)?;
            let t = text(codec::take(body, &mut at, len)?)?;
            let len = codec::get_len(body, &mut at)?;
            postings.push((t.into_boxed_str(), codec::take(body, &mut at, len)?.to_vec()));
        }
        units.push((key, postings));
    }
    (at == body.len()).then_some(units)
}

/// The index's manifest (`search/index.js`), as `search.js` reads it.
#[derive(Serialize)]
struct Manifest<'a> {
    /// Each project: its name and directory.
    projects: &'a [(&'a str, &'a str)],
    /// Each shard: its first term and name.
    shards: Vec<(&'a str, &'a str)>,
    #[serde(rename = "unitChunk")]
    unit_chunk: usize,
    units: usize,
    v: u32,
}

/// The part of the previous manifest the layout is read from.
#[derive(Deserialize)]
struct ManifestIn {
    shards: Vec<(String, String)>,
    v: u32,
}

/// A shard of the term dictionary: a run of terms in order, each with its
/// posting list; its file holds `terms` and `p`, the base64 of each term's
/// posting list (a varint of its length, then the list) in the same order
/// ([`codec::shard_script`]).
struct Shard {
    first: String,
    name: String,
    script: String,
}

/// The previous render's index, read as needed.
struct Old<'a> {
    prev: Previous<'a>,
    /// Its units in index order, and each one's number.
    order: Vec<&'a UnitEntry>,
    number: FxHashMap<&'a str, u32>,
    /// The buckets of kept postings it wrote.
    buckets_on_disk: Vec<u32>,
    /// Buckets read so far.
    buckets: FxHashMap<u32, Vec<(String, Postings)>>,
}

impl<'a> Old<'a> {
    fn new(prev: Previous<'a>) -> Old<'a> {
        let mut order = prev.units.clone();
        order.sort_by(|a, b| (a.first_ts, &a.key).cmp(&(b.first_ts, &b.key)));
        order.dedup_by(|a, b| a.key == b.key);
        let number = order.iter().enumerate().map(|(c, e)| (e.key.as_str(), n32(c))).collect();
        let buckets_on_disk = prev
            .files
            .iter()
            .filter_map(|p| p.strip_prefix(STATE)?.strip_suffix(".bin")?.parse::<u32>().ok())
            .filter(|b| *b < BUCKETS && prev.files.contains(&bucket_path(*b).as_str()))
            .collect();
        Old { prev, order, number, buckets_on_disk, buckets: FxHashMap::default() }
    }

    /// Whether every unit of the previous index is in the new one, at the
    /// same number.
    fn same_numbers(&self, now: &FxHashMap<&str, u32>) -> bool {
        self.order.iter().enumerate().all(|(c, e)| now.get(e.key.as_str()) == Some(&n32(c)))
    }

    /// The units of bucket `b` (`None`: it was not written).
    fn bucket(&mut self, b: u32) -> Result<Option<&Vec<(String, Postings)>>> {
        if !self.buckets_on_disk.contains(&b) {
            return Ok(None);
        }
        if !self.buckets.contains_key(&b) {
            let path = bucket_path(b);
            let bytes = (self.prev.read)(&path)?;
            let units = decode_bucket(&bytes).with_context(|| {
                format!("{path} of the previous site is torn or altered (render with --force to rebuild it)")
            })?;
            self.buckets.insert(b, units);
        }
        Ok(self.buckets.get(&b))
    }

    /// Reads the bucket holding the kept postings of the unit `key`.
    fn load(&mut self, key: &str) -> Result<()> {
        self.bucket(bucket_of(key))?;
        if self.postings(key).is_none() {
            bail!(
                "the previous site's cache lacks the search postings of {key}, whose pages were re-used: render with --force"
            );
        }
        Ok(())
    }

    /// The kept postings of the unit `key` of the previous index, once its
    /// bucket is read ([`Old::load`]).
    fn postings(&self, key: &str) -> Option<&Postings> {
        let units = self.buckets.get(&bucket_of(key))?;
        let i = units.binary_search_by(|(k, _)| k.as_str().cmp(key)).ok()?;
        Some(&units[i].1)
    }

    /// The postings of a unit some of whose pages were re-used: those of the
    /// pages rendered (`unit`), and the re-used pages' from the kept ones,
    /// their numbers there mapped to theirs now (`now`) by path.
    fn complete(&mut self, unit: UnitIndex, now: &UnitEntry) -> Result<Postings> {
        let key = unit.entry.key.as_str();
        let was = self.number.get(key).map(|&c| self.order[c as usize]);
        let was = was.with_context(|| format!("the previous site's search index lacks {key}: render with --force"))?;
        let at_now: FxHashMap<&str, u64> =
            now.pages.iter().enumerate().map(|(i, p)| (p.as_str(), i as u64 + 1)).collect();
        let kept: FxHashSet<&str> = unit.kept.iter().map(String::as_str).collect();
        let map: FxHashMap<u64, u64> = was
            .pages
            .iter()
            .enumerate()
            .filter(|(_, p)| kept.contains(p.as_str()))
            .filter_map(|(i, p)| Some((i as u64 + 1, *at_now.get(p.as_str())?)))
            .collect();
        if map.len() != kept.len() {
            bail!("the previous site's search index lacks pages of {key}: render with --force");
        }
        self.load(key)?;
        let old = self.postings(key).map_or(&[][..], Vec::as_slice);
        merge_postings(old, &map, unit.postings)
    }

    /// The shard layout of the previous index (`None`: none readable).
    fn layout(&self) -> Option<Vec<(String, String)>> {
        let bytes = (self.prev.read)(MANIFEST).ok()?;
        let text = std::str::from_utf8(&bytes).ok()?;
        let (_, json) = codec::unscript(text)?;
        let m: ManifestIn = crate::json::read(json)?;
        (m.v == VERSION).then_some(m.shards)
    }

    /// The terms and posting lists of the previous shard `name`.
    fn shard(&self, name: &str) -> Result<Vec<(String, Vec<u8>)>> {
        let path = format!("{SHARDS}{name}.js");
        let bytes = (self.prev.read)(&path)?;
        let (bytes, terms) = std::str::from_utf8(&bytes)
            .ok()
            .and_then(codec::read_shard)
            .with_context(|| format!("{path} of the previous site is not a shard (render with --force)"))?;
        let mut at = 0;
        let mut out = Vec::with_capacity(terms.len());
        for term in terms {
            let len = codec::get_len(&bytes, &mut at).context("truncated shard")?;
            let list = codec::take(&bytes, &mut at, len).context("truncated shard")?;
            out.push((term, list.to_vec()));
        }
        Ok(out)
    }

    /// The index with only what changed written: each term whose postings
    /// changed in a fresh unit, patched into the shards of the previous
    /// layout (see [`patch_layout`]). `None` when the layout cannot be
    /// patched (none readable, a name taken twice): made whole instead.
    /// Returns the listing, the shards written and the paths kept.
    #[allow(clippy::type_complexity)]
    fn patch(
        &mut self,
        fresh: &FxHashMap<String, Postings>,
        number: &FxHashMap<&str, u32>,
        cut: Cut,
    ) -> Result<Option<(Vec<(String, String)>, Vec<Shard>, Vec<String>)>> {
        let Some(layout) = self.layout().filter(|l| !l.is_empty()) else { return Ok(None) };
        // Each name is the hash of its first term: one taken twice got a
        // suffix that depends on the others, so the layout is made whole.
        if layout.iter().any(|(_, n)| n.contains('-')) {
            return Ok(None);
        }
        let mut keys: Vec<&String> = fresh.keys().collect();
        keys.sort_unstable();
        for key in &keys {
            if self.number.contains_key(key.as_str()) {
                self.load(key)?;
            }
        }
        let this = &*self;
        // Changes: term → (unit number, its new part or none), by term.
        let mut changes: FxHashMap<&str, TermChanges<'_>> = FxHashMap::default();
        for key in keys {
            let new = &fresh[key];
            let n = number[key.as_str()];
            let Some(old) = this.postings(key).filter(|_| this.number.contains_key(key.as_str())) else {
                for (t, part) in new {
                    changes.entry(t).or_default().push((n, Some(part.as_slice())));
                }
                continue;
            };
            let (mut i, mut j) = (0, 0);
            while i < old.len() || j < new.len() {
                let ord = match (old.get(i), new.get(j)) {
                    (Some(a), Some(b)) => a.0.cmp(&b.0),
                    (Some(_), None) => Ordering::Less,
                    _ => Ordering::Greater,
                };
                match ord {
                    // Only the old postings name the term: it leaves the unit.
                    Ordering::Less => {
                        changes.entry(&old[i].0).or_default().push((n, None));
                        i += 1;
                    }
                    Ordering::Greater => {
                        changes.entry(&new[j].0).or_default().push((n, Some(new[j].1.as_slice())));
                        j += 1;
                    }
                    Ordering::Equal => {
                        if old[i].1 != new[j].1 {
                            changes.entry(&new[j].0).or_default().push((n, Some(new[j].1.as_slice())));
                        }
                        i += 1;
                        j += 1;
                    }
                }
            }
        }
        let mut changes: Vec<(&str, TermChanges<'_>)> = changes.into_iter().collect();
        changes.sort_unstable_by(|a, b| term_order(a.0, b.0));
        for (_, c) in &mut changes {
            c.sort_unstable_by_key(|(n, _)| *n);
        }
        let (listed, written, kept) = patch_layout(&layout, &changes, cut, &|name| this.shard(name))?;
        let mut names: FxHashSet<&str> = FxHashSet::default();
        if !listed.iter().all(|(_, n)| names.insert(n)) {
            return Ok(None);
        }
        let kept = kept.into_iter().map(|k| format!("{SHARDS}{}.js", layout[k].1)).collect();
        Ok(Some((listed, written, kept)))
    }
}

/// A unit's postings made of the kept ones (`old`, the pages `map` names
/// kept, their numbers mapped) and those of the pages rendered (`new`),
/// both by term in `str` order, as is the result. A page's docs are copied
/// as bytes (their gaps are relative to the page); only the pages' gaps are
/// written again, and a term whose pages are all kept under their numbers
/// is copied whole: a turn costs a scan of the unit's kept postings, not a
/// decoding of every doc of them.
fn merge_postings(old: &[(Box<str>, Vec<u8>)], map: &FxHashMap<u64, u64>, new: Postings) -> Result<Postings> {
    let mut out: Postings = Vec::with_capacity(old.len().max(new.len()));
    let (mut segs, mut more) = (Vec::new(), Vec::new());
    let mut new = new.into_iter().peekable();
    for (t, part) in old {
        while let Some((nt, np)) = new.next_if(|(nt, _)| nt < t) {
            out.push((nt, np));
        }
        page_segments(part, &mut segs).context("a bad kept posting list")?;
        let fresh = new.next_if(|(nt, _)| nt == t);
        if fresh.is_none() && segs.iter().all(|(q, _)| map.get(q) == Some(q)) {
            if !segs.is_empty() {
                out.push((t.clone(), part.clone()));
            }
            continue;
        }
        let mut merged: Vec<(u64, &[u8])> = Vec::with_capacity(segs.len() + 4);
        merged.extend(segs.iter().filter_map(|(q, r)| Some((*map.get(q)?, &part[r.clone()]))));
        if let Some((_, np)) = &fresh {
            page_segments(np, &mut more).context("a bad posting list")?;
            merged.extend(more.iter().map(|(q, r)| (*q, &np[r.clone()])));
        }
        if merged.is_empty() {
            continue;
        }
        merged.sort_by_key(|(q, _)| *q);
        merged.dedup_by_key(|(q, _)| *q);
        let mut bytes = Vec::with_capacity(part.len() + fresh.as_ref().map_or(0, |(_, np)| np.len()));
        let mut gaps = Gaps::new();
        for (q, docs) in &merged {
            gaps.put(&mut bytes, *q);
            bytes.extend_from_slice(docs);
        }
        out.push((t.clone(), bytes));
    }
    out.extend(new);
    Ok(out)
}

/// The pages of a unit's part of a posting list: each one's number and
/// where its docs are (the count less one, then their gaps); `None` when
/// it is not one.
fn page_segments(part: &[u8], out: &mut Vec<(u64, std::ops::Range<usize>)>) -> Option<()> {
    out.clear();
    let (mut at, mut page) = (0, None::<u64>);
    while at < part.len() {
        let gap = codec::get(part, &mut at)?;
        let q = match page {
            None => gap,
            Some(p) => p.checked_add(gap)?.checked_add(1)?,
        };
        page = Some(q);
        let start = at;
        let count = codec::get(part, &mut at)?;
        for _ in 0..=count {
            codec::get(part, &mut at)?;
        }
        out.push((q, start..at));
    }
    Some(())
}

/// The posting list `list` with the changes of some units applied (each
/// unit's new part, or none to take it out; by unit number).
fn patch_list(list: &[u8], changes: &[(u32, Option<&[u8]>)]) -> Result<Vec<u8>> {
    let mut segs: Vec<(u64, &[u8])> = Vec::new();
    let (mut at, mut c) = (0, None::<u64>);
    while at < list.len() {
        let gap = codec::get(list, &mut at).context("bad posting list")?;
        let n = match c {
            None => Some(gap),
            Some(p) => p.checked_add(gap).and_then(|n| n.checked_add(1)),
        }
        .context("bad posting list")?;
        c = Some(n);
        let len = codec::get_len(list, &mut at).context("bad posting list")?;
        segs.push((n, codec::take(list, &mut at, len).context("bad posting list")?));
    }
    let mut out = Vec::with_capacity(list.len() + 64);
    let mut gaps = Gaps::new();
    let mut put = |out: &mut Vec<u8>, n: u64, part: &[u8]| {
        gaps.put(out, n);
        codec::put(out, part.len() as u64);
        out.extend_from_slice(part);
    };
    let (mut i, mut j) = (0, 0);
    while i < segs.len() || j < changes.len() {
        let (n_old, n_new) = (segs.get(i).map(|s| s.0), changes.get(j).map(|c| u64::from(c.0)));
        match (n_old, n_new) {
            (Some(a), Some(b)) if a == b => {
                if let Some(part) = changes[j].1 {
                    put(&mut out, b, part);
                }
                i += 1;
                j += 1;
            }
            (Some(a), Some(b)) if a > b => {
                if let Some(part) = changes[j].1 {
                    put(&mut out, b, part);
                }
                j += 1;
            }
            (Some(a), _) => {
                put(&mut out, a, segs[i].1);
                i += 1;
            }
            (None, Some(b)) => {
                if let Some(part) = changes[j].1 {
                    put(&mut out, b, part);
                }
                j += 1;
            }
            (None, None) => break,
        }
    }
    Ok(out)
}

/// The posting list of a term made of units' parts (by unit number).
fn list_of(parts: &[(u32, &[u8])]) -> Vec<u8> {
    patch_list(&[], &parts.iter().map(|(n, p)| (*n, Some(*p))).collect::<Vec<_>>()).unwrap_or_default()
}

/// Cuts terms into shards, one term after another: before a term when the
/// shard holds some and the term alone weighs a shard or the shard is full,
/// after a term as [`cuts_after`] decides. Its state between two terms is
/// the shard under way, so two runs that cut at the same place and are
/// given the same terms after it cut the same from there.
struct Cutter {
    cut: Cut,
    cur: ShardBuf,
    out: Vec<ShardBuf>,
}

impl Cutter {
    fn new(cut: Cut) -> Cutter {
        Cutter { cut, cur: ShardBuf::default(), out: Vec::new() }
    }

    fn weight(name: &str, list: &[u8]) -> usize {
        name.len() + list.len() + 4
    }

    /// Whether a shard ends before `name` (with `list`), as [`Cutter::feed`] decides.
    fn ends_before(&self, name: &str, list: &[u8]) -> bool {
        self.cur.terms.is_empty() || Cutter::weight(name, list) >= self.cut.shard || self.cur.size >= self.cut.max
    }

    fn feed(&mut self, name: &str, list: &[u8]) {
        let weight = Cutter::weight(name, list);
        if !self.cur.terms.is_empty() && (weight >= self.cut.shard || self.cur.size >= self.cut.max) {
            self.flush();
        }
        self.cur.add(name, list);
        if cuts_after(name, weight, self.cut.shard) {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if !self.cur.terms.is_empty() {
            self.out.push(std::mem::take(&mut self.cur));
        }
    }
}

/// The previous layout (`layout`: each shard's first term and name) with
/// `changes` applied (by term in [`term_order`]; each term's changes by
/// unit). A shard holding a changed term, or where a new one falls, is
/// read (`read`), patched and cut again, from its start — or from the start
/// of the shard before it when its first term changed, since the cut before
/// it may have been its weight's — until the cut meets the start of a
/// shard holding no change, which is then kept as it is with those after
/// it. Returns the new listing, the shards written and the previous shards
/// kept (their places in `layout`).
#[allow(clippy::type_complexity)]
fn patch_layout(
    layout: &[(String, String)],
    changes: &[(&str, TermChanges<'_>)],
    cut: Cut,
    read: &dyn Fn(&str) -> Result<Vec<(String, Vec<u8>)>>,
) -> Result<(Vec<(String, String)>, Vec<Shard>, Vec<usize>)> {
    let n = layout.len();
    // The shard each change falls in: the last whose first term is not after it.
    let mut by_shard: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (c, (t, _)) in changes.iter().enumerate() {
        let k = layout.partition_point(|(first, _)| term_order(first, t) != Ordering::Greater).saturating_sub(1);
        by_shard[k].push(c);
    }
    let mut cutter = Cutter::new(cut);
    let mut listed: Vec<(String, String)> = Vec::new();
    let mut written: Vec<Shard> = Vec::new();
    let mut kept: Vec<usize> = Vec::new();
    let mut read_count = 0;
    let mut running = false;
    let mut take = |cutter: &mut Cutter, listed: &mut Vec<(String, String)>| {
        for buf in cutter.out.drain(..) {
            let name = base_name(buf.first());
            let s = buf.finish(name);
            listed.push((s.first.clone(), s.name.clone()));
            written.push(s);
        }
    };
    for k in 0..n {
        let dirty = !by_shard[k].is_empty();
        if running && !dirty && cutter.cur.terms.is_empty() {
            running = false;
        }
        if !running && !dirty {
            listed.push(layout[k].clone());
            kept.push(k);
            continue;
        }
        let old = read(&layout[k].1)?;
        read_count += 1;
        let was = old.first().map(|(t, l)| (t.clone(), Cutter::weight(t, l)));
        let terms = merge_terms(old, &by_shard[k], changes)?;
        if !running && k > 0 && kept.last() == Some(&(k - 1)) {
            // The previous layout cut before this shard: after the shard before
            // it (unchanged, so it still does), or when that one was full
            // (likewise), or because this shard's first term weighed a shard
            // alone — which may no longer hold: then the shard before is cut
            // again too.
            let holds = match (&was, terms.first()) {
                (Some((_, w)), _) if *w < cut.shard => true,
                (Some((t, _)), Some((now, l))) => t == now && Cutter::weight(now, l) >= cut.shard,
                _ => false,
            };
            if !holds {
                kept.pop();
                listed.pop();
                for (t, l) in &read(&layout[k - 1].1)? {
                    cutter.feed(t, l);
                }
                read_count += 1;
                take(&mut cutter, &mut listed);
            }
        }
        if running && !dirty && terms.first().is_none_or(|(t, l)| cutter.ends_before(t, l)) {
            // The cut meets this shard's start: it and what follows are as before.
            cutter.flush();
            take(&mut cutter, &mut listed);
            running = false;
            listed.push(layout[k].clone());
            kept.push(k);
            continue;
        }
        running = true;
        for (t, l) in &terms {
            cutter.feed(t, l);
        }
        take(&mut cutter, &mut listed);
    }
    cutter.flush();
    take(&mut cutter, &mut listed);
    tracing::debug!(
        "search index: {} terms changed in {} of {n} shards; {read_count} read, {} made",
        changes.len(),
        by_shard.iter().filter(|c| !c.is_empty()).count(),
        written.len()
    );
    Ok((listed, written, kept))
}

/// The terms of a shard (`old`) with the changes that fall in it applied:
/// lists patched, terms left without postings taken out, new terms put in
/// their place.
fn merge_terms(
    old: Vec<(String, Vec<u8>)>,
    mine: &[usize],
    changes: &[(&str, TermChanges<'_>)],
) -> Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::with_capacity(old.len() + mine.len());
    let mut c = mine.iter().map(|&i| &changes[i]).peekable();
    for (t, list) in old {
        while let Some((ct, ch)) = c.next_if(|(ct, _)| term_order(ct, &t) == Ordering::Less) {
            let list = list_of(&ch.iter().filter_map(|(n, p)| Some((*n, (*p)?))).collect::<Vec<_>>());
            if !list.is_empty() {
                out.push(((*ct).to_string(), list));
            }
        }
        let list = match c.next_if(|(ct, _)| *ct == t) {
            Some((_, ch)) => patch_list(&list, ch)?,
            None => list,
        };
        if !list.is_empty() {
            out.push((t, list));
        }
    }
    for (ct, ch) in c {
        let list = list_of(&ch.iter().filter_map(|(n, p)| Some((*n, (*p)?))).collect::<Vec<_>>());
        if !list.is_empty() {
            out.push(((*ct).to_string(), list));
        }
    }
    Ok(out)
}

/// Every shard, made from every unit's postings: the fresh units' and, for
/// the others, those the previous render kept.
fn whole(
    order: &[&UnitEntry],
    fresh: &FxHashMap<String, Postings>,
    mut old: Option<&mut Old<'_>>,
    cut: Cut,
) -> Result<Vec<Shard>> {
    // Kept postings of the units not rendered, read bucket by bucket.
    let mut kept: Vec<(u32, &str)> = Vec::new();
    for (c, e) in order.iter().enumerate() {
        if !fresh.contains_key(&e.key) {
            kept.push((n32(c), e.key.as_str()));
        }
    }
    if !kept.is_empty() {
        let old = old.as_deref_mut().context("units are re-used but the previous site has no search index")?;
        for (_, key) in &kept {
            old.load(key)?;
        }
    }
    let mut parts: Vec<(&str, u32, &[u8])> = Vec::new();
    for (c, e) in order.iter().enumerate() {
        if let Some(p) = fresh.get(&e.key) {
            parts.extend(p.iter().map(|(t, b)| (&**t, n32(c), b.as_slice())));
        }
    }
    let old = old.map(|o| &*o);
    if let Some(old) = old {
        for (c, key) in kept {
            let postings = old.postings(key).map_or(&[][..], Vec::as_slice);
            parts.extend(postings.iter().map(|(t, b)| (&**t, c, b.as_slice())));
        }
    }
    // Terms in order, then units by number.
    let mut ids: FxHashMap<&str, u32> = FxHashMap::default();
    let mut names: Vec<&str> = Vec::new();
    for (t, _, _) in &parts {
        ids.entry(t).or_insert_with(|| {
            names.push(t);
            n32(names.len() - 1)
        });
    }
    let mut by_rank: Vec<u32> = (0..n32(names.len())).collect();
    by_rank.sort_unstable_by(|a, b| term_order(names[*a as usize], names[*b as usize]));
    let mut rank = vec![0u32; names.len()];
    for (r, id) in by_rank.iter().enumerate() {
        rank[*id as usize] = n32(r);
    }
    let mut keyed: Vec<(u32, u32, &[u8])> = parts.iter().map(|(t, u, b)| (rank[ids[t] as usize], *u, *b)).collect();
    drop(parts);
    keyed.sort_unstable_by_key(|(r, u, _)| (*r, *u));
    let mut cutter = Cutter::new(cut);
    let mut shards = Vec::new();
    let mut taken: FxHashSet<String> = FxHashSet::default();
    let mut i = 0;
    let mut list = Vec::new();
    while i < keyed.len() {
        let r = keyed[i].0;
        list.clear();
        let mut gaps = Gaps::new();
        while i < keyed.len() && keyed[i].0 == r {
            let (_, u, part) = keyed[i];
            gaps.put(&mut list, u64::from(u));
            codec::put(&mut list, part.len() as u64);
            list.extend_from_slice(part);
            i += 1;
        }
        cutter.feed(names[by_rank[r as usize] as usize], &list);
        for buf in cutter.out.drain(..) {
            shards.push(named(buf, &mut taken));
        }
    }
    cutter.flush();
    for buf in cutter.out.drain(..) {
        shards.push(named(buf, &mut taken));
    }
    Ok(shards)
}

/// Whether a shard ends after `term`: with a probability of its weight over
/// `shard` (the average size), decided by a hash of the term alone, so that
/// shards average that size and a change to one term moves no other boundary.
fn cuts_after(term: &str, weight: usize, shard: usize) -> bool {
    let h = blake3::hash(term.as_bytes());
    let h = u32::from_le_bytes([h.as_bytes()[0], h.as_bytes()[1], h.as_bytes()[2], h.as_bytes()[3]]);
    u64::from(h) * (shard as u64) < (weight as u64) << 32
}

#[derive(Default)]
struct ShardBuf {
    terms: Vec<String>,
    bytes: Vec<u8>,
    size: usize,
}

impl ShardBuf {
    fn add(&mut self, term: &str, list: &[u8]) {
        self.terms.push(term.to_string());
        codec::put(&mut self.bytes, list.len() as u64);
        self.bytes.extend_from_slice(list);
        self.size += term.len() + list.len() + 4;
    }

    fn first(&self) -> &str {
        self.terms.first().map_or("", String::as_str)
    }

    /// The shard named `name`.
    fn finish(self, name: String) -> Shard {
        let first = self.terms.first().cloned().unwrap_or_default();
        let script = codec::shard_script(&format!("t/{name}"), &self.bytes, &self.terms);
        Shard { first, name, script }
    }
}

/// A shard's name: the hash of its first term.
fn base_name(first: &str) -> String {
    blake3::hash(first.as_bytes()).to_hex()[..10].to_string()
}

/// The shard of `buf`, named by the hash of its first term, made unique
/// among `taken` (`-2`, `-3`, … after it) in the order shards are made.
fn named(buf: ShardBuf, taken: &mut FxHashSet<String>) -> Shard {
    let base = base_name(buf.first());
    let mut name = base.clone();
    let mut n = 2;
    while !taken.insert(name.clone()) {
        name = format!("{base}-{n}");
        n += 1;
    }
    buf.finish(name)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;

    /// A unit as the test keeps it: its pages' terms (page 0: the title),
    /// each with its docs.
    #[derive(Debug, Clone)]
    struct Unit {
        key: String,
        first_ts: i64,
        /// Paths of pages 1, 2, …
        paths: Vec<String>,
        pages: Vec<BTreeMap<String, Vec<u64>>>,
    }

    impl Unit {
        fn entry(&self) -> UnitEntry {
            UnitEntry {
                key: self.key.clone(),
                first_ts: self.first_ts,
                title: "t".into(),
                project: "p".into(),
                pages: self.paths.clone(),
            }
        }

        /// The postings of the pages numbered in `which` (all when `None`).
        fn postings(&self, which: Option<&[usize]>) -> Postings {
            let mut acc: BTreeMap<&str, codec::Pages> = BTreeMap::new();
            for (q, terms) in self.pages.iter().enumerate() {
                if which.is_some_and(|w| q != 0 && !w.contains(&q)) {
                    continue;
                }
                for (t, docs) in terms {
                    acc.entry(t).or_default().push((q as u64, docs.clone()));
                }
            }
            acc.into_iter().map(|(t, pages)| (t.into(), codec::encode_pages(&pages))).collect()
        }

        fn fresh(&self) -> UnitIndex {
            UnitIndex { entry: self.entry(), postings: self.postings(None), kept: Vec::new() }
        }
    }

    type Site = BTreeMap<String, Vec<u8>>;

    const CUT: Cut = Cut { shard: 96, max: 320 };

    /// The site's files after a build of `units` where `fresh` are rendered
    /// (each with the pages rendered: `None` all) over `prev`.
    fn build(units: &[Unit], fresh: &[(usize, Option<Vec<usize>>)], prev: Option<&Site>) -> (Site, &'static str) {
        let mut b = IndexBuilder::with_cut(CUT);
        for (u, pages) in fresh {
            let unit = &units[*u];
            let index = match pages {
                None => unit.fresh(),
                Some(pages) => UnitIndex {
                    entry: unit.entry(),
                    postings: unit.postings(Some(pages)),
                    kept: (1..unit.pages.len())
                        .filter(|q| !pages.contains(q))
                        .map(|q| unit.paths[q - 1].clone())
                        .collect(),
                },
            };
            b.add(index).unwrap();
        }
        let entries: Vec<UnitEntry> = units.iter().map(Unit::entry).collect();
        let all: Vec<&UnitEntry> = entries.iter().collect();
        let empty = Site::new();
        let old_units: Vec<UnitEntry> = prev.map_or_else(Vec::new, |site| {
            crate::json::read::<Vec<UnitEntry>>(std::str::from_utf8(&site["units.json"]).unwrap()).unwrap()
        });
        let read = |rel: &str| prev.unwrap_or(&empty).get(rel).cloned().context("missing");
        let previous = prev.map(|site| Previous {
            units: old_units.iter().collect(),
            files: site.keys().map(String::as_str).collect(),
            read: &read,
        });
        let files = b.finish(&all, &[("p", "p/")], previous).unwrap();
        let mut site = Site::new();
        for k in files.keep {
            site.insert(k.clone(), prev.unwrap()[&k].clone());
        }
        for (p, s) in files.write {
            site.insert(p, s.into_bytes());
        }
        for (p, b) in files.write_bytes {
            site.insert(p, b);
        }
        site.insert("units.json".into(), crate::json::write(&entries).into_bytes());
        (site, files.how)
    }

    fn index_files(site: &Site) -> BTreeMap<String, String> {
        site.iter()
            .filter(|(k, _)| k.starts_with(DIR))
            .map(|(k, v)| (k.clone(), String::from_utf8_lossy(v).into_owned()))
            .collect()
    }

    fn word(n: u64) -> String {
        // Some words long enough to weigh a shard alone.
        let w = format!("w{n}");
        if n % 9 == 0 { w.repeat(18 + usize::try_from(n % 7).unwrap_or(0)) } else { w }
    }

    fn docs(r: u64) -> Vec<u64> {
        (0..=(r % 3)).map(|d| d * 2 + (r >> 3) % 2).collect()
    }

    fn page(seed: u64, n: usize) -> BTreeMap<String, Vec<u64>> {
        (0..n as u64).map(|i| (word((seed * 31 + i * 7) % 90), docs(seed + i))).collect()
    }

    /// A step of change, as a turn makes it (or more).
    #[derive(Debug, Clone)]
    enum Step {
        /// Words added to the last page of unit `u` (its first and last pages rendered).
        Grow { u: usize, seed: u64, words: usize },
        /// A new page at the end of unit `u`.
        NewPage { u: usize, seed: u64 },
        /// Unit `u` rendered whole with some words gone.
        Shrink { u: usize },
        /// A new unit, the newest.
        NewUnit { seed: u64 },
        /// A new unit older than the others (every number moves).
        OldUnit { seed: u64 },
        /// Unit `u` gone.
        Gone { u: usize },
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            6 => (0usize..64, 0u64..1000, 1usize..30).prop_map(|(u, seed, words)| Step::Grow { u, seed, words }),
            2 => (0usize..64, 0u64..1000).prop_map(|(u, seed)| Step::NewPage { u, seed }),
            2 => (0usize..64).prop_map(|u| Step::Shrink { u }),
            1 => (0u64..1000).prop_map(|seed| Step::NewUnit { seed }),
            1 => (0u64..1000).prop_map(|seed| Step::OldUnit { seed }),
            1 => (0usize..64).prop_map(|u| Step::Gone { u }),
        ]
    }

    fn new_unit(seed: u64, first_ts: i64) -> Unit {
        // Unique: no two units have the same time here.
        let key = format!("p/c/{seed}-{first_ts}/");
        Unit { paths: vec![format!("{key}index.html")], pages: vec![page(seed, 2), page(seed + 1, 12)], key, first_ts }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// After any sequence of changes, the index written from the kept
        /// postings is the one a fresh build writes, byte for byte.
        #[test]
        fn a_patched_index_is_a_fresh_one(count in 1usize..8, steps in proptest::collection::vec(step(), 1..12)) {
            let mut units: Vec<Unit> = Vec::new();
            for i in 0..count {
                let u = new_unit(i as u64 * 11, i as i64 * 10);
                units.push(u);
            }
            let all: Vec<(usize, Option<Vec<usize>>)> = (0..units.len()).map(|u| (u, None)).collect();
            let (mut site, _) = build(&units, &all, None);
            for s in steps {
                let mut fresh: Vec<(usize, Option<Vec<usize>>)> = Vec::new();
                match s {
                    Step::Grow { u, seed, words } if !units.is_empty() => {
                        let u = u % units.len();
                        let unit = &mut units[u];
                        let last = unit.pages.len() - 1;
                        unit.pages[last].extend(page(seed, words));
                        fresh.push((u, Some(vec![1, last])));
                    }
                    Step::NewPage { u, seed } if !units.is_empty() => {
                        let u = u % units.len();
                        let unit = &mut units[u];
                        let q = unit.pages.len();
                        unit.paths.push(format!("{}page-{q}.html", unit.key));
                        unit.pages.push(page(seed, 9));
                        fresh.push((u, Some(vec![q - 1, q])));
                    }
                    Step::Shrink { u } if !units.is_empty() => {
                        let u = u % units.len();
                        for p in &mut units[u].pages {
                            let drop: Vec<String> = p.keys().step_by(3).cloned().collect();
                            for k in drop {
                                p.remove(&k);
                            }
                        }
                        fresh.push((u, None));
                    }
                    Step::NewUnit { seed } => {
                        let ts = units.iter().map(|u| u.first_ts).max().unwrap_or(0) + 5;
                        let unit = new_unit(seed, ts);
                        units.push(unit);
                        fresh.push((units.len() - 1, None));
                    }
                    Step::OldUnit { seed } => {
                        let ts = units.iter().map(|u| u.first_ts).min().unwrap_or(0) - 5;
                        let unit = new_unit(seed, ts);
                        units.push(unit);
                        fresh.push((units.len() - 1, None));
                    }
                    Step::Gone { u } if !units.is_empty() => {
                        units.remove(u % units.len());
                    }
                    _ => continue,
                }
                let (next, _) = build(&units, &fresh, Some(&site));
                let all: Vec<(usize, Option<Vec<usize>>)> = (0..units.len()).map(|u| (u, None)).collect();
                let (whole, _) = build(&units, &all, None);
                prop_assert_eq!(index_files(&next), index_files(&whole));
                site = next;
            }
        }
    }

    /// A turn's words patch the shards that hold them; the others are kept.
    #[test]
    fn a_grown_unit_rewrites_only_the_shards_of_its_changed_terms() {
        let mut units: Vec<Unit> = Vec::new();
        for i in 0..6 {
            let u = new_unit(i * 11, i as i64);
            units.push(u);
        }
        let all: Vec<(usize, Option<Vec<usize>>)> = (0..units.len()).map(|u| (u, None)).collect();
        let (site, how) = build(&units, &all, None);
        assert_eq!(how, "whole");
        let shards = site.keys().filter(|k| k.starts_with(SHARDS)).count();
        assert!(shards > 10, "{shards}");
        let last = units[2].pages.len() - 1;
        units[2].pages[last].insert("w3".into(), vec![40]);
        let (next, how) = build(&units, &[(2, Some(vec![last]))], Some(&site));
        assert_eq!(how, "patched");
        let changed: Vec<&String> =
            next.keys().filter(|k| k.starts_with(SHARDS) && site.get(*k) != next.get(*k)).collect();
        assert!(!changed.is_empty() && changed.len() <= 3, "{changed:?}");
        let (whole, _) = build(&units, &all, None);
        assert_eq!(index_files(&next), index_files(&whole));
    }

    #[test]
    fn a_bucket_reads_back_and_refuses_an_altered_copy() {
        let units = vec![
            ("a/".to_string(), vec![("x".into(), vec![1, 2, 3]), ("é".into(), vec![])]),
            ("b/".to_string(), Vec::new()),
        ];
        let bytes = encode_bucket(&units);
        assert_eq!(decode_bucket(&bytes), Some(units));
        for at in [0, 20, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[at] ^= 1;
            assert_eq!(decode_bucket(&bad), None, "{at}");
        }
        assert_eq!(decode_bucket(&bytes[..bytes.len() - 1]), None);
    }
}

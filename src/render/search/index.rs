//! The archive-wide index, assembled from what each project's render gave
//! ([`super::docs::ProjectSearch`]) and, for the units whose pages were
//! re-used, from the previous site's index; written as the files of
//! `search/` (see the module doc of [`super`] for their layout).
//!
//! Everything here is ordered by content, never by the order projects or
//! threads finished, so the same input gives the same bytes, and a unit
//! added later (a new conversation, the newest) comes last and leaves the
//! others' numbers, and the files that hold them, alone.

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

/// A file of the index: its path in the site and its bytes.
pub(crate) type File = (String, String);

/// The previous site's index, for the units whose pages were re-used.
pub(crate) struct Previous<'a> {
    /// Every unit of the previous site.
    pub(crate) units: Vec<&'a UnitEntry>,
    /// The paths of its files under `search/`.
    pub(crate) files: Vec<&'a str>,
    /// Reads a file of the previous site.
    pub(crate) read: &'a (dyn Fn(&str) -> Result<String> + Sync),
}

/// One unit's postings of one term: where they are in `bytes`.
#[derive(Debug, Clone, Copy)]
struct Group {
    term: u32,
    unit: u32,
    start: usize,
    len: usize,
}

/// The index being assembled.
#[derive(Debug, Default)]
pub(crate) struct IndexBuilder {
    terms: FxHashMap<Box<str>, u32>,
    names: Vec<Box<str>>,
    /// Key of each unit met (fresh, then re-used), by the number given to it here.
    units: Vec<String>,
    unit_ids: FxHashMap<String, u32>,
    groups: Vec<Group>,
    bytes: Vec<u8>,
    /// Bytes of text the fresh units' pages gave (reported, not written).
    text_bytes: u64,
    /// Units some of whose pages were re-used, by key: those pages' paths.
    partial: FxHashMap<String, Vec<String>>,
    /// Their postings so far, decoded: (unit, term) → pages.
    pending: FxHashMap<(u32, u32), codec::Pages>,
}

impl IndexBuilder {
    fn term(&mut self, t: &str) -> u32 {
        if let Some(&id) = self.terms.get(t) {
            return id;
        }
        let id = n32(self.names.len());
        self.names.push(t.into());
        self.terms.insert(t.into(), id);
        id
    }

    fn unit(&mut self, key: &str) -> u32 {
        if let Some(&id) = self.unit_ids.get(key) {
            return id;
        }
        let id = n32(self.units.len());
        self.units.push(key.to_string());
        self.unit_ids.insert(key.to_string(), id);
        id
    }

    fn push(&mut self, term: u32, unit: u32, posting: &[u8]) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(posting);
        self.groups.push(Group { term, unit, start, len: posting.len() });
    }

    /// Counts the bytes of text a project's fresh units gave (for the log).
    pub(crate) fn text_read(&mut self, bytes: u64) {
        self.text_bytes += bytes;
    }

    /// Adds a rendered unit's postings; returns its entry. Those of a unit
    /// with pages re-used wait for theirs ([`IndexBuilder::finish`]).
    pub(crate) fn add(&mut self, unit: UnitIndex) -> Result<UnitEntry> {
        let u = self.unit(&unit.entry.key);
        for (t, posting) in &unit.postings {
            let t = self.term(t);
            if unit.kept.is_empty() {
                self.push(t, u, posting);
            } else {
                let pages = codec::decode_pages(posting).context("a bad posting list")?;
                self.pending.entry((u, t)).or_default().extend(pages);
            }
        }
        if !unit.kept.is_empty() {
            self.partial.insert(unit.entry.key.clone(), unit.kept);
        }
        Ok(unit.entry)
    }

    /// The files of the index for a site whose units are `units` (the units
    /// added, and the others, whose postings are taken from `previous`), and
    /// whose projects are `projects` (`(name, directory)`).
    pub(crate) fn finish(
        mut self,
        units: &[&UnitEntry],
        projects: &[(&str, &str)],
        previous: Option<Previous<'_>>,
    ) -> Result<Vec<File>> {
        let fresh: FxHashSet<u32> = (0..n32(self.units.len())).collect();
        let mut order: Vec<&UnitEntry> = units.to_vec();
        order.sort_by(|a, b| (a.first_ts, &a.key).cmp(&(b.first_ts, &b.key)));
        order.dedup_by(|a, b| a.key == b.key);
        // The number of each unit in the new index (`None`: not in it).
        let mut number: Vec<Option<u32>> = vec![None; self.units.len()];
        let mut reused: FxHashMap<&str, u32> = FxHashMap::default();
        for (c, e) in order.iter().enumerate() {
            match self.unit_ids.get(&e.key) {
                Some(&u) if fresh.contains(&u) => number[u as usize] = Some(n32(c)),
                _ => {
                    reused.insert(&e.key, n32(c));
                }
            }
        }
        if !reused.is_empty() || !self.partial.is_empty() {
            let previous = previous.context("units are re-used but the previous site has no search index")?;
            let now: FxHashMap<&str, &UnitEntry> = order.iter().map(|e| (e.key.as_str(), *e)).collect();
            self.take_previous(&previous, &reused, &now, &mut number)?;
        }
        // The units with pages re-used: their pages in order, as one part.
        let mut pending: Vec<((u32, u32), codec::Pages)> = std::mem::take(&mut self.pending).into_iter().collect();
        pending.sort_unstable_by_key(|(k, _)| *k);
        for ((u, t), mut pages) in pending {
            pages.sort_unstable_by_key(|(q, _)| *q);
            self.push(t, u, &codec::encode_pages(&pages));
        }
        let shards = self.shards(&number)?;
        tracing::debug!(
            "search index: {} units, {} terms in {} shards, from {} bytes of text (fresh units)",
            order.len(),
            self.names.len(),
            shards.len(),
            self.text_bytes
        );
        let mut files: Vec<File> = Vec::new();
        let mut listed: Vec<(&str, &str)> = Vec::new();
        for s in &shards {
            files.push((format!("{SHARDS}{}.js", s.name), s.script.clone()));
        }
        for s in &shards {
            listed.push((s.first.as_str(), s.name.as_str()));
        }
        for (k, chunk) in order.chunks(SEARCH_UNIT_CHUNK).enumerate() {
            let list: Vec<(&str, &str, &str, &[String])> = chunk
                .iter()
                .map(|e| (e.title.as_str(), e.project.as_str(), e.key.as_str(), e.pages.as_slice()))
                .collect();
            let id = format!("u/{k}");
            files.push((format!("{DIR}{id}.js"), codec::script(&id, &crate::json::write(&list))));
        }
        let manifest =
            Manifest { projects, shards: listed, unit_chunk: SEARCH_UNIT_CHUNK, units: order.len(), v: VERSION };
        files.push((MANIFEST.to_string(), codec::script("index", &crate::json::write(&manifest))));
        Ok(files)
    }
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

/// A unit of the previous index, here ([`IndexBuilder::local`]).
enum Local {
    Whole(u32),
    Pages(u32, FxHashMap<u64, u64>),
}

/// A shard of the term dictionary: a run of terms in order, each with its
/// posting list.
struct Shard {
    first: String,
    name: String,
    script: String,
}

/// A shard's data: its terms, and `p`, the base64 of each term's posting
/// list (a varint of its length, then the list) in the same order.
#[derive(Serialize, Deserialize)]
struct ShardData {
    p: String,
    terms: Vec<String>,
}

impl IndexBuilder {
    /// Takes the postings of the re-used units from the previous index
    /// (their numbers there mapped to theirs now), and those of the re-used
    /// pages of the units with some pages rendered (their pages' numbers
    /// there mapped to theirs now, by path; `now`: the units' entries now).
    fn take_previous(
        &mut self,
        prev: &Previous<'_>,
        reused: &FxHashMap<&str, u32>,
        now: &FxHashMap<&str, &UnitEntry>,
        number: &mut Vec<Option<u32>>,
    ) -> Result<()> {
        let mut old: Vec<&UnitEntry> = prev.units.clone();
        old.sort_by(|a, b| (a.first_ts, &a.key).cmp(&(b.first_ts, &b.key)));
        old.dedup_by(|a, b| a.key == b.key);
        let local: Vec<Option<Local>> = old.iter().map(|e| self.local(e, reused, now, number)).collect();
        let found = local.iter().flatten().count();
        if found != reused.len() + self.partial.len() {
            bail!(
                "the previous site's search index lacks {} of the units re-used",
                (reused.len() + self.partial.len()).saturating_sub(found)
            );
        }
        let mut paths: Vec<&str> = prev.files.iter().copied().filter(|p| p.starts_with(SHARDS)).collect();
        paths.sort_unstable();
        for path in paths {
            let text = (prev.read)(path)?;
            let data = parse_shard(&text).with_context(|| format!("{path} of the previous site is not a shard"))?;
            let bytes = codec::unbase64(&data.p).with_context(|| format!("{path}: bad base64"))?;
            let mut at = 0;
            for term in &data.terms {
                let len = codec::get_len(&bytes, &mut at).context("truncated shard")?;
                let list = codec::take(&bytes, &mut at, len).context("truncated shard")?;
                let mut t = None;
                let mut k = 0;
                let mut c: Option<u64> = None;
                while k < list.len() {
                    let gap = codec::get(list, &mut k).context("bad posting list")?;
                    let n = match c {
                        None => Some(gap),
                        Some(p) => p.checked_add(gap).and_then(|n| n.checked_add(1)),
                    }
                    .context("bad posting list")?;
                    c = Some(n);
                    let len = codec::get_len(list, &mut k).context("bad posting list")?;
                    let part = codec::take(list, &mut k, len).context("bad posting list")?;
                    let Some(Some(l)) = usize::try_from(n).ok().and_then(|n| local.get(n)) else {
                        continue;
                    };
                    match l {
                        Local::Whole(u) => {
                            let id = *t.get_or_insert_with(|| self.term(term));
                            self.push(id, *u, part);
                        }
                        Local::Pages(u, map) => {
                            let kept: codec::Pages = codec::decode_pages(part)
                                .context("bad posting list")?
                                .into_iter()
                                .filter_map(|(q, docs)| Some((*map.get(&q)?, docs)))
                                .collect();
                            if !kept.is_empty() {
                                let id = *t.get_or_insert_with(|| self.term(term));
                                self.pending.entry((*u, id)).or_default().extend(kept);
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// What a unit of the previous index is here: re-used whole (numbered
    /// `c` in `reused`), or some of its pages (its pages' numbers there →
    /// here, by path); `None`: neither.
    fn local(
        &mut self,
        e: &UnitEntry,
        reused: &FxHashMap<&str, u32>,
        now: &FxHashMap<&str, &UnitEntry>,
        number: &mut Vec<Option<u32>>,
    ) -> Option<Local> {
        if let Some(kept) = self.partial.get(&e.key) {
            let at_now: FxHashMap<&str, u64> =
                now.get(e.key.as_str())?.pages.iter().enumerate().map(|(i, p)| (p.as_str(), i as u64 + 1)).collect();
            let kept: FxHashSet<&str> = kept.iter().map(String::as_str).collect();
            let map: FxHashMap<u64, u64> = e
                .pages
                .iter()
                .enumerate()
                .filter(|(_, p)| kept.contains(p.as_str()))
                .filter_map(|(i, p)| Some((i as u64 + 1, *at_now.get(p.as_str())?)))
                .collect();
            return (map.len() == kept.len()).then(|| Local::Pages(self.unit(&e.key), map));
        }
        let &c = reused.get(e.key.as_str())?;
        let u = self.unit(&e.key);
        if number.len() <= u as usize {
            number.resize(u as usize + 1, None);
        }
        number[u as usize] = Some(c);
        Some(Local::Whole(u))
    }

    /// The term shards, in term order.
    fn shards(&mut self, number: &[Option<u32>]) -> Result<Vec<Shard>> {
        let mut ids: Vec<u32> = (0..n32(self.names.len())).collect();
        ids.sort_unstable_by(|a, b| self.names[*a as usize].encode_utf16().cmp(self.names[*b as usize].encode_utf16()));
        let mut rank = vec![0u32; ids.len()];
        for (r, id) in ids.iter().enumerate() {
            rank[*id as usize] = n32(r);
        }
        let num = |u: u32| number.get(u as usize).copied().flatten();
        // A unit not in the new index (its previous postings unclaimed) is dropped.
        self.groups.retain(|g| num(g.unit).is_some());
        self.groups.sort_unstable_by_key(|g| (rank[g.term as usize], num(g.unit)));
        let mut shards = Vec::new();
        let mut names: FxHashSet<String> = FxHashSet::default();
        let mut cur = ShardBuf::default();
        let mut i = 0;
        let mut list = Vec::new();
        while i < self.groups.len() {
            let term = self.groups[i].term;
            list.clear();
            let mut gaps = Gaps::new();
            while i < self.groups.len() && self.groups[i].term == term {
                let g = self.groups[i];
                // Every unit left has a number (see the `retain` above).
                gaps.put(&mut list, u64::from(num(g.unit).unwrap_or_default()));
                codec::put(&mut list, g.len as u64);
                list.extend_from_slice(&self.bytes[g.start..g.start + g.len]);
                i += 1;
            }
            let name = &self.names[term as usize];
            let weight = name.len() + list.len() + 4;
            if !cur.terms.is_empty() && (weight >= SEARCH_SHARD || cur.size >= SEARCH_SHARD_MAX) {
                shards.push(cur.finish(&mut names)?);
            }
            cur.add(name, &list);
            if cuts_after(name, weight) {
                shards.push(cur.finish(&mut names)?);
            }
        }
        if !cur.terms.is_empty() {
            shards.push(cur.finish(&mut names)?);
        }
        Ok(shards)
    }
}

/// Whether a shard ends after `term`: with a probability of its weight over
/// [`SEARCH_SHARD`], decided by a hash of the term alone, so that shards
/// average that size and a change to one term moves no other boundary.
fn cuts_after(term: &str, weight: usize) -> bool {
    let h = blake3::hash(term.as_bytes());
    let h = u32::from_le_bytes([h.as_bytes()[0], h.as_bytes()[1], h.as_bytes()[2], h.as_bytes()[3]]);
    u64::from(h) * (SEARCH_SHARD as u64) < (weight as u64) << 32
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

    /// The shard, named by a hash of its first term (unique among `names`).
    fn finish(&mut self, names: &mut FxHashSet<String>) -> Result<Shard> {
        let buf = std::mem::take(self);
        let first = buf.terms.first().cloned().unwrap_or_default();
        let base = blake3::hash(first.as_bytes()).to_hex()[..10].to_string();
        let mut name = base.clone();
        let mut n = 2;
        while !names.insert(name.clone()) {
            name = format!("{base}-{n}");
            n += 1;
        }
        let json = crate::json::write(&ShardData { p: codec::base64(&buf.bytes), terms: buf.terms });
        let script = codec::script(&format!("t/{name}"), &json);
        Ok(Shard { first, name, script })
    }
}

fn parse_shard(text: &str) -> Option<ShardData> {
    let (_, json) = codec::unscript(text)?;
    crate::json::read(json)
}

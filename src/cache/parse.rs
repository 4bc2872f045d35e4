//! Parse caches: what was parsed of each transcript file of a project, so
//! that the next render reads only what changed.
//!
//! Per file, the cache keeps its [`FileHead`] — [`Stamp`], blake3 of its
//! bytes, the byte offset and line count after its last complete line — and
//! the entries, warnings and redactions of the lines before that offset.
//! [`load`] resumes each file from it:
//! - same stamp (size, mtime, inode, ctime): trusted, nothing is parsed but
//!   the unterminated tail;
//! - grown under the same inode, and a sample of its old bytes (both ends
//!   and blocks between, [`crate::texts::Opened::sample`]: all of them up to
//!   256 KB) is unchanged: parsed only past its last complete line
//!   (`parse::parse_range` keeps offsets and line numbers of the whole file),
//!   without reading what it held. The clients and `cctree sync` only append
//!   to a transcript or replace it by another file; a rewrite in place that
//!   grows and keeps every sampled byte would keep the old headers of the
//!   lines changed, and a page reading such a line finds it changed (each
//!   line is checked against its hash when it is read again): a warning
//!   naming `file:line`, never other text;
//! - grown under another inode, and its old bytes still hash to the recorded
//!   blake3: likewise;
//! - anything else: parsed in full.
//!
//! The result equals [`Project::load_with`] of the same files.

use std::path::Path;

use anyhow::{Context, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{FORMAT, PARSE_DIR, Stamp, intern};
use crate::model::{Entry, Loc};
use crate::model::{FileId, ProjectSource, SourceFile};
use crate::parse::{self, LineWarning, ParseOptions};
use crate::project::{FileStats, Project};
use crate::redact::Redaction;
use crate::texts::{Budget, Keep, Opened, Text};

/// What a parse cache remembers of a file (its parsed lines are kept beside it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileHead {
    /// The file's stamp when it was read (taken before its bytes were read).
    pub stamp: Stamp,
    /// blake3 (hex) of the first `stamp.size` bytes (empty when unknown: the
    /// file was resumed after an append without reading what it held).
    pub hash: String,
    /// [`crate::texts::Opened::sample`] of the first `stamp.size` bytes.
    pub sample: String,
    /// Bytes of complete lines (up to and including the last newline) parsed,
    /// and how many newlines they hold.
    pub done: u64,
    pub done_lines: u32,
    /// Non-blank and unreadable lines among them.
    pub lines: u64,
    pub bad_lines: u64,
}

/// What was read of a file before: its head and the entries, warnings and
/// redactions of its first `head.done` bytes (their `loc.file` is fixed up on load).
#[derive(Debug, Clone)]
pub struct Resume {
    pub head: FileHead,
    pub entries: Vec<Entry>,
    pub warnings: Vec<LineWarning>,
    pub redactions: Vec<(Loc, Vec<Redaction>)>,
}

/// What [`load`] had to do.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoadCounts {
    /// Files parsed from their first byte, resumed after an append, reused as they were.
    pub files_parsed: usize,
    pub files_resumed: usize,
    pub files_reused: usize,
    /// Bytes parsed, and bytes whose earlier parse was reused.
    pub bytes_parsed: u64,
    pub bytes_reused: u64,
}

impl LoadCounts {
    pub fn add(&mut self, o: LoadCounts) {
        self.files_parsed += o.files_parsed;
        self.files_resumed += o.files_resumed;
        self.files_reused += o.files_reused;
        self.bytes_parsed += o.bytes_parsed;
        self.bytes_reused += o.bytes_reused;
    }
}

/// The parse cache of the file `rel` of a project (`source_id`), relative
/// to the site root: one per file, so that a render writes only those of
/// the files that changed.
pub fn path(source_id: &str, rel: &str) -> String {
    format!("{PARSE_DIR}{source_id}-{}.bin", &blake3::hash(rel.as_bytes()).to_hex()[..20])
}

/// Loads a project like [`Project::load_with`], resuming each file from what
/// an earlier load read of it (`prev[i]` for `source.files[i]`). Returns, for
/// each readable file, its head for the next parse cache ([`write()`]).
pub fn load(
    mut source: ProjectSource,
    opts: ParseOptions,
    mut prev: Vec<Option<Resume>>,
) -> (Project, Vec<Option<FileHead>>, LoadCounts) {
    crate::project::redact_meta(&mut source, opts);
    prev.resize_with(source.files.len(), || None);
    let budget = Budget::new(Keep::Lines);
    let read: Vec<ReadFile> = source
        .files
        .par_iter_enumerated()
        .zip(prev.into_par_iter())
        .map(|((i, f), r)| read_file(f, i, opts, r, &budget))
        .collect();
    let mut heads = Vec::with_capacity(read.len());
    let mut counts = LoadCounts::default();
    let mut parsed = Vec::with_capacity(read.len());
    for r in read {
        heads.push(r.head);
        counts.add(r.counts);
        parsed.push((r.parsed, r.stats, r.text));
    }
    (Project::assemble(source, parsed), heads, counts)
}

/// One file read by [`load`].
struct ReadFile {
    parsed: parse::ParsedFile,
    stats: FileStats,
    text: Text,
    head: Option<FileHead>,
    counts: LoadCounts,
}

fn read_file(f: &SourceFile, index: FileId, opts: ParseOptions, prev: Option<Resume>, budget: &Budget) -> ReadFile {
    let unreadable = |err: std::io::Error| {
        let msg = format!("cannot read {}: {err}", f.path.display());
        FileStats { read_error: Some(msg), ..FileStats::default() }
    };
    // The stamp is taken before the bytes are read: a file appended in
    // between then looks changed next time, never unchanged.
    // A file an agent writes as lines (a database) has no stamp of its own:
    // its lines are compared with the cached ones (resumed where they begin
    // with them).
    let stamp = match f.client.as_lines(&f.rel) {
        Some(_) => Stamp::default(),
        None => std::fs::metadata(&f.path).map_or_else(|_| Stamp::default(), |m| Stamp::of(&m)),
    };
    // A file the stamp vouches for is parsed from its cache: its bytes are
    // read when a page needs a line of it, not now.
    let vouched = prev.as_ref().is_some_and(|r| r.head.stamp == stamp && stamp.is_known());
    let opened = crate::project::open_source(f, budget, vouched);
    let (opened, base) = match opened.and_then(|o| Base::judge(prev, &o, stamp).map(|b| (o, b))) {
        Ok(ob) => ob,
        Err(err) => {
            let (parsed, counts) = (parse::ParsedFile::default(), LoadCounts::default());
            return ReadFile { parsed, stats: unreadable(err), text: Text::Nothing, head: None, counts };
        }
    };
    let mut base = base;
    let len = opened.len();
    let (start, lines_before, mut out) = base.take_parsed(index);
    let mut counts = base.counts;
    counts.bytes_reused = start;
    counts.bytes_parsed = len - start;
    // Complete lines (cached next time), then the unterminated tail (parsed
    // every time); the bytes not hashed yet are hashed on the way.
    let hashed = base.hashed;
    let format = parse::Format::of(f);
    let (read, err) = crate::project::parse_opened(&opened, start, lines_before, index, format, opts, |w, at| {
        if base.full_hash.is_none() && !base.unhashed && at + w.len() as u64 > hashed {
            // Below `w.len()`, so a `usize`.
            let skip = usize::try_from(hashed.saturating_sub(at)).unwrap_or(w.len());
            base.hasher.update(&w[skip..]);
        }
    });
    let (head_lines, head_bad) = (out.lines + read.mid.lines, out.bad_lines + read.mid.bad_lines);
    out.append(read.mid);
    out.append(read.tail);
    out.bytes = len;
    let mut stats = FileStats { lines: out.lines, bad_lines: out.bad_lines, bytes: out.bytes, read_error: None };
    let sample = match base.full_sample.take() {
        Some(s) => Ok(s),
        None => opened.sample(len),
    };
    let head = match (err, sample) {
        (Some(err), _) | (None, Err(err)) => {
            // Cut while read: no head (parsed in full next time).
            stats.read_error = unreadable(err).read_error;
            None
        }
        (None, Ok(sample)) => Some(FileHead {
            stamp: Stamp { size: len, ..stamp },
            hash: base.finish_hash(),
            sample,
            done: read.done,
            done_lines: read.done_lines,
            lines: head_lines,
            bad_lines: head_bad,
        }),
    };
    ReadFile { parsed: out, stats, text: opened.into_text(budget), head, counts }
}

/// What of an earlier parse a file can start from.
struct Base {
    resume: Option<Resume>,
    /// The blake3 and sample of the whole file when the stamp vouches for it.
    full_hash: Option<String>,
    full_sample: Option<String>,
    /// The hash of the first `hashed` bytes, when they were hashed.
    hasher: blake3::Hasher,
    hashed: u64,
    /// Resumed without reading its old bytes: its whole hash is unknown.
    unhashed: bool,
    counts: LoadCounts,
}

impl Base {
    /// Trusts `prev` when the file's stamp is the same, or when its old bytes
    /// are still its first bytes (it grew by an append).
    fn judge(prev: Option<Resume>, file: &Opened, stamp: Stamp) -> std::io::Result<Base> {
        let mut b = Base {
            resume: None,
            full_hash: None,
            full_sample: None,
            hasher: blake3::Hasher::new(),
            hashed: 0,
            unhashed: false,
            counts: LoadCounts::default(),
        };
        let Some(r) = prev else { return Ok(b) };
        let h = &r.head;
        let len = file.len();
        let fits = h.stamp.size <= len && h.done <= h.stamp.size;
        if fits && h.stamp.size == len && h.stamp == stamp && stamp.is_known() {
            b.full_hash = Some(h.hash.clone());
            b.full_sample = Some(h.sample.clone());
            b.counts.files_reused = 1;
            b.resume = Some(r);
        } else if fits && len > h.stamp.size && stamp.ino != 0 && stamp.ino == h.stamp.ino {
            // Grown where it was: its old bytes sampled, not read.
            if file.sample(h.stamp.size)? == h.sample {
                b.counts.files_resumed = 1;
                b.resume = Some(r);
                b.unhashed = true;
            }
        } else if fits && !h.hash.is_empty() {
            file.chunks(h.stamp.size, |w| {
                b.hasher.update(w);
            })?;
            b.hashed = h.stamp.size;
            if b.hasher.finalize().to_hex().as_str() == h.hash {
                b.counts.files_resumed = 1;
                b.resume = Some(r);
            }
        }
        Ok(b)
    }

    /// Where parsing starts, the lines before it, and what was parsed of
    /// them (with `loc.file` set to `index`).
    fn take_parsed(&mut self, index: FileId) -> (u64, u32, parse::ParsedFile) {
        let Some(r) = self.resume.take() else {
            self.counts.files_parsed = 1;
            return (0, 0, parse::ParsedFile::default());
        };
        let fix = |loc: &mut Loc| loc.file = index;
        let mut p = parse::ParsedFile {
            entries: r.entries,
            warnings: r.warnings,
            redactions: r.redactions,
            lines: r.head.lines,
            bad_lines: r.head.bad_lines,
            bytes: 0,
            newlines: r.head.done_lines,
        };
        p.entries.iter_mut().for_each(|e| fix(&mut e.loc));
        p.warnings.iter_mut().for_each(|w| fix(&mut w.loc));
        p.redactions.iter_mut().for_each(|r| fix(&mut r.0));
        (r.head.done, r.head.done_lines, p)
    }

    /// The blake3 of the whole file (the bytes not hashed yet were hashed
    /// while they were parsed).
    fn finish_hash(mut self) -> String {
        if self.unhashed {
            return String::new();
        }
        self.full_hash.take().unwrap_or_else(|| self.hasher.finalize().to_hex().to_string())
    }
}

// ---------------------------------------------------------------------------
// The stored form.

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

/// Writes the parse cache of file `i` of `p` (whose head, from [`load`], is `head`) into `w`.
pub fn write(
    w: &mut dyn std::io::Write,
    code: &str,
    settings: &str,
    p: &Project,
    i: FileId,
    head: &FileHead,
) -> Result<()> {
    let before = parsed_before(p, i, head);
    let file = CachedFileOut {
        rel: &p.source.files[i].rel,
        head,
        entries: before.entries,
        warnings: before.warnings,
        redactions: before
            .redactions
            .iter()
            .map(|(loc, rs)| (*loc, rs.iter().map(|r| (r.kind, r.count)).collect()))
            .collect(),
    };
    let cache = ParseCacheOut { format: FORMAT, code, settings, files: vec![file] };
    let body = postcard::to_allocvec(&cache).context("encoding the parse cache")?;
    w.write_all(&binary::header(&body)).and_then(|()| w.write_all(&body)).context("writing the parse cache")
}

/// The stored form of a parse cache: a magic line, the blake3 of the body,
/// then the body in postcard (varint integers; decoding reads only the
/// body's bytes, so a forged length cannot make it allocate beyond them). Reading JSON cost more than parsing the transcript again
/// (`docs/performance.md`); a body whose hash differs — a torn or altered
/// file — is ignored, never decoded.
mod binary {
    pub(super) const MAGIC: &[u8; 16] = b"cctree-parse-v2\n";
    const HEADER: usize = MAGIC.len() + 32;

    /// The magic and the body's hash.
    pub(super) fn header(body: &[u8]) -> Vec<u8> {
        let mut h = Vec::with_capacity(HEADER);
        h.extend_from_slice(MAGIC);
        h.extend_from_slice(blake3::hash(body).as_bytes());
        h
    }

    /// The body of a stored cache, when its magic and hash are right.
    pub(super) fn body(bytes: &[u8]) -> Result<&[u8], &'static str> {
        if bytes.len() < HEADER || &bytes[..MAGIC.len()] != MAGIC {
            return Err("not a parse cache of this format");
        }
        let (hash, body) = bytes[MAGIC.len()..].split_at(32);
        if blake3::hash(body).as_bytes() != hash {
            return Err("its bytes do not match its hash (torn or altered)");
        }
        Ok(body)
    }
}

/// Decodes a stored parse cache (`None`, with the reason: of another format,
/// torn, altered or unreadable).
fn decode(bytes: &[u8]) -> Result<ParseCacheIn, String> {
    let body = binary::body(bytes)?;
    postcard::from_bytes(body).map_err(|e| e.to_string())
}

/// What was parsed of a file before its head's `done`.
struct Before<'p> {
    entries: &'p [Entry],
    warnings: &'p [LineWarning],
    redactions: &'p [(Loc, Vec<Redaction>)],
}

/// The entries, warnings and redactions of file `file` of `p` before `head.done`.
fn parsed_before<'p>(p: &'p Project, file: FileId, head: &FileHead) -> Before<'p> {
    fn of_file<T>(items: &[T], file: FileId, loc: impl Fn(&T) -> Loc) -> &[T] {
        let lo = items.partition_point(|x| loc(x).file < file);
        let hi = items.partition_point(|x| loc(x).file <= file);
        &items[lo..hi]
    }
    let es = of_file(p.entries.as_slice(), file, |e| e.loc);
    let es = &es[..es.partition_point(|e| e.offset < head.done)];
    let ws = of_file(&p.warnings, file, |w| w.loc);
    let ws = &ws[..ws.partition_point(|w| w.loc.line <= head.done_lines)];
    let rs = of_file(&p.redactions, file, |r| r.0);
    let rs = &rs[..rs.partition_point(|r| r.0.line <= head.done_lines)];
    Before { entries: es, warnings: ws, redactions: rs }
}

/// Where parse caches are put (the build's staged site).
pub trait Store {
    /// Links `rel` from the previous site; `false` when it is not there.
    fn reuse(&self, rel: &str) -> Result<bool>;
    /// Writes `rel` by streaming into it.
    fn write_with(&self, rel: &str, fill: &mut dyn FnMut(&mut dyn std::io::Write) -> Result<()>) -> Result<()>;
}

/// A project's parse caches across a render: the files' heads the
/// previous render's caches recorded, and those caches' paths. A cache
/// whose file's head is the same is the same cache: linked, not written.
#[derive(Debug, Default)]
pub struct Books {
    heads: Vec<Option<FileHead>>,
    paths: rustc_hash::FxHashSet<String>,
}

/// Loads a project resuming each file from the parse caches `previous` of
/// the previous site at `site` (paths from its checked manifest; none:
/// parse everything), as [`load`] does; returns the project, the heads of
/// its files for the next caches ([`Books::save`]), what the previous
/// caches were, and what had to be done.
pub fn resume(
    site: &Path,
    previous: &[String],
    code: &str,
    settings: &str,
    source: ProjectSource,
    opts: ParseOptions,
) -> (Project, Vec<Option<FileHead>>, Books, LoadCounts) {
    let resume = if previous.is_empty() { Vec::new() } else { read(site, previous, code, settings, &source) };
    let books = Books {
        heads: resume.iter().map(|r| r.as_ref().map(|r| r.head.clone())).collect(),
        paths: previous.iter().cloned().collect(),
    };
    let (project, heads, counts) = load(source, opts, resume);
    (project, heads, books, counts)
}

impl Books {
    /// Saves the parse cache of each file of `p` (of the project whose id
    /// is `source_id`; `heads` from [`resume`]) into `out`: linked from the
    /// previous site when its head is unchanged, written otherwise. Returns
    /// their paths and how many were written.
    pub fn save(
        &self,
        out: &dyn Store,
        source_id: &str,
        code: &str,
        settings: &str,
        p: &Project,
        heads: &[Option<FileHead>],
    ) -> Result<(Vec<String>, usize)> {
        let mut paths = Vec::new();
        let mut written = 0;
        for ((f, i), head) in p.source.files.iter().zip(p.source.files.ids()).zip(heads) {
            let Some(head) = head else { continue };
            let path = self::path(source_id, &f.rel);
            let same =
                self.heads.get(i.index()).is_some_and(|h| h.as_ref() == Some(head)) && self.paths.contains(&path);
            if !(same && out.reuse(&path)?) {
                out.write_with(&path, &mut |w| write(w, code, settings, p, i, head))?;
                written += 1;
            }
            paths.push(path);
        }
        Ok((paths, written))
    }
}

/// Reads a project's parse caches `rels` from the previous site (in
/// parallel): what to resume each of `source.files` from (`None` where
/// nothing matches). `rels` come from a checked manifest (inside
/// `.cctree-cache/parse/`).
pub fn read(site: &Path, rels: &[String], code: &str, settings: &str, source: &ProjectSource) -> Vec<Option<Resume>> {
    let t0 = std::time::Instant::now();
    let index: rustc_hash::FxHashMap<&str, usize> =
        source.files.iter().enumerate().map(|(i, f)| (f.rel.as_str(), i)).collect();
    let read: Vec<(usize, Resume)> = rels
        .par_iter()
        .filter(|rel| super::is_parse_cache_path(rel))
        .flat_map_iter(|rel| {
            let cache = std::fs::read(site.join(rel)).ok().and_then(|bytes| {
                decode(&bytes)
                    .map_err(|e| {
                        tracing::info!("ignoring the parse cache {} (parsing again): {e}", site.join(rel).display());
                    })
                    .ok()
            });
            let cache = cache.filter(|c| c.format == FORMAT && c.code == code && c.settings == settings);
            cache.into_iter().flat_map(|c| c.files).filter_map(|f| {
                let &i = index.get(f.rel.as_str())?;
                let redactions = f
                    .redactions
                    .into_iter()
                    .map(|(loc, rs)| {
                        (loc, rs.into_iter().map(|(k, count)| Redaction { kind: intern(&k), count }).collect())
                    })
                    .collect();
                Some((i, Resume { head: f.head, entries: f.entries, warnings: f.warnings, redactions }))
            })
        })
        .collect();
    let mut out: Vec<Option<Resume>> = vec![None; source.files.len()];
    for (i, r) in read {
        out[i] = Some(r);
    }
    tracing::debug!("{}: parse caches read in {:.3} s", source.name, t0.elapsed().as_secs_f64());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A project of one file: prompts and replies, a broken line, a redacted secret.
    fn project() -> (tempfile::TempDir, Project, FileHead) {
        let dir = tempfile::tempdir().unwrap();
        use std::fmt::Write as _;
        let mut b = String::new();
        for i in 0..50 {
            let parent = if i == 0 { "null".to_string() } else { format!("\"u{}\"", i - 1) };
            write!(
                b,
                r#"{{"type":"user","uuid":"u{i}","parentUuid":{parent},"sessionId":"s","timestamp":"2026-01-01T00:00:{:02}Z","message":{{"role":"user","content":"prompt {i} ghp_0123456789abcdefghij0123456789abcdef"}}}}"#,
                i % 60
            )
            .unwrap();
            b.push_str(if i % 9 == 4 { "\n{broken\n" } else { "\n" });
        }
        std::fs::write(dir.path().join("s.jsonl"), b).unwrap();
        let source = crate::agent::claude::discover::scan_project(dir.path()).unwrap();
        let (p, heads, _) = load(source, ParseOptions { redact: true }, Vec::new());
        let head = heads[0].clone().unwrap();
        (dir, p, head)
    }

    fn stored(p: &Project, head: &FileHead) -> Vec<u8> {
        let mut out = Vec::new();
        write(&mut out, "code", "settings", p, FileId::FIRST, head).unwrap();
        out
    }

    #[test]
    fn a_stored_cache_reads_back_as_written() {
        let (_dir, p, head) = project();
        let c = decode(&stored(&p, &head)).unwrap();
        assert_eq!((c.format, c.code.as_str(), c.settings.as_str()), (FORMAT, "code", "settings"));
        let f = &c.files[0];
        assert_eq!(f.head, head);
        let key = |e: &Entry| (e.loc, e.offset, e.len, e.line_hash, e.uuid.clone(), e.excerpt.clone(), e.timestamp);
        assert_eq!(f.entries.iter().map(key).collect::<Vec<_>>(), p.entries.iter().map(key).collect::<Vec<_>>());
        assert_eq!(f.warnings, p.warnings);
        assert!(!p.warnings.is_empty() && !p.redactions.is_empty(), "the sample has warnings and redactions");
        let kinds = |rs: &[(Loc, Vec<(String, usize)>)]| rs.iter().map(|(l, r)| (*l, r.len())).collect::<Vec<_>>();
        let want: Vec<_> = p.redactions.iter().map(|(l, r)| (*l, r.len())).collect();
        assert_eq!(kinds(&f.redactions), want);
    }

    /// A cache torn (cut short), altered (one byte changed anywhere), of the
    /// JSON format before it, empty or of random bytes is refused, never decoded.
    #[test]
    fn a_torn_altered_or_foreign_cache_is_refused() {
        let (_dir, p, head) = project();
        let good = stored(&p, &head);
        for at in [0, 10, binary::MAGIC.len() + 3, good.len() / 2, good.len() - 1] {
            let mut bad = good.clone();
            bad[at] ^= 0x20;
            assert!(decode(&bad).is_err(), "byte {at} altered");
        }
        for cut in [0, 5, binary::MAGIC.len() + 32, good.len() - 1] {
            assert!(decode(&good[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = good.clone();
        longer.push(0);
        assert!(decode(&longer).is_err(), "a byte appended");
        assert!(decode(b"{\"format\":4,\"code\":\"code\",\"settings\":\"settings\",\"files\":[]}").is_err());
        // A body of the right hash but not a cache (a length claiming more than the file holds).
        let junk = [0xffu8; 64];
        let mut forged = binary::header(&junk);
        forged.extend_from_slice(&junk);
        assert!(decode(&forged).is_err());
    }

    /// A file of more than 256 KB that grew where it was is resumed from a
    /// sample of its old bytes; one rewritten there with a sampled byte
    /// changed is parsed again; one replaced by another file is resumed only
    /// when its old bytes hash as before.
    #[cfg(unix)]
    #[test]
    fn a_large_file_grown_in_place_is_resumed_from_a_sample() {
        use std::io::Write as _;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.jsonl");
        let line = |i: usize| {
            format!(
                "{{\"type\":\"user\",\"uuid\":\"u{i}\",\"sessionId\":\"s\",\"message\":{{\"role\":\"user\",\"content\":\"{}\"}}}}\n",
                "x".repeat(200)
            )
        };
        let body: String = (0..3000).map(line).collect();
        assert!(body.len() as u64 > crate::texts::SAMPLE_WHOLE * 2);
        std::fs::write(&file, &body).unwrap();
        let opts = ParseOptions::default();
        let load_now = |prev: Vec<Option<Resume>>| {
            let source = crate::agent::claude::discover::scan_project(dir.path()).unwrap();
            load(source, opts, prev)
        };
        let resume_of = |p: &Project, head: &FileHead| {
            let mut bytes = Vec::new();
            write(&mut bytes, "c", "s", p, FileId::FIRST, head).unwrap();
            let f = decode(&bytes).unwrap().files.remove(0);
            vec![Some(Resume { head: f.head, entries: f.entries, warnings: f.warnings, redactions: Vec::new() })]
        };
        let (p, heads, _) = load_now(Vec::new());
        let head = heads[0].clone().unwrap();
        assert!(!head.hash.is_empty() && !head.sample.is_empty());
        // Appended: resumed, its whole hash now unknown; the same entries as a fresh parse.
        std::fs::OpenOptions::new().append(true).open(&file).unwrap().write_all(line(3000).as_bytes()).unwrap();
        let (q, heads, counts) = load_now(resume_of(&p, &head));
        assert_eq!((counts.files_resumed, counts.files_parsed), (1, 0), "{counts:?}");
        let grown = heads[0].clone().unwrap();
        assert!(grown.hash.is_empty());
        let (fresh, _, _) = load_now(Vec::new());
        let key = |p: &Project| p.entries.iter().map(|e| (e.offset, e.line_hash)).collect::<Vec<_>>();
        assert_eq!(key(&q), key(&fresh));
        // Rewritten in place, grown, its first line changed: parsed in full.
        let changed = body.replacen("u0", "v0", 1) + &line(3000) + &line(3001);
        let mut f = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
        f.write_all(changed.as_bytes()).unwrap();
        drop(f);
        let (_, _, counts) = load_now(resume_of(&q, &grown));
        assert_eq!((counts.files_resumed, counts.files_parsed), (0, 1), "{counts:?}");
        // Replaced by another file holding the same bytes and more: resumed
        // when the whole hash is known, parsed in full when it is not.
        let (p, heads, _) = load_now(Vec::new());
        let head = heads[0].clone().unwrap();
        let tmp = dir.path().join("t");
        std::fs::write(&tmp, changed.clone() + &line(3002)).unwrap();
        std::fs::rename(&tmp, &file).unwrap();
        let (q, heads, counts) = load_now(resume_of(&p, &head));
        assert_eq!((counts.files_resumed, counts.files_parsed), (1, 0), "{counts:?}");
        std::fs::OpenOptions::new().append(true).open(&file).unwrap().write_all(line(3003).as_bytes()).unwrap();
        let (q, heads, _) = load_now(resume_of(&q, &heads[0].clone().unwrap()));
        let unknown = heads[0].clone().unwrap();
        assert!(unknown.hash.is_empty());
        std::fs::write(&tmp, std::fs::read(&file).unwrap()).unwrap();
        std::fs::rename(&tmp, &file).unwrap();
        let (_, _, counts) = load_now(resume_of(&q, &unknown));
        assert_eq!((counts.files_resumed, counts.files_parsed), (0, 1), "{counts:?}");
    }

    /// A cache read back resumes the file: the project loaded from it is the
    /// project parsed from scratch; one of another renderer or settings is
    /// not used.
    #[test]
    fn a_project_resumed_from_its_cache_is_the_project_parsed() {
        let (dir, p, head) = project();
        let site = tempfile::tempdir().unwrap();
        let rel = path("id", &p.source.files[FileId::FIRST].rel);
        std::fs::create_dir_all(site.path().join(PARSE_DIR)).unwrap();
        std::fs::write(site.path().join(&rel), stored(&p, &head)).unwrap();
        let source = || crate::agent::claude::discover::scan_project(dir.path()).unwrap();
        let r = read(site.path(), std::slice::from_ref(&rel), "code", "settings", &source());
        assert!(r[0].is_some());
        let (q, _, counts) = load(source(), ParseOptions { redact: true }, r);
        assert_eq!(counts.files_reused, 1);
        let key = |p: &Project| p.entries.iter().map(|e| (e.loc, e.offset, e.line_hash)).collect::<Vec<_>>();
        assert_eq!(key(&q), key(&p));
        for (code, settings) in [("other", "settings"), ("code", "other")] {
            assert!(read(site.path(), std::slice::from_ref(&rel), code, settings, &source())[0].is_none());
        }
    }
}

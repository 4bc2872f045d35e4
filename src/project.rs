//! A loaded project: its files parsed in parallel, and its graph.

use rayon::prelude::*;

use crate::discover::{ProjectSource, SourceFile};
use crate::graph::{FileFacts, Graph, GraphInput};
use crate::parse::{self, Entry, LineWarning, Loc};

/// Per-file counts.
#[derive(Debug, Clone, Default)]
pub struct FileStats {
    pub lines: u64,
    pub bad_lines: u64,
    pub bytes: u64,
    /// The file could not be read at all.
    pub read_error: Option<String>,
}

/// A project after the parse and graph stages.
#[derive(Debug)]
pub struct Project {
    pub source: ProjectSource,
    pub file_stats: Vec<FileStats>,
    pub entries: Vec<Entry>,
    pub warnings: Vec<LineWarning>,
    /// The bytes of each file, by file index (entries' text is read from here).
    pub texts: Vec<Box<[u8]>>,
    /// Lines where `--redact` replaced secrets.
    pub redactions: Vec<(Loc, Vec<crate::redact::Redaction>)>,
    pub graph: Graph,
}

impl Project {
    /// Reads and parses every file of the project (in parallel), then builds the graph.
    pub fn load(source: ProjectSource) -> Project {
        Self::load_with(source, parse::ParseOptions::default())
    }

    /// [`Project::load`] with parse options (e.g. redaction).
    pub fn load_with(mut source: ProjectSource, opts: parse::ParseOptions) -> Project {
        redact_meta(&mut source, opts);
        let parsed: Vec<(parse::ParsedFile, FileStats, Box<[u8]>)> =
            source.files.par_iter().enumerate().map(|(i, f)| read_file(f, i as u32, opts)).collect();
        Self::assemble(source, opts, parsed)
    }

    /// [`Project::load_with`], resuming each file from what an earlier load
    /// read of it (`prev[i]` for `source.files[i]`, see [`Resume`]): a file
    /// whose size and mtime are unchanged is trusted; a file that grew is
    /// parsed only past the end of its last complete line, once the blake3 of
    /// its old bytes matches; anything else is parsed in full. The result is
    /// the same as [`Project::load_with`]. Returns, for each readable file,
    /// what to remember for next time (see [`Project::resume_parts`]).
    pub fn load_resuming(
        source: ProjectSource,
        opts: parse::ParseOptions,
        prev: Vec<Option<Resume>>,
    ) -> (Project, Vec<Option<FileHead>>, LoadCounts) {
        let mut source = source;
        redact_meta(&mut source, opts);
        let mut prev = prev;
        prev.resize_with(source.files.len(), || None);
        let parsed: Vec<ReadFile> = source
            .files
            .par_iter()
            .zip(prev.into_par_iter())
            .enumerate()
            .map(|(i, (f, r))| read_file_resuming(f, i as u32, opts, r))
            .collect();
        let mut heads = Vec::with_capacity(parsed.len());
        let mut counts = LoadCounts::default();
        let mut rest = Vec::with_capacity(parsed.len());
        for (p, s, bytes, head, c) in parsed {
            heads.push(head);
            counts.add(c);
            rest.push((p, s, bytes));
        }
        let project = Self::assemble(source, opts, rest);
        (project, heads, counts)
    }

    /// What to remember of file `i` for [`Project::load_resuming`]: its
    /// entries, warnings and redactions before `head.done`.
    pub fn resume_parts(&self, i: usize, head: &FileHead) -> ResumeParts<'_> {
        let file = i as u32;
        let of_file = |loc: &Loc| loc.file.cmp(&file);
        let range = |lo: usize, hi: usize| lo..hi;
        let e_lo = self.entries.partition_point(|e| of_file(&e.loc).is_lt());
        let e_hi = self.entries.partition_point(|e| of_file(&e.loc).is_le());
        let es = &self.entries[range(e_lo, e_hi)];
        let es = &es[..es.partition_point(|e| e.offset < head.done)];
        let w_lo = self.warnings.partition_point(|w| of_file(&w.loc).is_lt());
        let w_hi = self.warnings.partition_point(|w| of_file(&w.loc).is_le());
        let ws = &self.warnings[range(w_lo, w_hi)];
        let ws = &ws[..ws.partition_point(|w| w.loc.line <= head.done_lines)];
        let r_lo = self.redactions.partition_point(|r| of_file(&r.0).is_lt());
        let r_hi = self.redactions.partition_point(|r| of_file(&r.0).is_le());
        let rs = &self.redactions[range(r_lo, r_hi)];
        let rs = &rs[..rs.partition_point(|r| r.0.line <= head.done_lines)];
        ResumeParts { entries: es, warnings: ws, redactions: rs }
    }

    fn assemble(
        source: ProjectSource,
        _opts: parse::ParseOptions,
        parsed: Vec<(parse::ParsedFile, FileStats, Box<[u8]>)>,
    ) -> Project {
        let total: usize = parsed.iter().map(|(p, _, _)| p.entries.len()).sum();
        let mut entries = Vec::with_capacity(total);
        let mut warnings = Vec::new();
        let mut file_stats = Vec::with_capacity(parsed.len());
        let mut redactions = Vec::new();
        let mut texts = Vec::with_capacity(parsed.len());
        for (p, s, bytes) in parsed {
            texts.push(bytes);
            redactions.extend(p.redactions);
            entries.extend(p.entries);
            warnings.extend(p.warnings);
            file_stats.push(s);
        }
        let graph = Self::graph_of(&source, &entries);
        Project { source, file_stats, entries, warnings, texts, redactions, graph }
    }

    fn graph_of(source: &ProjectSource, entries: &[Entry]) -> Graph {
        let files: Vec<FileFacts> = source
            .files
            .iter()
            .map(|f| FileFacts {
                class: f.class,
                agent_id_from_name: f.agent_id_from_name.clone(),
                kept_version: f.kept_version,
                session_from_name: (f.class == crate::discover::FileClass::Main)
                    .then(|| {
                        let live = crate::discover::split_kept(&f.rel).unwrap_or_else(|| f.rel.clone());
                        live.strip_suffix(".jsonl").filter(|s| !s.contains('/')).map(str::to_string)
                    })
                    .flatten(),
            })
            .collect();
        Graph::build(&GraphInput { entries, files: &files, agent_meta: &source.agent_meta })
    }

    /// The JSON text of an entry's line.
    pub fn raw<'a>(&'a self, e: &'a Entry) -> &'a str {
        if let Some(r) = &e.repaired {
            return r;
        }
        let bytes = self.texts.get(e.loc.file as usize).map_or(&[][..], |t| &t[..]);
        let start = (e.offset as usize).min(bytes.len());
        let end = (start + e.len as usize).min(bytes.len());
        // Lines that were not valid UTF-8 carry their repaired text instead.
        std::str::from_utf8(&bytes[start..end]).unwrap_or("")
    }

    /// `path:line` of an entry location, for messages.
    pub fn locate(&self, loc: Loc) -> String {
        let path =
            self.source.files.get(loc.file as usize).map_or_else(|| "?".into(), |f| f.path.display().to_string());
        format!("{path}:{}", loc.line)
    }

    /// The working directory the project's entries name most often (ties: smallest).
    pub fn cwd(&self) -> Option<&str> {
        let mut counts: rustc_hash::FxHashMap<&str, usize> = Default::default();
        for e in &self.entries {
            if let Some(c) = e.cwd.as_deref() {
                if !e.is_sidechain {
                    *counts.entry(c).or_default() += 1;
                }
            }
        }
        counts.into_iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0))).map(|(c, _)| c)
    }
}

fn read_file(f: &SourceFile, index: u32, opts: parse::ParseOptions) -> (parse::ParsedFile, FileStats, Box<[u8]>) {
    match std::fs::read(&f.path) {
        Ok(bytes) => {
            let p = parse::parse_bytes_with(&bytes, index, opts);
            let s = FileStats { lines: p.lines, bad_lines: p.bad_lines, bytes: p.bytes, read_error: None };
            (p, s, bytes.into_boxed_slice())
        }
        Err(err) => {
            let msg = format!("cannot read {}: {err}", f.path.display());
            let s = FileStats { read_error: Some(msg), ..FileStats::default() };
            (parse::ParsedFile::default(), s, Box::default())
        }
    }
}

fn redact_meta(source: &mut ProjectSource, opts: parse::ParseOptions) {
    if opts.redact {
        for meta in source.agent_meta.values_mut() {
            for field in [&mut meta.description, &mut meta.agent_type] {
                if let Some(text) = field.as_mut() {
                    *text = crate::redact::redact(text).0.into_owned();
                }
            }
        }
    }
}

/// What [`Project::load_resuming`] remembers of a file (the parsed part of it
/// is kept by the caller, see [`Project::resume_parts`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileHead {
    /// Size and modification time (ns since the epoch, 0 if unknown) when read.
    pub size: u64,
    pub mtime_ns: u64,
    /// blake3 (hex) of the first `size` bytes.
    pub hash: String,
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
    pub redactions: Vec<(Loc, Vec<crate::redact::Redaction>)>,
}

/// The borrowed counterpart of [`Resume`]'s parsed parts, for storing.
#[derive(Debug, Clone, Copy)]
pub struct ResumeParts<'a> {
    pub entries: &'a [Entry],
    pub warnings: &'a [LineWarning],
    pub redactions: &'a [(Loc, Vec<crate::redact::Redaction>)],
}

/// What [`Project::load_resuming`] had to do.
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

fn mtime_ns(meta: &std::fs::Metadata) -> u64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// One file read by [`Project::load_resuming`].
type ReadFile = (parse::ParsedFile, FileStats, Box<[u8]>, Option<FileHead>, LoadCounts);

fn read_file_resuming(f: &SourceFile, index: u32, opts: parse::ParseOptions, prev: Option<Resume>) -> ReadFile {
    // The time is taken before the bytes are read: a file appended in between
    // then looks changed next time, never unchanged.
    let mtime = std::fs::metadata(&f.path).map_or(0, |m| mtime_ns(&m));
    let bytes = match std::fs::read(&f.path) {
        Ok(b) => b,
        Err(err) => {
            let msg = format!("cannot read {}: {err}", f.path.display());
            let s = FileStats { read_error: Some(msg), ..FileStats::default() };
            return (parse::ParsedFile::default(), s, Box::default(), None, LoadCounts::default());
        }
    };
    let len = bytes.len();
    let mut counts = LoadCounts::default();
    // Resume from the earlier parse when the old bytes are still the file's first bytes.
    let mut hasher = blake3::Hasher::new();
    let mut hashed = 0usize;
    let mut full_hash = None;
    let mut base = None;
    if let Some(r) = prev {
        let h = &r.head;
        let fits = h.size as usize <= len && h.done <= h.size;
        if fits && h.size as usize == len && h.mtime_ns == mtime && mtime != 0 {
            full_hash = Some(h.hash.clone());
            counts.files_reused = 1;
            base = Some(r);
        } else if fits {
            hasher.update(&bytes[..h.size as usize]);
            hashed = h.size as usize;
            if hasher.finalize().to_hex().as_str() == h.hash {
                counts.files_resumed = 1;
                base = Some(r);
            }
        }
    }
    let (start, lines_before, mut out) = match base {
        Some(r) => {
            let fix = |mut loc: Loc| {
                loc.file = index;
                loc
            };
            let mut p = parse::ParsedFile {
                entries: r.entries,
                warnings: r.warnings,
                redactions: r.redactions,
                lines: r.head.lines,
                bad_lines: r.head.bad_lines,
                bytes: 0,
            };
            p.entries.iter_mut().for_each(|e| e.loc = fix(e.loc));
            p.warnings.iter_mut().for_each(|w| w.loc = fix(w.loc));
            p.redactions.iter_mut().for_each(|r| r.0 = fix(r.0));
            (r.head.done as usize, r.head.done_lines, p)
        }
        None => {
            counts.files_parsed = 1;
            (0, 0, parse::ParsedFile::default())
        }
    };
    counts.bytes_reused = start as u64;
    counts.bytes_parsed = (len - start) as u64;
    // Complete lines (cached next time), then the unterminated tail (parsed every time).
    let done = memchr::memrchr(b'\n', &bytes[start..]).map_or(start, |i| start + i + 1);
    let mid = if start == 0 {
        // A whole file: parsed in parallel pieces when it is big.
        parse::parse_bytes_with(&bytes[..done], index, opts)
    } else {
        parse::parse_range(&bytes, start..done, lines_before, index, opts)
    };
    let done_lines = lines_before + memchr::memchr_iter(b'\n', &bytes[start..done]).count() as u32;
    let head_lines = out.lines + mid.lines;
    let head_bad = out.bad_lines + mid.bad_lines;
    let tail = parse::parse_range(&bytes, done..len, done_lines, index, opts);
    for p in [mid, tail] {
        out.entries.extend(p.entries);
        out.warnings.extend(p.warnings);
        out.redactions.extend(p.redactions);
        out.lines += p.lines;
        out.bad_lines += p.bad_lines;
    }
    out.bytes = len as u64;
    let hash = full_hash.unwrap_or_else(|| {
        hasher.update(&bytes[hashed..]);
        hasher.finalize().to_hex().to_string()
    });
    let head = FileHead {
        size: len as u64,
        mtime_ns: mtime,
        hash,
        done: done as u64,
        done_lines,
        lines: head_lines,
        bad_lines: head_bad,
    };
    let s = FileStats { lines: out.lines, bad_lines: out.bad_lines, bytes: out.bytes, read_error: None };
    (out, s, bytes.into_boxed_slice(), Some(head), counts)
}

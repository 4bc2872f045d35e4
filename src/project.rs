//! A loaded project ([`Project`]): its files read and parsed in parallel, and
//! its graph. A load that resumes from what an earlier render parsed is
//! [`crate::cache::parse::load`].

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
        let t = std::time::Instant::now();
        let parsed: Vec<(parse::ParsedFile, FileStats, Box<[u8]>)> =
            source.files.par_iter().enumerate().map(|(i, f)| read_file(f, i as u32, opts)).collect();
        tracing::debug!("{}: files read and parsed in {:.3} s", source.name, t.elapsed().as_secs_f64());
        Self::assemble(source, parsed)
    }

    /// The project of `source` from its parsed files (`parsed[i]` for
    /// `source.files[i]`: entries, counts, bytes); builds the graph.
    pub(crate) fn assemble(source: ProjectSource, parsed: Vec<(parse::ParsedFile, FileStats, Box<[u8]>)>) -> Project {
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
        let t = std::time::Instant::now();
        let graph = Self::graph_of(&source, &entries);
        tracing::debug!("{}: graph in {:.3} s", source.name, t.elapsed().as_secs_f64());
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

    /// The entry's line read as a tree, as the client reads it ([`crate::json::parse`]).
    /// Every entry's line reads: the parse stage read it with the same rules.
    pub fn json(&self, e: &Entry) -> Result<serde_json::Value, serde_json::Error> {
        crate::json::parse(self.raw(e))
    }

    /// A `tool-results/` side file of the project (`<session>/tool-results/<name>`):
    /// its path and the text of its first `cap` bytes; `None` when the project
    /// has no such file or it cannot be read. Input is read here, never by render.
    pub fn side_file(&self, key: &str, cap: usize) -> Option<(&std::path::Path, String)> {
        use std::io::Read;
        let path = self.source.tool_results.get(key)?;
        let mut buf = Vec::new();
        std::fs::File::open(path).ok()?.take(cap as u64).read_to_end(&mut buf).ok()?;
        Some((path, String::from_utf8_lossy(&buf).into_owned()))
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

pub(crate) fn redact_meta(source: &mut ProjectSource, opts: parse::ParseOptions) {
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

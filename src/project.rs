//! A loaded project ([`Project`]): its files read and parsed in parallel, and
//! its graph. A load that resumes from what an earlier render parsed is
//! [`crate::cache::parse::load`].

use std::borrow::Cow;

use rayon::prelude::*;

use crate::graph::{FileFacts, Graph, GraphInput};
use crate::id::IdVec;
use crate::model::{Client, FileId, ProjectSource, SourceFile};
use crate::model::{Entries, Entry, Loc};
use crate::parse::{self, LineWarning};
use crate::texts::{Budget, Keep, LineError, Opened, Text};

/// Which checkpoints of a loaded project a fork may cut at, as its agent
/// judges them (`crate::agent::Agent::checkpoints`): what the pages that
/// offer the `cctree fork` command are told.
#[derive(Debug, Clone, Copy, Default)]
pub enum Checkpoints {
    /// The agent's sessions are forked by no `cctree fork` (its client has
    /// its own way, or none).
    #[default]
    None,
    /// Judged over the whole project at once: the legal nodes.
    Nodes(fn(&Project) -> Vec<crate::graph::NodeId>),
    /// Judged per conversation, when a page of it first asks: for each of
    /// the branches given, a flag per node of the branch's own run.
    Branches(fn(&Project, &[crate::graph::BranchId]) -> Vec<Vec<bool>>),
}

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
    pub file_stats: IdVec<FileId, FileStats>,
    pub entries: Entries,
    pub warnings: Vec<LineWarning>,
    /// What is kept of each file, by file index, to read its lines again
    /// ([`Project::line`]; see [`crate::texts`]).
    pub texts: IdVec<FileId, Text>,
    /// Lines where `--redact` replaced secrets.
    pub redactions: Vec<(Loc, Vec<crate::redact::Redaction>)>,
    pub graph: Graph,
    /// What the archive knows beyond the transcripts (set by the build).
    pub kept: Kept,
}

/// What is known of a project beyond its transcripts: the sessions only
/// the prompt history still holds ([`crate::recover`]), and the
/// conversations only cctree's archive still holds (the source of its last
/// `cctree sync` deleted every file of theirs: [`crate::sync::only_here`]).
#[derive(Debug, Clone, Default)]
pub struct Kept {
    /// Sessions whose transcript is gone, oldest first.
    pub recovered: Vec<crate::model::RecoveredSession>,
    /// The roots of the conversations kept only by the archive.
    pub archive_only: rustc_hash::FxHashSet<crate::graph::NodeId>,
}

impl Project {
    /// Reads and parses every file of the project (in parallel), then builds the graph.
    pub fn load(source: ProjectSource) -> Project {
        Self::load_with(source, parse::ParseOptions::default())
    }

    /// [`Project::load`] with parse options (e.g. redaction).
    pub fn load_with(source: ProjectSource, opts: parse::ParseOptions) -> Project {
        Self::load_keeping(source, opts, Keep::Lines)
    }

    /// [`Project::load`] keeping none of the files' bytes: no line can be
    /// read again ([`Project::line`] fails), memory is the entries' headers
    /// and the graph (`stats`, `check`).
    pub fn load_headers(source: ProjectSource) -> Project {
        Self::load_keeping(source, parse::ParseOptions::default(), Keep::Nothing)
    }

    fn load_keeping(source: ProjectSource, opts: parse::ParseOptions, keep: Keep) -> Project {
        Self::load_in(source, opts, &Budget::new(keep))
    }

    /// [`Project::load_with`] within `budget` (what is kept of the files).
    pub fn load_in(mut source: ProjectSource, opts: parse::ParseOptions, budget: &Budget) -> Project {
        redact_meta(&mut source, opts);
        let t = std::time::Instant::now();
        let parsed: Vec<(parse::ParsedFile, FileStats, Text)> =
            source.files.par_iter_enumerated().map(|(i, f)| read_file(f, i, opts, budget)).collect();
        tracing::debug!("{}: files read and parsed in {:.3} s", source.name, t.elapsed().as_secs_f64());
        Self::assemble(source, parsed)
    }

    /// The project of `source` from its parsed files (`parsed[i]` for
    /// `source.files[i]`: entries, counts, bytes); builds the graph.
    pub(crate) fn assemble(source: ProjectSource, parsed: Vec<(parse::ParsedFile, FileStats, Text)>) -> Project {
        let total: usize = parsed.iter().map(|(p, _, _)| p.entries.len()).sum();
        // One big file (a session of a million lines): its entries move in whole.
        let mut entries = Entries::with_capacity(if parsed.len() == 1 { 0 } else { total });
        let mut warnings = Vec::new();
        let mut file_stats = IdVec::with_capacity(parsed.len());
        let mut redactions = Vec::new();
        let mut texts = IdVec::with_capacity(parsed.len());
        let parsed_one = parsed.len() == 1;
        for (p, s, bytes) in parsed {
            texts.push(bytes);
            redactions.extend(p.redactions);
            if parsed_one {
                entries = Entries::from_vec(p.entries);
            } else {
                entries.extend(p.entries);
            }
            warnings.extend(p.warnings);
            file_stats.push(s);
        }
        // What the agent's lines do not write themselves (the parents of
        // Codex CLI's and Gemini CLI's records) is derived here, over the
        // whole project (a file may continue another).
        source.client.reader().link(&source, &mut entries);
        let t = std::time::Instant::now();
        let graph = Self::graph_of(&source, &entries);
        tracing::debug!("{}: graph in {:.3} s", source.name, t.elapsed().as_secs_f64());
        Project { source, file_stats, entries, warnings, texts, redactions, graph, kept: Kept::default() }
    }

    fn graph_of(source: &ProjectSource, entries: &Entries) -> Graph {
        let files: IdVec<FileId, FileFacts> = source
            .files
            .iter()
            .map(|f| FileFacts {
                class: f.class,
                agent_id_from_name: f.agent_id_from_name.clone(),
                kept_version: f.kept_version,
                session_from_name: (f.class == crate::model::FileClass::Main)
                    .then(|| {
                        let live = crate::layout::split_kept(&f.rel).unwrap_or_else(|| f.rel.clone());
                        live.strip_suffix(".jsonl").filter(|s| !s.contains('/')).map(str::to_string)
                    })
                    .flatten(),
            })
            .collect();
        Graph::build(&GraphInput {
            entries,
            files: &files,
            agent_meta: &source.agent_meta,
            session_titles: &source.session_titles,
        })
    }

    /// The JSON text of an entry's line (empty when it cannot be read
    /// again: see [`Project::line`]).
    pub fn raw<'a>(&'a self, e: &'a Entry) -> Cow<'a, str> {
        self.line(e).unwrap_or_default()
    }

    /// The JSON text of an entry's line: its repaired text when invalid
    /// UTF-8, lone surrogates or `--redact` changed it, else its bytes in its
    /// file, checked against what the parse stage read (a file rewritten
    /// since is an error naming `file:line`).
    pub fn line<'a>(&'a self, e: &'a Entry) -> Result<Cow<'a, str>, LineError> {
        if let Some(r) = &e.repaired {
            return Ok(Cow::Borrowed(r));
        }
        let changed = || LineError::Changed { path: self.path_of(e.loc), line: e.loc.line };
        let bytes = self.line_bytes(e)?;
        let text = match bytes {
            Cow::Borrowed(b) => Cow::Borrowed(std::str::from_utf8(b).map_err(|_| changed())?),
            Cow::Owned(b) => {
                let text = String::from_utf8(b).map_err(|_| changed())?;
                // Read again from disk: still the line that was parsed?
                if crate::model::hash_bytes(text.trim().as_bytes()) != e.line_hash {
                    return Err(changed());
                }
                Cow::Owned(text)
            }
        };
        Ok(text)
    }

    /// The bytes of an entry's line as they are in its file (what `fork`
    /// copies), from memory or read again from disk.
    pub fn line_bytes<'a>(&'a self, e: &Entry) -> Result<Cow<'a, [u8]>, LineError> {
        let text = self.texts.get(e.loc.file).ok_or(LineError::NotKept)?;
        if matches!(text, Text::Nothing) {
            return Err(LineError::NotKept);
        }
        text.bytes(e.offset, e.len).map_err(|err| LineError::Io { path: self.path_of(e.loc), line: e.loc.line, err })
    }

    /// The entry's line read as a tree, as the client reads it ([`crate::json::parse`]).
    /// Every entry's line reads: the parse stage read it with the same rules.
    pub fn json(&self, e: &Entry) -> Result<serde_json::Value, LineError> {
        let text = self.line(e)?;
        crate::json::parse(&text).map_err(|err| LineError::Json { path: self.path_of(e.loc), line: e.loc.line, err })
    }

    /// The parts of the entry's line that `want` names, read as [`Project::json`]
    /// reads them, the rest skipped ([`crate::json::pick`]).
    pub fn json_only(&self, e: &Entry, want: &crate::json::pick::Want) -> Result<serde_json::Value, LineError> {
        let text = self.line(e)?;
        crate::json::pick::parse_only(&text, want).map_err(|err| LineError::Json {
            path: self.path_of(e.loc),
            line: e.loc.line,
            err,
        })
    }

    fn path_of(&self, loc: Loc) -> String {
        self.source.files.get(loc.file).map_or_else(|| "?".into(), |f| f.path.display().to_string())
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

    /// What entry `e` says, read from its line by its agent's reader
    /// ([`crate::model::Reader::node`]); when the line cannot be read
    /// again, what an empty line says, and why.
    pub fn node<'a>(&'a self, e: &'a Entry) -> (crate::model::Node<'a>, Option<LineError>) {
        self.client_of(e).reader().node(self.read(e))
    }

    /// What a reader is handed of entry `e`: its header, its lines, and the
    /// name of the call its one tool result answers (from the graph).
    fn read<'a>(&'a self, e: &'a Entry) -> crate::model::Read<'a> {
        let call = match &*e.tool_results {
            [one] => {
                let id = &*one.tool_use_id;
                self.graph.tools.get(id).and_then(|t| t.use_node).and_then(|n| {
                    self.graph.entry(&self.entries, n).tool_uses.iter().find(|t| &*t.id == id).map(|t| &*t.name)
                })
            }
            _ => None,
        };
        crate::model::Read { entry: e, lines: self, call }
    }

    /// The client that wrote entry `e`'s file.
    pub fn client_of(&self, e: &Entry) -> Client {
        self.source.files.get(e.loc.file).map_or(self.source.client, |f| f.client)
    }

    /// The whole of entry `e` as its client wrote it (for a view that shows
    /// all of it).
    pub fn record<'a>(&'a self, e: &'a Entry) -> Result<crate::model::Raw<'a>, LineError> {
        self.client_of(e).reader().record(self.read(e))
    }

    /// `path:line` of an entry location, for messages.
    pub fn locate(&self, loc: Loc) -> String {
        let path = self.source.files.get(loc.file).map_or_else(|| "?".into(), |f| f.path.display().to_string());
        format!("{path}:{}", loc.line)
    }

    /// The working directory the project's entries name most often (ties: smallest).
    pub fn cwd(&self) -> Option<&str> {
        let mut counts: rustc_hash::FxHashMap<&str, usize> = Default::default();
        for e in &self.entries {
            if let Some(c) = e.cwd.as_deref() {
                if !e.sidechain {
                    *counts.entry(c).or_default() += 1;
                }
            }
        }
        counts
            .into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)))
            .map(|(c, _)| c)
            .or(self.source.cwd.as_deref())
    }
}

impl crate::model::Lines for Project {
    fn json(&self, e: &Entry) -> Result<serde_json::Value, LineError> {
        Project::json(self, e)
    }
    fn json_only(&self, e: &Entry, want: &crate::json::pick::Want) -> Result<serde_json::Value, LineError> {
        Project::json_only(self, e, want)
    }
    fn side_file(&self, key: &str, cap: usize) -> Option<(&std::path::Path, String)> {
        Project::side_file(self, key, cap)
    }
}

fn read_file(
    f: &SourceFile,
    index: FileId,
    opts: parse::ParseOptions,
    budget: &Budget,
) -> (parse::ParsedFile, FileStats, Text) {
    let unreadable = |err: std::io::Error| {
        let msg = format!("cannot read {}: {err}", f.path.display());
        FileStats { read_error: Some(msg), ..FileStats::default() }
    };
    let opened = match open_source(f, budget, false) {
        Ok(o) => o,
        Err(err) => return (parse::ParsedFile::default(), unreadable(err), Text::Nothing),
    };
    let (read, err) = parse_opened(&opened, 0, 0, index, parse::Format::of(f), opts, |_, _| {});
    let mut p = read.mid;
    p.append(read.tail);
    p.bytes = opened.len();
    let mut s = FileStats { lines: p.lines, bad_lines: p.bad_lines, bytes: p.bytes, read_error: None };
    if let Some(err) = err {
        s.read_error = unreadable(err).read_error;
    }
    (p, s, opened.into_text(budget))
}

/// Opens the file `f` for parsing: its bytes, or, for a file of its agent's
/// that is not lines ([`crate::model::AsLines`]), the lines the agent writes
/// of it. `defer`: its parse is expected from a cache (see
/// [`Opened::open_deferred`]; a spilled file is written now all the same).
pub(crate) fn open_source(f: &SourceFile, budget: &Budget, defer: bool) -> std::io::Result<Opened> {
    match f.client.as_lines(&f.rel) {
        Some(a) => Opened::spilled(a.lines(&f.path, &f.rel)?, &f.path, budget),
        None if defer => Opened::open_deferred(&f.path, budget),
        None => Opened::open(&f.path, budget),
    }
}

/// What [`parse_opened`] read of a file: its complete lines up to `done`
/// (after `done_lines` newlines), then the unterminated tail.
pub(crate) struct ReadLines {
    pub mid: parse::ParsedFile,
    pub tail: parse::ParsedFile,
    pub done: u64,
    pub done_lines: u32,
}

/// Parses `[from, len)` of an opened file, where `from` starts a line after
/// `lines_before` newlines, in windows ([`Opened::windows`]); `seen(bytes,
/// offset)` sees every byte read (for hashing). A read error stops it: what
/// was parsed before is returned with the error.
pub(crate) fn parse_opened(
    o: &Opened,
    from: u64,
    lines_before: u32,
    index: FileId,
    format: parse::Format,
    opts: parse::ParseOptions,
    mut seen: impl FnMut(&[u8], u64),
) -> (ReadLines, Option<std::io::Error>) {
    let len = o.len();
    let mut r = ReadLines {
        mid: parse::ParsedFile::default(),
        tail: parse::ParsedFile::default(),
        done: from,
        done_lines: lines_before,
    };
    if format.document {
        // One document, read whole every time (its lines are no unit: nothing
        // to resume from), window by window: each message as it ends.
        let mut doc = parse::DocumentReader::new(index, format.client, opts);
        let result = o.windows(0, len, |w, at| {
            seen(w, at);
            doc.feed(w);
        });
        r.done = 0;
        r.done_lines = 0;
        r.tail = doc.finish();
        return (r, result.err());
    }
    // Every window's parts, appended together once at the end.
    let mut parts = Vec::new();
    let result = o.windows(from, len, |w, at| {
        seen(w, at);
        // Complete lines, then (in the last window) the unterminated tail.
        let complete =
            if at + w.len() as u64 == len { memchr::memrchr(b'\n', w).map_or(0, |i| i + 1) } else { w.len() };
        for p in parse::parse_window_parts(&w[..complete], at, r.done_lines, index, format, opts) {
            r.done_lines = r.done_lines.saturating_add(p.newlines);
            parts.push(p);
        }
        r.done = at + complete as u64;
        if complete < w.len() {
            r.tail = parse::parse_window(&w[complete..], r.done, r.done_lines, index, format, opts);
        }
    });
    r.mid.append_all(parts);
    (r, result.err())
}

/// `--redact` over every text of a project's source that does not come from
/// its transcripts' lines (those the parse stage redacts): the sidecars, and
/// what [`redact_names`] covers. The destructuring names every field, so a
/// field added to the source is redacted or says here why not: by
/// construction, not by list.
pub(crate) fn redact_meta(source: &mut ProjectSource, opts: parse::ParseOptions) {
    if !opts.redact {
        return;
    }
    redact_names(source);
    let ProjectSource {
        // The folder's path is redacted where shown (labels: render's
        // `Redactor`), kept here to read the files.
        dir: _,
        // Paths and per-file facts, read, not shown as text.
        files: _,
        tool_results: _,
        // cctree's own messages about the walk (paths redacted when printed).
        warnings: _,
        client: _,
        // Redacted by `redact_names`.
        name: _,
        cwd: _,
        session_titles: _,
        agent_meta,
    } = source;
    for meta in agent_meta.values_mut() {
        let crate::model::AgentMeta { agent_type, description, tool_use_id: _ } = meta;
        for text in [agent_type, description].into_iter().flatten() {
            *text = crate::redact::redact_text(text).0.into_owned();
        }
    }
}

/// `--redact` over what names a project and its sessions before any of it
/// is read (the plan's slugs and the archive index are made of them): the
/// working directory the layout names (Gemini's `.project_root`), the name
/// made of it, the names the client keeps apart (Codex's
/// `session_index.jsonl`). Redacting twice changes nothing.
pub fn redact_names(source: &mut ProjectSource) {
    let redact = |text: &mut String| *text = crate::redact::redact_text(text).0.into_owned();
    // The folder's own name is redacted where shown (slug, title: render's
    // `Redactor`); one made of the working directory is made again of the
    // redacted one (the encoding hides a secret from the patterns).
    let ProjectSource { name, client, cwd, session_titles, .. } = source;
    if let Some(cwd) = cwd {
        let shown = cwd.clone();
        redact(cwd);
        if *cwd != shown && *name == client.project_name(&shown) {
            *name = client.project_name(cwd);
        }
    }
    for title in session_titles.values_mut() {
        redact(title);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A project of one file with lines of every kind: short and long,
    /// broken, invalid UTF-8, lone surrogates, blank, `\r\n`, a BOM, a torn
    /// last line.
    fn project_dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let mut b = b"\xEF\xBB\xBF".to_vec();
        for i in 0..400 {
            let text = "x".repeat((i * 37) % 3000);
            b.extend(format!(r#"{{"type":"user","uuid":"u{i}","parentUuid":{},"sessionId":"s","message":{{"role":"user","content":"{text} {i}"}}}}"#, if i == 0 { "null".to_string() } else { format!("\"u{}\"", i - 1) }).as_bytes());
            b.extend(match i % 7 {
                0 => &b"\r\n"[..],
                1 => b"\n\n   \n",
                2 => b"\n{broken\n",
                3 => b"\n{\"type\":\"user\",\"uuid\":\"bad\xff\",\"message\":{\"content\":\"\\udc80\"}}\n",
                _ => b"\n",
            });
        }
        b.extend(br#"{"type":"user","uuid":"torn","mess"#);
        std::fs::write(dir.path().join("s.jsonl"), b).unwrap();
        dir
    }

    #[test]
    fn a_file_read_in_windows_and_again_from_disk_is_the_file_read_whole() {
        let dir = project_dir();
        let source = || crate::agent::claude::discover::scan_project(dir.path()).unwrap();
        let whole = Project::load(source());
        assert!(matches!(whole.texts[FileId::FIRST], Text::Held(_)));
        for window in [1, 100, 4096] {
            let budget = Budget::with_sizes(Keep::Lines, 0, window);
            let windowed = Project::load_in(source(), parse::ParseOptions::default(), &budget);
            assert!(matches!(windowed.texts[FileId::FIRST], Text::Disk(_)));
            let key = |p: &Project| {
                p.entries.iter().map(|e| (e.loc, e.offset, e.len, e.line_hash, e.uuid.clone())).collect::<Vec<_>>()
            };
            assert_eq!(key(&windowed), key(&whole), "window {window}");
            assert_eq!(windowed.warnings, whole.warnings);
            let s = |p: &Project| {
                (
                    p.file_stats[FileId::FIRST].lines,
                    p.file_stats[FileId::FIRST].bad_lines,
                    p.file_stats[FileId::FIRST].bytes,
                )
            };
            assert_eq!(s(&windowed), s(&whole));
            for (a, b) in windowed.entries.iter().zip(&whole.entries) {
                assert_eq!(windowed.line(a).unwrap(), whole.line(b).unwrap());
                assert_eq!(windowed.json(a).unwrap(), whole.json(b).unwrap());
            }
        }
        // Headers only: the same entries, no line to read again.
        let headers = Project::load_headers(source());
        assert_eq!(headers.entries.len(), whole.entries.len());
        assert!(matches!(headers.line(&headers.entries.as_slice()[0]), Err(LineError::NotKept)));
    }

    #[test]
    fn a_line_rewritten_on_disk_is_an_error_naming_it() {
        let dir = project_dir();
        let budget = Budget::with_sizes(Keep::Lines, 0, 4096);
        let p = Project::load_in(
            crate::agent::claude::discover::scan_project(dir.path()).unwrap(),
            parse::ParseOptions::default(),
            &budget,
        );
        let e = &p.entries.as_slice()[5];
        assert!(p.line(e).is_ok());
        // The same length, other bytes.
        let path = dir.path().join("s.jsonl");
        let mut bytes = std::fs::read(&path).unwrap();
        let at = usize::try_from(e.offset).unwrap() + e.len as usize - 3;
        bytes[at] = b'Z';
        std::fs::write(&path, &bytes).unwrap();
        let err = p.line(e).unwrap_err().to_string();
        assert!(err.contains("s.jsonl:") && err.contains("changed on disk"), "{err}");
        assert!(p.json(e).is_err());
        // Cut short: an error too, not a panic.
        std::fs::write(&path, &bytes[..10]).unwrap();
        assert!(p.line(e).is_err());
    }
}

//! One line, read on its own (transcript-format §8): what a parse of a
//! file gives ([`ParsedFile`]), what can go wrong with a line
//! ([`LineProblem`]), and reading one line into its header by its agent's
//! reader ([`parse_line`]): invalid UTF-8 decoded lossily, lone UTF-16
//! surrogate escapes replaced, what is no JSON object a warning.

use std::borrow::Cow;

use crate::model::{Client, Entry, Loc, SourceFile};

/// What went wrong with one line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LineProblem {
    /// Invalid UTF-8, decoded lossily; the entry was still read.
    InvalidUtf8,
    /// Lone surrogate escapes replaced with U+FFFD; the entry was still read.
    LoneSurrogate,
    /// Not valid JSON (truncated, torn, or garbage): the line was skipped.
    Malformed(String),
    /// Valid JSON but not an object: the line was skipped.
    NotAnObject,
}

impl LineProblem {
    /// The line could not be read at all.
    pub fn is_bad_line(&self) -> bool {
        matches!(self, LineProblem::Malformed(_) | LineProblem::NotAnObject)
    }
}

impl std::fmt::Display for LineProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LineProblem::InvalidUtf8 => f.write_str("invalid UTF-8 (replaced with U+FFFD)"),
            LineProblem::LoneSurrogate => f.write_str("lone UTF-16 surrogate escape (replaced with U+FFFD)"),
            LineProblem::Malformed(e) => write!(f, "malformed JSON, line skipped: {e}"),
            LineProblem::NotAnObject => f.write_str("not a JSON object, line skipped"),
        }
    }
}

/// A problem at a line of a file of the project.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LineWarning {
    pub loc: Loc,
    pub problem: LineProblem,
}

/// How to parse (the same for every file of a run).
#[derive(Debug, Clone, Copy, Default)]
pub struct ParseOptions {
    /// Replace secrets before anything is read from a line ([`crate::redact`]).
    pub redact: bool,
}

/// How one file is written: whose lines (the agent whose reader reads their
/// headers, [`crate::model::Reader::header`]) and in which shape.
#[derive(Debug, Clone, Copy)]
pub struct Format {
    pub client: Client,
    /// The file is one JSON document, not JSON lines ([`parse_document`]).
    pub document: bool,
}

impl Format {
    /// JSON lines of `client`.
    pub fn lines(client: Client) -> Format {
        Format { client, document: false }
    }

    /// The format of a discovered file.
    pub fn of(f: &SourceFile) -> Format {
        Format { client: f.client, document: f.is_document() }
    }
}

/// The result of parsing one file.
#[derive(Debug, Default)]
pub struct ParsedFile {
    /// Lines where secrets were replaced, and what.
    pub redactions: Vec<(Loc, Vec<crate::redact::Redaction>)>,
    pub entries: Vec<Entry>,
    pub warnings: Vec<LineWarning>,
    /// Non-blank lines seen.
    pub lines: u64,
    pub bad_lines: u64,
    pub bytes: u64,
    /// Newlines in the bytes parsed (`u32::MAX` past it): where the line
    /// numbers of the bytes after them start.
    pub newlines: u32,
}
impl ParsedFile {
    /// Adds what was parsed of the lines after these (counts, entries,
    /// warnings, redactions; not `bytes`).
    pub fn append(&mut self, p: ParsedFile) {
        // The first part moves in whole (a million entries are not copied).
        if self.entries.capacity() == 0 {
            self.entries = p.entries;
        } else {
            self.entries.extend(p.entries);
        }
        self.warnings.extend(p.warnings);
        self.redactions.extend(p.redactions);
        self.lines += p.lines;
        self.bad_lines += p.bad_lines;
        self.newlines = self.newlines.saturating_add(p.newlines);
    }

    /// [`append`](Self::append) of each of `parts`, in order, into a vector
    /// sized once.
    pub fn append_all(&mut self, parts: Vec<ParsedFile>) {
        let total = self.entries.len() + parts.iter().map(|p| p.entries.len()).sum::<usize>();
        let mut parts = parts.into_iter();
        if self.entries.capacity() == 0 {
            match parts.next() {
                Some(first) => self.append(first),
                None => return,
            }
        }
        self.entries.reserve_exact(total.saturating_sub(self.entries.len()));
        for p in parts {
            self.append(p);
        }
    }

    /// Moves every line number `by` lines down (what was parsed as the start
    /// of the bytes follows `by` newlines).
    pub(super) fn shift_lines(&mut self, by: u32) {
        if by == 0 {
            return;
        }
        let shift = |loc: &mut Loc| loc.line = loc.line.saturating_add(by);
        self.entries.iter_mut().for_each(|e| shift(&mut e.loc));
        self.warnings.iter_mut().for_each(|w| shift(&mut w.loc));
        self.redactions.iter_mut().for_each(|(loc, _)| shift(loc));
    }
}
/// Whether `line` may hold a surrogate escape (`\ud…`, `\uD…`): one pass
/// over it for `\u`, rare in what the client writes, by a finder built once.
fn has_surrogate_escape(line: &[u8]) -> bool {
    static ESCAPE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\\u"));
    ESCAPE.find_iter(line).any(|at| matches!(line.get(at + 2), Some(b'd' | b'D')))
}

/// What JSON (and `JSON.parse`) skips around a value.
const JSON_WHITESPACE: [char; 4] = [' ', '\t', '\n', '\r'];

/// Parses one line (no newline) by the reader of `client`. Returns the
/// entry, if any could be read, and the problems met on the way.
pub fn parse_line(client: Client, line: &[u8], loc: Loc, offset: u64) -> (Option<Entry>, Vec<LineProblem>) {
    let mut problems = Vec::new();
    let text: Cow<'_, str> = match std::str::from_utf8(line) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => {
            problems.push(LineProblem::InvalidUtf8);
            String::from_utf8_lossy(line)
        }
    };
    // JSON's whitespace only (what `JSON.parse` skips): a line the client
    // cannot read, such as `{}` followed by a vertical tab or a no-break
    // space, is a warning here too, never an entry that render cannot read.
    let trimmed = text.trim_matches(JSON_WHITESPACE);
    if !trimmed.starts_with('{') {
        let problem = if serde_json::from_str::<serde::de::IgnoredAny>(trimmed).is_ok() {
            LineProblem::NotAnObject
        } else {
            LineProblem::Malformed(first_error(trimmed))
        };
        problems.push(problem);
        return (None, problems);
    }
    // serde_json rejects lone surrogate escapes where it decodes a string, but
    // skips them inside raw values: repair them up front so no text is lost.
    let has_surrogate_escape = has_surrogate_escape(trimmed.as_bytes());
    let fixed = if has_surrogate_escape { scrub_lone_surrogates(trimmed) } else { None };
    if fixed.is_some() {
        problems.push(LineProblem::LoneSurrogate);
    }
    let repaired = fixed.is_some() || matches!(text, Cow::Owned(_));
    let text = fixed.as_deref().unwrap_or(trimmed);
    let read = client.reader().header(text, loc, offset);
    match read {
        Ok(mut e) => {
            if repaired {
                e.repaired = Some(text.into());
            }
            (Some(e), problems)
        }
        Err(err) => {
            problems.push(LineProblem::Malformed(err.to_string()));
            (None, problems)
        }
    }
}

fn first_error(s: &str) -> String {
    match serde_json::from_str::<serde::de::IgnoredAny>(s) {
        Ok(_) => "not an object".into(),
        Err(e) => e.to_string(),
    }
}

/// Replaces `\uD800`–`\uDFFF` escapes that do not form a valid pair with `\uFFFD`.
/// Returns `None` when the text has none.
pub fn scrub_lone_surrogates(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let hex4 = |i: usize| -> Option<u16> {
        let h = b.get(i..i + 4)?;
        u16::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
    };
    let mut out: Option<String> = None;
    let mut copied = 0usize;
    let mut i = 0usize;
    while i + 1 < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        if b[i + 1] != b'u' {
            i += 2; // skip any other escape, including `\\`
            continue;
        }
        let Some(cp) = hex4(i + 2) else {
            i += 2;
            continue;
        };
        let is_high = (0xD800..0xDC00).contains(&cp);
        let is_low = (0xDC00..0xE000).contains(&cp);
        if is_high && b.get(i + 6) == Some(&b'\\') && b.get(i + 7) == Some(&b'u') {
            if let Some(next) = hex4(i + 8) {
                if (0xDC00..0xE000).contains(&next) {
                    i += 12; // a valid pair
                    continue;
                }
            }
        }
        if is_high || is_low {
            let o = out.get_or_insert_with(|| String::with_capacity(s.len()));
            o.push_str(&s[copied..i]);
            o.push_str("\\uFFFD");
            copied = i + 6;
        }
        i += 6;
    }
    out.map(|mut o| {
        o.push_str(&s[copied..]);
        o
    })
}

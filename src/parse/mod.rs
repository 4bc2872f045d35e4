//! Parse stage: one transcript file → its entries and warnings.
//!
//! Every line is tolerated on its own (transcript-format §8): a BOM and `\r` are
//! stripped, invalid UTF-8 is decoded lossily, lone UTF-16 surrogate escapes
//! (which serde_json rejects) are replaced with U+FFFD, and a line that still
//! does not parse is a warning with `file:line`. Nothing here knows about the
//! graph or HTML, and nothing here panics on input.

mod document;
pub mod lenient;

use crate::model::{Client, Entry, FileId, Loc, SourceFile};
pub use document::parse_document;

use crate::limits::PARSE_PIECE;
use std::borrow::Cow;

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

/// Parses the bytes of a whole file of JSON lines of `client`. `file` is
/// the file's place in its project.
pub fn parse_bytes(bytes: &[u8], file: FileId, client: Client) -> ParsedFile {
    parse_bytes_with(bytes, file, Format::lines(client), ParseOptions::default())
}

/// [`parse_bytes`] with options.
pub fn parse_bytes_with(bytes: &[u8], file: FileId, format: Format, opts: ParseOptions) -> ParsedFile {
    parse_window(bytes, 0, 0, file, format, opts)
}

/// Parses a window of a file: `window` holds whole lines of the file (the
/// last may lack its newline) starting at byte `base`, after `lines_before`
/// newlines. Offsets and line numbers are those of the whole file, so
/// parsing a file window by window gives the same entries as parsing it at
/// once. A window larger than [`PARSE_PIECE`] is cut at line ends into pieces
/// parsed in parallel.
pub fn parse_window(
    window: &[u8],
    base: u64,
    lines_before: u32,
    file: FileId,
    format: Format,
    opts: ParseOptions,
) -> ParsedFile {
    if window.len() <= PARSE_PIECE {
        return parse_at(window, 0..window.len(), base, lines_before, file, format, opts);
    }
    // Piece boundaries just after a newline. Each piece is parsed with line
    // numbers from 0, in parallel; they are then moved past the newlines of
    // the pieces before it (counted by the parse, not by another pass).
    let mut pieces = Vec::new();
    let mut start = 0usize;
    while start < window.len() {
        let mut end = (start + PARSE_PIECE).min(window.len());
        if end < window.len() {
            end = memchr::memchr(b'\n', &window[end..]).map_or(window.len(), |i| end + i + 1);
        }
        pieces.push(start..end);
        start = end;
    }
    use rayon::prelude::*;
    let parts: Vec<ParsedFile> =
        pieces.into_par_iter().map(|range| parse_at(window, range, base, 0, file, format, opts)).collect();
    let mut out = ParsedFile { bytes: window.len() as u64, ..ParsedFile::default() };
    out.entries.reserve_exact(parts.iter().map(|p| p.entries.len()).sum());
    for mut p in parts {
        p.shift_lines(lines_before.saturating_add(out.newlines));
        out.append(p);
    }
    out
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

    /// Moves every line number `by` lines down (what was parsed as the start
    /// of the bytes follows `by` newlines).
    fn shift_lines(&mut self, by: u32) {
        if by == 0 {
            return;
        }
        let shift = |loc: &mut Loc| loc.line = loc.line.saturating_add(by);
        self.entries.iter_mut().for_each(|e| shift(&mut e.loc));
        self.warnings.iter_mut().for_each(|w| shift(&mut w.loc));
        self.redactions.iter_mut().for_each(|(loc, _)| shift(loc));
    }
}

/// Parses the lines of `bytes[range]`, where `bytes` is a whole file, `range`
/// starts at a line start and `lines_before` newlines precede it: offsets and
/// line numbers are those of the whole file, so parsing a file in pieces cut
/// after newlines gives the same entries as parsing it at once (the
/// incremental render resumes an appended file this way).
pub fn parse_range(
    bytes: &[u8],
    range: std::ops::Range<usize>,
    lines_before: u32,
    file: FileId,
    format: Format,
    opts: ParseOptions,
) -> ParsedFile {
    parse_at(bytes, range, 0, lines_before, file, format, opts)
}

/// [`parse_range`] of a window of the file that starts at byte `base`.
fn parse_at(
    bytes: &[u8],
    range: std::ops::Range<usize>,
    base: u64,
    lines_before: u32,
    file: FileId,
    format: Format,
    opts: ParseOptions,
) -> ParsedFile {
    let to = range.end.min(bytes.len());
    let mut out = ParsedFile { bytes: to.saturating_sub(range.start) as u64, ..ParsedFile::default() };
    let mut start = range.start;
    let mut line_no = lines_before;
    while start < to {
        let end = memchr::memchr(b'\n', &bytes[start..to]).map_or(to, |i| start + i);
        if end < to {
            out.newlines = out.newlines.saturating_add(1);
        }
        line_no = line_no.saturating_add(1);
        let mut line = &bytes[start..end];
        let mut offset = base + start as u64;
        if offset == 0 && line.starts_with(b"\xEF\xBB\xBF") {
            line = &line[3..];
            offset += 3;
        }
        if line.ends_with(b"\r") {
            line = &line[..line.len() - 1];
        }
        start = end + 1;
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        out.lines += 1;
        let loc = Loc { file, line: line_no };
        // The line as it is on disk (what `fork` copies), before any redaction.
        // As `Entry::len`: saturated for a line of 4 GiB or more.
        let len_on_disk = u32::try_from(line.len()).unwrap_or(u32::MAX);
        let mut redacted: Option<Vec<u8>> = None;
        if opts.redact {
            if let (Cow::Owned(text), found) = crate::redact::redact(&String::from_utf8_lossy(line)) {
                out.redactions.push((loc, found));
                redacted = Some(text.into_bytes());
            }
        }
        let line = redacted.as_deref().unwrap_or(line);
        let (entry, problems) = parse_line(format.client, line, loc, offset);
        match entry {
            Some(mut e) => {
                e.len = len_on_disk;
                if redacted.is_some() && e.repaired.is_none() {
                    e.repaired = Some(String::from_utf8_lossy(line).into());
                }
                out.entries.push(e);
            }
            None => out.bad_lines += 1,
        }
        out.warnings.extend(problems.into_iter().map(|problem| LineWarning { loc, problem }));
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::CLAUDE;

    #[test]
    fn tolerates_each_line_on_its_own() {
        let input = b"\xEF\xBB\xBF{\"type\":\"user\",\"uuid\":\"a\",\"message\":{\"content\":\"hi\"}}\r\n\
\n\
{\"type\":\"user\",\"uuid\":\"b\",\"message\":{\"content\":\"bad \xff byte\"}}\n\
{\"type\":\"user\",\"uuid\":\"c\",\"message\":{\"content\":\"lone \\udc80 surrogate\"}}\n\
[1,2]\n\
{\"type\":\"user\",\"uuid\":\"d\",\"mess";
        let p = parse_bytes(input, FileId::FIRST, CLAUDE);
        let uuids: Vec<_> = p.entries.iter().map(|e| e.uuid.as_deref().unwrap()).collect();
        assert_eq!(uuids, ["a", "b", "c"]);
        assert_eq!(p.lines, 5);
        assert_eq!(p.bad_lines, 2);
        let at = |line: u32| p.warnings.iter().filter(move |w| w.loc.line == line).map(|w| &w.problem);
        assert_eq!(at(3).collect::<Vec<_>>(), [&LineProblem::InvalidUtf8]);
        assert_eq!(at(4).collect::<Vec<_>>(), [&LineProblem::LoneSurrogate]);
        assert_eq!(at(5).collect::<Vec<_>>(), [&LineProblem::NotAnObject]);
        assert!(matches!(at(6).next(), Some(LineProblem::Malformed(_))));
        assert!(p.entries[1].excerpt.contains('\u{FFFD}'));
        assert!(p.entries[2].excerpt.contains('\u{FFFD}'));
        // Offsets point at the line's first byte, after the BOM.
        assert_eq!(p.entries[0].offset, 3);
        assert_eq!(&input[usize::try_from(p.entries[0].offset).unwrap()..][..1], b"{");
    }

    #[test]
    fn big_files_parse_in_pieces_like_at_once() {
        let mut big = Vec::new();
        let mut i = 0;
        while big.len() < 2 * PARSE_PIECE + 1000 {
            if i % 1000 == 7 {
                big.extend_from_slice(b"not json\n");
            }
            big.extend_from_slice(
                format!(
                    "{{\"type\":\"user\",\"uuid\":\"u{i}\",\"message\":{{\"content\":\"{}\"}}}}\n",
                    "x".repeat(i % 300)
                )
                .as_bytes(),
            );
            i += 1;
        }
        let whole = parse_range(&big, 0..big.len(), 0, FileId::FIRST, Format::lines(CLAUDE), ParseOptions::default());
        let pieces = parse_bytes(&big, FileId::FIRST, CLAUDE);
        assert_eq!(pieces.lines, whole.lines);
        assert_eq!(pieces.bad_lines, whole.bad_lines);
        assert_eq!(pieces.warnings, whole.warnings);
        let newlines = u32::try_from(big.iter().filter(|b| **b == b'\n').count()).unwrap();
        assert_eq!((pieces.newlines, whole.newlines), (newlines, newlines));
        let key =
            |p: &ParsedFile| p.entries.iter().map(|e| (e.loc, e.offset, e.len, e.uuid.clone())).collect::<Vec<_>>();
        assert_eq!(key(&pieces), key(&whole));
    }

    #[test]
    fn parsing_in_pieces_cut_after_newlines_is_parsing_at_once() {
        let input = b"\xEF\xBB\xBF{\"type\":\"user\",\"uuid\":\"a\"}\n\n{bad\n{\"type\":\"user\",\"uuid\":\"b\"}\n{\"type\":\"user\",\"uu";
        let file = FileId::new(3).unwrap();
        let whole = parse_bytes(input, file, CLAUDE);
        for cut in input.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i + 1) {
            let before = u32::try_from(input[..cut].iter().filter(|b| **b == b'\n').count()).unwrap();
            let a = parse_range(input, 0..cut, 0, file, Format::lines(CLAUDE), ParseOptions::default());
            let b = parse_range(input, cut..input.len(), before, file, Format::lines(CLAUDE), ParseOptions::default());
            // The last line has no newline.
            assert_eq!((a.newlines, a.newlines + b.newlines), (before, whole.newlines), "cut at {cut}");
            let offsets: Vec<(u64, u32, Loc)> =
                a.entries.iter().chain(&b.entries).map(|e| (e.offset, e.len, e.loc)).collect();
            let expected: Vec<(u64, u32, Loc)> = whole.entries.iter().map(|e| (e.offset, e.len, e.loc)).collect();
            assert_eq!(offsets, expected, "cut at {cut}");
            let warnings: Vec<LineWarning> = a.warnings.iter().chain(&b.warnings).cloned().collect();
            assert_eq!(warnings, whole.warnings);
            assert_eq!(
                (a.lines + b.lines, a.bad_lines + b.bad_lines, a.bytes + b.bytes),
                (whole.lines, whole.bad_lines, whole.bytes)
            );
        }
    }

    #[test]
    fn scrubs_only_lone_surrogates() {
        assert_eq!(scrub_lone_surrogates(r#""ok \u00e9""#), None);
        assert_eq!(scrub_lone_surrogates(r#""pair \ud83d\ude00""#), None);
        assert_eq!(scrub_lone_surrogates(r#""\ud83d x""#).unwrap(), r#""\uFFFD x""#);
        assert_eq!(scrub_lone_surrogates(r#""\\udc80""#), None, "an escaped backslash is not an escape");
        assert_eq!(scrub_lone_surrogates(r#""a\udc80\ud800""#).unwrap(), r#""a\uFFFD\uFFFD""#);
    }
}

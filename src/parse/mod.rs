//! Parse stage: one transcript file → its entries and warnings.
//!
//! Every line is tolerated on its own (transcript-format §8): a BOM and `\r` are
//! stripped, invalid UTF-8 is decoded lossily, lone UTF-16 surrogate escapes
//! (which serde_json rejects) are replaced with U+FFFD, and a line that still
//! does not parse is a warning with `file:line`. Nothing here knows about the
//! graph or HTML, and nothing here panics on input.

mod document;
pub mod lenient;
mod line;

use crate::model::{Client, FileId, Loc};
pub use document::{DocumentReader, parse_document};
pub use line::{Format, LineProblem, LineWarning, ParseOptions, ParsedFile, parse_line, scrub_lone_surrogates};

use crate::limits::PARSE_PIECE;
use std::borrow::Cow;

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
    let mut out = ParsedFile { bytes: window.len() as u64, ..ParsedFile::default() };
    out.append_all(parse_window_parts(window, base, lines_before, file, format, opts));
    out
}

/// [`parse_window`] as the parts parsed in parallel, in order, their line
/// numbers those of the whole file: appended together once (with
/// [`ParsedFile::append_all`]) when the file is read, each entry is moved
/// once, not once per window and again per doubling of a growing vector.
pub fn parse_window_parts(
    window: &[u8],
    base: u64,
    lines_before: u32,
    file: FileId,
    format: Format,
    opts: ParseOptions,
) -> Vec<ParsedFile> {
    if window.len() <= PARSE_PIECE {
        return vec![parse_at(window, 0..window.len(), base, lines_before, file, format, opts)];
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
    let mut parts: Vec<ParsedFile> =
        pieces.into_par_iter().map(|range| parse_at(window, range, base, 0, file, format, opts)).collect();
    let mut newlines = 0u32;
    for p in &mut parts {
        p.shift_lines(lines_before.saturating_add(newlines));
        newlines = newlines.saturating_add(p.newlines);
    }
    parts
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
    // About one entry a line: the vector is not grown (and copied) a
    // doubling at a time. A count of newlines costs little beside a parse.
    out.entries.reserve(memchr::memchr_iter(b'\n', &bytes[range.start.min(to)..to]).count() + 1);
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

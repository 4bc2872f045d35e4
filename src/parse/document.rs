//! Files that are one JSON document, not JSON lines: Gemini CLI's older
//! session files (`chats/session-*.json`, transcript-format Appendix D), one
//! object `{sessionId, projectHash, startTime, lastUpdated, messages: [...]}`
//! the client rewrote whole at each change, pretty-printed.
//!
//! The document is scanned once, without recursion and without building a
//! tree: each element of its `messages` is read as a record line would be
//! ([`super::parse_line`]: the same header, the same repairs), its entry
//! pointing at the element's bytes (so a page reads it again from the file,
//! as any line), its line the one the element starts on. The other members
//! make the metadata entry (line 1), whose text is theirs gathered into one
//! object (`Entry::repaired`: it is no span of the file). The last member of
//! a repeated key wins, as `JSON.parse` has it. What cannot be read is a
//! warning at its line; the elements before it are kept.

use super::line::{LineProblem, LineWarning, ParseOptions, ParsedFile, parse_line};
use crate::model::Loc;
use crate::model::{Client, FileId};

/// Parses a whole document (see the module documentation).
pub fn parse_document(bytes: &[u8], file: FileId, client: Client, opts: ParseOptions) -> ParsedFile {
    let mut out = ParsedFile { bytes: bytes.len() as u64, ..ParsedFile::default() };
    out.newlines = u32::try_from(memchr::memchr_iter(b'\n', bytes).count()).unwrap_or(u32::MAX);
    let mut lines = Lines { bytes, at: 0, line: 1 };
    let scan = scan(bytes);
    let mut members: Vec<(&[u8], &[u8])> = Vec::new();
    for (key, value) in scan.members {
        members.retain(|(k, _)| *k != key);
        members.push((key, value));
    }
    // The metadata: every member but the messages, as one object.
    let mut meta = b"{".to_vec();
    for (i, (k, v)) in members.iter().enumerate() {
        if i > 0 {
            meta.push(b',');
        }
        meta.extend_from_slice(k);
        meta.push(b':');
        meta.extend_from_slice(v);
    }
    meta.push(b'}');
    if !scan.members_seen {
        // Not an object at all: one warning (none for an empty file), nothing read.
        if bytes.iter().any(|c| !c.is_ascii_whitespace()) {
            out.lines = 1;
            out.bad_lines = 1;
            let problem = LineProblem::Malformed("the document is not a JSON object".into());
            out.warnings.push(LineWarning { loc: Loc { file, line: 1 }, problem });
        }
        return out;
    }
    let loc = Loc { file, line: 1 };
    read(&mut out, &meta, loc, 0, (client, opts), true);
    for (start, end) in scan.messages {
        let line = lines.line_at(start);
        read(&mut out, &bytes[start..end], Loc { file, line }, start as u64, (client, opts), false);
    }
    if scan.error.is_none() && ws(bytes, scan.end) < bytes.len() {
        // `JSON.parse`, which Gemini CLI reads the file with, refuses it whole.
        let line = lines.line_at(ws(bytes, scan.end));
        out.bad_lines += 1;
        let problem = LineProblem::Malformed(
            "more JSON follows the session's document: Gemini CLI cannot read this file (`JSON.parse` refuses \
             it), cctree reads the first document only; to read what follows, move it into a file of its own"
                .into(),
        );
        out.warnings.push(LineWarning { loc: Loc { file, line }, problem });
    }
    if let Some((at, e)) = scan.error {
        let line = lines.line_at(at.min(bytes.len()));
        out.bad_lines += 1;
        let problem = LineProblem::Malformed(format!("{e} (the document is read up to here)"));
        out.warnings.push(LineWarning { loc: Loc { file, line }, problem });
    }
    out
}

/// Line numbers of byte offsets, asked in increasing order.
struct Lines<'a> {
    bytes: &'a [u8],
    at: usize,
    line: u32,
}

impl Lines<'_> {
    fn line_at(&mut self, offset: usize) -> u32 {
        let offset = offset.max(self.at);
        let n = memchr::memchr_iter(b'\n', &self.bytes[self.at..offset]).count();
        self.line = self.line.saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
        self.at = offset;
        self.line
    }
}

/// One element (or the gathered metadata) read as a line is.
fn read(
    out: &mut ParsedFile,
    text: &[u8],
    loc: Loc,
    offset: u64,
    (client, opts): (Client, ParseOptions),
    gathered: bool,
) {
    out.lines += 1;
    let mut redacted = None;
    if opts.redact
        && let (std::borrow::Cow::Owned(t), found) = crate::redact::redact(&String::from_utf8_lossy(text))
    {
        out.redactions.push((loc, found));
        redacted = Some(t.into_bytes());
    }
    let line = redacted.as_deref().unwrap_or(text);
    let (entry, problems) = parse_line(client, line, loc, offset);
    match entry {
        Some(mut e) => {
            if gathered || redacted.is_some() {
                e.repaired.get_or_insert_with(|| String::from_utf8_lossy(line).into());
            }
            e.len = if gathered { 0 } else { u32::try_from(text.len()).unwrap_or(u32::MAX) };
            out.entries.push(e);
        }
        None => out.bad_lines += 1,
    }
    out.warnings.extend(problems.into_iter().map(|problem| LineWarning { loc, problem }));
}

/// What a scan of the document found.
#[derive(Default)]
struct Scan<'a> {
    /// Whether the document is an object.
    members_seen: bool,
    /// Each member but `messages`: its key (a JSON string, as written) and value, as written.
    members: Vec<(&'a [u8], &'a [u8])>,
    /// The spans of the elements of the last `messages` list.
    messages: Vec<(usize, usize)>,
    /// Where the scan stopped, and why.
    error: Option<(usize, &'static str)>,
    /// The end (exclusive) of the document, when it is whole.
    end: usize,
}

fn scan(b: &[u8]) -> Scan<'_> {
    let mut s = Scan::default();
    let mut i = ws(b, if b.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 });
    if b.get(i) != Some(&b'{') {
        return s;
    }
    s.members_seen = true;
    i = ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        s.end = i + 1;
        return s;
    }
    loop {
        let Some(key_end) = (b.get(i) == Some(&b'"')).then(|| string_end(b, i)).flatten() else {
            s.error = Some((i, "expected a key"));
            return s;
        };
        let key = &b[i..key_end];
        i = ws(b, key_end);
        if b.get(i) != Some(&b':') {
            s.error = Some((i, "expected `:`"));
            return s;
        }
        i = ws(b, i + 1);
        let start = i;
        if key == b"\"messages\"" && b.get(i) == Some(&b'[') {
            s.messages.clear();
            i = ws(b, i + 1);
            if b.get(i) == Some(&b']') {
                i += 1;
            } else {
                loop {
                    let Some(end) = value_end(b, i) else {
                        s.error = Some((i, "the message starting here is cut short"));
                        return s;
                    };
                    s.messages.push((i, end));
                    i = ws(b, end);
                    match b.get(i) {
                        Some(b',') => i = ws(b, i + 1),
                        Some(b']') => {
                            i += 1;
                            break;
                        }
                        _ => {
                            s.error = Some((i, "expected `,` or `]` after a message"));
                            return s;
                        }
                    }
                }
            }
            // A later `messages` of another type replaces this one too.
            s.members.retain(|(k, _)| *k != key);
        } else {
            let Some(end) = value_end(b, i) else {
                s.error = Some((i, "the value starting here is cut short"));
                return s;
            };
            if key == b"\"messages\"" {
                s.messages.clear();
            }
            s.members.push((key, &b[start..end]));
            i = end;
        }
        i = ws(b, i);
        match b.get(i) {
            Some(b',') => i = ws(b, i + 1),
            Some(b'}') => {
                s.end = i + 1;
                return s;
            }
            _ => {
                s.error = Some((i, "expected `,` or `}`"));
                return s;
            }
        }
    }
}

/// The first byte at or after `i` that is not JSON whitespace.
fn ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The end (exclusive) of the string starting at `b[i] == '"'`.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        let k = j + memchr::memchr2(b'"', b'\\', b.get(j..)?)?;
        if b[k] == b'"' {
            return Some(k + 1);
        }
        j = k + 2;
    }
}

/// The end (exclusive) of the value starting at `i`, at any depth (a count,
/// not a recursion). Its syntax is checked when it is read.
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = i;
    loop {
        match *b.get(j)? {
            b'"' => j = string_end(b, j)?,
            b'{' | b'[' => {
                depth += 1;
                j += 1;
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                j += 1;
            }
            _ if depth == 0 => {
                // A scalar: up to the next delimiter.
                let n = b[j..].iter().position(|c| matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'));
                return Some(n.map_or(b.len(), |n| j + n)).filter(|&e| e > i);
            }
            _ => j += 1,
        }
        if depth == 0 {
            return Some(j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::GEMINI;

    #[test]
    fn each_message_is_an_entry_at_its_bytes_and_line_and_the_rest_is_the_metadata() {
        let doc = "{\n  \"sessionId\": \"s1\",\n  \"messages\": [\n    {\n      \"id\": \"a\",\n      \"timestamp\": \
                   \"2025-09-01T10:00:00Z\",\n      \"type\": \"user\",\n      \"content\": \"hi [x]\"\n    },\n    \
                   {\"id\": \"b\", \"type\": \"gemini\", \"content\": \"{ok}\"}\n  ],\n  \"startTime\": \"x\",\n  \
                   \"sessionId\": \"s2\"\n}\n";
        let p = parse_document(doc.as_bytes(), FileId::new(0).unwrap(), GEMINI, ParseOptions::default());
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let lines: Vec<u32> = p.entries.iter().map(|e| e.loc.line).collect();
        assert_eq!(lines, [1, 4, 10]);
        // The last `sessionId` wins; the metadata is no span of the file.
        assert_eq!(p.entries[0].session_id.as_deref(), Some("s2"));
        assert!(p.entries[0].repaired.is_some());
        for e in &p.entries[1..] {
            let start = usize::try_from(e.offset).unwrap();
            let text = &doc[start..start + e.len as usize];
            assert!(text.starts_with('{') && text.ends_with('}'), "{text}");
            assert_eq!(crate::json::parse(text).unwrap()["id"].as_str(), e.message_id.as_deref());
        }
    }

    #[test]
    fn a_document_cut_short_keeps_the_messages_before_the_cut_and_warns_at_its_line() {
        let doc = "{\"sessionId\": \"s\", \"messages\": [\n{\"id\": \"a\", \"type\": \"user\", \"content\": \"x\"},\n{\"id\": \"b\", \"type\"";
        let p = parse_document(doc.as_bytes(), FileId::new(0).unwrap(), GEMINI, ParseOptions::default());
        assert_eq!(p.entries.iter().filter_map(|e| e.message_id.as_deref()).collect::<Vec<_>>(), ["a"]);
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.warnings[0].loc.line, 3);
        for bad in ["[1, 2]", "nope", "", "\"s\""] {
            let p = parse_document(bad.as_bytes(), FileId::new(0).unwrap(), GEMINI, ParseOptions::default());
            assert!(p.entries.is_empty(), "{bad}");
        }
    }

    #[test]
    fn a_second_document_after_the_first_is_a_warning_at_its_line() {
        let first =
            "{\"sessionId\": \"s\", \"messages\": [\n{\"id\": \"a\", \"type\": \"user\", \"content\": \"x\"}\n]}";
        for (after, warned) in [("\n", false), ("  \n\n", false), ("\n\n{\"messages\": []}\n", true), ("\nx", true)] {
            let doc = format!("{first}{after}");
            let p = parse_document(doc.as_bytes(), FileId::new(0).unwrap(), GEMINI, ParseOptions::default());
            assert_eq!(p.entries.iter().filter_map(|e| e.message_id.as_deref()).collect::<Vec<_>>(), ["a"]);
            assert_eq!(p.warnings.len(), usize::from(warned), "{after:?}: {:?}", p.warnings);
            if warned {
                assert_eq!(p.warnings[0].loc.line, if after == "\nx" { 4 } else { 5 });
                assert_eq!(p.bad_lines, 1);
            }
        }
    }

    #[test]
    fn depth_costs_no_stack() {
        let deep = format!(
            "{{\"messages\": [{{\"id\": \"a\", \"type\": \"user\", \"content\": {}{}}}]}}",
            "[".repeat(200_000),
            "]".repeat(200_000)
        );
        let p = parse_document(deep.as_bytes(), FileId::new(0).unwrap(), GEMINI, ParseOptions::default());
        assert_eq!(p.entries.iter().filter(|e| e.message_id.is_some()).count(), 1);
    }
}

//! Files that are one JSON document, not JSON lines: Gemini CLI's older
//! session files (`chats/session-*.json`, transcript-format Appendix D), one
//! object `{sessionId, projectHash, startTime, lastUpdated, messages: [...]}`
//! the client rewrote whole at each change, pretty-printed.
//!
//! The document is scanned once, window by window as the file is read
//! ([`DocumentReader`]: only the element or member being read is held, so
//! memory follows the largest message, not the file), without recursion and
//! without building a tree: each element of its `messages` is read as a record line would be
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
    let mut r = DocumentReader::new(file, client, opts);
    r.feed(bytes);
    r.finish()
}

/// A document read as its file is, window by window: an element of
/// `messages` is read as soon as it ends, so what a file holds is never
/// kept whole — only the element (or member) being read, and the other
/// members (see the module documentation).
pub struct DocumentReader {
    file: FileId,
    client: Client,
    opts: ParseOptions,
    out: ParsedFile,
    /// The bytes not consumed yet; `base` is the file offset of its first.
    buf: Vec<u8>,
    base: usize,
    pos: usize,
    /// The line number at `buf[lpos]`.
    lpos: usize,
    line: u32,
    state: State,
    /// Each member but `messages`, in order (the last of a key wins).
    members: Vec<(Vec<u8>, Vec<u8>)>,
    members_seen: bool,
    /// What `out` held when the current `messages` list began (a later
    /// `messages` replaces it).
    list: Option<Mark>,
    /// Bytes pending when a value was last found unfinished: it is looked
    /// at again once twice as many are (each byte scanned a bounded number
    /// of times, however long the value).
    waiting: usize,
    /// Where the scan stopped, and why (a file offset).
    error: Option<(usize, &'static str)>,
    /// Where non-blank bytes follow the document.
    trailing: Option<usize>,
    /// A byte other than whitespace was seen.
    any: bool,
}

/// The lengths of what a reader has read, to go back to.
#[derive(Clone, Copy)]
struct Mark {
    entries: usize,
    warnings: usize,
    redactions: usize,
    lines: u64,
    bad_lines: u64,
}

#[derive(Clone, PartialEq, Eq)]
enum State {
    Start,
    FirstKey,
    Key,
    Colon(Vec<u8>),
    Value(Vec<u8>),
    ListFirst,
    ListValue,
    ListAfter,
    AfterMember,
    /// The document ended; what follows is only looked at for more JSON.
    Done,
    /// Not an object, or the scan stopped at an error.
    Stopped,
}

/// What a step needs.
enum Step {
    Go,
    More,
}

impl DocumentReader {
    pub fn new(file: FileId, client: Client, opts: ParseOptions) -> DocumentReader {
        DocumentReader {
            file,
            client,
            opts,
            out: ParsedFile::default(),
            buf: Vec::new(),
            base: 0,
            pos: 0,
            lpos: 0,
            line: 1,
            state: State::Start,
            members: Vec::new(),
            members_seen: false,
            list: None,
            waiting: 0,
            error: None,
            trailing: None,
            any: false,
        }
    }

    /// Reads the next bytes of the file.
    pub fn feed(&mut self, w: &[u8]) {
        self.out.bytes += w.len() as u64;
        let n = u32::try_from(memchr::memchr_iter(b'\n', w).count()).unwrap_or(u32::MAX);
        self.out.newlines = self.out.newlines.saturating_add(n);
        if matches!(self.state, State::Stopped) || (self.state == State::Done && self.trailing.is_some()) {
            self.any |= w.iter().any(|c| !c.is_ascii_whitespace());
            return;
        }
        self.buf.extend_from_slice(w);
        if self.buf.len() - self.pos >= 2 * self.waiting {
            self.run(false);
        }
        // Drop what was consumed (the lines counted up to it first).
        let upto = self.pos;
        self.line_at(upto);
        self.buf.drain(..upto);
        self.base += upto;
        self.pos = 0;
        self.lpos = 0;
    }

    /// The entries, warnings and counts of the whole file.
    pub fn finish(mut self) -> ParsedFile {
        self.run(true);
        let (file, client, opts) = (self.file, self.client, self.opts);
        if !self.members_seen {
            // Not an object at all: one warning (none for an empty file), nothing read.
            self.any |= self.buf.iter().any(|c| !c.is_ascii_whitespace());
            let mut out = std::mem::take(&mut self.out);
            out.entries.clear();
            out.warnings.clear();
            out.redactions.clear();
            (out.lines, out.bad_lines) = (0, 0);
            if self.any {
                out.lines = 1;
                out.bad_lines = 1;
                let problem = LineProblem::Malformed("the document is not a JSON object".into());
                out.warnings.push(LineWarning { loc: Loc { file, line: 1 }, problem });
            }
            return out;
        }
        // The metadata: every member but the messages, as one object, first.
        let mut members: Vec<(&[u8], &[u8])> = Vec::new();
        for (key, value) in &self.members {
            members.retain(|(k, _)| *k != &key[..]);
            members.push((key, value));
        }
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
        let mut head = ParsedFile::default();
        read(&mut head, &meta, Loc { file, line: 1 }, 0, (client, opts), true);
        let mut out = std::mem::take(&mut self.out);
        out.entries.splice(0..0, head.entries);
        out.warnings.splice(0..0, head.warnings);
        out.redactions.splice(0..0, head.redactions);
        out.lines += head.lines;
        out.bad_lines += head.bad_lines;
        let mut tail = Vec::new();
        if let Some(at) = self.trailing {
            // `JSON.parse`, which Gemini CLI reads the file with, refuses it whole.
            tail.push((
                at,
                "more JSON follows the session's document: Gemini CLI cannot read this file (`JSON.parse` refuses \
                 it), cctree reads the first document only; to read what follows, move it into a file of its own"
                    .to_string(),
            ));
        }
        if let Some((at, e)) = self.error {
            tail.push((at, format!("{e} (the document is read up to here)")));
        }
        for (at, why) in tail {
            let line = self.line_at(at.saturating_sub(self.base).min(self.buf.len()));
            out.bad_lines += 1;
            out.warnings.push(LineWarning { loc: Loc { file, line }, problem: LineProblem::Malformed(why) });
        }
        out
    }

    /// The line of `buf[at]` (asked in increasing order).
    fn line_at(&mut self, at: usize) -> u32 {
        let at = at.max(self.lpos);
        let n = memchr::memchr_iter(b'\n', &self.buf[self.lpos..at]).count();
        self.line = self.line.saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
        self.lpos = at;
        self.line
    }

    fn mark(&self) -> Mark {
        let o = &self.out;
        Mark {
            entries: o.entries.len(),
            warnings: o.warnings.len(),
            redactions: o.redactions.len(),
            lines: o.lines,
            bad_lines: o.bad_lines,
        }
    }

    fn back_to(&mut self, m: Mark) {
        let o = &mut self.out;
        o.entries.truncate(m.entries);
        o.warnings.truncate(m.warnings);
        o.redactions.truncate(m.redactions);
        (o.lines, o.bad_lines) = (m.lines, m.bad_lines);
    }

    fn stop(&mut self, at: usize, why: &'static str) -> Step {
        self.error = Some((self.base + at, why));
        self.state = State::Stopped;
        Step::Go
    }

    /// Steps as far as the bytes held go (`eof`: no more will come).
    fn run(&mut self, eof: bool) {
        loop {
            match self.step(eof) {
                Step::Go => self.waiting = 0,
                Step::More => {
                    self.waiting = self.buf.len() - self.pos;
                    return;
                }
            }
            if matches!(self.state, State::Stopped) || (self.state == State::Done && self.trailing.is_some()) {
                return;
            }
        }
    }

    /// Where the bytes end at `i`, no more to come: the document is cut short
    /// unless it was done.
    fn ended(&mut self, i: usize) {
        match self.state {
            State::Start => self.state = State::Stopped,
            State::Done | State::Stopped => {}
            State::ListFirst | State::ListValue => _ = self.stop(i, "the message starting here is cut short"),
            State::Value(_) => _ = self.stop(i, "the value starting here is cut short"),
            State::Key | State::FirstKey => _ = self.stop(i, "expected a key"),
            State::Colon(_) => _ = self.stop(i, "expected `:`"),
            State::ListAfter => _ = self.stop(i, "expected `,` or `]` after a message"),
            State::AfterMember => _ = self.stop(i, "expected `,` or `}`"),
        }
    }

    /// The value of member `key`, starting with `c` at `i`.
    fn value(&mut self, key: Vec<u8>, c: u8, i: usize, eof: bool) -> Step {
        let messages = key == b"\"messages\"";
        if messages && let Some(m) = self.list.take() {
            // A later `messages` replaces the list before it.
            self.back_to(m);
        }
        if messages && c == b'[' {
            self.list = Some(self.mark());
            self.members.retain(|(k, _)| k != &key);
            self.pos = i + 1;
            self.state = State::ListFirst;
            return Step::Go;
        }
        let Some(end) = value_end(&self.buf, i, eof) else {
            self.pos = i;
            if eof {
                return self.stop(i, "the value starting here is cut short");
            }
            self.state = State::Value(key);
            return Step::More;
        };
        self.members.push((key, self.buf[i..end].to_vec()));
        self.pos = end;
        self.state = State::AfterMember;
        Step::Go
    }

    /// An element of `messages`, starting at `i`: read as a line is.
    fn element(&mut self, i: usize, eof: bool) -> Step {
        let Some(end) = value_end(&self.buf, i, eof) else {
            self.pos = i;
            if eof {
                return self.stop(i, "the message starting here is cut short");
            }
            self.state = State::ListValue;
            return Step::More;
        };
        let line = self.line_at(i);
        let (file, client, opts) = (self.file, self.client, self.opts);
        let offset = (self.base + i) as u64;
        read(&mut self.out, &self.buf[i..end], Loc { file, line }, offset, (client, opts), false);
        self.pos = end;
        self.state = State::ListAfter;
        Step::Go
    }

    fn step(&mut self, eof: bool) -> Step {
        let mut i = self.pos;
        if matches!(self.state, State::Start) && self.base == 0 && i == 0 {
            // A byte-order mark, whole.
            let b = &self.buf;
            if b.len() < 3 && !eof && b"\xEF\xBB\xBF".starts_with(b) {
                return Step::More;
            }
            if b.starts_with(b"\xEF\xBB\xBF") {
                i = 3;
                self.any = true;
            }
        }
        i = ws(&self.buf, i);
        let Some(&c) = self.buf.get(i) else {
            self.pos = i;
            if eof {
                self.ended(i);
            }
            return Step::More;
        };
        self.any = true;
        match (std::mem::replace(&mut self.state, State::Stopped), c) {
            (State::Start, b'{') => {
                self.members_seen = true;
                self.to(i + 1, State::FirstKey)
            }
            // Not an object.
            (State::Start, _) => Step::Go,
            (State::FirstKey, b'}') | (State::AfterMember, b'}') => self.to(i + 1, State::Done),
            (State::FirstKey | State::Key, b'"') => self.key(i, eof),
            (State::FirstKey | State::Key, _) => self.stop(i, "expected a key"),
            (State::Colon(key), b':') => self.to(i + 1, State::Value(key)),
            (State::Colon(_), _) => self.stop(i, "expected `:`"),
            (State::Value(key), _) => self.value(key, c, i, eof),
            (State::ListFirst, b']') | (State::ListAfter, b']') => self.to(i + 1, State::AfterMember),
            (State::ListFirst | State::ListValue, _) => self.element(i, eof),
            (State::ListAfter, b',') => self.to(i + 1, State::ListValue),
            (State::ListAfter, _) => self.stop(i, "expected `,` or `]` after a message"),
            (State::AfterMember, b',') => self.to(i + 1, State::Key),
            (State::AfterMember, _) => self.stop(i, "expected `,` or `}`"),
            (State::Done, _) => {
                self.trailing = Some(self.base + i);
                self.to(i, State::Done)
            }
            (State::Stopped, _) => Step::Go,
        }
    }

    fn to(&mut self, pos: usize, state: State) -> Step {
        self.pos = pos;
        self.state = state;
        Step::Go
    }

    /// A member's key, starting at `i`.
    fn key(&mut self, i: usize, eof: bool) -> Step {
        let Some(end) = string_end(&self.buf, i) else {
            self.pos = i;
            if eof {
                return self.stop(i, "expected a key");
            }
            self.state = State::Key;
            return Step::More;
        };
        let key = self.buf[i..end].to_vec();
        self.to(end, State::Colon(key))
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
/// not a recursion). Its syntax is checked when it is read. `None`: it goes
/// on past the bytes held (a scalar ending them ends there when `eof`).
fn value_end(b: &[u8], i: usize, eof: bool) -> Option<usize> {
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
                return match n {
                    Some(n) => Some(j + n),
                    None => eof.then_some(b.len()),
                }
                .filter(|&e| e > i);
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

    /// What a parse gives, as comparable text.
    fn summary(p: &ParsedFile) -> String {
        let entries: Vec<String> = p
            .entries
            .iter()
            .map(|e| format!("{:?}@{}:{}+{} {:?}", e.message_id, e.loc.line, e.offset, e.len, e.session_id))
            .collect();
        let warnings: Vec<String> = p.warnings.iter().map(|w| format!("{}: {:?}", w.loc.line, w.problem)).collect();
        format!("{entries:?} {warnings:?} {} {} {} {}", p.lines, p.bad_lines, p.bytes, p.newlines)
    }

    #[test]
    fn a_document_read_window_by_window_reads_as_a_whole_one() {
        let docs = [
            "{\n  \"sessionId\": \"s1\",\n  \"messages\": [\n    {\"id\": \"a\", \"type\": \"user\", \"content\": \"hi [x] \\\" }\"},\n    {\"id\": \"b\", \"type\": \"gemini\", \"content\": [{\"text\": \"{ok}\"}]}\n  ],\n  \"startTime\": 12345,\n  \"sessionId\": \"s2\"\n}\n",
            // A later `messages` replaces the list before it, whatever its type.
            "{\"messages\": [{\"id\": \"a\", \"type\": \"user\", \"content\": \"x\"}], \"messages\": [{\"id\": \"b\", \"type\": \"user\", \"content\": \"y\"}]}",
            "{\"messages\": [{\"id\": \"a\", \"type\": \"user\", \"content\": \"x\"}], \"messages\": 7, \"n\": true}",
            "\u{feff}{\"sessionId\": \"s\", \"messages\": []}\n\n{\"messages\": []}\n",
            "{\"sessionId\": \"s\", \"messages\": [\n{\"id\": \"a\", \"type\": \"user\", \"content\": \"x\"},\n{\"id\": \"b\", \"type\"",
            "{\"messages\": [{\"id\": \"a\", \"type\": \"user\", \"content\": \"x\"} {\"id\": \"b\"}]}",
            "{\"a\": 1 \"b\": 2}",
            "{\"a\" 1}",
            "{\"a\": tru",
            "{}",
            "{} x",
            "[1, 2]",
            "  \n ",
            "",
            "\u{feff}",
            "{\"messages\": [{\"id\": \"a\", \"type\": \"user\", \"content\": 1e400}, 12, \"s\", null]}",
        ];
        for doc in docs {
            let whole =
                summary(&parse_document(doc.as_bytes(), FileId::new(0).unwrap(), GEMINI, ParseOptions::default()));
            for size in [1, 2, 3, 5, 7, 16, 64] {
                let mut r = DocumentReader::new(FileId::new(0).unwrap(), GEMINI, ParseOptions::default());
                for w in doc.as_bytes().chunks(size) {
                    r.feed(w);
                }
                assert_eq!(summary(&r.finish()), whole, "{doc:?} in windows of {size}");
            }
        }
        // And as the scan of the whole file read it before it read windows.
        let p = parse_document(docs[1].as_bytes(), FileId::new(0).unwrap(), GEMINI, ParseOptions::default());
        assert_eq!(p.entries.iter().filter_map(|e| e.message_id.as_deref()).collect::<Vec<_>>(), ["b"]);
        let p = parse_document(docs[2].as_bytes(), FileId::new(0).unwrap(), GEMINI, ParseOptions::default());
        assert!(p.entries.iter().all(|e| e.message_id.is_none()), "a `messages` that is no list replaces the list");
        let p = parse_document(docs[5].as_bytes(), FileId::new(0).unwrap(), GEMINI, ParseOptions::default());
        assert_eq!(p.entries.iter().filter_map(|e| e.message_id.as_deref()).collect::<Vec<_>>(), ["a"]);
        assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
        for not_one in ["[1, 2]", "\u{feff}"] {
            let p = parse_document(not_one.as_bytes(), FileId::new(0).unwrap(), GEMINI, ParseOptions::default());
            assert_eq!(p.warnings.len(), 1, "{not_one:?}");
        }
        for empty in ["", "  \n "] {
            let p = parse_document(empty.as_bytes(), FileId::new(0).unwrap(), GEMINI, ParseOptions::default());
            assert!(p.warnings.is_empty() && p.entries.is_empty(), "{empty:?}");
        }
    }
}

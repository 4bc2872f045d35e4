//! Aider's chat history read as the client reads it back
//! (transcript-format, Appendix J; `utils.split_chat_history_markdown` of
//! aider 0.86.2): a `# aider chat started at <time>` heading starts a run;
//! a `> ` line is tool output; `#### ` lines make a user message (several
//! in a row one message, a line of another kind ending it); every other
//! line belongs to the reply. Read line by line, one block pending at a
//! time ([`Blocks`]): memory follows the largest message, not the file.
//!
//! Unlike the client (which skips every `# ` line), a `# ` line that is no
//! run heading is kept in the reply it stands in: nothing readable is lost.

use std::io::BufRead;

/// The heading that starts a run.
pub(crate) const HEADING: &str = "# aider chat started at ";

/// What a block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum What {
    /// A run's heading: its text is the time as written.
    Run,
    /// `#### ` lines: a prompt (or a slash command) typed.
    Prompt,
    /// Reply lines.
    Reply,
    /// `> ` lines: the client's output.
    Output,
}

/// One block of the file: its kind, text, first line (from 1), and its
/// bytes `offset..end` in the file (blank lines around a reply left out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Block {
    pub what: What,
    pub text: String,
    pub line: u32,
    pub offset: u64,
    pub end: u64,
}

/// The blocks of a chat history, in file order.
pub(crate) struct Blocks<R> {
    read: R,
    buf: Vec<u8>,
    at: u64,
    line: u32,
    pending: Option<Block>,
    ready: Option<Block>,
    /// A read error met (the blocks before it were given).
    pub error: Option<std::io::Error>,
}

impl<R: BufRead> Blocks<R> {
    pub(crate) fn new(read: R) -> Blocks<R> {
        Blocks { read, buf: Vec::new(), at: 0, line: 0, pending: None, ready: None, error: None }
    }

    /// Adds one line (without its newline) at `offset..end`; a block made
    /// whole by it is left in `ready`.
    fn add(&mut self, text: &str, offset: u64, end: u64) {
        let (what, body) = if let Some(t) = text.strip_prefix(HEADING) {
            (What::Run, t.trim())
        } else if let Some(t) = text.strip_prefix("> ") {
            (What::Output, t.strip_suffix("  ").unwrap_or(t))
        } else if text == ">" {
            (What::Output, "")
        } else if let Some(t) = text.strip_prefix("#### ") {
            (What::Prompt, t.strip_suffix("  ").unwrap_or(t))
        } else {
            (What::Reply, text)
        };
        let blank = what == What::Reply && text.trim().is_empty();
        match self.pending.as_mut() {
            Some(p) if p.what == what && what != What::Run => {
                p.text.push('\n');
                p.text.push_str(body);
                if !blank {
                    p.end = end;
                }
                return;
            }
            _ => {}
        }
        // A blank line between blocks starts no reply of its own.
        if blank {
            if self.pending.as_ref().is_some_and(|p| p.what != What::Reply) {
                self.ready = self.pending.take().map(finish);
            }
            return;
        }
        self.ready = self.pending.take().map(finish);
        let block = Block { what, text: body.to_string(), line: self.line, offset, end };
        match what {
            What::Run => {
                // Whole at once; it goes out after the block before it.
                match self.ready.take() {
                    Some(r) => {
                        self.ready = Some(r);
                        self.pending = Some(block);
                    }
                    None => self.ready = Some(block),
                }
            }
            _ => self.pending = Some(block),
        }
    }
}

/// A block as given: a reply's trailing blank lines taken off.
fn finish(mut b: Block) -> Block {
    let kept = b.text.trim_end().len();
    b.text.truncate(kept);
    b
}

impl<R: BufRead> Iterator for Blocks<R> {
    type Item = Block;

    fn next(&mut self) -> Option<Block> {
        loop {
            if let Some(r) = self.ready.take() {
                return Some(r);
            }
            if self.pending.as_ref().is_some_and(|p| p.what == What::Run) {
                return self.pending.take();
            }
            self.buf.clear();
            let n = match self.read.read_until(b'\n', &mut self.buf) {
                Ok(n) => n,
                Err(e) => {
                    self.error = Some(e);
                    0
                }
            };
            if n == 0 {
                return self.pending.take().map(finish);
            }
            let offset = self.at;
            self.at += n as u64;
            self.line = self.line.saturating_add(1);
            let end = self.at;
            let buf = std::mem::take(&mut self.buf);
            let text = String::from_utf8_lossy(&buf);
            let text = text.strip_suffix('\n').unwrap_or(&text);
            let text = text.strip_suffix('\r').unwrap_or(text);
            self.add(text, offset, end);
            self.buf = buf;
        }
    }
}

/// The blocks of `bytes` (a test's, or a fork's source read whole).
pub(crate) fn blocks_of(bytes: &[u8]) -> Vec<Block> {
    Blocks::new(bytes).collect()
}

/// Whether the first non-blank line of the file at `path` (of its first
/// 64 KB) is a run heading: a chat history Aider wrote.
pub(crate) fn starts_with_heading(path: &std::path::Path) -> bool {
    use std::io::Read;
    let Ok(f) = std::fs::File::open(path) else { return false };
    let mut head = Vec::new();
    if f.take(64 << 10).read_to_end(&mut head).is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&head);
    text.lines().map(str::trim_end).find(|l| !l.is_empty()).is_some_and(|l| l.starts_with(HEADING))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_replies_and_output_split_as_the_client_reads_them() {
        let md = "\n# aider chat started at 2026-12-02 01:46:20\n\n> Aider v0.86.2  \n> Model: m with diff edit format  \n\n#### one,  \n#### two  \n\nReply\n\n# Title in a reply\n\nmore\n\n> Tokens: 2 sent, 1 received.  \n\n#### /ask q  \n\n#### q  \n";
        let b = blocks_of(md.as_bytes());
        let shape: Vec<(What, &str, u32)> = b.iter().map(|b| (b.what, b.text.as_str(), b.line)).collect();
        assert_eq!(
            shape,
            [
                (What::Run, "2026-12-02 01:46:20", 2),
                (What::Output, "Aider v0.86.2\nModel: m with diff edit format", 4),
                (What::Prompt, "one,\ntwo", 7),
                (What::Reply, "Reply\n\n# Title in a reply\n\nmore", 10),
                (What::Output, "Tokens: 2 sent, 1 received.", 16),
                (What::Prompt, "/ask q", 18),
                (What::Prompt, "q", 20),
            ]
        );
        let reply = &b[3];
        let (a, b) = (usize::try_from(reply.offset).unwrap(), usize::try_from(reply.end).unwrap());
        assert_eq!(&md.as_bytes()[a..b], b"Reply\n\n# Title in a reply\n\nmore\n");
    }

    proptest::proptest! {
        /// Any bytes read as blocks without a panic, each block within the
        /// file and after the one before.
        #[test]
        fn any_bytes_read_as_ordered_blocks(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
                                            marks in proptest::collection::vec(0usize..6, 0..40)) {
            let mut input = bytes;
            for (i, m) in marks.iter().enumerate() {
                let at = (i * 37) % (input.len() + 1);
                let piece: &[u8] = [&b"\n# aider chat started at 2026-12-02 01:46:20\n"[..], b"\n#### p  \n", b"\n> out  \n", b"\n\n", b"\r\n", b"<thinking-content-x>"][*m];
                input.splice(at..at, piece.iter().copied());
            }
            let blocks = blocks_of(&input);
            let mut last = 0;
            for b in &blocks {
                proptest::prop_assert!(b.offset >= last && b.offset <= b.end && b.end <= input.len() as u64);
                last = b.offset;
            }
        }
    }
}

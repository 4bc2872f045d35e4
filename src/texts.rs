//! The bytes of a project's transcript files, read so that memory follows
//! what is rendered, not the size of the files (the sizes are in
//! [`crate::limits`]).
//!
//! A file of up to `HOLD_MAX` (16 MB) is read whole and kept, as long as the
//! project's kept bytes stay within `HOLD_BUDGET` (256 MB): pages read its
//! lines from memory. A file whose parse comes from the parse cache is
//! kept the same way but read only when a page first needs a line of it
//! ([`Text::Deferred`]): a turn appended to one session reads the files of
//! the pages it renders. Any other file is read in windows of about
//! `READ_WINDOW` (32 MB) while it is parsed (only the window, and a line
//! longer than it, is in memory), and each line a page needs is read again
//! from the file (`pread`) when the page is rendered. A 2 GB session thus
//! costs its entries' headers and the lines of the pages being rendered, not
//! 2 GB. `stats` and `check` keep no bytes at all ([`Keep::Nothing`]).
//!
//! Files change while cctree reads them: the client appends to a live
//! session, `sync` renames a new version into place, a user may rewrite
//! one. The length read is the length observed when the file was opened;
//! later appends are read next time. A file read again stays open (up to
//! `OPEN_FILES`, 128, per project; the others are opened again by path), so a file
//! renamed over or deleted is still read as it was. A line read again is
//! checked against the hash the parse stage took of it
//! ([`crate::model::Entry::line_hash`]): a file rewritten in place gives an
//! error naming `file:line` ([`LineError::Changed`]), never other text.
//!
//! Why not `mmap` (memmap2): a mapped file that shrinks while mapped kills
//! the process with SIGBUS (the client or a user can truncate a transcript
//! at any time), mapped pages count in the resident set as they are touched
//! (a 2 GB file parsed through a map is 2 GB resident unless unmapped in
//! windows), and mapping needs `unsafe`. Reading windows and lines with
//! `read_at` costs one copy, which is small next to parsing JSON, and is
//! safe code.

use std::borrow::Cow;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::limits::{HOLD_BUDGET, HOLD_MAX, OPEN_FILES, READ_WINDOW as WINDOW};

/// Bytes read at a time where lines do not matter ([`Opened::chunks`]).
const CHUNK: usize = 256 << 10;

/// Which bytes a loaded project keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Keep {
    /// Every line can be read again (render, fork).
    #[default]
    Lines,
    /// No line is read again (`stats`, `check`): no bytes kept.
    Nothing,
}

/// What a project keeps of its files while they are read: bytes held, files open.
#[derive(Debug)]
pub struct Budget {
    keep: Keep,
    held: AtomicU64,
    open: AtomicUsize,
    hold_max: u64,
    window: usize,
}

impl Budget {
    pub fn new(keep: Keep) -> Budget {
        Self::with_sizes(keep, HOLD_MAX, WINDOW)
    }

    /// [`Budget::new`] with other sizes than the limits (tests read small
    /// files the way big ones are read).
    pub fn with_sizes(keep: Keep, hold_max: u64, window: usize) -> Budget {
        Budget { keep, held: AtomicU64::new(0), open: AtomicUsize::new(0), hold_max, window: window.max(1) }
    }

    /// Whether a file of `len` bytes is kept whole (and counts it).
    fn hold(&self, len: u64) -> bool {
        if self.keep == Keep::Nothing || len > self.hold_max {
            return false;
        }
        let before = self.held.fetch_add(len, Ordering::Relaxed);
        if before + len <= HOLD_BUDGET {
            return true;
        }
        self.held.fetch_sub(len, Ordering::Relaxed);
        false
    }

    /// Whether one more file may stay open.
    fn keep_open(&self) -> bool {
        self.open.fetch_add(1, Ordering::Relaxed) < OPEN_FILES
    }
}

/// The bytes of one file, as far as the project keeps them.
#[derive(Debug, Default)]
pub enum Text {
    /// The whole file, as read.
    Held(Box<[u8]>),
    /// The whole file, read when a line of it is first needed (a file whose
    /// parse came from the cache: [`Opened::open_deferred`]).
    Deferred(DeferredText),
    /// Read again from the file when a line is needed.
    Disk(DiskText),
    /// Nothing kept (the file could not be read, or nothing is read again).
    #[default]
    Nothing,
}

/// A file whose lines are read again from disk.
#[derive(Debug)]
pub struct DiskText {
    path: PathBuf,
    /// Open when the budget allowed (else opened again by path).
    file: Option<File>,
    /// Its length when it was read: no line lies beyond.
    len: u64,
}

impl DiskText {
    /// `len` bytes at `offset` (ending at `end`), read now.
    fn bytes(&self, offset: u64, len: u32, end: u64) -> Result<Cow<'_, [u8]>, std::io::Error> {
        if end > self.len {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "past the end"));
        }
        let mut buf = vec![0u8; len as usize];
        let n = match &self.file {
            Some(f) => read_fully_at(f, &mut buf, offset)?,
            None => read_fully_at(&File::open(&self.path)?, &mut buf, offset)?,
        };
        if n < buf.len() {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the file shrank"));
        }
        Ok(Cow::Owned(buf))
    }
}

/// A file read whole when a line of it is first needed.
#[derive(Debug)]
pub struct DeferredText {
    disk: DiskText,
    /// Its bytes once read; `None` when they could not be (its lines are
    /// then read one by one, and fail with the reason).
    bytes: std::sync::OnceLock<Option<Box<[u8]>>>,
}

impl DeferredText {
    /// The file's first `len` bytes (fewer if it shrank).
    fn read(&self) -> Option<Box<[u8]>> {
        let d = &self.disk;
        let reopened;
        let file = match &d.file {
            Some(f) => f,
            None => {
                reopened = File::open(&d.path).ok()?;
                &reopened
            }
        };
        let mut bytes = vec![0u8; usize::try_from(d.len).ok()?];
        let n = read_fully_at(file, &mut bytes, 0).ok()?;
        bytes.truncate(n);
        Some(bytes.into_boxed_slice())
    }
}

/// The bytes `[offset, end)` of `b`.
fn held_range(b: &[u8], offset: u64, end: u64) -> Result<Cow<'_, [u8]>, std::io::Error> {
    let range = usize::try_from(offset).ok().zip(usize::try_from(end).ok());
    range
        .and_then(|(start, end)| b.get(start..end))
        .map(Cow::Borrowed)
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "past the end"))
}

/// A line read again could not be.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    #[error("{path}:{line}: changed on disk since it was read (render again)")]
    Changed { path: String, line: u32 },
    #[error("{path}:{line}: cannot read it again: {err}")]
    Io { path: String, line: u32, err: std::io::Error },
    #[error("{path}:{line}: {err}")]
    Json { path: String, line: u32, err: serde_json::Error },
    #[error("the bytes of this project's files were not kept")]
    NotKept,
}

impl Text {
    /// `len` bytes at `offset`, as read (or as they are now on disk; the
    /// caller checks them against the parse).
    pub fn bytes(&self, offset: u64, len: u32) -> Result<Cow<'_, [u8]>, std::io::Error> {
        let end = offset.checked_add(u64::from(len)).ok_or_else(|| std::io::Error::other("offset out of range"))?;
        match self {
            Text::Held(b) => held_range(b, offset, end),
            Text::Deferred(d) => match d.bytes.get_or_init(|| d.read()) {
                Some(b) => held_range(b, offset, end),
                None => d.disk.bytes(offset, len, end),
            },
            Text::Disk(d) => d.bytes(offset, len, end),
            Text::Nothing => Err(std::io::Error::other("not kept")),
        }
    }
}

/// Files up to this size are fingerprinted whole ([`Opened::sample`]).
pub const SAMPLE_WHOLE: u64 = 256 * 1024;
/// The bytes fingerprinted at each end of a larger file.
const SAMPLE_END: u64 = 64 * 1024;
/// Blocks fingerprinted between the ends, and their size.
const SAMPLE_BLOCKS: u64 = 32;
const SAMPLE_BLOCK: u64 = 4 * 1024;

/// A file opened for parsing: either its bytes, or a handle to read it in windows.
pub struct Opened {
    path: PathBuf,
    file: File,
    len: u64,
    held: Option<Vec<u8>>,
    /// Kept whole, but read only when a line of it is first needed.
    deferred: bool,
    /// An unnamed file an agent wrote its lines into ([`Opened::spilled`]):
    /// kept open, since it cannot be opened again.
    spilled: bool,
    window: usize,
}

impl Opened {
    /// Opens `path`; reads it whole when `budget` keeps it.
    pub fn open(path: &Path, budget: &Budget) -> std::io::Result<Opened> {
        Self::open_with(path, budget, false)
    }

    /// Opens `path` whose parse is expected from a cache: a file `budget`
    /// keeps is not read now but when a line of it is first needed
    /// ([`Text::Deferred`]); a turn appended to one session then reads the
    /// files of the pages it renders, not every file of the project.
    pub fn open_deferred(path: &Path, budget: &Budget) -> std::io::Result<Opened> {
        Self::open_with(path, budget, true)
    }

    fn open_with(path: &Path, budget: &Budget, defer: bool) -> std::io::Result<Opened> {
        let mut file = File::open(path)?;
        let len = file.metadata()?.len();
        let keep = budget.hold(len);
        if keep && defer {
            let (path, window) = (path.to_path_buf(), budget.window);
            return Ok(Opened { path, file, len, held: None, deferred: true, spilled: false, window });
        }
        // Kept whole, or (nothing kept) read at once when it fits a window.
        let held = if keep || (budget.keep == Keep::Nothing && len <= budget.window as u64) {
            let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
            // The length observed is the length read: an append after it is read next time.
            (&mut file).take(len).read_to_end(&mut bytes)?;
            Some(bytes)
        } else {
            None
        };
        let len = held.as_ref().map_or(len, |b| b.len() as u64);
        Ok(Opened { path: path.to_path_buf(), file, len, held, deferred: false, spilled: false, window: budget.window })
    }

    /// The lines an agent wrote into the unnamed file `file` of a file of
    /// its own that is not lines, `path` (a database, named in messages):
    /// read whole when `budget` keeps it, else in windows and again line by
    /// line from `file`, which stays open (it has no name to open again).
    pub fn spilled(mut file: File, path: &Path, budget: &Budget) -> std::io::Result<Opened> {
        let len = file.metadata()?.len();
        let held = if budget.hold(len) || (budget.keep == Keep::Nothing && len <= budget.window as u64) {
            let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
            std::io::Seek::rewind(&mut file)?;
            (&mut file).take(len).read_to_end(&mut bytes)?;
            Some(bytes)
        } else {
            None
        };
        let (path, window) = (path.to_path_buf(), budget.window);
        Ok(Opened { path, file, len, held, deferred: false, spilled: true, window })
    }

    /// The length read.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes, when the file was read whole.
    pub fn held(&self) -> Option<&[u8]> {
        self.held.as_deref()
    }

    /// Calls `f(chunk)` on the bytes `[0, to)` (`to` at most the length
    /// read) in order, in chunks of any size (the bytes held, or reads
    /// into one small buffer: for hashing, where lines do not matter).
    pub fn chunks(&self, to: u64, mut f: impl FnMut(&[u8])) -> std::io::Result<()> {
        let to = to.min(self.len);
        if let Some(b) = &self.held {
            f(b.get(..usize::try_from(to).unwrap_or(b.len())).unwrap_or(b));
            return Ok(());
        }
        let mut buf = vec![0u8; CHUNK];
        let mut at = 0;
        while at < to {
            let want = usize::try_from(to - at).map_or(CHUNK, |left| left.min(CHUNK));
            let n = read_fully_at(&self.file, &mut buf[..want], at)?;
            if n == 0 {
                return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the file shrank while read"));
            }
            f(&buf[..n]);
            at += n as u64;
        }
        Ok(())
    }

    /// A fingerprint of the bytes `[0, size)` (`size` at most the length
    /// read) that reads at most [`SAMPLE_WHOLE`] bytes of them: their
    /// length, and all of them up to that size; past it, the first and the
    /// last [`SAMPLE_END`] bytes and [`SAMPLE_BLOCKS`] blocks of
    /// [`SAMPLE_BLOCK`] bytes spread evenly between (blake3, hex). What
    /// tells a file that grew by an append from one rewritten in place
    /// without reading all it held before (the parse cache: a file grown
    /// under the same inode).
    pub fn sample(&self, size: u64) -> std::io::Result<String> {
        let size = size.min(self.len);
        let mut h = blake3::Hasher::new();
        h.update(&size.to_le_bytes());
        if size <= SAMPLE_WHOLE {
            self.chunks(size, |w| {
                h.update(w);
            })?;
            return Ok(h.finalize().to_hex().to_string());
        }
        let mut ranges = vec![(0, SAMPLE_END), (size - SAMPLE_END, SAMPLE_END)];
        let span = size - 2 * SAMPLE_END - SAMPLE_BLOCK;
        for i in 1..=SAMPLE_BLOCKS {
            ranges.push((SAMPLE_END + span * i / (SAMPLE_BLOCKS + 1), SAMPLE_BLOCK));
        }
        let mut buf = vec![0u8; usize::try_from(SAMPLE_END).unwrap_or(1 << 16)];
        for (at, len) in ranges {
            let want = &mut buf[..usize::try_from(len).unwrap_or(0)];
            let n = match &self.held {
                Some(b) => {
                    let part = usize::try_from(at).ok().and_then(|a| b.get(a..a + want.len())).unwrap_or(&[]);
                    want[..part.len()].copy_from_slice(part);
                    part.len()
                }
                None => read_fully_at(&self.file, want, at)?,
            };
            if n < want.len() {
                return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the file shrank while read"));
            }
            h.update(&at.to_le_bytes());
            h.update(want);
        }
        Ok(h.finalize().to_hex().to_string())
    }

    /// Calls `f(window, offset)` on `[from, to)` (`to` at most the length
    /// read) in consecutive windows of whole lines: each window but the last
    /// ends just after a newline; the last ends at `to`. A line longer than
    /// a window is one window.
    pub fn windows(&self, from: u64, to: u64, mut f: impl FnMut(&[u8], u64)) -> std::io::Result<()> {
        let to = to.min(self.len);
        if let Some(b) = &self.held {
            // `to` is at most the length read: the bytes held.
            let range = usize::try_from(from).ok().zip(usize::try_from(to).ok());
            if let Some(w) = range.and_then(|(from, to)| b.get(from..to)).filter(|w| !w.is_empty()) {
                f(w, from);
            }
            return Ok(());
        }
        let mut buf: Vec<u8> = Vec::new();
        // `buf` holds the bytes from `at` on: a carried partial line, then what was read.
        let mut at = from;
        let mut read_to = from;
        while read_to < to {
            let want = usize::try_from(to - read_to).map_or(self.window, |left| left.min(self.window));
            let old = buf.len();
            buf.resize(old + want, 0);
            let n = read_fully_at(&self.file, &mut buf[old..], read_to)?;
            buf.truncate(old + n);
            if n == 0 {
                // Shorter than observed: the file was cut while being read.
                return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the file shrank while read"));
            }
            read_to += n as u64;
            if read_to >= to {
                break;
            }
            // Whole lines go to `f`; the partial last one is carried.
            if let Some(nl) = memchr::memrchr(b'\n', &buf[old..]) {
                let cut = old + nl + 1;
                f(&buf[..cut], at);
                at += cut as u64;
                buf.drain(..cut);
            }
        }
        if !buf.is_empty() {
            f(&buf, at);
        }
        Ok(())
    }

    /// What the project keeps of the file once parsed.
    pub fn into_text(self, budget: &Budget) -> Text {
        match (self.held, budget.keep) {
            (_, Keep::Nothing) => Text::Nothing,
            (Some(b), _) => Text::Held(b.into_boxed_slice()),
            (None, _) if self.deferred => Text::Deferred(DeferredText {
                disk: DiskText { file: budget.keep_open().then_some(self.file), path: self.path, len: self.len },
                bytes: std::sync::OnceLock::new(),
            }),
            (None, _) => {
                let open = self.spilled || budget.keep_open();
                Text::Disk(DiskText { file: open.then_some(self.file), path: self.path, len: self.len })
            }
        }
    }
}

/// The `len` bytes at `offset` of `file` (fewer at its end): what `check`
/// reads again of a project loaded without its bytes.
pub fn read_line_at(file: &File, offset: u64, len: u32) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![0; len as usize];
    let n = read_fully_at(file, &mut buf, offset)?;
    buf.truncate(n);
    Ok(buf)
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

/// Reads `buf.len()` bytes at `offset`, fewer only at the end of the file.
fn read_fully_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match read_at(file, &mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opened(bytes: &[u8], hold: bool) -> (tempfile::TempDir, Opened) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.jsonl");
        std::fs::write(&path, bytes).unwrap();
        let budget = Budget::with_sizes(if hold { Keep::Lines } else { Keep::Nothing }, HOLD_MAX, 4096);
        let mut o = Opened::open(&path, &budget).unwrap();
        if !hold {
            o.held = None;
        }
        (dir, o)
    }

    #[test]
    fn windows_are_whole_lines_and_cover_the_range() {
        let mut bytes = Vec::new();
        let mut i = 0;
        while bytes.len() < 3 * 4096 + 100 {
            bytes.extend_from_slice(format!("line {i} {}\n", "x".repeat(i % 500)).as_bytes());
            i += 1;
        }
        // One line longer than a window, and a tail without a newline.
        bytes.extend(std::iter::repeat_n(b'y', 4096 * 2 + 7));
        bytes.extend_from_slice(b"\nthe tail");
        for hold in [true, false] {
            let (_d, o) = opened(&bytes, hold);
            for from in [0u64, 5, bytes.len() as u64 / 2] {
                let mut seen = Vec::new();
                let mut next = from;
                o.windows(from, o.len(), |w, at| {
                    assert_eq!(at, next);
                    next += w.len() as u64;
                    if next < o.len() {
                        assert_eq!(w.last(), Some(&b'\n'));
                    }
                    seen.extend_from_slice(w);
                })
                .unwrap();
                assert_eq!(seen, &bytes[usize::try_from(from).unwrap()..]);
            }
        }
    }

    #[test]
    fn a_deferred_file_is_read_when_a_line_is_first_needed() {
        let bytes = b"first line\nsecond line\n";
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.jsonl");
        std::fs::write(&path, bytes).unwrap();
        let budget = Budget::new(Keep::Lines);
        let o = Opened::open_deferred(&path, &budget).unwrap();
        assert_eq!((o.len(), o.held()), (bytes.len() as u64, None), "nothing read at opening");
        let mut hashed = Vec::new();
        o.chunks(o.len(), |c| hashed.extend_from_slice(c)).unwrap();
        assert_eq!(hashed, bytes);
        let text = o.into_text(&budget);
        let Text::Deferred(d) = &text else { panic!("not deferred: {text:?}") };
        assert!(d.bytes.get().is_none(), "nothing read before a line is needed");
        // Appended after opening: not part of what was read, even when the
        // file is first read after the append.
        std::io::Write::write_all(&mut std::fs::OpenOptions::new().append(true).open(&path).unwrap(), b"third\n")
            .unwrap();
        assert_eq!(&*text.bytes(11, 6).unwrap(), b"second");
        assert!(d.bytes.get().is_some_and(|b| b.as_deref() == Some(&bytes[..])), "read once, whole");
        assert_eq!(&*text.bytes(0, 5).unwrap(), b"first");
        assert!(text.bytes(20, 10).is_err(), "past the end");
        assert!(text.bytes(23, 5).is_err());
        // Over the budget of bytes kept: read line by line, as before.
        let small = Budget::with_sizes(Keep::Lines, 4, 4096);
        let text = Opened::open_deferred(&path, &small).unwrap().into_text(&small);
        assert!(matches!(text, Text::Disk(_)));
    }

    #[test]
    fn a_spilled_file_is_read_whole_or_in_windows_and_its_lines_again() {
        let bytes = b"first line\nsecond line\n";
        for (hold, keep) in [(HOLD_MAX, Keep::Lines), (0, Keep::Lines), (0, Keep::Nothing)] {
            let mut file = tempfile::tempfile().unwrap();
            std::io::Write::write_all(&mut file, bytes).unwrap();
            let budget = Budget::with_sizes(keep, hold, 4);
            let o = Opened::spilled(file, Path::new("/nowhere/client.db"), &budget).unwrap();
            assert_eq!(o.len(), bytes.len() as u64);
            let mut seen = Vec::new();
            o.windows(0, o.len(), |w, _| seen.extend_from_slice(w)).unwrap();
            assert_eq!(seen, bytes);
            let text = o.into_text(&budget);
            if keep == Keep::Nothing {
                assert!(matches!(text, Text::Nothing));
                continue;
            }
            // Not held: read again from the unnamed file, never by its name.
            assert_eq!(matches!(text, Text::Held(_)), hold > 0);
            assert_eq!(&*text.bytes(11, 6).unwrap(), b"second");
        }
    }

    #[test]
    fn lines_are_read_again_from_memory_or_disk() {
        let bytes = b"first line\nsecond line\n";
        for hold in [true, false] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("f.jsonl");
            std::fs::write(&path, bytes).unwrap();
            let budget = Budget::new(Keep::Lines);
            let mut o = Opened::open(&path, &budget).unwrap();
            if !hold {
                o.held = None;
            }
            let text = o.into_text(&budget);
            assert_eq!(matches!(text, Text::Held(_)), hold);
            assert_eq!(&*text.bytes(11, 6).unwrap(), b"second");
            assert!(text.bytes(20, 10).is_err(), "past the end");
            // Appended later: not part of what was read.
            std::io::Write::write_all(&mut std::fs::OpenOptions::new().append(true).open(&path).unwrap(), b"third\n")
                .unwrap();
            assert!(text.bytes(23, 5).is_err());
        }
    }

    #[test]
    fn a_file_shorter_than_observed_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.jsonl");
        std::fs::write(&path, vec![b'a'; 1000]).unwrap();
        let budget = Budget::new(Keep::Nothing);
        let mut o = Opened::open(&path, &budget).unwrap();
        o.held = None;
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(10).unwrap();
        assert!(o.windows(0, 1000, |_, _| {}).is_err());
    }

    #[test]
    fn the_budget_holds_small_files_until_it_is_spent() {
        let b = Budget::new(Keep::Lines);
        assert!(b.hold(HOLD_MAX));
        assert!(!b.hold(HOLD_MAX + 1));
        let mut n = 1;
        while b.hold(HOLD_MAX) {
            n += 1;
        }
        assert_eq!(n as u64, HOLD_BUDGET / HOLD_MAX);
        assert!(!Budget::new(Keep::Nothing).hold(1));
    }
}

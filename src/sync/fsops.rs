//! The file system operations of a sync, each safe to interrupt.
//!
//! - a new file is written to a temporary file beside its place
//!   ([`crate::files::Pending`], private to the user), fsynced and renamed
//!   into place: the archive has the whole file or none;
//! - an append writes whole lines at the end of the archived file and fsyncs
//!   it: a kill in the middle leaves part of a line, which the next run
//!   completes (the archived bytes are still the start of the source);
//! - a previous version is kept by renaming it, in the same directory, to
//!   its kept name; the new version then takes the live name: in between the
//!   archive holds the previous version under its kept name;
//! - the source is only ever opened for reading.
//!
//! Test hook: [`FAULT_ENV`]`=abort:N` aborts the process at the N-th step (a
//! chunk written — half of it first —, an fsync, a rename), as a kill would.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result, bail};

use crate::files::{Access, Pending};

/// Test hook: `abort:N` aborts the sync at its N-th write step.
pub const FAULT_ENV: &str = "CCTREE_TEST_SYNC_FAULT";

const CHUNK: usize = 256 * 1024;

static STEPS: AtomicUsize = AtomicUsize::new(0);

/// The source could not be read (it may have changed while it was read):
/// a warning, the file is synced by a later run.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the source {}: {err}", path.display())]
pub struct SourceError {
    pub path: PathBuf,
    pub err: std::io::Error,
}

/// A source file, open for reading only.
pub struct Source<'a> {
    pub file: File,
    pub path: &'a Path,
}

impl Source<'_> {
    /// Wraps an error while reading it.
    pub fn err(&self, err: std::io::Error) -> SourceError {
        SourceError { path: self.path.to_path_buf(), err }
    }
}

fn fault_at() -> Option<usize> {
    static AT: OnceLock<Option<usize>> = OnceLock::new();
    *AT.get_or_init(|| std::env::var(FAULT_ENV).ok()?.strip_prefix("abort:")?.parse().ok())
}

/// Counts a write step; `true` when the fault hook says to die here.
fn step() -> bool {
    fault_at().is_some_and(|at| STEPS.fetch_add(1, Ordering::SeqCst) + 1 == at)
}

fn die() -> ! {
    crate::term::print_err(&format!("{FAULT_ENV}: aborting the sync here\n"));
    std::process::abort()
}

/// Creates a directory and its parents, private to the user on Unix
/// (transcripts hold whatever passed through the terminal).
pub fn create_dir_private(dir: &Path) -> Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir).with_context(|| format!("cannot create {}: check the archive's parent is writable", dir.display()))
}

/// A temporary file beside `path` (its directory made first), private to the user.
fn pending(path: &Path) -> Result<Pending> {
    if let Some(dir) = path.parent() {
        create_dir_private(dir)?;
    }
    Pending::new(path, Access::Private)
        .with_context(|| format!("cannot create a temporary file beside {}", path.display()))
}

/// Moves a complete temporary file into place (a write step).
fn commit(p: Pending, path: &Path) -> Result<()> {
    if step() {
        die();
    }
    let tmp = p.path().to_path_buf();
    p.commit().with_context(|| format!("cannot rename {} to {}", tmp.display(), path.display()))
}

/// Writes `bytes` as the whole new content of `path` (temporary file, fsync, rename).
pub fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut p = pending(path)?;
    let tmp = p.path().to_path_buf();
    p.file()
        .write_all(bytes)
        .and_then(|()| p.file().sync_all())
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    commit(p, path)
}

fn rename(from: &Path, to: &Path) -> Result<()> {
    if step() {
        die();
    }
    std::fs::rename(from, to).with_context(|| format!("cannot rename {} to {}", from.display(), to.display()))
}

/// blake3 (hex) and length of a whole file; `None` if it does not exist.
pub fn hash_file(path: &Path) -> Result<Option<(u64, String)>> {
    let f = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read the archived {}", path.display())),
    };
    let mut h = blake3::Hasher::new();
    let n = std::io::copy(&mut f.take(u64::MAX), &mut h)
        .with_context(|| format!("cannot read the archived {}", path.display()))?;
    Ok(Some((n, h.finalize().to_hex().to_string())))
}

/// blake3 (hex) of the first `len` bytes of `f`, or `None` when it is shorter.
pub fn hash_prefix(f: &mut File, len: u64) -> std::io::Result<Option<String>> {
    f.seek(SeekFrom::Start(0))?;
    let mut h = blake3::Hasher::new();
    let n = std::io::copy(&mut f.take(len), &mut h)?;
    Ok((n == len).then(|| h.finalize().to_hex().to_string()))
}

/// The end of the last complete line among the first `len` bytes (0 if none).
pub fn complete_end(f: &mut File, len: u64) -> std::io::Result<u64> {
    let mut end = len;
    let mut buf = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        // At most `buf.len()`.
        let chunk = &mut buf[..usize::try_from(end - start).unwrap_or(0)];
        f.seek(SeekFrom::Start(start))?;
        f.read_exact(chunk)?;
        if let Some(i) = memchr::memrchr(b'\n', chunk) {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// Newlines in bytes `from..upto` of `f` (what a dry run reports).
pub fn count_lines(f: &mut File, from: u64, upto: u64) -> std::io::Result<u64> {
    f.seek(SeekFrom::Start(from))?;
    let mut lines = 0;
    let mut r = f.take(upto.saturating_sub(from));
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = r.read(&mut buf)?;
        if n == 0 {
            return Ok(lines);
        }
        lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
    }
}

/// Copies bytes `from..upto` of `src` to the end of `out`; newlines copied.
fn copy_range(src: &mut Source<'_>, from: u64, upto: u64, out: &mut File, out_path: &Path) -> Result<u64> {
    src.file.seek(SeekFrom::Start(from)).map_err(|e| src.err(e))?;
    let mut left = upto.saturating_sub(from);
    let mut lines = 0;
    let mut buf = vec![0u8; CHUNK];
    while left > 0 {
        let want = usize::try_from(left).map_or(CHUNK, |left| left.min(CHUNK));
        let n = src.file.read(&mut buf[..want]).map_err(|e| src.err(e))?;
        if n == 0 {
            let short = std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "it got shorter while it was read");
            return Err(src.err(short).into());
        }
        let chunk = &buf[..n];
        if step() {
            let _ = out.write_all(&chunk[..n / 2]);
            die();
        }
        out.write_all(chunk).with_context(|| format!("cannot write {}", out_path.display()))?;
        lines += memchr::memchr_iter(b'\n', chunk).count() as u64;
        left -= n as u64;
    }
    if step() {
        die();
    }
    out.sync_all().with_context(|| format!("cannot write {} to disk", out_path.display()))?;
    Ok(lines)
}

/// Writes bytes `0..upto` of `src` as the new file `dst`; newlines copied.
pub fn copy_new(src: &mut Source<'_>, upto: u64, dst: &Path) -> Result<u64> {
    let mut p = pending(dst)?;
    let tmp = p.path().to_path_buf();
    // On an error the temporary file is removed with `p`.
    let lines = copy_range(src, 0, upto, p.file(), &tmp)?;
    commit(p, dst)?;
    Ok(lines)
}

/// Appends bytes `from..upto` of `src` to `dst`, whose length is `from`; newlines copied.
pub fn append(src: &mut Source<'_>, from: u64, upto: u64, dst: &Path) -> Result<u64> {
    let mut out =
        OpenOptions::new().append(true).open(dst).with_context(|| format!("cannot open {}", dst.display()))?;
    let len = out.metadata().with_context(|| format!("cannot read {}", dst.display()))?.len();
    if len != from {
        bail!("{} changed while it was synced; sync again", dst.display());
    }
    copy_range(src, from, upto, &mut out, dst)
}

/// Merges bytes `0..upto` of `src` into the archived `dst` by the agent's
/// `merge` ([`crate::agent::keep::Rewritten::Merged`]: the archived bytes
/// and the source's give the new content), written whole (temporary file,
/// fsync, rename: a kill leaves the previous copy). Returns the lines and
/// bytes added (`None`: the archive holds all the source holds); writes
/// nothing then, or on a dry run.
pub fn merge(
    src: &mut Source<'_>,
    upto: u64,
    dst: &Path,
    merge: crate::agent::keep::Merge,
    dry_run: bool,
) -> Result<Option<(u64, u64)>> {
    let archived = std::fs::read(dst).with_context(|| format!("cannot read the archived {}", dst.display()))?;
    src.file.seek(SeekFrom::Start(0)).map_err(|e| src.err(e))?;
    let mut source = Vec::new();
    (&mut src.file).take(upto).read_to_end(&mut source).map_err(|e| src.err(e))?;
    let Some(merged) = merge(&archived, &source) else { return Ok(None) };
    let newlines = |b: &[u8]| memchr::memchr_iter(b'\n', b).count() as u64;
    let lines = newlines(&merged).saturating_sub(newlines(&archived));
    let bytes = (merged.len() as u64).saturating_sub(archived.len() as u64);
    if dry_run {
        return Ok(Some((lines, bytes)));
    }
    let mut p = pending(dst)?;
    let tmp = p.path().to_path_buf();
    let mut write = |bytes: &[u8]| -> Result<()> {
        if step() {
            let _ = p.file().write_all(&bytes[..bytes.len() / 2]);
            die();
        }
        p.file().write_all(bytes).with_context(|| format!("cannot write {}", tmp.display()))
    };
    let (head, tail) = merged.split_at(merged.len().min(archived.len()));
    write(head)?;
    write(tail)?;
    if step() {
        die();
    }
    p.file().sync_all().with_context(|| format!("cannot write {} to disk", tmp.display()))?;
    commit(p, dst)?;
    Ok(Some((lines, bytes)))
}

/// Renames the archived `dst` to `keep_as` in its directory.
pub fn keep(dst: &Path, keep_as: &str) -> Result<PathBuf> {
    let kept = dst.with_file_name(keep_as);
    rename(dst, &kept)?;
    Ok(kept)
}

/// Makes the renames in `dir` durable (Unix; elsewhere a no-op).
pub fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_end_and_prefix_hash() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("a.jsonl");
        std::fs::write(&p, b"{\"a\":1}\n{\"b\":2}\n{\"c\"").unwrap();
        let mut f = File::open(&p).unwrap();
        assert_eq!(complete_end(&mut f, 20).unwrap(), 16);
        assert_eq!(complete_end(&mut f, 16).unwrap(), 16);
        assert_eq!(complete_end(&mut f, 7).unwrap(), 0);
        let whole = blake3::hash(b"{\"a\":1}\n").to_hex().to_string();
        assert_eq!(hash_prefix(&mut f, 8).unwrap(), Some(whole));
        assert_eq!(hash_prefix(&mut f, 99).unwrap(), None);
        assert_eq!(count_lines(&mut f, 0, 20).unwrap(), 2);
    }
}

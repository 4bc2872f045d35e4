//! Files written whole, and paths compared whatever way they are spelled:
//! the one place for both, shared by the stages that write (`build`'s
//! output file, `sync`'s archive, `fork`'s new session).
//!
//! - [`Pending`] is a file written beside its final path under a temporary
//!   name (`.<name>.cctree-tmp-XXXXXX`, [`is_temp`]), fsynced, then moved
//!   into place in one step (`tempfile`'s `persist`): over an existing file
//!   ([`Pending::commit`]) or only where none is
//!   ([`Pending::commit_new`]). At every instant the final path holds the
//!   whole previous file or the whole new one; a temporary file is removed
//!   when the write fails, and one a killed process left is recognisable.
//! - [`resolve`] makes a path absolute and resolves its symbolic links, also
//!   when its last components do not exist yet (an output about to be made),
//!   so that "inside the input" is decided on real directories.

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// What the name of a temporary file holds (see [`is_temp`]).
const TEMP_MARK: &str = ".cctree-tmp-";

/// Who may read a file written by cctree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// The owner only (`0600` on Unix): archived transcripts hold whatever
    /// passed through the terminal.
    Private,
    /// As any new file (`0666` less the umask).
    Default,
}

/// A file being written beside `target`, moved there when complete.
#[derive(Debug)]
pub struct Pending {
    tmp: tempfile::NamedTempFile,
    target: PathBuf,
}

impl Pending {
    /// Creates the temporary file in `target`'s directory (which must exist).
    pub fn new(target: &Path, access: Access) -> std::io::Result<Pending> {
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let prefix = format!(".{name}{TEMP_MARK}");
        let mut b = tempfile::Builder::new();
        b.prefix(&prefix).suffix("").rand_bytes(6);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = match access {
                Access::Private => 0o600,
                Access::Default => 0o666,
            };
            b.permissions(std::fs::Permissions::from_mode(mode));
        }
        #[cfg(not(unix))]
        let _ = access;
        Ok(Pending { tmp: b.tempfile_in(dir)?, target: target.to_path_buf() })
    }

    /// The temporary file, to write into.
    pub fn file(&mut self) -> &mut File {
        self.tmp.as_file_mut()
    }

    /// The temporary file's path (for messages).
    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    /// Flushes the file to disk and renames it over the target.
    pub fn commit(self) -> std::io::Result<()> {
        self.tmp.as_file().sync_all()?;
        self.tmp.persist(&self.target).map(drop).map_err(|e| e.error)
    }

    /// Flushes the file to disk and moves it to the target only if no file
    /// is there (`AlreadyExists` otherwise): an existing file is never
    /// replaced, even one that appears meanwhile.
    pub fn commit_new(self) -> std::io::Result<()> {
        self.tmp.as_file().sync_all()?;
        self.tmp.persist_noclobber(&self.target).map(drop).map_err(|e| e.error)
    }
}

/// Writes `bytes` as the whole content of `target` ([`Pending::commit`]).
pub fn write(target: &Path, bytes: &[u8], access: Access) -> std::io::Result<()> {
    let mut p = Pending::new(target, access)?;
    p.file().write_all(bytes)?;
    p.commit()
}

/// Whether a file name is one of [`Pending`]'s temporary files (one that a
/// killed process left behind, when no cctree is running).
pub fn is_temp(name: &str) -> bool {
    name.starts_with('.') && name.contains(TEMP_MARK)
}

/// An absolute, symlink-resolved form of `p`, even if it does not exist
/// yet: its longest existing ancestor canonicalized, the rest appended.
pub fn resolve(p: &Path) -> PathBuf {
    let abs = if p.is_absolute() { p.to_path_buf() } else { std::env::current_dir().unwrap_or_default().join(p) };
    let mut existing = abs.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(c) = existing.canonicalize() {
            let mut out = c;
            out.extend(rest.iter().rev());
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return abs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_files_replace_whole_or_not_at_all() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("a.jsonl");
        write(&target, b"one\n", Access::Private).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"one\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o600);
        }
        // While written, the target is the old file; the temporary is recognisable.
        let mut p = Pending::new(&target, Access::Default).unwrap();
        p.file().write_all(b"two\n").unwrap();
        assert!(is_temp(&p.path().file_name().unwrap().to_string_lossy()), "{}", p.path().display());
        assert_eq!(std::fs::read(&target).unwrap(), b"one\n");
        p.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"two\n");
        // No clobbering: refused, the file stays, the temporary is gone.
        let mut p = Pending::new(&target, Access::Default).unwrap();
        p.file().write_all(b"three\n").unwrap();
        let err = p.commit_new().unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&target).unwrap(), b"two\n");
        // A pending file dropped unwritten leaves nothing.
        drop(Pending::new(&tmp.path().join("b"), Access::Default).unwrap());
        let names: Vec<String> =
            std::fs::read_dir(tmp.path()).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into()).collect();
        assert_eq!(names, ["a.jsonl"]);
        assert!(!is_temp("a.jsonl") && !is_temp(".cctree-sync"));
    }

    #[test]
    fn resolve_reaches_through_links_to_what_does_not_exist_yet() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let canon = real.canonicalize().unwrap();
        assert_eq!(resolve(&real.join("new/site")), canon.join("new/site"));
        #[cfg(unix)]
        {
            let link = tmp.path().join("link");
            std::os::unix::fs::symlink(&real, &link).unwrap();
            assert_eq!(resolve(&link.join("site")), canon.join("site"));
        }
    }
}

//! One output file (`cctree export -o FILE`): written beside its path and
//! renamed over it ([`crate::files::Pending`]), so the file is whole or
//! absent at every instant; never inside the input, never through a symbolic
//! link, never over a file cctree did not write.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::files::{Access, resolve};

/// Why cctree refuses or fails to write an output file. Each says what to do.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("the output {} names no file; give -o a file name such as conversation.html", .0.display())]
    NoName(PathBuf),
    #[error("the output {} is a directory; give -o a file in it, such as {}", .0.display(), .0.join("conversation.html").display())]
    Directory(PathBuf),
    #[error("the output {} is a symbolic link; give -o the file itself", .0.display())]
    Symlink(PathBuf),
    #[error("the output {} is inside the input {}; cctree never writes there: choose another -o", output.display(), input.display())]
    InsideInput { output: PathBuf, input: PathBuf },
    #[error(
        "{} exists and was not written by cctree export; choose another -o, or move it away \
         (cctree never overwrites a file it did not write)",
        .0.display()
    )]
    NotOurs(PathBuf),
    #[error("cannot write {}: {error}; check that its directory exists and is writable, or choose another -o", target.display())]
    Unwritable { target: PathBuf, error: std::io::Error },
}

/// Writes `bytes` to `target`: refused inside any of `inputs`, over a
/// directory or a link, or over an existing file that does not carry `mark`
/// in its first bytes (a file cctree wrote); else written to a temporary
/// file beside it, flushed to disk, and renamed over it.
pub fn write_file<'a>(
    target: &Path,
    inputs: impl IntoIterator<Item = &'a Path>,
    mark: &str,
    bytes: &[u8],
) -> Result<(), FileError> {
    check_outside(target, inputs)?;
    match std::fs::symlink_metadata(target) {
        Ok(m) if m.file_type().is_symlink() => return Err(FileError::Symlink(target.to_path_buf())),
        Ok(m) if m.is_dir() => return Err(FileError::Directory(target.to_path_buf())),
        Ok(_) if !carries(target, mark) => return Err(FileError::NotOurs(target.to_path_buf())),
        _ => {}
    }
    crate::files::write(target, bytes, Access::Default)
        .map_err(|error| FileError::Unwritable { target: target.to_path_buf(), error })
}

/// Refuses an output file inside one of the `inputs` (or with no file name).
pub fn check_outside<'a>(target: &Path, inputs: impl IntoIterator<Item = &'a Path>) -> Result<(), FileError> {
    if target.file_name().is_none() {
        return Err(FileError::NoName(target.to_path_buf()));
    }
    let out = resolve(target);
    for input in inputs.into_iter().map(resolve) {
        if out.starts_with(&input) {
            return Err(FileError::InsideInput { output: target.to_path_buf(), input });
        }
    }
    Ok(())
}

/// Whether the file at `path` carries `mark` in its first [`crate::limits::MARK_PROBE`] bytes.
fn carries(path: &Path, mark: &str) -> bool {
    let Ok(f) = std::fs::File::open(path) else { return false };
    let mut head = Vec::new();
    if std::io::Read::read_to_end(&mut std::io::Read::take(f, crate::limits::MARK_PROBE), &mut head).is_err() {
        return false;
    }
    memchr::memmem::find(&head, mark.as_bytes()).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_over_its_own_files_only() {
        let tmp = tempfile::tempdir().unwrap();
        let input = tmp.path().join("in");
        std::fs::create_dir(&input).unwrap();
        let out = tmp.path().join("x.html");
        write_file(&out, [input.as_path()], "MARK", b"MARK one").unwrap();
        write_file(&out, [input.as_path()], "MARK", b"MARK two").unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"MARK two");
        std::fs::write(&out, "mine").unwrap();
        assert!(matches!(write_file(&out, [input.as_path()], "MARK", b"MARK"), Err(FileError::NotOurs(_))));
        assert_eq!(std::fs::read(&out).unwrap(), b"mine");
        let inside = input.join("x.html");
        assert!(matches!(write_file(&inside, [input.as_path()], "MARK", b"MARK"), Err(FileError::InsideInput { .. })));
        assert!(!inside.exists());
        assert!(matches!(write_file(&input, [], "MARK", b"MARK"), Err(FileError::Directory(_))));
        let leftovers: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(leftovers.len(), 2, "{leftovers:?}");
    }
}

//! Listing the source and the archive: what files each tree an agent keeps
//! ([`crate::agent::keep::KeptTree`]) holds on both sides.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use super::record::STATE_DIR;

/// The name a source directory named like the archive's own
/// ([`STATE_DIR`], at the top of the tree mirrored into the archive
/// directory) has in the archive: its first byte written `%2E`, as a name
/// that is not UTF-8 has its bytes written `%XX` ([`key_of`]).
pub const STATE_DIR_ESCAPED: &str = "%2Ecctree-sync";
use crate::files::resolve;

/// One tree mirrored into the archive, as its agent said
/// ([`crate::agent::Agent::keep`]).
pub type Root = crate::agent::keep::KeptTree;

/// What one tree holds, by path relative to the tree.
#[derive(Debug, Default)]
pub struct Listing {
    pub source: BTreeMap<String, PathBuf>,
    /// Archived files under their live names.
    pub live: BTreeMap<String, PathBuf>,
    /// Kept previous versions (`*.cctree-kept-*`).
    pub kept: BTreeSet<String>,
    /// Temporary files of a killed sync.
    pub leftovers: Vec<PathBuf>,
    pub warnings: Vec<String>,
}

/// Refuses trees whose archive lies inside their source or the reverse
/// (one would be written inside the other), or inside another tree's.
pub fn check_apart(roots: &[Root], archive: &Path) -> Result<()> {
    let mut targets = vec![resolve(archive)];
    targets.extend(roots.iter().map(|r| resolve(&r.archive)));
    // What the archive's parent receives besides it, for the message.
    let mut beside: Vec<&str> = roots.iter().map(|r| r.tree.label()).filter(|l| !l.is_empty()).collect();
    beside.dedup();
    let beside = match beside.is_empty() {
        true => String::new(),
        false => format!(" (its parent also receives {})", beside.join(", ")),
    };
    for r in roots {
        let src = resolve(&r.source);
        for t in &targets {
            if t.starts_with(&src) || src.starts_with(t) {
                bail!(
                    "the archive {} and the source {} overlap (one would be written inside the other); \
                     choose another --to{beside}",
                    t.display(),
                    src.display()
                );
            }
        }
    }
    Ok(())
}

/// Lists a root's source and archive (the archive directory `archive`).
pub fn list(root: &Root, archive: &Path) -> Listing {
    let mut l = Listing::default();
    list_source(root, archive, &mut l);
    list_archive(root, archive, &mut l);
    l
}

fn rel_of(base: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(base).ok()?;
    Some(rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"))
}

/// Whether the tree is the archive directory itself (its agent's folder
/// is the archive's own layout): its top level holds the archive's state
/// directory, and its links are followed as that folder's discovery
/// follows them.
fn is_archive(root: &Root, archive: &Path) -> bool {
    root.archive == archive
}

fn wanted(root: &Root, archive: &Path, rel: &str, top: bool) -> bool {
    if !(root.files)(&format!("{}{rel}", root.prefix)) {
        return false;
    }
    let first = rel.split('/').next().unwrap_or("");
    if top && is_archive(root, archive) && first == STATE_DIR {
        return false;
    }
    root.only.as_ref().is_none_or(|only| only.contains(first))
}

/// Lists a root's source: every regular file, with links followed as
/// discovery follows them ([`discover::walk`]). A directory named like the
/// archive's own (`.cctree-sync`) is archived as [`STATE_DIR_ESCAPED`]. A
/// file that is not archived is a warning naming it: not a regular file,
/// named like a sync temporary file, or whose name in the archive is
/// another's (once made UTF-8, or escaped).
fn list_source(root: &Root, archive: &Path, l: &mut Listing) {
    let top_level = is_archive(root, archive);
    let walk = match only_files(root) {
        Some(w) => w,
        None => crate::walk::walk(&root.source, crate::walk::LinkRule { top_level }),
    };
    l.warnings.extend(walk.warnings.into_iter().map(|w| format!("{w}; not archived")));
    for (path, _) in walk.files {
        let Some(rel) = key_of(&root.source, &path) else { continue };
        if !wanted(root, archive, &rel, false) {
            continue;
        }
        let name = rel.rsplit('/').next().unwrap_or(&rel);
        // The archive's own directory's name: archived under its escaped name.
        let rel = match rel.strip_prefix(STATE_DIR) {
            Some(rest) if top_level && rest.starts_with('/') => format!("{STATE_DIR_ESCAPED}{rest}"),
            _ => rel.clone(),
        };
        let why = if crate::files::is_temp(name) {
            Some("it is named like a sync temporary file (`.<name>.cctree-tmp-…`); rename it".to_string())
        } else {
            None
        };
        let key = format!("{}{rel}", root.prefix);
        if let Some(why) = why {
            l.warnings.push(format!("{}: not archived: {why}", crate::term::safe(path.display())));
        } else if let Some(other) = l.source.get(&key) {
            l.warnings.push(format!(
                "{}: not archived: its name in the archive is that of {} (a name not UTF-8, or `{STATE_DIR}`, \
                 is archived escaped); rename one of them",
                crate::term::safe(path.display()),
                crate::term::safe(other.display())
            ));
        } else {
            l.source.insert(key, path);
        }
    }
}

/// The files of a root whose `only` names regular files directly in its
/// source (or names gone from it), listed without walking the source (a
/// repository holding an agent's files beside everything else): `None`
/// when one is anything else (a folder, a link), walked as usual.
fn only_files(root: &Root) -> Option<crate::walk::Walk> {
    let only = root.only.as_ref()?;
    let mut files = Vec::new();
    for name in only {
        let path = root.source.join(name);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_file() => files.push((path, name.clone())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            _ => return None,
        }
    }
    Some(crate::walk::Walk { files, warnings: Vec::new() })
}

/// The path of `path` under `base` as the archive names it: `/`-separated,
/// and the bytes of a name that are not UTF-8 written `%XX` (a name read
/// lossily, `a\xfe` and `a\xff` would both be `a\u{fffd}`).
fn key_of(base: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(base).ok()?;
    let parts: Vec<String> = rel.components().map(|c| escaped(c.as_os_str())).collect();
    Some(parts.join("/"))
}

#[cfg(unix)]
fn escaped(name: &std::ffi::OsStr) -> String {
    use std::fmt::Write;
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for chunk in name.as_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

#[cfg(not(unix))]
fn escaped(name: &std::ffi::OsStr) -> String {
    name.to_string_lossy().into_owned()
}

fn list_archive(root: &Root, archive: &Path, l: &mut Listing) {
    for item in walkdir::WalkDir::new(&root.archive).sort_by_file_name() {
        let Ok(entry) = item else { continue };
        if !entry.file_type().is_file() {
            continue;
        }
        let Some(rel) = rel_of(&root.archive, entry.path()) else { continue };
        if !wanted(root, archive, &rel, true) {
            continue;
        }
        let name = entry.file_name().to_string_lossy();
        let key = format!("{}{rel}", root.prefix);
        if crate::files::is_temp(&name) {
            l.leftovers.push(entry.into_path());
        } else if crate::layout::split_kept(&name).is_some() {
            l.kept.insert(key);
        } else {
            l.live.insert(key, entry.into_path());
        }
    }
}

/// Temporary files a killed sync left beside `file` (of its name).
pub fn leftovers_of(file: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else { return Vec::new() };
    let prefix = format!(".{}", name.to_string_lossy());
    leftovers(dir)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&prefix)))
        .collect()
}

/// Temporary files a killed sync left directly in `dir`.
pub fn leftovers(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    rd.flatten().filter(|e| crate::files::is_temp(&e.file_name().to_string_lossy())).map(|e| e.path()).collect()
}

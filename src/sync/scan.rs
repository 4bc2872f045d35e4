//! Listing the source and the archive: which trees are mirrored where, and
//! what files each holds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use super::record::{STATE_DIR, Tree};
use crate::files::resolve;

/// One tree mirrored into the archive.
#[derive(Debug, Clone)]
pub struct Root {
    pub tree: Tree,
    pub source: PathBuf,
    pub archive: PathBuf,
    /// Prepended to paths under `source` to make them relative to the tree
    /// (`<project>/` when the input is one project directory).
    pub prefix: String,
    /// Only these first path components (the project's sessions, when the
    /// input is one project directory and the tree is `file-history/`).
    pub only: Option<BTreeSet<String>>,
}

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

/// The trees a sync of `source` (a projects directory or one project
/// directory) into the archive `archive` mirrors. Refuses an archive inside
/// the source or the reverse.
pub fn roots(source: &Path, archive: &Path) -> Result<Vec<Root>> {
    let archive_fh = archive.parent().map(|p| p.join("file-history"));
    let mut roots = Vec::new();
    if crate::agent::claude::discover::is_project_dir(source) {
        let name = dir_name(source);
        roots.push(Root {
            tree: Tree::Projects,
            source: source.to_path_buf(),
            archive: archive.join(&name),
            prefix: format!("{name}/"),
            only: None,
        });
        let fh = source.parent().and_then(Path::parent).map(|p| p.join("file-history"));
        if let (Some(fh), Some(to)) = (fh.filter(|d| d.is_dir()), archive_fh) {
            roots.push(Root {
                tree: Tree::FileHistory,
                source: fh,
                archive: to,
                prefix: String::new(),
                only: Some(sessions_of(source)),
            });
        }
    } else {
        roots.push(Root {
            tree: Tree::Projects,
            source: source.to_path_buf(),
            archive: archive.to_path_buf(),
            prefix: String::new(),
            only: None,
        });
        let fh = source.parent().map(|p| p.join("file-history"));
        if let (Some(fh), Some(to)) = (fh.filter(|d| d.is_dir()), archive_fh) {
            roots.push(Root { tree: Tree::FileHistory, source: fh, archive: to, prefix: String::new(), only: None });
        }
    }
    check_apart(&roots, archive)?;
    Ok(roots)
}

/// Where the archive keeps another client's folder: beside the projects
/// directory, `codex/sessions/` and `gemini/tmp/`.
pub fn client_archive(archive: &Path, client: crate::model::Client) -> Option<PathBuf> {
    crate::agent::of(client).synced_dir(archive).filter(|d| d != archive)
}

/// The tree a sync of Codex CLI's sessions tree or Gemini CLI's `tmp`
/// folder (`dir`, as [`discover::codex::is_codex_dir`] and
/// [`discover::gemini::is_gemini_dir`] return them: for Gemini, also one
/// project folder `tmp/<name>`) mirrors, beside the archive.
pub fn client_roots(client: crate::model::Client, dir: &Path, archive: &Path) -> Result<Vec<Root>> {
    let Some(to) = client_archive(archive, client) else {
        bail!("the archive {} has no parent directory to keep {} sessions in", archive.display(), client.product());
    };
    let (tree, root) = match client {
        c if c == crate::agent::GEMINI && dir.join("chats").is_dir() => {
            let name = dir_name(dir);
            (
                Tree::Gemini,
                Root {
                    tree: Tree::Gemini,
                    source: dir.to_path_buf(),
                    archive: to.join(&name),
                    prefix: format!("{name}/"),
                    only: None,
                },
            )
        }
        c if c == crate::agent::GEMINI => (
            Tree::Gemini,
            Root { tree: Tree::Gemini, source: dir.to_path_buf(), archive: to, prefix: String::new(), only: None },
        ),
        _ => (
            Tree::Codex,
            Root { tree: Tree::Codex, source: dir.to_path_buf(), archive: to, prefix: String::new(), only: None },
        ),
    };
    debug_assert_eq!(tree, root.tree);
    // Codex CLI's archived threads, beside its sessions tree, are kept beside the kept one.
    let archived = (tree == Tree::Codex).then(|| crate::agent::codex::discover::archived_beside(dir)).flatten();
    let archived = archived.zip(root.archive.parent().map(|p| p.join(crate::agent::codex::discover::ARCHIVED)));
    let mut roots = vec![root];
    if let Some((source, archive)) = archived {
        roots.push(Root { tree: Tree::CodexArchived, source, archive, prefix: String::new(), only: None });
    }
    check_apart(&roots, archive)?;
    Ok(roots)
}

/// Of Gemini CLI's `tmp/`, only each project's `chats/` and `.project_root`
/// are kept (its checkpoints, logs and shell history are not transcripts).
fn gemini_kept(key: &str) -> bool {
    let mut parts = key.split('/');
    let (_, Some(second), third) = (parts.next(), parts.next(), parts.next()) else { return false };
    (second == "chats" && third.is_some()) || (second == ".project_root" && third.is_none())
}

fn dir_name(dir: &Path) -> String {
    let abs = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    abs.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "project".into())
}

/// Session ids of a project directory: `<id>.jsonl` files and `<id>/` directories.
fn sessions_of(project: &Path) -> BTreeSet<String> {
    let Ok(rd) = std::fs::read_dir(project) else { return BTreeSet::new() };
    rd.flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            match name.strip_suffix(".jsonl") {
                Some(stem) => Some(stem.to_string()),
                None => e.path().is_dir().then_some(name),
            }
        })
        .collect()
}

fn check_apart(roots: &[Root], archive: &Path) -> Result<()> {
    let mut targets = vec![resolve(archive)];
    targets.extend(roots.iter().map(|r| resolve(&r.archive)));
    for r in roots {
        let src = resolve(&r.source);
        for t in &targets {
            if t.starts_with(&src) || src.starts_with(t) {
                bail!(
                    "the archive {} and the source {} overlap (one would be written inside the other); \
                     choose another --to (its parent also receives file-history/)",
                    t.display(),
                    src.display()
                );
            }
        }
    }
    Ok(())
}

/// Lists a root's source and archive.
pub fn list(root: &Root) -> Listing {
    let mut l = Listing::default();
    list_source(root, &mut l);
    list_archive(root, &mut l);
    l
}

fn rel_of(base: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(base).ok()?;
    Some(rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"))
}

fn wanted(root: &Root, rel: &str, top: bool) -> bool {
    if root.tree == Tree::Gemini && !gemini_kept(&format!("{}{rel}", root.prefix)) {
        return false;
    }
    let first = rel.split('/').next().unwrap_or("");
    if top && root.tree == Tree::Projects && root.prefix.is_empty() && first == STATE_DIR {
        return false;
    }
    root.only.as_ref().is_none_or(|only| only.contains(first))
}

/// Lists a root's source: every regular file, with links followed as
/// discovery follows them ([`discover::walk`]). A file that is not archived
/// is a warning naming it: not a regular file, in a directory named like the
/// archive's own (`.cctree-sync`), named like a sync temporary file, or
/// whose name is another's once made UTF-8.
fn list_source(root: &Root, l: &mut Listing) {
    let top_level = root.tree == Tree::Projects && root.prefix.is_empty();
    let walk = crate::walk::walk(&root.source, crate::walk::LinkRule { top_level });
    l.warnings.extend(walk.warnings.into_iter().map(|w| format!("{w}; not archived")));
    for (path, _) in walk.files {
        let Some(rel) = key_of(&root.source, &path) else { continue };
        if !wanted(root, &rel, false) {
            continue;
        }
        let name = rel.rsplit('/').next().unwrap_or(&rel);
        let why = if top_level && rel.split('/').next() == Some(STATE_DIR) {
            Some(format!("{STATE_DIR} is the name of the archive's own directory; rename the source directory"))
        } else if crate::files::is_temp(name) {
            Some("it is named like a sync temporary file (`.<name>.cctree-tmp-…`); rename it".to_string())
        } else {
            None
        };
        let key = format!("{}{rel}", root.prefix);
        if let Some(why) = why {
            l.warnings.push(format!("{}: not archived: {why}", crate::term::safe(path.display())));
        } else if let Some(other) = l.source.get(&key) {
            l.warnings.push(format!(
                "{}: not archived: its name is the name of {} once made UTF-8; rename one of them",
                crate::term::safe(path.display()),
                crate::term::safe(other.display())
            ));
        } else {
            l.source.insert(key, path);
        }
    }
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

fn list_archive(root: &Root, l: &mut Listing) {
    for item in walkdir::WalkDir::new(&root.archive).sort_by_file_name() {
        let Ok(entry) = item else { continue };
        if !entry.file_type().is_file() {
            continue;
        }
        let Some(rel) = rel_of(&root.archive, entry.path()) else { continue };
        if !wanted(root, &rel, true) {
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

/// The prompt history to keep: the source's `history.jsonl` (beside its
/// projects directory) and where it is kept (beside the archive), when the
/// source is a projects directory that has one. Refuses an archive whose
/// history would be the source's own.
pub fn history(source: &Path, archive: &Path) -> Result<Option<(PathBuf, PathBuf)>> {
    if crate::agent::claude::discover::is_project_dir(source) {
        return Ok(None);
    }
    let (Some(src), Some(dst)) =
        (source.parent().map(|p| p.join(crate::history::FILE_NAME)), crate::history::beside_archive(archive))
    else {
        return Ok(None);
    };
    if !src.is_file() {
        return Ok(None);
    }
    if resolve(&src) == resolve(&dst) {
        bail!(
            "the archive {} sits beside the source {}: its history.jsonl would be the client's own; \
             choose another --to (its parent also receives file-history/ and history.jsonl)",
            archive.display(),
            source.display()
        );
    }
    Ok(Some((src, dst)))
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

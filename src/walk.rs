//! Walking a directory tree the way every reader of the input does
//! ([`walk`]): symbolic links followed once per real directory or file,
//! within a [`LinkRule`], what cannot be read or is not a regular file a
//! warning naming it. Used by the discovery of each agent's folders and by
//! `sync`'s listings, so both see the same files.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashSet;

use crate::term::safe;

/// What identifies a directory or file whatever the path it is reached by.
pub(crate) type Key = (u64, u64);

#[cfg(unix)]
pub(crate) fn key(m: &std::fs::Metadata, _path: &Path) -> Key {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

#[cfg(not(unix))]
pub(crate) fn key(_m: &std::fs::Metadata, path: &Path) -> Key {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()).hash(&mut h);
    (0, h.finish())
}
/// The files under a directory, with their paths relative to it.
pub(crate) struct Walk {
    /// `(path, rel)`: `rel` with `/` separators, in walk order.
    pub files: Vec<(PathBuf, String)>,
    pub warnings: Vec<String>,
}

/// Which directory links a walk follows (docs/guide/input.md): in a project,
/// those that point inside the projects directory holding it (a session
/// directory linked to another project's); never to `/`, a system directory
/// (`/proc`, `/sys`, `/dev`) or a directory holding the walk's own. With
/// `top_level` (a projects directory walked whole), its links inside it, and
/// the links directly in it (project directories) to anywhere but those,
/// what they point to then being inside the walk.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LinkRule {
    pub top_level: bool,
}

/// Lists the files under `root`, following symbolic links once per real
/// directory and file, within [`LinkRule`]. The real tree is walked first
/// (without following links), then each link, in the order met: a link to a
/// directory already walked (through another path or link) is not followed
/// again, so no file is listed twice whatever the links (48 links to one
/// directory listed its file 262,000 times through walkdir's paths); a link
/// to a file already listed is left out. Linear in the number of entries;
/// unreadable directories, broken links, links not followed and what is not
/// a regular file (a FIFO, a device, a socket: never opened) are warnings.
pub(crate) fn walk(root: &Path, rule: LinkRule) -> Walk {
    // A project's links may lead within the projects directory holding it;
    // a projects directory's within itself.
    let parent = root.parent().filter(|_| !rule.top_level);
    let within = [Some(root), parent].into_iter().flatten().filter_map(|d| std::fs::canonicalize(d).ok()).collect();
    let mut w = Walker {
        root,
        rule,
        within,
        seen: FxHashSet::default(),
        links: VecDeque::new(),
        files: Vec::new(),
        warnings: Vec::new(),
    };
    w.tree(root);
    while let Some(link) = w.links.pop_front() {
        w.link(&link);
    }
    let Walker { mut files, warnings, .. } = w;
    if files.iter().any(|f| f.via_link) {
        // A linked file already listed under its real path (or another link): once.
        let mut keys = FxHashSet::default();
        files.sort_by(|a, b| (a.via_link, &a.rel).cmp(&(b.via_link, &b.rel)));
        files.retain(|f| match std::fs::metadata(&f.path) {
            Ok(m) => keys.insert(key(&m, &f.path)) || !f.via_link,
            Err(_) => true,
        });
        files.sort_by(|a, b| a.rel.cmp(&b.rel));
    }
    Walk { files: files.into_iter().map(|f| (f.path, f.rel)).collect(), warnings }
}

struct Walker<'a> {
    root: &'a Path,
    rule: LinkRule,
    /// Where links may lead (resolved): the walked directory and its parent,
    /// plus what its followed top-level links point to.
    within: Vec<PathBuf>,
    /// Directories walked.
    seen: FxHashSet<Key>,
    /// Symbolic links met, not yet followed.
    links: VecDeque<PathBuf>,
    files: Vec<Found>,
    warnings: Vec<String>,
}

struct Found {
    path: PathBuf,
    rel: String,
    /// The file is itself a symbolic link.
    via_link: bool,
}

/// What a file that is neither a regular file, a directory nor a link is.
pub(crate) fn special_kind(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    let _ = t;
    "not a regular file"
}

/// The warning for a file that is not a regular file: never opened.
pub(crate) fn special_warning(path: &Path, kind: &str) -> String {
    format!("{}: {kind}, not a regular file; not read (cctree reads regular files only)", safe(path.display()))
}

/// Why a link to the directory `target` (resolved) is not followed, if it is not.
pub(crate) fn refused_target(target: &Path, walked: &Path) -> Option<&'static str> {
    let system = ["/proc", "/sys", "/dev"].iter().any(|d| target.starts_with(d));
    if target.parent().is_none() || system {
        Some("it points to the root or a system directory")
    } else if std::fs::canonicalize(walked).is_ok_and(|w| w.starts_with(target)) {
        Some("it points to a directory that holds it (a loop)")
    } else {
        None
    }
}

impl Walker<'_> {
    /// Walks the real tree under `start` (a directory or a link to one),
    /// leaving links for later (queued in path order, so what is followed
    /// first never depends on the order the file system lists entries in;
    /// the files are sorted by the caller).
    fn tree(&mut self, start: &Path) {
        let walker = walkdir::WalkDir::new(start).follow_links(false).follow_root_links(true);
        let mut links = Vec::new();
        let mut it = walker.into_iter();
        while let Some(item) = it.next() {
            let entry = match item {
                Ok(e) => e,
                Err(err) => {
                    let path = err.path().unwrap_or(start).to_path_buf();
                    let why = err.io_error().map_or_else(|| err.to_string(), ToString::to_string);
                    self.warnings.push(format!(
                        "cannot read {}: {why}; what it holds is skipped (check its permissions)",
                        safe(path.display())
                    ));
                    continue;
                }
            };
            let t = entry.file_type();
            if entry.depth() > 0 && entry.path_is_symlink() {
                links.push(entry.into_path());
            } else if t.is_dir() {
                let k = std::fs::metadata(entry.path()).map(|m| key(&m, entry.path()));
                if k.is_ok_and(|k| !self.seen.insert(k)) && entry.depth() > 0 {
                    it.skip_current_dir();
                }
            } else if t.is_file() {
                self.push(entry.into_path(), false);
            } else {
                self.warnings.push(special_warning(entry.path(), special_kind(&t)));
            }
        }
        links.sort();
        self.links.extend(links);
    }

    /// Follows one link: a directory not walked yet is walked (within the
    /// rule), a file listed.
    fn link(&mut self, link: &Path) {
        match std::fs::metadata(link) {
            Ok(m) if m.is_dir() => {
                let target = std::fs::canonicalize(link).unwrap_or_else(|_| link.to_path_buf());
                let top = self.rule.top_level && link.parent() == Some(self.root);
                let refused = refused_target(&target, self.root).or_else(|| {
                    (!top && !self.within.iter().any(|w| target.starts_with(w)))
                        .then_some("it points outside the projects directory")
                });
                if self.seen.contains(&key(&m, link)) {
                    if is_above(link) {
                        self.warnings.push(format!(
                            "{}: a symbolic link to a directory above it (a loop); not followed",
                            safe(link.display())
                        ));
                    } else {
                        tracing::debug!("{}: a link to a directory already read", link.display());
                    }
                } else if let Some(why) = refused {
                    self.warnings.push(format!(
                        "{} → {}: a symbolic link not followed: {why} (links inside a project are followed \
                         within the projects directory; copy what it holds in, or link the whole project directory)",
                        safe(link.display()),
                        safe(target.display())
                    ));
                } else {
                    if top {
                        self.within.push(target);
                    }
                    self.tree(link);
                }
            }
            Ok(m) if m.is_file() => self.push(link.to_path_buf(), true),
            Ok(m) => self.warnings.push(special_warning(link, special_kind(&m.file_type()))),
            Err(e) => {
                self.warnings.push(format!("{}: a broken symbolic link ({e}); skipped", safe(link.display())));
            }
        }
    }

    fn push(&mut self, path: PathBuf, via_link: bool) {
        let Ok(rel_path) = path.strip_prefix(self.root) else {
            return;
        };
        let rel = rel_path.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
        self.files.push(Found { path, rel, via_link });
    }
}

/// Whether the directory `link` points to holds the link (a loop).
fn is_above(link: &Path) -> bool {
    let target = std::fs::canonicalize(link);
    let parent = link.parent().map(std::fs::canonicalize);
    matches!((target, parent), (Ok(t), Some(Ok(p))) if p.starts_with(&t))
}

/// The last part of `dir` (of its real path when it has none, as `.`), for a name.
pub(crate) fn dir_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .or_else(|| std::fs::canonicalize(dir).ok()?.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "project".into())
}

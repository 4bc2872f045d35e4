//! What a request path names in the site directory, and nothing else.
//!
//! A path is cut into segments before it is decoded, so `%2F` never makes a
//! new segment; `.` and `..` are refused, and so is every name starting with
//! a dot (the cache `.cctree-cache/`, the marker, a render's temporary
//! directories): the site's own files never do. On Unix each segment is
//! opened from the directory before it without following links
//! (`openat(O_NOFOLLOW)`), so no link leads out of the site, and no check can
//! be raced by a link made after it; only directories and regular files are
//! served (a FIFO is opened without blocking, then refused). A directory is
//! its `index.html`, never a listing.

use std::fs::File;
use std::path::Path;

/// What a request path found.
#[derive(Debug)]
pub(super) enum Lookup {
    /// A regular file of the site.
    File(Found),
    /// A directory asked for without its trailing `/` (and holding an
    /// `index.html`): the same path with one.
    Redirect(String),
    /// Nothing the site serves: missing, a link, a hidden name, a directory
    /// without `index.html`, anything but a regular file.
    NotFound,
    /// Not a path of the site's form: `.` or `..`, an empty segment, a
    /// segment that decodes to a separator or NUL, or not UTF-8.
    BadRequest,
}

/// A file found, open.
#[derive(Debug)]
pub(super) struct Found {
    pub(super) file: File,
    pub(super) len: u64,
    /// Its kind, from the name (`html`, `js`, …; lowercase).
    pub(super) ext: String,
    /// Changes whenever the file does (see [`token`]).
    pub(super) token: String,
}

/// The segments of a request path (`/a/b/` → `["a", "b"]`, a directory);
/// `Err` with what to answer.
fn segments(raw: &str) -> Result<(Vec<String>, bool), Lookup> {
    let Some(rest) = raw.strip_prefix('/') else { return Err(Lookup::BadRequest) };
    let dir = rest.is_empty() || rest.ends_with('/');
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let mut out = Vec::new();
    if rest.is_empty() {
        return Ok((out, dir));
    }
    for seg in rest.split('/') {
        let decoded = percent_encoding::percent_decode_str(seg).decode_utf8().map_err(|_| Lookup::BadRequest)?;
        if seg.is_empty() || decoded == "." || decoded == ".." || decoded.contains(['/', '\\', '\0']) {
            return Err(Lookup::BadRequest);
        }
        if decoded.starts_with('.') {
            return Err(Lookup::NotFound);
        }
        out.push(decoded.into_owned());
    }
    Ok((out, dir))
}

/// Looks `raw` (a request's path, without the query) up in the site at `root`.
pub(super) fn lookup(root: &Path, raw: &str) -> Lookup {
    let (segs, dir) = match segments(raw) {
        Ok(s) => s,
        Err(refusal) => return refusal,
    };
    match open(root, &segs, dir) {
        Ok(Some(found)) => found,
        Ok(None) | Err(_) => Lookup::NotFound,
    }
}

/// The token of the file `raw` names now (`None`: the site serves nothing there).
pub(super) fn current_token(root: &Path, raw: &str) -> Option<String> {
    match lookup(root, raw) {
        Lookup::File(f) => Some(f.token),
        _ => None,
    }
}

/// A file's identity and version: device, inode, size and modification time.
/// A render links an unchanged file from the previous site (same inode) and
/// writes a changed one anew, so the token changes exactly when the file does.
fn token(meta: &std::fs::Metadata) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        format!("{:x}-{:x}-{:x}-{:x}.{:x}", meta.dev(), meta.ino(), meta.size(), meta.mtime(), meta.mtime_nsec())
    }
    #[cfg(not(unix))]
    {
        let mtime = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).unwrap_or_default();
        format!("{:x}-{:x}", meta.len(), mtime.as_nanos())
    }
}

fn found(file: File, name: &str) -> std::io::Result<Option<Lookup>> {
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(None);
    }
    let ext = Path::new(name).extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    Ok(Some(Lookup::File(Found { len: meta.len(), token: token(&meta), file, ext })))
}

#[cfg(unix)]
fn open(root: &Path, segs: &[String], dir: bool) -> std::io::Result<Option<Lookup>> {
    use rustix::fs::{Mode, OFlags, openat};
    let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW | OFlags::NONBLOCK;
    // The root itself is opened by its path at each request: a render swaps a
    // new site in at that path.
    let mut at = openat(rustix::fs::CWD, root, OFlags::RDONLY | OFlags::CLOEXEC | OFlags::DIRECTORY, Mode::empty())?;
    let (last, parents) = match segs.split_last() {
        Some((last, parents)) => (Some(last), parents),
        None => (None, segs),
    };
    for seg in parents {
        at = openat(&at, seg.as_str(), flags | OFlags::DIRECTORY, Mode::empty())?;
    }
    let Some(last) = last else {
        let index = File::from(openat(&at, "index.html", flags, Mode::empty())?);
        return found(index, "index.html");
    };
    let fd = File::from(openat(&at, last.as_str(), flags, Mode::empty())?);
    if fd.metadata()?.is_dir() {
        let index = File::from(openat(&fd, "index.html", flags, Mode::empty())?);
        if !dir {
            return Ok(index.metadata()?.is_file().then(|| Lookup::Redirect(redirect_to(segs))));
        }
        return found(index, "index.html");
    }
    if dir {
        return Ok(None);
    }
    found(fd, last)
}

#[cfg(not(unix))]
fn open(root: &Path, segs: &[String], dir: bool) -> std::io::Result<Option<Lookup>> {
    let mut path = root.to_path_buf();
    for seg in segs {
        path.push(seg);
        if std::fs::symlink_metadata(&path)?.file_type().is_symlink() {
            return Ok(None);
        }
    }
    if std::fs::symlink_metadata(&path)?.is_dir() {
        let index = path.join("index.html");
        if std::fs::symlink_metadata(&index)?.file_type().is_symlink() {
            return Ok(None);
        }
        if !dir && !segs.is_empty() {
            return Ok(index.is_file().then(|| Lookup::Redirect(redirect_to(segs))));
        }
        return found(File::open(index)?, "index.html");
    }
    if dir {
        return Ok(None);
    }
    found(File::open(&path)?, segs.last().map_or("", String::as_str))
}

/// `/a/b/` for the segments `a`, `b`, each encoded again.
fn redirect_to(segs: &[String]) -> String {
    let mut out = String::from("/");
    for s in segs {
        out.extend(percent_encoding::utf8_percent_encode(s, SEGMENT));
        out.push('/');
    }
    out
}

/// What a path segment of a redirect encodes: controls, space, and what
/// would end or split it.
const SEGMENT: &percent_encoding::AsciiSet =
    &percent_encoding::CONTROLS.add(b' ').add(b'"').add(b'#').add(b'%').add(b'?').add(b'/').add(b'<').add(b'>');

/// The media type of a file of the site, from its extension.
pub(super) fn content_type(ext: &str) -> &'static str {
    match ext {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "xml" => "application/xml; charset=utf-8",
        "txt" => "text/plain; charset=utf-8",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        // The site's own icon only: an image of a transcript is never SVG.
        "svg" => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("index.html"), "root").unwrap();
        std::fs::create_dir_all(d.path().join("p/c")).unwrap();
        std::fs::write(d.path().join("p/index.html"), "project").unwrap();
        std::fs::write(d.path().join("p/a b.js"), "js").unwrap();
        std::fs::create_dir_all(d.path().join(".cctree-cache")).unwrap();
        std::fs::write(d.path().join(".cctree-cache/manifest.json"), "{}").unwrap();
        d
    }

    fn body(l: Lookup) -> String {
        match l {
            Lookup::File(mut f) => {
                let mut s = String::new();
                std::io::Read::read_to_string(&mut f.file, &mut s).unwrap();
                s
            }
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn files_directories_and_redirects() {
        let d = site();
        assert_eq!(body(lookup(d.path(), "/")), "root");
        assert_eq!(body(lookup(d.path(), "/index.html")), "root");
        assert_eq!(body(lookup(d.path(), "/p/")), "project");
        assert_eq!(body(lookup(d.path(), "/p/a%20b.js")), "js");
        assert!(matches!(lookup(d.path(), "/p"), Lookup::Redirect(r) if r == "/p/"));
        // A directory without index.html is nothing, never a listing.
        assert!(matches!(lookup(d.path(), "/p/c/"), Lookup::NotFound));
        assert!(matches!(lookup(d.path(), "/p/c"), Lookup::NotFound));
        assert!(matches!(lookup(d.path(), "/index.html/"), Lookup::NotFound));
    }

    #[test]
    fn refusals() {
        let d = site();
        for bad in
            ["/../x", "/p/../index.html", "/p/%2e%2e/index.html", "/p%2findex.html", "/p//index.html", "x", "/%ff"]
        {
            assert!(matches!(lookup(d.path(), bad), Lookup::BadRequest), "{bad}");
        }
        for hidden in ["/.cctree-cache/manifest.json", "/.cctree-cache/", "/%2ecctree-cache/manifest.json", "/nope"] {
            assert!(matches!(lookup(d.path(), hidden), Lookup::NotFound), "{hidden}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn links_are_not_followed() {
        let d = site();
        let out = tempfile::tempdir().unwrap();
        std::fs::write(out.path().join("secret.txt"), "secret").unwrap();
        std::os::unix::fs::symlink(out.path().join("secret.txt"), d.path().join("s.txt")).unwrap();
        std::os::unix::fs::symlink(out.path(), d.path().join("dir")).unwrap();
        std::os::unix::fs::symlink(d.path().join("index.html"), d.path().join("inside.html")).unwrap();
        for l in ["/s.txt", "/dir/secret.txt", "/dir/", "/inside.html"] {
            assert!(matches!(lookup(d.path(), l), Lookup::NotFound), "{l}");
        }
    }

    #[test]
    fn the_token_follows_the_file() {
        let d = site();
        let a = current_token(d.path(), "/index.html").unwrap();
        assert_eq!(current_token(d.path(), "/"), Some(a.clone()));
        std::fs::remove_file(d.path().join("index.html")).unwrap();
        std::fs::write(d.path().join("index.html"), "root, again").unwrap();
        assert_ne!(current_token(d.path(), "/index.html").unwrap(), a);
        assert_eq!(current_token(d.path(), "/missing.html"), None);
    }
}

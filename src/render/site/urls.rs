//! The site's URL contract: slugs, path segments, page file names, pagination
//! math and relative links. Nothing here touches the file system.
//!
//! ```text
//! index.html, assets/{style.css,app.js,view.js,search.js,syntax.css,img/<blake3>.<ext>}
//! search/index.js, search/t/<hash>.js, search/u/<k>.js     the search index
//!                                                          (see `render::search`)
//! <project>/index.html
//! <project>/c/<root-uuid>/index.html, page-N.html          the conversation: its active line
//!                                                         (root → active leaf), map, fork index
//! <project>/c/<root-uuid>/b/<first-uuid>/index.html, …    each branch of a conversation with
//!                                                         forks (the main branch: b/<root-uuid>/)
//! <project>/c/<root-uuid>/f/<fork-uuid>/index.html, …    every branch of a fork with more
//!                                                         than FORK_LISTED (`render::forks`)
//! <project>/c/<root-uuid>/f/<fork-uuid>/<hhh>/index.html  the short branches of a fork with
//!                                                         GROUP_FORK_MIN or more whose first
//!                                                         uuid hashes to hhh, each at #b-<uuid>
//! <project>/agents/<agent-id>/index.html, …               sub-agent transcripts
//! <project>/r/<session-id or h-<ms>>/index.html, …        a session whose transcript is gone:
//!                                                         its prompts from the prompt history
//! <track's directory>/search-N.js                         the docs of its page N
//!                                                          in the search index
//! ```
//!
//! A branch is named by its first message (the root, or the prompt a fork
//! started it with), which never changes: its URL does not depend on which
//! branch is active and survives every later render. A conversation without
//! forks is one line, read at the conversation's URL; once it forks, its main
//! branch gets `b/<root-uuid>/` and the conversation page shows the active
//! line from the same root, so the shared part keeps its pages and anchors.
//! Message anchors are `#m-<uuid>`; fork landmarks `#fork-<uuid>` (the uuid
//! of the fork point).
//!
//! Directories are written relative to the site root with a trailing `/`
//! (`proj/c/abc/`); links are always relative, and always name a file
//! (`index.html`), so the site works from `file://` and under any sub-path.
//!
//! Every link on a page is an [`Href`], and only this module makes one: a
//! relative link ([`href`], [`fragment`], [`Root`]) or an external URL that
//! may become a link ([`external`]: http(s) and mailto only).

use crate::limits::MAX_SEGMENT;
use std::collections::BTreeSet;
use std::fmt;

/// A link target on a page (written escaped, like any text). Only this
/// module makes one (see the module doc).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Href(String);

impl Href {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Display for Href {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// How a page reaches the site root: `../` once per directory of the page
/// (the `data-root` of every page), and the links it makes from there; and,
/// under `--base-url`, the page's own absolute URL (its canonical link).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Root {
    up: String,
    canonical: Option<Href>,
}

impl Root {
    /// The root as seen from a page in `dir` (relative to the site root).
    pub fn of(dir: &str) -> Root {
        Root { up: up(dir), canonical: None }
    }

    /// The same, for a page whose absolute URL is `url` (`<link rel="canonical">`).
    pub fn with_canonical(self, url: Option<Href>) -> Root {
        Root { canonical: url, ..self }
    }

    /// The page's absolute URL, under `--base-url`.
    pub fn canonical(&self) -> Option<&Href> {
        self.canonical.as_ref()
    }

    /// `index.html` at the site root: the archive index.
    pub fn home(&self) -> Href {
        Href(format!("{}index.html", self.up))
    }

    /// A file of `assets/` (`style.css`, `img/<blake3>.<ext>`…).
    pub fn asset(&self, name: &str) -> Href {
        Href(format!("{}assets/{name}", self.up))
    }
}

impl fmt::Display for Root {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.up)
    }
}

/// Where a site is published (`render --base-url`): an absolute http(s) URL
/// ending in `/`, under which every page is at its path in the site. Only
/// canonical links and the sitemap use it: every other link stays relative,
/// so the site still works from disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseUrl(String);

impl BaseUrl {
    /// Checks a URL given on the command line, as a browser reads it (the
    /// `url` crate, WHATWG): `http://` or `https://`, a host after the `//`
    /// (an internationalized one is written in punycode) with no empty
    /// label, no user or password, no query or fragment. The URL is kept
    /// as `url` writes it (characters a URL cannot carry percent-encoded),
    /// with a `/` added at the end when missing.
    pub fn parse(input: &str) -> Result<BaseUrl, String> {
        const EXAMPLE: &str = "e.g. https://example.org/chats/";
        let text = input.trim();
        let url = url::Url::parse(text).map_err(|e| format!("{input:?} is not a URL ({e}; {EXAMPLE})"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("{input:?} is not an http:// or https:// URL ({EXAMPLE})"));
        }
        // WHATWG reads `https:///x` as `https://x/`: the host must stand where it is written.
        let written = text.split_once("://").map(|(_, rest)| rest);
        if written.is_none_or(|rest| rest.starts_with(['/', '\\'])) {
            return Err(format!("{input:?} names no host after // ({EXAMPLE})"));
        }
        match url.host() {
            None => return Err(format!("{input:?} names no host ({EXAMPLE})")),
            Some(url::Host::Domain(d)) if d.trim_end_matches('.').split('.').any(str::is_empty) => {
                return Err(format!("{input:?}: the host {d:?} has an empty label (two dots in a row)"));
            }
            Some(_) => {}
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(format!("{input:?}: a base URL names no user or password"));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(format!("{input:?}: a base URL has no query or fragment"));
        }
        let mut base = String::from(url);
        if !base.ends_with('/') {
            base.push('/');
        }
        Ok(BaseUrl(base))
    }

    /// Whether the site is published at its host's root (`https://host/`),
    /// the only place crawlers read a `robots.txt` from.
    pub fn at_host_root(&self) -> bool {
        url::Url::parse(&self.0).is_ok_and(|u| u.path() == "/")
    }

    /// The URL of `path` at the root of the site's host (`/robots.txt`).
    pub fn host_root(&self, path: &str) -> Href {
        let root = url::Url::parse(&self.0).and_then(|u| u.join(&format!("/{path}")));
        Href(root.map_or_else(|_| format!("/{path}"), String::from))
    }

    /// The absolute URL of the file `rel` of the site.
    pub fn page(&self, rel: &str) -> Href {
        Href(format!("{}{rel}", self.0))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// How the pages of a render reach each other: as files of a site (relative
/// links), or as sections of one file (`cctree export`: every link a
/// fragment, so the file works alone, from anywhere).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Links {
    #[default]
    Site,
    OneFile,
}

impl Links {
    /// A link from a page in `from_dir` to `file` in `to_dir` (see [`href`]);
    /// in one file, the anchor `frag`, else the section of that page
    /// ([`section_id`]).
    pub fn href(self, from_dir: &str, to_dir: &str, file: &str, frag: Option<&str>) -> Href {
        match (self, frag) {
            (Links::Site, _) => href(from_dir, to_dir, file, frag),
            (Links::OneFile, Some(f)) => fragment(f),
            (Links::OneFile, None) => fragment(&section_id(to_dir, file)),
        }
    }
}

/// The id of the section that holds the page `file` of `dir` when the pages
/// are sections of one file ([`Links::OneFile`]).
pub fn section_id(dir: &str, file: &str) -> String {
    format!("s-{}", sanitize_segment(&format!("{dir}{file}")))
}

/// An image as a `data:` URL (`cctree export`: the file carries its images).
/// `media` is one of the accepted types ([`crate::render::site::images::extension`]).
pub fn data_url(media: &str, bytes: &[u8]) -> Href {
    use base64::Engine;
    Href(format!("data:{media};base64,{}", base64::engine::general_purpose::STANDARD.encode(bytes)))
}

/// A link to an anchor of the same page: `#<id>`.
pub fn fragment(id: &str) -> Href {
    Href(format!("#{id}"))
}

/// A link to page `page` (0-based) of the same track.
pub fn sibling_page(page: u32) -> Href {
    Href(page_file(page))
}

/// Whether a link target from a transcript may become an `href`: http(s)
/// and mailto URLs without whitespace or control characters (no
/// `javascript:`, no links to files that do not exist).
pub fn is_safe_url(url: &str) -> bool {
    let u = url.trim_start();
    let lower = u.get(..8).unwrap_or(u).to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("mailto:"))
        && !u.chars().any(|c| c.is_control() || c.is_whitespace())
}

/// A link to an external URL from a transcript, when it may be one ([`is_safe_url`]).
pub fn external(url: &str) -> Option<Href> {
    is_safe_url(url).then(|| Href(url.trim().to_string()))
}

/// A short, stable hash of a string (hex, 8 characters).
pub fn short_hash(s: &str) -> String {
    blake3::hash(s.as_bytes()).to_hex()[..8].to_string()
}

/// `s` as one safe path segment: only `[A-Za-z0-9._-]`, at most [`MAX_SEGMENT`]
/// bytes, no leading dot and no `..`. When anything had to change, a hash of
/// the original is appended so distinct inputs stay distinct.
pub fn sanitize_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev = ' ';
    for c in s.chars() {
        let keep = c.is_ascii_alphanumeric() || matches!(c, '_' | '-') || (c == '.' && prev != '.');
        let c = if keep { c } else { '_' };
        out.push(c);
        prev = c;
    }
    let mut changed = out != s;
    if out.starts_with('.') {
        out = out.replacen('.', "_", 1);
        changed = true;
    }
    let hash_len = 9;
    if out.len() > MAX_SEGMENT {
        out.truncate(MAX_SEGMENT - hash_len);
        changed = true;
    }
    if out.is_empty() {
        out.push('_');
        changed = true;
    }
    if changed {
        out.push('-');
        out.push_str(&short_hash(s));
    }
    out
}

/// Unique project slugs for the given directory names, in the same order.
/// Collisions (compared case-insensitively, for case-insensitive file systems)
/// get a hash suffix, then a counter.
pub fn project_slugs<S: AsRef<str>>(names: &[S]) -> Vec<String> {
    let mut taken: BTreeSet<String> =
        ["assets", "index.html", "search", "search-index.js"].into_iter().map(String::from).collect();
    names
        .iter()
        .map(|n| {
            let n = n.as_ref();
            let mut slug = sanitize_segment(n);
            if taken.contains(&slug.to_ascii_lowercase()) {
                slug = sanitize_segment(&format!("{}-{}", cut_to(&slug, 60), short_hash(n)));
            }
            let base = slug.clone();
            let mut i = 2;
            while taken.contains(&slug.to_ascii_lowercase()) {
                slug = format!("{base}-{i}");
                i += 1;
            }
            taken.insert(slug.to_ascii_lowercase());
            slug
        })
        .collect()
}

fn cut_to(s: &str, n: usize) -> &str {
    // Slugs are ASCII, so any byte index is a boundary.
    &s[..s.len().min(n)]
}

/// File name of a page (0-based): `index.html`, `page-2.html`, …
pub fn page_file(page: u32) -> String {
    if page == 0 { "index.html".into() } else { format!("page-{}.html", page + 1) }
}

/// The page (0-based) of the `index`-th counted turn (0-based) of a track.
pub fn page_of(index: u32, page_size: u32) -> u32 {
    index / page_size.max(1)
}

/// How many pages a track of `turns` counted turns takes (at least one).
pub fn page_count(turns: u32, page_size: u32) -> u32 {
    turns.div_ceil(page_size.max(1)).max(1)
}

/// `../` repeated once per segment of `dir` (relative to the site root).
pub fn up(dir: &str) -> String {
    "../".repeat(dir.matches('/').count())
}

/// A link from a page in `from_dir` to `file` in `to_dir` (both relative to the
/// site root, ending in `/` or empty), with an optional `#fragment`. Goes up
/// only as far as the directories' common prefix.
pub fn href(from_dir: &str, to_dir: &str, file: &str, frag: Option<&str>) -> Href {
    let from: Vec<&str> = from_dir.split_terminator('/').collect();
    let to: Vec<&str> = to_dir.split_terminator('/').collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut s = "../".repeat(from.len() - common);
    for seg in &to[common..] {
        s.push_str(seg);
        s.push('/');
    }
    s.push_str(file);
    if let Some(f) = frag {
        s.push('#');
        s.push_str(f);
    }
    Href(s)
}

/// The directory of a recovered session (`Project::kept`) in project
/// directory `project_dir`: `<project>/r/<key>/`.
pub fn recovered_dir(project_dir: &str, key: &str) -> String {
    format!("{project_dir}r/{}/", sanitize_segment(key))
}

/// The anchor of a recovered prompt: `p-<the time it was typed, ms>` (the
/// client's times are strictly increasing), with `-<its line in the
/// history>` when another prompt of the session has the same time.
pub fn recovered_anchor(ts: i64, line: Option<u32>) -> String {
    match line {
        None => format!("p-{ts}"),
        Some(l) => format!("p-{ts}-{l}"),
    }
}

/// The anchor id of a message: `m-<uuid>` (uuid sanitized like a segment).
pub fn anchor(uuid: &str) -> String {
    format!("m-{}", sanitize_segment(uuid))
}

/// The anchor id of the landmark where a line forks, after the message of
/// the fork point `uuid`: `fork-<uuid>`.
pub fn fork_anchor(uuid: &str) -> String {
    format!("fork-{}", sanitize_segment(uuid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_segments_are_kept() {
        assert_eq!(sanitize_segment("a1000000-0000-4000-8000-000000000001"), "a1000000-0000-4000-8000-000000000001");
        assert_eq!(sanitize_segment("-home-alice-notes"), "-home-alice-notes");
    }

    #[test]
    fn hostile_segments_are_neutralised() {
        for bad in ["..", ".", "../etc", "a/b", "a\0b", "", "x\\y", ".hidden", "é"] {
            let s = sanitize_segment(bad);
            assert!(!s.contains('/') && !s.contains('\\') && !s.contains('\0'), "{s}");
            assert!(!s.starts_with('.') && !s.contains(".."), "{s}");
            assert!(s.len() <= MAX_SEGMENT);
            assert!(s.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)));
        }
        assert_ne!(sanitize_segment("a/b"), sanitize_segment("a_b"));
        let long = "x".repeat(200);
        assert_eq!(sanitize_segment(&long).len(), MAX_SEGMENT);
    }

    #[test]
    fn project_slugs_are_unique() {
        let s = project_slugs(&["a/b", "a_b", "A_B", "assets", "x"]);
        let set: BTreeSet<String> = s.iter().map(|x| x.to_lowercase()).collect();
        assert_eq!(set.len(), 5);
        assert_eq!(s[1], "a_b");
        assert_ne!(s[3], "assets");
        assert_eq!(s[4], "x");
    }

    #[test]
    fn pagination_math() {
        assert_eq!(page_count(0, 50), 1);
        assert_eq!(page_count(50, 50), 1);
        assert_eq!(page_count(51, 50), 2);
        assert_eq!(page_of(0, 50), 0);
        assert_eq!(page_of(49, 50), 0);
        assert_eq!(page_of(50, 50), 1);
        assert_eq!(page_file(0), "index.html");
        assert_eq!(page_file(2), "page-3.html");
    }

    #[test]
    fn relative_links() {
        let h = |f, t, file, frag| href(f, t, file, frag).into_string();
        assert_eq!(h("p/c/x/", "p/c/x/", "page-2.html", Some("m-a")), "page-2.html#m-a");
        assert_eq!(h("p/c/x/b/y/", "p/c/x/", "index.html", None), "../../index.html");
        assert_eq!(h("p/c/x/", "p/c/x/b/y/", "index.html", None), "b/y/index.html");
        assert_eq!(h("p/c/x/", "q/", "index.html", None), "../../../q/index.html");
        assert_eq!(h("", "p/", "index.html", None), "p/index.html");
        assert_eq!(up("p/c/x/"), "../../../");
        assert_eq!(Root::of("p/c/x/").asset("img/a.png").as_str(), "../../../assets/img/a.png");
        assert_eq!(Root::of("").home().as_str(), "index.html");
    }

    #[test]
    fn base_urls_are_checked() {
        let ok = |u: &str| BaseUrl::parse(u).map(|b| b.as_str().to_string());
        assert_eq!(ok("https://example.org").as_deref(), Ok("https://example.org/"));
        assert_eq!(ok("HTTP://a.example:8080/x/y/").as_deref(), Ok("http://a.example:8080/x/y/"));
        assert_eq!(ok("https://a.example/caf%C3%A9/").as_deref(), Ok("https://a.example/caf%C3%A9/"));
        // What a URL cannot carry is percent-encoded, as a browser does.
        assert_eq!(ok("https://a.example/a b/é").as_deref(), Ok("https://a.example/a%20b/%C3%A9/"));
        assert_eq!(ok("https://a.example/\"><x>").as_deref(), Ok("https://a.example/%22%3E%3Cx%3E/"));
        // Internationalized hosts, in punycode; a host's root and a sub-path.
        assert_eq!(ok("https://münchen.de/").as_deref(), Ok("https://xn--mnchen-3ya.de/"));
        assert_eq!(ok("https://example.org./").as_deref(), Ok("https://example.org./"));
        assert!(BaseUrl::parse("https://a.example").unwrap().at_host_root());
        let sub = BaseUrl::parse("https://me.github.io/chats/").unwrap();
        assert!(!sub.at_host_root());
        assert_eq!(sub.host_root("robots.txt").as_str(), "https://me.github.io/robots.txt");
        for bad in [
            "ftp://a.example/",
            "javascript:alert(1)",
            "//a.example/",
            "https://",
            "https:///x",
            "https://a.example/x?y=1",
            "https://a.example/x?",
            "https://a.example/#top",
            "https://user:pw@a.example/",
            "https://user@a.example/",
            "https://%zz/",
            "https://x:abc/",
            "https://exa..mple/",
            "https://.example/",
            "example.org",
        ] {
            assert!(BaseUrl::parse(bad).is_err(), "{bad}: {:?}", ok(bad));
        }
        let b = BaseUrl::parse("https://a.example/chats").unwrap();
        assert_eq!(b.page("p/c/x/index.html").as_str(), "https://a.example/chats/p/c/x/index.html");
        assert_eq!(
            Root::of("p/").with_canonical(Some(b.page("p/index.html"))).canonical(),
            Some(&b.page("p/index.html"))
        );
    }

    #[test]
    fn one_file_links_are_fragments() {
        let one = |to, file, frag| Links::OneFile.href("p/c/x/", to, file, frag).into_string();
        assert_eq!(one("p/c/x/b/y/", "page-2.html", Some("m-a")), "#m-a");
        let section = one("p/c/x/b/y/", "index.html", None);
        assert_eq!(section, format!("#{}", section_id("p/c/x/b/y/", "index.html")));
        assert_ne!(section_id("p/c/x/b/y/", "index.html"), section_id("p/c/x/b/y/", "page-2.html"));
        assert_eq!(Links::Site.href("p/c/x/", "p/c/x/b/y/", "index.html", None).as_str(), "b/y/index.html");
        assert_eq!(data_url("image/png", b"\x89PNG").as_str(), "data:image/png;base64,iVBORw==");
    }

    #[test]
    fn only_safe_urls_become_links() {
        assert_eq!(external("  https://a.example/x").map(Href::into_string).as_deref(), Some("https://a.example/x"));
        assert_eq!(external("mailto:a@b.c").map(Href::into_string).as_deref(), Some("mailto:a@b.c"));
        for bad in ["javascript:alert(1)", "data:text/html,x", "file:///etc/passwd", "https://a b", "src/main.rs"] {
            assert!(external(bad).is_none(), "{bad}");
        }
    }
}

//! Helpers both test binaries use (`integration` and `conformance` include
//! this module with `#[path = "../common/mod.rs"]`): what a rendered site's
//! pages are, and what a reader sees of one.

use std::path::{Path, PathBuf};

/// The HTML pages of a rendered site, `(path, text)`, in file-name order.
pub fn html_pages(site: &Path) -> Vec<(PathBuf, String)> {
    walkdir::WalkDir::new(site)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "html"))
        .map(|e| (e.path().to_path_buf(), std::fs::read_to_string(e.path()).unwrap()))
        .collect()
}

/// What a page holds as collapsed raw JSON (`<details class="raw">`).
const RAW: &str = "<details class=\"raw\">";
const RAW_END: &str = "</details>";

/// Bytes of collapsed raw JSON on a page.
pub fn hidden_metadata(html: &str) -> usize {
    let mut n = 0;
    let mut rest = html;
    while let Some(i) = rest.find(RAW) {
        let end = rest[i..].find(RAW_END).map_or(rest.len(), |j| i + j + RAW_END.len());
        n += end - i;
        rest = &rest[end..];
    }
    n
}

/// A page without its collapsed raw JSON.
pub fn without_raw(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(i) = rest.find(RAW) {
        out.push_str(&rest[..i]);
        rest = rest[i..].find(RAW_END).map_or("", |j| &rest[i + j + RAW_END.len()..]);
    }
    out + rest
}

/// The text of a page outside collapsed raw JSON: each tag replaced by a
/// space, entities left as they are.
pub fn tags_removed(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in without_raw(html).chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    text
}

/// The text a reader sees of every page of a site (collapsed raw JSON
/// included), tags dropped, entities decoded, whitespace collapsed.
pub fn site_text(site: &Path) -> String {
    let mut all = String::new();
    for (_, page) in html_pages(site) {
        all.push_str(&visible(&page));
        all.push('\n');
    }
    all
}

/// The text of a page (collapsed raw JSON included): each tag replaced by a
/// space, entities decoded, whitespace collapsed.
pub fn visible(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => {
                in_tag = true;
                out.push(' ');
            }
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    let out = out
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    collapse(&out)
}

/// `s` with each run of whitespace made one space.
pub fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

//! Building blocks for message bodies: the per-page rendering context, JSON
//! access helpers, output boxes with folding and caps, generic JSON views,
//! images, and the tag parsing of special user payloads (§4.2).

use rustc_hash::FxHashSet;
use serde_json::Value;

use crate::graph::NodeId;

use super::ansi;
use super::context::{LineId, ProjectCtx};
use super::highlight::Budget;
use super::html::{cut, esc, human_size, push_esc};
use super::markdown;
use super::urls::{anchor, up};
use crate::limits::{MARKDOWN_CAP, META_CAP, META_VIEW_MIN, OUTPUT_CAP, OUTPUT_FOLD, PAGE_TEXT, SMALL_CAP};

/// Per-page rendering state.
pub struct PageCtx<'a> {
    pub p: &'a ProjectCtx<'a>,
    /// The page's directory, relative to the site root.
    pub dir: &'a str,
    /// The line whose messages the page shows (`None` for context previews).
    pub line: Option<LineId>,
    pub budget: Budget,
    /// Emit `id="m-…"` anchors (off for copies shown out of place).
    pub anchors: bool,
    /// Nodes whose anchor is already on the page.
    pub emitted: FxHashSet<NodeId>,
    /// What is left of [`PAGE_TEXT`].
    pub text_left: usize,
    /// The page's number on its line (0: `index.html`), for warnings.
    pub page: u32,
    /// What is left of [`META_CAP`].
    pub meta_left: usize,
}

impl<'a> PageCtx<'a> {
    pub fn new(p: &'a ProjectCtx<'a>, dir: &'a str, line: Option<LineId>) -> PageCtx<'a> {
        PageCtx {
            p,
            dir,
            line,
            budget: Budget::default(),
            anchors: line.is_some(),
            emitted: FxHashSet::default(),
            text_left: PAGE_TEXT,
            page: 0,
            meta_left: META_CAP,
        }
    }

    /// Records a problem met rendering this page.
    pub fn warn(&self, what: std::fmt::Arguments<'_>) {
        self.p.warn(&format!("{}{}", self.dir, super::urls::page_file(self.page)), what);
    }

    /// The cap for the next block of text on this page.
    pub fn cap(&self) -> usize {
        OUTPUT_CAP.min(self.text_left.max(SMALL_CAP))
    }

    fn spend(&mut self, n: usize) {
        self.text_left = self.text_left.saturating_sub(n);
    }

    /// [`output`] within the page's text allowance.
    pub fn output(&mut self, text: &str, label: &str, class: &str) -> String {
        let cap = self.cap();
        self.spend(text.len().min(cap));
        output_capped(text, label, class, cap)
    }

    /// Pretty JSON, escaped, in a `<pre>` (cut and folded like outputs).
    pub fn json_pre(&mut self, v: &Value) -> String {
        let s = serde_json::to_string_pretty(v).unwrap_or_default();
        self.output(&s, "JSON", "json")
    }

    /// A collapsed generic view of any JSON value, within the page's
    /// [`META_CAP`] of hidden metadata (past it, a note with the size).
    pub fn json_details(&mut self, summary: &str, v: &Value) -> String {
        let s = serde_json::to_string_pretty(v).unwrap_or_default();
        // Escaping can double the text: cut it to half of what is left.
        let cap = self.cap().min(self.meta_left.saturating_sub(512) / 2);
        if cap >= META_VIEW_MIN {
            let html = format!(
                "<details class=\"raw\"><summary>{}</summary>{}</details>",
                esc(summary),
                output_capped(&s, "JSON", "json", cap)
            );
            if html.len() <= self.meta_left {
                self.meta_left -= html.len();
                self.spend(s.len().min(cap));
                return html;
            }
        }
        placeholder(&format!(
            "{summary}: {} of JSON not shown (this page's metadata allowance is spent)",
            human_size(s.len())
        ))
    }

    /// `../…/` from this page to the site root.
    pub fn root(&self) -> String {
        up(self.dir)
    }

    /// The anchor id for `node` if it belongs on this page and is not out yet.
    pub fn take_anchor(&mut self, node: NodeId) -> Option<String> {
        if !self.anchors {
            return None;
        }
        let mine = self.p.loc[node.ix()].is_some_and(|l| Some(l.line) == self.line);
        if !mine || !self.emitted.insert(node) {
            return None;
        }
        Some(anchor(self.p.graph().uuid(self.p.entries(), node)))
    }

    /// ` id="…"` for `node`, or nothing.
    pub fn id_attr(&mut self, node: NodeId) -> String {
        self.take_anchor(node).map(|a| format!(" id=\"{a}\"")).unwrap_or_default()
    }

    /// Markdown, within the page's text allowance.
    pub fn markdown(&mut self, text: &str) -> String {
        let cap = MARKDOWN_CAP.min(self.text_left.max(4 * SMALL_CAP));
        self.spend(text.len().min(cap));
        let mut s = String::from("<div class=\"md\">");
        s.push_str(&markdown::to_html_capped(text, &mut self.budget, cap));
        s.push_str("</div>");
        s
    }

    /// An `<img>` for a base64 image block's `source`, or a placeholder.
    pub fn image(&mut self, source: Option<&Value>) -> String {
        let kind = str_at(source, &["type"]).unwrap_or("");
        let media = str_at(source, &["media_type"]).unwrap_or("");
        let data = str_at(source, &["data"]);
        match (kind, data) {
            ("base64", Some(data)) => match self.p.images.store(media, data) {
                Ok(Ok(name)) => {
                    let src = format!("{}assets/img/{name}", self.root());
                    format!(
                        "<a class=\"shot\" href=\"{src}\"><img src=\"{src}\" alt=\"image ({})\" loading=\"lazy\"></a>",
                        esc(media)
                    )
                }
                Ok(Err(why)) => {
                    if why != super::images::Rejected::Empty {
                        self.warn(format_args!("image not written: {why}"));
                    }
                    placeholder(&format!("image not shown: {why}"))
                }
                Err(err) => {
                    self.warn(format_args!("{err:#}"));
                    placeholder("image could not be written")
                }
            },
            _ => {
                let url = str_at(source, &["url"]).unwrap_or("");
                if markdown::is_safe_url(url) {
                    format!("{}remote image</a>", markdown::link_open(url))
                } else {
                    placeholder("image")
                }
            }
        }
    }
}

/// A string at a JSON path.
pub fn str_at<'v>(v: Option<&'v Value>, path: &[&str]) -> Option<&'v str> {
    at(v, path)?.as_str()
}

/// The value at a JSON path.
pub fn at<'v>(v: Option<&'v Value>, path: &[&str]) -> Option<&'v Value> {
    let mut cur = v?;
    for k in path {
        cur = cur.get(k)?;
    }
    Some(cur)
}

/// Text of a `content` value: a string, or the `text` of its blocks.
pub fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
        }
        _ => String::new(),
    }
}

/// `<span class="placeholder">[…]</span>`.
pub fn placeholder(what: &str) -> String {
    format!("<span class=\"placeholder\">[{}]</span>", esc(what))
}

/// A `<pre>` of tool or command output: ANSI colours converted, cut at
/// [`OUTPUT_CAP`], folded when over [`OUTPUT_FOLD`].
pub fn output(text: &str, label: &str, class: &str) -> String {
    output_capped(text, label, class, OUTPUT_CAP)
}

/// [`output`] cut at `cap` bytes.
pub fn output_capped(text: &str, label: &str, class: &str, cap: usize) -> String {
    let shown = cut(text, cap);
    let mut inner = format!("<pre class=\"out {class}\">");
    if ansi::has_escapes(shown) {
        inner.push_str(&ansi::to_html(shown));
    } else {
        push_esc(&mut inner, shown);
    }
    inner.push_str("</pre>");
    if shown.len() < text.len() {
        inner.push_str(&format!(
            "<p class=\"note\">Cut: showing the first {} of {}.</p>",
            human_size(shown.len()),
            human_size(text.len())
        ));
    }
    fold(inner, label, text.len())
}

/// Wraps large content in a closed `<details>` that names its size.
pub fn fold(inner: String, label: &str, size: usize) -> String {
    if size <= OUTPUT_FOLD {
        return inner;
    }
    format!("<details class=\"big\"><summary>{} ({})</summary>{inner}</details>", esc(label), human_size(size))
}

/// The text between `<tag>` and `</tag>` (the first occurrence).
pub fn tag_text<'s>(s: &'s str, tag: &str) -> Option<&'s str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = s.find(&open)? + open.len();
    let end = s[start..].find(&close).map_or(s.len(), |e| start + e);
    Some(&s[start..end])
}

/// `s` without `<tag>`/`</tag>` wrappers of the given names.
pub fn strip_tags(s: &str, tags: &[&str]) -> String {
    let mut out = s.to_string();
    for t in tags {
        out = out.replace(&format!("<{t}>"), "").replace(&format!("</{t}>"), "");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_parsed() {
        let s = "<command-name>/cost</command-name>\n<command-args>a b</command-args>";
        assert_eq!(tag_text(s, "command-name"), Some("/cost"));
        assert_eq!(tag_text(s, "command-args"), Some("a b"));
        assert_eq!(tag_text(s, "nope"), None);
        assert_eq!(strip_tags("<x>a</x>", &["x"]), "a");
    }

    #[test]
    fn big_outputs_fold_and_cut() {
        let small = output("a\u{1b}[31mb", "Output", "");
        assert!(small.contains("ansi-fg1") && !small.contains("<details"));
        let big = output(&"x".repeat(OUTPUT_CAP + 10), "Output", "");
        assert!(big.contains("<details class=\"big\">") && big.contains("Cut:"));
    }
}

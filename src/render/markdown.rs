//! The one place where Markdown becomes HTML (pulldown-cmark with tables,
//! strikethrough and task lists), rewritten for untrusted input:
//!
//! * raw HTML blocks and inline HTML are shown as escaped text;
//! * only `http(s)://` and `mailto:` links become `<a>`; other links keep
//!   their text only (no `javascript:`, no links to files that do not exist);
//! * images are never loaded from elsewhere: a safe image URL becomes a link;
//! * fenced code is highlighted by [`super::highlight`];
//! * control characters are shown as Control Pictures, as everywhere;
//! * table alignment uses classes, not `style=""` (the CSP forbids inline styles).

use pulldown_cmark::{Alignment, CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd};

use super::highlight::{Budget, code_block};
use std::borrow::Cow;

use super::html::{controls_shown, cut, esc};
use crate::limits::MARKDOWN_CAP;

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// Whether a link target may become an `href`.
pub fn is_safe_url(url: &str) -> bool {
    let u = url.trim_start();
    let lower = u.get(..8).unwrap_or(u).to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("mailto:"))
        && !u.chars().any(|c| c.is_control() || c.is_whitespace())
}

/// An `<a>` start tag for a safe external URL.
pub fn link_open(url: &str) -> String {
    format!("<a href=\"{}\" rel=\"nofollow noopener noreferrer\">", esc(url.trim()))
}

/// Markdown → HTML (see the module doc for what is rewritten).
pub fn to_html(text: &str, budget: &mut Budget) -> String {
    to_html_capped(text, budget, MARKDOWN_CAP)
}

/// [`to_html`] of at most `cap` bytes of `text`.
pub fn to_html_capped(text: &str, budget: &mut Budget, cap: usize) -> String {
    let body = cut(text, cap);
    let mut events: Vec<Event<'_>> = Vec::new();
    let mut code: Option<(Option<String>, String)> = None;
    let mut links: Vec<bool> = Vec::new();
    let mut aligns: Vec<Alignment> = Vec::new();
    let (mut in_head, mut col) = (false, 0usize);
    for ev in Parser::new_ext(body, options()) {
        if let Some((_, buf)) = code.as_mut() {
            match ev {
                Event::Text(t) => buf.push_str(&t),
                Event::End(TagEnd::CodeBlock) => {
                    let (lang, buf) = code.take().unwrap_or_default();
                    events.push(html(code_block(&buf, lang.as_deref(), budget)));
                }
                _ => {}
            }
            continue;
        }
        match ev {
            Event::Html(t) | Event::InlineHtml(t) | Event::Text(t) => events.push(Event::Text(shown(t))),
            Event::Code(t) => events.push(Event::Code(shown(t))),
            Event::Start(Tag::HtmlBlock) => events.push(html("<pre class=\"rawhtml\">".into())),
            Event::End(TagEnd::HtmlBlock) => events.push(html("</pre>".into())),
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info
                        .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
                        .next()
                        .filter(|l| !l.is_empty())
                        .map(str::to_string),
                    CodeBlockKind::Indented => None,
                };
                code = Some((lang, String::new()));
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                let safe = is_safe_url(&dest_url);
                if safe {
                    events.push(html(link_open(&dest_url)));
                }
                links.push(safe);
            }
            Event::End(TagEnd::Link | TagEnd::Image) => {
                if links.pop() == Some(true) {
                    events.push(html("</a>".into()));
                }
            }
            Event::Start(Tag::Table(a)) => {
                aligns = a;
                events.push(html("<div class=\"table-wrap\"><table>".into()));
            }
            Event::End(TagEnd::Table) => {
                events.push(html("</tbody></table></div>".into()));
            }
            Event::Start(Tag::TableHead) => {
                in_head = true;
                col = 0;
                events.push(html("<thead><tr>".into()));
            }
            Event::End(TagEnd::TableHead) => {
                in_head = false;
                events.push(html("</tr></thead><tbody>".into()));
            }
            Event::Start(Tag::TableRow) => {
                col = 0;
                events.push(html("<tr>".into()));
            }
            Event::End(TagEnd::TableRow) => events.push(html("</tr>".into())),
            Event::Start(Tag::TableCell) => {
                let class = match aligns.get(col) {
                    Some(Alignment::Left) => " class=\"al-l\"",
                    Some(Alignment::Center) => " class=\"al-c\"",
                    Some(Alignment::Right) => " class=\"al-r\"",
                    _ => "",
                };
                let tag = if in_head { "th" } else { "td" };
                events.push(html(format!("<{tag}{class}>")));
            }
            Event::End(TagEnd::TableCell) => {
                events.push(html(if in_head { "</th>" } else { "</td>" }.into()));
                col += 1;
            }
            other => events.push(other),
        }
    }
    if let Some((lang, buf)) = code.take() {
        events.push(html(code_block(&buf, lang.as_deref(), budget)));
    }
    let mut out = String::with_capacity(body.len() * 3 / 2 + 16);
    pulldown_cmark::html::push_html(&mut out, events.into_iter());
    if body.len() < text.len() {
        out.push_str(&format!("<p class=\"note\">… {} more bytes not shown.</p>", text.len() - body.len()));
    }
    out
}

/// Text with its control characters shown ([`controls_shown`]): pulldown-cmark
/// escapes markup but writes control characters as they are.
fn shown(t: CowStr<'_>) -> CowStr<'_> {
    match controls_shown(&t) {
        Cow::Borrowed(_) => t,
        Cow::Owned(s) => CowStr::from(s),
    }
}

fn html<'a>(s: String) -> Event<'a> {
    Event::Html(CowStr::from(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(s: &str) -> String {
        to_html(s, &mut Budget::default())
    }

    #[test]
    fn raw_html_is_escaped() {
        let h = md("hi <script>alert(1)</script>\n\n<div onclick=\"x\">block</div>\n");
        assert!(!h.contains("<script"), "{h}");
        assert!(!h.contains("<div"), "{h}");
        assert!(h.contains("&lt;script&gt;"), "{h}");
        let h = md("<img src=x onerror=alert(1)>");
        assert!(!h.contains("<img"), "{h}");
    }

    #[test]
    fn only_safe_links_become_links() {
        let h = md("[x](javascript:alert(1)) [y](https://example.com/?a=1&b=\"2\") [z](src/main.rs) <mailto:a@b.c>");
        assert!(!h.contains("javascript:alert(1)\""), "{h}");
        assert!(!h.contains("href=\"javascript"), "{h}");
        assert!(h.contains("href=\"https://example.com/?a=1&amp;b="), "{h}");
        assert!(!h.contains("href=\"src/main.rs\""), "{h}");
        assert!(h.contains("href=\"mailto:a@b.c\""), "{h}");
        assert_eq!(h.matches("<a ").count(), h.matches("</a>").count());
    }

    #[test]
    fn images_are_not_loaded() {
        let h = md("![alt text](https://evil.example/x.png) ![a](data:image/png;base64,AAAA)");
        assert!(!h.contains("<img"), "{h}");
        assert!(h.contains("alt text"), "{h}");
    }

    #[test]
    fn tables_use_classes_and_code_is_highlighted() {
        let h = md("| a | b |\n|---|--:|\n| 1 | 2 |\n\n```rust\nfn x() {}\n```\n");
        assert!(h.contains("<td class=\"al-r\">2</td>"), "{h}");
        assert!(!h.contains("style="), "{h}");
        assert!(h.contains("hl-"), "{h}");
        let h = md("- [x] done\n- [ ] todo\n\n~~gone~~");
        assert!(h.contains("checkbox") && h.contains("<del>"), "{h}");
    }
}

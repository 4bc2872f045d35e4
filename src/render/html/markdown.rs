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

use std::borrow::Cow;
use std::fmt::Write;

use pulldown_cmark::{Alignment, CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd};

use super::highlight::{Budget, code_block};
use super::{Html, controls_shown, esc, push_text};
use crate::limits::MARKDOWN_CAP;
use crate::render::plain::cut;
use crate::render::site::urls::is_safe_url;

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// An `<a>` start tag for a safe external URL (as `templates/blocks/link.html` writes it).
fn link_open(url: &str) -> String {
    format!("<a href=\"{}\" rel=\"nofollow noopener noreferrer\">", esc(url.trim()))
}

/// Markdown → HTML (see the module doc for what is rewritten).
pub fn to_html(text: &str, budget: &mut Budget) -> Html {
    to_html_capped(text, budget, MARKDOWN_CAP)
}

/// [`to_html`] of at most `cap` bytes of `text`.
pub fn to_html_capped(text: &str, budget: &mut Budget, cap: usize) -> Html {
    let body = cut(text, cap);
    let mut rw = Rewriter {
        budget,
        events: Vec::new(),
        code: None,
        links: Vec::new(),
        aligns: Vec::new(),
        in_head: false,
        col: 0,
    };
    for ev in Parser::new_ext(body, options()) {
        rw.push(ev);
    }
    rw.end_code();
    let mut out = String::with_capacity(body.len() * 3 / 2 + 16);
    pulldown_cmark::html::push_html(&mut out, rw.events.into_iter());
    if body.len() < text.len() {
        let _ = write!(out, "<p class=\"note\">… {} more bytes not shown.</p>", text.len() - body.len());
    }
    Html::trusted(out)
}

/// The first `chars` characters of a Markdown text as one line of inline
/// HTML, for words quoted inside a sentence (a compare page's intro quotes
/// the fork's message): code spans stay `<code>`, emphasis, strong and
/// strikethrough stay; blocks (a heading, a paragraph, a list's items, a
/// quote, a table's cells) are run together, a ` · ` between two where the
/// first does not end in punctuation, a code block as code; links and
/// images read as their text, raw HTML as text. Whitespace is collapsed and
/// the line cut as [`crate::render::plain::excerpt`] cuts it (a `…` when
/// cut), every element it opened closed.
pub fn inline_excerpt(text: &str, chars: usize) -> Html {
    let mut line = InlineLine::default();
    let body = cut(text, MARKDOWN_CAP.min(chars.saturating_mul(16).max(4096)));
    for ev in Parser::new_ext(body, options()) {
        match ev {
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) | Event::FootnoteReference(t) => line.words(&t),
            Event::Code(t) => {
                line.open("code");
                line.words(&t);
                line.close("code");
            }
            Event::Start(Tag::Emphasis) => line.open("em"),
            Event::Start(Tag::Strong) => line.open("strong"),
            Event::Start(Tag::Strikethrough) => line.open("del"),
            Event::Start(Tag::CodeBlock(_)) => {
                line.gap(Gap::Block);
                line.open("code");
            }
            Event::End(TagEnd::Emphasis) => line.close("em"),
            Event::End(TagEnd::Strong) => line.close("strong"),
            Event::End(TagEnd::Strikethrough) => line.close("del"),
            Event::End(TagEnd::CodeBlock) => {
                line.close("code");
                line.gap(Gap::Block);
            }
            Event::Start(Tag::Link { .. } | Tag::Image { .. }) | Event::End(TagEnd::Link | TagEnd::Image) => {}
            Event::SoftBreak | Event::HardBreak => line.gap(Gap::Space),
            _ => line.gap(Gap::Block),
        }
    }
    line.html(chars)
}

/// What stands between two words of an [`inline_excerpt`].
#[derive(Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Gap {
    #[default]
    None,
    Space,
    /// Between two blocks.
    Block,
}

enum Tok {
    Open(&'static str),
    Close(&'static str),
    Text(String),
}

/// An [`inline_excerpt`] being read: its elements and words, whitespace
/// collapsed (a gap goes before the element that opens after it, not
/// inside), and its text alone ([`Self::plain`], what is cut).
#[derive(Default)]
struct InlineLine {
    toks: Vec<Tok>,
    plain: String,
    gap: Gap,
}

impl InlineLine {
    fn gap(&mut self, g: Gap) {
        self.gap = self.gap.max(g);
    }

    /// Writes the gap before the next word, if a word came before it.
    fn flush(&mut self) {
        let gap = std::mem::take(&mut self.gap);
        if self.plain.is_empty() || gap == Gap::None {
            return;
        }
        let ends_sentence = self.plain.ends_with(['.', ':', ';', '!', '?', ',', '…']);
        let sep = if gap == Gap::Block && !ends_sentence { " · " } else { " " };
        self.plain.push_str(sep);
        match self.toks.last_mut() {
            Some(Tok::Text(t)) => t.push_str(sep),
            _ => self.toks.push(Tok::Text(sep.to_string())),
        }
    }

    fn words(&mut self, t: &str) {
        for c in t.chars() {
            if c.is_whitespace() {
                self.gap(Gap::Space);
                continue;
            }
            self.flush();
            self.plain.push(c);
            match self.toks.last_mut() {
                Some(Tok::Text(t)) => t.push(c),
                _ => self.toks.push(Tok::Text(c.to_string())),
            }
        }
    }

    fn open(&mut self, tag: &'static str) {
        self.flush();
        self.toks.push(Tok::Open(tag));
    }

    fn close(&mut self, tag: &'static str) {
        // A code span's or block's trailing whitespace goes after it, as a gap.
        self.toks.push(Tok::Close(tag));
    }

    /// As many characters as the excerpt of the text keeps, every element
    /// opened closed.
    fn html(self, chars: usize) -> Html {
        let kept = crate::render::plain::excerpt(&self.plain, chars);
        let is_cut = kept != self.plain;
        let mut left = kept.chars().count() - usize::from(is_cut);
        let mut out = String::new();
        let mut stack: Vec<&'static str> = Vec::new();
        for tok in &self.toks {
            match tok {
                Tok::Open(name) if left > 0 => {
                    let _ = write!(out, "<{name}>");
                    stack.push(name);
                }
                Tok::Close(name) if stack.last() == Some(name) => {
                    let _ = write!(out, "</{name}>");
                    stack.pop();
                }
                Tok::Text(t) if left > 0 => {
                    let n = t.chars().count().min(left);
                    let end = t.char_indices().nth(n).map_or(t.len(), |(i, _)| i);
                    push_text(&mut out, &t[..end]);
                    left -= n;
                }
                _ => {}
            }
        }
        while let Some(name) = stack.pop() {
            let _ = write!(out, "</{name}>");
        }
        if is_cut {
            out.push('…');
        }
        Html::trusted(out)
    }
}

/// The events of one text, rewritten as they come (see the module doc).
struct Rewriter<'t, 'b> {
    budget: &'b mut Budget,
    events: Vec<Event<'t>>,
    /// Inside a code block: its language and text so far.
    code: Option<(Option<String>, String)>,
    /// Open links and images: whether each became an `<a>`.
    links: Vec<bool>,
    /// The current table's column alignments, whether in its head, the column.
    aligns: Vec<Alignment>,
    in_head: bool,
    col: usize,
}

impl<'t> Rewriter<'t, '_> {
    fn push(&mut self, ev: Event<'t>) {
        if let Some((_, buf)) = self.code.as_mut() {
            match ev {
                Event::Text(t) => buf.push_str(&t),
                Event::End(TagEnd::CodeBlock) => self.end_code(),
                _ => {}
            }
            return;
        }
        match ev {
            Event::Html(t) | Event::InlineHtml(t) | Event::Text(t) => self.events.push(Event::Text(shown(t))),
            Event::Code(t) => self.events.push(Event::Code(shown(t))),
            // A task list's box is its state as text, not a form control
            // without a label (axe's `label`; a page of long plans held dozens).
            Event::TaskListMarker(done) => self.events.push(html(
                if done {
                    "<span class=\"task done\" role=\"img\" aria-label=\"done\">☑</span> "
                } else {
                    "<span class=\"task\" role=\"img\" aria-label=\"to do\">☐</span> "
                }
                .into(),
            )),
            Event::Start(Tag::HtmlBlock) => self.events.push(html("<pre class=\"rawhtml\">".into())),
            Event::End(TagEnd::HtmlBlock) => self.events.push(html("</pre>".into())),
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info
                        .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
                        .next()
                        .filter(|l| !l.is_empty())
                        .map(str::to_string),
                    CodeBlockKind::Indented => None,
                };
                self.code = Some((lang, String::new()));
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                let safe = is_safe_url(&dest_url);
                if safe {
                    self.events.push(html(link_open(&dest_url)));
                }
                self.links.push(safe);
            }
            Event::End(TagEnd::Link | TagEnd::Image) => {
                if self.links.pop() == Some(true) {
                    self.events.push(html("</a>".into()));
                }
            }
            Event::Start(Tag::Table(_) | Tag::TableHead | Tag::TableRow | Tag::TableCell)
            | Event::End(TagEnd::Table | TagEnd::TableHead | TagEnd::TableRow | TagEnd::TableCell) => self.table(ev),
            other => self.events.push(other),
        }
    }

    /// Tables, with alignment as classes.
    fn table(&mut self, ev: Event<'t>) {
        let tag = match ev {
            Event::Start(Tag::Table(a)) => {
                self.aligns = a;
                "<div class=\"table-wrap\"><table>".to_string()
            }
            Event::End(TagEnd::Table) => "</tbody></table></div>".to_string(),
            Event::Start(Tag::TableHead) => {
                (self.in_head, self.col) = (true, 0);
                "<thead><tr>".to_string()
            }
            Event::End(TagEnd::TableHead) => {
                self.in_head = false;
                "</tr></thead><tbody>".to_string()
            }
            Event::Start(Tag::TableRow) => {
                self.col = 0;
                "<tr>".to_string()
            }
            Event::End(TagEnd::TableRow) => "</tr>".to_string(),
            Event::Start(Tag::TableCell) => {
                let class = match self.aligns.get(self.col) {
                    Some(Alignment::Left) => " class=\"al-l\"",
                    Some(Alignment::Center) => " class=\"al-c\"",
                    Some(Alignment::Right) => " class=\"al-r\"",
                    _ => "",
                };
                format!("<{}{class}>", if self.in_head { "th" } else { "td" })
            }
            Event::End(TagEnd::TableCell) => {
                self.col += 1;
                if self.in_head { "</th>" } else { "</td>" }.to_string()
            }
            _ => return,
        };
        self.events.push(html(tag));
    }

    /// Ends the open code block, if any: highlighted ([`code_block`]).
    fn end_code(&mut self) {
        if let Some((lang, buf)) = self.code.take() {
            self.events.push(html(code_block(&buf, lang.as_deref(), self.budget).into_string()));
        }
    }
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
        to_html(s, &mut Budget::default()).into_string()
    }

    #[test]
    fn inline_excerpts_keep_code_as_code_and_no_block() {
        let h = |s: &str, n| inline_excerpt(s, n).into_string();
        assert_eq!(
            h("Rename `Client::fetch_forecast` to **fetch** *now*.\n\nThen test.", 300),
            "Rename <code>Client::fetch_forecast</code> to <strong>fetch</strong> <em>now</em>. Then test."
        );
        // Blocks read as their words, a code block as code, HTML as text.
        assert_eq!(
            h("# Title\n\n- one\n- two <b onclick=x>\n\n> quoted\n\n```sh\n! ls\n```\nafter", 300),
            "Title · one · two &lt;b onclick=x> · quoted · <code>! ls</code> · after"
        );
        assert_eq!(h("[x](javascript:alert(1)) ![y](https://e.example/x.png) a\u{1b}b", 300), "x y a\u{241b}b");
        // Cut inside a code span: the span is closed, then the ellipsis.
        assert_eq!(h("see `abcdefghijklmnopqrstuvwxyz` now", 25), "see <code>abcdefghijklmnopqrstu</code>…");
        assert_eq!(h("", 10), "");
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
        assert!(h.contains("<h-"), "{h}");
        let h = md("- [x] done\n- [ ] todo\n\n~~gone~~");
        assert!(h.contains("<del>"), "{h}");
        // Task boxes are text saying their state, never unlabelled inputs.
        assert!(!h.contains("<input") && h.contains("☑") && h.contains("aria-label=\"to do\""), "{h}");
    }
}

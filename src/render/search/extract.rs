//! The text of a message, as the search index reads it: taken from the same
//! typed views its page is written from ([`MessageView`], [`Block`],
//! [`ToolView`], [`CallView`]), so what is found is what is shown. Markup a
//! view holds (Markdown, outputs, diffs, files) is read back as the text a
//! reader sees ([`strip`]).
//!
//! A view that shows text of the transcript gives it here; landmarks cctree
//! writes itself (anchors, fork notes, session ids, notes about sizes) give
//! nothing. A new kind of block must say what it shows (the matches below are
//! exhaustive).

use crate::render::html::Html;
use crate::render::views::blocks::Block;
use crate::render::views::blocks::{CallView, ToolView};
use crate::render::views::message::MessageView;

/// What a piece of a message's text is, for how much of it an excerpt keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// Prompts, replies, summaries, notices.
    Prose,
    Thinking,
    /// A tool call: its name, argument and input.
    Call,
    /// What a tool or command returned, a file, a diff, raw JSON.
    Output,
    /// Text a page hides until the reader shows system entries (a reminder
    /// the client put into a tool's output): indexed apart.
    Hidden,
}

/// Where a message's text goes: every piece is handed to `sink`.
pub(crate) trait TextSink {
    fn text(&mut self, part: Part, text: &str);

    /// Markup a view holds, as the text a reader sees.
    fn html(&mut self, part: Part, html: &Html);
}

/// The text of a message's body.
pub(crate) fn message_text(m: &MessageView, t: &mut impl TextSink) {
    for b in &m.body {
        block_text(b, t);
    }
}

fn block_text(b: &Block, t: &mut impl TextSink) {
    match b {
        Block::Html(h) => t.html(Part::Output, h),
        // Raw JSON of entries: metadata (ids, times, versions), not what was said.
        Block::Meta(_) => {}
        Block::Markdown(m) => t.html(Part::Prose, &m.html),
        Block::Note(n) => t.text(Part::Prose, &n.text),
        Block::NoticeText(n) => t.text(Part::Prose, &n.text),
        Block::Placeholder(p) => t.text(Part::Prose, &p.what),
        Block::Thinking(th) => t.html(Part::Thinking, &th.body.html),
        Block::Output(o) => t.html(Part::Output, &o.body),
        Block::Fold(f) => block_text(&f.body, t),
        Block::Link(l) => t.text(Part::Prose, &l.text),
        Block::Conflict(c) => block_text(&c.details, t),
        Block::Command(c) => {
            t.text(Part::Call, &c.name);
            t.text(Part::Call, &c.args);
        }
        Block::IdeContext(c) => t.text(Part::Output, &c.text),
        Block::ShellInput(s) => t.text(Part::Call, &s.command),
        Block::Summary(s) => t.html(Part::Prose, &s.body.html),
        Block::AuxBody(a) => block_text(&a.body, t),
        Block::AuxLine(a) => t.html(Part::Prose, &a.line),
        Block::Hook(h) => {
            t.text(Part::Call, &h.name);
            t.text(Part::Call, &h.command);
        }
        Block::Tool(tool) => tool_text(tool, t),
        Block::Result(r) => r.body.iter().for_each(|b| block_text(b, t)),
        Block::Reminder(r) => block_text(&r.body, &mut Hidden(t)),
        Block::ResultText(r) => match &r.full {
            Some(full) => block_text(full, t),
            None => t.text(Part::Output, &r.line),
        },
        // Landmarks cctree writes: no text of the transcript.
        Block::Image(_) | Block::Anchor(_) | Block::Compaction(_) | Block::Session(_) | Block::Persisted(_) => {}
    }
}

/// A sink's hidden part: every piece handed on as [`Part::Hidden`].
struct Hidden<'t>(&'t mut dyn TextSink);

impl TextSink for Hidden<'_> {
    fn text(&mut self, _: Part, text: &str) {
        self.0.text(Part::Hidden, text);
    }

    fn html(&mut self, _: Part, html: &Html) {
        self.0.html(Part::Hidden, html);
    }
}

fn tool_text(tool: &ToolView, t: &mut impl TextSink) {
    match &tool.call {
        // The argument is the command's first line.
        CallView::Bash(_) => t.text(Part::Call, &tool.name),
        _ => t.text(Part::Call, &format!("{} {}", tool.name, tool.arg)),
    }
    match &tool.call {
        CallView::Bash(b) => {
            if let Some(d) = &b.description {
                t.text(Part::Call, d);
            }
            t.text(Part::Call, &b.command.command);
        }
        CallView::Edit(e) => block_text(&e.diff, t),
        CallView::MultiEdit(m) => m.diffs.iter().for_each(|d| t.html(Part::Output, d)),
        CallView::Patch(p) => {
            for (what, diff) in &p.files {
                t.text(Part::Call, what);
                if let Some(d) = diff {
                    t.html(Part::Output, d);
                }
            }
        }
        CallView::Write(w) => block_text(&w.file, t),
        CallView::TodoWrite(todo) => {
            for item in todo.todos.iter().flatten() {
                t.text(Part::Call, &item.content);
            }
        }
        CallView::WebFetch(w) => {
            t.text(Part::Call, &w.url);
            if let Some(p) = &w.prompt {
                t.text(Part::Call, p);
            }
        }
        CallView::Agent(a) => {
            if let Some(p) = &a.prompt {
                t.html(Part::Call, &p.html);
            }
        }
        CallView::Questions(q) => {
            for q in &q.questions {
                t.text(Part::Call, &q.header);
                t.text(Part::Call, &q.question);
                for o in &q.options {
                    t.text(Part::Call, &o.label);
                    t.text(Part::Call, &o.description);
                }
                if let Some(a) = &q.answer {
                    t.text(Part::Call, a);
                }
            }
        }
        CallView::Fields(f) => {
            for field in &f.fields {
                t.text(Part::Call, &field.value);
            }
            if let Some(b) = &f.body {
                block_text(b, t);
            }
        }
        CallView::Json(b) => block_text(b, t),
        CallView::Plain(h) => t.html(Part::Call, h),
    }
    if let Some(r) = &tool.result {
        r.body.iter().for_each(|b| block_text(b, t));
    }
}

/// Appends the text a reader sees of `html` (markup cctree wrote: tags
/// dropped, entities decoded) to `out`. Inline elements (`span`, `a`,
/// `code`, …) join their text to what is around; every other tag separates
/// words, as a line break or a new block does on the page.
pub(crate) fn strip(html: &str, out: &mut String) {
    let b = html.as_bytes();
    let mut i = 0;
    let mut run = 0;
    while let Some(k) = memchr::memchr2(b'<', b'&', &b[i..]) {
        let at = i + k;
        out.push_str(&html[run..at]);
        if b[at] == b'<' {
            let end = memchr::memchr(b'>', &b[at..]).map_or(b.len(), |e| at + e + 1);
            if !is_inline(&html[at..end]) {
                out.push(' ');
            }
            i = end;
        } else {
            let end = b[at..].iter().take(12).position(|&c| c == b';').map(|e| at + e);
            match end.and_then(|e| entity(&html[at + 1..e]).map(|c| (e, c))) {
                Some((e, c)) => {
                    out.push(c);
                    i = e + 1;
                }
                None => {
                    out.push('&');
                    i = at + 1;
                }
            }
        }
        run = i;
    }
    out.push_str(&html[run..]);
}

/// Whether a tag (`<span …>`, `</a>`) is of an inline element.
fn is_inline(tag: &str) -> bool {
    let name = tag.trim_start_matches(['<', '/']);
    let end = name.find(|c: char| !c.is_ascii_alphanumeric() && c != '-').unwrap_or(name.len());
    // `h-*`: a highlighted token (`render::html::highlight`).
    name.starts_with("h-")
        || matches!(
            &name[..end],
            "span"
                | "a"
                | "code"
                | "em"
                | "strong"
                | "b"
                | "i"
                | "s"
                | "u"
                | "del"
                | "ins"
                | "mark"
                | "sup"
                | "sub"
                | "kbd"
                | "small"
                | "abbr"
                | "q"
                | "var"
                | "samp"
                | "time"
        )
}

/// The character an entity (between `&` and `;`) stands for.
fn entity(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        "nbsp" => Some('\u{a0}'),
        _ => {
            let num = name.strip_prefix('#')?;
            let code = match num.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => num.parse().ok()?,
            };
            char::from_u32(code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stripped(html: &str) -> String {
        let mut s = String::new();
        strip(html, &mut s);
        s
    }

    #[test]
    fn markup_read_back_as_text() {
        assert_eq!(stripped("<p>a &lt;b&gt; &amp; &quot;c&#39; &#x41;</p>"), " a <b> & \"c' A ");
        // Inline elements join, blocks separate.
        assert_eq!(stripped("<pre>fo<span class=\"x\">o</span></pre><p>bar</p>"), " foo  bar ");
        assert_eq!(stripped("a &bogus; & b"), "a &bogus; & b");
        assert_eq!(stripped("<a href=\"x\">lin</a>k<br>next"), "link next");
    }
}

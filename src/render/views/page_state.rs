//! Per-page rendering state ([`PageCtx`]): where the page is, the anchors it
//! has written, and what is left of its allowances (text, highlighting,
//! hidden metadata), so that no page grows past a few MB; and the builders
//! of the blocks that spend them (Markdown, outputs, JSON, images).

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::graph::NodeId;
use crate::model::EntryId;
use crate::model::{Image as ImageSource, Node, Raw};

use crate::limits::{MARKDOWN_CAP, META_CAP, META_VIEW_MIN, OUTPUT_CAP, OUTPUT_FOLD, PAGE_NODES, PAGE_TEXT, SMALL_CAP};
use crate::render::html::highlight::Budget;
use crate::render::html::{Html, markdown, terminal};
use crate::render::plain::{cut, human_size};
use crate::render::site::context::ProjectCtx;
use crate::render::site::urls::{Root, anchor, external, page_file};

use super::inputs::Shown;
use crate::render::views::blocks::{
    Block, ExternalLink, Fold, Image, JsonDetails, Markdown, Meta, Note, Output, Placeholder,
};

/// Per-page rendering state.
pub(crate) struct PageCtx<'a> {
    pub(crate) p: &'a ProjectCtx<'a>,
    /// The page's directory, relative to the site root.
    pub(crate) dir: &'a str,
    pub(crate) budget: Budget,
    /// Nodes whose anchor is already on the page.
    pub(crate) emitted: FxHashSet<NodeId>,
    /// What is left of [`PAGE_TEXT`].
    pub(crate) text_left: usize,
    /// The page's number on its track (0: `index.html`), for warnings.
    pub(crate) page: u32,
    /// What is left of [`META_CAP`].
    pub(crate) meta_left: usize,
    /// What the entries read last say: up to [`PAGE_NODES`] of them here,
    /// as many in `older` (the generation before), the rest read again
    /// when asked for (memory bounded by what is being read, not by the
    /// page: a reply of N parallel calls reads each call's result).
    nodes: FxHashMap<EntryId, Rc<Node<'a>>>,
    older: FxHashMap<EntryId, Rc<Node<'a>>>,
    /// The entries whose line could not be read again: warned about once,
    /// however many times they are read.
    unreadable: FxHashSet<EntryId>,
    /// Where each result sits in an entry of many ([`PageCtx::result_place`]).
    places: FxHashMap<EntryId, FxHashMap<Box<str>, usize>>,
}

impl<'a> PageCtx<'a> {
    pub(crate) fn new(p: &'a ProjectCtx<'a>, dir: &'a str) -> PageCtx<'a> {
        PageCtx {
            p,
            dir,
            budget: Budget::default(),
            emitted: FxHashSet::default(),
            text_left: PAGE_TEXT,
            page: 0,
            meta_left: META_CAP,
            nodes: FxHashMap::default(),
            older: FxHashMap::default(),
            unreadable: FxHashSet::default(),
            places: FxHashMap::default(),
        }
    }

    /// Where the result of call `id` sits in `node` (entry `entry`; what
    /// [`Node::tool_result`] finds, at [`Node::result_at`]). An entry of
    /// more than a few results is indexed once for the page: a reply of N
    /// parallel calls costs N look-ups, not N scans of N results.
    pub(crate) fn result_place(&mut self, entry: EntryId, node: &Node<'_>, id: &str) -> Option<usize> {
        const SCAN: usize = 16;
        if let Some(index) = self.places.get(&entry) {
            return index.get(id).copied();
        }
        if node.result_places().nth(SCAN).is_none() {
            return node.result_places().find(|(_, r)| r.use_id == id).map(|(at, _)| at);
        }
        let mut index: FxHashMap<Box<str>, usize> = FxHashMap::default();
        for (at, r) in node.result_places() {
            index.entry(r.use_id.as_ref().into()).or_insert(at);
        }
        let at = index.get(id).copied();
        self.places.insert(entry, index);
        at
    }

    /// What entry `id` says ([`crate::project::Project::node`]), read once
    /// while it is among the last entries read (see `nodes`); a line that
    /// cannot be read again is a warning (once), and shows what an empty
    /// one does.
    pub(crate) fn node(&mut self, id: EntryId) -> Rc<Node<'a>> {
        if let Some(n) = self.nodes.get(&id) {
            return Rc::clone(n);
        }
        let node = match self.older.remove(&id) {
            Some(n) => n,
            None => {
                let p: &'a ProjectCtx<'a> = self.p;
                let (node, err) = p.project.node(&p.entries()[id]);
                if let Some(err) = err {
                    if self.unreadable.insert(id) {
                        self.warn(format_args!("{err}"));
                    }
                }
                Rc::new(node)
            }
        };
        if self.nodes.len() >= PAGE_NODES {
            self.older = std::mem::take(&mut self.nodes);
        }
        self.nodes.insert(id, Rc::clone(&node));
        node
    }

    /// The whole of entry `id` as its client wrote it (`null`, with a
    /// warning, when its line cannot be read again).
    pub(crate) fn record(&self, id: EntryId) -> Raw<'a> {
        let p: &'a ProjectCtx<'a> = self.p;
        p.project.record(&p.entries()[id]).unwrap_or_else(|err| {
            self.warn(format_args!("{err}"));
            Raw::null()
        })
    }

    /// Records a problem met rendering this page.
    pub(crate) fn warn(&self, what: std::fmt::Arguments<'_>) {
        self.p.warn(&format!("{}{}", self.dir, page_file(self.page)), what);
    }

    /// The cap for the next block of text on this page.
    pub(crate) fn cap(&self) -> usize {
        OUTPUT_CAP.min(self.text_left.max(SMALL_CAP))
    }

    fn spend(&mut self, n: usize) {
        self.text_left = self.text_left.saturating_sub(n);
    }

    /// [`output`] within the page's text allowance.
    pub(crate) fn output(&mut self, text: &str, label: &str, class: &'static str) -> Block {
        let cap = self.cap();
        self.spend(text.len().min(cap));
        output_capped(text, label, class, cap)
    }

    /// Pretty JSON, escaped, in a `<pre>` (cut and folded like outputs).
    pub(crate) fn json_pre(&mut self, v: &Raw<'_>) -> Block {
        let s = v.pretty();
        self.output(&s, "JSON", "json")
    }

    /// A collapsed generic view of any JSON value, within the page's
    /// [`META_CAP`] of hidden metadata (past it, a note with the size).
    pub(crate) fn json_details(&mut self, summary: &str, v: &Raw<'_>) -> Block {
        let s = v.pretty();
        // Escaping can double the text: cut it to half of what is left.
        let cap = self.cap().min(self.meta_left.saturating_sub(512) / 2);
        if cap >= META_VIEW_MIN {
            let view = JsonDetails { summary: summary.to_string(), json: output_capped(&s, "JSON", "json", cap) };
            // What it weighs on the page is its HTML: rendered here to be measured.
            let html = Html::of(&view);
            if html.len() <= self.meta_left {
                self.meta_left -= html.len();
                self.spend(s.len().min(cap));
                return Block::Meta(Meta { html });
            }
        }
        placeholder(format!(
            "{summary}: {} of JSON not shown (this page's metadata allowance is spent)",
            human_size(s.len())
        ))
    }

    /// How this page reaches the site root.
    pub(crate) fn root(&self) -> Root {
        Root::of(self.dir)
    }

    /// The anchor id of a node a message shows, if it belongs on this page
    /// ([`Shown::anchored`]) and is not out yet.
    pub(crate) fn take_anchor(&mut self, s: &Shown) -> Option<String> {
        if !s.anchored || !self.emitted.insert(s.node) {
            return None;
        }
        Some(anchor(self.p.graph().uuid(self.p.entries(), s.node)))
    }

    /// Markdown, within the page's text allowance.
    pub(crate) fn markdown(&mut self, text: &str) -> Markdown {
        self.markdown_shown(text, true)
    }

    /// [`Self::markdown`] of text the page shows in a closed fold (a tool's
    /// input or result, thinking, a summary): its code blocks are plain (file
    /// reads are coloured in the browser when shown); the page's
    /// highlighting goes to what it shows open.
    pub(crate) fn folded_markdown(&mut self, text: &str) -> Markdown {
        self.markdown_shown(text, false)
    }

    fn markdown_shown(&mut self, text: &str, open: bool) -> Markdown {
        let cap = MARKDOWN_CAP.min(self.text_left.max(4 * SMALL_CAP));
        self.spend(text.len().min(cap));
        let budget = if open { &mut self.budget } else { &mut Budget::none() };
        Markdown { html: markdown::to_html_capped(text, budget, cap) }
    }

    /// An image given by its bytes (written to `assets/img/`, or inline),
    /// a link to a remote one, or a placeholder.
    pub(crate) fn image(&mut self, source: &ImageSource<'_>) -> Block {
        match source {
            ImageSource::Data { media_type: media, data } => match self.p.images.show(media, data, &self.root()) {
                Ok(Ok(src)) => Block::Image(Image { src, media: media.to_string(), inline: self.p.images.is_inline() }),
                Ok(Err(why)) => {
                    if why == crate::render::site::images::Rejected::Empty {
                        return placeholder(format!("image not shown: {why}"));
                    }
                    self.warn(format_args!("image not written: {why}"));
                    let media: String = media.chars().take(crate::limits::MEDIA_TYPE_CHARS).collect();
                    placeholder(format!("image not shown: {why} ({media}, {})", human_size(data.len() / 4 * 3)))
                }
                Err(err) => {
                    self.warn(format_args!("{err:#}"));
                    placeholder("image could not be written")
                }
            },
            ImageSource::Url(url) => match external(url) {
                Some(href) => Block::Link(ExternalLink { href, text: "remote image".into() }),
                None => placeholder("image"),
            },
        }
    }
}

/// `[what]`.
pub(crate) fn placeholder(what: impl Into<String>) -> Block {
    Block::Placeholder(Placeholder { what: what.into() })
}

/// A quiet line of text.
pub(crate) fn note(text: &str) -> Block {
    Block::Note(Note { text: text.to_string() })
}

/// A `<pre>` of tool or command output: ANSI colours converted, cut at
/// `cap` bytes, folded when over [`OUTPUT_FOLD`].
pub(crate) fn output_capped(text: &str, label: &str, class: &'static str, cap: usize) -> Block {
    let shown = cut(text, cap);
    let cut = (shown.len() < text.len()).then(|| (human_size(shown.len()), human_size(text.len())));
    fold(Block::Output(Output { class, body: terminal(shown), cut }), label, text.len())
}

/// Wraps large content in a closed `<details>` that names its size.
pub(crate) fn fold(inner: Block, label: &str, size: usize) -> Block {
    if size <= OUTPUT_FOLD {
        return inner;
    }
    Block::Fold(Fold { label: label.to_string(), size: human_size(size), body: Box::new(inner) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_outputs_fold_and_cut() {
        let small = output_capped("a\u{1b}[31mb", "Output", "", OUTPUT_CAP).to_string();
        assert!(small.contains("<t-1>") && !small.contains("<details"), "{small}");
        let big = output_capped(&"x".repeat(OUTPUT_CAP + 10), "Output", "", OUTPUT_CAP).to_string();
        assert!(big.contains("<details class=\"big\">") && big.contains("Cut:"));
    }
}

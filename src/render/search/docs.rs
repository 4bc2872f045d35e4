//! What the search index takes from a project's pages: the *docs* of each
//! page (its messages: anchor, role, number, an excerpt of their text) and
//! the terms each holds, gathered per *unit* — a conversation with the
//! sub-agents it spawned, or an agent spawned by no conversation — into the
//! unit's entry and postings.
//!
//! A unit's pages are numbered from 1 by the time of their first message
//! (then path), so a page added later (a new branch, the next page of a
//! growing track) comes last and leaves the others' numbers alone; number 0
//! is the unit itself (its title and the titles of its branches).

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::digest::UnitEntry;
use crate::graph::{AgentId, AgentKind, BranchId, ConversationId};
use crate::id::IdVec;
use crate::limits::{SEARCH_CALL_CHARS, SEARCH_DOC_CHARS, SEARCH_OUTPUT_CHARS, SEARCH_PROSE_CHARS};
use crate::limits::{SEARCH_TEXT_CHARS, SEARCH_THINKING_CHARS, SEARCH_TITLE_CHARS};

use super::codec::{self, Gaps, n32};
use super::extract::{Part, TextSink, message_text, strip};
use super::terms::Terms;
use crate::render::html::Html;
use crate::render::plain::excerpt;
use crate::render::site::context::{ProjectCtx, TrackId};
use crate::render::site::layout::ItemId;
use crate::render::site::urls::page_file;
use crate::render::views::message::MessageView;

/// A unit rendered: its entry, and each of its terms with where it occurs,
/// encoded (see [`super::index`]: the part of a posting list after the
/// unit's number).
#[derive(Debug, Default)]
pub(crate) struct UnitIndex {
    pub(crate) entry: UnitEntry,
    pub(crate) postings: Vec<(Box<str>, Vec<u8>)>,
    /// Its pages that were re-used (paths): their postings are in the
    /// previous index, and join those of the pages rendered.
    pub(crate) kept: Vec<String>,
}

/// What rendering a project gives the search index.
#[derive(Debug, Default)]
pub(crate) struct ProjectSearch {
    /// The units some of whose pages were rendered.
    pub(crate) fresh: Vec<UnitIndex>,
    /// The keys of the units whose pages were re-used: what they contribute
    /// is in the previous index.
    pub(crate) reused: Vec<String>,
    /// Bytes of text the fresh units' pages gave the index.
    pub(crate) text_bytes: u64,
}

/// The file holding the docs of page `page` (0-based) of a track, beside the
/// page: `search-1.js` for `index.html`, `search-N.js` for `page-N.html`.
pub(crate) fn doc_file(page: u32) -> String {
    format!("search-{}.js", page + 1)
}

/// The id a doc file assigns its data to (`d/` and its path in the site).
fn doc_id(path: &str) -> String {
    format!("d/{path}")
}

/// One message of a page, as the index shows it.
#[derive(Debug, Clone)]
struct Doc {
    anchor: String,
    role: String,
    number: u32,
    excerpt: String,
    /// The whole text (pieces on lines of their own, whitespace collapsed),
    /// when the excerpt was cut: a word found past the excerpt is shown in
    /// its context from it.
    text: Option<String>,
    /// Where it is read when not on the active line (`on branch 15.1`).
    place: Option<String>,
}

/// What the index takes from one page: its docs in page order and their terms.
#[derive(Debug, Default)]
pub(crate) struct PageIndex {
    docs: Vec<Doc>,
    /// Each term with the docs holding it (ascending), in no particular order.
    terms: Vec<(Box<str>, Vec<u32>)>,
    /// Bytes of text read (for the index's size against it: docs/performance.md).
    text_bytes: u64,
}

impl PageIndex {
    /// The docs and terms of a page's messages: a message with an anchor is a doc; one without
    /// (typed while Claude worked) joins the doc before it, as it is shown
    /// after it; one without text is none, and one the conversation page
    /// shows too is indexed there ([`MessageView::indexed_elsewhere`]).
    /// What the page hides until the reader shows system entries — a side
    /// entry (`aux`: meta, injected instructions, hooks), a reminder the
    /// client put in a tool's output — is indexed apart ([`hidden_term`]):
    /// found only when the search is asked for it.
    pub(crate) fn of<'m>(messages: impl IntoIterator<Item = &'m MessageView>) -> PageIndex {
        let mut sink = DocSink::default();
        let mut docs: Vec<Doc> = Vec::new();
        // The doc before was indexed elsewhere: what joins it is too.
        let mut skipping = false;
        for m in messages {
            if !m.id.is_empty() {
                skipping = m.indexed_elsewhere;
            }
            if skipping {
                continue;
            }
            let anchor = if m.id.is_empty() { docs.last().map(|d| d.anchor.clone()) } else { Some(m.id.clone()) };
            let Some(anchor) = anchor else { continue };
            sink.start(n32(docs.len()), m.class.split(' ').any(|c| c == "aux"));
            message_text(m, &mut sink);
            if sink.empty {
                continue;
            }
            docs.push(Doc {
                anchor,
                role: m.role.clone(),
                number: m.number.unwrap_or(0),
                excerpt: std::mem::take(&mut sink.excerpt),
                text: sink.cut.then(|| std::mem::take(&mut sink.text)),
                place: m.place.clone(),
            });
        }
        PageIndex { docs, terms: sink.terms.into_iter().collect(), text_bytes: sink.text_bytes }
    }

    /// The doc file of the page (see [`doc_file`]): `docs`, each doc as
    /// `[anchor, role, number (0: none), excerpt]`, with a fifth item when
    /// the excerpt was cut: the index of the doc's whole text in `z`; and
    /// `z` (when a doc was cut), the whole texts as a JSON array of strings,
    /// deflated ([`codec::deflate`]) and in base64. A search inflates `z`
    /// only when a hit lies past its excerpt; the texts would otherwise be
    /// a second copy of the page's text, 3.5× larger (docs/performance.md).
    /// The docs are dropped once written: what the page gives the index
    /// after that is its terms, which are held until its project's units
    /// are indexed (the whole texts of a 400 MB project are not).
    pub(crate) fn doc_script(&mut self, path: &str) -> String {
        let script = self.write_docs(path);
        self.docs = Vec::new();
        script
    }

    fn write_docs(&self, path: &str) -> String {
        #[derive(Serialize)]
        #[serde(untagged)]
        enum DocRow<'d> {
            Whole(&'d str, &'d str, u32, &'d str),
            Cut(&'d str, &'d str, u32, &'d str, u32),
            /// Read elsewhere than the page's `on` says: its place after
            /// its whole text's index (-1: none).
            Placed(&'d str, &'d str, u32, &'d str, i64, &'d str),
        }
        // The place of the page's first doc is the page's; a doc read
        // elsewhere says its own.
        let on = self.docs.first().and_then(|d| d.place.as_deref());
        let mut texts: Vec<&str> = Vec::new();
        let docs: Vec<DocRow<'_>> = self
            .docs
            .iter()
            .map(|d| {
                let cut = d.text.as_ref().map(|t| {
                    texts.push(t);
                    n32(texts.len() - 1)
                });
                match (cut, d.place.as_deref()) {
                    (cut, place) if place != on => DocRow::Placed(
                        &d.anchor,
                        &d.role,
                        d.number,
                        &d.excerpt,
                        cut.map_or(-1, i64::from),
                        place.unwrap_or(""),
                    ),
                    (None, _) => DocRow::Whole(&d.anchor, &d.role, d.number, &d.excerpt),
                    (Some(k), _) => DocRow::Cut(&d.anchor, &d.role, d.number, &d.excerpt, k),
                }
            })
            .collect();
        #[derive(Serialize)]
        struct Docs<'d> {
            docs: Vec<DocRow<'d>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            z: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            on: Option<&'d str>,
        }
        let z = (!texts.is_empty()).then(|| codec::base64(&codec::deflate(crate::json::write(&texts).as_bytes())));
        let json = crate::json::write(&Docs { docs, z, on });
        codec::script(&doc_id(path), &json)
    }
}

/// Takes the text of one message after another: every term, into the
/// page's terms; the start of each piece, into the excerpt; the whole
/// text, kept when the excerpt was cut.
#[derive(Default)]
struct DocSink {
    doc: u32,
    terms: FxHashMap<Box<str>, Vec<u32>>,
    words: Terms,
    excerpt: String,
    /// Characters in the excerpt.
    chars: usize,
    /// The whole text and its characters.
    text: String,
    text_chars: usize,
    /// The excerpt left some text out.
    cut: bool,
    /// No term met yet in this doc.
    empty: bool,
    /// The doc is a message the page hides by default.
    hidden: bool,
    text_bytes: u64,
    scratch: String,
    hidden_scratch: String,
}

impl DocSink {
    fn start(&mut self, doc: u32, hidden: bool) {
        self.doc = doc;
        self.excerpt.clear();
        self.chars = 0;
        self.text.clear();
        self.text_chars = 0;
        self.cut = false;
        self.empty = true;
        self.hidden = hidden;
    }
}

/// The term under which text a page hides by default is indexed: `~` and
/// the term (no term holds a `~`), looked up only when the search asks for
/// hidden text too (`static/search.js`).
pub(crate) fn hidden_term(term: &str, out: &mut String) {
    out.clear();
    out.push('~');
    out.push_str(term);
}

impl TextSink for DocSink {
    fn text(&mut self, part: Part, text: &str) {
        self.text_bytes += text.len() as u64;
        let hidden = self.hidden || part == Part::Hidden;
        let (doc, terms, key) = (self.doc, &mut self.terms, &mut self.hidden_scratch);
        let mut any = false;
        self.words.each(text, |t| {
            any = true;
            let t = if hidden {
                hidden_term(t, key);
                key.as_str()
            } else {
                t
            };
            match terms.get_mut(t) {
                Some(docs) => {
                    if docs.last() != Some(&doc) {
                        docs.push(doc);
                    }
                }
                None => {
                    terms.insert(t.into(), vec![doc]);
                }
            }
        });
        if !any {
            return;
        }
        self.empty = false;
        // A reminder inside a message shown: found (apart), never its excerpt.
        if part == Part::Hidden && !self.hidden {
            return;
        }
        let text = if self.hidden { strip_tags(text) } else { std::borrow::Cow::Borrowed(text) };
        let text = &*text;
        let room = SEARCH_TEXT_CHARS.saturating_sub(self.text_chars);
        if room > 0 {
            if !self.text.is_empty() {
                self.text.push('\n');
            }
            self.text_chars += push_collapsed(&mut self.text, text, room) + 1;
        }
        let room = SEARCH_DOC_CHARS.saturating_sub(self.chars);
        let cap = match part {
            Part::Prose => SEARCH_PROSE_CHARS,
            Part::Thinking => SEARCH_THINKING_CHARS,
            Part::Call => SEARCH_CALL_CHARS,
            Part::Output | Part::Hidden => SEARCH_OUTPUT_CHARS,
        }
        .min(room);
        if cap == 0 {
            self.cut = true;
            return;
        }
        if !self.excerpt.is_empty() {
            self.excerpt.push('\n');
        }
        let (n, cut) = push_collapsed_cut(&mut self.excerpt, text, cap);
        self.chars += n + 1;
        self.cut |= cut;
    }

    fn html(&mut self, part: Part, html: &Html) {
        let mut s = std::mem::take(&mut self.scratch);
        s.clear();
        strip(html.as_str(), &mut s);
        self.text(part, &s);
        self.scratch = s;
    }
}

/// The text of a hidden entry for its excerpt: without the tags the client
/// wraps injected text in (`<system-reminder>`, `<environment_context>`),
/// which are not what it says.
fn strip_tags(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('<') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 1..];
        let name = tail.strip_prefix('/').unwrap_or(tail);
        let len = name.bytes().take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')).count();
        let closed =
            name.as_bytes().get(len) == Some(&b'>') && name.as_bytes().first().is_some_and(u8::is_ascii_alphabetic);
        if closed {
            out.push(' ');
            rest = &name[len + 1..];
        } else {
            out.push('<');
            rest = tail;
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// Appends at most `cap` characters of `text` with runs of whitespace as one
/// space (and `…` when cut); returns the characters appended.
fn push_collapsed(out: &mut String, text: &str, cap: usize) -> usize {
    push_collapsed_cut(out, text, cap).0
}

/// [`push_collapsed`], and whether `text` was cut. Runs of ASCII that
/// need no change (words with single spaces between them: most of a tool's
/// output) are copied whole; any other character is taken one at a time.
fn push_collapsed_cut(out: &mut String, text: &str, cap: usize) -> (usize, bool) {
    // ASCII other than whitespace as `char::is_whitespace` has it (\t \n \v \f \r, space).
    fn word(c: u8) -> bool {
        c < 0x80 && !matches!(c, b'\t'..=b'\r' | b' ')
    }
    let text = text.trim();
    let b = text.as_bytes();
    let mut n = 0;
    let mut space = false;
    let mut i = 0;
    while i < b.len() {
        if word(b[i]) {
            let mut end = i;
            loop {
                end += b[end..].iter().position(|&c| !word(c)).unwrap_or(b.len() - end);
                if b.get(end) == Some(&b' ') && b.get(end + 1).is_some_and(|&c| word(c)) {
                    end += 1;
                    continue;
                }
                break;
            }
            // Characters of the run that fit, after the space before it (a
            // run of ASCII: one character a byte).
            let fit = cap.saturating_sub(n + usize::from(space)).min(end - i);
            if fit == 0 {
                out.push('…');
                return (n + 1, true);
            }
            if space {
                out.push(' ');
                n += 1;
                space = false;
            }
            if fit < end - i {
                // Cut: a space the cut ends on is left out, as a space
                // before the `…` would be.
                let part = text[i..i + fit].trim_end_matches(' ');
                out.push_str(part);
                out.push('…');
                return (n + part.len() + 1, true);
            }
            out.push_str(&text[i..end]);
            n += end - i;
            i = end;
            continue;
        }
        if b[i] < 0x80 {
            space = true;
            i += 1;
            continue;
        }
        let c = text[i..].chars().next().unwrap_or(char::REPLACEMENT_CHARACTER);
        i += c.len_utf8();
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if n + usize::from(space) >= cap {
            out.push('…');
            return (n + 1, true);
        }
        if space {
            out.push(' ');
            n += 1;
            space = false;
        }
        out.push(c);
        n += 1;
    }
    (n, false)
}

/// A term's postings in a unit being written: the gaps of its pages, and
/// the bytes so far.
type Encoding = (Gaps, Vec<u8>);

/// The units of a project, and where each page of each track goes.
pub(crate) struct Units {
    entries: Vec<UnitEntry>,
    /// The text of each unit's doc 0 (its title and its branches' titles).
    titles: Vec<String>,
    /// Unit of each branch and each agent.
    branch_unit: IdVec<BranchId, u32>,
    agent_unit: IdVec<AgentId, u32>,
    /// Number (from 1) of each page of each track, within its unit.
    branch_pages: IdVec<BranchId, Vec<u32>>,
    agent_pages: IdVec<AgentId, Vec<u32>>,
    /// Of each conversation's active track (a conversation with forks): its
    /// pages hold the messages of the active line, its branches' pages the others.
    active_pages: IdVec<ConversationId, Vec<u32>>,
    /// Unit of each conversation.
    conv_unit: IdVec<ConversationId, u32>,
}

impl Units {
    pub(crate) fn of(ctx: &ProjectCtx<'_>) -> Units {
        let g = ctx.graph();
        let mut u = Units {
            entries: Vec::new(),
            titles: Vec::new(),
            branch_unit: IdVec::filled(0, g.branches.len()),
            agent_unit: IdVec::filled(0, g.agents.len()),
            branch_pages: IdVec::filled(Vec::new(), g.branches.len()),
            agent_pages: IdVec::filled(Vec::new(), g.agents.len()),
            active_pages: IdVec::filled(Vec::new(), g.conversations.len()),
            conv_unit: IdVec::new(),
        };
        let mut conv_unit: IdVec<ConversationId, u32> = IdVec::filled(0, g.conversations.len());
        for (i, c) in g.conversations.iter_enumerated() {
            let unit = n32(u.entries.len());
            conv_unit[i] = unit;
            let mut titles = vec![c.title.to_string()];
            // Each title once (a set: a million branches' titles are not
            // compared with each other).
            let mut seen: rustc_hash::FxHashSet<&str> = std::iter::once(&*c.title).collect();
            for &b in &c.branches {
                u.branch_unit[b] = unit;
                let t = &g.branches[b].title;
                if !t.is_empty() && seen.insert(t) {
                    titles.push(t.to_string());
                }
            }
            u.push(ctx, &ctx.conv_dirs[i], c.first_ts, &c.title, titles.join("\n"));
        }
        for (a, agent) in g.agents.iter_enumerated() {
            let spawner = agent.spawn.as_ref().and_then(|s| s.use_node).and_then(|n| g.node(n).conversation);
            match spawner.and_then(|c| conv_unit.get(c)) {
                Some(&unit) => u.agent_unit[a] = unit,
                None => {
                    u.agent_unit[a] = n32(u.entries.len());
                    let desc = agent.meta.as_ref().and_then(|m| m.description.as_deref()).unwrap_or("");
                    let title = match (desc, agent.kind) {
                        ("", AgentKind::Subagent) => format!("Sub-agent {}", agent.agent_id),
                        ("", _) => format!("Agent {}", agent.agent_id),
                        (d, _) => d.to_string(),
                    };
                    u.push(ctx, &ctx.agent_dirs[a], agent.first_ts, &title, title.clone());
                }
            }
        }
        u.conv_unit = conv_unit;
        u.number_pages(ctx);
        u
    }

    fn push(&mut self, ctx: &ProjectCtx<'_>, key: &str, first_ts: i64, title: &str, titles: String) {
        self.entries.push(UnitEntry {
            key: key.to_string(),
            first_ts,
            title: crate::render::plain::plain_excerpt(title, SEARCH_TITLE_CHARS),
            project: ctx.name.clone(),
            pages: Vec::new(),
        });
        self.titles.push(titles);
    }

    /// Orders each unit's pages by the time of their first message, then path.
    fn number_pages(&mut self, ctx: &ProjectCtx<'_>) {
        let g = ctx.graph();
        let mut pages: Vec<Vec<(i64, String, TrackId, u32)>> = vec![Vec::new(); self.entries.len()];
        let active =
            g.conversations.iter_enumerated().filter(|(_, c)| c.branches.len() > 1).map(|(i, _)| TrackId::Active(i));
        let tracks = active.chain(g.branches.ids().map(TrackId::Branch)).chain(g.agents.ids().map(TrackId::Agent));
        // A branch on a shared page is indexed with that page's first branch.
        let tracks = tracks.filter(|t| ctx.has_pages(*t));
        for track in tracks {
            let lay = ctx.track_layout(track);
            let unit = self.unit(track) as usize;
            for p in 0..lay.pages {
                let first = lay.page_range(p).next().and_then(ItemId::new).and_then(|i| lay.items.get(i));
                let ts = first.and_then(|it| it.nodes.first()).map_or(0, |&n| g.node(n).ts);
                pages[unit].push((ts, format!("{}{}", ctx.track_dir(track), page_file(p)), track, p));
            }
        }
        for (unit, mut list) in pages.into_iter().enumerate() {
            list.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
            for (q, (_, path, track, p)) in list.into_iter().enumerate() {
                let slot = match track {
                    TrackId::Branch(b) => &mut self.branch_pages[b],
                    TrackId::Agent(a) => &mut self.agent_pages[a],
                    TrackId::Active(c) => &mut self.active_pages[c],
                };
                if slot.len() <= p as usize {
                    slot.resize(p as usize + 1, 0);
                }
                slot[p as usize] = n32(q).saturating_add(1);
                self.entries[unit].pages.push(path);
            }
        }
    }

    /// The unit a track's docs belong to.
    pub(crate) fn unit(&self, track: TrackId) -> u32 {
        match track {
            TrackId::Branch(b) => self.branch_unit[b],
            TrackId::Agent(a) => self.agent_unit[a],
            TrackId::Active(c) => self.conv_unit[c],
        }
    }

    /// The number of page `page` of `track` within its unit.
    fn page_number(&self, track: TrackId, page: u32) -> u32 {
        let pages: &[u32] = match track {
            TrackId::Branch(b) => &self.branch_pages[b],
            TrackId::Agent(a) => &self.agent_pages[a],
            TrackId::Active(c) => &self.active_pages[c],
        };
        pages.get(page as usize).copied().unwrap_or(0)
    }

    /// The index of the units some of whose pages were rendered, from those
    /// pages (`(track, page, its index)`); the pages of theirs that were
    /// re-used (`kept`, `(track, page)`) are in the previous index.
    pub(crate) fn index(self, pages: Vec<(TrackId, u32, PageIndex)>, kept: &[(TrackId, u32)]) -> ProjectSearch {
        let mut fresh = vec![false; self.entries.len()];
        for (track, _, _) in &pages {
            fresh[self.unit(*track) as usize] = true;
        }
        let mut kept_paths: Vec<Vec<(u32, String)>> = vec![Vec::new(); self.entries.len()];
        for &(track, p) in kept {
            let (u, q) = (self.unit(track) as usize, self.page_number(track, p));
            if let Some(path) = q.checked_sub(1).and_then(|i| self.entries[u].pages.get(i as usize)) {
                kept_paths[u].push((q, path.clone()));
            }
        }
        // Per unit: term → (last page number written, encoded postings).
        let mut post: Vec<FxHashMap<Box<str>, Encoding>> = vec![FxHashMap::default(); self.entries.len()];
        let mut order: Vec<(u32, u32, PageIndex)> =
            pages.into_iter().map(|(track, p, index)| (self.unit(track), self.page_number(track, p), index)).collect();
        order.sort_unstable_by_key(|(u, q, _)| (*u, *q));
        let mut text_bytes = 0;
        for (u, title) in self.titles.iter().enumerate().filter(|(u, _)| fresh[*u]) {
            post_title(&mut post[u], title);
        }
        for (u, q, page) in order {
            text_bytes += page.text_bytes;
            post_page(&mut post[u as usize], q, page);
        }
        let mut out = ProjectSearch { text_bytes, ..ProjectSearch::default() };
        for (((entry, map), fresh), mut kept) in self.entries.into_iter().zip(post).zip(fresh).zip(kept_paths) {
            // A unit with no page (nothing of it is shown) is not searched:
            // a hit could lead nowhere.
            if entry.pages.is_empty() {
                continue;
            }
            if !fresh {
                out.reused.push(entry.key);
                continue;
            }
            let mut postings: Vec<(Box<str>, Vec<u8>)> = map.into_iter().map(|(t, (_, b))| (t, b)).collect();
            postings.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            kept.sort_unstable();
            let kept = kept.into_iter().map(|(_, path)| path).collect();
            out.fresh.push(UnitIndex { entry, postings, kept });
        }
        out
    }
}

/// Posts the terms of a unit's title (its doc 0 of page 0).
fn post_title(map: &mut FxHashMap<Box<str>, Encoding>, title: &str) {
    let mut cut = Terms::default();
    cut.each(title, |t| {
        map.entry(t.into()).or_insert_with(|| {
            let mut b = Vec::new();
            let mut g = Gaps::new();
            g.put(&mut b, 0); // page 0
            codec::put(&mut b, 0); // one doc
            codec::put(&mut b, 0); // doc 0
            (g, b)
        });
    });
}

/// Posts the terms of page number `q` of a unit (pages in ascending order).
fn post_page(map: &mut FxHashMap<Box<str>, Encoding>, q: u32, page: PageIndex) {
    for (term, docs) in page.terms {
        let (gaps, bytes) = map.entry(term).or_insert_with(|| (Gaps::new(), Vec::new()));
        gaps.put(bytes, u64::from(q));
        codec::put(bytes, docs.len() as u64 - 1);
        let mut d = Gaps::new();
        for i in docs {
            d.put(bytes, u64::from(i));
        }
    }
}

/// The unit of a session recovered from the prompt history: one of its own
/// (its directory the key, its first prompt the time), whose pages are
/// `pages` (path, what the index takes from it) in order. Always fresh: its
/// pages are always rendered.
pub(crate) fn recovered_unit(
    ctx: &ProjectCtx<'_>,
    key: String,
    first_ts: i64,
    title: &str,
    pages: Vec<(String, PageIndex)>,
) -> (UnitIndex, u64) {
    let mut map = FxHashMap::default();
    post_title(&mut map, title);
    let mut entry = UnitEntry {
        key,
        first_ts,
        title: excerpt(title, SEARCH_TITLE_CHARS),
        project: ctx.name.clone(),
        pages: Vec::new(),
    };
    let mut text_bytes = 0;
    for (q, (path, page)) in pages.into_iter().enumerate() {
        text_bytes += page.text_bytes;
        entry.pages.push(path);
        post_page(&mut map, n32(q).saturating_add(1), page);
    }
    let mut postings: Vec<(Box<str>, Vec<u8>)> = map.into_iter().map(|(t, (_, b))| (t, b)).collect();
    postings.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    (UnitIndex { entry, postings, kept: Vec::new() }, text_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_excerpts_lose_their_tags() {
        assert_eq!(strip_tags("<system-reminder>\nkeep a < b and <3</system-reminder>"), " \nkeep a < b and <3 ");
        assert_eq!(strip_tags("<skills_instructions> ## Skills"), "  ## Skills");
        assert_eq!(strip_tags("no tags"), "no tags");
    }

    #[test]
    fn excerpts_collapse_whitespace_and_say_when_cut() {
        let mut s = String::new();
        assert_eq!(push_collapsed(&mut s, "  a \n\n b  ", 10), 3);
        assert_eq!(s, "a b");
        let mut s = String::new();
        push_collapsed(&mut s, "abcdef", 3);
        assert_eq!(s, "abc…");
    }

    /// The run-copying loop collapses and cuts as the character-by-character
    /// rule does.
    #[test]
    fn collapsing_agrees_with_the_rule() {
        fn slow(text: &str, cap: usize) -> (String, usize, bool) {
            let (mut out, mut n, mut space) = (String::new(), 0, false);
            for c in text.trim().chars() {
                if c.is_whitespace() {
                    space = true;
                    continue;
                }
                if n + usize::from(space) >= cap {
                    out.push('…');
                    return (out, n + 1, true);
                }
                if space {
                    out.push(' ');
                    n += 1;
                    space = false;
                }
                out.push(c);
                n += 1;
            }
            (out, n, false)
        }
        let texts = [
            "",
            "   ",
            "word",
            " two  words\n",
            "a\u{0b}b\u{0c}c\rd\te\u{1c}f",
            "é  ü\u{a0}\u{a0}x\u{2028}y\u{3000}z ✓✓ ab",
            "ascii run then é then ascii run again",
            "\u{85}lead and trail\u{2003}",
            "one two three four five six seven eight nine ten",
            "a b  c\td \u{a0}e f\u{2009}g h é i j",
        ];
        for text in texts {
            for cap in 0..45 {
                let mut fast = String::new();
                let (n, cut) = push_collapsed_cut(&mut fast, text, cap);
                assert_eq!((fast, n, cut), slow(text, cap), "{text:?} cap {cap}");
            }
        }
    }
}

//! The archive-wide full-text search index: every message's text as its
//! page shows it (prompts, replies, thinking, tool calls and their output,
//! commands, hooks), and every conversation's title, split into files that
//! a search loads only as it needs them. The files are scripts that assign
//! data (`CCTREE_SEARCH[id] = {…}`, see [`codec::script`]), so that they load
//! from `file://`, where `fetch()` of local files is refused, and on any
//! static host under any sub-path; `static/search.js` reads them.
//!
//! ```text
//! search/index.js            the manifest: the first term and name of each shard,
//!                            the number of units, the projects
//! search/t/<hash>.js         a shard of the term dictionary (terms in order, ~32 KB):
//!                            each term with its posting list
//! search/u/<k>.js            units k·256 … k·256+255: title, project, key, pages
//! <page's directory>/search-N.js   the docs of page N of a track: anchor, role,
//!                            number and excerpt of each message (loaded only
//!                            for the hits shown), and the whole texts of the
//!                            messages whose excerpt was cut, deflated together
//!                            (`z`: base64 of raw deflate of a JSON array;
//!                            inflated only for a hit past its excerpt), and
//!                            where they are read when not on the active line
//!                            (`on`: `on branch 15.1`)
//! ```
//!
//! A message is indexed once, where a hit should open it: a message of the
//! active line on the conversation page (which reads the active line), the
//! others on their branches' pages. What a page hides until the reader shows
//! system entries (side entries, injected instructions, a reminder the
//! client put into a tool's output) is indexed under `~term`
//! ([`docs::hidden_term`]), which a search looks up only when asked.
//!
//! A *unit* is a conversation with the sub-agents it spawned (or an agent no
//! conversation spawned); units are numbered by the time they started (then
//! key), a unit's pages from 1 by the time of their first message (page 0 is
//! the unit's title), a page's docs in page order. A posting list holds, for
//! each unit in which the term occurs: the unit's number, the length of what
//! follows, then for each page: its number, the count of docs less one, and
//! the docs' numbers — every sequence of numbers as gaps (the first as it
//! is, each next as its distance to the previous minus one), every number a
//! varint ([`codec`]). A search for `retry cache` loads the manifest, the
//! shard of each word, the unit tables of the results it shows and the doc
//! files of the hits it shows.
//!
//! The index is made from the views render writes pages from ([`text`]), so
//! what is found is what is shown: `--redact` and the selection of what is
//! rendered apply to it as to pages, by construction. Its parts:
//! [`terms`] (how text is cut into terms, which `search.js` repeats),
//! [`docs`] (a page's docs, a project's units), [`index`] (the archive's
//! index, built anew from fresh units and the previous site's index).

pub(crate) mod codec;
pub(crate) mod docs;
pub(crate) mod extract;
pub(crate) mod index;
pub(crate) mod terms;

pub(crate) use docs::{PageIndex, ProjectSearch, Units, doc_file};
pub(crate) use index::{IndexBuilder, Previous};

//! Readers of each client's transcripts: one adapter per client turns its
//! files into the [`crate::model`]. Claude Code's ([`claude`]) is the first.
//!
//! An adapter provides, for the files [`crate::discover`] classifies as its
//! client's:
//! - the header of each line ([`crate::model::Entry`]: uuid, parent,
//!   session, kind, tool ids, an excerpt, hashes) that the graph is built
//!   from, read in parallel and resumable from the parse cache;
//! - on demand, what an entry says ([`crate::model::Node`]), read again from
//!   the entry's bytes, so a project's memory is its headers and the pages
//!   in flight.

pub mod claude;
pub mod codex;
pub mod gemini;

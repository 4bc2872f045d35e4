//! cctree: a Claude Code transcript archive → one conversation DAG per project →
//! a static site, stats, invariant checks and resumable forks.
//!
//! The pipeline is a chain of plain-data stages:
//! [`discover`] (paths) → [`parse`] (entries) → [`graph`] (nodes, conversations,
//! branches, agents), held together per project as a [`project::Project`] →
//! [`render`] (pages) → [`build`] (the output directory, with the incremental
//! [`cache`]). Only `render` knows HTML; only `build` writes the site; only
//! [`run`](mod@run) knows the command line. [`sync`] keeps an append-only
//! archive of the transcripts that every command reads like
//! `~/.claude/projects`; [`export`] writes one conversation as one file. Every cap and threshold is in [`limits`];
//! files written whole (temporary file, fsync, rename) and paths compared are
//! in [`files`].
//!
//! "transcript-format §N" in the code is `docs/transcript-format.md`, the
//! repository's reference of what Claude Code writes (kept true by the
//! conformance suite against the real client, `tests/conformance/`).

pub mod agent;
pub mod browser;
pub mod build;
pub mod cache;
pub mod check;
pub mod cli;
pub mod cost;
pub mod digest;
pub mod discover;
pub mod driver;
pub mod export;
pub mod files;
pub mod fork;
pub mod graph;
pub mod id;
pub mod json;
pub mod layout;
pub mod limits;
pub mod model;
pub mod parse;
pub mod project;
pub mod recover;
pub mod redact;
pub mod render;
pub mod reuse;
pub mod run;
pub mod schedule;
pub mod select;
pub mod serve;
pub mod sqlite;
pub mod stats;
pub mod sync;
pub mod term;
pub mod texts;
pub mod timestamp;
pub mod walk;
pub mod warnings;

pub use run::{Status, run};

//! What to do with each file: pure decisions over what was observed.
//!
//! Nothing here touches the file system. [`decide`] takes what the file
//! system part saw of one source file and its archived copy and returns one
//! [`Action`]; [`gone`] and [`relocations`] compare the two trees; [`Tally`]
//! sums what was done. The unit tests below and the property test in
//! `tests/integration/sync.rs` drive these decisions.
//!
//! The rules (the archive never loses a byte it once held):
//! - a file the archive lacks is copied, a transcript up to the end of its
//!   last complete line (a torn last line waits for the next run);
//! - a file whose archived bytes are still the start of the source (same
//!   blake3 over the archived length) gets the source's new complete lines
//!   appended, nothing else;
//! - any other file was rewritten at the source (it shrank, or its start
//!   changed, or it has the same size and other bytes): its archived version
//!   is kept beside it under [`crate::layout::kept_name`], and the new one is
//!   copied;
//! - a file the source no longer has stays ([`gone`]);
//! - a file the agent has merged rather than kept in versions (the prompt
//!   history, which the client may prune or rewrite; a session file the
//!   client loads "last record wins": [`crate::agent::keep::Rewritten`]) is,
//!   when rewritten, merged into its archived copy by the agent's merge
//!   ([`decide_merged`], [`Action::Merge`]), so the one archived file holds
//!   everything ever seen.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

/// How a file's bytes are appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Content {
    /// A `.jsonl` transcript: only whole lines are copied.
    Transcript,
    /// Anything else (sidecars, tool results, file-history backups): all bytes.
    Side,
}

impl Content {
    /// The content kind of a file by its name.
    pub fn of(name: &str) -> Content {
        if name.ends_with(".jsonl") { Content::Transcript } else { Content::Side }
    }
}

/// What was seen of a source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceState {
    /// Its length when it was opened.
    pub len: u64,
    /// The end of its last complete line (`len` for a side file, or when the
    /// last byte is a newline).
    pub complete: u64,
    /// It has not been modified for [`super::TORN_TAIL_GRACE`]: an incomplete
    /// last line is final (the writer died) and is copied as it is.
    pub idle: bool,
}

/// What was seen of the archived copy of a source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchivedState {
    pub len: u64,
    /// blake3 of the archived bytes, hex.
    pub hash: String,
    /// The source is at least as long, and its first `len` bytes have the same blake3.
    pub source_prefix_matches: bool,
}

/// Everything [`decide`] needs about one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    pub content: Content,
    pub source: SourceState,
    pub archived: Option<ArchivedState>,
}

/// Why a file counts as rewritten at the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rewrite {
    /// The source is shorter than the archived copy.
    Shrank,
    /// The source's first bytes differ from the archived copy (same size included).
    Rewritten,
}

impl Rewrite {
    pub fn describe(self) -> &'static str {
        match self {
            Rewrite::Shrank => "shrank",
            Rewrite::Rewritten => "rewritten",
        }
    }
}

/// What to do with one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum Action {
    /// The archive has everything the source has.
    UpToDate,
    /// Only an incomplete last line is new: left for the next run.
    Wait { pending: u64 },
    /// A file the archive lacks: copy bytes `0..upto`.
    Copy { upto: u64 },
    /// Append the source's bytes `from..upto` (whole lines of a transcript).
    Append { from: u64, upto: u64 },
    /// Keep the archived version as `keep_as` (a file name in the same
    /// directory), then copy bytes `0..upto` of the source.
    Replace { keep_as: String, why: Rewrite, upto: u64 },
    /// A file the agent merges was rewritten: merge bytes `0..upto` of the
    /// source into the archived copy.
    Merge { upto: u64 },
}

/// Where the copy of a source file ends: after its last complete line, or at
/// its end for a side file or an idle transcript.
pub fn copy_end(content: Content, s: &SourceState) -> u64 {
    match content {
        Content::Side => s.len,
        Content::Transcript if s.idle => s.len,
        Content::Transcript => s.complete.min(s.len),
    }
}

/// The action for the file `name` (its file name, for the kept version's name).
pub fn decide(name: &str, obs: &Observation) -> Action {
    let upto = copy_end(obs.content, &obs.source);
    let Some(a) = &obs.archived else {
        return if upto == 0 && obs.source.len > 0 {
            Action::Wait { pending: obs.source.len }
        } else {
            Action::Copy { upto }
        };
    };
    if obs.source.len >= a.len && a.source_prefix_matches {
        return if upto > a.len {
            Action::Append { from: a.len, upto }
        } else if obs.source.len > a.len {
            Action::Wait { pending: obs.source.len - a.len }
        } else {
            Action::UpToDate
        };
    }
    let why = if obs.source.len < a.len { Rewrite::Shrank } else { Rewrite::Rewritten };
    Action::Replace { keep_as: crate::layout::kept_name(name, &a.hash), why, upto }
}

/// The action for a file the agent merges: as [`decide`], but a
/// rewritten file is merged into the archived one instead of kept in
/// versions.
pub fn decide_merged(name: &str, obs: &Observation) -> Action {
    match decide(name, obs) {
        Action::Replace { upto, .. } => Action::Merge { upto },
        other => other,
    }
}

/// Paths the archive holds live and the source no longer has.
pub fn gone<'a>(source: &'a BTreeSet<String>, archive_live: &'a BTreeSet<String>) -> Vec<&'a String> {
    archive_live.difference(source).collect()
}

/// Gone project files that the source now has in another project (the
/// client moved a session to a worktree's project directory and stamped it
/// `relocated`): `gone path → source path`. Paths are `<project>/<rest>`;
/// `<rest>` names the session (`<uuid>.jsonl`, `<uuid>/…`), which is unique.
pub fn relocations<'a>(gone: &[&'a String], source: &'a BTreeSet<String>) -> BTreeMap<&'a str, &'a str> {
    let split = |p: &'a str| p.split_once('/');
    let mut by_rest: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for p in source {
        if let Some((_, rest)) = split(p) {
            by_rest.entry(rest).or_default().push(p);
        }
    }
    let mut out = BTreeMap::new();
    for g in gone {
        let Some((project, rest)) = split(g) else { continue };
        if let Some(to) = by_rest.get(rest).and_then(|c| c.iter().find(|p| split(p).is_some_and(|(q, _)| q != project)))
        {
            out.insert(g.as_str(), *to);
        }
    }
    out
}

/// Lines (newlines) and bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Amount {
    pub files: u64,
    pub lines: u64,
    pub bytes: u64,
}

impl Amount {
    pub fn add(&mut self, lines: u64, bytes: u64) {
        self.files += 1;
        self.lines += lines;
        self.bytes += bytes;
    }
}

/// What a sync did (or, on a dry run, would do), summed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Files copied that the archive lacked.
    pub new: Amount,
    /// Files extended with new lines.
    pub grown: Amount,
    /// Files rewritten at the source: their archived version was kept, the new one copied.
    pub rewritten: Amount,
    /// Files whose only news is an incomplete last line.
    pub waiting: u64,
    /// Files compared and found complete.
    pub unchanged: u64,
}

impl Tally {
    /// Nothing was (or would be) written.
    pub fn is_noop(&self) -> bool {
        self.new.files == 0 && self.grown.files == 0 && self.rewritten.files == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(content: Content, len: u64, complete: u64, archived: Option<(u64, bool)>) -> Observation {
        Observation {
            content,
            source: SourceState { len, complete, idle: false },
            archived: archived.map(|(len, m)| ArchivedState {
                len,
                hash: "00112233445566778899aabbccddeeff".into(),
                source_prefix_matches: m,
            }),
        }
    }

    const T: Content = Content::Transcript;

    #[test]
    fn new_files_are_copied_up_to_the_last_complete_line() {
        assert_eq!(decide("s.jsonl", &obs(T, 30, 20, None)), Action::Copy { upto: 20 });
        assert_eq!(decide("s.jsonl", &obs(T, 0, 0, None)), Action::Copy { upto: 0 }, "an empty file is mirrored");
        assert_eq!(decide("s.jsonl", &obs(T, 9, 0, None)), Action::Wait { pending: 9 }, "only a torn line");
        assert_eq!(decide("x.txt", &obs(Content::Side, 9, 0, None)), Action::Copy { upto: 9 });
        let mut idle = obs(T, 9, 0, None);
        idle.source.idle = true;
        assert_eq!(decide("s.jsonl", &idle), Action::Copy { upto: 9 }, "a torn line left for long is final");
    }

    #[test]
    fn grown_files_get_their_new_complete_lines() {
        assert_eq!(decide("s.jsonl", &obs(T, 50, 40, Some((20, true)))), Action::Append { from: 20, upto: 40 });
        assert_eq!(decide("s.jsonl", &obs(T, 25, 20, Some((20, true)))), Action::Wait { pending: 5 });
        assert_eq!(decide("s.jsonl", &obs(T, 20, 20, Some((20, true)))), Action::UpToDate);
        // A sync killed in the middle of an append left part of a line: the rest follows.
        assert_eq!(decide("s.jsonl", &obs(T, 40, 40, Some((27, true)))), Action::Append { from: 27, upto: 40 });
        assert_eq!(decide("s.jsonl", &obs(T, 30, 20, Some((27, true)))), Action::Wait { pending: 3 });
    }

    #[test]
    fn rewritten_files_keep_their_archived_version() {
        let keep = "s.cctree-kept-0011223344556677.jsonl".to_string();
        assert_eq!(
            decide("s.jsonl", &obs(T, 10, 10, Some((20, false)))),
            Action::Replace { keep_as: keep.clone(), why: Rewrite::Shrank, upto: 10 }
        );
        assert_eq!(
            decide("s.jsonl", &obs(T, 20, 20, Some((20, false)))),
            Action::Replace { keep_as: keep.clone(), why: Rewrite::Rewritten, upto: 20 },
            "same size, other bytes"
        );
        assert_eq!(
            decide("s.jsonl", &obs(T, 90, 80, Some((20, false)))),
            Action::Replace { keep_as: keep, why: Rewrite::Rewritten, upto: 80 }
        );
    }

    #[test]
    fn a_rewritten_merged_file_is_merged_never_kept_in_versions() {
        assert_eq!(decide_merged("h.jsonl", &obs(T, 10, 10, Some((20, false)))), Action::Merge { upto: 10 });
        assert_eq!(decide_merged("h.jsonl", &obs(T, 50, 40, Some((20, true)))), Action::Append { from: 20, upto: 40 });
        assert_eq!(decide_merged("h.jsonl", &obs(T, 20, 20, Some((20, true)))), Action::UpToDate);
    }

    #[test]
    fn gone_and_relocated_files() {
        let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<String>>();
        let source = set(&["-a/1.jsonl", "-wt/2.jsonl", "-wt/2/subagents/agent-x.jsonl"]);
        let archive = set(&["-a/1.jsonl", "-a/2.jsonl", "-a/2/subagents/agent-x.jsonl", "-a/3.jsonl"]);
        let g = gone(&source, &archive);
        assert_eq!(g, ["-a/2.jsonl", "-a/2/subagents/agent-x.jsonl", "-a/3.jsonl"]);
        let moved = relocations(&g, &source);
        assert_eq!(
            moved.into_iter().collect::<Vec<_>>(),
            [("-a/2.jsonl", "-wt/2.jsonl"), ("-a/2/subagents/agent-x.jsonl", "-wt/2/subagents/agent-x.jsonl")]
        );
    }
}

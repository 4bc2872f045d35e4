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
//! - the prompt history (`history.jsonl`, one file of every prompt typed,
//!   which the client may prune or rewrite) is not kept in versions: when
//!   it was rewritten, its complete lines the archived copy lacks are added
//!   after the archived bytes ([`decide_history`], [`Action::Merge`]), so the
//!   one archived file holds every line ever seen, each once as often as the
//!   source held it;
//! - a Gemini CLI session file (`.jsonl`, read by the client "last record of
//!   an id wins") that was rewritten is not kept in versions either: the
//!   lines that make the archived file load as the source's current state
//!   are added after its bytes ([`decide_gemini`], [`gemini_missing`]), so
//!   every record ever seen stays in one file, a rewound one as an abandoned
//!   branch. An older single `.json` session file is kept in versions.

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
    /// The prompt history was rewritten: add the complete lines of bytes
    /// `0..upto` that the archived copy lacks after its bytes.
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

/// The action for the prompt history: as [`decide`], but a rewritten
/// history is merged into the archived one instead of kept in versions.
pub fn decide_history(obs: &Observation) -> Action {
    match decide(crate::history::FILE_NAME, obs) {
        Action::Replace { upto, .. } => Action::Merge { upto },
        other => other,
    }
}

/// The action for a file of Gemini CLI's tree: as [`decide`], but a
/// rewritten `.jsonl` session file is merged ([`gemini_missing`]).
pub fn decide_gemini(name: &str, obs: &Observation) -> Action {
    match decide(name, obs) {
        Action::Replace { upto, .. } if name.ends_with(".jsonl") => Action::Merge { upto },
        other => other,
    }
}

/// One message of a Gemini session as the client loads it.
struct GeminiMessage<'a> {
    id: String,
    value: serde_json::Value,
    /// The line that recorded it (`None`: it came in a `$set {messages}` list).
    line: Option<&'a [u8]>,
}

/// The message list a Gemini CLI session file loads as (the client's
/// `loadConversationRecord`): lines in order, unparsable ones skipped; a
/// record with a string `id` is put in an id-keyed list (a later one with the
/// same id replaces it in place); `$set {messages}` replaces the list;
/// `{"$rewindTo": id}` removes that id and every one after it (all when it is
/// unknown). Also returns the other lines (metadata, other `$set` keys).
fn gemini_replay(bytes: &[u8]) -> (Vec<GeminiMessage<'_>>, Vec<&[u8]>) {
    let mut list: Vec<GeminiMessage<'_>> = Vec::new();
    let mut at: BTreeMap<String, usize> = BTreeMap::new();
    let mut other = Vec::new();
    for line in bytes.split(|b| *b == b'\n') {
        let text = String::from_utf8_lossy(line);
        if text.trim().is_empty() {
            continue;
        }
        let Ok(serde_json::Value::Object(mut o)) = crate::json::parse(text.trim()) else { continue };
        if let Some(to) = o.get("$rewindTo") {
            let cut = to.as_str().and_then(|id| at.get(id).copied()).unwrap_or(0);
            for m in list.drain(cut..) {
                at.remove(&m.id);
            }
        } else if let Some(id) = o.get("id").and_then(|v| v.as_str()).map(str::to_string) {
            put(&mut list, &mut at, GeminiMessage { id, value: serde_json::Value::Object(o), line: Some(line) });
        } else if let Some(serde_json::Value::Array(msgs)) = o.get_mut("$set").and_then(|s| s.get_mut("messages")) {
            list.clear();
            at.clear();
            for v in std::mem::take(msgs) {
                if let Some(id) = v.get("id").and_then(|i| i.as_str()).map(str::to_string) {
                    put(&mut list, &mut at, GeminiMessage { id, value: v, line: None });
                }
            }
        } else {
            other.push(line);
        }
    }
    (list, other)
}

fn put<'a>(list: &mut Vec<GeminiMessage<'a>>, at: &mut BTreeMap<String, usize>, m: GeminiMessage<'a>) {
    match at.get(&m.id) {
        Some(&i) => list[i] = m,
        None => {
            at.insert(m.id.clone(), list.len());
            list.push(m);
        }
    }
}

/// What to add after the archived bytes of a Gemini CLI session file that
/// was rewritten at the source, so that the archived file still holds every
/// line it held and loads as the source does ([`gemini_replay`]):
/// 1. the source's metadata lines the archive lacks;
/// 2. each message the two lists share at the same place whose record
///    changed (the client replaces it in place);
/// 3. where the lists part, `{"$rewindTo": <the first archived message not
///    in the source's list>}` (the marker the client itself writes for a
///    rewind: the archived messages after it become an abandoned branch),
///    then the source's messages from there on.
///
/// Empty when the archived file already loads as the source. Lines are the
/// source's own, but for a message that only a `$set {messages}` list holds
/// (written as a record of its own).
pub fn gemini_missing(archived: &[u8], source: &[u8]) -> Vec<u8> {
    let (have, have_other) = gemini_replay(archived);
    let (want, want_other) = gemini_replay(source);
    let mut out = Vec::new();
    let mut push = |line: &[u8]| {
        out.extend_from_slice(line.strip_suffix(b"\r").unwrap_or(line));
        out.push(b'\n');
    };
    let known: BTreeSet<&[u8]> = have_other.iter().copied().collect();
    let changed_meta: Vec<&[u8]> = want_other.iter().copied().filter(|l| !known.contains(l)).collect();
    let record = |m: &GeminiMessage<'_>| -> Vec<u8> {
        m.line.map(<[u8]>::to_vec).unwrap_or_else(|| crate::json::write(&m.value).into_bytes())
    };
    let common = have.iter().zip(&want).take_while(|(a, b)| a.id == b.id).count();
    let mut body = Vec::new();
    for (a, b) in have.iter().zip(&want).take(common) {
        if a.value != b.value {
            body.push(record(b));
        }
    }
    let cut = common < have.len();
    if cut {
        body.push(crate::json::write(&serde_json::json!({ "$rewindTo": have[common].id })).into_bytes());
    }
    body.extend(want[common..].iter().map(record));
    if body.is_empty() && changed_meta.is_empty() {
        return Vec::new();
    }
    changed_meta.into_iter().for_each(&mut push);
    body.iter().for_each(|l| push(l));
    if !archived.is_empty() && !archived.ends_with(b"\n") {
        out.insert(0, b'\n');
    }
    out
}

/// The complete lines of `source` that `archived` lacks, in source order (a
/// line the source holds twice is added until the archive holds it twice),
/// each ending in a newline; an archived file whose last line is torn gets a
/// newline first. Empty when the archive holds every line.
pub fn missing_lines(archived: &[u8], source: &[u8]) -> Vec<u8> {
    let key = |l: &'_ [u8]| -> Vec<u8> { l.strip_suffix(b"\n").unwrap_or(l).to_vec() };
    let mut have: BTreeMap<Vec<u8>, usize> = BTreeMap::new();
    for l in archived.split_inclusive(|b| *b == b'\n') {
        *have.entry(key(l)).or_default() += 1;
    }
    let mut out = Vec::new();
    for l in source.split_inclusive(|b| *b == b'\n') {
        match have.get_mut(&key(l)) {
            Some(n) if *n > 0 => *n -= 1,
            _ => {
                out.extend_from_slice(l);
                if !l.ends_with(b"\n") {
                    out.push(b'\n');
                }
            }
        }
    }
    if !out.is_empty() && !archived.is_empty() && !archived.ends_with(b"\n") {
        out.insert(0, b'\n');
    }
    out
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
    fn a_rewritten_history_is_merged_never_kept_in_versions() {
        assert_eq!(decide_history(&obs(T, 10, 10, Some((20, false)))), Action::Merge { upto: 10 });
        assert_eq!(decide_history(&obs(T, 50, 40, Some((20, true)))), Action::Append { from: 20, upto: 40 });
        assert_eq!(decide_history(&obs(T, 20, 20, Some((20, true)))), Action::UpToDate);
        let m = |a: &str, s: &str| String::from_utf8(missing_lines(a.as_bytes(), s.as_bytes())).unwrap();
        assert_eq!(m("a\nb\nc\n", "b\nd\nc\ne\n"), "d\ne\n", "pruned and grown: only the new lines");
        assert_eq!(m("a\nb\n", "a\nb\n"), "");
        assert_eq!(m("a\n", "a\na\nb"), "a\nb\n", "a line held twice is kept twice; a torn idle line ends");
        assert_eq!(m("a\nto", "x\n"), "\nx\n", "never glued to a torn archived line");
        assert_eq!(m("", "x\n"), "x\n");
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

    #[test]
    fn a_rewritten_gemini_session_is_merged_to_load_as_the_source() {
        let r = |id: &str, t: &str| format!("{{\"id\":\"{id}\",\"type\":\"user\",\"content\":\"{t}\"}}\n");
        let meta = "{\"sessionId\":\"s\",\"projectHash\":\"h\"}\n";
        let archived = [meta, &r("u1", "a"), &r("g1", "b"), &r("u2", "c"), &r("g2", "d")].concat();
        let g = |a: &str, s: &str| String::from_utf8(gemini_missing(a.as_bytes(), s.as_bytes())).unwrap();
        // Grown only: nothing to merge beyond the new records.
        assert_eq!(g(&archived, &[archived.as_str(), &r("u3", "e")].concat()), r("u3", "e"));
        assert_eq!(g(&archived, &archived), "", "loads the same: nothing added");
        // Rewritten to a rewound state with a record changed in place.
        let source = [meta, &r("u1", "a"), &r("g1", "B"), &r("u3", "e")].concat();
        let add = g(&archived, &source);
        assert_eq!(add, [r("g1", "B"), "{\"$rewindTo\":\"u2\"}\n".into(), r("u3", "e")].concat());
        let ids = |b: &str| gemini_replay(b.as_bytes()).0.into_iter().map(|m| (m.id, m.value)).collect::<Vec<_>>();
        assert_eq!(ids(&[archived.as_str(), &add].concat()), ids(&source));
        // A message only a `$set {messages}` list holds is written as a record; a torn archived line is ended.
        let set =
            format!("{meta}{{\"$set\":{{\"messages\":[{{\"id\":\"u1\",\"type\":\"user\",\"content\":\"z\"}}]}}}}\n");
        assert_eq!(
            g("{\"id\":\"u1\",\"type\":\"user\",\"content\":\"a\"}", &set),
            format!("\n{meta}{{\"content\":\"z\",\"id\":\"u1\",\"type\":\"user\"}}\n")
        );
    }
}

//! Gemini CLI's own invariants (transcript-format, Appendix D), file by file,
//! replaying each file's message list as the client loads it:
//!
//! - `gemini-metadata-not-first`: a session file starts with its metadata
//!   line (`sessionId`, `projectHash`, `startTime`, `kind`);
//! - `gemini-rewind-to-unknown`: a `$rewindTo` names a message of the list
//!   as it stands there (else the client drops every message);
//! - `gemini-malformed-set`: a `$set` patch is an object, its `sessionId` a
//!   string, its `messages` a list of records with a string `id` and `type`;
//! - `gemini-duplicate-id`: an id names records of one `type` (a record of
//!   another type with the same id replaces it). A `$set.messages` list
//!   naming an id twice is not one: the pinned client writes such lists.

use rustc_hash::FxHashMap;
use serde_json::Value;

use crate::agent::check::{Finding, Rereader};
use crate::agent::gemini::{META, SET};
use crate::model::{Entry, Kind, Meta};
use crate::project::Project;

/// Gemini's invariants on every Gemini session file of `p`.
pub(super) fn check(p: &Project, out: &mut Vec<Finding>) {
    let all = p.entries.as_slice();
    let mut reader = Rereader::default();
    let mut start = 0;
    while start < all.len() {
        let index = all[start].loc.file;
        let end = start + all[start..].iter().take_while(|e| e.loc.file == index).count();
        if let Some(sf) = p.source.files.get(index) {
            let path = sf.path.display().to_string();
            let mut push =
                |kind, line, message| out.push(Finding { kind, file: path.clone(), line, uuid: None, message });
            file(p, &all[start..end], &mut reader, &mut push);
        }
        start = end;
    }
}

/// What a record's `type` was read as.
fn record_type(e: &Entry) -> &str {
    match e.kind {
        Kind::User => "user",
        Kind::Assistant => "gemini",
        _ => e.subtype.as_deref().unwrap_or(""),
    }
}

fn is_set(e: &Entry) -> bool {
    e.kind.name() == SET || matches!(e.meta, Some(Meta::Sequence { .. }))
}

fn file(p: &Project, es: &[Entry], reader: &mut Rereader, push: &mut impl FnMut(&'static str, u32, String)) {
    let Some(first) = es.first() else { return };
    if first.loc.line != 1 || first.kind.name() != META || first.message_id.is_some() {
        let found = if first.loc.line != 1 { "line 1 cannot be read" } else { "line 1 is not one" };
        let message = format!(
            "a session file starts with its metadata line (`sessionId`, `projectHash`, `startTime`, `kind`), \
             and {found}: the session's id, start and kind are read from the metadata lines"
        );
        push("gemini-metadata-not-first", first.loc.line, message);
    }
    let mut replay = Replay::default();
    for e in es {
        if e.message_id.is_some() && matches!(e.kind, Kind::User | Kind::Assistant | Kind::System) && !is_set(e) {
            replay.record(e, push);
        } else if matches!(e.meta, Some(Meta::Rewind { .. })) {
            replay.rewind(e, push);
        } else if is_set(e) {
            replay.set(e);
            if let Some(v) = reader.json(p, e)
                && let Some(why) = malformed_set(&v["$set"])
            {
                push("gemini-malformed-set", e.loc.line, format!("`$set` {why}"));
            }
        }
    }
}

/// A file's message list as the client holds it while it reads the file.
#[derive(Default)]
struct Replay<'e> {
    /// The ids in order, and where each is.
    list: Vec<&'e str>,
    at: FxHashMap<&'e str, usize>,
    /// Every id the file has listed, and where first (for a rewind to one already gone).
    listed: FxHashMap<&'e str, u32>,
    /// Each record id's first type, and where.
    types: FxHashMap<&'e str, (&'e str, u32)>,
}

impl<'e> Replay<'e> {
    fn put(&mut self, id: &'e str, line: u32) {
        if !self.at.contains_key(id) {
            self.at.insert(id, self.list.len());
            self.list.push(id);
        }
        self.listed.entry(id).or_insert(line);
    }

    fn clear(&mut self) {
        self.list.clear();
        self.at.clear();
    }

    /// A message record: put in the list (in place when its id is there).
    fn record(&mut self, e: &'e Entry, push: &mut impl FnMut(&'static str, u32, String)) {
        let (Some(id), line) = (e.message_id.as_deref(), e.loc.line) else { return };
        let ty = record_type(e);
        match self.types.get(id) {
            Some(&(was, first)) if was != ty => push(
                "gemini-duplicate-id",
                line,
                format!(
                    "id {id} names a `{was}` record (line {first}) and this `{ty}` record: the client replaces \
                     the first with this one in place"
                ),
            ),
            Some(_) => {}
            None => {
                self.types.insert(id, (ty, line));
            }
        }
        self.put(id, line);
    }

    /// `$rewindTo`: the named message and those after it dropped (all, when it is not listed).
    fn rewind(&mut self, e: &'e Entry, push: &mut impl FnMut(&'static str, u32, String)) {
        let to = match &e.meta {
            Some(Meta::Rewind { to }) => &**to,
            _ => "",
        };
        if let Some(keep) = self.at.get(to).copied() {
            for gone in self.list.drain(keep..) {
                self.at.remove(gone);
            }
            return;
        }
        let why = match self.listed.get(to) {
            _ if to.is_empty() => "names no message id (not a string)".to_string(),
            Some(l) => format!("names {to}, which line {l} listed but an earlier rewind or `$set` removed"),
            None => format!("names {to}, which no earlier line of the file lists"),
        };
        let message = format!("`$rewindTo` {why}: the client drops every message of the list");
        push("gemini-rewind-to-unknown", e.loc.line, message);
        self.clear();
    }

    /// `$set {messages}`: the list replaced (other `$set`s leave it). An id
    /// listed twice is no finding: the pinned client writes such lists itself
    /// (transcript-format, Appendix D); the list keeps it once.
    fn set(&mut self, e: &'e Entry) {
        let Some(Meta::Sequence { ids, .. }) = &e.meta else { return };
        self.clear();
        for (id, _) in ids {
            self.put(id, e.loc.line);
        }
    }
}

/// Why a `$set` patch is not one the client writes, if it is not.
fn malformed_set(set: &Value) -> Option<String> {
    let Some(o) = set.as_object() else {
        return Some(format!("is {}, not an object: nothing is read from it", kind_of(set)));
    };
    if let Some(s) = o.get("sessionId").filter(|s| !s.is_string()) {
        return Some(format!("sets `sessionId` to {}, not a string: the session keeps its id", kind_of(s)));
    }
    let messages = o.get("messages")?;
    let Some(list) = messages.as_array() else {
        return Some(format!(
            "sets `messages` to {}, not a list: the message list is left as it was",
            kind_of(messages)
        ));
    };
    let bad = list.iter().position(|m| !(m["id"].is_string() && m["type"].is_string()))?;
    Some(format!(
        "lists a message (number {}) without a string `id` and `type`: it is not read, the rest of the list is",
        bad + 1
    ))
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

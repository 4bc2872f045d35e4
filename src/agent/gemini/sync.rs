//! What `cctree sync` keeps of Gemini CLI (transcript-format, Appendix D):
//! of its `~/.gemini/tmp`, each project's `chats/`, `.project_root` and
//! prompt log (`logs.json`, merged element by element: it outlives the
//! chats the client's clean-up deletes), in `gemini/tmp/` beside the archive
//! (its checkpoints and shell history are not transcripts). A session file (`.jsonl`, read by the client "last
//! record of an id wins") that was rewritten at the source is not kept in
//! versions: the lines that make the archived file load as the source's
//! current state are added after its bytes ([`merge`], [`gemini_missing`]),
//! so every record ever seen stays in one file, a rewound one as an
//! abandoned branch. An older single `.json` session file is kept in
//! versions.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use crate::agent::keep::{At, Kept, KeptTree, Rewritten, Tree, folder_name};
use crate::model::ProjectSource;

/// The `tmp` folder, kept in `gemini/tmp/` beside the archive.
pub(super) const TMP: Tree = Tree::new("gemini", "gemini/tmp/");

/// Gemini CLI's trees, in the order the record lists them.
pub(super) const TREES: &[Tree] = &[TMP];

/// Where the archive `archive` (a projects directory) keeps the `tmp`
/// folder: `gemini/tmp/` beside it.
pub(super) fn synced_dir(archive: &Path) -> Option<PathBuf> {
    Some(archive.parent()?.join("gemini").join("tmp"))
}

/// What a sync of the `tmp` folder `dir` (or of one project folder
/// `tmp/<name>`, kept under its name) into the archive `archive` keeps.
pub(super) fn keep(dir: &Path, archive: &Path) -> Result<Kept> {
    let Some(to) = synced_dir(archive) else {
        bail!("the archive {} has no parent directory to keep Gemini CLI sessions in", archive.display());
    };
    let (archive, prefix) = match dir.join("chats").is_dir() {
        true => {
            let name = folder_name(dir);
            (to.join(&name), format!("{name}/"))
        }
        false => (to, String::new()),
    };
    let tree = KeptTree {
        tree: TMP,
        source: dir.to_path_buf(),
        archive,
        prefix,
        only: None,
        files: kept,
        rewritten,
        moves: false,
    };
    Ok(Kept { source: dir.to_path_buf(), trees: vec![tree], files: Vec::new(), report: Vec::new() })
}

/// Of `tmp/`, only each project's `chats/`, `.project_root` and prompt log
/// (`logs.json`) are kept.
fn kept(key: &str) -> bool {
    let mut parts = key.split('/');
    let (_, Some(second), third) = (parts.next(), parts.next(), parts.next()) else { return false };
    (second == "chats" && third.is_some())
        || ((second == ".project_root" || second == super::logs::FILE_NAME) && third.is_none())
}

/// A rewritten `.jsonl` session file is merged (the client's loader
/// replayed), the prompt log element by element
/// ([`crate::agent::keep::json_array`]: the client rewrites it whole at
/// each prompt); any other file is kept in versions.
fn rewritten(name: &str) -> Rewritten {
    if name == super::logs::FILE_NAME {
        Rewritten::Merged(crate::agent::keep::json_array)
    } else if name.ends_with(".jsonl") {
        Rewritten::Merged(merge)
    } else {
        Rewritten::Versions
    }
}

/// The merge of a rewritten session file: its archived bytes, then what
/// makes it load as the source ([`gemini_missing`]).
fn merge(archived: &[u8], source: &[u8]) -> Option<Vec<u8>> {
    let add = gemini_missing(archived, source);
    (!add.is_empty()).then(|| [archived, &add].concat())
}

/// A project of the archive names its files under its folder's name.
pub(super) fn kept_at(p: &ProjectSource) -> Vec<At> {
    let folder = p.dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    vec![At { tree: TMP, prefix: format!("{folder}/"), under: String::new() }]
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
pub(super) fn gemini_missing(archived: &[u8], source: &[u8]) -> Vec<u8> {
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

#[cfg(test)]
mod tests {
    use super::*;

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

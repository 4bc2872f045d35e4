//! What every agent's part of `cctree sync` shares: the trees of the sync
//! archive by the names its record gives them ([`Tree`]), what a sync of
//! an agent's folder keeps ([`Kept`]: the trees mirrored from it and where,
//! which of their files, how a file rewritten at the source is kept, the
//! single files merged beside them), where a project read from the archive
//! has its files in the record ([`At`]), and the merges an agent may name
//! ([`lines`], [`json_array`]). Each agent says what it keeps in its folder
//! (`sync.rs`, [`crate::agent::Agent::keep`]); the engine (`crate::sync`)
//! carries it out for every agent alike. No agent is named here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A tree of the sync archive (or a single file merged beside it), by the
/// name the archive's record (`.cctree-sync/record.json`) gives it. Each
/// agent declares its own ([`crate::agent::Agent::kept_trees`]); a name
/// is never another agent's, and never renamed (the records of existing
/// archives name their files by it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tree {
    name: &'static str,
    label: &'static str,
}

impl Tree {
    /// The tree named `name` in the record, whose paths the sync's report
    /// shows after `label` (`codex/sessions/`: where it is beside the
    /// archive; empty for the archive itself).
    pub const fn new(name: &'static str, label: &'static str) -> Tree {
        Tree { name, label }
    }

    /// Its name in the record.
    pub fn name(self) -> &'static str {
        self.name
    }

    /// What the sync's report puts before its paths.
    pub fn label(self) -> &'static str {
        self.label
    }

    /// Every agent's trees, in the order the record lists them: the
    /// registration's, then each agent's own.
    pub fn all() -> impl Iterator<Item = Tree> {
        crate::agent::ALL.iter().flat_map(|c| crate::agent::of(*c).kept_trees().iter().copied())
    }

    /// The tree a record names `name`, when an agent declares it.
    pub fn named(name: &str) -> Option<Tree> {
        Tree::all().find(|t| t.name == name)
    }

    /// Its place in [`Tree::all`].
    fn rank(self) -> usize {
        Tree::all().position(|t| t == self).unwrap_or(usize::MAX)
    }
}

impl PartialOrd for Tree {
    fn partial_cmp(&self, other: &Tree) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Tree {
    fn cmp(&self, other: &Tree) -> std::cmp::Ordering {
        (self.rank(), self.name).cmp(&(other.rank(), other.name))
    }
}

impl serde::Serialize for Tree {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name)
    }
}

impl<'de> serde::Deserialize<'de> for Tree {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Tree, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(d)?;
        Tree::named(&name).ok_or_else(|| {
            let known: Vec<&str> = Tree::all().map(Tree::name).collect();
            serde::de::Error::custom(format!("unknown tree `{name}` (known: {})", known.join(", ")))
        })
    }
}

/// How a file that was rewritten at the source (its archived bytes are no
/// longer the start of it) is kept; a file that only grew gets its new
/// bytes appended, whatever this says.
#[derive(Debug, Clone, Copy)]
pub enum Rewritten {
    /// The archived version is kept beside the new copy, under
    /// [`crate::layout::kept_name`] (a transcript: every version is read).
    Versions,
    /// The archived file is merged with the source, never kept in versions:
    /// the function gives the archived file's new content from its bytes
    /// and the source's (`None`: the archive already holds all the source
    /// holds). It must keep every byte of the archived file's meaning.
    Merged(Merge),
}

/// A merge (see [`Rewritten::Merged`]): `(archived, source) → new content`.
pub type Merge = fn(&[u8], &[u8]) -> Option<Vec<u8>>;

/// One tree a sync mirrors from an agent's folder into the archive.
#[derive(Debug, Clone)]
pub struct KeptTree {
    pub tree: Tree,
    /// The folder at the source.
    pub source: PathBuf,
    /// Where the archive keeps it.
    pub archive: PathBuf,
    /// Prepended to paths under `source` to make them paths of the tree
    /// (`<project>/` when one project folder of the tree is synced alone).
    pub prefix: String,
    /// Only these first path components (the sessions of one project).
    pub only: Option<BTreeSet<String>>,
    /// Which files are kept, by their path in the tree (prefix included).
    pub files: fn(&str) -> bool,
    /// How a file rewritten at the source is kept, by its file name.
    pub rewritten: fn(&str) -> Rewritten,
    /// The client moves a session's files to another project folder of the
    /// tree (`<project>/<rest>`, `<rest>` naming the session): a file gone
    /// from one project and found under another is moved, not deleted.
    pub moves: bool,
}

/// One file a sync keeps beside the archive, merged (the prompt history,
/// an index of names): its path in the tree `tree` is its file name.
#[derive(Debug, Clone)]
pub struct KeptFile {
    pub tree: Tree,
    pub source: PathBuf,
    pub archive: PathBuf,
    pub rewritten: Rewritten,
}

/// What a sync of one agent's folder keeps.
#[derive(Debug, Clone)]
pub struct Kept {
    /// The folder kept, as the report names it (the folder the agent reads:
    /// Claude Code's configuration directory stands for its `projects/`).
    pub source: PathBuf,
    pub trees: Vec<KeptTree>,
    pub files: Vec<KeptFile>,
    /// What the sync's report (`--json`) says of the folder when it is the
    /// sync's source: its keys, and where each is kept (`None`: the source
    /// has none).
    pub report: Vec<(&'static str, Option<PathBuf>)>,
}

/// Where the record names files of a project read from the archive: a file
/// `<under><x>` of the project (its [`crate::model::SourceFile::rel`]) is
/// `<prefix><x>` in `tree`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct At {
    pub tree: Tree,
    pub prefix: String,
    /// The start of the project's names for the files of `tree` (empty when
    /// they are named as in the tree).
    pub under: String,
}

/// The name a folder is kept under in its tree when it is synced alone
/// (one project folder): its own name, links resolved.
pub fn folder_name(dir: &Path) -> String {
    let abs = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    abs.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "project".into())
}

/// The merge of a file of lines kept whole (the prompt history, an index
/// of names), which the client may prune or rewrite: the archived bytes,
/// then the complete lines of the source they lack ([`missing_lines`]).
pub fn lines(archived: &[u8], source: &[u8]) -> Option<Vec<u8>> {
    let add = missing_lines(archived, source);
    (!add.is_empty()).then(|| [archived, &add].concat())
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

/// The elements of a JSON array written whole (`[ … ]`): the byte span of
/// each, in order, and where the scan stopped short, if it did (a file cut
/// by a writer, or not an array). One pass, no recursion (an element of any
/// depth costs no stack); an element's own syntax is not checked here.
pub fn array_elements(b: &[u8]) -> (Vec<(usize, usize)>, Option<usize>) {
    let mut out = Vec::new();
    let mut i = ws(b, if b.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 });
    if b.get(i) != Some(&b'[') {
        return (out, Some(i));
    }
    i = ws(b, i + 1);
    if b.get(i) == Some(&b']') {
        return (out, None);
    }
    loop {
        let Some(end) = value_end(b, i) else { return (out, Some(i)) };
        out.push((i, end));
        i = ws(b, end);
        match b.get(i) {
            Some(b',') => i = ws(b, i + 1),
            Some(b']') => return (out, None),
            _ => return (out, Some(i)),
        }
    }
}

/// The merge of a JSON array the client rewrites whole at each change, one
/// element per record (Gemini CLI's prompt log, `logs.json`): the archived
/// elements, then the source's elements the archive lacks (compared as
/// JSON values; an element the source holds twice is added until the
/// archive holds it twice), written as the client writes the array
/// (`JSON.stringify(list, null, 2)`: each element's own text, two spaces
/// in). When nothing of the archive would be lost, the new content is the
/// source itself (a log that only grew is copied as it is).
pub fn json_array(archived: &[u8], source: &[u8]) -> Option<Vec<u8>> {
    let (have, _) = array_elements(archived);
    let (want, cut) = array_elements(source);
    let value = |b: &[u8], (s, e): (usize, usize)| -> Result<serde_json::Value, Vec<u8>> {
        crate::json::parse(&String::from_utf8_lossy(&b[s..e])).map_err(|_| b[s..e].to_vec())
    };
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    let key = |v: Result<serde_json::Value, Vec<u8>>| match v {
        Ok(v) => format!("v{}", crate::json::write(&v)),
        Err(raw) => format!("r{}", String::from_utf8_lossy(&raw)),
    };
    for span in &have {
        *count.entry(key(value(archived, *span))).or_default() += 1;
    }
    let mut missing = Vec::new();
    let mut kept_all = true;
    for span in &want {
        match count.get_mut(&key(value(source, *span))) {
            Some(n) if *n > 0 => *n -= 1,
            _ => missing.push(*span),
        }
    }
    if count.values().any(|n| *n > 0) {
        kept_all = false;
    }
    if missing.is_empty() {
        // Everything the source holds is archived already.
        return None;
    }
    if kept_all && cut.is_none() {
        return Some(source.to_vec());
    }
    let mut out = b"[".to_vec();
    let parts = have.iter().map(|s| (archived, *s)).chain(missing.iter().map(|s| (source, *s)));
    for (i, (b, (s, e))) in parts.enumerate() {
        out.extend_from_slice(if i == 0 { b"\n  " } else { b",\n  " });
        out.extend_from_slice(&b[s..e]);
    }
    out.extend_from_slice(b"\n]");
    Some(out)
}

/// The first byte at or after `i` that is not JSON whitespace.
fn ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The end (exclusive) of the string starting at `b[i] == '"'`.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        let k = j + memchr::memchr2(b'"', b'\\', b.get(j..)?)?;
        if b[k] == b'"' {
            return Some(k + 1);
        }
        j = k + 2;
    }
}

/// The end (exclusive) of the value starting at `i`, at any depth (a count,
/// not a recursion).
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = i;
    loop {
        match *b.get(j)? {
            b'"' => j = string_end(b, j)?,
            b'{' | b'[' => {
                depth += 1;
                j += 1;
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                j += 1;
            }
            _ if depth == 0 => {
                let n = b[j..].iter().position(|c| matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'));
                return Some(n.map_or(b.len(), |n| j + n)).filter(|&e| e > i);
            }
            _ => j += 1,
        }
        if depth == 0 {
            return Some(j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_names_are_each_agents_own_and_the_records_of_existing_archives_still_name_them() {
        let names: Vec<&str> = Tree::all().map(Tree::name).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "no two agents name a tree alike: {names:?}");
        // The names archives written before the agent seam use.
        for old in ["projects", "file-history", "history", "codex", "gemini", "codex-index"] {
            let t = Tree::named(old).unwrap_or_else(|| panic!("{old} is no tree any more"));
            assert_eq!(serde_json::to_string(&t).unwrap(), format!("\"{old}\""));
            assert_eq!(serde_json::from_str::<Tree>(&format!("\"{old}\"")).unwrap(), t);
        }
        assert!(serde_json::from_str::<Tree>("\"nope\"").is_err());
        let order = |a: &str, b: &str| Tree::named(a).unwrap() < Tree::named(b).unwrap();
        assert!(order("projects", "file-history") && order("file-history", "codex") && order("codex", "gemini"));
    }

    #[test]
    fn a_rewritten_file_of_lines_gets_only_the_lines_it_lacks() {
        let m = |a: &str, s: &str| String::from_utf8(missing_lines(a.as_bytes(), s.as_bytes())).unwrap();
        assert_eq!(m("a\nb\nc\n", "b\nd\nc\ne\n"), "d\ne\n", "pruned and grown: only the new lines");
        assert_eq!(m("a\nb\n", "a\nb\n"), "");
        assert_eq!(m("a\n", "a\na\nb"), "a\nb\n", "a line held twice is kept twice; a torn idle line ends");
        assert_eq!(m("a\nto", "x\n"), "\nx\n", "never glued to a torn archived line");
        assert_eq!(m("", "x\n"), "x\n");
        assert_eq!(lines(b"a\n", b"a\n"), None);
        assert_eq!(lines(b"a\n", b"b\n").as_deref(), Some(&b"a\nb\n"[..]));
    }

    fn entry(n: u32, text: &str) -> String {
        format!(
            "{{\n    \"sessionId\": \"s\",\n    \"messageId\": {n},\n    \"type\": \"user\",\n    \"message\": \"{text}\"\n  }}"
        )
    }

    fn array(items: &[&str]) -> String {
        match items {
            [] => "[]".to_string(),
            _ => format!("[\n  {}\n]", items.join(",\n  ")),
        }
    }

    #[test]
    fn a_rewritten_json_array_keeps_every_element_it_ever_held() {
        let (a, b, c) = (entry(0, "one"), entry(1, "two [x]"), entry(2, "three, {four}"));
        let (a, b, c) = (a.as_str(), b.as_str(), c.as_str());
        let j = |x: &str, y: &str| json_array(x.as_bytes(), y.as_bytes()).map(|v| String::from_utf8(v).unwrap());
        // Grown: the source itself, byte for byte.
        assert_eq!(j(&array(&[a]), &array(&[a, b])), Some(array(&[a, b])));
        assert_eq!(j(&array(&[a, b]), &array(&[a, b])), None, "nothing new");
        // Pruned (or started afresh) and grown: the archived elements stay, the new one follows.
        assert_eq!(j(&array(&[a, b]), &array(&[c])), Some(array(&[a, b, c])));
        assert_eq!(j(&array(&[a, b]), "[]"), None, "an emptied log takes nothing away");
        // Compared as values: other whitespace is the same element.
        let compact = "[{\"sessionId\":\"s\",\"messageId\":0,\"type\":\"user\",\"message\":\"one\"}]";
        assert_eq!(j(&array(&[a]), compact), None);
        // A source cut short by its writer: its whole elements are merged, the archive written whole.
        let torn = format!("[\n  {a},\n  {c},\n  {{\"sessionId\": \"s\", \"mess");
        assert_eq!(j(&array(&[a]), &torn), Some(array(&[a, c])));
        // A torn archived copy (a first sync during a write) is mended by the next one.
        assert_eq!(j(&torn, &array(&[a, c, b])), Some(array(&[a, c, b])));
        assert_eq!(j("", &array(&[a])), Some(array(&[a])));
    }

    #[test]
    fn array_elements_cost_no_stack_and_stop_where_the_array_does() {
        let deep = format!("[{}{}, 1]", "[".repeat(200_000), "]".repeat(200_000));
        let (els, cut) = array_elements(deep.as_bytes());
        assert_eq!((els.len(), cut), (2, None));
        assert_eq!(array_elements(b"{}"), (Vec::new(), Some(0)));
        assert_eq!(array_elements(b"[1, \"a,]\"").0, [(1, 2), (4, 9)]);
        assert_eq!(array_elements(b"[1, \"a").1, Some(4));
    }
}

//! Version drift: keys an older entry lacks compared with the entries the
//! newest Claude Code version in the archive writes, and the append-only
//! backfill of those keys with neutral defaults.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

use rayon::prelude::*;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};

/// A key `--backfill` may add, and the neutral default it gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackfillKey {
    pub key: &'static str,
    /// The default as JSON text.
    pub default: &'static str,
    /// Entry types it applies to.
    pub types: &'static [&'static str],
    /// Where the key and the default come from (docs/transcript-format.md).
    pub source: &'static str,
}

const NODES: &[&str] = &["user", "assistant", "system", "attachment", "progress"];

/// The keys `--backfill` adds to older entries, with neutral defaults: the
/// value Claude Code writes when the feature behind the key is not in use.
/// Keys lacking but absent from this table (ids such as `requestId`,
/// `promptId`, `slug`) are reported and never invented.
pub const BACKFILL_KEYS: &[BackfillKey] = &[
    BackfillKey {
        key: "isSidechain",
        default: "false",
        types: NODES,
        source: "§3.1 envelope (1.0.x on, §7); main-thread entries are false",
    },
    BackfillKey {
        key: "userType",
        default: "\"external\"",
        types: NODES,
        source: "§3.1: \"external\" on all 101,197 public entries checked",
    },
    BackfillKey {
        key: "gitBranch",
        default: "\"\"",
        types: NODES,
        source: "§3.1: possibly \"\"; missing on some 1.0.x entries (§7)",
    },
    BackfillKey {
        key: "entrypoint",
        default: "\"cli\"",
        types: NODES,
        source: "§3.1: 2.1.81+, observed cli, claude-vscode, claude-desktop, sdk-ts; cli is the plain terminal",
    },
    BackfillKey {
        key: "isMeta",
        default: "false",
        types: &["user", "system"],
        source: "§2.1, §3.2: optional flag of injected text; absent means false",
    },
    BackfillKey {
        key: "permissionMode",
        default: "\"default\"",
        types: &["user"],
        source: "§3.2: 2.1.7+; §2.4 observed \"default\"",
    },
    BackfillKey {
        key: "isApiErrorMessage",
        default: "false",
        types: &["assistant"],
        source: "§3.3: optional error flag; absent means false",
    },
    BackfillKey {
        key: "isCompactSummary",
        default: "false",
        types: &["user"],
        source: "§3.2, §5.7: set only on the compaction summary",
    },
    BackfillKey {
        key: "isVisibleInTranscriptOnly",
        default: "false",
        types: &["user"],
        source: "§3.2, §5.7: set only on the compaction summary",
    },
];

/// The table entry for a key of an entry type.
pub fn backfill_default(ty: &str, key: &str) -> Option<&'static BackfillKey> {
    BACKFILL_KEYS.iter().find(|b| b.key == key && b.types.contains(&ty))
}

/// A dotted version, compared numerically (`2.1.9` < `2.1.10`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(Vec<u64>, String);

impl Version {
    pub fn parse(s: &str) -> Option<Version> {
        let parts: Vec<u64> = s
            .split('.')
            .map(|p| {
                let digits: String = p.chars().take_while(char::is_ascii_digit).collect();
                digits.parse().ok()
            })
            .collect::<Option<_>>()?;
        (!parts.is_empty()).then(|| Version(parts, s.to_string()))
    }
    pub fn as_str(&self) -> &str {
        &self.1
    }
}

/// The top-level keys of a JSON line, with its `type` and `version`.
#[derive(Debug, Default, Clone)]
pub struct Head {
    pub keys: Vec<String>,
    pub ty: Option<String>,
    pub subtype: Option<String>,
    pub version: Option<String>,
}

impl<'de> serde::Deserialize<'de> for Head {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Head;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Head, A::Error> {
                let mut h = Head::default();
                while let Some(k) = m.next_key::<std::borrow::Cow<'de, str>>()? {
                    match &*k {
                        "type" | "version" | "subtype" => {
                            let v: serde_json::Value = m.next_value()?;
                            if let Some(s) = v.as_str() {
                                let s = Some(s.to_string());
                                match &*k {
                                    "type" => h.ty = s,
                                    "version" => h.version = s,
                                    _ => h.subtype = s,
                                }
                            }
                        }
                        _ => {
                            m.next_value::<IgnoredAny>()?;
                        }
                    }
                    h.keys.push(k.into_owned());
                }
                Ok(h)
            }
        }
        d.deserialize_map(V)
    }
}

impl Head {
    pub fn of(line: &[u8]) -> Option<Head> {
        serde_json::from_slice(line).ok()
    }

    /// The group whose key sets are compared: the `type`, and for `system`
    /// entries the subtype too (`system/turn_duration` carries `durationMs`,
    /// `system/compact_boundary` does not).
    pub fn group(&self) -> Option<String> {
        let ty = self.ty.as_deref()?;
        Some(match (ty, self.subtype.as_deref()) {
            ("system", Some(st)) => format!("system/{st}"),
            _ => ty.to_string(),
        })
    }
}

/// The entry type of a group (`system/turn_duration` → `system`).
fn base_type(group: &str) -> &str {
    group.split('/').next().unwrap_or(group)
}

/// What the newest Claude Code version of an archive writes.
#[derive(Debug, Clone, Default)]
pub struct Reference {
    pub newest: Option<Version>,
    /// Entry group ([`Head::group`]) → the keys every entry of that group by the
    /// newest version carries.
    pub keys: BTreeMap<String, BTreeSet<String>>,
    /// Main transcript files read.
    pub files: usize,
}

impl Reference {
    /// Reads the main transcripts (`<project>/<session>.jsonl`) of every
    /// project directory given, in parallel.
    pub fn scan(project_dirs: &[std::path::PathBuf]) -> Reference {
        let files: Vec<std::path::PathBuf> = project_dirs
            .iter()
            .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
            .map(|e| e.path())
            .filter(|p| {
                p.extension().is_some_and(|x| x == "jsonl")
                    && p.is_file()
                    && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("agent-"))
            })
            .collect();
        let per_file: Vec<Reference> = files.par_iter().map(|f| scan_file(f)).collect();
        let mut out = Reference { files: files.len(), ..Reference::default() };
        for r in per_file {
            out.merge(r);
        }
        out
    }

    /// Adds the entries of one line.
    pub fn add(&mut self, h: &Head) {
        let (Some(ty), Some(v)) = (h.group(), h.version.as_deref().and_then(Version::parse)) else {
            return;
        };
        match self.newest.as_ref().map(|n| v.cmp(n)) {
            Some(std::cmp::Ordering::Less) => return,
            Some(std::cmp::Ordering::Greater) | None => {
                self.newest = Some(v);
                self.keys.clear();
            }
            Some(std::cmp::Ordering::Equal) => {}
        }
        let keys: BTreeSet<String> = h.keys.iter().cloned().collect();
        match self.keys.get_mut(&ty) {
            Some(set) => set.retain(|k| keys.contains(k)),
            None => {
                self.keys.insert(ty, keys);
            }
        }
    }

    fn merge(&mut self, o: Reference) {
        let Some(v) = o.newest else { return };
        match self.newest.as_ref().map(|n| v.cmp(n)) {
            Some(std::cmp::Ordering::Less) => {}
            Some(std::cmp::Ordering::Greater) | None => {
                self.newest = Some(v);
                self.keys = o.keys;
            }
            Some(std::cmp::Ordering::Equal) => {
                for (ty, keys) in o.keys {
                    match self.keys.get_mut(&ty) {
                        Some(set) => set.retain(|k| keys.contains(k)),
                        None => {
                            self.keys.insert(ty, keys);
                        }
                    }
                }
            }
        }
    }

    /// The keys an entry of group `group` (see [`Head::group`]) must carry
    /// after `--backfill`: the reference keys that have a neutral default.
    pub fn target_keys(&self, group: &str) -> Vec<&str> {
        self.keys.get(group).map_or_else(Vec::new, |ks| {
            ks.iter().filter(|k| backfill_default(base_type(group), k).is_some()).map(String::as_str).collect()
        })
    }
}

fn scan_file(path: &Path) -> Reference {
    let mut r = Reference::default();
    let Ok(bytes) = std::fs::read(path) else {
        return r;
    };
    for line in bytes.split(|b| *b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if let Some(h) = Head::of(line) {
            r.add(&h);
        }
    }
    r
}

/// The drift of one copied entry.
#[derive(Debug, Clone, serde::Serialize, PartialEq, Eq)]
pub struct EntryDrift {
    pub uuid: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub version: Option<String>,
    /// Keys the newest version's entries of this type all carry and this one lacks.
    pub lacking: Vec<String>,
    /// The lacking keys `--backfill` adds (or would add).
    pub added: Vec<String>,
}

/// Compares one line with the reference. `None` when the line is by the
/// newest version (or newer), or lacks nothing.
pub fn entry_drift(reference: &Reference, uuid: &str, line: &[u8]) -> Option<EntryDrift> {
    let newest = reference.newest.as_ref()?;
    let h = Head::of(line)?;
    let group = h.group()?;
    let ty = h.ty.clone()?;
    let v = h.version.as_deref().and_then(Version::parse);
    if v.as_ref().is_some_and(|v| v >= newest) {
        return None;
    }
    let want = reference.keys.get(&group)?;
    let have: BTreeSet<&str> = h.keys.iter().map(String::as_str).collect();
    let lacking: Vec<String> = want.iter().filter(|k| !have.contains(k.as_str())).cloned().collect();
    if lacking.is_empty() {
        return None;
    }
    let added = lacking.iter().filter(|k| backfill_default(&ty, k).is_some()).cloned().collect();
    Some(EntryDrift { uuid: uuid.to_string(), ty, version: h.version, lacking, added })
}

/// The line with `keys` appended before its closing brace: every existing
/// byte stays, in order. `None` if the line does not end with `}`.
pub fn backfill_line(line: &[u8], ty: &str, keys: &[String]) -> Option<Vec<u8>> {
    let end = line.iter().rposition(|b| !b.is_ascii_whitespace())?;
    if line[end] != b'}' {
        return None;
    }
    let before = line[..end].iter().rposition(|b| !b.is_ascii_whitespace()).map(|i| line[i]);
    let mut out = Vec::with_capacity(line.len() + 32 * keys.len());
    out.extend_from_slice(&line[..end]);
    let mut first = before == Some(b'{');
    for k in keys {
        let Some(b) = backfill_default(ty, k) else {
            continue;
        };
        if !first {
            out.push(b',');
        }
        first = false;
        out.extend_from_slice(serde_json::to_string(k).ok()?.as_bytes());
        out.push(b':');
        out.extend_from_slice(b.default.as_bytes());
    }
    out.extend_from_slice(&line[end..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_numerically() {
        assert!(Version::parse("2.1.9").unwrap() < Version::parse("2.1.10").unwrap());
        assert!(Version::parse("1.0.128").unwrap() < Version::parse("2.0.0").unwrap());
        assert!(Version::parse("x").is_none());
    }

    #[test]
    fn backfill_keeps_every_byte() {
        let line = br#"{"type":"user","uuid":"u"}"#;
        let out = backfill_line(line, "user", &["userType".into(), "isMeta".into()]).unwrap();
        assert_eq!(
            std::str::from_utf8(&out).unwrap(),
            r#"{"type":"user","uuid":"u","userType":"external","isMeta":false}"#
        );
        assert!(out.starts_with(&line[..line.len() - 1]));
        assert_eq!(backfill_line(b"{}", "user", &["isMeta".into()]).unwrap(), br#"{"isMeta":false}"#);
    }

    #[test]
    fn every_default_is_json() {
        for b in BACKFILL_KEYS {
            serde_json::from_str::<serde_json::Value>(b.default).unwrap();
        }
    }

    #[test]
    fn reference_intersects_newest() {
        let mut r = Reference::default();
        for l in [
            r#"{"type":"user","version":"2.0.1","a":1}"#,
            r#"{"type":"user","version":"2.1.0","a":1,"b":2}"#,
            r#"{"type":"user","version":"2.1.0","b":2,"c":3}"#,
        ] {
            r.add(&Head::of(l.as_bytes()).unwrap());
        }
        assert_eq!(r.newest.as_ref().unwrap().as_str(), "2.1.0");
        let ks: Vec<&String> = r.keys["user"].iter().collect();
        assert_eq!(ks, ["b", "type", "version"]);
    }
}

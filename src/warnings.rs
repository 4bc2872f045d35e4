//! Warnings about the input: a file that could not be read, a line that could
//! not be read (or was read after a repair), an entry type cctree does not
//! know. Each names where (a file of the project and its line) and why; every
//! one is printed, and the render's summary counts exactly what was printed.
//!
//! Entries that are odd but understood (an empty image, a side entry with no
//! reply) are not warnings: the pages show them as they are.
//!
//! A flood of one kind about one file (a file that is mostly not JSON) is
//! listed up to [`LIKE_WARNINGS`] lines, the rest in one more warning that
//! counts them and names their lines' range: what is printed is what is counted.
//!
//! A warning keeps its file relative to the project directory, so the render
//! cache can carry it without the input's absolute path.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::limits::LIKE_WARNINGS;
use crate::model::FileId;
use crate::model::{Kind, Loc};
use crate::project::Project;

/// One warning about a project's input.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Warning {
    /// The file, relative to the project directory (`/` separators).
    pub file: String,
    /// Its line, from 1 (0: the file as a whole).
    pub line: u32,
    /// What is wrong and what became of it.
    pub why: String,
}

impl Warning {
    /// `path:line: why`, the path under the project directory `dir` as the
    /// user named it.
    pub fn show(&self, dir: &Path) -> String {
        let path = dir.join(&self.file);
        match self.line {
            0 => format!("{}: {}", path.display(), self.why),
            n => format!("{}:{n}: {}", path.display(), self.why),
        }
    }
}

/// Every warning about a project's files, in file and line order: files that
/// could not be read, lines that could not be read or were repaired, and each
/// unknown entry type once (at its first entry, with how many there are).
pub fn of_project(p: &Project) -> Vec<Warning> {
    let rel = |file: FileId| p.source.files.get(file).map_or_else(|| "?".to_string(), |f| f.rel.clone());
    let at = |loc: Loc, why: String| Warning { file: rel(loc.file), line: loc.line, why };
    let mut out = Vec::new();
    for (s, (i, f)) in p.file_stats.iter().zip(p.source.files.iter_enumerated()) {
        if let Some(msg) = &s.read_error {
            let prefix = format!("cannot read {}: ", f.path.display());
            let why = msg.strip_prefix(&prefix).map_or_else(|| msg.clone(), |e| format!("cannot read the file: {e}"));
            out.push(Warning { file: rel(i), line: 0, why });
        }
    }
    out.extend(capped(&p.warnings, |w| at(w.loc, w.problem.to_string()), &rel));
    let mut unknown: std::collections::BTreeMap<&str, (Loc, usize)> = Default::default();
    for e in &p.entries {
        if let Kind::Unknown(t) = &e.kind {
            let slot = unknown.entry(t).or_insert((e.loc, 0));
            slot.0 = slot.0.min(e.loc);
            slot.1 += 1;
        }
    }
    for (t, (loc, n)) in unknown {
        let entries = if n == 1 {
            "1 entry, kept and shown as it is".into()
        } else {
            format!("{n} entries, kept and shown as they are")
        };
        out.push(at(loc, format!("unknown entry type {t:?} ({entries})")));
    }
    out.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    out
}

/// The line warnings of a project, at most [`LIKE_WARNINGS`] of one kind
/// per file; past that, one warning at the first line left out counts the
/// rest and says where they end.
fn capped<'w>(
    all: &'w [crate::parse::LineWarning],
    show: impl Fn(&crate::parse::LineWarning) -> Warning + 'w,
    rel: &impl Fn(FileId) -> String,
) -> Vec<Warning> {
    let kind = |w: &crate::parse::LineWarning| std::mem::discriminant(&w.problem);
    let mut seen: std::collections::HashMap<(FileId, std::mem::Discriminant<_>), (usize, Loc, u32)> =
        Default::default();
    let mut out = Vec::new();
    for w in all {
        let slot = seen.entry((w.loc.file, kind(w))).or_insert((0, w.loc, w.loc.line));
        slot.0 += 1;
        match slot.0 {
            n if n <= LIKE_WARNINGS => out.push(show(w)),
            n if n == LIKE_WARNINGS + 1 => slot.1 = w.loc,
            _ => {}
        }
        slot.2 = slot.2.max(w.loc.line);
    }
    let mut more: Vec<_> = seen.into_values().filter(|(n, ..)| *n > LIKE_WARNINGS).collect();
    more.sort_by_key(|(_, loc, _)| *loc);
    for (n, loc, last) in more {
        let like = all.iter().find(|w| w.loc == loc).map(|w| w.problem.to_string()).unwrap_or_default();
        let kind = like.split(':').next().unwrap_or_default();
        out.push(Warning {
            file: rel(loc.file),
            line: loc.line,
            why: format!("and {} more lines like the above, to line {last} ({kind})", n - LIKE_WARNINGS),
        });
    }
    out
}

//! Warnings about the input: a file that could not be read, a line that could
//! not be read (or was read after a repair), an entry type cctree does not
//! know. Each names where (a file of the project and its line) and why; every
//! one is printed, and the render's summary counts exactly what was printed.
//!
//! Entries that are odd but understood (an empty image, a side entry with no
//! reply) are not warnings: the pages show them as they are.
//!
//! A warning keeps its file relative to the project directory, so the render
//! cache can carry it without the input's absolute path.

use std::path::Path;

use serde::{Deserialize, Serialize};

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
    out.extend(p.warnings.iter().map(|w| at(w.loc, w.problem.to_string())));
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

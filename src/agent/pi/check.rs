//! Pi's own invariants (transcript-format, Appendix E), beyond those of
//! every project (P1–P3: conflicting copies of an id, a parent no entry of
//! the file has, cycles — the link scopes ids to their file, so a parent
//! must resolve in it):
//!
//! - `pi-header-not-first`: the first line of a session file is its
//!   `session` header (the client lists no other file as a session);
//! - `pi-second-header`: a file holds one `session` header;
//! - `pi-old-version`: the header's version is 3 (the client migrates an
//!   older file and rewrites it in place when it loads it).

use super::header::SESSION;
use crate::agent::check::Finding;
use crate::model::Kind;
use crate::project::Project;

pub(super) const KINDS: &[&str] = &["pi-header-not-first", "pi-second-header", "pi-old-version"];

/// Pi's invariants on every file of `p`.
pub(super) fn check(p: &Project, out: &mut Vec<Finding>) {
    let all = p.entries.as_slice();
    let mut start = 0;
    while start < all.len() {
        let index = all[start].loc.file;
        let end = start + all[start..].iter().take_while(|e| e.loc.file == index).count();
        let file = p.source.files.get(index).map_or_else(String::new, |f| f.path.display().to_string());
        let mut find = |kind: &'static str, line: u32, message: String| {
            out.push(Finding { kind, file: file.clone(), line, uuid: None, message });
        };
        let es = &all[start..end];
        let is_head = |e: &&crate::model::Entry| e.kind == Kind::KnownMeta(SESSION.into());
        match es.first() {
            Some(first) if !is_head(&first) => find(
                "pi-header-not-first",
                first.loc.line,
                "the first line is not a `session` header: Pi lists no such file as a session".into(),
            ),
            _ => {}
        }
        for e in es.iter().filter(is_head).skip(1) {
            find("pi-second-header", e.loc.line, "a second `session` header in one file".into());
        }
        if let Some(h) = es.iter().find(is_head) {
            if h.version.as_deref() != Some("3") {
                let v = h.version.as_deref().unwrap_or("none");
                find(
                    "pi-old-version",
                    h.loc.line,
                    format!("session version {v}: Pi migrates the file to version 3 and rewrites it when it loads it"),
                );
            }
        }
        start = end;
    }
}

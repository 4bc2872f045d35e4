//! Aider's own invariants (transcript-format, Appendix J), beyond those of
//! every project:
//!
//! - `aider-no-heading`: text before the first `# aider chat started at`
//!   heading (the client writes a heading before anything else of a run);
//! - `aider-heading-time`: a heading whose time cannot be read;
//! - `aider-time-goes-back`: a run heading older than the one before it in
//!   the file (the client only appends, so its headings never go back:
//!   the file was edited or put together from others);
//! - `aider-restore-first`: the first run of a file says it restored a
//!   history (there was none before it in the file).

use super::header::{RESTORED, RUN};
use crate::agent::check::Finding;
use crate::model::Kind;
use crate::project::Project;

pub(super) const KINDS: &[&str] =
    &["aider-no-heading", "aider-heading-time", "aider-time-goes-back", "aider-restore-first"];

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
        let is_run = |e: &crate::model::Entry| e.kind == Kind::KnownMeta(RUN.into());
        if let Some(first) = es.first().filter(|e| !is_run(e)) {
            find("aider-no-heading", first.loc.line, "text before the first `# aider chat started at` heading".into());
        }
        let mut last: Option<i64> = None;
        let mut runs = 0usize;
        let mut first_node = false;
        for e in es {
            if is_run(e) {
                runs += 1;
                first_node = true;
                match e.timestamp {
                    None => find("aider-heading-time", e.loc.line, "the run heading's time cannot be read".into()),
                    Some(t) if last.is_some_and(|l| t < l) => find(
                        "aider-time-goes-back",
                        e.loc.line,
                        "this run's heading is older than the one before it: Aider only appends to its history".into(),
                    ),
                    Some(_) => {}
                }
                last = e.timestamp.or(last);
                continue;
            }
            if first_node && runs == 1 && e.subtype.as_deref() == Some(RESTORED) {
                find(
                    "aider-restore-first",
                    e.loc.line,
                    "the first run of the file says it restored a history that is not in the file".into(),
                );
            }
            if e.uuid.is_some() {
                first_node = false;
            }
        }
        start = end;
    }
}

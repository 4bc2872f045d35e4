//! Copilot CLI's own invariants (transcript-format, Appendix I):
//!
//! - `copilot-start-not-first`: an `events.jsonl` starts with its
//!   `session.start` (the client names the session by it);
//! - `copilot-folder-not-its-session`: the folder `session-state/<id>/`
//!   holds the events of session `<id>` (`copilot --resume=<id>` finds it there).

use crate::agent::check::Finding;
use crate::project::Project;

pub(super) const KINDS: &[&str] = &["copilot-start-not-first", "copilot-folder-not-its-session"];

pub(super) fn check(p: &Project, out: &mut Vec<Finding>) {
    let all = p.entries.as_slice();
    let mut start = 0;
    while start < all.len() {
        let index = all[start].loc.file;
        let end = start + all[start..].iter().take_while(|e| e.loc.file == index).count();
        if let Some(sf) = p.source.files.get(index) {
            let first = &all[start];
            let file = sf.path.display().to_string();
            if first.loc.line != 1 || first.kind.name() != super::header::START {
                out.push(Finding {
                    kind: "copilot-start-not-first",
                    file: file.clone(),
                    line: first.loc.line,
                    uuid: None,
                    message: "an events file starts with its session.start event, which names the session".into(),
                });
            }
            let folder = sf.rel.split('/').next().unwrap_or("");
            if let Some(s) = first.session_id.as_deref().filter(|s| *s != folder) {
                out.push(Finding {
                    kind: "copilot-folder-not-its-session",
                    file,
                    line: first.loc.line,
                    uuid: None,
                    message: format!(
                        "the folder is named after session {folder} but its events are session {s}'s: \
                         `copilot --resume={folder}` would not load them as written"
                    ),
                });
            }
        }
        start = end;
    }
}

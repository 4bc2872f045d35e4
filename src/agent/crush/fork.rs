//! `cctree fork` of a Crush session: Crush resumes only a session already
//! in its database (`crush run -s <id>`, the TUI's sessions), and has no
//! import, export or fork of its own (transcript-format, Appendix H), so a
//! fork could only be rows written into `crush.db`, which cctree never does
//! while the client may run. A Crush session or message id is found (in
//! the databases of Crush's folders) only to say so and what Crush offers.

use std::path::Path;

use anyhow::{Result, bail};
use rusqlite::OptionalExtension;

use super::discover;

/// The session `target` names (a session's id, or a message's), and its
/// project's directory, in the databases of `folder`.
fn lookup(folder: &Path, target: &str) -> Option<(String, String)> {
    for p in discover::places(folder) {
        let found = crate::sqlite::read(&p.db, |c| {
            if !crate::sqlite::has_table(c, "sessions")? || !crate::sqlite::has_table(c, "messages")? {
                return Ok(None);
            }
            let q =
                "SELECT id FROM sessions WHERE id = ?1 UNION ALL SELECT session_id FROM messages WHERE id = ?1 LIMIT 1";
            c.query_row(q, [target], |r| r.get::<_, String>(0)).optional()
        });
        if let Ok(Some(session)) = found {
            return Some((session, p.cwd));
        }
    }
    None
}

/// Says, for a Crush session or message id, that Crush cannot resume a
/// fork and what it offers instead; `Ok(None)` for an id that is not Crush's.
pub(super) fn find(target: &str, projects: Option<&Path>) -> Result<Option<Box<dyn crate::agent::fork::Target>>> {
    for folder in crate::agent::trees_of(crate::agent::CRUSH, projects) {
        if let Some((session, cwd)) = lookup(&folder, target) {
            let (resume, _) =
                crate::agent::fork::resume_shell(Some(&cwd), &format!("crush run -s {session} '…'"), &|d| d.is_dir());
            bail!(
                "{target} is a Crush session's: Crush cannot resume a fork cctree would write (it has no import, and \
                 resumes only the sessions in its own database, which cctree never writes into). Continue the session \
                 itself in Crush instead: `{resume}`, or pick it in the TUI's sessions list; or start a new \
                 session from the text of the conversation's page"
            );
        }
    }
    Ok(None)
}

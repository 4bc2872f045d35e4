//! Qwen Code's own invariants (transcript-format, Appendix G), beyond those
//! of every project (P1–P3: conflicting copies of a uuid, a parent no
//! record has — the client's "history gap" —, cycles):
//!
//! - `qwen-mixed-session-ids`: every record of a file names one
//!   `sessionId` (with two, the client refuses to resume the session:
//!   "Transcript records contain multiple session ids.");
//! - `qwen-file-not-its-session`: a session file `chats/<id>.jsonl` holds
//!   the records of session `<id>` (else the client appends under the
//!   name's id, and the next resume fails as above);
//! - `qwen-agent-call-unknown`: a sub-agent's `.meta.json` names a call
//!   (`toolUseId`) that some record of the project made.

use rustc_hash::FxHashSet;

use crate::agent::check::Finding;
use crate::model::FileClass;
use crate::project::Project;

pub(super) const KINDS: &[&str] = &["qwen-mixed-session-ids", "qwen-file-not-its-session", "qwen-agent-call-unknown"];

/// Qwen Code's invariants on every file of `p`.
pub(super) fn check(p: &Project, out: &mut Vec<Finding>) {
    let all = p.entries.as_slice();
    let mut start = 0;
    while start < all.len() {
        let index = all[start].loc.file;
        let end = start + all[start..].iter().take_while(|e| e.loc.file == index).count();
        if let Some(sf) = p.source.files.get(index) {
            let es = &all[start..end];
            let file = sf.path.display().to_string();
            let mut first: Option<(&str, u32)> = None;
            for e in es {
                let Some(s) = e.session_id.as_deref() else { continue };
                match first {
                    None => first = Some((s, e.loc.line)),
                    Some((f, at)) if f != s => {
                        out.push(Finding {
                            kind: "qwen-mixed-session-ids",
                            file: file.clone(),
                            line: e.loc.line,
                            uuid: e.uuid.as_deref().map(str::to_string),
                            message: format!(
                                "this record names session {s}, line {at} names {f}: Qwen Code refuses to resume a \
                                 file whose records name two sessions"
                            ),
                        });
                        break;
                    }
                    Some(_) => {}
                }
            }
            let live = crate::layout::split_kept(&sf.rel).unwrap_or_else(|| sf.rel.clone());
            let named = live.rsplit('/').next().and_then(|n| n.strip_suffix(".jsonl"));
            if let (FileClass::Main, Some(name), Some((s, line))) = (sf.class, named, first) {
                if name != s {
                    out.push(Finding {
                        kind: "qwen-file-not-its-session",
                        file: file.clone(),
                        line,
                        uuid: None,
                        message: format!(
                            "the file is named after session {name} but its records name {s}: Qwen Code would \
                             append under {name} and then refuse to resume it"
                        ),
                    });
                }
            }
        }
        start = end;
    }
    let calls: FxHashSet<&str> = all.iter().flat_map(|e| e.tool_uses.iter().map(|u| &*u.id)).collect();
    for (agent, meta) in &p.source.agent_meta {
        let Some(call) = meta.tool_use_id.as_deref() else { continue };
        if calls.contains(call) {
            continue;
        }
        let file = p.source.files.iter().find(|f| f.agent_id_from_name.as_deref() == Some(agent));
        out.push(Finding {
            kind: "qwen-agent-call-unknown",
            file: file.map_or_else(|| p.source.dir.display().to_string(), |f| f.path.display().to_string()),
            line: 1,
            uuid: None,
            message: format!(
                "sub-agent {agent} was started by call {call}, which no record of the project makes: its parent's \
                 session is gone, so the agent is shown alone"
            ),
        });
    }
}

//! `cctree fork`: time travel. Copy a conversation up to a *legal checkpoint*
//! into a new session file that `claude -r <new-id>` resumes, leaving every
//! existing file untouched.
//!
//! # What is copied: the prefix
//!
//! Claude Code loads a session by walking `parentUuid` from a leaf up to a
//! root, and stops at the last compaction boundary (a `system`/`compact_boundary`
//! with a null parent; 1.0.x: the `isCompactSummary` root) — transcript-format
//! §5.7. The fork copies exactly that **chain** (root→checkpoint), following
//! physical `parentUuid` links only, never the graph's compaction joins.
//!
//! Since 2.1.1 every tool_result hangs off the entry holding its own
//! `tool_use` (§4.6), so the results of earlier parallel calls are sibling
//! leaves *beside* the chain, not on it; Claude Code restores them on resume
//! (changelog 2.1.80). Likewise a lagging result can carry the conversation
//! while the other streamed blocks of the same response hang beside it (§6.3
//! rule 7). So the **prefix** is the chain plus, for each chain node other than
//! the checkpoint, the off-chain children that belong to its turn:
//!
//! - a streamed block of the same response (`message.id` of the latest
//!   assistant entry on the prefix), unless the graph marked it a replay or
//!   aborted output;
//! - a `tool_result` entry whose results all answer calls still open on the
//!   prefix (so a result is never copied twice),
//!
//! and recursively the same kinds below them. Each extra is placed right after
//! the chain node it hangs from (path order). Inert side entries (hooks,
//! progress, `turn_duration`…) beside the chain are not copied: Claude Code
//! does not load them either.
//!
//! # Legal checkpoints
//!
//! A node is a legal checkpoint when (see [`Illegal`]):
//! - it is a main-thread `user`, `assistant` or `system` entry (not a
//!   sidechain, `progress` or `attachment`), and the prefix holds a message;
//! - the assistant turn is complete: no streamed block of the prefix's latest
//!   response hangs below the checkpoint;
//! - no call is open: every `tool_use` on the prefix whose result exists
//!   anywhere in the project has its result inside the prefix. A call that
//!   never got a result anywhere (an aborted call, changelog 2.1.218) only
//!   blocks checkpoints until the next user entry.
//!
//! Inherited defects (orphan tool_results of the source) do not make a
//! checkpoint illegal; they are reported as notes.
//!
//! # The new file
//!
//! `<new-uuid-v4>.jsonl` in the source's project directory: every prefix line
//! **byte-identical** to its source line (read at `offset..offset+len`), one
//! per line, `\n`-terminated, then one `custom-title` entry (a type Claude Code
//! writes itself) whose extra `cctreeFork` key is the provenance record
//! (source session and file, checkpoint, chain root, line count, cctree
//! version, creation time). Claude Code ignores unknown keys;
//! [`crate::graph::Graph::own_fork_sessions`] finds the record through
//! `Entry::cctree_fork`.
//!
//! Trade-off: the copies keep their original `sessionId` (the lines must stay
//! byte-identical, and so they dedupe onto the originals in cctree's graph);
//! Claude Code's own resume/fork copies rewrite `sessionId`. Claude Code
//! resumes a file by its name and the parent chain of its entries, and writes
//! new entries under the new id, so the copies resume as the new session.
//!
//! Writing is append-only: a temp file in the project directory, `create_new`,
//! fsync, then a hard link to the final name (fails if it exists), falling back
//! to rename after an existence check. No existing file is opened for writing.
//!
//! # Version drift
//!
//! With entries older than the newest `version` of the archive, each copied
//! entry is compared with the key set every newest-version entry of its `type`
//! carries ([`drift`]); `--backfill` appends the lacking keys that have a
//! neutral default ([`drift::BACKFILL_KEYS`]) before the closing brace, keeping
//! every existing byte in order.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, bail};

pub mod drift;
pub mod file_history;
pub mod plan;
pub mod prefix;
pub mod target;

use drift::Reference;
pub use plan::{Plan, plan};
use target::{Resolved, resolve};

pub use plan::{IllegalCheckpoint, nearest_legal};
pub use prefix::{Illegal, Prefix, legal_checkpoints, legal_on_branches, prefix, turn_context};

pub use crate::agent::fork::ForkRequest;
use crate::agent::fork::{Fork, Lookup, Target};
use crate::files::{Access, Pending};
use crate::limits::DRIFT_SHOWN;
pub use plan::Inputs;

/// Runs `cctree fork` of a Claude Code session: resolves the target, plans,
/// writes (unless a dry run).
pub fn run(req: &ForkRequest) -> Result<Plan> {
    plan_and_write(resolve(&req.target, req.projects.as_deref())?, req)
}

/// Plans the fork of the session `resolved`, and writes it (unless a dry run).
fn plan_and_write(resolved: Resolved, req: &ForkRequest) -> Result<Plan> {
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let inputs = Inputs {
        new_id: uuid::Uuid::new_v4().to_string(),
        now_ms,
        reference: Reference::scan(&resolved.archive),
        backup_exists: &|path: &Path| path.is_file(),
        dir_exists: &|path: &Path| path.is_dir(),
    };
    let mut plan = plan(&resolved, req, &inputs)?;
    if !req.dry_run {
        let notes = write(&plan)?;
        plan.notes.extend(notes);
    }
    Ok(plan)
}

/// Writes the plan: a temporary file in the project directory, fsynced,
/// then moved to the final name only if nothing is there
/// ([`crate::files::Pending::commit_new`]). Never touches an existing file.
/// Then links the backups of its code checkpoints into the client's
/// `file-history/<new id>/`; returns notes about backups it could not link.
pub fn write(plan: &Plan) -> Result<Vec<String>> {
    let dir = plan.path.parent().context("the new session path has no directory")?;
    // A session found only in the archive of `cctree sync` is forked into
    // its project's directory in the client's projects directory, which the
    // client may have deleted with the session.
    if !dir.is_dir() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    if plan.path.exists() {
        bail!("{} already exists; refusing to overwrite", plan.path.display());
    }
    let mut pending = Pending::new(&plan.path, Access::Default)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    write_lines(pending.file(), plan).with_context(|| format!("cannot write {}", pending.path().display()))?;
    pending.commit_new().map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => {
            anyhow::anyhow!("{} already exists; refusing to overwrite", plan.path.display())
        }
        _ => anyhow::Error::new(e).context(format!("cannot create {}", plan.path.display())),
    })?;
    Ok(match file_history::history_root(dir) {
        Some(root) => file_history::link(&root, &plan.new_session_id, &plan.backups),
        None => Vec::new(),
    })
}

fn write_lines(file: &mut std::fs::File, plan: &Plan) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(file);
    for l in plan.sources.iter().chain(&plan.history) {
        w.write_all(&l.bytes)?;
        w.write_all(b"\n")?;
    }
    w.write_all(plan.metadata.as_bytes())?;
    w.write_all(b"\n")?;
    w.flush()
}

/// The human-readable report.
pub fn text(plan: &Plan) -> String {
    use crate::term::plural;
    use std::fmt::Write as _;
    let mut s = String::new();
    let verb = if plan.dry_run { "would write" } else { "wrote" };
    let _ = writeln!(s, "fork of session {} at {}", plan.source_session, plan.checkpoint);
    let _ = writeln!(
        s,
        "  prefix: {} lines from {} ({} on the chain + {} beside it: parallel tool results and blocks)",
        plan.lines,
        plan.chain_root,
        plan.lines - plan.parallel_results,
        plan.parallel_results
    );
    if !plan.history.is_empty() {
        let linked = match plan.backups.len() {
            0 => String::new(),
            n => format!(", {} linked into file-history/{}/", plural(n, "backup", "backups"), plan.new_session_id),
        };
        let lines = plural(plan.history.len(), "file-history line", "file-history lines");
        let _ = writeln!(s, "  code checkpoints: {lines}{linked}");
    }
    for n in &plan.notes {
        let _ = writeln!(s, "  note: {n}");
    }
    if !plan.drift.entries.is_empty() {
        let _ = writeln!(
            s,
            "  version drift: prefix by {} vs newest {}; {} keys{}",
            plan.drift.prefix_versions.join(", "),
            plan.drift.newest_version.as_deref().unwrap_or("?"),
            match plan.drift.entries.len() {
                1 => "1 entry lacks".to_string(),
                n => format!("{n} entries lack"),
            },
            if plan.backfill {
                " (backfilled where a neutral default is known)"
            } else {
                " (add neutral defaults with --backfill)"
            }
        );
        for d in plan.drift.entries.iter().take(DRIFT_SHOWN) {
            let _ = writeln!(
                s,
                "    {} {} {}: lacks {}",
                d.uuid,
                d.ty,
                d.version.as_deref().unwrap_or("?"),
                d.lacking.join(", ")
            );
        }
        if plan.drift.entries.len() > DRIFT_SHOWN {
            let _ = writeln!(s, "    … and {} more", plan.drift.entries.len() - DRIFT_SHOWN);
        }
    }
    let _ = writeln!(s, "  {verb} {}", plan.path.display());
    if plan.dry_run {
        for l in plan.sources.iter().chain(&plan.history) {
            let extra = if l.backfilled.is_empty() { String::new() } else { format!(" + {}", l.backfilled.join(", ")) };
            let _ = writeln!(s, "    {}:{} {}{extra}", l.file, l.line, l.uuid);
        }
        let _ = writeln!(s, "    + {}", plan.metadata);
    }
    let _ = writeln!(s, "new session: {}", plan.new_session_id);
    let _ = writeln!(s, "resume it with:\n  {}", plan.shell);
    s
}

/// A Claude Code session `cctree fork` found.
struct Found(Resolved);

impl Target for Found {
    fn describe(&self) -> String {
        let r = &self.0;
        let file =
            r.session_file.map_or_else(|| r.project.source.dir.clone(), |f| r.project.source.files[f].path.clone());
        format!("a Claude Code session ({})", file.display())
    }

    fn fork(self: Box<Self>, req: &ForkRequest) -> Result<Fork> {
        let plan = plan_and_write(self.0, req)?;
        Ok(Fork::of(text(&plan), &plan))
    }
}

/// The session TARGET names in Claude Code's folders (see
/// [`crate::agent::Agent::find`]): a file or a session id by its file's name
/// (a missing default folder is no error then), or a message id (the error
/// then says where it looked).
pub(super) fn find(target: &str, projects: Option<&Path>, by: Lookup) -> Result<Option<Box<dyn Target>>> {
    let found = match by {
        Lookup::Name if Path::new(target).is_file() => Some(resolve(target, projects)?),
        Lookup::Name => target::resolve_named(target, projects).ok().flatten(),
        Lookup::Message => Some(resolve(target, projects)?),
    };
    Ok(found.map(|r| Box::new(Found(r)) as Box<dyn Target>))
}

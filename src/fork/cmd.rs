//! `cctree fork` as a command: gather what the plan needs from outside the
//! project (a new id, the time, the archive's newest keys, the backups on
//! disk), plan ([`super::plan()`]), write the new file append-only, report.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::drift::Reference;
use super::file_history;
use super::plan::{Inputs, Plan, plan};
use super::target::{Resolved, resolve};
use crate::files::{Access, Pending};
use crate::limits::DRIFT_SHOWN;

/// What `cctree fork` is asked to do.
#[derive(Debug, Clone, Default)]
pub struct ForkRequest {
    /// A session file (.jsonl), a session id, or a message uuid.
    pub target: String,
    /// The checkpoint (`--at`): a message uuid or a unique prefix of one.
    pub at: Option<String>,
    /// Title of the new session (default: `Fork of <title> at <uuid>`).
    pub title: Option<String>,
    /// Write nothing.
    pub dry_run: bool,
    /// Projects directory to look ids up in (default: the client's).
    pub projects: Option<PathBuf>,
    /// Add keys older copied entries lack, with neutral defaults.
    pub backfill: bool,
}

/// What `cctree fork` wrote (or would write), of whichever client's session
/// TARGET named; as JSON, the client's own report.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(untagged)]
pub enum Fork {
    Claude(Box<Plan>),
    Codex(super::codex::CodexFork),
    Gemini(super::gemini::GeminiFork),
}

impl Fork {
    /// The human-readable report.
    pub fn text(&self) -> String {
        match self {
            Fork::Claude(plan) => text(plan),
            Fork::Codex(f) => f.text(),
            Fork::Gemini(f) => f.text(),
        }
    }
}

/// Runs `cctree fork` of a session of any client. A file is forked by the
/// client that wrote it (a Codex CLI rollout, a Gemini CLI session, else
/// Claude Code's). An id is looked up first by the names of the clients'
/// files, which hold a session's id (Claude Code's `<id>.jsonl`, Codex CLI's
/// `rollout-…-<thread>.jsonl`, Gemini CLI's `session-…-<first 8>.jsonl`),
/// reading no other file; else, a message id, in the text of Claude Code's
/// sessions ([`run`]) and Gemini CLI's ([`super::gemini`]) (a Codex message
/// id, `<history>:<ordinal>`, holds its file's name). An id that names
/// sessions of more than one client is an error naming each.
pub fn fork(req: &ForkRequest) -> Result<Fork> {
    let (target, projects, at) = (req.target.as_str(), req.projects.as_deref(), req.at.as_deref());
    if Path::new(target).is_file() {
        if let Some(file) = super::codex::find(target, projects)? {
            return Ok(Fork::Codex(super::codex::fork(&file, at, req.dry_run)?));
        }
        if let Some(file) = super::gemini::find(target, projects)? {
            return Ok(Fork::Gemini(super::gemini::fork(&file, at, req.dry_run)?));
        }
        return Ok(Fork::Claude(Box::new(run(req)?)));
    }
    // `--projects` naming another client's folder is not Claude Code's.
    let other_dir = projects.is_some_and(|d| {
        crate::agent::codex::discover::is_codex_dir(d).is_some()
            || crate::agent::gemini::discover::is_gemini_dir(d).is_some()
    });
    let not_claude = || Err(anyhow::anyhow!("not a Claude Code folder"));
    // By the files' names: a session id (a missing default folder is not an error here).
    let claude = if other_dir { None } else { super::target::resolve_named(target, projects).ok().flatten() };
    let codex = super::codex::find(target, projects)?;
    let gemini = super::gemini::find_session(target, projects)?;
    if claude.is_some() || codex.is_some() || gemini.is_some() {
        return one_of(target, req, claude.map_or_else(not_claude, Ok), codex, gemini);
    }
    // A message id: in the sessions' text.
    let claude = if other_dir { not_claude() } else { resolve(target, projects) };
    let gemini = super::gemini::find(target, projects)?;
    one_of(target, req, claude, None, gemini)
}

/// Forks the one session found of `target`: Claude Code's (`claude`), Codex
/// CLI's or Gemini CLI's; an error naming each when more than one is.
fn one_of(
    target: &str,
    req: &ForkRequest,
    claude: Result<Resolved>,
    codex: Option<PathBuf>,
    gemini: Option<PathBuf>,
) -> Result<Fork> {
    let at = req.at.as_deref();
    let mut found: Vec<String> = Vec::new();
    if let Ok(r) = &claude {
        let file =
            r.session_file.map_or_else(|| r.project.source.dir.clone(), |f| r.project.source.files[f].path.clone());
        found.push(format!("a Claude Code session ({})", file.display()));
    }
    for (client, file) in [("a Codex CLI thread", &codex), ("a Gemini CLI session", &gemini)] {
        if let Some(f) = file {
            found.push(format!("{client} ({})", f.display()));
        }
    }
    if found.len() > 1 {
        bail!("{target} is ambiguous: it names {}; give the session's file instead", found.join(" and "));
    }
    match (claude, codex, gemini) {
        (_, Some(file), _) => Ok(Fork::Codex(super::codex::fork(&file, at, req.dry_run)?)),
        (_, _, Some(file)) => Ok(Fork::Gemini(super::gemini::fork(&file, at, req.dry_run)?)),
        // Not found anywhere: Claude Code's error says where it looked.
        (resolved, None, None) => Ok(Fork::Claude(Box::new(plan_and_write(resolved?, req)?))),
    }
}

/// Runs `cctree fork` of a Claude Code session: resolves the target, plans,
/// writes (unless a dry run).
pub fn run(req: &ForkRequest) -> Result<Plan> {
    plan_and_write(resolve(&req.target, req.projects.as_deref())?, req)
}

/// Plans the fork of the session `resolved`, and writes it (unless a dry run).
fn plan_and_write(resolved: Resolved, req: &ForkRequest) -> Result<Plan> {
    refuse_other_clients(&resolved)?;
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

/// The Claude Code path forks Claude Code's sessions only: a Codex or Gemini
/// session reached through it (its own path, `fork::codex` and
/// `fork::gemini`, did not recognise TARGET) is refused, saying what to give.
fn refuse_other_clients(r: &Resolved) -> Result<()> {
    match r.project.source.client {
        c if c == crate::agent::CLAUDE => Ok(()),
        c if c == crate::agent::CODEX => bail!(
            "{}: a Codex CLI session; give cctree fork its rollout file or its thread id \
             (with --projects DIR when it is not in $CODEX_HOME/sessions)",
            r.session
        ),
        _ => bail!(
            "{}: a Gemini CLI session; give cctree fork its session file, or its session or message id \
             (with --projects DIR when it is not in ~/.gemini/tmp)",
            r.session
        ),
    }
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

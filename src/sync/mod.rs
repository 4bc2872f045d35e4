//! `cctree sync`: keep every conversation in an append-only archive.
//!
//! Clients delete old transcripts (Claude Code after `cleanupPeriodDays`)
//! and rewrite or prune some files; the archive keeps everything it ever
//! saw, with the layout of each agent's folder, so every cctree command
//! reads it:
//!
//! ```text
//! ~/.local/share/cctree/            ($XDG_DATA_HOME/cctree, or --to DIR's parent)
//! ├── projects/                     the archive (--to DIR, $CCTREE_ARCHIVE)
//! │   ├── .cctree-sync/             lock + record of what the source no longer has
//! │   └── <project>/<session>.jsonl …                  as in ~/.claude/projects
//! │       <project>/<session>.cctree-kept-<hash>.jsonl  a previous version, kept
//! ├── file-history/<session>/…      the client's file backups (code restore)
//! ├── history.jsonl                 every prompt-history line ever seen (merged)
//! ├── codex/sessions/YYYY/MM/DD/…   Codex CLI's rollouts, as in $CODEX_HOME/sessions
//! ├── codex/session_index.jsonl     its thread names (merged)
//! ├── gemini/tmp/<project>/…        Gemini CLI's chats/ and .project_root, as in ~/.gemini/tmp
//! └── opencode/opencode.db          OpenCode's databases, each merged into its copy row by row
//! ```
//!
//! An agent that keeps its sessions in a database
//! ([`crate::agent::Agent::kept_databases`]) has each database merged into
//! its copy in the archive ([`crate::sqlite::merge`]: one snapshot, read
//! without blocking the client; every row by its key, none ever deleted),
//! so what the client deletes stays.
//!
//! What is kept of each agent is the agent's to say, in its folder
//! ([`crate::agent::Agent::keep`], the shared pieces in
//! [`crate::agent::keep`]): the trees mirrored from its folder and where in
//! the archive, which of their files, how a file rewritten at the source is
//! kept (in versions, or merged: the prompt history line by line, a Gemini
//! CLI session file by replaying the client's loader), and the single files
//! merged beside them. The engine here knows no agent: it keeps every
//! agent's the same way, each agent's folder found by
//! [`crate::discover::agent_of_dir`] (INPUT) or its default folder.
//!
//! Stages: [`scan`] lists both sides; for each source file the file system
//! part ([`fsops`]) observes it and its archived copy, [`decision::decide`]
//! (pure) says what to do, [`fsops`] does it; then [`record`] is updated with
//! what the source no longer has. A lock file keeps two syncs apart (the
//! second waits). Nothing is written into the source.

pub mod decision;
pub mod fsops;
pub mod only_here;
pub mod record;
pub mod report;
pub mod scan;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

use crate::agent::keep::{Kept, KeptFile, Rewritten};
use crate::layout::STATE_DIR;
use crate::model::Client;
use decision::{Action, Content, Observation, SourceState};
use record::{Record, Tree};
use report::{FileChange, SyncReport};
use scan::{Listing, Root};

/// A transcript whose last line has had no newline for this long was left
/// torn by a writer that died: that line is copied as it is.
pub const TORN_TAIL_GRACE: Duration = Duration::from_secs(3600);

/// Settings of one sync.
#[derive(Debug, Clone)]
pub struct SyncOptions {
    /// A projects directory or one project directory (default: the client's).
    pub input: Option<PathBuf>,
    /// The archive's projects directory.
    pub archive: PathBuf,
    pub dry_run: bool,
    /// Show a progress bar (on a terminal).
    pub progress: bool,
}

/// Whether `cctree sync` without INPUT has anything to read: an agent's
/// default folder exists.
pub fn has_default_source() -> bool {
    crate::agent::ALL.iter().any(|c| crate::agent::of(*c).default_dir().is_some_and(|d| d.is_dir()))
}

/// What one sync keeps: INPUT's, as the agent whose folder it is says
/// ([`crate::discover::agent_of_dir`]); without INPUT, every agent's
/// default folder that exists, kept while it exists even when the client's
/// clean-up emptied it (what the archive holds of it is then recorded as
/// deleted). An error when none exists.
fn sources(input: Option<&Path>, archive: &Path) -> Result<Vec<(Client, Kept)>> {
    if let Some(p) = input {
        let (client, dir) = crate::discover::agent_of_dir(p);
        return Ok(vec![(client, crate::agent::of(client).keep(&dir, archive)?)]);
    }
    let found: Vec<(Client, PathBuf)> = (crate::agent::ALL.iter())
        .filter_map(|c| Some((*c, crate::agent::of(*c).default_dir().filter(|d| d.is_dir())?)))
        .collect();
    if found.is_empty() {
        let missing: Vec<String> = (crate::agent::ALL.iter())
            .map(|c| {
                let a = crate::agent::of(*c);
                match a.default_dir() {
                    Some(d) => format!("\n  {} does not exist ({}: {})", d.display(), a.product(), a.default_hint()),
                    None => format!("\n  no folder of its own is known ({}: {})", a.product(), a.default_hint()),
                }
            })
            .collect();
        bail!(
            "no INPUT given, and no agent's default folder exists:{}\npass the folder to sync, `cctree sync DIR`",
            missing.concat()
        );
    }
    let mut kept: Vec<(Client, Kept)> =
        found.iter().map(|(c, d)| Ok((*c, crate::agent::of(*c).keep(d, archive)?))).collect::<Result<_>>()?;
    // The folders found in the working directories of the projects those
    // hold (Aider's histories in the repositories the agents worked in).
    let read: Vec<PathBuf> = found.into_iter().map(|(_, d)| d).collect();
    if let Ok(a) = crate::discover::discover(&[]) {
        for (c, d) in crate::discover::found_folders(&a.projects, &read) {
            kept.push((c, crate::agent::of(c).keep(&d, archive)?));
        }
    }
    Ok(kept)
}

/// Takes the archive's lock (`<archive>/.cctree-sync/lock`), waiting while
/// another sync holds it; held until the file is dropped.
pub fn lock_archive(archive: &Path) -> Result<File> {
    let dir = archive.join(STATE_DIR);
    fsops::create_dir_private(&dir)?;
    let path = dir.join("lock");
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("cannot open the lock {}: check the archive is writable", path.display()))?;
    wait_for_lock(&f, archive).with_context(|| format!("cannot lock {}", path.display()))?;
    Ok(f)
}

/// Takes the lock on `f` (`flock`, released when the process ends, even
/// when killed); when another sync holds it, says so and waits.
#[cfg(unix)]
fn wait_for_lock(f: &File, archive: &Path) -> std::io::Result<()> {
    use rustix::fs::{FlockOperation, flock};
    match flock(f, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(()),
        Err(e) if e == rustix::io::Errno::WOULDBLOCK => {
            crate::term::print_err(&format!(
                "another cctree sync is writing {}; waiting for it to finish…\n",
                crate::term::safe(archive.display())
            ));
            flock(f, FlockOperation::LockExclusive).map_err(std::io::Error::from)
        }
        Err(e) => Err(e.into()),
    }
}

/// Without `flock` (not Unix), two syncs are not kept apart.
#[cfg(not(unix))]
fn wait_for_lock(_f: &File, _archive: &Path) -> std::io::Result<()> {
    Ok(())
}

/// Refuses an archive directory that holds files but is not an archive
/// (no `.cctree-sync/`): `render` refuses the like for its output.
fn refuse_foreign(archive: &Path) -> Result<()> {
    let Ok(mut items) = std::fs::read_dir(archive) else { return Ok(()) };
    if items.next().is_some() && !archive.join(STATE_DIR).is_dir() {
        anyhow::bail!(
            "the archive directory {} is not empty and is not a cctree archive (it has no {STATE_DIR}/); \
             choose another --to, or an empty or new directory",
            crate::term::safe(archive.display())
        );
    }
    Ok(())
}

/// Runs a sync (see the module documentation). Files that could not be
/// synced are listed in [`SyncReport::errors`] (the rest is done).
pub fn sync(opts: &SyncOptions) -> Result<SyncReport> {
    let start = Instant::now();
    let archive = crate::files::resolve(&opts.archive);
    let kept = sources(opts.input.as_deref(), &archive)?;
    for (_, k) in &kept {
        scan::check_apart(&k.trees, &archive)?;
    }
    refuse_foreign(&archive)?;
    let roots: Vec<Root> = kept.iter().flat_map(|(_, k)| k.trees.iter().cloned()).collect();
    let singles: Vec<KeptFile> = kept.iter().flat_map(|(_, k)| k.files.iter().cloned()).collect();
    let Some((main_client, main)) = kept.first() else { unreachable!("sources returns a source or fails") };
    let source = main.source.clone();
    // The record names every folder kept (each agent's), in the order kept.
    let sources: Vec<String> = kept.iter().map(|(_, k)| k.source.display().to_string()).collect();
    let _lock = if opts.dry_run { None } else { Some(lock_archive(&archive)?) };
    let loaded = Record::load(&archive)?;
    let first = loaded.is_none();
    let previous = loaded.unwrap_or_default();
    let listings: Vec<Listing> = roots.iter().map(|r| scan::list(r, &archive)).collect();
    if !opts.dry_run {
        // Temporary files of a killed sync (none is running: we hold the lock).
        let single_temps: Vec<PathBuf> = singles.iter().flat_map(|f| scan::leftovers_of(&f.archive)).collect();
        for path in listings
            .iter()
            .flat_map(|l| &l.leftovers)
            .chain(&scan::leftovers(&archive.join(STATE_DIR)))
            .chain(&single_temps)
        {
            let _ = std::fs::remove_file(path);
        }
    }
    let mut report = SyncReport::new(&source, &archive, &main.report, opts.dry_run);
    if let Some(to) = crate::agent::of(*main_client).synced_dir(&archive) {
        report.to = to;
    }
    report.sources = kept.iter().map(|(c, k)| (*c, k.source.clone())).collect();
    report.clients = (kept.iter().skip(1))
        .filter_map(|(c, k)| Some((c.name().to_string(), k.source.clone(), crate::agent::of(*c).synced_dir(&archive)?)))
        .collect();
    report.warnings.extend(listings.iter().flat_map(|l| l.warnings.iter().cloned()));
    let changes = copy_all(&roots, &listings, &singles, opts, &mut report);
    // The agents that keep databases: each merged into its copy.
    for (c, k) in &kept {
        let a = crate::agent::of(*c);
        let Some(dbs) = a.synced_dir(&archive).and_then(|to| a.kept_databases(&k.source, &to)) else { continue };
        for (db, copy) in dbs {
            match merge_database(&db, &copy, opts.dry_run) {
                Ok(m) => report.databases.push((db, copy, m)),
                Err(e) => report.errors.push(format!("cannot keep {}: {e:#}", db.display())),
            }
        }
    }
    let now = crate::timestamp::format_timestamp(now_ms());
    let record = record_after(&previous, &sources.join(", "), &roots, &listings, &changes, &now);
    report.finish(&previous, &record, changes);
    if !opts.dry_run && (first || record != previous) {
        record.save(&archive)?;
    }
    report.elapsed = start.elapsed();
    Ok(report)
}

/// Merges a client's database into its copy in the archive (its folder
/// made first, private like the archive's).
fn merge_database(db: &Path, copy: &Path, dry_run: bool) -> Result<crate::sqlite::Merged> {
    if !dry_run && let Some(dir) = copy.parent() {
        fsops::create_dir_private(dir)?;
    }
    Ok(crate::sqlite::merge(db, copy, dry_run)?)
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// One source file to bring into the archive.
struct Job<'a> {
    tree: Tree,
    rel: &'a str,
    src: &'a Path,
    dst: PathBuf,
    /// How it is kept when rewritten at the source (its agent's word).
    rewritten: Rewritten,
}

/// Syncs every source file of every root and the single files beside
/// them (in parallel), with a progress bar.
fn copy_all(
    roots: &[Root],
    listings: &[Listing],
    singles: &[KeptFile],
    opts: &SyncOptions,
    report: &mut SyncReport,
) -> Vec<FileChange> {
    let mut jobs = Vec::new();
    for (root, l) in roots.iter().zip(listings) {
        for (rel, src) in &l.source {
            // The name the archive gives it (a name that is not UTF-8 escaped, `scan::key_of`).
            let under = rel.strip_prefix(root.prefix.as_str()).unwrap_or(rel);
            let name = under.rsplit('/').next().unwrap_or(under);
            let rewritten = (root.rewritten)(name);
            jobs.push(Job { tree: root.tree, rel, src, dst: root.archive.join(under), rewritten });
        }
    }
    let names: Vec<String> = (singles.iter())
        .map(|f| f.archive.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default())
        .collect();
    for (f, rel) in singles.iter().zip(&names) {
        jobs.push(Job { tree: f.tree, rel, src: &f.source, dst: f.archive.clone(), rewritten: f.rewritten });
    }
    let total: u64 = jobs.iter().filter_map(|j| j.src.metadata().ok()).map(|m| m.len()).sum();
    let bar = report::progress(total, opts.progress);
    let now = SystemTime::now();
    let results: Vec<(u64, Result<FileChange>)> = jobs
        .par_iter()
        .map(|job| {
            let r = sync_file(job, opts.dry_run, now);
            let len = r.as_ref().map_or(0, |c| c.source_len);
            bar.inc(len);
            (len, r)
        })
        .collect();
    bar.finish_and_clear();
    let mut changes = Vec::with_capacity(results.len());
    for (len, r) in results {
        report.checked_bytes += len;
        match r {
            Ok(c) => changes.push(c),
            Err(e) if e.downcast_ref::<fsops::SourceError>().is_some() => {
                report.warnings.push(format!("{e:#}; it is synced by a later run"));
            }
            Err(e) => report.errors.push(format!("{e:#}")),
        }
    }
    if !opts.dry_run {
        let mut dirs: Vec<&Path> = changes.iter().filter(|c| c.wrote()).filter_map(|c| c.dst.parent()).collect();
        dirs.sort_unstable();
        dirs.dedup();
        dirs.into_iter().for_each(fsops::sync_dir);
    }
    changes
}

/// Observes one file and its archived copy, decides, and (unless a dry run) acts.
fn sync_file(job: &Job<'_>, dry_run: bool, now: SystemTime) -> Result<FileChange> {
    let mut change = FileChange::new(job.tree, job.rel, &job.dst);
    let file = match File::open(job.src) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            change.vanished = true;
            return Ok(change);
        }
        Err(err) => return Err(fsops::SourceError { path: job.src.to_path_buf(), err }.into()),
    };
    let mut src = fsops::Source { file, path: job.src };
    let meta = src.file.metadata().map_err(|e| src.err(e))?;
    let len = meta.len();
    change.source_len = len;
    let content = Content::of(job.rel);
    let complete = match content {
        Content::Transcript => fsops::complete_end(&mut src.file, len).map_err(|e| src.err(e))?,
        Content::Side => len,
    };
    let idle = meta.modified().ok().and_then(|m| now.duration_since(m).ok()).is_some_and(|d| d >= TORN_TAIL_GRACE);
    let archived = match fsops::hash_file(&job.dst)? {
        None => None,
        Some((alen, hash)) => {
            let prefix =
                if len >= alen { fsops::hash_prefix(&mut src.file, alen).map_err(|e| src.err(e))? } else { None };
            Some(decision::ArchivedState { len: alen, source_prefix_matches: prefix.as_ref() == Some(&hash), hash })
        }
    };
    let obs = Observation { content, source: SourceState { len, complete, idle }, archived };
    let name = job.dst.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    change.action = match job.rewritten {
        Rewritten::Versions => decision::decide(&name, &obs),
        Rewritten::Merged(_) => decision::decide_merged(&name, &obs),
    };
    apply(&mut change, &mut src, job.rewritten, dry_run)?;
    Ok(change)
}

/// Carries out `change.action`, filling in what it copied.
fn apply(change: &mut FileChange, src: &mut fsops::Source<'_>, rewritten: Rewritten, dry_run: bool) -> Result<()> {
    let (from, upto) = match &change.action {
        Action::UpToDate | Action::Wait { .. } => return Ok(()),
        Action::Merge { upto } => {
            let Rewritten::Merged(merge) = rewritten else { unreachable!("only a merged file is merged") };
            match fsops::merge(src, *upto, &change.dst, merge, dry_run)? {
                Some((lines, bytes)) => (change.lines, change.bytes) = (lines, bytes),
                None => change.action = Action::UpToDate,
            }
            return Ok(());
        }
        Action::Copy { upto } | Action::Replace { upto, .. } => (0, *upto),
        Action::Append { from, upto } => (*from, *upto),
    };
    change.bytes = upto - from;
    if dry_run {
        change.lines = fsops::count_lines(&mut src.file, from, upto).map_err(|e| src.err(e))?;
        return Ok(());
    }
    change.lines = match &change.action {
        Action::Append { from, upto } => fsops::append(src, *from, *upto, &change.dst)?,
        Action::Replace { keep_as, .. } => {
            fsops::keep(&change.dst, keep_as)?;
            fsops::copy_new(src, upto, &change.dst)?
        }
        _ => fsops::copy_new(src, upto, &change.dst)?,
    };
    Ok(())
}

/// The record after this sync: what the source no longer has (dates carried
/// over), and the kept versions (this run's with their reason).
fn record_after(
    previous: &Record,
    source: &str,
    roots: &[Root],
    listings: &[Listing],
    changes: &[FileChange],
    now: &str,
) -> Record {
    let mut r = Record { format: previous.format, source: source.to_string(), gone: Vec::new(), kept: Vec::new() };
    for (root, l) in roots.iter().zip(listings) {
        let source_set = l.source.keys().cloned().collect();
        let live_set = l.live.keys().cloned().collect();
        let gone = decision::gone(&source_set, &live_set);
        let moved = if root.moves { decision::relocations(&gone, &source_set) } else { Default::default() };
        for path in gone {
            let before = previous.gone.iter().find(|g| g.tree == root.tree && &g.path == path);
            let (lines, bytes) = match before {
                Some(g) => (g.lines, g.bytes),
                None => count_file(&l.live[path]),
            };
            r.gone.push(record::Gone {
                tree: root.tree,
                path: path.clone(),
                since: before.map_or_else(|| now.to_string(), |g| g.since.clone()),
                lines,
                bytes,
                moved_to: moved.get(path.as_str()).map(|s| s.to_string()),
            });
        }
        for path in &l.kept {
            let before = previous.kept.iter().find(|k| k.tree == root.tree && &k.path == path);
            r.kept.push(before.cloned().unwrap_or_else(|| record::Kept {
                tree: root.tree,
                path: path.clone(),
                of: live_of(path),
                reason: "found".into(),
                since: now.to_string(),
            }));
        }
    }
    for c in changes {
        if let Action::Replace { keep_as, why, .. } = &c.action {
            let path = match c.rel.rsplit_once('/') {
                Some((dir, _)) => format!("{dir}/{keep_as}"),
                None => keep_as.clone(),
            };
            r.kept.retain(|k| !(k.tree == c.tree && k.path == path));
            r.kept.push(record::Kept {
                tree: c.tree,
                path,
                of: c.rel.clone(),
                reason: why.describe().into(),
                since: now.to_string(),
            });
        }
    }
    if r.source == previous.source && r.gone == previous.gone && same_kept(&r.kept, &previous.kept) {
        // Nothing the record says changed: keep it byte for byte (a no-op sync writes nothing).
        return previous.clone();
    }
    r.gone.sort_by(|a, b| (a.tree, &a.path).cmp(&(b.tree, &b.path)));
    r.kept.sort_by(|a, b| (a.tree, &a.path).cmp(&(b.tree, &b.path)));
    r
}

fn same_kept(a: &[record::Kept], b: &[record::Kept]) -> bool {
    let mut a: Vec<_> = a.iter().collect();
    let mut b: Vec<_> = b.iter().collect();
    a.sort_by(|x, y| (x.tree, &x.path).cmp(&(y.tree, &y.path)));
    b.sort_by(|x, y| (x.tree, &x.path).cmp(&(y.tree, &y.path)));
    a == b
}

fn live_of(kept: &str) -> String {
    match kept.rsplit_once('/') {
        Some((dir, name)) => format!("{dir}/{}", crate::layout::split_kept(name).unwrap_or_else(|| name.into())),
        None => crate::layout::split_kept(kept).unwrap_or_else(|| kept.into()),
    }
}

/// Newlines and bytes of an archived file (0, 0 when unreadable).
fn count_file(path: &Path) -> (u64, u64) {
    let Ok(mut f) = File::open(path) else { return (0, 0) };
    let len = f.metadata().map_or(0, |m| m.len());
    (fsops::count_lines(&mut f, 0, len).unwrap_or(0), len)
}

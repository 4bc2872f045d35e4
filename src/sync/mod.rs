//! `cctree sync`: keep every conversation in an append-only archive.
//!
//! Claude Code deletes transcripts after `cleanupPeriodDays` and rewrites or
//! prunes some files; the archive keeps everything it ever saw, with the
//! layout of `~/.claude/projects`, so every cctree command reads it:
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
//! Codex CLI's and Gemini CLI's folders are more trees of the same run
//! ([`scan::client_roots`]), picked by [`resolve_sources`]; a rewritten
//! Gemini session file is merged, not kept in versions
//! ([`decision::decide_gemini`]).
//!
//! The prompt history (`history.jsonl` beside the source's projects
//! directory) is kept when the source is a projects directory (one project
//! directory alone is synced without it: the history holds every project's
//! prompts): appended like a transcript while the archived copy is the
//! start of the source, else merged ([`decision::decide_history`]).
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

use crate::layout::STATE_DIR;
use decision::{Action, Content, Observation, SourceState};
use record::{Record, Tree};
use report::{FileChange, SyncReport};
use scan::{Listing, Root};

/// Codex CLI's thread names, beside its sessions tree.
const CODEX_INDEX: &str = "session_index.jsonl";

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

/// The source directory: the input (Claude Code's configuration directory
/// stands for its `projects/`), else the client's projects directory.
fn resolve_source(input: Option<&Path>) -> Result<PathBuf> {
    let dir = match input {
        Some(p) => crate::agent::claude::discover::config_projects(p).unwrap_or_else(|| p.to_path_buf()),
        None => {
            let Some(dir) = crate::agent::claude::discover::default_projects_dir() else {
                bail!(
                    "no INPUT given, and no default projects directory (CLAUDE_CONFIG_DIR is not set and no home \
                     directory is known): pass the projects directory to sync, `cctree sync DIR`"
                );
            };
            if !dir.is_dir() {
                bail!(
                    "no INPUT given, and the default projects directory {} does not exist (Claude Code writes its \
                     transcripts there once it has run; CLAUDE_CONFIG_DIR moves it): pass the projects directory \
                     to sync, `cctree sync DIR`",
                    dir.display()
                );
            }
            dir
        }
    };
    let meta = std::fs::metadata(&dir).with_context(|| {
        format!(
            "cannot read the source {}: check the path (a projects directory or one project directory)",
            dir.display()
        )
    })?;
    if !meta.is_dir() {
        bail!(
            "{} is a file; `cctree sync` mirrors a projects directory (~/.claude/projects) or one project directory",
            dir.display()
        );
    }
    Ok(dir)
}

/// Whether `cctree sync` without INPUT has anything to read: a default
/// folder of Claude Code, Codex CLI or Gemini CLI exists.
pub fn has_default_source() -> bool {
    [
        crate::agent::claude::discover::default_projects_dir(),
        crate::agent::codex::discover::default_codex_dir(),
        crate::agent::gemini::discover::default_gemini_dir(),
    ]
    .into_iter()
    .flatten()
    .any(|d| d.is_dir())
        || !database_agents().is_empty()
}

/// The default folders that exist of the agents that keep databases
/// ([`crate::agent::Agent::kept_databases`]).
fn database_agents() -> Vec<(crate::model::Client, PathBuf)> {
    let mut v = Vec::new();
    for c in crate::agent::ALL {
        let a = crate::agent::of(*c);
        let Some(dir) = a.default_dir().filter(|d| d.is_dir()) else { continue };
        if a.kept_databases(&dir, &dir).is_some() {
            v.push((*c, dir));
        }
    }
    v
}

/// What one sync keeps: Claude Code's projects directory (with its
/// `file-history/` and prompt history), and Codex CLI's sessions tree and
/// Gemini CLI's `tmp/` folder.
#[derive(Debug, Default)]
struct Sources {
    claude: Option<PathBuf>,
    others: Vec<(crate::model::Client, PathBuf)>,
}

/// The sources of a sync: INPUT as the client whose folder it is (Claude
/// Code's when it is neither Codex CLI's nor Gemini CLI's); without INPUT,
/// every client's default folder that exists (an error when none does).
fn resolve_sources(input: Option<&Path>) -> Result<Sources> {
    if let Some(p) = input {
        return Ok(match crate::discover::agent_of_dir(p) {
            (c, d) if crate::agent::of(c).claims(p) != crate::agent::Claim::Otherwise => {
                Sources { claude: None, others: vec![(c, d)] }
            }
            _ => Sources { claude: Some(resolve_source(input)?), others: Vec::new() },
        });
    }
    // A default folder is kept while it exists, even emptied by the client's
    // clean-up (then what the archive holds of it is recorded as deleted).
    let mut others = Vec::new();
    if let Some(d) = crate::agent::codex::discover::default_codex_dir().filter(|d| d.is_dir()) {
        others.push((crate::agent::CODEX, d));
    }
    if let Some(d) = crate::agent::gemini::discover::default_gemini_dir().filter(|d| d.is_dir()) {
        others.push((crate::agent::GEMINI, d));
    }
    others.extend(database_agents());
    let claude = crate::agent::claude::discover::default_projects_dir().filter(|d| d.is_dir());
    if claude.is_none() && others.is_empty() {
        // Says what is missing.
        resolve_source(None)?;
    }
    Ok(Sources { claude, others })
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
    let sources = resolve_sources(opts.input.as_deref())?;
    let archive = crate::files::resolve(&opts.archive);
    let mut roots = match &sources.claude {
        Some(source) => scan::roots(source, &archive)?,
        None => Vec::new(),
    };
    let mut databases = Vec::new();
    for (client, dir) in &sources.others {
        let a = crate::agent::of(*client);
        let kept = scan::client_archive(&archive, *client).and_then(|to| a.kept_databases(dir, &to));
        match kept {
            Some(dbs) => databases.extend(dbs),
            None => roots.extend(scan::client_roots(*client, dir, &archive)?),
        }
    }
    refuse_foreign(&archive)?;
    let history = match &sources.claude {
        Some(source) => scan::history(source, &archive)?,
        None => None,
    };
    // Codex CLI's thread names (`$CODEX_HOME/session_index.jsonl`, append-only,
    // last line of an id wins): kept beside the kept sessions tree, merged as the prompt history.
    let codex_index = (sources.others.iter()).find(|(c, _)| *c == crate::agent::CODEX).and_then(|(_, d)| {
        let src = d.parent()?.join(CODEX_INDEX);
        let dst = scan::client_archive(&archive, crate::agent::CODEX)?.parent()?.join(CODEX_INDEX);
        src.is_file().then_some((src, dst))
    });
    let source = match (&sources.claude, sources.others.first()) {
        (Some(s), _) => s.clone(),
        (None, Some((_, d))) => d.clone(),
        (None, None) => unreachable!("resolve_sources returns a source or fails"),
    };
    let _lock = if opts.dry_run { None } else { Some(lock_archive(&archive)?) };
    let loaded = Record::load(&archive)?;
    let first = loaded.is_none();
    let previous = loaded.unwrap_or_default();
    let listings: Vec<Listing> = roots.iter().map(scan::list).collect();
    if !opts.dry_run {
        // Temporary files of a killed sync (none is running: we hold the lock).
        let history_temps: Vec<PathBuf> =
            history.iter().chain(&codex_index).flat_map(|h| scan::leftovers_of(&h.1)).collect();
        for path in listings
            .iter()
            .flat_map(|l| &l.leftovers)
            .chain(&scan::leftovers(&archive.join(STATE_DIR)))
            .chain(&history_temps)
        {
            let _ = std::fs::remove_file(path);
        }
    }
    let mut report = SyncReport::new(&source, &archive, &roots, opts.dry_run);
    report.clients = (sources.others.iter())
        .filter_map(|(c, d)| Some((c.name().to_string(), d.clone(), scan::client_archive(&archive, *c)?)))
        .filter(|(_, d, _)| sources.claude.is_some() || d != &source)
        .collect();
    report.history = history.as_ref().map(|h| h.1.clone());
    report.warnings.extend(listings.iter().flat_map(|l| l.warnings.iter().cloned()));
    let mut singles = Vec::new();
    if let Some((src, dst)) = &history {
        singles.push((Tree::History, crate::history::FILE_NAME, src.clone(), dst.clone()));
    }
    if let Some((src, dst)) = &codex_index {
        singles.push((Tree::CodexIndex, CODEX_INDEX, src.clone(), dst.clone()));
    }
    let changes = copy_all(&roots, &listings, &singles, opts, &mut report);
    for (db, copy) in databases {
        match merge_database(&db, &copy, opts.dry_run) {
            Ok(m) => report.databases.push((db, copy, m)),
            Err(e) => report.errors.push(format!("cannot keep {}: {e:#}", db.display())),
        }
    }
    let now = crate::timestamp::format_timestamp(now_ms());
    let record = record_after(&previous, &source, &roots, &listings, &changes, &now);
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
    if !dry_run {
        if let Some(dir) = copy.parent() {
            fsops::create_dir_private(dir)?;
        }
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
}

/// Syncs every source file of every root and the prompt history (in
/// parallel), with a progress bar.
fn copy_all(
    roots: &[Root],
    listings: &[Listing],
    singles: &[(Tree, &'static str, PathBuf, PathBuf)],
    opts: &SyncOptions,
    report: &mut SyncReport,
) -> Vec<FileChange> {
    let mut jobs = Vec::new();
    for (root, l) in roots.iter().zip(listings) {
        for (rel, src) in &l.source {
            // The name the archive gives it (a name that is not UTF-8 escaped, `scan::key_of`).
            let under = rel.strip_prefix(root.prefix.as_str()).unwrap_or(rel);
            jobs.push(Job { tree: root.tree, rel, src, dst: root.archive.join(under) });
        }
    }
    for (tree, rel, src, dst) in singles {
        jobs.push(Job { tree: *tree, rel, src, dst: dst.clone() });
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
    change.action = match job.tree {
        Tree::History | Tree::CodexIndex => decision::decide_history(&obs),
        Tree::Gemini => decision::decide_gemini(&name, &obs),
        _ => decision::decide(&name, &obs),
    };
    apply(&mut change, &mut src, dry_run)?;
    Ok(change)
}

/// Carries out `change.action`, filling in what it copied.
fn apply(change: &mut FileChange, src: &mut fsops::Source<'_>, dry_run: bool) -> Result<()> {
    let (from, upto) = match &change.action {
        Action::UpToDate | Action::Wait { .. } => return Ok(()),
        Action::Merge { upto } => {
            let gemini = change.tree == Tree::Gemini;
            let (lines, bytes) = fsops::merge(src, *upto, &change.dst, gemini, dry_run)?;
            (change.lines, change.bytes) = (lines, bytes);
            if lines == 0 {
                change.action = Action::UpToDate;
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
    source: &Path,
    roots: &[Root],
    listings: &[Listing],
    changes: &[FileChange],
    now: &str,
) -> Record {
    let mut r =
        Record { format: previous.format, source: source.display().to_string(), gone: Vec::new(), kept: Vec::new() };
    for (root, l) in roots.iter().zip(listings) {
        let source_set = l.source.keys().cloned().collect();
        let live_set = l.live.keys().cloned().collect();
        let gone = decision::gone(&source_set, &live_set);
        let moved =
            if root.tree == Tree::Projects { decision::relocations(&gone, &source_set) } else { Default::default() };
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
    if r.gone == previous.gone && same_kept(&r.kept, &previous.kept) {
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

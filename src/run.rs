//! Orchestration: the command line → stages → output and exit code.

use anyhow::{Context, Result};

use crate::cli::{CheckArgs, Cli, Command, RenderArgs, StatsArgs, SyncArgs};
use crate::discover::{self, Archive};
use crate::project::Project;
use crate::stats::{ReportBuilder, StatsOptions};

/// How a command ended (errors are `Err`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Done, nothing to report.
    Clean,
    /// Done, with findings (`check`) — exit code 1.
    Findings,
}

impl Outcome {
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Clean => 0,
            Outcome::Findings => 1,
        }
    }
}

/// Worker threads per core at most: more only add overhead, and thousands of
/// threads take minutes to start and to stop (`-j 10000` took 4 minutes).
pub const THREADS_PER_CORE: usize = 4;

/// The thread count for `-j asked` on a machine with `cores` cores:
/// `asked`, at most [`THREADS_PER_CORE`] × `cores` (and the note saying so).
pub fn thread_count(asked: usize, cores: usize) -> (usize, Option<String>) {
    let cap = THREADS_PER_CORE * cores.max(1);
    if asked > cap {
        let note = format!(
            "-j {asked}: using {cap} threads ({THREADS_PER_CORE} per core on {} cores); more only slow cctree down",
            cores.max(1)
        );
        (cap, Some(note))
    } else {
        (asked.max(1), None)
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<Outcome> {
    if let Some(jobs) = cli.jobs {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let (threads, note) = thread_count(jobs, cores);
        if let Some(note) = note {
            tracing::warn!("{note}");
        }
        // Ignore the error if a pool already exists (tests call `run` repeatedly).
        let _ = rayon::ThreadPoolBuilder::new().num_threads(threads).build_global();
    }
    match cli.command {
        Some(Command::Stats(args)) => stats(&args),
        Some(Command::Check(args)) => check(&args),
        Some(Command::Fork(args)) => fork(&args),
        Some(Command::Sync(args)) => sync(&args, cli.quiet),
        Some(Command::Render(args)) => render(&args, cli.quiet),
        None => plain(cli.quiet),
    }
}

/// Plain `cctree`: renders the default input, or, when an archive exists,
/// syncs into it and renders the archive.
fn plain(quiet: bool) -> Result<Outcome> {
    let mut args = RenderArgs::default_args();
    if let Some(archive) = crate::sync::existing_archive() {
        if discover::default_projects_dir().is_some_and(|d| d.is_dir()) {
            args.sync = true;
        } else {
            if !quiet {
                crate::term::print_err(&format!(
                    "note: no projects directory to sync from: rendering the archive {} as it is\n",
                    crate::term::safe(archive.display())
                ));
            }
            args.input = vec![archive];
        }
    }
    render(&args, quiet)
}

/// `cctree render`, after a sync with `--sync`.
fn render(args: &RenderArgs, quiet: bool) -> Result<Outcome> {
    if !args.sync {
        return crate::render::run(args, quiet);
    }
    if args.input.len() > 1 {
        anyhow::bail!("--sync takes one INPUT: a projects directory or one project directory");
    }
    let archive = crate::sync::default_archive_dir()
        .context("set CCTREE_ARCHIVE (or HOME) to say where the archive is, or render without --sync")?;
    let opts = crate::sync::SyncOptions {
        input: args.input.first().cloned(),
        archive: archive.clone(),
        dry_run: false,
        progress: !quiet,
    };
    let report = crate::sync::sync(&opts)?;
    if !quiet {
        crate::term::print_err(&report.text());
    }
    if !report.errors.is_empty() {
        anyhow::bail!("{}", report.error_text());
    }
    crate::render::run(&RenderArgs { input: vec![archive], ..args.clone() }, quiet)
}

/// `cctree sync`.
fn sync(args: &SyncArgs, quiet: bool) -> Result<Outcome> {
    let archive = match &args.to {
        Some(dir) => dir.clone(),
        None => crate::sync::default_archive_dir().context("neither CCTREE_ARCHIVE nor HOME is set: pass --to DIR")?,
    };
    let opts = crate::sync::SyncOptions {
        input: args.input.clone(),
        archive,
        dry_run: args.dry_run,
        progress: !quiet && !args.json,
    };
    let report = crate::sync::sync(&opts)?;
    if args.json {
        print_json(&report)?;
    } else if !quiet {
        print_out(&report.text())?;
    }
    if !report.errors.is_empty() {
        anyhow::bail!("{}", report.error_text());
    }
    Ok(Outcome::Clean)
}

/// Prints the warnings of discovery met outside any project (an unreadable
/// project directory, a stray transcript in the projects directory).
pub fn report_archive_warnings(archive: &Archive) {
    for w in &archive.warnings {
        tracing::warn!("{w}");
    }
}

/// Loads each project in turn and hands it to `f`; one project is in memory at a time.
pub fn for_each_project(archive: Archive, mut f: impl FnMut(Project) -> Result<()>) -> Result<()> {
    report_archive_warnings(&archive);
    let progress = crate_progress(archive.projects.len() as u64);
    for source in archive.projects {
        for w in &source.warnings {
            progress.suspend(|| tracing::warn!("{w}"));
        }
        progress.set_message(crate::term::escape(&source.name).into_owned());
        let project = Project::load(source);
        report_line_warnings(&project, &progress);
        f(project)?;
        progress.inc(1);
    }
    progress.finish_and_clear();
    Ok(())
}

pub(crate) fn crate_progress(len: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(Some(len), indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} projects  {wide_msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar
}

/// Prints every warning about a project's files ([`crate::warnings`]), with
/// `path:line`, and returns them.
pub(crate) fn report_line_warnings(p: &Project, progress: &indicatif::ProgressBar) -> Vec<crate::warnings::Warning> {
    let warnings = crate::warnings::of_project(p);
    print_warnings(&p.source.dir, &warnings, progress);
    warnings
}

/// Prints warnings of the project in `dir`.
pub(crate) fn print_warnings(
    dir: &std::path::Path,
    warnings: &[crate::warnings::Warning],
    progress: &indicatif::ProgressBar,
) {
    for w in warnings {
        // One warning, one line: the path and the reason are escaped whole.
        progress.suspend(|| tracing::warn!("{}", crate::term::safe(w.show(dir))));
    }
}

fn stats(args: &StatsArgs) -> Result<Outcome> {
    let archive = discover::discover(&args.input)?;
    let record = crate::sync::record::find(&archive.root).map(|(_, r)| r);
    let mut builder =
        ReportBuilder::new(StatsOptions { detail: args.detail, exclude_own_forks: args.exclude_own_forks })
            .with_archive(record);
    for_each_project(archive, |p| {
        builder.add(&p);
        Ok(())
    })?;
    let report = builder.finish();
    if args.json {
        print_json(&report)?;
    } else {
        print_out(&crate::stats::table(&report))?;
    }
    Ok(Outcome::Clean)
}

/// Prints `value` as pretty JSON on stdout (see [`crate::term::json`]).
fn print_json(value: &impl serde::Serialize) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value).context("writing JSON")?;
    text.push('\n');
    print_out(&crate::term::json(&text))
}

/// Prints `text` on stdout (see [`crate::term::print_out`]).
fn print_out(text: &str) -> Result<()> {
    crate::term::print_out(text).context("cannot write to standard output")
}

fn fork(args: &crate::cli::ForkArgs) -> Result<Outcome> {
    let plan = crate::fork::cmd::run(args)?;
    if args.json {
        print_json(&plan)?;
    } else {
        print_out(&crate::fork::cmd::text(&plan))?;
    }
    Ok(Outcome::Clean)
}

fn check(args: &CheckArgs) -> Result<Outcome> {
    let archive = discover::discover(&args.input)?;
    let mut findings = Vec::new();
    for_each_project(archive, |p| {
        findings.extend(crate::check::check_project(&p));
        Ok(())
    })?;
    if args.json {
        let counts: serde_json::Map<String, serde_json::Value> =
            crate::check::summarize(&findings).into_iter().map(|(k, n)| (k.to_string(), n.into())).collect();
        print_json(&serde_json::json!({ "findings": findings, "counts": counts }))?;
    } else {
        print_out(&crate::check::text(&findings))?;
    }
    Ok(if findings.is_empty() { Outcome::Clean } else { Outcome::Findings })
}

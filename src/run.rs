//! The commands: the command line → the stages → what is printed, and how
//! the command ended. The only module that knows the command line
//! ([`crate::cli`]); `render` runs the build stage ([`crate::build`]).

use anyhow::{Context, Result};

use crate::build::BuildOptions;
use crate::cli::{
    CheckArgs, Cli, Command, CompletionsArgs, ExportArgs, ExportFormat, ManArgs, RenderArgs, SelectArgs, ServeArgs,
    StatsArgs, SyncArgs,
};
use crate::discover;
use crate::driver::for_each_project;
use crate::limits::THREADS_PER_CORE;
use crate::select::Selection;
use crate::stats::{ReportBuilder, StatsOptions};

/// How a command ended (errors are `Err`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Done, nothing to report.
    Clean,
    /// Done, with findings (`check`), or done but for what `--open` asked
    /// (the browser failed) — exit code 1.
    Findings,
}

impl Status {
    pub fn exit_code(self) -> u8 {
        match self {
            Status::Clean => 0,
            Status::Findings => 1,
        }
    }
}

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
pub fn run(cli: Cli) -> Result<Status> {
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
        Some(Command::Stats(args)) => stats(&args, cli.quiet),
        Some(Command::Check(args)) => check(&args, cli.quiet),
        Some(Command::Completions(args)) => completions(&args),
        Some(Command::Man(args)) => man(&args, cli.quiet),
        Some(Command::Fork(args)) => fork(&args),
        Some(Command::Sync(args)) => sync(&args, cli.quiet),
        Some(Command::Export(args)) => export(&args, cli.quiet),
        Some(Command::Render(args)) => render(&args, cli.quiet),
        Some(Command::Serve(args)) => serve(&args, cli.quiet),
        Some(Command::Prices(args)) => prices(&args),
        None => plain(cli.quiet),
    }
}

/// Plain `cctree`: renders the default input, or, when an archive exists,
/// syncs into it and renders the archive.
fn plain(quiet: bool) -> Result<Status> {
    let mut args = RenderArgs::default_args();
    if let Some(archive) = crate::layout::existing_archive() {
        if crate::sync::has_default_source() {
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
fn render(args: &RenderArgs, quiet: bool) -> Result<Status> {
    if !args.sync {
        let status = build(args, quiet)?;
        let folders: Vec<(crate::model::Client, std::path::PathBuf)> = match args.input.as_slice() {
            [] => (crate::agent::ALL.iter())
                .filter_map(|c| Some((*c, crate::agent::of(*c).default_dir().filter(|d| d.is_dir())?)))
                .collect(),
            [one] => vec![discover::agent_of_dir(one)],
            _ => Vec::new(),
        };
        cleanup_warning(&folders, crate::layout::existing_archive().as_deref(), "cctree sync", quiet);
        return Ok(status);
    }
    if args.input.len() > 1 {
        anyhow::bail!("--sync takes one INPUT: a projects directory or one project directory");
    }
    let archive = crate::layout::default_archive_dir()
        .context("no default archive (CCTREE_ARCHIVE is not set and no home directory is known): set CCTREE_ARCHIVE, or render without --sync")?;
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
    let status = build(&RenderArgs { input: vec![archive.clone()], ..args.clone() }, quiet)?;
    cleanup_warning(&report.sources, Some(&archive), "cctree sync", quiet);
    Ok(status)
}

/// What `cctree serve` reads: INPUT; with `--sync`, or with no INPUT when
/// the archive exists (as plain `cctree`), the archive, synced first from
/// INPUT or the client's projects directory.
struct ServeInput {
    /// Given to discovery.
    input: Vec<std::path::PathBuf>,
    /// Synced into the archive before each render: the source (`None`: the default).
    sync: Option<Option<std::path::PathBuf>>,
}

fn serve_input(args: &ServeArgs, quiet: bool) -> Result<ServeInput> {
    let archive = || {
        crate::layout::default_archive_dir()
            .context("no default archive (CCTREE_ARCHIVE is not set and no home directory is known): set CCTREE_ARCHIVE, or serve without --sync")
    };
    if args.sync {
        if args.input.len() > 1 {
            anyhow::bail!("--sync takes one INPUT: a projects directory or one project directory");
        }
        return Ok(ServeInput { input: vec![archive()?], sync: Some(args.input.first().cloned()) });
    }
    if !args.input.is_empty() {
        return Ok(ServeInput { input: args.input.clone(), sync: None });
    }
    let Some(existing) = crate::layout::existing_archive() else {
        return Ok(ServeInput { input: Vec::new(), sync: None });
    };
    if crate::sync::has_default_source() {
        return Ok(ServeInput { input: vec![existing], sync: Some(None) });
    }
    if !quiet {
        crate::term::print_err(&format!(
            "note: no projects directory to sync from: serving the archive {} as it is\n",
            crate::term::safe(existing.display())
        ));
    }
    Ok(ServeInput { input: vec![existing], sync: None })
}

/// `cctree serve`: the render of `cctree render` (with `--sync`'s sync
/// before it), run again by the server after each change.
fn serve(args: &ServeArgs, quiet: bool) -> Result<Status> {
    let what = serve_input(args, quiet)?;
    let selection = selection(&args.select, &what.input)?;
    let site = match &args.output {
        Some(dir) => dir.clone(),
        None => {
            let key = match what.input.is_empty() {
                true => discover::default_inputs(crate::agent::ALL)?,
                false => what.input.clone(),
            };
            let site = crate::serve::default_site(&key, if what.sync.is_some() { "sync" } else { "" })?;
            crate::serve::make_parent(&site)?;
            site
        }
    };
    let opts = BuildOptions {
        output: site.clone(),
        page_size: args.page_size,
        force: false,
        // The user's rules too (home directories, the user's name), as render's.
        redact: redaction(args.redact, None)?,
        show_paths: args.show_paths,
        selection,
        base_url: None,
        sitemap: false,
        progress: false,
        prices: price_table(args.prices.as_deref())?,
    };
    let redact = args.redact;
    let rebuild = move |round: crate::serve::Round| -> Result<crate::serve::Built> {
        let first = round == crate::serve::Round::First;
        let mut read = Vec::new();
        if let Some(source) = &what.sync {
            read.extend(sync_for_serve(source.as_deref(), first && !quiet)?);
        }
        let archive = discover::discover(&what.input)?;
        if first {
            notes(&archive, quiet);
        }
        read.extend(archive.inputs.iter().cloned());
        // The prompt logs the build reads for deleted sessions' prompts.
        read.extend(crate::build::prompt_logs(&archive));
        let summary = crate::build::build(archive, &BuildOptions { progress: first && !quiet, ..opts.clone() })?;
        let repeated = crate::term::take_repeated_warnings();
        if first && !quiet {
            report_redactions(&summary.redactions);
            crate::term::print_err(&format!("{}\n", crate::serve::Summary(&summary, repeated)));
            for note in &summary.notes {
                crate::term::print_err(&format!("note: {note}\n"));
            }
        } else if !quiet && redact {
            report_redactions(&summary.redactions);
        }
        Ok(crate::serve::Built { summary, repeated, read })
    };
    let opts = crate::serve::ServeOptions { site, bind: args.bind, port: args.port, open: args.open, quiet };
    crate::serve::serve(&opts, Box::new(rebuild))?;
    Ok(Status::Clean)
}

/// The sync before each render of `cctree serve --sync`: its report the
/// first time, then only its problems. Returns the source directories it
/// synced (watched): Claude Code's, and Codex CLI's and Gemini CLI's when
/// they were synced too.
fn sync_for_serve(source: Option<&std::path::Path>, first: bool) -> Result<Vec<std::path::PathBuf>> {
    let archive = crate::layout::default_archive_dir().context("no default archive")?;
    let opts = crate::sync::SyncOptions {
        input: source.map(std::path::Path::to_path_buf),
        archive,
        dry_run: false,
        progress: first,
    };
    let report = crate::sync::sync(&opts)?;
    if first {
        crate::term::print_err(&report.text());
    } else {
        for w in &report.warnings {
            tracing::warn!("{w}");
        }
    }
    if !report.errors.is_empty() {
        anyhow::bail!("{}", report.error_text());
    }
    let mut sources = vec![report.source];
    sources.extend(report.clients.into_iter().map(|(_, source, _)| source));
    Ok(sources)
}

/// The selection of the command line (`--project`, `--conversation`,
/// `--since`, `--until`); bare dates are read in the local time zone.
fn selection(args: &SelectArgs, input: &[std::path::PathBuf]) -> Result<Selection> {
    let named: Vec<String> = input.iter().map(|p| crate::term::safe(p.display()).to_string()).collect();
    let input = match named.is_empty() {
        true => crate::agent::claude::discover::default_projects_dir()
            .map_or_else(|| "the default projects directory".into(), |d| crate::term::safe(d.display()).to_string()),
        false => named.join(" "),
    };
    Ok(Selection::new(
        &args.projects,
        &args.conversations,
        args.since.as_deref(),
        args.until.as_deref(),
        &jiff::tz::TimeZone::system(),
        &input,
    )?
    .with_agents(&args.agents))
}

/// Whether `--redact` is on (`--redact-file` and `--redact-dry-run` imply
/// it); when it is, sets the process's user rules: the words of the file,
/// home directories and the user's name.
fn redaction(redact: bool, file: Option<&std::path::Path>) -> Result<bool> {
    if !redact && file.is_none() {
        return Ok(false);
    }
    let text = match file {
        Some(f) => Some(std::fs::read_to_string(f).with_context(|| {
            format!("cannot read the --redact-file {}: check the path and that it is UTF-8 text", f.display())
        })?),
        None => None,
    };
    let name = file.map(|f| f.display().to_string()).unwrap_or_default();
    let home = std::env::var("HOME").ok();
    let user = std::env::var("USER")
        .ok()
        .or_else(|| std::env::var("LOGNAME").ok())
        .or_else(|| home.as_deref().and_then(|h| h.trim_end_matches('/').rsplit('/').next()).map(str::to_string));
    let rules = crate::redact::UserRules::new(
        text.as_deref().map(|t| (name.as_str(), t)),
        true,
        home.as_deref(),
        user.as_deref(),
    )
    .map_err(|e| anyhow::anyhow!("{e} (in --redact-file; see the guide, docs/guide/publishing.md)"))?;
    crate::redact::configure(rules);
    Ok(true)
}

/// `render --redact-dry-run`: where `--redact` would replace what; writes nothing.
fn redact_dry_run(args: &RenderArgs) -> Result<Status> {
    let selection = selection(&args.select, &args.input)?;
    let archive = discover::discover(&args.input)?;
    let sites = crate::build::redact_dry_run(&archive, &|p| selection.wants(p));
    let n: usize = sites.iter().map(crate::render::site::redactor::RedactionSite::count).sum();
    let total = format!(
        "would redact {n} secret{} in {} place{} (nothing written)\n",
        if n == 1 { "" } else { "s" },
        sites.len(),
        if sites.len() == 1 { "" } else { "s" }
    );
    let out: String =
        sites.iter().map(|s| format!("would redact: {}\n", crate::term::safe(s))).chain([total]).collect();
    print_out(&out)?;
    Ok(Status::Clean)
}

/// Builds the site, then prints the summary line (and where secrets were replaced).
fn build(args: &RenderArgs, quiet: bool) -> Result<Status> {
    let redact = redaction(args.redact || args.redact_dry_run, args.redact_file.as_deref())?;
    if args.redact_dry_run {
        return redact_dry_run(args);
    }
    if args.output.as_os_str() == "-" {
        anyhow::bail!(
            "a site is a folder of pages, it cannot go to stdout: give a folder (`-o site`); \
             `cctree export TARGET -o -` prints one conversation"
        );
    }
    let selection = selection(&args.select, &args.input)?;
    let t0 = std::time::Instant::now();
    let archive = discover::discover(&args.input)?;
    notes(&archive, quiet);
    tracing::debug!("discovered in {:.3} s", t0.elapsed().as_secs_f64());
    // The hint to redact is for a site about to be published: a new one, or
    // one given the URL it is published at.
    let new_site = !args.output.join("index.html").exists();
    let opts = BuildOptions {
        output: args.output.clone(),
        page_size: args.page_size,
        force: args.force,
        redact,
        show_paths: args.show_paths,
        selection,
        base_url: args.base_url.clone(),
        sitemap: args.sitemap,
        progress: !quiet,
        prices: price_table(args.prices.as_deref())?,
    };
    let summary = crate::build::build(archive, &opts)?;
    if !quiet {
        report_redactions(&summary.redactions);
        let index = args.output.join("index.html");
        crate::term::print_err(&format!("{summary} → {}\n", crate::term::safe(index.display())));
        for note in &summary.notes {
            crate::term::print_err(&format!("note: {note}\n"));
        }
        if !redact && (new_site || args.base_url.is_some() || args.sitemap) {
            crate::term::print_err(
                "hint: before publishing the site, render it with --redact to replace API keys, tokens and passwords\n",
            );
        }
    }
    if args.open {
        let index = args.output.join("index.html");
        if let Err(e) = crate::browser::open(&index.to_string_lossy()) {
            // Said even with -q: what was asked for did not happen.
            crate::term::print_err(&format!(
                "error: the site is written, but the browser did not open it: {e:#}\nhint: open {} yourself\n",
                crate::term::safe(index.display())
            ));
            return Ok(Status::Findings);
        }
    }
    Ok(Status::Clean)
}

/// `cctree sync --schedule` / `--unschedule`: the plan shown, then (asked on
/// a terminal, or with `--yes`) carried out.
fn schedule(args: &SyncArgs, archive: &std::path::Path) -> Result<Status> {
    use crate::schedule::{Dirs, apply, detect, install, read_crontab, remove, text};
    let scheduler = detect()?;
    let dirs = Dirs::current()?;
    let crontab = match scheduler {
        crate::schedule::Scheduler::Cron => read_crontab()?,
        _ => String::new(),
    };
    let plan = if args.schedule {
        let input = match &args.input {
            Some(p) => p.clone(),
            None => crate::agent::claude::discover::default_projects_dir().context(
                "no default projects directory (CLAUDE_CONFIG_DIR is not set and no home directory is known): \
                 pass the projects directory to sync, `cctree sync DIR --schedule`",
            )?,
        };
        if !input.is_dir() {
            anyhow::bail!(
                "{} is not a directory: schedule the sync of the projects directory Claude Code writes to",
                input.display()
            );
        }
        let program = std::env::current_exe().context("cannot tell where this cctree is installed")?;
        let words = ["-q".into(), "sync".into(), crate::files::resolve(&input).to_string_lossy().into_owned()];
        let mut words: Vec<String> = words.to_vec();
        words.extend(["--to".into(), crate::files::resolve(archive).to_string_lossy().into_owned()]);
        install(scheduler, &dirs, &program, &words, &crontab)
    } else {
        remove(scheduler, &dirs, &crontab)?
    };
    print_out(&text(scheduler, &plan, args.schedule))?;
    if plan.nothing.is_some() || args.dry_run {
        return Ok(Status::Clean);
    }
    if !args.yes {
        use std::io::IsTerminal;
        if !std::io::stdin().is_terminal() {
            anyhow::bail!("nothing written: pass --yes to {} it", if args.schedule { "write" } else { "remove" });
        }
        crate::term::print_err("go ahead? [y/N] ");
        let mut answer = String::new();
        std::io::stdin().read_line(&mut answer).context("reading the answer")?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            crate::term::print_err("nothing written\n");
            return Ok(Status::Clean);
        }
    }
    for note in apply(&plan, args.schedule)? {
        crate::term::print_err(&format!("warning: {note}\n"));
    }
    print_out(if args.schedule {
        "scheduled: cctree syncs every hour (`cctree sync --unschedule` removes it)\n"
    } else {
        "removed: cctree no longer syncs on a schedule\n"
    })?;
    Ok(Status::Clean)
}

/// `cctree sync`.
fn sync(args: &SyncArgs, quiet: bool) -> Result<Status> {
    let archive = match &args.to {
        Some(dir) => dir.clone(),
        None => crate::layout::default_archive_dir()
            .context("no default archive (CCTREE_ARCHIVE is not set and no home directory is known): pass --to DIR")?,
    };
    if args.schedule || args.unschedule {
        return schedule(args, &archive);
    }
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
    let default = crate::layout::default_archive_dir();
    let command = match &args.to {
        Some(to) if default.as_deref().is_none_or(|d| crate::files::resolve(d) != crate::files::resolve(to)) => {
            format!("cctree sync --to {}", crate::term::shell_quote(&to.to_string_lossy()))
        }
        _ => "cctree sync".to_string(),
    };
    cleanup_warning(&report.sources, Some(&report.archive), &command, quiet);
    Ok(Status::Clean)
}

/// Warns (on stderr, unless `quiet`) about what each agent's own clean-up
/// deletes next that `archive` does not hold yet, of the agents' folders
/// `folders` (inputs, or a sync's sources) that are their default folders,
/// and names `command`, the one that keeps it (`Agent::cleanup_warning`:
/// Claude Code's `cleanupPeriodDays`). `CCTREE_TEST_NOW` (RFC 3339) stands
/// for the time in tests.
fn cleanup_warning(
    folders: &[(crate::model::Client, std::path::PathBuf)],
    archive: Option<&std::path::Path>,
    command: &str,
    quiet: bool,
) {
    if quiet {
        return;
    }
    let now = std::env::var("CCTREE_TEST_NOW").ok().and_then(|t| crate::timestamp::parse_timestamp(&t)).unwrap_or_else(
        || {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        },
    );
    for (client, folder) in folders {
        if let Some(w) = crate::agent::of(*client).cleanup_warning(folder, archive, command, now) {
            crate::term::print_err(&crate::term::escape_text(&w));
        }
    }
}

fn stats(args: &StatsArgs, quiet: bool) -> Result<Status> {
    let selection = selection(&args.select, &args.input)?;
    let mut archive = discover::discover(&args.input)?;
    notes(&archive, quiet);
    let record = crate::sync::record::find(&archive.root).map(|(_, r)| r);
    // Sessions only the prompt history holds (as the site shows them).
    let (recovery, warned) = crate::build::Recovery::read(&archive);
    for w in &warned {
        tracing::warn!("{w}");
    }
    recovery.add_projects(&mut archive);
    let mut builder =
        ReportBuilder::new(StatsOptions { detail: args.detail, exclude_own_forks: args.exclude_own_forks })
            .with_archive(record)
            .with_history(!recovery.logs().is_empty())
            .selected(!selection.is_everything());
    for_each_project(archive, &selection, quiet, true, |p| {
        let t = std::time::Instant::now();
        let recovered = recovery.sessions(p);
        builder.add_recovered(&recovered.into_iter().filter(|s| selection.keeps_recovered(s)).collect::<Vec<_>>());
        builder.add(p);
        tracing::debug!("{}: stats in {:.3} s", p.source.name, t.elapsed().as_secs_f64());
        Ok(())
    })?;
    let report = builder.finish();
    if args.json {
        print_json(&report)?;
    } else {
        print_out(&crate::stats::table(&report, crate::term::stdout_width()))?;
    }
    Ok(Status::Clean)
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

fn fork(args: &crate::cli::ForkArgs) -> Result<Status> {
    let req = crate::fork::ForkRequest {
        target: args.target.clone(),
        at: args.at.clone(),
        title: args.title.clone(),
        dry_run: args.dry_run,
        projects: args.projects.clone(),
        backfill: args.backfill,
    };
    let fork = crate::fork::fork(&req)?;
    if args.json {
        print_json(&fork)?;
    } else {
        print_out(&fork.text())?;
    }
    Ok(Status::Clean)
}

/// `cctree export`: one conversation as one file (`-o -`: on stdout).
fn export(args: &ExportArgs, quiet: bool) -> Result<Status> {
    let md = args.output.extension().is_some_and(|e| e.eq_ignore_ascii_case("md"));
    let format = match args.format {
        Some(ExportFormat::Md) => crate::export::Format::Markdown,
        Some(ExportFormat::Html) => crate::export::Format::Html,
        None if md => crate::export::Format::Markdown,
        None => crate::export::Format::Html,
    };
    let to_stdout = args.output.as_os_str() == "-";
    let redact = redaction(args.redact, args.redact_file.as_deref())?;
    let req = crate::export::ExportRequest {
        target: args.target.clone(),
        output: (!to_stdout).then(|| args.output.clone()),
        format,
        projects: args.projects.clone(),
        redact,
        show_paths: args.show_paths,
        prices: price_table(args.prices.as_deref())?,
    };
    let r = crate::export::run(&req)?;
    if let Some(text) = &r.text {
        crate::term::print_document(text).context("cannot write to standard output")?;
    }
    if !quiet {
        report_redactions(&r.redactions);
        let warnings = match r.warnings {
            0 => String::new(),
            n => format!(", {}", crate::term::plural(n, "warning", "warnings")),
        };
        let to = match to_stdout {
            true => "standard output".to_string(),
            false => crate::term::safe(args.output.display()).to_string(),
        };
        crate::term::print_err(&format!(
            "exported {} ({}, {}, {}{warnings}) → {to} ({})\n",
            crate::term::safe(crate::render::plain::excerpt(&r.title, crate::limits::REPORT_TITLE_CHARS)),
            crate::term::plural(r.messages as usize, "message", "messages"),
            crate::term::plural(r.branches, "branch", "branches"),
            crate::term::plural(r.agents, "agent transcript", "agent transcripts"),
            crate::render::plain::human_size(r.bytes)
        ));
        if !redact {
            crate::term::print_err(
                "hint: before sharing the file, export it with --redact to replace API keys, tokens and passwords\n",
            );
        }
    }
    Ok(Status::Clean)
}

/// `cctree completions SHELL`: the completion script, made from the command line's definition.
/// `--prices FILE`, read and checked, else the bundled table.
fn price_table(file: Option<&std::path::Path>) -> Result<crate::cost::PriceTable> {
    match file {
        None => Ok(crate::cost::PriceTable::bundled()),
        Some(f) => Ok(crate::cost::PriceTable::load(f)?),
    }
}

/// `cctree prices`: the table in use, as text or as its JSON.
fn prices(args: &crate::cli::PricesArgs) -> Result<Status> {
    let t = price_table(args.prices.as_deref())?;
    let text = if args.json { t.text.to_string() } else { t.prices.listing(&t.origin) };
    print_out(&text)?;
    Ok(Status::Clean)
}

fn completions(args: &CompletionsArgs) -> Result<Status> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut crate::cli::command(), "cctree", &mut script);
    print_document(&script)?;
    Ok(Status::Clean)
}

/// `cctree man`: cctree(1) on stdout; with `--dir`, it and one page per
/// command (`cctree-render.1`…) written into the directory.
fn man(args: &ManArgs, quiet: bool) -> Result<Status> {
    let mut cmd = crate::cli::command().disable_help_subcommand(true);
    cmd.build();
    let page = |cmd: &clap::Command| -> Result<(String, Vec<u8>)> {
        let man = clap_mangen::Man::new(cmd.clone());
        let mut roff = Vec::new();
        man.render(&mut roff).context("writing the man page")?;
        Ok((man.get_filename(), roff))
    };
    let Some(dir) = &args.dir else {
        print_document(&page(&cmd)?.1)?;
        return Ok(Status::Clean);
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut pages = vec![page(&cmd)?];
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        pages.push(page(sub)?);
    }
    for (name, roff) in &pages {
        let path = dir.join(name);
        crate::files::write(&path, roff, crate::files::Access::Default)
            .with_context(|| format!("cannot write {}: check that the directory is writable", path.display()))?;
        if !quiet {
            crate::term::print_err(&format!("wrote {}\n", crate::term::safe(path.display())));
        }
    }
    Ok(Status::Clean)
}

/// Writes generated text (a script, a man page) on stdout as it is.
fn print_document(bytes: &[u8]) -> Result<()> {
    crate::term::print_document(&String::from_utf8_lossy(bytes)).context("cannot write to standard output")
}

/// Prints what discovery noted about the input (the Claude Code configuration
/// directory read for its `projects/`), unless `quiet`.
fn notes(archive: &discover::Archive, quiet: bool) {
    if !quiet {
        for n in &archive.notes {
            crate::term::print_err(&format!("note: {n}\n"));
        }
    }
}

fn check(args: &CheckArgs, quiet: bool) -> Result<Status> {
    let selection = selection(&args.select, &args.input)?;
    let archive = discover::discover(&args.input)?;
    notes(&archive, quiet);
    let mut findings = Vec::new();
    // Each warning about a line is a finding, printed once, in line order.
    for_each_project(archive, &selection, quiet, false, |p| {
        findings.extend(crate::check::check_project(p));
        Ok(())
    })?;
    if args.json {
        let counts: serde_json::Map<String, serde_json::Value> =
            crate::check::summarize(&findings).into_iter().map(|(k, n)| (k.to_string(), n.into())).collect();
        print_json(&serde_json::json!({ "findings": findings, "counts": counts }))?;
    } else {
        print_out(&crate::check::text(&findings))?;
    }
    Ok(if findings.is_empty() { Status::Clean } else { Status::Findings })
}

/// Prints `redacted: <place>: 2 × github-token, …` lines on stderr, at most
/// [`crate::limits::REDACTION_REPORT_LINES`], then a count of the rest.
fn report_redactions(sites: &[crate::render::site::redactor::RedactionSite]) {
    use crate::term::{print_err, safe};
    for r in sites.iter().take(crate::limits::REDACTION_REPORT_LINES) {
        print_err(&format!("redacted: {}\n", safe(r)));
    }
    if sites.len() > crate::limits::REDACTION_REPORT_LINES {
        let rest = &sites[crate::limits::REDACTION_REPORT_LINES..];
        let n: usize = rest.iter().map(crate::render::site::redactor::RedactionSite::count).sum();
        print_err(&format!("redacted: … and {n} more in {} more places\n", rest.len()));
    }
}

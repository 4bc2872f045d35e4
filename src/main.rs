//! The `cctree` binary: parse the command line, run, map the outcome to an exit code.

use std::ffi::OsString;
use std::process::ExitCode;

use cctree::cli::{Cli, ColorWhen};
use clap::FromArgMatches;

/// mimalloc, not the system's allocator: a render makes and drops millions
/// of small strings and vectors (the model's, the pages', the search
/// index's), in 5–8% fewer instructions than with glibc's malloc; built
/// without transparent huge pages, which cost 70–80 MB of resident memory
/// (`docs/performance.md`, "A global allocator"). Its `override` feature
/// makes it the C libraries' `malloc` too: oniguruma (syntect's regexes)
/// allocates and frees a match region at every search, 6% of a render's
/// instructions with glibc's malloc (`docs/performance.md`, "Highlighting").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    let color = match color_flag(&args) {
        Some(ColorWhen::Always) => clap::ColorChoice::Always,
        Some(ColorWhen::Never) => clap::ColorChoice::Never,
        _ => clap::ColorChoice::Auto,
    };
    let matches = match cctree::cli::coloured(color).try_get_matches_from(&args) {
        Ok(m) => m,
        Err(e) => return usage_error(&e),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    let colour = cctree::term::stderr_colour(match cli.color {
        ColorWhen::Auto => None,
        ColorWhen::Always => Some(true),
        ColorWhen::Never => Some(false),
    });
    init_logging(cli.quiet, cli.verbose, colour);
    match cctree::run(cli) {
        Ok(status) => ExitCode::from(status.exit_code()),
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            cctree::term::print_err(&format!("error: {err:#}\n"));
            ExitCode::from(2)
        }
    }
}

/// The last `--color WHEN` of the command line, read before clap parses it
/// so that clap's own help and errors follow it too.
fn color_flag(args: &[OsString]) -> Option<ColorWhen> {
    let mut found = None;
    let mut it = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(a) = it.next() {
        let value = match a.as_ref() {
            "--" => break,
            "--color" => it.next().map(|v| v.into_owned()),
            s => s.strip_prefix("--color=").map(str::to_string),
        };
        found = match value.as_deref() {
            Some("always") => Some(ColorWhen::Always),
            Some("never") => Some(ColorWhen::Never),
            Some("auto") => Some(ColorWhen::Auto),
            _ => found,
        };
    }
    found
}

/// A command line clap refuses (or `--help`, `--version`). `cctree DIR`,
/// a path where a command goes, gets a hint at `cctree render DIR`.
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() == ErrorKind::InvalidSubcommand {
        if let Some(ContextValue::String(word)) = e.get(ContextKind::InvalidSubcommand) {
            let path = std::path::Path::new(word);
            if path.exists() || word.contains(['/', '\\']) || word.ends_with(".jsonl") {
                let q = cctree::term::shell_quote(word);
                cctree::term::print_err(&format!(
                    "error: {} is a path, not a command\nhint: `cctree render {q}` renders it into ./cctree-site \
                     (`cctree stats {q}` counts what it holds); `cctree --help` lists the commands\n",
                    cctree::term::safe(word)
                ));
                return ExitCode::from(2);
            }
        }
    }
    let _ = e.print();
    ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2))
}

/// The log on stderr: `-v` info, `-vv` debug, `-vvv` trace; else the filter
/// of `CCTREE_LOG`, else of `RUST_LOG`; else warnings (errors only with `-q`).
fn init_logging(quiet: bool, verbose: u8, colour: bool) {
    use tracing_subscriber::EnvFilter;
    let filter = match verbose {
        0 => EnvFilter::try_from_env("CCTREE_LOG")
            .or_else(|_| EnvFilter::try_from_default_env())
            .unwrap_or_else(|_| EnvFilter::new(if quiet { "error" } else { "warn" })),
        1 => EnvFilter::new("info"),
        2 => EnvFilter::new("debug"),
        _ => EnvFilter::new("trace"),
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(cctree::term::Stderr)
        .log_internal_errors(false)
        .with_ansi(colour)
        .event_format(cctree::term::LogFormat { colour })
        .init();
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .any(|e| e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}

//! The `cctree` binary: parse the command line, run, map the outcome to an exit code.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cctree::cli::Cli::parse();
    init_logging(cli.quiet);
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

fn init_logging(quiet: bool) {
    use tracing_subscriber::EnvFilter;
    let default = if quiet { "error" } else { "warn" };
    let filter = EnvFilter::try_from_env("CCTREE_LOG").unwrap_or_else(|_| EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(cctree::term::Stderr)
        .log_internal_errors(false)
        .with_target(false)
        .without_time()
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .any(|e| e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}

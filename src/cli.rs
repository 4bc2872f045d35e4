//! Command-line interface. The doc comments are the `--help` text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Turn a Claude Code transcript archive into a browsable static site, with
/// every fork and branch of every conversation.
///
/// INPUT is a projects directory (default: $CLAUDE_CONFIG_DIR/projects, else
/// ~/.claude/projects), one project directory, or JSONL files.
/// With no subcommand, `cctree` renders the default input into ./cctree-site.
#[derive(Debug, Parser)]
#[command(name = "cctree", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Worker threads (default: one per core).
    #[arg(long, short = 'j', global = true, value_name = "N")]
    pub jobs: Option<usize>,

    /// Only print errors.
    #[arg(long, short = 'q', global = true)]
    pub quiet: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Render the archive as a static website.
    Render(RenderArgs),
    /// Count what the archive holds: nodes, roots, leaves, forks, branches…
    Stats(StatsArgs),
    /// Verify the archive's invariants (P1 unique uuids, P2 parents, P3 tool
    /// balance, cycles, bad lines). Exit 0 when clean, 1 with findings, 2 on error.
    Check(CheckArgs),
}

#[derive(Debug, Args, Default)]
pub struct RenderArgs {
    /// Projects directory, project directory or JSONL files.
    pub input: Vec<PathBuf>,

    /// Output directory (must not be inside the input).
    #[arg(long, short = 'o', default_value = "cctree-site")]
    pub output: PathBuf,

    /// Turns per page on conversation, branch and agent pages.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..))]
    pub page_size: u32,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Projects directory, project directory or JSONL files.
    pub input: Vec<PathBuf>,

    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,

    /// Add every conversation, fork point and branch (`projects_detail`).
    #[arg(long)]
    pub detail: bool,

    /// Leave out sessions written by `cctree fork`.
    #[arg(long)]
    pub exclude_own_forks: bool,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Projects directory, project directory or JSONL files.
    pub input: Vec<PathBuf>,

    /// Print findings as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        Cli::command().debug_assert();
    }
}

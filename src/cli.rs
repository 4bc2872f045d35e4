//! Command-line interface. The doc comments are the `--help` text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Turn coding agents' transcripts (Claude Code, Codex CLI, Gemini CLI, …)
/// into a browsable static site, with every fork and branch of every
/// conversation.
///
/// INPUT is an agent's folder (Claude Code's projects directory, Codex CLI's
/// sessions, Gemini CLI's tmp, … — default: every one that exists, listed
/// below), one project directory, or session files.
/// With no subcommand, `cctree` renders the default input into ./cctree-site
/// (or, when the archive of `cctree sync` exists, syncs into it and renders the
/// archive).
#[derive(Debug, Parser)]
#[command(name = "cctree", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Worker threads (default: one per core; at most 4 per core).
    #[arg(long, short = 'j', global = true, value_name = "N", display_order = 100)]
    pub jobs: Option<usize>,

    /// Only print errors (no progress bar, no summary, no warnings).
    #[arg(long, short = 'q', global = true, display_order = 101)]
    pub quiet: bool,

    /// Show the log: -v what cctree does, -vv debugging detail, -vvv
    /// everything (also: CCTREE_LOG or RUST_LOG, e.g. RUST_LOG=debug).
    #[arg(
        long,
        short = 'v',
        global = true,
        action = clap::ArgAction::Count,
        conflicts_with = "quiet",
        display_order = 102
    )]
    pub verbose: u8,

    /// When to colour what is printed: auto (on a terminal, unless NO_COLOR
    /// is set; CLICOLOR_FORCE=1 also elsewhere), always or never.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto, display_order = 103)]
    pub color: ColorWhen,
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorWhen {
    #[default]
    Auto,
    Always,
    Never,
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
    /// Time travel: copy a conversation up to a legal checkpoint into a new
    /// session that `claude -r <new-id>` resumes. Existing files are never
    /// modified. Exit 2 when the checkpoint is not legal.
    Fork(ForkArgs),
    /// Export one conversation as one file: a self-contained HTML page (every
    /// branch and sub-agent transcript, the fork-point index, images inline,
    /// search within the page; it opens from anywhere and loads nothing), or
    /// Markdown for an issue or a pull request (--format md).
    Export(ExportArgs),
    /// Serve the site on localhost, following the transcripts as they are written.
    ///
    /// Renders (incrementally) into a site directory of its own, serves it on
    /// http://127.0.0.1:PORT/, watches the input (and the sync archive: with no
    /// INPUT, as plain `cctree`, the archive is synced first when it exists)
    /// and renders again what changed once a write settles. Open pages reload
    /// themselves where the reader is, or say "updated" where a reload would
    /// lose their place. Ctrl-C stops it.
    Serve(ServeArgs),
    /// Keep every conversation: mirror the projects directory into an append-only archive.
    ///
    /// New files are copied and grown files get their new complete lines; files
    /// the client deletes stay in the archive, and a rewritten file keeps its
    /// previous version beside the new one. Every cctree command reads the
    /// archive like ~/.claude/projects. A second sync waits for the first.
    Sync(SyncArgs),
    /// Print the completion script for a shell, e.g. `mkdir -p
    /// ~/.local/share/bash-completion/completions && cctree completions bash >
    /// ~/.local/share/bash-completion/completions/cctree`.
    Completions(CompletionsArgs),
    /// Print the man page, cctree(1); with --dir, write it and one page per
    /// command (cctree-render(1), …) into a directory.
    Man(ManArgs),
    /// Print the price table costs are computed with: per model, dollars per
    /// million tokens of input, output, cache writes and reads, from which
    /// day, and the public source of each price.
    Prices(PricesArgs),
}

#[derive(Debug, Args)]
pub struct PricesArgs {
    /// Price costs with the table in FILE instead of the bundled one (the
    /// shape `cctree prices --json` prints; it replaces the whole table).
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,

    /// Print the table as JSON: a file to edit and give to --prices.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, powershell or elvish.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write cctree.1 and cctree-<command>.1 into DIR (made if missing)
    /// instead of printing cctree.1.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Args, Default, Clone)]
pub struct RenderArgs {
    /// Projects directory, project directory or JSONL files.
    pub input: Vec<PathBuf>,

    /// Output directory (must not be inside the input).
    #[arg(long, short = 'o', default_value = "cctree-site")]
    pub output: PathBuf,

    /// Turns per page on conversation, branch and agent pages.
    #[arg(long, default_value_t = crate::limits::PAGE_SIZE, value_parser = clap::value_parser!(u32).range(1..))]
    pub page_size: u32,

    /// Rebuild every page, ignoring the cache a previous render left in the
    /// output directory (by default only what changed is parsed and written).
    #[arg(long)]
    pub force: bool,

    /// Replace secrets (API keys and tokens of Anthropic, OpenAI, OpenRouter,
    /// Stripe, AWS, GitHub, GitLab, npm, Hugging Face, Slack, Supabase,
    /// Telegram, Google; JWTs; private key blocks, also cut off; passwords in
    /// URLs, JSON, YAML and `.env` files; `Authorization:` and `x-api-key:`
    /// headers; also JSON-escaped), home directories and your user name with
    /// `[REDACTED:<kind>]` in every page, the search index and the cache, and
    /// list where on stderr. Use it before publishing the site; it is a
    /// safety net, not a guarantee.
    #[arg(long)]
    pub redact: bool,

    /// Also replace each entry of FILE with `[REDACTED:custom]`: one a line, a
    /// literal word (any case, a whole word) or `regex:` and a regular
    /// expression; `#` starts a comment line. Implies --redact.
    #[arg(long, value_name = "FILE")]
    pub redact_file: Option<PathBuf>,

    /// Write nothing: list every place --redact would replace something, with
    /// the kind and the count (never the secret). Implies --redact.
    #[arg(long)]
    pub redact_dry_run: bool,

    /// Sync INPUT (default: the client's projects directory) into the archive
    /// first (see `cctree sync`), then render the archive. Plain `cctree` does
    /// this when the archive exists.
    #[arg(long)]
    pub sync: bool,

    /// Open the site's index.html in the web browser when it is written
    /// ($BROWSER, else the system's default).
    #[arg(long)]
    pub open: bool,

    /// Where the site will be published (an http:// or https:// URL): every
    /// page names its absolute URL there in a <link rel="canonical">. Every
    /// other link stays relative, so the site still works from disk.
    #[arg(long, value_name = "URL", value_parser = parse_base_url)]
    pub base_url: Option<crate::render::site::urls::BaseUrl>,

    /// With --base-url: also write sitemap.xml (every page of the site by its
    /// absolute URL) and, when the site is its host's root, robots.txt (allows
    /// everything, names the sitemap; crawlers read it nowhere else).
    #[arg(long, requires = "base_url")]
    pub sitemap: bool,

    /// Show the full path of the input on pages (in fork commands, places of
    /// odd entries). By default pages name files from the project directory,
    /// and fork commands name no directory (`cctree fork` finds a session by
    /// its id) except, on a site not rendered for publishing (no --base-url,
    /// no --redact), the input when it is not the default projects directory
    /// (`--projects DIR`, so the copied command finds it): a site rendered for
    /// publishing does not reveal where the archive lives.
    #[arg(long)]
    pub show_paths: bool,

    /// Price costs with the table in FILE instead of the bundled one (the
    /// shape `cctree prices --json` prints; it replaces the whole table).
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,

    // Last: the options after it would be listed under its heading.
    #[command(flatten)]
    pub select: SelectArgs,
}

impl RenderArgs {
    /// The settings of plain `cctree` (no subcommand): the clap defaults.
    pub fn default_args() -> RenderArgs {
        RenderArgs {
            input: Vec::new(),
            output: PathBuf::from("cctree-site"),
            page_size: crate::limits::PAGE_SIZE,
            force: false,
            redact: false,
            redact_file: None,
            redact_dry_run: false,
            sync: false,
            open: false,
            select: SelectArgs::default(),
            base_url: None,
            sitemap: false,
            show_paths: false,
            prices: None,
        }
    }
}

#[derive(Debug, Args, Clone)]
pub struct ServeArgs {
    /// Projects directory, project directory or JSONL files (default: as plain
    /// `cctree`: the sync archive, synced first, when it exists, else the
    /// client's projects directory).
    pub input: Vec<PathBuf>,

    /// The site directory (default: one of its own per input under the user's
    /// cache directory, $XDG_CACHE_HOME/cctree/serve/…, kept between runs so
    /// that the next start renders only what changed).
    #[arg(long, short = 'o', value_name = "DIR")]
    pub output: Option<PathBuf>,

    /// The port (0: any free port). Default: 8417, or the next free one when it
    /// is taken.
    #[arg(long, short = 'p', value_name = "PORT")]
    pub port: Option<u16>,

    /// The address to listen on. Any other than a loopback address (127.0.0.1,
    /// ::1) lets the network read every transcript: only when asked, with a
    /// warning.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,

    /// Open the site in the web browser once it is served ($BROWSER, else the
    /// system's default).
    #[arg(long)]
    pub open: bool,

    /// Sync INPUT (default: the client's projects directory) into the archive
    /// first and after each change (see `cctree sync`), and serve the archive.
    #[arg(long)]
    pub sync: bool,

    /// Turns per page on conversation, branch and agent pages.
    #[arg(long, default_value_t = crate::limits::PAGE_SIZE, value_parser = clap::value_parser!(u32).range(1..))]
    pub page_size: u32,

    /// Replace secrets with `[REDACTED:<kind>]`, as `render --redact` does.
    #[arg(long)]
    pub redact: bool,

    /// Show the full path of the input on pages (as `render --show-paths`).
    #[arg(long)]
    pub show_paths: bool,

    /// Price costs with the table in FILE instead of the bundled one (the
    /// shape `cctree prices --json` prints; it replaces the whole table).
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,

    #[command(flatten)]
    pub select: SelectArgs,
}

/// `--base-url`, checked ([`crate::render::site::urls::BaseUrl::parse`]).
fn parse_base_url(s: &str) -> Result<crate::render::site::urls::BaseUrl, String> {
    crate::render::site::urls::BaseUrl::parse(s)
}

/// Which projects and conversations a command shows (`render`, `stats`,
/// `check`). Combined, they select the conversations that match all of them.
#[derive(Debug, Args, Default, Clone)]
#[command(next_help_heading = "Selection (what is left out leaves no trace in the output)")]
pub struct SelectArgs {
    /// Only the projects whose directory name (-home-me-src-app), working
    /// directory (where its sessions started: /home/me/src/app) or its last
    /// part (app) matches GLOB (`*` matches any text, `/` included; `?` one
    /// character). Repeatable.
    #[arg(long = "project", value_name = "GLOB", allow_hyphen_values = true)]
    pub projects: Vec<String>,

    /// Only this conversation: its root uuid, a session id or any message
    /// uuid in it (also of a sub-agent it spawned), or the first characters
    /// of one (4 or more) that only ids of this conversation start with.
    /// Repeatable. An id that names nothing, or a prefix of several
    /// conversations' ids, is an error.
    #[arg(long = "conversation", value_name = "ID", allow_hyphen_values = true)]
    pub conversations: Vec<String>,

    /// Only conversations last active on or after DATE: YYYY-MM-DD (from the
    /// start of that day in local time: TZ, else the system's time zone),
    /// YYYY-MM-DDTHH:MM (local time) or an RFC 3339 time
    /// (2025-06-01T14:30:00Z, …+02:00).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,

    /// Only conversations last active on or before DATE: a YYYY-MM-DD day
    /// through its end (local time), or a time as for --since (inclusive).
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,

    /// Only the transcripts of these agents: claude, codex, gemini
    /// (comma-separated or repeated; default: all three, and without INPUT
    /// each one's default folder that exists).
    #[arg(long = "agent", value_name = "AGENT", value_delimiter = ',', value_parser = parse_agent)]
    pub agents: Vec<crate::model::Client>,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Projects directory, project directory or JSONL files.
    pub input: Vec<PathBuf>,

    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,

    /// With --json: add every conversation, fork point and branch
    /// (`projects_detail`).
    #[arg(long, requires = "json")]
    pub detail: bool,

    /// Leave out sessions written by `cctree fork`.
    #[arg(long)]
    pub exclude_own_forks: bool,

    #[command(flatten)]
    pub select: SelectArgs,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Projects directory, project directory or JSONL files.
    pub input: Vec<PathBuf>,

    /// Print findings as one JSON object.
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub select: SelectArgs,
}

#[derive(Debug, Args, Clone)]
pub struct ExportArgs {
    /// The conversation: its root uuid, a session id, any message uuid in it
    /// (also of a sub-agent it spawned), the first characters of one (4 or
    /// more), or a session file (.jsonl).
    pub target: String,

    /// The file to write (never inside the input; an existing file is
    /// replaced only if cctree wrote it), or - for standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: PathBuf,

    /// html: one self-contained page; md: Markdown of the active line, the
    /// other branches as appendices, every transcript text in code blocks
    /// (nothing from it renders as markup where it is pasted). Default: md
    /// when FILE ends in .md, else html.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<ExportFormat>,

    /// Projects directory to look TARGET up in (default: $CLAUDE_CONFIG_DIR/projects,
    /// else ~/.claude/projects).
    #[arg(long, value_name = "DIR")]
    pub projects: Option<PathBuf>,

    /// Replace secrets with `[REDACTED:<kind>]`, as `render --redact` does.
    #[arg(long)]
    pub redact: bool,

    /// Also replace the words and regexes of FILE, as `render --redact-file`
    /// does. Implies --redact.
    #[arg(long, value_name = "FILE")]
    pub redact_file: Option<PathBuf>,

    /// Show the full path of the input (as `render --show-paths`).
    #[arg(long)]
    pub show_paths: bool,

    /// Price costs with the table in FILE instead of the bundled one (the
    /// shape `cctree prices --json` prints; it replaces the whole table).
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,
}

/// What `cctree export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    Html,
    Md,
}

#[derive(Debug, Args)]
pub struct SyncArgs {
    /// Projects directory or one project directory, or Codex CLI's or Gemini
    /// CLI's folder (default: every one that exists: $CLAUDE_CONFIG_DIR/projects,
    /// else ~/.claude/projects; $CODEX_HOME/sessions; ~/.gemini/tmp). Never
    /// written to.
    pub input: Option<PathBuf>,

    /// The archive: a projects directory (default: $CCTREE_ARCHIVE, else
    /// $XDG_DATA_HOME/cctree/projects, else ~/.local/share/cctree/projects).
    /// The client's file-history/ is mirrored beside it, in DIR/../file-history;
    /// Codex CLI's sessions in DIR/../codex/sessions, Gemini CLI's tmp/ in
    /// DIR/../gemini/tmp.
    #[arg(long, value_name = "DIR")]
    pub to: Option<PathBuf>,

    /// Show what would be copied, appended and kept; write nothing. With
    /// --schedule or --unschedule: show what would be written or removed.
    #[arg(long)]
    pub dry_run: bool,

    /// Print the result as one JSON object.
    #[arg(long)]
    pub json: bool,

    /// Sync every hour from now on, for the current user, with this INPUT
    /// and --to: a systemd user timer (Linux), a launchd agent (macOS), else
    /// a crontab line (CCTREE_SCHEDULER=systemd|launchd|cron chooses). Shows
    /// what it writes and asks first (--yes: without asking).
    #[arg(long, conflicts_with_all = ["unschedule", "json"])]
    pub schedule: bool,

    /// Remove the hourly sync --schedule set up (only what it wrote).
    #[arg(long, conflicts_with = "json")]
    pub unschedule: bool,

    /// With --schedule or --unschedule: do it without asking.
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Debug, Args, Clone, Default)]
pub struct ForkArgs {
    /// A session file (.jsonl), a session id, or a message uuid (the checkpoint).
    pub target: String,

    /// The checkpoint: a message uuid (or a unique prefix of one). Default: the
    /// message uuid TARGET names, else the latest leaf of the session's active
    /// branch (or the nearest legal checkpoint before it).
    #[arg(long, value_name = "UUID")]
    pub at: Option<String>,

    /// Title of the new session (default: "Fork of <title> at <uuid>").
    #[arg(long, value_name = "TEXT")]
    pub title: Option<String>,

    /// Write nothing; print what would be written.
    #[arg(long)]
    pub dry_run: bool,

    /// Print one JSON object (new_session_id, path, checkpoint, lines, command…).
    #[arg(long)]
    pub json: bool,

    /// Projects directory to look ids up in (default: $CLAUDE_CONFIG_DIR/projects,
    /// else ~/.claude/projects, then the archive of `cctree sync`).
    #[arg(long, value_name = "DIR")]
    pub projects: Option<PathBuf>,

    /// Add keys that entries of the newest Claude Code version carry and older
    /// copied entries lack, with neutral defaults (appended before the closing
    /// brace; every original byte stays).
    #[arg(long)]
    pub backfill: bool,
}

/// An `--agent` value.
fn parse_agent(s: &str) -> Result<crate::model::Client, String> {
    crate::agent::by_name(s).ok_or_else(|| format!("unknown agent {s:?}: use {}", crate::agent::names()))
}

/// The command line as `cctree` parses it and prints its help: [`Cli`],
/// with what only the registration knows (each agent's default folder, in
/// the help's last lines) and `-j` left out of the commands that run no
/// worker.
pub fn command() -> clap::Command {
    coloured(clap::ColorChoice::Auto)
}

/// [`command`], coloured as `color` says (set before the command is built,
/// so that every subcommand's help and errors follow it).
pub fn coloured(color: clap::ColorChoice) -> clap::Command {
    use clap::CommandFactory;
    let folders: Vec<String> = crate::agent::ALL
        .iter()
        .map(|c| {
            let a = crate::agent::of(*c);
            // `~/…` for the home directory: the same text in everyone's man page.
            let home = std::env::home_dir().filter(|h| !h.as_os_str().is_empty());
            let dir = match (a.default_dir(), home) {
                (Some(d), Some(h)) if d.starts_with(&h) => format!("~/{}", d.strip_prefix(&h).unwrap_or(&d).display()),
                (Some(d), _) => d.display().to_string(),
                (None, _) => "(no home directory known)".to_string(),
            };
            format!("  {:<14} {dir}  ({})", c.product(), a.default_hint())
        })
        .collect();
    let mut cmd = Cli::command()
        .color(color)
        .after_help(format!("Default folders read when no INPUT is given:\n{}", folders.join("\n")));
    // A command that runs no worker keeps `-j` (a global option: `cctree
    // -j 2 prices` stays valid) out of its help: its own hidden `jobs`
    // stands where the global one would be propagated.
    for sub in ["prices", "completions", "man"] {
        cmd = cmd.mut_subcommand(sub, |s| {
            s.arg(
                clap::Arg::new("jobs")
                    .long("jobs")
                    .short('j')
                    .value_name("N")
                    .value_parser(clap::value_parser!(usize))
                    .hide(true),
            )
        });
    }
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        Cli::command().debug_assert();
        command().debug_assert();
    }

    #[test]
    fn the_help_names_every_agent_s_folder_and_hides_jobs_where_no_worker_runs() {
        let mut cmd = command();
        let help = cmd.render_help().to_string();
        for c in crate::agent::ALL {
            assert!(help.contains(c.product()), "{} in the help:\n{help}", c.product());
        }
        for (sub, jobs) in
            [("render", true), ("stats", true), ("prices", false), ("completions", false), ("man", false)]
        {
            let help = cmd.find_subcommand_mut(sub).unwrap().render_help().to_string();
            assert_eq!(help.contains("--jobs"), jobs, "--jobs in `{sub} --help`:\n{help}");
        }
    }
}

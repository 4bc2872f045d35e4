//! `cctree export TARGET -o FILE`: one conversation as one file, HTML that
//! stands alone or Markdown ([`crate::render::export`]).
//!
//! TARGET is looked up as `fork` looks it up (a conversation's root uuid, a
//! session id, any message uuid of it or of a sub-agent it spawned, or a
//! session file): only the projects whose files hold its text are loaded,
//! and [`crate::select`] picks the conversation it names, cut down as a
//! `render --conversation` would (`subset::restrict`), so nothing of the
//! other conversations can reach the file. The file is written by the build
//! stage ([`crate::build::file`]): never inside the input, never over a file
//! cctree did not write.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use crate::discover;
use crate::driver::Progress;
use crate::parse::ParseOptions;
use crate::project::Project;
use crate::render::export::{Exported, conversation_html, md};
use crate::render::site::redactor::{self, RedactionSite};
use crate::render::site::urls::sanitize_segment;
use crate::render::{Placement, RenderOptions};
use crate::select::{Selection, Tally};

/// What the file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One self-contained HTML page.
    Html,
    /// Markdown: the active line, then the branches as appendices.
    Markdown,
}

/// One `cctree export`.
#[derive(Debug, Clone)]
pub struct ExportRequest {
    pub target: String,
    /// The file to write; `None`: the text is returned ([`ExportReport::text`]).
    pub output: Option<PathBuf>,
    pub format: Format,
    /// The projects directory to look TARGET up in (default: the client's).
    pub projects: Option<PathBuf>,
    pub redact: bool,
    pub show_paths: bool,
    /// `--prices`: the price table (default: the bundled one).
    pub prices: crate::cost::PriceTable,
}

/// What was exported.
#[derive(Debug)]
pub struct ExportReport {
    pub title: String,
    pub root: String,
    pub project: String,
    pub messages: u32,
    pub branches: usize,
    pub agents: usize,
    pub bytes: usize,
    /// Warnings printed.
    pub warnings: usize,
    pub redactions: Vec<RedactionSite>,
    /// The file's text, when no file was asked for (`-o -`).
    pub text: Option<String>,
}

/// The conversation TARGET names, loaded.
struct Found {
    project: Project,
    conv: crate::graph::ConversationId,
    /// The whole project's working directory (pages name it so).
    cwd: Option<String>,
}

/// Runs an export: finds the conversation, renders it, writes the file.
pub fn run(req: &ExportRequest) -> Result<ExportReport> {
    let (root, target) = lookup_root(req)?;
    // A session file of an agent whose folder is above its own (a Gemini
    // session in `<project>/chats/`): that folder.
    let root = folder_of_file(req).unwrap_or(root);
    let dirs = crate::agent::claude::fork::target::list_projects(&root)?;
    // Refused before anything is read: the file never lands in the input.
    let mut inputs: Vec<&Path> = vec![root.as_path()];
    inputs.extend(dirs.iter().map(PathBuf::as_path));
    if let Some(output) = &req.output {
        crate::build::file::check_outside(output, inputs.iter().copied())?;
    }
    // Codex's or Gemini's folder: its projects; else the client's project directories.
    let sources = match discover::claimed(&root)? {
        Some(scanned) => scanned.projects,
        None => dirs.iter().map(|d| crate::agent::claude::discover::scan_project(d)).collect::<Result<Vec<_>>>()?,
    };
    // A session file names its conversation by what it holds, whatever
    // its name (a Codex rollout's, a Gemini session's).
    let of_file = session_of_file(req, &sources);
    // The file holds it, whether or not its text spells it (a Pi entry's
    // id is its session's and its own, joined).
    let file = of_file.as_ref().and_then(|_| std::fs::canonicalize(req.target.trim()).ok());
    let target = of_file.unwrap_or(target);
    let found = find(&target, sources, &root, req.redact, file.as_deref())?;
    let progress = Progress::hidden();
    let mut warnings = progress.source_warnings(&found.project.source);
    warnings += progress.project_warnings(&found.project).len();
    // Directory names are not entry lines: redacted before they name anything (as the build does).
    let name = &found.project.source.name;
    let redactor = crate::render::site::redactor::Redactor::new(req.redact);
    let slug = sanitize_segment(&redactor.text(|| found.project.source.dir.display().to_string(), name));
    let at = Placement {
        slug: &slug,
        fork_projects: crate::fork::lookup::projects_arg(&found.project.source.dir, &root, req.show_paths),
        cwd: found.cwd.clone(),
        checkpoints: crate::agent::of(found.project.source.client).checkpoints(),
    };
    let opts = RenderOptions {
        page_size: crate::limits::PAGE_SIZE,
        redact: req.redact,
        show_paths: req.show_paths,
        base_url: None,
        prices: req.prices.clone(),
    };
    let out: Exported = match req.format {
        Format::Html => conversation_html(&found.project, found.conv, &at, &opts)?,
        Format::Markdown => md::conversation_md(&found.project, found.conv, &at, &opts)?,
    };
    for (page, list) in &out.warnings {
        for w in list {
            let file = req.output.as_ref().map_or_else(|| "-".into(), |o| o.display().to_string());
            progress.warn(crate::term::safe(format!("{file}: {page}: {w}")));
            warnings += 1;
        }
    }
    let mark = match req.format {
        Format::Html => crate::render::export::MARK,
        Format::Markdown => md::MARK,
    };
    let mut redactions = redactor.take();
    redactions.extend(redactor::entry_lines(&found.project));
    redactions.extend(out.redactions);
    let mut r = report(&found, out.text.len(), warnings, redactions);
    match &req.output {
        Some(output) => crate::build::file::write_file(output, inputs, mark, out.text.as_bytes())?,
        None => r.text = Some(out.text),
    }
    Ok(r)
}

fn report(found: &Found, bytes: usize, warnings: usize, redactions: Vec<RedactionSite>) -> ExportReport {
    let g = &found.project.graph;
    let c = &g.conversations[found.conv];
    ExportReport {
        title: c.title.to_string(),
        root: g.uuid(&found.project.entries, c.root).to_string(),
        project: found.project.source.name.clone(),
        messages: c.messages,
        branches: c.branches.len(),
        agents: g.agents.len(),
        bytes,
        warnings,
        redactions,
        text: None,
    }
}

/// The nearest folder above TARGET, when it is a file, that an agent claims
/// and reads TARGET in.
fn folder_of_file(req: &ExportRequest) -> Option<PathBuf> {
    let file = std::fs::canonicalize(req.target.trim()).ok().filter(|f| f.is_file())?;
    file.ancestors().skip(1).take(4).find_map(|dir| {
        let scanned = discover::claimed(dir).ok()??;
        let holds = scanned
            .projects
            .iter()
            .flat_map(|p| p.files.iter())
            .any(|f| std::fs::canonicalize(&f.path).is_ok_and(|p| p == file));
        holds.then(|| dir.to_path_buf())
    })
}

/// What names TARGET's conversation when it is a session file one of
/// `sources` reads: the last message it holds (a file whose thread the
/// graph splits, a copy's history, name the conversation it ends in), else
/// its session.
fn session_of_file(req: &ExportRequest, sources: &[crate::model::ProjectSource]) -> Option<String> {
    let file = std::fs::canonicalize(req.target.trim()).ok()?;
    let same = |f: &crate::model::SourceFile| std::fs::canonicalize(&f.path).is_ok_and(|p| p == file);
    let source = sources.iter().find(|s| s.files.iter().any(same))?;
    let id = source.files.iter_enumerated().find(|(_, f)| same(f))?.0;
    let project = Project::load_headers(source.clone());
    let mut of_file = project.entries.iter().rev().filter(|e| e.loc.file == id);
    // Else its session (a file of nothing but the client's context).
    let id = of_file.clone().find_map(|e| e.uuid.as_deref()).or_else(|| of_file.find_map(|e| e.session_id.as_deref()));
    id.map(str::to_string)
}

/// The projects directory to look in, and the id to look for: a session
/// file names its project directory and its session.
fn lookup_root(req: &ExportRequest) -> Result<(PathBuf, String)> {
    let t = req.target.trim();
    if t.is_empty() {
        bail!("empty TARGET: give a conversation's root uuid, a session id or a message uuid");
    }
    let as_path = Path::new(t);
    if t.ends_with(".jsonl") || t.contains('/') {
        if !as_path.is_file() {
            bail!("no such session file: {t}; give a session file, a session id or a message uuid");
        }
        let dir = as_path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let stem = as_path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        return Ok((dir.to_path_buf(), stem));
    }
    let root = match &req.projects {
        Some(d) => d.clone(),
        None => match crate::agent::claude::discover::default_projects_dir() {
            Some(d) if d.is_dir() => d,
            Some(d) => bail!("the default projects directory {} does not exist: pass --projects DIR", d.display()),
            None => bail!(
                "no default projects directory (CLAUDE_CONFIG_DIR is not set and no home directory is known): pass --projects DIR"
            ),
        },
    };
    if !root.is_dir() {
        bail!("--projects {}: no such directory", root.display());
    }
    Ok((root, t.to_string()))
}

/// Loads the projects whose files hold `target` and picks the conversation
/// it names; exactly one must match.
fn find(
    target: &str,
    sources: Vec<crate::model::ProjectSource>,
    root: &Path,
    redact: bool,
    file: Option<&Path>,
) -> Result<Found> {
    let shown = crate::term::safe(root.display()).to_string();
    let selection = Selection::new(&[], &[target.to_string()], None, None, &jiff::tz::TimeZone::UTC, &shown)?;
    // The longest piece of TARGET that a transcript writes as it is (JSON
    // escapes quotes, backslashes and control characters; a Codex message id
    // `<history>:<ordinal>` is made of its file's name and the line's
    // ordinal): files without it, in their name or text, cannot hold TARGET.
    let needle = target.split(|c: char| c == '"' || c == '\\' || c == ':' || c.is_control()).max_by_key(|p| p.len());
    let needle = needle.unwrap_or_default();
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let mut found: Vec<Found> = Vec::new();
    let mut named: Vec<String> = Vec::new();
    for source in sources {
        let holds = |f: &crate::model::SourceFile| {
            // A file read as the lines its agent makes of it (a database) may hold it.
            f.rel.contains(needle)
                || f.client.as_lines(&f.rel).is_some()
                || file.is_some_and(|file| std::fs::canonicalize(&f.path).is_ok_and(|p| p == file))
                || std::fs::read(&f.path).is_ok_and(|b| finder.find(&b).is_some())
        };
        if !source.files.iter().any(holds) {
            continue;
        }
        let project = Project::load_with(source, ParseOptions { redact });
        let cwd = project.cwd().map(str::to_string);
        let Some(picked) = selection.pick(project, &mut Tally::default()) else { continue };
        let project = picked.into_project();
        let g = &project.graph;
        let before = named.len();
        named.extend(g.conversations.iter().map(|c| {
            format!(
                "{} ({}, last active {}): {}",
                g.uuid(&project.entries, c.root),
                project.source.name,
                crate::timestamp::format_human(c.last_ts),
                crate::render::plain::excerpt(&c.title, crate::limits::REPORT_TITLE_CHARS)
            )
        }));
        if named.len() == before + 1 {
            found.push(Found { project, conv: crate::graph::ConversationId::FIRST, cwd });
        }
    }
    match (found.len(), named.len()) {
        (1, 1) => Ok(found.remove(0)),
        (_, 0) => bail!(
            "{target}: no conversation, session or message has this id in {shown}\nhint: `cctree stats --json \
             --detail {shown}` lists each project's conversations (root, sessions, title); pass --projects DIR \
             to look elsewhere"
        ),
        _ => bail!(
            "{target} names {} conversations; export one by its root uuid:\n  {}",
            named.len(),
            // Each line escaped on its own: the line breaks between them are ours.
            named.iter().map(|n| crate::term::safe(n).to_string()).collect::<Vec<_>>().join("\n  ")
        ),
    }
}

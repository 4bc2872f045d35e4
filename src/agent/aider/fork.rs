//! `cctree fork` of an Aider run (transcript-format, Appendix J, "What a
//! fork written by cctree can be"): a new Markdown file beside the history
//! (never the history itself), holding the bytes of the history from the
//! heading of the run the checkpoint's context begins with (the run itself,
//! or the first of the runs it restored, one after the other) through the
//! checkpoint's reply and the client's output right after it; resumed with
//! `aider --chat-history-file <new file> --restore-chat-history` in the
//! folder (Aider restores the whole file). The copied runs keep their
//! headings, so cctree reads them as the same messages and the fork as a
//! branch at the checkpoint. A history of the `cctree sync` archive is
//! forked into the folder it was kept from.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;

use super::header::RESTORED_LINE;
use super::lines::{HISTORY, Runs, clears};
use super::markdown::{Block, What, blocks_of};
use crate::agent::AIDER;

#[derive(Debug, Clone, Serialize)]
pub(super) struct AiderFork {
    pub source_file: PathBuf,
    pub checkpoint: String,
    /// The line of the source the copy starts at, and its bytes.
    pub from_line: u32,
    pub bytes: u64,
    #[serde(flatten)]
    pub new: crate::agent::fork::NewSession,
}

impl AiderFork {
    pub(super) fn text(&self) -> String {
        format!(
            "fork of an Aider chat history at {}\n  prefix: {} bytes of {} from line {}\n{}",
            self.checkpoint,
            self.bytes,
            self.source_file.display(),
            self.from_line,
            self.new.text()
        )
    }
}

/// The legal checkpoints: every reply (the client waits for a prompt after it).
pub(super) fn legal_nodes(project: &crate::project::Project) -> Vec<crate::graph::NodeId> {
    let g = &project.graph;
    (project.entries.iter())
        .filter(|e| e.kind == crate::model::Kind::Assistant)
        .filter_map(|e| e.uuid.as_deref().and_then(|u| g.index.get(u)).copied())
        .collect()
}

/// A block of a history with its id, session and run.
struct Placed {
    block: Block,
    id: String,
    session: String,
    run: usize,
}

/// A run: where its heading is, whether it restored the history.
struct Run {
    offset: u64,
    line: u32,
    restored: bool,
}

fn placed(bytes: &[u8], name: &str) -> (Vec<Placed>, Vec<Run>) {
    let mut runs = Runs::new(name);
    let mut list: Vec<Run> = vec![Run { offset: 0, line: 1, restored: false }];
    let mut out = Vec::new();
    let mut first = false;
    for b in blocks_of(bytes) {
        runs.see(&b);
        if b.what == What::Run {
            list.push(Run { offset: b.offset, line: b.line, restored: false });
            first = true;
            continue;
        }
        if first && b.what == What::Output && b.text.lines().any(|l| l.trim() == RESTORED_LINE) {
            list.last_mut().expect("a run").restored = true;
        }
        first = false;
        out.push(Placed { id: runs.id(&b), session: runs.session.clone(), block: b, run: list.len() - 1 });
    }
    (out, list)
}

/// The history TARGET names: its path, or a message or run id in the
/// histories of `projects` (a folder holding one, or the sync archive's
/// `aider/`), else of the current directory and its repository's root,
/// else of the sync archive. A history named `.aider.chat.history.md`
/// comes before the others (a fork holds copies of its messages).
pub(super) fn find(target: &str, projects: Option<&Path>) -> Result<Option<PathBuf>> {
    let p = Path::new(target);
    if p.is_file() {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let ok = super::discover::is_history(p, name) || super::markdown::starts_with_heading(p);
        return Ok(ok.then(|| p.to_path_buf()));
    }
    let mut dirs: Vec<PathBuf> = Vec::new();
    match projects {
        Some(d) => dirs.push(d.to_path_buf()),
        None => {
            if let Ok(cwd) = std::env::current_dir() {
                dirs.push(cwd.clone());
                dirs.extend(super::discover::git_root(&cwd));
            }
            dirs.extend(crate::agent::synced_dir_of(AIDER));
        }
    }
    let mut files: Vec<PathBuf> = Vec::new();
    for d in dirs {
        for project in super::discover::scan(&d) {
            files.extend(project.files.iter().filter(|f| !f.kept_version).map(|f| f.path.clone()));
        }
    }
    files.sort_by_key(|f| (f.file_name().is_none_or(|n| n != HISTORY), f.clone()));
    files.dedup();
    for f in files {
        let bytes = std::fs::read(&f).with_context(|| format!("cannot read {}", f.display()))?;
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("").to_string();
        let (list, _) = placed(&bytes, &name);
        if list.iter().any(|b| b.id == target || b.session == target) {
            return Ok(Some(f));
        }
    }
    Ok(None)
}

/// The checkpoint `at` names (an id, or a prefix of one), else the last reply.
fn checkpoint<'p>(list: &'p [Placed], at: Option<&str>, file: &Path) -> Result<&'p Placed> {
    let Some(a) = at else {
        return (list.iter().rev().find(|b| b.block.what == What::Reply))
            .with_context(|| format!("{}: no reply to fork at", file.display()));
    };
    let hits: Vec<&Placed> = match list.iter().find(|b| b.id == a) {
        Some(one) => vec![one],
        None => list.iter().filter(|b| a.len() >= crate::limits::ID_PREFIX_MIN && b.id.starts_with(a)).collect(),
    };
    let b = match hits.as_slice() {
        [one] => *one,
        [] => bail!("--at {a}: no message with this id in {}", file.display()),
        _ => bail!("--at {a} is ambiguous: {} messages start with it", hits.len()),
    };
    if b.block.what != What::Reply {
        bail!(
            "{} is not a legal checkpoint: fork at a reply (Aider waits for the next prompt after one), \
             so that the resumed run goes on from a whole turn",
            b.id
        );
    }
    Ok(b)
}

pub(super) fn fork(file: &Path, at: Option<&str>, dry_run: bool) -> Result<AiderFork> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("").to_string();
    let (list, runs) = placed(&bytes, &name);
    let cp = checkpoint(&list, at, file)?;
    // The run the context starts with: back over the runs restored.
    let mut first = cp.run;
    while first > 0 && runs[first].restored {
        first -= 1;
    }
    let start = runs[first].offset;
    // Through the reply and the client's output right after it.
    let at_index = list.iter().position(|b| std::ptr::eq(b, cp)).unwrap_or(0);
    let end = match list.get(at_index + 1) {
        Some(next) if next.block.what == What::Output && next.run == cp.run => next.block.end,
        _ => cp.block.end,
    };
    let (Ok(mut s), Ok(mut e)) = (usize::try_from(start), usize::try_from(end)) else {
        bail!("{}: too large", file.display())
    };
    // With the blank line the client writes before a heading, and the one after the turn.
    if s > 0 && bytes.get(s - 1) == Some(&b'\n') {
        s -= 1;
    }
    if bytes.get(e) == Some(&b'\n') {
        e += 1;
    }
    let mut out = bytes.get(s..e).context("the checkpoint lies outside the file")?.to_vec();
    if !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    let mut notes = Vec::new();
    if let Some(c) = list
        .iter()
        .filter(|b| b.block.offset >= start && b.block.offset < cp.block.offset)
        .find(|b| b.block.what == What::Prompt && clears(&b.block.text))
    {
        notes.push(format!(
            "the copy holds a `{}` (line {}): Aider restores the whole file, so the resumed run also sees what came \
             before it",
            c.block.text.trim(),
            c.block.line
        ));
    }
    let dir = fork_dir(file)?;
    let stem = cp.id.replace('+', "-");
    let path = (1..1000)
        .map(|n| match n {
            1 => dir.join(format!(".aider.chat.fork-{stem}.md")),
            n => dir.join(format!(".aider.chat.fork-{stem}-{n}.md")),
        })
        .find(|p| !p.exists())
        .context("every fork name of this checkpoint is taken")?;
    if !dry_run {
        crate::agent::fork::write_new(&path, &out)?;
    }
    let fname = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let resume = format!("aider --chat-history-file {} --restore-chat-history", crate::term::shell_quote(&fname));
    let cwd = Some(dir.display().to_string());
    let mut new = crate::agent::fork::NewSession::new(fname, path, cwd, dry_run, &resume);
    new.notes.extend(notes);
    Ok(AiderFork {
        source_file: file.to_path_buf(),
        checkpoint: cp.id.clone(),
        from_line: runs[first].line,
        bytes: out.len() as u64,
        new,
    })
}

/// Where the fork goes: beside the history, or, for a history of the sync
/// archive, in the folder it was kept from.
fn fork_dir(file: &Path) -> Result<PathBuf> {
    let dir = file.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    if !crate::agent::in_synced_archive(AIDER, file) {
        return Ok(if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir });
    }
    let from = super::discover::unescape(&crate::walk::dir_name(&dir));
    if !Path::new(&from).is_dir() {
        bail!(
            "{} is a copy kept by cctree sync of {from}, which no longer exists: make that folder again (with the \
             repository) and fork there",
            file.display()
        );
    }
    Ok(PathBuf::from(from))
}

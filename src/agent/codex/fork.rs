//! `cctree fork` of a Codex CLI session (transcript-format, Appendix C,
//! "What `cctree fork` can write"): one `session_meta` line of a new thread
//! whose `history_base` cuts an existing rollout at a turn boundary (the
//! `task_started` of the turn after the checkpoint, or the file's end), in
//! `sessions/YYYY/MM/DD/rollout-<time>-<new id>.jsonl` of the sessions tree
//! holding the rollout (for a rollout of the `cctree sync` archive: the
//! client's `$CODEX_HOME/sessions`). `codex exec resume <new id>` (or `codex
//! resume`) rebuilds exactly the history before the cut and appends to the
//! stub. No existing file is written; the stub depends on the base rollout
//! staying as it is, which holds for append-only rollouts.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::{Value, json};

/// What a Codex fork wrote (or would write).
#[derive(Debug, Clone, Serialize)]
pub struct CodexFork {
    pub source_thread: String,
    pub source_file: PathBuf,
    /// The history (thread or segment id) the stub continues, and the cut.
    pub history: String,
    pub end_ordinal_exclusive: u64,
    pub end_byte_offset: u64,
    /// The checkpoint: cctree's node id `<history>:<ordinal>`, or the file's end.
    pub checkpoint: String,
    #[serde(flatten)]
    pub new: crate::agent::fork::NewSession,
    /// Rollouts of the `cctree sync` archive the history needs that the
    /// client no longer had, copied back into its sessions tree.
    pub restored: Vec<PathBuf>,
}

impl CodexFork {
    pub fn text(&self) -> String {
        format!(
            "fork of Codex CLI thread {} at {}\n  history: {} up to ordinal {} (byte {}) of {}\n{}{}",
            self.source_thread,
            self.checkpoint,
            self.history,
            self.end_ordinal_exclusive,
            self.end_byte_offset,
            self.source_file.display(),
            self.restored.iter().map(|p| format!("  restored from the archive: {}\n", p.display())).collect::<String>(),
            self.new.text()
        )
    }
}

/// The last uuid of a rollout's file name: the thread id, or a segment's id.
fn history_id(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_string_lossy().into_owned();
    let tail = stem.rsplit('_').next().unwrap_or(&stem);
    let id = tail.get(tail.len().checked_sub(36)?..)?;
    uuid::Uuid::parse_str(id).ok().map(|u| u.to_string())
}

/// The messages of a project's rollouts a fork may cut after (`--at`): the
/// last node of each turn that completed (a `task_complete` after it, before
/// the next `task_started`), as [`cut`] accepts them; none of a sub-agent's
/// thread (whose parent's session is forked instead), nor of an archived
/// thread (which the client resumes once it is restored: [`fork`]).
pub fn legal_nodes(project: &crate::project::Project) -> Vec<crate::graph::NodeId> {
    let g = &project.graph;
    let mut last: rustc_hash::FxHashMap<crate::model::FileId, Option<crate::graph::NodeId>> = Default::default();
    let mut out = Vec::new();
    let archived = |f: crate::model::FileId| {
        project.source.files.get(f).is_some_and(|f| f.rel.starts_with(crate::agent::codex::discover::ARCHIVED))
    };
    for e in project.entries.iter().filter(|e| !archived(e.loc.file)) {
        let at = last.entry(e.loc.file).or_default();
        match e.meta {
            Some(crate::model::Meta::Turn(crate::model::TurnMark::Started)) if e.uuid.is_none() => *at = None,
            Some(crate::model::Meta::Turn(crate::model::TurnMark::Completed)) if e.uuid.is_none() => {
                out.extend(at.take());
            }
            _ => {
                if let Some(n) = e.uuid.as_deref().and_then(|u| g.index.get(u)).filter(|_| !e.sidechain) {
                    *at = Some(*n);
                }
            }
        }
    }
    out
}

/// One line of a rollout: its byte offset, ordinal, type and payload.
struct Line {
    offset: u64,
    ordinal: u64,
    value: Value,
}

fn read_lines(bytes: &[u8]) -> Vec<Line> {
    let mut out = Vec::new();
    let mut offset = 0u64;
    for (i, raw) in bytes.split_inclusive(|b| *b == b'\n').enumerate() {
        let value = crate::json::parse(String::from_utf8_lossy(raw).trim()).unwrap_or(Value::Null);
        let ordinal = value.get("ordinal").and_then(Value::as_u64).unwrap_or(i as u64);
        out.push(Line { offset, ordinal, value });
        offset += raw.len() as u64;
    }
    out
}

fn event(l: &Line, kind: &str) -> bool {
    l.value["type"] == "event_msg" && l.value["payload"]["type"] == kind
}

/// The sessions tree holding `file` (`…/sessions/YYYY/MM/DD/rollout-…`).
fn sessions_root(file: &Path) -> Option<PathBuf> {
    let up3 = file.parent()?.parent()?.parent()?.parent()?;
    let dated = file.parent()?.iter().rev().take(3).all(|c| c.to_string_lossy().bytes().all(|b| b.is_ascii_digit()));
    dated.then(|| up3.to_path_buf())
}

/// The rollout TARGET names, if it names one: a `rollout-*.jsonl` file, or a
/// thread or history id (or `<history>:<ordinal>`) of a rollout in Codex's
/// sessions trees (`--projects DIR` when it is one, else `$CODEX_HOME/sessions`
/// and the `cctree sync` archive's `codex/sessions`): a thread id names the
/// thread's latest file (a rollback's segment, where `codex resume` appends).
/// Only files whose names hold the id are read: the client names a thread's
/// first file by its id and each segment `…-<thread>_<segment>.jsonl`.
pub fn find(target: &str, projects: Option<&Path>) -> Result<Option<PathBuf>> {
    let p = Path::new(target);
    if p.is_file() {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        return Ok(crate::agent::codex::discover::is_rollout(&name).then(|| p.to_path_buf()));
    }
    let id = target.split(':').next().unwrap_or(target);
    if uuid::Uuid::parse_str(id).is_err() {
        return Ok(None);
    }
    for tree in crate::agent::trees_of(crate::agent::CODEX, projects) {
        let mut files: Vec<PathBuf> = walkdir::WalkDir::new(&tree)
            .sort_by_file_name()
            .into_iter()
            .flatten()
            .filter(|e| {
                let name = e.file_name().to_string_lossy();
                e.file_type().is_file() && crate::agent::codex::discover::is_rollout(&name) && name.contains(id)
            })
            .map(walkdir::DirEntry::into_path)
            .collect();
        files.sort();
        if let Some(f) = files.iter().find(|f| history_id(f).as_deref() == Some(id)) {
            // A history id (a first file's is its thread's): the thread's latest file, unless `<id>:<n>` names this one.
            if target.contains(':') {
                return Ok(Some(f.clone()));
            }
        }
        let of_thread: Vec<&PathBuf> = files
            .iter()
            .filter(|f| {
                crate::agent::codex::discover::codex_meta_thread(f).as_deref() == Some(id)
                    || history_id(f).as_deref() == Some(id)
            })
            .collect();
        if let Some(f) = of_thread.iter().max_by_key(|f| f.file_name().map(|n| n.to_os_string())) {
            return Ok(Some((*f).clone()));
        }
    }
    Ok(None)
}

/// The cut of the stub: `(end_ordinal_exclusive, end_byte_offset, checkpoint)`:
/// the `task_started` of the turn after `at` (whose turn must be complete),
/// or the file's end (`len` bytes).
fn cut(ls: &[Line], len: u64, at: Option<&str>, history: &str, file: &Path) -> Result<(u64, u64, String)> {
    Ok(match at {
        None => {
            let last = ls.last().map_or(0, |l| l.ordinal + 1);
            (last, len, format!("the end of {history}"))
        }
        Some(a) => {
            let (h, n) =
                a.rsplit_once(':').with_context(|| format!("--at {a}: a Codex checkpoint is `<history>:<ordinal>`"))?;
            if h != history {
                bail!("--at {a}: not a message of {} (history {history})", file.display());
            }
            let n: u64 = n.parse().with_context(|| format!("--at {a}: the ordinal is not a number"))?;
            let i = ls
                .iter()
                .position(|l| l.ordinal == n)
                .with_context(|| format!("--at {a}: no line with ordinal {n}"))?;
            // The cut: the next turn's start; the checkpoint's turn must be complete.
            let next = ls[i + 1..].iter().position(|l| event(l, "task_started")).map(|j| i + 1 + j);
            let turn = &ls[i + 1..next.unwrap_or(ls.len())];
            if !turn.iter().any(|l| event(l, "task_complete")) {
                bail!(
                    "--at {a} is not a legal checkpoint: its turn did not complete (no task_complete after it); \
                     fork at the last reply of a complete turn"
                );
            }
            match next {
                Some(j) => (ls[j].ordinal, ls[j].offset, a.to_string()),
                None => (ls.last().map_or(0, |l| l.ordinal + 1), len, a.to_string()),
            }
        }
    })
}

/// The rollout's `session_meta` line, or why the rollout cannot be forked
/// (an archived thread, a rollout from before the envelope, not a rollout).
fn forkable_start<'l>(file: &Path, ls: &'l [Line]) -> Result<&'l Line> {
    if file.parent().and_then(Path::file_name).is_some_and(|n| n == crate::agent::codex::discover::ARCHIVED) {
        bail!(
            "{}: an archived thread; Codex CLI resumes the threads of its sessions/ folder: restore \
             (unarchive) it in Codex CLI, then fork it",
            file.display()
        );
    }
    let Some(first) = ls.first().filter(|l| l.value["type"] == "session_meta") else {
        if ls.first().is_some_and(|l| crate::agent::codex::envelope(&l.value).0 == "session_meta") {
            bail!(
                "{}: a rollout from before the envelope (Codex CLI of summer 2025), which today's Codex \
                 CLI cannot resume: it is not forked",
                file.display()
            );
        }
        bail!("{}: does not start with a session_meta line: not a Codex CLI rollout", file.display());
    };
    Ok(first)
}

/// Forks the rollout `file` at `at` (`<history>:<ordinal>`, cctree's node id
/// of a message in it; default: the file's end).
pub fn fork(file: &Path, at: Option<&str>, dry_run: bool) -> Result<CodexFork> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let history =
        history_id(file).with_context(|| format!("{}: not a rollout name (no id at its end)", file.display()))?;
    let ls = read_lines(&bytes);
    let first = forkable_start(file, &ls)?;
    let meta = first.value["payload"].clone();
    let thread = meta["id"].as_str().unwrap_or(&history).to_string();
    if meta["parent_thread_id"].is_string() {
        bail!("{}: a sub-agent's thread; fork its parent's session", file.display());
    }
    if !bytes.ends_with(b"\n") {
        bail!("{}: its last line is incomplete (the client is writing it): fork when the turn is over", file.display());
    }
    let (end_ordinal, end_offset, checkpoint) = cut(&ls, bytes.len() as u64, at, &history, file)?;
    let now = jiff::Timestamp::now();
    let ms = u64::try_from(now.as_millisecond()).unwrap_or(0);
    let new_id = uuid::Builder::from_unix_timestamp_millis(
        ms,
        uuid::Uuid::new_v4().as_bytes()[..10].try_into().unwrap_or(&[0; 10]),
    )
    .into_uuid()
    .to_string();
    let mut payload = meta.clone();
    if let Some(o) = payload.as_object_mut() {
        o.insert("id".into(), json!(new_id));
        o.insert("session_id".into(), json!(new_id));
        o.insert("timestamp".into(), json!(now.to_string()));
        o.insert("forked_from_id".into(), json!(thread));
        o.remove("forked_from_ordinal_exclusive");
        o.insert(
            "history_base".into(),
            json!({"thread_id": history, "end_ordinal_exclusive": end_ordinal, "end_byte_offset": end_offset}),
        );
    }
    let line =
        json!({"timestamp": now.to_string(), "ordinal": end_ordinal, "type": "session_meta", "payload": payload});
    let mut restored = Vec::new();
    let root = if crate::agent::in_synced_archive(crate::agent::CODEX, file) {
        let root = crate::agent::codex::discover::default_codex_dir()
            .context("no $CODEX_HOME and no home directory: set CODEX_HOME")?;
        if !dry_run {
            restored = restore_bases(file, &root)?;
        }
        root
    } else {
        // A rollout outside a dated sessions tree: the fork goes where
        // `codex resume` looks.
        match sessions_root(file) {
            Some(root) => root,
            None => crate::agent::codex::discover::default_codex_dir()
                .context("no $CODEX_HOME and no home directory: set CODEX_HOME")?,
        }
    };
    let dir = root.join(now.strftime("%Y/%m/%d").to_string());
    let path = dir.join(format!("rollout-{}-{new_id}.jsonl", now.strftime("%Y-%m-%dT%H-%M-%S")));
    let cwd = meta["cwd"].as_str().map(str::to_string);
    let resume = format!("codex resume {}", crate::term::shell_quote(&new_id));
    if !dry_run {
        crate::agent::fork::write_new(&path, format!("{}\n", crate::json::write(&line)).as_bytes())?;
    }
    Ok(CodexFork {
        source_thread: thread,
        source_file: file.to_path_buf(),
        history,
        end_ordinal_exclusive: end_ordinal,
        end_byte_offset: end_offset,
        checkpoint,
        new: crate::agent::fork::NewSession::new(new_id, path, cwd, dry_run, &resume),
        restored,
    })
}

/// A fork from the `cctree sync` archive: the rollouts its history is read
/// from (the file, and each `history_base` it continues) must be where the
/// client reads them. Each one the client's sessions tree `root` lacks is
/// copied there from the archive, at the same place (new files only).
fn restore_bases(file: &Path, root: &Path) -> Result<Vec<PathBuf>> {
    let archive_root = sessions_root(file).context("the archived rollout is not in a dated sessions tree")?;
    let all: Vec<PathBuf> = walkdir::WalkDir::new(&archive_root)
        .into_iter()
        .flatten()
        .filter(|e| {
            e.file_type().is_file() && crate::agent::codex::discover::is_rollout(&e.file_name().to_string_lossy())
        })
        .map(walkdir::DirEntry::into_path)
        .collect();
    let mut out = Vec::new();
    let mut next = Some(file.to_path_buf());
    let mut seen = std::collections::BTreeSet::new();
    while let Some(f) = next.take() {
        if !seen.insert(f.clone()) {
            break;
        }
        let rel = f.strip_prefix(&archive_root).context("a base outside the archive")?;
        let to = root.join(rel);
        if !to.exists() {
            let bytes = std::fs::read(&f).with_context(|| format!("cannot read {}", f.display()))?;
            crate::agent::fork::write_new(&to, &bytes)?;
            out.push(to);
        }
        let base = std::fs::read(&f).ok().and_then(|b| {
            let first = b.split(|c| *c == b'\n').next()?.to_vec();
            let v = crate::json::parse(String::from_utf8_lossy(&first).trim()).ok()?;
            v["payload"]["history_base"]["thread_id"].as_str().map(str::to_string)
        });
        next = base.and_then(|h| all.iter().find(|p| history_id(p).as_deref() == Some(h.as_str())).cloned());
    }
    Ok(out)
}

//! `cctree fork` of a Gemini CLI session (transcript-format, Appendix D,
//! "What `cctree fork` can write"): a copy of the session file's lines up to
//! the last line of the checkpoint (a reply that ends a turn), its metadata
//! and `$set {sessionId}` lines naming a new session id, written as
//! `session-<time>-<first 8 hex of the new id>.jsonl` beside the source in
//! its `chats/` (for a session of the `cctree sync` archive: the same project
//! folder of the client's `~/.gemini/tmp`). `gemini -r <new id>`, run in the
//! project's directory, loads exactly root → checkpoint and appends to the
//! copy. No existing file is written.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::Value;

/// What a Gemini fork wrote (or would write).
#[derive(Debug, Clone, Serialize)]
pub struct GeminiFork {
    pub source_session: String,
    pub source_file: PathBuf,
    /// The record id of the checkpoint (a reply).
    pub checkpoint: String,
    /// Lines copied (the file's first lines through the checkpoint's last).
    pub lines: usize,
    #[serde(flatten)]
    pub new: crate::agent::fork::NewSession,
    /// The project folder's `.project_root` written beside the fork's
    /// `chats/` (a fork from the archive into a folder that lacked it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_root: Option<PathBuf>,
}

impl GeminiFork {
    /// The human-readable report.
    pub fn text(&self) -> String {
        format!(
            "fork of Gemini CLI session {} at {}\n  prefix: {} lines of {}\n{}",
            self.source_session,
            self.checkpoint,
            self.lines,
            self.source_file.display(),
            self.new.text()
        )
    }
}

/// One line of a session file, read.
struct Line<'a> {
    bytes: &'a [u8],
    value: Option<serde_json::Map<String, Value>>,
}

fn lines(bytes: &[u8]) -> Vec<Line<'_>> {
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .map(|l| {
            let value = match crate::json::parse(String::from_utf8_lossy(l).trim()) {
                Ok(Value::Object(o)) => Some(o),
                _ => None,
            };
            Line { bytes: l, value }
        })
        .collect()
}

fn record_id<'a>(l: &'a Line<'_>) -> Option<&'a str> {
    l.value.as_ref()?.get("id")?.as_str()
}

fn is_meta(o: &serde_json::Map<String, Value>) -> bool {
    o.get("sessionId").is_some_and(Value::is_string) && o.get("projectHash").is_some_and(Value::is_string)
}

fn session_of(ls: &[Line<'_>]) -> Option<String> {
    ls.iter().find_map(|l| l.value.as_ref().filter(|o| is_meta(o))?.get("sessionId")?.as_str().map(str::to_string))
}

/// The message list lines `ls` load as (the client's rules), as record values.
fn replay(ls: &[Line<'_>]) -> Vec<serde_json::Map<String, Value>> {
    let mut list: Vec<serde_json::Map<String, Value>> = Vec::new();
    let mut at: rustc_hash::FxHashMap<String, usize> = Default::default();
    let put = |list: &mut Vec<serde_json::Map<String, Value>>, at: &mut rustc_hash::FxHashMap<String, usize>, o| {
        let Some(id) = str_of(&o, "id") else { return };
        match at.get(&id) {
            Some(&i) => list[i] = o,
            None => {
                at.insert(id, list.len());
                list.push(o);
            }
        }
    };
    for l in ls {
        let Some(o) = &l.value else { continue };
        if let Some(to) = o.get("$rewindTo") {
            let cut = to.as_str().and_then(|id| at.get(id).copied()).unwrap_or(0);
            list.truncate(cut);
            at.retain(|_, i| *i < cut);
        } else if o.get("id").is_some_and(Value::is_string) {
            put(&mut list, &mut at, o.clone());
        } else if let Some(Value::Array(msgs)) = o.get("$set").and_then(|s| s.get("messages")) {
            list.clear();
            at.clear();
            for m in msgs {
                if let Value::Object(m) = m {
                    put(&mut list, &mut at, m.clone());
                }
            }
        }
    }
    list
}

/// The messages of a project's Gemini sessions a fork may cut after
/// (`--at`): each reply that ends a turn, a `gemini` record with no tool
/// call, as [`legal`] says of the record; none of a sub-agent.
pub fn legal_nodes(project: &crate::project::Project) -> Vec<crate::graph::NodeId> {
    let g = &project.graph;
    project
        .entries
        .iter()
        .filter(|e| e.kind == crate::model::Kind::Assistant && e.tool_uses.is_empty() && !e.sidechain)
        .filter_map(|e| e.uuid.as_deref().and_then(|u| g.index.get(u)).copied())
        .collect()
}

/// A reply that ends a turn: a `gemini` record with no tool call.
fn legal(o: &serde_json::Map<String, Value>) -> bool {
    o.get("type").and_then(Value::as_str) == Some("gemini")
        && o.get("toolCalls").and_then(Value::as_array).is_none_or(Vec::is_empty)
        && !o
            .get("content")
            .and_then(Value::as_array)
            .is_some_and(|parts| parts.iter().any(|p| p.get("functionCall").is_some()))
}

/// A Gemini CLI session file TARGET names, if it names one: the path of a
/// `session-*.jsonl` in a `chats/` folder, or a session or message id found
/// in Gemini's folders (`--projects DIR` when it is one, else the client's
/// `~/.gemini/tmp` and the `cctree sync` archive's `gemini/tmp`). A session
/// id names the file of the session holding the most messages (a resume
/// leaves stubs).
pub fn find(target: &str, projects: Option<&Path>) -> Result<Option<PathBuf>> {
    let p = Path::new(target);
    if p.is_file() {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let in_chats = p.parent().and_then(Path::file_name).is_some_and(|n| n == "chats");
        let session = name.starts_with("session-") && (name.ends_with(".jsonl") || name.ends_with(".json"));
        return Ok((in_chats && session).then(|| p.to_path_buf()));
    }
    if target.is_empty() || target.contains('/') {
        return Ok(None);
    }
    let needle = format!("\"{target}\"");
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    for tmp in crate::agent::trees_of(crate::agent::GEMINI, projects) {
        let mut best: Option<(usize, PathBuf)> = None;
        for f in session_files(&tmp) {
            let Ok(bytes) = std::fs::read(&f) else { continue };
            if finder.find(&bytes).is_none() {
                continue;
            }
            let ls = lines(&bytes);
            let by_session = session_of(&ls).as_deref() == Some(target);
            let by_message = ls.iter().any(|l| record_id(l) == Some(target));
            if by_message {
                return Ok(Some(f));
            }
            if by_session {
                let n = ls.iter().filter(|l| record_id(l).is_some()).count();
                if best.as_ref().is_none_or(|(m, _)| n > *m) {
                    best = Some((n, f));
                }
            }
        }
        if let Some((_, f)) = best {
            return Ok(Some(f));
        }
    }
    Ok(None)
}

/// The Gemini CLI session file of the session id `target` found by the
/// names of the files alone: the client names a session's file
/// `session-<time>-<its id's first 8 characters>.jsonl`, so only those are
/// read (the one holding the most messages, as [`find`]).
pub fn find_session(target: &str, projects: Option<&Path>) -> Result<Option<PathBuf>> {
    let Some(head) = target.get(..8).filter(|_| uuid::Uuid::parse_str(target).is_ok()) else { return Ok(None) };
    let tail = format!("-{head}.jsonl");
    for tmp in crate::agent::trees_of(crate::agent::GEMINI, projects) {
        let mut best: Option<(usize, PathBuf)> = None;
        for f in session_files(&tmp) {
            if !f.file_name().is_some_and(|n| n.to_string_lossy().ends_with(&tail)) {
                continue;
            }
            let Ok(bytes) = std::fs::read(&f) else { continue };
            let ls = lines(&bytes);
            if session_of(&ls).as_deref() == Some(target) {
                let n = ls.iter().filter(|l| record_id(l).is_some()).count();
                if best.as_ref().is_none_or(|(m, _)| n > *m) {
                    best = Some((n, f));
                }
            }
        }
        if let Some((_, f)) = best {
            return Ok(Some(f));
        }
    }
    Ok(None)
}

/// The main session files of a `tmp/` folder or one project folder.
fn session_files(tmp: &Path) -> Vec<PathBuf> {
    let mut chats = Vec::new();
    if tmp.join("chats").is_dir() {
        chats.push(tmp.join("chats"));
    } else if let Ok(rd) = std::fs::read_dir(tmp) {
        chats.extend(rd.flatten().map(|e| e.path().join("chats")).filter(|c| c.is_dir()));
    }
    chats.sort();
    let mut out = Vec::new();
    for c in chats {
        let Ok(rd) = std::fs::read_dir(&c) else { continue };
        let mut files: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.is_file()
                    && p.file_name().is_some_and(|n| {
                        let n = n.to_string_lossy();
                        n.starts_with("session-") && n.ends_with(".jsonl")
                    })
            })
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

/// Where the fork of `file` is written: its own `chats/`, or for a file of
/// the `cctree sync` archive, the same project folder's `chats/` in the
/// client's `~/.gemini/tmp` (where `gemini -r` finds it).
fn dest_dir(file: &Path) -> Result<PathBuf> {
    let chats = file.parent().context("the session file has no folder")?;
    let archived = crate::layout::archive_of(chats.parent().and_then(Path::parent).unwrap_or(chats)).is_some()
        || crate::agent::in_synced_archive(crate::agent::GEMINI, file);
    if !archived {
        return Ok(chats.to_path_buf());
    }
    let folder = chats.parent().and_then(Path::file_name).context("the session file is in no project folder")?;
    let Some(tmp) = crate::agent::gemini::discover::default_gemini_dir() else {
        bail!(
            "{} is in the archive of `cctree sync`, and its fork goes into Gemini CLI's ~/.gemini/tmp, but no home directory is known: set GEMINI_CLI_HOME",
            file.display()
        );
    };
    Ok(tmp.join(folder).join("chats"))
}

/// The checkpoint's record id: `at` (an id or a unique prefix of one), else
/// the last reply that ends a turn in the list the file loads as.
fn checkpoint_of(ls: &[Line<'_>], at: Option<&str>, file: &Path) -> Result<String> {
    let ids: Vec<&str> = ls.iter().filter_map(record_id).collect();
    Ok(match at {
        Some(a) => {
            let mut hits: Vec<&str> = ids.iter().copied().filter(|i| *i == a).collect();
            if hits.is_empty() && a.len() >= crate::limits::ID_PREFIX_MIN {
                hits = ids.iter().copied().filter(|i| i.starts_with(a)).collect();
                hits.sort_unstable();
                hits.dedup();
            }
            match hits.as_slice() {
                [one, ..] if hits.iter().all(|h| h == one) => one.to_string(),
                [] => bail!("--at {a}: no message with this id in {}", file.display()),
                _ => bail!("--at {a} is ambiguous: {} messages start with it", hits.len()),
            }
        }
        None => {
            let list = replay(ls);
            let id = list.iter().rev().find(|o| legal(o)).and_then(|o| str_of(o, "id"));
            id.with_context(|| format!("{}: no reply that ends a turn to fork at", file.display()))?
        }
    })
}

/// The copy's bytes: `prefix` as it is, but its metadata lines and
/// `$set {sessionId}` patches naming `new_id`.
fn copy_lines(prefix: &[Line<'_>], new_id: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for l in prefix {
        match &l.value {
            Some(o) if is_meta(o) || o.get("$set").is_some_and(|s| s.get("sessionId").is_some()) => {
                let mut o = o.clone();
                if is_meta(&o) {
                    o.insert("sessionId".into(), Value::String(new_id.to_string()));
                } else if let Some(Value::Object(s)) = o.get_mut("$set") {
                    s.insert("sessionId".into(), Value::String(new_id.to_string()));
                }
                out.extend_from_slice(crate::json::write(&o).as_bytes());
            }
            _ => out.extend_from_slice(l.bytes.strip_suffix(b"\r").unwrap_or(l.bytes)),
        }
        out.push(b'\n');
    }
    out
}

/// Forks the Gemini CLI session file `file` at `at` (a record id or a unique
/// prefix of one; default: the last message the file loads with, or the
/// last reply before it that ends a turn).
pub fn fork(file: &Path, at: Option<&str>, dry_run: bool) -> Result<GeminiFork> {
    if file.extension().is_some_and(|e| e == "json") {
        bail!(
            "{}: a session of an older Gemini CLI (one .json document): cctree forks only the JSON-lines \
             sessions of Gemini CLI 0.61.0. Resume it once with that client (`gemini -r <session id>`, which \
             writes its records to a .jsonl beside it), then fork that file",
            file.display()
        );
    }
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let ls = lines(&bytes);
    let source_session = session_of(&ls)
        .with_context(|| format!("{}: no metadata line (sessionId): not a Gemini CLI session", file.display()))?;
    let checkpoint = checkpoint_of(&ls, at, file)?;
    let last = ls.iter().rposition(|l| record_id(l) == Some(checkpoint.as_str())).context("checkpoint not found")?;
    let prefix = &ls[..=last];
    let loaded = replay(prefix);
    let Some(end) = loaded.last() else { bail!("{checkpoint}: the copy would hold no message") };
    if str_of(end, "id").as_deref() != Some(checkpoint.as_str()) {
        bail!(
            "{checkpoint} is not the last message of the session when its last record was written: \
             fork at a reply that ends a turn"
        );
    }
    if !legal(end) {
        bail!(
            "{checkpoint} is not a legal checkpoint: fork at a reply that ends a turn (a `gemini` record with no \
             tool call), so that the resumed session has no call left open"
        );
    }
    let short = |id: &str| id.chars().take(8).collect::<String>();
    let mut new_id = uuid::Uuid::new_v4().to_string();
    while short(&new_id) == short(&source_session) {
        new_id = uuid::Uuid::new_v4().to_string();
    }
    let out = copy_lines(prefix, &new_id);
    let dir = dest_dir(file)?;
    let minute = jiff::Timestamp::now().strftime("%Y-%m-%dT%H-%M").to_string();
    let path = dir.join(format!("session-{minute}-{}.jsonl", short(&new_id)));
    let cwd = dir
        .parent()
        .and_then(|p| std::fs::read_to_string(p.join(".project_root")).ok())
        .or_else(|| file.parent()?.parent().and_then(|p| std::fs::read_to_string(p.join(".project_root")).ok()))
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    let resume = format!("gemini -r {}", crate::term::shell_quote(&new_id));
    // Forked from the archive into a project folder without its
    // `.project_root` (the client's clean-up, or a new machine): the
    // archive's, so that the folder is the project's for the client again.
    let project_root = (file.parent() != Some(dir.as_path()))
        .then(|| {
            let from = file.parent()?.parent()?.join(".project_root");
            let to = dir.parent()?.join(".project_root");
            (from.is_file() && !to.exists()).then_some((from, to))
        })
        .flatten();
    if !dry_run {
        crate::agent::fork::write_new(&path, &out)?;
        if let Some((from, to)) = &project_root {
            let bytes = std::fs::read(from).with_context(|| format!("cannot read {}", from.display()))?;
            crate::agent::fork::write_new(to, &bytes)?;
        }
    }
    let mut new = crate::agent::fork::NewSession::new(new_id, path, cwd, dry_run, &resume);
    if let Some((_, to)) = &project_root {
        let verb = if dry_run { "would write" } else { "wrote" };
        new.notes.push(format!("{verb} {} (the project folder's working directory, from the archive)", to.display()));
    }
    Ok(GeminiFork {
        source_session,
        source_file: file.to_path_buf(),
        checkpoint,
        lines: prefix.len(),
        new,
        project_root: project_root.map(|(_, to)| to),
    })
}

fn str_of(o: &serde_json::Map<String, Value>, key: &str) -> Option<String> {
    o.get(key).and_then(Value::as_str).map(str::to_string)
}

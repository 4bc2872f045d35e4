//! Gemini CLI's reader (transcript-format, Appendix D): session files
//! (`~/.gemini/tmp/<project>/chats/session-*.jsonl`) of metadata lines,
//! message records keyed by `id` (rewritten whole: the last line wins),
//! `{"$set": …}` patches and `{"$rewindTo": id}` markers.
//!
//! As for Codex ([`crate::agent::codex`]): [`header`] reads each line,
//! [`link`] replays each file as the client loads it to give the records
//! their parents, [`node`] reads what a shown entry says.

mod check;
pub mod discover;
pub mod fork;
mod header;
mod link;
mod logs;
mod sync;

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agent::{Claim, Scanned};
use crate::model::{Block, Body, Content, Injected, Node, Note, Raw, Shell, Str, ToolCall, ToolInput, ToolOutput};
use crate::model::{Entries, Entry, FileClass, Loc, Meta, ProjectSource, Read, Reader};
use crate::texts::LineError;

pub(crate) use header::{META, SET};

/// What the entry says (see [`crate::model::Reader::node`]).
fn node<'a>(r: Read<'a>) -> (Node<'a>, Option<LineError>) {
    let e = r.entry;
    let (json, err) = match r.lines.json(e) {
        Ok(v) => (v, None),
        Err(err) => (Value::Null, Some(err)),
    };
    let content = match (&e.meta, json.get("$set")) {
        (Some(Meta::Sequence { new, .. }), Some(set)) => sequence(e, &set["messages"], new),
        _ => message(&json),
    };
    // The results a reply's `toolCalls` carry that no record of their own
    // holds (the link kept their ids in the header).
    let results = json["toolCalls"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["id"].as_str().is_some_and(|id| e.tool_results.iter().any(|r| &*r.tool_use_id == id)))
        .flat_map(|c| responses(&c["result"]))
        .collect();
    (Node { content, results }, err)
}

/// The whole line as Gemini CLI wrote it.
fn record<'a>(r: Read<'a>) -> Result<Raw<'a>, LineError> {
    r.lines.json(r.entry).map(Raw::of)
}

fn owned<'a>(s: &str) -> Str<'a> {
    Cow::Owned(s.to_string())
}

/// What a `$set {messages}` line that brought messages of its own says:
/// the session's context (its first list), or, after a conversation, the
/// summary a compression replaced the history with.
fn sequence<'a>(e: &Entry, list: &Value, new: &[Box<str>]) -> Content<'a> {
    let texts: Vec<String> = list
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["id"].as_str().is_some_and(|id| new.iter().any(|n| &**n == id)))
        .map(|m| format!("{}: {}", m["type"].as_str().unwrap_or("?"), text_of(&m["content"])))
        .collect();
    let text = texts.join("\n\n");
    if e.compact_summary {
        Content::CompactSummary(Cow::Owned(text))
    } else {
        Content::Injected { kind: Injected::Context, text: Cow::Owned(text) }
    }
}

/// The text parts of a record's `content` (a string, or a list of parts).
pub(crate) fn text_of(v: &Value) -> String {
    if let Some(s) = v.as_str() {
        return s.to_string();
    }
    let parts: Vec<&str> = v.as_array().into_iter().flatten().filter_map(|p| p["text"].as_str()).collect();
    parts.join("\n")
}

/// The attachments among a record's `content` parts, in order: an
/// `inlineData` part (an image pasted or an `@file` read in) as an image when
/// its `mimeType` is one, else as a document naming its type and size (its
/// data never goes into the page); a `fileData` part as a document naming
/// its type and where it is. Qwen Code's parts are the same.
pub(crate) fn attachments<'a>(content: &Value) -> Vec<Block<'a>> {
    let mut out = Vec::new();
    for p in content.as_array().into_iter().flatten() {
        if let Some(d) = p.get("inlineData").filter(|d| d.is_object()) {
            let mime = d["mimeType"].as_str().unwrap_or("");
            let data = d["data"].as_str().unwrap_or("");
            out.push(match mime.trim().to_ascii_lowercase().starts_with("image/") {
                true => Block::Image(crate::model::Image::Data { media_type: owned(mime), data: owned(data) }),
                false => {
                    let what = if mime.is_empty() { "data of no type" } else { mime };
                    Block::Document { title: Some(Cow::Owned(format!("{what}, {}", size_of_base64(data)))) }
                }
            });
        } else if let Some(f) = p.get("fileData").filter(|d| d.is_object()) {
            let mime = f["mimeType"].as_str().unwrap_or("file");
            let uri = f["fileUri"].as_str().unwrap_or("");
            out.push(Block::Document { title: Some(Cow::Owned(format!("{mime} {uri}").trim().to_string())) });
        }
    }
    out
}

/// The size of the bytes `b64` encodes, for people (`3 bytes`, `1.5 KB`).
fn size_of_base64(b64: &str) -> String {
    let n = b64.bytes().filter(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'-' | b'_')).count() * 3 / 4;
    match n {
        0..1024 => format!("{n} bytes"),
        1024..1_048_576 => format!("{:.1} KB", n as f64 / 1024.0),
        _ => format!("{:.1} MB", n as f64 / 1_048_576.0),
    }
}

/// Context the client puts in a `user` record (`<session_context>…`).
pub(crate) fn is_injected(text: &str) -> bool {
    crate::agent::codex::is_injected(text) || text.trim_start().starts_with("<session_context>")
}

/// A message record.
fn message<'a>(v: &Value) -> Content<'a> {
    let content = &v["content"];
    match v["type"].as_str().unwrap_or("") {
        "user" => {
            let results = responses(content);
            if !results.is_empty() {
                return Content::ToolResults(results.into_iter().map(|r| Block::ToolResult(Box::new(r))).collect());
            }
            let text = text_of(content);
            let attached = attachments(content);
            if is_injected(&text) && attached.is_empty() {
                Content::Injected { kind: Injected::Context, text: Cow::Owned(text) }
            } else {
                let typed = (!text.is_empty() || attached.is_empty()).then_some(Block::Text(Cow::Owned(text)));
                Content::Prompt(Body::Blocks(typed.into_iter().chain(attached).collect()))
            }
        }
        "gemini" => Content::Reply(reply(v)),
        kind @ ("info" | "warning" | "error") => Content::Note(Note {
            kind: owned(kind),
            text: Cow::Owned(text_of(content)),
            is_error: kind == "error",
            raw: Raw::of(v.clone()),
        }),
        kind => Content::Other { data_kind: Some(owned(kind)), raw: Raw::of(v.clone()) },
    }
}

/// A reply's blocks: its thoughts, its text, its tool calls (from
/// `toolCalls`, else from `functionCall` parts).
fn reply<'a>(v: &Value) -> Vec<Block<'a>> {
    let mut blocks = Vec::new();
    for t in v["thoughts"].as_array().into_iter().flatten() {
        let subject = t["subject"].as_str().unwrap_or("");
        let description = t["description"].as_str().unwrap_or("");
        blocks.push(Block::Thinking(Cow::Owned(match subject.is_empty() {
            true => description.to_string(),
            false => format!("**{subject}**\n{description}"),
        })));
    }
    let text = text_of(&v["content"]);
    if !text.is_empty() {
        blocks.push(Block::Text(Cow::Owned(text)));
    }
    blocks.extend(attachments(&v["content"]));
    let calls = v["toolCalls"].as_array().filter(|c| !c.is_empty());
    match calls {
        Some(calls) => {
            for c in calls {
                blocks.push(Block::ToolUse(Box::new(call(
                    c["id"].as_str().unwrap_or(""),
                    c["name"].as_str().unwrap_or(""),
                    &c["args"],
                ))));
            }
        }
        None => {
            for part in v["content"].as_array().into_iter().flatten() {
                let f = &part["functionCall"];
                if f.is_object() {
                    blocks.push(Block::ToolUse(Box::new(call(
                        f["id"].as_str().unwrap_or(""),
                        f["name"].as_str().unwrap_or(""),
                        &f["args"],
                    ))));
                }
            }
        }
    }
    blocks
}

/// A call: its typed input for the tools Gemini CLI ships.
fn call<'a>(id: &str, name: &str, args: &Value) -> ToolCall<'a> {
    let s = |k: &str| owned(args[k].as_str().unwrap_or(""));
    let input = match name {
        "run_shell_command" => {
            ToolInput::Shell { command: s("command"), description: s("description"), shell: Shell::Bash }
        }
        "write_file" => ToolInput::Write { file_path: s("file_path"), content: s("content") },
        "replace" => ToolInput::Edit { file_path: s("file_path"), old: s("old_string"), new: s("new_string") },
        "read_file" => {
            let path = args["file_path"].as_str().or_else(|| args["absolute_path"].as_str()).unwrap_or("");
            let num = |k: &str| args.get(k).filter(|v| !v.is_null()).map(Value::to_string);
            ToolInput::Read { file_path: owned(path), offset: num("offset"), limit: num("limit") }
        }
        "glob" => ToolInput::Glob { pattern: s("pattern"), path: s("path") },
        "search_file_content" | "grep_search" => ToolInput::Grep {
            pattern: s("pattern"),
            path: s("path"),
            glob: s("include"),
            file_type: Default::default(),
        },
        "web_fetch" => ToolInput::WebFetch { url: s("url"), prompt: s("prompt") },
        "google_web_search" => ToolInput::WebSearch {
            query: s("query"),
            allowed_domains: Default::default(),
            blocked_domains: Default::default(),
        },
        "invoke_agent" => {
            ToolInput::Agent { description: s("agent_name"), subagent_type: s("agent_name"), prompt: s("prompt") }
        }
        "write_todos" => ToolInput::TodoWrite {
            todos: args["todos"].as_array().map(|t| {
                t.iter()
                    .map(|x| crate::model::Todo {
                        status: owned(x["status"].as_str().unwrap_or("pending")),
                        content: owned(x["description"].as_str().unwrap_or("")),
                    })
                    .collect()
            }),
        },
        _ => match name.split_once("__") {
            // An MCP server's tool (`server__tool`).
            Some((server, tool)) if !server.is_empty() && !tool.is_empty() => {
                ToolInput::Mcp { server: owned(server), tool: owned(tool) }
            }
            _ => ToolInput::Other,
        },
    };
    let raw = Raw::of(args.clone());
    let key_fields = raw.key_fields();
    ToolCall { id: owned(id), name: owned(name), input, raw, key_fields }
}

/// The `functionResponse` parts of a `user` record, as results.
fn responses<'a>(content: &Value) -> Vec<ToolOutput<'a>> {
    content
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| {
            let f = p.get("functionResponse")?;
            let r = &f["response"];
            let (text, is_error) = match (r.get("output"), r.get("error")) {
                (_, Some(err)) if !err.is_null() => {
                    (err.as_str().map_or_else(|| err.to_string(), str::to_string), true)
                }
                (Some(o), _) => (o.as_str().map_or_else(|| o.to_string(), str::to_string), false),
                _ => (r.to_string(), false),
            };
            Some(ToolOutput {
                use_id: owned(f["id"].as_str().unwrap_or("")),
                is_error,
                text: Cow::Owned(text),
                ..ToolOutput::default()
            })
        })
        .collect()
}
impl Reader for crate::agent::Gemini {
    fn name(&self) -> &'static str {
        "gemini"
    }
    fn label(&self) -> &'static str {
        "Gemini"
    }
    fn product(&self) -> &'static str {
        "Gemini CLI"
    }
    fn resume_command(&self) -> &'static str {
        "gemini -r"
    }
    /// Older versions wrote each session as one document (`session-*.json`).
    fn is_document(&self, rel: &str) -> bool {
        rel.ends_with(".json")
    }
    /// Every file is lines (or one document).
    fn as_lines(&self, _rel: &str) -> Option<&'static dyn crate::model::AsLines> {
        None
    }
    fn header(&self, line: &str, loc: Loc, offset: u64) -> Result<Entry, serde_json::Error> {
        header::header(line, loc, offset)
    }
    fn link(&self, source: &ProjectSource, entries: &mut Entries) {
        link::link(source, entries);
    }
    fn node<'a>(&self, read: Read<'a>) -> (Node<'a>, Option<LineError>) {
        node(read)
    }
    fn as_typed<'t>(&self, excerpt: &'t str) -> std::borrow::Cow<'t, str> {
        std::borrow::Cow::Borrowed(excerpt)
    }
    fn fork_by(&self) -> crate::model::ForkBy {
        crate::model::ForkBy::Message
    }
    fn record<'a>(&self, read: Read<'a>) -> Result<Raw<'a>, LineError> {
        record(read)
    }
}

impl crate::agent::Agent for crate::agent::Gemini {
    fn default_dir(&self) -> Option<PathBuf> {
        crate::agent::gemini::discover::default_gemini_dir()
    }
    fn default_hint(&self) -> &'static str {
        "Gemini CLI writes its chats there; GEMINI_CLI_HOME moves it"
    }
    fn home_env(&self) -> &'static [&'static str] {
        &["GEMINI_CLI_HOME"]
    }
    fn claims(&self, dir: &Path) -> Claim {
        crate::agent::gemini::discover::is_gemini_dir(dir).map_or(Claim::No, Claim::Yes)
    }
    /// A file of a `chats/` folder (or of a folder in one).
    fn claims_file(&self, path: &Path) -> Claim {
        let in_chats = path.ancestors().skip(1).take(2).any(|d| d.file_name().is_some_and(|n| n == "chats"));
        if in_chats { Claim::Yes(path.to_path_buf()) } else { Claim::No }
    }
    fn classify_loose(&self, _rel: &str) -> (FileClass, Option<String>) {
        (FileClass::Main, None)
    }
    fn scan(&self, dir: &Path) -> anyhow::Result<Scanned> {
        let (projects, warnings) = discover::scan(dir);
        let nothing = projects.is_empty() && warnings.is_empty();
        Ok(Scanned {
            root: dir.to_path_buf(),
            projects,
            warnings,
            inputs: vec![dir.to_path_buf()],
            nothing,
            ..Scanned::default()
        })
    }
    fn nothing_in(&self, dir: &Path) -> String {
        format!("no transcript in {}: {} wrote no session there yet", dir.display(), self.label())
    }
    /// Its default folder holds everything.
    fn found_in(&self, _cwds: &[&str]) -> Vec<PathBuf> {
        Vec::new()
    }
    fn synced_dir(&self, archive: &Path) -> Option<PathBuf> {
        sync::synced_dir(archive)
    }
    fn kept_trees(&self) -> &'static [crate::agent::keep::Tree] {
        sync::TREES
    }
    fn keep(&self, dir: &Path, archive: &Path) -> anyhow::Result<crate::agent::keep::Kept> {
        sync::keep(dir, archive)
    }
    fn kept_at(&self, p: &ProjectSource) -> Vec<crate::agent::keep::At> {
        sync::kept_at(p)
    }
    /// Each project folder's `logs.json` ([`logs`]).
    fn prompt_logs(&self, roots: &[&Path], projects: &[&ProjectSource]) -> Vec<crate::agent::prompts::Log> {
        let dirs: Vec<&Path> = projects.iter().map(|p| p.dir.as_path()).collect();
        logs::prompt_logs(roots, &dirs)
    }
    fn read_prompts(&self, log: &crate::agent::prompts::Log) -> anyhow::Result<crate::agent::prompts::Prompts> {
        logs::read(log)
    }
    /// Not known yet: `general.sessionRetention` (off unless configured)
    /// deletes by age or count; cctree does not read that clock.
    fn cleanup_warning(&self, _folder: &Path, _archive: Option<&Path>, _command: &str, _now_ms: i64) -> Option<String> {
        None
    }
    /// Files, mirrored as trees.
    fn kept_databases(&self, _dir: &Path, _to: &Path) -> Option<Vec<(PathBuf, PathBuf)>> {
        None
    }
    /// A reply with no tool call.
    fn checkpoints(&self) -> crate::project::Checkpoints {
        crate::project::Checkpoints::Nodes(fork::legal_nodes)
    }
    /// A session file, or a session id by the file names (`session-…-<first
    /// 8>.jsonl`); a message id in the sessions' text.
    fn find(
        &self,
        target: &str,
        projects: Option<&Path>,
        by: crate::agent::fork::Lookup,
    ) -> anyhow::Result<Option<Box<dyn crate::agent::fork::Target>>> {
        let file = match by {
            crate::agent::fork::Lookup::Name if Path::new(target).is_file() => fork::find(target, projects)?,
            crate::agent::fork::Lookup::Name => fork::find_session(target, projects)?,
            crate::agent::fork::Lookup::Message => fork::find(target, projects)?,
        };
        Ok(file.map(|f| Box::new(Found(f)) as Box<dyn crate::agent::fork::Target>))
    }
    fn checks(&self) -> &'static [&'static str] {
        &["gemini-metadata-not-first", "gemini-rewind-to-unknown", "gemini-malformed-set", "gemini-duplicate-id"]
    }
    fn check(&self, p: &crate::project::Project, out: &mut Vec<crate::agent::check::Finding>) {
        check::check(p, out);
    }
    fn supersedes(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
}

/// A session file `cctree fork` found.
struct Found(PathBuf);

impl crate::agent::fork::Target for Found {
    fn describe(&self) -> String {
        format!("a Gemini CLI session ({})", self.0.display())
    }
    fn fork(self: Box<Self>, req: &crate::agent::fork::ForkRequest) -> anyhow::Result<crate::agent::fork::Fork> {
        let f = fork::fork(&self.0, req.at.as_deref(), req.dry_run)?;
        Ok(crate::agent::fork::Fork::of(f.text(), &f))
    }
}

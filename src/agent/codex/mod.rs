//! Codex CLI's reader (transcript-format, Appendix C): rollout files
//! (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`), one
//! `{timestamp, ordinal, type, payload}` per line.
//!
//! Three parts, as [`crate::model::Reader`] asks: [`header`] reads each line's
//! header in parallel; [`link`] derives the ids and parents Codex does not
//! write, per file and across a project's files (rollbacks, forks,
//! sub-agents); [`node`] reads what a shown entry says into the model.

mod check;
pub mod discover;
pub mod fork;
mod header;
mod link;
mod sync;

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agent::{Claim, Scanned};
use crate::model::FileClass;
use crate::model::{
    Block, Body, Compaction, Content, Injected, Node, PatchFile, PatchOp, Raw, Shell, Str, ToolCall, ToolInput,
    ToolOutput,
};
use crate::model::{Entries, Entry, Loc, ProjectSource, Read, Reader};
use crate::texts::LineError;

pub(crate) use link::history_of;

/// What the entry says (see [`crate::model::Reader::node`]).
fn node<'a>(r: Read<'a>) -> (Node<'a>, Option<LineError>) {
    let (json, err) = match r.lines.json(r.entry) {
        Ok(v) => (v, None),
        Err(err) => (Value::Null, Some(err)),
    };
    (Node { content: content_of(&json), results: Vec::new() }, err)
}

/// The whole line as Codex wrote it.
fn record<'a>(r: Read<'a>) -> Result<Raw<'a>, LineError> {
    r.lines.json(r.entry).map(Raw::of)
}

fn owned<'a>(s: &str) -> Str<'a> {
    Cow::Owned(s.to_string())
}

/// The response items Codex CLI wrote bare, one per line, before the
/// envelope (transcript-format, Appendix C, "Before the envelope").
const BARE_ITEMS: &[&str] = &[
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "local_shell_call",
    "custom_tool_call",
    "custom_tool_call_output",
    "web_search_call",
];

/// A rollout line's type and payload. Since the envelope (September 2025)
/// each line is `{timestamp, type, payload}`; before it, a file began with
/// the session's own line `{id, timestamp, instructions, git}` (read as a
/// `session_meta`), and then held bare response items
/// (`{"type":"message",…}`, read as a `response_item` whose payload is the
/// line) and `{"record_type":"state"}` snapshots (`state`).
pub(crate) fn envelope(v: &Value) -> (&str, &Value) {
    let ty = v["type"].as_str().unwrap_or("");
    if v.get("payload").is_some() {
        return (ty, &v["payload"]);
    }
    if BARE_ITEMS.contains(&ty) {
        return ("response_item", v);
    }
    if v["record_type"].as_str() == Some("state") {
        return ("state", v);
    }
    if ty.is_empty() && v["id"].is_string() && v["timestamp"].is_string() {
        return ("session_meta", v);
    }
    (ty, &v["payload"])
}

/// The working directory an `<environment_context>` names (`<cwd>…</cwd>`).
pub(crate) fn context_cwd(text: &str) -> Option<&str> {
    let t = text.trim();
    if !t.starts_with("<environment_context>") {
        return None;
    }
    let (_, rest) = t.split_once("<cwd>")?;
    let (cwd, _) = rest.split_once("</cwd>")?;
    Some(cwd.trim()).filter(|c| !c.is_empty())
}

/// The content of a rollout line.
pub(crate) fn content_of<'a>(v: &Value) -> Content<'a> {
    let (ty, p) = envelope(v);
    let pty = p["type"].as_str().unwrap_or("");
    match (ty, pty) {
        ("response_item", "message") => message(p),
        ("response_item", "reasoning") => {
            let text = texts(&p["summary"]);
            let text = if text.is_empty() { texts(&p["content"]) } else { text };
            let block = if text.is_empty() && p["encrypted_content"].is_string() {
                Block::RedactedThinking
            } else {
                Block::Thinking(Cow::Owned(text))
            };
            Content::Reply(vec![block])
        }
        ("response_item", "function_call" | "custom_tool_call" | "local_shell_call") => {
            Content::Reply(vec![Block::ToolUse(Box::new(call(p)))])
        }
        ("response_item", "web_search_call") => {
            let query = p["action"]["query"].as_str().unwrap_or("");
            let id = p["id"].as_str().unwrap_or("");
            let input = ToolInput::WebSearch {
                query: owned(query),
                allowed_domains: Default::default(),
                blocked_domains: Default::default(),
            };
            let raw = Raw::of(p["action"].clone());
            let key_fields = raw.key_fields();
            let call = ToolCall { id: owned(id), name: owned("web_search"), input, raw, key_fields };
            Content::Reply(vec![Block::ToolUse(Box::new(call))])
        }
        ("response_item", "function_call_output" | "custom_tool_call_output" | "tool_search_output") => {
            Content::ToolResults(vec![Block::ToolResult(Box::new(output(p)))])
        }
        ("response_item", "agent_message") => {
            let text = texts(&p["content"]);
            if text.starts_with("Message Type: NEW_TASK") {
                Content::Prompt(Body::Blocks(vec![Block::Text(Cow::Owned(text))]))
            } else {
                Content::Injected { kind: Injected::Notification, text: Cow::Owned(text) }
            }
        }
        ("compacted", _) => {
            let text = p["message"].as_str().unwrap_or("");
            if text.is_empty() {
                Content::Compaction(Compaction { trigger: owned("manual"), ..Compaction::default() })
            } else {
                Content::CompactSummary(owned(text))
            }
        }
        ("event_msg", "turn_aborted") => {
            Content::Interrupt(Cow::Owned(format!("Turn aborted ({})", p["reason"].as_str().unwrap_or("interrupted"))))
        }
        _ => Content::Other {
            data_kind: Some(Cow::Owned(if pty.is_empty() { ty.to_string() } else { format!("{ty}/{pty}") })),
            raw: Raw::of(v.clone()),
        },
    }
}

fn message<'a>(p: &Value) -> Content<'a> {
    let text = texts(&p["content"]);
    match p["role"].as_str() {
        Some("assistant") => Content::Reply(vec![Block::Text(Cow::Owned(text))]),
        Some("user") if is_injected(&text) => Content::Injected { kind: Injected::Context, text: Cow::Owned(text) },
        Some("user") => {
            let mut blocks = vec![Block::Text(Cow::Owned(text))];
            for part in p["content"].as_array().into_iter().flatten() {
                if let Some(url) = part["image_url"].as_str() {
                    blocks.push(Block::Image(image(url)));
                }
            }
            Content::Prompt(Body::Blocks(blocks))
        }
        _ => Content::Injected { kind: Injected::Meta, text: Cow::Owned(text) },
    }
}

/// An image of a prompt: a `data:` URL's bytes, or where it is.
fn image<'a>(url: &str) -> crate::model::Image<'a> {
    match url.strip_prefix("data:").and_then(|r| r.split_once(";base64,")) {
        Some((media, data)) => crate::model::Image::Data { media_type: owned(media), data: owned(data) },
        None => crate::model::Image::Url(owned(url)),
    }
}

/// The text of a `content` or `summary` list (`input_text`, `output_text`,
/// `summary_text`… parts), joined by newlines; a string as it is.
pub(crate) fn texts(v: &Value) -> String {
    if let Some(s) = v.as_str() {
        return s.to_string();
    }
    let parts: Vec<&str> = v.as_array().into_iter().flatten().filter_map(|p| p["text"].as_str()).collect();
    parts.join("\n")
}

/// Context the client puts in a `user` message: one XML-like element
/// (`<environment_context>…</environment_context>`, `<user_instructions>`…)
/// or the project's `AGENTS.md`.
pub(crate) fn is_injected(text: &str) -> bool {
    let t = text.trim();
    if t.starts_with("# AGENTS.md instructions") {
        return true;
    }
    let Some(rest) = t.strip_prefix('<') else { return false };
    let tag: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-').collect();
    !tag.is_empty() && rest[tag.len()..].starts_with('>') && t.ends_with(&format!("</{tag}>"))
}

/// A call: its typed input for the tools Codex ships.
fn call<'a>(p: &Value) -> ToolCall<'a> {
    let id = p["call_id"].as_str().or_else(|| p["id"].as_str()).unwrap_or("");
    let name = p["name"].as_str().unwrap_or(p["type"].as_str().unwrap_or(""));
    let namespace = p["namespace"].as_str().unwrap_or("");
    // `arguments` is a JSON string; a custom tool's `input` is free text.
    let args: Value = match (&p["arguments"], &p["input"], &p["action"]) {
        (Value::String(s), _, _) => crate::json::parse(s).unwrap_or_else(|_| Value::String(s.clone())),
        (_, Value::String(s), _) => Value::String(s.clone()),
        (a, _, Value::Null) => a.clone(),
        (_, _, action) => action.clone(),
    };
    let s = |k: &str| owned(args[k].as_str().unwrap_or(""));
    let input = match name {
        "exec_command" => ToolInput::Shell { command: s("cmd"), description: s("justification"), shell: Shell::Bash },
        "shell" | "local_shell" | "container.exec" | "local_shell_call" => {
            let cmd = &args["command"];
            let command = match cmd.as_array() {
                Some(parts) => shell_words(parts),
                None => cmd.as_str().unwrap_or("").to_string(),
            };
            ToolInput::Shell { command: Cow::Owned(command), description: Default::default(), shell: Shell::Bash }
        }
        "shell_command" => {
            ToolInput::Shell { command: s("command"), description: Default::default(), shell: Shell::Bash }
        }
        "apply_patch" => patch_input(args.as_str().or_else(|| args["input"].as_str()).unwrap_or("")),
        "spawn_agent" => {
            ToolInput::Agent { description: s("task_name"), subagent_type: s("agent_type"), prompt: s("message") }
        }
        "view_image" => ToolInput::Read { file_path: s("path"), offset: None, limit: None },
        "update_plan" => ToolInput::TodoWrite { todos: plan(&args["plan"]) },
        "web_search" => ToolInput::WebSearch {
            query: s("query"),
            allowed_domains: Default::default(),
            blocked_domains: Default::default(),
        },
        _ => match name.strip_prefix("mcp__").and_then(|r| r.split_once("__")) {
            Some((server, tool)) => ToolInput::Mcp { server: owned(server), tool: owned(tool) },
            None if !namespace.is_empty() && namespace != "collaboration" => {
                ToolInput::Mcp { server: owned(namespace), tool: owned(name) }
            }
            None => ToolInput::Other,
        },
    };
    let raw = Raw::of(args);
    let key_fields = raw.key_fields();
    let name = if namespace.is_empty() { owned(name) } else { Cow::Owned(format!("{namespace}.{name}")) };
    ToolCall { id: owned(id), name, input, raw, key_fields }
}

/// A command's words as a shell line (`bash -lc 'x'` shows `x`).
fn shell_words(parts: &[Value]) -> String {
    let words: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
    match words.as_slice() {
        [sh, flag, script] if sh.ends_with("sh") && flag.starts_with('-') && flag.contains('c') => {
            (*script).to_string()
        }
        _ => words.join(" "),
    }
}

/// `update_plan`'s steps as a checklist.
fn plan<'a>(v: &Value) -> Option<Vec<crate::model::Todo<'a>>> {
    let steps = v.as_array()?;
    Some(
        steps
            .iter()
            .map(|s| crate::model::Todo {
                status: owned(s["status"].as_str().unwrap_or("pending")),
                content: owned(s["step"].as_str().unwrap_or("")),
            })
            .collect(),
    )
}

/// An `apply_patch` input (`*** Begin Patch` … `*** End Patch`) as the model's
/// edits: one file added is a `Write`, one file updated an `Edit` (its
/// hunks' old and new sides, shown as a diff), several files (or one moved
/// or deleted) a `Patch` naming each; anything else stays `Other`.
pub(crate) fn patch_input<'a>(patch: &str) -> ToolInput<'a> {
    let mut files = parse_patch(patch);
    match files.as_mut_slice() {
        [] => ToolInput::Other,
        [f] if f.op == PatchOp::Add => {
            ToolInput::Write { file_path: std::mem::take(&mut f.path), content: std::mem::take(&mut f.new) }
        }
        [f] if f.op == PatchOp::Update && f.moved_to.is_none() => ToolInput::Edit {
            file_path: std::mem::take(&mut f.path),
            old: std::mem::take(&mut f.old),
            new: std::mem::take(&mut f.new),
        },
        _ => ToolInput::Patch { files },
    }
}

fn parse_patch<'a>(patch: &str) -> Vec<PatchFile<'a>> {
    let mut files: Vec<PatchFile<'a>> = Vec::new();
    for line in patch.lines() {
        if let Some(rest) = line.strip_prefix("*** ") {
            for op in [PatchOp::Add, PatchOp::Update, PatchOp::Delete] {
                if let Some(path) = rest.strip_prefix(op.as_str()).and_then(|r| r.strip_prefix(" File: ")) {
                    files.push(PatchFile { op, path: owned(path), ..PatchFile::default() });
                }
            }
            if let (Some(path), Some(f)) = (rest.strip_prefix("Move to: "), files.last_mut()) {
                f.moved_to = Some(owned(path));
            }
            continue;
        }
        let Some(f) = files.last_mut() else { continue };
        if line.starts_with("@@") {
            continue;
        }
        let (old, new) = match line.chars().next() {
            Some('+') => (None, Some(&line[1..])),
            Some('-') => (Some(&line[1..]), None),
            Some(' ') => (Some(&line[1..]), Some(&line[1..])),
            _ => (Some(line), Some(line)),
        };
        for (side, text) in [(&mut f.old, old), (&mut f.new, new)] {
            if let Some(t) = text {
                let s = side.to_mut();
                s.push_str(t);
                s.push('\n');
            }
        }
    }
    files
}

/// A call's output: `output` as text (a string, a list of content parts, or
/// `{output}`), an error when the command exited with another code than 0.
fn output<'a>(p: &Value) -> ToolOutput<'a> {
    let o = &p["output"];
    if let Some((text, code)) = o.as_str().and_then(shell_output) {
        return ToolOutput {
            use_id: owned(p["call_id"].as_str().unwrap_or("")),
            is_error: code != 0,
            text: Cow::Owned(text),
            ..ToolOutput::default()
        };
    }
    let text = match o {
        Value::String(s) => s.clone(),
        Value::Array(_) => texts(o),
        Value::Object(m) => {
            m.get("output").map_or_else(|| o.to_string(), |v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
        }
        Value::Null => String::new(),
        other => other.to_string(),
    };
    let exit = text
        .lines()
        .find_map(|l| l.strip_prefix("Process exited with code ").or_else(|| l.strip_prefix("Exit code: ")))
        .and_then(|c| c.trim().parse::<i64>().ok());
    ToolOutput {
        use_id: owned(p["call_id"].as_str().unwrap_or("")),
        is_error: exit.is_some_and(|c| c != 0) || p["output"]["success"].as_bool() == Some(false),
        text: Cow::Owned(text),
        ..ToolOutput::default()
    }
}

/// The `shell` tool's output as older clients wrote it: a JSON text
/// `{"output": "…", "metadata": {"exit_code": 0, "duration_seconds": 0.1}}`;
/// its text and exit code.
fn shell_output(s: &str) -> Option<(String, i64)> {
    if !s.starts_with('{') {
        return None;
    }
    let v = crate::json::parse(s).ok()?;
    let code = v["metadata"]["exit_code"].as_i64()?;
    Some((v["output"].as_str()?.to_string(), code))
}

impl Reader for crate::agent::Codex {
    fn name(&self) -> &'static str {
        "codex"
    }
    fn label(&self) -> &'static str {
        "Codex"
    }
    fn product(&self) -> &'static str {
        "Codex CLI"
    }
    fn resume_command(&self) -> &'static str {
        "codex resume"
    }
    fn is_document(&self, _rel: &str) -> bool {
        false
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

impl crate::agent::Agent for crate::agent::Codex {
    fn default_dir(&self) -> Option<PathBuf> {
        crate::agent::codex::discover::default_codex_dir()
    }
    fn default_hint(&self) -> &'static str {
        "Codex CLI writes its sessions there; CODEX_HOME moves it"
    }
    fn home_env(&self) -> &'static [&'static str] {
        &["CODEX_HOME"]
    }
    fn claims(&self, dir: &Path) -> Claim {
        crate::agent::codex::discover::is_codex_dir(dir).map_or(Claim::No, Claim::Yes)
    }
    fn claims_file(&self, path: &Path) -> Claim {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if crate::agent::codex::discover::is_rollout(&name) { Claim::Yes(path.to_path_buf()) } else { Claim::No }
    }
    fn classify_loose(&self, _rel: &str) -> (FileClass, Option<String>) {
        (FileClass::Main, None)
    }
    fn scan(&self, dir: &Path) -> anyhow::Result<Scanned> {
        let (projects, warnings) = discover::scan(dir);
        let nothing = projects.is_empty() && warnings.is_empty();
        let inputs = [Some(dir.to_path_buf()), discover::archived_beside(dir)].into_iter().flatten().collect();
        Ok(Scanned { root: dir.to_path_buf(), projects, warnings, inputs, nothing, ..Scanned::default() })
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
    /// Not read yet: Codex CLI keeps one, `$CODEX_HOME/history.jsonl`
    /// (`{session_id, ts, text}` per prompt), which cctree does not read.
    fn prompt_logs(&self, _roots: &[&Path], _projects: &[&ProjectSource]) -> Vec<crate::agent::prompts::Log> {
        Vec::new()
    }
    fn read_prompts(&self, log: &crate::agent::prompts::Log) -> anyhow::Result<crate::agent::prompts::Prompts> {
        anyhow::bail!("{}: cctree does not read Codex CLI's prompt history yet", log.path.display())
    }
    /// Codex CLI deletes no session by itself.
    fn cleanup_warning(&self, _folder: &Path, _archive: Option<&Path>, _command: &str, _now_ms: i64) -> Option<String> {
        None
    }
    /// Files, mirrored as trees.
    fn kept_databases(&self, _dir: &Path, _to: &Path) -> Option<Vec<(PathBuf, PathBuf)>> {
        None
    }
    /// The last node of each turn a `task_complete` ended.
    fn checkpoints(&self) -> crate::project::Checkpoints {
        crate::project::Checkpoints::Nodes(fork::legal_nodes)
    }
    /// A rollout file, or a thread or history id (a message id,
    /// `<history>:<ordinal>`, names its file too).
    fn find(
        &self,
        target: &str,
        projects: Option<&Path>,
        by: crate::agent::fork::Lookup,
    ) -> anyhow::Result<Option<Box<dyn crate::agent::fork::Target>>> {
        if by == crate::agent::fork::Lookup::Message {
            return Ok(None);
        }
        Ok(fork::find(target, projects)?.map(|f| Box::new(Found(f)) as Box<dyn crate::agent::fork::Target>))
    }
    fn checks(&self) -> &'static [&'static str] {
        &[
            "codex-session-meta-not-first",
            "codex-bad-timestamp",
            "codex-output-without-call",
            "codex-rollback-too-far",
            "codex-unresolved-thread",
        ]
    }
    fn check(&self, p: &crate::project::Project, out: &mut Vec<crate::agent::check::Finding>) {
        check::check(p, out);
    }
    fn supersedes(&self) -> &'static [(&'static str, &'static str)] {
        &[("codex-output-without-call", "P3-tool-result-without-use")]
    }
}

/// A rollout `cctree fork` found.
struct Found(PathBuf);

impl crate::agent::fork::Target for Found {
    fn describe(&self) -> String {
        format!("a Codex CLI thread ({})", self.0.display())
    }
    fn fork(self: Box<Self>, req: &crate::agent::fork::ForkRequest) -> anyhow::Result<crate::agent::fork::Fork> {
        let f = fork::fork(&self.0, req.at.as_deref(), req.dry_run)?;
        Ok(crate::agent::fork::Fork::of(f.text(), &f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_is_read_as_files_with_their_two_sides() {
        let files = parse_patch(
            "*** Begin Patch\n*** Update File: a.txt\n@@\n-hello\n+world\n keep\n*** Add File: b.txt\n+new\n*** End Patch",
        );
        assert_eq!(files.len(), 2);
        assert_eq!((files[0].op, &*files[0].path), (PatchOp::Update, "a.txt"));
        assert_eq!((&*files[0].old, &*files[0].new), ("hello\nkeep\n", "world\nkeep\n"));
        assert_eq!((files[1].op, &*files[1].new), (PatchOp::Add, "new\n"));
        assert!(matches!(patch_input("*** Begin Patch\n*** Add File: x\n+1\n*** End Patch"), ToolInput::Write { .. }));
        assert!(matches!(patch_input("not a patch"), ToolInput::Other));
        // Several files: each named, not one joined path.
        let ToolInput::Patch { files } = patch_input(
            "*** Begin Patch\n*** Update File: a.txt\n-a\n+b\n*** Delete File: c.txt\n*** Update File: d.txt\n*** Move to: e.txt\n-x\n+y\n*** End Patch",
        ) else {
            panic!("not a Patch")
        };
        let paths: Vec<Vec<&str>> = files.iter().map(|f| f.paths().collect()).collect();
        assert_eq!(paths, [vec!["a.txt"], vec!["c.txt"], vec!["d.txt", "e.txt"]]);
        assert_eq!(files[1].op, PatchOp::Delete);
    }

    #[test]
    fn lines_before_the_envelope_are_read_as_their_enveloped_kind() {
        let parse = |s: &str| crate::json::parse(s).unwrap();
        let first = parse(r#"{"id":"a","timestamp":"2025-08-20T13:20:47.060Z","instructions":null}"#);
        assert_eq!(envelope(&first).0, "session_meta");
        let item = parse(r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}"#);
        let (ty, p) = envelope(&item);
        assert_eq!((ty, p["role"].as_str()), ("response_item", Some("user")));
        assert_eq!(envelope(&parse(r#"{"record_type":"state"}"#)).0, "state");
        // Enveloped lines, and lines of no known shape, as before.
        let enveloped = parse(r#"{"timestamp":"t","type":"response_item","payload":{"type":"reasoning"}}"#);
        assert_eq!(
            (envelope(&enveloped).0, envelope(&enveloped).1["type"].as_str()),
            ("response_item", Some("reasoning"))
        );
        assert_eq!(envelope(&parse(r#"{"type":"future_thing"}"#)), ("future_thing", &Value::Null));
        assert!(matches!(content_of(&item), Content::Prompt(_)));
        let out = parse(
            r#"{"type":"function_call_output","call_id":"c","output":"{\"output\":\"no\\n\",\"metadata\":{\"exit_code\":1}}"}"#,
        );
        let Content::ToolResults(blocks) = content_of(&out) else { panic!("a result") };
        let Block::ToolResult(r) = &blocks[0] else { panic!("a result") };
        assert_eq!((&*r.text, r.is_error), ("no\n", true));
    }

    #[test]
    fn the_working_directory_of_an_environment_context() {
        let text = "<environment_context>\n  <cwd>/home/ada/tidy</cwd>\n  <shell>zsh</shell>\n</environment_context>";
        assert_eq!(context_cwd(text), Some("/home/ada/tidy"));
        assert_eq!(context_cwd("<environment_context>\n  <shell>zsh</shell>\n</environment_context>"), None);
        assert_eq!(context_cwd("please look at <cwd>/x</cwd>"), None, "a prompt is no context");
    }

    #[test]
    fn injected_context_is_told_from_prompts() {
        assert!(is_injected("<environment_context>\n  <cwd>/x</cwd>\n</environment_context>"));
        assert!(is_injected("# AGENTS.md instructions for /x\n…"));
        assert!(!is_injected("<b>bold</b> is what I want"));
        assert!(!is_injected("first: run [[sh: echo one]]"));
    }
}

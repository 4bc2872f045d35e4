//! Tool calls paired with their results (by `tool_use` id, through
//! `Graph::tools`; results may sit anywhere) in one collapsible block
//! ([`ToolView`], `templates/blocks/tool.html`), with a view per tool of what
//! its call shows ([`CallView`], `templates/tools/`): Bash, Edit/MultiEdit
//! (diffs), Write (the file), TodoWrite (checklist), WebFetch (the URL),
//! Task/Agent (link to the sub-agent page, the prompt), and pretty JSON for
//! MCP and unknown tools; and of what its result shows (`result_body`).

use askama::Template;
use serde_json::Value;

use crate::graph::NodeId;

use super::blocks::{Block, Markdown, PersistedNote, ResultText, ShellInput};
use super::html::diff::{diff_html, patch_html};
use super::html::highlight::file_block;
use super::html::{Html, filters, view_enum};
use super::layout::Item;
use super::message::note;
use super::page::{PageCtx, fold};
use super::payload::{at, str_at, strip_tags, tag_text};
use super::text::{cut, excerpt, human_size, is_cut};
use super::urls::{Href, external, page_file};
use crate::limits::{COMMAND_CAP, HINT_CHARS, OUTPUT_CAP, TOOL_ARG_CHARS, TOOL_NOTE_CHARS};

/// A tool call with its result, as `templates/blocks/tool.html` writes it.
#[derive(Debug, Template)]
#[template(path = "blocks/tool.html")]
pub struct ToolView {
    pub name: String,
    /// What the call is about, in a line (a path, a command, a pattern…).
    pub arg: String,
    /// Shown open (a checklist).
    pub open: bool,
    pub badge: Badge,
    /// What the call shows of its input.
    pub call: CallView,
    pub result: Option<ResultView>,
}

impl ToolView {
    /// Its result is an error.
    fn failed(&self) -> bool {
        matches!(self.badge, Badge::Error)
    }
}

/// The badge of a tool call, after its name.
#[derive(Debug)]
pub enum Badge {
    None,
    NoResult,
    Error,
    /// The size of a long result.
    Size(String),
}

/// The result inside a tool call.
#[derive(Debug)]
pub struct ResultView {
    /// The result entry's anchor, when it belongs on this page.
    pub id: Option<String>,
    pub body: Vec<Block>,
}

view_enum! {
    /// What a tool call shows of its input, by tool.
    #[derive(Debug)]
    pub enum CallView {
        Bash(BashCall),
        Edit(EditCall),
        MultiEdit(MultiEditCall),
        Write(WriteCall),
        TodoWrite(TodoWriteCall),
        WebFetch(WebFetchCall),
        Agent(AgentCall),
        /// Pretty JSON of the input (MCP and unknown tools).
        Json(Block),
        /// Nothing: the line after the name says it (Read, Grep, Glob, WebSearch).
        Plain(Html),
    }
}

/// `Bash`: the description and the command.
#[derive(Debug, Template)]
#[template(path = "tools/bash.html")]
pub struct BashCall {
    pub description: Option<String>,
    pub command: ShellInput,
}

/// `Edit`: the diff (from the recorded patch when there is one).
#[derive(Debug, Template)]
#[template(path = "tools/edit.html")]
pub struct EditCall {
    pub diff: Block,
}

/// `MultiEdit`: a diff per edit.
#[derive(Debug, Template)]
#[template(path = "tools/multi_edit.html")]
pub struct MultiEditCall {
    pub diffs: Vec<Html>,
}

/// `Write`: the file written, highlighted when small.
#[derive(Debug, Template)]
#[template(path = "tools/write.html")]
pub struct WriteCall {
    pub file: Block,
}

/// `TodoWrite`: the checklist.
#[derive(Debug, Template)]
#[template(path = "tools/todo_write.html")]
pub struct TodoWriteCall {
    /// `None` when the input holds no list.
    pub todos: Option<Vec<Todo>>,
}

/// One item of a checklist.
#[derive(Debug)]
pub struct Todo {
    /// `done`, `doing` or `todo`.
    pub class: &'static str,
    pub mark: &'static str,
    pub content: String,
}

/// `WebFetch`: the URL (a link when it may be one) and the prompt.
#[derive(Debug, Template)]
#[template(path = "tools/web_fetch.html")]
pub struct WebFetchCall {
    pub url: String,
    pub link: Option<Href>,
    pub prompt: Option<String>,
}

/// `Task` / `Agent`: the sub-agent's transcript and the prompt it was given.
#[derive(Debug, Template)]
#[template(path = "tools/agent.html")]
pub struct AgentCall {
    pub transcript: Option<AgentLink>,
    pub prompt: Option<Markdown>,
}

/// A link to a sub-agent's transcript.
#[derive(Debug)]
pub struct AgentLink {
    pub href: Href,
    pub messages: u32,
}

/// A tool result shown on its own (its call is on another line, or missing).
#[derive(Debug, Template)]
#[template(path = "blocks/standalone_result.html")]
pub struct StandaloneResult {
    /// The call, when it is in the archive.
    pub call: Option<Href>,
    pub body: Vec<Block>,
}

/// A tool result, read from its entry.
#[derive(Default)]
struct CallResult {
    node: Option<NodeId>,
    text: String,
    images: Vec<Value>,
    is_error: bool,
    /// The entry's `toolUseResult` (only when it holds this one result).
    tur: Option<Value>,
    session: String,
}

/// A `tool_use` block with its result.
pub fn call(cx: &mut PageCtx<'_>, b: &Value, item: &Item) -> ToolView {
    let name = str_at(Some(b), &["name"]).unwrap_or("tool");
    let id = str_at(Some(b), &["id"]).unwrap_or("");
    let empty = Value::Null;
    let input = b.get("input").unwrap_or(&empty);
    let res = find_result(cx, id, item);
    let (arg, call, show_result) = call_view(cx, name, id, input, res.as_ref());
    let badge = match &res {
        None => Badge::NoResult,
        Some(r) if r.is_error => Badge::Error,
        Some(r) if r.text.len() > 2000 => Badge::Size(human_size(r.text.len())),
        Some(_) => Badge::None,
    };
    let result = res.map(|r| {
        let id = r.node.and_then(|n| cx.take_anchor(n));
        let body = if show_result || r.is_error { result_body(cx, name, &r) } else { result_text(cx, &r.text) };
        ResultView { id, body }
    });
    ToolView {
        name: name.to_string(),
        arg: excerpt(&arg, TOOL_ARG_CHARS),
        open: name == "TodoWrite",
        badge,
        call,
        result,
    }
}

/// What a call shows: the line after its name, the view of its input, and
/// whether its result is shown in full (or only its text, when the call
/// already shows its effect: a diff, a file, a checklist).
fn call_view(
    cx: &mut PageCtx<'_>,
    name: &str,
    id: &str,
    input: &Value,
    res: Option<&CallResult>,
) -> (String, CallView, bool) {
    let s = |k: &str| str_at(Some(input), &[k]).unwrap_or("");
    let plain = CallView::Plain(Html::default());
    match name {
        "Bash" => {
            let command = ShellInput { command: cut(s("command"), COMMAND_CAP).to_string() };
            let description = (!s("description").is_empty()).then(|| excerpt(s("description"), HINT_CHARS));
            (s("command").lines().next().unwrap_or("").to_string(), BashCall { description, command }.into(), true)
        }
        "Edit" => {
            let diff = res
                .and_then(|r| r.tur.as_ref())
                .and_then(|t| t.get("structuredPatch"))
                .and_then(patch_html)
                .unwrap_or_else(|| diff_html(s("old_string"), s("new_string")));
            let diff = fold(Block::Html(diff), "Diff", s("old_string").len() + s("new_string").len());
            (s("file_path").into(), EditCall { diff }.into(), false)
        }
        "MultiEdit" => {
            let edits = input.get("edits").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
            let diffs = edits
                .iter()
                .map(|e| {
                    diff_html(
                        str_at(Some(e), &["old_string"]).unwrap_or(""),
                        str_at(Some(e), &["new_string"]).unwrap_or(""),
                    )
                })
                .collect();
            (format!("{} ({} edits)", s("file_path"), edits.len()), MultiEditCall { diffs }.into(), false)
        }
        "Write" => {
            let content = s("content");
            let code = file_block(cut(content, cx.cap()));
            let file = fold(Block::Html(code), "File", content.len());
            (s("file_path").into(), WriteCall { file }.into(), false)
        }
        "Read" => (read_arg(input), plain, true),
        "Grep" => (grep_arg(input), plain, true),
        "Glob" => (glob_arg(input), plain, true),
        "TodoWrite" => (todo_arg(input), TodoWriteCall { todos: todos(input.get("todos")) }.into(), false),
        "WebFetch" => {
            let prompt = (!s("prompt").is_empty()).then(|| excerpt(s("prompt"), HINT_CHARS));
            let view = WebFetchCall { url: s("url").into(), link: external(s("url")), prompt };
            (s("url").into(), view.into(), true)
        }
        "WebSearch" => (s("query").into(), plain, true),
        "Task" | "Agent" => {
            let arg = match (s("description"), s("subagent_type")) {
                (d, "") => d.to_string(),
                (d, t) => format!("{d} ({t})"),
            };
            let prompt = (!s("prompt").is_empty()).then(|| cx.markdown(s("prompt")));
            (arg, AgentCall { transcript: agent_link(cx, id), prompt }.into(), true)
        }
        _ => (mcp_arg(name), CallView::Json(cx.json_pre(input)), true),
    }
}

/// A `tool_result` block shown on its own (its call is on another line or missing).
pub fn standalone_result(cx: &mut PageCtx<'_>, b: &Value, tur: Option<&Value>) -> StandaloneResult {
    let id = str_at(Some(b), &["tool_use_id"]).unwrap_or("");
    let mut r = result_of(b);
    r.tur = tur.cloned();
    let g = cx.p.graph();
    let call = g.tools.get(id).and_then(|l| l.use_node).and_then(|n| cx.link(n));
    StandaloneResult { call, body: result_body(cx, "", &r) }
}

fn find_result(cx: &PageCtx<'_>, id: &str, item: &Item) -> Option<CallResult> {
    let g = cx.p.graph();
    let link = g.tools.get(id)?;
    let same_track = |n: &NodeId| cx.track.is_some_and(|l| cx.p.item_on(l, *n).is_some());
    let node = link
        .results
        .iter()
        .find(|n| item.absorbed.contains(n))
        .or_else(|| link.results.iter().find(|n| same_track(n)))
        .or_else(|| link.results.first())
        .copied()?;
    let e = g.entry(cx.p.entries(), node);
    let json: Value = cx.p.project.json(e).map_err(|err| cx.warn(format_args!("{err}"))).ok()?;
    let blocks = at(Some(&json), &["message", "content"])?.as_array()?;
    let b = blocks.iter().find(|b| str_at(Some(b), &["tool_use_id"]) == Some(id))?;
    let mut r = result_of(b);
    r.node = Some(node);
    r.session = e.session_id.as_deref().unwrap_or("").to_string();
    if e.tool_results.len() == 1 {
        r.tur = json.get("toolUseResult").cloned();
    }
    Some(r)
}

fn result_of(b: &Value) -> CallResult {
    let mut r =
        CallResult { is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false), ..CallResult::default() };
    match b.get("content") {
        Some(Value::String(s)) => r.text = s.clone(),
        Some(Value::Array(parts)) => {
            let mut texts = Vec::new();
            for p in parts {
                match str_at(Some(p), &["type"]) {
                    Some("image") => r.images.push(p.get("source").cloned().unwrap_or(Value::Null)),
                    _ => texts.push(str_at(Some(p), &["text"]).unwrap_or("")),
                }
            }
            r.text = texts.join("\n");
        }
        _ => {}
    }
    if r.text.contains("<tool_use_error>") {
        r.text = strip_tags(&r.text, &["tool_use_error"]);
    }
    r
}

/// What a result shows, by tool: the file read, Markdown (agents, fetches,
/// searches), terminal output (Bash), or its text; then its images.
fn result_body(cx: &mut PageCtx<'_>, tool: &str, r: &CallResult) -> Vec<Block> {
    let mut body = Vec::new();
    let tur = r.tur.as_ref();
    match tool {
        "Read" if !r.is_error => {
            if let Some(content) = str_at(tur, &["file", "content"]) {
                let code = file_block(cut(content, cx.cap()));
                body.push(fold(Block::Html(code), "File", content.len()));
            } else if r.images.is_empty() {
                body.push(cx.output(&r.text, "Output", ""));
            }
        }
        "Task" | "Agent" | "WebFetch" | "WebSearch" if !r.is_error => {
            let md = cx.markdown(cut(&r.text, cx.cap()));
            body.push(fold(Block::Markdown(md), "Result", r.text.len()));
        }
        "Bash" => {
            let out = match (str_at(tur, &["stdout"]), str_at(tur, &["stderr"])) {
                (Some(o), e) if !r.is_error => format!(
                    "{o}{}{}",
                    if e.unwrap_or("").is_empty() || o.is_empty() { "" } else { "\n" },
                    e.unwrap_or("")
                ),
                _ => r.text.clone(),
            };
            body.extend(persisted_or(cx, &out, &r.session, "term"));
            if at(tur, &["interrupted"]).and_then(Value::as_bool) == Some(true) {
                body.push(note("Interrupted."));
            }
        }
        _ => body.extend(persisted_or(cx, &r.text, &r.session, "")),
    }
    for img in &r.images {
        body.push(cx.image(Some(img)));
    }
    body
}

/// The text of a result whose call shows its effect (an edit's diff, a
/// written file, a checklist): a line, or its first words with the whole
/// text under them (it was cut at 200 characters, with no way to read on).
fn result_text(cx: &mut PageCtx<'_>, text: &str) -> Vec<Block> {
    let line = excerpt(text, TOOL_NOTE_CHARS);
    let full = is_cut(text, TOOL_NOTE_CHARS).then(|| Box::new(cx.output(text, "Output", "")));
    vec![Block::ResultText(ResultText { line, full })]
}

/// The output, or for a `<persisted-output>` preview the full spilled file
/// from `<session>/tool-results/` when it is in the archive (capped).
fn persisted_or(cx: &mut PageCtx<'_>, text: &str, session: &str, class: &'static str) -> Vec<Block> {
    let Some(inner) = tag_text(text, "persisted-output") else {
        return vec![cx.output(text, "Output", class)];
    };
    let file = inner
        .split_once("Full output saved to:")
        .map(|(_, rest)| rest.lines().next().unwrap_or("").trim())
        .and_then(|p| {
            let mut parts = p.rsplit(['/', '\\']);
            let f = parts.next()?;
            (parts.next()? == "tool-results").then_some(f)
        });
    let key = file.map(|f| format!("{session}/tool-results/{f}"));
    if let Some((p, full)) = key.and_then(|k| cx.p.project.side_file(&k, OUTPUT_CAP + 1)) {
        // Not an entry line: `--redact` has not seen it yet.
        let full = cx.p.redactor.text(|| p.display().to_string(), &full);
        let note = Block::Persisted(PersistedNote { file: file.map(str::to_string) });
        return vec![note, cx.output(&full, "Output", class)];
    }
    vec![Block::Persisted(PersistedNote { file: None }), cx.output(inner.trim(), "Preview", class)]
}

fn agent_link(cx: &PageCtx<'_>, tool_id: &str) -> Option<AgentLink> {
    let &a = cx.p.agent_by_tool.get(tool_id)?;
    let agent = &cx.p.graph().agents[a];
    Some(AgentLink { href: cx.p.href(cx.dir, &cx.p.agent_dirs[a], &page_file(0), None), messages: agent.messages })
}

fn read_arg(input: &Value) -> String {
    let path = str_at(Some(input), &["file_path"]).unwrap_or("");
    match (at(Some(input), &["offset"]), at(Some(input), &["limit"])) {
        (Some(o), Some(l)) => format!("{path} (from line {o}, {l} lines)"),
        (Some(o), None) => format!("{path} (from line {o})"),
        _ => path.to_string(),
    }
}

fn grep_arg(input: &Value) -> String {
    let s = |k| str_at(Some(input), &[k]).unwrap_or("");
    let mut a = s("pattern").to_string();
    for k in ["path", "glob", "type"] {
        if !s(k).is_empty() {
            a.push_str(" in ");
            a.push_str(s(k));
        }
    }
    a
}

fn glob_arg(input: &Value) -> String {
    let s = |k| str_at(Some(input), &[k]).unwrap_or("");
    if s("path").is_empty() { s("pattern").to_string() } else { format!("{} in {}", s("pattern"), s("path")) }
}

fn mcp_arg(name: &str) -> String {
    match name.strip_prefix("mcp__").and_then(|r| r.split_once("__")) {
        Some((server, tool)) => format!("MCP {server} · {tool}"),
        None => String::new(),
    }
}

fn todo_arg(input: &Value) -> String {
    let list = input.get("todos").and_then(Value::as_array);
    let done = list.map_or(0, |l| l.iter().filter(|t| str_at(Some(t), &["status"]) == Some("completed")).count());
    format!("{done}/{} done", list.map_or(0, Vec::len))
}

fn todos(list: Option<&Value>) -> Option<Vec<Todo>> {
    let items = list.and_then(Value::as_array)?;
    let todo = |t: &Value| {
        let (class, mark) = match str_at(Some(t), &["status"]).unwrap_or("pending") {
            "completed" => ("done", "☑"),
            "in_progress" => ("doing", "◐"),
            _ => ("todo", "☐"),
        };
        Todo { class, mark, content: str_at(Some(t), &["content"]).unwrap_or("").to_string() }
    };
    Some(items.iter().map(todo).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checklist_is_written_by_its_template() {
        let list = serde_json::json!([{"content":"write <tests>","status":"completed"},{"content":"ship","status":"in_progress"}]);
        let html = TodoWriteCall { todos: todos(Some(&list)) }.to_string();
        assert_eq!(
            html,
            "<ul class=\"todos\"><li class=\"done\"><span class=\"mark\">☑</span> write &lt;tests&gt;</li>\
             <li class=\"doing\"><span class=\"mark\">◐</span> ship</li></ul>"
        );
        assert_eq!(TodoWriteCall { todos: None }.to_string(), "<span class=\"placeholder\">[no todos]</span>");
    }
}

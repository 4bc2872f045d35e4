//! Tool calls paired with their results (by `tool_use` id, through
//! `Graph::tools`; results may sit anywhere) in one collapsible block
//! ([`ToolView`], `templates/blocks/tool.html`), with a view per tool of what
//! its call shows ([`CallView`], `templates/tools/`): Bash, Edit/MultiEdit
//! (diffs), Write (the file), TodoWrite (checklist), WebFetch (the URL),
//! Task/Agent (link to the sub-agent page, the prompt), AskUserQuestion (the
//! questions, options and answers), ExitPlanMode (the plan), NotebookEdit
//! (the cell), the task-list, messaging, skill and background-task tools
//! (their fields), and for MCP and unknown tools their key arguments and
//! pretty JSON; and of what its result shows (`result_body`).
//!
//! Every call has a one-line summary (`arg`) when its input holds anything:
//! the tools of Claude Code 2.1.330 by what matters of each (see
//! `docs/transcript-format.md` §4.7), any other by its key arguments.

use std::fmt::Write as _;

use askama::Template;
use serde_json::Value;

use crate::graph::NodeId;
use crate::json::pick::Want;

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
        Questions(QuestionsCall),
        /// Labelled fields of the input, then a body (a plan, a cell…).
        Fields(FieldsCall),
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

/// `AskUserQuestion`: each question, its options, and what the person
/// answered (from the result).
#[derive(Debug, Template)]
#[template(path = "tools/questions.html")]
pub struct QuestionsCall {
    pub questions: Vec<Question>,
}

#[derive(Debug)]
pub struct Question {
    /// The short chip label.
    pub header: String,
    pub question: String,
    pub multi: bool,
    pub options: Vec<QuestionOption>,
    /// The answer as given, when it is not (only) options of the list.
    pub answer: Option<String>,
}

#[derive(Debug)]
pub struct QuestionOption {
    pub label: String,
    pub description: String,
    pub chosen: bool,
}

/// Labelled fields of a call's input (a task's subject, a message's
/// recipient, a cell's id…), then what it carries at length.
#[derive(Debug, Default, Template)]
#[template(path = "tools/fields.html")]
pub struct FieldsCall {
    pub fields: Vec<Field>,
    pub body: Option<Block>,
}

#[derive(Debug)]
pub struct Field {
    pub label: String,
    pub value: String,
}

impl FieldsCall {
    /// The fields of `input` named in `keys` (label, key) that hold a value.
    fn of(input: &Value, keys: &[(&str, &str)]) -> FieldsCall {
        let fields = keys
            .iter()
            .filter_map(|(label, k)| {
                let v = scalar_text(input.get(*k)?)?;
                (!v.is_empty()).then(|| Field { label: (*label).to_string(), value: v })
            })
            .collect();
        FieldsCall { fields, body: None }
    }

    fn with(mut self, body: Option<Block>) -> FieldsCall {
        self.body = body;
        self
    }
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
    let res = find_result(cx, name, id, item);
    let arg = summary(name, input, res.as_ref().and_then(|r| r.tur.as_ref()));
    let (call, show_result) = call_view(cx, name, id, input, res.as_ref());
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
        open: matches!(name, "TodoWrite" | "AskUserQuestion" | "ExitPlanMode"),
        badge,
        call,
        result,
    }
}

/// The line after a call's name: what the call is about, by tool (the
/// tools of Claude Code 2.1.330, their former names, MCP tools), else its
/// key arguments. Empty only when its input holds nothing. `tur` is its
/// result's `toolUseResult` (a created task's id, a plan kept out of the
/// input).
pub fn summary(name: &str, input: &Value, tur: Option<&Value>) -> String {
    let s = |k: &str| str_at(Some(input), &[k]).unwrap_or("");
    let id_of = |k: &str| input.get(k).and_then(scalar_text).unwrap_or_default();
    let arg = match name {
        "Bash" | "PowerShell" => s("command").lines().find(|l| !l.trim().is_empty()).unwrap_or("").to_string(),
        "Edit" | "Write" => s("file_path").into(),
        "MultiEdit" => {
            let n = input.get("edits").and_then(Value::as_array).map_or(0, Vec::len);
            format!("{} ({n} edits)", s("file_path"))
        }
        "Read" => read_arg(input),
        "Grep" => grep_arg(input),
        "Glob" => glob_arg(input),
        "TodoWrite" => todo_arg(input),
        "WebFetch" => s("url").into(),
        "WebSearch" => web_search_arg(input),
        "Task" | "Agent" => match (s("description"), s("subagent_type")) {
            (d, "") => d.to_string(),
            (d, t) => format!("{d} ({t})"),
        },
        "TaskCreate" | "TaskUpdate" | "TaskGet" | "TaskList" => task_summary(name, input, tur),
        "ToolSearch" => s("query").into(),
        "TaskOutput" | "BashOutput" | "TaskStop" | "KillShell" | "KillBash" => {
            let mut arg =
                ["task_id", "bash_id", "shell_id"].iter().map(|k| id_of(k)).find(|v| !v.is_empty()).unwrap_or_default();
            if at(Some(input), &["block"]).and_then(Value::as_bool) == Some(false) {
                arg.push_str(" (without waiting)");
            }
            if !s("filter").is_empty() {
                let _ = write!(arg, " (lines matching {})", s("filter"));
            }
            arg
        }
        "SendMessage" => {
            let what = match input.get("message") {
                _ if !s("summary").is_empty() => s("summary").to_string(),
                Some(Value::String(m)) => m.lines().find(|l| !l.trim().is_empty()).unwrap_or("").to_string(),
                Some(Value::Object(o)) => o.get("type").and_then(Value::as_str).unwrap_or("").replace('_', " "),
                _ => String::new(),
            };
            match (s("to"), what.as_str()) {
                ("", "") => String::new(),
                (to, "") => format!("→ {to}"),
                (to, w) => format!("→ {to}: {w}"),
            }
        }
        "AskUserQuestion" => {
            let qs = question_list(input);
            let text = |q: &Value, k: &str| str_at(Some(q), &[k]).unwrap_or("").to_string();
            match qs.as_slice() {
                [] => String::new(),
                [q] => text(q, "question"),
                qs => format!(
                    "{} questions: {}",
                    qs.len(),
                    qs.iter().map(|q| text(q, "header")).filter(|h| !h.is_empty()).collect::<Vec<_>>().join(", ")
                ),
            }
        }
        "ExitPlanMode" => plan_summary(input, tur),
        "NotebookEdit" => {
            let mode = Some(s("edit_mode")).filter(|m| !m.is_empty()).unwrap_or("replace");
            let cell = if s("cell_id").is_empty() { String::new() } else { format!(" cell {}", s("cell_id")) };
            let ty = if s("cell_type").is_empty() { String::new() } else { format!(", {}", s("cell_type")) };
            format!("{}{cell} ({mode}{ty})", s("notebook_path"))
        }
        "Skill" => format!("{} {}", s("skill"), s("args")).trim().to_string(),
        _ => match mcp_arg(name) {
            Some(m) => {
                let k = key_args(input);
                if k.is_empty() { m } else { format!("{m} · {k}") }
            }
            None => String::new(),
        },
    };
    if arg.trim().is_empty() { key_args(input) } else { arg }
}

/// The line of a task-list call: `#id`, subject, status, owner, dependencies.
fn task_summary(name: &str, input: &Value, tur: Option<&Value>) -> String {
    let s = |k: &str| str_at(Some(input), &[k]).unwrap_or("");
    let id_of = |k: &str| input.get(k).and_then(scalar_text).unwrap_or_default();
    match name {
        "TaskCreate" => match str_at(tur, &["task", "id"]) {
            Some(n) => format!("#{n} {}", s("subject")),
            None => s("subject").to_string(),
        },
        "TaskUpdate" => {
            let mut parts = vec![format!("#{}", id_of("taskId"))];
            for k in ["status", "subject", "owner"] {
                if !s(k).is_empty() {
                    parts.push(s(k).to_string());
                }
            }
            for (k, what) in [("addBlocks", "blocks"), ("addBlockedBy", "blocked by")] {
                let ids = id_of(k);
                if !ids.is_empty() {
                    parts.push(format!("{what} {ids}"));
                }
            }
            parts.join(" · ")
        }
        "TaskGet" => format!("#{} {}", id_of("taskId"), str_at(tur, &["task", "subject"]).unwrap_or("")),
        "TaskList" => "the task list".into(),
        _ => String::new(),
    }
}

/// What a call shows of its input, and whether its result is shown in full
/// (or only its text, when the call already shows its effect: a diff, a
/// file, a checklist, the answers).
fn call_view(cx: &mut PageCtx<'_>, name: &str, id: &str, input: &Value, res: Option<&CallResult>) -> (CallView, bool) {
    let s = |k: &str| str_at(Some(input), &[k]).unwrap_or("");
    let plain = CallView::Plain(Html::default());
    match name {
        "Bash" => {
            let command = ShellInput { command: cut(s("command"), COMMAND_CAP).to_string() };
            let description = (!s("description").is_empty()).then(|| excerpt(s("description"), HINT_CHARS));
            (BashCall { description, command }.into(), true)
        }
        "Edit" => {
            let diff = res
                .and_then(|r| r.tur.as_ref())
                .and_then(|t| t.get("structuredPatch"))
                .and_then(patch_html)
                .unwrap_or_else(|| diff_html(s("old_string"), s("new_string")));
            let diff = fold(Block::Html(diff), "Diff", s("old_string").len() + s("new_string").len());
            (EditCall { diff }.into(), false)
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
            (MultiEditCall { diffs }.into(), false)
        }
        "Write" => {
            let content = s("content");
            let code = file_block(cut(content, cx.cap()));
            let file = fold(Block::Html(code), "File", content.len());
            (WriteCall { file }.into(), false)
        }
        "Read" | "Grep" | "Glob" => (plain, true),
        "TodoWrite" => (TodoWriteCall { todos: todos(input.get("todos")) }.into(), false),
        "WebFetch" => {
            let prompt = (!s("prompt").is_empty()).then(|| excerpt(s("prompt"), HINT_CHARS));
            (WebFetchCall { url: s("url").into(), link: external(s("url")), prompt }.into(), true)
        }
        "WebSearch" => {
            (FieldsCall::of(input, &[("only from", "allowed_domains"), ("never from", "blocked_domains")]).into(), true)
        }
        "Task" | "Agent" => {
            let prompt = (!s("prompt").is_empty()).then(|| cx.folded_markdown(s("prompt")));
            (AgentCall { transcript: agent_link(cx, id), prompt }.into(), true)
        }
        _ => other_view(cx, name, input, res),
    }
}

/// [`call_view`] of the task-list, messaging, question, plan, notebook and
/// skill tools, MCP and unknown tools.
fn other_view(cx: &mut PageCtx<'_>, name: &str, input: &Value, res: Option<&CallResult>) -> (CallView, bool) {
    let s = |k: &str| str_at(Some(input), &[k]).unwrap_or("");
    let markdown =
        |cx: &mut PageCtx<'_>, k: &str| (!s(k).is_empty()).then(|| Block::Markdown(cx.folded_markdown(s(k))));
    match name {
        "TaskCreate" | "TaskUpdate" => {
            let body = markdown(cx, "description");
            let fields = [("status", "status"), ("owner", "owner"), ("shown as", "activeForm")];
            (FieldsCall::of(input, &fields).with(body).into(), true)
        }
        "TaskGet" | "TaskList" => (FieldsCall::default().into(), true),
        "ToolSearch" => (FieldsCall::of(input, &[("at most", "max_results")]).into(), true),
        "TaskOutput" | "BashOutput" | "TaskStop" | "KillShell" | "KillBash" => {
            (FieldsCall::of(input, &[("timeout (ms)", "timeout")]).into(), true)
        }
        "SendMessage" => {
            let body = match input.get("message") {
                Some(Value::String(m)) if !m.is_empty() => Some(Block::Markdown(cx.folded_markdown(m))),
                Some(other @ Value::Object(_)) => Some(cx.json_pre(other)),
                _ => None,
            };
            (FieldsCall::of(input, &[("to", "to"), ("files", "files")]).with(body).into(), true)
        }
        "AskUserQuestion" => (questions(input, res).into(), false),
        "ExitPlanMode" => {
            let plan = plan_of(input, res.and_then(|r| r.tur.as_ref()));
            let body = (!plan.is_empty()).then(|| Block::Markdown(cx.markdown(cut(plan, cx.cap()))));
            (FieldsCall::default().with(body).into(), true)
        }
        "NotebookEdit" => {
            let src = s("new_source");
            let body = (!src.is_empty()).then(|| {
                let code = file_block(cut(src, cx.cap()));
                fold(Block::Html(code), "Cell", src.len())
            });
            (FieldsCall::default().with(body).into(), true)
        }
        "Skill" => (FieldsCall::default().into(), true),
        _ => (CallView::Json(cx.json_pre(input)), true),
    }
}

/// `plan: <its title>` of an `ExitPlanMode` call.
fn plan_summary(input: &Value, tur: Option<&Value>) -> String {
    let plan = plan_of(input, tur);
    match plan.lines().map(|l| l.trim_start_matches(['#', ' '])).find(|l| !l.trim().is_empty()) {
        Some(t) => format!("plan: {t}"),
        // An empty input: the plan was kept out of the transcript.
        None if input.as_object().is_none_or(serde_json::Map::is_empty) => "the plan".into(),
        None => String::new(),
    }
}

/// The plan of an `ExitPlanMode` call: its input's, else its result's.
fn plan_of<'v>(input: &'v Value, tur: Option<&'v Value>) -> &'v str {
    Some(str_at(Some(input), &["plan"]).unwrap_or(""))
        .filter(|p| !p.trim().is_empty())
        .or_else(|| str_at(tur, &["plan"]))
        .unwrap_or("")
}

/// A `tool_result` block shown on its own (its call is on another line or
/// missing): its text and images (without its call, no view of the tool
/// reads its entry's `toolUseResult`).
pub fn standalone_result(cx: &mut PageCtx<'_>, b: &Value) -> StandaloneResult {
    let id = str_at(Some(b), &["tool_use_id"]).unwrap_or("");
    let r = result_of(b.clone());
    let g = cx.p.graph();
    let call = g.tools.get(id).and_then(|l| l.use_node).and_then(|n| cx.link(n));
    StandaloneResult { call, body: result_body(cx, "", &r) }
}

/// What the views of a `tool` call ([`summary`], [`call_view`],
/// [`result_body`]) read of its result's entry: the blocks of its message,
/// and what they show of its `toolUseResult` — never the rest, such as the
/// original file of an `Edit` or the file a `Write` repeats.
fn result_want(tool: &str) -> &'static Want {
    macro_rules! want {
        ($($tur:tt)*) => {
            Want::Keys(&[
                ("message", Want::Keys(&[("content", Want::All)])),
                ("toolUseResult", Want::Keys(&[$($tur)*])),
            ])
        };
    }
    const READ: Want = want!(("file", Want::Keys(&[("content", Want::All)])));
    const BASH: Want = want!(("stdout", Want::All), ("stderr", Want::All), ("interrupted", Want::All));
    const EDIT: Want = want!(("structuredPatch", Want::All));
    const TASK: Want = want!(("task", Want::All));
    const PLAN: Want = want!(("plan", Want::All));
    const ANSWERS: Want = want!(("answers", Want::All));
    const BLOCKS: Want = Want::Keys(&[("message", Want::Keys(&[("content", Want::All)]))]);
    match tool {
        "Read" => &READ,
        "Bash" => &BASH,
        "Edit" => &EDIT,
        "TaskCreate" | "TaskGet" => &TASK,
        "ExitPlanMode" => &PLAN,
        "AskUserQuestion" => &ANSWERS,
        _ => &BLOCKS,
    }
}

/// The result of call `id` of `tool` (the one `item` absorbs, else on this
/// page's track, else the first), read from its entry.
fn find_result(cx: &PageCtx<'_>, tool: &str, id: &str, item: &Item) -> Option<CallResult> {
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
    let mut json = cx.p.project.json_only(e, result_want(tool)).map_err(|err| cx.warn(format_args!("{err}"))).ok()?;
    let blocks = json.get_mut("message")?.get_mut("content")?.as_array_mut()?;
    let b = blocks.iter_mut().find(|b| str_at(Some(b), &["tool_use_id"]) == Some(id))?;
    // Its parts are moved out of the tree, not copied.
    let mut r = result_of(b.take());
    r.node = Some(node);
    r.session = e.session_id.as_deref().unwrap_or("").to_string();
    if e.tool_results.len() == 1 {
        r.tur = json.get_mut("toolUseResult").map(Value::take);
    }
    Some(r)
}

/// What a `tool_result` block holds: its text (the `text` of its parts),
/// images, and whether it is an error.
fn result_of(mut b: Value) -> CallResult {
    let mut r =
        CallResult { is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false), ..CallResult::default() };
    match b.get_mut("content").map(Value::take) {
        Some(Value::String(s)) => r.text = s,
        Some(Value::Array(parts)) => {
            let mut texts = Vec::with_capacity(parts.len());
            for mut p in parts {
                match str_at(Some(&p), &["type"]) {
                    Some("image") => r.images.push(p.get_mut("source").map_or(Value::Null, Value::take)),
                    _ => texts.push(match p.get_mut("text").map(Value::take) {
                        Some(Value::String(t)) => t,
                        _ => String::new(),
                    }),
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
            let md = cx.folded_markdown(cut(&r.text, cx.cap()));
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

/// `server · tool` of an MCP tool (`mcp__<server>__<tool>`).
fn mcp_arg(name: &str) -> Option<String> {
    let (server, tool) = name.strip_prefix("mcp__")?.split_once("__")?;
    Some(format!("{server} · {tool}"))
}

/// `query` and the domains it is limited to.
fn web_search_arg(input: &Value) -> String {
    let mut a = str_at(Some(input), &["query"]).unwrap_or("").to_string();
    if let Some(d) = input.get("allowed_domains").and_then(scalar_text).filter(|d| !d.is_empty()) {
        let _ = write!(a, " (on {d})");
    }
    if let Some(d) = input.get("blocked_domains").and_then(scalar_text).filter(|d| !d.is_empty()) {
        let _ = write!(a, " (not on {d})");
    }
    a
}

/// A value as one line of text: a string's first line, a number, a
/// boolean, a list of those joined by commas; `None` for objects and null.
fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().filter_map(scalar_text).filter(|p| !p.is_empty()).collect();
            (!parts.is_empty()).then(|| parts.join(", "))
        }
        Value::Object(_) | Value::Null => None,
    }
}

/// Input fields that say what a call is about, most telling first.
const KEY_FIELDS: &[&str] = &[
    "query",
    "command",
    "file_path",
    "path",
    "filePath",
    "notebook_path",
    "url",
    "uri",
    "pattern",
    "name",
    "server",
    "subject",
    "title",
    "description",
    "prompt",
    "message",
    "text",
    "content",
    "id",
    "task_id",
];

/// The key arguments of an input, for tools cctree knows nothing of: its
/// first fields holding text, numbers or lists of them (`key: value`), else
/// the names of its fields; a string input itself. Empty only when the
/// input holds nothing.
fn key_args(input: &Value) -> String {
    const SHOWN: usize = 3;
    match input {
        Value::Object(map) => {
            // Fields that say what a call is about first, then the others by name.
            let rank = |k: &str| KEY_FIELDS.iter().position(|f| *f == k).unwrap_or(KEY_FIELDS.len());
            let mut fields: Vec<(&String, &Value)> = map.iter().collect();
            fields.sort_by_key(|(k, _)| rank(k));
            let scalars: Vec<String> = fields
                .iter()
                .filter_map(|(k, v)| scalar_text(v).filter(|t| !t.is_empty()).map(|t| format!("{k}: {t}")))
                .take(SHOWN)
                .collect();
            if scalars.is_empty() { map.keys().cloned().collect::<Vec<_>>().join(", ") } else { scalars.join(" · ") }
        }
        Value::Null => String::new(),
        other => scalar_text(other).unwrap_or_else(|| other.to_string()),
    }
}

/// The questions of an `AskUserQuestion` call and what the person answered:
/// the result's `answers` (question → answer; several options joined by
/// `, `), else its text (`"question"="answer"`).
fn questions(input: &Value, res: Option<&CallResult>) -> QuestionsCall {
    let answers = res.and_then(|r| r.tur.as_ref()).and_then(|t| t.get("answers")).and_then(Value::as_object);
    let text = res.map_or("", |r| r.text.as_str());
    let list = question_list(input);
    let questions = list
        .iter()
        .map(|q| {
            let s = |k| str_at(Some(q), &[k]).unwrap_or("").to_string();
            let question = s("question");
            let answer = answers
                .and_then(|a| a.get(&question))
                .and_then(scalar_text)
                .or_else(|| answer_in_text(text, &question));
            let picked =
                |label: &str| answer.as_deref().is_some_and(|a| a == label || a.split(", ").any(|p| p == label));
            let options: Vec<QuestionOption> = q
                .get("options")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or(&[])
                .iter()
                .map(|o| {
                    let label = str_at(Some(o), &["label"]).unwrap_or("").to_string();
                    let chosen = picked(&label);
                    QuestionOption {
                        description: str_at(Some(o), &["description"]).unwrap_or("").into(),
                        label,
                        chosen,
                    }
                })
                .collect();
            // Shown as typed when it is not just the options marked.
            let all_marked = answer.as_deref().is_some_and(|a| {
                a.split(", ").all(|p| options.iter().any(|o| o.label == p)) || options.iter().any(|o| o.label == a)
            });
            Question {
                header: s("header"),
                question,
                multi: q.get("multiSelect").and_then(Value::as_bool) == Some(true),
                options,
                answer: answer.filter(|_| !all_marked),
            }
        })
        .collect();
    QuestionsCall { questions }
}

/// The questions of an `AskUserQuestion` input; early calls asked one
/// `question` (a string), without options.
fn question_list(input: &Value) -> Vec<Value> {
    match (input.get("questions"), input.get("question")) {
        (Some(Value::Array(qs)), _) => qs.clone(),
        (_, Some(q @ Value::String(_))) => vec![serde_json::json!({ "question": q })],
        _ => Vec::new(),
    }
}

/// `"question"="answer"` in the text of an `AskUserQuestion` result.
fn answer_in_text(text: &str, question: &str) -> Option<String> {
    let key = format!("\"{question}\"=\"");
    let start = text.find(&key)? + key.len();
    let rest = &text[start..];
    let end = rest.find("\", \"").or_else(|| rest.find("\". ")).or_else(|| rest.rfind('"'))?;
    Some(rest[..end].to_string())
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
    use serde_json::json;

    /// Whether an input holds anything to summarise.
    fn holds_something(input: &Value) -> bool {
        match input {
            Value::Object(o) => o.values().any(|v| !matches!(v, Value::Null)),
            Value::Null => false,
            Value::String(s) => !s.is_empty(),
            _ => true,
        }
    }

    /// Every `tool_use` block of the vendored transcripts (the real
    /// projects, the 2.1.330 archives, the example), by name and input.
    fn vendored_calls() -> Vec<(String, Value)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut calls = Vec::new();
        for dir in ["tests/fixtures", "examples"] {
            for f in walkdir::WalkDir::new(root.join(dir)).sort_by_file_name().into_iter().filter_map(Result::ok) {
                if f.path().extension().is_none_or(|e| e != "jsonl") {
                    continue;
                }
                let text = String::from_utf8_lossy(&std::fs::read(f.path()).unwrap()).into_owned();
                for line in text.lines() {
                    let Ok(v) = serde_json::from_str::<Value>(line) else { continue };
                    let Some(blocks) = at(Some(&v), &["message", "content"]).and_then(Value::as_array) else {
                        continue;
                    };
                    for b in blocks.iter().filter(|b| str_at(Some(b), &["type"]) == Some("tool_use")) {
                        let name = str_at(Some(b), &["name"]).unwrap_or("").to_string();
                        calls.push((name, b.get("input").cloned().unwrap_or(Value::Null)));
                    }
                }
            }
        }
        calls
    }

    /// A plausible input for each tool Claude Code 2.1.330 ships (its
    /// list of tool names, the former names it still maps, and the tools
    /// of older clients in the corpus), and an MCP tool.
    fn synthetic_calls() -> Vec<(&'static str, Value)> {
        vec![
            ("Agent", json!({"description":"Find the bug","prompt":"Look","subagent_type":"Explore"})),
            ("Task", json!({"description":"Find the bug","prompt":"Look"})),
            ("Artifact", json!({"title":"Chart","content":"<svg/>"})),
            (
                "AskUserQuestion",
                json!({"questions":[{"question":"Which?","header":"Pick","options":[{"label":"A"},{"label":"B"}],"multiSelect":false}]}),
            ),
            ("Bash", json!({"command":"ls -la","description":"List"})),
            ("PowerShell", json!({"command":"Get-ChildItem"})),
            ("CronCreate", json!({"cron":"*/5 * * * *","prompt":"check the build"})),
            ("CronDelete", json!({"id":"cron-1"})),
            ("CronList", json!({"all":true})),
            ("Edit", json!({"file_path":"/a.rs","old_string":"a","new_string":"b"})),
            ("MultiEdit", json!({"file_path":"/a.rs","edits":[{"old_string":"a","new_string":"b"}]})),
            ("EndConversation", json!({"reason":"done"})),
            ("EnterPlanMode", json!({"reason":"big change"})),
            ("ExitPlanMode", json!({"plan":"# Fix the parser\n1. read"})),
            ("EnterWorktree", json!({"name":"feature-x"})),
            ("ExitWorktree", json!({"action":"keep"})),
            ("Glob", json!({"pattern":"**/*.rs","path":"/src"})),
            ("Grep", json!({"pattern":"fn main","path":"/src"})),
            ("LS", json!({"path":"/src"})),
            ("ListAgents", json!({"all":true})),
            ("ListMcpResourcesTool", json!({"server":"github"})),
            ("ReadMcpResourceTool", json!({"server":"github","uri":"repo://a/b"})),
            ("ReadMcpResourceDirTool", json!({"server":"github","uri":"repo://a/"})),
            ("LSP", json!({"operation":"goToDefinition","filePath":"/a.rs","line":3,"character":4})),
            ("Monitor", json!({"command":"tail -f log","description":"watch the log"})),
            (
                "NotebookEdit",
                json!({"notebook_path":"/n.ipynb","cell_id":"c1","new_source":"print(1)","edit_mode":"replace"}),
            ),
            ("Read", json!({"file_path":"/a.rs","offset":3})),
            ("Write", json!({"file_path":"/a.rs","content":"x"})),
            ("ReadNotifications", json!({"limit":5})),
            ("RemoteTrigger", json!({"action":"run","trigger_id":"t1"})),
            ("ReportFindings", json!({"findings":[{"title":"Leak","severity":"high"}]})),
            ("ScheduleWakeup", json!({"delaySeconds":60,"reason":"poll CI"})),
            ("SendFeedback", json!({"message":"great"})),
            ("SendMessage", json!({"to":"alice","summary":"round 2","message":"Please pull master"})),
            ("SendMessage", json!({"to":"bob","message":{"type":"shutdown_request","reason":"done"}})),
            ("SendUserFile", json!({"files":["/a.txt"]})),
            ("SendUserMessage", json!({"message":"Build is green"})),
            ("Brief", json!({"message":"Build is green"})),
            ("SetGoal", json!({"goal":"ship 1.0"})),
            ("Skill", json!({"skill":"pdf","args":"report.pdf"})),
            ("TaskCreate", json!({"subject":"Write tests","description":"All of them"})),
            ("TaskGet", json!({"taskId":"2"})),
            ("TaskList", json!({})),
            ("TaskUpdate", json!({"taskId":"2","status":"completed"})),
            ("TaskUpdate", json!({"taskId":"3","addBlockedBy":["1","2"]})),
            ("TaskOutput", json!({"task_id":"b1bg01","block":false})),
            ("BashOutput", json!({"bash_id":"01910a"})),
            ("TaskStop", json!({"task_id":"b1bg01"})),
            ("KillShell", json!({"shell_id":"dce0af"})),
            ("KillBash", json!({"shell_id":"dce0af"})),
            ("TodoWrite", json!({"todos":[{"content":"a","status":"pending"}]})),
            ("ToolSearch", json!({"query":"select:TaskCreate","max_results":1})),
            ("WaitForMcpServers", json!({"timeout":30})),
            ("WebFetch", json!({"url":"https://example.com","prompt":"summary"})),
            ("WebSearch", json!({"query":"rust askama","allowed_domains":["docs.rs"]})),
            ("Workflow", json!({"name":"release","inputs":{"v":"1.0"}})),
            ("propose_skills", json!({"skills":[{"name":"deploy"}]})),
            ("mcp__github__create_issue", json!({"repo":"o/r","title":"Crash on start","body":"…"})),
            ("mcp__ide__getDiagnostics", json!({"uri":"file:///a.rs"})),
            ("SomethingNew", json!({"nested":{"a":1}})),
            ("SomethingNewer", json!("a string input")),
        ]
    }

    #[test]
    fn every_tool_call_with_an_input_has_a_summary() {
        let vendored = vendored_calls();
        assert!(vendored.len() > 1000, "the fixtures hold calls: {}", vendored.len());
        let synthetic = synthetic_calls().into_iter().map(|(n, i)| (n.to_string(), i));
        let mut names = std::collections::BTreeSet::new();
        for (name, input) in vendored.into_iter().chain(synthetic) {
            names.insert(name.clone());
            let line = summary(&name, &input, None);
            if holds_something(&input) {
                assert!(!line.trim().is_empty(), "{name} {input} has no summary");
            }
        }
        for n in ["TaskCreate", "SendMessage", "AskUserQuestion", "ExitPlanMode", "TaskOutput", "TaskStop", "Skill"] {
            assert!(names.contains(n), "{n} is among the calls walked");
        }
    }

    #[test]
    fn summaries_say_what_each_call_is_about() {
        let s = |name: &str, input: Value| summary(name, &input, None);
        assert_eq!(s("TaskCreate", json!({"subject":"Write tests","description":"x"})), "Write tests");
        let created = json!({"task":{"id":"4","subject":"Write tests"}});
        assert_eq!(summary("TaskCreate", &json!({"subject":"Write tests"}), Some(&created)), "#4 Write tests");
        assert_eq!(
            s("TaskUpdate", json!({"taskId":"2","status":"in_progress","owner":"bob"})),
            "#2 · in_progress · bob"
        );
        assert_eq!(s("TaskUpdate", json!({"taskId":"3","addBlockedBy":["1","2"]})), "#3 · blocked by 1, 2");
        assert_eq!(summary("TaskGet", &json!({"taskId":"2"}), Some(&created)), "#2 Write tests");
        assert_eq!(s("TaskList", json!({})), "the task list");
        assert_eq!(s("SendMessage", json!({"to":"alice","message":"Pull master\nthen merge"})), "→ alice: Pull master");
        assert_eq!(s("SendMessage", json!({"to":"alice","summary":"round 2","message":"long"})), "→ alice: round 2");
        assert_eq!(
            s("SendMessage", json!({"to":"bob","message":{"type":"shutdown_request"}})),
            "→ bob: shutdown request"
        );
        let q = json!({"questions":[{"question":"Which DB?","header":"DB","options":[]},{"question":"Port?","header":"Port"}]});
        assert_eq!(s("AskUserQuestion", q), "2 questions: DB, Port");
        assert_eq!(s("ExitPlanMode", json!({"plan":"\n## Plan: fix it\n1. a"})), "plan: Plan: fix it");
        assert_eq!(summary("ExitPlanMode", &json!({}), Some(&json!({"plan":"# Kept"}))), "plan: Kept");
        let nb =
            json!({"notebook_path":"/n.ipynb","cell_id":"c1","new_source":"x","cell_type":"code","edit_mode":"insert"});
        assert_eq!(s("NotebookEdit", nb), "/n.ipynb cell c1 (insert, code)");
        assert_eq!(
            s("WebSearch", json!({"query":"askama","allowed_domains":["docs.rs","github.com"]})),
            "askama (on docs.rs, github.com)"
        );
        assert_eq!(s("Skill", json!({"skill":"pdf","args":"a.pdf"})), "pdf a.pdf");
        assert_eq!(s("TaskOutput", json!({"task_id":"b1","block":false})), "b1 (without waiting)");
        assert_eq!(s("KillShell", json!({"shell_id":"dce0af"})), "dce0af");
        assert_eq!(
            s("mcp__github__create_issue", json!({"title":"Crash","repo":"o/r"})),
            "github · create_issue · title: Crash · repo: o/r"
        );
        assert_eq!(s("mcp__ide__getDiagnostics", json!({})), "ide · getDiagnostics");
        assert_eq!(s("Unknown", json!({"nested":{"a":1},"other":{}})), "nested, other");
        assert_eq!(s("Unknown", json!({})), "");
    }

    #[test]
    fn questions_show_the_answers_given() {
        let input = json!({"questions":[
            {"question":"Which DB?","header":"DB","options":[{"label":"Postgres","description":"big"},{"label":"SQLite"}],"multiSelect":false},
            {"question":"Which extras?","header":"Extras","options":[{"label":"A"},{"label":"B"},{"label":"C"}],"multiSelect":true},
            {"question":"Name?","header":"Name","options":[{"label":"x"},{"label":"y"}]}]});
        let res = CallResult {
            tur: Some(json!({"answers":{"Which DB?":"SQLite","Which extras?":"A, C"}})),
            text: "User has answered your questions: \"Which DB?\"=\"SQLite\", \"Name?\"=\"my <own> name\". You can now continue".into(),
            ..CallResult::default()
        };
        let v = questions(&input, Some(&res));
        let chosen =
            |i: usize| v.questions[i].options.iter().filter(|o| o.chosen).map(|o| o.label.as_str()).collect::<Vec<_>>();
        assert_eq!(chosen(0), ["SQLite"]);
        assert_eq!(chosen(1), ["A", "C"]);
        assert!(chosen(2).is_empty());
        assert_eq!(v.questions[2].answer.as_deref(), Some("my <own> name"), "read from the text when not in answers");
        assert_eq!(v.questions[0].answer, None, "an option's answer is its mark");
        let html = v.to_string();
        assert!(html.contains("my &lt;own&gt; name") && html.contains("<li class=\"chosen\">"), "{html}");
    }

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

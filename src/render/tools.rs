//! Tool calls paired with their results (by `tool_use` id, through
//! `Graph::tools`; results may sit anywhere) in one collapsible block, with a
//! view per tool: Bash, Edit/MultiEdit (diffs), Write/Read (highlighted files),
//! Grep/Glob, TodoWrite (checklist), WebFetch/WebSearch, Task/Agent (link to the
//! sub-agent page), and pretty JSON for MCP and unknown tools.

use serde_json::Value;

use crate::graph::NodeId;

use super::blocks::{PageCtx, at, fold, placeholder, str_at, strip_tags, tag_text};
use super::diff::{diff_html, patch_html};
use super::highlight::{file_block, lang_of_path};
use super::html::{cut, esc, excerpt, human_size};
use super::layout::Item;
use super::urls::{href, page_file};
use crate::limits::{COMMAND_CAP, HINT_CHARS, OUTPUT_CAP, TOOL_ARG_CHARS, TOOL_NOTE_CHARS};

/// A tool result, read from its entry.
#[derive(Default)]
struct Outcome {
    node: Option<NodeId>,
    text: String,
    images: Vec<Value>,
    is_error: bool,
    /// The entry's `toolUseResult` (only when it holds this one result).
    tur: Option<Value>,
    session: String,
}

/// Renders a `tool_use` block with its result.
pub fn render_call(cx: &mut PageCtx<'_>, b: &Value, item: &Item) -> String {
    let name = str_at(Some(b), &["name"]).unwrap_or("tool");
    let id = str_at(Some(b), &["id"]).unwrap_or("");
    let empty = Value::Null;
    let input = b.get("input").unwrap_or(&empty);
    let res = find_result(cx, id, item);
    let s = |k: &str| str_at(Some(input), &[k]).unwrap_or("");
    let mut open = false;
    let (arg, body_in, show_result): (String, String, bool) = match name {
        "Bash" => (
            s("command").lines().next().unwrap_or("").to_string(),
            format!(
                "{}<pre class=\"out term\"><span class=\"prompt\">$ </span>{}</pre>",
                hint(s("description")),
                esc(cut(s("command"), COMMAND_CAP))
            ),
            true,
        ),
        "Edit" => {
            let diff = res
                .as_ref()
                .and_then(|r| r.tur.as_ref())
                .and_then(|t| t.get("structuredPatch"))
                .and_then(patch_html)
                .unwrap_or_else(|| diff_html(s("old_string"), s("new_string")));
            (s("file_path").into(), fold(diff, "Diff", s("old_string").len() + s("new_string").len()), false)
        }
        "MultiEdit" => {
            let edits = input.get("edits").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
            let mut d = String::new();
            for e in edits {
                d.push_str(&diff_html(
                    str_at(Some(e), &["old_string"]).unwrap_or(""),
                    str_at(Some(e), &["new_string"]).unwrap_or(""),
                ));
            }
            (format!("{} ({} edits)", s("file_path"), edits.len()), d, false)
        }
        "Write" => {
            let content = s("content");
            let code = file_block(cut(content, cx.cap()), lang_of_path(s("file_path")), &mut cx.budget);
            (s("file_path").into(), fold(code, "File", content.len()), false)
        }
        "Read" => (read_arg(input), String::new(), true),
        "Grep" => (grep_arg(input), String::new(), true),
        "Glob" => (glob_arg(input), String::new(), true),
        "TodoWrite" => {
            open = true;
            (todo_arg(input), todos(input.get("todos")), false)
        }
        "WebFetch" => (s("url").into(), format!("{}{}", url_line(s("url")), hint(s("prompt"))), true),
        "WebSearch" => (s("query").into(), String::new(), true),
        "Task" | "Agent" => {
            let arg = match (s("description"), s("subagent_type")) {
                (d, "") => d.to_string(),
                (d, t) => format!("{d} ({t})"),
            };
            let mut body = agent_link(cx, id);
            let prompt = s("prompt");
            if !prompt.is_empty() {
                body.push_str(&format!(
                    "<details class=\"prompt\"><summary>Prompt</summary>{}</details>",
                    cx.markdown(prompt)
                ));
            }
            (arg, body, true)
        }
        _ => (mcp_arg(name), cx.json_pre(input), true),
    };
    let mut html = String::new();
    let err = res.as_ref().is_some_and(|r| r.is_error);
    html.push_str(&format!(
        "<details class=\"tool{}\"{}><summary><span class=\"tool-name\">{}</span> <span class=\"tool-arg\">{}</span>",
        if err { " err" } else { "" },
        if open { " open" } else { "" },
        esc(name),
        esc(&excerpt(&arg, TOOL_ARG_CHARS))
    ));
    match &res {
        None => html.push_str(" <span class=\"badge\">no result</span>"),
        Some(r) if r.is_error => html.push_str(" <span class=\"badge err\">error</span>"),
        Some(r) if r.text.len() > 2000 => {
            html.push_str(&format!(" <span class=\"badge\">{}</span>", human_size(r.text.len())))
        }
        _ => {}
    }
    html.push_str("</summary><div class=\"tool-body\">");
    html.push_str(&body_in);
    if let Some(r) = res {
        let id_attr = r.node.map(|n| cx.id_attr(n)).unwrap_or_default();
        html.push_str(&format!("<div class=\"tool-result\"{id_attr}>"));
        if show_result || r.is_error {
            html.push_str(&result_body(cx, name, &r));
        } else {
            html.push_str(&format!("<p class=\"note\">{}</p>", esc(&excerpt(&r.text, TOOL_NOTE_CHARS))));
        }
        html.push_str("</div>");
    }
    html.push_str("</div></details>");
    html
}

/// A `tool_result` block shown on its own (its call is on another line or missing).
pub fn render_inline_result(cx: &mut PageCtx<'_>, b: &Value, tur: Option<&Value>) -> String {
    let id = str_at(Some(b), &["tool_use_id"]).unwrap_or("");
    let mut r = outcome_of(b);
    r.tur = tur.cloned();
    let g = cx.p.graph();
    let call = g.tools.get(id).and_then(|l| l.use_node);
    let mut s = String::from("<div class=\"tool-result standalone\">");
    match call.and_then(|n| cx.p.node_href(cx.dir, n)) {
        Some(h) => s.push_str(&format!("<p class=\"note\">Result of <a href=\"{}\">a tool call</a></p>", esc(&h))),
        None => s.push_str("<p class=\"note\">Result of a tool call not in the archive</p>"),
    }
    s.push_str(&result_body(cx, "", &r));
    s.push_str("</div>");
    s
}

fn find_result(cx: &PageCtx<'_>, id: &str, item: &Item) -> Option<Outcome> {
    let g = cx.p.graph();
    let link = g.tools.get(id)?;
    let same_line = |n: &NodeId| cx.p.loc[n.ix()].map(|l| l.line) == cx.line && cx.line.is_some();
    let node = link
        .results
        .iter()
        .find(|n| item.absorbed.contains(n))
        .or_else(|| link.results.iter().find(|n| same_line(n)))
        .or_else(|| link.results.first())
        .copied()?;
    let e = g.entry(cx.p.entries(), node);
    let json: Value = cx.p.project.json(e).ok()?;
    let blocks = at(Some(&json), &["message", "content"])?.as_array()?;
    let b = blocks.iter().find(|b| str_at(Some(b), &["tool_use_id"]) == Some(id))?;
    let mut r = outcome_of(b);
    r.node = Some(node);
    r.session = e.session_id.as_deref().unwrap_or("").to_string();
    if e.tool_results.len() == 1 {
        r.tur = json.get("toolUseResult").cloned();
    }
    Some(r)
}

fn outcome_of(b: &Value) -> Outcome {
    let mut r = Outcome { is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false), ..Outcome::default() };
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

fn result_body(cx: &mut PageCtx<'_>, tool: &str, r: &Outcome) -> String {
    let mut s = String::new();
    let tur = r.tur.as_ref();
    match tool {
        "Read" if !r.is_error => {
            if let Some(content) = str_at(tur, &["file", "content"]) {
                let path = str_at(tur, &["file", "filePath"]).unwrap_or("");
                let code = file_block(cut(content, cx.cap()), lang_of_path(path), &mut cx.budget);
                s.push_str(&fold(code, "File", content.len()));
            } else if r.images.is_empty() {
                s.push_str(&cx.output(&r.text, "Output", ""));
            }
        }
        "Task" | "Agent" | "WebFetch" | "WebSearch" if !r.is_error => {
            let md = cx.markdown(cut(&r.text, cx.cap()));
            s.push_str(&fold(md, "Result", r.text.len()));
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
            s.push_str(&persisted_or(cx, &out, &r.session, "term"));
            if at(tur, &["interrupted"]).and_then(Value::as_bool) == Some(true) {
                s.push_str("<p class=\"note\">Interrupted.</p>");
            }
        }
        _ => s.push_str(&persisted_or(cx, &r.text, &r.session, "")),
    }
    for img in &r.images {
        s.push_str(&cx.image(Some(img)));
    }
    s
}

/// The output, or for a `<persisted-output>` preview the full spilled file
/// from `<session>/tool-results/` when it is in the archive (capped).
fn persisted_or(cx: &mut PageCtx<'_>, text: &str, session: &str, class: &str) -> String {
    if let Some(inner) = tag_text(text, "persisted-output") {
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
            let note = format!(
                "<p class=\"note\">Full output from <code>tool-results/{}</code>.</p>",
                esc(file.unwrap_or(""))
            );
            return note + &cx.output(&full, "Output", class);
        }
        return format!(
            "<p class=\"note\">Output was saved to a separate file; preview:</p>{}",
            cx.output(inner.trim(), "Preview", class)
        );
    }
    cx.output(text, "Output", class)
}

fn agent_link(cx: &PageCtx<'_>, tool_id: &str) -> String {
    let Some(&a) = cx.p.agent_by_tool.get(tool_id) else {
        return String::new();
    };
    let agent = &cx.p.graph().agents[a as usize];
    let h = href(cx.dir, &cx.p.agent_dirs[a as usize], &page_file(0), None);
    format!(
        "<p class=\"agent-link\"><a href=\"{}\">Open the sub-agent transcript</a> <span class=\"hint\">{} messages</span></p>",
        esc(&h),
        agent.messages
    )
}

fn hint(s: &str) -> String {
    if s.is_empty() {
        return String::new();
    }
    format!("<p class=\"hint\">{}</p>", esc(&excerpt(s, HINT_CHARS)))
}

fn url_line(url: &str) -> String {
    if super::markdown::is_safe_url(url) {
        format!("<p>{}{}</a></p>", super::markdown::link_open(url), esc(url))
    } else {
        format!("<p><code>{}</code></p>", esc(url))
    }
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
            a.push_str(&format!(" in {}", s(k)));
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

fn todos(list: Option<&Value>) -> String {
    let Some(items) = list.and_then(Value::as_array) else {
        return placeholder("no todos");
    };
    let mut s = String::from("<ul class=\"todos\">");
    for t in items {
        let status = str_at(Some(t), &["status"]).unwrap_or("pending");
        let (class, mark) = match status {
            "completed" => ("done", "☑"),
            "in_progress" => ("doing", "◐"),
            _ => ("todo", "☐"),
        };
        s.push_str(&format!(
            "<li class=\"{class}\"><span class=\"mark\">{mark}</span> {}</li>",
            esc(str_at(Some(t), &["content"]).unwrap_or(""))
        ));
    }
    s.push_str("</ul>");
    s
}

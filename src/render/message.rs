//! One display item → one message view: prompts, assistant turns (streamed
//! entries merged, thinking collapsed, tool calls with their results), and the
//! de-emphasised rest (meta, commands, hooks, system entries) marked `aux`.
//! Reads each entry's JSON here, for the page being rendered only.

use serde_json::Value;

use crate::graph::NodeId;
use crate::parse::{Entry, Kind, UserKind};

use super::ansi;
use super::blocks::{PageCtx, at, placeholder, str_at, strip_tags, tag_text, text_of};
use super::context::LineId;
use super::html::{compact_num, esc, excerpt, time_html};
use super::layout::Item;
use super::tools;
use super::urls::{href, page_file};
use crate::limits::{AUX_LINE_CHARS, AUX_SUMMARY_CHARS, THINKING_SUMMARY_CHARS};

/// What the `_message.html` partial shows.
#[derive(Debug, Clone, Default)]
pub struct MessageView {
    /// `m-<uuid>`, or empty.
    pub id: String,
    /// CSS classes: `user`, `assistant`, `aux`, `notice`, `landmark`…
    pub class: String,
    pub role: String,
    /// Message number (counted items only).
    pub number: Option<u32>,
    /// `<time>` element (generated HTML).
    pub time: String,
    /// Model and usage (plain text).
    pub meta: String,
    /// The body (generated HTML).
    pub body: String,
    /// The `cctree fork` command that forks right after this message (plain
    /// text), when that is a legal checkpoint; else empty.
    pub fork: String,
}

fn parse(cx: &PageCtx<'_>, e: &Entry) -> Value {
    cx.p.project.json(e).unwrap_or(Value::Null)
}

/// Renders one item.
pub fn render_item(cx: &mut PageCtx<'_>, item: &Item) -> MessageView {
    let g = cx.p.graph();
    let first = item.nodes[0];
    let e = g.entry(cx.p.entries(), first);
    let mut v = MessageView {
        id: cx.take_anchor(first).unwrap_or_default(),
        number: item.counted.then_some(item.number),
        time: time_html(e.timestamp.unwrap_or(g.node(first).ts)),
        ..MessageView::default()
    };
    match e.kind {
        Kind::Assistant => assistant(cx, item, &mut v),
        Kind::User => user(cx, e, &parse(cx, e), &mut v),
        Kind::System => system(cx, e, &parse(cx, e), &mut v),
        Kind::Attachment => attachment(cx, &parse(cx, e), &mut v),
        _ => {
            let json = parse(cx, e);
            let what = match (e.kind.name(), str_at(Some(&json), &["data", "type"])) {
                (k, Some(t)) => format!("{k} · {t}"),
                (k, None) => k.to_string(),
            };
            aux(&mut v, &what);
            v.body = cx.json_details("entry", &json);
        }
    }
    // Anchors of absorbed nodes not placed by a tool block.
    for n in item.nodes.iter().chain(&item.absorbed) {
        if let Some(a) = cx.take_anchor(*n) {
            v.body.push_str(&format!("<span class=\"anchor\" id=\"{a}\"></span>"));
        }
    }
    // At a fork point: where each future goes from here (not on copies shown
    // out of place, such as the context before a branch).
    for n in item.nodes.iter().chain(&item.absorbed).filter(|_| cx.anchors) {
        if let Some(note) = fork_note(cx, *n) {
            v.body.push_str(&note);
            // A fork at a system entry (2.1.330: `turn_duration` ends every
            // TUI turn) stays visible when system entries are hidden.
            if v.class.starts_with("aux") && !v.class.contains("fork-at") {
                v.class.push_str(" fork-at");
            }
        }
    }
    // Other copies of the same uuid with different content (P1): shown too.
    for n in item.nodes.iter().chain(&item.absorbed) {
        let Some(others) = cx.p.conflicts.get(n).cloned() else { continue };
        for o in others {
            let other = &cx.p.entries()[o as usize];
            let label = format!("A different copy of this entry ({})", cx.p.place(other.loc));
            let json = parse(cx, other);
            let html = cx.json_details(&cx.p.redactor.text(|| label.clone(), &label), &json);
            v.body.push_str(&format!("<div class=\"conflict\">{html}</div>"));
        }
    }
    v
}

/// The fork-point landmark after a message: `12.1` continues below (or on its
/// page), `12.2`… each link to their branch page.
fn fork_note(cx: &PageCtx<'_>, node: NodeId) -> Option<String> {
    let g = cx.p.graph();
    let fp = g.fork_at(node)?;
    let n = cx.p.fork_numbers.get(&node).copied().unwrap_or(0);
    let mut s = format!(
        "<nav class=\"forknote\" aria-label=\"Fork point\"><span class=\"forkmark\">{}</span> Fork at #{n}:",
        include_str!("../../templates/_fork_icon.html").trim()
    );
    for (k, &child) in fp.children.iter().enumerate() {
        let words = esc(&excerpt(fp.labels.get(k).map_or("", |l| &**l), 60));
        if k == 0 {
            let target = cx.p.node_href(cx.dir, child).unwrap_or_default();
            s.push_str(&format!(" <a href=\"{target}\">{n}.1</a> continues <span class=\"txt\">{words}</span>"));
        } else {
            let cb = g.node(child).branch;
            let label = cx.p.labels.get(cb as usize).cloned().unwrap_or_default();
            let target = href(cx.dir, cx.p.line_dir(LineId::Branch(cb)), &page_file(0), None);
            s.push_str(&format!(" · <a href=\"{target}\">{}</a> <span class=\"txt\">{words}</span>", esc(&label)));
        }
    }
    s.push_str("</nav>");
    Some(s)
}

fn aux(v: &mut MessageView, role: &str) {
    v.class = "aux".into();
    v.role = role.into();
}

fn assistant(cx: &mut PageCtx<'_>, item: &Item, v: &mut MessageView) {
    let g = cx.p.graph();
    let entries = cx.p.entries();
    let es: Vec<(NodeId, &Entry)> = item.nodes.iter().map(|n| (*n, g.entry(entries, *n))).collect();
    let synthetic = es.iter().any(|(_, e)| e.is_api_error || e.model.as_deref() == Some("<synthetic>"));
    v.class = if synthetic { "notice" } else { "assistant" }.into();
    v.role = if synthetic { "Notice" } else { "Claude" }.into();
    v.meta = turn_meta(&es);
    let mut body = String::new();
    for (i, (node, e)) in es.iter().enumerate() {
        if i > 0 {
            if let Some(a) = cx.take_anchor(*node) {
                body.push_str(&format!("<span class=\"anchor\" id=\"{a}\"></span>"));
            }
        }
        let json = parse(cx, e);
        let blocks = match at(Some(&json), &["message", "content"]) {
            Some(Value::Array(b)) => b.as_slice(),
            Some(other @ Value::String(_)) => std::slice::from_ref(other),
            _ => &[],
        };
        for b in blocks {
            body.push_str(&assistant_block(cx, b, item, synthetic));
        }
    }
    v.body = body;
}

fn assistant_block(cx: &mut PageCtx<'_>, b: &Value, item: &Item, synthetic: bool) -> String {
    if let Value::String(s) = b {
        return cx.markdown(s);
    }
    match str_at(Some(b), &["type"]).unwrap_or("") {
        "text" if synthetic => {
            format!("<p class=\"notice-text\">{}</p>", esc(str_at(Some(b), &["text"]).unwrap_or("")))
        }
        "text" => cx.markdown(str_at(Some(b), &["text"]).unwrap_or("")),
        "thinking" => {
            let t = str_at(Some(b), &["thinking"]).unwrap_or("");
            if t.trim().is_empty() {
                "<p class=\"note\">Thinking (not recorded)</p>".into()
            } else {
                format!(
                    "<details class=\"thinking\"><summary>Thinking <span class=\"hint\">{}</span></summary>{}</details>",
                    esc(&excerpt(t, THINKING_SUMMARY_CHARS)),
                    cx.markdown(t)
                )
            }
        }
        "redacted_thinking" => "<p class=\"note\">Thinking (redacted)</p>".into(),
        "tool_use" => tools::render_call(cx, b, item),
        "tool_result" => tools::render_inline_result(cx, b, None),
        "image" => cx.image(b.get("source")),
        other => cx.json_details(&format!("{other} block"), b),
    }
}

/// `model · 12.3k in (10k cached) · 345 out`, usage from the block with the
/// largest `output_tokens` (streamed blocks repeat or under-report it).
fn turn_meta(es: &[(NodeId, &Entry)]) -> String {
    let model = es.iter().find_map(|(_, e)| e.model.as_deref()).filter(|m| *m != "<synthetic>").unwrap_or("");
    let usage = es.iter().filter_map(|(_, e)| e.usage).max_by_key(|u| u.output);
    let mut parts = Vec::new();
    if !model.is_empty() {
        parts.push(model.trim_start_matches("claude-").to_string());
    }
    if let Some(u) = usage {
        let input = u.input + u.cache_creation + u.cache_read;
        if input > 0 {
            if u.cache_read > 0 {
                parts.push(format!("{} in ({} cached)", compact_num(input), compact_num(u.cache_read)));
            } else {
                parts.push(format!("{} in", compact_num(input)));
            }
        }
        if u.output > 0 {
            parts.push(format!("{} out", compact_num(u.output)));
        }
    }
    parts.join(" · ")
}

fn user(cx: &mut PageCtx<'_>, e: &Entry, json: &Value, v: &mut MessageView) {
    let content = at(Some(json), &["message", "content"]);
    let text = text_of(content);
    match e.user_kind {
        UserKind::Prompt | UserKind::None => {
            v.class = "user".into();
            v.role = "You".into();
            v.body = user_content(cx, content);
        }
        UserKind::Command => {
            aux(v, "command");
            let name = tag_text(&text, "command-name").unwrap_or("").trim();
            let args = tag_text(&text, "command-args").unwrap_or("").trim();
            v.body = format!(
                "<code class=\"cmd\">{}{}{}</code>",
                esc(name),
                if args.is_empty() { "" } else { " " },
                esc(args)
            );
        }
        UserKind::CommandOutput => {
            aux(v, "command output");
            let t = strip_tags(&text, &["local-command-stdout", "local-command-stderr"]);
            v.body = cx.output(&t, "Output", "");
        }
        UserKind::Bash => {
            v.class = "user shell".into();
            v.role = "You · shell".into();
            let cmd = tag_text(&text, "bash-input").unwrap_or(&text);
            v.body = format!("<pre class=\"out term\"><span class=\"prompt\">$ </span>{}</pre>", esc(cmd));
        }
        UserKind::BashOutput => {
            v.class = "shell-out".into();
            v.role = "shell output".into();
            let out = tag_text(&text, "bash-stdout").unwrap_or("");
            let err = tag_text(&text, "bash-stderr").unwrap_or("");
            v.body = cx.output(&format!("{out}{err}"), "Output", "term");
        }
        UserKind::Interrupt => {
            v.class = "notice".into();
            v.role = "Interrupted".into();
            v.body = format!("<p class=\"notice-text\">{}</p>", esc(text.trim()));
        }
        UserKind::CompactSummary => {
            v.class = "landmark".into();
            v.role = "Compaction summary".into();
            v.body = format!(
                "<details class=\"summary\"><summary>Summary of the conversation so far</summary>{}</details>",
                cx.markdown(&text)
            );
        }
        UserKind::ToolResult => {
            v.class = "result".into();
            v.role = "Tool result".into();
            let blocks = content.and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
            let tur = json.get("toolUseResult");
            v.body = blocks.iter().map(|b| tools::render_inline_result(cx, b, tur)).collect();
        }
        UserKind::Meta | UserKind::Notification | UserKind::OtherMarker => {
            let what = match e.user_kind {
                UserKind::Meta => "meta",
                UserKind::Notification => "notification",
                _ => "injected context",
            };
            aux(v, what);
            v.body = format!(
                "<details class=\"auxbody\"><summary>{}</summary>{}</details>",
                esc(&excerpt(&text, AUX_SUMMARY_CHARS)),
                cx.output(&text, "Text", "wrap")
            );
        }
    }
}

/// A user message's content: a string, or text/image/tool_result blocks.
fn user_content(cx: &mut PageCtx<'_>, content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => cx.markdown(s),
        Some(Value::Array(blocks)) => {
            let mut out = String::new();
            for b in blocks {
                out.push_str(&match str_at(Some(b), &["type"]).unwrap_or("") {
                    "text" => cx.markdown(str_at(Some(b), &["text"]).unwrap_or("")),
                    "image" => cx.image(b.get("source")),
                    "tool_result" => tools::render_inline_result(cx, b, None),
                    "document" => {
                        placeholder(&format!("document: {}", str_at(Some(b), &["title"]).unwrap_or("attached")))
                    }
                    other => cx.json_details(&format!("{other} block"), b),
                });
            }
            out
        }
        Some(other) => cx.json_details("content", other),
        None => placeholder("no content"),
    }
}

fn system(cx: &mut PageCtx<'_>, e: &Entry, json: &Value, v: &mut MessageView) {
    let sub = e.subtype.as_deref().unwrap_or("");
    let content = str_at(Some(json), &["content"]).unwrap_or("");
    match sub {
        "compact_boundary" => {
            v.class = "landmark".into();
            v.role = "Conversation compacted".into();
            let trigger = str_at(Some(json), &["compactMetadata", "trigger"]).unwrap_or("");
            let pre = at(Some(json), &["compactMetadata", "preTokens"]).and_then(Value::as_u64);
            let mut s = String::from("<p class=\"landmark-text\">");
            if !trigger.is_empty() {
                s.push_str(&format!("{} compaction", esc(trigger)));
            }
            if let Some(p) = pre {
                s.push_str(&format!(" · {} tokens before", compact_num(p)));
            }
            s.push_str("</p>");
            v.body = s;
        }
        "local_command" => {
            aux(v, "command");
            let name = tag_text(content, "command-name");
            v.body = match name {
                Some(n) => format!(
                    "<code class=\"cmd\">{} {}</code>",
                    esc(n.trim()),
                    esc(tag_text(content, "command-args").unwrap_or("").trim())
                ),
                None => {
                    cx.output(&strip_tags(content, &["local-command-stdout", "local-command-stderr"]), "Output", "")
                }
            };
        }
        "turn_duration" => {
            aux(v, "turn duration");
            let ms = json.get("durationMs").and_then(Value::as_f64).unwrap_or(0.0);
            v.body = format!("<span class=\"auxline\">{:.1} s</span>", ms / 1000.0);
        }
        _ => {
            aux(v, &format!("system · {sub}"));
            let level = str_at(Some(json), &["level"]).unwrap_or("");
            if level == "error" {
                v.class.push_str(" error");
            }
            let mut s = String::new();
            if !content.is_empty() {
                // Hooks colour their messages (`Running \e[1mPostToolUse:Edit\e[22m…`).
                let line = excerpt(content, AUX_LINE_CHARS);
                let line = if ansi::has_escapes(&line) { ansi::to_html(&line) } else { esc(&line) };
                s.push_str(&format!("<span class=\"auxline\">{line}</span>"));
            }
            s.push_str(&cx.json_details("details", json));
            v.body = s;
        }
    }
}

fn attachment(cx: &mut PageCtx<'_>, json: &Value, v: &mut MessageView) {
    let a = json.get("attachment");
    let ty = str_at(a, &["type"]).unwrap_or("attachment");
    if ty == "queued_command" {
        // Typed while Claude worked, delivered inside the running turn.
        v.class = "user".into();
        v.role = "You · sent while Claude worked".into();
        v.body = cx.markdown(str_at(a, &["prompt"]).unwrap_or(""));
        return;
    }
    aux(v, &format!("attachment · {ty}"));
    let mut s = String::new();
    if ty == "hook_success" || ty.starts_with("hook") {
        let name = str_at(a, &["hookName"]).unwrap_or("");
        let cmd = str_at(a, &["command"]).unwrap_or("");
        let code = at(a, &["exitCode"]).map(|c| c.to_string()).unwrap_or_default();
        s.push_str(&format!(
            "<span class=\"auxline\">{} <code>{}</code>{}</span>",
            esc(name),
            esc(cmd),
            if code.is_empty() { String::new() } else { format!(" → exit {}", esc(&code)) }
        ));
        let out = format!("{}{}", str_at(a, &["stdout"]).unwrap_or(""), str_at(a, &["stderr"]).unwrap_or(""));
        if !out.trim().is_empty() {
            s.push_str(&cx.output(&out, "Output", ""));
        }
    }
    s.push_str(&cx.json_details("details", a.unwrap_or(json)));
    v.body = s;
}

/// A message typed while Claude worked that never became a prompt (a
/// `queue-operation`; see `Graph::queued`), shown where it was typed.
pub fn queued_view(cx: &mut PageCtx<'_>, e: &Entry) -> MessageView {
    let json = parse(cx, e);
    let text = str_at(Some(&json), &["content"]).unwrap_or("");
    MessageView {
        class: "user".into(),
        role: "You · queued while Claude worked (not sent as a prompt)".into(),
        time: e.timestamp.map(time_html).unwrap_or_default(),
        body: cx.markdown(text),
        ..MessageView::default()
    }
}

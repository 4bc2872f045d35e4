//! One display item → one message view: prompts, assistant turns (streamed
//! entries merged, thinking collapsed, tool calls with their results), and the
//! de-emphasised rest (meta, commands, hooks, system entries) marked `aux`.
//! Reads each entry's JSON here, for the page being rendered only. The views
//! are written by `templates/_message.html` and `templates/blocks/`.

use askama::Template;
use serde_json::Value;

use crate::json::pick::Want;

use rustc_hash::FxHashSet;

use crate::graph::{AgentKind, CompactionKind, ForkKind, NodeId};
use crate::parse::{Entry, Kind, UserKind};

use super::blocks::{
    Anchor, AuxBody, AuxLine, Block, Command, Compaction, Conflict, HookLine, IdeContext, Note, NoticeText, ShellInput,
    Summary, Thinking,
};
use super::html::{Html, filters};
use super::layout::Item;
use super::page::{PageCtx, placeholder};
use super::pages::Time;
use super::payload::{PromptPart, at, prompt_parts, str_at, strip_tags, tag_text, text_of};
use super::text::{Tokens, compact_num, excerpt, prompt_words};
use super::tools;
use super::urls::{Href, fork_anchor, fragment};
use crate::limits::{AUX_LINE_CHARS, AUX_SUMMARY_CHARS, FORK_LISTED, THINKING_SUMMARY_CHARS};

/// A message of a page, as `templates/_message.html` writes it.
#[derive(Debug, Default, Template)]
#[template(path = "_message.html")]
pub struct MessageView {
    /// `m-<uuid>`, or empty.
    pub id: String,
    /// CSS classes: `user`, `assistant`, `aux`, `notice`, `landmark`…
    pub class: String,
    pub role: String,
    /// Message number (counted items only).
    pub number: Option<u32>,
    pub time: Option<Time>,
    /// Model and usage (plain text).
    pub meta: String,
    pub body: Vec<Block>,
    /// The `cctree fork` command that forks right after this message (plain
    /// text), when that is a legal checkpoint; else empty.
    pub fork: String,
}

impl MessageView {
    /// The link of the message's number: its own anchor.
    fn self_link(&self) -> Href {
        fragment(&self.id)
    }
}

/// The landmark where a track forks, right after the message of the fork
/// point (a block of its own between messages, never inside an entry the
/// reader may hide): every branch from there, with its label, first words
/// and a link — the one that goes on below on this page, or its own page.
#[derive(Debug, Template)]
#[template(path = "blocks/fork_note.html")]
pub struct ForkNote {
    /// `fork-<uuid>` ([`super::urls::fork_anchor`]).
    pub id: String,
    /// The number of the message the track forks after.
    pub number: u32,
    pub branches: Vec<ForkBranch>,
    /// All its branches, and the fork's own list when it names only some.
    pub total: usize,
    pub more: Option<Href>,
    /// A compaction going on beside the turns it summarized ("Summarize
    /// from here"), not a rewind.
    pub compaction: bool,
}

/// A branch of a fork point, as its landmark names it.
#[derive(Debug)]
pub struct ForkBranch {
    /// `12.1`, `12.2`…
    pub label: String,
    pub href: Href,
    /// The first words a person reads on it.
    pub words: String,
    /// It goes on below, on this page.
    pub here: bool,
    /// It leads to the active leaf.
    pub active: bool,
}

/// An entry's line read whole (for a view that shows all of it), or `null`
/// with a warning when it cannot be read again.
fn parse(cx: &PageCtx<'_>, e: &Entry) -> Value {
    cx.p.project.json(e).map_err(|err| cx.warn(format_args!("{err}"))).unwrap_or(Value::Null)
}

/// A compaction's landmark: its kind, what triggered it, the tokens before
/// (or saved), and the messages it kept verbatim and where (§5.7).
fn compaction(cx: &PageCtx<'_>, node: NodeId, json: &Value, mut v: MessageView) -> MessageView {
    let g = cx.p.graph();
    let kind = g.node(node).compaction.unwrap_or(CompactionKind::Full);
    v.class = format!("landmark compaction {}", kind.name());
    v.role = compaction_label(kind).into();
    let meta = if kind == CompactionKind::Micro { "microcompactMetadata" } else { "compactMetadata" };
    let trigger = str_at(Some(json), &[meta, "trigger"]).unwrap_or("").to_string();
    let tokens = |k: &str| at(Some(json), &[meta, k]).and_then(Value::as_u64).map(compact_num);
    let kept = g.splice_of(node).map(|sp| {
        let n = kept_messages(cx, &sp.kept);
        let s = if n == 1 { "" } else { "s" };
        if sp.before {
            format!("the {n} message{s} before it kept")
        } else {
            format!("{n} message{s} kept after the summary")
        }
    });
    v.body = vec![Block::Compaction(Compaction {
        trigger,
        pre_tokens: tokens("preTokens"),
        saved: if kind == CompactionKind::Micro { tokens("tokensSaved") } else { None },
        kept,
    })];
    v
}

/// How a page names a compaction of each kind (the map too).
pub fn compaction_label(kind: CompactionKind) -> &'static str {
    match kind {
        CompactionKind::Full => "Conversation compacted",
        CompactionKind::From => "Summarized from here",
        CompactionKind::UpTo => "Summarized up to here",
        CompactionKind::Micro => "Context microcompacted",
    }
}

/// Messages a person reads among `nodes`: prompts and commands, and
/// assistant turns (one per `message.id`).
fn kept_messages(cx: &PageCtx<'_>, nodes: &[NodeId]) -> usize {
    let g = cx.p.graph();
    let mut turns: FxHashSet<&str> = FxHashSet::default();
    nodes
        .iter()
        .map(|n| g.entry(cx.p.entries(), *n))
        .filter(|e| {
            e.is_message() && (e.kind != Kind::Assistant || e.message_id.as_deref().is_none_or(|m| turns.insert(m)))
        })
        .count()
}

/// What prompts, replies and tool results show of their line: its
/// `message.content`.
const CONTENT: Want = Want::Keys(&[("message", Want::Keys(&[("content", Want::All)]))]);

/// [`parse`] of what a view shows of a line ([`crate::json::pick`]): the
/// rest of it is skipped, not read into a tree.
fn parse_only(cx: &PageCtx<'_>, e: &Entry, want: &Want) -> Value {
    cx.p.project.json_only(e, want).map_err(|err| cx.warn(format_args!("{err}"))).unwrap_or(Value::Null)
}

/// Renders one item.
pub fn render_item(cx: &mut PageCtx<'_>, item: &Item) -> MessageView {
    let g = cx.p.graph();
    let first = item.nodes[0];
    let e = g.entry(cx.p.entries(), first);
    let mut v = MessageView {
        id: cx.take_anchor(first).unwrap_or_default(),
        number: item.counted.then_some(item.number),
        time: Some(Time::at(e.timestamp.unwrap_or(g.node(first).ts))),
        ..MessageView::default()
    };
    match e.kind {
        Kind::Assistant => assistant(cx, item, &mut v),
        Kind::User => {
            user(cx, e, &parse_only(cx, e, &CONTENT), &mut v);
            if v.role == "You" {
                if let Some(caller) = caller(cx, first) {
                    v.role = caller;
                    v.class.push_str(" from-claude");
                }
            }
        }
        Kind::System => system(cx, first, e, &parse(cx, e), &mut v),
        Kind::Attachment => attachment(cx, &parse(cx, e), &mut v),
        _ => {
            let json = parse(cx, e);
            let what = match (e.kind.name(), str_at(Some(&json), &["data", "type"])) {
                (k, Some(t)) => format!("{k} · {t}"),
                (k, None) => k.to_string(),
            };
            aux(&mut v, &what);
            v.body.push(cx.json_details("entry", &json));
        }
    }
    landmarks(cx, item, &mut v);
    v
}

/// What follows the body of an item: anchors of absorbed nodes not placed by
/// a tool block, the fork-point landmarks, and the other copies of its
/// entries whose content differs.
fn landmarks(cx: &mut PageCtx<'_>, item: &Item, v: &mut MessageView) {
    for n in item.nodes.iter().chain(&item.absorbed) {
        if let Some(id) = cx.take_anchor(*n) {
            v.body.push(Block::Anchor(Anchor { id }));
        }
    }
    // Other copies of the same uuid with different content (P1): shown too.
    for n in item.nodes.iter().chain(&item.absorbed) {
        let Some(others) = cx.p.conflicts.get(n).cloned() else { continue };
        for o in others {
            let other = &cx.p.entries()[o];
            let label = format!("A different copy of this entry ({})", cx.p.place(other.loc));
            let json = parse(cx, other);
            let details = cx.json_details(&cx.p.redactor.text(|| label.clone(), &label), &json);
            v.body.push(Block::Conflict(Conflict { details: Box::new(details) }));
        }
    }
}

/// The fork-point landmarks to show after `item`: one per fork point among
/// its entries (not on copies shown out of place, such as the context
/// before a branch).
pub fn fork_notes(cx: &PageCtx<'_>, item: &Item) -> Vec<ForkNote> {
    if !cx.anchors {
        return Vec::new();
    }
    item.nodes.iter().chain(&item.absorbed).filter_map(|n| fork_note(cx, *n)).collect()
}

fn fork_note(cx: &PageCtx<'_>, node: NodeId) -> Option<ForkNote> {
    let g = cx.p.graph();
    let fp = g.fork_at(node)?;
    let n = cx.p.fork_numbers.get(&node).copied().unwrap_or(0);
    // A fork of many branches names the first ones, the one that goes on
    // here and the active one; its own list names every one.
    // (`cctree export` names all: its one file has no other list.)
    let site = cx.p.links == super::urls::Links::Site;
    let mut listed = 0usize;
    let branches = fp
        .children
        .iter()
        .enumerate()
        .filter(|(k, child)| {
            let keep = !site
                || *k == 0
                || listed < FORK_LISTED
                || cx.p.on_active_track(**child)
                || cx.track.is_some_and(|l| cx.p.item_on(l, **child).is_some());
            listed += usize::from(keep);
            keep
        })
        .filter_map(|(k, &child)| {
            let words = prompt_words(fp.labels.get(k).map_or("", |l| &**l), 80);
            let here = cx.track.is_some_and(|l| cx.p.item_on(l, child).is_some());
            let active = cx.p.on_active_track(child);
            if k == 0 || here {
                let href = cx.p.message_link(cx.dir, cx.track, child, true).unwrap_or_default();
                let label =
                    if k == 0 { format!("{n}.1") } else { g.node(child).branch.map(|cb| cx.p.labels[cb].clone())? };
                return Some(ForkBranch { label, href, words, here, active });
            }
            // Every later child of a fork point starts a branch.
            let cb = g.node(child).branch?;
            let label = cx.p.labels[cb].clone();
            let href = cx.p.branch_href(cx.dir, cb);
            Some(ForkBranch { label, href, words, here, active })
        })
        .collect();
    let more = (site && super::forks::listed_apart(fp)).then(|| super::forks::href(cx.p, cx.dir, node));
    Some(ForkNote {
        compaction: fp.kind == ForkKind::Compaction,
        id: fork_anchor(g.uuid(cx.p.entries(), node)),
        number: n,
        branches,
        total: fp.children.len(),
        more,
    })
}

/// Who wrote a prompt of a sidechain: not the person, but Claude giving a
/// sub-agent its task (`Claude → Explore (find the bug)`), or the client
/// running a side agent (compaction, a side question) or a warm-up. `None`
/// on the main thread.
fn caller(cx: &PageCtx<'_>, node: NodeId) -> Option<String> {
    let g = cx.p.graph();
    let n = g.node(node);
    if !n.sidechain {
        return None;
    }
    let agent = n.agent.map(|a| &g.agents[a]);
    Some(match agent.map(|a| (a.kind, a.meta.as_ref())) {
        Some((AgentKind::Subagent, meta)) => {
            // The sidecar's type and description, else the spawning call's.
            let call = || spawn_input(cx, agent?);
            let pick = |m: Option<&str>, k: &str| {
                m.filter(|v| !v.is_empty())
                    .map(str::to_string)
                    .or_else(|| call().and_then(|i| str_at(Some(&i), &[k]).map(str::to_string)))
                    .filter(|v| !v.is_empty())
            };
            let ty =
                pick(meta.and_then(|m| m.agent_type.as_deref()), "subagent_type").unwrap_or_else(|| "sub-agent".into());
            match pick(meta.and_then(|m| m.description.as_deref()), "description") {
                Some(d) => format!("Claude → {ty} ({})", excerpt(&d, 60)),
                None => format!("Claude → {ty}"),
            }
        }
        Some((AgentKind::SideAgent, _)) => "Claude Code → side agent".into(),
        _ => "Claude Code (sidechain)".into(),
    })
}

/// The input of the Task/Agent call that spawned `agent`, when it is in the archive.
fn spawn_input(cx: &PageCtx<'_>, agent: &crate::graph::Agent) -> Option<Value> {
    let spawn = agent.spawn.as_ref()?;
    let (id, node) = (spawn.tool_use_id.as_deref()?, spawn.use_node?);
    let json = cx.p.project.json_only(cx.p.graph().entry(cx.p.entries(), node), &CONTENT).ok()?;
    let blocks = at(Some(&json), &["message", "content"])?.as_array()?;
    blocks.iter().find(|b| str_at(Some(b), &["id"]) == Some(id))?.get("input").cloned()
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
    for (i, (node, e)) in es.iter().enumerate() {
        if i > 0 {
            if let Some(id) = cx.take_anchor(*node) {
                v.body.push(Block::Anchor(Anchor { id }));
            }
        }
        let json = parse_only(cx, e, &CONTENT);
        let blocks = match at(Some(&json), &["message", "content"]) {
            Some(Value::Array(b)) => b.as_slice(),
            Some(other @ Value::String(_)) => std::slice::from_ref(other),
            _ => &[],
        };
        for b in blocks {
            v.body.push(assistant_block(cx, b, item, synthetic));
        }
    }
}

fn assistant_block(cx: &mut PageCtx<'_>, b: &Value, item: &Item, synthetic: bool) -> Block {
    if let Value::String(s) = b {
        return Block::Markdown(cx.markdown(s));
    }
    match str_at(Some(b), &["type"]).unwrap_or("") {
        "text" if synthetic => Block::NoticeText(NoticeText { text: str_at(Some(b), &["text"]).unwrap_or("").into() }),
        "text" => Block::Markdown(cx.markdown(str_at(Some(b), &["text"]).unwrap_or(""))),
        "thinking" => {
            let t = str_at(Some(b), &["thinking"]).unwrap_or("");
            if t.trim().is_empty() {
                note("Thinking (not recorded)")
            } else {
                Block::Thinking(Thinking { hint: excerpt(t, THINKING_SUMMARY_CHARS), body: cx.folded_markdown(t) })
            }
        }
        "redacted_thinking" => note("Thinking (redacted)"),
        "tool_use" => Block::Tool(Box::new(tools::call(cx, b, item))),
        "tool_result" => Block::Result(tools::standalone_result(cx, b)),
        "image" => cx.image(b.get("source")),
        other => cx.json_details(&format!("{other} block"), b),
    }
}

/// A quiet line of text.
pub fn note(text: &str) -> Block {
    Block::Note(Note { text: text.to_string() })
}

/// `model · 12 in · 345 out · 12.3k cache read · 1.0k cache write` (the
/// parts that are not zero), usage from the block with the largest
/// `output_tokens` (streamed blocks repeat or under-report it).
fn turn_meta(es: &[(NodeId, &Entry)]) -> String {
    let model = es.iter().find_map(|(_, e)| e.model.as_deref()).filter(|m| *m != "<synthetic>").unwrap_or("");
    let usage = es.iter().filter_map(|(_, e)| e.usage).max_by_key(|u| u.output);
    let mut parts = Vec::new();
    if !model.is_empty() {
        parts.push(model.trim_start_matches("claude-").to_string());
    }
    if let Some(u) = usage {
        parts.extend(Tokens::of(u).brief());
    }
    parts.join(" · ")
}

fn user(cx: &mut PageCtx<'_>, e: &Entry, json: &Value, v: &mut MessageView) {
    let content = at(Some(json), &["message", "content"]);
    let text = text_of(content);
    let (class, role, body): (&str, &str, Vec<Block>) = match e.user_kind {
        UserKind::Prompt | UserKind::None => ("user", "You", user_content(cx, content)),
        // Slash commands a person typed, and what they printed: shown
        // like prompts, whatever the reader hides.
        UserKind::Command => ("user command", "You · command", vec![command(&text)]),
        UserKind::CommandOutput => ("command-out", "command output", vec![command_output(cx, &text)]),
        UserKind::Bash => {
            let cmd = tag_text(&text, "bash-input").unwrap_or(&text);
            ("user shell", "You · shell", vec![Block::ShellInput(ShellInput { command: cmd.to_string() })])
        }
        UserKind::BashOutput => {
            let out = tag_text(&text, "bash-stdout").unwrap_or("");
            let err = tag_text(&text, "bash-stderr").unwrap_or("");
            ("shell-out", "shell output", vec![cx.output(&format!("{out}{err}"), "Output", "term")])
        }
        UserKind::Interrupt => {
            ("notice", "Interrupted", vec![Block::NoticeText(NoticeText { text: text.trim().to_string() })])
        }
        UserKind::CompactSummary => {
            ("landmark", "Compaction summary", vec![Block::Summary(Summary { body: cx.folded_markdown(&text) })])
        }
        UserKind::ToolResult => {
            let blocks = content.and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
            let body = blocks.iter().map(|b| Block::Result(tools::standalone_result(cx, b))).collect();
            ("result", "Tool result", body)
        }
        UserKind::Meta | UserKind::Notification | UserKind::OtherMarker => {
            let what = match e.user_kind {
                UserKind::Meta => "meta",
                UserKind::Notification => "notification",
                _ => "injected context",
            };
            let body = Box::new(cx.output(&text, "Text", "wrap"));
            ("aux", what, vec![Block::AuxBody(AuxBody { summary: excerpt(&text, AUX_SUMMARY_CHARS), body })])
        }
    };
    v.class = class.into();
    v.role = role.into();
    v.body = body;
}

/// A slash command from its `<command-name>` and `<command-args>` tags.
fn command(text: &str) -> Block {
    let name = tag_text(text, "command-name").unwrap_or("").trim();
    let args = tag_text(text, "command-args").unwrap_or("").trim();
    Block::Command(Command { name: name.to_string(), args: args.to_string() })
}

/// What a slash command printed (`<local-command-stdout>` /
/// `<local-command-stderr>`), or a quiet note when it printed nothing.
fn command_output(cx: &mut PageCtx<'_>, text: &str) -> Block {
    let t = strip_tags(text, &["local-command-stdout", "local-command-stderr"]);
    if t.trim().is_empty() { note("(no output)") } else { cx.output(&t, "Output", "") }
}

/// A prompt's text: Markdown, with the context the IDE attached shown as
/// quiet labelled quotes, not as raw tags.
fn prompt_text(cx: &mut PageCtx<'_>, text: &str, out: &mut Vec<Block>) {
    for part in prompt_parts(text) {
        match part {
            PromptPart::Typed(t) => out.push(Block::Markdown(cx.markdown(t))),
            PromptPart::Ide { label, name, text } => {
                let label = match name {
                    Some(n) => format!("{label} {n}"),
                    None => label.to_string(),
                };
                out.push(Block::IdeContext(IdeContext { label, text: text.to_string() }));
            }
        }
    }
}

/// A user message's content: a string, or text/image/tool_result blocks.
fn user_content(cx: &mut PageCtx<'_>, content: Option<&Value>) -> Vec<Block> {
    match content {
        Some(Value::String(s)) => {
            let mut out = Vec::new();
            prompt_text(cx, s, &mut out);
            out
        }
        Some(Value::Array(blocks)) => blocks
            .iter()
            .flat_map(|b| match str_at(Some(b), &["type"]).unwrap_or("") {
                "text" => {
                    let mut out = Vec::new();
                    prompt_text(cx, str_at(Some(b), &["text"]).unwrap_or(""), &mut out);
                    out
                }
                "image" => vec![cx.image(b.get("source"))],
                "tool_result" => vec![Block::Result(tools::standalone_result(cx, b))],
                "document" => {
                    vec![placeholder(format!("document: {}", str_at(Some(b), &["title"]).unwrap_or("attached")))]
                }
                other => vec![cx.json_details(&format!("{other} block"), b)],
            })
            .collect(),
        Some(other) => vec![cx.json_details("content", other)],
        None => vec![placeholder("no content")],
    }
}

fn system(cx: &mut PageCtx<'_>, node: NodeId, e: &Entry, json: &Value, v: &mut MessageView) {
    let sub = e.subtype.as_deref().unwrap_or("");
    let content = str_at(Some(json), &["content"]).unwrap_or("");
    match sub {
        "compact_boundary" | "microcompact_boundary" => *v = compaction(cx, node, json, std::mem::take(v)),
        "local_command" => {
            (v.class, v.role, v.body) = match tag_text(content, "command-name") {
                Some(_) => ("user command".into(), "You · command".into(), vec![command(content)]),
                None => ("command-out".into(), "command output".into(), vec![command_output(cx, content)]),
            };
        }
        "turn_duration" => {
            aux(v, "turn duration");
            let ms = json.get("durationMs").and_then(Value::as_f64).unwrap_or(0.0);
            v.body = vec![Block::AuxLine(AuxLine { line: Html::text(&format!("{:.1} s", ms / 1000.0)) })];
        }
        _ => {
            aux(v, &format!("system · {sub}"));
            if str_at(Some(json), &["level"]) == Some("error") {
                v.class.push_str(" error");
            }
            if !content.is_empty() {
                // Hooks colour their messages (`Running \e[1mPostToolUse:Edit\e[22m…`).
                let line = super::html::terminal(&excerpt(content, AUX_LINE_CHARS));
                v.body.push(Block::AuxLine(AuxLine { line }));
            }
            v.body.push(cx.json_details("details", json));
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
        v.body = vec![Block::Markdown(cx.markdown(str_at(a, &["prompt"]).unwrap_or("")))];
        return;
    }
    aux(v, &format!("attachment · {ty}"));
    if ty.starts_with("hook") {
        let s = |k| str_at(a, &[k]).unwrap_or("").to_string();
        let exit = at(a, &["exitCode"]).map(Value::to_string);
        v.body.push(Block::Hook(HookLine { name: s("hookName"), command: s("command"), exit }));
        let out = format!("{}{}", s("stdout"), s("stderr"));
        if !out.trim().is_empty() {
            v.body.push(cx.output(&out, "Output", ""));
        }
    }
    v.body.push(cx.json_details("details", a.unwrap_or(json)));
}

/// A message typed while Claude worked that never became a prompt (a
/// `queue-operation`; see `Graph::queued`), shown where it was typed.
pub fn queued_view(cx: &mut PageCtx<'_>, e: &Entry) -> MessageView {
    let json = parse(cx, e);
    let text = str_at(Some(&json), &["content"]).unwrap_or("");
    MessageView {
        class: "user".into(),
        role: "You · queued while Claude worked (not sent as a prompt)".into(),
        time: e.timestamp.map(Time::at),
        body: vec![Block::Markdown(cx.markdown(text))],
        ..MessageView::default()
    }
}

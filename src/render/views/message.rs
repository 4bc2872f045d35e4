//! One display item → one message view: prompts, assistant turns (streamed
//! entries merged, thinking collapsed, tool calls with their results), and the
//! de-emphasised rest (meta, commands, hooks, system entries) marked `aux`.
//! Reads each entry's JSON here, for the page being rendered only. The views
//! are written by `templates/_message.html` and `templates/blocks/`.

use askama::Template;

use crate::graph::CompactionKind;
use crate::model::{self, Body, Content, Injected, ToolInput};
use crate::model::{Entry, EntryId, Kind};

use crate::limits::{AUX_LINE_CHARS, AUX_SUMMARY_CHARS, CALLER_CHARS, THINKING_SUMMARY_CHARS};
use crate::model::Tokens;
use crate::render::html::{Html, filters};
use crate::render::plain::{TokensText, compact_num, excerpt};
use crate::render::site::urls::{Href, fragment};
use crate::render::views::blocks::{
    Anchor, AuxBody, AuxLine, Block, Command, Compaction, Conflict, HookLine, IdeContext, NoticeText, ShellInput,
    Summary, Thinking,
};
use crate::render::views::inputs::{Caller, ItemInputs};
use crate::render::views::page_state::{PageCtx, note, placeholder};
use crate::render::views::time::Time;
use crate::render::views::tools;

/// A message of a page, as `templates/_message.html` writes it.
#[derive(Debug, Default, Template)]
#[template(path = "_message.html")]
pub(crate) struct MessageView {
    /// `m-<uuid>`, or empty.
    pub(crate) id: String,
    /// CSS classes: `user`, `assistant`, `aux`, `notice`, `landmark`…
    pub(crate) class: String,
    pub(crate) role: String,
    /// Message number (counted items only).
    pub(crate) number: Option<u32>,
    pub(crate) time: Option<Time>,
    /// Model and usage (plain text).
    pub(crate) meta: String,
    pub(crate) body: Vec<Block>,
    /// The `cctree fork` command that forks right after this message (plain
    /// text), when that is a legal checkpoint; else empty.
    pub(crate) fork: String,
    /// The client's command that resumes the fork (`claude -r`).
    pub(crate) resume: &'static str,
    /// The search index takes it from the conversation page, which shows it
    /// too ([`ItemInputs::indexed_elsewhere`]).
    pub(crate) indexed_elsewhere: bool,
    /// Where a search result says it is read ([`ItemInputs::place`]).
    pub(crate) place: Option<String>,
}

impl MessageView {
    /// The link of the message's number: its own anchor.
    fn self_link(&self) -> Href {
        fragment(&self.id)
    }
}

/// A compaction's landmark: its kind (the graph's: a partial summary's
/// direction is on the summary after the boundary), what triggered it, the
/// tokens before (or saved), and the messages it kept verbatim and where
/// (§5.7).
fn compaction(it: &ItemInputs, c: &model::Compaction<'_>) -> (String, String, Vec<Block>) {
    let at = it.compaction.unwrap_or_default();
    let kind = at.kind.unwrap_or(if c.micro { CompactionKind::Micro } else { CompactionKind::Full });
    let kept = at.kept.map(|(n, before)| {
        let s = if n == 1 { "" } else { "s" };
        if before {
            format!("the {n} message{s} before it kept")
        } else {
            format!("{n} message{s} kept after the summary")
        }
    });
    let block = Compaction {
        trigger: c.trigger.to_string(),
        pre_tokens: c.pre_tokens.map(compact_num),
        saved: c.saved.filter(|_| kind == CompactionKind::Micro).map(compact_num),
        kept,
    };
    (format!("landmark compaction {}", kind.name()), compaction_label(kind).into(), vec![Block::Compaction(block)])
}

/// How a page names a compaction of each kind.
fn compaction_label(kind: CompactionKind) -> &'static str {
    match kind {
        CompactionKind::Full => "Conversation compacted",
        CompactionKind::From => "Summarized from here",
        CompactionKind::UpTo => "Summarized up to here",
        CompactionKind::Micro => "Context microcompacted",
    }
}

/// Renders one message from its inputs and what its entries say.
pub(crate) fn render_item(cx: &mut PageCtx<'_>, it: &ItemInputs) -> MessageView {
    let first = it.nodes[0];
    let e = &cx.p.entries()[first.read.entry];
    let mut v = MessageView {
        id: cx.take_anchor(&first).unwrap_or_default(),
        number: it.number,
        time: Some(Time::at(it.time)),
        fork: it.fork_command.clone().unwrap_or_default(),
        resume: cx.p.project.source.client.resume_command(),
        indexed_elsewhere: it.indexed_elsewhere,
        place: it.place.clone(),
        ..MessageView::default()
    };
    if e.kind == Kind::Assistant {
        assistant(cx, it, &mut v);
    } else {
        let node = cx.node(first.read.entry);
        content(cx, e, &node.content, it, &mut v);
        // A prompt of a sidechain: who gave it.
        if v.role == "You" {
            if let Some(caller) = caller(cx, it) {
                v.role = caller;
                v.class.push_str(" from-claude");
            }
        }
    }
    landmarks(cx, it, &mut v);
    v
}

/// What follows the body of an item: anchors of absorbed nodes not placed by
/// a tool block, and the other copies of its entries whose content differs.
fn landmarks(cx: &mut PageCtx<'_>, it: &ItemInputs, v: &mut MessageView) {
    for s in it.nodes.iter().chain(&it.absorbed) {
        if let Some(id) = cx.take_anchor(s) {
            v.body.push(Block::Anchor(Anchor { id }));
        }
    }
    // Other copies of the same uuid with different content (P1): shown too.
    for c in &it.copies {
        let raw = cx.record(c.entry.entry);
        let details = cx.json_details(&cx.p.redactor.text(|| c.label.clone(), &c.label), &raw);
        v.body.push(Block::Conflict(Conflict { details: Box::new(details) }));
    }
}

/// Who wrote a prompt of a sidechain: not the person, but the conversation's
/// agent giving a sub-agent its task (`Claude → Explore (find the bug)`,
/// `Gemini → generalist`), or the client running a side agent (compaction,
/// a side question) or a warm-up. `None` on the main thread.
fn caller(cx: &mut PageCtx<'_>, it: &ItemInputs) -> Option<String> {
    let (agent, product) = (cx.p.agent_label(), cx.p.product());
    Some(match it.caller.as_ref()? {
        Caller::Subagent { meta, spawn } => {
            // The sidecar's type and description, else the spawning call's.
            let call = spawn.as_ref().and_then(|(id, at)| spawn_input(cx, id, at.read.entry));
            let pick = |m: Option<&String>, from_call: Option<&String>| {
                m.filter(|v| !v.is_empty()).or(from_call).filter(|v| !v.is_empty()).cloned()
            };
            let (meta_ty, meta_desc) = meta.as_ref().map_or((None, None), |(t, d)| (t.as_ref(), d.as_ref()));
            let (call_ty, call_desc) = call.unzip();
            let ty = pick(meta_ty, call_ty.as_ref()).unwrap_or_else(|| "sub-agent".into());
            match pick(meta_desc, call_desc.as_ref()) {
                Some(d) => format!("{agent} → {ty} ({})", excerpt(&d, CALLER_CHARS)),
                None => format!("{agent} → {ty}"),
            }
        }
        Caller::SideAgent => format!("{product} → side agent"),
        Caller::Client => format!("{product} (sidechain)"),
    })
}

/// The type and description the call `id` (in entry `entry`) that spawned
/// a sub-agent gave it.
fn spawn_input(cx: &mut PageCtx<'_>, id: &str, entry: EntryId) -> Option<(String, String)> {
    let n = cx.node(entry);
    match &n.content.tool_calls().find(|c| c.id == id)?.input {
        ToolInput::Agent { subagent_type, description, .. } => {
            Some((subagent_type.to_string(), description.to_string()))
        }
        _ => None,
    }
}

fn assistant(cx: &mut PageCtx<'_>, it: &ItemInputs, v: &mut MessageView) {
    let entries = cx.p.entries();
    let es: Vec<&Entry> = it.nodes.iter().map(|s| &entries[s.read.entry]).collect();
    let synthetic = es.iter().any(|e| e.api_error || e.model.as_deref() == Some("<synthetic>"));
    v.class = if synthetic { "notice" } else { "assistant" }.into();
    v.role = if synthetic { "Notice" } else { cx.p.agent_label() }.into();
    v.meta = turn_meta(&cx.p.prices, &es);
    for (i, s) in it.nodes.iter().enumerate() {
        if i > 0 {
            if let Some(id) = cx.take_anchor(s) {
                v.body.push(Block::Anchor(Anchor { id }));
            }
        }
        let n = cx.node(s.read.entry);
        match &n.content {
            Content::Reply(blocks) => {
                for b in blocks {
                    v.body.push(block(cx, b, it, synthetic));
                }
            }
            // A summary the model wrote as a reply (OpenCode's, Crush's).
            Content::CompactSummary(t) => v.body.push(Block::Summary(Summary { body: cx.folded_markdown(t) })),
            _ => {}
        }
    }
}

/// A block of a message (a reply's, or a prompt's).
fn block(cx: &mut PageCtx<'_>, b: &model::Block<'_>, it: &ItemInputs, synthetic: bool) -> Block {
    match b {
        model::Block::Text(t) if synthetic => Block::NoticeText(NoticeText { text: t.to_string() }),
        model::Block::Text(t) => Block::Markdown(cx.markdown(t)),
        model::Block::Context { label, name, text } => {
            let label = match name {
                Some(n) => format!("{label} {n}"),
                None => (*label).to_string(),
            };
            Block::IdeContext(IdeContext { label, text: text.to_string() })
        }
        model::Block::Thinking(t) => {
            if t.trim().is_empty() {
                note("Thinking (not recorded)")
            } else {
                Block::Thinking(Thinking {
                    hint: crate::render::plain::plain_excerpt(t, THINKING_SUMMARY_CHARS),
                    body: cx.folded_markdown(t),
                })
            }
        }
        model::Block::RedactedThinking => note("Thinking (redacted)"),
        model::Block::ToolUse(c) => Block::Tool(Box::new(tools::call(cx, c, it))),
        model::Block::ToolResult(r) => Block::Result(tools::standalone_result(cx, r, it)),
        model::Block::Image(i) => cx.image(i),
        model::Block::Document { title } => {
            placeholder(format!("document: {}", title.as_deref().unwrap_or("attached")))
        }
        model::Block::Unknown { kind, raw } => cx.json_details(&format!("{kind} block"), raw),
    }
}

/// `model · 12 in · 345 out · 12.3k cache read · 1.0k cache write · $0.042`
/// (the parts that are not zero, and what they cost): each API call of the
/// reply once, with the usage of its line with the largest `output_tokens`
/// (streamed lines of one `message.id` repeat or under-report it), as every
/// total counts it ([`crate::render::site::spend`]).
fn turn_meta(prices: &crate::cost::Prices, es: &[&Entry]) -> String {
    use crate::render::site::spend;
    let model = es.iter().find_map(|e| e.model.as_deref()).filter(|m| *m != "<synthetic>").unwrap_or("");
    let mut calls: Vec<(crate::model::Usage, &Entry)> = Vec::new();
    let mut by_id: rustc_hash::FxHashMap<&str, usize> = Default::default();
    for e in es {
        let Some(u) = e.usage else { continue };
        match e.message_id.as_deref() {
            Some(id) => match by_id.get(id) {
                Some(&i) if u.output > calls[i].0.output => calls[i] = (u, e),
                Some(_) => {}
                None => {
                    by_id.insert(id, calls.len());
                    calls.push((u, e));
                }
            },
            None => calls.push((u, e)),
        }
    }
    let mut parts = Vec::new();
    if !model.is_empty() {
        parts.push(model.trim_start_matches("claude-").to_string());
    }
    let mut tokens = Tokens::default();
    let mut total = crate::cost::Total::default();
    for (u, e) in &calls {
        tokens.add(Tokens::of(*u));
        total.add(spend::call_cost(prices, *u, e));
    }
    parts.extend(tokens.brief());
    match calls.as_slice() {
        _ if tokens.is_zero() => {}
        [(u, e)] => parts.push(spend::reply_cost_text(spend::call_cost(prices, *u, e))),
        _ => parts.push(spend::cost_text(&total, false)),
    }
    parts.join(" · ")
}

/// What an entry that is not a reply shows.
fn content(cx: &mut PageCtx<'_>, e: &Entry, c: &Content<'_>, it: &ItemInputs, v: &mut MessageView) {
    let (class, role, body): (&str, String, Vec<Block>) = match c {
        Content::Prompt(body) => ("user", "You".into(), prompt(cx, body, it)),
        // Slash commands a person typed, and what they printed: shown
        // like prompts, whatever the reader hides.
        Content::Command { name, args } => (
            "user command",
            "You · command".into(),
            vec![Block::Command(Command { name: name.to_string(), args: args.to_string() })],
        ),
        Content::CommandOutput(t) => {
            let out = if t.trim().is_empty() { note("(no output)") } else { cx.output(t, "Output", "") };
            ("command-out", "command output".into(), vec![out])
        }
        Content::Shell(cmd) => {
            ("user shell", "You · shell".into(), vec![Block::ShellInput(ShellInput { command: cmd.to_string() })])
        }
        Content::ShellOutput(out) => ("shell-out", "shell output".into(), vec![cx.output(out, "Output", "term")]),
        Content::Interrupt(t) => {
            ("notice", "Interrupted".into(), vec![Block::NoticeText(NoticeText { text: t.to_string() })])
        }
        Content::CompactSummary(t) => {
            ("landmark", "Compaction summary".into(), vec![Block::Summary(Summary { body: cx.folded_markdown(t) })])
        }
        Content::ToolResults(blocks) => {
            // Each block as a result; one that is not (text sent along) as an empty one.
            let none = model::ToolOutput::default();
            let results = blocks.iter().map(|b| match b {
                model::Block::ToolResult(r) => r,
                _ => &none,
            });
            let body = results.map(|r| Block::Result(tools::standalone_result(cx, r, it))).collect();
            ("result", "Tool result".into(), body)
        }
        Content::Injected { kind, text } => {
            let what = match kind {
                Injected::Meta => "meta",
                Injected::Notification => "notification",
                Injected::Context => "injected context",
            };
            let body = Box::new(cx.output(text, "Text", "wrap"));
            ("aux", what.into(), vec![Block::AuxBody(AuxBody { summary: excerpt(text, AUX_SUMMARY_CHARS), body })])
        }
        Content::Compaction(c) => {
            (v.class, v.role, v.body) = compaction(it, c);
            return;
        }
        Content::TurnDuration { ms } => {
            let line = Html::text(&format!("{:.1} s", ms / 1000.0));
            ("aux", "turn duration".into(), vec![Block::AuxLine(AuxLine { line })])
        }
        Content::Queued(text) => {
            // Typed while Claude worked, delivered inside the running turn.
            ("user", "You · sent while Claude worked".into(), vec![Block::Markdown(cx.markdown(text))])
        }
        Content::Note(_) | Content::Attachment(_) | Content::Other { .. } => side_entry(cx, e, c),
        Content::Reply(blocks) => {
            let body = blocks.iter().map(|b| block(cx, b, it, false)).collect();
            ("assistant", cx.p.agent_label().into(), body)
        }
    };
    v.class = class.into();
    v.role = role;
    v.body = body;
}

/// What a side entry shows (a system note, an attachment, an entry of an
/// unknown kind): a line or two, and all of it as JSON.
fn side_entry(cx: &mut PageCtx<'_>, e: &Entry, c: &Content<'_>) -> (&'static str, String, Vec<Block>) {
    match c {
        Content::Note(n) => {
            let mut body = Vec::new();
            if !n.text.is_empty() {
                // Hooks colour their messages (`Running \e[1mPostToolUse:Edit\e[22m…`).
                let line = crate::render::html::terminal(&excerpt(&n.text, AUX_LINE_CHARS));
                body.push(Block::AuxLine(AuxLine { line }));
            }
            body.push(cx.json_details("details", &n.raw));
            (if n.is_error { "aux error" } else { "aux" }, format!("system · {}", n.kind), body)
        }
        Content::Attachment(a) => {
            let mut body = Vec::new();
            if let Some(h) = &a.hook {
                let hook = HookLine { name: h.name.to_string(), command: h.command.to_string(), exit: h.exit.clone() };
                body.push(Block::Hook(hook));
                if !h.output.trim().is_empty() {
                    body.push(cx.output(&h.output, "Output", ""));
                }
            }
            body.push(cx.json_details("details", &a.raw));
            ("aux", format!("attachment · {}", a.kind), body)
        }
        Content::Other { data_kind, raw } => {
            let what = match data_kind {
                Some(t) => format!("{} · {t}", e.kind.name()),
                None => e.kind.name().to_string(),
            };
            ("aux", what, vec![cx.json_details("entry", raw)])
        }
        _ => ("aux", String::new(), Vec::new()),
    }
}

/// A prompt's body: its blocks (the context the IDE attached shown as
/// quiet labelled quotes, not as raw tags).
fn prompt(cx: &mut PageCtx<'_>, body: &Body<'_>, it: &ItemInputs) -> Vec<Block> {
    match body {
        Body::Blocks(blocks) => blocks.iter().map(|b| block(cx, b, it, false)).collect(),
        Body::Odd(raw) => vec![cx.json_details("content", raw)],
        Body::Missing => vec![placeholder("no content")],
    }
}

/// A message typed while Claude worked that never became a prompt (a
/// `queue-operation`; see `Graph::queued`), shown where it was typed.
pub(crate) fn queued_view(cx: &mut PageCtx<'_>, id: EntryId) -> MessageView {
    let e = &cx.p.entries()[id];
    let time = e.timestamp.map(Time::at);
    let n = cx.node(id);
    let text = match &n.content {
        Content::Queued(t) => t.as_ref(),
        _ => "",
    };
    MessageView {
        class: "user".into(),
        role: "You · queued while Claude worked (not sent as a prompt)".into(),
        time,
        body: vec![Block::Markdown(cx.markdown(text))],
        ..MessageView::default()
    }
}

//! One conversation as Markdown (`cctree export --format md`), for pasting
//! into an issue or a pull request: the active line (root → where the
//! conversation was last continued), then, as appendices, what of each
//! branch is not on it, the sub-agent transcripts it spawned, and each fork
//! point's branches compared (what each changed and ran, its tokens and
//! cost, the diff of the files several changed).
//!
//! Nothing from a transcript is read as Markdown or HTML where it is pasted:
//! texts are fenced code blocks (the fence longer than any run of backticks
//! in them), names and titles code spans (but the title heading the file:
//! its words with every punctuation escaped, see [`heading_text`]), so no
//! link, image, mention, raw HTML or heading of a transcript becomes active. Control characters are
//! shown as their Control Pictures, as on the site. Long tool inputs and
//! results are cut, saying so ([`MD_TOOL_INPUT`], [`MD_TOOL_RESULT`]).

use std::fmt::Write as _;

use anyhow::Result;
use rustc_hash::FxHashSet;

use crate::graph::{ConversationId, NodeId};
use crate::model::{Block, Body, Content, ToolOutput};
use crate::model::{Kind, UserKind};
use crate::project::Project;
use crate::timestamp::format_human;

use super::{Exported, active_path, tracks};
use crate::limits::{DIFF_LINES, MD_TOOL_INPUT, MD_TOOL_RESULT};
use crate::render::html::controls_shown;
use crate::render::pages::compare::{self, ComparePage};
use crate::render::plain::{cut, human_size};
use crate::render::site::context::{ProjectCtx, TrackId};
use crate::render::site::layout::{Item, layout};
use crate::render::site::{Placement, RenderOptions};
use similar::{Algorithm, DiffTag, capture_diff_slices};

/// The first line of every Markdown export (how `cctree export` knows a
/// file it may write over).
pub(crate) const MARK: &str = "<!-- exported by cctree";

/// Conversation `conv` of `project` as Markdown.
pub(crate) fn conversation_md(
    project: &Project,
    conv: ConversationId,
    at: &Placement<'_>,
    opts: &RenderOptions,
) -> Result<Exported> {
    super::export(project, conv, at, opts, |ctx, c| {
        let g = ctx.graph();
        let mut md = Md { ctx, out: String::new() };
        let root = g.uuid(ctx.entries(), c.root);
        let _ = writeln!(md.out, "{MARK}: conversation {} -->", comment(root));
        md.header(conv);
        let active_nodes = g.projection(c.active_branch);
        let on_active: FxHashSet<NodeId> = active_nodes.iter().copied().collect();
        let lay = layout(ctx.project.source.client, g, ctx.entries(), &active_nodes, 0, ctx.page_size);
        md.out.push_str("\n## The active line\n");
        md.items(lay.items.as_slice());
        let mut appendix = 0;
        for track in tracks(ctx, conv) {
            let lay = ctx.track_layout(track);
            let rest: Vec<Item> = lay.items.iter().filter(|i| !on_active.contains(&i.nodes[0])).cloned().collect();
            if rest.is_empty() {
                continue;
            }
            appendix += 1;
            md.appendix(appendix, track, &rest);
        }
        for fp in &c.fork_points {
            if let Some(page) = compare::page(ctx, fp.node) {
                appendix += 1;
                md.compare(appendix, fp.node, &page);
            }
        }
        Ok(md.out)
    })
}

struct Md<'a> {
    ctx: &'a ProjectCtx<'a>,
    out: String,
}

impl Md<'_> {
    fn header(&mut self, conv: ConversationId) {
        let ctx = self.ctx;
        let g = ctx.graph();
        let c = &g.conversations[conv];
        let _ = writeln!(self.out, "\n# {}\n", heading_text(&c.title));
        let _ = writeln!(self.out, "- project: {}", span(&ctx.name));
        let _ = writeln!(self.out, "- started: {}, last active: {}", format_human(c.first_ts), format_human(c.last_ts));
        let _ = writeln!(
            self.out,
            "- {} messages, {} branches, {} fork points",
            c.messages,
            c.branches.len(),
            c.fork_points.len()
        );
        let spend = ctx.conversation_spend(c);
        if !spend.is_zero() {
            let agents = if ctx.spawned_agents(c.branches.iter().copied()) { " (sub-agents included)" } else { "" };
            let _ = writeln!(self.out, "- tokens: {}; cost: {}{agents}", spend.tokens_text(), spend.cost_text());
        }
        let sessions: Vec<String> = c.sessions.iter().map(|s| span(&g.sessions[*s].session_id)).collect();
        let _ = writeln!(self.out, "- sessions: {}", sessions.join(" → "));
        let path: Vec<String> = active_path(ctx, conv).iter().map(|b| span(&ctx.labels[*b])).collect();
        if path.len() > 1 {
            let _ = writeln!(self.out, "- the active line runs through the branches {}", path.join(" → "));
        }
        self.out.push_str(
            "\nExported by cctree. Texts from the transcript are shown verbatim in code blocks; \
             each branch that leaves the active line is an appendix.\n",
        );
    }

    fn appendix(&mut self, n: usize, track: TrackId, items: &[Item]) {
        let ctx = self.ctx;
        let g = ctx.graph();
        let title = match track {
            TrackId::Branch(b) => {
                let br = &g.branches[b];
                let label = &ctx.labels[b];
                let from = items.first().map_or(0, |i| i.number.saturating_sub(1));
                match br.fork_point {
                    None => format!("the main branch after #{from}"),
                    Some(_) => format!("branch {} (forked after #{from}): {}", span(label), span(&br.title)),
                }
            }
            TrackId::Agent(a) => {
                let agent = &g.agents[a];
                let desc = agent.meta.as_ref().and_then(|m| m.description.as_deref()).unwrap_or("");
                format!("sub-agent {}: {}", span(&agent.agent_id), span(desc))
            }
            TrackId::Active(_) => "the active line".to_string(),
        };
        let _ = writeln!(self.out, "\n## Appendix {n}: {title}");
        self.items(items);
    }

    /// The compare page of a fork: what each branch did from the fork on,
    /// and the diff of the files several changed (their messages are on the
    /// active line and in the appendices).
    fn compare(&mut self, n: usize, fork: NodeId, page: &ComparePage) {
        let ctx = self.ctx;
        let name = ctx.fork_name(fork);
        let _ = writeln!(self.out, "\n## Appendix {n}: the branches of the fork at {} compared\n", span(&name));
        let _ = writeln!(
            self.out,
            "Message #{} was answered {} times. What each branch did from there on (totals include the sub-agents it spawned); its messages are on the active line or in its appendix.",
            page.number,
            page.columns.len() + page.more
        );
        if page.more > 0 {
            let _ = writeln!(self.out, "\nThe first {} branches are compared here.", page.columns.len());
        }
        for c in &page.columns {
            let active = if c.active { " (active)" } else { "" };
            let _ = writeln!(self.out, "\n### Branch {}{active}: {}\n", span(&c.label), span(&c.words));
            let mut facts = vec![format!("{} messages", c.messages)];
            if !c.duration.is_empty() {
                facts.push(format!("duration {}", c.duration));
            }
            if !c.tokens.is_empty() {
                facts.push(format!("tokens {}", c.tokens));
            }
            if !c.cost.is_empty() {
                facts.push(format!("cost {}", c.cost));
            }
            let _ = writeln!(self.out, "- {}", facts.join("; "));
            let list = |v: &[String]| {
                if v.is_empty() { "none".to_string() } else { v.iter().map(|f| span(f)).collect::<Vec<_>>().join(", ") }
            };
            // The paths as recorded: Markdown has no title to hold the full one.
            let files: Vec<String> = c.files.iter().map(|f| f.full.clone()).collect();
            let _ = writeln!(self.out, "- files changed ({}): {}", c.files.len(), list(&files));
            let _ = writeln!(self.out, "- commands run ({}): {}", c.commands.len(), list(&c.commands));
        }
        if page.both.is_empty() {
            return;
        }
        self.out.push_str("\n### Files more than one branch changed\n");
        for f in &page.both {
            let by: Vec<String> = f.by.iter().map(|b| span(b)).collect();
            let _ = writeln!(self.out, "\n{} changed on {}", span(&f.path.full), by.join(", "));
            let finals = f.diff.as_ref().and_then(|(a, b, _)| {
                let text =
                    |label: &str| page.columns.iter().find(|c| c.label == label)?.finals.get(&f.path.full)?.as_deref();
                Some((a, b, text(a)?, text(b)?))
            });
            match finals {
                Some((a, b, ta, tb)) => {
                    let _ = writeln!(
                        self.out,
                        "\nFrom its final version on {} to its final version on {}:",
                        span(a),
                        span(b)
                    );
                    fence(&mut self.out, "diff", &diff_text(ta, tb));
                }
                None => self.out.push_str(
                    "\nIts final versions are not known: a branch edited it without writing it whole first.\n",
                ),
            }
        }
    }

    fn items(&mut self, items: &[Item]) {
        for item in items {
            self.item(item);
        }
    }

    /// A message: its head, then its text, tool calls and results.
    fn item(&mut self, item: &Item) {
        let ctx = self.ctx;
        let g = ctx.graph();
        let first = g.entry(ctx.entries(), item.nodes[0]);
        let shown =
            item.counted || first.user_kind == UserKind::ToolResult || first.user_kind == UserKind::CompactSummary;
        if !shown {
            return;
        }
        let role = match (&first.kind, first.user_kind) {
            (Kind::Assistant, _) => ctx.agent_label(),
            (_, UserKind::Prompt) => "You",
            (_, UserKind::Command) => "Command",
            (_, UserKind::Bash) => "Shell",
            (_, UserKind::ToolResult) => "Tool result",
            (_, UserKind::CompactSummary) => "Compaction summary",
            (Kind::Attachment, _) => "You (queued)",
            _ => "Entry",
        };
        let number = if item.counted { format!("#{} · ", item.number) } else { String::new() };
        let ts = first.timestamp.unwrap_or(g.node(item.nodes[0]).ts);
        let uuid = g.uuid(ctx.entries(), item.nodes[0]);
        let _ = writeln!(self.out, "\n### {number}{role} · {}\n\n<!-- {} -->", format_human(ts), comment(uuid));
        for n in item.nodes.iter().chain(&item.absorbed) {
            let e = g.entry(ctx.entries(), *n);
            match ctx.project.node(e) {
                (_, Some(err)) => {
                    let _ = writeln!(self.out, "\n_{}_", escape_line(&err.to_string()));
                }
                (node, None) => self.content(&node.content),
            }
        }
    }

    /// What one entry of a message says.
    fn content(&mut self, c: &Content<'_>) {
        match c {
            Content::Reply(blocks) | Content::Prompt(Body::Blocks(blocks)) | Content::ToolResults(blocks) => {
                for b in blocks {
                    self.block(b);
                }
            }
            Content::Prompt(Body::Odd(_) | Body::Missing) => {}
            Content::Command { name, args } => fence(&mut self.out, "", format!("{name} {args}").trim_end()),
            Content::Shell(text)
            | Content::CompactSummary(text)
            | Content::Queued(text)
            | Content::CommandOutput(text)
            | Content::ShellOutput(text)
            | Content::Interrupt(text)
            | Content::Injected { text, .. } => fence(&mut self.out, "", text),
            Content::Compaction(_)
            | Content::TurnDuration { .. }
            | Content::Note(_)
            | Content::Attachment(_)
            | Content::Other { .. } => {}
        }
    }

    fn block(&mut self, b: &Block<'_>) {
        match b {
            Block::Text(text) => fence(&mut self.out, "", text),
            Block::Context { label, name, text } => {
                match name {
                    Some(n) => {
                        let _ = writeln!(self.out, "\n_({label})_ {}", span(n));
                    }
                    None => {
                        let _ = writeln!(self.out, "\n_({label})_");
                    }
                }
                fence(&mut self.out, "", text);
            }
            Block::Thinking(_) | Block::RedactedThinking => self.out.push_str("\n_(thinking not shown)_\n"),
            Block::Image(_) => self.out.push_str("\n_(an image; the HTML export shows it)_\n"),
            Block::ToolUse(c) => {
                let _ = writeln!(self.out, "\n**Tool call** {}", span(&c.name));
                fence(&mut self.out, "", &capped(&c.raw.brief(), MD_TOOL_INPUT));
            }
            Block::ToolResult(r) => self.result(r),
            Block::Document { title: Some(t) } => {
                let _ = writeln!(self.out, "\n_(document)_ {}", span(t));
            }
            Block::Document { title: None } => self.out.push_str("\n_(document)_\n"),
            Block::Unknown { .. } => {}
        }
    }

    fn result(&mut self, r: &ToolOutput<'_>) {
        let what = if r.is_error { "**Tool result** (error)" } else { "**Tool result**" };
        let _ = writeln!(self.out, "\n{what}");
        fence(&mut self.out, "", &capped(&r.text, MD_TOOL_RESULT));
    }
}

/// `text` cut at `cap` bytes, saying so.
fn capped(text: &str, cap: usize) -> String {
    let shown = cut(text, cap);
    if shown.len() == text.len() {
        return text.to_string();
    }
    format!("{shown}\n… (cut: {} of {} shown)", human_size(shown.len()), human_size(text.len()))
}

/// A line diff of two texts (` `, `-`, `+` before each line), or, past
/// [`DIFF_LINES`] lines, a note that they are too long to compare.
fn diff_text(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    if a.len() + b.len() > DIFF_LINES {
        return format!("(too long to compare line by line: {} lines, then {})", a.len(), b.len());
    }
    let mut out = String::with_capacity(old.len() + new.len());
    for op in capture_diff_slices(Algorithm::Myers, &a, &b) {
        let (tag, from, to) = op.as_tag_tuple();
        let lines: Vec<(char, &str)> = match tag {
            DiffTag::Equal => a[from].iter().map(|l| (' ', *l)).collect(),
            DiffTag::Delete => a[from].iter().map(|l| ('-', *l)).collect(),
            DiffTag::Insert => b[to].iter().map(|l| ('+', *l)).collect(),
            DiffTag::Replace => a[from].iter().map(|l| ('-', *l)).chain(b[to].iter().map(|l| ('+', *l))).collect(),
        };
        for (mark, line) in lines {
            out.push(mark);
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Appends `text` as a fenced code block that nothing in it can close.
fn fence(out: &mut String, info: &str, text: &str) {
    let text = controls_shown(text);
    if text.trim().is_empty() {
        return;
    }
    let ticks = "`".repeat(longest_run(&text, '`').max(2) + 1);
    let _ = write!(out, "\n{ticks}{info}\n{}\n{ticks}\n", text.trim_end_matches('\n'));
}

/// `s` as an inline code span on one line (empty: `(none)`).
fn span(s: &str) -> String {
    let one_line: String = controls_shown(s).split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.is_empty() {
        return "(none)".to_string();
    }
    let ticks = "`".repeat(longest_run(&one_line, '`') + 1);
    format!("{ticks} {one_line} {ticks}")
}

/// A title as the text of a heading, read as written and inert: on one line,
/// every ASCII punctuation backslash-escaped (no link, image, emphasis, HTML
/// or autolink), a word joiner (U+2060) after `@` and `#` so that GitHub
/// makes no mention or issue reference of it (empty: `(untitled)`).
fn heading_text(s: &str) -> String {
    let one_line: String = controls_shown(s).split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.is_empty() {
        return "(untitled)".to_string();
    }
    let mut out = String::with_capacity(one_line.len() + 8);
    for c in one_line.chars() {
        if c.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(c);
        if c == '@' || c == '#' {
            out.push('\u{2060}');
        }
    }
    out
}

/// Text for an HTML comment: no `--` and no `>`.
fn comment(s: &str) -> String {
    s.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect::<String>().replace("--", "-")
}

/// A line of our own words with a transcript's text in it, kept inert.
fn escape_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_punctuation() { format!("\\{c}") } else { c.to_string() })
        .collect::<String>()
        .replace('\n', " ")
}

fn longest_run(s: &str, c: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for ch in s.chars() {
        run = if ch == c { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_cannot_be_closed_from_inside() {
        let mut out = String::new();
        fence(&mut out, "", "a\n```\n<script>alert(1)</script>\n````x");
        assert!(out.starts_with("\n`````\n") && out.ends_with("\n`````\n"), "{out}");
        assert_eq!(span("a `b` c"), "`` a `b` c ``");
        assert_eq!(span("x\ny\u{1b}"), "` x y\u{241b} `");
        assert_eq!(span(""), "(none)");
        assert_eq!(comment("a--b>c"), "a-bc");
        assert_eq!(escape_line("<b>*x*</b>"), "\\<b\\>\\*x\\*\\<\\/b\\>");
        assert_eq!(heading_text("a: [b](c)\n@d #1"), "a\\: \\[b\\]\\(c\\) \\@\u{2060}d \\#\u{2060}1");
        assert_eq!(heading_text(" \n"), "(untitled)");
    }
}

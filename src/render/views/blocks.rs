//! The blocks of a message body, as typed views: each is a struct written by
//! its own template in `templates/blocks/`, and [`Block`] is any of them. The
//! message and tool builders ([`crate::render::views::message`], [`crate::render::views::tools`]) make
//! blocks from entries; [`crate::render::views::page_state::PageCtx`] makes the ones that spend a
//! page's allowances (Markdown, outputs, JSON, images).

use askama::Template;

use crate::render::html::{Html, filters, view_enum};
use crate::render::site::urls::Href;
use crate::render::views::tools::{StandaloneResult, ToolView};

view_enum! {
    /// One block of a message body.
    #[derive(Debug)]
    pub enum Block {
        /// Markup from a renderer (a diff, a highlighted file).
        Html(Html),
        Meta(Meta),
        Markdown(Markdown),
        Note(Note),
        NoticeText(NoticeText),
        Placeholder(Placeholder),
        Thinking(Thinking),
        Output(Output),
        Fold(Fold),
        Image(Image),
        Link(ExternalLink),
        Anchor(Anchor),
        Conflict(Conflict),
        Command(Command),
        IdeContext(IdeContext),
        ShellInput(ShellInput),
        Summary(Summary),
        AuxBody(AuxBody),
        AuxLine(AuxLine),
        Hook(HookLine),
        Compaction(Compaction),
        Session(SessionRef),
        Tool(Box<ToolView>),
        Result(StandaloneResult),
        Persisted(PersistedNote),
        ResultText(ResultText),
    }
}

/// The raw JSON of an entry or block, collapsed ([`JsonDetails`], written
/// before it was placed, to be measured): metadata, which the search index
/// leaves out.
#[derive(Debug, Template)]
#[template(source = "{{ html|html }}", ext = "html")]
pub struct Meta {
    pub html: Html,
}

/// Markdown rendered ([`crate::render::html::markdown`]), in its `div.md`.
#[derive(Debug, Template)]
#[template(path = "blocks/markdown.html")]
pub struct Markdown {
    pub html: Html,
}

/// A quiet line of text (`Thinking (redacted)`, `Interrupted.`…).
#[derive(Debug, Template)]
#[template(path = "blocks/note.html")]
pub struct Note {
    pub text: String,
}

/// The text of a notice (an API error, an interruption).
#[derive(Debug, Template)]
#[template(path = "blocks/notice_text.html")]
pub struct NoticeText {
    pub text: String,
}

/// `[what]`: something not shown, and why.
#[derive(Debug, Template)]
#[template(path = "blocks/placeholder.html")]
pub struct Placeholder {
    pub what: String,
}

/// A thinking block, collapsed under its first words.
#[derive(Debug, Template)]
#[template(path = "blocks/thinking.html")]
pub struct Thinking {
    pub hint: String,
    pub body: Markdown,
}

/// A `<pre>` of tool or command output: `body` is the text escaped, or its
/// ANSI colours as spans ([`crate::render::html::terminal`]).
#[derive(Debug, Template)]
#[template(path = "blocks/output.html")]
pub struct Output {
    /// More classes of the `pre` (`term`, `json`, `wrap`, or none).
    pub class: &'static str,
    pub body: Html,
    /// When the text was cut: the sizes shown and in all.
    pub cut: Option<(String, String)>,
}

/// A large block, collapsed under its label and size.
#[derive(Debug, Template)]
#[template(path = "blocks/fold.html")]
pub struct Fold {
    pub label: String,
    pub size: String,
    pub body: Box<Block>,
}

/// Collapsed pretty JSON (of an entry, a block, a tool input…).
#[derive(Debug, Template)]
#[template(path = "blocks/json_details.html")]
pub struct JsonDetails {
    pub summary: String,
    pub json: Block,
}

/// An image of the transcript, written to `assets/img/` (a link opens it
/// alone), or carried by the page as a `data:` URL (`inline`: no link).
#[derive(Debug, Template)]
#[template(path = "blocks/image.html")]
pub struct Image {
    pub src: Href,
    pub media: String,
    pub inline: bool,
}

/// A link to an external URL from the transcript.
#[derive(Debug, Template)]
#[template(path = "blocks/link.html")]
pub struct ExternalLink {
    pub href: Href,
    pub text: String,
}

/// The anchor of an entry shown inside a message (a streamed part, a result).
#[derive(Debug, Template)]
#[template(path = "blocks/anchor.html")]
pub struct Anchor {
    pub id: String,
}

/// Another copy of the same entry whose content differs (P1).
#[derive(Debug, Template)]
#[template(path = "blocks/conflict.html")]
pub struct Conflict {
    pub details: Box<Block>,
}

/// A slash command as typed: `/name args`.
#[derive(Debug, Template)]
#[template(path = "blocks/command.html")]
pub struct Command {
    pub name: String,
    pub args: String,
}

/// Context the IDE attached to a prompt (`<ide_selection>`,
/// `<ide_opened_file>`, diagnostics, a terminal): a quiet, labelled quote.
#[derive(Debug, Template)]
#[template(path = "blocks/ide_context.html")]
pub struct IdeContext {
    /// `opened file`, `selection`…
    pub label: String,
    pub text: String,
}

/// A shell command as typed (`! cmd`, or a Bash call's command).
#[derive(Debug, Template)]
#[template(path = "blocks/shell_input.html")]
pub struct ShellInput {
    pub command: String,
}

/// The summary a compaction wrote, collapsed.
#[derive(Debug, Template)]
#[template(path = "blocks/summary.html")]
pub struct Summary {
    pub body: Markdown,
}

/// Injected text (meta, notifications), collapsed under its first words.
#[derive(Debug, Template)]
#[template(path = "blocks/aux_body.html")]
pub struct AuxBody {
    pub summary: String,
    pub body: Box<Block>,
}

/// One line about a system entry (its duration, its message).
#[derive(Debug, Template)]
#[template(path = "blocks/aux_line.html")]
pub struct AuxLine {
    pub line: Html,
}

/// A hook that ran: its name, command and exit code.
#[derive(Debug, Template)]
#[template(path = "blocks/hook.html")]
pub struct HookLine {
    pub name: String,
    pub command: String,
    pub exit: Option<String>,
}

/// A compaction boundary: what triggered it, how many tokens it reduced,
/// what it kept verbatim.
#[derive(Debug, Template)]
#[template(path = "blocks/compaction.html")]
pub struct Compaction {
    pub trigger: String,
    pub pre_tokens: Option<String>,
    /// Tokens a microcompaction saved.
    pub saved: Option<String>,
    /// The messages it kept, and where (`3 messages kept after the summary`).
    pub kept: Option<String>,
}

/// A session id, with the cctree-fork badge when `cctree fork` wrote it.
#[derive(Debug, Hash, Template)]
#[template(path = "blocks/session.html")]
pub struct SessionRef {
    pub id: String,
    pub own_fork: bool,
}

/// Where the full output of a `<persisted-output>` preview comes from.
#[derive(Debug, Template)]
#[template(path = "blocks/persisted.html")]
pub struct PersistedNote {
    /// The file under `tool-results/` shown, or none (the preview is shown).
    pub file: Option<String>,
}

/// A tool's result text that its call already shows the effect of (Edit,
/// Write…): a line, or its first words with the whole text under them.
#[derive(Debug, Template)]
#[template(path = "blocks/result_text.html")]
pub struct ResultText {
    pub line: String,
    /// The whole text, when the line had to be cut.
    pub full: Option<Box<Block>>,
}

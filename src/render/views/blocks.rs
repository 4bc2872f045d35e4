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
    pub(crate) enum Block {
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
        Reminder(Reminder),
    }
}

/// Text the client put into a tool's output for the model (a
/// `<system-reminder>`): not what the tool returned, folded apart and
/// shown with the system entries; the search finds it only when asked.
#[derive(Debug, Template)]
#[template(path = "blocks/reminder.html")]
pub(crate) struct Reminder {
    /// `system-reminder`.
    pub(crate) tag: String,
    pub(crate) body: Box<Block>,
}

/// The raw JSON of an entry or block, collapsed ([`JsonDetails`], written
/// before it was placed, to be measured): metadata, which the search index
/// leaves out.
#[derive(Debug, Template)]
#[template(source = "{{ html|html }}", ext = "html")]
pub(crate) struct Meta {
    pub(crate) html: Html,
}

/// Markdown rendered ([`crate::render::html::markdown`]), in its `div.md`.
#[derive(Debug, Template)]
#[template(path = "blocks/markdown.html")]
pub(crate) struct Markdown {
    pub(crate) html: Html,
}

/// A quiet line of text (`Thinking (redacted)`, `Interrupted.`…).
#[derive(Debug, Template)]
#[template(path = "blocks/note.html")]
pub(crate) struct Note {
    pub(crate) text: String,
}

/// The text of a notice (an API error, an interruption).
#[derive(Debug, Template)]
#[template(path = "blocks/notice_text.html")]
pub(crate) struct NoticeText {
    pub(crate) text: String,
}

/// `[what]`: something not shown, and why.
#[derive(Debug, Template)]
#[template(path = "blocks/placeholder.html")]
pub(crate) struct Placeholder {
    pub(crate) what: String,
}

/// A thinking block, collapsed under its first words.
#[derive(Debug, Template)]
#[template(path = "blocks/thinking.html")]
pub(crate) struct Thinking {
    pub(crate) hint: String,
    pub(crate) body: Markdown,
}

/// A `<pre>` of tool or command output: `body` is the text escaped, or its
/// ANSI colours as spans ([`crate::render::html::terminal`]).
#[derive(Debug, Template)]
#[template(path = "blocks/output.html")]
pub(crate) struct Output {
    /// More classes of the `pre` (`term`, `json`, `wrap`, or none).
    pub(crate) class: &'static str,
    pub(crate) body: Html,
    /// When the text was cut: the sizes shown and in all.
    pub(crate) cut: Option<(String, String)>,
}

/// A large block, collapsed under its label and size.
#[derive(Debug, Template)]
#[template(path = "blocks/fold.html")]
pub(crate) struct Fold {
    pub(crate) label: String,
    pub(crate) size: String,
    pub(crate) body: Box<Block>,
}

/// Collapsed pretty JSON (of an entry, a block, a tool input…).
#[derive(Debug, Template)]
#[template(path = "blocks/json_details.html")]
pub(crate) struct JsonDetails {
    pub(crate) summary: String,
    pub(crate) json: Block,
}

/// An image of the transcript, written to `assets/img/` (a link opens it
/// alone), or carried by the page as a `data:` URL (`inline`: no link).
#[derive(Debug, Template)]
#[template(path = "blocks/image.html")]
pub(crate) struct Image {
    pub(crate) src: Href,
    pub(crate) media: String,
    pub(crate) inline: bool,
}

/// A link to an external URL from the transcript.
#[derive(Debug, Template)]
#[template(path = "blocks/link.html")]
pub(crate) struct ExternalLink {
    pub(crate) href: Href,
    pub(crate) text: String,
}

/// The anchor of an entry shown inside a message (a streamed part, a result).
#[derive(Debug, Template)]
#[template(path = "blocks/anchor.html")]
pub(crate) struct Anchor {
    pub(crate) id: String,
}

/// Another copy of the same entry whose content differs (P1).
#[derive(Debug, Template)]
#[template(path = "blocks/conflict.html")]
pub(crate) struct Conflict {
    pub(crate) details: Box<Block>,
}

/// A slash command as typed: `/name args`.
#[derive(Debug, Template)]
#[template(path = "blocks/command.html")]
pub(crate) struct Command {
    pub(crate) name: String,
    pub(crate) args: String,
}

/// Context the IDE attached to a prompt (`<ide_selection>`,
/// `<ide_opened_file>`, diagnostics, a terminal): a quiet, labelled quote.
#[derive(Debug, Template)]
#[template(path = "blocks/ide_context.html")]
pub(crate) struct IdeContext {
    /// `opened file`, `selection`…
    pub(crate) label: String,
    pub(crate) text: String,
}

/// A shell command as typed (`! cmd`, or a Bash call's command).
#[derive(Debug, Template)]
#[template(path = "blocks/shell_input.html")]
pub(crate) struct ShellInput {
    pub(crate) command: String,
}

/// The summary a compaction wrote, collapsed.
#[derive(Debug, Template)]
#[template(path = "blocks/summary.html")]
pub(crate) struct Summary {
    pub(crate) body: Markdown,
}

/// Injected text (meta, notifications), collapsed under its first words.
#[derive(Debug, Template)]
#[template(path = "blocks/aux_body.html")]
pub(crate) struct AuxBody {
    pub(crate) summary: String,
    pub(crate) body: Box<Block>,
}

/// One line about a system entry (its duration, its message).
#[derive(Debug, Template)]
#[template(path = "blocks/aux_line.html")]
pub(crate) struct AuxLine {
    pub(crate) line: Html,
}

/// A hook that ran: its name, command and exit code.
#[derive(Debug, Template)]
#[template(path = "blocks/hook.html")]
pub(crate) struct HookLine {
    pub(crate) name: String,
    pub(crate) command: String,
    pub(crate) exit: Option<String>,
}

/// A compaction boundary: what triggered it, how many tokens it reduced,
/// what it kept verbatim.
#[derive(Debug, Template)]
#[template(path = "blocks/compaction.html")]
pub(crate) struct Compaction {
    pub(crate) trigger: String,
    pub(crate) pre_tokens: Option<String>,
    /// Tokens a microcompaction saved.
    pub(crate) saved: Option<String>,
    /// The messages it kept, and where (`3 messages kept after the summary`).
    pub(crate) kept: Option<String>,
}

/// A session id, with the cctree-fork badge when `cctree fork` wrote it.
#[derive(Debug, Hash, Template)]
#[template(path = "blocks/session.html")]
pub(crate) struct SessionRef {
    pub(crate) id: String,
    pub(crate) own_fork: bool,
}

/// Where the full output of a `<persisted-output>` preview comes from.
#[derive(Debug, Template)]
#[template(path = "blocks/persisted.html")]
pub(crate) struct PersistedNote {
    /// The file under `tool-results/` shown, or none (the preview is shown).
    pub(crate) file: Option<String>,
}

/// A tool's result text that its call already shows the effect of (Edit,
/// Write…): a line, or its first words with the whole text under them.
#[derive(Debug, Template)]
#[template(path = "blocks/result_text.html")]
pub(crate) struct ResultText {
    pub(crate) line: String,
    /// The whole text, when the line had to be cut.
    pub(crate) full: Option<Box<Block>>,
}

//! The blocks of a message body, as typed views: each is a struct written by
//! its own template in `templates/blocks/` (a tool call's, [`ToolView`], with
//! its [`CallView`] in `templates/tools/`; a fork's landmark, [`ForkNote`]),
//! and [`Block`] is any of them. This file only declares them: it imports no
//! sibling, so every builder may use it. The message and tool builders
//! ([`crate::render::views::message`], [`crate::render::views::tools`]) make
//! blocks from entries, [`crate::render::views::inputs`] the fork landmarks
//! and sub-agent links, [`crate::render::views::page_state::PageCtx`] the ones
//! that spend a page's allowances (Markdown, outputs, JSON, images).

use askama::Template;

use crate::render::html::{Html, filters, view_enum};
use crate::render::site::urls::Href;

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

/// A tool call with its result, as `templates/blocks/tool.html` writes it.
#[derive(Debug, Template)]
#[template(path = "blocks/tool.html")]
pub(crate) struct ToolView {
    pub(crate) name: String,
    /// What the call is about, in a line (a path, a command, a pattern…).
    pub(crate) arg: String,
    /// Shown open (a checklist).
    pub(crate) open: bool,
    pub(crate) badge: Badge,
    /// What the call shows of its input.
    pub(crate) call: CallView,
    pub(crate) result: Option<ResultView>,
}

impl ToolView {
    /// Its result is an error.
    fn failed(&self) -> bool {
        matches!(self.badge, Badge::Error)
    }
}

/// The badge of a tool call, after its name.
#[derive(Debug)]
pub(crate) enum Badge {
    None,
    NoResult,
    Error,
    /// The size of a long result.
    Size(String),
}

/// The result inside a tool call.
#[derive(Debug)]
pub(crate) struct ResultView {
    /// The result entry's anchor, when it belongs on this page.
    pub(crate) id: Option<String>,
    /// Its heading, where the call shows text of its own above it (a
    /// sub-agent's prompt, then its answer): `Answer`.
    pub(crate) label: Option<&'static str>,
    pub(crate) body: Vec<Block>,
}

view_enum! {
    /// What a tool call shows of its input, by tool.
    #[derive(Debug)]
    pub(crate) enum CallView {
        Bash(BashCall),
        Edit(EditCall),
        MultiEdit(MultiEditCall),
        Patch(PatchCall),
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
pub(crate) struct BashCall {
    pub(crate) description: Option<String>,
    pub(crate) command: ShellInput,
}

/// `Edit`: the diff (from the recorded patch when there is one).
#[derive(Debug, Template)]
#[template(path = "tools/edit.html")]
pub(crate) struct EditCall {
    pub(crate) diff: Block,
}

/// `MultiEdit`: a diff per edit.
#[derive(Debug, Template)]
#[template(path = "tools/multi_edit.html")]
pub(crate) struct MultiEditCall {
    pub(crate) diffs: Vec<Html>,
}

/// A patch of several files: each named, with its diff.
#[derive(Debug, Template)]
#[template(path = "tools/patch.html")]
pub(crate) struct PatchCall {
    /// `Update src/a.rs`, `Update a → b`, and its diff (none for a file deleted).
    pub(crate) files: Vec<(String, Option<Html>)>,
}

/// `Write`: the file written, highlighted when small.
#[derive(Debug, Template)]
#[template(path = "tools/write.html")]
pub(crate) struct WriteCall {
    pub(crate) file: Block,
}

/// `TodoWrite`: the checklist.
#[derive(Debug, Template)]
#[template(path = "tools/todo_write.html")]
pub(crate) struct TodoWriteCall {
    /// `None` when the input holds no list.
    pub(crate) todos: Option<Vec<Todo>>,
}

/// One item of a checklist.
#[derive(Debug)]
pub(crate) struct Todo {
    /// `done`, `doing` or `todo`.
    pub(crate) class: &'static str,
    pub(crate) mark: &'static str,
    pub(crate) content: String,
}

/// `WebFetch`: the URL (a link when it may be one) and the prompt.
#[derive(Debug, Template)]
#[template(path = "tools/web_fetch.html")]
pub(crate) struct WebFetchCall {
    pub(crate) url: String,
    pub(crate) link: Option<Href>,
    pub(crate) prompt: Option<String>,
}

/// `Task` / `Agent`: the sub-agent's transcript and the prompt it was given.
#[derive(Debug, Template)]
#[template(path = "tools/agent.html")]
pub(crate) struct AgentCall {
    pub(crate) transcript: Option<AgentLink>,
    pub(crate) prompt: Option<Markdown>,
}

/// `AskUserQuestion`: each question, its options, and what the person
/// answered (from the result).
#[derive(Debug, Template)]
#[template(path = "tools/questions.html")]
pub(crate) struct QuestionsCall {
    pub(crate) questions: Vec<Question>,
}

#[derive(Debug)]
pub(crate) struct Question {
    /// The short chip label.
    pub(crate) header: String,
    pub(crate) question: String,
    pub(crate) multi: bool,
    pub(crate) options: Vec<QuestionOption>,
    /// The answer as given, when it is not (only) options of the list.
    pub(crate) answer: Option<String>,
}

#[derive(Debug)]
pub(crate) struct QuestionOption {
    pub(crate) label: String,
    pub(crate) description: String,
    pub(crate) chosen: bool,
}

/// Labelled fields of a call's input (a task's subject, a message's
/// recipient, a cell's id…), then what it carries at length.
#[derive(Debug, Default, Template)]
#[template(path = "tools/fields.html")]
pub(crate) struct FieldsCall {
    pub(crate) fields: Vec<Field>,
    pub(crate) body: Option<Block>,
}

#[derive(Debug)]
pub(crate) struct Field {
    pub(crate) label: String,
    pub(crate) value: String,
}

/// A link to a sub-agent's transcript.
#[derive(Debug, Clone, Hash)]
pub(crate) struct AgentLink {
    pub(crate) href: Href,
    pub(crate) messages: u32,
}

/// A tool result shown on its own (its call is on another line, or missing).
#[derive(Debug, Template)]
#[template(path = "blocks/standalone_result.html")]
pub(crate) struct StandaloneResult {
    /// The call, when it is in the archive.
    pub(crate) call: Option<Href>,
    pub(crate) body: Vec<Block>,
}

/// The landmark where a track forks, right after the message of the fork
/// point (a block of its own between messages, never inside an entry the
/// reader may hide): every branch from there, with its label, first words
/// and a link — the one that goes on below on this page, or its own page.
#[derive(Debug, Clone, Hash, Template)]
#[template(path = "blocks/fork_note.html")]
pub(crate) struct ForkNote {
    /// `fork-<uuid>` ([`crate::render::site::urls::fork_anchor`]).
    pub(crate) id: String,
    /// The number of the message the track forks after.
    pub(crate) number: u32,
    /// What the fork is called (`#12`, `#7 on 6.1`, `#2b`): unique in its
    /// conversation, so its landmark's label is unique on a page.
    pub(crate) name: String,
    pub(crate) branches: Vec<ForkBranch>,
    /// All its branches, and the fork's own list when it names only some.
    pub(crate) total: usize,
    pub(crate) more: Option<Href>,
    /// The fork's compare page (its section in a one-file export).
    pub(crate) compare: Option<Href>,
    /// A compaction going on beside the turns it summarized ("Summarize
    /// from here"), not a rewind.
    pub(crate) compaction: bool,
}

/// A branch of a fork point, as its landmark names it.
#[derive(Debug, Clone, Hash)]
pub(crate) struct ForkBranch {
    /// `12.1`, `12.2`…
    pub(crate) label: String,
    pub(crate) href: Href,
    /// The first words a person reads on it.
    pub(crate) words: String,
    /// It goes on below, on this page.
    pub(crate) here: bool,
    /// It leads to the active leaf.
    pub(crate) active: bool,
    /// What tells it from a sibling with the same first words
    /// ([`ProjectCtx::sibling_detail`](crate::render::site::context::ProjectCtx::sibling_detail)).
    pub(crate) detail: Option<String>,
}

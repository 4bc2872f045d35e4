//! Tool calls and their results.
//!
//! A call keeps its input as the client wrote it ([`ToolCall::raw`]) and, for
//! the tools a client ships, as a type ([`ToolInput`]): the views match on
//! the type, once each, and show any other tool by its raw input. A result
//! is its text, images and error flag, plus what its client recorded beside
//! it for the tool that made it ([`ResultDetail`]).

use super::raw::{Loose, Raw};
use super::{Image, Str};

/// A tool call.
#[derive(Debug, Clone)]
pub struct ToolCall<'a> {
    /// Its id, which its result names.
    pub id: Str<'a>,
    /// The tool's name as the client wrote it (`Bash`, `mcp__github__create_issue`…).
    pub name: Str<'a>,
    pub input: ToolInput<'a>,
    /// The input as written (for JSON views and exports).
    pub raw: Raw<'a>,
    /// The key fields of the input ([`Raw::key_fields`]): what a call whose
    /// typed input says nothing is about.
    pub key_fields: String,
}

/// One file of a multi-file patch: added (`new` is its content), updated
/// (`old` and `new`: its hunks' two sides), or deleted; `moved_to`: where an
/// update moved it.
#[derive(Debug, Clone, Default)]
pub struct PatchFile<'a> {
    pub op: PatchOp,
    pub path: Str<'a>,
    pub moved_to: Option<Str<'a>>,
    pub old: Str<'a>,
    pub new: Str<'a>,
}

/// What a patch does to a file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PatchOp {
    Add,
    #[default]
    Update,
    Delete,
}

impl PatchOp {
    /// `Add`, `Update`, `Delete`: as the patch says it.
    pub fn as_str(self) -> &'static str {
        match self {
            PatchOp::Add => "Add",
            PatchOp::Update => "Update",
            PatchOp::Delete => "Delete",
        }
    }
}

impl PatchFile<'_> {
    /// The paths it changes: its own, and where it was moved.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        std::iter::once(&*self.path).chain(self.moved_to.as_deref())
    }
}

/// A tool call's input, typed for the tools a client ships. Strings are
/// empty when the client wrote none (or another type); a field the client
/// may write as any type is [`Loose`].
#[derive(Debug, Clone, Default)]
pub enum ToolInput<'a> {
    /// A shell command (`Bash`; `PowerShell`, shown by its raw input).
    Shell {
        command: Str<'a>,
        description: Str<'a>,
        shell: Shell,
    },
    /// A string replaced in a file.
    Edit {
        file_path: Str<'a>,
        old: Str<'a>,
        new: Str<'a>,
    },
    /// Several replacements in one file; `edits` empty when the client
    /// wrote no list.
    MultiEdit {
        file_path: Str<'a>,
        edits: Vec<(Str<'a>, Str<'a>)>,
    },
    /// Several files changed by one patch (Codex's `apply_patch`), each its
    /// own [`PatchFile`].
    Patch {
        files: Vec<PatchFile<'a>>,
    },
    /// A file written whole.
    Write {
        file_path: Str<'a>,
        content: Str<'a>,
    },
    /// A file read; `offset` and `limit` as written (JSON).
    Read {
        file_path: Str<'a>,
        offset: Option<String>,
        limit: Option<String>,
    },
    /// A search of file contents.
    Grep {
        pattern: Str<'a>,
        path: Str<'a>,
        glob: Str<'a>,
        file_type: Str<'a>,
    },
    /// A search of file names.
    Glob {
        pattern: Str<'a>,
        path: Str<'a>,
    },
    /// The checklist, `None` when the client wrote no list.
    TodoWrite {
        todos: Option<Vec<Todo<'a>>>,
    },
    WebFetch {
        url: Str<'a>,
        prompt: Str<'a>,
    },
    WebSearch {
        query: Str<'a>,
        allowed_domains: Loose<'a>,
        blocked_domains: Loose<'a>,
    },
    /// A sub-agent started (`Task`, `Agent`).
    Agent {
        description: Str<'a>,
        subagent_type: Str<'a>,
        prompt: Str<'a>,
    },
    /// The task list.
    Task(TaskInput<'a>),
    ToolSearch {
        query: Str<'a>,
        max_results: Loose<'a>,
    },
    /// A background task or shell read or stopped (`TaskOutput`, `BashOutput`,
    /// `TaskStop`, `KillShell`, `KillBash`): the first of its ids that says something.
    Background {
        id: String,
        block: Option<bool>,
        filter: Str<'a>,
        timeout: Loose<'a>,
    },
    /// A message to another agent.
    SendMessage {
        to: Loose<'a>,
        summary: Str<'a>,
        message: Message<'a>,
        files: Loose<'a>,
    },
    /// Questions put to the person.
    Questions {
        questions: Vec<Question<'a>>,
    },
    /// A plan proposed (`ExitPlanMode`); `empty`: the input holds nothing.
    Plan {
        plan: Str<'a>,
        empty: bool,
    },
    NotebookEdit {
        notebook_path: Str<'a>,
        cell_id: Str<'a>,
        cell_type: Str<'a>,
        edit_mode: Str<'a>,
        source: Str<'a>,
    },
    Skill {
        skill: Str<'a>,
        args: Str<'a>,
    },
    /// A tool of an MCP server.
    Mcp {
        server: Str<'a>,
        tool: Str<'a>,
    },
    /// A tool the model has no type for: see [`ToolCall::raw`].
    #[default]
    Other,
}

/// Which shell a command is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shell {
    Bash,
    PowerShell,
}

/// An item of a checklist.
#[derive(Debug, Clone, Default)]
pub struct Todo<'a> {
    /// `pending`, `in_progress`, `completed` (`pending` when not written).
    pub status: Str<'a>,
    pub content: Str<'a>,
}

/// A call of the task list.
#[derive(Debug, Clone)]
pub enum TaskInput<'a> {
    Create(TaskFields<'a>),
    Update { task_id: Loose<'a>, fields: TaskFields<'a>, blocks: Loose<'a>, blocked_by: Loose<'a> },
    Get { task_id: Loose<'a> },
    List,
}

/// What a task is said to be, by the call that creates or updates it.
#[derive(Debug, Clone)]
pub struct TaskFields<'a> {
    pub subject: Str<'a>,
    pub description: Str<'a>,
    pub status: Loose<'a>,
    pub owner: Loose<'a>,
    pub active_form: Loose<'a>,
}

/// What a message to another agent carries.
#[derive(Debug, Clone)]
pub enum Message<'a> {
    None,
    Text(Str<'a>),
    /// A structured message: its `type`, and all of it.
    Structured {
        kind: Str<'a>,
        raw: Raw<'a>,
    },
    /// Anything else (a number…).
    Other,
}

/// A question put to the person.
#[derive(Debug, Clone, Default)]
pub struct Question<'a> {
    pub question: Str<'a>,
    /// The short chip label.
    pub header: Str<'a>,
    pub multi_select: bool,
    pub options: Vec<QuestionOption<'a>>,
}

#[derive(Debug, Clone, Default)]
pub struct QuestionOption<'a> {
    pub label: Str<'a>,
    pub description: Str<'a>,
}

/// A tool's result.
#[derive(Debug, Clone, Default)]
pub struct ToolOutput<'a> {
    /// The call it answers.
    pub use_id: Str<'a>,
    pub is_error: bool,
    /// Its text (the text of its parts, joined by newlines).
    pub text: Str<'a>,
    /// Where its text is only a preview of an output kept aside.
    pub spill: Option<Spill>,
    pub images: Vec<Image<'a>>,
    /// What the client recorded beside it for the tool that made it.
    pub detail: ResultDetail<'a>,
}

/// An output too large for the transcript, kept in a file beside it: the
/// transcript holds a preview.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Spill {
    /// The file's name (as the preview names it).
    pub file: Option<String>,
    /// The file, when it is in the archive: where it is (for `--redact`'s
    /// report) and its text (cut at the cap the reader was given).
    pub full: Option<(String, String)>,
    /// The preview.
    pub preview: String,
}

/// What a client recorded beside a result, for the tool that made it.
#[derive(Debug, Clone, Default)]
pub enum ResultDetail<'a> {
    #[default]
    None,
    /// A file read: its content.
    Read { content: Option<Str<'a>> },
    /// A shell command: what it printed (stdout, then stderr), whether it was
    /// interrupted. `output` is `None` when only the result's text says.
    Shell { output: Option<Spilled<'a>>, interrupted: bool },
    /// An edit: the patch the client recorded, when well formed.
    Edit { patch: Option<Vec<Hunk<'a>>> },
    /// The task a task-list call made or read.
    Task { id: Option<Str<'a>>, subject: Option<Str<'a>> },
    /// The plan, when the client kept it out of the call's input.
    Plan { plan: Option<Str<'a>> },
    /// The answers given, by question (`None`: not recorded as such).
    Answers { answers: Option<Vec<(Str<'a>, Option<String>)>> },
}

/// Text that may be only a preview of an output kept aside.
#[derive(Debug, Clone, Default)]
pub struct Spilled<'a> {
    pub text: Str<'a>,
    pub spill: Option<Spill>,
}

/// A hunk of a patch: where it is, and its lines (` `, `-` or `+` first).
#[derive(Debug, Clone, Default)]
pub struct Hunk<'a> {
    pub old_start: u64,
    pub old_lines: u64,
    pub new_start: u64,
    pub new_lines: u64,
    pub lines: Vec<Str<'a>>,
}

impl ResultDetail<'_> {
    /// The answer recorded for `question`.
    pub fn answer(&self, question: &str) -> Option<String> {
        match self {
            ResultDetail::Answers { answers: Some(a) } => {
                a.iter().rev().find(|(q, _)| q == question).and_then(|(_, a)| a.clone())
            }
            _ => None,
        }
    }
}

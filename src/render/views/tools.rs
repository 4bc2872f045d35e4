//! Tool calls paired with their results (by call id, through
//! `Graph::tools`; results may sit anywhere) in one collapsible block
//! ([`ToolView`], `templates/blocks/tool.html`), with a view per kind of
//! tool ([`ToolInput`]) of what its call shows ([`CallView`],
//! `templates/tools/`): shell commands, edits (diffs), written files,
//! checklists, fetches (the URL), sub-agents (link to the sub-agent page,
//! the prompt), questions (the options and answers), plans, notebook cells,
//! the task-list, messaging, skill and background-task tools (their
//! fields), and for MCP and unknown tools their key arguments and pretty
//! JSON; and of what its result shows ([`result_body`]). Each view matches
//! on the call's type once.
//!
//! Every call has a one-line summary (`arg`) when its input holds anything:
//! the typed tools by what matters of each (see `docs/transcript-format.md`
//! §4.7), any other by its key fields ([`ToolCall::key_fields`]).

use std::fmt::Write as _;
use std::rc::Rc;

use crate::model::{
    Loose, Message, Node, PatchFile, PatchOp, Question as QuestionInput, ResultDetail, Shell, Spill, TaskFields,
    TaskInput, ToolCall, ToolInput, ToolOutput,
};

use crate::limits::{COMMAND_CAP, HINT_CHARS, RESULT_BADGE_SIZE, TOOL_ARG_CHARS, TOOL_NOTE_CHARS};
use crate::render::html::Html;
use crate::render::html::diff::{diff_html, patch_html};
use crate::render::html::highlight::{file_block, numbered_file};
use crate::render::plain::{cut, excerpt, human_size, is_cut};
use crate::render::site::urls::external;
use crate::render::views::blocks::{
    AgentCall, AgentLink, Badge, BashCall, Block, CallView, EditCall, Field, FieldsCall, MultiEditCall, PatchCall,
    PersistedNote, Question, QuestionOption, QuestionsCall, Reminder, ResultText, ResultView, ShellInput,
    StandaloneResult, Todo, TodoWriteCall, ToolView, WebFetchCall, WriteCall,
};
use crate::render::views::inputs::{ItemInputs, Shown};
use crate::render::views::page_state::{PageCtx, fold, note};

/// Each file of a patch named (`Update a → b`), with its diff.
fn patch_call(files: &[PatchFile<'_>]) -> PatchCall {
    let files = files
        .iter()
        .map(|f| {
            let what = match &f.moved_to {
                Some(to) => format!("{} {} → {to}", f.op.as_str(), f.path),
                None => format!("{} {}", f.op.as_str(), f.path),
            };
            (what, (f.op != PatchOp::Delete).then(|| diff_html(&f.old, &f.new)))
        })
        .collect();
    PatchCall { files }
}

impl FieldsCall {
    /// The fields (label, value) that hold something, each as one line.
    fn of(fields: &[(&str, &Loose<'_>)]) -> FieldsCall {
        let fields = fields
            .iter()
            .filter_map(|(label, v)| {
                let v = v.as_line()?;
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

/// A call's result as this page finds it: the node holding it, and where.
struct Found<'a> {
    shown: Shown,
    holder: Rc<Node<'a>>,
    at: usize,
}

impl<'a> Found<'a> {
    fn output(&self) -> Option<&ToolOutput<'a>> {
        self.holder.result_at(self.at)
    }
}

/// A tool call with its result (the one its message's inputs name).
pub(crate) fn call(cx: &mut PageCtx<'_>, c: &ToolCall<'_>, it: &ItemInputs) -> ToolView {
    let inputs = it.call(&c.id);
    let found = inputs.and_then(|k| k.result).and_then(|shown| {
        let holder = cx.node(shown.read.entry);
        let at = cx.result_place(shown.read.entry, &holder, &c.id)?;
        Some(Found { shown, holder, at })
    });
    let res = found.as_ref().and_then(Found::output);
    let arg = summary(c, res.map(|r| &r.detail));
    let (call, show_result) = call_view(cx, c, res, inputs.and_then(|k| k.agent.clone()));
    let badge = match res {
        None => Badge::NoResult,
        Some(r) if r.is_error => Badge::Error,
        Some(r) if r.text.len() > RESULT_BADGE_SIZE => Badge::Size(human_size(r.text.len())),
        Some(_) => Badge::None,
    };
    let result = found.as_ref().zip(res).map(|(f, r)| {
        let id = cx.take_anchor(&f.shown);
        let (plain, reminders) = without_reminders(r);
        let r = plain.as_ref().unwrap_or(r);
        let mut body = if show_result || r.is_error { result_body(cx, &c.input, r) } else { result_text(cx, &r.text) };
        body.extend(reminders.iter().map(|t| reminder(cx, t)));
        let label = matches!(c.input, ToolInput::Agent { .. }).then_some("The sub-agent's answer");
        ResultView { id, label, body }
    });
    ToolView {
        name: c.name.to_string(),
        arg: excerpt(&arg, TOOL_ARG_CHARS),
        open: matches!(c.input, ToolInput::TodoWrite { .. } | ToolInput::Questions { .. } | ToolInput::Plan { .. }),
        badge,
        call,
        result,
    }
}

/// The line after a call's name: what the call is about, by kind of tool,
/// else its key fields. Empty only when its input holds nothing. `detail`
/// is what its result records (a created task's id, a plan kept out of the
/// input).
pub(crate) fn summary(c: &ToolCall<'_>, detail: Option<&ResultDetail<'_>>) -> String {
    let arg = match &c.input {
        ToolInput::Shell { command, .. } => command.lines().find(|l| !l.trim().is_empty()).unwrap_or("").to_string(),
        ToolInput::Edit { file_path, .. } | ToolInput::Write { file_path, .. } => file_path.to_string(),
        ToolInput::MultiEdit { file_path, edits } => format!("{file_path} ({} edits)", edits.len()),
        ToolInput::Patch { files } => {
            let paths: Vec<&str> = files.iter().map(|f| &*f.path).collect();
            format!("{} files: {}", files.len(), paths.join(", "))
        }
        ToolInput::Read { file_path, offset, limit } => match (offset, limit) {
            (Some(o), Some(l)) => format!("{file_path} (from line {o}, {l} lines)"),
            (Some(o), None) => format!("{file_path} (from line {o})"),
            _ => file_path.to_string(),
        },
        ToolInput::Grep { pattern, path, glob, file_type } => {
            [path, glob, file_type].iter().filter(|s| !s.is_empty()).fold(pattern.to_string(), |a, s| a + " in " + s)
        }
        ToolInput::Glob { pattern, path } => {
            if path.is_empty() {
                pattern.to_string()
            } else {
                format!("{pattern} in {path}")
            }
        }
        ToolInput::TodoWrite { todos } => {
            let list = todos.as_deref().unwrap_or(&[]);
            format!("{}/{} done", list.iter().filter(|t| t.status == "completed").count(), list.len())
        }
        ToolInput::WebFetch { url, .. } => url.to_string(),
        ToolInput::WebSearch { query, allowed_domains, blocked_domains } => {
            let mut a = query.to_string();
            for (d, what) in [(allowed_domains, "on"), (blocked_domains, "not on")] {
                if let Some(d) = d.as_line().filter(|d| !d.is_empty()) {
                    let _ = write!(a, " ({what} {d})");
                }
            }
            a
        }
        ToolInput::Agent { description, subagent_type, .. } => match (&**description, &**subagent_type) {
            (d, "") => d.to_string(),
            (d, t) => format!("{d} ({t})"),
        },
        ToolInput::Task(t) => task_summary(t, detail),
        ToolInput::ToolSearch { query, .. } => query.to_string(),
        _ => other_summary(c, detail),
    };
    if arg.trim().is_empty() { c.key_fields.clone() } else { arg }
}

/// [`summary`] of the background, messaging, question, plan, notebook,
/// skill and MCP tools.
fn other_summary(c: &ToolCall<'_>, detail: Option<&ResultDetail<'_>>) -> String {
    match &c.input {
        ToolInput::Background { id, block, filter, .. } => {
            let mut arg = id.clone();
            if *block == Some(false) {
                arg.push_str(" (without waiting)");
            }
            if !filter.is_empty() {
                let _ = write!(arg, " (lines matching {filter})");
            }
            arg
        }
        ToolInput::SendMessage { to, summary, message, .. } => message_summary(to, summary, message),
        ToolInput::Questions { questions } => match questions.as_slice() {
            [] => String::new(),
            [q] => q.question.to_string(),
            qs => format!(
                "{} questions: {}",
                qs.len(),
                qs.iter().map(|q| &*q.header).filter(|h| !h.is_empty()).collect::<Vec<_>>().join(", ")
            ),
        },
        ToolInput::Plan { plan, empty } => {
            match plan_of(plan, detail).lines().map(|l| l.trim_start_matches(['#', ' '])).find(|l| !l.trim().is_empty())
            {
                Some(t) => format!("plan: {t}"),
                // An empty input: the plan was kept out of the transcript.
                None if *empty => "the plan".into(),
                None => String::new(),
            }
        }
        ToolInput::NotebookEdit { notebook_path, cell_id, cell_type, edit_mode, .. } => {
            let mode = Some(&**edit_mode).filter(|m| !m.is_empty()).unwrap_or("replace");
            let cell = if cell_id.is_empty() { String::new() } else { format!(" cell {cell_id}") };
            let ty = if cell_type.is_empty() { String::new() } else { format!(", {cell_type}") };
            format!("{notebook_path}{cell} ({mode}{ty})")
        }
        ToolInput::Skill { skill, args } => format!("{skill} {args}").trim().to_string(),
        ToolInput::Mcp { server, tool } => {
            if c.key_fields.is_empty() {
                format!("{server} · {tool}")
            } else {
                format!("{server} · {tool} · {}", c.key_fields)
            }
        }
        _ => String::new(),
    }
}

/// The line of a message to another agent: `→ to: what`.
fn message_summary(to: &Loose<'_>, summary: &str, message: &Message<'_>) -> String {
    let what = match message {
        _ if !summary.is_empty() => summary.to_string(),
        Message::Text(m) => m.lines().find(|l| !l.trim().is_empty()).unwrap_or("").to_string(),
        Message::Structured { kind, .. } => kind.replace('_', " "),
        Message::None | Message::Other => String::new(),
    };
    match (to.str(), what.as_str()) {
        ("", "") => String::new(),
        (to, "") => format!("→ {to}"),
        (to, w) => format!("→ {to}: {w}"),
    }
}

/// The line of a task-list call: `#id`, subject, status, owner, dependencies.
fn task_summary(t: &TaskInput<'_>, detail: Option<&ResultDetail<'_>>) -> String {
    let (task_id, task_subject) = match detail {
        Some(ResultDetail::Task { id, subject }) => (id.as_deref(), subject.as_deref()),
        _ => (None, None),
    };
    match t {
        TaskInput::Create(TaskFields { subject, .. }) => match task_id {
            Some(n) => format!("#{n} {subject}"),
            None => subject.to_string(),
        },
        TaskInput::Update { task_id, fields: TaskFields { subject, status, owner, .. }, blocks, blocked_by } => {
            let mut parts = vec![format!("#{}", task_id.as_line_or_empty())];
            for s in [status.str(), subject, owner.str()] {
                if !s.is_empty() {
                    parts.push(s.to_string());
                }
            }
            for (ids, what) in [(blocks, "blocks"), (blocked_by, "blocked by")] {
                let ids = ids.as_line_or_empty();
                if !ids.is_empty() {
                    parts.push(format!("{what} {ids}"));
                }
            }
            parts.join(" · ")
        }
        TaskInput::Get { task_id } => format!("#{} {}", task_id.as_line_or_empty(), task_subject.unwrap_or("")),
        TaskInput::List => "the task list".into(),
    }
}

/// What a call shows of its input, and whether its result is shown in full
/// (or only its text, when the call already shows its effect: a diff, a
/// file, a checklist, the answers).
fn call_view(
    cx: &mut PageCtx<'_>,
    c: &ToolCall<'_>,
    res: Option<&ToolOutput<'_>>,
    agent: Option<AgentLink>,
) -> (CallView, bool) {
    let plain = CallView::Plain(Html::default());
    match &c.input {
        ToolInput::Shell { command, description, shell: Shell::Bash } => {
            let command = ShellInput { command: cut(command, COMMAND_CAP).to_string() };
            let description = (!description.is_empty()).then(|| excerpt(description, HINT_CHARS));
            (BashCall { description, command }.into(), true)
        }
        ToolInput::Edit { old, new, .. } => {
            let diff = match res.map(|r| &r.detail) {
                Some(ResultDetail::Edit { patch: Some(hunks) }) => patch_html(hunks),
                _ => diff_html(old, new),
            };
            let diff = fold(Block::Html(diff), "Diff", old.len() + new.len());
            (EditCall { diff }.into(), false)
        }
        ToolInput::MultiEdit { edits, .. } => {
            (MultiEditCall { diffs: edits.iter().map(|(old, new)| diff_html(old, new)).collect() }.into(), false)
        }
        ToolInput::Patch { files } => (patch_call(files).into(), false),
        ToolInput::Write { content, .. } => {
            let code = file_block(cut(content, cx.cap()));
            let file = fold(Block::Html(code), "File", content.len());
            (WriteCall { file }.into(), false)
        }
        ToolInput::Read { .. } | ToolInput::Grep { .. } | ToolInput::Glob { .. } => (plain, true),
        ToolInput::TodoWrite { todos } => (TodoWriteCall { todos: todos.as_deref().map(todo_views) }.into(), false),
        ToolInput::WebFetch { url, prompt } => {
            let prompt = (!prompt.is_empty()).then(|| excerpt(prompt, HINT_CHARS));
            (WebFetchCall { url: url.to_string(), link: external(url), prompt }.into(), true)
        }
        ToolInput::WebSearch { allowed_domains, blocked_domains, .. } => {
            (FieldsCall::of(&[("only from", allowed_domains), ("never from", blocked_domains)]).into(), true)
        }
        ToolInput::Agent { prompt, .. } => {
            let prompt = (!prompt.is_empty()).then(|| cx.folded_markdown(prompt));
            (AgentCall { transcript: agent, prompt }.into(), true)
        }
        ToolInput::Task(
            TaskInput::Create(TaskFields { description, status, owner, active_form, .. })
            | TaskInput::Update { fields: TaskFields { description, status, owner, active_form, .. }, .. },
        ) => {
            let body = (!description.is_empty()).then(|| Block::Markdown(cx.folded_markdown(description)));
            let fields = [("status", status), ("owner", owner), ("shown as", active_form)];
            (FieldsCall::of(&fields).with(body).into(), true)
        }
        ToolInput::Task(TaskInput::Get { .. } | TaskInput::List) | ToolInput::Skill { .. } => {
            (FieldsCall::default().into(), true)
        }
        ToolInput::ToolSearch { max_results, .. } => (FieldsCall::of(&[("at most", max_results)]).into(), true),
        ToolInput::Background { timeout, .. } => (FieldsCall::of(&[("timeout (ms)", timeout)]).into(), true),
        ToolInput::SendMessage { to, message, files, .. } => {
            let body = match message {
                Message::Text(m) if !m.is_empty() => Some(Block::Markdown(cx.folded_markdown(m))),
                Message::Structured { raw, .. } => Some(cx.json_pre(raw)),
                _ => None,
            };
            (FieldsCall::of(&[("to", to), ("files", files)]).with(body).into(), true)
        }
        ToolInput::Questions { questions: qs } => (questions(qs, res).into(), false),
        ToolInput::Plan { plan, .. } => {
            let plan = plan_of(plan, res.map(|r| &r.detail));
            let body = (!plan.is_empty()).then(|| Block::Markdown(cx.markdown(cut(plan, cx.cap()))));
            (FieldsCall::default().with(body).into(), true)
        }
        ToolInput::NotebookEdit { source, .. } => {
            let body = (!source.is_empty()).then(|| {
                let code = file_block(cut(source, cx.cap()));
                fold(Block::Html(code), "Cell", source.len())
            });
            (FieldsCall::default().with(body).into(), true)
        }
        // No view of their own: their input as JSON.
        ToolInput::Shell { shell: Shell::PowerShell, .. } | ToolInput::Mcp { .. } | ToolInput::Other => {
            (CallView::Json(cx.json_pre(&c.raw)), true)
        }
    }
}

/// The plan of a plan call: its input's, else the one its result recorded.
fn plan_of<'v>(input: &'v str, detail: Option<&'v ResultDetail<'_>>) -> &'v str {
    Some(input).filter(|p| !p.trim().is_empty()).unwrap_or_else(|| match detail {
        Some(ResultDetail::Plan { plan: Some(p) }) => p,
        _ => "",
    })
}

/// A tool result shown on its own (its call is on another line, or
/// missing): its text and images.
pub(crate) fn standalone_result(cx: &mut PageCtx<'_>, r: &ToolOutput<'_>, it: &ItemInputs) -> StandaloneResult {
    let (plain, reminders) = without_reminders(r);
    let mut body = result_body(cx, &ToolInput::Other, plain.as_ref().unwrap_or(r));
    body.extend(reminders.iter().map(|t| reminder(cx, t)));
    StandaloneResult { call: it.call_of_result(&r.use_id), body }
}

/// A result whose text holds reminders the client put there for the model
/// (`<system-reminder>`): the result without them, and their texts.
fn without_reminders<'a>(r: &ToolOutput<'a>) -> (Option<ToolOutput<'a>>, Vec<String>) {
    match crate::render::plain::split_reminders(&r.text) {
        None => (None, Vec::new()),
        Some((rest, found)) => {
            let found = found.into_iter().map(str::to_string).collect();
            (Some(ToolOutput { text: rest.into(), ..r.clone() }), found)
        }
    }
}

/// A reminder, folded apart from the output it was in ([`Reminder`]).
fn reminder(cx: &mut PageCtx<'_>, text: &str) -> Block {
    Block::Reminder(Reminder { tag: "system reminder".into(), body: Box::new(cx.output(text, "Reminder", "wrap")) })
}

/// What a result shows, by kind of tool: the file read, Markdown (agents,
/// fetches, searches), terminal output (shell), or its text; then its images.
fn result_body(cx: &mut PageCtx<'_>, tool: &ToolInput<'_>, r: &ToolOutput<'_>) -> Vec<Block> {
    let mut body = Vec::new();
    match tool {
        ToolInput::Read { file_path, offset, .. } if !r.is_error => match &r.detail {
            ResultDetail::Read { content: Some(content) } => {
                // Claude Code's offset is the number of the first line read.
                let first = offset.as_deref().and_then(|o| o.trim().parse::<usize>().ok()).unwrap_or(1).max(1);
                let code = numbered_file(cut(content, cx.cap()), file_path, first);
                body.push(fold(Block::Html(code), "File", content.len()));
            }
            _ if r.images.is_empty() => body.push(cx.output(&r.text, "Output", "")),
            _ => {}
        },
        ToolInput::Agent { .. } | ToolInput::WebFetch { .. } | ToolInput::WebSearch { .. } if !r.is_error => {
            let md = cx.folded_markdown(cut(&r.text, cx.cap()));
            body.push(fold(Block::Markdown(md), "Result", r.text.len()));
        }
        ToolInput::Shell { shell: Shell::Bash, .. } => {
            let (out, spill) = match &r.detail {
                ResultDetail::Shell { output: Some(o), .. } if !r.is_error => (&o.text, &o.spill),
                _ => (&r.text, &r.spill),
            };
            body.extend(spilled_or(cx, out, spill.as_ref(), "term"));
            if matches!(r.detail, ResultDetail::Shell { interrupted: true, .. }) {
                body.push(note("Interrupted."));
            }
        }
        _ => body.extend(spilled_or(cx, &r.text, r.spill.as_ref(), "")),
    }
    for img in &r.images {
        body.push(cx.image(img));
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

/// The output, or for the preview of a spilled output the full output from
/// its side file when it is in the archive (capped), else the preview.
fn spilled_or(cx: &mut PageCtx<'_>, text: &str, spill: Option<&Spill>, class: &'static str) -> Vec<Block> {
    match spill {
        None => vec![cx.output(text, "Output", class)],
        Some(Spill { full: Some((path, full)), file, .. }) => {
            // Not an entry line: `--redact` has not seen it yet.
            let full = cx.p.redactor.text(|| path.clone(), full);
            let note = Block::Persisted(PersistedNote { file: file.clone() });
            vec![note, cx.output(&full, "Output", class)]
        }
        Some(Spill { preview, .. }) => {
            vec![Block::Persisted(PersistedNote { file: None }), cx.output(preview, "Preview", class)]
        }
    }
}

/// The questions of a questions call and what the person answered: as
/// its result recorded them, else as its text says (`"question"="answer"`).
fn questions(list: &[QuestionInput<'_>], res: Option<&ToolOutput<'_>>) -> QuestionsCall {
    let text = res.map_or("", |r| &*r.text);
    let questions = list
        .iter()
        .map(|q| {
            let question = q.question.to_string();
            let answer = res.and_then(|r| r.detail.answer(&question)).or_else(|| answer_in_text(text, &question));
            let picked =
                |label: &str| answer.as_deref().is_some_and(|a| a == label || a.split(", ").any(|p| p == label));
            let options: Vec<QuestionOption> = q
                .options
                .iter()
                .map(|o| {
                    let label = o.label.to_string();
                    let chosen = picked(&label);
                    QuestionOption { description: o.description.to_string(), label, chosen }
                })
                .collect();
            // Shown as typed when it is not just the options marked.
            let all_marked = answer.as_deref().is_some_and(|a| {
                a.split(", ").all(|p| options.iter().any(|o| o.label == p)) || options.iter().any(|o| o.label == a)
            });
            Question {
                header: q.header.to_string(),
                question,
                multi: q.multi_select,
                options,
                answer: answer.filter(|_| !all_marked),
            }
        })
        .collect();
    QuestionsCall { questions }
}

/// `"question"="answer"` in the text of a questions call's result.
fn answer_in_text(text: &str, question: &str) -> Option<String> {
    let key = format!("\"{question}\"=\"");
    let start = text.find(&key)? + key.len();
    let rest = &text[start..];
    let end = rest.find("\", \"").or_else(|| rest.find("\". ")).or_else(|| rest.rfind('"'))?;
    Some(rest[..end].to_string())
}

fn todo_views(list: &[crate::model::Todo<'_>]) -> Vec<Todo> {
    list.iter()
        .map(|t| {
            let (class, mark) = match &*t.status {
                "completed" => ("done", "☑"),
                "in_progress" => ("doing", "◐"),
                _ => ("todo", "☐"),
            };
            Todo { class, mark, content: t.content.to_string() }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{QuestionOption as OptionInput, ResultDetail};
    use std::borrow::Cow::Borrowed as B;

    #[test]
    fn questions_show_the_answers_given() {
        let option = |label: &'static str| OptionInput { label: B(label), description: B("") };
        let q = |question: &'static str, header: &'static str, options: &[&'static str], multi_select: bool| {
            QuestionInput {
                question: B(question),
                header: B(header),
                multi_select,
                options: options.iter().map(|o| option(o)).collect(),
            }
        };
        let input = [
            q("Which DB?", "DB", &["Postgres", "SQLite"], false),
            q("Which extras?", "Extras", &["A", "B", "C"], true),
            q("Name?", "Name", &["x", "y"], false),
        ];
        let answers = vec![(B("Which DB?"), Some("SQLite".into())), (B("Which extras?"), Some("A, C".into()))];
        let res = ToolOutput {
            detail: ResultDetail::Answers { answers: Some(answers) },
            text: B(
                "User has answered your questions: \"Which DB?\"=\"SQLite\", \"Name?\"=\"my <own> name\". You can now continue",
            ),
            ..ToolOutput::default()
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
        let todo =
            |content: &'static str, status: &'static str| crate::model::Todo { content: B(content), status: B(status) };
        let list = [todo("write <tests>", "completed"), todo("ship", "in_progress")];
        let html = TodoWriteCall { todos: Some(todo_views(&list)) }.to_string();
        assert_eq!(
            html,
            "<ul class=\"todos\"><li class=\"done\"><span class=\"mark\">☑</span> write &lt;tests&gt;</li>\
             <li class=\"doing\"><span class=\"mark\">◐</span> ship</li></ul>"
        );
        assert_eq!(TodoWriteCall { todos: None }.to_string(), "<span class=\"placeholder\">[no todos]</span>");
    }
}

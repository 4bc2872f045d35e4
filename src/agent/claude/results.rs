//! Claude Code's tool results: a `tool_result` block (its text, images,
//! error flag), an output spilled to `<session>/tool-results/`
//! (transcript-format §4.4), and what the entry's `toolUseResult` records
//! for the tools whose views show it (§4.3).

use std::borrow::Cow;

use serde_json::Value;

use crate::model::{Hunk, ResultDetail, Spill, Spilled, Str, ToolOutput};

use super::prompt::tag_text;
use super::values::{SideFiles, at, image_of, str_at, strip_tags};

/// The tools whose result shows part of the entry's `toolUseResult`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tool {
    Read,
    Bash,
    Edit,
    /// `TaskCreate`, `TaskGet`: the task.
    Task,
    /// `ExitPlanMode`: the plan, when kept out of the input.
    Plan,
    /// `AskUserQuestion`: the answers.
    Questions,
}

impl Tool {
    pub(super) fn of(name: &str) -> Option<Tool> {
        Some(match name {
            "Read" => Tool::Read,
            "Bash" => Tool::Bash,
            "Edit" => Tool::Edit,
            "TaskCreate" | "TaskGet" => Tool::Task,
            "ExitPlanMode" => Tool::Plan,
            "AskUserQuestion" => Tool::Questions,
            _ => return None,
        })
    }
}

/// What a `tool_result` block holds: its text (the `text` of its parts),
/// images, whether it is an error, and where its text is the preview of a
/// spilled output. A block that is not a result reads as an empty one.
pub(super) fn result_of<'a>(mut b: Value, side: SideFiles<'_>) -> ToolOutput<'a> {
    let mut r = ToolOutput {
        use_id: Cow::Owned(str_at(&b, &["tool_use_id"]).unwrap_or("").to_string()),
        is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
        ..ToolOutput::default()
    };
    let mut text = String::new();
    match b.get_mut("content").map(Value::take) {
        Some(Value::String(s)) => text = s,
        Some(Value::Array(parts)) => {
            let mut texts = Vec::with_capacity(parts.len());
            for mut p in parts {
                match str_at(&p, &["type"]) {
                    Some("image") => r.images.push(image_of(p.get_mut("source").map(Value::take))),
                    _ => texts.push(match p.get_mut("text").map(Value::take) {
                        Some(Value::String(t)) => t,
                        _ => String::new(),
                    }),
                }
            }
            text = texts.join("\n");
        }
        _ => {}
    }
    if text.contains("<tool_use_error>") {
        text = strip_tags(&text, &["tool_use_error"]);
    }
    r.spill = spill_of(&text, side);
    r.text = Cow::Owned(text);
    r
}

/// A `<persisted-output>` preview: the file it names under `tool-results/`
/// (a path of the machine that wrote it, maybe Windows', read by its last
/// two parts), and that file when it is in the archive.
fn spill_of(text: &str, side: SideFiles<'_>) -> Option<Spill> {
    let inner = tag_text(text, "persisted-output")?;
    let file = inner
        .split_once("Full output saved to:")
        .map(|(_, rest)| rest.lines().next().unwrap_or("").trim())
        .and_then(|p| {
            let mut parts = p.rsplit(['/', '\\']);
            let f = parts.next()?;
            (parts.next()? == "tool-results").then_some(f)
        });
    Some(Spill { file: file.map(str::to_string), full: file.and_then(side), preview: inner.trim().to_string() })
}

/// What `toolUseResult` (`tur`) records for the result `r` of a call of `tool`.
pub(super) fn detail_of<'a>(tool: Tool, tur: Option<Value>, side: SideFiles<'_>) -> ResultDetail<'a> {
    let mut tur = tur.unwrap_or(Value::Null);
    let s = |v: &Value, path: &[&str]| -> Option<Str<'a>> { str_at(v, path).map(|s| Cow::Owned(s.to_string())) };
    match tool {
        Tool::Read => ResultDetail::Read { content: s(&tur, &["file", "content"]) },
        Tool::Bash => {
            let interrupted = at(&tur, &["interrupted"]).and_then(Value::as_bool) == Some(true);
            let output = match str_at(&tur, &["stdout"]) {
                Some(o) => {
                    let e = str_at(&tur, &["stderr"]).unwrap_or("");
                    let text = format!("{o}{}{e}", if e.is_empty() || o.is_empty() { "" } else { "\n" });
                    Some(Spilled { spill: spill_of(&text, side), text: Cow::Owned(text) })
                }
                None => None,
            };
            ResultDetail::Shell { output, interrupted }
        }
        Tool::Edit => ResultDetail::Edit { patch: tur.get_mut("structuredPatch").and_then(|p| patch_of(p.take())) },
        Tool::Task => ResultDetail::Task { id: s(&tur, &["task", "id"]), subject: s(&tur, &["task", "subject"]) },
        Tool::Plan => ResultDetail::Plan { plan: s(&tur, &["plan"]) },
        Tool::Questions => ResultDetail::Answers {
            answers: tur
                .get("answers")
                .and_then(Value::as_object)
                .map(|a| a.iter().map(|(q, v)| (Cow::Owned(q.clone()), crate::model::raw::scalar_text(v))).collect()),
        },
    }
}

/// A `structuredPatch`, if well formed: a non-empty list of hunks, each
/// with its lines (strings).
fn patch_of<'a>(patch: Value) -> Option<Vec<Hunk<'a>>> {
    let Value::Array(hunks) = patch else { return None };
    if hunks.is_empty() {
        return None;
    }
    hunks
        .into_iter()
        .map(|mut h| {
            let n = |k: &str| h.get(k).and_then(Value::as_u64).unwrap_or(0);
            let (old_start, old_lines, new_start, new_lines) =
                (n("oldStart"), n("oldLines"), n("newStart"), n("newLines"));
            let Value::Array(lines) = h.get_mut("lines")?.take() else { return None };
            let lines = lines
                .into_iter()
                .map(|l| match l {
                    Value::String(s) => Some(Cow::Owned(s)),
                    _ => None,
                })
                .collect::<Option<Vec<Str<'a>>>>()?;
            Some(Hunk { old_start, old_lines, new_start, new_lines, lines })
        })
        .collect()
}

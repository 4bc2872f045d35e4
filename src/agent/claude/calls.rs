//! Claude Code's tool calls: the inputs of the tools it ships (2.1.330, the
//! former names it still maps, and the tools of older clients in the
//! corpus; `docs/transcript-format.md` §4.7) as [`ToolInput`]s, by name;
//! every other tool (MCP servers' included) keeps its raw input.

use std::borrow::Cow;

use serde_json::Value;

use crate::model::{
    Loose, Message, Question, QuestionOption, Raw, Shell, Str, TaskFields, TaskInput, Todo, ToolCall, ToolInput,
};

use super::values::str_at;

/// A `tool_use` block.
pub(super) fn call_of<'a>(mut b: Value) -> ToolCall<'a> {
    let s = |k: &str| -> Str<'a> { Cow::Owned(str_at(&b, &[k]).unwrap_or("").to_string()) };
    let id = s("id");
    let name: Str<'a> = Cow::Owned(str_at(&b, &["name"]).unwrap_or("tool").to_string());
    let input = b.get_mut("input").map_or(Value::Null, Value::take);
    let raw = Raw::of(input);
    let typed = input_of(&name, raw.tree());
    let key_fields = raw.key_fields();
    ToolCall { id, name, input: typed, raw, key_fields }
}

/// The typed input of a call of `name`.
fn input_of<'a>(name: &str, input: &Value) -> ToolInput<'a> {
    let s = |k: &str| -> Str<'a> { Cow::Owned(str_at(input, &[k]).unwrap_or("").to_string()) };
    let loose = |k: &str| Loose::at(input, k);
    match name {
        "Bash" | "PowerShell" => ToolInput::Shell {
            command: s("command"),
            description: s("description"),
            shell: if name == "Bash" { Shell::Bash } else { Shell::PowerShell },
        },
        "Edit" => ToolInput::Edit { file_path: s("file_path"), old: s("old_string"), new: s("new_string") },
        "MultiEdit" => {
            let edits = input.get("edits").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
            let pair = |e: &Value, k: &str| -> Str<'a> { Cow::Owned(str_at(e, &[k]).unwrap_or("").to_string()) };
            let edits = edits.iter().map(|e| (pair(e, "old_string"), pair(e, "new_string"))).collect();
            ToolInput::MultiEdit { file_path: s("file_path"), edits }
        }
        "Write" => ToolInput::Write { file_path: s("file_path"), content: s("content") },
        "Read" => ToolInput::Read {
            file_path: s("file_path"),
            offset: input.get("offset").map(Value::to_string),
            limit: input.get("limit").map(Value::to_string),
        },
        "Grep" => ToolInput::Grep { pattern: s("pattern"), path: s("path"), glob: s("glob"), file_type: s("type") },
        "Glob" => ToolInput::Glob { pattern: s("pattern"), path: s("path") },
        "TodoWrite" => ToolInput::TodoWrite { todos: todos(input.get("todos")) },
        "WebFetch" => ToolInput::WebFetch { url: s("url"), prompt: s("prompt") },
        "WebSearch" => ToolInput::WebSearch {
            query: s("query"),
            allowed_domains: loose("allowed_domains"),
            blocked_domains: loose("blocked_domains"),
        },
        "Task" | "Agent" => {
            ToolInput::Agent { description: s("description"), subagent_type: s("subagent_type"), prompt: s("prompt") }
        }
        "TaskCreate" | "TaskUpdate" | "TaskGet" | "TaskList" => ToolInput::Task(task(name, input)),
        "ToolSearch" => ToolInput::ToolSearch { query: s("query"), max_results: loose("max_results") },
        "TaskOutput" | "BashOutput" | "TaskStop" | "KillShell" | "KillBash" => ToolInput::Background {
            id: ["task_id", "bash_id", "shell_id"]
                .iter()
                .map(|k| loose(k).as_line_or_empty())
                .find(|v| !v.is_empty())
                .unwrap_or_default(),
            block: input.get("block").and_then(Value::as_bool),
            filter: s("filter"),
            timeout: loose("timeout"),
        },
        "SendMessage" => ToolInput::SendMessage {
            to: loose("to"),
            summary: s("summary"),
            message: message(input.get("message")),
            files: loose("files"),
        },
        "AskUserQuestion" => ToolInput::Questions { questions: questions(input) },
        "ExitPlanMode" => {
            ToolInput::Plan { plan: s("plan"), empty: input.as_object().is_none_or(serde_json::Map::is_empty) }
        }
        "NotebookEdit" => ToolInput::NotebookEdit {
            notebook_path: s("notebook_path"),
            cell_id: s("cell_id"),
            cell_type: s("cell_type"),
            edit_mode: s("edit_mode"),
            source: s("new_source"),
        },
        "Skill" => ToolInput::Skill { skill: s("skill"), args: s("args") },
        _ => match name.strip_prefix("mcp__").and_then(|r| r.split_once("__")) {
            Some((server, tool)) => {
                ToolInput::Mcp { server: Cow::Owned(server.to_string()), tool: Cow::Owned(tool.to_string()) }
            }
            None => ToolInput::Other,
        },
    }
}

fn task<'a>(name: &str, input: &Value) -> TaskInput<'a> {
    let s = |k: &str| -> Str<'a> { Cow::Owned(str_at(input, &[k]).unwrap_or("").to_string()) };
    let loose = |k: &str| Loose::at(input, k);
    let fields = || TaskFields {
        subject: s("subject"),
        description: s("description"),
        status: loose("status"),
        owner: loose("owner"),
        active_form: loose("activeForm"),
    };
    match name {
        "TaskCreate" => TaskInput::Create(fields()),
        "TaskUpdate" => TaskInput::Update {
            task_id: loose("taskId"),
            fields: fields(),
            blocks: loose("addBlocks"),
            blocked_by: loose("addBlockedBy"),
        },
        "TaskGet" => TaskInput::Get { task_id: loose("taskId") },
        _ => TaskInput::List,
    }
}

/// The checklist of a `TodoWrite` (`None`: no list).
fn todos<'a>(list: Option<&Value>) -> Option<Vec<Todo<'a>>> {
    let items = list.and_then(Value::as_array)?;
    let todo = |t: &Value| Todo {
        status: Cow::Owned(str_at(t, &["status"]).unwrap_or("pending").to_string()),
        content: Cow::Owned(str_at(t, &["content"]).unwrap_or("").to_string()),
    };
    Some(items.iter().map(todo).collect())
}

fn message<'a>(m: Option<&Value>) -> Message<'a> {
    match m {
        None => Message::None,
        Some(Value::String(s)) => Message::Text(Cow::Owned(s.clone())),
        Some(o @ Value::Object(_)) => Message::Structured {
            kind: Cow::Owned(str_at(o, &["type"]).unwrap_or("").to_string()),
            raw: Raw::of(o.clone()),
        },
        Some(_) => Message::Other,
    }
}

/// The questions of an `AskUserQuestion` input; early calls asked one
/// `question` (a string), without options.
fn questions<'a>(input: &Value) -> Vec<Question<'a>> {
    let s = |v: &Value, k: &str| -> Str<'a> { Cow::Owned(str_at(v, &[k]).unwrap_or("").to_string()) };
    match (input.get("questions"), input.get("question")) {
        (Some(Value::Array(qs)), _) => qs
            .iter()
            .map(|q| Question {
                question: s(q, "question"),
                header: s(q, "header"),
                multi_select: q.get("multiSelect").and_then(Value::as_bool) == Some(true),
                options: q
                    .get("options")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or(&[])
                    .iter()
                    .map(|o| QuestionOption { label: s(o, "label"), description: s(o, "description") })
                    .collect(),
            })
            .collect(),
        (_, Some(Value::String(q))) => vec![Question { question: Cow::Owned(q.clone()), ..Question::default() }],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::claude::results::{Tool, detail_of};
    use crate::render::views::tools::summary;
    use serde_json::json;

    /// A call of `name` with `input`, as read from its block.
    fn call_from<'a>(name: &str, input: Value) -> ToolCall<'a> {
        call_of(json!({"type": "tool_use", "id": "toolu_1", "name": name, "input": input}))
    }

    /// Whether an input holds anything to summarise.
    fn holds_something(input: &Value) -> bool {
        match input {
            Value::Object(o) => o.values().any(|v| !matches!(v, Value::Null)),
            Value::Null => false,
            Value::String(s) => !s.is_empty(),
            _ => true,
        }
    }

    /// Every `tool_use` block of the vendored transcripts (the real
    /// projects, the 2.1.330 archives, the example), by name and input.
    fn vendored_calls() -> Vec<(String, Value)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut calls = Vec::new();
        for dir in ["tests/fixtures", "examples"] {
            for f in walkdir::WalkDir::new(root.join(dir)).sort_by_file_name().into_iter().filter_map(Result::ok) {
                if f.path().extension().is_none_or(|e| e != "jsonl") {
                    continue;
                }
                let text = String::from_utf8_lossy(&std::fs::read(f.path()).unwrap()).into_owned();
                for line in text.lines() {
                    let Ok(v) = serde_json::from_str::<Value>(line) else { continue };
                    let Some(blocks) = super::super::values::at(&v, &["message", "content"]).and_then(Value::as_array)
                    else {
                        continue;
                    };
                    for b in blocks.iter().filter(|b| str_at(b, &["type"]) == Some("tool_use")) {
                        let name = str_at(b, &["name"]).unwrap_or("").to_string();
                        calls.push((name, b.get("input").cloned().unwrap_or(Value::Null)));
                    }
                }
            }
        }
        calls
    }

    /// A plausible input for each tool Claude Code 2.1.330 ships (its
    /// list of tool names, the former names it still maps, and the tools
    /// of older clients in the corpus), and an MCP tool.
    fn synthetic_calls() -> Vec<(&'static str, Value)> {
        vec![
            ("Agent", json!({"description":"Find the bug","prompt":"Look","subagent_type":"Explore"})),
            ("Task", json!({"description":"Find the bug","prompt":"Look"})),
            ("Artifact", json!({"title":"Chart","content":"<svg/>"})),
            (
                "AskUserQuestion",
                json!({"questions":[{"question":"Which?","header":"Pick","options":[{"label":"A"},{"label":"B"}],"multiSelect":false}]}),
            ),
            ("Bash", json!({"command":"ls -la","description":"List"})),
            ("PowerShell", json!({"command":"Get-ChildItem"})),
            ("CronCreate", json!({"cron":"*/5 * * * *","prompt":"check the build"})),
            ("CronDelete", json!({"id":"cron-1"})),
            ("CronList", json!({"all":true})),
            ("Edit", json!({"file_path":"/a.rs","old_string":"a","new_string":"b"})),
            ("MultiEdit", json!({"file_path":"/a.rs","edits":[{"old_string":"a","new_string":"b"}]})),
            ("EndConversation", json!({"reason":"done"})),
            ("EnterPlanMode", json!({"reason":"big change"})),
            ("ExitPlanMode", json!({"plan":"# Fix the parser\n1. read"})),
            ("EnterWorktree", json!({"name":"feature-x"})),
            ("ExitWorktree", json!({"action":"keep"})),
            ("Glob", json!({"pattern":"**/*.rs","path":"/src"})),
            ("Grep", json!({"pattern":"fn main","path":"/src"})),
            ("LS", json!({"path":"/src"})),
            ("ListAgents", json!({"all":true})),
            ("ListMcpResourcesTool", json!({"server":"github"})),
            ("ReadMcpResourceTool", json!({"server":"github","uri":"repo://a/b"})),
            ("ReadMcpResourceDirTool", json!({"server":"github","uri":"repo://a/"})),
            ("LSP", json!({"operation":"goToDefinition","filePath":"/a.rs","line":3,"character":4})),
            ("Monitor", json!({"command":"tail -f log","description":"watch the log"})),
            (
                "NotebookEdit",
                json!({"notebook_path":"/n.ipynb","cell_id":"c1","new_source":"print(1)","edit_mode":"replace"}),
            ),
            ("Read", json!({"file_path":"/a.rs","offset":3})),
            ("Write", json!({"file_path":"/a.rs","content":"x"})),
            ("ReadNotifications", json!({"limit":5})),
            ("RemoteTrigger", json!({"action":"run","trigger_id":"t1"})),
            ("ReportFindings", json!({"findings":[{"title":"Leak","severity":"high"}]})),
            ("ScheduleWakeup", json!({"delaySeconds":60,"reason":"poll CI"})),
            ("SendFeedback", json!({"message":"great"})),
            ("SendMessage", json!({"to":"alice","summary":"round 2","message":"Please pull master"})),
            ("SendMessage", json!({"to":"bob","message":{"type":"shutdown_request","reason":"done"}})),
            ("SendUserFile", json!({"files":["/a.txt"]})),
            ("SendUserMessage", json!({"message":"Build is green"})),
            ("Brief", json!({"message":"Build is green"})),
            ("SetGoal", json!({"goal":"ship 1.0"})),
            ("Skill", json!({"skill":"pdf","args":"report.pdf"})),
            ("TaskCreate", json!({"subject":"Write tests","description":"All of them"})),
            ("TaskGet", json!({"taskId":"2"})),
            ("TaskList", json!({})),
            ("TaskUpdate", json!({"taskId":"2","status":"completed"})),
            ("TaskUpdate", json!({"taskId":"3","addBlockedBy":["1","2"]})),
            ("TaskOutput", json!({"task_id":"b1bg01","block":false})),
            ("BashOutput", json!({"bash_id":"01910a"})),
            ("TaskStop", json!({"task_id":"b1bg01"})),
            ("KillShell", json!({"shell_id":"dce0af"})),
            ("KillBash", json!({"shell_id":"dce0af"})),
            ("TodoWrite", json!({"todos":[{"content":"a","status":"pending"}]})),
            ("ToolSearch", json!({"query":"select:TaskCreate","max_results":1})),
            ("WaitForMcpServers", json!({"timeout":30})),
            ("WebFetch", json!({"url":"https://example.com","prompt":"summary"})),
            ("WebSearch", json!({"query":"rust askama","allowed_domains":["docs.rs"]})),
            ("Workflow", json!({"name":"release","inputs":{"v":"1.0"}})),
            ("propose_skills", json!({"skills":[{"name":"deploy"}]})),
            ("mcp__github__create_issue", json!({"repo":"o/r","title":"Crash on start","body":"…"})),
            ("mcp__ide__getDiagnostics", json!({"uri":"file:///a.rs"})),
            ("SomethingNew", json!({"nested":{"a":1}})),
            ("SomethingNewer", json!("a string input")),
        ]
    }

    #[test]
    fn vendored_fixtures_every_tool_call_with_an_input_has_a_summary() {
        let vendored = vendored_calls();
        assert!(vendored.len() > 1000, "the fixtures hold calls: {}", vendored.len());
        let synthetic = synthetic_calls().into_iter().map(|(n, i)| (n.to_string(), i));
        let mut names = std::collections::BTreeSet::new();
        for (name, input) in vendored.into_iter().chain(synthetic) {
            names.insert(name.clone());
            let line = summary(&call_from(&name, input.clone()), None);
            if holds_something(&input) {
                assert!(!line.trim().is_empty(), "{name} {input} has no summary");
            }
        }
        for n in ["TaskCreate", "SendMessage", "AskUserQuestion", "ExitPlanMode", "TaskOutput", "TaskStop", "Skill"] {
            assert!(names.contains(n), "{n} is among the calls walked");
        }
    }

    #[test]
    fn summaries_say_what_each_call_is_about() {
        let s = |name: &str, input: Value| summary(&call_from(name, input), None);
        let with = |name: &str, input: Value, tur: Value| {
            summary(&call_from(name, input), Some(&detail_of(Tool::of(name).unwrap(), Some(tur), &|_| None)))
        };
        assert_eq!(s("TaskCreate", json!({"subject":"Write tests","description":"x"})), "Write tests");
        let created = json!({"task":{"id":"4","subject":"Write tests"}});
        assert_eq!(with("TaskCreate", json!({"subject":"Write tests"}), created.clone()), "#4 Write tests");
        assert_eq!(
            s("TaskUpdate", json!({"taskId":"2","status":"in_progress","owner":"bob"})),
            "#2 · in_progress · bob"
        );
        assert_eq!(s("TaskUpdate", json!({"taskId":"3","addBlockedBy":["1","2"]})), "#3 · blocked by 1, 2");
        assert_eq!(with("TaskGet", json!({"taskId":"2"}), created), "#2 Write tests");
        assert_eq!(s("TaskList", json!({})), "the task list");
        assert_eq!(s("SendMessage", json!({"to":"alice","message":"Pull master\nthen merge"})), "→ alice: Pull master");
        assert_eq!(s("SendMessage", json!({"to":"alice","summary":"round 2","message":"long"})), "→ alice: round 2");
        assert_eq!(
            s("SendMessage", json!({"to":"bob","message":{"type":"shutdown_request"}})),
            "→ bob: shutdown request"
        );
        let q = json!({"questions":[{"question":"Which DB?","header":"DB","options":[]},{"question":"Port?","header":"Port"}]});
        assert_eq!(s("AskUserQuestion", q), "2 questions: DB, Port");
        assert_eq!(s("ExitPlanMode", json!({"plan":"\n## Plan: fix it\n1. a"})), "plan: Plan: fix it");
        assert_eq!(with("ExitPlanMode", json!({}), json!({"plan":"# Kept"})), "plan: Kept");
        let nb =
            json!({"notebook_path":"/n.ipynb","cell_id":"c1","new_source":"x","cell_type":"code","edit_mode":"insert"});
        assert_eq!(s("NotebookEdit", nb), "/n.ipynb cell c1 (insert, code)");
        assert_eq!(
            s("WebSearch", json!({"query":"askama","allowed_domains":["docs.rs","github.com"]})),
            "askama (on docs.rs, github.com)"
        );
        assert_eq!(s("Skill", json!({"skill":"pdf","args":"a.pdf"})), "pdf a.pdf");
        assert_eq!(s("TaskOutput", json!({"task_id":"b1","block":false})), "b1 (without waiting)");
        assert_eq!(s("KillShell", json!({"shell_id":"dce0af"})), "dce0af");
        assert_eq!(
            s("mcp__github__create_issue", json!({"title":"Crash","repo":"o/r"})),
            "github · create_issue · title: Crash · repo: o/r"
        );
        assert_eq!(s("mcp__ide__getDiagnostics", json!({})), "ide · getDiagnostics");
        assert_eq!(s("Unknown", json!({"nested":{"a":1},"other":{}})), "nested, other");
        assert_eq!(s("Unknown", json!({})), "");
    }
}

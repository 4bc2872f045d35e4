//! What the mock model answers Qwen Code ([`crate::chat`] speaks the protocol):
//!
//! | request | answer |
//! |---|---|
//! | a side request (the memory extractor, a summary) | see [`is_side_request`]; `<state_snapshot>` for a compression |
//! | the last message a tool's result | `Done with: <the turn's prompt, first 40 characters>` |
//! | `[[sh: CMD]]` | a `run_shell_command` call |
//! | `[[agent: TASK]]` | a foreground `agent` call whose prompt is TASK with `((…))` as `[[…]]` |
//! | any other prompt | `Reply to: <the prompt's last line>` |

use std::sync::Arc;

use serde_json::json;

use crate::chat::{Answer, Chat, directives};
use crate::http::Server;

pub fn start() -> Server {
    crate::chat::start(Arc::new(answer))
}

/// A request that is not the conversation's turn: the background memory
/// extractor, or a compression's summary.
pub fn is_side_request(chat: &Chat) -> bool {
    let last = chat.prompt();
    chat.system.contains("memory") && !chat.system.contains("Qwen Code") || last.contains("<state_snapshot>")
}

/// What the person typed of a request's last prompt (its last line).
fn typed(chat: &Chat) -> String {
    chat.prompt().trim().lines().last().unwrap_or("").to_string()
}

pub fn answer(chat: &Chat) -> Answer {
    let prompt = chat.prompt();
    if prompt.contains("<state_snapshot>") {
        return Answer::text("<analysis>none</analysis><state_snapshot>Summary of the work so far.</state_snapshot>");
    }
    if chat.answers_a_call() {
        return Answer::text(format!("Done with: {}", typed(chat).chars().take(40).collect::<String>()));
    }
    let mut calls = Vec::new();
    for c in directives(&prompt, "sh") {
        calls.push((
            "run_shell_command".to_string(),
            json!({"command": c, "description": "mock shell", "is_background": false}),
        ));
    }
    for t in directives(&prompt, "agent") {
        let task = t.replace("((", "[[").replace("))", "]]");
        calls.push((
            "agent".to_string(),
            json!({"description": "mock task", "prompt": task, "subagent_type": "general-purpose", "run_in_background": false}),
        ));
    }
    if !calls.is_empty() {
        return Answer::calls(calls);
    }
    Answer::text(format!("Reply to: {}", typed(chat).chars().take(80).collect::<String>()))
}

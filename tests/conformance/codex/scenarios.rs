//! The archives the Codex suite makes with the real client.

use super::client::{Sandbox, history_id, meta};

/// What the `codex exec` history made.
pub struct ExecSession {
    /// The thread every `exec`/`exec resume` step continued.
    pub main: String,
    /// The `exec fork` thread.
    pub fork: String,
    /// The sub-agent's thread.
    pub agent: String,
    /// How many lines the main rollout had when it was forked.
    pub forked_at: usize,
    pub prompts: Vec<String>,
}

/// `exec` with a shell call; `exec resume` with an `apply_patch` that adds a
/// file; `exec resume --last` with an update patch and a shell call in one
/// reply; `exec fork` with a prompt; `exec resume` with a sub-agent
/// (`spawn_agent`, then `wait_agent`) that runs a shell call of its own.
pub fn exec_session(s: &Sandbox) -> ExecSession {
    let prompts = vec![
        "first: run [[sh: echo one]]".to_string(),
        "second: patch [[patch: add notes.txt hello]]".to_string(),
        "third: edit [[patch: update notes.txt hello=>world]] and [[sh: cat notes.txt]]".to_string(),
        "fourth: in the fork".to_string(),
        "fifth: delegate [[agent: count the files ((sh: ls))]]".to_string(),
    ];
    s.exec(&[], &prompts[0]);
    let main = history_id(&s.rollouts()[0]);
    s.exec(&["resume", &main], &prompts[1]);
    s.exec(&["resume", "--last"], &prompts[2]);
    let forked_at = super::client::lines(&s.rollouts()[0]).len();
    s.exec(&["fork", &main], &prompts[3]);
    let fork = s
        .rollouts()
        .iter()
        .map(|p| meta(p))
        .find(|m| m["forked_from_id"] == main.as_str() && m["parent_thread_id"].is_null())
        .expect("exec fork wrote a thread")["id"]
        .as_str()
        .unwrap()
        .to_string();
    s.exec(&["resume", &main], &prompts[4]);
    let agent = s
        .rollouts()
        .iter()
        .map(|p| meta(p))
        .find(|m| m["parent_thread_id"] == main.as_str())
        .expect("spawn_agent wrote a thread")["id"]
        .as_str()
        .unwrap()
        .to_string();
    ExecSession { main, fork, agent, forked_at, prompts }
}

/// What the TUI history made.
pub struct TuiSession {
    pub main: String,
    /// The `/fork` thread.
    pub fork: String,
}

/// Waits for the reply to a prompt typed in the TUI.
fn turn(t: &crate::tmux::Tmux, prompt: &str, reply: &str) {
    t.type_line(prompt);
    t.wait_idle(reply, 60);
}

/// The TUI: a shell call, a patch, a plain prompt; a rollback (Esc Esc, ←
/// to the second prompt, Enter) and a new second prompt; `/rename`;
/// `/compact`; a prompt; `/fork` and a prompt in the fork; `/exit`. Then
/// `exec resume` of the original thread.
pub fn tui_session(s: &Sandbox) -> TuiSession {
    let t = s.tui(&[]);
    turn(&t, "one [[sh: echo one]]", "Done with: one");
    turn(&t, "two [[patch: add two.txt second]]", "Done with: two");
    turn(&t, "three", "Reply to: three");
    t.keys(&["Escape", "Escape"]);
    t.wait_for("rewind", 20);
    t.keys(&["Left"]);
    t.keys(&["Enter"]);
    t.wait_for("Conversation reverted", 20);
    t.keys(&["C-u"]);
    turn(&t, "two again", "Reply to: two again");
    turn(&t, "/rename Alpha title", "Alpha title");
    t.type_line("/compact");
    t.wait_idle("Context compacted", 60);
    turn(&t, "after compact", "Reply to: after compact");
    let main = meta(&s.rollouts()[0])["id"].as_str().unwrap().to_string();
    t.type_line("/fork");
    t.wait_idle("Fork created", 30);
    turn(&t, "in the fork", "Reply to: in the fork");
    t.exit("/exit");
    let fork = s
        .rollouts()
        .iter()
        .map(|p| meta(p))
        .find(|m| m["forked_from_id"] == main.as_str())
        .expect("/fork wrote a thread")["id"]
        .as_str()
        .unwrap()
        .to_string();
    s.exec(&["resume", &main], "resumed after the rollback");
    TuiSession { main, fork }
}

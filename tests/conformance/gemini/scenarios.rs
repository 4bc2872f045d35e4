//! The archives the Gemini suite makes with the real client.

use super::client::{Sandbox, records};
use crate::tmux::Tmux;

pub struct Headless {
    pub session: String,
    pub prompts: Vec<String>,
}

/// `-p` with a shell call; `-r latest` with a `write_file`; `-r <id>` with a
/// `replace` and a `read_file`; `-r latest` with a sub-agent
/// (`invoke_agent`) that runs a shell call of its own.
pub fn headless(s: &Sandbox) -> Headless {
    let prompts = vec![
        "first: run [[sh: echo one]]".to_string(),
        "second: write [[write: notes.txt hello]]".to_string(),
        "third: edit [[edit: notes.txt hello=>world]] and [[read: notes.txt]]".to_string(),
        "fourth: delegate [[agent: count the files ((sh: ls))]]".to_string(),
    ];
    s.prompt(&[], &prompts[0]);
    let session = records(&s.session_files()[0])[0]["sessionId"].as_str().unwrap().to_string();
    s.prompt(&["-r", "latest"], &prompts[1]);
    s.prompt(&["-r", &session], &prompts[2]);
    s.prompt(&["-r", "latest"], &prompts[3]);
    Headless { session, prompts }
}

fn turn(t: &Tmux, prompt: &str, reply: &str) {
    t.type_line(prompt);
    t.wait_idle(reply, 60);
}

/// Waits (at most 60 s) until a session file holds `text`.
fn wait_in_files(s: &Sandbox, t: &Tmux, text: &str) {
    let start = std::time::Instant::now();
    while !s.session_files().iter().any(|p| std::fs::read_to_string(p).unwrap_or_default().contains(text)) {
        assert!(start.elapsed().as_secs() < 60, "no session file holds {text:?}; the screen:\n{}", t.screen());
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
}

/// Moves a menu's `●` to the line holding `text` (Up first, then Down).
fn select(t: &Tmux, text: &str) {
    for key in ["Up", "Down"] {
        for _ in 0..12 {
            if t.screen().lines().any(|l| l.contains('●') && l.contains(text)) {
                return;
            }
            t.keys(&[key]);
        }
    }
    panic!("no menu line {text:?}:\n{}", t.screen());
}

pub struct Tui {
    pub session: String,
}

/// The words of the long reply that makes compression worth it.
pub const LONG_WORDS: usize = 2000;

/// The TUI: a shell call, a `write_file`, a plain prompt; `/rewind` to the
/// second prompt ("Rewind conversation") and a new second prompt; `/resume
/// save snap`; a long reply and a prompt; `/compress`; a prompt; `/quit`. Then `-r
/// latest -p`.
pub fn tui(s: &Sandbox) -> Tui {
    let t = s.tui(&[]);
    turn(&t, "one [[sh: echo one]]", "Done with: one");
    turn(&t, "two [[write: two.txt second]]", "Done with: two");
    turn(&t, "three", "Reply to: three");
    t.type_line("/rewind");
    t.wait_for("Stay at current position", 20);
    select(&t, "two [[write");
    t.keys(&["Enter"]);
    t.wait_for("Select an action", 20);
    // "Rewind conversation" alone, keeping the file the turn wrote.
    for _ in 0..6 {
        if t.screen().lines().any(|l| l.contains('●') && l.contains("Rewind conversation") && !l.contains("revert")) {
            break;
        }
        t.keys(&["Down"]);
    }
    t.keys(&["Enter"]);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    t.keys(&["C-u"]);
    turn(&t, "two again", "Reply to: two again");
    turn(&t, "/resume save snap", "checkpoint saved");
    // The long reply overflows the screen: wait for it in the session file.
    t.type_line(&format!("long [[long: {LONG_WORDS}]]"));
    wait_in_files(s, &t, "END OF LONG REPLY");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    turn(&t, "after long", "Reply to: after long");
    t.type_line("/compress");
    let start = std::time::Instant::now();
    loop {
        let screen = t.screen().to_lowercase();
        if screen.contains("not beneficial") || screen.contains("compressed") {
            assert!(!screen.contains("not beneficial"), "compression refused:\n{screen}");
            break;
        }
        assert!(start.elapsed().as_secs() < 60, "no compression:\n{screen}");
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    std::thread::sleep(std::time::Duration::from_millis(1000));
    turn(&t, "after compress", "Reply to: after compress");
    t.exit("/quit");
    drop(t);
    let main = s.session_files().into_iter().max_by_key(|p| std::fs::metadata(p).unwrap().len()).unwrap();
    let session = records(&main)[0]["sessionId"].as_str().unwrap().to_string();
    s.prompt(&["-r", "latest"], "resumed after the rewind");
    Tui { session }
}

/// A new TUI session that loads the checkpoint (`/resume resume snap`) and
/// goes on; returns its session id.
pub fn checkpoint_copy(s: &Sandbox) -> String {
    let before = s.session_files();
    let t = s.tui(&[]);
    turn(&t, "/resume resume snap", "two again");
    turn(&t, "in the checkpoint copy", "Reply to: in the checkpoint copy");
    t.exit("/quit");
    drop(t);
    s.session_files()
        .into_iter()
        .filter(|p| !before.contains(p))
        .find(|p| records(p).iter().any(|r| r.to_string().contains("in the checkpoint copy")))
        .map(|p| records(&p)[0]["sessionId"].as_str().unwrap().to_string())
        .expect("the checkpoint copy's session")
}

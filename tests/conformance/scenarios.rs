//! The archives the suite makes with the real client. Each function drives
//! one sandbox and returns what the assertions need to know about it.

use crate::client::{Sandbox, Tui};

/// A session id that sorts before any random one.
pub const FIRST_ID: &str = "00000000-0000-4000-8000-000000000001";

/// What a `-p` history made.
pub struct PrintSession {
    /// The session every `-p`/`-c`/`-r` step continued.
    pub main: String,
    /// The `--fork-session` copy.
    pub fork: String,
    pub prompts: Vec<String>,
}

/// `-p` with a Bash call, `-c` with parallel calls, `-r` with a Write,
/// `-r --fork-session`, `/rename` twice (`Zeta title`, then `Alpha title`),
/// `-c` again.
pub fn print_session(s: &Sandbox) -> PrintSession {
    let w = s.work.display().to_string();
    let prompts = vec![
        "first: run [[bash: echo one]]".to_string(),
        "second: parallel [[bash: sleep 1; echo a]] [[bash: echo b]]".to_string(),
        format!("third: write [[write: {w}/notes.txt hello]]"),
        "fourth: in the fork".to_string(),
        "fifth: after the renames".to_string(),
    ];
    s.print(&[], &prompts[0]);
    s.print(&["-c"], &prompts[1]);
    let main = s.sessions()[0].clone();
    s.print(&["-r", &main], &prompts[2]);
    // The copy gets the smallest session id, so a tie on "the session that
    // started first" cannot favour the original by luck.
    s.print(&["-r", &main, "--fork-session", "--session-id", FIRST_ID], &prompts[3]);
    let fork = s.sessions().into_iter().find(|x| *x != main).expect("--fork-session wrote a new session");
    s.print(&["-r", &main], "/rename Zeta title");
    s.print(&["-r", &main], "/rename Alpha title");
    s.print(&["-r", &main], &prompts[4]);
    PrintSession { main, fork, prompts }
}

/// Opens the rewind menu (Esc Esc), selects the message whose line shows
/// `text`, picks "Restore conversation", clears the restored prompt.
pub fn rewind_to(t: &Tui, text: &str) {
    rewind_menu(t, text, "Restore conversation");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    t.keys(&["C-u"]);
}

/// Opens the rewind menu (Esc Esc), selects the message whose line shows
/// `text` and picks `option` (2.1.332: "Restore conversation", "Summarize
/// from here", "Summarize up to here", each summary option with an empty
/// "add context" field, submitted as it is).
pub fn rewind_menu(t: &Tui, text: &str, option: &str) {
    t.keys(&["Escape", "Escape"]);
    t.wait_for("Restore the code and/or conversation", 20);
    let selected = |screen: &str| -> Option<String> {
        let menu = screen.split("Restore the code and/or conversation").nth(1)?;
        menu.lines().find(|l| l.trim_start().starts_with('❯')).map(str::to_string)
    };
    for _ in 0..20 {
        let was = selected(&t.screen());
        if was.as_deref().is_some_and(|l| l.contains(text)) {
            break;
        }
        t.keys(&["Up"]);
        // Wait for the selection to move, so that a slow redraw is not taken for one more Up.
        let start = std::time::Instant::now();
        while selected(&t.screen()) == was && start.elapsed() < std::time::Duration::from_secs(2) {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
    t.keys(&["Enter"]);
    let screen = t.wait_for("Restore to the point before you sent this message", 20);
    assert!(screen.contains(text), "the rewind menu did not select {text:?}:\n{screen}");
    let options: Vec<&str> = screen.lines().filter(|l| l.contains(". ")).collect();
    let pos = options.iter().position(|l| l.contains(option)).unwrap_or_else(|| panic!("no {option:?} in:\n{screen}"));
    let first = options.iter().position(|l| l.contains("1. ")).unwrap_or(0);
    for _ in first..pos {
        t.keys(&["Down"]);
    }
    t.keys(&["Enter"]);
}

/// What the TUI history made.
pub struct TuiSession {
    pub main: String,
    pub branch: String,
}

/// A TUI session: a Bash call, two Writes, a rewind to the second prompt
/// with a new prompt, a `!` command, a message typed while a slow call runs,
/// `/rename` twice, a rewind to the message after the `!` command, `/branch`
/// and a prompt in the branch; then the original resumed with `-p`.
pub fn tui_session(s: &Sandbox) -> TuiSession {
    let w = s.work.display().to_string();
    let t = Tui::start(s, &[], &[]);
    let turn = |p: &str, reply: &str| {
        t.type_line(p);
        t.wait_idle(reply, 60);
    };
    turn("first tui prompt [[bash: echo hi]]", "Done with: first tui prompt");
    turn(&format!("second: write [[write: {w}/a.txt version-one]]"), "Done with: second: write");
    turn(&format!("third: overwrite [[write: {w}/a.txt version-two]]"), "Done with: third: overwrite");
    rewind_to(&t, "second: write");
    turn("second again: a different path", "Reply to: second again");
    turn("!echo bang-output", "Reply to: <bash-stdout>bang-output");
    t.type_line("slow one [[bash: sleep 4]]");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    t.type_line("queued while working");
    t.wait_idle("Done with: slow one", 60);
    turn("/rename Zeta title", "Session renamed to: Zeta title");
    turn("/rename Alpha title", "Session renamed to: Alpha title");
    rewind_to(&t, "slow one");
    turn("after the bash rewind", "Reply to: after the bash rewind");
    let main = s.sessions()[0].clone();
    turn("/branch", "Branched session");
    turn("in the branch copy", "Reply to: in the branch copy");
    t.exit();
    let branch = s.sessions().into_iter().find(|x| *x != main).expect("/branch wrote a new session");
    s.print(&["-r", &main], "resumed the original");
    TuiSession { main, branch }
}

/// A TUI session with `respondToBashCommands: false` (a `!` command's output
/// is not sent to the model) that starts with a `!` command, then a prompt, a
/// rewind to that prompt and another prompt; then resumed with `-p` and
/// copied with `--fork-session` (the copy's id sorts first).
pub fn bash_rewind_session(s: &Sandbox) -> String {
    std::fs::write(s.config.join("settings.json"), r#"{"respondToBashCommands": false}"#).unwrap();
    let t = Tui::start(s, &[], &[]);
    t.type_line("!echo first-thing");
    t.wait_idle("first-thing", 60);
    t.type_line("prompt A");
    t.wait_idle("Reply to: prompt A", 60);
    rewind_to(&t, "prompt A");
    t.type_line("prompt B");
    t.wait_idle("Reply to: prompt B", 60);
    t.exit();
    let main = s.sessions()[0].clone();
    s.print(&["-r", &main], "resumed after the rewind");
    s.print(&["-r", &main, "--fork-session", "--session-id", FIRST_ID], "forked after the rewind");
    main
}

/// The prompts of the compaction scenarios: a Bash call, a question, two
/// parallel Bash calls (the first one slow: its result lags), a question.
pub const COMPACTION_PROMPTS: [&str; 4] = [
    "first: run [[bash: echo one]]",
    "second: a question",
    "third: parallel [[bash: sleep 1; echo a]] [[bash: echo b]]",
    "fourth: another question",
];

/// The four turns of [`COMPACTION_PROMPTS`] in the TUI.
fn four_turns(t: &Tui) {
    let turn = |p: &str, reply: &str| {
        t.type_line(p);
        t.wait_idle(reply, 60);
    };
    turn(COMPACTION_PROMPTS[0], "Done with: first");
    turn(COMPACTION_PROMPTS[1], "Reply to: second");
    turn(COMPACTION_PROMPTS[2], "Done with: third");
    turn(COMPACTION_PROMPTS[3], "Reply to: fourth");
}

/// A TUI session: the four turns of [`COMPACTION_PROMPTS`], the rewind menu
/// at the third prompt with `option` ("Summarize from here" or "Summarize up
/// to here"), then `fifth: after the summary`. Returns the session id.
pub fn summarize_session(s: &Sandbox, option: &str) -> String {
    let t = Tui::start(s, &[], &[]);
    four_turns(&t);
    rewind_menu(&t, "third: parallel", option);
    t.wait_for("Summarized conversation", 60);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // "Summarize from here" puts the chosen prompt back into the input.
    t.keys(&["C-u"]);
    t.type_line("fifth: after the summary");
    t.wait_idle("Reply to: fifth", 60);
    t.exit();
    s.sessions()[0].clone()
}

/// A TUI session: the four turns of [`COMPACTION_PROMPTS`], `/compact`, then
/// `fifth: after the compaction`. Returns the session id.
pub fn compact_session(s: &Sandbox) -> String {
    let t = Tui::start(s, &[], &[]);
    four_turns(&t);
    t.type_line("/compact");
    t.wait_idle("Compacted", 60);
    t.type_line("fifth: after the compaction");
    t.wait_idle("Reply to: fifth", 60);
    t.exit();
    s.sessions()[0].clone()
}

/// A TUI session of two prompts, each writing `a.txt` (`version-one`, then
/// `version-two`): the client keeps a backup of each version in
/// `file-history/<session>/` (code restore). Returns the session id.
pub fn two_writes_session(s: &Sandbox) -> String {
    let w = s.work.display().to_string();
    let t = Tui::start(s, &[], &[]);
    // The first start may show a notice that takes the first Enter.
    std::thread::sleep(std::time::Duration::from_secs(2));
    t.type_line(&format!("first: write [[write: {w}/a.txt version-one]]"));
    std::thread::sleep(std::time::Duration::from_secs(3));
    if !t.screen().contains("Done with: first: write") && t.screen().contains("❯ first: write") {
        t.keys(&["Enter"]);
    }
    t.wait_idle("Done with: first: write", 60);
    t.type_line(&format!("second: overwrite [[write: {w}/a.txt version-two]]"));
    t.wait_idle("Done with: second: overwrite", 60);
    t.exit();
    s.sessions()[0].clone()
}

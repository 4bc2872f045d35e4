//! Conformance with the Claude Code people run today: the pinned client
//! (`tests/conformance/package-lock.json`, installed by
//! `scripts/install-claude.sh`) is driven offline against a mock Messages API
//! on loopback, and cctree is checked against what the client wrote and what
//! it reads back (`docs/transcript-format.md`, appendix B).
//!
//! Without the client the suite prints a notice and runs nothing, except where
//! it is required (`CCTREE_REQUIRE_CONFORMANCE=1`, set by `scripts/test.sh`,
//! or `CI`): there it fails. `CCTREE_SKIP_CONFORMANCE=1` skips it with a
//! notice (refused when `CI` is set). `CCTREE_RECORD_FIXTURES=1`
//! records the archives into `tests/fixtures/client-<version>/` (`client::VERSION`).

#![allow(
    unreachable_pub,
    clippy::too_many_lines,
    clippy::cast_possible_truncation,
    clippy::format_push_string,
    reason = "the crate's curated lints (Cargo.toml) hold src/; test helpers are `pub` across test modules and a scenario reads best whole"
)]

mod aider;
mod chat;
mod client;
mod codex;
#[path = "../common/mod.rs"]
mod common;
mod copilot;
mod gate;
mod gemini;
mod http;
mod mock;
mod model;
mod opencode;
mod pi;
mod qwen;
mod record;
mod scenarios;
mod time_travel;
mod tmux;

use std::sync::Mutex;

use serde_json::Value;

use client::{Sandbox, Tui, read_lines};
use mock::Request;
use model::{
    assert_check_clean, assert_site, conversation_of, detail, fork_kinds, junctions, line_to, render, texts_of,
};
use time_travel::{assert_system_context, first_appended, fork, history_of_file, history_of_request, resume};

/// One scenario at a time: the client is heavy and the TUI timing-sensitive.
static SERIAL: Mutex<()> = Mutex::new(());

pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Titles of a conversation's branches.
fn branch_titles(conv: &Value) -> Vec<String> {
    conv["branches"].as_array().unwrap().iter().map(|b| b["title"].as_str().unwrap().to_string()).collect()
}

fn active_title(conv: &Value) -> String {
    let b = conv["branches"].as_array().unwrap().iter().find(|b| b["id"] == conv["active_branch"]).unwrap();
    b["title"].as_str().unwrap().to_string()
}

/// `check` clean, every prompt, queued message and reply on some page, pages
/// within their metadata allowance, a small project index.
fn assert_read_faithfully(s: &Sandbox) {
    assert_check_clean(&s.projects());
    let site = s.root.join("site");
    let pages = render(&s.projects(), &site);
    assert_site(&pages, &texts_of(&s.project()));
    let index = pages
        .iter()
        .find(|(p, _)| p.ends_with(format!("{}/index.html", s.project().file_name().unwrap().to_string_lossy())))
        .unwrap();
    assert!(index.1.len() < 100 * 1024, "the project index is {} bytes", index.1.len());
}

#[test]
fn print_mode_sessions_are_read_as_the_client_wrote_them() {
    let _g = serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "print");
    let r = scenarios::print_session(&s);
    record::save(&s, "print");
    let d = detail(&s.projects());
    assert_eq!(d["conversations"].as_array().unwrap().len(), 1, "{d:#}");
    let c = conversation_of(&d, &r.main);
    assert_eq!(c["title"], "Alpha title", "the last /rename wins");
    assert_eq!(fork_kinds(c), ["cross-session"], "the --fork-session copy goes its own way");
    assert_eq!(junctions(c), [(r.fork.clone(), "branches".to_string())], "only the copy joins the original");
    let main = c["branches"].as_array().unwrap().iter().find(|b| b["fork_point"].is_null()).unwrap();
    assert_eq!(main["id"], c["active_branch"], "the original ran last: its line is active");
    assert_eq!(main["title"], "Alpha title", "the renamed session names the branch it ends on");
    assert!(branch_titles(c).contains(&r.prompts[3]), "the copy's branch: {:?}", branch_titles(c));
    assert_read_faithfully(&s);
}

#[test]
fn tui_sessions_with_rewinds_branch_copies_and_queued_messages_are_read_as_the_client_wrote_them() {
    let _g = serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "tui");
    let r = scenarios::tui_session(&s);
    record::save(&s, "tui");
    let d = detail(&s.projects());
    assert_eq!(d["conversations"].as_array().unwrap().len(), 1, "{d:#}");
    let c = conversation_of(&d, &r.main);
    assert_eq!(c["title"], "Alpha title");
    let mut kinds = fork_kinds(c);
    kinds.sort();
    assert_eq!(kinds, ["cross-session", "rewind", "rewind"], "two in-file rewinds, the /branch copy");
    assert_eq!(junctions(c), [(r.branch.clone(), "branches".to_string())], "only the /branch copy joins");
    assert!(
        branch_titles(c).contains(&"first tui prompt [[bash: echo hi]] (Branch)".to_string()),
        "the copy's line carries the name /branch gave it: {:?}",
        branch_titles(c)
    );
    assert_eq!(active_title(c), "Alpha title", "the original, resumed last, is active");
    assert_read_faithfully(&s);
    abandoned_branch_forks_keep_code_restore(&s, &r.main);
}

/// Forks the abandoned first attempt (two Writes, then rewound) at its last
/// reply, resumes it in the TUI: the rewind menu offers code restore.
fn abandoned_branch_forks_keep_code_restore(s: &Sandbox, main: &str) {
    let lines = read_lines(&s.project().join(format!("{main}.jsonl")));
    let reply = lines
        .iter()
        .find(|v| v["type"] == "assistant" && texts(v).starts_with("Done with: third: overwrite"))
        .expect("the abandoned branch's last reply");
    let f = fork(s, main, reply["uuid"].as_str().unwrap());
    assert!(!f.awaits_reply);
    let linked = s.config.join("file-history").join(&f.id);
    let names: Vec<String> = std::fs::read_dir(&linked)
        .expect("backups linked")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.is_empty(), "backups linked into {}", linked.display());
    let t = Tui::start(s, &["-r", &f.id], &[]);
    t.keys(&["Escape", "Escape"]);
    let menu = t.wait_for("Restore the code and/or conversation", 20);
    let menu = menu.split("Restore the code and/or conversation").nth(1).unwrap().to_string();
    assert!(menu.contains("third: overwrite") && menu.contains("a.txt"), "code changes listed:\n{menu}");
    assert!(!menu.contains("No code restore"), "the fork keeps code restore:\n{menu}");
    t.keys(&["Escape"]);
    t.exit();
}

fn texts(v: &Value) -> String {
    mock::texts(&v["message"]["content"]).concat()
}

#[test]
fn a_rewind_right_after_a_bash_output_in_a_copied_session_is_a_fork() {
    let _g = serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "bash-rewind");
    let main = scenarios::bash_rewind_session(&s);
    record::save(&s, "bash-rewind");
    let d = detail(&s.projects());
    assert_eq!(d["conversations"].as_array().unwrap().len(), 1, "not split into two conversations: {d:#}");
    let c = conversation_of(&d, &main);
    assert_eq!(fork_kinds(c), ["rewind"]);
    let mut titles = branch_titles(c);
    titles.sort();
    assert_eq!(titles, ["prompt A", "prompt B"]);
    assert_eq!(junctions(c), [(scenarios::FIRST_ID.to_string(), "continues".to_string())]);
    assert_read_faithfully(&s);
}

/// The checkpoints of the time-travel test, in the print scenario's archive.
struct Checkpoints {
    root: String,
    lagging_result: String,
    reply: String,
    prompt: String,
    abandoned: String,
}

fn checkpoints(s: &Sandbox, r: &scenarios::PrintSession) -> Checkpoints {
    let lines = read_lines(&s.project().join(format!("{}.jsonl", r.main)));
    let uuid = |v: &Value| v["uuid"].as_str().unwrap().to_string();
    let root = lines.iter().find(|v| v["type"] == "user" && v["parentUuid"].is_null()).map(uuid).unwrap();
    let reply = lines.iter().find(|v| v["type"] == "assistant" && texts(v).starts_with("Done with: second")).unwrap();
    let prompt = lines.iter().find(|v| v["type"] == "user" && texts(v).starts_with("third: write")).map(uuid).unwrap();
    let copy = read_lines(&s.project().join(format!("{}.jsonl", r.fork)));
    let abandoned =
        copy.iter().rev().find(|v| v["type"] == "assistant" && v["sessionId"] == r.fork.as_str()).map(uuid).unwrap();
    Checkpoints {
        root,
        lagging_result: reply["parentUuid"].as_str().unwrap().to_string(),
        reply: uuid(reply),
        prompt,
        abandoned,
    }
}

#[test]
fn cctree_forks_resume_in_the_client_exactly_at_their_checkpoint() {
    let _g = serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "time-travel");
    let r = scenarios::print_session(&s);
    let cp = checkpoints(&s, &r);
    let lagging = read_lines(&s.project().join(format!("{}.jsonl", r.main)));
    let lagging = lagging.iter().find(|v| v["uuid"] == cp.lagging_result.as_str()).unwrap();
    assert!(
        lagging["message"]["content"][0]["tool_use_id"].as_str().unwrap().ends_with("_0"),
        "the first call's result lags"
    );
    let cases = [
        ("reply", r.main.as_str(), &cp.reply),
        ("lagging-result", r.main.as_str(), &cp.lagging_result),
        ("abandoned", r.fork.as_str(), &cp.abandoned),
        ("prompt", r.main.as_str(), &cp.prompt),
        ("root", r.main.as_str(), &cp.root),
    ];
    for (label, session, at) in cases {
        resumes_exactly(&s, label, session, at);
    }
    plain_resume_at_a_prompt_inserts_no_response_requested(&s, &r.main, &cp.prompt);
    let forked = fork(&s, &r.main, &cp.reply);
    resume(&s, &forked, "one turn in the fork");
    s.print(&["-r", &forked.id, "--fork-session"], "a client copy of the fork");
    record::save(&s, "time-travel");
    turns_appended_to_a_fork_stay_its_own(&s, &forked.id);
    let d = detail(&s.projects());
    assert_eq!(d["conversations"].as_array().unwrap().len(), 1, "forks join their conversation: {d:#}");
    let c = conversation_of(&d, &r.main);
    assert_eq!(c["title"], "Alpha title", "no fork renames its source");
    assert_read_faithfully(&s);
}

/// Forks at `at`, resumes with the command cctree printed: the first request
/// is root → the fork's tip, nothing after it but the new prompt (or, when
/// the fork awaits a reply, the client's own "Continue…" note); the client
/// appends under the tip.
fn resumes_exactly(s: &Sandbox, label: &str, session: &str, at: &str) {
    let f = fork(s, session, at);
    assert_eq!(f.json["checkpoint"], at);
    let expected = history_of_file(&s.project().join(format!("{}.jsonl", f.id)));
    let prompt = format!("next after the {label} fork");
    let requests = resume(s, &f, &prompt);
    let first = requests.first().unwrap_or_else(|| panic!("{label}: the client sent no request"));
    assert_system_context(first);
    let mut got = history_of_request(first);
    let appended = first_appended(s, &f);
    assert_eq!(appended["parentUuid"], f.tip.as_str(), "{label}: the client appends under the fork's tip");
    if f.awaits_reply {
        assert!(f.command.starts_with("CLAUDE_CODE_RESUME_INTERRUPTED_TURN=1 claude -r"), "{label}: {}", f.command);
        if let Some((_, last)) = got.last_mut() {
            last.retain(|b| b != "text:Continue from where you left off.");
        }
        assert_eq!(got, expected, "{label}: the first request is exactly root → checkpoint");
        // Claude answers the checkpoint first; after tool results the client
        // records its own meta note "Continue from where you left off." first.
        let continues = appended["type"] == "user" && appended["isMeta"] == true;
        assert!(appended["type"] == "assistant" || continues, "{label}: Claude answers first: {appended}");
    } else {
        let mut want = expected.clone();
        want.push(("user".to_string(), vec![format!("text:{prompt}")]));
        assert_eq!(got, want, "{label}: root → checkpoint, then the new prompt");
        assert_eq!(appended["type"], "user");
    }
}

/// Documents what the client does with a fork that ends on a prompt when it
/// is resumed plainly: it inserts a synthetic "No response requested.".
fn plain_resume_at_a_prompt_inserts_no_response_requested(s: &Sandbox, session: &str, prompt: &str) {
    let f = fork(s, session, prompt);
    assert!(f.awaits_reply);
    let expected = history_of_file(&s.project().join(format!("{}.jsonl", f.id)));
    s.mock.clear();
    s.print(&["-r", &f.id], "plainly resumed");
    let requests = s.mock.message_requests();
    let got = history_of_request(&requests[0]);
    assert!(got.len() > expected.len(), "got {got:#?}\nexpected {expected:#?}");
    assert_eq!(got[..expected.len()], expected[..]);
    assert_eq!(got[expected.len()], ("assistant".to_string(), vec!["text:No response requested.".to_string()]));
    let appended = first_appended(s, &f);
    assert_eq!(appended["message"]["model"], "<synthetic>");
}

/// The turns the client appended to a cctree fork belong to the fork, even
/// once a client copy of the fork repeats them.
fn turns_appended_to_a_fork_stay_its_own(s: &Sandbox, fork_id: &str) {
    let lines = read_lines(&s.project().join(format!("{fork_id}.jsonl")));
    let own: Vec<&str> = lines
        .iter()
        .filter(|v| v["sessionId"] == fork_id && v.get("uuid").is_some())
        .map(|v| v["uuid"].as_str().unwrap())
        .collect();
    assert!(!own.is_empty());
    let p = cctree::project::Project::load(cctree::agent::claude::discover::scan_project(&s.project()).unwrap());
    for u in own {
        let n = p.graph.index[u];
        assert_eq!(&*p.graph.sessions[p.graph.node(n).session].session_id, fork_id, "{u} is the fork's own turn");
    }
}

/// The first request of two forks of `main` at its leaf, resumed with
/// `prompt`: the client's own (`claude -r <main> --fork-session -p …`, the
/// reference) and cctree's (`cctree fork <main> --at <leaf>`, resumed with
/// the command it printed).
struct ForkComparison {
    client: Request,
    cctree: Request,
}

fn fork_like_the_client(s: &Sandbox, main: &str, label: &str) -> ForkComparison {
    let f = fork(s, main, &leaf_of(s, main));
    let prompt = format!("next after the {label} fork");
    s.mock.clear();
    s.print(&["-r", main, "--fork-session"], &prompt);
    let client = s.mock.message_requests().into_iter().next().expect("the client's fork sent a request");
    let cctree = resume(s, &f, &prompt).into_iter().next().expect("cctree's fork sent a request");
    let (c, t) = (history_of_request(&client), history_of_request(&cctree));
    eprintln!(
        "{label}: the client's --fork-session sent {} messages ({} after merging roles), cctree's fork {} ({})",
        client.body["messages"].as_array().map_or(0, Vec::len),
        c.len(),
        cctree.body["messages"].as_array().map_or(0, Vec::len),
        t.len()
    );
    ForkComparison { client, cctree }
}

/// The `system`-role messages of a request: for each, whether it holds any text.
fn system_messages(r: &Request) -> Vec<bool> {
    r.body["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter(|m| m["role"] == "system")
                .map(|m| !mock::texts(&m["content"]).concat().trim().is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// cctree's fork sends what the client's own fork sends, message for message,
/// with the same `system` context (the client sends an empty one after a
/// compaction's summary, its own fork too).
fn assert_forks_alike(label: &str, cmp: &ForkComparison) {
    assert_eq!(system_messages(&cmp.cctree), system_messages(&cmp.client), "{label}: the system context");
    assert_eq!(
        history_of_request(&cmp.cctree),
        history_of_request(&cmp.client),
        "{label}: cctree's fork resumes with the history the client's --fork-session sends"
    );
}

#[test]
fn summarize_up_to_here_is_a_compaction_and_forks_like_the_client() {
    let _g = serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "summarize-up-to");
    let main = scenarios::summarize_session(&s, "Summarize up to here");
    let leaf = leaf_of(&s, &main);
    let cmp = fork_like_the_client(&s, &main, "up-to");
    // A fork among the kept messages: the conversation as it was written.
    let kept = read_lines(&s.project().join(format!("{main}.jsonl")))
        .into_iter()
        .find(|v| v["type"] == "assistant" && texts(v).starts_with("Reply to: fourth"))
        .expect("the kept reply");
    let kept = kept["uuid"].as_str().unwrap().to_string();
    resumes_exactly(&s, "kept-reply", &main, &kept);
    record::save(&s, "summarize-up-to");
    assert_forks_alike("up-to", &cmp);
    let d = detail(&s.projects());
    let c = conversation_of(&d, &main);
    assert!(!fork_kinds(c).contains(&"rewind".to_string()), "no rewind: {:?}", fork_kinds(c));
    assert_eq!((d["compactions_up_to"].as_u64(), d["compactions_kept_messages"].as_u64()), (Some(1), Some(1)));
    let [p1, p2, p3, p4] = scenarios::COMPACTION_PROMPTS;
    assert_eq!(
        prompts_and_summaries(&line_to(&s.project(), &leaf)),
        [
            format!("you: {p1}"),
            format!("you: {p2}"),
            "compacted (up_to)".into(),
            "summary".into(),
            format!("you: {p3}"),
            format!("you: {p4}"),
            "you: fifth: after the summary".into()
        ],
        "the kept turns follow the summary on the line, as the client sends them"
    );
    assert_read_faithfully(&s);
}

#[test]
fn summarize_from_here_is_a_compaction_and_forks_like_the_client() {
    let _g = serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "summarize-from");
    let main = scenarios::summarize_session(&s, "Summarize from here");
    let leaf = leaf_of(&s, &main);
    let cmp = fork_like_the_client(&s, &main, "from");
    record::save(&s, "summarize-from");
    assert_forks_alike("from", &cmp);
    let d = detail(&s.projects());
    let c = conversation_of(&d, &main);
    let mut kinds = fork_kinds(c);
    kinds.sort();
    assert_eq!(kinds, ["compaction", "cross-session"], "the summary goes on beside the turns it summarized");
    assert_eq!((d["compactions_from"].as_u64(), d["compactions_kept_messages"].as_u64()), (Some(1), Some(1)));
    let [p1, p2, p3, _] = scenarios::COMPACTION_PROMPTS;
    assert_eq!(
        prompts_and_summaries(&line_to(&s.project(), &leaf)),
        [
            format!("you: {p1}"),
            format!("you: {p2}"),
            "compacted (from)".into(),
            "summary".into(),
            "you: fifth: after the summary".into()
        ]
    );
    let summarized = c["branches"].as_array().unwrap().iter().find(|b| b["title"] == p3).expect("the summarized turns");
    assert!(!summarized["fork_point"].is_null(), "the summarized turns are a branch beside the line");
    assert_ne!(summarized["id"], c["active_branch"]);
    assert_read_faithfully(&s);
}

#[test]
fn compact_keeps_the_last_reply_after_the_summary_and_forks_like_the_client() {
    let _g = serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "compact");
    let main = scenarios::compact_session(&s);
    let leaf = leaf_of(&s, &main);
    let cmp = fork_like_the_client(&s, &main, "compact");
    record::save(&s, "compact");
    assert_forks_alike("compact", &cmp);
    let d = detail(&s.projects());
    assert_eq!((d["compactions_full"].as_u64(), d["compactions_kept_messages"].as_u64()), (Some(1), Some(1)));
    let line = line_to(&s.project(), &leaf);
    let at = line.iter().position(|l| l == "summary").expect("the summary on the line");
    assert_eq!(line[at - 1], "compacted (full)");
    assert_eq!(
        line[at + 1],
        "claude: Reply to: fourth: another question",
        "the kept reply follows the summary: {line:#?}"
    );
    assert_eq!(line.iter().filter(|l| l.starts_with("claude: Reply to: fourth")).count(), 1, "shown once");
    assert_read_faithfully(&s);
}

/// The leaf a session's `last-prompt` names last.
fn leaf_of(s: &Sandbox, session: &str) -> String {
    read_lines(&s.project().join(format!("{session}.jsonl")))
        .iter()
        .rev()
        .find_map(|v| (v["type"] == "last-prompt").then(|| v["leafUuid"].as_str()).flatten())
        .expect("the session's leaf (last-prompt)")
        .to_string()
}

/// The prompts, compactions and summaries of a line.
fn prompts_and_summaries(line: &[String]) -> Vec<String> {
    line.iter().filter(|l| !l.starts_with("claude: ")).cloned().collect()
}

/// A session the client deleted (its transcript and its backups,
/// as the cleanup does), kept by `cctree sync`, forked from the archive
/// (`cctree fork <id> --at <reply> --projects <archive>`): the fork lands in
/// the client's projects directory and `file-history/`; the command cctree
/// printed, run as printed from another directory, resumes it with exactly
/// root → checkpoint; the rewind menu of the resumed fork restores the code.
#[test]
fn a_fork_from_the_archive_after_the_client_deleted_the_session_resumes_exactly_and_restores_code() {
    let _g = serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "archive-fork");
    let main = scenarios::two_writes_session(&s);
    assert!(s.config.join("file-history").join(&main).is_dir(), "the client kept backups");
    let archive = s.root.join("data/cctree/projects");
    let synced = model::cctree().args(["-q", "sync"]).arg(s.projects()).arg("--to").arg(&archive).output().unwrap();
    assert!(synced.status.success(), "cctree sync: {}", String::from_utf8_lossy(&synced.stderr));
    let archived = archive.join(s.project().file_name().unwrap()).join(format!("{main}.jsonl"));
    let source = read_lines(&archived);
    // The cleanup: the session's transcript, its directory and its backups are gone.
    std::fs::remove_dir_all(s.project()).unwrap();
    std::fs::remove_dir_all(s.config.join("file-history").join(&main)).unwrap();
    let reply = source
        .iter()
        .find(|v| v["type"] == "assistant" && texts(v).starts_with("Done with: second"))
        .expect("the last reply");
    let at = reply["uuid"].as_str().unwrap();
    let out = model::cctree()
        .args(["fork", &main, "--at", at, "--json", "--projects"])
        .arg(&archive)
        .env("HOME", &s.home)
        .env("CLAUDE_CONFIG_DIR", &s.config)
        .output()
        .unwrap();
    assert!(out.status.success(), "cctree fork: {}", String::from_utf8_lossy(&out.stderr));
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = plan["new_session_id"].as_str().unwrap().to_string();
    assert_eq!(plan["path"], s.project().join(format!("{id}.jsonl")).display().to_string());
    assert!(s.config.join("file-history").join(&id).is_dir(), "backups in the client's file-history/");
    let shell = plan["shell"].as_str().unwrap().to_string();
    assert_eq!(shell, format!("cd {} && claude -r {id}", s.work.display()));
    // Root → checkpoint, as the archive holds it (the session has one line).
    let upto = source.iter().position(|v| v["uuid"] == at).unwrap();
    let kept = s.root.join("expected.jsonl");
    let text: String = source[..=upto].iter().map(|v| format!("{v}\n")).collect();
    std::fs::write(&kept, text).unwrap();
    let mut expected = history_of_file(&kept);
    let prompt = "next after the fork from the archive";
    expected.push(("user".to_string(), vec![format!("text:{prompt}")]));
    // The printed command, run as printed by a shell in another directory.
    s.mock.clear();
    let path = format!("{}:{}", bin.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let mut env = s.env();
    env.retain(|(k, _)| k != "PATH");
    let st = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{shell} --allowedTools Bash,Write -p '{prompt}'"))
        .current_dir(&s.root)
        .env_clear()
        .envs(env)
        .env("PATH", path)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(st.status.success(), "`{shell}`: {}", String::from_utf8_lossy(&st.stderr));
    let requests = s.mock.message_requests();
    let first = requests.first().expect("the resumed fork sent a request");
    assert_eq!(history_of_request(first), expected, "root → checkpoint, then the new prompt");
    // Code restore: the rewind menu of the resumed fork puts a.txt back as it was before the second prompt.
    let file = s.work.join("a.txt");
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), "version-two");
    let t = Tui::start(&s, &["-r", &id], &[]);
    scenarios::rewind_menu(&t, "second: overwrite", "Restore code and conversation");
    let start = std::time::Instant::now();
    while std::fs::read_to_string(&file).unwrap_or_default().trim() != "version-one" {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(20),
            "a.txt was not restored: {:?}\n{}",
            std::fs::read_to_string(&file),
            t.screen()
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    t.keys(&["C-u"]);
    t.exit();
}

/// The cleanup clock: the sessions cctree's warning names are the
/// ones the client's own cleanup deletes when it next starts — by the
/// files' modification times, with the default period, and with the period
/// of `$CLAUDE_CONFIG_DIR/settings.json` (not `~/.claude/settings.json`).
#[test]
fn the_clients_cleanup_deletes_exactly_the_sessions_cctree_warns_about() {
    let _g = serial();
    let Some(bin) = client::client() else { return };
    cleanup_case(&bin, "cleanup-default", None, &["a-40-days", "b-31-days"]);
    cleanup_case(&bin, "cleanup-settings", Some(20), &["a-40-days", "b-31-days", "c-29-days"]);
}

/// Sessions last written 40, 31, 29 and 1 days ago; `days` in the client's
/// `settings.json` (and 35 in `~/.claude/settings.json`, which the client
/// does not read with `CLAUDE_CONFIG_DIR` set). cctree's warning names
/// `deleted`, then the client, run with `-p` long enough for its
/// housekeeping (a few seconds after it starts), deletes exactly those.
fn cleanup_case(bin: &std::path::Path, name: &str, days: Option<u64>, deleted: &[&str]) {
    let s = Sandbox::new(bin, name);
    if let Some(d) = days {
        std::fs::write(s.config.join("settings.json"), format!("{{\"cleanupPeriodDays\": {d}}}")).unwrap();
        std::fs::create_dir_all(s.home.join(".claude")).unwrap();
        std::fs::write(s.home.join(".claude/settings.json"), r#"{"cleanupPeriodDays": 35}"#).unwrap();
    }
    let now = std::time::SystemTime::now();
    let dir = s.projects().join("-old-project");
    std::fs::create_dir_all(&dir).unwrap();
    let all = [("a-40-days", 40 * 24), ("b-31-days", 31 * 24), ("c-29-days", 29 * 24), ("d-1-day", 24)];
    for (id, hours) in all {
        let p = dir.join(format!("{id}.jsonl"));
        std::fs::write(&p, format!("{{\"type\":\"user\",\"sessionId\":\"{id}\"}}\n")).unwrap();
        let t = now - std::time::Duration::from_secs(hours * 3600);
        std::fs::File::options().write(true).open(&p).unwrap().set_modified(t).unwrap();
    }
    let warned = model::cctree()
        .args(["render", "-o"])
        .arg(s.root.join("site"))
        .env("HOME", &s.home)
        .env("CLAUDE_CONFIG_DIR", &s.config)
        .env("XDG_DATA_HOME", s.root.join("data"))
        .env_remove("CCTREE_ARCHIVE")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&warned.stderr).into_owned();
    assert!(warned.status.success(), "{err}");
    let named: Vec<&str> = err
        .lines()
        .filter_map(|l| l.strip_prefix("  -old-project/"))
        .map(|l| l.split(".jsonl").next().unwrap())
        .collect();
    assert_eq!(named, deleted, "{name}: cctree's warning\n{err}");
    s.print(&[], "hello, cleanup [[bash: sleep 15]]");
    let left = || {
        let mut v: Vec<String> = std::fs::read_dir(&dir)
            .map(|rd| rd.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        v.sort();
        v
    };
    let kept: Vec<String> =
        all.iter().filter(|(id, _)| !deleted.contains(id)).map(|(id, _)| format!("{id}.jsonl")).collect();
    let start = std::time::Instant::now();
    while left() != kept && start.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    assert_eq!(left(), kept, "{name}: the client deleted exactly what cctree named");
}

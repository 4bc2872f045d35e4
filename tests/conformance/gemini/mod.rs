//! Conformance with Gemini CLI 0.61.0 (`tests/conformance/gemini/package-lock.json`,
//! installed by `scripts/install-gemini.sh` on the pinned Node): the real
//! client driven offline (`-p`, `-r`, and its TUI in tmux) against a mock
//! Gemini API on loopback. These tests pin what the client writes
//! (`docs/transcript-format.md`, appendix D); what cctree makes of it is
//! asserted where the adapter lands. `CCTREE_RECORD_FIXTURES=1` records the
//! archives into `tests/fixtures/gemini-0.61.0/`.

pub mod client;
pub mod mock;
pub mod scenarios;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use client::{Sandbox, load, prompts, records};

fn save(s: &Sandbox, name: &str) {
    crate::record::save_tree(&format!("gemini-{}", client::VERSION), name, &s.gemini_dir, &["projects.json", "tmp"]);
}

fn sha256_hex(s: &str) -> String {
    let out = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            std::io::Write::write_all(c.stdin.as_mut().unwrap(), s.as_bytes())?;
            c.wait_with_output()
        })
        .expect("sha256sum");
    String::from_utf8_lossy(&out.stdout).split_whitespace().next().unwrap_or("").to_string()
}

/// A metadata record: `{sessionId, projectHash, startTime, lastUpdated, kind}`.
fn is_meta(r: &Value) -> bool {
    r["sessionId"].is_string() && r["projectHash"].is_string()
}

/// The session file that holds the conversation `id` (the biggest of the
/// files naming it: resumes leave stubs behind).
fn main_file(s: &Sandbox, id: &str) -> PathBuf {
    let files = s.session_files();
    let names: Vec<String> = files.iter().map(|p| format!("{} {}", p.display(), records(p)[0]["sessionId"])).collect();
    files
        .into_iter()
        .filter(|p| records(p)[0]["sessionId"] == id)
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap_or_else(|| panic!("no session file of {id}: {names:#?}"))
}

fn tool_calls(msgs: &[Value]) -> Vec<&Value> {
    msgs.iter().flat_map(|m| m["toolCalls"].as_array().into_iter().flatten()).collect()
}

/// Every record of a session file is metadata, a message (`id`), a `$set`
/// or a `$rewindTo`.
fn assert_record_kinds(path: &Path) {
    for (i, r) in records(path).iter().enumerate() {
        let known = is_meta(r) || r["id"].is_string() || r["$set"].is_object() || r["$rewindTo"].is_string();
        assert!(known, "{}:{}: {r}", path.display(), i + 1);
        if r["id"].is_string() {
            assert!(["user", "gemini", "info", "error", "warning"].contains(&r["type"].as_str().unwrap_or("")), "{r}");
        }
    }
}

#[test]
fn gemini_headless_resume_and_sub_agent_write_what_the_format_doc_says() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "headless");
    let r = scenarios::headless(&s);
    save(&s, "headless");
    // What cctree makes of it: no fork, the sub-agent an agent.
    let (kinds, agents) = crate::model::agent_archive(&s.gemini_dir, &r.prompts);
    assert_eq!((kinds.len(), agents), (0, 1));
    // Layout: the project's folder is named in projects.json; the metadata
    // carries the sha256 of the working directory.
    let project = s.project();
    assert_eq!(project.file_name().unwrap(), "work", "named after the directory, not hashed");
    assert_eq!(std::fs::read_to_string(project.join(".project_root")).unwrap().trim(), s.work.display().to_string());
    let main = main_file(&s, &r.session);
    let rs = records(&main);
    assert!(is_meta(&rs[0]) && rs[0]["kind"] == "main");
    assert_eq!(rs[0]["projectHash"], sha256_hex(&s.work.display().to_string()));
    let name = main.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("session-") && name.ends_with(&format!("-{}.jsonl", &r.session[..8])), "{name}");
    for f in s.session_files() {
        assert_record_kinds(&f);
    }
    // Resume appends to the same file: a metadata line, then `$set` of the
    // whole history, then the new turn; it also leaves a stub file behind.
    let msgs = load(&main);
    assert_eq!(prompts(&msgs), r.prompts, "{}", main.display());
    let resumes: Vec<usize> =
        rs.iter().enumerate().filter(|(_, x)| x["$set"]["sessionId"] == r.session.as_str()).map(|(i, _)| i).collect();
    assert_eq!(resumes.len(), 3, "each resume writes `$set {{sessionId}}`");
    for &i in &resumes {
        let list = rs[i + 1]["$set"]["messages"].as_array().expect("then `$set {messages}`");
        assert!(list.iter().any(|m| m.to_string().contains(&r.prompts[0])), "the whole history");
    }
    let stubs: Vec<PathBuf> = s.session_files().into_iter().filter(|p| *p != main).collect();
    // Stubs are named by the minute they start in: resumes within one minute
    // share one (or write into the session's own file).
    assert!(stubs.len() <= 3, "at most one stub per resume: {stubs:?}");
    for stub in &stubs {
        assert_eq!(records(stub)[0]["sessionId"], r.session.as_str(), "a stub names the resumed session");
        assert!(records(stub).iter().all(|r| !r["id"].is_string()), "a stub holds no message record");
        assert!(prompts(&load(stub)).is_empty());
    }
    // A reply with tool calls is written twice under one id; the second
    // carries the calls with their results.
    let ids: Vec<&str> = rs.iter().filter(|r| r["type"] == "gemini").filter_map(|r| r["id"].as_str()).collect();
    let twice = ids.iter().filter(|id| ids.iter().filter(|x| x == id).count() == 2).count();
    assert!(twice >= 2, "replies with calls are rewritten: {ids:?}");
    // Tool calls are read from the records: the whole-history `$set` of a
    // resume holds each earlier reply with a call in one of two forms, and
    // runs of the same scenario have written both: the record as written
    // (`toolCalls` with their results), or API form (a `gemini` message whose
    // content holds the `functionCall`, then a `user` message `<id>_response`
    // holding the `functionResponse`) without `toolCalls`.
    let first_set = rs[resumes[0] + 1]["$set"]["messages"].as_array().unwrap();
    let reply = first_set
        .iter()
        .find(|m| m["type"] == "gemini" && m.to_string().contains("functionCall"))
        .expect("a reply with a call");
    if reply["toolCalls"].is_null() {
        let response_id = format!("{}_response", reply["id"].as_str().unwrap());
        assert!(
            first_set.iter().any(|m| m["id"] == response_id.as_str() && m["type"] == "user"),
            "API form: the response is `<reply id>_response`: {first_set:?}"
        );
    } else {
        let calls = reply["toolCalls"].as_array().expect("toolCalls is a list");
        assert!(
            calls.iter().all(|c| c["result"][0]["functionResponse"]["id"] == c["id"]),
            "as written: each call carries its result: {reply}"
        );
    }
    let calls = tool_calls(&rs);
    let names: Vec<&str> = calls.iter().map(|c| c["name"].as_str().unwrap()).collect();
    for n in ["run_shell_command", "write_file", "replace", "read_file", "invoke_agent"] {
        assert!(names.contains(&n), "{n}: {names:?}");
    }
    for c in &calls {
        assert_eq!(c["status"], "success", "{c}");
        assert!(c["result"][0]["functionResponse"]["id"] == c["id"], "a call's result carries its id: {c}");
    }
    let replies: Vec<&Value> = rs.iter().filter(|m| m["type"] == "gemini").collect();
    assert!(
        replies
            .iter()
            .all(|m| m["tokens"]["input"].is_number() && m["tokens"]["total"].is_number() && m["model"].is_string())
    );
    // The sub-agent: chats/<session id>/<agent session id>.jsonl.
    let agents: Vec<PathBuf> = std::fs::read_dir(s.chats().join(&r.session))
        .expect("the sub-agents' folder")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(agents.len(), 1, "{agents:?}");
    let am = records(&agents[0]);
    assert_eq!(am[0]["kind"], "subagent");
    assert_eq!(agents[0].file_stem().unwrap().to_string_lossy(), am[0]["sessionId"].as_str().unwrap());
    let amsgs = load(&agents[0]);
    assert_eq!(prompts(&amsgs), ["count the files [[sh: ls]]"]);
    let anames: Vec<&str> = tool_calls(&amsgs).iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(anames, ["run_shell_command", "complete_task"]);
    // Only the mock's model endpoints, with the fake key.
    for q in s.mock.requests() {
        assert!(q.path.starts_with("/v1beta/models/"), "{} {}", q.method, q.path);
        assert_eq!(q.header("x-goog-api-key"), Some(client::API_KEY));
    }
}

#[test]
fn gemini_tui_rewind_checkpoint_and_compression_write_what_the_format_doc_says() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "tui");
    let r = scenarios::tui(&s);
    save(&s, "tui");
    // What cctree makes of it: the rewind a fork point of its own kind.
    let (kinds, _) = crate::model::agent_archive(&s.gemini_dir, &["two again".to_string(), "three".to_string()]);
    assert_eq!(kinds, ["rewind"]);
    for f in s.session_files() {
        assert_record_kinds(&f);
    }
    let main = main_file(&s, &r.session);
    let rs = records(&main);
    // The rewind: `$rewindTo` names the prompt rewound to, which (with the
    // turns after it) stays earlier in the file.
    let rewinds: Vec<usize> =
        rs.iter().enumerate().filter(|(_, r)| r["$rewindTo"].is_string()).map(|(i, _)| i).collect();
    assert_eq!(rewinds.len(), 1);
    let to = rs[rewinds[0]]["$rewindTo"].as_str().unwrap();
    let target =
        rs[..rewinds[0]].iter().find(|r| r["id"] == to).expect("the rewound-to message is earlier in the file");
    assert_eq!(prompts(std::slice::from_ref(target)), ["two [[write: two.txt second]]"], "it names the prompt itself");
    assert!(rs[..rewinds[0]].iter().any(|r| r.to_string().contains("\"three\"")), "the abandoned turn stays");
    let after_rewind = rs[rewinds[0] + 1]["$set"]["messages"].as_array().expect("then `$set {messages}`");
    assert_eq!(prompts(after_rewind), ["one [[sh: echo one]]"], "the list without the abandoned turns");
    let asked =
        s.main_turns().into_iter().find(|q| mock::prompts_of(q).last().is_some_and(|p| p == "two again")).unwrap();
    assert_eq!(mock::prompts_of(&asked), ["one [[sh: echo one]]", "two again"]);
    assert_eq!(
        mock::shape_of(&asked),
        ["user:text", "model:fC", "user:fR,fR", "model:text", "user:text"],
        "after a rewind the client drops the session context and sends the first turn's function response twice"
    );
    // The checkpoint: `checkpoint-<tag>.json`, the API history at the time.
    let cp: Value = serde_json::from_slice(&std::fs::read(s.project().join("checkpoint-snap.json")).unwrap()).unwrap();
    let texts: Vec<&str> = cp["history"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["role"] == "user")
        .flat_map(|c| c["parts"].as_array().unwrap())
        .filter_map(|p| p["text"].as_str())
        .filter(|t| !t.starts_with('<'))
        .collect();
    assert_eq!(texts, ["one [[sh: echo one]]", "two again"]);
    // Compression: the next request starts from the summary.
    let after =
        s.main_turns().into_iter().find(|q| mock::prompts_of(q).last().is_some_and(|p| p == "after compress")).unwrap();
    let first_text = after.body["contents"][0]["parts"][0]["text"].as_str().unwrap_or("");
    assert!(
        after.body.to_string().contains("Summary of the work so far."),
        "the summary replaces the history: {first_text}"
    );
    assert!(!after.body.to_string().contains("word100 word101"), "the long reply is gone from the request");
    // The compression rewrites the message list (`$set`): the session now
    // loads as the summary and the turns kept; the turns before it are
    // earlier in the file only.
    let msgs = load(&main);
    assert_eq!(prompts(&msgs), ["after long", "after compress", "resumed after the rewind"]);
    let summary = msgs
        .iter()
        .position(|m| m.to_string().contains("Summary of the work so far."))
        .expect("the summary is a message");
    let kept = msgs.iter().position(|m| m.to_string().contains("after long")).unwrap();
    assert!(summary < kept, "the summary comes before the turns kept");
    let long = |r: &Value| r["content"].as_str().is_some_and(|c| c.starts_with("Long reply"));
    assert!(rs.iter().any(long), "the file keeps the long reply");
    assert!(rs.iter().any(|r| r["id"].is_string() && r.to_string().contains("one [[sh: echo one]]")));
    a_truncated_copy_resumes_at_its_checkpoint(&s, &main);
    // The checkpoint, loaded into a new TUI session, goes on there. (A new
    // TUI session has been seen to delete every file of the session resumed
    // before it, stub included; not on every run: appendix D.)
    let copy_id = scenarios::checkpoint_copy(&s);
    save(&s, "checkpoint-copy");
    assert_ne!(copy_id, r.session);
    let copy = main_file(&s, &copy_id);
    assert_eq!(
        prompts(&load(&copy)),
        ["one [[sh: echo one]]", "two again", "in the checkpoint copy"],
        "{}",
        copy.display()
    );
}

/// What `cctree fork` could write for Gemini: a copy of a session's records
/// up to a checkpoint under a new session id and file name. `-r <id>` loads
/// exactly that history and appends to the copy.
fn a_truncated_copy_resumes_at_its_checkpoint(s: &Sandbox, main: &Path) {
    let rs = records(main);
    let reply =
        rs.iter().position(|r| r["type"] == "gemini" && r["content"] == "Done with: one [[sh: echo one]]").unwrap();
    let id = "00000000-0000-4000-8000-00000000cc7e";
    let mut out = String::new();
    for r in &rs[..=reply] {
        let mut r = r.clone();
        if is_meta(&r) {
            r["sessionId"] = json!(id);
        }
        out.push_str(&format!("{r}\n"));
    }
    let path = main.with_file_name(format!("session-2026-01-01T00-00-{}.jsonl", &id[..8]));
    std::fs::write(&path, out).unwrap();
    s.mock.clear();
    s.prompt(&["-r", id], "after the cctree copy");
    let asked = s.main_turns().into_iter().next().expect("a request");
    assert_eq!(mock::prompts_of(&asked), ["one [[sh: echo one]]", "after the cctree copy"]);
    assert!(prompts(&load(&path)).ends_with(&["after the cctree copy".to_string()]), "the client appends to the copy");
    std::fs::remove_file(&path).unwrap();
}

/// `cctree fork` of a Gemini session (its file, then its id in the `cctree
/// sync` archive after the client lost the file): `gemini -r <new id>` sends
/// exactly root → checkpoint, then the new prompt; the original files are
/// never written.
#[test]
fn cctree_fork_of_a_gemini_session_resumes_in_the_client_at_its_checkpoint() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "fork");
    s.prompt(&[], "one [[sh: echo one]]");
    let session = records(&s.session_files()[0])[0]["sessionId"].as_str().unwrap().to_string();
    s.prompt(&["-r", &session], "two");
    s.prompt(&["-r", &session], "three");
    let main = main_file(&s, &session);
    let checkpoint = records(&main)
        .iter()
        .rev()
        .find(|r| r["type"] == "gemini" && r["content"] == "Reply to: two")
        .and_then(|r| r["id"].as_str().map(str::to_string))
        .expect("the reply to `two`");
    let before: Vec<(PathBuf, Vec<u8>)> =
        s.session_files().into_iter().map(|p| (p.clone(), std::fs::read(&p).unwrap())).collect();
    let data = s.root.join("data");
    let fork = |target: &str, at: Option<&str>| -> String {
        let mut c = crate::model::cctree();
        c.arg("fork").arg("--json");
        if let Some(at) = at {
            c.arg(format!("--at={at}"));
        }
        let out = c
            .arg("--")
            .arg(target)
            .env("HOME", &s.home)
            .env("XDG_DATA_HOME", &data)
            .env_remove("CCTREE_ARCHIVE")
            .env_remove("GEMINI_CLI_HOME")
            .output()
            .unwrap();
        assert!(out.status.success(), "cctree fork failed: {}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["checkpoint"], at.unwrap_or(v["checkpoint"].as_str().unwrap()));
        v["new_session_id"].as_str().unwrap().to_string()
    };
    let resume = |id: &str, prompt: &str| -> Vec<String> {
        s.mock.clear();
        s.prompt(&["-r", id], prompt);
        mock::prompts_of(&s.main_turns().into_iter().next().expect("a request"))
    };
    let id = fork(main.to_str().unwrap(), Some(&checkpoint));
    assert_eq!(resume(&id, "after the fork"), ["one [[sh: echo one]]", "two", "after the fork"]);
    for (p, bytes) in &before {
        match std::fs::read(p) {
            Ok(now) => assert_eq!(&now, bytes, "{} was written", p.display()),
            // The client's own clean-up deletes a resume's stub (no message:
            // not resumable) when another session starts; never a file with messages.
            Err(_) => assert!(
                !String::from_utf8_lossy(bytes)
                    .lines()
                    .any(|l| serde_json::from_str::<Value>(l).is_ok_and(|v| v["id"].is_string())),
                "{} (with messages) is gone",
                p.display()
            ),
        }
    }
    // Kept by `cctree sync`, then lost by the client: forked from the archive by id.
    let out = crate::model::cctree()
        .arg("sync")
        .env("HOME", &s.home)
        .env("XDG_DATA_HOME", &data)
        .env("CLAUDE_CONFIG_DIR", s.root.join("no-claude"))
        .env("CODEX_HOME", s.root.join("no-codex"))
        .env_remove("CCTREE_ARCHIVE")
        .env_remove("GEMINI_CLI_HOME")
        .output()
        .unwrap();
    assert!(out.status.success(), "cctree sync failed: {}", String::from_utf8_lossy(&out.stderr));
    for p in s.session_files() {
        std::fs::remove_file(p).unwrap();
    }
    let id = fork(&session, None);
    assert_eq!(
        resume(&id, "after the archive fork"),
        ["one [[sh: echo one]]", "two", "three", "after the archive fork"]
    );
}

//! Conformance with Codex CLI 0.171.0 (`tests/conformance/codex/package-lock.json`,
//! installed by `scripts/install-codex.sh`): the real client driven offline
//! (`codex exec`, and its TUI in tmux) against a mock Responses API on
//! loopback. These tests pin what the client writes (`docs/transcript-format.md`,
//! appendix C); what cctree makes of it is asserted where the adapter lands.
//! `CCTREE_RECORD_FIXTURES=1` records the archives into
//! `tests/fixtures/codex-0.171.0/`.

pub mod client;
pub mod mock;
pub mod scenarios;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use client::{Sandbox, history_id, lines, meta, user_prompts};

fn save(s: &Sandbox, name: &str) {
    crate::record::save_tree(
        &format!("codex-{}", client::VERSION),
        name,
        &s.codex_home,
        &["sessions", "session_index.jsonl"],
    );
}

/// Every line is `{timestamp, ordinal, type, payload}` (a `response_item`
/// mostly has `metadata` too); ordinals count up by one from the file's first; the
/// first line is the `session_meta`.
fn assert_rollout_shape(path: &Path) {
    let ls = lines(path);
    let first = ls[0]["ordinal"].as_u64().unwrap();
    for (i, l) in ls.iter().enumerate() {
        let keys: Vec<&str> = l
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .filter(|k| *k != "metadata" || l["type"] != "response_item")
            .collect();
        assert_eq!(keys, ["ordinal", "payload", "timestamp", "type"], "{}:{}", path.display(), i + 1);
        assert_eq!(l["ordinal"].as_u64().unwrap(), first + i as u64, "{}:{}", path.display(), i + 1);
    }
    let m = meta(path);
    assert_eq!(m["cli_version"], client::VERSION);
    assert_eq!(m["history_mode"], "paginated", "0.171.0 writes paginated history only");
    let name = path.file_name().unwrap().to_string_lossy();
    assert!(name.starts_with("rollout-") && name.ends_with(".jsonl"), "{name}");
    let rel = path.parent().unwrap().strip_prefix(path.ancestors().nth(4).unwrap()).unwrap();
    assert_eq!(rel.components().count(), 3, "sessions/YYYY/MM/DD/: {}", path.display());
}

fn payloads<'a>(ls: &'a [Value], kind: &str, sub: &str) -> Vec<&'a Value> {
    ls.iter()
        .filter(|l| l["type"] == kind && (sub.is_empty() || l["payload"]["type"] == sub))
        .map(|l| &l["payload"])
        .collect()
}

/// The byte offset of the line with `ordinal` in a rollout.
fn offset_of(path: &Path, ordinal: u64) -> u64 {
    let text = std::fs::read_to_string(path).unwrap();
    let mut off = 0;
    for line in text.split_inclusive('\n') {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["ordinal"] == ordinal {
            return off;
        }
        off += line.len() as u64;
    }
    off
}

#[test]
fn codex_exec_resume_fork_and_sub_agent_write_what_the_format_doc_says() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "exec");
    let r = scenarios::exec_session(&s);
    save(&s, "exec");
    // What cctree makes of it: the fork a cross-session fork, the sub-agent an agent.
    let (kinds, agents) = crate::model::agent_archive(&s.codex_home, &r.prompts);
    assert_eq!((kinds, agents), (vec!["cross-session".to_string()], 1));
    for f in s.rollouts() {
        assert_rollout_shape(&f);
    }
    // Resume appends to the thread's one file.
    let main_files = s.files_of(&r.main);
    assert_eq!(main_files.len(), 1, "{main_files:?}");
    let main_file = &main_files[0];
    let own = [0, 1, 2, 4].map(|i| r.prompts[i].clone());
    assert_eq!(user_prompts(main_file), own, "resumed turns are appended to the same file");
    let ls = lines(main_file);
    // Tool calls pair with their outputs by call_id.
    for (call, output) in [("function_call", "function_call_output"), ("custom_tool_call", "custom_tool_call_output")] {
        let calls = payloads(&ls, "response_item", call);
        assert!(!calls.is_empty(), "a {call}");
        for c in calls {
            let out =
                payloads(&ls, "response_item", output).into_iter().filter(|o| o["call_id"] == c["call_id"]).count();
            assert_eq!(out, 1, "one {output} for {c}");
        }
    }
    let names: Vec<&str> =
        payloads(&ls, "response_item", "custom_tool_call").iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["apply_patch", "apply_patch"]);
    assert!(
        payloads(&ls, "response_item", "custom_tool_call")[0]["input"]
            .as_str()
            .unwrap()
            .starts_with("*** Begin Patch\n*** Add File: notes.txt")
    );
    let completed: Vec<&str> =
        payloads(&ls, "event_msg", "item_completed").iter().map(|p| p["item"]["type"].as_str().unwrap()).collect();
    for kind in ["UserMessage", "AgentMessage", "CommandExecution", "FileChange", "SubAgentActivity"] {
        assert!(completed.contains(&kind), "an item_completed {kind}: {completed:?}");
    }
    assert!(
        !payloads(&ls, "event_msg", "token_count").is_empty() && !payloads(&ls, "token_usage_record", "").is_empty()
    );
    for kind in ["task_started", "task_complete"] {
        assert_eq!(payloads(&ls, "event_msg", kind).len(), 4, "one {kind} per turn");
    }

    // `exec fork`: a file of its own that points into the parent's and
    // copies nothing of it; the client rebuilds the history from the parent.
    let fork_files = s.files_of(&r.fork);
    assert_eq!(fork_files.len(), 1);
    let fm = meta(&fork_files[0]);
    assert_eq!(fm["forked_from_id"], r.main.as_str());
    assert_eq!(fm["forked_from_ordinal_exclusive"], r.forked_at);
    assert_eq!(fm["history_base"]["thread_id"], history_id(main_file).as_str());
    assert_eq!(fm["history_base"]["end_ordinal_exclusive"], r.forked_at);
    assert_eq!(fm["history_base"]["end_byte_offset"], offset_of(main_file, r.forked_at as u64));
    assert_eq!(lines(&fork_files[0])[0]["ordinal"], r.forked_at, "the fork numbers on from its base");
    assert_eq!(user_prompts(&fork_files[0]), [r.prompts[3].clone()], "no copy of the parent's turns");
    let asked =
        s.turns().iter().find(|q| mock::prompts_of(q).last() == Some(&r.prompts[3])).map(mock::prompts_of).unwrap();
    assert_eq!(asked, r.prompts[..4], "the fork's first request replays the parent's history");

    // The sub-agent: a thread of its own that copies the parent's history.
    let agent_files = s.files_of(&r.agent);
    assert_eq!(agent_files.len(), 1);
    let al = lines(&agent_files[0]);
    let am = &al[0]["payload"];
    assert_eq!(am["forked_from_id"], r.main.as_str());
    assert_eq!(am["parent_thread_id"], r.main.as_str());
    assert_eq!(am["session_id"], r.main.as_str(), "a sub-agent shares its root's session id");
    assert_eq!(al[1]["type"], "session_meta", "then the parent's session_meta, copied");
    assert_eq!(al[1]["payload"]["id"], r.main.as_str());
    assert_eq!(user_prompts(&agent_files[0]), own, "the parent's prompts, copied before the task");
    let tasks = payloads(&al, "response_item", "agent_message");
    assert!(mock::text_of(tasks[0]).starts_with("Message Type: NEW_TASK"), "{}", tasks[0]);
    assert_eq!(tasks[0]["author"], "/root");
    assert!(
        payloads(&al, "response_item", "function_call").iter().any(|c| c["name"] == "exec_command"),
        "the sub-agent ran its own call"
    );
    let spawn =
        payloads(&ls, "response_item", "function_call").into_iter().find(|c| c["name"] == "spawn_agent").unwrap();
    assert_eq!(spawn["namespace"], "collaboration");
    let activity = payloads(&ls, "event_msg", "item_completed")
        .into_iter()
        .find(|p| p["item"]["type"] == "SubAgentActivity")
        .unwrap();
    assert_eq!(activity["item"]["agent_thread_id"], r.agent.as_str());
    let answers = payloads(&ls, "response_item", "agent_message");
    assert!(
        answers.iter().any(|a| mock::text_of(a).starts_with("Message Type: FINAL_ANSWER")),
        "the sub-agent's answer lands in the parent"
    );

    // Nothing but model turns reached the mock.
    for q in s.mock.requests() {
        assert!(mock::is_turn(&q), "an unexpected request {} {}", q.method, q.path);
    }
    assert!(s.rollouts().iter().all(|f| !std::fs::read_to_string(f).unwrap().contains("thread_rolled_back")));
}

#[test]
fn codex_tui_rollback_compaction_rename_and_fork_write_what_the_format_doc_says() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "tui");
    let r = scenarios::tui_session(&s);
    save(&s, "tui");
    // What cctree makes of it: the rollback a rewind, `/fork` a cross-session fork.
    let typed: Vec<String> = s.rollouts().iter().flat_map(|f| user_prompts(f)).collect();
    let (kinds, _) = crate::model::agent_archive(&s.codex_home, &typed);
    assert_eq!(kinds, ["cross-session", "rewind"]);
    for f in s.rollouts() {
        assert_rollout_shape(&f);
    }
    // The rollback: no marker, a new segment file of the same thread whose
    // history base cuts the first file where the abandoned turn began.
    let files = s.files_of(&r.main);
    assert_eq!(files.len(), 2, "the original file and one segment: {files:?}");
    let (first, segment) = (&files[0], &files[1]);
    assert_eq!(history_id(first), r.main);
    assert!(segment.file_stem().unwrap().to_string_lossy().contains(&format!("{}_", r.main)), "{}", segment.display());
    let sm = meta(segment);
    assert_eq!(sm["id"], r.main.as_str());
    assert_eq!(sm["history_base"]["thread_id"], r.main.as_str());
    let cut = sm["history_base"]["end_ordinal_exclusive"].as_u64().unwrap();
    let fl = lines(first);
    let at = fl.iter().find(|l| l["ordinal"] == cut).expect("the cut is a line of the first file");
    assert_eq!(
        (&at["type"], &at["payload"]["type"]),
        (&json!("event_msg"), &json!("task_started")),
        "the cut is the abandoned turn's start"
    );
    assert_eq!(sm["history_base"]["end_byte_offset"], offset_of(first, cut));
    assert_eq!(lines(segment)[0]["ordinal"], cut);
    assert_eq!(
        user_prompts(first),
        ["one [[sh: echo one]]", "two [[patch: add two.txt second]]", "three"],
        "the abandoned turns stay in the first file"
    );
    for f in s.rollouts() {
        assert!(
            !std::fs::read_to_string(&f).unwrap().contains("thread_rolled_back"),
            "no rollback marker in {}",
            f.display()
        );
    }
    let asked = s
        .turns()
        .into_iter()
        .find(|q| mock::prompts_of(q).last().is_some_and(|p| p == "two again"))
        .map(|q| mock::prompts_of(&q))
        .unwrap();
    assert_eq!(asked, ["one [[sh: echo one]]", "two again"], "the model no longer sees the abandoned turns");

    // The compaction: a `compacted` line in the current segment, user
    // prompts kept verbatim in its replacement history, no new file.
    let sl = lines(segment);
    let compacted = payloads(&sl, "compacted", "");
    assert_eq!(compacted.len(), 1);
    let kept: Vec<String> = compacted[0]["replacement_history"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["role"] == "user")
        .map(mock::text_of)
        .collect();
    assert!(kept.contains(&"one [[sh: echo one]]".to_string()) && kept.contains(&"two again".to_string()), "{kept:?}");
    assert!(
        kept.last().unwrap().contains("Summary of the work so far."),
        "the summary closes the replacement history: {kept:?}"
    );
    assert!(compacted[0]["message"].as_str().unwrap().ends_with("Summary of the work so far."));
    assert_eq!(
        user_prompts(segment),
        ["two again", "after compact", "resumed after the rollback"],
        "resume appends to the thread's latest segment"
    );

    // `/rename` lives in session_index.jsonl only: the last line per id wins.
    let index = lines(&s.codex_home.join("session_index.jsonl"));
    let names: Vec<&str> =
        index.iter().filter(|l| l["id"] == r.main.as_str()).map(|l| l["thread_name"].as_str().unwrap()).collect();
    assert_eq!(names.last(), Some(&"Alpha title"), "{names:?}");
    assert!(names.len() >= 2, "the automatic name first, then the rename: {names:?}");
    assert!(s.rollouts().iter().all(|f| !std::fs::read_to_string(f).unwrap().contains("Alpha title")));

    // `/fork`: a new thread based on the segment (named by its own id).
    let fork_files = s.files_of(&r.fork);
    assert_eq!(fork_files.len(), 1);
    let fm = meta(&fork_files[0]);
    assert_eq!(fm["forked_from_id"], r.main.as_str());
    assert_eq!(
        fm["history_base"]["thread_id"],
        history_id(segment).as_str(),
        "a fork's base names the segment, not the thread"
    );
    assert_eq!(user_prompts(&fork_files[0]), ["in the fork"]);
    let asked = s
        .turns()
        .into_iter()
        .find(|q| mock::prompts_of(q).last().is_some_and(|p| p == "in the fork"))
        .map(|q| mock::prompts_of(&q))
        .unwrap();
    assert_eq!(
        asked,
        ["one [[sh: echo one]]", "two again", "after compact", "in the fork"],
        "compacted history, then the fork's prompt"
    );

    a_one_line_stub_with_a_history_base_resumes_at_its_checkpoint(&s, first, cut);
}

/// What `cctree fork` could write for Codex: one `session_meta` line of a
/// new thread whose `history_base` cuts an existing rollout. `codex exec
/// resume` rebuilds exactly the history before the cut, appends to the
/// stub, and leaves every other file as it was.
fn a_one_line_stub_with_a_history_base_resumes_at_its_checkpoint(s: &Sandbox, base: &Path, cut: u64) {
    let before: Vec<(std::path::PathBuf, Vec<u8>)> =
        s.rollouts().into_iter().map(|p| (p.clone(), std::fs::read(&p).unwrap())).collect();
    let mut m = meta(base);
    let id = "01a00000-0000-7000-8000-00000000cc7e";
    let obj = m.as_object_mut().unwrap();
    obj.insert("id".into(), json!(id));
    obj.insert("session_id".into(), json!(id));
    obj.insert("forked_from_id".into(), json!(history_id(base)));
    obj.insert(
        "history_base".into(),
        json!({"thread_id": history_id(base), "end_ordinal_exclusive": cut, "end_byte_offset": offset_of(base, cut)}),
    );
    let line = json!({"timestamp": "2026-01-01T00:00:00.000Z", "ordinal": cut, "type": "session_meta", "payload": m});
    let stub = base.parent().unwrap().join(format!("rollout-2026-01-01T00-00-00-{id}.jsonl"));
    std::fs::write(&stub, format!("{line}\n")).unwrap();
    s.mock.clear();
    s.exec(&["resume", id], "after the cctree stub");
    let asked = mock::prompts_of(s.turns().first().expect("a request"));
    assert_eq!(asked, ["one [[sh: echo one]]", "after the cctree stub"], "exactly the history before the cut");
    assert_eq!(user_prompts(&stub), ["after the cctree stub"], "the client appends to the stub");
    for (p, bytes) in before {
        assert_eq!(std::fs::read(&p).unwrap(), bytes, "{} untouched", p.display());
    }
    std::fs::remove_file(&stub).unwrap();
}

/// `cctree fork` of a Codex thread (at a checkpoint of its rollout, then at
/// its end by id from the `cctree sync` archive after the client lost every
/// rollout): `codex exec resume <new id>` sends exactly root → checkpoint,
/// then the new prompt; the original rollouts are never written.
#[test]
fn cctree_fork_of_a_codex_thread_resumes_in_the_client_at_its_checkpoint() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "fork");
    s.exec(&[], "one [[sh: echo one]]");
    let file = s.rollouts()[0].clone();
    let main = history_id(&file);
    s.exec(&["resume", &main], "two");
    s.exec(&["resume", &main], "three");
    assert_eq!(s.rollouts(), std::slice::from_ref(&file), "resumes append to the one file");
    let reply = lines(&file)
        .into_iter()
        .find(|l| {
            l["type"] == "response_item"
                && l["payload"]["role"] == "assistant"
                && mock::text_of(&l["payload"]).contains("Reply to: two")
        })
        .expect("the reply to `two`");
    let at = format!("{main}:{}", reply["ordinal"]);
    let before: Vec<(PathBuf, Vec<u8>)> =
        s.rollouts().into_iter().map(|p| (p.clone(), std::fs::read(&p).unwrap())).collect();
    let data = s.root.join("data");
    let cctree = |args: &[&str]| -> Value {
        let out = crate::model::cctree()
            .args(args)
            .env("HOME", &s.home)
            .env("CODEX_HOME", &s.codex_home)
            .env("XDG_DATA_HOME", &data)
            .env("CLAUDE_CONFIG_DIR", s.root.join("no-claude"))
            .env("GEMINI_CLI_HOME", s.root.join("no-gemini"))
            .env_remove("CCTREE_ARCHIVE")
            .output()
            .unwrap();
        assert!(out.status.success(), "cctree {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let resume = |id: &str, prompt: &str| -> Vec<String> {
        s.mock.clear();
        s.exec(&["resume", id], prompt);
        mock::prompts_of(s.turns().first().expect("a request"))
    };
    let fork = cctree(&["fork", "--json", &format!("--at={at}"), "--", file.to_str().unwrap()]);
    let id = fork["new_session_id"].as_str().unwrap().to_string();
    assert_eq!(resume(&id, "after the fork"), ["one [[sh: echo one]]", "two", "after the fork"]);
    for (p, bytes) in &before {
        assert_eq!(&std::fs::read(p).unwrap(), bytes, "{} was written", p.display());
    }
    // Kept by `cctree sync`, then lost by the client: forked by id, at the end of the thread.
    cctree(&["sync", "--json"]);
    for p in s.rollouts() {
        std::fs::remove_file(p).unwrap();
    }
    let fork = cctree(&["fork", "--json", "--", &main]);
    assert_eq!(fork["restored"].as_array().map(Vec::len), Some(1), "the base rollout is restored: {fork}");
    let id = fork["new_session_id"].as_str().unwrap().to_string();
    assert_eq!(
        resume(&id, "after the archive fork"),
        ["one [[sh: echo one]]", "two", "three", "after the archive fork"]
    );
}

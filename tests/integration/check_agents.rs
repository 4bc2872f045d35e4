//! `cctree check` on Codex CLI's and Gemini CLI's own invariants:
//! the archives the real clients wrote check clean, and each invariant
//! broken in a copy of one is one finding naming its file and line.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::agents::{codex, copy_tree, files_under, gemini};
use crate::support::cctree;

/// `check --json` of `dir`: (kind, file name, line, message) of each finding.
fn findings(dir: &Path) -> Vec<(String, String, u64, String)> {
    let o = cctree().arg("check").arg("--json").arg(dir).output().unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{o:?}"));
    let out: Vec<_> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let file = Path::new(f["file"].as_str().unwrap()).file_name().unwrap().to_string_lossy().to_string();
            (
                f["kind"].as_str().unwrap().to_string(),
                file,
                f["line"].as_u64().unwrap(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(o.status.code(), Some(if out.is_empty() { 0 } else { 1 }), "{out:?}");
    out
}

fn kinds_at(found: &[(String, String, u64, String)]) -> Vec<(&str, &str, u64)> {
    let mut v: Vec<_> = found.iter().map(|(k, f, l, _)| (k.as_str(), f.as_str(), *l)).collect();
    v.sort_unstable();
    v
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap().lines().map(str::to_string).collect()
}

fn write(path: &Path, lines: &[String]) {
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

/// The copy of `name`'s file whose name holds `part`.
fn file_with(dir: &Path, part: &str) -> PathBuf {
    files_under(dir, "jsonl").into_iter().find(|f| f.to_string_lossy().contains(part)).unwrap()
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().to_string()
}

#[test]
fn the_real_clients_archives_check_clean() {
    for dir in [codex("exec"), codex("tui"), gemini("headless"), gemini("tui"), gemini("checkpoint-copy")] {
        assert_eq!(findings(&dir), vec![], "{}", dir.display());
    }
}

#[test]
fn codex_rollouts_breaking_their_invariants_are_each_one_finding() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("codex");
    copy_tree(&codex("exec"), &dir);
    // The parent thread: a call dropped (its output answers nothing), its
    // sub-agent's start dropped, a line's time garbled, rollbacks past the
    // start and without a count.
    let parent = file_with(&dir, "77ea-7351");
    let mut l = lines(&parent);
    let call = l.iter().position(|x| x.contains(r#""type":"function_call","#)).unwrap();
    l.remove(call);
    l.retain(|x| !x.contains("SubAgentActivity"));
    let mut third: Value = serde_json::from_str(&l[2]).unwrap();
    third["timestamp"] = json!("yesterday");
    l[2] = third.to_string();
    let rollback = |n: Value| {
        json!({"timestamp": "2026-11-27T02:00:00Z", "type": "event_msg", "payload": {"type": "thread_rolled_back", "num_turns": n}}).to_string()
    };
    l.push(rollback(json!(2)));
    l.push(rollback(json!(9)));
    l.push(rollback(json!("all")));
    write(&parent, &l);
    let n = l.len() as u64;
    let output = 1 + l.iter().position(|x| x.contains(r#""type":"function_call_output""#)).unwrap() as u64;
    // The fork: its cut a byte off, and naming another thread.
    let fork = file_with(&dir, "7ca6-7102");
    let mut l = lines(&fork);
    let mut meta: Value = serde_json::from_str(&l[0]).unwrap();
    meta["payload"]["history_base"]["end_byte_offset"] =
        json!(meta["payload"]["history_base"]["end_byte_offset"].as_u64().unwrap() + 1);
    meta["payload"]["forked_from_id"] = json!("01a21ab7-0000-7000-8000-000000000000");
    l[0] = meta.to_string();
    write(&fork, &l);
    let found = findings(&dir);
    let (p, f, a) = (name(&parent), name(&fork), name(&file_with(&dir, "7ec7-7201")));
    assert_eq!(
        kinds_at(&found),
        {
            let mut want = vec![
                ("codex-bad-timestamp", p.as_str(), 3),
                ("codex-output-without-call", p.as_str(), output),
                ("codex-rollback-too-far", p.as_str(), n - 1),
                ("codex-rollback-too-far", p.as_str(), n),
                ("codex-unresolved-thread", a.as_str(), 1),
                ("codex-unresolved-thread", f.as_str(), 1),
                ("codex-unresolved-thread", f.as_str(), 1),
            ];
            want.sort_unstable();
            want
        },
        "{found:#?}"
    );
    let says = |kind: &str, line: u64, words: &str| {
        assert!(
            found.iter().any(|(k, _, l, m)| k == kind && *l == line && m.contains(words)),
            "{kind} {line} {words}: {found:#?}"
        );
    };
    says("codex-rollback-too-far", n - 1, "rolls back 9 turns, but only 2 typed prompts are before it");
    says("codex-rollback-too-far", n, "no whole `num_turns`");
    says("codex-unresolved-thread", 1, "no line of its rollout starts at byte");
    says("codex-unresolved-thread", 1, "`forked_from_id` is 01a21ab7-0000-7000-8000-000000000000");
    says("codex-unresolved-thread", 1, "records starting no sub-agent");
    // The output answering nothing is one finding, not also a P3 one.
    assert!(!found.iter().any(|(k, ..)| k.starts_with("P3")), "{found:#?}");
}

#[test]
fn a_codex_rollout_not_starting_with_its_session_meta_is_a_finding() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("codex");
    copy_tree(&codex("tui"), &dir);
    let first = file_with(&dir, "T01-56-04-");
    let mut l = lines(&first);
    l.swap(0, 1);
    write(&first, &l);
    let found = findings(&dir);
    assert!(
        found.iter().any(|(k, f, line, _)| k == "codex-session-meta-not-first" && *f == name(&first) && *line == 1),
        "{found:#?}"
    );
}

#[test]
fn gemini_session_files_breaking_their_invariants_are_each_one_finding() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("gemini");
    copy_tree(&gemini("tui"), &dir);
    let file = file_with(&dir, "T01-56-");
    let mut l = lines(&file);
    let records: Vec<Value> = l.iter().map(|x| serde_json::from_str(x).unwrap()).collect();
    let ids: Vec<&str> = records.iter().filter(|r| r["type"].is_string()).filter_map(|r| r["id"].as_str()).collect();
    let last = ids.last().unwrap().to_string();
    let mut user = records.iter().find(|r| r["type"] == "user").unwrap().clone();
    user["type"] = json!("gemini");
    let start = l.len() as u64 + 1;
    l.extend([
        json!({"$rewindTo": "no-such-id"}),
        json!({"$rewindTo": last}),
        json!({"$rewindTo": 7}),
        json!({"$set": {"messages": 5}}),
        json!({"$set": [1]}),
        json!({"$set": {"sessionId": 3}}),
        // Malformed (a record without id), and an id listed twice: not a finding, the client writes that.
        json!({"$set": {"messages": [{"id": "a", "type": "user", "content": "x"}, {"id": "a", "type": "user", "content": "y"}, {"type": "user"}]}}),
        user,
    ].iter().map(Value::to_string));
    // The metadata line moved after the first record.
    l.swap(0, 1);
    write(&file, &l);
    let found = findings(&dir);
    let f = name(&file);
    let at = |i: u64| start + i;
    let mut want = vec![
        ("gemini-metadata-not-first", f.as_str(), 1),
        ("gemini-rewind-to-unknown", f.as_str(), at(0)),
        ("gemini-rewind-to-unknown", f.as_str(), at(1)),
        ("gemini-rewind-to-unknown", f.as_str(), at(2)),
        ("gemini-malformed-set", f.as_str(), at(3)),
        ("gemini-malformed-set", f.as_str(), at(4)),
        ("gemini-malformed-set", f.as_str(), at(5)),
        ("gemini-malformed-set", f.as_str(), at(6)),
        ("gemini-duplicate-id", f.as_str(), at(7)),
    ];
    want.sort_unstable();
    assert_eq!(kinds_at(&found), want, "{found:#?}");
    let says = |line: u64, words: &str| {
        assert!(found.iter().any(|(_, _, l, m)| *l == line && m.contains(words)), "{line} {words}: {found:#?}");
    };
    says(at(0), "names no-such-id, which no earlier line of the file lists");
    says(at(1), &format!("names {last}, which line"));
    says(at(2), "names no message id");
    says(at(3), "sets `messages` to a number");
    says(at(4), "is a list, not an object");
    says(at(5), "sets `sessionId` to a number");
    says(at(6), "(number 3) without a string `id` and `type`");
    says(at(7), "names a `user` record");
}

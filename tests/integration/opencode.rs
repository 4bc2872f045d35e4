//! OpenCode: the databases OpenCode 1.18.33 wrote
//! (`tests/fixtures/opencode-1.18.33/`, recorded offline with the real
//! client) and the JSON storage of older releases (`opencode-1.1.65/`,
//! `opencode-json/`), read into the same graph and pages as every agent's:
//! forks found from their copied messages, `/undo`'s removed turns from the
//! event log, sub-agents' sessions, compactions; the input never written.

use std::path::{Path, PathBuf};

use cctree::stats::{ConversationDetail, ProjectDetail};
use rusqlite::Connection;

use crate::common::site_text;
use crate::support::{cctree, report};

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// A copy of the fixture folder `name` in a temporary folder (SQLite may
/// read a database only where it may create its index: never in the
/// repository).
pub fn copied(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let to = tmp.path().join(Path::new(name).file_name().unwrap());
    copy_dir(&fixture(name), &to);
    (tmp, to)
}

fn copy_dir(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from).into_iter().flatten() {
        let rel = e.path().strip_prefix(from).unwrap();
        let dest = to.join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// Every file under `dir` with its bytes.
pub fn listing(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut v: Vec<(PathBuf, Vec<u8>)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .map(|e| (e.path().strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(e.path()).unwrap_or_default()))
        .collect();
    v.sort();
    v
}

fn detail(input: &Path) -> ProjectDetail {
    let mut r = report(&[input.to_path_buf()]);
    let mut d = r.projects_detail.take().unwrap();
    assert_eq!(d.len(), 1, "one project in {}", input.display());
    d.remove(0)
}

fn only(d: &ProjectDetail) -> &ConversationDetail {
    assert_eq!(d.conversations.len(), 1, "{:#?}", d.conversations);
    &d.conversations[0]
}

/// A read-only look at a copy of a fixture's database (through a copy of
/// its own, so the copy the test reads stays as it was).
fn query<T>(dir: &Path, sql: &str, row: impl Fn(&rusqlite::Row<'_>) -> rusqlite::Result<T>) -> Vec<T> {
    let tmp = tempfile::tempdir().unwrap();
    for f in ["opencode.db", "opencode.db-wal"] {
        if dir.join(f).exists() {
            std::fs::copy(dir.join(f), tmp.path().join(f)).unwrap();
        }
    }
    let c = Connection::open(tmp.path().join("opencode.db")).unwrap();
    let mut stmt = c.prepare(sql).unwrap();
    stmt.query_map([], row).unwrap().map(Result::unwrap).collect()
}

/// Each fork session's first message of its own (the first not older than
/// the session): what a fork point's child must be.
fn first_own(dir: &Path, title_like: &str) -> Vec<String> {
    query(
        dir,
        &format!(
            "SELECT (SELECT m.id FROM message m WHERE m.session_id = s.id AND m.time_created >= s.time_created \
             ORDER BY m.time_created, m.id LIMIT 1) FROM session s WHERE s.title LIKE '{title_like}' ORDER BY s.time_created"
        ),
        |r| r.get(0),
    )
}

#[test]
fn run_forks_are_found_from_their_copied_messages_not_their_titles() {
    let (_tmp, run) = copied("opencode-1.18.33/run");
    let d = detail(&run);
    assert!(d.name.starts_with("opencode-") && d.name.ends_with("-run-work"), "{}", d.name);
    let c = only(&d);
    // Every main session is one conversation; the sub-agent's is not.
    assert_eq!(c.sessions.len(), 4, "{:?}", c.sessions);
    // `run --fork` (fork #1) after "just a question", and the fork written
    // as an export file and imported (`(cctree fork)`) after the `write`
    // step: cross-session fork points whose new child is the fork's first
    // message of its own.
    assert_eq!(c.fork_points.len(), 2, "{:#?}", c.fork_points);
    assert!(c.fork_points.iter().all(|f| f.kind == "cross-session"));
    let children: Vec<&String> = c.fork_points.iter().flat_map(|f| &f.children).collect();
    for own in first_own(&run, "%(fork #1)").into_iter().chain(first_own(&run, "%(cctree fork)")) {
        assert!(children.contains(&&own), "{own} starts a branch: {:#?}", c.fork_points);
    }
    // The fork of the fork copied fork #1 whole and went on: no new branch.
    let fork2 = query(&run, "SELECT id FROM session WHERE title LIKE '%(fork #2)'", |r| r.get::<_, String>(0));
    assert!(c.junctions.iter().any(|j| j.session == fork2[0] && j.kind == "continues"), "{:#?}", c.junctions);
    assert_eq!(c.branches.len(), 3, "{:#?}", c.branches);
    // The copies are not shown twice: 11 original messages, 2 of the
    // import's, 2 of fork #1, 2 of fork #2.
    assert_eq!(c.messages, 17);
    // The sub-agent's session is an agent of the `task` call that made it.
    assert_eq!(d.agents.len(), 1, "{:#?}", d.agents);
    let child = query(&run, "SELECT id FROM session WHERE parent_id IS NOT NULL", |r| r.get::<_, String>(0));
    assert_eq!(d.agents[0].id, child[0]);
    assert!(d.agents[0].spawn_tool_use.is_some() && d.agents[0].spawn_result.is_some(), "{:#?}", d.agents);
}

#[test]
fn a_fork_is_its_copied_prefix_whatever_its_title_says() {
    let (_tmp, run) = copied("opencode-1.18.33/run");
    // Renamed: the same forks. A session named like a fork copying nothing:
    // no fork.
    let c = Connection::open(run.join("opencode.db")).unwrap();
    c.execute_batch(
        "UPDATE session SET title = 'renamed ' || id; \
         UPDATE session SET title = 'lookalike (fork #1)' WHERE parent_id IS NOT NULL;",
    )
    .unwrap();
    drop(c);
    let d = detail(&run);
    let conv = only(&d);
    assert_eq!(conv.fork_points.len(), 2, "{:#?}", conv.fork_points);
    // Changing one copied message's text makes that fork a conversation of its own.
    let c = Connection::open(run.join("opencode.db")).unwrap();
    let fork: String = c
        .query_row("SELECT id FROM session WHERE id IN (SELECT session_id FROM message) ORDER BY time_created LIMIT 1 OFFSET 1", [], |r| r.get(0))
        .unwrap();
    c.execute(
        "UPDATE part SET data = json_set(data, '$.text', 'edited') WHERE id = (SELECT p.id FROM part p JOIN message m \
         ON p.message_id = m.id WHERE m.session_id = ?1 AND json_extract(p.data, '$.type') = 'text' ORDER BY m.time_created LIMIT 1)",
        [&fork],
    )
    .unwrap();
    drop(c);
    let mut r = report(std::slice::from_ref(&run));
    let d = r.projects_detail.take().unwrap().remove(0);
    assert_eq!(d.conversations.len(), 2, "{:#?}", d.conversations);
}

#[test]
fn undo_then_a_prompt_is_a_rewind_whose_removed_turn_the_event_log_holds() {
    let (_tmp, tui) = copied("opencode-1.18.33/tui");
    // The turn `/undo` took back and the next prompt deleted: only in `event`.
    let removed = query(
        &tui,
        "SELECT json_extract(data, '$.messageID') FROM event WHERE type = 'message.removed.1' ORDER BY seq",
        |r| r.get::<_, String>(0),
    );
    assert_eq!(removed.len(), 2);
    let in_tables = query(
        &tui,
        "SELECT count(*) FROM message WHERE id IN (SELECT json_extract(data, '$.messageID') FROM event WHERE type = 'message.removed.1')",
        |r| r.get::<_, i64>(0),
    );
    assert_eq!(in_tables, [0]);
    let d = detail(&tui);
    let c = only(&d);
    // One fork point after "second prompt"'s reply: the removed "third
    // prompt" (a rewind), "after undo" that replaced it, and the TUI's
    // `/fork` at "after undo" (the messages before it copied).
    assert_eq!(c.fork_points.len(), 1, "{:#?}", c.fork_points);
    let children = &c.fork_points[0].children;
    assert_eq!(children.len(), 3, "{children:?}");
    assert!(children.contains(&removed[0]), "the removed prompt starts a branch: {children:?}");
    let titles: Vec<&str> = c.branches.iter().map(|b| b.title.as_str()).collect();
    for t in ["after undo", "in the fork"] {
        assert!(titles.contains(&t), "{titles:?}");
    }
    // Its reply too, at the end of a branch of its own.
    assert!(c.branches.iter().any(|b| b.leaf == removed[1]), "{:#?}", c.branches);
    // `/compact`: a compaction; the sub-agent linked to its call.
    assert_eq!(d.counts.compactions, 1);
    assert_eq!(d.agents.len(), 1);
    assert!(d.agents[0].spawn_tool_use.is_some());
    // The fork's pending `/undo`: its reverted messages are still there.
    assert!(c.messages >= 19, "{}", c.messages);
}

#[test]
fn pages_search_and_the_archive_index_show_opencode_and_the_input_is_never_written() {
    let (_a, run) = copied("opencode-1.18.33/run");
    let (_b, tui) = copied("opencode-1.18.33/tui");
    let before = (listing(&run), listing(&tui));
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    // With Claude Code's example: the archive index groups projects by agent.
    let example = crate::support::example_archive();
    let o = cctree().arg("render").arg(&run).arg(&tui).arg(&example).arg("-o").arg(&site).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!((listing(&run), listing(&tui)), before, "no file made or changed beside the databases");
    let text = site_text(&site);
    for said in [
        "RUN: echo one > a.txt",
        "Reply to: just a question",
        "resumed the imported fork",
        "third prompt",
        "after undo",
        "in the fork",
        "Reply to: after compact",
        "Summary of the conversation so far (mock).",
        "echo sub",
    ] {
        assert!(text.contains(said), "{said:?} on a page");
    }
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.contains("<h2 class=\"agent\">OpenCode</h2>"), "OpenCode on the archive index");
    // The mock's model is in no price table: its replies' price is unknown,
    // their tokens counted.
    assert!(text.contains("price unknown"), "no cost guessed");
    let shards: String = walkdir::WalkDir::new(site.join("search/t"))
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(shards.contains("\"undone\""), "a word of the TUI session in the search index");
}

#[test]
fn a_known_model_is_priced_and_an_unknown_one_is_not() {
    let (_tmp, run) = copied("opencode-1.18.33/run");
    let c = Connection::open(run.join("opencode.db")).unwrap();
    c.execute_batch(
        "UPDATE message SET data = json_set(data, '$.modelID', 'claude-sonnet-4-5', '$.providerID', 'anthropic') \
         WHERE json_extract(data, '$.role') = 'assistant' AND session_id = (SELECT id FROM session ORDER BY time_created LIMIT 1)",
    )
    .unwrap();
    drop(c);
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let o = cctree().arg("render").arg(&run).arg("-o").arg(&site).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = site_text(&site);
    assert!(text.contains("sonnet-4-5"), "the model named");
    assert!(text.contains('$'), "a cost in dollars for the priced model");
    assert!(text.contains("price unknown"), "the forks' mock model still unpriced");
}

#[test]
fn the_json_storage_of_older_releases_is_read_like_the_database() {
    for (name, convs, forks) in [("opencode-1.1.65/run", 1, 0), ("opencode-json", 1, 1)] {
        let (_tmp, dir) = copied(name);
        let before = listing(&dir);
        let d = detail(&dir);
        assert_eq!(d.conversations.len(), convs, "{name}: {:#?}", d.conversations);
        let c = &d.conversations[0];
        assert_eq!(c.fork_points.len(), forks, "{name}: {:#?}", c.fork_points);
        assert_eq!(d.agents.len(), 1, "{name}: the sub-agent");
        assert!(d.agents[0].spawn_tool_use.is_some(), "{name}: {:#?}", d.agents);
        assert_eq!(listing(&dir), before);
    }
    // The hand-made storage: a compaction, and a fork of the first turn.
    let (_tmp, dir) = copied("opencode-json");
    let d = detail(&dir);
    assert_eq!(d.counts.compactions, 1);
    assert_eq!(d.conversations[0].fork_points[0].kind, "cross-session");
}

/// A database holding the records of the JSON storage `storage` (as
/// OpenCode 1.2 copied them at its first start), written into `db`.
fn database_of(storage: &Path, db: &Path) {
    let c = Connection::open(db).unwrap();
    c.execute_batch(
        "CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL); \
         CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT, \
           directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT, revert TEXT, time_created INTEGER NOT NULL); \
         CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, data TEXT NOT NULL); \
         CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, data TEXT NOT NULL);",
    )
    .unwrap();
    let json = |p: &Path| -> serde_json::Value { serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap() };
    let files = |d: &str| crate::agents::files_under(&storage.join(d), "json");
    for p in files("project") {
        let v = json(&p);
        c.execute("INSERT INTO project VALUES (?1, ?2)", [v["id"].as_str(), v["worktree"].as_str()]).unwrap();
    }
    for p in files("session") {
        let v = json(&p);
        let s = |k: &str| v[k].as_str().map(str::to_string);
        c.execute(
            "INSERT INTO session VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL, ?8)",
            rusqlite::params![
                s("id"),
                s("projectID"),
                s("parentID"),
                s("slug"),
                s("directory"),
                s("title"),
                s("version"),
                v["time"]["created"].as_i64()
            ],
        )
        .unwrap();
    }
    for p in files("message") {
        let mut v = json(&p);
        let (id, session) = (v["id"].as_str().unwrap().to_string(), v["sessionID"].as_str().unwrap().to_string());
        let t = v["time"]["created"].as_i64();
        v.as_object_mut().unwrap().retain(|k, _| k != "id" && k != "sessionID");
        c.execute("INSERT INTO message VALUES (?1, ?2, ?3, ?4)", rusqlite::params![id, session, t, v.to_string()])
            .unwrap();
    }
    for p in files("part") {
        let mut v = json(&p);
        let s = |k: &str| v[k].as_str().unwrap().to_string();
        let (id, m, session) = (s("id"), s("messageID"), s("sessionID"));
        v.as_object_mut().unwrap().retain(|k, _| !matches!(k.as_str(), "id" | "messageID" | "sessionID"));
        c.execute("INSERT INTO part VALUES (?1, ?2, ?3, ?4)", rusqlite::params![id, m, session, v.to_string()])
            .unwrap();
    }
}

#[test]
fn a_database_and_the_storage_it_was_copied_from_are_read_each_message_once() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("opencode");
    copy_dir(&fixture("opencode-1.1.65/run"), &dir);
    let alone = detail(&dir);
    // OpenCode 1.2 copied `storage/` into its database and left the files.
    database_of(&dir.join("storage"), &dir.join("opencode.db"));
    let both = detail(&dir);
    assert_eq!(both.counts.files, 2, "the database and the storage, one project");
    assert_eq!(both.conversations.len(), alone.conversations.len());
    assert_eq!(both.conversations[0].messages, alone.conversations[0].messages, "each message once");
    assert_eq!(both.conversations[0].fork_points.len(), alone.conversations[0].fork_points.len());
    assert_eq!(both.agents.len(), 1);
}

/// `cctree fork --json` of an OpenCode session, cctree's files under `arch`.
fn fork_json(args: &[&str], data: &Path, arch: &Path) -> (bool, serde_json::Value, String) {
    let o = cctree()
        .args(["fork", "--json", "--projects"])
        .arg(data)
        .args(args)
        .env("CCTREE_ARCHIVE", arch.join("projects"))
        .output()
        .unwrap();
    let v = serde_json::from_slice(&o.stdout).unwrap_or(serde_json::Value::Null);
    (o.status.success(), v, String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn a_fork_is_written_for_opencode_import_never_into_the_database() {
    let (_tmp, run) = copied("opencode-1.18.33/run");
    let arch = tempfile::tempdir().unwrap();
    let before = listing(&run);
    let main = query(&run, "SELECT id FROM session ORDER BY time_created LIMIT 1", |r| r.get::<_, String>(0)).remove(0);
    // The reply to "just a question": the end of the third turn.
    let at = query(
        &run,
        &format!(
            "SELECT m.id FROM message m JOIN part p ON p.message_id = m.id WHERE m.session_id = '{main}' \
             AND json_extract(p.data, '$.text') = 'Reply to: just a question'"
        ),
        |r| r.get::<_, String>(0),
    )
    .remove(0);
    let (ok, v, err) = fork_json(&[&format!("--at={at}"), "--", &main], &run, arch.path());
    assert!(ok, "{err}");
    assert_eq!(listing(&run), before, "OpenCode's files untouched");
    assert_eq!(v["checkpoint"], at.as_str());
    assert_eq!(v["messages"], 8, "three turns: 3 + 3 + 2 messages");
    let id = v["new_session_id"].as_str().unwrap();
    let file = PathBuf::from(v["path"].as_str().unwrap());
    assert!(file.starts_with(arch.path()), "written beside cctree's archive: {}", file.display());
    assert!(v["shell"].as_str().unwrap().contains(&format!("opencode import {} && opencode -s {id}", file.display())));
    // The shape `opencode export` prints, all ids new, parents mapped, times kept.
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(doc["info"]["id"], id);
    assert!(doc["info"]["title"].as_str().unwrap().ends_with("(cctree fork)"));
    let msgs = doc["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 8);
    let originals = query(
        &run,
        &format!("SELECT id, time_created FROM message WHERE session_id = '{main}' ORDER BY time_created, id LIMIT 8"),
        |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)),
    );
    let mut seen = std::collections::HashSet::new();
    for (m, (old, time)) in msgs.iter().zip(&originals) {
        let mid = m["info"]["id"].as_str().unwrap();
        assert!(mid.starts_with("msg_") && mid != old && seen.insert(mid.to_string()));
        assert_eq!(m["info"]["sessionID"], id);
        assert_eq!(m["info"]["time"]["created"].as_i64(), Some(*time), "the original's time");
        if m["info"]["role"] == "assistant" {
            let parent = m["info"]["parentID"].as_str().unwrap();
            assert!(msgs.iter().any(|u| u["info"]["id"] == parent && u["info"]["role"] == "user"), "parent mapped");
        }
        for p in m["parts"].as_array().unwrap() {
            assert_eq!(p["messageID"], mid);
            assert!(
                p["id"].as_str().unwrap().starts_with("prt_") && seen.insert(p["id"].as_str().unwrap().to_string())
            );
        }
    }
    // A step that calls tools is no checkpoint; a message id finds its session.
    let step = query(
        &run,
        &format!("SELECT id FROM message WHERE session_id = '{main}' AND json_extract(data, '$.finish') = 'tool-calls' LIMIT 1"),
        |r| r.get::<_, String>(0),
    )
    .remove(0);
    let (ok, _, err) = fork_json(&[&format!("--at={step}"), "--", &main], &run, arch.path());
    assert!(!ok && err.contains("not a legal checkpoint"), "{err}");
    let (ok, v, err) = fork_json(&["--dry-run", "--", &at], &run, arch.path());
    assert!(ok, "{err}");
    assert_eq!(v["source_session"], main.as_str());
    assert!(!PathBuf::from(v["path"].as_str().unwrap()).exists(), "a dry run writes nothing");
}

#[test]
fn checks_find_what_a_deleted_session_leaves() {
    let (_tmp, run) = copied("opencode-1.18.33/run");
    let clean = cctree().arg("check").arg(&run).output().unwrap();
    assert!(clean.status.success(), "{}", String::from_utf8_lossy(&clean.stdout));
    // The original session deleted row by row (not as the client does, with
    // its children): its sub-agent names a parent that is gone, its forks
    // copy messages no session holds.
    let c = Connection::open(run.join("opencode.db")).unwrap();
    c.execute_batch(
        "DELETE FROM part WHERE session_id = (SELECT id FROM session ORDER BY time_created LIMIT 1); \
         DELETE FROM message WHERE session_id = (SELECT id FROM session ORDER BY time_created LIMIT 1); \
         DELETE FROM event WHERE aggregate_id = (SELECT id FROM session ORDER BY time_created LIMIT 1); \
         PRAGMA foreign_keys = OFF; DELETE FROM session WHERE id = (SELECT id FROM session ORDER BY time_created LIMIT 1);",
    )
    .unwrap();
    drop(c);
    let o = cctree().args(["check", "--json"]).arg(&run).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(!o.status.success(), "{text}");
    for kind in ["opencode-agent-without-parent", "opencode-fork-source-missing"] {
        assert!(text.contains(kind), "{kind}: {text}");
    }
}

/// Every page and asset of the site `dir` with its bytes (its parse cache
/// aside: keyed by the files read).
fn site_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let page = |p: &Path| dir.join(p).is_file() && !p.starts_with(".cctree-cache");
    listing(dir).into_iter().filter(|(p, _)| page(p)).collect()
}

#[test]
fn sync_keeps_every_session_the_client_deleted_and_the_archive_renders_as_the_database_did() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data/opencode");
    copy_dir(&fixture("opencode-1.18.33/tui"), &data);
    let archive = tmp.path().join("arch/projects");
    let render = |input: &Path, out: &str| {
        let site = tmp.path().join(out);
        // Published (--base-url): the fork commands of an unpublished site
        // name the folder it was rendered from, which differs here by design.
        let o = cctree()
            .args(["-q", "render", "--base-url", "https://example.org/chats/"])
            .arg(input)
            .arg("-o")
            .arg(&site)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        site
    };
    let sync = || {
        let o = cctree().arg("sync").arg(&data).arg("--to").arg(&archive).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let before = render(&data, "before");
    let first = sync();
    assert!(first.contains("0 kept that the database no longer has"), "{first}");
    let copy = tmp.path().join("arch/opencode/opencode.db");
    assert!(copy.is_file(), "the archive's copy of the database: {first}");
    // The client deletes the TUI's fork (its messages and parts go with it,
    // by the schema's cascades), as `opencode session delete` does.
    let fork: String = {
        let c = Connection::open(data.join("opencode.db")).unwrap();
        c.pragma_update(None, "foreign_keys", true).unwrap();
        let id: String = c.query_row("SELECT id FROM session WHERE title LIKE '%(fork #1)'", [], |r| r.get(0)).unwrap();
        assert_eq!(c.execute("DELETE FROM session WHERE id = ?1", [&id]).unwrap(), 1);
        let left: i64 = c.query_row("SELECT count(*) FROM message WHERE session_id = ?1", [&id], |r| r.get(0)).unwrap();
        assert_eq!(left, 0, "the client's delete took the session's messages");
        id
    };
    let after = render(&data, "after");
    assert!(!site_text(&after).contains("in the fork"), "the source no longer has the fork");
    let second = sync();
    let kept: u64 = second
        .lines()
        .find_map(|l| l.split(", ").nth(1)?.strip_suffix(" kept that the database no longer has")?.parse().ok())
        .unwrap_or_else(|| panic!("a line saying what was kept: {second}"));
    assert!(kept > 3, "the session, its messages and parts kept: {second}");
    let copied_session: i64 = Connection::open(&copy)
        .unwrap()
        .query_row("SELECT count(*) FROM session WHERE id = ?1", [&fork], |r| r.get(0))
        .unwrap();
    assert_eq!(copied_session, 1);
    // Synced again with nothing new: nothing written.
    assert!(sync().contains(": 0 rows new or changed"), "an unchanged database changes nothing");
    // The archive renders every page the database rendered before the
    // delete, byte for byte: the fork, its fork point, the undone turn.
    let kept_site = render(&archive, "kept");
    let text = site_text(&kept_site);
    for said in ["in the fork", "third prompt", "after undo"] {
        assert!(text.contains(said), "{said:?} kept");
    }
    let (a, b) = (site_files(&before), site_files(&kept_site));
    let names = |v: &[(PathBuf, Vec<u8>)]| v.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b), "the same pages");
    for ((p, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{} the same", p.display());
    }
}

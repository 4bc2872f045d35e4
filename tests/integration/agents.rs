//! Codex CLI and Gemini CLI: archives the real clients wrote
//! (`tests/fixtures/codex-0.171.0/`, `tests/fixtures/gemini-0.61.0/`,
//! recorded by the conformance suite) read into the same graph and pages as
//! Claude Code's, one test per acceptance point.

use std::path::{Path, PathBuf};

use cctree::stats::{ConversationDetail, ProjectDetail};
use serde_json::Value;

use crate::common::{collapse, site_text, visible};
use crate::support::{cctree, report};

pub fn codex(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codex-0.171.0").join(name)
}

pub fn gemini(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gemini-0.61.0").join(name)
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

pub fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

pub fn files_under(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .map(|e| e.into_path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    v
}

/// The text of a Codex `content` list.
fn codex_text(content: &Value) -> String {
    content.as_array().into_iter().flatten().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n")
}

/// Every prompt a person typed and every reply text of a Codex tree.
pub fn codex_messages(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for f in files_under(dir, "jsonl").iter().filter(|f| f.to_string_lossy().contains("/rollout-")) {
        for v in jsonl(f) {
            let p = &v["payload"];
            if v["type"] != "response_item" || p["type"] != "message" {
                continue;
            }
            let text = codex_text(&p["content"]);
            match p["role"].as_str() {
                Some("assistant") => out.push(text),
                Some("user") if !text.starts_with('<') => out.push(text),
                _ => {}
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The text of a Gemini record's `content`.
fn gemini_text(content: &Value) -> String {
    match content.as_str() {
        Some(s) => s.to_string(),
        None => {
            content.as_array().into_iter().flatten().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n")
        }
    }
}

/// Every prompt and reply text of a Gemini folder's record lines.
pub fn gemini_messages(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for f in files_under(dir, "jsonl") {
        for v in jsonl(&f) {
            let text = gemini_text(&v["content"]);
            match v["type"].as_str() {
                Some("user" | "gemini") if !text.trim().is_empty() && !text.starts_with('<') => out.push(text),
                _ => {}
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

pub fn render(inputs: &[PathBuf], out: &Path) -> std::process::Output {
    let o = cctree().arg("render").args(inputs).arg("-o").arg(out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

#[test]
fn codex_exec_fork_is_a_cross_session_fork_and_the_sub_agent_is_linked_both_ways() {
    let d = detail(&codex("exec"));
    let c = only(&d);
    // The fork (`exec fork`, a file with `history_base` and no copy) hangs
    // under the parent's reply before the cut: a cross-session fork point.
    assert_eq!(c.fork_points.len(), 1, "{:#?}", c.fork_points);
    assert_eq!(c.fork_points[0].kind, "cross-session");
    let fork_file = jsonl(
        &files_under(&codex("exec"), "jsonl")
            .into_iter()
            .find(|f| jsonl(f)[0]["payload"]["history_base"].is_object())
            .unwrap(),
    );
    let fork_thread = fork_file[0]["payload"]["id"].as_str().unwrap();
    assert!(c.fork_points[0].children.iter().any(|ch| ch.starts_with(fork_thread)), "{:#?}", c.fork_points);
    assert!(c.sessions.iter().any(|s| s == fork_thread));
    // The sub-agent: one agent, spawned by the `spawn_agent` call, its
    // nodes its own turn only (the copy of the parent's history is not
    // shown twice).
    assert_eq!(d.agents.len(), 1, "{:#?}", d.agents);
    let a = &d.agents[0];
    assert_eq!(a.spawn_tool_use.as_deref(), Some("call_mock0008_a0"));
    assert!(a.spawn_result.is_some());
    assert!(a.nodes < 12, "the agent's own nodes only: {}", a.nodes);
    // Nothing to report.
    let check = cctree().arg("check").arg(codex("exec")).output().unwrap();
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stdout));
}

#[test]
fn codex_rollback_is_a_rewind_whose_abandoned_turns_are_a_branch() {
    let d = detail(&codex("tui"));
    let c = only(&d);
    let kinds: Vec<&str> = c.fork_points.iter().map(|f| f.kind).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "rewind").count(), 1, "{kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "cross-session").count(), 1, "{kinds:?}");
    // The rewind's branches: the abandoned turns ("two [[patch…", then
    // "three") and the segment ("two again").
    // The segment's and the fork's threads are named in `session_index.jsonl`
    // (`/rename` "Alpha title", inherited by the fork): their branches carry
    // that name, as the client's resume list shows them; the abandoned
    // turns keep their first prompt.
    let mut titles: Vec<&str> = c.branches.iter().map(|b| b.title.as_str()).collect();
    titles.sort_unstable();
    assert_eq!(titles, ["Alpha title", "Alpha title", "one [[sh: echo one]]"]);
    assert_eq!(c.branches.len(), 3);
    // The active line is the latest: the segment resumed after the rollback.
    let active = c.branches.iter().find(|b| b.id == c.active_branch).unwrap();
    assert_eq!(active.title, "Alpha title");
    let r = report(&[codex("tui")]);
    assert_eq!(r.total.compactions, 1);
}

/// A `thread_rolled_back` of 0 turns moves nothing, as the client's replay
/// (`drop_last_n_user_turns` returns at once for 0): the turn after it goes
/// on along the line, and `check` accepts it. Of 1 turn, the same lines make
/// a rewind (the rollback line is read).
#[test]
fn a_codex_rollback_of_zero_turns_moves_nothing() {
    let with_rollback = |n: u64| {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("codex");
        copy_tree(&codex("exec"), &dir);
        let parent =
            files_under(&dir, "jsonl").into_iter().find(|f| f.to_string_lossy().contains("77ea-7351")).unwrap();
        let text = std::fs::read_to_string(&parent).unwrap();
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let last = lines.iter().filter_map(|v| v["ordinal"].as_u64()).max().unwrap();
        let like = |role: &str| lines.iter().rfind(|v| v["payload"]["role"] == role).unwrap().clone();
        let mut rollback = serde_json::json!({"timestamp": "2026-11-27T01:56:04Z", "ordinal": last + 1, "type": "event_msg",
            "payload": {"type": "thread_rolled_back", "num_turns": n}});
        let (mut prompt, mut reply) = (like("user"), like("assistant"));
        prompt["ordinal"] = (last + 2).into();
        prompt["payload"]["id"] = "msg_after_rollback".into();
        prompt["payload"]["content"][0]["text"] = "sixth: after the rollback".into();
        reply["ordinal"] = (last + 3).into();
        reply["payload"]["id"] = "msg_after_rollback_reply".into();
        reply["payload"]["content"][0]["text"] = "Done with: sixth".into();
        rollback["timestamp"] = prompt["timestamp"].clone();
        let added: String = [rollback, prompt, reply].iter().map(|v| format!("{v}\n")).collect();
        std::fs::write(&parent, text + &added).unwrap();
        let d = detail(&dir);
        let c = only(&d);
        let check = cctree().arg("check").arg(&dir).output().unwrap();
        (
            c.fork_points.len(),
            c.branches.len(),
            check.status.success(),
            String::from_utf8_lossy(&check.stdout).into_owned(),
        )
    };
    let before = detail(&codex("exec"));
    let base = only(&before);
    let (forks, branches, clean, said) = with_rollback(0);
    assert_eq!((forks, branches), (base.fork_points.len(), base.branches.len()), "a rollback of 0 made a branch");
    assert!(clean, "check accepts a rollback of 0: {said}");
    // Of 1: the new turn hangs before the last turn (where the fixture's fork already is): a branch more.
    let (forks, branches, clean, said) = with_rollback(1);
    assert!(forks >= base.fork_points.len());
    assert_eq!(branches, base.branches.len() + 1, "a rollback of 1 starts a branch");
    assert!(clean, "{said}");
}

#[test]
fn codex_archives_render_every_prompt_and_reply_with_their_tools() {
    for name in ["exec", "tui"] {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("site");
        render(&[codex(name)], &site);
        let text = site_text(&site);
        let wanted = codex_messages(&codex(name));
        assert!(wanted.len() >= 6, "{name}: {wanted:?}");
        for m in &wanted {
            assert!(text.contains(&collapse(m)), "{name}: {m:?} is on no page");
        }
        // Replies are Codex's, tools summarised: the shell command, the patch as a diff.
        assert!(text.contains("Codex"));
        assert!(!text.contains("claude -r"), "{name}: no Claude fork command on a Codex page");
        let pages: String = files_under(&site, "html")
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap())
            .collect::<Vec<_>>()
            .join("\n");
        assert!(pages.contains("echo one"), "{name}");
        if name == "tui" {
            // A patch adding a file: the file written.
            assert!(text.contains("two.txt"), "{name}: the patch's file");
        }
        if name == "exec" {
            assert!(pages.contains("<pre class=\"diff\">"), "{name}: a patch shown as a diff");
            // The update patch's two sides (hello → world).
            assert!(pages.contains("<span class=\"d-del\">-hello</span>"), "{name}: the patch's removed line");
            assert!(pages.contains("<span class=\"d-add\">+world</span>"), "{name}: the patch's added line");
        }
    }
}

#[test]
fn codex_renders_are_byte_identical_whatever_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut sites = Vec::new();
    for threads in ["1", "2"] {
        let site = dir.path().join(format!("site-{threads}"));
        let o = cctree()
            .arg("render")
            .arg(codex("exec"))
            .arg(codex("tui"))
            .arg("-o")
            .arg(&site)
            .args(["-j", threads])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        sites.push(site);
    }
    let files = |s: &Path| {
        files_under(s, "html")
            .into_iter()
            .map(|f| (f.strip_prefix(s).unwrap().to_path_buf(), std::fs::read(&f).unwrap()))
            .collect::<Vec<_>>()
    };
    let (a, b) = (files(&sites[0]), files(&sites[1]));
    assert!(!a.is_empty());
    assert_eq!(a, b);
}

#[test]
fn gemini_rewind_is_a_fork_point_and_compress_a_compaction() {
    let d = detail(&gemini("tui"));
    let c = only(&d);
    assert_eq!(c.fork_points.len(), 1, "{:#?}", c.fork_points);
    let f = &c.fork_points[0];
    assert_eq!(f.kind, "rewind");
    // `$rewindTo` names the first abandoned record (the prompt rewound to);
    // the fork's futures are that prompt and the one typed after the rewind.
    let lines = jsonl(&files_under(&gemini("tui"), "jsonl").into_iter().find(|f| jsonl(f).len() > 10).unwrap());
    let rewound = lines.iter().find_map(|v| v["$rewindTo"].as_str()).unwrap();
    assert!(f.children.iter().any(|ch| ch == rewound), "{:#?}", f.children);
    let titles: Vec<&str> = c.branches.iter().map(|b| b.title.as_str()).collect();
    assert!(titles.contains(&"two again"), "{titles:?}");
    let r = report(&[gemini("tui")]);
    assert_eq!(r.total.compactions, 1);
    // The resume stub (a file naming the session, with no message) adds nothing.
    assert_eq!(d.conversations.len(), 1);
}

#[test]
fn gemini_records_rewritten_in_place_are_read_once_and_the_sub_agent_is_linked() {
    let d = detail(&gemini("headless"));
    let c = only(&d);
    assert!(c.fork_points.is_empty(), "{:#?}", c.fork_points);
    assert_eq!(d.agents.len(), 1, "{:#?}", d.agents);
    let a = &d.agents[0];
    assert!(a.spawn_tool_use.as_deref().is_some_and(|t| t.starts_with("invoke_agent")), "{a:?}");
    // A reply written twice under one id is one node: no duplicate.
    assert_eq!(d.counts.duplicate_uuids, 0);
    for name in ["headless", "tui", "checkpoint-copy"] {
        let check = cctree().arg("check").arg(gemini(name)).output().unwrap();
        assert!(check.status.success(), "{name}: {}", String::from_utf8_lossy(&check.stdout));
    }
}

#[test]
fn gemini_archives_render_every_prompt_and_reply() {
    for name in ["headless", "tui", "checkpoint-copy"] {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("site");
        render(&[gemini(name)], &site);
        let text = site_text(&site);
        let wanted = gemini_messages(&gemini(name));
        assert!(wanted.len() >= 4, "{name}: {wanted:?}");
        for m in &wanted {
            assert!(text.contains(&collapse(m)), "{name}: {m:?} is on no page");
        }
        assert!(text.contains("Gemini"), "{name}");
        assert!(!text.contains("claude -r"), "{name}: no Claude fork command on a Gemini page");
    }
}

/// The text a Markdown source shows, letters and digits only (lowercase).
fn shown(md: &str) -> String {
    use pulldown_cmark::{Event, Parser};
    let mut s = String::new();
    for ev in Parser::new(md) {
        if let Event::Text(t) | Event::Code(t) | Event::Html(t) | Event::InlineHtml(t) = ev {
            s.push_str(&t);
        }
    }
    alnum(&s)
}

fn alnum(s: &str) -> String {
    s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// The inputs of the mixed archive: Claude Code's example, Codex's and
/// Gemini's recorded archives.
pub fn mixed_inputs() -> Vec<PathBuf> {
    vec![crate::support::example_archive(), codex("exec"), codex("tui"), gemini("headless"), gemini("tui")]
}

/// An archive with Claude Code, Codex and Gemini
/// renders as one site, with every prompt and reply (read through the
/// model, whichever client wrote it) on some page, and each rollback and
/// rewind in its conversation's map and fork-point index.
#[test]
fn a_mixed_archive_renders_as_one_site_with_every_prompt_reply_and_fork() {
    use cctree::model::{Block, Body, Content};
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    render(&mixed_inputs(), &site);
    // One archive index, grouped by agent.
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    for agent in ["Claude Code", "Codex CLI", "Gemini CLI"] {
        assert!(index.contains(&format!("<h2 class=\"agent\">{agent}</h2>")), "{agent} on the archive index");
    }
    // Every prompt and reply text, by the model.
    let pages: String = files_under(&site, "html")
        .iter()
        .map(|f| {
            let html = std::fs::read_to_string(f).unwrap();
            alnum(&visible(&html))
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut checked = std::collections::BTreeMap::new();
    for p in crate::support::load(&mixed_inputs()) {
        for n in &p.graph.nodes {
            let e = &p.entries[n.entry];
            let (node, err) = p.node(e);
            assert!(err.is_none(), "{}: {err:?}", p.source.name);
            let blocks = match &node.content {
                Content::Prompt(Body::Blocks(b)) | Content::Reply(b) => b,
                _ => continue,
            };
            for b in blocks {
                let Block::Text(t) = b else { continue };
                let head: String = shown(t).chars().take(80).collect();
                if head.is_empty() {
                    continue;
                }
                assert!(
                    pages.contains(&head),
                    "{}: {:?} is on no page",
                    p.source.name,
                    t.chars().take(120).collect::<String>()
                );
                *checked.entry(p.source.client.name()).or_insert(0) += 1;
            }
        }
    }
    for agent in ["claude", "codex", "gemini"] {
        assert!(checked.get(agent).copied().unwrap_or(0) >= 8, "{agent}: {checked:?}");
    }
    // Each rollback (Codex) and rewind (Gemini), and every other fork
    // point, is in its conversation's map and in its fork-point index.
    let r = report(&mixed_inputs());
    let mut rewinds = std::collections::BTreeMap::new();
    for d in r.projects_detail.as_ref().unwrap() {
        let project_pages: Vec<String> = files_under(&site, "html")
            .iter()
            .filter(|f| {
                f.strip_prefix(&site)
                    .unwrap()
                    .starts_with(cctree::render::site::urls::project_slugs(&[&d.name])[0].as_str())
            })
            .map(|f| std::fs::read_to_string(f).unwrap())
            .collect();
        for c in &d.conversations {
            for f in &c.fork_points {
                if f.kind == "rewind" {
                    *rewinds.entry(d.name.split('-').next().unwrap().to_string()).or_insert(0) += 1;
                }
                let anchor = cctree::render::site::urls::fork_anchor(&f.uuid);
                let in_map = project_pages
                    .iter()
                    .any(|h| section(h, "<details class=\"map\"", "</details>").contains(&format!("#{anchor}\"")));
                let in_index = project_pages.iter().any(|h| {
                    section(h, "<details class=\"forks\" id=\"forks\"", "</nav>").contains(&format!("#{anchor}\""))
                });
                assert!(in_map, "{}: fork {} ({}) is in no map", d.name, f.uuid, f.kind);
                assert!(in_index, "{}: fork {} ({}) is in no fork-point index", d.name, f.uuid, f.kind);
            }
        }
    }
    assert!(rewinds.get("codex").is_some_and(|n| *n >= 1), "{rewinds:?}");
    assert!(rewinds.get("gemini").is_some_and(|n| *n >= 1), "{rewinds:?}");
    // One search index for the whole site.
    assert!(site.join("search").is_dir());
}

/// The part of `html` from `start` to the next `end` (empty without it).
fn section<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    let Some(i) = html.find(start) else { return "" };
    let rest = &html[i..];
    &rest[..rest.find(end).map_or(rest.len(), |j| j + end.len())]
}

#[test]
fn export_takes_a_codex_or_gemini_session_and_agent_picks_the_clients() {
    let dir = tempfile::tempdir().unwrap();
    let thread = jsonl(
        &files_under(&codex("tui"), "jsonl").into_iter().find(|f| f.to_string_lossy().contains("/rollout-")).unwrap(),
    )[0]["payload"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    for (input, target, want) in [
        (codex("tui"), thread.as_str(), "two again"),
        (gemini("tui"), "d530d928-9820-4b7a-9967-6c5d7bfe95e6", "two again"),
    ] {
        let out = dir.path().join("one.md");
        let o = cctree().arg("export").arg("--projects").arg(&input).arg(target).arg("-o").arg(&out).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let md = std::fs::read_to_string(&out).unwrap();
        assert!(md.contains(want), "{}", input.display());
        std::fs::remove_file(&out).unwrap();
    }
    // `--agent` keeps the projects of the agents named, whatever the inputs.
    let o = cctree().args(["stats", "--json", "--agent", "codex,gemini"]).args(mixed_inputs()).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["projects"], 4, "{v}");
    let o = cctree().args(["stats", "--json", "--agent", "claude"]).args(mixed_inputs()).output().unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["projects"].as_u64(), Some(2), "the example's two projects: {v}");
    let o = cctree().args(["stats", "--agent", "nope"]).args(mixed_inputs()).output().unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("use {}", cctree::agent::names())), "{err}");
}

#[test]
fn without_input_the_agents_default_folders_are_read() {
    let home = tempfile::tempdir().unwrap();
    let codex_home = home.path().join("codex");
    let gem_home = home.path().join("gem");
    copy_tree(&codex("tui"), &codex_home);
    copy_tree(&gemini("tui"), &gem_home.join(".gemini"));
    let o = cctree()
        .args(["stats", "--json"])
        .env("HOME", home.path())
        .env("CLAUDE_CONFIG_DIR", home.path().join("no-claude"))
        .env("CODEX_HOME", &codex_home)
        .env("GEMINI_CLI_HOME", &gem_home)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["projects"], 2, "{v}");
}

pub fn copy_tree(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from).into_iter().flatten() {
        let dest = to.join(e.path().strip_prefix(from).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

#[test]
fn a_codex_fork_whose_base_is_missing_is_a_dangling_parent_for_check() {
    let dir = tempfile::tempdir().unwrap();
    let fork = files_under(&codex("tui"), "jsonl")
        .into_iter()
        .find(|f| jsonl(f).first().is_some_and(|m| m["payload"]["forked_from_id"].is_string()))
        .unwrap();
    std::fs::copy(&fork, dir.path().join(fork.file_name().unwrap())).unwrap();
    let o = cctree().arg("check").arg(dir.path()).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!o.status.success(), "{out}");
    assert!(out.contains("[P2-dangling-parent]") && out.contains(".jsonl:6:"), "{out}");
    // Its own turn is still read and rendered.
    let out = tempfile::tempdir().unwrap();
    let site = out.path().join("site");
    render(&[dir.path().to_path_buf()], &site);
    assert!(site_text(&site).contains("in the fork"));
}

/// `cctree fork <id>` looks the id up in Claude Code's folders first, also
/// when Codex CLI's are there; an id that names sessions of two clients is
/// refused, naming both; a session whose working directory is gone is
/// resumed by a command that makes it again, with a note.
#[test]
fn fork_finds_claude_sessions_first_and_names_every_client_an_id_is_ambiguous_in() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("claude/projects/-tmp-gone");
    std::fs::create_dir_all(&project).unwrap();
    let gone = tmp.path().join("gone");
    let session = |sid: &str| {
        let (u, a) = ("aaaaaaaa-0000-4000-8000-000000000001", "aaaaaaaa-0000-4000-8000-000000000002");
        let cwd = gone.to_str().unwrap();
        let lines = [
            serde_json::json!({"type": "user", "uuid": u, "parentUuid": null, "sessionId": sid, "cwd": cwd,
                "timestamp": "2026-03-02T10:00:00.000Z", "message": {"role": "user", "content": "Hello"}}),
            serde_json::json!({"type": "assistant", "uuid": a, "parentUuid": u, "sessionId": sid, "cwd": cwd,
                "timestamp": "2026-03-02T10:00:01.000Z",
                "message": {"role": "assistant", "id": "msg_1", "model": "claude-sonnet-4-5", "type": "message",
                    "content": [{"type": "text", "text": "Hi."}]}}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(project.join(format!("{sid}.jsonl")), text).unwrap();
    };
    let fork = |id: &str| {
        cctree()
            .args(["fork", "--dry-run", "--json", "--", id])
            .env("HOME", tmp.path().join("home"))
            .env("CLAUDE_CONFIG_DIR", tmp.path().join("claude"))
            .env("CODEX_HOME", codex("exec"))
            .env("GEMINI_CLI_HOME", tmp.path().join("no-gemini"))
            .env("XDG_DATA_HOME", tmp.path().join("data"))
            .env_remove("CCTREE_ARCHIVE")
            .output()
            .unwrap()
    };
    let claude = "c1a0de00-0000-4000-8000-000000000001";
    session(claude);
    let out = fork(claude);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["source_session"], claude, "{plan}");
    let shell = plan["shell"].as_str().unwrap();
    assert!(shell.starts_with(&format!("mkdir -p {} && cd ", gone.display())), "{shell}");
    let notes = plan["notes"].to_string();
    assert!(notes.contains("no longer exists"), "{notes}");
    // The Codex thread of the fixture, and a Claude Code session file of the same name.
    let thread = "01a21ab7-77ea-7351-95a6-8167086a1919";
    session(thread);
    let out = fork(thread);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains(&format!("{thread} is ambiguous")), "{err}");
    assert!(err.contains("a Claude Code session (") && err.contains("a Codex CLI thread ("), "{err}");
    assert!(err.contains("rollout-2026-11-27T01-56-01-01a21ab7-77ea"), "{err}");
}

/// Codex CLI and Gemini CLI pages offer "fork here" where `cctree fork`
/// of that client accepts the checkpoint (the last message of a completed
/// Codex turn, a Gemini reply that ends a turn), with the command that
/// works for it and the client's own resume command; each command shown,
/// run on the real clients' archives, plans a fork.
#[test]
fn codex_and_gemini_pages_offer_fork_here_with_a_command_that_works() {
    for (client, resume) in [("codex", "codex resume"), ("gemini", "gemini -r")] {
        let tmp = tempfile::tempdir().unwrap();
        let (input, home) = if client == "codex" {
            let home = tmp.path().join("codex");
            copy_tree(&codex("tui"), &home);
            (home.clone(), home)
        } else {
            let home = tmp.path().join("gem");
            copy_tree(&gemini("tui"), &home.join(".gemini"));
            (home.join(".gemini/tmp"), home)
        };
        let site = tmp.path().join("site");
        render(&[input], &site);
        let pages: String = files_under(&site, "html")
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap())
            .collect::<Vec<_>>()
            .join("\n");
        let mut cmds: Vec<String> = pages
            .split("<code class=\"cmd\">")
            .skip(1)
            .map(|s| crate::render::unescape(&s[..s.find("</code>").unwrap()]))
            .collect();
        cmds.sort();
        cmds.dedup();
        assert!(!cmds.is_empty(), "{client}: no fork here");
        // The hint under the command (style.css writes it from data-resume).
        assert!(pages.contains(&format!("<div class=\"fork-pop\" data-resume=\"{resume}\">")), "{client}");
        assert!(!pages.contains("data-resume=\"claude -r\""), "{client}");
        // Not every message: a reply that calls a tool, a prompt, are no checkpoint.
        let (offers, messages) =
            (pages.matches("<details class=\"fork-cmd\">").count(), pages.matches("<article class=\"msg").count());
        assert!(offers < messages, "{client}: {offers} of {messages}");
        for cmd in &cmds {
            let args = shlex::split(cmd).unwrap();
            assert_eq!(&args[..2], ["cctree", "fork"], "{cmd}");
            let out = cctree()
                .args(&args[1..2])
                .args(["--dry-run", "--json"])
                .args(&args[2..])
                .env("HOME", tmp.path().join("home"))
                .env("CLAUDE_CONFIG_DIR", tmp.path().join("claude"))
                .env("CODEX_HOME", if client == "codex" { home.clone() } else { tmp.path().join("no-codex") })
                .env("GEMINI_CLI_HOME", if client == "gemini" { home.clone() } else { tmp.path().join("no-gemini") })
                .env("XDG_DATA_HOME", tmp.path().join("data"))
                .env_remove("CCTREE_ARCHIVE")
                .output()
                .unwrap();
            assert!(out.status.success(), "{client}: {cmd}: {}", String::from_utf8_lossy(&out.stderr));
            let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert!(plan["shell"].as_str().unwrap().contains(resume), "{plan}");
        }
    }
}

/// `cctree fork <session id>` looks the id up by the names of the clients'
/// files, which hold it (Claude Code's `<id>.jsonl`, Codex CLI's
/// `rollout-…-<thread>.jsonl`, Gemini CLI's `session-…-<first 8>.jsonl`): a
/// Codex rollout and a Gemini session whose first lines claim the id but
/// whose names do not hold it are not read, so the id names one session.
/// (Reading every file of the three clients at each fork counted them: the
/// id was ambiguous.)
#[test]
fn fork_looks_a_session_id_up_by_the_names_of_the_files() {
    let tmp = tempfile::tempdir().unwrap();
    let sid = "c1a0de00-0000-4000-8000-0000000000f1";
    let project = tmp.path().join("claude/projects/-tmp-w");
    std::fs::create_dir_all(&project).unwrap();
    let (u, a) = ("aaaaaaaa-0000-4000-8000-0000000000f1", "aaaaaaaa-0000-4000-8000-0000000000f2");
    let lines = [
        serde_json::json!({"type": "user", "uuid": u, "parentUuid": null, "sessionId": sid, "cwd": "/tmp/w",
            "timestamp": "2026-03-02T10:00:00.000Z", "message": {"role": "user", "content": "Hello"}}),
        serde_json::json!({"type": "assistant", "uuid": a, "parentUuid": u, "sessionId": sid, "cwd": "/tmp/w",
            "timestamp": "2026-03-02T10:00:01.000Z",
            "message": {"role": "assistant", "id": "msg_1", "model": "claude-sonnet-4-5", "type": "message",
                "content": [{"type": "text", "text": "Hi."}]}}),
    ];
    std::fs::write(project.join(format!("{sid}.jsonl")), lines.iter().map(|l| format!("{l}\n")).collect::<String>())
        .unwrap();
    // A Codex home: the fixture, and a rollout of another name claiming the thread `sid`.
    let codex_home = tmp.path().join("codex");
    copy_tree(&codex("exec"), &codex_home);
    let day = codex_home.join("sessions/2026/11/27");
    let other = "01a21ab7-0000-7000-8000-0000000000f1";
    let meta = serde_json::json!({"timestamp": "2026-11-27T03:00:00Z", "type": "session_meta",
        "payload": {"id": sid, "timestamp": "2026-11-27T03:00:00Z", "cwd": "/tmp/w", "cli_version": "0.171.0"}});
    std::fs::write(day.join(format!("rollout-2026-11-27T03-00-00-{other}.jsonl")), format!("{meta}\n")).unwrap();
    // A Gemini home: a session file of another name whose session is `sid`.
    let gem_home = tmp.path().join("gem");
    copy_tree(&gemini("tui"), &gem_home.join(".gemini"));
    let chats = files_under(&gem_home, "jsonl").into_iter().find(|f| f.to_string_lossy().contains("/chats/")).unwrap();
    let first = serde_json::json!({"sessionId": sid, "projectHash": "0", "startTime": "2026-11-27T03:00:00.000Z",
        "lastUpdated": "2026-11-27T03:00:00.000Z", "kind": "main"});
    std::fs::write(chats.parent().unwrap().join("session-2026-11-27T03-00-0badc0de.jsonl"), format!("{first}\n"))
        .unwrap();
    // The plan `cctree fork --dry-run` makes for `id` with these homes.
    let plan_of = |id: &str| -> Value {
        let out = cctree()
            .args(["fork", "--dry-run", "--json", "--", id])
            .env("HOME", tmp.path().join("home"))
            .env("CLAUDE_CONFIG_DIR", tmp.path().join("claude"))
            .env("CODEX_HOME", &codex_home)
            .env("GEMINI_CLI_HOME", &gem_home)
            .env("XDG_DATA_HOME", tmp.path().join("data"))
            .env_remove("CCTREE_ARCHIVE")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let plan = plan_of(sid);
    assert_eq!(plan["source_session"], sid, "{plan}");
    // The Codex fixture's thread is still found by its files' names (and its segment's).
    let thread = "01a21ab7-77ea-7351-95a6-8167086a1919";
    let plan = plan_of(thread);
    assert_eq!(plan["source_thread"], thread, "{plan}");
}

/// A hand-made session in the shape older Gemini CLI versions wrote: one
/// pretty-printed `.json` document (`tests/fixtures/gemini-json/`).
fn gemini_json() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gemini-json")
}

#[test]
fn an_older_gemini_json_session_is_read_with_every_message_and_its_tool_call() {
    let file = files_under(&gemini_json(), "json").pop().unwrap();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let messages = doc["messages"].as_array().unwrap();
    let d = detail(&gemini_json());
    let c = only(&d);
    assert_eq!(c.sessions, [doc["sessionId"].as_str().unwrap()]);
    assert_eq!(c.messages as usize, messages.len(), "{c:#?}");
    assert!(c.fork_points.is_empty());
    let check = cctree().arg("check").arg(gemini_json()).output().unwrap();
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stdout));
    // Every message and the shell call's output on the page.
    let out = tempfile::tempdir().unwrap();
    let site = out.path().join("site");
    render(&[gemini_json()], &site);
    let text = site_text(&site);
    for m in messages {
        let said = m["content"].as_str().unwrap();
        assert!(text.contains(said), "{said}");
    }
    assert!(text.contains("Stdout: Lisbon: 24 C, clear sky"));
    assert!(text.contains("./forecast.sh Lisbon"));
    // `cctree fork` says what to do instead.
    let o = cctree().arg("fork").arg("--dry-run").arg(&file).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("older Gemini CLI") && err.contains("gemini -r"), "{err}");
}

#[test]
fn an_older_gemini_json_session_cut_short_keeps_its_messages_before_the_cut() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("gemini");
    copy_tree(&gemini_json(), &dir);
    let file = files_under(&dir, "json").pop().unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    // Cut inside the fourth message (the second prompt).
    let cut = text.find("And in Fahrenheit").unwrap();
    std::fs::write(&file, &text[..cut]).unwrap();
    // The warning is at the line the message cut short starts on.
    let start = text[..text.find("8c3d-000000000004").unwrap()].rfind('{').unwrap();
    let line = text[..start].matches('\n').count() + 1;
    let o = cctree().arg("check").arg(&dir).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(&format!(".json:{line}: [malformed-line]")) && out.contains("cut short"), "{out}");
    let c = detail(&dir);
    assert_eq!(only(&c).messages, 3, "the three messages before the cut");
}

/// A Gemini session forked from the `cctree sync` archive after the client
/// removed its project folder: the fork lands in that folder of
/// `~/.gemini/tmp` with the folder's `.project_root` (the working directory
/// the client files the project under) made again from the archive's.
#[test]
fn a_gemini_fork_from_the_archive_recreates_the_project_folders_project_root() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    copy_tree(&gemini("headless"), &home.join(".gemini"));
    let archive = tmp.path().join("archive");
    let env = [
        ("HOME", home.clone()),
        ("GEMINI_CLI_HOME", home.clone()),
        ("CCTREE_ARCHIVE", archive.clone()),
        ("CODEX_HOME", tmp.path().join("no-codex")),
        ("CLAUDE_CONFIG_DIR", tmp.path().join("no-claude")),
    ];
    let run = |args: &[&str]| {
        let o = cctree().args(args).envs(env.iter().map(|(k, v)| (k, v))).output().unwrap();
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    run(&["-q", "sync"]);
    let folder = home.join(".gemini/tmp/work");
    let root = std::fs::read_to_string(folder.join(".project_root")).unwrap();
    let session = files_under(&folder.join("chats"), "jsonl")
        .into_iter()
        .find(|f| f.file_name().unwrap().to_string_lossy().starts_with("session-"))
        .unwrap();
    let id = jsonl(&session)[0]["sessionId"].as_str().unwrap().to_string();
    std::fs::remove_dir_all(&folder).unwrap();
    // A dry run writes nothing.
    let out = run(&["fork", "--dry-run", &id]);
    assert!(out.contains("would write") && out.contains(".project_root"), "{out}");
    assert!(!folder.exists());
    let out = run(&["fork", &id]);
    assert_eq!(std::fs::read_to_string(folder.join(".project_root")).unwrap(), root);
    let forks = files_under(&folder.join("chats"), "jsonl");
    assert_eq!(forks.len(), 1, "{forks:?}");
    let new_id = jsonl(&forks[0])[0]["sessionId"].as_str().unwrap().to_string();
    assert!(out.contains(&format!("cd {} && gemini -r {new_id}", root.trim())), "{out}");
    // The next fork finds the folder whole: nothing more is written there.
    let out = run(&["fork", &id]);
    assert!(!out.contains(".project_root"), "{out}");
    assert_eq!(files_under(&folder.join("chats"), "jsonl").len(), 2);
}

/// The suite keeps every machine's folders out of its tests through the
/// registration: each agent's own variables (`Agent::home_env`) move its
/// default folder, so `cctree sync` without INPUT, in an empty home, finds
/// none and names each agent's default folder where the suite points it.
#[test]
fn each_agent_names_the_variables_that_move_its_default_folder() {
    let home = tempfile::tempdir().unwrap();
    let out = cctree()
        .args(["sync", "--dry-run"])
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("CCTREE_ARCHIVE", home.path().join("archive"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let mut vars = std::collections::BTreeSet::new();
    for c in cctree::agent::ALL {
        let a = cctree::agent::of(*c);
        let line = err.lines().find(|l| l.contains(&format!("({}:", a.product()))).unwrap_or_else(|| panic!("{err}"));
        let nowhere = format!("/nonexistent/cctree-test-{}", c.name());
        assert_eq!(line.contains(&nowhere), !a.home_env().is_empty(), "{}: {line}", c.name());
        for v in a.home_env() {
            assert!(vars.insert(*v), "{v} is read by two agents");
        }
    }
}

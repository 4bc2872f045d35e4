//! Faithful to Claude Code 2.1.330: regression tests on archives
//! the real client wrote (`tests/fixtures/client-2.1.330/`, recorded by the
//! conformance suite), one per symptom, named after it.

use std::path::{Path, PathBuf};

use cctree::agent::claude::discover::scan_project;
use cctree::build::{BuildOptions, build};
use cctree::discover::discover;
use cctree::project::Project;
use cctree::stats::{ConversationDetail, ProjectDetail};
use serde_json::Value;

use crate::common::{hidden_metadata, html_pages, without_raw as visible};
use crate::support::{cctree, real_projects, report};

/// The `projects/` directory of a recorded fixture.
fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/client-2.1.330").join(name).join("projects")
}

/// Its one project directory.
fn project_dir(name: &str) -> PathBuf {
    let d = fixture(name);
    std::fs::read_dir(&d).unwrap().flatten().map(|e| e.path()).find(|p| p.is_dir()).unwrap()
}

fn detail(name: &str) -> ProjectDetail {
    let mut r = report(&[fixture(name)]);
    r.projects_detail.take().unwrap().remove(0)
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Session ids of a fixture: (the one every step continued, the copies).
fn sessions(name: &str) -> (String, Vec<String>) {
    let mut main = None;
    let mut copies = Vec::new();
    for e in std::fs::read_dir(project_dir(name)).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let id = p.file_stem().unwrap().to_string_lossy().into_owned();
        let copy = lines(&p)
            .iter()
            .any(|v| v.get("forkedFrom").is_some() || v.get("requestSessionId").is_some_and(|r| r != id.as_str()));
        let cctree_fork = lines(&p).iter().any(|v| v.get("cctreeFork").is_some());
        if copy || cctree_fork {
            copies.push(id);
        } else {
            assert!(main.is_none(), "one original session in {name}");
            main = Some(id);
        }
    }
    copies.sort();
    (main.unwrap(), copies)
}

fn conversation<'a>(d: &'a ProjectDetail, session: &str) -> &'a ConversationDetail {
    d.conversations.iter().find(|c| c.sessions.iter().any(|s| s == session)).unwrap()
}

fn render(input: &Path, out: &Path) -> Vec<(PathBuf, String)> {
    let archive = discover(&[input.to_path_buf()]).unwrap();
    build(archive, &BuildOptions { output: out.to_path_buf(), ..BuildOptions::default() }).unwrap();
    html_pages(out)
}

fn copy_tree(src: &Path, dst: &Path) {
    for e in walkdir::WalkDir::new(src).into_iter().flatten() {
        let to = dst.join(e.path().strip_prefix(src).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
}

// ---------------------------------------------------------------------------
// 1. Client copies take over the original.

#[test]
fn client_copies_do_not_take_over_the_original() {
    for name in ["tui", "print", "bash-rewind"] {
        let d = detail(name);
        let (main, copies) = sessions(name);
        assert_eq!(d.conversations.len(), 1, "{name}");
        let c = conversation(&d, &main);
        for j in &c.junctions {
            assert!(
                copies.contains(&j.session),
                "{name}: the original {main} is shown joining its own copy {}",
                j.session
            );
        }
        let rewinds = c.fork_points.iter().filter(|f| f.kind == "rewind").count();
        assert_eq!(
            rewinds,
            if name == "print" {
                0
            } else if name == "tui" {
                2
            } else {
                1
            },
            "{name}: in-file rewinds"
        );
    }
}

#[test]
fn turns_the_client_appends_to_a_cctree_fork_belong_to_the_fork() {
    let dir = project_dir("time-travel");
    let p = Project::load(scan_project(&dir).unwrap());
    let mut checked = 0;
    for f in std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()) {
        if f.extension().is_none_or(|x| x != "jsonl") || !lines(&f).iter().any(|v| v.get("cctreeFork").is_some()) {
            continue;
        }
        let id = f.file_stem().unwrap().to_string_lossy().into_owned();
        for v in lines(&f).iter().filter(|v| v["sessionId"] == id.as_str() && v.get("uuid").is_some()) {
            let n = p.graph.index[v["uuid"].as_str().unwrap()];
            assert_eq!(
                &*p.graph.sessions[p.graph.node(n).session].session_id,
                id,
                "a turn the client appended to {id}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 10, "the fixture holds resumed forks ({checked} turns)");
}

// ---------------------------------------------------------------------------
// 2. Titles.

#[test]
fn the_last_rename_wins_not_the_greatest_title() {
    for name in ["print", "tui"] {
        let d = detail(name);
        assert_eq!(d.conversations[0].title, "Alpha title", "{name}: /rename Zeta title, then /rename Alpha title");
    }
}

#[test]
fn a_fork_title_does_not_rename_its_source() {
    let d = detail("time-travel");
    assert_eq!(d.conversations.len(), 1);
    assert_eq!(
        d.conversations[0].title, "Alpha title",
        "resumed forks, each titled by cctree, are the latest sessions"
    );
}

#[test]
fn default_fork_titles_do_not_compound() {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&fixture("time-travel"), &tmp.path().join("projects"));
    let projects = tmp.path().join("projects");
    let p = Project::load(scan_project(&project_dir("time-travel")).unwrap());
    // A turn the client appended to a cctree fork (its session is titled "Fork of …").
    let g = &p.graph;
    let (forked, _) = g
        .sessions
        .iter_enumerated()
        .find(|(_, s)| s.custom_title.as_deref().is_some_and(|t| t.starts_with("Fork of ")))
        .unwrap();
    let (n, _) = g.nodes.iter_enumerated().find(|(_, n)| n.session == forked && !n.sidechain).unwrap();
    let at = g.uuid(&p.entries, n).to_string();
    let session = g.sessions[forked].session_id.to_string();
    let out = cctree()
        .args(["fork", &session, "--at", &at, "--dry-run", "--json", "--projects"])
        .arg(&projects)
        .output()
        .unwrap();
    let v: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    let title = v["title"].as_str().unwrap();
    assert!(title.starts_with("Fork of Alpha title at "), "{title}");
}

// ---------------------------------------------------------------------------
// 4. Known entry types; check; page sizes.

#[test]
fn check_is_clean_and_silent_on_fresh_client_archives() {
    for name in ["print", "tui", "bash-rewind", "time-travel"] {
        let out = cctree().arg("check").arg(fixture(name)).output().unwrap();
        let (so, se) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(0), "{name}: cctree check\n{so}\n{se}");
        assert!(!se.contains("warning") && !so.contains("unknown"), "{name}: {so}\n{se}");
    }
}

#[test]
fn no_page_carries_more_than_64_kb_of_hidden_metadata() {
    let tmp = tempfile::tempdir().unwrap();
    let mut inputs: Vec<PathBuf> = ["print", "tui", "bash-rewind", "time-travel"].iter().map(|n| fixture(n)).collect();
    inputs.push(real_projects());
    for (i, input) in inputs.iter().enumerate() {
        for (page, html) in render(input, &tmp.path().join(i.to_string())) {
            let n = hidden_metadata(&html);
            assert!(n <= 64 * 1024, "{} carries {n} bytes of hidden metadata", page.display());
        }
    }
}

/// `n` sessions made from the print fixture's original session, each with
/// its own uuids and session id.
fn many_sessions(n: usize, into: &Path) {
    let (main, _) = sessions("print");
    let src = std::fs::read_to_string(project_dir("print").join(format!("{main}.jsonl"))).unwrap();
    let uuids: std::collections::BTreeSet<String> = lines(&project_dir("print").join(format!("{main}.jsonl")))
        .iter()
        .filter_map(|v| v["uuid"].as_str().map(str::to_string))
        .collect();
    std::fs::create_dir_all(into).unwrap();
    for i in 0..n {
        let mut text = src.clone();
        for u in uuids.iter().chain(std::iter::once(&main)) {
            text = text.replace(u.as_str(), &format!("{}{:04}", &u[..u.len() - 4], i));
        }
        let id = format!("{}{:04}", &main[..main.len() - 4], i);
        std::fs::write(into.join(format!("{id}.jsonl")), text).unwrap();
    }
}

#[test]
fn the_project_index_holds_no_metadata_dumps_and_stays_under_100_kb_for_20_sessions() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("projects").join("-tmp-many");
    many_sessions(20, &project);
    let d = &report(&[tmp.path().join("projects")]).projects_detail.unwrap()[0];
    assert_eq!(d.conversations.len(), 20);
    let pages = render(&tmp.path().join("projects"), &tmp.path().join("site"));
    let (_, index) = pages.iter().find(|(p, _)| p.ends_with("-tmp-many/index.html")).unwrap();
    assert!(index.len() < 100 * 1024, "the project index is {} bytes for 20 sessions", index.len());
    for t in ["api-request", "atis-latch", "cost-state", "tools-used"] {
        assert!(!index.contains(t), "the project index shows {t} entries");
    }
}

// ---------------------------------------------------------------------------
// 5. Structure moved: labels.

#[test]
fn fork_labels_are_what_a_person_typed_not_context_or_synthetic_notices() {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["tui", "time-travel", "bash-rewind"] {
        let pages = render(&fixture(name), &tmp.path().join(name));
        let mut notes = 0;
        for (page, html) in &pages {
            for note in html.split("<nav class=\"forknote\"").skip(1) {
                let note = &note[..note.find("</nav>").unwrap()];
                for txt in note.split("class=\"txt\"").skip(1) {
                    let words = &txt[txt.find('>').unwrap() + 1..txt.find("</").unwrap()];
                    assert!(!words.trim().is_empty(), "{}: an empty fork label", page.display());
                    assert!(!words.contains("No response requested."), "{}: {words}", page.display());
                    notes += 1;
                }
            }
        }
        assert!(notes >= 2, "{name}: fork notes rendered");
    }
}

#[test]
fn fork_landmarks_at_a_turn_duration_stay_visible_with_system_entries_hidden() {
    // In TUI sessions the rewind forks at the previous turn's `turn_duration`
    // (a system entry, hidden by default): the landmark is a block of its own
    // between messages, never inside one, and nothing hides it.
    let tmp = tempfile::tempdir().unwrap();
    let pages = render(&fixture("tui"), tmp.path());
    let mut seen = 0;
    for (page, html) in &pages {
        for (i, _) in html.match_indices("<nav class=\"forknote\"") {
            let opened = html[..i].matches("<article").count();
            let closed = html[..i].matches("</article>").count();
            assert_eq!(opened, closed, "{}: a fork landmark inside a message", page.display());
            seen += 1;
        }
    }
    assert!(seen >= 3, "the three fork points have landmarks ({seen})");
    let css = walkdir::WalkDir::new(tmp.path()).into_iter().flatten().find(|e| e.file_name() == "style.css").unwrap();
    let css = std::fs::read_to_string(css.path()).unwrap();
    for rule in css.split('}') {
        let (selector, body) = rule.split_once('{').unwrap_or((rule, ""));
        if selector.contains("forknote") {
            assert!(!body.contains("display: none") && !body.contains("display:none"), "{rule}");
        }
    }
}

// ---------------------------------------------------------------------------
// 6. Lost words.

#[test]
fn messages_typed_while_claude_worked_appear_where_they_were_typed() {
    // The TUI fixture: one delivered inside the running turn.
    let tmp = tempfile::tempdir().unwrap();
    let pages = render(&fixture("tui"), &tmp.path().join("tui"));
    assert!(
        pages.iter().any(|(_, h)| visible(h).contains("queued while working")),
        "the queued_command is shown as a message"
    );
    // Queued, then taken back (popAll) or never sent: only queue-operation lines.
    let dir = tmp.path().join("q/projects/-tmp-q");
    std::fs::create_dir_all(&dir).unwrap();
    let (main, _) = sessions("print");
    let text = std::fs::read_to_string(project_dir("print").join(format!("{main}.jsonl"))).unwrap();
    let first = lines(&project_dir("print").join(format!("{main}.jsonl")))
        .into_iter()
        .find(|v| v["type"] == "assistant")
        .unwrap();
    let ts = first["timestamp"].as_str().unwrap();
    let q = |op: &str, content: &str| {
        format!(
            r#"{{"type":"queue-operation","operation":"{op}","timestamp":"{ts}","sessionId":"{main}","content":"{content}"}}"#
        )
    };
    let extra =
        [q("enqueue", "a thought typed mid-turn"), q("popAll", ""), q("enqueue", "another never sent")].join("\n");
    std::fs::write(dir.join(format!("{main}.jsonl")), format!("{text}{extra}\n")).unwrap();
    let pages = render(&tmp.path().join("q/projects"), &tmp.path().join("q-site"));
    for t in ["a thought typed mid-turn", "another never sent"] {
        let on: Vec<&PathBuf> = pages.iter().filter(|(_, h)| visible(h).contains(t)).map(|(p, _)| p).collect();
        assert!(on.iter().any(|p| p.to_string_lossy().contains("/c/")), "{t:?} on a conversation page: {on:?}");
    }
}

// ---------------------------------------------------------------------------
// 7. A rewind split off.

#[test]
fn a_rewind_after_a_bash_output_is_a_fork_not_a_separate_conversation() {
    let d = detail("bash-rewind");
    assert_eq!(d.conversations.len(), 1, "{:?}", d.conversations.iter().map(|c| &c.title).collect::<Vec<_>>());
    let c = &d.conversations[0];
    assert_eq!(c.fork_points.len(), 1);
    assert_eq!(c.fork_points[0].kind, "rewind");
    let mut titles: Vec<&str> = c.branches.iter().map(|b| b.title.as_str()).collect();
    titles.sort();
    assert_eq!(titles, ["prompt A", "prompt B"]);
}

// ---------------------------------------------------------------------------
// 8. Fork fidelity.

/// A writable copy of a fixture laid out like `$CLAUDE_CONFIG_DIR`.
fn config_copy(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(fixture(name).parent().unwrap(), tmp.path());
    let projects = tmp.path().join("projects");
    (tmp, projects)
}

#[test]
fn a_fork_keeps_code_restore() {
    let (tmp, projects) = config_copy("tui");
    let (main, _) = sessions("tui");
    let src = lines(&project_dir("tui").join(format!("{main}.jsonl")));
    let reply = src
        .iter()
        .find(|v| {
            v["type"] == "assistant"
                && v["message"]["content"][0]["text"].as_str().is_some_and(|t| t.starts_with("Done with: third"))
        })
        .unwrap();
    let out = cctree()
        .args(["fork", &main, "--at", reply["uuid"].as_str().unwrap(), "--json", "--projects"])
        .arg(&projects)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = plan["new_session_id"].as_str().unwrap();
    let fork = lines(Path::new(plan["path"].as_str().unwrap()));
    let snapshots: Vec<&Value> = fork.iter().filter(|v| v["type"] == "file-history-snapshot").collect();
    let prompts: Vec<&str> = fork.iter().filter(|v| v["type"] == "user").filter_map(|v| v["uuid"].as_str()).collect();
    assert!(snapshots.len() >= 3, "the prefix prompts' snapshots are copied");
    assert!(snapshots.iter().all(|s| prompts.contains(&s["messageId"].as_str().unwrap())));
    let linked = tmp.path().join("file-history").join(id);
    let names: Vec<_> = std::fs::read_dir(&linked).unwrap().flatten().collect();
    assert!(!names.is_empty());
    for n in names {
        use std::os::unix::fs::MetadataExt;
        let original = tmp.path().join("file-history").join(&main).join(n.file_name());
        assert_eq!(
            n.metadata().unwrap().ino(),
            original.metadata().unwrap().ino(),
            "hard-linked like the client's own fork"
        );
    }
}

/// Every file under `dir` with its bytes.
fn files_of(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(e.path()).unwrap()))
        .collect()
}

/// A session the client deleted, kept by `cctree sync`, is forked
/// into the client's projects directory (the project's directory made
/// again) with its backups in the client's `file-history/`, whichever way it
/// is named (its id found in the archive, `--projects <archive>`, its file in
/// the archive); the archive is left as it was and the command printed is
/// `cd <cwd> && claude -r <id>` (after `mkdir -p <cwd>` when the directory
/// is gone).
#[test]
fn a_fork_from_the_archive_lands_where_the_client_resumes_it() {
    let (tmp, projects) = config_copy("tui");
    let (main, _) = sessions("tui");
    let archive = tmp.path().join("data/cctree/projects");
    let synced = cctree().args(["-q", "sync"]).arg(&projects).arg("--to").arg(&archive).output().unwrap();
    assert!(synced.status.success(), "{}", String::from_utf8_lossy(&synced.stderr));
    // The client's cleanup deletes the project's transcripts and the backups.
    let project = project_dir("tui").file_name().unwrap().to_owned();
    std::fs::remove_dir_all(projects.join(&project)).unwrap();
    std::fs::remove_dir_all(tmp.path().join("file-history")).unwrap();
    let before = files_of(archive.parent().unwrap());
    let src = lines(&archive.join(&project).join(format!("{main}.jsonl")));
    let reply = src
        .iter()
        .find(|v| {
            v["type"] == "assistant"
                && v["message"]["content"][0]["text"].as_str().is_some_and(|t| t.starts_with("Done with: third"))
        })
        .unwrap();
    let at = reply["uuid"].as_str().unwrap();
    let session_file = archive.join(&project).join(format!("{main}.jsonl"));
    let ways: [(&str, Vec<std::ffi::OsString>); 3] = [
        ("by id, found in the archive", vec![main.clone().into()]),
        ("--projects <archive>", vec![main.clone().into(), "--projects".into(), archive.clone().into()]),
        ("its file in the archive", vec![session_file.into()]),
    ];
    for (how, target) in ways {
        let out = cctree()
            .arg("fork")
            .args(&target)
            .args(["--at", at, "--json"])
            .env("HOME", tmp.path().join("home"))
            .env("CLAUDE_CONFIG_DIR", tmp.path())
            .env("CCTREE_ARCHIVE", &archive)
            .current_dir(tmp.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{how}: {}", String::from_utf8_lossy(&out.stderr));
        let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
        let id = plan["new_session_id"].as_str().unwrap();
        let path = PathBuf::from(plan["path"].as_str().unwrap());
        assert_eq!(path, projects.join(&project).join(format!("{id}.jsonl")), "{how}: into the client's directory");
        assert!(path.is_file(), "{how}");
        let linked = tmp.path().join("file-history").join(id);
        let names: Vec<_> = std::fs::read_dir(&linked).unwrap_or_else(|e| panic!("{how}: {e}")).flatten().collect();
        assert!(!names.is_empty(), "{how}: backups in the client's file-history/");
        for n in names {
            let kept = archive.parent().unwrap().join("file-history").join(&main).join(n.file_name());
            assert_eq!(std::fs::read(n.path()).unwrap(), std::fs::read(kept).unwrap(), "{how}");
        }
        let cwd = reply["cwd"].as_str().unwrap();
        assert_eq!(plan["command"], format!("claude -r {id}"), "{how}");
        // The recorded working directory is not on this machine: the command makes it again.
        let resume = format!("cd {cwd} && claude -r {id}");
        let shell = if Path::new(cwd).is_dir() { resume } else { format!("mkdir -p {cwd} && {resume}") };
        assert_eq!(plan["shell"], shell, "{how}");
        assert_eq!(files_of(archive.parent().unwrap()), before, "{how}: nothing written into the archive");
    }
}

#[test]
fn a_fork_at_the_root_prompt_keeps_its_context_and_says_how_claude_answers_it() {
    let (_tmp, projects) = config_copy("print");
    let (main, _) = sessions("print");
    let src = lines(&project_dir("print").join(format!("{main}.jsonl")));
    let root = src.iter().find(|v| v["type"] == "user" && v["parentUuid"].is_null()).unwrap();
    let out = cctree()
        .args(["fork", &main, "--at", root["uuid"].as_str().unwrap(), "--json", "--projects"])
        .arg(&projects)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    let fork = lines(Path::new(plan["path"].as_str().unwrap()));
    let kinds: Vec<&str> = fork.iter().filter_map(|v| v["attachment"]["type"].as_str()).collect();
    assert!(
        kinds.contains(&"environment") && kinds.last() == Some(&"prompt_snapshot"),
        "the prompt's context: {kinds:?}"
    );
    assert_eq!(plan["tip"], fork.iter().rev().find(|v| v.get("uuid").is_some()).unwrap()["uuid"]);
    assert!(plan["command"].as_str().unwrap().starts_with("CLAUDE_CODE_RESUME_INTERRUPTED_TURN=1 claude -r "));
}

// ---------------------------------------------------------------------------
// 9. Smaller.

#[test]
fn a_branch_ending_a_renamed_session_carries_its_name() {
    let d = detail("tui");
    let titles: Vec<&str> = d.conversations[0].branches.iter().map(|b| b.title.as_str()).collect();
    assert!(titles.contains(&"first tui prompt [[bash: echo hi]] (Branch)"), "the /branch copy's name: {titles:?}");
    assert!(titles.contains(&"Alpha title"), "the renamed original's line: {titles:?}");
}

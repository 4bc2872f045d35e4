//! Incremental rendering and safe output: a re-render after
//! appends, new files, deleted and rewritten files gives the same bytes as a
//! fresh render; unchanged projects are not read and unchanged pages are not
//! written; `--force` rewrites everything; a failed or killed render leaves
//! the previous site byte-identical, and the next run tidies up.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use cctree::build::output::FAULT_ENV;
use cctree::build::{BuildOptions, BuildSummary, build};
use cctree::discover;
use serde_json::{Value, json};

use crate::support::{cctree, example_archive, real_projects};

fn render_with(input: &Path, out: &Path, force: bool) -> BuildSummary {
    let archive = discover::discover(&[input.to_path_buf()]).expect("discover");
    let opts = BuildOptions { output: out.to_path_buf(), page_size: 4, force, ..BuildOptions::default() };
    build(archive, &opts).expect("render")
}

fn render(input: &Path, out: &Path) -> BuildSummary {
    render_with(input, out, false)
}

/// Every file of a site but its cache, relative, with its bytes.
fn site_files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().strip_prefix(dir).unwrap().to_path_buf())
        .filter(|rel| !rel.starts_with(".cctree-cache"))
        .map(|rel| {
            let bytes = std::fs::read(dir.join(&rel)).unwrap();
            (rel, bytes)
        })
        .collect()
}

/// Asserts the incrementally rendered `site` equals a fresh render of `input`.
fn assert_same_as_fresh(input: &Path, site: &Path) {
    let fresh = tempfile::tempdir().unwrap();
    let fresh_site = fresh.path().join("site");
    render_with(input, &fresh_site, true);
    let (a, b) = (site_files(site), site_files(&fresh_site));
    let only_a: Vec<_> = a.keys().filter(|k| !b.contains_key(*k)).collect();
    let only_b: Vec<_> = b.keys().filter(|k| !a.contains_key(*k)).collect();
    assert!(only_a.is_empty() && only_b.is_empty(), "only incremental: {only_a:?}\nonly fresh: {only_b:?}");
    let differ: Vec<_> = a.iter().filter(|(k, v)| b[*k] != **v).map(|(k, _)| k).collect();
    assert!(differ.is_empty(), "files differ from a fresh render: {differ:?}");
}

fn copy_tree(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from).into_iter().filter_map(Result::ok) {
        let dest = to.join(e.path().strip_prefix(from).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// An archive to modify: the example archive plus two real projects.
fn archive() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let projects = dir.path().join("projects");
    copy_tree(&example_archive(), &projects);
    for name in ["-experiments-ideas", "-src-experiments-claude_p"] {
        copy_tree(&real_projects().join(name), &projects.join(name));
    }
    dir
}

fn session(projects: &Path) -> PathBuf {
    projects.join("-home-alice-notes/5e5510b1-0000-4000-8000-0000000000b1.jsonl")
}

/// The last main-thread message of a session file: (uuid, sessionId, cwd).
fn last_message(file: &Path) -> (String, String, String) {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["uuid"].is_string() && v["isSidechain"] != json!(true))
        .filter(|v| matches!(v["type"].as_str(), Some("user" | "assistant")))
        .map(|v| {
            let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
            (s("uuid"), s("sessionId"), s("cwd"))
        })
        .next()
        .expect("a message")
}

/// The lines of one more turn (a prompt and its answer) after the session's last message.
fn turn_lines(file: &Path, n: u32) -> Vec<String> {
    let (parent, session, cwd) = last_message(file);
    let prompt = format!("a0000000-0000-4000-8000-{n:012}");
    let answer = format!("a1000000-0000-4000-8000-{n:012}");
    let user = json!({
        "parentUuid": parent, "isSidechain": false, "type": "user", "sessionId": session, "cwd": cwd,
        "version": "2.1.42", "uuid": prompt, "timestamp": format!("2030-01-01T00:00:{:02}.000Z", n % 60),
        "message": {"role": "user", "content": format!("Appended question number {n}")}
    });
    let assistant = json!({
        "parentUuid": prompt, "isSidechain": false, "type": "assistant", "sessionId": session, "cwd": cwd,
        "version": "2.1.42", "uuid": answer, "timestamp": format!("2030-01-01T00:00:{:02}.500Z", n % 60),
        "message": {"model": "claude-sonnet-4-5-20250929", "id": format!("msg_appended_{n}"), "type": "message",
            "role": "assistant", "content": [{"type": "text", "text": format!("Appended answer number {n}")}],
            "stop_reason": "end_turn", "usage": {"input_tokens": 3, "output_tokens": 5}}
    });
    vec![user.to_string(), assistant.to_string()]
}

fn append(file: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(file).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

fn append_turn(file: &Path, n: u32) {
    append(file, &(turn_lines(file, n).join("\n") + "\n"));
}

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/// One more turn whose prompt shows an image.
fn append_turn_with_image(file: &Path, n: u32) {
    let mut lines = turn_lines(file, n);
    let mut user: Value = serde_json::from_str(&lines[0]).unwrap();
    user["message"]["content"] = json!([
        {"type": "text", "text": format!("Appended question number {n}, with a picture")},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
    ]);
    lines[0] = user.to_string();
    append(file, &(lines.join("\n") + "\n"));
}

#[test]
fn appended_turn_is_parsed_alone_and_matches_a_fresh_render() {
    let dir = archive();
    let projects = dir.path().join("projects");
    let site = dir.path().join("site");
    let first = render(&projects, &site);
    assert_eq!(first.files_reused, 0);
    assert_eq!((first.load.files_resumed, first.load.files_reused), (0, 0));

    append_turn(&session(&projects), 1);
    let s = render(&projects, &site);
    assert_eq!(s.load.files_resumed, 1, "{s:?}");
    assert_eq!(s.load.files_parsed, 0, "{s:?}");
    assert_eq!(s.projects_reused, s.projects - 1, "only the changed project is read");
    assert!(s.load.bytes_parsed < 2000, "only the appended bytes are parsed: {s:?}");
    assert!(s.files_reused > s.files_written, "{s:?}");
    assert!(s.pages_rendered < first.pages_rendered, "other conversations' pages are not rendered: {s:?}");
    assert!(site.join("-home-alice-notes").is_dir());
    let page =
        std::fs::read_to_string(site.join("-home-alice-notes/c/b0000000-0000-4000-8000-000000000001/index.html"));
    let all: String = site_files(&site).values().map(|b| String::from_utf8_lossy(b).into_owned()).collect();
    assert!(all.contains("Appended answer number 1"), "{page:?}");
    assert_same_as_fresh(&projects, &site);

    // Twice more, so that the cache written by an incremental render is used too.
    append_turn(&session(&projects), 2);
    let s = render(&projects, &site);
    assert_eq!((s.load.files_resumed, s.load.files_parsed), (1, 0), "{s:?}");
    assert_same_as_fresh(&projects, &site);
}

#[cfg(unix)]
fn inode(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).ino()
}

/// The notes conversation, three pages at four turns a page.
const NOTES: &str = "-home-alice-notes/c/b0000000-0000-4000-8000-000000000001/";

/// A track that grew renders its first page (its facts) and its last one;
/// the pages between are linked from the previous site, with their docs of
/// the search index, whose unit mixes their postings with the new ones.
/// A turn that opens a new page changes every page's pager: all are
/// rendered. Each time, the site is the same as a fresh render.
#[cfg(unix)]
#[test]
fn a_grown_track_renders_its_first_and_last_pages_only() {
    let dir = archive();
    let projects = dir.path().join("projects");
    let site = dir.path().join("site");
    render(&projects, &site);
    let conv = site.join(NOTES);
    let middle = [conv.join("page-2.html"), conv.join("search-2.js")];
    let before: Vec<u64> = middle.iter().map(|p| inode(p)).collect();
    assert!(!conv.join("page-4.html").exists());

    append_turn(&session(&projects), 1);
    let s = render(&projects, &site);
    assert_eq!(s.pages_rendered, 2, "the first and the last page of the grown track: {s:?}");
    assert_eq!(middle.iter().map(|p| inode(p)).collect::<Vec<_>>(), before, "the middle page is re-used");
    let first = std::fs::read_to_string(conv.join("index.html")).unwrap();
    let middle_page = std::fs::read_to_string(&middle[0]).unwrap();
    assert!(first.contains("class=\"facts\""), "the first page keeps the conversation's facts");
    assert!(!middle_page.contains("class=\"facts\""), "later pages link to them");
    assert_same_as_fresh(&projects, &site);

    // Until the last page is full, then one page more.
    let mut n = 2;
    while !conv.join("page-4.html").exists() {
        append_turn(&session(&projects), n);
        let s = render(&projects, &site);
        assert!(n < 10, "no new page after {n} turns: {s:?}");
        assert_same_as_fresh(&projects, &site);
        n += 1;
    }
    let s = render(&projects, &site);
    assert_eq!(s.files_written, 0, "{s:?}");
}

/// Every file of a site, its cache included: its inode, change time and bytes.
#[cfg(unix)]
fn stamps(dir: &Path) -> BTreeMap<PathBuf, (u64, i64, i64, Vec<u8>)> {
    use std::os::unix::fs::MetadataExt;
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let m = e.metadata().unwrap();
            let rel = e.path().strip_prefix(dir).unwrap().to_path_buf();
            (rel, (m.ino(), m.ctime(), m.ctime_nsec(), std::fs::read(e.path()).unwrap()))
        })
        .collect()
}

/// A re-render updates the site in place. A file whose bytes did
/// not change is not touched (same inode, same change time: not even
/// linked again), the files that changed are written, what the new site
/// lacks is removed, nothing is left beside the site, and the site is the
/// same as a fresh render.
#[cfg(unix)]
#[test]
fn an_appended_turn_writes_only_the_files_that_change() {
    let dir = archive();
    let projects = dir.path().join("projects");
    let site = dir.path().join("site");
    render(&projects, &site);
    std::fs::write(site.join("CNAME"), "x.example\n").unwrap();
    for n in 1..=3 {
        let before = stamps(&site);
        std::thread::sleep(std::time::Duration::from_millis(20));
        // The first turn shows an image: the later ones render its page
        // again, and the image, unchanged, is not written again.
        if n == 1 {
            append_turn_with_image(&session(&projects), n);
        } else {
            append_turn(&session(&projects), n);
        }
        let s = render(&projects, &site);
        let after = stamps(&site);
        let mut changed = Vec::new();
        for (rel, (ino, sec, nsec, bytes)) in &after {
            match before.get(rel) {
                Some((i, s, ns, b)) if b == bytes => {
                    assert_eq!(
                        (i, s, ns),
                        (ino, sec, nsec),
                        "turn {n}: {} did not change but was touched",
                        rel.display()
                    );
                }
                _ => changed.push(rel.clone()),
            }
        }
        assert!(changed.iter().any(|r| r.starts_with(NOTES)), "turn {n}: the grown conversation's pages: {changed:?}");
        let images = changed.iter().filter(|r| r.starts_with("assets/img")).count();
        assert_eq!(images, usize::from(n == 1), "turn {n}: the image is written once: {changed:?}");
        // Nothing of the projects that did not change.
        let other = |r: &PathBuf| r.to_string_lossy().starts_with('-') && !r.starts_with("-home-alice-notes");
        assert!(!changed.iter().any(other), "turn {n}: {changed:?}");
        assert_eq!(s.files_written, changed.len(), "turn {n}: {s:?} {changed:?}");
        assert_eq!(std::fs::read_to_string(site.join("CNAME")).unwrap(), "x.example\n");
        assert_eq!(siblings(dir.path()), ["projects", "site"], "nothing left beside the site");
        // A fresh render has no CNAME: compared without it, then put back.
        std::fs::remove_file(site.join("CNAME")).unwrap();
        assert_same_as_fresh(&projects, &site);
        std::fs::write(site.join("CNAME"), "x.example\n").unwrap();
    }
}

/// Each transcript file has its parse cache: a turn appended to one file of
/// a project writes that file's cache, the others' are linked.
#[cfg(unix)]
#[test]
fn only_the_parse_cache_of_the_grown_file_is_written() {
    let dir = archive();
    let projects = dir.path().join("projects");
    let site = dir.path().join("site");
    render(&projects, &site);
    let weather = projects.join("-home-alice-src-weather-cli");
    let caches = |site: &Path| -> BTreeMap<String, u64> {
        let manifest: Value =
            serde_json::from_slice(&std::fs::read(site.join(".cctree-cache/manifest.json")).unwrap()).unwrap();
        let record =
            manifest["projects"].as_array().unwrap().iter().find(|p| p["slug"] == "-home-alice-src-weather-cli");
        let paths = record.unwrap()["parse"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string());
        paths.map(|p| (p.clone(), inode(&site.join(&p)))).collect()
    };
    let before = caches(&site);
    assert_eq!(before.len(), 3, "one per transcript (two sessions, an agent): {before:?}");
    append_turn(&weather.join("5e5510a2-0000-4000-8000-0000000000a2.jsonl"), 7);
    render(&projects, &site);
    let after = caches(&site);
    let same: Vec<_> = before.iter().filter(|(p, i)| after.get(*p) == Some(i)).collect();
    assert_eq!(same.len(), 2, "the other files' caches are linked: {before:?} {after:?}");
    assert_same_as_fresh(&projects, &site);
}

/// The parent of the session file's second typed prompt, with the session's
/// id and working directory: where a rewind asks again.
fn second_prompt_parent(file: &Path) -> (String, String, String) {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == json!("user") && v["message"]["content"].is_string())
        .map(|v| {
            let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
            (s("parentUuid"), s("sessionId"), s("cwd"))
        })
        .nth(1)
        .expect("two prompts")
}

/// A prompt answered again from an early message of a multi-page track (a
/// rewind): a new branch, a fork point on a page in the middle, every page
/// of the conversation rendered again, the same as a fresh render.
#[test]
fn a_new_fork_on_a_multi_page_track_matches_a_fresh_render() {
    let dir = archive();
    let projects = dir.path().join("projects");
    let site = dir.path().join("site");
    render(&projects, &site);
    let file = session(&projects);
    // The rewind asks again from there.
    let (parent, session_id, cwd) = second_prompt_parent(&file);
    let prompt = json!({
        "parentUuid": parent, "isSidechain": false, "type": "user", "sessionId": session_id, "cwd": cwd,
        "version": "2.1.42", "uuid": "f0000000-0000-4000-8000-000000000001",
        "timestamp": "2030-01-02T00:00:00.000Z",
        "message": {"role": "user", "content": "Asked again after a rewind"}
    });
    let answer = json!({
        "parentUuid": "f0000000-0000-4000-8000-000000000001", "isSidechain": false, "type": "assistant",
        "sessionId": session_id, "cwd": cwd, "version": "2.1.42", "uuid": "f1000000-0000-4000-8000-000000000001",
        "timestamp": "2030-01-02T00:00:01.000Z",
        "message": {"model": "claude-sonnet-4-5-20250929", "id": "msg_rewound", "type": "message",
            "role": "assistant", "content": [{"type": "text", "text": "Answered on a new branch"}],
            "stop_reason": "end_turn", "usage": {"input_tokens": 3, "output_tokens": 5}}
    });
    append(&file, &format!("{prompt}\n{answer}\n"));
    let s = render(&projects, &site);
    assert!(site.join(NOTES).join("b").is_dir(), "the conversation has branches now: {s:?}");
    assert_same_as_fresh(&projects, &site);

    // A turn appended to the new branch.
    append_turn(&file, 1);
    render(&projects, &site);
    assert_same_as_fresh(&projects, &site);
}

#[test]
fn a_torn_last_line_is_parsed_again_once_completed() {
    let dir = archive();
    let projects = dir.path().join("projects");
    let site = dir.path().join("site");
    render(&projects, &site);
    let file = session(&projects);
    let lines = turn_lines(&file, 7);
    let text = lines.join("\n") + "\n";
    let cut = lines[0].len() + 1 + lines[1].len() / 2;
    append(&file, &text[..cut]);
    let s = render(&projects, &site);
    assert!(s.warnings > 0, "the torn line is a warning");
    assert_same_as_fresh(&projects, &site);
    append(&file, &text[cut..]);
    let s = render(&projects, &site);
    assert_eq!(s.load.files_resumed, 1);
    assert_same_as_fresh(&projects, &site);
}

#[test]
fn new_deleted_and_rewritten_files_match_a_fresh_render() {
    let dir = archive();
    let projects = dir.path().join("projects");
    let site = dir.path().join("site");
    render(&projects, &site);

    // A new session in an existing project, continuing an existing one.
    let file = session(&projects);
    let (parent, _, cwd) = last_message(&file);
    let new = projects.join("-home-alice-notes/5e5510b2-0000-4000-8000-0000000000b2.jsonl");
    let line = json!({
        "parentUuid": parent, "type": "user", "sessionId": "5e5510b2-0000-4000-8000-0000000000b2", "cwd": cwd,
        "uuid": "c0000000-0000-4000-8000-000000000001", "timestamp": "2030-02-01T00:00:00.000Z",
        "message": {"role": "user", "content": "A new session goes on"}
    });
    std::fs::write(&new, format!("{line}\n")).unwrap();
    let s = render(&projects, &site);
    assert_eq!(s.load.files_parsed, 1, "{s:?}");
    assert_same_as_fresh(&projects, &site);

    // A new project.
    copy_tree(&real_projects().join("-experiments-worktrees"), &projects.join("-experiments-worktrees"));
    let s = render(&projects, &site);
    assert_eq!(s.projects_reused, s.projects - 1);
    assert_same_as_fresh(&projects, &site);

    // A deleted file, then a deleted project.
    std::fs::remove_file(&new).unwrap();
    render(&projects, &site);
    assert_same_as_fresh(&projects, &site);
    std::fs::remove_dir_all(projects.join("-experiments-ideas")).unwrap();
    render(&projects, &site);
    assert_same_as_fresh(&projects, &site);
    assert!(!site.join("-experiments-ideas").exists());

    // A rewritten file (its old bytes are no longer its first bytes).
    let text = std::fs::read_to_string(&file).unwrap();
    let kept: Vec<&str> = text.lines().take(text.lines().count() - 4).collect();
    std::fs::write(&file, kept.join("\n") + "\n").unwrap();
    append_turn(&file, 3);
    let s = render(&projects, &site);
    assert_eq!((s.load.files_parsed, s.load.files_resumed), (1, 0), "{s:?}");
    assert_same_as_fresh(&projects, &site);
}

fn mtimes(dir: &Path) -> BTreeMap<PathBuf, std::time::SystemTime> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().to_path_buf(), e.metadata().unwrap().modified().unwrap()))
        .collect()
}

#[test]
fn no_change_rewrites_nothing_and_force_rewrites_everything() {
    let dir = archive();
    let projects = dir.path().join("projects");
    let site = dir.path().join("site");
    let first = render(&projects, &site);
    let before = mtimes(&site);
    let s = render(&projects, &site);
    assert_eq!(s.files_written, 0);
    assert_eq!(s.projects_reused, s.projects);
    assert_eq!(s.load.files_parsed + s.load.files_resumed, 0);
    assert_eq!((s.pages, s.images, s.conversations), (first.pages, first.images, first.conversations));
    assert_eq!(mtimes(&site), before, "no file was touched");

    let s = render_with(&projects, &site, true);
    assert_eq!(s.files_reused, 0, "--force links nothing: {s:?}");
    assert_eq!(s.load.files_resumed + s.load.files_reused, 0, "--force parses everything: {s:?}");
    assert!(s.files_written >= s.pages);
    assert_same_as_fresh(&projects, &site);

    // Another page size is another site: everything is rendered again.
    let archive = discover::discover(std::slice::from_ref(&projects)).unwrap();
    let opts = BuildOptions { output: site.clone(), page_size: 50, ..BuildOptions::default() };
    let s = build(archive, &opts).unwrap();
    assert_eq!(s.projects_reused, 0);
}

#[test]
fn a_corrupt_cache_is_ignored() {
    let dir = archive();
    let projects = dir.path().join("projects");
    let site = dir.path().join("site");
    render(&projects, &site);
    for e in walkdir::WalkDir::new(site.join(".cctree-cache")).into_iter().filter_map(Result::ok) {
        if e.file_type().is_file() {
            std::fs::write(e.path(), "{ not json").unwrap();
        }
    }
    append_turn(&session(&projects), 4);
    let s = render(&projects, &site);
    assert_eq!(s.files_reused, 0);
    assert_same_as_fresh(&projects, &site);
    append_turn(&session(&projects), 5);
    render(&projects, &site);
    assert_same_as_fresh(&projects, &site);
}

fn siblings(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn a_failed_render_leaves_the_previous_site_byte_identical() {
    let dir = archive();
    let projects = dir.path().join("projects");
    let site = dir.path().join("site");
    render(&projects, &site);
    let before = site_files(&site);
    append_turn(&session(&projects), 6);
    for n in [1, 3, 10, 40] {
        let out = cctree()
            .args(["render", "-q", "--page-size", "4", "-o"])
            .arg(&site)
            .arg(&projects)
            .env(FAULT_ENV, format!("fail:{n}"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stderr).contains("injected write failure"));
        assert_eq!(site_files(&site), before, "failure at write {n}");
        assert_eq!(siblings(dir.path()), ["projects", "site"], "the temporary directory is removed");
    }
    // A failure in the swap itself (after everything was written).
    let out = cctree()
        .args(["render", "-q", "--page-size", "4", "-o"])
        .arg(&site)
        .arg(&projects)
        .env(FAULT_ENV, "fail:100000")
        .output();
    assert!(out.unwrap().status.success(), "fewer operations than that");
    assert_same_as_fresh(&projects, &site);
}

#[test]
fn a_killed_render_leaves_the_previous_site_and_is_tidied_next_time() {
    let dir = archive();
    let projects = dir.path().join("projects");
    let site = dir.path().join("site");
    render(&projects, &site);
    let before = site_files(&site);
    append_turn(&session(&projects), 8);
    let mut child = cctree()
        .args(["render", "-q", "--page-size", "4", "-o"])
        .arg(&site)
        .arg(&projects)
        .env(FAULT_ENV, "stall:5")
        .spawn()
        .unwrap();
    let tmp = dir.path().join(format!(".site.cctree-tmp-{}", child.id()));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !tmp.join(".cctree-site").exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    assert!(tmp.exists(), "the killed run left its temporary directory");
    assert_eq!(site_files(&site), before, "the previous site is complete");

    let out = cctree().args(["render", "-q", "--page-size", "4", "-o"]).arg(&site).arg(&projects).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(siblings(dir.path()), ["projects", "site"], "leftovers are removed");
    assert_same_as_fresh(&projects, &site);
}

#[test]
fn output_errors_have_exit_code_2_and_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();

    // An output under a regular file (root ignores permissions, not this).
    let out = cctree().args(["render", "-q", "-o"]).arg(file.join("site")).arg(example_archive()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot write the output directory") && err.contains("a-file/site"), "{err}");
    assert!(err.contains("choose another -o"), "{err}");

    // The output is a file.
    let out = cctree().args(["render", "-q", "-o"]).arg(&file).arg(example_archive()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a directory"));

    // A directory cctree did not write.
    let foreign = dir.path().join("foreign");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join("keep.txt"), "mine").unwrap();
    let out = cctree().args(["render", "-q", "-o"]).arg(&foreign).arg(example_archive()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not written by cctree"));
    assert_eq!(std::fs::read_to_string(foreign.join("keep.txt")).unwrap(), "mine");

    // A missing input.
    let out = cctree().args(["render", "-q", "-o"]).arg(dir.path().join("s")).arg(dir.path().join("nope")).output();
    assert_eq!(out.unwrap().status.code(), Some(2));
}

#[test]
fn an_unreadable_file_is_a_warning_and_the_rest_is_rendered() {
    let dir = archive();
    let projects = dir.path().join("projects");
    let broken = projects.join("-home-alice-notes/5e5510b9-0000-4000-8000-0000000000b9.jsonl");
    std::os::unix::fs::symlink(dir.path().join("gone.jsonl"), &broken).unwrap();
    let site = dir.path().join("site");
    let out = cctree().args(["render", "-o"]).arg(&site).arg(&projects).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("5e5510b9"), "the warning names the file: {err}");
    assert!(site.join("-home-alice-notes/index.html").is_file());
}

/// Every real project: a turn appended to each main session, a line to each
/// agent transcript, and a new session resuming one: the same as a fresh render.
#[test]
fn real_corpus_appends_match_a_fresh_render() {
    let dir = tempfile::tempdir().unwrap();
    let projects = dir.path().join("projects");
    copy_tree(&real_projects(), &projects);
    let site = dir.path().join("site");
    let first = render(&projects, &site);
    let mut n = 100;
    let mut agents = 0;
    for e in walkdir::WalkDir::new(&projects).sort_by_file_name().into_iter().filter_map(Result::ok) {
        let path = e.path();
        if path.extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let is_agent = path.file_name().is_some_and(|f| f.to_string_lossy().starts_with("agent-"));
        if is_agent {
            if agents < 3 {
                // Repeat its last line with a new uuid: a sidechain node.
                let text = std::fs::read_to_string(path).unwrap();
                if let Some(mut v) = text.lines().rev().find_map(|l| serde_json::from_str::<Value>(l).ok()) {
                    if v["uuid"].is_string() {
                        v["parentUuid"] = v["uuid"].clone();
                        v["uuid"] = json!(format!("ag000000-0000-4000-8000-{n:012}"));
                        append(path, &format!("{v}\n"));
                        agents += 1;
                        n += 1;
                    }
                }
            }
        } else if std::fs::read_to_string(path).unwrap().contains("\"isSidechain\":false") {
            append_turn(path, n);
            n += 1;
        }
    }
    let s = render(&projects, &site);
    assert!(s.load.files_resumed > 0 && s.load.files_parsed == 0, "{s:?}");
    assert!(s.pages_rendered <= first.pages_rendered, "{s:?}");
    assert_same_as_fresh(&projects, &site);
}

/// A new file holding a different copy of an existing uuid (a P1 conflict)
/// changes the page that shows the message: the incremental render must see it.
#[test]
fn a_new_conflicting_copy_is_shown_after_a_re_render() {
    let dir = archive();
    let projects = dir.path().join("projects");
    let site = dir.path().join("site");
    render(&projects, &site);
    let file = session(&projects);
    let first =
        std::fs::read_to_string(&file).unwrap().lines().find(|l| l.contains("\"type\":\"user\"")).unwrap().to_string();
    let mut v: Value = serde_json::from_str(&first).unwrap();
    v["message"]["content"] = json!("A conflicting copy of the first prompt");
    // A later session: the original stays canonical, the copy is an alias.
    v["sessionId"] = json!("zz-later-session");
    let other = file.with_file_name("0c0c0c0c-0000-4000-8000-000000000000.jsonl");
    std::fs::write(&other, format!("{}\n", serde_json::to_string(&v).unwrap())).unwrap();
    render(&projects, &site);
    assert_same_as_fresh(&projects, &site);
    let pages: String = site_files(&site)
        .into_iter()
        .filter(|(p, _)| p.extension().is_some_and(|x| x == "html"))
        .map(|(_, b)| String::from_utf8_lossy(&b).into_owned())
        .collect();
    assert!(pages.contains("A conflicting copy of the first prompt"));
}

/// Files a user adds to the output (for a static host) with their bytes.
const USER_FILES: [(&str, &str); 5] = [
    ("CNAME", "cctree.example.org\n"),
    (".nojekyll", ""),
    ("robots.txt", "User-agent: *\nDisallow:\n"),
    (".well-known/security.txt", "Contact: mailto:alice@example.org\n"),
    ("-home-alice-notes/notes-about-this-project.txt", "kept beside the project's pages\n"),
];

fn assert_user_files(site: &Path, when: &str) {
    for (rel, text) in USER_FILES {
        let got = std::fs::read_to_string(site.join(rel)).unwrap_or_else(|e| panic!("{when}: {rel}: {e}"));
        assert_eq!(got, text, "{when}: {rel}");
    }
    assert!(site.join("drafts").is_dir(), "{when}: the empty directory drafts/");
    #[cfg(unix)]
    assert_eq!(std::fs::read_link(site.join("latest")).unwrap(), Path::new("index.html"), "{when}: the link");
}

#[test]
fn user_files_in_the_output_survive_renders_and_force() {
    let a = archive();
    let projects = a.path().join("projects");
    let site = a.path().join("site");
    render(&projects, &site);
    for (rel, text) in USER_FILES {
        std::fs::create_dir_all(site.join(rel).parent().unwrap()).unwrap();
        std::fs::write(site.join(rel), text).unwrap();
    }
    std::fs::create_dir(site.join("drafts")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("index.html", site.join("latest")).unwrap();

    render(&projects, &site);
    assert_user_files(&site, "nothing changed");
    append_turn(&session(&projects), 1);
    render(&projects, &site);
    assert_user_files(&site, "a project changed");
    render_with(&projects, &site, true);
    assert_user_files(&site, "--force");
    // A project gone: its pages go, the user's file in its directory stays.
    std::fs::remove_dir_all(projects.join("-home-alice-notes")).unwrap();
    render(&projects, &site);
    assert_user_files(&site, "a project removed");
    assert!(!site.join("-home-alice-notes/index.html").exists(), "the removed project's pages are still there");
    // A page cctree wrote and the user edited is cctree's: --force restores it.
    std::fs::write(site.join("index.html"), "edited by hand").unwrap();
    render_with(&projects, &site, true);
    assert_ne!(std::fs::read_to_string(site.join("index.html")).unwrap(), "edited by hand");
}

#[test]
fn a_user_file_where_the_new_site_needs_a_page_stops_the_render() {
    let a = archive();
    let projects = a.path().join("projects");
    let notes = a.path().join("notes-aside");
    std::fs::rename(projects.join("-home-alice-notes"), &notes).unwrap();
    let site = a.path().join("site");
    render(&projects, &site);
    std::fs::create_dir(site.join("-home-alice-notes")).unwrap();
    std::fs::write(site.join("-home-alice-notes/index.html"), "mine").unwrap();
    let before = site_files(&site);
    std::fs::rename(&notes, projects.join("-home-alice-notes")).unwrap();
    let out = cctree().args(["-q", "render"]).arg(&projects).arg("-o").arg(&site).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("-home-alice-notes/index.html") && err.contains("not written by cctree"), "{err}");
    assert_eq!(site_files(&site), before, "the previous site and the user's file are untouched");
}

/// Rewrites `file` with `from` replaced by `to` (same length) and puts its
/// modification time back: the size and mtime are those of the old file.
fn rewrite_keeping_size_and_mtime(file: &Path, from: &str, to: &str) {
    assert_eq!(from.len(), to.len());
    let mtime = std::fs::metadata(file).unwrap().modified().unwrap();
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(from));
    std::fs::write(file, text.replacen(from, to, 1)).unwrap();
    std::fs::File::options().write(true).open(file).unwrap().set_modified(mtime).unwrap();
    let meta = std::fs::metadata(file).unwrap();
    assert_eq!((meta.len(), meta.modified().unwrap()), (text.len() as u64, mtime));
}

fn site_text(site: &Path) -> String {
    site_files(site).values().map(|b| String::from_utf8_lossy(b).into_owned()).collect()
}

/// A file rewritten with its size and mtime kept was not noticed
/// (the project was re-used whole) without `--force`.
#[test]
fn a_rewrite_keeping_size_and_mtime_is_noticed() {
    let dir = archive();
    let projects = dir.path().join("projects");
    let site = dir.path().join("site");
    render(&projects, &site);
    rewrite_keeping_size_and_mtime(&session(&projects), "in February?", "in Brumaire?");
    let s = render(&projects, &site);
    assert_eq!(s.projects_reused, s.projects - 1, "the rewritten file's project is read again: {s:?}");
    assert!(site_text(&site).contains("in Brumaire?"));
    assert_same_as_fresh(&projects, &site);
}

/// The parse cache: when another file of the project changed too,
/// a file rewritten with its size and mtime kept was trusted as parsed before.
#[test]
fn a_rewrite_keeping_size_and_mtime_is_parsed_again_when_its_project_changed_too() {
    let dir = archive();
    let projects = dir.path().join("projects");
    let site = dir.path().join("site");
    render(&projects, &site);
    rewrite_keeping_size_and_mtime(&session(&projects), "in February?", "in Brumaire?");
    let other = projects.join("-home-alice-notes/5e5510b3-0000-4000-8000-0000000000b3.jsonl");
    let line = json!({
        "parentUuid": null, "type": "user", "sessionId": "5e5510b3-0000-4000-8000-0000000000b3",
        "uuid": "c0000000-0000-4000-8000-0000000000b3", "timestamp": "2030-02-01T00:00:00.000Z",
        "message": {"role": "user", "content": "Another session"}
    });
    std::fs::write(&other, format!("{line}\n")).unwrap();
    let s = render(&projects, &site);
    assert_eq!((s.load.files_parsed, s.load.files_resumed), (2, 0), "both files are parsed in full: {s:?}");
    assert!(site_text(&site).contains("in Brumaire?"));
    assert_same_as_fresh(&projects, &site);
}

/// The cache manifest could name a parse cache outside
/// `.cctree-cache/` (an absolute path, `..`), and cctree read it.
#[test]
fn a_manifest_naming_a_file_outside_the_cache_is_not_read() {
    let dir = archive();
    let projects = dir.path().join("projects");
    let site = dir.path().join("site");
    let manifest_path = site.join(".cctree-cache/manifest.json");
    for (i, outside) in [dir.path().join("outside.json"), site.join("../outside.json")].into_iter().enumerate() {
        render(&projects, &site);
        let mut manifest: Value = serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
        let record =
            manifest["projects"].as_array_mut().unwrap().iter_mut().find(|p| p["slug"] == "-home-alice-notes").unwrap();
        // A parse cache that would pass for the real one, with a marked excerpt
        // of the same length, and its hash made again (the stored form: a
        // 16-byte magic line, the blake3 of the body, the body).
        // (One per transcript file: the project has one.)
        let mut forged = std::fs::read(site.join(record["parse"][0].as_str().unwrap())).unwrap();
        let (question, marked) =
            (b"How many notes did I write in February?", b"INJECTED BY A MANIFEST.................");
        let at = forged.windows(question.len()).position(|w| w == question).expect("the excerpt is in the cache");
        forged[at..at + marked.len()].copy_from_slice(marked);
        let hash = *blake3::hash(&forged[48..]).as_bytes();
        forged[16..48].copy_from_slice(&hash);
        std::fs::write(&outside, forged).unwrap();
        record["parse"] = json!([if i == 0 { outside.display().to_string() } else { "../outside.json".into() }]);
        std::fs::write(&manifest_path, serde_json::to_vec(&manifest).unwrap()).unwrap();
        append_turn(&session(&projects), 40 + i as u32);
        let s = render(&projects, &site);
        assert!(!site_text(&site).contains("INJECTED"), "case {i}: the outside file was read");
        assert!(s.warnings >= 1, "case {i}: the ignored manifest is a warning: {s:?}");
        assert_same_as_fresh(&projects, &site);
    }
}

/// A kill between the two renames of the swap left no site until
/// the next run. Another process watches the output throughout many swaps:
/// the site is there at every instant.
#[test]
fn a_complete_site_is_at_the_output_at_every_instant_of_a_swap() {
    let dir = tempfile::tempdir().unwrap();
    let projects = dir.path().join("projects");
    copy_tree(&example_archive().join("-home-alice-notes"), &projects.join("-home-alice-notes"));
    let site = dir.path().join("site");
    render(&projects, &site);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = {
        let (stop, marker, index) = (stop.clone(), site.join(".cctree-site"), site.join("index.html"));
        std::thread::spawn(move || {
            let (mut looks, mut missing) = (0u64, 0u64);
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                looks += 1;
                if !(marker.exists() && index.exists()) {
                    missing += 1;
                }
            }
            (looks, missing)
        })
    };
    for _ in 0..20 {
        let out = cctree().args(["-q", "render", "--force", "-o"]).arg(&site).arg(&projects).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (looks, missing) = watcher.join().unwrap();
    assert!(looks > 1000, "the watcher looked {looks} times");
    assert_eq!(missing, 0, "{missing} of {looks} looks found no site at the output");
    assert_eq!(siblings(dir.path()), ["projects", "site"], "no leftovers");
}

/// Images were written around the writer (with `std::fs::write`),
/// so the summary did not count them and fault injection never hit them.
#[test]
fn every_file_of_a_fresh_site_goes_through_the_writer() {
    let dir = archive();
    let projects = dir.path().join("projects");
    let site = dir.path().join("site");
    let s = render(&projects, &site);
    assert!(s.images > 0, "the archive shows an image: {s:?}");
    let files = walkdir::WalkDir::new(&site).into_iter().filter_map(Result::ok).filter(|e| e.file_type().is_file());
    assert_eq!(s.files_written, files.count(), "{s:?}");
}

/// With `.cctree-cache/` or its manifest missing or
/// corrupt, a render deleted the user's files in the output: ownership fell
/// back to "every top-level directory not starting with `.`". Without a
/// trustworthy record cctree now replaces only what it writes, keeps the
/// rest, and says so.
#[test]
fn user_files_survive_a_render_whose_cache_or_manifest_is_missing_or_corrupt() {
    let a = archive();
    let projects = a.path().join("projects");
    let site = a.path().join("site");
    let mine = [
        ("blog/post.html", "<p>my post</p>\n"),
        ("-home-alice-notes/my-notes.txt", "my notes\n"),
        ("CNAME", "x.example\n"),
    ];
    for damage in ["cache removed", "manifest removed", "manifest corrupt", "manifest empty"] {
        let _ = std::fs::remove_dir_all(&site);
        let o = cctree().args(["-q", "render"]).arg(&projects).arg("-o").arg(&site).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        for (rel, text) in mine {
            std::fs::create_dir_all(site.join(rel).parent().unwrap()).unwrap();
            std::fs::write(site.join(rel), text).unwrap();
        }
        let manifest = site.join(".cctree-cache/manifest.json");
        match damage {
            "cache removed" => std::fs::remove_dir_all(site.join(".cctree-cache")).unwrap(),
            "manifest removed" => std::fs::remove_file(&manifest).unwrap(),
            "manifest corrupt" => std::fs::write(&manifest, "{\"format\": 1, \"files\": [tru").unwrap(),
            _ => std::fs::write(&manifest, "").unwrap(),
        }
        let o = cctree().arg("render").arg(&projects).arg("-o").arg(&site).output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{damage}: {stderr}");
        for (rel, text) in mine {
            let got =
                std::fs::read_to_string(site.join(rel)).unwrap_or_else(|e| panic!("{damage}: {rel} deleted: {e}"));
            assert_eq!(got, text, "{damage}: {rel}");
        }
        assert!(site.join("-home-alice-notes/index.html").is_file(), "{damage}: the project's pages are written");
        assert!(stderr.contains("no record of what the previous render wrote"), "{damage}: {stderr}");
        assert!(stderr.contains("blog/post.html") || stderr.contains("CNAME"), "{damage}: names a kept file: {stderr}");
        // The next render has a manifest again: the files are the user's, silently.
        let o = cctree().arg("render").arg(&projects).arg("-o").arg(&site).output().unwrap();
        assert!(!String::from_utf8_lossy(&o.stderr).contains("no record"), "{damage}");
        assert_eq!(std::fs::read_to_string(site.join("blog/post.html")).unwrap(), mine[0].1);
    }
}

/// A prompt under `parent` and its answer, in `session` (uuids numbered by
/// `n`, times by `sec`): the lines, and the answer's uuid.
fn turn_under(parent: &str, (session, cwd): (&str, &str), n: u32, sec: u32) -> (String, String) {
    let prompt = format!("c0000000-0000-4000-8000-{n:012}");
    let answer = format!("c1000000-0000-4000-8000-{n:012}");
    let ts = |ms: u32| format!("2030-01-03T00:{:02}:{:02}.{ms:03}Z", sec / 60, sec % 60);
    let user = json!({
        "parentUuid": parent, "isSidechain": false, "type": "user", "sessionId": session, "cwd": cwd,
        "version": "2.1.42", "uuid": prompt, "timestamp": ts(0),
        "message": {"role": "user", "content": format!("Branch question number {n}")}
    });
    let assistant = json!({
        "parentUuid": prompt, "isSidechain": false, "type": "assistant", "sessionId": session, "cwd": cwd,
        "version": "2.1.42", "uuid": answer, "timestamp": ts(500),
        "message": {"model": "claude-sonnet-4-5-20250929", "id": format!("msg_branch_{n}"), "type": "message",
            "role": "assistant", "content": [{"type": "text", "text": format!("Branch answer number {n}")}],
            "stop_reason": "end_turn", "usage": {"input_tokens": 3, "output_tokens": 5}}
    });
    (format!("{user}\n{assistant}\n"), answer)
}

/// A compare page is keyed by what it shows (the branches of its
/// fork from the fork on), not by its whole conversation. Two forks, the
/// second on the branch the first one opens: a turn appended to the second
/// fork's new branch renders that fork's compare page again, not the first
/// one's (whose branches did not change), and the site is the same as a
/// fresh render.
#[cfg(unix)]
#[test]
fn a_turn_on_one_branch_leaves_another_forks_compare_page_unrendered() {
    let dir = archive();
    let projects = dir.path().join("projects");
    let site = dir.path().join("site");
    render(&projects, &site);
    let file = session(&projects);
    // The first rewind asks again from there.
    let (parent, session_id, cwd) = second_prompt_parent(&file);
    let at = (session_id.as_str(), cwd.as_str());
    // Fork 1 at `parent`: a branch of three turns; fork 2 after its first
    // turn: a branch of one turn, written last (the active line).
    let (a1, a1_answer) = turn_under(&parent, at, 1, 1);
    let (a2, a2_answer) = turn_under(&a1_answer, at, 2, 2);
    let (a3, a3_answer) = turn_under(&a2_answer, at, 3, 3);
    let (b1, b1_answer) = turn_under(&a1_answer, at, 4, 4);
    append(&file, &format!("{a1}{a2}{a3}{b1}"));
    let s = render(&projects, &site);
    assert_eq!(s.compare_rendered, 2, "both forks are new: {s:?}");
    let compare = |uuid: &str| site.join(NOTES).join(format!("compare/{uuid}/index.html"));
    let (first, second) = (compare(&parent), compare(&a1_answer));
    assert!(first.is_file() && second.is_file(), "{} {}", first.display(), second.display());
    let first_inode = inode(&first);
    let first_bytes = std::fs::read(&first).unwrap();
    assert_same_as_fresh(&projects, &site);

    let (b2, _) = turn_under(&b1_answer, at, 5, 5);
    append(&file, &b2);
    let s = render(&projects, &site);
    assert_eq!(s.compare_rendered, 1, "only the second fork's compare page shows the grown branch: {s:?}");
    assert!(std::fs::read_to_string(&second).unwrap().contains("Branch question number 5"));
    assert_eq!((inode(&first), std::fs::read(&first).unwrap()), (first_inode, first_bytes));
    assert_same_as_fresh(&projects, &site);

    // A turn on the first fork's branch after the second fork: that branch's
    // column of the first fork changes, and the second fork's first column.
    let (a4, _) = turn_under(&a3_answer, at, 6, 6);
    append(&file, &a4);
    let s = render(&projects, &site);
    assert_eq!(s.compare_rendered, 2, "{s:?}");
    assert_same_as_fresh(&projects, &site);
}

/// The words of a turn that differ from one turn to the next: a new term each
/// time, and terms that other conversations hold too, so that turns change
/// posting lists spread over the search index's shards.
fn append_worded_turn(file: &Path, n: u32) {
    let mut lines = turn_lines(file, n);
    let mut user: Value = serde_json::from_str(&lines[0]).unwrap();
    let words = ["cache", "retry", "notes", "garden", "parser", "render", "token", "branch"];
    let text = format!("Question {n}: word{n}x and {} with {}", words[n as usize % 8], words[(n as usize * 3) % 8]);
    user["message"]["content"] = json!(text);
    lines[0] = user.to_string();
    append(file, &(lines.join("\n") + "\n"));
}

/// The files of the search index's term shards, with their bytes.
fn shards(site: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    site_files(site).into_iter().filter(|(rel, _)| rel.starts_with("search/t")).collect()
}

/// After each of a sequence of appended turns, the site rendered over the
/// previous one is byte for byte a fresh render of the archive — search
/// shards, manifest and unit tables included — with one thread and with two,
/// and the two give the same search index (their pages name the input's
/// directory, which differs between the two archives).
#[test]
fn appended_turns_give_a_fresh_renders_index_with_one_and_two_threads() {
    let mut sites = Vec::new();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let dir = archive();
        let projects = dir.path().join("projects");
        let site = dir.path().join("site");
        pool.install(|| render(&projects, &site));
        for n in 1..=6 {
            append_worded_turn(&session(&projects), n);
            pool.install(|| render(&projects, &site));
            assert!(!shards(&site).is_empty(), "-j {threads}, turn {n}: the index has shards");
            assert_same_as_fresh(&projects, &site);
        }
        let index: BTreeMap<PathBuf, Vec<u8>> =
            site_files(&site).into_iter().filter(|(rel, _)| rel.starts_with("search")).collect();
        sites.push((index, dir));
    }
    let (a, b) = (&sites[0].0, &sites[1].0);
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    let differ: Vec<_> = a.iter().filter(|(k, v)| b[*k] != **v).map(|(k, _)| k).collect();
    assert!(differ.is_empty(), "-j 1 and -j 2 differ: {differ:?}");
}

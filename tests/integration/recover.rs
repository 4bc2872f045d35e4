//! Sessions whose transcript Claude Code's cleanup deleted are
//! shown from the prompt history ("transcript deleted by Claude Code's
//! cleanup — N prompts recovered"), under their project, in time order,
//! searchable; conversations only cctree's archive still holds are marked
//! "kept by cctree". Fixture: `tests/fixtures/history/` (its README says
//! what each history line is for).

use std::path::{Path, PathBuf};

use crate::browser::Driver;
use crate::support::cctree;

const SHOP: &str = "-home-ana-shop";
const BLOG: &str = "-home-ana-blog";
const D1: &str = "de1e7ed0-0000-4000-8000-000000000001";
const D2: &str = "de1e7ed0-0000-4000-8000-000000000002";
const D3: &str = "de1e7ed0-0000-4000-8000-000000000003";
const BLOG_SESSION: &str = "b10b0000-0000-4000-8000-000000000001";
const KEPT: &str = "a11ce000-0000-4000-8000-000000000002";

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/history")
}

/// A copy of the fixture (a Claude Code configuration directory) in `dir`.
fn config_copy(dir: &Path) -> PathBuf {
    let to = dir.join("claude");
    for e in walkdir::WalkDir::new(fixture()) {
        let e = e.unwrap();
        let rel = e.path().strip_prefix(fixture()).unwrap();
        if e.file_type().is_dir() {
            std::fs::create_dir_all(to.join(rel)).unwrap();
        } else if rel != Path::new("README.md") {
            std::fs::copy(e.path(), to.join(rel)).unwrap();
        }
    }
    to
}

/// A key a redaction must catch.
const SECRET: &str = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ";

/// Appends to the history of the copy `config` a prompt of session D1 (whose
/// transcript is gone) that holds [`SECRET`]; returns its line number.
fn add_secret_prompt(config: &Path) -> usize {
    let line = serde_json::json!({"display": format!("use the key {SECRET} for the webhook"), "pastedContents": {},
        "timestamp": 1_770_030_500_000_i64, "project": "/home/ana/shop", "sessionId": D1});
    let path = config.join("history.jsonl");
    let mut history = std::fs::read_to_string(&path).unwrap();
    history.push_str(&format!("{line}\n"));
    std::fs::write(&path, &history).unwrap();
    history.lines().count()
}

fn render(input: Option<&Path>, out: &Path, env: &[(&str, &Path)]) -> String {
    let mut cmd = cctree();
    cmd.arg("render");
    if let Some(i) = input {
        cmd.arg(i);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.arg("-o").arg(out).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "render failed: {stderr}");
    stderr
}

fn read(site: &Path, rel: &str) -> String {
    std::fs::read_to_string(site.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Every file under `dir` whose name is `name`, with its text.
fn files_named(dir: &Path, name: &str) -> Vec<(PathBuf, String)> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_name() == name)
        .map(|e| (e.path().to_path_buf(), std::fs::read_to_string(e.path()).unwrap()))
        .collect()
}

#[test]
fn history_lines_of_deleted_sessions_appear_on_the_site_in_time_order() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let stderr = render(Some(&fixture().join("projects")), &site, &[]);
    // The torn line of the history is a warning naming it, counted.
    assert!(stderr.contains("history.jsonl:7: not JSON"), "{stderr}");
    assert!(stderr.contains("1 warning"), "{stderr}");

    let index = read(&site, &format!("{SHOP}/index.html"));
    assert!(index.contains("2 conversations · 4 recovered from the prompt history"), "{index}");
    // Newest first, conversations and recovered sessions alike.
    let order: Vec<usize> = [
        "c/kept-u0/",
        "c/alive-u0/",
        &format!("r/{D2}/"),
        &format!("r/{D1}/"),
        "r/h-1767801600000/",
        "r/h-1767607200000/",
    ]
    .iter()
    .map(|href| index.find(&format!("href=\"{href}index.html\"")).unwrap_or_else(|| panic!("no row {href}: {index}")))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "rows out of time order: {order:?}");
    for label in [
        "transcript deleted by Claude Code&#39;s cleanup — 3 prompts recovered",
        "transcript deleted by Claude Code&#39;s cleanup — 1 prompt recovered",
    ] {
        assert_eq!(index.matches(label).count(), 2, "{label}: {index}");
    }

    // A session of the history: its prompts, pastes and all, in order.
    let d1 = read(&site, &format!("{SHOP}/r/{D1}/index.html"));
    let at = |s: &str| d1.find(s).unwrap_or_else(|| panic!("{s:?} missing: {d1}"));
    assert!(at("set up the stripe webhook handler") < at("fix this stack trace"));
    assert!(at("fix this stack trace") < at("panic: webhook signature mismatch"));
    assert!(at("panic: webhook signature mismatch") < at("!cargo test webhook"));
    assert!(d1.contains("<code>de1e7ed0-0000-4000-8000-000000000001</code>"));
    // Lines without a session id: one session until a gap of more than an hour.
    let jan = read(&site, &format!("{SHOP}/r/h-1767607200000/index.html"));
    for p in ["explain the pricing rules", "make the discount apply before tax", "/compact"] {
        assert!(jan.contains(p), "{p}: {jan}");
    }
    assert!(!jan.contains("invoice total"), "two days later is another session");

    // A prompt a surviving transcript holds is never shown as recovered:
    // the surviving sessions' own lines, a session copied by a fork (D3),
    // an old client's line typed minutes from the same prompt.
    assert!(!site.join(format!("{SHOP}/r/{D3}")).exists());
    assert!(!site.join(format!("{SHOP}/r/{KEPT}")).exists());
    for (path, html) in files_named(&site.join(SHOP).join("r"), "index.html") {
        for held in ["Add a retry to the checkout fetch", "Now write a test for the retry", "Rename the cart module"] {
            assert!(!html.contains(held), "{} shows {held:?}, which a transcript holds", path.display());
        }
    }

    // A project whose every transcript is gone is a project of its own.
    let blog = read(&site, &format!("{BLOG}/index.html"));
    assert!(blog.contains("<h1 class=\"path\">/home/ana/blog</h1>"), "named by its history's path: {blog}");
    assert!(blog.contains("0 conversations · 1 recovered from the prompt history"), "{blog}");
    let page = read(&site, &format!("{BLOG}/r/{BLOG_SESSION}/index.html"));
    assert!(page.contains("shorter, and mention the RSS feed"));
    let archive = read(&site, "index.html");
    assert!(archive.contains("5 sessions recovered from the prompt history"), "{archive}");
}

#[test]
fn history_lines_of_deleted_sessions_are_in_the_search_index() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    render(Some(&fixture().join("projects")), &site, &[]);
    // The unit of the recovered session, and a posting of its word.
    let units: String = files_named(&site.join("search/u"), "0.js").into_iter().map(|(_, t)| t).collect();
    let key = format!("{SHOP}/r/{D2}/");
    assert!(units.contains(&format!("\"{key}\"")), "no unit {key}: {units}");
    let shards: String = walkdir::WalkDir::new(site.join("search/t"))
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(shards.contains("\"zanzibar\""), "the word of a recovered prompt is not indexed");
    let docs = read(&site, &format!("{key}search-1.js"));
    assert!(docs.contains("add a zanzibar-flavoured loyalty badge to receipts"), "{docs}");

    // The site's own search, in Chromium, finds it and leads to its page.
    let Some(driver) = Driver::get() else { return };
    let rec = format!("{SHOP}/r/{D1}/index.html");
    let pages = format!("project={SHOP}/index.html,recovered={rec}");
    let shots = tmp.path().join("shots");
    let v = driver.run([
        "--site".as_ref(),
        site.as_os_str(),
        "--pages".as_ref(),
        pages.as_ref(),
        "--search".as_ref(),
        "zanzibar".as_ref(),
        "--expect".as_ref(),
        std::ffi::OsStr::new(&format!("r/{D2}/")),
        "--shots".as_ref(),
        shots.as_os_str(),
    ]);
    let found = v["search"].as_array().map_or(0, Vec::len);
    assert!(found >= 1, "no search ran: {v}");
}

#[test]
fn the_clients_own_history_is_read_when_rendering_its_projects() {
    let tmp = tempfile::tempdir().unwrap();
    let config = config_copy(tmp.path());
    let site = tmp.path().join("site");
    // No input: the client's projects directory, $CLAUDE_CONFIG_DIR/projects.
    render(None, &site, &[("CLAUDE_CONFIG_DIR", &config)]);
    assert!(site.join(format!("{SHOP}/r/{D1}/index.html")).is_file());
    assert!(site.join(format!("{BLOG}/r/{BLOG_SESSION}/index.html")).is_file());
    // One project directory alone: the history is every project's, not read.
    let one = tmp.path().join("one");
    render(Some(&config.join("projects").join(SHOP)), &one, &[]);
    assert!(!one.join(format!("{SHOP}/r")).exists());
    assert!(!one.join(BLOG).exists());
}

#[test]
fn with_redact_secrets_in_recovered_prompts_are_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let config = config_copy(tmp.path());
    add_secret_prompt(&config);
    let site = tmp.path().join("site");
    let o = cctree().args(["render", "--redact"]).arg(config.join("projects")).arg("-o").arg(&site).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = read(&site, &format!("{SHOP}/r/{D1}/index.html"));
    assert!(page.contains("use the key") && !page.contains(SECRET), "{page}");
    for (path, text) in files_named(&site, "search-1.js") {
        assert!(!text.contains(SECRET), "{}", path.display());
        let wholes = crate::support::doc_file_wholes(&text);
        assert!(wholes.iter().all(|w| !w.contains(SECRET)), "{}", path.display());
    }
}

#[test]
fn redact_dry_run_lists_the_secrets_of_recovered_prompts_by_history_line() {
    let tmp = tempfile::tempdir().unwrap();
    let config = config_copy(tmp.path());
    let at = add_secret_prompt(&config);
    let before = std::fs::read(config.join("history.jsonl")).unwrap();
    let site = tmp.path().join("site");
    let o = cctree()
        .args(["render", "--redact-dry-run"])
        .arg(config.join("projects"))
        .arg("-o")
        .arg(&site)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let place = format!("history.jsonl:{at}");
    let listed: Vec<&str> = out.lines().filter(|l| l.starts_with("would redact: ") && l.contains(&place)).collect();
    assert_eq!(listed.len(), 1, "the recovered prompt's line is listed once:\n{out}");
    assert!(!out.contains(SECRET), "{out}");
    assert!(!site.exists(), "nothing written");
    assert_eq!(std::fs::read(config.join("history.jsonl")).unwrap(), before);
}

#[test]
fn stats_counts_the_recovered_sessions_and_their_prompts() {
    // The fixture's README: shop 3 + 1 + 3 + 1 prompts in four sessions, blog 2 in one.
    let o = cctree().args(["stats", "--json"]).arg(fixture().join("projects")).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["recovered"], serde_json::json!({"sessions": 5, "prompts": 10}));
    let table = cctree().arg("stats").arg(fixture().join("projects")).output().unwrap();
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(
        table.contains("recovered from the prompt history: 5 sessions whose transcript is gone (10 prompts)"),
        "{table}"
    );
    // One project directory alone reads no history: nothing is said.
    let o = cctree().args(["stats", "--json"]).arg(fixture().join("projects").join(SHOP)).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v.get("recovered").is_none(), "{v}");
}

#[test]
fn sessions_kept_only_by_the_archive_are_marked_kept_by_cctree() {
    let tmp = tempfile::tempdir().unwrap();
    let config = config_copy(tmp.path());
    let projects = config.join("projects");
    let archive = tmp.path().join("archive/projects");
    let sync = || {
        let o = cctree().args(["-q", "sync"]).arg(&projects).arg("--to").arg(&archive).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    sync();
    // The client deletes one session; the next sync finds it gone.
    std::fs::remove_file(projects.join(SHOP).join(format!("{KEPT}.jsonl"))).unwrap();
    sync();
    let site = tmp.path().join("site");
    render(Some(&archive), &site, &[]);
    let index = read(&site, &format!("{SHOP}/index.html"));
    let row = |href: &str| {
        let at = index.find(&format!("href=\"{href}\"")).unwrap();
        index[at..].split("</li>").next().unwrap().to_string()
    };
    assert!(row("c/kept-u0/index.html").contains("kept by cctree"), "{index}");
    assert!(!row("c/alive-u0/index.html").contains("kept by cctree"), "{index}");
    assert_eq!(index.matches("badge kept").count(), 1);
    let page = read(&site, &format!("{SHOP}/c/kept-u0/index.html"));
    assert!(page.contains("kept by cctree"), "{page}");
    assert!(!read(&site, &format!("{SHOP}/c/alive-u0/index.html")).contains("kept by cctree"));
    // The archive's kept history.jsonl is what the recovered sessions come from.
    assert!(site.join(format!("{SHOP}/r/{D1}/index.html")).is_file());
    // The client's own projects: nothing is kept only by an archive there.
    let own = tmp.path().join("own");
    render(Some(&projects), &own, &[]);
    assert!(!read(&own, &format!("{SHOP}/index.html")).contains("kept by cctree"));
}

#[test]
fn a_changed_history_renders_again_and_an_unchanged_one_reuses_the_site() {
    let tmp = tempfile::tempdir().unwrap();
    let config = config_copy(tmp.path());
    let site = tmp.path().join("site");
    render(Some(&config.join("projects")), &site, &[]);
    let before = read(&site, &format!("{SHOP}/index.html"));
    let stderr = render(Some(&config.join("projects")), &site, &[]);
    assert_eq!(read(&site, &format!("{SHOP}/index.html")), before);
    assert!(stderr.contains("1 warning"), "the history's warning is printed again: {stderr}");
    let line = serde_json::json!({"display": "one more prompt of a later session", "pastedContents": {},
        "timestamp": 1_773_500_000_000_i64, "project": "/home/ana/shop", "sessionId": "de1e7ed0-0000-4000-8000-000000000009"});
    let mut history = std::fs::read_to_string(config.join("history.jsonl")).unwrap();
    history.push_str(&format!("{line}\n"));
    std::fs::write(config.join("history.jsonl"), history).unwrap();
    render(Some(&config.join("projects")), &site, &[]);
    let after = read(&site, &format!("{SHOP}/index.html"));
    assert!(after.contains("5 recovered from the prompt history"), "{after}");
    assert!(site.join(format!("{SHOP}/r/de1e7ed0-0000-4000-8000-000000000009/index.html")).is_file());
}

#[test]
fn since_and_until_keep_the_recovered_sessions_within_them_and_conversation_none() {
    let tmp = tempfile::tempdir().unwrap();
    let input = fixture().join("projects");
    let site = tmp.path().join("site");
    let o = cctree().args(["-q", "render", "--since", "2026-02-10"]).arg(&input).arg("-o").arg(&site).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(site.join(format!("{SHOP}/r/{D2}/index.html")).is_file(), "last prompt 2026-02-20");
    assert!(!site.join(format!("{SHOP}/r/{D1}")).exists(), "last prompt 2026-02-02");
    assert!(!site.join(format!("{SHOP}/r/h-1767607200000")).exists());
    let one = tmp.path().join("one");
    let o =
        cctree().args(["-q", "render", "--conversation", "alive-u0"]).arg(&input).arg("-o").arg(&one).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!one.join(format!("{SHOP}/r")).exists(), "a conversation chosen: no recovered session");
}

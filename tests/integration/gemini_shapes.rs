//! The shapes of real Gemini CLI folders, hand-made in
//! `tests/fixtures/gemini-shapes/` (its README says what each file is for):
//! the prompt log `logs.json` recovered like Claude Code's history, a
//! sub-agent's and a background agent's chat linked to the session that
//! started them, and projects named by the working directory any file of
//! the project records.

use std::path::{Path, PathBuf};

use crate::support::cctree;

const SHOP: &str = "gemini-home-ana-shop";
const BLOG: &str = "gemini-home-ana-blog";
const D1: &str = "de1e7ed0-0000-4000-8000-0000000000d1";
const D2: &str = "de1e7ed0-0000-4000-8000-0000000000d2";
const B1: &str = "b10b0000-0000-4000-8000-0000000000b1";
const S1: &str = "5e550001-0000-4000-8000-000000000001";
const SUBAGENT: &str = "a9e70001-0000-4000-8000-000000000001";
const SKILLS: &str = "5c111001-0000-4000-8000-000000000001";

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gemini-shapes")
}

/// The client's `projectHash` of a directory.
fn sha256_hex(dir: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(dir.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

fn render(input: &Path, out: &Path) -> String {
    let o = cctree().arg("render").arg(input).arg("-o").arg(out).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "render failed: {stderr}");
    stderr
}

fn read(site: &Path, rel: &str) -> String {
    std::fs::read_to_string(site.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn the_prompt_log_recovers_the_sessions_whose_chat_is_gone() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let stderr = render(&fixture(), &site);
    assert!(stderr.contains("0 warnings"), "{stderr}");
    let index = read(&site, &format!("{SHOP}/index.html"));
    assert!(index.contains("1 conversation · 2 recovered"), "{index}");
    assert!(index.contains("chat deleted — 3 prompts recovered"), "{index}");
    assert!(index.contains("chat deleted — 1 prompt recovered"), "{index}");
    assert!(index.contains("title=\"the transcript is gone; Gemini CLI's prompt log kept the prompts\""), "{index}");
    assert!(!index.contains("Claude Code"), "{index}");
    // The surviving session's prompt is its chat's, never recovered.
    assert!(!site.join(format!("{SHOP}/r/{S1}")).exists());
    let d1 = read(&site, &format!("{SHOP}/r/{D1}/index.html"));
    let at = |s: &str| d1.find(s).unwrap_or_else(|| panic!("{s:?} missing: {d1}"));
    assert!(at("set up the stripe webhook handler") < at("/memory show"));
    assert!(at("/memory show") < at("now verify the webhook signature"));
    assert!(d1.contains("logs.json"), "the page names the log it comes from");
    // A project whose every chat is gone is a project of its own.
    let blog = read(&site, &format!("{BLOG}/index.html"));
    assert!(blog.contains("chat deleted — 2 prompts recovered"), "{blog}");
    assert!(site.join(format!("{BLOG}/r/{B1}/index.html")).is_file());
    // Searched: the word of a recovered prompt is indexed, its unit is the page.
    let units = read(&site, "search/u/0.js");
    assert!(units.contains(&format!("\"{SHOP}/r/{D2}/\"")), "{units}");
    let shards: String = walkdir::WalkDir::new(site.join("search/t"))
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(shards.contains("\"zanzibar\""), "the word of a recovered prompt is not indexed");
}

#[test]
fn sub_agent_and_background_agent_chats_belong_to_the_session_that_started_them() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    render(&fixture(), &site);
    let index = read(&site, &format!("{SHOP}/index.html"));
    // Two agent transcripts, no loose conversation of either.
    assert!(index.contains("1 conversation ·"), "{index}");
    assert!(index.contains("Sub-agent transcripts (2)"), "{index}");
    for a in [SUBAGENT, SKILLS] {
        assert!(site.join(format!("{SHOP}/agents/{a}/index.html")).is_file(), "{a}");
    }
    // The sub-agent at the call that names it (`agentId`).
    let row = index.split(&format!("agents/{SUBAGENT}/")).nth(1).unwrap();
    assert!(row[..row.find("</li>").unwrap()].contains("spawned here"), "{row}");
    // The skill extraction ran in the session: its reply is in the session's spend
    // (900 + 1000 + 400 + 300 tokens in, 4 replies).
    let row = index.split(&format!("agents/{SKILLS}/")).nth(1).unwrap();
    let row = &row[..row.find("</li>").unwrap()];
    assert!(row.contains("c/u1/index.html#m-u1\">ran here") && !row.contains("spawned here"), "{row}");
    let page = read(&site, &format!("{SHOP}/agents/{SKILLS}/index.html"));
    assert!(
        page.contains("Ran in the session, <a href=\"../../c/u1/index.html#m-u1\">after this message</a>"),
        "{page}"
    );
    let conv = index.split("c/u1/index.html").nth(1).unwrap();
    let conv = &conv[..conv.find("</li>").unwrap()];
    assert!(conv.contains("2.6k in") && conv.contains("4 replies"), "{conv}");
}

/// A sub-agent's task is given by the conversation's agent, and its page
/// says so by that agent's name (`Gemini → generalist`), never another's.
#[test]
fn a_gemini_sub_agent_is_called_by_gemini() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    render(&fixture(), &site);
    let page = read(&site, &format!("{SHOP}/agents/{SUBAGENT}/index.html"));
    assert!(page.contains("Gemini → generalist"), "{page}");
    assert!(!page.contains("Claude"), "{page}");
}

#[test]
fn projects_are_named_by_the_directory_a_file_of_theirs_records() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    render(&fixture(), &site);
    // `.project_root`; a checkpoint's context (a folder named by the hash);
    // a chat's own `directories` (the same).
    for (project, dir) in
        [(SHOP, "/home/ana/shop"), ("gemini-home-ana-api", "/home/ana/api"), ("gemini-home-ana-web", "/home/ana/web")]
    {
        let index = read(&site, &format!("{project}/index.html"));
        assert!(index.contains(&format!("<h1>{dir}")) || index.contains(dir), "{project}: {index}");
    }
    let names: Vec<String> = std::fs::read_dir(&site)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("gemini-"))
        .collect();
    assert!(names.iter().all(|n| n.starts_with("gemini-home-ana-")), "a project named by its folder: {names:?}");

    // A directory no hash of the project confirms does not name it: the
    // same checkpoint in a folder of another hash, no chat.
    let other = tmp.path().join("gemini/tmp").join("0".repeat(64));
    std::fs::create_dir_all(other.join("chats")).unwrap();
    let api = fixture().join("tmp").join(sha256_hex("/home/ana/api"));
    std::fs::copy(api.join("checkpoint-health.json"), other.join("checkpoint-health.json")).unwrap();
    let chat = std::fs::read_to_string(api.join("chats/session-2025-09-01T10-00-a1a1a1a1.json")).unwrap();
    let chat = chat.replace(&sha256_hex("/home/ana/api"), &"0".repeat(64));
    std::fs::write(other.join("chats/session-2025-09-01T10-00-a1a1a1a1.json"), chat).unwrap();
    let site2 = tmp.path().join("site2");
    render(&tmp.path().join("gemini"), &site2);
    assert!(
        site2.join(format!("gemini-{}", "0".repeat(64))).is_dir(),
        "named by a directory its hash does not confirm"
    );
}

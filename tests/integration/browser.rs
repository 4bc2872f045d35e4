//! The browser test: Debian's chromium, driven by
//! `tests/browser/run.mjs` (playwright-core), over the rendered example
//! archive and the hostile archive of [`crate::xss`].
//!
//! It opens the archive index, the conversation with forks, one of its branch
//! pages and the sub-agent page over `file://` and over http under a sub-path
//! (no console errors, no requests leaving the site, app.js allowed by the
//! CSP), searches the archive for a known prompt and follows the hit, saves
//! light and dark screenshots to `target/screenshots/`, and loads every page
//! of the hostile site with traps on alert/console/network.
//!
//! Runs through [`Driver`]: `scripts/test.sh` installs chromium, the pinned
//! Node and the driver, and requires the browser tests (a driver that cannot
//! run fails them). A plain `cargo test` runs them when all is installed, and
//! otherwise says loudly, on the terminal, that they did not run. Set
//! `CCTREE_BROWSER_KEEP=1` to keep the rendered sites for a look.

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use cctree::graph::AgentKind;
use cctree::render::site::urls::{project_slugs, sanitize_segment};

use crate::support::{cctree, example_archive, load};

const SETUP: &str = "run scripts/test.sh (it installs chromium, the pinned Node and the driver)";

/// The browser driver: `tests/browser/run.mjs` (playwright-core) on Node 20
/// or later, driving Debian's chromium. Tests take it with [`Driver::get`]
/// and run it with [`Driver::run`].
pub struct Driver {
    pub node: PathBuf,
    pub script: PathBuf,
    pub chromium: PathBuf,
}

impl Driver {
    /// The driver, when everything it needs is installed. When it is not: a
    /// failure if the browser tests are required (`CCTREE_REQUIRE_BROWSER=1`,
    /// as `scripts/test.sh` sets, or `CI`), else `None` after a notice written
    /// straight to the terminal (past the test harness's capture), once.
    pub fn get() -> Option<&'static Driver> {
        static DRIVER: OnceLock<Result<Driver, String>> = OnceLock::new();
        static NOTICE: std::sync::Once = std::sync::Once::new();
        match DRIVER.get_or_init(Driver::find) {
            Ok(d) => Some(d),
            Err(why) if required() => panic!("the browser tests cannot run: {why}"),
            Err(why) => {
                NOTICE.call_once(|| {
                    let banner = format!(
                        "\n*** BROWSER TESTS NOT RUN: {why}\n*** {SETUP}; scripts/test.sh and CI require them.\n\n"
                    );
                    let _ = std::io::stderr().write_all(banner.as_bytes());
                });
                None
            }
        }
    }

    fn find() -> Result<Driver, String> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
        let node = std::env::var_os("CCTREE_NODE").map_or_else(|| PathBuf::from("node"), PathBuf::from);
        let version = Command::new(&node)
            .arg("--version")
            .output()
            .map_err(|e| format!("cannot run node ({}, from CCTREE_NODE or PATH): {e}", node.display()))?;
        let version = String::from_utf8_lossy(&version.stdout).trim().to_string();
        let major: u32 = version.trim_start_matches('v').split('.').next().and_then(|m| m.parse().ok()).unwrap_or(0);
        if major < 20 {
            return Err(format!("{} is Node {version:?}; the driver needs Node >= 20", node.display()));
        }
        if !dir.join("node_modules/playwright-core/package.json").is_file() {
            return Err("the driver (tests/browser/node_modules/playwright-core) is not installed".into());
        }
        if !dir.join("node_modules/axe-core/axe.min.js").is_file() {
            return Err("the accessibility checker (tests/browser/node_modules/axe-core) is not installed".into());
        }
        let on_path = || {
            let path = std::env::var_os("PATH").unwrap_or_default();
            std::env::split_paths(&path).map(|d| d.join("chromium")).find(|p| p.is_file())
        };
        let chromium = std::env::var_os("CCTREE_CHROMIUM")
            .map(PathBuf::from)
            .or_else(on_path)
            .unwrap_or_else(|| "/usr/bin/chromium".into());
        if !chromium.is_file() {
            return Err(format!("chromium is missing (looked for {})", chromium.display()));
        }
        Ok(Driver { node, script: dir.join("run.mjs"), chromium })
    }

    /// Runs the driver with `args` (see `run.mjs`) and returns its JSON
    /// report; fails with the report when a check failed or the browser could
    /// not run.
    pub fn run<I, S>(&self, args: I) -> serde_json::Value
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.try_run(args).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`Driver::run`], with the failure as an error (to keep what a test
    /// rendered for a look before failing).
    pub fn try_run<I, S>(&self, args: I) -> Result<serde_json::Value, String>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let out = Command::new(&self.node)
            .arg(&self.script)
            .args(args)
            .env("CCTREE_CHROMIUM", &self.chromium)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.node.display()))?;
        let report = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(format!(
                "the browser checks failed (exit {:?}; 2: the browser could not run)\nreport:\n{report}\nstderr:\n{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        serde_json::from_str(&report).map_err(|e| format!("not a JSON report ({e}): {report}"))
    }

    /// Runs the driver's sibling `script` (`reader.mjs`, `axe.mjs`) on
    /// `spec`, written into `tmp` (the folder holding the rendered sites),
    /// with screenshots into [`screenshots_dir`], and returns its report;
    /// keeps `tmp` for a look when the run failed or `CCTREE_BROWSER_KEEP`
    /// is set.
    pub fn run_spec(&self, script: &str, spec: &serde_json::Value, tmp: tempfile::TempDir) -> serde_json::Value {
        let file = tmp.path().join("spec.json");
        std::fs::write(&file, spec.to_string()).unwrap();
        let driver = Driver {
            node: self.node.clone(),
            script: self.script.with_file_name(script),
            chromium: self.chromium.clone(),
        };
        let shots = screenshots_dir();
        let result = driver.try_run([OsStr::new("--spec"), file.as_os_str(), OsStr::new("--shots"), shots.as_os_str()]);
        if result.is_err() || std::env::var_os("CCTREE_BROWSER_KEEP").is_some() {
            eprintln!("the rendered sites are kept in {} for a look", tmp.keep().display());
        }
        result.unwrap_or_else(|e| panic!("{e}"))
    }
}

/// Whether the browser tests must run (`scripts/test.sh`, CI).
fn required() -> bool {
    let set = |k: &str| std::env::var(k).is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
    set("CCTREE_REQUIRE_BROWSER") || set("CI")
}

/// The pages the test opens, relative to the site root.
pub struct ExamplePages {
    pub conversation: String,
    pub branch: String,
    pub agent: String,
    /// Words of the conversation's first prompt.
    pub phrase: String,
}

/// The example's conversation with the most branches, one of its branch
/// pages and a sub-agent page, from the graph and the site's URL contract.
pub fn example_pages() -> ExamplePages {
    let projects = load(&[example_archive()]);
    let names: Vec<&str> = projects.iter().map(|p| p.source.name.as_str()).collect();
    let slugs = project_slugs(&names);
    let mut best: Option<(usize, ExamplePages)> = None;
    for (p, slug) in projects.iter().zip(&slugs) {
        let g = &p.graph;
        let agent = g.agents.iter().find(|a| a.kind == AgentKind::Subagent);
        for c in &g.conversations {
            let Some(&b) = c.branches.get(1) else { continue };
            let Some(agent) = agent else { continue };
            if best.as_ref().is_some_and(|(n, _)| *n >= c.branches.len()) {
                continue;
            }
            let conv = format!("{slug}/c/{}/", sanitize_segment(g.uuid(&p.entries, c.root)));
            let first = g.uuid(&p.entries, g.branches[b].first);
            let prompt = c.first_prompt.as_deref().expect("the conversation has a first prompt");
            let words: Vec<&str> =
                prompt.split_whitespace().filter(|w| w.chars().all(char::is_alphabetic)).take(3).collect();
            best = Some((
                c.branches.len(),
                ExamplePages {
                    branch: format!("{conv}b/{}/index.html", sanitize_segment(first)),
                    conversation: format!("{conv}index.html"),
                    agent: format!("{slug}/agents/{}/index.html", sanitize_segment(&agent.agent_id)),
                    phrase: words.join(" "),
                },
            ));
        }
    }
    best.expect("the example archive has a conversation with forks and a sub-agent").1
}

/// `target/screenshots` (next to the test binary's profile directory).
pub fn screenshots_dir() -> PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_cctree"));
    exe.parent().and_then(Path::parent).expect("target dir").join("screenshots")
}

fn render(input: &Path, out: &Path) {
    let o = cctree().args(["-q", "render"]).arg(input).arg("-o").arg(out).output().unwrap();
    assert!(o.status.success(), "render failed: {}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn pages_search_and_payloads_in_chromium() {
    let Some(driver) = Driver::get() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    render(&example_archive(), &site);
    let xss_site = tmp.path().join("xss-site");
    crate::xss::render_hostile(&tmp.path().join("hostile"), &xss_site);

    let p = example_pages();
    for rel in [&p.conversation, &p.branch, &p.agent] {
        assert!(site.join(rel).is_file(), "{rel} was not rendered");
    }
    let pages = format!("archive=index.html,conversation={},branch={},agent={}", p.conversation, p.branch, p.agent);
    let shots = screenshots_dir();
    let args: Vec<&OsStr> = vec![
        "--site".as_ref(),
        site.as_os_str(),
        "--pages".as_ref(),
        pages.as_ref(),
        "--search".as_ref(),
        p.phrase.as_ref(),
        "--expect".as_ref(),
        p.conversation.as_ref(),
        "--shots".as_ref(),
        shots.as_os_str(),
        "--xss-site".as_ref(),
        xss_site.as_os_str(),
    ];
    let result = driver.try_run(args);
    if result.is_err() || std::env::var_os("CCTREE_BROWSER_KEEP").is_some() {
        eprintln!("the rendered sites are kept in {} for a look", tmp.keep().display());
    }
    let v = result.unwrap_or_else(|e| panic!("{e}"));
    let report = v.to_string();
    assert!(v["xss"]["pages"].as_u64().unwrap_or(0) >= 5, "the hostile site has too few pages: {report}");
    assert!(shots.join("conversation-light.png").is_file() && shots.join("branch-dark.png").is_file());
}

#[test]
fn odd_entries_render_cleanly_in_chromium() {
    // Pages holding an unknown entry type and images that cannot be shown
    // (placeholders, no broken requests), over file:// and http.
    let Some(driver) = Driver::get() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    render(&crate::support::odd_archive(), &site);
    let conv = "-home-alice-odd/c/0dd00000-0000-4000-8000-000000000001/index.html";
    let pages = format!("project=-home-alice-odd/index.html,odd-conversation={conv}");
    let v = driver.run([OsStr::new("--site"), site.as_os_str(), OsStr::new("--pages"), OsStr::new(&pages)]);
    let opened = v["pages"].as_array().map_or(0, Vec::len);
    assert_eq!(opened, 6, "two pages, over file:// (light, dark) and http: {v}");
}

/// Words to search for: each occurs in one line of the whole input (every
/// line of every file, any case: an entry, which may repeat its tool's
/// output in `toolUseResult`), so a search must find exactly that message.
#[derive(Debug)]
pub struct Probes {
    /// A word of an assistant's reply in the last third of the longest
    /// transcript (a late reply).
    pub reply: String,
    /// A word of a tool's output (a `tool_result`), from its first 200
    /// characters (what any page shows of it).
    pub output: String,
}

/// The words of `text` that a reader sees as words: runs of 6 to 20 ASCII
/// letters between spaces or sentence punctuation, on a line without a link
/// or markup that could hide them.
fn plain_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.contains("http") && !l.contains("](") && !l.contains('<')) {
        for w in line.split(|c: char| c.is_whitespace()) {
            let w =
                w.trim_start_matches(['(', '"', '\'']).trim_end_matches([',', '.', ';', ':', '!', '?', ')', '"', '\'']);
            if (6..=20).contains(&w.len()) && w.chars().all(|c| c.is_ascii_alphabetic()) {
                out.push(w.to_ascii_lowercase());
            }
        }
    }
    out
}

/// The texts of an entry: `(is an assistant's text, text)`.
fn entry_texts(v: &serde_json::Value) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    let reply = v["type"] == "assistant";
    for block in v["message"]["content"].as_array().into_iter().flatten() {
        match block["type"].as_str() {
            Some("text") if reply => out.extend(block["text"].as_str().map(|t| (true, t.to_string()))),
            Some("tool_result") => {
                let text = match &block["content"] {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Array(parts) => {
                        parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n")
                    }
                    _ => String::new(),
                };
                out.push((false, text.chars().take(200).collect()));
            }
            _ => {}
        }
    }
    out
}

/// [`Probes`] of the archive under `root`.
pub fn probes(root: &Path) -> Probes {
    let mut all: Vec<String> = Vec::new();
    let mut transcripts: Vec<Vec<serde_json::Value>> = Vec::new();
    for e in walkdir::WalkDir::new(root).sort_by_file_name().into_iter().filter_map(Result::ok) {
        if !e.file_type().is_file() {
            continue;
        }
        let text = String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).to_lowercase();
        all.extend(text.lines().map(str::to_string));
        if e.path().extension().is_some_and(|x| x == "jsonl") {
            let raw = std::fs::read_to_string(e.path()).unwrap_or_default();
            transcripts.push(raw.lines().filter_map(|l| serde_json::from_str(l).ok()).collect());
        }
    }
    let once = |w: &String| all.iter().filter(|l| l.contains(w.as_str())).take(2).count() == 1;
    transcripts.sort_by_key(|t| std::cmp::Reverse(t.len()));
    let longest = &transcripts[0];
    let reply = longest[longest.len() * 2 / 3..]
        .iter()
        .rev()
        .flat_map(entry_texts)
        .filter(|(reply, _)| *reply)
        .flat_map(|(_, t)| plain_words(&t))
        .find(once)
        .expect("a word of a late reply that occurs once in the archive");
    let output = transcripts
        .iter()
        .flatten()
        .flat_map(entry_texts)
        .filter(|(reply, _)| !*reply)
        .flat_map(|(_, t)| plain_words(&t))
        .find(once)
        .expect("a word of a tool output that occurs once in the archive");
    Probes { reply, output }
}

/// Search: a word found only in a late reply and one found only
/// in a tool's output, on the example and on the vendored real projects,
/// over file:// and http, at 1280 and 390 px: exactly one message found,
/// the word highlighted in the result (and on screen at 390 px, with no
/// horizontal scroll), the result leads to that message with the word
/// marked in it, and find within the page finds it there.
///
/// A word on the last line of a 232 KB tool output (a
/// generated archive, `long`) is shown in its result with the words around
/// it, marked (not the start of the message), and is marked on screen when
/// the result is opened, at 390 px too.
#[test]
fn full_text_search_in_chromium() {
    let Some(driver) = Driver::get() else { return };
    let mut tmp = tempfile::tempdir().unwrap();
    let shots = screenshots_dir();
    let long = tmp.path().join("long-input");
    long_output_archive(&long, LONG_WORD);
    let cases = [("example", example_archive()), ("real", crate::support::real_projects()), ("long", long.clone())];
    for (name, input) in cases {
        let site = tmp.path().join(name);
        render(&input, &site);
        if name == "long" {
            long_word_only_deflated(&site);
        }
        let words = if name == "long" {
            LONG_WORD.to_string()
        } else {
            let p = probes(&input);
            format!("{},{}", p.reply, p.output)
        };
        let args: Vec<&OsStr> = vec![
            "--site".as_ref(),
            site.as_os_str(),
            "--fulltext".as_ref(),
            words.as_ref(),
            "--shots".as_ref(),
            shots.as_os_str(),
            "--name".as_ref(),
            name.as_ref(),
        ];
        let result = driver.try_run(args);
        if result.is_err() || std::env::var_os("CCTREE_BROWSER_KEEP").is_some() {
            let kept = std::mem::replace(&mut tmp, tempfile::tempdir().unwrap()).keep();
            eprintln!("the rendered site is kept in {} for a look", kept.join(name).display());
        }
        let v = result.unwrap_or_else(|e| panic!("{name}: {words}: {e}"));
        let checked = v["fulltext"].as_array().map_or(0, Vec::len);
        let want = 6 * words.split(',').count();
        assert_eq!(checked, want, "{name}: each word at 1280 and 390 px, over file:// (light, dark) and http: {v}");
    }
}

/// The long output's last word is in no page's search docs as it is: only
/// in the whole text kept deflated (`z`), so the browser shows it in its
/// result only by inflating that.
fn long_word_only_deflated(site: &Path) {
    let docs: Vec<PathBuf> = walkdir::WalkDir::new(site)
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .filter(|p| {
            p.file_name().and_then(OsStr::to_str).is_some_and(|n| n.starts_with("search-") && n.ends_with(".js"))
        })
        .collect();
    let mut inflated = 0;
    for p in &docs {
        let js = std::fs::read_to_string(p).unwrap();
        assert!(!js.contains(LONG_WORD), "{} holds the word as it is", p.display());
        inflated += crate::support::doc_file_wholes(&js).iter().filter(|w| w.contains(LONG_WORD)).count();
    }
    assert_eq!(inflated, 1, "the word in one whole text kept deflated, of {docs:?}");
}

/// The word on the last line of the long output of [`long_output_archive`].
const LONG_WORD: &str = "zqbfea649526e1";

/// A project whose one conversation reads a 232 KB file: `word` is on its
/// last line, and nowhere else.
fn long_output_archive(root: &Path, word: &str) {
    let dir = root.join("-home-zoe-long");
    std::fs::create_dir_all(&dir).unwrap();
    let session = "10000000-0000-4000-8000-00000000aaaa";
    let mut lines: Vec<String> = (0..5400).map(|i| format!("{i:05} filler line of the log, nothing to see")).collect();
    lines.push(format!("99999 the last line holds {word} and ends here"));
    let output = lines.join("\n");
    assert!(output.len() > 230_000, "{}", output.len());
    let entry = |n: u32, parent: Option<u32>, kind: &str, message: serde_json::Value| {
        let uuid = |n: u32| format!("10000000-0000-4000-8000-{n:012}");
        serde_json::json!({"type": kind, "uuid": uuid(n), "parentUuid": parent.map(uuid), "sessionId": session,
            "timestamp": format!("2026-01-01T00:00:0{n}.000Z"), "cwd": "/home/zoe/long", "version": "2.1.42",
            "message": message})
        .to_string()
    };
    let jsonl = [
        entry(1, None, "user", serde_json::json!({"role": "user", "content": "Show me the end of the log."})),
        entry(
            2,
            Some(1),
            "assistant",
            serde_json::json!({"role": "assistant", "id": "msg_1", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "cat run.log"}}]}),
        ),
        entry(
            3,
            Some(2),
            "user",
            serde_json::json!({"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": output}]}),
        ),
        entry(
            4,
            Some(3),
            "assistant",
            serde_json::json!({"role": "assistant", "id": "msg_2", "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "The log ends normally."}]}),
        ),
    ];
    std::fs::write(dir.join(format!("{session}.jsonl")), jsonl.join("\n") + "\n").unwrap();
}

/// What `tests/browser/reader.mjs` checks on a rendered site: each
/// conversation's page, its first prompt, the last prompt of its active line
/// and a prompt of each branch off that line.
fn reader_spec(name: &str, input: &Path, site: &Path) -> serde_json::Value {
    use cctree::model::{Kind, UserKind};
    let projects = load(&[input.to_path_buf()]);
    let names: Vec<&str> = projects.iter().map(|p| p.source.name.as_str()).collect();
    let slugs = project_slugs(&names);
    let mut conversations = Vec::new();
    for (p, slug) in projects.iter().zip(&slugs) {
        let g = &p.graph;
        let prompt = |n: &cctree::graph::NodeId| {
            let e = g.entry(&p.entries, *n);
            e.kind == Kind::User && e.user_kind == UserKind::Prompt
        };
        let anchor = |n: cctree::graph::NodeId| format!("m-{}", sanitize_segment(g.uuid(&p.entries, n)));
        for c in &g.conversations {
            let page = format!("{slug}/c/{}/index.html", sanitize_segment(g.uuid(&p.entries, c.root)));
            let line = g.projection(c.active_branch);
            let (Some(&first), Some(&last)) = (line.iter().find(|n| prompt(n)), line.iter().rev().find(|n| prompt(n)))
            else {
                continue;
            };
            if !site.join(&page).is_file() {
                continue;
            }
            let on: std::collections::HashSet<_> = line.iter().copied().collect();
            let off: Vec<String> = c
                .branches
                .iter()
                .filter_map(|&b| g.branches[b].nodes.iter().find(|n| !on.contains(n) && prompt(n)))
                .map(|&n| anchor(n))
                .collect();
            conversations.push(serde_json::json!({
                "page": page, "forks": c.branches.len() > 1,
                "first": anchor(first), "last": anchor(last), "off": off,
            }));
        }
    }
    // The copy buttons are tried on the first conversation with forks: a
    // local site (no --base-url, no --redact) names the archive it was
    // rendered from in its fork commands, so that they work as copied.
    let fork_projects = projects.first().and_then(|p| cctree::fork::lookup::projects_arg(&p.source.dir, input, true));
    serde_json::json!({ "name": name, "dir": site, "conversations": conversations, "fork_projects": fork_projects })
}

/// What a reader follows: the conversation page reads the active
/// line; every fork landmark is visible and outside any message; every link
/// of a landmark, the fork-point index and the map lands on a visible
/// message; every conversation with forks has its map — on the example, the
/// real projects and the 2.1.330 archives. The view menu (tool calls,
/// thinking, system entries, prompts and answers only) hides what it says,
/// never a fork landmark, keeps the choice on the next page, works with
/// storage refused and without JavaScript; a link to a message it hides shows
/// it (every landmark, index and map link is followed in that view too).
/// Mobile and access: on sample pages of every kind, light and dark, the
/// sticky header at most 64 px tall at 390 and 1280 px, no sideways scroll at
/// 390 px, WCAG AA contrast of every text on screen computed from the
/// rendered styles; `j` then `k` moves forward then back; the copy buttons
/// copy the exact fork command (naming no directory) and code.
#[test]
fn active_line_forks_and_map_in_chromium() {
    let Some(driver) = Driver::get() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut inputs = vec![("example", example_archive()), ("real", crate::support::real_projects())];
    for name in ["tui", "time-travel", "bash-rewind", "print"] {
        inputs.push((name, fixtures.join("client-2.1.330").join(name).join("projects")));
    }
    for name in ["summarize-up-to", "summarize-from", "compact"] {
        inputs.push((name, crate::compaction::fixture(name)));
    }
    let mut sites = Vec::new();
    for (name, input) in &inputs {
        let site = tmp.path().join(name);
        render(input, &site);
        sites.push(reader_spec(name, input, &site));
    }
    let v = driver.run_spec("reader.mjs", &serde_json::json!({ "sites": sites }), tmp);
    let sites = v["sites"].as_array().expect("a report per site");
    assert_eq!(sites.len(), inputs.len(), "{v}");
    let sum = |k: &str| sites.iter().map(|s| s[k].as_u64().unwrap_or(0)).sum::<u64>();
    // The checks ran on real material: conversations with forks, landmarks,
    // index and map links.
    assert!(sum("notes") >= 10 && sum("maps") >= 6 && sum("targets") >= 200, "{v}");
    for s in sites {
        assert!(s["conversations"].as_u64().unwrap_or(0) >= 1, "{v}");
    }
    // The view menu was tried on every site, with a link into a message it
    // hides followed.
    let controls = v["controls"].as_array().expect("a report of the view menu per site");
    assert_eq!(controls.len(), inputs.len(), "{v}");
    for c in controls {
        assert!(c["checks"].as_u64().unwrap_or(0) >= 20 && c["revealed"].as_u64() == Some(1), "{v}");
    }
    // Mobile and access ran on every kind of page of every site, both themes:
    // header heights, sideways scroll, contrast of every text, j/k, copies
    // (on the example: the fork command and a code block, with the clipboard
    // API and without).
    let access = v["access"].as_array().expect("a report of the access checks per site");
    assert_eq!(access.len(), inputs.len(), "{v}");
    for a in access {
        let n = |k: &str| a[k].as_u64().unwrap_or(0);
        assert!(n("pages") >= 6 && n("texts") >= 500 && (3..=5).contains(&n("keys")) && n("copies") >= 1, "{v}");
        assert!(a["header"].as_f64().is_some_and(|h| h > 20.0 && h <= 64.0), "{v}");
    }
    assert_eq!(access[0]["copies"].as_u64(), Some(3), "the example's copy buttons: {v}");
}

/// One search over a mixed archive (Claude Code's example,
/// Codex's and Gemini's recorded archives) finds a word of each agent — a
/// late Claude reply, a Codex sub-agent's shell output, a Gemini reply —
/// each in exactly one message, over file:// and http, at 1280 and 390 px.
#[test]
fn one_search_finds_words_of_each_agent_in_chromium() {
    let Some(driver) = Driver::get() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("mixed");
    let inputs = crate::agents::mixed_inputs();
    let o = cctree().args(["-q", "render"]).args(&inputs).arg("-o").arg(&site).output().unwrap();
    assert!(o.status.success(), "render failed: {}", String::from_utf8_lossy(&o.stderr));
    let claude = probes(&example_archive()).reply;
    // `Chunk ID: f167ec` (the sub-agent's `ls`), `word5` (early in the long reply).
    let words = format!("{claude},f167ec,word5");
    let shots = screenshots_dir();
    let args: Vec<&OsStr> = vec![
        "--site".as_ref(),
        site.as_os_str(),
        "--fulltext".as_ref(),
        words.as_ref(),
        "--shots".as_ref(),
        shots.as_os_str(),
        "--name".as_ref(),
        "mixed".as_ref(),
    ];
    let v = driver.run(args);
    let checked = v["fulltext"].as_array().map_or(0, Vec::len);
    assert_eq!(checked, 18, "three words at 1280 and 390 px, over file:// (light, dark) and http: {v}");
}

/// The pages of `site` (rendered from `input`) that [`accessibility_and_reading_in_chromium`]
/// opens for each conversation with forks: its page, its first branch page,
/// and its export (written to `exports`).
fn forked_pages(name: &str, input: &Path, site: &Path, exports: &Path) -> Vec<serde_json::Value> {
    let projects = load(&[input.to_path_buf()]);
    let names: Vec<&str> = projects.iter().map(|p| p.source.name.as_str()).collect();
    let slugs = project_slugs(&names);
    let mut pages = Vec::new();
    for (p, slug) in projects.iter().zip(&slugs) {
        let g = &p.graph;
        for (i, c) in g.conversations.iter().enumerate() {
            let Some(&b) = c.branches.get(1) else { continue };
            let root = g.uuid(&p.entries, c.root);
            let conv = site.join(slug).join("c").join(sanitize_segment(root));
            let branch =
                conv.join("b").join(sanitize_segment(g.uuid(&p.entries, g.branches[b].first))).join("index.html");
            let file = exports.join(format!("{name}-{i}.html"));
            let o = cctree()
                .args(["-q", "export", "--projects"])
                .arg(input)
                .arg(root)
                .arg("-o")
                .arg(&file)
                .output()
                .unwrap();
            assert!(o.status.success(), "export {root}: {}", String::from_utf8_lossy(&o.stderr));
            for (kind, f) in [("conversation", conv.join("index.html")), ("branch", branch), ("export", file)] {
                assert!(f.is_file(), "{}", f.display());
                pages.push(serde_json::json!({ "name": format!("{name}-{i}-{kind}"), "file": f }));
            }
        }
    }
    pages
}

/// Every fork's compare page in a rendered site.
fn compare_pages(name: &str, site: &Path) -> Vec<serde_json::Value> {
    let found: Vec<PathBuf> = walkdir::WalkDir::new(site)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .map(walkdir::DirEntry::into_path)
        .filter(|p| p.ends_with("index.html") && p.to_string_lossy().contains("/compare/"))
        .collect();
    assert!(!found.is_empty(), "{name}: no compare page");
    found
        .into_iter()
        .enumerate()
        .map(|(i, f)| serde_json::json!({ "name": format!("{name}-compare-{i}"), "file": f }))
        .collect()
}

/// Accessibility, the reader-facing checks and the index's legend, through
/// `tests/browser/axe.mjs` at 1280 and 390 px, light and dark: axe-core
/// (pinned in `tests/browser/package-lock.json`) finds no violation on every
/// kind of page of the example — archive, project, conversation, branch,
/// sub-agent, the search open, the find bar open, the export and its find
/// box — and on each conversation with forks of the 2.1.330 archives and the
/// 2.1.332 compactions (its page, a branch page, its export); links inside
/// running text are underlined (axe's `link-in-text-block`); every text
/// box's placeholder fits it; with the find bar open, at the end of the page,
/// no text is under the bar; each fork-point index's legend reads the number
/// of its first fork. Also a paginated conversation's pages
/// (two pagers), a page of Markdown task lists, the largest page of the real
/// projects, an untitled conversation and a project of no conversation.
/// The reader-facing checks (fork order, maps, heads, ids, words) on the same pages, widths and
/// themes (`axe.mjs`): the index in the map's order, no row of the map cut,
/// short headings and listed titles, one-line message headers and short
/// session ids at 390 px, marked words in diffs, numbered file reads, red
/// error cards, the filters' counts; each checked somewhere.
#[test]
fn accessibility_and_reading_in_chromium() {
    let Some(driver) = Driver::get() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let exports = tmp.path().join("exports");
    std::fs::create_dir_all(&exports).unwrap();
    let site = tmp.path().join("example");
    render(&example_archive(), &site);
    let p = example_pages();
    let conv = site.join(&p.conversation);
    let project = conv.ancestors().nth(3).expect("the project index's folder").join("index.html");
    let mut pages = vec![
        serde_json::json!({ "name": "archive", "file": site.join("index.html") }),
        serde_json::json!({ "name": "project", "file": project }),
        serde_json::json!({ "name": "sub-agent", "file": site.join(&p.agent) }),
        serde_json::json!({ "name": "search-open", "file": site.join("index.html"), "search": "cache" }),
        serde_json::json!({ "name": "find-open", "file": conv, "find": "cache", "findbar": true }),
    ];
    // The example's conversation whose first command fails (a tool error).
    let notes = site.join("-home-alice-notes/c/b0000000-0000-4000-8000-000000000001/index.html");
    assert!(notes.is_file(), "{}", notes.display());
    pages.push(serde_json::json!({ "name": "tool-error", "file": notes }));
    pages.extend(forked_pages("example", &example_archive(), &site, &exports));
    pages.extend(compare_pages("example", &site));
    let export =
        pages.iter().find_map(|v| v["name"].as_str().filter(|n| n.ends_with("-export")).map(|_| v["file"].clone()));
    pages.push(serde_json::json!({ "name": "export-find-open", "file": export.expect("an export"), "find": "cache" }));
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut inputs = Vec::new();
    for name in ["tui", "time-travel", "bash-rewind", "print"] {
        inputs.push((name, fixtures.join("client-2.1.330").join(name).join("projects")));
    }
    for name in ["summarize-up-to", "summarize-from", "compact"] {
        inputs.push((name, crate::compaction::fixture(name)));
    }
    for (name, input) in &inputs {
        let site = tmp.path().join(name);
        render(input, &site);
        pages.extend(forked_pages(name, input, &site, &exports));
        pages.extend(compare_pages(name, &site));
    }
    // The pages of a paginated conversation (two pagers:
    // `landmark-unique`), the page of a task list (its boxes: `label`), the
    // largest page of the real projects, and the page of an untitled
    // conversation and of a project of no conversation.
    let paged = tmp.path().join("paged");
    let o = cctree()
        .args(["-q", "render", "--page-size", "8"])
        .arg(example_archive())
        .arg("-o")
        .arg(&paged)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let paged_conv = paged.join(&p.conversation);
    for (k, f) in [paged_conv.clone(), paged_conv.with_file_name("page-2.html")].into_iter().enumerate() {
        assert!(std::fs::read_to_string(&f).unwrap().matches("<nav class=\"pager\"").count() == 2, "{}", f.display());
        pages.push(serde_json::json!({ "name": format!("paged-{k}"), "file": f }));
    }
    let written = tmp.path().join("written");
    render(&crate::reading::written_archive(&tmp.path().join("written-input")), &written);
    let kept = |f: &PathBuf| {
        let rel = f.strip_prefix(&written).unwrap().to_string_lossy().to_string();
        rel.matches('/').count() <= 1 || (rel.contains("/c/") && rel.matches('/').count() == 3)
    };
    for (k, f) in html_files(&written).into_iter().filter(kept).enumerate() {
        pages.push(serde_json::json!({ "name": format!("written-{k}"), "file": f }));
    }
    let real = tmp.path().join("real");
    render(&crate::support::real_projects(), &real);
    let largest = html_files(&real).into_iter().max_by_key(|f| std::fs::metadata(f).map_or(0, |m| m.len())).unwrap();
    pages.push(serde_json::json!({ "name": "real-largest", "file": largest }));
    let v = driver.run_spec("axe.mjs", &serde_json::json!({ "pages": pages }), tmp);
    // Every page at both widths in both themes, with axe's rules applied.
    let runs = v["runs"].as_array().expect("a report per page");
    assert_eq!(runs.len(), pages.len() * 4, "{v}");
    assert!(runs.iter().all(|r| r["rules"].as_u64().unwrap_or(0) >= 20), "{v}");
    assert_eq!(v["violations"].as_array().map(Vec::len), Some(0), "{v}");
    // The find bar was open on its page, and legends were read on the
    // conversation pages and exports (forks at more than one number).
    assert_eq!(runs.iter().filter(|r| r["findbar"] == true).count(), 4, "{v}");
    assert!(runs.iter().filter(|r| r["legends"].as_u64().unwrap_or(0) > 0).count() >= 8 * 4, "{v}");
    let numbers: std::collections::BTreeSet<&str> = runs.iter().filter_map(|r| r["first_fork"].as_str()).collect();
    assert!(numbers.len() >= 2, "the legends were read for forks at one number only: {numbers:?}");
    // The reader-facing checks were run on pages that have each thing.
    let seen = |k: &str| runs.iter().map(|r| r["seen"][k].as_u64().unwrap_or(0)).sum::<u64>();
    for k in ["forkOrder", "maps", "heads", "sids", "words", "numbered", "errors", "counts"] {
        assert!(seen(k) > 0, "nothing checked for {k}: {v}");
    }
}

/// The pages of a site, sorted.
fn html_files(site: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = walkdir::WalkDir::new(site)
        .into_iter()
        .filter_map(Result::ok)
        .map(walkdir::DirEntry::into_path)
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    v.sort();
    v
}

/// A file read is numbered plain text without
/// JavaScript and coloured by the site's own highlight.js once it is shown
/// (`tests/browser/files.mjs`): over `file://` and http, at 1280 and 390 px,
/// light and dark, with syntax.css's colours and no axe violation; find on
/// the page and a search result's marks stay on the coloured text.
#[test]
fn file_reads_are_plain_without_javascript_and_coloured_when_opened_in_chromium() {
    let Some(driver) = Driver::get() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("example");
    render(&example_archive(), &site);
    // The first page (in path order) showing a Rust file read.
    let page = walkdir::WalkDir::new(&site)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "html"))
        .find(|e| {
            std::fs::read_to_string(e.path())
                .is_ok_and(|h| h.contains("<pre class=\"code lines\" data-lang=\"rust\" data-n=\""))
        })
        .expect("the example shows a Rust file read")
        .path()
        .strip_prefix(&site)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/");
    let v = driver.run_spec("files.mjs", &serde_json::json!({ "site": site, "page": page }), tmp);
    // Both origins: without JavaScript, then 2 widths × 2 themes, then find and a search hit.
    let n = |k: &str| v[k].as_u64().unwrap_or(0);
    assert_eq!((n("nojs"), n("coloured"), n("finds"), n("hits")), (2, 8, 2, 2), "{v}");
    assert!(n("axe_rules") >= 8, "{v}");
}

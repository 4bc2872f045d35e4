//! The browser test (issues 3 and 6): Debian's chromium, driven by
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
//! Needs `node`, `tests/browser/node_modules` and chromium: `scripts/test.sh`
//! installs them. Without them this test fails; it never skips. Set
//! `CCTREE_BROWSER_KEEP=1` to keep the rendered sites for a look.

use std::path::{Path, PathBuf};
use std::process::Command;

use cctree::graph::AgentKind;
use cctree::render::site::{project_slugs, sanitize_segment};

use crate::support::{cctree, example_archive, load};

const SETUP: &str = "run scripts/test.sh (it installs chromium and the browser driver)";

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
            let first = g.uuid(&p.entries, g.branches[b as usize].first);
            let prompt = c.first_prompt.as_deref().expect("the conversation has a first prompt");
            let words: Vec<&str> =
                prompt.split_whitespace().filter(|w| w.chars().all(char::is_alphabetic)).take(3).collect();
            best = Some((
                c.branches.len(),
                ExamplePages {
                    branch: format!("{conv}b/{}/index.html", sanitize_segment(first)),
                    conversation: format!("{conv}index.html"),
                    agent: format!("{slug}/agents/{}/index.html", sanitize_segment(&agent.id)),
                    phrase: words.join(" "),
                },
            ));
        }
    }
    best.expect("the example archive has a conversation with forks and a sub-agent").1
}

/// `node`, the driver script and chromium, or a loud failure saying how to get them.
pub fn driver() -> (PathBuf, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    let node_ok = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(node_ok, "node is missing: {SETUP}");
    assert!(
        dir.join("node_modules/playwright-core/package.json").is_file(),
        "tests/browser/node_modules is missing: {SETUP}"
    );
    let on_path = || {
        let path = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&path).map(|d| d.join("chromium")).find(|p| p.is_file())
    };
    let chromium = std::env::var("CCTREE_CHROMIUM")
        .ok()
        .or_else(|| on_path().map(|p| p.display().to_string()))
        .unwrap_or_else(|| "/usr/bin/chromium".into());
    assert!(Path::new(&chromium).is_file(), "chromium is missing (looked for {chromium}): {SETUP}");
    (dir.join("run.mjs"), chromium)
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
    let (script, chromium) = driver();
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
    let out = Command::new("node")
        .arg(&script)
        .args(["--site"])
        .arg(&site)
        .args(["--pages", &pages, "--search", &p.phrase, "--expect", &p.conversation, "--shots"])
        .arg(&shots)
        .arg("--xss-site")
        .arg(&xss_site)
        .env("CCTREE_CHROMIUM", &chromium)
        .output()
        .expect("run node");
    let report = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() || std::env::var_os("CCTREE_BROWSER_KEEP").is_some() {
        let kept = tmp.keep();
        eprintln!("the rendered sites are kept in {} for a look", kept.display());
    }
    assert!(
        out.status.success(),
        "the browser checks failed (exit {:?})\nreport:\n{report}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(&report).expect("a JSON report");
    assert!(v["xss"]["pages"].as_u64().unwrap_or(0) >= 5, "the hostile site has too few pages: {report}");
    assert!(shots.join("conversation-light.png").is_file() && shots.join("branch-dark.png").is_file());
}

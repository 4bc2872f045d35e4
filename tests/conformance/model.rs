//! What cctree makes of an archive the client wrote: its model (`stats
//! --detail`), `check`, and the rendered site.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The cctree binary built for the tests.
pub fn cctree() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cctree"))
}

/// `cctree stats --detail --json` of a projects directory: its only project.
pub fn detail(projects: &Path) -> Value {
    let out = cctree().args(["stats", "--detail", "--json"]).arg(projects).output().expect("cctree stats");
    assert!(out.status.success(), "cctree stats failed: {}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("stats JSON");
    let projects = v["projects_detail"].as_array().expect("projects_detail");
    assert_eq!(projects.len(), 1, "one project");
    projects[0].clone()
}

/// `cctree check` exits 0 with no finding and no warning.
pub fn assert_check_clean(projects: &Path) {
    let out = cctree().arg("check").arg(projects).output().expect("cctree check");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "cctree check on a fresh archive of the pinned client:\n{stdout}\n{stderr}");
    assert!(!stderr.contains("warning"), "warnings on a fresh archive of the pinned client:\n{stderr}");
}

/// The conversation whose sessions include `session`.
pub fn conversation_of<'a>(detail: &'a Value, session: &str) -> &'a Value {
    detail["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["sessions"].as_array().unwrap().iter().any(|s| s == session))
        .unwrap_or_else(|| panic!("no conversation holds session {session}: {detail:#}"))
}

/// `(kind, children)` of each fork point.
pub fn fork_kinds(conv: &Value) -> Vec<String> {
    conv["fork_points"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap().to_string()).collect()
}

/// `(session, kind)` of each junction.
pub fn junctions(conv: &Value) -> Vec<(String, String)> {
    conv["junctions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["session"].as_str().unwrap().to_string(), j["kind"].as_str().unwrap().to_string()))
        .collect()
}

/// Renders the projects directory into a new site; returns its pages.
pub fn render(projects: &Path, out: &Path) -> Vec<(PathBuf, String)> {
    let st = cctree().arg("render").arg(projects).arg("-o").arg(out).arg("-q").status().expect("cctree render");
    assert!(st.success(), "cctree render failed");
    crate::common::html_pages(out)
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
}

/// The text of a page outside collapsed raw JSON (`<details class="raw">`),
/// unescaped, tags removed.
pub fn visible_text(html: &str) -> String {
    unescape(&crate::common::tags_removed(html))
}

pub use crate::common::hidden_metadata;

/// Every text in `texts` is visible on some page; no page carries more than
/// 64 KB of hidden metadata; the project index stays small.
pub fn assert_site(pages: &[(PathBuf, String)], texts: &[String]) {
    let visible: Vec<String> = pages.iter().map(|(_, h)| visible_text(h)).collect();
    for t in texts {
        let t = t.trim();
        let words: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            visible.iter().any(|v| v.split_whitespace().collect::<Vec<_>>().join(" ").contains(&words)),
            "{t:?} is on no page"
        );
    }
    for (p, h) in pages {
        assert!(
            hidden_metadata(h) <= 64 * 1024,
            "{} carries {} bytes of hidden metadata",
            p.display(),
            hidden_metadata(h)
        );
    }
}

/// Every typed prompt, queued message and reply text of the transcripts
/// (what a reader must find on the site).
pub fn texts_of(project: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(project).unwrap().flatten() {
        if e.path().extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        for v in crate::client::read_lines(&e.path()) {
            match v["type"].as_str() {
                Some("user") if v["isMeta"] != true => {
                    if let Some(s) = v["message"]["content"].as_str() {
                        if !s.starts_with('<') {
                            out.push(s.to_string());
                        }
                    }
                }
                Some("assistant") => {
                    for b in v["message"]["content"].as_array().into_iter().flatten() {
                        if let Some(t) = b["text"].as_str() {
                            out.push(t.to_string());
                        }
                    }
                }
                Some("attachment") if v["attachment"]["type"] == "queued_command" => {
                    out.push(v["attachment"]["prompt"].as_str().unwrap_or("").to_string());
                }
                _ => {}
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The line a reader follows to `leaf` (the graph's projection of its
/// branch), as short labels: `you: <prompt>`, `claude: <text>`, `summary`,
/// `compacted (<kind>)`; tool calls, results and context left out.
pub fn line_to(project: &Path, leaf: &str) -> Vec<String> {
    use cctree::model::{Kind, UserKind};
    let p = cctree::project::Project::load(cctree::agent::claude::discover::scan_project(project).unwrap());
    let g = &p.graph;
    let n = g.index[leaf];
    let b = g.node(n).branch.expect("a main node");
    let mut out = Vec::new();
    for k in g.projection(b) {
        let e = g.entry(&p.entries, k);
        let label = match (&e.kind, e.user_kind) {
            (_, UserKind::Prompt) => format!("you: {}", e.excerpt),
            (_, UserKind::CompactSummary) => "summary".to_string(),
            (Kind::Assistant, _) if !e.excerpt.is_empty() => format!("claude: {}", e.excerpt),
            (Kind::System, _) if g.node(k).compaction.is_some() => {
                format!("compacted ({})", g.node(k).compaction.unwrap().name())
            }
            _ if k == n => break,
            _ => continue,
        };
        out.push(label);
        if k == n {
            break;
        }
    }
    out
}

/// What cctree makes of an archive Codex CLI or Gemini CLI wrote
/// (`input`: the client's home folder): `check` clean, one project, every
/// prompt in `prompts` on some rendered page; returns the kinds of its fork
/// points (sorted) and its number of agents.
pub fn agent_archive(input: &Path, prompts: &[String]) -> (Vec<String>, usize) {
    assert_check_clean(input);
    let d = detail(input);
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let out = cctree().args(["-q", "render"]).arg(input).arg("-o").arg(&site).output().expect("cctree render");
    assert!(out.status.success(), "cctree render failed: {}", String::from_utf8_lossy(&out.stderr));
    let alnum = |s: &str| s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect::<String>();
    let text = alnum(&crate::common::site_text(&site));
    for p in prompts {
        assert!(text.contains(&alnum(p)), "prompt {p:?} is on no page of {}", input.display());
    }
    let mut kinds: Vec<String> = d["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["fork_points"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap().to_string()))
        .collect();
    kinds.sort();
    (kinds, d["agents"].as_array().map_or(0, Vec::len))
}

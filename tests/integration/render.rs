//! `cctree render`: the site is complete (every branch reachable from its
//! conversation page), consistent (every internal link and anchor resolves),
//! faithful (every prompt and assistant text appears), safe (CSP, no inline
//! scripts or styles) and deterministic (same bytes across runs and thread counts).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use cctree::build::{BuildOptions, BuildSummary, build};
use cctree::discover;
use cctree::model::{Kind, UserKind};
use cctree::project::Project;
use cctree::render::site::urls::{project_slugs, sanitize_segment};
use serde_json::Value;

use crate::support::{cctree, example_archive, load, real_projects};

fn render(input: &Path, out: &Path, page_size: u32) -> BuildSummary {
    let archive = discover::discover(&[input.to_path_buf()]).expect("discover");
    build(archive, &BuildOptions { output: out.to_path_buf(), page_size, ..BuildOptions::default() }).expect("render")
}

/// Every file under `dir`, relative, with its bytes.
pub fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(e.path()).unwrap()))
        .collect()
}

pub fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#34;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The start tags of an HTML text (`<a href="…">` without the brackets);
/// text content never holds a raw `<`, so this sees markup only.
fn tags(html: &str) -> Vec<&str> {
    let b = html.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(off) = html[i..].find('<') {
        let start = i + off + 1;
        let mut j = start;
        let mut quote = false;
        while j < b.len() && (quote || b[j] != b'>') {
            if b[j] == b'"' {
                quote = !quote;
            }
            j += 1;
        }
        out.push(&html[start..j]);
        i = j.min(b.len());
    }
    out
}

/// The fork commands of a page, as a reader copies them: the text of each
/// "fork here" control's `<code class="cmd">` (its copy button, added by
/// app.js, copies that text).
pub fn fork_commands_in(html: &str) -> Vec<String> {
    html.split("<div class=\"fork-pop\"")
        .skip(1)
        .filter_map(|s| {
            let s = &s[s.find("<code class=\"cmd\">")? + "<code class=\"cmd\">".len()..];
            Some(unescape(&s[..s.find("</code>").unwrap_or(s.len())]))
        })
        .collect()
}

/// Values of `attr="…"` in the tags of an HTML text.
pub fn attr_values<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
    let pat = format!(" {attr}=\"");
    let mut out = Vec::new();
    for tag in tags(html) {
        let mut rest = tag;
        while let Some(i) = rest.find(&pat) {
            let start = i + pat.len();
            let end = rest[start..].find('"').map_or(rest.len(), |e| start + e);
            out.push(&rest[start..end]);
            rest = &rest[end..];
        }
    }
    out
}

/// ` onxyz=` outside quoted values.
fn has_handler(tag: &str) -> bool {
    let mut quote = false;
    let b = tag.as_bytes();
    for i in 0..b.len() {
        if b[i] == b'"' {
            quote = !quote;
        }
        if !quote && b[i] == b' ' && tag[i + 1..].starts_with("on") {
            let rest = &tag[i + 3..];
            let name_len = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
            if name_len > 0 && rest[name_len..].starts_with('=') {
                return true;
            }
        }
    }
    false
}

fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                assert!(out.pop(), "link escapes the site: {}", p.display());
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Resolves an internal link of the page at `page` (relative to the site).
pub fn resolve(page: &Path, link: &str) -> (PathBuf, Option<String>) {
    let link = unescape(link);
    let (path, frag) = match link.split_once('#') {
        Some((p, f)) => (p.to_string(), Some(f.to_string())),
        None => (link, None),
    };
    let target = if path.is_empty() { page.to_path_buf() } else { normalize(&page.parent().unwrap().join(path)) };
    (target, frag)
}

fn is_external(link: &str) -> bool {
    link.starts_with("https://") || link.starts_with("http://") || link.starts_with("mailto:")
}

/// Checks every page: CSP present, no inline script or style, every internal
/// href/src resolves to a file and every fragment to an id.
fn check_links(site: &BTreeMap<PathBuf, Vec<u8>>) {
    let mut ids: BTreeMap<&Path, BTreeSet<String>> = BTreeMap::new();
    for (path, bytes) in site {
        if path.extension().is_some_and(|e| e == "html") {
            let html = std::str::from_utf8(bytes).unwrap();
            let set: BTreeSet<String> = attr_values(html, "id").into_iter().map(unescape).collect();
            ids.insert(path, set);
        }
    }
    let mut links = 0;
    for (path, bytes) in site {
        if path.extension().is_none_or(|e| e != "html") {
            continue;
        }
        let html = std::str::from_utf8(bytes).unwrap();
        assert!(html.contains("Content-Security-Policy"), "{}: no CSP", path.display());
        // An icon of its own (checked below to resolve), so that a browser asks
        // no server for `/favicon.ico`.
        assert!(tags(html).iter().any(|t| t.starts_with("link rel=\"icon\"")), "{}: no icon", path.display());
        for tag in tags(html) {
            assert!(!tag.contains(" style="), "{}: inline style in <{tag}>", path.display());
            assert!(!has_handler(tag), "{}: event handler in <{tag}>", path.display());
            assert!(tag != "script", "{}: inline script", path.display());
        }
        for link in attr_values(html, "href").into_iter().chain(attr_values(html, "src")) {
            assert!(!link.trim_start().to_ascii_lowercase().starts_with("javascript"), "{}: {link}", path.display());
            if is_external(link) {
                continue;
            }
            links += 1;
            let (target, frag) = resolve(path, link);
            assert!(site.contains_key(&target), "{}: broken link {link}", path.display());
            if let Some(f) = frag {
                let known = ids.get(target.as_path()).is_some_and(|s| s.contains(&f));
                assert!(known, "{}: no #{f} in {}", path.display(), target.display());
            }
        }
    }
    assert!(links > 0);
}

/// Every non-main branch page is linked from its conversation's page.
fn check_branches_reachable(input: &Path, site: &BTreeMap<PathBuf, Vec<u8>>) {
    let projects = load(&[input.to_path_buf()]);
    let names: Vec<&str> = projects.iter().map(|p| p.source.name.as_str()).collect();
    let slugs = project_slugs(&names);
    let mut branches = 0;
    for (p, slug) in projects.iter().zip(&slugs) {
        let g = &p.graph;
        for c in &g.conversations {
            let conv_dir = PathBuf::from(slug).join("c").join(sanitize_segment(g.uuid(&p.entries, c.root)));
            let page = conv_dir.join("index.html");
            let html = std::str::from_utf8(site.get(&page).unwrap_or_else(|| panic!("missing {}", page.display())))
                .unwrap()
                .to_string();
            let targets: BTreeSet<PathBuf> =
                attr_values(&html, "href").into_iter().map(|l| resolve(&page, l).0).collect();
            for &b in c.branches.iter().skip(1) {
                let first = g.uuid(&p.entries, g.branches[b].first);
                let bpage = conv_dir.join("b").join(sanitize_segment(first)).join("index.html");
                assert!(site.contains_key(&bpage), "missing branch page {}", bpage.display());
                assert!(targets.contains(&bpage), "{} not linked from {}", bpage.display(), page.display());
                branches += 1;
            }
        }
    }
    let _ = branches;
}

/// The text a Markdown source shows, as lowercase letters and digits only.
fn shown_text(md: &str) -> String {
    use pulldown_cmark::{Event, Options, Parser};
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut s = String::new();
    for ev in Parser::new_ext(md, opts) {
        if let Event::Text(t) | Event::Code(t) | Event::Html(t) | Event::InlineHtml(t) = ev {
            s.push_str(&t);
        }
    }
    alnum(&s)
}

fn alnum(s: &str) -> String {
    s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// The text of every page, tags stripped and entities decoded, letters and digits only.
fn site_text(site: &BTreeMap<PathBuf, Vec<u8>>) -> String {
    let mut all = String::new();
    for (path, bytes) in site {
        if path.extension().is_none_or(|e| e != "html") {
            continue;
        }
        let html = std::str::from_utf8(bytes).unwrap();
        let mut text = String::with_capacity(html.len());
        let mut in_tag = false;
        for c in html.chars() {
            match c {
                '<' => in_tag = true,
                '>' if in_tag => in_tag = false,
                c if !in_tag => text.push(c),
                _ => {}
            }
        }
        all.push_str(&alnum(&unescape(&text)));
        all.push('\n');
    }
    all
}

/// Prompt texts and assistant text blocks of every node.
fn message_texts(p: &Project) -> Vec<String> {
    let mut out = Vec::new();
    for n in &p.graph.nodes {
        let e = &p.entries[n.entry];
        let wanted =
            (e.kind == Kind::User && e.user_kind == UserKind::Prompt) || (e.kind == Kind::Assistant && e.is_reply());
        if !wanted {
            continue;
        }
        let v: Value = p.json(e).unwrap();
        match &v["message"]["content"] {
            Value::String(s) => out.push(s.clone()),
            Value::Array(blocks) => {
                for b in blocks {
                    if b["type"] == "text" {
                        out.push(b["text"].as_str().unwrap_or("").to_string());
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn check_content(input: &Path, site: &BTreeMap<PathBuf, Vec<u8>>) {
    let text = site_text(site);
    let mut checked = 0;
    for p in load(&[input.to_path_buf()]) {
        for t in message_texts(&p) {
            let shown = shown_text(&t);
            let head: String = shown.chars().take(80).collect();
            if head.is_empty() {
                continue;
            }
            assert!(
                text.contains(&head),
                "{}: text not on any page: {:?}",
                p.source.name,
                t.chars().take(120).collect::<String>()
            );
            checked += 1;
        }
    }
    assert!(checked > 0);
}

fn check_site(input: &Path, page_size: u32) -> BTreeMap<PathBuf, Vec<u8>> {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let summary = render(input, &out, page_size);
    assert!(summary.pages > 0);
    let site = files(&out);
    check_links(&site);
    check_branches_reachable(input, &site);
    check_content(input, &site);
    site
}

#[test]
fn example_archive_renders_completely() {
    let site = check_site(&example_archive(), 50);
    let conv = site
        .get(Path::new("-home-alice-src-weather-cli/c/a1000000-0000-4000-8000-000000000001/index.html"))
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .expect("conversation page");
    assert!(conv.contains("Fork-point index"));
    assert!(conv.contains(">12.2<") && conv.contains(">15.2<"), "branch labels");
    assert!(site.keys().any(|k| k.starts_with("assets/img") && k.extension().is_some_and(|e| e == "png")));
    let agent = Path::new("-home-alice-src-weather-cli/agents/a3f9c2e1b7d40a6f5/index.html");
    assert!(site.contains_key(agent));
}

#[test]
fn small_pages_paginate_and_links_still_resolve() {
    let site = check_site(&example_archive(), 2);
    assert!(site.keys().any(|k| k.ends_with("page-2.html")));
}

#[test]
fn real_projects_render_completely() {
    check_site(&real_projects(), 50);
}

#[test]
fn output_is_byte_identical_across_runs_and_thread_counts() {
    let input = example_archive();
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    render(&input, &a, 50);
    let b = tmp.path().join("b");
    render(&input, &b, 50);
    assert_eq!(files(&a), files(&b));
    let inputs = [example_archive(), real_projects()];
    for input in inputs {
        let mut sites = Vec::new();
        for jobs in ["1", "2"] {
            let out = tmp.path().join(format!("j{jobs}-{}", sites.len()));
            let st = cctree().args(["-q", "-j", jobs, "render"]).arg(&input).arg("-o").arg(&out).status().unwrap();
            assert!(st.success());
            sites.push(files(&out));
        }
        assert_eq!(sites[0], sites[1], "{}", input.display());
    }
}

#[test]
fn refuses_output_inside_input_and_foreign_directories() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("projects");
    copy_dir(&example_archive(), &input);
    let out = cctree().args(["render"]).arg(&input).arg("-o").arg(input.join("site")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("inside the input"));
    assert!(!input.join("site").exists());
    let foreign = tmp.path().join("foreign");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "mine").unwrap();
    let out = cctree().args(["render"]).arg(&input).arg("-o").arg(&foreign).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!foreign.join("index.html").exists());
}

fn copy_dir(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from).into_iter().filter_map(Result::ok) {
        let rel = e.path().strip_prefix(from).unwrap();
        let dst = to.join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dst).unwrap();
        } else {
            std::fs::copy(e.path(), &dst).unwrap();
        }
    }
}

#[test]
fn hostile_transcripts_are_escaped_and_stay_inside_the_output() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("projects").join("-tmp-evil");
    std::fs::create_dir_all(&project).unwrap();
    let lines = [
        serde_json::json!({"type":"user","uuid":"../../../../etc/x","parentUuid":null,"sessionId":"s/../..","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"<script>alert(1)</script> <img src=x onerror=alert(2)> [x](javascript:alert(3))"}}),
        serde_json::json!({"type":"assistant","uuid":"a/../b\u{0}","parentUuid":"../../../../etc/x","sessionId":"s/../..","timestamp":"2026-01-01T00:00:01.000Z","message":{"id":"m1","model":"claude","role":"assistant","content":[{"type":"text","text":"<iframe src=\"https://evil.example\"></iframe>\n\n![p](https://evil.example/p.png)"},{"type":"tool_use","id":"t1","name":"mcp__x__y","input":{"html":"<script>alert(4)</script>"}}]}}),
        serde_json::json!({"type":"user","uuid":"r1","parentUuid":"a/../b\u{0}","sessionId":"s/../..","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"<b onmouseover=alert(5)>x</b>"},{"type":"image","source":{"type":"base64","media_type":"image/svg+xml","data":"PHN2Zz48c2NyaXB0PmFsZXJ0KDYpPC9zY3JpcHQ+PC9zdmc+"}}]}]}}),
    ];
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(project.join("s.jsonl"), body).unwrap();
    let out = tmp.path().join("out");
    render(&tmp.path().join("projects"), &out, 50);
    let site = files(&out);
    check_links(&site);
    for (path, bytes) in &site {
        let s = String::from_utf8_lossy(bytes);
        if path.extension().is_some_and(|e| e == "html") {
            for bad in ["<script>alert", "<img src=x", "<iframe", "<b onmouseover"] {
                assert!(!s.contains(bad), "{}: {bad}", path.display());
            }
        }
        assert!(!path.to_string_lossy().contains(".."), "{}", path.display());
    }
    // No image of a transcript as SVG (it could carry script): the one SVG is the site's icon.
    let svgs: Vec<_> = site.keys().filter(|k| k.extension().is_some_and(|e| e == "svg")).collect();
    assert_eq!(svgs, [Path::new("assets/icon.svg")]);
    let listing = crate::adversarial::listing(tmp.path());
    assert!(listing.iter().all(|p| p.starts_with(&out) || p.starts_with(tmp.path().join("projects"))));
}

/// `uuid → (legal, session of its canonical entry)` for every node on a
/// conversation branch, judged like the site does: on each branch's projection.
fn checkpoints(p: &Project) -> BTreeMap<String, (bool, String)> {
    let g = &p.graph;
    let mut out = BTreeMap::new();
    for c in &g.conversations {
        for &b in &c.branches {
            let path = g.projection(b);
            let legal = cctree::agent::claude::fork::legal_checkpoints(p, &path);
            let own = g.branches[b].nodes.len();
            for (&n, ok) in path.iter().zip(legal).skip(path.len() - own) {
                let e = g.entry(&p.entries, n);
                out.insert(g.uuid(&p.entries, n).to_string(), (ok, e.session_id.as_deref().unwrap_or("").to_string()));
            }
        }
    }
    out
}

/// Every page of a site as text, by path.
fn pages(site: &BTreeMap<PathBuf, Vec<u8>>) -> Vec<(&PathBuf, String)> {
    site.iter()
        .filter(|(k, _)| k.extension().is_some_and(|e| e == "html"))
        .map(|(k, v)| (k, String::from_utf8_lossy(v).into_owned()))
        .collect()
}

#[test]
fn fork_commands_stand_at_legal_checkpoints_only() {
    let judged: BTreeMap<String, (bool, String)> = load(&[example_archive()]).iter().flat_map(checkpoints).collect();
    // A known illegal checkpoint (between a tool_use and its result) and a known legal one (the first prompt).
    let illegal = "a1000000-0000-4000-8000-000000000004";
    let legal = "a1000000-0000-4000-8000-000000000001";
    assert_eq!(judged.get(illegal).map(|j| j.0), Some(false), "the example's tool call is not legal to fork at");
    let (ok, session) = judged.get(legal).cloned().expect("first prompt");
    assert!(ok, "the first prompt is a legal checkpoint");

    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    render(&example_archive(), &out, 50);
    let site = files(&out);
    let pages = pages(&site);
    let all: String = pages.iter().map(|(_, t)| t.as_str()).collect();
    let dir = example_archive().join("-home-alice-src-weather-cli");
    // A local site's commands name the archive it was rendered from (so
    // that they work as copied from anywhere); a published one names none.
    let projects = cctree::fork::lookup::projects_arg(&dir, &example_archive(), true);
    assert!(projects.is_some(), "a local site's commands name its archive");
    assert!(cctree::fork::lookup::projects_arg(&dir, &example_archive(), false).is_none());
    let want = cctree::model::fork_command(&session, legal, projects.as_deref());
    assert!(all.contains(&format!("<code class=\"cmd\">{want}</code>")), "no fork command for {legal}");
    assert!(!all.contains(&format!("--at={illegal}")), "a fork command at the illegal {illegal}");

    // Every command on the site names a legal checkpoint and its own session,
    // and sits in a collapsed control in a message header.
    let mut seen = BTreeSet::new();
    for (path, text) in &pages {
        for cmd in fork_commands_in(text) {
            let rest = cmd.strip_prefix("cctree fork --at=").unwrap_or_else(|| panic!("{path:?}: {cmd}"));
            let (at, s) = rest.split_once(" -- ").unwrap_or_else(|| panic!("{path:?}: {cmd}"));
            let at = at.split_once(" --projects ").map_or(at, |(at, _)| at);
            let (ok, session) = judged.get(at).unwrap_or_else(|| panic!("{path:?}: unknown node in {cmd}"));
            assert!(ok, "{path:?}: fork command at an illegal checkpoint: {cmd}");
            assert_eq!(s, session, "{path:?}: {cmd}");
            // A checkpoint's command stands once on the page of its branch,
            // and once more on the conversation page when the active line
            // passes it.
            let conv_page = !path.to_string_lossy().contains("/b/");
            assert!(seen.insert((conv_page, at.to_string())), "{path:?}: two commands for {at}");
        }
        assert_eq!(text.matches("<details class=\"fork-cmd\">").count(), fork_commands_in(text).len(), "{path:?}");
    }
    // Each branch page offers some, and most legal checkpoints get one.
    for (path, text) in &pages {
        // (A fork's compare page shows the branches, not their checkpoints.)
        if path.to_string_lossy().contains("/c/") && !path.to_string_lossy().contains("/compare/") {
            assert!(text.contains("class=\"fork-cmd\""), "{path:?} offers no fork command");
        }
    }
    assert!(seen.len() >= 20, "only {} fork commands", seen.len());
    // No inline script: the copy button is made and wired by app.js (the
    // browser suite clicks it); the hint names the client's resume command.
    assert!(!all.contains("onclick"));
    assert!(all.contains("<div class=\"fork-pop\" data-resume=\"claude -r\">"));
    let app = String::from_utf8_lossy(&site[Path::new("assets/app.js")]).into_owned();
    assert!(app.contains("navigator.clipboard") && app.contains("code.cmd"));
}

#[test]
fn fork_index_titles_belong_to_the_rows_that_end_at_the_leaf() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    render(&example_archive(), &out, 50);
    let conv = std::fs::read_to_string(
        out.join("-home-alice-src-weather-cli/c/a1000000-0000-4000-8000-000000000001/index.html"),
    )
    .unwrap();
    let row = |label: &str| -> String {
        conv.split("<li class=\"row ")
            .find(|r| r.contains(&format!(">{label}</a>")))
            .unwrap_or_else(|| panic!("no row {label}"))
            .split("</li>")
            .next()
            .unwrap()
            .to_string()
    };
    // 12.2 goes on to fork at #15: its leaf's summary belongs to 15.1.
    let r122 = row("12.2");
    assert!(!r122.contains("class=\"title\""), "12.2 shows a title: {r122}");
    assert!(!r122.contains("Retry via backoff crate"), "{r122}");
    assert!(r122.contains("Scratch the units idea"), "12.2 shows its first words: {r122}");
    assert!(row("15.1").contains("Retry via backoff crate"));
    assert!(row("12.1").contains("class=\"title\""), "12.1 ends at the main branch's leaf");
    // The branch header: no stray " ." after the badge.
    let branch = std::fs::read_to_string(
        out.join("-home-alice-src-weather-cli/c/a1000000-0000-4000-8000-000000000001/b/a1f2b200-0000-4000-8000-000000000001/index.html"),
    )
    .unwrap();
    assert!(branch.contains("on branch 12.2. <span class=\"badge active\">active</span></p>"), "branch header");
    assert!(!branch.contains("</span>.</p>"));
}

#[test]
fn sessions_written_by_cctree_fork_are_marked() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("projects");
    copy_dir(&example_archive(), &root);
    let before = files(&root);
    let p = load(&[root.join("-home-alice-src-weather-cli")]).pop().unwrap();
    let judged = checkpoints(&p);
    let at = "a1000000-0000-4000-8000-000000000001";
    let session = &judged[at].1;
    let out = cctree().args(["fork", session, "--at", at, "--projects"]).arg(&root).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let after = files(&root);
    let new: Vec<&PathBuf> = after.keys().filter(|k| !before.contains_key(*k)).collect();
    assert_eq!(new.len(), 1, "{new:?}");
    let fork_id = new[0].file_stem().unwrap().to_string_lossy().into_owned();

    let site = tmp.path().join("site");
    render(&root, &site, 50);
    let conv = std::fs::read_to_string(
        site.join("-home-alice-src-weather-cli/c/a1000000-0000-4000-8000-000000000001/index.html"),
    )
    .unwrap();
    assert!(conv.contains("<dt>cctree fork</dt>"), "no cctree fork fact");
    assert!(conv.contains(&format!("<code>{fork_id}</code> at <a href=")), "the fork and its checkpoint");
    let project = std::fs::read_to_string(site.join("-home-alice-src-weather-cli/index.html")).unwrap();
    assert!(project.contains("1 cctree fork</span>"), "no badge on the conversation row");
}

/// Where a line forks, a landmark names every future with its link (readers
/// of a long page see where the line forked): on the page of the branch the
/// fork is on, and on the conversation page when the active line passes it.
#[test]
fn fork_points_are_marked_where_they_happen() {
    let tmp = tempfile::tempdir().unwrap();
    render(&example_archive(), tmp.path(), 50);
    let site = files(tmp.path());
    let mut notes: Vec<(String, String)> = Vec::new();
    for (p, b) in site.iter().filter(|(p, _)| p.extension().is_some_and(|x| x == "html")) {
        let html = String::from_utf8_lossy(b).into_owned();
        for n in html.split("<nav class=\"forknote\"").skip(1) {
            let n = n.split("</nav>").next().unwrap_or("").to_string();
            notes.push((p.display().to_string(), n));
        }
    }
    // Two fork points in the example (#12 on the main branch, #15 on 12.2,
    // both on the active line): each marked on its branch's page and on the
    // conversation page, once per page.
    let conv = "c/a1000000-0000-4000-8000-000000000001/index.html";
    assert_eq!(notes.len(), 4, "{notes:?}");
    assert_eq!(notes.iter().filter(|(p, _)| p.ends_with(conv)).count(), 2, "{notes:?}");
    // Each new branch linked from both: its page, or its first message on
    // the conversation page, which reads it.
    for (fork, branch) in [
        ("a1000000-0000-4000-8000-000000000029", "a1f1b200-0000-4000-8000-000000000001"),
        ("a1f1b200-0000-4000-8000-000000000005", "a1f2b200-0000-4000-8000-000000000001"),
    ] {
        let at_fork: Vec<_> = notes.iter().filter(|(_, n)| n.starts_with(&format!(" id=\"fork-{fork}\""))).collect();
        assert_eq!(at_fork.len(), 2, "{fork}: {notes:?}");
        for (p, n) in at_fork {
            let here = p.ends_with(conv) && n.contains(&format!("href=\"index.html#m-{branch}\""));
            assert!(here || n.contains(&format!("{branch}/index.html")), "{p}: {branch} not linked: {n}");
        }
    }
    for (page, n) in &notes {
        assert!(n.contains("id=\"fork-a1"), "{page}: a landmark without its anchor: {n}");
        let more = n.matches("<li class=\"more\"").count();
        assert_eq!(n.matches("<li").count() - more, 2, "{page}: two futures at each fork: {n}");
        // And the way to compare them.
        assert!(n.contains("compare/a1") && n.contains(">Compare the branches side by side</a>"), "{page}: {n}");
    }
}

/// The `<main>` of a page, for snapshots: the part a markup change shows in
/// (the head and footer are the same on every page).
fn main_region(html: &str) -> &str {
    let start = html.find("<main>").expect("a <main>");
    let end = html.rfind("</main>").expect("a </main>") + "</main>".len();
    &html[start..end]
}

/// The markup of the example's conversation page (with its fork-point
/// index), a branch page (with the context before the fork) and a sub-agent
/// page, as snapshots: any change of an element or class shows in review
/// (`cargo insta review`).
#[test]
fn example_pages_markup() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    render(&example_archive(), &out, 50);
    let weather = out.join("-home-alice-src-weather-cli");
    let conv = weather.join("c/a1000000-0000-4000-8000-000000000001");
    for (name, page) in [
        ("example_conversation_page", conv.join("index.html")),
        ("example_branch_page", conv.join("b/a1f1b200-0000-4000-8000-000000000001/index.html")),
        ("example_agent_page", weather.join("agents/a3f9c2e1b7d40a6f5/index.html")),
    ] {
        // A local site's fork commands name the archive's path: wherever the
        // clone sits, the snapshot says ARCHIVE.
        let html = std::fs::read_to_string(&page).unwrap().replace(&example_archive().display().to_string(), "ARCHIVE");
        insta::assert_snapshot!(name, main_region(&html));
    }
}

/// Raw NUL and ESC reached the HTML (askama's escaping and
/// syntect write control characters as they are). In a title, a prompt, a
/// highlighted code block, inline code, a tool call and its output, every
/// C0 control but tab and newline is shown as its Control Picture.
#[test]
fn raw_nul_and_esc_never_reach_the_html() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("projects/-tmp-ctl");
    std::fs::create_dir_all(&project).unwrap();
    let ctl = "NUL\u{0}ESC\u{1b}[1mBEL\u{7}DEL\u{7f}";
    let lines = [
        serde_json::json!({"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2025-07-01T00:00:01Z",
            "message":{"role":"user","content":format!("{ctl}\n\n`{ctl}`\n\n```rust\nlet s = \"{ctl}\";\n```\n")}}),
        serde_json::json!({"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2025-07-01T00:00:02Z",
            "message":{"id":"m1","role":"assistant","model":"claude","content":[{"type":"tool_use","id":"t1","name":"Bash",
            "input":{"command":format!("echo {ctl}"),"description":ctl}}]}}),
        serde_json::json!({"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s1","timestamp":"2025-07-01T00:00:03Z",
            "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":format!("plain {ctl}\r\n")}]}}),
        serde_json::json!({"type":"custom-title","sessionId":"s1","customTitle":format!("title {ctl}")}),
    ];
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(project.join("s1.jsonl"), body).unwrap();
    let out = tmp.path().join("site");
    render(&tmp.path().join("projects"), &out, 50);
    let mut pages = 0;
    for (path, bytes) in files(&out).into_iter().filter(|(p, _)| p.extension().is_some_and(|e| e == "html")) {
        let html = String::from_utf8(bytes).unwrap();
        let bad: Vec<char> = html.chars().filter(|c| c.is_ascii_control() && !matches!(c, '\t' | '\n')).collect();
        assert!(bad.is_empty(), "{}: {bad:?}", path.display());
        pages += usize::from(html.contains("NUL\u{2400}ESC\u{241b}[1mBEL\u{2407}DEL\u{2421}"));
    }
    assert!(pages >= 2, "the controls are shown, as pictures, on the conversation page and the project index");
}

/// The results of `Edit` and `Write` (whose calls show the diff or
/// the file) were cut at 200 characters with no way to read on. A result
/// that fits is one line; a longer one is its first words with the whole
/// text under them.
#[test]
fn edit_and_write_results_are_not_cut_at_200_characters() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("projects/-tmp-results");
    std::fs::create_dir_all(&project).unwrap();
    let long = format!("The file /tmp/a.rs has been updated. {} END-OF-RESULT", "line of the snippet; ".repeat(40));
    let call =
        |id: &str, name: &str, input: Value| serde_json::json!({"type":"tool_use","id":id,"name":name,"input":input});
    let result = |id: &str, text: &str| serde_json::json!({"type":"tool_result","tool_use_id":id,"content":text});
    let lines = [
        serde_json::json!({"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2025-07-01T00:00:01Z",
            "message":{"role":"user","content":"edit it"}}),
        serde_json::json!({"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2025-07-01T00:00:02Z",
            "message":{"id":"m1","role":"assistant","model":"claude","content":[
                call("t1", "Edit", serde_json::json!({"file_path":"/tmp/a.rs","old_string":"a","new_string":"b"})),
                call("t2", "Write", serde_json::json!({"file_path":"/tmp/b.rs","content":"fn main() {}"})),
                call("t3", "Edit", serde_json::json!({"file_path":"/tmp/c.rs","old_string":"c","new_string":"d"}))]}}),
        serde_json::json!({"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s1","timestamp":"2025-07-01T00:00:03Z",
            "message":{"role":"user","content":[result("t1", &long), result("t2", &long.replace("END", "WRITE-END")),
                result("t3", "Short result.")]}}),
    ];
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(project.join("s1.jsonl"), body).unwrap();
    let out = tmp.path().join("site");
    render(&tmp.path().join("projects"), &out, 50);
    let page = files(&out)
        .into_iter()
        .find(|(p, _)| p.ends_with("c/u1/index.html"))
        .map(|(_, b)| String::from_utf8(b).unwrap())
        .expect("the conversation page");
    for marker in ["END-OF-RESULT", "WRITE-END-OF-RESULT"] {
        let at = page.find(marker).unwrap_or_else(|| panic!("{marker} is not on the page"));
        let opened = page[..at].rfind("<details class=\"result-text\"><summary>The file /tmp/a.rs has been updated.");
        assert!(opened.is_some_and(|o| !page[o..at].contains("</details>")), "{marker} is not under the first words");
    }
    assert!(page.contains("<p class=\"note\">Short result.</p>"), "a short result stays one line");
}

/// A project of 200,000 sessions (`claude -p` per job) was one
/// project page of 72 MB. The index is pages of at most 200 conversations
/// (page 1 at the project's `index.html`, then `page-2.html`…), newest
/// first, each conversation on exactly one page, linked to one another by a
/// pager that does not grow with the number of pages.
#[test]
fn many_sessions_make_an_index_of_pages_not_one_huge_page() {
    const N: usize = 1_250;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("projects").join("-jobs");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..N {
        let s = format!("00000000-0000-4000-8000-{i:012}");
        let (h, m) = (i / 60, i % 60);
        let ts = format!("2025-07-01T{:02}:{m:02}:00.000Z", h % 24);
        let day = 1 + h / 24;
        let ts = ts.replacen("-01T", &format!("-{day:02}T"), 1);
        let lines = [
            format!(
                r#"{{"type":"user","uuid":"u-{i}","parentUuid":null,"sessionId":"{s}","timestamp":"{ts}","message":{{"role":"user","content":"Job number {i} please"}}}}"#
            ),
            format!(
                r#"{{"type":"assistant","uuid":"a-{i}","parentUuid":"u-{i}","sessionId":"{s}","timestamp":"{ts}","message":{{"id":"m-{i}","role":"assistant","content":[{{"type":"text","text":"Done with job {i}"}}]}}}}"#
            ),
        ];
        std::fs::write(dir.join(format!("{s}.jsonl")), lines.join("\n") + "\n").unwrap();
    }
    let out = tmp.path().join("site");
    render(&tmp.path().join("projects"), &out, 50);
    let site = files(&out);
    check_links(&site);
    let page = |n: usize| {
        let name = if n == 1 { "index.html".to_string() } else { format!("page-{n}.html") };
        site.get(&Path::new("-jobs").join(name)).map(|b| String::from_utf8(b.clone()).unwrap())
    };
    let pages: Vec<String> = (1..).map_while(page).collect();
    assert_eq!(pages.len(), N.div_ceil(200), "200 conversations a page");
    let mut seen = Vec::new();
    for (i, html) in pages.iter().enumerate() {
        let cards = html.matches(r#"<li class="card">"#).count();
        assert_eq!(cards, 200.min(N - 200 * i), "page {}", i + 1);
        assert!(html.contains(&format!("{N} conversations")), "the total on every page");
        let jobs: Vec<usize> =
            html.split("Job number ").skip(1).map(|t| t[..t.find(' ').unwrap()].parse().unwrap()).collect();
        seen.extend(jobs);
        // The pager: first and last page, two around the current one, gaps.
        let nav = &html[html.find(r#"<nav class="pager""#).unwrap()..];
        let nav = &nav[..nav.find("</nav>").unwrap()];
        assert!(nav.matches("<a ").count() + nav.matches(r#"class="cur""#).count() <= 2 + 7, "{nav}");
        assert_eq!(nav.contains(r#"rel="prev""#), i > 0);
        assert_eq!(nav.contains(r#"rel="next""#), i + 1 < pages.len());
        assert!(nav.contains(&format!(r#"<span class="cur">{}</span>"#, i + 1)));
    }
    // Newest first, each exactly once.
    assert_eq!(seen, (0..N).rev().collect::<Vec<_>>());
    // Page 1 links 1, 2, 3 … 7; page 4 links every page 1–7, with no gap.
    assert!(pages[0].contains(r#"<a href="page-3.html">3</a><span class="gap">…</span><a href="page-7.html">7</a>"#));
    assert!(!pages[3].contains(r#"class="gap""#));
}

/// A project whose one answer was asked again `n` times (`p0`… one prompt
/// and one reply each), plus branch `p7` going on for `long` more turns.
fn rewinds(dir: &Path, n: usize, long: usize) {
    use std::io::Write;
    std::fs::create_dir_all(dir).unwrap();
    let ts = |s: usize| format!("2025-07-01T{:02}:{:02}:{:02}.000Z", s / 3600, s / 60 % 60, s % 60);
    let mut w = std::io::BufWriter::new(std::fs::File::create(dir.join("s.jsonl")).unwrap());
    let mut line = |v: Value| writeln!(w, "{v}").unwrap();
    line(serde_json::json!({"type":"user","uuid":"root","parentUuid":null,"sessionId":"s","timestamp":ts(0),
        "message":{"role":"user","content":"Start"}}));
    line(serde_json::json!({"type":"assistant","uuid":"answer","parentUuid":"root","sessionId":"s","timestamp":ts(1),
        "message":{"id":"m0","role":"assistant","content":[{"type":"text","text":"Ask again"}]}}));
    for i in 0..n {
        line(serde_json::json!({"type":"user","uuid":format!("p{i}"),"parentUuid":"answer","sessionId":"s",
            "timestamp":ts(2 + 2 * i),"message":{"role":"user","content":format!("Rewind {i}")}}));
        line(
            serde_json::json!({"type":"assistant","uuid":format!("r{i}"),"parentUuid":format!("p{i}"),"sessionId":"s",
            "timestamp":ts(3 + 2 * i),"message":{"id":format!("m{}", i + 1),"role":"assistant",
            "content":[{"type":"text","text":format!("Reply {i}")}]}}),
        );
    }
    let mut parent = "r7".to_string();
    for k in 0..long {
        let (u, a) = (format!("l{k}"), format!("la{k}"));
        line(serde_json::json!({"type":"user","uuid":u,"parentUuid":parent,"sessionId":"s",
            "timestamp":ts(3 * n + 2 * k),"message":{"role":"user","content":format!("Longer {k}")}}));
        line(serde_json::json!({"type":"assistant","uuid":a,"parentUuid":u,"sessionId":"s",
            "timestamp":ts(3 * n + 2 * k + 1),"message":{"id":format!("ml{k}"),"role":"assistant",
            "content":[{"type":"text","text":format!("Long reply {k}")}]}}));
        parent = a;
    }
}

/// Where the fork's list (every page of it) says each branch is read.
fn listed_branches(site: &BTreeMap<PathBuf, Vec<u8>>, list_dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (path, bytes) in site.iter().filter(|(p, _)| p.parent() == Some(list_dir)) {
        let html = std::str::from_utf8(bytes).unwrap();
        for row in html.split("<li class=\"row branch").skip(1) {
            let href = attr_values(row, "href")[0];
            let label =
                row.split("class=\"lbl\"").nth(1).unwrap().split('>').nth(1).unwrap().split('<').next().unwrap();
            let (target, frag) = resolve(path, href);
            out.insert(label.to_string(), format!("{}#{}", target.display(), frag.unwrap_or_default()));
        }
    }
    out
}

#[test]
fn a_fork_of_thousands_of_branches_lists_them_apart_and_shares_pages_by_uuid() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    let dir = input.join("-rewinds");
    rewinds(&dir, 1200, 60);
    let out = tmp.path().join("site");
    render(&input, &out, 50);
    let site = files(&out);
    check_links(&site);
    let conv = PathBuf::from("-rewinds/c/root");
    let html = std::str::from_utf8(&site[&conv.join("index.html")]).unwrap();
    // The fork-point index and the landmark name 100 branches, and lead to
    // the fork's own list.
    let rows = html.matches("<li class=\"row branch").count();
    assert!((100..=102).contains(&rows), "{rows} rows in the fork-point index");
    assert!(html.contains("1100 more: every branch of the fork at #2"), "no link to the fork's list");
    assert!(html.len() < 400_000, "conversation page of {} bytes", html.len());
    // The list names every branch, on two pages; each is read where it says.
    let list_dir = conv.join("f/answer");
    assert!(site.contains_key(&list_dir.join("page-2.html")));
    let listed = listed_branches(&site, &list_dir);
    assert_eq!(listed.len(), 1200, "every branch is listed");
    let shared: BTreeSet<&PathBuf> = site
        .keys()
        .filter(|p| p.starts_with(&list_dir) && p.components().count() == 7 && p.ends_with("index.html"))
        .collect();
    assert!(shared.len() > 100 && shared.len() <= 1199, "{} shared pages", shared.len());
    // Short branches share pages named by a hash of their uuid; the long
    // one (more than a page) keeps its own.
    for i in [1usize, 500, 1199] {
        let hhh = &blake3::hash(format!("p{i}").as_bytes()).to_hex()[..3];
        let want = format!("{}#b-p{i}", list_dir.join(hhh).join("index.html").display());
        assert_eq!(listed[&format!("2.{}", i + 1)], want);
        let page = std::str::from_utf8(&site[&list_dir.join(hhh).join("index.html")]).unwrap();
        assert!(page.contains(&format!("Rewind {i}")) && page.contains(&format!("Reply {i}")));
    }
    assert_eq!(listed["2.8"], format!("{}#", conv.join("b/p7/index.html").display()));
    assert!(!site.contains_key(&conv.join("b/p5/index.html")), "a short branch has no page of its own");

    // 300 more siblings: no branch moves.
    let before = listed;
    std::fs::remove_dir_all(&dir).unwrap();
    rewinds(&dir, 1500, 60);
    render(&input, &out, 50);
    let site = files(&out);
    check_links(&site);
    let after = listed_branches(&site, &list_dir);
    assert_eq!(after.len(), 1500);
    for (label, at) in &before {
        assert_eq!(&after[label], at, "branch {label} moved");
    }
}

/// The fork-point index lists forks in the map's order.
/// At fork A the active line takes A.2; a fork B on A.1 (which the map draws
/// as a side branch, with B under it) came after the whole A.2 subtree (fork
/// C) in the index, and the index said ".1 continues" where the page goes on
/// with A.2. Now both read A, B, C, and the row marked `continues` is A.2.
#[test]
fn the_fork_point_index_reads_in_the_order_of_the_map() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("in/-home-zoe-forks");
    std::fs::create_dir_all(&dir).unwrap();
    let session = "20000000-0000-4000-8000-00000000bbbb";
    // (uuid, parent, minute, is a prompt, text)
    let nodes: [(u32, Option<u32>, u32, bool, &str); 12] = [
        (1, None, 0, true, "start here"),
        (2, Some(1), 1, false, "ok"),
        (3, Some(2), 2, true, "first try alpha"),
        (4, Some(3), 3, false, "alpha answer"),
        (5, Some(4), 4, true, "alpha one"),
        (6, Some(4), 5, true, "alpha two"),
        (7, Some(2), 6, true, "second try beta"),
        (8, Some(7), 7, false, "beta answer"),
        (9, Some(8), 8, true, "beta one"),
        (10, Some(9), 9, false, "beta one answer"),
        (11, Some(8), 10, true, "beta two"),
        (12, Some(11), 11, false, "beta two answer, the latest"),
    ];
    let uuid = |n: u32| format!("20000000-0000-4000-8000-{n:012}");
    let lines: Vec<String> = nodes
        .iter()
        .map(|&(n, parent, minute, prompt, text)| {
            let message = if prompt {
                serde_json::json!({"role": "user", "content": text})
            } else {
                serde_json::json!({"role": "assistant", "id": format!("msg_{n}"), "model": "claude-sonnet-4-5",
                    "content": [{"type": "text", "text": text}]})
            };
            serde_json::json!({"type": if prompt { "user" } else { "assistant" }, "uuid": uuid(n),
                "parentUuid": parent.map(uuid), "sessionId": session, "cwd": "/home/zoe/forks", "version": "2.1.42",
                "timestamp": format!("2026-01-01T00:{minute:02}:00.000Z"), "message": message})
            .to_string()
        })
        .collect();
    std::fs::write(dir.join(format!("{session}.jsonl")), lines.join("\n") + "\n").unwrap();
    let out = tmp.path().join("site");
    let o = cctree().args(["-q", "render"]).arg(tmp.path().join("in")).arg("-o").arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = std::fs::read_to_string(out.join(format!("-home-zoe-forks/c/{}/index.html", uuid(1)))).unwrap();
    // The forks' links, in the map and in the index.
    let svg = &page[page.find("<svg class=\"map-svg\"").unwrap()..];
    let svg = &svg[..svg.find("</svg>").unwrap()];
    let map: Vec<&str> = svg
        .split("<a class=\"fork")
        .skip(1)
        .map(|a| a.split("href=\"").nth(1).unwrap().split('"').next().unwrap())
        .collect();
    let tree = &page[page.find("<ol class=\"tree\">").unwrap()..];
    let tree = &tree[..tree.find("</ol>").unwrap()];
    let rows: Vec<&str> = tree.split("<li class=\"row ").skip(1).collect();
    let index: Vec<&str> = rows
        .iter()
        .filter(|r| r.starts_with("fork"))
        .map(|r| r.split("<a class=\"lbl\" href=\"").nth(1).unwrap().split('"').next().unwrap())
        .collect();
    assert_eq!(map.len(), 3, "three forks on the map: {svg}");
    assert_eq!(index, map, "the index lists the forks as the map draws them");
    // Fork A's rows: A.1 leaving the line (with fork B under it), then A.2,
    // the active line going on, marked so.
    let labels: Vec<(String, bool)> = rows
        .iter()
        .map(|r| {
            let label = r.split("class=\"lbl\"").nth(1).unwrap().split('>').nth(1).unwrap().split('<').next().unwrap();
            (label.to_string(), r.split('"').next().unwrap().contains(" cont"))
        })
        .collect();
    let at = |l: &str| labels.iter().position(|(x, _)| x == l).unwrap_or_else(|| panic!("{l}: {labels:?}"));
    let (a1, a2) = (at("2.1"), at("2.2"));
    assert!(a1 < a2 && !labels[a1].1 && labels[a2].1, "{labels:?}");
    // Fork B (on 2.1, off the active line) goes on with its .1, listed last.
    // Both forks are at #4 (on 2.1 and on 2.2): the one off the active line
    // is named by its branch, and so are its branches.
    assert_eq!(labels[a1 + 1].0, "fork at #4 on 2.1", "{labels:?}");
    assert_eq!(&labels[a1 + 2..a2], &[("2.1/4.2".to_string(), false), ("2.1/4.1".to_string(), true)], "{labels:?}");
    assert!(labels.contains(&("fork at #4".to_string(), false)), "{labels:?}");
    assert_eq!(fork_naming_problems(&out), Vec::<String>::new());
}

/// One name for each fork and branch. On the example and
/// the real clients' archives, a branch page's "Forked from … on branch X"
/// names the branch the map and the fork-point index nest its fork under,
/// and no two forks (nor two branches) of a map or an index share a label.
#[test]
fn every_fork_has_one_name_and_its_branches_say_where_the_map_puts_them() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut inputs = vec![example_archive()];
    for client in ["client-2.1.330", "client-2.1.332"] {
        for case in ["time-travel", "bash-rewind", "compact", "summarize-from", "summarize-up-to"] {
            let dir = fixtures.join(client).join(case).join("projects");
            if dir.is_dir() {
                inputs.push(dir);
            }
        }
    }
    let mut checked = 0;
    for input in inputs {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        let o = cctree().args(["-q", "render"]).arg(&input).arg("-o").arg(&out).output().unwrap();
        assert!(o.status.success(), "{}: {}", input.display(), String::from_utf8_lossy(&o.stderr));
        assert_eq!(fork_naming_problems(&out), Vec::<String>::new(), "{}", input.display());
        checked += crate::common::html_pages(&out).iter().filter(|(_, h)| h.contains("Forked from ")).count();
    }
    assert!(checked >= 10, "only {checked} branch pages said where they forked from");
}

/// What breaks the naming of forks in a rendered site: a branch page whose
/// "forked from" branch is not where the map or the index nest its fork, or
/// two forks or branches of one conversation sharing a label.
fn fork_naming_problems(site: &Path) -> Vec<String> {
    let between = |s: &str, a: &str, b: &str| -> Option<String> {
        let from = s.find(a)? + a.len();
        Some(s[from..from + s[from..].find(b)?].to_string())
    };
    let anchor = |href: &str| href.rsplit('#').next().unwrap_or_default().to_string();
    let mut problems = Vec::new();
    // fork anchor → (the branch the map nests it under, the index's).
    let mut parents: BTreeMap<String, (String, String)> = BTreeMap::new();
    let pages = crate::common::html_pages(site);
    for (path, page) in &pages {
        let Some(svg) = between(page, "<svg class=\"map-svg\"", "</svg>") else { continue };
        let Some(tree) = between(page, "<ol class=\"tree\">", "</ol>") else { continue };
        // The map: a fork's branch is the last head drawn above it in its lane.
        let mut heads: Vec<(u32, String)> = Vec::new();
        let mut labels = BTreeSet::new();
        for row in svg.split("<a class=\"").skip(1) {
            let kind = row.split(['"', ' ']).next().unwrap();
            if kind == "cmp" {
                continue; // a fork row's compare link, not a row
            }
            let href = between(row, "href=\"", "\"").unwrap();
            let label = between(row, "<tspan class=\"lbl\">", "</tspan>").unwrap();
            let num = |k: &str| between(row, k, "\"").and_then(|v| v.parse::<u32>().ok());
            let x = match kind {
                "fork" => num("class=\"node\" x=\"").map(|x| x + 5),
                _ => num("cx=\""),
            };
            match (kind, x) {
                ("head", Some(x)) => heads.push((x, label)),
                ("fork", Some(x)) => {
                    let on = heads.iter().rev().find(|(hx, _)| *hx == x).map_or("?", |(_, l)| l.as_str());
                    let on = if on.starts_with('#') { "main" } else { on };
                    parents.entry(anchor(&href)).or_default().0 = on.to_string();
                    if !labels.insert(label.clone()) {
                        problems.push(format!("{}: two forks on the map are {label}", path.display()));
                    }
                }
                _ => {}
            }
        }
        // The index: a fork is on the row above it less deep, or on the
        // line going on (`continues`) after the fork before it, at its
        // depth; a `.1` going on is the same line.
        let mut above: Vec<(u32, String, bool)> = Vec::new();
        let mut labels = BTreeSet::new();
        for row in tree.split("<li class=\"row ").skip(1) {
            let kind = row.split(' ').next().unwrap();
            let classes = row.split('"').next().unwrap();
            let depth: u32 = between(row, " d", "\"").unwrap().split(' ').next().unwrap().parse().unwrap();
            let label = between(row, "class=\"lbl\"", "</a>").unwrap();
            let label = label.split('>').nth(1).unwrap().to_string();
            let href = between(row, "href=\"", "\"").unwrap();
            if kind == "fork" {
                let on = above
                    .iter()
                    .rev()
                    .find(|(d, l, cont)| *d < depth || *d == depth + 1 && *cont && !l.ends_with(".1"))
                    .map_or("main", |(_, l, _)| l.as_str());
                let on = if on.starts_with('#') { "main" } else { on };
                parents.entry(anchor(&href)).or_default().1 = on.to_string();
            }
            if kind != "more" && !labels.insert(label.clone()) {
                problems.push(format!("{}: two rows of the index are {label}", path.display()));
            }
            above.push((depth, label, classes.contains(" cont")));
        }
    }
    let mut said = 0;
    for (path, page) in &pages {
        let Some(line) = between(page, "<p class=\"forked\">", "</p>") else { continue };
        let Some(href) = between(&line, "Forked from <a href=\"", "\"") else { continue };
        let on =
            between(&line, "</a> on ", "<").unwrap_or_else(|| line[line.find("</a> on ").unwrap() + 8..].to_string());
        let on = on.trim().trim_end_matches('.');
        let on = on.strip_prefix("branch ").unwrap_or(if on == "the main branch" { "main" } else { on }).to_string();
        said += 1;
        match parents.get(&anchor(&href)) {
            Some((map, index)) if *map == on && *index == on => {}
            other => problems.push(format!("{}: forked from {on}, the map and index say {other:?}", path.display())),
        }
    }
    if said == 0 && !parents.is_empty() {
        problems.push("no branch page says where it forked from".into());
    }
    problems
}

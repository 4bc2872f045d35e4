//! `cctree export`: one conversation as one file.
//!
//! Every conversation of the example, of the real projects and of the
//! 2.1.330 archives is exported: the HTML file holds the anchor of every
//! message of every branch and of every sub-agent transcript it spawned,
//! exactly once, every in-file link lands on an id of the file, nothing is
//! loaded from anywhere (no `src`/`href` but fragments, `data:` images and
//! links out of transcripts), its one script and one style sheet are the
//! ones its CSP allows by hash; the Markdown holds every prompt of the
//! conversation. Both are byte-identical across runs and thread counts. The
//! hostile archive of [`crate::xss`] exports inert (HTML and Markdown read
//! by a Markdown parser); `--redact` works as for `render`; errors name the
//! file and what to do. The browser side is in [`crate::browser`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use base64::Engine;
use cctree::graph::ConversationId;
use cctree::project::Project;
use cctree::render::site::urls::anchor;
use sha2::{Digest, Sha256};

use crate::support::{cctree, example_archive, load, real_projects};
use crate::xss::{decode_entities, start_tags};

/// Every projects directory with conversations to export.
fn inputs() -> Vec<PathBuf> {
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/client-2.1.330");
    let mut v = vec![example_archive(), real_projects()];
    for scenario in ["bash-rewind", "print", "time-travel", "tui"] {
        v.push(client.join(scenario).join("projects"));
    }
    v
}

/// Exports `target` from `projects` into `out` with `args`; the output.
fn export(projects: &Path, target: &str, out: &Path, args: &[&str]) -> std::process::Output {
    cctree()
        .args(["-q", "export", "--projects"])
        .arg(projects)
        .arg(target)
        .arg("-o")
        .arg(out)
        .args(args)
        .output()
        .unwrap()
}

fn export_ok(projects: &Path, target: &str, out: &Path, args: &[&str]) -> String {
    let o = export(projects, target, out, args);
    assert!(o.status.success(), "export {target} failed: {}", String::from_utf8_lossy(&o.stderr));
    std::fs::read_to_string(out).unwrap()
}

/// The uuids of the messages a conversation's export must show: every node
/// of the conversation and of the agents it spawned.
fn conversation_uuids(p: &Project, conv: ConversationId) -> Vec<String> {
    let g = &p.graph;
    let owners = g.agent_owners();
    g.nodes
        .iter_enumerated()
        .filter(|(_, n)| match (n.sidechain, n.conversation, n.agent) {
            (false, Some(c), _) => c == conv,
            (_, _, Some(a)) => owners[a] == Some(conv),
            _ => false,
        })
        .map(|(id, _)| g.uuid(&p.entries, id).to_string())
        .collect()
}

/// Every reason the exported file is not a self-contained, inert page.
fn file_problems(html: &str) -> Vec<String> {
    let mut bad = Vec::new();
    let csp = regex::Regex::new(r#"<meta http-equiv="Content-Security-Policy" content="([^"]*)">"#).unwrap();
    let Some(policy) = csp.captures(html).map(|c| decode_entities(&c[1])) else {
        return vec!["no CSP".into()];
    };
    if !policy.starts_with("default-src 'none';") || policy.contains("'self'") || policy.contains("unsafe") {
        bad.push(format!("CSP allows too much: {policy}"));
    }
    for (tag, close) in [("<script>", "</script>"), ("<style>", "</style>")] {
        if html.matches(tag).count() != 1 {
            bad.push(format!("{} {tag} elements", html.matches(tag).count()));
            continue;
        }
        let start = html.find(tag).unwrap() + tag.len();
        let body = &html[start..start + html[start..].find(close).unwrap()];
        let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(body.as_bytes()));
        if !policy.contains(&format!("'sha256-{hash}'")) {
            bad.push(format!("the CSP does not allow the {tag} of the file"));
        }
    }
    let ids: BTreeSet<String> = start_tags(html)
        .iter()
        .flat_map(|t| t.attrs.iter().filter(|(a, _)| a == "id").map(|(_, v)| decode_entities(v)))
        .collect();
    for tag in start_tags(html) {
        for (a, v) in &tag.attrs {
            let v = decode_entities(v);
            if a.starts_with("on") || a == "style" || a == "srcdoc" {
                bad.push(format!("{a}= in {}", tag.raw));
            }
            match a.as_str() {
                "src" if !(tag.name == "img" && v.starts_with("data:image/")) => bad.push(format!("loads {v}")),
                "href" if tag.name != "a" => bad.push(format!("<{}> href={v}", tag.name)),
                "href" => match v.strip_prefix('#') {
                    Some(id) if !ids.contains(id) => bad.push(format!("dangling link {v}")),
                    Some(_) => {}
                    None if v.starts_with("https://") || v.starts_with("http://") || v.starts_with("mailto:") => {}
                    None => bad.push(format!("a link out of the file: {v}")),
                },
                "action" | "formaction" | "poster" | "data" | "srcset" => bad.push(format!("{a}={v}")),
                _ => {}
            }
        }
        if ["iframe", "object", "embed", "base", "link", "form", "frame"].contains(&tag.name.as_str()) {
            bad.push(format!("<{}> element", tag.name));
        }
    }
    bad
}

#[test]
fn every_message_of_every_branch_is_in_the_file_once() {
    let tmp = tempfile::tempdir().unwrap();
    let mut exported = 0;
    for input in inputs() {
        for p in load(std::slice::from_ref(&input)) {
            for (i, c) in p.graph.conversations.iter_enumerated() {
                let root = p.graph.uuid(&p.entries, c.root).to_string();
                let out = tmp.path().join(format!("{exported}.html"));
                let html = export_ok(&input, &root, &out, &[]);
                let problems = file_problems(&html);
                assert!(problems.is_empty(), "{root}: {problems:#?}");
                for uuid in conversation_uuids(&p, i) {
                    let id = format!("id=\"{}\"", anchor(&uuid));
                    assert_eq!(
                        html.matches(&id).count(),
                        1,
                        "{root}: message {uuid} shown {} times",
                        html.matches(&id).count()
                    );
                }
                exported += 1;
            }
        }
    }
    assert!(exported >= 30, "only {exported} conversations exported");
}

#[test]
fn the_file_shows_the_fork_index_the_branches_in_order_and_inline_images() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("weather.html");
    let html = export_ok(&example_archive(), "a1000000-0000-4000-8000-000000000001", &out, &[]);
    assert!(html.contains("<h2>Fork-point index</h2>"));
    // The conversation's map, every row a link into the file (file_problems
    // checks that each lands).
    let map = &html[html.find("<details class=\"map\"").expect("the map is in the file")..];
    let map = &map[..map.find("</details>").unwrap()];
    let rows = map.matches("<a class=").count();
    assert!(rows >= 10 && !map.contains("href=\"c/"), "{rows} rows in the map: {map}");
    assert!(file_problems(&html).is_empty());
    // It reads like the conversation page. Its first
    // heading is the conversation's title; its first section the active line
    // (main → 12.2 → 15.2, whole, with the map and the fork-point index);
    // then what of each branch is not on it, named as the index names it
    // (12.1: the main branch after the fork at #12; 15.1: 12.2 after #15),
    // the forks compared, the sub-agent transcript.
    let h1 = regex::Regex::new(r"<h1[^>]*>([^<]*)</h1>").unwrap();
    assert_eq!(h1.captures(&html).map(|c| c[1].to_string()).as_deref(), Some("weather-cli: retries + cache"));
    let label = regex::Regex::new(r##"<li><a href="#s-[^"]+"><span class="lbl">([^<]*)</span>"##).unwrap();
    let labels: Vec<&str> = label.captures_iter(&html).map(|c| c.get(1).unwrap().as_str()).collect();
    assert_eq!(labels, ["active line", "12.1", "15.1", "compare #12", "compare #15", "agent"]);
    let first = &html[html.find("<section class=\"export-section\"").unwrap()..];
    let first = &first[..first.find("</section>").unwrap()];
    assert!(first.contains("<details class=\"map\"") && first.contains("<h2>Fork-point index</h2>"), "{first}");
    // Every message of the active line in it, in order: #1 to #32.
    let numbers = regex::Regex::new(r#"class="num"[^>]*>#(\d+)<"#).unwrap();
    let n: Vec<u32> = numbers.captures_iter(first).map(|c| c[1].parse().unwrap()).collect();
    assert_eq!((n.first(), n.last()), (Some(&1), Some(&32)), "{n:?}");
    assert!(n.windows(2).all(|w| w[0] < w[1]), "{n:?}");
    let messages = &first[first.find("<section class=\"messages\">").unwrap()..];
    for words in ["Scratch the units idea for now", "Actually, no new dependencies"] {
        assert!(messages.contains(words), "the active line's {words:?} is in the first section");
    }
    // 15.1's prompt is in its own section, not in the first.
    assert!(!messages.contains("id=\"m-a1f2b100-0000-4000-8000-000000000001\""), "15.1 is not on the active line");
    assert!(html.contains("id=\"m-a1f2b100-0000-4000-8000-000000000001\""));
    // Each fork's compare page is a section: both branches side by side, the
    // fork's landmark leading to it (file_problems: the link lands), its
    // switch and headings with ids of their own.
    for (n, fork) in [(12, "a1000000-0000-4000-8000-000000000029"), (15, "a1f1b200-0000-4000-8000-000000000005")] {
        let toc =
            regex::Regex::new(&format!(r##"<li><a href="#(s-[^"]+)"><span class="lbl">compare #{n}</span>"##)).unwrap();
        let sid = &toc.captures(&html).unwrap_or_else(|| panic!("#{n} is not in the contents"))[1];
        let at = html.find(&format!("<section class=\"export-section\" id=\"{sid}\">")).unwrap();
        let section = &html[at + 1..];
        let section = &section[..section.find("<section class=\"export-section\"").unwrap_or(section.len())];
        assert_eq!(section.matches("<section class=\"compare-col").count(), 2, "{section}");
        for k in 1..=2 {
            assert!(
                section.contains(&format!("<label class=\"pick-{k}\" for=\"cmp-{fork}-pick-{k}\">{n}.{k}</label>")),
                "{section}"
            );
        }
        assert!(
            html.contains(&format!("<a class=\"cmp\" href=\"#{sid}\">compare</a>")),
            "the fork-point index leads to {sid}"
        );
        if n == 12 {
            assert!(
                section.contains("Added <code>--units &lt;metric|imperial&gt;</code>"),
                "Markdown rendered: {section}"
            );
        }
    }
    assert!(
        html.contains("The active line (where the conversation was last continued) runs through main → 12.2 → 15.2.")
    );
    assert!(html.contains("<img src=\"data:image/png;base64,"), "the pasted screenshot is inline");
    assert!(!html.contains("assets/"), "nothing points at the site's files");
}

#[test]
fn a_session_id_or_any_message_names_the_same_conversation() {
    let tmp = tempfile::tempdir().unwrap();
    let by_root =
        export_ok(&example_archive(), "a1000000-0000-4000-8000-000000000001", &tmp.path().join("a.html"), &[]);
    for target in ["5e5510a2-0000-4000-8000-0000000000a2", "a1f2b100-0000-4000-8000-000000000004"] {
        let same = export_ok(&example_archive(), target, &tmp.path().join("b.html"), &[]) == by_root;
        assert!(same, "{target} exports another file");
    }
    // A session file: the same conversation (its fork commands name the
    // project directory, where that file is, instead of --projects).
    let file = example_archive().join("-home-alice-src-weather-cli/5e5510a1-0000-4000-8000-0000000000a1.jsonl");
    let o = cctree().args(["-q", "export"]).arg(&file).arg("-o").arg(tmp.path().join("c.html")).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let by_file = std::fs::read_to_string(tmp.path().join("c.html")).unwrap();
    let anchors = regex::Regex::new(r#"id="m-[^"]+""#).unwrap();
    let ids = |h: &str| anchors.find_iter(h).map(|m| m.as_str().to_string()).collect::<Vec<_>>();
    assert_eq!(ids(&by_file), ids(&by_root));
}

#[test]
fn exports_are_byte_identical_across_runs_and_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let root = "a1000000-0000-4000-8000-000000000001";
    for ext in ["html", "md"] {
        let mut seen = BTreeMap::new();
        for jobs in ["1", "2", "2"] {
            let out = tmp.path().join(format!("x-{jobs}.{ext}"));
            let o = cctree()
                .args(["-q", "-j", jobs, "export", "--projects"])
                .arg(example_archive())
                .arg(root)
                .arg("-o")
                .arg(&out)
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            seen.insert(std::fs::read(&out).unwrap(), jobs);
        }
        assert_eq!(seen.len(), 1, "{ext}: the exports differ");
    }
}

/// The texts of each prompt of a conversation, as its reader gives them
/// (what was typed, and the context the IDE attached): the first line of each.
fn prompts(p: &Project, conv: ConversationId) -> Vec<String> {
    use cctree::model::{Block, Body, Content};
    let g = &p.graph;
    let mut v = Vec::new();
    for n in g.nodes.iter() {
        let e = &p.entries[n.entry];
        if n.conversation != Some(conv) || n.sidechain || e.user_kind != cctree::model::UserKind::Prompt {
            continue;
        }
        let (node, err) = p.node(e);
        assert!(err.is_none(), "{err:?}");
        let Content::Prompt(Body::Blocks(blocks)) = &node.content else { continue };
        for b in blocks {
            let (Block::Text(text) | Block::Context { text, .. }) = b else { continue };
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or_default().trim_end().to_string();
            if !first.is_empty() {
                v.push(first);
            }
        }
    }
    v
}

#[test]
fn markdown_holds_every_prompt_of_the_active_line_and_the_branches() {
    let tmp = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for input in [example_archive(), real_projects()] {
        for p in load(std::slice::from_ref(&input)) {
            for (i, c) in p.graph.conversations.iter_enumerated() {
                let root = p.graph.uuid(&p.entries, c.root).to_string();
                let out = tmp.path().join(format!("{checked}.md"));
                let md = export_ok(&input, &root, &out, &[]);
                assert!(md.starts_with("<!-- exported by cctree: conversation "), "{root}");
                for prompt in prompts(&p, i) {
                    assert!(md.contains(&prompt), "{root}: prompt {prompt:?} is not in the Markdown");
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 10);
    // The example: the active line, then what each branch adds.
    let md = export_ok(&example_archive(), "a1000000-0000-4000-8000-000000000001", &tmp.path().join("w.md"), &[]);
    let heads = headings(&md);
    // The title heads the file as words, not as code.
    assert!(md.contains("\n# weather\\-cli\\: retries \\+ cache\n"), "{md}");
    assert!(!first_heading_has_code(&md), "{md}");
    assert_eq!(
        heads,
        [
            "weather-cli: retries + cache",
            "The active line",
            "Appendix 1: the main branch after #12",
            "Appendix 2: branch 12.2 (forked after #15): Retry via backoff crate (abandoned)",
            "Appendix 3: sub-agent a3f9c2e1b7d40a6f5: Map HTTP client code",
            "Appendix 4: the branches of the fork at #12 compared",
            "Appendix 5: the branches of the fork at #15 compared",
        ]
    );
    // What each branch did from the fork on (tests/fixtures/cost: both
    // branches write notes.txt, 3.2 edits it then and runs wc).
    let at = md.find("## Appendix 4: the branches of the fork at ` #12 ` compared").unwrap();
    let compared = &md[at..md.find("## Appendix 5").unwrap()];
    assert!(
        compared.contains("### Branch ` 12.1 `: ` Now add a --units imperial flag so I can get °F and mph. `"),
        "{compared}"
    );
    assert!(
        compared
            .contains("- files changed (1): ` /home/alice/src/weather-cli/src/cli.rs `\n- commands run (0): none\n"),
        "{compared}"
    );
    assert!(
        compared
            .contains("- files changed (0): none\n- commands run (1): ` cargo add backoff@0.4 --features tokio `\n"),
        "{compared}"
    );
    let cost = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cost/projects");
    let md = export_ok(&cost, "c0570000-0000-4000-8000-000000000010", &tmp.path().join("cost.md"), &[]);
    assert!(
        md.contains("` /home/test/cost/notes.txt ` changed on ` 3.1 `, ` 3.2 `\n\nFrom its final version on ` 3.1 ` to its final version on ` 3.2 `:\n\n```diff\n one\n-two\n+2\n three\n+four\n```\n"),
        "{md}"
    );
}

/// Whether the first heading of a Markdown text holds a code span.
fn first_heading_has_code(md: &str) -> bool {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let mut inside = false;
    for ev in Parser::new(md) {
        match ev {
            Event::Start(Tag::Heading { .. }) => inside = true,
            Event::Code(_) if inside => return true,
            Event::End(TagEnd::Heading(_)) => return false,
            _ => {}
        }
    }
    false
}

/// The text of the headings of level 1 and 2 of a Markdown text.
fn headings(md: &str) -> Vec<String> {
    use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    for ev in Parser::new(md) {
        match ev {
            Event::Start(Tag::Heading { level: HeadingLevel::H1 | HeadingLevel::H2, .. }) => cur = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(c) = cur.as_mut() {
                    c.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => out.extend(cur.take()),
            _ => {}
        }
    }
    out
}

#[test]
fn hostile_transcripts_export_inert() {
    let tmp = tempfile::tempdir().unwrap();
    let h = crate::xss::write_hostile_archive(&tmp.path().join("hostile"));
    let projects = load(std::slice::from_ref(&h.projects));
    let mut all_html = String::new();
    let mut all_md = String::new();
    for p in &projects {
        for (i, c) in p.graph.conversations.iter_enumerated() {
            let root = p.graph.uuid(&p.entries, c.root).to_string();
            let html = export_ok(&h.projects, &root, &tmp.path().join(format!("{}.html", i.index())), &[]);
            let problems = file_problems(&html);
            assert!(problems.is_empty(), "{root}: {problems:#?}");
            all_html.push_str(&html);
            let md = export_ok(&h.projects, &root, &tmp.path().join(format!("{}.md", i.index())), &[]);
            let problems = markdown_problems(&md);
            assert!(problems.is_empty(), "{root}: {problems:#?}");
            all_md.push_str(&md);
        }
    }
    // The payloads did reach the files (a suite whose payloads are dropped proves nothing).
    for (field, must) in &h.fields {
        if *must && ["prompt", "reply", "cwd"].contains(&field.as_str()) {
            assert!(all_html.contains(&crate::xss::marker(field)), "{field} is not in the HTML export");
            assert!(all_md.contains(&crate::xss::marker(field)), "{field} is not in the Markdown export");
        }
    }
}

/// Every reason a Markdown export would render something active where it
/// is pasted: raw HTML but our own comments, links, images, or transcript
/// text outside code — but the title heading the file (level 1), as words
/// with no `@` or `#` that GitHub could make a mention or a reference of.
fn markdown_problems(md: &str) -> Vec<String> {
    use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
    let mut bad = Vec::new();
    let mut in_code = false;
    let mut in_title = false;
    for ev in Parser::new_ext(md, Options::all()) {
        match ev {
            Event::Start(Tag::Heading { level: HeadingLevel::H1, .. }) => in_title = true,
            Event::End(TagEnd::Heading(HeadingLevel::H1)) => in_title = false,
            Event::Text(t) if in_title => {
                let mut cs = t.chars().peekable();
                while let Some(c) = cs.next() {
                    if (c == '@' || c == '#') && cs.peek().is_some_and(|n| n.is_alphanumeric()) {
                        bad.push(format!("a mention or reference in the title: {t}"));
                    }
                }
            }
            Event::Html(h) | Event::InlineHtml(h) => {
                let h = h.trim();
                let comment = h.starts_with("<!--") && h.ends_with("-->") && !h[4..h.len() - 3].contains("--");
                if !comment || h.contains('<') && h[1..].contains('<') {
                    bad.push(format!("raw HTML: {h}"));
                }
            }
            Event::Start(Tag::CodeBlock(_)) => in_code = true,
            Event::End(pulldown_cmark::TagEnd::CodeBlock) => in_code = false,
            Event::Start(Tag::Link { dest_url, .. }) => bad.push(format!("link to {dest_url}")),
            Event::Start(Tag::Image { dest_url, .. }) => bad.push(format!("image {dest_url}")),
            Event::Text(t) if !in_code && t.contains("ZQ") => bad.push(format!("transcript text outside code: {t}")),
            _ => {}
        }
    }
    bad
}

#[test]
fn redact_replaces_secrets_in_the_export() {
    let tmp = tempfile::tempdir().unwrap();
    let projects = crate::redact::write_fixture(tmp.path());
    for ext in ["html", "md"] {
        let out = tmp.path().join(format!("r.{ext}"));
        let text = export_ok(&projects, crate::redact::SESSION, &out, &["--redact"]);
        for needle in crate::redact::needles() {
            assert!(!text.contains(needle), "{ext}: {needle} survived --redact");
        }
        assert!(text.contains("[REDACTED:"), "{ext}");
        let plain = export_ok(&projects, crate::redact::SESSION, &tmp.path().join(format!("p.{ext}")), &[]);
        assert!(
            crate::redact::needles().iter().any(|n| plain.contains(n)),
            "{ext}: the secrets are there without --redact"
        );
    }
}

#[test]
fn errors_name_the_file_and_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let ex = example_archive();
    let out = tmp.path().join("x.html");
    let err = |o: std::process::Output| {
        assert_eq!(o.status.code(), Some(2), "{o:?}");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let e = err(export(&ex, "no-such-id", &out, &[]));
    assert!(
        e.contains("no-such-id: no conversation, session or message has this id in")
            && e.contains("cctree stats --json --detail"),
        "{e}"
    );
    assert!(!out.exists());
    // Inside the input: refused before anything is read or written.
    let inside = ex.join("-home-alice-notes").join("x.html");
    let e = err(export(&ex, "b0000000-0000-4000-8000-000000000001", &inside, &[]));
    assert!(e.contains("is inside the input") && e.contains("choose another -o"), "{e}");
    assert!(!inside.exists());
    // A file cctree did not write stays as it is.
    std::fs::write(&out, "my notes").unwrap();
    let e = err(export(&ex, "b0000000-0000-4000-8000-000000000001", &out, &[]));
    assert!(e.contains("x.html exists and was not written by cctree export"), "{e}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "my notes");
    // A directory.
    let e = err(export(&ex, "b0000000-0000-4000-8000-000000000001", tmp.path(), &[]));
    assert!(e.contains("is a directory; give -o a file in it"), "{e}");
    // A missing projects directory.
    let e =
        err(export(&tmp.path().join("nope"), "b0000000-0000-4000-8000-000000000001", &tmp.path().join("y.html"), &[]));
    assert!(e.contains("nope: no such directory"), "{e}");
    // Its own file is replaced; nothing is left beside it.
    std::fs::remove_file(&out).unwrap();
    export_ok(&ex, "b0000000-0000-4000-8000-000000000001", &out, &[]);
    export_ok(&ex, "a1000000-0000-4000-8000-000000000001", &out, &[]);
    let names: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn base_url_pages_carry_canonical_links_and_the_sitemap_lists_exactly_the_pages() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let render = |args: &[&str]| {
        cctree().args(["-q", "render"]).arg(example_archive()).arg("-o").arg(&site).args(args).output().unwrap()
    };
    let o = render(&["--base-url", "https://example.org/chats", "--sitemap"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut pages = BTreeSet::new();
    for e in walkdir::WalkDir::new(&site).into_iter().filter_map(Result::ok) {
        let rel = e.path().strip_prefix(&site).unwrap().to_string_lossy().into_owned();
        if !rel.ends_with(".html") || rel.starts_with('.') {
            continue;
        }
        let html = std::fs::read_to_string(e.path()).unwrap();
        let want = format!("<link rel=\"canonical\" href=\"https://example.org/chats/{rel}\">");
        assert_eq!(html.matches("rel=\"canonical\"").count(), 1, "{rel}");
        assert!(html.contains(&want), "{rel}: no {want}");
        // Every other link stays relative.
        assert_eq!(html.matches("https://example.org").count(), 1, "{rel}");
        pages.insert(format!("https://example.org/chats/{rel}"));
    }
    let xml = std::fs::read_to_string(site.join("sitemap.xml")).unwrap();
    let listed: BTreeSet<String> = xml
        .lines()
        .filter_map(|l| l.strip_prefix("<url><loc>"))
        .map(|l| l.trim_end_matches("</loc></url>").to_string())
        .collect();
    assert_eq!(listed, pages);
    assert!(pages.len() >= 8);
    // Under a sub-path, where crawlers read none, no robots.txt (`cli::robots_txt_only_at_a_host_root`).
    assert!(!site.join("robots.txt").exists());
    // Rendered again without: no canonical link, and the sitemap is gone.
    assert!(render(&[]).status.success());
    assert!(!site.join("sitemap.xml").exists());
    assert!(!std::fs::read_to_string(site.join("index.html")).unwrap().contains("canonical"));
    // Bad URLs are refused, saying why.
    for (bad, why) in [
        ("ftp://example.org/", "not an http:// or https:// URL"),
        ("https://example.org/?q=1", "no query or fragment"),
        ("https://me:pw@example.org/", "no user or password"),
        ("https://exa..mple/", "empty label"),
        ("https://x:abc/", "not a URL"),
    ] {
        let o = render(&["--base-url", bad]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{bad}: {e}");
        assert!(e.contains("--base-url") && e.contains(why), "{bad}: {e}");
    }
    let o = render(&["--sitemap"]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("--base-url"));
}

/// Runs `tests/browser/export.mjs` with `args`; its JSON report.
fn browser(driver: &crate::browser::Driver, args: &[&std::ffi::OsStr]) -> Result<serde_json::Value, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/export.mjs");
    let out = std::process::Command::new(&driver.node)
        .arg(script)
        .args(args)
        .env("CCTREE_CHROMIUM", &driver.chromium)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", driver.node.display()))?;
    let report = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "the browser checks failed (exit {:?})\nreport:\n{report}\nstderr:\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    serde_json::from_str(&report).map_err(|e| format!("not a JSON report ({e}): {report}"))
}

#[test]
fn the_exported_file_works_alone_in_chromium() {
    let Some(driver) = crate::browser::Driver::get() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let root = "a1000000-0000-4000-8000-000000000001";
    let file = tmp.path().join("weather.html");
    export_ok(&example_archive(), root, &file, &[]);
    // Every message of every branch, from the graph.
    let projects = load(&[example_archive()]);
    let (p, conv) = projects
        .iter()
        .find_map(|p| {
            p.graph
                .conversations
                .iter_enumerated()
                .find(|(_, c)| p.graph.uuid(&p.entries, c.root) == root)
                .map(|(i, _)| (p, i))
        })
        .unwrap();
    let ids: Vec<String> = conversation_uuids(p, conv).iter().map(|u| anchor(u)).collect();
    assert!(ids.len() > 40);
    let ids_file = tmp.path().join("ids.json");
    std::fs::write(&ids_file, serde_json::to_string(&ids).unwrap()).unwrap();
    // The hostile archive's conversations, exported.
    let h = crate::xss::write_hostile_archive(&tmp.path().join("hostile"));
    let mut hostile = Vec::new();
    for p in load(std::slice::from_ref(&h.projects)) {
        for (i, c) in p.graph.conversations.iter_enumerated() {
            let f = tmp.path().join(format!("hostile-{}.html", i.index()));
            export_ok(&h.projects, p.graph.uuid(&p.entries, c.root), &f, &[]);
            hostile.push(f.display().to_string());
        }
    }
    let hostile = hostile.join(",");
    let shots = crate::browser::screenshots_dir();
    // A message of branch 15.1, deep in the file.
    let expect = anchor("a1f2b100-0000-4000-8000-000000000002");
    let args: Vec<&std::ffi::OsStr> = vec![
        "--file".as_ref(),
        file.as_os_str(),
        "--ids".as_ref(),
        ids_file.as_os_str(),
        "--find".as_ref(),
        "backoff crate".as_ref(),
        "--expect".as_ref(),
        expect.as_ref(),
        "--shots".as_ref(),
        shots.as_os_str(),
        "--xss".as_ref(),
        hostile.as_ref(),
    ];
    let result = browser(driver, &args);
    if result.is_err() || std::env::var_os("CCTREE_BROWSER_KEEP").is_some() {
        eprintln!("the exported files are kept in {} for a look", tmp.keep().display());
    }
    let v = result.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        v["opened"].as_array().map_or(0, Vec::len),
        5,
        "file:// at 1280 and 390 px, light and dark, and http: {v}"
    );
    assert_eq!(v["nojs"]["missing"], 0, "{v}");
    assert!(v["xss"]["loads"].as_u64().unwrap_or(0) >= 2, "{v}");
    assert!(shots.join("export-390-dark.png").is_file());
}

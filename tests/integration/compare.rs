//! A compare page for every fork point, its branches side by side
//! from the fork on (every prompt and answer of each, as Markdown), with the files each
//! changed and the commands each ran; reachable from the fork's landmark and
//! the fork-point index. (Its links landing is checked with every link of
//! the site by `render::*_render_completely`.)

use std::path::{Path, PathBuf};

use cctree::graph::NodeId;
use cctree::model::{Kind, UserKind};
use cctree::project::Project;
use cctree::render::site::urls::sanitize_segment;

use crate::common::visible;
use crate::render::{attr_values, files, resolve, unescape};
use crate::support::{cctree, example_archive, load};

fn alnum(s: &str) -> String {
    s.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

/// The words a reader sees of a Markdown text (its text, code and HTML, not its marks).
fn md_words(s: &str) -> String {
    use pulldown_cmark::{Event, Parser};
    let mut out = String::new();
    for ev in Parser::new(s) {
        // cctree shows a transcript's HTML as text.
        if let Event::Text(t) | Event::Code(t) | Event::Html(t) | Event::InlineHtml(t) = ev {
            out.push_str(&t);
            out.push(' ');
        }
    }
    out
}

/// The nodes each column of a fork's compare page shows: the first child
/// goes on along the fork's branch, each later one is its own branch.
fn columns(p: &Project, fork: NodeId) -> Vec<Vec<NodeId>> {
    let g = &p.graph;
    let fp = g.fork_at(fork).unwrap();
    fp.children
        .iter()
        .enumerate()
        .take(6)
        .map(|(k, &child)| {
            if k == 0 {
                let own = &g.branches[fp.branch].nodes;
                let at = own.iter().position(|&n| n == child).unwrap();
                own[at..].to_vec()
            } else {
                g.branches[g.node(child).branch.unwrap()].nodes.clone()
            }
        })
        .collect()
}

fn inputs() -> Vec<PathBuf> {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut v = vec![example_archive(), fixtures.join("cost/projects")];
    for name in ["tui", "time-travel", "bash-rewind", "print"] {
        v.push(fixtures.join("client-2.1.330").join(name).join("projects"));
    }
    for name in ["time-travel", "bash-rewind", "summarize-from", "tui"] {
        v.push(fixtures.join("client-2.1.332").join(name).join("projects"));
    }
    v.push(fixtures.join("codex-0.171.0/tui"));
    v.push(fixtures.join("gemini-0.61.0/tui"));
    v
}

#[test]
fn every_fork_point_has_a_compare_page_with_every_message_of_its_branches() {
    let tmp = tempfile::tempdir().unwrap();
    let mut forks = 0;
    let mut maps = 0;
    for (i, input) in inputs().iter().enumerate() {
        let out = tmp.path().join(format!("site-{i}"));
        let st = cctree().arg("render").arg(input).arg("-o").arg(&out).arg("-q").status().unwrap();
        assert!(st.success(), "{}", input.display());
        let site = files(&out);
        maps += map_links_land_on_compare_pages(&site);
        for p in load(std::slice::from_ref(input)) {
            let g = &p.graph;
            for c in &g.conversations {
                for fp in &c.fork_points {
                    forks += 1;
                    let tail = format!("/compare/{}/index.html", sanitize_segment(g.uuid(&p.entries, fp.node)));
                    let (path, bytes) = site
                        .iter()
                        .find(|(path, _)| path.to_string_lossy().ends_with(&tail))
                        .unwrap_or_else(|| panic!("{}: no page …{tail}", input.display()));
                    let html = std::str::from_utf8(bytes).unwrap();
                    let text = alnum(&visible(html));
                    for nodes in columns(&p, fp.node) {
                        for n in nodes {
                            let e = g.entry(&p.entries, n);
                            let shown = match e.kind {
                                Kind::User => e.user_kind == UserKind::Prompt && !e.injected,
                                Kind::Assistant => true,
                                _ => false,
                            };
                            let (node, _) = p.node(e);
                            let words: String = match &node.content {
                                cctree::model::Content::Prompt(cctree::model::Body::Blocks(b))
                                | cctree::model::Content::Reply(b) => b
                                    .iter()
                                    .filter_map(|b| match b {
                                        cctree::model::Block::Text(t) => Some(t.to_string()),
                                        _ => None,
                                    })
                                    .collect::<Vec<_>>()
                                    .join(" "),
                                _ => String::new(),
                            };
                            // Rendered as on the branch's page: its words, not its Markdown.
                            let key: String = alnum(&md_words(&words)).chars().take(80).collect();
                            if shown && !key.is_empty() {
                                assert!(
                                    text.contains(&key),
                                    "{}: {words:?} not on {}",
                                    input.display(),
                                    path.display()
                                );
                            }
                        }
                    }
                    // The fork's landmark and the fork-point index lead to it.
                    let linking = site
                        .iter()
                        .filter(|(page, _)| page.extension().is_some_and(|x| x == "html") && *page != path)
                        .filter(|(page, b)| {
                            attr_values(std::str::from_utf8(b).unwrap(), "href")
                                .into_iter()
                                .any(|l| resolve(page, l).0 == *path)
                        })
                        .count();
                    assert!(linking >= 2, "{}: {} is linked from {linking} pages", input.display(), path.display());
                }
            }
        }
    }
    assert!(forks >= 12, "{forks} fork points");
    assert!(maps >= 12, "{maps} fork rows of maps link to their compare page");
}

/// Each fork row of each map (conversation and branch pages) is followed by
/// a link to that fork's compare page (named for screen readers by its fork),
/// the page of the fork the row leads to; returns how many.
fn map_links_land_on_compare_pages(site: &std::collections::BTreeMap<PathBuf, Vec<u8>>) -> usize {
    let mut n = 0;
    for (page, bytes) in site.iter().filter(|(p, _)| p.extension().is_some_and(|x| x == "html")) {
        let html = std::str::from_utf8(bytes).unwrap();
        let Some(at) = html.find("<details class=\"map\"") else { continue };
        let map = &html[at..at + html[at..].find("</details>").unwrap()];
        let rows: Vec<&str> = map.split("\n<a class=\"").skip(1).collect();
        for (i, row) in rows.iter().enumerate() {
            if !row.starts_with("fork") {
                continue;
            }
            let next =
                rows.get(i + 1).unwrap_or_else(|| panic!("{}: a fork row without a compare link", page.display()));
            assert!(next.starts_with("cmp\" href=\""), "{}: after a fork row: {next}", page.display());
            let label = &row[row.find("<tspan class=\"lbl\">").unwrap() + 19..];
            let label = &label[..label.find("</tspan>").unwrap()];
            assert!(
                next.contains(&format!("aria-label=\"compare the branches of the fork at {label} side by side\"")),
                "{next}"
            );
            let link = &next[11..];
            let (target, _) = resolve(page, &link[..link.find('"').unwrap()]);
            assert!(
                target.to_string_lossy().contains("/compare/") && site.contains_key(&target),
                "{}: {}",
                page.display(),
                target.display()
            );
            // The row leads to the fork's landmark; its compare page is that fork's.
            let fork_href = &row[row.find("href=\"").unwrap() + 6..];
            let (_, frag) = resolve(page, &fork_href[..fork_href.find('"').unwrap()]);
            let uuid = frag.as_deref().and_then(|f| f.strip_prefix("fork-")).expect("a fork row leads to its landmark");
            let tail = format!("/compare/{uuid}/index.html");
            assert!(target.to_string_lossy().ends_with(&tail), "{}: {label} → {}", page.display(), target.display());
            n += 1;
        }
    }
    n
}

/// The example's fork at #12: 12.1 edits `src/cli.rs` and runs nothing,
/// 12.2 edits nothing and runs `cargo add backoff…`.
#[test]
fn a_compare_page_lists_the_files_each_branch_changed_and_what_it_ran() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    assert!(cctree().arg("render").arg(example_archive()).arg("-o").arg(&out).arg("-q").status().unwrap().success());
    let page = std::fs::read_to_string(out.join(
        "-home-alice-src-weather-cli/c/a1000000-0000-4000-8000-000000000001/compare/a1000000-0000-4000-8000-000000000029/index.html",
    ))
    .unwrap();
    let cols: Vec<&str> = page.split("<section class=\"compare-col").skip(1).collect();
    assert_eq!(cols.len(), 2);
    let list = |col: &str, what: &str| -> Vec<String> {
        let at = col.find(what).unwrap();
        let rest = &col[at..col[at..].find("<h3>").map_or(col.len(), |e| at + e)];
        rest.split("<code")
            .skip(1)
            .map(|s| unescape(&s[s.find('>').unwrap() + 1..s.find("</code>").unwrap()]))
            .collect()
    };
    // A path inside the session's working directory is named from it, the
    // recorded path in its title.
    assert_eq!(list(cols[0], "Files changed"), ["src/cli.rs"]);
    assert!(
        cols[0].contains("<li><code title=\"/home/alice/src/weather-cli/src/cli.rs\">src/cli.rs</code></li>"),
        "{}",
        cols[0]
    );
    assert!(list(cols[0], "Commands run").is_empty());
    // Its tool calls name the file the same way.
    assert!(cols[0].contains("<ul class=\"compare-calls\"><li><code>Edit: src/cli.rs</code></li></ul>"), "{}", cols[0]);
    assert!(list(cols[1], "Files changed").is_empty());
    assert_eq!(list(cols[1], "Commands run"), ["cargo add backoff@0.4 --features tokio"]);
    assert!(cols[0].contains("<dt>cost</dt><dd>$0.050</dd>"), "no sub-agent spawned on the branch: {}", cols[0]);
    // Messages read as on the branch's page: Markdown, code highlighted.
    assert!(
        cols[0].contains("<div class=\"compare-text md\"><p>Now add a <code>--units imperial</code> flag"),
        "{}",
        cols[0]
    );
    assert!(cols[0].contains("<pre class=\"code hl\">"), "the Python block is highlighted: {}", cols[0]);
    assert!(cols[1].contains("<li>Retry only on 5xx responses and timeouts; never on 4xx.</li>"), "{}", cols[1]);
    // A cut heading ends in one ellipsis.
    assert!(cols[1].contains("let&#39;s make the HTTP client retry…</a>"), "{}", cols[1]);
    assert!(cols[1].contains("<dt>duration</dt><dd>5 min 48 s</dd>"));
}

/// The intro quotes the fork's message as the branch pages show words:
/// its code spans as code, escaped, its blocks run into one line (no block
/// element inside the sentence), no Markdown mark left as text.
#[test]
fn a_compare_page_quotes_the_fork_message_as_inline_markdown() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    assert!(cctree().arg("render").arg(example_archive()).arg("-o").arg(&out).arg("-q").status().unwrap().success());
    let intros: Vec<String> = files(&out)
        .into_iter()
        .filter(|(p, _)| p.to_string_lossy().contains("/compare/"))
        .filter_map(|(_, b)| {
            let page = String::from_utf8(b).unwrap();
            let at = page.find("<p class=\"sub\">").unwrap();
            let end = at + page[at..].find("</p>").unwrap();
            let intro = &page[at..end];
            // The quote, between the curly quotes (none when the message has no words).
            Some(intro[intro.find('“')?..intro.rfind('”')?].to_string())
        })
        .collect();
    assert!(!intros.is_empty());
    for q in &intros {
        assert!(!q.contains('`') && !q.contains("**"), "a Markdown mark as text: {q}");
        for block in ["<p", "<li", "<ul", "<ol", "<h", "<pre", "<div", "<br"] {
            assert!(!q.contains(block), "{block} in the intro: {q}");
        }
    }
    assert!(
        intros.iter().any(|q| q.contains("<code>Client::fetch_forecast</code>")),
        "the retry fork's message quotes its code as code: {intros:#?}"
    );
}

/// `tests/fixtures/cost`: both branches write `notes.txt`; 3.2 then edits it
/// (and an edit that failed changes nothing) and runs `wc`. The page shows
/// the diff between the two final versions.
#[test]
fn a_file_both_branches_changed_shows_the_diff_of_their_final_versions() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cost/projects");
    assert!(cctree().arg("render").arg(&input).arg("-o").arg(&out).arg("-q").status().unwrap().success());
    let page = std::fs::read_to_string(out.join(
        "-home-test-cost/c/c0570000-0000-4000-8000-000000000010/compare/c0570000-0000-4000-8000-000000000014/index.html",
    ))
    .unwrap();
    let both =
        &page[page.find("<section class=\"compare-both\"").unwrap()..page.find("<div class=\"compare\">").unwrap()];
    assert!(
        both.contains(
            "<code title=\"/home/test/cost/notes.txt\">notes.txt</code> <span class=\"hint\">changed on 3.1, 3.2</span>"
        ),
        "{both}"
    );
    assert!(both.contains("From its final version on 3.1 to its final version on 3.2:"));
    assert!(
        both.contains("<pre class=\"diff\"><span class=\"d-ctx\"> one</span><span class=\"d-del\">-two</span><span class=\"d-add\">+2</span><span class=\"d-ctx\"> three</span><span class=\"d-add\">+four</span></pre>"),
        "{both}"
    );
    assert!(
        page.contains("Commands run (1)</h3>\n<ol class=\"compare-cmds\"><li><code>wc -l notes.txt</code></li></ol>")
    );
}

/// Codex's `apply_patch` touching several files: the compare page lists each
/// file (not one joined path). The real client's TUI fixture, its abandoned
/// branch's patch (after the rollback's cut, so no byte offset moves) made
/// to add one file, update another, delete a third and move a fourth.
#[test]
fn a_codex_patch_of_several_files_lists_each_file() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("codex");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codex-0.171.0/tui");
    for e in walkdir::WalkDir::new(&fixture).into_iter().flatten() {
        let dest = input.join(e.path().strip_prefix(&fixture).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
    let file = input.join("sessions/2026/11/27/rollout-2026-11-27T01-56-04-01a21ab7-84c8-74a2-8e44-0203dfa81c12.jsonl");
    let text = std::fs::read_to_string(&file).unwrap();
    let one = r#""input":"*** Begin Patch\n*** Add File: two.txt\n+second\n*** End Patch""#;
    let several = r#""input":"*** Begin Patch\n*** Add File: two.txt\n+second\n*** Update File: one.txt\n@@\n-one\n+uno\n*** Delete File: old.txt\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-a\n+b\n*** End Patch""#;
    assert_eq!(text.matches(one).count(), 1, "the fixture's patch changed");
    std::fs::write(&file, text.replace(one, several)).unwrap();
    let out = tmp.path().join("site");
    assert!(cctree().arg("render").arg(&input).arg("-o").arg(&out).arg("-q").status().unwrap().success());
    let pages: Vec<String> = files(&out)
        .into_iter()
        .filter(|(p, _)| p.to_string_lossy().contains("/compare/"))
        .map(|(_, b)| String::from_utf8(b).unwrap())
        .collect();
    let lists: Vec<Vec<String>> = pages
        .iter()
        .flat_map(|page| page.split("<ul class=\"compare-files\">").skip(1))
        .map(|ul| {
            let ul = &ul[..ul.find("</ul>").unwrap()];
            ul.split("<code>").skip(1).map(|s| unescape(&s[..s.find("</code>").unwrap()])).collect()
        })
        .collect();
    assert_eq!(lists, [["a.txt", "b.txt", "old.txt", "one.txt", "two.txt"]], "{lists:?}");
    // The branch's page names each file of the patch, with its diff.
    let all: String = files(&out).into_values().map(|b| String::from_utf8_lossy(&b).into_owned()).collect();
    assert!(
        all.contains("<p class=\"patch-file\"><code>Update a.txt → b.txt</code></p><pre class=\"diff\">"),
        "no file heading"
    );
    assert!(all.contains("<p class=\"patch-file\"><code>Delete old.txt</code></p><p class=\"patch-file\">"));
}

/// A fork of three branches or more: two side by side, chosen on the page
/// (two rows of radio buttons, 6.1 and 6.2 chosen first; CSS shows the
/// chosen columns, every column where it cannot); two branches need none.
#[test]
fn a_fork_of_three_branches_lets_the_reader_choose_two() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/client-2.1.332/time-travel/projects");
    assert!(cctree().arg("render").arg(&input).arg("-o").arg(&out).arg("-q").status().unwrap().success());
    let mut choosers = 0;
    for (path, bytes) in files(&out).into_iter().filter(|(p, _)| p.to_string_lossy().contains("/compare/")) {
        let page = String::from_utf8(bytes).unwrap();
        let columns = page.matches("<section class=\"compare-col").count();
        let Some(at) = page.find("<div class=\"compare-pair\">") else {
            assert!(columns <= 2, "{}: {columns} columns and no chooser", path.display());
            continue;
        };
        choosers += 1;
        let pair = &page[at..page[at..].find("</div>").unwrap() + at];
        for (side, chosen) in [("left", 1), ("right", 2)] {
            assert_eq!(pair.matches(&format!("<input type=\"radio\" class=\"{side}-")).count(), columns, "{pair}");
            assert!(pair.contains(&format!("class=\"{side}-{chosen}\" name=\"")), "{pair}");
            let checked: Vec<&str> = pair
                .split("<label>")
                .filter(|l| l.contains(&format!("class=\"{side}-")) && l.contains(" checked>"))
                .collect();
            assert_eq!(checked.len(), 1, "{pair}");
            assert!(checked[0].contains(&format!("class=\"{side}-{chosen}\"")), "{pair}");
        }
    }
    assert!(choosers >= 1, "no fork of three branches in the fixture");
    // The style sheet shows the two chosen columns, only where :has works.
    let css = std::fs::read_to_string(out.join("assets/style.css")).unwrap();
    assert!(css.contains(".compare:has(.compare-pair) .compare-col { display: none; }"));
    assert!(
        css.contains(".compare:has(.left-6:checked) .col-6, .compare:has(.right-6:checked) .col-6 { display: block; }")
    );
}

/// A branch longer than its compare column shows (`COMPARE_MESSAGES`): the
/// column still lists the commands and files of the calls made past the
/// messages it shows, and counts every message.
#[test]
fn a_compare_column_past_its_shown_messages_still_lists_what_the_branch_ran() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("projects").join("-srv-long");
    std::fs::create_dir_all(&project).unwrap();
    let session = "5e550000-0000-4000-8000-000000000000";
    let id = |kind: u32, n: u32| format!("{kind:08x}-0000-4000-8000-{n:012x}");
    let ts = |n: u32| format!("2026-01-01T{:02}:{:02}:{:02}.000Z", n / 3600, n / 60 % 60, n % 60);
    let mut lines = Vec::new();
    let mut entry = |uuid: &str, parent: Option<&str>, t: u32, ty: &str, message: String| {
        let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
        lines.push(format!(
            r#"{{"parentUuid":{parent},"isSidechain":false,"cwd":"/srv/long","sessionId":"{session}","version":"2.1.330","type":"{ty}","uuid":"{uuid}","timestamp":"{}","message":{message}}}"#,
            ts(t)
        ));
    };
    let text = |role: &str, uuid: &str, words: &str| match role {
        "user" => format!(r#"{{"role":"user","content":"{words}"}}"#),
        _ => format!(
            r#"{{"id":"msg_{uuid}","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"{words}"}}]}}"#
        ),
    };
    let (root, fork) = (id(1, 0), id(2, 0));
    entry(&root, None, 0, "user", text("user", &root, "Begin"));
    entry(&fork, Some(&root), 1, "assistant", text("assistant", &fork, "Ready."));
    // The first prompt under the fork goes on for 450 turns, then runs a
    // command and writes a file.
    let mut parent = fork.clone();
    for n in 1..=450 {
        let (p, a) = (id(3, n), id(4, n));
        entry(&p, Some(&parent), 2 * n, "user", text("user", &p, &format!("Step {n}")));
        entry(&a, Some(&p), 2 * n + 1, "assistant", text("assistant", &a, &format!("Step {n} done.")));
        parent = a;
    }
    let (call, result) = (id(5, 0), id(6, 0));
    entry(
        &call,
        Some(&parent),
        1000,
        "assistant",
        r#"{"id":"msg_late","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_deploy","name":"Bash","input":{"command":"make deploy"}},{"type":"tool_use","id":"toolu_write","name":"Write","input":{"file_path":"/srv/long/late.txt","content":"late"}}]}"#.into(),
    );
    entry(
        &result,
        Some(&call),
        1001,
        "user",
        r#"{"role":"user","content":[{"tool_use_id":"toolu_deploy","type":"tool_result","content":"deployed"},{"tool_use_id":"toolu_write","type":"tool_result","content":"written"}]}"#.into(),
    );
    // Later, a rewind to the fork: a prompt of its own branch.
    let (other, answer) = (id(7, 0), id(8, 0));
    entry(&other, Some(&fork), 2000, "user", text("user", &other, "Instead"));
    entry(&answer, Some(&other), 2001, "assistant", text("assistant", &answer, "Done differently."));
    std::fs::write(project.join(format!("{session}.jsonl")), lines.join("\n") + "\n").unwrap();

    let out = tmp.path().join("site");
    let projects = tmp.path().join("projects");
    assert!(cctree().arg("render").arg(&projects).arg("-o").arg(&out).arg("-q").status().unwrap().success());
    let page = std::fs::read_to_string(out.join(format!("-srv-long/c/{root}/compare/{fork}/index.html"))).unwrap();
    let cols: Vec<&str> = page.split("<section class=\"compare-col").skip(1).collect();
    assert_eq!(cols.len(), 2);
    let long = cols.iter().find(|c| c.contains("Step 1 done.")).unwrap();
    assert!(long.contains("<h3>Commands run (1)</h3>"), "{long}");
    assert!(long.contains("<code>make deploy</code>"), "{long}");
    assert!(long.contains("<h3>Files changed (1)</h3>"), "{long}");
    assert!(long.contains(">late.txt</code>"), "{long}");
    assert!(!long.contains("Step 450 done."), "past the messages a column shows");
}

/// A line of 430 turns, each rewound once: a fork at every answer, whose
/// first column is the rest of the line (more than the turns a column
/// shows for the first 30 forks). Each column still counts and totals the
/// whole rest from its fork on — its messages, its time, its tokens (each
/// streamed answer once, at its line with the most output) and the
/// commands it ran (not the one that failed) — whatever it shows, and the
/// forks along the line are read once for all of them, not once each.
#[test]
fn every_fork_along_a_rewound_line_totals_the_rest_of_the_line() {
    const N: u32 = 430;
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("projects").join("-srv-comb");
    std::fs::create_dir_all(&project).unwrap();
    let session = "5e550000-0000-4000-8000-00000000c0b0";
    let id = |kind: u32, n: u32| format!("{kind:08x}-0000-4000-8000-{n:012x}");
    let ts = |s: u32| format!("2026-01-01T{:02}:{:02}:{:02}.000Z", s / 3600, s / 60 % 60, s % 60);
    let mut lines = Vec::new();
    let mut entry = |uuid: &str, parent: Option<&str>, t: u32, ty: &str, message: String| {
        let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
        lines.push(format!(
            r#"{{"parentUuid":{parent},"isSidechain":false,"cwd":"/srv/comb","sessionId":"{session}","version":"2.1.330","type":"{ty}","uuid":"{uuid}","timestamp":"{}","message":{message}}}"#,
            ts(t)
        ));
    };
    let prompt = |words: &str| format!(r#"{{"role":"user","content":"{words}"}}"#);
    // An answer's line: its message id, its content, and (from turn 400 on)
    // a usage of 1 input token and `out` output tokens.
    let answer = |n: u32, content: &str, out: u32| {
        let usage =
            if n >= 400 { format!(r#","usage":{{"input_tokens":1,"output_tokens":{out}}}"#) } else { String::new() };
        format!(
            r#"{{"id":"msg_{n}","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{content}]{usage}}}"#
        )
    };
    let mut parent: Option<String> = None;
    let mut answers = Vec::new();
    for n in 1..=N {
        let (p, a) = (id(1, n), id(2, n));
        entry(&p, parent.as_deref(), 10 * n, "user", prompt(&format!("Step {n}")));
        let text = format!(r#"{{"type":"text","text":"Step {n} done."}}"#);
        if n >= 405 {
            // Streamed: its words (under-reported usage), then a command.
            entry(&a, Some(&p), 10 * n + 1, "assistant", answer(n, &text, 1));
            let (call, result) = (id(3, n), id(4, n));
            let tool =
                format!(r#"{{"type":"tool_use","id":"toolu_{n}","name":"Bash","input":{{"command":"make step{n}"}}}}"#);
            entry(&call, Some(&a), 10 * n + 1, "assistant", answer(n, &tool, 2));
            let error = if n == 410 { r#","is_error":true"# } else { "" };
            entry(
                &result,
                Some(&call),
                10 * n + 1,
                "user",
                format!(
                    r#"{{"role":"user","content":[{{"tool_use_id":"toolu_{n}","type":"tool_result","content":"ran"{error}}}]}}"#
                ),
            );
            answers.push(result.clone());
            parent = Some(result);
        } else {
            entry(&a, Some(&p), 10 * n + 1, "assistant", answer(n, &text, 2));
            answers.push(a.clone());
            parent = Some(a);
        }
    }
    // A rewind to each answer but the last two, typed just after the line
    // went on from it (the line's end stays the latest: the active line).
    for (k, a) in answers.iter().enumerate().take(N as usize - 2) {
        let k = k as u32 + 1;
        let (p, b) = (id(5, k), id(6, k));
        entry(&p, Some(a), 10 * k + 12, "user", prompt(&format!("Instead of step {}", k + 1)));
        entry(&b, Some(&p), 10 * k + 13, "assistant", answer(0, r#"{"type":"text","text":"Done differently."}"#, 0));
    }
    std::fs::write(project.join(format!("{session}.jsonl")), lines.join("\n") + "\n").unwrap();

    let out = tmp.path().join("site");
    let projects = tmp.path().join("projects");
    assert!(cctree().arg("render").arg(&projects).arg("-o").arg(&out).arg("-q").status().unwrap().success());
    let root = id(1, 1);
    let field = |col: &str, name: &str| -> Option<String> {
        let at = col.find(&format!("<dt>{name}</dt><dd>"))? + name.len() + 13;
        Some(col[at..at + col[at..].find("</dd>").unwrap()].to_string())
    };
    for k in [1, 2, 29, 30, 31, 100, 399, 400, 404, 405, 409, 410, 411, N - 2] {
        let fork = &answers[k as usize - 1];
        let page = std::fs::read_to_string(out.join(format!("-srv-comb/c/{root}/compare/{fork}/index.html")))
            .unwrap_or_else(|e| panic!("the compare page of the fork at answer {k}: {e}"));
        let col = page.split("<section class=\"compare-col").nth(1).unwrap();
        assert!(col.contains(&format!("Step {} done.", k + 1)), "fork {k}: the column goes on along the line");
        // The rest: turns k+1..=N, each a prompt and an answer.
        let rest = N - k;
        assert_eq!(field(col, "messages"), Some((2 * rest).to_string()), "fork {k}: messages");
        let secs = 10 * N + 1 - 10 * (k + 1);
        let duration = match secs {
            0..60 => format!("{secs} s"),
            60..3600 => format!("{} min {} s", secs / 60, secs % 60),
            _ => format!("{} h {} min", secs / 3600, secs % 3600 / 60),
        };
        assert_eq!(field(col, "duration"), Some(duration), "fork {k}: duration");
        let priced = (k + 1..=N).filter(|&n| n >= 400).count() as u32;
        let tokens = (priced > 0).then(|| format!("{priced} in · {} out · 0 cache read · 0 cache write", 2 * priced));
        assert_eq!(field(col, "tokens"), tokens, "fork {k}: tokens, each answer once at its largest output");
        let ran: Vec<u32> = (k + 1..=N).filter(|&n| n >= 405 && n != 410).collect();
        assert!(col.contains(&format!("<h3>Commands run ({})</h3>", ran.len())), "fork {k}: {col}");
        for n in &ran {
            assert!(col.contains(&format!("<code>make step{n}</code>")), "fork {k}: make step{n}");
        }
        assert!(!col.contains("<code>make step410</code>"), "fork {k}: the failed call");
    }
}

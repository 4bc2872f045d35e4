//! What a reader meets on the first day, one test per behaviour, on the example, the
//! real Claude Code, Codex CLI and Gemini CLI archives of `tests/fixtures/`,
//! and small archives written here for what the fixtures do not hold; the
//! points a reader sees in a browser through `tests/browser/reading.mjs`
//! (Chromium, 1280 and 390 px, light and dark, file:// and http).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::browser::{Driver, example_pages};
use crate::support::{cctree, example_archive};

fn render(input: &Path, out: &Path, extra: &[&str]) {
    let o = cctree().args(["-q", "render"]).args(extra).arg(input).arg("-o").arg(out).output().unwrap();
    assert!(o.status.success(), "render failed: {}", String::from_utf8_lossy(&o.stderr));
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(path)
}

/// The conversation pages of a site (`<project>/c/<root>/index.html`).
fn conversation_pages(site: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = walkdir::WalkDir::new(site)
        .into_iter()
        .filter_map(Result::ok)
        .map(walkdir::DirEntry::into_path)
        .filter(|p| {
            p.file_name().is_some_and(|n| n == "index.html")
                && p.parent().and_then(Path::parent).and_then(Path::file_name).is_some_and(|n| n == "c")
        })
        .collect();
    v.sort();
    v
}

/// A Claude Code transcript line.
fn line(uuid: &str, parent: Option<&str>, session: &str, ts: &str, kind: &str, message: Value) -> Value {
    json!({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": session, "timestamp": ts,
        "cwd": "/w/app", "isSidechain": false, "message": message})
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn reply(id: &str, blocks: Value) -> Value {
    json!({"role": "assistant", "id": id, "model": "claude-sonnet-4-5", "content": blocks,
        "usage": {"input_tokens": 3, "output_tokens": 5}})
}

fn base64_of(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A grey PNG of `w`×`h` pixels, with a darker stripe every 40 rows (a
/// screenshot wider than the column).
fn png(w: u32, h: u32) -> Vec<u8> {
    use std::io::Write as _;
    let chunk = |out: &mut Vec<u8>, kind: &[u8], data: &[u8]| {
        out.extend((data.len() as u32).to_be_bytes());
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(data);
        out.extend(kind);
        out.extend(data);
        out.extend(crc.sum().to_be_bytes());
    };
    let mut raw = Vec::new();
    for y in 0..h {
        raw.push(0);
        raw.extend(std::iter::repeat_n(if y % 40 < 4 { 60 } else { 200 }, w as usize));
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&raw).unwrap();
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend(w.to_be_bytes());
    ihdr.extend(h.to_be_bytes());
    ihdr.extend([8, 0, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &z.finish().unwrap());
    chunk(&mut out, b"IEND", &[]);
    out
}

fn write_lines(file: &Path, lines: &[Value]) {
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(file, text).unwrap();
}

/// Plain-text titles, forks told apart, project names and empty rows, and
/// labelled task lists: a project written here.
///
/// - session 1: a custom title in Markdown (`# 1. Set up **the repo**`), a
///   reply whose thinking is a reasoning summary in Markdown; then a fork at
///   the reply `a1` (two prompts typed alike, `try again`, a rewind that
///   asked the same again) and a fork at the turn-duration entry after it
///   (`s1`, a side entry the page hides) with two more prompts; a reply
///   holding a Markdown task list;
/// - session 2: only a reply (no prompt): an untitled conversation;
/// - another project: only a sub-agent transcript.
pub fn written_archive(root: &Path) -> PathBuf {
    let projects = root.join("projects");
    let s1 = "11111111-0000-4000-8000-000000000001";
    let p = projects.join("-w-app");
    let tasks = "Plan:\n\n- [x] read the code\n- [ ] write the fix\n- [ ] run the tests";
    write_lines(
        &p.join(format!("{s1}.jsonl")),
        &[
            line(
                "u1",
                None,
                s1,
                "2026-05-01T10:00:00.000Z",
                "user",
                json!({"role": "user", "content": [{"type": "text", "text": "start the work, as on this screenshot"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": base64_of(&png(1600, 240))}}]}),
            ),
            line(
                "a1",
                Some("u1"),
                s1,
                "2026-05-01T10:00:05.000Z",
                "assistant",
                reply(
                    "m1",
                    json!([{"type": "thinking", "thinking": "**Reading the files**\n\nI will read `a.rs` first.", "signature": "x"},
                        {"type": "text", "text": "The first reply."}]),
                ),
            ),
            json!({"type": "system", "subtype": "turn_duration", "durationMs": 5000, "uuid": "s1", "parentUuid": "a1",
                "sessionId": s1, "timestamp": "2026-05-01T10:00:06.000Z", "cwd": "/w/app", "isSidechain": false, "isMeta": false}),
            line("u2", Some("a1"), s1, "2026-05-01T10:01:00.000Z", "user", user("try again")),
            line(
                "a2",
                Some("u2"),
                s1,
                "2026-05-01T10:01:05.000Z",
                "assistant",
                reply("m2", json!([{"type": "text", "text": tasks}])),
            ),
            line("u3", Some("a1"), s1, "2026-05-01T10:02:00.000Z", "user", user("try again")),
            line(
                "a3",
                Some("u3"),
                s1,
                "2026-05-01T10:02:05.000Z",
                "assistant",
                reply("m3", json!([{"type": "text", "text": "Third."}])),
            ),
            line("u4", Some("s1"), s1, "2026-05-01T10:03:00.000Z", "user", user("another way")),
            line(
                "a4",
                Some("u4"),
                s1,
                "2026-05-01T10:03:05.000Z",
                "assistant",
                reply("m4", json!([{"type": "text", "text": "Fourth."}])),
            ),
            line("u5", Some("s1"), s1, "2026-05-01T10:04:00.000Z", "user", user("a last way")),
            line(
                "a5",
                Some("u5"),
                s1,
                "2026-05-01T10:04:05.000Z",
                "assistant",
                reply("m5", json!([{"type": "text", "text": "Fifth."}])),
            ),
            json!({"type": "custom-title", "customTitle": "# 1. Set up **the repo**", "sessionId": s1}),
        ],
    );
    let s2 = "22222222-0000-4000-8000-000000000002";
    write_lines(
        &p.join(format!("{s2}.jsonl")),
        &[line(
            "r1",
            None,
            s2,
            "2026-05-02T10:00:00.000Z",
            "assistant",
            reply("m9", json!([{"type": "text", "text": "Resumed alone: nothing asked."}])),
        )],
    );
    let s3 = "33333333-0000-4000-8000-000000000003";
    let mut agent =
        line("g1", None, s3, "2026-05-03T10:00:00.000Z", "user", user("Count the files of the repository."));
    agent["isSidechain"] = json!(true);
    agent["agentId"] = json!("abc123");
    let mut answer = line(
        "g2",
        Some("g1"),
        s3,
        "2026-05-03T10:00:05.000Z",
        "assistant",
        reply("m10", json!([{"type": "text", "text": "12 files."}])),
    );
    answer["isSidechain"] = json!(true);
    answer["agentId"] = json!("abc123");
    write_lines(&projects.join("-w-agents-only").join(s3).join("subagents/agent-abc123.jsonl"), &[agent, answer]);
    projects
}

/// Point 1: the first message is on the first screen of a conversation page
/// with forks: the head is a title, a line of facts (the sessions, their
/// ids whole, and the tokens folded under their count), a one-line note of
/// the active line, the map (its box at most about fifteen rows, scrolling
/// past them) and the fork-point index folded under its count, with a
/// two-line legend. In Chromium, through `first-screen` checks below
/// ([`reading_in_chromium`]); here what the page holds.
#[test]
fn the_conversation_page_head_is_short_and_keeps_the_index_at_the_top() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    render(&fixture("client-2.1.332/time-travel/projects"), &site, &[]);
    let page = read(&conversation_pages(&site)[0]);
    let head = &page[..page.find("<section class=\"messages\">").unwrap()];
    // Sessions (ten, with their ids whole) and tokens folded, one line.
    let more = &head[head.find("<details class=\"more-facts\">").expect("the folded facts")..];
    let more = &more[..more.find("</details>").unwrap()];
    assert!(more.contains("<summary>10 sessions · 7 cctree forks · tokens</summary>"), "{more}");
    let facts = &head[head.find("<dl class=\"facts\">").unwrap()..];
    let facts = &facts[..facts.find("</dl>").unwrap()];
    assert!(!facts.contains("class=\"sid\""), "no session id in the line of facts: {facts}");
    // The map, then the index folded under its count, before the messages.
    let map = head.find("<details class=\"map\" id=\"map\" open>").expect("the map, open");
    let index = head.find("<details class=\"forks\" id=\"forks\">").expect("the index, folded");
    assert!(map < index, "the map comes first");
    assert!(head.contains("<h2>Fork-point index</h2> <span class=\"hint\">5 forks · 8 branches"), "{head}");
    // The legend: two rows.
    let legend = &head[head.find("<dl class=\"legend\"").unwrap()..];
    assert_eq!(legend[..legend.find("</dl>").unwrap()].matches("<div>").count(), 2);
    // The note of the active line: one sentence.
    let note = &head[head.find("<p class=\"activeline\">").unwrap()..];
    assert_eq!(note[..note.find("</p>").unwrap()].matches(". ").count(), 0, "{note}");
}

/// Point 2: a hit on a message of the active line opens the page that reads
/// the active line; one off it says on which branch (`on branch 15.1`, as
/// the index names the rest of branch 12.2 after the fork at #15). Each
/// message is indexed once: the conversation page's docs hold the active
/// line, the branches' pages the rest.
#[test]
fn search_docs_of_the_active_line_are_on_the_conversation_page() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    render(&example_archive(), &site, &[]);
    let p = example_pages();
    let conv = site.join(&p.conversation);
    let docs = read(&conv.with_file_name("search-1.js"));
    assert!(docs.contains("\"m-a1f1b200-0000-4000-8000-000000000001\""), "the 12.2 prompt, on the active line");
    assert!(!docs.contains("\"on\":"), "the active line needs no place");
    let b =
        read(&site.join(p.conversation.replace("index.html", "b/a1f1b200-0000-4000-8000-000000000001/search-1.js")));
    assert!(!b.contains("\"m-a1f1b200-0000-4000-8000-000000000001\""), "indexed once, on the conversation page");
    assert!(b.contains("\"m-a1f2b100-0000-4000-8000-000000000001\"") && b.contains("\"on\":\"on branch 15.1\""), "{b}");
    // Every anchor is indexed exactly once across the conversation's pages.
    let dir = conv.parent().unwrap();
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    let anchor = regex::Regex::new(r#"\["(m-[^"]+)""#).unwrap();
    for f in walkdir::WalkDir::new(dir).into_iter().filter_map(Result::ok).filter(|e| e.file_name() == "search-1.js") {
        for c in anchor.captures_iter(&read(f.path())) {
            *seen.entry(c[1].to_string()).or_default() += 1;
        }
    }
    assert!(seen.len() > 30 && seen.values().all(|n| *n == 1), "{seen:?}");
}

/// Point 3: what the pages hide until the reader shows system entries —
/// Codex CLI's built-in instructions, a `<system-reminder>` Claude Code put
/// into a tool's output — is indexed apart (`~term`), never under the word
/// itself; a reminder is folded out of the output it was in (no raw tag on
/// the page or in an excerpt); a hyphenated word is also its pair
/// (`file-history`).
#[test]
fn hidden_text_is_indexed_apart_and_reminders_leave_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let terms = |site: &Path| -> Vec<String> {
        let mut all = Vec::new();
        for f in std::fs::read_dir(site.join("search/t")).unwrap() {
            let js = read(&f.unwrap().path());
            let json = &js[js.find("]=").unwrap() + 2..js.rfind(';').unwrap()];
            let v: Value = serde_json::from_str(json).unwrap();
            all.extend(v["terms"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()));
        }
        all
    };
    let codex = tmp.path().join("codex");
    render(&fixture("codex-0.171.0/tui"), &codex, &[]);
    let t = terms(&codex);
    // The instructions' words: hidden only (`skills` is in no visible message).
    assert!(t.iter().any(|x| x == "~skills") && !t.iter().any(|x| x == "skills"), "{:?}", &t[..20]);
    let real = tmp.path().join("real");
    render(&crate::support::real_projects(), &real, &[]);
    let t = terms(&real);
    assert!(t.iter().any(|x| x == "~malware"), "the reminders' words, hidden");
    assert!(t.iter().any(|x| x == "file-history" || x == "claude-code"), "pairs of hyphenated words");
    let mut reminders = 0;
    for f in walkdir::WalkDir::new(&real).into_iter().filter_map(Result::ok) {
        let name = f.file_name().to_string_lossy();
        if name.ends_with(".html") {
            let h = read(f.path());
            assert!(
                !h.contains("&lt;system-reminder&gt;") && !h.contains("&lt;system-reminder>"),
                "{}",
                f.path().display()
            );
            reminders += h.matches("<details class=\"reminder\">").count();
        } else if name.starts_with("search-") {
            assert!(!read(f.path()).contains("system-reminder"), "{}", f.path().display());
        }
    }
    assert!(reminders > 5, "{reminders} reminders folded apart");
}

/// Point 4: a sub-agent call shows its prompt, then its answer under a
/// heading of its own, apart.
#[test]
fn an_agent_call_heads_its_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    render(&example_archive(), &site, &[]);
    let page = read(&site.join(example_pages().conversation));
    let call = &page[page.find("<a href=\"../../agents/").expect("the agent call")..];
    let call = &call[..call.len().min(20_000)];
    let prompt = call.find("<details class=\"prompt\">").expect("its prompt");
    let answer = call.find("<p class=\"result-label\">The sub-agent&#39;s answer</p>").expect("its answer, headed");
    assert!(prompt < answer, "{call}");
}

/// Point 6: the `/compact` a person typed comes before the compaction it
/// caused (Claude Code writes it after the boundary, the summary and the
/// reply it kept); its output after.
#[test]
fn compact_comes_before_the_compaction_it_caused() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    render(&fixture("client-2.1.332/compact/projects"), &site, &[]);
    let page = read(&conversation_pages(&site)[0]);
    let command = page.find("<span class=\"role\">You · command</span>").expect("the /compact");
    let compacted = page.find("<span class=\"role\">Conversation compacted</span>").expect("the compaction");
    let output = page.find("<span class=\"role\">command output</span>").expect("its output");
    assert!(command < compacted && compacted < output, "{command} {compacted} {output}");
}

/// Points 7, 8 and 9, on the archive written here: a Markdown title and a
/// reasoning summary as plain text (heading, breadcrumb, page title, the
/// project's row); two sibling branches with the same first words told
/// apart by their session and start; two forks at #2 with the same words,
/// one at the reply, one at the hidden turn-duration entry after it, each
/// saying where; an untitled conversation called by its first words; a
/// project of only a sub-agent transcript saying so on the archive index.
#[test]
fn titles_plain_forks_told_apart_and_rows_not_empty() {
    let tmp = tempfile::tempdir().unwrap();
    let input = written_archive(tmp.path());
    let site = tmp.path().join("site");
    render(&input, &site, &[]);
    let pages = conversation_pages(&site);
    let page = pages.iter().map(|p| read(p)).find(|h| h.contains("Set up the repo")).expect("the titled conversation");
    assert!(page.contains("<h1>1. Set up the repo</h1>"), "the heading");
    assert!(page.contains("<title>1. Set up the repo · cctree</title>"), "the page's title");
    assert!(page.contains(">1. Set up the repo</a>\n</nav>"), "the breadcrumb");
    assert!(!page.contains("**") && !page.contains("# 1."), "no Markdown mark in the head");
    assert!(page.contains("Reading the files I will read a.rs first."), "the thinking summary, plain");
    // Sibling branches named alike: each with its session and start.
    for at in ["10:01:00", "10:02:00"] {
        assert!(page.contains(&format!("session 11111111 · started {at} UTC")), "{at}: {page}");
    }
    // Forks at one number with the same words, each saying where.
    assert!(page.contains("(at message #2 itself)"), "{page}");
    assert!(page.contains("(after #2, at a system entry the page hides)"), "{page}");
    // The untitled conversation: its first words, and what it is.
    let project = read(&site.join("-w-app/index.html"));
    assert!(!project.contains("(untitled)"), "{project}");
    assert!(project.contains(">Resumed alone: nothing asked.</a>"), "{project}");
    assert!(project.contains("no prompt · 1 message · session 22222222"), "{project}");
    // The project of no conversation.
    let index = read(&site.join("index.html"));
    assert!(index.contains("<span>no conversation: 1 agent transcript</span>"), "{index}");
    // A task list's boxes are text, not unlabelled inputs.
    let all: String = walkdir::WalkDir::new(&site)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "html"))
        .map(|e| read(e.path()))
        .collect();
    assert!(all.contains("aria-label=\"to do\">☐</span>") && !all.contains("type=\"checkbox\" disabled"));
}

/// The smaller points: the compare page counts a branch's messages as the
/// index does (it counted 13 where the index said 12); its `compare` link
/// is a link, not hint text; a long shell command wraps.
#[test]
fn compare_counts_agree_and_commands_wrap() {
    let tmp = tempfile::tempdir().unwrap();
    let count = regex::Regex::new(r#"<a class="lbl" href="[^"]*"(?: title="[^"]*")?>([0-9a-z./]+)</a>(?s:.*?)<span class="hint">(?s:(.*?))</span>\n"#).unwrap();
    let col =
        regex::Regex::new(r#"<h2[^>]*><a class="lbl" href="[^"]*">([^<]+)</a>(?s:.*?)<dt>messages</dt><dd>(\d+)</dd>"#)
            .unwrap();
    let n = regex::Regex::new(r"(\d+) messages").unwrap();
    let mut compared = 0;
    for (name, input) in [
        ("tui", fixture("client-2.1.332/tui/projects")),
        ("time-travel", fixture("client-2.1.332/time-travel/projects")),
        ("example", example_archive()),
    ] {
        let site = tmp.path().join(name);
        render(&input, &site, &[]);
        for conv in conversation_pages(&site) {
            let page = read(&conv);
            assert!(!page.contains("<a class=\"hint\" href=\"compare/"), "{name}: compare looks like a hint");
            let index: std::collections::BTreeMap<String, u32> = count
                .captures_iter(&page)
                .filter_map(|c| Some((c[1].to_string(), n.captures(&c[2])?[1].parse().ok()?)))
                .collect();
            let Ok(dirs) = std::fs::read_dir(conv.parent().unwrap().join("compare")) else { continue };
            for d in dirs {
                let cmp = read(&d.unwrap().path().join("index.html"));
                for c in col.captures_iter(&cmp) {
                    assert_eq!(index.get(&c[1]).copied(), c[2].parse().ok(), "{name}: branch {} counted apart", &c[1]);
                    compared += 1;
                }
            }
        }
    }
    assert!(compared >= 20, "{compared} columns compared");
    let page = read(&tmp.path().join("example").join(example_pages().conversation));
    assert!(page.contains("<pre class=\"out term cmdline\">"), "a shell command is set to wrap");
}

/// The smaller point "every Codex reasoning item, tool call and reply is its
/// own numbered card": the items of one Codex CLI response (the two calls the
/// API returned together, before the `token_usage_record` written after them,
/// `tests/fixtures/codex-0.171.0/exec`) are one message, as Claude Code's
/// streamed entries of one `message.id` are; the reply of the next response is
/// the next message.
#[test]
fn a_codex_response_is_one_message() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("exec");
    render(&fixture("codex-0.171.0/exec"), &site, &[]);
    let article = regex::Regex::new(r#"(?s)<article class="msg ([a-z ]+)"[^>]*>(.*?)</article>"#).unwrap();
    let num = regex::Regex::new(r#"class="num"[^>]*>#(\d+)<"#).unwrap();
    let tool = regex::Regex::new(r#"class="tool-name">([^<]*)<"#).unwrap();
    let pages: Vec<PathBuf> = walkdir::WalkDir::new(&site)
        .into_iter()
        .filter_map(Result::ok)
        .map(walkdir::DirEntry::into_path)
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    let mut seen = 0;
    for p in pages {
        let page = read(&p);
        let msgs: Vec<(String, u32, Vec<String>)> = article
            .captures_iter(&page)
            .map(|c| {
                let n = num.captures(&c[2]).map_or(0, |n| n[1].parse().unwrap());
                (c[1].to_string(), n, tool.captures_iter(&c[2]).map(|t| t[1].to_string()).collect())
            })
            .collect();
        for (i, (class, n, tools)) in msgs.iter().enumerate() {
            if !tools.iter().any(|t| t == "apply_patch") || !tools.iter().any(|t| t == "exec_command") {
                continue;
            }
            seen += 1;
            assert!(class.starts_with("assistant"), "{}: {class}", p.display());
            assert_eq!(
                tools,
                &["exec_command", "apply_patch"],
                "{}: the response's two calls in one message",
                p.display()
            );
            let (next_class, next_n, next_tools) = &msgs[i + 1];
            assert!(
                next_class.starts_with("assistant") && *next_n == n + 1 && next_tools.is_empty(),
                "{}: the next response's reply is the next message: {:?}",
                p.display(),
                msgs[i + 1]
            );
        }
    }
    assert!(seen >= 1, "the response of two calls is on a page");
}

/// Reading in Chromium (`tests/browser/reading.mjs`), at 1280×900 and
/// 390×844, light and dark, over file:// and http: the first message on the
/// first screen of the conversation pages with forks (eight branches and
/// three); a search hit on the active line opening the conversation page
/// at the message (the word marked there, not in the message's header),
/// one off it saying its branch and opening the branch's page; a query
/// matching only injected text finding nothing, and finding it when asked
/// for system entries; the export's first heading the title and its first
/// section the active line; an image at the column's width, opening at full
/// size. Screenshots `target/screenshots/reading-*.png`.
#[test]
fn reading_in_chromium() {
    let Some(driver) = Driver::get() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let example = tmp.path().join("example");
    render(&example_archive(), &example, &[]);
    let travel = tmp.path().join("time-travel");
    render(&fixture("client-2.1.332/time-travel/projects"), &travel, &[]);
    let codex = tmp.path().join("codex");
    render(&fixture("codex-0.171.0/tui"), &codex, &[]);
    let written = tmp.path().join("written");
    render(&written_archive(&tmp.path().join("input")), &written, &[]);
    let shot = conversation_pages(&written)
        .into_iter()
        .find(|p| read(p).contains("class=\"shot\""))
        .expect("the page of the screenshot");
    let shot = shot.strip_prefix(&written).unwrap().to_string_lossy().to_string();
    let p = example_pages();
    let travel_page = conversation_pages(&travel)[0].strip_prefix(&travel).unwrap().to_string_lossy().to_string();
    let export = tmp.path().join("weather.html");
    let o = cctree()
        .args(["-q", "export", "--projects"])
        .arg(example_archive())
        .args(["a1000000-0000-4000-8000-000000000001", "-o"])
        .arg(&export)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let branch = p.conversation.replace("index.html", "b/a1f1b200-0000-4000-8000-000000000001/index.html");
    let checks = json!([
        {"kind": "first-screen", "name": "eight-branches", "root": travel, "page": travel_page},
        {"kind": "first-screen", "name": "example", "root": example, "page": p.conversation},
        {"kind": "search", "name": "active-line", "root": example, "query": "Scratch the units idea",
            "page": p.conversation, "anchor": "m-a1f1b200-0000-4000-8000-000000000001", "on": null},
        {"kind": "search", "name": "off-the-line", "root": example, "query": "backoff crate",
            "page": branch, "anchor": "m-a1f2b100-0000-4000-8000-000000000001", "on": "on branch 15.1"},
        {"kind": "hidden", "name": "codex-instructions", "root": codex, "query": "skill instructions"},
        {"kind": "export", "name": "export", "file": export, "title": "weather-cli: retries + cache"},
        {"kind": "image", "name": "screenshot", "root": written, "page": shot},
    ]);
    let v = driver.run_spec("reading.mjs", &json!({ "checks": checks }), tmp);
    let runs = v["runs"].as_array().expect("runs");
    // Each check at 2 widths × 2 themes × 2 origins (the export: file:// only).
    assert_eq!(runs.len(), 6 * 8 + 4, "{v}");
    let tops: Vec<i64> =
        runs.iter().filter(|r| r["kind"] == "first-screen").filter_map(|r| r["first"].as_i64()).collect();
    assert_eq!(tops.len(), 16, "{v}");
    assert!(tops.iter().all(|t| *t < 844), "{tops:?}");
    // The screenshot (1600 px) at the column's width.
    for r in runs.iter().filter(|r| r["kind"] == "image") {
        let (shown, col) = (r["shown"].as_f64().unwrap_or(0.0), r["col"].as_f64().unwrap_or(1.0));
        assert!(r["natural"] == 1600 && shown > col * 0.9, "{r}");
    }
}

/// A project is named by the working directory its files record, not by
/// the folder the client stores it in, for each agent where the two differ:
/// Claude Code's folder (renamed here, and lossy: `-` for `/`, `.` and `-`),
/// even when its first file records none; Qwen Code's (the same encoding);
/// Codex CLI's dated tree (`sessions/YYYY/MM/DD`). A folder none of whose
/// files records one keeps its folder's name.
#[test]
fn a_project_is_named_by_the_working_directory_its_files_record() {
    let tmp = tempfile::tempdir().unwrap();
    let claude = tmp.path().join("claude");
    let session = |sid: &str, cwd: Option<&str>| {
        let mut v = line("u1", None, sid, "2026-01-01T10:00:00.000Z", "user", user("hello"));
        match cwd {
            Some(cwd) => v["cwd"] = json!(cwd),
            None => drop(v.as_object_mut().unwrap().remove("cwd")),
        }
        v
    };
    let dir = claude.join("-srv-old-name");
    std::fs::create_dir_all(&dir).unwrap();
    write_lines(
        &dir.join("00000000-0000-4000-8000-000000000001.jsonl"),
        &[session("00000000-0000-4000-8000-000000000001", None)],
    );
    write_lines(
        &dir.join("11111111-0000-4000-8000-000000000001.jsonl"),
        &[session("11111111-0000-4000-8000-000000000001", Some("/home/bob/my-app.v2"))],
    );
    let bare = claude.join("-srv-no-cwd");
    std::fs::create_dir_all(&bare).unwrap();
    write_lines(
        &bare.join("22222222-0000-4000-8000-000000000001.jsonl"),
        &[session("22222222-0000-4000-8000-000000000001", None)],
    );
    let qwen = tmp.path().join("qwen/projects/-renamed");
    crate::agents::copy_tree(&fixture("qwen-0.24.4/headless/projects/-tmp-cctree-qwen-0-24-4-headless-work"), &qwen);
    let cases = [
        (claude.clone(), "-srv-old-name", "/home/bob/my-app.v2"),
        (claude, "-srv-no-cwd", "-srv-no-cwd"),
        (tmp.path().join("qwen"), "qwen-renamed", "/tmp/cctree-qwen-0.24.4/headless/work"),
        (
            fixture("codex-0.171.0/exec"),
            "codex-tmp-cctree-codex-0-171-0-exec-work",
            "/tmp/cctree-codex-0.171.0/exec/work",
        ),
    ];
    for (i, (input, slug, name)) in cases.iter().enumerate() {
        let site = tmp.path().join(format!("site{i}"));
        render(input, &site, &[]);
        let project = read(&site.join(slug).join("index.html"));
        assert!(project.contains(&format!("<h1 class=\"path\">{name}</h1>")), "{slug}: {project}");
        let index = read(&site.join("index.html"));
        assert!(index.contains(&format!("href=\"{slug}/index.html\">{name}<")), "{slug}: {index}");
    }
}

//! Compactions that keep messages, on archives Claude Code 2.1.332
//! wrote (`tests/fixtures/client-2.1.332/`, recorded by the conformance
//! suite, which drives the client itself): one test per symptom, named after
//! it. What the client does is in `docs/transcript-format.md` §5.7.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use cctree::agent::claude::fork::{self, ForkRequest};
use cctree::graph::NodeId;
use cctree::model::{Kind, UserKind};
use cctree::project::Project;
use serde_json::Value;

use crate::support::{cctree, load};

/// The `projects/` directory of a recorded fixture.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/client-2.1.332").join(name).join("projects")
}

fn project(name: &str) -> Project {
    load(&[fixture(name)]).remove(0)
}

/// `cctree stats --detail --json` of a fixture: its one project.
fn detail(name: &str) -> Value {
    let out = cctree().args(["stats", "--detail", "--json"]).arg(fixture(name)).output().unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["projects_detail"][0].clone()
}

/// `(compactions of a kind, compactions that kept messages)` in `stats`.
fn counted(d: &Value, kind: &str) -> (Option<u64>, Option<u64>) {
    (d[format!("compactions_{kind}")].as_u64(), d["compactions_kept_messages"].as_u64())
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The session files of a fixture: `(session id, its lines)`.
fn files(name: &str) -> Vec<(String, Vec<Value>)> {
    let dir = std::fs::read_dir(fixture(name)).unwrap().flatten().map(|e| e.path()).find(|p| p.is_dir()).unwrap();
    let mut v: Vec<(String, Vec<Value>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), lines(&p)))
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// The session the scenario typed in (not the client's `--fork-session`
/// copy, which starts at the boundary, nor a cctree fork), and the leaf its
/// last `last-prompt` names before anything copied it.
fn original(name: &str) -> (String, String) {
    let all = files(name);
    let (id, lines) = all
        .iter()
        .find(|(_, l)| {
            l.iter().any(|v| v["type"] == "user" && v["parentUuid"].is_null() && text(v).starts_with("first:"))
                && !l.iter().any(|v| v.get("cctreeFork").is_some())
        })
        .expect("the original session");
    let leaf = lines
        .iter()
        .rev()
        .find_map(|v| (v["type"] == "last-prompt").then(|| v["leafUuid"].as_str()).flatten())
        .unwrap()
        .to_string();
    (id.clone(), leaf)
}

fn text(v: &Value) -> String {
    match &v["message"]["content"] {
        Value::String(s) => s.clone(),
        Value::Array(b) => b.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join(""),
        _ => String::new(),
    }
}

/// The line read up to `leaf` (its branch's projection), as labels:
/// `you: <prompt>`, `claude: <text>`, `summary`, `compacted`.
fn line_to(p: &Project, leaf: &str) -> Vec<String> {
    let g = &p.graph;
    let n = g.index[leaf];
    let mut out = Vec::new();
    for k in g.projection(g.node(n).branch.unwrap()) {
        let e = g.entry(&p.entries, k);
        let label = match (&e.kind, e.user_kind) {
            (_, UserKind::Prompt) => format!("you: {}", e.excerpt),
            (_, UserKind::CompactSummary) => "summary".to_string(),
            (Kind::Assistant, _) if !e.excerpt.is_empty() => format!("claude: {}", e.excerpt),
            (Kind::System, _) if e.is_compact_boundary() => "compacted".to_string(),
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

fn prompts(line: &[String]) -> Vec<&str> {
    line.iter().filter(|l| !l.starts_with("claude: ")).map(String::as_str).collect()
}

/// The kinds of every fork point.
fn kinds(d: &Value) -> Vec<String> {
    let mut k: Vec<String> = d["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["fork_points"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap().to_string()))
        .collect();
    k.sort_unstable();
    k
}

/// Renders a fixture; the text of the page that reads `leaf`'s line (the
/// branch page of the original session's branch), tags and collapsed JSON
/// removed.
fn page_text(name: &str, out: &Path) -> String {
    let st = cctree().arg("render").arg(fixture(name)).arg("-o").arg(out).arg("-q").status().unwrap();
    assert!(st.success());
    let p = project(name);
    let (_, leaf) = original(name);
    let g = &p.graph;
    let b = g.node(g.index[leaf.as_str()]).branch.unwrap();
    let first = g.uuid(&p.entries, g.branches[b].first).to_string();
    let page = walkdir::WalkDir::new(out)
        .into_iter()
        .flatten()
        .find(|e| e.path().ends_with(format!("b/{first}/index.html")))
        .unwrap_or_else(|| panic!("no page of branch {first}"));
    words(&std::fs::read_to_string(page.path()).unwrap())
}

/// What each test of a recorded scenario reads: `stats --detail` of its
/// project, the line of the original session (see [`line_to`]), and the
/// text of its branch page in a site rendered into `site`.
struct Scenario {
    detail: Value,
    line: Vec<String>,
    text: String,
    site: tempfile::TempDir,
}

fn scenario(name: &str) -> Scenario {
    let (_, leaf) = original(name);
    let site = tempfile::tempdir().unwrap();
    Scenario { detail: detail(name), line: line_to(&project(name), &leaf), text: page_text(name, site.path()), site }
}

/// The text of a page: collapsed raw JSON and fork commands left out, tags
/// removed, entities decoded, spaces collapsed.
fn words(html: &str) -> String {
    let text = crate::xss::decode_entities(&crate::common::tags_removed(html));
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// "Summarize up to here" was read as a rewind (the old
/// parent of the kept turns had them and the compaction as two futures), the
/// kept turns on an abandoned branch, the line jumping from the second turn to
/// the summary to the fifth.
#[test]
fn summarize_up_to_here_is_not_a_rewind_and_the_kept_turns_follow_the_summary() {
    let Scenario { detail: d, line, text, .. } = scenario("summarize-up-to");
    assert!(!kinds(&d).contains(&"rewind".to_string()), "{:?}", kinds(&d));
    assert_eq!(counted(&d, "up_to"), (Some(1), Some(1)));
    assert_eq!(
        prompts(&line),
        [
            "you: first: run [[bash: echo one]]",
            "you: second: a question",
            "compacted",
            "summary",
            "you: third: parallel [[bash: sleep 1; echo a]] [[bash: echo b]]",
            "you: fourth: another question",
            "you: fifth: after the summary"
        ],
        "the line the client sends: the summary, then the kept turns"
    );
    let at = |s: &str| text.find(s).unwrap_or_else(|| panic!("{s:?} not on the page"));
    assert!(
        at("Summarized up to here") < at("third: parallel") && at("third: parallel") < at("fifth: after the summary")
    );
    assert!(text.contains("messages kept after the summary"), "the landmark says what was kept");
    assert_eq!(text.matches("Reply to: fourth").count(), 1, "the kept turns are shown once");
}

/// "Summarize from here" was labelled a rewind ("you
/// rewound and asked again"); it is a compaction, and the turns it
/// summarized stay on a branch beside the line.
#[test]
fn summarize_from_here_is_labelled_a_compaction_not_a_rewind() {
    let Scenario { detail: d, line, text, site } = scenario("summarize-from");
    assert_eq!(kinds(&d), ["compaction", "cross-session"], "the client's and cctree's forks branch off at the leaf");
    assert_eq!(counted(&d, "from"), (Some(1), Some(1)));
    let c = &d["conversations"][0];
    let summarized = c["branches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["title"].as_str().unwrap().starts_with("third: parallel"))
        .expect("the summarized turns");
    assert!(!summarized["fork_point"].is_null() && summarized["id"] != c["active_branch"], "a branch beside the line");
    assert_eq!(
        prompts(&line),
        [
            "you: first: run [[bash: echo one]]",
            "you: second: a question",
            "compacted",
            "summary",
            "you: fifth: after the summary"
        ]
    );
    assert!(text.contains("Summarized from here after #"), "the fork landmark says it is a compaction");
    assert!(!text.contains("The line forks after #5"), "not a plain fork");
    let conversation = walkdir::WalkDir::new(site.path())
        .into_iter()
        .flatten()
        .find(|e| {
            e.file_name() == "index.html"
                && e.path().parent().and_then(|d| d.parent()).is_some_and(|d| d.ends_with("c"))
        })
        .map(|e| words(&std::fs::read_to_string(e.path()).unwrap()))
        .unwrap();
    assert!(conversation.contains("summarized from here · 2 branches"), "the map says so");
    assert!(conversation.contains("fork at #5 summarized from here"), "the fork-point index says so");
}

/// `/compact` keeps the last reply verbatim and the
/// summary says the kept messages follow it, but the reply was shown only
/// before the compaction marker.
#[test]
fn compact_shows_the_kept_reply_after_the_summary() {
    let Scenario { detail: d, line, text, .. } = scenario("compact");
    assert_eq!(counted(&d, "full"), (Some(1), Some(1)));
    let at = line.iter().position(|l| l == "summary").unwrap();
    assert_eq!(line[at - 1], "compacted");
    assert_eq!(line[at + 1], "claude: Reply to: fourth: another question", "{line:#?}");
    let reply = text.find("Reply to: fourth").unwrap();
    assert!(text.find("Conversation compacted").unwrap() < reply, "after the compaction marker");
    assert!(text.find("kept verbatim").unwrap() < reply, "after the summary that announces it");
    assert_eq!(text.matches("Reply to: fourth").count(), 1);
}

/// User and assistant uuids of a fork's planned lines.
fn messages_of_plan(plan: &fork::Plan, p: &Project) -> BTreeSet<String> {
    plan.sources
        .iter()
        .filter(|s| {
            let e = p.graph.entry(&p.entries, p.graph.index[s.uuid.as_str()]);
            matches!(e.kind, Kind::User | Kind::Assistant)
        })
        .map(|s| s.uuid.clone())
        .collect()
}

/// `cctree fork` after a compaction that kept messages
/// copied only the chain from the boundary, so the resumed fork sent 5
/// messages where the client's own `--fork-session` sent 9 to 12. A fork at
/// the leaf now holds every message the client's copy of the same session
/// holds (its copy in the fixture, recorded before anything was appended to
/// it), and the kept list the boundary names.
#[test]
fn a_fork_after_a_compaction_that_kept_messages_copies_what_the_client_copies() {
    for name in ["summarize-up-to", "summarize-from", "compact"] {
        let p = project(name);
        let (main, leaf) = original(name);
        let plan = fork::run(&ForkRequest {
            target: main.clone(),
            at: Some(leaf.clone()),
            projects: Some(fixture(name)),
            dry_run: true,
            ..ForkRequest::default()
        })
        .unwrap();
        let ours = messages_of_plan(&plan, &p);
        let originals: BTreeSet<String> = files(name)
            .iter()
            .find(|(id, _)| *id == main)
            .unwrap()
            .1
            .iter()
            .filter_map(|v| v["uuid"].as_str().map(str::to_string))
            .collect();
        // The client's copy: the file whose copied replies name the original
        // (`requestSessionId`); what it copied are the uuids the original has.
        let copy = files(name)
            .into_iter()
            .find(|(id, l)| *id != main && l.iter().any(|v| v["requestSessionId"] == main.as_str()))
            .expect("the client's --fork-session copy");
        let theirs: BTreeSet<String> = copy
            .1
            .iter()
            .filter(|v| matches!(v["type"].as_str(), Some("user" | "assistant")))
            .filter_map(|v| v["uuid"].as_str().map(str::to_string))
            .filter(|u| originals.contains(u))
            .collect();
        assert_eq!(ours, theirs, "{name}: the messages of cctree's fork are the client's");
        let boundary = copy.1.iter().find(|v| v["subtype"] == "compact_boundary").unwrap();
        let copied: BTreeSet<&str> = plan.sources.iter().map(|s| s.uuid.as_str()).collect();
        for u in boundary["compactMetadata"]["preservedMessages"]["uuids"].as_array().unwrap() {
            assert!(copied.contains(u.as_str().unwrap()), "{name}: kept {u} copied");
        }
        assert!(plan.notes.iter().any(|n| n.contains("kept")), "{name}: {:?}", plan.notes);
    }
}

/// A fork among the messages "Summarize up to here" kept forks the
/// conversation as it was written, before the compaction (the client loads
/// it whole; the boundary's kept list would not be): the first turns, not
/// the summary.
#[test]
fn a_fork_among_kept_messages_forks_them_as_they_were_written() {
    let name = "summarize-up-to";
    let p = project(name);
    let (main, _) = original(name);
    let reply = files(name)
        .into_iter()
        .find(|(id, _)| *id == main)
        .unwrap()
        .1
        .into_iter()
        .find(|v| v["type"] == "assistant" && text(v).starts_with("Reply to: fourth"))
        .unwrap();
    let at = reply["uuid"].as_str().unwrap();
    let plan = fork::run(&ForkRequest {
        target: main,
        at: Some(at.into()),
        projects: Some(fixture(name)),
        dry_run: true,
        ..ForkRequest::default()
    })
    .unwrap();
    let g = &p.graph;
    let summary = |n: NodeId| g.entry(&p.entries, n).user_kind == UserKind::CompactSummary;
    assert!(plan.sources.iter().all(|s| !summary(g.index[s.uuid.as_str()])), "no summary");
    let first = g.entry(&p.entries, g.index[plan.sources[0].uuid.as_str()]);
    assert!(first.excerpt.starts_with("first: run"), "from the first prompt");
    assert_eq!(plan.checkpoint, at);
}

/// Every "fork here" the pages of the compaction archives show (their
/// checkpoints judged along the spliced line, among kept messages and after
/// them) is one `cctree fork` accepts, and its prefix holds the checkpoint's
/// whole loaded chain.
#[test]
fn every_fork_command_on_the_compaction_pages_forks() {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["summarize-up-to", "summarize-from", "compact"] {
        let out = tmp.path().join(name);
        let st = cctree().arg("render").arg(fixture(name)).arg("-o").arg(&out).arg("-q").status().unwrap();
        assert!(st.success());
        let mut ats = BTreeSet::new();
        for (path, bytes) in crate::render::files(&out) {
            if path.extension().is_some_and(|e| e == "html") {
                for cmd in crate::render::fork_commands_in(&String::from_utf8_lossy(&bytes)) {
                    if let Some(rest) = cmd.strip_prefix("cctree fork --at=") {
                        // `--at=<uuid> [--projects DIR] -- <session>` (a local site names its archive).
                        let (at, session) = rest.split_once(" -- ").unwrap();
                        let at = at.split(' ').next().unwrap();
                        ats.insert((at.to_string(), session.to_string()));
                    }
                }
            }
        }
        assert!(ats.len() > 10, "{name}: {} fork commands", ats.len());
        let p = project(name);
        for (at, session) in ats {
            let plan = fork::run(&ForkRequest {
                target: session,
                at: Some(at.clone()),
                projects: Some(fixture(name)),
                dry_run: true,
                ..ForkRequest::default()
            })
            .unwrap_or_else(|e| panic!("{name}: the page's fork at {at} is refused: {e:#}"));
            let copied: BTreeSet<&str> = plan.sources.iter().map(|s| s.uuid.as_str()).collect();
            for n in p.graph.loaded_chain(&p.entries, p.graph.index[at.as_str()]) {
                assert!(copied.contains(p.graph.uuid(&p.entries, n)), "{name}: the fork at {at} lacks its chain");
            }
        }
    }
}

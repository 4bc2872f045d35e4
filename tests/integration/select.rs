//! Selection: `--project`, `--conversation`, `--since`, `--until`
//! for `render`, `stats` and `check`.
//!
//! - A filtered render holds exactly the selected conversations: each one's
//!   pages are byte-identical to the same pages of the whole site, and no
//!   byte of the output (pages, search index, render cache) holds a uuid,
//!   session id, agent id, title, prompt or path of what was left out.
//! - `stats` and `check` count and report only the selected.
//! - The same selection gives the same bytes, with one thread or two, and an
//!   incremental render that changes the selection equals a fresh one.
//! - A selection matching nothing, or an id naming nothing, is an error.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use cctree::build::{BuildOptions, BuildSummary, build};
use cctree::discover;
use cctree::graph::{AgentId, ConversationId};
use cctree::project::Project;
use cctree::render::site::urls::{project_slugs, sanitize_segment};
use cctree::select::{Selection, Tally};
use serde_json::Value;

use crate::support::{cctree, example_archive, load, real_projects};

/// Every input the acceptance names: the bundled example, the vendored real
/// projects, each archive recorded from Claude Code 2.1.330, and the
/// compactions recorded from 2.1.332.
fn inputs() -> Vec<PathBuf> {
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/client-2.1.330");
    let mut v = vec![example_archive(), real_projects()];
    for f in ["bash-rewind", "print", "time-travel", "tui"] {
        v.push(client.join(f).join("projects"));
    }
    for f in ["summarize-up-to", "summarize-from", "compact"] {
        v.push(crate::compaction::fixture(f));
    }
    v
}

fn selection(projects: &[&str], conversations: &[&str], since: Option<&str>, until: Option<&str>) -> Selection {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    Selection::new(&s(projects), &s(conversations), since, until, &jiff::tz::TimeZone::UTC, "INPUT").expect("selection")
}

fn render(input: &Path, out: &Path, selection: Selection) -> anyhow::Result<BuildSummary> {
    let archive = discover::discover(&[input.to_path_buf()]).expect("discover");
    let opts = BuildOptions { output: out.to_path_buf(), page_size: 4, selection, ..BuildOptions::default() };
    build(archive, &opts)
}

/// Every file of a site, relative, with its bytes (the render cache too
/// when `cache`).
fn site_files(dir: &Path, cache: bool) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().strip_prefix(dir).unwrap().to_string_lossy().into_owned())
        .filter(|rel| cache || !rel.starts_with(".cctree-cache"))
        .map(|rel| {
            let bytes = std::fs::read(dir.join(&rel)).unwrap();
            (rel, bytes)
        })
        .collect()
}

/// What a project holds of one of its conversations and what not.
struct Split {
    /// Page directories of the kept conversation and the agents it spawned.
    dirs: Vec<String>,
    /// Strings of what is left out: node uuids, session ids, agent ids,
    /// titles, first prompts and message texts of the other conversations
    /// and of agents no kept conversation spawned.
    left_out: BTreeSet<String>,
}

/// Splits project `p` (published as `slug`) into conversation `c` and the
/// rest. (A project's only conversation keeps the whole project, with the
/// agents no conversation spawned.)
fn split(p: &Project, slug: &str, c: ConversationId) -> Split {
    let g = &p.graph;
    let e = &p.entries;
    let owners = g.agent_owners();
    let whole = g.conversations.len() == 1;
    let kept_agent = |a: AgentId| whole || owners[a] == Some(c);
    let kept_node = |node: &cctree::graph::Node| {
        if node.sidechain { node.agent.is_some_and(kept_agent) } else { node.conversation == Some(c) }
    };
    let conv = &g.conversations[c];
    let mut dirs = vec![format!("{slug}/c/{}/", sanitize_segment(g.uuid(e, conv.root)))];
    let mut left_out = BTreeSet::new();
    for (i, a) in g.agents.iter_enumerated() {
        if kept_agent(i) {
            dirs.push(format!("{slug}/agents/{}/", sanitize_segment(&a.agent_id)));
        } else {
            left_out.insert(a.agent_id.to_string());
        }
    }
    let mut kept_sessions = BTreeSet::new();
    for (n, node) in g.nodes.iter_enumerated() {
        if kept_node(node) {
            kept_sessions.insert(node.session);
        } else {
            left_out.insert(g.uuid(e, n).to_string());
            let entry = g.entry(e, n);
            // Message text a page would show as it is (no character that
            // HTML or JSON would write otherwise).
            let text = entry.excerpt.trim();
            if text.len() >= 24 && text.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == ' ') {
                left_out.insert(text.to_string());
            }
        }
    }
    kept_sessions.extend(conv.junctions.iter().map(|j| j.session));
    for (i, s) in g.sessions.iter_enumerated() {
        if !kept_sessions.contains(&i) {
            left_out.insert(s.session_id.to_string());
        }
    }
    for (_, other) in g.conversations.iter_enumerated().filter(|(i, _)| *i != c) {
        for t in [Some(&*other.title), other.first_prompt.as_deref()].into_iter().flatten() {
            // The words of a title as any page or index writes them.
            let plain: String = t.chars().take_while(|ch| ch.is_ascii_alphanumeric() || " ,.-".contains(*ch)).collect();
            if plain.len() >= 12 {
                left_out.insert(plain.chars().take(40).collect());
            }
        }
    }
    Split { dirs, left_out }
}

/// The strings of `left_out` that occur in any file of `site` (one search
/// for all of them per file).
fn traces(site: &BTreeMap<String, Vec<u8>>, left_out: &BTreeSet<String>) -> Vec<(String, String)> {
    let tokens: Vec<String> = left_out.iter().filter(|t| t.len() >= 6).map(|t| regex::escape(t)).collect();
    if tokens.is_empty() {
        return Vec::new();
    }
    let any = regex::bytes::RegexBuilder::new(&tokens.join("|")).size_limit(1 << 30).build().unwrap();
    let mut found = Vec::new();
    for (rel, bytes) in site {
        for m in any.find_iter(bytes) {
            found.push((rel.clone(), String::from_utf8_lossy(m.as_bytes()).into_owned()));
        }
    }
    found
}

/// The strings of `left_out` that the kept pages of the whole site hold too
/// (a prompt two conversations share, a session both continue): they cannot
/// tell what was left out.
fn shared_with(pages: &BTreeMap<String, Vec<u8>>, left_out: &mut BTreeSet<String>) {
    left_out.retain(|t| !pages.values().any(|b| memchr::memmem::find(b, t.as_bytes()).is_some()));
}

/// The acceptance test of the selection: every conversation of every input,
/// rendered alone, is its pages of the whole site byte for byte, and no byte
/// of the filtered output — pages, indexes, search index, render cache —
/// holds anything of the other conversations and projects.
#[test]
fn each_conversation_alone_is_its_pages_of_the_whole_site_and_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for input in inputs() {
        let whole_dir = tmp.path().join("whole");
        let _ = std::fs::remove_dir_all(&whole_dir);
        render(&input, &whole_dir, Selection::default()).unwrap();
        let whole = site_files(&whole_dir, false);
        let projects = load(std::slice::from_ref(&input));
        let names: Vec<&str> = projects.iter().map(|p| p.source.name.as_str()).collect();
        let slugs = project_slugs(&names);
        for (pi, p) in projects.iter().enumerate() {
            for c in p.graph.conversations.ids() {
                let root = p.graph.uuid(&p.entries, p.graph.conversations[c].root).to_string();
                let out = tmp.path().join("part");
                let _ = std::fs::remove_dir_all(&out);
                // (`--project` spares loading the other projects.)
                let only: &[&str] = if projects.len() > 4 { &[&p.source.name] } else { &[] };
                render(&input, &out, selection(only, &[&root], None, None)).unwrap();
                let part = site_files(&out, true);
                let Split { dirs, mut left_out } = split(p, &slugs[pi], c);
                // Other projects: their names and working directories.
                for (qi, q) in projects.iter().enumerate().filter(|(qi, _)| *qi != pi) {
                    left_out.insert(slugs[qi].clone());
                    left_out.extend(q.cwd().map(str::to_string));
                    for qc in q.graph.conversations.ids() {
                        left_out.extend(split(q, &slugs[qi], qc).left_out);
                    }
                    // (Everything of it: each split above keeps one conversation.)
                    for n in q.graph.nodes.ids() {
                        left_out.insert(q.graph.uuid(&q.entries, n).to_string());
                    }
                    left_out.extend(q.graph.sessions.iter().map(|s| s.session_id.to_string()));
                    left_out.extend(q.graph.agents.iter().map(|a| a.agent_id.to_string()));
                }
                let expected: BTreeMap<String, Vec<u8>> = whole
                    .iter()
                    .filter(|(rel, _)| dirs.iter().any(|d| rel.starts_with(d.as_str())))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                shared_with(&expected, &mut left_out);
                let index = format!("{}/index.html", slugs[pi]);
                let pages: Vec<&String> = part
                    .keys()
                    .filter(|rel| !rel.starts_with(".cctree") && !rel.starts_with("assets/"))
                    .filter(|rel| rel.as_str() != "index.html" && !rel.starts_with("search/") && **rel != index)
                    .collect();
                let want: Vec<&String> = expected.keys().collect();
                assert_eq!(pages, want, "{root}: the pages of the conversation and its agents, no other");
                for rel in pages {
                    assert!(part[rel] == whole[rel], "{root}: {rel} differs from the whole site's");
                }
                let found = traces(&part, &left_out);
                assert!(found.is_empty(), "{root}: left-out strings in the output: {found:?}");
                let totals = String::from_utf8_lossy(&part["index.html"]).into_owned();
                let real = !p.graph.conversations[c].is_fragment;
                let conv = &p.graph.conversations[c];
                let n = |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
                let want = format!(
                    "1 project · {} · {} · {}",
                    n(usize::from(real), "conversation", "conversations"),
                    n(if real { conv.branches.len() } else { 0 }, "branch", "branches"),
                    n(if real { conv.fork_points.len() } else { 0 }, "fork", "forks")
                );
                assert!(totals.contains(&want), "{root}: archive totals {want:?}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 30, "{checked} conversations checked");
}

/// `stats` and `check` see the same selection as `render`: a conversation's
/// counts are its own, and the conversations of a project add up to it
/// (less the agents no conversation spawned).
#[test]
fn stats_of_each_conversation_add_up_to_the_project() {
    for input in inputs() {
        for p in load(std::slice::from_ref(&input)) {
            let g = &p.graph;
            if g.conversations.len() < 2 {
                continue;
            }
            let whole = cctree::stats::project_counts(&p);
            let owners = g.agent_owners();
            let orphan_nodes: u64 =
                g.agents.iter().zip(&owners).filter(|(_, o)| o.is_none()).map(|(a, _)| a.nodes.len() as u64).sum();
            let (mut nodes, mut branches, mut forks, mut convs, mut agents) = (0, 0, 0, 0, 0);
            for c in &g.conversations {
                let root = g.uuid(&p.entries, c.root).to_string();
                let sel = selection(&[], &[&root], None, None);
                let reloaded = Project::load(p.source.clone());
                let picked = sel.pick(reloaded, &mut Tally::default()).expect("selected").into_project();
                let counts = cctree::stats::project_counts(&picked);
                assert_eq!(picked.graph.conversations.len(), 1, "{root}");
                assert_eq!(counts.conversations, u64::from(!c.is_fragment), "{root}");
                assert_eq!(counts.fork_points, if c.is_fragment { 0 } else { c.fork_points.len() as u64 });
                nodes += counts.nodes;
                branches += counts.branches;
                forks += counts.fork_points;
                convs += counts.conversations;
                agents += counts.agents;
                assert!(counts.entries <= whole.entries && counts.files <= whole.files);
            }
            let name = &p.source.name;
            assert_eq!(nodes + orphan_nodes, whole.nodes, "{name}: nodes");
            assert_eq!((branches, forks, convs), (whole.branches, whole.fork_points, whole.conversations), "{name}");
            assert_eq!(agents + owners.iter().filter(|o| o.is_none()).count() as u64, whole.agents, "{name}");
        }
    }
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = cctree().args(args).env("TZ", "UTC").output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(args: &[&str]) -> Value {
    let (code, stdout, stderr) = run(args);
    assert!(code == 0 || code == 1, "{args:?}: {stderr}");
    serde_json::from_str(&stdout).unwrap()
}

/// The command line: `stats --json` and `check --json` count only the
/// selected; `stats --detail` lists only it.
#[test]
fn stats_and_check_honour_the_selection() {
    let real = real_projects();
    let real = real.to_str().unwrap();
    let all = json(&["stats", real, "--json", "--detail"]);
    let project = &all["projects_detail"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["conversations"].as_array().unwrap().len() > 4)
        .unwrap();
    let name = project["name"].as_str().unwrap();
    let conv = &project["conversations"][1];
    let root = conv["root"].as_str().unwrap();
    let one = json(&["stats", real, "--json", "--detail", "--conversation", root]);
    assert_eq!(one["projects"], 1);
    assert_eq!(one["conversations"], 1);
    assert_eq!(one["branches"].as_u64().unwrap(), conv["branches"].as_array().unwrap().len() as u64);
    let listed = &one["projects_detail"][0]["conversations"];
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert_eq!(listed[0], *conv, "the conversation reads as in the whole project");
    let by_project = json(&["stats", real, "--json", "--project", name]);
    assert_eq!(by_project["projects"], 1);
    for key in ["nodes", "lines", "entries", "files", "branches", "fork_points"] {
        assert_eq!(by_project[key], project[key], "{key}");
    }
    // (`--detail` lists conversations and agents under the names that count them.)
    for key in ["conversations", "agents"] {
        assert_eq!(by_project[key].as_u64(), Some(project[key].as_array().unwrap().len() as u64), "{key}");
    }
}

/// Two sessions, each a conversation, each with its own problems.
fn two_troubled_conversations(dir: &Path) -> PathBuf {
    let project = dir.join("projects/-tmp-trouble");
    std::fs::create_dir_all(&project).unwrap();
    let line = |session: &str, uuid: &str, parent: Option<&str>, ts: &str, message: Value| {
        let role = message["role"].as_str().unwrap().to_string();
        serde_json::json!({"type": role, "uuid": uuid, "parentUuid": parent, "sessionId": session, "timestamp": ts,
            "cwd": "/tmp/trouble", "isSidechain": false, "message": message})
        .to_string()
    };
    let a = "aaaaaaaa-0000-4000-8000-000000000000";
    let call = serde_json::json!({"role": "assistant", "id": "msg_a", "content": [
        {"type": "text", "text": "Running it"}, {"type": "tool_use", "id": "toolu_a", "name": "Bash", "input": {"command": "ls"}}]});
    let file_a = [
        line(
            a,
            "a0000000-0000-4000-8000-000000000001",
            None,
            "2025-06-01T10:00:00Z",
            serde_json::json!({"role": "user", "content": "Question A"}),
        ),
        line(
            a,
            "a0000000-0000-4000-8000-000000000002",
            Some("a0000000-0000-4000-8000-000000000001"),
            "2025-06-01T10:00:01Z",
            call,
        ),
    ];
    std::fs::write(project.join(format!("{a}.jsonl")), file_a.join("\n") + "\n").unwrap();
    let b = "bbbbbbbb-0000-4000-8000-000000000000";
    let file_b = [
        line(
            b,
            "b0000000-0000-4000-8000-000000000001",
            None,
            "2025-06-02T10:00:00Z",
            serde_json::json!({"role": "user", "content": "Question B"}),
        ),
        line(
            b,
            "b0000000-0000-4000-8000-000000000002",
            Some("b0000000-0000-4000-8000-000000000001"),
            "2025-06-02T10:00:01Z",
            serde_json::json!({"role": "assistant", "id": "msg_b", "content": [{"type": "text", "text": "Answer B"}]}),
        ),
        serde_json::json!({"type": "future-thing", "sessionId": b, "payload": 1}).to_string(),
        "{\"type\": \"user\", \"uuid\": \"b0000000-torn".to_string(),
    ];
    std::fs::write(project.join(format!("{b}.jsonl")), file_b.join("\n") + "\n").unwrap();
    project
}

/// `check` reports only what is about the selected conversations: the
/// lines, entries and tool calls of their sessions.
#[test]
fn check_reports_only_the_selected() {
    let tmp = tempfile::tempdir().unwrap();
    let project = two_troubled_conversations(tmp.path());
    let input = project.to_str().unwrap();
    let kinds = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["check", input, "--json"];
        all.extend(args);
        let v = json(&all);
        let mut k: Vec<String> =
            v["findings"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap().to_string()).collect();
        k.sort();
        k
    };
    assert_eq!(kinds(&[]), ["P3-tool-use-without-result", "malformed-line", "unknown-type"]);
    assert_eq!(kinds(&["--conversation", "aaaaaaaa-0000-4000-8000-000000000000"]), ["P3-tool-use-without-result"]);
    assert_eq!(kinds(&["--conversation", "b0000000-0000-4000-8000-000000000002"]), ["malformed-line", "unknown-type"]);
    assert_eq!(kinds(&["--since", "2025-06-02"]), ["malformed-line", "unknown-type"]);
    let (code, out, _) = run(&["check", input, "--conversation", "a0000000-0000-4000-8000-000000000001"]);
    assert_eq!(code, 1);
    assert!(!out.contains("bbbbbbbb"), "{out}");
    let stats = json(&["stats", input, "--json", "--conversation", "a0000000-0000-4000-8000-000000000001"]);
    assert_eq!(
        (stats["files"].as_u64(), stats["lines"].as_u64(), stats["bad_lines"].as_u64()),
        (Some(1), Some(2), Some(0))
    );
}

/// The same selection gives the same bytes, cache included, whatever the
/// thread count.
#[test]
fn a_filtered_render_is_the_same_bytes_with_one_thread_or_two() {
    let tmp = tempfile::tempdir().unwrap();
    let real = real_projects();
    let p = load(std::slice::from_ref(&real)).into_iter().find(|p| p.graph.conversations.len() > 4).unwrap();
    let root = p.graph.uuid(&p.entries, p.graph.conversations.as_slice()[2].root).to_string();
    let mut sites = Vec::new();
    for (i, j) in ["1", "2", "2"].iter().enumerate() {
        let out = tmp.path().join(format!("s{i}"));
        let (code, _, err) =
            run(&["-j", j, "render", real.to_str().unwrap(), "-o", out.to_str().unwrap(), "--conversation", &root]);
        assert_eq!(code, 0, "{err}");
        sites.push(site_files(&out, true));
    }
    assert!(sites[0].len() > 4);
    assert_eq!(sites[0], sites[1], "-j 1 and -j 2");
    assert_eq!(sites[1], sites[2], "two runs");
}

/// Changing the selection between renders into one directory gives what a
/// fresh render of the new selection gives; an unchanged selection of
/// unchanged files writes nothing; a project kept in part keeps no parse
/// cache (it would hold the rest).
#[test]
fn an_incremental_render_follows_the_selection() {
    let tmp = tempfile::tempdir().unwrap();
    let input = real_projects();
    let p = load(std::slice::from_ref(&input)).into_iter().find(|p| p.graph.conversations.len() > 4).unwrap();
    let root = |c: usize| p.graph.uuid(&p.entries, p.graph.conversations.as_slice()[c].root).to_string();
    let (a, b) = (root(0), root(3));
    let site = tmp.path().join("site");
    let steps: Vec<(&str, Selection)> = vec![
        ("a", selection(&[], &[&a], None, None)),
        ("b", selection(&[], &[&b], None, None)),
        ("a and b", selection(&[], &[&a, &b], None, None)),
        ("everything", Selection::default()),
        ("its project", selection(&[&p.source.name], &[], None, None)),
        ("a again", selection(&[], &[&a], None, None)),
    ];
    for (what, sel) in steps {
        render(&input, &site, sel.clone()).unwrap();
        let fresh = tmp.path().join("fresh");
        let _ = std::fs::remove_dir_all(&fresh);
        render(&input, &fresh, sel.clone()).unwrap();
        assert_eq!(site_files(&site, false), site_files(&fresh, false), "{what}: as a fresh render");
        let again = render(&input, &site, sel).unwrap();
        assert_eq!(again.files_written, 0, "{what}: nothing changed, nothing written");
    }
    // The last render selected one conversation of a project: no parse cache.
    let parse = site.join(".cctree-cache/parse");
    let caches = std::fs::read_dir(&parse).map_or(0, |d| d.count());
    assert_eq!(caches, 0, "a project kept in part keeps no parse cache");
}

/// `--project` matches the directory name, the working directory, or its
/// last part; globs with `*` cross `/`.
#[test]
fn project_globs_match_names_and_working_directories() {
    let projects = discover::discover(&[example_archive()]).unwrap().projects;
    let picked = |globs: &[&str]| -> Vec<String> {
        let sel = selection(globs, &[], None, None);
        projects.iter().filter(|p| sel.wants(p)).map(|p| p.name.clone()).collect()
    };
    let notes = vec!["-home-alice-notes".to_string()];
    let weather = vec!["-home-alice-src-weather-cli".to_string()];
    assert_eq!(picked(&["-home-alice-notes"]), notes, "the directory name");
    assert_eq!(picked(&["/home/alice/notes"]), notes, "the working directory");
    assert_eq!(picked(&["notes"]), notes, "its last part");
    assert_eq!(picked(&["*/src/*"]), weather, "a glob over the working directory");
    assert_eq!(picked(&["*weather*"]), weather);
    assert_eq!(picked(&["notes", "weather-cli"]).len(), 2, "repeated: any of them");
    assert!(picked(&["alice"]).is_empty());
    assert!(picked(&["-home-alice"]).is_empty(), "a glob matches whole names");
}

/// `--conversation` takes a root uuid, a session id (also of a session that
/// continues the conversation in another file), or any message uuid,
/// a sub-agent's included.
#[test]
fn conversation_ids_name_a_conversation_in_every_way() {
    let p = load(&[example_archive()]).into_iter().find(|p| p.source.name.contains("weather")).unwrap();
    let g = &p.graph;
    let c = &g.conversations.as_slice()[0];
    let root = g.uuid(&p.entries, c.root).to_string();
    let sessions: Vec<String> = c.sessions.iter().map(|s| g.sessions[*s].session_id.to_string()).collect();
    assert!(sessions.len() >= 2, "a resume into a second file");
    let reply = g.uuid(&p.entries, *g.branches[c.branches[1]].nodes.last().unwrap()).to_string();
    let agent_node = g.uuid(&p.entries, g.agents.as_slice()[0].nodes[1]).to_string();
    for id in [&root, &sessions[0], &sessions[1], &reply, &agent_node] {
        let sel = selection(&[], &[id], None, None);
        let mut tally = Tally::default();
        let picked = sel.pick(Project::load(p.source.clone()), &mut tally).expect(id);
        assert_eq!(picked.project().graph.conversations.len(), 1, "{id}");
        assert!(tally.matched.contains(id.as_str()));
        sel.finish(&tally).unwrap();
    }
}

/// Without a selection nothing is asked for: an archive without a project
/// (empty, or only begun by a sync that was killed) is an empty report and an
/// empty site, not "no project matches"; a selection in it still is an error.
#[test]
fn an_archive_without_projects_is_no_error_without_a_selection() {
    let tmp = tempfile::tempdir().unwrap();
    let arch = tmp.path().join("projects");
    std::fs::create_dir_all(arch.join(".cctree-sync")).unwrap();
    let a = arch.to_str().unwrap();
    let out = tmp.path().join("site");
    let o = out.to_str().unwrap();
    for args in [&["stats", a][..], &["stats", "--json", a], &["check", a], &["render", a, "-o", o]] {
        let (code, _, err) = run(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(!err.contains("matches"), "{args:?}: {err}");
    }
    assert!(out.join("index.html").is_file());
    let (code, _, err) = run(&["stats", a, "--project", "x"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no project matches --project x"), "{err}");
}

/// What matches nothing is an error naming what was asked, with a hint; the
/// output is not touched.
#[test]
fn a_selection_of_nothing_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let example = example_archive();
    let ex = example.to_str().unwrap();
    let out = tmp.path().join("site");
    let o = out.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["--conversation", "no-such-id"], "--conversation no-such-id: no conversation, session or message"),
        (&["--project", "nothing-here"], "no project matches --project nothing-here"),
        (&["--since", "2099-01-01"], "no conversation matches --since 2099-01-01 (from 2099-01-01 00:00:00+00"),
        (&["--until", "2000-01-01"], "no conversation matches --until 2000-01-01"),
        (&["--since", "yesterday"], "\"yesterday\" is not a date: give YYYY-MM-DD"),
        (&["--since", "2025-06-02", "--until", "2025-06-01"], "is not before --until"),
        (&["--project", "[oops"], "--project \"[oops\" is not a valid pattern"),
        (
            &["--project", "notes", "--conversation", "5e5510a1-0000-4000-8000-0000000000a1"],
            "in the projects --project notes selects",
        ),
    ];
    for (args, message) in cases {
        for cmd in ["render", "stats", "check"] {
            let mut all = vec![cmd, ex];
            if cmd == "render" {
                all.extend(["-o", o]);
            }
            all.extend(args.iter());
            let (code, _, err) = run(&all);
            assert_eq!(code, 2, "{all:?}: {err}");
            assert!(err.contains(message), "{all:?}: {err}");
            if !err.contains("not a date") && !err.contains("valid pattern") && !err.contains("not before") {
                assert!(err.contains("hint: `cctree stats "), "{all:?}: {err}");
            }
            assert!(!out.exists(), "{all:?}: nothing written");
        }
    }
    // A message of a sub-agent no conversation spawned says so.
    let real = real_projects();
    let p = load(std::slice::from_ref(&real)).into_iter().find(|p| p.graph.conversations.len() > 4).unwrap();
    let owners = p.graph.agent_owners();
    let orphan = p.graph.agents.iter().zip(&owners).find(|(_, o)| o.is_none()).expect("an orphan agent").0;
    let id = p.graph.uuid(&p.entries, orphan.nodes[0]);
    let (code, _, err) = run(&["stats", real.to_str().unwrap(), "--conversation", id]);
    assert_eq!(code, 2);
    assert!(err.contains("a message of a sub-agent transcript that no conversation spawned"), "{err}");
    // An id the dates leave out says so.
    let (code, _, err) =
        run(&["stats", ex, "--conversation", "5e5510a1-0000-4000-8000-0000000000a1", "--until", "2001-01-01"]);
    assert_eq!(code, 2);
    assert!(err.contains("its conversation was last active"), "{err}");
}

/// A bare date is a day in local time (TZ): the same `--since` selects
/// differently in two time zones; an RFC 3339 time is an instant.
#[test]
fn bare_dates_are_local_days() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("projects/-tmp-dates");
    std::fs::create_dir_all(&project).unwrap();
    // Two conversations: last active 2025-06-01 23:30 UTC (June 2nd in
    // Berlin) and 2025-06-02 12:00 UTC.
    for (n, ts) in [(1, "2025-06-01T23:30:00.000Z"), (2, "2025-06-02T12:00:00.000Z")] {
        let session = format!("00000000-0000-4000-8000-00000000000{n}");
        let prompt = serde_json::json!({"type": "user", "uuid": format!("10000000-0000-4000-8000-00000000000{n}"),
            "parentUuid": null, "sessionId": session, "timestamp": ts, "cwd": "/tmp/dates", "isSidechain": false,
            "message": {"role": "user", "content": format!("Question number {n}")}});
        let reply = serde_json::json!({"type": "assistant", "uuid": format!("20000000-0000-4000-8000-00000000000{n}"),
            "parentUuid": format!("10000000-0000-4000-8000-00000000000{n}"), "sessionId": session, "timestamp": ts,
            "cwd": "/tmp/dates", "isSidechain": false, "message": {"role": "assistant", "id": format!("msg_{n}"),
            "content": [{"type": "text", "text": format!("Answer number {n}")}]}});
        std::fs::write(project.join(format!("{session}.jsonl")), format!("{prompt}\n{reply}\n")).unwrap();
    }
    let input = project.to_str().unwrap();
    let count = |tz: &str, args: &[&str]| -> Option<u64> {
        let mut all = vec!["stats", input, "--json"];
        all.extend(args);
        let out = cctree().args(&all).env("TZ", tz).output().unwrap();
        out.status
            .success()
            .then(|| serde_json::from_slice::<Value>(&out.stdout).unwrap()["conversations"].as_u64().unwrap())
    };
    let berlin = "CET-1CEST,M3.5.0,M10.5.0/3";
    assert_eq!(count("UTC", &["--since", "2025-06-02"]), Some(1));
    assert_eq!(count(berlin, &["--since", "2025-06-02"]), Some(2));
    assert_eq!(count("UTC", &["--until", "2025-06-01"]), Some(1), "through the end of the day");
    assert_eq!(count(berlin, &["--until", "2025-06-01"]), None, "nothing on June 1st in Berlin");
    assert_eq!(count(berlin, &["--since", "2025-06-01T23:30:00Z"]), Some(2), "an instant, inclusive");
    assert_eq!(count(berlin, &["--until", "2025-06-01T23:30:00Z"]), Some(1), "an instant, inclusive");
    assert_eq!(count(berlin, &["--since", "2025-06-02T12:00"]), Some(1), "local 12:00 is 10:00 UTC");
    assert_eq!(count("UTC", &["--since", "2025-06-02T12:00:00.001Z"]), None);
}

/// Dates and projects together select what matches all of them; a date
/// range that keeps every conversation of a project keeps it whole, its
/// index page as in the whole site.
#[test]
fn a_range_keeping_everything_is_the_whole_site() {
    let tmp = tempfile::tempdir().unwrap();
    let input = example_archive();
    let (whole, part) = (tmp.path().join("whole"), tmp.path().join("part"));
    render(&input, &whole, Selection::default()).unwrap();
    render(&input, &part, selection(&[], &[], Some("2000-01-01"), Some("2099-12-31"))).unwrap();
    assert_eq!(site_files(&whole, false), site_files(&part, false));
    let only = tmp.path().join("only");
    render(&input, &only, selection(&["*weather*"], &[], Some("2000-01-01"), None)).unwrap();
    let files = site_files(&only, true);
    assert!(files.keys().any(|k| k.starts_with("-home-alice-src-weather-cli/")));
    assert!(!files.keys().any(|k| k.contains("notes")));
    let notes = load(&[input]).into_iter().find(|p| p.source.name.contains("notes")).unwrap();
    let first = &notes.graph.conversations.as_slice()[0];
    let root = notes.graph.uuid(&notes.entries, first.root).to_string();
    let session = notes.graph.sessions[first.sessions[0]].session_id.to_string();
    let left_out = BTreeSet::from([root, session, "/home/alice/notes".to_string()]);
    assert_eq!(traces(&files, &left_out), Vec::<(String, String)>::new());
}

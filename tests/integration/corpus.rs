//! The model on real archives and on the DAG fixtures of the shared corpus.
//!
//! Explicit assertions name the facts that matter (the one real rewind, the
//! artifacts that are not forks, the cross-file summaries); snapshots pin the
//! exact conversations, fork points and branches of every project.

use std::fmt::Write;
use std::path::PathBuf;

use cctree::stats::{ConversationDetail, ProjectDetail};

use crate::support::{corpus, example_archive, real_projects, report};

/// A readable outline of a project's model, for snapshots.
fn outline(p: &ProjectDetail) -> String {
    let mut s = String::new();
    let c = &p.counts;
    writeln!(
        s,
        "nodes {} roots {} leaves {} multi-child {} forks {} conversations {} branches {} sidechain {} agents {} dups {} summaries {}/{} compactions {}",
        c.nodes, c.roots, c.leaves, c.multi_child_nodes, c.fork_points, c.conversations, c.branches,
        c.sidechain_nodes, c.agents, c.duplicate_uuids, c.summaries_attached, c.summaries, c.compactions
    )
    .unwrap();
    for conv in &p.conversations {
        conversation(&mut s, conv);
    }
    for a in &p.agents {
        writeln!(s, "agent {} {} nodes {} spawn {:?}", a.id, a.kind, a.nodes, a.spawn_tool_use).unwrap();
    }
    s
}

fn conversation(s: &mut String, c: &ConversationDetail) {
    let title: String = c.title.chars().take(50).collect();
    writeln!(s, "conversation {} ({} messages) sessions {:?} title {title:?}", c.root, c.messages, c.sessions).unwrap();
    for f in &c.fork_points {
        writeln!(s, "  fork {} {} -> {:?}", f.uuid, f.kind, f.children).unwrap();
    }
    for b in &c.branches {
        let title: String = b.title.chars().take(40).collect();
        let active = if b.id == c.active_branch { " (active)" } else { "" };
        writeln!(
            s,
            "  branch {} leaf {} from {:?} messages {}{active} {title:?}",
            b.id, b.leaf, b.fork_point, b.messages
        )
        .unwrap();
    }
}

fn project(name: &str) -> ProjectDetail {
    let r = report(&[real_projects().join(name)]);
    r.projects_detail.unwrap().into_iter().next().expect("one project")
}

#[test]
fn the_one_real_rewind_in_experiments_ideas() {
    let p = project("-experiments-ideas");
    assert_eq!(p.counts.fork_points, 1);
    assert_eq!(p.conversations.len(), 1);
    let c = &p.conversations[0];
    let f = &c.fork_points[0];
    // A stop_hook_summary with two opposite prompts 35 minutes apart.
    assert_eq!(f.uuid, "eb84e3ee-fc54-4fe4-ad76-badc5ebb4671");
    assert_eq!(f.kind, "rewind");
    assert_eq!(f.children, ["5270777a-1975-4e8a-9cad-b36280ae0ec5", "9edc38e6-0ac0-42c0-b911-e24611af2a5b"]);
    assert_eq!(c.branches.len(), 2);
    assert_eq!(c.branches[1].id, "9edc38e6-0ac0-42c0-b911-e24611af2a5b");
    assert_eq!(c.branches[1].fork_point.as_deref(), Some(f.uuid.as_str()));
    assert!(c.branches[1].title.starts_with("I actually don't like much this idea"));
    // The later attempt is where the session ended.
    assert_eq!(c.active_branch, c.branches[1].id);
    // Parallel tool calls and hooks in the same session are not forks.
    assert!(p.counts.multi_child_nodes > 1);
}

#[test]
fn artifacts_in_experiments_worktrees_are_not_forks() {
    let p = project("-experiments-worktrees");
    assert!(p.counts.multi_child_nodes >= 10, "parallel tool calls, hooks and progress side chains");
    assert_eq!(p.counts.fork_points, 0);
    assert_eq!(p.conversations.len(), 1);
    assert_eq!(p.conversations[0].branches.len(), 1);
    assert!(p.counts.agents >= 6, "sub-agents under <session>/subagents/");
}

#[test]
fn cross_file_summaries_attach_to_their_leaves() {
    let p = project("-Users-dain-workspace-danieldemmel-me-next");
    assert_eq!(p.counts.summaries, 3);
    assert_eq!(p.counts.summaries_attached, 3);
    let titled: Vec<&str> = p
        .conversations
        .iter()
        .filter(|c| c.branches[0].title == c.title && c.title.chars().next().is_some_and(char::is_uppercase))
        .map(|c| c.title.as_str())
        .collect();
    for t in [
        "HTML Ruby Tokenizer Conversion for Better Browser Support",
        "Tokenizer App Documentation: Technical Details and Usage",
        "CSS Details Margin Styling",
    ] {
        assert!(titled.contains(&t), "{t:?} not among {titled:?}");
    }
}

#[test]
fn copied_caveats_of_1_0_sessions_do_not_make_forks() {
    // Three 1.0.55 sessions share one copied local-command caveat as their root.
    let p = project("-Users-dain-workspace-claude-code-log-sample");
    assert_eq!(p.counts.fork_points, 0);
    assert_eq!(p.counts.duplicate_uuids, 1);
    assert_eq!(p.conversations.len(), 12);
    assert_eq!(p.counts.summaries, 33);
    assert_eq!(p.counts.summaries_attached, 1);
}

#[test]
fn every_real_project_snapshot() {
    let mut names: Vec<String> = std::fs::read_dir(real_projects())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 8);
    for name in names {
        let p = project(&name);
        insta::assert_snapshot!(format!("real_{}", name.trim_start_matches('-')), outline(&p));
    }
}

#[test]
fn dag_fixtures() {
    let c = corpus();
    let cases: &[(&str, &[&str])] = &[
        ("dag_simple", &["dag_simple.jsonl"]),
        ("dag_fork", &["dag_fork.jsonl"]),
        ("dag_within_fork", &["dag_within_fork.jsonl"]),
        ("dag_resume", &["dag_resume.jsonl"]),
        ("dag_cycle", &["dag_cycle.jsonl"]),
        ("dag_compact_after_rewind", &["dag_compact_after_rewind.jsonl"]),
        ("dag_compact_after_rewind_preserved", &["dag_compact_after_rewind_preserved.jsonl"]),
        ("dedup", &["dedup_main.jsonl", "dedup_agent.jsonl"]),
        ("sidechain", &["sidechain.jsonl"]),
        ("sidechain_pair", &["sidechain_main.jsonl", "sidechain_agent.jsonl"]),
        ("task_id_linking", &["task_id_linking.jsonl"]),
        ("task_id_linking_cross_session", &["task_id_linking_cross_session.jsonl"]),
        ("task_id_linking_poison", &["task_id_linking_poison.jsonl"]),
        ("task_id_linking_real_world_bash", &["task_id_linking_real_world_bash.jsonl"]),
    ];
    for (name, files) in cases {
        let inputs: Vec<PathBuf> = files.iter().map(|f| c.join(f)).collect();
        let r = report(&inputs);
        let p = &r.projects_detail.as_ref().unwrap()[0];
        insta::assert_snapshot!(format!("fixture_{name}"), outline(p));
    }
}

#[test]
fn fixture_shapes() {
    let c = corpus();
    let detail = |files: &[&str]| {
        let inputs: Vec<PathBuf> = files.iter().map(|f| c.join(f)).collect();
        report(&inputs).projects_detail.unwrap().remove(0)
    };
    // Session s3 branches from c, the middle of s1's line: a cross-session fork.
    let p = detail(&["dag_fork.jsonl"]);
    assert_eq!(p.conversations[0].fork_points[0].uuid, "c");
    assert_eq!(p.conversations[0].fork_points[0].kind, "cross-session");
    // A resume from the leaf is a continuation, not a fork.
    let p = detail(&["dag_resume.jsonl"]);
    assert_eq!(p.counts.fork_points, 0);
    assert_eq!(p.conversations[0].sessions.len(), 2);
    // Compaction after a rewind continues the branch it was on, including when
    // the preserved tail was re-parented under the summary.
    for f in ["dag_compact_after_rewind.jsonl", "dag_compact_after_rewind_preserved.jsonl"] {
        let p = detail(&[f]);
        assert_eq!(p.conversations.len(), 1, "{f}");
        let b = &p.conversations[0].branches[1];
        assert_eq!((b.id.as_str(), b.leaf.as_str()), ("b2u", "p1a"), "{f}");
    }
    // An agent file next to its main file is one agent transcript, not a conversation.
    let p = detail(&["dedup_main.jsonl", "dedup_agent.jsonl"]);
    assert_eq!((p.counts.conversations, p.counts.agents), (1, 1));
}

#[test]
fn example_archive_model() {
    let r = report(&[example_archive()]);
    let d = r.projects_detail.unwrap();
    let weather = d.iter().find(|p| p.name == "-home-alice-src-weather-cli").unwrap();
    assert_eq!(weather.cwd.as_deref(), Some("/home/alice/src/weather-cli"));
    assert_eq!(weather.conversations.len(), 1, "the resume continues the conversation");
    let c = &weather.conversations[0];
    assert_eq!(c.sessions.len(), 2);
    let forks: Vec<(&str, Vec<&str>)> =
        c.fork_points.iter().map(|f| (f.uuid.as_str(), f.children.iter().map(String::as_str).collect())).collect();
    assert_eq!(
        forks,
        [
            (
                "a1000000-0000-4000-8000-000000000029",
                vec!["a1f1b100-0000-4000-8000-000000000001", "a1f1b200-0000-4000-8000-000000000001"]
            ),
            (
                "a1f1b200-0000-4000-8000-000000000005",
                vec!["a1f2b100-0000-4000-8000-000000000001", "a1f2b200-0000-4000-8000-000000000001"]
            ),
        ]
    );
    assert_eq!(c.active_branch, "a1f2b200-0000-4000-8000-000000000001");
    assert_eq!(c.title, "weather-cli: retries + cache", "custom-title of the active session wins");
    assert_eq!(weather.counts.summaries_attached, 2);
    assert_eq!(weather.counts.compactions, 1);
    assert_eq!(weather.agents.len(), 1);
    assert_eq!(weather.agents[0].spawn_tool_use.as_deref(), Some("toolu_01a1f1b20000000000000003"));
    let notes = d.iter().find(|p| p.name == "-home-alice-notes").unwrap();
    assert_eq!(notes.counts.fork_points, 0);
    insta::assert_snapshot!("example_weather", outline(weather));
}

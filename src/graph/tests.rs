//! Unit tests of the graph on small hand-made shapes (transcript-format §6.7).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::*;
use crate::model::FileClass;
use crate::model::Loc;
use crate::parse::parse_line;

/// A tiny transcript builder: each line is (file index, JSON).
#[derive(Default)]
struct T {
    lines: Vec<(u32, Value)>,
    classes: Vec<FileClass>,
    /// Files that are previous versions kept by `cctree sync`.
    kept: Vec<u32>,
}

fn ts(sec: u32) -> String {
    format!("2025-07-01T10:{:02}:{:02}.000Z", sec / 60, sec % 60)
}

impl T {
    fn new() -> T {
        T { lines: Vec::new(), classes: vec![FileClass::Main, FileClass::Main, FileClass::Subagent], kept: Vec::new() }
    }
    fn raw(&mut self, file: u32, v: Value) -> &mut Self {
        self.lines.push((file, v));
        self
    }
    fn user(&mut self, s: &str, uuid: &str, parent: Option<&str>, sec: u32, text: &str) -> &mut Self {
        self.raw(
            0,
            json!({"type":"user","sessionId":s,"uuid":uuid,"parentUuid":parent,"timestamp":ts(sec),
            "message":{"role":"user","content":text}}),
        )
    }
    fn reply(&mut self, s: &str, uuid: &str, parent: &str, sec: u32, msg: &str, block: Value) -> &mut Self {
        self.raw(
            0,
            json!({"type":"assistant","sessionId":s,"uuid":uuid,"parentUuid":parent,"timestamp":ts(sec),
            "message":{"id":msg,"model":"claude","role":"assistant","content":[block]}}),
        )
    }
    fn text(&mut self, s: &str, uuid: &str, parent: &str, sec: u32) -> &mut Self {
        self.reply(s, uuid, parent, sec, &format!("msg_{uuid}"), json!({"type":"text","text":"ok"}))
    }
    fn tool_use(&mut self, s: &str, uuid: &str, parent: &str, sec: u32, msg: &str, id: &str) -> &mut Self {
        self.reply(s, uuid, parent, sec, msg, json!({"type":"tool_use","id":id,"name":"Bash","input":{}}))
    }
    fn result(&mut self, s: &str, uuid: &str, parent: &str, sec: u32, id: &str) -> &mut Self {
        self.raw(
            0,
            json!({"type":"user","sessionId":s,"uuid":uuid,"parentUuid":parent,"timestamp":ts(sec),
            "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":id,"content":"done"}]}}),
        )
    }
    fn system(&mut self, s: &str, uuid: &str, parent: Option<&str>, sec: u32, subtype: &str) -> &mut Self {
        self.raw(
            0,
            json!({"type":"system","subtype":subtype,"sessionId":s,"uuid":uuid,"parentUuid":parent,
            "timestamp":ts(sec),"content":subtype}),
        )
    }

    fn build(&self) -> (Entries, Graph) {
        let entries: Entries = self
            .lines
            .iter()
            .enumerate()
            .map(|(i, (f, v))| {
                let line = serde_json::to_string(v).unwrap();
                let loc = Loc { file: FileId::new(*f as usize).unwrap(), line: u32::try_from(i + 1).unwrap() };
                parse_line(crate::agent::CLAUDE, line.as_bytes(), loc, 0).0.unwrap()
            })
            .collect();
        let files: IdVec<FileId, FileFacts> = (0u32..)
            .zip(&self.classes)
            .map(|(i, c)| FileFacts { class: *c, kept_version: self.kept.contains(&i), ..FileFacts::default() })
            .collect();
        let g = Graph::build(&GraphInput {
            entries: &entries,
            files: &files,
            agent_meta: &BTreeMap::new(),
            session_titles: &BTreeMap::new(),
        });
        (entries, g)
    }
}

fn forks(e: &Entries, g: &Graph) -> Vec<(String, Vec<String>)> {
    g.conversations
        .iter()
        .flat_map(|c| &c.fork_points)
        .map(|f| (g.uuid(e, f.node).to_string(), f.children.iter().map(|c| g.uuid(e, *c).to_string()).collect()))
        .collect()
}

fn branch_ids(e: &Entries, g: &Graph) -> Vec<String> {
    g.conversations.iter().flat_map(|c| &c.branches).map(|b| g.uuid(e, g.branches[*b].first).to_string()).collect()
}

#[test]
fn real_rewind_is_a_fork_and_the_first_child_continues() {
    let mut t = T::new();
    t.user("s", "u1", None, 0, "start").text("s", "a1", "u1", 1);
    t.user("s", "u2", Some("a1"), 10, "first try").text("s", "a2", "u2", 11);
    t.user("s", "u3", Some("a1"), 100, "second try").text("s", "a3", "u3", 101);
    let (e, g) = t.build();
    assert_eq!(forks(&e, &g), [("a1".to_string(), vec!["u2".to_string(), "u3".to_string()])]);
    assert_eq!(branch_ids(&e, &g), ["u1", "u3"]);
    let main = &g.branches[g.conversations.as_slice()[0].branches[0]];
    assert_eq!(g.uuid(&e, main.leaf), "a2", "the earlier child continues the main branch");
    assert_eq!(g.uuid(&e, g.branches[g.conversations.as_slice()[0].active_branch].first), "u3");
    assert_eq!(main.messages, 4);
}

#[test]
fn parallel_tool_calls_are_not_forks() {
    // 2.1.1+: each result hangs off its own tool_use block.
    let mut t = T::new();
    t.user("s", "u1", None, 0, "go").tool_use("s", "a1", "u1", 1, "m1", "t1").tool_use("s", "a2", "a1", 2, "m1", "t2");
    t.result("s", "r1", "a1", 3, "t1").result("s", "r2", "a2", 4, "t2").text("s", "a3", "r2", 5);
    let (e, g) = t.build();
    assert!(forks(&e, &g).is_empty());
    assert_eq!(g.multi_child.total, 1);
    assert_eq!(g.multi_child.artifacts, 1);
    assert_eq!(g.child_roles[&g.index["r1"]], ChildRole::ToolTurn);
    let order: Vec<&str> = g.branches.as_slice()[0].nodes.iter().map(|n| g.uuid(&e, *n)).collect();
    assert_eq!(order, ["u1", "a1", "a2", "r1", "r2", "a3"]);
    assert_eq!(g.branches.as_slice()[0].messages, 3, "one prompt, two assistant turns");
}

#[test]
fn lagging_result_and_hooks_and_local_commands_are_artifacts() {
    let mut t = T::new();
    t.user("s", "u1", None, 0, "go").tool_use("s", "a1", "u1", 1, "m1", "t1").tool_use("s", "a2", "a1", 2, "m1", "t2");
    t.result("s", "r2", "a2", 3, "t2");
    t.result("s", "r1", "a1", 9, "t1").text("s", "a3", "r1", 10); // the slow result carries on
    t.system("s", "h1", Some("a3"), 11, "turn_duration");
    t.raw(
        0,
        json!({"type":"user","sessionId":"s","uuid":"c1","parentUuid":"a3","timestamp":ts(20),
        "message":{"role":"user","content":"<command-name>/cost</command-name>"}}),
    );
    t.raw(
        0,
        json!({"type":"user","sessionId":"s","uuid":"c2","parentUuid":"c1","timestamp":ts(21),
        "message":{"role":"user","content":"<local-command-stdout>$0.10</local-command-stdout>"}}),
    );
    t.user("s", "u2", Some("a3"), 30, "next").text("s", "a4", "u2", 31);
    let (e, g) = t.build();
    assert!(forks(&e, &g).is_empty(), "{:?}", forks(&e, &g));
    assert_eq!(g.child_roles[&g.index["h1"]], ChildRole::SideBranch);
    assert_eq!(g.child_roles[&g.index["c1"]], ChildRole::SideBranch);
    assert_eq!(g.branches.len(), 1);
}

#[test]
fn same_timestamp_replays_are_not_forks() {
    let mut t = T::new();
    t.user("s", "u1", None, 0, "go").text("s", "a1", "u1", 1);
    t.user("s", "u2", Some("a1"), 5, "again").user("s", "u2b", Some("a1"), 5, "again");
    t.text("s", "a2", "u2b", 6);
    let (e, g) = t.build();
    assert!(forks(&e, &g).is_empty());
    assert_eq!(g.child_roles[&g.index["u2"]], ChildRole::Replay, "the dead copy is the replay");
    assert_eq!(g.child_roles[&g.index["u2b"]], ChildRole::Future);
}

#[test]
fn cross_session_continuation_and_fork() {
    // s2 continues s1's leaf; s3 branches from the middle of s1.
    let mut t = T::new();
    t.user("s1", "u1", None, 0, "start").text("s1", "a1", "u1", 1);
    t.user("s1", "u2", Some("a1"), 10, "more").text("s1", "a2", "u2", 11);
    t.raw(1, json!({"type":"user","sessionId":"s2","uuid":"v1","parentUuid":"a2","timestamp":ts(50),"message":{"content":"resume"}}));
    t.raw(1, json!({"type":"user","sessionId":"s3","uuid":"w1","parentUuid":"a1","timestamp":ts(60),"message":{"content":"other way"}}));
    t.text("s3", "w2", "w1", 61);
    let (e, g) = t.build();
    assert_eq!(forks(&e, &g), [("a1".to_string(), vec!["u2".to_string(), "w1".to_string()])]);
    assert_eq!(g.conversations.as_slice()[0].fork_points[0].kind, ForkKind::CrossSession);
    assert_eq!(g.child_roles.get(&g.index["v1"]), None, "a single child is no multi-child node");
    let main = &g.branches[g.conversations.as_slice()[0].branches[0]];
    assert_eq!(g.uuid(&e, main.leaf), "v1", "the resume continues the main branch");
    assert_eq!(g.conversations.len(), 1);
}

#[test]
fn resume_copies_dedupe_onto_the_first_session() {
    let mut t = T::new();
    t.user("s1", "u1", None, 0, "start").text("s1", "a1", "u1", 1);
    // s2 copies s1 (same uuids, parents, timestamps) and goes on.
    t.raw(1, json!({"type":"user","sessionId":"s2","uuid":"u1","parentUuid":null,"timestamp":ts(0),"message":{"role":"user","content":"start"}}));
    t.raw(
        1,
        json!({"type":"assistant","sessionId":"s2","uuid":"a1","parentUuid":"u1","timestamp":ts(1),
        "message":{"id":"msg_a1","model":"claude","role":"assistant","content":[{"type":"text","text":"ok"}]}}),
    );
    t.raw(1, json!({"type":"user","sessionId":"s2","uuid":"u2","parentUuid":"a1","timestamp":ts(90),"message":{"content":"resumed"}}));
    let (e, g) = t.build();
    assert_eq!(g.nodes.len(), 3);
    assert_eq!(g.aliases.len(), 2);
    assert!(g.findings.is_empty(), "identical copies are not conflicts: {:?}", g.findings);
    assert_eq!(g.sessions[g.node(g.index["a1"]).session].session_id.as_ref(), "s1");
    assert!(forks(&e, &g).is_empty());
    assert_eq!(g.conversations.as_slice()[0].sessions.len(), 2);
}

#[test]
fn conflicting_duplicates_dangling_parents_and_cycles_are_findings() {
    let mut t = T::new();
    t.user("s", "u1", None, 0, "start");
    t.raw(1, json!({"type":"user","sessionId":"s","uuid":"u1","parentUuid":null,"timestamp":ts(0),"message":{"content":"different"}}));
    t.user("s", "d1", Some("nowhere"), 5, "orphan");
    t.user("s", "x", Some("y"), 7, "x").user("s", "y", Some("x"), 8, "y");
    t.user("s", "self", Some("self"), 9, "me");
    let (_, g) = t.build();
    let kinds: Vec<&Problem> = g.findings.iter().map(|f| &f.problem).collect();
    assert!(kinds.iter().any(|p| matches!(p, Problem::ConflictingDuplicate { .. })));
    assert!(kinds.iter().any(|p| matches!(p, Problem::DanglingParent { parent } if &**parent == "nowhere")));
    assert_eq!(kinds.iter().filter(|p| matches!(p, Problem::Cycle)).count(), 2);
    // The earliest node of the x↔y cycle becomes the root.
    assert_eq!(g.node(g.index["x"]).link, Link::CycleCut);
    assert_eq!(g.node(g.index["y"]).parent, Some(g.index["x"]));
}

#[test]
fn compaction_joins_through_logical_parent_and_by_time() {
    let mut t = T::new();
    t.user("s", "u1", None, 0, "start").text("s", "a1", "u1", 1);
    t.raw(
        0,
        json!({"type":"system","subtype":"compact_boundary","sessionId":"s","uuid":"cb","parentUuid":null,
        "logicalParentUuid":"a1","timestamp":ts(20)}),
    );
    t.raw(
        0,
        json!({"type":"user","sessionId":"s","uuid":"cs","parentUuid":"cb","timestamp":ts(21),"isCompactSummary":true,
        "message":{"content":"This session is being continued"}}),
    );
    t.user("s", "u2", Some("cs"), 30, "after").text("s", "a2", "u2", 31);
    // A second boundary whose logical parent is gone: joined after the latest earlier node.
    t.raw(
        0,
        json!({"type":"system","subtype":"compact_boundary","sessionId":"s","uuid":"cb2","parentUuid":null,
        "logicalParentUuid":"gone","timestamp":ts(40)}),
    );
    t.user("s", "u3", Some("cb2"), 41, "later");
    let (e, g) = t.build();
    assert_eq!(g.conversations.len(), 1);
    assert_eq!(g.compactions, 2);
    assert_eq!(g.node(g.index["cb"]).link, Link::Compaction);
    assert_eq!(g.node(g.index["cb2"]).link, Link::CompactionByTime);
    assert_eq!(g.node(g.index["cb2"]).parent, Some(g.index["a2"]));
    let order: Vec<&str> = g.branches.as_slice()[0].nodes.iter().map(|n| g.uuid(&e, *n)).collect();
    assert_eq!(order, ["u1", "a1", "cb", "cs", "u2", "a2", "cb2", "u3"]);
}

#[test]
fn agents_are_linked_to_their_spawn() {
    let mut t = T::new();
    t.user("s", "u1", None, 0, "explore").reply(
        "s",
        "a1",
        "u1",
        1,
        "m1",
        json!({"type":"tool_use","id":"tk","name":"Task","input":{"prompt":"look around"}}),
    );
    t.raw(
        0,
        json!({"type":"user","sessionId":"s","uuid":"r1","parentUuid":"a1","timestamp":ts(9),
        "toolUseResult":{"agentId":"abc"},
        "message":{"content":[{"type":"tool_result","tool_use_id":"tk","content":"found it"}]}}),
    );
    t.raw(
        2,
        json!({"type":"user","sessionId":"s","uuid":"g1","parentUuid":null,"isSidechain":true,"agentId":"abc",
        "timestamp":ts(2),"message":{"content":"look around"}}),
    );
    t.raw(
        2,
        json!({"type":"assistant","sessionId":"s","uuid":"g2","parentUuid":"g1","isSidechain":true,"agentId":"abc",
        "timestamp":ts(3),"message":{"id":"m9","content":[{"type":"text","text":"found it"}]}}),
    );
    let (e, g) = t.build();
    assert_eq!(g.conversations.len(), 1);
    assert_eq!(g.agents.len(), 1);
    let a = &g.agents.as_slice()[0];
    assert_eq!(&*a.agent_id, "abc");
    let spawn = a.spawn.as_ref().unwrap();
    assert_eq!(spawn.tool_use_id.as_deref(), Some("tk"));
    assert_eq!(spawn.use_node, Some(g.index["a1"]));
    assert_eq!(spawn.result_node, Some(g.index["r1"]));
    assert_eq!(a.nodes.iter().map(|n| g.uuid(&e, *n)).collect::<Vec<_>>(), ["g1", "g2"]);
}

#[test]
fn summaries_and_titles() {
    let mut t = T::new();
    t.user("s1", "u1", None, 0, "start").text("s1", "a1", "u1", 1);
    t.user("s1", "u2", Some("a1"), 10, "first").text("s1", "a2", "u2", 11);
    t.user("s1", "u3", Some("a1"), 100, "second").text("s1", "a3", "u3", 101);
    // Written into another session's file, as Claude Code does.
    t.raw(1, json!({"type":"summary","summary":"Abandoned idea","leafUuid":"a2"}));
    t.raw(1, json!({"type":"summary","summary":"Nowhere","leafUuid":"missing"}));
    t.raw(1, json!({"type":"ai-title","aiTitle":"Auto","sessionId":"s1"}));
    t.raw(1, json!({"type":"custom-title","customTitle":"Mine","sessionId":"s1"}));
    let (_, g) = t.build();
    assert_eq!(g.summaries.len(), 2);
    assert_eq!(g.summaries.iter().filter(|s| s.node.is_some()).count(), 1);
    let c = &g.conversations.as_slice()[0];
    assert_eq!(&*c.title, "Mine");
    assert_eq!(c.title_source, TitleSource::CustomTitle);
    assert_eq!(&*g.branches[c.branches[0]].title, "Abandoned idea");
    // The renamed session ends on the second branch: it carries the name.
    assert_eq!(&*g.branches[c.branches[1]].title, "Mine");
}

#[test]
fn shared_meta_root_of_separate_sessions_is_not_a_fork() {
    // 1.0.x wrote one local-command caveat into each new session after /clear.
    let mut t = T::new();
    t.raw(
        0,
        json!({"type":"user","sessionId":"s1","uuid":"cav","parentUuid":null,"isMeta":true,"timestamp":ts(0),
        "message":{"content":"Caveat: The messages below were generated by the user"}}),
    );
    t.user("s1", "p1", Some("cav"), 10, "one").text("s1", "r1", "p1", 11);
    t.raw(
        1,
        json!({"type":"user","sessionId":"s2","uuid":"cav","parentUuid":null,"isMeta":true,"timestamp":ts(0),
        "message":{"content":"Caveat: The messages below were generated by the user"}}),
    );
    t.user("s2", "p2", Some("cav"), 500, "two").text("s2", "r2", "p2", 501);
    let (_, g) = t.build();
    assert_eq!(g.conversations.len(), 2);
    assert!(g.conversations.iter().all(|c| c.fork_points.is_empty()));
}

#[test]
fn node_ids_do_not_depend_on_line_order() {
    let mut t = T::new();
    t.user("s", "u1", None, 0, "start").text("s", "a1", "u1", 1);
    t.user("s", "u2", Some("a1"), 10, "x").user("s", "u3", Some("a1"), 20, "y");
    let (e1, g1) = t.build();
    t.lines.reverse();
    let (e2, g2) = t.build();
    assert_eq!(forks(&e1, &g1), forks(&e2, &g2));
    assert_eq!(branch_ids(&e1, &g1), branch_ids(&e2, &g2));
    for (n1, n2) in g1.nodes.iter().zip(&g2.nodes) {
        assert_eq!(e1[n1.entry].uuid, e2[n2.entry].uuid);
    }
}

#[test]
fn main_thread_instance_wins_over_side_agent_copies() {
    let mut t = T::new();
    t.classes[2] = FileClass::SideAgent;
    // The compaction summariser copies a main node (with another parent).
    t.raw(
        2,
        json!({"type":"user","sessionId":"s","uuid":"u1","parentUuid":"elsewhere","isSidechain":true,
        "agentId":"acompact-1","timestamp":ts(0),"message":{"role":"user","content":"start"}}),
    );
    t.user("s", "u1", None, 0, "start").text("s", "a1", "u1", 1);
    t.raw(
        2,
        json!({"type":"user","sessionId":"s","uuid":"q1","parentUuid":"a1","isSidechain":true,
        "agentId":"acompact-1","timestamp":ts(5),"message":{"role":"user","content":"Summarize"}}),
    );
    let (e, g) = t.build();
    let u1 = g.node(g.index["u1"]);
    assert!(!u1.sidechain);
    assert_eq!(e[u1.entry].loc.file, FileId::FIRST, "the main file's instance is canonical");
    assert_eq!(u1.parent, None);
    assert_eq!(g.conversations.len(), 1);
    assert_eq!(g.agents.len(), 1);
    assert_eq!(g.agents.as_slice()[0].kind, AgentKind::SideAgent);
    assert_eq!(g.agents.as_slice()[0].attached_to, Some(g.index["a1"]));
}

#[test]
fn last_prompt_marks_the_active_branch() {
    let mut t = T::new();
    t.user("s", "u1", None, 0, "start").text("s", "a1", "u1", 1);
    t.user("s", "u2", Some("a1"), 10, "keep this one").text("s", "a2", "u2", 11);
    t.user("s", "u3", Some("a1"), 100, "abandoned later").text("s", "a3", "u3", 101);
    t.raw(1, json!({"type":"last-prompt","lastPrompt":"keep this one","sessionId":"s"}));
    let (e, g) = t.build();
    let c = &g.conversations.as_slice()[0];
    assert_eq!(g.uuid(&e, g.branches[c.active_branch].first), "u1");
    // Without it, the latest leaf decides.
    t.lines.pop();
    let (e, g) = t.build();
    assert_eq!(g.uuid(&e, g.branches[g.conversations.as_slice()[0].active_branch].first), "u3");
}

#[test]
fn the_live_file_wins_over_a_kept_previous_version() {
    // File 1 is a previous version kept by `cctree sync`, file 0 the live file
    // of the same session after the client rewrote it (its lines come first:
    // without the flag, "the last line wins" would pick the old ones).
    let mut t = T::new();
    t.kept = vec![1];
    for f in [0, 1] {
        t.raw(
            f,
            json!({"type":"user","sessionId":"s","uuid":"u1","parentUuid":null,"timestamp":ts(0),
            "message":{"role":"user","content":"hello"}}),
        );
    }
    t.raw(
        1,
        json!({"type":"assistant","sessionId":"s","uuid":"a1","parentUuid":"u1","timestamp":ts(1),
        "message":{"id":"m1","model":"claude","role":"assistant","content":[{"type":"text","text":"long old reply"}]}}),
    );
    t.raw(
        0,
        json!({"type":"assistant","sessionId":"s","uuid":"a1","parentUuid":"u1","timestamp":ts(1),
        "message":{"id":"m1","model":"claude","role":"assistant","content":[{"type":"text","text":"new"}]}}),
    );
    t.raw(0, json!({"type":"custom-title","customTitle":"Aaa new name","sessionId":"s"}));
    t.raw(1, json!({"type":"custom-title","customTitle":"Zzz old name","sessionId":"s"}));
    t.raw(1, json!({"type":"summary","summary":"Zzz old summary","leafUuid":"a1"}));
    t.raw(0, json!({"type":"summary","summary":"Aaa new summary","leafUuid":"a1"}));
    let (e, g) = t.build();
    assert_eq!(&*g.conversations.as_slice()[0].title, "Aaa new name");
    let a1 = g.index["a1"];
    assert_eq!(g.entry(&e, a1).loc.file, FileId::FIRST, "the live file's copy is canonical");
    let b = &g.branches[g.conversations.as_slice()[0].branches[0]];
    assert_eq!(b.summary.as_deref(), Some("Aaa new summary"));
    // Without the flag, the old file's later line would win: the test can fail.
    t.kept.clear();
    let (_, g) = t.build();
    assert_eq!(&*g.conversations.as_slice()[0].title, "Zzz old name");
}

/// A client copy (`--fork-session`, `/branch`, 2.1.330) of a TUI session: the
/// same uuids and first timestamps, a session id that sorts first, and
/// `requestSessionId` on its copied assistant entries.
fn tui_session_and_copy(t: &mut T) {
    t.user("b-orig", "u1", None, 0, "start").text("b-orig", "a1", "u1", 1);
    t.user("b-orig", "u2", Some("a1"), 10, "first try").text("b-orig", "a2", "u2", 11);
    t.user("b-orig", "u3", Some("a1"), 100, "second try").text("b-orig", "a3", "u3", 101);
    let copied = |v: &Value| {
        let mut c = v.clone();
        c["sessionId"] = json!("a-copy");
        if c["type"] == "assistant" {
            c["requestSessionId"] = json!("b-orig");
        }
        c
    };
    let originals: Vec<Value> = t
        .lines
        .iter()
        .map(|(_, v)| v.clone())
        .filter(|v| ["u1", "a1", "u3", "a3"].contains(&v["uuid"].as_str().unwrap()))
        .collect();
    for v in originals {
        t.raw(1, copied(&v));
    }
    t.raw(
        1,
        json!({"type":"user","sessionId":"a-copy","uuid":"u5","parentUuid":"a3","timestamp":ts(200),
        "message":{"role":"user","content":"in the copy"}}),
    );
}

#[test]
fn a_client_copy_never_takes_over_the_original() {
    let mut t = T::new();
    tui_session_and_copy(&mut t);
    let (e, g) = t.build();
    let c = &g.conversations.as_slice()[0];
    assert_eq!(g.conversations.len(), 1);
    let s = |u: &str| &*g.sessions[g.node(g.index[u]).session].session_id;
    assert_eq!((s("u1"), s("a1"), s("a3")), ("b-orig", "b-orig", "b-orig"), "the original instances are canonical");
    assert_eq!(s("u5"), "a-copy");
    let kinds: Vec<ForkKind> = c.fork_points.iter().map(|f| f.kind).collect();
    assert_eq!(kinds, [ForkKind::Rewind], "the in-file rewind stays a rewind");
    assert_eq!(forks(&e, &g), [("a1".to_string(), vec!["u2".to_string(), "u3".to_string()])]);
    let j: Vec<(&str, &str, JunctionKind)> =
        c.junctions.iter().map(|j| (&*g.sessions[j.session].session_id, g.uuid(&e, j.at), j.kind)).collect();
    assert_eq!(j, [("a-copy", "a3", JunctionKind::Continues)], "only the copy joins, where it goes on");
}

#[test]
fn a_branch_copy_named_by_forked_from_is_a_copy() {
    let mut t = T::new();
    t.user("b-orig", "u1", None, 0, "start").text("b-orig", "a1", "u1", 1);
    t.user("b-orig", "u2", Some("a1"), 10, "go on").text("b-orig", "a2", "u2", 11);
    // `/branch` stamps `forkedFrom` on every entry it copies.
    for (u, p) in [("u1", None), ("a1", Some("u1"))] {
        let mut v = t.lines.iter().find(|(_, v)| v["uuid"] == u).unwrap().1.clone();
        v["sessionId"] = json!("a-copy");
        v["parentUuid"] = json!(p);
        v["forkedFrom"] = json!({"sessionId": "b-orig", "messageUuid": u});
        t.raw(1, v);
    }
    t.user("a-copy", "u9", Some("a1"), 50, "in the branch");
    let (_, g) = t.build();
    let s = |u: &str| &*g.sessions[g.node(g.index[u]).session].session_id;
    assert_eq!((s("u1"), s("a1")), ("b-orig", "b-orig"));
    let f = &g.conversations.as_slice()[0].fork_points;
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].kind, ForkKind::CrossSession);
    assert_eq!(s_of(&g, f[0].children[0]), "b-orig", "the original goes on on its line, the copy branches off");
}

fn s_of(g: &Graph, n: NodeId) -> &str {
    &g.sessions[g.node(n).session].session_id
}

#[test]
fn the_last_title_line_in_the_file_wins() {
    // `custom-title` carries no timestamp; the client reads the file's tail.
    let mut t = T::new();
    t.user("s", "u1", None, 0, "start").text("s", "a1", "u1", 1);
    t.raw(0, json!({"type":"custom-title","customTitle":"Zeta title","sessionId":"s"}));
    t.raw(0, json!({"type":"custom-title","customTitle":"Alpha title","sessionId":"s"}));
    let (_, g) = t.build();
    assert_eq!(&*g.conversations.as_slice()[0].title, "Alpha title");
    t.lines.swap(2, 3);
    let (_, g) = t.build();
    assert_eq!(&*g.conversations.as_slice()[0].title, "Zeta title");
}

#[test]
fn stale_last_prompt_text_does_not_flip_the_active_branch() {
    let mut t = T::new();
    t.user("s", "u1", None, 0, "start").text("s", "a1", "u1", 1);
    t.user("s", "u2", Some("a1"), 10, "old idea").text("s", "a2", "u2", 11);
    t.user("s", "u3", Some("a1"), 100, "new idea").text("s", "a3", "u3", 101);
    // A rewind's marker names no leaf; a fork copy's text is stale but its leaf is right.
    t.raw(
        0,
        json!({"type":"last-prompt","leafUuid":"00000000-0000-0000-0000-000000000000","explicit":true,"sessionId":"s"}),
    );
    t.raw(0, json!({"type":"last-prompt","lastPrompt":"old idea","leafUuid":"a3","sessionId":"s"}));
    let (e, g) = t.build();
    let c = &g.conversations.as_slice()[0];
    assert_eq!(g.uuid(&e, g.branches[c.active_branch].first), "u3");
}

#[test]
fn string_and_text_block_copies_are_not_a_conflict() {
    let mut t = T::new();
    t.user("s", "u1", None, 0, "hello there").text("s", "a1", "u1", 1);
    t.raw(
        1,
        json!({"type":"user","sessionId":"s2","uuid":"u1","parentUuid":null,"timestamp":ts(0),
        "message":{"role":"user","content":[{"type":"text","text":"hello there"}]}}),
    );
    let (_, g) = t.build();
    assert!(g.findings.is_empty(), "{:?}", g.findings);
    t.raw(
        1,
        json!({"type":"user","sessionId":"s3","uuid":"u1","parentUuid":null,"timestamp":ts(0),
        "message":{"role":"user","content":[{"type":"text","text":"something else"}]}}),
    );
    let (_, g) = t.build();
    assert!(matches!(g.findings[..], [GraphFinding { problem: Problem::ConflictingDuplicate { .. }, .. }]));
}

#[test]
fn a_copy_made_right_after_a_bash_command_branches_instead_of_splitting_off() {
    // `!cmd` output without a reply (respondToBashCommands: false), then a
    // prompt; a copy made right after the command goes on with its own prompt.
    let mut t = T::new();
    t.raw(
        0,
        json!({"type":"user","sessionId":"o","uuid":"b1","parentUuid":null,"timestamp":ts(0),
        "message":{"role":"user","content":"<bash-input>ls</bash-input>"}}),
    );
    t.raw(
        0,
        json!({"type":"user","sessionId":"o","uuid":"b2","parentUuid":"b1","timestamp":ts(1),
        "message":{"role":"user","content":"<bash-stdout>a b</bash-stdout><bash-stderr></bash-stderr>"}}),
    );
    t.user("o", "p1", Some("b2"), 10, "prompt A").text("o", "r1", "p1", 11);
    t.user("c", "p2", Some("b2"), 20, "prompt in the copy").text("c", "r2", "p2", 21);
    let (e, g) = t.build();
    assert_eq!(g.conversations.len(), 1, "not a separate conversation");
    assert_eq!(forks(&e, &g), [("b2".to_string(), vec!["p1".to_string(), "p2".to_string()])]);
}

#[test]
fn a_prefix_copied_into_many_sessions_keeps_its_original_instances() {
    let mut t = T::new();
    t.user("b-orig", "u1", None, 0, "start").text("b-orig", "a1", "u1", 1);
    // 300 `/branch` copies of the prefix (sessions that sort before and
    // after the original), each going on on its own.
    for k in 0..300u32 {
        let s = format!("{}-copy-{k:03}", if k % 2 == 0 { "a" } else { "c" });
        for (u, p) in [("u1", None), ("a1", Some("u1"))] {
            let mut v = t.lines.iter().find(|(_, v)| v["uuid"] == u).unwrap().1.clone();
            v["sessionId"] = json!(s);
            v["parentUuid"] = json!(p);
            v["forkedFrom"] = json!({"sessionId": "b-orig", "messageUuid": u});
            t.raw(1, v);
        }
        t.user(&s, &format!("p{k}"), Some("a1"), 50 + k, "in the copy");
    }
    let (_, g) = t.build();
    assert_eq!(s_of(&g, g.index["u1"]), "b-orig");
    assert_eq!(s_of(&g, g.index["a1"]), "b-orig");
    assert_eq!(g.aliases.len(), 600, "every copied instance is an alias");
}

#[test]
fn fork_points_are_found_by_node_and_by_branch() {
    let mut t = T::new();
    t.user("s", "u1", None, 0, "start").text("s", "a1", "u1", 1);
    for k in 0..5u32 {
        let (u, a) = (format!("u2-{k}"), format!("a2-{k}"));
        t.user("s", &u, Some("a1"), 10 + 100 * k, "try").text("s", &a, &u, 11 + 100 * k);
        // Each branch forks again under its reply.
        for j in 0..3u32 {
            let (v, b) = (format!("v{k}-{j}"), format!("b{k}-{j}"));
            t.user("s", &v, Some(&a), 20 + 100 * k + 10 * j, "again").text("s", &b, &v, 21 + 100 * k + 10 * j);
        }
    }
    let (_, g) = t.build();
    let c = &g.conversations.as_slice()[0];
    assert_eq!(c.fork_points.len(), 6);
    for n in g.nodes.ids() {
        let scan = c.fork_points.iter().find(|f| f.node == n).map(|f| f.node);
        assert_eq!(g.fork_at(n).map(|f| f.node), scan);
    }
    for &b in &c.branches {
        let scan: Vec<NodeId> = c.fork_points.iter().filter(|f| f.branch == b).map(|f| f.node).collect();
        assert_eq!(g.forks_on(b).map(|f| f.node).collect::<Vec<_>>(), scan);
    }
}

/// Clients 2.0.x–2.1.9x write a `remove` without content
/// when a queued message is taken out of the queue (the oldest one). It
/// matched nothing, so the next `dequeue` popped the removed message as if
/// it had been sent: a message typed while Claude worked was shown nowhere.
#[test]
fn a_message_removed_from_the_queue_without_content_is_not_lost() {
    let q = |op: &str, sec: u32, content: Option<&str>| {
        let mut v = json!({"type":"queue-operation","operation":op,"sessionId":"s","timestamp":ts(sec)});
        if let Some(c) = content {
            v["content"] = json!(c);
        }
        v
    };
    let mut t = T::new();
    t.user("s", "u1", None, 0, "start").text("s", "a1", "u1", 1);
    t.raw(0, q("enqueue", 2, Some("typed while working")));
    t.raw(0, q("remove", 3, None));
    t.raw(0, q("enqueue", 4, Some("sent next")));
    t.raw(0, q("dequeue", 5, None));
    t.user("s", "u2", Some("a1"), 5, "sent next").text("s", "a2", "u2", 6);
    let (e, g) = t.build();
    let shown: Vec<&str> = g.queued.values().flatten().map(|i| &*e[*i].excerpt).collect();
    assert_eq!(shown, ["typed while working"], "the removed message is shown, the sent one is a prompt");
}

/// Several `summary` lines for one leaf in one file: the
/// client reads the last (it keeps one per leaf, the last line winning);
/// cctree took another (the greatest text).
#[test]
fn the_last_summary_of_a_leaf_in_a_file_wins() {
    let mut t = T::new();
    t.user("s", "u1", None, 0, "start").text("s", "a1", "u1", 1);
    t.raw(0, json!({"type":"summary","summary":"Zeta: an early summary","leafUuid":"a1"}));
    t.raw(0, json!({"type":"summary","summary":"Alpha: the latest summary","leafUuid":"a1"}));
    let (_, g) = t.build();
    assert_eq!(&*g.conversations.as_slice()[0].title, "Alpha: the latest summary");
    assert_eq!(g.branches.as_slice()[0].summary.as_deref(), Some("Alpha: the latest summary"));
}

/// A session resumed into a new file (2.0.x–2.1.19: the
/// current line copied, same uuids and timestamps, no copy marker) after a
/// rewind in the original. The first timestamps tie and the copy's id sorted
/// first: the copy took over the rewound line, the rewind read as a
/// cross-session fork with its branches newest first.
#[test]
fn a_resumed_copy_does_not_take_over_a_rewind_in_the_original() {
    let (orig, copy) = ("b0000000-orig", "a0000000-copy");
    let mut t = T::new();
    t.user(orig, "u1", None, 0, "start").text(orig, "a1", "u1", 1);
    t.user(orig, "u2", Some("a1"), 10, "first try").text(orig, "a2", "u2", 11);
    t.user(orig, "u3", Some("a1"), 100, "second try").text(orig, "a3", "u3", 101);
    // The resumed copy, in its own file: the current line, then a new turn.
    let lines: Vec<(u32, Value)> = t.lines.to_vec();
    for (_, v) in lines.iter().filter(|(_, v)| ["u1", "a1", "u3", "a3"].contains(&v["uuid"].as_str().unwrap())) {
        let mut c = v.clone();
        c["sessionId"] = json!(copy);
        t.raw(1, c);
    }
    t.lines.push((
        1,
        json!({"type":"user","sessionId":copy,"uuid":"u4","parentUuid":"a3","timestamp":ts(200),
        "message":{"role":"user","content":"after the resume"}}),
    ));
    t.lines.push((
        1,
        json!({"type":"assistant","sessionId":copy,"uuid":"a4","parentUuid":"u4","timestamp":ts(201),
        "message":{"id":"m4","model":"claude","role":"assistant","content":[{"type":"text","text":"ok"}]}}),
    ));
    let (e, g) = t.build();
    for u in ["u1", "a1", "u3", "a3"] {
        assert_eq!(&*g.sessions[g.node(g.index[u]).session].session_id, orig, "{u} is the original's");
    }
    let c = &g.conversations.as_slice()[0];
    assert_eq!(c.fork_points.len(), 1);
    assert_eq!(c.fork_points[0].kind, ForkKind::Rewind);
    assert_eq!(forks(&e, &g), [("a1".to_string(), vec!["u2".to_string(), "u3".to_string()])], "oldest first");
}

/// A `microcompact_boundary` (2.1.9–2.1.22) is a compaction of its own kind
/// that does not break the chain: no root, no fork, not in `compactions`.
#[test]
fn a_microcompaction_is_a_compaction_that_keeps_the_chain() {
    let mut t = T::new();
    t.user("s", "u1", None, 0, "start").text("s", "a1", "u1", 1);
    t.raw(
        0,
        json!({"type":"system","subtype":"microcompact_boundary","sessionId":"s","uuid":"m1","parentUuid":"a1",
        "timestamp":ts(2),"content":"Context microcompacted","microcompactMetadata":{"trigger":"auto","preTokens":9000,"tokensSaved":4000}}),
    );
    t.user("s", "u2", Some("m1"), 3, "go on").text("s", "a2", "u2", 4);
    let (_, g) = t.build();
    assert_eq!(g.node(g.index["m1"]).compaction, Some(CompactionKind::Micro));
    assert_eq!(g.node(g.index["m1"]).link, Link::Physical);
    assert_eq!((g.compactions, g.roots().count(), g.branches.len()), (0, 1, 1));
}

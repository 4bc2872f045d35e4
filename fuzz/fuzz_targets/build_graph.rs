//! The graph builder on arbitrary line sets: bytes decode into small entries
//! over a tiny uuid alphabet (so parents connect, collide and loop), and the
//! graph's invariants must hold. When the first byte is odd, most entries are
//! siblings instead: distinct uuids from a large alphabet under a few parents
//! (rewinds, parallel results, many sessions at one node).
#![no_main]

use std::collections::BTreeMap;

use cctree::model::{FileClass, FileId};
use cctree::graph::{FileFacts, Graph, GraphInput};
use cctree::id::IdVec;
use cctree::parse::parse_line;
use cctree::model::{Entries, Loc};
use libfuzzer_sys::fuzz_target;

fn line(c: &[u8], siblings: bool) -> String {
    let id = |b: u8| format!("n{}", b % 24);
    // Siblings: the uuid from two bytes (65,536 names), the parent one of four.
    let sibling = format!("s{}-{}", c[1], c[7]);
    let id_of_self = |b: u8| if siblings && c[2] % 8 != 0 { sibling.clone() } else { id(b) };
    let ty = ["user", "assistant", "system", "attachment", "progress", "summary"][c[0] as usize % 6];
    let parent = if c[2] % 5 == 0 {
        "null".to_string()
    } else if siblings {
        format!("\"{}\"", id(c[2] % 4))
    } else {
        format!("\"{}\"", id(c[2]))
    };
    let session = format!("s{}", c[3] % 3);
    let ts = format!("2025-07-01T10:{:02}:{:02}.000Z", (c[4] / 60) % 60, c[4] % 60);
    let flags = c[5];
    let content = match flags % 6 {
        0 => "\"typed prompt\"".to_string(),
        1 => format!(r#"[{{"type":"tool_use","id":"t{}","name":"Bash","input":{{}}}}]"#, c[6] % 4),
        2 => format!(r#"[{{"type":"tool_result","tool_use_id":"t{}","content":"x"}}]"#, c[6] % 4),
        3 => "\"<command-name>/cost</command-name>\"".to_string(),
        4 => r#"[{"type":"text","text":"reply"}]"#.to_string(),
        _ => "\"[Request interrupted by user]\"".to_string(),
    };
    if ty == "summary" {
        return format!(r#"{{"type":"summary","summary":"s","leafUuid":"{}"}}"#, id(c[1]));
    }
    let subtype = if ty == "system" {
        if flags & 0x40 != 0 { r#","subtype":"compact_boundary","logicalParentUuid":"n3""# } else { r#","subtype":"turn_duration""# }
    } else {
        ""
    };
    format!(
        r#"{{"type":"{ty}","uuid":"{}","parentUuid":{parent},"sessionId":"{session}","timestamp":"{ts}","isSidechain":{},"isCompactSummary":{},"agentId":"a{}"{subtype},"message":{{"id":"m{}","role":"x","content":{content}}}}}"#,
        id_of_self(c[1]),
        flags & 0x80 != 0,
        flags & 0x20 != 0,
        c[6] % 2,
        c[7] % 8,
    )
}

fuzz_target!(|data: &[u8]| {
    let siblings = data.first().is_some_and(|b| b & 1 == 1);
    let entries: Entries = data
        .chunks_exact(8)
        .enumerate()
        .filter_map(|(i, c)| {
            let l = line(c, siblings);
            let loc = Loc { file: FileId::new(usize::from(c[3] % 2))?, line: u32::try_from(i + 1).ok()? };
            parse_line(cctree::agent::CLAUDE, l.as_bytes(), loc, 0).0
        })
        .collect();
    let files: IdVec<FileId, FileFacts> = IdVec::from_vec(vec![
        FileFacts { class: FileClass::Main, ..FileFacts::default() },
        FileFacts { class: FileClass::Subagent, agent_id_from_name: Some("a1".into()), ..FileFacts::default() },
    ]);
    let g = Graph::build(&GraphInput { entries: &entries, files: &files, agent_meta: &BTreeMap::new(), session_titles: &BTreeMap::new() });
    // Every node is on exactly one line: a branch of a conversation, or an agent.
    let mut seen = IdVec::filled(0u32, g.nodes.len());
    for b in &g.branches {
        for &n in &b.nodes {
            seen[n] += 1;
        }
    }
    for a in &g.agents {
        for &n in &a.nodes {
            seen[n] += 1;
        }
    }
    for (i, n) in g.nodes.iter_enumerated() {
        assert_eq!(seen[i], 1, "node {i:?} on {} lines", seen[i]);
        assert_eq!(n.sidechain, n.branch.is_none());
    }
    // No cycles: every ancestry ends.
    for i in g.nodes.ids() {
        assert!(g.ancestry(i).len() <= g.nodes.len());
    }
    // Fork points have at least two children, each starting a branch but the first.
    for c in &g.conversations {
        for f in &c.fork_points {
            assert!(f.children.len() >= 2);
        }
    }
});

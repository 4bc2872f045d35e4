//! Every registered agent's reader on hostile input, in the suite: the
//! harness of the fuzz target `agent_reader` (`tests/common/agent_files.rs`)
//! on each agent's fixtures, then on them mutated.

use proptest::prelude::*;

use crate::agent_files;

/// A session body of each agent from its fixtures (for a database agent,
/// one row's JSON): `(agent's place in the registration, table flag, body)`.
fn seeds() -> Vec<(u8, u8, Vec<u8>)> {
    let fx = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let first = |dir: &str, keep: &dyn Fn(&str) -> bool| -> Vec<u8> {
        let p = walkdir::WalkDir::new(fx.join(dir))
            .sort_by_file_name()
            .into_iter()
            .flatten()
            .find(|e| e.file_type().is_file() && keep(&e.file_name().to_string_lossy()))
            .unwrap_or_else(|| panic!("no fixture in {dir}"));
        std::fs::read(p.path()).unwrap()
    };
    let part = br#"{"type":"text","text":"a reply","time":{"start":1,"end":2}}"#.to_vec();
    let parts = br#"[{"type":"text","data":{"text":"a reply"}}]"#.to_vec();
    cctree::agent::ALL
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let i = u8::try_from(i).unwrap();
            let body = match c.name() {
                "claude" => first("client-2.1.332/tui", &|n| n.ends_with(".jsonl")),
                "codex" => first("codex-0.171.0/tui", &|n| n.starts_with("rollout-")),
                "qwen" => first("qwen-0.24.4/headless", &|n| n.ends_with(".jsonl")),
                "gemini" => first("gemini-0.61.0/tui", &|n| n.starts_with("session-") && n.ends_with(".jsonl")),
                "copilot" => first("copilot-1.0.102/tui/home", &|n| n == "events.jsonl"),
                "opencode" => part.clone(),
                "crush" => parts.clone(),
                "pi" => first("pi-1.6.0/tree", &|n| n.ends_with(".jsonl")),
                "aider" => first("aider-0.86.2/runs", &|n| n == ".aider.chat.history.md"),
                other => panic!("no seed for the agent {other}: add one"),
            };
            (i, 0, body)
        })
        .collect()
}

fn input(agent: u8, pick: u8, flag: u8, body: &[u8]) -> Vec<u8> {
    let mut data = vec![agent, pick, flag];
    data.extend_from_slice(body);
    data
}

/// Each agent's own files go through the harness and are read (so the
/// layouts it writes are each agent's).
#[test]
fn every_agents_fixture_goes_through_the_fuzz_harness() {
    for (agent, flag, body) in seeds() {
        let read = agent_files::run(&input(agent, 0, flag, &body));
        assert!(read > 0, "{}: nothing read", cctree::agent::ALL[usize::from(agent)].name());
    }
}

/// A fixture with a few bytes changed, cut, or repeated.
fn mutated() -> impl Strategy<Value = Vec<u8>> {
    let n = cctree::agent::ALL.len();
    (0..n, any::<u8>(), any::<u8>(), proptest::collection::vec((any::<u16>(), any::<u8>(), 0u8..4), 1..12)).prop_map(
        move |(agent, pick, flag, edits)| {
            let seeds = seeds();
            let (a, _, mut body) = seeds[agent].clone();
            body.truncate(16_384);
            for (at, byte, how) in edits {
                let at = usize::from(at) % body.len().max(1);
                match how {
                    0 => {
                        if let Some(b) = body.get_mut(at) {
                            *b = byte;
                        }
                    }
                    1 => body.insert(at.min(body.len()), byte),
                    2 => body.truncate(at),
                    _ => {
                        let piece: Vec<u8> = body[at..body.len().min(at + 64)].to_vec();
                        body.splice(at..at, piece);
                    }
                }
            }
            input(a, pick, flag, &body)
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// No mutated session of any agent panics a stage.
    #[test]
    fn mutated_sessions_of_every_agent_never_panic(data in mutated()) {
        agent_files::run(&data);
    }
}

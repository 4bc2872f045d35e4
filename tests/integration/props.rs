//! Properties on generated transcripts: order independence, P1–P3 preserved by
//! parsing, and artifacts never counted as forks.

use std::collections::BTreeMap;
use std::path::Path;

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::support::{load, report};

/// One step of a generated session history.
#[derive(Debug, Clone)]
pub enum Op {
    /// A prompt and a reply streamed in `blocks` entries, with `parallel` tool
    /// calls (2.1.1 style: each result under its own tool_use block), and
    /// optional hook / turn-duration / local-command side entries.
    Turn { blocks: u8, parallel: u8, hook: bool, duration: bool, command: bool },
    /// The next prompt goes back to the end of an earlier turn (a rewind).
    Rewind { back: u8 },
    /// Resume into a new session file that copies the current line (2.0.x style).
    Resume,
    /// A compaction as 2.1.332 writes it (a boundary, its summary, what it
    /// kept; transcript-format §5.7): `/compact` (`keep`: keeping the last
    /// turn), "Summarize up to here" or "Summarize from here" at a turn
    /// `back` turns from the end.
    Compact { how: Compaction, back: u8, keep: bool },
}

#[derive(Debug, Clone, Copy)]
pub enum Compaction {
    Full,
    UpTo,
    From,
}

pub fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (1u8..4, 0u8..3, any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(blocks, parallel, hook, duration, command)| Op::Turn { blocks, parallel, hook, duration, command }),
        1 => (0u8..4).prop_map(|back| Op::Rewind { back }),
        1 => Just(Op::Resume),
        1 => (prop_oneof![Just(Compaction::Full), Just(Compaction::UpTo), Just(Compaction::From)], 0u8..4, any::<bool>())
            .prop_map(|(how, back, keep)| Op::Compact { how, back, keep }),
    ]
}

/// A generated archive: lines per session file, and the forks it must have.
pub struct Generated {
    pub files: BTreeMap<String, Vec<String>>,
    pub expected_forks: usize,
    pub expected_branches: usize,
}

struct Gen {
    files: BTreeMap<String, Vec<String>>,
    session: String,
    sessions: usize,
    clock: u64,
    next: u64,
    /// The nodes of the current line, root first.
    line: Vec<(String, Value)>,
    /// End-of-turn anchors on the current line, the prompt of each of those
    /// turns, and how many futures (prompts, compactions) hang from each node.
    ends: Vec<String>,
    starts: Vec<String>,
    prompts_under: BTreeMap<String, usize>,
    /// A summary whose later children the graph puts after the last message
    /// its compaction kept (where the client puts them): that message.
    after_kept: BTreeMap<String, String>,
}

impl Gen {
    fn uuid(&mut self) -> String {
        self.next += 1;
        format!("00000000-0000-4000-8000-{:012}", self.next)
    }
    fn ts(&mut self) -> String {
        self.clock += 7;
        format!("2025-07-01T{:02}:{:02}:{:02}.000Z", (self.clock / 3600) % 24, (self.clock / 60) % 60, self.clock % 60)
    }
    fn emit(&mut self, mut v: Value, on_line: bool) -> String {
        let u = self.uuid();
        v["uuid"] = json!(u);
        v["sessionId"] = json!(self.session);
        v["timestamp"] = json!(self.ts());
        v["isSidechain"] = json!(false);
        let s = serde_json::to_string(&v).unwrap();
        self.files.entry(format!("{}.jsonl", self.session)).or_default().push(s);
        if on_line {
            self.line.push((u.clone(), v));
        }
        u
    }
    fn tip(&self) -> Option<String> {
        self.line.last().map(|(u, _)| u.clone())
    }
    /// One more future under `parent` (where the graph puts it).
    fn future_under(&mut self, parent: &str) {
        let p = self.after_kept.get(parent).cloned().unwrap_or_else(|| parent.to_string());
        *self.prompts_under.entry(p).or_default() += 1;
    }

    /// A compaction: its boundary and summary, what it keeps (a run of the
    /// line from `kept_from` to `kept_to`, their uuids listed in order), the
    /// next turn's parent, and the line and turn ends after it.
    fn compact(&mut self, how: Compaction, back: u8, keep: bool) -> Option<String> {
        let turns = self.ends.len();
        if turns == 0 || (matches!(how, Compaction::From) && turns < 2) {
            return None;
        }
        let pos = |g: &Gen, u: &str| g.line.iter().position(|(x, _)| x == u).unwrap();
        // The turn the rewind menu was opened at (not the first, for "from").
        let k = match how {
            Compaction::Full => turns - 1,
            Compaction::UpTo => turns - 1 - back as usize % turns,
            Compaction::From => turns - 1 - back as usize % (turns - 1),
        };
        let (kept, anchor_is_boundary): (Vec<String>, bool) = match how {
            Compaction::Full if !keep => (Vec::new(), false),
            Compaction::Full | Compaction::UpTo => {
                (self.line[pos(self, &self.starts[k])..].iter().map(|(u, _)| u.clone()).collect(), false)
            }
            Compaction::From => {
                (self.line[..=pos(self, &self.ends[k - 1])].iter().map(|(u, _)| u.clone()).collect(), true)
            }
        };
        let tip = self.tip()?;
        let logical = match how {
            Compaction::From => self.ends[k - 1].clone(),
            _ => tip.clone(),
        };
        let b = self.uuid_peek(0);
        let s_uuid = self.uuid_peek(1);
        let mut meta = json!({"trigger": "manual", "preTokens": 100});
        if let (Some(head), Some(tail)) = (kept.first(), kept.last()) {
            let anchor = if anchor_is_boundary { &b } else { &s_uuid };
            meta["preservedSegment"] = json!({"headUuid": head, "anchorUuid": anchor, "tailUuid": tail});
            meta["preservedMessages"] = json!({"anchorUuid": anchor, "uuids": kept});
        }
        let bu = self.emit(
            json!({"type":"system","subtype":"compact_boundary","parentUuid":null,"logicalParentUuid":logical,
                "content":"Conversation compacted","compactMetadata":meta}),
            true,
        );
        let mut summary = json!({"type":"user","parentUuid":bu,"isCompactSummary":true,
            "message":{"role":"user","content":"This session is being continued from a previous conversation."}});
        match how {
            Compaction::UpTo => summary["summarizeMetadata"] = json!({"direction": "up_to"}),
            Compaction::From => summary["summarizeMetadata"] = json!({"direction": "from"}),
            Compaction::Full => {}
        }
        let su = self.emit(summary, true);
        let both = self.line.split_off(self.line.len() - 2);
        let kept_nodes: Vec<(String, Value)> = self.line.iter().filter(|(u, _)| kept.contains(u)).cloned().collect();
        match how {
            Compaction::From => {
                // The turns from `k` on stay on a branch beside the line;
                // the boundary is one more future after the last kept one.
                self.future_under(&logical);
                self.ends.truncate(k);
                self.starts.truncate(k);
                self.line = kept_nodes;
                self.line.extend(both);
            }
            _ if kept.is_empty() => {
                self.future_under(&tip);
                self.ends.clear();
                self.starts.clear();
                self.line = both;
            }
            _ => {
                // The boundary takes the place of the first kept turn; what
                // follows the summary goes after the last kept message.
                self.after_kept.insert(su.clone(), kept.last().unwrap().clone());
                self.ends.drain(..k);
                self.starts.drain(..k);
                self.line = both;
                self.line.extend(kept_nodes);
            }
        }
        Some(su)
    }

    /// The uuid `ahead` emits from now.
    fn uuid_peek(&self, ahead: u64) -> String {
        format!("00000000-0000-4000-8000-{:012}", self.next + 1 + ahead)
    }
}

pub fn generate(ops: &[Op]) -> Generated {
    // Every history starts with a turn.
    let first = Op::Turn { blocks: 1, parallel: 0, hook: false, duration: false, command: false };
    let ops: Vec<Op> = std::iter::once(first).chain(ops.iter().cloned()).collect();
    let mut g = Gen {
        files: BTreeMap::new(),
        session: "10000000-0000-4000-8000-000000000000".into(),
        sessions: 0,
        clock: 0,
        next: 0,
        line: Vec::new(),
        ends: Vec::new(),
        starts: Vec::new(),
        prompts_under: BTreeMap::new(),
        after_kept: BTreeMap::new(),
    };
    let mut parent_override: Option<String> = None;
    for (i, op) in ops.iter().enumerate() {
        match op {
            Op::Turn { blocks, parallel, hook, duration, command } => {
                let parent = parent_override.take().or_else(|| g.tip());
                if let Some(p) = &parent {
                    g.future_under(p);
                }
                let start = g.emit(json!({"type":"user","parentUuid":parent,"message":{"role":"user","content":format!("prompt {i}")}}), true);
                g.starts.push(start);
                let msg = format!("msg_{i}");
                // Parallel calls: tool_use blocks chained, each result under its block.
                let mut uses = Vec::new();
                for k in 0..*parallel {
                    let id = format!("toolu_{i}_{k}");
                    let p = g.tip();
                    let u = g.emit(json!({"type":"assistant","parentUuid":p,"message":{"id":msg,"role":"assistant","model":"claude",
                        "content":[{"type":"tool_use","id":id,"name":"Bash","input":{"command":"ls"}}]}}), true);
                    uses.push((u, id));
                }
                let mut last_result = None;
                for (u, id) in &uses {
                    let r = g.emit(
                        json!({"type":"user","parentUuid":u,"message":{"role":"user",
                        "content":[{"type":"tool_result","tool_use_id":id,"content":"out"}]}}),
                        false,
                    );
                    last_result = Some(r);
                }
                if let Some(r) = last_result {
                    // The conversation goes on from the last result.
                    let v = json!({});
                    g.line.push((r, v));
                }
                let msg2 = if *parallel > 0 { format!("msg_{i}_b") } else { msg.clone() };
                for b in 0..*blocks {
                    let p = g.tip();
                    if *hook && b == 0 {
                        g.emit(json!({"type":"attachment","parentUuid":p,"attachment":{"type":"hook_success","stdout":""}}), false);
                    }
                    g.emit(json!({"type":"assistant","parentUuid":p,"message":{"id":msg2,"role":"assistant","model":"claude",
                        "content":[{"type":"text","text":format!("answer {i}.{b}")}]}}), true);
                }
                let end = g.tip().unwrap();
                if *duration {
                    g.emit(json!({"type":"system","subtype":"turn_duration","parentUuid":end,"durationMs":5}), false);
                }
                if *command {
                    let c = g.emit(json!({"type":"user","parentUuid":end,"message":{"role":"user","content":"<command-name>/cost</command-name>"}}), false);
                    let _ = g.emit(json!({"type":"user","parentUuid":c,"message":{"role":"user","content":"<local-command-stdout>$0</local-command-stdout>"}}), false);
                }
                g.ends.push(end);
            }
            Op::Rewind { back } => {
                if g.ends.len() >= 2 {
                    let k = g.ends.len() - 2 - (*back as usize % (g.ends.len() - 1));
                    let target = g.ends[k].clone();
                    // Cut the line back to the target.
                    let pos = g.line.iter().position(|(u, _)| *u == target).unwrap();
                    g.line.truncate(pos + 1);
                    g.ends.truncate(k + 1);
                    g.starts.truncate(k + 1);
                    parent_override = Some(target);
                }
            }
            Op::Resume => {
                if g.line.is_empty() || parent_override.is_some() {
                    continue;
                }
                g.sessions += 1;
                let new = format!("10000000-0000-4000-8000-{:012}", g.sessions);
                let file = format!("{new}.jsonl");
                for (_, v) in g.line.clone() {
                    if v.get("uuid").is_none() {
                        continue; // a result placeholder: copied below with its line
                    }
                    let mut c = v.clone();
                    c["sessionId"] = json!(new);
                    g.files.entry(file.clone()).or_default().push(serde_json::to_string(&c).unwrap());
                }
                g.session = new;
            }
            Op::Compact { how, back, keep } => {
                if parent_override.is_none() {
                    if let Some(summary) = g.compact(*how, *back, *keep) {
                        parent_override = Some(summary);
                    }
                }
            }
        }
    }
    let expected_forks = g.prompts_under.values().filter(|n| **n >= 2).count();
    let expected_branches = 1 + g.prompts_under.values().map(|n| n.saturating_sub(1)).sum::<usize>();
    Generated { files: g.files, expected_forks, expected_branches }
}

fn write(dir: &Path, files: &BTreeMap<String, Vec<String>>) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, lines) in files {
        let mut text = lines.join("\n");
        text.push('\n');
        std::fs::write(dir.join(name), text).unwrap();
    }
}

/// Shuffles lines within files and moves some between files, deterministically.
fn scramble(files: &BTreeMap<String, Vec<String>>, seed: u64) -> BTreeMap<String, Vec<String>> {
    let mut state = seed | 1;
    let mut rnd = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let names: Vec<String> = files.keys().cloned().collect();
    let mut out: BTreeMap<String, Vec<String>> = names.iter().map(|n| (n.clone(), Vec::new())).collect();
    for lines in files.values() {
        for l in lines {
            let to = if rnd() % 3 == 0 { &names[(rnd() % names.len() as u64) as usize] } else { &names[0] };
            out.get_mut(to).unwrap().push(l.clone());
        }
    }
    // Keep each original file's own lines mostly in it, but shuffled.
    for (name, lines) in files {
        out.get_mut(name).unwrap().extend(lines.iter().filter(|_| rnd() % 2 == 0).cloned());
    }
    for lines in out.values_mut() {
        lines.sort();
        lines.dedup();
        for i in (1..lines.len()).rev() {
            let j = (rnd() % (i as u64 + 1)) as usize;
            lines.swap(i, j);
        }
    }
    // Every line must still exist somewhere.
    for lines in files.values() {
        for l in lines {
            if !out.values().any(|v| v.contains(l)) {
                out.get_mut(&names[0]).unwrap().push(l.clone());
            }
        }
    }
    out
}

fn model_json(dir: &Path) -> Value {
    let r = report(&[dir.to_path_buf()]);
    let mut v = serde_json::to_value(r.projects_detail.unwrap()).unwrap();
    for p in v.as_array_mut().unwrap() {
        p["name"] = json!("");
        p["dir"] = json!("");
        // Line counts change when duplicate lines are spread over files.
        for k in ["lines", "entries", "bytes", "duplicate_uuids"] {
            p[k] = json!(0);
        }
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn order_independent(ops in proptest::collection::vec(op(), 1..14), seed in any::<u64>()) {
        let archive = generate(&ops);
        let tmp = tempfile::tempdir().unwrap();
        write(&tmp.path().join("a"), &archive.files);
        write(&tmp.path().join("b"), &scramble(&archive.files, seed));
        prop_assert_eq!(model_json(&tmp.path().join("a")), model_json(&tmp.path().join("b")));
    }

    #[test]
    fn exactly_the_rewinds_are_forks(ops in proptest::collection::vec(op(), 1..16)) {
        let archive = generate(&ops);
        let tmp = tempfile::tempdir().unwrap();
        write(tmp.path(), &archive.files);
        let r = report(&[tmp.path().to_path_buf()]);
        prop_assert_eq!(r.total.fork_points as usize, archive.expected_forks);
        prop_assert_eq!(r.total.branches as usize, archive.expected_branches);
        prop_assert_eq!(r.total.conversations, 1);
    }

    #[test]
    fn parsing_preserves_p1_to_p3(ops in proptest::collection::vec(op(), 1..12)) {
        let archive = generate(&ops);
        let tmp = tempfile::tempdir().unwrap();
        write(tmp.path(), &archive.files);
        for p in load(&[tmp.path().to_path_buf()]) {
            let findings = cctree::check::check_project(&p);
            let bad: Vec<_> = findings.iter().filter(|f| f.kind.starts_with('P')).collect();
            prop_assert!(bad.is_empty(), "{:?}", bad);
        }
    }
}

#[test]
fn check_finds_a_removed_tool_result() {
    let archive = generate(&[Op::Turn { blocks: 1, parallel: 2, hook: false, duration: false, command: false }]);
    let mut files = archive.files.clone();
    let answers = |l: &str, id: &str| {
        let v: Value = serde_json::from_str(l).unwrap();
        v["message"]["content"][0]["tool_use_id"] == id
    };
    for lines in files.values_mut() {
        lines.retain(|l| !answers(l, "toolu_1_0"));
    }
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), &files);
    let p = load(&[tmp.path().to_path_buf()]).remove(0);
    let kinds: Vec<&str> = cctree::check::check_project(&p).iter().map(|f| f.kind).collect();
    assert_eq!(kinds, ["P3-tool-use-without-result"]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Arbitrary bytes, and arbitrary bytes spliced into valid lines, never
    /// make the parser, the graph or the markdown renderer panic.
    #[test]
    fn arbitrary_bytes_never_panic(noise in proptest::collection::vec(any::<u8>(), 0..2048), cut in any::<usize>()) {
        let archive = generate(&[Op::Turn { blocks: 2, parallel: 2, hook: true, duration: true, command: true }, Op::Rewind { back: 0 }]);
        let mut bytes: Vec<u8> = archive.files.values().flatten().flat_map(|l| l.bytes().chain([b'\n'])).collect();
        let at = cut % (bytes.len() + 1);
        bytes.splice(at..at, noise.iter().copied());
        for input in [&noise[..], &bytes[..]] {
            let parsed = cctree::parse::parse_bytes(input, cctree::model::FileId::FIRST, cctree::agent::CLAUDE);
            prop_assert_eq!(parsed.entries.len() as u64 + parsed.bad_lines, parsed.lines);
            let files = cctree::id::IdVec::from_vec(vec![cctree::graph::FileFacts::default()]);
            let entries = cctree::id::IdVec::from_vec(parsed.entries.clone());
            let g = cctree::graph::Graph::build(&cctree::graph::GraphInput {
                entries: &entries,
                files: &files,
                agent_meta: &Default::default(),
                session_titles: &Default::default(),
            });
            let on_lines: usize = g.branches.iter().map(|b| b.nodes.len()).sum::<usize>() + g.agents.iter().map(|a| a.nodes.len()).sum::<usize>();
            prop_assert_eq!(on_lines, g.nodes.len(), "every node on exactly one line");
            let text = String::from_utf8_lossy(input);
            let html = cctree::render::html::markdown::to_html(&text, &mut cctree::render::html::highlight::Budget::default()).into_string();
            prop_assert!(!html.to_ascii_lowercase().contains("<script"));
        }
    }
}

/// Every kind of compaction, kept messages and all, in one history: only
/// "Summarize from here" makes a fork (a compaction one), and the model is
/// the same whatever the order of lines and files.
#[test]
fn compactions_that_keep_messages_make_no_rewind() {
    let turn = Op::Turn { blocks: 2, parallel: 2, hook: true, duration: true, command: false };
    let ops = [
        turn.clone(),
        turn.clone(),
        Op::Compact { how: Compaction::UpTo, back: 0, keep: true },
        turn.clone(),
        turn.clone(),
        Op::Compact { how: Compaction::From, back: 0, keep: true },
        turn.clone(),
        Op::Compact { how: Compaction::Full, back: 0, keep: true },
        turn.clone(),
        Op::Rewind { back: 0 },
        turn.clone(),
        Op::Compact { how: Compaction::Full, back: 0, keep: false },
        turn,
    ];
    let archive = generate(&ops);
    let tmp = tempfile::tempdir().unwrap();
    write(&tmp.path().join("a"), &archive.files);
    let r = report(&[tmp.path().join("a")]);
    assert_eq!(
        (r.total.fork_points as usize, r.total.branches as usize),
        (archive.expected_forks, archive.expected_branches)
    );
    let d = &serde_json::to_value(r.projects_detail.as_ref().unwrap()).unwrap()[0];
    let mut kinds: Vec<&str> =
        d["conversations"][0]["fork_points"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap()).collect();
    kinds.sort_unstable();
    assert_eq!(kinds, ["compaction", "rewind"]);
    let count = |k: &str| d[k].as_u64();
    assert_eq!(
        ["compactions_full", "compactions_up_to", "compactions_from", "compactions_kept_messages"].map(count),
        [Some(2), Some(1), Some(1), Some(3)]
    );
    for seed in 0..8 {
        write(&tmp.path().join(format!("b{seed}")), &scramble(&archive.files, seed));
        assert_eq!(model_json(&tmp.path().join("a")), model_json(&tmp.path().join(format!("b{seed}"))), "seed {seed}");
    }
}

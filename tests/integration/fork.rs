//! `cctree fork`: real sessions forked at legal and illegal checkpoints (with
//! the output checked line by line against the source bytes), the fork's
//! effect on `stats`, and properties P4–P6 on generated transcripts.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use cctree::agent::claude::discover::scan_project;
use cctree::agent::claude::fork::drift::{Head, Version, backfill_default};
use cctree::agent::claude::fork::{self, ForkRequest, IllegalCheckpoint, Plan, legal_checkpoints, prefix};
use cctree::check::check_project;
use cctree::graph::NodeId;
use cctree::project::Project;
use cctree::stats::{ReportBuilder, StatsOptions};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::support::{cctree, corpus, real_projects};

// ---------------------------------------------------------------------------
// Helpers.

/// Copies a directory tree (files and folders, made writable) into `dst`.
fn copy_tree(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap().flatten() {
        let to = dst.join(e.file_name());
        if e.path().is_dir() {
            copy_tree(&e.path(), &to);
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
}

/// A temp archive holding copies of the named real projects.
fn archive_of(projects: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("projects");
    for p in projects {
        copy_tree(&real_projects().join(p), &root.join(p));
    }
    (tmp, root)
}

fn load_dir(dir: &Path) -> Project {
    Project::load(scan_project(dir).unwrap())
}

/// Content hash of every file under `dir`.
fn hashes(dir: &Path) -> BTreeMap<PathBuf, blake3::Hash> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), blake3::hash(&std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

fn args(target: &Path, at: Option<&str>, projects: &Path) -> ForkRequest {
    ForkRequest {
        target: target.display().to_string(),
        at: at.map(str::to_string),
        projects: Some(projects.to_path_buf()),
        ..ForkRequest::default()
    }
}

fn uuid(p: &Project, n: NodeId) -> String {
    p.graph.uuid(&p.entries, n).to_string()
}

/// The source bytes of a node's canonical line.
fn source_line(p: &Project, n: NodeId) -> Vec<u8> {
    let e = p.graph.entry(&p.entries, n);
    let bytes = std::fs::read(&p.source.files[e.loc.file].path).unwrap();
    bytes[e.offset as usize..e.offset as usize + e.len as usize].to_vec()
}

/// Checks a written fork line by line against the source: the copied lines
/// are the prefix (and the context after a prompt or tool result),
/// byte-identical (or, when backfilled, the source minus its closing brace
/// plus keys), then the prefix prompts' file-history lines, byte-identical,
/// each `\n`-terminated, then the metadata line.
fn check_fork_file(p: &Project, plan: &Plan, k: NodeId) {
    let bytes = std::fs::read(&plan.path).unwrap();
    assert!(bytes.ends_with(b"\n"));
    let lines: Vec<&[u8]> = bytes[..bytes.len() - 1].split(|b| *b == b'\n').collect();
    let mut nodes = prefix(p, k).nodes;
    nodes.extend(cctree::agent::claude::fork::turn_context(&p.graph, &p.entries, k));
    assert_eq!(lines.len(), nodes.len() + plan.history.len() + 1, "prefix lines + file history + metadata");
    for (line, h) in lines[nodes.len()..].iter().zip(&plan.history) {
        assert_eq!(*line, h.bytes.as_slice(), "file-history lines are copied byte for byte");
        let v: Value = serde_json::from_slice(line).unwrap();
        assert!(v["type"].as_str().unwrap().starts_with("file-history-"));
    }
    for (line, &n) in lines.iter().zip(&nodes) {
        let src = source_line(p, n);
        if *line != src.as_slice() {
            assert!(plan.backfill, "line of {} differs from its source", uuid(p, n));
            let end = src.iter().rposition(|b| *b == b'}').unwrap();
            assert!(line.starts_with(&src[..end]), "P6b: backfill keeps the original bytes");
            assert!(line.ends_with(&src[end..]));
        }
    }
    let meta: Value = serde_json::from_slice(lines[lines.len() - 1]).unwrap();
    assert_eq!(meta["type"], "custom-title");
    assert_eq!(meta["sessionId"], plan.new_session_id.as_str());
    assert_eq!(meta["cctreeFork"]["checkpoint"], uuid(p, k));
    assert_eq!(meta["cctreeFork"]["lines"], nodes.len());
    assert!(plan.path.file_name().unwrap().to_string_lossy() == format!("{}.jsonl", plan.new_session_id));
    uuid::Uuid::parse_str(&plan.new_session_id).unwrap();
}

/// The display path of the active branch of the first conversation with messages.
fn active_path(p: &Project) -> Vec<NodeId> {
    let c = p.graph.conversations.iter().filter(|c| !c.is_fragment).max_by_key(|c| c.messages).expect("a conversation");
    p.graph.projection(c.active_branch)
}

fn stats(root: &Path, exclude_own_forks: bool) -> cctree::stats::Report {
    let mut b = ReportBuilder::new(StatsOptions { detail: true, exclude_own_forks });
    for src in cctree::discover::discover(&[root.to_path_buf()]).unwrap().projects {
        b.add(&Project::load(src));
    }
    b.finish()
}

// ---------------------------------------------------------------------------
// Real sessions.

#[test]
fn parallel_tool_calls_session_forks_at_legal_checkpoints_only() {
    let name = "-experiments-worktrees";
    let (_tmp, root) = archive_of(&[name]);
    let dir = root.join(name);
    let file = dir.join("ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl");
    let p = load_dir(&dir);
    let path = active_path(&p);
    let legal = legal_checkpoints(&p, &path);
    // The fast scan agrees with the exact prefix everywhere.
    for (n, l) in path.iter().zip(&legal) {
        assert_eq!(prefix(&p, *n).legal.is_ok(), *l, "at {}", uuid(&p, *n));
    }
    // A checkpoint after parallel calls: its prefix holds results beside the chain.
    let after_parallel = path
        .iter()
        .zip(&legal)
        .filter(|(_, l)| **l)
        .map(|(n, _)| *n)
        .find(|n| {
            let pre = prefix(&p, *n);
            pre.nodes.len() > pre.chain.len()
        })
        .expect("a legal checkpoint after parallel tool calls");
    let before = hashes(&root);
    let plan = fork::run(&args(&file, Some(&uuid(&p, after_parallel)), &root)).unwrap();
    check_fork_file(&p, &plan, after_parallel);
    let after = hashes(&root);
    assert_eq!(after.len(), before.len() + 1);
    for (f, h) in &before {
        assert_eq!(after.get(f), Some(h), "P5: {} changed", f.display());
    }

    // An illegal checkpoint: an assistant entry whose tool call is answered later.
    let illegal = path
        .iter()
        .zip(&legal)
        .filter(|(_, l)| !**l)
        .map(|(n, _)| *n)
        .find(|n| !p.graph.entry(&p.entries, *n).tool_uses.is_empty())
        .expect("an illegal checkpoint");
    let err = fork::run(&args(&file, Some(&uuid(&p, illegal)), &root)).unwrap_err();
    let ill = err.downcast_ref::<IllegalCheckpoint>().expect("IllegalCheckpoint");
    let pos = path.iter().position(|n| *n == illegal).unwrap();
    let want_before =
        path[..pos].iter().rev().zip(legal[..pos].iter().rev()).find(|(_, l)| **l).map(|(n, _)| uuid(&p, *n));
    let want_after = path[pos + 1..].iter().zip(&legal[pos + 1..]).find(|(_, l)| **l).map(|(n, _)| uuid(&p, *n));
    assert_eq!(ill.before, want_before);
    assert_eq!(ill.after, want_after);
    assert!(ill.before.is_some() && ill.after.is_some());
    // The binary: exit 2, a message naming both neighbours, nothing written.
    let out = cctree()
        .args(["fork", "ef958aa1-0e93-49f0-bb71-150f63befcd1", "--at", &uuid(&p, illegal), "--projects"])
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a legal checkpoint"), "{err}");
    assert!(err.contains(want_before.as_deref().unwrap()) && err.contains(want_after.as_deref().unwrap()), "{err}");
    assert_eq!(hashes(&root), after, "an illegal fork writes nothing");
}

#[test]
fn every_real_session_forks_by_default_and_reloads_with_the_same_ancestry() {
    let names = ["-src-experiments-claude_p", "-experiments-worktrees", "-experiments-ideas", "-src-deep-manifest"];
    let (_tmp, root) = archive_of(&names);
    for name in names {
        let dir = root.join(name);
        let p = load_dir(&dir);
        let mains: Vec<PathBuf> = p
            .source
            .files
            .iter_enumerated()
            .filter(|(_, f)| f.class == cctree::model::FileClass::Main)
            // Files of only metadata (snapshots, titles) have nothing to fork.
            .filter(|(i, _)| p.entries.iter().any(|e| e.loc.file == *i && e.is_node()))
            .map(|(_, f)| f.path.clone())
            .collect();
        assert!(!mains.is_empty());
        for f in mains {
            let before = hashes(&root);
            let plan = match fork::run(&args(&f, None, &root)) {
                Ok(plan) => plan,
                Err(e) => panic!("{}: {e:#}", f.display()),
            };
            let k = p.graph.index[plan.checkpoint.as_str()];
            check_fork_file(&p, &plan, k);
            for (file, h) in &before {
                assert_eq!(hashes(&root).get(file), Some(h));
            }
            // P4 on the archive with the fork: same ancestry, same conversations.
            let q = load_dir(&dir);
            let anc = |p: &Project| -> Vec<String> {
                p.graph.ancestry(p.graph.index[plan.checkpoint.as_str()]).into_iter().map(|n| uuid(p, n)).collect()
            };
            assert_eq!(anc(&p), anc(&q));
            std::fs::remove_file(&plan.path).unwrap();
        }
    }
}

#[test]
fn compaction_prefix_starts_at_the_boundary() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("projects");
    let dir = root.join("-tmp");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(corpus().join("dag_compact_after_rewind.jsonl"), dir.join("s1.jsonl")).unwrap();
    let p = load_dir(&dir);
    assert_eq!(p.graph.compactions, 1);
    // After the compaction: boundary, summary, then the new turn.
    let plan = fork::run(&ForkRequest { target: "p1a".into(), projects: Some(root.clone()), ..ForkRequest::default() })
        .unwrap();
    let k = p.graph.index["p1a"];
    check_fork_file(&p, &plan, k);
    let uuids: Vec<String> = plan.sources.iter().map(|s| s.uuid.clone()).collect();
    assert_eq!(uuids, ["cb", "cs", "p1u", "p1a"]);
    assert_eq!(plan.chain_root, "cb");
    // The session's default checkpoint is its latest leaf.
    let plan2 = fork::run(&ForkRequest {
        target: "s1".into(),
        projects: Some(root.clone()),
        dry_run: true,
        ..ForkRequest::default()
    })
    .unwrap();
    assert_eq!(plan2.checkpoint, "p1a");
    // Before the compaction, on the rewound branch: the abandoned attempt is not copied.
    let plan3 =
        fork::run(&ForkRequest { target: "b2a2".into(), projects: Some(root.clone()), ..ForkRequest::default() })
            .unwrap();
    let uuids: Vec<String> = plan3.sources.iter().map(|s| s.uuid.clone()).collect();
    assert_eq!(uuids, ["u1", "a1", "b2u", "b2a", "b2u2", "b2a2"]);
    check_fork_file(&p, &plan3, p.graph.index["b2a2"]);
    // The boundary alone holds no message: illegal, the summary after it is legal.
    let err = fork::run(&ForkRequest {
        target: "s1".into(),
        at: Some("cb".into()),
        projects: Some(root.clone()),
        ..ForkRequest::default()
    })
    .unwrap_err();
    let ill = err.downcast_ref::<IllegalCheckpoint>().unwrap();
    assert_eq!(ill.after.as_deref(), Some("cs"));
    // Both forks load alone without P1–P3 findings.
    for plan in [&plan, &plan3] {
        let solo = tmp.path().join(format!("solo-{}", plan.new_session_id));
        std::fs::create_dir_all(&solo).unwrap();
        std::fs::copy(&plan.path, solo.join(plan.path.file_name().unwrap())).unwrap();
        let f = check_project(&load_dir(&solo));
        assert!(f.iter().all(|f| !f.kind.starts_with('P')), "{f:?}");
    }
}

#[test]
fn stats_after_a_fork_share_the_prefix() {
    let name = "-experiments-worktrees";
    let (_tmp, root) = archive_of(&[name]);
    let s0 = stats(&root, false);
    let plan = fork::run(&ForkRequest {
        target: "ef958aa1-0e93-49f0-bb71-150f63befcd1".into(),
        projects: Some(root.clone()),
        ..ForkRequest::default()
    })
    .unwrap();
    let s1 = stats(&root, false);
    // The copies dedupe onto the originals: no new node, conversation or branch.
    assert_eq!(s1.total.nodes, s0.total.nodes);
    assert_eq!(s1.total.conversations, s0.total.conversations);
    assert_eq!(s1.total.branches, s0.total.branches);
    assert_eq!(s1.total.fork_points, s0.total.fork_points);
    assert_eq!(s1.total.duplicate_uuids, s0.total.duplicate_uuids + plan.lines as u64);
    assert_eq!(s1.total.own_forks, 1);
    // The originals stay canonical: locations never point into the fork's copy.
    let q = load_dir(&root.join(name));
    let fork_file = format!("{}.jsonl", plan.new_session_id);
    assert!(q.graph.nodes.iter().all(|n| !q.source.files[q.entries[n.entry].loc.file].rel.ends_with(&fork_file)));
    // It shows as a junction at its checkpoint.
    let junctions = &s1.projects_detail.as_ref().unwrap()[0].conversations[0].junctions;
    assert!(
        junctions
            .iter()
            .any(|j| j.kind == "cctree-fork" && j.at == plan.checkpoint && j.session == plan.new_session_id),
        "{junctions:?}"
    );
    let s1x = stats(&root, true);
    assert_eq!(s1x.total.own_forks, 0);
    assert_eq!(s1x.total.conversations, s0.total.conversations);
    assert!(
        s1x.projects_detail.as_ref().unwrap()[0].conversations[0].junctions.iter().all(|j| j.kind != "cctree-fork")
    );

    // `claude -r <new id>` appends under the new session id: the checkpoint
    // becomes a junction where the fork's session continues the prefix.
    let line = json!({"parentUuid": plan.checkpoint, "isSidechain": false, "userType": "external", "cwd": "/w",
        "sessionId": plan.new_session_id, "version": "2.1.114", "type": "user", "uuid": "f0000000-0000-4000-8000-000000000001",
        "timestamp": "2030-01-01T00:00:00.000Z", "message": {"role": "user", "content": "continue from the fork"}});
    let mut bytes = std::fs::read(&plan.path).unwrap();
    bytes.extend_from_slice(serde_json::to_string(&line).unwrap().as_bytes());
    bytes.push(b'\n');
    std::fs::write(&plan.path, bytes).unwrap();
    let s2 = stats(&root, false);
    assert_eq!(s2.total.conversations, s0.total.conversations, "not a duplicate conversation");
    assert_eq!(s2.total.nodes, s0.total.nodes + 1);
    let conv = &s2.projects_detail.as_ref().unwrap()[0].conversations[0];
    assert!(conv.sessions.contains(&plan.new_session_id), "the fork's session joins the conversation");
    // The checkpoint was the session's leaf: the fork continues it (a junction).
    let q = load_dir(&root.join(name));
    let k = q.graph.index[plan.checkpoint.as_str()];
    assert_eq!(q.graph.children[k].len(), 1);
    let s2x = stats(&root, true);
    assert_eq!(s2x.total.own_forks, 0);
    assert_eq!(s2x.total.conversations, s0.total.conversations);

    // A second, earlier-checkpoint fork that is resumed makes a fork point;
    // `--exclude-own-forks` leaves that fork (and its branch) out again.
    let q = load_dir(&root.join(name));
    let path = q.graph.projection(q.graph.conversations.as_slice()[0].branches[0]);
    let legal = cctree::agent::claude::fork::legal_checkpoints(&q, &path);
    let early = path.iter().zip(&legal).filter(|(_, ok)| **ok).map(|(n, _)| *n).nth(2).unwrap();
    let plan2 = fork::run(&ForkRequest {
        target: "ef958aa1-0e93-49f0-bb71-150f63befcd1".into(),
        at: Some(uuid(&q, early)),
        projects: Some(root.clone()),
        ..ForkRequest::default()
    })
    .unwrap();
    let line = json!({"parentUuid": plan2.checkpoint, "isSidechain": false, "sessionId": plan2.new_session_id,
        "type": "user", "uuid": "f0000000-0000-4000-8000-000000000002", "timestamp": "2030-01-02T00:00:00.000Z",
        "message": {"role": "user", "content": "another way from earlier"}});
    let mut bytes = std::fs::read(&plan2.path).unwrap();
    bytes.extend_from_slice(serde_json::to_string(&line).unwrap().as_bytes());
    bytes.push(b'\n');
    std::fs::write(&plan2.path, bytes).unwrap();
    let s3 = stats(&root, false);
    assert_eq!(s3.total.fork_points, s0.total.fork_points + 1);
    assert_eq!(s3.total.branches, s0.total.branches + 1);
    let s3x = stats(&root, true);
    assert_eq!(s3x.total.fork_points, s0.total.fork_points);
    assert_eq!(s3x.total.branches, s0.total.branches);
}

#[test]
fn dry_run_and_json() {
    let name = "-src-experiments-claude_p";
    let (_tmp, root) = archive_of(&[name]);
    let before = hashes(&root);
    let out = cctree()
        .args(["fork", "2b4ed4c0-b905-41de-9238-273db3ec737a", "--dry-run", "--json", "--projects"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    for k in ["new_session_id", "path", "checkpoint", "lines", "command"] {
        assert!(!v[k].is_null(), "missing {k}");
    }
    assert_eq!(v["command"], format!("claude -r {}", v["new_session_id"].as_str().unwrap()));
    assert_eq!(hashes(&root), before, "--dry-run writes nothing");
    let out = cctree()
        .args(["fork", "2b4ed4c0-b905-41de-9238-273db3ec737a", "--title", "my fork", "--projects"])
        .arg(&root)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains("claude -r "), "{text}");
    assert_eq!(hashes(&root).len(), before.len() + 1);
}

#[test]
fn refuses_to_replace_an_existing_file() {
    let name = "-src-experiments-claude_p";
    let (_tmp, root) = archive_of(&[name]);
    let mut a = args(&root.join(name).join("2b4ed4c0-b905-41de-9238-273db3ec737a.jsonl"), None, &root);
    a.dry_run = true;
    let plan = fork::run(&a).unwrap();
    std::fs::write(&plan.path, b"precious\n").unwrap();
    assert!(fork::write(&plan).is_err());
    assert_eq!(std::fs::read(&plan.path).unwrap(), b"precious\n");
}

#[test]
fn backfill_on_old_real_entries_keeps_every_byte() {
    // 1.0.x / 2.0.x sessions next to a 2.1.114 one: the old entries lack keys.
    let names = ["-Users-dain-workspace-claude-code-log-sample", "-experiments-worktrees"];
    let (_tmp, root) = archive_of(&names);
    let dir = root.join(names[0]);
    let p = load_dir(&dir);
    let file = p
        .source
        .files
        .iter()
        .filter(|f| f.class == cctree::model::FileClass::Main)
        .max_by_key(|f| std::fs::metadata(&f.path).unwrap().len())
        .unwrap()
        .path
        .clone();
    let mut a = args(&file, None, &root);
    a.backfill = true;
    let plan = fork::run(&a).unwrap();
    assert_eq!(plan.drift.newest_version.as_deref(), Some("2.1.114"));
    assert!(!plan.drift.entries.is_empty(), "old entries lack keys");
    assert!(plan.sources.iter().any(|s| !s.backfilled.is_empty()));
    let k = p.graph.index[plan.checkpoint.as_str()];
    check_fork_file(&p, &plan, k);
    // The fork still dedupes onto the originals (payloads unchanged).
    let q = load_dir(&dir);
    assert!(check_project(&q).iter().all(|f| f.kind != "P1-conflicting-duplicate"));
}

// ---------------------------------------------------------------------------
// Generated transcripts.

/// One step of a generated history.
#[derive(Debug, Clone)]
enum Op {
    /// A typed prompt.
    Prompt { new: bool },
    /// An assistant response: `texts` streamed text blocks, then `tools` tool
    /// calls answered in `shape` (0: 2.1.1+ results under their own block,
    /// 1: the first result lags and carries the conversation, 2: 2.0.x results
    /// chained after the last block), then a closing reply; maybe a hook leaf.
    Reply { new: bool, texts: u8, tools: u8, shape: u8, hook: bool },
    /// Go back to the end of an earlier turn and prompt again.
    Rewind { back: u8, new: bool },
    /// A compaction: a null-parent boundary and its summary.
    Compact { new: bool },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => any::<bool>().prop_map(|new| Op::Prompt { new }),
        6 => (any::<bool>(), 0u8..3, 0u8..4, 0u8..3, any::<bool>())
            .prop_map(|(new, texts, tools, shape, hook)| Op::Reply { new, texts, tools, shape, hook }),
        1 => (0u8..4, any::<bool>()).prop_map(|(back, new)| Op::Rewind { back, new }),
        1 => any::<bool>().prop_map(|new| Op::Compact { new }),
    ]
}

const SESSION: &str = "11111111-1111-4111-8111-111111111111";
const OLD: &str = "2.0.37";
const NEW: &str = "2.1.114";

struct Gen {
    lines: Vec<String>,
    tip: Option<String>,
    safe: Vec<String>,
    clock: u64,
    next: u64,
}

impl Gen {
    fn emit(&mut self, ty: &str, parent: Option<&str>, new: bool, body: Value) -> String {
        self.next += 1;
        self.clock += 3;
        let u = format!("00000000-0000-4000-8000-{:012}", self.next);
        let mut v = json!({"parentUuid": parent, "isSidechain": false, "cwd": "/w", "sessionId": SESSION,
            "version": if new { NEW } else { OLD }, "type": ty, "uuid": u,
            "timestamp": format!("2025-07-01T{:02}:{:02}:{:02}.000Z", self.clock / 3600 % 24, self.clock / 60 % 60, self.clock % 60)});
        if new {
            v["userType"] = json!("external");
            v["gitBranch"] = json!("");
            v["entrypoint"] = json!("cli");
        }
        for (k, x) in body.as_object().unwrap() {
            v[k] = x.clone();
        }
        self.lines.push(serde_json::to_string(&v).unwrap());
        u
    }

    fn assistant(&mut self, parent: Option<&str>, new: bool, msg: &str, block: Value) -> String {
        self.emit("assistant", parent, new, json!({"requestId": "req", "message": {"id": msg, "type": "message", "role": "assistant", "model": "claude", "content": [block], "stop_reason": null}}))
    }

    fn result(&mut self, parent: &str, new: bool, id: &str) -> String {
        self.emit("user", Some(parent), new, json!({"message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "ok"}]}}))
    }
}

fn generate(ops: &[Op]) -> Vec<String> {
    let mut g = Gen { lines: Vec::new(), tip: None, safe: Vec::new(), clock: 0, next: 0 };
    let ops: Vec<Op> = std::iter::once(Op::Prompt { new: false }).chain(ops.iter().cloned()).collect();
    for (i, op) in ops.iter().enumerate() {
        match *op {
            Op::Prompt { new } | Op::Rewind { new, .. } => {
                if let Op::Rewind { back, .. } = op {
                    if g.safe.is_empty() {
                        continue;
                    }
                    let at = g.safe.len() - 1 - (*back as usize % g.safe.len());
                    g.tip = Some(g.safe[at].clone());
                }
                let tip = g.tip.clone();
                let mut body = json!({"message": {"role": "user", "content": format!("prompt {i}")}});
                if new {
                    body["permissionMode"] = json!("default");
                }
                let u = g.emit("user", tip.as_deref(), new, body);
                g.tip = Some(u.clone());
                g.safe.push(u);
            }
            Op::Reply { new, texts, tools, shape, hook } => {
                let msg = format!("msg_{i}");
                let mut tip = g.tip.clone();
                for b in 0..texts {
                    tip = Some(g.assistant(
                        tip.as_deref(),
                        new,
                        &msg,
                        json!({"type": "text", "text": format!("block {b}")}),
                    ));
                }
                let mut uses = Vec::new();
                for t in 0..tools {
                    let id = format!("toolu_{i}_{t}");
                    let u = g.assistant(
                        tip.as_deref(),
                        new,
                        &msg,
                        json!({"type": "tool_use", "id": id, "name": "Bash", "input": {}}),
                    );
                    tip = Some(u.clone());
                    uses.push((u, id));
                }
                if !uses.is_empty() {
                    tip = Some(match shape {
                        0 => {
                            let mut last = String::new();
                            for (u, id) in &uses {
                                last = g.result(u, new, id);
                            }
                            last
                        }
                        1 => {
                            for (u, id) in &uses[1..] {
                                g.result(u, new, id);
                            }
                            g.result(&uses[0].0, new, &uses[0].1)
                        }
                        _ => {
                            let mut last = uses[uses.len() - 1].0.clone();
                            for (_, id) in &uses {
                                last = g.result(&last, new, id);
                            }
                            last
                        }
                    });
                }
                let end =
                    g.assistant(tip.as_deref(), new, &format!("msg_{i}_end"), json!({"type": "text", "text": "done"}));
                if hook {
                    g.emit(
                        "attachment",
                        Some(&end),
                        new,
                        json!({"attachment": {"type": "hook_success", "hookName": "Stop"}}),
                    );
                }
                g.tip = Some(end.clone());
                g.safe.push(end);
            }
            Op::Compact { new } => {
                let Some(tip) = g.tip.clone() else { continue };
                let b = g.emit("system", None, new, json!({"subtype": "compact_boundary", "content": "Conversation compacted", "logicalParentUuid": tip, "compactMetadata": {"trigger": "auto", "preTokens": 1}}));
                let s = g.emit("user", Some(&b), new, json!({"isCompactSummary": true, "message": {"role": "user", "content": "This session is being continued from a previous conversation."}}));
                g.tip = Some(s.clone());
                g.safe.push(s);
            }
        }
    }
    g.lines
}

/// The keys `--backfill` must give an older entry of each type: those every
/// newest-version entry of the type carries and that have a neutral default.
fn target_keys(lines: &[String]) -> BTreeMap<String, BTreeSet<String>> {
    let heads: Vec<Head> = lines.iter().filter_map(|l| Head::of(l.as_bytes())).collect();
    let newest = heads.iter().filter_map(|h| h.version.as_deref().and_then(Version::parse)).max();
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for h in &heads {
        if h.version.as_deref().and_then(Version::parse) != newest {
            continue;
        }
        let ty = h.group().unwrap();
        let base = h.ty.clone().unwrap();
        let keys: BTreeSet<String> = h.keys.iter().filter(|k| backfill_default(&base, k).is_some()).cloned().collect();
        match out.get_mut(&ty) {
            Some(s) => s.retain(|k| keys.contains(k)),
            None => {
                out.insert(ty, keys);
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn fork_properties(ops in proptest::collection::vec(op(), 1..14), pick in any::<usize>(), backfill in any::<bool>()) {
        let lines = generate(&ops);
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("projects");
        let dir = root.join("-w");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("{SESSION}.jsonl"));
        std::fs::write(&file, lines.join("\n") + "\n").unwrap();
        let p = load_dir(&dir);

        // Candidate checkpoints: every node of every branch's display path.
        let mut all: Vec<(NodeId, bool)> = Vec::new();
        for b in p.graph.branches.ids() {
            let path = p.graph.projection(b);
            let legal = legal_checkpoints(&p, &path);
            for (n, l) in path.iter().zip(legal) {
                prop_assert_eq!(prefix(&p, *n).legal.is_ok(), l, "scan and prefix disagree at {}", uuid(&p, *n));
                all.push((*n, l));
            }
        }
        let legal: Vec<NodeId> = all.iter().filter(|(_, l)| *l).map(|(n, _)| *n).collect();
        let illegal: Vec<NodeId> = all.iter().filter(|(_, l)| !*l).map(|(n, _)| *n).collect();
        // Every end of a turn is legal.
        prop_assert!(!legal.is_empty());

        let before = hashes(&root);
        // An illegal checkpoint fails and writes nothing.
        if !illegal.is_empty() {
            let k = illegal[pick % illegal.len()];
            let err = fork::run(&args(&file, Some(&uuid(&p, k)), &root)).unwrap_err();
            prop_assert!(err.downcast_ref::<IllegalCheckpoint>().is_some(), "{err:#}");
            prop_assert_eq!(&hashes(&root), &before);
        }

        let k = legal[pick % legal.len()];
        let mut a = args(&file, Some(&uuid(&p, k)), &root);
        a.backfill = backfill;
        let plan = fork::run(&a).unwrap();
        check_fork_file(&p, &plan, k);

        // P5: no pre-existing file changed; one file added.
        let after = hashes(&root);
        prop_assert_eq!(after.len(), before.len() + 1);
        for (f, h) in &before {
            prop_assert_eq!(after.get(f), Some(h));
        }

        // P4: the checkpoint's ancestry is the same with the fork in the project…
        let q = load_dir(&dir);
        let anc = |p: &Project| -> Vec<String> { p.graph.ancestry(p.graph.index[plan.checkpoint.as_str()]).into_iter().map(|n| uuid(p, n)).collect() };
        prop_assert_eq!(anc(&p), anc(&q));
        prop_assert_eq!(q.graph.conversations.len(), p.graph.conversations.len());
        // …and its physical chain is the same in the fork alone, which holds exactly the prefix.
        let solo_dir = tmp.path().join("solo");
        std::fs::create_dir_all(&solo_dir).unwrap();
        std::fs::copy(&plan.path, solo_dir.join(plan.path.file_name().unwrap())).unwrap();
        let solo = load_dir(&solo_dir);
        let sk = solo.graph.index[plan.checkpoint.as_str()];
        let chain_uuids = |p: &Project, k: NodeId| -> Vec<String> { p.graph.loaded_chain(&p.entries, k).into_iter().map(|n| uuid(p, n)).collect() };
        prop_assert_eq!(chain_uuids(&solo, sk), chain_uuids(&p, k));
        let want: BTreeSet<String> = prefix(&p, k).nodes.into_iter().map(|n| uuid(&p, n)).collect();
        let have: BTreeSet<String> = solo.graph.index.keys().map(|u| u.to_string()).collect();
        prop_assert_eq!(have, want);
        prop_assert!(prefix(&solo, sk).legal.is_ok());

        // P1–P3 hold for the fork on its own.
        let findings = check_project(&solo);
        prop_assert!(findings.iter().all(|f| !f.kind.starts_with('P')), "{:?}", findings);

        // P6a: backfilled entries carry every key of the target key set.
        if backfill {
            let targets = target_keys(&lines);
            let newest = lines.iter().filter_map(|l| Head::of(l.as_bytes())).filter_map(|h| h.version.as_deref().and_then(Version::parse)).max();
            let bytes = std::fs::read(&plan.path).unwrap();
            for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
                let h = Head::of(line).unwrap();
                let Some(ty) = h.group() else { continue };
                let ty = ty.as_str();
                if h.version.as_deref().and_then(Version::parse) == newest || h.version.is_none() {
                    continue;
                }
                let keys: BTreeSet<&str> = h.keys.iter().map(String::as_str).collect();
                for k in targets.get(ty).into_iter().flatten() {
                    prop_assert!(keys.contains(k.as_str()), "P6a: {ty} lacks {k}");
                }
            }
        }
    }
}

/// The exact prefixes of the parallel and lagging shapes (2.1.1+).
#[test]
fn parallel_and_lagging_results_beside_the_chain_are_copied() {
    // u1 prompt; u2 text (msg_1); u3 tool_use 0; u4 tool_use 1 (both msg_1);
    // lagging: u5 result 1 (under u4) first, u6 result 0 (under u3) carries on; u7 reply.
    let lines = generate(&[Op::Reply { new: true, texts: 1, tools: 2, shape: 1, hook: false }]);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("projects").join("-w");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{SESSION}.jsonl")), lines.join("\n") + "\n").unwrap();
    let p = load_dir(&dir);
    let u = |i: u32| format!("00000000-0000-4000-8000-{i:012}");
    let pre = |i: u32| prefix(&p, p.graph.index[u(i).as_str()]);
    let ids = |v: &[NodeId]| -> Vec<String> { v.iter().map(|n| uuid(&p, *n)).collect() };
    // At the reply: the chain goes through the lagging result 0; block u4 and
    // its result u5 hang beside it and are copied right after u3.
    let at7 = pre(7);
    assert!(at7.legal.is_ok());
    assert_eq!(ids(&at7.chain), [u(1), u(2), u(3), u(6), u(7)]);
    assert_eq!(ids(&at7.nodes), [u(1), u(2), u(3), u(4), u(5), u(6), u(7)]);
    // At the lagging result itself: the same turn, complete.
    assert!(pre(6).legal.is_ok());
    // At the earlier result (a leaf): the rest of the turn's results come along.
    let at5 = pre(5);
    assert!(at5.legal.is_ok());
    assert_eq!(ids(&at5.nodes), [u(1), u(2), u(3), u(6), u(4), u(5)]);
    // Between tool_use and tool_result, or mid-stream: illegal.
    assert!(matches!(pre(4).legal, Err(cctree::agent::claude::fork::Illegal::OpenToolUse(_))));
    assert!(matches!(pre(3).legal, Err(cctree::agent::claude::fork::Illegal::TurnIncomplete(_))));
    assert!(matches!(pre(2).legal, Err(cctree::agent::claude::fork::Illegal::TurnIncomplete(_))));
    assert!(pre(1).legal.is_ok());
    assert_eq!(cctree::model::fork_command(SESSION, &u(7), None), format!("cctree fork --at={} -- {SESSION}", u(7)));
}

/// Planning is pure. With its inputs handed in (no clock, no random
/// id, no file system), the same request gives the same plan, and the id and
/// the time are exactly those given.
#[test]
fn a_plan_depends_only_on_its_inputs() {
    let name = "-experiments-worktrees";
    let (_tmp, root) = archive_of(&[name]);
    let file = root.join(name).join("ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl");
    let resolved = cctree::agent::claude::fork::target::resolve(&file.display().to_string(), Some(&root)).unwrap();
    let exists = |_: &Path| false;
    let inputs = fork::Inputs {
        new_id: "f0f0f0f0-0000-4000-8000-000000000000".into(),
        now_ms: 1_700_000_000_000,
        reference: cctree::agent::claude::fork::drift::Reference::default(),
        backup_exists: &exists,
        dir_exists: &exists,
    };
    let req = ForkRequest { target: file.display().to_string(), ..ForkRequest::default() };
    let a = fork::plan(&resolved, &req, &inputs).unwrap();
    let b = fork::plan(&resolved, &req, &inputs).unwrap();
    assert_eq!(serde_json::to_value(&a).unwrap(), serde_json::to_value(&b).unwrap());
    assert_eq!(a.new_session_id, inputs.new_id);
    assert_eq!(a.path, root.join(name).join("f0f0f0f0-0000-4000-8000-000000000000.jsonl"));
    assert!(a.metadata.contains(r#""created":"2023-11-14T22:13:20.000Z""#), "{}", a.metadata);
    assert!(a.drift.entries.is_empty() && a.drift.newest_version.is_none());
    assert!(!a.path.exists(), "planning writes nothing");
}

/// A node with 1,000,000 prompts under it (rewinds) made the fold
/// of every prefix through it walk them all (and `render`, folding every
/// branch's path, quadratic). A fork at the last rewind's reply copies
/// exactly its line and the turn beside it, and each checkpoint on that path
/// is judged as on a small one.
#[test]
fn fork_under_a_million_sibling_prompts_copies_only_its_line() {
    use std::io::Write;
    const N: u64 = 1_000_000;
    let mut lines = generate(&[Op::Reply { new: true, texts: 1, tools: 2, shape: 1, hook: false }]);
    let u = |i: u64| format!("00000000-0000-4000-8000-{i:012}");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("projects").join("-w");
    std::fs::create_dir_all(&dir).unwrap();
    let mut w = std::io::BufWriter::new(std::fs::File::create(dir.join(format!("{SESSION}.jsonl"))).unwrap());
    // u1 … u7 as in `parallel_and_lagging_results_beside_the_chain_are_copied`;
    // then N prompts under the reply u7, and a reply to the last one.
    for i in 0..N {
        lines.push(format!(
            r#"{{"parentUuid":"{}","isSidechain":false,"sessionId":"{SESSION}","type":"user","uuid":"{}","timestamp":"2025-07-02T00:00:00.000Z","message":{{"role":"user","content":"rewind {i}"}}}}"#,
            u(7),
            u(100 + i)
        ));
    }
    let last = u(100 + N - 1);
    lines.push(format!(
        r#"{{"parentUuid":"{last}","isSidechain":false,"sessionId":"{SESSION}","type":"assistant","uuid":"{}","timestamp":"2025-07-02T00:00:01.000Z","message":{{"id":"msg_last","type":"message","role":"assistant","model":"claude","content":[{{"type":"text","text":"The last answer"}}],"stop_reason":"end_turn"}}}}"#,
        u(99)
    ));
    for l in &lines {
        writeln!(w, "{l}").unwrap();
    }
    w.into_inner().unwrap().sync_all().unwrap();
    let p = load_dir(&dir);
    let ids = |v: &[NodeId]| -> Vec<String> { v.iter().map(|n| uuid(&p, *n)).collect() };
    let reply = p.graph.index[u(99).as_str()];
    let at = prefix(&p, reply);
    assert!(at.legal.is_ok(), "{:?}", at.legal);
    assert_eq!(ids(&at.chain), [u(1), u(2), u(3), u(6), u(7), last.clone(), u(99)]);
    assert_eq!(ids(&at.nodes), [u(1), u(2), u(3), u(4), u(5), u(6), u(7), last.clone(), u(99)]);
    // The reply u7 with a million children is a legal checkpoint, and so is
    // any rewind prompt under it; the path's checkpoints are those of the
    // small session plus the rewind and its reply.
    assert!(prefix(&p, p.graph.index[u(7).as_str()]).legal.is_ok());
    assert!(prefix(&p, p.graph.index[u(100).as_str()]).legal.is_ok());
    let path: Vec<NodeId> = at.chain.clone();
    let legal = legal_checkpoints(&p, &path);
    let legal_ids: Vec<String> = path.iter().zip(&legal).filter(|(_, ok)| **ok).map(|(n, _)| uuid(&p, *n)).collect();
    assert_eq!(legal_ids, [u(1), u(6), u(7), last, u(99)]);
}

/// A transcript whose `sessionId` is `../../outside` made
/// `cctree fork` copy `outside/id_rsa` into `file-history/<new id>/`: the
/// session id was used as a directory unchecked. A session id that is not a
/// plain name is never a path: the backup is missing, said so, not read.
#[test]
fn a_session_id_with_dot_dot_is_never_a_path_to_read_backups_from() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("config");
    let project = config.join("projects/-tmp-p");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(config.join("file-history")).unwrap();
    // What `file-history/../../outside/id_rsa` names: outside the client's tree.
    std::fs::create_dir_all(tmp.path().join("outside")).unwrap();
    std::fs::write(tmp.path().join("outside/id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n").unwrap();
    let sid = "../../outside";
    let (u1, a1) = ("aaaaaaaa-0000-4000-8000-000000000001", "aaaaaaaa-0000-4000-8000-000000000002");
    let lines = [
        json!({"type": "user", "uuid": u1, "parentUuid": null, "sessionId": sid, "cwd": "/tmp/p",
            "timestamp": "2026-03-02T10:00:00.000Z", "message": {"role": "user", "content": "Edit the file"}}),
        json!({"type": "file-history-snapshot", "messageId": u1, "isSnapshotUpdate": false,
            "snapshot": {"messageId": u1, "timestamp": "2026-03-02T10:00:00.000Z",
                "trackedFileBackups": {"id_rsa": {"backupFileName": "id_rsa", "version": 1, "backupTime": "2026-03-02T10:00:00.000Z"}}}}),
        json!({"type": "assistant", "uuid": a1, "parentUuid": u1, "sessionId": sid, "cwd": "/tmp/p",
            "timestamp": "2026-03-02T10:00:01.000Z",
            "message": {"role": "assistant", "id": "msg_1", "model": "claude-sonnet-4-5", "type": "message",
                "content": [{"type": "text", "text": "Done."}]}}),
    ];
    let file = project.join("s1.jsonl");
    std::fs::write(&file, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let out = cctree().args(["fork", "--json"]).arg(&file).env("CLAUDE_CONFIG_DIR", &config).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let copied: Vec<PathBuf> = walkdir::WalkDir::new(config.join("file-history"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    assert!(copied.is_empty(), "read from outside the client's tree: {copied:?}");
    assert!(v.to_string().contains("missing"), "the backup is said to be missing: {v}");
}

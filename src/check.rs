//! `cctree check`: the archive's invariants, each violation with its location.
//!
//! - P1 unique uuids: copies of one uuid must carry the same content (resume,
//!   branch and side-agent copies are legitimate); conflicting copies are findings.
//! - P2 no dangling parents: every `parentUuid` resolves somewhere in the project.
//! - P3 tool balance: on every branch as it is read (root → leaf, with the
//!   artifacts of its turns), each `tool_use` has a `tool_result` after it and
//!   each `tool_result` has its `tool_use` before it. A call left without a
//!   result before an interrupt marker is reported as interrupted.
//! - Cycles, malformed and repaired lines, unknown entry types.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use crate::graph::{Graph, NodeId, Problem};
use crate::parse::{Entries, EntryId, Kind, UserKind};
use crate::project::Project;

/// One violation.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    pub kind: &'static str,
    pub file: String,
    pub line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    pub message: String,
}

/// All kinds of finding, in the order they are explained in the README.
pub const KINDS: &[&str] = &[
    "P1-conflicting-duplicate",
    "P2-dangling-parent",
    "P3-tool-use-without-result",
    "P3-interrupted-tool-use",
    "P3-tool-result-without-use",
    "cycle",
    "malformed-line",
    "repaired-line",
    "unknown-type",
    "unresolved-logical-parent",
    "unreadable-file",
];

/// Checks one project.
pub fn check_project(p: &Project) -> Vec<Finding> {
    let mut out = Vec::new();
    let at = |entry: EntryId| {
        let e = &p.entries[entry];
        (p.source.files[e.loc.file].path.display().to_string(), e.loc.line, e.uuid.as_deref().map(str::to_string))
    };
    for (s, f) in p.file_stats.iter().zip(&p.source.files) {
        if let Some(err) = &s.read_error {
            out.push(Finding {
                kind: "unreadable-file",
                file: f.path.display().to_string(),
                line: 0,
                uuid: None,
                message: err.clone(),
            });
        }
    }
    for w in &p.warnings {
        let file = p.source.files[w.loc.file].path.display().to_string();
        let kind = if w.problem.is_bad_line() { "malformed-line" } else { "repaired-line" };
        out.push(Finding { kind, file, line: w.loc.line, uuid: None, message: w.problem.to_string() });
    }
    for e in &p.entries {
        if let Kind::Unknown(t) = &e.kind {
            let file = p.source.files[e.loc.file].path.display().to_string();
            out.push(Finding {
                kind: "unknown-type",
                file,
                line: e.loc.line,
                uuid: e.uuid.as_deref().map(str::to_string),
                message: format!("unknown entry type {t:?} (kept; rendered generically)"),
            });
        }
    }
    for f in &p.graph.findings {
        let (file, line, uuid) = at(f.entry);
        let (kind, message) = match &f.problem {
            Problem::ConflictingDuplicate { uuid, others } => (
                "P1-conflicting-duplicate",
                format!(
                    "uuid {uuid} has different content at {}",
                    others.iter().map(|o| p.locate(p.entries[*o].loc)).collect::<Vec<_>>().join(", ")
                ),
            ),
            Problem::DanglingParent { parent } => (
                "P2-dangling-parent",
                format!("parentUuid {parent} is not in any file of the project (treated as a root)"),
            ),
            Problem::DanglingLogicalParent { parent } => (
                "unresolved-logical-parent",
                format!("compaction logicalParentUuid {parent} is not in the project (joined by time)"),
            ),
            Problem::Cycle => ("cycle", "parent chain loops back here; the parent link was cut".to_string()),
        };
        out.push(Finding { kind, file, line, uuid, message });
    }
    tool_balance(p, &mut out);
    out.sort();
    out
}

/// P3 on every branch projection and every agent transcript.
fn tool_balance(p: &Project, out: &mut Vec<Finding>) {
    let g = &p.graph;
    let mut reported: FxHashSet<(&str, &'static str)> = FxHashSet::default();
    let report = |node: NodeId, id: &str, kind: &'static str, out: &mut Vec<Finding>| {
        let e = g.entry(&p.entries, node);
        let file = p.source.files[e.loc.file].path.display().to_string();
        let message = match kind {
            "P3-tool-use-without-result" => {
                format!("tool_use {id} has no tool_result on the branch that holds it")
            }
            "P3-interrupted-tool-use" => format!("tool_use {id} was interrupted before its result"),
            _ => format!("tool_result for {id} has no tool_use before it on its branch"),
        };
        out.push(Finding { kind, file, line: e.loc.line, uuid: e.uuid.as_deref().map(str::to_string), message });
    };
    for c in g.conversations.iter() {
        for &b in &c.branches {
            let path = g.projection(b);
            for (node, id, kind) in balance(g, &p.entries, &path) {
                if reported.insert((id, kind)) {
                    report(node, id, kind, out);
                }
            }
        }
    }
    for a in &g.agents {
        for (node, id, kind) in balance(g, &p.entries, &a.nodes) {
            if reported.insert((id, kind)) {
                report(node, id, kind, out);
            }
        }
    }
}

/// Unbalanced tool calls on one ordered run of nodes.
fn balance<'e>(g: &Graph, entries: &'e Entries, path: &[NodeId]) -> Vec<(NodeId, &'e str, &'static str)> {
    let mut open: FxHashMap<&str, (NodeId, usize)> = FxHashMap::default();
    let mut out = Vec::new();
    let mut interrupts = Vec::new();
    for (pos, &n) in path.iter().enumerate() {
        let e = g.entry(entries, n);
        for u in &e.tool_uses {
            open.entry(&u.id).or_insert((n, pos));
        }
        for r in &e.tool_results {
            if open.remove(&*r.tool_use_id).is_none() {
                out.push((n, &*r.tool_use_id, "P3-tool-result-without-use"));
            }
        }
        if e.user_kind == UserKind::Interrupt || e.excerpt.starts_with("[Request interrupted") {
            interrupts.push(pos);
        }
    }
    let mut rest: Vec<_> = open.into_iter().collect();
    rest.sort_by_key(|(id, (_, pos))| (*pos, *id));
    for (id, (n, pos)) in rest {
        let interrupted = interrupts.iter().any(|&i| i > pos);
        out.push((n, id, if interrupted { "P3-interrupted-tool-use" } else { "P3-tool-use-without-result" }));
    }
    out
}

/// The findings for a terminal: `file:line: [kind] message` each, then a
/// summary. The file and the message (which quote uuids and paths from the
/// archive) are escaped ([`crate::term::escape`]): one finding is one line.
pub fn text(findings: &[Finding]) -> String {
    use crate::term::escape;
    use std::fmt::Write as _;
    let mut out = String::new();
    for f in findings {
        let _ = writeln!(out, "{}:{}: [{}] {}", escape(&f.file), f.line, f.kind, escape(&f.message));
    }
    let summary = summarize(findings);
    if summary.is_empty() {
        out.push_str("no findings\n");
    } else {
        let parts: Vec<String> = summary.iter().map(|(k, n)| format!("{k}: {n}")).collect();
        let _ = writeln!(out, "{} findings ({})", findings.len(), parts.join(", "));
    }
    out
}

/// Counts per kind.
pub fn summarize(findings: &[Finding]) -> Vec<(&'static str, usize)> {
    KINDS.iter().map(|k| (*k, findings.iter().filter(|f| f.kind == *k).count())).filter(|(_, n)| *n > 0).collect()
}

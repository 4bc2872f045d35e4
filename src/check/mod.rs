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
//! - Each other client's format's own invariants: [`codex`] (Codex CLI's
//!   rollouts), [`gemini`] (Gemini CLI's session files).

use rustc_hash::{FxHashMap, FxHashSet};

use crate::graph::{BranchId, Graph, NodeId, Problem};
use crate::model::{Entries, EntryId, Kind, UserKind};
use crate::project::Project;

pub use crate::agent::check::Finding;

/// The kinds of finding of every project, whichever agent's, in the order
/// the guide explains them (docs/guide/check.md).
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

/// Every kind of finding: those of every project, then each agent's own
/// ([`crate::agent::Agent::checks`]), in the order they are explained.
pub fn kinds() -> Vec<&'static str> {
    KINDS
        .iter()
        .copied()
        .chain(crate::agent::ALL.iter().flat_map(|c| crate::agent::of(*c).checks().iter().copied()))
        .collect()
}

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
    let agent = crate::agent::of(p.source.client);
    let mut own = Vec::new();
    agent.check(p, &mut own);
    // A finding of the agent's that says better what a general one says at
    // the same line stands alone (Codex's output that answers no call).
    for (better, general) in agent.supersedes() {
        let at: FxHashSet<(&str, u32)> =
            own.iter().filter(|f| f.kind == *better).map(|f| (f.file.as_str(), f.line)).collect();
        out.retain(|f| f.kind != *general || !at.contains(&(f.file.as_str(), f.line)));
    }
    out.extend(own);
    // In the order of the files and their lines, as a reader goes through them.
    out.sort_by(|a, b| {
        (&a.file, a.line, a.kind, &a.uuid, &a.message).cmp(&(&b.file, b.line, b.kind, &b.uuid, &b.message))
    });
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
        for (node, id, kind) in balance_branches(g, &p.entries, &c.branches) {
            if reported.insert((id, kind)) {
                report(node, id, kind, out);
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

/// [`balance`] on the projection of every branch of a conversation (its
/// ancestors' runs up to each fork point, then its own run), in linear time:
/// one walk down the tree of branches whose state is undone on the way back
/// up, instead of each projection from the root (N rewinds along one line
/// cost N²). The events of a branch's own nodes, in branch order,
/// then the calls left open at its end, as `balance` gives them.
fn balance_branches<'e>(
    g: &Graph,
    entries: &'e Entries,
    branches: &[BranchId],
) -> Vec<(NodeId, &'e str, &'static str)> {
    let order: FxHashMap<BranchId, usize> = branches.iter().enumerate().map(|(i, b)| (*b, i)).collect();
    // The branches forking from each branch, by the index of their fork node in its run.
    // Where each fork point lies on its branch's run (one pass over the runs).
    let forks: FxHashSet<NodeId> = branches.iter().filter_map(|b| g.branches[*b].fork_point).collect();
    let place: FxHashMap<NodeId, usize> = branches
        .iter()
        .flat_map(|b| g.branches[*b].nodes.iter().enumerate().filter(|(_, n)| forks.contains(n)).map(|(i, n)| (*n, i)))
        .collect();
    let mut kids: FxHashMap<BranchId, Vec<(usize, BranchId)>> = FxHashMap::default();
    let mut roots = Vec::new();
    for &b in branches {
        match g.branches[b].parent_branch.filter(|pb| order.contains_key(pb)) {
            Some(pb) => {
                let run = &g.branches[pb].nodes;
                let at = g.branches[b]
                    .fork_point
                    .and_then(|f| place.get(&f).copied())
                    .filter(|&i| run.get(i).copied() == g.branches[b].fork_point)
                    .unwrap_or(run.len().saturating_sub(1));
                kids.entry(pb).or_default().push((at, b));
            }
            None => roots.push(b),
        }
    }
    for v in kids.values_mut() {
        v.sort_by_key(|&(at, b)| (at, order[&b]));
    }
    let no_kids = Vec::new();
    let mut w =
        Walk { g, entries, open: FxHashMap::default(), interrupts: Vec::new(), log: Vec::new(), events: Vec::new() };
    // (branch, next node of its run, path position of its first node, log mark, next child)
    let mut stack: Vec<(BranchId, usize, usize, usize, usize)> = Vec::new();
    for root in roots {
        stack.push((root, 0, 0, w.log.len(), 0));
        while let Some(&mut (b, ref mut next, base, mark, ref mut kid)) = stack.last_mut() {
            let run = &g.branches[b].nodes;
            let ks = kids.get(&b).unwrap_or(&no_kids);
            // A branch forking at the node just read goes first.
            if let Some(&(_, child)) = ks.get(*kid).filter(|(at, _)| (*next > 0 && *at < *next) || run.is_empty()) {
                *kid += 1;
                let from = base + *next;
                stack.push((child, 0, from, w.log.len(), 0));
            } else if *next < run.len() {
                let (n, pos) = (run[*next], base + *next);
                *next += 1;
                w.read(order[&b], n, pos);
            } else {
                w.end(order[&b], base + run.len());
                w.undo(mark);
                stack.pop();
            }
        }
    }
    let mut events = w.events;
    events.sort_by_key(|&(b, pos, _, _, _)| (b, pos));
    events.into_iter().map(|(_, _, n, id, kind)| (n, id, kind)).collect()
}

/// The state of [`balance_branches`]' walk: the calls open and the
/// interrupts on the path read so far, and how to undo them.
struct Walk<'g, 'e> {
    g: &'g Graph,
    entries: &'e Entries,
    open: FxHashMap<&'e str, (NodeId, usize)>,
    interrupts: Vec<usize>,
    log: Vec<Undo<'e>>,
    /// (branch order, path position, node, id, kind)
    events: Vec<(usize, usize, NodeId, &'e str, &'static str)>,
}

/// What [`Walk::read`] changed.
enum Undo<'e> {
    Opened(&'e str),
    Closed(&'e str, (NodeId, usize)),
    Interrupt,
}

impl<'e> Walk<'_, 'e> {
    /// Reads node `n` at path position `pos` of the branch of order `b`.
    fn read(&mut self, b: usize, n: NodeId, pos: usize) {
        let e = self.g.entry(self.entries, n);
        for u in &e.tool_uses {
            if !self.open.contains_key(&*u.id) {
                self.open.insert(&u.id, (n, pos));
                self.log.push(Undo::Opened(&u.id));
            }
        }
        for r in &e.tool_results {
            match self.open.remove(&*r.tool_use_id) {
                Some(v) => self.log.push(Undo::Closed(&r.tool_use_id, v)),
                None => self.events.push((b, pos, n, &r.tool_use_id, "P3-tool-result-without-use")),
            }
        }
        if e.user_kind == UserKind::Interrupt || e.excerpt.starts_with("[Request interrupted") {
            self.interrupts.push(pos);
            self.log.push(Undo::Interrupt);
        }
    }

    /// The end of a branch (order `b`, path length `end`): the calls left open.
    fn end(&mut self, b: usize, end: usize) {
        let mut rest: Vec<_> = self.open.iter().map(|(id, v)| (*id, *v)).collect();
        rest.sort_by_key(|(id, (_, pos))| (*pos, *id));
        for (id, (n, pos)) in rest {
            let interrupted = self.interrupts.last().is_some_and(|&i| i > pos);
            let kind = if interrupted { "P3-interrupted-tool-use" } else { "P3-tool-use-without-result" };
            self.events.push((b, end, n, id, kind));
        }
    }

    /// Undoes what was read after the log held `mark` entries.
    fn undo(&mut self, mark: usize) {
        while self.log.len() > mark {
            match self.log.pop() {
                Some(Undo::Opened(id)) => {
                    self.open.remove(id);
                }
                Some(Undo::Closed(id, v)) => {
                    self.open.insert(id, v);
                }
                Some(Undo::Interrupt) => {
                    self.interrupts.pop();
                }
                None => {}
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
    kinds().into_iter().map(|k| (k, findings.iter().filter(|f| f.kind == k).count())).filter(|(_, n)| *n > 0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk down the tree of branches finds what [`balance`] finds on
    /// each branch's projection from the root, on every project of the
    /// fixtures (real transcripts, the client's own, the odd ones).
    #[test]
    fn vendored_fixtures_the_branch_walk_finds_what_each_projection_finds() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut projects = 0;
        for input in ["claude-code-log/real_projects", "claude-code-log/dag", "odd", "client-2.1.330/tui/projects"] {
            let Ok(archive) = crate::discover::discover(&[root.join(input)]) else { continue };
            for source in archive.projects {
                let p = Project::load_headers(source);
                let g = &p.graph;
                for c in g.conversations.iter() {
                    let mut want: Vec<_> = Vec::new();
                    let mut seen = FxHashSet::default();
                    for &b in &c.branches {
                        for ev in balance(g, &p.entries, &g.projection(b)) {
                            if seen.insert((ev.1, ev.2)) {
                                want.push(ev);
                            }
                        }
                    }
                    let mut seen = FxHashSet::default();
                    let got: Vec<_> = balance_branches(g, &p.entries, &c.branches)
                        .into_iter()
                        .filter(|ev| seen.insert((ev.1, ev.2)))
                        .collect();
                    want.sort();
                    let mut got = got;
                    got.sort();
                    assert_eq!(got, want, "{}", p.source.name);
                }
                projects += 1;
            }
        }
        assert!(projects >= 10, "{projects} projects");
    }
}

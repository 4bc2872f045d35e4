//! `cctree stats`: counts over the model, per project and in total.
//!
//! The JSON field names are an interface other tools read: keep them.

use std::fmt::Write as _;

use serde::Serialize;

use crate::graph::{BranchId, CompactionKind, Graph, NodeId, SessionId};
use crate::project::Project;
use crate::sync::only_here::{self, OnlyHere, ProjectOnlyHere};
use crate::sync::record::Record;

/// Counts for one project or the whole archive.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Counts {
    pub projects: u64,
    pub files: u64,
    pub lines: u64,
    pub bad_lines: u64,
    pub entries: u64,
    pub nodes: u64,
    pub duplicate_uuids: u64,
    pub roots: u64,
    pub leaves: u64,
    pub multi_child_nodes: u64,
    pub fork_points: u64,
    pub conversations: u64,
    pub branches: u64,
    pub sidechain_nodes: u64,
    pub agents: u64,
    pub summaries: u64,
    pub summaries_attached: u64,
    pub compactions: u64,
    /// Compactions by kind (transcript-format §5.7): `/compact` or
    /// automatic, the rewind menu's "Summarize from here" and "Summarize up
    /// to here"; those that kept messages verbatim (of any kind); and
    /// microcompactions (not in `compactions`: the chain goes on).
    pub compactions_full: u64,
    pub compactions_from: u64,
    pub compactions_up_to: u64,
    pub compactions_kept_messages: u64,
    pub microcompactions: u64,
    pub bytes: u64,
    /// Forks written by `cctree fork` (sessions carrying its provenance record).
    pub own_forks: u64,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        macro_rules! sum { ($($f:ident),*) => { $( self.$f += o.$f; )* } }
        sum!(
            projects,
            files,
            lines,
            bad_lines,
            entries,
            nodes,
            duplicate_uuids,
            roots,
            leaves,
            multi_child_nodes,
            fork_points,
            conversations,
            branches,
            sidechain_nodes,
            agents,
            summaries,
            summaries_attached,
            compactions,
            compactions_full,
            compactions_from,
            compactions_up_to,
            compactions_kept_messages,
            microcompactions,
            bytes,
            own_forks
        );
    }
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ForkDetail {
    pub uuid: String,
    pub kind: &'static str,
    pub children: Vec<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct BranchDetail {
    pub id: String,
    pub leaf: String,
    pub fork_point: Option<String>,
    pub title: String,
    pub messages: u32,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct JunctionDetail {
    pub session: String,
    /// The node the session joins at.
    pub at: String,
    /// `continues`, `branches` or `cctree-fork`.
    pub kind: &'static str,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ConversationDetail {
    pub id: String,
    pub root: String,
    pub title: String,
    pub messages: u32,
    pub sessions: Vec<String>,
    pub active_branch: String,
    /// Its latest message's time (RFC 3339, UTC): what `--since`/`--until` select by.
    pub last_active: String,
    pub fork_points: Vec<ForkDetail>,
    pub branches: Vec<BranchDetail>,
    pub junctions: Vec<JunctionDetail>,
    /// On a `cctree sync` archive: no node of it is in a file the source still has.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub only_in_archive: Option<bool>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct AgentDetail {
    pub id: String,
    pub kind: &'static str,
    pub nodes: usize,
    pub spawn_tool_use: Option<String>,
    pub spawn_result: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ProjectDetail {
    pub name: String,
    pub dir: String,
    pub cwd: Option<String>,
    #[serde(flatten)]
    pub counts: Counts,
    pub conversations: Vec<ConversationDetail>,
    pub agents: Vec<AgentDetail>,
    /// On a `cctree sync` archive: what of the project exists only there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub only_in_archive: Option<OnlyHere>,
}

/// What a `cctree sync` archive holds that its source no longer has.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ArchiveDetail {
    /// The directory the archive was last synced from.
    pub source: String,
    /// Kept after the source deleted it.
    pub only_in_archive: OnlyHere,
    /// Files the source moved to another project (`relocated`), kept in their old place too.
    pub moved_at_source: u64,
}

/// Sessions recovered from the prompt history (their transcript deleted).
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct RecoveredCounts {
    pub sessions: u64,
    pub prompts: u64,
}

/// The whole report.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Report {
    #[serde(flatten)]
    pub total: Counts,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projects_detail: Option<Vec<ProjectDetail>>,
    /// Present when the input is a `cctree sync` archive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archive: Option<ArchiveDetail>,
    /// Present when a prompt history is read beside the input: the sessions
    /// whose transcript is gone but whose prompts it holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovered: Option<RecoveredCounts>,
    #[serde(skip)]
    pub per_project: Vec<(String, Counts)>,
}

/// Which conversations count.
#[derive(Debug, Clone, Copy, Default)]
pub struct StatsOptions {
    pub detail: bool,
    /// Leave out sessions written by `cctree fork`.
    pub exclude_own_forks: bool,
}

/// What `--exclude-own-forks` leaves out: sessions written by `cctree fork`
/// (and what Claude Code appended to them after a resume).
#[derive(Debug, Default)]
struct OwnForks(rustc_hash::FxHashSet<SessionId>);

impl OwnForks {
    fn of(p: &Project, exclude: bool) -> OwnForks {
        OwnForks(if exclude { p.graph.own_fork_sessions(&p.entries) } else { Default::default() })
    }
    fn keeps_conversation(&self, g: &Graph, c: &crate::graph::Conversation) -> bool {
        !c.is_fragment && !self.0.contains(&g.node(c.root).session)
    }
    fn keeps_branch(&self, g: &Graph, b: BranchId) -> bool {
        !self.0.contains(&g.branches[b].session)
    }
    /// The children of a fork that stay; a fork with fewer than two is no fork.
    fn fork_children(&self, g: &Graph, f: &crate::graph::ForkPoint) -> Vec<NodeId> {
        f.children.iter().copied().filter(|c| !self.0.contains(&g.node(*c).session)).collect()
    }
}

/// Counts of one project.
pub fn project_counts(p: &Project) -> Counts {
    counts_with(p, &OwnForks::default())
}

fn counts_with(p: &Project, own: &OwnForks) -> Counts {
    let g = &p.graph;
    let mut by_uuid = 0u64;
    let mut last = None;
    let mut aliased: Vec<NodeId> = g.aliases.iter().map(|(n, _)| *n).collect();
    aliased.sort_unstable();
    for n in aliased {
        if last != Some(n) {
            by_uuid += 1;
            last = Some(n);
        }
    }
    let compactions = |k: CompactionKind| g.nodes.iter().filter(|n| n.compaction == Some(k)).count() as u64;
    let (mut conversations, mut branches, mut fork_points) = (0, 0, 0);
    for c in g.conversations.iter().filter(|c| own.keeps_conversation(g, c)) {
        conversations += 1;
        branches += c.branches.iter().filter(|b| own.keeps_branch(g, **b)).count() as u64;
        fork_points += c.fork_points.iter().filter(|f| own.fork_children(g, f).len() >= 2).count() as u64;
    }
    Counts {
        projects: 1,
        files: p.source.files.len() as u64,
        lines: p.file_stats.iter().map(|f| f.lines).sum(),
        bad_lines: p.file_stats.iter().map(|f| f.bad_lines).sum(),
        entries: p.entries.len() as u64,
        nodes: g.nodes.len() as u64,
        duplicate_uuids: by_uuid,
        roots: g.roots().count() as u64,
        leaves: g.children.iter().filter(|c| c.is_empty()).count() as u64,
        multi_child_nodes: g.children.iter().filter(|c| c.len() >= 2).count() as u64,
        fork_points,
        conversations,
        branches,
        sidechain_nodes: g.nodes.iter().filter(|n| n.sidechain).count() as u64,
        agents: g.agents.len() as u64,
        summaries: g.summaries.len() as u64,
        summaries_attached: g.summaries.iter().filter(|s| s.node.is_some()).count() as u64,
        compactions: u64::from(g.compactions),
        compactions_full: compactions(CompactionKind::Full),
        compactions_from: compactions(CompactionKind::From),
        compactions_up_to: compactions(CompactionKind::UpTo),
        compactions_kept_messages: g.splices.len() as u64,
        microcompactions: compactions(CompactionKind::Micro),
        bytes: p.file_stats.iter().map(|f| f.bytes).sum(),
        own_forks: if own.0.is_empty() { g.own_fork_sessions(&p.entries).len() as u64 } else { 0 },
    }
}

/// Detail of one project.
pub fn project_detail(p: &Project, counts: Counts, opts: StatsOptions) -> ProjectDetail {
    let g = &p.graph;
    let e = &p.entries;
    let uuid = |n: NodeId| g.uuid(e, n).to_string();
    let own = OwnForks::of(p, opts.exclude_own_forks);
    let conversations = g
        .conversations
        .iter()
        .filter(|c| own.keeps_conversation(g, c))
        .map(|c| ConversationDetail {
            id: uuid(c.root),
            root: uuid(c.root),
            title: c.title.to_string(),
            messages: c.messages,
            sessions: c.sessions.iter().map(|s| g.sessions[*s].session_id.to_string()).collect(),
            active_branch: uuid(g.branches[c.active_branch].first),
            last_active: crate::timestamp::format_timestamp(c.last_ts),
            fork_points: c
                .fork_points
                .iter()
                .filter(|f| own.fork_children(g, f).len() >= 2)
                .map(|f| ForkDetail {
                    uuid: uuid(f.node),
                    kind: f.kind.name(),
                    children: own.fork_children(g, f).into_iter().map(uuid).collect(),
                })
                .collect(),
            branches: c
                .branches
                .iter()
                .filter(|b| own.keeps_branch(g, **b))
                .map(|b| {
                    let br = &g.branches[*b];
                    BranchDetail {
                        id: uuid(br.first),
                        leaf: uuid(br.leaf),
                        fork_point: br.fork_point.map(uuid),
                        title: br.title.to_string(),
                        messages: br.messages,
                    }
                })
                .collect(),
            junctions: c
                .junctions
                .iter()
                .filter(|j| !own.0.contains(&j.session))
                .map(|j| JunctionDetail {
                    session: g.sessions[j.session].session_id.to_string(),
                    at: uuid(j.at),
                    kind: match j.kind {
                        crate::graph::JunctionKind::Continues => "continues",
                        crate::graph::JunctionKind::Branches => "branches",
                        crate::graph::JunctionKind::CctreeFork => "cctree-fork",
                    },
                })
                .collect(),
            only_in_archive: None,
        })
        .collect();
    let agents = g.agents.iter().map(|a| agent_detail(a, &uuid)).collect();
    ProjectDetail {
        name: p.source.name.clone(),
        dir: p.source.dir.display().to_string(),
        cwd: p.cwd().map(str::to_string),
        counts,
        conversations,
        agents,
        only_in_archive: None,
    }
}

fn agent_detail(a: &crate::graph::Agent, uuid: &impl Fn(NodeId) -> String) -> AgentDetail {
    AgentDetail {
        id: a.agent_id.to_string(),
        kind: match a.kind {
            crate::graph::AgentKind::Subagent => "subagent",
            crate::graph::AgentKind::SideAgent => "side-agent",
            crate::graph::AgentKind::Inline => "inline",
        },
        nodes: a.nodes.len(),
        spawn_tool_use: a.spawn.as_ref().and_then(|s| s.tool_use_id.as_deref().map(str::to_string)),
        spawn_result: a.spawn.as_ref().and_then(|s| s.result_node.map(uuid)),
    }
}

/// [`project_detail`] of a project of a `cctree sync` archive: with what exists only there.
fn project_detail_in(p: &Project, counts: Counts, opts: StatsOptions, here: Option<&ProjectOnlyHere>) -> ProjectDetail {
    let mut detail = project_detail(p, counts, opts);
    if let Some(h) = here {
        let roots: rustc_hash::FxHashSet<&str> =
            h.conversation_roots.iter().map(|n| p.graph.uuid(&p.entries, *n)).collect();
        for c in &mut detail.conversations {
            c.only_in_archive = Some(roots.contains(c.root.as_str()));
        }
        detail.only_in_archive = Some(h.counts.clone());
    }
    detail
}

/// Accumulates a report project by project (projects are dropped after each).
#[derive(Debug, Default)]
pub struct ReportBuilder {
    opts: StatsOptions,
    total: Counts,
    per_project: Vec<(String, Counts)>,
    details: Vec<ProjectDetail>,
    /// The record of a `cctree sync` archive, and what exists only there so far.
    archive: Option<(Record, OnlyHere)>,
    /// Only selected projects and conversations are added: archive-wide
    /// counts cover only their files.
    selected: bool,
    /// Files of the projects added that the source moved elsewhere.
    moved: u64,
    recovered: Option<RecoveredCounts>,
}

impl ReportBuilder {
    pub fn new(opts: StatsOptions) -> Self {
        ReportBuilder { opts, ..Default::default() }
    }

    /// The input is a `cctree sync` archive with this record.
    pub fn with_archive(mut self, record: Option<Record>) -> Self {
        self.archive = record.map(|r| (r, OnlyHere::default()));
        self
    }

    /// Only part of the archive is added (`--project`, `--conversation`…):
    /// what the sync record says about the archive is counted for the files
    /// of the projects added only.
    pub fn selected(mut self, selected: bool) -> Self {
        self.selected = selected;
        self
    }

    /// A prompt history is read: recovered sessions are counted (0 or more).
    pub fn with_history(mut self, read: bool) -> Self {
        self.recovered = read.then(RecoveredCounts::default);
        self
    }

    /// Counts recovered sessions (of a project, as selected).
    pub fn add_recovered(&mut self, sessions: &[crate::model::RecoveredSession]) {
        if let Some(r) = &mut self.recovered {
            r.sessions += sessions.len() as u64;
            r.prompts += sessions.iter().map(|s| s.prompts.len() as u64).sum::<u64>();
        }
    }

    pub fn add(&mut self, p: &Project) {
        let counts = counts_with(p, &OwnForks::of(p, self.opts.exclude_own_forks));
        self.total.add(&counts);
        self.per_project.push((p.source.name.clone(), counts.clone()));
        let here = self.archive.as_mut().map(|(record, total)| {
            self.moved += crate::sync::record::moved_of(record, &p.source);
            let here = only_here::of_project(p, record);
            total.add(&here.counts);
            here
        });
        if self.opts.detail {
            self.details.push(project_detail_in(p, counts, self.opts, here.as_ref()));
        }
    }

    pub fn finish(self) -> Report {
        let (selected, moved) = (self.selected, self.moved);
        let archive = self.archive.map(|(record, only_in_archive)| ArchiveDetail {
            moved_at_source: if selected {
                moved
            } else {
                record.gone.iter().filter(|g| g.moved_to.is_some()).count() as u64
            },
            source: record.source,
            only_in_archive,
        });
        Report {
            total: self.total,
            projects_detail: self.opts.detail.then_some(self.details),
            archive,
            recovered: self.recovered,
            per_project: self.per_project,
        }
    }
}

/// A table for terminals (names escaped, see [`crate::term`]), as narrow as
/// its numbers allow and no wider than `width` columns when it can: long
/// project names are cut from the left (`…` and their end) to fit.
pub fn table(r: &Report, width: Option<usize>) -> String {
    type Column = (&'static str, fn(&Counts) -> u64);
    let cols: [Column; 12] = [
        ("files", |c| c.files),
        ("lines", |c| c.lines),
        ("bad", |c| c.bad_lines),
        ("nodes", |c| c.nodes),
        ("dups", |c| c.duplicate_uuids),
        ("roots", |c| c.roots),
        ("leaves", |c| c.leaves),
        ("multi", |c| c.multi_child_nodes),
        ("forks", |c| c.fork_points),
        ("convs", |c| c.conversations),
        ("branches", |c| c.branches),
        ("sidechain", |c| c.sidechain_nodes),
    ];
    // Directory names come from the archive: escaped, one project per line.
    let mut rows: Vec<(String, &Counts)> =
        r.per_project.iter().map(|(n, c)| (crate::term::escape(n).into_owned(), c)).collect();
    rows.push(("TOTAL".into(), &r.total));
    // Each column as wide as its header or its widest number.
    let widths: Vec<usize> = cols
        .iter()
        .map(|(h, f)| rows.iter().map(|(_, c)| f(c).to_string().len()).max().unwrap_or(0).max(h.len()))
        .collect();
    let numbers: usize = widths.iter().map(|w| w + 1).sum();
    let longest = rows.iter().map(|(n, _)| n.chars().count()).max().unwrap_or(7);
    let room = width.map_or(48, |w| w.saturating_sub(numbers)).clamp(12, 48);
    let name_w = longest.clamp(7, room);
    let mut out = String::new();
    if width.is_some_and(|w| name_w.min(longest) + numbers > w) {
        // Too narrow for the table: each project's counts as a paragraph.
        for (name, c) in &rows {
            let counts: Vec<String> = cols.iter().map(|(h, f)| format!("{h} {}", f(c))).collect();
            let _ = writeln!(out, "{name}\n{}", crate::term::wrap(&format!("  {}", counts.join(", ")), width));
        }
        return with_totals(out, r, width);
    }
    let _ = write!(out, "{:<name_w$}", "project");
    for ((h, _), w) in cols.iter().zip(&widths) {
        let _ = write!(out, " {h:>w$}");
    }
    out.push('\n');
    for (name, c) in rows {
        let name: String = if name.chars().count() > name_w {
            let tail: String = name.chars().rev().take(name_w - 1).collect::<Vec<_>>().into_iter().rev().collect();
            format!("…{tail}")
        } else {
            name
        };
        let _ = write!(out, "{name:<name_w$}");
        for ((_, f), w) in cols.iter().zip(&widths) {
            let _ = write!(out, " {:>w$}", f(c));
        }
        out.push('\n');
    }
    with_totals(out, r, width)
}

/// The table's last lines: what the archive holds besides the counts.
fn with_totals(mut out: String, r: &Report, width: Option<usize>) -> String {
    let _ = writeln!(
        out,
        "{}",
        crate::term::wrap(
            &format!(
                "summaries {} (attached {}), compactions {} (full {}, from here {}, up to here {}; {} kept messages), \
         microcompactions {}, agents {}, {} bytes",
                r.total.summaries,
                r.total.summaries_attached,
                r.total.compactions,
                r.total.compactions_full,
                r.total.compactions_from,
                r.total.compactions_up_to,
                r.total.compactions_kept_messages,
                r.total.microcompactions,
                r.total.agents,
                r.total.bytes
            ),
            width
        )
    );
    if let Some(rc) = &r.recovered {
        use crate::term::plural;
        let line = format!(
            "recovered from the prompt history: {} whose transcript is gone ({})",
            plural(rc.sessions, "session", "sessions"),
            plural(rc.prompts, "prompt", "prompts")
        );
        let _ = writeln!(out, "{}", crate::term::wrap(&line, width));
    }
    if let Some(a) = &r.archive {
        let o = &a.only_in_archive;
        use crate::term::plural;
        let line = format!(
            "archive{}: kept after the source deleted it: {} ({}, {}), {} in {} found nowhere else; \
             {} of rewritten files; {} moved at the source",
            match a.source.as_str() {
                "" => String::new(),
                source => format!(" of {}", crate::term::escape(source)),
            },
            plural(o.files, "file", "files"),
            plural(o.lines, "line", "lines"),
            plural(o.bytes, "byte", "bytes"),
            plural(o.nodes, "node", "nodes"),
            plural(o.conversations, "conversation", "conversations"),
            plural(o.kept_versions, "previous version", "previous versions"),
            plural(a.moved_at_source, "file", "files")
        );
        let _ = writeln!(out, "{}", crate::term::wrap(&line, width));
    }
    out
}

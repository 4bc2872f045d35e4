//! What every page of a project needs to know about the others: where each
//! track (the active track of a conversation, a branch, an agent transcript) is
//! written, how its nodes are laid out, the label of each branch, and on
//! which track/item/page every node sits, so that links across pages (fork
//! index → branch, branch → parent message, tool call ↔ sub-agent) are
//! computed, never guessed.
//!
//! A node has one *home*: the page of its branch (or agent), whose URL never
//! depends on which branch is active. A conversation with forks also shows
//! its active track (root → active leaf) on the conversation page; a node on
//! that track is shown there too, and links from that page to it stay on it.

use crate::model::ForkBy;
use crate::project::Checkpoints;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::graph::{AgentId, AgentKind, BranchId, Conversation, ConversationId, Graph, NodeId, SessionId};
use crate::id::IdVec;
use crate::model::{Entries, EntryId};
use crate::project::Project;

use crate::cost::Prices;
use crate::graph::ForkPoint;
use crate::limits::{FORK_LISTED, FORK_PER_PAGE, GROUP_BUCKETS, GROUP_FORK_MIN};
use crate::render::site::images::ImageStore;
use crate::render::site::layout::{Item, ItemId, TrackLayout, layout};
use crate::render::site::redactor::Redactor;
use crate::render::site::spend::{self, Spend, Tally};
use crate::render::site::urls::{Href, Links, anchor, fork_anchor, page_count, page_file, sanitize_segment};

/// The shared page of a branch at a big fork: the first hex digits of the
/// BLAKE3 hash of its first uuid, one of [`GROUP_BUCKETS`].
fn bucket_name(uuid: &str) -> String {
    const DIGITS: usize = GROUP_BUCKETS.trailing_zeros() as usize / 4;
    const _: () = assert!(GROUP_BUCKETS.is_power_of_two() && GROUP_BUCKETS.trailing_zeros() % 4 == 0);
    blake3::hash(uuid.as_bytes()).to_hex()[..DIGITS].to_string()
}

/// A track with its own pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum TrackId {
    Branch(BranchId),
    Agent(AgentId),
    /// The active track of a conversation with forks (root → active leaf): the
    /// conversation page. A conversation without forks is read on the page
    /// of its one branch, at the same place.
    Active(ConversationId),
}

/// Where a node is shown.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NodeLoc {
    pub(crate) track: TrackId,
    pub(crate) item: ItemId,
}

/// Shared, read-only facts about one project's pages.
pub(crate) struct ProjectCtx<'a> {
    pub(crate) project: &'a Project,
    /// The project's directory in the site (`<slug>/`).
    pub(crate) dir: String,
    /// What the project is called on pages (its working directory).
    pub(crate) name: String,
    pub(crate) page_size: u32,
    pub(crate) conv_dirs: IdVec<ConversationId, String>,
    pub(crate) branch_dirs: IdVec<BranchId, String>,
    pub(crate) agent_dirs: IdVec<AgentId, String>,
    pub(crate) branch_layouts: IdVec<BranchId, TrackLayout>,
    pub(crate) agent_layouts: IdVec<AgentId, TrackLayout>,
    /// The layout of each conversation's active track (empty for a
    /// conversation without forks: its branch's layout is the page).
    pub(crate) active_layouts: IdVec<ConversationId, TrackLayout>,
    /// Item of each node on its conversation's active track (`None` when it
    /// is not on it, or the conversation has no forks).
    pub(crate) active_item: IdVec<NodeId, Option<ItemId>>,
    /// `23.2`-style label of each branch (`main` for main branches).
    pub(crate) labels: IdVec<BranchId, String>,
    /// Message number of each fork point node.
    pub(crate) fork_numbers: FxHashMap<NodeId, u32>,
    /// What each fork point is called ([`ProjectCtx::name_forks`]): its
    /// message number (`14`), qualified by the branch it is on where the
    /// number repeats (`8.1/14`), or lettered (`14b`). Its branches are
    /// `<key>.1`, `<key>.2`…
    pub(crate) fork_keys: FxHashMap<NodeId, String>,
    /// The label of the branch each fork point is on, as the map and the
    /// fork-point index nest it (`main`, `12.2`, or `8.1`: the rest of a
    /// branch after a fork the active line leaves it at).
    pub(crate) fork_lines: FxHashMap<NodeId, String>,
    pub(crate) loc: IdVec<NodeId, Option<NodeLoc>>,
    /// tool_use id → agent it spawned.
    pub(crate) agent_by_tool: FxHashMap<&'a str, AgentId>,
    pub(crate) images: &'a ImageStore<'a>,
    pub(crate) warnings: &'a PageWarnings,
    /// `--redact` for strings that are not entry lines (side files, paths).
    pub(crate) redactor: &'a Redactor,
    /// Legal `cctree fork` checkpoints, by node, when the project's agent
    /// judges them over the whole project (agent nodes are never legal;
    /// those judged per conversation: below).
    pub(crate) legal: IdVec<NodeId, bool>,
    /// Legal checkpoints judged on each branch's projection
    /// per conversation when a page of it first asks ([`ProjectCtx::checkpoint`]):
    /// for each branch of the conversation (in its order), a flag per node
    /// of its own run. A turn appended to one conversation judges that one.
    legal_by_conversation: IdVec<ConversationId, std::sync::OnceLock<Vec<Vec<bool>>>>,
    /// Where each branch is among its conversation's branches.
    branch_ix: IdVec<BranchId, usize>,
    /// Position of each node in its branch's run (for the end of an item).
    pub(crate) pos: IdVec<NodeId, usize>,
    /// The fork points on each branch, by their position on it.
    line_forks: FxHashMap<BranchId, Vec<(usize, NodeId)>>,
    /// Sessions written by `cctree fork`.
    pub(crate) own_forks: FxHashSet<SessionId>,
    /// Copies of a node's uuid whose content differs (P1): shown with the node,
    /// so nothing readable is lost.
    pub(crate) conflicts: FxHashMap<NodeId, Vec<EntryId>>,
    pub(crate) paths: InputPaths,
    /// How pages link to each other: as files of the site, or as sections of
    /// one file (`cctree export`).
    pub(crate) links: Links,
    /// Each branch that shares its page with others ([`ProjectCtx::group_short_branches`])
    /// → the first branch of its group, whose page it is.
    pub(crate) group_lead: FxHashMap<BranchId, BranchId>,
    /// The branches of each shared page, by its first branch, in fork order.
    pub(crate) group_members: FxHashMap<BranchId, Vec<BranchId>>,
    /// The price table replies are priced with.
    pub(crate) prices: Arc<Prices>,
    /// The agent transcripts spawned from each branch ([`spend::agent_homes`]).
    pub(crate) agent_homes: FxHashMap<BranchId, Vec<(AgentId, NodeId)>>,
    /// What the whole project spent, tallied once ([`ProjectCtx::project_spend`]:
    /// the project index and the build summary both show it).
    project_spend: std::sync::OnceLock<Spend>,
    /// What each node gives a compare page's column, read once for all the
    /// compare pages (a node on a long line is in the column of every fork
    /// before it).
    pub(crate) compare_facts: IdVec<NodeId, std::sync::OnceLock<CompareFacts>>,
    /// What the compare columns read of each branch, made once for all the
    /// forks along it (a line of N forks is the column of each: read whole
    /// for each, N² nodes).
    pub(crate) compare_rests: IdVec<BranchId, std::sync::OnceLock<BranchRest>>,
}

/// How the pages of a project name places on the publisher's disk.
#[derive(Debug, Clone, Default)]
pub(crate) struct InputPaths {
    /// `--show-paths`: input files by their full path (else from the project directory).
    pub(crate) show: bool,
    /// The `--projects` argument of fork commands ([`crate::fork::lookup`]).
    pub(crate) fork_projects: Option<String>,
    /// The working directory the project is named by ([`super::Placement::cwd`]).
    pub(crate) cwd: Option<String>,
    /// Which checkpoints a fork may cut at ([`super::Placement::checkpoints`]).
    pub(crate) checkpoints: crate::project::Checkpoints,
}

impl<'a> ProjectCtx<'a> {
    pub(crate) fn new(
        project: &'a Project,
        slug: &str,
        opts: &super::RenderOptions,
        images: &'a ImageStore<'a>,
        warnings: &'a PageWarnings,
        redactor: &'a Redactor,
        paths: InputPaths,
    ) -> ProjectCtx<'a> {
        let page_size = opts.page_size.max(1);
        let g = &project.graph;
        let e = &project.entries;
        let dir = format!("{slug}/");
        let seg = |n: NodeId| sanitize_segment(g.uuid(e, n));
        let conv_dirs: IdVec<ConversationId, String> =
            g.conversations.iter().map(|c| format!("{dir}c/{}/", seg(c.root))).collect();
        let branch_dirs = g
            .branches
            .iter()
            .map(|b| {
                let cd = &conv_dirs[b.conversation];
                // Every branch of a conversation with forks has its own
                // page, the main branch too; a conversation without forks is
                // read at its own URL.
                if g.conversations[b.conversation].branches.len() < 2 {
                    cd.clone()
                } else {
                    format!("{cd}b/{}/", seg(b.first))
                }
            })
            .collect();
        let agent_dirs = g.agents.iter().map(|a| format!("{dir}agents/{}/", sanitize_segment(&a.agent_id))).collect();
        let mut ctx = ProjectCtx {
            project,
            name: paths.cwd.clone().unwrap_or_else(|| {
                let dir =
                    if paths.show { project.source.dir.display().to_string() } else { project.source.name.clone() };
                redactor.text(|| dir.clone(), &dir).into_owned()
            }),
            dir,
            page_size,
            conv_dirs,
            branch_dirs,
            agent_dirs,
            branch_layouts: IdVec::filled(TrackLayout::default(), g.branches.len()),
            agent_layouts: IdVec::new(),
            active_layouts: IdVec::filled(TrackLayout::default(), g.conversations.len()),
            active_item: IdVec::filled(None, g.nodes.len()),
            labels: IdVec::filled("main".to_string(), g.branches.len()),
            fork_numbers: FxHashMap::default(),
            fork_keys: FxHashMap::default(),
            fork_lines: FxHashMap::default(),
            loc: IdVec::filled(None, g.nodes.len()),
            agent_by_tool: FxHashMap::default(),
            images,
            warnings,
            redactor,
            legal: IdVec::new(),
            legal_by_conversation: IdVec::new(),
            branch_ix: IdVec::filled(usize::MAX, g.branches.len()),
            pos: IdVec::filled(0, g.nodes.len()),
            line_forks: FxHashMap::default(),
            own_forks: g.own_fork_sessions(e),
            conflicts: g
                .findings
                .iter()
                .filter_map(|f| match &f.problem {
                    crate::graph::Problem::ConflictingDuplicate { uuid, others } => {
                        g.index.get(&**uuid).map(|n| (*n, others.clone()))
                    }
                    _ => None,
                })
                .collect(),
            paths,
            links: Links::Site,
            group_lead: FxHashMap::default(),
            group_members: FxHashMap::default(),
            prices: opts.prices.prices.clone(),
            agent_homes: spend::agent_homes(g),
            compare_facts: (0..g.nodes.len()).map(|_| std::sync::OnceLock::new()).collect(),
            compare_rests: (0..g.branches.len()).map(|_| std::sync::OnceLock::new()).collect(),
            project_spend: std::sync::OnceLock::new(),
        };
        ctx.lay_out(g, e);
        ctx.judge_checkpoints(g);
        ctx
    }

    /// What the calls among `nodes` spent, each call once.
    pub(crate) fn spend_of(&self, nodes: impl Iterator<Item = NodeId>) -> Spend {
        let (g, e) = (self.graph(), self.entries());
        let mut t = Tally::new(&self.prices);
        nodes.for_each(|n| t.add(g.entry(e, n)));
        t.finish()
    }

    /// What a conversation spent: every branch, and the agents spawned from them.
    pub(crate) fn conversation_spend(&self, c: &Conversation) -> Spend {
        let g = self.graph();
        self.spend_of(spend::with_agents(g, &self.agent_homes, c.branches.iter().copied()))
    }

    /// Whether some sub-agent (or side agent) was spawned from one of
    /// `branches`: what a total of them says it includes.
    pub(crate) fn spawned_agents(&self, branches: impl IntoIterator<Item = BranchId>) -> bool {
        branches.into_iter().any(|b| self.agent_homes.get(&b).is_some_and(|a| !a.is_empty()))
    }

    /// What a branch spent from its fork point on (its own messages), and the
    /// agents spawned from them.
    pub(crate) fn branch_spend(&self, b: BranchId) -> Spend {
        self.spend_of(spend::with_agents(self.graph(), &self.agent_homes, [b]))
    }

    /// What the whole project spent: every transcript (conversations,
    /// fragments, sub-agents and side agents).
    pub(crate) fn project_spend(&self) -> Spend {
        *self.project_spend.get_or_init(|| self.spend_of(self.graph().nodes.ids()))
    }

    /// Positions of every node in its branch's run, and the legal
    /// checkpoints when the project's agent judges them over the whole
    /// project at once; those it judges per conversation are judged when a
    /// page of the conversation first asks ([`ProjectCtx::branch_legal`]).
    fn judge_checkpoints(&mut self, g: &Graph) {
        let project = self.project;
        for b in &g.branches {
            for (i, &n) in b.nodes.iter().enumerate() {
                self.pos[n] = i;
            }
        }
        for c in &g.conversations {
            for f in &c.fork_points {
                self.line_forks.entry(f.branch).or_default().push((self.pos[f.node], f.node));
            }
        }
        for list in self.line_forks.values_mut() {
            list.sort_unstable();
        }
        self.legal = IdVec::filled(false, g.nodes.len());
        match self.paths.checkpoints {
            Checkpoints::None => {}
            Checkpoints::Nodes(judge) => {
                for n in judge(project) {
                    self.legal[n] = true;
                }
            }
            Checkpoints::Branches(_) => {
                for c in &g.conversations {
                    for (i, &b) in c.branches.iter().enumerate() {
                        self.branch_ix[b] = i;
                    }
                }
                self.legal_by_conversation = g.conversations.iter().map(|_| std::sync::OnceLock::new()).collect();
            }
        }
    }

    /// Whether node `n`, of branch `b`'s own run, is a legal checkpoint of a
    /// project whose agent judges them per conversation: judged once per
    /// branch over its whole projection (ancestors' runs up to the fork,
    /// then its own run), for every branch of its conversation at once
    /// (their legality depends on their chain only: linear in the nodes,
    /// not in the projections).
    fn branch_legal(&self, b: BranchId, n: NodeId) -> bool {
        let Checkpoints::Branches(judge) = self.paths.checkpoints else { return self.legal[n] };
        let g = self.graph();
        let c = g.branches[b].conversation;
        let (Some(cell), Some(&ix)) = (self.legal_by_conversation.get(c), self.branch_ix.get(b)) else { return false };
        let flags = cell.get_or_init(|| judge(self.project, &g.conversations[c].branches));
        flags.get(ix).and_then(|f| f.get(self.pos[n])).copied().unwrap_or(false)
    }

    /// The checkpoint a message stands for, when it is legal: the last of
    /// its entries (for a streamed assistant turn, its last block), or, when
    /// the tool results it shows come later on the track, the last of those.
    pub(crate) fn checkpoint(&self, track: TrackId, item: &Item) -> Option<NodeId> {
        let g = self.graph();
        let b = match track {
            TrackId::Branch(b) => b,
            // The active track crosses branches; an item lies on one.
            TrackId::Active(_) => g.node(item.nodes[0]).branch?,
            TrackId::Agent(_) => return None,
        };
        let last = item
            .nodes
            .iter()
            .chain(&item.absorbed)
            .filter(|n| g.node(**n).branch == Some(b))
            .max_by_key(|n| self.pos[**n])
            .copied()?;
        self.branch_legal(b, last).then_some(last)
    }

    /// The `cctree fork` command for a legal checkpoint, naming the session
    /// as its agent says ([`crate::model::Reader::fork_by`]): by its session
    /// id (Claude Code's), or by the message's own id, which names the file
    /// holding it (Codex CLI's `<history>:<ordinal>`, a Gemini CLI message id).
    pub(crate) fn fork_command(&self, node: NodeId) -> String {
        let g = self.graph();
        let at = g.uuid(self.entries(), node);
        let session = match self.project.source.client.reader().fork_by() {
            ForkBy::Message => at,
            ForkBy::Session => {
                let e = g.entry(self.entries(), node);
                e.session_id.as_deref().unwrap_or_else(|| &g.sessions[g.node(node).session].session_id)
            }
        };
        crate::model::fork_command(session, at, self.paths.fork_projects.as_deref())
    }

    /// `path:line` of an entry for a page: from the project directory
    /// (`<project>/<file>:<line>`), or the full path with `--show-paths`.
    pub(crate) fn place(&self, loc: crate::model::Loc) -> String {
        let p = self.project;
        match p.source.files.get(loc.file) {
            Some(f) if !self.paths.show => format!("{}/{}:{}", p.source.name, f.rel, loc.line),
            _ => p.locate(loc),
        }
    }

    fn lay_out(&mut self, g: &'a Graph, e: &Entries) {
        for c in &g.conversations {
            // Parents come before their children in `c.branches`.
            for &b in &c.branches {
                let br = &g.branches[b];
                let first_number = match (br.fork_point, br.parent_branch) {
                    (Some(f), Some(_)) => *self.fork_numbers.get(&f).unwrap_or(&0),
                    _ => 0,
                };
                let lay = layout(self.project.source.client, g, e, &br.nodes, first_number, self.page_size);
                self.index(TrackId::Branch(b), &lay);
                for fp in g.forks_on(b) {
                    let n = self.loc[fp.node].map_or(0, |l| lay.items[l.item].number);
                    self.fork_numbers.insert(fp.node, n);
                }
                self.branch_layouts[b] = lay;
            }
        }
        for (i, c) in g.conversations.iter_enumerated().filter(|(_, c)| c.branches.len() > 1) {
            let lay = layout(self.project.source.client, g, e, &g.projection(c.active_branch), 0, self.page_size);
            for (ix, item) in lay.items.iter_enumerated() {
                for &n in item.nodes.iter().chain(&item.absorbed) {
                    self.active_item[n] = Some(ix);
                }
            }
            self.active_layouts[i] = lay;
            let last = self.active_layouts[i].items.last().map_or(0, |it| it.number);
            self.name_forks(g, c, last);
        }
        for (i, a) in g.agents.iter_enumerated() {
            let lay = layout(self.project.source.client, g, e, &a.nodes, 0, self.page_size);
            self.index(TrackId::Agent(i), &lay);
            self.agent_layouts.push(lay);
            if let Some(t) = a.spawn.as_ref().and_then(|s| s.tool_use_id.as_deref()) {
                if a.kind == AgentKind::Subagent || !self.agent_by_tool.contains_key(t) {
                    self.agent_by_tool.insert(t, i);
                }
            }
        }
    }

    /// Puts the short branches of each fork point of [`GROUP_FORK_MIN`]
    /// branches or more on shared pages: a branch of one page without a
    /// fork of its own is read on page `f/<fork uuid>/<hhh>/` of its
    /// conversation, where `hhh` are the first hex digits of the BLAKE3 hash
    /// of its first uuid (one of [`GROUP_BUCKETS`]), at the anchor
    /// `#b-<uuid>`. The URL depends on the branch alone: siblings added
    /// later never move it. Forks with fewer branches (every ordinary
    /// archive) keep one page per branch. Not for `cctree export`.
    pub(crate) fn group_short_branches(&mut self) {
        let g = self.graph();
        let e = self.entries();
        for c in &g.conversations {
            for fp in c.fork_points.iter().filter(|f| f.children.len() >= GROUP_FORK_MIN) {
                let fork_dir = self.fork_dir(fp.node);
                let mut buckets: std::collections::BTreeMap<String, Vec<BranchId>> = Default::default();
                for &child in fp.children.iter().skip(1) {
                    let Some(cb) = g.node(child).branch.filter(|cb| g.branches[*cb].first == child) else { continue };
                    if self.branch_layouts[cb].pages > 1 || g.forks_on(cb).next().is_some() {
                        continue;
                    }
                    buckets.entry(bucket_name(g.uuid(e, child))).or_default().push(cb);
                }
                for (name, members) in buckets {
                    let dir = format!("{fork_dir}{name}/");
                    for &m in &members {
                        self.branch_dirs[m] = dir.clone();
                        self.group_lead.insert(m, members[0]);
                    }
                    self.group_members.insert(members[0], members);
                }
            }
        }
    }

    /// Whether a track has pages of its own (a branch on a shared page
    /// other than its first has none: it is read on that page).
    pub(crate) fn has_pages(&self, track: TrackId) -> bool {
        match track {
            TrackId::Branch(b) => self.group_lead.get(&b).is_none_or(|lead| *lead == b),
            _ => true,
        }
    }

    /// The branches read on the page of `b`: itself, or the members of
    /// the shared page it leads.
    pub(crate) fn page_branches(&self, b: BranchId) -> Vec<BranchId> {
        self.group_members.get(&b).cloned().unwrap_or_else(|| vec![b])
    }

    /// A link to where branch `b` is read: its own page, or its place on
    /// a shared page.
    pub(crate) fn branch_href(&self, from_dir: &str, b: BranchId) -> Href {
        // One file: each message once, the active line's in the first
        // section; a branch is where its first message is.
        if self.links == Links::OneFile {
            let first = self.graph().branches[b].first;
            if let Some(h) = self.message_link(from_dir, None, first, true) {
                return h;
            }
        }
        let frag = self.group_lead.contains_key(&b).then(|| self.branch_anchor(b));
        self.href(from_dir, &self.branch_dirs[b], &page_file(0), frag.as_deref())
    }

    /// The directory of the compare page of fork point `fork`:
    /// `<conversation>/compare/<fork uuid>/`.
    pub(crate) fn compare_dir(&self, fork: NodeId) -> String {
        let g = self.graph();
        let conv = g.node(fork).conversation.map_or("", |c| self.conv_dirs[c].as_str());
        format!("{conv}compare/{}/", sanitize_segment(g.uuid(self.entries(), fork)))
    }

    /// A link from `from_dir` to the compare page of `fork` (in a one-file
    /// export, its section).
    pub(crate) fn compare_href(&self, from_dir: &str, fork: NodeId) -> Option<Href> {
        Some(self.href(from_dir, &self.compare_dir(fork), &page_file(0), None))
    }

    /// The anchor of a branch on a shared page: `b-<first uuid>`.
    pub(crate) fn branch_anchor(&self, b: BranchId) -> String {
        format!("b-{}", sanitize_segment(self.graph().uuid(self.entries(), self.graph().branches[b].first)))
    }

    /// The directory of a fork point's own pages (its list of branches,
    /// its shared pages): `<conversation>/f/<fork uuid>/`.
    pub(crate) fn fork_dir(&self, fork: NodeId) -> String {
        let g = self.graph();
        let conv = g.node(fork).conversation.map_or("", |c| self.conv_dirs[c].as_str());
        format!("{conv}f/{}/", sanitize_segment(g.uuid(self.entries(), fork)))
    }

    /// Names the fork points of conversation `c` and its branches, one
    /// scheme for the map, the fork-point index, the landmarks and the
    /// branch pages. A fork is called by its message number (`#14`, its
    /// branches `14.1`, `14.2`…) where that says which fork it is: on the
    /// active line (whose numbers the conversation page shows), or off it
    /// at a number neither the active line nor another fork has. Elsewhere
    /// the number repeats, and the fork is qualified by the branch it is on
    /// (`#14 on 8.1`, its branches `8.1/14.2`…: the last part of that
    /// branch's label, or all of it where the last part repeats too), or,
    /// where even that repeats or grows past [`FORK_QUALIFIER_CHARS`],
    /// lettered (`#14b`, `14b.2`). The branch a fork is on is the one the
    /// map and the index nest it under: its own label until a fork the
    /// active line leaves it at, then that fork's `.1`. Parents are named
    /// before their children (`c.branches` is in that order); linear.
    fn name_forks(&mut self, g: &Graph, c: &Conversation, active_last: u32) {
        use crate::limits::FORK_QUALIFIER_CHARS;
        let mut letter: FxHashMap<u32, u32> = FxHashMap::default();
        let mut per_number: FxHashMap<u32, u32> = FxHashMap::default();
        for fp in &c.fork_points {
            *per_number.entry(self.fork_numbers.get(&fp.node).copied().unwrap_or(0)).or_default() += 1;
        }
        let mut used: FxHashSet<String> = FxHashSet::default();
        for (i, &b) in c.branches.iter().enumerate() {
            let mut line = if i == 0 { "main".to_string() } else { self.labels[b].clone() };
            for fp in g.forks_on(b) {
                let n = self.fork_numbers.get(&fp.node).copied().unwrap_or(0);
                let on = self.on_active_track(fp.node);
                let repeats = !on && (n <= active_last || per_number.get(&n).is_some_and(|k| *k > 1));
                let short = line.rsplit('/').next().unwrap_or(&line);
                let candidates = [
                    (!repeats).then(|| n.to_string()),
                    repeats.then(|| format!("{short}/{n}")),
                    (repeats && line.len() <= FORK_QUALIFIER_CHARS).then(|| format!("{line}/{n}")),
                ];
                let key = candidates.into_iter().flatten().find(|k| !used.contains(k)).unwrap_or_else(|| {
                    loop {
                        let k = letter.entry(n).or_default();
                        *k += 1;
                        let key = format!("{n}{}", letters(*k));
                        if !used.contains(&key) {
                            break key;
                        }
                    }
                });
                used.insert(key.clone());
                for (k, child) in fp.children.iter().enumerate().skip(1) {
                    if let Some(label) = g.node(*child).branch.and_then(|cb| self.labels.get_mut(cb)) {
                        *label = format!("{key}.{}", k + 1);
                    }
                }
                self.fork_lines.insert(fp.node, line.clone());
                // The active line leaves here: the rest of the branch is
                // `.1`, beside it.
                let leaves = on && fp.children.iter().skip(1).any(|ch| self.on_active_track(*ch));
                if leaves {
                    line = format!("{key}.1");
                }
                self.fork_keys.insert(fp.node, key);
            }
        }
    }

    /// What fork point `node` is called on pages: `#14`, `#14 on 8.1`, `#14b`.
    pub(crate) fn fork_name(&self, node: NodeId) -> String {
        match self.fork_keys.get(&node) {
            Some(key) => match key.rsplit_once('/') {
                Some((on, n)) => format!("#{n} on {on}"),
                None => format!("#{key}"),
            },
            None => format!("#{}", self.fork_numbers.get(&node).copied().unwrap_or(0)),
        }
    }

    /// The label of the `k`-th branch (from 0) of fork point `node`: `14.1`,
    /// `8.1/14.2`, `14b.3`.
    pub(crate) fn fork_branch_label(&self, node: NodeId, k: usize) -> String {
        match self.fork_keys.get(&node) {
            Some(key) => format!("{key}.{}", k + 1),
            None => format!("{}.{}", self.fork_numbers.get(&node).copied().unwrap_or(0), k + 1),
        }
    }

    /// The branch a message of a conversation with forks is read on, as the
    /// map and the fork-point index name it: `main`, `12.2`, or after a
    /// fork on its branch that fork's `.1` (`15.1`).
    pub(crate) fn line_name(&self, node: NodeId) -> Option<String> {
        let b = self.graph().node(node).branch?;
        Some(match self.fork_before(node) {
            Some(f) => self.fork_branch_label(f, 0),
            None => self.labels[b].clone(),
        })
    }

    /// What tells the `k`-th branch of fork point `fp` from a sibling that
    /// starts with the same words (a rewind that asked the same again, two
    /// copies resumed alike): its session and the second it started, else
    /// nothing (among the first [`FORK_LISTED`] branches, which pages name).
    pub(crate) fn sibling_detail(&self, fp: &ForkPoint, k: usize) -> Option<String> {
        let g = self.graph();
        let words = |k: usize| {
            crate::render::plain::prompt_words(self.project.source.client, fp.labels.get(k).map_or("", |l| &**l), 80)
        };
        let mine = words(k);
        let twin = (0..fp.children.len().min(FORK_LISTED + 1)).any(|j| j != k && words(j) == mine);
        if !twin {
            return None;
        }
        let child = *fp.children.get(k)?;
        let node = g.node(child);
        let session: String = g.sessions[node.session].session_id.chars().take(8).collect();
        let at = crate::timestamp::format_timestamp(node.ts);
        Some(format!("session {session} · started {} UTC", at.get(11..19).unwrap_or(&at)))
    }

    /// The messages a reader counts on branch `b`'s own part (its numbered
    /// messages: what its page numbers, the fork-point index and the
    /// compare page count alike).
    pub(crate) fn branch_messages(&self, b: BranchId) -> u32 {
        let n = self.branch_layouts[b].items.iter().filter(|i| i.counted).count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// The last fork point before `node` on its branch, if any.
    pub(crate) fn fork_before(&self, node: NodeId) -> Option<NodeId> {
        let b = self.graph().node(node).branch?;
        let forks = self.line_forks.get(&b).map_or(&[][..], Vec::as_slice);
        let before = forks.partition_point(|(p, _)| *p < self.pos[node]);
        before.checked_sub(1).map(|k| forks[k].1)
    }

    /// How a branch page names the branch fork point `node` is on: `the
    /// main branch`, `branch 8.1`.
    pub(crate) fn fork_line_name(&self, node: NodeId) -> String {
        match self.fork_lines.get(&node).map(String::as_str) {
            None | Some("main") => "the main branch".to_string(),
            Some(l) => format!("branch {l}"),
        }
    }

    fn index(&mut self, track: TrackId, lay: &TrackLayout) {
        for (i, item) in lay.items.iter_enumerated() {
            for &n in item.nodes.iter().chain(&item.absorbed) {
                self.loc[n] = Some(NodeLoc { track, item: i });
            }
        }
    }

    pub(crate) fn graph(&self) -> &'a Graph {
        &self.project.graph
    }

    /// How replies are labelled: the name of the project's agent.
    pub(crate) fn agent_label(&self) -> &'static str {
        self.project.source.client.label()
    }

    /// The product's name of the project's agent (`Claude Code`, `Gemini CLI`).
    pub(crate) fn product(&self) -> &'static str {
        self.project.source.client.product()
    }

    pub(crate) fn entries(&self) -> &'a Entries {
        &self.project.entries
    }

    pub(crate) fn track_dir(&self, track: TrackId) -> &str {
        match track {
            TrackId::Branch(b) => &self.branch_dirs[b],
            TrackId::Agent(a) => &self.agent_dirs[a],
            TrackId::Active(c) => &self.conv_dirs[c],
        }
    }

    pub(crate) fn track_layout(&self, track: TrackId) -> &TrackLayout {
        match track {
            TrackId::Branch(b) => &self.branch_layouts[b],
            TrackId::Agent(a) => &self.agent_layouts[a],
            TrackId::Active(c) => &self.active_layouts[c],
        }
    }

    /// The track the conversation page shows: the active track of a
    /// conversation with forks, else its one branch.
    pub(crate) fn conversation_track(&self, c: &Conversation) -> TrackId {
        match self.graph().node(c.root).conversation {
            Some(i) if c.branches.len() > 1 => TrackId::Active(i),
            _ => TrackId::Branch(c.branches[0]),
        }
    }

    /// The item showing `node` on `track`, if the track shows it.
    pub(crate) fn item_on(&self, track: TrackId, node: NodeId) -> Option<ItemId> {
        match track {
            TrackId::Active(c) => self.active_item[node].filter(|_| self.graph().node(node).conversation == Some(c)),
            _ => self.loc[node].filter(|l| l.track == track).map(|l| l.item),
        }
    }

    /// Whether `node` is on its conversation's active track (in a
    /// conversation with forks: a fork's child there leads to the active leaf).
    pub(crate) fn on_active_track(&self, node: NodeId) -> bool {
        self.active_item[node].is_some()
    }

    /// Where a link from a page of `from` finds `node`: on that track when it
    /// shows the node (the conversation page keeps the reader on the active
    /// track), else at the node's home.
    pub(crate) fn place_of(&self, from: Option<TrackId>, node: NodeId) -> Option<NodeLoc> {
        match from.and_then(|l| self.item_on(l, node).map(|item| NodeLoc { track: l, item })) {
            Some(here) => Some(here),
            None => self.loc[node],
        }
    }

    /// A link from a page in `from_dir` to the anchor of `node` at its home.
    pub(crate) fn node_href(&self, from_dir: &str, node: NodeId) -> Option<Href> {
        self.node_link(from_dir, None, node)
    }

    /// A link from a page of `from` (in `from_dir`) to the anchor of `node`:
    /// on `from` when it shows the node, else at its home.
    pub(crate) fn node_link(&self, from_dir: &str, from: Option<TrackId>, node: NodeId) -> Option<Href> {
        let at = self.place_of(from, node)?;
        let page = self.track_layout(at.track).items[at.item].page;
        let a = anchor(self.graph().uuid(self.entries(), node));
        Some(self.href(from_dir, self.track_dir(at.track), &page_file(page), Some(&a)))
    }

    /// A link from a page in `from_dir` to `file` in `to_dir` (see
    /// [`crate::render::site::urls::href`]), as this render links pages ([`Links`]).
    pub(crate) fn href(&self, from_dir: &str, to_dir: &str, file: &str, frag: Option<&str>) -> Href {
        self.links.href(from_dir, to_dir, file, frag)
    }

    /// A link to the message a reader sees for `node`: the item showing it
    /// when that is a message shown by default, else the nearest such
    /// message on its track — after it (`forward`, for where a branch starts)
    /// or before it (for where a track forks) — so that a link never lands
    /// on an entry the page hides.
    pub(crate) fn message_link(
        &self,
        from_dir: &str,
        from: Option<TrackId>,
        node: NodeId,
        forward: bool,
    ) -> Option<Href> {
        let at = self.place_of(from, node)?;
        let lay = self.track_layout(at.track);
        let (before, after) = (lay.shown_before[at.item], lay.shown_after[at.item]);
        let pick = if forward { after.or(before) } else { before.or(after) };
        let item = &lay.items[pick.unwrap_or(at.item)];
        let a = anchor(self.graph().uuid(self.entries(), item.nodes[0]));
        Some(self.href(from_dir, self.track_dir(at.track), &page_file(item.page), Some(&a)))
    }

    /// A link to the fork-point landmark of `fork` (see
    /// [`crate::render::views::blocks::ForkNote`]): on `from` when it shows the fork,
    /// else on the page of the fork's branch.
    pub(crate) fn fork_link(&self, from_dir: &str, from: Option<TrackId>, fork: NodeId) -> Option<Href> {
        let at = self.place_of(from, fork)?;
        let page = self.track_layout(at.track).items[at.item].page;
        let a = fork_anchor(self.graph().uuid(self.entries(), fork));
        Some(self.href(from_dir, self.track_dir(at.track), &page_file(page), Some(&a)))
    }

    /// Records a problem met while rendering `page` (a path in the site).
    pub(crate) fn warn(&self, page: &str, what: std::fmt::Arguments<'_>) {
        self.warnings.push(page, what.to_string());
    }
}

/// Whether a fork point has a list of its own (more branches than are named).
pub(crate) fn listed_apart(fp: &ForkPoint) -> bool {
    fp.children.len() > FORK_LISTED
}

/// Every fork point with a list of its own, with its pages: `(fork, pages)`.
pub(crate) fn fork_lists(ctx: &ProjectCtx<'_>) -> Vec<(NodeId, u32)> {
    let per = u32::try_from(FORK_PER_PAGE).unwrap_or(u32::MAX);
    ctx.graph()
        .conversations
        .iter()
        .flat_map(|c| c.fork_points.iter())
        .filter(|fp| listed_apart(fp))
        .map(|fp| (fp.node, page_count(u32::try_from(fp.children.len()).unwrap_or(u32::MAX), per)))
        .collect()
}

/// The path of page `page` of the list of fork `fork`.
pub(crate) fn fork_list_path(ctx: &ProjectCtx<'_>, fork: NodeId, page: u32) -> String {
    format!("{}{}", ctx.fork_dir(fork), page_file(page))
}

/// A link from `from_dir` to the list of fork `fork`.
pub(crate) fn fork_list_href(ctx: &ProjectCtx<'_>, from_dir: &str, fork: NodeId) -> Href {
    ctx.href(from_dir, &ctx.fork_dir(fork), &page_file(0), None)
}

/// Problems met while rendering pages (in parallel), by page.
#[derive(Debug, Default)]
pub(crate) struct PageWarnings(std::sync::Mutex<Vec<(String, String)>>);

impl PageWarnings {
    pub(crate) fn push(&self, page: &str, why: String) {
        if let Ok(mut v) = self.0.lock() {
            v.push((page.to_string(), why));
        }
    }

    /// Takes every warning recorded so far, by page (each page's in the order met).
    pub(crate) fn take_all(&self) -> std::collections::BTreeMap<String, Vec<String>> {
        let mut out: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        if let Ok(mut v) = self.0.lock() {
            for (page, why) in v.drain(..) {
                out.entry(page).or_default().push(why);
            }
        }
        out
    }
}

/// `b`, `c`, … `z`, `ba`…: the letter of the `k`-th fork (from 1) sharing a
/// name with another.
fn letters(k: u32) -> String {
    let mut k = k;
    let mut s = Vec::new();
    loop {
        s.push(char::from(b'a' + u8::try_from(k % 26).unwrap_or(0)));
        k /= 26;
        if k == 0 {
            break;
        }
    }
    s.iter().rev().collect()
}

/// What a node gives a compare column, read once for all the compare pages
/// of a project ([`ProjectCtx::compare_facts`], filled by the compare
/// page): whether it calls tools, and the class of the turn it makes (none:
/// it shows nothing there).
pub(crate) struct CompareFacts {
    pub(crate) calls: bool,
    pub(crate) turn: Option<&'static str>,
}

/// What the compare columns of a branch read of it from any of its nodes
/// on, made in one pass from its end ([`ProjectCtx::compare_rests`], filled
/// by the compare page): each column then reads the turns it shows and the
/// calls it lists, not every node after them. Positions are indices into
/// the branch's nodes.
pub(crate) struct BranchRest {
    /// The nodes that call a tool (or record a tool use), in order.
    pub(crate) calls: Vec<usize>,
    /// Each node's next node shown in the same item (`usize::MAX`: none).
    pub(crate) next_same: Vec<usize>,
    /// The last node of each counted item (a message its page numbers), in order.
    pub(crate) counted_last: Vec<usize>,
    /// The nodes that record a working directory, in order.
    pub(crate) cwd_at: Vec<usize>,
    /// The last node an agent transcript was spawned from.
    pub(crate) spawn_last: Option<usize>,
    /// From each position a column may start at (0, the length, and where
    /// a fork along the branch goes on): what the rest spends, and its first
    /// and last time.
    pub(crate) from: FxHashMap<usize, RestSums>,
    /// The position of each node a column may start at.
    pub(crate) at: FxHashMap<NodeId, usize>,
}

/// What a branch's nodes from one position on add up to ([`BranchRest::from`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct RestSums {
    /// `None` when a sum outgrew its type (then it is tallied again, as
    /// everywhere else, saturating).
    pub(crate) spend: Option<Spend>,
    /// The earliest and latest known timestamps (positive).
    pub(crate) first: Option<i64>,
    pub(crate) last: Option<i64>,
}

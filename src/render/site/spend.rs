//! What API calls spent, in tokens and dollars, each call counted once.
//!
//! Claude Code writes one API message as several lines sharing its
//! `message.id` (one per content block), each with the message's usage (or
//! an under-reported one while streaming): a call is counted once, with the
//! usage of its line with the largest `output_tokens`. A line without a
//! `message.id` (Codex, Gemini, old transcripts) is a call of its own.
//!
//! Every total of a part of a conversation (a reply, a branch, the
//! conversation) includes the sub-agents (and the client's side agents)
//! spawned from it: [`agent_homes`] finds the branch each one was spawned
//! from. The project total counts every transcript of the project; the
//! archive's adds up its projects'.

use rustc_hash::FxHashMap;

use crate::cost::{Cost, Prices, Total};
use crate::graph::{AgentId, BranchId, Graph, NodeId};
use crate::model::Tokens;
use crate::model::{Entry, Kind, Usage};
use crate::render::plain::TokensText;

/// Tokens and dollars of some calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Spend {
    pub(crate) tokens: Tokens,
    pub(crate) cost: Total,
}

impl Spend {
    pub(crate) fn merge(&mut self, o: Spend) {
        self.tokens.add(o.tokens);
        self.cost.merge(o.cost);
    }

    /// Whether no call spent anything.
    pub(crate) fn is_zero(&self) -> bool {
        self.tokens.is_zero() && self.cost == Total::default()
    }

    /// The tokens as pages word a total.
    pub(crate) fn tokens_text(&self) -> String {
        self.tokens.total()
    }

    /// The dollars as pages word a total: `$1.23`, `$1.23 + 2 replies of
    /// unknown price`, `price unknown (2 replies)`; empty when there were
    /// no calls.
    pub(crate) fn cost_text(&self) -> String {
        cost_text(&self.cost, self.tokens.is_zero())
    }
}

/// How pages word a [`Total`] (see [`Spend::cost_text`]); `nothing`: no
/// call used a token.
pub(crate) fn cost_text(t: &Total, nothing: bool) -> String {
    let replies = |n: u32| if n == 1 { "1 reply".to_string() } else { format!("{n} replies") };
    match (t.known.is_zero(), t.unknown) {
        (true, 0) if nothing => String::new(),
        (_, 0) => t.known.to_string(),
        (true, n) => format!("price unknown ({})", replies(n)),
        (false, n) => format!("{} + {} of unknown price", t.known, replies(n)),
    }
}

/// How a reply's own cost reads: `$0.034` or `price unknown`.
pub(crate) fn reply_cost_text(c: Cost) -> String {
    match c {
        Cost::Known(m) => m.to_string(),
        Cost::Unknown(why) => match why {
            crate::cost::Unknown::Model => "price unknown (model not in the price table)",
            crate::cost::Unknown::Rate => "price unknown (a rate missing from the price table)",
            crate::cost::Unknown::LongPrompt => "price unknown (long-prompt rates not in the price table)",
            crate::cost::Unknown::Fast => "price unknown (fast mode)",
        }
        .to_string(),
    }
}

/// Adds up the calls of assistant entries, each `message.id` once.
pub(crate) struct Tally<'a> {
    prices: &'a Prices,
    best: FxHashMap<&'a str, (Usage, &'a Entry)>,
    loose: Spend,
}

impl<'a> Tally<'a> {
    pub(crate) fn new(prices: &'a Prices) -> Tally<'a> {
        Tally { prices, best: FxHashMap::default(), loose: Spend::default() }
    }

    pub(crate) fn add(&mut self, e: &'a Entry) {
        let (Kind::Assistant, Some(u)) = (&e.kind, e.usage) else { return };
        match e.message_id.as_deref() {
            Some(m) => {
                let slot = self.best.entry(m).or_insert((u, e));
                if u.output > slot.0.output {
                    *slot = (u, e);
                }
            }
            None => self.loose.merge(call(self.prices, u, e)),
        }
    }

    pub(crate) fn finish(self) -> Spend {
        let mut s = self.loose;
        for (u, e) in self.best.into_values() {
            s.merge(call(self.prices, u, e));
        }
        s
    }
}

/// One call: its tokens and what they cost at the model's price on the
/// day of the call.
fn call(prices: &Prices, u: Usage, e: &Entry) -> Spend {
    let mut cost = Total::default();
    cost.add(call_cost(prices, u, e));
    Spend { tokens: Tokens::of(u), cost }
}

/// What the call `e` (with usage `u`) cost.
pub(crate) fn call_cost(prices: &Prices, u: Usage, e: &Entry) -> Cost {
    // A call of an unknown time is priced at the newest rates.
    prices.cost(e.model.as_deref().unwrap_or(""), e.timestamp.unwrap_or(i64::MIN), &u.billed())
}

/// The branch each agent transcript was spawned from (a sub-agent: the
/// branch of its spawning call, following a sub-agent's own sub-agents up
/// to the main line; a side agent: the branch of the node it hangs from);
/// `None` for an agent linked to no conversation.
pub(crate) fn agent_homes(g: &Graph) -> FxHashMap<BranchId, Vec<(AgentId, NodeId)>> {
    let mut homes: FxHashMap<BranchId, Vec<(AgentId, NodeId)>> = FxHashMap::default();
    for (a, _) in g.agents.iter_enumerated() {
        let mut at = a;
        let mut home = None;
        // At most one step per agent: a cycle of agents ends the walk.
        for _ in 0..=g.agents.len() {
            let ag = &g.agents[at];
            let Some(n) = ag.spawn.as_ref().and_then(|s| s.use_node).or(ag.attached_to) else { break };
            let node = &g.nodes[n];
            match (node.branch, node.agent) {
                (Some(b), _) => {
                    home = Some((b, n));
                    break;
                }
                (None, Some(parent)) if parent != at => at = parent,
                _ => break,
            }
        }
        if let Some((b, n)) = home {
            homes.entry(b).or_default().push((a, n));
        }
    }
    homes
}

/// The nodes of `branches` and of the agents spawned from them.
pub(crate) fn with_agents<'g>(
    g: &'g Graph,
    homes: &'g FxHashMap<BranchId, Vec<(AgentId, NodeId)>>,
    branches: impl IntoIterator<Item = BranchId> + 'g,
) -> impl Iterator<Item = NodeId> + 'g {
    branches.into_iter().flat_map(move |b| {
        let agents = homes.get(&b).map(Vec::as_slice).unwrap_or_default();
        g.branches[b].nodes.iter().copied().chain(agents.iter().flat_map(|&(a, _)| g.agents[a].nodes.iter().copied()))
    })
}

/// `nodes` (some of branch `b`'s) and the nodes of the agents spawned from them.
pub(crate) fn with_agents_of<'g>(
    g: &'g Graph,
    homes: &'g FxHashMap<BranchId, Vec<(AgentId, NodeId)>>,
    b: BranchId,
    nodes: &'g [NodeId],
) -> impl Iterator<Item = NodeId> + 'g {
    let agents = homes.get(&b).map(Vec::as_slice).unwrap_or_default();
    // A set of the nodes only when agents were spawned from the branch: a
    // compare page asks this of the line from its fork on, for every fork.
    let mine: rustc_hash::FxHashSet<NodeId> =
        if agents.is_empty() { rustc_hash::FxHashSet::default() } else { nodes.iter().copied().collect() };
    let spawned =
        agents.iter().filter(move |(_, n)| mine.contains(n)).flat_map(|&(a, _)| g.agents[a].nodes.iter().copied());
    nodes.iter().copied().chain(spawned)
}

//! The archive index page (`index.html` at the site root): every project,
//! most recently active first, with the archive's totals.

use anyhow::Result;
use askama::Template;

use crate::digest::ProjectSummary;
use crate::model::Tokens;
use crate::render::pages::templates::{AgentGroup, IndexPage, ProjectRow, Time};
use crate::render::plain::TokensText;
use crate::render::site::RenderOptions;
use crate::render::site::urls::{Root, href};

/// The archive index of the projects `projects` (rendered or re-used); its
/// canonical link under `--base-url`.
pub(crate) fn index_html(projects: &[&ProjectSummary], opts: &RenderOptions) -> Result<String> {
    let mut page = index_page(projects);
    page.root = page.root.with_canonical(opts.canonical("index.html"));
    Ok(page.render()?)
}

fn index_page(summaries: &[&ProjectSummary]) -> IndexPage {
    let mut rows: Vec<((usize, &str), ProjectRow)> = summaries
        .iter()
        .map(|o| {
            let row = ProjectRow {
                name: o.name.clone(),
                href: href("", &o.dir, "index.html", None),
                conversations: o.conversations,
                recovered: o.recovered,
                forks: o.forks,
                messages: o.messages,
                last: Time::at(o.last_ts),
                tokens: o.tokens.total(),
                cost: crate::render::site::spend::cost_text(&o.cost, o.tokens.is_zero()),
                holds: holds(o),
                sub_agents: o.agents > 0,
            };
            ((o.agent_order, o.agent.as_str()), row)
        })
        .collect();
    // By agent (in the order of their registration), each group most
    // recently active first.
    rows.sort_by(|(a, x), (b, y)| a.cmp(b).then(y.last.ms.cmp(&x.last.ms)).then_with(|| x.href.cmp(&y.href)));
    let mut groups: Vec<AgentGroup> = Vec::new();
    for ((_, agent), row) in rows {
        match groups.last_mut() {
            Some(g) if g.agent == agent => g.projects.push(row),
            _ => groups.push(AgentGroup { agent: agent.to_string(), projects: vec![row] }),
        }
    }
    let heading = match groups.as_slice() {
        [one] => format!("{} archive", one.agent),
        [] => "Claude Code archive".into(),
        _ => "Coding agents archive".into(),
    };
    let sum = |f: fn(&ProjectSummary) -> usize| summaries.iter().map(|s| f(s)).sum::<usize>();
    IndexPage {
        root: Root::of(""),
        title: "Archive".into(),
        crumbs: Vec::new(),
        totals: [
            (summaries.len(), "project", "projects"),
            (sum(|s| s.conversations), "conversation", "conversations"),
            (
                sum(|s| s.recovered),
                "session recovered from the prompt history",
                "sessions recovered from the prompt history",
            ),
            (sum(|s| s.branches), "branch", "branches"),
            (sum(|s| s.forks), "fork", "forks"),
        ]
        .iter()
        // Recovered sessions are named only where there are some.
        .filter(|(n, one, _)| *n > 0 || !one.starts_with("session recovered"))
        .map(|(n, one, many)| format!("{n} {}", if *n == 1 { one } else { many }))
        .collect::<Vec<_>>()
        .join(" · "),
        tokens: {
            let mut t = Tokens::default();
            summaries.iter().for_each(|s| t.add(s.tokens));
            t.total()
        },
        cost: {
            let mut t = Tokens::default();
            let mut c = crate::cost::Total::default();
            summaries.iter().for_each(|s| {
                t.add(s.tokens);
                c.merge(s.cost);
            });
            crate::render::site::spend::cost_text(&c, t.is_zero())
        },
        sub_agents: summaries.iter().any(|s| s.agents > 0),
        heading,
        groups,
    }
}

/// What a project of no conversation holds, as its row says it: its agent
/// transcripts and sessions without a prompt (where its cost comes from),
/// else nothing (the row counts its conversations).
fn holds(o: &crate::digest::ProjectSummary) -> String {
    if o.conversations > 0 {
        return String::new();
    }
    let mut parts = Vec::new();
    if o.agents > 0 {
        parts.push(format!("{} agent transcript{}", o.agents, if o.agents == 1 { "" } else { "s" }));
    }
    if o.fragments > 0 {
        parts.push(format!("{} session{} without a prompt", o.fragments, if o.fragments == 1 { "" } else { "s" }));
    }
    if parts.is_empty() { String::new() } else { format!("no conversation: {}", parts.join(", ")) }
}

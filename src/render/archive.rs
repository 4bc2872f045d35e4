//! The archive index page (`index.html` at the site root): every project,
//! most recently active first, with the archive's totals.

use anyhow::Result;
use askama::Template;

use super::ProjectSummary;
use super::html::time_html;
use super::pages::{IndexPage, ProjectRow};

/// The archive index of the projects `projects` (rendered or re-used).
pub fn index_html(projects: &[&ProjectSummary]) -> Result<String> {
    Ok(index_page(projects).render()?)
}

fn index_page(summaries: &[&ProjectSummary]) -> IndexPage {
    let mut projects: Vec<ProjectRow> = summaries
        .iter()
        .map(|o| ProjectRow {
            name: o.name.clone(),
            href: format!("{}index.html", o.dir),
            conversations: o.conversations,
            forks: o.forks,
            messages: o.messages,
            last_ts: o.last_ts,
            last_html: time_html(o.last_ts),
        })
        .collect();
    projects.sort_by(|a, b| b.last_ts.cmp(&a.last_ts).then_with(|| a.href.cmp(&b.href)));
    let sum = |f: fn(&ProjectSummary) -> usize| summaries.iter().map(|s| f(s)).sum::<usize>();
    IndexPage {
        root: String::new(),
        title: "Archive".into(),
        crumbs: Vec::new(),
        totals: format!(
            "{} projects · {} conversations · {} branches · {} forks",
            summaries.len(),
            sum(|s| s.conversations),
            sum(|s| s.branches),
            sum(|s| s.forks)
        ),
        projects,
    }
}

//! `cctree fork`: time travel. A session of any agent, cut at a legal
//! checkpoint, copied into a new session its client resumes, every existing
//! file left untouched. Each agent writes its own forks
//! (`src/agent/<name>/fork.rs`, through [`crate::agent::Agent::find`]);
//! this is the command over all of them: which agent's session TARGET names.

pub mod lookup;

use std::path::Path;

use anyhow::{Result, bail};

pub use crate::agent::fork::{Fork, ForkRequest, Lookup, Target};
use crate::agent::{self, Claim};
use crate::model::Client;

/// Runs `cctree fork` of a session of any agent. A file is forked by the
/// agent whose file it is (the agents claiming it first, then the one that
/// reads any). An id is looked up first by the names of the agents' files,
/// which hold a session's id, reading no other file; else as a message id,
/// in the text of their sessions. An id that names sessions of more than
/// one agent is an error naming each.
pub fn fork(req: &ForkRequest) -> Result<Fork> {
    let (target, projects) = (req.target.as_str(), req.projects.as_deref());
    let path = Path::new(target);
    if path.is_file() {
        let mut order: Vec<Client> = agent::ALL.to_vec();
        order.sort_by_key(|c| agent::of(*c).claims_file(path) != Claim::Yes(path.to_path_buf()));
        for c in order {
            if let Some(t) = agent::of(c).find(target, projects, Lookup::Name)? {
                return t.fork(req);
            }
        }
        bail!("{target}: no agent's session file (give a session file, a session id or a message id)");
    }
    let asked = asked(projects);
    let mut found = Vec::new();
    for c in &asked {
        found.extend(agent::of(*c).find(target, projects, Lookup::Name)?);
    }
    if found.is_empty() {
        let mut first_error = None;
        for c in &asked {
            match agent::of(*c).find(target, projects, Lookup::Message) {
                Ok(t) => found.extend(t),
                Err(e) => first_error = first_error.or(Some(e)),
            }
        }
        if found.is_empty() {
            return Err(first_error.unwrap_or_else(|| anyhow::anyhow!("{target}: no session or message has this id")));
        }
    }
    if found.len() > 1 {
        let named: Vec<String> = found.iter().map(|t| t.describe()).collect();
        bail!("{target} is ambiguous: it names {}; give the session's file instead", named.join(" and "));
    }
    found.remove(0).fork(req)
}

/// The agents an id is looked up by: every one, except, when `--projects`
/// names a folder an agent claims, those that only read any folder.
fn asked(projects: Option<&Path>) -> Vec<Client> {
    let Some(d) = projects else { return agent::ALL.to_vec() };
    let claims: Vec<(Client, Claim)> = agent::ALL.iter().map(|c| (*c, agent::of(*c).claims(d))).collect();
    let owned = claims.iter().any(|(_, c)| matches!(c, Claim::Yes(_)));
    claims.into_iter().filter(|(_, c)| !owned || *c != Claim::Otherwise).map(|(c, _)| c).collect()
}

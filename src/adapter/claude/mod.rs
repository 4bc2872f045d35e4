//! Claude Code's reader: the first adapter ([`crate::adapter`]).
//!
//! Its first half reads each line's header for the graph
//! ([`crate::parse`]: ids, parents, session, kind, tool ids, an excerpt,
//! hashes of the line). This half reads, when a page shows an entry, what
//! it says ([`node`]): only the parts of the line its view needs, in one
//! pass, into the [`crate::model`]. It is the only code after the parse
//! stage that knows Claude Code's JSON: its entry types, its content
//! blocks, its tools and their `toolUseResult`s, the tags it puts in text,
//! the files it spills large outputs to.

mod calls;
mod content;
mod results;

use crate::limits::OUTPUT_CAP;
use crate::model::Entry;
use crate::model::{Node, Raw};
use crate::project::Project;
use crate::texts::LineError;

use results::Tool;

/// What entry `e` of `p` says, read from its line; when the line cannot be
/// read again (its file changed since), what an empty line says, and why.
pub fn node<'a>(p: &'a Project, e: &'a Entry) -> (Node<'a>, Option<LineError>) {
    let tool = result_tool(p, e);
    let read = match content::want(e, tool) {
        Some(want) => p.json_only(e, want),
        None => p.json(e),
    };
    let (json, err) = match read {
        Ok(v) => (v, None),
        Err(err) => (serde_json::Value::Null, Some(err)),
    };
    let session = e.session_id.as_deref().unwrap_or("");
    // A spilled output is read from `<session>/tool-results/`, capped: a
    // page shows at most `OUTPUT_CAP` of it (and says it was cut).
    let side = |file: &str| {
        let (path, text) = p.side_file(&format!("{session}/tool-results/{file}"), OUTPUT_CAP + 1)?;
        Some((path.display().to_string(), text))
    };
    (content::node_of(e, json, tool, &side), err)
}

/// The whole entry as the client wrote it (for a view of all of it).
pub fn record<'a>(p: &'a Project, e: &Entry) -> Result<Raw<'a>, LineError> {
    p.json(e).map(Raw::of)
}

/// The tool whose call the one result of a user entry answers, when its
/// view shows part of the entry's `toolUseResult`.
fn result_tool(p: &Project, e: &Entry) -> Option<Tool> {
    let [one] = &*e.tool_results else { return None };
    let id = &*one.tool_use_id;
    let call = p.graph.tools.get(id)?.use_node?;
    let name = p.graph.entry(&p.entries, call).tool_uses.iter().find(|t| &*t.id == id)?.name.clone();
    Tool::of(&name)
}

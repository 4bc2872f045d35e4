//! `--redact` in the render stage. Entry lines are redacted by the parse stage
//! (`Project::load_with`); this covers every other string that reaches a page
//! or the search index: persisted tool outputs read from `tool-results/`, the
//! project's directory name (slug and fallback title), file paths shown in
//! labels. It also collects where secrets were replaced, for the report
//! `cctree render --redact` prints.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::redact::{Redaction, redact_text};

/// Where secrets were replaced, and how many of each kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedactionSite {
    /// `path:line`, or a path for a side file.
    pub place: String,
    pub kinds: Vec<Redaction>,
}

impl RedactionSite {
    pub fn count(&self) -> usize {
        self.kinds.iter().map(|k| k.count).sum()
    }
}

impl std::fmt::Display for RedactionSite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kinds: Vec<String> = self.kinds.iter().map(|k| format!("{} × {}", k.count, k.kind)).collect();
        // Paths can hold secrets too (a project folder named after its cwd).
        write!(f, "{}: {}", redact_text(&self.place).0, kinds.join(", "))
    }
}

/// Redacts strings when enabled, remembering where (shared by parallel page renders).
#[derive(Debug, Default)]
pub struct Redactor {
    pub enabled: bool,
    /// place → kinds; a place met twice (a side file shown on two pages) counts once.
    found: Mutex<BTreeMap<String, Vec<Redaction>>>,
}

impl Redactor {
    pub fn new(enabled: bool) -> Redactor {
        Redactor { enabled, found: Mutex::default() }
    }

    /// `text` with secrets replaced (when enabled); `place` names where it came from.
    pub fn text<'t>(&self, place: impl FnOnce() -> String, text: &'t str) -> Cow<'t, str> {
        if !self.enabled {
            return Cow::Borrowed(text);
        }
        let (out, found) = redact_text(text);
        if !found.is_empty() {
            let mut map = self.found.lock().unwrap_or_else(|e| e.into_inner());
            map.entry(place()).or_insert(found);
        }
        out
    }

    /// Adds sites found elsewhere (a place already known keeps its kinds).
    pub fn absorb(&self, sites: Vec<RedactionSite>) {
        let mut map = self.found.lock().unwrap_or_else(|e| e.into_inner());
        for s in sites {
            map.entry(s.place).or_insert(s.kinds);
        }
    }

    /// Takes what was collected so far, ordered by place.
    pub fn take(&self) -> Vec<RedactionSite> {
        let mut map = self.found.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut *map).into_iter().map(|(place, kinds)| RedactionSite { place, kinds }).collect()
    }
}

/// Where the `agent-*.meta.json` sidecars of a project hold secrets
/// (`Project::load_with` replaces them; this finds them for the report).
pub fn agent_meta(source: &crate::model::ProjectSource) -> Vec<RedactionSite> {
    let mut out = Vec::new();
    for (id, meta) in &source.agent_meta {
        let mut kinds: Vec<Redaction> = Vec::new();
        for text in [&meta.description, &meta.agent_type].into_iter().flatten() {
            kinds.extend(redact_text(text).1);
        }
        if kinds.is_empty() {
            continue;
        }
        let place = source
            .files
            .iter()
            .find(|f| f.agent_id_from_name.as_deref() == Some(id.as_str()))
            .map_or_else(|| source.dir.join(format!("agent-{id}.meta.json")), |f| f.path.with_extension("meta.json"));
        out.push(RedactionSite { place: place.display().to_string(), kinds });
    }
    out
}

/// Where the parse stage replaced secrets in a project's entry lines.
pub fn entry_lines(p: &crate::project::Project) -> Vec<RedactionSite> {
    p.redactions.iter().map(|(loc, kinds)| RedactionSite { place: p.locate(*loc), kinds: kinds.clone() }).collect()
}

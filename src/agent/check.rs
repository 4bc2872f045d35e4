//! What every agent's checks share (`cctree check`): a finding, and
//! reading a line of a project loaded without its bytes again. Each agent's
//! own invariants are in its folder (`check.rs`); `crate::check` runs those
//! every project has, then the agent's.

use serde::Serialize;

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

/// Reads lines of a project loaded without its bytes ([`Project::load_headers`])
/// again from their files, one file kept open at a time.
#[derive(Default)]
pub struct Rereader {
    open: Option<(crate::model::FileId, std::fs::File)>,
}

impl Rereader {
    /// Entry `e`'s line as the client reads it: from memory when the project
    /// kept it, else from its file, if it is still the line that was parsed.
    pub fn json(&mut self, p: &Project, e: &crate::model::Entry) -> Option<serde_json::Value> {
        match p.json(e) {
            Ok(v) => return Some(v),
            Err(crate::texts::LineError::NotKept) => {}
            Err(_) => return None,
        }
        let file = e.loc.file;
        if self.open.as_ref().is_none_or(|(f, _)| *f != file) {
            self.open = Some((file, std::fs::File::open(&p.source.files[file].path).ok()?));
        }
        let (_, handle) = self.open.as_ref()?;
        let bytes = crate::texts::read_line_at(handle, e.offset, e.len).ok()?;
        let text = std::str::from_utf8(&bytes).ok()?;
        (crate::model::hash_bytes(text.trim().as_bytes()) == e.line_hash).then(|| crate::json::parse(text).ok())?
    }
}

/// [`Rereader::json`] for one line.
pub fn reread(p: &Project, e: &crate::model::Entry) -> Option<serde_json::Value> {
    Rereader::default().json(p, e)
}

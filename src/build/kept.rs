//! What the build knows of the input beyond its transcripts, read once per
//! build and given to each project after the selection (`Project::kept`):
//!
//! - the prompt history beside the projects directory ([`crate::recover`]):
//!   the sessions only it still holds; a project directory that has lines
//!   but no transcript left is rendered too (a project of recovered
//!   sessions only);
//! - the record of `cctree sync` when the input is its archive
//!   ([`crate::sync::record`]): the conversations whose every file its
//!   source (the client's projects directory) had deleted at the last sync
//!   are "kept by cctree" ([`crate::sync::only_here`]).
//!
//! Both are part of each project's cache key ([`KeptInputs::fingerprint`]).

use std::path::PathBuf;

use crate::discover::Archive;

use crate::model::ProjectSource;
use crate::project::Project;
use crate::recover::{self, ByProject};
use crate::select::Selection;
use crate::sync::record::{self, Record};

/// See the module documentation.
#[derive(Debug, Default)]
pub(super) struct KeptInputs {
    history: ByProject,
    record: Option<Record>,
    /// The sessions with a transcript in the input (`<session>.jsonl`
    /// files, any project).
    transcripts: rustc_hash::FxHashSet<String>,
}

impl KeptInputs {
    /// Reads the history and the sync record of `archive` (a projects
    /// directory: one project directory or files given alone have neither).
    /// Returns the warnings met (unreadable history lines, `file:line`).
    pub(super) fn read(archive: &Archive) -> (KeptInputs, Vec<String>) {
        let root = &archive.root;
        if !root.is_dir() || crate::agent::claude::discover::is_project_dir(root) {
            return (KeptInputs::default(), Vec::new());
        }
        let record = record::find(root).filter(|(dir, _)| dir == root).map(|(_, r)| r);
        let Some(path) = recover::history_for(root) else {
            return (KeptInputs { record, ..Default::default() }, Vec::new());
        };
        let transcripts = (archive.projects.iter().flat_map(|p| &p.files))
            .filter(|f| f.class == crate::model::FileClass::Main && !f.kept_version)
            .filter_map(|f| f.rel.strip_suffix(".jsonl").map(str::to_string))
            .collect();
        match crate::history::read(&path) {
            Ok(h) => {
                let warnings = h.shown_warnings(&path);
                (KeptInputs { history: ByProject::of(h), record, transcripts }, warnings)
            }
            Err(e) => {
                (KeptInputs { record, ..Default::default() }, vec![format!("{e:#}; no session is recovered from it")])
            }
        }
    }

    /// Adds to `archive` the project directories the history names that
    /// hold no transcript (deleted, or left empty), as projects of no file.
    pub(super) fn add_history_projects(&self, archive: &mut Archive) {
        let have: rustc_hash::FxHashSet<String> = archive.projects.iter().map(|p| p.name.clone()).collect();
        let root: PathBuf = archive.root.clone();
        for name in self.history.names().filter(|n| !have.contains(*n)) {
            // The prompt history is Claude Code's; its working directory
            // names the project through `path_of`.
            archive.projects.push(ProjectSource::empty(name.to_string(), root.join(name), crate::agent::CLAUDE));
        }
        archive.projects.sort_by(|a, b| a.dir.cmp(&b.dir));
    }

    /// The working directory project `name` is named by when none of its
    /// transcripts says (no transcript left): its history lines'.
    pub(super) fn path_of(&self, name: &str) -> Option<String> {
        self.history.path(name).map(str::to_string)
    }

    /// What of this knowledge project `p`'s pages depend on.
    pub(super) fn fingerprint(&self, p: &ProjectSource) -> String {
        let gone = match &self.record {
            Some(r) => record::deleted_of(r, p).into_iter().collect::<Vec<_>>().join("\0"),
            None => String::new(),
        };
        // Which of its lines' sessions have a transcript somewhere (another project's, too).
        let held: String = (self.history.lines(&p.name).iter())
            .map(|e| match e.session_id.as_deref() {
                Some(id) if self.transcripts.contains(id) => '1',
                _ => '0',
            })
            .collect();
        // The client's session names kept outside the transcripts (Codex's index).
        let names: String = p.session_titles.iter().map(|(k, v)| format!("{k}\x01{v}\x02")).collect();
        format!("\0history {}:{held}\0gone {gone}\0names {names}", self.history.fingerprint(&p.name))
    }

    /// The sessions of `project` (loaded whole: before the selection, so
    /// that a conversation left out is not taken for deleted) that only the
    /// history holds.
    pub(super) fn recovered(&self, project: &Project) -> Vec<crate::model::RecoveredSession> {
        recover::sessions(project, self.history.lines(&project.source.name), &|id| self.transcripts.contains(id))
    }

    /// Gives `project` (as selected) what is known of it: its recovered
    /// sessions that the selection keeps, and its conversations only the
    /// archive holds.
    pub(super) fn apply(
        &self,
        project: &mut Project,
        mut recovered: Vec<crate::model::RecoveredSession>,
        selection: &Selection,
    ) {
        recovered.retain(|s| selection.keeps_recovered(s));
        project.kept.recovered = recovered;
        if let Some(r) = &self.record {
            project.kept.archive_only = crate::sync::only_here::of_project(project, r).conversation_roots;
        }
    }
}

//! What the build knows of the input beyond its transcripts, read once per
//! build and given to each project after the selection (`Project::kept`):
//!
//! - the prompt logs of the agents whose folders were read (Claude Code's
//!   `history.jsonl` beside its projects directory, …: `Agent::prompt_logs`,
//!   [`crate::recover`]): the sessions only they still hold; a project that
//!   has lines but no transcript left is rendered too (a project of
//!   recovered sessions only);
//! - the record of `cctree sync` when the input is its archive
//!   ([`crate::sync::record`]): the conversations whose every file its
//!   source (the client's folder) had deleted at the last sync are "kept by
//!   cctree" ([`crate::sync::only_here`]).
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
    prompts: ByProject,
    /// The prompt logs read (watched by `serve`).
    logs: Vec<PathBuf>,
    record: Option<Record>,
    /// The sessions with a transcript in the input (`<session>.jsonl`
    /// files, any project).
    transcripts: rustc_hash::FxHashSet<String>,
}

/// The prompt logs the agents name for the folders and projects of
/// `archive`, each with the agent that reads it.
pub(super) fn prompt_logs(archive: &Archive) -> Vec<(crate::model::Client, crate::agent::prompts::Log)> {
    let n = crate::agent::ALL.len();
    let mut roots: Vec<Vec<&std::path::Path>> = vec![Vec::new(); n];
    for (c, r) in &archive.roots {
        roots[c.index()].push(r);
    }
    let mut projects: Vec<Vec<&ProjectSource>> = vec![Vec::new(); n];
    for p in &archive.projects {
        projects[p.client.index()].push(p);
    }
    (crate::agent::ALL.iter())
        .flat_map(|c| {
            crate::agent::of(*c).prompt_logs(&roots[c.index()], &projects[c.index()]).into_iter().map(|l| (*c, l))
        })
        .collect()
}

impl KeptInputs {
    /// Reads the prompt logs and the sync record of `archive`. Returns the
    /// warnings met (unreadable lines, `file:line`).
    pub(super) fn read(archive: &Archive) -> (KeptInputs, Vec<String>) {
        let root = &archive.root;
        let record = match root.is_dir() {
            true => record::find(root).filter(|(dir, _)| dir == root).map(|(_, r)| r),
            false => None,
        };
        let logs = prompt_logs(archive);
        if logs.is_empty() {
            return (KeptInputs { record, ..Default::default() }, Vec::new());
        }
        let transcripts = (archive.projects.iter().flat_map(|p| &p.files))
            .filter(|f| f.class == crate::model::FileClass::Main && !f.kept_version)
            .filter_map(|f| f.rel.strip_suffix(".jsonl").map(str::to_string))
            .collect();
        let mut warnings = Vec::new();
        let mut read = Vec::new();
        for (client, log) in &logs {
            match crate::agent::of(*client).read_prompts(log) {
                Ok(p) => {
                    warnings.extend(p.warnings.iter().cloned());
                    read.push((*client, p));
                }
                Err(e) => warnings.push(format!("{e:#}; no session is recovered from it")),
            }
        }
        let logs = logs.into_iter().map(|(_, l)| l.path).collect();
        (KeptInputs { prompts: ByProject::of(read), logs, record, transcripts }, warnings)
    }

    /// The prompt logs read.
    pub(super) fn logs(&self) -> &[PathBuf] {
        &self.logs
    }

    /// Adds to `archive` the projects the prompt logs name that hold no
    /// transcript (deleted, or left empty), as projects of no file.
    pub(super) fn add_history_projects(&self, archive: &mut Archive) {
        let have: rustc_hash::FxHashSet<(crate::model::Client, String)> =
            archive.projects.iter().map(|p| (p.client, p.name.clone())).collect();
        for (client, name, dir) in self.prompts.projects() {
            if !have.contains(&(client, name.to_string())) {
                // Its working directory names the project through `path_of`.
                archive.projects.push(ProjectSource::empty(name.to_string(), dir.to_path_buf(), client));
            }
        }
        archive.projects.sort_by(|a, b| a.dir.cmp(&b.dir));
    }

    /// The working directory project `p` is named by when none of its
    /// transcripts says (no transcript left): its prompt log's.
    pub(super) fn path_of(&self, p: &ProjectSource) -> Option<String> {
        self.prompts.path(p.client, &p.name).map(str::to_string)
    }

    /// The prompt log project `p`'s recovered prompts come from, and how
    /// `--redact` names its lines.
    pub(super) fn log_of(&self, p: &ProjectSource) -> Option<(&std::path::Path, crate::model::PromptLog)> {
        self.prompts.log_of(p.client, &p.name)
    }

    /// What of this knowledge project `p`'s pages depend on.
    pub(super) fn fingerprint(&self, p: &ProjectSource) -> String {
        let gone = match &self.record {
            Some(r) => record::deleted_of(r, p).into_iter().collect::<Vec<_>>().join("\0"),
            None => String::new(),
        };
        // Which of its lines' sessions have a transcript somewhere (another project's, too).
        let held: String = (self.prompts.lines(p.client, &p.name).iter())
            .map(|e| match e.session_id.as_deref() {
                Some(id) if self.transcripts.contains(id) => '1',
                _ => '0',
            })
            .collect();
        // The client's session names kept outside the transcripts (Codex's index).
        let names: String = p.session_titles.iter().map(|(k, v)| format!("{k}\x01{v}\x02")).collect();
        format!("\0history {}:{held}\0gone {gone}\0names {names}", self.prompts.fingerprint(p.client, &p.name))
    }

    /// The sessions of `project` (loaded whole: before the selection, so
    /// that a conversation left out is not taken for deleted) that only its
    /// prompt log holds.
    pub(super) fn recovered(&self, project: &Project) -> Vec<crate::model::RecoveredSession> {
        let p = &project.source;
        let Some((_, log)) = self.prompts.log_of(p.client, &p.name) else { return Vec::new() };
        recover::sessions(project, self.prompts.lines(p.client, &p.name), log, &|id| self.transcripts.contains(id))
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

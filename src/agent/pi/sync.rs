//! What `cctree sync` keeps of Pi (transcript-format, Appendix E): its
//! `sessions/` folder (each project folder's sessions, their sub-agent runs
//! and what else is written there), in `pi/sessions/` beside the archive,
//! every file; a session file rewritten at the source (the client rewrites
//! one only when it migrates an old version) is kept in versions. One
//! project folder synced alone is kept under its name.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use crate::agent::keep::{At, Kept, KeptTree, Rewritten, Tree, folder_name};
use crate::model::ProjectSource;

/// The projects folder, kept in `pi/sessions/` beside the archive.
pub(super) const PROJECTS: Tree = Tree::new("pi", "pi/sessions/");

/// Pi's trees, in the order the record lists them.
pub(super) const TREES: &[Tree] = &[PROJECTS];

/// Where the archive `archive` (a projects directory) keeps Pi's
/// projects folder: `pi/sessions/` beside it.
pub(super) fn synced_dir(archive: &Path) -> Option<PathBuf> {
    Some(archive.parent()?.join("pi").join("sessions"))
}

fn every(_: &str) -> bool {
    true
}

fn versions(_: &str) -> Rewritten {
    Rewritten::Versions
}

/// What a sync of the projects folder `dir` (or of one project folder,
/// kept under its name) into the archive `archive` keeps.
pub(super) fn keep(dir: &Path, archive: &Path) -> Result<Kept> {
    let Some(to) = synced_dir(archive) else {
        bail!("the archive {} has no parent directory to keep Pi sessions in", archive.display());
    };
    let (archive, prefix) = match super::discover::is_project(dir) {
        true => {
            let name = folder_name(dir);
            (to.join(&name), format!("{name}/"))
        }
        false => (to, String::new()),
    };
    let tree = KeptTree {
        tree: PROJECTS,
        source: dir.to_path_buf(),
        archive,
        prefix,
        only: None,
        files: every,
        rewritten: versions,
        moves: false,
    };
    Ok(Kept { source: dir.to_path_buf(), trees: vec![tree], files: Vec::new(), report: Vec::new() })
}

/// A project of the archive names its files under its folder's name.
pub(super) fn kept_at(p: &ProjectSource) -> Vec<At> {
    let folder = p.dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    vec![At { tree: PROJECTS, prefix: format!("{folder}/"), under: String::new() }]
}

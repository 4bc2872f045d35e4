//! What `cctree sync` keeps of Aider (transcript-format, Appendix J): of
//! each folder holding a chat history, its chat histories and its input
//! history (nothing else of the repository), in `aider/<folder,
//! escaped>/` beside the archive. The client only appends to them; a file
//! rewritten at the source (edited by hand) is kept in versions.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use super::discover::{INPUT_HISTORY, escape, histories};
use crate::agent::keep::{At, Kept, KeptTree, Rewritten, Tree};
use crate::model::ProjectSource;

/// The folders kept, in `aider/` beside the archive.
pub(super) const FOLDERS: Tree = Tree::new("aider", "aider/");

pub(super) const TREES: &[Tree] = &[FOLDERS];

/// Where the archive `archive` keeps Aider's folders: `aider/` beside it.
pub(super) fn synced_dir(archive: &Path) -> Option<PathBuf> {
    Some(archive.parent()?.join("aider"))
}

/// Aider's files of a folder, by their path in the tree (`<folder>/<name>`).
fn aider_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let live = crate::layout::split_kept(name).unwrap_or_else(|| name.to_string());
    live == INPUT_HISTORY || (live.starts_with(".aider.chat") && live.ends_with(".md"))
}

fn versions(_: &str) -> Rewritten {
    Rewritten::Versions
}

/// What a sync of the folder `dir` (one holding a chat history, or the
/// sync archive's `aider/`) into the archive `archive` keeps.
pub(super) fn keep(dir: &Path, archive: &Path) -> Result<Kept> {
    let Some(to) = synced_dir(archive) else {
        bail!("the archive {} has no parent directory to keep Aider's chat histories in", archive.display());
    };
    let projects = super::discover::scan(dir);
    if projects.is_empty() {
        bail!("{} holds no file of Aider's (.aider.chat.history.md, .aider.input.history)", dir.display());
    }
    let trees = projects
        .iter()
        .map(|p| {
            let name = escape(p.cwd.as_deref().unwrap_or_default());
            let mut only: BTreeSet<String> = histories(&p.dir).into_iter().map(|(_, n)| n).collect();
            // Named even when gone, so that the record says the source deleted it.
            only.insert(INPUT_HISTORY.to_string());
            only.insert(super::lines::HISTORY.to_string());
            KeptTree {
                tree: FOLDERS,
                source: p.dir.clone(),
                archive: to.join(&name),
                prefix: format!("{name}/"),
                only: Some(only),
                files: aider_file,
                rewritten: versions,
                moves: false,
            }
        })
        .collect();
    Ok(Kept { source: dir.to_path_buf(), trees, files: Vec::new(), report: Vec::new() })
}

/// A project of the archive names its files under its folder's name.
pub(super) fn kept_at(p: &ProjectSource) -> Vec<At> {
    vec![At { tree: FOLDERS, prefix: format!("{}/", crate::walk::dir_name(&p.dir)), under: String::new() }]
}

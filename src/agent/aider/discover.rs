//! Where Aider's chat histories are (transcript-format, Appendix J): no
//! folder of its own — `.aider.chat.history.md` (and its input history,
//! `.aider.input.history`) at the root of the git repository it ran in,
//! else in the working directory. So a folder given holding one (or a
//! history given alone, any name `--chat-history-file` gave it) is read;
//! without input, the working directories of the other agents' projects
//! are searched, each and the root of its repository ([`found_in`]). The
//! sync archive keeps each folder's files in `aider/<folder, escaped>/`.

use std::path::{Path, PathBuf};

use super::lines::HISTORY;
use crate::agent::AIDER;
use crate::id::IdVec;
use crate::model::{FileClass, ProjectSource, SourceFile};

/// The input history beside a chat history.
pub(crate) const INPUT_HISTORY: &str = ".aider.input.history";

/// Whether the file named `name` at `path` is a chat history: the default
/// name (or a version `cctree sync` kept of it), or a `.aider.chat*.md`
/// file that starts with a run heading (another `--chat-history-file`,
/// a fork `cctree fork` wrote).
pub(crate) fn is_history(path: &Path, name: &str) -> bool {
    let live = crate::layout::split_kept(name).unwrap_or_else(|| name.to_string());
    if live == HISTORY {
        return path.is_file();
    }
    live.starts_with(".aider.chat") && live.ends_with(".md") && super::markdown::starts_with_heading(path)
}

/// The chat histories directly in `dir`, sorted by name.
pub(crate) fn histories(dir: &Path) -> Vec<(PathBuf, String)> {
    let Ok(read) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut found: Vec<(PathBuf, String)> = read
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            name.starts_with(".aider.chat").then(|| (e.path(), name))
        })
        .filter(|(p, n)| is_history(p, n))
        .collect();
    found.sort_by(|a, b| a.1.cmp(&b.1));
    found
}

/// `/` and `%` escaped: a folder's path as one name of the sync archive.
pub(crate) fn escape(path: &str) -> String {
    path.replace('%', "%25").replace('/', "%2F")
}

pub(crate) fn unescape(name: &str) -> String {
    name.replace("%2F", "/").replace("%25", "%")
}

/// Folders of the sync archive's `aider/` (named by escaped paths) that hold a history.
fn kept_folders(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut found: Vec<PathBuf> = read
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.starts_with("%2F")))
        .map(|e| e.path())
        .filter(|p| p.is_dir() && holds_aider(p))
        .collect();
    found.sort();
    found
}

/// Whether Aider wrote in `dir`: a chat history, or an input history
/// (whose chat history is gone: its prompts are still read).
fn holds_aider(dir: &Path) -> bool {
    !histories(dir).is_empty() || dir.join(INPUT_HISTORY).is_file()
}

/// The folder `dir` is, when it is Aider's: one it wrote in, or the sync
/// archive's `aider/` folder.
pub(crate) fn claim(dir: &Path) -> Option<PathBuf> {
    (holds_aider(dir) || !kept_folders(dir).is_empty()).then(|| dir.to_path_buf())
}

/// The projects of a folder Aider claimed: itself, or each folder the sync
/// archive keeps.
pub(crate) fn scan(dir: &Path) -> Vec<ProjectSource> {
    if holds_aider(dir) {
        return vec![project(dir, cwd_of(dir))];
    }
    kept_folders(dir).into_iter().map(|d| project(&d, cwd_of(&d))).collect()
}

/// The working directory of a project folder: itself, or, for a folder of
/// the sync archive, the one its name escapes.
pub(crate) fn cwd_of(dir: &Path) -> String {
    let name = crate::walk::dir_name(dir);
    match name.starts_with("%2F") {
        true => unescape(&name),
        false => crate::files::resolve(dir).display().to_string(),
    }
}

fn project(dir: &Path, cwd: String) -> ProjectSource {
    let files: Vec<SourceFile> = histories(dir)
        .into_iter()
        .map(|(path, rel)| SourceFile {
            kept_version: crate::layout::split_kept(&rel).is_some(),
            path,
            rel,
            class: FileClass::Main,
            agent_id_from_name: None,
            client: AIDER,
        })
        .collect();
    let name = AIDER.project_name(&cwd);
    ProjectSource {
        files: IdVec::from_vec(files),
        cwd: Some(cwd),
        ..ProjectSource::empty(name, dir.to_path_buf(), AIDER)
    }
}

/// The root of the git repository `dir` is in (a `.git` folder or file),
/// walking up at most 64 folders.
pub(crate) fn git_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().take(64).find(|d| d.join(".git").exists()).map(Path::to_path_buf)
}

/// The folders holding a chat history among the working directories
/// `cwds` and the roots of their repositories, sorted, each once.
pub(crate) fn found_in(cwds: &[&str]) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = Vec::new();
    for c in cwds {
        let dir = Path::new(c);
        if !dir.is_absolute() || !dir.is_dir() {
            continue;
        }
        for d in std::iter::once(dir.to_path_buf()).chain(git_root(dir)) {
            if holds_aider(&d) {
                found.push(d);
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_history_is_found_at_the_root_of_the_repository_a_working_directory_is_in() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("src/deep")).unwrap();
        std::fs::write(repo.join(HISTORY), "\n# aider chat started at 2026-12-02 01:46:20\n").unwrap();
        std::fs::write(repo.join(".aider.chat.other.md"), "not a history\n").unwrap();
        let deep = repo.join("src/deep").display().to_string();
        assert_eq!(found_in(&[deep.as_str(), "relative/path"]), std::slice::from_ref(&repo));
        let names: Vec<String> = histories(&repo).into_iter().map(|(_, n)| n).collect();
        assert_eq!(names, [HISTORY]);
        assert_eq!(unescape(&escape("/a/50%/b")), "/a/50%/b");
    }
}

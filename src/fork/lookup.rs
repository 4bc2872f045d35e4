//! How a `cctree fork` command shown on a page names the projects directory,
//! so that it works as copied: `cctree fork` looks sessions up in the default
//! projects directory unless `--projects DIR` says otherwise.
//!
//! A site may be published, so the command does not reveal the absolute path
//! of the archive (it holds the publisher's home directory) unless asked to
//! (`--show-paths`): a path given relative stays as given, one under the home
//! directory is written `~/…`, any other is written relative to the current
//! directory.

use std::path::{Component, Path, PathBuf};

use super::shell_quote;

/// The `--projects` value (shell-quoted) that a fork command for a session of
/// the project in `project_dir` needs, when the archive was read from `root`:
/// none when the project sits in the default projects directory; else `root`
/// when the project is one of its directories, or the project directory.
pub fn projects_arg(project_dir: &Path, root: &Path, show_paths: bool) -> Option<String> {
    let home = etcetera::home_dir().ok();
    let cwd = std::env::current_dir().ok();
    let default = crate::discover::default_projects_dir();
    projects_arg_in(project_dir, root, show_paths, &Env { home, cwd, default })
}

/// What [`projects_arg`] reads from the environment.
struct Env {
    home: Option<PathBuf>,
    cwd: Option<PathBuf>,
    default: Option<PathBuf>,
}

fn projects_arg_in(project_dir: &Path, root: &Path, show_paths: bool, env: &Env) -> Option<String> {
    let same = |a: &Path, b: &Path| a == b || a.canonicalize().is_ok_and(|a| b.canonicalize().is_ok_and(|b| a == b));
    let parent = project_dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if env.default.as_deref().is_some_and(|d| same(parent, d)) {
        return None;
    }
    let dir = if same(parent, root) { root } else { project_dir };
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    Some(shown(dir, show_paths, env))
}

/// `dir` for a command line: absolute when asked, else without the absolute path.
fn shown(dir: &Path, show_paths: bool, env: &Env) -> String {
    let abs = match (dir.is_absolute(), &env.cwd) {
        (true, _) => dir.to_path_buf(),
        (false, Some(cwd)) => cwd.join(dir),
        (false, None) => dir.to_path_buf(),
    };
    if show_paths {
        return quote(&abs);
    }
    if dir.is_relative() {
        return word(dir);
    }
    let abs = normalize(&abs);
    if let Some(rest) = env.home.as_deref().and_then(|h| abs.strip_prefix(normalize(h)).ok()) {
        return if rest.as_os_str().is_empty() { "~".into() } else { format!("~/{}", quote(rest)) };
    }
    match &env.cwd {
        Some(cwd) => word(&relative(&abs, &normalize(cwd))),
        None => quote(&abs),
    }
}

fn quote(p: &Path) -> String {
    shell_quote(&p.to_string_lossy())
}

/// `p` as a word of its own: shell-quoted, and a relative path starting
/// with `-` as `./-…`, so that it is never read as an option.
fn word(p: &Path) -> String {
    if p.to_string_lossy().starts_with('-') { quote(&Path::new(".").join(p)) } else { quote(p) }
}

/// `p` without `.` components and with `..` applied (no file system access).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// The path from `base` to `target`, both absolute and normalized (`pathdiff`).
fn relative(target: &Path, base: &Path) -> PathBuf {
    match pathdiff::diff_paths(target, base) {
        Some(p) if !p.as_os_str().is_empty() => p,
        Some(_) => PathBuf::from("."),
        None => target.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Env {
        Env {
            home: Some("/home/alice".into()),
            cwd: Some("/home/alice/src/app".into()),
            default: Some("/home/alice/.claude/projects".into()),
        }
    }

    fn arg(project: &str, root: &str, show: bool) -> Option<String> {
        projects_arg_in(Path::new(project), Path::new(root), show, &env())
    }

    #[test]
    fn default_directory_needs_no_flag() {
        let p = "/home/alice/.claude/projects/-home-alice-app";
        assert_eq!(arg(p, "/home/alice/.claude/projects", false), None);
        assert_eq!(arg(p, p, true), None, "a project of the default directory, given alone");
    }

    #[test]
    fn other_directories_are_named_without_the_absolute_path() {
        // As given when relative; the projects directory when the project is one of its directories.
        assert_eq!(
            arg("examples/archive/projects/-a", "examples/archive/projects", false).as_deref(),
            Some("examples/archive/projects")
        );
        // Under the home directory: from ~.
        assert_eq!(
            arg("/home/alice/backup/projects/-a", "/home/alice/backup/projects", false).as_deref(),
            Some("~/backup/projects")
        );
        assert_eq!(arg("/home/alice/my dir/-a", "/home/alice/my dir/-a", false).as_deref(), Some("~/'my dir/-a'"));
        // Elsewhere: relative to the current directory.
        assert_eq!(arg("/srv/archive/-a", "/srv/archive", false).as_deref(), Some("../../../../srv/archive"));
        // A project given alone (or files): the project directory.
        assert_eq!(
            arg("/home/alice/src/app/p/-a", "/home/alice/src/app/p/-a", false).as_deref(),
            Some("~/src/app/p/-a")
        );
        assert_eq!(arg("", "s.jsonl", false).as_deref(), Some("."));
        // Never read as an option.
        assert_eq!(arg("-odd/projects/-a", "-odd/projects", false).as_deref(), Some("./-odd/projects"));
        assert_eq!(
            arg("/home/alice/src/app/-odd/-a", "/home/alice/src/app/-odd", false).as_deref(),
            Some("~/src/app/-odd")
        );
    }

    #[test]
    fn show_paths_gives_the_absolute_path() {
        assert_eq!(arg("/srv/archive/-a", "/srv/archive", true).as_deref(), Some("/srv/archive"));
        assert_eq!(arg("examples/p/-a", "examples/p", true).as_deref(), Some("/home/alice/src/app/examples/p"));
    }
}

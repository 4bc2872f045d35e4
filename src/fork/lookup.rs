//! How a `cctree fork` command shown on a page names the projects directory.
//!
//! `cctree fork` finds a session by its id in the client's projects
//! directory (`$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`),
//! then in the archive of `cctree sync` (see [`super::target`]), and says
//! what to pass when it is in neither. A site for its own machine — not
//! published: rendered without `--base-url` and `--redact`, or with
//! `--show-paths` — writes `--projects <absolute path>` into its commands
//! for an input that is not the client's projects directory, so that a
//! command works as copied, from any directory. A published site names no
//! directory of the machine it was rendered on.

use std::path::{Path, PathBuf};

use crate::term::shell_quote;

/// The `--projects` value (shell-quoted) the fork commands of the project in
/// `project_dir` carry, when the archive was read from `root`: none unless
/// `local` (the pages stay on this machine, [`names_directories`]); then
/// none when the project sits in the default projects directory, else the
/// absolute path of `root` when the project is one of its directories, or of
/// the project directory.
pub fn projects_arg(project_dir: &Path, root: &Path, local: bool) -> Option<String> {
    if !local {
        return None;
    }
    let cwd = std::env::current_dir().ok();
    let default = crate::agent::claude::discover::default_projects_dir();
    projects_arg_in(project_dir, root, &Env { cwd, default })
}

/// Whether a site's fork commands may name the directories of this machine:
/// with `--show-paths`, or a site not meant for publishing (no `--base-url`,
/// no `--redact`).
pub fn names_directories(show_paths: bool, base_url: bool, redact: bool) -> bool {
    show_paths || !(base_url || redact)
}

/// What [`projects_arg`] reads from the environment.
struct Env {
    cwd: Option<PathBuf>,
    default: Option<PathBuf>,
}

fn projects_arg_in(project_dir: &Path, root: &Path, env: &Env) -> Option<String> {
    let same = |a: &Path, b: &Path| a == b || a.canonicalize().is_ok_and(|a| b.canonicalize().is_ok_and(|b| a == b));
    let parent = project_dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if env.default.as_deref().is_some_and(|d| same(parent, d)) {
        return None;
    }
    let dir = if same(parent, root) { root } else { project_dir };
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let abs = match (&env.cwd, dir.is_absolute()) {
        (Some(cwd), false) => cwd.join(dir),
        _ => dir.to_path_buf(),
    };
    let abs = abs.canonicalize().unwrap_or(abs);
    Some(shell_quote(&abs.to_string_lossy()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Env {
        Env { cwd: Some("/home/alice/src/app".into()), default: Some("/home/alice/.claude/projects".into()) }
    }

    fn arg(project: &str, root: &str) -> Option<String> {
        projects_arg_in(Path::new(project), Path::new(root), &env())
    }

    #[test]
    fn pages_name_no_directory_unless_show_paths() {
        let here = std::env::current_dir().unwrap();
        assert_eq!(projects_arg(&here.join("p/-a"), &here.join("p"), false), None);
        assert_eq!(
            projects_arg(Path::new("examples/archive/projects/-a"), Path::new("examples/archive/projects"), false),
            None
        );
    }

    /// A site not published names its archive; one
    /// rendered with `--base-url` or `--redact` does not.
    #[test]
    fn only_a_published_site_names_no_directory() {
        assert!(names_directories(false, false, false), "a local site");
        assert!(!names_directories(false, true, false) && !names_directories(false, false, true), "published");
        assert!(names_directories(true, true, true), "--show-paths");
    }

    #[test]
    fn show_paths_names_the_absolute_path_of_another_directory() {
        let p = "/home/alice/.claude/projects/-home-alice-app";
        assert_eq!(arg(p, "/home/alice/.claude/projects"), None, "the default directory needs no flag");
        assert_eq!(arg(p, p), None, "a project of the default directory, given alone");
        assert_eq!(arg("/srv/archive/-a", "/srv/archive").as_deref(), Some("/srv/archive"));
        assert_eq!(arg("examples/p/-a", "examples/p").as_deref(), Some("/home/alice/src/app/examples/p"));
        assert_eq!(arg("/srv/my dir/-a", "/srv/my dir/-a").as_deref(), Some("'/srv/my dir/-a'"));
    }
}

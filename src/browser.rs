//! `--open`: a page opened in the user's browser, and a failure said.
//!
//! `$BROWSER` is read as browsers conventionally read it: a list of
//! commands separated by `:`, each run by the shell with the page as its
//! argument (`%s` in it replaced by the page; else the page appended), the
//! first that does not fail wins. Without it, the desktop's opener
//! (`xdg-open`, macOS's `open`, Windows' default). A command that exits
//! with a failure within [`OPEN_WAIT`] is an error naming it; one still
//! running then is taken to have opened the page (a browser keeps running).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};

use crate::limits::OPEN_WAIT;

/// Opens `page` (a URL or a file path) in a browser.
pub fn open(page: &str) -> Result<()> {
    match std::env::var("BROWSER").ok().filter(|b| !b.trim().is_empty()) {
        Some(list) => {
            let mut failures = Vec::new();
            for cmd in list.split(':').map(str::trim).filter(|c| !c.is_empty()) {
                match run(shell(cmd, page)) {
                    Ok(()) => return Ok(()),
                    Err(e) => failures.push(format!("BROWSER command `{cmd}` {e}")),
                }
            }
            bail!("{}", failures.join("; "))
        }
        None => desktop(page),
    }
}

/// `cmd` run by the shell with the page as `$1`.
fn shell(cmd: &str, page: &str) -> Command {
    let script = match cmd.contains("%s") {
        true => cmd.replace("%s", "\"$1\""),
        false => format!("{cmd} \"$1\""),
    };
    let mut c = Command::new("sh");
    c.arg("-c").arg(script).arg("cctree-open").arg(page);
    c
}

#[cfg(target_os = "macos")]
fn desktop(page: &str) -> Result<()> {
    let mut c = Command::new("open");
    c.arg(page);
    run(c).map_err(|e| anyhow::anyhow!("`open` {e}"))
}

#[cfg(all(unix, not(target_os = "macos")))]
fn desktop(page: &str) -> Result<()> {
    let mut c = Command::new("xdg-open");
    c.arg(page);
    run(c).map_err(|e| anyhow::anyhow!("`xdg-open` {e}"))
}

#[cfg(not(unix))]
fn desktop(page: &str) -> Result<()> {
    opener::open_browser(page).map_err(|e| anyhow::anyhow!("the default browser: {e}"))
}

/// Runs `c` detached from the terminal; an error when it cannot start or
/// exits with a failure within [`OPEN_WAIT`].
fn run(mut c: Command) -> Result<()> {
    let mut child = match c.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).spawn() {
        Ok(child) => child,
        Err(e) => bail!("cannot start: {e}"),
    };
    let start = Instant::now();
    while start.elapsed() < OPEN_WAIT {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => bail!("failed ({status})"),
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => bail!("cannot be waited for: {e}"),
        }
    }
    // Still running: a browser. Reaped on a thread of its own when it ends.
    std::thread::Builder::new().name("cctree-browser".into()).spawn(move || child.wait()).ok();
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_browser_command_is_run_by_the_shell_and_its_failure_said() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("opened");
        let ok = format!("f() {{ echo \"$1\" > '{}'; }}; f", out.display());
        run(shell(&ok, "http://127.0.0.1:1/a b")).unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "http://127.0.0.1:1/a b\n");
        // `%s` stands for the page where the command puts it.
        let at = format!("echo %s > '{}'", out.display());
        run(shell(&at, "page")).unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "page\n");
        let e = run(shell("false", "x")).unwrap_err().to_string();
        assert!(e.contains("failed"), "{e}");
        let e = run(shell("exit 3; :", "x")).unwrap_err().to_string();
        assert!(e.contains('3'), "{e}");
    }
}

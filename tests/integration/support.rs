//! Shared helpers: loading inputs through the library, where the fixtures are.

use std::path::{Path, PathBuf};

use cctree::discover;
use cctree::project::Project;
use cctree::stats::{Report, ReportBuilder, StatsOptions};

/// Real projects and DAG fixtures of claude-code-log (MIT), vendored under
/// `tests/fixtures/claude-code-log` (see its README).
pub fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-code-log")
}

pub fn real_projects() -> PathBuf {
    corpus().join("real_projects")
}

/// A small project of entries that are odd (an unknown type, a torn line,
/// images that cannot be shown), kept out of the bundled example.
pub fn odd_archive() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/odd/projects")
}

pub fn example_archive() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/archive/projects")
}

/// Loads every project of the inputs.
pub fn load(inputs: &[PathBuf]) -> Vec<Project> {
    discover::discover(inputs).expect("discover").projects.into_iter().map(Project::load).collect()
}

/// `stats --detail` of the inputs.
pub fn report(inputs: &[PathBuf]) -> Report {
    let mut b = ReportBuilder::new(StatsOptions { detail: true, exclude_own_forks: false });
    for p in load(inputs) {
        b.add(&p);
    }
    b.finish()
}

/// The binary built for the tests.
pub fn cctree() -> std::process::Command {
    // `CCTREE_TEST_BIN`: run the suite against another build (e.g. the one
    // before a fix, to see a regression test fail there).
    let mut cmd = std::process::Command::new(
        std::env::var_os("CCTREE_TEST_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_cctree").into()),
    );
    // The default inputs include Codex's and Gemini's folders: the
    // machine's own never take part in a test (a test that wants them sets these).
    cmd.env("CODEX_HOME", "/nonexistent/cctree-test-codex")
        .env("GEMINI_CLI_HOME", "/nonexistent/cctree-test-gemini")
        .env("QWEN_RUNTIME_DIR", "/nonexistent/cctree-test-qwen")
        .env("PI_CODING_AGENT_DIR", "/nonexistent/cctree-test-pi")
        .env("COPILOT_HOME", "/nonexistent/cctree-test-copilot");
    cmd
}

/// What a command wrote on a terminal (its stderr, a pseudo-terminal of 120
/// columns) and on its stdout (a pipe), and how it ended.
#[cfg(unix)]
pub struct OnTerminal {
    pub status: std::process::ExitStatus,
    pub terminal: String,
    pub stdout: Vec<u8>,
}

/// Runs `cmd` with its stderr on a pseudo-terminal (stdin closed, stdout a
/// pipe), as a user at a terminal who redirects the output would: what
/// cctree draws only on a terminal (the progress bar, colours) shows.
#[cfg(unix)]
pub fn on_terminal(cmd: &mut std::process::Command) -> OnTerminal {
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    use std::io::Read;
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("a pseudo-terminal");
    grantpt(&master).unwrap();
    unlockpt(&master).unwrap();
    let name = ptsname(&master, Vec::new()).unwrap();
    let size = rustix::termios::Winsize { ws_row: 40, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0 };
    rustix::termios::tcsetwinsize(&master, size).unwrap();
    let slave = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(name.as_bytes()))
        .unwrap();
    let mut master = std::fs::File::from(master);
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        // Ends with EIO once the command (the last holder of the terminal) exits.
        while let Ok(n) = master.read(&mut buf) {
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        out
    });
    let child = cmd
        .env("TERM", "xterm-256color")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(slave)
        .spawn()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    // The command's copy of the terminal is closed once `cmd` is dropped.
    drop(std::mem::replace(cmd, std::process::Command::new("true")));
    let terminal = String::from_utf8_lossy(&reader.join().unwrap()).into_owned();
    OnTerminal { status: out.status, terminal, stdout: out.stdout }
}

/// The colour sequences (SGR: `ESC [ … m`) in `text`.
pub fn colours(text: &str) -> usize {
    text.match_indices("\x1b[")
        .filter(|(i, _)| text[i + 2..].chars().find(|c| !(c.is_ascii_digit() || *c == ';')) == Some('m'))
        .count()
}

/// The whole texts a page's file of the search index (`search-N.js`) keeps
/// deflated in its `z` (a JSON array of strings, raw deflate, base64), as
/// `static/search.js` inflates them; empty when it keeps none. Panics on a
/// `z` that is not that.
pub fn doc_file_wholes(js: &str) -> Vec<String> {
    use base64::Engine;
    use std::io::Read;
    let body = js.split_once("]=").map_or("", |(_, b)| b.trim_end().trim_end_matches(';'));
    let v: serde_json::Value = serde_json::from_str(body).expect("a doc file's value is JSON");
    let Some(z) = v["z"].as_str() else { return Vec::new() };
    let bytes = base64::engine::general_purpose::STANDARD.decode(z).expect("z is base64");
    let mut text = String::new();
    flate2::read::DeflateDecoder::new(&bytes[..]).read_to_string(&mut text).expect("z is raw deflate of UTF-8");
    serde_json::from_str(&text).expect("z holds a JSON array of strings")
}

//! Whether a client's suite runs: the same rule for Codex CLI and Gemini
//! CLI as for Claude Code (`client::client`). A missing client is a failure
//! where the suite is required (`CCTREE_REQUIRE_CONFORMANCE=1`, as
//! `scripts/test.sh` sets, or `CI`), else a notice written straight to the
//! terminal (past the harness's capture), once per client, and the test runs
//! nothing. `CCTREE_SKIP_CONFORMANCE=1` skips with the same notice, except
//! in CI.

use std::path::PathBuf;
use std::sync::Mutex;

fn set(k: &str) -> bool {
    std::env::var(k).is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// `bin` when it is a file and the suite is not skipped; otherwise `None`
/// after the notice, or a panic where the suite is required. `suite` is the
/// banner's name (`CODEX`, `GEMINI`), `what` the client and version, `install`
/// the script that installs it.
pub fn client(suite: &str, what: &str, bin: PathBuf, install: &str, env: &str) -> Option<PathBuf> {
    static NOTICES: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let in_ci = set("CI");
    let why = if set("CCTREE_SKIP_CONFORMANCE") && !in_ci {
        Some("CCTREE_SKIP_CONFORMANCE=1".to_string())
    } else if !bin.is_file() {
        Some(format!("the pinned {what} is not installed at {}", bin.display()))
    } else {
        None
    };
    let Some(why) = why else { return Some(bin) };
    if in_ci || set("CCTREE_REQUIRE_CONFORMANCE") {
        panic!("the {what} conformance suite cannot run: {why}; run {install} (or set {env} to the client)");
    }
    let mut seen = NOTICES.lock().unwrap_or_else(|e| e.into_inner());
    if !seen.iter().any(|s| s == suite) {
        seen.push(suite.to_string());
        let banner = format!(
            "\n*** {suite} CONFORMANCE SUITE NOT RUN: {why}\n*** run {install} \
             (or scripts/test.sh, which installs it); scripts/test.sh and CI require it.\n\n"
        );
        let _ = std::io::Write::write_all(&mut std::io::stderr(), banner.as_bytes());
    }
    None
}

/// `<target>/tools`, where the install scripts put the clients.
pub fn tools() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
        .join("tools")
}

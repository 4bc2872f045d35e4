//! Conformance with the Claude Code people run today: the pinned client
//! (`tests/conformance/package-lock.json`, installed by
//! `scripts/install-claude.sh`) is driven offline against a mock Messages API
//! on loopback, and cctree is checked against what the client wrote and what
//! it reads back (see `docs/transcript-format.md`, appendix B).
//!
//! Without the client the suite fails; `CCTREE_SKIP_CONFORMANCE=1` skips it
//! with a notice (refused when `CI` is set).

mod client;
mod mock;
mod record;
mod scenarios;

use std::sync::Mutex;

/// One scenario at a time: the client is heavy and the TUI timing-sensitive.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn explore_print() {
    let _g = serial();
    let Some(bin) = client::client() else { return };
    let s = client::Sandbox::new(&bin, "print");
    let r = scenarios::print_session(&s);
    record::save(&s, "print");
    eprintln!("main {} fork {}", r.main, r.fork);
}

#[test]
fn explore_tui() {
    let _g = serial();
    let Some(bin) = client::client() else { return };
    let s = client::Sandbox::new(&bin, "tui");
    let r = scenarios::tui_session(&s);
    record::save(&s, "tui");
    eprintln!("main {} branch {}", r.main, r.branch);
}

#[test]
fn explore_bash_rewind() {
    let _g = serial();
    let Some(bin) = client::client() else { return };
    let s = client::Sandbox::new(&bin, "bash-rewind");
    let r = scenarios::bash_rewind_session(&s);
    record::save(&s, "bash-rewind");
    eprintln!("main {r}");
}

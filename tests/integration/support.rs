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
    std::process::Command::new(env!("CARGO_BIN_EXE_cctree"))
}

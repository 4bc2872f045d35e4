//! Shared helpers: loading inputs through the library, the corpus location.

use std::path::{Path, PathBuf};

use cctree::discover;
use cctree::project::Project;
use cctree::stats::{Report, ReportBuilder, StatsOptions};

/// The shared corpus of real projects and DAG fixtures (MIT, see its LICENSE).
pub fn corpus() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    for base in [here.join("../shared/corpus/claude-code-log"), here.join("../../shared/corpus/claude-code-log")] {
        if base.is_dir() {
            return base;
        }
    }
    panic!("the shared corpus is missing: expected ../shared/corpus/claude-code-log next to the repository");
}

pub fn real_projects() -> PathBuf {
    corpus().join("real_projects")
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

//! Recording the archives the suite makes into `tests/fixtures/client-<version>/`
//! (`CCTREE_RECORD_FIXTURES=1 cargo test --test conformance`), so that
//! ordinary tests can use real client output without the client.

use std::path::{Path, PathBuf};

use crate::client::{Sandbox, VERSION};

pub fn recording() -> bool {
    std::env::var("CCTREE_RECORD_FIXTURES").is_ok_and(|v| v == "1")
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/client-{VERSION}"))
}

/// Copies the sandbox's `projects/` and `file-history/` to the fixture
/// `name` (replacing it) when recording.
pub fn save(s: &Sandbox, name: &str) {
    if !recording() {
        return;
    }
    let dest = fixtures().join(name);
    let _ = std::fs::remove_dir_all(&dest);
    for sub in ["projects", "file-history"] {
        let from = s.config.join(sub);
        if from.is_dir() {
            copy_tree(&from, &dest.join(sub));
        }
    }
    eprintln!("recorded {}", dest.display());
}

fn copy_tree(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from).sort_by_file_name().into_iter().flatten() {
        let rel = e.path().strip_prefix(from).unwrap();
        let target = to.join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else if e.file_type().is_file() {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// Copies `entries` (files or folders) of `from` to
/// `tests/fixtures/<fixtures>/<name>/` (replacing it) when recording: the
/// Codex and Gemini suites' archives.
pub fn save_tree(fixtures: &str, name: &str, from: &Path, entries: &[&str]) {
    if !recording() {
        return;
    }
    let dest = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(fixtures).join(name);
    let _ = std::fs::remove_dir_all(&dest);
    for e in entries {
        let src = from.join(e);
        if src.is_dir() {
            copy_tree(&src, &dest.join(e));
        } else if src.is_file() {
            std::fs::create_dir_all(dest.join(e).parent().unwrap()).unwrap();
            std::fs::copy(&src, dest.join(e)).unwrap();
        }
    }
    eprintln!("recorded {}", dest.display());
}

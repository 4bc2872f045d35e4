//! Fingerprints what the renderer is made of, for the render cache
//! (`cache::code_fingerprint`): a blake3 of every file under `src/`,
//! `templates/` and `static/`, the manifest and lock file, this script and
//! the compiler's version. A change to any of them makes a new fingerprint,
//! so a site rendered by another build is rendered again, without reading
//! the executable at every run.

use std::path::{Path, PathBuf};

fn main() {
    let mut files = Vec::new();
    for dir in ["src", "templates", "static"] {
        println!("cargo:rerun-if-changed={dir}");
        walk(Path::new(dir), &mut files);
    }
    for file in ["Cargo.toml", "Cargo.lock", "build.rs"] {
        println!("cargo:rerun-if-changed={file}");
        files.push(PathBuf::from(file));
    }
    files.sort();
    let mut h = blake3::Hasher::new();
    for f in &files {
        h.update(f.to_string_lossy().as_bytes());
        h.update(b"\0");
        h.update(&std::fs::read(f).unwrap_or_default());
        h.update(b"\0");
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    if let Ok(out) = std::process::Command::new(rustc).arg("-vV").output() {
        h.update(&out.stdout);
    }
    println!("cargo:rustc-env=CCTREE_CODE_HASH={}", h.finalize().to_hex());
}

/// Every file under `dir`, recursively.
fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            walk(&path, files);
        } else {
            files.push(path);
        }
    }
}

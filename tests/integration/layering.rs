//! The rules of the code's own shape, checked on its sources so that they
//! cannot regress unseen: render reads only the transcript model (no JSON,
//! no transcript line, no file), and templates write markup only through
//! the `html` filter.

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every Rust file under `dir`, with its text, comments left out (a doc
/// comment may name what the code must not use).
fn sources(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(dir).sort_by_file_name().into_iter().filter_map(Result::ok) {
        if e.path().extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(e.path()).unwrap();
        let code: String = text
            .lines()
            .map(|l| match l.find("//") {
                Some(at) => &l[..at],
                None => l,
            })
            .collect::<Vec<_>>()
            .join("\n");
        out.push((e.path().strip_prefix(root()).unwrap_or(e.path()).to_path_buf(), code));
    }
    out
}

/// What render may not touch: JSON (trees, the client's JSON rules, the
/// serializer), the lines of transcripts and anything else of a project's
/// files, and the file system. It reads `Project::node` and `Project::record`
/// (the model) and writes through the `Sink` the build gives it.
const FORBIDDEN: &[(&str, &str)] = &[
    ("serde_json", "JSON is the readers' business (src/adapter) and the build's"),
    ("json::parse", "a transcript's JSON is read by its adapter"),
    ("json::pick", "a transcript's JSON is read by its adapter"),
    ("json::Value", "a transcript's JSON is read by its adapter"),
    ("crate::texts", "lines are read again by the adapter"),
    (".line(", "lines are read again by the adapter (Project::node)"),
    (".line_bytes(", "lines are read again by the adapter (Project::node)"),
    (".json(", "lines are read again by the adapter (Project::node)"),
    (".json_only(", "lines are read again by the adapter (Project::node)"),
    (".side_file(", "side files are read by the adapter"),
    ("std::fs", "render never touches the file system: the build does"),
    ("fs::", "render never touches the file system: the build does"),
    ("File::", "render never touches the file system: the build does"),
    ("OpenOptions", "render never touches the file system: the build does"),
    ("walkdir", "render never touches the file system: the build does"),
    ("std::io::Read", "render never touches the file system: the build does"),
    ("std::env", "render sees neither the command line nor the environment"),
];

#[test]
fn render_reads_only_the_model_and_no_file() {
    let files = sources(&root().join("src/render"));
    assert!(files.len() > 20, "render's sources are found: {}", files.len());
    let mut found = Vec::new();
    for (path, code) in &files {
        for (n, line) in code.lines().enumerate() {
            for (what, why) in FORBIDDEN {
                if line.contains(what) {
                    found.push(format!("{}:{}: `{what}` ({why}): {}", path.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(found.is_empty(), "render reads what only the model should give it:\n{}", found.join("\n"));
}

/// The check above finds what it looks for (it would pass on no files).
#[test]
fn the_render_rule_catches_a_file_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.rs"), "fn f(p: &Project) { let v = p.json(e); } // serde_json\n").unwrap();
    let files = sources(dir.path());
    let code = &files[0].1;
    assert!(code.contains(".json(") && !code.contains("serde_json"), "comments are left out, code is kept");
}

/// Templates write markup only through the `html` filter, which takes
/// nothing but `Html` and views: `|safe` (which takes anything) is not used.
#[test]
fn templates_never_use_safe() {
    let dir = root().join("templates");
    let mut seen = 0;
    for e in walkdir::WalkDir::new(&dir).into_iter().filter_map(Result::ok).filter(|e| e.file_type().is_file()) {
        let text = std::fs::read_to_string(e.path()).unwrap();
        assert!(!text.contains("|safe") && !text.contains("| safe"), "{}", e.path().display());
        seen += 1;
    }
    assert!(seen > 10, "{seen} templates");
}

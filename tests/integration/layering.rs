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

/// The modules of `src/render` (its folders by role, and its files): which
/// each one's code (tests left out) refers to, as `crate::render::x`,
/// `super::x` or `super::super::x`. The root module is `render`.
fn render_imports() -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let dir = root().join("src/render");
    let top: std::collections::BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir() || p.extension().is_some_and(|x| x == "rs") && !p.ends_with("mod.rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let word = regex::Regex::new(r"\b((?:super::)+|crate::render::)([a-z_][a-z0-9_]*)").unwrap();
    let group = regex::Regex::new(r"\b((?:super::)+|crate::render::)\{([^}]*)\}").unwrap();
    let mut graph: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = Default::default();
    for (path, code) in sources(&dir) {
        // The file's module path under `render`: `site/context.rs` → [site, context].
        let rel = path.strip_prefix("src/render").unwrap();
        let mut module: Vec<String> =
            rel.iter().map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string()).collect();
        if module.last().is_some_and(|m| m == "mod") {
            module.pop();
        }
        let from = module.first().cloned().unwrap_or_else(|| "render".into());
        let code = code.split("#[cfg(test)]").next().unwrap_or("");
        // `super::{a, b::c}` → `super::a super::b::c`, to be read like the rest.
        let code = group.replace_all(code, |g: &regex::Captures<'_>| {
            g[2].split(',').map(|item| format!("{}{} ", &g[1], item.trim())).collect::<String>()
        });
        let edges = graph.entry(from.clone()).or_default();
        for m in word.captures_iter(&code) {
            let target = if &m[1] == "crate::render::" {
                m[2].to_string()
            } else {
                let ups = m[1].matches("super::").count();
                let mut at = module.clone();
                for _ in 0..ups {
                    at.pop();
                }
                at.first().cloned().unwrap_or_else(|| m[2].to_string())
            };
            let target = if top.contains(&target) { target } else { "render".to_string() };
            if target != from {
                edges.insert(target);
            }
        }
    }
    graph
}

/// A circle of imports in `graph`, if there is one.
fn circle(graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut std::collections::BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == n) {
            let mut c = path[at..].to_vec();
            c.push(n.to_string());
            return Some(c);
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_string());
        for next in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = Default::default();
    graph.keys().find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

/// Render is grouped by role into folders (the site model and URLs, the
/// streaming HTML transforms, views, pages, search, export; plain-text
/// helpers), and no module of it imports one that imports it back, through
/// any chain: each uses only those below it.
#[test]
fn render_modules_import_no_circle() {
    let graph = render_imports();
    for m in ["site", "html", "views", "pages", "search", "export", "plain"] {
        assert!(graph.contains_key(m), "render has a module {m}: {graph:?}");
    }
    assert!(graph.values().map(|e| e.len()).sum::<usize>() >= 15, "imports are found: {graph:?}");
    assert!(
        graph.iter().all(|(m, e)| m == "render" || !e.contains("render")),
        "the root is imported by no module: {graph:?}"
    );
    if let Some(c) = circle(&graph) {
        panic!("a circle of imports in src/render: {}\nthe imports: {graph:#?}", c.join(" → "));
    }
}

/// The circle check finds a circle when there is one.
#[test]
fn the_circle_check_finds_circles() {
    let g = |edges: &[(&str, &str)]| {
        let mut graph: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = Default::default();
        for (a, b) in edges {
            graph.entry(a.to_string()).or_default().insert(b.to_string());
        }
        graph
    };
    assert_eq!(circle(&g(&[("a", "b"), ("b", "c")])), None);
    assert_eq!(circle(&g(&[("a", "b"), ("b", "c"), ("c", "a")])).unwrap().len(), 4);
}

/// `cargo package` ships no `tests/fixtures`, and CI runs the packaged
/// crate's unit tests with `--skip vendored_fixtures_`: a source file whose
/// tests read the vendored fixtures names those tests `vendored_fixtures_*`
/// (else they fail in the package, finding nothing), and no file that does
/// not read them has such a test (it would be skipped there for nothing).
#[test]
fn unit_tests_that_read_vendored_fixtures_are_named_so() {
    let mut named = 0;
    for (path, code) in sources(&root().join("src")) {
        let reads = code.contains("\"tests/fixtures");
        let tests = code.matches("fn vendored_fixtures_").count();
        named += tests;
        assert_eq!(
            reads,
            tests > 0,
            "{}: reads the vendored fixtures: {reads}, tests named vendored_fixtures_*: {tests}",
            path.display()
        );
    }
    assert!(named >= 3, "{named} tests named vendored_fixtures_*");
}

/// ARCHITECTURE.md is a code map a newcomer reads in one sitting (at most
/// 3,000 words), and every path it names exists: a claim about a file that
/// moved fails here.
#[test]
fn the_code_map_is_short_and_names_only_paths_that_exist() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let words = text.split_whitespace().count();
    assert!(words <= 3000, "ARCHITECTURE.md has {words} words");
    let tree: Vec<PathBuf> = ["src", "tests", "docs", "scripts", "templates", "static", "fuzz"]
        .iter()
        .flat_map(|d| walkdir::WalkDir::new(root().join(d)).into_iter().flatten())
        .map(|e| e.path().to_path_buf())
        .collect();
    // The prose, without its fenced drawings.
    let mut fenced = false;
    let prose: String = text
        .lines()
        .filter(|l| {
            fenced ^= l.starts_with("```");
            !fenced && !l.starts_with("```")
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut named = Vec::new();
    for span in prose.split('`').skip(1).step_by(2) {
        // `src/graph/`, `agent/fork.rs`, `tests/README.md`…: what names a file or folder of the tree.
        let path_like = span.contains('/') || [".rs", ".md", ".json", ".toml", ".js"].iter().any(|x| span.ends_with(x));
        // Not paths: a URL, a doc comment's marker, an extension alone, and
        // the one folder named of the site cctree writes, not of the tree.
        let elsewhere = span.contains(':')
            || span.starts_with("//")
            || !span.get(1..).is_some_and(|s| s.contains(['.', '/']))
            || span == ".cctree-cache/";
        if !path_like
            || elsewhere
            || span.contains([' ', '<', '*', '('])
            || span.starts_with("--")
            || span.starts_with('~')
        {
            continue;
        }
        named.push(span.to_string());
    }
    assert!(named.len() > 60, "paths are found: {named:?}");
    // A path names a file from the root, or (written short, as `graph/link.rs`
    // under its module's heading) the one file of the tree it ends with.
    let missing: Vec<&String> = named
        .iter()
        .filter(|p| !root().join(p.as_str()).exists() && !tree.iter().any(|t| t.ends_with(p.trim_end_matches('/'))))
        .collect();
    assert!(missing.is_empty(), "ARCHITECTURE.md names paths that do not exist: {missing:?}");
}

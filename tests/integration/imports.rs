//! The imports of `src`, read from the code (every `use` path and every
//! path written in full: `crate::…`, `super::…`, `self::…`, a child module
//! declared with `mod`), each resolved to the file that defines it: bytes go
//! down and nothing climbs back up, so there is no circle of imports between
//! the top-level modules of `src`, nor between the files of any folder (a
//! subfolder counted as one), and render imports none of the stages it must
//! not see. Tests (`#[cfg(test)]` modules) and comments are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// One source file: its path relative to the source root, its module path,
/// and its code without comments and tests.
struct Source {
    rel: PathBuf,
    module: Vec<String>,
    code: String,
}

/// The code of `text` without comments (line and block), string literals
/// emptied and `#[cfg(test)]` items cut off at their start.
fn code_of(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'"' {
            // A string: its text is no path (raw strings are rare in `src`
            // and hold no `crate::`).
            out.push('"');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            out.push('"');
            i += 1;
        } else if b[i] == b'\'' && b.get(i + 2) == Some(&b'\'') {
            // A char literal such as '"' (a lifetime has no closing quote).
            out.push_str("' '");
            i += 3;
        } else {
            let ch = text[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    match out.find("#[cfg(test)]") {
        Some(at) => out[..at].to_string(),
        None => out,
    }
}

/// Every `.rs` file under `src` (of the crate rooted at `root`), with its
/// module path; a file declared under `#[cfg(test)]` (`mod tests;`) is a
/// test, left out.
fn sources(root: &Path) -> Vec<Source> {
    let src = root.join("src");
    let test_mod =
        regex::Regex::new(r"#\[cfg\(test\)\]\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;").unwrap();
    let mut tests: BTreeSet<PathBuf> = BTreeSet::new();
    for e in walkdir::WalkDir::new(&src).into_iter().filter_map(Result::ok) {
        if e.path().extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(e.path()).unwrap();
        let dir = match e.path().file_name().is_some_and(|n| n == "mod.rs" || n == "lib.rs" || n == "main.rs") {
            true => e.path().parent().unwrap().to_path_buf(),
            false => e.path().with_extension(""),
        };
        for c in test_mod.captures_iter(&text) {
            tests.insert(dir.join(format!("{}.rs", &c[1])));
            tests.insert(dir.join(&c[1]).join("mod.rs"));
        }
    }
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(&src).sort_by_file_name().into_iter().filter_map(Result::ok) {
        if e.path().extension().is_none_or(|x| x != "rs") || tests.contains(e.path()) {
            continue;
        }
        let rel = e.path().strip_prefix(&src).unwrap().to_path_buf();
        let mut module: Vec<String> =
            rel.iter().map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string()).collect();
        if module.last().is_some_and(|m| m == "mod") || module == ["lib"] || module == ["main"] {
            module.pop();
        }
        let code = code_of(&std::fs::read_to_string(e.path()).unwrap());
        out.push(Source { rel, module, code });
    }
    out
}

/// The file (relative to `src`) that defines the module path `segs`: the
/// longest prefix that is a module file (following what it re-exports to
/// where that is defined), else the crate root.
fn file_of(
    files: &BTreeSet<PathBuf>,
    reexported: &BTreeMap<(PathBuf, String), Vec<String>>,
    segs: &[String],
) -> PathBuf {
    let mut segs = segs.to_vec();
    for _ in 0..16 {
        let Some((n, f)) = (1..=segs.len()).rev().find_map(|n| {
            let p: PathBuf = segs[..n].iter().collect();
            [p.with_extension("rs"), p.join("mod.rs")].into_iter().find(|c| files.contains(c)).map(|c| (n, c))
        }) else {
            return PathBuf::from("lib.rs");
        };
        match segs.get(n).and_then(|name| reexported.get(&(f.clone(), name.clone()))) {
            Some(target) if target != &segs[..target.len().min(segs.len())] => {
                segs = target.iter().cloned().chain(segs[n + 1..].iter().cloned()).collect();
            }
            _ => return f,
        }
    }
    PathBuf::from("lib.rs")
}

/// The child modules a file declares (`mod x;`).
fn children(code: &str) -> BTreeSet<String> {
    regex::Regex::new(r"(?m)^\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;")
        .unwrap()
        .captures_iter(code)
        .map(|c| c[1].to_string())
        .collect()
}

/// `code` with every `use` group written out: `a::{b, c::{d}}` → `a::b a::c::d`.
fn expanded(code: &str) -> String {
    let group = regex::Regex::new(r"([A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^{}]*)\}").unwrap();
    let mut code = code.to_string();
    while group.is_match(&code) {
        code = group
            .replace_all(&code, |g: &regex::Captures<'_>| {
                g[2].split(',').map(|i| format!(" {}::{} ", &g[1], i.trim())).collect::<String>()
            })
            .into_owned();
    }
    code
}

/// The path `p` (`crate::a`, `super::b`, `self::c`, `child::d`) written in
/// the module `here` that declares `children`, as a module path from the
/// crate root; `None` for a path of another crate.
fn absolute(p: &str, here: &[String], children: &BTreeSet<String>) -> Option<Vec<String>> {
    let segs: Vec<&str> = p.split("::").collect();
    let own = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let out: Vec<String> = match segs[0] {
        "crate" => own(&segs[1..]),
        "self" => here.iter().cloned().chain(own(&segs[1..])).collect(),
        // `super`: a file's parent; for `mod.rs`, its folder's parent.
        "super" => {
            let ups = segs.iter().take_while(|x| **x == "super").count();
            let mut at = here.to_vec();
            for _ in 0..ups {
                at.pop();
            }
            at.into_iter().chain(own(&segs[ups..])).collect()
        }
        child if children.contains(child) => here.iter().cloned().chain(own(&segs)).collect(),
        _ => return None,
    };
    (!out.is_empty()).then_some(out)
}

/// Every path a file's code names, as module paths (`crate::a::b` → [a, b]).
fn paths(s: &Source) -> Vec<Vec<String>> {
    let children = children(&s.code);
    let code = expanded(&s.code);
    let path =
        regex::Regex::new(r"(?:^|[^A-Za-z0-9_:])((?:crate|super|self|[a-z_][a-z0-9_]*)(?:::[A-Za-z_][A-Za-z0-9_]*)+)")
            .unwrap();
    let here = &s.module;
    let mut out = Vec::new();
    for c in path.captures_iter(&code) {
        out.extend(absolute(&c[1], here, &children));
    }
    out
}

/// What each file re-exports (`pub use a::b::Name;`, `pub use a::b as C;`):
/// (file, name) → the module path of what it names.
fn reexports(all: &[Source]) -> BTreeMap<(PathBuf, String), Vec<String>> {
    let item = regex::Regex::new(r"\bpub(?:\([a-z]+\))?\s+use\s+([^;]+);").unwrap();
    let mut out = BTreeMap::new();
    for s in all {
        let children = children(&s.code);
        for c in item.captures_iter(&expanded(&s.code)) {
            for one in c[1].split_whitespace().collect::<Vec<_>>().join(" ").split(' ').filter(|x| x.contains("::")) {
                let Some(target) = absolute(one.trim_end_matches(','), &s.module, &children) else { continue };
                let Some(name) = target.last().cloned() else { continue };
                out.insert((s.rel.clone(), name), target);
            }
        }
    }
    out
}

/// The imports of every file of the crate at `root`: file → files it names.
fn file_imports(root: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let all = sources(root);
    let files: BTreeSet<PathBuf> = all.iter().map(|s| s.rel.clone()).collect();
    let reexported = reexports(&all);
    let mut out: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for s in &all {
        let targets = out.entry(s.rel.clone()).or_default();
        for p in paths(s) {
            let f = file_of(&files, &reexported, &p);
            if f != s.rel {
                targets.insert(f);
            }
        }
    }
    out
}

/// The top-level module a file (relative to `src`) belongs to.
fn top_module(f: &Path) -> String {
    let first = f.iter().next().unwrap().to_string_lossy().into_owned();
    first.trim_end_matches(".rs").to_string()
}

/// The imports between the top-level modules of `src`.
fn module_graph(imports: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Graph {
    let mut g = Graph::new();
    for (from, to) in imports {
        let a = top_module(from);
        let edges = g.entry(a.clone()).or_default();
        for t in to {
            let b = top_module(t);
            if b != a && b != "lib" {
                edges.insert(b);
            }
        }
    }
    g
}

/// For each folder of `src`, the imports between its files and subfolders
/// (a subfolder is one node, `name/`). A folder's `mod.rs` is the folder
/// itself, not one of its files: it declares the others and re-exports what
/// they offer, and what they share from it is the folder's own (as
/// `graph::Graph` is the graph's), so it is no node of the folder's graph;
/// its own imports count at the level above.
fn folder_graphs(imports: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> BTreeMap<PathBuf, Graph> {
    let node_in = |dir: &Path, f: &Path| -> Option<String> {
        let rest = f.strip_prefix(dir).ok()?;
        let mut parts = rest.iter();
        let first = parts.next()?.to_string_lossy().into_owned();
        Some(if parts.next().is_some() { format!("{first}/") } else { first })
    };
    let mut dirs: BTreeSet<PathBuf> = BTreeSet::new();
    for f in imports.keys() {
        let mut d = f.parent();
        while let Some(p) = d {
            dirs.insert(p.to_path_buf());
            d = p.parent();
        }
    }
    let mut out = BTreeMap::new();
    for dir in dirs {
        let mut g = Graph::new();
        for (from, to) in imports {
            let Some(a) = node_in(&dir, from).filter(|a| a != "mod.rs") else { continue };
            let edges = g.entry(a.clone()).or_default();
            for t in to {
                if let Some(b) = node_in(&dir, t).filter(|b| *b != a && b != "mod.rs") {
                    edges.insert(b);
                }
            }
        }
        out.insert(dir, g);
    }
    out
}

/// Every circle of `graph` (one per strongly connected group of nodes), each
/// as a path back to its start.
fn circles(graph: &Graph) -> Vec<Vec<String>> {
    // Tarjan's strongly connected components, iteratively.
    let nodes: Vec<&String> =
        graph.keys().chain(graph.values().flatten()).collect::<BTreeSet<_>>().into_iter().collect();
    let ix: BTreeMap<&String, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let succ: Vec<Vec<usize>> =
        nodes.iter().map(|n| graph.get(*n).into_iter().flatten().map(|m| ix[m]).collect()).collect();
    let (mut index, mut low, mut on) = (vec![usize::MAX; nodes.len()], vec![0; nodes.len()], vec![false; nodes.len()]);
    let (mut stack, mut next, mut groups) = (Vec::new(), 0, Vec::new());
    for start in 0..nodes.len() {
        if index[start] != usize::MAX {
            continue;
        }
        let mut work = vec![(start, 0usize)];
        while let Some(&mut (v, ref mut k)) = work.last_mut() {
            if *k == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on[v] = true;
            }
            if let Some(&w) = succ[v].get(*k) {
                *k += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(u, _)) = work.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                let mut group = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    group.push(w);
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    groups.push(group);
                }
            }
        }
    }
    // Each group as one circle through all its nodes' names (sorted), for the message.
    groups
        .into_iter()
        .map(|g| {
            let mut names: Vec<String> = g.into_iter().map(|i| nodes[i].clone()).collect();
            names.sort();
            names
        })
        .collect()
}

/// Who imports whom inside a circle, for the message.
fn explain(graph: &Graph, circle: &[String]) -> String {
    let set: BTreeSet<&String> = circle.iter().collect();
    let mut lines = Vec::new();
    for n in circle {
        let to: Vec<&String> = graph.get(n).into_iter().flatten().filter(|m| set.contains(m)).collect();
        lines.push(format!("  {n} → {}", to.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")));
    }
    lines.join("\n")
}

/// Every circle of the crate at `root`: among its top-level modules, then
/// among the files of each folder.
fn all_circles(root: &Path) -> Vec<String> {
    let imports = file_imports(root);
    let mut found = Vec::new();
    let modules = module_graph(&imports);
    for c in circles(&modules) {
        found.push(format!("top-level modules {}:\n{}", c.join(", "), explain(&modules, &c)));
    }
    for (dir, g) in folder_graphs(&imports) {
        if dir.as_os_str().is_empty() {
            continue; // the top level, above
        }
        for c in circles(&g) {
            found.push(format!("files of src/{}/: {}:\n{}", dir.display(), c.join(", "), explain(&g, &c)));
        }
    }
    found
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn no_circle_of_imports_between_modules_or_files_of_a_folder() {
    let imports = file_imports(root());
    assert!(imports.len() > 100, "the sources are read: {} files", imports.len());
    let edges: usize = imports.values().map(BTreeSet::len).sum();
    assert!(edges > 300, "imports are found: {edges}");
    let found = all_circles(root());
    assert!(found.is_empty(), "circles of imports in src:\n{}", found.join("\n"));
}

/// Render reads the model (and the graph, the loaded project, the price
/// table…), never the stages before it nor the command line: what a client
/// wrote reaches it only as the model.
#[test]
fn render_imports_none_of_the_stages_it_must_not_see() {
    let imports = file_imports(root());
    let forbidden =
        ["parse", "discover", "fork", "history", "recover", "select", "agent", "sync", "check", "run", "cli"];
    let mut found = Vec::new();
    for (from, to) in &imports {
        if top_module(from) != "render" {
            continue;
        }
        for t in to {
            if forbidden.contains(&top_module(t).as_str()) {
                found.push(format!("src/{} imports src/{}", from.display(), t.display()));
            }
        }
    }
    assert!(found.is_empty(), "render imports what it must not see:\n{}", found.join("\n"));
}

/// The check finds a circle planted on purpose, at both levels, and none
/// where there is none; `use` groups, `super::` and child modules resolve.
#[test]
fn the_import_check_finds_a_planted_circle() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let p = dir.path().join("src").join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n");
    write("a/mod.rs", "mod x;\nmod y;\npub struct S;\npub fn f() { x::g(); }\n");
    write("a/x.rs", "use super::y::h; // crate::b\nuse super::S;\npub fn g() { h() }\n");
    write("a/y.rs", "pub fn h() { crate::b::k(); }\n#[cfg(test)]\nmod t { use crate::c::z; }\n");
    write("b.rs", "use crate::{c::{self, z}};\npub fn k() { c::z(); }\n");
    write("c.rs", "pub fn z() { let _ = \"crate::a::f\"; }\n");
    assert_eq!(all_circles(dir.path()), Vec::<String>::new(), "no circle yet");
    let imports = file_imports(dir.path());
    let set = |v: &[&str]| v.iter().map(PathBuf::from).collect::<BTreeSet<_>>();
    assert_eq!(imports[&PathBuf::from("a/mod.rs")], set(&["a/x.rs"]));
    assert_eq!(imports[&PathBuf::from("a/x.rs")], set(&["a/mod.rs", "a/y.rs"]), "a child may use its folder's own");
    assert_eq!(imports[&PathBuf::from("a/y.rs")], set(&["b.rs"]), "tests and strings are no imports");
    assert_eq!(imports[&PathBuf::from("b.rs")], set(&["c.rs"]));
    // A climb between top-level modules: c imports a, which imports b, which imports c.
    write("c.rs", "pub fn z() { crate::a::f(); }\n");
    let found = all_circles(dir.path());
    assert!(found.iter().any(|c| c.starts_with("top-level modules a, b, c")), "{found:?}");
    // Between the files of one folder: y imports x back.
    write("c.rs", "pub fn z() {}\n");
    write("a/y.rs", "pub fn h() { super::x::g(); }\n");
    let found = all_circles(dir.path());
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("files of src/a/: x.rs, y.rs"), "{found:?}");
}

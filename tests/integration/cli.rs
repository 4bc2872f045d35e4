//! The command line: output shapes and exit codes.

use std::path::Path;

use crate::support::{cctree, corpus, example_archive, odd_archive};

#[test]
fn stats_json_has_the_documented_keys() {
    let out = cctree().args(["stats", "--json", "--detail"]).arg(example_archive()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for k in [
        "projects",
        "files",
        "lines",
        "bad_lines",
        "entries",
        "nodes",
        "duplicate_uuids",
        "roots",
        "leaves",
        "multi_child_nodes",
        "fork_points",
        "conversations",
        "branches",
        "sidechain_nodes",
        "summaries",
        "summaries_attached",
        "compactions",
    ] {
        assert!(v[k].is_u64(), "missing {k}");
    }
    assert_eq!(v["projects"], 2);
    let conv = &v["projects_detail"][1]["conversations"][0];
    for k in ["id", "root", "title", "messages", "fork_points", "branches"] {
        assert!(!conv[k].is_null(), "missing {k}");
    }
    let fork = &conv["fork_points"][0];
    assert!(fork["uuid"].is_string() && fork["children"].is_array());
    let main = &conv["branches"][0];
    assert!(main["fork_point"].is_null(), "the main branch has no fork point");
    for k in ["id", "leaf", "title", "messages"] {
        assert!(!main[k].is_null(), "missing {k}");
    }
    assert!(conv["branches"][1]["fork_point"].is_string());
}

#[test]
fn stats_table_on_a_terminal_or_pipe() {
    let out = cctree().arg("stats").arg(example_archive()).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("-home-alice-src-weather-cli") && text.contains("TOTAL"), "{text}");
}

#[test]
fn check_exit_codes() {
    // The bundled example is clean.
    let out = cctree().args(["check"]).arg(example_archive()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "no findings\n");
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    // Its odd entries live in their own fixture.
    let out = cctree().args(["check", "--json"]).arg(odd_archive()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["counts"], serde_json::json!({"malformed-line": 1, "unknown-type": 1}));
    // A broken file has findings, each with file:line.
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("s.jsonl");
    std::fs::write(
        &f,
        concat!(
            "{\"type\":\"user\",\"uuid\":\"a\",\"parentUuid\":\"gone\",\"sessionId\":\"s\",\"message\":{\"content\":\"hi\"}}\n",
            "{\"type\":\"user\",\"uuid\":\"b\",\"parentUuid\":\"a\",\"sessi"
        ),
    )
    .unwrap();
    let out = cctree().args(["check", "--json"]).arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let kinds: Vec<&str> = v["findings"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["P2-dangling-parent", "malformed-line"]);
    assert_eq!(v["findings"][1]["line"], 2);
    // A missing input is an error (exit 2) that names the path.
    let out = cctree().args(["check", "/nonexistent/projects"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/projects"));
}

#[test]
fn missing_default_directory_points_at_the_example() {
    let tmp = tempfile::tempdir().unwrap();
    let out = cctree().arg("stats").env("CLAUDE_CONFIG_DIR", tmp.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("does not exist") && err.contains("examples/archive/projects"), "{err}");
}

#[test]
fn real_corpus_checks_without_errors() {
    let out = cctree().args(["check", "--json"]).arg(corpus().join("real_projects")).output().unwrap();
    // Findings are expected in real data; an error (2) is not.
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["findings"].as_array().unwrap().iter().all(|f| f["file"].is_string() && f["line"].is_u64()));
}

/// The `WARN` lines of a run's stderr, and the count its summary line gives.
fn warnings_of(stderr: &str) -> (Vec<String>, usize) {
    let lines: Vec<String> =
        stderr.lines().filter_map(|l| l.trim_start().strip_prefix("WARN ")).map(str::to_string).collect();
    let summary = stderr.lines().find(|l| l.starts_with("rendered ")).unwrap_or_else(|| panic!("no summary: {stderr}"));
    let n = summary.split(" warnings in ").next().and_then(|head| head.rsplit(' ').next()).and_then(|n| n.parse().ok());
    (lines, n.unwrap_or_else(|| panic!("no warning count in {summary:?}")))
}

#[test]
fn render_prints_every_warning_it_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let render = || {
        let out = cctree().arg("render").arg(odd_archive()).arg("-o").arg(&site).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        warnings_of(&String::from_utf8_lossy(&out.stderr))
    };
    let file = odd_archive().join("-home-alice-odd/0dd00000-0000-4000-8000-0000000000d1.jsonl");
    let page = site.join("-home-alice-odd/c/0dd00000-0000-4000-8000-000000000001/index.html");
    let expected = [
        format!("{}:3: unknown entry type \"future-thing\" (1 entry, kept and shown as it is)", file.display()),
        format!("{}:4: malformed JSON, line skipped: EOF while parsing a string at line 1 column 108", file.display()),
        format!("{}: image not written: image data is not valid base64", page.display()),
    ];
    // A fresh render, then one that re-uses everything: the same warnings,
    // each printed, and the summary counts exactly those.
    for run in ["fresh", "unchanged"] {
        let (lines, n) = render();
        assert_eq!(lines, expected, "{run}");
        assert_eq!(n, expected.len(), "{run}");
    }
    // The empty image is odd but not a warning: a placeholder on the page.
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("image not shown: empty image"), "no placeholder for the empty image");
    // Problems met walking the directories (a symbolic link loop) are found
    // afresh each run: printed and counted each time, also when nothing changed.
    #[cfg(unix)]
    {
        let input = tmp.path().join("odd");
        let project = input.join("-home-alice-odd");
        std::fs::create_dir_all(project.join("sub")).unwrap();
        for f in std::fs::read_dir(odd_archive().join("-home-alice-odd")).unwrap() {
            let f = f.unwrap();
            std::fs::copy(f.path(), project.join(f.file_name())).unwrap();
        }
        std::os::unix::fs::symlink(&project, project.join("sub/loop")).unwrap();
        let site = tmp.path().join("looped");
        for run in ["fresh", "unchanged"] {
            let out = cctree().arg("render").arg(&input).arg("-o").arg(&site).output().unwrap();
            let (lines, n) = warnings_of(&String::from_utf8_lossy(&out.stderr));
            assert_eq!((lines.len(), n), (expected.len() + 1, expected.len() + 1), "{run}: {lines:#?}");
            assert!(lines.iter().any(|l| l.contains("loop")), "{run}: {lines:#?}");
        }
    }
    // A clean archive: no warning printed, "0 warnings".
    let out = cctree().arg("render").arg(example_archive()).arg("-o").arg(tmp.path().join("ex")).output().unwrap();
    let (lines, n) = warnings_of(&String::from_utf8_lossy(&out.stderr));
    assert_eq!((lines, n), (Vec::<String>::new(), 0));
}

#[test]
fn readme_usage_is_the_programs() {
    let help = |cmd: &[&str]| {
        let out = cctree().args(cmd).arg("--help").output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let usage = |h: &str| h.lines().find_map(|l| l.strip_prefix("Usage: ")).map(str::to_string).expect("a usage line");
    let top = help(&[]);
    let commands: Vec<&str> = top
        .split("Commands:\n")
        .nth(1)
        .expect("a command list")
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 4, "{commands:?}");
    let mut want = vec![usage(&top)];
    want.extend(commands.iter().map(|c| usage(&help(&[c]))));
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let section = readme.split("\n## Usage\n").nth(1).and_then(|s| s.split("\n## ").next()).expect("## Usage");
    let listed: Vec<&str> = section.lines().filter(|l| l.starts_with("cctree ")).collect();
    assert_eq!(listed, want, "the README's usage lines are not the program's");
    // Each command's heading is its usage line.
    for l in readme.lines().filter(|l| l.starts_with('#') && l.contains("`cctree ")) {
        let inner = l.split('`').nth(1).unwrap();
        assert!(want.iter().any(|w| w == inner), "README heading {l:?} is no usage line of the program");
    }
}

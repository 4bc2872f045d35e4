//! The command line: output shapes and exit codes.

use crate::support::{cctree, corpus, example_archive};

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
    // The bundled example is clean but for one entry of a type from the future.
    let out = cctree().args(["check", "--json"]).arg(example_archive()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["counts"], serde_json::json!({"unknown-type": 1}));
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

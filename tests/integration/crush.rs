//! Crush: the hand-made database of `tests/fixtures/crush-sqlite/`
//! (written from Crush's source: the client cannot be installed here,
//! tests/README.md), found from the projects list as the client keeps it,
//! rendered, searched, checked, synced; `cctree fork` says what Crush
//! offers instead of a fork.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::common::site_text;
use crate::opencode::{fixture, listing};
use crate::support::cctree;

/// A home with Crush's data folder whose projects list names the fixture's
/// project, copied beside it: (the temporary folder, the data folder, the
/// project).
fn home() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("src/demo");
    let db = project.join(".crush/crush.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    std::fs::copy(fixture("crush-sqlite/project/.crush/crush.db"), &db).unwrap();
    let data = tmp.path().join("home/.local/share/crush");
    std::fs::create_dir_all(&data).unwrap();
    let list: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture("crush-sqlite/home/.local/share/crush/projects.json")).unwrap())
            .unwrap();
    assert_eq!(list["projects"][0]["path"], "/home/user/src/demo", "the fixture's list");
    let list = serde_json::json!({"projects": [{
        "path": project.display().to_string(),
        "data_dir": project.join(".crush").display().to_string(),
        "last_accessed": list["projects"][0]["last_accessed"],
    }]});
    std::fs::write(data.join("projects.json"), list.to_string()).unwrap();
    (tmp, data, project)
}

fn render(input: &Path, site: &Path) -> std::process::Output {
    cctree().args(["-q", "render"]).arg(input).arg("-o").arg(site).output().unwrap()
}

#[test]
fn the_projects_list_finds_each_database_and_every_message_is_on_a_page() {
    let (tmp, data, project) = home();
    let before = (listing(&data), listing(&project));
    let site = tmp.path().join("site");
    let o = render(&data, &site);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!((listing(&data), listing(&project)), before, "nothing made or changed beside the database");
    let text = site_text(&site);
    for said in [
        "List the files",
        "There are two entries: README.md and src.",
        "A sub-agent can do it.",
        "Count the lines of README.md",
        "README.md has 12 lines.",
        "wc -l README.md",
        "Summary: the user listed the files",
        "You are welcome.",
        "What does src hold?",
    ] {
        assert!(text.contains(said), "{said:?} on a page");
    }
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.contains("Crush"), "Crush on the archive index");
    let shards: String = walkdir::WalkDir::new(site.join("search/t"))
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(shards.contains("\"welcome\""), "a word of the first session in the search index");
    // The default folder: $XDG_DATA_HOME/crush.
    let o = cctree()
        .args(["-q", "render", "--agent", "crush", "-o"])
        .arg(tmp.path().join("site2"))
        .env("XDG_DATA_HOME", tmp.path().join("home/.local/share"))
        .env("HOME", tmp.path().join("home"))
        .env_remove("CRUSH_GLOBAL_DATA")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(site_text(&tmp.path().join("site2")).contains("What does src hold?"), "read by default");
}

#[test]
fn a_session_is_one_line_its_summary_a_compaction_and_its_sub_agent_linked_to_the_call() {
    let (_tmp, data, _) = home();
    let mut r = crate::support::report(&[data]);
    let d = r.projects_detail.take().unwrap();
    assert_eq!(d.len(), 1, "one project");
    let convs = &d[0].conversations;
    assert_eq!(convs.len(), 2, "two conversations (the sub-agent's session is the first one's): {convs:#?}");
    let stats = serde_json::to_value(&d[0]).unwrap();
    assert_eq!(stats["fork_points"], 0, "Crush never forks");
    assert_eq!(stats["compactions"], 1, "the summary's compaction");
    let agents = stats["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 1, "{stats:#}");
    assert_eq!(agents[0]["id"], "3f2a9c1e-7b4d-4e21-8a6f-00000000006a$$call_2");
    assert_eq!(agents[0]["spawn_tool_use"], "call_2", "linked to the agent call its id names");
    assert_eq!(
        agents[0]["spawn_result"], "3f2a9c1e-7b4d-4e21-8a6f-00000000006b",
        "and to the tool message answering it"
    );
    assert_eq!(stats["sidechain_nodes"], 4, "the sub-agent's four messages");
    for c in convs {
        assert_eq!(c.branches.len(), 1, "one line");
    }
}

#[test]
fn checks_find_what_crush_session_delete_leaves() {
    let (_tmp, data, project) = home();
    let clean = cctree().arg("check").arg(&data).output().unwrap();
    assert!(clean.status.success(), "{}", String::from_utf8_lossy(&clean.stdout));
    // `crush session delete`: the session and its messages, not its sub-agents'.
    let c = Connection::open(project.join(".crush/crush.db")).unwrap();
    c.pragma_update(None, "foreign_keys", true).unwrap();
    c.execute("DELETE FROM sessions WHERE id = '3f2a9c1e-7b4d-4e21-8a6f-000000000001'", []).unwrap();
    c.execute(
        "UPDATE sessions SET summary_message_id = 'no-such-message' WHERE id = '3f2a9c1e-7b4d-4e21-8a6f-000000000002'",
        [],
    )
    .unwrap();
    drop(c);
    let o = cctree().args(["check", "--json"]).arg(&data).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(!o.status.success(), "{text}");
    for kind in ["crush-agent-without-parent", "crush-summary-unknown"] {
        assert!(text.contains(kind), "{kind}: {text}");
    }
}

#[test]
fn fork_says_what_crush_offers_instead() {
    let (tmp, data, project) = home();
    let before = listing(&project);
    for target in ["3f2a9c1e-7b4d-4e21-8a6f-000000000001", "3f2a9c1e-7b4d-4e21-8a6f-000000000068"] {
        let o = cctree()
            .args(["fork", "--projects"])
            .arg(&data)
            .arg(target)
            .env("CCTREE_ARCHIVE", tmp.path().join("arch/projects"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{err}");
        assert!(err.contains("Crush cannot resume a fork"), "{err}");
        assert!(err.contains("crush run -s 3f2a9c1e-7b4d-4e21-8a6f-000000000001"), "what to run instead: {err}");
    }
    assert_eq!(listing(&project), before, "nothing written");
}

#[test]
fn sync_keeps_each_projects_database_and_what_the_client_deleted() {
    let (tmp, data, project) = home();
    let archive = tmp.path().join("arch/projects");
    let sync = || {
        let o = cctree().arg("sync").arg(&data).arg("--to").arg(&archive).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let first = sync();
    let copy = tmp.path().join("arch/crush").join(project.display().to_string().replace('/', "%2F")).join("crush.db");
    assert!(copy.is_file(), "{first}");
    let c = Connection::open(project.join(".crush/crush.db")).unwrap();
    c.pragma_update(None, "foreign_keys", true).unwrap();
    c.execute("DELETE FROM sessions WHERE id = '3f2a9c1e-7b4d-4e21-8a6f-000000000002'", []).unwrap();
    drop(c);
    let second = sync();
    assert!(!second.contains(" 0 kept that the database no longer has"), "{second}");
    let site = tmp.path().join("site");
    let o = render(&archive, &site);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = site_text(&site);
    assert!(text.contains("What does src hold?"), "the deleted session kept");
    assert!(text.contains("README.md has 12 lines."), "the rest too");
}

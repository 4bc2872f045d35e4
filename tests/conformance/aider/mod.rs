//! Conformance with Aider 0.86.2 (`aider-chat` from PyPI,
//! `tests/conformance/aider/requirements.txt`, installed by
//! `scripts/install-aider.sh`): the real client driven offline against the
//! chat-completions mock ([`crate::chat`]) with `--message` runs in one
//! repository — two fresh runs, then one with `--restore-chat-history` — and
//! a cctree fork restored by the client (`docs/transcript-format.md`,
//! appendix J). Each asserts what cctree makes of the history it wrote.

pub mod client;

use serde_json::Value;

use client::Sandbox;

const HISTORY: &str = ".aider.chat.history.md";

fn conversations(d: &Value) -> Vec<(String, Vec<String>)> {
    let mut v: Vec<(String, Vec<String>)> = d["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let sessions = c["sessions"].as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect();
            (c["title"].as_str().unwrap().to_string(), sessions)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn aider_runs_and_a_restored_run_are_read_as_the_client_wrote_them() {
    let Some(bin) = client::client() else { return };
    let _serial = crate::serial();
    let s = Sandbox::new(&bin, "runs");
    s.message(&[], "First prompt");
    // Runs start at a heading to the second: keep them apart.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    s.message(&[], "Second prompt");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    s.message(&["--restore-chat-history"], "Third prompt");
    let md = std::fs::read_to_string(s.work.join(HISTORY)).expect("the chat history");
    assert_eq!(md.matches("\n# aider chat started at ").count(), 3, "{md}");
    assert!(md.contains("> Restored previous conversation history."), "{md}");
    // The restored run's request held the earlier runs' turns.
    let chats = s.chats();
    let last = chats.last().expect("a request");
    let shown: Vec<String> = last.prompts().iter().map(|p| client::typed(p)).collect();
    assert!(shown.iter().any(|p| p == "First prompt") && shown.iter().any(|p| p == "Second prompt"), "{shown:?}");
    crate::model::assert_check_clean(&s.work);
    let d = crate::model::detail(&s.work);
    let convs = conversations(&d);
    assert_eq!(convs.len(), 2, "{convs:?}");
    assert_eq!(convs[0].0, "First prompt");
    assert_eq!(convs[0].1.len(), 1);
    assert_eq!(convs[1].0, "Second prompt");
    assert_eq!(convs[1].1.len(), 2, "the restored run continues the second: {convs:?}");
    let pages = crate::model::render(&s.work, &s.root.join("site"));
    let texts: Vec<String> =
        ["First prompt", "Reply to: First prompt", "Third prompt", "Reply to: Third prompt"].map(String::from).to_vec();
    crate::model::assert_site(&pages, &texts);
    for e in walkdir::WalkDir::new(&s.work).into_iter().flatten().filter(|e| e.file_type().is_file()) {
        let t = std::fs::read(e.path()).unwrap_or_default();
        assert!(!String::from_utf8_lossy(&t).contains(client::API_KEY), "the key reaches {}", e.path().display());
    }
}

#[test]
fn aider_restores_a_cctree_fork_and_cctree_reads_it_as_a_branch() {
    let Some(bin) = client::client() else { return };
    let _serial = crate::serial();
    let s = Sandbox::new(&bin, "fork");
    s.message(&[], "First prompt");
    s.message(&["--restore-chat-history"], "Second prompt");
    let before = std::fs::read(s.work.join(HISTORY)).expect("history");
    // The reply to the first prompt, by the page's fork command.
    let d = crate::model::detail(&s.work);
    let conv = &d["conversations"][0];
    assert_eq!(conv["sessions"].as_array().unwrap().len(), 2, "{conv:#}");
    let o = crate::model::cctree().arg("render").arg(&s.work).arg("-o").arg(s.root.join("site")).output().unwrap();
    assert!(o.status.success());
    let page = walkdir::WalkDir::new(s.root.join("site"))
        .into_iter()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "html"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .find(|t| t.contains("cctree fork --at="))
        .expect("a page offering a fork");
    let at = page.split("cctree fork --at=").nth(1).unwrap().split_whitespace().next().unwrap().to_string();
    let o = crate::model::cctree()
        .arg("fork")
        .arg(format!("--at={at}"))
        .arg("--projects")
        .arg(&s.work)
        .arg("--")
        .arg(&at)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let name = out.split("--chat-history-file ").nth(1).unwrap().split_whitespace().next().unwrap().to_string();
    assert_eq!(std::fs::read(s.work.join(HISTORY)).unwrap(), before, "the history is untouched");
    let requests = s.chats().len();
    s.message(&["--chat-history-file", &name, "--restore-chat-history"], "After the fork");
    let chats = s.chats();
    assert_eq!(chats.len(), requests + 1);
    let shown: Vec<String> = chats.last().unwrap().prompts().iter().map(|p| client::typed(p)).collect();
    assert!(shown.iter().any(|p| p == "First prompt"), "the fork's prefix restored: {shown:?}");
    assert!(!shown.iter().any(|p| p == "Second prompt"), "what came after the checkpoint is not: {shown:?}");
    assert_eq!(std::fs::read(s.work.join(HISTORY)).unwrap(), before, "the client wrote the fork, not the history");
    crate::model::assert_check_clean(&s.work);
    let d = crate::model::detail(&s.work);
    let convs = d["conversations"].as_array().unwrap();
    assert_eq!(convs.len(), 1, "{d:#}");
    assert_eq!(convs[0]["fork_points"].as_array().unwrap().len(), 1, "{:#}", convs[0]);
    assert_eq!(convs[0]["branches"].as_array().unwrap().len(), 2);
}

//! Conformance with OpenCode 1.18.33 (`opencode-ai`,
//! `tests/conformance/opencode/package-lock.json`, installed by
//! `scripts/install-opencode.sh`): the real client driven offline against the
//! chat-completions mock on loopback ([`crate::chat`], a provider of
//! `@ai-sdk/openai-compatible` in `~/.config/opencode/opencode.json`, the
//! `OPENCODE_DISABLE_*` variables set; transcript-format Appendix F,
//! "Running it offline"). Each scenario asserts what cctree makes of the
//! database the client wrote.

pub mod client;

use client::Sandbox;

#[test]
fn opencode_run_then_run_fork_is_a_fork_found_from_the_copied_prefix() {
    let _g = crate::serial();
    let Some(bin) = client::client() else { return };
    let s = Sandbox::new(&bin, "run-fork");
    s.run(&["run", "First", "prompt"]);
    let sessions = s.sessions();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    let (id, _) = sessions[0].clone();
    s.run(&["run", "--session", &id, "Second", "prompt"]);
    s.run(&["run", "--session", &id, "--fork", "Third", "in", "the", "fork"]);
    s.run(&["run", "--session", &id, "Fourth", "on", "the", "original"]);
    assert!(s.mock.requests().iter().all(|r| r.route().ends_with("/chat/completions")), "only the mock's API asked");
    let sessions = s.sessions();
    assert_eq!(sessions.len(), 2, "run --fork makes a session: {sessions:?}");
    let fork = sessions.iter().find(|(i, _)| *i != id).unwrap();
    assert!(fork.1.ends_with("(fork #1)"), "{fork:?}");
    assert_eq!(s.parent_of(&fork.0), None, "no stored link to the source");
    let d = crate::model::detail(&s.data());
    let convs = d["conversations"].as_array().unwrap();
    assert_eq!(convs.len(), 1, "the fork joins its source: {d:#}");
    let forks = convs[0]["fork_points"].as_array().unwrap();
    assert_eq!(forks.len(), 1, "{:#}", convs[0]);
    assert_eq!(convs[0]["branches"].as_array().unwrap().len(), 2, "{:#}", convs[0]);
    crate::model::assert_check_clean(&s.data());
    let pages = crate::model::render(&s.data(), &s.root.join("site"));
    let texts = ["First prompt", "Second prompt", "Third in the fork", "Fourth on the original"];
    crate::model::assert_site(&pages, &texts.iter().map(|t| t.to_string()).collect::<Vec<_>>());
    assert!(pages.iter().any(|(p, _)| p.to_string_lossy().contains("compare")), "a compare page");
}

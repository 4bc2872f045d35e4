//! Costs in dollars: checked against `tests/fixtures/cost`, whose costs are
//! worked by hand in its README (cache reads, 5-minute and 1-hour cache
//! writes and web searches included; one API message written as two lines;
//! a sub-agent; a model no table prices), with the bundled table and with
//! one given by `--prices`.

use std::path::{Path, PathBuf};

use crate::support::cctree;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cost/projects")
}

const PROJECT: &str = "-home-test-cost";
const CONV: &str = "c/c0570000-0000-4000-8000-000000000010/";
/// The main branch's page, and the forked branch's (the Haiku prompt).
const MAIN: &str = "b/c0570000-0000-4000-8000-000000000010/";
const FORKED: &str = "b/c0570000-0000-4000-8000-000000000030/";
const AGENT: &str = "agents/a0c057000000000a1/";

fn render(out: &Path, extra: &[&str]) {
    let st = cctree().arg("render").arg(fixture()).arg("-o").arg(out).arg("-q").args(extra).status().unwrap();
    assert!(st.success());
}

fn page(site: &Path, rel: &str) -> String {
    std::fs::read_to_string(site.join(PROJECT).join(rel).join("index.html")).unwrap()
}

/// The `model · tokens · cost` lines of the replies on a page.
fn metas(html: &str) -> Vec<&str> {
    html.split("<span class=\"meta\"")
        .skip(1)
        .map(|s| {
            let s = &s[s.find('>').unwrap() + 1..];
            &s[..s.find('<').unwrap()]
        })
        .collect()
}

/// The value of the `cost` fact of a page.
fn cost_fact(html: &str) -> &str {
    let at = html.find("<dt>cost</dt><dd>").expect("a cost fact") + "<dt>cost</dt><dd>".len();
    &html[at..at + html[at..].find("</dd>").unwrap()]
}

#[test]
fn costs_are_the_hand_computed_ones_on_every_page() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    render(&site, &[]);

    // Each reply, once per API message (the streamed line of `msg_cost_A`
    // under-reports its output and is not counted twice).
    let main = page(&site, &format!("{CONV}{MAIN}"));
    let replies = metas(&main);
    assert!(
        replies.contains(&"opus-4-7 · 100.0k in · 40.0k out · 1.0M cache read · 300.0k cache write · $4.28"),
        "{replies:?}"
    );
    assert!(replies.contains(&"opus-4-7 · 2.2k out · $0.054"), "{replies:?}");
    assert!(
        replies.contains(&"mystery-9 · 100.0k in · 10.0k out · price unknown (model not in the price table)"),
        "{replies:?}"
    );
    let forked = page(&site, &format!("{CONV}{FORKED}"));
    assert!(
        metas(&forked)
            .contains(&"haiku-4-5-20251001 · 10.0k in · 2.0k out · 300.0k cache read · 4.0k cache write · $0.055"),
        "{:?}",
        metas(&forked)
    );
    let agent = page(&site, AGENT);
    assert_eq!(metas(&agent), ["haiku-4-5-20251001 · 1.0k in · 1.0k out · $0.0060"]);

    // Branches (the abandoned one too), with the sub-agent spawned on the main one.
    assert_eq!(cost_fact(&main), "$4.34 + 1 reply of unknown price (sub-agents included)");
    // The forked branch spawned none: nothing to include.
    assert_eq!(cost_fact(&forked), "$0.055");
    assert_eq!(cost_fact(&agent), "$0.0060 (this transcript)");
    // The conversation: $4.395, rounded half up.
    let conv = page(&site, CONV);
    assert_eq!(cost_fact(&conv), "$4.40 + 1 reply of unknown price (sub-agents included)");
    // The project (its row of the conversation, its total) and the archive.
    let project = page(&site, "");
    assert!(project.contains(
        "cost: $4.40 + 1 reply of unknown price <span class=\"hint\">(every transcript, sub-agents included)</span>"
    ));
    assert!(project.contains("<span class=\"cost\">cost: $4.40 + 1 reply of unknown price <span class=\"hint\">(sub-agents included)</span></span>"));
    let archive = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(archive.contains(
        "cost: $4.40 + 1 reply of unknown price <span class=\"hint\">(every transcript, sub-agents included)</span>"
    ));
    assert!(archive.contains("<span class=\"cost\">cost: $4.40 + 1 reply of unknown price"));
}

#[test]
fn exports_say_what_the_conversation_cost() {
    let export = |format: &str| {
        let out = cctree()
            .args(["export", "c0570000-0000-4000-8000-000000000010", "-o", "-", "-q", "--format", format, "--projects"])
            .arg(fixture())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let md = export("md");
    assert!(md.contains("- tokens: 211.0k in · 55.2k out · 1.3M cache read · 304.0k cache write; cost: $4.40 + 1 reply of unknown price (sub-agents included)\n"), "{md}");
    let html = export("html");
    assert!(html.contains("tokens: 211.0k in · 55.2k out · 1.3M cache read · 304.0k cache write · cost: $4.40 + 1 reply of unknown price <span class=\"hint\">(every branch, sub-agents included)</span>"), "{html}");
    // Each branch's section says what it cost.
    assert!(html.contains("<dt>cost</dt><dd>$4.34 + 1 reply of unknown price (sub-agents included)</dd>"));
    assert!(html.contains("<dt>cost</dt><dd>$0.055</dd>"), "the forked branch spawned no sub-agent");
    assert!(html.contains("opus-4-7 · 100.0k in · 40.0k out · 1.0M cache read · 300.0k cache write · $4.28<"));
    assert!(html.contains("haiku-4-5-20251001 · 10.0k in · 2.0k out · 300.0k cache read · 4.0k cache write · $0.055<"));
}

#[test]
fn a_price_table_given_with_prices_replaces_the_bundled_one() {
    let tmp = tempfile::tempdir().unwrap();
    let table = tmp.path().join("my-prices.json");
    std::fs::write(
        &table,
        r#"{"models": [{"name": "Mystery 9", "ids": ["claude-mystery-9"], "source": "https://example.com/prices", "prices": [{"input": "1", "output": "2"}]}]}"#,
    )
    .unwrap();
    let site = tmp.path().join("site");
    render(&site, &["--prices", table.to_str().unwrap()]);
    let main = page(&site, &format!("{CONV}{MAIN}"));
    // 100,000 × $1 + 10,000 × $2 per million = $0.12; what the table does not price is unknown.
    assert!(metas(&main).contains(&"mystery-9 · 100.0k in · 10.0k out · $0.12"), "{:?}", metas(&main));
    assert!(
        metas(&main)
            .iter()
            .any(|m| m.starts_with("opus-4-7") && m.ends_with("price unknown (model not in the price table)"))
    );
    assert_eq!(cost_fact(&page(&site, CONV)), "$0.12 + 4 replies of unknown price (sub-agents included)");

    // `cctree prices` prints the table in use.
    let out = cctree().args(["prices", "--prices"]).arg(&table).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Mystery 9\n  ids: claude-mystery-9\n  input $1 · output $2 · cache write 5m unknown"),
        "{text}"
    );
    assert!(text.contains("source: https://example.com/prices") && !text.contains("Opus"), "{text}");
    let json = cctree().args(["prices", "--json", "--prices"]).arg(&table).output().unwrap();
    assert_eq!(json.stdout, std::fs::read(&table).unwrap());

    // A table that cannot be read: an error naming the file, nothing rendered.
    std::fs::write(
        &table,
        r#"{"models": [{"name": "X", "ids": ["x"], "source": "s", "prices": [{"input": "3,75"}]}]}"#,
    )
    .unwrap();
    let bad_site = tmp.path().join("bad");
    for args in
        [&["render"][..], &["serve"], &["export", "c0570000-0000-4000-8000-000000000010", "-o", "-"], &["prices"]]
    {
        let out = cctree()
            .args(args)
            .arg("--prices")
            .arg(&table)
            .args(if ["render", "serve"].contains(&args[0]) {
                vec![fixture(), "-o".into(), bad_site.clone()]
            } else {
                vec![]
            })
            .args(if args[0] == "export" { vec![PathBuf::from("--projects"), fixture()] } else { vec![] })
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&format!("{}: model 1 (\"X\"): `input`: \"3,75\"", table.display())), "{args:?}: {err}");
    }
    assert!(!bad_site.exists());
}

#[test]
fn the_bundled_table_lists_every_model_with_its_date_and_source() {
    let out = cctree().arg("prices").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with(
        "Prices in US dollars per million tokens (web searches: per 1,000), from the bundled price table, checked 20"
    ));
    assert!(text.contains(
        "Claude Opus 5, 4.8, 4.7, 4.6, 4.5\n  ids: claude-opus-5, claude-opus-4-8, claude-opus-4-7, claude-opus-4-6, claude-opus-4-5\n  input $5 · output $25 · cache write 5m $6.25 · cache write 1h $10 · cache read $0.50 · web search (per 1,000) $10\n  source: https://"
    ), "{text}");
    // A price that changed: both, each from its day.
    assert!(text.contains("before 2026-10-07: input $2") && text.contains("from 2026-10-07: input $2"), "{text}");
}

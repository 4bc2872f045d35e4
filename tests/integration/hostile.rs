//! Hostile input, round four (issue 41): each defect found, as an archive of
//! its shape built here for every agent it applies to.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::cctree;

/// A Codex thread id (a UUID, as the file name carries it).
pub const CODEX_ID: &str = "01a21ab7-bd11-74a1-a3fe-d6c193d582cd";

pub fn lines(v: &[Value]) -> String {
    v.iter().map(|l| format!("{l}\n")).collect()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A Claude Code projects folder under `root` with one session of `v`.
pub fn claude(root: &Path, v: &[Value]) -> PathBuf {
    let dir = root.join("claude/projects");
    write(&dir.join("-tmp-x/c1.jsonl"), &lines(v));
    dir
}

/// A Codex sessions tree under `root` with one rollout of `v`.
pub fn codex(root: &Path, v: &[Value]) -> PathBuf {
    let dir = root.join("codex/sessions");
    write(&dir.join(format!("2026/11/27/rollout-2026-11-27T01-56-18-{CODEX_ID}.jsonl")), &lines(v));
    dir
}

/// A Gemini `tmp` folder under `root` with one project (root `/tmp/w`) and
/// one session of `v`.
pub fn gemini(root: &Path, v: &[Value]) -> PathBuf {
    let dir = root.join("gemini/tmp");
    write(&dir.join("work/.project_root"), "/tmp/w");
    write(&dir.join("work/chats/session-2026-11-27T01-56-d530d928.jsonl"), &lines(v));
    dir
}

/// A good Claude project beside the hostile ones: its pages must survive.
fn bystander(root: &Path) -> PathBuf {
    let dir = root.join("good/projects");
    let v = [
        json!({"type":"user","uuid":"g1","parentUuid":null,"sessionId":"g","timestamp":"2026-11-27T01:00:00Z",
            "cwd":"/tmp/good","message":{"role":"user","content":"the bystander's prompt"}}),
        json!({"type":"assistant","uuid":"g2","parentUuid":"g1","sessionId":"g","timestamp":"2026-11-27T01:00:01Z",
            "message":{"id":"m","role":"assistant","model":"claude","content":[{"type":"text","text":"the bystander's reply"}]}}),
    ];
    write(&dir.join("-tmp-good/g.jsonl"), &lines(&v));
    dir
}

fn meta() -> Value {
    json!({"timestamp":"2026-11-27T01:56:18.845Z","type":"session_meta",
        "payload":{"id":CODEX_ID,"cwd":"/tmp/w","timestamp":"2026-11-27T01:56:18.845Z"}})
}

/// Every site text under `dir` (pages, search index), for finding a text.
pub fn all_text(dir: &Path) -> String {
    let mut s = String::new();
    for e in walkdir::WalkDir::new(dir).into_iter().flatten().filter(|e| e.file_type().is_file()) {
        s.push_str(&String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()));
    }
    s
}

/// `render`, `stats` and `check` of `inputs` end without a panic (render and
/// stats succeed), and render keeps the bystander's pages.
fn survives(inputs: &[PathBuf], out: &Path, keep: &[&str]) {
    let r = cctree().arg("render").args(inputs).arg("-o").arg(out).arg("-q").output().unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success() && !err.contains("panicked"), "render: {err}");
    let site = all_text(out);
    for k in keep {
        assert!(site.contains(k), "{k:?} kept in the site");
    }
    let s = cctree().args(["stats", "--json"]).args(inputs).output().unwrap();
    assert!(s.status.success(), "stats: {}", String::from_utf8_lossy(&s.stderr));
    let c = cctree().arg("check").args(inputs).output().unwrap();
    let err = String::from_utf8_lossy(&c.stderr);
    assert!(c.status.code() != Some(101) && !err.contains("panicked"), "check: {err}");
}

/// Point 1: a compaction that starts a session without a usable timestamp
/// (none, a number, garbage), for each agent, beside an unrelated project.
#[test]
fn a_compaction_starting_a_session_without_a_usable_timestamp_panics_nothing() {
    let stamps: [Option<Value>; 3] = [None, Some(json!(12)), Some(json!("garbage"))];
    for (i, stamp) in stamps.iter().enumerate() {
        let root = tempfile::tempdir().unwrap();
        let with = |mut v: Value| {
            if let Some(t) = stamp {
                v["timestamp"] = t.clone();
            }
            v
        };
        let claude = claude(
            root.path(),
            &[
                with(json!({"type":"system","subtype":"compact_boundary","uuid":"b1","parentUuid":null,
                    "logicalParentUuid":"gone","sessionId":"c1","content":"Conversation compacted",
                    "compactMetadata":{"trigger":"manual","preTokens":10}})),
                with(json!({"type":"user","uuid":"s1","parentUuid":"b1","sessionId":"c1","isCompactSummary":true,
                    "message":{"role":"user","content":"the claude summary"}})),
            ],
        );
        let codex =
            codex(root.path(), &[meta(), with(json!({"type":"compacted","payload":{"message":"the codex summary"}}))]);
        let gemini = gemini(
            root.path(),
            &[
                with(json!({"id":"m1","type":"user","content":[{"text":"the gemini prompt"}]})),
                json!({"$set":{"messages":[{"id":"m1","type":"user","content":[{"text":"the gemini prompt"}]},
                    {"id":"m2","type":"gemini","content":"the gemini addition"}]}}),
            ],
        );
        let good = bystander(root.path());
        let out = root.path().join(format!("site{i}"));
        survives(
            &[claude, codex, gemini, good],
            &out,
            &["the bystander", "the claude summary", "the codex summary", "the gemini prompt"],
        );
    }
}

/// Loads, links, counts, checks and renders a generated archive of every
/// agent in-process, as the fuzz target `agent_archive` does.
fn whole_pipeline(data: &[u8]) {
    let archive = crate::agent_lines::archive(data);
    let root = tempfile::tempdir().unwrap();
    crate::agent_lines::write(root.path(), &archive);
    let inputs: Vec<PathBuf> = crate::agent_lines::INPUTS.iter().map(|i| root.path().join(i)).collect();
    let mut report =
        cctree::stats::ReportBuilder::new(cctree::stats::StatsOptions { detail: true, exclude_own_forks: false });
    for p in crate::support::load(&inputs) {
        report.add(&p);
        let _ = cctree::check::check_project(&p);
    }
    let _ = report.finish();
    let out = root.path().join("site");
    let mut args: Vec<std::ffi::OsString> = vec!["cctree".into(), "-q".into(), "render".into()];
    args.extend(inputs.iter().map(|p| p.as_os_str().to_owned()));
    args.extend(["-o".into(), out.into_os_string()]);
    let cli = <cctree::cli::Cli as clap::Parser>::parse_from(args);
    cctree::run::run(cli).expect("render");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, ..Default::default() })]

    /// Point 1's fuzzing, in the suite: archives of every agent generated
    /// from bytes (`tests/common/agent_lines.rs`) never panic any stage.
    #[test]
    fn generated_archives_of_every_agent_never_panic(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..1500)) {
        whole_pipeline(&data);
    }
}

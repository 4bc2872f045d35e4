//! `cctree render --redact`: fake secrets placed in every field that reaches a
//! page (prompt, reply, thinking, Bash command and output, Edit strings, file
//! path, summary, custom title, cwd, agent description, persisted-output side
//! file) never reach any output file with `--redact`, and do without it.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::cctree;

/// Each fake secret and the part of it that must not survive redaction (the
/// name of a `.env` variable or header stays, its value goes).
const SECRETS: &[(&str, &str)] = &[
    ("sk-ant-api03-FAKEfakeFAKEfake0123456789abcdefXYZ", "FAKEfakeFAKEfake0123456789abcdefXYZ"),
    ("sk-proj-FAKEopenaiFAKE0123456789abcdefghijKLMN", "FAKEopenaiFAKE0123456789abcdefghijKLMN"),
    ("AKIAFAKE0123456789AB", "AKIAFAKE0123456789AB"),
    ("ghp_FAKEfakeFAKEfake0123456789abcdefghij", "FAKEfakeFAKEfake0123456789abcdefghij"),
    ("xoxb-123456789012-FAKEslackFAKEtoken", "123456789012-FAKEslackFAKEtoken"),
    ("AIzaSyFAKEfake0123456789abcdefghijklmno", "SyFAKEfake0123456789abcdefghijklmno"),
    ("Authorization: Bearer FAKEbearerTOKEN0123456789", "FAKEbearerTOKEN0123456789"),
    ("DB_PASSWORD=hunter2FAKEdbpass", "hunter2FAKEdbpass"),
    ("API_TOKEN=tokFAKEenv0123456789", "tokFAKEenv0123456789"),
];

const KEY_BODY: &str = "MIIEpAIBAAKCAQEAfakePrivateKeyBody0123456789";

/// The fake secrets on one line (for titles, paths, cwd).
fn line() -> String {
    SECRETS.iter().map(|(s, _)| *s).collect::<Vec<_>>().join(" ")
}

/// The fake secrets on lines of their own, plus a private key block.
fn block() -> String {
    let mut s: Vec<String> = SECRETS.iter().map(|(s, _)| s.to_string()).collect();
    s.push(format!("-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}\n-----END RSA PRIVATE KEY-----"));
    s.join("\n")
}

/// What must not appear in a redacted site.
pub fn needles() -> Vec<&'static str> {
    SECRETS.iter().map(|(_, n)| *n).chain([KEY_BODY]).collect()
}

pub const SESSION: &str = "5ec0e700-0000-4000-8000-000000000001";
const AGENT: &str = "a5ec0e7000000000f";

fn uuid(n: u32) -> String {
    format!("5ec0e700-0000-4000-8000-{n:012}")
}

/// Writes one project whose every page-reaching field holds the secrets.
pub fn write_fixture(root: &Path) -> PathBuf {
    let cwd = "/home/u/app-AKIAFAKE0123456789AB";
    // Claude Code's folder name for the cwd: every non-alphanumeric → `-`.
    let folder: String = cwd.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let dir = root.join("projects").join(&folder);
    let session_dir = dir.join(SESSION);
    std::fs::create_dir_all(session_dir.join("subagents")).unwrap();
    std::fs::create_dir_all(session_dir.join("tool-results")).unwrap();
    let secret_path = format!("/home/u/app/{}/.env", SECRETS[3].0);
    let persisted = format!(
        "<persisted-output>\nOutput too large (40KB). Full output saved to: {}/{SESSION}/tool-results/toolu_big.txt\n\nPreview (first 2KB):\nnothing secret here\n</persisted-output>",
        dir.display()
    );
    let base = |n: u32, parent: Option<u32>, ty: &str, t: u32| {
        json!({
            "parentUuid": parent.map(uuid),
            "isSidechain": false,
            "userType": "external",
            "cwd": cwd,
            "sessionId": SESSION,
            "version": "2.1.14",
            "type": ty,
            "uuid": uuid(n),
            "timestamp": format!("2026-03-02T09:{t:02}:00.000Z"),
        })
    };
    let with = |mut v: Value, extra: Value| {
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    };
    let assistant = |n: u32, parent: u32, t: u32, id: &str, content: Value| {
        with(
            base(n, Some(parent), "assistant", t),
            json!({"message": {"model": "claude-sonnet-4-5", "id": id, "type": "message", "role": "assistant",
                "content": content, "usage": {"input_tokens": 3, "output_tokens": 9}}}),
        )
    };
    let result = |n: u32, parent: u32, t: u32, tool: &str, text: &str, tur: Value| {
        with(
            base(n, Some(parent), "user", t),
            json!({"message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool, "content": text}]},
                "toolUseResult": tur}),
        )
    };
    let lines = vec![
        with(
            base(1, None, "user", 1),
            json!({"message": {"role": "user", "content": format!("Please look.\n\n{}", block())}}),
        ),
        assistant(
            2,
            1,
            2,
            "msg_1",
            json!([{"type": "thinking", "thinking": format!("Thinking about {}", block()), "signature": "x"}]),
        ),
        assistant(3, 2, 2, "msg_1", json!([{"type": "text", "text": format!("Here you go:\n\n{}", block())}])),
        assistant(
            4,
            3,
            3,
            "msg_2",
            json!([{"type": "tool_use", "id": "toolu_bash", "name": "Bash",
            "input": {"command": format!("curl -H '{}' https://x.test && echo {}", SECRETS[6].0, line()), "description": "fetch"}}]),
        ),
        result(5, 4, 3, "toolu_bash", &block(), json!({"stdout": block(), "stderr": "", "interrupted": false})),
        assistant(
            6,
            5,
            4,
            "msg_3",
            json!([{"type": "tool_use", "id": "toolu_edit", "name": "Edit",
            "input": {"file_path": secret_path, "old_string": block(), "new_string": format!("new {}", block())}}]),
        ),
        result(7, 6, 4, "toolu_edit", "The file has been updated.", json!({"filePath": secret_path})),
        assistant(
            8,
            7,
            5,
            "msg_4",
            json!([{"type": "tool_use", "id": "toolu_task", "name": "Task",
            "input": {"description": "look around", "subagent_type": "Explore", "prompt": "Look around."}}]),
        ),
        result(
            9,
            8,
            6,
            "toolu_task",
            "Done.",
            json!({"status": "completed", "agentId": AGENT, "content": [{"type": "text", "text": "Done."}]}),
        ),
        assistant(
            10,
            9,
            7,
            "msg_5",
            json!([{"type": "tool_use", "id": "toolu_big", "name": "Bash",
            "input": {"command": "cat big.log", "description": "show the log"}}]),
        ),
        result(11, 10, 7, "toolu_big", &persisted, json!({"stdout": persisted, "stderr": "", "interrupted": false})),
        assistant(12, 11, 8, "msg_6", json!([{"type": "text", "text": "All done."}])),
        json!({"type": "summary", "summary": format!("Summary {}", line()), "leafUuid": uuid(12)}),
        json!({"type": "custom-title", "customTitle": format!("Title {}", line()), "sessionId": SESSION}),
    ];
    write_jsonl(&dir.join(format!("{SESSION}.jsonl")), &lines);
    let agent = |n: u32, parent: Option<u32>, ty: &str, extra: Value| {
        let mut v = with(base(n, parent, ty, 5), extra);
        v["isSidechain"] = json!(true);
        v["agentId"] = json!(AGENT);
        v["uuid"] = json!(format!("5ec0e7a0-0000-4000-8000-{n:012}"));
        v["parentUuid"] = json!(parent.map(|p| format!("5ec0e7a0-0000-4000-8000-{p:012}")));
        v
    };
    write_jsonl(
        &session_dir.join(format!("subagents/agent-{AGENT}.jsonl")),
        &[
            agent(1, None, "user", json!({"message": {"role": "user", "content": "Look around."}})),
            agent(
                2,
                Some(1),
                "assistant",
                json!({"message": {"model": "claude-haiku-4-5", "id": "msg_a1", "type": "message", "role": "assistant",
                    "content": [{"type": "text", "text": "Done."}]}}),
            ),
        ],
    );
    std::fs::write(
        session_dir.join(format!("subagents/agent-{AGENT}.meta.json")),
        json!({"agentType": "Explore", "description": format!("Agent {}", line())}).to_string(),
    )
    .unwrap();
    std::fs::write(session_dir.join("tool-results/toolu_big.txt"), format!("log start\n{}\nlog end\n", block()))
        .unwrap();
    root.join("projects")
}

fn write_jsonl(path: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).unwrap();
}

/// Every file under `dir` (path relative to it) with its text.
fn site_files(dir: &Path) -> Vec<(String, String)> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
            (rel, String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned())
        })
        .collect()
}

fn render(input: &Path, out: &Path, redact: bool) -> std::process::Output {
    let mut cmd = cctree();
    cmd.arg("render").arg(input).arg("-o").arg(out);
    if redact {
        cmd.arg("--redact");
    }
    let o = cmd.output().expect("run cctree");
    assert!(o.status.success(), "render failed: {}", String::from_utf8_lossy(&o.stderr));
    o
}

/// Where (file and field) a needle shows up, for failure messages.
fn found(files: &[(String, String)], needle: &str) -> Vec<String> {
    files
        .iter()
        .filter_map(|(rel, text)| {
            let i = text.find(needle)?;
            let lo = text[..i].char_indices().rev().nth(80).map_or(0, |(j, _)| j);
            let hi = text[i..].char_indices().nth(needle.len() + 40).map_or(text.len(), |(j, _)| i + j);
            Some(format!("{rel}: …{}…", &text[lo..hi]))
        })
        .collect()
}

#[test]
fn redact_removes_every_secret_from_every_output_file() {
    let tmp = tempfile::tempdir().unwrap();
    let input = write_fixture(tmp.path());

    // Without --redact the secrets are on the pages (the fixture reaches them)…
    let plain_out = tmp.path().join("plain");
    let o = render(&input, &plain_out, false);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("--redact"), "no hint to use --redact: {stderr}");
    assert!(!stderr.contains("redacted:"), "{stderr}");
    let plain = site_files(&plain_out);
    for n in needles() {
        assert!(!found(&plain, n).is_empty(), "the fixture does not put {n:?} on any page");
    }
    // …in each field: these pages only show them through the field named.
    let page = |files: &[(String, String)], part: &str| -> String {
        files.iter().filter(|(r, _)| r.contains(part)).map(|(_, t)| t.as_str()).collect()
    };
    let agent_page = page(&plain, &format!("agents/{AGENT}/"));
    assert!(agent_page.contains(SECRETS[0].1), "agent description (.meta.json) not shown");
    // The search index: its unit tables and manifest (titles, project
    // names) and the docs beside each page (excerpts of every message).
    let search = page(&plain, "search/");
    for (what, n) in [("cwd", "AKIAFAKE0123456789AB"), ("custom title", SECRETS[3].1)] {
        assert!(search.contains(n), "{what} not in the search index");
    }
    let docs: String = plain.iter().filter(|(r, _)| r.contains("/search-")).map(|(_, t)| t.as_str()).collect();
    assert!(SECRETS.iter().any(|(_, n)| docs.contains(n)), "no secret in the search index's excerpts");
    let all_plain: String = plain.iter().map(|(_, t)| t.as_str()).collect();
    assert!(all_plain.contains("log start"), "the persisted-output side file is not shown");

    // With --redact none of them is anywhere, and markers are.
    let red_out = tmp.path().join("redacted");
    let o = render(&input, &red_out, true);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let red = site_files(&red_out);
    assert!(red.iter().any(|(r, _)| r == "search/index.js"));
    for n in needles() {
        let hits = found(&red, n);
        assert!(hits.is_empty(), "{n:?} survived --redact in:\n{}", hits.join("\n"));
    }
    for kind in [
        "anthropic-key",
        "openai-key",
        "aws-access-key",
        "github-token",
        "slack-token",
        "google-api-key",
        "authorization-header",
        "env-secret",
        "private-key",
    ] {
        let marker = format!("[REDACTED:{kind}]");
        assert!(red.iter().any(|(_, t)| t.contains(&marker)), "no {marker} in the site");
    }
    let all: String = red.iter().map(|(_, t)| t.as_str()).collect();
    assert!(all.contains("log start"), "the side file is still shown, redacted");
    assert!(page(&red, &format!("agents/{AGENT}/")).contains("[REDACTED:anthropic-key]"));
    assert!(page(&red, "search/").contains("[REDACTED:"), "search index not redacted");
    assert!(page(&red, "/search-").contains("[REDACTED:"), "search index's excerpts not redacted");

    // Rendering with --redact over a site rendered without it leaves nothing
    // of the old one behind (pages, search index, cache).
    render(&input, &plain_out, true);
    let over = site_files(&plain_out);
    for n in needles() {
        let hits = found(&over, n);
        assert!(hits.is_empty(), "{n:?} survived a --redact render over a plain one in:\n{}", hits.join("\n"));
    }

    // stderr lists where (file:line, side file, sidecar) and the summary counts.
    assert!(!stderr.contains("hint:"), "{stderr}");
    assert!(stderr.contains(&format!("{SESSION}.jsonl:1: ")), "{stderr}");
    assert!(stderr.contains("1 × private-key"), "{stderr}");
    assert!(stderr.contains("toolu_big.txt: "), "{stderr}");
    assert!(stderr.contains(".meta.json: "), "{stderr}");
    assert!(stderr.contains("secrets redacted"), "{stderr}");
    for n in needles() {
        assert!(!stderr.contains(n), "stderr shows {n:?}: {stderr}");
    }
}

#[test]
fn redact_report_is_capped() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("projects/-home-u-many");
    std::fs::create_dir_all(&dir).unwrap();
    let mut lines = Vec::new();
    for n in 1..=50u32 {
        lines.push(json!({
            "parentUuid": (n > 1).then(|| uuid(n - 1)),
            "isSidechain": false, "type": if n % 2 == 1 { "user" } else { "assistant" },
            "sessionId": SESSION, "cwd": "/home/u/many", "uuid": uuid(n),
            "timestamp": format!("2026-03-02T10:{n:02}:00.000Z"),
            "message": if n % 2 == 1 {
                json!({"role": "user", "content": format!("token {}", SECRETS[3].0)})
            } else {
                json!({"role": "assistant", "id": format!("msg_{n}"), "model": "claude-sonnet-4-5", "type": "message",
                    "content": [{"type": "text", "text": "ok"}]})
            },
        }));
    }
    write_jsonl(&dir.join(format!("{SESSION}.jsonl")), &lines);
    let o = render(&tmp.path().join("projects"), &tmp.path().join("out"), true);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let listed = stderr.lines().filter(|l| l.starts_with("redacted: ") && l.contains(".jsonl:")).count();
    assert_eq!(listed, 20, "{stderr}");
    assert!(stderr.contains("redacted: … and 5 more in 5 more places"), "{stderr}");
    assert!(stderr.contains("25 secrets redacted"), "{stderr}");
}

/// The holes of issue 15, each as it reaches a transcript: a private key
/// whose END line was cut off (a truncated `cat`), an AWS key and a URL
/// written with JSON escapes (`\u0041KIA…`, `https:\/\/…`: shown decoded on
/// the page), one escaped twice (a JSON file Claude wrote), a JWT, Stripe
/// live/restricted/test keys and `user:password@` in URLs. Without
/// `--redact` each reaches a page; with it none is in any output file, in
/// its decoded or its escaped form.
#[test]
fn redact_covers_cut_keys_escaped_secrets_jwts_stripe_keys_and_url_credentials() {
    const CUT_KEY_BODY: &str = "b3BlbnNzaC1rZXktdjEAAAAAFAKEcutKEYbody";
    const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJmYWtlLXVzZXIifQ.FAKEsigFAKEsig0123456789abcdef";
    // (raw JSON text of a string, what must not survive in decoded form, in raw form)
    let holes: &[(&str, &str, &str)] = &[
        (r"\u0041KIAFAKE987654321012", "AKIAFAKE987654321012", "KIAFAKE987654321012"),
        (r"\\u0041KIAFAKE5555555555XY", "KIAFAKE5555555555XY", "KIAFAKE5555555555XY"),
        (r"https:\/\/deploy:pw4FAKEdeploy@git.test\/r.git", "pw4FAKEdeploy", "pw4FAKEdeploy"),
        ("postgres://app:s3cretFAKEpg@db.internal:5432/app", "s3cretFAKEpg", "s3cretFAKEpg"),
        (JWT, "FAKEsigFAKEsig0123456789abcdef", "FAKEsigFAKEsig0123456789abcdef"),
        ("sk_live_51HFAKEstripeLIVE0123456789", "51HFAKEstripeLIVE0123456789", "51HFAKEstripeLIVE0123456789"),
        ("rk_live_51HFAKEstripeRESTR0123456789", "51HFAKEstripeRESTR0123456789", "51HFAKEstripeRESTR0123456789"),
        ("sk_test_51HFAKEstripeTEST0123456789", "51HFAKEstripeTEST0123456789", "51HFAKEstripeTEST0123456789"),
    ];
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("projects/-home-u-holes");
    std::fs::create_dir_all(&dir).unwrap();
    let prompt: String = holes.iter().map(|(raw, _, _)| format!("{raw}\\n")).collect();
    let cut_key = format!(r"-----BEGIN OPENSSH PRIVATE KEY-----\n{CUT_KEY_BODY}\nQyNTUxOQAAACDcut");
    let lines = [
        format!(
            r#"{{"parentUuid":null,"isSidechain":false,"type":"user","sessionId":"{SESSION}","cwd":"/home/u/holes","uuid":"{}","timestamp":"2026-03-02T10:00:00.000Z","message":{{"role":"user","content":"Here:\n{prompt}"}}}}"#,
            uuid(1)
        ),
        format!(
            r#"{{"parentUuid":"{}","isSidechain":false,"type":"assistant","sessionId":"{SESSION}","cwd":"/home/u/holes","uuid":"{}","timestamp":"2026-03-02T10:00:01.000Z","message":{{"role":"assistant","id":"msg_1","model":"claude-sonnet-4-5","type":"message","content":[{{"type":"tool_use","id":"toolu_1","name":"Bash","input":{{"command":"head -c 120 ~/.ssh/id_ed25519","description":"show"}}}}]}}}}"#,
            uuid(1),
            uuid(2)
        ),
        format!(
            r#"{{"parentUuid":"{}","isSidechain":false,"type":"user","sessionId":"{SESSION}","cwd":"/home/u/holes","uuid":"{}","timestamp":"2026-03-02T10:00:02.000Z","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_1","content":"{cut_key}"}}]}},"toolUseResult":{{"stdout":"{cut_key}","stderr":"","interrupted":false}}}}"#,
            uuid(2),
            uuid(3)
        ),
    ];
    std::fs::write(dir.join(format!("{SESSION}.jsonl")), lines.join("\n") + "\n").unwrap();
    let input = tmp.path().join("projects");

    let plain_out = tmp.path().join("plain");
    render(&input, &plain_out, false);
    let plain = site_files(&plain_out);
    for (raw, decoded, _) in holes.iter().chain(&[("cut key", CUT_KEY_BODY, CUT_KEY_BODY)]) {
        assert!(!found(&plain, decoded).is_empty(), "the fixture does not put {raw:?} on any page");
    }

    let red_out = tmp.path().join("redacted");
    let o = render(&input, &red_out, true);
    let red = site_files(&red_out);
    for (raw, decoded, escaped) in holes.iter().chain(&[("cut key", CUT_KEY_BODY, CUT_KEY_BODY)]) {
        for needle in [decoded, escaped] {
            let hits = found(&red, needle);
            assert!(hits.is_empty(), "{raw:?} survived --redact in:\n{}", hits.join("\n"));
        }
    }
    for kind in ["private-key", "aws-access-key", "url-credentials", "jwt", "stripe-key"] {
        let marker = format!("[REDACTED:{kind}]");
        assert!(red.iter().any(|(_, t)| t.contains(&marker)), "no {marker} in the site");
    }
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("3 × stripe-key") && stderr.contains("2 × private-key"), "{stderr}");
}

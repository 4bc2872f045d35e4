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
            let mut text = String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned();
            // A page's search docs keep whole texts deflated: read them too.
            if rel.contains("/search-") && rel.ends_with(".js") {
                text.extend(crate::support::doc_file_wholes(&text).into_iter().map(|w| format!("\n{w}")));
            }
            (rel, text)
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

/// The guide's table of what `--redact` replaces (docs/guide/publishing.md)
/// names every kind the redactor has.
#[test]
fn the_guides_table_lists_every_kind() {
    let page = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide/publishing.md")).unwrap();
    for kind in cctree::redact::kinds() {
        assert!(page.contains(&format!("| `{kind}`")) || page.contains(&format!(", `{kind}`")), "{kind}");
    }
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
    let dir = tmp.path().join("projects/-srv-many");
    std::fs::create_dir_all(&dir).unwrap();
    let mut lines = Vec::new();
    for n in 1..=50u32 {
        lines.push(json!({
            "parentUuid": (n > 1).then(|| uuid(n - 1)),
            "isSidechain": false, "type": if n % 2 == 1 { "user" } else { "assistant" },
            "sessionId": SESSION, "cwd": "/srv/many", "uuid": uuid(n),
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

/// Secrets that slipped through, each as it reaches a transcript: a private key
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

/// Secrets after an escape, half-redacted env values and kinds met unredacted, each as the raw JSON text of
/// a string where a transcript holds it, and the part that must not survive.
const ROUND_THREE: &[(&str, &str)] = &[
    // 1. After a terminal colour code, a JSON form feed or backspace.
    (r"\u001b[32mghp_FAKEansiFAKEansi0123456789abcdefghij\u001b[0m", "FAKEansiFAKEansi0123456789abcdefghij"),
    (r"\fAKIAFAKEFORMFEED0123", "AKIAFAKEFORMFEED0123"),
    (r"\bsk-ant-api03-FAKEbackspaceFAKE0123456789", "FAKEbackspaceFAKE0123456789"),
    (r"\u001b[1;31mAIzaSyFAKEcolourFAKE0123456789abcdefghi", "SyFAKEcolourFAKE0123456789abcdefghi"),
    // 2. Env values with spaces, quotes and backslashes.
    (r#"DB_PASSWORD=\"correct horseFAKE battery staple\""#, "horseFAKE battery staple"),
    (r"SECRET=ab\\cd7Xq9Lm2ZtFAKE", "cd7Xq9Lm2ZtFAKE"),
    (r#"PASSWORD=x\"yFAKEafterquote\""#, "FAKEafterquote"),
    // 9. What users reported.
    (
        r#"{\"Credentials\": {\"AccessKeyId\": \"ASIAFAKESTS012345678\", \"SecretAccessKey\": \"wJalrXUtnFEMIK7MDENGbPxRfiCYFAKESTS\", \"SessionToken\": \"FwoGZXIvYXdzEFAKEsessionTOKEN\"}}"#,
        "FAKEsessionTOKEN",
    ),
    (r#"{\"db\": {\"password\": \"FAKEjsonPassword1\"}}"#, "FAKEjsonPassword1"),
    (r"db:\n  password: FAKEyamlPassword2\n  port: 5432", "FAKEyamlPassword2"),
    (r"curl -H 'x-api-key: FAKEheaderKey0123456' https://api.test", "FAKEheaderKey0123456"),
    ("glpat-FAKEgitlabFAKE012345678", "FAKEgitlabFAKE012345678"),
    ("npm_FAKEnpmFAKEnpm0123456789abcdefghijkl", "FAKEnpmFAKEnpm0123456789abcdefghijkl"),
    ("hf_FAKEhuggingFAKEhugging0123456789", "FAKEhuggingFAKEhugging0123456789"),
    ("xapp-1-A0FAKESLACKAPP-123456-abcdefFAKE", "A0FAKESLACKAPP-123456-abcdefFAKE"),
    ("sk-or-v1-0123456789abcdef0123456789abcdefFAKEFAKE0123456789abcdef01234567", "FAKEFAKE0123456789abcdef"),
    ("sbp_0123456789abcdef0123456789abcdef0fa4e000", "0123456789abcdef0123456789abcdef0fa4e000"),
    (
        "https://api.telegram.org/bot123456789:AAFAKEtelegramFAKE0123456789abcdefg/getMe",
        "FAKEtelegramFAKE0123456789abcdefg",
    ),
];

/// A Google service-account file, as the JSON text Claude `Write`s.
const SERVICE_ACCOUNT: &str = r#"{\n  \"type\": \"service_account\",\n  \"project_id\": \"demo\",\n  \"private_key_id\": \"FAKEsaKEYid0123456789abcdef0123456789ab\",\n  \"private_key\": \"-----BEGIN PRIVATE KEY-----\\nMIIEvFAKEserviceACCOUNTbody\\n-----END PRIVATE KEY-----\\n\",\n  \"client_email\": \"bot@demo.iam.gserviceaccount.com\"\n}\n"#;
const PATCH_KEY_BODY: &str = "MIIEpQIBAAKCAQEAFAKEpatchKEYbodyLINEone";

/// Writes a project holding every secret of [`ROUND_THREE`] in a Bash
/// output and in a prompt, AWS STS credentials as an MCP tool's input (the
/// line's own JSON), a service-account file written by `Write`, and a private
/// key in a `Write`'s `structuredPatch`, one line per string.
fn write_round_three(root: &Path, cwd: &str) -> PathBuf {
    let folder: String = cwd.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let dir = root.join("projects").join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    let all: String = ROUND_THREE.iter().map(|(raw, _)| format!("{raw}\\n")).collect();
    let head = |n: u32, parent: Option<u32>, ty: &str| {
        let parent = parent.map_or("null".to_string(), |p| format!("\"{}\"", uuid(p)));
        format!(
            r#""parentUuid":{parent},"isSidechain":false,"type":"{ty}","sessionId":"{SESSION}","cwd":"{cwd}","uuid":"{}","timestamp":"2026-03-02T10:00:{n:02}.000Z""#,
            uuid(n)
        )
    };
    let call = |n: u32, id: &str, name: &str, input: &str| {
        format!(
            r#"{{{},"message":{{"role":"assistant","id":"msg_{n}","model":"claude-sonnet-4-5","type":"message","content":[{{"type":"tool_use","id":"{id}","name":"{name}","input":{input}}}]}}}}"#,
            head(n, Some(n - 1), "assistant")
        )
    };
    let result = |n: u32, id: &str, text: &str, tur: &str| {
        format!(
            r#"{{{},"message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":"{text}"}}]}},"toolUseResult":{tur}}}"#,
            head(n, Some(n - 1), "user")
        )
    };
    let patch = format!(
        r#"[{{"oldStart":1,"oldLines":0,"newStart":1,"newLines":4,"lines":["+-----BEGIN RSA PRIVATE KEY-----","+{PATCH_KEY_BODY}","+FAKEpatchLINEtwo0123456789abcdefABCDEF==","+-----END RSA PRIVATE KEY-----"]}}]"#
    );
    let lines = [
        format!(r#"{{{},"message":{{"role":"user","content":"Look at these:\n{all}"}}}}"#, head(1, None, "user")),
        call(2, "toolu_bash", "Bash", r#"{"command":"cat .env; ./deploy.sh","description":"deploy"}"#),
        result(3, "toolu_bash", &all, &format!(r#"{{"stdout":"{all}","stderr":"","interrupted":false}}"#)),
        call(
            4,
            "toolu_sts",
            "mcp__aws__put_credentials",
            r#"{"Credentials":{"AccessKeyId":"ASIAFAKESTS012345678","SecretAccessKey":"wJalrXUtnFEMIK7MDENGbPxRfiCYFAKESTS","SessionToken":"FwoGZXIvYXdzEFAKEsessionTOKEN"}}"#,
        ),
        result(5, "toolu_sts", "stored", r#""stored""#),
        call(6, "toolu_sa", "Write", &format!(r#"{{"file_path":"/srv/app/sa.json","content":"{SERVICE_ACCOUNT}"}}"#)),
        result(
            7,
            "toolu_sa",
            "File created successfully at: /srv/app/sa.json",
            r#"{"type":"create","filePath":"/srv/app/sa.json"}"#,
        ),
        call(
            8,
            "toolu_key",
            "Write",
            r#"{"file_path":"/srv/app/id_rsa","content":"-----BEGIN RSA PRIVATE KEY-----\nredacted by the call's own pattern\n-----END RSA PRIVATE KEY-----\n"}"#,
        ),
        result(
            9,
            "toolu_key",
            "File created successfully at: /srv/app/id_rsa",
            &format!(r#"{{"type":"create","filePath":"/srv/app/id_rsa","structuredPatch":{patch}}}"#),
        ),
        format!(
            r#"{{{},"message":{{"role":"assistant","id":"msg_10","model":"claude-sonnet-4-5","type":"message","content":[{{"type":"text","text":"Done: {all}"}}]}}}}"#,
            head(10, Some(9), "assistant")
        ),
    ];
    std::fs::write(dir.join(format!("{SESSION}.jsonl")), lines.join("\n") + "\n").unwrap();
    root.join("projects")
}

/// Every needle of [`ROUND_THREE`], the service account and the patch.
fn round_three_needles() -> Vec<&'static str> {
    let mut n: Vec<&str> = ROUND_THREE.iter().map(|(_, n)| *n).collect();
    n.extend([
        "wJalrXUtnFEMIK7MDENGbPxRfiCYFAKESTS",
        "FAKEsaKEYid0123456789abcdef0123456789ab",
        "MIIEvFAKEserviceACCOUNTbody",
    ]);
    n.extend([PATCH_KEY_BODY, "FAKEpatchLINEtwo0123456789abcdefABCDEF"]);
    n
}

/// Secrets after an escape, env values half
/// redacted, a private key one line per string kept in the parse cache, and
/// the kinds users reported. Every byte `render --redact` writes (pages,
/// search shards, the parse caches under `.cctree-cache/`) and every byte of
/// `export --redact` (HTML and Markdown) is searched for each.
#[test]
fn redact_holds_in_every_byte_written_for_secrets_after_escapes_env_values_patches_and_reported_kinds() {
    let tmp = tempfile::tempdir().unwrap();
    let input = write_round_three(tmp.path(), "/srv/app");
    let export = |out: &Path, redact: bool| {
        let mut cmd = cctree();
        cmd.args(["export", SESSION, "--projects"]).arg(&input).arg("-o").arg(out);
        if redact {
            cmd.arg("--redact");
        }
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "export: {}", String::from_utf8_lossy(&o.stderr));
        (out.display().to_string(), String::from_utf8_lossy(&std::fs::read(out).unwrap()).into_owned())
    };

    // Without --redact each reaches the output (the patch only the cache, below).
    let plain_out = tmp.path().join("plain");
    render(&input, &plain_out, false);
    let mut plain = site_files(&plain_out);
    plain.push(export(&tmp.path().join("plain.html"), false));
    plain.push(export(&tmp.path().join("plain.md"), false));
    for n in round_three_needles() {
        if n != PATCH_KEY_BODY && !n.starts_with("FAKEpatch") {
            assert!(!found(&plain, n).is_empty(), "the fixture does not put {n:?} in any output");
        }
    }

    let red_out = tmp.path().join("redacted");
    let o = render(&input, &red_out, true);
    let mut red = site_files(&red_out);
    assert!(red.iter().any(|(r, _)| r.starts_with(".cctree-cache/parse/")), "no parse cache written");
    red.push(export(&tmp.path().join("red.html"), true));
    red.push(export(&tmp.path().join("red.md"), true));
    for n in round_three_needles() {
        let hits = found(&red, n);
        assert!(hits.is_empty(), "{n:?} survived --redact in:\n{}", hits.join("\n"));
    }
    let stderr = String::from_utf8_lossy(&o.stderr);
    for kind in [
        "github-token",
        "aws-access-key",
        "anthropic-key",
        "google-api-key",
        "env-secret",
        "json-secret",
        "yaml-secret",
        "api-key-header",
        "gitlab-token",
        "npm-token",
        "huggingface-token",
        "slack-token",
        "openrouter-key",
        "supabase-token",
        "telegram-bot-token",
        "private-key",
    ] {
        assert!(stderr.contains(&format!(" × {kind}")), "no {kind} in the report: {stderr}");
    }
    assert!(!stderr.contains(" 0 secrets redacted"), "{stderr}");
}

/// `--redact-file` (words and regexes), home
/// directories and the user's name, and a dry run that lists kind, place
/// and count without the secret and writes nothing.
#[test]
fn redact_file_words_home_directories_the_user_name_and_a_dry_run() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("projects/-home-zoe-acme-portal");
    std::fs::create_dir_all(&dir).unwrap();
    let line = |n: u32, parent: Option<u32>, ty: &str, text: &str| {
        let parent = parent.map_or("null".to_string(), |p| format!("\"{}\"", uuid(p)));
        let msg = if ty == "user" {
            format!(r#"{{"role":"user","content":"{text}"}}"#)
        } else {
            format!(
                r#"{{"role":"assistant","id":"msg_{n}","model":"claude-sonnet-4-5","type":"message","content":[{{"type":"text","text":"{text}"}}]}}"#
            )
        };
        format!(
            r#"{{"parentUuid":{parent},"isSidechain":false,"type":"{ty}","sessionId":"{SESSION}","cwd":"/home/zoe/acme-portal","uuid":"{}","timestamp":"2026-03-02T10:00:{n:02}.000Z","message":{msg}}}"#,
            uuid(n)
        )
    };
    let lines = [
        line(1, None, "user", "Ask Globex Industries about ticket CUST-4711 before Friday"),
        line(
            2,
            Some(1),
            "assistant",
            "I read /home/zoe/acme-portal/notes.md and /Users/zoe/Desktop/todo.txt for globex industries.",
        ),
    ];
    std::fs::write(dir.join(format!("{SESSION}.jsonl")), lines.join("\n") + "\n").unwrap();
    let words = tmp.path().join("words.txt");
    std::fs::write(&words, "# customers\nGlobex Industries\nregex:CUST-[0-9]+\n").unwrap();
    let input = tmp.path().join("projects");
    let secrets = ["Globex", "globex", "CUST-4711", "zoe"];
    let run = |extra: &[&str], out: &Path| {
        let o = cctree()
            .arg("render")
            .arg(&input)
            .arg("-o")
            .arg(out)
            .arg("--redact-file")
            .arg(&words)
            .args(extra)
            .env("HOME", "/home/zoe")
            .env("USER", "zoe")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        o
    };

    // The dry run: kind, place and count; no secret; nothing written.
    let dry_out = tmp.path().join("dry");
    let o = run(&["--redact-dry-run"], &dry_out);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(!dry_out.exists(), "a dry run wrote {}", dry_out.display());
    assert!(stdout.contains(&format!("{SESSION}.jsonl:1: 2 × custom")), "{stdout}");
    assert!(stdout.contains(&format!("{SESSION}.jsonl:2: ")) && stdout.contains("× home-dir"), "{stdout}");
    assert!(stdout.contains("× user-name"), "the project folder -home-zoe-…: {stdout}");
    assert!(stdout.contains("(nothing written)"), "{stdout}");
    for s in secrets {
        assert!(!stdout.contains(s), "the dry run shows {s:?}: {stdout}");
    }

    // The render: none of it in any byte.
    let out = tmp.path().join("site");
    run(&[], &out);
    let files = site_files(&out);
    for s in secrets {
        let hits = found(&files, s);
        assert!(hits.is_empty(), "{s:?} survived --redact-file in:\n{}", hits.join("\n"));
    }
    let all: String = files.iter().map(|(_, t)| t.as_str()).collect();
    assert!(all.contains("[REDACTED:custom]") && all.contains("[REDACTED:home-dir]/acme-portal/notes.md"));
    assert!(all.contains("before Friday"), "the rest of the prompt is shown");

    // A new word in the file makes the next render rebuild (the cache is for one set of rules).
    std::fs::write(&words, "# customers\nGlobex Industries\nregex:CUST-[0-9]+\nFriday\n").unwrap();
    run(&[], &out);
    let all: String = site_files(&out).iter().map(|(_, t)| t.clone()).collect();
    assert!(!all.contains("Friday"), "a word added to --redact-file is redacted on the next render");

    // An invalid regex is an error naming its line.
    std::fs::write(&words, "fine\nregex:(unclosed\n").unwrap();
    let o = cctree()
        .arg("render")
        .arg(&input)
        .arg("-o")
        .arg(tmp.path().join("x"))
        .arg("--redact-file")
        .arg(&words)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("words.txt:2: "), "{}", String::from_utf8_lossy(&o.stderr));
}

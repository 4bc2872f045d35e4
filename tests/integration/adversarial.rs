//! The adversarial suite: hostile and broken archives, generated here (add a
//! case by adding a function to `cases()`), each with what must happen.
//!
//! For every case, every command: no panic, each expected problem reported
//! with `file:line`, every readable entry still there (checked by content), and
//! nothing written outside the output directory.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::cctree;

/// One hostile archive.
#[derive(Default)]
pub struct Case {
    pub name: &'static str,
    /// The project directory's name (default `-tmp-x`).
    pub project: Option<&'static str>,
    /// Files relative to the project directory, with their bytes.
    pub files: Vec<(String, Vec<u8>)>,
    /// Run on the projects directory once the files are written (symlinks,
    /// files outside the project).
    pub setup: Option<fn(&Path)>,
    /// `(file, line)` where a warning must be reported.
    pub warn_at: Vec<(String, u32)>,
    /// Texts that must survive into the model (and the pages).
    pub must_keep: Vec<String>,
}

fn line(v: Value) -> Vec<u8> {
    let mut s = serde_json::to_vec(&v).unwrap();
    s.push(b'\n');
    s
}

fn ts(i: u64) -> String {
    format!("2025-07-01T{:02}:{:02}:{:02}.000Z", (i / 3600) % 24, (i / 60) % 60, i % 60)
}

fn user(uuid: &str, parent: Option<&str>, i: u64, text: &str) -> Value {
    json!({"type":"user","uuid":uuid,"parentUuid":parent,"sessionId":"s1","timestamp":ts(i),"cwd":"/tmp/x",
        "message":{"role":"user","content":text}})
}

fn reply(uuid: &str, parent: &str, i: u64, text: &str) -> Value {
    json!({"type":"assistant","uuid":uuid,"parentUuid":parent,"sessionId":"s1","timestamp":ts(i),
        "message":{"id":format!("msg_{uuid}"),"role":"assistant","model":"claude","content":[{"type":"text","text":text}]}})
}

fn good_prefix() -> Vec<u8> {
    let mut b = line(user("u1", None, 1, "The first prompt survives"));
    b.extend(line(reply("a1", "u1", 2, "The first reply survives")));
    b
}

pub fn cases() -> Vec<Case> {
    let mut out = Vec::new();

    let mut b = good_prefix();
    b.extend(br#"{"type":"user","uuid":"u2","parentUuid":"a1","message":{"content":"torn"#);
    out.push(Case {
        name: "truncated_last_line",
        files: vec![("s1.jsonl".into(), b)],
        warn_at: vec![("s1.jsonl".into(), 3)],
        must_keep: vec!["The first prompt survives".into(), "The first reply survives".into()],
        ..Case::default()
    });

    let mut b = good_prefix();
    b.extend(b"this is not json at all }}}\n");
    b.extend(line(user("u2", Some("a1"), 3, "After the garbage line")));
    out.push(Case {
        name: "invalid_json_line",
        files: vec![("s1.jsonl".into(), b)],
        warn_at: vec![("s1.jsonl".into(), 3)],
        must_keep: vec!["After the garbage line".into()],
        ..Case::default()
    });

    let mut b = good_prefix();
    let mut bad = line(user("u2", Some("a1"), 3, "Bytes XX inside a string"));
    let at = bad.windows(2).position(|w| w == b"XX").unwrap();
    bad[at] = 0xff;
    bad[at + 1] = 0xfe;
    b.extend(bad);
    out.push(Case {
        name: "invalid_utf8",
        files: vec![("s1.jsonl".into(), b)],
        warn_at: vec![("s1.jsonl".into(), 3)],
        must_keep: vec!["inside a string".into()],
        ..Case::default()
    });

    let mut b = good_prefix();
    b.extend(
        br#"{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s1","message":{"content":"lone \udc80 low and \ud800 high surrogates"}}"#,
    );
    b.push(b'\n');
    out.push(Case {
        name: "lone_surrogates",
        files: vec![("s1.jsonl".into(), b)],
        warn_at: vec![("s1.jsonl".into(), 3)],
        must_keep: vec!["low and".into(), "high surrogates".into()],
        ..Case::default()
    });

    let mut b = b"\xEF\xBB\xBF".to_vec();
    b.extend(good_prefix());
    out.push(Case {
        name: "bom",
        files: vec![("s1.jsonl".into(), b)],
        warn_at: vec![],
        must_keep: vec!["The first prompt survives".into()],
        ..Case::default()
    });

    // A 50 MB single line: a pasted base64 image.
    let mut b = good_prefix();
    let png = base64_png(50 * 1024 * 1024);
    b.extend(line(json!({"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s1","timestamp":ts(3),
        "message":{"role":"user","content":[{"type":"text","text":"Look at this huge screenshot"},
            {"type":"image","source":{"type":"base64","media_type":"image/png","data":png}}]}})));
    b.extend(line(reply("a2", "u2", 4, "That is a big image")));
    out.push(Case {
        name: "huge_line",
        files: vec![("s1.jsonl".into(), b)],
        warn_at: vec![],
        must_keep: vec!["Look at this huge screenshot".into(), "That is a big image".into()],
        ..Case::default()
    });

    out.push(Case {
        name: "empty_file",
        files: vec![("s1.jsonl".into(), Vec::new()), ("s2.jsonl".into(), good_prefix())],
        warn_at: vec![],
        must_keep: vec!["The first reply survives".into()],
        ..Case::default()
    });

    let mut b = Vec::new();
    for i in 0..5 {
        b.extend(line(
            json!({"type":"summary","summary":format!("Summary number {i}"),"leafUuid":format!("gone-{i}")}),
        ));
    }
    out.push(Case {
        name: "only_summaries",
        files: vec![("s1.jsonl".into(), b), ("s2.jsonl".into(), good_prefix())],
        warn_at: vec![],
        must_keep: vec!["The first prompt survives".into()],
        ..Case::default()
    });

    let mut b = good_prefix();
    b.extend(line(user("x", Some("y"), 5, "Cycle member x")));
    b.extend(line(user("y", Some("x"), 6, "Cycle member y")));
    b.extend(line(user("me", Some("me"), 7, "I am my own parent")));
    out.push(Case {
        name: "cycles",
        files: vec![("s1.jsonl".into(), b)],
        warn_at: vec![],
        must_keep: vec!["Cycle member x".into(), "Cycle member y".into(), "I am my own parent".into()],
        ..Case::default()
    });

    let mut b = good_prefix();
    b.extend(line(user("d1", Some("deleted-long-ago"), 5, "My parent was deleted")));
    out.push(Case {
        name: "dangling_parent",
        files: vec![("s1.jsonl".into(), b)],
        warn_at: vec![],
        must_keep: vec!["My parent was deleted".into()],
        ..Case::default()
    });

    let mut b = good_prefix();
    b.extend(line(user("u1", None, 1, "A different text under the same uuid")));
    out.push(Case {
        name: "conflicting_duplicate",
        files: vec![("s1.jsonl".into(), b)],
        warn_at: vec![],
        must_keep: vec!["The first prompt survives".into()],
        ..Case::default()
    });

    // Hostile names in every id field.
    let evil = ["../../../etc/passwd", "a/b\\c", "nul\u{0}byte", "CON", "NUL.txt", "émoji-🦀-名前"];
    let long = "x".repeat(300);
    let mut b = Vec::new();
    let mut parent: Option<String> = None;
    for (i, name) in evil.iter().copied().chain([long.as_str()]).enumerate() {
        let uuid = format!("{name}-{i}");
        b.extend(line(json!({"type":"user","uuid":uuid,"parentUuid":parent,"sessionId":name,"agentId":name,
            "timestamp":ts(i as u64),"cwd":name,"message":{"role":"user","content":format!("Prompt from hostile id {i}")}})));
        parent = Some(uuid);
    }
    out.push(Case {
        name: "hostile_names",
        files: vec![(format!("{}.jsonl", "é🦀".repeat(20)), b)],
        warn_at: vec![],
        must_keep: (0..7).map(|i| format!("Prompt from hostile id {i}")).collect(),
        ..Case::default()
    });

    let mut b = good_prefix();
    b.extend(line(json!({"type":"brand-new-entry","uuid":"n1","parentUuid":"a1","sessionId":"s1","timestamp":ts(3),"payload":{"x":1}})));
    b.extend(line(json!({"type":"assistant","uuid":"a2","parentUuid":"n1","sessionId":"s1","timestamp":ts(4),
        "message":{"id":"m2","role":"assistant","content":[{"type":"hologram","data":"?"},{"type":"text","text":"Text after an unknown block"}]}})));
    out.push(Case {
        name: "unknown_types_and_blocks",
        files: vec![("s1.jsonl".into(), b)],
        warn_at: vec![("s1.jsonl".into(), 3)],
        must_keep: vec!["Text after an unknown block".into()],
        ..Case::default()
    });

    let mut b = line(user("u1", None, 1, "Run three tools"));
    let mut prev = "u1".to_string();
    for (i, tur) in [
        json!({"stdout":"object result text","stderr":""}),
        json!("Error: string result text"),
        json!([{"type":"text","text":"array result text"}]),
    ]
    .into_iter()
    .enumerate()
    {
        let a = format!("a{i}");
        let r = format!("r{i}");
        b.extend(line(json!({"type":"assistant","uuid":a,"parentUuid":prev,"sessionId":"s1","timestamp":ts(2 + 2 * i as u64),
            "message":{"id":format!("m{i}"),"role":"assistant","content":[{"type":"tool_use","id":format!("t{i}"),"name":"Bash","input":{"command":"ls"}}]}})));
        b.extend(line(json!({"type":"user","uuid":r,"parentUuid":a,"sessionId":"s1","timestamp":ts(3 + 2 * i as u64),"toolUseResult":tur,
            "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":format!("t{i}"),"content":format!("tool output {i}")}]}})));
        prev = r;
    }
    out.push(Case {
        name: "tool_use_result_shapes",
        files: vec![("s1.jsonl".into(), b)],
        warn_at: vec![],
        must_keep: vec!["Run three tools".into(), "tool output 2".into()],
        ..Case::default()
    });

    let mut b = line(user("u1", None, 1, "Search the web"));
    b.extend(line(json!({"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":ts(2),
        "message":{"id":"x-1","role":"assistant","content":[
            {"type":"server_tool_use","id":"srv1","name":"web_search","input":"a string input"},
            {"type":"tool_result","tool_use_id":"srv1","content":"result inside an assistant message"},
            {"type":"text","text":"Third-party backend reply"}]}})));
    out.push(Case {
        name: "third_party_blocks",
        files: vec![("s1.jsonl".into(), b)],
        warn_at: vec![],
        must_keep: vec!["Third-party backend reply".into()],
        ..Case::default()
    });

    out.extend(names_and_layouts());
    out.extend(what_the_client_reads());
    out
}

/// `n` arrays around `inner`, as JSON text.
pub fn nested(n: usize, inner: &str) -> String {
    format!("{}{inner}{}", "[".repeat(n), "]".repeat(n))
}

/// A tool call whose line holds `input` (JSON text) and its result, whose
/// line holds `tur` as its `toolUseResult`, after [`good_prefix`]; then a reply.
fn tool_turn(input: &str, tur: &str, extra: &str) -> Vec<u8> {
    let mut b = good_prefix();
    b.extend(format!(
        r#"{{"type":"assistant","uuid":"a2","parentUuid":"a1","sessionId":"s1","timestamp":"{}",{extra}"message":{{"id":"m2","role":"assistant","model":"claude","content":[{{"type":"text","text":"The call before the tool"}},{{"type":"tool_use","id":"t1","name":"mcp__x__probe","input":{input}}}]}}}}"#,
        ts(3)
    ).as_bytes());
    b.push(b'\n');
    b.extend(format!(
        r#"{{"type":"user","uuid":"r1","parentUuid":"a2","sessionId":"s1","timestamp":"{}","toolUseResult":{tur},"message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":"The paired tool output"}}]}}}}"#,
        ts(4)
    ).as_bytes());
    b.push(b'\n');
    b.extend(line(reply("a3", "r1", 5, "The reply after the tool")));
    b
}

/// Lines the client (JavaScript's
/// `JSON.parse`) reads that cctree did not: deep nesting, numbers out of
/// range, duplicate keys. None is a warning: each line is read.
fn what_the_client_reads() -> Vec<Case> {
    let mut out = Vec::new();
    let keep = |extra: &[&str]| {
        let mut k: Vec<String> =
            ["The call before the tool", "The paired tool output", "The reply after the tool"].map(String::from).into();
        k.extend(extra.iter().map(|s| s.to_string()));
        k
    };
    // 200 levels in a tool's input, 10,000 in its result's toolUseResult.
    out.push(Case {
        name: "deep_nesting",
        files: vec![(
            "s1.jsonl".into(),
            tool_turn(
                &format!(
                    r#"{{"query":"Input beside the deep part","tree":{}}}"#,
                    nested(200, r#""Deep in the input""#)
                ),
                &nested(10_000, r#""Deep in the result""#),
                "",
            ),
        )],
        must_keep: keep(&["Input beside the deep part", "Deep in the input"]),
        ..Case::default()
    });
    // Numbers JavaScript reads as Infinity or rounds, in the input, the
    // result and in fields cctree reads (usage, a flag).
    out.push(Case {
        name: "numbers_out_of_range",
        files: vec![(
            "s1.jsonl".into(),
            tool_turn(
                r#"{"limit":1e400,"offset":-1e400,"id":123456789012345678901234567890,"note":"Input with huge numbers"}"#,
                r#"{"elapsed":1e400,"agentId":1e999}"#,
                r#""isSidechain":1e400,"usage":{"input_tokens":1e400,"output_tokens":12},"#,
            ),
        )],
        must_keep: keep(&["Input with huge numbers", "123456789012345678901234567890"]),
        ..Case::default()
    });
    // Duplicate keys: the last value wins, at the top and inside the message.
    let mut b = good_prefix();
    b.extend(format!(
        r#"{{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s1","timestamp":"{}","message":{{"role":"user","content":"An earlier value of the key"}},"message":{{"role":"user","content":"The last value of the key wins"}}}}"#,
        ts(3)
    ).as_bytes());
    b.push(b'\n');
    b.extend(format!(
        r#"{{"type":"assistant","uuid":"a2","uuid":"a2","parentUuid":"nowhere","parentUuid":"u2","sessionId":"s1","timestamp":"{}","message":{{"id":"m2","role":"assistant","content":[{{"type":"text","text":"gone"}}],"content":[{{"type":"text","text":"A reply whose content key is repeated","text":"A reply whose text key is repeated"}}]}}}}"#,
        ts(4)
    ).as_bytes());
    b.push(b'\n');
    out.push(Case {
        name: "duplicate_keys",
        files: vec![("s1.jsonl".into(), b)],
        must_keep: vec!["The last value of the key wins".into(), "A reply whose text key is repeated".into()],
        ..Case::default()
    });
    // What a tool call shows of its result's `toolUseResult` (a command's
    // output, a file read, a task's number), read as the client reads it:
    // duplicate keys, values of another type, huge numbers, deep siblings.
    let mut b = good_prefix();
    b.extend(format!(
        r#"{{"type":"assistant","uuid":"a2","parentUuid":"a1","sessionId":"s1","timestamp":"{}","message":{{"id":"m2","role":"assistant","model":"claude","content":[{{"type":"text","text":"The calls before the results"}},{{"type":"tool_use","id":"t1","name":"Bash","input":{{"command":"ls"}}}},{{"type":"tool_use","id":"t2","name":"Read","input":{{"file_path":"/a.rs"}}}},{{"type":"tool_use","id":"t3","name":"TaskCreate","input":{{"subject":"Write tests"}}}}]}}}}"#,
        ts(3)
    ).as_bytes());
    b.push(b'\n');
    let results = [
        (
            "t1",
            r#"{"stdout":"An earlier stdout","stderr":{"not":"text"},"stdout":"The last stdout wins","interrupted":1e400,"deep":DEEP}"#,
        ),
        (
            "t2",
            r#"{"file":{"content":"An earlier file"},"originalFile":DEEP,"file":{"content":"The last file wins","numLines":123456789012345678901234567890}}"#,
        ),
        ("t3", r#"{"task":{"id":"7","subject":"Write tests"},"task":{"id":"8"},"task_id":1e400}"#),
    ];
    for (i, (id, tur)) in results.into_iter().enumerate() {
        let tur = tur.replace("DEEP", &nested(300, r#""Deep beside the result""#));
        let parent = if i == 0 { "a2".to_string() } else { format!("r{i}") };
        b.extend(format!(
            r#"{{"type":"user","uuid":"r{}","parentUuid":"{parent}","sessionId":"s1","timestamp":"{}","toolUseResult":{tur},"message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":"Output of {id}"}}]}}}}"#,
            i + 1,
            ts(4)
        ).as_bytes());
        b.push(b'\n');
    }
    b.extend(line(reply("a3", "r3", 5, "The reply after the results")));
    out.push(Case {
        name: "tool_use_results_as_the_client_reads_them",
        files: vec![("s1.jsonl".into(), b)],
        must_keep: vec!["The last stdout wins".into(), "The last file wins".into(), "Output of t3".into()],
        ..Case::default()
    });
    out
}

/// Names that drive a terminal, and the
/// layouts discovery must not be fooled by.
fn names_and_layouts() -> Vec<Case> {
    let mut out = Vec::new();
    // Terminal escapes in every name that is printed: the project directory,
    // the file, uuids, session ids, the cwd; a malformed line and a dangling
    // parent make `check` and the warnings quote them.
    let mut b = line(json!({"type":"user","uuid":"u\u{1b}[31m1","parentUuid":"gone\u{1b}]52;c;cHduZWQ=\u{7}",
        "sessionId":"s\u{9b}2J\u{7f}","timestamp":ts(1),"cwd":"/tmp/\u{1b}]8;;http://evil.test\u{7}x",
        "message":{"role":"user","content":"Prompt under escape-laden ids"}}));
    b.extend(b"{not json\n");
    out.push(Case {
        name: "escape_sequences_in_names",
        project: Some(ESC_PROJECT),
        files: vec![(ESC_FILE.into(), b)],
        warn_at: vec![(ESC_FILE.into(), 2)],
        must_keep: vec!["Prompt under escape-laden ids".into()],
        ..Case::default()
    });

    // A torn last line that ends in a backslash (it panicked `--redact`).
    let mut b = good_prefix();
    b.extend(br#"{"type":"user","uuid":"u2","parentUuid":"a1","message":{"content":"C:\dir"#);
    out.push(Case {
        name: "torn_line_ending_in_a_backslash",
        files: vec![("s1.jsonl".into(), b)],
        warn_at: vec![("s1.jsonl".into(), 3)],
        must_keep: vec!["The first prompt survives".into()],
        ..Case::default()
    });

    // A transcript dropped directly into the projects directory, beside two projects.
    out.push(Case {
        name: "stray_transcript_in_the_projects_directory",
        files: vec![("s1.jsonl".into(), good_prefix())],
        setup: Some(|projects| {
            std::fs::write(projects.join("stray.jsonl"), line(user("st1", None, 9, "The stray prompt survives")))
                .unwrap();
            std::fs::create_dir_all(projects.join("-tmp-y")).unwrap();
            std::fs::write(projects.join("-tmp-y/s2.jsonl"), line(user("y1", None, 9, "Project y survives"))).unwrap();
        }),
        must_keep: vec![
            "The first prompt survives".into(),
            "The stray prompt survives".into(),
            "Project y survives".into(),
        ],
        ..Case::default()
    });

    // 24 directory symbolic links, two per level: 4,096 paths to one file.
    out.push(Case {
        name: "directory_symlinks_multiply_paths",
        files: vec![
            ("s1.jsonl".into(), good_prefix()),
            (format!("chain/d{LINK_LEVELS}/t.jsonl"), line(user("t1", None, 9, "Reached through many links"))),
        ],
        setup: Some(|projects| link_chain(&projects.join("-tmp-x/chain"), LINK_LEVELS)),
        must_keep: vec!["The first prompt survives".into(), "Reached through many links".into()],
        ..Case::default()
    });

    out
}

/// Levels of [`link_chain`] in the adversarial case.
const LINK_LEVELS: usize = 12;

/// `dir/d0 … dir/d<levels>`, each `d<i>` holding two links, `a` and `b`, to
/// `d<i+1>`: 2 × `levels` links, 2^`levels` paths from `d0` to `d<levels>`.
pub fn link_chain(dir: &Path, levels: usize) {
    for i in 0..=levels {
        std::fs::create_dir_all(dir.join(format!("d{i}"))).unwrap();
    }
    for i in 0..levels {
        for l in ["a", "b"] {
            std::os::unix::fs::symlink(format!("../d{}", i + 1), dir.join(format!("d{i}/{l}"))).unwrap();
        }
    }
}

/// A project directory and a file named to drive a terminal: set its title
/// (OSC 0), clear it (CSI 2J), an 8-bit CSI (U+009B), DEL, a bidi override.
const ESC_PROJECT: &str = "-tmp-\x1b]0;owned\x07-\x1b[2J-\u{202e}";
const ESC_FILE: &str = "s\x1b]52;c;cHduZWQ=\x07\u{9b}1m\x7f.jsonl";

/// Raw control characters that must never reach a terminal (all but `\n`, `\t`).
fn raw_controls(bytes: &[u8]) -> Vec<char> {
    String::from_utf8_lossy(bytes)
        .chars()
        .filter(|c| {
            matches!(c, '\0'..='\x08' | '\x0b'..='\x1f' | '\x7f' | '\u{80}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}

fn assert_no_raw_controls(case: &str, what: &str, bytes: &[u8]) {
    let bad = raw_controls(bytes);
    assert!(bad.is_empty(), "{case}: {what} prints raw control characters {bad:?}: {}", String::from_utf8_lossy(bytes));
}

/// A base64 PNG-looking payload of about `len` bytes (valid base64, not a valid image).
fn base64_png(len: usize) -> String {
    let mut s = String::with_capacity(len);
    s.push_str("iVBORw0KGgo");
    while s.len() < len {
        s.push_str("AAAA");
    }
    s
}

/// The 1,000,000-deep linear chain, written straight to disk.
pub fn deep_chain(dir: &Path, depth: usize) {
    use std::io::Write;
    let mut w = std::io::BufWriter::new(std::fs::File::create(dir.join("deep.jsonl")).unwrap());
    for i in 0..depth {
        let parent = if i == 0 { "null".to_string() } else { format!("\"n{}\"", i - 1) };
        let text = if i == 0 {
            "Top of the deep chain"
        } else if i == depth - 1 {
            "Bottom of the deep chain"
        } else {
            "step"
        };
        writeln!(
            w,
            r#"{{"type":"{}","uuid":"n{i}","parentUuid":{parent},"sessionId":"deep","timestamp":"{}","message":{{"role":"user","content":"{text}"}}}}"#,
            if i % 2 == 0 { "user" } else { "system" },
            ts(i as u64 / 1000)
        )
        .unwrap();
    }
}

pub fn write_case(root: &Path, case: &Case) -> PathBuf {
    let project = root.join("projects").join(case.project.unwrap_or("-tmp-x"));
    for (name, bytes) in &case.files {
        let path = project.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    if let Some(setup) = case.setup {
        setup(&root.join("projects"));
    }
    root.join("projects")
}

/// HTML text with the entities the renderer writes turned back into characters.
fn unescape(html: &str) -> String {
    html.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
}

/// Every path under `dir` (to prove nothing was written outside the output).
pub fn listing(dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(p.clone());
            }
            out.insert(p);
        }
    }
    out
}

#[test]
fn every_case_is_survived_with_warnings_and_content() {
    for case in cases() {
        let tmp = tempfile::tempdir().unwrap();
        let input = write_case(tmp.path(), &case);
        let commands = [&["stats", "--json", "--detail"][..], &["check", "--json"], &["stats"], &["check"]];
        for cmd in commands {
            let out = cctree().args(cmd).arg(&input).output().unwrap();
            let code = out.status.code();
            assert!(
                matches!(code, Some(0 | 1)),
                "{} {:?}: exit {code:?}\n{}",
                case.name,
                cmd,
                String::from_utf8_lossy(&out.stderr)
            );
            assert_no_raw_controls(case.name, &format!("{cmd:?} on stdout"), &out.stdout);
            assert_no_raw_controls(case.name, &format!("{cmd:?} on stderr"), &out.stderr);
            // A full stderr is no reason to stop (it was exit 101, "failed printing to stderr").
            let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
            let code =
                cctree().args(cmd).arg(&input).stderr(full).stdout(std::process::Stdio::null()).status().unwrap();
            assert!(matches!(code.code(), Some(0 | 1)), "{} {cmd:?} with a full stderr: {code}", case.name);
            if cmd.len() == 1 {
                continue;
            }
            let stderr = String::from_utf8_lossy(&out.stderr);
            if cmd[0] == "check" {
                let v: Value = serde_json::from_slice(&out.stdout).unwrap();
                for (file, line) in &case.warn_at {
                    let hit =
                        v["findings"].as_array().unwrap().iter().any(|f| {
                            f["file"].as_str().is_some_and(|p| p.ends_with(file.as_str())) && f["line"] == *line
                        });
                    assert!(hit, "{}: no finding at {file}:{line}: {}", case.name, v["findings"]);
                }
            } else {
                for (file, line) in &case.warn_at {
                    let file = cctree::term::escape(file);
                    assert!(
                        stderr.contains(&format!("{file}:{line}")),
                        "{}: stderr lacks {file}:{line}: {stderr}",
                        case.name
                    );
                }
            }
        }
        // Every readable text is in the model…
        let projects = crate::support::load(std::slice::from_ref(&input));
        let all: String = projects.iter().flat_map(|p| p.entries.iter().map(|e| p.raw(e).to_string())).collect();
        for keep in &case.must_keep {
            assert!(all.contains(keep.as_str()), "{}: lost {keep:?}", case.name);
        }
        // …and on some page, and nothing is written outside the output.
        let before = listing(tmp.path());
        let site = tmp.path().join("site");
        let out = cctree().args(["render", "-o"]).arg(&site).arg(&input).output().unwrap();
        assert!(out.status.success(), "{}: render failed: {}", case.name, String::from_utf8_lossy(&out.stderr));
        assert_no_raw_controls(case.name, "render on stderr", &out.stderr);
        let after = listing(tmp.path());
        let outside: Vec<_> = after.difference(&before).filter(|p| !p.starts_with(&site)).collect();
        assert!(outside.is_empty(), "{}: wrote outside the output: {outside:?}", case.name);
        let pages: String = after
            .iter()
            .filter(|p| p.starts_with(&site) && p.extension().is_some_and(|x| x == "html"))
            .map(|p| unescape(&std::fs::read_to_string(p).unwrap()))
            .collect();
        for keep in &case.must_keep {
            assert!(pages.contains(keep.as_str()), "{}: {keep:?} is on no page", case.name);
        }
        // With --redact too (skipped for the 50 MB line: the debug build's regexes are slow).
        if case.files.iter().map(|(_, b)| b.len()).sum::<usize>() < 1 << 20 {
            let out = cctree().args(["render", "--redact", "-o"]).arg(tmp.path().join("red")).arg(&input).output();
            let out = out.unwrap();
            assert!(out.status.success(), "{}: render --redact: {}", case.name, String::from_utf8_lossy(&out.stderr));
        }
    }
}

#[test]
fn a_million_deep_chain_needs_no_recursion() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("-deep");
    std::fs::create_dir_all(&dir).unwrap();
    deep_chain(&dir, 1_000_000);
    let out = cctree().args(["stats", "--json", "--detail"]).arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["nodes"], 1_000_000);
    assert_eq!(v["conversations"], 1);
    assert_eq!(v["projects_detail"][0]["conversations"][0]["branches"][0]["leaf"], "n999999");
}

/// `check` and `stats` printed the raw ESC/OSC bytes of directory names and
/// uuids (terminal escape injection): they show them escaped, `\x1b`.
#[test]
fn escape_sequences_in_names_are_shown_escaped() {
    let case = cases().into_iter().find(|c| c.name == "escape_sequences_in_names").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let input = write_case(tmp.path(), &case);
    let stats = cctree().arg("stats").arg(&input).output().unwrap();
    let table = String::from_utf8_lossy(&stats.stdout);
    assert!(table.contains(r"-tmp-\x1b]0;owned\x07-\x1b[2J-\u{202e}"), "{table}");
    let check = cctree().arg("check").arg(&input).output().unwrap();
    let text = String::from_utf8_lossy(&check.stdout);
    assert!(text.contains(r"s\x1b]52;c;cHduZWQ=\x07\u{9b}1m\x7f.jsonl:2: [malformed-line]"), "{text}");
    assert!(text.contains(r"parentUuid gone\x1b]52;c;cHduZWQ=\x07 is not in any file"), "{text}");
    // One finding per line: no name breaks a line.
    assert_eq!(text.lines().count(), 3, "{text}");
    // JSON keeps the names exact (escaped as JSON).
    let json = cctree().args(["check", "--json"]).arg(&input).output().unwrap();
    let v: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert!(v["findings"][0]["file"].as_str().unwrap().ends_with(ESC_FILE), "{v}");
}

/// `-j 10000` took minutes (starting and stopping 10,000 threads): the
/// thread count is capped at 4 per core, and cctree says so.
#[test]
fn ten_thousand_threads_are_capped() {
    let out = cctree().args(["-j", "10000", "stats"]).arg(crate::support::example_archive()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("-j 10000: using {} threads", 4 * cores)), "{stderr}");
    let (n, note) = cctree::run::thread_count(3, 2);
    assert_eq!((n, note), (3, None));
}

/// A full stdout is an error that says so (exit 2), not a panic; a closed
/// one (`cctree stats | head`) ends quietly.
#[test]
fn full_or_closed_stdout_is_no_panic() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = cctree().arg("stats").arg(crate::support::example_archive()).stdout(full).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot write to standard output"), "{stderr}");
    let mut child = cctree()
        .args(["stats", "--json", "--detail"])
        .arg(crate::support::example_archive())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A stray `*.jsonl` directly in the projects directory turned every project
/// into one: the projects stay apart, the stray file is read as a project of
/// its own, with a warning naming it; `sync` mirrors the same layout.
#[test]
fn a_stray_transcript_does_not_merge_all_projects() {
    let case = cases().into_iter().find(|c| c.name == "stray_transcript_in_the_projects_directory").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let input = write_case(tmp.path(), &case);
    let out = cctree().args(["stats", "--json", "--detail"]).arg(&input).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> =
        v["projects_detail"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["projects", "-tmp-x", "-tmp-y"], "{v}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stray.jsonl: a transcript directly in the projects directory"), "{stderr}");
    // The render prints it and counts it.
    let out = cctree().arg("render").arg(&input).arg("-o").arg(tmp.path().join("site")).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stray.jsonl: a transcript directly in the projects directory"), "{stderr}");
    assert!(stderr.contains("rendered 3 projects,") && stderr.contains(" 1 warning in "), "{stderr}");
    // Sync mirrors a projects directory, not one project named `projects`.
    let archive = tmp.path().join("archive/projects");
    let out = cctree().args(["-q", "sync"]).arg(&input).arg("--to").arg(&archive).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for f in ["-tmp-x/s1.jsonl", "-tmp-y/s2.jsonl", "stray.jsonl"] {
        assert!(archive.join(f).is_file(), "sync did not keep {f}");
    }
}

/// Directory symbolic links inside a project were followed along every path
/// (48 links made one file be read 262,000 times): each real directory is
/// walked once, so the file is read once.
#[test]
fn directory_symlinks_are_followed_once_per_directory() {
    let case = cases().into_iter().find(|c| c.name == "directory_symlinks_multiply_paths").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let input = write_case(tmp.path(), &case);
    let out = cctree().args(["stats", "--json"]).arg(&input).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"], 2, "{v}");
    // A link to a file already listed, and a loop, add nothing; a loop is said.
    let project = input.join("-tmp-x");
    std::os::unix::fs::symlink("s1.jsonl", project.join("again.jsonl")).unwrap();
    std::os::unix::fs::symlink("..", project.join("chain/up")).unwrap();
    let out = cctree().args(["stats", "--json"]).arg(&project).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"], 2, "{v}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("chain/up: a symbolic link to a directory above it (a loop)"), "{stderr}");
}

/// Runs `cmd` as an unprivileged user when the tests run as root (root reads
/// a directory whatever its mode), so that `chmod 000` makes it unreadable.
fn as_unprivileged(cmd: &mut std::process::Command, tmp: &Path) {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::os::unix::process::CommandExt;
    // The temporary directory belongs to whoever runs the tests.
    if std::fs::metadata(tmp).unwrap().uid() == 0 {
        std::fs::set_permissions(tmp, std::fs::Permissions::from_mode(0o755)).unwrap();
        cmd.uid(65534).gid(65534);
    }
}

/// An unreadable project directory vanished without a word: it is a warning
/// naming it, and the other projects are read.
#[test]
fn an_unreadable_project_directory_is_a_warning() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let projects = tmp.path().join("projects");
    for p in ["-tmp-open", "-tmp-locked"] {
        std::fs::create_dir_all(projects.join(p)).unwrap();
        std::fs::write(projects.join(p).join("s1.jsonl"), good_prefix()).unwrap();
    }
    let locked = projects.join("-tmp-locked");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let mut cmd = cctree();
    cmd.args(["stats", "--json"]).arg(&projects);
    as_unprivileged(&mut cmd, tmp.path());
    let out = cmd.output().unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["projects"], 1, "{v}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("cannot read {}: Permission denied", locked.display())),
        "no warning names the unreadable project: {stderr}"
    );
}

/// `cctree fork` on a session file that is a symbolic link wrote the new
/// session beside the link's target, where `claude -r` does not look (it
/// looks for `<id>.jsonl` in the project directory of its cwd, then in every
/// project directory): the fork goes into the project directory the user named.
#[test]
fn fork_of_a_symlinked_session_file_writes_beside_the_link() {
    let tmp = tempfile::tempdir().unwrap();
    let elsewhere = tmp.path().join("elsewhere");
    let project = tmp.path().join("config/projects/-home-alice-notes");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    let name = "5e5510b1-0000-4000-8000-0000000000b1.jsonl";
    std::fs::copy(crate::support::example_archive().join("-home-alice-notes").join(name), elsewhere.join(name))
        .unwrap();
    std::os::unix::fs::symlink(elsewhere.join(name), project.join(name)).unwrap();
    let out = cctree()
        .args(["fork", "--json"])
        .arg(project.join(name))
        .env("CLAUDE_CONFIG_DIR", tmp.path().join("config"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let written = PathBuf::from(v["path"].as_str().unwrap());
    let canonical_project = std::fs::canonicalize(&project).unwrap();
    assert_eq!(written.parent(), Some(canonical_project.as_path()), "{v}");
    assert!(written.is_file());
    let id = v["new_session_id"].as_str().unwrap();
    assert!(!elsewhere.join(format!("{id}.jsonl")).exists(), "the fork was written beside the link's target");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 1, "nothing else is written beside the target");
}

/// Renders a case of [`cases`]: its pages (text, entities decoded), and
/// the findings of `check --json`.
fn render_case(name: &str) -> (Vec<String>, Vec<Value>, String) {
    let case = cases().into_iter().find(|c| c.name == name).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let input = write_case(tmp.path(), &case);
    let site = tmp.path().join("site");
    let out = cctree().args(["render", "-o"]).arg(&site).arg(&input).output().unwrap();
    assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let pages = listing(&site)
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "html"))
        .map(|p| unescape(&std::fs::read_to_string(p).unwrap()))
        .collect();
    let check = cctree().args(["check", "--json"]).arg(&input).output().unwrap();
    let v: Value = serde_json::from_slice(&check.stdout).unwrap();
    (pages, v["findings"].as_array().unwrap().clone(), stderr)
}

/// The page that shows `text`.
fn page_with<'a>(pages: &'a [String], text: &str) -> &'a str {
    pages.iter().find(|p| p.contains(text)).unwrap_or_else(|| panic!("no page shows {text:?}"))
}

/// A line nested 127 levels deep or more was read but shown `[no content]`,
/// and the tool results paired with it vanished, without a warning: the
/// message is shown with its result, the deep part as its JSON text.
#[test]
fn deeply_nested_lines_keep_their_content_and_tool_results() {
    let (pages, findings, stderr) = render_case("deep_nesting");
    let page = page_with(&pages, "The call before the tool");
    assert!(page.contains("The paired tool output"), "the tool result vanished");
    assert!(page.contains("Input beside the deep part") && page.contains("Deep in the input"));
    assert!(!page.contains("[no content]"));
    assert!(findings.is_empty(), "{findings:?}");
    assert!(stderr.contains(" 0 warnings"), "{stderr}");
}

/// A number out of range (`1e400`, Infinity to JavaScript) blanked its
/// message; in a field cctree reads (`isSidechain`, `usage`) it made the
/// line unreadable: the line is read, the number shown as written.
#[test]
fn numbers_out_of_range_are_read_and_shown() {
    let (pages, findings, _) = render_case("numbers_out_of_range");
    let page = page_with(&pages, "The call before the tool");
    assert!(page.contains("The paired tool output") && page.contains("The reply after the tool"));
    assert!(page.contains("1e+400") && page.contains("123456789012345678901234567890"), "the numbers are not shown");
    assert!(findings.is_empty(), "{findings:?}");
}

/// A line with a duplicate key was skipped as malformed; JavaScript reads
/// it, the last value winning: so does cctree (in the header it reads —
/// the `parentUuid` — and in what it shows).
#[test]
fn duplicate_keys_are_read_last_value_wins() {
    let (pages, findings, _) = render_case("duplicate_keys");
    let page = page_with(&pages, "The last value of the key wins");
    assert!(page.contains("A reply whose text key is repeated"));
    assert!(
        !pages.iter().any(|p| p.contains("An earlier value of the key") || p.contains("A reply whose content key"))
    );
    // No malformed line, and `a2` hangs from `u2` (the last parentUuid), not from `nowhere`.
    assert!(findings.is_empty(), "{findings:?}");
}

/// A tool call shows what its result's `toolUseResult` holds as the client
/// reads it, reading only that part of the line: the last of duplicate
/// keys, nothing for a value of another type, huge numbers and deep parts
/// beside it harmless.
#[test]
fn tool_results_show_the_last_value_of_a_duplicate_key() {
    let (pages, findings, stderr) = render_case("tool_use_results_as_the_client_reads_them");
    let page = page_with(&pages, "The calls before the results");
    for shown in ["The last stdout wins", "The last file wins", "#8 Write tests", "The reply after the results"] {
        assert!(page.contains(shown), "{shown} is not shown");
    }
    for earlier in ["An earlier stdout", "An earlier file", "#7"] {
        assert!(!pages.iter().any(|p| p.contains(earlier)), "{earlier} is shown");
    }
    assert!(!page.contains("Interrupted."), "1e400 is not `true`");
    assert!(findings.is_empty(), "{findings:?}");
    assert!(stderr.contains(" 0 warnings"), "{stderr}");
}

/// 1,000,000 prompts under one answer (rewinds) did not finish in 6
/// minutes (10k 0.3 s, 100k 9.5 s, 300k 82 s: quadratic). Read in linear
/// time, they are one fork point of a million branches, each ending at its
/// prompt. (Speed is a `scripts/bench.sh` figure; this is the shape.)
#[test]
fn a_million_prompts_under_one_parent_are_one_fork_of_a_million_branches() {
    use std::io::Write;
    const N: usize = 1_000_000;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("-rewinds");
    std::fs::create_dir_all(&dir).unwrap();
    let mut w = std::io::BufWriter::new(std::fs::File::create(dir.join("rewinds.jsonl")).unwrap());
    writeln!(w, r#"{{"type":"user","uuid":"root","parentUuid":null,"sessionId":"s","timestamp":"{}","message":{{"role":"user","content":"Start"}}}}"#, ts(0)).unwrap();
    writeln!(w, r#"{{"type":"assistant","uuid":"answer","parentUuid":"root","sessionId":"s","timestamp":"{}","message":{{"id":"m0","role":"assistant","content":[{{"type":"text","text":"Ask again"}}]}}}}"#, ts(1)).unwrap();
    for i in 0..N {
        writeln!(w, r#"{{"type":"user","uuid":"p{i}","parentUuid":"answer","sessionId":"s","timestamp":"{}","message":{{"role":"user","content":"Rewind {i}"}}}}"#, ts(2 + i as u64 / 1000)).unwrap();
    }
    w.into_inner().unwrap().sync_all().unwrap();
    let out = cctree().args(["stats", "--json"]).arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["nodes"], N + 2);
    assert_eq!(v["conversations"], 1);
    assert_eq!(v["fork_points"], 1);
    assert_eq!(v["branches"], N);
    assert_eq!(v["leaves"], N);
}

/// Forks nested `levels` deep: under each answer a
/// short prompt first (it keeps the branch), then the prompt that goes on
/// (a branch of its own, holding the next fork).
pub fn nested_forks(dir: &Path, levels: usize) -> String {
    use std::io::Write;
    let sid = "5e55ed00-0000-4000-8000-000000000000";
    let mut w = std::io::BufWriter::new(std::fs::File::create(dir.join(format!("{sid}.jsonl"))).unwrap());
    let uuid = |kind: u32, n: usize| format!("{kind:08x}-0000-4000-8000-{n:012x}");
    for i in 0..levels {
        let parent = if i == 0 { "null".to_string() } else { format!("\"{}\"", uuid(2, i - 1)) };
        let t = |k: usize| ts((3 * i + k) as u64);
        let (p, a, side) = (uuid(1, i), uuid(2, i), uuid(3, i));
        writeln!(w, r#"{{"type":"user","uuid":"{p}","parentUuid":{parent},"sessionId":"{sid}","timestamp":"{}","message":{{"role":"user","content":"Level {i}"}}}}"#, t(0)).unwrap();
        writeln!(w, r#"{{"type":"assistant","uuid":"{a}","parentUuid":"{p}","sessionId":"{sid}","timestamp":"{}","message":{{"id":"msg_{i}","role":"assistant","model":"claude","content":[{{"type":"text","text":"Level {i} done"}}]}}}}"#, t(1)).unwrap();
        writeln!(w, r#"{{"type":"user","uuid":"{side}","parentUuid":"{a}","sessionId":"{sid}","timestamp":"{}","message":{{"role":"user","content":"Side {i}"}}}}"#, t(2)).unwrap();
    }
    sid.to_string()
}

/// Forks nested about 5,000 deep aborted `render`
/// (`fatal runtime error: stack overflow`, exit 134: the fork-point index
/// was built by recursion), `export` at 20,000. At 100,000 levels `stats`
/// and `check` read every level.
#[test]
fn forks_nested_100000_deep_are_read_without_recursion() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("-nested");
    std::fs::create_dir_all(&dir).unwrap();
    nested_forks(&dir, 100_000);
    let out = cctree().args(["stats", "--json"]).arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["nodes"], 300_000);
    assert_eq!(v["fork_points"], 99_999, "{v}");
    assert_eq!(v["branches"], 100_000, "{v}");
    let out = cctree().arg("check").arg(&dir).output().unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Deep forks on pages: `render` and `export` (HTML and Markdown)
/// of forks nested 4,000 deep, run with stacks of 256 KB for every thread
/// cctree starts and 512 KB for the main thread: the depth a recursion could
/// reach is 32 (16) times less than with the usual 8 MB, so this stands for
/// 128,000 (64,000) levels at the usual size, at the cost of rendering 4,000
/// branch pages. The main thread gets more because the debug build's command
/// line parsing alone takes about 250 KB there (`cctree --version` overflows
/// 248 KB, whatever the input; the release build's fits in 64 KB): at 256 KB
/// the test failed or passed with the size of the environment. The
/// fork-point index names every level.
#[test]
fn forks_nested_deep_render_and_export_with_small_stacks() {
    let tmp = tempfile::tempdir().unwrap();
    let projects = tmp.path().join("projects");
    let dir = projects.join("-nested");
    std::fs::create_dir_all(&dir).unwrap();
    let sid = nested_forks(&dir, 4_000);
    let bin = std::env::var_os("CCTREE_TEST_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_cctree").into());
    let run = |args: &str| {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -s 512 && exec \"$0\" -q {args}"))
            .arg(&bin)
            .env("RUST_MIN_STACK", "262144")
            .current_dir(tmp.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{args}: {:?} {}", out.status, String::from_utf8_lossy(&out.stderr));
    };
    run("render projects -o site");
    run(&format!("export {sid} --projects projects -o one.html"));
    run(&format!("export {sid} --projects projects -o one.md"));
    let page =
        std::fs::read_to_string(tmp.path().join("site/-nested/c/00000001-0000-4000-8000-000000000000/index.html"))
            .or_else(|_| {
                // The conversation page, wherever its root's uuid puts it.
                let c = tmp.path().join("site/-nested/c");
                let first = std::fs::read_dir(&c)?.next().ok_or(std::io::ErrorKind::NotFound)??;
                std::fs::read_to_string(first.path().join("index.html"))
            })
            .unwrap();
    assert!(page.contains("Side 3999") || page.contains("Level 3999"), "the deepest fork is in the index");
    let html = std::fs::read_to_string(tmp.path().join("one.html")).unwrap();
    assert!(html.contains("Level 3999 done"));
    let md = std::fs::read_to_string(tmp.path().join("one.md")).unwrap();
    assert!(md.contains("Level 3999 done"));
}

/// A page keeps only the entries it read last (`limits::PAGE_NODES` in
/// each of two generations, the rest dropped): a reply of more parallel
/// calls than that, each result written after every call, so that a call
/// and its result are read thousands of entries apart. Each call shows its
/// own output, in order, and nothing is warned.
#[test]
fn a_reply_of_more_parallel_calls_than_a_page_keeps_shows_each_calls_own_result() {
    use std::io::Write;
    let n = 10_000;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("projects").join("-parallel");
    std::fs::create_dir_all(&dir).unwrap();
    let mut w = std::io::BufWriter::new(std::fs::File::create(dir.join("s1.jsonl")).unwrap());
    w.write_all(&line(user("u0", None, 0, "Run them all at once"))).unwrap();
    let mut parent = "u0".to_string();
    for i in 0..n {
        let call = format!("c{i}");
        w.write_all(&line(json!({"type":"assistant","uuid":call,"parentUuid":parent,"sessionId":"s1","timestamp":ts(1),"cwd":"/tmp/x",
            "message":{"id":"msg_all","role":"assistant","model":"claude-sonnet-4-5",
                "content":[{"type":"tool_use","id":format!("toolu_{i}"),"name":"Bash","input":{"command":format!("echo Qq{i}qQ")}}]}})))
            .unwrap();
        parent = call;
    }
    for i in 0..n {
        let result = format!("r{i}");
        w.write_all(&line(json!({"type":"user","uuid":result,"parentUuid":parent,"sessionId":"s1","timestamp":ts(2),"cwd":"/tmp/x",
            "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":format!("toolu_{i}"),"content":format!("Rr{i}rR")}]}})))
            .unwrap();
        parent = result;
    }
    w.into_inner().unwrap().sync_all().unwrap();
    let site = tmp.path().join("site");
    let out = cctree().args(["render", "-o"]).arg(&site).arg(tmp.path().join("projects")).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains(" 0 warnings"), "{stderr}");
    let pages: Vec<String> = listing(&site)
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "html"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let page = pages.iter().find(|p| p.contains("Qq0qQ")).expect("no page shows the calls");
    // The markers in the page's order, a repeat of the one before dropped
    // (a call's command may show twice): each call, then its own output.
    let mut seen: Vec<(u8, usize)> = Vec::new();
    let bytes = page.as_bytes();
    for (at, _) in page.match_indices(['Q', 'R']) {
        let (kind, close) = match &bytes[at..] {
            [b'Q', b'q', ..] => (b'Q', "qQ"),
            [b'R', b'r', ..] => (b'R', "rR"),
            _ => continue,
        };
        let digits: String = page[at + 2..].chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() || !page[at + 2 + digits.len()..].starts_with(close) {
            continue;
        }
        let marker = (kind, digits.parse::<usize>().unwrap());
        if seen.last() != Some(&marker) {
            seen.push(marker);
        }
    }
    let want: Vec<(u8, usize)> = (0..n).flat_map(|i| [(b'Q', i), (b'R', i)]).collect();
    let first_wrong = seen.iter().zip(&want).position(|(a, b)| a != b);
    assert!(seen == want, "{} markers, {} wanted; first out of place at {first_wrong:?}", seen.len(), want.len());
}

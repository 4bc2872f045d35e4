//! Hostile input, round four: each defect found, as an archive of
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

/// The keys whose strings are structure, not text: ids, kinds, times.
fn structural(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    k.ends_with("id")
        || k.ends_with("uuid")
        || k.starts_with('$')
        || [
            "type",
            "role",
            "subtype",
            "timestamp",
            "starttime",
            "lastupdated",
            "updated_at",
            "status",
            "kind",
            "projecthash",
        ]
        .contains(&k.as_str())
}

/// A GitHub token `--redact` knows, numbered: the number says which field
/// leaked.
fn planted(n: usize) -> String {
    format!("ghp_PLANTED{n:05}{}", "q".repeat(30))
}

/// Appends a numbered token to every text string of `v`, recording where.
fn plant(v: &mut Value, key: &str, fields: &mut Vec<String>, at: &str) {
    match v {
        Value::String(s) if !structural(key) => {
            fields.push(format!("{at} {key}"));
            s.push(' ');
            s.push_str(&planted(fields.len() - 1));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| plant(x, key, fields, at)),
        Value::Object(o) => o.iter_mut().for_each(|(k, x)| plant(x, k, fields, at)),
        _ => {}
    }
}

/// Copies `from` to `to`, every text field of every JSON line or document
/// planted.
fn copy_planted(from: &Path, to: &Path, fields: &mut Vec<String>) {
    for e in walkdir::WalkDir::new(from).into_iter().flatten().filter(|e| e.file_type().is_file()) {
        let rel = e.path().strip_prefix(from).unwrap();
        let dest = to.join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        let at = rel.display().to_string();
        let planted: Option<String> = match e.path().extension().and_then(|x| x.to_str()) {
            Some("jsonl") => Some(
                text.lines()
                    .map(|l| match serde_json::from_str::<Value>(l) {
                        Ok(mut v) => {
                            plant(&mut v, "", fields, &at);
                            format!("{v}\n")
                        }
                        Err(_) => format!("{l}\n"),
                    })
                    .collect(),
            ),
            Some("json") => serde_json::from_str::<Value>(&text).ok().map(|mut v| {
                plant(&mut v, "", fields, &at);
                v.to_string()
            }),
            _ => None,
        };
        match planted {
            Some(t) => std::fs::write(&dest, t).unwrap(),
            None => {
                std::fs::copy(e.path(), &dest).unwrap();
            }
        }
    }
}

/// Every file under `dir`, `(path, text)`.
fn texts(dir: &Path) -> Vec<(String, String)> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (e.path().display().to_string(), String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned())
        })
        .collect()
}

/// Where a planted token or the home directory shows in `files`.
fn leaks(files: &[(String, String)], fields: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (path, text) in files {
        for (i, _) in text.match_indices("PLANTED") {
            let n: usize = text[i + 7..].chars().take(5).collect::<String>().parse().unwrap_or(usize::MAX);
            out.push(format!("{path}: {}", fields.get(n).map_or("?", String::as_str)));
        }
        if text.contains("plantuser") {
            out.push(format!("{path}: the home directory"));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Appends a numbered token to every text line of a flat YAML file
/// (Copilot CLI's `workspace.yaml`) or a plain text file (Markdown).
fn plant_text(text: &str, yaml: bool, fields: &mut Vec<String>, at: &str) -> String {
    let mut out = String::new();
    for l in text.lines() {
        match yaml.then(|| l.split_once(": ")).flatten() {
            Some((k, v))
                if !structural(k)
                    && !k.ends_with("_at")
                    && v.parse::<f64>().is_err()
                    && v != "true"
                    && v != "false" =>
            {
                fields.push(format!("{at} {k}"));
                out.push_str(&format!("{l} {}\n", planted(fields.len() - 1)));
            }
            _ if yaml => out.push_str(&format!("{l}\n")),
            _ => {
                fields.push(format!("{at} text"));
                out.push_str(&format!("{l} {}\n", planted(fields.len() - 1)));
            }
        }
    }
    out
}

/// Plants a token in every text column of every table of the SQLite
/// database `db` (in every string of a column holding JSON).
fn plant_database(db: &Path, fields: &mut Vec<String>) {
    let c = rusqlite::Connection::open(db).unwrap();
    let tables: Vec<String> = c
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .flatten()
        .collect();
    for t in tables.iter().filter(|t| !t.contains("migration") && !t.contains("goose")) {
        let mut q = c.prepare(&format!("SELECT rowid, * FROM \"{t}\"")).unwrap();
        let cols: Vec<String> = q.column_names().iter().map(|c| c.to_string()).collect();
        let rows: Vec<Vec<rusqlite::types::Value>> = q
            .query_map([], |r| (0..cols.len()).map(|i| r.get::<_, rusqlite::types::Value>(i)).collect())
            .unwrap()
            .flatten()
            .collect();
        for row in rows {
            let rusqlite::types::Value::Integer(rowid) = row[0] else { continue };
            for (col, v) in cols.iter().zip(&row).skip(1) {
                let rusqlite::types::Value::Text(text) = v else { continue };
                let at = format!("{} {t}.{col}", db.display());
                let planted = match serde_json::from_str::<Value>(text) {
                    Ok(mut j @ (Value::Object(_) | Value::Array(_))) => {
                        plant(&mut j, "", fields, &at);
                        j.to_string()
                    }
                    _ if structural(col) || col.ends_with("_at") || text.is_empty() => continue,
                    _ => {
                        fields.push(at);
                        format!("{text} {}", planted(fields.len() - 1))
                    }
                };
                c.execute(
                    &format!("UPDATE \"{t}\" SET \"{col}\" = ?1 WHERE rowid = ?2"),
                    rusqlite::params![planted, rowid],
                )
                .unwrap();
            }
        }
    }
}

/// Copies every file under `from` to `to`, planted: JSON lines and
/// documents, YAML, Markdown, SQLite databases.
fn copy_planted_all(from: &Path, to: &Path, fields: &mut Vec<String>) {
    copy_planted(from, to, fields);
    for e in walkdir::WalkDir::new(to).into_iter().flatten().filter(|e| e.file_type().is_file()) {
        let at = e.path().display().to_string();
        match e.path().extension().and_then(|x| x.to_str()) {
            Some(x @ ("yaml" | "md")) => {
                let t = plant_text(&std::fs::read_to_string(e.path()).unwrap(), x == "yaml", fields, &at);
                std::fs::write(e.path(), t).unwrap();
            }
            Some("db") => plant_database(e.path(), fields),
            _ => {}
        }
    }
}

/// The folder of `agent` (its registered name) under `root`, its
/// transcripts taken from the fixtures and every text field planted; the
/// session files `export` takes. An agent registered without a planted
/// archive here fails the test: add one.
fn planted_agent(agent: &str, root: &Path, fx: &Path, fields: &mut Vec<String>) -> (PathBuf, Vec<PathBuf>) {
    let files = |dir: &Path, keep: &dyn Fn(&Path) -> bool| -> Vec<PathBuf> {
        walkdir::WalkDir::new(dir)
            .into_iter()
            .flatten()
            .map(|e| e.into_path())
            .filter(|p| p.is_file() && keep(p))
            .collect()
    };
    let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
    match agent {
        "claude" => {
            let claude = root.join("claude/projects");
            for scenario in ["tui", "compact"] {
                let from = fx.join("client-2.1.332").join(scenario).join("projects");
                for project in std::fs::read_dir(&from).unwrap().flatten() {
                    copy_planted(&project.path(), &claude.join(format!("-home-plantuser-{scenario}")), fields);
                }
            }
            let sessions =
                files(&claude, &|p| p.parent().unwrap().parent() == Some(&claude) && name(p).ends_with(".jsonl"));
            (claude, sessions)
        }
        "codex" => {
            let codex = root.join("codex");
            copy_planted(&fx.join("codex-0.171.0/tui"), &codex, fields);
            let sessions = files(&codex, &|p| name(p).starts_with("rollout-"));
            (codex.join("sessions"), sessions)
        }
        "gemini" => {
            let gemini = root.join("gemini/tmp");
            copy_planted(&fx.join("gemini-0.61.0/tui/tmp"), &gemini, fields);
            copy_planted(&fx.join("gemini-json/tmp/work"), &gemini.join("older"), fields);
            for p in [gemini.join("work/.project_root"), gemini.join("older/.project_root")] {
                std::fs::write(p, "/home/plantuser/work").unwrap();
            }
            let sessions = files(&gemini, &|p| name(p).starts_with("session-"));
            (gemini, sessions)
        }
        "qwen" => {
            let qwen = root.join("qwen");
            for scenario in ["headless", "sub-agent", "compress", "rewind"] {
                copy_planted_all(
                    &fx.join("qwen-0.24.4").join(scenario).join("projects"),
                    &qwen.join("projects"),
                    fields,
                );
            }
            let sessions = files(&qwen, &|p| p.parent().unwrap().ends_with("chats") && name(p).ends_with(".jsonl"));
            (qwen, sessions)
        }
        "copilot" => {
            let copilot = root.join("copilot/.copilot");
            for scenario in ["tui", "fork"] {
                copy_planted_all(&fx.join("copilot-1.0.102").join(scenario).join("home/.copilot"), &copilot, fields);
            }
            // Not exported by file: a fork copies its history's events, and
            // planted with other tokens the copies differ, so a file's last
            // event names two conversations (unplanted, the file exports).
            (copilot, Vec::new())
        }
        "opencode" => {
            let opencode = root.join("opencode");
            copy_planted_all(&fx.join("opencode-1.18.33/tui"), &opencode, fields);
            (opencode, Vec::new())
        }
        "crush" => {
            let project = root.join("src/demo");
            copy_planted_all(&fx.join("crush-sqlite/project/.crush"), &project.join(".crush"), fields);
            let data = root.join("crush-data");
            std::fs::create_dir_all(&data).unwrap();
            let list = json!({"projects": [{"path": project.display().to_string(),
                "data_dir": project.join(".crush").display().to_string(), "last_accessed": "2026-08-21T10:00:00Z"}]});
            std::fs::write(data.join("projects.json"), list.to_string()).unwrap();
            (data, Vec::new())
        }
        "pi" => {
            let pi = root.join("pi/agent");
            for scenario in ["tree", "subagent", "compact", "content", "custom", "summary"] {
                copy_planted_all(&fx.join("pi-1.6.0").join(scenario).join("sessions"), &pi.join("sessions"), fields);
            }
            let sessions = files(&pi, &|p| {
                p.parent().unwrap().parent() == Some(&pi.join("sessions")) && name(p).ends_with(".jsonl")
            });
            (pi.join("sessions"), sessions)
        }
        "aider" => {
            // Its Markdown history and input history, a token on every line
            // of text (not on a run's heading, whose time starts the run,
            // nor on a fence, nor on the input history's time lines).
            let work = root.join("aider/home/plantuser/work");
            std::fs::create_dir_all(&work).unwrap();
            let from = fx.join("aider-0.86.2/runs");
            for file in [".aider.chat.history.md", ".aider.input.history"] {
                let text = std::fs::read_to_string(from.join(file)).unwrap();
                let mut out = String::new();
                for l in text.lines() {
                    let skip = l.trim().is_empty()
                        || l.starts_with("# aider chat started at")
                        || l.trim_start().starts_with("```")
                        || (file == ".aider.input.history" && l.starts_with('#'));
                    if skip {
                        out.push_str(&format!("{l}\n"));
                    } else {
                        out.push_str(&plant_text(l, false, fields, file));
                    }
                }
                std::fs::write(work.join(file), out).unwrap();
            }
            (work.clone(), vec![work.join(".aider.chat.history.md")])
        }
        other => panic!("no planted archive for the agent {other}: add one to `planted_agent`"),
    }
}

/// Point 2–4: every text field of every registered agent's transcripts and
/// side files (Codex thread names, Gemini `.project_root`, Copilot's
/// `workspace.yaml`, every text column of OpenCode's and Crush's
/// databases, a home directory in working directories and folder names)
/// planted with a token `--redact` knows: no file `render --redact` writes
/// (pages, search index, cache manifest), `export --redact` (HTML and
/// Markdown) nor a page `serve --redact` answers holds it.
#[test]
fn a_token_planted_in_every_text_field_of_every_agent_is_in_no_output() {
    let root = tempfile::tempdir().unwrap();
    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut fields = Vec::new();
    let mut inputs = Vec::new();
    let mut sessions = Vec::new();
    let mut planted_by = Vec::new();
    for agent in cctree::agent::ALL {
        let before = fields.len();
        let (input, files) = planted_agent(agent.name(), root.path(), &fx, &mut fields);
        assert!(fields.len() > before + 20, "{}: {} fields planted", agent.name(), fields.len() - before);
        planted_by.push((agent.name(), before..fields.len()));
        inputs.push(input);
        sessions.extend(files);
    }
    let home = root.path().join("home");
    let env = |cmd: &mut std::process::Command| {
        cmd.env("HOME", &home).env("USER", "plantuser").env("CCTREE_ARCHIVE", root.path().join("none"));
    };
    let run = |cmd: &mut std::process::Command| {
        env(cmd);
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    // Without --redact the tokens show: each agent's planted fields reach the pages.
    let plain = root.path().join("plain");
    run(cctree().arg("render").args(&inputs).arg("-o").arg(&plain).arg("-q"));
    let shown = leaks(&texts(&plain), &fields);
    for (agent, range) in &planted_by {
        let n = fields[range.clone()].iter().filter(|f| shown.iter().any(|l| l.ends_with(&format!(": {f}")))).count();
        assert!(n >= 5, "{agent}: {n} planted fields shown without --redact");
    }
    let site = root.path().join("site");
    run(cctree().arg("render").args(&inputs).arg("-o").arg(&site).args(["-q", "--redact"]));
    assert!(site.join(".cctree-cache").exists(), "the cache manifest is checked too");
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    for agent in cctree::agent::ALL {
        let label = cctree::agent::of(*agent).label();
        assert!(index.contains(label), "{label}'s projects rendered");
    }
    let mut files = texts(&site);
    let exports = root.path().join("exports");
    std::fs::create_dir_all(&exports).unwrap();
    assert!(sessions.len() >= 12, "{sessions:?}");
    let mut refused = Vec::new();
    for (i, s) in sessions.iter().enumerate() {
        for ext in ["html", "md"] {
            let out = exports.join(format!("{i}.{ext}"));
            let mut cmd = cctree();
            cmd.arg("export").arg(s).arg("-o").arg(&out).args(["-q", "--redact"]);
            env(&mut cmd);
            let o = cmd.output().unwrap();
            if !o.status.success() {
                refused.push(format!("{}: {}", s.display(), String::from_utf8_lossy(&o.stderr)));
            }
        }
    }
    files.extend(texts(&exports));
    let served = root.path().join("served");
    let mut args: Vec<&std::ffi::OsStr> = inputs.iter().map(|p| p.as_os_str()).collect();
    args.extend(["-o".as_ref(), served.as_os_str(), "--redact".as_ref()]);
    let server = crate::serve::Server::start(
        &args,
        &[("HOME", &home), ("USER", Path::new("plantuser")), ("CCTREE_ARCHIVE", &root.path().join("none"))],
    );
    let pages: Vec<String> = texts(&served)
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| p.ends_with(".html") || p.ends_with(".js"))
        .map(|p| p[served.display().to_string().len()..].to_string())
        .collect();
    assert!(pages.len() > 10, "{pages:?}");
    for page in &pages {
        let r = server.get(page);
        assert_eq!(r.status, 200, "{page}");
        files.push((format!("served {page}"), r.text()));
    }
    assert!(fields.len() > 500, "{} fields planted", fields.len());
    let found = leaks(&files, &fields);
    assert!(found.is_empty(), "{} leaks:\n{}", found.len(), found.join("\n"));
    assert!(refused.is_empty(), "export of a session file refused:\n{}", refused.join("\n"));
}

/// Every file under `dir`: relative path → bytes.
fn tree(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().strip_prefix(dir).unwrap().display().to_string(), std::fs::read(e.path()).unwrap()))
        .collect()
}

fn copy_tree(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from).into_iter().flatten() {
        let dst = to.join(e.path().strip_prefix(from).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dst).unwrap();
        } else {
            std::fs::copy(e.path(), &dst).unwrap();
        }
    }
}

/// A home with Codex's and Gemini's folders, and the commands run in it
/// (no `CCTREE_ARCHIVE`: the default archive is in its data folder).
struct Clients {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Clients {
    fn new() -> Clients {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        copy_tree(&fx.join("codex-0.171.0/exec"), &root.join("codex"));
        copy_tree(&fx.join("gemini-0.61.0/headless"), &root.join("home/.gemini"));
        Clients { _tmp: tmp, root }
    }
    fn cmd(&self) -> std::process::Command {
        let mut c = cctree();
        c.env("HOME", self.root.join("home"))
            .env("CLAUDE_CONFIG_DIR", self.root.join("no-claude"))
            .env("CODEX_HOME", self.root.join("codex"))
            .env("GEMINI_CLI_HOME", self.root.join("home"))
            .env("XDG_DATA_HOME", self.root.join("data"))
            .env_remove("CCTREE_ARCHIVE");
        c
    }
    /// `cctree fork FILE --json`: the new session's path.
    fn fork(&self, file: &Path) -> PathBuf {
        let o = self.cmd().args(["fork", "--json"]).arg(file).output().unwrap();
        assert!(o.status.success(), "fork {}: {}", file.display(), String::from_utf8_lossy(&o.stderr));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        PathBuf::from(v["path"].as_str().unwrap())
    }
}

fn first(dir: &Path, prefix: &str) -> PathBuf {
    let mut v: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .map(|e| e.into_path())
        .filter(|p| p.is_file() && p.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .collect();
    v.sort();
    v.remove(0)
}

/// Point 5: a fork of a Codex rollout or a Gemini session of an archive
/// `sync --to DIR` keeps elsewhere goes into the client's folder, and the
/// archive is not written.
#[test]
fn a_fork_from_an_archive_kept_elsewhere_goes_into_the_clients_folder() {
    let c = Clients::new();
    let arch = c.root.join("elsewhere/arch");
    let o = c.cmd().arg("sync").arg("--to").arg(&arch).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let kept = c.root.join("elsewhere");
    let before = tree(&kept);
    let rollout = first(&kept.join("codex/sessions"), "rollout-");
    let session = first(&kept.join("gemini/tmp"), "session-");
    let new_codex = c.fork(&rollout);
    let new_gemini = c.fork(&session);
    assert_eq!(tree(&kept), before, "the archive is written");
    assert!(new_codex.starts_with(c.root.join("codex/sessions")), "{}", new_codex.display());
    assert!(new_gemini.starts_with(c.root.join("home/.gemini/tmp")), "{}", new_gemini.display());
    assert!(new_codex.is_file() && new_gemini.is_file());
}

/// Point 6: a fork of a Codex rollout lying outside a dated sessions tree
/// goes into `$CODEX_HOME/sessions/YYYY/MM/DD`, where `codex resume` looks.
#[test]
fn a_fork_of_a_loose_codex_rollout_goes_where_codex_resume_looks() {
    let c = Clients::new();
    let loose = c.root.join("loose");
    std::fs::create_dir_all(&loose).unwrap();
    let from = first(&c.root.join("codex/sessions"), "rollout-");
    let rollout = loose.join(from.file_name().unwrap());
    std::fs::copy(&from, &rollout).unwrap();
    let new = c.fork(&rollout);
    assert_eq!(tree(&loose).len(), 1, "nothing written beside the loose rollout");
    let rel = new.strip_prefix(c.root.join("codex/sessions")).unwrap_or_else(|_| panic!("{}", new.display()));
    let dated: Vec<String> = rel.iter().take(3).map(|s| s.to_string_lossy().into_owned()).collect();
    assert!(dated.iter().all(|d| d.bytes().all(|b| b.is_ascii_digit())), "{}", new.display());
}

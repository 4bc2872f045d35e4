//! Hostile archives of every agent from a stream of bytes: each byte picks a
//! record shape of one agent's vocabulary (Claude Code lines, Codex rollout
//! lines and thread names, Gemini record lines, `$set`/`$rewindTo` updates and
//! `.json` sessions) and its fields from a tiny alphabet, so ids connect,
//! collide and loop and timestamps go missing, numeric or garbage; now and
//! then a line is cut short or replaced by noise. Shared by the fuzz target
//! `agent_archive` (fuzz/) and the suite's generator test (`hostile`).

use serde_json::{Value, json};

/// The fuzzer's bytes, read one at a time (zeros once they run out).
pub struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data, at: 0 }
    }
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }
    fn left(&self) -> bool {
        self.at < self.data.len()
    }
    fn pick<T: Clone>(&mut self, from: &[T]) -> T {
        from[self.byte() as usize % from.len()].clone()
    }
}

/// The files of one archive: `(path under the root, bytes)`.
pub struct Archive {
    pub files: Vec<(String, Vec<u8>)>,
}

/// The folders to give `cctree` (relative to the root).
pub const INPUTS: [&str; 3] = ["claude/projects", "codex/sessions", "gemini/tmp"];

const CODEX_IDS: [&str; 3] = [
    "01a21ab7-bd11-74a1-a3fe-d6c193d582cd",
    "01a21ab7-84c8-74a2-8e44-0203dfa81c12",
    "01a21ab7-0000-7000-8000-000000000003",
];

fn stamp(b: &mut Bytes<'_>) -> Option<Value> {
    match b.byte() % 8 {
        0 => None,
        1 => Some(json!(12)),
        2 => Some(json!("garbage")),
        3 => Some(json!(1e300)),
        4 => Some(json!("")),
        n => Some(json!(format!("2026-11-27T01:{:02}:{:02}.{:03}Z", n * 7 % 60, b.byte() % 60, b.byte()))),
    }
}

fn with_stamp(b: &mut Bytes<'_>, mut v: Value, key: &str) -> Value {
    if let Some(t) = stamp(b) {
        v[key] = t;
    }
    v
}

fn id(b: &mut Bytes<'_>, prefix: &str) -> String {
    format!("{prefix}{}", b.byte() % 6)
}

fn text(b: &mut Bytes<'_>) -> String {
    b.pick(&[
        "typed prompt",
        "",
        "<command-name>/cost</command-name>",
        "a reply **bold**",
        "[Request interrupted by user]",
    ])
    .to_string()
}

fn claude_line(b: &mut Bytes<'_>) -> Value {
    let uuid = id(b, "u");
    let parent = if b.byte() % 4 == 0 { Value::Null } else { json!(id(b, "u")) };
    let session = id(b, "s");
    let flags = b.byte();
    let content = match b.byte() % 6 {
        0 => json!(text(b)),
        1 => json!([{"type":"tool_use","id":id(b, "t"),"name":"Bash","input":{"command":"ls"}}]),
        2 => json!([{"type":"tool_result","tool_use_id":id(b, "t"),"content":"out"}]),
        3 => json!([{"type":"text","text":text(b)},{"type":"thinking","thinking":"hm"}]),
        4 => json!([{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]),
        _ => json!(null),
    };
    let v = match b.byte() % 9 {
        0 | 1 => json!({"type":"user","message":{"role":"user","content":content}}),
        2 | 3 => {
            json!({"type":"assistant","message":{"id":id(b, "m"),"role":"assistant","model":"claude","content":content}})
        }
        4 => json!({"type":"system","subtype":"compact_boundary","logicalParentUuid":id(b, "u"),
            "content":"Conversation compacted","compactMetadata":{"trigger":"manual","preTokens":10,
            "preservedSegment":{"headUuid":id(b, "u"),"tailUuid":id(b, "u"),"anchorUuid":id(b, "u")}}}),
        5 => json!({"type":"user","isCompactSummary":true,"message":{"role":"user","content":"summary"}}),
        6 => json!({"type":"summary","summary":"a title","leafUuid":id(b, "u")}),
        7 => json!({"type":"custom-title","customTitle":"named","sessionId":session}),
        _ => json!({"type":"system","subtype":"microcompact_boundary"}),
    };
    let mut v = with_stamp(b, v, "timestamp");
    if v["type"] != "summary" && v["type"] != "custom-title" {
        v["uuid"] = json!(uuid);
        v["parentUuid"] = parent;
        v["sessionId"] = json!(session);
        v["isSidechain"] = json!(flags & 1 != 0);
        if flags & 2 != 0 {
            v["agentId"] = json!("a1");
        }
        v["cwd"] = json!("/tmp/x");
    }
    v
}

fn codex_item(b: &mut Bytes<'_>) -> Value {
    match b.byte() % 7 {
        0 => json!({"type":"message","role":"user","content":[{"type":"input_text","text":text(b)}]}),
        1 => json!({"type":"message","role":"assistant","content":[{"type":"output_text","text":text(b)}]}),
        2 => json!({"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":id(b, "c")}),
        3 => json!({"type":"function_call_output","call_id":id(b, "c"),"output":"out"}),
        4 => json!({"type":"reasoning","summary":[{"type":"summary_text","text":"thinking"}]}),
        5 => json!({"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch","call_id":id(b, "c")}),
        _ => json!({"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions>"}]}),
    }
}

fn codex_line(b: &mut Bytes<'_>, thread: usize) -> Value {
    let v = match b.byte() % 10 {
        0 => {
            let mut p = json!({"id":CODEX_IDS[thread],"cwd":"/tmp/w","cli_version":"0.171.0"});
            if b.byte() % 3 == 0 {
                p["forked_from_id"] = json!(b.pick(&CODEX_IDS));
            }
            if let Some(t) = stamp(b) {
                p["timestamp"] = t;
            }
            json!({"type":"session_meta","payload":p})
        }
        1 => json!({"type":"turn_context","payload":{"cwd":"/tmp/w","model":"gpt"}}),
        2..=5 => json!({"type":"response_item","payload":codex_item(b)}),
        6 => {
            let kept: Vec<Value> = (0..b.byte() % 3).map(|_| codex_item(b)).collect();
            json!({"type":"compacted","payload":{"message":"the summary","replacement_history":kept}})
        }
        7 => json!({"type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":b.byte() % 4}}),
        8 => {
            json!({"type":"event_msg","payload":{"type":b.pick(&["task_started","task_complete","turn_aborted","user_message","agent_message"]),"message":"m"}})
        }
        _ => {
            json!({"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":b.byte(),"output_tokens":1}}}})
        }
    };
    with_stamp(b, v, "timestamp")
}

fn gemini_message(b: &mut Bytes<'_>) -> Value {
    let mut v = match b.byte() % 6 {
        0 | 1 => json!({"type":"user","content":[{"text":text(b)}]}),
        2 => json!({"type":"gemini","content":text(b),"model":"gemini"}),
        3 => json!({"type":"gemini","content":"","toolCalls":[{"id":id(b, "c"),"name":"run_shell_command",
            "args":{"command":"ls"},"status":"success","result":[{"functionResponse":{"id":"c","name":"run_shell_command","response":{"output":"o"}}}]}]}),
        4 => json!({"type":"user","content":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}]}),
        _ => json!({"type":b.pick(&["info","error","warning","compact_boundary"]),"content":text(b)}),
    };
    v["id"] = json!(id(b, "g"));
    with_stamp(b, v, "timestamp")
}

fn gemini_line(b: &mut Bytes<'_>) -> Value {
    match b.byte() % 8 {
        0 => {
            let mut v = json!({"sessionId":"d530d928-9820-4b7a-9967-6c5d7bfe95e6","projectHash":"h","kind":"main"});
            if let Some(t) = stamp(b) {
                v["startTime"] = t;
            }
            v
        }
        1 => {
            let messages: Vec<Value> = (0..b.byte() % 4).map(|_| gemini_message(b)).collect();
            json!({"$set":{"messages":messages}})
        }
        2 => json!({"$rewindTo":id(b, "g")}),
        3 => json!({"$set":{"lastUpdated":"2026-11-27T01:56:57.631Z"}}),
        _ => gemini_message(b),
    }
}

/// A line's bytes, now and then cut short or noise.
fn push(b: &mut Bytes<'_>, out: &mut Vec<u8>, v: &Value) {
    let mut s = v.to_string().into_bytes();
    match b.byte() % 32 {
        0 => s.truncate(b.byte() as usize % s.len().max(1)),
        1 => s = vec![b.byte(), b.byte(), b.byte()],
        _ => {}
    }
    out.extend(s);
    out.push(b'\n');
}

/// The archive the bytes describe: a few Claude sessions, Codex rollouts (a
/// thread's name too) and Gemini sessions (a `.json` one too).
pub fn archive(data: &[u8]) -> Archive {
    let mut b = Bytes::new(data);
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut claude = vec![Vec::new(), Vec::new()];
    let mut codex = vec![Vec::new(), Vec::new(), Vec::new()];
    let mut gemini = vec![Vec::new(), Vec::new()];
    let mut gemini_json: Vec<Value> = Vec::new();
    while b.left() {
        match b.byte() % 7 {
            0 | 1 => {
                let f = b.byte() as usize % claude.len();
                let v = claude_line(&mut b);
                push(&mut b, &mut claude[f], &v);
            }
            2 | 3 => {
                let f = b.byte() as usize % codex.len();
                let v = codex_line(&mut b, f);
                push(&mut b, &mut codex[f], &v);
            }
            4 | 5 => {
                let f = b.byte() as usize % gemini.len();
                let v = gemini_line(&mut b);
                push(&mut b, &mut gemini[f], &v);
            }
            _ => gemini_json.push(gemini_message(&mut b)),
        }
    }
    for (i, lines) in claude.into_iter().enumerate() {
        files.push((format!("claude/projects/-tmp-x/c{i}.jsonl"), lines));
    }
    for (i, lines) in codex.into_iter().enumerate() {
        let id = CODEX_IDS[i];
        files.push((format!("codex/sessions/2026/11/27/rollout-2026-11-27T01-56-1{i}-{id}.jsonl"), lines));
    }
    let names: String = CODEX_IDS.iter().map(|id| format!("{}\n", json!({"id":id,"thread_name":"a name"}))).collect();
    files.push(("codex/session_index.jsonl".into(), names.into_bytes()));
    files.push(("gemini/tmp/work/.project_root".into(), b"/tmp/w".to_vec()));
    for (i, lines) in gemini.into_iter().enumerate() {
        files.push((format!("gemini/tmp/work/chats/session-2026-11-27T01-5{i}-d530d92{i}.jsonl"), lines));
    }
    let doc = json!({"sessionId":"d530d928-0000-4b7a-9967-6c5d7bfe95e6","startTime":"2026-11-27T01:00:00Z","messages":gemini_json});
    files.push(("gemini/tmp/work/chats/session-2026-11-27T01-59-d530d928.json".into(), doc.to_string().into_bytes()));
    Archive { files }
}

/// Writes the archive under `root`.
pub fn write(root: &std::path::Path, a: &Archive) {
    for (path, bytes) in &a.files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
}

//! Lines as the client reads them (`JSON.parse`): the fuzzer's bytes become a
//! line with deep nesting, duplicate keys and numbers out of range, and
//! cctree must read what JavaScript reads. A line is an entry exactly when
//! it is JSON (at any depth); its header agrees with the tree the renderer
//! reads (the last value of a duplicate key in both); the tree is never
//! deeper than `cctree::json::MAX_DEPTH`.
#![no_main]

use cctree::parse::parse_line;

use cctree::model::Loc;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

const HUGE: [&str; 6] = ["1e400", "-1e400", "1E+999", "123456789012345678901234567890", "1e-400", "0.1e310"];

fn build(data: &[u8]) -> Option<String> {
    let [depth, dups, num, mode, rest @ ..] = data else { return None };
    let depth = *depth as usize * 4;
    let huge = HUGE[*num as usize % HUGE.len()];
    // The tail is either text (as a JSON string) or a raw JSON fragment.
    let tail = String::from_utf8_lossy(rest);
    let value = if mode & 1 == 0 { serde_json::to_string(&tail).ok()? } else { tail.into_owned() };
    let deep = format!("{}{value}{}", "[".repeat(depth), "]".repeat(depth));
    let mut line = String::from(r#"{"type":"user","uuid":"u1""#);
    if dups & 1 != 0 {
        line.push_str(r#","uuid":"u2""#);
    }
    line.push_str(r#","parentUuid":"p1""#);
    if dups & 2 != 0 {
        line.push_str(r#","parentUuid":null"#);
    }
    if mode & 2 != 0 {
        line.push_str(&format!(r#","isSidechain":{huge}"#));
    }
    if mode & 4 != 0 {
        line.push_str(&format!(r#","usage":{{"input_tokens":{huge}}}"#));
    }
    let content = if mode & 8 != 0 {
        format!(r#"[{{"type":"text","text":"t"}},{{"type":"tool_result","tool_use_id":"x","content":{deep}}},{huge}]"#)
    } else {
        deep
    };
    line.push_str(&format!(r#","message":{{"role":"user","content":{content}}}"#));
    if dups & 4 != 0 {
        line.push_str(r#","message":{"role":"user","content":"second"}"#);
    }
    if mode & 16 != 0 {
        line.push_str(&format!(r#","toolUseResult":{{"n":{huge},"deep":{}{huge}{}}}"#, "[".repeat(depth), "]".repeat(depth)));
    }
    line.push('}');
    Some(line)
}

/// The depth of a tree, without recursion.
fn depth(v: &Value) -> usize {
    let mut max = 0;
    let mut stack = vec![(v, 0usize)];
    while let Some((v, d)) = stack.pop() {
        match v {
            Value::Array(a) => {
                max = max.max(d + 1);
                stack.extend(a.iter().map(|x| (x, d + 1)));
            }
            Value::Object(o) => {
                max = max.max(d + 1);
                stack.extend(o.values().map(|x| (x, d + 1)));
            }
            _ => {}
        }
    }
    max
}

fuzz_target!(|data: &[u8]| {
    let Some(line) = build(data) else { return };
    let (entry, _) = parse_line(cctree::agent::CLAUDE, line.as_bytes(), Loc { file: cctree::model::FileId::FIRST, line: 1 }, 0);
    let text = match &entry {
        Some(e) => e.repaired.as_deref().unwrap_or(&line).to_string(),
        None => cctree::parse::scrub_lone_surrogates(&line).unwrap_or_else(|| line.clone()),
    };
    // JSON at any depth (serde_json skips values without recursion).
    let is_json = serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok();
    assert_eq!(entry.is_some(), is_json, "a line is an entry exactly when it is JSON: {line}");
    let Some(e) = entry else { return };
    let v = cctree::json::parse(&text).expect("every entry's line reads as a tree");
    assert!(depth(&v) <= cctree::json::MAX_DEPTH);
    // The header and the tree agree (the last value of a key wins in both).
    assert_eq!(e.uuid.as_deref(), v["uuid"].as_str());
    assert_eq!(e.parent.as_deref(), v["parentUuid"].as_str());
});

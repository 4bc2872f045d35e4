//! Reading an entry's JSON for display: values at a path, the text of a
//! `content`, and the tags of special user payloads (§4.2 of
//! `docs/transcript-format.md`: `<command-name>`, `<bash-stdout>`, …).

use serde_json::Value;

/// A string at a JSON path.
pub fn str_at<'v>(v: Option<&'v Value>, path: &[&str]) -> Option<&'v str> {
    at(v, path)?.as_str()
}

/// The value at a JSON path.
pub fn at<'v>(v: Option<&'v Value>, path: &[&str]) -> Option<&'v Value> {
    let mut cur = v?;
    for k in path {
        cur = cur.get(k)?;
    }
    Some(cur)
}

/// Text of a `content` value: a string, or the `text` of its blocks.
pub fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
        }
        _ => String::new(),
    }
}

/// The text between `<tag>` and `</tag>` (the first occurrence).
pub fn tag_text<'s>(s: &'s str, tag: &str) -> Option<&'s str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = s.find(&open)? + open.len();
    let end = s[start..].find(&close).map_or(s.len(), |e| start + e);
    Some(&s[start..end])
}

/// `s` without `<tag>`/`</tag>` wrappers of the given names.
pub fn strip_tags(s: &str, tags: &[&str]) -> String {
    let mut out = s.to_string();
    for t in tags {
        out = out.replace(&format!("<{t}>"), "").replace(&format!("</{t}>"), "");
    }
    out
}

pub use crate::parse::prompt::{PromptPart, prompt_parts};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_parsed() {
        let s = "<command-name>/cost</command-name>\n<command-args>a b</command-args>";
        assert_eq!(tag_text(s, "command-name"), Some("/cost"));
        assert_eq!(tag_text(s, "command-args"), Some("a b"));
        assert_eq!(tag_text(s, "nope"), None);
        assert_eq!(strip_tags("<x>a</x>", &["x"]), "a");
    }
}

//! What the model keeps without a type: a value as the client wrote it
//! ([`Raw`], shown as JSON, summed up by its key fields), and a field the
//! client may write as any JSON type ([`Loose`]).

use std::borrow::Cow;
use std::marker::PhantomData;

use serde_json::Value;

use crate::limits::RAW_SUMMARY_FIELDS;

/// A value the model has no type for (an unknown entry, block or tool
/// input; the details of a system entry), as the client wrote it: shown as
/// pretty JSON, never interpreted by a view. `'a` is the line it was read
/// from (a reader may keep it as a slice of the line).
#[derive(Debug, Clone, PartialEq)]
pub struct Raw<'a> {
    tree: Value,
    line: PhantomData<&'a str>,
}

impl<'a> Raw<'a> {
    /// The value as read by [`crate::json`] (numbers as written, the last of
    /// duplicate keys, deep containers kept as their text).
    pub(crate) fn of(tree: Value) -> Raw<'a> {
        Raw { tree, line: PhantomData }
    }

    /// `null`: what a line that cannot be read again shows.
    pub fn null() -> Raw<'a> {
        Raw::of(Value::Null)
    }

    /// Pretty JSON, two spaces a level.
    pub fn pretty(&self) -> String {
        serde_json::to_string_pretty(&self.tree).unwrap_or_default()
    }

    /// Compact JSON, as the client would write it.
    pub fn compact(&self) -> String {
        self.tree.to_string()
    }

    /// Whether it is an object with no field, or not an object at all.
    pub fn is_empty_object(&self) -> bool {
        self.tree.as_object().is_none_or(serde_json::Map::is_empty)
    }

    /// The string at `key`, when the value is an object holding one there.
    pub fn str_field(&self, key: &str) -> Option<&str> {
        self.tree.get(key).and_then(Value::as_str)
    }

    /// What a tool call is asked, in a few lines: its usual arguments by
    /// name (`command: …`, `file_path: …`), else the input as JSON.
    pub fn brief(&self) -> String {
        const KEYS: [&str; 8] = ["description", "command", "file_path", "path", "pattern", "url", "query", "prompt"];
        let known: Vec<String> = KEYS.iter().filter_map(|k| self.str_field(k).map(|v| format!("{k}: {v}"))).collect();
        if known.is_empty() { self.pretty() } else { known.join("\n") }
    }

    /// Its key arguments, for what has no type: the first
    /// [`RAW_SUMMARY_FIELDS`] fields holding text, numbers or lists of
    /// them (`key: value`, fields that say what a call is about first, see
    /// [`KEY_FIELDS`]), else the names of its fields; a string itself.
    /// Empty only when it holds nothing.
    pub fn key_fields(&self) -> String {
        key_args(&self.tree)
    }

    pub(crate) fn tree(&self) -> &Value {
        &self.tree
    }
}

/// A field the client may write as any JSON type (a number where a string
/// is usual, a list of ids…).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Loose<'a> {
    /// The field is not there.
    #[default]
    Absent,
    Str(Cow<'a, str>),
    /// A number, as written.
    Num(String),
    Bool(bool),
    List(Vec<Loose<'a>>),
    /// An object or `null`.
    Other,
}

impl<'a> Loose<'a> {
    /// The field `key` of `v`.
    pub(crate) fn at(v: &Value, key: &str) -> Loose<'a> {
        v.get(key).map_or(Loose::Absent, Loose::of)
    }

    pub(crate) fn of(v: &Value) -> Loose<'a> {
        match v {
            Value::String(s) => Loose::Str(Cow::Owned(s.clone())),
            Value::Number(n) => Loose::Num(n.to_string()),
            Value::Bool(b) => Loose::Bool(*b),
            Value::Array(items) => Loose::List(items.iter().map(Loose::of).collect()),
            Value::Object(_) | Value::Null => Loose::Other,
        }
    }

    /// The string, or `""` when it is not one.
    pub fn str(&self) -> &str {
        match self {
            Loose::Str(s) => s,
            _ => "",
        }
    }

    /// As one line of text: a string's first non-blank line (trimmed), a
    /// number, a boolean, a list of those joined by `, `; `None` for an
    /// object, `null`, or no field.
    pub fn as_line(&self) -> Option<String> {
        match self {
            Loose::Str(s) => Some(first_line(s)),
            Loose::Num(n) => Some(n.clone()),
            Loose::Bool(b) => Some(b.to_string()),
            Loose::List(items) => {
                let parts: Vec<String> = items.iter().filter_map(Loose::as_line).filter(|p| !p.is_empty()).collect();
                (!parts.is_empty()).then(|| parts.join(", "))
            }
            Loose::Other | Loose::Absent => None,
        }
    }

    /// [`Loose::as_line`], empty when there is none.
    pub fn as_line_or_empty(&self) -> String {
        self.as_line().unwrap_or_default()
    }
}

fn first_line(s: &str) -> String {
    s.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string()
}

/// A JSON value as one line of text (see [`Loose::as_line`]).
pub(crate) fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(first_line(s)),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().filter_map(scalar_text).filter(|p| !p.is_empty()).collect();
            (!parts.is_empty()).then(|| parts.join(", "))
        }
        Value::Object(_) | Value::Null => None,
    }
}

/// Input fields that say what a call is about, most telling first.
pub const KEY_FIELDS: &[&str] = &[
    "query",
    "command",
    "file_path",
    "path",
    "filePath",
    "notebook_path",
    "url",
    "uri",
    "pattern",
    "name",
    "server",
    "subject",
    "title",
    "description",
    "prompt",
    "message",
    "text",
    "content",
    "id",
    "task_id",
];

/// See [`Raw::key_fields`].
fn key_args(input: &Value) -> String {
    match input {
        Value::Object(map) => {
            // Fields that say what a call is about first, then the others by name.
            let rank = |k: &str| KEY_FIELDS.iter().position(|f| *f == k).unwrap_or(KEY_FIELDS.len());
            let mut fields: Vec<(&String, &Value)> = map.iter().collect();
            fields.sort_by_key(|(k, _)| rank(k));
            let scalars: Vec<String> = fields
                .iter()
                .filter_map(|(k, v)| scalar_text(v).filter(|t| !t.is_empty()).map(|t| format!("{k}: {t}")))
                .take(RAW_SUMMARY_FIELDS)
                .collect();
            if scalars.is_empty() { map.keys().cloned().collect::<Vec<_>>().join(", ") } else { scalars.join(" · ") }
        }
        Value::Null => String::new(),
        other => scalar_text(other).unwrap_or_else(|| other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn loose_fields_read_as_one_line() {
        let v = json!({"a": "\n  first \nsecond", "n": 12, "l": ["x", 3, ["y"], {}], "o": {}, "b": false});
        assert_eq!(Loose::at(&v, "a").as_line().as_deref(), Some("first"));
        assert_eq!(Loose::at(&v, "a").str(), "\n  first \nsecond");
        assert_eq!(Loose::at(&v, "n").as_line().as_deref(), Some("12"));
        assert_eq!(Loose::at(&v, "n").str(), "");
        assert_eq!(Loose::at(&v, "l").as_line().as_deref(), Some("x, 3, y"));
        assert_eq!(Loose::at(&v, "o").as_line(), None);
        assert_eq!(Loose::at(&v, "b").as_line().as_deref(), Some("false"));
        assert_eq!(Loose::at(&v, "missing"), Loose::Absent);
        for k in ["a", "n", "l", "o", "b", "missing"] {
            assert_eq!(Loose::at(&v, k).as_line(), v.get(k).and_then(scalar_text), "{k}");
        }
    }

    #[test]
    fn raw_values_are_summed_up_by_their_key_fields() {
        assert_eq!(Raw::of(json!({"nested":{"a":1},"other":{}})).key_fields(), "nested, other");
        assert_eq!(
            Raw::of(json!({"z": 1, "title": "T", "query": "q", "w": 2})).key_fields(),
            "query: q · title: T · w: 2"
        );
        assert_eq!(Raw::of(json!({})).key_fields(), "");
        assert_eq!(Raw::of(json!(null)).key_fields(), "");
        assert_eq!(Raw::of(json!("a string")).key_fields(), "a string");
        assert!(Raw::of(json!({})).is_empty_object() && Raw::of(json!(3)).is_empty_object());
        assert_eq!(Raw::of(json!({"a": [1]})).pretty(), "{\n  \"a\": [\n    1\n  ]\n}");
    }
}

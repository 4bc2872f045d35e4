//! The small readers of a JSON value that Claude Code's content, calls and
//! results share: a string or value at a path, a string taken out, an
//! image's source, tags stripped; and the side files a spilled output is
//! read through.

use std::borrow::Cow;

use serde_json::Value;

use crate::model::{Image, Str};

/// What a spilled output's side file is read through: its text from the
/// name under `<session>/tool-results/` (see `super::results`).
pub(super) type SideFiles<'s> = &'s dyn Fn(&str) -> Option<(String, String)>;
/// The string at a path, if it is one.
pub(super) fn str_at<'v>(v: &'v Value, path: &[&str]) -> Option<&'v str> {
    at(v, path)?.as_str()
}

/// The value at a path.
pub(super) fn at<'v>(v: &'v Value, path: &[&str]) -> Option<&'v Value> {
    let mut cur = v;
    for k in path {
        cur = cur.get(k)?;
    }
    Some(cur)
}

/// Takes the value at a path out of the tree (`Null` when there is none).
pub(super) fn take(v: &mut Value, path: &[&str]) -> Value {
    let mut cur = v;
    for k in path {
        match cur.get_mut(k) {
            Some(next) => cur = next,
            None => return Value::Null,
        }
    }
    cur.take()
}

/// A string taken out of a value (`""` when it is not one).
pub(super) fn take_str<'a>(v: Option<&mut Value>) -> Str<'a> {
    match v.map(Value::take) {
        Some(Value::String(s)) => Cow::Owned(s),
        _ => Cow::Borrowed(""),
    }
}

/// An image from a block's `source`.
pub(super) fn image_of<'a>(source: Option<Value>) -> Image<'a> {
    let mut source = source.unwrap_or(Value::Null);
    let base64 = str_at(&source, &["type"]) == Some("base64");
    let data = match source.get_mut("data") {
        Some(Value::String(d)) if base64 => Some(std::mem::take(d)),
        _ => None,
    };
    match data {
        Some(data) => Image::Data { media_type: take_str(source.get_mut("media_type")), data: Cow::Owned(data) },
        None => Image::Url(take_str(source.get_mut("url"))),
    }
}

/// `s` without `<tag>`/`</tag>` wrappers of the given names.
pub(super) fn strip_tags(s: &str, tags: &[&str]) -> String {
    let mut out = s.to_string();
    for t in tags {
        out = out.replace(&format!("<{t}>"), "").replace(&format!("</{t}>"), "");
    }
    out
}

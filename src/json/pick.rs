//! Reading only the parts of a line a view shows ([`parse_only`]).
//!
//! A page shows little of most lines: of an assistant entry its
//! `message.content`, of a tool result its block and a field or two of its
//! `toolUseResult` — never the original file an `Edit` result carries, nor
//! the copy of the file a `Write` result repeats. [`parse_only`] reads a line
//! in one pass into the tree of what a [`Want`] names, skipping the rest
//! (serde_json skips a value with a loop, without building anything): the
//! same tree as [`super::parse`] with the other keys left out.
//!
//! What is read is read as [`super::parse`] reads it: the last of duplicate
//! keys wins (a later duplicate replaces what was picked), numbers of any
//! size, containers nested deeper than [`MAX_DEPTH`] in the line kept as
//! strings of their text. A value of another shape than the want expects
//! (a string where keys were wanted) is read whole.

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, de::Error as _};
use serde_json::{Map, Number, Value};

use super::{Key, MAX_DEPTH, NUMBER_KEY, shallow};

/// What to read of a JSON value.
#[derive(Debug)]
pub enum Want {
    /// All of it.
    All,
    /// These keys of an object (each with what to read of its value); the
    /// others are skipped.
    Keys(&'static [(&'static str, Want)]),
    /// Each item of an array, so much of it.
    Items(&'static Want),
}

/// Reads the parts of a JSON text that `want` names into a tree, as
/// [`super::parse`] reads them; fails only on text that is not JSON.
pub fn parse_only(text: &str, want: &Want) -> Result<Value, serde_json::Error> {
    let read = |text: &str| {
        let mut d = serde_json::Deserializer::from_str(text);
        let v = Pick(want).deserialize(&mut d)?;
        d.end()?;
        Ok(v)
    };
    match read(text) {
        Ok(v) => Ok(v),
        // Too deep where it reads: read as `parse` reads it, deep containers cut.
        Err(err) => match shallow(text, MAX_DEPTH) {
            Some(cut) => read(&cut).map_err(|_| err),
            None => Err(err),
        },
    }
}

struct Pick<'w>(&'w Want);

impl<'de> DeserializeSeed<'de> for Pick<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        match self.0 {
            Want::All => Value::deserialize(d),
            want => d.deserialize_any(PickVisitor(want)),
        }
    }
}

struct PickVisitor<'w>(&'w Want);

impl<'de> Visitor<'de> for PickVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let Want::Keys(keys) = self.0 else {
            return Value::deserialize(MapAccessDeserializer::new(map));
        };
        let mut out = Map::new();
        let mut first = true;
        while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
            if std::mem::take(&mut first) && k == NUMBER_KEY {
                // serde_json hands a number that is not an i64/u64 this way.
                let text: String = map.next_value()?;
                return text.parse::<Number>().map(Value::Number).map_err(A::Error::custom);
            }
            match keys.iter().find(|(name, _)| *name == k) {
                Some((_, want)) => {
                    let v = map.next_value_seed(Pick(want))?;
                    out.insert(k.into_owned(), v);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Value::Object(out))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let Want::Items(want) = self.0 else {
            return Value::deserialize(SeqAccessDeserializer::new(seq));
        };
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(v) = seq.next_element_seed(Pick(want))? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    /// `tree` with only what `want` names (what `parse_only` must read).
    fn pruned(tree: &Value, want: &Want) -> Value {
        match (want, tree) {
            (Want::Keys(keys), Value::Object(m)) => Value::Object(
                m.iter()
                    .filter_map(|(k, v)| keys.iter().find(|(n, _)| n == k).map(|(_, w)| (k.clone(), pruned(v, w))))
                    .collect(),
            ),
            (Want::Items(w), Value::Array(a)) => Value::Array(a.iter().map(|v| pruned(v, w)).collect()),
            _ => tree.clone(),
        }
    }

    const RESULT: Want = Want::Keys(&[
        ("message", Want::Keys(&[("content", Want::Items(&Want::Keys(&[("content", Want::All), ("id", Want::All)])))])),
        ("toolUseResult", Want::Keys(&[("stdout", Want::All), ("file", Want::Keys(&[("content", Want::All)]))])),
    ]);

    /// `parse_only` reads what `parse` reads, without what is not wanted.
    fn same_as_tree(line: &str, want: &Want) -> Value {
        let picked = parse_only(line, want).unwrap();
        assert_eq!(picked, pruned(&parse(line).unwrap(), want), "{line}");
        picked
    }

    #[test]
    fn reads_only_what_is_wanted() {
        let line = r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"a\nb","id":"t1","is_error":true},"s",3,null,[1]]},"toolUseResult":{"stdout":"out","originalFile":"big","file":{"content":"x","numLines":3}},"cwd":"/x"}"#;
        let v = same_as_tree(line, &RESULT);
        assert_eq!(
            v,
            serde_json::json!({"message":{"content":[{"content":"a\nb","id":"t1"},"s",3,null,[1]]},"toolUseResult":{"stdout":"out","file":{"content":"x"}}})
        );
        assert_eq!(same_as_tree(line, &Want::All), parse(line).unwrap());
        assert_eq!(same_as_tree(line, &Want::Keys(&[])), serde_json::json!({}));
    }

    #[test]
    fn duplicate_keys_last_value_wins() {
        for line in [
            r#"{"message":{"content":[{"id":"a"}]},"message":{"role":"x"}}"#,
            r#"{"message":{"content":"one","content":[{"id":"two","id":"three"}]},"toolUseResult":{"stdout":1},"toolUseResult":"flat"}"#,
            r#"{"\u006dessage":{"content":"escaped key"},"toolUseResult":{"file":{"content":"a"},"file":{"content":"b"}}}"#,
        ] {
            same_as_tree(line, &RESULT);
        }
        let v = parse_only(r#"{"message":{"content":"one"},"message":{"content":"two"}}"#, &RESULT).unwrap();
        assert_eq!(v["message"]["content"], "two");
    }

    #[test]
    fn values_of_another_shape_are_read_whole() {
        for line in [
            r#"{"message":"a string","toolUseResult":[{"stdout":"in an array"}]}"#,
            r#"{"message":{"content":{"id":"an object, not a list","x":1}},"toolUseResult":{"file":["a",{"b":2}]}}"#,
            r#"{"message":{"content":[{"id":1.5,"content":{"deep":{"er":[true]}}},{"$x":1}]},"toolUseResult":null}"#,
            r#"[1,{"message":2}]"#,
            r#""just a string""#,
            "12",
        ] {
            same_as_tree(line, &RESULT);
        }
    }

    #[test]
    fn numbers_of_any_size_are_read_as_written() {
        let line = r#"{"message":{"content":[{"id":1e400,"content":[123456789012345678901234567890,-1e-400,7]}]},"toolUseResult":{"stdout":-1e400},"n":1e400}"#;
        let v = same_as_tree(line, &RESULT);
        assert_eq!(v["message"]["content"][0]["id"].to_string(), "1e+400");
        assert_eq!(v["toolUseResult"]["stdout"].to_string(), "-1e+400");
        // A number where keys were wanted is that number.
        same_as_tree(r#"{"message":1e400,"toolUseResult":12}"#, &RESULT);
        // An object serde_json takes for a number, as `parse` takes it.
        let odd = format!(r#"{{"message":{{"{NUMBER_KEY}":"12"}}}}"#);
        assert_eq!(parse_only(&odd, &RESULT).unwrap(), parse(&odd).unwrap());
        let bad = format!(r#"{{"message":{{"{NUMBER_KEY}":"twelve"}}}}"#);
        assert!(parse(&bad).is_err() && parse_only(&bad, &RESULT).is_err());
    }

    fn nested(depth: usize, inner: &str) -> String {
        format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn deep_lines_are_cut_where_the_tree_is() {
        // Deep where it is read: cut as `parse` cuts it.
        let wanted = format!(
            r#"{{"message":{{"content":[{{"content":{}}}]}},"toolUseResult":{{"stdout":"after"}}}}"#,
            nested(200, r#"{"t":"treasure"}"#)
        );
        let v = same_as_tree(&wanted, &RESULT);
        assert!(v["message"]["content"][0]["content"].is_array());
        // Deep where it is skipped (and very deep): no recursion, read as the rest.
        let skipped = format!(
            r#"{{"other":{},"message":{{"content":[{{"content":"shallow"}}]}},"toolUseResult":{{"stdout":"after"}}}}"#,
            nested(200_000, "1")
        );
        let v = same_as_tree(&skipped, &RESULT);
        assert_eq!(v["toolUseResult"]["stdout"], "after");
        assert_eq!(v["message"]["content"][0]["content"], "shallow");
    }

    #[test]
    fn not_json_is_an_error() {
        for bad in ["{", "[1,]", r#"{"a":1"#, r#"{"a":"\x"}"#, "", "{} {}", r#"{"message":{"content":[}}"#] {
            assert!(parse_only(bad, &RESULT).is_err(), "{bad}");
        }
    }
}

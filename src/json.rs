//! Reading JSON as the client does.
//!
//! Claude Code is JavaScript: it reads a transcript line with `JSON.parse`,
//! which takes duplicate keys (the last value wins), numbers of any size
//! (`1e400` is `Infinity`) and any nesting depth. cctree reads every line
//! through this module, in the parse stage (the entry's header, with
//! [`object!`] structs) and wherever a line is read again as a tree
//! ([`parse`]: the renderer, `fork`; [`pick::parse_only`]: the parts of a
//! line a page shows), so they always agree on what a line holds:
//!
//! - **Duplicate keys**: the last value wins, in headers ([`object!`]) as in
//!   trees (`serde_json::Map::insert`).
//! - **Numbers**: serde_json's `arbitrary_precision` keeps each number as
//!   written, so `1e400` or a 30-digit integer is read (and shown) as its
//!   text instead of failing the line. A lenient scalar field
//!   ([`crate::parse`]'s `MaybeU64`) reads such a number as absent.
//! - **Depth**: headers never recurse into what they skip (serde_json skips
//!   a value with a loop, at any depth). A tree keeps [`MAX_DEPTH`] levels
//!   of arrays and objects (serde_json's own recursion limit, which keeps the
//!   stack small on every thread, and every walk of the tree — printing,
//!   dropping — bounded); a container nested deeper is kept whole as a
//!   string holding its JSON text, so nothing in it is lost and it is shown
//!   as written. No recursion depends on the input.

use std::borrow::Cow;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

pub mod pick;

/// Levels of arrays and objects a tree keeps; deeper containers are kept as
/// their JSON text (see the module documentation). Equal to the deepest
/// nesting serde_json reads, so a line it could read is read as before.
pub const MAX_DEPTH: usize = crate::limits::JSON_DEPTH;

/// Reads a JSON text into a tree, as `JSON.parse` reads it: duplicate keys
/// (last wins), numbers of any size, any depth (containers nested deeper than
/// [`MAX_DEPTH`] kept as strings of their JSON text). Fails only on text that
/// is not JSON.
pub fn parse(text: &str) -> Result<Value, serde_json::Error> {
    match serde_json::from_str(text) {
        Ok(v) => Ok(v),
        Err(err) => match shallow(text, MAX_DEPTH) {
            Some(cut) => serde_json::from_str(&cut).map_err(|_| err),
            None => Err(err),
        },
    }
}

/// `text` with every array or object nested deeper than `limit` replaced by
/// a JSON string of its text; `None` when nothing is that deep. Linear, no
/// recursion; text that is not JSON gives text that is not JSON either.
pub fn shallow(text: &str, limit: usize) -> Option<String> {
    let b = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0usize;
    let (mut depth, mut in_string, mut deep_start) = (0usize, false, None::<usize>);
    let mut i = 0usize;
    while i < b.len() {
        let c = b[i];
        if in_string {
            match c {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            match c {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth == limit + 1 {
                        deep_start = Some(i);
                    }
                }
                b']' | b'}' => {
                    if depth == limit + 1 {
                        if let Some(start) = deep_start.take() {
                            let o = out.get_or_insert_with(|| String::with_capacity(text.len() + 64));
                            o.push_str(&text[copied..start]);
                            // A string of the container's text (JSON escapes, so valid).
                            o.push_str(&serde_json::to_string(&text[start..=i]).unwrap_or_default());
                            copied = i + 1;
                        }
                    }
                    depth = depth.saturating_sub(1);
                }
                _ => {}
            }
        }
        i += 1;
    }
    out.map(|mut o| {
        o.push_str(text.get(copied..).unwrap_or(""));
        o
    })
}

/// cctree's own data as compact JSON (the files of the search index): a
/// typed value written by its `Serialize` (fields in the order declared).
pub fn write<T: serde::Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// cctree's own data read back from JSON it wrote ([`write`]): `None` when
/// the text is not that.
pub fn read<'a, T: serde::Deserialize<'a>>(text: &'a str) -> Option<T> {
    serde_json::from_str(text).ok()
}

/// The key under which serde_json (with `arbitrary_precision`) hands a
/// number that is not an `i64`/`u64` to a visitor of any value: as a map of
/// one entry, this key and the number's text. A lenient reader that sees it
/// knows the value was a number, not an object (checked by a test).
pub const NUMBER_KEY: &str = "$serde_json::private::Number";

/// An object key, borrowed from the line when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// The fields of an [`object!`] struct: how one key's value is stored.
pub trait Fields<'de>: Default {
    /// Reads the value of `key` from `map` into its field (the last value of
    /// a key wins), or skips it.
    fn set<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error>;
}

/// Reads an [`object!`] struct from any JSON value: `None` when the value is
/// not an object (a string, number, array…; skipped whole). Syntax errors
/// propagate (swallowing one would leave the parser inside a value).
pub fn read_object<'de, T: Fields<'de>, D: Deserializer<'de>>(d: D) -> Result<Option<T>, D::Error> {
    struct V<T>(std::marker::PhantomData<T>);
    impl<'de, T: Fields<'de>> Visitor<'de> for V<T> {
        type Value = Option<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = T::default();
            let mut is_object = true;
            while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
                if k == NUMBER_KEY {
                    is_object = false;
                    map.next_value::<IgnoredAny>()?;
                } else {
                    out.set(&k, &mut map)?;
                }
            }
            Ok(is_object.then_some(out))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            while a.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    d.deserialize_any(V(std::marker::PhantomData))
}

/// A struct read from a JSON object the way `JSON.parse` reads it: the last
/// value of a duplicate key wins (serde's derive rejects the object), unknown
/// keys are skipped, missing ones are `Default`, and a value that is not an
/// object reads as the default struct. Each field names its key:
///
/// ```
/// cctree::json::object! {
///     pub struct Point { x: Option<i64> = "x", y: Option<i64> = "y" }
/// }
/// let p: Point = serde_json::from_str(r#"{"x":1,"y":2,"x":3}"#).unwrap();
/// assert_eq!((p.x, p.y), (Some(3), Some(2)));
/// ```
#[macro_export]
macro_rules! json_object {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident $(<$lt:lifetime>)? {
            $( $(#[$fmeta:meta])* $field:ident : $ty:ty = $key:literal ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Default)]
        $vis struct $name $(<$lt>)? {
            $( $(#[$fmeta])* $field: $ty ),*
        }

        impl<'de $(: $lt)? $(, $lt)?> $crate::json::Fields<'de> for $name $(<$lt>)? {
            fn set<A: $crate::json::__serde::de::MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> Result<(), A::Error> {
                match key {
                    $( $key => self.$field = map.next_value()?, )*
                    _ => {
                        map.next_value::<$crate::json::__serde::de::IgnoredAny>()?;
                    }
                }
                Ok(())
            }
        }

        impl<'de $(: $lt)? $(, $lt)?> $crate::json::__serde::Deserialize<'de> for $name $(<$lt>)? {
            fn deserialize<D: $crate::json::__serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                Ok($crate::json::read_object::<Self, D>(d)?.unwrap_or_default())
            }
        }
    };
}

pub use json_object as object;

#[doc(hidden)]
pub use serde as __serde;

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize, inner: &str) -> String {
        format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn max_depth_is_what_serde_json_reads() {
        assert!(serde_json::from_str::<Value>(&nested(MAX_DEPTH, "1")).is_ok());
        assert!(serde_json::from_str::<Value>(&nested(MAX_DEPTH + 1, "1")).is_err());
    }

    #[test]
    fn deep_containers_are_kept_as_their_text() {
        let line = format!(r#"{{"type":"user","deep":{},"after":"still here"}}"#, nested(100_000, r#""treasure""#));
        let v = parse(&line).unwrap();
        assert_eq!(v["after"], "still here");
        // Levels down to MAX_DEPTH are a tree, the rest is text.
        let mut cur = &v["deep"];
        let mut levels = 1; // the line's object
        while let Some(a) = cur.as_array() {
            levels += 1;
            cur = &a[0];
        }
        assert_eq!(levels, MAX_DEPTH);
        let text = cur.as_str().unwrap();
        assert_eq!(text, nested(100_000 - (MAX_DEPTH - 1), r#""treasure""#));
        // What was read before is read as before.
        let shallow_enough = format!(r#"{{"a":{}}}"#, nested(MAX_DEPTH - 1, "1"));
        assert_eq!(parse(&shallow_enough).unwrap(), serde_json::from_str::<Value>(&shallow_enough).unwrap());
        assert!(shallow(&shallow_enough, MAX_DEPTH).is_none());
    }

    #[test]
    fn deep_text_with_brackets_in_strings_is_cut_at_the_right_place() {
        let deep = nested(200, r#"{"k":"a ] } [ { \" \\ b"}"#);
        let line = format!(r#"{{"x":[{deep},"]"],"y":"{{"}}"#);
        let v = parse(&line).unwrap();
        assert_eq!(v["y"], "{");
        assert_eq!(v["x"][1], "]");
        let mut cur = &v["x"][0];
        while let Some(a) = cur.as_array() {
            cur = &a[0];
        }
        let text = cur.as_str().unwrap();
        assert!(
            text.starts_with('[')
                && text.ends_with(&format!(r#"{{"k":"a ] }} [ {{ \" \\ b"}}{}"#, "]".repeat(200 - (MAX_DEPTH - 2))))
        );
    }

    #[test]
    fn not_json_stays_an_error() {
        for bad in ["{", "[1,]", r#"{"a":1"#, &nested(300, "")[..299], "{\"a\":\"\\x\"}"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn numbers_of_any_size_are_read_as_written() {
        let v =
            parse(r#"{"big":1e400,"neg":-1e400,"tiny":1e-400,"long":123456789012345678901234567890,"n":3}"#).unwrap();
        // serde_json writes an exponent with its sign.
        assert_eq!(v["big"].to_string(), "1e+400");
        assert_eq!(v["neg"].to_string(), "-1e+400");
        assert_eq!(v["long"].to_string(), "123456789012345678901234567890");
        assert_eq!(v["n"], 3);
        assert_eq!(serde_json::to_string(&v["tiny"]).unwrap(), "1e-400");
    }

    #[test]
    fn duplicate_keys_last_value_wins() {
        let v = parse(r#"{"a":1,"b":{"c":1,"c":2},"a":[3]}"#).unwrap();
        assert_eq!(v, serde_json::json!({"a":[3],"b":{"c":2}}));
    }

    object! {
        struct Header<'a> {
            name: Option<Cow<'a, str>> = "name",
            n: Option<u64> = "n",
            inner: Inner = "inner",
        }
    }
    object! {
        struct Inner { x: Option<bool> = "x" }
    }

    #[test]
    fn objects_read_duplicates_escaped_keys_and_other_values() {
        let h: Header<'_> =
            serde_json::from_str(r#"{"name":"a","n":1,"inner":{"x":true,"x":false},"name":"b"}"#).unwrap();
        assert_eq!((h.name.as_deref(), h.n, h.inner.x), (Some("b"), Some(1), Some(false)));
        // Escaped keys are the same keys (`\u006e` is `n`).
        let h: Header<'_> = serde_json::from_str(r#"{"\u006eame":"c","\u006e":2}"#).unwrap();
        assert_eq!((h.name.as_deref(), h.n), (Some("c"), Some(2)));
        // A value that is not an object reads as the default.
        for other in ["1.5", "1e400", "7", "\"s\"", "[1,{}]", "null", "true"] {
            let text = format!(r#"{{"inner":{other},"n":4}}"#);
            let h: Header<'_> = serde_json::from_str(&text).unwrap();
            assert_eq!((h.inner.x, h.n), (None, Some(4)), "{other}");
        }
        // Broken JSON is an error, not a default.
        assert!(serde_json::from_str::<Header<'_>>(r#"{"inner":{"x":tru},"n":4}"#).is_err());
    }

    #[test]
    fn serde_json_hands_big_numbers_as_a_map_under_number_key() {
        struct Probe;
        impl<'de> Visitor<'de> for Probe {
            type Value = String;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<String, A::Error> {
                let k: String = m.next_key()?.unwrap_or_default();
                let v: String = m.next_value()?;
                Ok(format!("{k}={v}"))
            }
        }
        let mut d = serde_json::Deserializer::from_str("1e400");
        assert_eq!(d.deserialize_any(Probe).unwrap(), format!("{NUMBER_KEY}=1e+400"));
    }
}

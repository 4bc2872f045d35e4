//! Lenient field deserializers: a transcript field of the wrong JSON type is
//! ignored (read as absent) instead of failing the whole line.

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// A string field that tolerates any other JSON type (read as `None`).
/// Borrows from the line when the string has no escapes.
#[derive(Debug, Default, Clone)]
pub(crate) struct MaybeStr<'a>(pub(crate) Option<Cow<'a, str>>);

impl<'a> MaybeStr<'a> {
    pub(crate) fn into_box(self) -> Option<Box<str>> {
        self.0.map(|c| c.into_owned().into_boxed_str())
    }
    pub(crate) fn as_deref(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for MaybeStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MaybeStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(MaybeStr(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(MaybeStr(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(MaybeStr(Some(Cow::Owned(v))))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(MaybeStr(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(MaybeStr(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// A visitor that accepts any JSON value, keeping what `pick` extracts from
/// scalars. Errors in the input always propagate (swallowing one would leave
/// the parser in the middle of a value).
struct Scalar<T>(fn(Lit) -> Option<T>);

/// A scalar literal.
enum Lit {
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
}

impl<'de, T> Visitor<'de> for Scalar<T> {
    type Value = Option<T>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok((self.0)(Lit::Bool(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok((self.0)(Lit::U64(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok((self.0)(Lit::I64(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok((self.0)(Lit::F64(v)))
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
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
        while a.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
        while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

/// The whole part of a finite `f >= 0`, `u64::MAX` from 2^64 on (what `as`
/// does, made explicit).
fn whole_part(f: f64) -> u64 {
    const END: f64 = 18_446_744_073_709_551_616.0; // 2^64
    if f < END {
        #[expect(clippy::cast_possible_truncation, reason = "0 <= f < 2^64: the whole part fits a u64")]
        let n = f as u64;
        n
    } else {
        u64::MAX
    }
}

/// A boolean field that tolerates any other JSON type (read as `false`).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct MaybeBool(pub(crate) bool);

impl<'de> serde::Deserialize<'de> for MaybeBool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = d.deserialize_any(Scalar(|l| match l {
            Lit::Bool(b) => Some(b),
            _ => None,
        }))?;
        Ok(MaybeBool(v.unwrap_or(false)))
    }
}

/// A number field that tolerates any other JSON type (read as `None`).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct MaybeU64(pub(crate) Option<u64>);

impl<'de> serde::Deserialize<'de> for MaybeU64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = d.deserialize_any(Scalar(|l| match l {
            Lit::U64(n) => Some(n),
            Lit::I64(n) => u64::try_from(n).ok(),
            Lit::F64(f) if f >= 0.0 && f.is_finite() => Some(whole_part(f)),
            _ => None,
        }))?;
        Ok(MaybeU64(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct S {
        b: MaybeBool,
        n: MaybeU64,
    }

    #[test]
    fn wrong_types_are_absent_but_broken_json_is_an_error() {
        let s: S = serde_json::from_str(r#"{"b":"yes","n":[1]}"#).unwrap();
        assert!(!s.b.0 && s.n.0.is_none());
        let s: S = serde_json::from_str(r#"{"b":true,"n":-3}"#).unwrap();
        assert!(s.b.0 && s.n.0.is_none());
        assert!(serde_json::from_str::<S>(r#"{"b":falsd,"n":1}"#).is_err());
        assert!(serde_json::from_str::<S>(r#"{"b":true,"n":1x}"#).is_err());
    }
}

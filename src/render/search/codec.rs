//! The byte encodings of the search index: LEB128 varints, gaps of sorted
//! numbers, base64, raw deflate, and the JavaScript files that carry the data.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// Appends `v` as a LEB128 varint (7 bits a byte, low bits first).
pub(crate) fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v.to_le_bytes()[0] & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v.to_le_bytes()[0]);
}

/// A count or position as the index stores it (`u32`). Everything counted
/// (units, pages, docs of a page, terms) is numbered by the graph's `u32`
/// ids or is smaller, so this never saturates in practice; if it did, a
/// search would miss, nothing would break.
pub(crate) fn n32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Reads a varint that gives a length, as a `usize`.
pub(crate) fn get_len(bytes: &[u8], at: &mut usize) -> Option<usize> {
    usize::try_from(get(bytes, at)?).ok()
}

/// The slice of `len` bytes at `*at`, moving past it; `None` past the end.
pub(crate) fn take<'a>(bytes: &'a [u8], at: &mut usize, len: usize) -> Option<&'a [u8]> {
    let end = at.checked_add(len)?;
    let part = bytes.get(*at..end)?;
    *at = end;
    Some(part)
}

/// Reads a varint at `*at`, moving past it; `None` past the end or on an
/// overlong one.
pub(crate) fn get(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// Writes an ascending sequence as gaps: the first value as it is, each
/// next as its distance to the previous minus one.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Gaps(Option<u64>);

impl Gaps {
    pub(crate) fn new() -> Gaps {
        Gaps(None)
    }

    /// Appends `v` (greater than the previous value).
    pub(crate) fn put(&mut self, out: &mut Vec<u8>, v: u64) {
        put(out, self.0.map_or(v, |p| v - p - 1));
        self.0 = Some(v);
    }
}

/// One unit's pages of one term, decoded: each page's number and its docs.
#[cfg(test)]
pub(crate) type Pages = Vec<(u64, Vec<u64>)>;

/// Decodes a unit's part of a posting list (for each page: its number as a
/// gap, the count of its docs less one, the docs as gaps); `None` when it
/// is not one.
#[cfg(test)]
pub(crate) fn decode_pages(part: &[u8]) -> Option<Pages> {
    let (mut at, mut out, mut page) = (0, Vec::new(), None::<u64>);
    while at < part.len() {
        let gap = get(part, &mut at)?;
        let q = match page {
            None => gap,
            Some(p) => p.checked_add(gap)?.checked_add(1)?,
        };
        page = Some(q);
        let count = get(part, &mut at)?.checked_add(1)?;
        let mut docs = Vec::new();
        let mut doc = None::<u64>;
        for _ in 0..count {
            let gap = get(part, &mut at)?;
            let d = match doc {
                None => gap,
                Some(p) => p.checked_add(gap)?.checked_add(1)?,
            };
            doc = Some(d);
            docs.push(d);
        }
        out.push((q, docs));
    }
    Some(out)
}

/// Encodes pages as [`decode_pages`] reads them (in ascending page order,
/// each with its docs ascending).
#[cfg(test)]
pub(crate) fn encode_pages(pages: &[(u64, Vec<u64>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut q = Gaps::new();
    for (page, docs) in pages {
        q.put(&mut out, *page);
        put(&mut out, docs.len().saturating_sub(1) as u64);
        let mut d = Gaps::new();
        for doc in docs {
            d.put(&mut out, *doc);
        }
    }
    out
}

pub(crate) fn base64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

pub(crate) fn unbase64(s: &str) -> Option<Vec<u8>> {
    STANDARD.decode(s).ok()
}

/// The deflate level of [`deflate`]: fixed, so that the same text gives the
/// same bytes on every run and thread count. Level 3 keeps the 1 GB
/// generated archive's texts 3.35× smaller in 60% of level 6's time (zlib's
/// default: 3% smaller); level 2 is 6% larger than 3 and level 1 35%
/// (docs/performance.md).
const DEFLATE_LEVEL: u32 = 3;

/// `bytes` compressed as raw deflate (RFC 1951, no header), what the
/// browser's `DecompressionStream("deflate-raw")` inflates. zlib-rs (pure
/// Rust, flate2's `zlib-rs` backend; twice as fast as miniz_oxide at the same
/// level) at a fixed level, its version pinned by `Cargo.lock`:
/// deterministic (its SIMD paths find the same matches as the plain ones).
pub(crate) fn deflate(bytes: &[u8]) -> Vec<u8> {
    use flate2::{Compress, Compression, FlushCompress, Status};
    let mut z = Compress::new(Compression::new(DEFLATE_LEVEL), false);
    // Straight into the Vec (no intermediate buffer), grown if the guess is short.
    let mut out = Vec::with_capacity(bytes.len() / 3 + 64);
    loop {
        let read = usize::try_from(z.total_in()).map_or(bytes.len(), |n| n.min(bytes.len()));
        match z.compress_vec(&bytes[read..], &mut out, FlushCompress::Finish) {
            Ok(Status::StreamEnd) => return out,
            Ok(_) => out.reserve(out.capacity() / 2 + 64),
            // Not raised for a stream compressed in memory.
            Err(_) => return Vec::new(),
        }
    }
}

/// Inflates what [`deflate`] wrote; `None` when it is not raw deflate.
#[cfg(test)]
pub(crate) fn inflate(bytes: &[u8]) -> Option<Vec<u8>> {
    use std::io::Write as _;
    let mut out = Vec::new();
    let mut z = flate2::write::DeflateDecoder::new(&mut out);
    z.write_all(bytes).ok()?;
    z.finish().ok()?;
    Some(out)
}

/// A file of the index: a script that only assigns data, `json`, to
/// `CCTREE_SEARCH[id]`. Loaded as a `<script>` (so from `file://` too), it
/// runs nothing. `<`, `>` and the JavaScript line separators are escaped, so
/// nothing in the data can end the script or start markup.
pub(crate) fn script(id: &str, json: &str) -> String {
    let mut s = String::with_capacity(json.len() + id.len() + 64);
    s.push_str(PREFIX);
    s.push_str(&crate::json::write(id));
    s.push_str("]=");
    push_inert(&mut s, json);
    s.push_str(";\n");
    s
}

/// A shard's file (`{"p": base64 of bytes, "terms": [...]}` as [`script`]
/// writes it, made without a JSON tree: the base64 needs no escape).
pub(crate) fn shard_script(id: &str, bytes: &[u8], terms: &[String]) -> String {
    use base64::Engine;
    let terms = crate::json::write(terms);
    let mut s = String::with_capacity(PREFIX.len() + id.len() + bytes.len() * 4 / 3 + terms.len() + 32);
    s.push_str(PREFIX);
    s.push_str(&crate::json::write(id));
    s.push_str("]={\"p\":\"");
    STANDARD.encode_string(bytes, &mut s);
    s.push_str("\",\"terms\":");
    push_inert(&mut s, &terms);
    s.push_str("};\n");
    s
}

/// The bytes and terms of a file [`shard_script`] wrote; `None` when it is not one.
pub(crate) fn read_shard(file: &str) -> Option<(Vec<u8>, Vec<String>)> {
    let rest = file.strip_prefix(PREFIX)?;
    let (_, rest) = rest.split_once("]={\"p\":\"")?;
    let end = memchr::memchr(b'"', rest.as_bytes())?;
    let bytes = unbase64(&rest[..end])?;
    let terms = rest[end..].strip_prefix("\",\"terms\":")?.trim_end().strip_suffix("};")?;
    Some((bytes, crate::json::read(terms)?))
}

/// Appends `json` with `<`, `>`, U+2028 and U+2029 escaped: runs between
/// them are copied whole (the base64 of the deflated texts, most of a doc
/// file, has none).
fn push_inert(out: &mut String, json: &str) {
    let b = json.as_bytes();
    let (mut i, mut run) = (0, 0);
    // U+2028 and U+2029 are E2 80 A8 and E2 80 A9 in UTF-8; no other
    // character of JSON text needs an escape here.
    while let Some(k) = memchr::memchr3(b'<', b'>', 0xE2, &b[i..]) {
        let at = i + k;
        let (escape, len) = match b[at] {
            b'<' => ("\\u003c", 1),
            b'>' => ("\\u003e", 1),
            _ => match b.get(at + 1..at + 3) {
                Some([0x80, 0xA8]) => ("\\u2028", 3),
                Some([0x80, 0xA9]) => ("\\u2029", 3),
                _ => ("", 1),
            },
        };
        i = at + len;
        if !escape.is_empty() {
            out.push_str(&json[run..at]);
            out.push_str(escape);
            run = i;
        }
    }
    out.push_str(&json[run..]);
}

const PREFIX: &str = "(self.CCTREE_SEARCH=self.CCTREE_SEARCH||{})[";

/// The id and the JSON of a file written by [`script`].
pub(crate) fn unscript(file: &str) -> Option<(String, &str)> {
    let rest = file.strip_prefix(PREFIX)?;
    let (id, json) = rest.split_once("]=")?;
    Some((crate::json::read(id)?, json.trim_end().strip_suffix(';')?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_round_trip() {
        let pages: Pages = vec![(0, vec![0]), (3, vec![1, 2, 9]), (4, vec![0]), (70, vec![200, 300])];
        let bytes = encode_pages(&pages);
        assert_eq!(decode_pages(&bytes), Some(pages));
        assert_eq!(decode_pages(&bytes[..bytes.len() - 1]), None);
    }

    #[test]
    fn varints_and_gaps_round_trip() {
        let mut b = Vec::new();
        let mut g = Gaps::new();
        for v in [0u64, 1, 5, 200, 100_000, u64::from(u32::MAX)] {
            g.put(&mut b, v);
        }
        let mut at = 0;
        let mut prev: Option<u64> = None;
        let mut back = Vec::new();
        while at < b.len() {
            let gap = get(&b, &mut at).unwrap();
            let v = prev.map_or(gap, |p| p + gap + 1);
            back.push(v);
            prev = Some(v);
        }
        assert_eq!(back, [0, 1, 5, 200, 100_000, u64::from(u32::MAX)]);
        assert_eq!(get(&[0x80, 0x80], &mut 0), None);
    }

    #[test]
    fn deflate_round_trips_and_is_the_same_each_time() {
        let text = "line one of a long log\n".repeat(2000) + "the last line, é ✓";
        let z = deflate(text.as_bytes());
        assert!(z.len() < text.len() / 20, "{}", z.len());
        assert_eq!(z, deflate(text.as_bytes()));
        assert_eq!(inflate(&z).as_deref(), Some(text.as_bytes()));
        assert_eq!(inflate(&z[..z.len() / 2]), None);
        assert_eq!(inflate(&deflate(b"")).as_deref(), Some(&b""[..]));
    }

    /// The byte scan escapes as the character-by-character rule does.
    #[test]
    fn inert_scan_agrees_with_the_rule() {
        fn slow(json: &str) -> String {
            let mut s = String::new();
            for c in json.chars() {
                match c {
                    '<' => s.push_str("\\u003c"),
                    '>' => s.push_str("\\u003e"),
                    '\u{2028}' => s.push_str("\\u2028"),
                    '\u{2029}' => s.push_str("\\u2029"),
                    c => s.push(c),
                }
            }
            s
        }
        for json in [
            "",
            "plain",
            "<>",
            "a<b>c",
            "\u{2028}\u{2029}\u{2028}",
            "…\u{2028}…—\u{2029}‚<",
            "\u{2027}\u{202a}\u{20ac}\u{2000}x",
            "ends with \u{2029}",
            "é✓<\u{2028}>",
        ] {
            let mut fast = String::new();
            push_inert(&mut fast, json);
            assert_eq!(fast, slow(json), "{json:?}");
        }
    }

    /// A shard's file is the script of its JSON, and reads back.
    #[test]
    fn shard_scripts_are_scripts_of_their_json() {
        #[derive(serde::Serialize)]
        struct ShardData<'a> {
            p: String,
            terms: &'a [String],
        }
        let terms: Vec<String> =
            ["a", "</script>", "é\u{2028}x", "q\"uote", "\\"].iter().map(|t| t.to_string()).collect();
        let bytes: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        let made = shard_script("t/ab", &bytes, &terms);
        assert_eq!(made, script("t/ab", &crate::json::write(&ShardData { p: base64(&bytes), terms: &terms })));
        assert_eq!(read_shard(&made), Some((bytes, terms)));
        assert_eq!(read_shard(&made[..made.len() - 4]), None);
    }

    #[test]
    fn scripts_assign_inert_data() {
        let s = script("t/x", "{\"a\":\"</script><!-- \u{2028}\"}");
        assert!(s.starts_with("(self.CCTREE_SEARCH=self.CCTREE_SEARCH||{})[\"t/x\"]={"));
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('\u{2028}'), "{s}");
        let (id, json) = unscript(&s).unwrap();
        assert_eq!(id, "t/x");
        #[derive(serde::Deserialize)]
        struct A {
            a: String,
        }
        assert_eq!(crate::json::read::<A>(json).unwrap().a, "</script><!-- \u{2028}");
    }
}

//! `--redact`: replaces common secrets with `[REDACTED:<kind>]` before anything
//! is derived from a line, so pages, titles and the search index never see them.
//!
//! [`redact`] runs on two kinds of text: each line's JSON text at parse time
//! (before anything is read from it), and plain strings that are not entry
//! lines (spilled `tool-results/` files, directory names, sidecars). Patterns
//! match on a *decoded view* of the text, where JSON escapes that can hide a
//! character of a secret are decoded: `\u0041KIA…` reads `AKIA…`,
//! `https:\/\/` reads `https://`, and the escapes of a JSON text nested in a
//! string (`\\u0041`) too. A match is mapped back to the original text and
//! replaced there, so the secret goes in its escaped form (the bytes of the
//! line) and hence in its decoded form (everything read from the line).
//! Escapes of `"`, `\` and control characters stay escaped in the view, so
//! the patterns see the same JSON structure, and replacements contain no
//! quote or backslash: a line stays valid JSON.
//!
//! A private key block whose `-----END` line was cut off (a truncated tool
//! output) is replaced up to the end of its JSON string (an unescaped `"`),
//! or of the text. Redaction is a safety net, not a proof: see the README's
//! table of what is covered.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// One pattern: a kind name and a regex. When the regex has a group named
/// `keep`, the text it matched stays (e.g. the variable name of
/// `TOKEN=value`); so does a group named `tail` at the end (the `@` of a URL).
struct Pattern {
    kind: &'static str,
    re: Regex,
    /// The match must start a word (see [`starts_a_word`]).
    word_start: bool,
}

/// The start of a secret: the start of the text, a non-word character, or a
/// JSON escape (`\n`, `\t`, `\r`): patterns run over JSON text, where a secret
/// at the start of a line follows `\n`, so `\b` alone would miss it.
const START: &str = r"(?:^|[^A-Za-z0-9_]|\\[nrt])";

/// [`START`] checked in code before position `at` of `hay`: keeping it out
/// of a regex lets the regex search for its literal prefix (`sk_live_`)
/// directly, many times faster.
fn starts_a_word(hay: &str, at: usize) -> bool {
    let before = &hay.as_bytes()[..at];
    match before.last() {
        None => true,
        Some(b'n' | b'r' | b't') if before.len() >= 2 && before[before.len() - 2] == b'\\' => true,
        Some(c) => !(c.is_ascii_alphanumeric() || *c == b'_'),
    }
}

/// The body of a private key block: up to its END line, else (the block was
/// cut off) to the end of the JSON string or text. `\\.` steps over escapes,
/// so an escaped quote of a nested JSON text does not end it.
const KEY_BLOCK: &str = r#"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:(?:[^"\\]|(?s:\\.))*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|(?:[^"\\]|(?s:\\.))*)"#;

/// Characters of a URL's `user:password` part (not `[`, so a part already
/// redacted is not matched again).
const USERINFO: &str = r#"[^\s/?#@"'\\<>\[\]]"#;

static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    let p = |kind, re: &str| Pattern { kind, re: Regex::new(re).expect("valid redaction pattern"), word_start: false };
    // A pattern whose start must not be inside a word.
    let w = |kind, re: &str| Pattern { word_start: true, ..p(kind, re) };
    vec![
        p("private-key", KEY_BLOCK),
        w("anthropic-key", r"sk-ant-[A-Za-z0-9_\-]{20,}"),
        w("openai-key", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
        w("stripe-key", r"(?:(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}|whsec_[0-9A-Za-z]{24,})"),
        w("aws-access-key", r"(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
        w("github-token", r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
        w("slack-token", r"xox[abposr]-[A-Za-z0-9\-]{10,}"),
        p("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]+"),
        w("google-api-key", r"AIza[0-9A-Za-z_\-]{35}"),
        w("jwt", r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*"),
        p("url-credentials", &format!(r"(?P<keep>[A-Za-z][A-Za-z0-9+.\-]*://){USERINFO}*:{USERINFO}+(?P<tail>@)")),
        p(
            "authorization-header",
            &format!(
                r"(?i)(?P<keep>{START}authorization\\?\x22?\s*:\s*\\?\x22?(?:bearer|basic|token|bot)?\s*)[A-Za-z0-9._~+/=\-]{{8,}}"
            ),
        ),
        p(
            "env-secret",
            &format!(
                r"(?i)(?P<keep>{START}[A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY|ACCESS_KEY|CLIENT_SECRET)[A-Z0-9_]*\s*=\s*(?:\\\x22|')?)[^\s\x22'\\]{{4,}}"
            ),
        ),
    ]
});

/// The kinds of secret [`redact`] knows, in the order they are tried.
pub fn kinds() -> Vec<&'static str> {
    PATTERNS.iter().map(|p| p.kind).collect()
}

/// Where a secret was replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redaction {
    pub kind: &'static str,
    pub count: usize,
}

/// Replaces secrets in `text`. Returns the text (borrowed when nothing
/// matched) and what was replaced.
pub fn redact(text: &str) -> (Cow<'_, str>, Vec<Redaction>) {
    let mut out: Cow<'_, str> = Cow::Borrowed(text);
    let mut found = Vec::new();
    // The decoded view of `out`, when it has escapes to decode (rebuilt after a change).
    let mut view: Option<Option<Decoded>> = None;
    for p in PATTERNS.iter() {
        let decoded: &Option<Decoded> = view.get_or_insert_with(|| Decoded::of(&out));
        let hay: &str = decoded.as_ref().map_or(&out, |d| &d.text);
        if !p.re.is_match(hay) {
            continue;
        }
        let spans: Vec<(usize, usize)> = matches(p, hay)
            .into_iter()
            .map(|(a, b)| match decoded {
                Some(d) => (d.to_raw(a), d.to_raw(b)),
                None => (a, b),
            })
            .collect();
        if spans.is_empty() {
            continue;
        }
        let mut replaced = String::with_capacity(out.len());
        let mut last = 0;
        for &(a, b) in &spans {
            replaced.push_str(&out[last..a]);
            replaced.push_str("[REDACTED:");
            replaced.push_str(p.kind);
            replaced.push(']');
            last = b;
        }
        replaced.push_str(&out[last..]);
        match found.iter_mut().find(|r: &&mut Redaction| r.kind == p.kind) {
            Some(r) => r.count += spans.len(),
            None => found.push(Redaction { kind: p.kind, count: spans.len() }),
        }
        out = Cow::Owned(replaced);
        view = None;
    }
    (out, found)
}

/// The spans of `hay` pattern `p` replaces (without its `keep` and `tail` groups).
fn matches(p: &Pattern, hay: &str) -> Vec<(usize, usize)> {
    let next_char = |i: usize| i + hay[i..].chars().next().map_or(1, char::len_utf8);
    let mut spans = Vec::new();
    let mut at = 0;
    while at <= hay.len() {
        let Some(m) = p.re.find_at(hay, at) else { break };
        if p.word_start && !starts_a_word(hay, m.start()) {
            // Inside a word: look again from the next character.
            at = next_char(m.start());
            continue;
        }
        let (mut start, mut end) = (m.start(), m.end());
        if p.re.captures_len() > 1 {
            // The same match, with its groups.
            if let Some(c) = p.re.captures_at(hay, m.start()) {
                start = c.name("keep").map_or(start, |k| k.end());
                end = c.name("tail").map_or(end, |t| t.start());
            }
        }
        if start < end {
            spans.push((start, end));
        }
        at = if m.is_empty() { next_char(m.end()) } else { m.end() };
    }
    spans
}

/// A text with the JSON escapes that can hide a character of a secret
/// decoded: `\uXXXX` (and surrogate pairs) but for `"`, `\` and control
/// characters, `\/`, and both once more behind an escaped backslash (`\\u0041`,
/// a JSON text inside a JSON string).
struct Decoded {
    text: String,
    /// For each decoded escape: where it ends in `text` and in the original.
    ends: Vec<(usize, usize)>,
}

impl Decoded {
    /// `None` when `raw` holds nothing to decode (the view is `raw` itself).
    fn of(raw: &str) -> Option<Decoded> {
        let b = raw.as_bytes();
        memchr::memchr(b'\\', b)?;
        let mut text = String::with_capacity(raw.len());
        let mut ends = Vec::new();
        let (mut i, mut copied) = (0, 0);
        while let Some(at) = memchr::memchr(b'\\', &b[i..]).map(|k| i + k) {
            let Some((c, len)) = decode_at(b, at) else {
                // Another escape (`\n`, `\"`, `\\` not followed by `u`…): kept as it
                // is; a backslash at the very end of a plain text ends the scan.
                i = (at + 2).min(b.len());
                continue;
            };
            text.push_str(&raw[copied..at]);
            text.push(c);
            i = at + len;
            copied = i;
            ends.push((text.len(), i));
        }
        if ends.is_empty() {
            return None;
        }
        text.push_str(&raw[copied..]);
        Some(Decoded { text, ends })
    }

    /// The position in the original text of position `p` of the view (a
    /// character boundary; an escape maps as a whole).
    fn to_raw(&self, p: usize) -> usize {
        let i = self.ends.partition_point(|&(end, _)| end <= p);
        match i.checked_sub(1) {
            None => p,
            Some(j) => {
                let (end, raw_end) = self.ends[j];
                raw_end + (p - end)
            }
        }
    }
}

/// The character an escape at `b[at]` (a backslash) stands for, and its
/// length, when it is one the view decodes.
fn decode_at(b: &[u8], at: usize) -> Option<(char, usize)> {
    let hex4 = |from: usize| -> Option<u32> {
        let h = b.get(from..from + 4)?;
        u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok().filter(|_| h.iter().all(u8::is_ascii_hexdigit))
    };
    let plain = |c: char| !matches!(c, '"' | '\\') && !c.is_control();
    match b.get(at + 1)? {
        b'/' => Some(('/', 2)),
        b'u' => {
            let hi = hex4(at + 2)?;
            if (0xD800..0xDC00).contains(&hi) && b.get(at + 6..at + 8) == Some(b"\\u") {
                let lo = hex4(at + 8).filter(|lo| (0xDC00..0xE000).contains(lo))?;
                let c = char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?;
                return Some((c, 12));
            }
            char::from_u32(hi).filter(|c| plain(*c)).map(|c| (c, 6))
        }
        // `\\u0041`: an escape of a JSON text that is itself inside a string.
        b'\\' => match b.get(at + 2)? {
            b'/' => Some(('/', 3)),
            b'u' => char::from_u32(hex4(at + 3)?).filter(|c| c.is_ascii() && plain(*c)).map(|c| (c, 7)),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> String {
        redact(s).0.into_owned()
    }

    #[test]
    fn replaces_each_kind() {
        let cases = [
            ("key sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345 end", "anthropic-key"),
            ("key sk-proj-abcdefghijklmnopqrstuvwxyz0123 end", "openai-key"),
            ("id AKIAIOSFODNN7EXAMPLE end", "aws-access-key"),
            ("tok ghp_abcdefghijklmnopqrstuvwxyz0123456789 end", "github-token"),
            ("tok xoxb-1234567890-abcdefghij end", "slack-token"),
            ("key AIzaSyA1234567890abcdefghijklmnopqrstuv end", "google-api-key"),
        ];
        for (input, kind) in cases {
            let out = r(input);
            assert_eq!(out, format!("{} [REDACTED:{kind}] end", input.split(' ').next().unwrap()), "{input}");
        }
    }

    #[test]
    fn keeps_names_and_json_valid() {
        let line = serde_json::json!({"text": "export GITHUB_TOKEN=abcd1234efgh\nDB_PASSWORD=\"hunter22\"\ncurl -H 'Authorization: Bearer abcdef123456789'\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----"}).to_string();
        let (out, found) = redact(&line);
        let v: serde_json::Value = serde_json::from_str(&out).expect("still valid JSON");
        let text = v["text"].as_str().unwrap();
        assert!(text.contains("GITHUB_TOKEN=[REDACTED:env-secret]"), "{text}");
        assert!(text.contains("DB_PASSWORD=\"[REDACTED:env-secret]"), "{text}");
        assert!(text.contains("Authorization: Bearer [REDACTED:authorization-header]"), "{text}");
        assert!(text.contains("[REDACTED:private-key]") && !text.contains("MIIEow"), "{text}");
        assert_eq!(found.iter().map(|f| f.count).sum::<usize>(), 4);
    }

    #[test]
    fn finds_secrets_at_the_start_of_a_json_line() {
        let text = "a\nAKIAIOSFODNN7EXAMPLE\nsk-ant-api03-abcdefghijklmnopqrstuvwxyz\nghp_abcdefghijklmnopqrstuvwxyz0123456789\nAIzaSyA1234567890abcdefghijklmnopqrstuv\nxoxb-1234567890-abcdefghij\nsk-proj-abcdefghijklmnopqrstuvwxyz0123\nAuthorization: Bearer abcdef123456789\nDB_PASSWORD=hunter22";
        let line = serde_json::json!({ "text": text.replace("\\n", "\n") }).to_string();
        let (out, found) = redact(&line);
        assert_eq!(found.len(), 8, "{out}");
        assert!(out.starts_with("{\"text\":\"a\\n[REDACTED:aws-access-key]\\n"), "{out}");
        assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok());
        for (s, kind) in [("xsk-ant-api03-abcdefghijklmnopqrstuvwxyz", "anthropic"), ("XAKIAIOSFODNN7EXAMPLE", "aws")] {
            assert!(matches!(redact(s).0, Cow::Borrowed(_)), "{kind} inside a word");
        }
    }

    #[test]
    fn leaves_ordinary_text_alone() {
        for s in ["the password is in the vault", "sk-short", "AKIA lowercase", "TOKEN=", "task-ant"] {
            assert!(matches!(redact(s).0, Cow::Borrowed(_)), "{s}");
        }
    }

    /// A JSON line whose `text` field holds `text`, redacted: the line and
    /// the decoded field (which must still parse).
    fn in_line(raw_text: &str) -> (String, String) {
        let line = format!(r#"{{"type":"user","message":{{"content":"{raw_text}"}},"cwd":"/x"}}"#);
        let out = redact(&line).0.into_owned();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
        assert_eq!(v["cwd"], "/x", "{out}");
        (out.clone(), v["message"]["content"].as_str().unwrap_or_default().to_string())
    }

    #[test]
    fn truncated_private_key_block_is_redacted_to_the_end_of_the_field() {
        let (line, text) =
            in_line(r"cat id_rsa:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQyNTUxOQAAACDfake");
        assert_eq!(text, "cat id_rsa:\n[REDACTED:private-key]", "{line}");
        // In plain text: to the end of the text; a complete block ends at its END line.
        assert_eq!(r("-----BEGIN RSA PRIVATE KEY-----\nMIIEfake\nmore"), "[REDACTED:private-key]");
        assert_eq!(
            r("a -----BEGIN PGP PRIVATE KEY BLOCK-----\nlQdGBfake\n-----END PGP PRIVATE KEY BLOCK-----\nafter"),
            "a [REDACTED:private-key]\nafter"
        );
        // A cut block in one field does not swallow the fields after it.
        let line = r#"{"a":"-----BEGIN EC PRIVATE KEY-----\nMHcfake","b":{"c":"-----END EC PRIVATE KEY-----\nkept"}}"#;
        let out = redact(line).0;
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["a"], "[REDACTED:private-key]");
        assert_eq!(v["b"]["c"], "-----END EC PRIVATE KEY-----\nkept");
    }

    #[test]
    fn json_escaped_secrets_are_redacted_in_both_forms() {
        for (escaped, kind) in [
            (r"\u0041KIAIOSFODNN7EXAMPLE", "aws-access-key"),
            (r"\u0041\u004b\u0049\u0041IOSFODNN7EXAMPLE", "aws-access-key"),
            (r"sk\u002dant-api03-abcdefghijklmnopqrstuvwxyz", "anthropic-key"),
            (r"ghp_abcdefghijklmnop\u0071rstuvwxyz0123456789", "github-token"),
            (r"https:\/\/admin:hunter2fake@db.test\/app", "url-credentials"),
            // A JSON text inside a string (a `.json` file Claude wrote): escaped twice.
            (r"\\u0041KIAIOSFODNN7EXAMPLE", "aws-access-key"),
        ] {
            let (line, text) = in_line(&format!("key {escaped} end"));
            assert!(line.contains(&format!("[REDACTED:{kind}]")), "{escaped}: {line}");
            for secret in ["AKIAIOSFODNN7EXAMPLE", "IOSFODNN7EXAMPLE", "abcdefghijklmnop", "hunter2fake"] {
                assert!(!text.contains(secret) && !line.contains(secret), "{escaped}: {line}");
            }
            assert!(text.starts_with("key ") && text.ends_with(" end"), "{escaped}: {text}");
        }
        // Escapes that do not hide a secret are left as they are.
        let line = r#"{"text":"caf\u00e9 \u001b[31m \"q\" \\u0041"}"#;
        assert!(matches!(redact(line).0, Cow::Borrowed(_)));
    }

    #[test]
    fn jwts_are_redacted() {
        let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        assert_eq!(r(&format!("token: {jwt} ok")), "token: [REDACTED:jwt] ok");
        let unsigned = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJmYWtlIn0.";
        assert_eq!(r(&format!("({unsigned})")), "([REDACTED:jwt])");
    }

    #[test]
    fn stripe_live_and_test_keys_are_redacted() {
        for key in [
            "sk_live_51HfakeFAKEfake0123456789abcdef",
            "rk_live_51HfakeFAKEfake0123456789abcdef",
            "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
            "rk_test_51HfakeFAKEfake0123",
            "whsec_FAKEfake0123456789abcdefFAKE",
        ] {
            assert_eq!(r(&format!("key {key} end")), "key [REDACTED:stripe-key] end", "{key}");
        }
        assert!(
            matches!(redact("pk_live_51Hpublishable0123456789").0, Cow::Borrowed(_)),
            "publishable keys are public"
        );
    }

    #[test]
    fn credentials_in_urls_are_redacted() {
        for (url, shown) in [
            (
                "postgres://app:s3cretFAKE@db.internal:5432/app",
                "postgres://[REDACTED:url-credentials]@db.internal:5432/app",
            ),
            (
                "https://x-access-token:FAKEtok3n@github.com/o/r.git",
                "https://[REDACTED:url-credentials]@github.com/o/r.git",
            ),
            ("redis://:onlyApassw0rd@cache:6379", "redis://[REDACTED:url-credentials]@cache:6379"),
            ("amqp://guest:guest@localhost", "amqp://[REDACTED:url-credentials]@localhost"),
        ] {
            assert_eq!(r(&format!("url={url} ")), format!("url={shown} "), "{url}");
        }
        // Not credentials: a port, a path with `@`, scp-style git, an email.
        for s in [
            "http://localhost:3000/path@v2",
            "https://example.com:8080/a",
            "git@github.com:o/r.git",
            "mailto:me@example.com",
            "ssh://git@github.com/o/r",
        ] {
            assert!(matches!(redact(s).0, Cow::Borrowed(_)), "{s}");
        }
    }

    #[test]
    fn the_readme_table_lists_every_kind() {
        let readme = include_str!("../README.md");
        for kind in kinds() {
            assert!(readme.contains(&format!("| `{kind}`")) || readme.contains(&format!(", `{kind}`")), "{kind}");
        }
    }

    #[test]
    fn a_text_ending_in_a_backslash_is_no_panic() {
        // Found by `redacted_lines_stay_json`: a side file (plain text) whose last byte is `\`.
        assert!(matches!(redact("C:\\dir\\").0, Cow::Borrowed(_)));
        assert!(matches!(redact("\\").0, Cow::Borrowed(_)));
        assert_eq!(redact("\\u0041KIAIOSFODNN7EXAMPLE \\").0, "[REDACTED:aws-access-key] \\");
    }

    proptest::proptest! {
        /// Whatever a string field holds — pieces of secrets, escapes,
        /// quotes, backslashes, key blocks cut anywhere — its redacted line
        /// is still JSON, and the other fields are untouched.
        #[test]
        fn redacted_lines_stay_json(pieces in proptest::collection::vec(proptest::sample::select(vec![
            "AKIA", "IOSFODNN7EXAMPLE", "\u{41}KIA", "sk_live_", "rk_test_", "0123456789abcdef", "eyJ", "eyJhbGciOiJIUzI1NiJ9",
            ".", "://", "user:", "pw@", "@", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
            "\n", "\"", "\\", "\\u0041", "/", "\u{1b}", "é", "TOKEN=", "Authorization: Bearer ", " ",
        ]), 0..24)) {
            let text: String = pieces.concat();
            let line = serde_json::json!({"a": text, "b": "after", "c": {"d": text}}).to_string();
            let (out, _) = redact(&line);
            let v: serde_json::Value = serde_json::from_str(&out).map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{e}: {out}")))?;
            proptest::prop_assert_eq!(&v["b"], "after");
            proptest::prop_assert!(v["a"].is_string() && v["c"]["d"].is_string());
            // The plain text itself (a side file) is no panic either.
            let _ = redact(&text);
        }

        /// Any text at all, escapes of every kind included: no panic, and
        /// a text with nothing replaced is returned as it is.
        #[test]
        fn any_text_is_no_panic(text in r"(\\(u[0-9a-fA-F]{0,4}|[\\/nu\x22])?|.){0,40}") {
            let (out, found) = redact(&text);
            proptest::prop_assert_eq!(found.is_empty(), matches!(out, Cow::Borrowed(_)));
        }
    }
}

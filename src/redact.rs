//! `--redact`: replaces common secrets with `[REDACTED:<kind>]` before anything
//! is derived from a line, so pages, titles and the search index never see them.
//!
//! Patterns run over each line's JSON text. Replacements contain no quote or
//! backslash, so a line stays valid JSON. Secrets split by JSON escapes
//! (`\u0041KIA…`) are not recognised: redaction is a safety net, not a proof.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Captures, Regex};

/// One pattern: a kind name and a regex. When the regex has a group named
/// `keep`, that part stays (e.g. the variable name of `TOKEN=value`).
struct Pattern {
    kind: &'static str,
    re: Regex,
}

/// The start of a secret: the start of the text, a non-word character, or a
/// JSON escape (`\n`, `\t`, `\r`): patterns run over JSON text, where a secret
/// at the start of a line follows `\n`, so `\b` alone would miss it.
const START: &str = r"(?:^|[^A-Za-z0-9_]|\\[nrt])";

static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    let p = |kind, re: &str| Pattern { kind, re: Regex::new(re).expect("valid redaction pattern") };
    // A pattern whose start must not be inside a word: what precedes it stays.
    let w = |kind, re: &str| p(kind, &format!("(?P<keep>{START}){re}"));
    vec![
        p("private-key", r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)-----END [A-Z0-9 ]*PRIVATE KEY-----"),
        w("anthropic-key", r"sk-ant-[A-Za-z0-9_\-]{20,}"),
        w("openai-key", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
        w("aws-access-key", r"(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
        w("github-token", r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
        w("slack-token", r"xox[abposr]-[A-Za-z0-9\-]{10,}"),
        p("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]+"),
        w("google-api-key", r"AIza[0-9A-Za-z_\-]{35}"),
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
    for p in PATTERNS.iter() {
        let count = p.re.find_iter(&out).count();
        if count == 0 {
            continue;
        }
        let replaced = p.re.replace_all(&out, |c: &Captures<'_>| {
            let keep = c.name("keep").map_or("", |m| m.as_str());
            format!("{keep}[REDACTED:{}]", p.kind)
        });
        out = Cow::Owned(replaced.into_owned());
        found.push(Redaction { kind: p.kind, count });
    }
    (out, found)
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
}

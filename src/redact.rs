//! `--redact`: replaces common secrets with `[REDACTED:<kind>]` before anything
//! is derived from a line, so pages, titles, the search index and the parse
//! caches never see them.
//!
//! [`redact`] runs on each line's JSON text at parse time (before anything is
//! read from it); [`redact_text`] on plain strings that are not entry lines
//! (spilled `tool-results/` files, directory names, sidecars), which it
//! writes as a JSON string first, so both are matched alike. Patterns match
//! on a *decoded view* of the JSON text, where every escape but `\"` and
//! `\\` is decoded: `\u0041KIA…` reads `AKIA…`, `https:\/\/` reads
//! `https://`, `\n`, `\f`, `\b` and `\u001b` are the characters they stand
//! for, the escapes of a JSON text nested in a string (`\\u0041`) too, and a
//! terminal colour sequence (`\u001b[32m`) is one ESC character, so a token
//! right after it starts a word. A match is mapped back to the original text
//! and replaced there, so the secret goes in its escaped form (the bytes of
//! the line) and hence in its decoded form (everything read from the line).
//! `\"` and `\\` stay escaped in the view, so the patterns see the JSON
//! structure: a raw `"` ends a string. A replacement is written only inside
//! string values (never an object's key, never the JSON between strings; a
//! match spanning several strings, a private key written one line per string,
//! replaces each piece), and holds no quote or backslash: a line stays valid
//! JSON.
//!
//! A private key block whose `-----END` line was cut off (a truncated tool
//! output) is replaced up to the end of its JSON string (an unescaped `"`),
//! or of the text, and the base64 lines of the strings that follow it in an
//! array. Besides the built-in kinds, [`configure`] adds the user's own words
//! and regexes (`--redact-file`), home directories and the user's name.
//! Redaction is a safety net, not a proof: see the guide's table of what is
//! covered.

use std::borrow::Cow;
use std::sync::{LazyLock, OnceLock};

use regex::Regex;

/// One pattern: a kind name and a regex. When the regex has a group named
/// `keep`, the text it matched stays (e.g. the variable name of
/// `TOKEN=value`); so does a group named `tail` at the end (the `@` of a URL).
#[derive(Debug)]
struct Pattern {
    kind: &'static str,
    re: Regex,
    /// The match must start a word: no ASCII letter, digit or `_` before it.
    word_start: bool,
    /// The match must end a word: no ASCII letter, digit or `_` after it.
    word_end: bool,
}

impl Pattern {
    fn new(kind: &'static str, re: &str) -> Pattern {
        Pattern { kind, re: Regex::new(re).expect("valid redaction pattern"), word_start: false, word_end: false }
    }
    /// A token that must start a word (checked in code, not with `\b`:
    /// keeping it out of the regex lets the regex search for its literal
    /// prefix, `sk_live_`, directly, many times faster).
    fn word(kind: &'static str, re: &str) -> Pattern {
        Pattern { word_start: true, ..Pattern::new(kind, re) }
    }
    fn whole_word(kind: &'static str, re: &str) -> Pattern {
        Pattern { word_end: true, ..Pattern::word(kind, re) }
    }
}

/// The start of a `keep` group that names a key: the start of the text or a
/// non-word character (the view has `\n` decoded, so a line start is one).
const START: &str = r"(?:^|[^A-Za-z0-9_])";

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The body of a private key block: up to its END line, else (the block was
/// cut off) to the end of the JSON string or text. `\\.` steps over escapes,
/// so an escaped quote of a nested JSON text does not end it; `","` crosses
/// into the next string of an array (a key written one line per string, as
/// a `Write`'s `structuredPatch` holds it), and a cut block takes the
/// base64 lines of the strings after it.
const KEY_BLOCK: &str = r#"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:(?:[^"\\]|(?s:\\.)|"\s*,\s*")*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|(?:[^"\\]|(?s:\\.))*(?:"(?:\s*,\s*"[+\- ]?[A-Za-z0-9+/=]+\s*")*)?)"#;

/// Characters of a URL's `user:password` part (not `[`, so a part already
/// redacted is not matched again).
const USERINFO: &str = r#"[^\s/?#@"'\\<>\[\]]"#;

/// Names of keys, variables and headers whose value is a secret. The name
/// ends with one of them (`SessionToken`, `SecretAccessKey`, `client_secret`,
/// `private_key_id`), so `apiKeySource` or `input_tokens` are not.
const SECRET_NAME: &str = r"[A-Za-z0-9_.\-]*(?:password|passwd|passphrase|secret|token|api[_\-]?key|private[_\-]?key(?:[_\-]?id)?|access[_\-]?key|secret[_\-]?key|credentials?)";

/// The value of a string in a JSON text nested in a string (`\"…\"` in the
/// view): plain characters, and escapes of the nested text (`\\n`, `\\\"`).
const NESTED_VALUE: &str = r#"(?:[^"\\]|\\\\(?:\\["\\]|[^"\\]))+"#;

static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    let (p, w, ww) = (Pattern::new, Pattern::word, Pattern::whole_word);
    let env = |quote: &str, value: &str| {
        p(
            "env-secret",
            &format!(
                r"(?i)(?P<keep>{START}[A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|PRIVATE_KEY|ACCESS_KEY|SECRET_KEY(?:_BASE)?|CREDENTIALS?)\s*=\s*{quote}){value}"
            ),
        )
    };
    vec![
        p("private-key", KEY_BLOCK),
        w("anthropic-key", r"sk-ant-[A-Za-z0-9_\-]{20,}"),
        w("openrouter-key", r"sk-or-v1-[A-Za-z0-9]{32,}"),
        w("openai-key", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
        w("stripe-key", r"(?:(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}|whsec_[0-9A-Za-z]{24,})"),
        w("aws-access-key", r"(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
        w("github-token", r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
        w("gitlab-token", r"gl(?:pat|ptt|dt|rt|soat|cbt|ft|imt|agent)-[A-Za-z0-9_\-]{20,}"),
        w("npm-token", r"npm_[A-Za-z0-9]{36,}"),
        w("huggingface-token", r"hf_[A-Za-z0-9]{30,}"),
        w("slack-token", r"(?:xox[abposre]|xapp)-[A-Za-z0-9\-]{10,}"),
        p("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]+"),
        w("supabase-token", r"(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_\-]{20,})"),
        ww("telegram-bot-token", r"(?:bot)?[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}"),
        w("google-api-key", r"AIza[0-9A-Za-z_\-]{35}"),
        w("jwt", r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*"),
        p("url-credentials", &format!(r"(?P<keep>[A-Za-z][A-Za-z0-9+.\-]*://){USERINFO}*:{USERINFO}+(?P<tail>@)")),
        p(
            "authorization-header",
            &format!(
                r"(?i)(?P<keep>{START}(?:proxy-)?authorization\\?\x22?\s*:\s*\\?\x22?(?:bearer|basic|token|bot)?\s*)[A-Za-z0-9._~+/=\-]{{8,}}"
            ),
        ),
        p(
            "api-key-header",
            &format!(
                r"(?i)(?P<keep>{START}(?:x-api-key|api-key|apikey|x-auth-token|x-goog-api-key|x-access-token|x-api-token)\\?\x22?\s*[:=]\s*\\?\x22?\s*)[A-Za-z0-9._~+/=\-]{{8,}}"
            ),
        ),
        // `"password": "…"` in the JSON of a line, and in a JSON text inside a string.
        p("json-secret", &format!(r#"(?i)(?P<keep>"{SECRET_NAME}"\s*:\s*")(?:[^"\\]|\\.)+"#)),
        p("json-secret", &format!(r#"(?i)(?P<keep>\\"{SECRET_NAME}\\"\s*:\s*\\"){NESTED_VALUE}"#)),
        // `password: …` at the start of a line (YAML, `.netrc`-like files): a
        // quoted value, or one word and nothing after it but a comment.
        p(
            "yaml-secret",
            &format!(
                r#"(?im)(?P<keep>(?:^|")[ \t]*(?:-[ \t]+)?{SECRET_NAME}[ \t]*:[ \t]+)(?:\\"{NESTED_VALUE}\\"|'[^'"\\\n]+'|[^\s"'\\#\[{{|>&*!][^\s"\\]*)(?P<tail>[ \t]*(?:#|\r?\n|$|"))"#
            ),
        ),
        // `.env`, shell and INI assignments to a name that ends with a secret
        // word (`GITHUB_TOKEN`, `aws_secret_access_key`; not `token_count` or
        // `max_tokens`): a double-quoted value (`\"…\"` in the view), a
        // single-quoted one, or a bare word (backslash escapes and quoted
        // pieces included).
        env(r#"\\""#, NESTED_VALUE),
        // A single-quoted value runs across lines (`\n` in the line) as the
        // shell reads it; a quote left open in a bare word takes the rest.
        env("'", r#"(?:[^'"\\]|\\["\\nrt])+"#),
        env(
            "",
            r#"(?:[^\s"'\\]|\\\\(?:\\["\\]|[^\s"\\]))(?:[^\s"'\\]|\\\\(?:\\["\\]|[^\s"\\])|'(?:[^'"\\]|\\[nrt])*'?|\\"[^"\\]*(?:\\")?)*"#,
        ),
    ]
});

/// The kinds of secret [`redact`] knows, in the order they are tried.
pub fn kinds() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = PATTERNS.iter().map(|p| p.kind).collect();
    out.dedup();
    out
}

/// What the user asked to hide besides the built-in kinds: the words and
/// regexes of `--redact-file`, and (by default) home directories and the
/// user's name. Set once per process with [`configure`].
#[derive(Debug, Default)]
pub struct UserRules {
    patterns: Vec<Pattern>,
    /// What the rules were made from (a render's cache is valid for one set).
    source: String,
}

/// The kind of a `--redact-file` entry.
pub const CUSTOM: &str = "custom";
/// The kind of a home directory (`/home/<name>`, `/Users/<name>`, `$HOME`).
pub const HOME_DIR: &str = "home-dir";
/// The kind of the user's name.
pub const USER_NAME: &str = "user-name";

/// Account names too common to hide as a person's name (`root` would
/// replace every `root` of every transcript).
const COMMON_ACCOUNTS: &[&str] = &[
    "root",
    "user",
    "users",
    "admin",
    "administrator",
    "ubuntu",
    "debian",
    "runner",
    "build",
    "home",
    "guest",
    "test",
    "dev",
    "node",
    "app",
    "www",
    "nobody",
    "vagrant",
    "ec2-user",
];

impl UserRules {
    /// Rules from a `--redact-file` text (one entry a line: a literal word,
    /// or `regex:` and a regular expression; `#` starts a comment line) and,
    /// when `defaults`, home directories and the user's name (`home`, `user`).
    /// An invalid regex is an error naming its line.
    pub fn new(
        file: Option<(&str, &str)>,
        defaults: bool,
        home: Option<&str>,
        user: Option<&str>,
    ) -> Result<UserRules, String> {
        let mut r = UserRules::default();
        if let Some((name, text)) = file {
            for (i, line) in text.lines().enumerate() {
                let entry = line.trim_end_matches('\r');
                if entry.trim().is_empty() || entry.trim_start().starts_with('#') {
                    continue;
                }
                r.source.push_str(entry);
                r.source.push('\n');
                let pattern = match entry.strip_prefix("regex:") {
                    Some(re) => Pattern {
                        re: Regex::new(re).map_err(|e| format!("{name}:{}: not a valid regex: {e}", i + 1))?,
                        ..Pattern::new(CUSTOM, "")
                    },
                    None => literal(CUSTOM, entry.trim()),
                };
                r.patterns.push(pattern);
            }
        }
        if defaults {
            r.source.push_str("defaults\n");
            r.patterns.push(Pattern::new(
                HOME_DIR,
                r#"(?:/home/|/Users/|/export/home/)[^\s/\\"'`:;,()\[\]<>|*?]+|[A-Za-z]:(?:\\\\|/)(?:Users|Documents and Settings)(?:(?:\\\\|/)[^\s/\\"'`:;,()\[\]<>|*?]+|[\n\r\t\x0c\x08][^\s/\\"'`:;,()\[\]<>|*?]*)"#,
            ));
            if let Some(h) = home.map(|h| h.trim_end_matches('/')).filter(|h| h.len() > 1 && h.starts_with('/')) {
                r.source.push_str(h);
                r.source.push('\n');
                r.patterns.push(Pattern { word_end: true, ..Pattern::new(HOME_DIR, &regex::escape(&json_escaped(h))) });
            }
            if let Some(u) =
                user.filter(|u| u.chars().count() >= 3 && !COMMON_ACCOUNTS.contains(&u.to_lowercase().as_str()))
            {
                r.source.push_str(u);
                r.source.push('\n');
                r.patterns.push(literal(USER_NAME, u));
            }
        }
        Ok(r)
    }

    /// A short hash of what the rules were made from ("" for none).
    pub fn fingerprint(&self) -> String {
        if self.source.is_empty() {
            return String::new();
        }
        blake3::hash(self.source.as_bytes()).to_hex()[..16].to_string()
    }
}

/// A literal word, matched without regard to case, not inside a longer word.
fn literal(kind: &'static str, word: &str) -> Pattern {
    let starts = word.bytes().next().is_some_and(is_word_byte);
    let ends = word.bytes().last().is_some_and(is_word_byte);
    Pattern {
        word_start: starts,
        word_end: ends,
        ..Pattern::new(kind, &format!("(?i){}", regex::escape(&json_escaped(word))))
    }
}

/// `s` as it reads in the decoded view of a JSON string (`"` and `\` escaped).
fn json_escaped(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

static USER: OnceLock<UserRules> = OnceLock::new();

/// Sets the user's rules for this process (once; later calls are ignored).
pub fn configure(rules: UserRules) {
    let _ = USER.set(rules);
}

/// The fingerprint of the configured user rules ("" for none).
pub fn fingerprint() -> String {
    USER.get().map(UserRules::fingerprint).unwrap_or_default()
}

/// Where a secret was replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redaction {
    pub kind: &'static str,
    pub count: usize,
}

/// Replaces secrets in `text`, a JSON text (an entry line). Returns the text
/// (borrowed when nothing matched) and what was replaced.
pub fn redact(text: &str) -> (Cow<'_, str>, Vec<Redaction>) {
    redact_with(text, USER.get())
}

/// Replaces secrets in a plain text (not JSON): a side file, a name, a path.
pub fn redact_text(text: &str) -> (Cow<'_, str>, Vec<Redaction>) {
    redact_text_with(text, USER.get())
}

fn redact_text_with<'t>(text: &'t str, user: Option<&UserRules>) -> (Cow<'t, str>, Vec<Redaction>) {
    let json = serde_json::to_string(text).unwrap_or_default();
    let (out, found) = redact_with(&json, user);
    if found.is_empty() {
        return (Cow::Borrowed(text), found);
    }
    // Replacements hold no quote or backslash, so the string still reads; were
    // it not to, its JSON text (redacted) is returned rather than the secret.
    let plain = serde_json::from_str::<String>(&out).unwrap_or_else(|_| out.into_owned());
    (Cow::Owned(plain), found)
}

fn redact_with<'t>(text: &'t str, user: Option<&UserRules>) -> (Cow<'t, str>, Vec<Redaction>) {
    let mut out: Cow<'_, str> = Cow::Borrowed(text);
    let mut found: Vec<Redaction> = Vec::new();
    // The decoded view of `out`, when it has escapes to decode, and where its
    // string values lie (both rebuilt after a change).
    let mut view: Option<Option<Decoded>> = None;
    let mut strings: Option<Vec<(usize, usize, bool)>> = None;
    let user_patterns = user.map_or(&[][..], |u| &u.patterns[..]);
    for p in PATTERNS.iter().chain(user_patterns) {
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
        let in_strings = strings.get_or_insert_with(|| strings_of(&out));
        // The user's words and regexes, and the lines after a cut key block,
        // leave the keys of the structure alone.
        let keys = !matches!(p.kind, CUSTOM | USER_NAME | "private-key");
        let mut replaced = String::with_capacity(out.len());
        let (mut last, mut count) = (0, 0);
        for &(a, b) in &spans {
            let mut any = false;
            for (x, y) in pieces(in_strings, a.max(last), b, keys) {
                replaced.push_str(&out[last..x]);
                replaced.push_str("[REDACTED:");
                replaced.push_str(p.kind);
                replaced.push(']');
                last = y;
                any = true;
            }
            count += usize::from(any);
        }
        if count == 0 {
            continue;
        }
        replaced.push_str(&out[last..]);
        match found.iter_mut().find(|r| r.kind == p.kind) {
            Some(r) => r.count += count,
            None => found.push(Redaction { kind: p.kind, count }),
        }
        out = Cow::Owned(replaced);
        view = None;
        strings = None;
    }
    (out, found)
}

/// The spans of `hay` pattern `p` replaces (without its `keep` and `tail` groups).
fn matches(p: &Pattern, hay: &str) -> Vec<(usize, usize)> {
    let next_char = |i: usize| i + hay[i..].chars().next().map_or(1, char::len_utf8);
    let b = hay.as_bytes();
    let mut spans = Vec::new();
    let mut at = 0;
    while at <= hay.len() {
        let Some(m) = p.re.find_at(hay, at) else { break };
        let inside_word = (p.word_start && m.start() > 0 && is_word_byte(b[m.start() - 1]))
            || (p.word_end && b.get(m.end()).copied().is_some_and(is_word_byte));
        if inside_word || m.is_empty() {
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
        // What an earlier pattern replaced is not a secret again.
        if start < end && !hay[start..end].starts_with("[REDACTED:") {
            spans.push((start, end));
        }
        at = m.end();
    }
    spans
}

/// Where the strings of a JSON text lie: `(start, end, identifier key)` of
/// each string's contents, between its quotes; the flag marks an object's key
/// that is a plain identifier (`parentUuid`, `message`: the structure the
/// user's own words must never break). Tolerant: any text is read as far as
/// its quotes go.
fn strings_of(raw: &str) -> Vec<(usize, usize, bool)> {
    let b = raw.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(open) = memchr::memchr(b'"', &b[i..]).map(|k| i + k) {
        let mut j = open + 1;
        let close = loop {
            if j >= b.len() {
                break b.len();
            }
            match memchr::memchr2(b'"', b'\\', &b[j..]).map(|k| j + k) {
                Some(k) if b[k] == b'\\' => j = k + 2,
                Some(k) => break k,
                None => break b.len(),
            }
        };
        let after = b[(close + 1).min(b.len())..].iter().find(|c| !c.is_ascii_whitespace());
        let ident = after == Some(&b':') && b[open + 1..close].iter().all(|c| is_word_byte(*c));
        out.push((open + 1, close, ident));
        i = close + 1;
        if i >= b.len() {
            break;
        }
    }
    out
}

/// The parts of span `a..b` that lie inside strings (but identifier keys,
/// unless `keys`).
fn pieces(strings: &[(usize, usize, bool)], a: usize, b: usize, keys: bool) -> Vec<(usize, usize)> {
    let first = strings.partition_point(|&(_, end, _)| end <= a);
    strings[first..]
        .iter()
        .take_while(|&&(start, _, _)| start < b)
        .filter(|&&(_, _, ident)| keys || !ident)
        .map(|&(start, end, _)| (start.max(a), end.min(b)))
        .filter(|(x, y)| x < y)
        .collect()
}

/// A text with the JSON escapes decoded but for `\"` and `\\` (which carry
/// the structure), also once more behind an escaped backslash (`\\u0041`,
/// `\\n`: a JSON text inside a JSON string); a terminal control sequence
/// (`ESC [ … m`) after an escaped ESC is one ESC character.
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
                // `\"`, `\\` not followed by an escape it decodes, or an
                // invalid escape: kept as it is; a backslash at the very end
                // of a plain text ends the scan.
                i = (at + 2).min(b.len());
                continue;
            };
            let len = if c == '\u{1b}' { len + csi_len(&b[at + len..]) } else { len };
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

/// The length of the rest of a CSI sequence (`[`, parameters, intermediates,
/// a final byte) at the start of `b`; 0 when there is none.
fn csi_len(b: &[u8]) -> usize {
    if b.first() != Some(&b'[') {
        return 0;
    }
    let params = b[1..].iter().take_while(|c| (0x30..=0x3f).contains(*c)).count();
    let inter = b[1 + params..].iter().take_while(|c| (0x20..=0x2f).contains(*c)).count();
    match b.get(1 + params + inter) {
        Some(c) if (0x40..=0x7e).contains(c) => 2 + params + inter,
        _ => 0,
    }
}

/// The character an escape at `b[at]` (a backslash) stands for, and its
/// length, when it is one the view decodes.
fn decode_at(b: &[u8], at: usize) -> Option<(char, usize)> {
    let hex4 = |from: usize| -> Option<u32> {
        let h = b.get(from..from + 4)?;
        u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok().filter(|_| h.iter().all(u8::is_ascii_hexdigit))
    };
    let plain = |c: char| !matches!(c, '"' | '\\');
    let control = |c: u8| match c {
        b'n' => Some('\n'),
        b'r' => Some('\r'),
        b't' => Some('\t'),
        b'f' => Some('\u{c}'),
        b'b' => Some('\u{8}'),
        _ => None,
    };
    match *b.get(at + 1)? {
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
        // `\\u0041`, `\\n`: an escape of a JSON text that is itself inside a string.
        b'\\' => match *b.get(at + 2)? {
            b'/' => Some(('/', 3)),
            b'u' => char::from_u32(hex4(at + 3)?).filter(|c| c.is_ascii() && plain(*c)).map(|c| (c, 7)),
            c => control(c).map(|c| (c, 3)),
        },
        c => control(c).map(|c| (c, 2)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain text, redacted.
    fn r(s: &str) -> String {
        redact_text(s).0.into_owned()
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
            assert!(matches!(redact_text(s).0, Cow::Borrowed(_)), "{kind} inside a word");
        }
    }

    #[test]
    fn leaves_ordinary_text_alone() {
        for s in ["the password is in the vault", "sk-short", "AKIA lowercase", "TOKEN=", "task-ant"] {
            assert!(matches!(redact_text(s).0, Cow::Borrowed(_)), "{s}");
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
            matches!(redact_text("pk_live_51Hpublishable0123456789").0, Cow::Borrowed(_)),
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
            assert!(matches!(redact_text(s).0, Cow::Borrowed(_)), "{s}");
        }
    }

    #[test]
    fn a_text_ending_in_a_backslash_is_no_panic() {
        // Found by `redacted_lines_stay_json`: a side file (plain text) whose last byte is `\`.
        assert!(matches!(redact("C:\\dir\\").0, Cow::Borrowed(_)));
        assert!(matches!(redact("\\").0, Cow::Borrowed(_)));
        assert_eq!(redact("\"\\u0041KIAIOSFODNN7EXAMPLE \\").0, "\"[REDACTED:aws-access-key] \\");
        assert!(matches!(redact_text("C:\\dir\\").0, Cow::Borrowed(_)));
    }

    /// A token right after a terminal colour code
    /// (`\u001b[32m`, as coloured Bash output stores it) or a JSON `\f` / `\b`
    /// escape was kept: the word-start check saw the `m` of `[32m`.
    #[test]
    fn a_token_after_an_ansi_colour_or_a_json_control_escape_is_redacted() {
        let tokens = [
            ("ghp_FAKEfakeFAKEfake0123456789abcdefghij", "github-token"),
            ("AKIAFAKE0123456789AB", "aws-access-key"),
            ("AIzaSyFAKEfake0123456789abcdefghijklmno", "google-api-key"),
            ("sk-ant-api03-FAKEfakeFAKEfake0123456789", "anthropic-key"),
            ("sk-proj-FAKEopenaiFAKE0123456789abcd", "openai-key"),
            ("sk_live_51HFAKEstripe0123456789", "stripe-key"),
            ("xoxb-123456789012-FAKEslackFAKE", "slack-token"),
            ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJGQUtFIn0.FAKEsig0123", "jwt"),
        ];
        for (token, kind) in tokens {
            for before in
                [r"\u001b[32m", r"\u001B[1;31m", r"\u001b[0m\u001b[32m", r"\f", r"\b", r"\\u001b[32m", r"\\n", r"\t"]
            {
                let line = format!(r#"{{"stdout":"ok {before}{token}\u001b[0m done"}}"#);
                let (out, found) = redact(&line);
                assert!(!out.contains(&token[6..]), "{before}{token}: {out}");
                assert_eq!(found.first().map(|f| f.kind), Some(kind), "{before}{token}: {out}");
                let v: serde_json::Value = serde_json::from_str(&out).unwrap();
                assert!(v["stdout"].as_str().unwrap().ends_with("\u{1b}[0m done"), "{out}");
            }
        }
        // The colour code itself stays, and a token inside a word is still not one.
        assert_eq!(r("\u{1b}[32mghp_FAKEfakeFAKEfake0123456789abcdefghij"), "\u{1b}[32m[REDACTED:github-token]");
        assert!(matches!(redact_text("xghp_FAKEfakeFAKEfake0123456789abcdefghij").0, Cow::Borrowed(_)));
    }

    /// Env values were half redacted: a quoted value with
    /// spaces kept all after the first word, a value with `\`, `'` or `"`
    /// kept everything from that character on.
    #[test]
    fn env_values_are_redacted_whole() {
        for (text, kept) in [
            (r#"DB_PASSWORD="correct horse battery staple""#, r#"DB_PASSWORD="[REDACTED:env-secret]""#),
            (
                r#"export API_TOKEN='pa ss "quoted" \ too' && next"#,
                r#"export API_TOKEN='[REDACTED:env-secret]' && next"#,
            ),
            (r"SECRET=ab\cd7Xq9Lm2Zt", "SECRET=[REDACTED:env-secret]"),
            (r#"PASSWORD=abc\"def"ghi" rest"#, "PASSWORD=[REDACTED:env-secret] rest"),
            (r#"CLIENT_SECRET="a \"b\" c\\" tail"#, r#"CLIENT_SECRET="[REDACTED:env-secret]" tail"#),
            ("PASSWORD=x'y'z", "PASSWORD=[REDACTED:env-secret]"),
        ] {
            let out = r(text);
            assert!(out.starts_with(kept), "{text} → {out}");
            for word in ["horse", "battery", "staple", "quoted", "too", "pa ss", "cd7Xq9Lm2Zt", "def", "ghi", "y'z"] {
                assert!(!out.contains(word), "{text} → {out}");
            }
            // And in a line, as a Bash command stores it.
            let line = serde_json::json!({"command": text, "after": "kept"}).to_string();
            let (out, _) = redact(&line);
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["after"], "kept");
            assert!(v["command"].as_str().unwrap().starts_with(kept), "{line} → {out}");
        }
    }

    /// A quote left open in a bare value kept the rest of
    /// it (`PASSWORD=x'Yq9…` → `…[REDACTED:env-secret]'Yq9…`), and a
    /// single-quoted value across lines kept its lines after the first.
    #[test]
    fn env_values_with_a_quote_left_open_are_redacted_whole() {
        for text in [
            "PASSWORD=x'Yq9Lm2Zt rest",
            "PASSWORD=x\"Yq9Lm2Zt rest",
            "PASSWORD='Yq9Lm2Zt rest",
            "PASSWORD='ab\nYq9Lm2Zt' end",
        ] {
            let out = r(text);
            assert!(out.starts_with("PASSWORD="), "{text} → {out}");
            assert!(!out.contains("Yq9Lm2Zt"), "{text} → {out}");
            let line = serde_json::json!({"command": text, "after": "kept"}).to_string();
            let (out, _) = redact(&line);
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["after"], "kept");
            assert!(!v["command"].as_str().unwrap().contains("Yq9Lm2Zt"), "{line} → {out}");
        }
    }

    /// A private key written one line per string (a
    /// `Write`'s `structuredPatch`) kept its body: only the `BEGIN` string
    /// was replaced, and the line was kept so in the parse cache.
    #[test]
    fn a_private_key_one_line_per_string_is_redacted() {
        let body = [
            "MIIEpAIBAAKCAQEAfakeFAKEfakeFAKE0123456789abcdefghij",
            "Zm9vYmFyYmF6FAKEfake0123456789abcdefghijklmnopqr",
            "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=",
        ];
        let mut lines = vec!["@@ -0,0 +1,5 @@".to_string(), "+-----BEGIN RSA PRIVATE KEY-----".to_string()];
        lines.extend(body.iter().map(|b| format!("+{b}")));
        lines.push("+-----END RSA PRIVATE KEY-----".into());
        lines.push("+after the key".into());
        let line = serde_json::json!({"toolUseResult": {"structuredPatch": [{"oldStart": 0, "lines": lines}], "type": "create"}}).to_string();
        let (out, found) = redact(&line);
        for b in body {
            assert!(!out.contains(b), "{out}");
        }
        assert_eq!(found, vec![Redaction { kind: "private-key", count: 1 }]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let got = v["toolUseResult"]["structuredPatch"][0]["lines"].as_array().unwrap();
        assert_eq!(got.len(), 7, "one string per line still: {out}");
        assert_eq!(got[6], "+after the key");
        assert_eq!(v["toolUseResult"]["type"], "create");
        // Cut before its END line: the base64 lines after it go too, the rest stays.
        let cut: Vec<String> = lines[..4].iter().cloned().chain(["+fn main() {}".to_string()]).collect();
        let line = serde_json::json!({"lines": cut, "k": 1}).to_string();
        let (out, _) = redact(&line);
        assert!(!out.contains(body[0]) && !out.contains(body[1]), "{out}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["lines"][4], "+fn main() {}", "{out}");
        assert_eq!(v["k"], 1);
    }

    /// Kinds users met unredacted.
    #[test]
    fn kinds_users_reported_are_redacted() {
        let sts = r#"{"Credentials": {"AccessKeyId": "ASIAFAKE0123456789AB", "SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEY", "SessionToken": "FwoGZXIvYXdzEFAKEtoken+/Fake=", "Expiration": "2026-03-02T10:00:00Z"}}"#;
        let service_account = r#"{"type": "service_account", "project_id": "demo", "private_key_id": "0123456789abcdefFAKEfake0123456789abcdef", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvFAKEserviceACCOUNTkey\n-----END PRIVATE KEY-----\n", "client_email": "bot@demo.iam.gserviceaccount.com"}"#;
        let cases: &[(&str, &str, &str)] = &[
            (sts, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEY", "json-secret"),
            (sts, "FwoGZXIvYXdzEFAKEtoken+/Fake=", "json-secret"),
            (sts, "ASIAFAKE0123456789AB", "aws-access-key"),
            (r#"{"db": {"password": "hunter2FAKE pass"}}"#, "hunter2FAKE", "json-secret"),
            ("db:\n  host: x\n  password: hunter2FAKEyaml\n  port: 5432", "hunter2FAKEyaml", "yaml-secret"),
            ("auth_token: \"quoted FAKE yaml token\"", "quoted FAKE", "yaml-secret"),
            ("curl -H 'x-api-key: FAKEanthropicKEY0123' https://x.test", "FAKEanthropicKEY0123", "api-key-header"),
            ("GET /v1?apikey=FAKEquery0123456789", "FAKEquery0123456789", "api-key-header"),
            ("glpat-FAKEfakeFAKEfake0123xyz", "FAKEfakeFAKEfake0123xyz", "gitlab-token"),
            (
                "//registry.npmjs.org/:_authToken=npm_FAKEfakeFAKEfake0123456789abcdefghij",
                "FAKEfakeFAKEfake0123456789abcdefghij",
                "npm-token",
            ),
            ("hf_FAKEfakeFAKEfakeFAKEfakeFAKEfakeXY", "FAKEfakeFAKEfakeFAKEfakeFAKEfakeXY", "huggingface-token"),
            ("xapp-1-A0FAKE1234-1234567890123-abcdefFAKE", "A0FAKE1234-1234567890123", "slack-token"),
            (
                "sk-or-v1-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
                "0123456789abcdef0123456789abcdef",
                "openrouter-key",
            ),
            (
                "sbp_0123456789abcdef0123456789abcdef01234567",
                "0123456789abcdef0123456789abcdef01234567",
                "supabase-token",
            ),
            (
                "https://api.telegram.org/bot123456789:AAFAKEfakeFAKEfake0123456789abcdefg/sendMessage",
                "AAFAKEfakeFAKEfake0123456789abcdefg",
                "telegram-bot-token",
            ),
            (service_account, "0123456789abcdefFAKEfake0123456789abcdef", "json-secret"),
            (service_account, "MIIEvFAKEserviceACCOUNTkey", "private-key"),
        ];
        for &(text, secret, kind) in cases {
            // As a plain text (a side file, a nested JSON text in a tool result)…
            let (out, found) = redact_text(text);
            assert!(!out.contains(secret), "{kind}: {out}");
            assert!(found.iter().any(|f| f.kind == kind), "{kind}: {found:?} {out}");
            // …and, for the JSON ones, as the line's own JSON (a tool's input).
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
                let line = serde_json::json!({"input": v, "after": "kept"}).to_string();
                let (out, _) = redact(&line);
                assert!(!out.contains(secret), "{kind} in a line: {out}");
                let back: serde_json::Value = serde_json::from_str(&out).unwrap();
                assert_eq!(back["after"], "kept");
            }
        }
        // Not secrets: names that merely hold a word, values already redacted, numbers.
        for s in [
            r#"{"apiKeySource": "none", "input_tokens": 12, "max_tokens": 4096, "tokenizer": "cl100k"}"#,
            "The token: the word and more",
            r#"{"password": ""}"#,
        ] {
            assert!(matches!(redact(s).0, Cow::Borrowed(_)), "{s}: {}", redact(s).0);
        }
    }

    /// The user's own words and regexes, home
    /// directories and the user's name, everywhere but the structure.
    #[test]
    fn the_users_words_home_directories_and_name_are_redacted() {
        let file = "# names\nAcme Corp\nregex:(?i)customer-[0-9]+\n\nalice@example.com\n";
        let rules = UserRules::new(Some(("words.txt", file)), true, Some("/home/alice"), Some("alice")).unwrap();
        let line = serde_json::json!({
            "cwd": "/home/alice/acme",
            "message": {"content": "Ask acme corp about CUSTOMER-42 for alice@example.com; see /Users/bob/x and C:\\Users\\nick\\y"},
            "alice": "the key stays", "acme corp": 1,
        })
        .to_string();
        let (out, found) = redact_with(&line, Some(&rules));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["cwd"], "[REDACTED:home-dir]/acme", "{out}");
        assert_eq!(
            v["message"]["content"],
            "Ask [REDACTED:custom] about [REDACTED:custom] for [REDACTED:custom]; see [REDACTED:home-dir]/x and [REDACTED:home-dir]\\y",
            "{out}"
        );
        assert_eq!(v["alice"], "the key stays", "an identifier key is structure: {out}");
        assert!(v.get("[REDACTED:custom]").is_some(), "a key that is not an identifier is text: {out}");
        assert!(found.iter().any(|f| f.kind == HOME_DIR) && found.iter().any(|f| f.kind == CUSTOM));
        // The user's name in a project folder name; common account names are not hidden.
        assert_eq!(redact_text_with("-home-alice-acme", Some(&rules)).0, "-home-[REDACTED:user-name]-acme");
        let root = UserRules::new(None, true, Some("/root"), Some("root")).unwrap();
        assert_eq!(redact_text_with("the root of /root/x", Some(&root)).0, "the root of [REDACTED:home-dir]/x");
        assert!(UserRules::new(Some(("w.txt", "regex:(")), false, None, None).unwrap_err().starts_with("w.txt:1: "));
        assert_ne!(rules.fingerprint(), root.fingerprint());
        assert_eq!(UserRules::default().fingerprint(), "");
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
            let _ = redact_text(&text);
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

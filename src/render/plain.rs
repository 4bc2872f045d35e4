//! Plain-text helpers for what pages show: cuts on character boundaries,
//! one-line excerpts, sizes and token counts. Nothing here is HTML.

use crate::model::Tokens;

/// How pages word token counts.
pub(crate) trait TokensText {
    /// A total: `1.2k in · 340 out · 1.5M cache read · 12.0k cache write`
    /// (every part, zeros too), or empty when there is none.
    fn total(&self) -> String;
    /// One call's usage: its parts that are not zero.
    fn brief(&self) -> Vec<String>;
}

fn parts(t: &Tokens) -> [(u64, &'static str); 4] {
    [(t.input, "in"), (t.output, "out"), (t.cache_read, "cache read"), (t.cache_write, "cache write")]
}

impl TokensText for Tokens {
    fn total(&self) -> String {
        if self.is_zero() {
            return String::new();
        }
        let parts: Vec<String> = parts(self).iter().map(|(n, l)| format!("{} {l}", compact_num(*n))).collect();
        parts.join(" · ")
    }

    fn brief(&self) -> Vec<String> {
        parts(self).iter().filter(|(n, _)| *n > 0).map(|(n, l)| format!("{} {l}", compact_num(*n))).collect()
    }
}

/// The longest prefix of `s` of at most `max` bytes that ends on a char boundary.
pub(crate) fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut i = max;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    &s[..i]
}

/// One line of at most `chars` characters: whitespace collapsed, `…` when cut
/// (at the start of the word it would cut, when that is near; never after a
/// full stop, a comma or another ellipsis).
pub(crate) fn excerpt(s: &str, chars: usize) -> String {
    let mut out = String::new();
    let mut n = 0;
    for word in s.split_whitespace() {
        if n > 0 {
            out.push(' ');
            n += 1;
        }
        // Where this word begins (in `out` and in characters).
        let word_at = (out.len(), n);
        for c in word.chars() {
            if n >= chars {
                // Cut at the word's start when it is near, not mid-word.
                if word_at.0 > 0 && n - word_at.1 <= WORD_CUT_BACK {
                    out.truncate(word_at.0);
                }
                // No `.…` or `,…`: the ellipsis ends it alone.
                out.truncate(out.trim_end_matches(|c: char| c.is_whitespace() || ".…,;:".contains(c)).len());
                out.push('…');
                return out;
            }
            out.push(c);
            n += 1;
        }
    }
    out
}

/// How many characters [`excerpt`] gives back to end on a whole word.
const WORD_CUT_BACK: usize = 16;

/// Whether [`excerpt`] cuts `s` at `chars` characters.
pub(crate) fn is_cut(s: &str, chars: usize) -> bool {
    let mut n = 0;
    for word in s.split_whitespace() {
        n += usize::from(n > 0) + word.chars().count();
        if n > chars {
            return true;
        }
    }
    false
}

/// Like [`excerpt`], with the commonest Markdown marks (`` ` ``, `**`, `__`,
/// leading `#`) removed: for one-line previews of Markdown text.
pub(crate) fn plain_excerpt(s: &str, chars: usize) -> String {
    let cleaned = s.replace("**", "").replace("__", "").replace('`', "");
    excerpt(cleaned.trim_start_matches(['#', ' ']), chars)
}

/// A title or a one-line summary as plain text, whole: a Markdown heading's
/// `#`s, `**` and `` ` `` marks removed (a Gemini title `# 1. Setup`, a
/// Codex reasoning summary `**Reading the files**`), whitespace collapsed.
pub(crate) fn plain_text(s: &str) -> String {
    let cleaned = s.replace("**", "").replace('`', "");
    cleaned.trim_start_matches(['#', ' ']).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text a client put into a tool's output for the model, taken out of
/// it: each `<system-reminder>…</system-reminder>` (Claude Code, §4), and
/// the output without them (its blank lines around them dropped). `None`
/// when there is none.
pub(crate) fn split_reminders(text: &str) -> Option<(String, Vec<&str>)> {
    const OPEN: &str = "<system-reminder>";
    const CLOSE: &str = "</system-reminder>";
    if !text.contains(OPEN) {
        return None;
    }
    let mut rest = String::with_capacity(text.len());
    let mut found = Vec::new();
    let mut at = text;
    while let Some(i) = at.find(OPEN) {
        let after = &at[i + OPEN.len()..];
        let Some(j) = after.find(CLOSE) else { break };
        rest.push_str(at[..i].trim_end_matches(['\n', ' ']));
        let body = after[..j].trim_matches(['\n', ' ']);
        if !body.is_empty() {
            found.push(body);
        }
        at = after[j + CLOSE.len()..].trim_start_matches(['\n', ' ']);
        if !at.is_empty() && !rest.is_empty() {
            rest.push('\n');
        }
    }
    rest.push_str(at);
    (!found.is_empty()).then_some((rest, found))
}

/// `999 B`, `1.20 kB`, `3.40 MB`: `indicatif`'s decimal units, like the
/// transcripts' own notes (the one byte size format of cctree's output).
pub(crate) fn human_size(bytes: usize) -> String {
    indicatif::DecimalBytes(bytes as u64).to_string()
}

/// `950`, `12.3k`, `4.5M`.
pub(crate) fn compact_num(n: u64) -> String {
    let f = n as f64;
    if n < 1000 {
        n.to_string()
    } else if n < 1_000_000 {
        format!("{:.1}k", f / 1e3)
    } else {
        format!("{:.1}M", f / 1e6)
    }
}

/// The first words of a prompt's excerpt as typed, up to `chars`: a slash
/// command as `/rename Zeta title`, a shell-mode input as `! ls`, not their
/// tags (the agent's reader says how: [`crate::model::Reader::as_typed`]).
pub(crate) fn prompt_words(client: crate::model::Client, text: &str, chars: usize) -> String {
    plain_excerpt(&client.reader().as_typed(text), chars)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Usage;

    #[test]
    fn cuts_on_char_boundaries() {
        assert_eq!(cut("héllo", 2), "h");
        assert_eq!(excerpt("  a  b\n c ", 10), "a b c");
        assert_eq!(excerpt("abcdef", 3), "abc…");
        // A word cut near its start goes whole; a long one is cut.
        assert_eq!(excerpt("the quick brown fox", 12), "the quick…");
        assert_eq!(excerpt("abc def", 4), "abc…");
        // The ellipsis is the only mark at a cut: none after a full stop or a comma.
        assert_eq!(excerpt("Make it retry. First get me", 17), "Make it retry…");
        assert_eq!(excerpt("one, two, three", 9), "one, two…");
        assert_eq!(excerpt("wait... more", 8), "wait…");
        assert_eq!(excerpt(&format!("a {}", "x".repeat(40)), 20), format!("a {}…", "x".repeat(18)));
        assert!(is_cut("abcdef", 3) && !is_cut("abc", 3) && !is_cut(" a  b ", 3) && is_cut("a  bc", 3));
    }

    #[test]
    fn formats_numbers() {
        assert_eq!(human_size(999), "999 B");
        assert_eq!(human_size(20_500), "20.50 kB");
        assert_eq!(human_size(3_400_000), "3.40 MB");
        assert_eq!(compact_num(12_345), "12.3k");
    }

    #[test]
    fn tokens_are_split_in_out_cache_read_and_write() {
        let u = Usage { input: 12, output: 3_400, cache_creation: 12_000, cache_read: 1_500_000, ..Usage::default() };
        let mut t = Tokens::of(u);
        assert_eq!(t.total(), "12 in · 3.4k out · 1.5M cache read · 12.0k cache write");
        assert_eq!(t.brief(), ["12 in", "3.4k out", "1.5M cache read", "12.0k cache write"]);
        t.add(Tokens { input: 8, ..Tokens::default() });
        assert_eq!(t.input, 20);
        let only_out = Tokens { output: 5, ..Tokens::default() };
        assert_eq!(only_out.brief(), ["5 out"]);
        assert_eq!(only_out.total(), "0 in · 5 out · 0 cache read · 0 cache write");
        assert_eq!(Tokens::default().total(), "");
    }

    #[test]
    fn reminders_are_taken_out_of_outputs() {
        let out = "   1→fn main() {}\n\n<system-reminder>\nWhenever you read a file…\n</system-reminder>\n";
        assert_eq!(split_reminders(out), Some(("   1→fn main() {}".to_string(), vec!["Whenever you read a file…"])));
        let two = "<system-reminder>a</system-reminder>\nmiddle\n<system-reminder>b</system-reminder>";
        assert_eq!(split_reminders(two), Some(("middle".to_string(), vec!["a", "b"])));
        assert_eq!(split_reminders("no reminder"), None);
        // An unclosed tag is text.
        assert_eq!(split_reminders("x <system-reminder> y"), None);
    }

    #[test]
    fn titles_are_plain_text() {
        assert_eq!(plain_text("# 1. Set up  the **repo**"), "1. Set up the repo");
        assert_eq!(plain_text("**Reading the files**\n\nI will read `a.rs`."), "Reading the files I will read a.rs.");
        assert_eq!(plain_text("C# notes"), "C# notes");
    }

    #[test]
    fn prompt_words_read_as_typed() {
        let cmd = "<command-name>/rename</command-name> <command-message>rename</command-message> <command-args>Zeta title</command-args>";
        assert_eq!(prompt_words(crate::agent::CLAUDE, cmd, 60), "/rename Zeta title");
        assert_eq!(prompt_words(crate::agent::CLAUDE, "<bash-input>echo hi</bash-input>", 60), "! echo hi");
        assert_eq!(prompt_words(crate::agent::CLAUDE, "Use **bold** `code`", 60), "Use bold code");
    }
}

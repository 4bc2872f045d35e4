//! How text is cut into the terms of the search index. `static/search.js`
//! cuts queries, and finds what to highlight, by the same rules; keep the two
//! in step:
//!
//! - a term is a run of letters and digits (`char::is_alphanumeric`: the
//!   Unicode `Alphabetic` property or a number, `[\p{Alphabetic}\p{N}]` in
//!   JavaScript), lowercased character by character;
//! - every CJK ideograph or kana (U+3040–U+30FF, U+3400–U+4DBF,
//!   U+4E00–U+9FFF, U+F900–U+FAFF, U+20000–U+2FFFF) is a term of its own, as
//!   those scripts do not separate words;
//! - a term keeps its first [`TERM_CHARS`] characters (hashes, base64 and
//!   other long runs are found by their start).
//!
//! Everything else (spaces, punctuation, `_`, `-`, `.`) separates terms, so
//! `parse_entry` is the two terms `parse` and `entry`.

use crate::limits::SEARCH_TERM_CHARS as TERM_CHARS;

/// Whether `c` is a term on its own (see the module doc).
pub(crate) fn is_ideograph(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF)
}

/// Cuts text into terms, re-using one buffer.
#[derive(Debug, Default)]
pub(crate) struct Terms {
    term: String,
    chars: usize,
}

impl Terms {
    /// Calls `f` with every term of `text`, in order (repeats included).
    pub(crate) fn each(&mut self, text: &str, mut f: impl FnMut(&str)) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b < 0x80 {
                if !b.is_ascii_alphanumeric() {
                    self.flush(&mut f);
                    i += 1;
                    continue;
                }
                // A run of ASCII letters and digits, taken at once.
                let run = bytes[i..].iter().position(|c| !c.is_ascii_alphanumeric()).map_or(bytes.len(), |n| i + n);
                let word = &text[i..run];
                i = run;
                let ends = bytes.get(run).is_none_or(|c| *c < 0x80);
                if self.term.is_empty()
                    && ends
                    && word.len() <= TERM_CHARS
                    && !word.bytes().any(|c| c.is_ascii_uppercase())
                {
                    // The common case: the term is the text itself.
                    f(word);
                    continue;
                }
                for c in word.bytes().take(TERM_CHARS.saturating_sub(self.chars)) {
                    self.term.push(c.to_ascii_lowercase() as char);
                }
                self.chars = (self.chars + word.len()).min(TERM_CHARS);
                continue;
            }
            let c = text[i..].chars().next().unwrap_or(char::REPLACEMENT_CHARACTER);
            i += c.len_utf8();
            if is_ideograph(c) {
                self.flush(&mut f);
                self.term.push(c);
                self.chars = 1;
                self.flush(&mut f);
            } else if c.is_alphanumeric() {
                for l in c.to_lowercase() {
                    if self.chars < TERM_CHARS {
                        self.term.push(l);
                        self.chars += 1;
                    }
                }
            } else {
                self.flush(&mut f);
            }
        }
        self.flush(&mut f);
    }

    fn flush(&mut self, f: &mut impl FnMut(&str)) {
        if !self.term.is_empty() {
            f(&self.term);
            self.term.clear();
        }
        self.chars = 0;
    }
}

/// The terms of `text`, in order.
#[cfg(test)]
pub(crate) fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    Terms::default().each(text, |t| out.push(t.to_string()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_lowercased_split_on_everything_else() {
        assert_eq!(terms("Parse_entry(x) -> Ürün.ÉTÉ 42nd"), ["parse", "entry", "x", "ürün", "été", "42nd"]);
        assert_eq!(terms("  "), Vec::<String>::new());
    }

    #[test]
    fn ideographs_are_terms_of_their_own() {
        assert_eq!(terms("検索エンジンabc"), ["検", "索", "エ", "ン", "ジ", "ン", "abc"]);
    }

    /// The ASCII fast path cuts as the character-by-character rule does.
    #[test]
    fn fast_path_agrees_with_the_rule() {
        fn slow(text: &str) -> Vec<String> {
            let mut out = Vec::new();
            let mut term = String::new();
            let mut chars = 0;
            let mut flush = |term: &mut String, chars: &mut usize| {
                if !term.is_empty() {
                    out.push(std::mem::take(term));
                }
                *chars = 0;
            };
            for c in text.chars() {
                if is_ideograph(c) {
                    flush(&mut term, &mut chars);
                    term.push(c);
                    flush(&mut term, &mut chars);
                } else if c.is_alphanumeric() {
                    for l in c.to_lowercase() {
                        if chars < TERM_CHARS {
                            term.push(l);
                            chars += 1;
                        }
                    }
                } else {
                    flush(&mut term, &mut chars);
                }
            }
            flush(&mut term, &mut chars);
            out
        }
        let long = "x".repeat(TERM_CHARS - 2);
        for text in [
            "plain words only",
            "MixedCase and UPPER",
            "café42 Ünïcode-mixed ascii_after éa",
            &format!("{long}abcd {long}ÉÉÉÉ Ü{long}ab ab{long}Ü"),
            "検索abc検索 a1b2 Zürich",
            "",
            "trailing ",
        ] {
            assert_eq!(terms(text), slow(text), "{text}");
        }
    }

    #[test]
    fn long_runs_keep_their_start() {
        let long = "a".repeat(100);
        assert_eq!(terms(&long), ["a".repeat(TERM_CHARS)]);
        // Counted in characters of the lowercased term.
        let t = terms(&"É".repeat(40));
        assert_eq!(t[0].chars().count(), TERM_CHARS);
    }
}

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
//! `parse_entry` is the two terms `parse` and `entry`. Two terms joined by
//! one `-` or `_` (neither an ideograph) are also the *pair* `parse-entry`
//! (each half cut as a term is), so that a hyphenated word is found as one:
//! `file-history` is the terms `file`, `history` and `file-history`, and a
//! query `file-history` asks for the pair (`a-b-c`: the pairs `a-b` and
//! `b-c`). A term never holds a `-`, so a pair is never a word's term.

use crate::limits::SEARCH_TERM_CHARS as TERM_CHARS;

/// Whether `c` is a term on its own (see the module doc).
pub(crate) fn is_ideograph(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF)
}

/// Cuts text into terms, re-using its buffers.
#[derive(Debug, Default)]
pub(crate) struct Terms {
    term: String,
    chars: usize,
    /// Where the term being read started (a byte offset).
    start: usize,
    /// The last term, when a `-` or `_` followed it, and where the term
    /// it pairs with would start.
    pend: String,
    pend_at: usize,
    pair: String,
}

/// Whether `b` joins two terms into a pair.
fn joins(b: u8) -> bool {
    b == b'-' || b == b'_'
}

impl Terms {
    /// Calls `f` with every term of `text`, in order (repeats included),
    /// each pair after its second term.
    pub(crate) fn each(&mut self, text: &str, mut f: impl FnMut(&str)) {
        let bytes = text.as_bytes();
        self.pend.clear();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b < 0x80 {
                if !b.is_ascii_alphanumeric() {
                    self.flush(bytes, i, &mut f);
                    i += 1;
                    continue;
                }
                // A run of ASCII letters and digits, taken at once.
                let run = bytes[i..].iter().position(|c| !c.is_ascii_alphanumeric()).map_or(bytes.len(), |n| i + n);
                let word = &text[i..run];
                let ends = bytes.get(run).is_none_or(|c| *c < 0x80);
                if self.term.is_empty()
                    && ends
                    && word.len() <= TERM_CHARS
                    && !word.bytes().any(|c| c.is_ascii_uppercase())
                {
                    // The common case: the term is the text itself.
                    self.emit(word, (i, run), bytes, &mut f);
                    i = run;
                    continue;
                }
                if self.term.is_empty() {
                    self.start = i;
                }
                for c in word.bytes().take(TERM_CHARS.saturating_sub(self.chars)) {
                    self.term.push(c.to_ascii_lowercase() as char);
                }
                self.chars = (self.chars + word.len()).min(TERM_CHARS);
                i = run;
                continue;
            }
            let c = text[i..].chars().next().unwrap_or(char::REPLACEMENT_CHARACTER);
            let at = i;
            i += c.len_utf8();
            if is_ideograph(c) {
                self.flush(bytes, at, &mut f);
                self.pend.clear();
                let mut buf = [0u8; 4];
                f(c.encode_utf8(&mut buf));
            } else if c.is_alphanumeric() {
                if self.term.is_empty() {
                    self.start = at;
                }
                for l in c.to_lowercase() {
                    if self.chars < TERM_CHARS {
                        self.term.push(l);
                        self.chars += 1;
                    }
                }
            } else {
                self.flush(bytes, at, &mut f);
            }
        }
        self.flush(bytes, bytes.len(), &mut f);
    }

    /// Ends the term being read at byte `end`.
    fn flush(&mut self, bytes: &[u8], end: usize, f: &mut impl FnMut(&str)) {
        if !self.term.is_empty() {
            let term = std::mem::take(&mut self.term);
            self.emit(&term, (self.start, end), bytes, f);
            self.term = term;
            self.term.clear();
        }
        self.chars = 0;
    }

    /// Hands on the term at `start..end`, and the pair it ends.
    fn emit(&mut self, term: &str, (start, end): (usize, usize), bytes: &[u8], f: &mut impl FnMut(&str)) {
        f(term);
        if !self.pend.is_empty() && self.pend_at == start {
            self.pair.clear();
            self.pair.push_str(&self.pend);
            self.pair.push('-');
            self.pair.push_str(term);
            f(&self.pair);
        }
        self.pend.clear();
        if bytes.get(end).is_some_and(|&b| joins(b)) {
            self.pend.push_str(term);
            self.pend_at = end + 1;
        }
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
        assert_eq!(
            terms("Parse_entry(x) -> Ürün.ÉTÉ 42nd"),
            ["parse", "entry", "parse-entry", "x", "ürün", "été", "42nd"]
        );
        assert_eq!(terms("  "), Vec::<String>::new());
    }

    /// Words joined by one `-` or `_` are also a pair: a hyphenated word is
    /// found as one.
    #[test]
    fn hyphenated_words_are_pairs() {
        assert_eq!(terms("file-history"), ["file", "history", "file-history"]);
        assert_eq!(terms("a-b-c"), ["a", "b", "a-b", "c", "b-c"]);
        assert_eq!(terms("Zürich-Köln x_Y"), ["zürich", "köln", "zürich-köln", "x", "y", "x-y"]);
        // Not two joiners, not a space, not an ideograph.
        assert_eq!(terms("a--b a- b a -b 検-a"), ["a", "b", "a", "b", "a", "b", "検", "a"]);
        // Halves are cut as terms are.
        let long = "x".repeat(TERM_CHARS + 5);
        assert_eq!(terms(&format!("{long}-y"))[2], format!("{}-y", "x".repeat(TERM_CHARS)));
    }

    #[test]
    fn ideographs_are_terms_of_their_own() {
        assert_eq!(terms("検索エンジンabc"), ["検", "索", "エ", "ン", "ジ", "ン", "abc"]);
    }

    /// The ASCII fast path cuts as the character-by-character rule does.
    #[test]
    fn fast_path_agrees_with_the_rule() {
        fn slow(text: &str) -> Vec<String> {
            // (term, start, end in chars, ideograph)
            let mut found: Vec<(String, usize, usize, bool)> = Vec::new();
            let mut term = String::new();
            let mut chars = 0;
            let mut start = 0;
            let chs: Vec<char> = text.chars().collect();
            let flush = |found: &mut Vec<(String, usize, usize, bool)>,
                         term: &mut String,
                         chars: &mut usize,
                         start: usize,
                         end: usize| {
                if !term.is_empty() {
                    found.push((std::mem::take(term), start, end, false));
                }
                *chars = 0;
            };
            for (k, &c) in chs.iter().enumerate() {
                if is_ideograph(c) {
                    flush(&mut found, &mut term, &mut chars, start, k);
                    found.push((c.to_string(), k, k + 1, true));
                } else if c.is_alphanumeric() {
                    if term.is_empty() {
                        start = k;
                    }
                    for l in c.to_lowercase() {
                        if chars < TERM_CHARS {
                            term.push(l);
                            chars += 1;
                        }
                    }
                } else {
                    flush(&mut found, &mut term, &mut chars, start, k);
                }
            }
            flush(&mut found, &mut term, &mut chars, start, chs.len());
            let mut out = Vec::new();
            for (k, (t, s, _, ideo)) in found.iter().enumerate() {
                out.push(t.clone());
                if let Some((p, _, pe, pideo)) = k.checked_sub(1).map(|j| &found[j])
                    && !ideo
                    && !pideo
                    && pe + 1 == *s
                    && matches!(chs[*pe], '-' | '_')
                {
                    out.push(format!("{p}-{t}"));
                }
            }
            out
        }
        let long = "x".repeat(TERM_CHARS - 2);
        for text in [
            "plain words only",
            "MixedCase and UPPER",
            "café42 Ünïcode-mixed ascii_after éa",
            "pair-of_Words-Ü ü-ÜÜ-x_検-y a-_b Mixed-CASE",
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

//! Small HTML helpers shared by the renderer: escaping, excerpts, sizes,
//! token counts and `<time>` elements. Every string that comes from a
//! transcript goes through [`esc`] / [`push_esc`] before it reaches a page.

use crate::parse::time::{format_human, format_timestamp};

/// Appends `s` to `out`, escaped for HTML text and attribute values.
/// NUL becomes U+FFFD (HTML parsers would do the same, noisily).
pub fn push_esc(out: &mut String, s: &str) {
    let mut last = 0;
    for (i, b) in s.bytes().enumerate() {
        let rep = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            0 => "\u{FFFD}",
            _ => continue,
        };
        out.push_str(&s[last..i]);
        out.push_str(rep);
        last = i + 1;
    }
    out.push_str(&s[last..]);
}

/// `s` escaped for HTML.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    push_esc(&mut out, s);
    out
}

/// The longest prefix of `s` of at most `max` bytes that ends on a char boundary.
pub fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut i = max;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    &s[..i]
}

/// One line of at most `chars` characters: whitespace collapsed, `…` when cut.
pub fn excerpt(s: &str, chars: usize) -> String {
    let mut out = String::new();
    let mut n = 0;
    for word in s.split_whitespace() {
        if n > 0 {
            out.push(' ');
            n += 1;
        }
        for c in word.chars() {
            if n >= chars {
                out.push('…');
                return out;
            }
            out.push(c);
            n += 1;
        }
    }
    out
}

/// The fork icon (inline SVG, no styles), as in `templates/_fork_icon.html`.
pub const FORK_ICON: &str = include_str!("../../templates/_fork_icon.html");

/// Like [`excerpt`], with the commonest Markdown marks (`` ` ``, `**`, `__`,
/// leading `#`) removed: for one-line previews of Markdown text.
pub fn plain_excerpt(s: &str, chars: usize) -> String {
    let cleaned = s.replace("**", "").replace("__", "").replace('`', "");
    excerpt(cleaned.trim_start_matches(['#', ' ']), chars)
}

/// `1.2 KB`, `3.4 MB` (decimal units, like the transcripts' own notes).
pub fn human_size(bytes: usize) -> String {
    let b = bytes as f64;
    if bytes < 1000 {
        format!("{bytes} B")
    } else if b < 1e6 {
        format!("{:.1} KB", b / 1e3)
    } else {
        format!("{:.1} MB", b / 1e6)
    }
}

/// `950`, `12.3k`, `4.5M`.
pub fn compact_num(n: u64) -> String {
    let f = n as f64;
    if n < 1000 {
        n.to_string()
    } else if n < 1_000_000 {
        format!("{:.1}k", f / 1e3)
    } else {
        format!("{:.1}M", f / 1e6)
    }
}

/// `<time datetime="…Z">YYYY-MM-DD HH:MM UTC</time>`; `—` for an unknown time (0).
pub fn time_html(ms: i64) -> String {
    if ms == 0 {
        return "<span class=\"notime\">—</span>".into();
    }
    format!("<time datetime=\"{}\">{}</time>", format_timestamp(ms), format_human(ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(esc("<a href='x'>\"&\0"), "&lt;a href=&#39;x&#39;&gt;&quot;&amp;\u{FFFD}");
    }

    #[test]
    fn cuts_on_char_boundaries() {
        assert_eq!(cut("héllo", 2), "h");
        assert_eq!(excerpt("  a  b\n c ", 10), "a b c");
        assert_eq!(excerpt("abcdef", 3), "abc…");
    }

    #[test]
    fn formats_numbers() {
        assert_eq!(human_size(999), "999 B");
        assert_eq!(human_size(20_500), "20.5 KB");
        assert_eq!(compact_num(12_345), "12.3k");
        assert_eq!(time_html(0), "<span class=\"notime\">—</span>");
    }
}

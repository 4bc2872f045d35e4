//! Small HTML helpers shared by the renderer: the one escaping helper,
//! excerpts, sizes, token counts and `<time>` elements. Every string that
//! comes from a transcript goes through [`write_escaped`] before it reaches a
//! page: through [`esc`] / [`push_esc`] in the renderers, through [`Escape`]
//! (askama's escaper for `templates/`, see `askama.toml`) in templates.
//!
//! Escaping writes `&amp; &lt; &gt; &quot; &#39;` for `& < > " '`, and shows
//! C0 control characters as their Unicode Control Pictures (`␀` for NUL, `␛`
//! for ESC, …, `␡` for DEL), so no page carries a control character but tab
//! and newline: a line break is `\n` (`\r\n` and a lone `\r` become `\n`, as
//! an HTML parser reads them).

use std::borrow::Cow;
use std::fmt;

use crate::parse::time::{format_human, format_timestamp};

/// What a byte of text is written as, when not as itself.
fn replacement(b: u8, next: Option<u8>) -> Option<&'static str> {
    /// `U+2400 + n`: the Control Picture of C0 control `n`.
    const PICTURES: [&str; 32] = [
        "\u{2400}", "\u{2401}", "\u{2402}", "\u{2403}", "\u{2404}", "\u{2405}", "\u{2406}", "\u{2407}", "\u{2408}",
        "\t", "\n", "\u{240b}", "\u{240c}", "\n", "\u{240e}", "\u{240f}", "\u{2410}", "\u{2411}", "\u{2412}",
        "\u{2413}", "\u{2414}", "\u{2415}", "\u{2416}", "\u{2417}", "\u{2418}", "\u{2419}", "\u{241a}", "\u{241b}",
        "\u{241c}", "\u{241d}", "\u{241e}", "\u{241f}",
    ];
    match b {
        b'&' => Some("&amp;"),
        b'<' => Some("&lt;"),
        b'>' => Some("&gt;"),
        b'"' => Some("&quot;"),
        b'\'' => Some("&#39;"),
        b'\t' | b'\n' => None,
        // `\r\n` is one line break: the `\n` writes it.
        b'\r' if next == Some(b'\n') => Some(""),
        0..0x20 => Some(PICTURES[b as usize]),
        0x7f => Some("\u{2421}"),
        _ => None,
    }
}

/// Writes `s` to `out` escaped for HTML text and attribute values (see the
/// module doc): the one escaping helper.
pub fn write_escaped<W: fmt::Write + ?Sized>(out: &mut W, s: &str) -> fmt::Result {
    let bytes = s.as_bytes();
    let mut last = 0;
    for (i, &b) in bytes.iter().enumerate() {
        // Fast path: nothing to do for most bytes.
        if b > b'>' && b != 0x7f {
            continue;
        }
        let Some(rep) = replacement(b, bytes.get(i + 1).copied()) else { continue };
        out.write_str(&s[last..i])?;
        out.write_str(rep)?;
        last = i + 1;
    }
    out.write_str(&s[last..])
}

/// Appends `s` to `out`, escaped for HTML text and attribute values.
pub fn push_esc(out: &mut String, s: &str) {
    // Writing to a `String` cannot fail.
    let _ = write_escaped(out, s);
}

/// `s` escaped for HTML.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    push_esc(&mut out, s);
    out
}

/// `s` with its control characters as [`write_escaped`] shows them, for text
/// that a renderer escapes itself (pulldown-cmark, syntect).
pub fn controls_shown(s: &str) -> Cow<'_, str> {
    let needed = s.bytes().any(|b| (b < 0x20 && b != b'\t' && b != b'\n') || b == 0x7f);
    if !needed {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let bytes = s.as_bytes();
    let mut last = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b >= 0x20 && b != 0x7f || b == b'\t' || b == b'\n' {
            continue;
        }
        out.push_str(&s[last..i]);
        out.push_str(replacement(b, bytes.get(i + 1).copied()).unwrap_or_default());
        last = i + 1;
    }
    out.push_str(&s[last..]);
    Cow::Owned(out)
}

/// The escaper of `templates/` (named in `askama.toml`): every `{{ … }}` of a
/// page goes through [`write_escaped`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Escape;

impl askama::filters::Escaper for Escape {
    fn write_escaped_str<W: fmt::Write>(&self, mut dest: W, s: &str) -> fmt::Result {
        write_escaped(&mut dest, s)
    }
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
        assert_eq!(esc("<a href='x'>\"&"), "&lt;a href=&#39;x&#39;&gt;&quot;&amp;");
    }

    /// Raw NUL and ESC reached pages (askama's escaper and syntect keep
    /// control characters): every C0 control but tab and newline is shown as
    /// its Control Picture, and line breaks are `\n`.
    #[test]
    fn html_carries_no_control_characters() {
        assert_eq!(esc("a\0b\u{1b}[1mc\u{7f}"), "a\u{2400}b\u{241b}[1mc\u{2421}");
        assert_eq!(esc("tab\tline\r\nnext\rlast\n"), "tab\tline\nnext\nlast\n");
        assert_eq!(controls_shown("x\u{1b}y\r\n<"), "x\u{241b}y\n<");
        assert!(matches!(controls_shown("plain\ttext\n"), Cow::Borrowed(_)));
        let all: String = (0u8..0x80).map(char::from).collect();
        let html = esc(&all);
        assert!(html.chars().all(|c| !c.is_control() || c == '\t' || c == '\n'), "{html:?}");
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

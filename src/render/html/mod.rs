//! HTML as a type, and the one escaping helper.
//!
//! An [`Html`] is markup known to be safe: escaped text, the output of a
//! renderer of this module ([`markdown`], [`highlight`], [`diff`], [`ansi`]:
//! the streaming transforms, the only Rust that writes elements) or of a
//! template. Nothing else can make one. Templates write an `Html`, or a view
//! that is itself a template, as it is with the `html` filter
//! (`{{ body|html }}`, which takes nothing else: see [`filters::html`]);
//! every other `{{ … }}` is escaped. There is no `|safe` in `templates/`.
//!
//! Every string that comes from a transcript goes through [`write_escaped`]
//! before it reaches a page: through `esc` / `push_text` in the renderers,
//! through [`Escape`] (askama's escaper for `templates/`, see `askama.toml`)
//! in templates.
//!
//! Escaping writes `&amp; &lt; &gt; &quot; &#39;` for `& < > " '` (in
//! element content, where an `Html` always goes, only `&amp; &lt;`:
//! [`push_text`]; quotes and `>` are text there, and writing them as
//! entities made 4–5% of a page), and shows
//! C0 control characters as their Unicode Control Pictures (`␀` for NUL, `␛`
//! for ESC, …, `␡` for DEL), so no page carries a control character but tab
//! and newline: a line break is `\n` (`\r\n` and a lone `\r` become `\n`, as
//! an HTML parser reads them).

pub(crate) mod ansi;
pub(crate) mod diff;
pub mod highlight;
pub mod markdown;

use std::borrow::Cow;
use std::fmt;

use askama::{FastWritable, Template, Values};

/// What a byte of text is written as, when not as itself; `text`: in
/// element content, where `"`, `'` and `>` are themselves.
fn replacement(b: u8, next: Option<u8>, text: bool) -> Option<&'static str> {
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
        b'>' | b'"' | b'\'' if text => None,
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

/// The bytes [`replacement`] replaces: markup, and control characters but
/// tab and newline.
static SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = b != b'\t' as usize && b != b'\n' as usize;
        b += 1;
    }
    t[0x7f] = true;
    t[b'&' as usize] = true;
    t[b'<' as usize] = true;
    t[b'>' as usize] = true;
    t[b'"' as usize] = true;
    t[b'\'' as usize] = true;
    t
};

/// Writes `s` to `out` escaped for HTML text and attribute values (see the
/// module doc): the one escaping helper.
#[inline]
pub fn write_escaped<W: fmt::Write + ?Sized>(out: &mut W, s: &str) -> fmt::Result {
    write_with::<W, false>(out, s)
}

/// [`write_escaped`], or (`TEXT`) for element content only.
#[inline]
fn write_with<W: fmt::Write + ?Sized, const TEXT: bool>(out: &mut W, s: &str) -> fmt::Result {
    let bytes = s.as_bytes();
    let mut last = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if !SPECIAL[b as usize] {
            continue;
        }
        let Some(rep) = replacement(b, bytes.get(i + 1).copied(), TEXT) else { continue };
        out.write_str(&s[last..i])?;
        out.write_str(rep)?;
        last = i + 1;
    }
    out.write_str(&s[last..])
}

/// Appends `s` to `out`, escaped for HTML element content (never an
/// attribute value: `"` and `'` are left as they are).
pub(in crate::render::html) fn push_text(out: &mut String, s: &str) {
    // Writing to a `String` cannot fail.
    let _ = write_with::<String, true>(out, s);
}

/// `s` escaped for HTML text and attribute values.
pub(in crate::render::html) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    let _ = write_escaped(&mut out, s);
    out
}

/// `s` with its control characters as [`write_escaped`] shows them, for text
/// that a renderer escapes itself (pulldown-cmark, syntect).
pub fn controls_shown(s: &str) -> Cow<'_, str> {
    let control = |b: u8| SPECIAL[b as usize] && (b < 0x20 || b == 0x7f);
    if !s.bytes().any(control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let bytes = s.as_bytes();
    let mut last = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if !control(b) {
            continue;
        }
        out.push_str(&s[last..i]);
        out.push_str(replacement(b, bytes.get(i + 1).copied(), false).unwrap_or_default());
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

/// Markup known to be safe HTML (see the module doc): only the escaping
/// helpers, the renderers of this module and templates make one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Html(String);

impl Html {
    /// `s` as text: escaped (for element content, where an `Html` goes:
    /// templates write `{{ x|html }}` in no attribute value, as the test
    /// `xss::templates_write_html_in_no_attribute` checks).
    pub fn text(s: &str) -> Html {
        let mut out = String::with_capacity(s.len() + s.len() / 8);
        push_text(&mut out, s);
        Html(out)
    }

    /// The output of a template (every expression of which is escaped or
    /// itself markup).
    pub fn of(view: &impl Template) -> Html {
        // Views write to a `String`, which cannot fail.
        Html(view.render().unwrap_or_default())
    }

    /// One of cctree's own static files (a style sheet, a script), embedded
    /// in the binary: written as it is into a page that carries it inline
    /// (`cctree export`).
    pub fn asset(text: &'static str) -> Html {
        Html(text.to_string())
    }

    /// Markup a renderer of this module wrote.
    pub(in crate::render::html) fn trusted(html: String) -> Html {
        Html(html)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Display for Html {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FastWritable for Html {
    fn write_into(&self, dest: &mut dyn fmt::Write, _: &dyn Values) -> askama::Result<()> {
        Ok(dest.write_str(&self.0)?)
    }
}

/// An `Html` is written as it is: so `{{ x|html }}` takes it like any view.
impl Template for Html {
    fn render_into_with_values(&self, writer: &mut dyn fmt::Write, _: &dyn Values) -> askama::Result<()> {
        Ok(writer.write_str(&self.0)?)
    }

    const SIZE_HINT: usize = 0;
}

/// Terminal output as HTML: ANSI colours as classed spans ([`ansi`]), the
/// rest escaped.
pub fn terminal(text: &str) -> Html {
    if ansi::has_escapes(text) { ansi::to_html(text) } else { Html::text(text) }
}

/// The filters of `templates/` (each module that defines templates imports
/// this module as `filters`).
pub mod filters {
    /// `{{ x|html }}`: writes markup as it is: an [`super::Html`], or a view
    /// (a template, whose own expressions are escaped or markup in turn),
    /// straight into the page's buffer. Anything else does not compile.
    #[askama::filter_fn]
    pub fn html<T: askama::Template>(value: T, _: &dyn askama::Values) -> askama::Result<askama::filters::Safe<T>> {
        Ok(askama::filters::Safe(value))
    }
}

/// An enum of views, each variant a view with its own template: the enum is
/// a template that writes the variant's (so `{{ x|html }}` takes it), and
/// each view converts into it (`From`).
macro_rules! view_enum {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $variant:ident($ty:ty)),* $(,)? }) => {
        $(#[$meta])*
        $vis enum $name {
            $($(#[$vmeta])* $variant($ty)),*
        }

        impl askama::Template for $name {
            fn render_into_with_values(
                &self,
                writer: &mut dyn std::fmt::Write,
                values: &dyn askama::Values,
            ) -> askama::Result<()> {
                match self {
                    $($name::$variant(v) => askama::FastWritable::write_into(v, writer, values)),*
                }
            }

            const SIZE_HINT: usize = 256;
        }

        impl askama::Template for Box<$name> {
            fn render_into_with_values(
                &self,
                writer: &mut dyn std::fmt::Write,
                values: &dyn askama::Values,
            ) -> askama::Result<()> {
                askama::Template::render_into_with_values(&**self, writer, values)
            }

            const SIZE_HINT: usize = 256;
        }

        impl askama::FastWritable for $name {
            fn write_into(&self, dest: &mut dyn std::fmt::Write, values: &dyn askama::Values) -> askama::Result<()> {
                askama::Template::render_into_with_values(self, dest, values)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                askama::Template::render_into(self, f).map_err(|_| std::fmt::Error)
            }
        }

        $(impl From<$ty> for $name {
            fn from(v: $ty) -> Self {
                $name::$variant(v)
            }
        })*
    };
}
pub(crate) use view_enum;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(esc("<a href='x'>\"&"), "&lt;a href=&#39;x&#39;&gt;&quot;&amp;");
        // In element content, only what starts markup or a reference.
        assert_eq!(Html::text("<a href='x'>\"&\0").as_str(), "&lt;a href='x'>\"&amp;\u{2400}");
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
}

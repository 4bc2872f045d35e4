//! Terminal output → HTML: SGR colour escapes become elements `<t-N>` of
//! foreground colour N (16 colours; `<t-x>` without one), with classes
//! `g0`–`g15` for the background and `b`, `d`, `i`, `u` for bold, dim,
//! italic, underline (short: a build log holds thousands; custom elements,
//! as the highlighting's `<h-…>`, that `static/style.css` styles); every other control sequence
//! (cursor movement, character sets such as `tput sgr0`'s `ESC ( B`, OSC
//! titles and links, DCS, APC/PM/SOS strings, 256/true colour) is dropped
//! whole. The input is read by `anstyle-parse`, a VT parser (Paul Williams'
//! state machine), so a sequence is never cut short and never leaks its
//! payload into the page.

use anstyle_parse::{Params, Parser, Perform};

use super::{Html, push_text};

/// A colour's number (0–15, as [`Style::apply`] keeps them), as written in
/// element and class names.
fn number(n: u16) -> &'static str {
    const NUMBERS: [&str; 16] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15"];
    NUMBERS.get(usize::from(n)).copied().unwrap_or("x")
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Style {
    fg: Option<u16>,
    bg: Option<u16>,
    bold: bool,
    dim: bool,
    italic: bool,
    underline: bool,
}

impl Style {
    /// The start tag of a style's element: `<t-N>` for foreground colour N
    /// (`<t-x>` without one), the background and attributes as classes
    /// (`<t-2 class="b">`).
    fn push_open(&self, out: &mut String) {
        out.push_str("<t-");
        self.push_name(out);
        let mut sep = " class=\"";
        if let Some(b) = self.bg {
            out.push_str(sep);
            out.push('g');
            out.push_str(number(b));
            sep = " ";
        }
        for (on, name) in [(self.bold, "b"), (self.dim, "d"), (self.italic, "i"), (self.underline, "u")] {
            if on {
                out.push_str(sep);
                out.push_str(name);
                sep = " ";
            }
        }
        if sep == " " {
            out.push('"');
        }
        out.push('>');
    }

    fn push_close(&self, out: &mut String) {
        out.push_str("</t-");
        self.push_name(out);
        out.push('>');
    }

    fn push_name(&self, out: &mut String) {
        out.push_str(self.fg.map_or("x", number));
    }

    /// Applies the parameters of one SGR sequence (`ESC [ … m`); parameters
    /// and `:` sub-parameters alike, in order.
    fn apply(&mut self, params: &Params) {
        let mut nums = params.iter().flatten().copied();
        let mut any = false;
        while let Some(n) = nums.next() {
            any = true;
            match n {
                0 => *self = Style::default(),
                1 => self.bold = true,
                2 => self.dim = true,
                3 => self.italic = true,
                4 => self.underline = true,
                22 => (self.bold, self.dim) = (false, false),
                23 => self.italic = false,
                24 => self.underline = false,
                30..=37 => self.fg = Some(n - 30),
                39 => self.fg = None,
                40..=47 => self.bg = Some(n - 40),
                49 => self.bg = None,
                90..=97 => self.fg = Some(n - 90 + 8),
                100..=107 => self.bg = Some(n - 100 + 8),
                38 | 48 => {
                    let colour = match nums.next() {
                        Some(5) => nums.next().filter(|c| *c < 16),
                        Some(2) => {
                            nums.by_ref().take(3).for_each(drop);
                            None
                        }
                        _ => None,
                    };
                    if n == 38 {
                        self.fg = colour;
                    } else {
                        self.bg = colour;
                    }
                }
                _ => {}
            }
        }
        if !any {
            *self = Style::default();
        }
    }
}

/// Whether `s` holds escape sequences worth converting.
pub(crate) fn has_escapes(s: &str) -> bool {
    s.contains('\u{1b}')
}

/// Terminal text → escaped HTML with colour spans (no surrounding `<pre>`).
pub(crate) fn to_html(s: &str) -> Html {
    Html::trusted(convert(s))
}

fn convert(s: &str) -> String {
    let mut page =
        Page { out: String::with_capacity(s.len() + 32), text: String::new(), style: Style::default(), open: false };
    let mut parser = Parser::<anstyle_parse::DefaultCharAccumulator>::new();
    for &b in s.as_bytes() {
        parser.advance(&mut page, b);
    }
    page.flush();
    if page.open {
        page.style.push_close(&mut page.out);
    }
    page.out
}

/// What the parser writes to: the HTML so far, the text of the current
/// style not yet written, the style, and whether its span is open.
struct Page {
    out: String,
    text: String,
    style: Style,
    open: bool,
}

impl Page {
    /// Writes the pending text, opening a span for the current style first if needed.
    fn flush(&mut self) {
        if self.text.is_empty() {
            return;
        }
        if !self.open && self.style != Style::default() {
            self.style.push_open(&mut self.out);
            self.open = true;
        }
        push_text(&mut self.out, &self.text);
        self.text.clear();
    }
}

impl Perform for Page {
    fn print(&mut self, c: char) {
        self.text.push(c);
    }

    /// C0 controls: line feeds and tabs are kept, carriage returns dropped
    /// (`\r\n` ends a line, a lone `\r` redraws one: both keep every text),
    /// the rest shown by the escaping ([`push_text`]).
    fn execute(&mut self, byte: u8) {
        if byte != b'\r' && byte < 0x80 {
            self.text.push(byte as char);
        }
    }

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], _ignore: bool, action: u8) {
        if action != b'm' || !intermediates.is_empty() {
            return;
        }
        let mut next = self.style;
        next.apply(params);
        if next != self.style {
            self.flush();
            if self.open {
                self.style.push_close(&mut self.out);
                self.open = false;
            }
            self.style = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_become_elements_and_classes() {
        let h = convert("\u{1b}[1m\u{1b}[32m   Compiling\u{1b}[0m x <y>");
        assert_eq!(h, "<t-2 class=\"b\">   Compiling</t-2> x &lt;y>");
        // A background and attributes without a foreground; a change of style closes the element it opened.
        assert_eq!(
            convert("\u{1b}[41;1;4ma\u{1b}[94mb\u{1b}[0mc"),
            "<t-x class=\"g1 b u\">a</t-x><t-12 class=\"g1 b u\">b</t-12>c"
        );
    }

    #[test]
    fn other_sequences_are_stripped() {
        assert_eq!(convert("a\u{1b}[2Kb\u{1b}]0;title\u{7}c\r\n"), "abc\n");
        assert_eq!(convert("\u{1b}[38;2;1;2;3mx\u{1b}[m"), "x");
        assert_eq!(convert("\u{1b}[38;5;9mx"), "<t-9>x</t-9>");
        assert_eq!(convert("\u{1b}[38:5:9mx"), "<t-9>x</t-9>");
        assert_eq!(convert("tail\u{1b}"), "tail");
        assert_eq!(convert("é\u{1b}[31mé"), "é<t-1>é</t-1>");
    }

    /// `tput sgr0` writes `ESC ( B` (select the US-ASCII character set)
    /// before `ESC [ m`: the old scanner read escapes as two bytes and left
    /// the `B` in the page.
    #[test]
    fn tput_sgr0_leaves_no_stray_b() {
        assert_eq!(convert("ALPHA\u{1b}(B\u{1b}[mOMEGA"), "ALPHAOMEGA");
        assert_eq!(convert("\u{1b}[1mbold\u{1b}(B\u{1b}[m plain"), "<t-x class=\"b\">bold</t-x> plain");
    }

    /// Device control strings (DCS: sixel images, tmux passthrough) and
    /// APC / PM / SOS strings are dropped with their payload.
    #[test]
    fn dcs_and_apc_payloads_do_not_leak() {
        assert_eq!(convert("a\u{1b}P1;2|SECRET-PAYLOAD\u{1b}\\b"), "ab");
        assert_eq!(convert("a\u{1b}_Gf=100;AAAA\u{1b}\\b"), "ab");
        assert_eq!(convert("a\u{1b}^privacy message\u{1b}\\b"), "ab");
        assert_eq!(convert("a\u{1b}Xstart of string\u{1b}\\b"), "ab");
    }

    /// An OSC 8 hyperlink keeps its text; private-mode CSI sequences
    /// (`ESC [ ? 25 l`, `ESC [ > 4 ; 2 m`) change no style.
    #[test]
    fn links_keep_text_and_private_modes_are_ignored() {
        assert_eq!(convert("\u{1b}]8;;https://x.test\u{1b}\\link\u{1b}]8;;\u{1b}\\"), "link");
        assert_eq!(convert("\u{1b}[?25lx\u{1b}[>4;2my"), "xy");
    }
}

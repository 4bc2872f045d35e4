//! Terminal output → HTML: SGR colour escapes become `<span class="ansi-…">`
//! (16 colours, bold, dim, italic, underline); every other escape sequence
//! (cursor movement, OSC titles and links, 256/true colour) is stripped.

use super::html::push_esc;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Style {
    fg: Option<u8>,
    bg: Option<u8>,
    bold: bool,
    dim: bool,
    italic: bool,
    underline: bool,
}

impl Style {
    fn classes(&self) -> String {
        let mut c = Vec::new();
        if let Some(f) = self.fg {
            c.push(format!("ansi-fg{f}"));
        }
        if let Some(b) = self.bg {
            c.push(format!("ansi-bg{b}"));
        }
        for (on, name) in
            [(self.bold, "ansi-b"), (self.dim, "ansi-d"), (self.italic, "ansi-i"), (self.underline, "ansi-u")]
        {
            if on {
                c.push(name.to_string());
            }
        }
        c.join(" ")
    }

    fn apply(&mut self, params: &str) {
        let mut nums = params.split([';', ':']).map(|p| p.parse::<u16>().unwrap_or(0));
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
                30..=37 => self.fg = Some((n - 30) as u8),
                39 => self.fg = None,
                40..=47 => self.bg = Some((n - 40) as u8),
                49 => self.bg = None,
                90..=97 => self.fg = Some((n - 90 + 8) as u8),
                100..=107 => self.bg = Some((n - 100 + 8) as u8),
                38 | 48 => {
                    let colour = match nums.next() {
                        Some(5) => nums.next().filter(|c| *c < 16).map(|c| c as u8),
                        Some(2) => {
                            nums.next();
                            nums.next();
                            nums.next();
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
pub fn has_escapes(s: &str) -> bool {
    s.contains('\u{1b}')
}

/// Terminal text → escaped HTML with colour spans (no surrounding `<pre>`).
pub fn to_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 32);
    let mut style = Style::default();
    let mut open = false;
    let mut text_start = 0;
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != 0x1b && b[i] != b'\r' {
            i += 1;
            continue;
        }
        emit(&mut out, &s[text_start..i], style, &mut open);
        if b[i] == b'\r' {
            i += 1;
            text_start = i;
            continue;
        }
        // ESC: find the end of the sequence.
        let mut j = i + 1;
        match b.get(j) {
            Some(b'[') => {
                j += 1;
                let params_start = j;
                while j < b.len() && !(0x40..=0x7e).contains(&b[j]) {
                    j += 1;
                }
                if j < b.len() && b[j] == b'm' {
                    let mut next = style;
                    next.apply(&s[params_start..j]);
                    if next != style {
                        if open {
                            out.push_str("</span>");
                            open = false;
                        }
                        style = next;
                    }
                }
                j += 1;
            }
            Some(b']') => {
                // OSC: up to BEL or ESC \.
                while j < b.len() && b[j] != 0x07 && !(b[j] == 0x1b && b.get(j + 1) == Some(&b'\\')) {
                    j += 1;
                }
                j += if b.get(j) == Some(&0x07) { 1 } else { 2 };
            }
            Some(_) => j += 1,
            None => {}
        }
        i = j.min(b.len());
        while i < b.len() && !s.is_char_boundary(i) {
            i += 1;
        }
        text_start = i;
    }
    emit(&mut out, &s[text_start.min(s.len())..], style, &mut open);
    if open {
        out.push_str("</span>");
    }
    out
}

/// Escaped text, opening a span for the current style first if needed.
fn emit(out: &mut String, text: &str, style: Style, open: &mut bool) {
    if text.is_empty() {
        return;
    }
    if !*open && style != Style::default() {
        out.push_str("<span class=\"");
        out.push_str(&style.classes());
        out.push_str("\">");
        *open = true;
    }
    push_esc(out, text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_become_classes() {
        let h = to_html("\u{1b}[1m\u{1b}[32m   Compiling\u{1b}[0m x <y>");
        assert_eq!(h, "<span class=\"ansi-fg2 ansi-b\">   Compiling</span> x &lt;y&gt;");
    }

    #[test]
    fn other_sequences_are_stripped() {
        assert_eq!(to_html("a\u{1b}[2Kb\u{1b}]0;title\u{7}c\r\n"), "abc\n");
        assert_eq!(to_html("\u{1b}[38;2;1;2;3mx\u{1b}[m"), "x");
        assert_eq!(to_html("\u{1b}[38;5;9mx"), "<span class=\"ansi-fg9\">x</span>");
        assert_eq!(to_html("tail\u{1b}"), "tail");
        assert_eq!(to_html("é\u{1b}[31mé"), "é<span class=\"ansi-fg1\">é</span>");
    }
}

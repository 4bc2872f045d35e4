//! Terminal hygiene: what cctree prints on stdout and stderr.
//!
//! Directory and file names, uuids, titles and working directories come from
//! the archive. Printed raw, a name holding `ESC ]52;…` (OSC) or `ESC [2J`
//! (CSI) would drive the reader's terminal: write its clipboard, set its
//! title, clear or hide text. So every control character — C0 (but the line
//! breaks and tabs of our own messages), DEL, C1 (U+0080–U+009F, which some
//! terminals read as 8-bit escapes) and the bidirectional overrides (which
//! reorder what is shown) — is printed visibly escaped: `\x1b`, `\x7f`,
//! `\u{9b}`, `\u{202e}`.
//!
//! - [`escape`] escapes one value (a path, a name, a uuid) completely, line
//!   breaks included, so a name cannot forge a line of output;
//! - [`escape_text`] escapes a whole message but keeps its `\n` and `\t`;
//! - [`json`] escapes what serde_json leaves raw (DEL, C1, bidi) as `\u` escapes;
//! - [`print_out`] writes a message to stdout (errors go to the caller: a
//!   closed pipe ends cctree quietly, see `main.rs`), [`print_err`] to stderr,
//!   where an error is ignored (there is nowhere left to report it);
//! - [`Stderr`] is the writer of the log (`tracing`) with the same rules;
//!   after [`warnings_once`] (`cctree serve`) it prints each warning once.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::Write as _;

/// Whether `c` is shown escaped. `keep_lines`: `\n` and `\t` are not.
fn is_control(c: char, keep_lines: bool) -> bool {
    match c {
        '\n' | '\t' => !keep_lines,
        '\0'..='\x1f' | '\x7f' | '\u{80}'..='\u{9f}' => true,
        // Bidirectional marks, embeddings, overrides and isolates.
        '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

fn push_escaped(out: &mut String, c: char) {
    if (c as u32) < 0x80 {
        let _ = write!(out, "\\x{:02x}", c as u32);
    } else {
        let _ = write!(out, "\\u{{{:x}}}", c as u32);
    }
}

fn escape_with(s: &str, keep_lines: bool) -> Cow<'_, str> {
    let Some(first) = s.find(|c| is_control(c, keep_lines)) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 8);
    out.push_str(&s[..first]);
    for c in s[first..].chars() {
        if is_control(c, keep_lines) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// One value (a path, a name, a uuid) with every control character escaped,
/// line breaks and tabs included.
pub fn escape(s: &str) -> Cow<'_, str> {
    escape_with(s, false)
}

/// A message with every control character escaped but its line breaks and tabs.
pub fn escape_text(s: &str) -> Cow<'_, str> {
    escape_with(s, true)
}

/// Whether stderr (the log, warnings) is coloured: `Some` as `--color
/// always`/`never` say; `None` (auto) as the conventions of `NO_COLOR`
/// (set and not empty: never) and `CLICOLOR_FORCE` (set and not `0`:
/// always) say, else on a terminal that is not `TERM=dumb`.
pub fn stderr_colour(choice: Option<bool>) -> bool {
    let set = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    choice.unwrap_or_else(|| {
        if set("NO_COLOR").is_some() {
            false
        } else if set("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
            true
        } else {
            std::io::IsTerminal::is_terminal(&std::io::stderr()) && set("TERM").is_none_or(|t| t != "dumb")
        }
    })
}

/// Writes a document (`export -o -`) to stdout: its exact bytes into a pipe
/// or a file; on a terminal, escaped as any text cctree prints.
pub fn print_document(text: &str) -> std::io::Result<()> {
    if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        return print_out(text);
    }
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// `1 project`, `2 projects`: a count and the word for it.
pub fn plural<N: Copy + std::fmt::Display + TryInto<u64>>(n: N, one: &str, many: &str) -> String {
    if n.try_into().ok() == Some(1) { format!("1 {one}") } else { format!("{n} {many}") }
}

/// A word for a POSIX shell (and fish): as it is when it needs no quotes,
/// else quoted (`shlex`). A command cctree prints, or one a page offers to
/// copy, reads back as the same words. (A NUL, which no command line can
/// carry, is kept as it is rather than refused.)
pub fn shell_quote(s: &str) -> String {
    shlex::Quoter::new().allow_nul(true).quote(s).map_or_else(|_| format!("'{s}'"), std::borrow::Cow::into_owned)
}

/// [`escape`] for anything displayable: `format!("{}", term::safe(path.display()))`.
pub fn safe<T: std::fmt::Display>(value: T) -> Safe<T> {
    Safe(value)
}

/// See [`safe`].
pub struct Safe<T>(T);

impl<T: std::fmt::Display> std::fmt::Display for Safe<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&escape(&self.0.to_string()))
    }
}

/// JSON text from serde_json with DEL, C1 and bidi characters written as
/// `\u` escapes (serde_json escapes only C0). They can only stand inside
/// strings, so the JSON means the same.
pub fn json(text: &str) -> Cow<'_, str> {
    let Some(first) = text.find(|c| is_control(c, true)) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        if is_control(c, true) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Writes `text` (escaped with [`escape_text`]) to stdout and flushes.
pub fn print_out(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(escape_text(text).as_bytes())?;
    out.flush()
}

/// Writes `text` (escaped with [`escape_text`]) to stderr. A write error is
/// ignored: a full or closed stderr must not end the command.
pub fn print_err(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(escape_text(text).as_bytes());
    let _ = err.flush();
}

/// Escapes a formatted log line: like [`escape_text`], except the colour
/// sequences (`ESC [ … m`, SGR) the log formatter writes itself. The
/// formatter already shows an ESC inside a message as `\x1b`, so a raw ESC
/// left here is one of its own; anything but a colour sequence is escaped
/// anyway.
fn escape_log(s: &str) -> Cow<'_, str> {
    if !s.contains(|c| is_control(c, true)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if c == '\x1b' {
            let sgr = rest[1..]
                .strip_prefix('[')
                .and_then(|r| r.find(|c: char| !(c.is_ascii_digit() || c == ';')).map(|i| (r, i)))
                .filter(|(r, i)| r[*i..].starts_with('m'));
            if let Some((_, i)) = sgr {
                let len = 2 + i + 1;
                out.push_str(&rest[..len]);
                rest = &rest[len..];
                continue;
            }
        }
        if is_control(c, true) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    Cow::Owned(out)
}

/// The width of the terminal stdout is, when it is one; else `COLUMNS`
/// when it is set (`None`: a pipe or a file, where nothing wraps).
pub fn stdout_width() -> Option<usize> {
    console::Term::stdout()
        .size_checked()
        .map(|(_, cols)| usize::from(cols))
        .or_else(|| std::env::var("COLUMNS").ok()?.trim().parse().ok())
        .filter(|w| *w > 0)
}

/// `text` wrapped at spaces to lines of at most `width` characters (a word
/// longer than that stands alone on its line); unwrapped with no width.
pub fn wrap(text: &str, width: Option<usize>) -> String {
    let Some(width) = width else { return text.to_string() };
    let mut out = String::new();
    let mut line = 0;
    for word in text.split(' ') {
        let n = word.chars().count();
        if line > 0 && line + 1 + n > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += n;
    }
    out
}

/// The log's writer: stderr, escaped (see [`escape_log`]), errors ignored.
#[derive(Debug, Clone, Copy, Default)]
pub struct Stderr;

/// The digests (BLAKE3: a warning's text is the archive's, so no crafted
/// line may collide with another) of the warnings printed, once
/// [`warnings_once`] is called; `None` before.
static WARNED: std::sync::Mutex<Option<std::collections::HashSet<[u8; 32]>>> = std::sync::Mutex::new(None);

/// Warnings not printed again since [`take_repeated_warnings`] was last called.
static REPEATED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// From now on, each warning of the log is printed the first time only:
/// `cctree serve` renders again after every change, and each render would
/// print every warning of the archive again. Its summary line still counts
/// them all, and says how many were printed before
/// ([`take_repeated_warnings`]).
pub fn warnings_once() {
    let mut w = WARNED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    w.get_or_insert_with(Default::default);
}

/// How many warnings were not printed (having been printed before, see
/// [`warnings_once`]) since the last call.
pub fn take_repeated_warnings() -> usize {
    REPEATED.swap(0, std::sync::atomic::Ordering::Relaxed)
}

/// Whether the warning `line` (as the log formats it) is printed: always,
/// unless [`warnings_once`] was called and it was printed before.
fn first_time(line: &[u8]) -> bool {
    let mut warned = WARNED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(seen) = warned.as_mut() else {
        return true;
    };
    let new = seen.insert(*blake3::hash(line).as_bytes());
    if !new {
        REPEATED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    new
}

/// One event of the log (the formatter writes each in one call), written
/// by [`Stderr`]; `warning`: it is a warning (see [`warnings_once`]).
pub struct LogWriter {
    warning: bool,
}

impl std::io::Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.warning && !first_time(buf) {
            return Ok(buf.len());
        }
        let text = String::from_utf8_lossy(buf);
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(escape_log(&text).as_bytes());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let _ = std::io::stderr().flush();
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Stderr {
    type Writer = LogWriter;

    fn make_writer(&'a self) -> Self::Writer {
        LogWriter { warning: false }
    }

    fn make_writer_for(&'a self, meta: &tracing::Metadata<'_>) -> Self::Writer {
        LogWriter { warning: *meta.level() == tracing::Level::WARN }
    }
}

/// How the log writes an event: `warning: …`, `error: …` (as cctree's own
/// `error:` and `note:` lines), `info: …` and below; the level coloured
/// when `colour`.
#[derive(Debug, Clone, Copy)]
pub struct LogFormat {
    pub colour: bool,
}

impl<S, N> tracing_subscriber::fmt::FormatEvent<S, N> for LogFormat
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    N: for<'a> tracing_subscriber::fmt::FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &tracing_subscriber::fmt::FmtContext<'_, S, N>,
        mut w: tracing_subscriber::fmt::format::Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> std::fmt::Result {
        let (word, sgr) = match *event.metadata().level() {
            tracing::Level::ERROR => ("error", "1;31"),
            tracing::Level::WARN => ("warning", "1;33"),
            tracing::Level::INFO => ("info", "1;32"),
            tracing::Level::DEBUG => ("debug", "1;34"),
            tracing::Level::TRACE => ("trace", "1;35"),
        };
        match self.colour {
            true => write!(w, "\x1b[{sgr}m{word}:\x1b[0m ")?,
            false => write!(w, "{word}: ")?,
        }
        ctx.field_format().format_fields(w.by_ref(), event)?;
        writeln!(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_every_control_character_of_a_value() {
        assert!(matches!(escape("-home-me-app/5e55.jsonl"), Cow::Borrowed(_)));
        assert_eq!(escape("a\x1b]52;c;aGk=\x07b"), "a\\x1b]52;c;aGk=\\x07b");
        assert_eq!(escape("x\ny\tz\r\0"), "x\\x0ay\\x09z\\x0d\\x00");
        assert_eq!(escape("del\x7f c1\u{9b}2J"), "del\\x7f c1\\u{9b}2J");
        assert_eq!(escape("evil\u{202e}txt.exe"), "evil\\u{202e}txt.exe");
        assert_eq!(escape("émoji 🦀 名前"), "émoji 🦀 名前");
    }

    #[test]
    fn no_character_escapes_the_escaping() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let s = c.to_string();
            let out = escape(&s);
            assert!(!out.contains(|c| is_control(c, false)), "{:x}", c as u32);
            let text = escape_text(&s);
            assert!(!text.contains(|c| is_control(c, true)), "{:x}", c as u32);
            assert!(!escape_log(&s).contains(|c| is_control(c, true) && c != '\x1b'), "{:x}", c as u32);
        }
        // A lone ESC, or one that starts anything but a colour, is escaped.
        for s in ["\x1b", "\x1b[", "\x1b[1", "\x1b]0;x\x07", "\x1bP", "\x1b[0;31H"] {
            assert!(!escape_log(s).contains('\x1b'), "{s:?}");
        }
    }

    /// Everything printed goes through this module: no `println!` or
    /// `eprintln!` elsewhere (they panic on a full or closed stream, and
    /// escape nothing).
    #[test]
    fn nothing_else_prints() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        for entry in walkdir::WalkDir::new(&src).into_iter().flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|x| x != "rs") || path.ends_with("term.rs") {
                continue;
            }
            let text = std::fs::read_to_string(path).unwrap_or_default();
            for mac in ["println!", "eprintln!", "print!(", "eprint!("] {
                assert!(!text.contains(mac), "{} uses {mac}: print through crate::term", path.display());
            }
        }
    }

    #[test]
    fn shell_words_read_back_as_themselves() {
        assert_eq!(shell_quote("5e5510a1-0000-4000-8000-0000000000a1"), "5e5510a1-0000-4000-8000-0000000000a1");
        assert_eq!(shell_quote("/home/me/src/app"), "/home/me/src/app");
        assert_eq!(shell_quote("my dir/-a"), "'my dir/-a'");
        assert_eq!(shell_quote(""), "''");
        for s in ["it's", "a\"b$c`d", "x\ny", "*/src/*", "~/x", "a=b,c%d", "münchen", "^x!", "tab\there"] {
            let q = shell_quote(s);
            assert_eq!(shlex::split(&q), Some(vec![s.to_string()]), "{s:?} → {q}");
        }
    }

    #[test]
    fn text_keeps_its_lines() {
        assert_eq!(escape_text("one\n\ttwo\x1b[2J\n"), "one\n\ttwo\\x1b[2J\n");
    }

    #[test]
    fn json_stays_json() {
        let v = serde_json::json!({"name": "a\x1b\u{7f}\u{85}\u{202e}b"});
        let text = serde_json::to_string(&v).unwrap();
        let safe = json(&text);
        assert!(!safe.contains(|c| is_control(c, false)), "{safe}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&safe).unwrap(), v);
    }

    #[test]
    fn log_lines_keep_colours_only() {
        let line = "\x1b[33m WARN\x1b[0m x/\\x1b]0;t\x07: \x1b]0;title\x07 \x1b[2J done\n";
        assert_eq!(escape_log(line), "\x1b[33m WARN\x1b[0m x/\\x1b]0;t\\x07: \\x1b]0;title\\x07 \\x1b[2J done\n");
    }
}

//! Syntax highlighting of code blocks with syntect: one shared [`SyntaxSet`]
//! (loaded on the first block of a known language), flat spans of the few
//! kinds of token `assets/syntax.css` colours ([`KINDS`]), caps so that one
//! huge file cannot make a page slow or heavy, and each distinct snippet
//! highlighted once per process ([`Highlighted`]).

use std::fmt::Write as _;
use std::sync::{Arc, LazyLock, Mutex};

use rustc_hash::FxHashMap;

use syntect::highlighting::{
    Color, HighlightIterator, HighlightState, Highlighter, ScopeSelectors, StyleModifier, Theme, ThemeItem,
};
use syntect::parsing::{ParseState, ScopeStack, SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

use super::{Html, controls_shown, push_text};
use crate::limits::{HIGHLIGHT_BLOCK, HIGHLIGHT_CACHE, HIGHLIGHT_LINE, HIGHLIGHT_PAGE};

static SYNTAXES: LazyLock<SyntaxSet> = LazyLock::new(SyntaxSet::load_defaults_newlines);

/// The kinds of token a page colours: the letter of its element (`<h-k>`,
/// an inline custom element styled by `assets/syntax.css`) and the TextMate
/// scope selectors that make a token of that kind. A token takes the kind of
/// the selector matching it best (TextMate's rule: the deepest scope, then
/// the longest selector), as a theme's colour would; tokens of no kind are
/// plain text. One short flat element per run of a kind, instead of a nested
/// classed span per scope, keeps highlighted code under 3× its source
/// instead of about 9×.
const KINDS: &[(&str, &str)] = &[
    ("c", "comment"),
    ("s", "string"),
    ("n", "constant.numeric, constant.language, constant.character"),
    ("k", "keyword, storage"),
    ("f", "entity.name.function, support.function, variable.function, meta.macro, support.macro, entity.name.macro"),
    ("t", "entity.name.type, entity.name.class, support.type, support.class, storage.type, variable.parameter"),
    ("g", "entity.name.tag"),
    ("a", "entity.other.attribute-name"),
    ("h", "markup.heading"),
    ("i", "markup.inserted"),
    ("d", "markup.deleted, invalid"),
];

/// [`KINDS`] as a syntect theme: kind `i` is the foreground colour with red
/// `i + 1` (the default, black, is no kind).
static THEME: LazyLock<Theme> = LazyLock::new(|| Theme {
    scopes: KINDS
        .iter()
        .zip(1u8..)
        .map(|(&(_, selectors), i)| ThemeItem {
            scope: selectors.parse::<ScopeSelectors>().expect("the selectors of KINDS parse"),
            style: StyleModifier { foreground: Some(Color { r: i, g: 0, b: 0, a: 0xFF }), ..StyleModifier::default() },
        })
        .collect(),
    ..Theme::default()
});

// syntect runs near 1 MB/s per core, the rest of the renderer near 100 MB/s:
// highlighting is spent where a reader looks, and capped (`crate::limits`).

/// What is left of a page's highlighting allowance.
#[derive(Debug, Clone)]
pub struct Budget {
    left: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { left: HIGHLIGHT_PAGE }
    }
}

impl Budget {
    /// No highlighting: for text a page shows folded (a tool's input and
    /// result, thinking, a compaction summary). The reader opens few folds;
    /// highlighting is spent on the code a page shows open.
    pub fn none() -> Budget {
        Budget { left: 0 }
    }
}

fn syntax_for(token: &str) -> Option<&'static SyntaxReference> {
    let t = token.trim().to_ascii_lowercase();
    let t = match t.as_str() {
        "ts" | "tsx" | "typescript" | "jsx" | "mjs" | "cjs" => "js",
        "shell" | "zsh" | "console" | "shellscript" => "bash",
        "jsonc" | "json5" => "json",
        "yml" => "yaml",
        "py3" | "python3" => "python",
        "text" | "txt" | "plain" | "plaintext" | "" => return None,
        other => other,
    };
    let ss = &*SYNTAXES;
    ss.find_syntax_by_token(t).filter(|s| s.name != "Plain Text")
}

/// A `<pre>` block for prose `code`, highlighted when the language is known
/// and the block fits the caps, else plain escaped text.
pub fn code_block(code: &str, lang: Option<&str>, budget: &mut Budget) -> Html {
    block(code, lang, budget, HIGHLIGHT_BLOCK)
}

/// A `<pre>` block for the contents of a file (Read, Write): plain. File
/// views sit in closed tool blocks and are most of an archive's bytes;
/// highlighting is spent on what a page shows open (prose code blocks).
pub fn file_block(code: &str) -> Html {
    let mut out = String::with_capacity(code.len() + code.len() / 8 + 32);
    out.push_str("<pre class=\"code\"><code>");
    push_text(&mut out, code);
    out.push_str("</code></pre>");
    Html::trusted(out)
}

/// A file read (Read): the text, plain and escaped, each line numbered from
/// `first` by the `data-n` attribute of its `<pre>` (the numbers, one a
/// line, drawn beside the code by CSS: not copied with the code, not found
/// by search, a few bytes a line), and, when syntect knows the language of
/// `path`'s extension and the file fits [`HIGHLIGHT_BLOCK`] and
/// [`HIGHLIGHT_LINE`], that language as highlight.js names it
/// (`data-lang`, [`hljs_language`]): `static/app.js` colours the file in
/// the browser when a reader opens it. File reads sit in closed folds and
/// are most of an archive's code; highlighting them here was most of a
/// render's CPU (`docs/performance.md`).
pub fn numbered_file(code: &str, path: &str, first: usize) -> Html {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let ext = match name.rsplit_once('.') {
        Some((_, ext)) => ext,
        None => name,
    };
    let fits = code.len() <= HIGHLIGHT_BLOCK && code.split('\n').all(|l| l.len() <= HIGHLIGHT_LINE);
    let lang = fits.then(|| syntax_for(ext)).flatten().and_then(|s| hljs_language(&s.name));
    let lines = code.strip_suffix('\n').unwrap_or(code).split('\n').count();
    let width = (first + lines).to_string().len() + 1;
    let mut out = String::with_capacity(code.len() + code.len() / 8 + lines * width + 64);
    out.push_str("<pre class=\"code lines\"");
    if let Some(lang) = lang {
        out.push_str(" data-lang=\"");
        out.push_str(lang);
        out.push('"');
    }
    out.push_str(" data-n=\"");
    for n in first..first + lines {
        if n > first {
            out.push('\n');
        }
        let _ = write!(out, "{n}");
    }
    out.push_str("\"><code>");
    push_text(&mut out, code);
    out.push_str("</code></pre>");
    Html::trusted(out)
}

/// The name highlight.js gives the language of syntect's syntax `name`
/// (`None`: one it does not know). Every name is a language of the vendored
/// build (`static/vendor/highlight.js/`: its common languages and the
/// grammars added to it), so a file is coloured in the browser as the
/// language syntect would have picked for it.
pub fn hljs_language(name: &str) -> Option<&'static str> {
    Some(match name {
        "ActionScript" => "actionscript",
        "AppleScript" => "applescript",
        "Batch File" => "dos",
        "C" => "c",
        "C#" => "csharp",
        "C++" => "cpp",
        "Clojure" => "clojure",
        "CSS" => "css",
        "D" => "d",
        "Diff" => "diff",
        "Erlang" => "erlang",
        "Go" => "go",
        "Groovy" => "groovy",
        "Haskell" => "haskell",
        "HTML" | "HTML (ASP)" | "HTML (Erlang)" | "HTML (Rails)" | "HTML (Tcl)" | "XML" => "xml",
        "Java" => "java",
        "Java Properties" => "properties",
        "JavaScript" | "JavaScript (Rails)" => "javascript",
        "JSON" => "json",
        "LaTeX" | "TeX" => "latex",
        "Lisp" => "lisp",
        "Lua" => "lua",
        "Makefile" => "makefile",
        "Markdown" | "MultiMarkdown" => "markdown",
        "MATLAB" => "matlab",
        "Objective-C" | "Objective-C++" => "objectivec",
        "OCaml" => "ocaml",
        "Pascal" => "delphi",
        "Perl" => "perl",
        "PHP" | "PHP Source" => "php",
        "Python" => "python",
        "R" => "r",
        "Ruby" | "Ruby on Rails" => "ruby",
        "Ruby Haml" => "haml",
        "Rust" => "rust",
        "Scala" => "scala",
        "Bourne Again Shell (bash)" | "Shell-Unix-Generic" => "bash",
        "SQL" | "SQL (Rails)" => "sql",
        "Tcl" => "tcl",
        "YAML" => "yaml",
        _ => return None,
    })
}

fn block(code: &str, lang: Option<&str>, budget: &mut Budget, cap: usize) -> Html {
    let fits = code.len() <= cap && code.len() <= budget.left && code.split('\n').all(|l| l.len() <= HIGHLIGHT_LINE);
    // The syntax set is loaded on the first block that may be highlighted.
    if let Some(syntax) = lang.filter(|_| fits).and_then(syntax_for) {
        // syntect escapes markup but writes control characters as they are.
        if let Some(html) = classed_once(code, syntax) {
            budget.left -= code.len();
            let mut out = String::with_capacity(html.len() + 32);
            out.push_str("<pre class=\"code hl\"><code>");
            out.push_str(&html);
            out.push_str("</code></pre>");
            return Html::trusted(out);
        }
    }
    file_block(code)
}

/// The classed HTML of every snippet highlighted so far, by a hash of its
/// language and text: tool results show the same files again and again, on
/// many pages and branches. A snippet's HTML is a function of its language
/// and text alone, so whichever thread or page highlights it first, every
/// page gets the same bytes; the cache only saves the work. It holds at most
/// [`HIGHLIGHT_CACHE`] bytes of HTML (then snippets not yet in it are
/// highlighted every time).
struct Highlighted {
    map: FxHashMap<[u8; 16], Arc<str>>,
    bytes: usize,
}

static HIGHLIGHTED: LazyLock<Mutex<Highlighted>> =
    LazyLock::new(|| Mutex::new(Highlighted { map: FxHashMap::default(), bytes: 0 }));

/// [`classed`] of `code`, from [`HIGHLIGHTED`] when it was highlighted before.
fn classed_once(code: &str, syntax: &SyntaxReference) -> Option<Arc<str>> {
    let mut h = blake3::Hasher::new();
    h.update(syntax.name.as_bytes());
    h.update(b"\0");
    h.update(code.as_bytes());
    let mut key = [0u8; 16];
    key.copy_from_slice(&h.finalize().as_bytes()[..16]);
    let lock = || HIGHLIGHTED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(html) = lock().map.get(&key) {
        return Some(Arc::clone(html));
    }
    let html: Arc<str> = classed(&controls_shown(code), syntax)?.into();
    let mut cache = lock();
    if cache.bytes + html.len() <= HIGHLIGHT_CACHE && !cache.map.contains_key(&key) {
        cache.bytes += html.len();
        cache.map.insert(key, Arc::clone(&html));
    }
    Some(html)
}

/// `code` as HTML: escaped, each run of a token kind in its element
/// ([`KINDS`]). `None` when syntect fails on it.
fn classed(code: &str, syntax: &SyntaxReference) -> Option<String> {
    let highlighter = Highlighter::new(&THEME);
    let mut parse = ParseState::new(syntax);
    let mut state = HighlightState::new(&highlighter, ScopeStack::new());
    let mut out = String::with_capacity(code.len() * 2 + 64);
    // The kind of the open span (0: none).
    let mut open = 0u8;
    for line in LinesWithEndings::from(code) {
        let ops = parse.parse_line(line, &SYNTAXES).ok()?;
        for (style, text) in HighlightIterator::new(&mut state, &ops, line, &highlighter) {
            let kind = match style.foreground.r {
                _ if text.trim().is_empty() => open,
                r if usize::from(r) <= KINDS.len() => r,
                _ => 0,
            };
            if kind != open {
                close(&mut out, open);
                if let Some((letter, _)) = usize::from(kind).checked_sub(1).and_then(|i| KINDS.get(i)) {
                    out.push_str("<h-");
                    out.push_str(letter);
                    out.push('>');
                }
                open = kind;
            }
            push_text(&mut out, text);
        }
    }
    close(&mut out, open);
    Some(out)
}

/// Closes the element of kind `open` (0: none is open).
fn close(out: &mut String, open: u8) {
    if let Some((letter, _)) = usize::from(open).checked_sub(1).and_then(|i| KINDS.get(i)) {
        out.push_str("</h-");
        out.push_str(letter);
        out.push('>');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highlights_known_languages_with_classes() {
        let mut b = Budget::default();
        let html = code_block("fn main() { let x = \"<b>\"; }\n", Some("rust"), &mut b).into_string();
        assert!(html.contains("<h-k>"), "{html}");
        assert!(html.contains("&lt;b>"));
        assert!(!html.contains("style="));
    }

    /// A snippet met again is served from the cache, with the same bytes;
    /// another language or text is highlighted on its own.
    #[test]
    fn each_snippet_is_highlighted_once() {
        let code = "def cached_snippet_test(x):\n    return x + 1  # <b>\n";
        let first = code_block(code, Some("python"), &mut Budget::default());
        let again = code_block(code, Some("py"), &mut Budget::default());
        assert_eq!(first, again);
        assert!(first.as_str().contains("<h-"), "{}", first.as_str());
        let ruby = code_block(code, Some("ruby"), &mut Budget::default());
        assert_ne!(first, ruby);
        let syntax = syntax_for("python").unwrap();
        let a = classed_once(code, syntax).unwrap();
        let b = classed_once(code, syntax).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(&*a, classed(code, syntax).unwrap());
    }

    /// A file read: plain escaped text, its lines numbered from the first
    /// line's number by the `<pre>`'s `data-n` (one number a line, nothing
    /// inside the code), with the language highlight.js colours it in when
    /// syntect knows the extension and the file fits the caps.
    #[test]
    fn file_reads_are_numbered_plain_text_with_their_language() {
        let code = "fn a() {}\n// <x>\nlet s = 1;\n";
        let h = numbered_file(code, "/w/src/main.rs", 9).into_string();
        assert_eq!(
            h,
            "<pre class=\"code lines\" data-lang=\"rust\" data-n=\"9\n10\n11\"><code>fn a() {}\n// &lt;x>\nlet s = 1;\n</code></pre>"
        );
        // No trailing newline: the same lines; an empty file: one line.
        assert!(numbered_file("a\nb", "x.py", 1).as_str().contains(" data-lang=\"python\" data-n=\"1\n2\">"));
        assert!(numbered_file("", "x.py", 3).as_str().contains(" data-n=\"3\"><code></code>"));
        // The language syntect would pick: TypeScript is read as JavaScript,
        // a Makefile by its name, a file of no known language has none.
        assert!(numbered_file("let a = 1;\n", "C:\\w\\app.ts", 1).as_str().contains("data-lang=\"javascript\""));
        assert!(numbered_file("all:\n", "/w/Makefile", 1).as_str().contains("data-lang=\"makefile\""));
        let plain = numbered_file(code, "notes", 1).into_string();
        assert!(plain.starts_with("<pre class=\"code lines\" data-n=\"1\n2\n3\"><code>fn a()"), "{plain}");
        // Past the caps: numbered, not coloured.
        let big = "x = 1\n".repeat(HIGHLIGHT_BLOCK / 6 + 1);
        let h = numbered_file(&big, "a.py", 1).into_string();
        assert!(!h.contains("data-lang") && h.contains("\n2731\"><code>"), "{}", &h[..80]);
        let long = "a".repeat(HIGHLIGHT_LINE + 1);
        assert!(!numbered_file(&long, "a.rs", 1).as_str().contains("data-lang"));
        // Nothing is highlighted here: no element inside the code.
        assert!(!h.contains("<h-") && !h.contains("<l-n"));
    }

    /// Every language a file read may ask for is in the vendored
    /// highlighter the site serves (a common language of its core, or a
    /// grammar added to it), and every syntax syntect knows is either
    /// mapped or one highlight.js lacks.
    #[test]
    fn every_language_of_a_file_read_is_in_the_served_highlighter() {
        let script = crate::render::site::assets::ASSETS
            .iter()
            .find(|(path, _)| *path == "assets/highlight.js")
            .expect("the highlighter is a site asset")
            .1;
        let mut unmapped = Vec::new();
        for syntax in SYNTAXES.syntaxes() {
            match hljs_language(&syntax.name) {
                Some(lang) => {
                    let core = format!("grmr_{}", lang.replace('-', "_"));
                    let added = format!("registerLanguage(\"{lang}\"");
                    assert!(script.contains(&core) || script.contains(&added), "{} → {lang}: not served", syntax.name);
                }
                None => unmapped.push(syntax.name.as_str()),
            }
        }
        unmapped.sort_unstable();
        // Each of these has no grammar in highlight.js (or is no language):
        // its files stay plain.
        let plain = [
            "ASP",
            "BibTeX",
            "Cargo Build Results",
            "Graphviz (DOT)",
            "Java Server Page (JSP)",
            "JavaDoc",
            "LaTeX Log",
            "Literate Haskell",
            "Make Output",
            "NAnt Build File",
            "OCamllex",
            "OCamlyacc",
            "Plain Text",
            "R Console",
            "Rd (R Documentation)",
            "Regular Expression",
            "Regular Expressions (Javascript)",
            "Regular Expressions (Python)",
            "Textile",
            "camlp4",
            "commands-builtin-shell-bash",
            "reStructuredText",
        ];
        assert_eq!(unmapped, plain, "syntect's syntaxes with no highlight.js language");
    }

    /// One flat element per run of a kind of token: keywords, strings (with
    /// their quotes), comments, numbers, functions and types get theirs;
    /// other tokens are plain; markup in the code is escaped.
    #[test]
    fn tokens_get_the_element_of_their_kind() {
        let code = "// the <b> tag\nfn main() { let s = \"a&b\"; let n: u32 = 42; }\n";
        let html = classed(code, syntax_for("rust").unwrap()).unwrap();
        // (kind, text) of every element, in order; nothing nested.
        let mut runs = Vec::new();
        for piece in html.split("<h-").skip(1) {
            let (kind, rest) = piece.split_once('>').unwrap();
            let (text, after) = rest.split_once("</h-").unwrap();
            assert!(!text.contains('<'), "nested: {html}");
            assert!(after.starts_with(&format!("{kind}>")), "{html}");
            runs.push((kind, text.trim()));
        }
        for want in [
            ("c", "// the &lt;b> tag"),
            ("t", "fn"),
            ("f", "main"),
            ("t", "let"),
            ("k", "="),
            ("s", "\"a&amp;b\""),
            ("t", "u32"),
            ("n", "42"),
        ] {
            assert!(runs.contains(&want), "{want:?} not in {runs:?}");
        }
        // Punctuation and names are plain; the text is the code.
        assert!(!runs.iter().any(|(_, t)| *t == "s" || t.contains('{')), "{runs:?}");
        let mut text = String::new();
        crate::render::search::extract::strip(&html, &mut text);
        assert_eq!(text, code);
    }

    /// Highlighted code stays a few times its source (the nested classed
    /// spans it replaces were about 9×).
    #[test]
    fn highlighted_code_is_light() {
        let code = "use std::collections::HashMap;\n\nfn count(words: &[&str]) -> HashMap<&str, usize> {\n    let mut m = HashMap::new();\n    for w in words {\n        *m.entry(*w).or_insert(0) += 1; // tally\n    }\n    m\n}\n".repeat(20);
        let html = classed(&code, syntax_for("rust").unwrap()).unwrap();
        assert!(html.len() < code.len() * 3, "{} bytes of HTML for {} of code", html.len(), code.len());
    }

    #[test]
    fn unknown_language_and_caps_fall_back_to_plain() {
        let mut b = Budget::default();
        let plain = code_block("<x>", Some("no-such-lang"), &mut b);
        assert_eq!(plain.as_str(), "<pre class=\"code\"><code>&lt;x></code></pre>");
        let long = "a".repeat(HIGHLIGHT_LINE + 1);
        assert!(!code_block(&long, Some("rust"), &mut b).as_str().contains("<h-"));
    }
}

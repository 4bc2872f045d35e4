//! Syntax highlighting of code blocks with syntect: one shared [`SyntaxSet`]
//! (loaded on the first block of a known language), classed spans (`hl-`
//! prefix, styled by `assets/syntax.css`), caps so that one huge file cannot
//! make a page slow or heavy, and each distinct snippet highlighted once per
//! process ([`Highlighted`]).

use std::sync::{Arc, LazyLock, Mutex};

use rustc_hash::FxHashMap;

use syntect::html::{ClassStyle, ClassedHTMLGenerator};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

use super::{Html, controls_shown, push_esc};
use crate::limits::{HIGHLIGHT_BLOCK, HIGHLIGHT_CACHE, HIGHLIGHT_LINE, HIGHLIGHT_PAGE};

static SYNTAXES: LazyLock<SyntaxSet> = LazyLock::new(SyntaxSet::load_defaults_newlines);

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
    push_esc(&mut out, code);
    out.push_str("</code></pre>");
    Html::trusted(out)
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

fn classed(code: &str, syntax: &SyntaxReference) -> Option<String> {
    let mut html_gen =
        ClassedHTMLGenerator::new_with_class_style(syntax, &SYNTAXES, ClassStyle::SpacedPrefixed { prefix: "hl-" });
    for line in LinesWithEndings::from(code) {
        html_gen.parse_html_for_line_which_includes_newline(line).ok()?;
    }
    Some(html_gen.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highlights_known_languages_with_classes() {
        let mut b = Budget::default();
        let html = code_block("fn main() { let x = \"<b>\"; }\n", Some("rust"), &mut b).into_string();
        assert!(html.contains("class=\"hl-"), "{html}");
        assert!(html.contains("&lt;b&gt;"));
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
        assert!(first.as_str().contains("hl-"), "{}", first.as_str());
        let ruby = code_block(code, Some("ruby"), &mut Budget::default());
        assert_ne!(first, ruby);
        let syntax = syntax_for("python").unwrap();
        let a = classed_once(code, syntax).unwrap();
        let b = classed_once(code, syntax).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(&*a, classed(code, syntax).unwrap());
    }

    #[test]
    fn unknown_language_and_caps_fall_back_to_plain() {
        let mut b = Budget::default();
        let plain = code_block("<x>", Some("no-such-lang"), &mut b);
        assert_eq!(plain.as_str(), "<pre class=\"code\"><code>&lt;x&gt;</code></pre>");
        let long = "a".repeat(HIGHLIGHT_LINE + 1);
        assert!(!code_block(&long, Some("rust"), &mut b).as_str().contains("hl-"));
    }
}
